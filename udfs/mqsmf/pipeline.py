"""``mqsmf run``: the main job, end to end on the embedded default.

No files given: generate a queue-sharing-group day (every MQ version, a few MP16 pathologies
injected) under ``target/input``. Then load the dumps into the raw tables, ``dbt build`` the
project in the same process (dbt-spark ``method: session`` reuses the SparkSession), run the
data-quality gate on the raw tables and the marts, write the HTML report (``mqsmf report``), and
print a summary: rows per mart, the top advisories and the report's path. Exit status: 0 all
passed, 1 ``dbt build`` or the gate failed or the report could not be written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# Pathologies the demo day carries, so the advisories have something to say.
DEMO_INJECTIONS = ("BP04", "LOG01", "CF01", "Q03")


def add_subcommand(subparsers) -> None:
    p = subparsers.add_parser(
        "run",
        help="main job: (generate a QSG day when no files are given) -> load -> dbt build -> gate -> summary",
        description=__doc__.split("\n\n")[1],
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="SMF dumps, folders or globs (default: generate a day)")
    p.add_argument("--framing", choices=("auto", "rdw", "bdw", "nordw"), default="auto")
    p.add_argument("--seed", type=int, default=2026, help="seed of the generated day (default 2026)")
    p.add_argument("--queues", type=int, default=150, help="queues per queue manager in the generated day")
    p.add_argument("--intervals", type=int, default=48, help="intervals in the generated day (default 48 x 30 min)")
    p.add_argument("--project-dir", help="the dbt project (default: found from the current folder)")
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
    from .spark.session import local_session, resolve_project_dir

    project = resolve_project_dir(args.project_dir)
    started = time.perf_counter()
    paths = list(args.paths)
    dbt_vars: dict = {}
    if not paths:
        from .generate import buffer_pool_roles

        t0 = _step("generate: no SMF files given, generating a queue-sharing-group day")
        day, manifest = generate_demo_day(project, args.seed, args.queues, args.intervals)
        paths = [str(day)]
        # The generated site's pool roles, as a site would configure its own (seed or var).
        dbt_vars["mp16_buffer_pool_roles"] = buffer_pool_roles(manifest)
        _done(t0)

    t0 = _step("load: SMF dumps -> raw tables")
    from .spark.load import load_files

    spark = local_session(str(project))
    print(load_files(spark, paths, framing=args.framing, progress=sys.stderr.isatty()))
    _done(t0)

    t0 = _step("dbt build")
    ok = dbt_build(project, dbt_vars)
    _done(t0)

    t0 = _step("data-quality gate")
    from .cli import main as cli_main

    docs = project / "target" / "data_docs"  # GX wants an absolute folder
    gate_rc = cli_main(["check", "--stage", "all", "--project-dir", str(project), "--docs", str(docs)])
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
    print_summary(spark)
    print(
        f"\nmain job: dbt build {'passed' if ok else 'FAILED'}, gate {'passed' if gate_rc == 0 else 'FAILED'}, "
        f"{time.perf_counter() - started:,.0f} s in all"
    )
    if report:
        print(f"report: {report}")
    return 0 if ok and gate_rc == 0 and report else 1


def dbt_build(project: Path, dbt_vars: dict | None = None) -> bool:
    from dbt.cli.main import dbtRunner

    args = ["build", "--project-dir", str(project), "--profiles-dir", str(project / "profiles"), "--target", "local"]
    if dbt_vars:
        args += ["--vars", json.dumps(dbt_vars)]
    result = dbtRunner().invoke(args)
    return bool(result.success)


def _marts_schema(spark) -> str | None:
    names = [r[0] for r in spark.sql("SHOW DATABASES").collect()]
    marts = [n for n in names if n.endswith("marts")]
    return marts[0] if marts else None


def print_summary(spark) -> None:
    schema = _marts_schema(spark)
    if schema is None:
        print("   no marts schema found")
        return
    tables = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {schema}").collect() if not r.isTemporary)
    print(f"   rows per mart ({schema}):")
    for t in tables:
        n = spark.table(f"{schema}.{t}").count()
        print(f"     {t:40s} {n:12,d}")
    if "fct_mp16_advisories" in tables:
        top = spark.sql(
            f"""
            select severity, rule_id, qmgr_name, object_type, object_name, count(*) as intervals,
                   max(observed_value) as worst_observed
            from {schema}.fct_mp16_advisories
            group by severity, rule_id, qmgr_name, object_type, object_name
            order by case severity when 'critical' then 0 when 'warning' then 1 else 2 end, intervals desc
            limit 10
            """
        ).collect()
        print("   top advisories:")
        for r in top:
            print(
                f"     {r.severity:9s} {r.rule_id:6s} {r.qmgr_name or '':5s} {r.object_type}:{r.object_name} "
                f"in {r.intervals} intervals (worst {r.worst_observed})"
            )
