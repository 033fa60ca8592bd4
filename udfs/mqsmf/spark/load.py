"""Loading SMF dumps into the raw warehouse tables: the table contract and the SQL of a load.

Contract (what the dbt models and the quality gate rely on). In schema ``smf_raw`` (dbt var
``raw_schema``), as parquet tables that always exist after any load or dbt run, empty or not:

- one table per structure of ``mqsmf.layouts``, named by the lower-case structure name
  (``smf_raw.qpst``, ``smf_raw.qqst``, ...): the columns of ``mqsmf.decode.arrow_schema(name)``,
  then ``load_id`` (string), ``loaded_at`` (timestamp) and ``source_sha256`` (string, of the file
  the row came from);
- ``perfm_event``: queue depth event messages from dmpmqmsg dumps loaded in the same paths (a file
  is a dump when ``mqsmf.pcf.is_dump_file`` says so): ``mqsmf.pcf.arrow_schema()`` plus the same
  three load columns; natural key ``mqsmf.pcf.reader.NATURAL_KEY``; its audit rows have framing
  ``dmpmqmsg`` and NULL SMF type and subtype;
- ``smf_load_audit``: one row per load x file x SMF type x subtype: ``load_id, loaded_at,
  source_file, file_size, source_sha256, framing, smf_type, smf_subtype, records_read,
  records_decoded, records_quarantined, records_skipped, records_with_unexpected_id`` (decoded
  records with a structure whose identifier is not the layout's: a warning). Framing-level damage (and a file with
  no records at all) has NULL type and subtype; records without a subtype have subtype -1. Every
  load adds its rows, also when it re-loads a file;
- ``smf_quarantine``: ``load_id, loaded_at, source_file, source_sha256, offset, length, smf_type,
  smf_subtype, reason, raw_bytes``, one row per bad span of a file's content.

Idempotence. A structure row is identified by its natural key: ``qmgr``, ``smf_subtype``,
``coalesce(interval_start, record_stck)`` and the structure's ``natural_key`` columns from
``structures.csv``. A load inserts only rows whose key is not in the table yet and keeps one row per
key within the load (the first by file and offset), so loading a file twice, or files that overlap,
never duplicates a row. Quarantine rows are identified by (source_sha256, offset, length).

One SQL, two callers. :func:`load_plan` writes the statements of a load: create what is missing, a
temporary view ``USING mqsmf`` per structure (plus ``_audit`` and ``_quarantine``), an
``INSERT ... LEFT ANTI JOIN`` per table, clean-up. ``mqsmf load`` / :func:`load_files` run them
through a SparkSession; the dbt on-run-start macro ``load_smf_files`` reads the very same statements
from the data source (``structure '_load_sql'``) and runs them through dbt's connection.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pyarrow as pa

from ..decode import arrow_schema
from ..layouts import layouts
from ..pcf import reader as events
from . import parts

RAW_SCHEMA = "smf_raw"
AUDIT_TABLE = "smf_load_audit"
QUARANTINE_TABLE = "smf_quarantine"
LOAD_ID = pa.field("load_id", pa.string())
LOADED_AT = pa.field("loaded_at", pa.timestamp("us", tz="UTC"))
SOURCE_SHA256 = pa.field("source_sha256", pa.string())
VIEW_PREFIX = "mqsmf_load_"
OCCURRENCE = "mqsmf_occurrence"


def raw_table(structure: str) -> str:
    return structure.lower()


def raw_tables() -> dict[str, pa.Schema]:
    """Every raw table and its columns, in order: the structures, then audit and quarantine."""
    out = {}
    for name in sorted(layouts()):
        schema = arrow_schema(name)
        for f in (LOAD_ID, LOADED_AT, SOURCE_SHA256):
            schema = schema.append(f)
        out[raw_table(name)] = schema
    # Queue depth event messages (mqsmf.pcf): loaded from dmpmqmsg dumps by the same statements.
    out[raw_table(events.STRUCTURE)] = events.arrow_schema().append(LOAD_ID).append(LOADED_AT).append(SOURCE_SHA256)
    out[AUDIT_TABLE] = pa.schema([LOAD_ID, LOADED_AT, *parts.AUDIT_SCHEMA])
    out[QUARANTINE_TABLE] = pa.schema([LOAD_ID, LOADED_AT, *parts.QUARANTINE_ROWS_SCHEMA])
    return out


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


def ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _qualified(schema: str, table: str) -> str:
    return f"{ident(schema)}.{ident(table)}"


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


def spark_type(t: pa.DataType) -> str:
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(t, prefer_timestamp_ntz=True).simpleString()


def create_table_sql(raw_schema: str, table: str, schema: pa.Schema) -> str:
    cols = ",\n".join(f"    {ident(f.name)} {spark_type(f.type)}" for f in schema)
    return f"CREATE TABLE IF NOT EXISTS {_qualified(raw_schema, table)} (\n{cols}\n) USING parquet"


def view_sql(view: str, structure: str, options: Mapping[str, str]) -> str:
    opts = ",\n".join(f"    {k} {literal(v)}" for k, v in {**options, "structure": structure}.items())
    return f"CREATE OR REPLACE TEMPORARY VIEW {ident(view)}\nUSING mqsmf\nOPTIONS (\n{opts}\n)"


def _load_columns(load_id: str, loaded_at_us: int) -> list[str]:
    return [f"{literal(load_id)} AS {ident('load_id')}", f"timestamp_micros({loaded_at_us}) AS {ident('loaded_at')}"]


def insert_structure_sql(raw_schema: str, structure: str, view: str, load_id: str, loaded_at_us: int) -> str:
    """Rows of the view whose natural key is new: one per key, none already in the table."""
    table = _qualified(raw_schema, raw_table(structure))
    names = parts.schema_of(structure).names
    key = natural_key(structure)
    target = ", ".join(ident(c) for c in [*names, LOAD_ID.name, LOADED_AT.name, SOURCE_SHA256.name])
    select = ",\n    ".join(
        [*(f"n.{ident(c)}" for c in names), *_load_columns(load_id, loaded_at_us), f"n.{ident('source_sha256')}"]
    )
    partition = ", ".join(_on("v", k) for k in key)
    order = ", ".join(f"v.{ident(c)}" for c in ("source_file", "record_offset", "entry_index") if c in names)
    match = "\n    AND ".join(f"{_on('o', k)} <=> {_on('n', k)}" for k in key)
    return (
        f"INSERT INTO {table} ({target})\n"
        f"SELECT\n    {select}\n"
        f"FROM (\n"
        f"    SELECT v.*, row_number() OVER (PARTITION BY {partition} ORDER BY {order}) AS {ident(OCCURRENCE)}\n"
        f"    FROM {ident(view)} AS v\n"
        f") AS n\n"
        f"LEFT ANTI JOIN {table} AS o\n    ON {match}\n"
        f"WHERE n.{ident(OCCURRENCE)} = 1"
    )


def insert_audit_sql(raw_schema: str, view: str, load_id: str, loaded_at_us: int) -> str:
    """One row per file x type x subtype (a large file's byte ranges are summed)."""
    group = ["source_file", "smf_type", "smf_subtype"]
    cols = []
    for f in parts.AUDIT_SCHEMA:
        if f.name in group:
            cols.append(ident(f.name))
        elif f.name.startswith("records_"):
            cols.append(f"sum({ident(f.name)}) AS {ident(f.name)}")
        else:
            cols.append(f"max({ident(f.name)}) AS {ident(f.name)}")  # the same in every range
    target = ", ".join(ident(f.name) for f in raw_tables()[AUDIT_TABLE])
    select = ",\n    ".join([*_load_columns(load_id, loaded_at_us), *cols])
    return (
        f"INSERT INTO {_qualified(raw_schema, AUDIT_TABLE)} ({target})\n"
        f"SELECT\n    {select}\n"
        f"FROM {ident(view)}\n"
        f"GROUP BY {', '.join(ident(c) for c in group)}"
    )


def insert_quarantine_sql(raw_schema: str, view: str, load_id: str, loaded_at_us: int) -> str:
    table = _qualified(raw_schema, QUARANTINE_TABLE)
    key = ["source_sha256", "offset", "length"]
    names = parts.QUARANTINE_ROWS_SCHEMA.names
    target = ", ".join(ident(f.name) for f in raw_tables()[QUARANTINE_TABLE])
    select = ",\n    ".join([*_load_columns(load_id, loaded_at_us), *(f"n.{ident(c)}" for c in names)])
    partition = ", ".join(f"v.{ident(c)}" for c in key)
    match = " AND ".join(f"o.{ident(c)} <=> n.{ident(c)}" for c in key)
    return (
        f"INSERT INTO {table} ({target})\n"
        f"SELECT\n    {select}\n"
        f"FROM (\n"
        f"    SELECT v.*, row_number() OVER (PARTITION BY {partition} ORDER BY v.{ident('source_file')}) "
        f"AS {ident(OCCURRENCE)}\n"
        f"    FROM {ident(view)} AS v\n"
        f") AS n\n"
        f"LEFT ANTI JOIN {table} AS o ON {match}\n"
        f"WHERE n.{ident(OCCURRENCE)} = 1"
    )


# --------------------------------------------------------------------------------------------
# The plan of a load
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    label: str
    sql: str


def ensure_tables_plan(raw_schema: str = RAW_SCHEMA) -> list[Step]:
    steps = [Step(f"schema {raw_schema}", f"CREATE DATABASE IF NOT EXISTS {ident(raw_schema)}")]
    for table, schema in raw_tables().items():
        steps.append(Step(f"table {raw_schema}.{table}", create_table_sql(raw_schema, table, schema)))
    return steps


def load_plan(
    files: Sequence[str],
    framing: str = "auto",
    raw_schema: str = RAW_SCHEMA,
    load_id: str | None = None,
    loaded_at: datetime | None = None,
    spool: str | None = None,
    split_bytes: int = parts.DEFAULT_SPLIT_BYTES,
) -> list[Step]:
    """Every statement of a load of ``files`` (already expanded), in order. With no files, only
    the statements that make sure the raw schema and tables exist."""
    steps = ensure_tables_plan(raw_schema)
    if not files:
        return steps
    framing = parts.check_framing(framing)
    load_id = load_id or uuid.uuid4().hex
    loaded_at = loaded_at or datetime.now(UTC)
    at_us = int(loaded_at.timestamp() * 1_000_000)
    spool = spool or str(parts.spool_base() / f"load-{load_id}")
    options = {"paths": json.dumps(list(files)), "framing": framing, "split_bytes": str(split_bytes), "spool": spool}

    def land(structure: str, table: str, insert) -> None:
        """Temporary view over the files, insert into the table, drop the view."""
        view = f"{VIEW_PREFIX}{table}"
        opts = options if structure in parts.PSEUDO else {**options, "with_sha256": "true"}
        steps.append(Step(f"view {structure}", view_sql(view, structure, opts)))
        what = "decode files, load" if structure == parts.AUDIT else "load"
        steps.append(Step(f"{what} {raw_schema}.{table}", insert(raw_schema, view, load_id, at_us)))
        steps.append(Step(f"drop view {view}", f"DROP VIEW IF EXISTS {ident(view)}"))

    # The audit read decodes every partition once (filling the spool); every later read uses it.
    land(parts.AUDIT, AUDIT_TABLE, insert_audit_sql)
    land(parts.QUARANTINE, QUARANTINE_TABLE, insert_quarantine_sql)
    for name in [*sorted(layouts()), events.STRUCTURE]:
        table = raw_table(name)
        land(name, table, lambda schema, v, i, t, name=name: insert_structure_sql(schema, name, v, i, t))
    release = f"{VIEW_PREFIX}release"
    steps.append(Step("release spool", view_sql(release, "_release", {"spool": spool})))
    steps.append(Step("release spool", f"SELECT * FROM {ident(release)}"))
    steps.append(Step("release spool", f"DROP VIEW IF EXISTS {ident(release)}"))
    return steps


def plan_from_options(options: Mapping[str, str]) -> list[Step]:
    """The plan for the ``_load_sql`` pseudo-structure: options path/paths, framing, raw_schema,
    load_id (dbt passes its invocation id), split_bytes."""
    from .datasource import path_specs

    parts.prune_spools()
    files = parts.expand_paths(path_specs(options))
    return load_plan(
        files,
        framing=options.get("framing") or "auto",
        raw_schema=options.get("raw_schema") or RAW_SCHEMA,
        load_id=options.get("load_id") or None,
        split_bytes=int(options.get("split_bytes") or parts.DEFAULT_SPLIT_BYTES),
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
    split_bytes: int = parts.DEFAULT_SPLIT_BYTES,
) -> LoadSummary:
    """Load SMF dumps (files, folders, globs) into the raw tables of ``spark``'s catalog and return
    what was read and inserted. Runs exactly the statements the dbt macro runs."""
    t0 = time.perf_counter()
    specs = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    files = parts.expand_paths(specs)
    parts.prune_spools()
    load_id = uuid.uuid4().hex
    steps = load_plan(files, framing, raw_schema, load_id, split_bytes=split_bytes)
    step_seconds = run_steps(spark, steps, progress)
    summary = summarize(spark, raw_schema, load_id) if files else LoadSummary(load_id)
    summary.seconds = time.perf_counter() - t0
    summary.step_seconds = step_seconds
    return summary


def run_steps(spark, steps: Sequence[Step], progress: bool = False) -> dict[str, float]:
    """Run a plan in order; returns the seconds each step label took (summed over equal labels)."""
    from tqdm import tqdm

    seconds: dict[str, float] = {}
    with tqdm(total=len(steps), unit="step", disable=not progress, dynamic_ncols=True) as bar:
        watcher = _TaskWatcher(spark, bar) if progress else None
        try:
            for step in steps:
                bar.set_description(step.label)
                t0 = time.perf_counter()
                spark.sql(step.sql).collect()
                seconds[step.label] = seconds.get(step.label, 0.0) + time.perf_counter() - t0
                bar.update(1)
        finally:
            if watcher:
                watcher.stop()
    return seconds


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
    audit = _qualified(raw_schema, AUDIT_TABLE)
    row = spark.sql(
        f"SELECT count(DISTINCT source_file) AS files, sum(records_read) AS r, sum(records_decoded) AS d, "
        f"sum(records_skipped) AS s, sum(records_quarantined) AS q FROM {audit} WHERE load_id = {lid}"
    ).first()
    size = spark.sql(
        f"SELECT sum(file_size) AS b FROM (SELECT DISTINCT source_file, file_size FROM {audit} WHERE load_id = {lid})"
    ).first()
    counts = " UNION ALL ".join(
        f"SELECT {literal(t)} AS t, count(*) AS n FROM {_qualified(raw_schema, t)} WHERE load_id = {lid}"
        for t in [QUARANTINE_TABLE, *(raw_table(n) for n in [*sorted(layouts()), events.STRUCTURE])]
    )
    inserted = {r["t"]: r["n"] for r in spark.sql(counts).collect()}
    return LoadSummary(
        load_id=load_id,
        files=row["files"] or 0,
        bytes=size["b"] or 0,
        records_read=row["r"] or 0,
        records_decoded=row["d"] or 0,
        records_skipped=row["s"] or 0,
        records_quarantined=row["q"] or 0,
        quarantine_rows_inserted=inserted.pop(QUARANTINE_TABLE),
        rows_inserted={n: inserted[raw_table(n)] for n in [*sorted(layouts()), events.STRUCTURE]},
    )
