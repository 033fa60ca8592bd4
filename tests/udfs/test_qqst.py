"""QQST (115/216) has no public sample: hand-built entries of every generation prove that fields
beyond QQSTLL are NULL and that the flag bits come from the big-endian flag word."""

from __future__ import annotations

import numpy as np
import pytest

from mqsmf import read_file
from mqsmf.codecs import days_to_packed_date, str_to_ebcdic, unix_us_to_stck
from mqsmf.layouts import header_layout, layout

GENERATIONS = {84: "9.3.0", 120: "9.3.1", 552: "9.3.3", 672: "9.4.3"}
DISP, PART, UNCM = 0x80000000, 0x40000000, 0x20000000


def _struct(lay, values: dict) -> np.ndarray:
    rec = np.zeros(1, dtype=lay.numpy_dtype())
    for name, v in values.items():
        f = lay.field(name)
        rec[f.column] = str_to_ebcdic([v], f.length)[0] if f.kind == "char" else v
    return rec


def qqst_entry(ll: int, name: str, flags: int) -> bytes:
    lay = layout("QQST")
    values = {
        "QQSTID": 0xD80F,
        "QQSTLL": ll,
        "QQSTEYEC": "QQST",
        "QQSTQNAM": name,
        "QQSTFLAG": flags,
        "QQSTPSID": 3,
        "QQSTBPID": 1,
        "QQSTQSGN": "",
        "QQSTCFST": "",
        "QQSTDPTH": 7,
    }
    # Every later field gets a distinctive non-zero value, so "absent" cannot hide behind a zero.
    for i, f in enumerate(lay.data_fields):
        if f.offset >= 84 and f.kind in ("int", "u64"):
            values[f.name] = 1000 + i
        elif f.kind == "stck":
            values[f.name] = int(unix_us_to_stck([1_700_000_000_000_000 + i])[0])
    return _struct(lay, values).tobytes()[:ll]


def record_216(entries: list[bytes], rel: str = "933", durn: int = 1_800_000_000) -> bytes:
    smf = header_layout("SMFHDR")
    qwhs = header_layout("QWHS")
    entry_len = len(entries[0])
    data_off = 28 + 2 * 8
    body_off = data_off + qwhs.size
    total = body_off + entry_len * len(entries)
    now_us = 1_700_000_000_000_000
    hdr = _struct(
        smf,
        {
            "SM11xFLG": 0x5E,
            "SM11xRTY": 115,
            "SM11xTME": 360000,
            "SM11xDTE": int(days_to_packed_date([19675])[0]).to_bytes(4, "big"),
            "SM11xSID": "SYSA",
            "SM11xSSI": "QM01",
            "SM11xSTF": 216,
            "SM11xREL": rel,
        },
    ).tobytes()
    rdw = total.to_bytes(2, "big") + b"\0\0"
    triplets = (
        data_off.to_bytes(4, "big")
        + qwhs.size.to_bytes(2, "big")
        + (1).to_bytes(2, "big")
        + body_off.to_bytes(4, "big")
        + entry_len.to_bytes(2, "big")
        + len(entries).to_bytes(2, "big")
    )
    qw = _struct(
        qwhs,
        {
            "QWHSLEN": 52,
            "QWHSTYP": 1,
            "QWHSRMID": 26,
            "QWHSNSDA": 2,
            "QWHSSSID": "QM01",
            "QWHSSTCK": int(unix_us_to_stck([now_us])[0]),
            "QWHSTIME": int(unix_us_to_stck([now_us - 1_800_000_000])[0]),
            "QWHSDURN": durn,
        },
    ).tobytes()
    return rdw + hdr[4:] + triplets + qw + b"".join(entries)


@pytest.fixture
def decoded(tmp_path):
    def run(ll: int, flags: list[int]):
        path = tmp_path / f"qqst{ll}.dat"
        path.write_bytes(record_216([qqst_entry(ll, f"APP.Q{i}", fl) for i, fl in enumerate(flags)]))
        tables, report = read_file(str(path))
        assert not report.quarantine, report.quarantine
        return tables["QQST"].to_pylist()

    return run


@pytest.mark.parametrize("ll", sorted(GENERATIONS))
def test_fields_beyond_the_entry_length_are_null(decoded, ll):
    (row,) = decoded(ll, [0])
    lay = layout("QQST")
    assert row["structure_length"] == ll
    for f in lay.data_fields:
        if f.end <= ll:
            assert row[f.column] is not None, f"{f.name} is inside a {ll}-byte entry"
        else:
            assert row[f.column] is None, f"{f.name} is beyond a {ll}-byte entry and must be NULL"
    assert row["QQSTQNAM"] == "APP.Q0"
    assert row["QQSTDPTH"] == 7


@pytest.mark.parametrize("ll", sorted(GENERATIONS))
def test_flag_bits_come_from_the_big_endian_word(decoded, ll):
    rows = decoded(ll, [DISP, PART, UNCM, DISP | PART, 0])
    got = [(r["QQSTDISP"], r["QQSTPART"], r["QQSTUNCM"]) for r in rows]
    uncm = (lambda v: v) if ll >= 120 else (lambda v: None)  # QQSTUNCM exists from 9.3.1 (QQSTLL 120)
    assert got == [
        (True, False, uncm(False)),
        (False, True, uncm(False)),
        (False, False, uncm(True)),
        (True, True, uncm(False)),
        (False, False, uncm(False)),
    ]


def test_a_little_endian_reading_would_differ(decoded):
    """Guard against a decoder that reads the flag word in host order: X'80000000' is QQSTDISP."""
    (row,) = decoded(552, [0x00000080])
    assert (row["QQSTDISP"], row["QQSTPART"], row["QQSTUNCM"]) == (False, False, False)
    assert row["QQSTFLAG"] == 0x80


def test_u64_counters_keep_values_above_2_to_the_63(tmp_path):
    entry = bytearray(qqst_entry(552, "BIG.Q", 0))
    f = layout("QQST").field("QQSTPUTS")
    entry[f.offset : f.end] = (2**64 - 5).to_bytes(8, "big")
    path = tmp_path / "big.dat"
    path.write_bytes(record_216([bytes(entry)]))
    tables, _ = read_file(str(path))
    assert int(tables["QQST"].column("QQSTPUTS")[0].as_py()) == 2**64 - 5


@pytest.mark.parametrize(
    ("durn", "end_minutes"), [(1_800_000_000, 30), (86_400_000_000, 1440), (86_400_000_001, None), (2**62 + 1, None)]
)
def test_an_interval_longer_than_a_day_has_no_end(tmp_path, durn, end_minutes):
    """STATIME is at most 1440 minutes: a longer QWHSDURN (damage) keeps its length but gets no end,
    where it would otherwise be a timestamp no datetime can hold."""
    path = tmp_path / "durn.dat"
    path.write_bytes(record_216([qqst_entry(552, "APP.Q", 0)], durn=durn))
    tables, report = read_file(str(path))
    (row,) = tables["QQST"].to_pylist()
    assert not report.quarantine and row["interval_seconds"] == durn / 1e6
    if end_minutes is None:
        assert row["interval_end"] is None
    else:
        assert (row["interval_end"] - row["interval_start"]).total_seconds() == end_minutes * 60
