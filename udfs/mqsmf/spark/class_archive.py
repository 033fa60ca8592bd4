"""A class-data-sharing archive of the Spark driver JVM's classes: the JVM starts from it instead
of loading and verifying tens of thousands of Spark, Hive and DataNucleus classes anew.

On the 2-core machine of the README's figures a session started in 2.7 s instead of 4.5 and opened
a new metastore in 2.6 s instead of 3.8; ``mqsmf load`` of a large day into a new warehouse took
17.2-17.6 s instead of 20.8-21.9 s. Every ``mqsmf`` command starts a JVM, so each gains this.

How (Java 13 and later: dynamic archives, JEP 350):

- ``python -m mqsmf.spark.class_archive`` (``.ci/setup`` runs it) writes the archive if this
  installation has none: a session of its own, started with ``-XX:ArchiveClassesAtExit``, loads a
  small generated day into a temporary warehouse and queries it; its JVM writes the classes it
  loaded when it exits (half a minute in all, once). The archive is put in place only when that JVM
  exited cleanly and a JVM starts with it: a cut-short archive crashes every JVM that maps it;
- every session starts with ``-XX:SharedArchiveFile`` when the archive is in place, else without.
  The JVM checks the archive against its own build and class path and ignores one that does not
  match; the archive's name carries a hash of the Java runtime, the pyspark jars (names, sizes and
  times, which the JVM checks too) and the session's extra class path, so an upgrade or a reinstall
  needs a new one (archives no session used for 14 days are
  removed when one is written). A JVM that does not start with the archive is started again
  without it, and the archive removed;
- one process at a time writes an archive (a lock file naming its pid; a dead holder's lock is
  taken over); the JVM's log of the archive is off, so nothing reaches the terminal.

Environment: ``MQSMF_JVM_CLASS_ARCHIVE`` = ``on`` (default) or ``off``; ``MQSMF_CACHE_DIR``: the
folder of the archives (default ``$XDG_CACHE_HOME/mqsmf``, else ``~/.cache/mqsmf``), a cache:
deleting it only costs sessions their faster start until it is written again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ENABLE_ENV = "MQSMF_JVM_CLASS_ARCHIVE"
WRITE_ENV = "MQSMF_JVM_CLASS_ARCHIVE_WRITE"  # the writer's own session: where its JVM writes
CACHE_ENV = "MQSMF_CACHE_DIR"
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
# The session's settings that change the driver's class path: part of the archive's name.
CLASS_PATH_CONF = ("spark.jars", "spark.jars.packages", "spark.driver.extraClassPath")
DYNAMIC_ARCHIVE_JAVA = 13  # the first Java with -XX:ArchiveClassesAtExit
# The archive's own log lines (a mismatch, the classes a dump skips): the archive is an
# optimisation, a session without it is the same session.
QUIET = "-Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
EXIT_WAIT_SECONDS = 120  # writing the archive at exit takes a few seconds
UNUSED_DAYS = 14  # an archive no session used for this long belongs to an older installation


@dataclass(frozen=True)
class Plan:
    """What a session's JVM does with the archive: ``use`` it, ``write`` it (to ``temporary``, renamed
    to ``archive`` once the JVM exited cleanly), or nothing (``options`` empty)."""

    action: str  # "use", "write" or "none"
    archive: Path | None = None
    temporary: Path | None = None
    lock: Path | None = None
    why: str = ""

    @property
    def options(self) -> str:
        if self.action == "use":
            return f"-XX:SharedArchiveFile={self.archive} {QUIET}"
        if self.action == "write":
            return f"-XX:ArchiveClassesAtExit={self.temporary} {QUIET}"
        return ""


def cache_dir() -> Path:
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mqsmf"


def java_executable() -> Path | None:
    """The java that spark-submit runs (``$JAVA_HOME/bin/java``, else ``java`` on the PATH)."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    return Path(found).resolve() if found and Path(found).exists() else None


def java_release(java: Path) -> dict[str, str]:
    """The runtime's ``release`` file (``JAVA_VERSION="17.0.15"``, ...), empty if it has none."""
    for home in (java.parent.parent, java.parent.parent.parent):  # a JDK, or the jre/ inside an old one
        release = home / "release"
        if release.is_file():
            pairs = re.findall(r'^(\w+)="?([^"\n]*)"?$', release.read_text(errors="replace"), re.M)
            return dict(pairs)
    return {}


def java_major(version: str) -> int | None:
    """17 for "17.0.15", 8 for "1.8.0_402"."""
    match = re.match(r"(\d+)(?:\.(\d+))?", version)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def archive_key(java: Path, release: dict[str, str], conf: dict[str, str]) -> str:
    """What the archive depends on: the runtime, the jars Spark starts with, the extra class path."""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    # Size and time of each jar, as the JVM checks them: a reinstall at the same path needs a new archive.
    stats = ((p.name, p.stat()) for p in jars.glob("*.jar")) if jars.is_dir() else ()
    listing = sorted(f"{name}:{st.st_size}:{st.st_mtime_ns}" for name, st in stats)
    parts = [str(java), release.get("JAVA_RUNTIME_VERSION", release.get("JAVA_VERSION", "")), pyspark.__version__]
    parts += [str(jars), *listing, *(f"{k}={conf.get(k, '')}" for k in CLASS_PATH_CONF)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _take_lock(lock: Path) -> bool:
    """Create ``lock`` naming this process; take over one whose process is gone."""
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                holder = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                holder = 0
            if holder and _alive(holder):
                return False
            lock.unlink(missing_ok=True)  # its writer died: take it over
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def _remove_leftovers(folder: Path) -> None:
    """Temporary files of writers that died, and archives no session used for ``UNUSED_DAYS`` (another
    installation on the machine keeps its own archive in use: each use touches it)."""
    unused_since = time.time() - UNUSED_DAYS * 86400
    for path in folder.glob("spark-*.jsa*"):
        if path.name.endswith(".tmp"):
            pid = path.name.rsplit(".", 2)[-2]
            if pid.isdigit() and not _alive(int(pid)):
                path.unlink(missing_ok=True)
        elif path.stat().st_mtime < unused_since:
            path.unlink(missing_ok=True)


def _runtime(conf: dict[str, str]) -> tuple[Path | None, str, str]:
    """The archive this installation's sessions use (its path, None if this Java cannot), and why not."""
    if os.environ.get(ENABLE_ENV, "on").strip().lower() in ("off", "0", "false", "no"):
        return None, "", f"{ENABLE_ENV} is off"
    java = java_executable()
    if java is None:
        return None, "", "no java found"
    release = java_release(java)
    major = java_major(release.get("JAVA_VERSION", ""))
    if major is None or major < DYNAMIC_ARCHIVE_JAVA:
        return None, "", f"Java {release.get('JAVA_VERSION', 'of unknown version')} has no dynamic archives"
    name = f"spark-{archive_key(java, release, conf)}"
    return cache_dir() / "jvm" / f"{name}.jsa", name, ""


def plan(conf: dict[str, str]) -> Plan:
    """What a session's JVM does with the archive: use it when it is in place (see the module doc)."""
    if os.environ.get(WRITE_ENV):
        return Plan("write", temporary=Path(os.environ[WRITE_ENV]))
    archive, _, why = _runtime(conf)
    if archive is None:
        return Plan("none", why=why)
    if not archive.is_file():
        return Plan("none", archive, why=f"no archive yet (python -m {__name__} writes it)")
    with contextlib.suppress(OSError):
        os.utime(archive)  # in use (see _remove_leftovers)
    return Plan("use", archive)


def writing_plan(conf: dict[str, str]) -> Plan:
    """The writer's: a temporary file and the lock, unless the archive is in place or being written."""
    archive, name, why = _runtime(conf)
    if archive is None or archive.is_file():
        return Plan("none", archive, why=why or "in place")
    folder = archive.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(folder)
        lock = folder / f"{name}.lock"
        if not _take_lock(lock):
            return Plan("none", archive, why="another process is writing the archive")
    except OSError as e:  # a read-only home: sessions run without
        return Plan("none", archive, why=f"cannot write {folder}: {e}")
    return Plan("write", archive, folder / f"{name}.jsa.{os.getpid()}.tmp", lock)


def with_options(conf: dict[str, str], chosen: Plan) -> dict[str, str]:
    if not chosen.options:
        return conf
    return {**conf, JAVA_OPTIONS: f"{conf.get(JAVA_OPTIONS, '')} {chosen.options}".strip()}


def starts_with(archive: Path) -> bool:
    """Whether a JVM starts with ``archive``: one cut short (a full disk, a writer killed) crashes
    every JVM that maps it, so an archive is checked before it is put in place."""
    import subprocess

    java = java_executable()
    if java is None or not archive.is_file():
        return False
    command = [str(java), f"-XX:SharedArchiveFile={archive}", *QUIET.split(), "-version"]
    with tempfile.TemporaryDirectory(prefix="mqsmf-archive-check-") as work:  # where a crash reports
        return subprocess.run(command, capture_output=True, timeout=60, cwd=work).returncode == 0


def discard(chosen: Plan) -> Plan:
    """After a JVM failed to start with ``chosen``'s archive: remove it (``main`` writes a new one)
    and start without."""
    if chosen.action == "use":
        chosen.archive.unlink(missing_ok=True)
    return Plan("none", why="the JVM did not start with the archive")


def end_jvm() -> int | None:
    """Stop Spark and end the driver JVM (it exits when its standard input ends; a JVM started with
    ``-XX:ArchiveClassesAtExit`` writes the archive then): its exit code, None without one."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()
    if proc is None:
        return None
    gateway.shutdown()
    proc.stdin.close()
    return proc.wait(timeout=EXIT_WAIT_SECONDS)


def main(workload: str | None = None) -> int:
    """Write this installation's archive if it has none: a session of its own loads a small generated
    day into a temporary warehouse and queries it, so the archive holds the classes of the metastore,
    a load and a query; the archive is put in place once its JVM exited cleanly and a JVM starts
    with it. Sessions that start meanwhile run without it. ``workload``: another session script
    (Python source; argv[1] is the generated day), e.g. a smaller one in a test."""
    import subprocess

    from .profile import local_conf

    chosen = writing_plan(local_conf())
    if chosen.action != "write":  # in place already, being written, or not for this Java
        return 0
    try:
        with tempfile.TemporaryDirectory(prefix="mqsmf-archive-") as work:
            day = Path(work) / "day.dat"
            generate = [sys.executable, "-m", "mqsmf.cli", "generate", "--out", str(day)]
            generate += ["--qmgrs", "1", "--queues", "5", "--intervals", "2"]
            subprocess.run(generate, check=True, stdout=subprocess.DEVNULL)
            env = {**os.environ, "MQSMF_WAREHOUSE_DIR": str(Path(work) / "warehouse"), WRITE_ENV: str(chosen.temporary)}
            subprocess.run([sys.executable, "-c", workload or _WORKLOAD, str(day)], check=True, env=env)
        if not starts_with(chosen.temporary):
            print(f"mqsmf: the JVM class archive {chosen.archive} was not written; sessions start without it")
            return 1
        os.replace(chosen.temporary, chosen.archive)
    finally:
        chosen.temporary.unlink(missing_ok=True)
        chosen.lock.unlink(missing_ok=True)
    print(f"mqsmf: JVM class archive written: {chosen.archive}")
    return 0


# The writer's session (its own process): a load, a join of two loaded tables, then its JVM ends.
_WORKLOAD = """
import sys
from mqsmf.spark import class_archive
from mqsmf.spark.load import load_files
from mqsmf.spark.session import local_session
from mqsmf.warehouse import RAW_SCHEMA, qualified, raw_table
spark = local_session()
load_files(spark, [sys.argv[1]])
queues, managers = qualified(RAW_SCHEMA, raw_table("QQST")), qualified(RAW_SCHEMA, raw_table("QMST"))
spark.sql(
    f"SELECT s.qmgr, count(*), max(s.interval_start) FROM {queues} s "
    f"JOIN {managers} m ON s.qmgr = m.qmgr GROUP BY s.qmgr"
).collect()
sys.exit(class_archive.end_jvm())
"""


if __name__ == "__main__":
    sys.exit(main())
