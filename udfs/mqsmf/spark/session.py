"""The local SparkSession, configured exactly like the dbt ``local`` target.

The Spark parameters live in one place, ``profiles/profiles.yml`` (``outputs.local.
server_side_parameters``); ``mqsmf.spark.profile`` renders them the way dbt does, with ``env_var()``
and ``flags.PROFILES_DIR``, so ``mqsmf load``, the tests and ``dbt build`` share one warehouse and
one metastore. Environment:

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

from . import class_archive
from .profile import local_conf, log_level, resolve_project_dir, warehouse_dir


def load_lock_path(project_dir: str | os.PathLike | None = None, raw_schema: str | None = None) -> Path:
    """The load lock (``mqsmf.load_lock``) of the local target's warehouse, known before its Spark
    session starts: a load waits for another before it opens the embedded metastore."""
    from .. import load_lock
    from ..warehouse import RAW_SCHEMA
    from .staging import local_folder

    folder = local_folder(local_conf(project_dir)["spark.sql.warehouse.dir"])
    return load_lock.lock_path(folder, raw_schema or RAW_SCHEMA)


def local_session(project_dir: str | os.PathLike | None = None):
    """The process's SparkSession for the ``local`` target (created on first call, then reused;
    dbt's ``method: session`` picks up the same one)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

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
