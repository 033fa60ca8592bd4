"""The marts stage of the gate on real dbt marts: a small generated queue-sharing-group day is loaded
and built by dbt (the four facts the QSG reconciliation reads, and what they depend on), then

- the untampered marts pass every marts check, each of them evaluated on rows;
- a copy of the marts whose QSG roll-ups were rewritten with a few values changed (and one roll-up
  row deleted) fails the gate, which names exactly the rewritten rows (QSG, queue or CF structure,
  aligned interval) under exactly the checks of the measures changed;
- ``mqsmf check --stage all`` (what ``mqsmf run`` calls after ``dbt build``) prints the failure
  table, writes Data Docs and dq_violations for both stages, exits 1; made warnings, the same
  violations pass (exit 0).

One module-scoped dbt run keeps the Spark work to a single build.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from mqsmf.generate import ScenarioConfig, generate_scenario, write_scenario
from mqsmf.quality.checks import MARTS, RAW, ROLLUPS, catalogue

from .gate_equivalence import verdicts_of_both_ways

pytestmark = pytest.mark.spark

TARGET_SCHEMA = "dq_marts_test"  # dbt puts the marts in <schema>_marts
RAW_SCHEMA = "dq_marts_raw"
MARTS_SCHEMA = f"{TARGET_SCHEMA}_marts"
TAMPERED = "dq_marts_tampered"
QUALITY = "dq_marts_quality"
# Every MQ version (so QQST rows of every generation), 3 queue managers sharing 4 queues.
DAY = dict(seed=23, qmgrs=3, lpars=2, queues=12, shared_queues=4, intervals=4)
FACTS = sorted({t for spec in ROLLUPS.values() for t in (spec["rollup"], spec["members"])})


def _write_raw(spark, path: str, folder) -> None:
    """The raw tables of one dump as the loader's contract has them (every structure, the load
    columns, smf_load_audit, smf_quarantine), written straight from the decoder with Arrow: the
    loader itself is tested in its own modules and by test_quality_generated."""
    import pyarrow.parquet as pq

    from mqsmf import read_file
    from mqsmf.warehouse import partition_time, raw_tables

    tables, report = read_file(path)
    assert not report.quarantine
    loaded_at = datetime(2025, 6, 3, tzinfo=UTC)
    load = {
        "load_id": "dq-marts-test",
        "loaded_at": loaded_at,
        "source_sha256": report.sha256,
        "load_date": loaded_at.date(),
    }
    audit = [
        {**load, "source_file": path, "file_size": report.size, "framing": report.framing, "smf_type": typ,
         "smf_subtype": sub, "records_read": report.read[typ, sub], "records_decoded": n,
         "records_quarantined": 0, "records_skipped": report.skipped[typ, sub]}
        for (typ, sub), n in report.decoded.items()
    ]  # fmt: skip
    spark.sql(f"CREATE DATABASE {RAW_SCHEMA}")
    for name, schema in raw_tables().items():
        if name == "smf_load_audit":
            table = pa.Table.from_pylist(audit, schema=schema)
        elif name.upper() in tables:
            decoded = tables[name.upper()]
            rows = decoded.num_rows
            # interval_date: the UTC date of the first non-NULL partition time (the contract's rule)
            when = partition_time(name.upper(), decoded)
            columns = {**load, "interval_date": pc.cast(when, pa.date32())}
            table = pa.Table.from_arrays(
                [decoded[f.name] if f.name in decoded.column_names
                 else columns[f.name] if f.name == "interval_date" else pa.array([columns[f.name]] * rows, f.type)
                 for f in schema],
                schema=schema,
            )  # fmt: skip
        else:
            table = schema.empty_table()
        (folder / name).mkdir(parents=True)
        pq.write_table(table, folder / name / "part-0.parquet")
        spark.sql(f"CREATE TABLE {RAW_SCHEMA}.{name} USING parquet LOCATION '{folder / name}'")


@pytest.fixture(scope="module")
def marts(spark, dbt, tmp_path_factory):
    work = tmp_path_factory.mktemp("dq_marts")
    day = work / "qsg_day.dat"
    write_scenario(generate_scenario(ScenarioConfig(**DAY)), str(day))
    for schema in (RAW_SCHEMA, MARTS_SCHEMA, TAMPERED, QUALITY):
        spark.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
    _write_raw(spark, str(day), work / "raw")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
        result = dbt(
            "run",
            "--select",
            *(f"+{fact}" for fact in FACTS),
            "--vars",
            json.dumps({"smf_paths": [], "raw_schema": RAW_SCHEMA}),
        )
    assert result.success, [f"{r.node.unique_id}: {r.status} {r.message}" for r in result.result or ()]
    return work


def _utc(micros: int | None) -> datetime | None:
    return None if micros is None else datetime.fromtimestamp(0, UTC) + timedelta(microseconds=micros)


def _tamper(spark) -> dict[str, set]:
    """Copy the marts into TAMPERED: the members as they are, the roll-ups rewritten with one value
    changed in a few rows and one row deleted. {check: keys (qsg, object, interval start)} of the
    rows the gate must list."""
    spark.sql(f"CREATE DATABASE {TAMPERED}")
    want: dict[str, set] = {}
    for name, spec in ROLLUPS.items():
        obj = spec["object"]
        spark.sql(f"CREATE VIEW {TAMPERED}.{spec['members']} AS SELECT * FROM {MARTS_SCHEMA}.{spec['members']}")
        key_column = spec["rollup"].removeprefix("fct_") + "_key"  # the mart's surrogate key
        keys = spark.sql(
            f"SELECT {key_column} AS k, qsg_name, {obj} AS o, unix_micros(interval_start_at) AS s "
            f"FROM {MARTS_SCHEMA}.{spec['rollup']} WHERE qmgrs_reporting > 1 "
            f"AND {spec['sums'][0]} IS NOT NULL AND {spec['maxima'][-1][0]} IS NOT NULL ORDER BY o, s LIMIT 3"
        ).collect()
        assert len(keys) == 3, f"{spec['rollup']}: the generated day has too few multi-member rows"
        changed, peak = spec["sums"][0], spec["maxima"][-1][0]
        # Row 0: a counter off by one; row 1: the peak lowered and the member count wrong; row 2: deleted.
        columns = [f.name for f in spark.table(f"{MARTS_SCHEMA}.{spec['rollup']}").schema.fields]
        rewrite = {
            changed: f"CASE WHEN {key_column} = '{keys[0].k}' THEN {changed} + 1 ELSE {changed} END",
            peak: f"CASE WHEN {key_column} = '{keys[1].k}' THEN {peak} - 1 ELSE {peak} END",
            "qmgrs_reporting": f"CASE WHEN {key_column} = '{keys[1].k}' THEN qmgrs_reporting + 1 "
            "ELSE qmgrs_reporting END",
        }
        select = ", ".join(f"{rewrite[c]} AS {c}" if c in rewrite else c for c in columns)
        spark.sql(
            f"CREATE TABLE {TAMPERED}.{spec['rollup']} USING parquet AS SELECT {select} "
            f"FROM {MARTS_SCHEMA}.{spec['rollup']} WHERE {key_column} <> '{keys[2].k}'"
        )
        want[f"{name}_{changed}"] = {(keys[0].qsg_name, keys[0].o, _utc(keys[0].s))}
        want[f"{name}_{peak}"] = {(keys[1].qsg_name, keys[1].o, _utc(keys[1].s))}
        want[f"{name}_qmgrs_reporting"] = {(keys[1].qsg_name, keys[1].o, _utc(keys[1].s))}
        want[f"{name}_complete"] = {(keys[2].qsg_name, keys[2].o, _utc(keys[2].s))}
    return want


@pytest.fixture(scope="module")
def tampered(spark, marts):
    return _tamper(spark)


def _listed(spark, run_id: str) -> dict[str, set]:
    rows = spark.sql(
        "SELECT check_name, qmgr_name, qsg_name, object_name, unix_micros(interval_start_at) AS start_us "
        f"FROM {QUALITY}.dq_violations WHERE stage = 'marts' AND run_id = '{run_id}'"
    ).collect()
    out: dict[str, set] = {}
    for r in rows:
        assert r.qmgr_name is None  # a QSG-wide row
        out.setdefault(r.check_name, set()).add((r.qsg_name, r.object_name, _utc(r.start_us)))
    return out


def _report(path) -> dict:
    """The --json report of the marts stage."""
    return next(r for r in json.loads(path.read_text())["stages"] if r["stage"] == MARTS)


def test_the_dbt_marts_pass_every_marts_check_found_as_mqsmf_run_finds_them(spark, marts, monkeypatch, tmp_path):
    """``mqsmf run`` passes no schema: the marts schema follows MQSMF_SCHEMA like dbt's."""
    from mqsmf.cli import main

    monkeypatch.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
    out = tmp_path / "gate.json"
    assert main(["check", "--stage", "marts", "--quality-schema", QUALITY, "--no-docs", "--json", str(out)]) == 0
    report = _report(out)
    assert report["passed"]
    assert set(report["frame_rows"]) == {f"{MARTS}.{name}" for name in ROLLUPS} and all(report["frame_rows"].values())
    assert {c["check"] for c in report["checks"]} == {c.name for c in catalogue().for_stage(MARTS).checks}
    for c in report["checks"]:  # every check saw rows: the pass proves the roll-ups reconcile
        assert c["status"] == "passed" and c["evaluated_rows"], c
    shared = spark.sql(f"SELECT count(*) FROM {MARTS_SCHEMA}.fct_shared_queue_qsg_stats WHERE qmgrs_reporting > 1")
    assert shared.first()[0] > 0, "the day should have shared queues used by several queue managers"


def test_mqsmf_check_all_names_the_rewritten_rollup_rows_and_fails(spark, tampered, tmp_path, capsys):
    from mqsmf.cli import main

    # --all: these raw tables come without smf_load_dates, so "what changed since the last gate run" is nothing
    common = ["check", "--all", "--raw-schema", RAW_SCHEMA, "--quality-schema", QUALITY, "--marts-schema", TAMPERED]
    docs, out = tmp_path / "docs", tmp_path / "gate.json"
    rc = main([*common, "--stage", "all", "--docs", str(docs), "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 1, text
    # The raw stage runs first, on the same load, and passes.
    assert "mqsmf check --stage raw: PASSED: 0 error and 0 warning checks failed" in text
    assert f"mqsmf check --stage marts: FAILED: {len(tampered)} error and 0 warning checks failed" in text

    # Exactly the rewritten rows, under exactly the checks of the values changed; GX agrees.
    report = _report(out)
    failed = {c["check"]: c for c in report["checks"] if c["status"] == "failed"}
    assert set(failed) == set(tampered)
    assert _listed(spark, report["run_id"]) == tampered
    for name, c in failed.items():
        assert c["gx_unexpected"] == c["violations"] == 1, name

    # The readable table: one line per failed check, then its offending row (object, interval).
    lines = text.splitlines()
    for check, keys in tampered.items():
        ((_qsg, obj, start),) = keys
        assert any(ln.strip().startswith("error") and f" {check} " in ln for ln in lines), check
        at = lines.index(f"  {check}: 1 violating rows, first 1:")
        assert obj in lines[at + 2] and start.strftime("%Y-%m-%d %H:%M:%S") in lines[at + 2], check

    # Data Docs and dq_check_results of both stages.
    assert (docs / RAW / "index.html").is_file() and (docs / MARTS / "index.html").is_file()
    assert "marts.qsg_queue_rollup" in (docs / MARTS / "index.html").read_text()
    stages = {
        r.stage: r.n
        for r in spark.sql(f"SELECT stage, count(*) AS n FROM {QUALITY}.dq_check_results GROUP BY 1").collect()
    }
    assert stages == {RAW: len(catalogue().for_stage(RAW).checks), MARTS: len(catalogue().for_stage(MARTS).checks)}

    # The same violations as warnings pass the gate (reported, exit 0).
    only = [arg for check in tampered for arg in ("--check", check, "--severity", f"{check}=warn")]
    assert main([*common, "--stage", "marts", "--no-docs", "--no-write", *only]) == 0
    assert f"PASSED: 0 error and {len(tampered)} warning checks failed" in capsys.readouterr().out


def test_the_one_pass_hides_no_marts_violation_from_the_expectations(spark, tampered):
    """The roll-up checks, on the rewritten roll-ups and on the marts as built (gate_equivalence)."""
    tampered_found, _, _ = verdicts_of_both_ways(spark, MARTS, schemas={MARTS: TAMPERED})
    assert {name for name, (status, _, _) in tampered_found.items() if status == "failed"} == set(tampered)
    built, _, _ = verdicts_of_both_ways(spark, MARTS, schemas={MARTS: MARTS_SCHEMA})
    assert all(status == "passed" for status, _, _ in built.values())
