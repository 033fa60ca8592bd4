"""Loading into the raw tables: the contract's tables and columns, idempotence (re-loading a file and
loading overlapping files add no duplicate), audit and quarantine rows, the ``mqsmf load`` command.

Two loads into one raw schema, shared by the tests of this module:
1. ``load_files``: the first half of TESTCHL's records + a damaged copy of TEST115, read in Spark;
2. ``mqsmf load``, whose reads run in local processes: all of TESTCHL (read as byte ranges), the second half of its records (both overlap
   load 1) and the damaged copy again (the very same file twice).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

from mqsmf import layouts, read_file, warehouse
from mqsmf.cli import main
from mqsmf.framing import frame
from mqsmf.spark import load, plan, spool

from .smf_samples import sample
from .warehouse_digest import digest

pytestmark = pytest.mark.spark
RAW = "test_load_raw"
NOT_COMPARED = ["source_file", "record_offset", "load_id", "loaded_at", "source_sha256", "interval_date"]


def natural_keys(table: pa.Table, structure: str) -> list[tuple]:
    cols = table.to_pydict()
    extra = layouts()[structure].natural_key
    return [
        (cols["qmgr"][i], cols["smf_subtype"][i], cols["interval_start"][i] or cols["record_stck"][i])
        + tuple(cols[c][i] for c in extra)
        for i in range(table.num_rows)
    ]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    work = tmp_path_factory.mktemp("load")
    whole = sample("TESTCHL")
    data = whole.read_bytes()
    offsets = frame(data, "rdw").offsets
    cut = int(offsets[len(offsets) // 2])  # a logical record start: no spanned record is split
    (work / "first_half.dat").write_bytes(data[:cut])
    (work / "second_half.dat").write_bytes(data[cut:])
    t115 = bytearray(sample("TEST115").read_bytes())
    records = frame(bytes(t115), "rdw").offsets
    qsst = bytes(t115).index("QSST".encode("cp037"), int(records[1]))
    t115[qsst : qsst + 4] = "XXXX".encode("cp037")  # the 115/1 record fails its eyecatcher check
    t115[int(records[2]) + 2] = 0x7F  # the 115/2 record's RDW gets an impossible segment descriptor
    (work / "damaged.dat").write_bytes(bytes(t115))
    return {
        "whole": str(whole),
        "first": str(work / "first_half.dat"),
        "second": str(work / "second_half.dat"),
        "damaged": str(work / "damaged.dat"),
    }


@pytest.fixture(scope="module")
def loads(spark, files):
    # The data source's reads run in Spark here, in local processes in the command (mqsmf.spark.local).
    first = load.load_files(spark, [files["first"], files["damaged"]], raw_schema=RAW, reads_in_spark=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        args = [files["whole"], files["second"], files["damaged"], "--split-mb", "0.2"]
        # exit status 1: the damaged file's records are quarantined (again) by this load
        assert main(["load", *args, "--raw-schema", RAW, "--no-progress"]) == 1
    audit = spark.table(f"{RAW}.smf_load_audit")
    (second,) = {r.load_id for r in audit.select("load_id").collect()} - {first.load_id}
    return first, load.summarize(spark, RAW, second), out.getvalue()


def test_a_loads_own_counts_are_what_its_published_tables_hold(spark, loads):
    """The summary load_files returns comes from the commit's counts (staging's manifests); asked
    of the published tables with SQL it must be the same."""
    first, _, _ = loads
    asked = load.summarize(spark, RAW, first.load_id)
    assert replace(first, seconds=0.0, step_seconds={}) == replace(asked, seconds=0.0, step_seconds={})
    assert first.records_quarantined > 0 and sum(first.rows_inserted.values()) > 0


@pytest.fixture(scope="module")
def expected(files):
    return {name: read_file(files[name]) for name in ("whole", "first", "damaged")}


def test_every_raw_table_exists_with_the_contract_columns(spark, loads):
    tables = {r.tableName for r in spark.sql(f"SHOW TABLES IN {RAW}").collect()}
    assert tables >= set(warehouse.raw_tables())
    for table, schema in warehouse.raw_tables().items():
        got = [(f.name, f.dataType.simpleString()) for f in spark.table(f"{RAW}.{table}").schema]
        assert got == [(f.name, plan.spark_type(f.type)) for f in schema], table
    assert warehouse.raw_tables()[warehouse.AUDIT_TABLE].names == [
        "load_id", "loaded_at", "source_file", "file_size", "source_sha256", "framing", "smf_type", "smf_subtype",
        "records_read", "records_decoded", "records_quarantined", "records_skipped", "records_with_unexpected_id", "load_date",
    ]  # fmt: skip
    assert warehouse.raw_tables()[warehouse.QUARANTINE_TABLE].names == [
        "load_id", "loaded_at", "source_file", "source_sha256", "offset", "length", "smf_type", "smf_subtype",
        "reason", "raw_bytes", "load_date",
    ]  # fmt: skip
    partitions = {r.partition.split("=")[0] for r in spark.sql(f"SHOW PARTITIONS {RAW}.qpst").collect()}
    assert partitions == {"interval_date"}


def test_overlapping_and_repeated_loads_never_duplicate_a_row(spark, loads, expected):
    first, second, _ = loads
    for name in sorted(layouts()):
        whole = expected["whole"][0].get(name)
        damaged = expected["damaged"][0].get(name)
        half = expected["first"][0].get(name)
        keys_whole = set(natural_keys(whole, name)) if whole else set()
        keys_damaged = set(natural_keys(damaged, name)) if damaged else set()
        keys_first = set(natural_keys(half, name)) if half else set()
        table = spark.table(f"{RAW}.{name.lower()}")
        assert table.count() == len(keys_whole | keys_damaged), name
        assert first.rows_inserted[name] == len(keys_first | keys_damaged), name
        assert second.rows_inserted[name] == len(keys_whole - keys_first - keys_damaged), name
        key_sql = ", ".join(plan.natural_key(name))
        dupes = spark.sql(f"SELECT {key_sql}, count(*) AS n FROM {RAW}.{name.lower()} GROUP BY ALL HAVING n > 1")
        assert dupes.count() == 0, name


def test_loaded_values_are_the_decoded_values(spark, loads, expected):
    tables, _ = expected["whole"]
    for name in ("QPST", "QCST", "WTID", "QEST"):
        got = spark.table(f"{RAW}.{name.lower()}").where("qmgr = 'QML1'").toArrow().drop_columns(NOT_COMPARED)
        want = tables[name].drop_columns(NOT_COMPARED[:2])
        order = [(c, "ascending") for c in ("smf_subtype", "interval_start", "record_stck", "entry_index")]
        assert got.cast(want.schema).sort_by(order).equals(want.sort_by(order)), name


def test_the_cli_prints_what_it_loaded(loads):
    _, second, printed = loads
    assert f"load {second.load_id}: 3 files" in printed
    assert "quarantine rows inserted: 0" in printed  # the damaged file's spans are already there
    assert f"QPST {second.rows_inserted['QPST']:,}" in printed


def test_audit_counts_every_load_of_every_file(spark, loads, expected, files):
    first, second, _ = loads
    _, report = expected["whole"]
    rows = spark.sql(
        f"SELECT load_id, smf_type, smf_subtype, records_read, records_decoded, records_quarantined, "
        f"records_skipped, file_size, source_sha256, framing FROM {RAW}.smf_load_audit "
        f"WHERE source_file = '{files['whole']}'"
    ).collect()
    assert {r.load_id for r in rows} == {second.load_id}
    counts = {
        (r.smf_type, r.smf_subtype): (r.records_read, r.records_decoded, r.records_quarantined, r.records_skipped)
        for r in rows
    }  # one row per type and subtype, though the file was read as four byte ranges
    assert counts == {
        k: (report.read[k], report.decoded[k], report.quarantined[k], report.skipped[k]) for k in report.read
    }
    assert {(r.file_size, r.source_sha256, r.framing) for r in rows} == {(report.size, report.sha256, "rdw")}
    assert report.sha256 == hashlib.sha256(Path(files["whole"]).read_bytes()).hexdigest()
    assert first.records_read == sum(expected["first"][1].read.values()) + sum(expected["damaged"][1].read.values())


def test_quarantine_keeps_each_bad_span_once(spark, loads, expected, files):
    _, report = expected["damaged"]
    assert {q.smf_type for q in report.quarantine} == {115, None}  # a record's defect and framing damage
    rows = spark.sql(f"SELECT * FROM {RAW}.smf_quarantine").collect()
    got = sorted((r.source_file, r.offset, r.length, r.reason, bytes(r.raw_bytes)) for r in rows)
    assert got == sorted((files["damaged"], q.offset, q.length, q.reason, q.raw) for q in report.quarantine)
    framing_level = spark.sql(
        f"SELECT sum(records_quarantined) AS n FROM {RAW}.smf_load_audit "
        f"WHERE source_file = '{files['damaged']}' AND smf_type IS NULL"
    ).first()
    assert framing_level.n == 2 * report.quarantined[(None, None)]  # both loads counted them


def test_rows_carry_the_digest_of_their_file_and_spools_are_gone(spark, loads, files):
    orphans = spark.sql(
        f"SELECT count(*) AS n FROM {RAW}.qpst AS q LEFT ANTI JOIN {RAW}.smf_load_audit AS a "
        f"ON a.source_file = q.source_file AND a.source_sha256 = q.source_sha256"
    ).first()
    assert orphans.n == 0
    assert not list(spool.spool_base().glob("load-*"))


def test_reads_in_spark_or_in_local_processes_load_the_same(spark, files):
    """The same files (TESTCHL in byte ranges: several partitions), loaded with the data source's
    reads in Spark and in the local pool, leave the same rows, audit, quarantine and load dates."""
    got = {}
    for in_spark in (True, False):
        schema = f"test_load_reads_{'spark' if in_spark else 'local'}"
        summary = load.load_files(
            spark, [files["whole"], files["damaged"]], raw_schema=schema, split_bytes=200_000, reads_in_spark=in_spark
        )
        assert summary.records_quarantined > 0 and summary.rows_inserted["QCST"] > 0
        got[in_spark] = digest(spark, schema)
    assert got[True]["tables"]["qcst"][0] > 0
    assert got[False] == got[True]


def test_rows_without_a_store_clock_are_dated_and_loaded_once(spark, tmp_path):
    """Records whose QWHSSTCK is zero have no UTC time and no interval start: their rows are dated
    by the SMF header (before, their day was NULL: they landed in 1969-12-31, and every reload of
    the file added them again)."""
    import numpy as np

    from mqsmf.codecs import unix_us_to_stck

    from .test_hostile_input import T0, qqst_record, rdw_file, without

    stck = int(unix_us_to_stck(np.array([T0]))[0]).to_bytes(8, "big")
    path = tmp_path / "no-stck.dat"
    path.write_bytes(rdw_file([without(qqst_record(["APP.A", "APP.B"]), stck, bytes(8)), qqst_record(["APP.C"])]))
    schema = "test_load_no_stck"
    for _ in range(2):
        load.load_files(spark, [str(path)], raw_schema=schema)
    rows = spark.sql(f"SELECT qqstqnam, CAST(interval_date AS STRING) AS d FROM {schema}.qqst").collect()
    assert sorted((r.qqstqnam, r.d) for r in rows) == [
        ("APP.A", "2025-06-15"), ("APP.B", "2025-06-15"), ("APP.C", "2025-06-15"),
    ]  # fmt: skip


def test_a_reader_of_audited_loads_sees_a_load_whole_or_not_at_all(spark, files, tmp_path):
    """The dbt staging models read only rows of loads with audit rows (macro published_rows). The
    loader publishes table by table, but a load's audit (and load dates) last, once every other
    table's partitions are registered: such a reader, looking between any two steps of the
    publication, sees none of the load's rows or all of them."""
    from mqsmf.spark import plan, staging
    from mqsmf.warehouse import AUDIT_TABLE, qualified

    schema = "test_load_reveal"
    spark.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
    load.load_files(spark, [files["first"]], raw_schema=schema)  # partitions exist: files appear in them
    steps = plan.load_plan([files["second"]], raw_schema=schema, load_id="L2", spool=str(tmp_path / "spool"))
    commit = next(i for i, s in enumerate(steps) if s.label == plan.COMMIT_LABEL)
    load.run_steps(spark, steps[: commit + 2])  # staged and committed; published below, a step at a time
    area = staging.Area(spark.conf.get(plan.WAREHOUSE_CONF), schema)
    manifests = staging._manifests(area.load_dir("L2"))
    tables = sorted(m["table"] for m in manifests if m["rows_added"] and m["table"] not in staging.REVEALED_LAST)
    audit = qualified(schema, AUDIT_TABLE)

    def seen() -> tuple[dict[str, int], dict[str, int]]:
        """Rows of L2 per table as a new reader sees them (its own listing of each table): those of
        audited loads, as the staging models read them, and all of them (one query for both)."""
        for table in [*tables, AUDIT_TABLE]:
            spark.catalog.refreshTable(qualified(schema, table))
        audited = f"(SELECT DISTINCT load_id FROM {audit}) AS audited"
        union = " UNION ALL ".join(
            f"SELECT '{t}' AS t, count(audited.load_id) AS audited, count(*) AS n FROM {qualified(schema, t)} AS rows "
            f"LEFT JOIN {audited} ON rows.load_id = audited.load_id WHERE rows.load_id = 'L2'"
            for t in tables
        )
        rows = spark.sql(union).collect()
        return {r.t: r.audited for r in rows}, {r.t: r.n for r in rows}

    views = [seen()]
    for step in plan.publish_statements(area, "L2"):  # the data files are moved now; then each statement
        load.run_steps(spark, [step])
        if not step.scaffold:
            views.append(seen())
    whole = views[-1][0]
    assert len(tables) > 3 and all(whole.values()) and views[-1][1] == whole, views[-1]
    assert all(audited == whole or not any(audited.values()) for audited, _ in views), views
    # Not vacuous: before the reveal the load's rows were in the tables, and the reader did not see them.
    assert any(any(raw.values()) and not any(audited.values()) for audited, raw in views), views
