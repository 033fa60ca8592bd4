"""Interval-by-interval simulation of the queue-sharing group's message traffic.

For every interval and queue manager it produces the field values of every structure the
queue manager writes (QQST per queue, QPST per buffer pool, QIS1 per page set, QJST, QMST, QEST,
QESD, ...), keyed by the layouts' sanitized column names. The values are coherent:

* depth: ``DPTH(k) = DPTH(k-1) + PUTS + PUT1 - GETS - EXPR - RBPT + RBGT`` for private queues and
  for the group-wide depth of a shared queue; ``DPLO <= min(start, end) <= max(start, end) <= DPHI``;
* persistent and non-persistent counts and bytes add up; bytes are counts times sizes that lie
  between QQSTMSMI and QQSTMSMA; MQPUT1 and browse counters likewise;
* a shared queue's counters are each queue manager's own share; its depth and age are the
  group's, except on partial records (QQSTPART: depth and age 0, QQSTUNCM off, seed 000);
* buffer pool, page set, log, message/data manager and CF activity are computed from the queue
  traffic (pages per message, log records and bytes per persistent message, CF calls per shared
  queue operation).

Pathologies (``Effects``) act on the workload (a backlog, a burst, a stuck message, expiry ...)
or, for counters that have no driver in the model (buffer steal contention, CF redrives, log
buffer waits), on the counter itself; the consequences follow through the same models.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .topology import (
    QueueManager,
    Topology,
    elements_per_message,
)

US = 1_000_000
# Log records and bytes per persistent MQ call (MP16-style averages; mp16-rules.md 2.4).
LOG_RECORDS_PER_PUT, LOG_RECORDS_PER_GET = 8, 6
LOG_BYTES_PER_PUT, LOG_BYTES_PER_GET = 1300, 500
LOG_BASELINE_RECORDS_PER_S, LOG_BASELINE_BYTES_PER_S = 30, 20_000
MAX_CLEAN_AGE_S = 30  # clean queues are drained: the oldest message is at most this old
ROLLBACK_SHARE = 0.0005


@dataclass
class Effects:
    """Pathologies keyed by (interval, queue manager index, ...). Filled by pathology.plan."""

    backlog: dict[tuple[int, int, int], int] = field(default_factory=dict)  # (k, m, q) -> depth at end
    shared_backlog: dict[tuple[int, int], int] = field(default_factory=dict)  # (k, shared j) -> group depth
    rise: set[tuple[int, int, int]] = field(default_factory=set)  # depth rises, puts > gets
    no_rise: set[tuple[int, int, int]] = field(default_factory=set)
    hold: dict[tuple[int, int, int], int] = field(default_factory=dict)  # (k, m, q) -> put time (us) of a message kept
    expire: dict[tuple[int, int, int], int] = field(default_factory=dict)  # messages expired
    uncommitted: set[tuple[int, int, int]] = field(default_factory=set)
    no_uncommitted: set[tuple[int, int, int]] = field(default_factory=set)
    burst: dict[tuple[int, int, int], tuple[int, int]] = field(default_factory=dict)  # (msgs, size) persistent put+get
    size_spread: set[tuple[int, int, int]] = field(default_factory=set)  # (k, m, structure)
    failed_puts: dict[tuple[int, int, int], int] = field(default_factory=dict)  # (k, m, structure) -> per queue
    dynamic: dict[tuple[int, int], list[dict]] = field(default_factory=dict)  # (k, m) -> extra queues
    pool: dict[tuple[int, int, int], dict[str, int]] = field(default_factory=dict)  # (k, m, pool) -> counters
    log: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)  # (k, m) -> counters
    checkpoint: dict[tuple[int, int], int] = field(default_factory=dict)  # (k, m) -> at least this many
    checkpoint_max: dict[tuple[int, int], int] = field(default_factory=dict)  # (k, m) -> at most this many
    # Filled by the simulation: (k, m) -> log records per checkpoint at the interval's checkpoints (LOG03 truth)
    log_truth: dict[tuple[int, int], float] = field(default_factory=dict)
    # (k, m, q) -> (pool share, objects included): a burst on q peaks at that share of its pool's
    # buffers during the interval and is drained before the collection
    fill: dict[tuple[int, int, int], tuple[float, bool]] = field(default_factory=dict)
    redrive: dict[tuple[int, int, int], float] = field(default_factory=dict)  # (k, m, structure) -> redrive share
    cf: dict[tuple[int, int, int], dict[str, int]] = field(default_factory=dict)  # (k, m, structure) -> counters
    partial_shared: set[tuple[int, int, int]] = field(default_factory=set)  # (k, m, structure)
    partial_private: set[tuple[int, int, int]] = field(default_factory=set)  # (k, m, q)
    _index: dict | None = field(default=None, repr=False, compare=False)

    QUEUE_EFFECTS = (
        "backlog",
        "rise",
        "no_rise",
        "hold",
        "expire",
        "uncommitted",
        "no_uncommitted",
        "burst",
        "partial_private",
        "fill",
    )

    def at(self, k: int, m: int) -> dict[str, dict[int, object]]:
        """Queue-level effects of one interval and queue manager: kind -> {queue index: value}."""
        if self._index is None:
            index: dict = {}
            for kind in self.QUEUE_EFFECTS:
                items = getattr(self, kind)
                pairs = items.items() if isinstance(items, dict) else ((key, True) for key in items)
                for (kk, mm, q), value in pairs:
                    index.setdefault((kk, mm), {}).setdefault(kind, {})[q] = value
            self._index = index
        return self._index.get((k, m), {})


@dataclass
class QmgrInterval:
    """Everything one queue manager reports for one interval: per structure, the column values
    of its instances (sanitized column names; named flag bits as booleans)."""

    k: int
    m: int
    structures: dict[str, dict[str, np.ndarray]]
    rows: dict[str, int]
    queue_names: np.ndarray


@dataclass
class _QueueState:
    depth: np.ndarray
    rise_streak: np.ndarray
    last_put: np.ndarray
    last_get: np.ndarray
    qtime_long: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    uncommitted: np.ndarray


@dataclass
class _QmgrState:
    queues: _QueueState
    spilled: np.ndarray  # per pool: message pages on the page set only (pushed out of the pool)
    log_records_total: int = 0
    new_logs: int = 0
    expansions: np.ndarray | None = None


def _poisson(rng: np.random.Generator, lam) -> np.ndarray:
    return rng.poisson(np.maximum(np.asarray(lam, dtype=np.float64), 0.0)).astype(np.int64)


def _binom(rng: np.random.Generator, n, p) -> np.ndarray:
    n = np.asarray(n, dtype=np.int64)
    return rng.binomial(np.maximum(n, 0), np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)).astype(np.int64)


def _diurnal(local_hour: float) -> float:
    """Non-persistent traffic follows the local working day (0.6 at night, 1.3 at midday)."""
    return 0.95 + 0.35 * float(np.sin((local_hour - 7.0) / 24.0 * 2 * np.pi))


class Simulation:
    """Run the scenario one interval at a time; ``step(k)`` must be called for k = 0, 1, ..."""

    def __init__(self, topo: Topology, effects: Effects, seed: int) -> None:
        self.topo = topo
        self.fx = effects
        self.seed = seed
        self.T = topo.config.interval_seconds
        self.start_us = topo.config.start_us
        self.state = []
        rng = np.random.default_rng([seed, 7919])
        for qm in topo.qmgrs:
            q = qm.queues
            n = len(q)
            self.state.append(
                _QmgrState(
                    queues=_QueueState(
                        depth=np.zeros(n, np.int64),
                        rise_streak=np.zeros(n, np.int64),
                        last_put=np.zeros(n, np.int64),
                        last_get=np.zeros(n, np.int64),
                        qtime_long=np.zeros(n, np.float64),
                        inputs=q.consumers.copy(),
                        outputs=q.producers.copy(),
                        uncommitted=np.zeros(n, bool),
                    ),
                    spilled=np.zeros(len(qm.pools), np.int64),
                    new_logs=int(rng.integers(20, 200)),
                    expansions=rng.integers(0, 3, len(qm.pagesets)),
                )
            )
        n_shared = len(topo.shared_names)
        self.shared_depth = np.zeros(n_shared, np.int64)
        self.shared_streak = np.zeros(n_shared, np.int64)
        self.next_k = 0

    # ------------------------------------------------------------------------------------------
    def interval_bounds(self, k: int, qm: QueueManager) -> tuple[int, int]:
        """A queue manager's k-th interval (each has its own STATIME, start and restarts)."""
        i = qm.intervals[k]
        return i.start_us, i.end_us

    def _T(self, k: int, qm: QueueManager) -> int:
        """Seconds of a queue manager's k-th interval."""
        start, end = self.interval_bounds(k, qm)
        return (end - start) // US

    def step(self, k: int) -> list[QmgrInterval]:
        """Step k: the k-th interval of every queue manager that has one. A QSG's members exchange
        shared-queue messages step by step, whatever their intervals' lengths."""
        if k != self.next_k:
            raise RuntimeError(f"intervals must be simulated in order (expected {self.next_k}, got {k})")
        self.next_k += 1
        active = [qm for qm in self.topo.qmgrs if k < len(qm.intervals)]
        traffic = [self._traffic(k, qm) for qm in active]
        self._shared(k, active, traffic)
        out = []
        for qm, tr in zip(active, traffic, strict=True):
            out.append(self._finish(k, qm, tr, *self.interval_bounds(k, qm)))
        return out

    # ------------------------------------------------------------------------------------------
    # Step 1: puts per queue (every queue manager), private queues' gets and depth
    # ------------------------------------------------------------------------------------------
    def _traffic(self, k: int, qm: QueueManager) -> dict:
        fx, T, m = self.fx, self._T(k, qm), qm.index
        rng = np.random.default_rng([self.seed, k, m])
        Q = qm.queues
        st = self.state[m].queues
        n = len(Q)
        start, end = self.interval_bounds(k, qm)
        local_hour = ((start + T * US / 2) / US / 3600 + qm.utc_offset_min / 60) % 24
        e_p = Q.persistent_rate * T * rng.lognormal(0, 0.03, n)
        e_np = Q.nonpersistent_rate * T * _diurnal(local_hour) * rng.lognormal(0, 0.1, n)
        put_p, put_np = _poisson(rng, e_p), _poisson(rng, e_np)
        expired = np.zeros(n, np.int64)
        burst = np.zeros(n, np.int64)
        burst_size = np.zeros(n, np.float64)
        e = fx.at(k, m)
        for q, x in e.get("expire", {}).items():  # short-expiry messages put and expired in the interval
            expired[q] = x
            put_np[q] += x
        for q, (msgs, size) in e.get("burst", {}).items():
            burst[q], burst_size[q] = msgs, size
            put_p[q] += msgs
        for q, depth in e.get("backlog", {}).items():  # the backlog's messages are put on top
            extra = max(0, depth - int(st.depth[q]))
            if Q.persistent_rate[q] > 0:
                put_p[q] += extra
            else:
                put_np[q] += extra
        put1_p, put1_np = _binom(rng, put_p, Q.put1_share), _binom(rng, put_np, Q.put1_share)
        tr = dict(
            rng=rng,
            PPT=put_p - put1_p,
            PP1=put1_p,
            NPPT=put_np - put1_np,
            NPP1=put1_np,
            EXPR=expired,
            burst=burst,
            burst_size=burst_size,
        )
        total = put_p + put_np
        tr["total_puts"] = total
        tr["RBPT"] = _binom(rng, put_p - burst, ROLLBACK_SHARE)
        tr["FPTC"] = _binom(rng, put_np - expired, Q.fast_put_share)
        # Private queues: drain what was there, keep a small residue (never three rises in a row).
        d0 = st.depth.copy()
        avail = d0 + total - tr["RBPT"] - expired
        residue = np.where(rng.random(n) < 0.5, 0, np.floor(total * rng.uniform(0, 0.01, n))).astype(np.int64)
        d1 = np.minimum(np.minimum(residue, Q.depth_cap), np.maximum(avail, 0))
        d1 = np.where(st.rise_streak >= 2, np.minimum(d1, d0), d1)
        for q in e.get("no_rise", {}):
            d1[q] = min(d1[q], d0[q])
        for q in e.get("rise", {}):
            step = max(3, min(int(0.02 * total[q]), int(Q.depth_cap[q]) // 8))
            d1[q] = min(int(avail[q]), int(d0[q]) + step)
        for q, depth in e.get("backlog", {}).items():
            d1[q] = min(int(avail[q]), depth)
        for q in e.get("hold", {}):
            d1[q] = max(int(d1[q]), 1)
        peak = np.zeros(n, np.int64)
        for q, (share, with_objects) in e.get("fill", {}).items():
            # The burst's peak depth brings the pool's peak use to `share` of its buffers: the other
            # queues' peaks are bounded here (their excursion above max(start, end) is at most
            # 0.2 % of their traffic), so the share is met within a fraction of a percent.
            pool = int(Q.bpid[q])
            i = qm.pool_index(pool)
            others = (Q.bpid == pool) & (np.arange(n) != q) & ~Q.is_shared
            ppm = Q.pages
            other_pages = int(
                (np.maximum(d0, d1)[others] * ppm[others]).sum() + (0.001 * total[others] * ppm[others]).sum()
            )
            base = int(qm.pool_baseline[i]) if with_objects else 0
            need = share * qm.pool_buffers[i] - base - other_pages
            peak[q] = max(int(d0[q]), int(np.ceil(need / ppm[q])))
            if Q.persistent_rate[q] > 0:  # the burst's messages are put, and got before the collection
                tr["PPT"][q] += peak[q]
            else:
                tr["NPPT"][q] += peak[q]
            total[q] += peak[q]
            avail[q] += peak[q]
        tr["d0"], tr["d1"], tr["peak"] = d0, d1, peak
        tr["gets_net"] = np.maximum(avail - d1, 0)
        return tr

    # ------------------------------------------------------------------------------------------
    # Step 2: shared queues - group-wide depth, gets shared out over the queue managers
    # ------------------------------------------------------------------------------------------
    def _shared(self, k: int, active: list[QueueManager], traffic: list[dict]) -> None:
        n_shared = len(self.topo.shared_names)
        if not n_shared:
            return
        rng = np.random.default_rng([self.seed, k, 104729])
        rows = [np.nonzero(qm.queues.is_shared)[0] for qm in active]
        puts = np.zeros(n_shared, np.int64)
        removed = np.zeros(n_shared, np.int64)
        weight = np.zeros((len(active), n_shared))
        for m, (qm, tr) in enumerate(zip(active, traffic, strict=True)):
            j = qm.queues.shared_index[rows[m]]
            puts[j] += tr["total_puts"][rows[m]]
            removed[j] += tr["RBPT"][rows[m]] + tr["EXPR"][rows[m]]
            weight[m, j] = qm.queues.consumers[rows[m]] * rng.uniform(0.5, 1.5, len(j))
        d0 = self.shared_depth.copy()
        avail = d0 + puts - removed
        cap = np.zeros(n_shared, np.int64)
        for qm, r in zip(active, rows, strict=True):
            cap[qm.queues.shared_index[r]] = qm.queues.depth_cap[r]
        residue = np.where(rng.random(n_shared) < 0.5, 0, np.floor(puts * rng.uniform(0, 0.01, n_shared))).astype(
            np.int64
        )
        d1 = np.minimum(np.minimum(residue, cap), np.maximum(avail, 0))
        d1 = np.where(self.shared_streak >= 2, np.minimum(d1, d0), d1)
        for (kk, j), depth in self.fx.shared_backlog.items():
            if kk == k:
                d1[j] = min(int(avail[j]), depth)
        gets_net = np.maximum(avail - d1, 0)
        # Share the group's gets out by consumer weight (largest-remainder rounding).
        w = weight / np.maximum(weight.sum(axis=0), 1e-12)
        alloc = np.floor(w * gets_net).astype(np.int64)
        short = gets_net - alloc.sum(axis=0)
        order = np.argsort(-(w * gets_net - alloc), axis=0, kind="stable")
        for j in np.nonzero(short > 0)[0]:
            alloc[order[: short[j], j], j] += 1
        for m, (qm, tr) in enumerate(zip(active, traffic, strict=True)):
            r = rows[m]
            tr["gets_net"][r] = alloc[m, qm.queues.shared_index[r]]
        self.shared_depth = d1
        self.shared_streak = np.where(d1 > d0, self.shared_streak + 1, 0)
        peak_extra = np.floor(np.minimum(puts, gets_net) * rng.uniform(0, 0.005, n_shared)).astype(np.int64)
        self._shared_now = dict(
            d0=d0,
            d1=d1,
            puts=puts,
            gets=gets_net,
            peak=np.minimum(np.maximum(d0, d1) + peak_extra, np.maximum(d0 + puts, np.maximum(d0, d1))),
            low=np.maximum(
                0, np.minimum(d0, d1) - np.floor(np.minimum(puts, gets_net) * rng.uniform(0, 0.005, n_shared))
            ).astype(np.int64),
            age=np.where(
                d1 > 0,
                np.minimum(
                    MAX_CLEAN_AGE_S,
                    np.ceil(
                        d1
                        / np.maximum(puts, 1)
                        * max(self._T(k, qm) for qm in active)
                        * rng.uniform(0.2, 1.0, n_shared)
                    ),
                ),
                0,
            ).astype(np.int64),
        )

    # ------------------------------------------------------------------------------------------
    # Step 3: all remaining queue fields, then the queue manager's other structures
    # ------------------------------------------------------------------------------------------
    def _finish(self, k: int, qm: QueueManager, tr: dict, start: int, end: int) -> QmgrInterval:
        fx, T, m = self.fx, self._T(k, qm), qm.index
        rng = tr["rng"]
        Q = qm.queues
        st = self.state[m].queues
        n = len(Q)
        shared = Q.is_shared
        d0, d1 = tr["d0"].copy(), tr["d1"].copy()
        if shared.any():
            sh = self._shared_now
            j = Q.shared_index[shared]
            d0[shared], d1[shared] = sh["d0"][j], sh["d1"][j]
        total = tr["total_puts"]
        gets_net = tr["gets_net"]
        p_share = np.where(
            total > 0, (tr["PPT"] + tr["PP1"]) / np.maximum(total, 1), np.where(Q.persistent_rate > 0, 1.0, 0.0)
        )
        e = fx.at(k, m)
        rbgt = _binom(rng, gets_net, p_share * ROLLBACK_SHARE)
        for q in e.get("rise", {}):
            rbgt[q] = 0  # the backlog's intervals: every get stays got
        gets = gets_net + rbgt
        # Depth identity; for shared queues the group's.
        c = {}
        c["QQSTQNAM"] = Q.name
        c["QQSTDISP"] = shared
        c["QQSTPSID"] = Q.psid
        c["QQSTBPID"] = Q.bpid
        c["QQSTQSGN"] = np.where(shared, qm.qsg or "", "")
        c["QQSTCFST"] = np.where(shared, np.array(self.topo.structure_names + [""], dtype=object)[Q.structure], "")
        c["QQSTPPT"], c["QQSTPP1"], c["QQSTNPPT"], c["QQSTNPP1"] = tr["PPT"], tr["PP1"], tr["NPPT"], tr["NPP1"]
        c["QQSTPUTS"] = tr["PPT"] + tr["NPPT"]
        c["QQSTPUT1"] = tr["PP1"] + tr["NPP1"]
        # Message sizes: each class's average lies within [MSMI, MSMA].
        mean = Q.size_mean * rng.lognormal(0, 0.03, n)
        lo, hi = Q.size_lo.copy(), Q.size_hi.copy()
        for kk, mm, s in fx.size_spread:
            if kk == k and mm == m:  # sizes straddle the CF buffer boundaries
                spread = shared & (Q.structure == s)
                lo[spread], hi[spread] = 0.15, 3.5
        msmi = np.maximum(1, np.floor(mean * lo)).astype(np.int64)
        msma = np.maximum(msmi, np.ceil(mean * hi)).astype(np.int64)
        s_p = np.clip(mean * rng.uniform(0.95, 1.05, n), msmi, msma)
        s_np = np.clip(mean * rng.uniform(0.95, 1.05, n), msmi, msma)
        burst = tr["burst"]
        base_p = tr["PPT"] - burst
        ppb = np.round(base_p * s_p).astype(np.int64) + np.round(burst * tr["burst_size"]).astype(np.int64)
        msmi = np.where(burst > 0, np.minimum(msmi, tr["burst_size"].astype(np.int64)), msmi)
        msma = np.where(burst > 0, np.maximum(msma, tr["burst_size"].astype(np.int64)), msma)
        p1b = np.round(tr["PP1"] * s_p).astype(np.int64)
        nppb = np.round(tr["NPPT"] * s_np).astype(np.int64)
        np1b = np.round(tr["NPP1"] * s_np).astype(np.int64)
        c["QQSTPPB"], c["QQSTP1B"], c["QQSTNPPB"], c["QQSTNP1B"] = ppb, p1b, nppb, np1b
        c["QQSTPUTB"], c["QQSTPT1B"] = ppb + nppb, p1b + np1b
        put_bytes = ppb + nppb + p1b + np1b
        single = total == 1
        msmi = np.where(total == 0, 0, np.where(single, put_bytes, msmi))
        msma = np.where(total == 0, 0, np.where(single, put_bytes, msma))
        c["QQSTMSMI"], c["QQSTMSMA"] = msmi, msma
        c["QQSTMSAV"] = np.where(total > 0, put_bytes // np.maximum(total, 1), 0)
        c["QQSTFPTC"] = tr["FPTC"]
        c["QQSTFPTB"] = np.round(tr["FPTC"] * s_np).astype(np.int64)
        # Gets: persistent share follows what was put; bytes from the class sizes.
        pdg = _binom(rng, gets, p_share)
        c["QQSTGETS"], c["QQSTPDG"], c["QQSTNPDG"] = gets, pdg, gets - pdg
        pdb = np.round(pdg * s_p).astype(np.int64)
        npdb = np.round((gets - pdg) * s_np).astype(np.int64)
        c["QQSTPDB"], c["QQSTNPDB"], c["QQSTGETB"] = pdb, npdb, pdb + npdb
        brws = _poisson(rng, Q.browse_share * total)
        pbr = _binom(rng, brws, p_share)
        c["QQSTBRWS"], c["QQSTPBR"], c["QQSTNPBR"] = brws, pbr, brws - pbr
        pbb = np.round(pbr * s_p).astype(np.int64)
        npbb = np.round((brws - pbr) * s_np).astype(np.int64)
        c["QQSTPBB"], c["QQSTNPBB"], c["QQSTBRWB"] = pbb, npbb, pbb + npbb
        nmag = _poisson(rng, 0.002 * gets + 0.5)
        tmfg = _poisson(rng, 0.0002 * gets)
        c["QQSTNMAG"], c["QQSTTMFG"] = nmag, tmfg
        c["QQSTFLGT"] = nmag + tmfg + _poisson(rng, 0.0001 * gets)
        nmab = _poisson(rng, 0.01 * brws)
        c["QQSTNMAB"], c["QQSTTMFB"], c["QQSTFLBR"] = nmab, np.zeros(n, np.int64), nmab
        failed = np.zeros(n, np.int64)
        for (kk, mm, s), per_queue in fx.failed_puts.items():
            if kk == k and mm == m:
                failed[shared & (Q.structure == s)] = per_queue
        c["QQSTFLPT"], c["QQSTFLP1"] = failed, np.zeros(n, np.int64)
        rdgw = _poisson(rng, np.where(Q.consumers > 1, 0.2, 0.05) * gets)
        c["QQSTRDGW"], c["QQSTFLGW"] = rdgw, _binom(rng, rdgw, 0.3)
        c["QQSTRDBW"] = c["QQSTFLBW"] = np.zeros(n, np.int64)
        c["QQSTSTRM"] = c["QQSTSAGT"] = c["QQSTSABR"] = np.zeros(n, np.int64)
        # Handles: end-of-interval counts, watermarks, opens and closes that explain the change.
        ipct = np.maximum(0, Q.consumers + rng.integers(-1, 2, n))
        opct = np.maximum(0, Q.producers + rng.integers(-1, 2, n))
        c["QQSTIPCT"], c["QQSTOPCT"] = ipct, opct
        c["QQSTIPHI"] = np.maximum(ipct, st.inputs) + rng.integers(0, 2, n)
        c["QQSTIPLO"] = np.maximum(0, np.minimum(ipct, st.inputs) - rng.integers(0, 2, n))
        c["QQSTOPHI"] = np.maximum(opct, st.outputs) + rng.integers(0, 3, n)
        c["QQSTOPLO"] = np.maximum(0, np.minimum(opct, st.outputs) - rng.integers(0, 2, n))
        change = (ipct + opct) - (st.inputs + st.outputs)
        opens = _poisson(rng, 0.002 * total + 1) + np.maximum(change, 0)
        c["QQSTOPEN"], c["QQSTCLOS"] = opens, opens - change
        c["QQSTINQR"] = _poisson(rng, 0.001 * total + 2)
        c["QQSTSET"] = _poisson(rng, np.full(n, 0.05))
        c["QQSTEXPR"], c["QQSTRBPT"], c["QQSTRBGT"] = tr["EXPR"], tr["RBPT"], rbgt
        # Depth and its watermarks.
        exc = np.minimum(total, gets)
        dphi = np.maximum(d0, d1) + np.floor(exc * rng.uniform(0, 0.002, n)).astype(np.int64)
        dphi = np.minimum(dphi, np.maximum(np.maximum(d0, d1), np.maximum(Q.depth_cap, 0)))
        dplo = np.maximum(
            np.maximum(0, d0 - gets), np.minimum(d0, d1) - np.floor(exc * rng.uniform(0, 0.002, n)).astype(np.int64)
        )
        dphi = np.maximum(dphi, tr["peak"])
        if shared.any():
            # Each queue manager sees the group's depth only at its own puts and at collection
            # (seed 000): its high/low lie between the collection depth and the group's extremes.
            sh = self._shared_now
            j = Q.shared_index[shared]
            peak, low = sh["peak"][j], sh["low"][j]
            putting = total[shared] > 0
            u = rng.uniform(0, 1, len(j))
            dphi[shared] = np.where(putting, d1[shared] + np.floor(u * (peak - d1[shared])), d1[shared])
            dplo[shared] = np.where(
                putting, np.minimum(d1[shared], np.maximum(1, low + np.floor(u * (d1[shared] - low)))), d1[shared]
            )
        age = np.where(
            d1 > 0, np.minimum(MAX_CLEAN_AGE_S, np.ceil(d1 / np.maximum(total, 1) * T * rng.uniform(0.2, 1.0, n))), 0
        ).astype(np.int64)
        if shared.any():
            age[shared] = self._shared_now["age"][Q.shared_index[shared]]
        for q, put_time in e.get("hold", {}).items():  # a message nobody gets: depth >= 1, age grows
            age[q] = (end - put_time) // US
            if put_time < start:
                dplo[q] = max(int(dplo[q]), 1)
        c["QQSTDPTH"], c["QQSTDPHI"], c["QQSTDPLO"], c["QQSTMAGE"] = d1, dphi, dplo, age
        # Queue times (microseconds, Little's law) and last put / get times.
        avg_depth = (d0 + d1) / 2 + 0.5
        qt = np.where(gets > 0, avg_depth / np.maximum(gets, 1) * T * US, 0)
        qt = np.minimum(qt, 4_000_000_000)
        c["QQSTQTST"] = np.minimum(np.round(qt * rng.uniform(0.8, 1.2, n)), 4_000_000_000).astype(np.int64)
        qtl = np.where(st.qtime_long > 0, 0.7 * st.qtime_long + 0.3 * qt, qt)
        c["QQSTQTLT"] = np.round(qtl).astype(np.int64)
        lput = np.where(
            total > 0, end - np.floor(rng.uniform(0, 1, n) * T * US / (total + 1)).astype(np.int64), st.last_put
        )
        lget = np.where(
            gets > 0, end - np.floor(rng.uniform(0, 1, n) * T * US / (gets + 1)).astype(np.int64), st.last_get
        )
        c["QQSTLPUT"], c["QQSTLGET"] = lput, lget
        # Flags: uncommitted work seen now and then (never in consecutive intervals when clean).
        has_uncm = qm.version != "9.3.0"
        uncm = (rng.random(n) < 0.03) & ~st.uncommitted & ((tr["PPT"] + tr["PP1"]) > 0) & has_uncm
        part = np.zeros(n, bool)
        for q in e.get("no_uncommitted", {}):
            uncm[q] = False
        for q in e.get("uncommitted", {}):
            uncm[q] = True
        for q in e.get("partial_private", {}):
            part[q] = True
        for kk, mm, s in fx.partial_shared:
            if kk == k and mm == m:
                part |= shared & (Q.structure == s)
        c["QQSTPART"] = part
        partial_shared = part & shared
        c["QQSTDPTH"] = np.where(partial_shared, 0, c["QQSTDPTH"])
        c["QQSTMAGE"] = np.where(part, 0, c["QQSTMAGE"])
        uncm &= ~partial_shared
        c["QQSTUNCM"] = uncm
        # Carry state.
        st.depth = np.where(shared, 0, d1)
        st.rise_streak = np.where(d1 > d0, st.rise_streak + 1, 0)
        st.last_put, st.last_get = lput, lget
        st.qtime_long = qtl
        st.inputs, st.outputs = ipct, opct
        st.uncommitted = uncm
        qqst = self._with_dynamic(k, m, c, rng, start, end)

        structures = {"QQST": qqst}
        log = self._log(k, qm, c, rng, start, end)
        structures["QJST"] = log
        pools = self._pools(k, qm, tr, c, gets, brws, int(log["QJSTLLCP"][0]))
        structures["QPST"] = pools["QPST"]
        structures["QIS1"] = self._pagesets(k, qm, c, pools, log, rng)
        managers = self._managers(k, qm, qqst, pools, rng)
        cf = self._cf(k, qm, c, rng)
        if qm.qsg is None:  # outside a QSG: no coupling facility, no Db2 (the triplets are empty)
            managers["Q5ST"] = {key: v[:0] for key, v in managers["Q5ST"].items()}
            cf = {name: {key: v[:0] for key, v in cols.items()} for name, cols in cf.items()}
        structures.update(managers)
        structures.update(cf)
        structures.update(self._chin(k, qm, c, rng, start, end))
        rows = {name: len(next(iter(cols.values()))) if cols else 0 for name, cols in structures.items()}
        return QmgrInterval(k, m, structures, rows, qqst["QQSTQNAM"])

    def _with_dynamic(self, k: int, m: int, c: dict, rng, start: int, end: int) -> dict:
        """Append queues that exist only in this interval (dynamic queues)."""
        extra = self.fx.dynamic.get((k, m), [])
        if not extra:
            return c
        rows = []
        for d in extra:
            puts = int(d["depth"]) + int(rng.integers(5, 50))
            gets = puts - int(d["depth"])
            size = int(d.get("size", 512))
            row = {key: 0 for key in c}
            row.update(
                QQSTQNAM=d["name"],
                QQSTDISP=False,
                QQSTPSID=d["psid"],
                QQSTBPID=d["bpid"],
                QQSTQSGN="",
                QQSTCFST="",
                QQSTPUTS=puts,
                QQSTNPPT=puts,
                QQSTPUTB=puts * size,
                QQSTNPPB=puts * size,
                QQSTMSMI=size,
                QQSTMSMA=size,
                QQSTMSAV=size,
                QQSTGETS=gets,
                QQSTNPDG=gets,
                QQSTGETB=gets * size,
                QQSTNPDB=gets * size,
                QQSTDPTH=d["depth"],
                QQSTDPHI=d["depth"],
                QQSTDPLO=0,
                QQSTOPEN=1,
                QQSTIPCT=1,
                QQSTIPHI=1,
                QQSTOPHI=1,
                QQSTOPLO=0,
                QQSTIPLO=0,
                QQSTMAGE=int(rng.integers(1, 60)),
                QQSTPART=False,
                QQSTUNCM=False,
                QQSTLPUT=end - int(rng.integers(1, 60)) * US,
                QQSTLGET=end - int(rng.integers(60, 120)) * US,
                QQSTQTST=int(rng.integers(100, 5000)),
                QQSTQTLT=int(rng.integers(100, 5000)),
            )
            rows.append(row)
        out = {}
        for key, col in c.items():
            add = np.array([r[key] for r in rows], dtype=col.dtype if col.dtype != object else object)
            out[key] = np.concatenate([col, add])
        return out

    # ------------------------------------------------------------------------------------------
    # Buffer pools (QPST) from the private queues' pages
    # ------------------------------------------------------------------------------------------
    def _pools(
        self, k: int, qm: QueueManager, tr: dict, c: dict, gets: np.ndarray, brws: np.ndarray, checkpoints: int
    ) -> dict:
        Q = qm.queues
        st = self.state[qm.index]
        rng = tr["rng"]
        ppm = Q.pages
        private = ~Q.is_shared
        fast = tr["FPTC"]
        put_msgs = tr["total_puts"] - fast
        n_pools = len(qm.pools)
        cols = {
            name: np.zeros(n_pools, np.int64)
            for name in (
                "QPSTNBUF",
                "QPSTCBSL",
                "QPSTCBS",
                "QPSTGETP",
                "QPSTGETN",
                "QPSTRIO",
                "QPSTSTW",
                "QPSTTPW",
                "QPSTWIO",
                "QPSTIMW",
                "QPSTDWT",
                "QPSTDMC",
                "QPSTSTL",
                "QPSTSTLA",
                "QPSTSOS",
            )
        }
        cols["QPSTLOC"] = np.ones(n_pools, bool)  # above the bar (an injection may say otherwise)
        cols["QPSTF4KB"] = np.array([r == "SHORT" for r in qm.pool_roles])
        dwp_pages = np.zeros(n_pools, np.int64)
        read_pages = np.zeros(n_pools, np.int64)
        for i, pool in enumerate(qm.pools):
            in_pool = private & (Q.bpid == pool)
            nbuf = int(qm.pool_buffers[i])
            base = int(qm.pool_baseline[i])
            peak = base + int((c["QQSTDPHI"][: len(Q)][in_pool] * ppm[in_pool]).sum())
            end_used = base + int((c["QQSTDPTH"][: len(Q)][in_pool] * ppm[in_pool]).sum())
            for d in self.fx.dynamic.get((k, qm.index), []):
                if d["bpid"] == pool:
                    peak += int(d["depth"])
                    end_used += int(d["depth"])
            put_pages = int((put_msgs[in_pool] * ppm[in_pool]).sum())
            get_pages = int(((gets[in_pool] + brws[in_pool]) * ppm[in_pool]).sum())
            # Pages of queued messages already pushed out to the page set take no buffers.
            peak = max(base, peak - int(st.spilled[i]))
            free_low = nbuf - peak
            overflow = max(0, -free_low)  # pages pushed out to the page set, read back when got
            rio = min(int(st.spilled[i]) + overflow, get_pages)
            st.spilled[i] = st.spilled[i] + overflow - rio
            end_used = max(base, end_used - int(st.spilled[i]))
            dwt = dmc = imw = dwp = 0
            if free_low < 0.15 * nbuf:  # deferred write processor starts below 15 % free
                dwp = int(peak - 0.75 * nbuf)
                dwt = 1 + int(rng.integers(0, 3)) + dwp // max(1, nbuf // 20)
            if free_low < 0.05 * nbuf:  # synchronous writes below 5 % free
                imw = int(peak - 0.95 * nbuf) + overflow
                dmc = 1 + imw // max(1, nbuf // 50)
            ckpt = int(rng.integers(5, 40)) * checkpoints  # object and long-lived pages at checkpoints
            tpw = dwp + imw + ckpt
            cols["QPSTNBUF"][i] = nbuf
            cols["QPSTCBSL"][i] = max(0, free_low)
            cols["QPSTCBS"][i] = min(nbuf, max(max(0, free_low), nbuf - end_used))
            cols["QPSTGETN"][i] = put_pages
            cols["QPSTGETP"][i] = get_pages + put_pages // 2 + int(rng.integers(200, 2000))
            cols["QPSTRIO"][i] = rio
            cols["QPSTSTW"][i] = put_pages + get_pages
            cols["QPSTTPW"][i] = tpw
            cols["QPSTWIO"][i] = -(-tpw // 8)
            cols["QPSTIMW"][i] = -(-imw // 4)
            cols["QPSTDWT"][i], cols["QPSTDMC"][i] = dwt, dmc
            cols["QPSTSTL"][i] = overflow + dwp // 2
            cols["QPSTSOS"][i] = 0 if overflow == 0 else 1 + overflow // max(1, nbuf // 100)
            for name, value in self.fx.pool.get((k, qm.index, int(pool)), {}).items():
                cols[name][i] = value
            dwp_pages[i] = tpw
            read_pages[i] = rio
        cols["QPSTPOOL"] = qm.pools.astype(np.int64)
        return {"QPST": cols, "written": dwp_pages, "read": read_pages}

    # ------------------------------------------------------------------------------------------
    # Log manager (QJST): records and bytes from persistent traffic; checkpoints by LOGLOAD
    # ------------------------------------------------------------------------------------------
    def _log(self, k: int, qm: QueueManager, c: dict, rng, start: int, end: int) -> dict:
        T = self._T(k, qm)
        st = self.state[qm.index]
        nq = len(qm.queues)
        p_puts = int((c["QQSTPPT"][:nq] + c["QQSTPP1"][:nq]).sum())
        p_gets = int(c["QQSTPDG"][:nq].sum())
        p_bytes = int((c["QQSTPPB"][:nq] + c["QQSTP1B"][:nq]).sum())
        records = LOG_RECORDS_PER_PUT * p_puts + LOG_RECORDS_PER_GET * p_gets + LOG_BASELINE_RECORDS_PER_S * T
        log_bytes = p_bytes + LOG_BYTES_PER_PUT * p_puts + LOG_BYTES_PER_GET * p_gets + LOG_BASELINE_BYTES_PER_S * T
        before = st.log_records_total
        after = before + records
        checkpoints = after // qm.loglimit - before // qm.loglimit
        # Ground truth for LOG03: the LOGLOAD counter (records since the previous checkpoint, reset
        # to zero at each one) at this interval's checkpoints: LOGLOAD itself when taken by count.
        per_checkpoint = float(qm.loglimit)
        forced = self.fx.checkpoint.get((k, qm.index))
        if forced is not None and checkpoints < forced:
            checkpoints = forced
            per_checkpoint = (before % qm.loglimit + records) / forced
            after = 0  # a forced checkpoint (log switch, SET LOG) restarts the LOGLOAD count
        most = self.fx.checkpoint_max.get((k, qm.index))
        if most is not None and checkpoints > most:
            checkpoints = most
            after = after % qm.loglimit
        st.log_records_total = after
        st.new_logs += int(checkpoints)
        if checkpoints:
            self.fx.log_truth[(k, qm.index)] = per_checkpoint
        pages = -(-log_bytes // 4096)
        ci_written = int(pages * rng.uniform(1.2, 1.4))
        log_ios = max(1, ci_written // 4)
        w = {}
        wrw = int(records * 0.4)
        wrf = max(1, p_puts // 10)
        w["QJSTWRW"], w["QJSTWRF"], w["QJSTWRNW"] = wrw, wrf, records - wrw - wrf
        w["QJSTWTB"] = 0
        w["QJSTRBUF"] = int(c["QQSTRBPT"][:nq].sum() + c["QQSTRBGT"][:nq].sum()) * 2
        w["QJSTRACT"] = int(rng.integers(0, 20))
        w["QJSTRARH"] = w["QJSTTVC"] = 0
        w["QJSTBSDS"] = 4 + 2 * int(checkpoints)
        w["QJSTBFFL"] = pages
        w["QJSTBFWR"] = max(1, records // 3)
        w["QJSTALR"] = 0
        w["QJSTALW"] = 2 * int(checkpoints)
        w["QJSTCIOF"] = pages if checkpoints else 0
        w["QJSTLLCP"] = int(checkpoints)
        w["QJSTWUR"] = w["QJSTLAMA"] = w["QJSTLAMS"] = 0
        w["QJSTLSUS"] = int(wrf * 0.9)
        w["QJSTLOGW"] = log_ios
        w["QJSTCIWR"] = ci_written
        w["QJSTSERW"] = int(log_ios * rng.uniform(0.2, 0.35))
        w["QJSTTHRW"] = int(log_ios * 0.05)
        w["QJSTBPAG"] = 0
        copies = 2 if qm.dual_logging else 1
        single_share = rng.uniform(0.55, 0.7)
        for copy in range(2):
            count_single = int(log_ios * single_share) if copy < copies else 0
            count_multi = (log_ios - int(log_ios * single_share)) if copy < copies else 0
            slow = 1.0 if copy == 0 else rng.uniform(1.0, 1.1)
            for kind, count, ci, avg_us in (
                (0, count_single, count_single, 220 * slow),
                (1, count_multi, max(count_multi, ci_written - count_single), 780 * slow),
            ):
                p = f"QJSTIO_{copy}_{kind}_"
                tot = int(count * avg_us)
                w[p + "QJSTIOCOUNT"], w[p + "QJSTIOCI"] = count, ci if count else 0
                w[p + "QJSTIOTOTIO"], w[p + "QJSTIOTOTSUS"] = tot, int(tot * 1.15)
                w[p + "QJSTIOMAXIO"] = int(avg_us * rng.uniform(3, 8)) if count else 0
                w[p + "QJSTIOMAXIOT"] = int(start + rng.uniform(0, 1) * T * US) if count else 0
                w[p + "QJSTIOMAXIOL"] = f"CSQOAL{copy + 1}{k % 3 + 1}" if count else ""
                w[p + "QJSTIOMAXSUS"] = int(avg_us * rng.uniform(4, 10)) if count else 0
                w[p + "QJSTIOMAXSUST"] = int(start + rng.uniform(0, 1) * T * US) if count else 0
                w[p + "QJSTIOMAXSUSL"] = f"CSQOAL{copy + 1}{k % 3 + 1}" if count else ""
        w["QJSTSLPTU"] = int(T * US * rng.uniform(0.6, 0.9))
        w["QJSTIOSQU_0"] = int(w["QJSTIO_0_0_QJSTIOCOUNT"] * 220**2 + w["QJSTIO_0_1_QJSTIOCOUNT"] * 780**2)
        w["QJSTIOSQU_1"] = int(w["QJSTIO_1_0_QJSTIOCOUNT"] * 230**2 + w["QJSTIO_1_1_QJSTIOCOUNT"] * 800**2)
        w["QJSTCP1N"] = w["QJSTCP2N"] = st.new_logs
        w["QJSTHWC"] = w["QJSTHWE"] = 0
        w["QJSTENCR"] = 0
        for name, value in self.fx.log.get((k, qm.index), {}).items():
            w[name] = value
        return {key: np.array([v], dtype=object if isinstance(v, str) else np.int64) for key, v in w.items()}

    # ------------------------------------------------------------------------------------------
    # Page sets (QIS1): queue pages on each page set, pool writes and reads shared out
    # ------------------------------------------------------------------------------------------
    def _pagesets(self, k: int, qm: QueueManager, c: dict, pools: dict, log: dict, rng) -> dict:
        Q = qm.queues
        st = self.state[qm.index]
        n = len(qm.pagesets)
        ppm = Q.pages
        used = np.zeros(n, np.int64)
        persistent = np.zeros(n, np.int64)
        for i, ps in enumerate(qm.pagesets):
            on = Q.psid == ps
            pages = c["QQSTDPTH"][: len(Q)][on] * ppm[on]
            used[i] = int(pages.sum()) + (2_000 + 10 * len(Q) if ps == 0 else 200)
            pshare = Q.persistent_rate[on] / np.maximum(Q.persistent_rate[on] + Q.nonpersistent_rate[on], 1e-12)
            persistent[i] = int((pages * pshare).sum()) + (2_000 if ps == 0 else 200)
        for d in self.fx.dynamic.get((k, qm.index), []):
            used[list(qm.pagesets).index(d["psid"])] += int(d["depth"])
        written = np.zeros(n, np.int64)
        read = np.zeros(n, np.int64)
        for i, pool in enumerate(qm.pools):  # a pool's page I/O goes to its page sets by size
            sets = np.nonzero(qm.pageset_pool == pool)[0]
            share = used[sets] / max(1, used[sets].sum())
            w = np.floor(share * pools["written"][i]).astype(np.int64)
            w[0] += pools["written"][i] - w.sum()
            r = np.floor(share * pools["read"][i]).astype(np.int64)
            r[0] += pools["read"][i] - r.sum()
            written[sets] += w
            read[sets] += r
        ckpt = int(log["QJSTLLCP"][0])
        cols = {
            "QIS1PSNO": qm.pagesets.astype(np.int64),
            "QIS1BPNO": qm.pageset_pool.astype(np.int64),
            "QIS1TOPG": qm.pageset_pages.astype(np.int64),
            "QIS1UNPG": qm.pageset_pages - used,
            "QIS1PPG": persistent,
            "QIS1NPPG": used - persistent,
            "QIS1FULL": np.zeros(n, np.int64),
            "QIS1PCHI": used + rng.integers(0, 50, n),
            "QIS1DWPN": -(-written // 8),
            "QIS1DWPP": written,
            "QIS1DWPT": (-(-written // 8)) * 260,
            "QIS1IMWN": np.zeros(n, np.int64),
            "QIS1IMWP": np.zeros(n, np.int64),
            "QIS1IMWT": np.zeros(n, np.int64),
            "QIS1GETN": read,
            "QIS1GETP": read,
            "QIS1GETT": read * 230,
            "QIS1CKPP": np.where(ckpt > 0, np.minimum(written, 40 * ckpt), 0),
            "QIS1EXPN": st.expansions.astype(np.int64),
            "QIS1STRN": np.ones(n, np.int64),
            "QIS1EXPM": np.ones(n, np.int64),
            "QIS1STAT": np.zeros(n, np.int64),
            "QIS1EXPF": np.zeros(n, bool),
            "QIS1ENCF": (qm.pagesets % 2 == 1) & (qm.index % 2 == 0),
        }
        return cols

    # ------------------------------------------------------------------------------------------
    # Message, data, lock, storage, topic and Db2 managers
    # ------------------------------------------------------------------------------------------
    def _managers(self, k: int, qm: QueueManager, c: dict, pools: dict, rng) -> dict:
        T = self._T(k, qm)
        tot = {
            key: int(np.asarray(c[key]).sum())
            for key in (
                "QQSTPUTS",
                "QQSTPUT1",
                "QQSTGETS",
                "QQSTBRWS",
                "QQSTFLGT",
                "QQSTFLBR",
                "QQSTFLPT",
                "QQSTFLP1",
                "QQSTOPEN",
                "QQSTCLOS",
                "QQSTINQR",
                "QQSTSET",
                "QQSTPPT",
                "QQSTPP1",
                "QQSTNPPT",
                "QQSTNPP1",
                "QQSTPPB",
                "QQSTP1B",
                "QQSTNPPB",
                "QQSTNP1B",
            )
        }
        private = ~np.asarray(c["QQSTDISP"], dtype=bool)
        private_gets = int(np.asarray(c["QQSTGETS"])[private].sum())
        disk_gets = int(pools["read"].sum() // 1)
        other_opens = int(rng.integers(50, 400))
        one = lambda v: np.array([v], dtype=np.int64)  # noqa: E731 - single-instance columns
        qmst = {
            "QMSTOPEN": one(tot["QQSTOPEN"] + other_opens),
            "QMSTCLOS": one(tot["QQSTCLOS"] + other_opens),
            "QMSTGET": one(tot["QQSTGETS"] + tot["QQSTBRWS"] + tot["QQSTFLGT"] + tot["QQSTFLBR"]),
            "QMSTPUT": one(tot["QQSTPUTS"] + tot["QQSTFLPT"]),
            "QMSTPUT1": one(tot["QQSTPUT1"] + tot["QQSTFLP1"]),
            "QMSTINQ": one(tot["QQSTINQR"] + int(rng.integers(10, 100))),
            "QMSTINQL": one(int(rng.integers(0, 50))),
            "QMSTSET": one(tot["QQSTSET"]),
            "QMSTENDW": one(int(rng.integers(0, 30))),
            "QMSTCALH": one(int(rng.integers(0, 60))),
            "QMSTSUB": one(int(rng.integers(0, 20))),
            "QMSTSUBR": one(0),
            "QMSTCB": one(int(rng.integers(0, 10))),
            "QMSTCTL": one(int(rng.integers(0, 10))),
            "QMSTSTUS": one(int(rng.integers(0, 5))),
            "QMSTPUBS": one(int(rng.integers(0, 200))),
            "QMSTSPP": one(tot["QQSTPPT"] + tot["QQSTPP1"]),
            "QMSTSNP": one(tot["QQSTNPPT"] + tot["QQSTNPP1"]),
            "QMSTPBP": one(tot["QQSTPPB"] + tot["QQSTP1B"]),
            "QMSTNBP": one(tot["QQSTNPPB"] + tot["QQSTNP1B"]),
        }
        puts = tot["QQSTPUTS"] + tot["QQSTPUT1"]
        gets = tot["QQSTGETS"]
        qist = {
            "QISTMGET": one(gets),
            "QISTMPUT": one(puts),
            "QISTMBLR": one(tot["QQSTBRWS"] // 10),
            "QISTDCRE": one(len(self.fx.dynamic.get((k, qm.index), []))),
            "QISTDPUT": one(int(rng.integers(0, 20))),
            "QISTDDEL": one(len(self.fx.dynamic.get((k, qm.index), []))),
            "QISTDGET": one(tot["QQSTOPEN"] + other_opens),
            "QISTDLOC": one(tot["QQSTOPEN"] + other_opens),
            "QISTMCNT": one(tot["QQSTINQR"]),
            "QISTALST": one(0),
            "QISTLOMM": one(tot["QQSTBRWS"] // 20),
            "QISTDLMM": one(tot["QQSTBRWS"] // 20),
            "QISTENUM": one(int(rng.integers(0, 10))),
            "QISTRAIO": one(0),
            "QISTRABP": one(0),
            "QISTGETD": one(disk_gets),
            "QISTGETB": one(max(0, private_gets - disk_gets)),
        }
        locks = 2 * (puts + gets) + tot["QQSTOPEN"]
        qlst = {"QLSTGETL": one(locks), "QLSTHLDL": one(locks // 1000), "QLSTRELL": one(locks)}
        calls = puts + gets + tot["QQSTOPEN"] + tot["QQSTCLOS"]
        qsst = {
            "QSSTGPLF": one(calls * 3),
            "QSSTFPLF": one(calls * 3),
            "QSSTFREF": one(calls // 50),
            "QSSTEXPF": one(int(rng.integers(0, 3))),
            "QSSTCONF": one(0),
            "QSSTGPLV": one(calls),
            "QSSTFPLV": one(calls),
            "QSSTFREV": one(calls // 80),
            "QSSTEXPV": one(int(rng.integers(0, 2))),
            "QSSTCONV": one(0),
            "QSSTGETM": one(int(rng.integers(100, 2000))),
            "QSSTFREM": one(int(rng.integers(100, 2000))),
            "QSSTRCNZ": one(0),
            "QSSTCONT": one(0),
            "QSSTCRIT": one(0),
            "QSSTABND": one(0),
        }
        pubs = int(qmst["QMSTPUBS"][0])
        qtst = {
            "QTSTSTOT": one(int(qmst["QMSTSUB"][0])),
            "QTSTSDUR": one(int(qmst["QMSTSUB"][0]) // 2),
            "QTSTSHIG_0": one(40),
            "QTSTSHIG_1": one(12),
            "QTSTSHIG_2": one(3),
            "QTSTSLOW_0": one(35),
            "QTSTSLOW_1": one(12),
            "QTSTSLOW_2": one(3),
            "QTSTSEXP": one(0),
            "QTSTTMSG": one(pubs * 2),
            "QTSTSPHW": one(4),
            "QTSTPTOT_0": one(pubs),
            "QTSTPTOT_1": one(0),
            "QTSTPTOT_2": one(0),
            "QTSTPHIG": one(6),
            "QTSTPLOW": one(0),
            "QTSTPNOS": one(pubs // 20),
            "QTSTETHW": one(int(rng.integers(200, 900))),
            "QTSTETTO": one(pubs * 150),
        }
        reads = int(T * rng.uniform(0.02, 0.1))
        q5st = {
            "NUMTASK": one(8),
            "ACTTASK": one(8),
            "CONNCNT": one(0),
            "DISCCNT": one(0),
            "DHIGMAX": one(2),
            "ABNDCNT": one(0),
            "REQUCNT": one(0),
            "DEADCNT": one(0),
            "DELECNT": one(0),
            "LISTCNT": one(reads // 4),
            "READCNT": one(reads),
            "UPDTCNT": one(int(rng.integers(0, 10))),
            "WRITCNT": one(0),
            "SCSSEL": one(int(rng.integers(10, 100))),
            "SCSINS": one(0),
            "SCSUPD": one(int(rng.integers(0, 40))),
            "SCSDEL": one(0),
            "SSKSEL": one(0),
            "SSKINS": one(0),
            "SSKDEL": one(0),
            "SCSBFTS": one(0),
            "SCSMAXR": one(0),
            "READTCUW": one(reads * 310),
            "READTMXW": one(2_400),
            "READSCUW": one(reads * 260),
            "READSMXW": one(2_000),
            "LISTTCUW": one((reads // 4) * 400),
            "LISTTMXW": one(3_000),
            "LISTSCUW": one((reads // 4) * 330),
            "LISTSMXW": one(2_500),
        }
        return {"QMST": qmst, "QIST": qist, "QLST": qlst, "QSST": qsst, "QTST": qtst, "Q5ST": q5st}

    # ------------------------------------------------------------------------------------------
    # Coupling facility (QEST per structure) and shared message data sets (QESD)
    # ------------------------------------------------------------------------------------------
    def _cf(self, k: int, qm: QueueManager, c: dict, rng) -> dict:
        Q = qm.queues
        nq = len(Q)
        shared = Q.is_shared
        structs = self.topo.structures
        n = len(structs)
        ops = np.zeros(n, np.int64)
        multi = np.zeros(n, np.int64)
        entries = np.zeros(n, np.int64)
        elements = np.zeros(n, np.int64)
        for s in range(n):
            on = shared & (Q.structure == s)
            ops[s] = int((c["QQSTPUTS"][:nq][on] + c["QQSTPUT1"][:nq][on] + c["QQSTGETS"][:nq][on]).sum())
            ops[s] += int((c["QQSTOPEN"][:nq][on] + c["QQSTCLOS"][:nq][on]).sum()) * 2
            multi[s] = int((c["QQSTGETS"][:nq][on] * 0.3 + c["QQSTBRWS"][:nq][on]).sum())
            depth = c["QQSTDPHI"][:nq][on]
            entries[s] = int(depth.sum())
            elements[s] = int((depth * elements_per_message(Q.size_mean[on])).sum())
        admin = [i for i, s in enumerate(structs) if s[0] == "CSQ_ADMIN"]
        persistent_shared = int((c["QQSTPPT"][:nq][shared] + c["QQSTPP1"][:nq][shared]).sum())
        for s in admin:
            ops[s] = persistent_shared // 2 + 300 * len(self.topo.qmgrs)
            multi[s] = 40
            entries[s] = 150 + 60 * len(self.topo.qmgrs)
        csec = ops + 200
        cmec = multi + 20
        se_us = rng.uniform(5.0, 9.0, n)
        me_us = rng.uniform(18.0, 35.0, n)
        mnus = entries + 100
        ratio = np.clip(np.where(entries > 0, elements / np.maximum(entries, 1), 6.0), 5.0, 8.0)
        cols = {
            "QESTSTR": np.array([s[0] for s in structs], dtype=object),
            "QESTSTRN": np.arange(1, n + 1, dtype=np.int64),
            "QESTCSEC": csec,
            "QESTCMEC": cmec,
            "QESTSSTC": np.round(csec * se_us).astype(np.int64),
            "QESTMSTC": np.round(cmec * me_us).astype(np.int64),
            "QESTRSEC": np.round(csec * 0.001).astype(np.int64),
            "QESTRMEC": np.round(cmec * 0.002).astype(np.int64),
            "QESTSFUL": np.zeros(n, np.int64),
            "QESTMNUS": mnus,
            "QESTMLUS": np.round(mnus * ratio).astype(np.int64),
        }
        for s in range(n):
            share = self.fx.redrive.get((k, qm.index, s))
            if share is not None:  # varying message sizes: gets re-driven with a bigger buffer
                cols["QESTCSEC"][s] = max(int(cols["QESTCSEC"][s]), 2000)
                cols["QESTRSEC"][s] = int(np.ceil(share * cols["QESTCSEC"][s]))
                cols["QESTRMEC"][s] = int(np.ceil(share * cols["QESTCMEC"][s]))
                cols["QESTSSTC"][s] = int(cols["QESTCSEC"][s] * 11)
            for name, value in self.fx.cf.get((k, qm.index, s), {}).items():
                cols[name][s] = value
        smds = [i for i, s in enumerate(structs) if s[3]]
        ns = len(smds)
        total_blocks = np.full(ns, 200_000, np.int64)
        used = rng.integers(10, 200, ns)
        qesd = {
            "QESDSTR": np.array([structs[i][0] for i in smds], dtype=object),
            "QESDSTRN": np.array([i + 1 for i in smds], dtype=np.int64),
            "QESDSMBT": total_blocks,
            "QESDSMBS": np.full(ns, 100, np.int64),
            "QESDSMBD": total_blocks - 100,
            "QESDSMBU": used,
            "QESDSMBF": total_blocks - 100 - used,
            "QESDSMMC": used // 2,
            "QESDSMAR": rng.integers(0, 50, ns),
            "QESDSMFR": rng.integers(0, 50, ns),
            "QESDSMRR": np.zeros(ns, np.int64),
            "QESDSMCR": np.zeros(ns, np.int64),
            "QESDSMAP": used * 4,
            "QESDSMFP": used * 4,
            "QESDSMRP": np.zeros(ns, np.int64),
            "QESDSMCP": np.zeros(ns, np.int64),
            "QESDSMFL": np.zeros(ns, np.int64),
            "QESDSMMM": used,
            "QESDSMMU": used + 5,
            "QESDSMMF": total_blocks - 100 - used - 5,
            "QESDBFSZ": np.full(ns, 262_144, np.int64),
            "QESDBFTO": np.full(ns, 100, np.int64),
            "QESDBFUS": rng.integers(0, 5, ns),
            "QESDBFUP": rng.integers(0, 5, ns),
            "QESDBFFS": rng.integers(10, 40, ns),
            "QESDBFFE": rng.integers(40, 80, ns),
            "QESDBFPW": np.zeros(ns, np.int64),
            "QESDBFBW": np.zeros(ns, np.int64),
            "QESDBFGB": used * 3,
            "QESDBFGV": used,
            "QESDBFGM": used,
            "QESDBFGF": used,
            "QESDBFGL": np.zeros(ns, np.int64),
            "QESDBFGN": np.zeros(ns, np.int64),
            "QESDBFRR": used,
            "QESDBFRS": used // 2,
            "QESDBFRP": np.zeros(ns, np.int64),
            "QESDBFWR": used,
            "QESDBFFB": used // 2,
            "QESDBFDB": np.zeros(ns, np.int64),
            "QESDBFWP": np.zeros(ns, np.int64),
            "QESDBFWB": np.zeros(ns, np.int64),
            "QESDBFPT": np.zeros(ns, np.int64),
            "QESDBFBT": np.zeros(ns, np.int64),
            "QESDBFMU": np.full(ns, 20, np.int64),
            "QESDBFMF": np.full(ns, 60, np.int64),
            "QESDBFMP": np.zeros(ns, np.int64),
            "QESDBFMB": np.zeros(ns, np.int64),
            "QESDIOHA": np.full(ns, 180_000, np.int64),
            "QESDIOHU": used + 1_000,
            "QESDIOCI": np.full(ns, 4096, np.int64),
            "QESDIOCA": np.full(ns, 737_280, np.int64),
            "QESDIOFR": np.zeros(ns, np.int64),
            "QESDIOFP": np.zeros(ns, np.int64),
            "QESDIOFT": np.zeros(ns, np.int64),
            "QESDIOFW": np.zeros(ns, np.int64),
            "QESDIOWR": used,
            "QESDIOWP": used * 4,
            "QESDIOWT": used * 310,
            "QESDIOWW": used * 40,
            "QESDIORR": used // 2,
            "QESDIORP": used * 2,
            "QESDIORT": used * 140,
            "QESDIORW": used * 20,
            "QESDIOOR": np.zeros(ns, np.int64),
            "QESDIOOP": np.zeros(ns, np.int64),
            "QESDIOOT": np.zeros(ns, np.int64),
            "QESDIOOW": np.zeros(ns, np.int64),
            "QESDENCF": np.array([structs[i][0].endswith("2") for i in smds]),
        }
        return {"QEST": cols, "QESD": qesd}

    # ------------------------------------------------------------------------------------------
    # Channel initiator (115/231)
    # ------------------------------------------------------------------------------------------
    def _chin(self, k: int, qm: QueueManager, c: dict, rng, start: int, end: int) -> dict:
        T_us = self._T(k, qm) * US
        one = lambda v: np.array([v], dtype=np.int64)  # noqa: E731 - single-instance columns
        qcct = {
            "QCCTJOBN": np.array([f"{qm.name}CHIN"], dtype=object),
            "QCCTQSGN": np.array([qm.qsg or ""], dtype=object),
            "QCCTNOCC": one(qm.channels),
            "QCCTMXCC": one(2000),
            "QCCTNOAC": one(int(qm.channels * 0.8)),
            "QCCTMXAC": one(1000),
            "QCCTMXTP": one(2000),
            "QCCTMXLU": one(200),
            "QCCTSTUS": one(int(rng.integers(150_000, 350_000))),
            "QCCTSTAB": one(int(rng.integers(50, 400)) << 20),
            "QCCTSLIM": one(2 << 30),
        }
        msgs = int(np.asarray(c["QQSTPUTS"]).sum() // 10)

        def tasks(n: int, busy: np.ndarray, per_req_us: float, base: int) -> dict:
            req = np.maximum(0, np.round(busy * T_us / per_req_us)).astype(np.int64)
            elapsed = np.round(busy * T_us).astype(np.int64)
            return {
                "QCTTSKN": base + 0x1000 * np.arange(n, dtype=np.int64),
                "QCTREQN": req,
                "QCTCPTM": np.round(elapsed * 0.6).astype(np.int64),
                "QCTELTM": elapsed,
                "QCTWTTM": T_us - elapsed,
            }

        busy_dsp = np.full(qm.dispatchers, min(0.3, 0.02 + msgs * 60 / T_us)) * rng.uniform(0.8, 1.2, qm.dispatchers)
        dsp = tasks(qm.dispatchers, busy_dsp, 60.0, 0x008C5000)
        dsp["QCTCHLN"] = np.full(qm.dispatchers, qm.channels // qm.dispatchers) + (
            np.arange(qm.dispatchers) < qm.channels % qm.dispatchers
        )
        busy_adp = 0.12 * (0.7 ** np.arange(qm.adapters)) * rng.uniform(0.8, 1.2, qm.adapters)  # lowest first
        adp = tasks(qm.adapters, busy_adp, 120.0, 0x008D1000)
        ssl = tasks(qm.ssl_tasks, rng.uniform(0.01, 0.05, qm.ssl_tasks), 200.0, 0x008E2000)
        ssl["QCTLSTM"] = start + np.floor(rng.uniform(0, 1, qm.ssl_tasks) * T_us).astype(np.int64)
        ssl["QCTLSDU"] = rng.integers(2_000, 40_000, qm.ssl_tasks)
        dns = tasks(1, np.array([0.0005]), 800.0, 0x008F3000)
        dns["QCTLGTM"] = one(start + int(rng.uniform(0, 1) * T_us))
        dns["QCTLGDU"] = one(int(rng.integers(1_000, 90_000)))
        return {"QCCT": qcct, "QCTDSP": dsp, "QCTADP": adp, "QCTSSL": ssl, "QCTDNS": dns}
