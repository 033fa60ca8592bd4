"""The local SparkSession, configured exactly like the dbt ``local`` target.

The Spark parameters live in one place, ``profiles/profiles.yml`` (``outputs.local.
server_side_parameters``); this module renders them the way dbt does, with ``env_var()`` and
``flags.PROFILES_DIR``, so ``mqsmf load``, the tests and ``dbt build`` share one warehouse and one
metastore. Environment:

- ``MQSMF_PROJECT_DIR``: the dbt project root. Default: the first folder from the current one
  upwards holding ``dbt_project.yml`` and ``profiles/profiles.yml``, else the checkout this package
  was installed from. :func:`local_session` exports it, so dbt run later in the same process (which
  reuses the session) renders the profile identically.
- ``MQSMF_WAREHOUSE_DIR``: folder of ``spark-warehouse/``, ``metastore_db/`` and ``derby.log``;
  default ``<project>/warehouse`` (see ``mqsmf.warehouse``). Tests point it at a temporary folder.
- ``MQSMF_SPARK_LOG_LEVEL``: what Spark's JVM logs to the terminal (default ``error``; ``warn``,
  ``info``, ...): the profile gives the JVM its log4j2 configuration (``profiles/spark-log4j2.
  properties``) and this level at start, so start-up noise follows it too, under dbt as here.
- ``PYSPARK_PYTHON``: the Python of Spark's workers (which import the data source); default: this
  interpreter.
- ``MQSMF_SPARK_MASTER``: where the session's application runs (default ``local[*]``), e.g. the
  ``spark://`` master of ``mqsmf cluster``. Then ``MQSMF_PY_FILES`` (zip or wheel of the package,
  shipped to the executors as ``spark.submit.pyFiles``) and ``MQSMF_EXECUTOR_MEMORY`` apply too;
  ``eval "$(mqsmf cluster env)"`` sets them all.
- ``MQSMF_JVM_CLASS_ARCHIVE`` / ``MQSMF_CACHE_DIR``: the driver JVM starts from a class-data-sharing
  archive of its classes when the installation has one (``class_archive``, ``.ci/setup`` writes it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace

PROFILE = "mqsmf"
LOCAL_TARGET = "local"
# dbt-spark forces this on every session it opens; set it here too so both behave the same.
DBT_FORCED = {"spark.sql.ansi.enabled": "false"}
# Spark parameters of an application on a cluster, from the environment (see the module doc).
LOG_LEVEL_ENV = "MQSMF_SPARK_LOG_LEVEL"
LOG_LEVEL_OPTION = "-Dmqsmf.spark.log.level="  # in the profile's spark.driver.extraJavaOptions
CLUSTER_APP_ENV = {"MQSMF_PY_FILES": "spark.submit.pyFiles", "MQSMF_EXECUTOR_MEMORY": "spark.executor.memory"}


def _is_project(path: Path) -> bool:
    return (path / "dbt_project.yml").is_file() and (path / "profiles" / "profiles.yml").is_file()


def resolve_project_dir(project_dir: str | os.PathLike | None = None) -> Path:
    """The dbt project root: the argument, $MQSMF_PROJECT_DIR, a folder found upwards from the
    current one, or the checkout of this package."""
    given = project_dir or os.environ.get("MQSMF_PROJECT_DIR")
    if given:
        path = Path(given).expanduser().resolve()
        if not _is_project(path):
            raise FileNotFoundError(f"mqsmf: {path} is not the mqsmf dbt project (no dbt_project.yml + profiles/)")
        return path
    cwd = Path.cwd().resolve()
    for path in (cwd, *cwd.parents, Path(__file__).resolve().parents[3]):
        if _is_project(path):
            return path
    raise FileNotFoundError(
        "mqsmf: cannot find the dbt project (dbt_project.yml + profiles/profiles.yml); "
        "run from inside it, pass --project-dir or set MQSMF_PROJECT_DIR"
    )


def warehouse_dir(project_dir: str | os.PathLike | None = None) -> Path:
    """The folder of the warehouse and metastore, as the profile says (``mqsmf.warehouse``)."""
    from ..warehouse import warehouse_dir as from_profile

    return from_profile(project_dir)


def load_lock_path(project_dir: str | os.PathLike | None = None, raw_schema: str | None = None) -> Path:
    """The load lock (``mqsmf.load_lock``) of the local target's warehouse, known before its Spark
    session starts: a load waits for another before it opens the embedded metastore."""
    from .. import load_lock
    from ..warehouse import RAW_SCHEMA
    from .staging import local_folder

    folder = local_folder(local_conf(project_dir)["spark.sql.warehouse.dir"])
    return load_lock.lock_path(folder, raw_schema or RAW_SCHEMA)


def local_conf(project_dir: str | os.PathLike | None = None) -> dict[str, str]:
    """The Spark parameters of the ``local`` target, rendered for this project."""
    import jinja2
    import yaml

    root = resolve_project_dir(project_dir)
    profiles = yaml.safe_load((root / "profiles" / "profiles.yml").read_text())
    params = profiles[PROFILE]["outputs"][LOCAL_TARGET].get("server_side_parameters") or {}

    def env_var(name: str, default: str | None = None) -> str:
        if name == "MQSMF_PROJECT_DIR":
            return str(root)
        value = os.environ.get(name, default)
        if value is None:
            raise KeyError(f"profiles.yml needs the environment variable {name}")
        return value

    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    context = {"env_var": env_var, "flags": SimpleNamespace(PROFILES_DIR=str(root / "profiles"))}
    conf = {str(k): env.from_string(str(v)).render(context) for k, v in params.items()}
    app = {key: os.environ[name] for name, key in CLUSTER_APP_ENV.items() if os.environ.get(name)}
    if app.get("spark.submit.pyFiles"):
        # Python functions Spark itself creates (the data source's readers) get no pyFiles includes:
        # put the shipped files, fetched into each executor's working folder, on its Python path too.
        shipped = [os.path.basename(p) for p in app["spark.submit.pyFiles"].split(",") if p]
        app["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(shipped)
    return {**conf, **app, **DBT_FORCED}


def log_level(conf: dict[str, str]) -> str | None:
    """The level the profile gives Spark's log (None if it gives none)."""
    for option in conf.get("spark.driver.extraJavaOptions", "").split():
        if option.startswith(LOG_LEVEL_OPTION):
            return option.removeprefix(LOG_LEVEL_OPTION).strip().lower()
    return None


def local_session(project_dir: str | os.PathLike | None = None):
    """The process's SparkSession for the ``local`` target (created on first call, then reused;
    dbt's ``method: session`` picks up the same one)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    from . import class_archive

    root = resolve_project_dir(project_dir)
    os.environ["MQSMF_PROJECT_DIR"] = str(root)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warehouse_dir(root).mkdir(parents=True, exist_ok=True)
    conf = local_conf(root)
    # Only a session that starts the JVM chooses its options (a process has one JVM).
    archive = class_archive.plan(conf) if SparkContext._gateway is None else class_archive.Plan("none")

    def start(chosen: class_archive.Plan):
        builder = SparkSession.builder.enableHiveSupport()
        for key, value in class_archive.with_options(conf, chosen).items():
            builder = builder.config(key, value)
        return builder.getOrCreate()

    try:
        session = start(archive)
    except Exception:
        if archive.action != "use" or SparkContext._gateway is not None:
            raise
        archive = class_archive.discard(archive)  # a damaged archive must not stop the session
        session = start(archive)
    level = log_level(conf)
    if level:  # also for a session started elsewhere
        session.sparkContext.setLogLevel(level.upper())
    return session
