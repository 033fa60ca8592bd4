"""``decode.gather``, the hot path's byte copy, against a plain slice per instance: whole
instances, instances cut short at few or many lengths, and windows that would run off the buffer."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mqsmf.decode import RecordBuffer, gather

PAD = 8  # zero bytes after the records, as the reader leaves them


def sliced(buf: np.ndarray, pad: int, start: int, avail: int, size: int) -> bytes:
    """The instance's bytes by hand: its first ``avail`` bytes, then zeros up to ``size``."""
    kept = max(0, min(avail, size))
    return bytes(buf[start : start + kept]) + bytes(size - kept)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    records=st.binary(min_size=1, max_size=300),
    size=st.integers(min_value=0, max_value=64),
    many_lengths=st.booleans(),
)
def test_gather_equals_a_slice_per_instance(data, records, size, many_lengths):
    buf = np.frombuffer(records + bytes(PAD), dtype=np.uint8).copy()
    pad = len(records)
    n = data.draw(st.integers(min_value=0, max_value=40))
    starts, avails = [], []
    for _ in range(n):
        start = data.draw(st.integers(min_value=0, max_value=pad - 1))
        # An instance never claims bytes past the records; it may be shorter than the layout.
        most = pad - start
        lengths = st.integers(min_value=-2, max_value=most) if many_lengths else st.sampled_from([size, most // 2, 0])
        avails.append(min(data.draw(lengths), most))
        starts.append(start)
    rb = RecordBuffer(buf, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0), "", pad)
    got = gather(rb, np.array(starts, dtype=np.int64), np.array(avails, dtype=np.int64), size)
    assert got.shape == (n, size) and got.dtype == np.uint8
    for row, start, avail in zip(got, starts, avails, strict=True):
        assert bytes(row) == sliced(buf, pad, start, avail, size)


def test_gather_zeroes_each_cut_length_when_there_are_many():
    # More distinct cut lengths than are zeroed apart: the byte-mask way must agree too.
    buf = np.arange(1, 201, dtype=np.uint8)
    buf = np.concatenate([buf, np.zeros(PAD, np.uint8)])
    starts = np.arange(0, 40, dtype=np.int64)
    avails = np.arange(0, 40, dtype=np.int64) % 37
    rb = RecordBuffer(buf, starts, avails, starts, starts, "", 200)
    got = gather(rb, starts, avails, 48)
    for row, start, avail in zip(got, starts, avails, strict=True):
        assert bytes(row) == sliced(buf, 200, int(start), int(avail), 48)
