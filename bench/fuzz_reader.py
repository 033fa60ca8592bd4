"""Fuzz campaign over framing and decoding: mutated SMF dumps must never raise anything but the
documented refusal (``FramingError``: no SMF record at the start of the file, or an impossible
framing) and every record must be accounted for.

Seeds: the shared real dumps (TEST115, TEST116 and TESTCHL cut into windows of a few records) and
records written by ``mqsmf.encode`` (QQST of every generation, QIS1, an MQ 10 record with QWHX, a
record long enough to span segments), each in RDW, BDW and NORDW framing.

Mutations (one to three per input, seeded, reproducible): bit flips anywhere or in a record's
SMF header and triplets; interesting byte values; triplet damage (offset, length, count set to 0,
1, the record length, 0xFFFF, ...); descriptor-word damage (RDW/BDW length, segment byte, reserved
byte); truncation; splices (a range deleted, duplicated, or replaced by bytes of another seed).

Invariants checked on every input:
- framing raises nothing but ``FramingError``; its quarantine spans lie inside the input, have a
  reason, and never overlap the records it found; records lie inside the input;
- decoding raises nothing; for every (type, subtype) read = decoded + quarantined + skipped, the
  records read are exactly the records framed, quarantine entries are one per quarantined record,
  and the rows yielded per structure are what the report counts.

Throughput: decoding is per record (nothing in one record changes how another decodes), so the
framed records of a chunk of inputs are decoded in one vectorized pass, as one large file's are.
If a chunk raises, its inputs are re-run one by one through the public ``read_bytes`` to name the
culprit, which is saved for reproduction. A sample of inputs (``--public-every``) also goes
through ``read_bytes`` itself.

Usage: python bench/fuzz_reader.py [--inputs 1000000] [--seed 1] [--jobs 2] [--chunk 1024]
"""

from __future__ import annotations

import argparse
import io
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from udfs.smf_samples import SAMPLES, to_bdw, to_nordw  # noqa: E402

from mqsmf import reader  # noqa: E402
from mqsmf.decode import TYPED, RecordBuffer  # noqa: E402
from mqsmf.encode import DumpWriter, RecordHeader, build_records, dump_record, encode, version_length  # noqa: E402
from mqsmf.framing import (  # noqa: E402
    BDW,
    DESCRIPTOR_FLAGS,
    MAX_SEGMENT,
    MIN_SEGMENT,
    RDW,
    SEG_COMPLETE,
    SEG_FIRST,
    FramingError,
    frame,
)
from mqsmf.headers import (  # noqa: E402
    QWHS_LONG,
    QWHS_SHORT,
    SMF_DATE_END,
    TRIPLET_AREA,
    TRIPLET_COUNT,
    TRIPLET_LENGTH,
    TRIPLET_OFFSET,
    TRIPLET_SIZE,
)
from mqsmf.layouts import layout, layouts  # noqa: E402

T0 = 1_750_000_000_000_000  # 2025-06-15, microseconds
# Boundaries of the record format and the headers: a descriptor word, the shortest segment, a
# triplet, the end of the SMF date, the triplet area, the short and long QWHS, the longest segment.
INTERESTING_16 = (
    *(0, 1, 3, RDW, MIN_SEGMENT, TRIPLET_SIZE, SMF_DATE_END - 1, SMF_DATE_END),
    *(TRIPLET_AREA - 1, TRIPLET_AREA, QWHS_SHORT, QWHS_LONG, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF),
    *(MAX_SEGMENT, MAX_SEGMENT + 1),
)
INTERESTING_32 = (0, 1, RDW, TRIPLET_AREA - 1, TRIPLET_AREA, QWHS_SHORT, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)
INTERESTING_8 = (0x00, 0x01, 0x02, 0x03, 0x04, 0x40, 0x5E, 0x73, 0x74, 0x7F, 0x80, 0xFF)


# ------------------------------------------------------------------------------------------------
# Seeds
# ------------------------------------------------------------------------------------------------


@dataclass
class Seed:
    name: str
    framing: str
    data: bytes
    descriptors: list[int] = field(default_factory=list)  # file offsets of RDWs and BDWs
    records: list[int] = field(default_factory=list)  # file offsets where a record's SMF header starts


def _rdw_windows(data: bytes, records_per_window: int) -> list[bytes]:
    """Consecutive logical records (spanned ones whole) of an RDW dump, a few at a time."""
    fr = frame(data, "rdw")
    out = []
    for i in range(0, len(fr), records_per_window):
        j = min(len(fr), i + records_per_window)
        out.append(data[int(fr.offsets[i]) : int(fr.ends[j - 1])])
    return out


def _generated_rdw() -> list[bytes]:
    """Records written from the layout tables: what no public dump holds."""

    def header(subtype, rel="933", qwhx=None, nsda=2):
        return RecordHeader(
            115, subtype, "SYSA", "QM01", rel, T0 + 5000, T0, T0 - 1_800_000_000, 1_800_000_000, nsda,
            qwhx_qsg="QSG1" if qwhx else None, qwhx_rel=qwhx,
        )  # fmt: skip

    qqst, qis1 = layout("QQST"), layout("QIS1")
    out = []
    for version, count in (("9.3.0", 3), ("9.3.1", 2), ("9.3.3", 4), ("10.0.0", 2), ("9.3.3", 70)):
        queues = encode(
            qqst,
            {"QQSTQNAM": np.array([f"APP.Q{i:03d}" for i in range(count)]), "QQSTDPTH": np.arange(count)},
            count,
            version_length(qqst, version),
        )
        rel, qwhx = ("946", "100000") if version == "10.0.0" else (version.replace(".", ""), None)
        out.append(build_records([header(216, rel, qwhx)], [{1: queues}])[0])  # 70 x 552 bytes: spanned
    pages = encode(qis1, {"QIS1PSNO": np.arange(4), "QIS1TOPG": np.full(4, 1000)}, 4, version_length(qis1, "9.4.0"))
    out.append(build_records([header(201)], [{1: pages}])[0])
    buf = io.BytesIO()
    writer = DumpWriter(buf, "rdw")
    writer.write(dump_record(2, "SYSA", T0))
    for rec in out:
        writer.write(rec)
    writer.write(dump_record(3, "SYSA", T0 + 60_000_000))
    writer.close()
    return _rdw_windows(buf.getvalue(), 2)


def _descriptors(data: bytes, framing: str) -> tuple[list[int], list[int]]:
    """Offsets of descriptor words and of SMF headers in a well-formed dump."""
    if framing == "nordw":
        fr = frame(data, "nordw")
        return [], [int(o) for o in fr.offsets]
    words, heads, p = [], [], 0
    starts = (SEG_COMPLETE, SEG_FIRST)  # segments that begin with the SMF header
    while p + RDW <= len(data):
        length = int.from_bytes(data[p : p + 2], "big")
        if length < RDW:
            break
        words.append(p)
        if framing == "bdw":
            q = p + BDW
            while q + RDW <= p + length:
                seg_len = int.from_bytes(data[q : q + 2], "big")
                if seg_len < RDW:
                    break
                words.append(q)
                if data[q + DESCRIPTOR_FLAGS] in starts:
                    heads.append(q + RDW)
                q += seg_len
        elif data[p + DESCRIPTOR_FLAGS] in starts:
            heads.append(p + RDW)
        p += length
    return words, heads


def build_seeds() -> list[Seed]:
    rdw_inputs = [(SAMPLES / "TEST115.dat").read_bytes(), (SAMPLES / "TEST116.dat").read_bytes()]
    rdw_inputs += _rdw_windows((SAMPLES / "TESTCHL.dat").read_bytes(), 6)[:24]
    rdw_inputs += _generated_rdw()
    seeds = []
    for k, data in enumerate(rdw_inputs):
        for framing, conv in (("rdw", lambda d: d), ("bdw", lambda d: to_bdw(d, 8192)), ("nordw", to_nordw)):
            framed = conv(data)
            words, heads = _descriptors(framed, framing)
            seeds.append(Seed(f"seed{k}.{framing}", framing, framed, words, heads))
    return seeds


# ------------------------------------------------------------------------------------------------
# Mutations
# ------------------------------------------------------------------------------------------------


def _put(buf: bytearray, pos: int, value: int, width: int) -> None:
    if pos >= 0 and pos + width <= len(buf):
        buf[pos : pos + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "big")


def mutate(rng: random.Random, seed: Seed, seeds: list[Seed]) -> tuple[bytes, list[str]]:
    buf = bytearray(seed.data)
    done = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        if not buf:
            break
        kind = rng.choice(MUTATIONS)
        kind(rng, buf, seed, seeds)
        done.append(kind.__name__)
    return bytes(buf), done


def bitflip(rng, buf, seed, seeds):
    for _ in range(rng.randint(1, 8)):
        p = rng.randrange(len(buf))
        buf[p] ^= 1 << rng.randrange(8)


def header_bitflip(rng, buf, seed, seeds):
    """A bit of a record's SMF header, triplets or the first structure bytes."""
    if not seed.records:
        return bitflip(rng, buf, seed, seeds)
    p = rng.choice(seed.records) + rng.randrange(120)
    if p < len(buf):
        buf[p] ^= 1 << rng.randrange(8)


def interesting_bytes(rng, buf, seed, seeds):
    for _ in range(rng.randint(1, 4)):
        p = rng.randrange(len(buf))
        if rng.random() < 0.5:
            buf[p] = rng.choice(INTERESTING_8)
        else:
            _put(buf, p, rng.choice(INTERESTING_16), 2)


def triplet_damage(rng, buf, seed, seeds):
    if not seed.records:
        return interesting_bytes(rng, buf, seed, seeds)
    head = rng.choice(seed.records)  # SMF header (flag byte) = record offset 4 (RDW counted)
    t = rng.randrange(13)
    pos = head - RDW + TRIPLET_AREA + TRIPLET_SIZE * t
    which = rng.randrange(3)
    if which == 0:
        _put(
            buf,
            pos + TRIPLET_OFFSET.offset,
            rng.choice((*INTERESTING_32, rng.randrange(1 << 16))),
            TRIPLET_OFFSET.length,
        )
    else:
        f = (TRIPLET_LENGTH, TRIPLET_COUNT)[which - 1]
        _put(buf, pos + f.offset, rng.choice((*INTERESTING_16, rng.randrange(1 << 16))), f.length)


def descriptor_damage(rng, buf, seed, seeds):
    """RDW/BDW length, segment byte or reserved byte; NORDW: a record's first bytes."""
    if not seed.descriptors:
        if seed.records:
            p = rng.choice(seed.records) - rng.randrange(2)
            if 0 <= p < len(buf):
                buf[p] = rng.choice(INTERESTING_8)
        return
    p = rng.choice(seed.descriptors)
    what = rng.randrange(4)
    if what == 0:
        _put(buf, p, rng.choice(INTERESTING_16), 2)
    elif what == 1:
        _put(buf, p, int.from_bytes(buf[p : p + 2], "big") + rng.choice((-8, -4, -1, 1, 4, 8)), 2)
    elif what == 2 and p + DESCRIPTOR_FLAGS < len(buf):
        buf[p + DESCRIPTOR_FLAGS] = rng.choice((0, 1, 2, 3, 4, 0x80, 0xFF))
    elif p + DESCRIPTOR_FLAGS + 1 < len(buf):
        buf[p + DESCRIPTOR_FLAGS + 1] = rng.choice((1, 0x40, 0xFF))


def truncate(rng, buf, seed, seeds):
    cut = rng.choice([rng.randrange(len(buf) + 1), *(p + rng.randint(-6, 6) for p in seed.descriptors[:8])])
    del buf[max(0, cut) :]


def splice(rng, buf, seed, seeds):
    a = rng.randrange(len(buf))
    b = min(len(buf), a + rng.randint(1, 512))
    how = rng.randrange(3)
    if how == 0:
        del buf[a:b]
    elif how == 1:
        buf[a:a] = buf[a:b]
    else:
        other = rng.choice(seeds).data
        c = rng.randrange(len(other))
        buf[a:b] = other[c : c + rng.randint(1, 512)]


MUTATIONS = (
    bitflip,
    header_bitflip,
    header_bitflip,
    interesting_bytes,
    triplet_damage,
    triplet_damage,
    descriptor_damage,
    descriptor_damage,
    truncate,
    splice,
)


# ------------------------------------------------------------------------------------------------
# Running inputs
# ------------------------------------------------------------------------------------------------


class InvariantError(AssertionError):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise InvariantError(what)


def frame_input(data: bytes, framing: str):
    """Frame one input and check what framing promises. Returns the Framed, or None when the
    documented refusal (FramingError) was raised."""
    try:
        fr = frame(data, framing)
    except FramingError:
        return None
    n = len(data)
    spans = [(int(o), int(e)) for o, e in zip(fr.offsets, fr.ends, strict=True)]
    for q in fr.quarantine:
        check(q.offset >= 0 and q.length > 0 and q.offset + q.length <= n, f"quarantine span {q} outside the input")
        check(bool(q.reason), "quarantine span without a reason")
    for o, e in spans:
        check(0 <= o < e <= n + (4 if fr.framing == "nordw" else 0), f"record span {o}..{e} outside the input")
    # No byte is quarantined twice, and no quarantined byte belongs to a record, except a block's
    # descriptor word (BDW), which may sit inside the extent of a record spanned across blocks.
    marks = sorted(
        [(o, e, "r") for o, e in spans]
        + [
            (q.offset, q.offset + q.length, "w" if "BDW" in q.reason or "block" in q.reason else "q")
            for q in fr.quarantine
        ]
    )
    end = {"r": -1, "q": -1}
    for o, e, k in marks:
        if k in "rq":
            check(o >= end["q"] and o >= end["r"], f"spans overlap at {o} ({k})")
        else:
            check(o >= end["q"], f"descriptor word span at {o} overlaps a quarantined span")
        end[k if k in "rq" else "q"] = max(end[k if k in "rq" else "q"], e)
    check(len(fr.lengths) == len(fr.offsets), "framing lengths and offsets differ in number")
    return fr


def _merge(buffers: list[RecordBuffer]) -> RecordBuffer:
    """One batch holding the records of many inputs (as a large file's batch holds many records)."""
    sizes = [rb.pad for rb in buffers]
    buf = np.zeros(sum(sizes) + reader._PAD, dtype=np.uint8)
    base, pos = [], 0
    for rb, size in zip(buffers, sizes, strict=True):
        buf[pos : pos + size] = rb.buf[:size]
        base.append(rb.base + pos)
        pos += size
    cat = np.concatenate
    return RecordBuffer(
        buf,
        cat(base),
        cat([rb.length for rb in buffers]),
        cat([rb.file_offset for rb in buffers]),
        cat([rb.file_end for rb in buffers]),
        "<fuzz>",
        pos,
    )


def decode_chunk(framed: list[tuple[bytes, object]]) -> Counter:
    """Decode the records of many framed inputs in one pass and check the accounting."""
    buffers = []
    for data, fr in framed:
        for rb, _ in reader._batches(fr, data, "<fuzz>", 1 << 40):
            buffers.append(rb)
    stats = Counter(records_framed=sum(len(fr) for _, fr in framed))
    if not buffers:
        return stats
    rb = _merge(buffers)
    report = reader.FileReport("<fuzz>")
    rows = Counter()
    for name, batch in reader._decode_records(rb, sorted(layouts()), TYPED, report):
        rows[name] += batch.num_rows
        check(batch.num_rows == len(batch.column(0)), "ragged batch")
    read = sum(report.read.values())
    check(read == stats["records_framed"], f"{read} records read, {stats['records_framed']} framed")
    for key in report.read:
        check(
            report.read[key] == report.decoded[key] + report.quarantined[key] + report.skipped[key],
            f"{key}: read {report.read[key]} != decoded + quarantined + skipped",
        )
    check(len(report.quarantine) == sum(report.quarantined.values()), "quarantine entries != quarantined records")
    check(rows == +report.instances, f"rows yielded {dict(rows)} != counted {dict(+report.instances)}")
    for q in report.quarantine:
        check(bool(q.reason) and q.length > 0, f"empty quarantine entry {q}")
    stats.update(
        records_decoded=sum(report.decoded.values()),
        records_quarantined=sum(report.quarantined.values()),
        records_skipped=sum(report.skipped.values()),
        records_with_unexpected_id=sum(report.unexpected_id.values()),
        rows=sum(rows.values()),
    )
    return stats


def run_public(data: bytes, framing: str) -> None:
    """The public in-memory API on one input, with the same promises."""
    try:
        tables, report = reader.read_bytes(data, "<fuzz>", framing=framing)
    except FramingError:
        return
    for key in report.read:
        check(
            report.read[key] == report.decoded[key] + report.quarantined[key] + report.skipped[key],
            f"{key}: read != decoded + quarantined + skipped",
        )
    check({k: t.num_rows for k, t in tables.items()} == +report.instances, "rows != counted instances")


@dataclass
class Failure:
    seed: str
    framing: str
    mutations: list[str]
    error: str
    path: str


def run(inputs: int, seed: int, chunk: int, public_every: int, out_dir: str) -> tuple[Counter, list[Failure]]:
    """One worker's share of the campaign (deterministic for a given seed)."""
    cpu0 = time.process_time()
    rng = random.Random(seed)
    seeds = build_seeds()
    stats: Counter = Counter()
    failures: list[Failure] = []
    done = 0
    while done < inputs:
        batch = []
        for _ in range(min(chunk, inputs - done)):
            s = rng.choice(seeds)
            data, muts = mutate(rng, s, seeds)
            framing = "auto" if rng.random() < 0.25 else s.framing
            batch.append((s, data, muts, framing))
        done += len(batch)
        framed = []
        for s, data, muts, framing in batch:
            stats["inputs"] += 1
            try:
                fr = frame_input(data, framing)
            except Exception as e:  # noqa: BLE001 - every other exception is a finding
                failures.append(_save(out_dir, s, data, muts, framing, e))
                continue
            if fr is None:
                stats["refused"] += 1
                continue
            stats["framing_quarantine_spans"] += len(fr.quarantine)
            framed.append((data, fr))
        try:
            stats.update(decode_chunk(framed))
        except Exception:  # noqa: BLE001 - find the input that raises
            for s, data, muts, framing in batch:
                try:
                    run_public(data, framing)
                except Exception as e:  # noqa: BLE001
                    failures.append(_save(out_dir, s, data, muts, framing, e))
        sampled = 0
        if public_every:
            sampled = len(batch) // public_every + (rng.randrange(public_every) < len(batch) % public_every)
        for s, data, muts, framing in rng.sample(batch, sampled):
            try:
                run_public(data, framing)
                stats["public_api_inputs"] += 1
            except Exception as e:  # noqa: BLE001
                failures.append(_save(out_dir, s, data, muts, framing, e))
        if len(failures) > 20:
            break
    stats["cpu_ms"] = round((time.process_time() - cpu0) * 1000)
    return stats, failures


def _save(out_dir: str, s: Seed, data: bytes, muts: list[str], framing: str, e: BaseException) -> Failure:
    os.makedirs(out_dir, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix=f"crash-{s.name}-", suffix=".dat", dir=out_dir)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    error = "".join(traceback.format_exception_only(type(e), e)).strip()
    return Failure(s.name, framing, muts, error, path)


def _worker(args):
    return run(*args)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (each gets its own seed)")
    ap.add_argument("--chunk", type=int, default=1024, help="inputs decoded together in one pass")
    ap.add_argument("--public-every", type=int, default=1000, help="about one input in N also via read_bytes")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "mqsmf-fuzz"), help="crash inputs go here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    share = [args.inputs // args.jobs + (1 if k < args.inputs % args.jobs else 0) for k in range(args.jobs)]
    work = [(n, args.seed * 1000 + k, args.chunk, args.public_every, args.out) for k, n in enumerate(share)]
    if args.jobs == 1:
        results = [_worker(work[0])]
    else:
        with mp.get_context("spawn").Pool(args.jobs) as pool:
            results = pool.map(_worker, work)
    wall = time.perf_counter() - t0
    stats: Counter = Counter()
    failures: list[Failure] = []
    for s, f in results:
        stats.update(s)
        failures.extend(f)
    print(f"seeds            {len(build_seeds())} (real dumps and generated records, RDW/BDW/NORDW)")
    print(f"inputs           {stats['inputs']:,} ({stats['refused']:,} refused with FramingError)")
    print(f"via read_bytes   {stats['public_api_inputs']:,}")
    print(
        f"records          {stats['records_framed']:,} framed = {stats['records_decoded']:,} decoded "
        f"+ {stats['records_quarantined']:,} quarantined + {stats['records_skipped']:,} skipped"
    )
    print(f"unexpected ids   {stats['records_with_unexpected_id']:,} records decoded with a warning")
    print(f"framing spans    {stats['framing_quarantine_spans']:,} quarantined")
    print(f"rows             {stats['rows']:,}")
    cpu = stats["cpu_ms"] / 1000
    print(f"total time       {wall:10.1f} s with {args.jobs} worker(s), {cpu:.1f} s CPU in the workers")
    print(f"inputs/s         {stats['inputs'] / wall:10,.0f} (per CPU second: {stats['inputs'] / max(cpu, 1e-9):,.0f})")
    print(f"failures         {len(failures)}")
    for f in failures[:20]:
        print(f"  {f.seed} framing={f.framing} mutations={','.join(f.mutations)}: {f.error} -> {f.path}")
    accounted = stats["records_decoded"] + stats["records_quarantined"] + stats["records_skipped"]
    return 1 if failures or accounted != stats["records_framed"] else 0


if __name__ == "__main__":
    sys.exit(main())
