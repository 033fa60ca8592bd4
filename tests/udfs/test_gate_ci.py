"""The gate where CI runs it: every documented command works verbatim, exit codes, CI results.

Every command line of README.md's ```bash blocks (and of the Markdown docs README.md links to) is
decided (``decide``; the test prints the table, nothing is skipped silently) and, by default, run
verbatim in one copy of the project (its own ``target/`` warehouse, no MQSMF_* variables from this
process, a fresh login's environment), each block in one ``bash``, in an order that lets later
blocks use what earlier ones made. First the example CI pipeline
(udfs/mqsmf/quality/ci/github-actions.yml) runs its ``run:`` steps there (generate a small day,
load, dbt build, gate, report): the copy's warehouse is built once. Then:

0. blocks without Spark (generate, inspect, decode, ``--list``),
1. blocks that run the main job (``bash .ci/main``: ``mqsmf run --demo`` on a small day,
   ``MQSMF_DEMO_ARGS``, in the demo's own warehouse),
2. other blocks that read the warehouse (report, dbt source freshness, dbt docs),
3. blocks that load their own data (the gate walk-through: generate, load, check, baseline).

Within a block, README order. A line's expected exit status is 0 unless its comment says
``exit N``. Not run here: the wheel block and the installed package's walk-through (the block with
``mqsmf init``), which tests/udfs/test_wheel.py runs by default; the test run itself; the cluster
block (tests/udfs/test_cluster.py); and, with ``--extended`` only, the large day and the linked
documents' Spark lines. test_every_readme_line_runs_by_default fails when a README.md line would
be left to the extended tier or skipped for any other reason. Failures name the file and line of
the command.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from mqsmf.spark import class_archive

from .junit_schema import JUnitError, validate_junit

PROJECT_DIR = Path(__file__).resolve().parents[2]
README = PROJECT_DIR / "README.md"
PIPELINE = PROJECT_DIR / "udfs" / "mqsmf" / "quality" / "ci" / "github-actions.yml"
TIMEOUT = 1800

RUN, SLOW, SKIP, ELSEWHERE = "run", "slow", "skip", "elsewhere"
CLUSTER_REASON = (
    "needs a Spark cluster: tests/udfs/test_cluster.py starts one (mqsmf cluster start), loads through it "
    "(--target cluster), runs dbt build --target cluster, hands the metastore over (stop --no-thrift), runs "
    "the gate, checks status and stops it"
)
WHEEL_TEST = "tests/udfs/test_wheel.py"
# (pattern on the command, what to do, why). The first match decides; no match: RUN. SLOW lines run
# only with --extended; ELSEWHERE lines are run by the default run of the test module named.
RULES = (
    (r"^(bash \.ci/test|pytest)\b", SKIP, "is a test run itself (ruff, sqlfluff, pytest): CI runs it"),
    (
        r"\bpip (wheel|install)\b|-m venv\b",
        ELSEWHERE,
        f"builds and installs the wheel in a new virtual environment: {WHEEL_TEST} does the same by default "
        "(pip wheel --no-deps; the fresh venv gets the wheel and exactly its declared dependencies, no download)",
    ),
    (r"\bmqsmf cluster\b|--target cluster", SKIP, CLUSTER_REASON),
    (r"--preset large-day", SLOW, "writes the 368 MiB large day (a large-scale run: extended)"),
)
# A README line may be SLOW only for these large-scale runs (test_every_readme_line_runs_by_default).
LARGE_SCALE = ("--preset large-day",)
# Spark lines of the Markdown docs README.md links to (not of README.md itself) run with --extended.
DOC_SPARK_SLOW = "a Spark application in a linked document (README.md's own lines run by default)"
# The block that starts with `mqsmf init` is the installed package's walk-through: test_wheel runs it
# verbatim in the fresh venv with the wheel (by default), as the README says.
INIT_BLOCK = r"^mqsmf init\b"
WALKTHROUGH = r"^mqsmf load\b"
SPARK = r"^(mqsmf (load|check(?!.*--list)|report|run)|dbt|bash \.ci/main)\b"
# Files the README's commands name as the user's own dumps; the test provides them (small days).
USER_FILES = ("dump.dat", "dumps/day1.dat", "dumps/day2.dat")


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str
    block: int
    expected: int

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def documents() -> list[Path]:
    """README.md and the Markdown files it links to inside the project."""
    docs = [README]
    for target in re.findall(r"\]\(([^)#\s]+\.md)\)", README.read_text()):
        path = (PROJECT_DIR / target).resolve()
        if path.is_file() and PROJECT_DIR in path.parents and path not in docs:
            docs.append(path)
    return docs


def commands(paths=None) -> list[Command]:
    out, block = [], 0
    for path in paths or documents():
        fenced = None
        for n, raw in enumerate(path.read_text().splitlines(), 1):
            stripped = raw.strip()
            if stripped.startswith("```"):
                fenced = (stripped[3:].strip() or "text") if fenced is None else None
                block += fenced is not None
                continue
            if fenced != "bash" or not stripped or stripped.startswith("#"):
                continue
            comment = raw.split(" #", 1)[1] if " #" in raw else ""
            expected = re.search(r"\bexit (\d)\b", comment)
            rel = str(path.relative_to(PROJECT_DIR)) if PROJECT_DIR in path.parents else str(path)
            out.append(Command(rel, n, stripped, block, int(expected.group(1)) if expected else 0))
    return out


def decide(cmd: Command, block: list[Command]) -> tuple[str, str]:
    if any(re.search(r"\bmqsmf cluster\b", c.text) for c in block):
        return SKIP, CLUSTER_REASON
    for pattern, what, why in RULES:
        if re.search(pattern, cmd.text):
            return what, why
    if any(re.search(INIT_BLOCK, c.text) for c in block):
        return ELSEWHERE, f"the installed package's walk-through: {WHEEL_TEST} runs this block verbatim by default"
    if cmd.doc != README.name and re.search(SPARK, cmd.text):
        return SLOW, DOC_SPARK_SLOW
    return RUN, ""


def plan(cmds: list[Command]) -> list[tuple[Command, str, str]]:
    """Every command with its decision, in run order (see the module doc)."""
    blocks: dict[int, list[Command]] = {}
    for c in cmds:
        blocks.setdefault(c.block, []).append(c)

    def rank(block: list[Command]) -> int:
        texts = [c.text for c in block]
        if any(re.search(WALKTHROUGH, t) for t in texts):
            return 3
        if any(re.search(r"^bash \.ci/main\b", t) for t in texts):
            return 1
        return 2 if any(re.search(SPARK, t) for t in texts) else 0

    order = sorted(blocks.values(), key=lambda b: (rank(b), b[0].block))
    return [(c, *decide(c, b)) for b in order for c in b]


def fresh_env(home: Path) -> dict[str, str]:
    """A new login's environment: the project's virtual environment on PATH, nothing of ours."""
    venv_bin = str(Path(sys.executable).parent)
    path = [venv_bin, *(p for p in os.environ.get("PATH", "/usr/bin:/bin").split(":") if p != venv_bin)]
    env = {"PATH": ":".join(path), "HOME": str(home), "LANG": "C.UTF-8"}
    for name in ("JAVA_HOME", "MQSMF_DRIVER_MEMORY", "MQSMF_DRIVER_JAVA_OPTIONS", "TMPDIR"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    # The machine's JVM class archive (written by .ci/setup for this environment), as a new login on
    # this machine finds it: in the temporary HOME, `source .ci/setup` would write another one.
    env[class_archive.CACHE_ENV] = str(class_archive.cache_dir())
    # `bash .ci/main` sources .ci/setup: reuse this environment instead of making one in the copy.
    env["MQSMF_VENV"] = str(Path(sys.executable).parent.parent)
    return env


# What .ci/setup compares with its stamp in the virtual environment to decide to reinstall.
SETUP_INPUTS = ("pyproject.toml", ".ci/constraints.txt")


def copy_project(dest: Path) -> Path:
    """The project's files (tracked and new, not ignored) with their times, so .ci/setup sees the
    virtual environment as up to date. A checkout newer than the environment's stamp (a fresh
    worktree) would otherwise make the copy's .ci/setup (the README's `source .ci/setup`, and
    `bash .ci/main`) reinstall the package, editable from this temporary copy, into the environment
    every test runs in (fresh_env's MQSMF_VENV)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_DIR,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = PROJECT_DIR / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    stamp_name = re.search(r'STAMP="\$VENV/([^"]+)"', (PROJECT_DIR / ".ci" / "setup").read_text())
    stamp = Path(sys.executable).parent.parent / (stamp_name.group(1) if stamp_name else "")
    if stamp_name and stamp.is_file():
        older = stamp.stat().st_mtime - 1
        for rel in SETUP_INPUTS:
            copied = dest / rel
            if copied.exists() and copied.stat().st_mtime > older:
                os.utime(copied, (older, older))
    # Tests and benchmarks find the sample dumps as ../shared beside the project.
    shared = PROJECT_DIR.parent / "shared"
    if shared.is_dir() and not (dest.parent / "shared").exists():
        (dest.parent / "shared").symlink_to(shared)
    return dest


def make_user_files(project: Path) -> None:
    from mqsmf.generate import ScenarioConfig, generate_scenario, write_scenario

    day = project / USER_FILES[0]
    # The user's dump is a day of its own (the day after the example pipeline's): two different
    # dumps claiming the same task accounting periods would rightly fail fct_task_accounting's grain.
    config = ScenarioConfig(seed=5, qmgrs=2, queues=5, intervals=2, start="2025-06-03T00:00:00Z")
    write_scenario(generate_scenario(config), str(day))
    for rel in USER_FILES[1:]:
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(day, project / rel)


def bash(line: str, cwd: Path, env: dict, flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", *flags, "-c", line],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def _tail(text: str, n: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-n:])


def block_script(cmds: list[Command]) -> str:
    """The block's lines verbatim in one shell (so `cd`, `export` and `eval` carry to the next
    line, as when a user pastes the block), each followed by a check of its exit status."""
    lines = []
    for cmd in cmds:
        lines.append(cmd.text)
        lines.append(
            f'__rc=$?; if [ "$__rc" -ne {cmd.expected} ]; then echo "@@README {cmd.line} EXIT $__rc" >&2; exit 97; fi'
        )
    return "\n".join(lines) + "\n"


def run_plan(project: Path, env: dict, modes: tuple[str, ...]):
    """Run, block by block, the lines whose decision is in ``modes``. Returns the failures, the
    commands run, and the failures of the gate walk-through's block (the one writing a baseline)."""
    failures, done, gate = [], [], []
    blocks: dict[int, list] = {}
    for cmd, what, why in plan(commands()):
        label = f"{what:4s} {cmd.where:42s} {cmd.text}" + (f"   [{why}]" if why and what != RUN else "")
        print(label)
        blocks.setdefault(cmd.block, []).append((cmd, what))
    for entries in blocks.values():
        cmds = [cmd for cmd, what in entries if what in modes]
        if not cmds:
            continue
        started = time.monotonic()
        proc = bash(block_script(cmds), project, env)
        print(f"{time.monotonic() - started:7.1f} s  {cmds[0].where}: {len(cmds)} line(s) from `{cmds[0].text[:60]}`")
        failed = re.search(r"@@README (\d+) EXIT (\d+)", proc.stderr)
        ran = cmds if not failed else [c for c in cmds if c.line <= int(failed.group(1))]
        done.extend(c.text for c in ran)
        if proc.returncode != 0:
            cmd = ran[-1] if failed else cmds[-1]
            rc = int(failed.group(2)) if failed else proc.returncode
            message = (
                f"{cmd.where}: `{cmd.text}` exited {rc}, the README says {cmd.expected}\n"
                f"--- stdout:\n{_tail(proc.stdout)}\n--- stderr:\n{_tail(proc.stderr)}"
            )
            failures.append(message)
            if any("--write-baseline" in c.text for c in cmds):
                gate.append(message)
    return failures, done, gate


# ----------------------------------------------------------------------------------------------
# The parsing and planning themselves (no Spark)
# ----------------------------------------------------------------------------------------------


def test_readme_commands_are_found_and_every_one_is_decided(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "text\n```bash\nmqsmf check --list   # exit 0\n\n# a comment\nmqsmf check   # exit 1: a violation\n```\n"
        "```python\nprint('no')\n```\n```bash\nmqsmf cluster start\nmqsmf check --stage all\n```\n"
    )
    found = commands([doc])
    assert [(c.line, c.text, c.expected) for c in found] == [
        (3, "mqsmf check --list   # exit 0", 0),
        (6, "mqsmf check   # exit 1: a violation", 1),
        (12, "mqsmf cluster start", 0),
        (13, "mqsmf check --stage all", 0),
    ]
    decided = {c.line: what for c, what, _ in plan(found)}
    assert decided == {3: RUN, 6: SLOW, 12: SKIP, 13: SKIP}  # x.md is a linked doc; the cluster block as a whole
    real = plan(commands())
    assert len(real) > 10 and all(what in (RUN, SLOW, SKIP, ELSEWHERE) for _, what, _ in real)
    # The gate walk-through, as the README shows it, runs in the default test run.
    gate = [c for c, what, _ in real if what == RUN and c.text.startswith("mqsmf check")]
    assert any("--junit" in c.text for c in gate) and any("--baseline" in c.text for c in gate)
    # What is skipped for the cluster is what the cluster test runs.
    cluster_test = (PROJECT_DIR / "tests" / "udfs" / "test_cluster.py").read_text()
    for word in ("cl.start(", "cl.stop(", "cl.status(", '"--target", "cluster"', '"build"', '"check"'):
        assert word in cluster_test, word


SHELL_FENCES = ("sh", "shell", "console", "zsh", "shell-session")


def test_every_readme_line_runs_by_default():
    """A README.md command runs in the default test run (readme_run, or the wheel test for the
    installed package's blocks) unless it is the test run itself, needs a cluster, or is a
    large-scale run; a command block is a ```bash block (another shell fence would go unrun)."""
    for n, line in enumerate(README.read_text().splitlines(), 1):
        fence = line.strip()
        if fence.startswith("```") and fence[3:].strip() in SHELL_FENCES:
            pytest.fail(f"README.md:{n}: a {fence[3:].strip()!r} block: write commands in ```bash blocks")
    allowed_skips = {CLUSTER_REASON, RULES[0][2]}
    for cmd, what, why in plan(commands()):
        if cmd.doc != README.name:
            continue
        assert what != SLOW or any(s in cmd.text for s in LARGE_SCALE), f"{cmd.where}: `{cmd.text}` is extended: {why}"
        assert what != SKIP or why in allowed_skips, f"{cmd.where}: `{cmd.text}` skipped: {why}"
    # What is run elsewhere is run there by default: the wheel test's walk-through of the init block.
    wheel_test = (PROJECT_DIR / WHEEL_TEST).read_text()
    walk = wheel_test[wheel_test.index("def test_the_wheel_runs_the_readme_outside_the_checkout") - 40 :]
    assert "INIT_BLOCK" in walk and "@pytest.mark.extended" not in walk[:40]


def test_the_junit_checker_rejects_what_reporters_would_misread():
    good = (
        '<testsuites><testsuite name="s" tests="2" failures="1" skipped="0" errors="0">'
        '<testcase name="a" classname="c"/><testcase name="b"><failure message="m">x</failure></testcase>'
        "</testsuite></testsuites>"
    )
    validate_junit(good)
    for bad in (
        good.replace('tests="2"', 'tests="3"'),  # totals reporters trust
        good.replace('failures="1"', 'failures="0"'),
        good.replace('<testcase name="a" classname="c"/>', '<testcase classname="c"/>'),  # no name
        good.replace("<failure", "<oops").replace("</failure>", "</oops>"),
        good.replace('name="s" ', ""),
    ):
        with pytest.raises(JUnitError):
            validate_junit(bad)


# ----------------------------------------------------------------------------------------------
# The README's commands, verbatim
# ----------------------------------------------------------------------------------------------


def installed_package_dir() -> str:
    """Where a new process of this environment imports mqsmf from (without this one's PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import mqsmf, os; print(os.path.dirname(os.path.realpath(mqsmf.__file__)))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()


# The demo day of `bash .ci/main` (mqsmf run --demo), small: the README's line as written, on a small day.
DEMO_ARGS = "--queues 6 --intervals 4"


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory):
    """One copy of the project for every README command and the example CI pipeline: the pipeline's
    steps run first (generate, load, dbt build, gate, report: the copy's warehouse is built once),
    then every README line decided RUN, block by block (the report and dbt lines read that build;
    `bash .ci/main` builds its demo day in the demo's own warehouse; the gate walk-through loads its
    day on top)."""
    pytest.importorskip("pyspark")
    work = tmp_path_factory.mktemp("readme")
    project = copy_project(work / "project")
    (work / "home").mkdir()
    make_user_files(project)
    env = fresh_env(work / "home")
    env["MQSMF_DEMO_ARGS"] = DEMO_ARGS
    installed_before = installed_package_dir()
    pipeline = run_pipeline(project, env, work / "step_summary.md")
    failures, done, walkthrough = run_plan(project, env, (RUN,))
    return dict(
        project=project, env=env, failures=failures, done=done, work=work, walkthrough=walkthrough,
        installed=(installed_before, installed_package_dir()), pipeline=pipeline,
    )  # fmt: skip


@pytest.mark.spark
def test_the_readme_commands_leave_the_test_environment_as_it_was(readme_run):
    """`source .ci/setup` in the copy must not reinstall the package, editable from the temporary
    copy, into the environment the tests (and everything after them) run in."""
    before, after = readme_run["installed"]
    assert before and after == before


@pytest.mark.spark
def test_readme_commands_work_verbatim(readme_run):
    assert not readme_run["failures"], "\n\n".join(readme_run["failures"])
    ran = set(readme_run["done"])
    for cmd, what, _ in plan(commands()):
        assert what != RUN or cmd.text in ran, f"{cmd.where}: `{cmd.text}` was not run"
    assert any(t.startswith("mqsmf check") for t in readme_run["done"]), "the gate walk-through did not run"


@pytest.mark.spark
def test_the_gate_walkthrough_writes_ci_results(readme_run):
    assert not readme_run["walkthrough"], "\n\n".join(readme_run["walkthrough"])
    project = readme_run["project"]
    gate = project / "target" / "gate"
    # The planted violation: a JUnit failure naming the check, with its count and rows.
    root = validate_junit((gate / "junit.xml").read_text())
    failed = {c.get("name"): c.find("failure") for c in root.iter("testcase") if c.find("failure") is not None}
    # NMAG above FLGT also puts NMAG + TMFG above it.
    assert set(failed) == {"qqst_nmag_within_flgt", "qqst_get_failures_within_flgt"}
    failure = failed["qqst_nmag_within_flgt"]
    assert "1 new violating rows" in failure.get("message") and "QQSTNMAG <= QQSTFLGT" in failure.get("message")
    assert '"QQSTNMAG"' in failure.text and "QM03" in failure.text
    summary = (gate / "summary.md").read_text()
    assert summary.startswith("## mqsmf data-quality gate: FAILED") and "`qqst_nmag_within_flgt`" in summary
    # Against the baseline: exit 0 (the README line said so), the violation reported as accepted.
    verdict = json.loads((gate / "gate.json").read_text())
    assert verdict["passed"] and verdict["exit_code"] == 0
    # (--all: the copy's other days, loaded by the README's and the pipeline's lines, may add warnings.)
    accepted = [
        c for s in verdict["stages"] for c in s["checks"] if c["verdict"] == "accepted" and c["severity"] == "error"
    ]
    assert sorted((c["check"], c["accepted_violations"]) for c in accepted) == [
        ("qqst_get_failures_within_flgt", 1),
        ("qqst_nmag_within_flgt", 1),
    ]
    # No --docs: the Data Docs are in the project's target/ (the old relative default crashed GX).
    assert (project / "target" / "data_docs" / "raw" / "index.html").is_file()


def _check_elsewhere(readme_run, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`mqsmf check` from a folder outside the project, as a user types it."""
    elsewhere = readme_run["work"] / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    line = " ".join(["mqsmf", "check", "--project-dir", str(readme_run["project"]), *args])
    return bash(line, elsewhere, env or readme_run["env"])


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.returncode, _tail(proc.stdout), _tail(proc.stderr))
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("mqsmf check"), proc.stderr
    return last


@pytest.mark.spark
def test_exit_codes_from_another_folder(readme_run):
    assert not readme_run["walkthrough"], "the gate walk-through failed"
    # 1: the planted violation, JUnit to a path relative to this folder. (0 from the project folder
    # is the README's baseline line; each run is a Spark application, so they are few.)
    # --all: the walk-through's runs checked this load already, so by default nothing is left to check.
    bad = _check_elsewhere(
        readme_run, "--all", "--stage", "raw", "--check", "qqst_nmag_within_flgt", "--check", "qqst_tmfg_within_flgt",
        "--no-docs", "--junit", "out/j.xml",
    )  # fmt: skip
    assert bad.returncode == 1, _tail(bad.stderr)
    root = validate_junit((readme_run["work"] / "elsewhere" / "out" / "j.xml").read_text())
    cases = {c.get("name"): c.find("failure") is not None for c in root.iter("testcase")}
    assert cases == {"qqst_nmag_within_flgt": True, "qqst_tmfg_within_flgt": False}
    # 2: usage and environment errors, one line each, no traceback.
    nonsense = _check_elsewhere(readme_run, "--stage", "nonsense")
    assert "invalid choice" in nonsense.stderr and nonsense.returncode == 2
    assert "unknown check" in _one_line_error(_check_elsewhere(readme_run, "--check", "no_such_check"))
    nowhere = bash("mqsmf check --project-dir /nonexistent/project", readme_run["work"], readme_run["env"])
    assert "not the mqsmf dbt project" in _one_line_error(nowhere)
    empty = dict(readme_run["env"], MQSMF_WAREHOUSE_DIR=str(readme_run["work"] / "no-warehouse"))
    assert "no warehouse" in _one_line_error(_check_elsewhere(readme_run, env=empty))


@pytest.mark.spark
def test_unreadable_tables_exit_2_with_one_line(readme_run):
    assert not readme_run["walkthrough"], "the gate walk-through failed"
    project = readme_run["project"]
    tables = [p for p in project.rglob("qqst") if p.is_dir() and p.parent.name.startswith("smf_raw")]
    assert tables, "cannot find the qqst table's folder"
    for folder in tables:  # files that are not parquet any more (an empty folder would read as no rows)
        for data in (p for p in folder.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))):
            data.write_bytes(b"not a parquet file")
    proc = _check_elsewhere(readme_run, "--all", "--stage", "raw", "--check", "qqst_nmag_within_flgt", "--no-docs")
    assert "cannot read the tables" in _one_line_error(proc)


# ----------------------------------------------------------------------------------------------
# Slow: every README line that is not skipped, and the example CI pipeline
# ----------------------------------------------------------------------------------------------


@pytest.mark.extended
@pytest.mark.slow
@pytest.mark.spark
def test_every_documented_command_works_verbatim_extended(tmp_path):
    """Also the SLOW lines: the large day, the linked documents' Spark lines."""
    project = copy_project(tmp_path / "project")
    (tmp_path / "home").mkdir()
    make_user_files(project)
    env = fresh_env(tmp_path / "home")
    assert run_pipeline(project, env, tmp_path / "step_summary.md")["failure"] is None
    failures, done, _ = run_plan(project, env, (RUN, SLOW))
    assert not failures, "\n\n".join(failures)
    assert any(t.startswith("bash .ci/main") for t in done)


def pipeline_steps() -> tuple[list[dict], dict]:
    import yaml

    jobs = yaml.safe_load(PIPELINE.read_text())["jobs"]
    (job,) = jobs.values()
    return job["steps"], job.get("env", {})


# Steps of the example pipeline the test does not run, and why.
NOT_RUN = {
    "actions/checkout": "the test runs in a copy of the project",
    "actions/setup-python": "the test runs in the project's Python 3.11 environment",
    "actions/setup-java": "the test runs with this machine's Java 17",
    "Install": "the test runs in the project's installed environment (pip install -e .[all])",
    "mikepenz/action-junit-report": "a GitHub action: the test validates the JUnit file it reads instead",
    "actions/upload-artifact": "a GitHub action: the test checks that every path it uploads exists instead",
}


def _step_id(step: dict) -> str:
    return step.get("name") if step.get("name") in NOT_RUN else step.get("uses", step.get("name", "")).split("@")[0]


def test_the_pipeline_publishes_what_its_gate_step_writes():
    steps, _ = pipeline_steps()
    for step in steps:
        assert "run" in step or _step_id(step) in NOT_RUN, f"step {step} is neither run by the test nor explained"
    runs = "\n".join(s["run"] for s in steps if "run" in s and _step_id(s) not in NOT_RUN)
    junit = next(s for s in steps if s.get("uses", "").startswith("mikepenz/action-junit-report"))
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    report_path = junit["with"]["report_paths"]
    assert f"--junit {report_path}" in runs
    uploaded = upload["with"]["path"].split()
    assert any(report_path.startswith(p) for p in uploaded) and "target/report/index.html" in uploaded
    for word in ("mqsmf load", "dbt build", "mqsmf check", "mqsmf report"):
        assert word in runs, word


def run_pipeline(project: Path, env: dict, summary: Path) -> dict:
    """The example pipeline's ``run:`` steps in order, as GitHub runs them; what they wrote (read
    before the README's commands write the same paths)."""
    steps, job_env = pipeline_steps()
    env = {**env, **{k: str(v) for k, v in job_env.items()}, "GITHUB_STEP_SUMMARY": str(summary)}
    out: dict = {"failure": None, "not_run": []}
    for step in steps:
        if "run" not in step or _step_id(step) in NOT_RUN:
            out["not_run"].append(f"{_step_id(step)}: {NOT_RUN.get(_step_id(step))}")
            continue
        # GitHub's `run:` shell: bash --noprofile --norc -eo pipefail
        started = time.monotonic()
        proc = bash(step["run"], project, env, ("-eo", "pipefail"))
        print(f"{time.monotonic() - started:7.1f} s  {PIPELINE.name} step {step.get('name')!r}")
        if proc.returncode != 0:
            out["failure"] = f"{PIPELINE.name} step {step.get('name')!r}: exit {proc.returncode}\n" + _tail(
                proc.stdout + proc.stderr
            )
            return out
    junit = project / "target" / "gate" / "junit.xml"
    out["junit"] = junit.read_text() if junit.is_file() else None
    out["summary"] = summary.read_text() if summary.is_file() else ""
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    out["missing_uploads"] = [path for path in upload["with"]["path"].split() if not (project / path).exists()]
    return out


@pytest.mark.spark
def test_the_example_pipeline_runs_green_on_a_clean_day(readme_run):
    pipeline = readme_run["pipeline"]
    print("\n".join(f"not run: {line}" for line in pipeline["not_run"]))
    assert pipeline["failure"] is None, pipeline["failure"]
    root = validate_junit(pipeline["junit"])
    assert root.get("failures") == "0" and int(root.get("tests")) > 40  # a clean day: exit 0, no failure
    assert pipeline["summary"].startswith("## mqsmf data-quality gate: PASSED")
    assert pipeline["missing_uploads"] == []
