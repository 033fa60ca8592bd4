"""The ``mqsmf`` Spark data source: registered by itself, readable from the DataFrame API and from SQL,
rows and values identical to ``mqsmf.read_file`` for every structure, one partition per file (or
byte range), clear errors."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pytest

from mqsmf import layouts, read_file
from mqsmf.spark import partitions

from .smf_samples import sample

pytestmark = pytest.mark.spark
ORDER = [("source_file", "ascending"), ("record_offset", "ascending"), ("entry_index", "ascending")]


@pytest.fixture(scope="module")
def samples():
    return [str(sample(name)) for name in ("TEST115", "TEST116", "TESTCHL")]


@pytest.fixture(scope="module")
def expected(samples):
    """read_file of the three samples, concatenated per structure."""
    per_file = [read_file(p)[0] for p in samples]
    return {
        name: pa.concat_tables([t[name] for t in per_file if name in t] or [partitions.schema_of(name).empty_table()])
        for name in sorted(layouts())
    }


def _arrow(df, structure: str) -> pa.Table:
    return df.toArrow().cast(partitions.schema_of(structure)).sort_by(ORDER)


def test_every_structure_reads_as_read_file_decodes_it(spark, samples, expected):
    def read(name: str) -> pa.Table:
        return _arrow(spark.read.format("mqsmf").option("structure", name.lower()).load(samples), name)

    names = sorted(layouts())
    with ThreadPoolExecutor(4) as pool:  # the reads are mostly latency: overlap them
        tables = dict(zip(names, pool.map(read, names), strict=True))
    for name, got in tables.items():
        assert got.num_rows == expected[name].num_rows, name
        assert got.equals(expected[name].sort_by(ORDER)), name
    assert sum(t.num_rows for t in tables.values()) > 1000


def test_sql_temporary_view_with_a_glob(spark, samples, expected):
    folder = sample("TESTCHL").parent
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW smf_qpst USING mqsmf OPTIONS (path '{folder}/*.dat', structure 'QPST')"
    )
    row = spark.sql("SELECT count(*) AS n, count(DISTINCT source_file) AS files FROM smf_qpst").first()
    assert (row.n, row.files) == (expected["QPST"].num_rows, 2)  # TEST116 has no QPST
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW smf_audit USING mqsmf OPTIONS (path '{samples[2]}', structure '_audit')"
    )
    audit = {(r.smf_type, r.smf_subtype): r.records_read for r in spark.sql("SELECT * FROM smf_audit").collect()}
    assert audit == dict(read_file(samples[2])[1].read)
    spark.sql("DROP VIEW smf_qpst")
    spark.sql("DROP VIEW smf_audit")


def test_one_partition_per_file_and_per_range(spark, samples, expected):
    whole = spark.read.format("mqsmf").option("structure", "QPST").load(samples)
    assert whole.rdd.getNumPartitions() == 3
    split = spark.read.format("mqsmf").options(structure="QPST", split_bytes="200000").load(samples[2])
    assert split.rdd.getNumPartitions() == 4
    assert _arrow(split, "QPST").equals(read_file(samples[2])[0]["QPST"].sort_by(ORDER))


def test_spark_types_follow_the_layouts(spark, samples):
    lay = layouts()["QQST"]
    types = dict(spark.read.format("mqsmf").option("structure", "QQST").load(samples[0]).dtypes)
    assert types[next(f.column for f in lay.data_fields if f.dtype == ">u4")] == "bigint"  # widened
    assert types[next(f.column for f in lay.data_fields if f.kind == "u64")] == "decimal(20,0)"  # never wraps
    assert types["interval_start"] == "timestamp" and types["interval_start_local"] == "timestamp_ntz"


def test_errors_name_the_problem(spark, tmp_path):
    with pytest.raises(Exception, match="unknown structure 'QXYZ'"):
        spark.read.format("mqsmf").option("structure", "QXYZ").load(str(tmp_path)).count()
    with pytest.raises(Exception, match="no_such.dat: no such file"):
        spark.read.format("mqsmf").option("structure", "QPST").load(str(tmp_path / "no_such.dat")).count()
    with pytest.raises(Exception, match="unknown framing 'vb'"):
        spark.read.format("mqsmf").options(structure="QPST", framing="vb").load(str(tmp_path)).count()
