"""The ``cluster`` target end to end on a real Spark standalone cluster (issue #7).

``mqsmf cluster start`` runs a master, two workers and a Spark Thrift server on 127.0.0.1 from the
pip-installed PySpark. A generated queue-sharing-group day then goes load -> ``dbt build --target
cluster`` (thrift) -> the data-quality gate (``mqsmf check``'s code in a Spark application on the
master, after the Thrift server hands the Derby metastore over). The marts must equal, row for row and
column for column, those the embedded ``local`` target builds from the same day.

The load step is two loads at once: two ``mqsmf load --target cluster`` processes of that same day,
started together (the Thrift server's driver plans each, the executors decode). The plan holds the
raw schema's load lock (``mqsmf.load_lock``, owned by the Thrift application), so one load runs, the
other's plan read waits in an executor until the first has given the lock back, then finds every
row present: both succeed, both are audited, and the raw tables hold exactly what one clean load
(the embedded run's) holds.

The cluster's Python (driver-side Python workers and executors) is an interpreter that sees this
environment's libraries but NOT the project's editable install: the run can only work if the
``mqsmf`` zip is really shipped, and the executors report importing it from that zip.

Slow (a few minutes: four JVMs besides the embedded one), but part of the default run.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from mqsmf import load_lock, warehouse
from mqsmf.generate import ScenarioConfig, Target, plan_scenario, write_scenario
from mqsmf.spark import cluster as cl

from .warehouse_digest import digest

# Extended: a standalone cluster (master, workers, Thrift server) and a second embedded run take about
# ten minutes on 2 cores, too much for the default run; run with --extended or MQSMF_EXTENDED=1.
pytestmark = [pytest.mark.slow, pytest.mark.spark, pytest.mark.extended]

PROJECT_DIR = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DAY = ScenarioConfig(
    seed=17, qmgrs=3, lpars=2, queues=20, intervals=6, inject=(Target.parse("BP04"), Target.parse("Q03"))
)
EMBEDDED_SCHEMA = "cluster_cmp_embedded"  # the embedded build's marts: <schema>_marts
CLUSTER_SCHEMA = "mqsmf"
RAW = warehouse.RAW_SCHEMA  # the cluster loads' raw schema (mqsmf load's default)
LOADS = ("load", "load_2")  # the two loads started at once
BUSY, RUNNING_LOAD = "load_busy", "the-running-load"  # a load that finds the lock held, and its holder
LOAD_METADATA = {"loaded_at", "load_id"}  # differ between any two loads by design
PROCESS_TIMEOUT = 900

# One Spark application on the master after the hand-over (one JVM start, not two): the gate
# exactly as ``mqsmf check --stage all`` runs it (same session settings), then the marts as parquet
# files for the comparison, what the raw schema holds (``warehouse_digest``: per table its rows,
# the audit of each load, loads left staged) with the audited load ids, and where the executors
# import mqsmf from.
GATE_AND_EXPORT = """
import json, sys
from mqsmf.cli import main
from mqsmf.spark.session import local_session
out, schema, raw, here = sys.argv[1:5]
rc = main(["check", "--stage", "all", "--no-docs", "--json", f"{out}/_gate.json"])
spark = local_session()
tables = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {schema}").collect() if not r.isTemporary)
for t in tables:
    spark.table(f"{schema}.{t}").toPandas().to_parquet(f"{out}/{t}.parquet")
sys.path.append(here)
from warehouse_digest import digest
raw_digest = digest(spark, raw)
load_ids = sorted(r[0] for r in spark.sql(f"SELECT DISTINCT load_id FROM `{raw}`.smf_load_audit").collect())
def where(_):
    import os, mqsmf, pyspark_mqsmf
    yield json.dumps([mqsmf.__file__, pyspark_mqsmf.__file__, os.getcwd()])
found = spark.sparkContext.parallelize(range(4), 4).mapPartitions(where).collect()
with open(f"{out}/_export.json", "w") as f:
    json.dump({"gate_rc": rc, "tables": tables, "master": spark.sparkContext.master,
               "raw": raw_digest, "audited_load_ids": load_ids,
               "executor_imports": [json.loads(x) for x in found]}, f)
spark.stop()
sys.exit(rc)
"""


def python_without_the_project(folder: Path) -> str:
    """A venv whose site-packages points at this interpreter's (numpy, pyarrow, pyspark, ...) with
    one ``.pth`` line, so the ``.pth`` files there, the project's editable install among them, are
    not processed: ``import mqsmf`` fails unless mqsmf comes from somewhere else."""
    # An explicit env: with none, the child execs the process's live environ, which another thread
    # may be reallocating (setenv) at that moment (EFAULT, "Bad address").
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, env=dict(os.environ))
    site = next((folder / "lib").glob("python3*/site-packages"))
    libs = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "mqsmf_test_base.pth").write_text("".join(f"{p}\n" for p in libs))
    return str(folder / "bin" / "python")


def _run(cmd: list[str], env: dict[str, str], log: Path) -> tuple[int, float]:
    """One command (see _run_at_once): its exit code and seconds."""
    rc, seconds = _run_at_once({"one": cmd}, {"one": env}, {"one": log})
    return rc["one"], seconds["one"]


def _run_at_once(cmds: dict[str, list[str]], envs: dict[str, dict[str, str]], logs: dict[str, Path]):
    """Start every command at the same moment (each with its own log), wait for all; per name the
    exit code and the seconds from the common start to that process's end."""
    procs: dict[str, subprocess.Popen] = {}
    rc, seconds = {}, {}
    try:
        t0 = time.perf_counter()
        for name, cmd in cmds.items():
            with open(logs[name], "w") as out:  # the child keeps its own descriptor
                procs[name] = subprocess.Popen(
                    cmd, env=envs[name], cwd=PROJECT_DIR, stdout=out, stderr=subprocess.STDOUT
                )
        deadline = time.monotonic() + PROCESS_TIMEOUT
        while len(rc) < len(procs):
            for name, proc in procs.items():
                if name not in rc and proc.poll() is not None:
                    rc[name], seconds[name] = proc.returncode, time.perf_counter() - t0
            if len(rc) < len(procs) and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired([c[0] for c in cmds.values()], PROCESS_TIMEOUT)
            time.sleep(0.2)
        return rc, seconds
    finally:
        for proc in procs.values():  # left running only by a timeout or an error here: ours, by pid
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture(scope="module")
def day(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cluster_day") / "qsg_day.dat"
    write_scenario(plan_scenario(DAY), str(path))
    return str(path)


@pytest.fixture(scope="module")
def runs(spark, dbt, day, tmp_path_factory):
    """The cluster run (in a thread: it mostly waits on other processes) alongside the embedded run
    of the same day in this process; the cluster is stopped, by pid, before any test looks."""
    work = tmp_path_factory.mktemp("cluster")
    run = SimpleNamespace(work=work, seconds={}, rc={}, logs={}, stopped=[], stopped_thrift=[], error=None)
    with pytest.MonkeyPatch.context() as env:
        # Set before the thread starts: changing the environment while another thread spawns a
        # process is a race (the cluster run gives its processes environments of their own).
        env.setenv("MQSMF_SCHEMA", EMBEDDED_SCHEMA)
        thread = threading.Thread(target=_cluster_run, args=(run, day), name="cluster-run")
        thread.start()
        try:
            local = _embedded_run(spark, dbt, day)
        finally:
            thread.join()
    return SimpleNamespace(cluster=run, embedded=local)


@pytest.fixture(scope="module")
def on_cluster(runs):
    if runs.cluster.error is not None:
        raise runs.cluster.error
    return runs.cluster


@pytest.fixture(scope="module")
def embedded(runs):
    return runs.embedded


def _cluster_run(run, day: str) -> None:
    state = run.work / "state"
    t0 = time.perf_counter()
    try:
        run.python = python_without_the_project(run.work / "pyenv")
        run.cluster = cl.start(state, workers=2, python=run.python, timeout=300)
        run.seconds["start"] = time.perf_counter() - t0
        run.status_started = cl.status(state)
        run.listening = {p.role: _listening_addresses(p.pid) for p in run.cluster.processes}
        _run_steps(run, day)
    except BaseException as e:
        run.error = e
    finally:
        run.stopped = cl.stop(state)


def _run_steps(run, day: str) -> None:
    """Two loads at once, then dbt build, through the Thrift server; metastore hand-over; gate and
    export as Spark applications on the master. Stops after the first failing step (the loads: once
    both have ended, if either failed); every exit code is recorded."""
    work = run.work
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQSMF_", "SPARK_", "PYSPARK_"))}
    env.update(MQSMF_PROJECT_DIR=str(PROJECT_DIR), MQSMF_SCHEMA=CLUSTER_SCHEMA, **cl.app_env(run.cluster))
    dbt_paths = ["--target-path", str(work / "dbt" / "target"), "--log-path", str(work / "dbt" / "logs")]
    mqsmf = [sys.executable, "-m", "mqsmf.cli"]
    dbt = str(Path(sys.executable).with_name("dbt"))
    exports = work / "marts"
    exports.mkdir()
    script = work / "gate_and_export.py"
    script.write_text(GATE_AND_EXPORT)
    # Two loads of the same day at once, each a dbt invocation with a target and log folder of its
    # own (two dbt processes must not write one target/: that is dbt's business, not the lock's).
    load = [*mqsmf, "load", "--target", "cluster", day, "--project-dir", str(PROJECT_DIR), "--no-progress"]
    run.logs.update({name: work / f"{name}.log" for name in LOADS})
    envs = {
        name: {**env, "DBT_TARGET_PATH": str(work / name / "target"), "DBT_LOG_PATH": str(work / name / "logs")}
        for name in LOADS
    }
    rc, seconds = _run_at_once(dict.fromkeys(LOADS, load), envs, run.logs)
    run.rc.update(rc)
    run.seconds.update(seconds)
    if any(rc.values()):
        return
    # A third load while another holds the lock (this process, standing for a load that runs on):
    # it names that load as it starts, and exits 2 naming it when its --wait is over.
    lock = load_lock.lock_path(Path(run.cluster.warehouse_dir) / "spark-warehouse", RAW)
    run.logs[BUSY] = work / f"{BUSY}.log"
    with load_lock.holding(lock, RUNNING_LOAD, wait=0):
        run.rc[BUSY], run.seconds[BUSY] = _run([*load, "--wait", "3"], envs[LOADS[0]], run.logs[BUSY])
    steps = {
        "dbt_build": [dbt, "build", "--project-dir", str(PROJECT_DIR), "--profiles-dir",
                      str(PROJECT_DIR / "profiles"), "--target", "cluster", *dbt_paths],
        # Hand the Derby metastore over: the gate is a Spark application with DataFrames (GX).
        "handover": None,
        # A script file, not ``python -c``: pyspark's Connect modules, imported by GX, exit a
        # ``-c`` process early when grpc is missing ("Skipping doctests").
        "gate_and_export": [sys.executable, str(script), str(exports), f"{CLUSTER_SCHEMA}_marts", RAW, str(HERE)],
    }  # fmt: skip
    for name, cmd in steps.items():
        if cmd is None:
            run.stopped_thrift = cl.stop(run.cluster.state_dir, only=("thrift",))
            continue
        run.logs[name] = work / f"{name}.log"
        run.rc[name], run.seconds[name] = _run(cmd, env, run.logs[name])
        if run.rc[name]:
            return
    run.gate = json.loads((exports / "_gate.json").read_text())["stages"]
    run.export = json.loads((exports / "_export.json").read_text())
    run.marts = {t: pd.read_parquet(exports / f"{t}.parquet") for t in run.export["tables"]}


def _embedded_run(spark, dbt, day: str) -> SimpleNamespace:
    """The same day through the embedded local target (the shared session): load + dbt build.
    ``MQSMF_SCHEMA`` is already set to EMBEDDED_SCHEMA (see ``runs``)."""
    t0 = time.perf_counter()
    result = dbt("build", "--vars", json.dumps({"smf_paths": [day], "raw_schema": f"{EMBEDDED_SCHEMA}_raw"}))
    seconds = time.perf_counter() - t0
    assert result.success, result.exception
    schema = f"{EMBEDDED_SCHEMA}_marts"
    tables = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {schema}").collect() if not r.isTemporary)
    # Through parquet like the cluster's export, so both sides get the same pandas types.
    marts = {t: _via_parquet(spark.table(f"{schema}.{t}").toPandas()) for t in tables}
    # What one clean load of the day leaves in the raw schema (the hook's load, in this build).
    return SimpleNamespace(seconds=seconds, marts=marts, raw=digest(spark, f"{EMBEDDED_SCHEMA}_raw"))


def _via_parquet(df: pd.DataFrame) -> pd.DataFrame:
    buffer = io.BytesIO()
    df.to_parquet(buffer)
    return pd.read_parquet(io.BytesIO(buffer.getvalue()))


def _check_steps(run) -> None:
    for name, rc in run.rc.items():
        if name == BUSY:  # exits 2 by design (its own test)
            continue
        assert rc == 0, f"{name} failed on the cluster (exit {rc}); {run.logs[name]}:\n{_tail(run.logs[name])}"


def test_cluster_is_a_master_two_workers_and_a_thrift_server_on_loopback(on_cluster):
    processes = {p["role"]: p for p in on_cluster.status_started["processes"]}
    assert set(processes) == {"master", "worker-1", "worker-2", "thrift"}
    for p in processes.values():
        assert p["alive"], p
        assert all(is_open for _, is_open in p["ports"].values()), p
    assert on_cluster.cluster.master_url.startswith("spark://127.0.0.1:")
    # Every listening socket of our processes is bound to the loopback address.
    for role, addresses in on_cluster.listening.items():
        assert addresses, role
        assert addresses <= {"127.0.0.1", "::ffff:127.0.0.1"}, f"{role} listens on {addresses}"


def _listening_addresses(pid: int) -> set[str]:
    """Local addresses of the TCP sockets in state LISTEN that the process holds (Linux /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    addresses = set()
    for table, width in (("tcp", 4), ("tcp6", 16)):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] != "0A" or cols[9] not in inodes:  # 0A = LISTEN
                continue
            raw = bytes.fromhex(cols[1].split(":")[0])
            # /proc prints each 32-bit word little-endian
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, width, 4))
            if width == 4:
                addresses.add(".".join(str(b) for b in raw))
            elif raw[:12] == b"\0" * 10 + b"\xff\xff":
                addresses.add("::ffff:" + ".".join(str(b) for b in raw[12:]))
            else:
                addresses.add(raw.hex())
    return addresses


def test_load_dbt_build_and_gate_pass_on_the_cluster(on_cluster):
    _check_steps(on_cluster)
    assert on_cluster.export["master"] == on_cluster.cluster.master_url  # the apps ran on the cluster
    assert {stage["stage"] for stage in on_cluster.gate} == {"raw", "marts"}
    for stage in on_cluster.gate:
        ran = [c for c in stage["checks"] if c["status"] != "skipped"]
        assert stage["passed"] and len(ran) > 20, stage["stage"]
        assert not [c for c in ran if c["status"] == "failed"], stage["stage"]
        assert sum(c["evaluated_rows"] or 0 for c in ran) > 100, stage["stage"]
    print(f"\ncluster seconds: {json.dumps({k: round(v, 1) for k, v in on_cluster.seconds.items()})}")


def test_executors_import_mqsmf_from_the_shipped_zip(on_cluster):
    _check_steps(on_cluster)
    probe = subprocess.run([on_cluster.python, "-c", "import mqsmf"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'mqsmf'" in probe.stderr  # the cluster's Python alone
    package = Path(on_cluster.cluster.package)
    assert package.suffix == ".zip" and package.is_file()
    found = on_cluster.export["executor_imports"]
    assert len(found) == 4
    for mqsmf_file, source_file, cwd in found:
        assert Path(cwd).is_relative_to(on_cluster.cluster.state_dir), cwd  # an executor's folder, not the driver's
        assert f"{package.name}/mqsmf/__init__.py" in mqsmf_file, mqsmf_file
        assert f"{package.name}/pyspark_mqsmf/__init__.py" in source_file, source_file


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    df = df.drop(columns=[c for c in df.columns if c in LOAD_METADATA])
    floats = [c for c in df.columns if pd.api.types.is_float_dtype(df[c])]
    keys = [c for c in df.columns if c not in floats]
    # Rows in a total order of their exact (non-float) values; floats are compared with a tolerance.
    order = ["\x1f".join(map(repr, row)) for row in df[keys].itertuples(index=False, name=None)]
    df = df.assign(_order=order) if len(df) else df.assign(_order=pd.Series(dtype=str))
    return df.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)


def test_marts_equal_the_embedded_run(on_cluster, embedded):
    _check_steps(on_cluster)
    assert set(on_cluster.marts) == set(embedded.marts)
    assert "fct_queue_stats" in embedded.marts and len(embedded.marts) >= 10
    for table, local in embedded.marts.items():
        remote = on_cluster.marts[table]
        assert list(remote.columns) == list(local.columns), table
        assert len(remote) == len(local), table
        pd.testing.assert_frame_equal(
            _canonical(remote), _canonical(local), check_exact=False, rtol=1e-9, obj=f"mart {table}"
        )
    assert sum(len(df) for df in embedded.marts.values()) > 500
    print(f"\nembedded load + dbt build: {embedded.seconds:,.1f} s")


# dbt's console lines of the load macro: "HH:MM:SS  mqsmf: ..." (after a colour reset); "mqsmf:
# loading <paths> (load <id>)" is logged once the load's plan has been read: once it holds the lock.
MQSMF_LINE = re.compile(r"^(?:\x1b\[[0-9;]*m)*(\d\d):(\d\d):(\d\d)\s+(mqsmf: .*)$", re.M)
LOADING = re.compile(r"^mqsmf: loading .* \(load ([0-9a-f-]+)\)$")
STEP = re.compile(r"^mqsmf: \[\d+/\d+\] (.*)$")  # a step of the plan that dbt logs at level info


def _mqsmf_lines(log: Path) -> list[tuple[int, str]]:
    """The macro's console lines of a load's log: (seconds since midnight, text)."""
    text = log.read_text(errors="replace")
    return [(int(h) * 3600 + int(m) * 60 + int(s), line) for h, m, s, line in MQSMF_LINE.findall(text)]


def test_two_loads_at_once_through_thrift_leave_one_clean_load(on_cluster, embedded, day):
    """The two loads started together both succeed as one load does; one holds the load lock while
    the other's plan read waits for it in an executor, so their steps do not overlap; both are
    audited, and the raw schema holds exactly what one clean load of the day holds."""
    _check_steps(on_cluster)  # both loads exit 0, as a single load of this day does
    lines = {name: _mqsmf_lines(on_cluster.logs[name]) for name in LOADS}
    day_start = lines[LOADS[0]][0][0]
    lines = {  # the day may turn while they run
        name: [(t + 86400 if t < day_start - 43200 else t, text) for t, text in found] for name, found in lines.items()
    }
    load_ids, started = {}, {}
    for name, found in lines.items():
        ((started[name], load_ids[name]),) = [(t, m[1]) for t, text in found if (m := LOADING.match(text))]
    first, second = sorted(LOADS, key=lambda name: started[name])
    print(f"\nfirst load: {first} ({load_ids[first]}), the second ({second}) holds the lock "
          f"{started[second] - started[first]} s later; {second}'s lines:\n" +
          "\n".join(text for _, text in lines[second]))  # fmt: skip
    # The second load's plan was read (it held the lock) only after every step the first logged.
    # Its client says nothing while it waits: the wait is in the plan read, in an executor's Python
    # worker (load_lock.acquire without ``say``), not in the ``mqsmf load`` process.
    last_of_first = lines[first][-1][0]
    assert started[second] >= last_of_first, (first, lines[first][-1], second, started[second])
    for name in LOADS:  # both ran their load steps
        steps = [m[1] for _, text in lines[name] if (m := STEP.match(text))]
        assert steps == ["decode files", "stage", "publish"], (name, steps)
    # Both loads are audited, under their own ids (dbt's invocation ids).
    assert load_ids[first] != load_ids[second]
    assert on_cluster.export["audited_load_ids"] == sorted(load_ids.values())
    # One clean load's rows: every raw table as the embedded run's single load left it (the audit
    # and load dates have one set of rows per load), nothing left staged, the same audit for both
    # loads, and every row counted as added once, by one load.
    got, clean = on_cluster.export["raw"], embedded.raw
    per_load = (warehouse.AUDIT_TABLE, warehouse.LOAD_DATES_TABLE)
    assert clean["tables"]["qqst"][0] > 0 and clean["tables"]["qpst"][0] > 0
    assert got["tables"] == clean["tables"] | {t: got["tables"][t] for t in per_load}
    assert got["staged"] == [], got["staged"]
    (reference,) = clean["audit_per_load"]
    assert got["audit_per_load"] == [reference, reference]
    assert got["rows_added"] == clean["rows_added"]
    # And each of the generator's rows exactly once (its manifest counts them per structure).
    counts = json.loads(Path(f"{day}.manifest.json").read_text())["counts"]["instances"]
    assert {t.lower(): [n, n] for t, n in counts.items()} == {t.lower(): got["tables"][t.lower()][:2] for t in counts}


def test_a_load_through_thrift_that_cannot_get_the_lock_exits_2_naming_the_running_load(on_cluster):
    """Its client names the load it waits for (it sees the lock), the plan read waits until the
    client's --wait is over (counted from the client's start), and the plan's refusal, raised by
    the dbt macro (no failed Spark task, no traceback), becomes the one-line error, exit 2."""
    log = on_cluster.logs[BUSY].read_text(errors="replace")
    assert on_cluster.rc[BUSY] == 2, _tail(on_cluster.logs[BUSY])
    assert f"mqsmf load: waiting for load {RUNNING_LOAD} (" in log
    last = log.strip().splitlines()[-1]
    assert last.startswith(f"mqsmf load: {load_lock.BUSY_PREFIX}load {RUNNING_LOAD} ("), last
    assert last.endswith(load_lock.BUSY_SUFFIX) and "; waited 3 s (" in last, last
    assert "Traceback" not in log and "at org.apache" not in log, _tail(on_cluster.logs[BUSY])
    assert on_cluster.seconds[BUSY] < 300  # not MQSMF_LOAD_WAIT_SECONDS' default 600 s


def test_stop_ends_every_process_by_pid(on_cluster):
    pids = [p["pid"] for p in on_cluster.status_started["processes"]]
    assert len(pids) == 4 and len(on_cluster.stopped) + len(on_cluster.stopped_thrift) == 4
    for pid in pids:
        assert not cl._is_our_process(pid, "org.apache.spark"), pid
    for port in [on_cluster.cluster.master_port, on_cluster.cluster.thrift_port]:
        assert not cl.port_open(port)


# ---- the pieces, without a JVM -------------------------------------------------------------


def test_the_shipped_zip_holds_both_packages_and_is_named_by_its_content(tmp_path):
    import zipfile

    first = cl.build_package(tmp_path / "a")
    again = cl.build_package(tmp_path / "b")
    assert first.name == again.name and first.read_bytes() == again.read_bytes()  # reproducible
    names = zipfile.ZipFile(first).namelist()
    assert "mqsmf/__init__.py" in names and "pyspark_mqsmf/__init__.py" in names
    assert "mqsmf/spark/datasource.py" in names and "mqsmf/layouts/structures.csv" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_stop_never_signals_a_pid_that_is_not_the_recorded_java_process(tmp_path):
    """A recycled pid (here: a sleep we own) must survive ``stop``; a missing cluster is no error."""
    assert cl.stop(tmp_path / "nothing-here") == []
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        fake = cl.Cluster(
            state_dir=str(tmp_path), spark_home="", python=sys.executable, master_url="spark://127.0.0.1:1",
            master_port=1, master_webui_port=2, thrift_port=3, warehouse_dir=str(tmp_path / "warehouse"),
            package="", workers=0, worker_cores=1, worker_memory="1g", executor_memory="1g", driver_memory="1g",
            processes=[cl.Process("master", sleeper.pid, cl.MASTER_CLASS, str(tmp_path / "master.log"))],
        )  # fmt: skip
        fake.save()
        assert cl.stop(tmp_path, timeout=1) == []
        assert sleeper.poll() is None  # still running: not ours to stop
        assert cl.Cluster.load(tmp_path).processes == []  # and forgotten
    finally:
        sleeper.kill()
        sleeper.wait()


def test_cluster_commands_report_a_missing_cluster_clearly(tmp_path, capsys):
    from mqsmf.cli import main

    assert main(["cluster", "status", "--state-dir", str(tmp_path)]) == 2
    assert "no cluster in" in capsys.readouterr().err
    assert main(["cluster", "stop", "--state-dir", str(tmp_path)]) == 0
