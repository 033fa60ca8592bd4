"""The static shape of a scenario: LPARs, queue managers, buffer pools, page sets, CF structures
and queues, with each queue's traffic profile. Derived from the configuration and its seed."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .config import US_PER_S, VERSIONS, QmgrPlan, ScenarioConfig

# UTC offsets (minutes) given to the LPARs in turn: local and UTC times differ visibly.
LPAR_UTC_OFFSETS = (-300, 60, 0, 330, -240, 600)

# Buffer pool roles (MP16 "Buffer pool usage", ch. 1) with MP16's production starting sizes in pages.
ROLE_SYS, ROLE_SHORT, ROLE_LONG, ROLE_OTHER = "SYS", "SHORT", "LONG", "OTHER"
POOL_BUFFERS = {ROLE_SYS: 50_000, ROLE_SHORT: 50_000, ROLE_LONG: 20_000, ROLE_OTHER: 20_000}
POOL_BASELINE = {ROLE_SYS: 0.10, ROLE_SHORT: 0.05, ROLE_LONG: 0.05, ROLE_OTHER: 0.05}  # share used by objects
QUEUE_PAGE_BUDGET = 0.40  # share of a pool that clean queue depths may occupy at their peak
OTHER_POOL_IDS = (3, 15, 99)  # the "everything else" pool number differs between queue managers

# Queue categories
CAT_SYS_POOL0, CAT_SYS_OTHER, CAT_SHARED, CAT_PRIVATE = 0, 1, 2, 3

# System queues: the ones MP16 expects in pool 0 (channel sync queue, cluster queues), then the
# ones that belong in the "everything else" pool (command, admin, dead-letter, initiation).
SYSTEM_QUEUES = (
    ("SYSTEM.CHANNEL.SYNCQ", CAT_SYS_POOL0),
    ("SYSTEM.CLUSTER.TRANSMIT.QUEUE", CAT_SYS_POOL0),
    ("SYSTEM.COMMAND.INPUT", CAT_SYS_OTHER),
    ("SYSTEM.DEAD.LETTER.QUEUE", CAT_SYS_OTHER),
    ("SYSTEM.CLUSTER.COMMAND.QUEUE", CAT_SYS_POOL0),
    ("SYSTEM.ADMIN.STATISTICS.QUEUE", CAT_SYS_OTHER),
    ("SYSTEM.CLUSTER.REPOSITORY.QUEUE", CAT_SYS_POOL0),
    ("SYSTEM.CHANNEL.INITQ", CAT_SYS_OTHER),
)
SHARED_SYSTEM_QUEUES = ("SYSTEM.QSG.CHANNEL.SYNCQ", "SYSTEM.QSG.TRANSMIT.QUEUE")
# Valid but awkward names (dots, underscores, %, /, lower case, the full 48 characters).
TRICKY_QUEUES = (
    "PAYMENTS_EU%V2.REQUEST",
    "app.lower.case.reply",
    "ACME/ORDERS/INBOUND",
    "RISK.SCORING.REQUEST.FROM.CHANNEL.PARTNER.X00001",  # 48 characters
    "A",
    "BATCH.%%.NIGHTLY_RUN",
)
DOMAINS = (
    "PAYMENTS",
    "ORDERS",
    "CLAIMS",
    "BILLING",
    "INVENTORY",
    "TRADES",
    "LEDGER",
    "AUDIT",
    "CUSTOMER",
    "RISK",
    "PRICING",
    "SHIPPING",
    "FRAUD",
    "LOANS",
    "CARDS",
    "POLICY",
)
SUFFIXES = ("REQUEST", "REPLY", "EVENTS", "BATCH", "ARCHIVE", "RETRY", "NOTIFY", "STATUS")

# CF structures of the queue-sharing group: (name, entries max, elements max, has SMDS).
CF_STRUCTURES = (
    ("CSQ_ADMIN", 40_000, 120_000, False),
    ("CSQSYSAPPL", 100_000, 600_000, False),
    ("APPL1", 400_000, 2_400_000, True),
    ("APPL2", 400_000, 2_400_000, True),
)

# Per queue manager message traffic (messages per second): persistent traffic is what the log
# sees, non-persistent traffic only the buffer pools.
PERSISTENT_RATE = 270.0
NONPERSISTENT_RATE = 450.0


def pages_per_message(size: np.ndarray) -> np.ndarray:
    """Buffer pool / page set pages one message occupies (MP16 "Size of page sets for a given number of
    messages", ch. 1)."""
    size = np.asarray(size, dtype=np.int64)
    return np.where(size <= 3635, 1, 1 + -(-(size - 3635) // 4048)).astype(np.int64)


def elements_per_message(size: np.ndarray) -> np.ndarray:
    """CF list elements one shared message takes (MP16 "Increasing the maximum number of messages
    within a structure", ch. 2)."""
    return (-(-(np.asarray(size, dtype=np.int64) + 372) // 256)).astype(np.int64)


@dataclass
class Queues:
    """Per-queue arrays of one queue manager (index = position in its 115/216 records)."""

    name: np.ndarray  # object array of str
    category: np.ndarray
    shared_index: np.ndarray  # index in Topology.shared_names, -1 for private queues
    psid: np.ndarray  # page set (-1 for shared queues)
    bpid: np.ndarray  # buffer pool (-1 for shared queues)
    structure: np.ndarray  # index in CF_STRUCTURES, -1 for private queues
    size_mean: np.ndarray  # bytes
    size_lo: np.ndarray  # smallest message size relative to the mean
    size_hi: np.ndarray  # largest message size relative to the mean
    persistent_rate: np.ndarray  # messages per second
    nonpersistent_rate: np.ndarray
    put1_share: np.ndarray
    browse_share: np.ndarray
    fast_put_share: np.ndarray  # of non-persistent puts that go straight to a waiting getter
    consumers: np.ndarray  # input handles normally open
    producers: np.ndarray  # output handles normally open
    depth_cap: np.ndarray  # messages a clean workload leaves at most (pool / structure budget)

    def __len__(self) -> int:
        return len(self.name)

    @property
    def pages(self) -> np.ndarray:
        return pages_per_message(self.size_mean)

    @property
    def is_shared(self) -> np.ndarray:
        return self.shared_index >= 0


@dataclass(frozen=True)
class Interval:
    """One statistics interval of a queue manager (UTC microseconds). ``lost``: simulated but
    written by no record; ``restart``: the queue manager stopped at ``end`` (a short interval)
    and its next interval starts with the restart."""

    k: int
    start_us: int
    end_us: int
    lost: bool = False
    restart: bool = False

    @property
    def seconds(self) -> float:
        return (self.end_us - self.start_us) / US_PER_S


def schedule(config: ScenarioConfig, plan: QmgrPlan | None) -> tuple[Interval, ...]:
    """A queue manager's intervals over the scenario's span (intervals x interval_seconds from
    start). Without a plan: the span's regular intervals. With one: its own STATIME from its
    offset, a restart, lost intervals; only intervals that end within the span (the one still
    open at the end belongs to the next dump)."""
    t0 = config.start_us
    if plan is None:
        step = config.interval_seconds * US_PER_S
        return tuple(Interval(k, t0 + k * step, t0 + (k + 1) * step) for k in range(config.intervals))
    span_end = t0 + config.intervals * config.interval_seconds * US_PER_S
    step = plan.statime_minutes * 60 * US_PER_S
    out: list[Interval] = []
    t = t0 + plan.offset_minutes * 60 * US_PER_S
    while True:
        k = len(out)
        restart = plan.restart is not None and plan.restart[0] == k
        end = t + (plan.restart[1] * 60 * US_PER_S if restart else step)
        if end > span_end:
            break
        out.append(Interval(k, t, end, lost=k in plan.lost, restart=restart))
        t = end
    return tuple(out)


@dataclass
class QueueManager:
    index: int
    name: str
    system_id: str
    utc_offset_min: int
    version: str
    pools: np.ndarray  # buffer pool numbers
    pool_roles: tuple[str, ...]
    pool_buffers: np.ndarray
    pool_baseline: np.ndarray  # pages used by objects
    pagesets: np.ndarray
    pageset_pool: np.ndarray
    pageset_pages: np.ndarray
    queues: Queues
    dispatchers: int = 5
    adapters: int = 8
    ssl_tasks: int = 0
    channels: int = 150
    loglimit: int = 10_000_000  # LOGLOAD: log records between checkpoints
    dual_logging: bool = True
    extra: dict = field(default_factory=dict)
    qsg: str | None = None  # None: a standalone queue manager (no shared queues, no CF, no Db2)
    intervals: tuple[Interval, ...] = ()

    @property
    def statime_seconds(self) -> float:
        return max(i.seconds for i in self.intervals)

    @property
    def rel(self) -> str:
        return VERSIONS[self.version][0]

    @property
    def qwhx_rel(self) -> str | None:
        return VERSIONS[self.version][1]

    def pool_index(self, pool: int) -> int:
        hits = np.nonzero(self.pools == pool)[0]
        if not len(hits):
            raise ValueError(f"{self.name} has no buffer pool {pool} (pools: {', '.join(map(str, self.pools))})")
        return int(hits[0])

    def role_of_pool(self, pool: int) -> str:
        return self.pool_roles[self.pool_index(pool)]

    def pool_of_role(self, role: str) -> int:
        return int(self.pools[self.pool_roles.index(role)])

    def queue_index(self, name: str) -> int:
        hits = np.nonzero(self.queues.name == name)[0]
        if not len(hits):
            raise ValueError(f"{self.name} has no queue {name!r}")
        return int(hits[0])


@dataclass
class Topology:
    config: ScenarioConfig
    qmgrs: list[QueueManager]
    shared_names: np.ndarray  # every QSG's shared queues, one after the other
    shared_structure: np.ndarray
    structures: tuple[tuple[str, int, int, bool], ...]
    shared_qsg: np.ndarray | None = None  # QSG of each shared queue

    @property
    def qsgs(self) -> list[str]:
        return list(dict.fromkeys(q.qsg for q in self.qmgrs if q.qsg))

    @property
    def steps(self) -> int:
        """Simulation steps: the most intervals any queue manager has."""
        return max(len(q.intervals) for q in self.qmgrs)

    def qmgr(self, name: str) -> QueueManager:
        for q in self.qmgrs:
            if q.name == name:
                return q
        raise ValueError(f"no queue manager {name!r} (have {', '.join(q.name for q in self.qmgrs)})")

    @property
    def structure_names(self) -> list[str]:
        return [s[0] for s in self.structures]


def qmgr_name(i: int, prefix: str = "QM") -> str:
    """<prefix>01 ...; past 99 (or with a one-letter prefix) the number takes the room the name has (4 characters)."""
    width = 4 - len(prefix)
    if i + 1 < 10**width:
        return f"{prefix}{i + 1:0{width}d}"
    return f"{prefix[0]}{i + 1:03d}"


def lpar_name(i: int) -> str:
    return f"SYS{chr(ord('A') + i)}" if i < 26 else f"S{i:03d}"


def _app_names(n: int, prefix: str, rng: np.random.Generator, tricky: bool) -> list[str]:
    names: list[str] = list(TRICKY_QUEUES[: min(n, len(TRICKY_QUEUES))]) if tricky else []
    i = 0
    while len(names) < n:
        d, s, rep = (
            DOMAINS[i % len(DOMAINS)],
            SUFFIXES[(i // len(DOMAINS)) % len(SUFFIXES)],
            i // (len(DOMAINS) * len(SUFFIXES)),
        )
        names.append(f"{prefix}{d}.{s}" + (f".{rep:04d}" if rep else ""))
        i += 1
    return names


def _profile(n: int, rng: np.random.Generator, shared: np.ndarray) -> dict[str, np.ndarray]:
    """Random traffic profile of n queues (rates are filled in by the caller)."""
    persistent_kind = rng.choice(3, size=n, p=[0.35, 0.35, 0.30])  # 0 persistent, 1 non-persistent, 2 mixed
    pshare = np.select([persistent_kind == 0, persistent_kind == 1], [1.0, 0.0], 0.5)
    # Persistent messages are small (log bandwidth); non-persistent ones vary more.
    median = np.where(pshare > 0.5, 600.0, 1500.0)
    size = np.clip(
        rng.lognormal(np.log(median), 0.9), 64, np.where(pshare > 0.5, 3_000, np.where(shared, 30_000, 60_000))
    )
    return dict(
        pshare=pshare,
        size_mean=np.round(size),
        size_lo=rng.uniform(0.3, 0.9, n),
        size_hi=rng.uniform(1.2, 1.9, n),
        put1_share=np.where(rng.random(n) < 0.3, rng.uniform(0.01, 0.1, n), 0.0),
        browse_share=np.where(rng.random(n) < 0.2, rng.uniform(0.01, 0.2, n), 0.0),
        fast_put_share=np.where(rng.random(n) < 0.3, rng.uniform(0.05, 0.3, n), 0.0),
        consumers=rng.integers(1, 4, n),
        producers=rng.integers(1, 6, n),
        weight=1.0 / (1.0 + rng.permutation(n)) ** 1.05,
    )


def _shared_set(n_shared: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, dict]:
    """One QSG's shared queues: names, CF structure of each, traffic profile."""
    n_sys_shared = min(n_shared, 2 if n_shared >= 4 else 0)
    names = np.array(
        list(SHARED_SYSTEM_QUEUES[:n_sys_shared])
        + _app_names(n_shared, "QSG.", rng, tricky=False)[: n_shared - n_sys_shared],
        dtype=object,
    )
    app_structs = [i for i, s in enumerate(CF_STRUCTURES) if s[0].startswith("APPL")]
    sys_struct = [i for i, s in enumerate(CF_STRUCTURES) if s[0] == "CSQSYSAPPL"][0]
    structure = np.array(
        [
            sys_struct if name.startswith("SYSTEM.") else app_structs[i % len(app_structs)]
            for i, name in enumerate(names)
        ],
        dtype=np.int64,
    )
    return names, structure, _profile(n_shared, rng, np.ones(n_shared, bool))


def build(config: ScenarioConfig, rng: np.random.Generator) -> Topology:
    """The scenario's queue managers. Without ``config.estate``: one QSG (``config.qsg``; '' = the
    queue managers are standalone) whose members share ``interval_seconds``. With it: each plan's
    QSG (or none), version and intervals; every QSG has its own shared queues."""
    n_q = config.queues
    plans: list[QmgrPlan | None] = list(config.estate) or [None] * config.qmgrs
    qsg_of = [p.qsg for p in plans] if config.estate else [config.qsg or None] * config.qmgrs
    groups = list(dict.fromkeys(g for g in qsg_of if g))
    members = {g: sum(1 for x in qsg_of if x == g) for g in groups}
    n_group_shared = {g: config.n_shared if (members[g] > 1 or config.shared_queues is not None) else 0 for g in groups}
    shared: dict[str, tuple[np.ndarray, np.ndarray, dict, int]] = {}
    first = 0
    for g in groups:
        names, struct, prof = _shared_set(n_group_shared[g], rng)
        shared[g] = (names, struct, prof, first)
        first += len(names)
    shared_names = np.concatenate([shared[g][0] for g in groups]) if groups else np.zeros(0, dtype=object)
    shared_structure = (
        np.concatenate([shared[g][1] for g in groups]).astype(np.int64) if groups else np.zeros(0, np.int64)
    )
    shared_qsg = np.array([g for g in groups for _ in shared[g][0]], dtype=object)

    qmgrs = []
    for m in range(config.qmgrs):
        plan, qsg = plans[m], qsg_of[m]
        g_names, _, shared_profile, g_first = shared[qsg] if qsg else (np.zeros(0, dtype=object), None, None, 0)
        n_shared = len(g_names)
        n_sys = min(len(SYSTEM_QUEUES), max(0, (n_q - n_shared) // 4))
        n_private = n_q - n_shared - n_sys
        lpar = m % config.lpars
        other_pool = OTHER_POOL_IDS[m % len(OTHER_POOL_IDS)]
        pools = np.array([0, 1, 2, other_pool])
        roles = (ROLE_SYS, ROLE_SHORT, ROLE_LONG, ROLE_OTHER)
        buffers = np.array([POOL_BUFFERS[r] for r in roles])
        # Page sets 0-1 (objects, system queues) on pool 0, then short- and long-lived message page
        # sets, the "everything else" page set, and one high-numbered page set per queue manager.
        high_ps = 10 + (m * 7) % 90
        pagesets = np.array([0, 1, 2, 3, 4, 5, 6, high_ps])
        pageset_pool = np.array([0, 0, 1, 2, other_pool, 1, 2, 1])
        pageset_pages = np.array([65_536, 65_536, 262_144, 262_144, 131_072, 262_144, 262_144, 524_288])

        names: list[str] = [n for n, _ in SYSTEM_QUEUES[:n_sys]]
        category = [c for _, c in SYSTEM_QUEUES[:n_sys]]
        names += list(g_names)
        category += [CAT_SHARED] * n_shared
        names += _app_names(n_private, "APP.", rng, tricky=True)
        category += [CAT_PRIVATE] * n_private
        category_a = np.array(category)
        is_shared = category_a == CAT_SHARED
        prof = _profile(n_q, rng, is_shared)
        if n_shared:  # a shared queue's messages look alike on every queue manager
            for key in ("pshare", "size_mean", "size_lo", "size_hi"):
                prof[key][is_shared] = shared_profile[key]

        # Where each private queue lives: system queues by kind, application queues on the
        # short-lived (70 %) or long-lived message page sets.
        psid = np.full(n_q, -1)
        psid[category_a == CAT_SYS_POOL0] = 1
        psid[category_a == CAT_SYS_OTHER] = 4
        private = category_a == CAT_PRIVATE
        long_lived = rng.random(n_q) < 0.3
        short_sets, long_sets = np.array([2, 5, high_ps]), np.array([3, 6])
        psid[private & ~long_lived] = short_sets[rng.integers(0, 3, n_q)][private & ~long_lived]
        psid[private & long_lived] = long_sets[rng.integers(0, 2, n_q)][private & long_lived]
        bpid = np.where(psid >= 0, pageset_pool[np.searchsorted(pagesets, np.maximum(psid, 0))], -1)
        shared_index = np.where(is_shared, np.arange(n_q) - n_sys + g_first, -1)
        structure = np.full(n_q, -1, dtype=np.int64)
        structure[is_shared] = shared_structure[shared_index[is_shared]]

        # Traffic: the queue manager's persistent and non-persistent rates shared out by weight.
        scale = rng.uniform(0.92, 1.08)
        w = prof["weight"] * np.where(category_a == CAT_SYS_OTHER, 0.02, 1.0)
        wp, wn = w * prof["pshare"], w * (1 - prof["pshare"])
        p_rate = PERSISTENT_RATE * scale * wp / max(wp.sum(), 1e-12)
        np_rate = NONPERSISTENT_RATE * scale * wn / max(wn.sum(), 1e-12)

        # Clean depth limits: a pool's queues share QUEUE_PAGE_BUDGET of it; shared queues a
        # fifth of their structure's entries.
        ppm = pages_per_message(prof["size_mean"])
        cap = np.zeros(n_q, dtype=np.int64)
        for pool, nbuf in zip(pools, buffers, strict=True):
            in_pool = bpid == pool
            if in_pool.any():
                per_queue = QUEUE_PAGE_BUDGET * nbuf / in_pool.sum()
                cap[in_pool] = np.maximum(1, np.floor(per_queue / ppm[in_pool]))
        for s, (_, entries, _, _) in enumerate(CF_STRUCTURES):
            on_s = structure == s
            if on_s.any():
                cap[on_s] = max(1, int(0.2 * entries / on_s.sum()))

        queues = Queues(
            name=np.array(names, dtype=object),
            category=category_a,
            shared_index=shared_index,
            psid=psid,
            bpid=bpid,
            structure=structure,
            size_mean=prof["size_mean"],
            size_lo=prof["size_lo"],
            size_hi=prof["size_hi"],
            persistent_rate=p_rate,
            nonpersistent_rate=np_rate,
            put1_share=prof["put1_share"],
            browse_share=prof["browse_share"],
            fast_put_share=np.where(prof["pshare"] < 1, prof["fast_put_share"], 0.0),
            consumers=prof["consumers"],
            producers=prof["producers"],
            depth_cap=cap,
        )
        name = plan.name if plan else qmgr_name(m, config.qmgr_prefix)
        if name in config.idle_shared and n_shared:
            last = np.nonzero(is_shared)[0][-1]  # no application of this queue manager uses it
            for rates in (queues.persistent_rate, queues.nonpersistent_rate, queues.consumers, queues.producers):
                rates[last] = 0
        qmgrs.append(
            QueueManager(
                index=m,
                name=name,
                system_id=lpar_name(lpar),
                utc_offset_min=LPAR_UTC_OFFSETS[lpar % len(LPAR_UTC_OFFSETS)],
                version=plan.version if plan else config.versions[m % len(config.versions)],
                pools=pools,
                pool_roles=roles,
                pool_buffers=buffers,
                pool_baseline=np.array([math.ceil(POOL_BASELINE[r] * b) for r, b in zip(roles, buffers, strict=True)]),
                pagesets=pagesets,
                pageset_pool=pageset_pool,
                pageset_pages=pageset_pages,
                queues=queues,
                # SSLTASKS = CHIDISPS + 1 where SSL is used, as MP16 advises ("SSLTASKS", ch. 3, p. 138).
                ssl_tasks=QueueManager.dispatchers + 1 if m % 2 else 0,
                channels=int(rng.integers(60, 400)),
                qsg=qsg,
                intervals=schedule(config, plan),
            )
        )
    unknown = sorted(set(config.idle_shared) - {q.name for q in qmgrs if q.qsg})
    if unknown:
        raise ValueError(f"idle_shared: {', '.join(unknown)} is no queue-sharing group member")
    return Topology(config, qmgrs, shared_names, shared_structure, CF_STRUCTURES, shared_qsg)
