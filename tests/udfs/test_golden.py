"""Every structure instance of the real samples decodes to the expected field values."""

from __future__ import annotations

import pytest

from mqsmf import RAW, layouts, read_file

from .smf_samples import expected_rows, sample


def _norm(v):
    # Character fields are trimmed of trailing blanks and binary zeros (an all-zero DDname is empty).
    return v.rstrip(" \x00") if isinstance(v, str) else v


def decoded_by_instance(name: str) -> dict[tuple, dict]:
    tables, report = read_file(str(sample(name)), mode=RAW)
    assert not report.quarantine
    out = {}
    for struct, table in tables.items():
        ibm = {f.column: f.name for f in layouts()[struct].data_fields}
        for row in table.to_pylist():
            key = (struct, row["record_offset"], row["entry_index"])
            assert key not in out
            out[key] = {ibm.get(k, k): v for k, v in row.items()}
    return out


@pytest.mark.parametrize("name", ["TEST115", "TESTCHL"])
def test_every_field_of_every_instance_matches(name):
    got = decoded_by_instance(name)
    expected = expected_rows(name)
    # Instances of one structure in one record appear in order; QEST keeps its entry position.
    seen_per_record: dict[tuple, int] = {}
    mismatches = []
    for exp in expected:
        struct, offset = exp["structure"], exp["record_offset"]
        if struct == "QEST":
            index = exp["entry_index"]
        else:
            index = seen_per_record.get((struct, offset), 0)
            seen_per_record[(struct, offset)] = index + 1
        row = got.pop((struct, offset, index), None)
        assert row is not None, f"{struct} instance {index} of the record at offset {offset} not decoded"
        for key, value in exp.items():
            if key == "structure":
                continue
            if _norm(row.get(key, "<missing>")) != _norm(value):
                mismatches.append((struct, offset, index, key, value, row.get(key, "<missing>")))
    assert not mismatches, f"{len(mismatches)} field differences, first: {mismatches[:5]}"
    expected_structures = {e["structure"] for e in expected}
    extra = [k for k in got if k[0] in expected_structures]
    assert not extra, f"instances decoded that the expected values do not have: {extra[:5]}"


def test_absent_fields_are_null_not_zero():
    """V8 records predate QMSTSPP (9.0.3), QESDFLAG (9.1.4) and QCCTSTAB (9.3.5)."""
    tables, _ = read_file(str(sample("TESTCHL")))
    assert tables["QMST"].column("QMSTSPP").null_count == tables["QMST"].num_rows
    assert tables["QESD"].column("QESDFLAG").null_count == tables["QESD"].num_rows
    assert tables["QESD"].column("QESDENCF").null_count == tables["QESD"].num_rows
    assert tables["QCCT"].column("QCCTSTAB").null_count == tables["QCCT"].num_rows
    assert tables["QMST"].column("QMSTPUBS").null_count == 0


def test_interval_times_follow_the_local_time_quirks():
    tables, _ = read_file(str(sample("TESTCHL")))
    qmst = tables["QMST"].to_pylist()[0]
    # QWHSSTCK is UTC, the SMF header is local: TESTCHL's LPAR runs 4 hours behind UTC.
    assert qmst["utc_offset_minutes"] == -240
    assert abs(qmst["interval_seconds"] - 59.768891) < 1e-9
    assert abs((qmst["interval_end"] - qmst["smf_time"]).total_seconds()) < 0.05
    # 115/231 gives QWHSDURN in TOD units; the seconds must come out the same size.
    qcct = tables["QCCT"].to_pylist()[0]
    assert abs(qcct["interval_seconds"] - 59.768941) < 1e-3
    assert qcct["interval_start"].tzinfo is not None


def test_counts_and_skips_of_the_dump_records():
    _, report = read_file(str(sample("TESTCHL")))
    assert report.framing == "rdw"
    assert report.segments == 347
    assert report.skipped[(2, -1)] == 1 and report.skipped[(3, -1)] == 1
    assert report.decoded[(115, 215)] == 16
    assert sum(report.read.values()) == 347 - 28  # 28 records are spanned over two segments
