"""Damaged input: every record the damage did not touch still decodes, unchanged; every bad span is
reported with file, offset and reason; nothing raises."""

from __future__ import annotations

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqsmf import read_file
from mqsmf.framing import frame

from .smf_samples import rdw_segments, sample, to_bdw, to_nordw

CONVERT = {"rdw": lambda d: d, "bdw": to_bdw, "nordw": to_nordw}


@cache
def pristine(name: str, framing: str):
    data = CONVERT[framing](sample(name).read_bytes())
    return data, record_spans(data, framing), rows_by_offset(data, framing)


def record_spans(data: bytes, framing: str) -> list[tuple[int, int]]:
    """(start, end) file range of every logical record (a spanned record covers all its segments)."""
    fr = frame(data, framing)
    starts = [int(o) for o in fr.offsets]
    spans = []
    for i, s in enumerate(starts):
        if i in fr.spanned:
            # The record's segments run until the next record starts (or the file ends).
            end = starts[i + 1] if i + 1 < len(starts) else len(data)
        else:
            end = s + int(fr.lengths[i]) - (4 if framing == "nordw" else 0)
        spans.append((s, end))
    return spans


def rows_by_offset(data: bytes, framing: str, path=None) -> dict[int, list]:
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".dat") as f:
        f.write(data)
        f.flush()
        tables, report = read_file(f.name, framing=framing)
    out: dict[int, list] = {}
    for name, table in sorted(tables.items()):
        for row in table.drop_columns(["source_file"]).to_pylist():
            out.setdefault(row.pop("record_offset"), []).append((name, row))
    return out, report


def check_survivors(name, framing, damaged: bytes, touched, shift_from=None, shift=0):
    data, spans, (want, _) = pristine(name, framing)
    got, report = rows_by_offset(damaged, framing)
    for q in report.quarantine:
        assert q.reason and 0 <= q.offset < len(damaged) and q.length > 0
        assert q.raw == damaged[q.offset : q.offset + len(q.raw)]
    for start, end in spans:
        if start not in want or touched(start, end):
            continue
        new_start = start + shift if shift_from is not None and start >= shift_from else start
        assert got.get(new_start) == want[start], f"record at {start} lost or changed"
    return report


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["TEST115", "TESTCHL"]),
    framing=st.sampled_from(["rdw", "bdw", "nordw"]),
    data=st.data(),
)
def test_bit_flips(name, framing, data):
    raw, _, _ = pristine(name, framing)
    positions = data.draw(st.lists(st.integers(0, len(raw) - 1), min_size=1, max_size=4, unique=True))
    damaged = bytearray(raw)
    for p in positions:
        damaged[p] ^= 1 << data.draw(st.integers(0, 7))
    # BDW damage can cost the rest of its block (up to ~32 KB): records in the same block count as touched.
    reach = 32760 if framing == "bdw" else 0
    check_survivors(name, framing, bytes(damaged), lambda s, e: any(s - reach <= p < e + reach for p in positions))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["TEST115", "TESTCHL"]), framing=st.sampled_from(["rdw", "bdw", "nordw"]), data=st.data())
def test_truncation(name, framing, data):
    raw, _, _ = pristine(name, framing)
    complete = complete_prefixes(name, framing)
    # Cuts at a record (BDW: block) boundary are drawn as often as any other: a file cut there is
    # a complete, shorter dump, and the reader must not call it damaged.
    anywhere = st.integers(1, len(raw) - 1)
    cut = data.draw(st.one_of(anywhere, st.sampled_from(sorted(complete))) if complete else anywhere)
    report = check_survivors(name, framing, raw[:cut], lambda s, e: e > cut)
    if cut in complete:
        assert not report.quarantine, f"a dump cut at the boundary {cut} is whole: {report.quarantine[:1]}"
    else:
        assert report.quarantine, "a cut file must report its incomplete tail"


@cache
def complete_prefixes(name: str, framing: str) -> frozenset[int]:
    """The lengths (short of the whole file) at which a cut leaves a well-formed dump, worked out from
    the RDW segments' descriptors, apart from the reader: after a segment that ends its logical
    record (SDW flag 0 = whole, 2 = last); BDW: only where that is also a block's end; NORDW: the
    sums of the logical records' lengths without their descriptor words."""
    segments = rdw_segments(sample(name).read_bytes())
    ends_record = [seg[2] & 1 == 0 for seg in segments]
    if framing == "bdw":
        cuts, end, blocks = [], 0, to_bdw(sample(name).read_bytes())
        seen = 0
        while end < len(blocks):
            block_end = end + int.from_bytes(blocks[end : end + 2], "big")
            p = end + 4
            while p < block_end:
                p += int.from_bytes(blocks[p : p + 2], "big")
                seen += 1
            end = block_end
            if ends_record[seen - 1]:
                cuts.append(end)
    else:
        cuts, total = [], 0
        for seg, last in zip(segments, ends_record, strict=True):
            total += len(seg) - (4 if framing == "nordw" else 0)
            if last:
                cuts.append(total)
    return frozenset(c for c in cuts if 0 < c < len(CONVERT[framing](sample(name).read_bytes())))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["TEST115", "TESTCHL"]), framing=st.sampled_from(["rdw", "nordw"]), data=st.data())
def test_slice_cut_out(name, framing, data):
    raw, _, _ = pristine(name, framing)
    a = data.draw(st.integers(0, len(raw) - 2))
    b = data.draw(st.integers(a + 1, min(len(raw), a + 5000)))
    damaged = raw[:a] + raw[b:]
    check_survivors(name, framing, damaged, lambda s, e: s < b and e > a, shift_from=b, shift=a - b)


def test_truncated_spanned_record_is_reported():
    raw = sample("TESTCHL").read_bytes()
    fr = frame(raw)
    first_spanned = min(fr.spanned)
    start = int(fr.offsets[first_spanned])
    seg_len = int.from_bytes(raw[start : start + 2], "big")
    tables, report = None, None
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".dat") as f:
        f.write(raw[: start + seg_len + 10])  # the first segment and a sliver of the last
        f.flush()
        tables, report = read_file(f.name)
    reasons = [q.reason for q in report.quarantine]
    assert any("spanned" in r or "truncated" in r for r in reasons), reasons
    assert report.quarantine[0].offset == start


def test_a_sane_looking_rdw_in_swallowed_bytes_does_not_hide_the_records_there():
    """Bytes 1,024-3,054 of TESTCHL cut out: the record at 1,010 keeps its RDW length (5,540), which
    now reaches into the record once at 8,580, where X'002C0000' and a 1900 packed date look like a
    whole RDW. The records the long length swallows (from 4,520 on) must be read, the damaged one
    quarantined (found by hypothesis)."""
    raw, _, _ = pristine("TESTCHL", "rdw")
    report = check_survivors("TESTCHL", "rdw", raw[:1024] + raw[3054:], lambda s, e: s < 3054 and e > 1024, 3054, -2030)
    assert [(q.offset, q.length) for q in report.quarantine] == [(1010, 4520 - 1010)]
