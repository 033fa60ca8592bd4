"""What a raw schema holds, as comparable numbers: per table, the row count and an order-free
digest of the rows without the columns that name the load (id, time, load date). Run in the test
process and, as a script, in a subprocess that opens another warehouse (Derby: one process each):

    python warehouse_digest.py RAW_SCHEMA [PATH...]   # load PATHs first (mqsmf load), then print JSON
"""

from __future__ import annotations

import json
import sys

LOAD_COLUMNS = {"load_id", "loaded_at", "load_date"}


def digest(spark, raw_schema: str) -> dict:
    from mqsmf import warehouse
    from mqsmf.spark import staging
    from mqsmf.warehouse import AUDIT_TABLE, qualified

    out: dict = {"tables": {}, "staged": []}
    # One query for every table (each statement has a fixed cost).
    per_table = []
    for table, schema in warehouse.raw_tables().items():
        cols = [c for c in schema.names if c not in LOAD_COLUMNS]
        row_hash = f"xxhash64({', '.join(f'`{c}`' for c in cols)})"
        per_table.append(
            f"SELECT '{table}' AS t, count(*) AS n, count(DISTINCT {row_hash}) AS distinct_rows, "
            f"CAST(coalesce(sum(CAST({row_hash} AS DECIMAL(38, 0))), 0) AS STRING) AS total "
            f"FROM {qualified(raw_schema, table)}"
        )
    for r in spark.sql(" UNION ALL ".join(per_table)).collect():
        out["tables"][r["t"]] = [r["n"], r["distinct_rows"], r["total"]]
    # Loads in progress: none once a load has ended (a killed one's folder is the next load's to clear).
    area = staging.Area(spark.conf.get("spark.sql.warehouse.dir"), raw_schema)
    out["staged"] = staging.pending_loads(area)
    # The audit of each load, without its id: a load that completed another's publication adds its own.
    audit = [c for c in warehouse.raw_tables()[AUDIT_TABLE].names if c not in LOAD_COLUMNS]
    rows = spark.sql(f"SELECT load_id, {', '.join(audit)} FROM {qualified(raw_schema, AUDIT_TABLE)}").collect()
    per_load: dict[str, list] = {}
    for r in rows:
        per_load.setdefault(r["load_id"], []).append([str(r[c]) for c in audit])
    out["audit_per_load"] = sorted(sorted(v) for v in per_load.values())
    added = spark.sql(
        f"SELECT table_name, sum(rows_added) AS n FROM {qualified(raw_schema, warehouse.LOAD_DATES_TABLE)} GROUP BY 1"
    ).collect()
    out["rows_added"] = {r["table_name"]: r["n"] for r in added if r["n"]}
    return out


def main(argv: list[str]) -> int:
    from mqsmf.spark.load import load_files
    from mqsmf.spark.session import local_session

    raw_schema, paths = argv[0], argv[1:]
    spark = local_session()
    if paths:
        print(load_files(spark, paths, raw_schema=raw_schema))
    print("DIGEST " + json.dumps(digest(spark, raw_schema)))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
