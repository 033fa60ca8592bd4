"""Queue depth events through the warehouse: a generated QSG day (SMF dump + the dmpmqmsg dumps
of its events) loaded by the on-run-start hook of one ``dbt build`` of the event marts and what
they read, compared with the generator's events manifest and with the SMF facts of the same day.

Last test: a planted duplicate answer (a second message of one queue manager for one CorrelId)
makes the data-quality gate fail, naming the group, while the build stays green. One build per
module (and one rebuild) keeps the Spark work small.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario
from mqsmf.generate.events import write_events
from mqsmf.pcf import read_dump
from mqsmf.quality.gate import run_gate

from .dbt_results import failures

pytestmark = pytest.mark.spark

TARGET_SCHEMA = "pcf_events_test"
RAW = "pcf_events_raw"
MARTS = f"{TARGET_SCHEMA}_marts"
STAGING = f"{TARGET_SCHEMA}_staging"
# QM02 is down for its interval 9 (no SMF record: inactive), QM01 never uses the QSG's last shared
# queue (null events), QM03 has PERFMEV(DISABLED); one private queue fills (Queue Full).
DAY = dict(
    seed=11,
    queues=12,
    intervals=12,
    interval_seconds=1800,
    lpars=3,
    estate=("QM01@QSGA:9.3.3:30", "QM02@QSGA:9.4.0:30:lost=9", "QM03@QSGA:10.0.0:30"),
    idle_shared=("QM01",),
)
EVENT_CHECKS = ("event_group_one_message_per_member", "event_group_one_queue", "event_group_one_event")
SELECT = [
    "+fct_queue_depth_events",
    "+fct_shared_queue_event_groups",
    "+fct_qsg_perfmev_advisories",
]


@pytest.fixture(scope="module")
def day(spark, dbt, tmp_path_factory):
    work = tmp_path_factory.mktemp("pcf_day")
    path = str(work / "qsg_day.dat")
    scenario = plan_scenario(ScenarioConfig(**DAY))
    write_scenario(scenario, path)
    events = write_events(scenario, path)
    files = [path, *events["files"].values()]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)

        def build(paths: list[str], **extra_vars):
            # cautious: a test runs only when every model it reads is built here
            return dbt(
                "build",
                "--select",
                *SELECT,
                "--indirect-selection",
                "cautious",
                "--vars",
                json.dumps({"smf_paths": paths, "raw_schema": RAW, **extra_vars}),
            )

        # QM02's PERFMEV is declared (the var wins over the seed's empty perfmev and the inference)
        result = build(files, perfmev_settings=[{"qmgr_name": "QM02", "perfmev": "enabled"}])
        yield SimpleNamespace(result=result, files=files, events=events, work=work, build=build)


def test_the_build_passes(day):
    assert day.result.success, failures(day.result)
    assert not failures(day.result)


def test_every_message_lands_once_with_its_lineage(spark, day):
    rows = spark.table(f"{MARTS}.fct_queue_depth_events").collect()
    want = {(e["qmgr"], e["msg_id"]): e for e in day.events["events"]}
    got = {(r.qmgr_name, r.msg_id): r for r in rows}
    assert set(got) == set(want)
    for key, e in want.items():
        r = got[key]
        assert (r.queue_name, r.event, r.qsg_name) == (e["queue"], e["event"], "QSGA")
        assert r.correl_id == (e["correl_id"] if e["shared"] else None)
        assert (r.msg_enq_count, r.msg_deq_count, r.high_q_depth) == (
            e["msg_enq_count"],
            e["msg_deq_count"],
            e["high_q_depth"],
        )
        assert r.source_file == e["file"] and r.line_number > 0
    audit = spark.sql(f"select * from {RAW}.smf_load_audit where framing = 'dmpmqmsg'").collect()
    assert {a.source_file for a in audit} == set(day.events["files"].values())
    assert sum(a.records_decoded for a in audit) == len(want) and not any(a.records_quarantined for a in audit)


def test_event_groups_match_the_generator(spark, day):
    rows = {r.correl_id: r for r in spark.table(f"{MARTS}.fct_shared_queue_event_groups").collect()}
    groups = day.events["groups"]
    assert set(rows) == {g["correl_id"] for g in groups} and groups
    for g in groups:
        r = rows[g["correl_id"]]
        assert (r.queue_name, r.event, r.qsg_name) == (g["queue"], g["event"], "QSGA")
        assert r.answering_qmgrs == sorted(g["answered"])
        assert r.silent_qmgrs == sorted(g["not_answered"])
        assert r.silent_active_qmgrs == sorted(g["perfmev_disabled_members"])
        assert r.inactive_qmgrs == sorted(g["inactive_members"])
        assert r.idle_qmgrs == sorted(g["idle_members"])
        if g["coordinator_wrote"]:
            assert r.coordinating_qmgr_name == g["coordinator"]
        assert (r.msg_enq_count, r.msg_deq_count, r.high_q_depth_max) == (
            g["msg_enq_count"],
            g["msg_deq_count"],
            g["max_high_q_depth"],
        )
        assert r.message_count == r.answering_qmgr_count == len(g["answered"]) and r.qsg_member_count == 3
    # the day has each kind of member the marts tell apart
    assert any(g["inactive_members"] for g in groups) and any(g["idle_members"] for g in groups)
    assert any(g["perfmev_disabled_members"] for g in groups)


def test_queue_full_events_match_the_generator(spark, day):
    """Queue Full (MQRC_Q_FULL 2053) on the queue whose MAXDEPTH the manifest sets to its deepest
    interval: one row, on that queue, in the interval whose QQSTDPHI reached MAXDEPTH."""
    want = [e for e in day.events["events"] if e["reason"] == 2053]
    (queue,) = [q for q in day.events["monitored_queues"] if q["maxdepth"] != 999_999_999]
    assert [(e["qmgr"], e["queue"]) for e in want] == [(queue["qmgr"], queue["queue"])]
    rows = spark.sql(
        f"select qmgr_name, queue_name, event, reason_code, msg_id, high_q_depth "
        f"from {MARTS}.fct_queue_depth_events where event = 'QUEUE_FULL'"
    ).collect()
    assert [(r.qmgr_name, r.queue_name, r.reason_code, r.msg_id) for r in rows] == [
        (e["qmgr"], e["queue"], 2053, e["msg_id"]) for e in want
    ]
    # the statistics interval the event was put in (its end is within a minute of the put)
    (hit,) = spark.sql(
        f"""
        select s.depth_high
        from {MARTS}.fct_queue_depth_events e
        join {STAGING}.stg_smf__qqst s
          on s.qmgr_name = e.qmgr_name and s.queue_name = e.queue_name
         and s.interval_start_at <= e.put_at - interval 60 seconds
         and e.put_at < s.interval_end_at + interval 60 seconds
        where e.event = 'QUEUE_FULL'
        """
    ).collect()
    assert hit.depth_high == queue["maxdepth"]


def test_event_counts_equal_the_smf_queue_statistics_over_their_windows(spark, day):
    """Independent of the generator's event logic: each message's counts from the staged QQST rows,
    over the statistics intervals that start (to the minute) between its reset and its put."""
    bad = spark.sql(
        f"""
        select e.qmgr_name, e.queue_name, e.put_at, e.msg_enq_count, e.msg_deq_count,
               sum(s.put_count + s.put1_count) as smf_in, sum(s.get_count) as smf_out,
               max(s.depth_high) as smf_high
        from {MARTS}.fct_queue_depth_events e
        join {STAGING}.stg_smf__qqst s
          on s.qmgr_name = e.qmgr_name and s.queue_name = e.queue_name
         and date_trunc('minute', s.interval_start_at + interval 30 seconds) >= date_trunc('second', e.reset_at)
         and s.interval_start_at < e.put_at
        group by e.qmgr_name, e.queue_name, e.put_at, e.msg_enq_count, e.msg_deq_count, e.high_q_depth, e.is_null_event
        having smf_in != e.msg_enq_count or smf_out != e.msg_deq_count
            or (not e.is_null_event and smf_high != e.high_q_depth)
        """
    ).collect()
    assert bad == []
    assert spark.table(f"{MARTS}.fct_queue_depth_events").count() == len(day.events["events"])


def test_the_perfmev_advisory_flags_the_group(spark, day):
    rows = {r.qmgr_name: r for r in spark.table(f"{MARTS}.fct_qsg_perfmev_advisories").collect()}
    assert {q: r.perfmev for q, r in rows.items()} == day.events["perfmev"]
    assert all(r.qsg_settings_differ for r in rows.values())
    assert rows["QM03"].perfmev_source == "inferred from event groups" and "QM03" in rows["QM03"].advice
    assert rows["QM01"].perfmev_source == "inferred from event groups"
    assert rows["QM02"].perfmev_source == "var perfmev_settings"
    assert rows["QM01"].advice is None


def test_reloading_adds_no_row_and_a_duplicate_answer_fails_the_gate(spark, day):
    """A second build reloads the event dumps (no row may be added: idempotent) plus a dump with a
    planted second message of one answering member for one CorrelId (same message, new MsgId):
    exactly that message is added, the mart shows the group with one message too many, and the
    data-quality gate fails naming that group."""
    group = day.events["groups"][0]
    member = group["answered"][-1]
    source = day.events["files"][member]
    with open(source, encoding="ascii") as fh:
        text = fh.read()
    table, _ = read_dump(source)
    row = next(r for r in table.to_pylist() if r["correl_id"] == group["correl_id"])
    end = text.find("\nN\n", row["record_offset"] + 1)
    block = text[row["record_offset"] : len(text) if end < 0 else end + 1]
    assert block.startswith("N\n") and f"A COI {group['correl_id']}" in block
    planted = block.replace(f"A MSI {row['msg_id']}", "A MSI " + "AB" * 24)
    dup = day.work / "planted_duplicate.perfm.dmp"
    dup.write_text("* planted duplicate answer\n\n" + planted)
    result = day.build([*day.events["files"].values(), str(dup)])
    assert spark.table(f"{RAW}.perfm_event").count() == len(day.events["events"]) + 1
    # The build stays green (the marts show the group as it is); the data-quality gate owns the
    # invariant "one message per answering member" and fails it.
    assert failures(result) == []
    rows = spark.sql(
        f"select correl_id, message_count, answering_qmgr_count from {MARTS}.fct_shared_queue_event_groups "
        "where message_count != answering_qmgr_count"
    ).collect()
    assert [(r.correl_id, r.message_count, r.answering_qmgr_count) for r in rows] == [
        (group["correl_id"], len(group["answered"]) + 1, len(group["answered"]))
    ]
    # The data-quality gate finds the same group from the raw messages, by its own count.
    gate = run_gate(spark, "raw", schemas={"raw": RAW}, quality_schema=f"{RAW}_quality", docs_dir=None,
                    checks=EVENT_CHECKS, keys=True)  # fmt: skip
    outcomes = {o.check.name: o for o in gate.outcomes}
    assert {name: o.violations for name, o in outcomes.items()} == {
        "event_group_one_message_per_member": 1, "event_group_one_queue": 0, "event_group_one_event": 0,
    }  # fmt: skip
    (sample,) = outcomes["event_group_one_message_per_member"].samples
    assert sample["object_name"] == f"{group['queue']} CorrelId {group['correl_id']}"
    assert json.loads(sample["values"]) == {
        "dq_messages": len(group["answered"]) + 1, "dq_answering_qmgrs": len(group["answered"]),
    }  # fmt: skip
