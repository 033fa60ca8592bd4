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
from mqsmf.layouts import layout

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
        theirs, ours = reference_rows(dump, structure), ordered(tables["WQST" if structure == "WQ" else structure])
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


# ----------------------------------------------------------------------------------------------
# Class 3 accounting (116/1): WTAS task and WQ queue blocks, every column the formatter writes.
# ----------------------------------------------------------------------------------------------
CF_TYPE_WORDS = ["Lock", "Unlock", "WrLCCtl", "SigXCF", "SigCF", "Read", "Write", "StartMon", "StopMon", "ReadList"]
CF_TYPE_WORDS += ["New", "Move", "MoveEntry", "Delete"]
CF_ELEMENT = {("CFCount", False): "CFCOUNT", ("CFSync", False): "CFSYNCN", ("CFSync", True): "CFSYNCET"}
CF_ELEMENT |= {("CFAsync", False): "CFASYNCN", ("CFAsync", True): "CFASYNCET"}
WTAS_COLUMNS = {
    "Record_Version": "WTASVER",
    "Block_Count": "WTASWQCT",
    "Longest_Latch": "WTASLOWN",
    "Start_Time": "WTASSTRT",
    "Max_Latch_Wait_ID": "WTASMLWN",
    "WTAS_Interval_Start": "WTASINTS",
    "WTAS_Interval_End": "WTASINTE",
    "Get_Pages_Old": "WTASGPO",
    "Get_Pages_New": "WTASGPN",
    "BufferPool_Latch_Wait": "WTASPBHW",
    "Held_BufferPool_Latch_ET": "WTASPBTT",
    "MQCTL_CPU": "WTASCTSR",
    "Max_Latch_Wait_Time": "WTASMLW",
}
for column, code in {
    "Other_MQI": "OT", "Commit": "CM", "Backout": "BA", "Topic": "TP", "Subscribe": "SU", "SubReq": "SQ",
    "MQCTL": "CT", "MQSTAT": "ST", "Prepare": "PR",
}.items():  # fmt: skip
    WTAS_COLUMNS |= {
        f"{column}_ET": f"WTAS{code}ET",
        f"{column}_CT": f"WTAS{code}CT",
        f"{column}_Count": f"WTAS{code}N",
    }
WTAS_COLUMNS |= {
    "Subscribe_Selector_Count": "WTASSUSC", "Subscribe_Max_Select_Len": "WTASSUSL",
    "Journal_Write_ET": "WTASJWET", "Journal_Write_Count": "WTASJWN", "Journal_Write_Bytes": "WTASJWB",
    "Journal_Forced_Write_ET": "WTASJCET", "Journal_Forced_Write_Count": "WTASJCN",
    "Task_Suspend_Count": "WTASSUSN", "Task_Suspend_Time": "WTASSUSE",
    "Pageset0_Log_ET": "WTASPSE0", "Pageset0_Log_Count": "WTASPSN0",
    "DB2_Elapse_Thread": "WTASDBET", "DB2_Elapse_Server": "WTASDBES", "DB2_Max_Elapse_Thread": "WTASDBMT",
    "DB2_Max_Elapse_Server": "WTASDBMS", "DB2_Request_Count": "WTASDBCT",
    "DB2_Bytes_Written": "WTASDBPT", "DB2_Bytes_Read": "WTASDBGT",
    "CF_STE_Call_Count": "WTASCSEC", "CF_STM_Call_Count": "WTASCMEC", "CF_STE_Redrive_Count": "WTASRSEC",
    "CF_STM_Redrive_Count": "WTASRMEC", "CF_STE_Elapsed": "WTASSSTC", "CF_STM_Elapsed": "WTASMSTC",
    "SMDS_Write_Bytes": "WTASSMWB", "SMDS_Read_Bytes": "WTASSMRB", "SMDS_Write_Pages": "WTASSMWP",
    "SMDS_Read_Pages": "WTASSMRP", "SMDS_Saved_Reads": "WTASSMRS", "SMDS_IO_Wait_Time": "WTASSMWT",
}  # fmt: skip
WQ_COLUMNS = {
    "Correlation": "CORREL", "Open_Name": "OBJNAME", "Base_Name": "BASENAME", "Open": "OPENTIME",
    "Close": "CLOSTIME", "Get_Browse_Any_Count": "GETBRWA", "Get_Browse_Specific_Count": "GETBRWS",
    "Get_Dest_Any_Count": "GETA", "Get_Dest_Specific_Count": "GETS", "Get_Invalid": "GETERR",
    "Get_Pages_Skipped_Count": "GETEPAGE", "Get_Messages_Skipped_Count": "GETSMSG",
    "Get_Messages_Expired_Count": "GETEXMSG", "Put_IGQ_Count": "PUTIGQ", "Put1_IGQ_Count": "PUT1IGQ",
    "Pageset_ID": "NPS", "CF_Structure": "CFSTRUCNAME", "BufferPool_ID": "NBUFFPOOL",
    "Total_Bytes_Put": "PUTBYTES", "Total_Bytes_Get": "GETBYTES", "Total_Valid_Puts": "VALIDPUT",
    "Total_Valid_Gets": "VALIDGET", "Generated_Msgs": "NGEN", "Get_Max_Msg_Size": "GETMAXMS",
    "Get_Min_Msg_Size": "GETMINMS", "Put_Max_Msg_Size": "PUTMAXMS", "Put_Min_Msg_Size": "PUTMINMS",
    "Max_Time_On_Queue": "MAXLATNT", "Min_Time_On_Queue": "MINLATNT", "Total_Time_On_Queue": "TOTLATNT",
    "Use_Count": "USE_COUNT", "Total_Use": "TOTAL_USE", "Get_Persistent_Count": "GETPMSG",
    "Put_Persistent_Count": "PUTPMSG", "Put1_Persistent_Count": "PUT1PMSG", "Max_Depth": "MAXQDPTH",
    "Get_Valid": "GETDVAL", "Put_Waiting_Getter_Count": "PUTPWG", "Put1_Waiting_Getter_Count": "PUT1PWG",
    "Put_Shared_Queue": "PUTDSQ", "Select_Count": "SELCOUNT", "Select_Max_Length": "SELMAXLN",
    "CallBack_ET": "CBET", "CallBack_CT": "CBCT", "CallBack_Count": "CBN",
    "Open_Suspend_Time": "OPENSUET", "Open_Suspend_Count": "OPENSUN", "Close_Suspend_Time": "CLOSESUET",
    "Close_Suspend_Count": "CLOSESUN", "Open_NoCF": "OPENCF0", "Close_NoCF": "CLOSECF0",
    "Published_Count": "PUBLISHEDN", "TopicOnSRB_Open": "TOPICOPENSRB", "TopicOnSRB_Put": "TOPICPUTSRB",
    "TopicOnSRB_Put1": "TOPICPUT1SRB", "TopicOnSRB_Close": "TOPICCLOSESRB", "Put_Delay_Count": "PUTDDLY",
    "Streamed_Msgs": "STREAMEDN", "Set_UNF_Log_ET": "SETJWET", "Set_UNF_Log_Count": "SETJWN",
    "Set_LogForce_ET": "SETJCET", "Set_LogForce_Count": "SETJCN",
}  # fmt: skip
for verb, code in {"Open": "OPEN", "Close": "CLOSE", "Get": "GET", "Put": "PUT", "Put1": "PUT1"}.items():
    WQ_COLUMNS |= {f"{verb}_ET": f"{code}ET", f"{verb}_CT": f"{code}CT", f"{verb}_Count": f"{code}N"}
for verb, code in {"Get": "GET", "Put": "PUT", "Put1": "PUT1"}.items():
    WQ_COLUMNS |= {f"{verb}_Log_UNF_ET": f"{code}JWET", f"{verb}_Log_UNF_Count": f"{code}JWN"}
    WQ_COLUMNS |= {f"{verb}_LogForce_ET": f"{code}JCET", f"{verb}_LogForce_Count": f"{code}JCN"}
    WQ_COLUMNS |= {f"{verb}_Suspend_ET": f"{code}SUSET", f"{verb}_Suspend_Count": f"{code}SUSN"}
WQ_COLUMNS |= {"Get_Pageset_ET": "GETPSET", "Get_Pageset_Count": "GETPSN"}
WQ_COLUMNS |= {f"{v}_Pageset_Access_ET": f"{c}PSET" for v, c in (("Put", "PUT"), ("Put1", "PUT1"))}
WQ_COLUMNS |= {f"{v}_Pageset_Access_Count": f"{c}PSN" for v, c in (("Put", "PUT"), ("Put1", "PUT1"))}
WQ_COLUMNS |= {"Inq_ET": "INQET", "Inq_CT": "INQCT", "Inq_Count": "INQN"}
WQ_COLUMNS |= {"Set_ET": "SETET", "Set_CT": "SETCT", "Set_Count": "SETN"}
# Enumerations the formatter prints as words (those in the samples: MQQT_LOCAL, MQQT_ALIAS, MQIT_NONE,
# MQIT_CORREL_ID, MQQSGD_Q_MGR).
WQ_WORDS = {
    "Queue": ("QTYPE", {1: "Local", 3: "Alias"}),
    "Index": ("INDXTYPE", {0: "None", 2: "CorrelId"}),
    "Scope": ("QSGDISP", {0: "QMgr"}),
}
WQ_VERBS = {"Open": 0, "Close": 1, "Get": 2, "Put": 3, "Put1": 4}
NO_MESSAGE = 0x0FFFFFFF  # GETMINMS / PUTMINMS when no message was got / put: the formatter prints -1
COMMON = ("Date", "Time", "LPAR", "QMgr", "QSG", "MQ_Version")


def _reference_value(row: dict[str, str], base: str, kind: str):
    """A formatter cell as our typed value: durations (S + US columns) in microseconds, times as
    (date, time) text, everything else as printed."""
    if kind in ("tod_duration", "tod_high"):
        seconds, micros = row[f"{base}(S)"].strip(), row[f"{base}(US)"].strip()
        return None if seconds == "-1" else int(seconds) * 1_000_000 + int(micros)
    if kind == "stck":
        return row[f"{base} (DATE)"], row[f"{base} (TIME)"]
    return row[base]


def _same(ours, theirs, kind: str) -> bool:
    if kind == "stck":
        if ours is None:
            return theirs == ("", "")
        return (f"{ours:%Y/%m/%d}", f"{ours:%H:%M:%S},{ours.microsecond:06d}") == theirs
    if kind in ("char",):
        return same_text(ours, theirs)
    if kind == "hex":
        return ours == theirs
    if kind in ("tod_duration", "tod_high"):
        return ours == theirs
    if ours is None:  # absent from this block version: the formatter prints -1
        return theirs.strip() == "-1"
    return int(ours) == int(theirs)


def _base(column: str) -> str:
    for suffix in ("(S)", "(US)", " (DATE)", " (TIME)"):
        column = column.removesuffix(suffix)
    return column


def _cf_field(column: str, array_of) -> str | None:
    """'CFSync {Cmit_Lock_ET}' -> 'COMMITCF[0].CFSYNCET' (WTAS); 'CFCount {Put_Read}' ->
    'MQCFREQ[3][5].CFCOUNT' (WQ). ``array_of`` names the array of the column's verb."""
    if not column.startswith("CF") or " {" not in column:
        return None
    word, inner = column.split(" {")
    verb, kind, *elapsed = inner.rstrip("}").split("_")
    return f"{array_of(verb)}[{CF_TYPE_WORDS.index(kind)}].{CF_ELEMENT[(word, elapsed == ['ET'])]}"


def _compare_every_column(dump: str, structure: str, formatter_name: str, mapped) -> int:
    """Compare every cell the formatter wrote for a structure with our row: ``mapped(ours, theirs,
    column)`` gives (equal, shown) or None for a column it does not know (a test failure)."""
    tables, report = read_file(str(sample(dump)))
    assert not report.quarantine
    theirs_rows = reference_rows(dump, formatter_name)
    ours_rows = ordered(tables[structure])
    assert len(ours_rows) == len(theirs_rows) > 0
    columns = list(dict.fromkeys(_base(c) for c in theirs_rows[0] if c not in COMMON))
    cells = 0
    for o, t in zip(ours_rows, theirs_rows, strict=True):
        for column in columns:
            check = mapped(o, t, column)
            assert check is not None, f"{formatter_name} column {column!r} is not compared"
            equal, shown = check
            assert equal, (formatter_name, o["record_offset"], column, shown)
            cells += 1
    return cells


def _field_check(lay, name: str, o: dict, t: dict, column: str):
    f = lay.field(name)
    if f.kind == "tod_high":  # theirs: the plain TOD rule (value >> 12); ours: the high word (value >> 44)
        theirs = _reference_value(t, column, "tod_duration")
        return o[f.column] == theirs >> 32, (o[f.column], theirs)
    theirs = _reference_value(t, column, f.kind)
    return _same(o[f.column], theirs, f.kind), (o[f.column], theirs)


@pytest.mark.parametrize("dump", ["TEST116", "TESTCHL"])
def test_task_accounting_wtas_agrees_in_every_column(dump):
    lay = layout("WTAS")
    latch_arrays = {"Latch_Wait_Time{": "WTASLWET", "Latch_Wait_Count {": "WTASLWN", "Longest_Latch{": "WTASLMAX"}

    def mapped(o, t, column):
        if column == "Correl":  # the 16-byte task correlator: WTASSTRT (compared as Start_Time) + two words
            return t[column][16:] == o["WTASMTHR"] + o["WTASWTAS"], (t[column], o["WTASMTHR"], o["WTASWTAS"])
        for prefix, array in latch_arrays.items():
            if column.startswith(prefix):
                return _field_check(lay, f"{array}[{int(column[len(prefix) :].rstrip('}'))}]", o, t, column)
        name = WTAS_COLUMNS.get(column) or _cf_field(column, {"Cmit": "COMMITCF", "Prep": "PREPCF"}.get)
        return None if name is None else _field_check(lay, name, o, t, column)

    cells = _compare_every_column(dump, "WTAS", "WTAS", mapped)
    assert cells == 296 * {"TEST116": 1, "TESTCHL": 200}[dump]  # every column of every block


@pytest.mark.parametrize("dump", ["TEST116", "TESTCHL"])
def test_queue_accounting_wq_agrees_in_every_column(dump):
    lay = layout("WQST")

    def mapped(o, t, column):
        if column in WQ_WORDS:
            name, words = WQ_WORDS[column]
            return words[o[name]] == t[column], (o[name], t[column])
        name = WQ_COLUMNS.get(column) or _cf_field(column, lambda verb: f"MQCFREQ[{WQ_VERBS[verb]}]")
        if name in ("GETMINMS", "PUTMINMS") and o[name] == NO_MESSAGE:
            return t[column] == "-1", (o[name], t[column])
        return None if name is None else _field_check(lay, name, o, t, column)

    cells = _compare_every_column(dump, "WQST", "WQ", mapped)
    assert cells > 0
    tables, _ = read_file(str(sample(dump)))
    # The WQ blocks belong to their task: CORREL equals the task correlator of the record's WTAS.
    tasks = {r["record_offset"]: r for r in tables["WTAS"].to_pylist()}
    for q in tables["WQST"].to_pylist():
        task = tasks[q["record_offset"]]
        assert q["CORREL"][16:] == task["WTASMTHR"] + task["WTASWTAS"]
        assert task["WTASWQCT"] == sum(
            1 for r in tables["WQST"].to_pylist() if r["record_offset"] == q["record_offset"]
        )
