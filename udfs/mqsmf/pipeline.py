"""``mqsmf run``: the main job, end to end on the embedded default, safe to schedule.

Input: the dumps named (files, folders, globs), or else the landing folder (``--landing``,
``$MQSMF_LANDING_DIR``, or ``<project>/landing`` when it exists). SMF dumps and dmpmqmsg dumps of
queue depth events are recognised by their content; any other file is reported and skipped. From a
landing folder, each file the load committed moves to ``_loaded/<date>/`` and each file that is not
a dump to ``_rejected/<date>/`` inside it (folders starting with '_' are never read as input), so the
next run reads only what arrived since. Synthetic data only with ``--demo``: a generated
queue-sharing-group day, loaded into the demo's own warehouse (``<project>/target/demo/warehouse``).

Then: load the dumps into the raw tables, ``dbt build`` the project in the same process (dbt-spark
``method: session`` reuses the SparkSession), run the data-quality gate on the raw tables and the
marts (the options of ``mqsmf check``: ``--fail-on``, ``--baseline``, ``--junit``, ...), write the
HTML report (``mqsmf report``), and print a summary: rows per mart, the top advisories and the
report's path. Exit status: 0 all passed; 1 the load quarantined spans or skipped a file that is not a
dump, ``dbt build`` or the gate failed, or the report could not be written; 2 nothing could run (a
path is missing, no input is configured, no file is a dump).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

# Pathologies the demo day carries, so the advisories have something to say.
DEMO_INJECTIONS = ("BP04", "LOG01", "CF01", "Q03")
LANDING_ENV = "MQSMF_LANDING_DIR"
LOADED_FOLDER, REJECTED_FOLDER = "_loaded", "_rejected"  # inside the landing folder, never read as input


def add_subcommand(subparsers) -> None:
    from .cli import _add_json_flag
    from .framing import FRAMINGS
    from .quality.checks import SEVERITIES

    p = subparsers.add_parser(
        "run",
        help="main job: the dumps given or the landing folder (--demo: a generated day) -> load -> dbt build -> gate -> report",
        description=__doc__.split("\n\n")[1],
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="SMF or dmpmqmsg dumps, folders or globs (default: the landing folder)",
    )
    p.add_argument(
        "--landing",
        metavar="DIR",
        help=f"the landing folder read when no PATH is given (default ${LANDING_ENV}, else <project>/landing); "
        f"loaded files move to {LOADED_FOLDER}/<date>/, files that are not dumps to {REJECTED_FOLDER}/<date>/",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="generate a queue-sharing-group day and run on it, in the demo's own warehouse "
        "(<project>/target/demo/warehouse), never the site's",
    )
    p.add_argument(
        "--framing",
        choices=("auto", *FRAMINGS),
        default="auto",
        help="how records are delimited in the files (default auto: detected per file)",
    )
    p.add_argument("--seed", type=int, default=2026, help="--demo: seed of the generated day (default 2026)")
    p.add_argument("--queues", type=int, default=150, help="--demo: queues per queue manager (default 150)")
    p.add_argument("--intervals", type=int, default=48, help="--demo: intervals of the day (default 48 x 30 min)")
    p.add_argument("--project-dir", help="the dbt project (default: found from the current folder)")
    from .spark.cli import add_wait_flag

    add_wait_flag(p)
    gate = p.add_argument_group("the data-quality gate (as mqsmf check --stage all)")
    gate.add_argument("--fail-on", choices=SEVERITIES, default=None, help="lowest severity that fails the gate")
    gate.add_argument("--strict", action="store_true", help="same as --fail-on warn")
    gate.add_argument("--baseline", metavar="FILE", help="accepted violations: only new ones fail the gate")
    gate.add_argument("--junit", metavar="FILE", help="write the gate's JUnit XML")
    gate.add_argument("--markdown", metavar="FILE", help="write the gate's Markdown summary")
    gate.add_argument("--no-docs", action="store_true", help="do not build Data Docs")
    _add_json_flag(p, "the run's summary (load, dbt, gate, marts, top advisories, report)")
    p.set_defaults(func=run)


def _step(title: str) -> float:
    print(f"\n== {title}", flush=True)
    return time.perf_counter()


def _done(t0: float) -> None:
    print(f"   ({time.perf_counter() - t0:,.1f} s)", flush=True)


def generate_demo_day(project: Path, seed: int, queues: int, intervals: int) -> tuple[Path, dict]:
    """The generated day's file and its manifest."""
    from .generate import VERSIONS, ScenarioConfig, Target, plan_scenario, write_scenario

    out = project / "target" / "input" / f"qsg-day-seed{seed}.dat"
    out.parent.mkdir(parents=True, exist_ok=True)
    config = ScenarioConfig(
        seed=seed,
        qmgrs=len(VERSIONS),  # one queue manager per MQ version, so every QQST generation is present
        lpars=3,
        queues=queues,
        intervals=intervals,
        inject=tuple(Target.parse(r) for r in DEMO_INJECTIONS),
    )
    manifest = write_scenario(plan_scenario(config), str(out))  # runs the model once, streaming
    print(f"   generated {out} ({out.stat().st_size / 1e6:,.1f} MB), manifest {out}.manifest.json")
    return out, manifest


def landing_dir(args: argparse.Namespace, project: Path) -> Path | None:
    """The landing folder: --landing, $MQSMF_LANDING_DIR, or <project>/landing when it exists."""
    named = args.landing or os.environ.get(LANDING_ENV)
    if named:
        return Path(named).expanduser().resolve()
    default = project / "landing"
    return default if default.is_dir() else None


def file_away(landing: Path, paths: list[str], folder: str) -> None:
    """Move files of the landing folder into ``folder/<today>/`` inside it (keeping their place below
    the landing folder), so the next run does not read them again. A name taken gets a suffix."""
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    for path in paths:
        src = Path(path)
        dest = landing / folder / day / src.relative_to(landing)
        dest.parent.mkdir(parents=True, exist_ok=True)
        n = 1
        while dest.exists():
            dest = dest.with_name(f"{src.name}.{n}")
            n += 1
        shutil.move(str(src), str(dest))


def run(args: argparse.Namespace) -> int:
    from .cli import EXIT_DATA, InputError, emit_json, input_exit_status, show_progress
    from .spark.profile import resolve_project_dir
    from .spark.session import local_session

    try:
        project = resolve_project_dir(args.project_dir)
    except FileNotFoundError as e:
        raise InputError(str(e).removeprefix("mqsmf: ")) from e
    started = time.perf_counter()
    dbt_vars: dict = {}
    landing = None
    if args.demo:
        if args.paths or args.landing:
            raise InputError("--demo generates its own day: give no PATH and no --landing with it")
        # The demo never touches the site's warehouse.
        os.environ["MQSMF_WAREHOUSE_DIR"] = str(project / "target" / "demo" / "warehouse")
        from .generate import site_config_vars

        t0 = _step("generate: a queue-sharing-group day (--demo)")
        day, manifest = generate_demo_day(project, args.seed, args.queues, args.intervals)
        files, skipped, rejected = [str(day)], 0, []
        # The generated site's configuration (pool roles, CF structure limits, ...), as a site would
        # configure its own (seeds or vars).
        dbt_vars.update(site_config_vars(manifest))
        _done(t0)
    else:
        specs = list(args.paths)
        if not specs:
            landing = landing_dir(args, project)
            if landing is None:
                raise InputError(
                    f"no dumps to read: name files or folders, give --landing DIR (or set {LANDING_ENV}, or create "
                    f"{project / 'landing'}); `mqsmf run --demo` runs on a generated day"
                )
            if not landing.is_dir():
                raise InputError(f"the landing folder {landing} does not exist")
            specs = [str(landing)]
        from .spark.cli import recognised_files

        files, rejected = recognised_files("mqsmf run", specs, args.framing)
        skipped = len(rejected)
        if landing is not None and rejected:
            file_away(landing, rejected, REJECTED_FOLDER)
            print(f"   {len(rejected)} files that are not dumps moved to {landing / REJECTED_FOLDER}", file=sys.stderr)
        if not files:
            if skipped:
                return input_exit_status(0, skipped)
            print(f"nothing to load: no dump has arrived in {landing or ', '.join(specs)}")
            return 0

    # One load at a time per warehouse (mqsmf.load_lock): on the embedded warehouse the whole run
    # holds the lock, as its Spark session holds the metastore until the run ends.
    from pyspark.sql import SparkSession

    from . import load_lock
    from .spark.session import load_lock_path

    run_id = uuid.uuid4().hex
    lock = load_lock_path(project)
    try:
        load_lock.acquire(lock, run_id, wait=args.wait, say=lambda text: print(text, file=sys.stderr, flush=True))
    except load_lock.LoadBusy as e:
        raise InputError(str(e).removeprefix("mqsmf: ")) from None
    ours = SparkSession.getActiveSession() is None
    try:
        t0 = _step("load: dumps -> raw tables")
        from .spark.load import load_files

        spark = local_session(str(project))
        loaded = load_files(spark, files, framing=args.framing, progress=show_progress(args), load_id=run_id)
        print(loaded)
        quarantined = bool(loaded.records_quarantined or loaded.quarantine_rows_inserted)
        if quarantined:
            print(f"   {loaded.records_quarantined:,} records quarantined (smf_quarantine, load {loaded.load_id})")
        if landing is not None:
            file_away(landing, files, LOADED_FOLDER)
            print(f"   {len(files)} loaded files moved to {landing / LOADED_FOLDER}")
        _done(t0)

        t0 = _step("dbt build")
        ok = dbt_build(project, dbt_vars)
        _done(t0)

        t0 = _step("data-quality gate")
        from .quality.checks import ERROR, WARN
        from .quality.cli import _out_path, check, exit_status, read_baseline_or_fail

        docs = None if args.no_docs else str(project / "target" / "data_docs")  # GX wants an absolute folder
        fail_on = args.fail_on or (WARN if args.strict else ERROR)

        def gate() -> int:  # as `mqsmf check --stage all` does, with run's gate options
            outputs = {"junit": _out_path(args.junit), "markdown": _out_path(args.markdown)}
            baseline, baseline_path = read_baseline_or_fail(args.baseline)
            return check(
                spark, docs=docs, fail_on=fail_on, baseline=baseline, baseline_path=baseline_path, outputs=outputs
            )

        gate_rc = exit_status(gate)
        _done(t0)

        # -- report (mqsmf.report): the analyst's static HTML page of the marts
        t0 = _step("report: static HTML of the marts")
        from .report import write_local_report

        try:
            report = write_local_report(spark, project)
            print(f"   report: {report}")
        except RuntimeError as e:  # no marts (dbt build failed): say so, the exit status already tells
            report = None
            print(f"   report not written: {e}")
        _done(t0)
        # -- end report

        _step("summary")
        marts = mart_summary(spark)
        print_summary(marts)
        seconds = time.perf_counter() - started
        print(
            f"\nmain job: dbt build {'passed' if ok else 'FAILED'}, gate {'passed' if gate_rc == 0 else 'FAILED'}, "
            f"{seconds:,.0f} s in all"
        )
        if report:
            print(f"report: {report}")
        if args.demo:
            print(f"demo warehouse: {os.environ['MQSMF_WAREHOUSE_DIR']} (export MQSMF_WAREHOUSE_DIR=... to query it)")
        rc = 0 if ok and gate_rc == 0 and report else EXIT_DATA
        rc = max(rc, input_exit_status(len(files), skipped, quarantined))
        if args.json_summary:
            from dataclasses import asdict

            emit_json(
                args,
                {
                    "exit_status": rc,
                    "load": asdict(loaded),
                    "files_not_dumps": rejected,
                    "dbt_build_passed": ok,
                    "gate_exit_status": gate_rc,
                    "report": str(report) if report else None,
                    **marts,
                    "seconds": round(seconds, 1),
                },
            )
        return rc
    finally:
        active = SparkSession.getActiveSession()
        if ours and active is not None:
            active.stop()  # before the lock is given back: the next load opens the metastore
        load_lock.release(lock, run_id)


def dbt_build(project: Path, dbt_vars: dict | None = None) -> bool:
    from dbt.cli.main import dbtRunner

    args = ["build", "--project-dir", str(project), "--profiles-dir", str(project / "profiles"), "--target", "local"]
    if dbt_vars:
        args += ["--vars", json.dumps(dbt_vars)]
    result = dbtRunner().invoke(args)
    return bool(result.success)


def mart_summary(spark) -> dict:
    """Rows per mart and the top advisories (worst severity first, then most intervals)."""
    from .warehouse import marts_schema

    schema = marts_schema()  # the dbt target's, as the gate and the report take it
    if not spark.catalog.databaseExists(schema):
        return {"marts_schema": None, "mart_rows": {}, "top_advisories": []}
    tables = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {schema}").collect() if not r.isTemporary)
    rows = {t: spark.table(f"{schema}.{t}").count() for t in tables}
    top = []
    if "fct_mp16_advisories" in tables:
        top = [
            r.asDict()
            for r in spark.sql(
                f"""
                select severity, rule_id, qmgr_name, object_type, object_name, count(*) as intervals,
                       max(observed_value) as worst_observed
                from {schema}.fct_mp16_advisories
                group by severity, rule_id, qmgr_name, object_type, object_name
                order by case severity when 'critical' then 0 when 'warning' then 1 else 2 end, intervals desc
                limit 10
                """
            ).collect()
        ]
    return {"marts_schema": schema, "mart_rows": rows, "top_advisories": top}


def print_summary(summary: dict) -> None:
    schema = summary["marts_schema"]
    if schema is None:
        print("   no marts schema found")
        return
    print(f"   rows per mart ({schema}):")
    for t, n in summary["mart_rows"].items():
        print(f"     {t:40s} {n:12,d}")
    if summary["top_advisories"]:
        print("   top advisories:")
        for r in summary["top_advisories"]:
            print(
                f"     {r['severity']:9s} {r['rule_id']:6s} {r['qmgr_name'] or '':5s} {r['object_type']}:{r['object_name']} "
                f"in {r['intervals']} intervals (worst {r['worst_observed']})"
            )
