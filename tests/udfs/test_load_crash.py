"""A load killed with SIGKILL anywhere, then run again, leaves exactly what one clean load leaves.

A generated day (with file damage, so quarantine has rows) is loaded cleanly in this process (the
reference). Real ``mqsmf load`` processes, in their own warehouse, are killed with their Spark JVM
(SIGKILL to the process group) at chosen steps, through the loader's test hook
``MQSMF_TEST_KILL_AFTER_STEP``, or after a delay; a last load then runs to the end. Its warehouse
must hold the reference's rows in every raw table (none twice, none missing), an empty stage, and
an audit whose every load reads like the reference's: loads killed before their commit left none,
a load killed while publishing was completed by the next one, which adds its own audit of the same
file (every load is audited).

Kill points are the loader's step labels and, inside the data source's workers, the points
``mqsmf.spark.staging`` names (``stage <schema>.<table>``: that table staged; ``move
<schema>.<table>``: its files moved into place while publishing).

Default run: one load killed while publishing (after its commit, some tables' files moved, no
partition registered yet), then a rerun, on a small generated day; and, in this process, a load
whose staging of one table fails, then a load that succeeds. ``extended``: a load killed while
staging then one killed while publishing, every other phase boundary, and kills after a delay.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqsmf import warehouse
from mqsmf.spark import load, plan, staging

from .warehouse_digest import digest

pytestmark = pytest.mark.spark
HERE = Path(__file__).resolve().parent
PROJECT_DIR = HERE.parents[1]
RAW = "smf_raw"
CLEAN_RAW = "test_crash_clean"
FAILING_RAW = "test_crash_failing"


@pytest.fixture(scope="module")
def day(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("crash") / "day.dat"
    from mqsmf.cli import main

    # Small: every structure the generator writes still has rows (a load's statements are per table).
    args = ["generate", "--out", str(out), "--seed", "16", "--qmgrs", "1", "--queues", "3", "--intervals", "2"]
    assert main([*args, "--corrupt", "bitflip"]) == 0
    return str(out)


@pytest.fixture(scope="module")
def clean(spark, day) -> dict:
    load.load_files(spark, [day], raw_schema=CLEAN_RAW)
    expected = digest(spark, CLEAN_RAW)
    assert expected["tables"]["qqst"][0] > 0 and expected["tables"]["smf_quarantine"][0] > 0
    return expected


def _env(work: Path, kill_after: str | None = None) -> dict:
    env = {**os.environ, "MQSMF_WAREHOUSE_DIR": str(work / "warehouse"), "MQSMF_SPOOL_DIR": str(work / "spool")}
    env["MQSMF_PROJECT_DIR"] = str(PROJECT_DIR)
    env.pop(plan.KILL_AFTER_ENV, None)
    if kill_after:
        env[plan.KILL_AFTER_ENV] = kill_after
    return env


def _mqsmf_load(day: str) -> list[str]:
    return [sys.executable, "-m", "mqsmf.cli", "load", day, "--no-progress"]


def killed_at_step(work: Path, day: str, step: str) -> None:
    """A real ``mqsmf load`` that SIGKILLs itself (and its JVM) right after ``step``."""
    proc = subprocess.run(
        _mqsmf_load(day), env=_env(work, step), start_new_session=True, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == -signal.SIGKILL, (step, proc.returncode, proc.stderr[-3000:])


def killed_after_delay(work: Path, day: str, seconds: float) -> None:
    """A real ``mqsmf load`` killed ``seconds`` after it started decoding (its spool appeared)."""
    proc = subprocess.Popen(
        _mqsmf_load(day), env=_env(work), start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    spool = work / "spool"
    deadline = time.monotonic() + 900
    while proc.poll() is None and not list(spool.glob("load-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(seconds)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def finished(work: Path, day: str) -> dict:
    """Load to the end in the same warehouse; what it then holds."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "warehouse_digest.py"), RAW, day],
        env=_env(work),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("DIGEST ")]
    return json.loads(line.removeprefix("DIGEST "))


def assert_one_clean_load(got: dict, clean: dict, committed_loads: int) -> None:
    assert got["tables"] == clean["tables"] | {
        # audit and load dates: one set of rows per committed load (checked per load below)
        t: got["tables"][t]
        for t in (warehouse.AUDIT_TABLE, warehouse.LOAD_DATES_TABLE)
    }
    assert got["staged"] == [], got["staged"]  # no load folder left
    (reference,) = clean["audit_per_load"]
    assert got["audit_per_load"] == [reference] * committed_loads
    assert got["rows_added"] == clean["rows_added"]  # each row counted as added once, by one load


def test_killed_while_publishing_then_rerun_equals_one_clean_load(tmp_path, day, clean):
    killed_at_step(tmp_path, day, f"move {RAW}.qpst")  # after the commit: some tables' files moved
    got = finished(tmp_path, day)  # completes the killed load's publication, then loads again
    assert_one_clean_load(got, clean, committed_loads=2)


def test_a_failing_staging_task_commits_nothing_and_the_next_load_is_clean(spark, day, clean):
    """Staging one table fails (a file in its partition folder is not parquet) while other tables
    stage: the load fails in its staging step, naming the file; nothing is committed and the raw
    tables are untouched, the load's folder left behind uncommitted; once the file is gone,
    the next load deletes that folder and leaves exactly what one clean load leaves."""
    load.run_steps(spark, plan.ensure_tables_plan(FAILING_RAW))
    empty = digest(spark, FAILING_RAW)
    (when,) = {r[0] for r in spark.sql(f"SELECT DISTINCT interval_date FROM {CLEAN_RAW}.qpst").collect()}
    area = staging.Area(spark.conf.get("spark.sql.warehouse.dir"), FAILING_RAW)
    bad = area.db / area.partition("qpst", when.isoformat()) / "part-not-parquet.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(Exception) as failed:
        load.load_files(spark, [day], raw_schema=FAILING_RAW)
    assert "in step 'stage'" in "\n".join(getattr(failed.value, "__notes__", []))
    assert str(bad) in str(failed.value)
    got = digest(spark, FAILING_RAW)
    assert got["tables"] == empty["tables"] and got["audit_per_load"] == []
    (dead,) = got["staged"]
    assert not (area.load_dir(dead) / staging.COMMITTED).exists()  # its staged files are never published
    bad.unlink()
    load.load_files(spark, [day], raw_schema=FAILING_RAW)
    assert_one_clean_load(digest(spark, FAILING_RAW), clean, committed_loads=1)


@pytest.mark.extended
@pytest.mark.slow
def test_killed_while_staging_then_while_publishing_then_rerun_equals_one_clean_load(tmp_path, day, clean):
    killed_at_step(tmp_path, day, f"stage {RAW}.qpst")  # before the commit: nothing published
    killed_at_step(tmp_path, day, f"publish {RAW}.qpst")  # after it: some tables' partitions registered
    got = finished(tmp_path, day)  # completes the second load's publication, then loads again
    assert_one_clean_load(got, clean, committed_loads=2)


@pytest.mark.extended
@pytest.mark.slow
@pytest.mark.parametrize(
    "step, committed",
    [
        ("recover", 0),
        ("decode files", 0),
        (f"stage {RAW}.qqst", 0),
        ("stage", 0),
        ("commit", 1),
        ("publish", 1),
        (f"publish {RAW}.qqst", 1),
        (plan.REVEAL_LABEL, 1),  # killed with the load's audit half moved: the rerun reveals the rest
        (f"move {RAW}.{warehouse.AUDIT_TABLE}", 1),
        (f"publish {RAW}.{warehouse.AUDIT_TABLE}", 1),
        (plan.FINISH_LABEL, 1),
    ],
)
def test_killed_at_each_phase_then_rerun_equals_one_clean_load(tmp_path, day, clean, step, committed):
    killed_at_step(tmp_path, day, step)
    assert_one_clean_load(finished(tmp_path, day), clean, committed_loads=committed + 1)


@pytest.mark.extended
@pytest.mark.slow
@pytest.mark.parametrize("seconds", [0.5, 3.0, 8.0])
def test_killed_after_a_delay_then_rerun_equals_one_clean_load(tmp_path, day, clean, seconds):
    killed_after_delay(tmp_path, day, seconds)
    got = finished(tmp_path, day)
    # Whether the killed load had committed depends on when it died: one or two audited loads.
    assert len(got["audit_per_load"]) in (1, 2)
    assert_one_clean_load(got, clean, committed_loads=len(got["audit_per_load"]))


def digest_of(work: Path) -> dict:
    """What the warehouse in ``work`` holds (read in another process: Derby admits one at a time)."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "warehouse_digest.py"), RAW], env=_env(work), capture_output=True, text=True,
        timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("DIGEST ")]
    return json.loads(line.removeprefix("DIGEST "))


def test_two_loads_at_once_into_one_warehouse_leave_one_clean_load(tmp_path, day, clean):
    """Two `mqsmf load` processes started together: the second waits for the first's load lock
    (before it opens the embedded metastore), then finds every row present; the warehouse holds
    exactly one clean load's rows, and both loads are audited."""
    procs = [
        subprocess.Popen(
            _mqsmf_load(day), env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=900) for p in procs]
    # 1: the day's damaged spans are quarantined (by each load; kept once)
    assert [p.returncode for p in procs] == [1, 1], [o[1][-2000:] for o in outs]
    assert sum("mqsmf load: waiting for load" in err for _, err in outs) == 1
    assert_one_clean_load(digest_of(tmp_path), clean, committed_loads=2)


def test_a_load_that_cannot_get_the_lock_exits_2_naming_the_running_load(tmp_path, day):
    from mqsmf import load_lock
    from mqsmf.spark.session import load_lock_path

    env = _env(tmp_path)
    os.environ["MQSMF_WAREHOUSE_DIR"], saved = env["MQSMF_WAREHOUSE_DIR"], os.environ.get("MQSMF_WAREHOUSE_DIR")
    try:
        lock = load_lock_path(PROJECT_DIR)
    finally:
        os.environ.pop("MQSMF_WAREHOUSE_DIR") if saved is None else os.environ.update(MQSMF_WAREHOUSE_DIR=saved)
    assert str(lock).startswith(env["MQSMF_WAREHOUSE_DIR"])
    with load_lock.holding(lock, "the-running-load", wait=0):
        started = time.monotonic()
        proc = subprocess.run([*_mqsmf_load(day), "--wait", "1"], env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert "another load is running into this warehouse: load the-running-load" in proc.stderr
        assert "Error" not in proc.stderr and time.monotonic() - started < 60  # no JVM was started
        assert not (tmp_path / "warehouse" / "metastore_db").exists()
