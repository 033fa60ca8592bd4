"""Wall times of the same generated day, embedded (``local`` target) vs a local Spark standalone
cluster with two workers (``cluster`` target): load, dbt build and the data-quality gate, each.

Embedded: one process, one SparkSession (``local_session``): ``load_files``, ``dbt build --target
local`` in the same process (dbt-spark ``method: session`` reuses the session), ``mqsmf check
--stage all``. Cluster (``mqsmf cluster start``: master, two one-core workers, Thrift server):
``mqsmf load --target cluster`` (the Thrift server's driver plans, the executors decode), ``dbt
build --target cluster`` (thrift), the Thrift server hands the Derby metastore over, ``mqsmf
check --stage all`` as a Spark application on the master. Each side has its own throw-away
warehouse; cluster start-up and hand-over are reported apart. Data Docs are off on both sides.

Usage: python bench/bench_cluster.py [--qmgrs 4] [--queues 40] [--intervals 48] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def generate_day(path: Path, qmgrs: int, queues: int, intervals: int, seed: int) -> None:
    from mqsmf.generate import ScenarioConfig, Target, plan_scenario, write_scenario

    inject = tuple(Target.parse(r) for r in ("BP04", "LOG01", "CF01", "Q03"))
    config = ScenarioConfig(
        seed=seed, qmgrs=qmgrs, lpars=min(3, qmgrs), queues=queues, intervals=intervals, inject=inject
    )
    write_scenario(plan_scenario(config), str(path))


def timed(label: str, seconds: dict[str, float], fn, *args) -> object:
    t0 = time.perf_counter()
    out = fn(*args)
    seconds[label] = time.perf_counter() - t0
    print(f"   {label:<22s} {seconds[label]:8.1f} s", flush=True)
    return out


def run_checked(cmd: list[str], env: dict[str, str], log: Path) -> None:
    with open(log, "w") as out:
        rc = subprocess.run(cmd, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT).returncode
    if rc:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"{cmd[:4]} failed (exit {rc}); see {log}:\n{tail}")


def embedded(day: Path, work: Path) -> dict[str, float]:
    """In a child process (this one keeps no JVM): see ``_embedded_child``."""
    out = work / "embedded.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQSMF_")}
    env.update(
        MQSMF_PROJECT_DIR=str(ROOT),
        MQSMF_WAREHOUSE_DIR=str(work / "embedded"),
        MQSMF_SPOOL_DIR=str(work / "embedded-spool"),
        PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable),
    )
    run_checked([sys.executable, __file__, "--embedded-child", str(day), str(out)], env, work / "embedded.log")
    return json.loads(out.read_text())


def _embedded_child(day: str, out: str) -> None:
    from dbt.cli.main import dbtRunner

    from mqsmf.cli import main as cli_main
    from mqsmf.spark.load import load_files
    from mqsmf.spark.session import local_session

    seconds: dict[str, float] = {}
    spark = local_session(ROOT)
    target = Path(os.environ["MQSMF_WAREHOUSE_DIR"])
    dbt_args = ["--project-dir", str(ROOT), "--profiles-dir", str(ROOT / "profiles"), "--target", "local"]
    dbt_args += ["--target-path", str(target / "dbt"), "--log-path", str(target / "dbt-logs")]

    def build() -> None:
        if not dbtRunner().invoke(["build", *dbt_args]).success:
            raise SystemExit("embedded dbt build failed")

    def gate() -> None:
        if cli_main(["check", "--stage", "all", "--no-docs", "--project-dir", str(ROOT)]) != 0:
            raise SystemExit("embedded gate failed")

    timed("load", seconds, load_files, spark, [day])
    timed("dbt build", seconds, build)
    timed("gate", seconds, gate)
    spark.stop()
    Path(out).write_text(json.dumps(seconds))


def cluster(day: Path, work: Path, workers: int) -> dict[str, float]:
    from mqsmf.spark import cluster as cl

    seconds: dict[str, float] = {}
    state = work / "cluster"
    try:
        c = timed("cluster start", seconds, lambda: cl.start(state, workers=workers))
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQSMF_")}
        env.update(MQSMF_PROJECT_DIR=str(ROOT), **cl.app_env(c))
        mqsmf = [sys.executable, "-m", "mqsmf.cli"]
        dbt = str(Path(sys.executable).with_name("dbt"))
        dbt_dirs = ["--target-path", str(work / "cluster-dbt"), "--log-path", str(work / "cluster-dbt-logs")]
        profile = ["--project-dir", str(ROOT), "--profiles-dir", str(ROOT / "profiles"), "--target", "cluster"]
        load = [*mqsmf, "load", "--target", "cluster", str(day), "--project-dir", str(ROOT)]
        timed("load", seconds, run_checked, load, env, work / "cluster-load.log")
        timed("dbt build", seconds, run_checked, [dbt, "build", *profile, *dbt_dirs], env, work / "cluster-dbt.log")
        timed("metastore hand-over", seconds, lambda: cl.stop(state, only=("thrift",)))
        gate = [*mqsmf, "check", "--stage", "all", "--no-docs", "--project-dir", str(ROOT)]
        timed("gate", seconds, run_checked, gate, env, work / "cluster-gate.log")
    finally:
        cl.stop(state)
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qmgrs", type=int, default=4)
    ap.add_argument("--queues", type=int, default=40)
    ap.add_argument("--intervals", type=int, default=48)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", help="work folder to keep (default: a temporary one, removed)")
    ap.add_argument("--embedded-child", nargs=2, metavar=("DAY", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.embedded_child:
        _embedded_child(*args.embedded_child)
        return
    work = Path(args.keep or tempfile.mkdtemp(prefix="mqsmf-bench-cluster-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        day = work / "day.dat"
        generate_day(day, args.qmgrs, args.queues, args.intervals, args.seed)
        print(
            f"day: {args.qmgrs} queue managers x {args.queues} queues x {args.intervals} intervals, "
            f"{day.stat().st_size / 1e6:,.1f} MB; {os.cpu_count()} CPUs",
            flush=True,
        )
        print("embedded (local target):", flush=True)
        local = embedded(day, work)
        print(f"cluster ({args.workers} workers x 1 core):", flush=True)
        remote = cluster(day, work, args.workers)
        print(f"\n{'step':<22s} {'embedded s':>11s} {'cluster s':>10s}")
        for step in ("cluster start", "load", "dbt build", "metastore hand-over", "gate"):
            a, b = local.get(step), remote.get(step)
            print(f"{step:<22s} {'' if a is None else f'{a:11.1f}':>11s} {'' if b is None else f'{b:10.1f}':>10s}")
        steps = ("load", "dbt build", "gate")
        print(f"{'load+build+gate':<22s} {sum(local[s] for s in steps):11.1f} {sum(remote[s] for s in steps):10.1f}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
