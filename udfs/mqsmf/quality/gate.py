"""The data-quality gate: run a stage's checks on the Spark tables with Great Expectations, list
every violating row in ``dq_violations``, write Data Docs, and decide pass or fail.

For each frame of the stage (``mqsmf.quality.checks``) the gate

1. builds the frame as one Spark query (plus the derived columns its checks need) and caches the
   columns its checks and its violation listing read;
2. evaluates every check's SQL predicate over the frame in one pass (one Spark job per frame): the
   frame's rows, each check's applicable rows (its conditions) and violating rows, and the
   *suspect* rows, those violating any check (on a clean day, none);
3. runs the frame's GX checkpoint ``<stage>.<frame>`` (suite ``<stage>.<frame>``, one expectation
   per check, severity ``critical`` for errors and ``warning`` for warnings) on the suspect rows:
   the real expectations decide each check's verdict and count its violations, on a pandas frame
   (at most ``PANDAS_SUSPECTS`` rows) or else on Spark;
4. lists the violating rows with each check's SQL predicate, derived from the same rule.

Rows evaluated and percentages are against the frame from step 2's pass; GX's own counts (shown in
Data Docs) are of the suspect rows. A row no predicate flags cannot reach GX, so each predicate and
its expectation must give the same verdict on any frame: ``tests/udfs/test_quality_gate.py`` runs the
expectations on the whole frames of a day with every check violated (``prefilter=False``, the one
Spark job per expectation this design replaced) and compares; the two measured side by side:
docs/performance.md, "The gate".

GX 1.x takes a DataFrame at run time (``batch_parameters={"dataframe": df}``) and a checkpoint run
passes one DataFrame to all of its validation definitions, so a stage is one checkpoint per frame;
the Data Docs site of the stage is built once from all of their results.

The GX context is ephemeral (nothing to commit, no state between runs); its only file output is
the Data Docs site ``<docs_dir>/<stage>/index.html`` (default ``target/data_docs``), rebuilt on
every run.

Tables written (parquet, schema ``mqsmf_quality`` by default, partitioned by ``stage``; a run
replaces its stage's partition and keeps the other stage's):

- ``dq_violations``: one row per violating row and check (see ``VIOLATIONS_COLUMNS``);
- ``dq_check_results``: one row per check of the run: rows evaluated, violations, status;
- ``dq_check_history``: one row per check of *every* run, never replaced (run id, time, stage,
  scope, check, passed, violations): when a check started failing.

Scope. By default ``mqsmf check`` checks what changed since the stage's last gate run: the
loads the stage has not checked yet, by load id (``dq_checked_loads`` lists the loads each run
covered; a load recovered after a gate run keeps its earlier ``loaded_at`` but has a new id, so it is
checked), i.e. the interval dates those loads carried (``smf_raw.smf_load_dates``): the partitions of
the raw tables and incremental marts they touched, plus those loads' audit and quarantine
rows; tables without ``interval_date`` (dimensions, the advisories) are checked whole. ``--all``
checks everything. A check that compares neighbouring intervals sees no neighbour outside the
scope, so a gap just before the first date checked is found by ``--all`` only.

The violating rows themselves stay in the raw tables and marts: the gate never deletes or hides
anything.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import time
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..warehouse import QUALITY_SCHEMA, RAW_SCHEMA, ident, literal, marts_schema
from .checks import ERROR, MARTS, RAW, STAGES, VIEW_PREFIX, WARN, Catalogue, Check, Frame, catalogue
from .expectations import gx_row_condition

VIOLATIONS_TABLE = "dq_violations"
RESULTS_TABLE = "dq_check_results"
HISTORY_TABLE = "dq_check_history"
CHECKED_LOADS_TABLE = "dq_checked_loads"
DEFAULT_DOCS_DIR = "target/data_docs"

# dq_violations: (column, Spark type, meaning). ``stage`` is the partition column, last.
VIOLATIONS_COLUMNS = (
    ("run_id", "STRING", "Gate run that found the violation"),
    ("checked_at", "TIMESTAMP", "When that run started (UTC)"),
    ("check_name", "STRING", "Check of the catalogue (mqsmf check --list)"),
    ("severity", "STRING", "error (fails the gate) or warn (reported, passes)"),
    ("table_name", "STRING", "Table the row is in (raw table or mart)"),
    ("rule", "STRING", "The rule broken, e.g. QQSTNMAG <= QQSTFLGT"),
    ("qmgr_name", "STRING", "Queue manager (NULL for QSG-wide rows and quarantined spans)"),
    ("qsg_name", "STRING", "Queue sharing group, where known"),
    ("object_name", "STRING", "Queue, buffer pool, page set, CF structure or structure name"),
    ("interval_start_at", "TIMESTAMP", "Start of the statistics interval (UTC)"),
    ("interval_end_at", "TIMESTAMP", "End of the statistics interval (UTC)"),
    ("values", "STRING", "JSON object of the values involved, by column name"),
    ("source_file", "STRING", "SMF dump the row came from"),
    ("record_offset", "BIGINT", "Byte offset of the SMF record in that file"),
    ("stage", "STRING", "raw or marts"),
)
RESULTS_COLUMNS = (
    ("run_id", "STRING", "Gate run"),
    ("checked_at", "TIMESTAMP", "When the run started (UTC)"),
    ("check_name", "STRING", "Check of the catalogue"),
    ("severity", "STRING", "error or warn"),
    ("frame", "STRING", "GX suite / checkpoint the check belongs to"),
    ("rule", "STRING", "The rule, with its conditions"),
    ("source", "STRING", "Where the invariant comes from"),
    ("status", "STRING", "passed, failed, or skipped (its tables are absent)"),
    ("evaluated_rows", "BIGINT", "Rows GX evaluated (after conditions; NULL when skipped)"),
    ("gx_unexpected", "BIGINT", "Violations GX counted"),
    ("violations", "BIGINT", "Rows listed in dq_violations"),
    ("stage", "STRING", "raw or marts"),
)

HISTORY_COLUMNS = (
    ("run_id", "STRING", "Gate run"),
    ("checked_at", "TIMESTAMP", "When the run started (UTC)"),
    ("stage", "STRING", "raw or marts"),
    ("scope", "STRING", "all, or the interval dates checked (what the loads since the last run changed)"),
    ("check_name", "STRING", "Check of the catalogue"),
    ("severity", "STRING", "error or warn"),
    ("status", "STRING", "passed, failed, or skipped"),
    ("passed", "BOOLEAN", "false when the check found violations"),
    ("violations", "BIGINT", "Violating rows found in the scope"),
)
CHECKED_LOADS_COLUMNS = (
    ("run_id", "STRING", "Gate run that checked the load"),
    ("checked_at", "TIMESTAMP", "When that run started (UTC)"),
    ("stage", "STRING", "raw or marts"),
    ("load_id", "STRING", "Load (smf_raw.smf_load_dates) whose rows the run checked"),
)
ALL = "all"


@dataclass(frozen=True)
class Scope:
    """What a gate run checks: everything (``dates is None``) or the rows of some interval dates
    (and the audit and quarantine rows of some loads)."""

    dates: tuple[str, ...] | None = None  # ISO dates
    load_ids: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        if self.dates is None:
            return ALL
        return "dates " + (",".join(self.dates) if self.dates else "(none)")

    def restrict(self, spark, tables: Mapping[str, str]) -> dict[str, str]:
        """The tables as subqueries of the scope's rows (tables it does not bound stay whole)."""
        if self.dates is None:
            return dict(tables)
        out = {}
        for name, qualified in tables.items():
            columns = {c.lower() for c in spark.table(qualified).columns}
            if "interval_date" in columns:
                days = ", ".join(f"DATE {literal(d)}" for d in self.dates) or "NULL"
                out[name] = f"(SELECT * FROM {qualified} WHERE interval_date IN ({days}))"
            elif "load_id" in columns and "loaded_at" in columns:  # audit, quarantine, load dates
                ids = ", ".join(literal(i) for i in self.load_ids) or "NULL"
                out[name] = f"(SELECT * FROM {qualified} WHERE load_id IN ({ids}))"
            else:
                out[name] = qualified
        return out


def changed_scope(spark, stage: str, raw_schema: str = RAW_SCHEMA, quality_schema: str = QUALITY_SCHEMA) -> Scope:
    """The loads the stage's gate has not checked yet (by load id) and the interval dates they
    carried; all loads when it never ran. Warehouses whose gate ran before ``dq_checked_loads``
    existed fall back to the loads after that stage's last run."""
    from ..warehouse import LOAD_DATES_TABLE, qualified

    if not spark.catalog.tableExists(f"{raw_schema}.{LOAD_DATES_TABLE}"):
        return Scope()
    loads = f"SELECT DISTINCT load_id, loaded_at, CAST(interval_date AS STRING) AS d FROM {qualified(raw_schema, LOAD_DATES_TABLE)}"
    checked = f"{ident(quality_schema)}.{ident(CHECKED_LOADS_TABLE)}"
    history = f"{ident(quality_schema)}.{ident(HISTORY_TABLE)}"
    if spark.catalog.tableExists(f"{quality_schema}.{CHECKED_LOADS_TABLE}"):
        where = f"load_id NOT IN (SELECT load_id FROM {checked} WHERE stage = {literal(stage)} AND load_id IS NOT NULL)"
    elif spark.catalog.tableExists(f"{quality_schema}.{HISTORY_TABLE}"):
        where = f"loaded_at > (SELECT coalesce(max(checked_at), timestamp '1900-01-01 00:00:00') FROM {history} WHERE stage = {literal(stage)})"
    else:
        where = "true"
    rows = spark.sql(f"SELECT * FROM ({loads}) AS l WHERE {where}").collect()
    return Scope(tuple(sorted({r.d for r in rows if r.d})), tuple(sorted({r.load_id for r in rows})))


def all_loads_scope(spark, raw_schema: str = RAW_SCHEMA) -> Scope:
    """Everything (``--all``), remembering every load present as checked."""
    from ..warehouse import LOAD_DATES_TABLE, qualified

    if not spark.catalog.tableExists(f"{raw_schema}.{LOAD_DATES_TABLE}"):
        return Scope()
    rows = spark.sql(f"SELECT DISTINCT load_id FROM {qualified(raw_schema, LOAD_DATES_TABLE)}").collect()
    return Scope(None, tuple(sorted(r.load_id for r in rows if r.load_id)))


_GX_SEVERITY = {ERROR: "critical", WARN: "warning"}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# GX result detail: counts only. GX's BASIC format also lists up to 20 unexpected values per
# expectation, a Spark job each even when nothing fails; the gate lists the failing rows itself
# (dq_violations, with their queue manager, object, interval, file and offset), so it asks for none.
RESULT_FORMAT = {"result_format": "BASIC", "partial_unexpected_count": 0}
# Suspect rows up to this many are validated by GX on pandas (milliseconds per expectation); more (a
# check violated on most of a large frame) stay on Spark.
PANDAS_SUSPECTS = 200_000


class GateError(RuntimeError):
    """The gate could not run (not: the data failed it)."""


@dataclass
class Outcome:
    check: Check
    status: str  # passed | failed | skipped
    evaluated_rows: int | None = None
    gx_unexpected: int | None = None
    violations: int = 0
    samples: list[dict] = field(default_factory=list)
    note: str = ""


@dataclass
class GateResult:
    stage: str
    run_id: str
    checked_at: datetime
    outcomes: list[Outcome]
    seconds: float
    docs_index: Path | None
    violations_table: str | None
    skipped_frames: dict[str, str]
    strict: bool = False
    frame_rows: dict[str, int] = field(default_factory=dict)  # rows of each frame checked
    # Identity of every violation (verdict.violation_key), when run_gate(keys=True): for baselines.
    violation_keys: list[tuple] | None = None
    scope: str = ALL  # what was checked: all, or the interval dates (Scope.text)

    @property
    def rows_checked(self) -> int:
        return sum(self.frame_rows.values())

    def failed(self, severity: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed" and severity in (None, o.check.severity)]

    @property
    def passed(self) -> bool:
        blocking = self.failed() if self.strict else self.failed(ERROR)
        return not blocking

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1


# ----------------------------------------------------------------------------------------------
# Frames as SQL
# ----------------------------------------------------------------------------------------------


def existing_tables(spark, schema: str) -> dict[str, str]:
    """{table: qualified name} of the tables in ``schema`` (none when the schema does not exist)."""
    if not spark.catalog.databaseExists(schema):
        return {}
    return {
        t.name.lower(): f"{ident(schema)}.{ident(t.name)}"
        for t in spark.catalog.listTables(schema)
        if not t.isTemporary
    }


def frame_sql(frame: Frame, checks: Sequence[Check], base: str) -> str:
    """The frame's query with its own derived columns, then its checks' derived columns."""
    sql = base
    for derived in (dict(frame.derived), {k: v for c in checks for k, v in c.rule.derived.items()}):
        if derived:
            cols = ", ".join(f"{expr} AS {ident(name)}" for name, expr in derived.items())
            sql = f"SELECT *, {cols} FROM ({sql}) AS base"
    return sql


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def frame_columns(frame: Frame, checks: Sequence[Check]) -> set[str]:
    """Every name (lower case) the frame's checks and its violation listing may read: a superset
    of the columns they use, gathered from their SQL and their GX expectations' arguments. The
    gate caches only these columns: a raw table has about twice as many as its checks read."""
    texts = [
        frame.table_name, frame.qmgr_name, frame.qsg_name, frame.object_name, frame.interval_start_at,
        frame.interval_end_at, frame.source_file, frame.record_offset,
    ]  # fmt: skip
    for c in checks:
        texts += [c.violation_sql(), c.values_sql(), *c.rule.columns, *(w.column for w in c.when)]
        texts.append(json.dumps(expectation_for(c).configuration.kwargs, default=str))
    return {name.lower() for text in texts for name in _NAME.findall(text)}


def _shuffles(spark, sql: str) -> bool:
    """Whether the frame's query shuffles (aggregates, windows, joins): such a frame is computed
    once and cached for its checks' jobs. A frame that only scans and projects one table is read
    again by each job instead, which reads just that job's columns: on the large day's QQST
    frame (960,000 rows, 77 columns) building the cache cost more than all its jobs' reads."""
    return "Exchange" in spark.sql(f"EXPLAIN {sql}").first()[0]


def violations_sql(frame: Frame, view: str, checks: Sequence[Check], run_id: str, checked_at_us: int) -> str:
    """One SELECT per check over the frame's view, as the rows of ``dq_violations``."""
    parts = []
    for c in checks:
        parts.append(
            f"SELECT {literal(run_id)} AS run_id, timestamp_micros({checked_at_us}) AS checked_at, "
            f"{literal(c.name)} AS check_name, {literal(c.severity)} AS severity, "
            f"CAST({frame.table_name} AS STRING) AS table_name, {literal(c.text)} AS rule, "
            f"CAST({frame.qmgr_name} AS STRING) AS qmgr_name, CAST({frame.qsg_name} AS STRING) AS qsg_name, "
            f"CAST({frame.object_name} AS STRING) AS object_name, "
            f"CAST({frame.interval_start_at} AS TIMESTAMP) AS interval_start_at, "
            f"CAST({frame.interval_end_at} AS TIMESTAMP) AS interval_end_at, "
            f"{c.values_sql()} AS `values`, CAST({frame.source_file} AS STRING) AS source_file, "
            f"CAST({frame.record_offset} AS BIGINT) AS record_offset "
            # (The alias matters: Spark would read "view WHERE (...)" as an alias with column names.)
            f"FROM {view} AS frame_row WHERE {c.violation_sql()}"
        )
    return "\nUNION ALL\n".join(parts)


def _flag(sql: str) -> str:
    return f"coalesce({sql}, false)"


def one_pass_sql(view: str, checks: Sequence[Check]) -> str:
    """One row: the frame's rows, the suspect rows (violating any check), then each check's
    applicable rows (its conditions hold). GX counts the violations, on the suspects."""
    applies = [" AND ".join(w.sql() for w in c.when) or "true" for c in checks]
    violates = " OR ".join(_flag(c.violation_sql()) for c in checks) or "false"
    cols = ["count(1)", f"count_if({violates})", *(f"count_if({_flag(a)})" for a in applies)]
    return f"SELECT {', '.join(cols)} FROM {view}"


def suspects_sql(view: str, checks: Sequence[Check]) -> str:
    """The frame's rows that violate any of ``checks``: all GX needs to see."""
    return f"SELECT * FROM {view} WHERE " + " OR ".join(_flag(c.violation_sql()) for c in checks)


@dataclass
class FramePass:
    """What one pass over a frame found: rows, suspect rows, and each check's applicable rows."""

    rows: int
    suspects: int
    applicable: dict[str, int]


def run_one_pass(spark, view: str, checks: Sequence[Check]) -> FramePass:
    row = spark.sql(one_pass_sql(view, checks)).first()
    return FramePass(int(row[0]), int(row[1]), {c.name: int(n) for c, n in zip(checks, row[2:], strict=True)})


# ----------------------------------------------------------------------------------------------
# Great Expectations
# ----------------------------------------------------------------------------------------------


def _quiet_gx() -> None:
    for name in ("great_expectations", "py4j"):
        logging.getLogger(name).setLevel(logging.ERROR)


def gx_context(docs_root: Path | None, stage: str):
    """Ephemeral GX context whose one Data Docs site is ``docs_root`` (a folder per stage)."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    _quiet_gx()
    sites = {}
    if docs_root is not None:
        sites[f"mqsmf_{stage}"] = {
            "class_name": "SiteBuilder",
            "show_how_to_buttons": False,
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(docs_root)},
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
        }
    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
        data_docs_sites=sites,
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def expectation_for(check: Check):
    """The GX expectation of a check, with the metadata Data Docs shows."""
    notes = [f"**{check.name}** ({check.severity}): {check.description}", f"Rule: `{check.text}`"]
    if check.fields:
        notes.append("IBM fields: " + ", ".join(check.fields))
    if check.source:
        notes.append(f"Source: {check.source}")
    return check.rule.expectation(
        # Shown in Data Docs instead of GX's generic sentence (which would name derived columns).
        description=f"[{check.severity}] {check.name}: {check.text}",
        row_condition=gx_row_condition(check.when),
        severity=_GX_SEVERITY[check.severity],
        meta={
            "check": check.name,
            "severity": check.severity,
            "rule": check.text,
            "ibm_fields": list(check.fields),
            "source": check.source,
        },
        notes=notes,
    )


def add_frame_checkpoint(context, stage: str, frame: Frame, checks: Sequence[Check], engine: str = "spark"):
    """The frame's suite, validation definition and checkpoint, added to the context; ``engine``:
    the DataFrames it runs on, ``spark`` or ``pandas``."""
    import great_expectations as gx

    name = f"mqsmf_{stage}_{engine}"
    # One data source per engine for all frames (replacing it would make the earlier checkpoints stale).
    source = context.data_sources.get(name) if name in context.data_sources.all() else None
    source = source or getattr(context.data_sources, f"add_{engine}")(name)
    asset = source.add_dataframe_asset(frame.name)
    batch = asset.add_batch_definition_whole_dataframe(frame.name)
    suite = gx.ExpectationSuite(
        name=frame.id,
        expectations=[expectation_for(c) for c in checks],
        meta={"frame": frame.id, "description": frame.description, "notes": frame.description},
    )
    suite = context.suites.add(suite)
    definition = context.validation_definitions.add(gx.ValidationDefinition(name=frame.id, data=batch, suite=suite))
    return context.checkpoints.add(
        gx.Checkpoint(name=frame.id, validation_definitions=[definition], actions=[], result_format=RESULT_FORMAT)
    )


def run_checkpoint(checkpoint, df) -> dict[str, dict]:
    """Run a frame's checkpoint on ``df``; {check name: GX result (success, result, exception)}."""
    result = checkpoint.run(batch_parameters={"dataframe": df})
    out: dict[str, dict] = {}
    for validation in result.run_results.values():
        for r in validation.results:
            name = (r.expectation_config.meta or {}).get("check")
            info = r.exception_info or {}
            raised = info.get("raised_exception") or any(
                isinstance(v, dict) and v.get("raised_exception") for v in info.values()
            )
            out[name] = {
                "success": bool(r.success),
                "result": dict(r.result or {}),
                "exception": info if raised else None,
            }
    return out


# ----------------------------------------------------------------------------------------------
# The gate
# ----------------------------------------------------------------------------------------------


def run_gate(
    spark,
    stage: str,
    *,
    schemas: Mapping[str, str] | None = None,
    quality_schema: str = QUALITY_SCHEMA,
    docs_dir: str | Path | None = DEFAULT_DOCS_DIR,
    checks: Sequence[str] | None = None,
    severities: Mapping[str, str] | None = None,
    interval_tolerance: float | None = None,
    write: bool = True,
    strict: bool = False,
    sample_rows: int = 10,
    cat: Catalogue | None = None,
    threads: int = 4,
    keys: bool = False,
    scope: Scope | None = None,
    prefilter: bool = True,
) -> GateResult:
    """Run one stage's checks. ``severities`` overrides check severities by name; ``strict`` makes
    warnings fail the gate too; ``keys`` collects every violation's identity (for baselines). A
    relative ``docs_dir`` is taken from the current folder. ``prefilter=False`` runs the
    expectations on the whole frames (one Spark job per expectation; the tests compare). Raises
    GateError when the gate itself cannot run."""
    if stage not in STAGES:
        raise GateError(f"unknown stage {stage!r}; use one of {', '.join(STAGES)}")
    started = time.monotonic()
    schemas = {RAW: RAW_SCHEMA, MARTS: marts_schema(), **(schemas or {})}
    if cat is None:
        cat = catalogue() if interval_tolerance is None else catalogue(interval_tolerance=interval_tolerance)
    try:
        cat = cat.for_stage(stage).select(list(checks) if checks else None)
    except KeyError as e:
        raise GateError(str(e.args[0])) from None
    if severities:
        unknown = sorted(set(severities) - {c.name for c in cat.checks})
        if unknown:
            raise GateError(f"--severity names unknown check(s) of stage {stage}: {', '.join(unknown)}")
        cat = Catalogue(cat.frames, tuple(replace(c, severity=severities.get(c.name, c.severity)) for c in cat.checks))

    checked_at = datetime.now(UTC)
    checked_at_us = int(checked_at.timestamp() * 1_000_000)
    run_id = f"{stage}-{checked_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    # GX's site builder accepts absolute folders only.
    docs_root = Path(docs_dir).expanduser().resolve() / stage if docs_dir else None
    outcomes: dict[str, Outcome] = {}
    skipped: dict[str, str] = {}
    cached, views, violation_parts = [], [], []

    context = None
    parallelism = max(1, spark.sparkContext.defaultParallelism)
    in_schema = existing_tables(spark, schemas[stage])
    scope = scope or Scope()
    try:
        prepared = []  # (frame, its checks, cached DataFrame, view, checkpoint)
        for frame in cat.frames.values():
            frame_checks = cat.frame_checks(frame.name)
            tables = scope.restrict(spark, {t: q for t, q in in_schema.items() if t in frame.tables})
            base = frame.build(tables, spark) if tables else None
            if base is None:
                reason = f"no table {' / '.join(f'{schemas[stage]}.{t}' for t in frame.tables[:3])}" + (
                    " ..." if len(frame.tables) > 3 else ""
                )
                skipped[frame.id] = reason
                for c in frame_checks:
                    outcomes[c.name] = Outcome(c, "skipped", note=reason)
                continue
            # The frame's jobs (its pass, GX on Spark, its listing) are small: as many partitions as cores.
            sql = frame_sql(frame, frame_checks, base)
            df = spark.sql(sql)
            needed = frame_columns(frame, frame_checks)
            df = df.select(*(ident(c) for c in df.columns if c.lower() in needed)).coalesce(parallelism)
            if _shuffles(spark, sql):
                df = df.persist()
                cached.append(df)
            view = f"{VIEW_PREFIX}{stage}_{frame.name}"
            df.createOrReplaceTempView(view)
            views.append(view)
            if context is None:
                context = gx_context(docs_root, stage)
            prepared.append((frame, frame_checks, df, view))

        # Spark jobs are mostly latency here: a few frames at once. A cached frame's first job fills it.
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            if prefilter:
                passes = list(pool.map(lambda p: run_one_pass(spark, p[3], p[1]), prepared))
            else:
                passes = [None] * len(prepared)
            runs = []  # (checkpoint, the DataFrame GX validates), made in this thread (the GX context)
            for (frame, frame_checks, df, view), found in zip(prepared, passes, strict=True):
                if found is None:
                    target, engine = df, "spark"
                elif found.suspects == 0:
                    target, engine = _empty_pandas(df), "pandas"
                else:
                    suspects = spark.sql(suspects_sql(view, frame_checks))
                    small = found.suspects <= PANDAS_SUSPECTS
                    target, engine = (suspects.toPandas(), "pandas") if small else (suspects, "spark")
                runs.append((add_frame_checkpoint(context, stage, frame, frame_checks, engine), target))
            results = list(pool.map(lambda r: run_checkpoint(*r), runs))
            if not prefilter:
                passes = list(pool.map(lambda p: FramePass(p[2].count(), 0, {}), prepared))
        frame_rows = {p[0].id: found.rows for p, found in zip(prepared, passes, strict=True)}

        for (frame, frame_checks, _df, view), gx_results, found in zip(prepared, results, passes, strict=True):
            # Rows are listed for the checks GX failed (a clean run costs no listing at all).
            failing = [c for c in frame_checks if not gx_results.get(c.name, {}).get("success", True)]
            if failing:
                violation_parts.append(violations_sql(frame, view, failing, run_id, checked_at_us))
            for c in frame_checks:
                r = gx_results.get(c.name)
                if r is None:
                    raise GateError(f"GX returned no result for check {c.name}")
                if r["exception"]:
                    raise GateError(f"GX could not evaluate {c.name} on {frame.id}: {_exception_text(r['exception'])}")
                applicable = found.applicable.get(c.name, r["result"].get("element_count"))
                outcomes[c.name] = Outcome(
                    c,
                    "passed" if r["success"] else "failed",
                    evaluated_rows=None if c.rule.table_level else applicable,
                    gx_unexpected=_counted(c, r),
                )

        violations = _collect_violations(spark, violation_parts, outcomes, sample_rows, parallelism)
        violation_keys = _violation_keys(violations) if keys else None
        table = None
        if write:
            table = write_tables(spark, stage, quality_schema, violations, outcomes, run_id, checked_at_us)
            write_history(spark, stage, quality_schema, outcomes, run_id, checked_at_us, scope)
        if violations is not None:
            violations.unpersist()
        docs_index = None
        if context is not None and docs_root is not None:
            if docs_root.exists():
                shutil.rmtree(docs_root)
            context.build_data_docs()
            docs_index = docs_root / "index.html"
    finally:
        for view in views:
            spark.catalog.dropTempView(view)
        for t in spark.catalog.listTables():
            if t.isTemporary and t.name.startswith(VIEW_PREFIX):
                spark.catalog.dropTempView(t.name)
        for df in cached:
            df.unpersist()

    ordered = [outcomes[c.name] for c in cat.checks]
    result = GateResult(
        stage, run_id, checked_at, ordered, time.monotonic() - started, docs_index, table, skipped, strict, frame_rows,
        violation_keys,
    )  # fmt: skip
    result.scope = scope.text
    return result


def _counted(check: Check, gx_result: dict) -> int | None:
    """The violations GX counted. On Spark GX counts nothing (None) when no row met a check's
    conditions; on pandas it counts 0: a passed check counted none."""
    counted = check.rule.gx_violations(gx_result["result"])
    return 0 if counted is None and gx_result["success"] else counted


def _empty_pandas(df):
    """The frame's columns with no row (no Spark job): what GX validates on a clean frame."""
    import pandas as pd

    return pd.DataFrame({name: pd.Series(dtype="object") for name in df.columns})


def _exception_text(info: dict) -> str:
    if "exception_message" in info:
        return str(info["exception_message"])
    for v in info.values():
        if isinstance(v, dict) and v.get("exception_message"):
            return str(v["exception_message"])
    return json.dumps(info, default=str)[:500]


def _collect_violations(spark, parts: list[str], outcomes: dict[str, Outcome], sample_rows: int, parallelism: int):
    """Count the listed rows per check and keep the first few of each (ordered by queue manager,
    interval, object) for the gate's table. Returns the cached violations DataFrame (or None)."""
    if not parts:
        return None
    violations = spark.sql("\nUNION ALL\n".join(parts)).coalesce(parallelism).persist()
    for row in violations.groupBy("check_name").count().collect():
        outcomes[row["check_name"]].violations = row["count"]
    for o in outcomes.values():
        if o.status == "failed" and not o.violations:
            # GX and the SQL derive from one rule; a disagreement is a bug worth failing loudly on.
            raise GateError(f"{o.check.name}: GX found violations but its SQL lists no row")
    if sample_rows > 0 and any(o.violations for o in outcomes.values()):
        violations.createOrReplaceTempView("mqsmf_dq_violations_run")
        rows = spark.sql(
            # Times as epoch microseconds: Python would render Spark timestamps in the local zone.
            "SELECT * FROM (SELECT check_name, table_name, qmgr_name, qsg_name, object_name, "
            "unix_micros(interval_start_at) AS interval_start_us, `values`, source_file, record_offset, "
            "row_number() OVER (PARTITION BY check_name ORDER BY qmgr_name, interval_start_at, object_name, "
            f"source_file, record_offset) AS n FROM mqsmf_dq_violations_run) WHERE n <= {int(sample_rows)} "
            "ORDER BY check_name, n"
        ).collect()
        spark.catalog.dropTempView("mqsmf_dq_violations_run")
        for row in rows:
            d = row.asDict()
            d.pop("n")
            us = d.pop("interval_start_us")
            d["interval_start_at"] = None if us is None else EPOCH + timedelta(microseconds=us)
            outcomes[d["check_name"]].samples.append(d)
    return violations


def _violation_keys(violations) -> list[tuple]:
    """Every listed violation's identity (``verdict.violation_key``), one per row."""
    from .verdict import violation_key

    if violations is None:
        return []
    rows = violations.selectExpr(
        "check_name", "table_name", "qsg_name", "qmgr_name", "object_name",
        "unix_micros(interval_start_at) AS interval_start_us", "source_file", "record_offset",
    ).collect()  # fmt: skip
    keys = []
    for row in rows:
        d = row.asDict()
        us = d.pop("interval_start_us")
        d["interval_start_at"] = None if us is None else EPOCH + timedelta(microseconds=us)
        keys.append(violation_key(d))
    return keys


def _ddl(columns) -> str:
    return ", ".join(f"{ident(name)} {typ} COMMENT {literal(doc)}" for name, typ, doc in columns)


def write_history(spark, stage, schema, outcomes, run_id, checked_at_us, scope: Scope) -> None:
    """Append the run's outcome of every check to dq_check_history (never replaced)."""
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {ident(schema)}")
    table = f"{ident(schema)}.{ident(HISTORY_TABLE)}"
    spark.sql(
        f"CREATE TABLE IF NOT EXISTS {table} ({_ddl(HISTORY_COLUMNS)}) USING parquet "
        f"COMMENT {literal('mqsmf data-quality gate: one row per check of every run (history)')}"
    )
    rows = [
        f"({literal(run_id)}, timestamp_micros({checked_at_us}), {literal(stage)}, {literal(scope.text)}, "
        f"{literal(o.check.name)}, {literal(o.check.severity)}, {literal(o.status)}, "
        f"{literal(o.status != 'failed')}, {int(o.violations)})"
        for o in outcomes.values()
    ]
    if rows:
        cols = ", ".join(ident(c[0]) for c in HISTORY_COLUMNS)
        # One statement, one small file: a run's history is all there or not at all.
        spark.sql(f"INSERT INTO {table} SELECT /*+ COALESCE(1) */ * FROM VALUES {', '.join(rows)} AS t({cols})")
    loads = f"{ident(schema)}.{ident(CHECKED_LOADS_TABLE)}"
    spark.sql(
        f"CREATE TABLE IF NOT EXISTS {loads} ({_ddl(CHECKED_LOADS_COLUMNS)}) USING parquet "
        f"COMMENT {literal('mqsmf data-quality gate: the loads each run checked (the default scope skips them)')}"
    )
    if scope.load_ids:
        values = ", ".join(
            f"({literal(run_id)}, timestamp_micros({checked_at_us}), {literal(stage)}, {literal(i)})"
            for i in scope.load_ids
        )
        cols = ", ".join(ident(c[0]) for c in CHECKED_LOADS_COLUMNS)
        spark.sql(f"INSERT INTO {loads} SELECT /*+ COALESCE(1) */ * FROM VALUES {values} AS t({cols})")


def write_tables(spark, stage, schema, violations, outcomes, run_id, checked_at_us) -> str:
    """Replace the stage's partition of dq_violations and dq_check_results."""
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {ident(schema)}")
    target = f"{ident(schema)}.{ident(VIOLATIONS_TABLE)}"
    results = f"{ident(schema)}.{ident(RESULTS_TABLE)}"
    for table, columns, what in (
        (target, VIOLATIONS_COLUMNS, "one row per violating row and check"),
        (results, RESULTS_COLUMNS, "one row per check and gate run"),
    ):
        spark.sql(
            f"CREATE TABLE IF NOT EXISTS {table} ({_ddl(columns)}) USING parquet PARTITIONED BY (stage) "
            f"COMMENT {literal('mqsmf data-quality gate: ' + what)}"
        )
    names = [c[0] for c in VIOLATIONS_COLUMNS if c[0] != "stage"]
    if violations is not None:
        violations.createOrReplaceTempView("mqsmf_dq_violations_write")
        select = f"SELECT {', '.join(map(ident, names))} FROM mqsmf_dq_violations_write"
    else:
        select = "SELECT " + ", ".join(f"CAST(NULL AS {typ}) AS {ident(n)}" for n, typ, _ in VIOLATIONS_COLUMNS[:-1])
        select += " WHERE false"
    spark.sql(f"INSERT OVERWRITE TABLE {target} PARTITION (stage = {literal(stage)}) {select}")
    spark.catalog.dropTempView("mqsmf_dq_violations_write")

    rows = []
    for o in outcomes.values():
        c = o.check
        values = [
            literal(run_id),
            f"timestamp_micros({checked_at_us})",
            literal(c.name),
            literal(c.severity),
            literal(c.frame),
            literal(c.text),
            literal(c.source),
            literal(o.status),
            "CAST(NULL AS BIGINT)" if o.evaluated_rows is None else str(int(o.evaluated_rows)),
            "CAST(NULL AS BIGINT)" if o.gx_unexpected is None else str(int(o.gx_unexpected)),
            str(int(o.violations)),
        ]
        rows.append(f"({', '.join(values)})")
    cols = ", ".join(ident(c[0]) for c in RESULTS_COLUMNS if c[0] != "stage")
    if rows:
        spark.sql(
            f"INSERT OVERWRITE TABLE {results} PARTITION (stage = {literal(stage)}) "
            f"SELECT * FROM VALUES {', '.join(rows)} AS t({cols})"
        )
    return f"{schema}.{VIOLATIONS_TABLE}"
