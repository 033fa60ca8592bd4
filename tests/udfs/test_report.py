"""``mqsmf report`` end to end: a generated pathology day (three queue managers of a QSG, MP16
pathologies injected on pools, logs, a CF structure and queues) is loaded and built by dbt, the gate
writes its results, the data step queries the marts, and the page is rendered in headless Chromium:
every chart is drawn with the advisory intervals of its object marked, and every advisory of the
mart is a row of the table and links to its object's chart; the data-quality section lists the
known data pitfalls the day plants, within the report's scope. Screenshots: target/report-screenshot.png
(top), target/report-screenshot-page_sets.png and -channel_initiators.png (views further down).

The build is the session's ``pathology_day`` (tests/udfs/conftest.py); Chromium runs twice (DOM,
screenshot).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from mqsmf.invariants import VIOLATIONS
from mqsmf.report import write_report
from mqsmf.report.charts import SECTIONS, charts
from mqsmf.report.data import Limits, ReportQueries, Scope, SparkRunner, collect, parse_time

from .conftest import GATE_CHECKS, INJECT, MARTS, PITFALLS, QUALITY
from .test_report_render import find, parse

pytestmark = pytest.mark.spark

PROJECT_DIR = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
KEY = ["rule_id", "qmgr_name", "object_type", "object_name", "interval_start_at"]


@pytest.fixture(scope="module")
def built(spark, pathology_day):
    runner = SparkRunner(spark)
    path = write_report(runner, pathology_day.work / "report", MARTS, QUALITY)
    advisories = spark.sql(
        f"select rule_id, severity, severity_rank, qmgr_name, qsg_name, object_type, object_name, "
        f"date_format(interval_start_at, \"yyyy-MM-dd'T'HH:mm:ss'Z'\") as interval_start_at "
        f"from {MARTS}.fct_mp16_advisories"
    ).toPandas()
    return SimpleNamespace(
        spark=spark, runner=runner, path=path, work=pathology_day.work, manifest=pathology_day.manifest,
        gate=pathology_day.gate, advisories=advisories, data=collect(runner, MARTS, QUALITY),
    )  # fmt: skip


def _keys(frame: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, frame[KEY].astype(str).to_numpy().tolist()))


def test_the_pathology_day_fires_its_injected_rules(built):
    fired = {(r.rule_id, r.qmgr_name) for r in built.advisories.itertuples()}
    assert {(t.split("@")[0], t.split("@")[1][:4]) for t in INJECT} <= fired


def test_the_table_lists_every_advisory_of_the_mart_worst_first(built):
    data = built.data
    assert data.advisories_total == len(built.advisories) > 0
    assert _keys(data.advisories) == _keys(built.advisories)
    ranks = list(data.advisories["severity_rank"])
    assert ranks == sorted(ranks, reverse=True)


def test_limits_are_applied_in_spark(built):
    small = collect(built.runner, MARTS, QUALITY, Limits(queues=2, buffer_pools=1, advisories=3))
    assert small.advisories_total == len(built.advisories) and len(small.advisories) == 3
    worst = built.advisories.sort_values("severity_rank", ascending=False)["severity_rank"].head(3)
    assert list(small.advisories["severity_rank"]) == list(worst)
    distinct = built.spark.sql(f"select count(distinct qmgr_name, queue_name) from {MARTS}.fct_queue_stats").first()[0]
    # Top queues per queue manager: two charts for each of the three queue managers.
    per_qmgr = small.queues.groupby("qmgr_name")["queue_name"].nunique().to_dict()
    assert per_qmgr == {"QM01": 2, "QM02": 2, "QM03": 2} and small.candidates["queues"] == distinct
    assert small.buffer_pools.groupby(["qmgr_name", "buffer_pool_id"]).ngroups == 1


def test_scope_by_queue_manager_qsg_and_time(built):
    one = collect(built.runner, MARTS, QUALITY, scope=Scope(qmgrs=("QM02",)))
    assert list(one.queue_managers["qmgr_name"]) == ["QM02"]
    assert (
        set(one.advisories["qmgr_name"]) == {"QM02"}
        and one.advisories_total == (built.advisories.qmgr_name == "QM02").sum()
    )
    for name in ("buffer_pools", "logs", "queues", "page_sets", "channel_initiators"):
        frame = getattr(one, name)
        assert set(frame["qmgr_name"]) == {"QM02"}, name
    assert set(one.cf_structures["qsg_name"]) == {"QSGA"}  # QM02's QSG
    qsg = collect(built.runner, MARTS, QUALITY, scope=Scope(qsgs=("QSGA",)))
    assert list(qsg.queue_managers["qmgr_name"]) == ["QM01", "QM02", "QM03"]
    # Time: the first two intervals of the day only.
    starts = sorted(set(built.data.queues["interval_start_at"]))
    end = parse_time(starts[2])
    early = collect(built.runner, MARTS, QUALITY, scope=Scope(end=end))
    assert set(early.queues["interval_start_at"]) == set(starts[:2])
    want = built.advisories[built.advisories.interval_start_at < starts[2]]
    assert _keys(early.advisories) == _keys(want)


def test_charted_objects_put_those_with_advisories_first_and_carry_exactly_their_advisories(built):
    data, adv = built.data, built.advisories
    got = charts(data)
    assert all(got[s.key] for s in SECTIONS), {k: len(v) for k, v in got.items()}
    # Pool 1 of QM02 had the critical BP01: the first pool chart; QM01's pool 1 (BP04) follows among the marked.
    pools = [(c["object"]["qmgr_name"], c["object"]["buffer_pool_id"]) for c in got["buffer_pools"]]
    assert pools[0] == ("QM02", "1") and ("QM01", "1") in pools[: adv[adv.object_type == "buffer_pool"].groupby(
        ["qmgr_name", "object_name"]).ngroups]  # fmt: skip
    scope = {"buffer_pools": "qmgr_name", "logs": "qmgr_name", "queues": "qmgr_name", "page_sets": "qmgr_name"}
    scope |= {"channel_initiators": "qmgr_name"}
    scope |= {"cf_structures": "qsg_name", "shared_queues": "qsg_name"}
    for section in SECTIONS:
        for c in got[section.key]:
            obj = c["object"]
            name = (
                obj.get("buffer_pool_id")
                or obj.get("page_set_id")
                or obj.get("structure_name")
                or obj.get("queue_name")
                or obj["qmgr_name"]
            )
            mine = adv[
                (adv.object_type == section.mark_type)
                & (adv[scope[section.key]] == obj[scope[section.key]])
                & (adv.object_name == name)
            ]
            marked = sorted((m["start"], r) for m in c["marks"] for r in m["rules"])
            assert marked == sorted(zip(mine.interval_start_at, mine.rule_id, strict=True)), (section.key, obj)
    assert any(c["marks"] for c in got["cf_structures"]) and any(c["marks"] for c in got["logs"])


def test_shared_queue_shares_add_up_to_the_qsg_rollup(built):
    data = built.data
    members = data.shared_queue_members.groupby(["qsg_name", "queue_name", "interval_start_at"])[
        ["msgs_in_per_second", "msgs_out_per_second"]
    ].sum()
    qsg = data.shared_queues.set_index(["qsg_name", "queue_name", "interval_start_at"])[
        ["msgs_in_per_second", "msgs_out_per_second"]
    ]
    joined = qsg.join(members, rsuffix="_members", how="left")
    assert len(joined) > 0
    for m in ("msgs_in_per_second", "msgs_out_per_second"):
        pd.testing.assert_series_equal(
            joined[m].fillna(0), joined[f"{m}_members"].fillna(0), check_names=False, rtol=1e-9
        )
    assert data.shared_queue_members["qmgr_name"].nunique() == 3


def test_summary_and_data_quality_come_from_the_marts_and_the_gate(built):
    data = built.data
    qm = data.queue_managers.set_index("qmgr_name")
    assert list(qm.index) == ["QM01", "QM02", "QM03"] and set(qm["qsg_name"]) == {"QSGA"}
    by_severity = built.advisories.groupby(["qmgr_name", "severity"]).size().unstack(fill_value=0)
    for qmgr in qm.index:
        for severity in ("critical", "warning", "info"):
            want = int(by_severity.loc[qmgr, severity]) if qmgr in by_severity.index and severity in by_severity else 0
            assert int(qm.loc[qmgr, severity]) == want
    assert sorted(data.dq_checks["check_name"]) == sorted(GATE_CHECKS)
    assert set(data.dq_checks["status"]) == {o.status for o in built.gate.outcomes}
    assert int(qm["dq_errors"].sum()) == sum(o.violations for o in built.gate.outcomes if o.check.severity == "error")


def _pitfalls(frame: pd.DataFrame) -> dict[tuple, int]:
    return {(r.qmgr_name, r.interval_date, r.check_name): int(r.rows_affected) for r in frame.itertuples()}


def test_data_quality_lists_the_planted_pitfalls_within_the_scope(built):
    """The known data pitfalls the day plants (conftest.PITFALLS: the DNS task's longest request
    carried over, APAR PH69352, in two intervals of QM03), as the gate's raw stage lists them: the
    report names each per queue manager, day and pitfall with its rows, and on the page; a scope
    without that queue manager or that day lists none, a range holding one of the two intervals
    lists that one."""
    planted, starts = Counter(), []
    for v in built.manifest["violations"]:
        (check,) = VIOLATIONS[v["check"]].breaks
        assert VIOLATIONS[v["check"]].pitfall, v["check"]
        planted[(v["qmgr"], v["interval_start"][:10], check)] += 1
        starts.append(v["interval_start"])
    assert len(starts) == len(PITFALLS)
    assert _pitfalls(built.data.dq_pitfalls) == dict(planted)
    ((qmgr, day, check),) = planted
    table = re.search(r'<table id="dq-pitfalls">.*?</table>', built.path.read_text(encoding="utf-8"), re.S)
    assert table and f"<td>{day}</td><td>{qmgr}</td><td>{check.removeprefix('pitfall_')}</td>" in table.group(0)

    def listed(scope: Scope) -> dict[tuple, int]:
        return _pitfalls(built.runner.sql(ReportQueries(MARTS, Limits(), True, scope).dq_pitfalls(QUALITY)))

    others = tuple(sorted(set(built.data.queue_managers.qmgr_name) - {qmgr}))
    assert others and listed(Scope(qmgrs=others)) == {}
    assert listed(Scope(start=parse_time(day, end=True))) == listed(Scope(end=parse_time(day))) == {}
    assert listed(Scope(qsgs=("QSGA",), start=parse_time(day), end=parse_time(day, end=True))) == dict(planted)
    first, second = sorted(starts)
    assert listed(Scope(qmgrs=(qmgr,), start=parse_time(second))) == {(qmgr, day, check): 1}
    # A scoped report (collect) applies it: the range ends where the second planted interval starts.
    early = collect(built.runner, MARTS, QUALITY, scope=Scope(start=parse_time(first), end=parse_time(second)))
    assert _pitfalls(early.dq_pitfalls) == {(qmgr, day, check): 1}
    # The queue manager table counts the gate's rows in the same range. The planted rows are the
    # day's only warnings (the gate's other checks find nothing on a generated day).
    assert sum(o.violations for o in built.gate.outcomes if o.check.severity == "warn") == len(PITFALLS)
    whole = built.data.queue_managers.set_index("qmgr_name")["dq_warnings"]
    scoped = early.queue_managers.set_index("qmgr_name")["dq_warnings"]
    assert (whole[qmgr], whole.sum(), scoped[qmgr], scoped.sum()) == (len(PITFALLS), len(PITFALLS), 1, 1)


def _chromium(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", f"--user-data-dir={tmp}", "--virtual-time-budget=15000", *args,
        ],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip


def _classes(node: dict) -> set[str]:
    return set(node["attrs"].get("class", "").split())


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package chromium; .ci/setup installs it)"
)
def test_report_renders_in_headless_chromium_with_charts_and_advisory_rows(built, tmp_path):
    url = built.path.as_uri()
    done = _chromium(["--dump-dom", url], tmp_path / "dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = parse(done.stdout)
    got = charts(built.data)
    for section in SECTIONS:
        node = find(dom, lambda n, k=section.key: n["tag"] == "section" and n["attrs"].get("id") == k)[0]
        divs = find(node, lambda n: "chart" in _classes(n) and n["tag"] == "div")
        assert len(divs) == len(got[section.key]) > 0
        for div, spec in zip(divs, got[section.key], strict=True):
            # Plotly drew it: its class, its SVG, one line per panel series.
            assert "js-plotly-plot" in _classes(div), (section.key, spec["object"])
            assert find(div, lambda n: n["tag"] == "svg" and "main-svg" in _classes(n))
            assert len(find(div, lambda n: "trace" in _classes(n) and "scatter" in _classes(n))) >= len(
                [t for t in spec["figure"]["data"] if t["type"] == "scatter"]
            )
            labels = {n["text"] for n in find(div, lambda n: "annotation-text" in _classes(n))}
            shapes = find(div, lambda n: "shapelayer" in _classes(n))
            assert len([p for s in shapes for p in find(s, lambda n: n["tag"] == "path")]) == len(spec["marks"])
            assert {" ".join(m["rules"]) for m in spec["marks"]} <= labels
    table = find(dom, lambda n: n["attrs"].get("id") == "advisory-table")[0]
    rows = find(table, lambda n: n["tag"] == "tr" and "advisory" in _classes(n))
    headers = [th["text"] for th in find(table, lambda n: n["tag"] == "th" and "data-col" in n["attrs"])]
    seen = []
    for row in rows:
        cells = dict(zip(headers, [c for c in row["children"] if c["tag"] == "td"], strict=True))
        seen.append(
            (
                cells["Rule"]["text"], cells["Queue manager"]["text"], cells["Object type"]["text"],
                cells["Object"]["text"], cells["Interval start (UTC)"]["attrs"]["data-sort"],
            )
        )  # fmt: skip
    assert sorted(seen) == _keys(built.advisories)
    # Each advisory row of a charted object links to that object's chart, which exists on the page.
    ids = {n["attrs"]["id"] for n in find(dom, lambda n: "id" in n["attrs"])}
    hrefs = [a["attrs"]["href"] for r in rows for a in find(r, lambda n: n["tag"] == "a")]
    assert hrefs and {h[1:] for h in hrefs} <= ids
    charted = {(c["section"], *c["object"].values()) for items in got.values() for c in items}
    where = {"buffer_pool": "buffer_pools", "log": "logs", "cf_structure": "cf_structures", "page_set": "page_sets"}
    expected = 0
    for r in built.data.advisories.itertuples():
        if r.object_type == "queue":
            expected += ("queues", r.qmgr_name, r.object_name) in charted or (
                "shared_queues", r.qsg_name, r.object_name) in charted  # fmt: skip
        elif r.object_type == "cf_structure":
            expected += ("cf_structures", r.qsg_name, r.object_name) in charted
        elif r.object_type == "log":
            expected += ("logs", r.qmgr_name) in charted
        elif r.object_type in where:
            expected += (where[r.object_type], r.qmgr_name, r.object_name) in charted
    assert len(hrefs) == expected > 0
    count = find(dom, lambda n: n["attrs"].get("id") == "advisory-count")[0]["text"]
    assert count == f"{len(rows)} of {len(rows)}"  # the table script ran

    screenshot = PROJECT_DIR / "target" / "report-screenshot.png"
    screenshot.parent.mkdir(exist_ok=True)
    screenshot.unlink(missing_ok=True)
    shot = _chromium(
        ["--hide-scrollbars", f"--screenshot={screenshot}", "--window-size=1400,3000", url], tmp_path / "s"
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 50_000
    # The new views further down: a copy of the page showing only that section (headless Chromium
    # captures the top of the page, also when the URL names an anchor).
    page = built.path.read_text(encoding="utf-8")
    for section in ("page_sets", "channel_initiators"):
        only = tmp_path / f"{section}.html"
        style = f"<style>main>section:not(#{section}),main>p.note{{display:none}}</style></head>"
        only.write_text(page.replace("</head>", style, 1), encoding="utf-8")
        lower = PROJECT_DIR / "target" / f"report-screenshot-{section}.png"
        lower.unlink(missing_ok=True)
        shot = _chromium(
            ["--hide-scrollbars", f"--screenshot={lower}", "--window-size=1400,1400", only.as_uri()],
            tmp_path / f"s-{section}",
        )
        assert shot.returncode == 0, shot.stderr[-2000:]
        assert lower.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and lower.stat().st_size > 50_000


def test_report_page_is_self_contained(built):
    page = built.path.read_text(encoding="utf-8")
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "<script></script>", page, flags=re.S)
    # No external script, style sheet, image or link: only the page's own anchors.
    assert not re.search(r"""(src|href)\s*=(?!\s*["']?#)""", markup)
    assert 'href="#advisories"' in markup
    assert page.count("plotly.js v") == 1 and markup.count("<script>") == 3
