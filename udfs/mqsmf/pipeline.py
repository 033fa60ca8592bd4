"""``mqsmf run``: the main job, end to end on the embedded default.

No files given: generate a queue-sharing-group day (every MQ version, a few MP16 pathologies
injected) under ``target/input``. Then load the dumps into the raw tables, ``dbt build`` the
project in the same process (dbt-spark ``method: session`` reuses the SparkSession), run the
data-quality gate on the raw tables and the marts, write the HTML report (``mqsmf report``), and
print a summary: rows per mart, the top advisories and the report's path. Exit status: 0 all
passed, 1 ``dbt build`` or the gate failed or the report could not be written, 2 a path is missing
or not an SMF dump (nothing is run then).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

# Pathologies the demo day carries, so the advisories have something to say.
DEMO_INJECTIONS = ("BP04", "LOG01", "CF01", "Q03")


def add_subcommand(subparsers) -> None:
    from .cli import _add_json_flag
    from .framing import FRAMINGS

    p = subparsers.add_parser(
        "run",
        help="main job: (generate a QSG day when no files are given) -> load -> dbt build -> gate -> summary",
        description=__doc__.split("\n\n")[1],
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="SMF dumps, folders or globs (default: generate a day)")
    p.add_argument(
        "--framing",
        choices=("auto", *FRAMINGS),
        default="auto",
        help="how records are delimited in the files (default auto: detected per file)",
    )
    p.add_argument("--seed", type=int, default=2026, help="seed of the generated day (default 2026)")
    p.add_argument("--queues", type=int, default=150, help="queues per queue manager in the generated day")
    p.add_argument("--intervals", type=int, default=48, help="intervals in the generated day (default 48 x 30 min)")
    p.add_argument("--project-dir", help="the dbt project (default: found from the current folder)")
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


def run(args: argparse.Namespace) -> int:
    from .cli import InputError, emit_json
    from .spark.session import local_session, resolve_project_dir

    try:
        project = resolve_project_dir(args.project_dir)
    except FileNotFoundError as e:
        raise InputError(str(e).removeprefix("mqsmf: ")) from e
    started = time.perf_counter()
    paths = list(args.paths)
    dbt_vars: dict = {}
    if paths:  # every input checked before anything runs
        from .spark.cli import check_smf_files
        from .spark.partitions import expand_paths

        try:
            check_smf_files(expand_paths(paths), args.framing)
        except FileNotFoundError as e:
            raise InputError(str(e).removeprefix("mqsmf: ")) from e
    else:
        from .generate import site_config_vars

        t0 = _step("generate: no SMF files given, generating a queue-sharing-group day")
        day, manifest = generate_demo_day(project, args.seed, args.queues, args.intervals)
        paths = [str(day)]
        # The generated site's configuration (pool roles, CF structure limits, ...), as a site would
        # configure its own (seeds or vars).
        dbt_vars.update(site_config_vars(manifest))
        _done(t0)

    t0 = _step("load: SMF dumps -> raw tables")
    from .cli import show_progress
    from .spark.load import load_files

    spark = local_session(str(project))
    loaded = load_files(spark, paths, framing=args.framing, progress=show_progress(args))
    print(loaded)
    _done(t0)

    t0 = _step("dbt build")
    ok = dbt_build(project, dbt_vars)
    _done(t0)

    t0 = _step("data-quality gate")
    from .quality.cli import check, exit_status

    docs = project / "target" / "data_docs"  # GX wants an absolute folder
    gate_rc = exit_status(lambda: check(spark, docs=str(docs)))  # as `mqsmf check --stage all` does
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
    rc = 0 if ok and gate_rc == 0 and report else 1
    if args.json_summary:
        from dataclasses import asdict

        emit_json(
            args,
            {
                "exit_status": rc,
                "load": asdict(loaded),
                "dbt_build_passed": ok,
                "gate_exit_status": gate_rc,
                "report": str(report) if report else None,
                **marts,
                "seconds": round(seconds, 1),
            },
        )
    return rc


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
