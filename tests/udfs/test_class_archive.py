"""The driver JVM's class-data-sharing archive (``mqsmf.spark.class_archive``): when a session writes
it, uses it or runs without, and that a real JVM maps it, says nothing about it, and survives a
damaged one (a truncated archive crashes a JVM that maps it: it must never be used)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqsmf.spark import class_archive

ROOT = Path(__file__).resolve().parents[2]


def fake_java(tmp_path: Path, version: str) -> Path:
    home = tmp_path / f"jdk-{version}"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\n")
    java.chmod(0o755)
    (home / "release").write_text(f'IMPLEMENTOR="Test"\nJAVA_VERSION="{version}"\n')
    return java


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(class_archive.CACHE_ENV, str(folder))
    monkeypatch.delenv(class_archive.ENABLE_ENV, raising=False)
    java = fake_java(tmp_path, "17.0.15")
    monkeypatch.setattr(class_archive, "java_executable", lambda: java)
    return folder / "jvm"


def test_java_versions_are_read_as_their_major_release():
    assert [class_archive.java_major(v) for v in ("17.0.15", "1.8.0_402", "21", "11.0.2", "")] == [
        17,
        8,
        21,
        11,
        None,
    ]


def test_sessions_run_without_until_the_writer_holds_the_lock_and_then_use_it(cache):
    before = class_archive.plan({})
    assert (before.action, before.options) == ("none", "")
    assert "python -m mqsmf.spark.class_archive" in before.why
    writer = class_archive.writing_plan({})
    assert writer.action == "write" and writer.archive == before.archive
    assert writer.options.startswith(f"-XX:ArchiveClassesAtExit={writer.temporary} ")
    assert writer.temporary.parent == cache and str(os.getpid()) in writer.temporary.name
    assert writer.lock.read_text() == str(os.getpid())
    # While this process writes it, another writer does nothing and sessions run without.
    assert class_archive.writing_plan({}).why == "another process is writing the archive"
    assert class_archive.plan({}).action == "none"
    writer.archive.write_bytes(b"archive")
    os.utime(writer.archive, (1, 1))
    used = class_archive.plan({})
    assert used.action == "use"
    assert used.options.split()[0] == f"-XX:SharedArchiveFile={writer.archive}"
    assert "-Xlog:cds=off" in used.options
    assert writer.archive.stat().st_mtime > time.time() - 60, "its use was not marked"
    assert class_archive.writing_plan({}).action == "none"


def test_the_writers_own_session_writes_where_it_is_told(cache, monkeypatch):
    monkeypatch.setenv(class_archive.WRITE_ENV, str(cache / "x.tmp"))
    assert class_archive.plan({}).options.startswith(f"-XX:ArchiveClassesAtExit={cache / 'x.tmp'} ")


def test_a_dead_writers_lock_and_temporary_file_are_taken_over(cache):
    first = class_archive.writing_plan({})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = dead.stdout.strip()
    first.lock.write_text(pid)
    left = cache / f"{first.archive.name}.{pid}.tmp"
    left.write_bytes(b"cut short")
    again = class_archive.writing_plan({})
    assert again.action == "write" and again.lock.read_text() == str(os.getpid())
    assert not left.exists()


def test_writing_removes_archives_unused_for_weeks_and_keeps_recent_ones(cache):
    cache.mkdir(parents=True)
    old, recent = cache / "spark-0000000000000000.jsa", cache / "spark-1111111111111111.jsa"
    for path in (old, recent):
        path.write_bytes(b"x")
    weeks_ago = time.time() - (class_archive.UNUSED_DAYS + 1) * 86400
    os.utime(old, (weeks_ago, weeks_ago))
    assert class_archive.writing_plan({}).action == "write"
    assert not old.exists() and recent.exists()


def test_the_class_path_is_part_of_the_archives_name(cache):
    plain = class_archive.plan({})
    with_jar = class_archive.plan({"spark.jars": "/opt/extra.jar"})
    assert plain.archive.parent == with_jar.archive.parent and plain.archive != with_jar.archive


def test_a_reinstalled_jar_changes_the_archives_name(cache, tmp_path, monkeypatch):
    """The JVM refuses an archive whose jars have another size or time (and says nothing, its log is
    off): the name must change with them, or sessions would keep a useless archive."""
    import pyspark

    fake = tmp_path / "pyspark"
    (fake / "jars").mkdir(parents=True)
    jar = fake / "jars" / "spark-core.jar"
    jar.write_bytes(b"jar")
    monkeypatch.setattr(pyspark, "__file__", str(fake / "__init__.py"))
    before = class_archive.plan({}).archive
    os.utime(jar, ns=(jar.stat().st_atime_ns, jar.stat().st_mtime_ns + 1_000_000_000))
    assert class_archive.plan({}).archive != before


@pytest.mark.parametrize("version", ["11.0.22", "1.8.0_402", "unknown"])
def test_a_java_without_dynamic_archives_runs_without(tmp_path, monkeypatch, version):
    monkeypatch.setenv(class_archive.CACHE_ENV, str(tmp_path / "cache"))
    java = fake_java(tmp_path, version)
    monkeypatch.setattr(class_archive, "java_executable", lambda: java)
    for chosen in (class_archive.plan({}), class_archive.writing_plan({})):
        assert (chosen.action, chosen.options) == ("none", "")
        assert "no dynamic archives" in chosen.why
    assert not (tmp_path / "cache").exists()


def test_switched_off_it_does_nothing(cache, monkeypatch):
    monkeypatch.setenv(class_archive.ENABLE_ENV, "off")
    assert class_archive.plan({}).options == class_archive.writing_plan({}).options == ""
    assert not cache.exists()


def test_options_are_added_to_the_profiles_java_options():
    chosen = class_archive.Plan("use", Path("/c/spark-1.jsa"))
    conf = class_archive.with_options({class_archive.JAVA_OPTIONS: "-Dx=1", "a": "b"}, chosen)
    assert conf == {class_archive.JAVA_OPTIONS: f"-Dx=1 {chosen.options}", "a": "b"}
    assert class_archive.with_options({"a": "b"}, class_archive.Plan("none")) == {"a": "b"}


# --------------------------------------------------------------------------------------------
# A real JVM
# --------------------------------------------------------------------------------------------

SESSION = """
import os, sys
from pyspark import SparkContext
from mqsmf.spark.session import local_session
spark = local_session()
assert spark.sql("SELECT 40 + 2 AS x").collect()[0].x == 42
maps = open(f"/proc/{SparkContext._gateway.proc.pid}/maps").read()
print("MAPPED" if sys.argv[1] in maps else "NOT MAPPED")
"""


def run(tmp_path: Path, cache: Path, *args: str, name: str = "w") -> subprocess.CompletedProcess:
    env = os.environ | {
        class_archive.CACHE_ENV: str(cache),
        "MQSMF_WAREHOUSE_DIR": str(tmp_path / name),
        "MQSMF_PROJECT_DIR": str(ROOT),
    }
    env.pop(class_archive.ENABLE_ENV, None)
    done = subprocess.run(
        [sys.executable, *args],
        env=env,
        cwd=tmp_path,  # a JVM that crashes writes its report in the current folder
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    return done


# The writer's session, smaller than main's load (the CI's .ci/setup runs that one): a query.
SMALL_WORKLOAD = """
import sys
from mqsmf.spark import class_archive
from mqsmf.spark.session import local_session
local_session().sql("SELECT count(*) FROM range(10)").collect()
sys.exit(class_archive.end_jvm())
"""


@pytest.mark.spark
def test_a_real_jvm_writes_maps_and_outlives_a_damaged_archive(tmp_path):
    cache = tmp_path / "cache"
    writer = f"import sys; from mqsmf.spark import class_archive; sys.exit(class_archive.main({SMALL_WORKLOAD!r}))"
    written = run(tmp_path, cache, "-c", writer, name="first")
    (archive,) = (cache / "jvm").glob("*.jsa")
    assert str(archive) in written.stdout
    assert sorted(p.name for p in (cache / "jvm").iterdir()) == [archive.name], "a lock or temporary file was left"
    assert archive.stat().st_size > 10_000_000  # the classes of Spark and Hive

    used = run(tmp_path, cache, "-c", SESSION, str(archive), name="second")
    assert "MAPPED" in used.stdout.splitlines()
    assert "cds" not in used.stderr.lower() and "shared archive" not in used.stderr.lower()

    # Cut short as a full disk would leave it: a JVM mapping it dies at start (SIGBUS), so the check
    # before an archive is put in place refuses it, and a session finding one runs without it.
    assert class_archive.starts_with(archive)
    archive.chmod(0o644)
    with archive.open("r+b") as f:
        f.truncate(archive.stat().st_size // 2)
    assert not class_archive.starts_with(archive)
    survived = run(tmp_path, cache, "-c", SESSION, str(archive), name="third")
    assert "NOT MAPPED" in survived.stdout.splitlines()
    assert not archive.exists(), "the damaged archive was left for the next session"
