"""Framing: RDW, BDW and NORDW files of the same records decode identically; detection and
override; spanned records; dump header/trailer records skipped and counted."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqsmf import framing, read_file
from mqsmf.framing import FramingError, detect_framing, frame

from .smf_samples import sample, to_bdw, to_nordw

DROP = ["source_file"]


def _tables(path, framing="auto"):
    tables, report = read_file(str(path), framing=framing)
    return {k: v.drop_columns(DROP) for k, v in tables.items()}, report


@pytest.mark.parametrize("name", ["TEST115", "TESTCHL", "TEST116"])
@pytest.mark.parametrize("convert,framing", [(to_bdw, "bdw"), (to_nordw, "nordw")])
def test_other_framings_decode_identically(tmp_path, name, convert, framing):
    data = sample(name).read_bytes()
    path = tmp_path / f"{name}.{framing}"
    path.write_bytes(convert(data))
    want, _ = _tables(sample(name))
    got, report = _tables(path)
    assert report.framing == framing
    assert not report.quarantine
    assert set(got) == set(want)
    for struct in want:
        w, g = want[struct], got[struct]
        # Record offsets differ between framings; everything else must be equal.
        assert w.drop_columns(["record_offset"]).equals(g.drop_columns(["record_offset"])), struct


def test_bdw_blocks_split_spanned_records_across_blocks(tmp_path):
    data = sample("TESTCHL").read_bytes()
    path = tmp_path / "small-blocks.bdw"
    path.write_bytes(to_bdw(data, block_size=6000))
    got, report = _tables(path)
    want, _ = _tables(sample("TESTCHL"))
    assert report.framing == "bdw" and not report.quarantine
    assert {k: v.num_rows for k, v in got.items()} == {k: v.num_rows for k, v in want.items()}


def test_spanned_records_are_reassembled():
    data = sample("TESTCHL").read_bytes()
    fr = frame(data)
    assert len(fr.spanned) == 28
    for i, rec in fr.spanned.items():
        assert len(rec) == fr.lengths[i]
        assert rec[:2] != b"\0\0"  # keeps the first segment's RDW so triplet offsets stay valid


def test_explicit_framing_override_and_detection():
    data = sample("TEST115").read_bytes()
    assert detect_framing(data) == "rdw"
    assert detect_framing(to_bdw(data)) == "bdw"
    assert detect_framing(to_nordw(data)) == "nordw"
    # Forcing the wrong framing: the RDWs become stray bytes between records, each one reported;
    # resynchronisation still finds the records themselves.
    tables, report = read_file(str(sample("TEST115")), framing="nordw")
    assert report.framing == "nordw"
    assert [q.offset for q in report.quarantine][:1] == [0]
    assert all(q.length == 4 for q in report.quarantine[1:])


def test_garbage_is_not_an_smf_file(tmp_path):
    path = tmp_path / "noise.bin"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(FramingError):
        read_file(str(path))


def test_empty_file(tmp_path):
    path = tmp_path / "empty.dat"
    path.write_bytes(b"")
    tables, report = read_file(str(path))
    assert tables == {} and report.size == 0


def test_typed_schema_is_spark_friendly():
    tables, _ = read_file(str(sample("TEST115")))
    for table in tables.values():
        for field in table.schema:
            assert not pa.types.is_unsigned_integer(field.type), field


def test_quarantine_does_not_depend_on_the_structures_asked_for(tmp_path):
    """A wrong eyecatcher in one structure quarantines its record for every reader, so a table of
    another structure never holds rows of a record the quarantine lists."""
    data = bytearray(sample("TEST115").read_bytes())
    fr = frame(bytes(data))
    tables, _ = read_file(str(sample("TEST115")))
    qlst = tables["QLST"].to_pylist()[0]  # in the 115/2 record, beside QMST
    record_start = qlst["record_offset"]
    i = list(fr.offsets).index(record_start)
    rec = bytes(data[record_start : record_start + fr.lengths[i]])
    eye = rec.index("QLST".encode("cp037"))
    data[record_start + eye] ^= 0xFF
    path = tmp_path / "bad-qlst.dat"
    path.write_bytes(bytes(data))
    only_qmst, report_qmst = read_file(str(path), structures=["QMST"])
    everything, report_all = read_file(str(path))
    assert [q.offset for q in report_qmst.quarantine] == [q.offset for q in report_all.quarantine] == [record_start]
    assert "QMST" not in only_qmst and "QMST" not in everything


def _segment(record: bytes, seg: int) -> bytes:
    return len(record).to_bytes(2, "big") + bytes((seg, 0)) + record[4:]


def _bdw(body: bytes, claimed_extra: int = 0) -> bytes:
    return (len(body) + 4 + claimed_extra).to_bytes(2, "big") + b"\0\0" + body


def test_a_lost_last_segment_and_a_truncated_block_quarantine_no_byte_twice():
    """Found by bench/fuzz_reader.py: a spanned record whose last segment is lost was quarantined up
    to the next record, so its span also held the next block's descriptor word, which the
    truncated-block entry quarantined again."""
    from mqsmf.encode import RecordHeader, build_records, encode, version_length
    from mqsmf.layouts import layout

    qis1 = layout("QIS1")
    hdr = RecordHeader(115, 201, "SYSA", "QM01", "933", 1_750_000_000_000_000, 1_750_000_000_000_000, 0, 1, 2)
    pages = encode(qis1, {"QIS1PSNO": [1, 2]}, 2, version_length(qis1, "9.4.0"))
    small, big = build_records([hdr, hdr], [{1: pages}, {1: encode(qis1, {}, 9, 104)}])
    first = small.__class__(_segment(big[:600], 1))  # the spanned record's first segment only
    block_a = _bdw(_segment(small, 0) + first)
    block_b = _bdw(_segment(small, 0), claimed_extra=8)  # the file ends 8 bytes short of the block
    fr = frame(block_a + block_b, "bdw")
    seg_at = 4 + len(small)
    assert [(q.offset, q.length) for q in fr.quarantine] == [(seg_at, 600), (len(block_a), 4)]
    assert "no last segment" in fr.quarantine[0].reason and "truncated block" in fr.quarantine[1].reason
    assert fr.offsets.tolist() == [4, len(block_a) + 4]


def _walked(data: bytes) -> framing.Framed:
    """The RDW framing by the record-by-record walk alone: the reference the vectorised run of clean
    records in front of it (``_sane_rdw_run``) must agree with."""
    return framing._walk_rdw(data, len(data), framing._Builder("rdw", 0), 0)


def _as_tuple(fr: framing.Framed) -> tuple:
    quarantine = [(q.offset, q.length, q.reason) for q in fr.quarantine]
    return (fr.offsets.tolist(), fr.ends.tolist(), fr.lengths.tolist(), fr.spanned, quarantine, fr.segments)


# Spanned records (TESTCHL) between complete ones, twice: damage anywhere, several times over.
_RDW_FILE = sample("TEST115").read_bytes() + sample("TESTCHL").read_bytes() + sample("TEST116").read_bytes()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(0, len(_RDW_FILE)),
    edits=st.lists(st.tuples(st.integers(0, len(_RDW_FILE) - 1), st.integers(0, 255)), max_size=4),
    spliced=st.none() | st.tuples(st.integers(0, len(_RDW_FILE)), st.integers(0, 40_000)),
)
def test_the_vectorised_run_frames_exactly_as_the_walk(cut, edits, spliced):
    data = bytearray(_RDW_FILE)
    for at, value in edits:
        data[at] = value
    if spliced:  # bytes cut out of the middle: lengths then point into other records
        start, length = spliced
        del data[start : start + length]
    data = bytes(data[: max(cut, len(data) // 2)])
    got = framing.frame_rdw(data)
    assert _as_tuple(got) == _as_tuple(_walked(data))


def test_the_vectorised_run_takes_a_clean_file_whole_and_stops_before_damage():
    clean = framing._Builder("rdw", 0)
    assert framing._sane_rdw_run(_RDW_FILE, len(_RDW_FILE), clean) == len(_RDW_FILE)
    assert len(clean.offsets) == len(framing.frame_rdw(_RDW_FILE).offsets) and clean.open is None
    damaged = bytearray(_RDW_FILE)
    tenth = int(framing.frame_rdw(_RDW_FILE).offsets[10])
    damaged[tenth + 2] = 0x7F  # record 10's segment descriptor
    partial = framing._Builder("rdw", 0)
    resume = framing._sane_rdw_run(bytes(damaged), len(damaged), partial)
    assert len(partial.offsets) == 8 and resume == int(framing.frame_rdw(_RDW_FILE).offsets[8])
