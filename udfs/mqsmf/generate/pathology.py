"""Where and how a scenario goes wrong: --inject (drive the workload into an MP16 rule's
pathology), --violate (write records that break a data invariant), and the partial-record events
a clean scenario contains anyway.

Every item is placed deterministically from the seed on a queue manager, object and interval
that no other item touches (items claim what they change), and is described in the manifest."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..invariants import VIOLATIONS
from ..layouts import QPSTCBSL_NOT_SET
from .config import US_PER_S, Target, iso
from .families.accounting import (
    GET_US,
    MQIT_MSGID,
    TOD_HIGH_MAX_US,
    Task,
    queue_block,
    server_input_queues,
    task_tokens,
)
from .families.channel_initiator import (
    BATCH_SIZE,
    MESSAGE_HEADER_BYTES,
    MQCHT_SENDER,
    MQCHT_SVRCONN,
    accounted_channels,
    channel_object_name,
)
from .families.log import LOG_BYTES_PER_GET, LOG_BYTES_PER_PUT
from .mp16_oracle import (
    ADMIN_STRUCTURE,
    REFERENCE_DASD,
    cf_message_bytes,
    log10_expected_bytes,
    log_reference_rates,
    rule_parameters,
    structure_size_mb,
    threshold_text,
)
from .state import QmgrInterval
from .topology import (
    CAT_PRIVATE,
    CAT_SYS_POOL0,
    ROLE_LONG,
    ROLE_OTHER,
    ROLE_SHORT,
    ROLE_SYS,
    QueueManager,
)

# The MQ version that first has the fields a rule or check reads.
RULE_VERSION = {
    "Q02": "9.3.3",
    "Q03": "9.3.3",
    "Q04": "9.3.1",
    "Q07": "9.3.3",
    "Q10": "9.3.1",
    "Q09": "9.3.3",
    "Q13": "9.3.3",  # QQSTGETS and QQSTIPCT (the queue's gets and input handles)
    "CF15": "9.3.3",  # QQSTDPHI
    "CF16": "9.3.3",  # QQSTGETS
    "CF10": "9.3.3",
    "CF13": "9.3.3",
}
# Where a violation may be planted (``mqsmf.invariants``): the MQ versions whose records carry its fields.
CHECK_VERSION = {check: v.since for check, v in VIOLATIONS.items() if v.since}
CHECK_BEFORE = {check: v.before for check, v in VIOLATIONS.items() if v.before}
LOG02_MESSAGE = 1024
# Rules on class 3 accounting (SMF 116): injected as tasks of their own (Effects.accounting), each
# on a queue manager interval no other accounting injection uses.
ACCOUNTING_RULES = ("Q05", "Q11", "Q12", "Q13", "CF12", "CF14", "APP01", "APP02", "DB01")
INJECTED_TASK_BASE = 16  # task numbers of injected tasks (the server tasks are 0-3)
UNDEFINED_QUEUE = "APP.NOT.DEFINED"  # DB01: the queue an application keeps trying to open
# Channel initiator rules: values of the 115/231 record.
CHIN_RULES = ("CHIN01", "CHIN02", "CHIN03", "CHIN04", "CHIN05", "CHIN06", "CHIN07", "CHIN08", "CHIN09", "CHIN10")
# CHIN10: the MAXPROCUSER the site declares for an injected channel initiator's system (z/OS's
# default, BPXPRMxx MAXPROCUSER(25)).
CHIN10_SITE_MAX_PROC_USER = 25
# CHIN09: the EPVT size the site declares for an injected channel initiator (a site smaller than
# MP16's planning value, so the injection is silent without the declaration).
CHIN09_SITE_EPVT_MB = 1024
CHANNEL_RULES = ("CHIN11", "CHIN12", "CHIN13", "CHIN14", "CHIN15", "CHIN16", "CHIN17")
# Supplementary rules (not MP16): values of one record of the interval, by the object they judge.
SUPPLEMENTARY_OBJECTS = {
    "SUP01": "storage_manager",
    "SUP02": "storage_manager",
    "SUP03": "storage_manager",
    "SUP04": "queue_manager",  # its log, as LOG01-LOG03
    "SUP05": "queue_manager",
    "SUP06": "queue_manager",
    "SUP07": "lock_manager",
    "SUP08": "db2_manager",
    "SUP09": "smds",
    "SUP10": "channel_initiator",
}
SUP05_ARCHIVE_READS = 40  # log reads from an archive on tape in SUP05's interval
CHURN_CHANNEL = "WEB.SVRCONN"  # CHIN16: the SVRCONN channel whose client connections come and go
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
ORDINAL_WORDS = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}


# Injection targets that say "above the rule's threshold" are derived from the threshold in
# seeds/mp16_rules.csv (the one place it is written); the other targets drive the workload's
# own model (the deferred write processor at 15 % free, synchronous writes at 5 %, overflow).
def threshold(rule: str, level: str = "info") -> float:
    return rule_parameters()[rule][level]


def run_length(rule: str) -> int:
    """Consecutive intervals a run rule (Q03, Q10) needs to fire."""
    return int(threshold(rule, "warning"))


def rule_window(rule: str) -> tuple[int, int]:
    """Intervals before (and after) the chosen one that the item also shapes."""
    return {
        "Q03": (run_length("Q03"), 1),  # the rises, and no rise before them
        "Q04": (int(threshold("Q04")), 1),  # the message is held that many checkpoint intervals
        "Q10": (run_length("Q10"), 1),
        "BP16": (int(rule_parameters()["BP16"]["window"]) - 1, 0),  # the rate is sustained
    }.get(rule, (0, 0))


def pool_fill(rule: str) -> tuple[float, bool]:
    """Target share of a pool's buffers the peak use reaches, and whether objects count."""
    return {
        "BP01": (1.08, True),
        "BP02": (0.975, True),
        "BP04": (1 - threshold("BP04", "warning") / 100 + 0.05, True),  # 5 points below the free % warning
        "BP05": (0.88, True),
        "BP06": (1.06, True),
        "Q02": (threshold("Q02", "warning") + 0.03, False),
    }[rule]


def bp13_buffers() -> int:
    """A LONG pool 20 % above MP16's advice for pools below the bar."""
    return int(1.2 * threshold("BP13"))


def bp16_pages_per_s() -> int:
    """Page reads + writes per second in a pool without page-fixed buffers: twice the threshold."""
    return int(2 * threshold("BP16"))


def bp12_buffers() -> int:
    """A SHORT pool a fifth below MP16's production starting point for the role."""
    return int(0.8 * threshold("BP12", "short_lived_buffers"))


def bp12_free_share() -> float:
    """Lowest free share of BP12's pool: 5 points below BP04's warning (above its critical)."""
    return (threshold("BP04", "warning") - 5) / 100


def cf15_backlog_bytes(size_mb: float) -> int:
    """Message bytes of CF15's backlog: with the rule's overhead factor, a tenth of the SIZE above its
    warning share."""
    p = rule_parameters()["CF15"]
    return int((p["warning"] + 0.1) * size_mb * 2**20 / p["overhead_factor"])


def bp14_page_set_write_mb_per_s() -> float:
    """Page set write rate BP14's site declares: a third of MP16's default deferred write rate (the
    slower DASD MP16 describes)."""
    return threshold("BP14", "default_page_set_write_mb_per_sec") / 3


def bp14_pages_per_checkpoint(mb_per_s: float) -> int:
    """Pages per checkpoint of BP14's injection: a write burst a quarter above the warning level at
    the page set write rate."""
    return math.ceil(1.25 * threshold("BP14", "warning") * mb_per_s * 2**20 / 4096)


def log15_multi_ci_share() -> float:
    """Share of the log write I/Os LOG15's injection makes multi-CI: 25 points above the threshold."""
    return threshold("LOG15") + 0.25


def recovery_log_mb_per_s() -> float:
    """Log MB/s at which the recovery settings the LOG12 / LOG13 injections declare are just met: half
    again the clean ceiling (the generator's log stays under LOG02's warning share of the slowest
    reference DASD's 1 KB rate, test_clean_log_volume_is_safe_for_any_reference_dasd)."""
    slowest = log_reference_rates(REFERENCE_DASD["LOG_REF_SLOWEST"])[LOG02_MESSAGE]
    return 1.5 * threshold("LOG02", "warning") * slowest


def log13_settings(seconds: float) -> tuple[float, float]:
    """(restart target minutes, page set backup hours) LOG13's site declares: page sets backed up
    every statistics interval (so the log since the last backup is one interval's log) and the
    restart target MP16's formula A ("Recovery", ch. 1, p. 24) just meets at recovery_log_mb_per_s,
    reading the log at MP16's default rate: target x read rate = backup interval x log rate."""
    read = threshold("LOG13", "default_log_read_mb_per_sec")
    return seconds * recovery_log_mb_per_s() / read / 60, seconds / 3600


def log12_settings(seconds: float) -> tuple[float, float]:
    """(recovery target minutes, BACKUP CFSTRUCT interval minutes) LOG12's site declares: the
    structure backed up every statistics interval and the recovery target whose backward read (MP16's
    56 MB/s, "How often should CF structures be backed up?", ch. 2, p. 79) just covers the log written
    in that interval at recovery_log_mb_per_s."""
    backward = threshold("LOG12", "backward_read_mb_per_sec")
    return seconds * recovery_log_mb_per_s() / backward / 60, seconds / 60


def cf16_message_size(size_mb: float, members: int) -> int | None:
    """Average message size of CF16's injection: the smallest whose CF storage (cf_message_bytes)
    leaves a tenth more of the SIZE than the rule's share in the members' batch delete tables;
    None where that would take a message an entry cannot hold (a large structure in a small QSG:
    a 683 MB one needs four members)."""
    p, largest = rule_parameters()["CF16"], rule_parameters()["CF15"]["max_entry_message_bytes"]
    need = 1.1 * p["info"] * size_mb * 2**20 / (members * p["dead_messages_per_qmgr"])
    # The message's bytes (need, less the entry's overhead and control) rounded to whole elements.
    sizes = np.arange(max(1, math.floor(need) - 1024), min(math.ceil(need), largest) + 1)
    fits = sizes[cf_message_bytes(sizes) >= need]
    return int(fits[0]) if len(fits) else None


def cf06_used_share() -> float:
    """Share of a structure's entries and elements CF06's injection fills: 5 points above the
    warning level (below the critical one)."""
    return (threshold("CF06", "warning") + 5) / 100


def cf08_free_entries(members: int) -> int:
    """Free CSQ_ADMIN entries of CF08's injection: half of what the rule asks for the QSG."""
    return int(threshold("CF08", "warning") * members / 2)


def q09_depth() -> int:
    """High depth of Q09's injection: three messages above the rule's threshold."""
    return int(threshold("Q09")) + 3


def site_processors() -> int:
    """Processors the site declares for the LPAR of a CHIN02 or CHIN07 injection: one above CHIN02's
    base, so MP16's CHIADAPS for it is above the generated channel initiators' adapters."""
    return int(threshold("CHIN02", "base_processors")) + 1


def chin10_threads(max_proc_user: int) -> int:
    """OMVS threads of CHIN10's channel initiator: 5 points above the warning share of MAXPROCUSER."""
    return math.ceil((threshold("CHIN10", "warning") + 5) / 100 * max_proc_user)


def chin09_storage_mb(epvt_mb: float) -> int:
    """31-bit storage in use of CHIN09's injection: 5 points above the warning share of the EPVT."""
    return math.ceil((threshold("CHIN09", "warning") + 5) / 100 * epvt_mb)


def log02_mb_per_s() -> float:
    """Log MB/s of LOG02's burst: 25 % above the critical share of the fastest reference rate for
    1 KB persistent messages, rounded up to 5 MB/s."""
    fastest = log_reference_rates(REFERENCE_DASD["LOG_REF_FASTEST"])[LOG02_MESSAGE]
    return 5.0 * math.ceil(1.25 * threshold("LOG02", "critical") * fastest / 5)


def above_critical_share(rule: str) -> float:
    """A share 10 points above a rule's critical level (BP03: its escalation ratio; CF03: its
    critical percentage)."""
    p = rule_parameters()[rule]
    return p["escalation"] + 0.1 if rule == "BP03" else p["critical"] / 100 + 0.1


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


@dataclass
class Planned:
    injected: list[dict] = field(default_factory=list)
    violations: list[dict] = field(default_factory=list)
    partials: list[dict] = field(default_factory=list)
    assumptions: dict = field(default_factory=dict)
    record_hooks: dict[tuple[int, str], dict] = field(default_factory=dict)
    duplicates: set[tuple[int, str, int]] = field(default_factory=set)
    mutations: dict[tuple[int, int], list[Callable[[QmgrInterval], None]]] = field(default_factory=dict)
    claims: set[tuple] = field(default_factory=set)
    # What the site declares for the configuration rules' injections (the manifest's site_config):
    # {"ims_bridge_queues": [{qmgr_name, queue_name}], "production_qmgrs": [{qmgr_name}],
    # "chin_epvt": [{qmgr_name, chin_epvt_mb}], "processors": [{system_id, processors}],
    # "omvs_limits": [{system_id, max_proc_user}], "chin_user_ids": [{qmgr_name, chin_user_id}]}; CF
    # structure limits come from the topology.
    site: dict[str, list[dict]] = field(default_factory=dict)

    def mutate(self, qmgr_interval: QmgrInterval) -> None:
        for fn in self.mutations.get((qmgr_interval.k, qmgr_interval.m), ()):
            fn(qmgr_interval)


class PlanError(ValueError):
    """An --inject / --violate request cannot be placed in this scenario."""


class _Planner:
    def __init__(self, scenario, rng: np.random.Generator) -> None:
        self.scenario = scenario
        self.topology = scenario.topology
        self.effects = scenario.effects
        self.config = scenario.config
        self.interval_count = self.config.intervals
        self.seconds = self.config.interval_seconds
        self.rng = rng
        self.out = Planned()

    # -- helpers -----------------------------------------------------------------------------
    def start(self, k: int) -> int:
        return self.config.start_us + k * self.seconds * US_PER_S

    def iso(self, k: int) -> str:
        return iso(self.start(k))

    def qmgrs(self, target: Target, min_version: str | None) -> list[QueueManager]:
        cands = self.topology.qmgrs if target.qmgr is None else [self.topology.qmgr(target.qmgr)]
        if min_version:
            ok = [q for q in cands if _vkey(q.version) >= _vkey(min_version)]
            if not ok:
                raise PlanError(
                    f"{target}: needs MQ {min_version} or later (its fields are absent before); "
                    f"queue managers: {', '.join(f'{q.name} {q.version}' for q in cands)}"
                )
            cands = ok
        return cands

    def intervals(self, target: Target, before: int, after: int) -> list[int]:
        lo, hi = before, self.interval_count - 1
        if target.interval is not None:
            k = target.interval
            if not lo <= k <= hi:
                raise PlanError(
                    f"{target}: interval {k} must be in {lo}..{hi} "
                    f"({before} earlier interval(s) needed; scenario has {self.interval_count})"
                )
            return [k]
        ks = list(range(lo, hi + 1))
        preferred = [k for k in ks if k >= 1 and k + after <= hi] or [k for k in ks if k >= 1] or ks
        if not ks:
            raise PlanError(f"{target}: needs at least {before + 1} intervals (scenario has {self.interval_count})")
        return preferred

    def free(self, claims: list[tuple]) -> bool:
        for claim in claims:
            if claim in self.out.claims:
                return False
            if claim[0] != "qi" and ("qi", claim[1], claim[-1]) in self.out.claims:
                return False
            if claim[0] == "qi" and any(x[1] == claim[1] and x[-1] == claim[-1] for x in self.out.claims):
                return False
        return True

    def place(self, target: Target, candidates: list[tuple], what: str):
        """Pick the first free candidate in seeded random order; candidates are (claims, value)."""
        order = self.rng.permutation(len(candidates)) if candidates else []
        for i in order:
            claims, value = candidates[i]
            if self.free(claims):
                self.out.claims.update(claims)
                return value
        raise PlanError(f"{target}: no {what} left to place it on (all taken or not eligible)")

    def queue_candidates(self, target: Target, qms, ks, before, after, pred) -> list:
        out = []
        for qm in qms:
            queues = qm.queues
            if target.object_name is not None:
                idx = [qm.queue_index(target.object_name)]
            else:
                idx = [int(q) for q in np.nonzero(pred(qm, queues))[0]]
            for q in idx:
                for k in ks:
                    span = range(max(0, k - before), min(self.interval_count, k + after + 1))
                    out.append(([("queue", qm.index, q, kk) for kk in span], (qm, q, k)))
        return out

    def busy(self, qm: QueueManager, queues) -> np.ndarray:
        """Private application queues that carry enough traffic to shape."""
        per_interval = (queues.persistent_rate + queues.nonpersistent_rate) * self.seconds
        return (queues.category == CAT_PRIVATE) & (per_interval >= 200)

    def pool_for(self, qm: QueueManager, target: Target, roles: tuple[str, ...]) -> list[int]:
        if target.object_name is not None:
            pool = int(target.object_name)
            qm.pool_index(pool)
            return [pool]
        return [int(p) for p, r in zip(qm.pools, qm.pool_roles, strict=True) if r in roles]

    def record_injection(
        self, rule: str, qm: QueueManager, object_type: str, object_name: str, k: int, how: str, **extra
    ):
        self.out.injected.append(
            dict(
                rule_id=rule,
                qmgr=qm.name,
                object_type=object_type,
                object_name=object_name,
                interval=k,
                interval_start=self.iso(k),
                how=how,
                **extra,
            )
        )

    # -- injections ----------------------------------------------------------------------------
    def inject(self, target: Target) -> None:
        rule = target.id
        before, after = rule_window(rule)
        qms = self.qmgrs(target, RULE_VERSION.get(rule))
        ks = self.intervals(target, before, after)
        effects = self.effects
        if rule in ("BP01", "BP02", "BP04", "BP05", "BP06", "Q02"):
            roles = (ROLE_SYS,) if rule in ("BP05", "BP06") else (ROLE_SHORT,)
            share, with_objects = pool_fill(rule)
            cands = []
            for qm in qms:
                for pool in self.pool_for(qm, target, roles + ((ROLE_SHORT,) if rule in ("BP05", "BP06") else ())):
                    queues = qm.queues
                    in_pool = (
                        (queues.bpid == pool)
                        & ~queues.is_shared
                        & np.isin(queues.category, (CAT_PRIVATE, CAT_SYS_POOL0))
                    )
                    small = in_pool & (queues.size_mean <= 3000)  # one page per message: the share is exact
                    for q in np.nonzero(small if small.any() else in_pool)[0]:
                        for k in ks:
                            claims = [("pool", qm.index, pool, k), ("queue", qm.index, int(q), k)]
                            cands.append((claims, (qm, pool, int(q), k)))
            qm, pool, q, k = self.place(target, cands, "buffer pool")
            effects.fill[(k, qm.index, q)] = (share, with_objects)
            qname = str(qm.queues.name[q])
            if rule == "Q02":
                how = f"a burst on {qname} peaks at {share:.0%} of the pool's buffers in message pages"
            elif rule in ("BP01", "BP06"):
                how = (
                    f"a burst on {qname} overflows the pool ({share:.0%} of its buffers): pages pushed to the page set "
                    f"and read back when got"
                )
            else:
                how = f"a burst on {qname} takes the pool's peak use to {share:.1%} of its buffers"
            self.record_injection(
                rule, qm, "buffer_pool", str(pool), k, how + ", drained before the collection", queue=qname
            )
            return
        if rule in ("BP13", "BP15", "BP16"):
            roles = {"BP13": (ROLE_LONG,), "BP15": (ROLE_SYS, ROLE_SHORT), "BP16": (ROLE_LONG, ROLE_OTHER)}[rule]
            span = rule_window(rule)[0] + 1  # BP16 needs the rate sustained: its window up to k
            cands = [
                ([("pool", qm.index, pool, kk) for kk in range(k - span + 1, k + 1)], (qm, pool, k))
                for qm in qms
                for pool in self.pool_for(qm, target, roles)
                for k in ks
                if k - span + 1 >= 0
            ]
            qm, pool, k = self.place(target, cands, "buffer pool")
            if rule == "BP13":
                # Configured below the bar and large for the interval: half of it free, no pressure.
                buffers = bp13_buffers()
                half = buffers // 2
                effects.pool[(k, qm.index, pool)] = {
                    "QPSTLOC": False,
                    "QPSTNBUF": buffers,
                    "QPSTCBSL": half,
                    "QPSTCBS": half,
                }
                how = f"a LONG pool of {buffers:,} buffers allocated below the bar"
            elif rule == "BP15":
                effects.pool[(k, qm.index, pool)] = {"QPSTLOC": False, "QPSTCBSL": 0}
                how = "a pool below the bar runs out of free buffers (no stealable buffer left at its low point)"
            else:
                pages_per_s = bp16_pages_per_s()
                for kk in range(k - span + 1, k + 1):
                    effects.pool[(kk, qm.index, pool)] = {"QPSTTPW": pages_per_s * self.seconds, "QPSTF4KB": False}
                how = (
                    f"{pages_per_s} pages written per second for {NUMBER_WORDS.get(span, span)} intervals in a pool "
                    "without page-fixed buffers"
                )
            self.record_injection(rule, qm, "buffer_pool", str(pool), k, how)
            return
        if rule == "BP03":
            cands = [
                ([("pool", qm.index, pool, k)], (qm, pool, k))
                for qm in qms
                for pool in self.pool_for(qm, target, (ROLE_SHORT, ROLE_SYS))
                for k in ks
            ]
            qm, pool, k = self.place(target, cands, "buffer pool")
            steals = 40_000 + int(self.rng.integers(0, 20_000))  # far above BP03's minimum volume
            contention = above_critical_share("BP03")
            effects.pool[(k, qm.index, pool)] = {"QPSTSTL": steals, "QPSTSTLA": int(steals * contention)}
            self.record_injection(
                rule,
                qm,
                "buffer_pool",
                str(pool),
                k,
                f"thrashing: buffers stolen while still wanted, with contention on {contention * 100:.0f} % of the steals",
            )
            return
        if rule in ("LOG01", "LOG02", "LOG03"):
            cands = []
            for qm in qms:
                for k in ks:
                    claims = [("log", qm.index, k)]
                    if rule == "LOG02":
                        for q in np.nonzero(self.busy(qm, qm.queues) & (qm.queues.bpid >= 0))[0]:
                            more = [("queue", qm.index, int(q), k), ("pool", qm.index, int(qm.queues.bpid[q]), k)]
                            cands.append((claims + more, (qm, k, int(q))))
                    else:
                        cands.append((claims, (qm, k, None)))
            qm, k, q = self.place(target, cands, "queue manager interval")
            if rule == "LOG01":
                effects.log[(k, qm.index)] = {"QJSTWTB": 20 + int(self.rng.integers(0, 80))}
                how = "log output buffers all in use: writers waited (OUTBUFF too small for a burst)"
            elif rule == "LOG02":
                per_msg = LOG02_MESSAGE + 1300 + 500
                mb_per_s = log02_mb_per_s()
                msgs = int(np.ceil(mb_per_s * 2**20 * self.seconds / per_msg))
                effects.burst[(k, qm.index, q)] = (msgs, LOG02_MESSAGE)
                how = (
                    f"{msgs:,} persistent {LOG02_MESSAGE}-byte messages put and got on {qm.queues.name[q]} "
                    f"(about {mb_per_s:.0f} MB/s of log)"
                )
            else:
                effects.checkpoint[(k, qm.index)] = 20
                how = "20 checkpoints in the interval (LOGLOAD set far too low / log switches)"
            self.record_injection(rule, qm, "queue_manager", qm.name, k, how)
            return
        if rule in ("CF01", "CF02", "CF03", "CF06", "CF08"):
            names = self.topology.structure_names
            if rule in ("CF06", "CF08"):  # the site's structure limits: QSG members only
                qms = [qm for qm in qms if qm.qsg]
            if target.object_name is not None:
                structs = [names.index(target.object_name)] if target.object_name in names else []
                if not structs:
                    raise PlanError(f"{target}: no CF structure {target.object_name!r} (have {', '.join(names)})")
            elif rule in ("CF02", "CF08"):
                structs = [names.index("CSQ_ADMIN")]
            else:
                structs = [i for i, n in enumerate(names) if n.startswith("APPL")]
            cands = []
            for qm in qms:
                for s in structs:
                    for k in ks:
                        cands.append(([("cf", qm.index, s, k)], (qm, s, k)))
            qm, s, k = self.place(target, cands, "CF structure")
            _, entries, elements, _ = self.topology.structures[s]
            if rule in ("CF01", "CF02"):
                effects.cf[(k, qm.index, s)] = {
                    "QESTSFUL": 3 + int(self.rng.integers(0, 30)),
                    "QESTMNUS": entries,
                    "QESTMLUS": int(elements * 0.97),
                }
                if rule == "CF01":
                    effects.failed_puts[(k, qm.index, s)] = 25
                how = "structure full: all entries in use; puts failed with 2192"
            elif rule == "CF06":
                share = cf06_used_share()
                effects.cf[(k, qm.index, s)] = {"QESTMNUS": int(share * entries), "QESTMLUS": int(share * elements)}
                how = (
                    f"a backlog fills {share:.0%} of the structure's entries and elements (limits declared by the site: "
                    f"{entries:,} / {elements:,})"
                )
            elif rule == "CF08":
                members = sum(1 for m in self.topology.qmgrs if m.qsg == qm.qsg)
                free = cf08_free_entries(members)
                effects.cf[(k, qm.index, s)] = {"QESTMNUS": entries - free, "QESTMLUS": 2 * (entries - free)}
                how = (
                    f"the admin structure keeps only {free:,} of its {entries:,} entries free for {members} queue "
                    "managers"
                )
            else:
                share = above_critical_share("CF03")
                effects.size_spread.add((k, qm.index, s))
                # Twice CF03's minimum volume of requests, so that the rule is evaluated.
                effects.redrive[(k, qm.index, s)] = (share, int(2 * rule_parameters()["CF03"]["min_volume"]))
                how = f"message sizes straddle the CF buffer boundaries: {share * 100:.0f} % of the gets are re-driven"
            self.record_injection(rule, qm, "cf_structure", names[s], k, how)
            return
        if rule in ("CF07", "CF09", "CF10", "CF11", "CF13", "DB02", "DB03"):
            self.inject_record_values(target, rule, qms, ks)
            return
        if rule == "CF17":
            self.inject_qsg_log_bound(target, qms, ks)
            return
        if rule in ACCOUNTING_RULES:
            self.inject_accounting(target, rule, qms, ks)
            return
        if rule in CHIN_RULES:
            self.inject_channel_initiator(target, rule, qms, ks)
            return
        if rule == "Q09":
            self.inject_ims_bridge(target, qms, ks)
            return
        if rule == "BP12":
            self.inject_production_pool(target, qms, ks)
            return
        if rule == "CF15":
            self.inject_structure_backlog(target, qms, ks)
            return
        if rule == "BP14":
            self.inject_checkpoint_burst(target, qms, ks)
            return
        if rule == "CF16":
            self.inject_batch_delete(target, qms, ks)
            return
        if rule == "LOG15":
            self.inject_multi_ci_log_writes(target, qms, ks)
            return
        if rule in ("LOG12", "LOG13"):
            self.inject_recovery_log_burst(target, rule, qms, ks)
            return
        if rule in CHANNEL_RULES:
            self.inject_channel(target, rule, qms, ks)
            return
        if rule == "LOG10":
            self.inject_unexplained_log(target, qms, ks)
            return
        if rule == "CHIN18":
            self.inject_compression(target, qms, ks)
            return
        if rule in SUPPLEMENTARY_OBJECTS:
            self.inject_supplementary(target, rule, qms, ks)
            return
        if rule == "Q01":
            cands = [([("pool", qm.index, 0, k), ("qi_q01", qm.index, k)], (qm, k)) for qm in qms for k in ks]
            qm, k = self.place(target, cands, "queue manager interval")
            name = target.object_name or f"CSQ.{int(self.rng.integers(0, 2**63)):016X}"
            effects.dynamic.setdefault((k, qm.index), []).append(dict(name=name, psid=0, bpid=0, depth=20))
            self.record_injection(
                rule, qm, "queue", name, k, "dynamic reply queue from a SYSTEM-class model lands on page set 0 / pool 0"
            )
            return
        # Queue rules
        min_cap = 10 if rule == "Q03" else 1  # three rises of at least 3 messages stay inside the pool budget

        def shorts(qm, queues):
            return self.busy(qm, queues) & (queues.bpid == qm.pool_of_role(ROLE_SHORT)) & (queues.depth_cap >= min_cap)

        quiet = 2  # intervals before k without checkpoints (Q04: the checkpoint at k is the first in a while)
        if rule == "Q04" and target.interval is None:
            ks = [k for k in ks if k >= quiet] or ks  # the quiet intervals before k lie inside the data
        cands = self.queue_candidates(target, qms, ks, before, after, shorts)
        if rule == "Q04":  # it also sets the queue manager's checkpoints in its window
            cands = [
                (claims + [("log", qm.index, kk) for kk in range(max(0, k - quiet), k + 1)], (qm, q, k))
                for claims, (qm, q, k) in cands
            ]
        qm, q, k = self.place(target, cands, "queue")
        qname = str(qm.queues.name[q])
        m = qm.index
        if rule == "Q03":
            run = run_length(rule)
            for kk in range(k - run + 1, k + 1):
                effects.rise.add((kk, m, q))
            if k - run >= 0:
                effects.no_rise.add((k - run, m, q))
            how = (
                f"consumer falling behind: depth rises for {NUMBER_WORDS.get(run, run)} intervals with puts above gets"
            )
        elif rule == "Q04":
            held = rule_window(rule)[0]  # Q04's threshold in checkpoint intervals: held half an interval longer
            put_time = self.start(k - held) + self.seconds * US_PER_S // 2
            for kk in range(k - held, k + 1):
                effects.hold[(kk, m, q)] = put_time
                if kk > k - held:
                    effects.no_rise.add((kk, m, q))
            # Exactly one checkpoint, at k: none in the intervals before it that LOG03 looks at too.
            for kk in range(max(0, k - quiet), k):
                effects.checkpoint_max[(kk, m)] = 0
            effects.checkpoint[(k, m)] = 1
            how = (
                f"a message nobody gets stays on a short-lived queue for {held + 0.5:g} intervals, across a checkpoint"
            )
        elif rule == "Q07":
            effects.expire[(k, m, q)] = 25
            how = "25 messages expired on the queue (queue-manager expiry scan assumed off: EXPRYINT 0)"
        else:  # Q10
            run = run_length(rule)
            for kk in range(k - run + 1, k + 1):
                effects.uncommitted.add((kk, m, q))
            for kk in (k - run, k + 1):
                if 0 <= kk < self.interval_count:
                    effects.no_uncommitted.add((kk, m, q))
            how = f"a unit of work stays uncommitted across {NUMBER_WORDS.get(run, run)} collections"
        self.record_injection(rule, qm, "queue", qname, k, how)

    def mutate(self, qm: QueueManager, k: int, fn: Callable[[QmgrInterval], None]) -> None:
        self.out.mutations.setdefault((k, qm.index), []).append(fn)

    def inject_record_values(self, target: Target, rule: str, qms, ks) -> None:
        """Pathologies that are values of one record: set in the interval's generated structures
        before they are written (like --violate), so the rest of the record stays as simulated."""
        p = rule_parameters()
        names = self.topology.structure_names
        in_qsg = [qm for qm in qms if qm.qsg]
        if not in_qsg:
            raise PlanError(f"{target}: needs a queue manager in a queue-sharing group")
        if rule in ("CF07", "CF11"):
            # Application structures (CF11: those with shared message data sets).
            structs = [i for i, (n, *_, smds) in enumerate(self.topology.structures) if n.startswith("APPL")]
            structs = [i for i in structs if self.topology.structures[i][3]] if rule == "CF11" else structs
            if target.object_name is not None:
                structs = [i for i in structs if names[i] == target.object_name]
            kind = "cf" if rule == "CF07" else "smds"
            cands = [([(kind, qm.index, s, k)], (qm, s, k)) for qm in in_qsg for s in structs for k in ks]
            qm, s, k = self.place(target, cands, "CF structure")
            if rule == "CF07":
                entries = int(2 * p["CF07"]["min_volume"])
                ratio = p["CF07"]["high_ratio"] + 3

                def fn(qi, s=s):
                    cols = qi.structures["QEST"]
                    cols["QESTMNUS"][s] = max(int(cols["QESTMNUS"][s]), entries)
                    cols["QESTMLUS"][s] = int(ratio * cols["QESTMNUS"][s])

                how = f"large messages take {ratio:g} list elements per entry: elements run out long before entries"
            else:
                used = 0.97

                def fn(qi, name=names[s]):
                    cols = qi.structures["QESD"]
                    i = list(cols["QESDSTR"]).index(name)
                    total = int(cols["QESDSMBT"][i])
                    cols["QESDSMBU"][i] = int(used * total)
                    cols["QESDSMBF"][i] = max(0, total - 100 - int(used * total))
                    cols["QESDSMFL"][i] = 4

                how = f"the shared message data set is {used:.0%} used and 4 block allocations failed"
            self.mutate(qm, k, fn)
            self.record_injection(rule, qm, "cf_structure" if rule == "CF07" else "smds", names[s], k, how)
            return
        if rule in ("CF09", "DB02", "DB03"):
            cands = [([("db2", qm.index, k)], (qm, k)) for qm in in_qsg for k in ks if rule != "DB03" or k >= 1]
            qm, k = self.place(target, cands, "queue manager interval (Db2 manager)")
            if rule == "CF09":
                blobs = 120

                def fn(qi):
                    cols = qi.structures["Q5ST"]
                    cols["LMSINS"][0], cols["LMSSEL"][0], cols["LMSDEL"][0] = blobs, blobs, blobs - 5

                how = f"{blobs} shared-queue messages above 63 KB stored as Db2 BLOBs (inserted, read, deleted)"
            elif rule == "DB02":
                thread_us = int(2.5 * p["DB02"]["warning"])
                reads = int(4 * p["DB02"]["min_volume"])

                def fn(qi):
                    cols = qi.structures["Q5ST"]
                    cols["READCNT"][0] = max(int(cols["READCNT"][0]), reads)
                    cols["READTCUW"][0] = int(cols["READCNT"][0]) * thread_us
                    cols["READSCUW"][0] = int(cols["READCNT"][0]) * (thread_us - 100)

                how = f"Db2 reads take {thread_us} us of thread time each"
            else:
                per_hour = 6 * p["DB03"]["info"]
                updates = int(math.ceil(per_hour * self.seconds / 3600))

                def fn(qi):
                    cols = qi.structures["Q5ST"]
                    cols["SCSUPD"][0] = updates
                    cols["SCSSEL"][0] = int(cols["SCSSEL"][0]) + updates

                how = f"shared channels change state {updates} times in the interval ({per_hour:g} per hour)"
            self.mutate(qm, k, fn)
            self.record_injection(rule, qm, "db2_manager", qm.name, k, how)
            return
        # CF10 / CF13: one shared queue's row on one queue manager.
        cands = self.queue_candidates(target, in_qsg, ks, 0, 0, lambda qm, queues: queues.is_shared)
        if rule == "CF13":  # another member must have the queue open for input in the same interval
            cands = [
                (claims + [("queue", other.index, other.queue_index(str(qm.queues.name[q])), k)], (qm, q, k, other))
                for claims, (qm, q, k) in cands
                for other in self.topology.qmgrs[:]
                if other is not qm and other.qsg == qm.qsg and str(qm.queues.name[q]) in set(other.queues.name)
            ]
        else:
            cands = [(claims, (qm, q, k, None)) for claims, (qm, q, k) in cands]
        qm, q, k, other = self.place(target, cands, "shared queue")
        qname = str(qm.queues.name[q])
        if rule == "CF10":
            size = int(p["CF10"]["info"]) + 35_488  # 100,000 bytes

            def fn(qi, q=q):
                cols = qi.structures["QQST"]
                cols["QQSTMSMA"][q] = max(int(cols["QQSTMSMA"][q]), size)

            how = f"one message of {size:,} bytes put to the shared queue (above the 63 KB a CF entry can hold)"
        else:
            gets = max(int(p["CF13"]["min_volume"]), 1)

            def fn(qi, q=q):
                cols = qi.structures["QQST"]
                more = max(0, gets - int(cols["QQSTPUTS"][q]))  # puts of its own, non-persistent
                cols["QQSTPUTS"][q] = int(cols["QQSTPUTS"][q]) + more
                cols["QQSTNPPT"][q] = int(cols["QQSTNPPT"][q]) + more
                cols["QQSTDPLO"][q] = 0
                cols["QQSTDPHI"][q] = 1
                cols["QQSTDPTH"][q] = min(int(cols["QQSTDPTH"][q]), 1)
                cols["QQSTGETS"][q] = max(int(cols["QQSTGETS"][q]), gets)
                cols["QQSTIPCT"][q] = max(int(cols["QQSTIPCT"][q]), 1)
                cols["QQSTIPHI"][q] = max(int(cols["QQSTIPHI"][q]), int(cols["QQSTIPCT"][q]))

            other_q = other.queue_index(qname)

            def open_elsewhere(qi, q=other_q):
                cols = qi.structures["QQST"]
                cols["QQSTIPCT"][q] = max(int(cols["QQSTIPCT"][q]), 1)
                cols["QQSTIPHI"][q] = max(int(cols["QQSTIPHI"][q]), int(cols["QQSTIPCT"][q]))

            self.mutate(other, k, open_elsewhere)
            how = f"the shared queue goes empty after every message while {other.name} also waits on it for input"
        self.mutate(qm, k, fn)
        self.record_injection(rule, qm, "queue", qname, k, how)

    def inject_accounting(self, target: Target, rule: str, qms, ks) -> None:
        """Class 3 accounting pathologies: a task of its own (Effects.accounting) whose WTAS and WQ
        blocks cross the rule's threshold; Q12 and Q13 also set the queue's QQST values of the
        interval, DB01 the queue manager's Q5ST counters."""
        p = rule_parameters()
        if rule in ("CF12", "CF14", "DB01"):
            qms = [qm for qm in qms if qm.qsg]
            if not qms:
                raise PlanError(f"{target}: needs a queue manager in a queue-sharing group")
        if rule == "Q11":  # page set reads in the restart window after the start are expected
            window_us = p["Q11"]["restart_window_minutes"] * 60 * US_PER_S
            ks = [
                k
                for k in ks
                if all(
                    qm.intervals[min(k, len(qm.intervals) - 1)].start_us - qm.intervals[0].start_us >= window_us
                    for qm in qms
                )
            ]
            if not ks:
                raise PlanError(
                    f"{target}: needs an interval at least {p['Q11']['restart_window_minutes']:g} minutes after the start"
                )

        def plain_queues(qm, queues, shared=False):
            """Queues no server task gets from (their replies may go there): shared ones, or busy
            private ones with consumers (Q12: in the LONG pool)."""
            unused = ~np.isin(np.arange(len(queues.name)), sorted(server_input_queues(qm)))
            if shared:  # an application's shared queue
                return unused & queues.is_shared & ~np.char.startswith(queues.name.astype(str), "SYSTEM.")
            wanted = self.busy(qm, queues) & unused & (queues.consumers >= 1)
            return wanted & (queues.bpid == qm.pool_of_role(ROLE_LONG)) if rule == "Q12" else wanted

        if rule in ("CF14", "DB01", "APP01", "APP02"):
            cands = [
                ([("acct", qm.index, k)] + ([("db2", qm.index, k)] if rule == "DB01" else []), (qm, None, k))
                for qm in qms
                for k in ks
            ]
        else:
            cands = [
                (claims + [("acct", qm.index, k)], (qm, q, k))
                for claims, (qm, q, k) in self.queue_candidates(
                    target, qms, ks, 0, 0, lambda qm, queues: plain_queues(qm, queues, shared=rule == "CF12")
                )
            ]
        qm, q, k = self.place(target, cands, "queue manager interval (accounting)")
        number = INJECTED_TASK_BASE + len(self.out.injected)
        job = f"{qm.name[:4]}J{number:03d}"
        started = self.config.start_us - 2 * 3600 * US_PER_S
        seconds = (qm.intervals[k].end_us - qm.intervals[k].start_us) // US_PER_S
        qname = str(qm.queues.name[q]) if q is not None else None
        object_type, object_name = "queue", qname

        def add(make: Callable[..., Task]) -> None:
            self.effects.accounting.setdefault((k, qm.index), []).append(lambda *args: [make(*args)])

        def private_queue(qm_) -> int:
            """A private queue for a task's puts: the busiest one no server task gets from."""
            queues = qm_.queues
            rate = queues.persistent_rate + queues.nonpersistent_rate
            free = [int(i) for i in np.argsort(-rate, kind="stable") if not queues.is_shared[i]]
            return next(i for i in free if i not in server_input_queues(qm_))

        if rule == "Q05":
            gets = 200
            skipped = int(gets * (p["Q05"]["warning"] + 5))

            def make(qm_, columns, structures):
                block = queue_block(qm_, q, structures, gets=gets, specific_gets=gets, skipped=skipped, depth_max=400)
                return Task(job, number, started, commits=gets, queues=[block])

            how = f"{gets} gets by message id on the unindexed queue skip {skipped // gets} messages each"
        elif rule == "Q11":
            gets = 2000
            from_disk = int(gets * 5 * p["Q11"]["warning"])

            def make(qm_, columns, structures):
                block = queue_block(qm_, q, structures, gets=gets, page_set_gets=from_disk)
                return Task(job, number, started, commits=gets // 10, queues=[block])

            how = f"{from_disk} of {gets} gets read the message from the page set"
        elif rule == "Q12":
            depth = int(1.2 * p["Q12"]["info"])

            def make(qm_, columns, structures):
                block = queue_block(
                    qm_, q, structures, gets=10, specific_gets=10, index_type=MQIT_MSGID, depth_max=depth
                )
                return Task(job, number, started, commits=10, queues=[block])

            def deep(qi, q=q):
                cols = qi.structures["QQST"]
                cols["QQSTDPTH"][q] = depth
                if "QQSTDPHI" in cols:
                    cols["QQSTDPHI"][q] = max(int(cols["QQSTDPHI"][q]), depth)

            self.mutate(qm, k, deep)
            how = f"a private queue indexed by message id holds {depth:,} messages"
        elif rule == "Q13":
            busy_share = p["Q13"]["warning"] + 0.05

            def make(qm_, columns, structures):
                row = list(np.asarray(columns["QQSTQNAM"], dtype=object)).index(qname)
                gets = int(columns["QQSTGETS"][row])
                block = queue_block(qm_, q, structures, gets=gets)
                commits = -(-gets // 10)
                commit_us = max(0, int(busy_share * seconds * US_PER_S) - gets * GET_US)
                return Task(job, number, started, commits=commits, commit_us=commit_us, queues=[block])

            def single_handle(qi, q=q):
                cols = qi.structures["QQST"]
                cols["QQSTIPCT"][q] = 1
                for name, keep in (("QQSTIPHI", max), ("QQSTIPLO", min)):
                    if name in cols:
                        cols[name][q] = keep(int(cols[name][q]), 1)

            self.mutate(qm, k, single_handle)
            how = f"the queue's only consumer is busy {busy_share:.0%} of the interval in gets and commits"
        elif rule == "CF12":
            opens = int(3 * p["CF12"]["opens_per_second"] * seconds)
            first_opens = int(0.9 * opens)

            def make(qm_, columns, structures):
                block = queue_block(qm_, q, structures, puts=opens, opens=opens, opens_without_cf=opens - first_opens)
                return Task(
                    job, number, started, latch={11: (opens // 2, min(opens * 5, TOD_HIGH_MAX_US), 900)}, queues=[block]
                )

            how = f"the shared queue is opened {opens // seconds} times a second, {first_opens / opens:.0%} of them first opens"
        elif rule == "CF14":
            shared = qm.queues.is_shared
            by_structure: dict[int, int] = {}
            for i in np.nonzero(shared)[0]:
                by_structure.setdefault(int(qm.queues.structure[i]), int(i))
            picks = sorted(by_structure.values())[: int(p["CF14"]["info"]) + 1]
            if len(picks) < p["CF14"]["info"]:
                raise PlanError(f"{target}: {qm.name} has shared queues in fewer than {p['CF14']['info']:g} structures")

            def make(qm_, columns, structures):
                blocks = [queue_block(qm_, i, structures, puts=50, opens=1) for i in picks]
                return Task(job, number, started, commits=50, queues=blocks)

            how = f"each unit of work puts to shared queues of {len(picks)} CF structures"
            object_type, object_name = "task", None
        elif rule == "APP01":
            commits = 5
            per_commit = int(2 * p["APP01"]["warning"])
            target_q = private_queue(qm)

            def make(qm_, columns, structures):
                block = queue_block(qm_, target_q, structures, puts=commits * per_commit, opens=1)
                return Task(job, number, started, commits=commits, queues=[block])

            how = f"a batch job puts {per_commit} messages per commit"
            object_type = "task"
        elif rule == "APP02":
            commits = int(2 * p["APP02"]["info"] * seconds)
            target_q = private_queue(qm)

            def make(qm_, columns, structures):
                block = queue_block(qm_, target_q, structures, puts=commits, persistent_puts=commits, opens=1)
                return Task(job, number, started, commits=commits, queues=[block])

            how = f"{commits // seconds} commits a second, each of one persistent message"
            object_type = "task"
        else:  # DB01
            opens = 4 * seconds  # four failed opens a second, each a Db2 look-up
            reads_per_s = 5 * p["DB01"]["warning"]

            def make(qm_, columns, structures):
                # As in MP16's example (ch. 6, p. 183): the failed open has no WQ block; the task
                # shows "Other reqs : Count 2" and "DB2 activity : 1 requests" per attempt.
                return Task(job, number, started, db2_requests=opens, other_requests=2 * opens, queues=[])

            def lookups(qi):
                cols, opened = qi.structures["Q5ST"], int(qi.structures["QMST"]["QMSTOPEN"][0])
                reads = max(int(reads_per_s * seconds), int(2 * p["DB01"]["min_reads_per_open"] * opened) + 1)
                cols["READCNT"][0] = reads
                cols["READTCUW"][0] = reads * 310
                cols["READSCUW"][0] = reads * 260
                cols["WRITCNT"][0] = cols["UPDTCNT"][0] = cols["DELECNT"][0] = 0

            self.mutate(qm, k, lookups)
            how = (
                f"an application opens the undefined queue {UNDEFINED_QUEUE} {opens // seconds} times a second: "
                f"Db2 reads of at least {reads_per_s:g} a second, no definitions changed"
            )
            object_type, object_name = "db2_manager", qm.name
        if object_type == "task":
            object_name = f"{job}:{task_tokens(number)}"
        add(make)
        self.record_injection(rule, qm, object_type, object_name, k, how, **({"task": job} if q is None else {}))

    def inject_channel_initiator(self, target: Target, rule: str, qms, ks) -> None:
        """Channel initiator pathologies: values of the interval's 115/231 record (QCCT and the
        task arrays), every array keeping its number of tasks."""
        p = rule_parameters()
        eligible = {
            "CHIN03": lambda qm: qm.dispatchers >= 2,
            "CHIN05": lambda qm: qm.dispatchers < p["CHIN05"]["recommended_dispatchers"],
            "CHIN06": lambda qm: qm.ssl_tasks > 0,
            # CHIN07 runs one SSL task fewer than the processors and one more than the dispatchers.
            "CHIN07": lambda qm: qm.ssl_tasks >= site_processors() - 1 and qm.dispatchers >= site_processors() - 2,
            # CHIN10 adds dispatchers (and SSL tasks, where SSL is used).
            "CHIN10": lambda qm: (
                (chin10_threads(CHIN10_SITE_MAX_PROC_USER) - p["CHIN10"]["threads_per_chin"]) // 2 > qm.dispatchers
            ),
        }.get(rule, lambda qm: True)
        peers = [q.name for q in self.topology.qmgrs]
        # CHIN02 also sets the persistent traffic of the first accounted channel.
        channel = lambda qm: [("channel", qm.index, channel_object_name(accounted_channels(qm, peers)[0]))]  # noqa: E731
        cands = [
            ([("chin", qm.index, k), *([c + (k,) for c in channel(qm)] if rule == "CHIN02" else [])], (qm, k))
            for qm in qms
            if eligible(qm)
            for k in ks
        ]
        qm, k = self.place(target, cands, "channel initiator interval")
        if rule in ("CHIN02", "CHIN07"):  # the site declares the processors of the LPAR
            declared = {d["system_id"] for d in self.out.site.get("processors", [])}
            if qm.system_id not in declared:
                self.out.site.setdefault("processors", []).append(
                    {"system_id": qm.system_id, "processors": site_processors()}
                )
        if rule == "CHIN01":
            # Every adapter busy 10 points above the escalation level, the first ones a little more.
            lowest = (p["CHIN01"]["escalation"] + 10) / 100

            def fn(qi):
                cols = qi.structures["QCTADP"]
                n = len(cols["QCTELTM"])
                for i in range(n):
                    _set_task_busy(cols, i, min(0.95, lowest + 0.02 * (n - 1 - i)))

            how = f"every adapter busy at least {lowest:.0%} of the interval: MQI requests from channels queue for one"
        elif rule in ("CHIN03", "CHIN04"):
            # CHIN03: one dispatcher between CHIN03's and CHIN04's levels, the others idle;
            # CHIN04: one dispatcher 15 points above CHIN04's level, the others as simulated.
            if rule == "CHIN03":
                busiest = (p["CHIN03"]["warning"] + p["CHIN04"]["warning"]) / 200
                idle = p["CHIN03"]["idle_busy_pct"] / 200
            else:
                busiest, idle = min(0.95, (p["CHIN04"]["warning"] + 15) / 100), None

            def fn(qi):
                cols = qi.structures["QCTDSP"]
                _set_task_busy(cols, 0, busiest)
                for i in range(1, len(cols["QCTELTM"]) if idle is not None else 1):
                    _set_task_busy(cols, i, idle)

            how = f"dispatcher 0 busy {busiest:.0%} of the interval" + (
                f" while the others are busy {idle:.1%}" if idle is not None else ": a throughput limit"
            )
        elif rule == "CHIN05":
            channels = int(1.5 * p["CHIN05"]["info"])

            def fn(qi):
                cols = qi.structures["QCCT"]
                cols["QCCTNOCC"][0] = channels
                cols["QCCTMXCC"][0] = max(int(cols["QCCTMXCC"][0]), 2 * channels)  # far from MAXCHL (CHIN08)
                dispatchers = qi.structures["QCTDSP"]
                n = len(dispatchers["QCTCHLN"])
                for i in range(n):  # spread evenly, as the channel initiator does (no CHIN03)
                    dispatchers["QCTCHLN"][i] = channels // n + (i < channels % n)

            how = f"{channels:,} current channels on {qm.dispatchers} dispatchers"
        elif rule == "CHIN06":
            busy = min(0.99, (p["CHIN06"]["warning"] + 5) / 100)

            def fn(qi):
                _set_task_busy(qi.structures["QCTSSL"], 0, busy)

            how = f"SSL task 0 busy {busy:.0%} of the interval: channels bound to it wait"
        elif rule == "CHIN02":
            per_second = 2 * p["CHIN02"]["min_persistent_msgs_per_second"]

            def fn(qi):
                cols = qi.structures["QCST"]
                msgs = int(per_second * self.seconds)
                size = int(cols["QCSTNBYT"][0]) // max(1, int(cols["QCSTNMSG"][0])) or 1000
                cols["QCSTNMSG"][0] = cols["QCSTNPMG"][0] = msgs
                cols["QCSTNBYT"][0] = cols["QCSTNPBY"][0] = msgs * size
                cols["QCSTBATC"][0] = -(-msgs // 8)
                cols["QCSTFUBA"][0] = 0
                cols["QCSTBYST"][0] = msgs * (size + MESSAGE_HEADER_BYTES)

            how = (
                f"{per_second:g} persistent messages a second over a sender channel, on {qm.adapters} adapters in an "
                f"LPAR the site declares with {site_processors()} processors"
            )
        elif rule == "CHIN07":
            ssl_tasks = site_processors() - 1
            dispatchers = ssl_tasks - int(p["CHIN07"]["ssl_tasks_above_dispatchers"])

            def fn(qi):
                _keep_tasks(qi, "QCTDSP", dispatchers)
                _keep_tasks(qi, "QCTSSL", ssl_tasks)

            how = (
                f"CHIDISPS({dispatchers}) SSLTASKS({ssl_tasks}) in an LPAR the site declares with {site_processors()} "
                "processors: no more SSL tasks than processors"
            )
        elif rule == "CHIN10":
            site = self.out.site
            limits = {d["system_id"]: d["max_proc_user"] for d in site.get("omvs_limits", [])}
            max_proc_user = limits.get(qm.system_id, CHIN10_SITE_MAX_PROC_USER)
            if qm.system_id not in limits:
                site.setdefault("omvs_limits", []).append({"system_id": qm.system_id, "max_proc_user": max_proc_user})
            if qm.name not in {c["qmgr_name"] for c in site.get("chin_user_ids", [])}:
                site.setdefault("chin_user_ids", []).append(
                    {"qmgr_name": qm.name, "chin_user_id": f"{qm.name}CHIN"[:8]}
                )
            threads = chin10_threads(max_proc_user) - int(p["CHIN10"]["threads_per_chin"])
            # With SSL, SSLTASKS follows CHIDISPS (dispatchers + 1, so CHIN07 stays silent).
            above = int(p["CHIN07"]["ssl_tasks_above_dispatchers"]) if qm.ssl_tasks else 0
            dispatchers = -(-(threads - above) // 2) if qm.ssl_tasks else threads
            ssl_tasks = dispatchers + above if qm.ssl_tasks else 0

            def fn(qi):
                _add_tasks(qi, "QCTDSP", dispatchers)
                if ssl_tasks:
                    _add_tasks(qi, "QCTSSL", ssl_tasks)

            how = (
                f"CHIDISPS raised to {dispatchers}"
                + (f" and SSLTASKS to {ssl_tasks}" if ssl_tasks else "")
                + f": {dispatchers + ssl_tasks + int(p['CHIN10']['threads_per_chin'])} OMVS threads for the channel "
                f"initiator's user id, whose MAXPROCUSER the site declares as {max_proc_user}"
            )
        elif rule == "CHIN09":
            declared = {c["qmgr_name"]: c["chin_epvt_mb"] for c in self.out.site.get("chin_epvt", [])}
            epvt_mb = declared.get(qm.name, CHIN09_SITE_EPVT_MB)
            if qm.name not in declared:
                self.out.site.setdefault("chin_epvt", []).append({"qmgr_name": qm.name, "chin_epvt_mb": epvt_mb})
            used_mb = chin09_storage_mb(epvt_mb)

            def fn(qi):
                qi.structures["QCCT"]["QCCTSTUS"][0] = used_mb

            how = (
                f"{used_mb:,} MB of 31-bit storage in use of the {epvt_mb:,} MB EPVT the site declares: the scavenger "
                "runs and large buffers may not be obtained"
            )
        else:  # CHIN08
            share = (p["CHIN08"]["warning"] + 5) / 100

            def fn(qi):
                cols = qi.structures["QCCT"]
                cols["QCCTNOAC"][0] = math.ceil(share * int(cols["QCCTMXAC"][0]))
                cols["QCCTNOCC"][0] = max(int(cols["QCCTNOCC"][0]), int(cols["QCCTNOAC"][0]))

            how = f"active channels reach {share:.0%} of ACTCHL: new channels may be refused"
        self.mutate(qm, k, fn)
        self.record_injection(rule, qm, "channel_initiator", f"{qm.name}CHIN", k, how)

    def inject_supplementary(self, target: Target, rule: str, qms, ks) -> None:
        if rule in ("SUP07", "SUP08", "SUP09", "SUP10"):
            self.inject_supplementary_managers(target, rule, qms, ks)
            return
        self.inject_supplementary_counters(target, rule, qms, ks)

    def inject_supplementary_managers(self, target: Target, rule: str, qms, ks) -> None:
        """SUP07 (lock requests per call, against the previous intervals), SUP08 (Db2 server task
        abends and deadlock timeouts), SUP09 (SMDS buffer waits) and SUP10 (a slow DNS request):
        values of the interval's QLST, Q5ST, QESD or 115/231 DNS task, set before it is written."""
        p = rule_parameters()[rule]
        names = self.topology.structure_names
        if rule in ("SUP08", "SUP09"):  # Db2 and SMDS statistics: QSG members only
            qms = [qm for qm in qms if qm.qsg]
            if not qms:
                raise PlanError(f"{target}: needs a queue manager in a queue-sharing group")
        if rule == "SUP09":
            structs = [i for i, (n, *_, smds) in enumerate(self.topology.structures) if smds and n.startswith("APPL")]
            if target.object_name is not None:
                structs = [i for i in structs if names[i] == target.object_name]
            cands = [([("smds", qm.index, s, k)], (qm, s, k)) for qm in qms for s in structs for k in ks]
            qm, s, k = self.place(target, cands, "shared message data set")
            pool_waits, buffer_waits = 4, 25

            def fn(qi, name=names[s]):
                cols = qi.structures["QESD"]
                i = list(cols["QESDSTR"]).index(name)
                cols["QESDBFWP"][i], cols["QESDBFWB"][i] = pool_waits, buffer_waits
                cols["QESDBFPT"][i], cols["QESDBFBT"][i] = pool_waits * 1_500, buffer_waits * 900  # microseconds
                cols["QESDBFMP"][i], cols["QESDBFMB"][i] = 2, 3

            self.mutate(qm, k, fn)
            how = f"{pool_waits} waits for the SMDS buffer pool and {buffer_waits} for a buffer (DSBUFS too small)"
            self.record_injection(rule, qm, "smds", names[s], k, how)
            return
        claim = {"SUP07": "lock", "SUP08": "db2", "SUP10": "chin"}[rule]
        ks = [k for k in ks if k >= 1] if rule == "SUP07" else ks  # SUP07 needs an interval before it
        if not ks:
            raise PlanError(f"{target}: needs an interval after the first (its baseline)")
        cands = [([(claim, qm.index, k)], (qm, k)) for qm in qms for k in ks]
        qm, k = self.place(target, cands, "queue manager interval")
        object_name = qm.name
        if rule == "SUP07":
            factor = p["info"] + 2  # lock requests per call this many times the usual

            def fn(qi):
                cols = qi.structures["QLST"]
                for name in ("QLSTGETL", "QLSTRELL", "QLSTHLDL"):
                    cols[name][0] = int(factor * int(cols[name][0]))

            how = f"units of work {factor:g} times the usual size: {factor:g} times the lock requests per MQPUT / MQGET"
        elif rule == "SUP08":
            abends, timeouts = 1, 2

            def fn(qi):
                cols = qi.structures["Q5ST"]
                cols["ABNDCNT"][0], cols["DEADCNT"][0] = abends, timeouts

            how = f"{abends} Db2 server task abend and {timeouts} deadlock timeouts"
        else:
            longest_us = int(2.5 * p["info"] * US_PER_S)  # QCTLGDU is a duration; the rule is in seconds

            def fn(qi):
                cols = qi.structures["QCTDNS"]
                interval_us = int(cols["QCTELTM"][0]) + int(cols["QCTWTTM"][0])
                cols["QCTLGDU"][0] = longest_us
                cols["QCTELTM"][0] = min(interval_us, int(cols["QCTELTM"][0]) + longest_us)
                cols["QCTWTTM"][0] = interval_us - int(cols["QCTELTM"][0])
                cols["QCTREQN"][0] = max(1, int(cols["QCTREQN"][0]))

            how = f"a DNS look-up of a channel's CONNAME took {longest_us / US_PER_S:g} s"
            object_name = f"{qm.name}CHIN"
        self.mutate(qm, k, fn)
        self.record_injection(rule, qm, SUPPLEMENTARY_OBJECTS[rule], object_name, k, how)

    def inject_supplementary_counters(self, target: Target, rule: str, qms, ks) -> None:
        """Supplementary rules (not MP16): counters of the interval's storage manager (QSST) or log
        manager (QJST) record, each crossing its rule's threshold from the seed; the rest of the record
        stays as simulated. SUP04's checkpoints are the log simulation's own (as LOG03's)."""
        claim = "storage" if SUPPLEMENTARY_OBJECTS[rule] == "storage_manager" else "log"
        cands = [([(claim, qm.index, k)], (qm, k)) for qm in qms for k in ks]
        qm, k = self.place(target, cands, f"queue manager interval ({claim})")
        p = rule_parameters()[rule]
        if rule == "SUP04":
            # Half as many again as the rule's rate, and at least its minimum count of checkpoints.
            checkpoints = max(int(p["min_volume"]), math.ceil(1.5 * p["info"] * self.seconds / 3600))
            self.effects.checkpoint[(k, qm.index)] = checkpoints
            self.record_injection(
                rule, qm, SUPPLEMENTARY_OBJECTS[rule], qm.name, k,
                f"{checkpoints} checkpoints in the interval ({checkpoints * 3600 / self.seconds:g} an hour): log "
                "switches or a LOGLOAD too low for the log volume",
            )  # fmt: skip
            return
        if rule == "SUP05":
            archive_reads = SUP05_ARCHIVE_READS

            def fn(qi):
                cols = qi.structures["QJST"]
                cols["QJSTRARH"][0] = archive_reads
                cols["QJSTALR"][0] = max(int(cols["QJSTALR"][0]), 1)  # the archive data set allocated to read
                reads = int(cols["QJSTRBUF"][0]) + int(cols["QJSTRACT"][0]) + archive_reads
                cols["QJSTTVC"][0] = math.ceil(2 * p["warning"] * reads) + 1

            how = (
                f"{archive_reads} log reads from an archive on tape, delayed for tape units at twice the rule's share "
                "of the log reads (MAXRTU too low)"
            )
        elif rule == "SUP06":
            paged = int(p["info"]) + 12

            def fn(qi):
                qi.structures["QJST"]["QJSTBPAG"][0] = paged

            how = f"{paged} log output buffers paged in before they were written (real storage short)"
        elif rule == "SUP01":
            times = int(p["critical"]) + 2

            def fn(qi):
                cols = qi.structures["QSST"]
                cols["QSSTCRIT"][0] = times
                cols["QSSTCONT"][0] = int(cols["QSSTCONT"][0]) + 3 * times  # pools contracted to free storage

            how = f"the queue manager's storage became critical {times} times (short on storage)"
        elif rule == "SUP02":
            abends = int(p["critical"]) + 1

            def fn(qi):
                qi.structures["QSST"]["QSSTABND"][0] = abends

            how = f"{abends} abend(s) for lack of storage"
        else:
            failed = int(p["warning"]) + 25

            def fn(qi):
                qi.structures["QSST"]["QSSTRCNZ"][0] = failed

            how = f"{failed} GETMAIN / FREEMAIN requests ended with a non-zero return code"
        self.mutate(qm, k, fn)
        self.record_injection(rule, qm, SUPPLEMENTARY_OBJECTS[rule], qm.name, k, how)

    def inject_structure_backlog(self, target: Target, qms, ks) -> None:
        """CF15: a backlog on one shared queue of an application structure, on one queue manager in
        one interval, whose peak depth would take a tenth more than the rule's share of the SIZE the
        site declares (structure_size_mb)."""
        names = self.topology.structure_names
        cands = []
        for qm in (qm for qm in qms if qm.qsg):
            for q in np.nonzero(qm.queues.is_shared)[0]:
                s = int(qm.queues.structure[q])
                if names[s].startswith("APPL") and (target.object_name is None or target.object_name == names[s]):
                    cands += [
                        ([("cf", qm.index, s, k), ("queue", qm.index, int(q), k)], (qm, int(q), s, k)) for k in ks
                    ]
        qm, q, s, k = self.place(target, cands, "shared queue of an application structure")
        _, entries, elements, _ = self.topology.structures[s]
        stored = cf15_backlog_bytes(structure_size_mb(entries, elements))

        def fn(qi, q=q):
            cols = qi.structures["QQST"]
            each = int(cf_message_bytes([int(cols["QQSTMSAV"][q])])[0])
            cols["QQSTDPHI"][q] = max(int(cols["QQSTDPHI"][q]), -(-stored // each))

        self.mutate(qm, k, fn)
        how = (
            f"a backlog on the shared queue {qm.queues.name[q]} would take {stored / 2**20:,.0f} MB of the structure's "
            f"{structure_size_mb(entries, elements):,.0f} MB SIZE (declared by the site)"
        )
        self.record_injection("CF15", qm, "cf_structure", names[s], k, how, queue=str(qm.queues.name[q]))

    def inject_batch_delete(self, target: Target, qms, ks) -> None:
        """CF16: the site declares a structure at CFLEVEL(4) and below (max_cf_level); in one
        interval a queue manager gets messages from one of its shared queues whose average size
        (cf16_message_size) would fill a tenth more than the rule's share of the SIZE with the
        messages every member's batch delete table holds."""
        names = self.topology.structure_names
        cands = []
        for qm in (qm for qm in qms if qm.qsg):
            members = sum(1 for m in self.topology.qmgrs if m.qsg == qm.qsg)
            for q in np.nonzero(qm.queues.is_shared & (qm.queues.consumers >= 1))[0]:
                s = int(qm.queues.structure[q])
                _, entries, elements, _ = self.topology.structures[s]
                size = cf16_message_size(structure_size_mb(entries, elements), members)
                if names[s] != ADMIN_STRUCTURE and size and target.object_name in (None, names[s]):
                    cands += [
                        ([("cf", qm.index, s, k), ("queue", qm.index, int(q), k)], (qm, int(q), s, k, size)) for k in ks
                    ]
        qm, q, s, k, size = self.place(target, cands, "shared queue of a structure it can fill")

        def fn(qi, q=q):
            cols = qi.structures["QQST"]
            cols["QQSTMSAV"][q] = size
            cols["QQSTMSMA"][q] = max(int(cols["QQSTMSMA"][q]), size)

        self.mutate(qm, k, fn)
        level = int(rule_parameters()["CF16"]["max_cf_level"])
        self.out.site.setdefault("cf_levels", []).append(
            {"qsg_name": qm.qsg, "structure_name": names[s], "cf_level": level}
        )
        how = (
            f"messages of {size:,} bytes on average got from the shared queue {qm.queues.name[q]} of a structure "
            f"at CFLEVEL({level}) (declared by the site): the batch delete tables hold them in the CF"
        )
        self.record_injection("CF16", qm, "cf_structure", names[s], k, how, queue=str(qm.queues.name[q]))

    def inject_checkpoint_burst(self, target: Target, qms, ks) -> None:
        """BP14: the site declares a page set write rate (bp14_page_set_write_mb_per_s); in one
        interval, with at least one checkpoint (forced if the log would take none), a pool's page
        sets write so many pages per checkpoint that the deferred write burst takes a quarter longer
        than the warning level."""
        cands = [
            ([("pool", qm.index, pool, k), ("log", qm.index, k)], (qm, pool, k))
            for qm in qms
            for pool in self.pool_for(qm, target, (ROLE_LONG, ROLE_SHORT, ROLE_OTHER))
            if pool in set(qm.pageset_pool.tolist())
            for k in ks
        ]
        qm, pool, k = self.place(target, cands, "buffer pool with page sets")
        rate = bp14_page_set_write_mb_per_s()
        per_checkpoint = bp14_pages_per_checkpoint(rate)
        self.effects.checkpoint.setdefault((k, qm.index), 1)

        def fn(qi, pool=pool):
            cols = qi.structures["QIS1"]
            mine = np.nonzero(np.asarray(cols["QIS1BPNO"]) == pool)[0]
            total = per_checkpoint * int(qi.structures["QJST"]["QJSTLLCP"][0])
            for n, i in enumerate(mine):  # shared out over the pool's page sets
                cols["QIS1CKPP"][i] = total // len(mine) + (total % len(mine) if n == 0 else 0)
                cols["QIS1DWPP"][i] = max(int(cols["QIS1DWPP"][i]), int(cols["QIS1CKPP"][i]))

        self.mutate(qm, k, fn)
        self.out.site.setdefault("page_set_write_rates", []).append(
            {"qmgr_name": qm.name, "page_set_write_mb_per_sec": rate}
        )
        how = (
            f"{per_checkpoint:,} pages written per checkpoint from the pool's page sets, at the {rate:g} MB/s page set "
            "write rate the site declares"
        )
        self.record_injection("BP14", qm, "buffer_pool", str(pool), k, how)

    def inject_recovery_log_burst(self, target: Target, rule: str, qms, ks) -> None:
        """LOG12 / LOG13: the site backs up every statistics interval and declares the recovery
        target that backup interval just meets at recovery_log_mb_per_s (log12_settings,
        log13_settings; LOG12: an application structure, the QSG's busiest log read backwards; LOG13:
        the queue manager's page sets, its log read forwards); in one interval a persistent burst on
        a busy queue writes twice that rate of log (far below LOG02's share of any reference DASD),
        so the log since the last backup is twice what the target allows there and nowhere else."""
        names = self.topology.structure_names
        structures = [
            s
            for s, name in enumerate(names)
            if rule == "LOG12" and name.startswith("APPL") and target.object_name in (None, name)
        ] or [None]
        cands = [
            ([("log", qm.index, k), ("queue", qm.index, int(q), k), ("pool", qm.index, int(qm.queues.bpid[q]), k)],
             (qm, k, int(q), s))
            for qm in qms
            if rule == "LOG13" or qm.qsg
            for q in np.nonzero(self.busy(qm, qm.queues) & (qm.queues.bpid >= 0))[0]
            for k in ks
            for s in structures
        ]  # fmt: skip
        qm, k, q, s = self.place(target, cands, "queue manager interval")
        mb_per_s = 2 * recovery_log_mb_per_s()
        msgs = math.ceil(mb_per_s * 2**20 * self.seconds / (LOG02_MESSAGE + LOG_BYTES_PER_PUT + LOG_BYTES_PER_GET))
        self.effects.burst[(k, qm.index, q)] = (msgs, LOG02_MESSAGE)
        burst = f"{msgs:,} persistent {LOG02_MESSAGE}-byte messages put and got on {qm.queues.name[q]} (about {mb_per_s:.1f} MB/s of log)"
        if rule == "LOG12":
            target_minutes, backup_minutes = log12_settings(self.seconds)
            self.out.site.setdefault("cf_recovery", []).append(
                {
                    "qsg_name": qm.qsg,
                    "structure_name": names[s],
                    "recovery_target_minutes": target_minutes,
                    "backup_interval_minutes": backup_minutes,
                }
            )
            how = (
                f"{burst} while the site backs {names[s]} up every {backup_minutes:.0f} minutes for a "
                f"{target_minutes:.1f}-minute recovery target"
            )
            self.record_injection(rule, qm, "cf_structure", names[s], k, how)
            return
        target_minutes, backup_hours = log13_settings(self.seconds)
        self.out.site.setdefault("page_set_recovery", []).append(
            {
                "qmgr_name": qm.name,
                "restart_target_minutes": target_minutes,
                "page_set_backup_hours": backup_hours,
            }
        )
        how = (
            f"{burst} while the site backs its page sets up every {backup_hours:.2f} h for a "
            f"{target_minutes:.1f}-minute restart target"
        )
        self.record_injection(rule, qm, "queue_manager", qm.name, k, how)

    def inject_multi_ci_log_writes(self, target: Target, qms, ks) -> None:
        """LOG15: the site declares a queue manager's active logs not striped; in one interval most
        of its log write I/Os write more than one CI (large messages), each kind at its own average
        I/O time, the CIs written unchanged."""
        cands = [([("log", qm.index, k)], (qm, k)) for qm in qms for k in ks]
        qm, k = self.place(target, cands, "queue manager interval")
        share = log15_multi_ci_share()

        def fn(qi):
            cols = qi.structures["QJST"]
            for copy in (0, 1):
                single, multi = f"QJSTIO_{copy}_0_", f"QJSTIO_{copy}_1_"
                ios = int(cols[single + "QJSTIOCOUNT"][0]) + int(cols[multi + "QJSTIOCOUNT"][0])
                if not ios:
                    continue
                cis = int(cols[single + "QJSTIOCI"][0]) + int(cols[multi + "QJSTIOCI"][0])
                multi_ios = math.ceil(share * ios)
                for prefix, count, control_intervals in (
                    (single, ios - multi_ios, ios - multi_ios),
                    (multi, multi_ios, cis - (ios - multi_ios)),
                ):
                    before = max(1, int(cols[prefix + "QJSTIOCOUNT"][0]))
                    for total in ("QJSTIOTOTIO", "QJSTIOTOTSUS"):
                        cols[prefix + total][0] = int(cols[prefix + total][0]) * count // before
                    cols[prefix + "QJSTIOCOUNT"][0], cols[prefix + "QJSTIOCI"][0] = count, control_intervals

        self.mutate(qm, k, fn)
        self.out.site.setdefault("unstriped_logs", []).append({"qmgr_name": qm.name})
        how = f"{share:.0%} of the log write I/Os write more than one CI on active logs the site declares not striped"
        self.record_injection("LOG15", qm, "queue_manager", qm.name, k, how)

    def inject_production_pool(self, target: Target, qms, ks) -> None:
        """BP12: the site declares a queue manager production; one of its SHORT pools, altered down
        below MP16's production starting point for the role, runs short of free buffers (BP04)."""
        cands = [
            ([("pool", qm.index, pool, k)], (qm, pool, k))
            for qm in qms
            for pool in self.pool_for(qm, target, (ROLE_SHORT,))
            for k in ks
        ]
        qm, pool, k = self.place(target, cands, "buffer pool")
        buffers, free = bp12_buffers(), bp12_free_share()
        low = int(free * buffers)
        self.effects.pool[(k, qm.index, pool)] = {"QPSTNBUF": buffers, "QPSTCBSL": low, "QPSTCBS": low}
        self.out.site.setdefault("production_qmgrs", []).append({"qmgr_name": qm.name})
        how = (
            f"a production queue manager (declared by the site) runs a SHORT pool of {buffers:,} buffers down to "
            f"{free:.0%} free"
        )
        self.record_injection("BP12", qm, "buffer_pool", str(pool), k, how)

    def inject_ims_bridge(self, target: Target, qms, ks) -> None:
        """Q09: a busy private queue the site declares an IMS bridge queue. Its TPIPE task keeps up
        (the queue holds at most one message) but in one interval, when the depth reaches a few
        messages above the rule's threshold."""
        n = self.interval_count
        cands = [
            ([("queue", qm.index, q, kk) for kk in range(n)], (qm, q, k))
            for claims, (qm, q, k) in self.queue_candidates(target, qms, ks, 0, 0, self.busy)
        ]
        qm, q, k = self.place(target, cands, "queue")
        qm.queues.depth_cap[q] = 1  # drained as it is put: the clean intervals stay far below the threshold
        depth = q09_depth()

        def fn(qi, q=q):
            cols = qi.structures["QQST"]
            cols["QQSTDPHI"][q] = max(int(cols["QQSTDPHI"][q]), depth)

        self.mutate(qm, k, fn)
        qname = str(qm.queues.name[q])
        self.out.site.setdefault("ims_bridge_queues", []).append({"qmgr_name": qm.name, "queue_name": qname})
        how = f"an IMS bridge queue (declared by the site) backs up to {depth} messages: its TPIPE task falls behind"
        self.record_injection("Q09", qm, "queue", qname, k, how)

    def inject_channel(self, target: Target, rule: str, qms, ks) -> None:
        """Channel accounting pathologies (SMF 116/10): the QCST values of one channel in one
        interval, set before the records are written; CHIN16 adds a SVRCONN channel's short-lived
        client connections to the interval."""
        p = rule_parameters()
        peers = [q.name for q in self.topology.qmgrs]
        seconds = self.seconds
        if rule == "CHIN16":
            cands = [
                ([("channel", qm.index, f"{qm.name}.{CHURN_CHANNEL}", k)], (qm, k))
                for qm in qms
                if target.object_name in (None, f"{qm.name}.{CHURN_CHANNEL}")
                for k in ks
            ]
            qm, k = self.place(target, cands, "queue manager interval")
            name = f"{qm.name}.{CHURN_CHANNEL}"
            starts = int(math.ceil(1.5 * threshold(rule, "warning") * seconds))
            msgs = int(p[rule]["max_median_msgs"]) // 2 or 1

            def fn(qi, name=name, starts=starts, msgs=msgs, m=qm.index):
                _add_client_churn(qi, name, starts, msgs, m, self.start(qi.k), seconds)

            self.mutate(qm, k, fn)
            how = (
                f"{starts:,} client connections of {name} start and end in the interval "
                f"({starts / seconds:.1f} a second), {msgs} messages each"
            )
            self.record_injection(rule, qm, "channel", name, k, how)
            return
        kind = MQCHT_SVRCONN if rule == "CHIN17" else MQCHT_SENDER
        cands = []
        for qm in qms:
            for row, ch in enumerate(accounted_channels(qm, peers)):
                name = channel_object_name(ch)
                if ch["kind"] != kind or target.object_name not in (None, name):
                    continue
                cands += [([("channel", qm.index, name, k)], (qm, row, name, k)) for k in ks]
        qm, row, name, k = self.place(target, cands, "channel")
        if rule in ("CHIN11", "CHIN15"):
            per_batch = threshold(rule) / 2  # half the achieved batch the rule asks for
            rate = 2 * p[rule]["min_msgs_per_second"]

            def fn(qi, row=row, per_batch=per_batch, rate=rate, persistent=rule == "CHIN11"):
                cols = qi.structures["QCST"]
                msgs = max(int(cols["QCSTNMSG"][row]), int(rate * seconds))
                size = int(cols["QCSTNBYT"][row]) // max(1, int(cols["QCSTNMSG"][row])) or 1000
                kept = max(1, int(cols["QCSTNPMG"][row])) if persistent else 0
                cols["QCSTNMSG"][row], cols["QCSTNPMG"][row] = msgs, kept
                cols["QCSTNBYT"][row], cols["QCSTNPBY"][row] = msgs * size, kept * size
                cols["QCSTBATC"][row] = int(math.ceil(msgs / per_batch))
                cols["QCSTFUBA"][row] = 0
                cols["QCSTCBIT"][row] = 0
                # BATCHSZ(1) with persistent messages is MP16's request/reply advice (CHIN11 stays silent).
                cols["QCSTCBSZ"][row] = max(int(cols["QCSTCBSZ"][row]), 50)

            how = (
                f"the sender ends a batch after every message or two ({per_batch:g} a batch on average) at "
                f"{rate:g} or more messages a second"
                + (", persistent" if rule == "CHIN11" else ", non-persistent only, BATCHINT 0")
            )
        elif rule == "CHIN12":
            size = int(2 * threshold(rule))

            def fn(qi, row=row, size=size):
                qi.structures["QCST"]["QCSTCBSZ"][row] = size

            how = f"BATCHSZ({size}) negotiated"
        elif rule == "CHIN13":
            avg = int(1.2 * p[rule]["escalation"])

            def fn(qi, row=row, avg=avg):
                cols = qi.structures["QCST"]
                msgs = min(int(cols["QCSTNMSG"][row]), 2000) or 1
                kept = min(int(cols["QCSTNPMG"][row]), msgs)
                cols["QCSTNMSG"][row], cols["QCSTNPMG"][row] = msgs, kept
                cols["QCSTNBYT"][row], cols["QCSTNPBY"][row] = msgs * avg, kept * avg
                cols["QCSTBATC"][row] = -(-msgs // 8)
                cols["QCSTBYST"][row] = msgs * avg + msgs * 500

            how = f"messages of {avg:,} bytes on average sent in batches of up to {BATCH_SIZE} (BATCHSZ)"
        elif rule == "CHIN14":
            interval_ms = int(2 * threshold(rule, "warning"))

            def fn(qi, row=row, interval_ms=interval_ms):
                qi.structures["QCST"]["QCSTCBIT"][row] = interval_ms

            how = f"BATCHINT({interval_ms}): batches held open for {interval_ms // 60_000} minutes"
        else:  # CHIN17
            share = threshold(rule) + 0.3
            conversations = int(p[rule]["min_shared_conversations"]) + 9

            def fn(qi, row=row, share=share, conversations=conversations):
                cols = qi.structures["QCST"]
                msgs = max(int(cols["QCSTNMSG"][row]), 100)
                size = int(cols["QCSTNBYT"][row]) // max(1, int(cols["QCSTNMSG"][row])) or 1000
                kept = int(math.ceil(share * msgs))
                cols["QCSTNMSG"][row], cols["QCSTNPMG"][row] = msgs, kept
                cols["QCSTNBYT"][row], cols["QCSTNPBY"][row] = msgs * size, kept * size
                cols["QCSTCSCV"][row] = conversations

            how = f"{share:.0%} persistent client work over a SVRCONN sharing {conversations} conversations"
        self.mutate(qm, k, fn)
        self.record_injection(rule, qm, "channel", name, k, how)

    def inject_unexplained_log(self, target: Target, qms, ks) -> None:
        """LOG10: log written that the message traffic does not explain (a BACKUP CFSTRUCT, say): the
        interval's log CIs (QJSTBFFL, and the CIs written) raised to half a threshold more than MP16's
        expected log volume of its persistent puts, gets and channel batches, and to at least twice
        the minimum log rate the rule judges."""
        cands = [([("log", qm.index, k)], (qm, k)) for qm in qms for k in ks]
        qm, k = self.place(target, cands, "queue manager interval")
        p = rule_parameters()["LOG10"]
        factor = threshold("LOG10") + 0.5
        floor = 2 * p["min_volume"] * 2**20 * self.seconds

        def fn(qi, factor=factor, floor=floor):
            mst, jst = qi.structures["QMST"], qi.structures["QJST"]
            qcst = qi.structures.get("QCST", {})
            channels = zip(
                *(np.asarray(qcst.get(n, [])) for n in ("QCSTCHTY", "QCSTNMSG", "QCSTNPMG", "QCSTBATC")), strict=True
            )
            expected = log10_expected_bytes(
                int(mst["QMSTSPP"][0]), int(mst["QMSTPBP"][0]), int(mst["QMSTGET"][0]),
                [tuple(int(v) for v in row) for row in channels],
            )  # fmt: skip
            extra = max(0, math.ceil(max(factor * expected, floor) / 4096) - int(jst["QJSTBFFL"][0]))
            jst["QJSTBFFL"][0] += extra
            jst["QJSTCIWR"][0] += extra

        self.mutate(qm, k, fn)
        how = (
            f"log written that the traffic does not explain (a structure backup): {factor:g} x the volume MP16 "
            "expects of the interval's persistent puts, gets and channel batches"
        )
        self.record_injection("LOG10", qm, "queue_manager", qm.name, k, how)

    def inject_compression(self, target: Target, qms, ks) -> None:
        """CHIN18: a sender channel compressing its messages (QCSTCPRA) in an interval where the
        dispatcher it runs on is busy 15 points above CHIN04's level (CHIN04 fires there too)."""
        peers = [q.name for q in self.topology.qmgrs]
        cands = []
        for qm in qms:
            for row, ch in enumerate(accounted_channels(qm, peers)):
                name = channel_object_name(ch)
                if ch["kind"] != MQCHT_SENDER or target.object_name not in (None, name):
                    continue
                cands += [([("chin", qm.index, k), ("channel", qm.index, name, k)], (qm, row, name, k)) for k in ks]
        qm, row, name, k = self.place(target, cands, "channel")
        busy = min(0.95, (threshold("CHIN04", "warning") + 15) / 100)
        compression_rate = 60  # QCSTCPRA: ZLIBFAST on text-like data

        def fn(qi, row=row, busy=busy):
            qcst = qi.structures["QCST"]
            qcst["QCSTCPRA"][row] = compression_rate
            _set_task_busy(qi.structures["QCTDSP"], int(qcst["QCSTDSPN"][row]), busy)

        self.mutate(qm, k, fn)
        how = (
            f"the channel compresses its messages (COMPMSG, compression rate {compression_rate}) on a dispatcher "
            f"busy {busy:.0%} of the interval"
        )
        self.record_injection("CHIN18", qm, "channel", name, k, how)

    def inject_qsg_log_bound(self, target: Target, qms, ks) -> None:
        """CF17: LOG02's persistent burst on every member of a queue-sharing group in one interval,
        a fifth larger on the chosen member so that it is the busiest."""
        cands = []
        for qm in qms:
            members = [m for m in self.topology.qmgrs if qm.qsg and m.qsg == qm.qsg]
            if len(members) < int(rule_parameters()["CF17"]["min_members"]):
                continue
            for k in ks:
                picks = []
                for member in members:
                    for q in self.rng.permutation(
                        np.nonzero(self.busy(member, member.queues) & (member.queues.bpid >= 0))[0]
                    ):
                        q = int(q)
                        claims = [
                            ("log", member.index, k),
                            ("queue", member.index, q, k),
                            ("pool", member.index, int(member.queues.bpid[q]), k),
                        ]
                        if self.free(claims):
                            picks.append((claims, member, q))
                            break
                if len(picks) == len(members):
                    cands.append(([c for claims, *_ in picks for c in claims], (qm, k, picks)))
        qm, k, picks = self.place(target, cands, "queue-sharing group interval")
        mb_per_s = log02_mb_per_s()
        msgs = int(np.ceil(mb_per_s * 2**20 * self.seconds / (LOG02_MESSAGE + 1300 + 500)))
        for _, member, q in picks:
            self.effects.burst[(k, member.index, q)] = (int(msgs * 1.2) if member is qm else msgs, LOG02_MESSAGE)
        self.record_injection(
            "CF17", qm, "queue_sharing_group", qm.qsg, k,
            f"every member of {qm.qsg} puts and gets about {mb_per_s:.0f} MB/s of persistent {LOG02_MESSAGE}-byte "
            f"messages ({qm.name} a fifth more)",
        )  # fmt: skip

    # -- violations ----------------------------------------------------------------------------
    def violate(self, target: Target) -> None:
        check = target.id
        qms = self.qmgrs(target, CHECK_VERSION.get(check))
        if check in CHECK_BEFORE:
            qms = [q for q in qms if _vkey(q.version) < _vkey(CHECK_BEFORE[check])]
            if not qms:
                raise PlanError(f"{target}: needs a queue manager before MQ {CHECK_BEFORE[check]}")
        rec = dict(check=check)
        if check in ("interval_gap", "interval_overlap", "duplicate_record"):
            lo = 1 if check != "duplicate_record" else 0
            hi = self.interval_count - 2 if check == "interval_gap" else self.interval_count - 1
            if target.interval is not None:
                ks = [target.interval]
                if not lo <= target.interval <= hi:
                    raise PlanError(f"{target}: interval must be in {lo}..{hi}")
            else:
                ks = list(range(lo, hi + 1))
            if not ks:
                raise PlanError(f"{target}: needs more intervals (scenario has {self.interval_count})")
            cands = [([("qi", qm.index, k)], (qm, k)) for qm in qms for k in ks]
            qm, k = self.place(target, cands, "queue manager interval")
            if check == "interval_gap":
                self.out.record_hooks[(k, qm.name)] = {"drop": True}
                rec.update(relation=VIOLATIONS[check].writes)
            elif check == "interval_overlap":
                shift = -min(300, self.seconds // 4) * US_PER_S
                self.out.record_hooks[(k, qm.name)] = {"start_shift_us": shift}
                rec.update(
                    relation=f"interval starts {-shift // US_PER_S} s before the previous interval ends",
                    written_interval_start=iso(self.start(k) + shift),
                )
            else:
                subtype = 215
                self.out.duplicates.add((k, qm.name, subtype))
                rec.update(smf_subtype=subtype, relation=VIOLATIONS[check].writes)
            rec.update(
                qmgr=qm.name, object_type="queue_manager", object_name=qm.name, interval=k, interval_start=self.iso(k)
            )
            self.out.violations.append(rec)
            return
        ks = self.intervals(target, 0, 0)
        if check == "dns_longest_request_carried_over":
            ks = [k for k in ks if k >= 1]
            if not ks:
                raise PlanError(f"{target}: needs an interval after the first (the longest request comes from it)")
            cands = [([("chin", qm.index, k)], (qm, k)) for qm in qms for k in ks]
            qm, k = self.place(target, cands, "channel initiator interval")
            carried_at = self.start(k - 1) + self.seconds * US_PER_S // 3

            def fn(qmgr_interval, carried_at=carried_at, rec=rec):
                columns = qmgr_interval.structures["QCTDNS"]
                columns["QCTREQN"][0], columns["QCTLGTM"][0] = 0, carried_at
                rec["fields"] = {"QCTREQN": 0, "QCTLGTM": carried_at, "QCTLGDU": int(columns["QCTLGDU"][0])}

            rec.update(
                structure="QCTDNS",
                smf_subtype=231,
                object_type="channel_initiator",
                object_name="DNS task",
                relation=VIOLATIONS[check].writes,
            )
        elif check in ("pool_free_gt_buffers", "qpst_stealable_never_set"):
            cands = [([("pool", qm.index, int(p), k)], (qm, int(p), k)) for qm in qms for p in qm.pools for k in ks]
            qm, pool, k = self.place(target, cands, "buffer pool")
            i = qm.pool_index(pool)

            never_set = check == "qpst_stealable_never_set"

            def fn(qmgr_interval, i=i, rec=rec, never_set=never_set):
                columns = qmgr_interval.structures["QPST"]
                if never_set:  # MQ 10 writes this when the interval's lowest count was never set
                    columns["QPSTCBSL"][i], columns["QPSTCBS"][i] = QPSTCBSL_NOT_SET, 0
                else:
                    columns["QPSTCBSL"][i] = columns["QPSTNBUF"][i] + 100
                rec["fields"] = {f: int(columns[f][i]) for f in ("QPSTCBSL", "QPSTCBS", "QPSTNBUF")}

            rec.update(
                structure="QPST",
                smf_subtype=215,
                object_type="buffer_pool",
                object_name=str(pool),
                relation=VIOLATIONS[check].writes,
            )
        elif check == "pageset_unused_gt_total":
            cands = [
                ([("pageset", qm.index, int(p), k)], (qm, int(p), k)) for qm in qms for p in qm.pagesets for k in ks
            ]
            qm, ps, k = self.place(target, cands, "page set")
            i = list(qm.pagesets).index(ps)

            def fn(qmgr_interval, i=i, rec=rec):
                columns = qmgr_interval.structures["QIS1"]
                columns["QIS1UNPG"][i] = columns["QIS1TOPG"][i] + 1
                rec["fields"] = {"QIS1UNPG": int(columns["QIS1UNPG"][i]), "QIS1TOPG": int(columns["QIS1TOPG"][i])}

            rec.update(
                structure="QIS1",
                smf_subtype=201,
                object_type="page_set",
                object_name=str(ps),
                relation=VIOLATIONS[check].writes,
            )
        else:

            def shared_queues(qm, queues):
                return queues.is_shared

            pred = shared_queues if check in SHARED_QUEUE_CHECKS else self.busy
            cands = self.queue_candidates(target, qms, ks, 0, 0, pred)
            qm, q, k = self.place(target, cands, "queue")
            fn = _queue_violation(check, q, rec)
            rec.update(
                structure="QQST", smf_subtype=216, object_type="queue", object_name=str(qm.queues.name[q]), queue_row=q
            )
        rec.update(qmgr=qm.name, interval=k, interval_start=self.iso(k))
        self.out.mutations.setdefault((k, qm.index), []).append(fn)
        self.out.violations.append(rec)

    # -- partial records (valid data) -------------------------------------------------------------
    def partials(self) -> None:
        if not self.config.partial_records or len(self.topology.qmgrs) < 2:
            return
        names = self.topology.structure_names
        app = [i for i, n in enumerate(names) if n.startswith("APPL") and (self.topology.shared_structure == i).any()]
        ks = [k for k in range(self.interval_count) if k >= 1] or list(range(self.interval_count))
        if app:
            cands = [
                (
                    [("cf", qm.index, s, k)]
                    + [("queue", qm.index, int(q), k) for q in np.nonzero(qm.queues.structure == s)[0]],
                    (qm, s, k),
                )
                for qm in self.topology.qmgrs
                for s in app
                for k in ks
            ]
            try:
                qm, s, k = self.place(Target("partial"), cands, "CF structure")
            except PlanError:
                pass
            else:
                self.effects.partial_shared.add((k, qm.index, s))
                queues = [str(x) for x in qm.queues.name[qm.queues.structure == s]]
                self.out.partials.append(
                    dict(
                        qmgr=qm.name,
                        interval=k,
                        interval_start=self.iso(k),
                        kind="shared",
                        structure=names[s],
                        queues=queues,
                        reason="CF structure not accessible at collection: shared queues' depth and age 0, QQSTUNCM off",
                    )
                )
        cands = self.queue_candidates(
            Target("partial"), self.topology.qmgrs, ks, 0, 0, lambda qm, queues: self.busy(qm, queues)
        )
        try:
            qm, q, k = self.place(Target("partial"), cands, "queue")
        except PlanError:
            return
        self.effects.partial_private.add((k, qm.index, q))
        self.out.partials.append(
            dict(
                qmgr=qm.name,
                interval=k,
                interval_start=self.iso(k),
                kind="private",
                queues=[str(qm.queues.name[q])],
                reason="age of the oldest message could not be determined: QQSTMAGE 0 (depth valid)",
            )
        )


def _set_task_busy(cols: dict, i: int, share: float) -> None:
    """Make task i of a channel initiator task array busy `share` of its interval (QCTELTM + QCTWTTM),
    keeping its time per request and CPU share of the elapsed time."""
    interval_us = int(cols["QCTELTM"][i]) + int(cols["QCTWTTM"][i])
    per_request = int(cols["QCTELTM"][i]) / int(cols["QCTREQN"][i]) if int(cols["QCTREQN"][i]) else 100.0
    elapsed = int(round(share * interval_us))
    cols["QCTELTM"][i] = elapsed
    cols["QCTWTTM"][i] = interval_us - elapsed
    cols["QCTCPTM"][i] = int(round(0.6 * elapsed))
    cols["QCTREQN"][i] = max(1, int(round(elapsed / per_request)))


def _keep_tasks(qi: QmgrInterval, name: str, count: int) -> None:
    """The first ``count`` tasks of a channel initiator task array (QCTDSP, QCTSSL) in the interval."""
    cols = qi.structures[name]
    for key in cols:
        cols[key] = np.asarray(cols[key])[:count]
    qi.rows[name] = count


def _add_tasks(qi: QmgrInterval, name: str, count: int) -> None:
    """A channel initiator task array (QCTDSP) grown to ``count`` tasks in the interval, the new ones
    like its last (their own task numbers)."""
    cols = qi.structures[name]
    have = len(cols["QCTTSKN"])
    for key in cols:
        values = np.asarray(cols[key])
        cols[key] = np.concatenate([values, np.repeat(values[-1:], count - have)])
    cols["QCTTSKN"][have:] = int(cols["QCTTSKN"][have - 1]) + 0x1000 * np.arange(1, count - have + 1)
    qi.rows[name] = count


def _add_client_churn(qi: QmgrInterval, name: str, starts: int, msgs: int, m: int, start_us: int, seconds: int) -> None:
    """CHIN16: ``starts`` short-lived instances of SVRCONN channel ``name`` (16 client addresses),
    each started in the interval, moving ``msgs`` messages and ended a second later."""
    cols = qi.structures["QCST"]
    template = {key: np.asarray(values)[-1] for key, values in cols.items()}  # the last row: a client connection
    rng = np.random.default_rng([m, qi.k, starts])
    begun = start_us + np.sort(rng.integers(0, (seconds - 2) * US_PER_S, starts))
    extra = {key: np.full(starts, value, dtype=np.asarray(cols[key]).dtype) for key, value in template.items()}
    size = int(template["QCSTNBYT"]) // max(1, int(template["QCSTNMSG"])) or 1000
    extra.update(
        QCSTCHNM=np.full(starts, name, dtype=object),
        QCSTCNNM=np.array([f"10.3.{m}.{i % 16 + 1}" for i in range(starts)], dtype=object),
        QCSTRQMN=np.full(starts, "webclient.exe", dtype=object),
        QCSTCHST=np.zeros(starts, np.int64),  # ended
        QCSTSTRT=begun,
        QCSTLUDT=begun + US_PER_S,
        QCSTLMST=begun + US_PER_S // 2,
        QCSTNMSG=np.full(starts, msgs, np.int64),
        QCSTNPMG=np.zeros(starts, np.int64),
        QCSTNBYT=np.full(starts, msgs * size, np.int64),
        QCSTNPBY=np.zeros(starts, np.int64),
        QCSTBFST=np.full(starts, msgs + 1, np.int64),
        QCSTBFRC=np.full(starts, msgs + 1, np.int64),
        QCSTBYST=np.full(starts, msgs * (size + 500), np.int64),
        QCSTBYRC=np.full(starts, 600, np.int64),
        QCSTCSCV=np.ones(starts, np.int64),
    )
    for key in cols:
        cols[key] = np.concatenate([np.asarray(cols[key]), extra[key]])
    qi.rows["QCST"] = len(cols["QCSTCHNM"])


# Violations planted on a shared queue (the others on a busy private one).
SHARED_QUEUE_CHECKS = tuple(check for check, v in VIOLATIONS.items() if v.shared_queue)


def _queue_violation(check: str, q: int, rec: dict) -> Callable[[QmgrInterval], None]:
    """A mutation of one queue's QQST values that breaks the named invariant."""

    def fn(qmgr_interval: QmgrInterval) -> None:
        qqst = qmgr_interval.structures["QQST"]
        before = {}

        def put(name, value):
            before[name] = _plain(qqst[name][q])
            qqst[name][q] = value

        if check == "nmag_gt_flgt":
            put("QQSTNMAG", int(qqst["QQSTFLGT"][q]) + 5)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "tmfg_gt_flgt":
            put("QQSTTMFG", int(qqst["QQSTFLGT"][q]) + 3)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "partial_nonzero_depth":
            put("QQSTPART", True)
            put("QQSTDPTH", max(17, int(qqst["QQSTDPTH"][q])))
            put("QQSTMAGE", 0)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "partial_nonzero_age":
            put("QQSTPART", True)
            put("QQSTMAGE", max(42, int(qqst["QQSTMAGE"][q])))
            put("QQSTDPTH", 0)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "puts_split":
            put("QQSTPUTS", int(qqst["QQSTNPPT"][q]) + int(qqst["QQSTPPT"][q]) + 7)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "put1_split":
            put("QQSTPUT1", int(qqst["QQSTNPP1"][q]) + int(qqst["QQSTPP1"][q]) + 4)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "gets_split":
            put("QQSTGETS", int(qqst["QQSTNPDG"][q]) + int(qqst["QQSTPDG"][q]) + 9)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "put_bytes_split":
            # A part grows, not the total: the bytes put stay within the message sizes.
            put("QQSTNPPB", int(qqst["QQSTNPPB"][q]) + 1000)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "dplo_gt_dphi":
            put("QQSTDPLO", int(qqst["QQSTDPHI"][q]) + 3)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "depth_outside_watermarks":
            put("QQSTDPTH", int(qqst["QQSTDPHI"][q]) + 5)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "msg_size_order":
            lo, hi = int(qqst["QQSTMSMI"][q]), int(qqst["QQSTMSMA"][q])
            put("QQSTMSMI", hi + 1)
            put("QQSTMSMA", max(0, lo - 1) if lo > 0 else 0)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "get_failures_gt_flgt":
            flgt = max(2, int(qqst["QQSTFLGT"][q]))
            put("QQSTFLGT", flgt)
            put("QQSTNMAG", flgt - 1)
            put("QQSTTMFG", 2)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "browse_failures_gt_flbr":
            put("QQSTNMAB", int(qqst["QQSTFLBR"][q]))
            put("QQSTTMFB", 1)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "handles_outside_watermarks":
            put("QQSTIPCT", int(qqst["QQSTIPHI"][q]) + 2)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "put_bytes_above_max_size":
            msgs = int(qqst["QQSTPUTS"][q]) + int(qqst["QQSTPUT1"][q])
            extra = int(qqst["QQSTMSMA"][q]) * msgs - int(qqst["QQSTPUTB"][q]) - int(qqst["QQSTPT1B"][q]) + 1000
            put("QQSTPUTB", int(qqst["QQSTPUTB"][q]) + extra)
            put("QQSTNPPB", int(qqst["QQSTNPPB"][q]) + extra)
            rec["relation"] = VIOLATIONS[check].writes
        elif check in ("put_bytes_without_puts", "get_bytes_without_gets", "browse_bytes_without_browses"):
            counts, amount, part = {
                "put_bytes_without_puts": (
                    ("QQSTPUTS", "QQSTNPPT", "QQSTPPT", "QQSTPUT1", "QQSTNPP1", "QQSTPP1"),
                    "QQSTPUTB",
                    "QQSTNPPB",
                ),
                "get_bytes_without_gets": (("QQSTGETS", "QQSTNPDG", "QQSTPDG"), "QQSTGETB", "QQSTNPDB"),
                "browse_bytes_without_browses": (("QQSTBRWS", "QQSTNPBR", "QQSTPBR"), "QQSTBRWB", "QQSTNPBB"),
            }[check]
            for name in counts:
                put(name, 0)
            if int(qqst[amount][q]) == 0:  # keep the bytes' own split whole
                put(amount, 100)
                put(part, int(qqst[part][q]) + 100)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "last_put_after_record":
            put("QQSTLPUT", int(qqst["QQSTLPUT"][q]) + 2 * 86_400 * US_PER_S)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "negative_depth":
            put("QQSTDPTH", -5)
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "cf_structure_mismatch":
            put("QQSTCFST", "OTHERSTRUCT")
            rec["relation"] = VIOLATIONS[check].writes
        elif check == "partial_private_depth_above_high":
            put("QQSTPART", True)
            put("QQSTMAGE", 0)
            put("QQSTDPTH", int(qqst["QQSTDPHI"][q]) + 5)
            rec["relation"] = VIOLATIONS[check].writes
        else:
            raise PlanError(f"no such check {check!r}")
        rec["fields_before"] = before
        rec["fields"] = {name: _plain(qqst[name][q]) for name in before}

    return fn


def _plain(value):
    """A column value as JSON can hold it (flags as booleans, names as text, counters as int)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return value.decode() if isinstance(value, bytes) else str(value)
    return int(value)


def plan(scenario, rng: np.random.Generator) -> Planned:
    planner = _Planner(scenario, rng)
    for target in scenario.config.inject:
        planner.inject(target)
    for target in scenario.config.violate:
        planner.violate(target)
    planner.partials()
    planner.out.assumptions = rule_assumptions(scenario)
    return planner.out


def rule_assumptions(scenario) -> dict:
    runs = {rule: NUMBER_WORDS.get(run_length(rule), run_length(rule)) for rule in ("Q03", "Q10")}
    lasts = {rule: ORDINAL_WORDS.get(run_length(rule), f"{run_length(rule)}th") for rule in ("Q03", "Q10")}
    return {
        "buffer_pool_roles": "per queue manager in qmgrs[].buffer_pools[].role: pool 0 SYS, pool 1 SHORT, pool 2 LONG, "
        "the fourth pool OTHER",
        "BP05_BP06_roles": "fire for SYS and SHORT pools (info for UNKNOWN); BP06 ignores the pool's restart phase: "
        "from the queue manager's start (the scenario's first interval) while the pool keeps reading pages back, at "
        "most restart_window_minutes of seeds/mp16_rules.csv",
        "LOG02": "log MB/s = QJSTBFFL x 4096 / T / 2^20 against the reference rate for the message-size column nearest "
        "QMSTPBP / QMSTSPP; firings are computed against the fastest reference DASD (DS8870, 4 stripes, zHPF), "
        "so they fire for any DASD choice; clean data stay below "
        f"{threshold('LOG02', 'warning'):g} against every reference from ESS E20 ESCON on",
        "LOG03": "log records per checkpoint = what the LOGLOAD counter held at each checkpoint (reset to zero after a "
        "checkpoint): the queue manager's LOGLOAD for checkpoints taken by count, the records since the previous "
        "checkpoint over the checkpoints for forced ones (ground truth of the simulation); clean data use LOGLOAD "
        "10,000,000",
        "CF03": f"evaluated when QESTCSEC + QESTCMEC >= {threshold('CF03', 'min_volume'):g}",
        "Q01": "pool 0 or page set 0 may hold only SYSTEM.CHANNEL.SYNCQ and SYSTEM.CLUSTER.* queues",
        "Q02": "sum over private queues of the pool of max(QQSTDPTH, QQSTDPHI) x pages_per_msg(QQSTMSAV) "
        f"{threshold_text('Q02', 'warning')} x QPSTNBUF, "
        "SYS and SHORT pools",
        "Q03": f"private queue, complete records, {runs['Q03']} consecutive intervals with QQSTDPTH rising and "
        f"QQSTPUTS + QQSTPUT1 > QQSTGETS; fires in the {lasts['Q03']}",
        "Q04": f"SHORT pool queue with QQSTMAGE {threshold_text('Q04', 'info')} x T / QJSTLLCP in an interval with "
        "checkpoints",
        "Q07": f"QQSTEXPR {threshold_text('Q07', 'info')} with queue-manager expiry off (EXPRYINT 0)",
        "Q10": f"QQSTUNCM set in {runs['Q10']} consecutive intervals; fires in the {lasts['Q10']} (and later)",
        "CF07": "application structures with QESTMNUS >= "
        f"{threshold('CF07', 'min_volume'):g}; fires outside {threshold('CF07', 'low_ratio'):g} .. "
        f"{threshold('CF07', 'high_ratio'):g} elements per entry",
        "BP12": "the site declares the injected queue managers production (site_config.production_qmgrs); a pool "
        "under pressure (BP01-BP06 fire on it) below short_lived_buffers (SYS, SHORT) or long_lived_buffers (LONG, "
        "OTHER, UNKNOWN) of seeds/mp16_rules.csv; warning for pool 0 at or below the escalation threshold",
        "CF06": "every structure's limits (entries_max, elements_max of cf_structures) are declared by the site; "
        f"fires when entries or elements in use reach {threshold_text('CF06', 'info')} % of them",
        "BP14": "per pool and interval with a checkpoint: QIS1CKPP of its page sets / QJSTLLCP pages of 4 KB, written "
        "at the page set write rate the site declares (site_config.page_set_write_rates) or else MP16's default "
        f"(default_page_set_write_mb_per_sec of seeds/mp16_rules.csv); fires at {threshold_text('BP14', 'info')} s, "
        f"warning at {threshold_text('BP14', 'warning')} s",
        "LOG12": "on a structure for which the site declares a recovery target and a BACKUP CFSTRUCT interval "
        "(site_config.cf_recovery): in each interval, the log the QSG's busiest member writes (QJSTBFFL x 4 KB) over "
        "that interval against the log read backwards within the target at backward_read_mb_per_sec "
        f"{threshold_text('LOG12', 'warning')}; reported on that member",
        "LOG13": "on a queue manager for which the site declares a restart target and a page set backup interval "
        "(site_config.page_set_recovery): the log written per hour (QJSTBFFL x 4 KB) over that interval against the "
        "log recovery reads within the target at MP16's default_log_read_mb_per_sec (formula A) "
        f"{threshold_text('LOG13', 'warning')}",
        "LOG15": "on a queue manager whose active logs the site declares not striped (site_config.unstriped_logs): "
        "copy 1's multi-CI log write I/Os over all its log write I/Os (QJSTIO counts) "
        f"{threshold_text('LOG15', 'info')}, with at least {threshold('LOG15', 'min_volume'):g} I/Os",
        "CF16": "on a structure the site declares at CFLEVEL(4) or below (site_config.cf_levels), with its SIZE as "
        "for CF15: per queue manager and interval, the CF storage (cf_message_bytes) of the largest average message "
        "(QQSTMSAV) of the structure's shared queues it got messages from, x dead_messages_per_qmgr x the queue "
        f"managers of the QSG, over the SIZE {threshold_text('CF16', 'info')}",
        "CF15": "SIZE of each structure as the site declares it (mp16_oracle.structure_size_mb: its elements and "
        "entries at 256 bytes); a queue manager's peak depths of the structure's shared queues in CF storage "
        "(mp16_oracle.cf_message_bytes with CF15's parameters; unknown size, QQSTMSAV 0: the smallest entry) "
        f"x overhead_factor {threshold_text('CF15', 'warning')} x SIZE",
        "CF08": f"CSQ_ADMIN's free entries (entries_max - QESTMNUS) {threshold_text('CF08', 'warning')} x the "
        "queue managers of the QSG",
        "Q09": "the site declares the injected queues IMS bridge queues (site_config.ims_bridge_queues); QQSTDPHI "
        f"{threshold_text('Q09', 'info')}; whether IMS is saturated is not known (assumed not)",
        "CF13": "per queue manager row of a shared queue: QQSTDPLO 0, QQSTDPHI "
        f"{threshold_text('CF13', 'info')}, QQSTPUTS + QQSTPUT1 and QQSTGETS >= {threshold('CF13', 'min_volume'):g}, and at least "
        f"{threshold('CF13', 'min_input_qmgrs'):g} members of the QSG with QQSTIPCT > 0 for the queue in the interval",
        "CF17": "LOG02 (as above) fires on every member of the QSG that wrote log statistics in the interval; "
        "reported on the member with the most log MB/s",
        "DB03": "(SCSINS + SCSUPD + SCSDEL) per hour "
        f"{threshold_text('DB03', 'info')} and above {threshold('DB03', 'baseline_factor'):g} x the queue "
        "manager's average over its previous intervals (none in its first)",
        "CHIN": "channel initiator rules on the 115/231 record, object = the channel initiator's job name "
        "(QCCTJOBN); task busy % = 100 x QCTELTM / interval length; CHIN01 judges the last adapter of the array "
        f"(info) and the least busy one (escalation {threshold_text('CHIN01', 'escalation')}); "
        f"CHIN03 needs two dispatchers: the busiest {threshold_text('CHIN03', 'warning')} % with another below "
        f"{threshold('CHIN03', 'idle_busy_pct'):g} %, or the most channels on one dispatcher >= "
        f"{threshold('CHIN03', 'min_volume'):g} and >= {threshold('CHIN03', 'channel_skew_factor'):g} x the median; "
        f"CHIN05 with fewer than {threshold('CHIN05', 'recommended_dispatchers'):g} dispatchers; CHIN08 on the larger "
        "of QCCTNOCC / QCCTMXCC and QCCTNOAC / QCCTMXAC, escalation on QCCTNOCC",
        "CHIN02": "the site declares the processors of the injected channel initiator's LPAR (site_config.processors: "
        "CHIN02's base_processors + 1); the adapters (QCTADP entries) as a percent of MP16's CHIADAPS for them "
        f"{threshold_text('CHIN02', 'info')} while the channels carry at least "
        f"{threshold('CHIN02', 'min_persistent_msgs_per_second'):g} persistent messages a second (QCSTNPMG summed "
        "over the queue manager's channels in the interval)",
        "CHIN07": "with SSL in use (SSL tasks with requests): fewer SSL tasks than dispatchers + "
        f"{threshold('CHIN07', 'ssl_tasks_above_dispatchers'):g}; or no more than the processors the site declares "
        "for the LPAR (site_config.processors); or more than dispatchers + 1 with at least "
        f"{threshold('CHIN07', 'min_idle_tasks'):g} SSL tasks busy below {threshold('CHIN07', 'idle_busy_pct'):g} %; "
        "the generated channel initiators with SSL run CHIDISPS + 1 SSL tasks",
        "CHIN10": f"OMVS threads of a channel initiator: {threshold('CHIN10', 'threads_per_chin'):g} + dispatchers + "
        "SSL tasks; summed per system and interval against MAXPROCSYS, and per system, user id and interval against "
        "MAXPROCUSER, as the site declares them (site_config.omvs_limits, site_config.chin_user_ids: an injected "
        f"channel initiator runs under a user id of its own); {threshold_text('CHIN10', 'warning')} % of the limit",
        "CHIN09": "QCCTSTUS is MB (as CSQX004I reports it); the site declares the injected channel initiators' EPVT "
        f"size (site_config.chin_epvt); 100 x QCCTSTUS / EPVT {threshold_text('CHIN09', 'warning')} (critical "
        f"{threshold_text('CHIN09', 'critical')}); without a declared EPVT, MP16's planning value "
        f"{threshold('CHIN09', 'planning_epvt_mb'):g} MB",
        "CHIN11": "per channel (name, connection, remote queue manager) and accounting interval, its QCST blocks "
        "summed; sender, server and cluster sender channels moving at least "
        f"{threshold('CHIN11', 'min_msgs_per_second'):g} message a second; warning when the channel carried "
        "persistent messages in an interval where LOG02 fires at warning or above",
        "CHIN16": "per channel name and interval: instances whose QCSTSTRT lies in the interval, per second, "
        f"{threshold_text('CHIN16', 'warning')} with the median of their messages at most "
        f"{threshold('CHIN16', 'max_median_msgs'):g}",
        "SUP": "supplementary rules (not MP16): SUP01-SUP03 on each queue manager's storage manager record (QSST) "
        "of the interval, object storage_manager named by the queue manager; SUP04-SUP06 on its log manager record "
        f"(QJST), object queue_manager as LOG01-LOG03; SUP04 with at least {threshold('SUP04', 'min_volume'):g} "
        "checkpoints in the interval; SUP05 in intervals with log reads; SUP07 (lock_manager) and SUP08's info "
        "level (db2_manager) against the queue manager's average over its previous intervals (SUP07: "
        f"{threshold('SUP07', 'baseline_intervals'):g} intervals, with at least {threshold('SUP07', 'min_volume'):g} "
        "MQPUT + MQGET calls), not judged in its first; SUP09 per shared message data set (smds, named by its "
        "structure); SUP10 on the DNS task's longest request (QCTLGDU) in seconds, object channel_initiator named "
        "by its job name",
        "LOG10": "log bytes = QJSTBFFL x 4096 against MP16's expected bytes: per persistent put (QMSTSPP, average "
        "length QMSTPBP / QMSTSPP) MP16's put-and-get table interpolated by length, QMSTGET beyond QMSTSPP at "
        f"{threshold('LOG10', 'get_log_bytes'):g} bytes, and per channel batch that can hold a persistent message "
        "(least of QCSTBATC and QCSTNPMG) MP16's sender or receiver figure; judged from "
        f"{threshold('LOG10', 'min_volume'):g} MB/s of log",
        "CHIN18": "per channel and interval: the highest QCSTCPRA of its instances "
        f"{threshold_text('CHIN18', 'info')} where CHIN04 fires on the queue manager's channel initiator",
        "clean": "a scenario without --inject crosses none of BP01-BP06, BP12-BP16, LOG01-LOG03, LOG10, LOG12, "
        "LOG13, LOG15, CF01-CF03, CF06-CF11, CF13, CF15-CF17, DB02, DB03, Q01-Q04, Q07, Q09, Q10, CHIN01-CHIN18, "
        "SUP01-SUP10 (see expected_firings, computed from the written values)",
    }
