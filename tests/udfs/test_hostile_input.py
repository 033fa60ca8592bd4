"""Hostile or badly damaged dumps cost quarantine entries, never an outage (issue 38).

Every input here is crafted in the test: records written by ``mqsmf.encode`` from the layout
tables, then a few bytes edited the way a damaged transfer or an attacker would (a triplet's count,
a release digit, a PCF StrucLength). Each test checks a bound or a contract that the reader broke
before: memory that grew with a count the record cannot hold, resynchronisation that rescanned a
megabyte per damaged spot, an exception that ended the file, NULL rows, names that depended on
their neighbours.
"""

from __future__ import annotations

import io
import re
import struct
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from mqsmf import reader
from mqsmf.encode import DumpWriter, RecordHeader, build_records, dump_record, encode, version_length
from mqsmf.framing import RDW, SEG_FIRST, SEG_LAST, SEG_MIDDLE, descriptor_word
from mqsmf.headers import QWHS_NSDA, TRIPLET_AREA, TRIPLET_COUNT, TRIPLET_LENGTH, TRIPLET_OFFSET, TRIPLET_SIZE
from mqsmf.layouts import layout
from mqsmf.pcf import read_dump_bytes

from .test_pcf_events import dump, hand_built, md

T0 = 1_750_000_000_000_000  # 2025-06-15, microseconds


def header(nsda: int = 2, rel: str = "933", qwhx: str | None = None) -> RecordHeader:
    return RecordHeader(
        115, 216, "SYSA", "QM01", rel, T0 + 5000, T0, T0 - 1_800_000_000, 1_800_000_000, nsda,
        qwhx_qsg="QSG1" if qwhx else None, qwhx_rel=qwhx,
    )  # fmt: skip


def queues(names: list[str], version: str = "9.3.3") -> np.ndarray:
    lay = layout("QQST")
    return encode(
        lay, {"QQSTQNAM": np.array(names), "QQSTDPTH": np.arange(len(names))}, len(names), version_length(lay, version)
    )


def qqst_record(names: list[str], version: str = "9.3.3", **kw) -> bytearray:
    return bytearray(build_records([header(**kw)], [{1: queues(names, version)}])[0])


def rdw_file(records) -> bytes:
    buf = io.BytesIO()
    writer = DumpWriter(buf, "rdw")
    for rec in records:
        writer.write(bytes(rec))
    writer.close()
    return buf.getvalue()


def set_triplet(rec: bytearray, t: int, offset: int | None = None, length: int | None = None, count: int | None = None):
    at = TRIPLET_AREA + TRIPLET_SIZE * t
    for f, v in ((TRIPLET_OFFSET, offset), (TRIPLET_LENGTH, length), (TRIPLET_COUNT, count)):
        if v is not None:
            rec[at + f.offset : at + f.end] = v.to_bytes(f.length, "big")


def triplet(rec: bytes, t: int) -> tuple[int, int, int]:
    at = TRIPLET_AREA + TRIPLET_SIZE * t
    return tuple(
        int.from_bytes(rec[at + f.offset : at + f.end], "big") for f in (TRIPLET_OFFSET, TRIPLET_LENGTH, TRIPLET_COUNT)
    )


def peak_traced(fn):
    """(result, peak bytes numpy and Python allocated while ``fn`` ran), after a warm-up read so
    the layouts' one-time caches are not counted."""
    reader.read_bytes(rdw_file([qqst_record(["WARM.UP"])]), "warm.dat")
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def offsets(data: bytes) -> list[int]:
    from mqsmf.framing import frame

    return [int(o) for o in frame(data, "rdw").offsets]


# ------------------------------------------------------------------------------------------------
# 1. Memory bounded by the input
# ------------------------------------------------------------------------------------------------


def test_a_zero_length_triplet_counting_65535_is_quarantined_without_65535_instances():
    good = qqst_record(["APP.GOOD"])
    bad = qqst_record(["APP.BAD"])
    off, _, _ = triplet(bad, 1)
    set_triplet(bad, 1, length=0, count=65535)  # off + 0 x 65535 lies inside the record
    data = rdw_file([good] + [bad] * 200 + [good])
    (tables, report), peak = peak_traced(lambda: reader.read_bytes(data, "zero.dat"))
    # 200 x 65535 instances would be 13 million rows of index arrays (gigabytes); the bound is a
    # small multiple of the 130 KB input.
    assert peak < 16 * len(data) + (4 << 20), peak
    assert tables["QQST"].column("QQSTQNAM").to_pylist() == ["APP.GOOD", "APP.GOOD"]
    starts = offsets(data)
    assert [q.offset for q in report.quarantine] == starts[1:-1]
    assert all("triplet 1" in q.reason and "65535" in q.reason for q in report.quarantine)


def test_a_count_that_only_fits_zero_length_instances_names_the_structure_minimum():
    """count x length fits, count x the structure's shortest instance does not: implausible."""
    rec = qqst_record(["APP.ONE", "APP.TWO"])
    off, ln, cnt = triplet(rec, 1)
    room = len(rec) - off
    set_triplet(rec, 1, length=1, count=room // 2)  # one-byte instances fit, 8-byte ones do not
    data = rdw_file([qqst_record(["APP.GOOD"]), rec])
    tables, report = reader.read_bytes(data, "ones.dat")
    assert tables["QQST"].column("QQSTQNAM").to_pylist() == ["APP.GOOD"]
    (q,) = report.quarantine
    assert q.offset == offsets(data)[1] and "QQST" in q.reason and "cannot hold" in q.reason


def test_nsda_255_costs_no_triplet_array_for_every_other_record():
    many = [qqst_record([f"APP.Q{i}"], "9.3.0") for i in range(6000)]
    big = qqst_record([f"BIG.Q{i}" for i in range(40)])  # its QWHS is far in: 255 triplets fit
    off0, _, _ = triplet(big, 0)
    big[off0 + QWHS_NSDA] = 255
    data = rdw_file([big] + many)
    (tables, report), peak = peak_traced(lambda: reader.read_bytes(data, "nsda.dat"))
    # A dense (records x 255 x 3) int64 array alone would be 6000 x 6 KB = 37 MB.
    assert peak < 24 * len(data) + (4 << 20), peak
    assert tables["QQST"].num_rows >= 6000
    assert all(q.offset == 0 for q in report.quarantine)


def test_tiny_spanned_segments_cost_their_bytes_not_python_objects():
    rec = bytes(qqst_record(["APP.SPAN"]))
    body = rec[RDW:]
    first, rest = body[:100], body[100:]
    parts = [descriptor_word(RDW + len(first), SEG_FIRST) + first]
    parts += [descriptor_word(RDW + 1, SEG_MIDDLE) + rest[i : i + 1] for i in range(len(rest))]
    # Then 300,000 one-byte middle segments of padding before a last segment: the record grows by
    # 300 KB of data in 1.5 MB of file.
    pad = descriptor_word(RDW + 1, SEG_MIDDLE) + b"\0"
    parts.append(pad * 300_000)
    parts.append(descriptor_word(RDW + 1, SEG_LAST) + b"\0")
    good = rdw_file([qqst_record(["APP.AFTER"])])
    data = b"".join(parts) + good
    (tables, report), peak = peak_traced(lambda: reader.read_bytes(data, "span.dat"))
    # A Python bytes object and list slot per segment and a Python int per segment cost ~30x.
    assert peak < 12 * len(data), peak
    assert tables["QQST"].column("QQSTQNAM").to_pylist() == ["APP.SPAN", "APP.AFTER"]
    assert not report.quarantine


# ------------------------------------------------------------------------------------------------
# 2. Time linear in the input
# ------------------------------------------------------------------------------------------------


def short_records(n: int) -> list[bytes]:
    return [dump_record(2 + (i % 2), "SYSA", T0 + i) for i in range(n)]


def test_a_junk_byte_every_fourth_short_record_is_read_in_linear_time():
    records = short_records(60_000)  # 18-byte records: about 1.1 MB
    clean = rdw_file(records)
    rdw_len = len(records[0])
    pieces, junk_at = [], []
    for i in range(0, len(records), 4):
        chunk = clean[i * rdw_len : (i + 4) * rdw_len]
        pieces.append(chunk)
        junk_at.append(sum(map(len, pieces)))
        pieces.append(b"\xff")
    damaged = b"".join(pieces)
    t = time.perf_counter()
    reader.read_bytes(clean, "clean.dat")
    clean_s = time.perf_counter() - t
    t = time.perf_counter()
    _, report = reader.read_bytes(damaged, "junk.dat")
    damaged_s = time.perf_counter() - t
    assert [q.offset for q in report.quarantine] == junk_at[: len(report.quarantine)]
    assert len(report.quarantine) == len(junk_at) - (damaged.endswith(b"\xff") and 0)
    assert sum(report.read.values()) == len(records)
    # Damage costs a Python step per damaged spot, never a rescan of what was already rejected.
    assert damaged_s < 30 * clean_s + 3.0, (damaged_s, clean_s)


# ------------------------------------------------------------------------------------------------
# 3. No escaped exceptions
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("digit", [0xDA, 0xEA, 0xFA])
def test_a_superscript_digit_in_qwhxrel_is_not_a_release_and_ends_nothing(digit):
    bad = qqst_record(["APP.ODD"], rel="946", qwhx="100000")
    at = bytes(bad).rindex(b"\xf1\xf0\xf0\xf0\xf0\xf0")
    bad[at + 2] = digit  # decodes to a superscript digit, which str.isdigit() accepts
    data = rdw_file([qqst_record(["APP.A"]), bad, qqst_record(["APP.B"], rel="946", qwhx="100000")])
    tables, report = reader.read_bytes(data, "rel.dat")
    rows = tables["QQST"].to_pylist()
    assert [r["QQSTQNAM"] for r in rows] == ["APP.A", "APP.ODD", "APP.B"]
    assert [r["mq_version"] for r in rows][::2] == ["9.3.3", "10.0.0"]
    assert not re.fullmatch(r"\d+\.\d+\.\d+", rows[1]["mq_version"] or "")


def test_a_record_the_decoder_cannot_handle_is_quarantined_alone(monkeypatch):
    """The last line of defence: a failure inside one record (a decoder bug) quarantines that
    record, not the batch or the file."""
    real = reader.decode_batch

    def fragile(rb, hd, good, names, mode):
        if (rb.length == len(odd)).any():
            raise ValueError("planted failure")
        return real(rb, hd, good, names, mode)

    odd = qqst_record(["APP.ODD", "APP.ODD2"])
    data = rdw_file([qqst_record(["APP.A"]), odd, qqst_record(["APP.B"])])
    monkeypatch.setattr(reader, "decode_batch", fragile)
    tables, report = reader.read_bytes(data, "bug.dat")
    assert tables["QQST"].column("QQSTQNAM").to_pylist() == ["APP.A", "APP.B"]
    (q,) = report.quarantine
    assert q.offset == offsets(data)[1] and "planted failure" in q.reason and "ValueError" not in q.reason


def _message(data: bytes) -> tuple[dict[str, str], bytes]:
    return md(785, 500), data


GOOD_EVENT = hand_built(">", 500, "cp500", 2224, "QM01", "Q1", (10, 5, 5, 0))


def _event(params: bytes, count: int) -> bytes:
    return struct.pack(">9i", 7, 36, 1, 45, 1, 1, 1, 2224, count) + params


@pytest.mark.parametrize(
    "bad, reason",
    [
        # A final MQCFST whose StrucLength (12) stops before its CodedCharSetId and StringLength.
        (_event(struct.pack(">3i", 4, 12, 2015), 1), "StrucLength 12"),
        # A string parameter in CCSID 1208 whose bytes are not UTF-8.
        (_event(struct.pack(">5i", 4, 24, 2015, 1208, 4) + b"\xff\xfe\xc3\x28", 1), "utf-8"),
    ],
)
def test_malformed_pcf_parameters_are_quarantined(bad, reason):
    text = dump(_message(GOOD_EVENT), _message(bad), _message(GOOD_EVENT)).encode()
    table, report = read_dump_bytes(text, "events.dmp")
    assert table.column("queue_name").to_pylist() == ["Q1", "Q1"]
    (q,) = report.quarantine
    assert reason in q.reason and text[q.offset : q.offset + 2] == b"N\n"


@pytest.mark.parametrize("value", ["99999999999", "-2147483649", "+2147483648"])
def test_an_mqmd_number_beyond_an_mqlong_is_quarantined(value):
    attrs = {**md(785, 500), "PRI": value}
    text = dump(_message(GOOD_EVENT), (attrs, GOOD_EVENT), _message(GOOD_EVENT)).encode("utf-8")
    table, report = read_dump_bytes(text, "events.dmp")
    assert table.num_rows == 2
    (q,) = report.quarantine
    assert "PRI" in q.reason


def test_the_cli_inspects_a_superscript_release_without_an_exception(tmp_path, capsys):
    from mqsmf.cli import main

    bad = qqst_record(["APP.ODD"], rel="946", qwhx="100000")
    at = bytes(bad).rindex(b"\xf1\xf0\xf0\xf0\xf0\xf0")
    bad[at] = 0xFA
    path = tmp_path / "rel.dat"
    path.write_bytes(rdw_file([qqst_record(["APP.A"]), bad]))
    status = main(["inspect", str(path)])
    out = capsys.readouterr()
    assert status in (0, 1)
    assert not re.search(r"\b[A-Z][A-Za-z]*(Error|Exception)\b", out.out + out.err)


# ------------------------------------------------------------------------------------------------
# 4. No rows of NULLs
# ------------------------------------------------------------------------------------------------


def test_qqst_instances_without_their_queue_name_are_quarantined_not_null_rows():
    names = [f"APP.Q{i}" for i in range(50)]
    stub = queues(names)[:, :8]  # identifier, length and eyecatcher: nothing else
    bad = build_records([header()], [{1: stub}])[0]
    data = rdw_file([qqst_record(["APP.GOOD"]), bad])
    tables, report = reader.read_bytes(data, "stub.dat")
    assert tables["QQST"].column("QQSTQNAM").to_pylist() == ["APP.GOOD"]
    (q,) = report.quarantine
    assert q.offset == offsets(data)[1] and "QQSTQNAM" in q.reason and "natural key" in q.reason


# ------------------------------------------------------------------------------------------------
# 5. Names decode the same whatever else is in the batch
# ------------------------------------------------------------------------------------------------


def test_a_name_decodes_the_same_beside_national_characters():
    name = "APP\x00Q1"  # an embedded X'00', as damage or an odd tool leaves it
    alone = rdw_file([qqst_record([name])])
    beside = rdw_file([qqst_record([name]), qqst_record(["ÄPP.Ö"])])
    a = reader.read_bytes(alone, "a.dat")[0]["QQST"].column("QQSTQNAM").to_pylist()
    b = reader.read_bytes(beside, "b.dat")[0]["QQST"].column("QQSTQNAM").to_pylist()
    assert a == [name] and b == [name, "ÄPP.Ö"]


# ------------------------------------------------------------------------------------------------
# 7. The fuzz campaign under limits (bench/fuzz_limits.py): a smoke run, and its limits bite
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def limits_harness():
    import importlib.util
    import sys

    from .smf_samples import sample

    sample("TESTCHL")  # the campaign's seeds include the shared real dumps; skips when absent
    path = Path(__file__).resolve().parents[2] / "bench" / "fuzz_limits.py"
    spec = importlib.util.spec_from_file_location("fuzz_limits", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_limits"] = module
    spec.loader.exec_module(module)
    return module


def test_a_short_limited_campaign_finds_nothing(limits_harness, tmp_path):
    res = limits_harness.run(40, 11, 64 << 10, 1024, 10.0, str(tmp_path))
    assert res["findings"] == []
    assert res["inputs"] == 40 and res["bytes"] > 40 * 1000
    assert 0 < res["peak_rss_mb"] < 1024 + 512


def test_the_campaign_reports_an_input_over_its_time_limit(limits_harness, tmp_path):
    res = limits_harness.run(3, 11, 64 << 10, 1024, 1e-6, str(tmp_path))
    assert len(res["findings"]) == 3
    assert all("time limit" in f["status"] for f in res["findings"])
    assert all(Path(f["path"]).read_bytes() for f in res["findings"])


# ------------------------------------------------------------------------------------------------
# 6. Every row has a time, hence a day and a de-duplication key
# ------------------------------------------------------------------------------------------------

SMF_DATE = b"\x01\x25\x16\x6f"  # T0's day, 2025-06-15 (day 166), as SMFxxDTE packs it: X'0cyydddF'


def without(rec: bytearray, value: bytes, replacement: bytes) -> bytearray:
    at = bytes(rec).index(value)
    assert bytes(rec).count(value) == 1
    rec[at : at + len(value)] = replacement
    return rec


def test_a_record_without_a_store_clock_is_dated_by_its_smf_header_and_one_without_a_date_quarantined():
    """QWHSSTCK zero: no UTC time, no interval start; the SMF header's local time dates the row
    (before, its day was NULL: the rows landed in 1969-12-31 and a reload added them again). A
    record without a valid SMF date never reaches the decoder (the framer quarantines it); the
    decoder quarantines one with neither time anyway (decode.NO_TIME), so no row is undated."""
    from mqsmf.codecs import unix_us_to_stck
    from mqsmf.warehouse import partition_time

    stck = int(unix_us_to_stck(np.array([T0]))[0]).to_bytes(8, "big")
    no_stck = without(qqst_record(["APP.NO.STCK"]), stck, bytes(8))
    no_date = without(qqst_record(["APP.NO.DATE"]), SMF_DATE, b"\xff\xff\xff\xff")
    data = rdw_file([qqst_record(["APP.GOOD"]), no_stck, no_date, qqst_record(["APP.LAST"])])
    tables, report = reader.read_bytes(data, "times.dat")
    qqst = tables["QQST"]
    assert qqst.column("QQSTQNAM").to_pylist() == ["APP.GOOD", "APP.NO.STCK", "APP.LAST"]
    (q,) = report.quarantine
    first, second = offsets(data)[:2]  # the framer's records: the one without a date is not one
    assert q.offset == second + (second - first) and "packed date" in q.reason
    assert qqst.column("record_stck")[1].as_py() is None and qqst.column("interval_start")[1].as_py() is None
    when = partition_time("QQST", qqst).to_pylist()
    assert None not in when and when[1].date().isoformat() == "2025-06-15"


def test_the_decoder_quarantines_a_record_with_no_time_at_all():
    """No framer passes a record without a valid SMF date; the decoder guards its rows anyway."""
    from mqsmf.codecs import unix_us_to_stck
    from mqsmf.decode import NO_TIME, RecordBuffer, decode_batch, parse_headers

    stck = int(unix_us_to_stck(np.array([T0]))[0]).to_bytes(8, "big")
    timeless = without(without(qqst_record(["APP.NO.TIME"]), stck, bytes(8)), SMF_DATE, bytes(4))
    records = [bytes(qqst_record(["APP.GOOD"])), bytes(timeless)]
    base = np.array([0, len(records[0])], dtype=np.int64)
    length = np.array([len(r) for r in records], dtype=np.int64)
    buf = np.frombuffer(b"".join(records) + bytes(4096), dtype=np.uint8)
    rb = RecordBuffer(buf, base, length, base, base + length, "timeless.dat", int(length.sum()))
    batches, problems, _ = decode_batch(rb, parse_headers(rb), np.ones(2, dtype=bool), ["QQST"])
    assert problems == {1: NO_TIME}
    assert batches["QQST"].column("QQSTQNAM").to_pylist() == ["APP.GOOD"]


def test_an_event_without_its_put_time_is_quarantined():
    attrs = {**md(785, 500), "PTD": "", "PTT": ""}
    text = dump(_message(GOOD_EVENT), (attrs, GOOD_EVENT), _message(GOOD_EVENT)).encode("utf-8")
    table, report = read_dump_bytes(text, "events.dmp")
    assert table.num_rows == 2 and None not in table.column("put_at").to_pylist()
    (q,) = report.quarantine
    assert "PutDate/PutTime" in q.reason
