"""The dbt project end to end, on the real sample dumps plus a generated queue-sharing group day whose
queue managers run every MQ version (9.3.0 to 10.0, so every QQST generation: 84, 120, 552 and 672
bytes):

- ``dbt build`` (load through the on-run-start hook, every model, every dbt test) passes;
- row counts reconcile: decoded instances = raw rows = staging rows = fact rows at each grain;
- the shared-queue QSG facts equal an independent roll-up of the decoded per-queue-manager records;
- IBM's partial-record rules hold exactly where the generator planted partial records;
- a QPSTCBSL the generator planted as X'7FFFFFFF' (never set in the interval) is no count in the facts;
- the data-quality gate (raw and marts stages) raises no error on it, its only warning that planted row;
- a second run that reloads the same files and adds a new day leaves every existing fact partition
  untouched (no history rebuild, no change) and adds the new day.

One module-scoped build keeps the Spark work to a single pass; the last test changes the warehouse.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mqsmf import read_file
from mqsmf.generate import ScenarioConfig, Target, generate_scenario, write_scenario
from mqsmf.layouts import QPSTCBSL_NOT_SET, layouts

from .dbt_results import failures
from .smf_samples import sample

pytestmark = pytest.mark.spark

TARGET_SCHEMA = "dbt_models_test"  # models land in <schema>_staging, _intermediate, _marts
RAW_SCHEMA = "dbt_models_raw"
MARTS = f"{TARGET_SCHEMA}_marts"
INTERMEDIATE = f"{TARGET_SCHEMA}_intermediate"
STAGING = f"{TARGET_SCHEMA}_staging"
ALIGNMENT = "60s"  # var interval_alignment_seconds
GRID = 1800  # var qsg_grid_seconds: the QSG roll-ups' slots
# Facts at a structure's own grain: one row per decoded instance.
FACT_STRUCTURE = {
    "fct_queue_stats": "QQST",
    "fct_buffer_pool_stats": "QPST",
    "fct_log_stats": "QJST",
    "fct_cf_structure_qmgr_stats": "QEST",
    "fct_message_manager_stats": "QMST",
    "fct_data_manager_stats": "QIST",
    "fct_task_accounting": "WTAS",
    "fct_queue_accounting": "WQST",
    "fct_channel_initiator_stats": "QCCT",
    "fct_page_set_stats": "QIS1",
    # One row per entry of the four task arrays of the channel initiator statistics.
    "fct_channel_initiator_task_stats": ("QCTDSP", "QCTADP", "QCTSSL", "QCTDNS"),
}
INTERVAL = ["interval_start_at", "interval_end_at", "interval_seconds"]
CONTRACT = {
    "fct_queue_stats": [
        "qmgr_name", *INTERVAL, "queue_name", "is_shared", "is_partial", "msgs_in", "msgs_out",
        "depth_current", "depth_high", "depth_low", "oldest_msg_age_seconds",
    ],
    "fct_shared_queue_qsg_stats": [
        "qsg_name", *INTERVAL, "queue_name", "msgs_in", "msgs_out", "depth_high_max", "qmgrs_reporting", "has_partial",
    ],
    "fct_buffer_pool_stats": ["qmgr_name", *INTERVAL, "buffer_pool_id", "buffers", "lowest_free_pct"],
    "fct_log_stats": ["qmgr_name", *INTERVAL, "log_write_mb_per_sec", "checkpoints"],
    "fct_cf_structure_stats": [
        "qsg_name", *INTERVAL, "structure_name", "requests", "redrive_pct", "structure_full_count",
    ],
    "fct_cf_structure_qmgr_stats": [
        "qmgr_name", *INTERVAL, "structure_name", "requests", "redrive_pct", "structure_full_count",
    ],
    "fct_message_manager_stats": ["qmgr_name", *INTERVAL],
    "fct_data_manager_stats": ["qmgr_name", *INTERVAL],
    "fct_channel_initiator_stats": [
        "qmgr_name", *INTERVAL, "current_channels_high", "max_channels", "active_channels_high",
        "max_active_channels", "dispatcher_tasks", "adapter_busy_pct_max", "ssl_avg_request_us",
    ],
    "fct_channel_initiator_task_stats": [
        "qmgr_name", *INTERVAL, "task_type", "task_index", "requests", "busy_pct", "avg_request_us",
    ],
    "fct_page_set_stats": [
        "qmgr_name", *INTERVAL, "page_set_id", "total_pages", "used_pages", "used_pct", "expansions_in_interval",
    ],
}  # fmt: skip
DAY = dict(seed=5, qmgrs=6, queues=20, intervals=48)  # a day of 30-minute intervals
NEXT_DAY = dict(DAY, intervals=2, start="2025-06-03T00:00:00Z")
# One buffer pool interval of the day with QPSTCBSL X'7FFFFFFF' and QPSTCBS 0 (MQ's "never set").
NEVER_SET = Target("qpst_stealable_never_set")


def _decoded(paths: list[str]) -> dict[str, pd.DataFrame]:
    parts: dict[str, list[pd.DataFrame]] = {}
    for path in paths:
        tables, report = read_file(path)
        assert not report.quarantine, report.quarantine
        for name, table in tables.items():
            parts.setdefault(name, []).append(table.to_pandas())
    return {name: pd.concat(frames, ignore_index=True) for name, frames in parts.items()}


@pytest.fixture(scope="module")
def warehouse(spark, dbt, tmp_path_factory):
    work = tmp_path_factory.mktemp("dbt_models")
    day = work / "qsg_day.dat"
    manifest = write_scenario(generate_scenario(ScenarioConfig(**DAY, violate=(NEVER_SET,))), str(day))
    next_day = work / "qsg_next_day.dat"
    write_scenario(generate_scenario(ScenarioConfig(**NEXT_DAY)), str(next_day))
    files = [str(sample(name)) for name in ("TEST115", "TEST116", "TESTCHL")] + [str(day)]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)

        def run(*args: str, paths: list[str]):
            return dbt(*args, "--threads", "4", "--vars", json.dumps({"smf_paths": paths, "raw_schema": RAW_SCHEMA}))

        result = run("build", paths=files)
        yield SimpleNamespace(
            result=result, files=files, next_day=str(next_day), manifest=manifest, decoded=_decoded(files), run=run
        )


def _fact(spark, name: str) -> pd.DataFrame:
    return spark.table(f"{MARTS}.{name}").toPandas()


def test_dbt_build_passes_on_the_samples_and_a_generated_qsg_day(warehouse):
    failed = failures(warehouse.result)
    assert warehouse.result.success, failed
    assert not failed
    ran = {r.node.unique_id.split(".")[0] for r in warehouse.result.result}
    assert {"model", "test"} <= ran


def test_the_generated_day_covers_every_mq_version_and_qqst_generation(spark, warehouse):
    got = spark.sql(f"select distinct mq_version, structure_length from {MARTS}.fct_queue_stats").collect()
    assert {r.mq_version for r in got} == set(warehouse.manifest["config"]["versions"])
    assert {r.structure_length for r in got} == {84, 120, 552, 672}


def test_the_column_contract_of_every_fact(spark, warehouse):
    for fact, columns in CONTRACT.items():
        schema = {f.name: f.dataType.simpleString() for f in spark.table(f"{MARTS}.{fact}").schema.fields}
        missing = [c for c in columns if c not in schema]
        assert not missing, f"{fact} lacks {missing}"
        assert schema["interval_start_at"] == schema["interval_end_at"] == "timestamp", fact
        assert schema["interval_seconds"] == "double", fact


def test_row_counts_reconcile_from_decoded_instances_to_facts(spark, warehouse):
    decoded = {name: len(frame) for name, frame in warehouse.decoded.items()}
    for name in layouts():
        raw = spark.table(f"{RAW_SCHEMA}.{name.lower()}").count()
        staged = spark.table(f"{STAGING}.stg_smf__{name.lower()}").count()
        assert decoded.get(name, 0) == raw == staged, name
    for fact, structure in FACT_STRUCTURE.items():
        structures = (structure,) if isinstance(structure, str) else structure
        assert spark.table(f"{MARTS}.{fact}").count() == sum(decoded.get(s, 0) for s in structures), fact
    # QSG grain: one row per (QSG, shared queue or CF structure, grid slot) that a member interval
    # (boundaries rounded to ALIGNMENT) overlaps.
    qqst = warehouse.decoded["QQST"]
    shared = qqst[qqst.QQSTDISP]
    shared_keys = _slots(shared, ["QQSTQSGN", "QQSTQNAM"])
    assert spark.table(f"{MARTS}.fct_shared_queue_qsg_stats").count() == len(shared_keys)
    qest = warehouse.decoded["QEST"]
    qsg_of = _fact(spark, "dim_queue_manager").set_index("qmgr_name").qsg_name
    qest = qest.assign(qsg=qest.qmgr.map(qsg_of))
    assert qest.qsg.notna().all()
    cf_rows = spark.table(f"{MARTS}.fct_cf_structure_stats").count()
    assert cf_rows == len(_slots(qest, ["qsg", "QESTSTR"]))


def test_channel_accounting_sums_the_qcst_blocks_of_each_channel_and_interval(spark, warehouse):
    """fct_channel_accounting: one row per queue manager, channel (name, connection, remote queue
    manager) and interval end, its instances' QCST blocks summed; the real TESTCHL's SVRCONN
    client instances (several per interval) and the generated day's channels alike."""
    blocks = warehouse.decoded["QCST"].fillna({"QCSTCNNM": "", "QCSTRQMN": ""})
    key = ["qmgr", "QCSTCHNM", "QCSTCNNM", "QCSTRQMN", "interval_end"]
    groups = blocks.groupby(key, dropna=False)
    fact = _fact(spark, "fct_channel_accounting")
    assert len(fact) == groups.ngroups and fact.channel_instances.sum() == len(blocks)
    for column, field in (("msgs", "QCSTNMSG"), ("persistent_msgs", "QCSTNPMG"), ("batches", "QCSTBATC")):
        assert fact[column].sum() == blocks[field].sum(), column
    assert float(fact.msg_bytes.astype(float).sum()) == float(blocks.QCSTNBYT.astype(float).sum())
    real = fact[fact.qmgr_name == "QML1"]
    assert len(real) == groups.ngroups - len(fact[fact.qmgr_name != "QML1"]) > 0
    assert real.channel_instances.max() == 2 and (real.interval_seconds < 200).all()  # 116/10 QWHSDURN: TOD units
    assert real.exit_time_min_us.isna().all()  # TESTCHL's QCSTETMN all X'8FFFFFFF': no exit ran
    generated = fact[fact.qmgr_name != "QML1"]
    senders = generated[generated.is_sender_type]
    assert len(senders) and (senders.msgs_per_batch >= 2).all() and senders.network_time_avg_us.notna().all()
    assert set(generated.interval_end_at) <= set(_fact(spark, "fct_log_stats").interval_end_at)


def test_every_queue_accounting_block_belongs_to_its_task(spark, warehouse):
    # Class 3 accounting of the real samples (116/1) and of the generated day, whose first server
    # task of every queue manager writes more WQ blocks than a 116/1 record holds (116/2 records).
    blocks = _fact(spark, "fct_queue_accounting")
    tasks = _fact(spark, "fct_task_accounting").set_index("task_accounting_key")
    assert (blocks.smf_subtype == 2).any() and blocks.task_accounting_key.notna().all()
    assert set(blocks.task_accounting_key) <= set(tasks.index)
    # A task's blocks, its continuation records' included, are those its WTAS counts (WTASWQCT).
    assert (tasks.queue_blocks_found == tasks.queue_block_count).all()
    assert tasks.queue_blocks_found.sum() == len(blocks) == len(warehouse.decoded["WQST"])
    per_task = blocks.groupby("task_accounting_key").gets.sum()
    assert (tasks.gets.reindex(per_task.index) == per_task).all()


def test_channel_initiator_task_measures_equal_the_decoded_task_arrays(spark, warehouse):
    # Busy % and time per request, recomputed from the decoded arrays (QCTELTM over the interval).
    arrays = {"dispatcher": "QCTDSP", "adapter": "QCTADP", "ssl": "QCTSSL", "dns": "QCTDNS"}
    frames = []
    for task_type, structure in arrays.items():
        frame = warehouse.decoded[structure]
        seconds = frame.interval_seconds
        frames.append(
            pd.DataFrame(
                {
                    "qmgr_name": frame.qmgr,
                    "interval_start_at": frame.interval_start.dt.tz_convert(None),
                    "task_type": task_type,
                    "busy_pct": 100 * frame.QCTELTM / (seconds * 1e6),  # QCTELTM in microseconds
                    "requests": frame.QCTREQN,
                }
            )
        )
    want = (
        pd.concat(frames)
        .groupby(["qmgr_name", "interval_start_at", "task_type"])
        .agg(busy_pct_max=("busy_pct", "max"), requests=("requests", "sum"), tasks=("requests", "size"))
    )
    facts = _fact(spark, "fct_channel_initiator_stats").set_index(["qmgr_name", "interval_start_at"])
    assert len(facts) == len(warehouse.decoded["QCCT"]) and len(want)
    for (qmgr, start, task_type), row in want.iterrows():
        fact = facts.loc[(qmgr, start)]
        assert fact[f"{task_type}_tasks"] == row.tasks, (qmgr, start, task_type)
        assert fact[f"{task_type}_requests"] == row.requests, (qmgr, start, task_type)
        assert fact[f"{task_type}_busy_pct_max"] == pytest.approx(row.busy_pct_max, rel=1e-6), (qmgr, start, task_type)


def test_page_set_pages_and_expansions_follow_the_decoded_qis1(spark, warehouse):
    """Used pages and % from QIS1TOPG - QIS1UNPG; expansions in an interval = the growth of QIS1EXPN
    (a count since restart) over the page set's previous interval when that one ends where this one
    starts (boundaries aligned to the minute), else none (first interval, gap, or a count that fell:
    a restart)."""
    qis1 = warehouse.decoded["QIS1"].sort_values(["qmgr", "QIS1PSNO", "interval_start"]).copy()
    qis1["interval_start_at"] = qis1.interval_start.dt.tz_convert(None)
    by_page_set = qis1.groupby(["qmgr", "QIS1PSNO"])
    follows = by_page_set.interval_end.shift().dt.round(ALIGNMENT) == qis1.interval_start.dt.round(ALIGNMENT)
    growth = qis1.QIS1EXPN - by_page_set.QIS1EXPN.shift()
    qis1["want_expansions"] = growth.where(follows & (growth >= 0))
    want = qis1.set_index(["qmgr", "QIS1PSNO", "interval_start_at"])
    got = _fact(spark, "fct_page_set_stats").set_index(["qmgr_name", "page_set_id", "interval_start_at"])
    want.index.names = got.index.names
    assert len(got) == len(want) and len(got)
    got = got.loc[want.index]
    used = (want.QIS1TOPG - want.QIS1UNPG).to_numpy()
    assert (got.used_pages.to_numpy() == used).all()
    total = want.QIS1TOPG.to_numpy(dtype=float)
    used_pct = np.divide(100 * used, total, out=np.full(len(total), np.nan), where=total != 0)
    assert np.allclose(got.used_pct.to_numpy(dtype=float), used_pct, equal_nan=True)
    got_expansions = got.expansions_in_interval.to_numpy(dtype=float)
    want_expansions = want.want_expansions.to_numpy(dtype=float)
    assert np.array_equal(got_expansions, want_expansions, equal_nan=True)
    assert np.isfinite(want_expansions).sum() > len(want) / 2  # most intervals follow their previous one


def _slots(rows: pd.DataFrame, keys: list[str]) -> set[tuple]:
    """(keys..., slot start) of every grid slot (var qsg_grid_seconds) each row's rounded interval overlaps."""
    epoch, second = pd.Timestamp(0, tz="UTC"), pd.Timedelta(seconds=1)
    start = (rows.interval_start.dt.round(ALIGNMENT) - epoch) // second
    end = (rows.interval_end.dt.round(ALIGNMENT) - epoch) // second
    out = set()
    for key, s, e in zip(rows[keys].itertuples(index=False), start, end, strict=True):
        out.update((*key, slot) for slot in range(s // GRID * GRID, e, GRID) if e > s)
    return out


def _counter(series: pd.Series) -> pd.Series:
    return series.map(lambda v: None if v is None or pd.isna(v) else int(v)).astype("Int64")


def test_shared_queue_qsg_totals_equal_an_independent_roll_up(spark, warehouse):
    qqst = warehouse.decoded["QQST"]
    shared = qqst[qqst.QQSTDISP].copy()
    shared["end"] = shared.interval_end.dt.round(ALIGNMENT)
    shared["msgs_in"] = _counter(shared.QQSTPUTS) + _counter(shared.QQSTPUT1)
    shared["msgs_out"] = _counter(shared.QQSTGETS)
    shared["depth_high"] = _counter(shared.QQSTDPHI)
    want = (
        shared.groupby(["QQSTQSGN", "QQSTQNAM", "end"])
        .agg(
            msgs_in=("msgs_in", lambda s: s.sum(min_count=1)),
            msgs_out=("msgs_out", lambda s: s.sum(min_count=1)),
            depth_high_max=("depth_high", "max"),
            qmgrs_reporting=("qmgr", "nunique"),
            has_partial=("QQSTPART", "any"),
        )
        .reset_index()
        .rename(columns={"QQSTQSGN": "qsg_name", "QQSTQNAM": "queue_name", "end": "interval_end_at"})
    )
    got = _fact(spark, "fct_shared_queue_qsg_stats")
    got["interval_end_at"] = pd.to_datetime(got.interval_end_at).dt.tz_localize("UTC")
    want["interval_end_at"] = want.interval_end_at.astype(got.interval_end_at.dtype)
    merged = want.merge(got, on=["qsg_name", "queue_name", "interval_end_at"], how="outer", indicator=True)
    assert (merged._merge == "both").all()
    for column in ("msgs_in", "msgs_out", "depth_high_max"):
        assert _counter(merged[f"{column}_x"]).equals(_counter(merged[f"{column}_y"])), column
    assert (merged.qmgrs_reporting_x == merged.qmgrs_reporting_y).all()
    assert (merged.has_partial_x == merged.has_partial_y).all()
    # More than one queue manager shares the queues, and some intervals mix MQ versions whose
    # records lack the counters (9.3.0/9.3.1): the sums skip them instead of turning NULL.
    assert merged.qmgrs_reporting_y.max() > 1
    assert merged.msgs_in_y.notna().all()
    assert (merged.qmgrs_active >= merged.qmgrs_reporting_y).all()


def test_partial_records_follow_ibm_rules_where_the_generator_planted_them(spark, warehouse):
    planted = warehouse.manifest["partial_records"]
    assert {p["kind"] for p in planted} == {"shared", "private"}
    facts = _fact(spark, "fct_queue_stats")
    facts["interval_start_at"] = pd.to_datetime(facts.interval_start_at).dt.tz_localize("UTC")
    partial = facts[facts.is_partial]
    expected = {(p["qmgr"], q, pd.Timestamp(p["interval_start"])) for p in planted for q in p["queues"]}
    assert set(zip(partial.qmgr_name, partial.queue_name, partial.interval_start_at, strict=True)) == expected
    shared = partial[partial.is_shared]
    private = partial[~partial.is_shared]
    assert len(shared) and len(private)
    assert shared.depth_current.isna().all() and shared.has_uncommitted_changes.isna().all()
    assert private.depth_current.notna().all()
    assert partial.oldest_msg_age_seconds.isna().all()
    # Complete records keep their values: the rule blanks nothing else.
    complete = facts[~facts.is_partial]
    assert complete.depth_current.notna().all()
    assert complete[complete.structure_length >= 120].oldest_msg_age_seconds.notna().all()
    # The QSG roll-up flags the partial shared rows and keeps the depth read by the others.
    qsg = _fact(spark, "fct_shared_queue_qsg_stats")
    flagged = qsg[qsg.has_partial]
    assert set(flagged.queue_name) == set(shared.queue_name)
    assert flagged.depth_current.notna().all()


def _joined(spark, fact: str, decoded: pd.DataFrame, on: dict[str, str]) -> pd.DataFrame:
    """Fact rows next to the decoded instances they came from (fact column -> decoded column)."""
    got = _fact(spark, fact)
    got["interval_start_at"] = pd.to_datetime(got.interval_start_at).dt.tz_localize("UTC")
    want = decoded.rename(columns={v: k for k, v in on.items()})
    want["interval_start_at"] = want.interval_start_at.astype(got.interval_start_at.dtype)
    joined = got.merge(want, on=list(on), how="inner", validate="one_to_one")
    assert len(joined) == len(got) == len(decoded), fact
    return joined


def _same(got: pd.Series, want: pd.Series) -> bool:
    got, want = got.astype(float).to_numpy(), want.astype(float).to_numpy()
    return bool(np.allclose(got, want, rtol=1e-9, atol=1e-9, equal_nan=True))


def _floats(decoded: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The decoded tables with integer fields as floats: int32 products such as QJSTBFFL x 4096
    would wrap in pandas."""
    return {
        name: frame.astype({c: float for c in frame.columns if frame[c].dtype.kind in "iu" and c != "QPSTPOOL"})
        for name, frame in decoded.items()
    }


def _buffer_pools(spark, warehouse) -> pd.DataFrame:
    return _joined(
        spark,
        "fct_buffer_pool_stats",
        _floats(warehouse.decoded)["QPST"],
        {"qmgr_name": "qmgr", "buffer_pool_id": "QPSTPOOL", "interval_start_at": "interval_start"},
    )


def test_derived_metrics_follow_the_mp16_formulas(spark, warehouse):
    """Spot-check the derived metrics against MP16's formulas (e.g. "Definition of buffer pool
    statistics" (ch. 5, p. 166)), computed here from the decoded fields."""
    d = _floats(warehouse.decoded)
    pools = _buffer_pools(spark, warehouse)
    t = pools.interval_seconds_x
    lowest = pools.QPSTCBSL.where(pools.QPSTCBSL != QPSTCBSL_NOT_SET)  # X'7FFFFFFF': never set, no count
    assert _same(pools.lowest_free_pct, 100 * lowest / pools.QPSTNBUF)
    assert _same(pools.bp_size_mb, pools.QPSTNBUF * 4096 / 2**20)
    assert _same(pools.pages_read_per_second, pools.QPSTRIO / t)
    assert _same(pools.pages_written_per_second, pools.QPSTTPW / t)
    assert _same(pools.dwp_starts_per_hour, pools.QPSTDWT * 3600 / t)
    log = _joined(spark, "fct_log_stats", d["QJST"], {"qmgr_name": "qmgr", "interval_start_at": "interval_start"})
    t = log.interval_seconds_x
    assert _same(log.log_write_mb_per_sec, log.QJSTBFFL * 4096 / t / 2**20)
    assert (log.checkpoints == log.QJSTLLCP).all()
    assert _same(log.checkpoints_per_hour, log.QJSTLLCP * 3600 / t)
    assert _same(log.log_write_requests, log.QJSTWRW + log.QJSTWRNW + log.QJSTWRF)
    assert log.log_write_mb_per_sec.gt(0).any()
    cf = _joined(
        spark,
        "fct_cf_structure_qmgr_stats",
        d["QEST"],
        {"qmgr_name": "qmgr", "structure_name": "QESTSTR", "interval_start_at": "interval_start"},
    )
    requests = cf.QESTCSEC + cf.QESTCMEC
    assert (cf.requests == requests).all()
    assert _same(cf.redrive_pct, (100 * (cf.QESTRSEC + cf.QESTRMEC) / requests).where(requests > 0))
    assert _same(cf.avg_service_time_us, ((cf.QESTSSTC + cf.QESTMSTC) / requests).where(requests > 0))
    assert (cf.structure_full_count == cf.QESTSFUL).all()
    assert cf.redrive_pct.gt(0).any()


def test_a_never_set_lowest_stealable_count_is_no_value_in_the_buffer_pool_facts(spark, warehouse):
    """QPSTCBSL X'7FFFFFFF' (with QPSTCBS 0) says the interval's lowest number of stealable buffers
    was never set (seed data_pitfalls qpst_lowest_stealable_never_set): a sentinel, not a count. The
    fact has no lowest count there and derives nothing from it (NULL), while every other interval,
    the same pool's included, keeps its count and MP16's derived values."""
    (planted,) = [v for v in warehouse.manifest["violations"] if v["check"] == NEVER_SET.id]
    pools = _buffer_pools(spark, warehouse)
    never_set = pools.QPSTCBSL == QPSTCBSL_NOT_SET
    at = pools[never_set]
    assert list(zip(at.qmgr_name, at.buffer_pool_id, at.interval_start_at, strict=True)) == [
        (planted["qmgr"], int(planted["object_name"]), pd.Timestamp(planted["interval_start"]))
    ]  # the planted row, and only it
    derived = ["stealable_buffers_low", "lowest_free_pct", "peak_used_pct", "headroom_to_dwp_pages"]
    assert at[derived].isna().all().all(), at[derived]
    assert (at.buffers == planted["fields"]["QPSTNBUF"]).all() and (at.stealable_buffers_current == 0).all()
    assert (at.end_free_pct == 0).all()  # QPSTCBS is a count (0 now)

    normal = pools[~never_set]
    share = 100 * normal.QPSTCBSL / normal.QPSTNBUF.where(normal.QPSTNBUF > 0)  # no share of an empty pool
    assert _same(normal.stealable_buffers_low, normal.QPSTCBSL)
    assert _same(normal.lowest_free_pct, share)
    assert _same(normal.peak_used_pct, 100 - share)
    assert _same(normal.headroom_to_dwp_pages, normal.QPSTCBSL - 0.15 * normal.QPSTNBUF)
    assert normal.stealable_buffers_low.notna().all() and normal.headroom_to_dwp_pages.notna().all()
    assert normal.lowest_free_pct.notna().sum() == (normal.QPSTNBUF > 0).sum() > 0
    same_pool = normal[(normal.qmgr_name == planted["qmgr"]) & (normal.buffer_pool_id == int(planted["object_name"]))]
    assert len(same_pool) and same_pool.lowest_free_pct.between(0, 100).all()


def _partition_files(spark, table: str) -> dict[str, dict[str, float]]:
    """interval_date partition -> {parquet file: modification time} of a fact table."""
    loc = next(r.data_type for r in spark.sql(f"describe formatted {table}").collect() if r.col_name == "Location")
    root = Path(loc.removeprefix("file:"))
    out: dict[str, dict[str, float]] = {}
    for part in sorted(root.glob("interval_date=*")):
        out[part.name] = {f.name: f.stat().st_mtime for f in part.glob("*.parquet")}
    return out


def test_the_grain_test_fails_on_a_repeated_row_and_on_a_null_key(spark, warehouse):
    """The one `grain` test replaces unique and not_null on the key, the grain's uniqueness and a
    not_null per required column: it must fail on each. The dimension is rebuilt afterwards (the
    next test builds everything anyway)."""
    table = f"{MARTS}.dim_cf_structure"
    columns = [f.name for f in spark.table(table).schema.fields]

    def grain_test():
        result = warehouse.run("test", "--select", "dim_cf_structure,test_name:grain", paths=[])
        (node,) = [r for r in result.result if r.node.resource_type == "test"]  # (the project hook runs too)
        return node.status, node.failures

    assert grain_test() == ("pass", 0)
    spark.sql(f"INSERT INTO {table} SELECT * FROM {table} ORDER BY cf_structure_key LIMIT 1")
    assert grain_test() == ("fail", 2)  # both copies
    warehouse.run("run", "--select", "dim_cf_structure", paths=[])
    # A new structure (its grain unique) without a key.
    values = {"cf_structure_key": "CAST(NULL AS STRING)", "structure_name": "'NO.KEY'"}
    select = ", ".join(f"{values.get(c, c)} AS {c}" for c in columns)
    spark.sql(f"INSERT INTO {table} SELECT {select} FROM {table} ORDER BY cf_structure_key LIMIT 1")
    assert grain_test() == ("fail", 1)
    assert failures(warehouse.run("run", "--select", "dim_cf_structure", paths=[])) == []
    # A keyed row of its own without a required column (not_null: qsg_name, structure_name).
    values = {"cf_structure_key": "'NO.NAME'", "structure_name": "CAST(NULL AS STRING)"}
    select = ", ".join(f"{values.get(c, c)} AS {c}" for c in columns)
    spark.sql(f"INSERT INTO {table} SELECT {select} FROM {table} ORDER BY cf_structure_key LIMIT 1")
    assert grain_test() == ("fail", 1)
    assert failures(warehouse.run("run", "--select", "dim_cf_structure", paths=[])) == []
    assert grain_test() == ("pass", 0)


def _intervals(decoded: dict[str, pd.DataFrame], qmgr: str) -> pd.DataFrame:
    """A queue manager's statistics intervals per SMF 115 subtype, with the gap to the one before."""
    frames = [
        f.loc[(f.smf_type == 115) & (f.qmgr == qmgr), ["smf_subtype", "interval_start", "interval_end"]]
        for f in decoded.values()
        if {"smf_type", "qmgr", "interval_start", "interval_end"} <= set(f.columns)
    ]
    got = pd.concat(frames).drop_duplicates().sort_values(["smf_subtype", "interval_start"])
    got["seconds"] = (got.interval_end - got.interval_start).dt.total_seconds()
    got["gap"] = (got.interval_start - got.groupby("smf_subtype").interval_end.shift()).dt.total_seconds()
    return got


def test_the_gate_passes_on_the_real_dumps_with_the_planted_pitfall_its_only_warning(spark, warehouse):
    """Both stages of the data-quality gate over this warehouse (the real dumps and the generated
    QSG day): no check fails at error severity, and the only warning is the one the data calls for.
    The real TESTCHL's intervals vary in length (32 s to 108 s) but are back to back, so
    interval_gap and interval_overlap have nothing to say; the real dumps hold no QPSTCBSL
    X'7FFFFFFF', so pitfall_qpst_lowest_stealable_never_set lists the planted row alone."""
    from mqsmf.quality.checks import DEFAULT_INTERVAL_TOLERANCE_SECONDS, RAW
    from mqsmf.quality.checks import MARTS as MARTS_STAGE
    from mqsmf.quality.gate import run_gate

    # What the data is, read from the decoded records.
    chl = _intervals(warehouse.decoded, "QML1")
    assert set(chl.smf_subtype) == {1, 2, 215, 231} and (chl.groupby("smf_subtype").size() == 16).all()
    assert 30 < chl.seconds.min() < 35 and chl.seconds.max() > 100  # irregular lengths ...
    assert chl.gap.abs().max() <= DEFAULT_INTERVAL_TOLERANCE_SECONDS  # ... back to back
    real = warehouse.decoded["QPST"][warehouse.decoded["QPST"].qmgr.isin(["MQPC", "QML1"])]
    assert len(real) == 7 + 384 and not (real.QPSTCBSL == QPSTCBSL_NOT_SET).any()
    (planted,) = [v for v in warehouse.manifest["violations"] if v["check"] == NEVER_SET.id]

    kw = dict(quality_schema=f"{TARGET_SCHEMA}_quality", docs_dir=None)
    raw = run_gate(spark, RAW, schemas={RAW: RAW_SCHEMA}, **kw)
    marts = run_gate(spark, MARTS_STAGE, schemas={MARTS_STAGE: MARTS}, **kw)
    for gate in (raw, marts):
        assert gate.passed and gate.exit_code == 0, gate.stage
        assert not gate.skipped_frames and gate.rows_checked > 0, gate.stage
        assert not gate.failed("error"), [o.check.name for o in gate.failed("error")]
        assert {o.status for o in gate.outcomes} <= {"passed", "failed"}, gate.stage  # nothing skipped
    warnings = {gate.stage: [o.check.name for o in gate.failed()] for gate in (raw, marts)}
    assert warnings == {RAW: ["pitfall_qpst_lowest_stealable_never_set"], MARTS_STAGE: []}
    outcome = {o.check.name: o for o in raw.outcomes}
    (row,) = outcome["pitfall_qpst_lowest_stealable_never_set"].samples
    assert (row["qmgr_name"], row["object_name"], row["interval_start_at"]) == (
        planted["qmgr"],
        planted["object_name"],
        datetime.fromisoformat(planted["interval_start"].replace("Z", "+00:00")),
    )
    assert row["record_offset"] in planted["record_offsets"]
    for name in ("interval_gap", "interval_overlap", "interval_length_plausible"):
        assert outcome[name].status == "passed" and outcome[name].evaluated_rows, name


def test_reloading_the_same_files_and_adding_a_day_rewrites_no_history(spark, warehouse):
    facts = list(CONTRACT)
    before_files = {f: _partition_files(spark, f"{MARTS}.{f}") for f in facts}
    before_rows = {f: _fact(spark, f) for f in facts}
    raw_before = {name: spark.table(f"{RAW_SCHEMA}.{name.lower()}").count() for name in layouts()}

    # The facts and the two intermediate tables they join (views need no rebuild), and the accounting
    # facts and class 3 coverage (incremental too, reading the days next to a load's: a record written
    # after midnight may belong to a task of the day before) with stg_smf__wqst (a table: too long for
    # a view).
    accounting = {
        "fct_queue_accounting": MARTS, "fct_task_accounting": MARTS, "fct_channel_accounting": MARTS,
        "int_mp16__class_3_accounting_coverage": INTERMEDIATE,
    }  # fmt: skip
    models = ["int_smf__qmgr_intervals", "int_smf__qmgr_qsg", *facts, "stg_smf__wqst", *accounting]
    result = warehouse.run("run", "--select", *models, paths=[*warehouse.files, warehouse.next_day])
    assert result.success

    # The accounting models built a day at a time equal those built from all history at once.
    def accounting_rows(model: str) -> pd.DataFrame:
        frame = spark.table(f"{accounting[model]}.{model}").toPandas()
        return frame.sort_values(list(frame.columns[:3])).reset_index(drop=True)  # a key in the first three

    incremental = {model: accounting_rows(model) for model in accounting}
    new_day_tasks = incremental["fct_task_accounting"].period_start_at >= pd.Timestamp(NEXT_DAY["start"][:-1])
    assert new_day_tasks.any() and not new_day_tasks.all()
    assert warehouse.run("run", "--full-refresh", "--select", *accounting, paths=[]).success
    for model in accounting:
        pd.testing.assert_frame_equal(incremental[model], accounting_rows(model), obj=model)

    added = Counter({name: len(frame) for name, frame in _decoded([warehouse.next_day]).items()})
    for name in layouts():  # the reloaded files added nothing; the new day added its own rows
        assert spark.table(f"{RAW_SCHEMA}.{name.lower()}").count() == raw_before[name] + added[name], name
    new_date = datetime.fromisoformat(NEXT_DAY["start"].replace("Z", "+00:00")).astimezone(UTC).date()
    for fact in facts:
        after_files = _partition_files(spark, f"{MARTS}.{fact}")
        new_partitions = set(after_files) - set(before_files[fact])
        assert new_partitions == {f"interval_date={new_date}"}, fact
        for partition, files in before_files[fact].items():
            assert after_files[partition] == files, f"{fact} {partition} was rewritten"
        after = _fact(spark, fact)
        old = after[after.interval_date != new_date]
        key = [c for c in before_rows[fact].columns if c.endswith("_key") and "stats" in c][0]
        assert (
            old.sort_values(key)
            .reset_index(drop=True)
            .equals(before_rows[fact].sort_values(key).reset_index(drop=True))
        ), fact
    # Each fact recorded how far it has built the loads: its newest loaded_at (read from the table
    # property when looking for the dates changed since, instead of from every partition).
    for fact in facts:
        properties = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {MARTS}.{fact}").collect()}
        newest = spark.sql(f"SELECT unix_micros(max(loaded_at)) FROM {MARTS}.{fact}").collect()[0][0]
        assert int(properties["mqsmf.built_loaded_through_micros"]) == newest, fact
    for fact, structure in FACT_STRUCTURE.items():
        structures = (structure,) if isinstance(structure, str) else structure
        fact_rows = spark.table(f"{MARTS}.{fact}").count()
        assert fact_rows == sum(len(warehouse.decoded.get(s, ())) + added[s] for s in structures), fact
