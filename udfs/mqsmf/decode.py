"""Layout-driven, vectorized decoding of SMF 115/116 records into Arrow record batches.

A batch of logical records lives in one contiguous uint8 buffer. Headers, triplets and every
structure are decoded for all records (or all instances) at once: their bytes are gathered into an
``(n, size)`` array, viewed through the layout's big-endian numpy structured dtype, and each column
is converted to Arrow in one vector operation. Fields beyond an instance's own length (its
``...LL`` field or the triplet length) are NULL, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import codecs
from .headers import (
    BLOCK_EYECATCHER,
    BLOCK_HEADER_SIZE,
    BLOCK_ID,
    MQ_TYPES,
    QWHC_SIZE,
    QWHS_LONG,
    QWHS_SHORT,
    QWHX_FOLLOWS,
    QWHX_SIZE,
    SUBTYPE_VALID,
    TRIPLET_AREA,
    TRIPLET_DTYPE,
    TRIPLET_SIZE,
    qwhsdurn_in_tod_units,
)
from .layouts import U64_TYPE, Layout, header_layout, layouts

TYPED, RAW = "typed", "raw"
_GATHER_ROWS = 16384  # rows gathered at once: bounds the index array's memory
_CUT_LENGTHS_ZEROED_APART = 16  # distinct instance lengths whose tails gather zeroes one by one
# STATIME and ACCTIME are at most 1440 minutes: a longer QWHSDURN is damage, and its end would be
# beyond any timestamp Arrow can turn into a datetime. Such an interval has no end (NULL).
MAX_INTERVAL_US = 1440 * 60 * 1_000_000


@dataclass
class RecordBuffer:
    """Logical records of one batch: ``buf[base[i] : base[i] + length[i]]`` is record i, RDW first.
    ``buf`` ends with zero padding, at index ``pad``, used for bytes beyond an instance's end."""

    buf: np.ndarray
    base: np.ndarray
    length: np.ndarray
    file_offset: np.ndarray
    file_end: np.ndarray  # file offset just past the record's last byte
    source_file: str
    pad: int

    def __len__(self) -> int:
        return len(self.base)


def gather(rb: RecordBuffer, starts: np.ndarray, avail: np.ndarray, size: int) -> np.ndarray:
    """Bytes ``[start, start + size)`` of every instance as an ``(n, size)`` uint8 array; bytes at
    or beyond ``avail`` read as zero."""
    if len(starts) == 0 or size == 0 or size > len(rb.buf):
        return _gather_indexed(rb, starts, avail, size)
    # Each instance is a row of a sliding window over the buffer: one row copy each, not an index
    # array of eight bytes per byte. Bytes past an instance's end are then zeroed; only an instance
    # whose window would run off the buffer's end takes the indexed way.
    windows = np.lib.stride_tricks.sliding_window_view(rb.buf, size)
    in_buffer = starts + size <= len(rb.buf)
    if in_buffer.all():
        out = windows[starts]
    else:
        out = np.empty((len(starts), size), dtype=np.uint8)
        out[in_buffer] = windows[starts[in_buffer]]
        out[~in_buffer] = _gather_indexed(rb, starts[~in_buffer], avail[~in_buffer], size)
    cut = np.flatnonzero((avail < size) & in_buffer)
    lengths = np.unique(avail[cut])
    if len(lengths) <= _CUT_LENGTHS_ZEROED_APART:
        # Instances of one structure are cut at few lengths (one per release): zero each length's
        # tail as one slice, cheaper than a byte mask.
        for length in lengths:
            out[cut[avail[cut] == length], max(int(length), 0) :] = 0
    else:
        rows = out[cut]
        rows[np.arange(size)[None, :] >= avail[cut, None]] = 0
        out[cut] = rows
    return out


def _gather_indexed(rb: RecordBuffer, starts: np.ndarray, avail: np.ndarray, size: int) -> np.ndarray:
    """:func:`gather` through an index array per byte (missing bytes index the buffer's zero pad)."""
    n = len(starts)
    out = np.empty((n, size), dtype=np.uint8)
    cols = np.arange(size, dtype=np.int64)
    for lo in range(0, n, _GATHER_ROWS):
        hi = min(n, lo + _GATHER_ROWS)
        idx = starts[lo:hi, None] + cols[None, :]
        np.copyto(idx, rb.pad, where=cols[None, :] >= avail[lo:hi, None])
        out[lo:hi] = rb.buf[idx]
    return out


def view(raw: np.ndarray, lay: Layout) -> np.ndarray:
    return raw.view(lay.numpy_dtype()).reshape(len(raw))


def _be(rb: RecordBuffer, pos: np.ndarray, width: int) -> np.ndarray:
    """Big-endian unsigned integers of ``width`` bytes at buffer positions ``pos``."""
    v = np.zeros(len(pos), dtype=np.uint64)
    for k in range(width):
        v = (v << np.uint64(8)) | rb.buf[pos + k].astype(np.uint64)
    return v


# --------------------------------------------------------------------------------------------
# Record headers and triplets
# --------------------------------------------------------------------------------------------


@dataclass
class Headers:
    """Per-record header values, all numpy arrays of the batch's length."""

    smf_type: np.ndarray
    smf_subtype: np.ndarray
    smf: np.ndarray  # SMFHDR structured view
    qwhs: np.ndarray  # QWHS structured view (zeros where absent)
    has_qwhs: np.ndarray
    long_qwhs: np.ndarray
    qwhx: np.ndarray
    has_qwhx: np.ndarray
    nsda: np.ndarray
    triplets: np.ndarray  # (n, max_nsda, 3): offset, length, count
    problem: list[str | None]  # reason a record is quarantined, or None


def parse_headers(rb: RecordBuffer) -> Headers:
    n = len(rb)
    smf_lay, qwhs_lay, qwhx_lay = header_layout("SMFHDR"), header_layout("QWHS"), header_layout("QWHX")
    smf = view(gather(rb, rb.base, np.minimum(rb.length, smf_lay.size), smf_lay.size), smf_lay)
    smf_type = smf["SM11xRTY"].astype(np.int32)
    has_sub = (smf["SM11xFLG"] & SUBTYPE_VALID) != 0
    smf_subtype = np.where(has_sub, smf["SM11xSTF"].astype(np.int32), -1)
    problem: list[str | None] = [None] * n
    is_mq = np.isin(smf_type, MQ_TYPES)

    short = is_mq & (rb.length < TRIPLET_AREA + TRIPLET_SIZE)
    for i in np.nonzero(short)[0]:
        problem[i] = f"record of {rb.length[i]} bytes is too short for the SMF header and triplet 0"
    mq = is_mq & ~short

    t0 = np.zeros((n, 3), dtype=np.int64)
    t0[mq] = _triplet(rb, rb.base[mq] + TRIPLET_AREA)
    off0, len0 = t0[:, 0], t0[:, 1]
    bad0 = mq & ((off0 < TRIPLET_AREA + TRIPLET_SIZE) | (off0 + len0 > rb.length) | (len0 < 4))
    for i in np.nonzero(bad0)[0]:
        problem[i] = f"triplet 0 (offset {off0[i]}, length {len0[i]}) lies outside the {rb.length[i]}-byte record"
    mq &= ~bad0

    has_qwhs = mq & (len0 >= QWHS_SHORT)
    qwhs = np.zeros(n, dtype=qwhs_lay.numpy_dtype())
    starts = rb.base + off0
    qwhs[has_qwhs] = view(gather(rb, starts[has_qwhs], len0[has_qwhs], qwhs_lay.size), qwhs_lay)
    qwhslen = qwhs["QWHSLEN"].astype(np.int64)
    long_qwhs = has_qwhs & (qwhslen >= QWHS_LONG) & (len0 >= QWHS_LONG)
    short_qwhs = has_qwhs & (qwhslen == QWHS_SHORT)

    # QWHX (MQ 10): after a long QWHS, or after QWHS(36)+QWHC(92); trust the flag only with a
    # release >= 946 on short headers, whose flag byte holds garbage in older releases.
    rel = smf["SM11xREL"]
    rel_is_10 = np.array([r >= b"\xf9\xf4\xf6" for r in rel]) if n else np.zeros(0, bool)
    flag = (qwhs["QWHSFLAG1"] & QWHX_FOLLOWS) != 0
    qwhx_off = np.where(long_qwhs, qwhslen, QWHS_SHORT + QWHC_SIZE)
    want_qwhx = has_qwhs & flag & (long_qwhs | (short_qwhs & rel_is_10)) & (len0 >= qwhx_off + QWHX_SIZE)
    qwhx = np.zeros(n, dtype=qwhx_lay.numpy_dtype())
    qwhx[want_qwhx] = view(
        gather(rb, starts[want_qwhx] + qwhx_off[want_qwhx], np.full(want_qwhx.sum(), QWHX_SIZE), QWHX_SIZE), qwhx_lay
    )
    has_qwhx = want_qwhx & (qwhx["QWHXLEN"] == QWHX_SIZE)

    # Number of meaningful triplets: QWHSNSDA, or 2 without a QWHS (as IBM's formatter assumes).
    nsda = np.where(has_qwhs, qwhs["QWHSNSDA"].astype(np.int64), np.where(mq, 2, 0))
    nsda = np.maximum(np.where(mq, nsda, 0), np.where(mq, 1, 0))
    too_many = mq & (TRIPLET_AREA + TRIPLET_SIZE * nsda > off0) & has_qwhs
    # Triplets must end before the data they describe starts; trim NSDA that claims otherwise.
    nsda = np.where(too_many, np.maximum(1, (off0 - TRIPLET_AREA) // TRIPLET_SIZE), nsda)
    # Only the triplets a structure is placed at are kept (a dense (records, triplets) array sized
    # by the batch's largest NSDA would cost every record what one record claims); the others are
    # checked one triplet index at a time, over the records that have it, and dropped.
    max_t = int(nsda.max()) if n else 0
    kept_t = min(max_t, _TRIPLETS_KEPT)
    trip = np.zeros((n, max(kept_t, 1), 3), dtype=np.int64)
    for t in range(max_t):
        sel = np.flatnonzero(nsda > t)
        tt = _triplet(rb, rb.base[sel] + TRIPLET_AREA + TRIPLET_SIZE * t)
        if t < kept_t:
            trip[sel, t] = tt
        off, ln, cnt = tt[:, 0], tt[:, 1], tt[:, 2]
        # A plausible triplet's instances fit its record, each at least one byte long: a count the
        # record cannot hold (length 0 and count 65535) is damage, not 65535 empty instances.
        bad = (cnt > 0) & ((off < TRIPLET_AREA) | (off + np.maximum(ln, 1) * cnt > rb.length[sel]))
        for k in np.nonzero(bad)[0]:
            i = int(sel[k])
            if problem[i] is None:
                problem[i] = (
                    f"triplet {t} (offset {off[k]}, {cnt[k]} x {ln[k]} bytes) does not fit the "
                    f"{rb.length[i]}-byte record"
                )
    return Headers(smf_type, smf_subtype, smf, qwhs, has_qwhs, long_qwhs, qwhx, has_qwhx, nsda, trip, problem)


def _triplet(rb: RecordBuffer, pos: np.ndarray) -> np.ndarray:
    """Offset, length and count of the triplets at buffer positions ``pos``, as an (n, 3) array."""
    return np.stack([_be(rb, pos + o, w) for o, w in _TRIPLET_FIELDS], axis=1).astype(np.int64)


_TRIPLETS_KEPT = max(p.triplet for lay in layouts().values() for p in lay.placements) + 1
_TRIPLET_FIELDS = tuple((TRIPLET_DTYPE.fields[k][1], TRIPLET_DTYPE[k].itemsize) for k in ("offset", "length", "count"))


# --------------------------------------------------------------------------------------------
# Structure instances
# --------------------------------------------------------------------------------------------


@dataclass
class Instances:
    """Where the instances of one structure are in a batch."""

    record: np.ndarray  # record index of each instance
    start: np.ndarray  # buffer position
    avail: np.ndarray  # bytes available to the instance (triplet length or entry size)
    entry_index: np.ndarray


@dataclass
class IdWarning:
    """A structure found where its self-defining section puts it, with its eyecatcher, but with an
    identifier other than the layout's: decoded, and counted (``FileReport.unexpected_ids``)."""

    record: int  # record index in the batch
    structure: str
    found_id: int
    instances: int


def locate(
    rb: RecordBuffer, hd: Headers, lay: Layout, good: np.ndarray
) -> tuple[Instances, dict[int, str], list[IdWarning]]:
    """Instances of ``lay`` in the good records, the problems found (record index -> reason) and
    the unexpected identifiers.

    A structure is identified as the format and IBM's formatters identify it: by the triplet that
    locates it and by its eyecatcher. The 2-byte identifier is checked too, but a different one is
    only a warning (IBM documents eyecatchers, and has published wrong identifiers: QIS1 is X'C927'
    in real data). A record is quarantined only when a structure cannot be decoded safely: an
    instance too short to hold its own header, or a wrong eyecatcher (the bytes are not this
    structure)."""
    recs, starts, avails, entries = [], [], [], []
    problems: dict[int, str] = {}
    least = min_instance_length(lay)
    # The shortest instance a triplet may describe: one that holds its block header (identifier,
    # length, eyecatcher), else one byte. Shorter ones than ``least`` are located, then quarantined
    # with their own reason (no natural key).
    shortest = BLOCK_HEADER_SIZE if lay.eyecatcher is not None else 1
    for p in lay.placements:
        sel = good & (hd.smf_type == p.smf_type) & (hd.smf_subtype == p.smf_subtype) & (hd.nsda > p.triplet)
        if not sel.any():
            continue
        idx = np.nonzero(sel)[0]
        off, ln, cnt = (hd.triplets[idx, p.triplet, k] for k in range(3))
        # Plausible only if the instances, each at least as long as the structure's shortest
        # instance, fit the record (one instance is always located, so a single short one gets its
        # own reason): the instances built below never outnumber the record's bytes divided by
        # that length, whatever the count says.
        room = np.maximum(rb.length[idx] - off, 0)
        implausible = (cnt > np.maximum(1, room // np.maximum(ln, shortest))) & (cnt > 0)
        for k in np.nonzero(implausible)[0]:
            problems.setdefault(
                int(idx[k]),
                f"triplet {p.triplet} claims {cnt[k]} {lay.name} instances of {ln[k]} bytes: the "
                f"{rb.length[idx[k]]}-byte record cannot hold {cnt[k]} of at least {shortest} bytes from offset {off[k]}",
            )
        keep = (cnt > 0) & ~implausible
        idx, off, ln, cnt = idx[keep], off[keep], ln[keep], cnt[keep]
        rec = np.repeat(idx, cnt)
        j = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        recs.append(rec)
        starts.append(rb.base[rec] + np.repeat(off, cnt) + np.repeat(ln, cnt) * j)
        avails.append(np.repeat(ln, cnt))
        entries.append(j)
    if not recs:
        e = np.zeros(0, dtype=np.int64)
        return Instances(e, e, e, e), problems, []
    inst = Instances(*(np.concatenate(a) for a in (recs, starts, avails, entries)))
    warnings: list[IdWarning] = []
    if lay.eyecatcher is not None:
        head = gather(rb, inst.start, inst.avail, BLOCK_HEADER_SIZE)
        blank = ~head.any(axis=1)  # all-zero slots (the obsolete 115/2 QPST slot) are not instances
        eye_bytes = head[:, BLOCK_EYECATCHER.offset : BLOCK_EYECATCHER.end]
        eye = eye_bytes.copy().view(f"S{BLOCK_EYECATCHER.length}").reshape(-1)
        short = ~blank & (inst.avail < BLOCK_HEADER_SIZE)
        wrong_eye = ~blank & ~short & (eye != lay.eyecatcher_ebcdic)
        # An instance that ends before its natural key (a QQST without its queue name) would be a
        # row of NULLs no rule can judge: the record is quarantined instead.
        keyless = ~blank & ~short & ~wrong_eye & (inst.avail < least)
        for k in np.nonzero(short | wrong_eye | keyless)[0]:
            r = int(inst.record[k])
            where = f"{lay.name} instance {inst.entry_index[k]} at record offset {inst.start[k] - rb.base[r]}"
            if short[k]:
                reason = f"{where} is {inst.avail[k]} bytes long, too short for its identifier, length and eyecatcher"
            elif keyless[k]:
                reason = (
                    f"{where} is {inst.avail[k]} bytes long, too short for its natural key "
                    f"({', '.join(lay.natural_key)} end at byte {least})"
                )
            else:
                got = bytes(eye_bytes[k]).decode("cp037", "replace")
                reason = f"{where} has eyecatcher {got!r} (expected {lay.eyecatcher!r})"
            problems.setdefault(r, reason)
        if lay.id_value is not None:
            ident = head[:, BLOCK_ID.offset : BLOCK_ID.end].copy().view(BLOCK_ID.dtype).reshape(-1).astype(np.int64)
            odd = ~blank & ~short & ~wrong_eye & (ident != lay.id_value)
            if odd.any():
                pairs, n = np.unique(np.stack([inst.record[odd], ident[odd]], axis=1), axis=0, return_counts=True)
                warnings = [IdWarning(int(r), lay.name, int(i), int(c)) for (r, i), c in zip(pairs, n, strict=True)]
        inst = _subset(inst, ~blank)
    if lay.entry_start is not None:
        # Header plus fixed entries (QEST): every used entry becomes an instance.
        # Only the entries that fit the instance are built (never entry_count per instance).
        fit = np.clip((inst.avail - lay.entry_start) // lay.entry_size, 0, lay.entry_count)
        rec = np.repeat(inst.record, fit)
        k = np.arange(int(fit.sum())) - np.repeat(np.cumsum(fit) - fit, fit)
        start = np.repeat(inst.start, fit) + lay.entry_start + k * lay.entry_size
        inst = Instances(rec, start, np.full(len(rec), lay.entry_size), k)
        key = lay.field(lay.entry_key)
        keyb = gather(rb, inst.start + key.offset, np.full(len(inst.start), key.length), key.length)
        inst = _subset(inst, ((keyb != 0) & (keyb != 0x40)).any(axis=1))
    return inst, problems, warnings


@cache
def min_instance_length(lay: Layout) -> int:
    """The shortest instance of ``lay`` worth decoding: its block header (identifier, length,
    eyecatcher) when it has one, and every field of its natural key; at least one byte."""
    fields = {f.name: f for f in lay.fields}
    key_end = max((fields[k].end for k in lay.natural_key if k in fields), default=0)
    if lay.entry_start is not None:  # the key is an entry's, not the header's
        key_end = 0
    return max(1, BLOCK_HEADER_SIZE if lay.eyecatcher is not None else 0, key_end)


def _subset(inst: Instances, mask: np.ndarray) -> Instances:
    return Instances(inst.record[mask], inst.start[mask], inst.avail[mask], inst.entry_index[mask])


def decode_fields(lay: Layout, data: np.ndarray, eff_len: np.ndarray, mode: str = TYPED) -> dict[str, pa.Array]:
    """Arrow columns for every field (and named flag bit) of ``lay`` from its structured view."""
    cols: dict[str, pa.Array] = {}
    flags_by_field = lay.flags_by_field
    complete = len(eff_len) == 0 or int(eff_len.min()) >= lay.size  # no field absent anywhere
    for f in lay.data_fields:
        if complete:
            present, mask = True, None
        else:
            present = eff_len >= f.end
            mask = None if present.all() else ~present
        v = data[f.column]
        cols[f.column] = _to_arrow(f, v, mask, mode)
        for fl in flags_by_field.get(f.name, ()):
            bit = (v.astype(np.uint64) & np.uint64(fl.mask)) != 0
            ok = np.asarray(present & (eff_len >= fl.min_length))
            cols[fl.name] = pa.array(bit, type=pa.bool_(), mask=None if ok.all() else ~ok)
    return cols


def _arrow(values: np.ndarray, type_: pa.DataType, mask=None) -> pa.Array:
    """A native numpy array as Arrow ``type_``. pyarrow converts an array of its natural type several
    times faster than one it must cast, so callers convert in numpy to the target width and
    timestamps are int64 re-labelled (the same bits)."""
    if mask is None and values.flags.c_contiguous and values.dtype.itemsize == type_.bit_width // 8:
        return pa.Array.from_buffers(type_, len(values), [None, pa.py_buffer(values)])
    arr = pa.array(values, mask=mask)
    return arr if arr.type == type_ else arr.view(type_)


def _u64_decimal(v: np.ndarray, mask) -> pa.Array:
    """Unsigned 64-bit values as decimal(20,0), built directly: a decimal128 is a 16-byte
    little-endian integer, here the value and a zero high half (a cast costs far more)."""
    words = np.zeros((len(v), 2), dtype="<u8")
    words[:, 0] = v
    validity = None if mask is None else pa.array(~mask, type=pa.bool_()).buffers()[1]
    return pa.Array.from_buffers(U64_TYPE, len(v), [validity, pa.py_buffer(words)])


def _to_arrow(f, v: np.ndarray, mask, mode: str) -> pa.Array:
    kind = f.kind
    if kind == "int":
        if mode == TYPED:
            return _arrow(v.astype(f.typed_numpy), f.arrow_type, mask)
        return pa.array(v.astype(v.dtype.newbyteorder("=")), mask=mask)
    if kind == "u64":
        if mode == TYPED:
            return _u64_decimal(v.astype(np.uint64), mask)
        return pa.array(v.astype(np.uint64), type=pa.uint64(), mask=mask)
    if kind == "char":
        arr = codecs.ebcdic_to_str(v)
        return _apply_mask(arr, mask)
    if kind == "hex":
        return _apply_mask(codecs.bytes_to_hex(v), mask)
    if mode == RAW:  # STCK and TOD values as the raw 64-bit clock value
        return pa.array(v.astype(np.uint64), type=pa.uint64(), mask=mask)
    if kind in ("stck", "tod_local"):
        us, valid = codecs.stck_to_unix_us(v)
        if mask is not None:
            valid &= ~mask
        return _arrow(us, f.arrow_type, None if valid.all() else ~valid)
    if kind == "tod_duration":
        return _arrow(codecs.tod_duration_us(v), pa.int64(), mask)
    if kind == "tod_high":
        return _arrow(codecs.tod_high_word_us(v), pa.int64(), mask)
    raise ValueError(f"{f.name}: cannot decode type {f.type}")


def _apply_mask(arr: pa.Array, mask) -> pa.Array:
    if mask is None:
        return arr
    return pc.if_else(pa.array(mask), pa.nulls(len(arr), arr.type), arr)


def structure_columns(
    rb: RecordBuffer, lay: Layout, inst: Instances, mode: str = TYPED
) -> tuple[dict[str, pa.Array], np.ndarray]:
    """Decode all instances of one structure: field columns and each instance's structure length."""
    raw = gather(rb, inst.start, inst.avail, lay.size)
    data = view(raw, lay)
    eff = inst.avail.copy()
    length = inst.avail.copy()
    if lay.length_field:
        ll = data[lay.field(lay.length_field).column].astype(np.int64)
        length = np.where(ll > 0, ll, inst.avail)
        eff = np.minimum(eff, length)
    return decode_fields(lay, data, eff, mode), length


# --------------------------------------------------------------------------------------------
# Record context (the columns every row carries)
# --------------------------------------------------------------------------------------------


def record_context(rb: RecordBuffer, hd: Headers, mode: str = TYPED) -> dict[str, np.ndarray | pa.Array]:
    """Per-record context columns (Arrow arrays of the batch's length)."""
    smf, qwhs, qwhx = hd.smf, hd.qwhs, hd.qwhx
    n = len(rb)
    days, date_ok = codecs.packed_date_to_days(
        smf["SM11xDTE"].view(">u4").astype(np.uint32) if n else np.zeros(0, np.uint32)
    )
    hund = smf["SM11xTME"].astype(np.int64)
    local_us = days * 86_400_000_000 + hund * 10_000
    stck_us, stck_ok = codecs.stck_to_unix_us(qwhs["QWHSSTCK"])
    stck_ok &= hd.has_qwhs
    offset_min = codecs.utc_offset_minutes(local_us, stck_us)
    offset_ok = stck_ok & date_ok
    rel3 = codecs.ebcdic_to_str(smf["SM11xREL"])
    qwhxrel = codecs.ebcdic_to_str(qwhx["QWHXREL"])
    smf_rel = pc.if_else(pa.array(hd.has_qwhx), qwhxrel, rel3)
    qsg = pc.if_else(pa.array(hd.has_qwhx), codecs.ebcdic_to_str(qwhx["QWHXQSG"]), pa.nulls(n, pa.string()))
    interval_ok = hd.long_qwhs & (hd.smf_type == 115) | (hd.long_qwhs & (hd.smf_type == 116))
    durn = qwhs["QWHSDURN"].astype(np.uint64)
    ctx: dict[str, pa.Array] = {
        "source_file": pa.array(np.full(n, rb.source_file, dtype=object), type=pa.string()),
        "record_offset": pa.array(rb.file_offset, type=pa.int64()),
        "smf_type": pa.array(hd.smf_type, type=pa.int16()),
        "smf_subtype": pa.array(hd.smf_subtype, type=pa.int32()),
        "system_id": codecs.ebcdic_to_str(smf["SM11xSID"]),
        "qmgr": codecs.ebcdic_to_str(smf["SM11xSSI"]),
        "qsg": qsg,
        "smf_rel": smf_rel,
    }
    if mode == RAW:
        date_strs = np.datetime_as_string(days.astype("datetime64[D]")) if n else np.zeros(0, "U10")
        ctx.update(
            {
                "smf_date": pa.array(date_strs, type=pa.string(), mask=~date_ok),
                "smf_time_hundredths": pa.array(hund, type=pa.int64()),
                "qwhs_stck": pa.array(qwhs["QWHSSTCK"].astype(np.uint64), type=pa.uint64(), mask=~hd.has_qwhs),
                "interval_start": pa.array(qwhs["QWHSTIME"].astype(np.uint64), type=pa.uint64(), mask=~interval_ok),
                "interval_duration_raw": pa.array(durn, type=pa.uint64(), mask=~interval_ok),
            }
        )
        return ctx
    # Interval: QWHSTIME is local time in TOD format; QWHSDURN is microseconds or TOD units
    # (headers.QWHSDURN_IN_TOD_UNITS). The UTC offset comes from the SMF header (local) and QWHSSTCK (UTC).
    start_local_us, start_ok = codecs.stck_to_unix_us(qwhs["QWHSTIME"])
    start_ok &= interval_ok
    dur_us = np.where(qwhsdurn_in_tod_units(hd.smf_type, hd.smf_subtype), durn >> np.uint64(12), durn)
    dur_ok = dur_us <= MAX_INTERVAL_US
    start_utc = start_local_us - offset_min.astype(np.int64) * 60_000_000
    with_utc = start_ok & offset_ok
    ts_utc, ts_local = pa.timestamp("us", tz="UTC"), pa.timestamp("us")
    ctx.update(
        {
            "mq_version": pa.array(_mq_version(smf_rel.to_pylist()), type=pa.string()),
            "smf_time_local": _arrow(local_us, ts_local, ~date_ok),
            "smf_time": _arrow(local_us - offset_min.astype(np.int64) * 60_000_000, ts_utc, ~offset_ok),
            "utc_offset_minutes": pa.array(offset_min, type=pa.int32(), mask=~offset_ok),
            "record_stck": _arrow(stck_us, ts_utc, ~stck_ok),
            "interval_start_local": _arrow(start_local_us, ts_local, ~start_ok),
            "interval_start": _arrow(start_utc, ts_utc, ~with_utc),
            "interval_end": pa.array(
                start_utc + np.where(dur_ok, dur_us, 0).astype(np.int64), type=ts_utc, mask=~(with_utc & dur_ok)
            ),
            "interval_seconds": pa.array(dur_us / 1e6, type=pa.float64(), mask=~start_ok),
        }
    )
    return ctx


NO_TIME = (
    "no valid time: neither the SMF header date (SMFxxDTE) nor the QWHS store clock (QWHSSTCK) is "
    "valid, so the record has no date to be filed under and no key to be de-duplicated by"
)


def timeless_records(rb: RecordBuffer, hd: Headers) -> np.ndarray:
    """The MQ records with no time at all (every row's interval start and STCK come from QWHS, its
    local time from the SMF header): quarantined, as their rows could be neither dated nor
    de-duplicated (loading the file again would add them again)."""
    if not len(rb):
        return np.zeros(0, dtype=bool)
    _, date_ok = codecs.packed_date_to_days(hd.smf["SM11xDTE"].view(">u4").astype(np.uint32))
    _, stck_ok = codecs.stck_to_unix_us(hd.qwhs["QWHSSTCK"])
    return ~date_ok & ~(stck_ok & hd.has_qwhs)


def _mq_version(rels: list[str | None]) -> list[str | None]:
    """'933' -> '9.3.3'; QWHXREL '100000' -> '10.0.0'."""
    memo: dict[str | None, str | None] = {}
    out = []
    for r in rels:
        if r not in memo:
            # Only EBCDIC X'F0'-X'F9' (ASCII digits once decoded) are digits: X'DA', X'EA' and
            # X'FA' decode to superscript digits that str.isdigit() accepts and int() refuses.
            digits = bool(r) and r.isascii() and r.isdigit()
            if digits and len(r) == 3:
                memo[r] = f"{r[0]}.{r[1]}.{r[2]}"
            elif digits and len(r) == 6:
                memo[r] = f"{int(r[:2])}.{int(r[2:4])}.{int(r[4:])}"
            else:
                memo[r] = r or None
        out.append(memo[r])
    return out


# Context columns every row carries: identity first, then the mode's time columns.
_CONTEXT_IDENTITY = ("source_file", "record_offset", "smf_type", "smf_subtype", "system_id", "qmgr", "qsg", "smf_rel")
CONTEXT_TYPED = _CONTEXT_IDENTITY + (
    "mq_version",
    "smf_time_local",
    "smf_time",
    "utc_offset_minutes",
    "record_stck",
    "interval_start_local",
    "interval_start",
    "interval_end",
    "interval_seconds",
)
CONTEXT_RAW = _CONTEXT_IDENTITY + (
    "smf_date",
    "smf_time_hundredths",
    "qwhs_stck",
    "interval_start",
    "interval_duration_raw",
)


def decode_batch(rb: RecordBuffer, hd: Headers, good: np.ndarray, names: list[str], mode: str = TYPED):
    """Decode the named structures from the good records. Returns ({name: pa.RecordBatch},
    {record index: problem}, [IdWarning]) where problems are structure-level defects of a record
    and warnings the unexpected identifiers of records that decode.

    Every structure of a record is located and checked (eyecatcher, identifier) whichever ones
    were asked for, so a record's quarantine and warnings never depend on the structures requested."""
    ctx = record_context(rb, hd, mode)
    ctx_batch = pa.RecordBatch.from_pydict({k: ctx[k] for k in (CONTEXT_TYPED if mode == TYPED else CONTEXT_RAW)})
    out: dict[str, pa.RecordBatch] = {}
    problems: dict[int, str] = {}
    warnings: list[IdWarning] = []
    located = {}
    for lay in layouts().values():
        inst, probs, warns = locate(rb, hd, lay, good)
        problems.update({k: v for k, v in probs.items() if k not in problems})
        warnings.extend(warns)
        if lay.name in names:
            located[lay.name] = (lay, inst)
    for record in np.flatnonzero(good & timeless_records(rb, hd)):
        problems.setdefault(int(record), NO_TIME)
    bad = np.zeros(len(rb), dtype=bool)
    if problems:
        bad[list(problems)] = True
        warnings = [w for w in warnings if not bad[w.record]]
    for name, (lay, inst) in located.items():
        keep = ~bad[inst.record]
        if not keep.all():
            inst = _subset(inst, keep)
        if not len(inst.record) and len(rb):
            out[name] = _empty_batch(name, mode)
            continue
        cols, length = structure_columns(rb, lay, inst, mode)
        context = ctx_batch.take(pa.array(inst.record))
        arrays = dict(zip(context.schema.names, context.columns, strict=True))
        arrays["structure_length"] = pa.array(length, type=pa.int32())
        arrays["entry_index"] = pa.array(inst.entry_index, type=pa.int32())
        arrays.update(cols)
        out[name] = pa.RecordBatch.from_pydict(arrays)
    return out, problems, warnings


@cache
def _empty_batch(name: str, mode: str) -> pa.RecordBatch:
    """A structure's batch with no rows, decoded once from an empty buffer (so its schema is exactly
    what decoding produces) and reused for every batch that has no instance of the structure."""
    empty = np.zeros(0, np.int64)
    rb = RecordBuffer(np.zeros(64, np.uint8), empty, empty, empty, empty, "", 0)
    hd = parse_headers(rb)
    batches, _, _ = decode_batch(rb, hd, np.zeros(0, bool), [name], mode)
    return batches[name]


def arrow_schema(name: str, mode: str = TYPED) -> pa.Schema:
    """The schema of a structure's batches, derived from its layout alone (no data needed)."""
    return _empty_batch(layouts()[name].name, mode).schema
