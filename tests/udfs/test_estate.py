"""A real site's estate, end to end: ``--preset estate`` (two QSGs and three standalone queue managers,
STATIME 15/30/60 minutes, a member starting its intervals at 00:07 and one at 00:13, a restart at
10:06, two lost intervals, 9.3.0/9.3.1 members without the 9.3.3 counters) is generated, loaded,
built (``dbt build``: every model and test) and gated; then each irregularity is compared with what
the manifest alone predicts for the QSG roll-ups (coverage, members with counters, one grid slot
per row), and the roll-up sums with an independent pandas apportioning of the generator's truth.

One module-scoped build. Its figures (bytes, records, rows, build and gate seconds) are printed
(``pytest -s``); the machine they run on is shared, so they are noisy.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from datetime import datetime
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mqsmf.generate import ScenarioConfig, generate_scenario, write_scenario

from .dbt_results import failures

pytestmark = pytest.mark.spark

TARGET_SCHEMA = "dbt_estate_test"
RAW_SCHEMA = "dbt_estate_raw"
MARTS = f"{TARGET_SCHEMA}_marts"
QUALITY = "dbt_estate_quality"
GRID = 1800  # dbt var qsg_grid_seconds (default)
CONFIG = ScenarioConfig.preset("estate", seed=14)


def _s(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


@pytest.fixture(scope="module")
def estate(spark, dbt, tmp_path_factory):
    from mqsmf.quality.checks import MARTS as MARTS_STAGE
    from mqsmf.quality.checks import RAW
    from mqsmf.quality.gate import run_gate

    work = tmp_path_factory.mktemp("estate")
    path = work / "estate.dat"
    scenario = generate_scenario(CONFIG)
    truth = {name: scenario.truth(name).to_pandas() for name in ("QQST", "QEST")}
    manifest = write_scenario(scenario, str(path))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
        started = time.monotonic()
        result = dbt(
            "build", "--threads", "4", "--vars", json.dumps({"smf_paths": [str(path)], "raw_schema": RAW_SCHEMA})
        )
        build_seconds = time.monotonic() - started
    kw = dict(quality_schema=QUALITY, docs_dir=None, sample_rows=0)
    started = time.monotonic()
    raw_gate = run_gate(spark, RAW, schemas={RAW: RAW_SCHEMA}, **kw)
    marts_gate = run_gate(spark, MARTS_STAGE, schemas={MARTS_STAGE: MARTS}, **kw)
    gate_seconds = time.monotonic() - started
    rows = {
        name: spark.table(f"{MARTS}.{name}").count()
        for name in ("fct_queue_stats", "fct_shared_queue_qsg_stats", "fct_cf_structure_stats")
    }
    print(
        f"\nestate: {manifest['file']['size']:,} bytes, {manifest['file']['logical_records']:,} records, "
        f"{sum(manifest['counts']['instances'].values()):,} structure instances, marts rows {rows}; "
        f"dbt build {build_seconds:.0f} s, gate (raw + marts) {gate_seconds:.0f} s (shared, loaded machine)"
    )
    return SimpleNamespace(
        result=result, manifest=manifest, truth=truth, raw_gate=raw_gate, marts_gate=marts_gate, spark=spark
    )


def _mart(estate, name: str) -> pd.DataFrame:
    frame = estate.spark.table(f"{MARTS}.{name}").toPandas()
    for column in ("interval_start_at", "interval_end_at"):
        if column in frame:
            frame[column] = pd.to_datetime(frame[column]).dt.tz_localize("UTC")
    if "interval_start_at" in frame:
        frame["slot"] = frame.interval_start_at.astype("int64") // 10**9
    return frame


def _predicted_grid(manifest: dict) -> dict[tuple[str, int], dict]:
    """From the manifest alone: per (QSG, slot) the seconds each member's written intervals cover."""
    out: dict[tuple[str, int], dict] = defaultdict(lambda: {"covered": defaultdict(int)})
    for q in manifest["qmgrs"]:
        if q["qsg"] is None:
            continue
        for start, end, written in q["intervals"]:
            if not written:
                continue
            s, e = _s(start), _s(end)
            for slot in range(s // GRID * GRID, e, GRID):
                out[(q["qsg"], slot)]["covered"][q["name"]] += min(e, slot + GRID) - max(s, slot)
    return out


def _predicted_gaps(manifest: dict) -> set[tuple[str, str, int, int]]:
    """From the manifest alone: per queue manager and SMF 115 record kind, the interval after each
    run of lost (unwritten) intervals, as (qmgr, kind, its start, the end of the interval before
    the gap): the gap is the missing time. Epoch seconds."""
    kinds = [k for k in manifest["file"]["records_by_type"] if k.startswith("115/")]
    out = set()
    for q in manifest["qmgrs"]:
        last_written_end, lost = None, False
        for start, end, written in q["intervals"]:
            if not written:
                lost = True
                continue
            if lost and last_written_end is not None:
                out |= {(q["name"], kind, _s(start), _s(last_written_end)) for kind in kinds}
            last_written_end, lost = end, False
    return out


def test_dbt_build_passes_on_the_estate(estate):
    failed = failures(estate.result)
    assert not failed
    assert estate.result.success


def test_the_gate_passes_and_names_exactly_the_lost_intervals(estate):
    """The gate passes: every raw check passes but interval_gap, a warning that lists exactly the
    intervals after the ones the estate lost (per record kind), and not the restart's (a short
    interval, then the next one); each of its rows in dq_violations names the queue manager, the
    record kind and the missing time (from the end of the interval before the gap), as the
    manifest's intervals predict; every marts check (the roll-up reconciliation) passes."""
    raw = {o.check.name: o for o in estate.raw_gate.outcomes}
    assert not estate.raw_gate.skipped_frames
    assert estate.raw_gate.passed and estate.raw_gate.exit_code == 0
    assert [name for name, o in raw.items() if o.status != "passed"] == ["interval_gap"]
    assert raw["interval_gap"].check.severity == "warn"
    lost = estate.manifest["estate"]["lost_intervals"]
    assert {x["qmgr"] for x in lost} == {"QB03", "QS03"}
    assert raw["interval_gap"].violations == 6 * len(lost)  # six record kinds per interval
    rows = estate.spark.sql(
        "SELECT qmgr_name, object_name, unix_micros(interval_start_at) AS start_us, "
        "unix_micros(to_timestamp(get_json_object(`values`, '$.previous_interval_end'))) AS previous_end_us "
        f"FROM {QUALITY}.dq_violations WHERE stage = 'raw' AND check_name = 'interval_gap' "
        f"AND run_id = '{estate.raw_gate.run_id}'"
    ).collect()
    got = [(r.qmgr_name, r.object_name, r.start_us / 1e6, r.previous_end_us / 1e6) for r in rows]
    assert len(got) == raw["interval_gap"].violations
    assert set(got) == _predicted_gaps(estate.manifest)
    # The missing time is the lost intervals themselves.
    assert {(q, start - previous) for q, _, start, previous in got} == {
        (x["qmgr"], _s(x["end"]) - _s(x["start"])) for x in lost
    }
    assert estate.marts_gate.passed and not estate.marts_gate.skipped_frames
    assert all(o.status == "passed" and o.evaluated_rows for o in estate.marts_gate.outcomes)


def test_every_rollup_row_is_one_grid_slot_with_the_coverage_the_manifest_predicts(estate):
    """Unaligned starts (00:07, 00:13), STATIME 15/30/60, the restart and the lost interval all show
    in covered member-seconds exactly as the manifest's intervals predict; members expected = the
    QSG's members; rows are never wider or narrower than one slot."""
    predicted = _predicted_grid(estate.manifest)
    members = {g["name"]: g["members"] for g in estate.manifest["estate"]["qsgs"]}
    for mart in ("fct_shared_queue_qsg_stats", "fct_cf_structure_stats"):
        got = _mart(estate, mart)
        assert (got.interval_seconds == GRID).all() and (got.slot % GRID == 0).all(), mart
        assert set(got.qsg_name) == set(members), mart
        for row in got.itertuples():
            p = predicted[(row.qsg_name, row.slot)]["covered"]
            assert row.qmgrs_expected == len(members[row.qsg_name])
            assert row.covered_member_seconds == sum(p.values()), (mart, row.qsg_name, row.interval_start_at)
            assert row.qmgrs_reporting == len(p)
            assert row.coverage_ratio == pytest.approx(sum(p.values()) / (GRID * len(members[row.qsg_name])))


def test_a_member_starting_its_intervals_at_00_07_is_apportioned_not_misaligned(estate):
    sq = _mart(estate, "fct_shared_queue_qsg_stats")
    first = sq[(sq.qsg_name == "QSGA") & (sq.slot == _s("2025-06-02T00:00:00Z"))]
    assert len(first) and (first.covered_member_seconds == 1800 + 23 * 60 + 1800).all()  # QA02 from 00:07
    assert (first.qmgrs_apportioned == 1).all()  # QA02's 00:07-00:37 crosses 00:30
    assert not first.is_complete.any()


def test_the_restart_leaves_a_short_interval_and_a_covered_slot(estate):
    (restart,) = estate.manifest["estate"]["restarts"]
    assert restart == {
        "qmgr": "QA03",
        "interval": 40,
        "stopped_at": "2025-06-02T10:06:00Z",
        "short_interval_seconds": 360.0,
    }
    q = _mart(estate, "fct_queue_stats")
    qa03 = q[q.qmgr_name == "QA03"].drop_duplicates("interval_start_at").sort_values("interval_start_at")
    short = qa03[qa03.interval_seconds == 360]
    assert list(short.interval_end_at.astype("int64") // 10**9) == [_s("2025-06-02T10:06:00Z")]
    after = qa03[qa03.interval_start_at > short.interval_start_at.iloc[0]].interval_start_at.iloc[0]
    assert after == pd.Timestamp("2025-06-02T10:06:00Z")  # counters start again at the restart
    sq = _mart(estate, "fct_shared_queue_qsg_stats")
    slot = sq[(sq.qsg_name == "QSGA") & (sq.slot == _s("2025-06-02T10:00:00Z"))]
    assert (slot.coverage_ratio == 1).all() and (slot.qmgrs_reporting == 3).all()


def test_a_lost_interval_lowers_coverage_instead_of_hiding(estate):
    sq = _mart(estate, "fct_shared_queue_qsg_stats")
    slot = sq[(sq.qsg_name == "QSGB") & (sq.slot == _s("2025-06-02T05:30:00Z"))]
    assert len(slot)
    assert (slot.reporting_qmgr_names == "QB01,QB02").all()  # QB03's 05:30-06:00 was never written
    assert np.allclose(slot.coverage_ratio, 2 / 3)
    assert (slot.qmgrs_active == 2).all() and (slot.qmgrs_expected == 3).all()


def test_members_without_the_counters_are_counted_apart(estate):
    """9.3.0/9.3.1 members report shared queues but have no QQST counters: they are reporting, not
    members with counters, and no QSGB row is complete."""
    qsgs = {g["name"]: g for g in estate.manifest["estate"]["qsgs"]}
    assert qsgs["QSGB"]["members_with_qqst_counters"] == ["QB01"]
    predicted = _predicted_grid(estate.manifest)
    sq = _mart(estate, "fct_shared_queue_qsg_stats")
    for row in sq.itertuples():
        with_counters = set(qsgs[row.qsg_name]["members_with_qqst_counters"])
        assert row.qmgrs_with_counters == len(with_counters & set(predicted[(row.qsg_name, row.slot)]["covered"]))
    qsgb = sq[sq.qsg_name == "QSGB"]
    assert (qsgb.qmgrs_reporting > qsgb.qmgrs_with_counters).any()
    assert not qsgb.is_complete.any()
    assert sq[sq.qsg_name == "QSGA"].is_complete.any()


def _apportioned(truth: pd.DataFrame, key: str, value: pd.Series) -> pd.DataFrame:
    """Independent roll-up: each member row's value spread over the grid slots by overlap (numpy)."""
    start = truth.interval_start.astype("int64").to_numpy() // 10**6
    end = truth.interval_end.astype("int64").to_numpy() // 10**6
    first, last = start // GRID * GRID, (end - 1) // GRID * GRID
    n = ((last - first) // GRID + 1).astype(int)
    rows = np.repeat(np.arange(len(truth)), n)
    slot = first[rows] + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) * GRID
    overlap = np.minimum(end[rows], slot + GRID) - np.maximum(start[rows], slot)
    share = overlap / (end - start)[rows]
    return pd.DataFrame(
        {
            "qsg_name": truth.qsg_name.to_numpy()[rows],
            key: truth[key].to_numpy()[rows],
            "slot": slot,
            "value": value.to_numpy(dtype=float)[rows] * share,
        }
    )


def _float(series: pd.Series) -> pd.Series:
    return series.map(lambda v: np.nan if v is None or pd.isna(v) else float(v))


def test_rollup_sums_equal_an_independent_apportioning_of_the_truth(estate):
    qqst = estate.truth["QQST"]
    shared = qqst[qqst.QQSTDISP.astype(bool)].copy()
    shared["qsg_name"] = shared.QQSTQSGN
    msgs_in = _float(shared.QQSTPUTS) + _float(shared.QQSTPUT1)
    want = _apportioned(shared, "QQSTQNAM", msgs_in).groupby(["qsg_name", "QQSTQNAM", "slot"]).value.sum(min_count=1)
    got = _mart(estate, "fct_shared_queue_qsg_stats").set_index(["qsg_name", "queue_name", "slot"]).msgs_in
    got.index.names = want.index.names
    assert set(got.index) == set(want.index)
    assert np.allclose(got.loc[want.index].astype(float), want, rtol=1e-9, equal_nan=True)
    # Nothing is lost or counted twice: over the day each QSG's shared msgs_in equals its members'.
    assert got.groupby(level=0).sum().to_dict() == pytest.approx(msgs_in.groupby(shared.qsg_name).sum().to_dict())

    qest = estate.truth["QEST"].copy()
    qsg_of = {q["name"]: q["qsg"] for q in estate.manifest["qmgrs"]}
    qest["qsg_name"] = qest.qmgr.map(qsg_of)
    requests = _float(qest.QESTCSEC) + _float(qest.QESTCMEC)
    want = _apportioned(qest, "QESTSTR", requests).groupby(["qsg_name", "QESTSTR", "slot"]).value.sum()
    got = _mart(estate, "fct_cf_structure_stats").set_index(["qsg_name", "structure_name", "slot"]).requests
    got.index.names = want.index.names
    assert set(got.index) == set(want.index)
    assert np.allclose(got.loc[want.index].astype(float), want, rtol=1e-9)


def test_standalone_queue_managers_are_in_no_qsg(estate):
    standalone = estate.manifest["estate"]["standalone"]
    assert standalone == ["QS01", "QS02", "QS03"]
    dim = _mart(estate, "dim_queue_manager").set_index("qmgr_name")
    assert dim.loc[standalone].qsg_name.isna().all()
    assert dim.drop(index=standalone).qsg_name.notna().all()
    summary = _mart(estate, "fct_mp16_daily_summary")
    mine = summary[summary.qmgr_name.isin(standalone)]
    assert set(mine.summary_level) == {"queue_manager"} and mine.qsg_name.isna().all()
    qsg_rows = summary[summary.summary_level == "queue_sharing_group"].set_index("qsg_name")
    assert qsg_rows.queue_managers.to_dict() == {"QSGA": 3, "QSGB": 3}


def test_failures_per_second_leaves_out_polling_and_truncation(estate):
    """QQSTNMAG (no-wait get on an empty queue) and QQSTTMFG (buffer too small) are in QQSTFLGT but
    are not failures of the application (IBM MQ 'Queue data records'): they have their own columns."""
    q = _mart(estate, "fct_queue_stats")
    q = q[q.failed_gets.notna()]
    flgt, nmag, tmfg = (_float(q[c]) for c in ("failed_gets", "gets_no_msg_available", "gets_truncated_failed"))
    real = _float(q.failed_puts) + _float(q.failed_put1s) + flgt - nmag - tmfg
    assert np.allclose(q.failures_per_second, real / q.interval_seconds)
    assert np.allclose(q.gets_no_msg_available_per_second, nmag / q.interval_seconds)
    assert (nmag > 0).any() and (q.failures_per_second < (flgt / q.interval_seconds)).any()
    assert (_float(q.hard_failed_gets) == flgt - nmag - tmfg).all()
