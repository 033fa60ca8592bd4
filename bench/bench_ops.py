"""Daily operations figures (issue 16): a large day end to end, a week of days, load memory.

Every figure is measured in this one run, on this machine, in a throw-away warehouse; ratios are
what to compare when the machine is shared. Three parts (``--part``, default all):

- ``day``: ``mqsmf generate --preset large-day`` (or smaller with --qmgrs/--queues/--intervals),
  then the decode-only rate of the same file (framing + every structure to Arrow, one process =
  one core), the Spark load (MB/s of input), ``dbt build``, the gate (``mqsmf check``) and the
  report, and their sum. The C formatter (ibm-messaging/mq-smf-csv) is run on the same file when
  ``--c-formatter PATH`` names its binary; otherwise the load is compared with the decode-only
  rate and the line says so.
- ``week``: seven generated days (consecutive dates), loaded one after another into one warehouse,
  each followed by ``dbt build`` and the gate on what changed; prints day 1's and day 7's
  load + build + gate and the ratio (day 7 / day 1).
- ``memory``: peak RSS of a whole ``mqsmf load`` process tree (Python, Spark JVM, Python workers),
  in a fresh warehouse, for 1, 2, ... N copies of the day (distinct dates).

Usage (the full figures; about 45 minutes on a quiet 2-core machine):

    python bench/bench_ops.py --part all --preset large-day --memory-days 4

Small proof that it works (a few minutes): python bench/bench_ops.py --qmgrs 2 --queues 40
--intervals 8 --week-queues 20 --memory-days 2
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
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START = datetime(2025, 6, 2, tzinfo=UTC)


def generate(out: Path, args, day: int = 0, queues: int | None = None) -> Path:
    if out.exists():
        return out
    cmd = [sys.executable, "-m", "mqsmf.cli", "generate", "--out", str(out), "--seed", str(100 + day)]
    cmd += ["--start", (START + timedelta(days=day)).strftime("%Y-%m-%dT%H:%M:%SZ")]
    if args.preset and queues is None:
        cmd += ["--preset", args.preset]
    else:
        cmd += ["--qmgrs", str(args.qmgrs), "--queues", str(queues or args.queues), "--intervals", str(args.intervals)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def decode_rate(path: Path) -> float:
    """MB/s of framing + decoding every structure to typed Arrow batches, in this process (one core)."""
    from mqsmf.decode import TYPED
    from mqsmf.reader import FileReport, iter_file

    t = time.perf_counter()
    for _name, _batch in iter_file(str(path), None, "auto", TYPED, report=FileReport(str(path))):
        pass
    return path.stat().st_size / 1e6 / (time.perf_counter() - t)


def c_formatter_rate(binary: str, path: Path, work: Path) -> float:
    out = work / "csv"
    out.mkdir(exist_ok=True)
    t = time.perf_counter()
    subprocess.run([binary, "-i", str(path), "-o", str(out) + "/"], check=True, stdout=subprocess.DEVNULL)
    return path.stat().st_size / 1e6 / (time.perf_counter() - t)


def timed(fn, *a, **kw) -> tuple[float, object]:
    t = time.perf_counter()
    value = fn(*a, **kw)
    return time.perf_counter() - t, value


def gate(project: Path, *extra: str) -> int:
    from mqsmf.cli import main

    return main(["check", "--stage", "all", "--project-dir", str(project), "--no-docs", *extra])


def part_day(args, work: Path) -> None:
    from mqsmf.pipeline import dbt_build
    from mqsmf.report import write_local_report
    from mqsmf.spark.load import load_files
    from mqsmf.spark.session import local_session

    day = generate(work / "day.dat", args)
    mb = day.stat().st_size / 1e6
    print(f"input: {day} {mb:,.1f} MB", flush=True)
    rate = decode_rate(day)
    print(f"decode only (framing + every structure, 1 process): {rate:8.1f} MB/s", flush=True)
    if args.c_formatter:
        c_rate = c_formatter_rate(args.c_formatter, day, work)
        reference = f"C formatter (mq-smf-csv) file-to-CSV {c_rate:.1f} MB/s"
    else:
        c_rate = None
        reference = "C formatter not available here (no --c-formatter): compared with decode-only instead"
    t0 = time.perf_counter()
    spark = local_session(ROOT)
    spark.sql("SELECT 1").collect()
    session = time.perf_counter() - t0
    secs, summary = timed(load_files, spark, [str(day)])
    print(summary, flush=True)
    build, ok = timed(dbt_build, ROOT)
    check, rc = timed(gate, ROOT)
    report_s, _ = timed(write_local_report, spark, ROOT)
    total = session + secs + build + check + report_s
    print("\n== large day end to end")
    print(f"spark session start      {session:8.1f} s")
    print(f"load                     {secs:8.1f} s  {mb / secs:8.1f} MB/s  (target >= 37 MB/s)")
    print(f"  vs decode only         {mb / secs / rate:8.2f} x   ({reference})")
    if c_rate:
        print(f"  vs C formatter         {mb / secs / c_rate:8.2f} x")
    print(f"dbt build                {build:8.1f} s  ({'ok' if ok else 'FAILED'})")
    print(f"gate (changed dates)     {check:8.1f} s  (exit {rc})")
    print(f"report                   {report_s:8.1f} s")
    print(f"end to end               {total:8.1f} s  (target <= 120 s on 2 cores)")
    steps = sorted(summary.step_seconds.items(), key=lambda kv: -kv[1])[:8]
    print("load's slowest steps: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps), flush=True)


def part_week(args, work: Path) -> None:
    from mqsmf.pipeline import dbt_build
    from mqsmf.spark.load import load_files
    from mqsmf.spark.session import local_session

    spark = local_session(ROOT)
    # Schemas of its own: the week starts from an empty warehouse.
    os.environ["MQSMF_SCHEMA"] = "bench_week"
    raw, schemas = "bench_week_raw", ["--raw-schema", "bench_week_raw", "--marts-schema", "bench_week_marts"]
    schemas += ["--quality-schema", "bench_week_quality"]
    days = []
    for d in range(7):
        path = generate(work / f"week-{d + 1}.dat", args, day=d, queues=args.week_queues)
        load_s, _ = timed(load_files, spark, [str(path)], raw_schema=raw)
        build_s, ok = timed(dbt_build, ROOT, {"raw_schema": raw})
        gate_s, rc = timed(gate, ROOT, *schemas)
        days.append((load_s, build_s, gate_s))
        # The metastore exists (opened by the day part or by day 1): a site's daily load, unlike the
        # day part's first load, which also creates the metastore and the tables.
        rate = path.stat().st_size / 1e6 / load_s
        print(
            f"day {d + 1}: load {load_s:6.1f} s ({rate:5.1f} MB/s), dbt build {build_s:6.1f} s ({'ok' if ok else 'FAILED'}), "
            f"gate {gate_s:6.1f} s (exit {rc}) = {load_s + build_s + gate_s:6.1f} s",
            flush=True,
        )
    first, last = sum(days[0]), sum(days[-1])
    print("\n== a week, one day at a time")
    print(f"day 1 load+build+gate {first:8.1f} s")
    print(f"day 7 load+build+gate {last:8.1f} s")
    print(f"ratio day 7 / day 1   {last / first:8.2f}   (target <= 1.2)")
    for i, name in enumerate(("load", "build", "gate")):
        print(
            f"  {name:6s} day 1 {days[0][i]:6.1f} s, day 7 {days[-1][i]:6.1f} s, ratio {days[-1][i] / days[0][i]:.2f}"
        )


def _tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            rss[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total


def part_memory(args, work: Path) -> None:
    print("\n== load peak RSS (Python + Spark JVM + workers) as the input grows")
    for n in range(1, args.memory_days + 1):
        files = [str(generate(work / f"mem-{d + 1}.dat", args, day=d)) for d in range(n)]
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        env = {**os.environ, "MQSMF_WAREHOUSE_DIR": str(work / f"mem-wh-{n}"), "MQSMF_SPOOL_DIR": str(work / "spool")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "mqsmf.cli", "load", *files, "--no-progress"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        peak, t0 = 0, time.perf_counter()
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.2)
        secs = time.perf_counter() - t0
        print(
            f"{n} day(s), {mb:8.1f} MB: peak RSS {peak / 2**20:8.0f} MiB, {secs:6.1f} s (exit {proc.returncode})",
            flush=True,
        )
        shutil.rmtree(work / f"mem-wh-{n}", ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("all", "day", "week", "memory"), default="all")
    ap.add_argument("--preset", default=None, help="generator preset of the day (large-day); else the sizes below")
    ap.add_argument("--qmgrs", type=int, default=2)
    ap.add_argument("--queues", type=int, default=40)
    ap.add_argument("--intervals", type=int, default=48)
    ap.add_argument(
        "--week-queues", type=int, default=None, help="queues per qmgr of the week's days (default: --queues)"
    )
    ap.add_argument("--memory-days", type=int, default=2)
    ap.add_argument("--c-formatter", help="binary of ibm-messaging/mq-smf-csv, to measure its file-to-CSV rate")
    ap.add_argument("--keep", help="folder for the generated inputs (kept between runs)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mqsmf-bench-ops-"))
    inputs = Path(args.keep) if args.keep else work
    inputs.mkdir(parents=True, exist_ok=True)
    os.environ["MQSMF_WAREHOUSE_DIR"] = str(work / "warehouse")
    os.environ["MQSMF_SPOOL_DIR"] = str(work / "spool")
    os.environ["MQSMF_PROJECT_DIR"] = str(ROOT)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    print(json.dumps({"cores": os.cpu_count(), "load_average": os.getloadavg(), "args": vars(args)}))
    try:
        if args.part in ("all", "day"):
            part_day(args, inputs)
        if args.part in ("all", "week"):
            part_week(args, inputs)
        if args.part in ("all", "memory"):
            part_memory(args, inputs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
