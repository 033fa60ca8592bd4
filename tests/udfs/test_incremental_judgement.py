"""The MP16 queue, accounting, channel initiator and page set rules judge only the days a load
changed, and judge them as a full build would.

One generated file spans midnight (22:00-02:00) with a rising-depth run (Q03) and an uncommitted
run (Q10) planted across it, accounting (Q12, Q13, APP01) and channel initiator (CHIN01, CHIN04)
pathologies on both days, and PS02 made to fire on every page set interval that follows another.
After a full build, the second day is made to look loaded later (its smf_load_dates rows one hour
newer, its partitions of the incremental models gone, the judgements' recorded progress set back to
the first day): the next run must start from the second day (the accounting and channel initiator
rules: from the day before, as an accounting record written after midnight may hold a period of it
and an interval before midnight overlaps the next day's; the page set rules read the day before for
each page set's previous interval), carry each queue's state in from the first, and leave exactly
the full build's rows. The runs are also recomputed here from fct_queue_stats in pandas, and a
changed threshold must re-judge the first day too.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mqsmf.cli import main as mqsmf

pytestmark = pytest.mark.spark

SCHEMA = "incr"
RAW = f"{SCHEMA}_raw"
INTERMEDIATE = f"{SCHEMA}_intermediate"
MARTS = f"{SCHEMA}_marts"
STATE = f"{INTERMEDIATE}.int_queue_stats__carried_forward"
ADVISORIES = f"{INTERMEDIATE}.int_mp16__queue_advisories"
ACCOUNTING = f"{INTERMEDIATE}.int_mp16__accounting_advisories"
CHIN = f"{INTERMEDIATE}.int_mp16__chin_advisories"
PAGE_SETS = f"{INTERMEDIATE}.int_mp16__page_set_advisories"
CF_USAGE = f"{INTERMEDIATE}.int_mp16__shared_queue_cf_usage"
JUDGED = (ADVISORIES, ACCOUNTING, CHIN, PAGE_SETS, CF_USAGE)
MODELS = (
    "int_queue_stats__carried_forward", "int_mp16__queue_advisories", "int_mp16__accounting_advisories",
    "int_mp16__chin_advisories", "int_mp16__page_set_advisories", "int_mp16__shared_queue_cf_usage",
)  # fmt: skip
SECOND_DAY = "2025-06-03"
# PS02 fires on every page set interval that follows its previous one (expansions grew by more than
# -1): the first interval after midnight fires only if its previous one, of the first day, is read.
# Q12 fires on every interval of a private queue whose newest index type says indexed (depth >= 0):
# also where that index type is of a period of the day before the one judged.
VARS = {"raw_schema": RAW, "mp16_thresholds": {"PS02_warning": -1, "Q12_info": 0}}


def _frame(spark, table: str) -> pd.DataFrame:
    frame = spark.table(table).toPandas()
    keys = [
        c
        for c in ("qmgr_name", "queue_name", "structure_name", "rule_id", "object_name", "interval_start_at",
                  "aligned_interval_end_at", "interval_date")
        if c in frame
    ]  # fmt: skip
    return frame.sort_values(keys).reset_index(drop=True)


def _run(dbt, *args: str, **extra) -> None:
    result = dbt("run", "--threads", "4", *args, "--vars", json.dumps({**VARS, **extra}))
    assert result.success, [str(r.message) for r in result.result or [] if r.status != "success"] or result.exception


@pytest.fixture(scope="module")
def built(spark, dbt, tmp_path_factory):
    path = tmp_path_factory.mktemp("incr") / "midnight.dat"
    assert mqsmf([
        "generate", "--out", str(path), "--seed", "11", "--qmgrs", "2", "--lpars", "1", "--queues", "12",
        "--intervals", "8", "--start", "2025-06-02T22:00:00Z", "--versions", "9.4.0,10.0.0",
        "--inject", "Q03#4,Q10#4,Q12#1,Q12#5,Q13#2,Q13#6,APP01#3,APP01#7,CHIN01#1,CHIN01#6,CHIN04#2,CHIN04#5",
        "-q",
    ]) == 0  # fmt: skip
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", SCHEMA)
        seeded = dbt("seed", "--vars", json.dumps(VARS))
        assert seeded.success, seeded.exception
        _run(dbt, "--select", *(f"+{m}" for m in MODELS), smf_paths=[str(path)])
        full = {t: _frame(spark, t) for t in (STATE, *JUDGED)}
        yield spark, dbt, full, env


def _loaded_an_hour_later(spark, rows: str) -> None:
    """The smf_load_dates rows matching the SQL condition ``rows`` made an hour newer (their
    tables' loads of those dates look like a later load's)."""
    dates = f"{RAW}.smf_load_dates"
    later = [
        f"CASE WHEN {rows} THEN loaded_at + INTERVAL 1 HOUR ELSE loaded_at END" if c == "loaded_at" else f"`{c}`"
        for c in spark.table(dates).columns
    ]
    spark.sql(f"DROP TABLE IF EXISTS {RAW}.load_dates_before")
    spark.sql(f"CREATE TABLE {RAW}.load_dates_before USING parquet AS SELECT * FROM {dates}")
    spark.sql(f"INSERT OVERWRITE TABLE {dates} SELECT {', '.join(later)} FROM {RAW}.load_dates_before")


def _as_if_the_second_day_came_later(spark) -> None:
    first_load = spark.sql(f"SELECT unix_micros(MIN(loaded_at)) FROM {RAW}.smf_load_dates").collect()[0][0]
    _loaded_an_hour_later(spark, f"interval_date = DATE '{SECOND_DAY}'")
    for table in (STATE, *JUDGED):
        spark.sql(f"ALTER TABLE {table} DROP IF EXISTS PARTITION (interval_date = DATE '{SECOND_DAY}')")
    for table in JUDGED:
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('mqsmf.judged_loaded_through_micros' = '{first_load}')")


def test_the_planted_runs_cross_midnight(built):
    _, _, full, _ = built
    state = full[STATE]
    second = state[state.interval_date.astype(str) == SECOND_DAY]
    # A run counted on the second day longer than that day's own intervals so far came from the first.
    so_far = second.groupby(["qmgr_name", "queue_name"]).cumcount() + 1
    assert (second.consecutive_rising_intervals.fillna(0) > so_far).any()
    assert (second.consecutive_uncommitted_intervals.fillna(0) > so_far).any()
    adv = full[ADVISORIES]
    assert {"Q03", "Q10"} <= set(adv[adv.interval_date.astype(str) == SECOND_DAY].rule_id)


def test_the_runs_equal_a_recount_from_the_facts(built):
    spark, _, full, _ = built
    facts = (
        spark.table(f"{MARTS}.fct_queue_stats").toPandas().sort_values(["qmgr_name", "queue_name", "interval_start_at"])
    )
    expected = {}
    for (qm, q), rows in facts.groupby(["qmgr_name", "queue_name"], sort=False):
        rising = uncommitted = 0
        prev = None
        for r in rows.itertuples():
            follows = prev is not None and prev.aligned_interval_end_at == r.aligned_interval_start_at
            up = bool(
                follows and not r.is_shared and pd.notna(r.msgs_in) and pd.notna(r.depth_current)
                and pd.notna(prev.depth_current) and r.depth_current > prev.depth_current and r.msgs_in > r.msgs_out
            )  # fmt: skip
            rising = rising + 1 if up else 0
            unc = bool(r.has_uncommitted_changes) if pd.notna(r.has_uncommitted_changes) else False
            prev_unc = (
                prev is not None and pd.notna(prev.has_uncommitted_changes) and bool(prev.has_uncommitted_changes)
            )
            uncommitted = uncommitted + 1 if unc and prev_unc and follows else (1 if unc else 0)
            expected[(qm, q, r.interval_start_at)] = (rising or None, uncommitted or None)
            prev = r
    got = {
        (r.qmgr_name, r.queue_name, r.interval_start_at): (
            None if pd.isna(r.consecutive_rising_intervals) else int(r.consecutive_rising_intervals),
            None if pd.isna(r.consecutive_uncommitted_intervals) else int(r.consecutive_uncommitted_intervals),
        )
        for r in full[STATE].itertuples()
    }
    assert got == expected


def _message_cf_bytes(avg_bytes, min_entry_bytes: int = 1536) -> int:
    """CF storage of a message of this average size: MP16 "Application structures" (ch. 2, p. 74), as
    the seed's CF15 formula writes it: max(roundup_256(L + 372), 1536) + 256 for L <= 64,512, else 2 KB."""
    size = 0 if pd.isna(avg_bytes) else int(avg_bytes)
    return 2048 if size > 64512 else max(-(-(size + 372) // 256) * 256, min_entry_bytes) + 256


def _cf_usage_recount(spark, min_entry_bytes: int = 1536) -> dict:
    """int_mp16__shared_queue_cf_usage recounted in Python from the shared queues' facts."""
    facts = spark.table(f"{MARTS}.fct_queue_stats").where("is_shared AND cf_structure_name IS NOT NULL").toPandas()
    assert facts.interval_date.astype(str).nunique() == 2  # shared queues on both days
    usage: dict = {}
    for r in facts.itertuples():
        key = (r.qmgr_name, r.cf_structure_name, r.aligned_interval_end_at, str(r.interval_date))
        gets, peak, largest = usage.get(key, (None, 0, None))
        size = _message_cf_bytes(r.msg_size_avg_bytes, min_entry_bytes)
        if pd.notna(r.msgs_out):
            gets = (gets or 0) + int(r.msgs_out)
            if r.msgs_out > 0:
                largest = max(largest or 0, size)
        peak += (0 if pd.isna(r.depth_high) else int(r.depth_high)) * size
        usage[key] = (gets, peak, largest)
    return usage


def _cf_usage(frame: pd.DataFrame) -> dict:
    return {
        (r.qmgr_name, r.structure_name, r.aligned_interval_end_at, str(r.interval_date)): (
            None if pd.isna(r.gets) else int(r.gets),
            r.peak_message_bytes,
            None if pd.isna(r.largest_got_message_bytes) else int(r.largest_got_message_bytes),
        )
        for r in frame.itertuples()
    }


def test_the_shared_queues_cf_usage_equals_a_recount_from_the_facts(built):
    spark, _, full, _ = built
    expected = _cf_usage_recount(spark)
    assert any(largest for _, _, largest in expected.values())
    assert _cf_usage(full[CF_USAGE]) == expected


def test_a_later_day_is_judged_from_the_state_carried_in(built):
    spark, dbt, full, _ = built
    _as_if_the_second_day_came_later(spark)
    before = spark.table(STATE).where(f"interval_date < DATE '{SECOND_DAY}'").count()
    _run(dbt, "--select", *MODELS)
    for table in (STATE, *JUDGED):
        pd.testing.assert_frame_equal(_frame(spark, table), full[table], check_dtype=False)
    assert spark.table(STATE).where(f"interval_date < DATE '{SECOND_DAY}'").count() == before
    # Running again changes nothing.
    _run(dbt, "--select", *MODELS)
    for table in JUDGED:
        pd.testing.assert_frame_equal(_frame(spark, table), full[table], check_dtype=False)


def test_the_accounting_rules_fire_on_both_days(built):
    _, _, full, _ = built
    accounting = full[ACCOUNTING]
    for rule_id in ("Q12", "Q13", "APP01"):
        dates = set(accounting.loc[accounting.rule_id == rule_id, "interval_date"].astype(str))
        assert SECOND_DAY in dates and any(d < SECOND_DAY for d in dates), (rule_id, dates)


def test_the_channel_initiator_rules_fire_on_both_days(built):
    _, _, full, _ = built
    chin = full[CHIN]
    for rule_id in ("CHIN01", "CHIN04"):
        dates = set(chin.loc[chin.rule_id == rule_id, "interval_date"].astype(str))
        assert SECOND_DAY in dates and any(d < SECOND_DAY for d in dates), (rule_id, dates)


def test_a_page_sets_first_interval_of_a_day_follows_the_day_before(built):
    spark, _, full, _ = built
    first_of_day = {
        (r.qmgr_name, str(r.page_set_id), r.first_start)
        for r in spark.sql(
            f"SELECT qmgr_name, page_set_id, min(interval_start_at) AS first_start FROM {SCHEMA}_staging.stg_smf__qis1 "
            f"WHERE interval_date = DATE '{SECOND_DAY}' GROUP BY qmgr_name, page_set_id"
        ).collect()
    }
    ps02 = full[PAGE_SETS].query("rule_id == 'PS02'")
    fired = set(zip(ps02.qmgr_name, ps02.object_name, ps02.interval_start_at, strict=True))
    assert first_of_day and first_of_day <= fired
    assert set(ps02.interval_date.astype(str)) == {"2025-06-02", SECOND_DAY}


def _q12_recount(spark) -> pd.DataFrame:
    """Q12 recounted from the facts with pandas' as-of merge: each private queue interval with its
    newest accounting period that started before the interval ended (its index type and start)."""
    stats = spark.table(f"{MARTS}.fct_queue_stats").where("NOT is_shared AND depth_current IS NOT NULL").toPandas()
    periods = (
        spark.table(f"{MARTS}.fct_queue_accounting")
        .where("period_start_at IS NOT NULL")
        .groupBy("qmgr_name", "queue_name", "period_start_at")
        .agg({"index_type_code": "max"})
        .withColumnRenamed("max(index_type_code)", "index_type_code")
        .toPandas()
    )
    as_of = pd.merge_asof(
        stats.sort_values("interval_end_at"),
        periods.sort_values("period_start_at"),
        left_on="interval_end_at",
        right_on="period_start_at",
        by=["qmgr_name", "queue_name"],
        allow_exact_matches=False,  # a period starting at the interval's end is not before it
    )
    threshold = float(VARS["mp16_thresholds"]["Q12_info"])
    return as_of[(as_of.index_type_code > 0) & (as_of.depth_current >= threshold)]


def _q12_firings(frame: pd.DataFrame) -> list[tuple]:
    names = frame.object_name if "object_name" in frame else frame.queue_name
    return sorted(zip(frame.qmgr_name, names, frame.interval_start_at, strict=True))


def test_q12_takes_each_intervals_index_type_as_of_its_end(built):
    """Q12 fires for a private queue's interval whose newest accounting period started before the
    interval ended says indexed, at the depth threshold in force."""
    spark, _, full, _ = built
    expected = _q12_firings(_q12_recount(spark))
    assert expected
    assert _q12_firings(full[ACCOUNTING].query("rule_id == 'Q12'")) == expected


def test_a_changed_threshold_re_judges_all_history(built):
    spark, dbt, full, _ = built
    _run(dbt, "--select", "int_mp16__queue_advisories", mp16_thresholds={"Q03_warning": 2})
    state = full[STATE]
    twos = state[state.consecutive_rising_intervals.fillna(0) >= 2]
    q03 = _frame(spark, ADVISORIES).query("rule_id == 'Q03'")
    assert sorted(zip(q03.qmgr_name, q03.object_name, q03.interval_start_at, strict=True)) == sorted(
        zip(twos.qmgr_name, twos.queue_name, twos.interval_start_at, strict=True)
    )
    assert (q03.interval_date.astype(str) < SECOND_DAY).any()  # the first day was judged again
    _run(dbt, "--select", "int_mp16__queue_advisories")  # back to the seed's threshold
    pd.testing.assert_frame_equal(_frame(spark, ADVISORIES), full[ADVISORIES], check_dtype=False)


def test_a_changed_cf_sizing_parameter_sizes_all_history_again(built):
    spark, dbt, full, _ = built
    _run(dbt, "--select", "int_mp16__shared_queue_cf_usage", mp16_thresholds={"CF15_min_entry_bytes": 4096})
    assert _cf_usage(_frame(spark, CF_USAGE)) == _cf_usage_recount(spark, min_entry_bytes=4096)
    _run(dbt, "--select", "int_mp16__shared_queue_cf_usage")  # back to the seed's parameters
    pd.testing.assert_frame_equal(_frame(spark, CF_USAGE), full[CF_USAGE], check_dtype=False)


# Last in the module: it changes the accounting.
def test_q12_takes_an_index_type_from_before_the_dates_judged(built):
    """A run judging from the second day reads, of the periods before it, only each queue's newest.
    A private queue is made indexed in its first day's WQ blocks and left without second day ones,
    then only the second day's queue statistics are loaded again: its intervals of the second day
    take the first day's index type, as the recount does."""
    spark, dbt, _, _ = built
    accounting = f"{MARTS}.fct_queue_accounting"
    (qmgr, queue) = spark.sql(
        f"SELECT a.qmgr_name, a.queue_name FROM {accounting} AS a INNER JOIN {MARTS}.fct_queue_stats AS s "
        "ON a.qmgr_name = s.qmgr_name AND a.queue_name = s.queue_name "
        f"WHERE to_date(a.period_start_at) < DATE '{SECOND_DAY}' AND s.interval_date = DATE '{SECOND_DAY}' "
        "AND NOT s.is_shared AND s.depth_current IS NOT NULL ORDER BY 1, 2 LIMIT 1"
    ).first()
    this_queue = f"qmgr_name = '{qmgr}' AND queue_name = '{queue}'"
    columns = [c for c in spark.table(accounting).columns if c != "interval_date"]
    for day in sorted(r[0] for r in spark.sql(f"SELECT DISTINCT interval_date FROM {accounting}").collect()):
        rows = spark.sql(
            "SELECT "
            + ", ".join(
                f"CASE WHEN {this_queue} THEN 1 ELSE index_type_code END AS index_type_code"
                if c == "index_type_code"
                else f"`{c}`"
                for c in columns
            )
            + f" FROM {accounting} WHERE interval_date = DATE '{day}'"
            + f" AND NOT ({this_queue} AND to_date(period_start_at) >= DATE '{SECOND_DAY}')"
        ).toPandas()  # collected first: the partition is overwritten from it
        spark.createDataFrame(rows, spark.table(accounting).drop("interval_date").schema).createOrReplaceTempView(
            "kept"
        )
        spark.sql(f"INSERT OVERWRITE TABLE {accounting} PARTITION (interval_date = DATE '{day}') SELECT * FROM kept")

    (through,) = spark.sql(f"SELECT unix_micros(MAX(loaded_at)) FROM {RAW}.smf_load_dates").first()
    _loaded_an_hour_later(spark, f"interval_date = DATE '{SECOND_DAY}' AND table_name = 'qqst'")
    spark.sql(f"ALTER TABLE {ACCOUNTING} SET TBLPROPERTIES ('mqsmf.judged_loaded_through_micros' = '{through}')")
    _run(dbt, "--select", "int_mp16__accounting_advisories")

    fired = _q12_recount(spark)
    taken_from_before = fired[
        (fired.interval_start_at.dt.date.astype(str) == SECOND_DAY)
        & (fired.period_start_at.dt.date.astype(str) < SECOND_DAY)
    ]
    assert {(qmgr, queue)} == set(zip(taken_from_before.qmgr_name, taken_from_before.queue_name, strict=True))
    # The first day's blocks changed without a load: only the second day was judged again.
    judged = _frame(spark, ACCOUNTING).query("rule_id == 'Q12'")
    judged = judged[judged.interval_start_at.dt.date.astype(str) == SECOND_DAY]
    assert _q12_firings(judged) == _q12_firings(fired[fired.interval_start_at.dt.date.astype(str) == SECOND_DAY])
