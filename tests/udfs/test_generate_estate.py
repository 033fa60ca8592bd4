"""The generator's ``estate`` scenario without Spark: the dump decodes to exactly the truth, and the
records carry the irregularities the manifest announces (QSG membership and names in the headers,
per-queue-manager STATIME and first start, the restart's short interval, the lost intervals, the
releases without the 9.3.3 counters, standalone queue managers without CF or Db2 statistics)."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pyarrow.compute as pc
import pytest

from mqsmf import read_file
from mqsmf.generate import QmgrPlan, ScenarioConfig, generate_scenario, write_scenario

from .test_generate import assert_round_trip


def _s(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


@pytest.fixture(scope="module")
def estate(tmp_path_factory):
    path = tmp_path_factory.mktemp("estate") / "estate.dat"
    scenario = generate_scenario(ScenarioConfig.preset("estate", seed=14))
    manifest = write_scenario(scenario, str(path))
    tables, report = read_file(str(path))
    return scenario, manifest, tables, report


def test_the_estate_decodes_to_its_truth_with_nothing_quarantined(estate):
    scenario, _, tables, report = estate
    assert not report.quarantine
    assert_round_trip(scenario, tables)


def test_the_manifest_names_every_qsg_member_and_standalone_queue_manager(estate):
    _, manifest, tables, _ = estate
    e = manifest["estate"]
    assert [(g["name"], g["members"]) for g in e["qsgs"]] == [
        ("QSGA", ["QA01", "QA02", "QA03"]),
        ("QSGB", ["QB01", "QB02", "QB03"]),
    ]
    assert e["standalone"] == ["QS01", "QS02", "QS03"]
    qcct = tables["QCCT"].to_pandas()
    assert dict(zip(qcct.qmgr, qcct.QCCTQSGN, strict=True)) == {
        q["name"]: q["qsg"] or "" for q in manifest["qmgrs"]
    }  # the channel initiator names the QSG; blank outside one
    qqst = tables["QQST"].to_pandas()
    shared = qqst[qqst.QQSTDISP.astype(bool)]
    assert set(shared.qmgr) == {m for g in e["qsgs"] for m in g["members"]}
    assert (shared.qmgr.str[1].map({"A": "QSGA", "B": "QSGB"}) == shared.QQSTQSGN).all()
    for name in ("QEST", "QESD", "Q5ST"):  # no CF, no Db2 outside a QSG
        assert not set(tables[name].column("qmgr").to_pylist()) & set(e["standalone"]), name
    qs01 = qqst[qqst.qmgr == "QS01"]  # MQ 10: QWHX is there, its QSG blank
    assert qs01.smf_rel.eq("100000").all() and qs01.qsg.eq("").all()


def test_each_queue_manager_writes_its_own_intervals(estate):
    _, manifest, tables, _ = estate
    qmst = tables["QMST"].to_pandas()  # one QMST per queue manager and written interval
    for q in manifest["qmgrs"]:
        written = [(_s(s), _s(e)) for s, e, ok in q["intervals"] if ok]
        mine = qmst[qmst.qmgr == q["name"]].sort_values("interval_start")
        got = list(
            zip(mine.interval_start.astype("int64") // 10**6, mine.interval_end.astype("int64") // 10**6, strict=True)
        )
        assert got == written, q["name"]
    by = {q["name"]: q for q in manifest["qmgrs"]}
    assert by["QA02"]["intervals"][0][:2] == ["2025-06-02T00:07:00Z", "2025-06-02T00:37:00Z"]
    assert by["QB02"]["intervals"][0][:2] == ["2025-06-02T00:13:00Z", "2025-06-02T01:13:00Z"]
    assert {q["name"]: q["statime_seconds"] for q in manifest["qmgrs"]} == {
        "QA01": 1800, "QA02": 1800, "QA03": 900, "QB01": 3600, "QB02": 3600, "QB03": 1800,
        "QS01": 900, "QS02": 3600, "QS03": 1800,
    }  # fmt: skip
    # Only intervals that end within the day: QA02's last ends 23:37, QB02's 23:13.
    assert by["QA02"]["intervals"][-1][1] == "2025-06-02T23:37:00Z"
    assert by["QB02"]["intervals"][-1][1] == "2025-06-02T23:13:00Z"


def test_the_restart_and_the_lost_intervals(estate):
    _, manifest, tables, _ = estate
    qa03 = [i for i in manifest["qmgrs"] if i["name"] == "QA03"][0]["intervals"]
    assert qa03[40][:2] == ["2025-06-02T10:00:00Z", "2025-06-02T10:06:00Z"]  # stopped 6 minutes in
    assert qa03[41][:2] == ["2025-06-02T10:06:00Z", "2025-06-02T10:21:00Z"]  # intervals from the restart
    lost = {(x["qmgr"], x["start"]) for x in manifest["estate"]["lost_intervals"]}
    assert lost == {("QB03", "2025-06-02T05:30:00Z"), ("QS03", "2025-06-02T10:00:00Z")}
    for name, table in tables.items():
        if not table.num_rows:
            continue
        rows = table.select(["qmgr", "interval_start"]).to_pandas()
        starts = set(zip(rows.qmgr, rows.interval_start.dt.strftime("%Y-%m-%dT%H:%M:%SZ"), strict=True))
        assert not starts & lost, name


def test_releases_without_the_counters_write_none(estate):
    _, manifest, tables, _ = estate
    qqst = tables["QQST"]
    qsgb = {g["name"]: g for g in manifest["estate"]["qsgs"]}["QSGB"]
    assert qsgb["members_with_qqst_counters"] == ["QB01"]
    for qmgr, has in (("QB01", True), ("QB02", False), ("QB03", False)):
        puts = pc.filter(qqst.column("QQSTPUTS"), pc.equal(qqst.column("qmgr"), qmgr))
        assert len(puts) and (puts.null_count == 0) == has and (puts.null_count == len(puts)) != has, qmgr


def test_a_plan_spec_round_trips_and_bad_specs_are_refused():
    plan = QmgrPlan.parse("qa03@qsga:9.3.3:15+2:restart=40+6:lost=3;5")
    assert plan == QmgrPlan("QA03", "QSGA", "9.3.3", 15, 2, (40, 6), (3, 5))
    assert QmgrPlan.parse(str(plan)) == plan
    for bad, message in (
        ("QA01@QSGA:9.3.3", "bad queue manager plan"),
        ("QA01:9.3.3:30+30", "offset must be shorter"),
        ("QA01:9.3.3:30:restart=2+30", "restart falls inside"),
        ("QA01:9.9.9:30", "unsupported MQ version"),
    ):
        with pytest.raises(ValueError, match=message):
            QmgrPlan.parse(bad)
    with pytest.raises(ValueError, match="no --inject"):
        ScenarioConfig.preset("estate", violate=("x",))
    with pytest.raises(ValueError, match="repeat"):
        ScenarioConfig(estate=("QA01:9.3.3:30", "QA01:9.4.0:30"))


def test_qsg_empty_makes_the_plain_scenario_standalone():
    sc = generate_scenario(ScenarioConfig(seed=2, qmgrs=2, queues=12, intervals=2, qsg=""))
    assert sc.manifest["estate"] == {"qsgs": [], "standalone": ["QM01", "QM02"], "restarts": [], "lost_intervals": []}
    assert sc.truth("QEST").num_rows == 0 and sc.truth("Q5ST").num_rows == 0
    assert not np.asarray(sc.truth("QQST").column("QQSTDISP")).any()
