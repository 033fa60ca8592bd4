"""``mqsmf cluster start|stop|status|env``: a Spark standalone cluster on 127.0.0.1 for the ``cluster`` target.

What runs, all from the pip-installed PySpark (``SPARK_HOME`` = the ``pyspark`` folder), each
process started by us and recorded by its process id:

- a standalone master (``org.apache.spark.deploy.master.Master``);
- ``--workers`` workers (``org.apache.spark.deploy.worker.Worker``), one core each;
- a Spark Thrift server (``HiveThriftServer2``) submitted to that master: the SQL endpoint of the
  dbt ``cluster`` target (``method: thrift``). It is a Spark application like any other, and it gets
  the ``mqsmf`` package the way a jar would be shipped: a zip built from this package at start,
  passed with ``--py-files`` (``spark.submit.pyFiles``). Its driver's Python finds the data source
  in it (``pyspark_mqsmf``), executors import the decoder from it.

Every port is a free one picked at start, bound to 127.0.0.1; nothing listens elsewhere. The
cluster's warehouse (``<state>/warehouse/spark-warehouse``) and Hive metastore (embedded Derby,
``<state>/warehouse/metastore_db``) live in the state folder, with the logs (``<state>/logs``),
the workers' folders (``<state>/work``), the shipped zip (``<state>/artifacts``) and
``cluster.json`` (ports, process ids, URLs).

Derby admits one JVM at a time, and the Thrift server holds it. A Spark application that needs
DataFrames on the same catalog (the data-quality gate, GX) runs on the master after the Thrift
server has handed the metastore over: :func:`stop` with ``only=("thrift",)``, then
``eval "$(mqsmf cluster env)"`` (or :func:`app_env`) and ``mqsmf check``; ``mqsmf cluster start``
brings the Thrift server back. (A real cluster shares a metastore service instead.)

Stopping is by recorded process id only: SIGTERM, then SIGKILL after a timeout, and only if the
process is still the Java process we started (its command line names the expected class).
Imports nothing heavy (no pyspark at import time).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_FILE = "cluster.json"
DEFAULT_STATE_DIR = "target/cluster"
HOST = "127.0.0.1"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
THRIFT_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
SUBMIT_CLASS = "org.apache.spark.deploy.SparkSubmit"
COMPONENTS = ("master", "workers", "thrift")
# Log lines that say a process is ready (besides its port accepting connections).
MASTER_READY = "I have been elected leader"
WORKER_READY = "Successfully registered with master"
THRIFT_READY = "HiveThriftServer2 started"
# A JVM whose main thread died may linger (non-daemon threads): fail at once on this line.
FATAL = 'Exception in thread "main"'
# Master and worker daemons are small (executors are separate JVMs with their own memory); the
# launcher sizes the Thrift server by this variable too, so it gets the driver's memory instead.
DAEMON_MEMORY = "256m"
PACKAGES = ("mqsmf", "pyspark_mqsmf")  # what the shipped zip holds


class ClusterError(RuntimeError):
    """The cluster could not be started, reached or stopped; the message names the log to read."""


@dataclass
class Process:
    role: str  # master, worker-1, ..., thrift
    pid: int
    java_class: str  # checked against /proc/<pid>/cmdline before any signal
    log: str
    ports: dict[str, int] = field(default_factory=dict)

    def alive(self) -> bool:
        return _is_our_process(self.pid, self.java_class)


@dataclass
class Cluster:
    state_dir: str
    spark_home: str
    python: str
    master_url: str
    master_port: int
    master_webui_port: int
    thrift_port: int
    warehouse_dir: str  # MQSMF_WAREHOUSE_DIR of the cluster: spark-warehouse/, metastore_db/, derby.log
    package: str  # the zip shipped with --py-files
    workers: int
    worker_cores: int
    worker_memory: str
    executor_memory: str
    driver_memory: str
    processes: list[Process] = field(default_factory=list)

    # ---- state file ----------------------------------------------------------------------

    def save(self) -> None:
        path = Path(self.state_dir) / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2))
        tmp.replace(path)

    @classmethod
    def load(cls, state_dir: str | os.PathLike) -> Cluster:
        path = Path(state_dir).resolve() / STATE_FILE
        if not path.is_file():
            raise ClusterError(f"mqsmf cluster: no cluster in {path.parent} (no {STATE_FILE}): run mqsmf cluster start")
        data = json.loads(path.read_text())
        data["processes"] = [Process(**p) for p in data.get("processes", [])]
        return cls(**data)

    def process(self, role: str) -> Process | None:
        return next((p for p in self.processes if p.role == role), None)

    def roles(self, component: str) -> list[Process]:
        if component == "workers":
            return [p for p in self.processes if p.role.startswith("worker-")]
        return [p for p in self.processes if p.role == component]

    @property
    def thrift_url(self) -> str:
        return f"jdbc:hive2://{HOST}:{self.thrift_port}/"


# --------------------------------------------------------------------------------------------
# Pieces: Spark home, ports, processes, the shipped package
# --------------------------------------------------------------------------------------------


def spark_home() -> str:
    """$SPARK_HOME if set and complete, else the pip-installed pyspark folder."""
    from pyspark.find_spark_home import _find_spark_home  # a small module: no JVM, no pyspark.sql

    home = _find_spark_home()
    if not (Path(home) / "bin" / "spark-class").is_file():
        raise ClusterError(f"mqsmf cluster: {home} has no bin/spark-class (SPARK_HOME must be a full Spark)")
    return home


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports free on 127.0.0.1 right now (held open together so none repeats)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            s = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            s.bind((HOST, 0))
            ports.append(s.getsockname()[1])
        return ports


def port_open(port: int, host: str = HOST) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _is_our_process(pid: int, java_class: str) -> bool:
    """The pid runs and is still the JVM we started (a recycled pid runs something else)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # someone else's process: never ours
    cmd = _cmdline(pid)
    if not cmd:  # no /proc (not Linux): trust the pid file
        return True
    state = _proc_state(pid)
    return java_class in cmd and state != "Z"


def _proc_state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else ""


def build_package(out_dir: str | os.PathLike) -> Path:
    """Zip ``mqsmf`` and ``pyspark_mqsmf`` (sources and layout CSVs) from where they are imported.

    The name carries a digest of the content, so a changed package is a new file: Spark never
    serves an executor a stale copy under the same name.
    """
    import mqsmf
    import pyspark_mqsmf

    roots = {name: Path(mod.__file__).parent for name, mod in (("mqsmf", mqsmf), ("pyspark_mqsmf", pyspark_mqsmf))}
    members: list[tuple[str, Path]] = []
    for name in PACKAGES:
        base = roots[name]
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".csv"):
                members.append((f"{name}/{path.relative_to(base).as_posix()}", path))
    digest = hashlib.sha256()
    for arcname, path in members:
        digest.update(arcname.encode() + b"\0" + path.read_bytes())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"mqsmf-{digest.hexdigest()[:12]}.zip"
    if not target.is_file():
        tmp = target.with_suffix(".tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            for arcname, path in members:
                info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())
        tmp.replace(target)
    return target


def _spark_env(cluster: Cluster, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment of every cluster process: our Spark, our Python, loopback only, no user conf."""
    drop = (
        "PYTHONPATH",
        "SPARK_CONF_DIR",
        "SPARK_MASTER_HOST",
        "SPARK_WORKER_OPTS",
        "PYSPARK_SUBMIT_ARGS",
        "SPARK_REMOTE",
    )
    # The caller's MQSMF_* (another warehouse, schema or spool) must not leak into the cluster.
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("MQSMF_")}
    conf_dir = Path(cluster.state_dir) / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "SPARK_HOME": cluster.spark_home,
            "SPARK_CONF_DIR": str(conf_dir),  # empty: no spark-defaults.conf / spark-env.sh of the machine
            "SPARK_LOCAL_IP": HOST,
            "SPARK_LOCAL_HOSTNAME": HOST,
            "SPARK_LOG_DIR": str(Path(cluster.state_dir) / "logs"),
            "PYSPARK_PYTHON": cluster.python,
            "PYSPARK_DRIVER_PYTHON": cluster.python,
            # The loader's spool (mqsmf.spark.spool), written by the executors, read by later statements.
            "MQSMF_SPOOL_DIR": str(Path(cluster.state_dir) / "spool"),
        }
    )
    env.update(extra or {})
    return env


def _launch(cluster: Cluster, role: str, java_class: str, args: Sequence[str], env: Mapping[str, str]) -> Process:
    """Start ``spark-class <class> args`` in its own session; spark-class ``exec``s the JVM, so the
    pid we record is the JVM's."""
    log = Path(cluster.state_dir) / "logs" / f"{role}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(Path(cluster.spark_home) / "bin" / "spark-class"), java_class, *args]
    with open(log, "ab") as out:
        out.write(f"\n=== mqsmf cluster: {shlex.join(cmd)}\n".encode())
        out.flush()
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cluster.state_dir,
            start_new_session=True,  # not killed by the terminal's Ctrl-C; stopped by pid only
        )
    # spark-class runs a launcher JVM that prints the command, then execs it: same pid, same class
    # name on the command line before and after the exec.
    return Process(role=role, pid=proc.pid, java_class=java_class, log=str(log))


def _wait_ready(proc: Process, ports: Iterable[int], ready_line: str, timeout: float) -> None:
    """Until every port accepts connections and the log has the ready line; a clear error else."""
    deadline = time.monotonic() + timeout
    log = Path(proc.log)
    while True:
        text = log.read_text(errors="replace") if log.is_file() else ""
        last_start = text.rfind("=== mqsmf cluster:")
        text = text[last_start:] if last_start >= 0 else text
        if ready_line in text and all(port_open(p) for p in ports):
            return
        if not proc.alive() or FATAL in text:
            raise ClusterError(
                f"mqsmf cluster: {proc.role} (pid {proc.pid}) failed to start; see {proc.log}:\n" + _tail(text)
            )
        if time.monotonic() > deadline:
            raise ClusterError(
                f"mqsmf cluster: {proc.role} (pid {proc.pid}) not ready after {timeout:.0f} s "
                f"(waiting for ports {list(ports)} and '{ready_line}'); see {proc.log}:\n" + _tail(text)
            )
        time.sleep(0.5)


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + line for line in text.strip().splitlines()[-lines:])


# --------------------------------------------------------------------------------------------
# Start, stop, status
# --------------------------------------------------------------------------------------------


def thrift_conf(cluster: Cluster) -> dict[str, str]:
    """Spark configuration of the Thrift server: the dbt ``cluster`` target's warehouse."""
    wh = Path(cluster.warehouse_dir)
    return {
        "spark.app.name": "mqsmf-thrift",
        "spark.master": cluster.master_url,
        # A Thrift server is a JVM application: spark-submit ignores --py-files for it. The zip goes
        # out like any file (fetched into each executor's working folder, the Python workers' cwd)
        # and is put first on the executors' PYTHONPATH; the driver's Python gets it by path.
        "spark.files": cluster.package,
        "spark.executorEnv.PYTHONPATH": Path(cluster.package).name,
        "spark.executorEnv.MQSMF_SPOOL_DIR": str(Path(cluster.state_dir) / "spool"),
        "spark.driver.memory": cluster.driver_memory,
        "spark.executor.memory": cluster.executor_memory,
        "spark.executor.cores": "1",
        "spark.driver.host": HOST,
        "spark.driver.bindAddress": HOST,
        "spark.pyspark.python": cluster.python,
        "spark.pyspark.driver.python": cluster.python,
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(wh / "spark-warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={wh / 'metastore_db'};create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.stream.error.file={wh / 'derby.log'}",
        # The same session defaults as the local target (profiles.yml), so both build the same marts.
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "8",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.optimizer.plannedWrite.enabled": "false",
        "spark.sql.maxConcurrentOutputFileWriters": "4",
        "spark.sql.ansi.enabled": "false",
        "spark.ui.enabled": "false",
    }


def start(
    state_dir: str | os.PathLike = DEFAULT_STATE_DIR,
    workers: int = 2,
    worker_cores: int = 1,
    worker_memory: str = "1g",
    executor_memory: str = "768m",
    driver_memory: str = "1g",
    thrift: bool = True,
    timeout: float = 180.0,
    python: str | None = None,
) -> Cluster:
    """Start the master, the workers and (unless ``thrift=False``) the Thrift server; or, when a
    cluster already runs in ``state_dir``, start only what is not running (e.g. the Thrift server
    after a metastore hand-over). Returns the cluster as recorded in ``cluster.json``."""
    state = Path(state_dir).resolve()
    state.mkdir(parents=True, exist_ok=True)
    try:
        cluster = Cluster.load(state)
        if not (cluster.process("master") and cluster.process("master").alive()):
            stop(state)  # a half-dead cluster: start afresh
            cluster = None
    except ClusterError:
        cluster = None
    if cluster is None:
        master_port, webui_port, thrift_port = free_ports(3)
        cluster = Cluster(
            state_dir=str(state),
            spark_home=spark_home(),
            python=python or os.environ.get("PYSPARK_PYTHON") or sys.executable,
            master_url=f"spark://{HOST}:{master_port}",
            master_port=master_port,
            master_webui_port=webui_port,
            thrift_port=thrift_port,
            warehouse_dir=str(state / "warehouse"),
            package=str(build_package(state / "artifacts")),
            workers=workers,
            worker_cores=worker_cores,
            worker_memory=worker_memory,
            executor_memory=executor_memory,
            driver_memory=driver_memory,
        )
    else:
        cluster.package = str(build_package(state / "artifacts"))  # ship the code as it is now
    try:
        _start_missing(cluster, thrift, timeout)
    except BaseException:
        cluster.save()
        stop(state)
        raise
    cluster.save()
    return cluster


def _start_missing(cluster: Cluster, thrift: bool, timeout: float) -> None:
    env = _spark_env(
        cluster,
        # No REST submission server (it would take the fixed port 6066).
        {"SPARK_DAEMON_MEMORY": DAEMON_MEMORY, "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"},
    )
    master = cluster.process("master")
    if master is None or not master.alive():
        cluster.processes = [p for p in cluster.processes if p.role != "master"]
        master = _launch(
            cluster,
            "master",
            MASTER_CLASS,
            ["--host", HOST, "--port", str(cluster.master_port), "--webui-port", str(cluster.master_webui_port)],
            env,
        )
        master.ports = {"master": cluster.master_port, "webui": cluster.master_webui_port}
        cluster.processes.append(master)
        cluster.save()
        _wait_ready(master, master.ports.values(), MASTER_READY, timeout)
    started = []
    for i in range(1, cluster.workers + 1):
        role = f"worker-{i}"
        worker = cluster.process(role)
        if worker is not None and worker.alive():
            continue
        cluster.processes = [p for p in cluster.processes if p.role != role]
        (webui,) = free_ports(1)
        work = Path(cluster.state_dir) / "work" / role
        work.mkdir(parents=True, exist_ok=True)
        worker = _launch(
            cluster,
            role,
            WORKER_CLASS,
            [
                cluster.master_url,
                "--host",
                HOST,
                "--cores",
                str(cluster.worker_cores),
                "--memory",
                cluster.worker_memory,
                "--work-dir",
                str(work),
                "--webui-port",
                str(webui),
            ],
            env,
        )
        worker.ports = {"webui": webui}
        cluster.processes.append(worker)
        started.append(worker)
    cluster.save()
    for worker in started:
        _wait_ready(worker, worker.ports.values(), WORKER_READY, timeout)
    if not thrift:
        return
    server = cluster.process("thrift")
    if server is not None and server.alive():
        return
    cluster.processes = [p for p in cluster.processes if p.role != "thrift"]
    if port_open(cluster.thrift_port):  # taken since the cluster was created: pick another
        (cluster.thrift_port,) = free_ports(1)
    args = ["--class", THRIFT_CLASS, "--name", "mqsmf-thrift"]
    for key, value in thrift_conf(cluster).items():
        args += ["--conf", f"{key}={value}"]
    args += [
        "spark-internal",
        "--hiveconf",
        f"hive.server2.thrift.port={cluster.thrift_port}",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={HOST}",
    ]
    driver_env = {**env, "SPARK_DAEMON_MEMORY": cluster.driver_memory, "PYTHONPATH": cluster.package}
    server = _launch(cluster, "thrift", SUBMIT_CLASS, args, driver_env)
    server.ports = {"thrift": cluster.thrift_port}
    cluster.processes.append(server)
    cluster.save()
    _wait_ready(server, server.ports.values(), THRIFT_READY, timeout)


def stop(
    state_dir: str | os.PathLike = DEFAULT_STATE_DIR, only: Sequence[str] = COMPONENTS, timeout: float = 30.0
) -> list[str]:
    """Stop the cluster's processes by their recorded ids (Thrift server first, master last):
    SIGTERM, then SIGKILL after ``timeout``. Returns what was stopped. Unknown folder: nothing."""
    try:
        cluster = Cluster.load(state_dir)
    except ClusterError:
        return []
    stopped = []
    for component in ("thrift", "workers", "master"):
        if component not in only:
            continue
        procs = cluster.roles(component)
        for proc in procs:
            if proc.alive():
                stopped.append(f"{proc.role} (pid {proc.pid})")
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGTERM)
        for proc in procs:
            _wait_gone(proc, timeout)
            cluster.processes.remove(proc)
        cluster.save()
    return stopped


def _wait_gone(proc: Process, timeout: float) -> None:
    """Wait for a signalled process to end; SIGKILL it after ``timeout``."""
    deadline = time.monotonic() + timeout
    while proc.alive():
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
        _reap(proc.pid)
        time.sleep(0.2)
    _reap(proc.pid)


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our child (else it stays a zombie until we exit)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def status(state_dir: str | os.PathLike = DEFAULT_STATE_DIR) -> dict:
    """What runs: every recorded process, alive or not, and its ports."""
    cluster = Cluster.load(state_dir)
    return {
        "state_dir": cluster.state_dir,
        "master_url": cluster.master_url,
        "thrift": f"{HOST}:{cluster.thrift_port}",
        "package": cluster.package,
        "processes": [
            {
                "role": p.role,
                "pid": p.pid,
                "alive": p.alive(),
                "ports": {k: [v, port_open(v)] for k, v in p.ports.items()},
                "log": p.log,
            }
            for p in cluster.processes
        ],
    }


def app_env(cluster: Cluster) -> dict[str, str]:
    """Environment under which ``mqsmf load --target cluster``, ``dbt --target cluster`` and a
    Spark application on the master (``local_session``, e.g. ``mqsmf check``) use this cluster."""
    return {
        "MQSMF_TARGET": "cluster",
        "MQSMF_THRIFT_HOST": HOST,
        "MQSMF_THRIFT_PORT": str(cluster.thrift_port),
        "MQSMF_SPARK_MASTER": cluster.master_url,
        "MQSMF_WAREHOUSE_DIR": cluster.warehouse_dir,
        "MQSMF_PY_FILES": cluster.package,
        "MQSMF_EXECUTOR_MEMORY": cluster.executor_memory,
        "MQSMF_DRIVER_MEMORY": cluster.driver_memory,
        "PYSPARK_PYTHON": cluster.python,
        "SPARK_LOCAL_IP": HOST,
    }


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def add_subcommand(subparsers) -> None:
    p = subparsers.add_parser(
        "cluster",
        help="a local Spark standalone cluster (master, workers, Thrift server) for --target cluster",
        description="Start, stop or inspect a Spark standalone master with workers and a Spark Thrift server on "
        "127.0.0.1, all from the installed PySpark, with the mqsmf package shipped as a zip (--py-files). "
        "State (ports, pids, logs, warehouse, metastore) is in --state-dir.",
    )
    p.add_argument(
        "action",
        choices=("start", "stop", "status", "env"),
        help="start the cluster, stop it, print its processes' status, or print the shell exports of its environment",
    )
    p.add_argument("--state-dir", default=DEFAULT_STATE_DIR, help=f"the cluster's folder (default {DEFAULT_STATE_DIR})")
    p.add_argument("--workers", type=int, default=2, help="workers to start (default 2, one core each)")
    p.add_argument("--worker-memory", default="1g", help="memory each worker offers (default 1g)")
    p.add_argument("--executor-memory", default="768m", help="memory of each executor (default 768m)")
    p.add_argument("--driver-memory", default="1g", help="memory of the Thrift server's driver (default 1g)")
    p.add_argument("--no-thrift", action="store_true", help="start: no Thrift server; stop: only the Thrift server")
    p.add_argument("--timeout", type=float, default=180, help="seconds to wait for each process (default 180)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.action == "start":
            cluster = start(
                args.state_dir,
                workers=args.workers,
                worker_memory=args.worker_memory,
                executor_memory=args.executor_memory,
                driver_memory=args.driver_memory,
                thrift=not args.no_thrift,
                timeout=args.timeout,
            )
            print(f"master  {cluster.master_url} (web UI http://{HOST}:{cluster.master_webui_port})")
            if cluster.process("thrift"):
                print(f"thrift  {HOST}:{cluster.thrift_port} (dbt --target cluster)")
            print(f"package {cluster.package}")
            print(f'state   {cluster.state_dir}  (eval "$(mqsmf cluster env --state-dir {args.state_dir})")')
        elif args.action == "stop":
            only = ("thrift",) if args.no_thrift else COMPONENTS
            stopped = stop(args.state_dir, only=only, timeout=args.timeout)
            print("stopped: " + (", ".join(stopped) or "nothing was running"))
        elif args.action == "status":
            info = status(args.state_dir)
            print(json.dumps(info, indent=2))
            return 0 if info["processes"] and all(p["alive"] for p in info["processes"]) else 1
        else:
            for key, value in app_env(Cluster.load(args.state_dir)).items():
                print(f"export {key}={shlex.quote(value)}")
    except ClusterError as e:
        print(e, file=sys.stderr)
        return 2
    return 0
