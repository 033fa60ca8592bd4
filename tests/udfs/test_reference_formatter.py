"""Cross-check with the widely used reference formatter (mq-smf-csv) on the real dumps, where that
tool is right (the shared testdata README lists its defects: swapped QQST persistent columns, QESD
buffer wait time cut to 32 bits, placeholders for absent fields; none of them touches what is
compared here).

It covers what the expected values do not: TEST116 has no expected file, and QMAC and WTID are in
no expected file. Every structure the formatter writes and we decode has the same number of rows,
and every row the same SMF date, time, system and queue manager."""

from __future__ import annotations

import csv
from datetime import datetime

import pytest

from mqsmf import read_file

from .smf_samples import SHARED, sample

REFERENCE = SHARED / "reference-formatter"
# mq-smf-csv prints strings through its own reduced EBCDIC table: other characters become '.'.
KEPT = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 $.<(+|&!*);-/,%_>?:#@'={}~[]")
CONNECTION_TYPES = {1: "CICS", 2: "TSO", 3: "IMS Ctl ", 4: "IMS MPP/BMP", 5: "Cmd Svr", 6: "CHIN", 7: "RRS", 8: "IGQ"}


def reference_rows(dump: str, structure: str) -> list[dict[str, str]]:
    path = REFERENCE / dump / f"SMF-{structure}.csv"
    with path.open(encoding="latin-1", newline="") as fh:
        rows = list(csv.reader(fh))
    header = [h for h in rows[0] if h]
    # Strings that look numeric are written ="..." so spreadsheets keep them text.
    return [{h: v.removeprefix("=").strip('"') for h, v in zip(header, r, strict=False)} for r in rows[1:]]


def as_reference_text(value: str | None) -> str:
    return "".join(c if c in KEPT else "." for c in (value or ""))


def same_text(ours: str | None, theirs: str) -> bool:
    theirs = theirs.rstrip(" ")
    if not ours:  # binary zeros: we give an empty string, the formatter dots
        return set(theirs) <= {"."}
    return as_reference_text(ours).rstrip(" ") == theirs


def ordered(table) -> list[dict]:
    rows = table.to_pylist()
    return sorted(rows, key=lambda r: (r["record_offset"], r["entry_index"]))


@pytest.mark.parametrize("dump", ["TEST115", "TEST116", "TESTCHL"])
def test_rows_and_record_context_agree_for_every_structure(dump):
    tables, report = read_file(str(sample(dump)))
    assert not report.quarantine
    compared = 0
    for path in sorted((REFERENCE / dump).glob("SMF-*.csv")):
        structure = path.stem.removeprefix("SMF-")
        if structure in ("WQ", "WTAS"):  # accounting blocks this project does not decode
            continue
        theirs, ours = reference_rows(dump, structure), ordered(tables[structure])
        assert len(ours) == len(theirs), structure
        for o, t in zip(ours, theirs, strict=True):
            local: datetime = o["smf_time_local"]
            assert local.strftime("%Y/%m/%d") == t["Date"], structure
            assert f"{local:%H:%M:%S},{local.microsecond // 10_000:02d}0000" == t["Time"], structure
            assert (o["system_id"], o["qmgr"], o["smf_rel"]) == (t["LPAR"], t["QMgr"], t["MQ_Version"]), structure
        compared += len(ours)
    assert compared > 0


@pytest.mark.parametrize("dump", ["TEST116", "TESTCHL"])
def test_task_accounting_qmac_agrees(dump):
    tables, _ = read_file(str(sample(dump)))
    pairs = list(zip(ordered(tables["QMAC"]), reference_rows(dump, "QMAC"), strict=True))
    sizes = [("A", "0to99"), ("B", "100to999"), ("C", "1000to9999"), ("D", "10000")]
    for o, t in pairs:
        assert o["QMACCPUT"] == int(t["CPU_Time(S)"]) * 1_000_000 + int(t["CPU_Time(US)"])
        for letter, bucket in sizes:
            assert o[f"QMACPUT{letter}"] == int(t[f"Puts_Len_{bucket}"])
            assert o[f"QMACGET{letter}"] == int(t[f"Gets_Len_{bucket}"])
    assert any(o["QMACCPUT"] for o, _ in pairs)  # not only zeros compared


@pytest.mark.parametrize("dump", ["TEST116", "TESTCHL"])
def test_thread_identification_wtid_agrees(dump):
    tables, _ = read_file(str(sample(dump)))
    hexes = {"NID": "WTIDNID", "Correl(HEX)": "WTIDCORI", "UOW_ID": "WTIDUOWI", "Accounting_Token": "WTIDACCT"}
    hexes["Context_Token"] = "WTIDCTXT"
    texts = {"Connection_Name": "WTIDCCN", "Operator_ID": "WTIDOPID", "Channel_Name": "WTIDCHL"}
    texts |= {"Channel_Connection_Name": "WTIDCHLC", "MVS_UserId": "WTIDTRAN"}
    pairs = list(zip(ordered(tables["WTID"]), reference_rows(dump, "WTID"), strict=True))
    for o, t in pairs:
        assert CONNECTION_TYPES[o["WTIDATYP"]] == t["Appl_Type"]
        for column, field in hexes.items():
            assert o[field] == t[column], (column, o[field], t[column])
        for column, field in texts.items():
            assert same_text(o[field], t[column]), (column, o[field], t[column])
    assert {o["WTIDCCN"] for o, _ in pairs} - {""}  # names were compared, not only blanks
