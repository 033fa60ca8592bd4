"""Reader of queue depth event messages saved with dmpmqmsg (mqsmf.pcf).

The expectations here are written from IBM's documentation, not from the layout tables: the
constants (MQCFT_EVENT 7, MQCFH_STRUC_LENGTH 36, MQCMD_PERFM_EVENT 45, MQCFT_STRING 4,
MQCFT_INTEGER 3, MQCA_Q_MGR_NAME 2015, MQCA_BASE_Q_NAME 2002, MQIA_TIME_SINCE_RESET 35 ...
MQIA_MSG_DEQ_COUNT 38, MQRC_Q_DEPTH_HIGH 2224, MQRC_Q_DEPTH_LOW 2225, MQRC_Q_FULL 2053) are typed
as literals and the bytes are packed with struct, so a wrong table entry makes these tests fail.
"""

from __future__ import annotations

import datetime as dt
import struct

import pytest

from mqsmf.pcf import read_dump, read_dump_bytes
from mqsmf.pcf.reader import is_dump_file

# A Queue Depth Low event as z/OS writes it (big-endian integers, EBCDIC CCSID 500 strings),
# saved unconverted: the hex below was packed by hand from the MQCFH/MQCFST/MQCFIN layouts.
GOLDEN_ZOS = """\
* Dumped by dmpmqmsg
* Qmgr      = QMA1
* Queue     = SYSTEM.ADMIN.PERFM.EVENT

N
A VER 2
A RPT 0
A MST 8
A EXP -1
A FDB 0
A ENC 785
A CCS 500
A FMT MQEVENT
A PRI 0
A PER 0
A MSI C3E2D840D8D4C1F14040404040DD0A11223344556677AA01
A COI C3E2D840D8D4C1F14040404040DD0A1122334455667700FF
A BOC 0
A RTQ
A RTM QMA1
A USR
A ACC 0000000000000000000000000000000000000000000000000000000000000000
A AIX
A PAT 7
A PAN QMA1
A PTD 20261124
A PTT 13050734
A AOX
A GRP 000000000000000000000000000000000000000000000000
A MSQ 1
A OFF 0
A MSF 0
A ORL -1
X 0000000700000024000000010000002D000000010000000100000001000008B1000000060000000400000018000007DF000001F400000004D8D4C1F1000000040000002C
X 000007D2000001F400000017D7C1E8D4C5D5E3E24BE2C8C1D9C5C44BD9C5D8E4C5E2E300000000030000001000000023000006CE00000003000000100000002400004FC1
X 0000000300000010000000250000232900000003000000100000002600003DFE
"""

EXPECTED_ZOS = {
    "event_qmgr_name": "QMA1",
    "queue_name": "PAYMENTS.SHARED.REQUEST",
    "seconds_since_reset": 1742,
    "high_q_depth": 20417,
    "msg_enq_count": 9001,
    "msg_deq_count": 15870,
    "reason": 2225,
    "event": "QUEUE_DEPTH_LOW",
    "command": 45,
    "cfh_type": 7,
    "encoding": 785,
    "coded_char_set_id": 500,
    "byte_order": "big-endian",
    "correl_id": "C3E2D840D8D4C1F14040404040DD0A1122334455667700FF",
    "put_at": dt.datetime(2026, 11, 24, 13, 5, 7, 340000, tzinfo=dt.UTC),
    "line_number": 5,
}


def _cfst(order: str, pid: int, ccsid: int, s: str, codec: str) -> bytes:
    b = s.encode(codec)
    pad = (len(b) + 3) // 4 * 4
    return struct.pack(order + "5i", 4, 20 + pad, pid, ccsid, len(b)) + b + b"\0" * (pad - len(b))


def _cfin(order: str, pid: int, v: int) -> bytes:
    return struct.pack(order + "4i", 3, 16, pid, v)


def hand_built(order: str, ccsid: int, codec: str, reason: int, qm: str, q: str, nums: tuple[int, int, int, int]):
    """One performance event's message data, packed from IBM's structure descriptions."""
    tsr, hi, enq, deq = nums
    return (
        struct.pack(order + "9i", 7, 36, 1, 45, 1, 1, 1, reason, 6)
        + _cfst(order, 2015, ccsid, qm, codec)
        + _cfst(order, 2002, ccsid, q, codec)
        + _cfin(order, 35, tsr)
        + _cfin(order, 36, hi)
        + _cfin(order, 37, enq)
        + _cfin(order, 38, deq)
    )


def dump(*messages: tuple[dict[str, str], bytes]) -> str:
    out = ["* test dump", ""]
    for attrs, data in messages:
        out.append("N")
        out += [f"A {k} {v}" for k, v in attrs.items()]
        out += ["X " + data[i : i + 40].hex().upper() for i in range(0, len(data), 40)]
    return "\n".join(out) + "\n"


def md(enc: int, ccs: int, correl: str = "11" * 24, ptd: str = "20261124", ptt: str = "10000000") -> dict[str, str]:
    return {"VER": "2", "ENC": str(enc), "CCS": str(ccs), "FMT": "MQEVENT", "COI": correl, "PTD": ptd, "PTT": ptt}


def test_golden_zos_message(tmp_path):
    p = tmp_path / "perfm.dmp"
    p.write_text(GOLDEN_ZOS)
    assert is_dump_file(str(p))
    table, report = read_dump(str(p))
    assert report.quarantine == [] and report.decoded == 1
    row = table.to_pylist()[0]
    for k, v in EXPECTED_ZOS.items():
        assert row[k] == v, k


def test_golden_converted_message_matches_zos_one():
    """The same event converted for x86 (little-endian, CCSID 819) decodes to the same values."""
    data = hand_built("<", 819, "latin-1", 2225, "QMA1", "PAYMENTS.SHARED.REQUEST", (1742, 20417, 9001, 15870))
    table, report = read_dump_bytes(
        dump((md(546, 819, EXPECTED_ZOS["correl_id"], "20261124", "13050734"), data)).encode(), "x86"
    )
    assert report.quarantine == []
    row = table.to_pylist()[0]
    assert row["byte_order"] == "little-endian" and row["char_set"].startswith("ASCII")
    for k in ("event_qmgr_name", "queue_name", "seconds_since_reset", "high_q_depth", "msg_enq_count", "msg_deq_count"):
        assert row[k] == EXPECTED_ZOS[k]
    assert row["put_at"] == EXPECTED_ZOS["put_at"]


@pytest.mark.parametrize(
    ("reason", "event"), [(2224, "QUEUE_DEPTH_HIGH"), (2225, "QUEUE_DEPTH_LOW"), (2053, "QUEUE_FULL")]
)
def test_reason_codes_name_the_event(reason, event):
    data = hand_built(">", 37, "cp037", reason, "QM02", "Q.A", (1, 2, 3, 4))
    table, _ = read_dump_bytes(dump((md(785, 37), data)).encode(), "f")
    assert table.column("event").to_pylist() == [event]


def test_null_event_of_idle_member_reads_as_zero():
    data = hand_built(">", 500, "cp500", 2224, "QM03", "SQ1", (60, 0, 0, 0))
    table, _ = read_dump_bytes(dump((md(785, 500), data)).encode(), "f")
    row = table.to_pylist()[0]
    assert (row["msg_enq_count"], row["msg_deq_count"], row["high_q_depth"]) == (0, 0, 0)


def test_bad_messages_are_quarantined_with_line_and_offset_and_the_rest_loads():
    good = hand_built(">", 500, "cp500", 2224, "QM01", "Q1", (10, 5, 5, 0))
    little = hand_built("<", 819, "latin-1", 2224, "QM01", "Q2", (10, 5, 5, 0))
    text = dump(
        (md(785, 500), good),
        (md(785, 500), little),  # says big-endian, is little-endian: StrucLength reads wrong
        (md(785, 500), good[:-3]),  # truncated: last parameter runs past the data
        (md(546, 819), little),
    )
    text = text.replace("A ENC 546", "A ENC 546\nQ what is this")  # unknown line type in message 4
    text += "N\nA ENC 785\nA CCS 500\nA FMT MQEVENT\nX 0A0\n"  # odd hex digits
    text += "N\nA CCS 500\nA FMT MQEVENT\nX " + good.hex() + "\n"  # no Encoding
    text += "N\n" + "\n".join(f"A {k} {v}" for k, v in md(785, 500).items()) + "\nX " + good.hex() + "\n"
    data = text.encode()
    table, report = read_dump_bytes(data, "events.dmp")
    assert report.messages == 7 and report.decoded == 2
    assert table.column("queue_name").to_pylist() == ["Q1", "Q1"]
    reasons = [str(q) for q in report.quarantine]
    assert len(reasons) == 5
    for q in report.quarantine:
        assert str(q).startswith(f"events.dmp: line {q.line} (offset {q.offset})")
        assert data[q.offset : q.offset + 2] == b"N\n"  # the offset is the message's N line
        assert data.count(b"\n", 0, q.offset) + 1 == q.line
        assert q.raw == data[q.offset : q.offset + q.length]
    assert "StrucLength" in reasons[0]
    assert "past" in reasons[1] or "StrucLength" in reasons[1]
    assert "line type 'Q'" in reasons[2]
    assert "hexadecimal" in reasons[3]
    assert "ENC" in reasons[4]


def test_lines_before_any_message_are_quarantined():
    good = hand_built(">", 500, "cp500", 2224, "QM01", "Q1", (1, 1, 1, 0))
    text = "* x\nA ENC 785\n" + dump((md(785, 500), good))
    table, report = read_dump_bytes(text.encode(), "f")
    assert table.num_rows == 1
    assert [(q.line, q.offset) for q in report.quarantine] == [(2, 4)]


def test_other_messages_are_skipped_not_quarantined():
    other_reason = hand_built(">", 500, "cp500", 2226, "QM01", "Q1", (1, 1, 1, 0))  # service interval high
    not_event = struct.pack(">9i", 2, 36, 1, 13, 1, 1, 0, 0, 0)  # a command response (MQFMT_ADMIN)
    other_event = struct.pack(">9i", 7, 36, 1, 44, 1, 1, 1, 2035, 0)  # a queue manager event
    fmt = dict(md(785, 500), FMT="MQADMIN")
    text = dump((md(785, 500), other_reason), (fmt, not_event), (md(785, 500), other_event))
    table, report = read_dump_bytes(text.encode(), "f")
    assert table.num_rows == 0 and report.skipped == 3 and report.quarantine == []


def test_smf_dump_is_not_taken_for_a_message_dump(tmp_path):
    p = tmp_path / "smf.dat"
    p.write_bytes(b"\x00\x64\x00\x00" + bytes(96))
    assert not is_dump_file(str(p))


# --------------------------------------------------------------------------------------------
# Generator <-> reader, and the events against the SMF statistics of the same day
# --------------------------------------------------------------------------------------------

# QM02 is down for its interval 9 (written by no record), QM01 never uses the QSG's last shared
# queue (null events), QM03 runs with PERFMEV(DISABLED) (the default for three members).
GENERATED_DAY = dict(
    seed=11,
    queues=12,
    intervals=12,
    interval_seconds=1800,
    lpars=3,
    estate=("QM01@QSGA:9.3.3:30", "QM02@QSGA:9.4.0:30:lost=9", "QM03@QSGA:10.0.0:30"),
    idle_shared=("QM01",),
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario
    from mqsmf.generate.events import write_events

    work = tmp_path_factory.mktemp("events")
    day = str(work / "day.dat")
    scenario = plan_scenario(ScenarioConfig(**GENERATED_DAY))
    write_scenario(scenario, day)
    return day, write_events(scenario, day)


def test_generated_dumps_read_back_exactly(generated):
    _, manifest = generated
    assert manifest["perfmev"] == {"QM01": "ENABLED", "QM02": "ENABLED", "QM03": "DISABLED"}
    rows, orders = [], set()
    for path in manifest["files"].values():
        table, report = read_dump(path)
        assert report.quarantine == [] and report.skipped == 0
        rows += table.to_pylist()
        orders |= set(table.column("byte_order").to_pylist())
    assert orders == {"big-endian", "little-endian"}  # both ways sites save the queue
    got = {(r["event_qmgr_name"], r["msg_id"]): r for r in rows}
    assert len(got) == len(rows) == len(manifest["events"]) > 0
    for e in manifest["events"]:
        r = got[(e["qmgr"], e["msg_id"])]
        assert (r["queue_name"], r["event"], r["correl_id"]) == (e["queue"], e["event"], e["correl_id"])
        assert r["put_at"] == dt.datetime.fromisoformat(e["put_at"].replace("Z", "+00:00"))
        for k in ("msg_enq_count", "msg_deq_count", "high_q_depth", "seconds_since_reset"):
            assert r[k] == e[k], k
    kinds = {(e["shared"], e["event"]) for e in manifest["events"]}
    assert {(False, "QUEUE_DEPTH_HIGH"), (True, "QUEUE_DEPTH_HIGH"), (True, "QUEUE_DEPTH_LOW")} <= kinds
    assert not any(e["qmgr"] == "QM03" for e in manifest["events"])  # PERFMEV(DISABLED) writes none


def _to_minute(t: dt.datetime) -> dt.datetime:
    return (t + dt.timedelta(seconds=30)).replace(second=0, microsecond=0)


def _disagreements_with_smf(day: str, manifest: dict) -> tuple[list[dict], int]:
    """Events whose counts are not the writing queue manager's QQST counters summed over the SMF
    intervals from its statistics reset (previous event, start of day or restart) to the event's
    interval, as decoded from the day's SMF dump; and how many events were compared (a queue
    manager whose records lack the 9.3.3 counters cannot be)."""
    from mqsmf import read_file

    tables, report = read_file(day, ["QQST"])
    assert not report.quarantine
    stats: dict[tuple, list[dict]] = {}
    for r in tables["QQST"].to_pylist():
        stats.setdefault((r["qmgr"], r["QQSTQNAM"]), []).append(r)
    bad, checked = [], 0
    for e in manifest["events"]:
        put = dt.datetime.fromisoformat(e["put_at"].replace("Z", "+00:00"))
        # TimeSinceReset is whole seconds: the reset lies within the second before put - seconds.
        reset = (put - dt.timedelta(seconds=e["seconds_since_reset"])).replace(microsecond=0)
        # The intervals that started at or after the reset and before the put (queue managers end
        # their intervals close to, never exactly at, the nominal boundary: compare to the minute).
        window = [r for r in stats[(e["qmgr"], e["queue"])] if reset <= _to_minute(r["interval_start"]) < put]
        if any(r["QQSTPUTS"] is None for r in window):
            continue
        enq = sum(int(r["QQSTPUTS"]) + int(r["QQSTPUT1"]) for r in window)
        deq = sum(int(r["QQSTGETS"]) for r in window)
        high = max(int(r["QQSTDPHI"]) for r in window) if enq or deq else 0
        if (e["msg_enq_count"], e["msg_deq_count"], e["high_q_depth"]) != (enq, deq, high):
            bad.append(e)
        checked += 1
    return bad, checked


def test_generated_events_agree_with_the_decoded_smf_statistics(generated):
    day, manifest = generated
    bad, checked = _disagreements_with_smf(day, manifest)
    assert bad == [] and checked == len(manifest["events"])


def test_estate_events_agree_with_the_smf_statistics(tmp_path):
    """The estate preset (two QSGs, own STATIMEs and starts, a restart, lost intervals): each
    member's counts follow its own intervals; the 9.3.0/9.3.1 members' records have no counters
    to compare with, every other event is compared."""
    from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario
    from mqsmf.generate.events import write_events

    day = str(tmp_path / "estate.dat")
    scenario = plan_scenario(ScenarioConfig.preset("estate"))
    write_scenario(scenario, day)
    manifest = write_events(scenario, day)
    bad, checked = _disagreements_with_smf(day, manifest)
    assert bad == []
    uncomparable = [e for e in manifest["events"] if e["qmgr"] in ("QB02", "QB03")]
    # (an event of theirs whose window holds no interval is compared too: nothing to add up)
    assert checked >= len(manifest["events"]) - len(uncomparable) > 0
    assert {g["qsg"] for g in manifest["groups"]} == {"QSGA", "QSGB"}
    written = {e["qmgr"] for e in manifest["events"]}
    assert {"QA02", "QA03"} <= written  # the late starter and the restarted member


def test_generated_groups_have_null_events_inactive_and_disabled_members(generated):
    """IBM MQ 'Shared queues and queue depth events on z/OS': an active member that did nothing on
    the queue writes a null event; a member that is down (its interval is lost) writes none and is
    no PERFMEV(DISABLED) member."""
    _, manifest = generated
    groups = manifest["groups"]
    idle = [g for g in groups if g["idle_members"]]
    assert idle and all(g["idle_members"] == ["QM01"] for g in idle)
    for g in idle:
        (e,) = [e for e in manifest["events"] if e["correl_id"] == g["correl_id"] and e["qmgr"] == "QM01"]
        assert (e["msg_enq_count"], e["msg_deq_count"], e["high_q_depth"]) == (0, 0, 0) and e["null_event"]
    down = [g for g in groups if g["inactive_members"]]
    assert down and all(g["inactive_members"] == ["QM02"] and g["interval"] == 9 for g in down)
    for g in groups:
        assert set(g["answered"]) | set(g["inactive_members"]) | set(g["perfmev_disabled_members"]) == {
            "QM01", "QM02", "QM03",
        }  # fmt: skip
        assert "QM02" in g["answered"] or g in down
        assert g["perfmev_disabled_members"] == ([] if "QM03" in g["inactive_members"] else ["QM03"])


def test_queue_full_fires_where_the_smf_depth_reaches_maxdepth(generated):
    """One monitored queue has MAXDEPTH = its deepest interval's depth: Queue Full (reason 2053)
    fires in that interval, after a Queue Depth High or Low event, and the decoded QQST record
    of that interval shows QQSTDPHI == MAXDEPTH; every other queue keeps the default MAXDEPTH."""
    from mqsmf import read_file

    day, manifest = generated
    full = [e for e in manifest["events"] if e["event"] == "QUEUE_FULL"]
    assert len(full) == 1 and full[0]["reason"] == 2053
    (e,) = full
    limits = [q for q in manifest["monitored_queues"] if q["maxdepth"] != 999_999_999]
    assert [(q["queue"], q["qmgr"]) for q in limits] == [(e["queue"], e["qmgr"])]
    maxdepth = limits[0]["maxdepth"]
    tables, _ = read_file(day, ["QQST"])
    rows = [r for r in tables["QQST"].to_pylist() if (r["qmgr"], r["QQSTQNAM"]) == (e["qmgr"], e["queue"])]
    put = dt.datetime.fromisoformat(e["put_at"].replace("Z", "+00:00"))
    (at,) = [r for r in rows if _to_minute(r["interval_start"]) < put <= _to_minute(r["interval_end"])]
    assert int(at["QQSTDPHI"]) == maxdepth == max(int(r["QQSTDPHI"]) for r in rows)
    earlier = [
        x
        for x in manifest["events"]
        if (x["qmgr"], x["queue"]) == (e["qmgr"], e["queue"]) and x["put_us"] < e["put_us"]
    ]
    # Queue Full is enabled by a Queue Depth High or Low event (IBM: "Enabling queue depth events")
    assert earlier and earlier[-1]["event"] in ("QUEUE_DEPTH_HIGH", "QUEUE_DEPTH_LOW")
    for r in rows:
        assert int(r["QQSTDPHI"]) <= maxdepth


def test_an_idle_member_reports_no_traffic_on_its_idle_shared_queue(generated):
    """--idle-shared QM01: in the decoded SMF statistics QM01 neither puts to nor gets from the QSG's
    last shared queue in any interval, while the other members do."""
    from mqsmf import read_file

    day, manifest = generated
    (queue,) = {g["queue"] for g in manifest["groups"] if g["idle_members"]}
    tables, _ = read_file(day, ["QQST"])
    traffic: dict[str, int] = {}
    for r in tables["QQST"].to_pylist():
        if r["QQSTQNAM"] == queue:
            moved = int(r["QQSTPUTS"]) + int(r["QQSTPUT1"]) + int(r["QQSTGETS"])
            traffic[r["qmgr"]] = traffic.get(r["qmgr"], 0) + moved
    assert traffic["QM01"] == 0 and traffic["QM02"] > 0 and traffic["QM03"] > 0


def test_cli_rejects_an_idle_member_outside_the_qsg(tmp_path, capsys):
    from mqsmf.cli import main

    out = str(tmp_path / "d.dat")
    assert (
        main(["generate", "--out", out, "--qmgrs", "2", "--queues", "10", "--intervals", "1", "--idle-shared", "QM09"])
        == 2
    )
    assert "QM09 is no queue-sharing group member" in capsys.readouterr().err
