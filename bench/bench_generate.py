"""Generate the large day (10 queue managers x 2,000 queues x 48 half-hour intervals) and print
wall time, peak RSS and what was written. The issue asks for under 2 minutes and under 2 GB.

    python bench/bench_generate.py [--out /tmp/large-day.dat] [--framing rdw] [--decode]

``--decode`` also reads the file back (separately timed) and checks nothing is quarantined.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="/tmp/mqsmf-large-day.dat")
    p.add_argument("--framing", choices=("rdw", "bdw", "nordw"), default="rdw")
    p.add_argument("--decode", action="store_true", help="read the file back and count quarantined records")
    args = p.parse_args()

    from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario

    t0 = time.perf_counter()
    manifest = write_scenario(plan_scenario(ScenarioConfig.preset("large-day")), args.out, args.framing)
    wall = time.perf_counter() - t0
    f = manifest["file"]
    print(
        f"large day: {manifest['counts']['instances']['QQST']:,} QQST instances, {f['logical_records']:,} records "
        f"({f['spanned_records']:,} spanned), {f['size'] / 2**20:,.1f} MiB, framing {f['framing']}"
    )
    print(f"generate + write: {wall:.1f} s wall, peak RSS {peak_rss_mb():,.0f} MiB")
    print(f"expected firings in the clean day: {len(manifest['expected_firings'])}")
    if args.decode:
        from mqsmf import iter_file
        from mqsmf.reader import FileReport

        t1 = time.perf_counter()
        report = FileReport(args.out)
        rows = sum(batch.num_rows for _, batch in iter_file(args.out, report=report))
        print(
            f"decode: {rows:,} rows in {time.perf_counter() - t1:.1f} s, {len(report.quarantine)} quarantined, "
            f"peak RSS {peak_rss_mb():,.0f} MiB"
        )
    if os.environ.get("MQSMF_BENCH_KEEP") is None and args.out.startswith("/tmp/"):
        os.remove(args.out)
        os.remove(args.out + ".manifest.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
