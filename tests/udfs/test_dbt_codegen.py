"""The staging layer is generated from the layout tables: the committed files must be exactly what
the generator writes (so column docs cannot drift from the decoder), and every documented column,
unit and test must follow from the layouts. No Spark needed."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml

from mqsmf import dbt_codegen
from mqsmf.decode import arrow_schema
from mqsmf.layouts import layouts

ROOT = Path(__file__).resolve().parents[2]


def test_committed_staging_files_are_what_the_generator_writes():
    stale = dbt_codegen.stale_files(ROOT)
    assert not stale, (
        f"out of date: {', '.join(map(str, stale))}; run `python -m mqsmf.dbt_codegen` and commit the result"
    )


def test_a_changed_layout_meaning_makes_the_check_fail(tmp_path, monkeypatch):
    """The up-to-date check catches drift: a different meaning in a layout changes the docs."""
    for rel, text in dbt_codegen.render().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert dbt_codegen.stale_files(tmp_path) == []
    original = dbt_codegen.field_description
    monkeypatch.setattr(
        dbt_codegen,
        "field_description",
        lambda lay, f: original(lay, f).replace("MQPUT count", "MQPUT tally"),
    )
    dbt_codegen._staging_columns.cache_clear()
    try:
        stale = dbt_codegen.stale_files(tmp_path)
    finally:
        dbt_codegen._staging_columns.cache_clear()
    assert stale == [Path("models/staging/smf/_stg_smf__models.yml"), Path("models/staging/smf/_smf__sources.yml")]


def test_shared_columns_use_one_generated_doc_block():
    """The header and load columns of every staging model and raw table point at one doc block each,
    and the generated docs file defines exactly those blocks."""
    md = (ROOT / dbt_codegen.DOCS_FILE).read_text()
    defined = re.findall(r"\{% docs ([a-z0-9_]+) %\}", md)
    assert defined == list(dbt_codegen.shared_docs())
    raw = (ROOT / "models/staging/smf/_stg_smf__models.yml").read_text() + (
        ROOT / "models/staging/smf/_smf__sources.yml"
    ).read_text()
    used = set(re.findall(r"doc\('([a-z0-9_]+)'\)", raw))
    assert used == set(defined)
    assert raw.count("{{ doc('smf__qmgr_name') }}") == 2 * len(layouts())
    assert "Queue manager (subsystem id, SM11xSSI)" not in raw  # the text lives in the block only


def test_freshness_is_declared_on_the_structures_every_queue_manager_writes():
    sources = yaml.safe_load((ROOT / "models/staging/smf/_smf__sources.yml").read_text())["sources"][0]
    fresh = {t["name"]: t["config"] for t in sources["tables"] if "freshness" in t.get("config", {})}
    assert set(fresh) == {s.lower() for s in dbt_codegen.FRESHNESS_STRUCTURES}
    for config in fresh.values():
        assert config["loaded_at_field"] == "loaded_at"
        assert set(config["freshness"]) == {"warn_after", "error_after"}
    # Each is a structure the generator writes for every queue manager, every interval (class 1 statistics).
    for name in dbt_codegen.FRESHNESS_STRUCTURES:
        assert all(p.smf_type == 115 and p.smf_subtype in (1, 2) for p in layouts()[name].placements), name


def test_exposures_list_what_the_report_and_the_gate_read():
    from mqsmf.quality.checks import catalogue
    from mqsmf.report.data import SELECTIONS

    exposures = {e["name"]: e for e in yaml.safe_load((ROOT / dbt_codegen.EXPOSURES_FILE).read_text())["exposures"]}
    report = exposures["mqsmf_report"]["depends_on"]
    for s in SELECTIONS.values():
        assert f"ref('{s.fact}')" in report
    assert "ref('fct_mp16_advisories')" in report
    gate = exposures["mqsmf_quality_gate"]["depends_on"]
    assert "source('smf_raw', 'qqst')" in gate and "source('smf_raw', 'smf_load_audit')" in gate
    rollups = {t for f in catalogue().frames.values() if f.stage == "marts" for t in f.tables}
    assert rollups and {f"ref('{t}')" for t in rollups} <= set(gate)


def test_a_hand_edited_staging_model_is_reported(tmp_path):
    for rel, text in dbt_codegen.render().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    model = tmp_path / "models/staging/smf/stg_smf__qpst.sql"
    model.write_text(model.read_text().replace("qpstnbuf as buffers", "qpstnbuf as buffer_count"))
    assert dbt_codegen.stale_files(tmp_path) == [Path("models/staging/smf/stg_smf__qpst.sql")]


def _resolved(description: str) -> str:
    """A description with its shared doc block (``{{ doc('smf__...') }}``) replaced by the block's text."""
    blocks = dbt_codegen.shared_docs()
    return re.sub(r"\{\{ doc\('([a-z0-9_]+)'\) \}\}", lambda m: blocks[m.group(1)], description)


def _staging_docs() -> dict[str, dict]:
    docs = yaml.safe_load((ROOT / "models/staging/smf/_stg_smf__models.yml").read_text())
    models = {m["name"]: m for m in docs["models"]}
    for model in models.values():
        for column in model["columns"]:
            column["description"] = _resolved(column["description"])
    return models


def test_one_staging_model_per_structure_with_every_decoded_column():
    docs = _staging_docs()
    assert set(docs) == {f"stg_smf__{name.lower()}" for name in layouts()}
    for name, lay in layouts().items():
        model = docs[f"stg_smf__{name.lower()}"]
        sql = (ROOT / f"models/staging/smf/stg_smf__{name.lower()}.sql").read_text()
        staged = {c.raw for c in dbt_codegen.staging_columns(lay)}
        control = {f.column for f in lay.data_fields if f.alias in dbt_codegen.CONTROL_ALIASES}
        # Every decoded column is staged except the control-block identifiers.
        assert set(arrow_schema(name).names) - control <= staged, name
        for column in staged:
            assert re.search(rf"^\s+{column.lower()}( as [a-z0-9_]+)?,?$", sql, re.M), f"{name}: {column} not selected"
        assert "Grain: one row per" in model["description"]


def test_every_staged_field_documents_its_ibm_name_and_unit():
    docs = _staging_docs()
    for name, lay in layouts().items():
        columns = {c["name"]: c for c in docs[f"stg_smf__{name.lower()}"]["columns"]}
        for f in lay.data_fields:
            if f.alias in dbt_codegen.CONTROL_ALIASES:
                continue
            description = columns[f.alias]["description"]
            assert description.startswith(f"{f.name}: "), (name, f.alias, description)
            assert "Unit: " in description, (name, f.alias)
        for fl in lay.flags:
            assert any(c["description"].startswith(f"{fl.name}: ") for c in columns.values()), fl.name
        for column in columns.values():  # context, key and load columns too
            assert "Unit: " in column["description"], (name, column["name"])


@pytest.mark.parametrize(
    ("structure", "field", "alias", "unit"),
    [
        ("QQST", "QQSTPUTS", "put_count", "count"),
        ("QQST", "QQSTMAGE", "oldest_msg_age_seconds", "seconds"),
        ("QQST", "QQSTLPUT", "last_put_at", "UTC timestamp"),
        ("QQST", "QQSTPUTB", "put_bytes", "bytes"),
        ("QEST", "QESTSSTC", "single_entry_request_time_us", "microseconds"),
        ("QJST", "QJSTSLPTU", "log_writer_idle_us", "microseconds"),
        ("QPST", "QPSTPOOL", "buffer_pool_id", "identifier"),
    ],
)
def test_units_follow_from_the_field_kind_and_alias(structure, field, alias, unit):
    f = layouts()[structure].field(field)
    assert f.alias == alias
    assert dbt_codegen.field_unit(f).startswith(unit)


def test_versioned_fields_say_they_are_null_in_older_records():
    columns = {c["name"]: c for c in _staging_docs()["stg_smf__qqst"]["columns"]}
    assert "Since MQ 9.3.3; NULL in records of earlier releases" in columns["depth_high"]["description"]
    assert "Present in every QQST record" in columns["queue_name"]["description"]


def test_alias_conventions_are_enforced():
    lay = layouts()["QQST"]
    stck = lay.field("QQSTLPUT")
    with pytest.raises(ValueError, match="must end in _at"):
        dbt_codegen.check_alias(lay, dataclasses.replace(stck, alias="last_put_time"))
    duration = layouts()["QEST"].field("QESTSSTC")
    with pytest.raises(ValueError, match="must end in _us"):
        dbt_codegen.check_alias(layouts()["QEST"], dataclasses.replace(duration, alias="request_time"))
    count = lay.field("QQSTPUTS")
    with pytest.raises(ValueError, match="not snake_case"):
        dbt_codegen.check_alias(lay, dataclasses.replace(count, alias=""))


# SMF 116, accounting (IBM MQ for z/OS, "Interpreting IBM MQ accounting data"): the message manager
# (class 1, QMAC), the thread and its queues (class 3: WTID, WTAS, WQST), channel accounting (subtype
# 10: QCST). The gate's duplicate_record holds the statistics rows (SMF 115) unique.
ACCOUNTING = {"QMAC", "WTID", "WTAS", "WQST", "QCST"}


def test_every_staging_key_is_held_unique_once_by_dbt_or_by_the_gate():
    from mqsmf.quality.checks import catalogue

    (duplicates,) = [c for c in catalogue().checks if c.name == dbt_codegen.UNIQUE_ROWS_CHECK]
    assert duplicates.frame == "records" and [w.text for w in duplicates.when] == ["smf_type == 115"]
    tested = set()
    for name, model in _staging_docs().items():
        key = model["columns"][0]
        assert key["name"] == name.removeprefix("stg_smf__") + "_key"
        if "data_tests" in key:
            # On the newest load's dates (macro get_where_subquery): a raw table holds years of loads.
            assert key["data_tests"] == [{"unique": {"config": {"where": "recently_loaded_dates"}}}], name
            tested.add(name.removeprefix("stg_smf__").upper())
    assert tested == ACCOUNTING
    assert dbt_codegen.keys_the_gate_holds_unique() == set(layouts()) - ACCOUNTING


def test_the_staging_key_is_the_loaders_natural_key():
    def key(model: str) -> list[str]:
        sql = (ROOT / f"models/staging/smf/{model}.sql").read_text()
        return re.findall(r"'([^']+)'", sql.split("surrogate_key([", 1)[1].split("])", 1)[0])

    # The time: interval start, else the STCK, else the SMF header's local time (no row is undated).
    when = "unix_micros(coalesce(interval_start, record_stck, cast(smf_time_local as timestamp)))"
    assert key("stg_smf__qqst") == ["qmgr", "smf_subtype", when, "qqstqnam"]
    assert key("stg_smf__qcst")[3:] == ["qcstchnm", "qcstcnnm", "qcststrt", "entry_index"]  # an instance: its start


def test_check_mode_reports_and_fails_on_a_stale_tree(tmp_path, capsys):
    (tmp_path / "dbt_project.yml").write_text("name: x\n")
    assert dbt_codegen.main(["--project-dir", str(tmp_path), "--check"]) == 1
    assert "out of date: models/staging/smf/stg_smf__qqst.sql" in capsys.readouterr().out
    assert dbt_codegen.main(["--project-dir", str(tmp_path)]) == 0
    assert dbt_codegen.main(["--project-dir", str(tmp_path), "--check"]) == 0
