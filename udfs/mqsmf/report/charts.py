"""Time-series charts of the report as Plotly figure specs (plain dicts, JSON-ready).

One chart per object (a queue manager's buffer pool, its log, a CF structure of a QSG, a queue, a
shared queue of a QSG), with its metrics in stacked panels over one time axis. Every interval in
which an advisory fired for the object is shaded in the colour of its worst severity and labelled
with the rules, whose observed value and threshold show on hover.

Plotly renders titles, trace names and hover text as a small HTML subset and decodes entities, so
every string from the data goes in ``html.escape``d: a queue called ``<b>X`` shows as ``<b>X``.
"""

from __future__ import annotations

import functools
import html
import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .model import ReportData

SEVERITY_COLOURS = {"critical": "#c62828", "warning": "#ef6c00", "info": "#1565c0"}
PALETTE = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#ff7f0e")
PANEL_HEIGHT = 160
PANEL_GAP = 0.09


@dataclass(frozen=True)
class Line:
    label: str
    column: str
    dash: str = "solid"


@dataclass(frozen=True)
class Panel:
    title: str
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Section:
    """A chart section: which frame, what one chart is about, which advisories mark it."""

    key: str
    title: str
    keys: tuple[str, ...]  # columns naming one chart's object
    mark_type: str  # advisories of this object_type mark the chart
    mark_on: tuple[tuple[str, str], ...]  # (advisory column, chart key column) that must be equal
    chart_title: Callable[[dict], str]  # object keys -> title (already escaped)
    panels: tuple[Panel, ...]
    chosen: str  # how the data step chose the charted objects (for the analyst)
    group_by: str | None = None  # charts listed under a heading per value of this key (queue manager)


def _e(value) -> str:
    return html.escape("" if value is None else str(value))


SECTIONS = (
    Section(
        "buffer_pools",
        "Buffer pools",
        ("qmgr_name", "buffer_pool_id"),
        "buffer_pool",
        (("qmgr_name", "qmgr_name"), ("object_name", "buffer_pool_id")),
        lambda k: f"Buffer pool {_e(k['buffer_pool_id'])} of {_e(k['qmgr_name'])}",
        (
            Panel(
                "Free buffers (%)",
                (Line("lowest free %", "lowest_free_pct"), Line("free % at interval end", "end_free_pct", "dot")),
            ),
            Panel("Hit ratio (%): gets not needing a page set read", (Line("hit ratio %", "hit_ratio_pct"),)),
            Panel(
                "Page set I/O (pages/s)",
                (Line("pages read/s", "pages_read_per_second"), Line("pages written/s", "pages_written_per_second")),
            ),
        ),
        "pools with advisories first (worst severity, then most), then the lowest free %",
    ),
    Section(
        "page_sets",
        "Page sets",
        ("qmgr_name", "page_set_id"),
        "page_set",
        (("qmgr_name", "qmgr_name"), ("object_name", "page_set_id")),
        lambda k: f"Page set {_e(k['page_set_id'])} of {_e(k['qmgr_name'])}",
        (
            Panel("Pages (4 KB)", (Line("used", "used_pages"), Line("total", "total_pages", "dot"))),
            Panel("Used (%)", (Line("used %", "used_pct"),)),
            Panel(
                "Expansions and page-set-full conditions (per interval)",
                (Line("expansions", "expansions"), Line("full (QIS1FULL)", "full_count", "dot")),
            ),
        ),
        "per queue manager: page sets with advisories first, then the highest % used",
        group_by="qmgr_name",
    ),
    Section(
        "logs",
        "Log",
        ("qmgr_name",),
        "log",
        (("qmgr_name", "qmgr_name"),),
        lambda k: f"Log of {_e(k['qmgr_name'])}",
        (
            Panel("Log write (MB/s)", (Line("log MB/s", "log_write_mb_per_sec"),)),
            Panel("Checkpoints (per interval)", (Line("checkpoints", "checkpoints"),)),
            Panel(
                "Waits (per interval)",
                (
                    Line("buffer waits (QJSTWTB)", "buffer_waits"),
                    Line("log suspends (QJSTLSUS)", "log_suspends", "dot"),
                ),
            ),
        ),
        "queue managers with advisories first, then the most log data",
    ),
    Section(
        "channel_initiators",
        "Channel initiators",
        ("qmgr_name",),
        "channel_initiator",
        (("qmgr_name", "qmgr_name"),),
        lambda k: f"Channel initiator of {_e(k['qmgr_name'])}",
        (
            Panel(
                "Channels (high water in the interval) and limits",
                (
                    Line("current channels", "current_channels_high"),
                    Line("active channels", "active_channels_high"),
                    Line("MAXCHL", "max_channels", "dot"),
                    Line("ACTCHL", "max_active_channels", "dot"),
                ),
            ),
            Panel(
                "Task busy (%): time processing requests / interval",
                (Line("dispatchers", "dispatcher_busy_pct"), Line("adapters", "adapter_busy_pct")),
            ),
            Panel(
                "Requests per second",
                (
                    Line("dispatcher requests/s", "dispatcher_requests_per_second"),
                    Line("adapter requests/s", "adapter_requests_per_second"),
                ),
            ),
        ),
        "the most active channels",
    ),
    Section(
        "cf_structures",
        "CF structures",
        ("qsg_name", "structure_name"),
        "cf_structure",
        (("qsg_name", "qsg_name"), ("object_name", "structure_name")),
        lambda k: f"CF structure {_e(k['structure_name'])} of {_e(k['qsg_name'])}",
        (
            Panel("Requests (per interval, QSG)", (Line("requests", "requests"),)),
            Panel("Redrive (%)", (Line("redrive %", "redrive_pct"),)),
            Panel("Service time (µs per request)", (Line("avg service time", "avg_service_time_us"),)),
            Panel("Entries in use (max)", (Line("entries in use", "entries_in_use_max"),)),
        ),
        "structures with advisories first, then the most requests",
    ),
    Section(
        "queues",
        "Top queues per queue manager",
        ("qmgr_name", "queue_name"),
        "queue",
        (("qmgr_name", "qmgr_name"), ("object_name", "queue_name")),
        lambda k: f"Queue {_e(k['queue_name'])} on {_e(k['qmgr_name'])}",
        (
            Panel(
                "Messages per second",
                (Line("puts/s (MQPUT + MQPUT1)", "msgs_in_per_second"), Line("gets/s", "msgs_out_per_second")),
            ),
            Panel("Depth (messages)", (Line("depth high", "depth_high"), Line("depth low", "depth_low", "dot"))),
            Panel("Oldest message (s)", (Line("oldest message age", "oldest_msg_age_seconds"),)),
        ),
        "per queue manager: queues with advisories first, then the most puts + gets",
        group_by="qmgr_name",
    ),
    Section(
        "shared_queues",
        "Shared queues",
        ("qsg_name", "queue_name"),
        "queue",
        (("qsg_name", "qsg_name"), ("object_name", "queue_name")),
        lambda k: f"Shared queue {_e(k['queue_name'])} of {_e(k['qsg_name'])}",
        (
            Panel("Puts per second: QSG and each queue manager's share", (Line("QSG puts/s", "msgs_in_per_second"),)),
            Panel("Gets per second: QSG and each queue manager's share", (Line("QSG gets/s", "msgs_out_per_second"),)),
            Panel("Depth high (messages)", (Line("QSG depth high (max)", "depth_high_max"),)),
        ),
        "the most puts + gets across the QSG",
    ),
)
SECTION_BY_KEY = {s.key: s for s in SECTIONS}
# Each shared-queue panel's per-queue-manager measure, drawn as stacked bars (rates) or lines.
MEMBER_MEASURES = (("msgs_in_per_second", "bar"), ("msgs_out_per_second", "bar"), ("depth_high", "line"))


def _num(value) -> float | None:
    if value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


def _fmt(value) -> str:
    f = _num(value)
    if f is None:
        return "–"
    return f"{f:,.0f}" if abs(f) >= 1000 or f == int(f) else f"{f:,.3g}"


def _axis(i: int) -> tuple[str, str]:
    """Trace axis id and layout key of panel i (0 = top)."""
    return ("y", "yaxis") if i == 0 else (f"y{i + 1}", f"yaxis{i + 1}")


@functools.cache
def panel_domains(n: int) -> tuple[tuple[float, float], ...]:
    """The vertical domain (bottom, top) of each of n stacked panels, top panel first: plotly's
    ``make_subplots`` grid of one column, PANEL_GAP apart. Only the domains are taken from it (the
    figures stay plain dicts for plotly.js, with one x axis for all panels); once per panel count."""
    from plotly.subplots import make_subplots

    layout = make_subplots(rows=n, cols=1, vertical_spacing=PANEL_GAP).layout
    return tuple(tuple(layout[_axis(i)[1]].domain) for i in range(n))


def marks_for(section: Section, keys: dict, marks: pd.DataFrame) -> list[dict]:
    """The advisory intervals of one charted object: one entry per interval start, worst severity
    first, with the rules that fired in it."""
    if marks.empty:
        return []
    hit = marks["object_type"] == section.mark_type
    for mark_column, key in section.mark_on:
        hit &= marks[mark_column].astype(str) == str(keys[key])
    rows = marks[hit].sort_values(["interval_start_at", "severity_rank", "rule_id"], ascending=[True, False, True])
    out = []
    for start, group in rows.groupby("interval_start_at", sort=True):
        worst = group.iloc[0]
        out.append(
            {
                "start": start,
                "end": group["interval_end_at"].max(),
                "severity": worst["severity"],
                "rules": sorted(set(group["rule_id"])),
                "details": [
                    f"{r.rule_id} {r.severity} on {r.qmgr_name}: observed {_fmt(r.observed_value)} "
                    f"{r.comparison or ''} {_fmt(r.threshold_value)} {r.threshold_unit or ''}".strip()
                    for r in group.itertuples()
                ],
            }
        )
    return out


def _mark_layout(marks: list[dict]) -> tuple[list[dict], list[dict]]:
    shapes, notes = [], []
    for m in marks:
        colour = SEVERITY_COLOURS.get(m["severity"], "#555")
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": m["start"],
                "x1": m["end"],
                "y0": 0,
                "y1": 1,
                "fillcolor": colour,
                "opacity": 0.16,
                "line": {"width": 0},
                "layer": "below",
            }
        )
        notes.append(
            {
                "xref": "x",
                "yref": "paper",
                "x": m["start"],
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "text": _e(" ".join(m["rules"])),
                "hovertext": "<br>".join(_e(d) for d in m["details"]),
                "font": {"color": colour, "size": 11},
                "name": "advisory",
            }
        )
    return shapes, notes


def _series(values: pd.Series) -> list[float | None]:
    return [_num(v) for v in values]


def figure(
    section: Section, keys: dict, rows: pd.DataFrame, marks: list[dict], members: pd.DataFrame | None = None
) -> dict:
    """The Plotly figure of one object: panels stacked top to bottom over a shared UTC time axis."""
    n = len(section.panels)
    domains = panel_domains(n)
    rows = rows.sort_values("interval_start_at")
    x = list(rows["interval_start_at"])
    data: list[dict] = []
    layout: dict = {
        "title": {"text": section.chart_title(keys), "x": 0, "xanchor": "left", "font": {"size": 14}},
        "height": PANEL_HEIGHT * n + 110,
        "margin": {"l": 70, "r": 20, "t": 60, "b": 60},
        "hovermode": "x unified",
        "barmode": "stack",
        "showlegend": True,
        "legend": {"orientation": "h", "y": -0.12, "yanchor": "top", "font": {"size": 11}},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "xaxis": {"type": "date", "anchor": _axis(n - 1)[0], "gridcolor": "#eee"},  # UTC, as the section says
    }
    annotations = []
    for i, panel in enumerate(section.panels):
        axis, key = _axis(i)
        bottom, top = domains[i]
        layout[key] = {
            "domain": [bottom, top],
            "anchor": "x",
            "gridcolor": "#eee",
            "zeroline": False,
            "rangemode": "tozero",
        }
        annotations.append(
            {
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "y": top,
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "text": f"<b>{_e(panel.title)}</b>",
                "font": {"size": 11, "color": "#444"},
                "yshift": 14 if i == 0 else 0,  # above the advisory labels of the top panel
            }
        )
        for j, line in enumerate(panel.lines):
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": _e(line.label),
                    "x": x,
                    "y": _series(rows[line.column]),
                    "xaxis": "x",
                    "yaxis": axis,
                    "line": {"dash": line.dash, "width": 2, "color": PALETTE[(2 * i + j) % len(PALETTE)]},
                    "marker": {"size": 4},
                    "connectgaps": False,
                }
            )
        if members is not None and not members.empty:
            data.extend(_member_traces(members, i, axis))
    shapes, notes = _mark_layout(marks)
    layout["shapes"] = shapes
    layout["annotations"] = annotations + notes
    return {"data": data, "layout": layout}


def _member_traces(members: pd.DataFrame, panel: int, axis: str) -> list[dict]:
    column, kind = MEMBER_MEASURES[panel]
    qmgrs = sorted(members["qmgr_name"].dropna().unique())
    traces = []
    for k, qmgr in enumerate(qmgrs):
        part = members[members["qmgr_name"] == qmgr].sort_values("interval_start_at")
        trace = {
            "type": "bar" if kind == "bar" else "scatter",
            "name": _e(qmgr),
            "legendgroup": _e(qmgr),
            "showlegend": panel == 0,
            "x": list(part["interval_start_at"]),
            "y": _series(part[column]),
            "xaxis": "x",
            "yaxis": axis,
            "marker": {"color": PALETTE[(k + 3) % len(PALETTE)]},
        }
        if kind == "bar":
            trace["opacity"] = 0.55
        else:
            trace.update(mode="lines", line={"dash": "dot", "width": 1.5, "color": PALETTE[(k + 3) % len(PALETTE)]})
        traces.append(trace)
    return traces


def charts(data: ReportData) -> dict[str, list[dict]]:
    """Every chart of the report by section key, in the data step's chart_rank order."""
    out: dict[str, list[dict]] = {}
    for section in SECTIONS:
        frame: pd.DataFrame = getattr(data, section.key)
        charts_of_section = []
        if not frame.empty:
            ranks = frame.groupby(list(section.keys), sort=False, dropna=False)["chart_rank"].min()
            objects = []
            for key_values, rank in ranks.items():
                values = key_values if isinstance(key_values, tuple) else (key_values,)
                keys = dict(zip(section.keys, values, strict=True))
                group = str(keys[section.group_by]) if section.group_by else ""
                objects.append((group, float(rank), keys))
            objects.sort(key=lambda o: (o[0], o[1]))  # per group (queue manager), in the data step's rank
            for n, (group, _rank, keys) in enumerate(objects):
                rows = _select(frame, keys)
                members = _select(data.shared_queue_members, keys) if section.key == "shared_queues" else None
                marks = marks_for(section, keys, data.marks)
                charts_of_section.append(
                    {
                        "id": f"chart-{section.key}-{n}",
                        "section": section.key,
                        "object": {k: None if v is None else str(v) for k, v in keys.items()},
                        "group": group,
                        "marks": marks,
                        "figure": figure(section, keys, rows, marks, members),
                    }
                )
        out[section.key] = charts_of_section
    return out


def _select(frame: pd.DataFrame, keys: dict) -> pd.DataFrame:
    hit = pd.Series(True, index=frame.index)
    for column, value in keys.items():
        hit &= frame[column].astype(str) == str(value)
    return frame[hit]
