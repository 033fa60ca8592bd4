"""dbt alone loads SMF dumps: the on-run-start macro ``load_smf_files`` runs the loader's statements
through dbt's own connection (here ``dbt run-operation`` in this process, on the shared session),
and with no paths it still leaves every raw table in place, empty."""

from __future__ import annotations

import json

import pytest

from mqsmf import load_lock, read_file, warehouse
from mqsmf.spark import staging

from .smf_samples import sample

pytestmark = pytest.mark.spark


def _tables(spark, schema: str) -> set[str]:
    return {r.tableName for r in spark.sql(f"SHOW TABLES IN {schema}").collect() if not r.isTemporary}


def test_the_macro_loads_the_paths_of_the_dbt_var(spark, dbt):
    from dbt_common.invocation import get_invocation_id

    raw = "test_dbt_raw"
    path = str(sample("TEST116"))
    result = dbt("run-operation", "load_smf_files", "--vars", json.dumps({"smf_paths": [path], "raw_schema": raw}))
    assert result.success, result.exception
    assert _tables(spark, raw) == set(warehouse.raw_tables())
    tables, report = read_file(path)
    for name in ("QMAC", "WTID"):
        assert spark.table(f"{raw}.{name.lower()}").count() == tables[name].num_rows
    audit = spark.table(f"{raw}.smf_load_audit").collect()
    assert {r.load_id for r in audit} == {get_invocation_id()}  # dbt's invocation id names the load
    assert {(r.smf_type, r.smf_subtype): r.records_read for r in audit} == dict(report.read)
    assert not [v for v in spark.catalog.listTables() if v.isTemporary and v.name.startswith("mqsmf_load")]
    area = staging.Area(spark.conf.get("spark.sql.warehouse.dir"), raw)
    assert staging.pending_loads(area) == []  # published, then the load's folder removed
    # The plan held the warehouse's load lock (as its owner, the JVM reading it) and gave it back last.
    lock = load_lock.lock_path(area.db.parent, raw)
    assert not lock.exists()


def test_without_paths_every_raw_table_exists_and_is_empty(spark, dbt):
    raw = "test_dbt_empty_raw"
    result = dbt("run-operation", "load_smf_files", "--vars", json.dumps({"raw_schema": raw}))
    assert result.success, result.exception
    assert _tables(spark, raw) == set(warehouse.raw_tables())
    assert all(spark.table(f"{raw}.{t}").count() == 0 for t in warehouse.raw_tables())


def test_the_hook_does_nothing_without_paths(spark, dbt):
    """A dbt invocation after `mqsmf load` (no smf_paths) must not load, query the data source or
    create raw tables: the load runs once per scheduled run, not once per dbt command."""
    raw = "test_dbt_hook_idle_raw"
    spark.sql(f"DROP DATABASE IF EXISTS {raw} CASCADE")
    result = dbt("seed", "--select", "site_config_queue_managers", "--vars", json.dumps({"raw_schema": raw}))
    assert result.success, result.exception
    assert raw not in {r[0] for r in spark.sql("SHOW DATABASES").collect()}
    # ... and with paths the same hook loads them
    path = str(sample("TEST116"))
    result = dbt(
        "seed", "--select", "site_config_queue_managers", "--vars", json.dumps({"raw_schema": raw, "smf_paths": [path]})
    )
    assert result.success, result.exception
    tables, _ = read_file(path)
    assert spark.table(f"{raw}.qmac").count() == tables["QMAC"].num_rows
