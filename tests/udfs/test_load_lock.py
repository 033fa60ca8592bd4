"""One load at a time per warehouse (``mqsmf.load_lock``): a second load waits, then fails naming
the running one; a dead load's lock is taken over; a SQL plan's lock lapses with its lease; a load
nested in a run (``mqsmf run`` -> ``load_files``) does not wait for itself."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqsmf import load_lock
from mqsmf.load_lock import LoadBusy

HOLD = """
import sys, time
from pathlib import Path
from mqsmf import load_lock
load_lock.acquire(Path(sys.argv[1]), sys.argv[2], wait=0)
print("held", flush=True)
time.sleep(float(sys.argv[3]))
"""


def holder(lock: Path, load_id: str, seconds: float) -> subprocess.Popen:
    """Another process holding the lock for ``seconds`` (then exiting without releasing it)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), load_id, str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_load_waits_then_fails_naming_the_running_one(tmp_path):
    lock = load_lock.lock_path(tmp_path, "smf_raw")
    proc = holder(lock, "load-one", 30)
    try:
        said: list[str] = []
        started = time.monotonic()
        with pytest.raises(LoadBusy) as e:
            load_lock.acquire(lock, "load-two", wait=1.0, say=said.append)
        assert 1.0 <= time.monotonic() - started < 10
        assert "load load-one" in str(e.value) and f"process {proc.pid}" in str(e.value) and str(lock) in str(e.value)
        assert said and "waiting for load load-one" in said[0]
        assert load_lock.read_owner(lock).load_id == "load-one"  # untouched
    finally:
        proc.kill()
        proc.wait()


def test_the_lock_of_a_load_that_died_is_taken_over(tmp_path):
    lock = load_lock.lock_path(tmp_path, "smf_raw")
    proc = holder(lock, "killed-load", 60)
    proc.kill()  # SIGKILL: no release
    proc.wait()
    said: list[str] = []
    assert load_lock.acquire(lock, "next-load", wait=0, say=said.append)
    assert load_lock.read_owner(lock).load_id == "next-load"
    assert said == [f"mqsmf load: taking over the load lock {lock}: process {proc.pid} no longer runs"]
    load_lock.release(lock, "next-load")
    assert not lock.exists()


def test_a_sql_plans_lock_lapses_when_the_plan_stops_advancing(tmp_path, monkeypatch):
    lock = load_lock.lock_path(tmp_path, "smf_raw")
    # The owner: this (live) process standing for a Spark JVM whose dbt run stopped mid-plan.
    assert load_lock.acquire(lock, "dbt-run", kind=load_lock.SQL_PLAN, pid=os.getpid())
    monkeypatch.setenv(load_lock.LEASE_ENV, "60")
    with pytest.raises(LoadBusy):
        load_lock.acquire(lock, "other", kind=load_lock.SQL_PLAN, pid=os.getpid(), wait=0)
    old = time.time() - 120
    os.utime(lock / load_lock.OWNER_FILE, (old, old))
    load_lock.renew(lock, "someone-else")  # only the owning load renews
    assert "has not advanced" in (load_lock.stale_reason(lock, load_lock.read_owner(lock)) or "")
    load_lock.renew(lock, "dbt-run")
    assert load_lock.stale_reason(lock, load_lock.read_owner(lock)) is None
    os.utime(lock / load_lock.OWNER_FILE, (old, old))
    assert load_lock.acquire(lock, "other", kind=load_lock.SQL_PLAN, pid=os.getpid(), wait=0)
    load_lock.release(lock, "dbt-run")  # not its lock any more: nothing happens
    assert load_lock.read_owner(lock).load_id == "other"
    load_lock.release(lock, "other")
    assert not lock.exists()


def test_a_lock_folder_without_an_owner_is_busy_then_stale(tmp_path):
    lock = load_lock.lock_path(tmp_path, "smf_raw")
    lock.mkdir(parents=True)  # a maker between its mkdir and its owner file
    with pytest.raises(LoadBusy, match="a load starting"):
        load_lock.acquire(lock, "mine", wait=0)
    old = time.time() - load_lock.UNNAMED_GRACE_SECONDS - 5
    os.utime(lock, (old, old))
    assert load_lock.acquire(lock, "mine", wait=0)
    load_lock.release(lock, "mine")


def test_a_load_inside_a_run_does_not_wait_for_the_run(tmp_path):
    lock = load_lock.lock_path(tmp_path / "a" / ".." / "a", "SMF_RAW")  # one lock whatever the spelling
    assert lock == load_lock.lock_path(tmp_path / "a", "smf_raw")
    with load_lock.holding(lock, "the-run", wait=0):
        with load_lock.holding(lock, "its-load", wait=0):
            assert json.loads((lock / load_lock.OWNER_FILE).read_text())["load_id"] == "the-run"
        assert lock.exists()  # the inner hold gave nothing back
        proc = subprocess.run(
            [sys.executable, "-c", HOLD, str(lock), "outsider", "0"], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode != 0 and "load the-run" in proc.stderr
    assert not lock.exists()


def test_two_loads_racing_for_a_dead_loads_lock_get_it_one_at_a_time(tmp_path):
    """Judging an owner and breaking its lock happen under one guard: a load can never break the
    lock another has just made in place of the stale one, so each racer holds it alone."""
    lock = load_lock.lock_path(tmp_path, "smf_raw")
    proc = holder(lock, "dead", 60)
    proc.kill()
    proc.wait()
    script = HOLD.replace('print("held", flush=True)', 'print("held", time.time(), flush=True)')
    racers = [
        subprocess.Popen([sys.executable, "-c", script.replace("wait=0", "wait=30"), str(lock), f"racer{i}", "1"],
                         stdout=subprocess.PIPE, text=True)
        for i in range(3)
    ]  # fmt: skip
    held = sorted(float(r.communicate(timeout=120)[0].split()[1]) for r in racers)
    assert all(r.returncode == 0 for r in racers)
    # Each held it for a second after the previous one's owner died (a dead racer's lock is stale).
    assert all(b - a >= 0.9 for a, b in zip(held, held[1:], strict=False)), held


def test_the_hooks_plan_takes_the_lock_as_its_jvm_and_gives_it_back_last(tmp_path, monkeypatch):
    """What the dbt on-run-start hook reads (the `_load_sql` plan): reading it takes the lock, the
    owner being the process above the reading worker (Spark's JVM or its Python daemon), and the
    plan's last statements give it back."""
    pytest.importorskip("pyspark")
    from mqsmf.spark.plan import UNLOCK_LABEL, plan_from_options

    dump = tmp_path / "day.dat"
    dump.write_bytes(b"\x00" * 64)
    warehouse = tmp_path / "spark-warehouse"
    options = {
        "paths": json.dumps([str(dump)]),
        "raw_schema": "smf_raw",
        "load_id": "dbt-1",
        "warehouse": f"file:{warehouse}",
    }
    steps = plan_from_options(options)
    lock = load_lock.lock_path(warehouse, "smf_raw")
    owner = load_lock.read_owner(lock)
    assert (owner.load_id, owner.kind, owner.pid) == ("dbt-1", load_lock.SQL_PLAN, os.getppid())
    labels = [s.label for s in steps]
    assert labels.index(UNLOCK_LABEL) == len(labels) - 2  # then only the view's removal
    assert labels.index(UNLOCK_LABEL) > max(
        i for i, label in enumerate(labels) if label == "recover" or label == "publish"
    )
    assert plan_from_options(options) and load_lock.read_owner(lock).load_id == "dbt-1"  # read again: still its own
    monkeypatch.setenv(load_lock.WAIT_ENV, "0")
    with pytest.raises(LoadBusy, match="load dbt-1"):  # another dbt run's plan
        plan_from_options({**options, "load_id": "dbt-2"})
    # The client's deadline (mqsmf load --target cluster --wait) wins over the Spark side's setting,
    # counted from the client's start: a retried task whose deadline has passed does not wait again.
    monkeypatch.setenv(load_lock.WAIT_ENV, "600")
    for deadline_in, waited in ((1.5, 1.5), (-5.0, 0.0)):
        started = time.monotonic()
        deadline = {"wait_until": str(time.time() + deadline_in), "wait_seconds": "7"}  # the client asked 7 s
        with pytest.raises(LoadBusy, match=r"load dbt-1 .*; waited 7 s"):
            plan_from_options({**options, "load_id": "dbt-3", **deadline})
        assert waited <= time.monotonic() - started < waited + 5
    # What the hook's macro reads then: one 'busy' step holding the message, which it raises as its
    # error (a Spark task that fails would be retried and would print its traceback).
    from mqsmf.spark.datasource import LoadSqlReader

    (batch,) = LoadSqlReader({**options, "load_id": "dbt-4", "wait_until": "0"}).read(None)
    (row,) = batch.to_pylist()
    assert row["kind"] == "busy" and load_lock.busy_message(row["statement"]) == row["statement"]
    assert "load dbt-1" in row["statement"]
    load_lock.release(lock, "dbt-1")
    assert not lock.exists()


def test_a_busy_message_is_found_in_another_processs_error_and_the_running_load_is_named(tmp_path):
    """`mqsmf load --target cluster` takes the one-line LoadBusy message from the error dbt logs
    (exit 2), whatever surrounds it (here a Spark task's error text). Before it starts, it names the
    load it will wait for when it sees the lock."""
    lock = load_lock.lock_path(tmp_path, "smf_raw")
    assert load_lock.running_load(lock) is None  # no lock at all
    proc = holder(lock, "load-one", 30)
    try:
        running = load_lock.running_load(lock)
        assert running is not None and running.startswith("load load-one (") and f"process {proc.pid}" in running
        with pytest.raises(LoadBusy) as e:
            load_lock.acquire(lock, "load-two", wait=0)
    finally:
        proc.kill()
        proc.wait()
    assert load_lock.running_load(lock) is None  # its owner is gone
    message = str(e.value)
    spark_error = (
        "Runtime Error\n  Database Error\n    org.apache.spark.SparkException: Job aborted due to stage failure: "
        "Task 0 in stage 1.0 failed 4 times ... pyspark.errors.exceptions.base.PySparkRuntimeError: "
        f"Traceback (most recent call last):\n  ...\nmqsmf.load_lock.LoadBusy: {message}\n\tat org.apache.spark..."
    )
    assert load_lock.busy_message(spark_error) == message
    assert "\n" not in message and message.startswith(load_lock.BUSY_PREFIX) and "load load-one" in message
    assert load_lock.busy_message("Database Error: table not found") is None


@pytest.mark.spark
def test_a_load_through_dbt_finding_the_lock_held_names_the_holder_and_fails_with_one_line(spark, tmp_path, capsys):
    """`mqsmf load --target cluster` runs the load as `dbt run-operation load_smf_files`. Here it runs
    on the local target in this process: the same macro, plan and reader as through the Thrift server,
    only nearer. Another process holds the lock. The client names that load and passes its own
    --wait. The plan waits that long, not the executors' default. LoadBusy then comes out of dbt's
    error events with the plan's one-line message (`mqsmf load` prints it, exit 2), and nothing is
    loaded."""
    from mqsmf.generate import ScenarioConfig, plan_scenario, write_scenario
    from mqsmf.spark.cli import _load_through_dbt
    from mqsmf.spark.session import load_lock_path

    project = Path(__file__).resolve().parents[2]
    raw = "busy_through_dbt_raw"
    day = tmp_path / "day.dat"
    write_scenario(plan_scenario(ScenarioConfig(seed=3, qmgrs=1, queues=2, intervals=1)), str(day))
    args = argparse.Namespace(
        target="local", paths=[str(day)], framing="auto", raw_schema=raw, wait=2.0, split_mb=64, json_summary=None
    )
    proc = holder(load_lock_path(project, raw), "load-one", 600)
    try:
        with pytest.raises(LoadBusy) as e:
            _load_through_dbt(args, project)
    finally:
        proc.kill()
        proc.wait()
    message = str(e.value)
    assert message.startswith(load_lock.BUSY_PREFIX) and "load load-one" in message and "\n" not in message
    assert "waiting for load load-one" in capsys.readouterr().err
    assert "; waited 2 s (" in message  # the --wait asked, not the 600 s default
    assert not spark.catalog.tableExists(f"{raw}.qqst")


def test_a_nested_load_is_recognised_whatever_the_spelling_of_the_lock_path(tmp_path):
    real = tmp_path / "warehouse"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    outer = load_lock.lock_path(real, "smf_raw")
    inner = load_lock.lock_path(tmp_path / "link", "smf_raw")  # the same folder through a link
    assert outer != inner
    with load_lock.holding(outer, "the-run", wait=0):
        with load_lock.holding(inner, "its-load", wait=0):  # would wait for itself, then fail
            assert load_lock.read_owner(outer).load_id == "the-run"
        assert outer.exists()
    assert not outer.exists()
    # Nothing is left behind that would make a later load in this process skip the lock.
    assert load_lock.acquire(inner, "later", wait=0)
    load_lock.release(inner, "later")
    assert not outer.exists()
