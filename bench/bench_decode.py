"""Decode throughput on a large input built by repeating the shared samples' records.

Prints MB/s and records/s for framing + decoding of every structure (typed Arrow batches), one
core: each of ``--repeat`` passes over the file, and their median (a pass lasts about a second, and
this VM's speed swings by a third from one second to the next: one pass proves little).
Usage: python bench/bench_decode.py [--mb 200] [--framing rdw|bdw|nordw] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from udfs.smf_samples import SAMPLES, to_bdw, to_nordw  # noqa: E402

from mqsmf.reader import FileReport, iter_file  # noqa: E402


def build_input(mb: int, framing: str) -> str:
    unit = (SAMPLES / "TESTCHL.dat").read_bytes() + (SAMPLES / "TEST115.dat").read_bytes()
    unit = {"rdw": lambda d: d, "bdw": to_bdw, "nordw": to_nordw}[framing](unit)
    copies = max(1, (mb << 20) // len(unit) + 1)
    fd, path = tempfile.mkstemp(suffix=f".{framing}", prefix="mqsmf-bench-")
    with os.fdopen(fd, "wb") as f:
        for _ in range(copies):
            f.write(unit)
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--framing", default="rdw", choices=("rdw", "bdw", "nordw"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    path = build_input(args.mb, args.framing)
    try:
        size = os.path.getsize(path)
        passes = []
        for _ in range(max(1, args.repeat)):
            report = FileReport(path)
            rows = 0
            t0, c0 = time.perf_counter(), time.process_time()
            for _name, batch in iter_file(path, framing=args.framing, report=report):
                rows += batch.num_rows
            passes.append((time.perf_counter() - t0, time.process_time() - c0))
        wall, cpu = statistics.median(w for w, _ in passes), statistics.median(c for _, c in passes)
        records = sum(report.read.values())
        print(f"input            {size / 1e6:10.1f} MB ({args.framing}), {records:,} records, {rows:,} rows")
        print("passes (MB/s)    " + ", ".join(f"{size / 1e6 / w:.1f}" for w, _ in passes))
        print(f"median wall time {wall:10.2f} s   (cpu {cpu:.2f} s)")
        print(f"throughput       {size / 1e6 / wall:10.1f} MB/s (median of {len(passes)} passes)")
        print(f"records/s        {records / wall:10,.0f}")
        print(f"rows/s           {rows / wall:10,.0f}")
        print(f"peak RSS         {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:10.0f} MB")
        print(f"quarantined      {len(report.quarantine):10d}")
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
