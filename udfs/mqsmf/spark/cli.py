"""``mqsmf load PATHS... [--target local|cluster]``: land SMF dumps in the warehouse's raw tables.

``local`` runs the load in an embedded Spark configured like the dbt ``local`` target (same
warehouse, same metastore) with a progress bar (or, with ``MQSMF_SPARK_MASTER`` set, as an
application on that master); ``cluster`` asks dbt to run the on-run-start macro ``load_smf_files``
against the ``cluster`` target: the Thrift server plans the load and its executors decode (it must
see the paths). Also registers ``mqsmf cluster`` (``mqsmf.spark.cluster``). Both run
the statements of ``mqsmf.spark.load.load_plan``. Imports nothing heavy until the command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..framing import FRAMINGS


def add_subcommand(subparsers) -> None:
    from . import cluster

    _add_load(subparsers)
    cluster.add_subcommand(subparsers)  # mqsmf cluster start|stop|status|env


def _add_load(subparsers) -> None:
    p = subparsers.add_parser(
        "load",
        help="load SMF dumps into the warehouse's raw tables (Spark), idempotently",
        description="Decode SMF dumps (files, folders, globs) into the raw tables: one per structure, plus "
        "smf_load_audit and smf_quarantine. Rows already present (same natural key) are not added again.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="SMF dump file, folder or glob")
    p.add_argument(
        "--target",
        choices=("local", "cluster"),
        default=os.environ.get("MQSMF_TARGET", "local"),
        help="dbt target whose warehouse receives the data (default: $MQSMF_TARGET or local)",
    )
    p.add_argument("--framing", choices=("auto", *FRAMINGS), default="auto")
    p.add_argument("--raw-schema", default="smf_raw", help="schema of the raw tables (dbt var raw_schema)")
    p.add_argument("--project-dir", help="the dbt project (default: $MQSMF_PROJECT_DIR, or found from here)")
    p.add_argument(
        "--split-mb",
        type=float,
        default=64,
        help="read RDW files larger than this many MiB as several partitions (default 64; 0: never)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_load)


def _load(args: argparse.Namespace) -> int:
    from .session import resolve_project_dir

    try:
        root = resolve_project_dir(args.project_dir)
        if args.target == "cluster":
            return _load_through_dbt(args, root)
        return _load_local(args, root)
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2


def _load_local(args: argparse.Namespace, root) -> int:
    from pyspark.sql import SparkSession

    from .load import load_files
    from .parts import expand_paths
    from .session import local_session, warehouse_dir

    expand_paths(args.paths)  # a missing path fails here, before Spark starts
    ours = SparkSession.getActiveSession() is None  # stop only a session this command started
    spark = local_session(root)
    try:
        summary = load_files(
            spark,
            args.paths,
            args.framing,
            args.raw_schema,
            progress=not args.no_progress,
            split_bytes=int(args.split_mb * (1 << 20)),
        )
    except Exception as e:
        if "Another instance of Derby" in str(e) or "XSDB6" in str(e):
            print(
                f"mqsmf: the metastore in {warehouse_dir(root)} is in use by another Spark process "
                "(embedded Derby allows one at a time): wait for it, or set MQSMF_WAREHOUSE_DIR",
                file=sys.stderr,
            )
            return 3
        raise
    finally:
        if ours:
            spark.stop()
    print(summary)
    print(f"warehouse: {warehouse_dir(root)}")
    return 0


def _load_through_dbt(args: argparse.Namespace, root) -> int:
    from dbt.cli.main import dbtRunner

    paths = [os.path.abspath(p) if os.path.exists(p) else p for p in args.paths]
    dbt_vars = {"smf_paths": paths, "smf_framing": args.framing, "raw_schema": args.raw_schema}
    if args.split_mb != 64:
        print("mqsmf: --split-mb applies to --target local only; the cluster load uses the default", file=sys.stderr)
    result = dbtRunner().invoke(
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
    return 0 if result.success else 1
