"""Throughput of the Spark side: the ``mqsmf`` data source and an end-to-end load.

Builds a large RDW file (default 200 MB, in /tmp) by repeating TESTCHL.dat's records. Each copy's
MQ records get their own queue manager name (SMF header SSI), so every copy is new data for the
loader rather than a duplicate it would skip; ``--same-qmgr`` keeps the copies identical (then the
load reads everything and inserts one copy). Starts a local session configured like the dbt
``local`` target, with a throw-away warehouse, and prints MB/s of:

- ``spark.read.format("mqsmf")`` of one structure (QPST) and of ``_audit`` (decodes every
  structure), each a full read of the file;
- ``load_files`` (mqsmf load): decode once into the spool, then every raw table, audit and
  quarantine with the natural-key de-duplication; then the same file again (everything present).
  The raw tables are created beforehand: a fresh metastore's first DDL is not load time.

Usage: python bench/bench_load.py [--mb 200] [--split-mb 64] [--same-qmgr] [--keep FILE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "testdata" / "smf" / "TESTCHL.dat"


def build_input(path: Path, mb: int, distinct_qmgrs: bool) -> int:
    """Write ``mb`` MB of TESTCHL's records to ``path``; returns the number of copies."""
    from mqsmf.framing import frame
    from mqsmf.layouts import header_layout

    data = SAMPLE.read_bytes()
    fr = frame(data, "rdw")
    hdr = header_layout("SMFHDR")
    rty, ssi = hdr.field("SM11xRTY"), hdr.field("SM11xSSI")
    starts = fr.offsets
    # Every logical record starts with its (first) segment's SMF header; only MQ records carry SSI.
    mq = np.isin(np.frombuffer(data, np.uint8)[starts + rty.offset], (115, 116))
    ssi_at = starts[mq] + ssi.offset
    copies = max(1, (mb * 1_000_000) // len(data) + 1)
    unit = np.frombuffer(data, np.uint8).copy()
    with open(path, "wb") as f:
        for k in range(copies):
            if distinct_qmgrs:
                name = f"Q{np.base_repr(k, 36):>03}".replace(" ", "0").encode("cp037")
                for i in range(ssi.length):
                    unit[ssi_at + i] = name[i]
            f.write(unit.tobytes())
    return copies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--split-mb", type=float, default=64)
    ap.add_argument("--same-qmgr", action="store_true", help="identical copies (the load inserts one)")
    ap.add_argument("--keep", help="write the input here and keep it (default: a temporary file)")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mqsmf-bench-load-"))
    path = Path(args.keep) if args.keep else work / "bench.dat"
    os.environ["MQSMF_WAREHOUSE_DIR"] = str(work / "warehouse")
    os.environ["MQSMF_SPOOL_DIR"] = str(work / "spool")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = None
    try:
        t0 = time.perf_counter()
        copies = build_input(path, args.mb, not args.same_qmgr)
        size = path.stat().st_size
        print(
            f"input          {size / 1e6:8.1f} MB: TESTCHL.dat x {copies} ({time.perf_counter() - t0:.1f} s to write)"
        )

        from mqsmf.spark.load import load_files, run_steps
        from mqsmf.spark.plan import ensure_tables_plan
        from mqsmf.spark.session import local_session
        from mqsmf.warehouse import raw_tables

        t0 = time.perf_counter()
        spark = local_session(ROOT)
        spark.sql("SELECT 1").collect()
        print(f"session start  {time.perf_counter() - t0:8.1f} s   ({spark.sparkContext.master})")
        split = str(int(args.split_mb * (1 << 20)))

        def read(structure: str) -> tuple[float, int]:
            df = spark.read.format("mqsmf").options(structure=structure, split_bytes=split).load(str(path))
            t = time.perf_counter()
            rows = df.count()
            return time.perf_counter() - t, rows

        read("QSST")  # warm up the Python workers
        for structure in ("QPST", "_audit"):
            secs, rows = read(structure)
            print(f"read {structure:9s} {size / 1e6 / secs:8.1f} MB/s  ({secs:.1f} s, {rows:,} rows)")

        t = time.perf_counter()
        run_steps(spark, ensure_tables_plan("bench_raw"))  # a fresh metastore's first tables: not the load
        print(f"create tables  {time.perf_counter() - t:8.1f} s   (schema + {len(raw_tables())} raw tables, once)")
        for what in ("load", "reload"):
            s = load_files(spark, [str(path)], raw_schema="bench_raw", split_bytes=int(split))
            decode = sum(v for k, v in s.step_seconds.items() if k.startswith("decode"))
            stage = sum(v for k, v in s.step_seconds.items() if k.startswith("stage "))
            publish = sum(v for k, v in s.step_seconds.items() if k.startswith("publish"))
            print(
                f"{what:14s} {size / 1e6 / s.seconds:8.1f} MB/s  ({s.seconds:.1f} s: decode + audit {decode:.1f} s, "
                f"staging {stage:.1f} s, publishing {publish:.1f} s; {s.records_read:,} records, "
                f"{sum(s.rows_inserted.values()):,} rows inserted)"
            )
    finally:
        if spark is not None:
            spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
