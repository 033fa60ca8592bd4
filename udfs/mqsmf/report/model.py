"""What the report shows, as plain data: the tables the data step fills and the renderer reads.

Kept apart from Spark and from HTML so the renderer can be tested on hand-made frames, and the data
step on a warehouse, each without the other. Times are ISO 8601 UTC strings ('...Z'), numbers are
floats (NaN where the mart has NULL), names are the marts' text as is (the renderer escapes them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

SEVERITIES = ("critical", "warning", "info")

# Columns of each frame of ReportData, in order. The data step selects exactly these; the
# renderer relies on nothing else.
COLUMNS: dict[str, tuple[str, ...]] = {
    "queue_managers": (
        "qsg_name", "qmgr_name", "system_id", "mq_versions", "first_interval_start_at", "last_interval_end_at",
        "statistics_intervals", "critical", "warning", "info", "dq_errors", "dq_warnings",
    ),
    "dq_checks": ("stage", "checked_at", "check_name", "severity", "status", "violations", "rule"),
    "dq_pitfalls": ("qmgr_name", "interval_date", "check_name", "rows_affected"),
    "advisories": (
        "severity", "severity_rank", "rule_id", "qmgr_name", "qsg_name", "object_type", "object_name",
        "interval_start_at", "interval_end_at", "observed_value", "comparison", "threshold_value", "threshold_unit",
        "threshold_source", "recommended_action", "mp16_reference", "message",
    ),
    "marks": (
        "object_type", "qmgr_name", "qsg_name", "object_name", "interval_start_at", "interval_end_at", "rule_id",
        "severity", "severity_rank", "observed_value", "comparison", "threshold_value", "threshold_unit",
    ),
    "buffer_pools": (
        "chart_rank", "qmgr_name", "buffer_pool_id", "interval_start_at", "lowest_free_pct", "end_free_pct",
        "hit_ratio_pct", "pages_read_per_second", "pages_written_per_second",
    ),
    "page_sets": (
        "chart_rank", "qmgr_name", "page_set_id", "interval_start_at", "used_pages", "total_pages", "used_pct",
        "expansions", "full_count",
    ),
    "logs": (
        "chart_rank", "qmgr_name", "interval_start_at", "log_write_mb_per_sec", "checkpoints", "buffer_waits",
        "log_suspends",
    ),
    "cf_structures": (
        "chart_rank", "qsg_name", "structure_name", "interval_start_at", "requests", "redrive_pct",
        "avg_service_time_us", "entries_in_use_max",
    ),
    "queues": (
        "chart_rank", "qmgr_name", "queue_name", "interval_start_at", "msgs_in_per_second", "msgs_out_per_second",
        "depth_high", "depth_low", "oldest_msg_age_seconds",
    ),
    "shared_queues": (
        "chart_rank", "qsg_name", "queue_name", "interval_start_at", "msgs_in_per_second", "msgs_out_per_second",
        "depth_high_max", "qmgrs_reporting",
    ),
    "channel_initiators": (
        "chart_rank", "qmgr_name", "interval_start_at", "current_channels_high", "active_channels_high",
        "max_channels", "max_active_channels", "dispatcher_busy_pct", "adapter_busy_pct",
        "dispatcher_requests_per_second", "adapter_requests_per_second",
    ),
    "shared_queue_members": (
        "qsg_name", "queue_name", "qmgr_name", "interval_start_at", "msgs_in_per_second", "msgs_out_per_second",
        "depth_high",
    ),
}  # fmt: skip


def empty(name: str) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS[name]})


@dataclass
class ReportData:
    """Everything one report shows. ``advisories`` may be the worst ``advisory_limit`` rows of
    ``advisories_total``; ``marks`` holds every advisory of the charted object types."""

    generated_at: str
    marts_schema: str
    quality_schema: str | None = None
    queue_managers: pd.DataFrame = field(default_factory=lambda: empty("queue_managers"))
    dq_checks: pd.DataFrame | None = None  # None: the gate has not written its results
    dq_pitfalls: pd.DataFrame = field(default_factory=lambda: empty("dq_pitfalls"))
    advisories: pd.DataFrame = field(default_factory=lambda: empty("advisories"))
    advisories_total: int = 0
    marks: pd.DataFrame = field(default_factory=lambda: empty("marks"))
    buffer_pools: pd.DataFrame = field(default_factory=lambda: empty("buffer_pools"))
    page_sets: pd.DataFrame = field(default_factory=lambda: empty("page_sets"))
    channel_initiators: pd.DataFrame = field(default_factory=lambda: empty("channel_initiators"))
    logs: pd.DataFrame = field(default_factory=lambda: empty("logs"))
    cf_structures: pd.DataFrame = field(default_factory=lambda: empty("cf_structures"))
    queues: pd.DataFrame = field(default_factory=lambda: empty("queues"))
    shared_queues: pd.DataFrame = field(default_factory=lambda: empty("shared_queues"))
    shared_queue_members: pd.DataFrame = field(default_factory=lambda: empty("shared_queue_members"))
    # How many objects each chart section had to choose from (the charts show the top ones).
    candidates: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    scope: str = ""  # what the report is limited to (--from/--to, --qmgr, --qsg), for the header; "" = all

    def __post_init__(self) -> None:
        for name, columns in COLUMNS.items():
            frame = getattr(self, name)
            if frame is None:
                continue
            missing = [c for c in columns if c not in frame.columns]
            if missing:
                raise ValueError(f"report data {name!r} lacks columns {missing}")
