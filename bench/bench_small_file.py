"""Fixed cost of reading a small file: the time ``read_file`` takes on the 7 KB TEST115 sample
(4 records, 17 rows), where nearly all of it is per-call overhead, not data.

Prints the first call (imports, layout tables), the median and mean wall time of the following
calls and their CPU time.
Usage: python bench/bench_small_file.py [--calls 300] [--file PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from udfs.smf_samples import SAMPLES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--file", default=str(SAMPLES / "TEST115.dat"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    from mqsmf import read_file

    tables, report = read_file(args.file)
    first = time.perf_counter() - t0
    times = []
    cpu0 = time.process_time()
    for _ in range(args.calls):
        t = time.perf_counter()
        read_file(args.file)
        times.append(time.perf_counter() - t)
    cpu = (time.process_time() - cpu0) / args.calls
    rows = sum(t.num_rows for t in tables.values())
    print(f"file             {args.file} ({report.size:,} bytes, {sum(report.read.values())} records, {rows} rows)")
    print(f"first call       {first * 1e3:10.1f} ms (imports and layout tables included)")
    print(f"per file median  {statistics.median(times) * 1e3:10.2f} ms over {args.calls} calls")
    print(f"per file mean    {statistics.fmean(times) * 1e3:10.2f} ms")
    print(f"per file CPU     {cpu * 1e3:10.2f} ms (process time: less sensitive to a loaded machine)")
    print(f"files/s          {len(times) / sum(times):10.0f}")


if __name__ == "__main__":
    main()
