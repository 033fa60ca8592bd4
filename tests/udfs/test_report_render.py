"""The report's renderer on hand-made data (no Spark): escaping of every name from the data, the
advisory table rows, the chart specs and the advisory intervals they mark, the data-quality status,
the QSG summary, and a page without external assets."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import pandas as pd
import pytest

from mqsmf.report.charts import SECTION_BY_KEY, SEVERITY_COLOURS, charts, marks_for
from mqsmf.report.model import COLUMNS, ReportData
from mqsmf.report.render import overall_status, render_html, script_json, stage_status

EVIL = "</script><script>alert('x')</script>&<b>Q\"1"  # no MQ name can hold this; the renderer must not care
T = [f"2025-06-02T{h:02d}:{m:02d}:00Z" for h in range(0, 3) for m in (0, 30)]  # six 30-minute intervals


def _end(start: str) -> str:
    i = T.index(start)
    return T[i + 1] if i + 1 < len(T) else "2025-06-02T03:00:00Z"


def _advisory(rule, severity, qmgr, object_type, object_name, start, observed, comparison, threshold, unit, qsg="QSGA"):
    rank = {"critical": 3, "warning": 2, "info": 1}[severity]
    return dict(
        severity=severity, severity_rank=rank, rule_id=rule, qmgr_name=qmgr, qsg_name=qsg, object_type=object_type,
        object_name=object_name, interval_start_at=start, interval_end_at=_end(start), observed_value=observed,
        comparison=comparison, threshold_value=threshold, threshold_unit=unit, threshold_source="MP16",
        recommended_action=f"act on {object_name}", mp16_reference="MP16 2.1 l.100",
        message=f"{rule} {severity} on {qmgr} {object_name}",
    )  # fmt: skip


ADVISORIES = [
    _advisory("BP04", "warning", "QM01", "buffer_pool", "1", T[2], 8.5, "<", 10.0, "percent"),
    _advisory("BP01", "critical", "QM01", "buffer_pool", "1", T[2], 2.0, "<", 5.0, "percent"),
    _advisory("BP02", "info", "QM02", "buffer_pool", "1", T[3], 40.0, ">", 30.0, "pages/s"),
    _advisory("LOG01", "warning", "QM02", "log", "QM02", T[1], 150.0, ">", 100.0, "MB/s"),
    _advisory("Q03", "warning", "QM01", "queue", EVIL, T[4], 900.0, ">=", 600.0, "seconds"),
    _advisory("CF01", "critical", "QM02", "cf_structure", "APPL1", T[3], 12.0, ">", 10.0, "percent"),
    _advisory("PS03", "warning", "QM01", "page_set", "1", T[5], 91.0, ">", 90.0, "percent"),
    _advisory("Q01", "info", "QM09", "queue", "NOT.CHARTED", T[0], 1.0, ">", 0.0, "messages", qsg=None),
]


def _series(name: str, objects: list[dict], ranks: list[int] | None = None) -> pd.DataFrame:
    rows = []
    for rank, keys in zip(ranks or range(1, len(objects) + 1), objects, strict=True):
        for i, t in enumerate(T):
            row = {c: float(i + rank) for c in COLUMNS[name]}
            row.update(keys, chart_rank=rank, interval_start_at=t)
            rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS[name]))


@pytest.fixture(scope="module")
def data() -> ReportData:
    advisories = pd.DataFrame(ADVISORIES, columns=list(COLUMNS["advisories"]))
    members = []
    for qmgr, share in (("QM01", 0.25), ("QM02", 0.75)):
        for t in T:
            members.append(
                dict(qsg_name="QSGA", queue_name="QSG.PAYMENTS", qmgr_name=qmgr, interval_start_at=t,
                     msgs_in_per_second=10 * share, msgs_out_per_second=9 * share, depth_high=5.0)
            )  # fmt: skip
    return ReportData(
        generated_at="2026-11-22T08:00:00Z",
        marts_schema="mqsmf_marts",
        quality_schema="mqsmf_quality",
        queue_managers=pd.DataFrame(
            [
                dict(
                    qsg_name="QSGA",
                    qmgr_name="QM01",
                    system_id="SYSA",
                    mq_versions="9.3.3,9.4.0",
                    first_interval_start_at=T[0],
                    last_interval_end_at="2025-06-02T03:00:00Z",
                    statistics_intervals=6,
                    critical=1,
                    warning=2,
                    info=0,
                    dq_errors=3,
                    dq_warnings=0,
                ),
                dict(
                    qsg_name="QSGA",
                    qmgr_name="QM02",
                    system_id="SYSB",
                    mq_versions="10.0.0,10.0.0",
                    first_interval_start_at=T[0],
                    last_interval_end_at="2025-06-02T03:00:00Z",
                    statistics_intervals=6,
                    critical=1,
                    warning=1,
                    info=1,
                    dq_errors=0,
                    dq_warnings=2,
                ),
                dict(
                    qsg_name=None,
                    qmgr_name="QM09",
                    system_id="SYSC",
                    mq_versions="9.4.3,9.4.3",
                    first_interval_start_at=T[1],
                    last_interval_end_at="2025-06-02T02:00:00Z",
                    statistics_intervals=3,
                    critical=0,
                    warning=0,
                    info=0,
                    dq_errors=0,
                    dq_warnings=0,
                ),
            ]
        ),  # fmt: skip
        dq_checks=pd.DataFrame(
            [
                dict(
                    stage="raw",
                    checked_at=T[5],
                    check_name="qqst_nmag_le_flgt",
                    severity="error",
                    status="failed",
                    violations=3,
                    rule=f"QQSTNMAG <= QQSTFLGT {EVIL}",
                ),
                dict(
                    stage="raw",
                    checked_at=T[5],
                    check_name="interval_gap",
                    severity="warn",
                    status="passed",
                    violations=0,
                    rule="no gap",
                ),
                dict(
                    stage="marts",
                    checked_at=T[5],
                    check_name="qsg_queue_rollup_puts",
                    severity="warn",
                    status="failed",
                    violations=2,
                    rule="roll-up",
                ),
            ]
        ),  # fmt: skip
        advisories=advisories,
        advisories_total=len(advisories) + 4,  # the table shows the worst rows of more
        marks=advisories[list(COLUMNS["marks"])],
        buffer_pools=_series(
            "buffer_pools", [{"qmgr_name": "QM01", "buffer_pool_id": 1}, {"qmgr_name": "QM02", "buffer_pool_id": 1}]
        ),
        logs=_series("logs", [{"qmgr_name": "QM02"}, {"qmgr_name": "QM01"}]),
        cf_structures=_series("cf_structures", [{"qsg_name": "QSGA", "structure_name": "APPL1"}]),
        queues=_series(
            "queues",
            [
                {"qmgr_name": "QM02", "queue_name": "A"},  # rank 1 on QM02
                {"qmgr_name": "QM01", "queue_name": EVIL},  # rank 1 on QM01 (ranks are per queue manager)
                {"qmgr_name": "QM01", "queue_name": "B"},
            ],
            ranks=[1, 1, 2],
        ),
        page_sets=_series(
            "page_sets", [{"qmgr_name": "QM02", "page_set_id": 3}, {"qmgr_name": "QM01", "page_set_id": 1}]
        ),
        channel_initiators=_series("channel_initiators", [{"qmgr_name": "QM01"}]),
        shared_queues=_series("shared_queues", [{"qsg_name": "QSGA", "queue_name": "QSG.PAYMENTS"}]),
        shared_queue_members=pd.DataFrame(members),
        candidates={"queues": 40, "buffer_pools": 2},
    )


@pytest.fixture(scope="module")
def page(data) -> str:
    return render_html(data, include_plotly=False)


class Dom(HTMLParser):
    """Just enough of a DOM: elements with attributes, their text and their children."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = {"tag": "root", "attrs": {}, "children": [], "text": ""}
        self.stack = [self.root]

    VOID = {"meta", "input", "br", "link", "img"}

    def handle_starttag(self, tag, attrs):
        node = {"tag": tag, "attrs": dict(attrs), "children": [], "text": ""}
        self.stack[-1]["children"].append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                return

    def handle_data(self, text):
        for node in self.stack[1:]:
            node["text"] += text


def parse(page: str) -> dict:
    dom = Dom()
    dom.feed(page)
    return dom.root


def find(node: dict, pred) -> list[dict]:
    out = [node] if pred(node) else []
    for child in node["children"]:
        out.extend(find(child, pred))
    return out


def test_names_from_the_data_are_escaped_in_markup_and_in_script_json(data, page):
    assert EVIL not in page
    assert "alert('x')</script>" not in page and "<b>Q" not in page
    # The only script elements are the page's own (the JSON block and the table/chart code).
    assert page.count("<script") == page.count("</script>") == 2
    assert html.escape(EVIL, quote=True) in page  # the advisory table and the chart section show it, escaped
    block = re.search(r'<script type="application/json" id="mqsmf-charts">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block and ">" not in block and "&" not in block
    specs = json.loads(block)
    titles = [s["figure"]["layout"]["title"]["text"] for s in specs]
    # Escaped once more for Plotly, which decodes entities in its labels: the chart shows the name as is.
    assert f"Queue {html.escape(EVIL)} on QM01" in titles


def test_the_templates_have_autoescape_on_and_escape_every_value(data):
    from dataclasses import replace

    from markupsafe import Markup

    from mqsmf.report.render import environment

    env = environment()
    names = env.list_templates()
    assert {"page.html", "_macros.html"} <= set(names)
    assert all(env.get_template(name).new_context().eval_ctx.autoescape for name in names)
    # A macro's output is markup (autoescape), the values it was given are text.
    badge = env.get_template("_macros.html").module.badge('<i class="x">', "<b>X")
    assert isinstance(badge, Markup)
    assert str(badge) == '<span class="badge &lt;i class=&quot;x&quot;&gt;">&lt;b&gt;X</span>'
    # Through the page: markup in the scope, a note and the schema shows as text; the page's own
    # markup around it (the header's status badge, from the macro) stays markup.
    markup = "<b>X</b>"
    page = render_html(replace(data, scope=markup, notes=[markup], marts_schema=markup), include_plotly=False)
    assert markup not in page
    assert page.count(html.escape(markup)) == 4  # scope, note, header's marts, the advisories' mart
    root = parse(page)
    header = find(root, lambda n: n["tag"] == "header")[0]
    assert "scope: <b>X</b>" in header["text"] and "marts <b>X</b>" in header["text"]
    assert [b["text"] for b in find(header, lambda n: n["attrs"].get("class") == "badge failed")] == ["failed"]
    assert not find(root, lambda n: n["tag"] == "b")


def test_script_json_round_trips_and_cannot_close_a_script():
    value = {"name": "</script><!-- \u2028 & >", "n": [1, None, 2.5]}
    text = script_json(value)
    assert "</" not in text and "<!--" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_the_advisory_table_lists_every_row_with_its_values(data, page):
    root = parse(page)
    table = find(root, lambda n: n["attrs"].get("id") == "advisory-table")[0]
    rows = find(table, lambda n: n["tag"] == "tr" and n["attrs"].get("class") == "advisory")
    assert len(rows) == len(ADVISORIES)
    headers = [th["text"] for th in find(table, lambda n: n["tag"] == "th" and "data-col" in n["attrs"])]
    got = []
    for row in rows:
        cells = dict(zip(headers, [td for td in row["children"] if td["tag"] == "td"], strict=True))
        got.append(
            (
                cells["Rule"]["text"],
                cells["Queue manager"]["text"],
                cells["Object"]["text"],
                cells["Interval start (UTC)"]["attrs"]["data-sort"],
                cells["Observed"]["attrs"]["data-sort"],
                cells["Threshold"]["text"],
                cells["Severity"]["attrs"]["data-sort"],
            )
        )
        assert row["attrs"]["title"].startswith(cells["Rule"]["text"])
    want = [
        (a["rule_id"], a["qmgr_name"], a["object_name"], a["interval_start_at"], repr(a["observed_value"]),
         f"{a['comparison']} {a['threshold_value']:g} {a['threshold_unit']}", str(a["severity_rank"]))
        for a in ADVISORIES
    ]  # fmt: skip
    assert got == want
    # Filters: a select for severity, rule and object type; a text box for each other column.
    selects = find(table, lambda n: n["tag"] == "select")
    assert len(selects) == 3
    rule_options = [o["attrs"]["value"] for o in find(selects[1], lambda n: n["tag"] == "option")]
    assert rule_options == ["", *sorted(a["rule_id"].lower() for a in ADVISORIES)]
    # The last column links to the chart: no filter.
    assert len(find(table, lambda n: n["tag"] == "input")) == len(headers) - 4 and headers[-1] == "Chart"
    assert f"{len(ADVISORIES)} most severe of {len(ADVISORIES) + 4}" in page


def test_charts_follow_the_data_steps_order_and_mark_each_objects_advisory_intervals(data):
    got = charts(data)
    assert [c["object"] for c in got["buffer_pools"]] == [
        {"qmgr_name": "QM01", "buffer_pool_id": "1"},
        {"qmgr_name": "QM02", "buffer_pool_id": "1"},
    ]
    assert [c["object"]["qmgr_name"] for c in got["logs"]] == ["QM02", "QM01"]
    pool = got["buffer_pools"][0]
    # BP01 (critical) and BP04 (warning) fired in the same interval: one mark, the worst colour, both rules.
    assert [(m["start"], m["end"], m["severity"], m["rules"]) for m in pool["marks"]] == [
        (T[2], T[3], "critical", ["BP01", "BP04"])
    ]
    layout = pool["figure"]["layout"]
    assert [(s["x0"], s["x1"], s["fillcolor"]) for s in layout["shapes"]] == [
        (T[2], T[3], SEVERITY_COLOURS["critical"])
    ]
    labels = [a for a in layout["annotations"] if a.get("name") == "advisory"]
    assert [a["text"] for a in labels] == ["BP01 BP04"]
    assert "observed 2 &lt; 5 percent" in labels[0]["hovertext"]
    # QM02's pool 1 has only its own BP02, QM01's log nothing, QM02's log LOG01.
    assert [m["rules"] for m in got["buffer_pools"][1]["marks"]] == [["BP02"]]
    assert [(c["object"]["qmgr_name"], [m["rules"] for m in c["marks"]]) for c in got["logs"]] == [
        ("QM02", [["LOG01"]]),
        ("QM01", []),
    ]
    # The CF structure chart (QSG grain) carries the advisory a queue manager raised on it.
    assert [m["rules"] for m in got["cf_structures"][0]["marks"]] == [["CF01"]]
    assert [m["start"] for m in got["queues"][0]["marks"]] == [T[4]] and not got["queues"][1]["marks"]


def test_chart_panels_hold_the_sections_metrics_in_stacked_axes(data):
    got = charts(data)
    for key, items in got.items():
        section = SECTION_BY_KEY[key]
        for c in items:
            fig = c["figure"]
            axes = sorted(k for k in fig["layout"] if k.startswith("yaxis"))
            assert len(axes) == len(section.panels)
            domains = [fig["layout"][a]["domain"] for a in ["yaxis", *[f"yaxis{i}" for i in range(2, len(axes) + 1)]]]
            assert all(hi > lo for lo, hi in domains) and all(
                a[0] > b[1] for a, b in zip(domains, domains[1:], strict=False)
            )
            lines = [t for t in fig["data"] if t["type"] == "scatter" and "legendgroup" not in t]
            assert [t["name"] for t in lines] == [html.escape(ln.label) for p in section.panels for ln in p.lines]
            assert all(len(t["x"]) == len(T) for t in lines)
    queue = got["queues"][0]["figure"]["data"]
    assert queue[0]["y"] == [float(i + 1) for i in range(len(T))]  # msgs_in_per_second of chart rank 1


def test_shared_queue_chart_shows_each_queue_managers_share_next_to_the_qsg(data):
    fig = charts(data)["shared_queues"][0]["figure"]
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert sorted({(t["name"], t["yaxis"]) for t in bars}) == [
        ("QM01", "y"),
        ("QM01", "y2"),
        ("QM02", "y"),
        ("QM02", "y2"),
    ]
    qm02_puts = next(t for t in bars if t["name"] == "QM02" and t["yaxis"] == "y")
    assert qm02_puts["y"] == [7.5] * len(T)
    assert fig["layout"]["barmode"] == "stack"
    assert [t["name"] for t in fig["data"] if t["yaxis"] == "y" and t["type"] == "scatter"] == ["QSG puts/s"]


def test_each_advisory_row_links_to_the_chart_of_its_object(data, page):
    root = parse(page)
    table = find(root, lambda n: n["attrs"].get("id") == "advisory-table")[0]
    links = {}
    for row in find(table, lambda n: n["tag"] == "tr" and n["attrs"].get("class") == "advisory"):
        cells = [td for td in row["children"] if td["tag"] == "td"]
        anchors = find(cells[-1], lambda n: n["tag"] == "a")
        links[(cells[1]["text"], cells[5]["text"])] = anchors[0]["attrs"]["href"] if anchors else None
    got = charts(data)

    def chart_id(section: str, **obj) -> str:
        (hit,) = [c["id"] for c in got[section] if all(c["object"][k] == v for k, v in obj.items())]
        return "#" + hit

    assert links == {
        ("BP04", "1"): chart_id("buffer_pools", qmgr_name="QM01", buffer_pool_id="1"),
        ("BP01", "1"): chart_id("buffer_pools", qmgr_name="QM01", buffer_pool_id="1"),
        ("BP02", "1"): chart_id("buffer_pools", qmgr_name="QM02", buffer_pool_id="1"),
        ("LOG01", "QM02"): chart_id("logs", qmgr_name="QM02"),
        ("Q03", EVIL): chart_id("queues", qmgr_name="QM01", queue_name=EVIL),  # its queue manager's chart
        ("CF01", "APPL1"): chart_id("cf_structures", qsg_name="QSGA", structure_name="APPL1"),
        ("PS03", "1"): chart_id("page_sets", qmgr_name="QM01", page_set_id="1"),
        ("Q01", "NOT.CHARTED"): None,  # not charted: no link
    }
    # Every link lands on an element of the page.
    ids = {n["attrs"].get("id") for n in find(root, lambda n: "id" in n["attrs"])}
    assert {h[1:] for h in links.values() if h} <= ids


def test_queue_and_page_set_charts_are_listed_per_queue_manager(data, page):
    got = charts(data)
    assert [(c["group"], c["object"]["queue_name"]) for c in got["queues"]] == [
        ("QM01", EVIL),
        ("QM01", "B"),
        ("QM02", "A"),
    ]
    assert [(c["group"], c["object"]["page_set_id"]) for c in got["page_sets"]] == [("QM01", "1"), ("QM02", "3")]
    section = find(parse(page), lambda n: n["tag"] == "section" and n["attrs"].get("id") == "queues")[0]
    assert [h["text"] for h in find(section, lambda n: n["tag"] == "h3")] == [
        "Queue manager QM01",
        "Queue manager QM02",
    ]
    # The page set chart: used vs total pages, % used, expansions; PS03 shades its interval.
    ps = got["page_sets"][0]
    assert [t["name"] for t in ps["figure"]["data"]] == ["used", "total", "used %", "expansions", "full (QIS1FULL)"]
    assert [(m["start"], m["rules"]) for m in ps["marks"]] == [(T[5], ["PS03"])]
    chin = got["channel_initiators"][0]["figure"]
    assert chin["layout"]["title"]["text"] == "Channel initiator of QM01"
    assert {t["name"] for t in chin["data"]} >= {"dispatchers", "adapters", "MAXCHL"}
    pool = got["buffer_pools"][0]["figure"]
    assert "hit ratio %" in [t["name"] for t in pool["data"]]


def test_the_header_names_the_scope(data):
    from dataclasses import replace

    scoped = render_html(replace(data, scope="QSG QSGA"), include_plotly=False)
    assert "scope: QSG QSGA" in scoped
    assert "scope: everything in the marts" in render_html(data, include_plotly=False)


def test_marks_match_on_the_objects_scope(data):
    section = SECTION_BY_KEY["queues"]
    # Same queue name on another queue manager: not this chart's advisory.
    assert marks_for(section, {"qmgr_name": "QM02", "queue_name": EVIL}, data.marks) == []
    shared = SECTION_BY_KEY["shared_queues"]
    assert [m["rules"] for m in marks_for(shared, {"qsg_name": "QSGA", "queue_name": EVIL}, data.marks)] == [["Q03"]]


def test_data_quality_status_per_stage(data):
    assert stage_status(data.dq_checks, "raw") == "failed"
    assert stage_status(data.dq_checks, "marts") == "warnings"
    assert overall_status(data.dq_checks) == "failed"
    assert overall_status(None) == "not-run"
    passed = data.dq_checks.assign(status="passed")
    assert stage_status(passed, "raw") == "passed" and overall_status(passed) == "passed"
    assert stage_status(passed[passed["stage"] == "raw"], "marts") == "not-run"


def test_summary_groups_queue_managers_by_qsg_with_totals(page):
    root = parse(page)
    summary = find(root, lambda n: n["attrs"].get("id") == "summary")[0]
    assert [h["attrs"]["data-qsg"] for h in find(summary, lambda n: n["tag"] == "h3")] == ["", "QSGA"]
    total = find(summary, lambda n: n["attrs"].get("class") == "qsg-total")[0]
    cells = [td["text"] for td in total["children"]]
    assert cells[0] == "QSGA (2 queue managers)"
    assert cells[2] == "9.3.3, 9.4.0, 10.0.0"  # versions sorted numerically
    assert cells[5:] == ["12", "3", "2", "2", "3", "1"]  # intervals, DQ errors, DQ warnings, critical, warning, info
    failed = find(root, lambda n: n["attrs"].get("id") == "dq-failed")[0]
    assert [r["children"][2]["text"] for r in find(failed, lambda n: n["tag"] == "tr")[1:]] == [
        "qqst_nmag_le_flgt",
        "qsg_queue_rollup_puts",
    ]


def test_page_has_every_section_and_no_external_asset(data, page):
    root = parse(page)
    ids = {n["attrs"].get("id") for n in find(root, lambda n: n["tag"] == "section")}
    assert ids == {"summary", "data-quality", "advisories", *SECTION_BY_KEY}
    assert not find(root, lambda n: n["tag"] in ("link", "img", "iframe") or "src" in n["attrs"])
    assert not re.search(r"https?://", page)
    divs = find(root, lambda n: n["attrs"].get("class") == "chart")
    assert len(divs) == sum(len(v) for v in charts(data).values())
    assert "3 of 40: per queue manager: queues with advisories first" in page


def test_page_with_plotly_inlines_the_library_once(data):
    page = render_html(data)
    assert page.count("plotly.js v") == 1 and len(page) > 3_000_000
    assert page.count("</script>") == 3


def test_report_data_refuses_frames_without_their_columns():
    with pytest.raises(ValueError, match="'logs' lacks columns"):
        ReportData(generated_at="x", marts_schema="m", logs=pd.DataFrame({"qmgr_name": ["QM01"]}))


def test_the_data_step_names_the_marts_it_lacks():
    from mqsmf.report.data import collect

    class OnlyDimensions:
        def tables(self, schema):
            return {"dim_queue_manager"} if schema == "x_marts" else set()

        def sql(self, query):
            raise AssertionError("no query runs without the marts")

    with pytest.raises(RuntimeError, match=r"x_marts lacks fct_buffer_pool_stats, .*run dbt build"):
        collect(OnlyDimensions(), "x_marts", "x_quality")


def test_data_quality_lists_the_pitfalls_found_per_queue_manager_and_day(data):
    from dataclasses import replace

    from mqsmf.report.render import render_quality

    assert "dq-pitfalls" not in render_quality(data)  # none found: no table
    found = pd.DataFrame(
        [
            dict(qmgr_name="QM02", interval_date="2025-06-02", check_name="pitfall_qpst_lowest_stealable_never_set",
                 rows_affected=15),
            dict(qmgr_name=EVIL, interval_date="2025-06-03", check_name="pitfall_qct_dns_longest_request_carried_over",
                 rows_affected=2),
        ]
    )  # fmt: skip
    html = render_quality(replace(data, dq_pitfalls=found))
    table = html[html.index('id="dq-pitfalls"') :]
    assert "<td>2025-06-02</td><td>QM02</td><td>qpst_lowest_stealable_never_set</td>" in table
    assert EVIL not in table and "qct_dns_longest_request_carried_over" in table
