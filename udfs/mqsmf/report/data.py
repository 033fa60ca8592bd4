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
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pandas as pd

from ..warehouse import literal
from .model import COLUMNS, ReportData, empty

ADVISORIES = "fct_mp16_advisories"
ISO = "yyyy-MM-dd'T'HH:mm:ss'Z'"


@dataclass(frozen=True)
class Limits:
    """How many objects of each kind get a chart, and how many advisory rows the table lists.
    ``queues`` and ``page_sets`` are per queue manager, the others for the whole report."""

    buffer_pools: int = 8
    logs: int = 12
    cf_structures: int = 8
    queues: int = 10
    shared_queues: int = 6
    page_sets: int = 4
    channel_initiators: int = 12
    advisories: int = 2000


# MQ object names: letters, digits and . / _ % (queue managers and QSGs are 1-4 characters of those).
NAME = re.compile(r"[A-Za-z0-9./_%@#$:-]{1,48}")


@dataclass(frozen=True)
class Scope:
    """What one report covers: statistics intervals starting in [start, end) (UTC), and the queue
    managers named in ``qmgrs`` plus the members of the QSGs in ``qsgs`` (both empty: all)."""

    start: datetime | None = None
    end: datetime | None = None
    qmgrs: tuple[str, ...] = ()
    qsgs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in (*self.qmgrs, *self.qsgs):
            if not NAME.fullmatch(name):
                raise ValueError(f"not a queue manager or QSG name: {name!r}")
        if self.start and self.end and self.end <= self.start:
            raise ValueError(
                f"--to ({self.end:%Y-%m-%d %H:%M:%S}) must be after --from ({self.start:%Y-%m-%d %H:%M:%S})"
            )

    @property
    def is_everything(self) -> bool:
        return not (self.start or self.end or self.qmgrs or self.qsgs)

    def describe(self) -> str:
        parts = []
        if self.start or self.end:
            start = f"{self.start:%Y-%m-%d %H:%M}" if self.start else "the beginning"
            end = f"{self.end:%Y-%m-%d %H:%M}" if self.end else "the end"
            parts.append(f"intervals starting from {start} to {end} UTC (end excluded)")
        names = [f"queue manager {q}" for q in self.qmgrs] + [f"QSG {g}" for g in self.qsgs]
        if names:
            parts.append(", ".join(names))
        return "; ".join(parts)


def parse_time(text: str, *, end: bool = False) -> datetime:
    """'2025-06-02' or '2025-06-02T06:00[:00][Z]' as a UTC instant. A date alone as the end of a
    range means the end of that day (``--to 2025-06-02`` includes the 2nd)."""
    value = text.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            day = datetime.combine(date.fromisoformat(value), datetime.min.time(), UTC)
            return day + timedelta(days=1) if end else day
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        raise ValueError(f"not a date or UTC time: {text!r} (use 2025-06-02 or 2025-06-02T06:00)") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _timestamp(moment: datetime) -> str:
    return f"timestamp'{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S}'"


def _names(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)  # validated by Scope: no quote can occur


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
    partition: str | None = None  # rank the objects within this column (top N per queue manager)
    grain: str = "qmgr"  # qmgr: one queue manager's rows; qsg: a queue-sharing group's


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
        grain="qsg",
    ),
    "queues": Selection(
        "fct_queue_stats",
        ("qmgr_name", "queue_name"),
        "sum(coalesce(msgs_in, 0) + coalesce(msgs_out, 0))",
        "queue",
        "qmgr_name",
        "queue_name",
        partition="qmgr_name",
    ),
    "shared_queues": Selection(
        "fct_shared_queue_qsg_stats",
        ("qsg_name", "queue_name"),
        "sum(coalesce(msgs_in, 0) + coalesce(msgs_out, 0))",
        "queue",
        "qsg_name",
        "queue_name",
        grain="qsg",
    ),
    "page_sets": Selection(
        "fct_page_set_stats",
        ("qmgr_name", "page_set_id"),
        "max(used_pct)",
        "page_set",
        "qmgr_name",
        "cast(page_set_id as string)",
        partition="qmgr_name",
    ),
    "channel_initiators": Selection(
        "fct_channel_initiator_stats",
        ("qmgr_name",),
        "max(active_channels_high)",
        "channel_initiator",
        "qmgr_name",
        "qmgr_name",
    ),
}
# Columns a section charts that its fact names otherwise (chart column -> SQL over the fact; new names).
CHARTED_AS = {
    "page_sets": {"expansions": "cast(expansions_in_interval as double)"},
    "channel_initiators": {
        "dispatcher_busy_pct": "dispatcher_busy_pct_avg",
        "adapter_busy_pct": "adapter_busy_pct_avg",
        "dispatcher_requests_per_second": "dispatcher_requests / nullif(interval_seconds, 0)",
        "adapter_requests_per_second": "adapter_requests / nullif(interval_seconds, 0)",
    },
    "buffer_pools": {"hit_ratio_pct": "100 * hit_ratio"},
}
# The measures each section charts (model.COLUMNS minus keys, chart_rank and interval).
MEASURES = {
    name: tuple(c for c in COLUMNS[name] if c not in ("chart_rank", "interval_start_at", *SELECTIONS[name].keys))
    for name in SELECTIONS
}


def tables_read() -> set[str]:
    """Every model the report reads (the dbt exposure mqsmf_report lists them)."""
    return {"dim_queue_manager", ADVISORIES, *(s.fact for s in SELECTIONS.values())}


class ReportQueries:
    """The SQL of one report over one marts schema."""

    def __init__(self, marts: str, limits: Limits, has_advisories: bool, scope: Scope | None = None) -> None:
        self.marts = marts
        self.limits = limits
        self.has_advisories = has_advisories
        self.scope = scope or Scope()
        self.sections = dict(SELECTIONS)
        # Per section, the charted objects as a relation of literal rows once pin_charted() fixed
        # them: the series, the marks and the shared queues' members then read the ranking's result
        # instead of ranking every object of the fact again.
        self.pinned: dict[str, str] = {}

    def qmgr_in_scope(self, alias: str) -> str:
        """dim_queue_manager rows in scope: named (or in a named QSG) and with intervals in the range."""
        sc, a = self.scope, f"{alias}."
        conditions = [self.in_scope("qmgr", alias, times=False)]
        if sc.start:
            conditions.append(f"{a}last_interval_end_at > {_timestamp(sc.start)}")
        if sc.end:
            conditions.append(f"{a}first_interval_start_at < {_timestamp(sc.end)}")
        return " and ".join(conditions)

    def in_scope(self, grain: str = "qmgr", alias: str = "", times: bool = True) -> str:
        """The scope as a condition on a relation of the grain (qmgr: has qmgr_name; qsg: qsg_name)."""
        a = f"{alias}." if alias else ""
        sc = self.scope
        conditions = []
        if sc.start and times:
            conditions.append(f"{a}interval_start_at >= {_timestamp(sc.start)}")
        if sc.end and times:
            conditions.append(f"{a}interval_start_at < {_timestamp(sc.end)}")
        if sc.qmgrs or sc.qsgs:
            named = " or ".join(
                ([f"qmgr_name in ({_names(sc.qmgrs)})"] if sc.qmgrs else [])
                + ([f"qsg_name in ({_names(sc.qsgs)})"] if sc.qsgs else [])
            )
            column = "qmgr_name" if grain == "qmgr" else "qsg_name"
            conditions.append(f"{a}{column} in (select {column} from {self.marts}.dim_queue_manager where {named})")
        return " and ".join(conditions) or "true"

    def relation(self, name: str) -> str:
        """The rows of a section within the scope, as a subquery."""
        s = SELECTIONS[name]
        renamed = "".join(f", {sql} as {column}" for column, sql in CHARTED_AS.get(name, {}).items())
        base = f"select *{renamed} from {self.marts}.{s.fact}"
        return f"(select * from ({base}) where {self.in_scope(s.grain)})"

    def advisories_in_scope(self) -> str:
        return f"(select * from {self.marts}.{ADVISORIES} where {self.in_scope('qmgr')})"

    def selected(self, name: str) -> str:
        """Every candidate object of a section with its chart_rank (within its partition: per queue
        manager for queues and page sets) and the candidate count."""
        s = SELECTIONS[name]
        keys = ", ".join(s.keys)
        if self.has_advisories:
            advisories = (
                f"select {s.scope}, object_name, max(severity_rank) as worst, count(*) as firings "
                f"from {self.advisories_in_scope()} where object_type = '{s.advisory_type}' "
                f"group by {s.scope}, object_name"
            )
        else:
            advisories = (
                f"select cast(null as string) as {s.scope}, cast(null as string) as object_name, "
                "0 as worst, 0 as firings where false"
            )
        partition = f"partition by c.{s.partition} " if s.partition else ""
        return (
            f"select c.*, row_number() over ({partition}order by coalesce(a.worst, 0) desc, "
            f"coalesce(a.firings, 0) desc, c.busy desc nulls last, {', '.join(f'c.{k}' for k in s.keys)}) as chart_rank, "
            f"count(*) over () as candidates "
            f"from (select {keys}, {s.object_key} as object_key, {s.busy} as busy "
            f"from {self.relation(name)} group by {keys}) c "
            f"left join ({advisories}) a on a.{s.scope} = c.{s.scope} and a.object_name = c.object_key"
        )

    def charted(self, name: str) -> str:
        """The section's charted objects (keys, object_key, chart_rank, candidates), the only place that
        applies the section's limit: pinned, or ranked."""
        if name in self.pinned:
            return self.pinned[name]
        return f"select * from ({self.selected(name)}) where chart_rank <= {int(getattr(self.limits, name))}"

    def pin_charted(self, name: str, charted: pd.DataFrame) -> None:
        """Fix the section's charted objects to ``charted`` (the rows of ``charted(name)``)."""
        keys = (*SELECTIONS[name].keys, "object_key")
        rows = _rows_relation(charted, (*keys, "chart_rank", "candidates"))
        # The types the ranking gives them (the series return both; literals would be narrower).
        self.pinned[name] = (
            f"select {', '.join(keys)}, cast(chart_rank as int) as chart_rank, "
            f"cast(candidates as bigint) as candidates from ({rows})"
        )

    def series(self, name: str) -> str:
        s = SELECTIONS[name]
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
            f"from {self.relation(name)} f inner join ({self.charted(name)}) sel on {on}) "
            f"where dup = 1 order by chart_rank, interval_start_at"
        )

    def shared_queue_members(self) -> str:
        """Each queue manager's share of the charted shared queues, on the QSG's aligned intervals."""
        measures = ("msgs_in_per_second", "msgs_out_per_second", "depth_high")
        return (
            f"select q.qsg_name, q.queue_name, q.qmgr_name, {_iso('g.interval_start_at')} as interval_start_at, "
            f"{_doubles('q', measures)} "
            f"from {self.relation('queues')} q "
            f"inner join {self.relation('shared_queues')} g on g.qsg_name = q.qsg_name "
            f"and g.queue_name = q.queue_name and g.interval_end_at = q.aligned_interval_end_at "
            f"inner join ({self.charted('shared_queues')}) sel on sel.qsg_name = q.qsg_name "
            f"and sel.queue_name = q.queue_name "
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
            f"from {self.advisories_in_scope()} a "
            f"order by a.severity_rank desc, a.interval_start_at, a.rule_id, a.qmgr_name, a.object_type, "
            f"a.object_name limit {int(self.limits.advisories)}"
        )

    def marks(self) -> str:
        """The advisories of every charted object (they mark the charts)."""
        parts = []
        for name, s in self.sections.items():
            parts.append(
                f"select {self._advisory_columns(COLUMNS['marks'])} from {self.advisories_in_scope()} a "
                f"left semi join ({self.charted(name)}) sel on a.object_type = '{s.advisory_type}' "
                f"and a.{s.scope} = sel.{s.scope} and a.object_name = sel.object_key"
            )
        return " union ".join(parts)

    def queue_managers(self, has_violations: bool, quality: str) -> str:
        if self.has_advisories:
            advisories = (
                "select qmgr_name, count_if(severity = 'critical') as critical, "
                "count_if(severity = 'warning') as warning, count_if(severity = 'info') as info "
                f"from {self.advisories_in_scope()} group by qmgr_name"
            )
        else:
            advisories = "select cast(null as string) as qmgr_name, 0 as critical, 0 as warning, 0 as info where false"
        if has_violations:
            # The gate's rows in the report's range (a row without an interval is in every range).
            violations = (
                "select qmgr_name, count_if(severity = 'error') as dq_errors, count_if(severity = 'warn') as dq_warnings "
                f"from {quality}.dq_violations where interval_start_at is null or ({self.in_scope('qmgr')}) "
                "group by qmgr_name"
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
            f"left join ({violations}) v on v.qmgr_name = m.qmgr_name "
            f"where {self.qmgr_in_scope('m')} "
            "order by m.qsg_name, m.qmgr_name"
        )

    def dq_pitfalls(self, quality: str) -> str:
        """Known SMF data pitfalls (the gate's pitfall_* warnings) per queue manager and day, from the
        gate's latest run of the raw stage: the rows of the report's queue managers whose intervals
        start in its range."""
        return (
            "select qmgr_name, cast(to_date(interval_start_at) as string) as interval_date, check_name, "
            f"count(*) as rows_affected from {quality}.dq_violations "
            f"where stage = 'raw' and startswith(check_name, 'pitfall_') and {self.in_scope('qmgr')} "
            "group by qmgr_name, to_date(interval_start_at), check_name order by interval_date, qmgr_name, check_name"
        )


def dq_checks_sql(quality: str) -> str:
    """The gate's latest result of every check, per stage."""
    return (
        f"select stage, {_iso('checked_at')} as checked_at, check_name, severity, status, violations, rule from "
        f"(select *, max(checked_at) over (partition by stage) as latest from {quality}.dq_check_results) "
        "where checked_at = latest order by stage, check_name"
    )


def _rows_relation(frame: pd.DataFrame, columns: tuple[str, ...]) -> str:
    """``frame``'s rows as an inline relation (SQL literals) with ``columns``: a few dozen charted
    objects, the same SQL for the local session and the Thrift server."""
    if frame.empty:
        return "select " + ", ".join(f"null as {c}" for c in columns) + " where false"

    def sql(value) -> str:
        if value is None or (not isinstance(value, str) and pd.isna(value)):
            return "NULL"
        if isinstance(value, float) and value.is_integer():
            return str(int(value))  # an integer key of a column pandas made float (it holds a NULL)
        return literal(value.item() if hasattr(value, "item") else value)

    rows = ", ".join("(" + ", ".join(sql(v) for v in row) + ")" for row in frame[list(columns)].itertuples(index=False))
    return f"select * from values {rows} as charted({', '.join(columns)})"


def _frame(runner, query: str, name: str) -> pd.DataFrame:
    frame = runner.sql(query)
    return frame[[c for c in COLUMNS[name]]] if not frame.empty else frame.reindex(columns=COLUMNS[name])


def collect(
    runner,
    marts_schema: str,
    quality_schema: str,
    limits: Limits | None = None,
    scope: Scope | None = None,
) -> ReportData:
    """Query the warehouse for one report."""
    limits = limits or Limits()
    scope = scope or Scope()
    marts_tables = runner.tables(marts_schema)
    needed = {"dim_queue_manager", *(s.fact for s in SELECTIONS.values())}
    missing = sorted(needed - marts_tables)
    if missing:
        raise RuntimeError(
            f"mqsmf report: the marts schema {marts_schema} lacks {', '.join(missing)}: run dbt build (mqsmf run) first"
        )
    quality_tables = runner.tables(quality_schema)
    has_advisories = ADVISORIES in marts_tables
    q = ReportQueries(marts_schema, limits, has_advisories, scope)
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
        dq_pitfalls=_frame(runner, q.dq_pitfalls(quality_schema), "dq_pitfalls")
        if "dq_violations" in quality_tables
        else empty("dq_pitfalls"),
        notes=notes,
        scope=scope.describe(),
    )
    for name in q.sections:
        charted = runner.sql(q.charted(name))
        data.candidates[name] = int(charted["candidates"].max()) if not charted.empty else 0
        q.pin_charted(name, charted)
    if has_advisories:
        advisories = runner.sql(q.advisories())
        data.advisories_total = int(advisories["total"].iloc[0]) if not advisories.empty else 0
        data.advisories = advisories.reindex(columns=COLUMNS["advisories"])
        data.marks = _frame(runner, q.marks(), "marks")
    for name in q.sections:
        setattr(data, name, runner.sql(q.series(name)).reindex(columns=COLUMNS[name]))
    data.shared_queue_members = _frame(runner, q.shared_queue_members(), "shared_queue_members")
    return data
