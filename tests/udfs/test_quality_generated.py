"""The gate on generated SMF dumps, end to end: generate -> load (mqsmf.spark.load) -> mqsmf check.

A clean queue-sharing-group scenario (every QQST generation, partial records included) passes every
raw check. The same scenario with every ``--violate`` the generator supports, each planted on its
own queue manager, object and interval, fails the gate, and each violation shows up under exactly
the checks that test its invariant, on exactly the rows its manifest names (queue manager, object,
interval start, and the record offsets it wrote), with nothing listed anywhere else. Since each
violation's rows are the only rows of its checks and those checks are errors, each violation on
its own would fail the gate.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from mqsmf.generate import SUPPORTED_CHECKS, ScenarioConfig, Target, generate_scenario, write_scenario
from mqsmf.quality.checks import RAW, catalogue

pytestmark = pytest.mark.spark

SCENARIO = dict(seed=11, qmgrs=4, lpars=2, queues=20, intervals=6, versions=("9.4.3", "10.0.0", "9.3.3", "9.3.0"))
# Interval-wide violations get their own queue managers, so one does not hide another.
PLACED = {"interval_gap": "@QM04#2", "interval_overlap": "@QM02#3", "duplicate_record": "@QM03#1"}
# Generator invariant -> the gate's checks that must name its rows (and no other).
CHECKS_OF = {
    # Either subset above FLGT puts their sum above it too.
    "nmag_gt_flgt": {"qqst_nmag_within_flgt", "qqst_get_failures_within_flgt"},
    "tmfg_gt_flgt": {"qqst_tmfg_within_flgt", "qqst_get_failures_within_flgt"},
    "get_failures_gt_flgt": {"qqst_get_failures_within_flgt"},
    "browse_failures_gt_flbr": {"qqst_browse_failures_within_flbr"},
    "handles_outside_watermarks": {"qqst_input_handle_watermarks"},
    "put_bytes_above_max_size": {"qqst_put_bytes_within_message_sizes"},
    "put_bytes_without_puts": {"qqst_put_bytes_need_puts"},
    "get_bytes_without_gets": {"qqst_get_bytes_need_gets"},
    "browse_bytes_without_browses": {"qqst_browse_bytes_need_browses"},
    "last_put_after_record": {"qqst_last_put_get_not_after_record"},
    "negative_depth": {"qqst_depth_not_negative"},
    "cf_structure_mismatch": {"qqst_shared_queue_one_cf_structure"},
    # A private queue's partial record zeroes only the age: its depth is still checked.
    "partial_private_depth_above_high": {"qqst_depth_below_high_watermark"},
    "partial_nonzero_depth": {"qqst_partial_shared_depth_zero"},
    "partial_nonzero_age": {"qqst_partial_shared_age_zero"},
    "puts_split": {"qqst_puts_split"},
    "put1_split": {"qqst_put1_split"},
    "gets_split": {"qqst_gets_split"},
    "put_bytes_split": {"qqst_put_bytes_split"},
    # DPLO above DPHI also puts DPLO above the current depth.
    "dplo_gt_dphi": {"qqst_depth_watermarks", "qqst_depth_above_low_watermark"},
    "depth_outside_watermarks": {"qqst_depth_below_high_watermark"},
    # MSMI raised above MSMA and MSMA lowered below MSMI: both sides of the average break.
    # ... and the bytes put fall below messages x minimum size.
    "msg_size_order": {"qqst_message_size_min_avg", "qqst_message_size_avg_max", "qqst_put_bytes_within_message_sizes"},
    # QPSTCBSL raised above QPSTNBUF, so above the current stealable count QPSTCBS <= QPSTNBUF.
    "pool_free_gt_buffers": {"qpst_lowest_stealable_within_current"},
    "pageset_unused_gt_total": {"qis1_unused_within_total"},
    "interval_gap": {"interval_gap"},
    "interval_overlap": {"interval_overlap"},
    "duplicate_record": {"duplicate_record_in_input"},
    # Known data pitfalls: valid data, named by a warning.
    "qpst_stealable_never_set": {"pitfall_qpst_lowest_stealable_never_set"},
    "dns_longest_request_carried_over": {"pitfall_qct_dns_longest_request_carried_over"},
}
# Statistics record kinds a generated queue manager writes every interval.
SUBTYPES = ("115/1", "115/2", "115/201", "115/215", "115/216", "115/231")


def test_every_generator_violation_is_mapped_to_gate_checks():
    assert set(CHECKS_OF) == set(SUPPORTED_CHECKS)
    names = {c.name for c in catalogue().for_stage(RAW).checks}
    assert set().union(*CHECKS_OF.values()) <= names


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _load(spark, path: str, schema: str) -> None:
    from mqsmf.spark.load import load_files

    spark.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
    summary = load_files(spark, [path], raw_schema=schema)
    assert summary.records_quarantined == 0


@pytest.fixture(scope="module")
def generated(spark, tmp_path_factory):
    from mqsmf.quality.gate import run_gate

    folder = tmp_path_factory.mktemp("generated")
    clean = write_scenario(generate_scenario(ScenarioConfig(**SCENARIO)), str(folder / "clean.dat"))
    # Whole-interval violations first: they claim their queue manager intervals before queues do.
    order = sorted(SUPPORTED_CHECKS, key=lambda check: check not in PLACED)
    targets = tuple(Target.parse(check + PLACED.get(check, "")) for check in order)
    bad = write_scenario(generate_scenario(ScenarioConfig(**SCENARIO, violate=targets)), str(folder / "bad.dat"))
    _load(spark, str(folder / "clean.dat"), "dq_gen_clean")
    _load(spark, str(folder / "bad.dat"), "dq_gen_bad")
    kw = dict(quality_schema="dq_gen_quality", docs_dir=folder / "docs", sample_rows=0)
    return {
        "clean": (clean, run_gate(spark, RAW, schemas={RAW: "dq_gen_clean"}, **kw)),
        "bad": (bad, run_gate(spark, RAW, schemas={RAW: "dq_gen_bad"}, **kw)),
        "path": str(folder / "bad.dat"),
    }


def test_the_clean_scenario_passes_every_check(generated):
    manifest, result = generated["clean"]
    assert manifest["partial_records"], "the clean scenario should contain (valid) partial records"
    assert result.passed and not result.skipped_frames
    assert [o.check.name for o in result.outcomes if o.status != "passed"] == []


def _listed(spark, run_id: str) -> dict[str, set]:
    rows = spark.sql(
        "SELECT check_name, qmgr_name, object_name, unix_micros(interval_start_at) AS start_us, record_offset, "
        f"`values` FROM dq_gen_quality.dq_violations WHERE stage = 'raw' AND run_id = '{run_id}'"
    ).collect()
    out: dict[str, set] = {}
    for r in rows:
        start = datetime.fromtimestamp(0, UTC) + timedelta(microseconds=r.start_us)
        values = json.loads(r["values"])
        offset = r.record_offset if r.record_offset is not None else values.get("record_offset")
        out.setdefault(r.check_name, set()).add((r.qmgr_name, r.object_name, start, offset))
    return out


def _expected(v: dict, interval_seconds: int) -> set:
    """The rows (qmgr, object, interval start, record offset) a violation must be listed with."""
    qmgr, start = v["qmgr"], _iso(v["interval_start"])
    if v["check"] == "interval_gap":  # reported on the interval after the missing one, per record kind
        return {(qmgr, s, start + timedelta(seconds=interval_seconds), None) for s in SUBTYPES}
    if v["check"] == "interval_overlap":
        return {(qmgr, s, _iso(v["written_interval_start"]), None) for s in SUBTYPES}
    if v["check"] == "duplicate_record":  # the second copy is the one without rows
        return {(qmgr, "QPST", start, v["record_offsets"][1])}
    (offset,) = v["record_offsets"]
    return {(qmgr, v["object_name"], start, offset)}


def test_each_violation_fails_exactly_its_checks_on_exactly_its_rows(spark, generated):
    manifest, result = generated["bad"]
    assert not result.passed and result.exit_code == 1
    planted = {v["check"]: v for v in manifest["violations"]}
    assert set(planted) == set(SUPPORTED_CHECKS)
    assert {o.check.name for o in result.failed()} == set().union(*CHECKS_OF.values())
    listed = _listed(spark, result.run_id)
    seconds = manifest["config"]["interval_seconds"]
    expected: dict[str, set] = {}
    for check, v in planted.items():
        for name in CHECKS_OF[check]:
            expected.setdefault(name, set()).update(_expected(v, seconds))
    for name, rows in expected.items():
        assert listed[name] == rows, name
    for o in result.failed():
        assert o.gx_unexpected == o.violations, o.check.name


def test_a_dropped_duplicate_names_the_copy_that_was_kept(spark, generated):
    manifest, result = generated["bad"]
    (v,) = [v for v in manifest["violations"] if v["check"] == "duplicate_record"]
    (row,) = spark.sql(
        "SELECT `values` FROM dq_gen_quality.dq_violations WHERE check_name = 'duplicate_record_in_input' "
        f"AND run_id = '{result.run_id}'"
    ).collect()
    values = json.loads(row["values"])
    kept, dropped = v["record_offsets"]
    assert values["record_offset"] == dropped and values["smf_subtype"] == 215 and values["structures"] == "QPST"
    assert values["duplicate_of"] == f"{generated['path']} @ {kept}"
