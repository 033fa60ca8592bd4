"""Data-quality gate run time: per stage wall time and rows checked.

Two modes:

- ``--warehouse DIR``: an EXISTING warehouse (what ``MQSMF_WAREHOUSE_DIR`` pointed at when it was
  loaded and built, e.g. the large day in ``/work/large-day/warehouse``). Nothing is generated,
  loaded or built; the gate runs on the tables that are there. Stop any other Spark process on that
  warehouse first (its Derby metastore allows one at a time).
- otherwise: generate a day (``--preset``, default ``large-day``: 10 queue managers x 2,000 queues x
  48 half-hour intervals, 960,000 QQST instances; ``--qmgrs/--queues/--intervals`` override it)
  unless its file exists, load it into a warehouse of its own under ``--work``, optionally
  ``dbt build`` it (``--marts``), then run the gate.

Each stage (``--stage raw|marts|all``) runs ``--runs`` times (the first includes warm-up) with every
check, Data Docs (under ``--work``) and dq_violations (``--no-write`` leaves the warehouse's
quality tables alone). Printed: wall time per stage and run, rows checked per frame, checks run,
pass/fail, the gate's failure table, and a closing JSON line with the figures.

Usage:
  python bench/bench_gate.py --warehouse /work/large-day/warehouse [--stage all] [--runs 1]
  python bench/bench_gate.py --work /tmp/bench-gate --queues 50 --intervals 8 --marts
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", help="run on this existing warehouse (no generate, load or build)")
    ap.add_argument("--work", default="/tmp/mqsmf-bench-gate", help="folder for the dump, own warehouse and docs")
    ap.add_argument("--preset", default="large-day", help="generator preset of the generated day")
    ap.add_argument("--qmgrs", type=int, help="override the preset's queue managers")
    ap.add_argument("--queues", type=int, help="override the preset's queues per queue manager")
    ap.add_argument("--intervals", type=int, help="override the preset's intervals")
    ap.add_argument("--marts", action="store_true", help="generated mode: also dbt build (then the marts stage runs)")
    ap.add_argument("--stage", choices=("raw", "marts", "all"), default="all")
    ap.add_argument("--raw-schema", default="smf_raw")
    ap.add_argument(
        "--marts-schema", help="default <MQSMF_SCHEMA or mqsmf>_marts as mqsmf check, else the one *_marts schema"
    )
    ap.add_argument("--quality-schema", default="mqsmf_quality")
    ap.add_argument("--no-write", action="store_true", help="do not write dq_violations / dq_check_results")
    ap.add_argument("--runs", type=int, default=1, help="gate runs per stage (the first one includes warm-up)")
    ap.add_argument("--cores", default="2", help="Spark local cores (MQSMF_SPARK_MASTER local[N])")
    ap.add_argument("--memory", default="3g", help="Spark driver memory (MQSMF_DRIVER_MEMORY)")
    ap.add_argument("--threads", type=int, default=4, help="checkpoints run at once")
    ap.add_argument(
        "--whole-frames",
        action="store_true",
        help="also run each stage the old way, GX on the whole frames (one Spark job per expectation), for an A/B",
    )
    return ap.parse_args(argv)


def _environment(args: argparse.Namespace, work: Path) -> None:
    if args.warehouse:
        warehouse = Path(args.warehouse).resolve()
        if not (warehouse / "metastore_db").is_dir():
            raise SystemExit(f"{warehouse}: no metastore_db here; give the folder MQSMF_WAREHOUSE_DIR named")
        os.environ["MQSMF_WAREHOUSE_DIR"] = str(warehouse)
    else:
        os.environ["MQSMF_WAREHOUSE_DIR"] = str(work / "warehouse")
        os.environ["MQSMF_SPOOL_DIR"] = str(work / "spool")
        os.environ.setdefault("MQSMF_SCHEMA", "bench")
    os.environ["MQSMF_SPARK_MASTER"] = f"local[{args.cores}]"
    os.environ["MQSMF_DRIVER_MEMORY"] = args.memory
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def _generate(args: argparse.Namespace, work: Path) -> Path:
    from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario

    overrides = {k: getattr(args, k) for k in ("qmgrs", "queues", "intervals") if getattr(args, k)}
    name = args.preset + "".join(f"-{k}{v}" for k, v in overrides.items())
    dump = work / f"{name}.dat"
    if dump.exists():
        return dump
    t0 = time.perf_counter()
    manifest = write_scenario(plan_scenario(ScenarioConfig.preset(args.preset, **overrides)), str(dump))
    print(f"generated {dump}: {manifest['file']['size'] / 1e6:,.1f} MB in {time.perf_counter() - t0:,.0f} s")
    return dump


def _table_rows(spark, schema: str) -> dict[str, int]:
    if not spark.catalog.databaseExists(schema):
        return {}
    return {t.name: spark.table(f"{schema}.{t.name}").count() for t in spark.catalog.listTables(schema)}


def _marts_schema(spark, default: str) -> str:
    """The default marts schema, else the one schema named *_marts holding the QSG roll-ups (a
    warehouse built under another MQSMF_SCHEMA)."""
    if spark.catalog.databaseExists(default):
        return default
    found = [
        d.name
        for d in spark.catalog.listDatabases()
        if d.name.endswith("_marts") and spark.catalog.tableExists(f"{d.name}.fct_shared_queue_qsg_stats")
    ]
    return found[0] if len(found) == 1 else default


def main(argv=None) -> int:
    args = parse_args(argv)
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    _environment(args, work)
    dump = None if args.warehouse else _generate(args, work)

    from mqsmf.quality.checks import MARTS, RAW
    from mqsmf.quality.cli import format_result
    from mqsmf.quality.gate import run_gate
    from mqsmf.spark.session import local_session
    from mqsmf.warehouse import marts_schema

    spark = local_session(str(PROJECT))
    spark.sparkContext.setLogLevel("ERROR")
    schemas = {RAW: args.raw_schema, MARTS: args.marts_schema or _marts_schema(spark, marts_schema())}
    figures: dict = {"warehouse": os.environ["MQSMF_WAREHOUSE_DIR"], "cores": args.cores, "stages": []}
    try:
        if dump is not None:
            figures["dump"] = str(dump)
            if not spark.catalog.tableExists(f"{args.raw_schema}.qqst"):
                from mqsmf.spark.load import load_files

                summary = load_files(spark, [str(dump)], raw_schema=args.raw_schema)
                print(f"loaded in {summary.seconds:,.0f} s")
                figures["load_seconds"] = round(summary.seconds, 1)
            if args.marts and not spark.catalog.databaseExists(schemas[MARTS]):
                from mqsmf.pipeline import dbt_build

                t0 = time.perf_counter()
                ok = dbt_build(PROJECT)
                figures["dbt_build_seconds"] = round(time.perf_counter() - t0, 1)
                print(f"dbt build {'passed' if ok else 'FAILED'} in {figures['dbt_build_seconds']:,.0f} s")
        raw_rows = {k: v for k, v in _table_rows(spark, args.raw_schema).items() if k != "smf_quarantine"}
        print(
            f"raw rows ({args.raw_schema}): {sum(raw_rows.values()):,}  "
            + ", ".join(f"{k} {v:,}" for k, v in sorted(raw_rows.items()))
        )
        figures["raw_rows"] = raw_rows
        figures["schemas"] = schemas
        print(f"schemas: raw {schemas[RAW]}, marts {schemas[MARTS]}")

        ways = (True, False) if args.whole_frames else (True,)  # alternating, in one session
        for stage in (RAW, MARTS) if args.stage == "all" else (args.stage,):
            for run, prefilter in ((r, p) for r in range(1, args.runs + 1) for p in ways):
                t0 = time.perf_counter()
                result = run_gate(
                    spark, stage, schemas=schemas, quality_schema=args.quality_schema,
                    docs_dir=work / "data_docs", write=not args.no_write, threads=args.threads, sample_rows=3,
                    prefilter=prefilter,
                )  # fmt: skip
                seconds = time.perf_counter() - t0
                ran = sum(o.status != "skipped" for o in result.outcomes)
                way = "one pass" if prefilter else "whole frames"
                print(
                    f"gate {stage} run {run} ({way}): {seconds:,.1f} s, {ran} checks on {result.rows_checked:,} rows, "
                    f"passed={result.passed}"
                )
                for frame, n in result.frame_rows.items():
                    print(f"    {frame:32s} {n:>12,} rows")
                for frame, reason in result.skipped_frames.items():
                    print(f"    {frame:32s} skipped: {reason}")
                figures["stages"].append(
                    {"stage": stage, "run": run, "way": way, "seconds": round(seconds, 1), "checks": ran,
                     "rows_checked": result.rows_checked, "frame_rows": result.frame_rows, "passed": result.passed}
                )  # fmt: skip
            print(format_result(result))
            print()
        print(json.dumps(figures))
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
