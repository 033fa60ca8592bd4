"""The generated scenarios of the MP16 advisory tests (test_mp16_advisories.py).

One queue-sharing group, four queue managers, eight half-hour intervals. The injected scenario
carries one pathology per implemented rule, each on its own queue manager, object and interval:

- the rules ``mqsmf generate`` can --inject are placed with explicit targets (GENERATED); the
  generator's oracle then lists every firing they cause in ``manifest["expected_firings"]``;
- every other implemented rule gets a MUTATION: the counters of one object in one interval are
  set in the generated records before they are written (``Scenario.planned.mutations``, the hook
  ``--violate`` uses), so the file carries exactly that pathology;
- a known data pitfall a rule must not judge: the longest DNS request SUP10 plants carried over into
  the next interval (APAR PH69352, DNS_CARRIED_OVER), where SUP10 stays silent.

The clean scenario is the same configuration without either, under other names (queue managers
QC01-QC04 in QSG QSGC), so both load into one warehouse and one dbt build judges them side by side."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mqsmf.generate import ScenarioConfig, Target, plan_scenario, write_scenario
from mqsmf.generate.mp16_oracle import rule_parameters

CONFIG = dict(seed=23, qmgrs=4, lpars=2, queues=24, intervals=8, versions=("9.3.3", "9.4.0", "10.0.0", "9.4.3"))
CLEAN_NAMES = dict(qmgr_prefix="QC", qsg="QSGC")
# Class 3 accounting completeness (MP16 "Queue option ACCTQ" (ch. 7, p. 187), "Accounting Trace
# Costs" (ch. 1, p. 51)): three reply queues of QM01's router task with ACCTQ(OFF), busy but without WQ
# blocks, where Q05 and CF12 fire; QC01 outside the class 3 sample windows in three intervals.
ACCTQ_OFF = ("QM01:APP.INVENTORY.REQUEST", "QM01:APP.AUDIT.REQUEST", "QM01:BATCH.%%.NIGHTLY_RUN")
CLASS3_OFF = ("QC01#2", "QC01#3", "QC01#4")

# RULE@QMGR[:OBJECT]#INTERVAL for the generator's own injections (pool numbers: 0 SYS, 1 SHORT).
# The configuration rules (BP12, CF06, CF08, CF15, CF16, LOG12, LOG13, LOG15, Q09; BP14 with the page set write rate) fire
# with the site settings the manifest declares (mqsmf.generate.site_config_vars), which the test passes
# to dbt.
GENERATED = (
    "BP01@QM01:1#2",
    "BP02@QM02:1#3",
    "BP03@QM03:0#4",
    "BP04@QM03:1#5",
    "BP05@QM01:0#5",
    "BP06@QM02:0#6",
    "BP12@QM02:1#4",
    "BP13@QM04:2#1",
    "BP14@QM03:2#5",  # an interval with a checkpoint of its own (a forced one would move LOG03)
    "BP15@QM01:0#6",
    "BP16@QM03:99#3",
    "Q02@QM04:1#3",
    "LOG01@QM01#1",
    "LOG02@QM02#2",
    "LOG03@QM03#1",
    "LOG15@QM01#5",  # not QM02: its LOG08 regression leaves copy 1 with almost only multi-CI writes
    "CF01@QM01:APPL1#2",
    "CF02@QM02:CSQ_ADMIN#3",
    "CF03@QM03:APPL2#4",
    "CF06@QM03:APPL1#2",
    "CF08@QM04:CSQ_ADMIN#2",
    "CF15@QM04:APPL2#4",
    "CF07@QM02:APPL1#6",
    "CF09@QM03#2",
    "CF10@QM04#5",
    "CF11@QM01:APPL2#5",
    "CF13@QM02#1",
    "CF17@QM04#6",
    "DB02@QM04#6",
    "DB03@QM02#4",
    "Q01@QM03#6",
    "Q03@QM01#4",
    "Q04@QM04#4",
    "Q07@QM02#5",
    "Q10@QM03#5",
    # Class 3 accounting (SMF 116): a task of its own per rule, each on its own queue manager interval.
    "Q05@QM01#3",
    "Q11@QM02#2",
    "Q12@QM03#3",
    "Q13@QM04#2",
    "CF12@QM01#4",
    "CF14@QM02#5",
    "APP01@QM03#4",
    "APP02@QM04#3",
    "DB01@QM01#6",
    # Channel initiator statistics (SMF 115/231).
    "CHIN01@QM01#3",
    "CHIN03@QM03#2",
    "CHIN04@QM01#6",
    "CHIN05@QM03#5",
    "CHIN06@QM02#4",
    "CHIN08@QM04#2",
    "CHIN02@QM01#5",  # the processors of QM01's LPAR as the injection declares them (site_config_vars)
    "CHIN07@QM04#3",  # likewise for QM04's LPAR
    "CHIN09@QM02#5",  # against the EPVT the injection declares for QM02's channel initiator (site_config_vars)
    "CHIN10@QM03#4",  # against the MAXPROCUSER and user id the injection declares
    "Q09@QM01#3",
    "CHIN11@QM02#2",  # with LOG02's persistent burst on QM02 in the same interval: escalated to warning
    "CHIN12@QM01#4",
    "CHIN13@QM03#3",
    "CHIN14@QM04#2",
    "CHIN15@QM01#6",
    "CHIN16@QM03#5",
    "CHIN17@QM04#7",
    "LOG10@QM04#5",  # the QSG's quietest log, doubled: LOG11's spread across the members stays below 1.5
    "CHIN18@QM02#3",  # the compressing channel's dispatcher busy: CHIN04 (and CHIN03) fire on QM02CHIN too
    # Supplementary rules (not MP16): the storage, lock and Db2 managers (QSST, QLST, Q5ST), an SMDS
    # (QESD), the channel initiator's DNS task (115/231) and the log manager (QJST). SUP04's
    # checkpoints also make LOG03 and LOG04 fire there; SUP05's archive reads LOG06. SUP04 also fires
    # where LOG02's, LOG12's and CF17's log volume takes many checkpoints (QM02#2, every member at #6).
    "SUP01@QM01#5",
    "SUP02@QM02#3",
    "SUP03@QM03#6",
    "SUP04@QM02#5",
    "SUP05@QM03#4",
    "SUP06@QM04#1",
    "SUP07@QM01#2",
    "SUP08@QM03#5",
    "SUP09@QM04#3",
    "SUP10@QM02#1",
    # A persistent burst (LOG11's QSG skew and LOG04's offload proxy fire there too; not on QM03 or QM04,
    # where they are planted); CF17's QSG-wide burst breaks the declared restart target as well.
    "LOG13@QM01#4",
    # The same for LOG12, in a quiet interval of QM01 (LOG12 also fires where LOG02's burst makes QM02
    # the busiest log). Not on QM02: a burst there moves the checkpoint cycle that SUP04's forced
    # checkpoints (QM02#5) judge LOG03 on to within 7 % of LOG03's warning cut.
    "LOG12@QM01:APPL1#0",
    "CF16@QM03:CSQSYSAPPL#3",  # the smallest structure with shared queues: 10 % of it in dead messages
)
# The generator's oracle names the object of log rules 'queue_manager'; the advisories call it 'log'.
OBJECT_TYPES = {"queue_manager": "log"}


@dataclass(frozen=True)
class Mutation:
    """Counters of one instance set in one interval (and, for cumulative counters, the intervals
    after it): the pathology of ``rule_id`` on (qmgr, object) at ``interval``."""

    rule_id: str
    qmgr: str
    object_type: str
    object_name: str
    interval: int
    structure: str
    change: Callable[[dict, int, object], None]  # (columns of the structure, row, interval data) -> None
    through_end: bool = False  # also applied to every later interval (counters since restart)
    severity: str = "warning"  # the level an oracle variant (ORACLE_VARIANTS) fires at


def _row(qm, structure: str, name: str, qi) -> int:
    """Row of the instance named `name` in the structure's columns of one interval."""
    if structure == "QPST":
        return qm.pool_index(int(name))
    if structure == "QIS1":
        return list(qm.pagesets).index(int(name))
    if structure == "QEST":
        return list(qi.structures["QEST"]["QESTSTR"]).index(name)
    if structure == "QQST":
        return list(qi.structures["QQST"]["QQSTQNAM"]).index(name)
    return 0  # one instance per interval: QJST, QMST, QIST, Q5ST (QESD: the change finds its row)


def _setter(**values: int) -> Callable[[dict, int, object], None]:
    def change(cols: dict, i: int, qi) -> None:
        for name, value in values.items():
            cols[name][i] = value

    return change


def _setter_by_name(key: str, name: str, **values: int) -> Callable[[dict, int, object], None]:
    """Set values on the row whose `key` column is `name` (QESD: one row per structure with SMDS)."""

    def change(cols: dict, i: int, qi) -> None:
        row = list(cols[key]).index(name)
        for column, value in values.items():
            cols[column][row] = value

    return change


def _scaled(**factors: float) -> Callable[[dict, int, object], None]:
    def change(cols: dict, i: int, qi) -> None:
        for name, factor in factors.items():
            cols[name][i] = int(cols[name][i] * factor)

    return change


def _page_set_full(cols, i, qi):
    cols["QIS1UNPG"][i] = int(cols["QIS1TOPG"][i] * 0.04)  # 96 % used


def _expanded(cols, i, qi):
    cols["QIS1EXPN"][i] = int(cols["QIS1EXPN"][i]) + 1
    cols["QIS1EXPF"][i] = qi.k == 3


def _slow_reads(cols, i, qi, reads=500):
    cols["QIS1GETN"][i], cols["QIS1GETP"][i], cols["QIS1GETT"][i] = reads, reads, reads * 900  # 900 us per read


def _disk_gets(cols, i, qi):
    cols["QISTGETD"][i] = int(cols["QISTGETB"][i] * 0.05)


def _open_per_message(cols, i, qi):
    cols["QMSTOPEN"][i] = int(cols["QMSTPUT"][i] + cols["QMSTGET"][i])


def _large_messages(cols, i, qi):
    puts = int(cols["QMSTSPP"][i] + cols["QMSTSNP"][i])
    cols["QMSTPBP"][i] = 150_000 * puts - int(cols["QMSTNBP"][i])


def _slow_copy2(cols, i, qi):
    copy1 = cols["QJSTIO_0_1_QJSTIOTOTIO"][i] / cols["QJSTIO_0_1_QJSTIOCOUNT"][i]
    cols["QJSTIO_1_1_QJSTIOTOTIO"][i] = int(2 * copy1 * cols["QJSTIO_1_1_QJSTIOCOUNT"][i])


def _slow_single_ci(cols, i, qi):
    cols["QJSTIO_0_0_QJSTIOTOTIO"][i] = int(cols["QJSTIO_0_0_QJSTIOCOUNT"][i]) * 1500


def _serial_writes(cols, i, qi):
    cols["QJSTSERW"][i] = int(cols["QJSTLOGW"][i] * 0.8)


def _shared_key_redrives(cols, i, qi):
    q = qi.structures["QQST"]
    mine = np.asarray(q["QQSTDISP"], bool) & (np.asarray(q["QQSTCFST"], object) == cols["QESTSTR"][i])
    gets = int(np.asarray(q["QQSTGETS"])[mine].sum())
    assert gets > 0, "CF04 needs MQGETs on the structure's shared queues"
    cols["QESTRSEC"][i] = 2 * gets + 10


def _slow_cf(cols, i, qi):
    cols["QESTSSTC"][i] = int(cols["QESTCSEC"][i]) * 80  # 80 us per single-entry request


def _waiting_getters(cols, i, qi):
    cols["QQSTIPCT"][i] = 3
    cols["QQSTIPHI"][i] = max(3, int(cols["QQSTIPHI"][i]))
    cols["QQSTRDGW"][i] = 3 * int(cols["QQSTGETS"][i]) + 10


def _pool_steals(cols, i, qi):
    cols["QPSTSTL"][i] = 6000


class _Browse:
    """BP10: the interval after k-1 reads five to eight times the pages with fewer new pages and
    updates (a browse or keyed-get scan); remembers k-1's counters."""

    def __init__(self) -> None:
        self.previous: dict[str, int] = {}

    def __call__(self, cols, i, qi) -> None:
        names = ("QPSTGETP", "QPSTGETN", "QPSTSTW")
        if qi.k == 4:
            self.previous = {n: int(cols[n][i]) for n in names}
            return
        cols["QPSTGETP"][i] = 8 * self.previous["QPSTGETP"]
        cols["QPSTGETN"][i] = max(0, self.previous["QPSTGETN"] - 1)
        cols["QPSTSTW"][i] = max(0, self.previous["QPSTSTW"] - 1)
        cols["QPSTRIO"][i] = 1


def mutations(q08_queue: str) -> list[Mutation]:
    return [
        Mutation("BP07", "QM04", "buffer_pool", "0", 3, "QPST", _pool_steals),
        Mutation("BP08", "QM04", "buffer_pool", "2", 6, "QPST", _setter(QPSTWIO=250_000)),
        Mutation("BP09", "QM01", "buffer_pool", "2", 3, "QPST", _setter(QPSTRIO=5000)),
        Mutation("BP10", "QM02", "buffer_pool", "15", 5, "QPST", _Browse()),
        Mutation("PS01", "QM01", "page_set", "3", 4, "QIS1", _setter(QIS1FULL=2)),
        Mutation("PS02", "QM02", "page_set", "5", 3, "QIS1", _expanded, through_end=True),
        Mutation("PS03", "QM03", "page_set", "6", 2, "QIS1", _page_set_full),
        Mutation("PS04", "QM04", "page_set", "4", 5, "QIS1", _slow_reads),
        Mutation("DM01", "QM01", "data_manager", "QM01", 5, "QIST", _disk_gets),
        Mutation("MM01", "QM02", "message_manager", "QM02", 6, "QMST", _open_per_message),
        Mutation("MM03", "QM03", "message_manager", "QM03", 5, "QMST", _large_messages),
        Mutation("LOG04", "QM04", "log", "QM04", 6, "QJST", _setter(QJSTALW=20)),
        Mutation("LOG06", "QM01", "log", "QM01", 3, "QJST", _setter(QJSTRARH=7)),
        Mutation("LOG07", "QM02", "log", "QM02", 4, "QJST", _slow_copy2),
        Mutation("LOG08", "QM03", "log", "QM03", 3, "QJST", _slow_single_ci),
        Mutation("LOG09", "QM01", "log", "QM01", 7, "QJST", _serial_writes),
        Mutation("LOG11", "QM03", "log", "QM03", 7, "QJST", _scaled(QJSTBFFL=4)),
        Mutation("CF04", "QM04", "cf_structure", "APPL1", 5, "QEST", _shared_key_redrives),
        Mutation("CF05", "QM01", "cf_structure", "APPL2", 6, "QEST", _slow_cf),
        Mutation("Q08", "QM02", "queue", q08_queue, 3, "QQST", _waiting_getters),
    ]


# ----------------------------------------------------------------------------------------------
# Regressions of issue 17's defects, planted next to the pathologies: each is a Mutation whose rule
# must stay silent on its object (SILENT) or must now fire there (FIRES). Every one of them gave
# the opposite result before its fix.
# ----------------------------------------------------------------------------------------------
LOGLOAD_RECORDS = 600_000  # log records an interval at MP16's recommended LOGLOAD (4 M): a checkpoint every ~7


def _loglload_600k(cols, i, qi):
    """LOG03: 600,000 log records every interval, a checkpoint in the first and the last interval
    only: 4.2 million records per checkpoint, inside MP16's 4-16 million."""
    cols["QJSTWRW"][i], cols["QJSTWRNW"][i], cols["QJSTWRF"][i] = 240_000, 350_000, 10_000
    cols["QJSTLLCP"][i] = 1 if qi.k in (0, CONFIG["intervals"] - 1) else 0


def _no_persistent_puts(cols, i, qi):
    cols["QMSTSPP"][i], cols["QMSTPBP"][i] = 0, 0


def _log_at_120_mb_per_s(cols, i, qi):
    # 120 MB/s: over half of even the 1 MB reference rate (215 MB/s), which LOG02 used to fall back to.
    cols["QJSTBFFL"][i] = 120 * 256 * 1800


def _idle_disk_gets(cols, i, qi):
    cols["QISTGETB"][i], cols["QISTGETD"][i] = 100, 20  # 17 % from disk, but 120 gets in all


def _restart_disk_gets(cols, i, qi):
    cols["QISTGETD"][i] = max(50, int(cols["QISTGETB"][i] * 0.05))


def _few_slow_copy2_writes(cols, i, qi):
    for copy in (0, 1):
        cols[f"QJSTIO_{copy}_1_QJSTIOCOUNT"][i] = 10
    cols["QJSTIO_0_1_QJSTIOTOTIO"][i] = 10 * 800
    cols["QJSTIO_1_1_QJSTIOTOTIO"][i] = 10 * 1600


def _few_slow_single_ci_writes(cols, i, qi):
    cols["QJSTIO_0_0_QJSTIOCOUNT"][i] = 20
    cols["QJSTIO_0_0_QJSTIOTOTIO"][i] = 20 * 1500


def _expanded_flag_only(cols, i, qi):
    cols["QIS1EXPF"][i] = True  # QIS1EXPN unchanged, and there is no previous interval to compare with


def _browse_after_idle(cols, i, qi):
    """BP10: an interval without any get page, then 1,000 get pages with no new page or update."""
    first = qi.k == 1
    cols["QPSTGETP"][i] = 0 if first else 1000
    cols["QPSTGETN"][i] = cols["QPSTSTW"][i] = 0
    cols["QPSTRIO"][i] = 0 if first else 10


def _reads_no_writes(cols, i, qi):
    cols["QPSTTPW"][i] = 0
    cols["QPSTRIO"][i] = 100 if qi.k == 2 else 0


def _busy_page_set(cols, i, qi):
    cols["QIS1GETT"][i] = int(0.6 * CONFIG_SECONDS * 1_000_000)  # reads took 60 % of the interval


CONFIG_SECONDS = 1800
SILENT = [
    Mutation("LOG03", "QM01", "log", "QM01", 0, "QJST", _loglload_600k, through_end=True),
    Mutation("LOG02", "QM03", "log", "QM03", 7, "QMST", _no_persistent_puts),
    Mutation("LOG02", "QM03", "log", "QM03", 7, "QJST", _log_at_120_mb_per_s),
    Mutation("LOG14", "QM03", "log", "QM03", 7, "QJST", lambda cols, i, qi: None),
    Mutation("LOG06", "QM04", "log", "QM04", 0, "QJST", _setter(QJSTRARH=3)),
    Mutation("DM01", "QM02", "data_manager", "QM02", 0, "QIST", _restart_disk_gets),
    Mutation("DM01", "QM03", "data_manager", "QM03", 2, "QIST", _idle_disk_gets),
    Mutation("BP06", "QM03", "buffer_pool", "0", 0, "QPST", _setter(QPSTRIO=50)),
    Mutation("BP06", "QM03", "buffer_pool", "0", 1, "QPST", _setter(QPSTRIO=50)),
    Mutation("BP07", "QM02", "buffer_pool", "0", 0, "QPST", _setter(QPSTSTL=500)),
    Mutation("PS04", "QM01", "page_set", "4", 2, "QIS1", lambda cols, i, qi: _slow_reads(cols, i, qi, reads=5)),
    Mutation("LOG07", "QM04", "log", "QM04", 2, "QJST", _few_slow_copy2_writes),
    Mutation("LOG08", "QM02", "log", "QM02", 7, "QJST", _few_slow_single_ci_writes),
]
FIRES = [
    Mutation("PS02", "QM04", "page_set", "5", 0, "QIS1", _expanded_flag_only),
    Mutation("BP10", "QM04", "buffer_pool", "3", 1, "QPST", _browse_after_idle),
    Mutation("BP10", "QM04", "buffer_pool", "3", 2, "QPST", _browse_after_idle),
    Mutation("BP08", "QM02", "page_set", "3", 1, "QIS1", _busy_page_set),
]


class _CarriedOverDns:
    """APAR PH69352 (seeds/data_pitfalls.csv, qct_dns_longest_request_carried_over): the channel
    initiator's DNS task keeps the longest request of an earlier interval. In the interval after the
    one it remembers (k-1, SUP10's slow request) it makes no DNS request, yet shows k-1's longest
    request, its time (before the interval started) and its duration."""

    def __init__(self) -> None:
        self.longest: tuple[int, int] | None = None

    def __call__(self, cols, i, qi) -> None:
        if qi.k == DNS_CARRIED_OVER.interval - 1:
            self.longest = int(cols["QCTLGTM"][i]), int(cols["QCTLGDU"][i])
            return
        assert self.longest is not None, "the interval before is written first"
        cols["QCTREQN"][i] = 0
        cols["QCTLGTM"][i], cols["QCTLGDU"][i] = self.longest


# SUP10 must stay silent on a longest DNS request carried over (PH69352): QM02's interval after the
# slow request SUP10@QM02#1 plants, with that request as its own longest. SUP10 fires in #1, not in #2.
DNS_CARRIED_OVER = Mutation("SUP10", "QM02", "channel_initiator", "QM02CHIN", 2, "QCTDNS", _CarriedOverDns())


def _channels_on_one_dispatcher(cols, i, qi):
    """CHIN03's other branch: dispatcher 0 holds four times the median number of channels."""
    cols["QCTCHLN"][0] = 4 * max(10, int(np.median(cols["QCTCHLN"])))


def _last_adapter_busy(cols, i, qi):
    """CHIN01's info level: the highest-numbered adapter busy 10 % of the interval, the others as
    simulated (the least busy far below the escalation)."""
    last = len(cols["QCTELTM"]) - 1
    interval_us = int(cols["QCTELTM"][last]) + int(cols["QCTWTTM"][last])
    cols["QCTELTM"][last], cols["QCTWTTM"][last] = interval_us // 10, interval_us - interval_us // 10


def _channel_ceiling(cols, i, qi):
    """CHIN08's escalation: 9,200 current channels, well inside MAXCHL and ACTCHL."""
    cols["QCCTNOCC"][i], cols["QCCTMXCC"][i] = 9200, 9999
    cols["QCCTNOAC"][i], cols["QCCTMXAC"][i] = 4000, 9999


def _epvt_nearly_full(cols, i, qi):
    """CHIN09 critical against MP16's planning EPVT (no EPVT declared for QM03): 31-bit storage in
    use 3 points above the critical share."""
    p = rule_parameters()["CHIN09"]
    cols["QCCTSTUS"][i] = int(np.ceil((p["critical"] + 3) / 100 * p["planning_epvt_mb"]))


# Rules the generator's oracle evaluates, at another level or by another branch than its injection
# gives: CF11 at warning (92 % of the shared message data set used, no failed allocation; the
# injection is critical); CHIN03 by channels per dispatcher (the injection: busy vs idle dispatchers);
# CHIN08 by its escalation, MP16's practical ceiling of channels (CHIN05 fires there too); CHIN01
# at info (only the highest-numbered adapter busy; the injection is the warning escalation); CHIN09
# at critical against MP16's planning EPVT (the injection: a warning against the EPVT the site declares);
# SUP08 at info (Db2 requests queued well above the queue manager's baseline; the injection: abends,
# warning).
ORACLE_VARIANTS = [
    Mutation(
        "CF11",
        "QM03",
        "smds",
        "APPL1",
        3,
        "QESD",
        _setter_by_name("QESDSTR", "APPL1", QESDSMBU=184_000, QESDSMBF=15_900, QESDSMFL=0),
    ),
    Mutation("CHIN03", "QM04", "channel_initiator", "QM04CHIN", 6, "QCTDSP", _channels_on_one_dispatcher),
    Mutation("CHIN08", "QM02", "channel_initiator", "QM02CHIN", 7, "QCCT", _channel_ceiling),
    Mutation("CHIN01", "QM04", "channel_initiator", "QM04CHIN", 4, "QCTADP", _last_adapter_busy, severity="info"),
    Mutation("CHIN09", "QM03", "channel_initiator", "QM03CHIN", 6, "QCCT", _epvt_nearly_full, severity="critical"),
    # SUP08's info level: Db2 requests queue up (DHIGMAX 40 against 2 before), no abend or deadlock.
    Mutation("SUP08", "QM01", "db2_manager", "QM01", 4, "Q5ST", _setter(DHIGMAX=40), severity="info"),
]

# BP09 over a trailing window shortened to two hours (threshold-override run): QM01's pool 2
# (planted above) and QM02's pool 2, which reads pages back and writes none.
BP09_NO_WRITES = Mutation("BP09", "QM02", "buffer_pool", "2", 0, "QPST", _reads_no_writes, through_end=True)

# BP11 (a pool never more than half used over a week) is judged on a one-day window in the
# threshold-override test: in the first interval every other pool peaks at 60 % used.
BP11_POOL = ("QM03", "2")


def _busy_pools(scenario, cols, i, qi) -> None:
    qm = scenario.topology.qmgrs[qi.m]
    for row, pool in enumerate(qm.pools):
        if (qm.name, str(int(pool))) != BP11_POOL:
            cols["QPSTCBSL"][row] = int(cols["QPSTNBUF"][row] * 0.4)


def _register(scenario, qmgr: str, structure: str, name: str, intervals, change) -> None:
    qm = scenario.topology.qmgr(qmgr)

    def apply(qi) -> None:
        cols = qi.structures[structure]
        change(cols, _row(qm, structure, name, qi), qi)

    for k in intervals:
        scenario.planned.mutations.setdefault((k, qm.index), []).append(apply)


def q08_queue_of(scenario) -> str:
    """A busy private queue of QM02 in its LONG pool that no injection uses."""
    qm = scenario.topology.qmgr("QM02")
    queues = qm.queues
    busy = (queues.persistent_rate + queues.nonpersistent_rate) * scenario.config.interval_seconds >= 200
    taken = {i.get("queue") for i in scenario.planned.injected} | {i["object_name"] for i in scenario.planned.injected}
    for name in queues.name[busy & (queues.bpid == 2) & ~queues.is_shared & (queues.consumers >= 1)]:
        if str(name) not in taken:
            return str(name)
    raise AssertionError("no free busy queue for Q08 on QM02")


@dataclass(frozen=True)
class AccountingCoverage:
    """What the generator wrote for one queue manager interval: the queues with puts or gets in its
    queue statistics (QQST), the queues of its WQ blocks (every accounted task) and whether any
    class 3 (WTAS) record was written."""

    active: frozenset[str]
    accounted: frozenset[str]
    has_class_3: bool


def _record_coverage(scenario) -> dict[tuple[str, int], AccountingCoverage]:
    """{(qmgr, interval): AccountingCoverage}, filled as the scenario is written (a hook after every
    other mutation of the interval, so it sees the counters as written)."""
    truth: dict[tuple[str, int], AccountingCoverage] = {}

    def record(qi, name: str) -> None:
        q = qi.structures["QQST"]
        moved = np.asarray(q["QQSTPUTS"], np.int64) + np.asarray(q["QQSTPUT1"], np.int64)
        moved = moved + np.asarray(q["QQSTGETS"], np.int64)
        active = {str(n).strip() for n, m in zip(q["QQSTQNAM"], moved, strict=True) if m > 0}
        wq = qi.structures["WQST"]
        names = [str(b or o).strip() for b, o in zip(wq["BASENAME"], wq["OBJNAME"], strict=True)]
        tasks = len(next(iter(qi.structures["WTAS"].values()), []))
        truth[(name, qi.k)] = AccountingCoverage(frozenset(active), frozenset(names), tasks > 0)

    for qm in scenario.topology.qmgrs:
        for k in range(scenario.config.intervals):
            hooks = scenario.planned.mutations.setdefault((k, qm.index), [])
            hooks.append(lambda qi, name=qm.name: record(qi, name))
    return truth


def write_injected(path: Path) -> tuple[dict, list[Mutation], dict[tuple[str, int], AccountingCoverage]]:
    config = ScenarioConfig(**CONFIG, inject=tuple(Target.parse(t) for t in GENERATED), acctq_off=ACCTQ_OFF)
    scenario = plan_scenario(config)
    planned = mutations(q08_queue_of(scenario))
    for m in planned:
        last = config.intervals if m.through_end else m.interval + 1
        first = m.interval - 1 if m.rule_id == "BP10" else m.interval
        _register(scenario, m.qmgr, m.structure, m.object_name, range(first, last), m.change)
    for m in [*SILENT, *FIRES, BP09_NO_WRITES, *ORACLE_VARIANTS]:
        last = config.intervals if m.through_end else m.interval + 1
        _register(scenario, m.qmgr, m.structure, m.object_name, range(m.interval, last), m.change)
    m = DNS_CARRIED_OVER  # reads the interval before (after SUP10's injection there), writes its own
    _register(scenario, m.qmgr, m.structure, m.object_name, range(m.interval - 1, m.interval + 1), m.change)
    for qm in scenario.topology.qmgrs:
        scenario.planned.mutations.setdefault((0, qm.index), []).append(
            lambda qi, sc=scenario: _busy_pools(sc, qi.structures["QPST"], None, qi)
        )
    coverage = _record_coverage(scenario)
    return write_scenario(scenario, str(path)), planned, coverage


def write_clean(path: Path) -> tuple[dict, dict[tuple[str, int], AccountingCoverage]]:
    scenario = plan_scenario(ScenarioConfig(**CONFIG, **CLEAN_NAMES, class3_off=CLASS3_OFF))
    coverage = _record_coverage(scenario)
    return write_scenario(scenario, str(path)), coverage
