"""Fixtures shared by every test suite of the project.

``spark``: the one SparkSession of a test run (session scope), made by
``mqsmf.spark.session.local_session``, i.e. configured exactly like the dbt ``local`` target. Its
warehouse and metastore (``MQSMF_WAREHOUSE_DIR``) and the loader's spool (``MQSMF_SPOOL_DIR``) are
in a temporary folder, so tests never touch a developer's ``target/`` warehouse and never fight over
its Derby metastore. Mark tests that use it ``@pytest.mark.spark``; give each test module its own
raw schema (``load_files(..., raw_schema=...)``, dbt var ``raw_schema``) when it needs a clean one.

``dbt``: runs dbt in this process against that same session (``method: session`` reuses it), e.g.
``dbt("run-operation", "load_smf_files", "--vars", "{smf_paths: [...]}")``; returns dbt's result.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[1]

# An xdist worker's __main__ (execnet) has neither __spec__ nor __file__; pyspark.sql.connect takes
# that for a doctest run and calls sys.exit(0) when imported (great_expectations imports it). Give the
# worker's __main__ a file name, as a `pytest` process's has.
_main = sys.modules["__main__"]
if getattr(_main, "__spec__", None) is None and not hasattr(_main, "__file__"):
    _main.__file__ = "<pytest-xdist worker>"


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    pytest.importorskip("pyspark")
    from mqsmf.spark.session import local_session

    state = tmp_path_factory.mktemp("spark")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_WAREHOUSE_DIR", str(state / "warehouse"))
        env.setenv("MQSMF_SPOOL_DIR", str(state / "spool"))
        env.setenv("MQSMF_PROJECT_DIR", str(PROJECT_DIR))
        env.setenv("PYSPARK_PYTHON", os.environ.get("PYSPARK_PYTHON", sys.executable))
        session = local_session(PROJECT_DIR)
        try:
            yield session
        finally:
            session.stop()


# Vars that only the on-run-start hook reads, when it runs (macro load_smf_files): a manifest parsed
# with other values of these is the same manifest.
RUN_TIME_VARS = ("smf_paths", "smf_framing", "smf_load_wait")


def vars_flag(args: tuple[str, ...]) -> list[str]:
    """The ``--vars VALUE`` pair of a dbt command line, or nothing."""
    return list(args[args.index("--vars") : args.index("--vars") + 2]) if "--vars" in args else []


def parse_key(args: tuple[str, ...], environ) -> str:
    """What a dbt manifest of this project depends on besides its files: the vars (but those read
    only at run time) and the environment the profile and the YAML read (MQSMF_*, DBT_*)."""
    given = json.loads(vars_flag(args)[1]) if "--vars" in args else {}
    parsed_vars = {k: v for k, v in given.items() if k not in RUN_TIME_VARS}
    env = {k: v for k, v in environ.items() if k.startswith(("MQSMF_", "DBT_"))}
    return json.dumps([parsed_vars, env], sort_keys=True)


@pytest.fixture(scope="session")
def dbt(spark, tmp_path_factory):
    """dbt in this process. The project is parsed once per parse_key: each module's vars (its raw
    schema, its smf_paths) and MQSMF_SCHEMA would otherwise make every invocation parse it whole
    again (dbt's partial parsing starts over when vars or the profile change), about 6 s each."""
    pytest.importorskip("dbt.cli.main")
    from dbt.cli.main import dbtRunner

    work = tmp_path_factory.mktemp("dbt")
    flags = [
        "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR / "profiles"), "--target", "local",
        "--target-path", str(work / "target"), "--log-path", str(work / "logs"),
    ]  # fmt: skip
    manifests: dict[str, object] = {}

    def run(*args: str):
        key = parse_key(args, os.environ)
        if key not in manifests:
            parsed = dbtRunner().invoke(["parse", *vars_flag(args), *flags])
            if not parsed.success:  # the command itself reports the parse error
                return dbtRunner().invoke([*args, *flags])
            manifests[key] = parsed.result
        return dbtRunner(manifest=manifests[key]).invoke([*args, *flags])

    return run


# Scheduling on xdist workers (.ci/test): whole modules, as --dist loadfile, except that modules sharing
# a session fixture's costly build go to one worker together (it builds it once), and the longest
# modules start first so the workers finish together. Seconds are CI wall times; the rest follow.
SHARED_BUILD_MODULES = {  # module -> the scope it runs in
    "tests/udfs/test_dbt_docs.py": "pathology_day",
    "tests/udfs/test_report.py": "pathology_day",
}
LONGEST_FIRST = (
    "tests/udfs/test_gate_ci.py",  # every README command and the example CI pipeline: three builds' worth
    "tests/udfs/test_load_crash.py",  # ~460 s
    "tests/udfs/test_dbt_models.py",  # ~350 s
    "pathology_day",  # ~220 s
    "tests/udfs/test_wheel.py",  # the installed package's walk-through (load, dbt build, gate, report)
    "tests/udfs/test_orchestration.py",  # the Dagster daily job (load, dbt build, gate)
    "tests/udfs/test_estate.py",  # ~170 s
    "tests/udfs/test_mp16_advisories.py",  # ~160 s
)


def _scope(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return SHARED_BUILD_MODULES.get(module, module)


class _SharedBuildScheduler:
    """Registered only where pytest-xdist is (``-p no:xdist`` would reject its unknown hook)."""

    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        from xdist.scheduler import LoadScopeScheduling

        class SharedBuildScheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return _scope(nodeid)

        config.option.loadscopereorder = False  # keep LONGEST_FIRST (xdist would sort by test count)
        return SharedBuildScheduling(config, log)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_SharedBuildScheduler(), "mqsmf-shared-build-scheduler")


def pytest_addoption(parser):
    parser.addoption(
        "--extended",
        action="store_true",
        default=os.environ.get("MQSMF_EXTENDED") == "1",
        help="also run the tests marked extended (the large-scale runs: the large day, every crash point and "
        "timed kill of a load, the local cluster, the Spark lines of the documents README.md links to); "
        "MQSMF_EXTENDED=1 does the same",
    )


def pytest_collection_modifyitems(config, items):
    # Longest scopes first (a stable sort: each module keeps its own order), see LONGEST_FIRST.
    rank = {scope: i for i, scope in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_scope(item.nodeid), len(rank)))
    # The default run (CI) must stay within its time budget: the extended campaigns are skipped with
    # their reason shown, never silently, and run with --extended.
    if config.getoption("--extended"):
        return
    skip = pytest.mark.skip(reason="extended campaign: run with --extended or MQSMF_EXTENDED=1")
    for item in items:
        if "extended" in item.keywords:
            item.add_marker(skip)
