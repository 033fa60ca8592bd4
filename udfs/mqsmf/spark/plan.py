"""The plan of a load: the SQL statements that load SMF dumps into the raw warehouse tables.

One SQL, two callers. :func:`load_plan` writes the statements: create what is missing, then each
step as a temporary view ``USING mqsmf`` over an acting pseudo-structure whose read does the step
(``_stage``, ``_commit``, ...); the publish steps are *expand* steps whose rows are the statements
that follow. The workers learn the warehouse folder from Spark SQL itself (``${spark.sql.
warehouse.dir}`` in the statements). ``mqsmf load`` runs them through a SparkSession
(``mqsmf.spark.load``); the dbt on-run-start macro ``load_smf_files`` reads the very same plan
(the data source's ``_load_sql``, :func:`plan_from_options`) and runs it through dbt's connection.
The steps themselves, and why a load is crash-safe and idempotent, are described in
``mqsmf.spark.load``.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from .. import load_lock
from ..warehouse import RAW_SCHEMA, ident, literal, partition_time_sql, qualified, raw_tables
from . import partitions, staging
from .options import COMMIT, FINISH, PUBLISH, RELEASE, REVEAL, STAGE, UNLOCK, ReadOptions
from .spool import prune_spools, spool_base

VIEW_PREFIX = "mqsmf_load_"
# Test hook: SIGKILL the process (its whole group when it leads one) right after the step whose
# label this names (the first one), to prove a load can die anywhere. The data source's workers
# honour it too, at the points mqsmf.spark.staging names.
KILL_AFTER_ENV = staging.KILL_AFTER_ENV
SQL, EXPAND = "sql", "expand"
# The plan of a load that did not get the load lock in time: one step whose statement is the
# LoadBusy message, which the dbt macro raises as its error (no Spark task failure, no traceback).
BUSY = "busy"
RELEASE_LABEL = "release spool"
UNLOCK_LABEL = "release load lock"
FINISH_LABEL = staging.FINISH_LABEL
REVEAL_LABEL = staging.REVEAL_LABEL
COMMIT_LABEL = "commit"
DECODE_LABEL = "decode files"
# LoadSummary's counts that the commit returns (staging's manifests), besides rows_inserted.
COUNTED = ("files", "bytes", "records_read", "records_decoded", "records_skipped", "records_quarantined")
COUNTED += ("quarantine_rows_inserted",)
# Spark SQL replaces this with the session's warehouse folder in every statement that carries it:
# the data source's workers learn where the raw tables' files are without a catalog of their own.
WAREHOUSE_CONF = "spark.sql.warehouse.dir"
WAREHOUSE_SQL = "${" + WAREHOUSE_CONF + "}"


def natural_key(structure: str) -> list[str]:
    """SQL expressions (over a raw table's columns) that identify a row: ``staging.key_columns``."""
    time = partition_time_sql(structure)
    return [time if c == staging.WHEN else ident(c) for c in staging.key_columns(structure)]


def spark_type(t) -> str:
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(t, prefer_timestamp_ntz=True).simpleString()


def create_table_sql(schema_name: str, table: str, schema) -> str:
    """A raw table, parquet, partitioned by its last column, where Spark puts it by default."""
    cols = ",\n".join(f"    {ident(f.name)} {spark_type(f.type)}" for f in schema)
    return (
        f"CREATE TABLE IF NOT EXISTS {qualified(schema_name, table)} (\n{cols}\n) USING parquet "
        f"PARTITIONED BY ({ident(schema.names[-1])})"
    )


def view_sql(view: str, structure: str, options: Mapping[str, str]) -> str:
    opts = ",\n".join(f"    {k} {literal(v)}" for k, v in {**options, "structure": structure}.items())
    return f"CREATE OR REPLACE TEMPORARY VIEW {ident(view)}\nUSING mqsmf\nOPTIONS (\n{opts}\n)"


def _file_steps(label: str, target: str, options: Mapping[str, str], query: str, kind: str = SQL) -> list[Step]:
    """A view of one of the data source's acting pseudo-structures, the query that reads it (which
    acts), and the view's removal. The query step also names what it reads (``reads``), for a
    runner that reads it without Spark (``mqsmf.spark.local``); the view's steps are ``scaffold``."""
    view = f"{VIEW_PREFIX}{target.strip('_')}"
    return [
        Step(f"view {target}", view_sql(view, target, options), scaffold=True),
        Step(label, query.format(view=ident(view)), kind, reads=(target, tuple(options.items()))),
        Step(f"drop view {view}", f"DROP VIEW IF EXISTS {ident(view)}", scaffold=True),
    ]


# --------------------------------------------------------------------------------------------
# The plan of a load
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    label: str
    sql: str
    kind: str = SQL  # sql: run it; expand: run it, then run the `statement` of each row it returns
    reads: tuple[str, tuple[tuple[str, str], ...]] | None = None  # the data source read sql does
    scaffold: bool = False  # a view around such a read: not needed when it is read without Spark


def ensure_tables_plan(raw_schema: str = RAW_SCHEMA) -> list[Step]:
    steps = [Step(f"schema {raw_schema}", f"CREATE DATABASE IF NOT EXISTS {ident(raw_schema)}")]
    for table, schema in raw_tables().items():
        steps.append(Step(f"table {raw_schema}.{table}", create_table_sql(raw_schema, table, schema)))
    return steps


def publish_plan(raw_schema: str, label: str = "publish", load_id: str | None = None) -> list[Step]:
    """One expand step: move the staged files of ``load_id`` (or, recovering, of every committed
    load left behind) into their partitions; its rows register the partitions (which refreshes the tables)
    and remove the load folders (``staging.publish``, :func:`publish_statements`)."""
    options = {"raw_schema": raw_schema, "warehouse": WAREHOUSE_SQL, **({"load_id": load_id} if load_id else {})}
    return _file_steps(label, PUBLISH, options, "SELECT label, statement FROM {view}", EXPAND)


def publish_statements(area: staging.Area, load_id: str | None) -> list[Step]:
    """The statements that complete a publication (what a ``_publish`` read returns)."""
    steps = []
    acting = {FINISH_LABEL: FINISH, REVEAL_LABEL: REVEAL}
    for label, statement in staging.publish(area, load_id):
        step = next((prefix for prefix in acting if label.startswith(prefix)), None)
        if step:
            options = {"raw_schema": area.raw_schema, "warehouse": WAREHOUSE_SQL, "folder": statement}
            steps += _file_steps(step, acting[step], options, "SELECT * FROM {view}")
        else:
            steps.append(Step(label, statement))
    return steps


def load_plan(
    files: Sequence[str],
    framing: str = "auto",
    raw_schema: str = RAW_SCHEMA,
    load_id: str | None = None,
    loaded_at: datetime | None = None,
    spool: str | None = None,
    split_bytes: int = partitions.DEFAULT_SPLIT_BYTES,
    release: bool = True,
) -> list[Step]:
    """Every statement of a load of ``files`` (already expanded), in order. With no files, only
    the statements that make sure the tables exist and finish a load that died after its commit.
    ``release=False``: without the last steps, which remove the spool (a Python caller does that)."""
    steps = ensure_tables_plan(raw_schema) + publish_plan(raw_schema, "recover")
    if not files:
        return steps
    framing = partitions.check_framing(framing)
    load_id = load_id or uuid.uuid4().hex
    loaded_at = loaded_at or datetime.now(UTC)
    at_us = int(loaded_at.timestamp() * 1_000_000)
    spool_dir = spool or str(spool_base() / f"load-{load_id}")
    options = ReadOptions(tuple(files), framing, split_bytes, spool_dir).to_options()
    # Reading the audit decodes every partition once into the spool (in parallel); staging reads it.
    steps += _file_steps(DECODE_LABEL, partitions.AUDIT, options, "SELECT count(*) FROM {view}")
    load = {"raw_schema": raw_schema, "warehouse": WAREHOUSE_SQL, "load_id": load_id, "loaded_at_us": str(at_us)}
    steps += _file_steps("stage", STAGE, {**load, "spool": spool_dir}, "SELECT * FROM {view}")
    steps += _file_steps(COMMIT_LABEL, COMMIT, load, "SELECT * FROM {view}")
    steps += publish_plan(raw_schema, "publish", load_id)
    if release:
        steps += _file_steps(RELEASE_LABEL, RELEASE, {"spool": spool_dir}, "SELECT * FROM {view}")
    return steps


def plan_from_options(options: Mapping[str, str]) -> list[Step]:
    """The plan for the ``_load_sql`` pseudo-structure: options path/paths, framing, raw_schema,
    load_id (dbt passes its invocation id), split_bytes, warehouse, wait_until, wait_seconds. With ``warehouse``
    (the dbt macro passes Spark's), the plan holds the warehouse's load lock (``mqsmf.load_lock``)
    from now on, its owner the JVM reading it, until its last step (``_unlock``) gives it back. It
    waits for a running load until ``wait_until`` (seconds since the epoch: ``mqsmf load --target
    cluster`` sends its ``--wait``, ``wait_seconds``, counted from its start), else for
    ``MQSMF_LOAD_WAIT_SECONDS``."""
    read = ReadOptions.from_options(options)
    raw_schema = options.get("raw_schema") or RAW_SCHEMA
    load_id = options.get("load_id") or uuid.uuid4().hex
    prune_spools()
    files = partitions.expand_paths(list(read.paths))
    steps = load_plan(files, framing=read.framing, raw_schema=raw_schema, load_id=load_id, split_bytes=read.split_bytes)
    if options.get("warehouse"):
        lock = load_lock.lock_path(staging.local_folder(options["warehouse"]), raw_schema)
        command = "dbt on-run-start hook load_smf_files"
        until, asked = options.get("wait_until"), options.get("wait_seconds")
        wait = max(0.0, float(until) - time.time()) if until else None
        load_lock.acquire(
            lock, load_id, wait=wait, kind=load_lock.SQL_PLAN, pid=os.getppid(), command=command,
            asked=float(asked) if asked else None,
        )  # fmt: skip
        unlock = {"raw_schema": raw_schema, "warehouse": WAREHOUSE_SQL, "load_id": load_id}
        steps += _file_steps(UNLOCK_LABEL, UNLOCK, unlock, "SELECT * FROM {view}")
    return steps
