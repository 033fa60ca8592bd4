"""ReportData -> one static HTML page that opens from disk: no server, no internet.

The markup is in Jinja2 templates (``templates/``: ``page.html`` includes a template per part of
the page, ``_macros.html`` holds the badge and count cells); this module turns the frames into the
plain values they show. Plotly.js (from the ``plotly`` package) is inlined once; the chart specs
travel as one JSON block; the advisory table is plain HTML rows that a few lines of JavaScript sort
and filter.

Every string that comes from the data is escaped by the template engine, never by hand: autoescape
is on for the templates, so the markup of a macro or an included template stays markup and any
other value is escaped as it is written (``finalize``: NULL/NaN as empty, ``html.escape``'s
entities). The JSON inside ``<script>`` gets ``\\u003c``-style escapes instead (the ``script_json``
filter, so no name can close the script), and the chart labels are escaped again for Plotly's own
HTML-like labels (``charts``).
"""

from __future__ import annotations

import functools
import html
import json
import math
from importlib import resources

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from ..warehouse import QUALITY_SCHEMA
from .charts import SECTIONS, charts
from .model import SEVERITIES, ReportData

STAGES = ("raw", "marts")
# Advisory table: (header, column of ReportData.advisories or None, kind). Kinds: text, num, time, long.
ADVISORY_COLUMNS = (
    ("Severity", "severity", "severity"),
    ("Rule", "rule_id", "text"),
    ("Queue manager", "qmgr_name", "text"),
    ("QSG", "qsg_name", "text"),
    ("Object type", "object_type", "text"),
    ("Object", "object_name", "text"),
    ("Interval start (UTC)", "interval_start_at", "time"),
    ("Interval end (UTC)", "interval_end_at", "time"),
    ("Observed", "observed_value", "num"),
    ("Threshold", "threshold_value", "threshold"),
    ("Threshold source", "threshold_source", "text"),
    ("Action", "recommended_action", "long"),
    ("MP16 reference", "mp16_reference", "long"),
    ("Chart", None, "chart"),
)
SELECT_FILTERS = ("severity", "rule_id", "object_type")


def script_json(value) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' survives, so nothing can end the element."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char, code in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, code)
    return text


def _number(value) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


def fmt_number(value) -> str:
    f = _number(value)
    if f is None:
        return ""
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:,.4g}" if abs(f) < 1000 else f"{f:,.1f}"


def fmt_time(value) -> str:
    """'2025-06-02T01:30:00Z' -> '2025-06-02 01:30:00' (the header says UTC)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).replace("T", " ").removesuffix("Z")


def _count(value) -> int:
    """A count as shown: NULL/NaN as 0."""
    return int(_number(value) or 0)


def _finalize(value):
    """Every ``{{ value }}`` of the templates. Markup (a macro's or an included template's output,
    the inlined CSS/JS, ``|safe`` constants) as is; NULL/NaN as empty; anything else escaped as text
    for HTML content or a quoted attribute, with ``html.escape``'s entities (``&quot;``, ``&#x27;``)."""
    if isinstance(value, Markup):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Markup("")
    return Markup(html.escape(str(value), quote=True))


@functools.cache
def environment() -> Environment:
    """The templates of the page, from the package (``templates/``), escaping on."""
    env = Environment(
        loader=PackageLoader(__package__, "templates"),
        autoescape=select_autoescape(["html"]),
        finalize=_finalize,
        undefined=StrictUndefined,  # a misspelt name fails instead of rendering empty
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        script_json=lambda value: Markup(script_json(value)),  # safe inside <script>, see script_json
        as_count=_count,
        thousands=lambda n: f"{n:,}",
        fmt_time=fmt_time,
    )
    env.globals["status_text"] = STATUS_TEXT
    return env


def _render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)


# ---- data quality ------------------------------------------------------------------------------


def stage_status(dq_checks: pd.DataFrame | None, stage: str) -> str:
    """passed | warnings | failed | skipped | not-run, from the gate's latest results of the stage."""
    if dq_checks is None:
        return "not-run"
    rows = dq_checks[dq_checks["stage"] == stage]
    if rows.empty:
        return "not-run"
    failed = rows[rows["status"] == "failed"]
    if (failed["severity"] == "error").any():
        return "failed"
    if not failed.empty:
        return "warnings"
    if (rows["status"] == "skipped").all():
        return "skipped"
    return "passed"


def overall_status(dq_checks: pd.DataFrame | None) -> str:
    statuses = [stage_status(dq_checks, s) for s in STAGES]
    for status in ("failed", "warnings", "passed", "skipped"):
        if status in statuses:
            return status
    return "not-run"


STATUS_TEXT = {
    "passed": "passed",
    "warnings": "passed with warnings",
    "failed": "failed",
    "skipped": "skipped",
    "not-run": "not run",
}


def quality_view(data: ReportData) -> dict:
    """What the data-quality section shows (templates/quality.html)."""
    view = {
        "ran": data.dq_checks is not None,
        "gate_schema": data.quality_schema or QUALITY_SCHEMA,
        "schema": data.quality_schema,
        "stages": [],
        "failed": [],
        "pitfalls": list(data.dq_pitfalls.itertuples()),
    }
    if data.dq_checks is None:
        return view
    checks = data.dq_checks
    for stage in STAGES:
        rows = checks[checks["stage"] == stage]
        failed = rows[rows["status"] == "failed"]
        view["stages"].append(
            {
                "stage": stage,
                "status": stage_status(checks, stage),
                "checks": len(rows),
                "errors": (failed["severity"] == "error").sum(),
                "warnings": (failed["severity"] == "warn").sum(),
                "violations": pd.to_numeric(rows["violations"]).sum(),
                "checked_at": rows["checked_at"].max() if not rows.empty else "",
            }
        )
    failed = checks[checks["status"] == "failed"]
    view["failed"] = list(
        failed.assign(_e=failed["severity"] != "error").sort_values(["_e", "stage", "check_name"]).itertuples()
    )
    return view


def render_quality(data: ReportData) -> str:
    return _render("quality.html", quality=quality_view(data))


# ---- summary -----------------------------------------------------------------------------------


def _versions(values) -> str:
    seen: list[str] = []
    for v in values:
        for part in str(v or "").split(","):
            part = part.strip()
            if part and part not in seen:
                seen.append(part)
    return ", ".join(sorted(seen, key=lambda s: tuple(int(p) if p.isdigit() else 0 for p in s.split("."))))


COUNT_COLUMNS = ("statistics_intervals", "dq_errors", "dq_warnings", *SEVERITIES)


def summary_view(data: ReportData) -> dict:
    """What the summary shows (templates/summary.html): a group per QSG ("" = outside one)."""
    qm = data.queue_managers.copy()
    groups = []
    if not qm.empty:
        qm["_qsg"] = qm["qsg_name"].fillna("")
        for qsg, group in qm.sort_values(["_qsg", "qmgr_name"]).groupby("_qsg", sort=True):
            rows = [
                {
                    "qmgr_name": r.qmgr_name,
                    "system_id": r.system_id,
                    "versions": _versions([r.mq_versions]),
                    "first": r.first_interval_start_at,
                    "last": r.last_interval_end_at,
                    "counts": [getattr(r, c) for c in COUNT_COLUMNS],
                }
                for r in group.itertuples()
            ]
            total = None
            if qsg:
                total = {
                    "versions": _versions(group["mq_versions"]),
                    "first": group["first_interval_start_at"].min(),
                    "last": group["last_interval_end_at"].max(),
                    "counts": [pd.to_numeric(group[c]).sum() for c in COUNT_COLUMNS],
                }
            groups.append({"qsg": qsg, "rows": rows, "total": total})
    return {"groups": groups}


def render_summary(data: ReportData) -> str:
    return _render("summary.html", summary=summary_view(data))


# ---- advisory table ----------------------------------------------------------------------------


def chart_index(all_charts: dict[str, list[dict]]) -> dict[tuple, str]:
    """(object_type, advisory key values...) -> id of the chart of that object, from each section's
    own matching of advisories to charts (its mark_on columns). A queue's chart on its queue manager
    comes before the QSG's shared-queue chart."""
    index: dict[tuple, str] = {}
    for section in SECTIONS:
        for c in all_charts.get(section.key, []):
            key = (section.mark_type, *(str(c["object"][k]) for _col, k in section.mark_on))
            index.setdefault(key, c["id"])
    return index


def chart_of(row, index: dict[tuple, str]) -> str | None:
    """The id of the chart an advisory row belongs to, or None when its object is not charted."""
    for section in SECTIONS:
        if section.mark_type != row.object_type:
            continue
        key = (section.mark_type, *(str(getattr(row, col)) for col, _k in section.mark_on))
        if key in index:
            return index[key]
    return None


def _advisory_cell(row, column: str | None, kind: str, index: dict[tuple, str] | None = None) -> dict:
    """One cell of the advisory table: its kind (how templates/advisories.html writes it), its text
    and the value report.js sorts it by."""
    if kind == "chart":
        return {"kind": kind, "target": chart_of(row, index or {})}
    value = getattr(row, column)
    if kind == "severity":
        return {"kind": kind, "sort": int(_number(row.severity_rank) or 0), "text": str(value)}
    if kind in ("num", "threshold"):
        n = _number(value)
        text = fmt_number(value)
        if kind == "threshold":
            text = " ".join(p for p in (row.comparison or "", text, row.threshold_unit or "") if p)
        return {"kind": "num", "sort": "" if n is None else repr(n), "text": text}
    if kind == "time":
        return {"kind": kind, "sort": value, "text": fmt_time(value)}
    return {"kind": kind, "text": value}  # text; long: clamped to a few lines, the whole text on hover


def advisories_view(data: ReportData, all_charts: dict[str, list[dict]] | None = None) -> dict:
    """What the advisory table shows (templates/advisories.html)."""
    adv = data.advisories
    columns = []
    for title, column, kind in ADVISORY_COLUMNS:
        options = None
        if column in SELECT_FILTERS and not adv.empty:
            options = sorted(adv[column].dropna().unique())
            if column == "severity":
                options = [v for v in SEVERITIES if v in options] + [v for v in options if v not in SEVERITIES]
        typ = "num" if kind in ("num", "threshold", "severity") else "text"
        columns.append({"title": title, "type": typ, "filter": column is not None, "options": options})
    index = chart_index(all_charts or {})
    rows = [
        {
            "message": row.message,
            "cells": [_advisory_cell(row, column, kind, index) for _title, column, kind in ADVISORY_COLUMNS],
        }
        for row in adv.itertuples()
    ]
    return {"total": data.advisories_total, "marts_schema": data.marts_schema, "columns": columns, "rows": rows}


def render_advisories(data: ReportData, all_charts: dict[str, list[dict]] | None = None) -> str:
    return _render("advisories.html", advisories=advisories_view(data, all_charts))


# ---- charts ------------------------------------------------------------------------------------


def chart_sections_view(all_charts: dict[str, list[dict]], data: ReportData) -> list[dict]:
    """Each chart section (templates/charts.html): its charts and how many objects it chose from."""
    views = []
    for section in SECTIONS:
        items = all_charts.get(section.key, [])
        views.append({"section": section, "charts": items, "total": data.candidates.get(section.key, len(items))})
    return views


def render_chart_sections(all_charts: dict[str, list[dict]], data: ReportData) -> str:
    return _render("charts.html", chart_sections=chart_sections_view(all_charts, data))


# ---- page --------------------------------------------------------------------------------------


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def plotly_js() -> str:
    """plotly.min.js of the installed ``plotly`` package, safe to inline."""
    try:
        from plotly.offline import get_plotlyjs
    except ImportError as e:  # pragma: no cover - the 'report' extra installs it
        raise RuntimeError("mqsmf report needs the plotly package: pip install 'mqsmf[report]'") from e
    return get_plotlyjs().replace("</script", "<\\/script")


def header_view(data: ReportData, all_charts: dict[str, list[dict]]) -> dict:
    """What the header says (templates/header.html)."""
    qm = data.queue_managers
    links = [("summary", "Summary"), ("data-quality", "Data quality"), ("advisories", "Advisories")] + [
        (s.key, f"{s.title} ({len(all_charts.get(s.key, []))})") for s in SECTIONS
    ]
    return {
        "first": fmt_time(qm["first_interval_start_at"].min()) if not qm.empty else "",
        "last": fmt_time(qm["last_interval_end_at"].max()) if not qm.empty else "",
        "queue_managers": len(qm),
        "qsgs": sorted(qm["qsg_name"].dropna().unique()) if not qm.empty else [],
        "by_severity": " · ".join(
            f"{int(pd.to_numeric(qm[s]).sum()) if not qm.empty else 0:,} {s}" for s in SEVERITIES
        ),
        "status": overall_status(data.dq_checks),
        "scope": data.scope,
        "marts_schema": data.marts_schema,
        "generated_at": fmt_time(data.generated_at),
        "links": links,
    }


def render_html(data: ReportData, include_plotly: bool = True) -> str:
    """The whole page. ``include_plotly=False`` leaves the 4.8 MB library out (unit tests)."""
    all_charts = charts(data)
    return _render(
        "page.html",
        css=Markup(_static("report.css")),  # the package's own files, inlined as they are
        js=Markup(_static("report.js")),
        plotly_js=Markup(plotly_js()) if include_plotly else None,
        specs=[{"id": c["id"], "figure": c["figure"]} for items in all_charts.values() for c in items],
        notes=data.notes,
        header=header_view(data, all_charts),
        summary=summary_view(data),
        quality=quality_view(data),
        advisories=advisories_view(data, all_charts),
        chart_sections=chart_sections_view(all_charts, data),
    )
