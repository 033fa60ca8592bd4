"""The report's data step on hand-made rows (no dbt build): a few tables with only the columns the
queries read, filled with values whose expected results are worked out here by hand: top queues per
queue manager, the scope (--from/--to, --qmgr, --qsg), page sets and channel initiators as their
facts hold them (fct_page_set_stats, fct_channel_initiator_stats; their own computations are tested on
decoded data in test_dbt_models)."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest

from mqsmf.report.data import Limits, ReportQueries, Scope, SparkRunner, parse_time

pytestmark = pytest.mark.spark

MARTS = "unit_report_marts"
T = ["2025-06-02 00:00:00", "2025-06-02 00:30:00", "2025-06-02 01:00:00", "2025-06-03 00:00:00"]


def _table(spark, name: str, ddl: str, rows: list[tuple]) -> None:
    spark.sql(f"drop table if exists {name}")
    spark.sql(f"create table {name} ({ddl}) using parquet")
    if rows:
        values = ", ".join("(" + ", ".join(_literal(v) for v in r) + ")" for r in rows)
        spark.sql(f"insert into {name} values {values}")


def _literal(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, str):
        return f"timestamp'{v}'" if v[:2] == "20" and ":" in v else f"'{v}'"
    return repr(v)


@pytest.fixture(scope="module")
def runner(spark):
    spark.sql(f"create schema if not exists {MARTS}")
    _table(
        spark,
        f"{MARTS}.dim_queue_manager",
        "qmgr_name string, qsg_name string, system_id string, first_mq_version string, mq_version string, "
        "first_interval_start_at timestamp, last_interval_end_at timestamp, statistics_intervals bigint",
        [
            ("QM01", "QSGA", "SYSA", "9.3.3", "9.3.3", T[0], T[3], 4),
            ("QM02", "QSGA", "SYSB", "9.3.3", "9.3.3", T[0], T[3], 4),
            ("QM09", None, "SYSC", "9.3.3", "9.3.3", T[0], T[3], 4),
        ],
    )
    # Queue activity: msgs_in + msgs_out decide the busiest. QM01: Q1 100, Q2 40, Q3 10; QM02: A 5, B 50;
    # QM09: Z 1. One advisory on QM01's Q3 puts it first on QM01 despite its volume.
    queue_ddl = (
        "qmgr_name string, qsg_name string, queue_name string, interval_start_at timestamp, msgs_in bigint, "
        "msgs_out bigint, msgs_in_per_second double, msgs_out_per_second double, depth_high double, "
        "depth_low double, oldest_msg_age_seconds double"
    )
    volumes = {("QM01", "Q1"): 100, ("QM01", "Q2"): 40, ("QM01", "Q3"): 10, ("QM02", "A"): 5, ("QM02", "B"): 50}
    volumes[("QM09", "Z")] = 1
    rows = []
    for (qmgr, queue), volume in volumes.items():
        qsg = None if qmgr == "QM09" else "QSGA"
        rows.append((qmgr, qsg, queue, T[0], volume // 2, volume - volume // 2, 1.0, 1.0, 0.0, 0.0, 0.0))
        rows.append((qmgr, qsg, queue, T[3], 1000, 0, 9.0, 0.0, 0.0, 0.0, 0.0))  # outside --to 2025-06-02
    _table(spark, f"{MARTS}.fct_queue_stats", queue_ddl, rows)
    _table(
        spark,
        f"{MARTS}.fct_mp16_advisories",
        "rule_id string, severity string, severity_rank int, qmgr_name string, qsg_name string, object_type string, "
        "object_name string, interval_start_at timestamp, interval_end_at timestamp",
        [("Q03", "warning", 2, "QM01", "QSGA", "queue", "Q3", T[0], T[1])],
    )
    # Page set 1 on QM01: total 1000 pages, unused 900 -> 100 used, ...; expansions in the interval as the
    # fact says them (NULL at the first interval and after a restart).
    _table(
        spark,
        f"{MARTS}.fct_page_set_stats",
        "qmgr_name string, page_set_id int, interval_start_at timestamp, total_pages bigint, used_pages bigint, "
        "used_pct double, expansions_in_interval bigint, full_count bigint",
        [
            ("QM01", 1, T[0], 1000, 100, 10.0, None, 0),
            ("QM01", 1, T[1], 1200, 900, 75.0, 2, 0),
            ("QM01", 1, T[2], 1200, 1200, 100.0, 0, 3),
            ("QM01", 1, T[3], 1200, 0, 0.0, None, 0),
            ("QM01", 2, T[0], 500, 0, 0.0, None, 0),
        ],
    )
    # Channel initiator of QM01, one 1800 s interval: dispatchers 37.5 % busy on average, 5,400 requests;
    # one adapter 100 % busy, 900 requests.
    _table(
        spark,
        f"{MARTS}.fct_channel_initiator_stats",
        "qmgr_name string, interval_start_at timestamp, interval_seconds double, current_channels_high bigint, "
        "active_channels_high bigint, max_channels bigint, max_active_channels bigint, dispatcher_busy_pct_avg double, "
        "adapter_busy_pct_avg double, dispatcher_requests bigint, adapter_requests bigint",
        [("QM01", T[0], 1800.0, 40, 30, 200, 200, 37.5, 100.0, 5400, 900)],
    )
    return SparkRunner(spark)


def _queries(scope: Scope | None = None, **limits) -> ReportQueries:
    return ReportQueries(MARTS, Limits(**limits), True, scope)


def _charted(runner, query: str, keys: list[str]) -> list[tuple]:
    frame = runner.sql(query)
    return sorted(set(map(tuple, frame[keys + ["chart_rank"]].astype(str).to_numpy().tolist())))


def test_top_queues_are_chosen_per_queue_manager(runner):
    got = _charted(runner, _queries(queues=2).series("queues"), ["qmgr_name", "queue_name"])
    # QM01: Q3 (advisory) then Q1 (busiest); QM02: B then A; QM09: its only queue. Every QM has a chart.
    assert got == [
        ("QM01", "Q1", "2"),
        ("QM01", "Q3", "1"),
        ("QM02", "A", "2"),
        ("QM02", "B", "1"),
        ("QM09", "Z", "1"),
    ]


def test_scope_by_qsg_and_by_qmgr(runner):
    qsg = _charted(runner, _queries(Scope(qsgs=("QSGA",)), queues=1).series("queues"), ["qmgr_name", "queue_name"])
    assert qsg == [("QM01", "Q3", "1"), ("QM02", "B", "1")]  # QM09 is outside QSGA
    one = _charted(runner, _queries(Scope(qmgrs=("QM02",)), queues=5).series("queues"), ["qmgr_name", "queue_name"])
    assert one == [("QM02", "A", "2"), ("QM02", "B", "1")]
    both = runner.sql(_queries(Scope(qmgrs=("QM09",), qsgs=("QSGA",))).queue_managers(False, "none"))
    assert sorted(both["qmgr_name"]) == ["QM01", "QM02", "QM09"]


def test_scope_by_time_keeps_the_intervals_in_range(runner):
    scope = Scope(start=parse_time("2025-06-02"), end=parse_time("2025-06-02", end=True))
    frame = runner.sql(_queries(scope, queues=10).series("queues"))
    assert set(frame["interval_start_at"]) == {"2025-06-02T00:00:00Z"}  # the 3rd of June is cut
    # The ranking looks at the scope only: on the 3rd every queue had 1,000 puts, so all would tie.
    qm01 = frame[frame.qmgr_name == "QM01"].set_index("queue_name")["chart_rank"].to_dict()
    assert qm01 == {"Q3": 1, "Q1": 2, "Q2": 3}
    later = _queries(Scope(start=parse_time("2025-06-03")))
    assert runner.sql(f"select count(*) as n from {later.advisories_in_scope()}")["n"].iloc[0] == 0
    assert runner.sql(f"select count(*) as n from {_queries(scope).advisories_in_scope()}")["n"].iloc[0] == 1


def test_page_sets_used_pct_and_expansions(runner):
    frame = runner.sql(_queries().series("page_sets")).sort_values(["page_set_id", "interval_start_at"])
    ps1 = frame[frame.page_set_id == 1]
    assert list(ps1["used_pages"]) == [100.0, 900.0, 1200.0, 0.0]
    assert list(ps1["used_pct"]) == [10.0, 75.0, 100.0, 0.0]
    assert ps1["expansions"].tolist()[1:3] == [2.0, 0.0] and ps1["expansions"].isna().tolist() == [
        True,
        False,
        False,
        True,
    ]
    assert list(ps1["full_count"]) == [0.0, 0.0, 3.0, 0.0]
    ranks = frame.groupby("page_set_id")["chart_rank"].first().to_dict()
    assert ranks == {1: 1, 2: 2}  # page set 1 reached 100 % used, page set 2 none


def test_channel_initiator_task_busy_and_rates(runner):
    frame = runner.sql(_queries().series("channel_initiators"))
    row = frame.iloc[0]
    # Dispatchers: 5,400 requests / 1800 s = 3 per second; the adapter 900 / 1800 s.
    assert row["dispatcher_busy_pct"] == pytest.approx(37.5)
    assert row["dispatcher_requests_per_second"] == pytest.approx(3.0)
    assert row["adapter_busy_pct"] == pytest.approx(100.0) and row["adapter_requests_per_second"] == 0.5
    assert (row["active_channels_high"], row["max_channels"]) == (30.0, 200.0)


@pytest.mark.parametrize(
    "scope",
    [Scope(), Scope(qsgs=("QSGA",)), Scope(start=parse_time("2025-06-03")), Scope(qmgrs=("QM03",))],
    ids=["everything", "one qsg", "one day", "nothing"],
)
def test_pinned_charted_objects_give_the_series_of_the_ranking(runner, scope):
    """collect() ranks each section once and pins the result as literal rows; every query built on
    the pinned rows returns what it returns on the ranking itself."""
    sections = ("queues", "page_sets", "channel_initiators")  # the ones this module's tables hold
    pinned, ranked = _queries(scope, queues=2), _queries(scope, queues=2)
    for queries in (pinned, ranked):
        queries.sections = {name: queries.sections[name] for name in sections}
    for name in sections:
        charted = runner.sql(pinned.charted(name))
        pinned.pin_charted(name, charted)
        assert "values" in pinned.charted(name) or charted.empty
        pd.testing.assert_frame_equal(runner.sql(pinned.series(name)), runner.sql(ranked.series(name)), obj=name)
    assert scope.qmgrs or not runner.sql(pinned.series("queues")).empty


def test_scope_parsing_and_validation():
    assert parse_time("2025-06-02") == datetime(2025, 6, 2, tzinfo=UTC)
    assert parse_time("2025-06-02", end=True) == datetime(2025, 6, 3, tzinfo=UTC)
    assert parse_time("2025-06-02T06:30Z") == datetime(2025, 6, 2, 6, 30, tzinfo=UTC)
    assert parse_time("2025-06-02T08:30+02:00") == datetime(2025, 6, 2, 6, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match="not a date"):
        parse_time("yesterday")
    with pytest.raises(ValueError, match="not a queue manager or QSG name"):
        Scope(qmgrs=("QM01' or '1'='1",))
    with pytest.raises(ValueError, match="must be after"):
        Scope(start=parse_time("2025-06-03"), end=parse_time("2025-06-02"))
    assert Scope(qsgs=("QSGA",)).describe() == "QSG QSGA"
