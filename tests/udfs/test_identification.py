"""How a structure is identified: by the self-defining section (triplet) that locates it and by its
eyecatcher, as IBM's formatters do. An unexpected 2-byte identifier is a counted warning, never a
quarantine; a wrong eyecatcher or an instance too short for its own header is.

The records here are built byte by byte from the record format IBM documents (the SMF header,
IBM MQ 'Self-defining sections', the structures' layouts), not by the project's writer, so the decoder is checked against the
format rather than against our own encoder; one test then shows the writer produces the same bytes."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from mqsmf import read_file
from mqsmf.cli import main as cli_main
from mqsmf.encode import RecordHeader, build_records, encode, version_length
from mqsmf.layouts import layout

from .smf_samples import sample, to_bdw, to_nordw

TOD_1970 = 0x7D91048BCA000000  # TOD clock value of 1970-01-01 00:00:00 (spec section 5)
STCK = TOD_1970 + (1_750_000_000 * 1_000_000 << 12)  # 2025-06-15 15:06:40 UTC
QIS1_C927, QIS1_D90F = 0xC927, 0xD90F


def _ebcdic(text: str, width: int) -> bytes:
    return text.ljust(width).encode("cp037")


def qis1(page_set: int, ident: int = QIS1_C927, eyecatcher: str = "QIS1") -> bytes:
    """One QIS1 (section 4.11): id, length 104, eyecatcher, page set, buffer pool, total/unused pages,
    ... up to QIS1FLAG at 100 (expanded during the interval)."""
    body = struct.pack(">HH4sIIII", ident, 104, _ebcdic(eyecatcher, 4), page_set, page_set % 4, 1000 + page_set, 400)
    body += bytes(92 - len(body)) + struct.pack(">H", 3)  # QIS1EXPN at 92
    body += bytes(100 - len(body)) + struct.pack(">I", 0x80000000)
    assert len(body) == 104
    return body


def record_115_201(instances: list[bytes], instance_length: int = 104, count: int | None = None) -> bytes:
    """An SMF 115/201 record: header (section 2), triplet 0 (QWHS) and triplet 1 (QIS1 x n), the
    QWHS (section 3.1, long form, 52 bytes) first and the page sets after it. RDW included."""
    n = len(instances) if count is None else count
    data_at = 28 + 2 * 8
    qis1_at = data_at + 52
    qwhs = struct.pack(
        ">hBBHBBI4sQIIBBBBQQ", 52, 1, 26, 201, 2, 0x10, 0, _ebcdic("QM01", 4), STCK, 0, 0, 0, 0, 0, 0,
        STCK - (900_000_000 << 12) - 7200 * 1_000_000 * 4096, 900_000_000,
    )  # fmt: skip
    body = b"".join(instances)
    length = qis1_at + len(body)
    smf = struct.pack(
        ">HBBBBI4s4s4sH3sx", length, 0, 0, 0x5E, 115, 1_730_000, b"\x01\x25\x16\x6f", _ebcdic("SYSA", 4),
        _ebcdic("QM01", 4), 201, _ebcdic("933", 3),
    )  # fmt: skip
    triplets = struct.pack(">IHH", data_at, 52, 1) + struct.pack(">IHH", qis1_at, instance_length, n)
    rec = smf + triplets + qwhs + body
    assert len(rec) == length
    return rec


def dump(path, records: list[bytes]) -> str:
    """RDW framing (section 1.1): every record complete, its RDW already in place."""
    path.write_bytes(b"".join(records))
    return str(path)


def test_qis1_with_the_real_identifier_decodes_without_warning(tmp_path):
    tables, report = read_file(dump(tmp_path / "ps.dat", [record_115_201([qis1(0), qis1(1), qis1(2)])]))
    assert not report.quarantine
    assert report.decoded[(115, 201)] == 1
    assert not report.unexpected_id and not report.unexpected_ids
    rows = tables["QIS1"].to_pylist()
    assert [(r["QIS1ID"], r["QIS1PSNO"], r["QIS1BPNO"], r["QIS1TOPG"], r["QIS1UNPG"]) for r in rows] == [
        (0xC927, 0, 0, 1000, 400),
        (0xC927, 1, 1, 1001, 400),
        (0xC927, 2, 2, 1002, 400),
    ]
    assert all(r["QIS1EXPN"] == 3 and r["QIS1EXPF"] and not r["QIS1ENCF"] for r in rows)


@pytest.mark.parametrize("ident", [QIS1_D90F, 0x0000, 0xFFFF])
def test_an_unexpected_identifier_decodes_with_a_counted_warning(tmp_path, ident):
    good = record_115_201([qis1(0), qis1(1)])
    odd = record_115_201([qis1(5, ident), qis1(6, ident), qis1(7)])
    tables, report = read_file(dump(tmp_path / "ps.dat", [good, odd, good]))
    assert not report.quarantine
    assert report.read[(115, 201)] == 3 and report.decoded[(115, 201)] == 3
    assert report.unexpected_id == {(115, 201): 1}  # records
    assert report.unexpected_ids == {("QIS1", f"X'{ident:04X}'"): 2}  # instances
    rows = tables["QIS1"].to_pylist()
    assert [r["QIS1PSNO"] for r in rows] == [0, 1, 5, 6, 7, 0, 1]
    assert [r["QIS1ID"] for r in rows if r["QIS1PSNO"] in (5, 6)] == [ident, ident]


@pytest.mark.parametrize("eyecatcher", ["QIS2", "QPST", "    "])
def test_a_wrong_eyecatcher_still_quarantines_the_record(tmp_path, eyecatcher):
    good = record_115_201([qis1(0)])
    bad = record_115_201([qis1(1), qis1(2, eyecatcher=eyecatcher)])
    tables, report = read_file(dump(tmp_path / "ps.dat", [good, bad, good]))
    assert report.quarantined[(115, 201)] == 1 and report.decoded[(115, 201)] == 2
    (q,) = report.quarantine
    assert q.offset == len(good) and q.length == len(bad) and q.raw == bad
    assert f"QIS1 instance 1 at record offset {28 + 16 + 52 + 104} has eyecatcher {eyecatcher!r}" in q.reason
    assert [r["QIS1PSNO"] for r in tables["QIS1"].to_pylist()] == [0, 0]  # nothing of the bad record
    assert not report.unexpected_id


def test_a_wrong_eyecatcher_wins_over_a_wrong_identifier(tmp_path):
    _, report = read_file(dump(tmp_path / "ps.dat", [record_115_201([qis1(1, 0xD90F, "XXXX")])]))
    assert report.quarantined[(115, 201)] == 1 and not report.unexpected_id


def test_an_instance_too_short_for_its_own_header_is_quarantined(tmp_path):
    rec = record_115_201([qis1(0)[:6]], instance_length=6)
    _, report = read_file(dump(tmp_path / "ps.dat", [rec]))
    (q,) = report.quarantine
    assert "6 bytes long, too short for its identifier, length and eyecatcher" in q.reason


def test_the_writer_builds_the_same_bytes_as_the_specification():
    """Our writer (used by the generator and the fuzz harness) agrees with the hand-built record."""
    lay = layout("QIS1")
    n = 3
    inst = encode(
        lay,
        {
            "QIS1PSNO": np.arange(n),
            "QIS1BPNO": np.arange(n) % 4,
            "QIS1TOPG": 1000 + np.arange(n),
            "QIS1UNPG": np.full(n, 400),
            "QIS1EXPN": np.full(n, 3),
            "QIS1EXPF": np.ones(n, bool),
        },
        n,
        version_length(lay, "9.3.3"),
    )
    hdr = RecordHeader(115, 201, "SYSA", "QM01", "933", 0, (STCK - TOD_1970) >> 12, 0, 900_000_000, 2, ifcid=201)
    (written,) = build_records([hdr], [{1: inst}])
    expected = record_115_201([qis1(i) for i in range(n)])
    # The writer puts QWHS last (as MQ does); compare the structures the triplets point at.
    w_off, w_len, w_cnt = struct.unpack_from(">IHH", written, 36)
    e_off, e_len, e_cnt = struct.unpack_from(">IHH", expected, 36)
    assert (w_len, w_cnt) == (e_len, e_cnt) == (104, n)
    assert written[w_off : w_off + n * 104] == expected[e_off : e_off + n * 104]


def test_inspect_shows_the_warning(tmp_path, capsys):
    path = dump(tmp_path / "ps.dat", [record_115_201([qis1(0, QIS1_D90F)]), record_115_201([qis1(1)])])
    assert cli_main(["inspect", path]) == 0
    out = capsys.readouterr().out
    assert "115/201          2       2       0       0       1" in out
    assert "QIS1 X'D90F' x1" in out


@pytest.mark.parametrize("name", ["TEST115", "TEST116", "TESTCHL"])
@pytest.mark.parametrize("framing", ["rdw", "bdw", "nordw"])
def test_every_real_dump_loads_with_nothing_quarantined(tmp_path, name, framing):
    data = sample(name).read_bytes()
    data = {"rdw": data, "bdw": to_bdw(data), "nordw": to_nordw(data)}[framing]
    path = tmp_path / f"{name}.{framing}"
    path.write_bytes(data)
    _, report = read_file(str(path))
    assert report.framing == framing
    assert not report.quarantine, report.quarantine[0]
    assert not report.unexpected_ids
    assert sum(report.read.values()) == sum(report.decoded.values()) + sum(report.skipped.values())
    assert sum(report.decoded.values()) > 0


@pytest.mark.spark
def test_the_load_path_audits_the_warning_and_quarantines_nothing(spark, tmp_path):
    """Through the Spark load (the data source and the load SQL): the real dumps and a page-set record
    with the old identifier land with no quarantine row, and the audit counts the warning."""
    from mqsmf.spark import load

    raw = "test_identification_raw"
    odd = dump(tmp_path / "ps.dat", [record_115_201([qis1(0, QIS1_D90F), qis1(1)]), record_115_201([qis1(2)])])
    files = [str(sample(n)) for n in ("TEST115", "TEST116", "TESTCHL")] + [odd]
    summary = load.load_files(spark, files, raw_schema=raw)
    assert summary.records_quarantined == 0
    assert spark.table(f"{raw}.smf_quarantine").count() == 0
    audit = {
        (r.source_file, r.smf_type, r.smf_subtype): (r.records_read, r.records_decoded, r.records_with_unexpected_id)
        for r in spark.table(f"{raw}.smf_load_audit").collect()
    }
    assert audit[(odd, 115, 201)] == (2, 2, 1)
    assert all(v[2] == 0 for k, v in audit.items() if k[0] != odd)
    for path in files[:3]:
        _, report = read_file(path)
        assert {(k[1], k[2]): v[1] for k, v in audit.items() if k[0] == path} == dict(report.decoded) | {
            k: 0 for k in report.skipped
        }
    ps = spark.sql(f"SELECT QIS1ID, QIS1PSNO FROM {raw}.qis1 ORDER BY QIS1PSNO").collect()
    assert [(r.QIS1ID, r.QIS1PSNO) for r in ps] == [(0xD90F, 0), (0xC927, 1), (0xC927, 2)]
