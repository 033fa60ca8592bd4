"""Loading SMF dumps into the raw warehouse tables: the SQL of a load, crash-safe and incremental.

The tables and their columns are the warehouse contract (``mqsmf.warehouse``): one parquet table
per structure partitioned by ``interval_date``, plus audit, quarantine and load dates partitioned
by ``load_date``.

Idempotence. A structure row is identified by its natural key: ``qmgr``, ``smf_subtype``,
``coalesce(interval_start, record_stck)`` and the structure's ``natural_key`` columns from
``structures.csv``. The key fixes the row's ``interval_date``, so a load compares its rows only
with the partitions of the dates it carries: loading a file twice, or files that overlap, never
duplicates a row, and the work of a load is the size of its own dates, not of the history.
Within a load one row per key is kept (the first by file and offset). Quarantine rows are
identified by (source_sha256, offset, length).

Crash safety (parquet only, no table format). A load never writes a raw table directly. It

1. *stages*: for every structure table, in one statement, the load's new rows plus the rows
   already in the partitions of the load's dates, i.e. the complete new content of each partition
   it may change; for audit, quarantine and load dates, the complete new content of the load
   date's partition. Everything goes to the table of the same name in ``<raw_schema>_load``; the
   staged ``smf_load_dates`` says which dates of which table the load adds rows to;
2. *commits*: one row (the load id) is appended to ``<raw_schema>_load.load_commit`` (one file);
3. *publishes*: ``INSERT OVERWRITE ... PARTITION (<column>)`` (dynamic partition overwrite)
   replaces exactly the staged partitions of each raw table that the load adds rows to (a date
   where nothing is new is not rewritten), then empties the staging tables.

Every load starts by publishing whatever a previous load staged and committed, then empties that
load's staging tables (*recover*: it reads the commit row and the staged load dates only, so when
there is no commit row, the common case, it costs one small query); every load ends by emptying
every non-empty staging table. A load killed before its commit row leaves the raw tables
untouched (what it staged is never published: see :func:`publish_plan`); killed after it, the next
load finishes its publication from the staged content. Publishing a partition twice writes the same rows, so
being killed half-way through a publication (even inside Spark's delete-then-rename of one
partition) loses nothing. The audit rows of a load are published with its data: a load that died
left no audit rows, the load that completes it has them all.

Speed. A statement has a fixed cost (a Spark job, metastore calls): a load runs a few per
table, never one per partition or per file. The files are decoded once, in parallel, into the
load's spool (parquet, ``spool.py``); each structure is then read from there by Spark's own parquet
reader (a temporary view ``USING parquet`` over the spool's files), not through Python.

One SQL, two callers. :func:`load_plan` writes the statements: create what is missing, recover,
a temporary view ``USING mqsmf`` over the files (reading its audit decodes them into the spool),
and one *expand* step whose query (the data source's ``_stage_sql``, read after the files are
decoded) returns the staging statements with the load's dates as literals. ``mqsmf load`` /
:func:`load_files` run them through a SparkSession; the dbt on-run-start macro ``load_smf_files``
reads the very same plan (``_load_sql``) and runs it through dbt's connection.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..decode import arrow_schema
from ..layouts import layouts
from ..pcf import reader as events
from ..warehouse import (  # noqa: F401  (re-exported: the contract, as the loader's callers know it)
    AUDIT_TABLE,
    INTERVAL_DATE,
    LOAD_DATE,
    LOAD_DATES_TABLE,
    LOAD_ID,
    LOADED_AT,
    QUARANTINE_TABLE,
    RAW_SCHEMA,
    SOURCE_SHA256,
    ident,
    literal,
    loaded_structures,
    partition_date_sql,
    qualified,
    raw_table,
    raw_tables,
    structure_tables,
)
from . import partitions
from .options import RELEASE, STAGE_SQL, ReadOptions
from .spool import prune_spools, release_spool, spool_base, spool_interval_dates, structure_glob

VIEW_PREFIX = "mqsmf_load_"
OCCURRENCE = "mqsmf_occurrence"
COMMIT_TABLE = "load_commit"
# Test hook: SIGKILL the process (its whole group when it leads one) right after the step whose
# label this names (the first one), to prove a load can die anywhere.
KILL_AFTER_ENV = "MQSMF_TEST_KILL_AFTER_STEP"
SQL, EXPAND = "sql", "expand"
RELEASE_LABEL = "release spool"


def stage_schema(raw_schema: str) -> str:
    """Where a load stages what it will publish (see the module doc)."""
    return f"{raw_schema}_load"


def natural_key(structure: str) -> list[str]:
    """SQL expressions (over columns named as in the raw table) that identify a row."""
    if structure == events.STRUCTURE:  # an event message: who put it, its MsgId, when
        return [ident(c) for c in events.NATURAL_KEY]
    key = ["`qmgr`", "`smf_subtype`", "coalesce(`interval_start`, `record_stck`)"]
    columns = set(arrow_schema(structure).names)
    for col in layouts()[structure].natural_key:
        if col not in columns:
            raise KeyError(f"natural key column {col} of {structure} is not one of its columns")
        key.append(ident(col))
    return key


# --------------------------------------------------------------------------------------------
# SQL text
# --------------------------------------------------------------------------------------------

_qualified = qualified


def _on(alias: str, expr: str) -> str:
    """Qualify every backquoted column of a key expression with a table alias."""
    out, i = [], 0
    while i < len(expr):
        if expr[i] == "`":
            j = expr.index("`", i + 1)
            out.append(f"{alias}.{expr[i : j + 1]}")
            i = j + 1
        else:
            out.append(expr[i])
            i += 1
    return "".join(out)


def spark_type(t) -> str:
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(t, prefer_timestamp_ntz=True).simpleString()


def create_table_sql(schema_name: str, table: str, schema, partitioned: bool = True) -> str:
    """A raw table (partitioned by its last column) or, ``partitioned=False``, its staging table."""
    cols = ",\n".join(f"    {ident(f.name)} {spark_type(f.type)}" for f in schema)
    part = f" PARTITIONED BY ({ident(schema.names[-1])})" if partitioned else ""
    return f"CREATE TABLE IF NOT EXISTS {qualified(schema_name, table)} (\n{cols}\n) USING parquet{part}"


def view_sql(view: str, structure: str, options: Mapping[str, str]) -> str:
    opts = ",\n".join(f"    {k} {literal(v)}" for k, v in {**options, "structure": structure}.items())
    return f"CREATE OR REPLACE TEMPORARY VIEW {ident(view)}\nUSING mqsmf\nOPTIONS (\n{opts}\n)"


def spool_view_sql(view: str, structure: str, spool: str) -> str:
    """A view of a (pseudo-)structure's rows in every entry of a load's spool, read by Spark's own
    parquet reader; structure rows carry ``source_sha256`` (``partitions._spooled``). Only once the
    files are decoded: the view lists the spool's files when it is created."""
    schema = partitions.schema_of(structure, with_sha256=structure not in partitions.PSEUDO)
    cols = ", ".join(f"{ident(f.name)} {spark_type(f.type)}" for f in schema)
    return (
        f"CREATE OR REPLACE TEMPORARY VIEW {ident(view)} ({cols})\nUSING parquet\n"
        f"OPTIONS (path {literal(structure_glob(spool, structure))})"
    )


def _load_columns(load_id: str, loaded_at_us: int) -> list[str]:
    return [f"{literal(load_id)} AS {ident('load_id')}", f"timestamp_micros({loaded_at_us}) AS {ident('loaded_at')}"]


def _load_date(loaded_at_us: int) -> str:
    return f"to_date(timestamp_micros({loaded_at_us})) AS {ident(LOAD_DATE.name)}"


def _date_list(dates: Sequence[str]) -> str:
    return ", ".join(f"DATE {literal(d)}" for d in dates)


def stage_structure_sql(
    raw_schema: str, structure: str, view: str, load_id: str, loaded_at_us: int, dates: Sequence[str]
) -> str:
    """Into the staging table, in one statement: the load's rows whose natural key is new (one per
    key, none already in the table's partitions of ``dates``, the dates the load's rows carry),
    and the rows already in those partitions, the rest of their new content. Publishing takes
    only the partitions the load adds rows to (:func:`publish_sql`), so a date where nothing is
    new is never rewritten in the raw table."""
    table = raw_table(structure)
    names = partitions.schema_of(structure).names
    key = natural_key(structure)
    day = INTERVAL_DATE.name
    select = ",\n    ".join(
        [
            *(f"n.{ident(c)}" for c in names),
            *_load_columns(load_id, loaded_at_us),
            f"n.{ident(SOURCE_SHA256.name)}",
            f"n.{ident(day)}",
        ]
    )
    partition = ", ".join(_on("v", k) for k in key)
    order = ", ".join(f"v.{ident(c)}" for c in ("source_file", "record_offset", "entry_index") if c in names)
    match = "\n    AND ".join([f"o.{ident(day)} = n.{ident(day)}", *(f"{_on('o', k)} <=> {_on('n', k)}" for k in key)])
    present = f"SELECT * FROM {qualified(raw_schema, table)} WHERE {ident(day)} IN ({_date_list(dates)})"
    cols = ", ".join(ident(c) for c in raw_tables()[table].names)
    return (
        f"INSERT OVERWRITE TABLE {qualified(stage_schema(raw_schema), table)}\n"
        f"SELECT\n    {select}\n"
        f"FROM (\n"
        f"    SELECT v.*, {partition_date_sql(structure, 'v')} AS {ident(day)},\n"
        f"        row_number() OVER (PARTITION BY {partition} ORDER BY {order}) AS {ident(OCCURRENCE)}\n"
        f"    FROM {ident(view)} AS v\n"
        f") AS n\n"
        f"LEFT ANTI JOIN (\n    {present}\n) AS o\n    ON {match}\n"
        f"WHERE n.{ident(OCCURRENCE)} = 1\n"
        f"UNION ALL\n"
        f"SELECT {cols} FROM ({present}) AS o"
    )


def stage_load_dates_sql(raw_schema: str, dates: Mapping[str, Sequence[str]], load_id: str, loaded_at_us: int) -> str:
    """One row per table x interval date the load's rows carry (``dates``: table -> ISO dates), with
    the rows it adds there (0 where every row was already present): one scan of each staging
    table, one aggregation, one join."""
    stage = stage_schema(raw_schema)
    day = ident(INTERVAL_DATE.name)
    name, added = ident("table_name"), ident("rows_added")
    expected = ", ".join(f"({literal(t)}, DATE {literal(d)})" for t, days in dates.items() for d in days)
    staged = "\n        UNION ALL ".join(
        f"SELECT {literal(t)} AS {name}, {day} FROM {qualified(stage, t)} WHERE {ident('load_id')} = {literal(load_id)}"
        for t in dates
    )
    if expected:
        body = (
            f"SELECT d.{name}, d.{day}, coalesce(n.{added}, 0) AS {added}\n"
            f"    FROM VALUES {expected} AS d({name}, {day})\n"
            f"    LEFT JOIN (\n        SELECT {name}, {day}, count(*) AS {added} FROM (\n        {staged}\n"
            f"        ) AS s GROUP BY {name}, {day}\n    ) AS n ON n.{name} = d.{name} AND n.{day} = d.{day}"
        )
    else:
        body = (
            f"SELECT CAST(NULL AS STRING) AS {name}, CAST(NULL AS DATE) AS {day}, "
            f"CAST(NULL AS BIGINT) AS {added} WHERE false"
        )
    cols = [*_load_columns(load_id, loaded_at_us), "d.*", _load_date(loaded_at_us)]
    return f"INSERT OVERWRITE TABLE {qualified(stage, LOAD_DATES_TABLE)}\nSELECT {', '.join(cols)} FROM (\n    {body}\n) AS d"


def stage_audit_sql(raw_schema: str, view: str, load_id: str, loaded_at_us: int) -> str:
    """One row per file x type x subtype (a large file's byte ranges are summed)."""
    group = ["source_file", "smf_type", "smf_subtype"]
    cols = []
    for f in partitions.AUDIT_SCHEMA:
        if f.name in group:
            cols.append(ident(f.name))
        elif f.name.startswith("records_"):
            cols.append(f"sum({ident(f.name)}) AS {ident(f.name)}")
        else:
            cols.append(f"max({ident(f.name)}) AS {ident(f.name)}")  # the same in every range
    select = ",\n    ".join([*_load_columns(load_id, loaded_at_us), *cols, _load_date(loaded_at_us)])
    return (
        f"INSERT OVERWRITE TABLE {qualified(stage_schema(raw_schema), AUDIT_TABLE)}\n"
        f"SELECT\n    {select}\n"
        f"FROM {ident(view)}\n"
        f"GROUP BY {', '.join(ident(c) for c in group)}"
    )


def stage_quarantine_sql(raw_schema: str, view: str, load_id: str, loaded_at_us: int) -> str:
    table = qualified(raw_schema, QUARANTINE_TABLE)
    key = ["source_sha256", "offset", "length"]
    names = partitions.QUARANTINE_ROWS_SCHEMA.names
    select = ",\n    ".join(
        [*_load_columns(load_id, loaded_at_us), *(f"n.{ident(c)}" for c in names), _load_date(loaded_at_us)]
    )
    partition = ", ".join(f"v.{ident(c)}" for c in key)
    match = " AND ".join(f"o.{ident(c)} <=> n.{ident(c)}" for c in key)
    return (
        f"INSERT OVERWRITE TABLE {qualified(stage_schema(raw_schema), QUARANTINE_TABLE)}\n"
        f"SELECT\n    {select}\n"
        f"FROM (\n"
        f"    SELECT v.*, row_number() OVER (PARTITION BY {partition} ORDER BY v.{ident('source_file')}) "
        f"AS {ident(OCCURRENCE)}\n"
        f"    FROM {ident(view)} AS v\n"
        f") AS n\n"
        f"LEFT ANTI JOIN {table} AS o ON {match}\n"
        f"WHERE n.{ident(OCCURRENCE)} = 1"
    )


def stage_same_day_sql(raw_schema: str, table: str, loaded_at_us: int) -> str:
    """The rows of the load-date partition the load adds to (audit, quarantine, load dates)."""
    cols = ", ".join(ident(c) for c in raw_tables()[table].names)
    return (
        f"INSERT INTO {qualified(stage_schema(raw_schema), table)}\n"
        f"SELECT {cols} FROM {qualified(raw_schema, table)}\n"
        f"WHERE {ident(LOAD_DATE.name)} = to_date(timestamp_micros({loaded_at_us}))"
    )


def publish_sql(raw_schema: str, table: str) -> str:
    """Replace the raw table's partitions that the (committed) staging table holds, and only those;
    of a structure's table, only the dates the committed load adds rows to (its staging table also
    holds the unchanged dates' rows, see :func:`stage_structure_sql`)."""
    stage = stage_schema(raw_schema)
    cols = ", ".join(ident(c) for c in raw_tables()[table].names)
    part = ident(raw_tables()[table].names[-1])
    committed = f"SELECT {ident('load_id')} FROM {qualified(stage, COMMIT_TABLE)}"
    where = f"WHERE EXISTS ({committed})"
    if table in structure_tables():
        changed = (
            f"SELECT {part} FROM {qualified(stage, LOAD_DATES_TABLE)} WHERE {ident('table_name')} = {literal(table)} "
            f"AND {ident('rows_added')} > 0 AND {ident('load_id')} IN ({committed})"
        )
        where = f"WHERE {part} IN ({changed})"
    return (
        f"INSERT OVERWRITE TABLE {qualified(raw_schema, table)} PARTITION ({part})\n"
        f"SELECT {cols} FROM {qualified(stage, table)}\n{where}"
    )


# --------------------------------------------------------------------------------------------
# The plan of a load
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    label: str
    sql: str
    kind: str = SQL  # sql: run it; expand: run it, then run the `statement` of each row it returns


def ensure_tables_plan(raw_schema: str = RAW_SCHEMA) -> list[Step]:
    stage = stage_schema(raw_schema)
    steps = [
        Step(f"schema {raw_schema}", f"CREATE DATABASE IF NOT EXISTS {ident(raw_schema)}"),
        Step(f"schema {stage}", f"CREATE DATABASE IF NOT EXISTS {ident(stage)}"),
    ]
    for table, schema in raw_tables().items():
        steps.append(Step(f"table {raw_schema}.{table}", create_table_sql(raw_schema, table, schema)))
    for table, schema in raw_tables().items():
        steps.append(Step(f"table {stage}.{table}", create_table_sql(stage, table, schema, partitioned=False)))
    steps.append(
        Step(
            f"table {stage}.{COMMIT_TABLE}",
            f"CREATE TABLE IF NOT EXISTS {qualified(stage, COMMIT_TABLE)} ({ident('load_id')} string) USING parquet",
        )
    )
    return steps


def publish_plan(raw_schema: str, label: str = "publish", recover: bool = False) -> list[Step]:
    """One expand step: if a load committed, publish its staging tables (of the structures', those
    it adds rows to) and clear the commit row, then empty the staging tables. (Only what has rows
    costs a statement: a load's tables are many, most of its partitions few.)
    At the end of a load (``recover=False``) every non-empty staging table is emptied, whatever
    left it so: which ones is one scan of every staging table (parquet footers only). At the start
    of one (``recover=True``) the question is only whether a load committed: the facts are read from
    the commit row and the staged load dates alone (two small tables, empty in the common case), and
    only the committed load's staging tables are emptied. What a load that died before its commit
    left in other staging tables is never published (a structure's table is published only for the
    dates the committed load's own staged ``smf_load_dates`` names; every load stages audit,
    quarantine and load dates anew) and the end of the next load empties it."""
    stage = stage_schema(raw_schema)
    commit = "_commit"  # a name no raw table has
    changed = "changed "  # + table: a structure table the committed load adds rows to
    staged = "staged "  # + table: a structure table the committed load staged
    committed = f"{ident('load_id')} IN (SELECT {ident('load_id')} FROM {qualified(stage, COMMIT_TABLE)})"
    facts = [
        f"SELECT {literal(commit)} AS t FROM {qualified(stage, COMMIT_TABLE)}",
        f"SELECT concat({literal(changed)}, {ident('table_name')}) AS t FROM {qualified(stage, LOAD_DATES_TABLE)} "
        f"WHERE {ident('rows_added')} > 0 AND {committed}",
    ]
    if recover:
        facts.append(
            f"SELECT concat({literal(staged)}, {ident('table_name')}) AS t FROM {qualified(stage, LOAD_DATES_TABLE)} "
            f"WHERE {committed}"
        )
    else:
        # Which staging tables hold rows: one scan of each (reading no column), in the same aggregation.
        facts = [*(f"SELECT {literal(t)} AS t FROM {qualified(stage, t)}" for t in raw_tables()), *facts]

    def holds_rows(table: str) -> list[str]:
        if not recover:
            return [table]
        return [staged + table] if table in structure_tables() else []  # the others: staged by every load

    rows = []
    for t in raw_tables():
        needs = [*holds_rows(t), commit, *([changed + t] if t in structure_tables() else [])]
        rows.append((f"{label} {raw_schema}.{t}", publish_sql(raw_schema, t), needs))
    # The commit row goes first: from then on the staging tables are never published again.
    rows.append(("clear commit", f"TRUNCATE TABLE {qualified(stage, COMMIT_TABLE)}", [commit]))
    for t in raw_tables():
        needs = [*holds_rows(t), *([commit] if recover else [])]
        rows.append((f"clear stage {t}", f"TRUNCATE TABLE {qualified(stage, t)}", needs))
    values = ",\n    ".join(
        f"({i}, {literal(lbl)}, {literal(sql)}, array({', '.join(literal(n) for n in needs)}))"
        for i, (lbl, sql, needs) in enumerate(rows, 1)
    )
    union = "\n        UNION ALL ".join(facts)
    query = (
        f"SELECT p.label, p.statement FROM VALUES\n    {values}\n"
        f"AS p(step, label, statement, needs)\n"
        f"CROSS JOIN (\n    SELECT collect_set(t) AS facts FROM (\n        {union}\n    ) AS f\n) AS s\n"
        f"WHERE size(array_except(p.needs, s.facts)) = 0\n"
        f"ORDER BY p.step"
    )
    return [Step(label, query, EXPAND)]


def load_plan(
    files: Sequence[str],
    framing: str = "auto",
    raw_schema: str = RAW_SCHEMA,
    load_id: str | None = None,
    loaded_at: datetime | None = None,
    spool: str | None = None,
    split_bytes: int = partitions.DEFAULT_SPLIT_BYTES,
) -> list[Step]:
    """Every statement of a load of ``files`` (already expanded), in order. With no files, only
    the statements that make sure the tables exist and finish a load that died after its commit."""
    steps = ensure_tables_plan(raw_schema) + publish_plan(raw_schema, "recover", recover=True)
    if not files:
        return steps
    framing = partitions.check_framing(framing)
    load_id = load_id or uuid.uuid4().hex
    loaded_at = loaded_at or datetime.now(UTC)
    at_us = int(loaded_at.timestamp() * 1_000_000)
    spool_dir = spool or str(spool_base() / f"load-{load_id}")
    options = ReadOptions(tuple(files), framing, split_bytes, spool_dir).to_options()
    stage = stage_schema(raw_schema)

    audit = f"{VIEW_PREFIX}audit"
    steps.append(Step("view _audit", view_sql(audit, partitions.AUDIT, options)))
    # Reading the audit decodes every partition once into the spool; every later read uses it.
    steps.append(Step(f"decode files, stage {AUDIT_TABLE}", stage_audit_sql(raw_schema, audit, load_id, at_us)))
    steps.append(Step(f"drop view {audit}", f"DROP VIEW IF EXISTS {ident(audit)}"))
    quarantine = f"{VIEW_PREFIX}quarantine"
    steps.append(Step("view _quarantine", spool_view_sql(quarantine, partitions.QUARANTINE, spool_dir)))
    steps.append(Step(f"stage {QUARANTINE_TABLE}", stage_quarantine_sql(raw_schema, quarantine, load_id, at_us)))
    steps.append(Step(f"drop view {quarantine}", f"DROP VIEW IF EXISTS {ident(quarantine)}"))
    # The structures' statements need the dates the load's rows carry: known once the files are decoded.
    expand = f"{VIEW_PREFIX}stage_sql"
    stage_options = {**options, "raw_schema": raw_schema, "load_id": load_id, "loaded_at_us": str(at_us)}
    steps.append(Step("view _stage_sql", view_sql(expand, STAGE_SQL, stage_options)))
    steps.append(Step("stage structures", f"SELECT label, statement FROM {ident(expand)} ORDER BY step", EXPAND))
    steps.append(Step(f"drop view {expand}", f"DROP VIEW IF EXISTS {ident(expand)}"))
    for table in (AUDIT_TABLE, QUARANTINE_TABLE, LOAD_DATES_TABLE):
        steps.append(Step(f"stage {table}", stage_same_day_sql(raw_schema, table, at_us)))
    steps.append(Step("commit", f"INSERT INTO {qualified(stage, COMMIT_TABLE)} VALUES ({literal(load_id)})"))
    steps += publish_plan(raw_schema)
    release = f"{VIEW_PREFIX}release"
    steps.append(Step(RELEASE_LABEL, view_sql(release, RELEASE, {"spool": spool_dir})))
    steps.append(Step(RELEASE_LABEL, f"SELECT * FROM {ident(release)}"))
    steps.append(Step(RELEASE_LABEL, f"DROP VIEW IF EXISTS {ident(release)}"))
    return steps


def stage_plan(options: Mapping[str, str]) -> list[Step]:
    """The staging statements of the structures (``_stage_sql``): run after the files are decoded
    into the spool, which knows the interval dates of each structure's rows."""
    raw_schema = options.get("raw_schema") or RAW_SCHEMA
    load_id = options["load_id"]
    at_us = int(options["loaded_at_us"])
    spool = options["spool"]
    dates = spool_interval_dates(spool)
    steps: list[Step] = []
    tables = {}
    for name in loaded_structures():
        if not dates.get(name):
            continue  # no row of this structure in the load
        table = raw_table(name)
        tables[table] = dates[name]
        view = f"{VIEW_PREFIX}{table}"
        steps.append(Step(f"view {name}", spool_view_sql(view, name, spool)))
        steps.append(
            Step(
                f"stage {raw_schema}.{table}", stage_structure_sql(raw_schema, name, view, load_id, at_us, dates[name])
            )
        )
        steps.append(Step(f"drop view {view}", f"DROP VIEW IF EXISTS {ident(view)}"))
    steps.append(Step(f"stage {LOAD_DATES_TABLE}", stage_load_dates_sql(raw_schema, tables, load_id, at_us)))
    return steps


def plan_from_options(options: Mapping[str, str]) -> list[Step]:
    """The plan for the ``_load_sql`` pseudo-structure: options path/paths, framing, raw_schema,
    load_id (dbt passes its invocation id), split_bytes."""
    read = ReadOptions.from_options(options)
    prune_spools()
    files = partitions.expand_paths(list(read.paths))
    return load_plan(
        files,
        framing=read.framing,
        raw_schema=options.get("raw_schema") or RAW_SCHEMA,
        load_id=options.get("load_id") or None,
        split_bytes=read.split_bytes,
    )


# --------------------------------------------------------------------------------------------
# Running a load from Python (mqsmf load, tests)
# --------------------------------------------------------------------------------------------


@dataclass
class LoadSummary:
    load_id: str
    files: int = 0
    bytes: int = 0
    records_read: int = 0
    records_decoded: int = 0
    records_skipped: int = 0
    records_quarantined: int = 0
    quarantine_rows_inserted: int = 0
    rows_inserted: dict[str, int] = field(default_factory=dict)  # structure -> rows new to the table
    seconds: float = 0.0
    step_seconds: dict[str, float] = field(default_factory=dict)  # statement label -> seconds

    def __str__(self) -> str:
        lines = [
            f"load {self.load_id}: {self.files} files, {self.bytes / 1e6:,.1f} MB in {self.seconds:,.1f} s",
            f"  records: {self.records_read:,} read, {self.records_decoded:,} decoded, "
            f"{self.records_skipped:,} skipped (not MQ statistics), {self.records_quarantined:,} quarantined",
            f"  quarantine rows inserted: {self.quarantine_rows_inserted:,}",
            "  rows inserted (new natural keys): "
            + (", ".join(f"{k} {v:,}" for k, v in sorted(self.rows_inserted.items()) if v) or "none"),
        ]
        return "\n".join(lines)


def load_files(
    spark,
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    framing: str = "auto",
    raw_schema: str = RAW_SCHEMA,
    progress: bool = False,
    split_bytes: int = partitions.DEFAULT_SPLIT_BYTES,
) -> LoadSummary:
    """Load SMF dumps (files, folders, globs) into the raw tables of ``spark``'s catalog and return
    what was read and inserted. Runs the statements the dbt macro runs, except that it removes the
    load's spool itself rather than through the data source (``_release``: a Python round trip)."""
    t0 = time.perf_counter()
    specs = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    files = partitions.expand_paths(specs)
    prune_spools()
    load_id = uuid.uuid4().hex
    spool = str(spool_base() / f"load-{load_id}")
    plan = load_plan(files, framing, raw_schema, load_id, spool=spool, split_bytes=split_bytes)
    steps = _without_existing_tables(spark, [s for s in plan if s.label != RELEASE_LABEL])
    try:
        step_seconds = run_steps(spark, steps, progress)
    finally:  # a load that failed never reads its spool again: the next one decodes anew
        release_spool(spool)
    summary = summarize(spark, raw_schema, load_id) if files else LoadSummary(load_id)
    summary.seconds = time.perf_counter() - t0
    summary.step_seconds = step_seconds
    return summary


def _without_existing_tables(spark, steps: list[Step]) -> list[Step]:
    """The plan without the CREATE TABLE IF NOT EXISTS of tables the catalog already has (each is a
    metastore round trip; a daily load finds them all)."""
    existing = set()
    for schema in {s.label.split(" ", 1)[1].split(".")[0] for s in steps if s.label.startswith("table ")}:
        if spark.catalog.databaseExists(schema):
            existing |= {f"table {schema}.{t.name}" for t in spark.catalog.listTables(schema) if not t.isTemporary}
    return [s for s in steps if s.label not in existing]


def run_steps(spark, steps: Sequence[Step], progress: bool = False) -> dict[str, float]:
    """Run a plan in order (an expand step's statements in its place); returns the seconds each
    step label took (summed over equal labels)."""
    from tqdm import tqdm

    kill_after = os.environ.get(KILL_AFTER_ENV)
    seconds: dict[str, float] = {}
    with tqdm(total=len(steps), unit="step", disable=not progress, dynamic_ncols=True) as bar:
        watcher = _TaskWatcher(spark, bar) if progress else None

        def run(step: Step) -> None:
            bar.set_description(step.label)
            t0 = time.perf_counter()
            try:
                rows = spark.sql(step.sql).collect()
            except Exception as e:
                e.add_note(f"mqsmf load: in step {step.label!r}")
                raise
            seconds[step.label] = seconds.get(step.label, 0.0) + time.perf_counter() - t0
            if step.label == kill_after:
                _kill_self()
            if step.kind == EXPAND:
                more = [Step(r["label"], r["statement"]) for r in rows]
                bar.total += len(more)
                for s in more:
                    run(s)
            bar.update(1)

        try:
            for step in steps:
                run(step)
        finally:
            if watcher:
                watcher.stop()
    return seconds


def _kill_self() -> None:
    """SIGKILL this process, with its Spark JVM and workers when it leads its process group."""
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


class _TaskWatcher:
    """Shows the running Spark stage's finished/total tasks on the bar (decoding a large file is
    one long step; its partitions are the visible progress)."""

    def __init__(self, spark, bar) -> None:
        self.bar = bar
        self.done = threading.Event()
        try:
            self.tracker = spark.sparkContext.statusTracker()
        except Exception:  # Spark Connect has no status tracker: no task counts then
            self.tracker = None
            return
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(0.5):
            try:
                stages = [self.tracker.getStageInfo(s) for s in self.tracker.getActiveStageIds()]
            except Exception:
                return
            stages = [s for s in stages if s is not None]
            if stages:
                done = sum(s.numCompletedTasks for s in stages)
                total = sum(s.numTasks for s in stages)
                self.bar.set_postfix_str(f"tasks {done}/{total}")

    def stop(self) -> None:
        self.done.set()
        if self.tracker is not None:
            self.thread.join()


def summarize(spark, raw_schema: str, load_id: str) -> LoadSummary:
    lid = literal(load_id)
    audit = qualified(raw_schema, AUDIT_TABLE)
    row = spark.sql(
        f"SELECT count(DISTINCT source_file) AS files, sum(records_read) AS r, sum(records_decoded) AS d, "
        f"sum(records_skipped) AS s, sum(records_quarantined) AS q FROM {audit} WHERE load_id = {lid}"
    ).first()
    size = spark.sql(
        f"SELECT sum(file_size) AS b FROM (SELECT DISTINCT source_file, file_size FROM {audit} WHERE load_id = {lid})"
    ).first()
    added = spark.sql(
        f"SELECT table_name, sum(rows_added) AS n FROM {qualified(raw_schema, LOAD_DATES_TABLE)} "
        f"WHERE load_id = {lid} GROUP BY table_name"
    ).collect()
    inserted = {r["table_name"]: r["n"] for r in added}
    quarantined = spark.sql(
        f"SELECT count(*) AS n FROM {qualified(raw_schema, QUARANTINE_TABLE)} WHERE load_id = {lid}"
    ).first()
    return LoadSummary(
        load_id=load_id,
        files=row["files"] or 0,
        bytes=size["b"] or 0,
        records_read=row["r"] or 0,
        records_decoded=row["d"] or 0,
        records_skipped=row["s"] or 0,
        records_quarantined=row["q"] or 0,
        quarantine_rows_inserted=quarantined["n"],
        rows_inserted={n: inserted.get(raw_table(n), 0) for n in loaded_structures()},
    )
