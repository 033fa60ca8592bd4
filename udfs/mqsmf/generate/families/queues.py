"""Queue statistics (QQST): puts per queue, private queues' gets and depth, shared queues' group
depth and gets shared out over the queue managers, then every other queue field.

The traffic of one queue manager and interval is a dict: the put counts by class under their
QQST names (``PPT``, ``PP1``, ``NPPT``, ``NPP1``, ``EXPR``, ``RBPT``, ``FPTC``), ``total_puts``,
the burst (``burst``, ``burst_size``), ``depth_start``/``depth_end``, the peak depth of a pool
fill (``peak``), ``gets_net`` (gets that stay got) and the interval's random generator ``rng``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..config import US_PER_S
from ..topology import QueueManager

if TYPE_CHECKING:
    from ..state import Effects, QueueState

MAX_CLEAN_AGE_S = 30  # clean queues are drained: the oldest message is at most this old
ROLLBACK_SHARE = 0.0005


# Puts in an interval from which a member's view of a shared queue's depth is a busy one (CF13).
BUSY_SHARED_PUTS = 100


def poisson(rng: np.random.Generator, lam) -> np.ndarray:
    return rng.poisson(np.maximum(np.asarray(lam, dtype=np.float64), 0.0)).astype(np.int64)


def binomial(rng: np.random.Generator, n, p) -> np.ndarray:
    n = np.asarray(n, dtype=np.int64)
    return rng.binomial(np.maximum(n, 0), np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)).astype(np.int64)


def diurnal(local_hour: float) -> float:
    """Non-persistent traffic follows the local working day (0.6 at night, 1.3 at midday)."""
    return 0.95 + 0.35 * float(np.sin((local_hour - 7.0) / 24.0 * 2 * np.pi))


# ----------------------------------------------------------------------------------------------
# Step 1: puts per queue (every queue manager), private queues' gets and depth
# ----------------------------------------------------------------------------------------------
def queue_traffic(
    k: int, qm: QueueManager, seed: int, start: int, seconds: int, state: QueueState, effects: Effects
) -> dict:
    """Puts per queue of a queue manager's k-th interval; gets and end depth of its private
    queues (a shared queue's gets are shared out by ``shared_queue_traffic``)."""
    rng = np.random.default_rng([seed, k, qm.index])
    queues = qm.queues
    count = len(queues)
    local_hour = ((start + seconds * US_PER_S / 2) / US_PER_S / 3600 + qm.utc_offset_min / 60) % 24
    expected_persistent = queues.persistent_rate * seconds * rng.lognormal(0, 0.03, count)
    expected_nonpersistent = queues.nonpersistent_rate * seconds * diurnal(local_hour) * rng.lognormal(0, 0.1, count)
    persistent_puts, nonpersistent_puts = poisson(rng, expected_persistent), poisson(rng, expected_nonpersistent)
    expired = np.zeros(count, np.int64)
    burst = np.zeros(count, np.int64)
    burst_size = np.zeros(count, np.float64)
    queue_effects = effects.at(k, qm.index)
    for q, messages in queue_effects.get("expire", {}).items():  # short-expiry messages put and expired
        expired[q] = messages
        nonpersistent_puts[q] += messages
    for q, (messages, size) in queue_effects.get("burst", {}).items():
        burst[q], burst_size[q] = messages, size
        persistent_puts[q] += messages
    for q, depth in queue_effects.get("backlog", {}).items():  # the backlog's messages are put on top
        extra = max(0, depth - int(state.depth[q]))
        if queues.persistent_rate[q] > 0:
            persistent_puts[q] += extra
        else:
            nonpersistent_puts[q] += extra
    persistent_put1 = binomial(rng, persistent_puts, queues.put1_share)
    nonpersistent_put1 = binomial(rng, nonpersistent_puts, queues.put1_share)
    traffic = dict(
        rng=rng,
        PPT=persistent_puts - persistent_put1,
        PP1=persistent_put1,
        NPPT=nonpersistent_puts - nonpersistent_put1,
        NPP1=nonpersistent_put1,
        EXPR=expired,
        burst=burst,
        burst_size=burst_size,
    )
    total = persistent_puts + nonpersistent_puts
    traffic["total_puts"] = total
    traffic["RBPT"] = binomial(rng, persistent_puts - burst, ROLLBACK_SHARE)
    traffic["FPTC"] = binomial(rng, nonpersistent_puts - expired, queues.fast_put_share)
    # Private queues: drain what was there, keep a small residue (never three rises in a row).
    depth_start = state.depth.copy()
    available = depth_start + total - traffic["RBPT"] - expired
    residue = np.where(rng.random(count) < 0.5, 0, np.floor(total * rng.uniform(0, 0.01, count))).astype(np.int64)
    depth_end = np.minimum(np.minimum(residue, queues.depth_cap), np.maximum(available, 0))
    depth_end = np.where(state.rise_streak >= 2, np.minimum(depth_end, depth_start), depth_end)
    for q in queue_effects.get("no_rise", {}):
        depth_end[q] = min(depth_end[q], depth_start[q])
    for q in queue_effects.get("rise", {}):
        rise = max(3, min(int(0.02 * total[q]), int(queues.depth_cap[q]) // 8))
        depth_end[q] = min(int(available[q]), int(depth_start[q]) + rise)
    for q, depth in queue_effects.get("backlog", {}).items():
        depth_end[q] = min(int(available[q]), depth)
    for q in queue_effects.get("hold", {}):
        depth_end[q] = max(int(depth_end[q]), 1)
    peak = np.zeros(count, np.int64)
    for q, (share, with_objects) in queue_effects.get("fill", {}).items():
        # The burst's peak depth brings the pool's peak use to `share` of its buffers: the other
        # queues' peaks are bounded here (their excursion above max(start, end) is at most
        # 0.2 % of their traffic), so the share is met within a fraction of a percent.
        pool = int(queues.bpid[q])
        i = qm.pool_index(pool)
        others = (queues.bpid == pool) & (np.arange(count) != q) & ~queues.is_shared
        pages_per_message = queues.pages
        other_pages = int(
            (np.maximum(depth_start, depth_end)[others] * pages_per_message[others]).sum()
            + (0.001 * total[others] * pages_per_message[others]).sum()
        )
        baseline = int(qm.pool_baseline[i]) if with_objects else 0
        need = share * qm.pool_buffers[i] - baseline - other_pages
        peak[q] = max(int(depth_start[q]), int(np.ceil(need / pages_per_message[q])))
        if queues.persistent_rate[q] > 0:  # the burst's messages are put, and got before the collection
            traffic["PPT"][q] += peak[q]
        else:
            traffic["NPPT"][q] += peak[q]
        total[q] += peak[q]
        available[q] += peak[q]
    traffic["depth_start"], traffic["depth_end"], traffic["peak"] = depth_start, depth_end, peak
    traffic["gets_net"] = np.maximum(available - depth_end, 0)
    return traffic


# ----------------------------------------------------------------------------------------------
# Step 2: shared queues - group-wide depth, gets shared out over the queue managers
# ----------------------------------------------------------------------------------------------
def shared_queue_traffic(
    k: int,
    active: list[QueueManager],
    traffic: list[dict],
    seed: int,
    depth: np.ndarray,
    rise_streak: np.ndarray,
    backlog: dict[tuple[int, int], int],
    longest_seconds: int,
) -> dict:
    """The group-wide depth of every shared queue at the end of step k, from every active queue
    manager's puts; each manager's ``gets_net`` of its shared queues is set to its share of the
    group's gets. ``depth`` and ``rise_streak``: the shared queues' state after step k - 1;
    returns the new ones (``depth_end``, ``rise_streak``) with the watermarks and age."""
    shared_count = len(depth)
    rng = np.random.default_rng([seed, k, 104729])
    rows = [np.nonzero(qm.queues.is_shared)[0] for qm in active]
    puts = np.zeros(shared_count, np.int64)
    removed = np.zeros(shared_count, np.int64)
    weight = np.zeros((len(active), shared_count))
    for m, (qm, qm_traffic) in enumerate(zip(active, traffic, strict=True)):
        j = qm.queues.shared_index[rows[m]]
        puts[j] += qm_traffic["total_puts"][rows[m]]
        removed[j] += qm_traffic["RBPT"][rows[m]] + qm_traffic["EXPR"][rows[m]]
        weight[m, j] = qm.queues.consumers[rows[m]] * rng.uniform(0.5, 1.5, len(j))
    depth_start = depth.copy()
    available = depth_start + puts - removed
    cap = np.zeros(shared_count, np.int64)
    for qm, qm_rows in zip(active, rows, strict=True):
        cap[qm.queues.shared_index[qm_rows]] = qm.queues.depth_cap[qm_rows]
    residue = np.where(rng.random(shared_count) < 0.5, 0, np.floor(puts * rng.uniform(0, 0.01, shared_count))).astype(
        np.int64
    )
    depth_end = np.minimum(np.minimum(residue, cap), np.maximum(available, 0))
    depth_end = np.where(rise_streak >= 2, np.minimum(depth_end, depth_start), depth_end)
    for (kk, j), backlog_depth in backlog.items():
        if kk == k:
            depth_end[j] = min(int(available[j]), backlog_depth)
    gets_net = np.maximum(available - depth_end, 0)
    # Share the group's gets out by consumer weight (largest-remainder rounding).
    share = weight / np.maximum(weight.sum(axis=0), 1e-12)
    allocated = np.floor(share * gets_net).astype(np.int64)
    short = gets_net - allocated.sum(axis=0)
    order = np.argsort(-(share * gets_net - allocated), axis=0, kind="stable")
    for j in np.nonzero(short > 0)[0]:
        allocated[order[: short[j], j], j] += 1
    for m, (qm, qm_traffic) in enumerate(zip(active, traffic, strict=True)):
        qm_rows = rows[m]
        qm_traffic["gets_net"][qm_rows] = allocated[m, qm.queues.shared_index[qm_rows]]
    peak_extra = np.floor(np.minimum(puts, gets_net) * rng.uniform(0, 0.005, shared_count)).astype(np.int64)
    # A busy shared queue holds a few messages at its peak: one that never passes two while it keeps
    # going empty is MP16's CURDEPTH 0 to 1 pathology (CF13), which only --inject plants.
    peak_extra = np.maximum(peak_extra, np.where(np.minimum(puts, gets_net) >= BUSY_SHARED_PUTS, 6, 0))
    return dict(
        depth_start=depth_start,
        depth_end=depth_end,
        rise_streak=np.where(depth_end > depth_start, rise_streak + 1, 0),
        puts=puts,
        gets=gets_net,
        peak=np.minimum(
            np.maximum(depth_start, depth_end) + peak_extra,
            np.maximum(depth_start + puts, np.maximum(depth_start, depth_end)),
        ),
        low=np.maximum(
            0,
            np.minimum(depth_start, depth_end)
            - np.floor(np.minimum(puts, gets_net) * rng.uniform(0, 0.005, shared_count)),
        ).astype(np.int64),
        age=np.where(
            depth_end > 0,
            np.minimum(
                MAX_CLEAN_AGE_S,
                np.ceil(depth_end / np.maximum(puts, 1) * longest_seconds * rng.uniform(0.2, 1.0, shared_count)),
            ),
            0,
        ).astype(np.int64),
    )


# ----------------------------------------------------------------------------------------------
# Step 3: all remaining queue fields
# ----------------------------------------------------------------------------------------------
def queue_statistics(
    k: int,
    qm: QueueManager,
    traffic: dict,
    shared_now: dict | None,
    start: int,
    end: int,
    seconds: int,
    state: QueueState,
    effects: Effects,
    structure_names: list[str],
) -> tuple[dict, np.ndarray, np.ndarray]:
    """QQST columns of the queue manager's defined queues, and its gets and browses per queue
    (for the buffer pools). Carries the queues' state to the next interval. The helpers draw
    from the interval's generator in turn: their order is the file's."""
    m = qm.index
    rng = traffic["rng"]
    queues = qm.queues
    count = len(queues)
    shared = queues.is_shared
    depth_start, depth_end = traffic["depth_start"].copy(), traffic["depth_end"].copy()
    if shared.any():
        j = queues.shared_index[shared]
        depth_start[shared], depth_end[shared] = shared_now["depth_start"][j], shared_now["depth_end"][j]
    total = traffic["total_puts"]
    persistent_share = np.where(
        total > 0,
        (traffic["PPT"] + traffic["PP1"]) / np.maximum(total, 1),
        np.where(queues.persistent_rate > 0, 1.0, 0.0),
    )
    queue_effects = effects.at(k, m)
    rolled_back_gets = binomial(rng, traffic["gets_net"], persistent_share * ROLLBACK_SHARE)
    for q in queue_effects.get("rise", {}):
        rolled_back_gets[q] = 0  # the backlog's intervals: every get stays got
    gets = traffic["gets_net"] + rolled_back_gets
    # Depth identity; for shared queues the group's.
    columns = {}
    columns["QQSTQNAM"] = queues.name
    columns["QQSTDISP"] = shared
    columns["QQSTPSID"] = queues.psid
    columns["QQSTBPID"] = queues.bpid
    columns["QQSTQSGN"] = np.where(shared, qm.qsg or "", "")
    columns["QQSTCFST"] = np.where(shared, np.array(structure_names + [""], dtype=object)[queues.structure], "")
    columns["QQSTPPT"], columns["QQSTPP1"] = traffic["PPT"], traffic["PP1"]
    columns["QQSTNPPT"], columns["QQSTNPP1"] = traffic["NPPT"], traffic["NPP1"]
    columns["QQSTPUTS"] = traffic["PPT"] + traffic["NPPT"]
    columns["QQSTPUT1"] = traffic["PP1"] + traffic["NPP1"]
    sizes = _message_sizes(columns, queues, traffic, _on_structures(queues, effects.size_spread, k, m), rng)
    failed_puts = np.zeros(count, np.int64)
    for (kk, mm, s), per_queue in effects.failed_puts.items():
        if kk == k and mm == m:
            failed_puts[shared & (queues.structure == s)] = per_queue
    browses = _gets_browses_and_failures(columns, queues, gets, total, persistent_share, sizes, failed_puts, rng)
    input_handles, output_handles = _handles(columns, queues, total, state, rng)
    columns["QQSTEXPR"], columns["QQSTRBPT"], columns["QQSTRBGT"] = traffic["EXPR"], traffic["RBPT"], rolled_back_gets
    _depth_and_age(
        columns,
        queues,
        depth_start,
        depth_end,
        traffic["peak"],
        shared_now,
        total,
        gets,
        queue_effects.get("hold", {}),
        start,
        end,
        seconds,
        rng,
    )
    queue_time_long, last_put, last_get = _queue_times(
        columns, depth_start, depth_end, total, gets, end, seconds, state, rng
    )
    partial = np.zeros(count, bool)
    for q in queue_effects.get("partial_private", {}):
        partial[q] = True
    partial |= _on_structures(queues, effects.partial_shared, k, m)
    uncommitted = _flags(columns, qm, traffic, queue_effects, partial, state, rng)
    # Carry state.
    state.depth = np.where(shared, 0, depth_end)
    state.rise_streak = np.where(depth_end > depth_start, state.rise_streak + 1, 0)
    state.last_put, state.last_get = last_put, last_get
    state.qtime_long = queue_time_long
    state.inputs, state.outputs = input_handles, output_handles
    state.uncommitted = uncommitted
    return columns, gets, browses


def _on_structures(queues, keys: set[tuple[int, int, int]], k: int, m: int) -> np.ndarray:
    """Shared queues on the CF structures that ``keys`` ((interval, queue manager, structure))
    name for interval k of queue manager m."""
    on = np.zeros(len(queues), bool)
    for kk, mm, s in keys:
        if kk == k and mm == m:
            on |= queues.is_shared & (queues.structure == s)
    return on


def _message_sizes(
    columns: dict, queues, traffic: dict, spread: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Put bytes by class and the message size range: each class's average lies within
    [MSMI, MSMA] (``spread``: sizes straddle the CF buffer boundaries). Returns the persistent
    and non-persistent message sizes."""
    count = len(queues)
    total = traffic["total_puts"]
    mean = queues.size_mean * rng.lognormal(0, 0.03, count)
    size_lo, size_hi = queues.size_lo.copy(), queues.size_hi.copy()
    size_lo[spread], size_hi[spread] = 0.15, 3.5
    size_min = np.maximum(1, np.floor(mean * size_lo)).astype(np.int64)
    size_max = np.maximum(size_min, np.ceil(mean * size_hi)).astype(np.int64)
    persistent_size = np.clip(mean * rng.uniform(0.95, 1.05, count), size_min, size_max)
    nonpersistent_size = np.clip(mean * rng.uniform(0.95, 1.05, count), size_min, size_max)
    burst = traffic["burst"]
    burst_size = traffic["burst_size"]
    persistent_put_bytes = np.round((traffic["PPT"] - burst) * persistent_size).astype(np.int64) + np.round(
        burst * burst_size
    ).astype(np.int64)
    size_min = np.where(burst > 0, np.minimum(size_min, burst_size.astype(np.int64)), size_min)
    size_max = np.where(burst > 0, np.maximum(size_max, burst_size.astype(np.int64)), size_max)
    persistent_put1_bytes = np.round(traffic["PP1"] * persistent_size).astype(np.int64)
    nonpersistent_put_bytes = np.round(traffic["NPPT"] * nonpersistent_size).astype(np.int64)
    nonpersistent_put1_bytes = np.round(traffic["NPP1"] * nonpersistent_size).astype(np.int64)
    columns["QQSTPPB"], columns["QQSTP1B"] = persistent_put_bytes, persistent_put1_bytes
    columns["QQSTNPPB"], columns["QQSTNP1B"] = nonpersistent_put_bytes, nonpersistent_put1_bytes
    columns["QQSTPUTB"] = persistent_put_bytes + nonpersistent_put_bytes
    columns["QQSTPT1B"] = persistent_put1_bytes + nonpersistent_put1_bytes
    put_bytes = persistent_put_bytes + nonpersistent_put_bytes + persistent_put1_bytes + nonpersistent_put1_bytes
    single = total == 1
    size_min = np.where(total == 0, 0, np.where(single, put_bytes, size_min))
    size_max = np.where(total == 0, 0, np.where(single, put_bytes, size_max))
    columns["QQSTMSMI"], columns["QQSTMSMA"] = size_min, size_max
    columns["QQSTMSAV"] = np.where(total > 0, put_bytes // np.maximum(total, 1), 0)
    columns["QQSTFPTC"] = traffic["FPTC"]
    columns["QQSTFPTB"] = np.round(traffic["FPTC"] * nonpersistent_size).astype(np.int64)
    return persistent_size, nonpersistent_size


def _gets_browses_and_failures(
    columns: dict,
    queues,
    gets: np.ndarray,
    total: np.ndarray,
    persistent_share: np.ndarray,
    sizes: tuple[np.ndarray, np.ndarray],
    failed_puts: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Gets and browses (persistent share follows what was put; bytes from the class sizes), then
    the failed calls and read-ahead waits. Returns the browses."""
    count = len(queues)
    persistent_size, nonpersistent_size = sizes
    persistent_gets = binomial(rng, gets, persistent_share)
    columns["QQSTGETS"], columns["QQSTPDG"], columns["QQSTNPDG"] = gets, persistent_gets, gets - persistent_gets
    persistent_get_bytes = np.round(persistent_gets * persistent_size).astype(np.int64)
    nonpersistent_get_bytes = np.round((gets - persistent_gets) * nonpersistent_size).astype(np.int64)
    columns["QQSTPDB"], columns["QQSTNPDB"] = persistent_get_bytes, nonpersistent_get_bytes
    columns["QQSTGETB"] = persistent_get_bytes + nonpersistent_get_bytes
    browses = poisson(rng, queues.browse_share * total)
    persistent_browses = binomial(rng, browses, persistent_share)
    columns["QQSTBRWS"], columns["QQSTPBR"] = browses, persistent_browses
    columns["QQSTNPBR"] = browses - persistent_browses
    persistent_browse_bytes = np.round(persistent_browses * persistent_size).astype(np.int64)
    nonpersistent_browse_bytes = np.round((browses - persistent_browses) * nonpersistent_size).astype(np.int64)
    columns["QQSTPBB"], columns["QQSTNPBB"] = persistent_browse_bytes, nonpersistent_browse_bytes
    columns["QQSTBRWB"] = persistent_browse_bytes + nonpersistent_browse_bytes
    no_message_available = poisson(rng, 0.002 * gets + 0.5)
    truncated_failed = poisson(rng, 0.0002 * gets)
    columns["QQSTNMAG"], columns["QQSTTMFG"] = no_message_available, truncated_failed
    columns["QQSTFLGT"] = no_message_available + truncated_failed + poisson(rng, 0.0001 * gets)
    no_message_browsed = poisson(rng, 0.01 * browses)
    columns["QQSTNMAB"], columns["QQSTTMFB"] = no_message_browsed, np.zeros(count, np.int64)
    columns["QQSTFLBR"] = no_message_browsed
    columns["QQSTFLPT"], columns["QQSTFLP1"] = failed_puts, np.zeros(count, np.int64)
    read_ahead_get_waits = poisson(rng, np.where(queues.consumers > 1, 0.2, 0.05) * gets)
    columns["QQSTRDGW"], columns["QQSTFLGW"] = read_ahead_get_waits, binomial(rng, read_ahead_get_waits, 0.3)
    columns["QQSTRDBW"] = columns["QQSTFLBW"] = np.zeros(count, np.int64)
    columns["QQSTSTRM"] = columns["QQSTSAGT"] = columns["QQSTSABR"] = np.zeros(count, np.int64)
    return browses


def _handles(
    columns: dict, queues, total: np.ndarray, state: QueueState, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Handles: end-of-interval counts, watermarks, opens and closes that explain the change; then
    inquires and sets. Returns the input and output handle counts."""
    count = len(queues)
    input_handles = np.maximum(0, queues.consumers + rng.integers(-1, 2, count))
    output_handles = np.maximum(0, queues.producers + rng.integers(-1, 2, count))
    columns["QQSTIPCT"], columns["QQSTOPCT"] = input_handles, output_handles
    columns["QQSTIPHI"] = np.maximum(input_handles, state.inputs) + rng.integers(0, 2, count)
    columns["QQSTIPLO"] = np.maximum(0, np.minimum(input_handles, state.inputs) - rng.integers(0, 2, count))
    columns["QQSTOPHI"] = np.maximum(output_handles, state.outputs) + rng.integers(0, 3, count)
    columns["QQSTOPLO"] = np.maximum(0, np.minimum(output_handles, state.outputs) - rng.integers(0, 2, count))
    change = (input_handles + output_handles) - (state.inputs + state.outputs)
    opens = poisson(rng, 0.002 * total + 1) + np.maximum(change, 0)
    columns["QQSTOPEN"], columns["QQSTCLOS"] = opens, opens - change
    columns["QQSTINQR"] = poisson(rng, 0.001 * total + 2)
    columns["QQSTSET"] = poisson(rng, np.full(count, 0.05))
    return input_handles, output_handles


def _depth_and_age(
    columns: dict,
    queues,
    depth_start: np.ndarray,
    depth_end: np.ndarray,
    fill_peak: np.ndarray,
    shared_now: dict | None,
    total: np.ndarray,
    gets: np.ndarray,
    hold: dict[int, int],
    start: int,
    end: int,
    seconds: int,
    rng: np.random.Generator,
) -> None:
    """Depth at collection, its watermarks and the oldest message's age (``hold``: queue ->
    put time of a message nobody gets)."""
    count = len(queues)
    shared = queues.is_shared
    exchanged = np.minimum(total, gets)
    depth_high = np.maximum(depth_start, depth_end) + np.floor(exchanged * rng.uniform(0, 0.002, count)).astype(
        np.int64
    )
    depth_high = np.minimum(depth_high, np.maximum(np.maximum(depth_start, depth_end), np.maximum(queues.depth_cap, 0)))
    depth_low = np.maximum(
        np.maximum(0, depth_start - gets),
        np.minimum(depth_start, depth_end) - np.floor(exchanged * rng.uniform(0, 0.002, count)).astype(np.int64),
    )
    depth_high = np.maximum(depth_high, fill_peak)
    if shared.any():
        # Each queue manager sees the group's depth only at its own puts and at collection
        # (IBM MQ 'Queue data records'): its high/low lie between the collection depth and the group's extremes.
        j = queues.shared_index[shared]
        peak, low = shared_now["peak"][j], shared_now["low"][j]
        putting = total[shared] > 0
        # A member that puts many messages sees the depth at many moments: at least half way to the peak.
        u = np.where(total[shared] >= BUSY_SHARED_PUTS, 0.5, 0.0) + rng.uniform(0, 1, len(j)) * np.where(
            total[shared] >= BUSY_SHARED_PUTS, 0.5, 1.0
        )
        end_depth = depth_end[shared]
        depth_high[shared] = np.where(putting, end_depth + np.floor(u * (peak - end_depth)), end_depth)
        depth_low[shared] = np.where(
            putting, np.minimum(end_depth, np.maximum(1, low + np.floor(u * (end_depth - low)))), end_depth
        )
    age = np.where(
        depth_end > 0,
        np.minimum(MAX_CLEAN_AGE_S, np.ceil(depth_end / np.maximum(total, 1) * seconds * rng.uniform(0.2, 1.0, count))),
        0,
    ).astype(np.int64)
    if shared.any():
        age[shared] = shared_now["age"][queues.shared_index[shared]]
    for q, put_time in hold.items():  # a message nobody gets: depth >= 1, age grows
        age[q] = (end - put_time) // US_PER_S
        if put_time < start:
            depth_low[q] = max(int(depth_low[q]), 1)
    columns["QQSTDPTH"], columns["QQSTDPHI"], columns["QQSTDPLO"] = depth_end, depth_high, depth_low
    columns["QQSTMAGE"] = age


def _queue_times(
    columns: dict,
    depth_start: np.ndarray,
    depth_end: np.ndarray,
    total: np.ndarray,
    gets: np.ndarray,
    end: int,
    seconds: int,
    state: QueueState,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queue times (microseconds, Little's law) and last put / get times. Returns the long-term
    queue time and the last put and get times (carried to the next interval)."""
    count = len(depth_end)
    average_depth = (depth_start + depth_end) / 2 + 0.5
    queue_time = np.where(gets > 0, average_depth / np.maximum(gets, 1) * seconds * US_PER_S, 0)
    queue_time = np.minimum(queue_time, 4_000_000_000)
    columns["QQSTQTST"] = np.minimum(np.round(queue_time * rng.uniform(0.8, 1.2, count)), 4_000_000_000).astype(
        np.int64
    )
    queue_time_long = np.where(state.qtime_long > 0, 0.7 * state.qtime_long + 0.3 * queue_time, queue_time)
    columns["QQSTQTLT"] = np.round(queue_time_long).astype(np.int64)
    last_put = np.where(
        total > 0,
        end - np.floor(rng.uniform(0, 1, count) * seconds * US_PER_S / (total + 1)).astype(np.int64),
        state.last_put,
    )
    last_get = np.where(
        gets > 0,
        end - np.floor(rng.uniform(0, 1, count) * seconds * US_PER_S / (gets + 1)).astype(np.int64),
        state.last_get,
    )
    columns["QQSTLPUT"], columns["QQSTLGET"] = last_put, last_get
    return queue_time_long, last_put, last_get


def _flags(
    columns: dict,
    qm: QueueManager,
    traffic: dict,
    queue_effects: dict,
    partial: np.ndarray,
    state: QueueState,
    rng: np.random.Generator,
) -> np.ndarray:
    """Flags: uncommitted work seen now and then (never in consecutive intervals when clean);
    partial records (``partial``) show a shared queue's depth and any queue's age as 0 and no
    uncommitted work on a shared queue. Returns the uncommitted flags."""
    count = len(qm.queues)
    shared = qm.queues.is_shared
    has_uncommitted_flag = qm.version != "9.3.0"
    uncommitted = (
        (rng.random(count) < 0.03) & ~state.uncommitted & ((traffic["PPT"] + traffic["PP1"]) > 0) & has_uncommitted_flag
    )
    for q in queue_effects.get("no_uncommitted", {}):
        uncommitted[q] = False
    for q in queue_effects.get("uncommitted", {}):
        uncommitted[q] = True
    columns["QQSTPART"] = partial
    partial_shared = partial & shared
    columns["QQSTDPTH"] = np.where(partial_shared, 0, columns["QQSTDPTH"])
    columns["QQSTMAGE"] = np.where(partial, 0, columns["QQSTMAGE"])
    uncommitted &= ~partial_shared
    columns["QQSTUNCM"] = uncommitted
    return uncommitted


def with_dynamic_queues(columns: dict, dynamic_queues: list[dict], rng: np.random.Generator, end: int) -> dict:
    """Append queues that exist only in this interval (dynamic queues)."""
    if not dynamic_queues:
        return columns
    rows = []
    for dynamic in dynamic_queues:
        puts = int(dynamic["depth"]) + int(rng.integers(5, 50))
        gets = puts - int(dynamic["depth"])
        size = int(dynamic.get("size", 512))
        row = {key: 0 for key in columns}
        row.update(
            QQSTQNAM=dynamic["name"],
            QQSTDISP=False,
            QQSTPSID=dynamic["psid"],
            QQSTBPID=dynamic["bpid"],
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
            QQSTDPTH=dynamic["depth"],
            QQSTDPHI=dynamic["depth"],
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
            QQSTLPUT=end - int(rng.integers(1, 60)) * US_PER_S,
            QQSTLGET=end - int(rng.integers(60, 120)) * US_PER_S,
            QQSTQTST=int(rng.integers(100, 5000)),
            QQSTQTLT=int(rng.integers(100, 5000)),
        )
        rows.append(row)
    appended = {}
    for key, column in columns.items():
        added = np.array([row[key] for row in rows], dtype=column.dtype if column.dtype != object else object)
        appended[key] = np.concatenate([column, added])
    return appended
