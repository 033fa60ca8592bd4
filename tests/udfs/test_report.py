"""``mqsmf report`` end to end: a generated pathology day (three queue managers of a QSG, MP16
pathologies injected on pools, logs, a CF structure and queues) is loaded and built by dbt, the gate
writes its results, the data step queries the marts, and the page is rendered in headless Chromium:
every chart is drawn with the advisory intervals of its object marked, and every advisory of the
mart is a row of the table. A screenshot is saved as target/report-screenshot.png.

One module-scoped build; Chromium runs twice (DOM, screenshot).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from mqsmf.generate import ScenarioConfig, Target, buffer_pool_roles, generate_scenario, write_scenario
from mqsmf.report import write_report
from mqsmf.report.charts import SECTIONS, charts
from mqsmf.report.data import Limits, SparkRunner, collect

from .test_report_render import find, parse

pytestmark = pytest.mark.spark

PROJECT_DIR = Path(__file__).resolve().parents[2]
TARGET_SCHEMA = "report_test"
MARTS = f"{TARGET_SCHEMA}_marts"
RAW = "report_raw"
QUALITY = "report_quality"
INJECT = ("BP01@QM02:1#1", "BP04@QM01:1#3", "LOG01@QM02#2", "CF01@QM03:APPL1#4", "Q03@QM01#5", "Q04@QM02#6")
DAY = dict(seed=11, qmgrs=3, lpars=2, queues=12, intervals=8, versions=("9.3.3", "9.4.3", "10.0.0"))
GATE_CHECKS = ("structure_eyecatcher", "interval_length_plausible", "duplicate_record")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
KEY = ["rule_id", "qmgr_name", "object_type", "object_name", "interval_start_at"]


@pytest.fixture(scope="module")
def built(spark, dbt, tmp_path_factory):
    from mqsmf.quality.gate import run_gate

    work = tmp_path_factory.mktemp("report")
    day = work / "pathology_day.dat"
    config = ScenarioConfig(**DAY, inject=tuple(Target.parse(t) for t in INJECT))
    manifest = write_scenario(generate_scenario(config, keep_truth=False), str(day))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MQSMF_SCHEMA", TARGET_SCHEMA)
        dbt_vars = {"smf_paths": [str(day)], "raw_schema": RAW, "mp16_buffer_pool_roles": buffer_pool_roles(manifest)}
        result = dbt("build", "--threads", "4", "--vars", json.dumps(dbt_vars))
    failed = [f"{r.node.unique_id}: {r.status}" for r in result.result if r.status not in ("success", "pass")]
    assert result.success, failed
    gate = run_gate(spark, "raw", schemas={"raw": RAW}, quality_schema=QUALITY, docs_dir=None, checks=GATE_CHECKS)
    runner = SparkRunner(spark)
    path = write_report(runner, work / "report", MARTS, QUALITY)
    advisories = spark.sql(
        f"select rule_id, severity, severity_rank, qmgr_name, qsg_name, object_type, object_name, "
        f"date_format(interval_start_at, \"yyyy-MM-dd'T'HH:mm:ss'Z'\") as interval_start_at "
        f"from {MARTS}.fct_mp16_advisories"
    ).toPandas()
    return SimpleNamespace(
        spark=spark, runner=runner, path=path, work=work, manifest=manifest, gate=gate, advisories=advisories,
        data=collect(runner, MARTS, QUALITY),
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
    assert small.queues.groupby(["qmgr_name", "queue_name"]).ngroups == 2 and small.candidates["queues"] == distinct
    assert small.buffer_pools.groupby(["qmgr_name", "buffer_pool_id"]).ngroups == 1


def test_charted_objects_put_those_with_advisories_first_and_carry_exactly_their_advisories(built):
    data, adv = built.data, built.advisories
    got = charts(data)
    assert all(got[s.key] for s in SECTIONS), {k: len(v) for k, v in got.items()}
    # Pool 1 of QM02 had the critical BP01: the first pool chart; QM01's pool 1 (BP04) follows among the marked.
    pools = [(c["object"]["qmgr_name"], c["object"]["buffer_pool_id"]) for c in got["buffer_pools"]]
    assert pools[0] == ("QM02", "1") and ("QM01", "1") in pools[: adv[adv.object_type == "buffer_pool"].groupby(
        ["qmgr_name", "object_name"]).ngroups]  # fmt: skip
    scope = {"buffer_pools": "qmgr_name", "logs": "qmgr_name", "queues": "qmgr_name"}
    scope |= {"cf_structures": "qsg_name", "shared_queues": "qsg_name"}
    for section in SECTIONS:
        for c in got[section.key]:
            obj = c["object"]
            name = obj.get("buffer_pool_id") or obj.get("structure_name") or obj.get("queue_name") or obj["qmgr_name"]
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


def test_report_page_is_self_contained(built):
    page = built.path.read_text(encoding="utf-8")
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "<script></script>", page, flags=re.S)
    # No external script, style sheet, image or link: only the page's own anchors.
    assert not re.search(r"""(src|href)\s*=(?!\s*["']?#)""", markup)
    assert 'href="#advisories"' in markup
    assert page.count("plotly.js v") == 1 and markup.count("<script>") == 3
