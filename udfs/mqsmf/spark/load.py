"""Loading SMF dumps into the raw warehouse tables: the plan of a load, crash-safe and incremental.

The tables and their columns are the warehouse contract (``mqsmf.warehouse``): one parquet table
per structure partitioned by ``interval_date``, plus audit, quarantine and load dates partitioned
by ``load_date``.

Idempotence. A structure row is identified by its natural key (``plan.natural_key``): ``qmgr``,
``smf_subtype``, the partition time (``warehouse.partition_time``) and the structure's ``natural_key``
columns from ``structures.csv``. The key fixes the row's ``interval_date``, so a load compares its
rows only with the partitions of the dates it carries: loading a file twice, or files that
overlap, never duplicates a row, and the work of a load is the size of its own dates, not of the
history. Within a load one row per key is kept (the first by file and offset). Quarantine rows are
identified by (source_sha256, offset, length).

The steps (parquet only, no table format; the file work is ``mqsmf.spark.staging``'s):

1. *recover*: publish what a load killed after its commit left, delete what one killed before it
   left (nothing to do, the common case, costs one small read);
2. *decode*: the files are decoded once, in parallel, into the load's spool (``spool.py``); it
   touches nothing else, so :func:`load_files`, reading locally, starts it first, beside the catalog steps;
3. *stage*: a task per table, in parallel, writes the load's new rows as parquet files per
   partition in the load's folder (never in a table's);
4. *commit*: once every task finished, the load's ``smf_load_dates`` rows are staged too and the
   commit marker written;
5. *publish*: the staged files are moved into their partition folders, the partitions registered
   (``ALTER TABLE ... ADD IF NOT EXISTS PARTITION``, which also refreshes the table);
6. *reveal*: then the load's ``smf_load_dates`` and ``smf_load_audit`` files, and their partitions:
   the dbt staging models read only rows of loads with audit rows (macro ``published_rows``), so a
   reader sees a load whole or not at all, never table by table; the load's folder is removed.

A load killed before its commit leaves the raw tables untouched; killed after it, the next load
completes its publication (a file already moved is not moved again; registering is idempotent).
The audit rows of a load are published after its data: a load that died before its commit left no
audit rows, the load that completes it has them all.

Speed. A load adds files to the partitions it adds rows to and rewrites nothing; it runs a few
statements per table it touches, none per file or per row; decoding and staging run vectorised
(Arrow) in Spark's Python workers or, when :func:`load_files` runs with a local master, in worker
processes of its own (``mqsmf.spark.local``: the same reads, without Spark's planning of each).

One SQL, two callers. ``mqsmf.spark.plan`` writes the statements; :func:`load_files` (``mqsmf
load``) runs them through a SparkSession (with a local master, the reads of the acting views by
calling the data source's reader itself, ``mqsmf.spark.local``); the dbt on-run-start macro
``load_smf_files`` reads the very same plan (``_load_sql``) and runs it through dbt's connection.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields

from .. import load_lock
from ..warehouse import (
    AUDIT_TABLE,
    LOAD_DATES_TABLE,
    QUARANTINE_TABLE,
    RAW_SCHEMA,
    ident,
    literal,
    loaded_structures,
    qualified,
    raw_table,
)
from . import local, partitions, staging
from .options import PUBLISH
from .plan import (
    COMMIT_LABEL,
    COUNTED,
    DECODE_LABEL,
    EXPAND,
    KILL_AFTER_ENV,
    WAREHOUSE_CONF,
    WAREHOUSE_SQL,
    Step,
    load_plan,
)
from .spool import prune_spools, release_spool, spool_base

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
    reads_in_spark: bool | None = None,
    wait: float | None = None,
    load_id: str | None = None,
) -> LoadSummary:
    """Load SMF dumps (files, folders, globs) into the raw tables of ``spark``'s catalog and return
    what was read and inserted. Runs the statements the dbt macro runs, except that it removes the
    load's spool itself rather than through the data source (``_release``: a Python round trip).
    With a local master the data source's acting reads run in a pool of this machine's processes
    (``mqsmf.spark.local``) unless ``reads_in_spark``; with any other, in Spark. The load holds the
    warehouse's load lock (``mqsmf.load_lock``), waiting up to ``wait`` seconds for another load;
    ``load_lock.LoadBusy`` when that one runs on."""
    t0 = time.perf_counter()
    specs = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    files = partitions.expand_paths(specs)
    prune_spools()
    load_id = load_id or uuid.uuid4().hex
    spool = str(spool_base() / f"load-{load_id}")
    plan = load_plan(files, framing, raw_schema, load_id, spool=spool, split_bytes=split_bytes, release=False)
    in_spark = not local.runs_locally(spark) if reads_in_spark is None else reads_in_spark
    lock = load_lock.lock_path(staging.local_folder(spark.conf.get(WAREHOUSE_CONF)), raw_schema)
    with load_lock.holding(lock, load_id, wait=wait, say=_say):
        return _load_locked(spark, files, plan, load_id, spool, in_spark, progress, t0)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _load_locked(spark, files, plan, load_id, spool, in_spark, progress, t0) -> LoadSummary:
    # Started before the first catalog access: the pool's processes start while the metastore opens.
    reads = None if in_spark else local.LocalReads(spark.conf.get(WAREHOUSE_CONF), local.local_parallelism(spark))
    results: dict[str, list] = {}
    # Decoding writes only the load's own spool: it runs while the metastore opens and the catalog
    # steps before it run (a new warehouse's metastore and tables: about 5 s of the large day's 13).
    decode = next((s for s in plan if s.label == DECODE_LABEL), None)
    early = _EarlyRead(reads, decode) if reads is not None and decode is not None else None
    try:
        listed = time.perf_counter()
        steps = _without_existing_tables(spark, plan)
        # The first catalog access of a process opens the metastore (creating it, the first time).
        listing = time.perf_counter() - listed
        step_seconds = {"list tables": listing, **run_steps(spark, steps, progress, results, reads, early)}
    except BaseException:
        if reads is not None:
            reads.cancel()  # e.g. the early decode's partitions, when a catalog step failed first
        raise
    finally:  # a load that failed never reads its spool again: the next one decodes anew
        if reads is not None:
            reads.close()  # after the queued reads: the early read ends too
        if early is not None:
            early.thread.join()
        release_spool(spool)
    summary = LoadSummary(load_id)
    if files:  # what the commit counted (summarize() asks the tables the same)
        counted = json.loads(results[COMMIT_LABEL][0]["summary"])
        inserted = counted.pop("rows_inserted")
        summary = LoadSummary(
            load_id,
            **{f.name: counted.get(f.name, 0) for f in fields(LoadSummary) if f.name in COUNTED},
            rows_inserted={n: inserted.get(raw_table(n), 0) for n in loaded_structures()},
        )
    summary.seconds = time.perf_counter() - t0
    summary.step_seconds = step_seconds
    return summary


def _without_existing_tables(spark, steps: list[Step]) -> list[Step]:
    """The plan without the CREATE TABLE IF NOT EXISTS of tables the catalog already has (each is a
    metastore round trip; a daily load finds them all)."""
    existing = set()
    for schema in {s.label.split(" ", 1)[1].split(".")[0] for s in steps if s.label.startswith("table ")}:
        if spark.catalog.databaseExists(schema):  # SHOW TABLES: names only (listTables reads each table)
            rows = spark.sql(f"SHOW TABLES IN {ident(schema)}").collect()
            existing |= {f"table {schema}.{r.tableName}" for r in rows if not r.isTemporary}
    return [s for s in steps if s.label not in existing]


def run_steps(
    spark,
    steps: Sequence[Step],
    progress: bool = False,
    results: dict[str, list] | None = None,
    reads: local.LocalReads | None = None,
    early: _EarlyRead | None = None,
) -> dict[str, float]:
    """Run a plan in order (an expand step's statements in its place); returns the seconds each
    step label took (summed over equal labels); ``results`` gets the rows of each step by label.
    With ``reads``, the data source reads of the plan run there, not in Spark (and need no views);
    ``early`` is one of them already started, whose result its step waits for."""
    from tqdm import tqdm

    kill_after = os.environ.get(KILL_AFTER_ENV)
    seconds: dict[str, float] = {}
    with tqdm(total=len(steps), unit="step", disable=not progress, dynamic_ncols=True) as bar:
        watcher = _TaskWatcher(spark, bar) if progress and reads is None else None

        def run(step: Step) -> None:
            if reads is not None and step.scaffold:
                bar.update(1)
                return
            bar.set_description(step.label)
            t0 = time.perf_counter()
            try:
                if early is not None and step is early.step:
                    rows, more = early.result(bar)
                elif reads is not None and step.reads:
                    rows, more = _read_locally(reads, step, bar.set_postfix_str)
                else:
                    rows = spark.sql(step.sql).collect()
                    more = [Step(r["label"], r["statement"]) for r in rows] if step.kind == EXPAND else []
            except Exception as e:
                e.add_note(f"mqsmf load: in step {step.label!r}")
                raise
            seconds[step.label] = seconds.get(step.label, 0.0) + time.perf_counter() - t0
            if results is not None:
                results[step.label] = rows
            if step.label == kill_after:
                _kill_self()
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


def _read_locally(reads: local.LocalReads, step: Step, show: Callable[[str], None]) -> tuple[list[dict], list[Step]]:
    """What Spark's read of the step's view returns (every column), done by ``reads``, and for an
    expand step the steps that follow (publishing's, each still naming what it reads). ``show``
    gets the partitions done."""
    target, pairs = step.reads
    options = reads.options(dict(pairs), WAREHOUSE_SQL)
    if target == PUBLISH:  # its rows are the statements that complete it: take them as steps
        more = reads.reader(target, options).publish_steps()
        return [{"label": s.label, "statement": s.sql} for s in more], more
    rows = reads.read(target, options, lambda done, total: show(f"parts {done}/{total}"))
    return rows.to_pylist(), []


class _EarlyRead:
    """A step's local read started ahead of the steps before it, in a thread of its own; its step
    takes the result (or the exception) when its turn comes, so failures keep their place."""

    def __init__(self, reads: local.LocalReads, step: Step) -> None:
        self.step = step
        self.parts = ""
        self.bar = None
        self.outcome: tuple | None = None
        self.thread = threading.Thread(target=self._run, args=(reads,), daemon=True)
        self.thread.start()

    def _show(self, parts: str) -> None:
        self.parts = parts
        if self.bar is not None:
            self.bar.set_postfix_str(parts)

    def _run(self, reads: local.LocalReads) -> None:
        try:
            self.outcome = (_read_locally(reads, self.step, self._show), None)
        except BaseException as e:  # noqa: BLE001  (raised again by the step, in its place)
            self.outcome = (None, e)

    def result(self, bar) -> tuple[list[dict], list[Step]]:
        self.bar = bar
        if self.parts:
            bar.set_postfix_str(self.parts)
        self.thread.join()
        value, error = self.outcome
        if error is not None:
            raise error
        return value


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
    """What the load read (its audit) and added (its load dates, its quarantine rows): one query."""
    lid = literal(load_id)
    audit = qualified(raw_schema, AUDIT_TABLE)
    counts = ("records_read", "records_decoded", "records_skipped", "records_quarantined")
    rows = spark.sql(
        "SELECT 'audit' AS what, count(DISTINCT source_file) AS files, "
        + ", ".join(f"sum({c}) AS {c}" for c in counts)
        + f", NULL AS table_name FROM {audit} WHERE load_id = {lid}\n"
        f"UNION ALL SELECT 'bytes', NULL, sum(file_size), NULL, NULL, NULL, NULL FROM (\n"
        f"    SELECT DISTINCT source_file, file_size FROM {audit} WHERE load_id = {lid})\n"
        f"UNION ALL SELECT 'added', NULL, sum(rows_added), NULL, NULL, NULL, table_name "
        f"FROM {qualified(raw_schema, LOAD_DATES_TABLE)} WHERE load_id = {lid} GROUP BY table_name\n"
        f"UNION ALL SELECT 'quarantined', NULL, count(*), NULL, NULL, NULL, NULL "
        f"FROM {qualified(raw_schema, QUARANTINE_TABLE)} WHERE load_id = {lid}"
    ).collect()
    (row,) = [r for r in rows if r["what"] == "audit"]
    (size,) = [r["records_read"] for r in rows if r["what"] == "bytes"]
    (quarantined,) = [r["records_read"] for r in rows if r["what"] == "quarantined"]
    inserted = {r["table_name"]: r["records_read"] for r in rows if r["what"] == "added"}
    return LoadSummary(
        load_id=load_id,
        files=row["files"] or 0,
        bytes=size or 0,
        records_read=row["records_read"] or 0,
        records_decoded=row["records_decoded"] or 0,
        records_skipped=row["records_skipped"] or 0,
        records_quarantined=row["records_quarantined"] or 0,
        quarantine_rows_inserted=quarantined or 0,
        rows_inserted={n: inserted.get(raw_table(n), 0) for n in loaded_structures()},
    )
