"""Spark's log stays out of the terminal: ``dbt`` run as the README writes it (``--profiles-dir
profiles``, its own JVM) prints no Spark WARN/INFO line and no start-up banner; with
``MQSMF_SPARK_LOG_LEVEL=warn`` the same command shows Spark's warnings (the level reaches the JVM)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .spark_log import spark_noise

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]


def dbt_seed(tmp_path: Path, **env: str):
    """``dbt seed`` of one small seed into a warehouse of its own (every node opens the session)."""
    dbt = str(Path(sys.executable).with_name("dbt"))
    work = {"MQSMF_WAREHOUSE_DIR": str(tmp_path / "warehouse"), "MQSMF_PROJECT_DIR": str(ROOT)}
    done = subprocess.run(
        [dbt, "seed", "--profiles-dir", "profiles", "--select", "site_config_systems", "mp16_rules"]
        + ["--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "MQSMF_SPARK_LOG_LEVEL"} | work | env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout + done.stderr


def test_dbt_prints_no_spark_log_by_default_and_warnings_when_asked(tmp_path):
    quiet = dbt_seed(tmp_path / "quiet")
    assert not spark_noise(quiet)
    assert "OK loaded seed file" in quiet
    # dbt-spark opens the session again for each node: Spark warns about that at level warn.
    verbose = dbt_seed(tmp_path / "verbose", MQSMF_SPARK_LOG_LEVEL="warn")
    assert "WARN SparkSession: Using an existing Spark session" in verbose
