"""A site of standalone queue managers only (no queue-sharing group: qsg_name NULL everywhere) builds
green: every model and every dbt test of the project, and the QSG-grain marts are empty rather
than holding rows of a NULL or placeholder QSG. One module-scoped build."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from mqsmf.generate import ScenarioConfig, generate_scenario, write_scenario

from .dbt_results import failures

pytestmark = pytest.mark.spark

TARGET_SCHEMA = "dbt_standalone_test"
RAW_SCHEMA = "dbt_standalone_raw"
MARTS = f"{TARGET_SCHEMA}_marts"
# Two standalone queue managers (MQ 9.3.0 without and 10.0 with the QWHX header), four intervals.
DAY = dict(seed=3, qmgrs=2, lpars=2, queues=20, intervals=4, qsg="", versions=("9.3.0", "10.0.0"))


@pytest.fixture(scope="module")
def built(spark, dbt, tmp_path_factory):
    work = tmp_path_factory.mktemp("dbt_standalone")
    day = work / "standalone_day.dat"
    manifest = write_scenario(generate_scenario(ScenarioConfig(**DAY)), str(day))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
        result = dbt(
            "build", "--threads", "4", "--vars", json.dumps({"smf_paths": [str(day)], "raw_schema": RAW_SCHEMA})
        )
    return SimpleNamespace(result=result, manifest=manifest)


def test_the_generated_day_has_no_qsg(built):
    assert built.manifest["estate"]["qsgs"] == []
    assert built.manifest["estate"]["standalone"] == ["QM01", "QM02"]
    assert built.manifest["counts"]["instances"].get("QEST", 0) == 0


def test_dbt_build_passes_on_standalone_queue_managers_only(built):
    failed = failures(built.result)
    assert not failed
    assert built.result.success
    ran = {r.node.unique_id.split(".")[0] for r in built.result.result}
    assert {"model", "test"} <= ran


def test_standalone_queue_managers_stay_outside_any_qsg(spark, built):
    dim = spark.table(f"{MARTS}.dim_queue_manager").toPandas()
    assert sorted(dim.qmgr_name) == ["QM01", "QM02"]
    assert dim.qsg_name.isna().all()
    for mart in ("fct_shared_queue_qsg_stats", "fct_cf_structure_stats"):
        assert spark.table(f"{MARTS}.{mart}").count() == 0, mart
    summary = spark.table(f"{MARTS}.fct_mp16_daily_summary").toPandas()
    assert set(summary.summary_level) == {"queue_manager"}
    assert summary.qsg_name.isna().all()
    assert sorted(summary.qmgr_name) == ["QM01", "QM02"]
