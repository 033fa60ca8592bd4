"""Fixtures of the Spark suites that read a built warehouse.

``pathology_day``: one generated QSG day (three queue managers, MP16 pathologies injected on pools,
logs, a CF structure and queues, a known data pitfall planted on QM03) loaded and built by ``dbt build``
(seeds and models) once per test session, with the data-quality gate's raw stage run on it. The report
tests and the dbt documentation tests read it; building it once keeps their Spark time to one build.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from .dbt_results import failures

TARGET_SCHEMA = "report_test"
MARTS = f"{TARGET_SCHEMA}_marts"
RAW = "report_raw"
QUALITY = "report_quality"
INJECT = ("BP01@QM02:1#1", "BP04@QM01:1#3", "LOG01@QM02#2", "CF01@QM03:APPL1#4", "Q03@QM01#5", "Q04@QM02#6")
DAY = dict(seed=11, qmgrs=3, lpars=2, queues=12, intervals=8, versions=("9.3.3", "9.4.3", "10.0.0"))
# A known data pitfall (seeds/data_pitfalls.csv) for the report's data-quality section: the DNS task's
# longest request carried over from the interval before (APAR PH69352), twice on QM03. Valid data
# (sub-second requests, no advisory); the gate's pitfall warning lists the two rows.
PITFALLS = ("dns_longest_request_carried_over@QM03#2", "dns_longest_request_carried_over@QM03#5")
GATE_CHECKS = (
    "structure_eyecatcher",
    "interval_length_plausible",
    "duplicate_record",
    "pitfall_qct_dns_longest_request_carried_over",
)


@pytest.fixture(scope="session")
def pathology_day(spark, dbt, tmp_path_factory):
    from mqsmf.generate import ScenarioConfig, Target, buffer_pool_roles, generate_scenario, write_scenario
    from mqsmf.quality.gate import run_gate

    work = tmp_path_factory.mktemp("pathology_day")
    day = work / "pathology_day.dat"
    config = ScenarioConfig(
        **DAY, inject=tuple(Target.parse(t) for t in INJECT), violate=tuple(Target.parse(t) for t in PITFALLS)
    )
    manifest = write_scenario(generate_scenario(config, keep_truth=False), str(day))
    dbt_vars = {"smf_paths": [str(day)], "raw_schema": RAW, "mp16_buffer_pool_roles": buffer_pool_roles(manifest)}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
        # Seeds and models only: the project's dbt tests run in the builds of test_dbt_models,
        # test_estate, test_dbt_standalone and test_mp16_advisories; the report and the docs need data.
        result = dbt("build", "--threads", "4", "--exclude-resource-type", "test", "--vars", json.dumps(dbt_vars))
    assert result.success, failures(result)
    gate = run_gate(spark, "raw", schemas={"raw": RAW}, quality_schema=QUALITY, docs_dir=None, checks=GATE_CHECKS)
    return SimpleNamespace(work=work, day=day, manifest=manifest, gate=gate, result=result)
