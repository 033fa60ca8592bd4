"""--inject: each supported MP16 rule crosses its documented threshold on exactly the chosen queue
manager, object and interval, seen in the DECODED file, and a clean scenario crosses none.

The rules are evaluated by mqsmf.generate.mp16_oracle on the decoder's tables; the manifest's
``expected_firings`` (computed from the truth) must equal what the decoded data say."""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from mqsmf.generate import (
    SUPPORTED_RULES,
    ScenarioConfig,
    Target,
    generate_scenario,
    plan_scenario,
    site_config_vars,
    write_scenario,
)
from mqsmf.generate.mp16_oracle import (
    LOG_DASD_RATES_SEED,
    LOG_REF_SLOWEST,
    ORACLE_COLUMNS,
    SEED,
    evaluate,
    log10_expected_bytes,
    log_reference_rates,
    log_truth_of,
    roles_of,
    rule_parameters,
    seed_path,
    site_of,
)
from mqsmf.generate.pathology import bp13_buffers, rule_window

from .test_generate import decode, interval_no, num

FIRING_KEY = ("rule_id", "severity", "qmgr", "object_type", "object_name", "interval")


def firings_of_file(scenario, path) -> list[dict]:
    tables, report = decode(path)
    assert not report.quarantine
    cfg = scenario.config
    return evaluate(
        {k: tables[k] for k in ORACLE_COLUMNS},
        roles_of(scenario.topology),
        cfg.start_us,
        cfg.interval_seconds,
        log_truth=log_truth_of(scenario),
        site=site_of(scenario),
    )


def keys(firings) -> set[tuple]:
    return {tuple(f[k] for k in FIRING_KEY) for f in firings}


def test_clean_scenarios_cross_no_rule(tmp_path):
    for cfg in (ScenarioConfig(), ScenarioConfig(seed=42, qmgrs=3, queues=90, intervals=5, lpars=2)):
        sc = plan_scenario(cfg)
        path = tmp_path / f"clean{cfg.seed}.dat"
        write_scenario(sc, str(path))
        assert firings_of_file(sc, path) == []
        assert sc.manifest["expected_firings"] == []


def test_clean_log_volume_is_safe_for_any_reference_dasd(tmp_path):
    """LOG02 stays under half of every reference rate from ESS E20 ESCON on; LOG03 stays above 4
    million log records per checkpoint; messages stay far younger than two checkpoint intervals."""
    sc = plan_scenario(ScenarioConfig(seed=8, intervals=6, queues=20))
    path = tmp_path / "log.dat"
    write_scenario(sc, str(path))
    tables, _ = decode(path)
    j, m = tables["QJST"], tables["QMST"]
    assert j.column("qmgr").to_pylist() == m.column("qmgr").to_pylist()
    mbps = num(j, "QJSTBFFL") * 4096 / j.column("interval_seconds").to_numpy() / 2**20
    size = num(m, "QMSTPBP") / num(m, "QMSTSPP")
    for rate, avg in zip(mbps, size, strict=True):
        column = min(LOG_REF_SLOWEST, key=lambda c: abs(c - avg))
        assert rate / LOG_REF_SLOWEST[column] < 0.5
    records = num(j, "QJSTWRW") + num(j, "QJSTWRNW") + num(j, "QJSTWRF")
    ckpt = num(j, "QJSTLLCP")
    assert (ckpt <= 1).all() and ckpt.sum() > 0
    assert (records[ckpt > 0] / ckpt[ckpt > 0] > 4_500_000).all()
    assert num(tables["QQST"], "QQSTMAGE").max() <= 30


def _only(rule: str, **kw) -> ScenarioConfig:
    base = dict(
        seed=sum(map(ord, rule)),
        qmgrs=3,
        lpars=2,
        queues=18,
        intervals=4,
        versions=("9.3.3", "9.4.3", "10.0.0"),
        inject=(Target.parse(rule),),
    )
    return ScenarioConfig(**{**base, **kw})


# CF16 fills a structure with the deleted messages every member's batch delete table holds: the
# generated 683 MB application structures need four members to do so with messages an entry holds.
ONLY_QMGRS = {"CF16": 4}


@pytest.mark.parametrize("rule", SUPPORTED_RULES)
def test_each_rule_fires_exactly_where_injected(rule, tmp_path):
    sc = plan_scenario(_only(rule, qmgrs=ONLY_QMGRS.get(rule, 3)))
    path = tmp_path / f"{rule}.dat"
    manifest = write_scenario(sc, str(path))
    (inj,) = manifest["injected"]
    assert (
        inj["rule_id"] == rule and inj["interval_start"] == manifest["time_range"]["interval_starts"][inj["interval"]]
    )
    decoded = firings_of_file(sc, path)
    assert keys(decoded) == keys(manifest["expected_firings"])  # the manifest is what the file says
    mine = [f for f in decoded if f["rule_id"] == rule]
    assert [(f["qmgr"], f["object_name"], f["interval"]) for f in mine] == [
        (inj["qmgr"], inj["object_name"], inj["interval"])
    ]
    assert mine[0]["severity"] == inj["severity"]
    value = inj["details"]["value"]
    assert isinstance(value, (int, float)) and not math.isnan(value)
    # Consequences (a full pool also starts the deferred write processor ...) stay on the same
    # queue manager, object and interval; CF17's pathology is the whole QSG's (LOG02 on every member,
    # and SUP04: its log volume drives a checkpoint every LOGLOAD records, many an hour).
    for f in decoded:
        member_log02 = rule == "CF17" and f["rule_id"] in ("LOG02", "SUP04")
        assert f["interval"] == inj["interval"] and (f["qmgr"] == inj["qmgr"] or member_log02), f
        if f["object_type"] == inj["object_type"]:
            assert f["object_name"] == inj["object_name"], f


CONFIGURATION_RULES = (
    "BP12",
    "CF06",
    "CF08",
    "CF15",
    "CF16",
    "LOG12",
    "LOG13",
    "LOG15",
    "Q09",
    "CHIN02",
    "CHIN07",
    "CHIN10",
)


def test_configuration_rules_need_the_site_settings(tmp_path):
    """BP12, CF06, CF08, CF15, CF16, LOG12, LOG13, LOG15, Q09, CHIN02, CHIN07 and CHIN10 judge what
    SMF does not record (production or not, structure limits, SIZE and CFLEVEL, recovery targets and
    backup intervals, unstriped logs, IMS bridge queues, the processors and MAXPROCUSER of an LPAR,
    a channel initiator's user id):
    with the settings the generated site declares they fire where injected; without them the
    oracle, like the advisories, says nothing. BP14 judges its checkpoint burst at the page set
    write rate the site declares (a third of MP16's default: warning), else at MP16's default
    (the same burst is then info). site_config_vars turns the settings into dbt vars."""
    sc = plan_scenario(_only("CF06", qmgrs=4, inject=tuple(Target(r) for r in (*CONFIGURATION_RULES, "BP14"))))
    path = tmp_path / "site.dat"
    manifest = write_scenario(sc, str(path))
    tables, _ = decode(path)
    cfg = sc.config
    args = ({k: tables[k] for k in ORACLE_COLUMNS}, roles_of(sc.topology), cfg.start_us, cfg.interval_seconds)
    unconfigured = evaluate(*args, log_truth=log_truth_of(sc))
    assert not {f["rule_id"] for f in unconfigured} & set(CONFIGURATION_RULES)
    configured = {(f["rule_id"], f["qmgr"], f["object_name"], f["interval"]) for f in firings_of_file(sc, path)}
    injected = {(i["rule_id"], i["qmgr"], i["object_name"], i["interval"]) for i in manifest["injected"]}
    assert len(injected) == len(CONFIGURATION_RULES) + 1 and injected <= configured
    (bp14,) = [i for i in manifest["injected"] if i["rule_id"] == "BP14"]
    at_default = [f for f in unconfigured if f["rule_id"] == "BP14"]
    assert bp14["severity"] == "warning" and [(f["qmgr"], f["object_name"], f["severity"]) for f in at_default] == [
        (bp14["qmgr"], bp14["object_name"], "info")
    ]
    variables = site_config_vars(manifest)
    (q09,) = [i for i in manifest["injected"] if i["rule_id"] == "Q09"]
    assert variables["mp16_queue_config"] == [
        {"qmgr_name": q09["qmgr"], "queue_name": q09["object_name"], "is_ims_bridge": True}
    ]
    admin = [r for r in variables["mp16_cf_structure_config"] if r["structure_name"] == "CSQ_ADMIN"]
    assert admin == [
        {
            "qsg_name": manifest["qsg"],
            "structure_name": "CSQ_ADMIN",
            "entries_max": 40_000,
            "elements_max": 120_000,
            "size_mb": 39.0625,  # 160,000 elements and entries of 256 bytes
        }
    ]
    (log12,) = [i for i in manifest["injected"] if i["rule_id"] == "LOG12"]
    (cf16,) = [i for i in manifest["injected"] if i["rule_id"] == "CF16"]
    assert variables["mp16_cf_structure_config"][-2] == {
        "qsg_name": manifest["qsg"],
        "structure_name": cf16["object_name"],
        "cf_level": 4,
    }
    # Backed up every 30-minute interval; the target reads back 30 minutes of 1.5 x half ESS E20
    # ESCON's 5.3 MB/s at MP16's 56 MB/s backwards: 30 x 3.975 / 56.
    assert variables["mp16_cf_structure_config"][-1] == {
        "qsg_name": manifest["qsg"],
        "structure_name": log12["object_name"],
        "recovery_target_minutes": pytest.approx(30 * 3.975 / 56, abs=1e-3),
        "backup_interval_minutes": 30.0,
    }
    (bp12,) = [i for i in manifest["injected"] if i["rule_id"] == "BP12"]
    (log13,) = [i for i in manifest["injected"] if i["rule_id"] == "LOG13"]
    (log15,) = [i for i in manifest["injected"] if i["rule_id"] == "LOG15"]
    (chin10,) = [i for i in manifest["injected"] if i["rule_id"] == "CHIN10"]
    assert variables["mp16_queue_manager_config"] == [
        {"qmgr_name": bp12["qmgr"], "is_production": True},
        {"qmgr_name": bp14["qmgr"], "page_set_write_mb_per_sec": 100.0},  # MP16's 300 MB/s default / 3
        # Formula A at 1.5 x half ESS E20 ESCON's 5.3 MB/s, reading at MP16's 105 MB/s, backed up every
        # 30-minute interval: a restart target of 1800 x 3.975 / 105 / 60 minutes.
        {
            "qmgr_name": log13["qmgr"],
            "restart_target_minutes": pytest.approx(1800 * 3.975 / 105 / 60, abs=1e-3),
            "page_set_backup_hours": 0.5,
        },
        {"qmgr_name": log15["qmgr"], "is_log_striped": False},
        {"qmgr_name": chin10["qmgr"], "chin_user_id": f"{chin10['qmgr']}CHIN"},
    ]
    # CHIN02 and CHIN07: the processors of their LPARs, one above CHIN02's base_processors.
    systems = {q["name"]: q["system_id"] for q in manifest["qmgrs"]}
    chin = {systems[i["qmgr"]] for i in manifest["injected"] if i["rule_id"] in ("CHIN02", "CHIN07")}
    processors = int(rule_parameters()["CHIN02"]["base_processors"]) + 1
    declared = sorted((r for r in variables["mp16_system_config"] if "processors" in r), key=lambda r: r["system_id"])
    assert declared == [{"system_id": s, "processors": processors} for s in sorted(chin)]
    # CHIN10: MAXPROCUSER of its LPAR at z/OS's default.
    limits = [r for r in variables["mp16_system_config"] if "max_proc_user" in r]
    assert limits == [{"system_id": systems[chin10["qmgr"]], "max_proc_user": 25}]


def test_chin09_divides_by_the_declared_epvt_else_by_mp16s_planning_value(tmp_path):
    """CHIN09 judges QCCTSTUS (MB, as CSQX004I reports it) against the EPVT size its injection
    declares for the channel initiator (site_config_vars); without the declaration the oracle, like
    the advisories, divides by MP16's planning value (the rule's parameter in the seed), under which
    the injected storage is no pathology; the planning value still judges a channel initiator whose
    storage nears it."""
    sc = plan_scenario(_only("CHIN09"))
    path = tmp_path / "chin09.dat"
    manifest = write_scenario(sc, str(path))
    (inj,) = manifest["injected"]
    epvt_mb = 1024  # what the injection declares (pathology.CHIN09_SITE_EPVT_MB)
    assert site_config_vars(manifest)["mp16_queue_manager_config"] == [
        {"qmgr_name": inj["qmgr"], "chin_epvt_mb": epvt_mb}
    ]
    chin09 = [f for f in firings_of_file(sc, path) if f["rule_id"] == "CHIN09"]
    assert [(f["qmgr"], f["interval"], f["severity"]) for f in chin09] == [(inj["qmgr"], inj["interval"], "warning")]
    tables, _ = decode(path)
    qcct = tables["QCCT"]
    used = np.asarray(num(qcct, "QCCTSTUS"))
    row = int(np.argmax(used))
    p = rule_parameters()["CHIN09"]
    assert p["warning"] <= 100 * used[row] / epvt_mb < p["critical"]
    assert 100 * used[row] / p["planning_epvt_mb"] < p["warning"]
    cfg = sc.config
    others = {k: tables[k] for k in ORACLE_COLUMNS}
    args = (roles_of(sc.topology), cfg.start_us, cfg.interval_seconds)
    assert not [f for f in evaluate(others, *args, log_truth=log_truth_of(sc)) if f["rule_id"] == "CHIN09"]
    # Near MP16's planning EPVT with none declared: critical.
    used[row] = math.ceil((p["critical"] + 1) / 100 * p["planning_epvt_mb"])
    others["QCCT"] = qcct.set_column(
        qcct.schema.get_field_index("QCCTSTUS"), "QCCTSTUS", pa.array(used, type=qcct.schema.field("QCCTSTUS").type)
    )
    (f,) = [f for f in evaluate(others, *args, log_truth=log_truth_of(sc)) if f["rule_id"] == "CHIN09"]
    assert (f["qmgr"], f["severity"]) == (str(qcct.column("qmgr")[row]), "critical")


def test_injections_can_be_placed_explicitly():
    targets = ("BP04@QM02:1#2", "Q07@QM03:A#3", "CF03@QM01:APPL2#1", "Q01@QM01:APP.TMP.ROGUE#0")
    sc = generate_scenario(_only("LOG01", inject=tuple(Target.parse(t) for t in targets)))
    got = [(i["rule_id"], i["qmgr"], i["object_name"], i["interval"]) for i in sc.manifest["injected"]]
    assert got == [
        ("BP04", "QM02", "1", 2),
        ("Q07", "QM03", "A", 3),
        ("CF03", "QM01", "APPL2", 1),
        ("Q01", "QM01", "APP.TMP.ROGUE", 0),
    ]


def test_thresholds_come_from_the_seed(tmp_path, monkeypatch):
    """The oracle and the injection targets read each threshold from seeds/mp16_rules.csv: a
    catalogue with other BP13 and Q03 thresholds moves both, and the injections still fire."""
    (tmp_path / "seeds").mkdir()
    (tmp_path / LOG_DASD_RATES_SEED).write_bytes(seed_path(LOG_DASD_RATES_SEED).read_bytes())
    with open(seed_path(), newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    changed = {("BP13", "info_threshold"): "80000", ("Q03", "warning_threshold"): "4"}
    for row in rows:
        for (rule, column), value in changed.items():
            if row["rule_id"] == rule:
                row[column] = value
    with open(tmp_path / SEED, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    monkeypatch.setenv("MQSMF_PROJECT_DIR", str(tmp_path))
    rule_parameters.cache_clear()
    log_reference_rates.cache_clear()
    try:
        assert bp13_buffers() == 96_000 and rule_window("Q03") == (4, 1)
        (bp13,) = generate_scenario(_only("BP13")).manifest["injected"]
        assert bp13["details"] == {"value": 96_000, "threshold": "LONG pool below the bar, QPSTNBUF > 80000"}
        sc = generate_scenario(_only("Q03", intervals=6))
        (q03,) = sc.manifest["injected"]
        assert "four intervals" in q03["how"]
        fired = [f for f in sc.manifest["expected_firings"] if f["rule_id"] == "Q03"]
        assert [(f["object_name"], f["interval"]) for f in fired] == [(q03["object_name"], q03["interval"])]
        assert q03["interval"] >= 4  # four rises: the third alone no longer fires
    finally:
        rule_parameters.cache_clear()
        log_reference_rates.cache_clear()


def test_every_rule_at_once(tmp_path):
    cfg = ScenarioConfig(seed=1, intervals=8, queues=24, inject=tuple(Target(r) for r in SUPPORTED_RULES))
    sc = plan_scenario(cfg)
    path = tmp_path / "all.dat"
    manifest = write_scenario(sc, str(path))
    decoded = firings_of_file(sc, path)
    assert keys(decoded) == keys(manifest["expected_firings"])
    fired = {(f["rule_id"], f["qmgr"], f["object_name"], f["interval"]) for f in decoded}
    for inj in manifest["injected"]:
        assert (inj["rule_id"], inj["qmgr"], inj["object_name"], inj["interval"]) in fired
    # no two injections share a queue manager, object and interval (a queue manager's log and its Db2
    # manager are two objects of the same name)
    placed = [(i["qmgr"], i["object_type"], i["object_name"], i["interval"]) for i in manifest["injected"]]
    assert len(placed) == len(set(placed))


def test_oracle_log10_expects_mp16s_worked_examples():
    """LOG10's expected log bytes are MP16's own figures ("How can we estimate the required log data
    rate for a system?"): a 1,000-byte persistent message put and got logs ~2,300 bytes, a 10,000-byte
    one ~11,750; a channel batch of one persistent message 2.5 KB on the sender, 3.7 KB at 50 messages a
    batch, 1.3 KB on the receiver; batches of non-persistent messages (NPMSPEED(FAST)) and SVRCONN
    traffic nothing; gets beyond the puts ~500 bytes each."""
    assert log10_expected_bytes(1, 1_000, 1) == pytest.approx(2_300)
    assert log10_expected_bytes(10, 100_000, 10) == pytest.approx(117_500)
    assert log10_expected_bytes(0, 0, 40) == pytest.approx(40 * 500)
    sender, receiver, svrconn = 1, 3, 7
    one_a_batch = [(sender, 10, 10, 10), (receiver, 10, 10, 10)]
    assert log10_expected_bytes(0, 0, 0, one_a_batch) == pytest.approx(10 * 2_500 + 10 * 1_300)
    assert log10_expected_bytes(0, 0, 0, [(sender, 500, 500, 10)]) == pytest.approx(10 * 3_700)
    assert log10_expected_bytes(0, 0, 0, [(sender, 500, 0, 10), (svrconn, 500, 500, 0)]) == 0
    assert log10_expected_bytes(0, 0, 0, [(sender, 500, 3, 10)]) == pytest.approx(3 * 3_700)


def test_injected_values_are_coherent_with_the_rest_of_the_record(tmp_path):
    """LOG02's burst is real traffic (QQST puts and gets, QMST persistent bytes); BP01's overflow
    is read back from the page set (QPSTRIO, QIS1 reads) in the same interval."""
    sc = plan_scenario(
        ScenarioConfig(
            seed=4,
            qmgrs=3,
            queues=20,
            intervals=3,
            versions=("9.3.3", "10.0.0"),
            inject=(Target("LOG02"), Target("BP01")),
        )
    )
    path = tmp_path / "co.dat"
    write_scenario(sc, str(path))
    tables, _ = decode(path)
    log2 = next(i for i in sc.manifest["injected"] if i["rule_id"] == "LOG02")
    q, m = tables["QQST"], tables["QMST"]
    k = interval_no(q, sc.config)
    sel = (np.array(q.column("qmgr").to_pylist()) == log2["qmgr"]) & (k == log2["interval"])
    burst_puts = num(q, "QQSTPPT")[sel].max()
    assert burst_puts > 40_000_000 and num(q, "QQSTPDG")[sel].max() > 40_000_000
    mk = interval_no(m, sc.config)
    msel = (np.array(m.column("qmgr").to_pylist()) == log2["qmgr"]) & (mk == log2["interval"])
    assert 1000 < num(m, "QMSTPBP")[msel][0] / num(m, "QMSTSPP")[msel][0] < 1100  # ~1 KB persistent messages
    bp = next(i for i in sc.manifest["injected"] if i["rule_id"] == "BP01")
    p, s = tables["QPST"], tables["QIS1"]
    pk, sk = interval_no(p, sc.config), interval_no(s, sc.config)
    row = (
        (np.array(p.column("qmgr").to_pylist()) == bp["qmgr"])
        & (pk == bp["interval"])
        & (num(p, "QPSTPOOL") == int(bp["object_name"]))
    )
    assert num(p, "QPSTCBSL")[row][0] == 0 and num(p, "QPSTRIO")[row][0] > 0 and num(p, "QPSTDMC")[row][0] > 0
    ps_rows = (
        (np.array(s.column("qmgr").to_pylist()) == bp["qmgr"])
        & (sk == bp["interval"])
        & (num(s, "QIS1BPNO") == int(bp["object_name"]))
    )
    assert num(s, "QIS1GETP")[ps_rows].sum() == num(p, "QPSTRIO")[row][0]


@pytest.mark.parametrize("seconds", [60, 300, 900, 3600])
def test_other_statistics_intervals_stay_clean_and_inject_cleanly(seconds):
    """LOG03 looks at the 30 minutes ending at a checkpoint, so short STATIMEs are not judged on a
    slice of LOGLOAD, nor SUP04 on a single checkpoint; the checkpoint-driven injections still fire
    alone, but for SUP04 (checkpoints an hour) where LOG03 forces 20 checkpoints."""
    base = dict(seed=seconds, interval_seconds=seconds, intervals=max(4, 5400 // seconds), queues=16, qmgrs=4, lpars=2)
    assert generate_scenario(ScenarioConfig(**base), keep_truth=False).manifest["expected_firings"] == []
    sc = generate_scenario(ScenarioConfig(**base, inject=(Target("LOG03"), Target("Q04"))), keep_truth=False)
    assert sorted(f["rule_id"] for f in sc.manifest["expected_firings"]) == ["LOG03", "Q04", "SUP04"]


# ----------------------------------------------------------------------------------------------
# Class 3 accounting rules of the oracle on hand-made SMF 116 rows (no generator): the levels and
# legs the injections do not reach, and DB01's confirmation.
# ----------------------------------------------------------------------------------------------
ACCT_START = 1_700_000_000_000_000
ACCT_SECONDS = 1800
WQ_COUNTERS = sorted(ORACLE_COLUMNS["WQST"] - {"CORREL", "OBJNAME", "BASENAME", "CFSTRUCNAME"})


def _accounting_tables(tasks: list[dict]) -> dict:
    """WTID, WTAS and WQST tables of tasks of QMA1: each task a dict with job, tokens, commits,
    db2, its interval k (default 0) and blocks (queue name and WQ counters)."""
    import pyarrow as pa

    ts = pa.timestamp("us", tz="UTC")
    starts = [ACCT_START + t.get("k", 0) * ACCT_SECONDS * 1_000_000 for t in tasks]
    ends = [start + ACCT_SECONDS * 1_000_000 for start in starts]
    written = [end + 1000 * (i + 1) for i, end in enumerate(ends)]
    wtid = pa.table(
        {"qmgr": ["QMA1"] * len(tasks), "record_stck": pa.array(written, ts), "WTIDCCN": [t["job"] for t in tasks]}
    )
    wtas = pa.table(
        {
            "qmgr": ["QMA1"] * len(tasks),
            "record_stck": pa.array(written, ts),
            "WTASMTHR": [t["tokens"][:8] for t in tasks],
            "WTASWTAS": [t["tokens"][8:] for t in tasks],
            "WTASINTS": pa.array(starts, ts),
            "WTASINTE": pa.array(ends, ts),
            "WTASCMN": [t["commits"] for t in tasks],
            "WTASCMET": [0] * len(tasks),
            "WTASDBCT": [t.get("db2", 0) for t in tasks],
            "WTASOTN": [t.get("other", 0) for t in tasks],
        }
    )
    rows = [(i, t, b) for i, t in enumerate(tasks) for b in t["blocks"]]
    wqst = {
        "qmgr": ["QMA1"] * len(rows),
        "record_stck": pa.array([written[i] for i, _, _ in rows], ts),
        "CORREL": ["0" * 16 + t["tokens"] for _, t, _ in rows],
        "OBJNAME": [b["queue"] for _, _, b in rows],
        "BASENAME": [b["queue"] for _, _, b in rows],
        "CFSTRUCNAME": [""] * len(rows),
    }
    wqst |= {c: [int(b.get(c, 0)) for _, _, b in rows] for c in WQ_COUNTERS}
    return {"WTID": wtid, "WTAS": wtas, "WQST": pa.table(wqst)}


def _acct_firings(tables: dict, rule: str) -> list[tuple]:
    fired = evaluate(tables, {}, ACCT_START, ACCT_SECONDS)
    return [(f["severity"], f["object_name"], f["value"]) for f in fired if f["rule_id"] == rule]


def test_oracle_app01_levels_read_messages_and_puts_per_commit():
    p = rule_parameters()["APP01"]
    huge = int(p["critical"]) + 5_000
    tasks = [
        dict(job="BULK", tokens="A" * 16, commits=2, blocks=[dict(queue="Q.A", PUTN=2 * huge)]),
        dict(job="PUTTER", tokens="B" * 16, commits=10, blocks=[dict(queue="Q.B", PUTN=10 * int(p["info"] + 50))]),
        dict(job="GETTER", tokens="C" * 16, commits=10, blocks=[dict(queue="Q.C", GETN=10 * int(p["info"] + 50))]),
    ]
    assert sorted(_acct_firings(_accounting_tables(tasks), "APP01")) == [
        ("critical", f"BULK:{'A' * 16}", huge),
        ("info", f"PUTTER:{'B' * 16}", p["info"] + 50),
    ]


def test_oracle_q05_fires_on_depth_alone_and_not_on_indexed_queues():
    depth = int(rule_parameters()["Q05"]["max_depth"]) + 40
    tasks = [
        dict(job="KEYED", tokens="D" * 16, commits=5, blocks=[dict(queue="Q.PLAIN", GETN=5, GETS=5, MAXQDPTH=depth)]),
        dict(
            job="INDEXED",
            tokens="E" * 16,
            commits=5,
            blocks=[dict(queue="Q.INDEXED", GETN=5, GETS=5, GETSMSG=500, MAXQDPTH=depth, INDXTYPE=1)],
        ),
    ]
    assert _acct_firings(_accounting_tables(tasks), "Q05") == [("warning", "Q.PLAIN", depth)]


def test_oracle_db01_needs_a_task_that_only_opens():
    import pyarrow as pa

    ts = pa.timestamp("us", tz="UTC")
    end = ACCT_START + ACCT_SECONDS * 1_000_000
    reads = int(3 * rule_parameters()["DB01"]["warning"] * ACCT_SECONDS)
    interval = {
        "qmgr": ["QMA1"],
        "interval_start": pa.array([ACCT_START], ts),
        "interval_end": pa.array([end], ts),
        "interval_seconds": [float(ACCT_SECONDS)],
    }
    q5st = pa.table(interval | {c: [0] for c in sorted(ORACLE_COLUMNS["Q5ST"])} | {"READCNT": [reads]})
    qmst = pa.table(interval | {"QMSTOPEN": [reads * 5]})
    opener = dict(job="OPENER", tokens="F" * 16, commits=0, db2=reads, blocks=[dict(queue="NOT.DEFINED", OPENN=reads)])
    tables = _accounting_tables([opener]) | {"Q5ST": q5st, "QMST": qmst}
    assert _acct_firings(tables, "DB01") == [("warning", "QMA1", reads / ACCT_SECONDS)]
    opener["blocks"][0]["PUTN"] = 1  # it also puts: no longer only opening queues
    assert _acct_firings(_accounting_tables([opener]) | {"Q5ST": q5st, "QMST": qmst}, "DB01") == []


def test_oracle_q11_skips_the_restart_phase():
    """Gets from the page set in every period from the queue manager's start: excused for
    restart_window_minutes (MP16 expects page set reads after a restart), judged after it."""
    window = rule_parameters()["Q11"]["restart_window_minutes"] * 60
    periods = int(window // ACCT_SECONDS) + 2
    tasks = [
        dict(job="READER", tokens=f"{k:016X}", k=k, commits=10, blocks=[dict(queue="Q.DISK", GETN=1000, GETPSN=100)])
        for k in range(periods)
    ]
    fired = evaluate(_accounting_tables(tasks), {}, ACCT_START, ACCT_SECONDS)
    judged = [f["interval"] for f in fired if f["rule_id"] == "Q11"]
    assert judged == [k for k in range(periods) if k * ACCT_SECONDS >= window] and judged


def test_acctq_off_and_class3_off_leave_out_what_they_name():
    """ACCTQ(OFF) queues have no WQ block, though their queue statistics show them busy; a queue
    manager interval outside the class 3 sample windows has no SMF 116 task record at all."""
    base = dict(seed=5, qmgrs=2, lpars=1, queues=16, intervals=3, versions=("9.4.0",))
    wq = generate_scenario(ScenarioConfig(**base)).truth("WQST").to_pandas()
    accounted = wq[wq.qmgr == "QM01"].OBJNAME.str.strip().value_counts()
    off = sorted(accounted.index)[:2]
    assert len(off) == 2
    config = ScenarioConfig(**base, acctq_off=tuple(f"QM01:{q}" for q in off), class3_off=("QM02#1",))
    sampled = generate_scenario(config)
    after = sampled.truth("WQST").to_pandas()
    mine = after[after.qmgr == "QM01"].OBJNAME.str.strip()
    assert not mine.isin(off).any()
    assert len(mine) == len(wq[wq.qmgr == "QM01"]) - int(accounted[off].sum())
    queues = sampled.truth("QQST").to_pandas()
    busy = queues[(queues.qmgr == "QM01") & queues.QQSTQNAM.str.strip().isin(off)]
    moved = sum(pd.to_numeric(busy[column]) for column in ("QQSTPUTS", "QQSTPUT1", "QQSTGETS"))
    assert len(busy) == 2 * 3 and (moved > 0).all()
    tasks = sampled.truth("WTAS").to_pandas()
    seconds = (tasks.WTASINTS - pd.Timestamp(config.start)).dt.total_seconds()
    written = set(zip(tasks.qmgr, (seconds // config.interval_seconds).astype(int), strict=True))
    assert written == {(q, k) for q in ("QM01", "QM02") for k in range(3)} - {("QM02", 1)}
    with pytest.raises(ValueError, match="QMGR:QUEUE"):
        ScenarioConfig(**base, acctq_off=("QM01",))
    with pytest.raises(ValueError, match="QMGR#INTERVAL"):
        ScenarioConfig(**base, class3_off=("QM02",))


# ----------------------------------------------------------------------------------------------
# Issue 39: the oracle on MP16's own words and numbers (SupportPac MP16, seed 003), independent of
# the SQL. Each case states the inputs as MP16 states them and the firing (or silence) MP16 implies.
# ----------------------------------------------------------------------------------------------
def _interval_table(rows: list[dict], seconds: int = ACCT_SECONDS) -> pa.Table:
    """A statistics table of QMA1's intervals: each row its interval k and its fields."""
    ts = pa.timestamp("us", tz="UTC")
    starts = [ACCT_START + r.get("k", 0) * seconds * 1_000_000 for r in rows]
    columns = sorted({c for r in rows for c in r} - {"k"})
    return pa.table(
        {
            "qmgr": [r.get("qmgr", "QMA1") for r in rows],
            "interval_start": pa.array(starts, ts),
            "interval_end": pa.array([s + seconds * 1_000_000 for s in starts], ts),
            "interval_seconds": [float(seconds)] * len(rows),
        }
        | {c: [r.get(c, 0) for r in rows] for c in columns if c != "qmgr"}
    )


def _channel(**fields) -> dict:
    base = {c: 0 for c in ORACLE_COLUMNS["QCST"]}
    return base | {"QCSTCHNM": "TO.REMOTE", "QCSTCNNM": "remote(1414)", "QCSTRQMN": "QMR1", "QCSTCHTY": 1} | fields


def test_chin11_silent_on_mp16s_request_reply_setting():
    """MP16 "Setting BATCHSZ and BATCHINT" (ch. 3, p. 125), synchronous request/reply: "For
    persistent messages, absolute best efficiency might then be achieved with BATCHSZ of 1". MP16's
    request/reply example ("Recovery", ch. 1, p. 24): "50 request replies per second ... the achieved
    batch size is one". So a sender moving 50 persistent 1 KB messages a second in batches of one
    with BATCHSZ(1) BATCHINT(0) is MP16's advice and not judged; the same traffic with the default
    BATCHSZ(50) is ("If you left BATCHINT at 0 then you would probably achieve an average batch size
    of less than 2", p. 125): CHIN11 at info."""
    msgs = 50 * ACCT_SECONDS
    traffic = dict(QCSTNMSG=msgs, QCSTNPMG=msgs, QCSTBATC=msgs, QCSTNBYT=1024 * msgs, QCSTCBIT=0)
    recommended = _interval_table([_channel(**traffic, QCSTCBSZ=1)])
    default = _interval_table([_channel(**traffic, QCSTCBSZ=50)])
    fired = [
        (f["rule_id"], f["severity"], f["value"]) for f in evaluate({"QCST": recommended}, {}, ACCT_START, ACCT_SECONDS)
    ]
    assert [f for f in fired if f[0] == "CHIN11"] == []
    fired = [
        (f["rule_id"], f["severity"], f["value"]) for f in evaluate({"QCST": default}, {}, ACCT_START, ACCT_SECONDS)
    ]
    assert [f for f in fired if f[0] == "CHIN11"] == [("CHIN11", "info", 1.0)]


def test_app01_counts_puts_within_a_commit_not_gets():
    """MP16 "Use of MQ Utilities" (ch. 1, p. 47): "you should not normally exceed 100 MQPUTs within
    a single MQCMIT" and its recommended copy job runs "50 MQGETs plus 50 MQPUTs per MQCMIT"; "Large
    Units of Work" (ch. 6, p. 179): "The MQGET cost is typically consistent for units of work up to
    10,000 messages". A task that gets 300 and puts 50 messages per commit follows MP16 (silent,
    though 350 messages a commit pass the 200 of "Application level performance considerations");
    one that puts 150 per commit exceeds the 100 MQPUTs (info), 250 puts the 200 per unit of work
    (warning)."""
    tasks = [
        dict(job="COPY", tokens="G" * 16, commits=10, blocks=[dict(queue="Q.A", GETN=3000, PUTN=500)]),
        dict(job="PUT150", tokens="H" * 16, commits=10, blocks=[dict(queue="Q.B", PUTN=1500)]),
        dict(job="PUT250", tokens="I" * 16, commits=10, blocks=[dict(queue="Q.C", PUTN=2000, PUT1N=500)]),
    ]
    assert sorted(_acct_firings(_accounting_tables(tasks), "APP01")) == [
        ("info", f"PUT150:{'H' * 16}", 150.0),
        ("warning", f"PUT250:{'I' * 16}", 250.0),
    ]


def test_bp13_uses_mp16s_advice_for_version_8_and_later():
    """QPSTLOC (below or above the bar) exists only from version 8, so MP16's "it is not advised to
    exceed 50,000 pages prior to version 8" cannot apply to the data; for current releases MP16
    "Buffer pool usage" (ch. 1, p. 19) says "When using buffers from 31-bit storage (below the 2GB
    bar), a good starting point for the size of this buffer pool might be 20,000 pages" (the pool for
    long-lived messages). A LONG pool of 30,000 pages below the bar is past that (info); one of 20,000
    is not, nor is the 30,000-page pool above the bar."""

    def pool(number, buffers, above):
        base = {c: 0 for c in ORACLE_COLUMNS["QPST"]} | dict(QPSTF4KB=False)
        return base | dict(QPSTPOOL=number, QPSTNBUF=buffers, QPSTCBSL=buffers, QPSTCBS=buffers, QPSTLOC=above)

    qpst = _interval_table([pool(2, 30_000, False), pool(3, 20_000, False), pool(4, 30_000, True)])
    roles = {("QMA1", 2): "LONG", ("QMA1", 3): "LONG", ("QMA1", 4): "LONG"}
    fired = evaluate({"QPST": qpst}, roles, ACCT_START, ACCT_SECONDS)
    assert [(f["severity"], f["object_name"], f["value"]) for f in fired if f["rule_id"] == "BP13"] == [
        ("info", "2", 30_000)
    ]


def test_db01_fires_on_mp16s_undefined_queue_example():
    """MP16 "Frequent opening of un-defined queues" (ch. 6, p. 183): an open of a queue the queue
    manager does not define is looked up in Db2 (CSQ.OBJ_B_QUEUE); MP16's class 3 example of the task
    shows "Other reqs : Count 2" and "DB2 activity : 1 requests" and no queue block, in an interval
    of 1.042905 seconds. A task doing that for the whole period (2 other requests and 1 Db2 request
    per attempt, 4 attempts a second), with the queue manager's Db2 reads at 4 a second (one per
    look-up, above the 1 a second of the catalogue) and no successful open (QMSTOPEN 0), is MP16's
    case: DB01 fires. The same task that also puts a message is not only looking queues up."""
    import pyarrow as pa

    ts = pa.timestamp("us", tz="UTC")
    end = ACCT_START + ACCT_SECONDS * 1_000_000
    attempts = 4 * ACCT_SECONDS
    interval = {
        "qmgr": ["QMA1"],
        "interval_start": pa.array([ACCT_START], ts),
        "interval_end": pa.array([end], ts),
        "interval_seconds": [float(ACCT_SECONDS)],
    }
    q5st = pa.table(interval | {c: [0] for c in sorted(ORACLE_COLUMNS["Q5ST"])} | {"READCNT": [attempts]})
    qmst = pa.table(interval | {"QMSTOPEN": [0]})
    looker = dict(job="VWK1PUT", tokens="J" * 16, commits=0, db2=attempts, other=2 * attempts, blocks=[])
    tables = _accounting_tables([looker]) | {"Q5ST": q5st, "QMST": qmst}
    assert _acct_firings(tables, "DB01") == [("warning", "QMA1", attempts / ACCT_SECONDS)]
    looker["blocks"] = [dict(queue="APP.DEFINED", OPENN=1, PUTN=1)]
    assert _acct_firings(_accounting_tables([looker]) | {"Q5ST": q5st, "QMST": qmst}, "DB01") == []


def _log_intervals(rates_mb_per_s: list[float], seconds: int, qmgr: str = "QMA1", qsg: str = "") -> list[dict]:
    """QJST rows of consecutive intervals writing the given log MB/s (QJSTBFFL: 4 KB CIs)."""
    base = {c: 0 for c in ORACLE_COLUMNS["QJST"]}
    return [
        base | dict(k=k, qmgr=qmgr, qsg=qsg, QJSTBFFL=round(rate * seconds * 2**20 / 4096))
        for k, rate in enumerate(rates_mb_per_s)
    ]


def _log_firings(rows: list[dict], seconds: int, site, rule: str) -> list[tuple]:
    qjst = _interval_table(rows, seconds)
    fired = evaluate({"QJST": qjst}, {}, ACCT_START, seconds, site=site)
    return [(f["severity"], f["qmgr"], f["object_name"], f["interval"]) for f in fired if f["rule_id"] == rule]


def test_log12_reads_the_log_written_since_the_backup():
    """MP16 "How often should CF structures be backed up?" (ch. 2, p. 79): recovery replays "all log
    data ... written since the last fuzzy backup"; "the reading of the log containing the most data
    since fuzzy backup will normally determine the replay time"; "we have more than 29 minutes to
    replay ... about 56MB/sec"; its table: at 4.61 MB/s to the longest log the backup interval is 352
    minutes, at 2.27 MB/s 715 minutes. A structure backed up every 715 minutes with a 29-minute replay
    target: one 30-minute interval at 4.61 MB/s among quiet ones (0.1 MB/s) stays within what 29
    minutes read back (4.61 x 1800 + 0.1 x 685 x 60 = 12,408 MB of 97,440 MB): silent, though that
    interval's rate alone asks for 352 minutes. The same log at 4.61 MB/s for the whole 715 minutes
    (24 intervals) is twice what the target reads back: LOG12 in the interval that completes it."""
    from mqsmf.generate.mp16_oracle import SiteConfig

    seconds, intervals = 1800, 24
    site = SiteConfig(cf_recovery={("QSGA", "APPL1"): (29.0, 715.0)})
    burst = _log_intervals([0.1] * 23 + [4.61], seconds, qsg="QSGA")
    assert _log_firings(burst, seconds, site, "LOG12") == []
    sustained = _log_intervals([4.61] * intervals, seconds, qsg="QSGA")
    fired = _log_firings(sustained, seconds, site, "LOG12")
    # 715 minutes of 4.61 MB/s = 197,769 MB, twice 97,440: from the first interval whose window
    # holds more than 97,440 MB, i.e. more than 352 minutes of log (MP16's 352-minute row): the 12th
    # (360 minutes, 99,576 MB).
    assert fired == [("warning", "QMA1", "APPL1", k) for k in range(11, intervals)]


def test_log13_reads_the_log_written_since_the_page_set_backup():
    """MP16 "Recovery" (ch. 1, p. 24), formula A: "Backup frequency = (Required restart time * System
    recovery log read rate) / Application log write rate"; its example: 800 MB per hour, a restart
    within 60 minutes at 36 MB per second: "3600 seconds * 36 MB per second / 800 MB per hour = 162
    hours". Page sets backed up every 24 hours at that load: silent. One interval of ten times that
    rate (8,000 MB/h for 30 minutes) in a day of 800 MB/h: the log since the backup is 22,800 MB, far
    below the 129,600 MB 60 minutes read at 36 MB/s: silent, though that interval's rate alone allows
    16.2 hours. Backed up every 200 hours at 800 MB/h (160,000 MB since the backup): LOG13."""
    from mqsmf.generate.mp16_oracle import SiteConfig

    seconds = 1800
    hourly = 800 / 3600  # MB/s
    day = [hourly] * 48
    day[40] = 10 * hourly
    p = rule_parameters()["LOG13"]
    scaled = 36 / p["default_log_read_mb_per_sec"]  # MP16's example reads at 36 MB/s, the default at 105
    site = SiteConfig(page_set_recovery={"QMA1": (60.0 * scaled, 24.0)})
    assert _log_firings(_log_intervals(day, seconds), seconds, site, "LOG13") == []
    weekly = SiteConfig(page_set_recovery={"QMA1": (60.0 * scaled, 200.0)})
    long_run = _log_intervals([hourly] * 400, seconds)  # 200 hours of 800 MB/h
    fired = _log_firings(long_run, seconds, weekly, "LOG13")
    # 129,600 MB at 800 MB/h is 162 hours of log (MP16's 162 hours): from the first interval after
    # the one that completes 162 hours (400 MB each) on.
    assert fired and fired[0][3] == 162 * 2 and {f[0] for f in fired} == {"warning"}
