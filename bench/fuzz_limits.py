"""Fuzz campaign under resource limits: no input may take the reader past a memory or time limit.

``bench/fuzz_reader.py`` checks that mutated dumps raise nothing and that every record is accounted
for; this campaign checks the cost of reading them (issue 38). Its mutations aim at what scales
work with a number the input states rather than with its size:

- triplets: count set to 65535 (or the record's length) with length 0 or 1, offsets near the end;
- QWHSNSDA set to 255 (or any byte) in a record's QWHS;
- segment descriptors: a complete record cut into a first segment and thousands of one-byte middle
  segments (a spanned record of tiny segments), flags flipped between complete/first/middle/last;
- damage repeated: a junk byte after every few records (resynchronisation again and again);
- every mutated input is then replicated up to ``--grow`` bytes, so an amplification per record
  shows as gigabytes, not kilobytes.

Each input is read with ``reader.read_bytes`` in a worker process whose address space is limited to
its size after start-up plus ``--memory-mb`` (RLIMIT_AS) and whose every input has ``--time-limit``
seconds (an interval timer). An input over a limit, or raising anything (``FramingError`` aside: the
documented refusal of a file with no SMF record at its start), is a finding: its seed, mutations and
bytes are saved. A worker that dies is restarted after the input that killed it.

Printed: inputs run, findings, the worker's peak RSS, the slowest input (seconds and bytes/s) and
the worst-case throughput ratio (the slowest input's bytes/s against the clean seeds').

Usage: python bench/fuzz_limits.py [--inputs 2000] [--seed 1] [--memory-mb 1024] [--time-limit 10]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fuzz_reader as F  # noqa: E402

from mqsmf import reader  # noqa: E402
from mqsmf.encode import DumpWriter, dump_record  # noqa: E402
from mqsmf.framing import RDW, SEG_FIRST, SEG_LAST, SEG_MIDDLE, FramingError, descriptor_word  # noqa: E402
from mqsmf.headers import QWHS_NSDA, TRIPLET_AREA, TRIPLET_COUNT, TRIPLET_LENGTH, TRIPLET_SIZE  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Amplifying mutations (RDW seeds: they know where records start)
# ------------------------------------------------------------------------------------------------


def _record_at(buf: bytearray, head: int) -> tuple[int, int]:
    """(start of the RDW, segment length) of the record whose SMF header starts at ``head``."""
    p = head - RDW
    return p, int.from_bytes(buf[p : p + 2], "big")


def huge_count(rng, buf, seed, seeds):
    """A triplet whose count the record cannot hold: length 0 or 1, count 65535 or the length."""
    if not seed.records:
        return F.triplet_damage(rng, buf, seed, seeds)
    t = rng.choice((1, 1, 1, 2, 3, 9, 11, rng.randrange(1, 12)))  # triplet 1 holds most structures
    # Length 0 is the amplifier (count x 0 fits any record); the others probe the bounds check.
    length, count = rng.choice((0, 0, 0, 1, 8)), rng.choice((0xFFFF, 0x7FFF, 0x1000, 255))
    every = rng.random() < 0.7  # one record, or every record of the seed
    for head in seed.records if every else [rng.choice(seed.records)]:
        pos = head - RDW + TRIPLET_AREA + TRIPLET_SIZE * t
        F._put(buf, pos + TRIPLET_LENGTH.offset, length, TRIPLET_LENGTH.length)
        F._put(buf, pos + TRIPLET_COUNT.offset, count, TRIPLET_COUNT.length)


def nsda(rng, buf, seed, seeds):
    """QWHSNSDA set to 255 (or any byte) in a record's QWHS, found through its triplet 0."""
    if not seed.records:
        return F.interesting_bytes(rng, buf, seed, seeds)
    head = rng.choice(seed.records)
    base = head - RDW
    t0 = base + TRIPLET_AREA
    if t0 + 4 > len(buf):
        return
    off0 = int.from_bytes(buf[t0 : t0 + 4], "big")
    if 0 <= base + off0 + QWHS_NSDA < len(buf):
        buf[base + off0 + QWHS_NSDA] = rng.choice((255, 254, 128, rng.randrange(256)))


def tiny_segments(rng, buf, seed, seeds):
    """A complete RDW record rewritten as a first segment and one-byte middle segments."""
    if seed.framing != "rdw" or not seed.records:
        return F.descriptor_damage(rng, buf, seed, seeds)
    p, length = _record_at(buf, rng.choice(seed.records))
    if buf[p + 2] != 0 or length < 64 or p + length > len(buf):
        return
    body = bytes(buf[p + RDW : p + length])
    cut = rng.randint(40, min(len(body) - 1, 200))
    pieces = [descriptor_word(RDW + cut, SEG_FIRST) + body[:cut]]
    pieces += [descriptor_word(RDW + 1, SEG_MIDDLE) + body[i : i + 1] for i in range(cut, len(body) - 1)]
    pieces.append(descriptor_word(RDW + 1, SEG_LAST) + body[-1:])
    if rng.random() < 0.3:  # and a flag flipped in the middle
        k = rng.randrange(1, len(pieces))
        pieces[k] = pieces[k][:2] + bytes((rng.randrange(4),)) + pieces[k][3:]
    buf[p : p + length] = b"".join(pieces)


def junk_every_few(rng, buf, seed, seeds):
    """A junk byte after every k-th record: resynchronisation over and over."""
    if not seed.records:
        return F.bitflip(rng, buf, seed, seeds)
    k = rng.randint(1, 4)
    for head in sorted(seed.records[::k], reverse=True):
        at = head - RDW
        if 0 < at < len(buf):
            buf[at:at] = bytes((rng.randrange(256),))


def build_seeds() -> list[F.Seed]:
    """The reader campaign's seeds and a dump of short records (dump headers and trailers, 18
    bytes each): the worst case for resynchronisation, a damaged spot every few dozen bytes."""
    buf = io.BytesIO()
    writer = DumpWriter(buf, "rdw")
    for i in range(2000):
        writer.write(dump_record(2 + i % 2, "SYSA", F.T0 + i))
    writer.close()
    data = buf.getvalue()
    words, heads = F._descriptors(data, "rdw")
    return [*F.build_seeds(), F.Seed("short.rdw", "rdw", data, words, heads)]


AMPLIFYING = (huge_count, huge_count, nsda, tiny_segments, junk_every_few)


def make_input(rng: random.Random, seeds, grow: int) -> tuple[F.Seed, bytes, list[str], str]:
    s = rng.choice(seeds)
    buf = bytearray(s.data)
    done = []
    for _ in range(rng.choice((1, 1, 2))):
        kind = rng.choice(AMPLIFYING + F.MUTATIONS[:4])
        kind(rng, buf, s, seeds)
        done.append(kind.__name__)
    if grow and buf and rng.random() < 0.5:  # the same damage many times: per-record cost shows
        buf = buf * max(1, grow // len(buf))
        done.append(f"x{grow // max(len(s.data), 1)}")
    return s, bytes(buf), done, s.framing


# ------------------------------------------------------------------------------------------------
# Worker: reads inputs under the limits, one JSON line per input
# ------------------------------------------------------------------------------------------------


def worker(seed: int, start: int, stop: int, grow: int, memory_mb: int, time_limit: float) -> None:
    seeds = build_seeds()
    for s in seeds:  # warm up (layouts, caches) before the limit and the clock
        with contextlib.suppress(FramingError):
            reader.read_bytes(s.data[:4096], "warm", framing=s.framing)
    F.limit_memory(memory_mb)
    out = sys.stdout
    for i in range(start, stop):
        rng = random.Random(seed * 1_000_003 + i)
        s, data, muts, framing = make_input(rng, seeds, grow)
        out.write(json.dumps({"i": i, "started": True}) + "\n")
        out.flush()
        t = time.perf_counter()
        status = "ok"
        try:
            with F.time_limit(time_limit):
                reader.read_bytes(data, "<fuzz>", framing=framing)
        except FramingError:
            status = "refused"
        except F.LimitExceeded:
            status = f"over the time limit ({time_limit} s)"
        except MemoryError:
            status = f"over the memory limit ({memory_mb} MB)"
        except Exception as e:  # noqa: BLE001 - every other exception is a finding
            status = f"raised {type(e).__name__}: {e}"[:300]
        seconds = time.perf_counter() - t
        row = {"i": i, "seed": s.name, "muts": muts, "bytes": len(data), "s": seconds, "status": status}
        row["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out.write(json.dumps(row) + "\n")
        out.flush()


# ------------------------------------------------------------------------------------------------
# Campaign
# ------------------------------------------------------------------------------------------------


def clean_throughput(seeds) -> float:
    """Bytes per second reading the unmutated seeds (the reference for the worst-case ratio)."""
    total, t = 0, time.perf_counter()
    for s in seeds:
        for _ in range(3):
            reader.read_bytes(s.data, "clean", framing=s.framing)
            total += len(s.data)
    return total / (time.perf_counter() - t)


def run(inputs: int, seed: int, grow: int, memory_mb: int, time_limit: float, out_dir: str) -> dict:
    findings, rows, peak_rss = [], [], 0
    i = 0
    while i < inputs:
        cmd = [sys.executable, __file__, "--worker", str(seed), str(i), str(inputs), str(grow)]
        cmd += [str(memory_mb), str(time_limit)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        started = None
        for line in proc.stdout:
            row = json.loads(line)
            if row.get("started"):
                started = row["i"]
                continue
            started = None
            rows.append(row)
            peak_rss = max(peak_rss, row["rss_kb"])
            if row["status"] not in ("ok", "refused"):
                findings.append(row)
            i = row["i"] + 1
        proc.wait()
        if started is not None:  # the worker died inside this input
            findings.append({"i": started, "status": f"worker died (exit {proc.returncode})", "seed": "?", "muts": []})
            i = started + 1
        elif proc.returncode:
            raise RuntimeError(f"worker failed before its first input (exit {proc.returncode})")
    seeds = build_seeds()
    for f in findings:  # keep the bytes for reproduction
        rng = random.Random(seed * 1_000_003 + f["i"])
        s, data, muts, framing = make_input(rng, seeds, grow)
        os.makedirs(out_dir, exist_ok=True)
        f["path"] = os.path.join(out_dir, f"limit-{seed}-{f['i']}-{framing}.dat")
        Path(f["path"]).write_bytes(data)
    slowest = max(rows, key=lambda r: r["s"], default=None)
    worst = min((r for r in rows if r["bytes"] >= 4096), key=lambda r: r["bytes"] / max(r["s"], 1e-9), default=None)
    return {
        "inputs": len(rows) + sum(1 for f in findings if "died" in f["status"]),
        "findings": findings,
        "peak_rss_mb": peak_rss / 1024,
        "slowest": slowest,
        "worst": worst,
        "bytes": sum(r["bytes"] for r in rows),
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        a = sys.argv[2:]
        worker(int(a[0]), int(a[1]), int(a[2]), int(a[3]), int(a[4]), float(a[5]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--grow", type=int, default=256 << 10, help="replicate half the inputs up to this many bytes")
    ap.add_argument("--memory-mb", type=int, default=1024, help="address space a worker may add to its start-up size")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per input")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "mqsmf-fuzz-limits"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    res = run(args.inputs, args.seed, args.grow, args.memory_mb, args.time_limit, args.out)
    wall = time.perf_counter() - t0
    clean = clean_throughput(build_seeds())
    print(f"inputs           {res['inputs']:,} ({res['bytes'] / 1e6:,.1f} MB) in {wall:,.1f} s")
    print(f"limits           {args.memory_mb} MB address space above start-up, {args.time_limit} s per input")
    print(f"worker peak RSS  {res['peak_rss_mb']:,.0f} MB")
    if res["slowest"]:
        s = res["slowest"]
        print(f"slowest input    {s['s']:.3f} s, {s['bytes']:,} bytes ({s['seed']}: {','.join(s['muts'])})")
    if res["worst"]:
        w = res["worst"]
        rate = w["bytes"] / max(w["s"], 1e-9)
        print(
            f"worst throughput {rate / 1e6:,.2f} MB/s ({w['seed']}: {','.join(w['muts'])}); clean seeds {clean / 1e6:,.2f} MB/s"
        )
        print(f"worst-case ratio {clean / rate:,.1f}x slower than clean")
    print(f"findings         {len(res['findings'])}")
    for f in res["findings"][:20]:
        print(f"  input {f['i']} {f['seed']} {','.join(f['muts'])}: {f['status']} -> {f.get('path')}")
    return 1 if res["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
