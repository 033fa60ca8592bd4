"""``mqsmf report [--out target/report] [--target local|cluster]``: the analyst report as one static
HTML page. Imports nothing heavy until the command runs."""

from __future__ import annotations

import argparse
import os
import sys

from ..warehouse import MARTS_SCHEMA_HELP, QUALITY_SCHEMA


def add_subcommand(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write a static HTML report of the marts (summary, advisories, charts) and print its path",
        description="Query the marts and the data-quality gate's results and write one HTML page that opens "
        "from disk without a server or internet: a summary per QSG and queue manager, the MP16 advisory table "
        "(sortable, filterable) and time-series charts with the advisory intervals marked.",
    )
    p.add_argument("--out", help="output folder (default <project>/target/report); the page is <out>/index.html")
    p.add_argument(
        "--target",
        choices=("local", "cluster"),
        default=os.environ.get("MQSMF_TARGET", "local"),
        help="dbt target whose warehouse is read (default: $MQSMF_TARGET or local; cluster: the Thrift server)",
    )
    p.add_argument("--marts-schema", help=MARTS_SCHEMA_HELP)
    p.add_argument("--quality-schema", help=f"schema of dq_violations / dq_check_results (default {QUALITY_SCHEMA})")
    p.add_argument(
        "--from",
        dest="start",
        metavar="WHEN",
        help="only intervals starting at or after WHEN (UTC): 2025-06-02 or 2025-06-02T06:00",
    )
    p.add_argument(
        "--to",
        dest="end",
        metavar="WHEN",
        help="only intervals starting before WHEN (UTC); a date alone includes that whole day",
    )
    p.add_argument(
        "--qmgr",
        action="append",
        default=[],
        metavar="NAME",
        help="only this queue manager (repeat, or comma-separate, for several); with --qsg: both",
    )
    p.add_argument(
        "--qsg",
        action="append",
        default=[],
        metavar="NAME",
        help="only the queue managers of this queue-sharing group and its shared queues and CF structures",
    )
    p.add_argument("--top-queues", type=int, default=10, help="queues charted per queue manager (default 10)")
    p.add_argument("--top-page-sets", type=int, default=4, help="page sets charted per queue manager (default 4)")
    p.add_argument("--top-shared-queues", type=int, default=6, help="shared queues charted (default 6)")
    p.add_argument("--top-pools", type=int, default=8, help="buffer pools charted (default 8)")
    p.add_argument("--max-advisories", type=int, default=2000, help="advisory rows listed, worst first (default 2000)")
    p.add_argument("--project-dir", help="the dbt project (default: found from the current folder)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import default_schemas, write_report
    from .data import Limits, Scope, parse_time

    limits = Limits(
        queues=args.top_queues,
        shared_queues=args.top_shared_queues,
        buffer_pools=args.top_pools,
        page_sets=args.top_page_sets,
        advisories=args.max_advisories,
    )
    if min(limits.queues, limits.shared_queues, limits.buffer_pools, limits.page_sets, limits.advisories) < 0:
        print("mqsmf report: the --top-* and --max-advisories limits must be >= 0", file=sys.stderr)
        return 2
    try:
        scope = Scope(
            start=parse_time(args.start) if args.start else None,
            end=parse_time(args.end, end=True) if args.end else None,
            qmgrs=tuple(n.strip() for v in args.qmgr for n in v.split(",") if n.strip()),
            qsgs=tuple(n.strip() for v in args.qsg for n in v.split(",") if n.strip()),
        )
    except ValueError as e:
        print(f"mqsmf report: {e}", file=sys.stderr)
        return 2
    marts, quality = default_schemas(args.marts_schema, args.quality_schema)
    try:
        if args.target == "cluster":
            from .data import ThriftRunner

            runner = ThriftRunner()
            out = Path(args.out or "target/report")
        else:
            from ..spark.profile import resolve_project_dir
            from ..spark.session import local_session
            from .data import SparkRunner

            project = resolve_project_dir(args.project_dir)
            runner = SparkRunner(local_session(project))
            out = Path(args.out) if args.out else project / "target" / "report"
        path = write_report(runner, out, marts, quality, limits, scope)
    except (FileNotFoundError, RuntimeError) as e:
        print(e, file=sys.stderr)
        return 2
    print(f"report: {path}")
    return 0
