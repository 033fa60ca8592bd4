"""A few hundred inputs of the fuzz campaign (bench/fuzz_reader.py), so the harness cannot rot;
the campaign itself (a million inputs) is a benchmark, not a test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from mqsmf import reader
from mqsmf.framing import Quarantined

from .smf_samples import sample

HARNESS = Path(__file__).resolve().parents[2] / "bench" / "fuzz_reader.py"


@pytest.fixture(scope="module")
def fuzz():
    sample("TESTCHL")  # skips when the shared samples are absent
    spec = importlib.util.spec_from_file_location("fuzz_reader", HARNESS)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_reader"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_short_campaign_finds_nothing_and_accounts_for_every_record(fuzz, tmp_path):
    stats, failures = fuzz.run(400, 7, 100, 50, str(tmp_path))
    assert failures == []
    assert stats["inputs"] == 400
    assert stats["public_api_inputs"] >= 4
    assert stats["records_framed"] > 400  # the seeds hold several records each
    assert stats["records_framed"] == stats["records_decoded"] + stats["records_quarantined"] + stats["records_skipped"]
    assert stats["records_quarantined"] > 0 and stats["framing_quarantine_spans"] > 0  # the mutations bite


def test_every_seed_decodes_cleanly_before_mutation(fuzz):
    for seed in fuzz.build_seeds():
        tables, report = reader.read_bytes(seed.data, seed.name, framing=seed.framing)
        assert not report.quarantine, (seed.name, report.quarantine[0])
        assert sum(t.num_rows for t in tables.values()) > 0, seed.name


def test_the_harness_reports_an_exception_with_the_input_saved(fuzz, tmp_path, monkeypatch):
    """A decoder that raises must be caught, blamed on an input and the input kept."""

    def broken(*args, **kwargs):
        raise RuntimeError("planted")

    monkeypatch.setattr(reader, "_decode_records", broken)
    _, failures = fuzz.run(30, 3, 10, 0, str(tmp_path))
    assert failures and all("RuntimeError: planted" in f.error for f in failures)
    assert all(Path(f.path).read_bytes() for f in failures)


def test_the_framing_invariants_catch_overlapping_spans(fuzz, monkeypatch):
    """The span check is not vacuous: a framing that quarantines a record's bytes fails it."""
    data = sample("TEST115").read_bytes()
    real_frame = fuzz.frame

    def overlapping(b, framing):
        fr = real_frame(b, framing)
        fr.quarantine.append(Quarantined(int(fr.offsets[1]), 8, "planted"))
        return fr

    monkeypatch.setattr(fuzz, "frame", overlapping)
    with pytest.raises(fuzz.InvariantError, match="overlap"):
        fuzz.frame_input(data, "rdw")
