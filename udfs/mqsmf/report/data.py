"""The report's data step: Spark SQL on the marts and the gate's tables -> ReportData.

Everything is aggregated and limited in Spark, so a large day stays small: the charted objects are
the top N of each kind (objects with advisories first, then the busiest), and only their time
series, their advisories and the worst ``advisory_limit`` advisory rows leave the warehouse.

The queries run through a ``Runner``: the local Spark session (``SparkRunner``) or, for the dbt
``cluster`` target, the Spark Thrift server (``ThriftRunner``, PyHive). Times leave Spark as ISO
8601 UTC strings (the sessions run in UTC); measures as doubles.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd

from .model import COLUMNS, ReportData

ADVISORIES = "fct_mp16_advisories"
ISO = "yyyy-MM-dd'T'HH:mm:ss'Z'"


@dataclass(frozen=True)
class Limits:
    """How many objects of each kind get a chart, and how many advisory rows the table lists."""

    buffer_pools: int = 8
    logs: int = 12
    cf_structures: int = 8
    queues: int = 10
    shared_queues: int = 6
    advisories: int = 2000


class SparkRunner:
    """Runs the report's SQL on a SparkSession."""

    def __init__(self, spark) -> None:
        self.spark = spark

    def sql(self, query: str) -> pd.DataFrame:
        return self.spark.sql(query).toPandas()

    def tables(self, schema: str) -> set[str]:
        if not self.spark.catalog.databaseExists(schema):
            return set()
        return {t.name for t in self.spark.catalog.listTables(schema)}


class ThriftRunner:
    """Runs the report's SQL on the Spark Thrift server of the dbt ``cluster`` target, with the
    connection settings of profiles/profiles.yml (MQSMF_THRIFT_HOST, _PORT, _USER)."""

    def __init__(self) -> None:
        from pyhive import hive

        self.connection = hive.connect(
            host=os.environ.get("MQSMF_THRIFT_HOST", "localhost"),
            port=int(os.environ.get("MQSMF_THRIFT_PORT", "10000")),
            username=os.environ.get("MQSMF_THRIFT_USER", "mqsmf"),
        )

    def sql(self, query: str) -> pd.DataFrame:
        cursor = self.connection.cursor()
        try:
            cursor.execute(query)
            names = [d[0].split(".")[-1] for d in cursor.description or ()]
            return pd.DataFrame(cursor.fetchall(), columns=names)
        finally:
            cursor.close()

    def tables(self, schema: str) -> set[str]:
        databases = set(self.sql("SHOW DATABASES").iloc[:, 0])
        if schema not in databases:
            return set()
        return set(self.sql(f"SHOW TABLES IN {schema}")["tableName"])


def _iso(column: str) -> str:
    return f'date_format({column}, "{ISO}")'


def _doubles(alias: str, columns: tuple[str, ...]) -> str:
    return ", ".join(f"cast({alias}.{c} as double) as {c}" for c in columns)


# Per chart section: the candidates (one row per object, with the ranking measure), the advisory
# matching of that object, and the ranking. Each yields the object keys, chart_rank and candidates.
@dataclass(frozen=True)
class Selection:
    fact: str
    keys: tuple[str, ...]
    busy: str  # aggregate ranking the objects without advisories (descending), over the fact's rows
    advisory_type: str  # object_type of the object's advisories
    scope: str  # qmgr_name or qsg_name: where the advisory's object lives (a column of both)
    object_key: str  # the advisory's object_name, as an expression over the keys
    interval: str = "interval_start_at"


SELECTIONS = {
    "buffer_pools": Selection(
        "fct_buffer_pool_stats",
        ("qmgr_name", "buffer_pool_id"),
        "-min(lowest_free_pct)",
        "buffer_pool",
        "qmgr_name",
        "cast(buffer_pool_id as string)",
    ),
    "logs": Selection(
        "fct_log_stats", ("qmgr_name",), "sum(log_write_mb_per_sec * interval_seconds)", "log", "qmgr_name", "qmgr_name"
    ),
    "cf_structures": Selection(
        "fct_cf_structure_stats",
        ("qsg_name", "structure_name"),
        "sum(requests)",
        "cf_structure",
        "qsg_name",
        "structure_name",
    ),
    "queues": Selection(
        "fct_queue_stats",
        ("qmgr_name", "queue_name"),
        "sum(coalesce(msgs_in, 0) + coalesce(msgs_out, 0))",
        "queue",
        "qmgr_name",
        "queue_name",
    ),
    "shared_queues": Selection(
        "fct_shared_queue_qsg_stats",
        ("qsg_name", "queue_name"),
        "sum(coalesce(msgs_in, 0) + coalesce(msgs_out, 0))",
        "queue",
        "qsg_name",
        "queue_name",
    ),
}
# The measures each section charts (model.COLUMNS minus keys, chart_rank and interval).
MEASURES = {
    name: tuple(c for c in COLUMNS[name] if c not in ("chart_rank", "interval_start_at", *SELECTIONS[name].keys))
    for name in SELECTIONS
}


class ReportQueries:
    """The SQL of one report over one marts schema."""

    def __init__(self, marts: str, limits: Limits, has_advisories: bool) -> None:
        self.marts = marts
        self.limits = limits
        self.has_advisories = has_advisories

    def selected(self, name: str) -> str:
        """Every candidate object of a section with its chart_rank and the candidate count."""
        s = SELECTIONS[name]
        keys = ", ".join(s.keys)
        if self.has_advisories:
            advisories = (
                f"select {s.scope}, object_name, max(severity_rank) as worst, count(*) as firings "
                f"from {self.marts}.{ADVISORIES} where object_type = '{s.advisory_type}' "
                f"group by {s.scope}, object_name"
            )
        else:
            advisories = (
                f"select cast(null as string) as {s.scope}, cast(null as string) as object_name, "
                "0 as worst, 0 as firings where false"
            )
        return (
            f"select c.*, row_number() over (order by coalesce(a.worst, 0) desc, coalesce(a.firings, 0) desc, "
            f"c.busy desc nulls last, {', '.join(f'c.{k}' for k in s.keys)}) as chart_rank, "
            f"count(*) over () as candidates "
            f"from (select {keys}, {s.object_key} as object_key, {s.busy} as busy "
            f"from {self.marts}.{s.fact} group by {keys}) c "
            f"left join ({advisories}) a on a.{s.scope} = c.{s.scope} and a.object_name = c.object_key"
        )

    def series(self, name: str) -> str:
        s = SELECTIONS[name]
        limit = getattr(self.limits, name)
        on = " and ".join(f"f.{k} <=> sel.{k}" for k in s.keys)
        key_cols = ", ".join(f"f.{k}" for k in s.keys)
        # One row per object and interval: a pool can be reported by two subtypes (115/215 and the
        # old 115/2 slot); keep the newest subtype's row.
        dedupe = (
            f"row_number() over (partition by {key_cols}, f.{s.interval} order by "
            f"{'f.smf_subtype desc' if name == 'buffer_pools' else 'f.' + s.interval}) as dup"
        )
        return (
            f"select * from (select sel.chart_rank, sel.candidates, {key_cols}, {_iso('f.' + s.interval)} as "
            f"interval_start_at, {_doubles('f', MEASURES[name])}, {dedupe} "
            f"from {self.marts}.{s.fact} f inner join ({self.selected(name)}) sel on {on} "
            f"where sel.chart_rank <= {int(limit)}) where dup = 1 order by chart_rank, interval_start_at"
        )

    def shared_queue_members(self) -> str:
        """Each queue manager's share of the charted shared queues, on the QSG's aligned intervals."""
        measures = ("msgs_in_per_second", "msgs_out_per_second", "depth_high")
        return (
            f"select q.qsg_name, q.queue_name, q.qmgr_name, {_iso('g.interval_start_at')} as interval_start_at, "
            f"{_doubles('q', measures)} "
            f"from {self.marts}.fct_queue_stats q "
            f"inner join {self.marts}.fct_shared_queue_qsg_stats g on g.qsg_name = q.qsg_name "
            f"and g.queue_name = q.queue_name and g.interval_end_at = q.aligned_interval_end_at "
            f"inner join ({self.selected('shared_queues')}) sel on sel.qsg_name = q.qsg_name "
            f"and sel.queue_name = q.queue_name and sel.chart_rank <= {int(self.limits.shared_queues)} "
            f"where q.is_shared order by q.qsg_name, q.queue_name, q.qmgr_name, interval_start_at"
        )

    def _advisory_columns(self, names: tuple[str, ...]) -> str:
        out = []
        for c in names:
            if c in ("interval_start_at", "interval_end_at"):
                out.append(f"{_iso('a.' + c)} as {c}")
            elif c in ("observed_value", "threshold_value"):
                out.append(f"cast(a.{c} as double) as {c}")
            else:
                out.append(f"a.{c}")
        return ", ".join(out)

    def advisories(self) -> str:
        return (
            f"select {self._advisory_columns(COLUMNS['advisories'])}, count(*) over () as total "
            f"from {self.marts}.{ADVISORIES} a "
            f"order by a.severity_rank desc, a.interval_start_at, a.rule_id, a.qmgr_name, a.object_type, "
            f"a.object_name limit {int(self.limits.advisories)}"
        )

    def marks(self) -> str:
        """The advisories of every charted object (they mark the charts)."""
        parts = []
        for name, s in SELECTIONS.items():
            parts.append(
                f"select {self._advisory_columns(COLUMNS['marks'])} from {self.marts}.{ADVISORIES} a "
                f"left semi join ({self.selected(name)}) sel on a.object_type = '{s.advisory_type}' "
                f"and a.{s.scope} = sel.{s.scope} and a.object_name = sel.object_key "
                f"and sel.chart_rank <= {int(getattr(self.limits, name))}"
            )
        return " union ".join(parts)

    def queue_managers(self, has_violations: bool, quality: str) -> str:
        if self.has_advisories:
            advisories = (
                "select qmgr_name, count_if(severity = 'critical') as critical, "
                "count_if(severity = 'warning') as warning, count_if(severity = 'info') as info "
                f"from {self.marts}.{ADVISORIES} group by qmgr_name"
            )
        else:
            advisories = "select cast(null as string) as qmgr_name, 0 as critical, 0 as warning, 0 as info where false"
        if has_violations:
            violations = (
                "select qmgr_name, count_if(severity = 'error') as dq_errors, count_if(severity = 'warn') as dq_warnings "
                f"from {quality}.dq_violations group by qmgr_name"
            )
        else:
            violations = "select cast(null as string) as qmgr_name, 0 as dq_errors, 0 as dq_warnings where false"
        return (
            "select m.qsg_name, m.qmgr_name, m.system_id, concat_ws(',', m.first_mq_version, m.mq_version) as "
            f"mq_versions, {_iso('m.first_interval_start_at')} as first_interval_start_at, "
            f"{_iso('m.last_interval_end_at')} as last_interval_end_at, m.statistics_intervals, "
            "coalesce(a.critical, 0) as critical, coalesce(a.warning, 0) as warning, coalesce(a.info, 0) as info, "
            "coalesce(v.dq_errors, 0) as dq_errors, coalesce(v.dq_warnings, 0) as dq_warnings "
            f"from {self.marts}.dim_queue_manager m left join ({advisories}) a on a.qmgr_name = m.qmgr_name "
            f"left join ({violations}) v on v.qmgr_name = m.qmgr_name order by m.qsg_name, m.qmgr_name"
        )


def dq_checks_sql(quality: str) -> str:
    """The gate's latest result of every check, per stage."""
    return (
        f"select stage, {_iso('checked_at')} as checked_at, check_name, severity, status, violations, rule from "
        f"(select *, max(checked_at) over (partition by stage) as latest from {quality}.dq_check_results) "
        "where checked_at = latest order by stage, check_name"
    )


def _frame(runner, query: str, name: str) -> pd.DataFrame:
    frame = runner.sql(query)
    return frame[[c for c in COLUMNS[name]]] if not frame.empty else frame.reindex(columns=COLUMNS[name])


def collect(runner, marts_schema: str, quality_schema: str, limits: Limits | None = None) -> ReportData:
    """Query the warehouse for one report."""
    limits = limits or Limits()
    marts_tables = runner.tables(marts_schema)
    needed = {"dim_queue_manager", *(s.fact for s in SELECTIONS.values())}
    missing = sorted(needed - marts_tables)
    if missing:
        raise RuntimeError(
            f"mqsmf report: the marts schema {marts_schema} lacks {', '.join(missing)}: run dbt build (mqsmf run) first"
        )
    quality_tables = runner.tables(quality_schema)
    has_advisories = ADVISORIES in marts_tables
    q = ReportQueries(marts_schema, limits, has_advisories)
    notes = [] if has_advisories else [f"{marts_schema}.{ADVISORIES} does not exist: no advisories to show."]

    data = ReportData(
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        marts_schema=marts_schema,
        quality_schema=quality_schema,
        queue_managers=_frame(
            runner, q.queue_managers("dq_violations" in quality_tables, quality_schema), "queue_managers"
        ),
        dq_checks=_frame(runner, dq_checks_sql(quality_schema), "dq_checks")
        if "dq_check_results" in quality_tables
        else None,
        notes=notes,
    )
    if has_advisories:
        advisories = runner.sql(q.advisories())
        data.advisories_total = int(advisories["total"].iloc[0]) if not advisories.empty else 0
        data.advisories = advisories.reindex(columns=COLUMNS["advisories"])
        data.marks = _frame(runner, q.marks(), "marks")
    for name in SELECTIONS:
        frame = runner.sql(q.series(name))
        data.candidates[name] = int(frame["candidates"].max()) if not frame.empty else 0
        setattr(data, name, frame.reindex(columns=COLUMNS[name]))
    data.shared_queue_members = _frame(runner, q.shared_queue_members(), "shared_queue_members")
    return data
