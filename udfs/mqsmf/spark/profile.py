"""The dbt profile's ``local`` target, rendered as dbt renders it, without Spark: the project root,
the Spark parameters of the target (``profiles/profiles.yml``, ``outputs.local.
server_side_parameters``, with ``env_var()`` and ``flags.PROFILES_DIR``) and the warehouse folder
they name. ``mqsmf.spark.session`` starts its SparkSession from these parameters; the commands that
only need a folder (the gate's history, the load lock) read it here without starting a JVM. The
environment variables are described in ``mqsmf.spark.session``.
"""

from __future__ import annotations

import os
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
    """The warehouse folder of the project's ``local`` target, as its (rendered) profile says: the
    folder holding ``spark-warehouse/`` (the rule is described in ``mqsmf.warehouse``)."""
    conf = local_conf(project_dir)
    return Path(conf["spark.sql.warehouse.dir"]).resolve().parent


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
