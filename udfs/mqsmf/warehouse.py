"""The warehouse contract, in one place: where the data lives, the schemas and tables the loader
writes, and how their names and values are written in Spark SQL.

Location. The warehouse (Spark's parquet files, ``spark-warehouse/``) and its Hive metastore
(embedded Derby, ``metastore_db/``, with ``derby.log``) live in one folder, the *warehouse folder*:

1. ``$MQSMF_WAREHOUSE_DIR`` when set;
2. else ``<project>/warehouse`` (the dbt project's root, next to ``dbt_project.yml``).

``profiles/profiles.yml`` (dbt target ``local``) writes exactly this rule into the Spark
parameters, and ``mqsmf.spark.profile.warehouse_dir`` reads the folder back from the rendered
profile, so a site that edits the profile moves the data for ``mqsmf``, the tests and dbt alike. The folder is never
under dbt's ``target/`` nor in ``clean-targets``: ``dbt clean`` and ``rm -rf target`` do not touch
data.

Raw tables (schema :data:`RAW_SCHEMA`, dbt var ``raw_schema``), parquet, always present after any
load or dbt run, empty or not:

- one table per structure of ``mqsmf.layouts``, named by the lower-case structure name: the
  columns of ``mqsmf.decode.arrow_schema(name)``, then ``load_id``, ``loaded_at``,
  ``source_sha256`` and the partition column ``interval_date`` (UTC date of :func:`partition_time`:
  ``interval_start``, else ``record_stck``, else the SMF header's ``smf_time_local``; part of the
  row's natural key, so a row never changes partition);
- ``perfm_event``: queue depth event messages of dmpmqmsg dumps loaded in the same paths
  (``mqsmf.pcf``), the same load columns, ``interval_date`` the UTC date of ``put_at``; its audit
  rows have framing ``dmpmqmsg`` and NULL SMF type and subtype;
- :data:`AUDIT_TABLE` (one row per load x file x SMF type x subtype; ``records_with_unexpected_id``
  counts decoded records whose structure identifier is not the layout's, a warning) and :data:`QUARANTINE_TABLE`
  (one row per bad span), partitioned by ``load_date`` (UTC date of ``loaded_at``);
- :data:`LOAD_DATES_TABLE`: one row per load x raw table x interval date the load added rows to
  (what the marts rebuild and the gate checks), partitioned by ``load_date``.

How a load writes them, crash-safely, is ``mqsmf.spark.load``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

RAW_SCHEMA = "smf_raw"
QUALITY_SCHEMA = "mqsmf_quality"
DBT_SCHEMA_ENV = "MQSMF_SCHEMA"  # profiles.yml: the targets' schema is this variable's value, else the default
DEFAULT_DBT_SCHEMA = "mqsmf"
MARTS_LAYER = "marts"  # dbt_project.yml +schema of models/marts/: dbt names it <target schema>_marts
MARTS_SCHEMA_HELP = f"schema of the dbt marts (default <{DBT_SCHEMA_ENV} or {DEFAULT_DBT_SCHEMA}>_{MARTS_LAYER})"
AUDIT_TABLE = "smf_load_audit"
QUARANTINE_TABLE = "smf_quarantine"
LOAD_DATES_TABLE = "smf_load_dates"

WAREHOUSE_ENV = "MQSMF_WAREHOUSE_DIR"
DEFAULT_WAREHOUSE_FOLDER = "warehouse"  # below the project root
SPARK_WAREHOUSE = "spark-warehouse"  # below the warehouse folder: the parquet files
METASTORE = "metastore_db"  # below the warehouse folder: the Derby metastore

LOAD_ID = pa.field("load_id", pa.string())
LOADED_AT = pa.field("loaded_at", pa.timestamp("us", tz="UTC"))
SOURCE_SHA256 = pa.field("source_sha256", pa.string())
INTERVAL_DATE = pa.field("interval_date", pa.date32())  # partition column of the structure tables
LOAD_DATE = pa.field("load_date", pa.date32())  # partition column of audit, quarantine, load dates

# What the data source yields for the pseudo-structures _audit and _quarantine (mqsmf.spark.partitions).
AUDIT_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("file_size", pa.int64()),
        SOURCE_SHA256,
        ("framing", pa.string()),
        ("smf_type", pa.int16()),
        ("smf_subtype", pa.int32()),
        ("records_read", pa.int64()),
        ("records_decoded", pa.int64()),
        ("records_quarantined", pa.int64()),
        ("records_skipped", pa.int64()),
        ("records_with_unexpected_id", pa.int64()),
    ]
)


def quarantine_rows_schema() -> pa.Schema:
    from .reader import QUARANTINE_SCHEMA

    return QUARANTINE_SCHEMA.insert(1, SOURCE_SHA256)


LOAD_DATES_SCHEMA = pa.schema([("table_name", pa.string()), INTERVAL_DATE, ("rows_added", pa.int64())])


def raw_table(structure: str) -> str:
    return structure.lower()


# The dbt sources that declare the raw tables: the SMF ones (generated, models/staging/smf/_smf__sources.yml)
# and the PCF event messages (models/staging/pcf/_pcf__sources.yml).
SMF_SOURCE = "smf_raw"
PCF_SOURCE = "pcf_raw"


def dbt_source(table: str) -> str:
    """The dbt source declaring a raw table."""
    from .pcf import reader as events

    return PCF_SOURCE if table == raw_table(events.STRUCTURE) else SMF_SOURCE


def loaded_structures() -> list[str]:
    """What a load writes a table for: the SMF structures, then the queue depth event messages of
    dmpmqmsg dumps (``mqsmf.pcf``)."""
    from .layouts import layouts
    from .pcf import reader as events

    return [*sorted(layouts()), events.STRUCTURE]


def partition_time_columns(structure: str) -> tuple[str, ...]:
    """The time whose UTC date is a row's ``interval_date``: the first non-NULL of these columns
    (part of the row's natural key, so a row never changes partition). Every row has one: a record
    without a valid SMF header date and STCK is quarantined (``decode.NO_TIME``), an event without
    its put time too. The SMF header's local time stands in only when QWHS carries no valid time."""
    from .pcf import reader as events

    return ("put_at",) if structure == events.STRUCTURE else ("interval_start", "record_stck", "smf_time_local")


def partition_time_sql(structure: str) -> str:
    """:func:`partition_time` in Spark SQL over a raw table's columns (a UTC session time zone reads
    a local time as it reads, as :func:`partition_time` does)."""
    from .decode import arrow_schema
    from .pcf import reader as events

    if structure == events.STRUCTURE:
        return "put_at"
    schema = arrow_schema(structure)
    times = [c if schema.field(c).type.tz else f"cast({c} as timestamp)" for c in partition_time_columns(structure)]
    return f"coalesce({', '.join(times)})"


def partition_time(structure: str, columns: Mapping[str, Any]) -> Any:
    """The row's partition time (first non-NULL of :func:`partition_time_columns`), as UTC
    timestamps: a local time (without zone) is taken as it reads."""
    import pyarrow.compute as pc

    utc = pa.timestamp("us", tz="UTC")
    times = [pc.cast(columns[c], utc) for c in partition_time_columns(structure)]
    return pc.coalesce(*times) if len(times) > 1 else times[0]


def raw_tables() -> dict[str, pa.Schema]:
    """Every raw table and its columns, in order (partition column last): the structures, then
    audit, quarantine and load dates."""
    from .decode import arrow_schema
    from .pcf import reader as events

    out = {}
    for name in loaded_structures():
        schema = events.arrow_schema() if name == events.STRUCTURE else arrow_schema(name)
        for f in (LOAD_ID, LOADED_AT, SOURCE_SHA256, INTERVAL_DATE):
            schema = schema.append(f)
        out[raw_table(name)] = schema
    out[AUDIT_TABLE] = pa.schema([LOAD_ID, LOADED_AT, *AUDIT_SCHEMA, LOAD_DATE])
    out[QUARANTINE_TABLE] = pa.schema([LOAD_ID, LOADED_AT, *quarantine_rows_schema(), LOAD_DATE])
    out[LOAD_DATES_TABLE] = pa.schema([LOAD_ID, LOADED_AT, *LOAD_DATES_SCHEMA, LOAD_DATE])
    return out


def partition_column(table: str) -> str:
    """The column a raw table is partitioned by (its last)."""
    return raw_tables()[table].names[-1]


def structure_tables() -> list[str]:
    return [raw_table(n) for n in loaded_structures()]


# --------------------------------------------------------------------------------------------
# Spark SQL spelling
# --------------------------------------------------------------------------------------------


def marts_schema() -> str:
    """The schema of the dbt marts, as the profiles' targets name it: <MQSMF_SCHEMA or mqsmf>_marts."""
    return f"{os.environ.get(DBT_SCHEMA_ENV, DEFAULT_DBT_SCHEMA)}_{MARTS_LAYER}"


def ident(name: str) -> str:
    """A name (column, table, schema) in Spark SQL: backquoted, backquotes doubled."""
    return "`" + str(name).replace("`", "``") + "`"


def qualified(schema: str, table: str) -> str:
    return f"{ident(schema)}.{ident(table)}"


def literal(value: Any) -> str:
    """A Python value as a Spark SQL literal (strings escaped for Spark's default parser)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise TypeError(f"no SQL literal for {value!r}")


# --------------------------------------------------------------------------------------------
# Location
# --------------------------------------------------------------------------------------------


def default_warehouse_dir(project_dir: str | os.PathLike) -> Path:
    """The warehouse folder the profile's default expression gives: $MQSMF_WAREHOUSE_DIR, else
    <project>/warehouse."""
    return Path(os.environ.get(WAREHOUSE_ENV) or Path(project_dir) / DEFAULT_WAREHOUSE_FOLDER).resolve()
