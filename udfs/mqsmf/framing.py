"""File framing: find the logical SMF records in a dump as transferred from z/OS.

Three framings exist (docs/decoding.md, *Framing*): RDW (each segment prefixed by a record descriptor
word), BDW (raw VBS blocks of RDW segments) and NORDW (records concatenated, no descriptor words).
Spanned records (first/middle/last segments) are reassembled so triplet offsets, which count the
first segment's RDW, stay valid.

Damage never stops the walk: a bad span is quarantined (file offset, length, reason) and the walk
resynchronises on the next position where a plausible chain of records starts.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

import numpy as np

from .codecs import is_packed_date, packed_dates_ok
from .headers import (
    MQ_TYPES,
    QWHS_NSDA,
    SMF_DATE,
    SMF_DATE_END,
    SMF_FLAG,
    SMF_HEADER_NO_SUBTYPE,
    SMF_TYPE,
    SUBTYPE_VALID,
    TRIPLET_AREA,
    TRIPLET_COUNT,
    TRIPLET_DTYPE,
    TRIPLET_LENGTH,
    TRIPLET_OFFSET,
    TRIPLET_SIZE,
)

FRAMINGS = ("rdw", "bdw", "nordw")

# The variable-length record format (descriptor words), not an SMF layout: written only here.
# RDW: 2-byte segment length (RDW included), segment descriptor byte, zero byte.
# BDW: 2-byte block length (BDW included, high bit clear), two zero bytes.
RDW = 4
BDW = 4
# Bytes 2-3 of a descriptor word: an RDW's segment descriptor (SEG_*) and a zero byte; a BDW's zeros.
DESCRIPTOR_FLAGS = 2
SEG_COMPLETE, SEG_FIRST, SEG_LAST, SEG_MIDDLE = 0, 1, 2, 3
MAX_SEGMENT = 32760  # longest physical segment, RDW included
MAX_BLOCK = 32760  # longest VBS block, BDW included
BDW_EXTENDED = 0x80  # high bit of a BDW length: extended (large) block format, not used by SMF dumps
MIN_SEGMENT = RDW + 1  # a segment carries at least one byte
MIN_BLOCK = BDW + RDW


def descriptor_word(length: int, segment: int = SEG_COMPLETE) -> bytes:
    """An RDW (``segment``: SEG_*) or, with segment 0, a BDW of ``length`` bytes."""
    return length.to_bytes(2, "big") + bytes((segment, 0))


# SMF header positions in a record without its RDW (NORDW framing, or after the RDW).
_FLAG_NORDW = SMF_FLAG - RDW
_TYPE_NORDW = SMF_TYPE - RDW
_DATE_NORDW = SMF_DATE - RDW
_DATE_END_NORDW = SMF_DATE_END - RDW
_SHORT_HEADER_NORDW = SMF_HEADER_NO_SUBTYPE - RDW  # the shortest SMF record
_HEADER_NORDW = TRIPLET_AREA - RDW  # the SMF header with subtypes; an MQ record's triplets follow it
# SMF record types that may appear in an MQ dump; used only to judge resynchronisation candidates.
_RESYNC_CHAIN = 3  # a candidate must be followed by this many well-formed records (or the end)


class FramingError(ValueError):
    """The framing could not be determined or was given wrongly."""


@dataclass
class Quarantined:
    offset: int  # byte offset in the file
    length: int
    reason: str


@dataclass
class Framed:
    """Logical records found in one buffer.

    ``offsets[i]`` is the file offset of record i's first RDW (NORDW: of its first byte);
    ``ends[i]`` the file offset just past its last byte (its last segment, for a spanned record);
    ``lengths[i]`` its logical length counting a 4-byte RDW (as triplet offsets do); records that
    were spanned have their reassembled bytes (RDW included) in ``spanned[i]``.
    """

    framing: str
    offsets: np.ndarray
    ends: np.ndarray
    lengths: np.ndarray
    spanned: dict[int, bytes]
    quarantine: list[Quarantined]
    segments: int = 0
    header_bytes: int = field(default=0)  # 4 for RDW/BDW (record starts at its RDW), 0 for NORDW

    def __len__(self) -> int:
        return len(self.offsets)


def _u16(b, p: int) -> int:
    return (b[p] << 8) | b[p + 1]


def _plausible_record_start(b, p: int, n: int, rdw: bool) -> bool:
    """Does an SMF record (type, flag, packed date) plausibly start at p? For rdw=True p points at
    an RDW, otherwise at the SMF flag byte."""
    h = p + RDW if rdw else p
    if h + _DATE_END_NORDW > n:
        return False
    d = h + _DATE_NORDW
    return is_packed_date(b[d], b[d + 1], b[d + 2], b[d + 3])


def _rdw_ok(b, p: int, n: int, limit: int) -> bool:
    """Is there a sane RDW at p (within the end ``limit``)?"""
    if p + RDW > limit:
        return False
    length = _u16(b, p)
    if not _rdw_fields_ok(b, p, length) or p + length > limit:
        return False
    seg = b[p + DESCRIPTOR_FLAGS]
    if seg in (SEG_COMPLETE, SEG_FIRST):
        return length >= SMF_DATE_END and _plausible_record_start(b, p, n, rdw=True)
    return True


class _Builder:
    def __init__(self, framing: str, base: int) -> None:
        self.framing = framing
        self.base = base
        # Machine integers, not Python lists: eight bytes per record whatever its size.
        self.offsets = array("q")
        self.ends = array("q")
        self.lengths = array("q")
        self.spanned: dict[int, bytes] = {}
        self.quarantine: list[Quarantined] = []
        self.segments = 0
        # spanned record being assembled: (file offset of first RDW, its bytes so far, end of its
        # last segment so far). One growing buffer, not a Python object per segment: a record of
        # thousands of 5-byte segments costs its bytes, not 80 bytes a segment.
        self.open: tuple[int, bytearray, int] | None = None

    def bad(self, offset: int, length: int, reason: str) -> None:
        self.quarantine.append(Quarantined(self.base + offset, length, reason))

    def segment(self, b, p: int, length: int) -> None:
        """Accept one well-formed RDW segment at p."""
        self.segments += 1
        seg = b[p + DESCRIPTOR_FLAGS]
        if seg == SEG_COMPLETE:
            self.drop_open(p, "spanned record has no last segment: a complete record follows")
            self.offsets.append(p)
            self.ends.append(p + length)
            self.lengths.append(length)
        elif seg == SEG_FIRST:
            self.drop_open(p, "spanned record has no last segment: another first segment follows")
            self.open = (p, bytearray(b[p : p + length]), p + length)
        else:
            if self.open is None:
                what = "last" if seg == SEG_LAST else "middle"
                self.bad(p, length, f"orphan {what} segment of a spanned record (no first segment)")
                return
            self.open[1].extend(b[p + RDW : p + length])
            self.open = (*self.open[:2], p + length)
            if seg == SEG_LAST:
                start, pieces, _ = self.open
                self.open = None
                data = bytes(pieces)
                self.spanned[len(self.offsets)] = data
                self.offsets.append(start)
                self.ends.append(p + length)
                self.lengths.append(len(data))

    def drop_open(self, p: int, reason: str) -> None:
        """Quarantine the spanned record being assembled, from its first RDW to the end of its last
        segment (not to p: in a BDW file a block's descriptor word may lie between them)."""
        if self.open is not None:
            start, _, end = self.open
            self.bad(start, min(end, p) - start, reason)
            self.open = None

    def finish(self, n: int) -> Framed:
        if self.open is not None:
            start = self.open[0]
            self.bad(start, n - start, "file ends inside a spanned record (truncated)")
            self.open = None
        return Framed(
            framing=self.framing,
            offsets=np.asarray(self.offsets, dtype=np.int64) + self.base,
            ends=np.asarray(self.ends, dtype=np.int64) + self.base,
            lengths=np.asarray(self.lengths, dtype=np.int64),
            spanned={i: v for i, v in self.spanned.items()},
            quarantine=self.quarantine,
            segments=self.segments,
            header_bytes=0 if self.framing == "nordw" else RDW,
        )


def _as_array(b, n: int) -> np.ndarray:
    return np.frombuffer(b, dtype=np.uint8, count=n) if not isinstance(b, np.ndarray) else b[:n]


def _candidates(b, start: int, stop: int, n: int, span: int, test):
    """Positions q in [start, stop) that pass ``test(window, q0)``, a vectorized necessary condition
    over bytes ``window[k : k + span]`` for q = q0 + k, in file order and a window at a time. Only
    these need the exact (scalar) check, so resynchronising over damaged data costs numpy time, not
    a Python call per byte."""
    arr = _as_array(b, n)
    p = start
    # The window grows from small: a resynchronisation that succeeds near its start (the usual
    # case, one damaged record) costs about the bytes it skips, never a megabyte.
    window = _FIRST_WINDOW
    while p < stop:
        hi = min(stop, p + window)
        window = min(window * 2, _LAST_WINDOW)
        chunk = arr[p : min(n, hi + span)]
        if len(chunk) < span:
            return
        count = min(hi - p, len(chunk) - span + 1)
        for k in np.nonzero(test(chunk, count))[0]:
            yield p + int(k)
        p = hi


_FIRST_WINDOW, _LAST_WINDOW = 1 << 10, 1 << 20


class _Memo:
    """A resynchronisation function remembered over its last answer: ``find(b, s, n)`` is the first
    good position >= s, so for any s between an earlier start and its answer the answer is the same.
    Damage that sends the walk back into a range already searched costs nothing the second time,
    so the searches of one file cost O(file size) in total."""

    def __init__(self, find) -> None:
        self.find = find
        self.lo = self.hi = -1

    def __call__(self, b, start: int, n: int) -> int:
        if not self.lo <= start <= self.hi:
            self.lo, self.hi = start, self.find(b, start, n)
        return self.hi


def _packed_date_maybe(c: np.ndarray, at: int, count: int) -> np.ndarray:
    """Necessary part of the packed-date test for dates at ``c[at + k]`` (k < count)."""
    sign = c[at + 3 : at + 3 + count] & 0xF
    return (c[at : at + count] <= 1) & ((sign == 0xC) | (sign == 0xF))


def _rdw_start_maybe(c: np.ndarray, count: int) -> np.ndarray:
    """Necessary for a complete or first segment's RDW at each position: what _rdw_ok demands."""
    length = (c[:count].astype(np.int32) << 8) | c[1 : 1 + count]
    f = DESCRIPTOR_FLAGS
    return (
        (c[f : f + count] <= SEG_FIRST)
        & (c[f + 1 : f + 1 + count] == 0)
        & (length >= SMF_DATE_END)
        & (length <= MAX_SEGMENT)
        & _packed_date_maybe(c, SMF_DATE, count)
    )


def _resync_rdw(b, start: int, n: int) -> int:
    """Next position >= start where a chain of well-formed RDW records begins (or n)."""
    for q in _candidates(b, start, n - RDW, n, SMF_DATE_END, _rdw_start_maybe):
        if _chain_ok(b, q, n):
            return q
    return n


def _chain_ok(b, q: int, n: int) -> bool:
    for _ in range(_RESYNC_CHAIN):
        if q == n:
            return True
        if not _rdw_ok(b, q, n, n):
            return False
        q += _u16(b, q)
    return True


def _sane_rdw_run(b, n: int, out: _Builder) -> int:
    """Accept the leading run of records that ``frame_rdw``'s walk accepts without a doubt, found in
    numpy time, into ``out``; return where the walk goes on (``n`` when the whole buffer is sane).
    The RDW chain is followed by its lengths alone, then every RDW is judged at once as ``_rdw_ok``
    judges it. The walk accepts a record when it and the next two RDWs are sane (``two_boundaries``),
    so the run stops two records before the first that is not (damage, stray bytes at the end).
    Segments are taken as the walk takes them: complete records in bulk, the few segments of
    spanned records one by one (``_Builder.segment``)."""
    c = _as_array(b, n)
    view = memoryview(c)
    starts = array("q")
    p, last = 0, n - RDW
    while p <= last:
        length = (view[p] << 8) | view[p + 1]
        if length < MIN_SEGMENT:
            break
        starts.append(p)
        p += length
    at = np.asarray(starts, dtype=np.int64)
    lengths = (c[at].astype(np.int64) << 8) | c[at + 1]
    seg = c[at + DESCRIPTOR_FLAGS]
    sane = (lengths <= MAX_SEGMENT) & (at + lengths <= n) & (seg <= SEG_MIDDLE) & (c[at + DESCRIPTOR_FLAGS + 1] == 0)
    starting = sane & (seg <= SEG_FIRST)  # a complete or first segment: an SMF header follows its RDW
    sane[starting] = lengths[starting] >= SMF_DATE_END
    starting &= sane
    sane[starting] = packed_dates_ok(c, at[starting] + RDW + _DATE_NORDW)
    first_insane = len(at) if sane.all() else int(np.argmin(sane))
    if first_insane == len(at) and p == n:
        run, resume = len(at), n
    else:
        run = max(first_insane - 2, 0)
        resume = int(at[run]) if run < len(at) else 0
    taken = 0
    # Spanned segments from a numpy array (no Python list of every segment); a run of middle
    # segments of an open record is appended in one piece, so a record of a million tiny segments
    # costs numpy time, not a Python call per segment.
    spanned = np.flatnonzero(seg[:run] != SEG_COMPLETE)
    not_middle = np.flatnonzero(seg[:run] != SEG_MIDDLE)
    k = 0
    while True:
        i = int(spanned[k]) if k < len(spanned) else run
        if taken < i and out.open is not None:  # a complete record after an open spanned one
            out.segment(b, int(at[taken]), int(lengths[taken]))
            taken += 1
        out.offsets.frombytes(at[taken:i].astype(np.int64).tobytes())
        out.ends.frombytes((at[taken:i] + lengths[taken:i]).astype(np.int64).tobytes())
        out.lengths.frombytes(lengths[taken:i].astype(np.int64).tobytes())
        out.segments += i - taken
        if i >= run:
            break
        if seg[i] == SEG_MIDDLE and out.open is not None:
            j = not_middle[np.searchsorted(not_middle, i)] if not_middle.size and not_middle[-1] > i else run
            j = int(j)
            lo, hi = int(at[i]), int(at[j - 1] + lengths[j - 1])
            keep = np.ones(hi - lo, dtype=bool)
            for d in range(RDW):
                keep[at[i:j] - lo + d] = False
            start, data, _ = out.open
            data.extend(c[lo:hi][keep].tobytes())
            out.open = (start, data, hi)
            out.segments += j - i
            k += j - i
            taken = j
            continue
        out.segment(b, int(at[i]), int(lengths[i]))
        taken = i + 1
        k += 1
    return resume


def frame_rdw(b, n: int | None = None, base: int = 0) -> Framed:
    n = len(b) if n is None else n
    out = _Builder("rdw", base)
    return _walk_rdw(b, n, out, _sane_rdw_run(b, n, out))


def _walk_rdw(b, n: int, out: _Builder, start: int) -> Framed:
    """Frame record by record from ``start``, into ``out`` (which holds what came before)."""

    def two_boundaries(q: int) -> bool:
        # A record is accepted when the next two boundaries hold: one sane-looking RDW inside
        # damaged data (X'002C0000' and a 1900 date) is common enough to swallow good records.
        # The second boundary is the next record's first, so each RDW is checked once.
        nonlocal known_rdw
        if q == n:
            return True
        if q != known_rdw and not _rdw_ok(b, q, n, n):
            return _tail_is_short(b, q, n)
        after = q + _u16(b, q)
        if after == n:
            return True
        if _rdw_ok(b, after, n, n):
            known_rdw = after
            return True
        return _tail_is_short(b, after, n)

    known_rdw = -1  # a position whose RDW _rdw_ok has already passed
    resync = _Memo(_resync_rdw)
    p = start
    while p < n:
        if n - p < RDW:
            # A spanned record still open ends here, so its span and the stray bytes do not overlap.
            out.drop_open(p, "file ends inside a spanned record (truncated)")
            out.bad(p, n - p, f"{n - p} stray bytes at end of file (too short for an RDW)")
            break
        length = _u16(b, p)
        if p == known_rdw or _rdw_ok(b, p, n, n):
            nxt = p + length
            if two_boundaries(nxt):
                out.segment(b, p, length)
                p = nxt
                continue
            # Either this record's length or the next record is damaged: a valid record starting
            # inside this one means the length is wrong.
            q = resync(b, p + RDW, n)
            if q >= nxt:
                out.segment(b, p, length)
                p = nxt
                continue
            out.drop_open(p, "spanned record interrupted by damaged data")
            out.bad(p, q - p, f"damaged RDW length {length}: a valid record starts inside it at offset {out.base + q}")
            p = q
            continue
        q = resync(b, p + 1, n)
        out.drop_open(p, "spanned record interrupted by damaged data")
        if q == n and _rdw_fields_ok(b, p, length) and p + length > n:
            out.bad(p, n - p, f"truncated record: RDW says {length} bytes, {n - p} remain")
            break
        out.bad(p, q - p, _rdw_reason(b, p, n))
        p = q
    return out.finish(n)


def _tail_is_short(b, p: int, n: int) -> bool:
    """After a good record, a truncated final record still counts as a boundary."""
    if p + RDW > n:
        return True
    length = _u16(b, p)
    return _rdw_fields_ok(b, p, length) and p + length > n


def _rdw_fields_ok(b, p: int, length: int) -> bool:
    """Are the length and segment descriptor of the RDW at p well-formed (where it ends aside)?"""
    return (
        MIN_SEGMENT <= length <= MAX_SEGMENT
        and b[p + DESCRIPTOR_FLAGS] <= SEG_MIDDLE
        and b[p + DESCRIPTOR_FLAGS + 1] == 0
    )


def _rdw_reason(b, p: int, n: int) -> str:
    if p + RDW > n:
        return f"{n - p} stray bytes (too short for an RDW)"
    length = _u16(b, p)
    seg, zero = b[p + DESCRIPTOR_FLAGS], b[p + DESCRIPTOR_FLAGS + 1]
    if length < MIN_SEGMENT or length > MAX_SEGMENT:
        return f"invalid RDW length {length}"
    if seg > SEG_MIDDLE or zero != 0:
        return f"invalid RDW segment descriptor X'{seg:02X}{zero:02X}'"
    if seg in (SEG_COMPLETE, SEG_FIRST) and not _plausible_record_start(b, p, n, rdw=True):
        return "no valid SMF header after the RDW (bad packed date)"
    return f"record of {length} bytes is not followed by a valid RDW (damaged length)"


def frame_bdw(b, n: int | None = None, base: int = 0) -> Framed:
    n = len(b) if n is None else n
    out = _Builder("bdw", base)
    resync = _Memo(_resync_bdw)
    p = 0
    while p < n:
        if n - p < MIN_BLOCK:
            out.drop_open(p, "file ends inside a spanned record (truncated)")
            out.bad(p, n - p, f"{n - p} stray bytes at end of file (too short for a block)")
            break
        blen = _u16(b, p)
        if not _bdw_fields_ok(b, p, blen):
            q = resync(b, p + 1, n)
            out.drop_open(p, "spanned record interrupted by damaged data")
            flags = b[p + DESCRIPTOR_FLAGS], b[p + DESCRIPTOR_FLAGS + 1]
            out.bad(p, q - p, f"invalid BDW (length {blen}, X'{flags[0]:02X}{flags[1]:02X}')")
            p = q
            continue
        end = p + blen
        if end > n:
            end_note = f"truncated block: BDW says {blen} bytes, {n - p} remain"
            end = n
        else:
            end_note = ""
        s = p + BDW
        while s < end and _rdw_ok(b, s, n, end):
            out.segment(b, s, _u16(b, s))
            s += _u16(b, s)
        if s >= end:
            if end_note:  # the file ends at a segment boundary inside the block
                if out.open is not None and out.open[0] < p:  # its span already holds this BDW
                    out.drop_open(s, f"spanned record cut short by truncation ({end_note})")
                else:
                    out.drop_open(s, "spanned record cut short by truncation")
                    out.bad(p, BDW, end_note)
            p = end
            continue
        # A segment does not fit: the block (or its BDW length) is damaged. Resynchronise from
        # here, not from the claimed block end, so a BDW length damaged upwards costs no more
        # than the bytes it wrongly claims.
        q = resync(b, s, n)
        if end_note and q == n:
            out.drop_open(s, "spanned record cut short by truncation")
            out.bad(s, n - s, end_note)
        elif q == s:
            # The next block starts right where the segments end: only the BDW length was wrong.
            out.bad(p, BDW, f"damaged BDW length {blen}: its segments end at offset {out.base + s}")
        else:
            out.drop_open(s, "spanned record interrupted by damaged data")
            out.bad(s, q - s, "segment does not fit its block: " + _rdw_reason(b, s, n))
        p = q
    return out.finish(n)


def _bdw_ok(b, p: int, n: int) -> bool:
    if p + MIN_BLOCK > n:
        return False
    blen = _u16(b, p)
    if not _bdw_fields_ok(b, p, blen):
        return False
    end = min(n, p + blen)
    s = p + BDW
    while s < end:
        if not _rdw_ok(b, s, n, end):
            return False
        s += _u16(b, s)
    return s == p + blen


def _bdw_fields_ok(b, p: int, blen: int) -> bool:
    """Is the BDW at p well-formed (a plain block length and zero flag bytes)?"""
    return (
        not b[p] & BDW_EXTENDED
        and blen >= MIN_BLOCK
        and b[p + DESCRIPTOR_FLAGS] == 0
        and b[p + DESCRIPTOR_FLAGS + 1] == 0
    )


def _bdw_start_maybe(c: np.ndarray, count: int) -> np.ndarray:
    """Necessary for a BDW at each position: what _bdw_ok demands of it and of its first RDW."""
    f, r = DESCRIPTOR_FLAGS, BDW
    blen = (c[:count].astype(np.int32) << 8) | c[1 : 1 + count]
    rlen = (c[r : r + count].astype(np.int32) << 8) | c[r + 1 : r + 1 + count]
    return (
        (c[:count] < BDW_EXTENDED)
        & (blen >= MIN_BLOCK)
        & (c[f : f + count] == 0)
        & (c[f + 1 : f + 1 + count] == 0)
        & (rlen >= MIN_SEGMENT)
        & (c[r + f : r + f + count] <= SEG_MIDDLE)
        & (c[r + f + 1 : r + f + 1 + count] == 0)
    )


def _resync_bdw(b, start: int, n: int) -> int:
    for q in _candidates(b, start, n - MIN_BLOCK, n, MIN_BLOCK, _bdw_start_maybe):
        if _bdw_ok(b, q, n):
            return q
    return n


def _nordw_length(b, p: int, n: int) -> tuple[int, str]:
    """Length of the NORDW record at p (excluding the virtual RDW), or (0, reason)."""
    if p + _SHORT_HEADER_NORDW > n:
        return 0, f"{n - p} stray bytes at end of file (too short for an SMF header)"
    if not _plausible_record_start(b, p, n, rdw=False):
        return 0, "no valid SMF header (bad packed date)"
    flag, rtype = b[p + _FLAG_NORDW], b[p + _TYPE_NORDW]
    if rtype not in MQ_TYPES:
        return (_HEADER_NORDW if flag & SUBTYPE_VALID else _SHORT_HEADER_NORDW), ""
    if p + _HEADER_NORDW + TRIPLET_SIZE > n:
        return 0, "record too short for its triplets (truncated)"
    off0, len0, _ = _triplet(b, p + _HEADER_NORDW)
    nsda = 2
    if len0 > QWHS_NSDA and off0 >= 0 and p + off0 + QWHS_NSDA < n:
        nsda = max(1, b[p + off0 + QWHS_NSDA])
    t0 = p + _HEADER_NORDW
    if t0 + TRIPLET_SIZE * nsda > n:
        return 0, "record too short for its triplets (truncated)"
    # All triplets in one numpy read: up to 255 of them for every candidate of a resynchronisation.
    trip = np.frombuffer(b, dtype=TRIPLET_DTYPE, count=nsda, offset=t0)
    cnt = trip["count"].astype(np.int64)
    ends = trip["offset"].astype(np.int64) - RDW + trip["length"].astype(np.int64) * cnt
    end = max(int(ends[cnt > 0].max(initial=0)), _HEADER_NORDW + TRIPLET_SIZE * nsda)
    if end > 1 << 24:
        return 0, f"implausible record length {end} from its triplets"
    if p + end > n:
        return 0, f"truncated record: its triplets need {end} bytes, {n - p} remain"
    return end, ""


def _triplet(b, t: int) -> tuple[int, int, int]:
    """Offset (made relative to the record's first byte: it counts a 4-byte RDW that is absent
    here), length and count of the triplet at t."""
    o, ln, c = TRIPLET_OFFSET, TRIPLET_LENGTH, TRIPLET_COUNT
    return (
        int.from_bytes(b[t + o.offset : t + o.end], "big") - RDW,
        int.from_bytes(b[t + ln.offset : t + ln.end], "big"),
        int.from_bytes(b[t + c.offset : t + c.end], "big"),
    )


def frame_nordw(b, n: int | None = None, base: int = 0) -> Framed:
    n = len(b) if n is None else n
    out = _Builder("nordw", base)
    resync = _Memo(_resync_nordw)
    p = 0
    while p < n:
        length, reason = _nordw_length(b, p, n)
        if length:
            nxt = p + length
            ok = nxt == n or _nordw_length(b, nxt, n)[0] or _nordw_truncated(b, nxt, n)
            q = n if ok else resync(b, p + 1, n)
            if q >= nxt:
                out.segments += 1
                out.offsets.append(p)
                out.ends.append(nxt)
                out.lengths.append(length + RDW)
                p = nxt
                continue
            reason = (
                f"damaged triplets (record length {length}): a valid record starts inside it at offset {out.base + q}"
            )
        else:
            q = resync(b, p + 1, n)
        out.bad(p, q - p, reason)
        p = q
    return out.finish(n)


def _nordw_truncated(b, p: int, n: int) -> bool:
    length, reason = _nordw_length(b, p, n)
    return not length and (reason.startswith(("truncated", "record too short")) or "stray" in reason)


def _nordw_start_maybe(c: np.ndarray, count: int) -> np.ndarray:
    rtype = c[_TYPE_NORDW : _TYPE_NORDW + count]
    return ((rtype == 2) | (rtype == 3) | (rtype == 115) | (rtype == 116)) & _packed_date_maybe(c, _DATE_NORDW, count)


def _resync_nordw(b, start: int, n: int) -> int:
    for q in _candidates(b, start, n - _SHORT_HEADER_NORDW, n, _SHORT_HEADER_NORDW, _nordw_start_maybe):
        if _plausible_record_start(b, q, n, rdw=False):
            length, _ = _nordw_length(b, q, n)
            if length and (q + length == n or _nordw_length(b, q + length, n)[0] or _nordw_truncated(b, q + length, n)):
                return q
    return n


def detect_framing(b, n: int | None = None) -> str:
    """RDW, BDW or NORDW, judged from the first records (docs/decoding.md, *Framing*)."""
    n = len(b) if n is None else n
    if n < _SHORT_HEADER_NORDW:
        raise FramingError(f"{n} bytes is too short to hold an SMF record")
    scores = {}
    for name in FRAMINGS:
        scores[name] = _chain_length(b, n, name)
    best = max(scores, key=lambda k: scores[k])
    if scores[best] == 0:
        raise FramingError("no SMF record found at the start of the file with RDW, BDW or NORDW framing")
    return best


def _chain_length(b, n: int, framing: str, limit: int = 20) -> int:
    """How many well-formed units chain from offset 0 under a framing (up to limit)."""
    p, k = 0, 0
    while p < n and k < limit:
        if framing == "rdw":
            if not _rdw_ok(b, p, n, n):
                return k
            p += _u16(b, p)
        elif framing == "bdw":
            if not _bdw_ok(b, p, n):
                return k
            p += _u16(b, p)
        else:
            length, _ = _nordw_length(b, p, n)
            if not length:
                return k
            p += length
        k += 1
    return k


FRAMERS = {"rdw": frame_rdw, "bdw": frame_bdw, "nordw": frame_nordw}


def frame(b, framing: str = "auto") -> Framed:
    """Find the logical records of a whole file held in memory (bytes, memoryview or mmap)."""
    if framing == "auto":
        framing = detect_framing(b)
    if framing not in FRAMERS:
        raise FramingError(f"unknown framing {framing!r}; use one of auto, {', '.join(FRAMINGS)}")
    return FRAMERS[framing](b)
