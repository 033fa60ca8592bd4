"""Vectorized conversions of z/OS data: EBCDIC text, STCK/TOD clocks, SMF packed dates.

Every function takes and returns whole numpy/Arrow columns; none loops over rows in Python.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

# cp037 is a permutation of Latin-1, so one 256-byte table maps EBCDIC to Latin-1 bytes.
EBCDIC_TO_LATIN1 = np.frombuffer(bytes(range(256)).decode("cp037").encode("latin-1"), dtype=np.uint8)
LATIN1_TO_EBCDIC = np.argsort(EBCDIC_TO_LATIN1).astype(np.uint8)

# TOD clock: bit 51 ticks once a microsecond; epoch 1900-01-01. Unix epoch in TOD units:
TOD_UNIX_EPOCH = 0x7D91048BCA000000
TOD_UNIX_EPOCH_US = TOD_UNIX_EPOCH >> 12
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_HEX = np.array([f"{i:02X}".encode() for i in range(256)], dtype="S2")


def ebcdic_to_str(raw: np.ndarray) -> pa.Array:
    """Fixed-width EBCDIC byte strings (numpy ``S<n>``) -> Arrow strings, trailing blanks and
    binary zeros removed. One path for every value: a name decodes the same whatever else is in
    the column (national characters elsewhere change nothing, an embedded X'00' is kept)."""
    n = len(raw)
    width = raw.dtype.itemsize
    codes = np.frombuffer(raw.tobytes(), dtype=np.uint8)
    latin = EBCDIC_TO_LATIN1[codes]
    # Trim trailing blanks and NULs in numpy and hand Arrow the string buffers directly (a per-call
    # cost that matters when a small file has hundreds of columns).
    chars = latin.reshape(n, width)
    kept = (chars != 0x20) & (chars != 0)
    lengths = np.where(kept.any(axis=1), width - np.argmax(kept[:, ::-1], axis=1), 0) if width else np.zeros(n, int)
    inside = np.arange(width)[None, :] < lengths[:, None]
    data = chars[inside]
    national = data >= 0x80
    offsets = np.zeros(n + 1, dtype=np.int32)
    if national.any():
        # Latin-1 to UTF-8: a national character (X'80'-X'FF' in Latin-1) is two bytes.
        np.cumsum(lengths + ((chars >= 0x80) & inside).sum(axis=1), out=offsets[1:])
        size = 1 + national.astype(np.int64)
        pos = np.cumsum(size) - size
        utf8 = np.empty(int(size.sum()), dtype=np.uint8)
        utf8[pos] = np.where(national, 0xC0 | (data >> 6), data)
        utf8[pos[national] + 1] = 0x80 | (data[national] & 0x3F)
        data = utf8
    else:
        np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data.tobytes())])


def str_to_ebcdic(values: list[str] | np.ndarray, width: int) -> np.ndarray:
    """Strings -> blank-padded EBCDIC bytes of ``width`` (numpy ``S<width>``); longer text is an error."""
    out = np.full((len(values), width), 0x40, dtype=np.uint8)
    for i, v in enumerate(values):  # writer side only: a handful of names, not a hot path
        b = str(v).encode("cp037")
        if len(b) > width:
            raise ValueError(f"{v!r} is longer than {width} bytes")
        out[i, : len(b)] = np.frombuffer(b, dtype=np.uint8)
    return out.view(f"S{width}").reshape(len(values))


def bytes_to_hex(raw: np.ndarray) -> pa.Array:
    """Fixed-width binary (numpy ``S<n>``) -> upper-case hex strings."""
    width = raw.dtype.itemsize
    codes = np.frombuffer(raw.tobytes(), dtype=np.uint8).reshape(len(raw), width)
    hexed = np.ascontiguousarray(_HEX[codes])
    offsets = np.arange(len(raw) + 1, dtype=np.int32) * (2 * width)
    return pa.Array.from_buffers(pa.string(), len(raw), [None, pa.py_buffer(offsets), pa.py_buffer(hexed.tobytes())])


def stck_to_unix_us(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """STCK/TOD clock values -> (microseconds since the Unix epoch, valid mask).
    Zero ("never") and all-ones are not times."""
    v = values.astype(np.uint64, copy=False)
    valid = (v != 0) & (v != _ALL_ONES)
    us = (v >> np.uint64(12)).astype(np.int64) - TOD_UNIX_EPOCH_US
    return us, valid


def unix_us_to_stck(us: np.ndarray) -> np.ndarray:
    return (np.asarray(us, dtype=np.int64) + TOD_UNIX_EPOCH_US).astype(np.uint64) << np.uint64(12)


def tod_duration_us(values: np.ndarray) -> np.ndarray:
    return (values.astype(np.uint64, copy=False) >> np.uint64(12)).astype(np.int64)


def tod_high_word_us(values: np.ndarray) -> np.ndarray:
    """8-byte durations holding TOD-clock units in their high 4 bytes (WTAS latch wait times in
    MQ 10 data) -> microseconds."""
    return (values.astype(np.uint64, copy=False) >> np.uint64(44)).astype(np.int64)


def packed_date_to_days(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SMF packed dates X'0cyydddF' (uint32) -> (days since 1970-01-01, valid mask)."""
    v = raw.astype(np.uint32, copy=False)
    nib = [(v >> np.uint32(s)) & np.uint32(0xF) for s in range(28, -4, -4)]
    c, y1, y2, d1, d2, d3, sign = nib[1], nib[2], nib[3], nib[4], nib[5], nib[6], nib[7]
    digits_ok = (nib[0] == 0) & (c <= 9) & (y1 <= 9) & (y2 <= 9) & (d1 <= 9) & (d2 <= 9) & (d3 <= 9)
    valid = digits_ok & ((sign == 0xF) | (sign == 0xC))
    year = 1900 + 100 * c.astype(np.int64) + 10 * y1.astype(np.int64) + y2.astype(np.int64)
    doy = 100 * d1.astype(np.int64) + 10 * d2.astype(np.int64) + d3.astype(np.int64)
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    valid &= (doy >= 1) & (doy <= np.where(leap, 366, 365))
    jan1 = (np.where(valid, year, 1970) - 1970).astype("datetime64[Y]").astype("datetime64[D]").astype(np.int64)
    return jan1 + doy - 1, valid


def is_packed_date(b0: int, b1: int, b2: int, b3: int) -> bool:
    """Scalar form of the packed-date test, for framing detection and resynchronisation."""
    if b0 > 0x01 or (b1 >> 4) > 9 or (b1 & 0xF) > 9 or (b2 >> 4) > 9 or (b2 & 0xF) > 9 or (b3 >> 4) > 9:
        return False
    if (b3 & 0xF) not in (0xF, 0xC):
        return False
    doy = (b2 >> 4) * 100 + (b2 & 0xF) * 10 + (b3 >> 4)
    return 1 <= doy <= 366


def packed_dates_ok(c: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``is_packed_date`` of the four bytes at each position ``at`` of the bytes ``c``, vectorised."""
    b0, b1, b2, b3 = (c[at + i].astype(np.int32) for i in range(4))
    digits = (b1 >> 4 <= 9) & (b1 & 0xF <= 9) & (b2 >> 4 <= 9) & (b2 & 0xF <= 9) & (b3 >> 4 <= 9)
    doy = (b2 >> 4) * 100 + (b2 & 0xF) * 10 + (b3 >> 4)
    return (b0 <= 0x01) & digits & ((b3 & 0xF == 0xF) | (b3 & 0xF == 0xC)) & (doy >= 1) & (doy <= 366)


def days_to_packed_date(days: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 -> packed X'0cyydddF' (uint32); the writer's inverse."""
    d = np.asarray(days, dtype="datetime64[D]")
    year = d.astype("datetime64[Y]").astype(np.int64) + 1970
    doy = (d - d.astype("datetime64[Y]").astype("datetime64[D]")).astype(np.int64) + 1
    c = (year - 1900) // 100
    yy = (year - 1900) % 100
    out = (c << 24) | ((yy // 10) << 20) | ((yy % 10) << 16) | ((doy // 100) << 12) | (((doy // 10) % 10) << 8)
    out |= ((doy % 10) << 4) | 0xF
    return out.astype(np.uint32)


def utc_offset_minutes(local_us: np.ndarray, utc_us: np.ndarray) -> np.ndarray:
    """System UTC offset from a local and a UTC clock reading of the same moment, rounded to the
    nearest 15 minutes (the SMF header time is local, QWHSSTCK is UTC)."""
    quarter = 15 * 60 * 1_000_000
    return (np.rint((local_us - utc_us) / quarter) * 15).astype(np.int32)
