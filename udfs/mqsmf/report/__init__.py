"""``mqsmf report``: a static HTML report of the marts for analysts (issue #8).

Two steps: ``data.collect`` queries the warehouse with Spark SQL into a small ``ReportData`` (the
top objects' time series, the advisories, the data-quality results), and ``render.render_html``
turns that into one page that opens from disk (Plotly bundled inline, no server, no internet),
through the Jinja2 templates in ``templates/`` (autoescape on: the engine escapes every name).
This module imports neither Spark, Plotly nor Jinja2 until a report is written.
"""

from __future__ import annotations

from pathlib import Path

REPORT_FILE = "index.html"


def write_report(runner, out_dir, marts_schema: str, quality_schema: str, limits=None, scope=None) -> Path:
    """Query the warehouse through ``runner`` (``data.SparkRunner`` / ``data.ThriftRunner``) and
    write ``<out_dir>/index.html``; returns its absolute path. ``scope`` (``data.Scope``) limits it
    to a time range and to queue managers or QSGs."""
    from .data import collect
    from .render import render_html

    data = collect(runner, marts_schema, quality_schema, limits, scope)
    out = Path(out_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    path = out / REPORT_FILE
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(render_html(data), encoding="utf-8")
    tmp.replace(path)  # a reader never sees half a report
    return path


def write_local_report(
    spark, project_dir, out_dir=None, marts_schema=None, quality_schema=None, limits=None, scope=None
) -> Path:
    """The report of the local warehouse (the session of the dbt ``local`` target); by default in
    ``<project>/target/report``."""
    from .data import SparkRunner

    marts, quality = default_schemas(marts_schema, quality_schema)
    out = Path(out_dir) if out_dir else Path(project_dir) / "target" / "report"
    return write_report(SparkRunner(spark), out, marts, quality, limits, scope)


def default_schemas(marts_schema: str | None = None, quality_schema: str | None = None) -> tuple[str, str]:
    """The dbt marts schema (<MQSMF_SCHEMA or mqsmf>_marts) and the gate's schema, unless given."""
    from .. import warehouse

    return marts_schema or warehouse.marts_schema(), quality_schema or warehouse.QUALITY_SCHEMA
