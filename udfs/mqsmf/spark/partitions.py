"""Input partitions of the ``mqsmf`` data source, and how one partition becomes Arrow batches.

No Spark here: the data source (``datasource.py``) plans with :func:`plan_parts` on the driver and
calls :func:`part_batches` in its Python workers.

Partitions. Every input file is one partition; a file in RDW framing larger than ``split_bytes``
is cut into byte ranges at record boundaries found by framing the whole file once on the driver.
A cut is taken only where framing the range on its own must give exactly the records, quarantine
spans and offsets the whole-file walk gives: at the start of a logical record (never inside a
spanned one) with no damage within ``SPLIT_MARGIN`` bytes on either side, because the framer's
decisions look at most three segments (of at most 32,760 bytes) ahead of a position. BDW and NORDW
files are not split (block and NORDW record boundaries can sit further apart).

With the ``spool`` option a partition is decoded once, with all structures, into the load's spool
(``spool.py``), and every read of the partition comes from there.
"""

from __future__ import annotations

import glob
import hashlib
import json
import mmap
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..decode import TYPED, arrow_schema
from ..framing import FRAMERS, FRAMINGS, FramingError, detect_framing, frame
from ..layouts import layouts
from ..pcf import reader as events
from ..reader import FileReport, QuarantineEntry, decode_framed, iter_file, quarantine_table
from ..warehouse import AUDIT_SCHEMA, SOURCE_SHA256, quarantine_rows_schema
from . import spool as spool_store
from .spool import SPOOL_FORMAT

# Pseudo-structures: what a file read produced, rather than decoded rows.
AUDIT = "_audit"  # counts by (file, SMF type, subtype), as FileReport has them
QUARANTINE = "_quarantine"  # quarantined spans with their raw bytes
PSEUDO = (AUDIT, QUARANTINE)

DEFAULT_SPLIT_BYTES = 64 << 20
SPLIT_MARGIN = 4 * 32768
# A file whose framing cannot be recognised is quarantined whole; keep only its head as evidence.
UNFRAMED_RAW_BYTES = 64 << 10

QUARANTINE_ROWS_SCHEMA = quarantine_rows_schema()


def schema_of(structure: str, with_sha256: bool = False) -> pa.Schema:
    """Arrow schema of what the data source yields for a structure or pseudo-structure."""
    if structure == AUDIT:
        return AUDIT_SCHEMA
    if structure == QUARANTINE:
        return QUARANTINE_ROWS_SCHEMA
    schema = events.arrow_schema() if structure == events.STRUCTURE else arrow_schema(structure)
    return schema.append(SOURCE_SHA256) if with_sha256 else schema


def structure_name(name: str | None) -> str:
    """Canonical structure name ('qpst' -> 'QPST'; pseudo-structures stay lower case)."""
    if not name:
        raise ValueError(f"option 'structure' is required: one of {', '.join([*sorted(layouts()), *PSEUDO])}")
    if name.lower() in PSEUDO:
        return name.lower()
    if name.upper() == events.STRUCTURE:
        return events.STRUCTURE
    if name.upper() not in layouts():
        raise ValueError(f"unknown structure {name!r}: use one of {', '.join([*sorted(layouts()), *PSEUDO])}")
    return name.upper()


def check_framing(framing: str | None) -> str:
    framing = (framing or "auto").lower()
    if framing != "auto" and framing not in FRAMINGS:
        raise ValueError(f"unknown framing {framing!r}: use one of auto, {', '.join(FRAMINGS)}")
    return framing


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------


def expand_paths(specs: list[str | os.PathLike]) -> list[str]:
    """Absolute paths of the files that file, folder and glob specs name, in a stable order.

    A folder means every file below it (recursively) except hidden ones and ones starting with '_'
    (Spark's _SUCCESS and the like). A path that does not exist, or a glob matching nothing, is an
    error; an empty folder is not (nothing has arrived yet). A file named twice is read once."""
    files: list[str] = []
    for spec in specs:
        spec = os.path.expanduser(str(spec).strip())
        if not spec:
            continue
        if any(c in spec for c in "*?["):
            matches = sorted(glob.glob(spec, recursive=True))
            if not matches:
                raise FileNotFoundError(f"mqsmf: the pattern {spec} matches no file")
        else:
            matches = [spec]
        for m in matches:
            if os.path.isdir(m):
                files.extend(_files_below(m))
            elif os.path.isfile(m):
                files.append(os.path.abspath(m))
            else:
                raise FileNotFoundError(f"mqsmf: {m}: no such file or folder")
    return list(dict.fromkeys(files))


def _files_below(folder: str) -> list[str]:
    out = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        out.extend(os.path.abspath(os.path.join(root, n)) for n in sorted(names) if not n.startswith((".", "_")))
    return out


# --------------------------------------------------------------------------------------------
# Partitions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilePart:
    """One partition: a whole file (``hi is None``) or the byte range ``[lo, hi)`` of one."""

    path: str
    size: int
    mtime_ns: int
    framing: str  # as requested for whole files; the detected framing for ranges
    lo: int = 0
    hi: int | None = None
    sha256: str = ""  # whole-file digest, known in advance for ranges only

    @property
    def key(self) -> str:
        ident = f"{SPOOL_FORMAT}\0{self.path}\0{self.size}\0{self.mtime_ns}\0{self.framing}\0{self.lo}\0{self.hi}"
        return hashlib.sha1(ident.encode()).hexdigest()

    @property
    def label(self) -> str:
        return self.path if self.hi is None else f"{self.path} bytes {self.lo}-{self.hi}"


def plan_parts(files: list[str], framing: str, split_bytes: int = DEFAULT_SPLIT_BYTES, spool: str | None = None):
    """The partitions of ``files``: one per file, or one per byte range of large RDW files."""
    parts: list[FilePart] = []
    for path in files:
        st = os.stat(path)
        whole = FilePart(path, st.st_size, st.st_mtime_ns, framing)
        if split_bytes > 0 and st.st_size > split_bytes:
            parts.extend(_split(whole, split_bytes, spool))
        else:
            parts.append(whole)
    return parts


def _split(whole: FilePart, split_bytes: int, spool: str | None) -> list[FilePart]:
    cache = Path(spool) / f"split-{whole.key}-{split_bytes}.json" if spool else None
    if cache is not None and cache.exists():
        plan = json.loads(cache.read_text())
    else:
        plan = _split_plan(whole.path, whole.framing, split_bytes)
        if cache is not None:
            spool_store.spool_root(spool)
            tmp = cache.with_suffix(f".{uuid.uuid4().hex}.tmp")
            tmp.write_text(json.dumps(plan))
            os.replace(tmp, cache)
    if plan is None:
        return [whole]
    cuts = [0, *plan["cuts"], whole.size]
    return [
        FilePart(whole.path, whole.size, whole.mtime_ns, plan["framing"], lo, hi, plan["sha256"])
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)
    ]


def _split_plan(path: str, framing: str, split_bytes: int) -> dict | None:
    """Safe cut offsets of a large file, its framing and digest; None when it stays whole."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        try:
            framing = detect_framing(data) if framing == "auto" else framing
        except FramingError:
            return None  # the reader quarantines the whole file
        if framing != "rdw":
            return None
        fr = frame(data, framing)
        cuts = safe_cuts(fr.offsets, [(q.offset, q.offset + q.length) for q in fr.quarantine], len(data), split_bytes)
        if not cuts:
            return None
        return {"framing": framing, "cuts": cuts, "sha256": _sha256(data)}


def safe_cuts(offsets: np.ndarray, damage: list[tuple[int, int]], size: int, split_bytes: int) -> list[int]:
    """Record starts near every multiple of ``split_bytes`` with no damage within SPLIT_MARGIN."""
    offsets = np.asarray(offsets, dtype=np.int64)
    if damage:
        spans = np.array(sorted(damage), dtype=np.int64)
        ends = np.maximum.accumulate(spans[:, 1])
        first = np.searchsorted(ends, offsets - SPLIT_MARGIN, side="right")  # first span ending after
        clear = (first == len(spans)) | (spans[np.minimum(first, len(spans) - 1), 0] >= offsets + SPLIT_MARGIN)
        offsets = offsets[clear]
    targets = np.arange(split_bytes, size, split_bytes, dtype=np.int64)
    k = np.searchsorted(offsets, targets)
    cuts = np.unique(offsets[k[k < len(offsets)]])
    return [int(c) for c in cuts if 0 < c < size]


def _sha256(data) -> str:
    h = hashlib.sha256()
    mv = memoryview(data)
    try:
        for i in range(0, len(mv), 16 << 20):
            h.update(mv[i : i + (16 << 20)])
    finally:
        mv.release()
    return h.hexdigest()


# --------------------------------------------------------------------------------------------
# Decoding one partition
# --------------------------------------------------------------------------------------------


def decode_part(part: FilePart, names: list[str], report: FileReport) -> Iterator[tuple[str, pa.RecordBatch]]:
    """(structure, batch) pairs of one partition; counts and quarantine go to ``report``."""
    if part.hi is not None:
        yield from _decode_range(part, names, report)
        return
    if events.is_dump_file(part.path):  # a dmpmqmsg dump of event messages, not SMF
        yield from _decode_event_dump(part, report)
        return
    try:
        yield from iter_file(part.path, names, part.framing, TYPED, report=report, source_name=part.path)
    except FramingError as e:
        with open(part.path, "rb") as f:
            head = f.read(UNFRAMED_RAW_BYTES)
        kept = "" if len(head) == report.size else f"; raw_bytes holds its first {len(head)} bytes"
        reason = f"{e}: the whole file is quarantined{kept}"
        report.quarantine.append(QuarantineEntry(part.path, 0, report.size, reason, head))
        report.quarantined[(None, None)] += 1


def _decode_event_dump(part: FilePart, report: FileReport):
    """A message dump's queue depth events (structure PERFM_EVENT). Its audit row has framing
    'dmpmqmsg' and no SMF type: records read = messages, skipped = not queue depth events."""
    with open(part.path, "rb") as f:
        data = f.read()
    report.size, report.sha256, report.framing = len(data), _sha256(data), events.FRAMING
    table, dump = events.read_dump_bytes(data, part.path)
    key = (None, None)
    report.read[key] += dump.messages
    report.decoded[key] += dump.decoded
    report.skipped[key] += dump.skipped
    report.quarantined[key] += len(dump.quarantine)
    for q in dump.quarantine:
        report.quarantine.append(QuarantineEntry(part.path, q.offset, q.length, f"line {q.line}: {q.reason}", q.raw))
    report.instances[events.STRUCTURE] += table.num_rows
    if table.num_rows:
        yield from ((events.STRUCTURE, b) for b in table.combine_chunks().to_batches())


def _decode_range(part: FilePart, names: list[str], report: FileReport):
    report.size, report.sha256 = part.size, part.sha256
    with open(part.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if len(data) != part.size:
            raise OSError(f"{part.path}: changed while being loaded ({len(data)} bytes, planned for {part.size})")
        rng = memoryview(data)[part.lo : part.hi]
        try:
            fr = FRAMERS[part.framing](rng, None, part.lo)  # base=lo: offsets stay file offsets
        finally:
            rng.release()
        report.framing, report.segments = fr.framing, fr.segments
        for q in fr.quarantine:
            report.quarantine.append(
                QuarantineEntry(part.path, q.offset, q.length, q.reason, bytes(data[q.offset : q.offset + q.length]))
            )
            report.quarantined[(None, None)] += 1
        yield from decode_framed(fr, data, part.path, names, TYPED, report)


def audit_table(report: FileReport, part: FilePart) -> pa.Table:
    """The report's counts, one row per (SMF type, subtype); framing-level damage has NULL type and
    subtype. A file with no records at all still gets one (NULL, NULL) row, so the load shows it."""
    keys = sorted(set(report.read) | set(report.quarantined), key=lambda k: (k[0] is not None, k))
    if not keys and part.lo == 0:
        keys = [(None, None)]
    n = len(keys)
    return pa.Table.from_pydict(
        {
            "source_file": [part.path] * n,
            "file_size": [report.size] * n,
            "source_sha256": [report.sha256] * n,
            "framing": [report.framing or None] * n,
            "smf_type": [k[0] for k in keys],
            "smf_subtype": [k[1] for k in keys],
            "records_read": [report.read[k] for k in keys],
            "records_decoded": [report.decoded[k] for k in keys],
            "records_quarantined": [report.quarantined[k] for k in keys],
            "records_skipped": [report.skipped[k] for k in keys],
            "records_with_unexpected_id": [report.unexpected_id[k] for k in keys],
        },
        schema=AUDIT_SCHEMA,
    )


def quarantine_rows(report: FileReport) -> pa.Table:
    table = quarantine_table(report.quarantine)
    digest = pa.array([report.sha256] * table.num_rows, type=pa.string())
    return table.add_column(1, SOURCE_SHA256, digest)


def part_batches(
    part: FilePart, structure: str, spool: str | None = None, with_sha256: bool = False
) -> Iterator[pa.RecordBatch]:
    """The batches of one structure (or pseudo-structure) from one partition; ``with_sha256`` adds
    the file's digest as a last column ``source_sha256`` to structure rows."""
    if spool:  # the spool's structure rows carry the digest already
        for batch in _spooled(part, structure, spool):
            yield batch if with_sha256 or structure in PSEUDO else batch.drop_columns([SOURCE_SHA256.name])
        return
    report = FileReport(part.path)
    for batch in _decoded(part, structure, report):
        if with_sha256 and structure not in PSEUDO:
            batch = _with_sha256(batch, report.sha256)
        yield batch


def _with_sha256(batch: pa.RecordBatch, digest: str) -> pa.RecordBatch:
    return batch.append_column(SOURCE_SHA256, pa.array([digest] * batch.num_rows, type=pa.string()))


def _decoded(part: FilePart, structure: str, report: FileReport) -> Iterator[pa.RecordBatch]:
    # Counts and quarantine do not depend on the structures decoded (every record is checked whole).
    names = [] if structure in PSEUDO else [structure]
    for name, batch in decode_part(part, names, report):
        if name == structure:
            yield batch
    if structure == AUDIT:
        yield from audit_table(report, part).to_batches()
    elif structure == QUARANTINE:
        yield from quarantine_rows(report).to_batches()


def _spooled(part: FilePart, structure: str, spool: str) -> Iterator[pa.RecordBatch]:
    """The structure's batches of a partition from the load's spool, decoding the partition into
    it (with every structure, its counts and quarantine) the first time. Structure rows are stored
    with their file's digest as last column (``schema_of(structure, with_sha256=True)``), the
    schema staging reads (``staging.py``)."""
    entry = spool_store.entry(spool, part.key)
    if not entry.exists():
        report = FileReport(part.path)

        def tables() -> dict[str, pa.Table]:
            return {AUDIT: audit_table(report, part), QUARANTINE: quarantine_rows(report)}

        # The digest is known before the first batch (whole files are digested first, ranges planned with it).
        decoded = ((n, _with_sha256(b, report.sha256)) for n, b in decode_part(part, sorted(layouts()), report))
        spool_store.fill(entry, decoded, tables)
    return spool_store.read(entry, structure)
