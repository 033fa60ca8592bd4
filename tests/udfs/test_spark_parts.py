"""The data source's partitions and decoding, without a JVM: byte-range splits give exactly the rows,
quarantine and counts of a whole-file read (also around damage); a structure read alone gives the
rows a whole-file read gives; the spool decodes once and serves every structure; paths expand as
documented; the load plan quotes what it embeds."""

from __future__ import annotations

import json
import os
import threading
import time

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqsmf import layouts, read_file, warehouse
from mqsmf.framing import frame
from mqsmf.spark import partitions, plan
from mqsmf.spark import spool as spool_store

from .smf_samples import sample

ALL = sorted(layouts())


def _table(batches, structure: str) -> pa.Table:
    return pa.Table.from_batches(list(batches), schema=partitions.schema_of(structure))


def _read_parts(plan, structure, spool=None) -> pa.Table:
    return _table((b for p in plan for b in partitions.part_batches(p, structure, spool)), structure)


def _audit_counts(table: pa.Table) -> dict:
    out: dict = {}
    for r in table.to_pylist():
        key = (r["smf_type"], r["smf_subtype"])
        got = out.setdefault(key, [0, 0, 0, 0])
        for i, c in enumerate(("records_read", "records_decoded", "records_quarantined", "records_skipped")):
            got[i] += r[c]
    return out


def _report_counts(report) -> dict:
    keys = set(report.read) | set(report.quarantined)
    return {
        k: [report.read[k], report.decoded[k], report.quarantined[k], report.skipped[k]]
        for k in keys
        if any((report.read[k], report.quarantined[k]))
    }


def _assert_same_as_whole_file(path: str, plan, spool: str | None = None) -> None:
    tables, report = read_file(path)
    for name in ALL:
        got = _read_parts(plan, name, spool)
        want = tables.get(name, got.schema.empty_table())
        assert got.equals(want), name
    assert _audit_counts(_read_parts(plan, partitions.AUDIT, spool)) == _report_counts(report)
    q = _read_parts(plan, partitions.QUARANTINE, spool).to_pylist()
    # Ranges list their framing damage range by range, a whole-file read all of it first.
    assert sorted((r["offset"], r["length"], r["reason"], r["raw_bytes"]) for r in q) == sorted(
        (e.offset, e.length, e.reason, e.raw) for e in report.quarantine
    )


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    """TESTCHL twice over (1.6 MB, 690 records, 56 of them spanned)."""
    path = tmp_path_factory.mktemp("parts") / "repeated.dat"
    path.write_bytes(sample("TESTCHL").read_bytes() * 2)
    return path


def test_ranges_of_a_clean_file_read_like_the_whole_file(repeated):
    plan = partitions.plan_parts([str(repeated)], "auto", split_bytes=150_000)
    assert len(plan) >= 9
    assert [p.lo for p in plan[1:]] == [p.hi for p in plan[:-1]] and plan[-1].hi == repeated.stat().st_size
    starts = set(int(o) for o in frame(repeated.read_bytes(), "rdw").offsets)
    assert all(p.lo in starts for p in plan)  # every cut is the start of a logical record
    _assert_same_as_whole_file(str(repeated), plan)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    hits=st.lists(st.tuples(st.floats(0.02, 0.98), st.binary(min_size=1, max_size=4)), min_size=1, max_size=4),
    split=st.integers(120_000, 500_000),
)
def test_ranges_around_damage_read_like_the_whole_file(repeated, tmp_path_factory, hits, split):
    """Junk written over the descriptor words of a few records: framing damage and resync."""
    data = bytearray(repeated.read_bytes())
    starts = frame(bytes(data), "rdw").offsets
    for where, junk in hits:
        at = int(starts[int(where * len(starts))])
        data[at : at + len(junk)] = junk
    work = tmp_path_factory.mktemp("damaged")
    path = work / "damaged.dat"
    path.write_bytes(bytes(data))
    plan = partitions.plan_parts([str(path)], "auto", split_bytes=split)
    assert len(plan) > 1
    _assert_same_as_whole_file(str(path), plan, str(work / "spool"))


def test_cuts_keep_clear_of_damage():
    offsets = list(range(0, 2_000_000, 1000))
    cuts = partitions.safe_cuts(offsets, [], 2_000_000, 500_000)
    assert cuts == [500_000, 1_000_000, 1_500_000]
    damage = [(990_000, 1_010_000)]
    cuts = partitions.safe_cuts(offsets, damage, 2_000_000, 500_000)
    assert cuts[0] == 500_000 and cuts[2] == 1_500_000
    assert cuts[1] >= 1_010_000 + partitions.SPLIT_MARGIN
    assert partitions.safe_cuts(offsets, [], 2_000_000, 5_000_000) == []


def test_a_structure_alone_drops_the_rows_of_records_another_structure_condemns(tmp_path):
    """A wrong eyecatcher in QLST quarantines its whole 115/2 record: QMST of that record is gone
    from a whole-file read, and must be gone from a QMST-only read too."""
    data = bytearray(sample("TESTCHL").read_bytes())
    fr = frame(bytes(data), "rdw")
    tables, _ = read_file(str(sample("TESTCHL")))
    spanned = {int(fr.offsets[i]) for i in fr.spanned}
    record = next(o for o in tables["QLST"].column("record_offset").to_pylist() if o not in spanned)
    end = record + int(fr.lengths[list(fr.offsets).index(record)])
    eye = bytes(data).index("QLST".encode("cp037"), record, end)
    data[eye : eye + 4] = "XXXX".encode("cp037")
    path = tmp_path / "bad_qlst.dat"
    path.write_bytes(bytes(data))

    damaged, report = read_file(str(path))
    assert any("QLST" in q.reason for q in report.quarantine)
    assert damaged["QMST"].num_rows == tables["QMST"].num_rows - 1
    plan = partitions.plan_parts([str(path)], "auto", split_bytes=0)
    assert _read_parts(plan, "QMST").equals(damaged["QMST"])


def test_spool_decodes_once_and_serves_every_structure(tmp_path):
    path = str(sample("TESTCHL"))
    spool = tmp_path / "spool" / "load-1"
    plan = partitions.plan_parts([path], "auto", split_bytes=300_000, spool=str(spool))
    assert len(plan) == 3
    tables, report = read_file(path)
    first = _read_parts(plan, "QPST", str(spool))
    entries = sorted(spool.glob("part-*"))
    assert len(entries) == 3
    stamps = [e.stat().st_mtime_ns for e in entries]
    for name in ALL:
        want = tables.get(name, partitions.schema_of(name).empty_table())
        assert _read_parts(plan, name, str(spool)).equals(want), name
    assert first.equals(tables["QPST"])
    assert _audit_counts(_read_parts(plan, partitions.AUDIT, str(spool))) == _report_counts(report)
    assert [e.stat().st_mtime_ns for e in sorted(spool.glob("part-*"))] == stamps  # never decoded again
    # The split plan is kept in the spool too: planning again gives the same partitions.
    assert partitions.plan_parts([path], "auto", split_bytes=300_000, spool=str(spool)) == plan

    digest = [b.column("source_sha256")[0].as_py() for b in partitions.part_batches(plan[0], "QSST", str(spool), True)]
    assert digest and set(digest) == {report.sha256}

    assert spool_store.release_spool(str(spool)) and not spool.exists()


def test_release_and_prune_touch_only_spools(tmp_path):
    other = tmp_path / "not-a-spool"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    assert not spool_store.release_spool(str(other)) and (other / "keep.txt").exists()
    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        spool_store.spool_root(str(d))
    stale = time.time() - spool_store.SPOOL_MAX_AGE_SECONDS - 60
    os.utime(old / spool_store.SPOOL_MARKER, (stale, stale))
    assert spool_store.prune_spools(tmp_path) == 1
    assert not old.exists() and new.exists() and other.exists()


def test_unrecognisable_and_empty_files_are_recorded(tmp_path):
    junk = tmp_path / "junk.dat"
    junk.write_bytes(b"this is not an SMF dump\n" * 10_000)
    empty = tmp_path / "empty.dat"
    empty.write_bytes(b"")
    plan = partitions.plan_parts([str(junk), str(empty)], "auto", split_bytes=0)
    audit = _read_parts(plan, partitions.AUDIT).to_pylist()
    assert [(r["source_file"], r["smf_type"], r["records_quarantined"]) for r in audit] == [
        (str(junk), None, 1),
        (str(empty), None, 0),
    ]
    (q,) = _read_parts(plan, partitions.QUARANTINE).to_pylist()
    assert q["source_file"] == str(junk) and q["offset"] == 0 and q["length"] == junk.stat().st_size
    assert "whole file is quarantined" in q["reason"] and len(q["raw_bytes"]) == partitions.UNFRAMED_RAW_BYTES
    assert junk.read_bytes().startswith(q["raw_bytes"])
    assert all(_read_parts(plan, name).num_rows == 0 for name in ALL)


def test_paths_expand_to_files_in_a_stable_order(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    for name in ("d/b.dat", "d/a.dat", "d/sub/c.dat", "d/.hidden", "d/_SUCCESS", "e.dat"):
        (tmp_path / name).write_bytes(b"")
    got = partitions.expand_paths([str(tmp_path / "d"), str(tmp_path / "*.dat"), str(tmp_path / "d" / "a.dat")])
    assert got == [str(tmp_path / p) for p in ("d/a.dat", "d/b.dat", "d/sub/c.dat", "e.dat")]
    with pytest.raises(FileNotFoundError, match="nope.dat: no such file"):
        partitions.expand_paths([str(tmp_path / "nope.dat")])
    with pytest.raises(FileNotFoundError, match="matches no file"):
        partitions.expand_paths([str(tmp_path / "*.none")])


def test_load_plan_covers_every_table_and_quotes_what_it_embeds():
    path = "/data/it's \\ here.dat"
    steps = plan.load_plan([path], load_id="L1", spool="/tmp/s")
    sql = "\n".join(s.sql for s in steps)
    for table in warehouse.raw_tables():
        assert f"CREATE TABLE IF NOT EXISTS `smf_raw`.`{table}`" in sql
    assert warehouse.literal(path) == "'/data/it\\'s \\\\ here.dat'"
    assert warehouse.literal(json.dumps([path])) in sql
    labels = [s.label for s in steps if s.kind == plan.EXPAND]
    assert labels == ["recover", "publish"]  # their rows are the statements that complete a publication
    acting = [s.label for s in steps if not s.label.startswith(("view ", "drop view ", "table ", "schema "))]
    assert acting == ["recover", "decode files", "stage", "commit", "publish", plan.RELEASE_LABEL]
    # the workers learn the warehouse folder from Spark SQL's variable substitution
    assert "warehouse '${spark.sql.warehouse.dir}'" in sql
    assert plan.natural_key("QPST") == [
        "`qmgr`",
        "`smf_subtype`",
        # the interval start, else the STCK, else the SMF header's local time (read as UTC)
        "coalesce(interval_start, record_stck, cast(smf_time_local as timestamp))",
        "`QPSTPOOL`",
    ]
    only_tables = plan.load_plan([])
    assert len(only_tables) == 1 + len(warehouse.raw_tables()) + 3  # schema, tables, recover (view, read, drop)
    assert warehouse.ident("a`b") == "`a``b`"


def test_cancelled_local_reads_leave_the_queued_partitions_unread(tmp_path, repeated):
    """A load that fails cancels the partitions its worker processes have not started (load_files:
    a catalog step failing while the decode, started first, still runs): the read ends with
    CancelledError, close() does not wait for the rest, and only the started parts were decoded."""
    from concurrent.futures import CancelledError

    from mqsmf.spark.local import LocalReads
    from mqsmf.spark.options import ReadOptions

    spool = tmp_path / "spool" / "load-1"
    total = len(partitions.plan_parts([str(repeated)], "auto", split_bytes=50_000))
    options = ReadOptions((str(repeated),), "auto", 50_000, str(spool)).to_options()
    reads = LocalReads(str(tmp_path / "warehouse"), 1)
    first_part_done, outcome = threading.Event(), {}

    def read() -> None:
        try:
            outcome["table"] = reads.read(partitions.AUDIT, options, lambda done, total: first_part_done.set())
        except BaseException as e:  # noqa: BLE001  (what the test looks at)
            outcome["error"] = e

    reader = threading.Thread(target=read)
    try:
        reader.start()
        assert first_part_done.wait(120)
        reads.cancel()
        reader.join(120)
    finally:
        reads.close()
    assert isinstance(outcome.get("error"), CancelledError) and "table" not in outcome
    assert total > 10 and 1 <= len(list(spool.glob("part-*"))) <= 3  # the first, the running one (and a race)
