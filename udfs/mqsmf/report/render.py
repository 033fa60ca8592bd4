"""ReportData -> one static HTML page that opens from disk: no server, no internet.

Plotly.js (from the ``plotly`` package) is inlined once; the chart specs travel as one JSON block;
the advisory table is plain HTML rows that a few lines of JavaScript sort and filter. Every string
that comes from the data is escaped: ``html.escape`` in the markup, ``\\u003c``-style escapes in the
JSON inside ``<script>`` (so no name can close the script), and escaped again for Plotly's own
HTML-like labels (``charts``).
"""

from __future__ import annotations

import html
import json
import math
from importlib import resources

import pandas as pd

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


def esc(value) -> str:
    """Text for HTML content or a quoted attribute; NULL/NaN -> empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(str(value), quote=True)


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


def _count_cell(value) -> str:
    n = int(_number(value) or 0)
    return f'<td class="num{" zero" if n == 0 else ""}">{n:,}</td>'


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


def _badge(kind: str, text: str | None = None) -> str:
    return f'<span class="badge {esc(kind)}">{esc(text if text is not None else STATUS_TEXT.get(kind, kind))}</span>'


def render_quality(data: ReportData) -> str:
    parts = ['<section id="data-quality"><h2>Data quality</h2>']
    if data.dq_checks is None:
        parts.append(
            '<p class="how">The data-quality gate has not written its results '
            f"({esc(data.quality_schema or QUALITY_SCHEMA)}.dq_check_results): run <code>mqsmf check</code>.</p>"
        )
        return "".join(parts) + "</section>"
    parts.append('<p class="how">Latest run of the data-quality gate (<code>mqsmf check</code>) per stage.</p>')
    parts.append("<table><thead><tr><th>Stage</th><th>Status</th><th>Checks</th><th>Failed (error)</th>")
    parts.append("<th>Failed (warn)</th><th>Violating rows</th><th>Checked at (UTC)</th></tr></thead><tbody>")
    for stage in STAGES:
        rows = data.dq_checks[data.dq_checks["stage"] == stage]
        failed = rows[rows["status"] == "failed"]
        checked = rows["checked_at"].max() if not rows.empty else ""
        parts.append(
            f"<tr><td>{esc(stage)}</td><td>{_badge(stage_status(data.dq_checks, stage))}</td>"
            f'<td class="num">{len(rows):,}</td>{_count_cell((failed["severity"] == "error").sum())}'
            f"{_count_cell((failed['severity'] == 'warn').sum())}{_count_cell(pd.to_numeric(rows['violations']).sum())}"
            f'<td class="time">{esc(fmt_time(checked))}</td></tr>'
        )
    parts.append("</tbody></table>")
    failed = data.dq_checks[data.dq_checks["status"] == "failed"]
    if not failed.empty:
        parts.append('<h3>Failed checks</h3><table id="dq-failed"><thead><tr><th>Stage</th><th>Severity</th>')
        parts.append("<th>Check</th><th>Violating rows</th><th>Rule</th></tr></thead><tbody>")
        order = failed.assign(_e=failed["severity"] != "error").sort_values(["_e", "stage", "check_name"])
        for r in order.itertuples():
            kind = "critical" if r.severity == "error" else "warning"
            parts.append(
                f"<tr><td>{esc(r.stage)}</td><td>{_badge(kind, r.severity)}</td><td>{esc(r.check_name)}</td>"
                f'{_count_cell(r.violations)}<td class="long">{esc(r.rule)}</td></tr>'
            )
        parts.append("</tbody></table>")
        parts.append(f'<p class="note">Every violating row is listed in {esc(data.quality_schema)}.dq_violations.</p>')
    if not data.dq_pitfalls.empty:
        parts.append('<h3>Known data pitfalls found</h3><p class="how">Values MQ writes that mean something else '
                     "than they seem (seed <code>data_pitfalls</code>: what each is and what the models do about it), "
                     "per queue manager and day.</p>")  # fmt: skip
        parts.append('<table id="dq-pitfalls"><thead><tr><th>Day</th><th>Queue manager</th><th>Pitfall</th>')
        parts.append("<th>Rows</th></tr></thead><tbody>")
        for r in data.dq_pitfalls.itertuples():
            parts.append(
                f"<tr><td>{esc(r.interval_date)}</td><td>{esc(r.qmgr_name)}</td>"
                f"<td>{esc(r.check_name.removeprefix('pitfall_'))}</td>{_count_cell(r.rows_affected)}</tr>"
            )
        parts.append("</tbody></table>")
    return "".join(parts) + "</section>"


# ---- summary -----------------------------------------------------------------------------------


def _versions(values) -> str:
    seen: list[str] = []
    for v in values:
        for part in str(v or "").split(","):
            part = part.strip()
            if part and part not in seen:
                seen.append(part)
    return ", ".join(sorted(seen, key=lambda s: tuple(int(p) if p.isdigit() else 0 for p in s.split("."))))


def render_summary(data: ReportData) -> str:
    qm = data.queue_managers.copy()
    parts = ['<section id="summary"><h2>Summary per queue-sharing group and queue manager</h2>']
    parts.append(
        '<p class="how">Time range of the statistics, MQ versions, data-quality violations (gate rows per queue '
        "manager: errors / warnings) and MP16 advisories by severity.</p>"
    )
    if qm.empty:
        parts.append("<p>No queue manager statistics in the marts.</p></section>")
        return "".join(parts)
    qm["_qsg"] = qm["qsg_name"].fillna("")
    header = (
        '<table class="summary"><thead><tr><th>Queue manager</th><th>System</th><th>MQ versions</th>'
        "<th>First interval (UTC)</th><th>Last interval end (UTC)</th><th>Intervals</th>"
        "<th>DQ errors</th><th>DQ warnings</th><th>Critical</th><th>Warning</th><th>Info</th></tr></thead><tbody>"
    )
    for qsg, group in qm.sort_values(["_qsg", "qmgr_name"]).groupby("_qsg", sort=True):
        name = f"Queue-sharing group {esc(qsg)}" if qsg else "Queue managers outside a queue-sharing group"
        parts.append(f'<h3 class="qsg" data-qsg="{esc(qsg)}">{name}</h3>{header}')
        for r in group.itertuples():
            parts.append(
                f'<tr data-qmgr="{esc(r.qmgr_name)}"><td>{esc(r.qmgr_name)}</td><td>{esc(r.system_id)}</td>'
                f'<td>{esc(_versions([r.mq_versions]))}</td><td class="time">{esc(fmt_time(r.first_interval_start_at))}</td>'
                f'<td class="time">{esc(fmt_time(r.last_interval_end_at))}</td>{_count_cell(r.statistics_intervals)}'
                f"{_count_cell(r.dq_errors)}{_count_cell(r.dq_warnings)}"
                + "".join(_count_cell(getattr(r, s)) for s in SEVERITIES)
                + "</tr>"
            )
        if qsg:
            parts.append(
                f'<tr class="qsg-total"><td>{esc(qsg)} ({len(group)} queue managers)</td><td></td>'
                f"<td>{esc(_versions(group['mq_versions']))}</td>"
                f'<td class="time">{esc(fmt_time(group["first_interval_start_at"].min()))}</td>'
                f'<td class="time">{esc(fmt_time(group["last_interval_end_at"].max()))}</td>'
                + "".join(
                    _count_cell(pd.to_numeric(group[c]).sum())
                    for c in ("statistics_intervals", "dq_errors", "dq_warnings", *SEVERITIES)
                )
                + "</tr>"
            )
        parts.append("</tbody></table>")
    return "".join(parts) + "</section>"


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


def _advisory_cell(row, column: str | None, kind: str, index: dict[tuple, str] | None = None) -> str:
    if kind == "chart":
        target = chart_of(row, index or {})
        return f'<td><a class="to-chart" href="#{esc(target)}">chart</a></td>' if target else "<td></td>"
    value = getattr(row, column)
    if kind == "severity":
        return f'<td data-sort="{int(_number(row.severity_rank) or 0)}">{_badge(str(value), str(value))}</td>'
    if kind == "num":
        n = _number(value)
        return f'<td class="num" data-sort="{"" if n is None else repr(n)}">{esc(fmt_number(value))}</td>'
    if kind == "threshold":
        n = _number(value)
        text = " ".join(p for p in (row.comparison or "", fmt_number(value), row.threshold_unit or "") if p)
        return f'<td class="num" data-sort="{"" if n is None else repr(n)}">{esc(text)}</td>'
    if kind == "time":
        return f'<td class="time" data-sort="{esc(value)}">{esc(fmt_time(value))}</td>'
    if kind == "long":  # clamped to a few lines; the whole text on hover
        return f'<td class="long"><div class="clamp" title="{esc(value)}">{esc(value)}</div></td>'
    return f"<td>{esc(value)}</td>"


def render_advisories(data: ReportData, all_charts: dict[str, list[dict]] | None = None) -> str:
    adv = data.advisories
    parts = ['<section id="advisories"><h2>MP16 advisories</h2>']
    shown = len(adv)
    how = (
        "Every firing of an MP16 rule: observed value against the threshold in force, the recommended action "
        "and the MP16 source. Click a column to sort; type or choose in the second row to filter; "
        "'chart' jumps to the object's chart with the advisory's interval shaded."
    )
    if data.advisories_total > shown:
        how += (
            f" The {shown:,} most severe of {data.advisories_total:,} advisories are listed; all are in "
            f"{esc(data.marts_schema)}.fct_mp16_advisories."
        )
    parts.append(f'<p class="how">{how} Showing <span id="advisory-count">{shown:,} of {shown:,}</span>.</p>')
    if adv.empty:
        parts.append("<p>No advisory fired.</p></section>")
        return "".join(parts)
    parts.append('<div class="table-wrap"><table id="advisory-table"><thead><tr>')
    for i, (title, _column, kind) in enumerate(ADVISORY_COLUMNS):
        typ = "num" if kind in ("num", "threshold", "severity") else "text"
        parts.append(f'<th data-col="{i}" data-type="{typ}">{esc(title)}</th>')
    parts.append('</tr><tr class="filters">')
    for i, (title, column, _kind) in enumerate(ADVISORY_COLUMNS):
        if column is None:
            parts.append("<th></th>")
        elif column in SELECT_FILTERS:
            values = sorted(adv[column].dropna().unique())
            if column == "severity":
                values = [v for v in SEVERITIES if v in values] + [v for v in values if v not in SEVERITIES]
            options = "".join(f'<option value="{esc(str(v).lower())}">{esc(v)}</option>' for v in values)
            parts.append(
                f'<th><select data-filter-col="{i}" aria-label="filter {esc(title)}">'
                f'<option value="">all</option>{options}</select></th>'
            )
        else:
            parts.append(
                f'<th><input data-filter-col="{i}" placeholder="filter" aria-label="filter {esc(title)}"></th>'
            )
    parts.append("</tr></thead><tbody>")
    index = chart_index(all_charts or {})
    for row in adv.itertuples():
        cells = "".join(_advisory_cell(row, column, kind, index) for _title, column, kind in ADVISORY_COLUMNS)
        parts.append(f'<tr class="advisory" title="{esc(row.message)}">{cells}</tr>')
    parts.append("</tbody></table></div></section>")
    return "".join(parts)


# ---- charts ------------------------------------------------------------------------------------


def render_chart_sections(all_charts: dict[str, list[dict]], data: ReportData) -> str:
    parts = []
    for section in SECTIONS:
        items = all_charts.get(section.key, [])
        total = data.candidates.get(section.key, len(items))
        parts.append(f'<section id="{section.key}" class="chart-section"><h2>{esc(section.title)}</h2>')
        chosen = f"{len(items):,} of {total:,}: {section.chosen}." if total > len(items) else f"All {len(items):,}."
        parts.append(
            f'<p class="how">{esc(chosen)} Times in UTC. Shaded intervals: an MP16 advisory fired for the object '
            "(red critical, orange warning, blue info); hover the rule ids for the observed value and threshold.</p>"
        )
        if not items:
            parts.append("<p>No data.</p>")
        group = None
        parts.append('<div class="charts">')
        for c in items:
            if section.group_by and c["group"] != group:
                group = c["group"]
                parts.append(f'</div><h3 class="chart-group">Queue manager {esc(group)}</h3><div class="charts">')
            parts.append(f'<div class="chart" id="{esc(c["id"])}" data-marks="{len(c["marks"])}"></div>')
        parts.append("</div></section>")
    return "".join(parts)


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


def _header(data: ReportData, all_charts: dict[str, list[dict]]) -> str:
    qm = data.queue_managers
    first = fmt_time(qm["first_interval_start_at"].min()) if not qm.empty else ""
    last = fmt_time(qm["last_interval_end_at"].max()) if not qm.empty else ""
    qsgs = sorted(qm["qsg_name"].dropna().unique()) if not qm.empty else []
    by_severity = " · ".join(f"{int(pd.to_numeric(qm[s]).sum()) if not qm.empty else 0:,} {s}" for s in SEVERITIES)
    facts = [
        f"{esc(first)} – {esc(last)} UTC" if first else "no statistics",
        f"{len(qm):,} queue managers" + (f" in {', '.join(esc(q) for q in qsgs)}" if qsgs else ""),
        f"advisories: {esc(by_severity)}",
        f"data quality: {_badge(overall_status(data.dq_checks))}",
        f"scope: {esc(data.scope)}" if data.scope else "scope: everything in the marts",
        f"marts {esc(data.marts_schema)}",
        f"generated {esc(fmt_time(data.generated_at))} UTC",
    ]
    links = [("summary", "Summary"), ("data-quality", "Data quality"), ("advisories", "Advisories")] + [
        (s.key, f"{s.title} ({len(all_charts.get(s.key, []))})") for s in SECTIONS
    ]
    nav = "".join(f'<a href="#{k}">{esc(t)}</a>' for k, t in links)
    return (
        "<header><h1>IBM MQ for z/OS: statistics report</h1>"
        f'<div class="facts">{" &nbsp;|&nbsp; ".join(facts)}</div></header><nav>{nav}</nav>'
    )


def render_html(data: ReportData, include_plotly: bool = True) -> str:
    """The whole page. ``include_plotly=False`` leaves the 4.8 MB library out (unit tests)."""
    all_charts = charts(data)
    specs = [{"id": c["id"], "figure": c["figure"]} for items in all_charts.values() for c in items]
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in data.notes)
    body = (
        _header(data, all_charts)
        + "<main>"
        + notes
        + render_summary(data)
        + render_quality(data)
        + render_advisories(data, all_charts)
        + render_chart_sections(all_charts, data)
        + "</main>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>MQ statistics report</title>"
        f"<style>{_static('report.css')}</style></head><body>{body}"
        f'<script type="application/json" id="mqsmf-charts">{script_json(specs)}</script>'
        + (f"<script>{plotly_js()}</script>" if include_plotly else "")
        + f"<script>{_static('report.js')}</script></body></html>\n"
    )
