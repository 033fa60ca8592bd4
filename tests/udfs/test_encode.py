"""The SMF encoder: layout-driven encoding, record assembly and RDW / BDW / NORDW framing, proved
against the decoder and the framing walker (which were validated on the real samples)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqsmf import read_bytes, read_file
from mqsmf.decode import RAW
from mqsmf.encode import (
    DumpWriter,
    RecordHeader,
    build_records,
    dump_record,
    encode,
    entry_block,
    version_key,
    version_length,
)
from mqsmf.framing import MAX_SEGMENT, SEG_COMPLETE, SEG_FIRST, SEG_LAST, SEG_MIDDLE, frame
from mqsmf.layouts import header_layout, layout

T0 = 1_750_000_000_000_000  # 2025-06-15 15:06:40 UTC, microseconds


@pytest.mark.parametrize(
    ("structure", "lengths"),
    [
        ("QQST", {"9.3.0": 84, "9.3.1": 120, "9.3.3": 552, "9.4.0": 552, "9.4.3": 672, "10.0.0": 672}),
        ("QJST", {"9.3.0": 596, "9.3.3": 596, "9.4.0": 720, "10.0.0": 720}),
        ("QMST", {"9.3.3": 104, "9.4.0": 104, "9.4.3": 300, "10.0.0": 328}),
        ("QCCT", {"9.3.3": 48, "9.4.0": 64}),
        ("QESD", {"9.3.0": 336}),
        ("WQST", {"9.3.0": 2792, "9.3.1": 2792, "9.3.3": 2800, "10.0.0": 2800}),
        ("WTAS", {"9.3.0": 2344, "10.0.0": 2344}),
    ],
)
def test_version_lengths_follow_the_since_column(structure, lengths):
    # The layouts document's QQSTLL / QJSTLL / QMSTLL / QCCTLL / QESDLL values per release.
    for version, expected in lengths.items():
        assert version_length(layout(structure), version) == expected


def test_version_keys_order_the_since_vocabulary():
    assert version_key("all") < version_key("<=V8") < version_key("9.0.3") < version_key("9.3.3")
    assert version_key("9.4.5") < version_key("MQ 10") == version_key("10.0.0")
    assert version_key("after V7.0.1 (long form only)") == (7, 0, 1)
    with pytest.raises(ValueError):
        version_key("latest")


def _view(lay, raw: np.ndarray) -> np.ndarray:
    full = np.zeros((len(raw), lay.size), np.uint8)
    full[:, : raw.shape[1]] = raw
    return full.view(lay.numpy_dtype()).reshape(len(raw))


def test_encode_fills_header_fields_and_flag_words():
    lay = layout("QQST")
    raw = encode(
        lay,
        {
            "QQSTQNAM": np.array(["A.B", "low%er/q"]),
            "QQSTDISP": [True, False],
            "QQSTUNCM": [True, True],
            "QQSTDPTH": [7, 0],
        },
        2,
        120,
    )
    assert raw.shape == (2, 120)
    v = _view(lay, raw)
    assert list(v["QQSTID"]) == [0xD80F, 0xD80F]
    assert list(v["QQSTLL"]) == [120, 120]
    assert bytes(v["QQSTEYEC"][0]).decode("cp037") == "QQST"
    assert list(v["QQSTFLAG"]) == [0x80000000 | 0x20000000, 0x20000000]
    assert bytes(v["QQSTQNAM"][1]).decode("cp037").rstrip() == "low%er/q"
    assert list(v["QQSTDPTH"]) == [7, 0]


def test_encode_cuts_fields_beyond_the_version_length():
    lay = layout("QQST")
    raw = encode(lay, {"QQSTQNAM": "Q", "QQSTDPTH": 1, "QQSTOPCT": 5, "QQSTPUTS": 9}, 1, 84)
    assert raw.shape == (1, 84)  # QQSTOPCT (84) and QQSTPUTS (128) are not written at all
    assert int.from_bytes(bytes(raw[0, 80:84]), "big") == 1


def test_encode_time_and_duration_units():
    lay = layout("QJST")
    raw = encode(lay, {"QJSTIO[0][0].QJSTIOTOTIO": 1500, "QJSTIO_0_0_QJSTIOMAXIOT": T0, "QJSTSLPTU": 42}, 1)
    v = _view(lay, raw)
    assert int(v["QJSTIO_0_0_QJSTIOTOTIO"][0]) == 1500 << 12  # TOD duration: microseconds << 12
    assert (int(v["QJSTIO_0_0_QJSTIOMAXIOT"][0]) >> 12) - (0x7D91048BCA000000 >> 12) == T0  # STCK
    assert int(v["QJSTSLPTU"][0]) == 42  # plain microseconds stay plain
    zero = encode(lay, {"QJSTIO_0_0_QJSTIOMAXIOT": 0}, 1)
    assert int(_view(lay, zero)["QJSTIO_0_0_QJSTIOMAXIOT"][0]) == 0  # 0 = never, not the Unix epoch


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"QQSTDPTH": 2**31}, "QQSTDPTH"),
        ({"QQSTPSID": 40000}, "QQSTPSID"),
        ({"QQSTPUTS": -1}, "QQSTPUTS"),
        ({"QQSTNOPE": 1}, "QQSTNOPE"),
    ],
)
def test_encode_refuses_values_that_do_not_fit(values, message):
    with pytest.raises((ValueError, KeyError), match=message):
        encode(layout("QQST"), values, 1)


def test_entry_block_keeps_unused_entries_zero():
    lay = layout("QEST")
    entries = encode(lay, {"QESTSTR": ["APPL1", "CSQ_ADMIN"], "QESTSFUL": [0, 3]}, 2, lay.entry_size)
    block = entry_block(lay, entries)
    assert block.shape == (1, 8 + 64 * 64)
    assert bytes(block[0, 4:8]).decode("cp037") == "QEST"
    assert not block[0, 8 + 2 * 64 :].any()


def _header(
    subtype: int, qmgr: str = "QM01", rel: str = "933", qsg: str | None = None, qwhx: str | None = None, nsda: int = 2
) -> RecordHeader:
    return RecordHeader(
        115,
        subtype,
        "SYSA",
        qmgr,
        rel,
        T0 + 3_600_000_000 + 5000,
        T0,
        T0 + 3_600_000_000 - 1_800_000_000,
        1_800_000_000,
        nsda,
        qwhx_qsg=qsg,
        qwhx_rel=qwhx,
    )


def _queues(n: int, version: str = "9.3.3") -> np.ndarray:
    lay = layout("QQST")
    return encode(
        lay,
        {
            "QQSTQNAM": np.array([f"Q.{i:05d}" for i in range(n)]),
            "QQSTDPTH": np.arange(n),
            "QQSTPUTS": np.arange(n) * 3,
        },
        n,
        version_length(lay, version),
    )


def _dump(records: list[bytes], framing: str, block_size: int = 32760) -> bytes:
    buf = io.BytesIO()
    w = DumpWriter(buf, framing, block_size)
    w.write(dump_record(2, "SYSA", T0))
    for r in records:
        w.write(r)
    w.write(dump_record(3, "SYSA", T0 + 60_000_000))
    w.close()
    return buf.getvalue()


def test_record_layout_matches_the_triplets():
    (rec,) = build_records([_header(216)], [{1: _queues(3)}])
    smf = header_layout("SMFHDR")
    hdr = np.frombuffer(rec[: smf.size], np.uint8)
    view = np.zeros(smf.size, np.uint8)
    view[:] = hdr
    v = view.view(smf.numpy_dtype())[0]
    assert (v["SM11xFLG"], v["SM11xRTY"], v["SM11xSTF"]) == (0x5E, 115, 216)
    # triplet 1: QQST right after the two triplets; triplet 0: QWHS last
    off1, len1, cnt1 = (
        int.from_bytes(rec[36:40], "big"),
        int.from_bytes(rec[40:42], "big"),
        int.from_bytes(rec[42:44], "big"),
    )
    off0, len0 = int.from_bytes(rec[28:32], "big"), int.from_bytes(rec[32:34], "big")
    assert (off1, len1, cnt1) == (28 + 16, 552, 3)
    assert off0 == off1 + 3 * 552 and len0 == 52 and off0 + len0 == len(rec)


def test_mq10_records_carry_a_qwhx(tmp_path):
    recs = build_records([_header(216, rel="946", qsg="QSGA", qwhx="100000")], [{1: _queues(2, "10.0.0")}])
    path = tmp_path / "mq10.dat"
    path.write_bytes(_dump(recs, "rdw"))
    tables, report = read_file(str(path))
    assert not report.quarantine
    q = tables["QQST"]
    assert set(q.column("qsg").to_pylist()) == {"QSGA"}
    assert set(q.column("mq_version").to_pylist()) == {"10.0.0"}
    assert set(q.column("structure_length").to_pylist()) == {672}


@pytest.mark.parametrize("framing", ["rdw", "bdw", "nordw"])
def test_long_records_span_first_middle_last(framing, tmp_path):
    big = build_records([_header(216)], [{1: _queues(130)}])[0]  # 130 x 552 bytes: over two segments
    assert len(big) > 2 * MAX_SEGMENT
    data = _dump([big], framing)
    if framing == "rdw":
        codes, p = [], 0
        while p < len(data):
            codes.append(data[p + 2])
            p += int.from_bytes(data[p : p + 2], "big")
        assert codes == [SEG_COMPLETE, SEG_FIRST, SEG_MIDDLE, SEG_LAST, SEG_COMPLETE]
    fr = frame(data, framing)
    assert len(fr) == 3 and not fr.quarantine
    rebuilt = fr.spanned.get(1) if framing != "nordw" else None
    if rebuilt is not None:
        assert rebuilt[4:] == big[4:]  # reassembly gives back the logical record exactly
    path = tmp_path / f"big.{framing}"
    path.write_bytes(data)
    tables, report = read_file(str(path), framing=framing)
    assert not report.quarantine
    assert tables["QQST"].column("QQSTDPTH").to_pylist() == list(range(130))


def test_bdw_blocks_hold_whole_segments_within_the_block_size():
    recs = build_records([_header(216)] * 5, [{1: _queues(n)} for n in (10, 50, 59, 3, 80)])
    data = _dump(recs, "bdw", block_size=27998)
    p = 0
    while p < len(data):
        blen = int.from_bytes(data[p : p + 2], "big")
        assert 8 <= blen <= 27998 and data[p + 2 : p + 4] == b"\0\0"
        s = p + 4
        while s < p + blen:
            s += int.from_bytes(data[s : s + 2], "big")
        assert s == p + blen  # segments end exactly at the block end
        p += blen
    assert p == len(data)


def test_dump_header_and_trailer_frame_the_dump():
    rec = dump_record(2, "SYSB", T0)
    assert len(rec) == 18 and rec[4] == 0x1E and rec[5] == 2 and rec[14:18].decode("cp037") == "SYSB"
    assert dump_record(3, "SYSB", T0)[5] == 3
    with pytest.raises(ValueError):
        dump_record(115, "SYSB", T0)
    recs = build_records([_header(216)], [{1: _queues(2)}])
    for framing in ("rdw", "bdw", "nordw"):
        fr = frame(_dump(recs, framing), framing)
        data = _dump(recs, framing)
        first = fr.offsets[0] + (4 if framing != "nordw" else 0)
        last = fr.offsets[-1] + (4 if framing != "nordw" else 0)
        assert (data[first + 1], data[last + 1]) == (2, 3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=st.lists(st.integers(min_value=0, max_value=140), min_size=1, max_size=6),
    block=st.sampled_from([4096, 8192, 27998, 32760]),
    framing=st.sampled_from(["rdw", "bdw", "nordw"]),
)
def test_any_record_sizes_frame_and_reassemble(counts, block, framing):
    recs = build_records([_header(216)] * len(counts), [{1: _queues(n)} for n in counts])
    data = _dump(recs, framing, block)
    fr = frame(data, framing)
    assert not fr.quarantine
    assert len(fr) == len(recs) + 2
    for i, rec in enumerate(recs, start=1):
        if i in fr.spanned:
            got = fr.spanned[i]
        else:
            start = fr.offsets[i] - (4 if framing == "nordw" else 0)
            got = data[start : start + fr.lengths[i]]
        assert got[4:] == rec[4:]


def test_wtas_latch_wait_times_hold_tod_units_in_their_high_word():
    """WTASLWET and WTASMLW: an MQ 10 queue manager writes TOD units in the field's high 4 bytes
    (the layout specification's latch-time note); WTASLMAX is a plain TOD duration. The typed decode
    gives microseconds, the raw decode the 8 bytes as written."""
    lay = layout("WTAS")
    values = {"WTASLWET[11]": 54, "WTASLWN[11]": 1, "WTASLMAX[11]": 54, "WTASMLW": 54, "WTASMLWN": 11}
    block = encode(lay, values, 1)[0]
    lwet = lay.field("WTASLWET[11]")
    assert lwet.offset == 48 + 8 * 10  # latch class k at 48 + 8 (k - 1)
    raw = int.from_bytes(block[lwet.offset : lwet.end].tobytes(), "big")
    assert raw == (54 * 4096) << 32  # TOD units in the high word, low word zero
    lmax = lay.field("WTASLMAX[11]")
    assert int.from_bytes(block[lmax.offset : lmax.end].tobytes(), "big") == 54 * 4096
    header = RecordHeader(116, 1, "SYSA", "QM01", "946", T0, T0, 0, 0, nsda=3, qwhc={"QWHCCN": "JOB1"})
    header.qwhx_qsg, header.qwhx_rel = "", "100000"
    (record,) = build_records([header], [{2: block.reshape(1, -1)}])
    out = io.BytesIO()
    writer = DumpWriter(out)
    writer.write(record)
    writer.close()
    tables, report = read_bytes(out.getvalue())
    assert not report.quarantine
    row = tables["WTAS"].to_pylist()[0]
    raw_tables, _ = read_bytes(out.getvalue(), mode=RAW)
    assert raw_tables["WTAS"].column("WTASLWET_11").to_pylist() == [(54 * 4096) << 32]
    assert (row["WTASLWET_11"], row["WTASMLW"], row["WTASLMAX_11"]) == (54, 54, 54)
    assert row["interval_start"] is None and row["record_stck"] is not None  # 116: short QWHS, no interval
    assert row["qsg"] == "" and row["mq_version"] == "10.0.0"  # the QWHX after QWHS + QWHC
    with pytest.raises(ValueError, match="high word"):
        encode(lay, {"WTASLWET[1]": 1 << 20}, 1)  # more than 2**32 TOD units does not fit the high word
