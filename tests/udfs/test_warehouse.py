"""Where the data lives: one folder outside dbt's target/, from the profile, moved by
MQSMF_WAREHOUSE_DIR; ``dbt clean`` and ``rm -rf target`` leave it alone. The SQL spelling of
names and values the loader and the gate share. And the dbt project names the schemas and tables
as ``mqsmf.warehouse`` does (dbt's own parse then holds every ``source()`` to its sources YAML)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from mqsmf import warehouse
from mqsmf.quality.expectations import AtMost
from mqsmf.spark.profile import local_conf, warehouse_dir

PROJECT_DIR = Path(__file__).resolve().parents[2]


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def test_default_warehouse_is_the_project_warehouse_folder_outside_target(monkeypatch):
    monkeypatch.delenv(warehouse.WAREHOUSE_ENV, raising=False)
    monkeypatch.setenv("MQSMF_PROJECT_DIR", str(PROJECT_DIR))
    where = warehouse_dir(PROJECT_DIR)
    assert where == PROJECT_DIR / "warehouse" == warehouse.default_warehouse_dir(PROJECT_DIR)
    conf = local_conf(PROJECT_DIR)
    # The parquet files, the metastore and Derby's log are all in it.
    assert Path(conf["spark.sql.warehouse.dir"]) == where / warehouse.SPARK_WAREHOUSE
    assert f"databaseName={where / warehouse.METASTORE};" in conf["spark.hadoop.javax.jdo.option.ConnectionURL"]
    assert f"-Dderby.stream.error.file={where / 'derby.log'}" in conf["spark.driver.extraJavaOptions"]
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    for folder in [project.get("target-path", "target"), *project.get("clean-targets", [])]:
        assert not _inside(where, PROJECT_DIR / folder), folder


def test_the_environment_moves_the_warehouse(monkeypatch, tmp_path):
    monkeypatch.setenv(warehouse.WAREHOUSE_ENV, str(tmp_path / "data"))
    monkeypatch.setenv("MQSMF_PROJECT_DIR", str(PROJECT_DIR))
    assert warehouse_dir(PROJECT_DIR) == tmp_path / "data"
    conf = local_conf(PROJECT_DIR)
    assert conf["spark.sql.warehouse.dir"] == str(tmp_path / "data" / "spark-warehouse")


def test_dbt_clean_and_removing_target_keep_the_data(monkeypatch, tmp_path):
    pytest.importorskip("dbt.cli.main")
    from dbt.cli.main import dbtRunner

    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(PROJECT_DIR / "dbt_project.yml", project)
    shutil.copytree(PROJECT_DIR / "profiles", project / "profiles")
    monkeypatch.delenv(warehouse.WAREHOUSE_ENV, raising=False)
    monkeypatch.setenv("MQSMF_PROJECT_DIR", str(project))
    where = warehouse_dir(project)
    data = where / warehouse.SPARK_WAREHOUSE / "smf_raw.db" / "qpst" / "part-0.parquet"
    data.parent.mkdir(parents=True)
    data.write_bytes(b"rows")
    (where / warehouse.METASTORE).mkdir()
    for folder in ("target/dbt", "target/run", "logs"):
        (project / folder).mkdir(parents=True)
    monkeypatch.chdir(project)
    result = dbtRunner().invoke(["clean", "--project-dir", str(project), "--profiles-dir", str(project / "profiles")])
    assert result.success, result.exception
    assert not (project / "target" / "dbt").exists()  # dbt clean did clean
    shutil.rmtree(project / "target")  # the other habit
    assert data.read_bytes() == b"rows" and (where / warehouse.METASTORE).is_dir()


def test_names_and_values_are_quoted_for_spark_sql():
    assert warehouse.ident("a`b") == "`a``b`"
    assert "`a``b` <= `c`" in AtMost("a`b", "c").violation_sql()  # the gate's SQL quotes names the same way
    assert warehouse.qualified("s", "t`x") == "`s`.`t``x`"
    assert warehouse.literal("it's \\ here") == "'it\\'s \\\\ here'"
    assert warehouse.literal(None) == "NULL" and warehouse.literal(True) == "true" and warehouse.literal(3) == "3"


def _yaml(relative: str) -> dict:
    return yaml.safe_load((PROJECT_DIR / relative).read_text())


def test_the_dbt_project_names_schemas_and_tables_as_the_warehouse_contract_does():
    raw_default = f"{{{{ var('raw_schema', '{warehouse.RAW_SCHEMA}') }}}}"
    assert _yaml("dbt_project.yml")["vars"]["raw_schema"] == warehouse.RAW_SCHEMA
    assert _yaml("dbt_project.yml")["models"]["mqsmf"]["marts"]["+schema"] == warehouse.MARTS_LAYER
    # Every target writes to MQSMF_SCHEMA (else the default): the schema marts_schema() names.
    outputs = _yaml("profiles/profiles.yml")["mqsmf"]["outputs"]
    target_schema = f"{{{{ env_var('{warehouse.DBT_SCHEMA_ENV}', '{warehouse.DEFAULT_DBT_SCHEMA}') }}}}"
    assert outputs and all(target["schema"] == target_schema for target in outputs.values())
    # The sources: every table a load writes, each in the source dbt_source() names, in the raw schema.
    declared: dict[str, str] = {}
    for path in sorted((PROJECT_DIR / "models").rglob("*.yml")):
        for source in yaml.safe_load(path.read_text()).get("sources") or []:
            assert source["schema"] == raw_default, (path.name, source["name"])
            declared.update({table["name"]: source["name"] for table in source["tables"]})
    written = {
        warehouse.raw_table(s): warehouse.dbt_source(warehouse.raw_table(s)) for s in warehouse.loaded_structures()
    }
    loads = {
        t: warehouse.SMF_SOURCE for t in (warehouse.AUDIT_TABLE, warehouse.QUARANTINE_TABLE, warehouse.LOAD_DATES_TABLE)
    }
    assert declared == {**written, **loads}
    # The load macro and any model that defaults the raw schema default it to the same name.
    defaults = {
        match
        for folder in ("macros", "models")
        for path in (PROJECT_DIR / folder).rglob("*.sql")
        for match in re.findall(r"var\(\s*'raw_schema'\s*,\s*'([^']*)'\s*\)", path.read_text())
    }
    assert defaults == {warehouse.RAW_SCHEMA}
