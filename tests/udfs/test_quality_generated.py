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
from mqsmf.invariants import VIOLATIONS
from mqsmf.quality.checks import RAW, catalogue

pytestmark = pytest.mark.spark

SCENARIO = dict(seed=11, qmgrs=4, lpars=2, queues=20, intervals=6, versions=("9.4.3", "10.0.0", "9.3.3", "9.3.0"))
# Interval-wide violations get their own queue managers, so one does not hide another.
PLACED = {"interval_gap": "@QM04#2", "interval_overlap": "@QM02#3", "duplicate_record": "@QM03#1"}
# Generator invariant -> the gate's checks that must name its rows (and no other): mqsmf.invariants,
# the one declaration the generator, the gate's catalogue and this test read.
CHECKS_OF = {violation: set(v.breaks) for violation, v in VIOLATIONS.items()}
# Statistics record kinds a generated queue manager writes every interval.
SUBTYPES = ("115/1", "115/2", "115/201", "115/215", "115/216", "115/231")


def test_every_generator_violation_is_mapped_to_gate_checks():
    assert tuple(VIOLATIONS) == SUPPORTED_CHECKS
    checks = catalogue().for_stage(RAW).checks
    assert set().union(*CHECKS_OF.values()) <= {c.name for c in checks}
    # The catalogue names, per check, the violations that must break it: the same declaration read back.
    planted = {c.name: set(c.planted_by) for c in checks if c.planted_by}
    assert planted == {name: {v for v, names in CHECKS_OF.items() if name in names} for name in planted}
    assert set(planted) == set().union(*CHECKS_OF.values())


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
