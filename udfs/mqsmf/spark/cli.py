"""``mqsmf load PATHS... [--target local|cluster]``: land SMF dumps in the warehouse's raw tables.

``local`` runs the load in an embedded Spark configured like the dbt ``local`` target (same
warehouse, same metastore) with a progress bar (or, with ``MQSMF_SPARK_MASTER`` set, as an
application on that master); ``cluster`` asks dbt to run the on-run-start macro ``load_smf_files``
against the ``cluster`` target: the Thrift server plans the load and its executors decode (it must
see the paths). Also registers ``mqsmf cluster`` (``mqsmf.spark.cluster``). Both run
the statements of ``mqsmf.spark.plan.load_plan``. Imports nothing heavy until the command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid

from .. import load_lock
from ..framing import FRAMINGS
from ..load_lock import LoadBusy
from ..warehouse import RAW_SCHEMA


def add_subcommand(subparsers) -> None:
    from . import cluster

    _add_load(subparsers)
    cluster.add_subcommand(subparsers)  # mqsmf cluster start|stop|status|env


def _add_load(subparsers) -> None:
    from ..cli import EXIT_STATUS_HELP, _add_json_flag

    p = subparsers.add_parser(
        "load",
        help="load SMF dumps into the warehouse's raw tables (Spark), idempotently",
        description="Decode SMF dumps and dmpmqmsg dumps of queue depth events (files, folders, globs) into the "
        "raw tables: one per structure, plus smf_load_audit and smf_quarantine. Rows already present (same "
        "natural key) are not added again. Every file is judged by its first bytes before Spark starts: a file "
        "that is neither kind of dump (or holds no IBM MQ records) is reported and skipped, the others load.",
        epilog=EXIT_STATUS_HELP + "; 1 here means the load quarantined spans (see smf_quarantine) or skipped a "
        "file that is not a dump; 2 also when no file was a dump or the warehouse's metastore is in use by "
        "another Spark process.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="SMF dump file, folder (every file below it) or glob")
    p.add_argument(
        "--target",
        choices=("local", "cluster"),
        default=os.environ.get("MQSMF_TARGET", "local"),
        help="dbt target whose warehouse receives the data (default: $MQSMF_TARGET or local)",
    )
    p.add_argument(
        "--framing",
        choices=("auto", *FRAMINGS),
        default="auto",
        help="how records are delimited in the files (default auto: detected per file)",
    )
    p.add_argument("--raw-schema", default=RAW_SCHEMA, help="schema of the raw tables (dbt var raw_schema)")
    p.add_argument("--project-dir", help="the dbt project (default: $MQSMF_PROJECT_DIR, or found from here)")
    p.add_argument(
        "--split-mb",
        type=float,
        default=64,
        help="read RDW files larger than this many MiB as several partitions (default 64; 0: never)",
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="show the progress bar on stderr even when it is not a terminal (default: only on a terminal)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_wait_flag(p)
    _add_json_flag(p, "the load's summary")
    p.set_defaults(func=_load)


def _load(args: argparse.Namespace) -> int:
    from ..cli import EXIT_USAGE, InputError
    from .profile import resolve_project_dir

    try:
        root = resolve_project_dir(args.project_dir)
        if args.target == "cluster":
            return _load_through_dbt(args, root)
        return _load_local(args, root)
    except FileNotFoundError as e:
        raise InputError(str(e).removeprefix("mqsmf: ")) from e
    except (_MetastoreInUse, LoadBusy) as e:
        print(f"mqsmf load: {e}", file=sys.stderr)
        return EXIT_USAGE


class _MetastoreInUse(Exception):
    pass


def add_wait_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--wait",
        type=float,
        metavar="SECONDS",
        help=f"wait this long for another load into the same warehouse to end, then exit 2 naming it (default "
        f"${load_lock.WAIT_ENV}, else {load_lock.DEFAULT_WAIT_SECONDS:.0f})",
    )


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def recognised_files(command: str, specs: list[str], framing: str) -> tuple[list[str], list[str]]:
    """(the SMF and event dumps, the other files) among the files that ``specs`` (files, folders,
    globs) name, judged by their first bytes before Spark starts (``mqsmf.inputs``); the other files
    are reported on stderr. InputError for a path that does not exist."""
    from ..cli import InputError, sort_input_files
    from .partitions import expand_paths

    try:
        files = expand_paths(specs)
    except FileNotFoundError as e:
        raise InputError(str(e).removeprefix("mqsmf: ")) from e
    recognised, unrecognised = sort_input_files(command, files, framing)
    return [f.path for f in recognised], [u.path for u in unrecognised]


def files_without_mq_records(spark, raw_schema: str, load_id: str) -> list[str]:
    """Files of a load that held records but none that mqsmf decodes or quarantined (smf_load_audit)."""
    from ..warehouse import AUDIT_TABLE

    rows = spark.sql(
        f"SELECT source_file, sum(records_read) AS r, sum(records_decoded) AS d, sum(records_quarantined) AS q "
        f"FROM `{raw_schema}`.`{AUDIT_TABLE}` WHERE load_id = '{load_id}' GROUP BY source_file"
    ).collect()
    return sorted(r.source_file for r in rows if not (r.d or 0) and not (r.q or 0))


def _load_local(args: argparse.Namespace, root) -> int:
    from pyspark.sql import SparkSession

    from ..cli import emit_json, input_exit_status, show_progress
    from .load import load_files
    from .profile import warehouse_dir
    from .session import load_lock_path, local_session

    files, not_dumps = recognised_files("mqsmf load", args.paths, args.framing)  # before Spark starts
    if not files and not_dumps:
        return input_exit_status(0, len(not_dumps))
    ours = SparkSession.getActiveSession() is None  # stop only a session this command started
    load_id = uuid.uuid4().hex
    # The lock first: a second load waits here, not on the embedded metastore, and gives the lock
    # back only once its Spark session (and the metastore) is closed.
    with load_lock.holding(load_lock_path(root, args.raw_schema), load_id, wait=args.wait, say=_say):
        spark = local_session(root)
        try:
            summary = load_files(
                spark,
                files,
                args.framing,
                args.raw_schema,
                progress=show_progress(args),
                split_bytes=int(args.split_mb * (1 << 20)),
                load_id=load_id,
            )
            no_mq = files_without_mq_records(spark, args.raw_schema, summary.load_id) if summary.files else []
        except Exception as e:
            if "Another instance of Derby" in str(e) or "XSDB6" in str(e):
                raise _MetastoreInUse(
                    f"the metastore in {warehouse_dir(root)} is in use by another Spark process "
                    "(embedded Derby allows one at a time): wait for it, or set MQSMF_WAREHOUSE_DIR"
                ) from e
            raise
        finally:
            if ours:
                spark.stop()
    print(summary)
    print(f"warehouse: {warehouse_dir(root)}")
    quarantined = bool(summary.records_quarantined or summary.quarantine_rows_inserted)
    if quarantined:
        print(
            f"mqsmf load: {summary.records_quarantined:,} records quarantined (smf_quarantine, load {summary.load_id})",
            file=sys.stderr,
        )
    for path in no_mq:
        print(
            f"mqsmf load: {path}: no IBM MQ statistics records (SMF 115/116) that mqsmf decodes; nothing loaded from it",
            file=sys.stderr,
        )
    rc = input_exit_status(len(files) - len(no_mq), len(not_dumps) + len(no_mq), quarantined)
    if args.json_summary:
        from dataclasses import asdict

        emit_json(
            args,
            {
                **asdict(summary),
                "warehouse": str(warehouse_dir(root)),
                "files_without_mq_records": no_mq,
                "files_not_dumps": not_dumps,
                "exit_status": rc,
            },
        )
    return rc


def _load_through_dbt(args: argparse.Namespace, root) -> int:
    """The load as the Thrift server's application runs it (``dbt run-operation load_smf_files``).
    The lock is taken there, by the plan; this process says whom it waits for when it sees the
    lock (a warehouse folder on this machine) and turns the plan's LoadBusy into exit 2."""
    from dbt.cli.main import dbtRunner

    from .session import load_lock_path

    paths = [os.path.abspath(p) if os.path.exists(p) else p for p in args.paths]
    wait = load_lock.wait_seconds(args.wait)  # counted from now, whenever the plan is read
    dbt_vars = {
        "smf_paths": paths, "smf_framing": args.framing, "raw_schema": args.raw_schema,
        "smf_load_wait": {"until": time.time() + wait, "seconds": wait},
    }  # fmt: skip
    running = load_lock.running_load(load_lock_path(root, args.raw_schema))
    if running:
        _say(f"mqsmf load: waiting for {running}")
    if args.split_mb != 64:
        print("mqsmf: --split-mb applies to --target local only; the cluster load uses the default", file=sys.stderr)
    if args.json_summary:
        print("mqsmf: --json applies to --target local only", file=sys.stderr)
    errors: list[str] = []  # dbt logs a failed operation's error; its result carries no message

    def keep_errors(event) -> None:
        if event.info.level == "error":
            errors.append(event.info.msg)

    result = dbtRunner(callbacks=[keep_errors]).invoke(
        [
            "run-operation",
            "load_smf_files",
            "--project-dir",
            str(root),
            "--profiles-dir",
            str(root / "profiles"),
            "--target",
            args.target,
            "--vars",
            json.dumps(dbt_vars),
        ]
    )
    if result.success:
        return 0
    busy = load_lock.busy_message("\n".join(errors))
    if busy:
        raise LoadBusy(busy)
    return 1
