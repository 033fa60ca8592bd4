"""The ``mqsmf`` command as a user runs it (a subprocess of the installed console script): help,
--version, --quiet/--verbose, --json, progress, and the exit-status contract (0 ok, 1 data problems,
2 usage or input errors, with one line on stderr and no traceback). The expectations come from the
generator's manifest and from files built here, not from the reader.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from mqsmf.cli import build_parser

MQSMF = str(Path(sys.executable).with_name("mqsmf"))
OWNED_ELSEWHERE = {"check"}  # `mqsmf check`'s options and exit contract are tested with the gate


def mqsmf(*args: str, cwd: str | os.PathLike | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MQSMF, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def one_line_error(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    work = tmp_path_factory.mktemp("cli")
    day, damaged = work / "day.dat", work / "damaged.dat"
    common = ["--qmgrs", "2", "--queues", "6", "--intervals", "2"]
    # --events: the queue depth events the day implies, one dmpmqmsg dump per queue manager
    assert mqsmf("generate", "--out", str(day), *common, "--events").returncode == 0
    assert mqsmf("generate", "--out", str(damaged), *common, "--corrupt", "badrdw").returncode == 0
    (work / "empty.dat").write_bytes(b"")
    (work / "text.dat").write_text("SMF? no: a text file that happens to end in .dat\n" * 40)
    # The same records, every one re-typed as SMF type 30 (job accounting): well framed, no MQ data.
    data = bytearray(day.read_bytes())
    p = 0
    while p < len(data):
        length = int.from_bytes(data[p : p + 2], "big")
        if data[p + 2] in (0, 1):  # a whole record or its first segment: the SMF header is here
            data[p + 5] = 30
        p += length
    (work / "not_mq.dat").write_bytes(bytes(data))
    return work


def test_version_is_the_installed_distributions():
    done = mqsmf("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"mqsmf {version('mqsmf')}"


def _commands(parser: argparse.ArgumentParser, path=("mqsmf",)):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), helps.get(name), sub


def test_every_command_and_option_has_help_and_states_the_exit_contract():
    parser = build_parser()
    commands = list(_commands(parser))
    assert {c[0][1] for c in commands} >= {"decode", "inspect", "init", "generate", "load", "run", "report"}
    missing = []
    for path, help_text, sub in commands:
        if path[1] in OWNED_ELSEWHERE:
            continue
        if not help_text or not sub.description:
            missing.append(" ".join(path))
        if "exit status: 0" not in (sub.epilog or ""):
            missing.append(" ".join(path) + " (exit status)")
        for action in sub._actions:
            if not isinstance(action, argparse._HelpAction) and action.help in (None, "", argparse.SUPPRESS):
                missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing
    done = mqsmf("--help")
    assert done.returncode == 0 and "exit status: 0 ok; 1 data problems" in " ".join(done.stdout.split())


def test_inspect_json_matches_the_generators_manifest(files):
    manifest = json.loads((files / "day.dat.manifest.json").read_text())
    done = mqsmf("inspect", "--json", str(files / "day.dat"))
    assert done.returncode == 0, done.stderr
    (info,) = json.loads(done.stdout)["files"]  # stdout holds the JSON alone
    assert info["size"] == manifest["file"]["size"] and info["sha256"] == manifest["file"]["sha256"]
    assert info["framing"] == manifest["file"]["framing"] and info["segments"] == manifest["file"]["segments"]
    assert {r["label"]: r["read"] for r in info["records"]} == manifest["file"]["records_by_type"]
    assert {k: n for k, n in info["structures"].items() if n} == manifest["counts"]["instances"]
    assert info["quarantine"]["spans"] == 0
    assert sorted(info["queue_managers"]) == sorted(q["name"] for q in manifest["qmgrs"])
    assert str(files / "day.dat") in done.stderr  # the human-readable summary went to stderr


def test_quarantine_is_exit_status_1_for_inspect_and_decode(files, tmp_path):
    manifest = json.loads((files / "damaged.dat.manifest.json").read_text())
    assert manifest["corruptions"]
    done = mqsmf("inspect", "--json", str(files / "damaged.dat"))
    assert done.returncode == 1, done.stderr
    (info,) = json.loads(done.stdout)["files"]
    assert info["quarantine"]["spans"] >= 1
    offsets = [c["offset"] for c in manifest["corruptions"]]
    assert any(e["offset"] <= min(offsets) < e["offset"] + e["length"] for e in info["quarantine"]["entries"])
    decoded = mqsmf("decode", "--out", str(tmp_path / "out"), str(files / "damaged.dat"))
    assert decoded.returncode == 1
    assert "quarantined" in decoded.stderr and "Traceback" not in decoded.stderr
    assert (tmp_path / "out").is_dir() and any((tmp_path / "out").iterdir())  # the good records are kept


@pytest.mark.parametrize(
    ("command", "name", "words"),
    [
        ("inspect", "empty.dat", ("empty.dat", "empty file")),
        ("decode", "empty.dat", ("empty.dat", "empty file")),
        ("inspect", "text.dat", ("text.dat", "not an SMF dump")),
        ("inspect", "not_mq.dat", ("not_mq.dat", "no IBM MQ statistics records", "30/216")),
        ("decode", "not_mq.dat", ("not_mq.dat", "no IBM MQ statistics records")),
        ("inspect", "missing.dat", ("missing.dat", "no such file")),
        ("load", "empty.dat", ("empty.dat", "empty file")),
        ("load", "text.dat", ("text.dat", "not an SMF dump")),
        ("load", "missing.dat", ("missing.dat", "no such file")),
        ("run", "text.dat", ("text.dat", "not an SMF dump")),
        ("run", "missing.dat", ("missing.dat", "no such file")),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(files, tmp_path, command, name, words):
    extra = ["--out", str(tmp_path / "out")] if command == "decode" else []
    # load and run check their files before they start Spark: these never start it
    done = mqsmf(command, *extra, str(files / name), env={"MQSMF_WAREHOUSE_DIR": str(tmp_path / "wh")})
    one_line_error(done, f"mqsmf {command}:", *words)
    assert not (tmp_path / "wh" / "metastore_db").exists()  # nothing was started, nothing loaded


def test_unknown_structure_and_usage_errors_are_exit_status_2(files, tmp_path):
    done = mqsmf("decode", "--structure", "QXYZ", "--out", str(tmp_path / "o"), str(files / "day.dat"))
    one_line_error(done, "unknown structure 'QXYZ'", "QQST")
    assert not (tmp_path / "o").exists()
    for args in (["inspect"], ["decode", "--format", "xml", "x.dat"], ["no-such-command"]):
        done = mqsmf(*args)
        assert done.returncode == 2 and "usage: mqsmf" in done.stderr and "Traceback" not in done.stderr, args


def test_inspect_goes_on_after_a_bad_file_and_reports_the_worst_status(files):
    done = mqsmf("inspect", "--json", str(files / "empty.dat"), str(files / "day.dat"))
    assert done.returncode == 1  # one file read, one skipped: done, with a problem in the input
    bad, good = json.loads(done.stdout)["files"]
    assert "empty file" in bad["error"] and good["quarantine"]["spans"] == 0


def event_dumps(files: Path) -> list[Path]:
    return sorted(files.glob("day.dat.*.perfm.dmp"))


def test_event_dumps_are_recognised_by_content_in_inspect_and_decode(files, tmp_path):
    """A dmpmqmsg dump is input like an SMF dump: inspect summarises it, decode writes its events.
    The expected counts are the generator's events manifest, not the reader's."""
    truth = json.loads((files / "day.dat.events.manifest.json").read_text())
    dumps = event_dumps(files)
    assert len(dumps) == 2
    renamed = tmp_path / "events.txt"  # the name says nothing: the content decides
    renamed.write_bytes(dumps[0].read_bytes())
    done = mqsmf("inspect", "--json", *map(str, dumps), str(renamed))
    assert done.returncode == 0, done.stderr
    infos = json.loads(done.stdout)["files"]
    assert {i["kind"] for i in infos} == {"events"} and all(i["framing"] == "dmpmqmsg" for i in infos)
    decoded = sum(i["messages"]["decoded"] for i in infos[:2])
    assert decoded == len(truth["events"]) > 0
    assert infos[2]["messages"] == infos[0]["messages"]
    out = tmp_path / "out"
    done = mqsmf("decode", "--format", "csv", "--out", str(out), str(files / "day.dat"), *map(str, dumps))
    assert done.returncode == 0, done.stderr
    lines = (out / "PERFM_EVENT.csv").read_text().splitlines()
    assert len(lines) - 1 == len(truth["events"])  # a header, then one row per event
    assert (out / "QQST.csv").is_file()  # the SMF dump beside them, decoded too
    only_events = mqsmf("decode", "--structure", "perfm_event", "--out", str(tmp_path / "o2"), str(dumps[0]))
    assert only_events.returncode == 0 and [p.name for p in (tmp_path / "o2").iterdir()] == ["PERFM_EVENT.jsonl"]


@pytest.mark.parametrize("command", ["inspect", "decode"])
def test_a_file_that_is_no_dump_is_skipped_and_the_others_read(files, tmp_path, command):
    """The generator's manifest beside its day, as in a landing folder: reported on one line and
    skipped, the day still read, exit status 1 (done, with a problem in the input)."""
    manifest = files / "day.dat.manifest.json"
    extra = ["--out", str(tmp_path / "out")] if command == "decode" else []
    done = mqsmf(command, *extra, str(manifest), str(files / "day.dat"))
    assert done.returncode == 1, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "day.dat.manifest.json" in x]
    assert line.startswith(f"mqsmf {command}:") and "not an SMF dump" in line and line.endswith("skipped")
    assert "Traceback" not in done.stderr
    if command == "decode":
        rows = (tmp_path / "out" / "QQST.jsonl").read_text().count("\n")
        assert rows == json.loads(manifest.read_text())["counts"]["instances"]["QQST"]


def test_run_reads_only_what_it_is_given_and_never_generates_unasked(files, tmp_path):
    """A scheduled `mqsmf run` with nothing configured stops before Spark, saying what to do; the
    generated day needs --demo, which takes no paths."""
    env = {"MQSMF_WAREHOUSE_DIR": str(tmp_path / "wh"), "MQSMF_LANDING_DIR": ""}
    project = tmp_path / "project"  # a project with no landing/ folder
    assert mqsmf("init", str(project)).returncode == 0
    done = mqsmf("run", "--project-dir", str(project), env=env)
    one_line_error(done, "mqsmf run:", "no dumps to read", "--landing", "--demo")
    missing = mqsmf("run", "--project-dir", str(project), "--landing", str(tmp_path / "nowhere"), env=env)
    one_line_error(missing, "mqsmf run:", "does not exist")
    both = mqsmf("run", "--project-dir", str(project), "--demo", str(files / "day.dat"), env=env)
    one_line_error(both, "mqsmf run:", "--demo")
    assert not (tmp_path / "wh").exists() and not (project / "target").exists()  # nothing ran


def test_quiet_prints_nothing_but_errors_and_verbose_adds_the_traceback(files, tmp_path):
    for args in (["-q", "inspect"], ["inspect", "--quiet"]):
        done = mqsmf(*args, str(files / "day.dat"))
        assert done.returncode == 0 and done.stdout == "" and done.stderr == "", args
    done = mqsmf("inspect", "-q", "--json", str(files / "day.dat"))
    assert done.returncode == 0 and json.loads(done.stdout)["files"][0]["size"] > 0 and done.stderr == ""
    assert mqsmf("-q", "inspect", str(files / "damaged.dat")).stdout == ""
    # An error nobody planned for (the output folder is a file): one line, the traceback with --verbose
    clash = tmp_path / "clash"
    clash.write_text("a file where the output folder should go")
    plain = mqsmf("decode", "--out", str(clash), str(files / "day.dat"))
    one_line_error(plain, "mqsmf decode:", "--verbose")
    verbose = mqsmf("decode", "--verbose", "--out", str(clash), str(files / "day.dat"))
    assert verbose.returncode == 2 and "Traceback" in verbose.stderr


def test_progress_only_when_asked_or_on_a_terminal(files, tmp_path):
    quiet = mqsmf("inspect", str(files / "day.dat"))
    assert "B/s" not in quiet.stderr  # stderr is a pipe here: no progress by default
    shown = mqsmf("inspect", "--progress", str(files / "day.dat"))
    assert shown.returncode == 0 and "100%|" in shown.stderr and "B/s]" in shown.stderr
    decoded = mqsmf("decode", "--progress", "--out", str(tmp_path / "o"), str(files / "day.dat"))
    assert decoded.returncode == 0 and "100%|" in decoded.stderr
    assert "100%" not in mqsmf("inspect", "--progress", "--quiet", str(files / "day.dat")).stderr


def test_decode_writes_times_spreadsheets_read_and_raw_clocks_on_request(files, tmp_path):
    """CSV and JSON lines carry times as 'YYYY-MM-DD HH:MM:SS.fff' (no T, no zone suffix: what
    spreadsheets read as a date-time), UTC except the *_local columns; --raw-times writes the
    64-bit clocks the records hold. The two agree by the TOD clock's own definition (bit 51 is one
    microsecond since 1900-01-01 00:00 UTC), computed here, not by the package."""
    import csv
    from datetime import datetime, timedelta

    day = str(files / "day.dat")
    runs = {
        name: mqsmf("decode", *args, "--structure", "QJST", "--out", str(tmp_path / name), day)
        for name, args in (("csv", ["--format", "csv"]), ("jsonl", []), ("raw", ["--raw-times"]))
    }
    assert all(done.returncode == 0 for done in runs.values()), {k: v.stderr for k, v in runs.items()}
    rows = list(csv.DictReader((tmp_path / "csv" / "QJST.csv").open()))
    lines = [json.loads(line) for line in (tmp_path / "jsonl" / "QJST.jsonl").read_text().splitlines()]
    raw = [json.loads(line) for line in (tmp_path / "raw" / "QJST.jsonl").read_text().splitlines()]
    assert len(rows) == len(lines) == len(raw) > 0
    shape = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
    for row, line, clocks in zip(rows, lines, raw, strict=True):
        assert row["record_offset"] == str(line["record_offset"]) == str(clocks["record_offset"])
        for column in ("smf_time", "smf_time_local", "record_stck", "interval_start", "interval_start_local"):
            assert shape.fullmatch(row[column]) and row[column] == line[column], (column, row[column])
        # STCK: bits 0-51 count microseconds since 1900 (UTC), truncated to milliseconds for the text
        stck = clocks["qwhs_stck"]
        assert isinstance(stck, int) and stck > 2**62
        utc = datetime(1900, 1, 1) + timedelta(microseconds=stck >> 12)
        assert row["record_stck"] == utc.strftime("%Y-%m-%d %H:%M:%S.%f")[:23]
        # the *_local columns are the system's local time: UTC moved by the record's offset
        parse = lambda text: datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")  # noqa: E731
        offset = timedelta(minutes=int(row["utc_offset_minutes"]))
        assert parse(row["interval_start_local"]) - parse(row["interval_start"]) == offset
    # --raw-times: no readable time in the CSV either, the clock as its integer
    raw_csv = mqsmf(
        "decode", "--raw-times", "--format", "csv", "--structure", "QJST", "--out", str(tmp_path / "rc"), day
    )
    assert raw_csv.returncode == 0, raw_csv.stderr
    first = next(csv.DictReader((tmp_path / "rc" / "QJST.csv").open()))
    assert first["qwhs_stck"] == str(raw[0]["qwhs_stck"]) and "record_stck" not in first


def test_init_writes_a_ready_project_and_never_overwrites_by_surprise(tmp_path):
    root = Path(__file__).resolve().parents[2]
    dest = tmp_path / "smf-project"
    done = mqsmf("init", str(dest))
    assert done.returncode == 0, done.stderr
    assert "mqsmf report" in done.stdout and "mqsmf run" in done.stdout  # the next steps, all of them
    expected = {
        p.relative_to(root)
        for folder in ("models", "macros", "seeds", "tests/dbt")
        for p in (root / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    } | {Path("dbt_project.yml"), Path("profiles/profiles.yml"), Path("profiles/spark-log4j2.properties")}
    written = {p.relative_to(dest) for p in dest.rglob("*") if p.is_file()}
    assert written == expected | {Path(".gitignore"), Path(".mqsmf-project.json")}
    assert all((dest / rel).read_bytes() == (root / rel).read_bytes() for rel in expected)
    again = mqsmf("init", str(dest))
    one_line_error(again, "mqsmf init:", "not empty", "--force")
    (dest / "models" / "marts" / "dim_queue.sql").write_text("changed")  # a model: not configuration
    (dest / "mine.txt").write_text("kept")
    assert mqsmf("init", "--force", str(dest)).returncode == 0
    assert (dest / "mine.txt").read_text() == "kept"
    assert (dest / "models" / "marts" / "dim_queue.sql").read_bytes() == (
        root / "models/marts/dim_queue.sql"
    ).read_bytes()
    assert not list(dest.rglob("*.bak-*"))  # nothing of the site's configuration was changed: no backup


def test_init_writes_a_gitignore_that_keeps_the_data_out_of_git(tmp_path):
    dest = tmp_path / "p"
    assert mqsmf("init", str(dest)).returncode == 0
    for rel in (
        "warehouse/metastore_db/x",
        "target/report/index.html",
        "landing/_loaded/2026-11-29/day.dat",
        "landing/new.dat",
    ):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text("data")
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"], cwd=dest, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "dbt_project.yml" in listed and "seeds/site_config_queues.csv" in listed and ".mqsmf-project.json" in listed
    assert not [p for p in listed if p.startswith(("warehouse/", "target/", "landing/"))], listed
    # A .gitignore of the site's own is never replaced.
    (dest / ".gitignore").write_text("mine\n")
    assert mqsmf("init", "--force", str(dest)).returncode == 0
    assert (dest / ".gitignore").read_text() == "mine\n"


def test_init_force_backs_up_the_sites_configuration_before_replacing_it(tmp_path):
    root = Path(__file__).resolve().parents[2]
    dest = tmp_path / "p"
    assert mqsmf("init", str(dest)).returncode == 0
    seed = dest / "seeds" / "site_config_queue_managers.csv"
    site = seed.read_text() + "QM99,,,,\n"
    seed.write_text(site)
    (dest / "profiles" / "profiles.yml").write_text("# the site's profile\n")
    done = mqsmf("init", "--force", str(dest))
    assert done.returncode == 0, done.stderr
    backups = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.bak-*"))
    assert [b.split(".bak-")[0] for b in backups] == ["profiles/profiles.yml", "seeds/site_config_queue_managers.csv"]
    assert re.fullmatch(r"\d{8}T\d{6}Z", backups[0].split(".bak-")[1])
    (backup,) = dest.glob("seeds/site_config_queue_managers.csv.bak-*")
    assert backup.read_text() == site and backup.name in done.stdout
    # the packaged files are in place again; dbt reads only *.csv seeds, so the backup is no seed
    assert seed.read_bytes() == (root / "seeds" / "site_config_queue_managers.csv").read_bytes()
    # A second --force: nothing changed since the last init wrote it, so no new backup.
    assert mqsmf("init", "--force", str(dest)).returncode == 0
    assert len(list(dest.rglob("*.bak-*"))) == 2
    # A project written before init kept a record: a configuration file that differs is kept too.
    (dest / ".mqsmf-project.json").unlink()
    (dest / "seeds" / "mp16_rules.csv").write_text("rule_id\n")
    assert mqsmf("init", "--force", str(dest)).returncode == 0
    assert len(list(dest.glob("seeds/mp16_rules.csv.bak-*"))) == 1


def test_mqsmf_warns_once_when_the_project_was_written_by_another_version(tmp_path, files):
    dest = tmp_path / "p"
    assert mqsmf("init", str(dest)).returncode == 0
    stamp = json.loads((dest / ".mqsmf-project.json").read_text())
    assert stamp["mqsmf_version"] == version("mqsmf")
    env = {"MQSMF_PROJECT_DIR": ""}
    same = mqsmf("inspect", str(files / "day.dat"), cwd=dest, env=env)
    assert same.returncode == 0 and "warning" not in same.stderr
    (dest / ".mqsmf-project.json").write_text(json.dumps({**stamp, "mqsmf_version": "0.0.1"}))
    for args, cwd, extra in (
        (("inspect", str(files / "day.dat")), dest / "models", env),  # found upwards from a subfolder
        (
            ("generate", "--out", str(tmp_path / "g.dat"), "--intervals", "1", "--queues", "1"),
            tmp_path,
            {"MQSMF_PROJECT_DIR": str(dest)},
        ),
    ):
        done = mqsmf(*args, cwd=cwd, env=extra)
        assert done.returncode == 0, done.stderr
        warnings = [line for line in done.stderr.splitlines() if "warning" in line]
        assert len(warnings) == 1, done.stderr
        assert "0.0.1" in warnings[0] and version("mqsmf") in warnings[0] and "init --force" in warnings[0]
        assert str(dest) in warnings[0]
    # init itself (which updates the project) and --quiet say nothing; the update clears it.
    assert "warning" not in mqsmf("inspect", "--quiet", str(files / "day.dat"), cwd=dest, env=env).stderr
    assert "warning" not in mqsmf("init", "--force", str(dest)).stderr
    assert "warning" not in mqsmf("inspect", str(files / "day.dat"), cwd=dest, env=env).stderr


@pytest.mark.spark
def test_load_json_summary_quarantine_event_dumps_and_files_that_are_no_mq_data(files, tmp_path):
    """One real `mqsmf load` (its own Spark and warehouse), as the README shows it with events: a
    damaged day, its queue depth event dumps, a file of other SMF records and the generator's
    manifest. Exit status 1 (the manifest is skipped, the other SMF file holds no MQ data), the events
    and the undamaged records are loaded, the JSON says what was loaded."""
    manifest = json.loads((files / "damaged.dat.manifest.json").read_text())
    truth = json.loads((files / "day.dat.events.manifest.json").read_text())
    env = {"MQSMF_WAREHOUSE_DIR": str(tmp_path / "wh"), "MQSMF_SPOOL_DIR": str(tmp_path / "spool")}
    paths = [files / "damaged.dat", *event_dumps(files), files / "not_mq.dat", files / "day.dat.manifest.json"]
    done = mqsmf("load", "--json", *map(str, paths), env=env)
    assert done.returncode == 1, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["exit_status"] == 1 and summary["files"] == 4
    assert summary["files_without_mq_records"] == [str(files / "not_mq.dat")]
    assert summary["files_not_dumps"] == [str(files / "day.dat.manifest.json")]
    assert summary["rows_inserted"]["PERFM_EVENT"] == len(truth["events"]) > 0
    assert summary["records_quarantined"] >= 1 and summary["quarantine_rows_inserted"] >= 1
    kept = manifest["counts"]["instances"]["QQST"]
    assert 0 < summary["rows_inserted"]["QQST"] <= kept  # the undamaged records are in the table
    assert "quarantined" in done.stderr and "no IBM MQ statistics records" in done.stderr
    assert "Traceback" not in done.stderr
