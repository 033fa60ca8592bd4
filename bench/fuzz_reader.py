"""Fuzz campaign over framing and decoding: mutated SMF dumps and dmpmqmsg event dumps must never
raise anything but the documented refusal (``FramingError``: no SMF record at the start of the file,
or an impossible framing), every record and message must be accounted for, and every input must
finish within a time and a memory limit.

Seeds: the shared real dumps (TEST115, TEST116 and TESTCHL cut into windows of a few records) and
records written by ``mqsmf.encode`` (QQST of every generation, QIS1, an MQ 10 record with QWHX, a
record long enough to span segments), each in RDW, BDW and NORDW framing; and queue depth event
dumps written by the generator (big-endian EBCDIC as z/OS writes them, little-endian ASCII).

Mutations (one to three per input, seeded, reproducible), by structure, not only by byte:
- SMF: bit flips anywhere or in a record's SMF header and triplets; interesting byte values;
  triplet offsets, lengths and counts (0, 1, the record length, 0xFFFF, ...); the SMF record
  length, flag and subtype; QWHS fields (NSDA, release, flags with the QWHX bit, the QWHX itself);
  descriptor words (RDW/BDW length, segment byte, reserved byte); truncation; splices.
- Events: MQMD attributes (Encoding, CodedCharSetId, Format, PutDate/PutTime, numbers beyond 32
  bits, missing or repeated lines); the MQCFH (Type, StrucLength, Command, Reason, ParameterCount);
  each parameter's Type, StrucLength, Parameter, CodedCharSetId and StringLength, and string bytes
  that are not valid in the character set; the text itself (hex, line types, truncation, splices).

Invariants checked on every input:
- framing raises nothing but ``FramingError``; its quarantine spans lie inside the input, have a
  reason, and never overlap the records it found; records lie inside the input;
- decoding raises nothing; for every (type, subtype) read = decoded + quarantined + skipped, the
  records read are exactly the records framed, quarantine entries are one per quarantined record,
  and the rows yielded per structure are what the report counts;
- an event dump raises nothing; messages = decoded + skipped + quarantined messages, the table has
  one row per decoded message, and every quarantine entry lies inside the input with a reason;
- limits: an input alone finishes within ``--input-seconds``; a worker's address space grows by at
  most ``--memory-mb`` over what it had after building its seeds (``RLIMIT_AS``: a memory bomb
  raises ``MemoryError`` there, a finding, instead of taking the machine).

Throughput: decoding is per record (nothing in one record changes how another decodes), so the
framed records of a chunk of inputs are decoded in one vectorized pass, as one large file's are;
a chunk has ten times an input's time limit. A chunk that raises or exceeds it is re-run input by
input through the public ``read_bytes``, each under the input limits, to name the culprit, which is
saved for reproduction. A sample of inputs (``--public-every``) also goes through ``read_bytes``
itself, timed: the slowest input and the worst ratio of an input's time to its unmutated seed's
(the worst-case throughput against clean input, same bytes give or take a splice) are printed.

Usage: python bench/fuzz_reader.py [--inputs 1000000] [--seed 1] [--jobs 2] [--chunk 1024]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing as mp
import os
import random
import resource
import signal
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
    QWHX_FOLLOWS,
    SMF_DATE_END,
    TRIPLET_AREA,
    TRIPLET_COUNT,
    TRIPLET_LENGTH,
    TRIPLET_OFFSET,
    TRIPLET_SIZE,
)
from mqsmf.layouts import header_layout, layout, layouts  # noqa: E402
from mqsmf.pcf import layouts as pcf_layouts  # noqa: E402
from mqsmf.pcf import reader as events  # noqa: E402

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
# Bytes of EBCDIC text fields (release, system id, QSG): digits, blanks, letters, and the superscript
# digits X'DA', X'EA', X'FA' that pass str.isdigit() once decoded but are no number.
TEXT_BYTES = (0xF0, 0xF1, 0xF9, 0x40, 0xC1, 0x00, 0xFF, 0xDA, 0xEA, 0xFA, 0x4B)
SMF_HEADER, QWHS, QWHX = header_layout("SMFHDR"), header_layout("QWHS"), header_layout("QWHX")


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
    kinds = EVENT_MUTATIONS if seed.framing == "dmpmqmsg" else MUTATIONS
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        if not buf:
            break
        kind = rng.choice(kinds)
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


def _field_value(rng, f) -> int:
    """An interesting value for a binary header field of ``f.length`` bytes."""
    width = min(f.length, 4)
    top = (1 << (8 * width)) - 1
    return rng.choice((0, 1, 2, top, top >> 1, (top >> 1) + 1, rng.randrange(top + 1)))


def _damage_field(rng, buf, base: int, f) -> None:
    """One header field at ``base + f.offset``: text fields get text bytes, the others values."""
    pos = base + f.offset
    if pos < 0 or pos >= len(buf):
        return
    if f.kind == "char":
        for i in rng.sample(range(f.length), rng.randint(1, f.length)):
            if pos + i < len(buf):
                buf[pos + i] = rng.choice(TEXT_BYTES)
    else:
        _put(buf, pos, _field_value(rng, f), min(f.length, 4))


def smf_header_damage(rng, buf, seed, seeds):
    """A field of a record's SMF header: flag (subtype valid), type, time, date, system, subtype, release."""
    if not seed.records:
        return bitflip(rng, buf, seed, seeds)
    _damage_field(rng, buf, rng.choice(seed.records) - RDW, rng.choice(SMF_HEADER.data_fields))


def qwhs_damage(rng, buf, seed, seeds):
    """A field of a record's QWHS (found through its first triplet): length, NSDA, release, flags
    (the QWHX bit switched), times; or of the QWHX that may follow it (QSG name, release text)."""
    if not seed.records:
        return bitflip(rng, buf, seed, seeds)
    start = rng.choice(seed.records) - RDW
    at = start + TRIPLET_AREA + TRIPLET_OFFSET.offset
    if at + TRIPLET_OFFSET.length > len(buf):
        return
    qwhs = start + int.from_bytes(buf[at : at + TRIPLET_OFFSET.length], "big")
    if not 0 <= qwhs < len(buf):
        return
    what = rng.randrange(4)
    if what == 0:  # the QWHX bit: a QWHX announced that is not there, or one not announced
        flag = qwhs + QWHS.field("QWHSFLAG1").offset
        if flag < len(buf):
            buf[flag] ^= QWHX_FOLLOWS
    elif what == 1:
        _damage_field(rng, buf, qwhs + QWHS_LONG, rng.choice(QWHX.data_fields))
    else:
        _damage_field(rng, buf, qwhs, rng.choice(QWHS.data_fields))


MUTATIONS = (
    bitflip,
    header_bitflip,
    header_bitflip,
    interesting_bytes,
    triplet_damage,
    triplet_damage,
    smf_header_damage,
    qwhs_damage,
    qwhs_damage,
    descriptor_damage,
    descriptor_damage,
    truncate,
    splice,
)


# ------------------------------------------------------------------------------------------------
# Event dumps (dmpmqmsg text: N, A <code> <value>, X <hex> lines)
# ------------------------------------------------------------------------------------------------


def build_event_seeds() -> list[Seed]:
    """Queue depth event dumps the generator writes: one per queue manager, big-endian EBCDIC (as
    z/OS writes them) and little-endian ASCII (as converted for x86)."""
    from mqsmf.generate import ScenarioConfig, generate_scenario
    from mqsmf.generate.events import write_events

    seeds = []
    with tempfile.TemporaryDirectory(prefix="mqsmf-fuzz-events-") as work:
        for k in (3, 4):
            manifest = write_events(
                generate_scenario(ScenarioConfig(seed=k, qmgrs=2, queues=5, intervals=3)), f"{work}/d{k}"
            )
            for qmgr, path in sorted(manifest["files"].items()):
                seeds.append(Seed(f"events{k}.{qmgr}", "dmpmqmsg", Path(path).read_bytes()))
    return seeds


def _lines(buf: bytearray) -> list[bytes]:
    return bytes(buf).split(b"\n")


def _set_lines(buf: bytearray, lines: list[bytes]) -> None:
    buf[:] = b"\n".join(lines)


MQMD_VALUES = (b"", b"0", b"-1", b"1", b"273", b"546", b"785", b"2147483648", b"-2147483649", b"99999999999999999999",
               b"500", b"37", b"1208", b"819", b"65535", b"x", b"\xda\xea", b"20251399", b"25000000", b"2025060")  # fmt: skip


def mqmd_damage(rng, buf, seed, seeds):
    """An MQMD attribute line (A <code> <value>): another value, removed, or repeated."""
    lines = _lines(buf)
    attrs = [i for i, line in enumerate(lines) if line.startswith(b"A ")]
    if not attrs:
        return text_damage(rng, buf, seed, seeds)
    i = rng.choice(attrs)
    code = lines[i][2:5]
    how = rng.randrange(5)
    if how == 0:
        del lines[i]
    elif how == 1:
        lines.insert(i, lines[i])
    else:
        lines[i] = b"A " + code + b" " + rng.choice(MQMD_VALUES)
    _set_lines(buf, lines)


def _message_data(lines: list[bytes], rng) -> tuple[list[int], bytearray, str] | None:
    """The X lines of one message, its data, and its byte order (from its ENC line)."""
    starts = [i for i, line in enumerate(lines) if line == b"N"]
    if not starts:
        return None
    first = rng.choice(starts)
    end = next((i for i in range(first + 1, len(lines)) if lines[i] == b"N"), len(lines))
    xs = [i for i in range(first, end) if lines[i].startswith(b"X ")]
    if not xs:
        return None
    enc = next((lines[i][6:] for i in range(first, end) if lines[i].startswith(b"A ENC ")), b"785")
    try:
        data = bytearray(bytes.fromhex(b"".join(lines[i][2:] for i in xs).decode("ascii")))
        order = events.byte_order(int(enc))
    except (ValueError, events.DumpError):
        return None
    return xs, data, order


def _write_message_data(lines: list[bytes], xs: list[int], data: bytes) -> list[bytes]:
    hexed = data.hex().upper().encode()
    per = 128
    new = [b"X " + hexed[i : i + per] for i in range(0, len(hexed), per)] or [b"X "]
    old = set(xs)
    return lines[: xs[0]] + new + [line for j, line in enumerate(lines) if j > xs[0] and j not in old]


PCF_INTS = (0, 1, 3, 4, 7, 8, 11, 12, 16, 20, 24, 36, 44, 1000, 1001, 0x7FFFFFFF, -1, -8, -0x80000000)


def pcf_damage(rng, buf, seed, seeds):
    """A field of a message's MQCFH or of one of its parameters (MQCFIN/MQCFST: Type, StrucLength,
    Parameter, CodedCharSetId, StringLength), or string bytes invalid in the character set."""
    lines = _lines(buf)
    found = _message_data(lines, rng)
    if found is None:
        return text_damage(rng, buf, seed, seeds)
    xs, data, order = found
    header = pcf_layouts.size("MQCFH")
    params, pos = [], header
    while pos + 8 <= len(data):  # the parameters as written (StrucLength at +4)
        params.append(pos)
        length = int.from_bytes(data[pos + 4 : pos + 8], "big" if order == ">" else "little", signed=True)
        if length < 8:
            break
        pos += length
    what = rng.randrange(4)
    if what == 0 or not params:
        f = rng.choice(pcf_layouts.structure("MQCFH"))
        at = f.offset
    elif what == 3:  # bytes no character set decodes (UTF-8 continuation, EBCDIC controls)
        at = rng.choice(params) + pcf_layouts.const("MQCFST_STRUC_LENGTH_FIXED")
        for i in range(rng.randint(1, 4)):
            if at + i < len(data):
                data[at + i] = rng.choice((0x80, 0xBF, 0xC0, 0xFE, 0xFF, 0x00, 0x15))
        _set_lines(buf, _write_message_data(lines, xs, data))
        return
    else:
        at = rng.choice(params) + 4 * rng.randrange(5)  # Type, StrucLength, Parameter, CCSID/Value, StringLength
    if at + 4 <= len(data):
        data[at : at + 4] = int(rng.choice(PCF_INTS)).to_bytes(4, "big" if order == ">" else "little", signed=True)
    _set_lines(buf, _write_message_data(lines, xs, data))


def text_damage(rng, buf, seed, seeds):
    """The dump's text: a line of another type, hex that is not, a line cut or doubled."""
    lines = _lines(buf)
    if not lines:
        return
    i = rng.randrange(len(lines))
    how = rng.randrange(5)
    if how == 0:
        lines.insert(i, rng.choice((b"T some text", b"S 00", b"N", b"X 0", b"X ZZ", b"A", b"A ENC", b"*", b"\xff\xfe")))
    elif how == 1:
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    elif how == 2:
        lines.insert(i, lines[i])
    elif how == 3 and lines[i].startswith(b"X "):
        lines[i] = lines[i] + rng.choice((b"0", b"G1", b" ", b"00" * rng.randint(1, 300)))
    else:
        del lines[i]
    _set_lines(buf, lines)


EVENT_MUTATIONS = (mqmd_damage, mqmd_damage, pcf_damage, pcf_damage, pcf_damage, text_damage, bitflip, truncate, splice)


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


def run_events(data: bytes) -> events.DumpReport:
    """An event dump through the reader, with its promises: every message decoded, skipped or
    quarantined; a row per decoded message; quarantine entries inside the input, with a reason."""
    table, report = events.read_dump_bytes(data, "<fuzz>")
    check(table.num_rows == report.decoded, f"{table.num_rows} rows for {report.decoded} decoded messages")
    quarantined = sum(1 for q in report.quarantine if q.reason.startswith("message "))
    check(
        report.messages == report.decoded + report.skipped + quarantined, "messages != decoded + skipped + quarantined"
    )
    for q in report.quarantine:
        check(bool(q.reason) and q.offset >= 0 and q.length >= 0 and q.offset + q.length <= len(data), f"bad entry {q}")
    return report


def run_one(data: bytes, framing: str) -> events.DumpReport | None:
    """One input through the public API with its promises checked (an event dump's report)."""
    if framing == "dmpmqmsg":
        return run_events(data)
    run_public(data, framing)
    return None


# ------------------------------------------------------------------------------------------------
# Limits
# ------------------------------------------------------------------------------------------------


class LimitExceeded(BaseException):  # not an Exception: the reader quarantines those
    """An input (or a chunk of them) ran past its time limit (raised by an interval timer wherever
    the reader is)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise LimitExceeded in this (main) thread when the block runs longer than ``seconds``."""

    def expired(signum, frame):
        raise LimitExceeded(f"took more than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _status_kb(key: str) -> int:
    """A figure of /proc/self/status in kB (VmSize: address space, VmRSS: resident)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def limit_memory(memory_mb: int) -> int:
    """Let this process's address space grow by ``memory_mb`` at most (RLIMIT_AS): past it an
    allocation raises MemoryError; returns the limit in bytes."""
    limit = _status_kb("VmSize") * 1024 + memory_mb * (1 << 20)
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    return limit


@dataclass
class Limits:
    input_seconds: float = 2.0  # one input alone, through the public API
    memory_mb: int | None = None  # address space a worker may add after building its seeds (None: no limit)
    chunk_factor: float = 10.0  # a chunk of inputs decoded together: this many times an input's limit


# ------------------------------------------------------------------------------------------------
# The campaign
# ------------------------------------------------------------------------------------------------


@dataclass
class Failure:
    seed: str
    framing: str
    mutations: list[str]
    error: str
    path: str


@dataclass
class Timing:
    """The slowest input timed alone, and the worst ratio of an input's time to its clean seed's."""

    slowest_seconds: float = 0.0
    slowest: str = ""
    worst_ratio: float = 0.0
    worst: str = ""
    timed: int = 0

    def add(self, seconds: float, clean: float, what: str) -> None:
        self.timed += 1
        if seconds > self.slowest_seconds:
            self.slowest_seconds, self.slowest = seconds, what
        ratio = seconds / max(clean, 1e-6)
        if ratio > self.worst_ratio:
            self.worst_ratio, self.worst = ratio, what

    def merge(self, other: Timing) -> None:
        self.timed += other.timed
        if other.slowest_seconds > self.slowest_seconds:
            self.slowest_seconds, self.slowest = other.slowest_seconds, other.slowest
        if other.worst_ratio > self.worst_ratio:
            self.worst_ratio, self.worst = other.worst_ratio, other.worst


def _timed(data: bytes, framing: str, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        run_one(data, framing)
        best = min(best, time.perf_counter() - t)
    return best


def run(
    inputs: int,
    seed: int,
    chunk: int,
    public_every: int,
    out_dir: str,
    limits: Limits | None = None,
    events_share: float = 0.1,
) -> tuple[Counter, list[Failure], Timing]:
    """One worker's share of the campaign (deterministic for a given seed)."""
    limits = limits or Limits()
    cpu0 = time.process_time()
    rng = random.Random(seed)
    seeds, event_seeds = build_seeds(), build_event_seeds()
    clean: dict[str, float] = {}  # what a seed costs unmutated (best of 3): the worst-case ratio's yardstick
    stats: Counter = Counter(rss_start_kb=_status_kb("VmRSS"), smf_seeds=len(seeds), event_seeds=len(event_seeds))
    if limits.memory_mb is not None:
        stats["memory_limit_bytes"] = limit_memory(limits.memory_mb)
    failures: list[Failure] = []
    timing = Timing()

    def alone(s: Seed, data: bytes, muts: list[str], framing: str):
        """One input under the input limits, timed (best of 3 when it looks slow: one pause of the
        machine is no finding); what the reader reported, or None when it failed (saved)."""
        try:
            with time_limit(limits.input_seconds):
                t = time.perf_counter()
                got = run_one(data, framing)
                seconds = time.perf_counter() - t
            if s.name not in clean:
                clean[s.name] = _timed(s.data, s.framing, 3)
            if seconds > 3 * clean[s.name]:
                with time_limit(limits.input_seconds * 2):
                    seconds = min(seconds, _timed(data, framing, 2))
            timing.add(seconds, clean[s.name], f"{s.name} {len(data):,} bytes {','.join(muts)}")
            return got
        except (Exception, LimitExceeded) as e:  # noqa: BLE001 - every one, MemoryError included, is a finding
            failures.append(_save(out_dir, s, data, muts, framing, e))
            return None

    done = 0
    while done < inputs:
        batch = []
        for _ in range(min(chunk, inputs - done)):
            pool = event_seeds if rng.random() < events_share else seeds
            s = rng.choice(pool)
            data, muts = mutate(rng, s, pool)
            framing = s.framing if s.framing == "dmpmqmsg" or rng.random() >= 0.25 else "auto"
            batch.append((s, data, muts, framing))
        done += len(batch)
        framed, event_inputs = [], []
        for s, data, muts, framing in batch:
            stats["inputs"] += 1
            if framing == "dmpmqmsg":
                stats["event_inputs"] += 1
                event_inputs.append((s, data, muts, framing))
                continue
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
            with time_limit(limits.input_seconds * limits.chunk_factor):
                stats.update(decode_chunk(framed))
        except (Exception, LimitExceeded):  # noqa: BLE001 - too slow, too big or raised: each input alone names it
            stats["chunks_rerun"] += 1
            for item in batch:
                if item[3] != "dmpmqmsg":
                    alone(*item)
        for s, data, muts, framing in event_inputs:
            report = alone(s, data, muts, framing)
            if report is not None:
                stats.update(
                    event_messages=report.messages,
                    event_messages_decoded=report.decoded,
                    event_messages_skipped=report.skipped,
                    event_quarantine_entries=len(report.quarantine),
                )
        sampled = 0
        if public_every:
            sampled = len(batch) // public_every + (rng.randrange(public_every) < len(batch) % public_every)
        for s, data, muts, framing in rng.sample(batch, sampled):
            if framing != "dmpmqmsg":
                before = len(failures)
                alone(s, data, muts, framing)
                stats["public_api_inputs"] += len(failures) == before
        if len(failures) > 20:
            break
    stats["cpu_ms"] = round((time.process_time() - cpu0) * 1000)
    stats["rss_peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return stats, failures, timing


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
    ap.add_argument("--public-every", type=int, default=100, help="about one input in N also via read_bytes, timed")
    ap.add_argument("--events-share", type=float, default=0.1, help="share of inputs that are event dumps")
    ap.add_argument("--input-seconds", type=float, default=2.0, help="time limit of one input alone")
    ap.add_argument(
        "--memory-mb", type=int, default=1024, help="address space a worker may add after building its seeds"
    )
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "mqsmf-fuzz"), help="crash inputs go here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    limits = Limits(args.input_seconds, args.memory_mb)
    share = [args.inputs // args.jobs + (1 if k < args.inputs % args.jobs else 0) for k in range(args.jobs)]
    work = [
        (n, args.seed * 1000 + k, args.chunk, args.public_every, args.out, limits, args.events_share)
        for k, n in enumerate(share)
    ]
    if args.jobs == 1:
        results = [_worker(work[0])]
    else:
        with mp.get_context("spawn").Pool(args.jobs, maxtasksperchild=1) as pool:
            results = pool.map(_worker, work)
    wall = time.perf_counter() - t0
    stats: Counter = Counter()
    failures: list[Failure] = []
    timing = Timing()
    peak_kb = start_kb = smf_seeds = event_seeds = 0
    for s, f, t in results:
        peak_kb, start_kb = max(peak_kb, s.pop("rss_peak_kb")), max(start_kb, s.pop("rss_start_kb"))
        smf_seeds, event_seeds = s.pop("smf_seeds"), s.pop("event_seeds")
        s.pop("memory_limit_bytes", None)
        stats.update(s)
        failures.extend(f)
        timing.merge(t)
    print(
        f"seeds            {smf_seeds} SMF (real dumps and generated records, RDW/BDW/NORDW), {event_seeds} event dumps"
    )
    print(
        f"inputs           {stats['inputs']:,} ({stats['refused']:,} refused with FramingError; "
        f"{stats['event_inputs']:,} event dumps)"
    )
    print(f"via read_bytes   {stats['public_api_inputs']:,} (timed alone)")
    print(
        f"records          {stats['records_framed']:,} framed = {stats['records_decoded']:,} decoded "
        f"+ {stats['records_quarantined']:,} quarantined + {stats['records_skipped']:,} skipped"
    )
    print(f"unexpected ids   {stats['records_with_unexpected_id']:,} records decoded with a warning")
    print(f"framing spans    {stats['framing_quarantine_spans']:,} quarantined")
    print(f"rows             {stats['rows']:,}")
    print(
        f"event messages   {stats['event_messages']:,} = {stats['event_messages_decoded']:,} decoded + "
        f"{stats['event_messages_skipped']:,} skipped + quarantined ({stats['event_quarantine_entries']:,} entries)"
    )
    print(
        f"limits           {args.input_seconds:g} s per input alone ({limits.chunk_factor:g}x per chunk of "
        f"{args.chunk}), +{args.memory_mb:,} MB address space per worker; {stats['chunks_rerun']:,} chunks "
        "re-run input by input"
    )
    print(f"peak RSS         {peak_kb / 1024:,.0f} MB per worker ({start_kb / 1024:,.0f} MB once its seeds were built)")
    print(f"slowest input    {timing.slowest_seconds * 1000:,.1f} ms: {timing.slowest}")
    print(
        f"worst case       {timing.worst_ratio:,.1f}x its clean seed's time ({timing.timed:,} inputs timed alone): "
        f"{timing.worst}"
    )
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
