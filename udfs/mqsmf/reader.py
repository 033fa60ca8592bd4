"""Read SMF dump files: framing -> record batches -> decoded Arrow tables, with quarantine and
counts. This is the package's public reading API; it imports no Spark."""

from __future__ import annotations

import hashlib
import mmap
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .decode import TYPED, RecordBuffer, decode_batch, parse_headers
from .framing import Framed, frame
from .headers import SMF_TYPE
from .layouts import layouts, placements

DEFAULT_BATCH_BYTES = 64 << 20
_PAD = 8192  # zero bytes after a batch: gathers past an instance's end read zeros from here


@dataclass
class QuarantineEntry:
    source_file: str
    offset: int
    length: int
    reason: str
    raw: bytes
    smf_type: int | None = None
    smf_subtype: int | None = None

    def __str__(self) -> str:
        what = f" (SMF {self.smf_type}/{self.smf_subtype})" if self.smf_type is not None else ""
        return f"{self.source_file}: offset {self.offset}, {self.length} bytes{what}: {self.reason}"


QUARANTINE_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("offset", pa.int64()),
        ("length", pa.int64()),
        ("smf_type", pa.int16()),
        ("smf_subtype", pa.int32()),
        ("reason", pa.string()),
        ("raw_bytes", pa.binary()),
    ]
)


@dataclass
class FileReport:
    """What reading one file found: framing, counts by (type, subtype), quarantine."""

    source_file: str
    size: int = 0
    framing: str = ""
    segments: int = 0
    read: Counter = field(default_factory=Counter)  # (type, subtype) -> logical records
    decoded: Counter = field(default_factory=Counter)  # records that yielded structures
    skipped: Counter = field(default_factory=Counter)  # not MQ statistics we decode (dump header, ...)
    quarantined: Counter = field(default_factory=Counter)  # (type|None, subtype|None) -> count
    # Decoded records with a structure whose identifier is not the layout's (a warning, not damage:
    # the triplet and the eyecatcher identify the structure). Counted per record like the others.
    unexpected_id: Counter = field(default_factory=Counter)  # (type, subtype) -> records
    unexpected_ids: Counter = field(default_factory=Counter)  # (structure, "X'....'") -> instances
    instances: Counter = field(default_factory=Counter)  # structure -> rows
    quarantine: list[QuarantineEntry] = field(default_factory=list)
    sha256: str = ""

    def quarantine_table(self) -> pa.Table:
        return quarantine_table(self.quarantine)


def quarantine_table(entries: Iterable[QuarantineEntry]) -> pa.Table:
    entries = list(entries)
    return pa.Table.from_pydict(
        {
            "source_file": [e.source_file for e in entries],
            "offset": [e.offset for e in entries],
            "length": [e.length for e in entries],
            "smf_type": [e.smf_type for e in entries],
            "smf_subtype": [e.smf_subtype for e in entries],
            "reason": [e.reason for e in entries],
            "raw_bytes": [e.raw for e in entries],
        },
        schema=QUARANTINE_SCHEMA,
    )


def _open(path: str):
    size = os.path.getsize(path)
    if size == 0:
        return b"", None
    f = open(path, "rb")  # noqa: SIM115 - stays open as long as the mmap over it
    try:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), f
    except (ValueError, OSError):
        data = f.read()
        f.close()
        return data, None


def _batches(fr: Framed, data, source: str, batch_bytes: int) -> Iterator[tuple[RecordBuffer, np.ndarray]]:
    """Group framed records into contiguous batches of about ``batch_bytes`` file bytes."""
    n = len(fr)
    if n == 0:
        return
    hdr = fr.header_bytes  # record start = RDW position; NORDW records get a virtual RDW
    starts = fr.offsets - (4 - hdr)  # where the (possibly virtual) RDW would be
    ends = np.where(np.isin(np.arange(n), list(fr.spanned)), fr.offsets, fr.offsets + fr.lengths - (4 - hdr))
    i = 0
    whole = np.frombuffer(data, dtype=np.uint8)
    while i < n:
        lo_file = max(0, int(starts[i]))
        j = int(np.searchsorted(ends, lo_file + batch_bytes, side="right"))
        j = max(j, i + 1)
        j = min(j, n)
        hi_file = int(ends[i:j].max())
        span = whole[lo_file:hi_file]
        lead = 4  # room for a virtual RDW before the first NORDW record
        extra = sum(len(fr.spanned[k]) for k in range(i, j) if k in fr.spanned)
        buf = np.zeros(lead + len(span) + extra + _PAD, dtype=np.uint8)
        buf[lead : lead + len(span)] = span
        base = lead + (starts[i:j] - lo_file)
        pos = lead + len(span)
        for k in range(i, j):
            if k in fr.spanned:
                rec = np.frombuffer(fr.spanned[k], dtype=np.uint8)
                buf[pos : pos + len(rec)] = rec
                base[k - i] = pos
                pos += len(rec)
        rb = RecordBuffer(
            buf,
            base.astype(np.int64),
            fr.lengths[i:j].copy(),
            fr.offsets[i:j].copy(),
            fr.ends[i:j].copy(),
            source,
            len(buf) - _PAD,
        )
        yield rb, np.arange(i, j)
        i = j


def iter_file(
    path: str,
    structures: Iterable[str] | None = None,
    framing: str = "auto",
    mode: str = TYPED,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    report: FileReport | None = None,
    source_name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[str, pa.RecordBatch]]:
    """Yield (structure, RecordBatch) for one file. Damage is recorded in ``report`` (quarantine
    list and counts); it never ends the iteration early. ``progress``, if given, is called with the
    number of file bytes read so far after each batch (``report.size`` is the total)."""
    names = _structure_names(structures)
    source = source_name or path
    data, fh = _open(path)
    try:
        yield from iter_bytes(data, source, names, framing, mode, report, batch_bytes, progress)
    finally:
        if fh is not None:
            data.close()
            fh.close()


def decode_framed(
    fr: Framed,
    data,
    source: str,
    names: list[str],
    mode: str,
    report: FileReport,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[str, pa.RecordBatch]]:
    """Decode already-framed records of ``data`` (the whole file, or the mapped file a byte range
    was framed in) batch by batch, counting into ``report``; ``progress(bytes read)`` after each."""
    batches = _batches(fr, data, source, batch_bytes)
    try:
        for rb, _ in batches:
            yield from _decode_records(rb, names, mode, report, data)
            if progress is not None and len(rb):
                progress(int(rb.file_end.max()))
    finally:
        batches.close()  # drops the batch's view of ``data`` before the caller closes it


def _records(rb: RecordBuffer, lo: int, hi: int) -> RecordBuffer:
    """Records lo..hi-1 of a batch (the same buffer)."""
    cut = slice(lo, hi)
    return RecordBuffer(
        rb.buf, rb.base[cut], rb.length[cut], rb.file_offset[cut], rb.file_end[cut], rb.source_file, rb.pad
    )


def _quarantine_record(rb: RecordBuffer, i: int, key, reason: str, report: FileReport, data) -> None:
    report.quarantined[key] += 1
    start, end = int(rb.file_offset[i]), int(rb.file_end[i])
    # The file's own bytes (every segment, descriptor words included) are the evidence;
    # without the file, the record as reassembled.
    raw = bytes(data[start:end]) if data is not None else rb.buf[rb.base[i] : rb.base[i] + rb.length[i]].tobytes()
    report.quarantine.append(QuarantineEntry(rb.source_file, start, end - start, reason, raw, *key))


def _decode_records(rb: RecordBuffer, names: list[str], mode: str, report: FileReport, data=None):
    """Decode one batch into ``report``. Damage is found and quarantined by the decoder; should a
    record still make it fail (a bug, not a contract), the batch is halved until that record is
    alone, and it alone is quarantined: no exception leaves the reader and the rest is read."""
    try:
        decoded = _decode_all(rb, names, mode)
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure inside a record becomes a quarantine entry
        if len(rb) > 1:
            half = len(rb) // 2
            yield from _decode_records(_records(rb, 0, half), names, mode, report, data)
            yield from _decode_records(_records(rb, half, len(rb)), names, mode, report, data)
            return
        base = int(rb.base[0])
        key = (int(rb.buf[base + SMF_TYPE]), None)
        report.read[key] += 1
        _quarantine_record(rb, 0, key, f"record cannot be decoded: {e}", report, data)
        return
    yield from _account(rb, decoded, report, data)


def _decode_all(rb: RecordBuffer, names: list[str], mode: str):
    hd = parse_headers(rb)
    types, subs = hd.smf_type, hd.smf_subtype
    known = set(placements())
    problem = list(hd.problem)
    good = np.array([p is None for p in problem], dtype=bool)
    decodable = np.array([(int(t), int(s)) in known for t, s in zip(types, subs, strict=True)], dtype=bool)
    batches, probs, warnings = decode_batch(rb, hd, good & decodable, names, mode)
    return types, subs, problem, decodable, batches, probs, warnings


def _account(rb: RecordBuffer, decoded, report: FileReport, data):
    types, subs, problem, decodable, batches, probs, warnings = decoded
    for i, reason in probs.items():
        problem[i] = reason
    warned = set()
    for w in warnings:
        report.unexpected_ids[(w.structure, f"X'{w.found_id:04X}'")] += w.instances
        if w.record not in warned:
            warned.add(w.record)
            report.unexpected_id[(int(types[w.record]), int(subs[w.record]))] += 1
    for i in range(len(rb)):
        key = (int(types[i]), int(subs[i]))
        report.read[key] += 1
        if problem[i] is not None:
            _quarantine_record(rb, i, key, problem[i], report, data)
        elif decodable[i]:
            report.decoded[key] += 1
        else:
            report.skipped[key] += 1
    for name, batch in batches.items():
        report.instances[name] += batch.num_rows
        if batch.num_rows:
            yield name, batch


def _digest(data) -> str:
    h = hashlib.sha256()
    mv = memoryview(data)
    for i in range(0, len(mv), 16 << 20):
        h.update(mv[i : i + (16 << 20)])
    return h.hexdigest()


def _structure_names(structures: Iterable[str] | None) -> list[str]:
    if structures is None:
        return sorted(layouts())
    names = []
    for s in structures:
        s = s.upper()
        if s not in layouts():
            raise KeyError(f"unknown structure {s!r}; known: {', '.join(sorted(layouts()))}")
        names.append(s)
    return names


def iter_bytes(
    data: bytes,
    source_name: str = "<bytes>",
    structures: Iterable[str] | None = None,
    framing: str = "auto",
    mode: str = TYPED,
    report: FileReport | None = None,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[str, pa.RecordBatch]]:
    """:func:`iter_file` for a dump already in memory (bytes, or a mapped file; ``source_name``
    stands for the file). Damage is recorded in ``report``; it never ends the iteration early.
    ``progress(bytes read)`` after each batch."""
    names = _structure_names(structures)
    report = report if report is not None else FileReport(source_name)
    report.size = len(data)
    report.sha256 = _digest(data)
    if not len(data):
        return
    fr = frame(data, framing)
    report.framing, report.segments = fr.framing, fr.segments
    for q in fr.quarantine:
        report.quarantine.append(
            QuarantineEntry(source_name, q.offset, q.length, q.reason, bytes(data[q.offset : q.offset + q.length]))
        )
        report.quarantined[(None, None)] += 1
    yield from decode_framed(fr, data, source_name, names, mode, report, batch_bytes, progress)


def read_bytes(
    data: bytes,
    source_name: str = "<bytes>",
    structures: Iterable[str] | None = None,
    framing: str = "auto",
    mode: str = TYPED,
):
    """:func:`read_file` for a dump already in memory: ({structure: pa.Table}, FileReport)."""
    report = FileReport(source_name)
    parts: dict[str, list[pa.RecordBatch]] = {}
    for name, batch in iter_bytes(data, source_name, structures, framing, mode, report):
        parts.setdefault(name, []).append(batch)
    return {k: pa.Table.from_batches(v) for k, v in parts.items()}, report


def read_file(path: str, structures: Iterable[str] | None = None, framing: str = "auto", mode: str = TYPED):
    """Decode a whole file: ({structure: pa.Table}, FileReport)."""
    report = FileReport(path)
    parts: dict[str, list[pa.RecordBatch]] = {}
    for name, batch in iter_file(path, structures, framing, mode, report=report):
        parts.setdefault(name, []).append(batch)
    return {k: pa.Table.from_batches(v) for k, v in parts.items()}, report
