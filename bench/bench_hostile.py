"""Peak RSS and time of reading the hostile files of issue 38, each in its own process.

The files are crafted from records written by ``mqsmf.encode`` (the helpers of
tests/udfs/test_hostile_input.py) with a few bytes edited:

- zero-count: QQST records whose triplet 1 says 65535 instances of 0 bytes (7.7 KB and 96 KB);
- nsda-255: one record with QWHSNSDA 255 among 60,000 small QQST records;
- tiny-spans: a spanned record of 4,000,000 one-byte middle segments (20 MB);
- junk-bytes: 1.6 MB of 18-byte records with a junk byte after every fourth, and the same file clean.

Each is read with ``mqsmf.read_file`` in a child process (``--src`` puts another source tree first
on its path, to measure a checkout before a fix); its peak RSS (ru_maxrss) and wall time are
printed, with the child's start-up (imports, an empty read) measured alone for reference. A child
over ``--timeout`` seconds is killed and reported as such.

Usage: python bench/bench_hostile.py [--src /path/to/udfs] [--timeout 600] [--only NAME]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from udfs.test_hostile_input import (  # noqa: E402
    QWHS_NSDA,
    RDW,
    SEG_FIRST,
    SEG_LAST,
    SEG_MIDDLE,
    descriptor_word,
    qqst_record,
    rdw_file,
    set_triplet,
    short_records,
    triplet,
)

CHILD = """
import sys, time, resource
from mqsmf import read_file
t = time.perf_counter()
tables, report = read_file(sys.argv[1]) if sys.argv[1] != "-" else ({}, None)
s = time.perf_counter() - t
rows = sum(t.num_rows for t in tables.values())
q = len(report.quarantine) if report else 0
print(f"{s:.3f} {rows} {q} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
"""


def zero_count(records: int) -> bytes:
    bad = qqst_record(["APP.BAD"], "9.3.0")
    set_triplet(bad, 1, length=0, count=65535)
    return rdw_file([bad] * records)


def nsda_255() -> bytes:
    big = qqst_record([f"BIG.Q{i}" for i in range(40)])
    off0, _, _ = triplet(big, 0)
    big[off0 + QWHS_NSDA] = 255
    return rdw_file([big] + [qqst_record([f"APP.Q{i % 1000}"], "9.3.0") for i in range(60_000)])


def tiny_spans(segments: int) -> bytes:
    body = bytes(qqst_record(["APP.SPAN"]))[RDW:]
    first = descriptor_word(RDW + len(body), SEG_FIRST) + body
    middle = (descriptor_word(RDW + 1, SEG_MIDDLE) + b"\0") * segments
    return first + middle + descriptor_word(RDW + 1, SEG_LAST) + b"\0"


def junk_bytes(clean: bool) -> bytes:
    records = short_records(88_000)
    if clean:
        return rdw_file(records)
    return b"".join(rdw_file(records[i : i + 4]) + b"\xff" for i in range(0, len(records), 4))


FILES = {
    "zero-count-7.7KB": lambda: zero_count(40),
    "zero-count-96KB": lambda: zero_count(500),
    "nsda-255": nsda_255,
    "tiny-spans-20MB": lambda: tiny_spans(4_000_000),
    "short-clean-1.6MB": lambda: junk_bytes(True),
    "short-junk-1.6MB": lambda: junk_bytes(False),
}


def measure(path: str, src: str | None, timeout: float) -> str:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    t = time.perf_counter()
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, path], env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return f"killed after {timeout:.0f} s"
    wall = time.perf_counter() - t
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return f"failed in {wall:.1f} s: {last[:120]}"
    read_s, rows, q, rss_kb = out.stdout.split()
    return f"read {float(read_s):8.2f} s  peak RSS {int(rss_kb) / 1024:8.0f} MB  rows {rows:>7}  quarantined {q:>6}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", help="source tree (the udfs directory) to measure instead of the installed one")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--only", action="append", help="file name(s) to measure")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'start-up (no file)':22s} {measure('-', args.src, args.timeout)}")
        for name, make in FILES.items():
            if args.only and name not in args.only:
                continue
            path = os.path.join(tmp, name + ".dat")
            data = make()
            Path(path).write_bytes(data)
            print(f"{name:22s} {len(data) / 1e6:7.2f} MB  {measure(path, args.src, args.timeout)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
