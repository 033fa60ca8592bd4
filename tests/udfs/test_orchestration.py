"""The Dagster example (mqsmf.orchestration.dagster_example) on a generated day, in this process:
the load asset, the dbt models (dagster-dbt) and the gate's asset checks, materialized by the
``mqsmf_daily`` job. Every step is its own process with its own warehouse (a temporary folder), so
this does not touch the session's Spark. Expectations come from the generator's manifest."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

dg = pytest.importorskip("dagster")
pytest.importorskip("dagster_dbt")

from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario  # noqa: E402
from mqsmf.orchestration import dagster_example as example  # noqa: E402
from mqsmf.quality.checks import catalogue  # noqa: E402
from mqsmf.warehouse import raw_tables  # noqa: E402

PROJECT_DIR = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dbt_target(tmp_path_factory):
    return tmp_path_factory.mktemp("dagster-dbt")


@pytest.fixture(scope="module")
def definitions(dbt_target):
    return example.build_definitions(PROJECT_DIR, target_path=dbt_target)


def test_the_schedules_load_yesterday_daily_and_the_last_hour_hourly(definitions, monkeypatch):
    monkeypatch.setenv("MQSMF_SMF_LANDING", "/landing/smf/")
    when = datetime(2026, 3, 1, 1, 30, tzinfo=UTC)
    for name, folder in (
        ("mqsmf_daily_schedule", "/landing/smf/2026-02-28/"),
        ("mqsmf_hourly_schedule", "/landing/smf/2026-03-01/00/"),
    ):
        schedule = definitions.resolve_schedule_def(name)
        with dg.build_schedule_context(scheduled_execution_time=when) as context:
            (request,) = schedule.evaluate_tick(context).run_requests
        assert request.run_config["ops"]["smf_raw"]["config"]["paths"] == [folder], name
    hourly = definitions.resolve_job_def("mqsmf_hourly_load")
    # the hourly job is the load alone: every raw table (SMF and PCF sources), nothing else
    assert set(hourly.asset_layer.executable_asset_keys) == {example.raw_key(t) for t in raw_tables()}
    # ... with the gate's raw-stage checks (and no marts check: the hourly job builds no marts)
    cat = catalogue()
    raw_checks = {c.name for c in cat.checks if cat.frames[c.frame].stage == "raw"}
    hourly_checks = {k.name for k in hourly.asset_layer.asset_graph.asset_check_keys}
    assert raw_checks <= hourly_checks
    assert not ({c.name for c in cat.checks} - raw_checks) & hourly_checks


@pytest.mark.slow
@pytest.mark.spark
def test_the_daily_job_loads_once_builds_and_gates_a_generated_day(definitions, dbt_target, tmp_path, monkeypatch):
    day = tmp_path / "day.dat"
    config = ScenarioConfig(seed=11, qmgrs=2, lpars=2, queues=8, intervals=3)
    manifest = write_scenario(plan_scenario(config), str(day))
    monkeypatch.setenv("MQSMF_WAREHOUSE_DIR", str(tmp_path / "warehouse"))
    monkeypatch.setenv("MQSMF_SPOOL_DIR", str(tmp_path / "spool"))
    monkeypatch.setenv("MQSMF_DRIVER_MEMORY", "1g")

    job = definitions.resolve_job_def("mqsmf_daily")
    run_config = dg.RunConfig(ops={"smf_raw": example.SmfLoadConfig(paths=[str(day)])})
    result = job.execute_in_process(run_config=run_config, raise_on_error=False)
    failures = [e.message for e in result.all_events if e.is_failure]
    assert result.success, failures

    # The load ran once, as one step, and inserted what the generator wrote.
    loads = [e for e in result.all_events if e.is_step_success and e.step_key == "smf_raw"]
    assert len(loads) == 1
    materialized = {
        e.event_specific_data.materialization.asset_key: e.event_specific_data.materialization.metadata
        for e in result.all_events
        if e.event_type_value == "ASSET_MATERIALIZATION"
    }
    qqst = materialized[example.raw_key("qqst")]
    assert qqst["rows_inserted"].value == manifest["counts"]["instances"]["QQST"]
    audit = materialized[example.AUDIT_KEY]
    assert audit["files"].value == 1 and audit["records_quarantined"].value == 0
    # ... and dbt did not load again: its build ran without smf_paths, so the hook was a no-op.
    (build,) = [
        r
        for r in (json.loads(p.read_text()) for p in dbt_target.glob("**/run_results.json"))
        if r["args"]["which"] == "build"
    ]
    assert "smf_paths" not in (build["args"].get("vars") or {})
    assert all(r["status"] in ("success", "pass", "no-op") for r in build["results"])
    marts = [k for k in materialized if k.path[0] == "marts"]
    assert {"fct_queue_stats", "fct_mp16_advisories"} <= {k.path[-1] for k in marts}

    # Every gate check is an asset check that ran and passed on this clean day; dbt's tests too.
    evaluations = {
        (e.asset_key.to_user_string(), e.check_name): e
        for e in (ev.event_specific_data for ev in result.all_events if ev.event_type_value == "ASSET_CHECK_EVALUATION")
    }
    gate = {c.name for c in catalogue().checks}
    gate_done = {name: e for (_, name), e in evaluations.items() if name in gate}
    assert set(gate_done) == gate
    assert [n for n, e in gate_done.items() if not e.passed] == []
    assert all(e.metadata["status"].value in ("passed", "skipped") for e in gate_done.values())
    assert sum(1 for e in gate_done.values() if e.metadata["status"].value == "passed") > len(gate) // 2
    dbt_tests = [e for (_, name), e in evaluations.items() if name not in gate]
    assert dbt_tests and all(e.passed for e in dbt_tests)
    quarantine = evaluations[("smf_raw/smf_quarantine", "quarantined_span")]
    assert quarantine.metadata["violations"].value == 0
    # The gate's results reach Dagster as plain data (a UI, a sensor or an alert can read them as JSON).
    plain = {name: {key: value.value for key, value in e.metadata.items()} for name, e in gate_done.items()}
    assert json.loads(json.dumps(plain)) == plain
