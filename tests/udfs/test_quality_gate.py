"""The data-quality gate on tables built here: the real samples' structures (QPST, QJST, QMST,
QEST, ... of TESTCHL.dat, decoded by mqsmf) plus QQST and QIS1 rows written from the layouts.

One clean warehouse schema must pass every check. A second schema holds the same data with one
planted violation per check, each on its own row; the gate must fail and list exactly the planted
rows under exactly the planted check (no more, no fewer, nothing under other checks), and GX must
count the same violations as the SQL that lists them.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from mqsmf import arrow_schema, read_file
from mqsmf.quality import cli
from mqsmf.quality.checks import ERROR, RAW, UNLOADED_COLUMNS, WARN, catalogue
from mqsmf.quality.expectations import AtMost, SumOf, When

from .gate_equivalence import verdicts_of_both_ways
from .smf_samples import sample

START = datetime(2025, 6, 2, tzinfo=UTC)
INTERVAL = timedelta(minutes=30)
QMGRS = ("QM01", "QM02")
QUEUES = ("APP.SHARED.1", "APP.SHARED.2", "APP.PRIVATE.1", "APP.PRIVATE.2", "SYSTEM.OLD.930")


# ----------------------------------------------------------------------------------------------
# Catalogue (no Spark)
# ----------------------------------------------------------------------------------------------


def test_every_check_names_columns_its_raw_frame_has():
    cat = catalogue().for_stage(RAW)
    frame_columns = {
        name: set(arrow_schema(name.upper()).names)
        for name in ("qqst", "qpst", "qest", "qjst", "qmst", "qis1", "qctdns")
    }
    frame_columns["records"] = {
        "structure", "smf_type", "smf_subtype", "qmgr", "interval_start", "object_key",
        "identifier", "identifier_expected", "eyecatcher", "eyecatcher_expected", "load_key",
    }  # fmt: skip
    frame_columns["intervals"] = {
        "structure", "qmgr", "interval_seconds", "dq_gap_seconds", "previous_interval_end", "dq_after_restart",
    }  # fmt: skip
    frame_columns["quarantine"] = {"source_file", "offset", "length", "smf_type", "smf_subtype", "reason"}
    frame_columns["unloaded_records"] = {c.split()[0] for c in UNLOADED_COLUMNS.split(", ")}
    frame_columns["qqst_shared"] = frame_columns["qqst"] | {"dq_cf_structures", "dq_usual_cf_structure"}
    frame_columns["event_groups"] = {"dq_messages", "dq_answering_qmgrs", "dq_queues", "dq_events"}
    for c in cat.checks:
        frame = cat.frames[c.frame]
        available = frame_columns[c.frame] | {n for n, _ in frame.derived} | set(c.rule.derived)
        missing = {*c.rule.columns, *(w.column for w in c.when)} - available
        assert not missing, f"{c.name} uses columns its frame lacks: {missing}"
        assert c.source, f"{c.name} has no source"
        assert c.description, f"{c.name} has no description"


def test_conditions_and_rules_render_once_for_both_gx_and_sql():
    c = catalogue().check("qqst_partial_shared_age_zero")
    assert (
        c.violation_sql()
        == "`QQSTDISP` = true AND `QQSTPART` = true AND (`QQSTMAGE` IS NOT NULL AND `QQSTMAGE` NOT IN (0))"
    )
    e = _expectation(c)
    assert e.column == "QQSTMAGE" and e.value_set == [0]
    assert repr(e.row_condition) == "(QQSTDISP == True AND QQSTPART == True)"
    assert e.severity.value == "critical" and e.meta["check"] == c.name

    split = catalogue().check("qqst_puts_split")
    assert isinstance(split.rule, SumOf)
    assert split.rule.derived == {"dq_QQSTPUTS_minus_parts": "`QQSTPUTS` - (`QQSTNPPT` + `QQSTPPT`)"}
    e = _expectation(split)
    assert (e.column, e.min_value, e.max_value) == ("dq_QQSTPUTS_minus_parts", 0, 0)
    warn = catalogue().check("qmst_counters_not_negative")
    assert warn.severity == WARN and _expectation(warn).severity.value == "warning"


def _expectation(check):
    from mqsmf.quality.gate import expectation_for

    return expectation_for(check)


def test_gx_pair_expectation_orientation_matches_the_sql():
    rule = AtMost("QQSTNMAG", "QQSTFLGT")
    e = rule.expectation()
    # GX: column_A >= column_B; ours: low <= high.
    assert (e.column_A, e.column_B, e.or_equal) == ("QQSTFLGT", "QQSTNMAG", True)
    assert "NOT (`QQSTNMAG` <= `QQSTFLGT`)" in rule.violation_sql()


def test_the_data_pitfalls_seed_and_the_gate_name_each_other():
    """Every pitfall_<id> check is about a row of seeds/data_pitfalls.csv, and every row whose detection
    is the gate names a check that exists: the catalogue and the gate cannot drift apart."""
    import csv

    from mqsmf.quality.checks import PITFALLS_SEED

    rows = list(csv.DictReader((Path(__file__).resolve().parents[2] / PITFALLS_SEED).open()))
    ids = {r["pitfall_id"] for r in rows}
    assert len(ids) == len(rows) >= 7
    assert all(r["ibm_reference"] and r["symptom"] and r["treatment"] for r in rows)
    checks = {c.name for c in catalogue().checks}
    pitfall_checks = {c for c in checks if c.startswith("pitfall_")}
    assert pitfall_checks == {f"pitfall_{i}" for i in ids} & checks
    for r in rows:
        named = re.findall(r"\bpitfall_[a-z0-9_]+", r["detection"])
        assert named == ([f"pitfall_{r['pitfall_id']}"] if r["detection"].startswith("gate:") else []), r["pitfall_id"]
        assert set(named) <= checks, r["pitfall_id"]
    for c in catalogue().checks:
        if c.name in pitfall_checks:
            assert c.severity == WARN and c.name.removeprefix("pitfall_") in c.source


def test_when_rejects_unknown_operators():
    with pytest.raises(ValueError):
        When("QQSTDISP", "=~", True)


def test_cli_lists_the_catalogue_without_spark(capsys):
    from mqsmf.cli import main

    assert main(["check", "--list"]) == 0
    out = capsys.readouterr().out
    assert "qqst_nmag_within_flgt" in out and "Queue data records" in out and "stage marts" in out
    assert "see it fail: mqsmf generate --violate nmag_gt_flgt" in out


def test_cli_rejects_a_bad_severity_override(capsys):
    from mqsmf.cli import main

    assert main(["check", "--severity", "qqst_puts_split=fatal"]) == 2
    assert "NAME=error or NAME=warn" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# Building the tables
# ----------------------------------------------------------------------------------------------


def _table(structure: str, rows: list[dict]) -> pa.Table:
    schema = arrow_schema(structure)
    return pa.Table.from_pylist([{n: r.get(n) for n in schema.names} for r in rows], schema=schema)


def _context(qmgr: str, k: int, offset: int, subtype: int, version: str = "9.4.3") -> dict:
    start = START + k * INTERVAL
    return {
        "source_file": "generated-by-test.dat",
        "record_offset": offset,
        "smf_type": 115,
        "smf_subtype": subtype,
        "system_id": "SYS1",
        "qmgr": qmgr,
        "qsg": "QSGA" if version.startswith("10") else None,
        "smf_rel": "943",
        "mq_version": version,
        "smf_time": start + INTERVAL,
        "utc_offset_minutes": 0,
        "record_stck": start + INTERVAL,
        "interval_start_local": start.replace(tzinfo=None),
        "interval_start": start,
        "interval_end": start + INTERVAL,
        "interval_seconds": INTERVAL.total_seconds(),
        "entry_index": 0,
    }


def qqst_rows() -> list[dict]:
    """Clean QQST rows: 2 queue managers x 2 intervals x 5 queues (2 shared, 2 private, 1 at 9.3.0
    level whose 9.3.1+ fields are absent), plus one partial shared and one partial private record."""
    rows = []
    for qi, qmgr in enumerate(QMGRS):
        for k in range(2):
            for i, name in enumerate(QUEUES):
                shared = "SHARED" in name
                old = name.endswith("930")
                row = _context(qmgr, k, 1000 * k + 10 * i, 216, "10.0.0" if qi else "9.4.3")
                row.update(
                    QQSTID=0xD80F, QQSTLL=84 if old else 672, QQSTEYEC="QQST", QQSTQNAM=name,
                    QQSTFLAG=0x80000000 if shared else 0, QQSTDISP=shared, QQSTPART=False,
                    QQSTUNCM=None if old else False,
                    QQSTPSID=-1 if shared else 1, QQSTBPID=-1 if shared else 1,
                    QQSTQSGN="QSGA" if shared else "", QQSTCFST="APPL1" if shared else "", QQSTDPTH=5,
                )  # fmt: skip
                structure_length = row["QQSTLL"]
                row["structure_length"] = structure_length
                if not old:
                    row.update(
                        QQSTOPCT=1, QQSTIPCT=1, QQSTMAGE=3, QQSTDPHI=10, QQSTDPLO=2,
                        QQSTPUTS=10, QQSTNPPT=4, QQSTPPT=6, QQSTPUT1=2, QQSTNPP1=1, QQSTPP1=1,
                        QQSTPUTB=1000, QQSTNPPB=400, QQSTPPB=600, QQSTPT1B=200, QQSTNP1B=100, QQSTP1B=100,
                        QQSTGETS=8, QQSTNPDG=3, QQSTPDG=5, QQSTGETB=800, QQSTNPDB=300, QQSTPDB=500,
                        QQSTBRWS=2, QQSTNPBR=1, QQSTPBR=1, QQSTBRWB=200, QQSTNPBB=100, QQSTPBB=100,
                        QQSTFLGT=5, QQSTNMAG=2, QQSTTMFG=1, QQSTMSMI=50, QQSTMSAV=100, QQSTMSMA=200,
                        QQSTIPHI=3, QQSTIPLO=1, QQSTOPHI=3, QQSTOPLO=1,
                    )  # fmt: skip
                rows.append(row)
    # A CF access problem: QM02's view of a shared queue and of a private queue, both partial.
    for k in range(2):
        for name, shared in (("APP.SHARED.PARTIAL", True), ("APP.PRIVATE.PARTIAL", False)):
            row = dict(next(r for r in rows if r["qmgr"] == "QM02" and r["QQSTDISP"] == shared and r["QQSTLL"] == 672))
            row.update(_context("QM02", k, 900 + 1000 * k + shared, 216, "10.0.0"))
            row.update(QQSTQNAM=name, QQSTPART=True, QQSTMAGE=0, structure_length=672)
            if shared:
                row.update(QQSTDPTH=0)
            rows.append(row)
    return rows


def qis1_rows() -> list[dict]:
    rows = []
    for qmgr in QMGRS:
        for k in range(2):
            for ps in range(3):
                row = _context(qmgr, k, 5000 + 100 * k + ps, 201)
                row.update(
                    structure_length=104, QIS1ID=0xC927, QIS1LL=104, QIS1EYEC="QIS1", QIS1PSNO=ps, QIS1BPNO=ps,
                    QIS1TOPG=1000, QIS1UNPG=400, QIS1PPG=300, QIS1NPPG=300,
                )  # fmt: skip
                rows.append(row)
    return rows


def qctdns_rows() -> list[dict]:
    """The channel initiator's DNS task, whose longest request of each interval falls inside it."""
    rows = []
    for qmgr in QMGRS:
        for k in range(2):
            row = _context(qmgr, k, 7000 + 100 * k, 231)
            row.update(QCTTSKN=0x008F3000, QCTREQN=5, QCTLGTM=START + k * INTERVAL + timedelta(minutes=5),
                       QCTLGDU=20_000)  # fmt: skip
            rows.append(row)
    return rows


def quarantine_table(rows: int) -> pa.Table:
    from mqsmf.reader import QUARANTINE_SCHEMA

    reason = "QQST instance 0 at record offset 60 has identifier X'0000' eyecatcher '....' (expected X'D80F' 'QQST')"
    return pa.Table.from_pylist(
        [
            {"source_file": "damaged.dat", "offset": 100 + i, "length": 64, "smf_type": 115, "smf_subtype": 216,
             "reason": reason, "raw_bytes": b"\0" * 64}
            for i in range(rows)
        ],
        schema=QUARANTINE_SCHEMA,
    )  # fmt: skip


# Structures of the sample the checks look at (more tables only make the test slower).
SAMPLE_STRUCTURES = ("QPST", "QJST", "QMST", "QEST", "QSST", "QTST", "QLST", "QMAC")


def _with_load_columns(table: pa.Table) -> pa.Table:
    """The loader's columns: load id, load time and the digest of the row's file."""
    files = table["source_file"].to_pylist()
    table = table.append_column("load_id", pa.array(["test-load"] * len(files)))
    table = table.append_column("loaded_at", pa.array([START] * len(files), pa.timestamp("us", tz="UTC")))
    return table.append_column("source_sha256", pa.array([_sha(f) for f in files]))


def _sha(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()


def audit_table(tables: dict[str, pa.Table], extra: dict | None = None) -> pa.Table:
    """smf_load_audit as the loader writes it: records decoded per file, SMF type and subtype
    (here: the records that have rows, plus ``extra`` records per (file, subtype))."""
    from mqsmf.warehouse import raw_tables

    records: dict[tuple, set] = {}
    for name, t in tables.items():
        if name.startswith("smf_") or "smf_type" not in t.column_names:  # not an SMF structure's table
            continue
        columns = (t[c].to_pylist() for c in ("source_file", "smf_type", "smf_subtype", "record_offset"))
        for f, typ, sub, off in zip(*columns, strict=True):
            records.setdefault((f, typ, sub), set()).add(off)
    rows = []
    for (f, typ, sub), offsets in sorted(records.items()):
        decoded = len(offsets) + (extra or {}).get((f, sub), 0)
        rows.append(
            {"load_id": "test-load", "loaded_at": START, "source_file": f, "file_size": 1, "source_sha256": _sha(f),
             "framing": "rdw", "smf_type": typ, "smf_subtype": sub, "records_read": decoded,
             "records_decoded": decoded, "records_quarantined": 0, "records_skipped": 0}
        )  # fmt: skip
    return pa.Table.from_pylist(rows, schema=raw_tables()["smf_load_audit"])


def clean_tables() -> dict[str, pa.Table]:
    tables, _ = read_file(str(sample("TESTCHL")), structures=list(SAMPLE_STRUCTURES))
    out = {name.lower(): t for name, t in tables.items()}
    # The V8 sample has no QMSTSPP..QMSTNBP (9.0.3) and no QEST entry without IXLLSTM calls: give a
    # few rows consistent values so that the checks on them have something to pass.
    qmst = out["qmst"]
    for i in range(4):
        qmst = _set(qmst, i, QMSTSPP=0, QMSTPBP=0, QMSTSNP=0, QMSTNBP=0)
    out["qmst"] = qmst
    out["qest"] = _set(out["qest"], 3, QESTCMEC=0, QESTMSTC=0)
    out["qqst"] = _table("QQST", qqst_rows())
    out["qis1"] = _table("QIS1", qis1_rows())
    out["qctdns"] = _table("QCTDNS", qctdns_rows())
    out["smf_quarantine"] = quarantine_table(0)
    out = {name: t if name.startswith("smf_") else _with_load_columns(t) for name, t in out.items()}
    out["smf_load_audit"] = audit_table(out)
    out["perfm_event"] = _with_load_columns(event_messages())
    return out


def event_messages() -> pa.Table:
    """The queue depth event messages of a small generated QSG day (the generator's dmpmqmsg dumps,
    read back by mqsmf): several shared-queue groups, each with one message per answering member."""
    import tempfile

    from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario
    from mqsmf.generate.events import write_events
    from mqsmf.pcf import read_dump

    with tempfile.TemporaryDirectory() as folder:
        day = f"{folder}/events_day.dat"
        scenario = plan_scenario(ScenarioConfig(seed=11, qmgrs=3, queues=12, intervals=12))
        write_scenario(scenario, day)
        manifest = write_events(scenario, day)
        tables = [read_dump(path, path.removeprefix(folder + "/"))[0] for path in manifest["files"].values()]
    return pa.concat_tables(tables)


def _event_group_key(events: pa.Table, correl_id: str) -> tuple:
    """(first writer, queue and CorrelId, first put time) of one event group: how the gate names it."""
    rows = sorted((r for r in events.to_pylist() if r["correl_id"] == correl_id), key=lambda r: r["put_at"])
    return (rows[0]["event_qmgr_name"], f"{rows[0]['queue_name']} CorrelId {correl_id}", rows[0]["put_at"])


def _set(table: pa.Table, row: int, **values) -> pa.Table:
    """A copy of ``table`` with some columns of one row changed."""
    for column, value in values.items():
        i = table.schema.get_field_index(column)
        data = table.column(i).to_pylist()
        data[row] = value
        table = table.set_column(i, table.schema.field(i), pa.array(data, table.schema.field(i).type))
    return table


def _row(table: pa.Table, **match) -> int:
    hits = _rows_of(table, **match)
    assert hits, f"no row with {match}"
    return hits[0]


def _key(table: pa.Table, i: int, object_column: str | None) -> tuple:
    r = table.slice(i, 1).to_pylist()[0]
    return (r["qmgr"], None if object_column is None else str(r[object_column]), r["interval_start"])


def planted(tables: dict[str, pa.Table]) -> tuple[dict[str, pa.Table], dict[str, set]]:
    """The clean tables with one violation per check; {check: keys (qmgr, object, interval start)}
    of the rows the gate must list."""
    t = dict(tables)
    want: dict[str, set] = {}
    q = t["qqst"]

    def qqst(check, qmgr, queue, k, **values):
        nonlocal q
        i = _row(q, qmgr=qmgr, QQSTQNAM=queue, interval_start=START + k * INTERVAL)
        q = _set(q, i, **values)
        want.setdefault(check, set()).add(_key(q, i, "QQSTQNAM"))

    qqst("qqst_nmag_within_flgt", "QM01", "APP.SHARED.1", 0, QQSTNMAG=6)
    qqst("qqst_tmfg_within_flgt", "QM01", "APP.SHARED.2", 0, QQSTTMFG=9)
    qqst("qqst_partial_shared_depth_zero", "QM02", "APP.SHARED.PARTIAL", 0, QQSTDPTH=7)
    qqst("qqst_partial_shared_age_zero", "QM02", "APP.SHARED.PARTIAL", 1, QQSTMAGE=30)
    qqst("qqst_partial_private_age_zero", "QM02", "APP.PRIVATE.PARTIAL", 0, QQSTMAGE=12)
    qqst("qqst_partial_shared_uncommitted_off", "QM02", "APP.SHARED.PARTIAL", 1, QQSTUNCM=True)
    qqst("qqst_shared_no_pageset", "QM01", "APP.SHARED.1", 1, QQSTPSID=3)
    qqst("qqst_shared_no_bufferpool", "QM01", "APP.SHARED.2", 1, QQSTBPID=2)
    qqst("qqst_shared_qsg_named", "QM01", "APP.SHARED.1", 1, QQSTQSGN="")
    qqst("qqst_shared_cf_structure_named", "QM02", "APP.SHARED.1", 0, QQSTCFST="")
    qqst("qqst_private_qsg_blank", "QM01", "APP.PRIVATE.1", 0, QQSTQSGN="QSGA")
    qqst("qqst_private_cf_structure_blank", "QM01", "APP.PRIVATE.2", 0, QQSTCFST="APPL1")
    qqst("qqst_shared_qsg_matches_header", "QM02", "APP.SHARED.2", 0, QQSTQSGN="QSGB")
    qqst("qqst_puts_split", "QM01", "APP.PRIVATE.1", 1, QQSTPUTS=11)
    qqst("qqst_put1_split", "QM01", "APP.PRIVATE.2", 1, QQSTNPP1=0)
    qqst("qqst_put_bytes_split", "QM02", "APP.PRIVATE.1", 0, QQSTPPB=601)
    qqst("qqst_put1_bytes_split", "QM02", "APP.PRIVATE.2", 0, QQSTPT1B=0)
    qqst("qqst_gets_split", "QM02", "APP.PRIVATE.1", 1, QQSTPDG=4)
    qqst("qqst_get_bytes_split", "QM02", "APP.PRIVATE.2", 1, QQSTGETB=801)
    qqst("qqst_browses_split", "QM02", "APP.SHARED.1", 1, QQSTBRWS=3)
    qqst("qqst_browse_bytes_split", "QM02", "APP.SHARED.2", 1, QQSTNPBB=99)
    # (On a shared queue's partial record, whose zeroed depth is exempt: elsewhere the current depth
    # would also be outside the watermarks.)
    qqst("qqst_depth_watermarks", "QM02", "APP.SHARED.PARTIAL", 1, QQSTDPLO=20, QQSTDPHI=10)
    # A private queue's partial record has only its age zeroed: its depth is checked.
    qqst("qqst_depth_below_high_watermark", "QM02", "APP.PRIVATE.PARTIAL", 0, QQSTDPTH=50)
    qqst("qqst_depth_above_low_watermark", "QM01", "APP.PRIVATE.2", 1, QQSTDPTH=1)
    qqst("qqst_depth_below_high_watermark", "QM02", "APP.PRIVATE.1", 1, QQSTDPTH=11)
    qqst("qqst_input_handle_watermarks", "QM01", "APP.SHARED.2", 1, QQSTIPLO=4)
    qqst("qqst_output_handle_watermarks", "QM02", "APP.SHARED.1", 1, QQSTOPHI=0)
    qqst("qqst_message_size_min_avg", "QM01", "APP.SHARED.1", 0, QQSTMSMI=150)
    qqst("qqst_message_size_avg_max", "QM02", "APP.PRIVATE.2", 1, QQSTMSAV=250)
    # Sizes out of order on a queue where nothing was put are not a violation; bytes put are.
    qqst(
        "qqst_put_bytes_need_puts", "QM02", "APP.SHARED.2", 1,
        QQSTPUTS=0, QQSTNPPT=0, QQSTPPT=0, QQSTPUT1=0, QQSTNPP1=0, QQSTPP1=0, QQSTMSMI=300,
    )  # fmt: skip
    qqst("qqst_get_bytes_need_gets", "QM01", "APP.PRIVATE.1", 0, QQSTGETS=0, QQSTNPDG=0, QQSTPDG=0)
    qqst("qqst_browse_bytes_need_browses", "QM02", "APP.PRIVATE.1", 0, QQSTBRWS=0, QQSTNPBR=0, QQSTPBR=0)
    # 12 messages of 50 to 200 bytes are at most 2,400 bytes (the MQPUT1 bytes alone are 2,000 here).
    qqst("qqst_put_bytes_within_message_sizes", "QM01", "APP.PRIVATE.2", 0, QQSTPT1B=2000, QQSTNP1B=1000, QQSTP1B=1000)
    # Each subset within QQSTFLGT (5), together above it.
    qqst("qqst_get_failures_within_flgt", "QM02", "APP.SHARED.1", 1, QQSTNMAG=3, QQSTTMFG=3)
    qqst("qqst_browse_failures_within_flbr", "QM01", "APP.SHARED.1", 1, QQSTFLBR=1, QQSTNMAB=1, QQSTTMFB=1)
    qqst("qqst_last_put_get_not_after_record", "QM02", "APP.PRIVATE.2", 0, QQSTLGET=START + 2 * INTERVAL)
    # On a 9.3.0 record (no watermarks), a negative depth breaks nothing else.
    qqst("qqst_depth_not_negative", "QM02", "SYSTEM.OLD.930", 0, QQSTDPTH=-1)
    # Three rows of APP.SHARED.2 name APPL1, one names APPL2: that one is listed.
    qqst("qqst_shared_queue_one_cf_structure", "QM01", "APP.SHARED.2", 0, QQSTCFST="APPL2")
    # The NMAG and TMFG rows above also put the two subsets together above QQSTFLGT.
    want["qqst_get_failures_within_flgt"] |= want["qqst_nmag_within_flgt"] | want["qqst_tmfg_within_flgt"]
    # A minimum size of 150 makes 12 messages at least 1,800 bytes, more than the 1,200 put.
    want["qqst_put_bytes_within_message_sizes"] |= want["qqst_message_size_min_avg"]
    t["qqst"] = q
    qqst("qqst_queue_named", "QM01", "SYSTEM.OLD.930", 1, QQSTQNAM="")
    t["qqst"] = q

    p = t["qpst"]
    i = 3
    p = _set(p, i, QPSTCBSL=p["QPSTCBS"][i].as_py() + 1)
    want["qpst_lowest_stealable_within_current"] = {_key(p, i, "QPSTPOOL")}
    i = 40
    p = _set(p, i, QPSTCBS=p["QPSTNBUF"][i].as_py() + 1, QPSTCBSL=0)
    want["qpst_stealable_within_buffers"] = {_key(p, i, "QPSTPOOL")}
    i = 77
    p = _set(p, i, QPSTGETP=-2)
    want["qpst_counters_not_negative"] = {_key(p, i, "QPSTPOOL")}
    i = 100
    p = _set(p, i, QPSTPOOL=100)
    want["qpst_pool_number"] = {_key(p, i, "QPSTPOOL")}
    # One pool reported twice for the same interval: both rows are listed.
    dup = p.slice(5, 1)
    p = pa.concat_tables([p, _set(dup, 0, record_offset=999_999)])
    want["duplicate_record"] = {_key(p, 5, "QPSTPOOL")}
    # Not violations (real MQ 10 data): X'7FFFFFFF' in QPSTCBSL means "never set in the interval"
    # (with QPSTCBS 0); and two rows of one pool without an interval start (a short QWHS) from two
    # records are two rows, as the loader keys them by the record's STCK time.
    p = _set(p, 10, QPSTCBSL=0x7FFFFFFF, QPSTCBS=0)
    want["pitfall_qpst_lowest_stealable_never_set"] = {_key(p, 10, "QPSTPOOL")}
    same_pool = _rows_of(p, qmgr=p["qmgr"][20].as_py(), QPSTPOOL=p["QPSTPOOL"][20].as_py())
    later = next(i for i in same_pool if p["interval_start"][i].as_py() > p["interval_start"][20].as_py())
    assert p["record_stck"][20] != p["record_stck"][later]
    for i in (20, later):
        p = _set(p, i, interval_start=None, interval_end=None, interval_seconds=None)
    t["qpst"] = p

    # APAR PH69352: an interval without DNS requests still shows the longest request of the one before.
    d = t["qctdns"]
    i = _row(d, qmgr="QM02", interval_start=START + INTERVAL)
    d = _set(d, i, QCTREQN=0, QCTLGTM=START + timedelta(minutes=5))
    want["pitfall_qct_dns_longest_request_carried_over"] = {("QM02", "DNS task", START + INTERVAL)}
    t["qctdns"] = d

    s = t["qis1"]
    i = _row(s, qmgr="QM02", QIS1PSNO=1, interval_start=START)
    s = _set(s, i, QIS1UNPG=1001)
    want["qis1_unused_within_total"] = {_key(s, i, "QIS1PSNO")}
    i = _row(s, qmgr="QM01", QIS1PSNO=2, interval_start=START + INTERVAL)
    s = _set(s, i, QIS1PSNO=100)
    want["qis1_page_set_number"] = {_key(s, i, "QIS1PSNO")}
    t["qis1"] = s

    e = t["qest"]
    i = 0
    e = _set(e, i, QESTSSTC=25)
    want["qest_ixllste_time_needs_calls"] = {_key(e, i, "QESTSTR")}
    i = 1
    e = _set(e, i, QESTCMEC=0, QESTMSTC=7)
    want["qest_ixllstm_time_needs_calls"] = {_key(e, i, "QESTSTR")}
    i = 2
    e = _set(e, i, QESTSTRN=64)
    want["qest_structure_number"] = {_key(e, i, "QESTSTR")}
    t["qest"] = e

    j = t["qjst"]
    j = _set(j, 1, QJSTCMPREQ=1, QJSTCMPFAIL=2)
    j = _set(j, 2, QJSTDECREQ=0, QJSTDECFAIL=1)
    j = _set(j, 3, QJSTIO_1_0_QJSTIOMAXIO=500, QJSTIO_1_0_QJSTIOTOTIO=400)
    j = _set(j, 4, QJSTIO_0_1_QJSTIOMAXSUS=9, QJSTIO_0_1_QJSTIOTOTSUS=8)
    j = _set(j, 5, QJSTWRW=-1)
    for check, i in (
        ("qjst_compression_failures_within_requests", 1),
        ("qjst_decompression_failures_within_requests", 2),
        ("qjst_longest_io_within_total", 3),
        ("qjst_longest_suspend_within_total", 4),
        ("qjst_counters_not_negative", 5),
    ):
        want[check] = {(j["qmgr"][i].as_py(), "log", j["interval_start"][i].as_py())}
    t["qjst"] = j

    m = t["qmst"]
    m = _set(m, 1, QMSTSPP=0, QMSTPBP=4096)
    m = _set(m, 2, QMSTSNP=0, QMSTNBP=100)
    m = _set(m, 3, QMSTGET=-7)
    for check, i in (
        ("qmst_persistent_bytes_need_messages", 1),
        ("qmst_nonpersistent_bytes_need_messages", 2),
        ("qmst_counters_not_negative", 3),
    ):
        want[check] = {(m["qmgr"][i].as_py(), "message manager", m["interval_start"][i].as_py())}
    m = _set(m, 4, QMSTID=0xD40E)
    want["structure_identifier"] = {(m["qmgr"][4].as_py(), "QMST", m["interval_start"][4].as_py())}
    t["qmst"] = m

    qs = t["qsst"]
    qs = _set(qs, 6, QSSTEYEC="QSSX")
    want["structure_eyecatcher"] = {(qs["qmgr"][6].as_py(), "QSST", qs["interval_start"][6].as_py())}
    t["qsst"] = qs

    # 115/1 (QSST and QJST): a later interval starts 30 s before the one before it ended.
    j = t["qjst"]
    starts = sorted(set(j["interval_start"].to_pylist()))
    overlap = starts[10]
    shifted = overlap - timedelta(seconds=30)
    for name in ("qjst", "qsst"):
        table = t[name]
        i = _row(table, interval_start=overlap)
        assert i not in (1, 2, 3, 4, 5, 6)  # rows with other planted violations keep their start
        t[name] = _set(table, i, interval_start=shifted)
    want["interval_overlap"] = {(j["qmgr"][0].as_py(), "115/1", shifted)}

    # 115/215 (QPST): every pool's row of one interval is missing, so the next one starts a whole
    # interval after the previous one ended.
    p = t["qpst"]
    starts = sorted(set(p["interval_start"].to_pylist()) - {None})
    planted_pool_rows = {p["interval_start"][i].as_py() for i in (3, 5, 40, 77, 100)}
    k = next(k for k in range(8, len(starts) - 1) if starts[k] not in planted_pool_rows)
    start_type = p.schema.field("interval_start").type
    p = p.filter(pc.not_equal(p["interval_start"], pa.scalar(starts[k], start_type)))
    want["interval_gap"] = {(p["qmgr"][0].as_py(), "115/215", starts[k + 1])}
    # A restart is no gap: the queue manager stops a third into an interval (the statistics of that
    # short interval are written) and its next interval starts when it is back.
    r = next(r for r in range(k + 3, len(starts) - 1) if not {starts[r], starts[r + 1]} & planted_pool_rows)
    rows = pc.indices_nonzero(pc.equal(p["interval_start"], pa.scalar(starts[r], start_type))).to_pylist()
    third = (starts[r + 1] - starts[r]) / 3
    for i in rows:
        p = _set(p, i, interval_end=starts[r] + third, interval_seconds=third.total_seconds())
    t["qpst"] = p

    # 115/2: QLST says its 4th interval lasted 0 seconds and its 6th a day and a second (which the
    # decoder gives no end).
    ql = t["qlst"]
    i, j = (pc.sort_indices(ql, [("interval_start", "ascending")]).to_pylist()[k] for k in (3, 5))
    t["qlst"] = _set(_set(ql, i, interval_seconds=0.0), j, interval_seconds=86_401.0, interval_end=None)
    want["interval_length_plausible"] = {
        (ql["qmgr"][k].as_py(), "115/2", ql["interval_start"][k].as_py()) for k in (i, j)
    }

    # The audit says one more 115/216 record was decoded than has rows: a record the loader dropped
    # (its file is not there to read again, so it is reported by its counts).
    t["smf_load_audit"] = audit_table(t, extra={("generated-by-test.dat", 216): 1})
    want["duplicate_record_in_input"] = {(None, None, None)}

    t["smf_quarantine"] = quarantine_table(2)
    want["quarantined_span"] = {(None, quarantine_table(1)["reason"][0].as_py(), None)}

    # Event groups (shared-queue CorrelIds with two or more answers): the first gets a second copy of
    # one member's message (new MsgId), the second a message naming another queue, the third one
    # reporting another event. The planted message is never the group's first one.
    ev = t["perfm_event"]
    correl = [c for c in ev["correl_id"].to_pylist() if c and c != "0" * 48]
    groups = [c for c in dict.fromkeys(correl) if correl.count(c) > 1][:3]
    assert len(groups) == 3, "the generated day should have three shared-queue event groups"
    last = [max(_rows_of(ev, correl_id=c), key=lambda i: ev["put_at"][i].as_py()) for c in groups]
    copy = _set(ev.slice(last[0], 1), 0, msg_id="AB" * 24)
    other_event = next(r for r in set(ev["reason"].to_pylist()) if r != ev["reason"][last[2]].as_py())
    ev = _set(_set(ev, last[1], queue_name="ZZZ.ANOTHER.QUEUE"), last[2], reason=other_event)
    t["perfm_event"] = pa.concat_tables([ev, copy])
    for check, correl_id in zip(
        ("event_group_one_message_per_member", "event_group_one_queue", "event_group_one_event"), groups, strict=True
    ):
        want[check] = {_event_group_key(t["perfm_event"], correl_id)}
    return t, want


def _rows_of(table: pa.Table, **match) -> list[int]:
    mask = None
    for column, value in match.items():
        m = pc.equal(table[column], pa.scalar(value, table.schema.field(column).type))
        mask = m if mask is None else pc.and_(mask, m)
    return pc.indices_nonzero(mask).to_pylist()


def _write_schema(spark, schema: str, tables: dict[str, pa.Table], folder) -> None:
    """Parquet files written by Arrow, registered as external tables (no Spark write job)."""
    import pyarrow.parquet as pq

    spark.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
    spark.sql(f"CREATE DATABASE {schema}")
    for name, table in tables.items():
        path = folder / schema / name
        path.mkdir(parents=True)
        pq.write_table(table, path / "part-0.parquet")
        spark.sql(f"CREATE TABLE {schema}.{name} USING parquet LOCATION '{path}'")


# ----------------------------------------------------------------------------------------------
# The gate on Spark
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory):
    tables = clean_tables()
    bad, want = planted(tables)
    files = tmp_path_factory.mktemp("dq_tables")
    _write_schema(spark, "dq_test_clean", tables, files)
    _write_schema(spark, "dq_test_bad", bad, files)
    return tmp_path_factory.mktemp("dq_docs"), want


@pytest.fixture(scope="module")
def bad_run(spark, warehouse):
    from mqsmf.quality.gate import run_gate

    docs, _ = warehouse
    return run_gate(spark, RAW, schemas={RAW: "dq_test_bad"}, quality_schema="dq_test_quality", docs_dir=docs)


@pytest.mark.spark
def test_every_check_runs_on_rows(bad_run):
    # The planted data exercises every check (a check that saw no row would prove nothing); that no
    # check lists a row besides the planted ones (next test) shows the rest of the data is clean.
    assert not bad_run.skipped_frames
    for o in bad_run.outcomes:
        if o.check.name not in ("quarantined_span", "duplicate_record_in_input"):  # table-level expectations
            assert o.evaluated_rows, f"{o.check.name} evaluated no rows"


@pytest.mark.spark
def test_each_planted_violation_fails_exactly_its_check_on_exactly_its_rows(spark, bad_run, warehouse):
    _, want = warehouse
    assert not bad_run.passed and bad_run.exit_code == 1
    assert set(want) == {c.name for c in catalogue().for_stage(RAW).checks}, "every raw check has a planted violation"
    failed = {o.check.name: o for o in bad_run.failed()}
    assert set(failed) == set(want)
    rows = spark.sql(
        "SELECT check_name, qmgr_name, object_name, unix_micros(interval_start_at) AS start_us FROM "
        f"dq_test_quality.dq_violations WHERE stage = 'raw' AND run_id = '{bad_run.run_id}'"
    ).collect()
    listed: dict[str, set] = {}
    for r in rows:
        listed.setdefault(r.check_name, set()).add((r.qmgr_name, r.object_name, _utc(r.start_us)))
    for check, keys in want.items():
        assert listed.get(check) == keys, check
        o = failed[check]
        assert o.gx_unexpected == o.violations, f"{check}: GX counted {o.gx_unexpected}, SQL listed {o.violations}"
    dup = failed["duplicate_record"]
    assert dup.violations == 2  # both copies of the duplicated pool row
    assert failed["quarantined_span"].violations == 2


@pytest.mark.spark
@pytest.mark.parametrize("schema", ["dq_test_bad", "dq_test_clean"])
def test_the_one_pass_hides_no_violation_from_the_expectations(spark, warehouse, schema):
    """On a day where every raw check is violated and on a clean one (gate_equivalence)."""
    _, whole, frame_rows = verdicts_of_both_ways(spark, RAW, schemas={RAW: schema})
    assert sum(frame_rows.values()) > 100
    assert any(status == "failed" for status, _, _ in whole.values()) == (schema == "dq_test_bad")


def _utc(micros: int | None) -> datetime | None:
    return None if micros is None else datetime.fromtimestamp(0, UTC) + timedelta(microseconds=micros)


@pytest.mark.spark
def test_violation_rows_carry_the_values_involved(spark, bad_run):
    row = spark.sql(
        "SELECT * FROM dq_test_quality.dq_violations WHERE check_name = 'qqst_nmag_within_flgt' "
        f"AND run_id = '{bad_run.run_id}'"
    ).collect()[0]
    assert json.loads(row["values"]) == {"QQSTNMAG": 6, "QQSTFLGT": 5}
    assert (row.severity, row.stage, row.table_name, row.rule) == (ERROR, RAW, "qqst", "QQSTNMAG <= QQSTFLGT")
    assert row.source_file == "generated-by-test.dat" and row.record_offset is not None
    split = spark.sql(
        "SELECT `values` FROM dq_test_quality.dq_violations WHERE check_name = 'qqst_puts_split' "
        f"AND run_id = '{bad_run.run_id}'"
    ).collect()[0]
    assert json.loads(split["values"]) == {
        "QQSTPUTS": 11, "QQSTNPPT": 4, "QQSTPPT": 6, "dq_QQSTPUTS_minus_parts": 1,
    }  # fmt: skip


@pytest.mark.spark
def test_runs_replace_their_own_stage_only(spark, bad_run):
    runs = spark.sql("SELECT DISTINCT stage, run_id FROM dq_test_quality.dq_check_results").collect()
    assert {(r.stage, r.run_id) for r in runs} == {(RAW, bad_run.run_id)}
    spark.sql(
        "INSERT INTO dq_test_quality.dq_violations PARTITION (stage = 'marts') SELECT 'm', current_timestamp(), "
        "'x', 'error', 't', 'r', NULL, NULL, NULL, NULL, NULL, '{}', NULL, NULL"
    )
    from mqsmf.quality.gate import run_gate

    again = run_gate(
        spark, RAW, schemas={RAW: "dq_test_clean"}, quality_schema="dq_test_quality", docs_dir=None,
        checks=["qqst_nmag_within_flgt"],
    )  # fmt: skip
    counts = {
        (r.stage, r.run_id): r.n
        for r in spark.sql(
            "SELECT stage, run_id, count(*) AS n FROM dq_test_quality.dq_violations GROUP BY 1, 2"
        ).collect()
    }
    assert counts == {("marts", "m"): 1}  # raw replaced by the clean run (no violations), marts kept
    assert again.passed


@pytest.mark.spark
def test_warnings_pass_the_gate_unless_strict(spark, warehouse):
    from mqsmf.quality.gate import run_gate

    only = ["qmst_counters_not_negative", "qqst_nmag_within_flgt"]
    kw = dict(schemas={RAW: "dq_test_bad"}, docs_dir=None, write=False, checks=only)
    lenient = run_gate(spark, RAW, severities={"qqst_nmag_within_flgt": WARN}, **kw)
    assert {o.check.name for o in lenient.failed(WARN)} == set(only)
    assert lenient.passed and lenient.exit_code == 0
    strict = run_gate(spark, RAW, strict=True, **kw)
    assert not strict.passed and strict.exit_code == 1
    assert {o.check.name for o in strict.failed(ERROR)} == {"qqst_nmag_within_flgt"}


@pytest.mark.spark
def test_report_names_the_offending_rows(bad_run):
    text = cli.format_result(bad_run)
    assert text.startswith("mqsmf check --stage raw: FAILED")
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("error") and "qqst_nmag_within_flgt" in ln)
    assert "QQSTNMAG <= QQSTFLGT" in line and line.split()[3] == "1"
    sample = next(ln for ln in text.splitlines() if '"QQSTNMAG":6' in ln)
    assert "QM01" in sample and "APP.SHARED.1" in sample and "2025-06-02 00:00:00" in sample


@pytest.mark.spark
def test_data_docs_show_each_suite_with_its_notes(bad_run):
    index = bad_run.docs_index
    assert index is not None and index.is_file()
    suite = (index.parent / "expectations" / "raw" / "qqst.html").read_text()
    assert "qqst_nmag_within_flgt" in suite and "Queue data records" in suite and "QQSTNMAG" in suite
    validations = [p for p in index.parent.rglob("validations/raw/qqst/**/*.html")]
    assert len(validations) == 1
    page = validations[0].read_text()
    assert "[error] qqst_nmag_within_flgt: QQSTNMAG &lt;= QQSTFLGT" in page or "QQSTNMAG <= QQSTFLGT" in page
    assert "raw.intervals" in (index.parent / "index.html").read_text()


# ----------------------------------------------------------------------------------------------
# The CLI (the marts stage is tested on dbt-built marts in test_quality_marts.py)
# ----------------------------------------------------------------------------------------------


@pytest.mark.spark
def test_mqsmf_check_exit_status_report_and_json(spark, warehouse, tmp_path, capsys):
    from mqsmf.cli import main

    only = ["--check", "qqst_nmag_within_flgt", "--check", "qmst_counters_not_negative"]
    common = ["check", "--stage", "raw", "--raw-schema", "dq_test_bad", "--quality-schema", "dq_test_cli"]
    out_json = tmp_path / "gate.json"
    rc = main([*common, *only, "--docs", str(tmp_path / "docs"), "--json", str(out_json)])
    text = capsys.readouterr().out
    assert rc == 1
    assert "FAILED: 1 error and 1 warning checks failed of 2 run" in text
    assert "qqst_nmag_within_flgt: 1 violating rows" in text and '{"QQSTNMAG":6,"QQSTFLGT":5}' in text
    assert (tmp_path / "docs" / "raw" / "index.html").is_file()
    report = json.loads(out_json.read_text())
    assert report["passed"] is False and report["exit_code"] == 1 and report["fail_on"] == "error"
    (stage,) = report["stages"]
    assert {c["check"]: c["violations"] for c in stage["checks"]} == {
        "qqst_nmag_within_flgt": 1,
        "qmst_counters_not_negative": 1,
    }
    assert {c["check"]: c["verdict"] for c in stage["checks"]} == {
        "qqst_nmag_within_flgt": "failed",
        "qmst_counters_not_negative": "warned",
    }
    # Made a warning, the same violation no longer fails the gate; --fail-on warn (--strict) fails on warnings.
    assert main([*common, *only, "--no-docs", "--severity", "qqst_nmag_within_flgt=warn"]) == 0
    assert main([*common, "--check", "qmst_counters_not_negative", "--no-docs", "--fail-on", "warn"]) == 1
    assert main([*common, "--check", "qmst_counters_not_negative", "--no-docs", "--strict"]) == 1
    assert main([*common, "--check", "no_such_check"]) == 2


@pytest.mark.spark
def test_a_baseline_accepts_known_violations_and_fails_on_new_ones(spark, warehouse, tmp_path, capsys):
    from mqsmf.cli import main

    common = ["check", "--stage", "raw", "--raw-schema", "dq_test_bad", "--no-docs", "--no-write"]
    nmag, tmfg = ["--check", "qqst_nmag_within_flgt"], ["--check", "qqst_tmfg_within_flgt"]
    baseline = tmp_path / "sub" / "baseline.json"
    # Writing the baseline accepts what is there (exit 0 although an error check fails).
    assert main([*common, *nmag, "--write-baseline", str(baseline)]) == 0
    (entry,) = json.loads(baseline.read_text())["violations"]
    assert entry["check"] == "qqst_nmag_within_flgt" and entry["qmgr"] == "QM01" and entry["object"] == "APP.SHARED.1"
    assert entry["interval_start"] == "2025-06-02T00:00:00.000000Z" and entry["record"] is None
    capsys.readouterr()
    out_json = tmp_path / "verdict.json"
    # The old violation is accepted: exit 0, reported as accepted.
    assert main([*common, *nmag, "--baseline", str(baseline), "--json", str(out_json)]) == 0
    assert "1 violations accepted by the baseline" in capsys.readouterr().out
    (check,) = json.loads(out_json.read_text())["stages"][0]["checks"]
    assert (check["verdict"], check["violations"], check["new_violations"], check["accepted_violations"]) == (
        "accepted", 1, 0, 1,
    )  # fmt: skip
    # A violation of another check is new: exit 1, and only it fails.
    junit = tmp_path / "junit.xml"
    assert main([*common, *nmag, *tmfg, "--baseline", str(baseline), "--junit", str(junit)]) == 1
    failures = {c.get("name"): c.find("failure") for c in _parse_junit(junit.read_text()).iter("testcase")}
    assert failures["qqst_nmag_within_flgt"] is None and failures["qqst_tmfg_within_flgt"] is not None
    # Identity is the row's key, not its position: the same check on another row is new.
    doc = json.loads(baseline.read_text())
    doc["violations"][0]["interval_start"] = "2025-06-02T02:00:00.000000Z"
    baseline.write_text(json.dumps(doc))
    assert main([*common, *nmag, "--baseline", str(baseline)]) == 1
    # A baseline that is not one is a usage error.
    baseline.write_text("{}")
    assert main([*common, *nmag, "--baseline", str(baseline)]) == 2
    assert "not an mqsmf gate baseline" in capsys.readouterr().err


def _parse_junit(text: str):
    from .junit_schema import validate_junit

    return validate_junit(text)


@pytest.mark.spark
def test_a_run_checks_the_dates_loaded_since_the_last_run_and_keeps_history(spark, warehouse, tmp_path):
    """Default scope: the interval dates of the loads since the stage's last gate run
    (smf_load_dates); every run's outcome per check stays in dq_check_history, so the run where a
    check started failing can be found. The planted NMAG row is the only row of 2025-06-03."""
    import pyarrow.parquet as pq

    from mqsmf.quality.gate import HISTORY_TABLE, changed_scope, run_gate
    from mqsmf.warehouse import LOAD_DATES_TABLE, raw_tables

    _, want = warehouse
    ((qmgr, queue, start),) = want["qqst_nmag_within_flgt"]
    raw, quality, check = "dq_scope_raw", "dq_scope_quality", "qqst_nmag_within_flgt"
    spark.sql(f"DROP DATABASE IF EXISTS {quality} CASCADE")

    def load_dates(load_id: str, loaded_at: datetime, day: str) -> pa.Table:
        row = {"load_id": load_id, "loaded_at": loaded_at, "table_name": "qqst", "rows_added": 1,
               "interval_date": datetime.fromisoformat(day).date(), "load_date": loaded_at.date()}  # fmt: skip
        return pa.Table.from_pylist([row], schema=raw_tables()[LOAD_DATES_TABLE])

    _write_schema(spark, raw, {LOAD_DATES_TABLE: load_dates("A", datetime.now(UTC) - timedelta(hours=2), "2025-06-02")},
                  tmp_path)  # fmt: skip
    spark.sql(
        f"CREATE TABLE {raw}.qqst USING parquet AS SELECT *, CASE WHEN qmgr = '{qmgr}' AND QQSTQNAM = '{queue}' "
        f"AND interval_start = timestamp_micros({int(start.timestamp() * 1e6)}) THEN DATE '2025-06-03' "
        "ELSE DATE '2025-06-02' END AS interval_date FROM dq_test_bad.qqst"
    )
    total = spark.table(f"{raw}.qqst").count()

    def gate(scope):
        return run_gate(spark, RAW, schemas={RAW: raw}, quality_schema=quality, docs_dir=None, checks=[check],
                        scope=scope)  # fmt: skip

    # Never run: every load's dates. The planted row is on a date no load named yet.
    first = gate(changed_scope(spark, RAW, raw, quality))
    assert first.scope == "dates 2025-06-02" and first.passed
    assert first.frame_rows == {"raw.qqst": total - 1}
    # Nothing loaded since: nothing to check.
    assert changed_scope(spark, RAW, raw, quality).text == "dates (none)"
    # A load of 2025-06-03 after that run: only its date is checked, and the planted row fails.
    pq.write_table(load_dates("B", datetime.now(UTC) + timedelta(seconds=1), "2025-06-03"),
                   tmp_path / raw / LOAD_DATES_TABLE / "part-1.parquet")  # fmt: skip
    spark.sql(f"REFRESH TABLE {raw}.{LOAD_DATES_TABLE}")
    scope = changed_scope(spark, RAW, raw, quality)
    assert (scope.dates, scope.load_ids) == (("2025-06-03",), ("B",))
    second = gate(scope)
    assert second.scope == "dates 2025-06-03" and not second.passed
    assert second.frame_rows == {"raw.qqst": 1}
    (outcome,) = second.failed()
    assert (outcome.check.name, outcome.violations) == (check, 1)
    # A load recovered after that run keeps its earlier loaded_at, but it is a load the gate never
    # checked: the default scope is by load id, so it is in the next run's scope.
    pq.write_table(load_dates("C", datetime.now(UTC) - timedelta(days=1), "2025-06-02"),
                   tmp_path / raw / LOAD_DATES_TABLE / "part-2.parquet")  # fmt: skip
    spark.sql(f"REFRESH TABLE {raw}.{LOAD_DATES_TABLE}")
    scope = changed_scope(spark, RAW, raw, quality)
    assert (scope.dates, scope.load_ids) == (("2025-06-02",), ("C",))
    history = spark.sql(
        f"SELECT run_id, scope, passed, violations FROM {quality}.{HISTORY_TABLE} WHERE check_name = '{check}' "
        "ORDER BY checked_at"
    ).collect()
    assert [tuple(r) for r in history] == [
        (first.run_id, "dates 2025-06-02", True, 0),
        (second.run_id, "dates 2025-06-03", False, 1),
    ]
