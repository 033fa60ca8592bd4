"""--violate writes exactly the invariant breaks the manifest lists (and nothing else breaks);
--corrupt damages the file so that the reader quarantines exactly what the manifest says while
every other record still decodes to the written values."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pytest

from mqsmf.generate import SUPPORTED_CHECKS, ScenarioConfig, Target, generate_scenario, plan_scenario, write_scenario
from mqsmf.generate.pathology import CHECK_BEFORE

from .test_generate import broken_invariants, decode, mismatched_columns

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
BASE = dict(qmgrs=3, lpars=2, queues=16, intervals=3, versions=("9.3.3", "9.4.3", "10.0.0"), max_record_bytes=4096)


@pytest.mark.parametrize("check", SUPPORTED_CHECKS)
def test_each_violation_is_exactly_where_the_manifest_says(check, tmp_path):
    # A check planted before a release (negative depth: no watermarks yet) needs such a queue manager.
    versions = ("9.3.1",) + BASE["versions"][1:] if check in CHECK_BEFORE else BASE["versions"]
    config = ScenarioConfig(seed=sum(map(ord, check)), violate=(Target(check),), **{**BASE, "versions": versions})
    sc = plan_scenario(config)
    path = tmp_path / f"{check}.dat"
    manifest = write_scenario(sc, str(path))
    (v,) = manifest["violations"]
    assert v["check"] == check and v["relation"]
    tables, report = decode(path)
    assert not report.quarantine
    broken = broken_invariants(tables, sc.config)
    assert broken == {check: {(v["qmgr"], v["object_name"], v["interval"])}}
    if check == "interval_gap":
        assert "record_offsets" not in v
    else:
        assert v["record_offsets"]
    if "fields" in v:  # the values written are the ones decoded
        q = tables[v["structure"]]
        rows = q.filter(pa.compute.equal(q.column("qmgr"), v["qmgr"]))
        key = {"QQST": "QQSTQNAM", "QPST": "QPSTPOOL", "QIS1": "QIS1PSNO", "QCTDNS": None}[v["structure"]]
        if key:  # the DNS task is one row per queue manager and interval
            rows = rows.filter(pa.compute.equal(rows.column(key).cast(pa.string()), v["object_name"]))
        starts = [t.isoformat().replace("+00:00", "Z") for t in rows.column("interval_start").to_pylist()]
        row = rows.slice(starts.index(v["interval_start"]), 1).to_pylist()[0]
        for name, value in v["fields"].items():
            decoded = row[name]
            if isinstance(decoded, datetime):  # the manifest holds a time as microseconds since 1970
                decoded = (decoded - EPOCH) // timedelta(microseconds=1)
            assert decoded == value, name
        assert row["record_offset"] in v["record_offsets"]
        if v["structure"] == "QQST":
            assert v["record_offsets"] == [row["record_offset"]]  # the one 115/216 record holding the queue


def test_duplicate_record_is_written_twice_byte_for_byte(tmp_path):
    sc = plan_scenario(ScenarioConfig(seed=3, violate=(Target("duplicate_record"),), **BASE))
    path = tmp_path / "dup.dat"
    manifest = write_scenario(sc, str(path))
    (v,) = manifest["violations"]
    a, b = v["record_offsets"]
    data = path.read_bytes()
    length = int.from_bytes(data[a : a + 2], "big")
    assert data[a : a + length] == data[b : b + length] and b == a + length


def test_gap_and_overlap_move_the_interval_boundaries(tmp_path):
    sc = plan_scenario(ScenarioConfig(seed=5, violate=(Target("interval_gap"), Target("interval_overlap")), **BASE))
    path = tmp_path / "gap.dat"
    manifest = write_scenario(sc, str(path))
    gap, overlap = manifest["violations"]
    tables, _ = decode(path)
    j = tables["QJST"]
    starts = {
        (r["qmgr"], r["interval_start"].isoformat().replace("+00:00", "Z"))
        for r in j.select(["qmgr", "interval_start"]).to_pylist()
    }
    assert (gap["qmgr"], gap["interval_start"]) not in starts
    assert (overlap["qmgr"], overlap["written_interval_start"]) in starts


CASES = (
    [("bitflip", f) for f in ("rdw", "bdw", "nordw")]
    + [("truncate", f) for f in ("rdw", "bdw", "nordw")]
    + [("badrdw", f) for f in ("rdw", "bdw")]
)


@pytest.fixture(scope="module")
def damage_scenario():
    return generate_scenario(ScenarioConfig(seed=17, qmgrs=3, lpars=2, queues=24, intervals=3))


@pytest.mark.parametrize(("kind", "framing"), CASES)
def test_damage_is_quarantined_exactly_as_the_manifest_says(damage_scenario, kind, framing, tmp_path):
    sc = damage_scenario
    path = tmp_path / f"{kind}.{framing}"
    manifest = write_scenario(sc, str(path), framing=framing, corrupt=[kind])
    (c,) = manifest["corruptions"]
    tables, report = decode(path, framing)
    got = [(q.offset, q.length, q.smf_type, q.smf_subtype) for q in report.quarantine]
    want = [(e["offset"], e["length"], e["smf_type"], e["smf_subtype"]) for e in c["expected_quarantine"]]
    assert got == want
    for q, e in zip(report.quarantine, c["expected_quarantine"], strict=True):
        assert e["reason_contains"].lower() in q.reason.lower(), q.reason
    # Record counts survive: everything not lost is read and decoded.
    written = Counter(manifest["file"]["records_by_type"])
    lost = Counter(
        f"{r['smf_type']}" + (f"/{r['smf_subtype']}" if r["smf_subtype"] is not None else "") for r in c["records_lost"]
    )
    decoded = Counter({f"{t}/{s}": n for (t, s), n in report.decoded.items()})
    skipped = Counter({f"{t}": n for (t, _), n in report.skipped.items()})
    assert decoded + skipped == written - lost
    # ... and every decoded instance is exactly a written one.
    lost_instances = Counter()
    for r in c["records_lost"]:
        lost_instances.update(r.get("instances", {}))
    for name, n in manifest["counts"]["instances"].items():
        got_rows = tables.get(name)
        assert (got_rows.num_rows if got_rows is not None else 0) == n - lost_instances[name], name
        if got_rows is None or not got_rows.num_rows:
            continue
        truth = sc.truth(name)
        # SMF 116 records have no interval: their rows are keyed by the record's time alone.
        record_key = ["qmgr", "smf_type", "record_stck", "entry_index"]
        kept = truth.join(got_rows.select(record_key), keys=record_key, join_type="inner")
        assert not mismatched_columns(kept, got_rows), name


def test_all_corruptions_at_once(damage_scenario, tmp_path):
    path = tmp_path / "all.dat"
    manifest = write_scenario(damage_scenario, str(path), corrupt=["truncate", "bitflip", "badrdw"])
    assert [c["kind"] for c in manifest["corruptions"]] == ["bitflip", "badrdw", "truncate"]
    _, report = decode(path)
    want = sorted(e["offset"] for c in manifest["corruptions"] for e in c["expected_quarantine"])
    assert sorted(q.offset for q in report.quarantine) == want
