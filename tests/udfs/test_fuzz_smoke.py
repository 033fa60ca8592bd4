"""A few hundred inputs of the fuzz campaign (bench/fuzz_reader.py), with the same limits, so the
harness cannot rot; the campaign itself (a million inputs) is a benchmark, not a test."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
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
    stats, failures, timing = fuzz.run(400, 7, 100, 50, str(tmp_path), events_share=0.2)
    assert failures == []
    assert stats["inputs"] == 400
    assert stats["public_api_inputs"] >= 4
    assert stats["records_framed"] > 400  # the seeds hold several records each
    assert stats["records_framed"] == stats["records_decoded"] + stats["records_quarantined"] + stats["records_skipped"]
    assert stats["records_quarantined"] > 0 and stats["framing_quarantine_spans"] > 0  # the mutations bite
    # Event dumps too, mutated by structure: some messages quarantined, the rest still decoded.
    assert stats["event_inputs"] > 40 and stats["event_messages_decoded"] > 0
    assert stats["event_quarantine_entries"] > 0 and stats["event_messages"] > stats["event_messages_decoded"]
    assert timing.timed >= stats["event_inputs"] and timing.slowest and timing.worst_ratio > 0


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
    _, failures, _ = fuzz.run(30, 3, 10, 0, str(tmp_path), events_share=0)
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


def test_every_event_seed_decodes_cleanly_before_mutation(fuzz):
    for seed in fuzz.build_event_seeds():
        report = fuzz.run_events(seed.data)
        assert report.decoded > 0 and not report.quarantine, (seed.name, report.quarantine[:1])


def test_an_input_past_its_time_limit_is_a_finding(fuzz, tmp_path, monkeypatch):
    """The limit is per input: a chunk past ten times it is re-run input by input, and each input
    that alone runs past it is saved as a failure."""

    def slow(*args, **kwargs):
        time.sleep(0.3)
        raise AssertionError("not reached: the limit interrupts the sleep")

    monkeypatch.setattr(reader, "_decode_records", slow)
    stats, failures, _ = fuzz.run(6, 3, 6, 0, str(tmp_path), fuzz.Limits(input_seconds=0.02), events_share=0)
    assert stats["chunks_rerun"] == 1
    assert failures and all("LimitExceeded: took more than 0.02 s" in f.error for f in failures)


def test_a_memory_bomb_is_a_finding_not_an_outage(tmp_path):
    """Under the campaign's address-space limit a decoder that asks for gigabytes fails the input
    with MemoryError (run in a process of its own: the limit stays with the process)."""
    code = f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("fuzz_reader", {str(HARNESS)!r})
fuzz = importlib.util.module_from_spec(spec); sys.modules["fuzz_reader"] = fuzz; spec.loader.exec_module(fuzz)
from mqsmf import reader
def bomb(*args, **kwargs):
    return bytearray(8 << 30)  # 8 GiB
reader._decode_records = bomb
stats, failures, _ = fuzz.run(4, 5, 4, 0, {str(tmp_path)!r}, fuzz.Limits(memory_mb=512), events_share=0)
print(stats["chunks_rerun"], len(failures), failures[0].error if failures else "")
"""
    sample("TESTCHL")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rerun, count, error = proc.stdout.strip().splitlines()[-1].split(" ", 2)
    assert rerun == "1" and int(count) >= 1 and error.startswith("MemoryError"), proc.stdout


def test_the_benchmark_prints_its_limits_and_worst_cases(tmp_path):
    """The command the docs give, shortened: exit 0 and the figures the closing notes quote."""
    sample("TESTCHL")
    cmd = [sys.executable, str(HARNESS), "--inputs", "300", "--seed", "3", "--out", str(tmp_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for line in (
        "inputs           300",
        "event messages",
        "limits ",
        "peak RSS",
        "slowest input",
        "worst case",
        "failures         0",
    ):
        assert line in proc.stdout, line
