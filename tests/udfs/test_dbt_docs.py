"""dbt hygiene on a built warehouse (the session's pathology day): `dbt docs generate` works, every
mart column that exists in the built tables is documented in YAML with the type the table really has
(the catalog is Spark's DESCRIBE of each table), doc blocks are resolved everywhere, and `dbt source
freshness` runs on the local target, passing on a fresh load and warning / erroring on stale raw
tables built by hand with known load times."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from .conftest import RAW, TARGET_SCHEMA

pytestmark = pytest.mark.spark

# Spark's names for one type (DESCRIBE says int/bigint/smallint; YAML may say integer/long/short).
SYNONYMS = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint", "real": "float"}


def _type(name: str) -> str:
    t = re.sub(r"\s+", "", name.lower())
    return SYNONYMS.get(t, t)


@pytest.fixture(scope="module")
def docs(pathology_day, dbt):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
        generated = dbt("docs", "generate", "--static", "--vars", json.dumps({"raw_schema": RAW}))
        parsed = dbt("parse", "--vars", json.dumps({"raw_schema": RAW}))
    assert generated.success, generated.exception
    assert parsed.success, parsed.exception
    return generated.result, parsed.result


def _marts(manifest) -> dict:
    """The marts, and the MP16 rule evaluations the advisory mart unions (contracted like the marts)."""
    return {
        n.name: n
        for n in manifest.nodes.values()
        if n.resource_type == "model" and (n.fqn[1] == "marts" or n.fqn[1:3] == ["intermediate", "mp16"])
    }


def _same_type(documented: str, catalogued: str) -> bool:
    """dbt-spark's catalog gives a complex type by its bare name ('array' for array<string>); the YAML
    names it whole (the contract compares the whole type at build time)."""
    documented, catalogued = _type(documented), _type(catalogued)
    return documented == catalogued or ("<" not in catalogued and documented.startswith(catalogued + "<"))


def column_problems(name: str, built: dict[str, str], documented: dict[str, tuple[str, str]]) -> list[str]:
    """What is wrong between a built table ({column: Spark type}) and its YAML ({column: (description,
    data_type)}): undocumented or unresolved columns, other types, documented columns that do not exist."""
    problems = []
    for column, spark_type in built.items():
        description, data_type = documented.get(column, ("", ""))
        if not description.strip():
            problems.append(f"{name}.{column}: not documented")
        elif "{{" in description:
            problems.append(f"{name}.{column}: unresolved doc block")
        elif not _same_type(data_type or "", spark_type):
            problems.append(f"{name}.{column}: YAML data_type {data_type!r}, table has {spark_type!r}")
    return problems + [f"{name}.{c}: documented but not in the table" for c in documented if c not in built]


def _built(catalog) -> dict[str, dict[str, str]]:
    return {n.metadata.name: {c.name: c.type for c in n.columns.values()} for n in catalog.nodes.values()}


def _documented(model) -> dict[str, tuple[str, str]]:
    return {c.name: (c.description, c.data_type) for c in model.columns.values()}


def test_docs_generate_writes_a_catalog_of_every_mart_and_a_static_page(docs, tmp_path_factory):
    catalog, manifest = docs
    assert set(_marts(manifest)) <= set(_built(catalog))
    # (pytest links dbtcurrent to dbt0: one page.)
    pages = list({p.resolve() for p in tmp_path_factory.getbasetemp().glob("dbt*/target/static_index.html")})
    assert len(pages) == 1 and pages[0].stat().st_size > 100_000
    # The static page carries the manifest and catalog inline: it opens from disk without a server.
    assert "fct_mp16_advisories" in pages[0].read_text(encoding="utf-8")


def test_every_built_mart_column_is_documented_with_its_real_type(docs):
    catalog, manifest = docs
    tables = _built(catalog)
    problems = []
    for name, model in sorted(_marts(manifest).items()):
        assert model.config.contract.enforced, f"{name}: contract not enforced"
        problems += column_problems(name, tables[name], _documented(model))
    assert not problems, "\n".join(problems)


def test_a_complex_type_the_catalog_names_bare_matches_only_its_own_kind():
    assert _same_type("array<string>", "array") and _same_type("Array<String>", "array<string>")
    assert _same_type("integer", "int") and not _same_type("bigint", "int")
    assert not _same_type("string", "array") and not _same_type("map<string,int>", "array")
    assert not _same_type("array<string>", "array<int>")


def test_the_comparison_catches_a_missing_column_a_wrong_type_and_a_phantom(docs):
    catalog, manifest = docs
    name = "int_mp16__page_set_advisories"
    built, documented = _built(catalog)[name], _documented(_marts(manifest)[name])
    assert column_problems(name, built, documented) == []
    broken = {k: v for k, v in documented.items() if k != "observation"}
    broken["observed_value"] = (documented["observed_value"][0], "string")
    broken["ghost"] = ("Not built.", "string")
    assert column_problems(name, built, broken) == [
        f"{name}.observed_value: YAML data_type 'string', table has 'double'",
        f"{name}.observation: not documented",
        f"{name}.ghost: documented but not in the table",
    ]


def test_recurring_columns_share_their_doc_block(docs):
    _catalog, manifest = docs
    marts = _marts(manifest)
    texts = {m.columns["qmgr_name"].description for m in marts.values() if "qmgr_name" in m.columns}
    staged = manifest.nodes["model.mqsmf.stg_smf__qqst"].columns["qmgr_name"].description
    # One text for the queue manager in every fact, advisory and staging model except where it means more.
    assert staged in texts
    advisories = [m for n, m in marts.items() if re.fullmatch(r"int_mp16__\w+_advisories", n)]
    components = Path(__file__).resolve().parents[2].glob("models/intermediate/mp16/int_mp16__*_advisories.sql")
    assert len(advisories) == len(list(components)) >= 7
    assert len({m.columns["observed_value"].description for m in advisories}) == 1
    assert manifest.docs["doc.mqsmf.qsg_name"].block_contents.startswith("Queue-sharing group of the queue manager")


def test_exposures_are_in_the_manifest(docs):
    _catalog, manifest = docs
    report = manifest.exposures["exposure.mqsmf.mqsmf_report"]
    gate = manifest.exposures["exposure.mqsmf.mqsmf_quality_gate"]
    assert "model.mqsmf.fct_mp16_advisories" in report.depends_on.nodes
    assert "source.mqsmf.smf_raw.qqst" in gate.depends_on.nodes


def _freshness(dbt, raw_schema: str, select: str):
    result = dbt("source", "freshness", "--select", select, "--vars", json.dumps({"raw_schema": raw_schema}))
    # The results hold the on-run-start hook too: keep the sources.
    return result, {r.node.name: str(r.status) for r in result.result.results if r.node.resource_type == "source"}


def test_source_freshness_passes_on_a_fresh_load(pathology_day, dbt):
    result, statuses = _freshness(dbt, RAW, "source:smf_raw")
    assert result.success, statuses
    assert statuses == {"qjst": "pass", "qmst": "pass", "qist": "pass"}


def test_source_freshness_warns_and_errors_on_stale_raw_tables(spark, dbt):
    """Raw tables whose newest row was loaded 1, 30 and 60 hours ago: pass, warn (> 26 h), error (> 50 h)."""
    schema = "freshness_raw"
    now = datetime.now(UTC)
    spark.sql(f"create schema if not exists {schema}")
    for table, hours in (("qist", 1), ("qjst", 30), ("qmst", 60)):
        loaded = (now - timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M:%S")
        older = (now - timedelta(hours=hours + 48)).strftime("%Y-%m-%d %H:%M:%S")
        spark.sql(f"drop table if exists {schema}.{table}")
        spark.sql(f"create table {schema}.{table} (loaded_at timestamp) using parquet")
        spark.sql(f"insert into {schema}.{table} values (timestamp'{loaded}'), (timestamp'{older}')")
    result, statuses = _freshness(dbt, schema, "source:smf_raw")
    assert statuses == {"qist": "pass", "qjst": "warn", "qmst": "error"}
    assert not result.success  # an error-level source fails the command (exit 1)
    # The thresholds are vars: a site with hourly dumps tightens them.
    tight = dbt(
        "source", "freshness", "--select", "source:smf_raw.qist",
        "--vars", json.dumps({"raw_schema": schema, "smf_freshness_warn_hours": 1, "smf_freshness_error_hours": 2}),
    )  # fmt: skip
    assert [str(r.status) for r in tight.result.results if r.node.resource_type == "source"] == ["warn"]
