"""Buffer pools (QPST) from the private queues' pages, and page sets (QIS1) that hold them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..topology import QueueManager

if TYPE_CHECKING:
    from ..state import Effects, QmgrState

POOL_COUNTERS = (
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


def buffer_pool_statistics(
    k: int,
    qm: QueueManager,
    traffic: dict,
    queue_columns: dict,
    gets: np.ndarray,
    browses: np.ndarray,
    checkpoints: int,
    state: QmgrState,
    effects: Effects,
) -> dict:
    """QPST of one interval, and each pool's pages written and read (for the page sets).
    Message pages that do not fit the pool spill to the page set (``state.spilled``) and are
    read back when got; the deferred write processor and synchronous writes start at MP16's
    free-buffer thresholds."""
    queues = qm.queues
    rng = traffic["rng"]
    pages_per_message = queues.pages
    private = ~queues.is_shared
    put_messages = traffic["total_puts"] - traffic["FPTC"]  # fast puts go straight to a getter
    pool_count = len(qm.pools)
    qpst = {name: np.zeros(pool_count, np.int64) for name in POOL_COUNTERS}
    qpst["QPSTLOC"] = np.ones(pool_count, bool)  # above the bar (an injection may say otherwise)
    qpst["QPSTF4KB"] = np.array([role == "SHORT" for role in qm.pool_roles])
    pages_written = np.zeros(pool_count, np.int64)
    pages_read = np.zeros(pool_count, np.int64)
    queue_count = len(queues)
    for i, pool in enumerate(qm.pools):
        in_pool = private & (queues.bpid == pool)
        buffers = int(qm.pool_buffers[i])
        baseline = int(qm.pool_baseline[i])
        peak = baseline + int((queue_columns["QQSTDPHI"][:queue_count][in_pool] * pages_per_message[in_pool]).sum())
        end_used = baseline + int((queue_columns["QQSTDPTH"][:queue_count][in_pool] * pages_per_message[in_pool]).sum())
        for dynamic in effects.dynamic.get((k, qm.index), []):
            if dynamic["bpid"] == pool:
                peak += int(dynamic["depth"])
                end_used += int(dynamic["depth"])
        put_pages = int((put_messages[in_pool] * pages_per_message[in_pool]).sum())
        get_pages = int(((gets[in_pool] + browses[in_pool]) * pages_per_message[in_pool]).sum())
        # Pages of queued messages already pushed out to the page set take no buffers.
        peak = max(baseline, peak - int(state.spilled[i]))
        free_low = buffers - peak
        overflow = max(0, -free_low)  # pages pushed out to the page set, read back when got
        read_ios = min(int(state.spilled[i]) + overflow, get_pages)
        state.spilled[i] = state.spilled[i] + overflow - read_ios
        end_used = max(baseline, end_used - int(state.spilled[i]))
        deferred_threshold_hits = critical_threshold_hits = immediate_writes = deferred_writes = 0
        if free_low < 0.15 * buffers:  # deferred write processor starts below 15 % free
            deferred_writes = int(peak - 0.75 * buffers)
            deferred_threshold_hits = 1 + int(rng.integers(0, 3)) + deferred_writes // max(1, buffers // 20)
        if free_low < 0.05 * buffers:  # synchronous writes below 5 % free
            immediate_writes = int(peak - 0.95 * buffers) + overflow
            critical_threshold_hits = 1 + immediate_writes // max(1, buffers // 50)
        checkpoint_writes = int(rng.integers(5, 40)) * checkpoints  # object and long-lived pages at checkpoints
        total_writes = deferred_writes + immediate_writes + checkpoint_writes
        qpst["QPSTNBUF"][i] = buffers
        qpst["QPSTCBSL"][i] = max(0, free_low)
        qpst["QPSTCBS"][i] = min(buffers, max(max(0, free_low), buffers - end_used))
        qpst["QPSTGETN"][i] = put_pages
        qpst["QPSTGETP"][i] = get_pages + put_pages // 2 + int(rng.integers(200, 2000))
        qpst["QPSTRIO"][i] = read_ios
        qpst["QPSTSTW"][i] = put_pages + get_pages
        qpst["QPSTTPW"][i] = total_writes
        qpst["QPSTWIO"][i] = -(-total_writes // 8)
        qpst["QPSTIMW"][i] = -(-immediate_writes // 4)
        qpst["QPSTDWT"][i], qpst["QPSTDMC"][i] = deferred_threshold_hits, critical_threshold_hits
        qpst["QPSTSTL"][i] = overflow + deferred_writes // 2
        qpst["QPSTSOS"][i] = 0 if overflow == 0 else 1 + overflow // max(1, buffers // 100)
        for name, value in effects.pool.get((k, qm.index, int(pool)), {}).items():
            qpst[name][i] = value
        pages_written[i] = total_writes
        pages_read[i] = read_ios
    qpst["QPSTPOOL"] = qm.pools.astype(np.int64)
    return {"QPST": qpst, "written": pages_written, "read": pages_read}


def page_set_statistics(
    k: int,
    qm: QueueManager,
    queue_columns: dict,
    pools: dict,
    checkpoints: int,
    rng: np.random.Generator,
    state: QmgrState,
    effects: Effects,
) -> dict:
    """QIS1 of one interval: queue pages on each page set; each pool's page writes and reads
    shared out over its page sets by pages used."""
    queues = qm.queues
    pageset_count = len(qm.pagesets)
    pages_per_message = queues.pages
    used = np.zeros(pageset_count, np.int64)
    persistent = np.zeros(pageset_count, np.int64)
    for i, pageset in enumerate(qm.pagesets):
        on_pageset = queues.psid == pageset
        pages = queue_columns["QQSTDPTH"][: len(queues)][on_pageset] * pages_per_message[on_pageset]
        used[i] = int(pages.sum()) + (2_000 + 10 * len(queues) if pageset == 0 else 200)
        persistent_share = queues.persistent_rate[on_pageset] / np.maximum(
            queues.persistent_rate[on_pageset] + queues.nonpersistent_rate[on_pageset], 1e-12
        )
        persistent[i] = int((pages * persistent_share).sum()) + (2_000 if pageset == 0 else 200)
    for dynamic in effects.dynamic.get((k, qm.index), []):
        used[list(qm.pagesets).index(dynamic["psid"])] += int(dynamic["depth"])
    written = np.zeros(pageset_count, np.int64)
    read = np.zeros(pageset_count, np.int64)
    for i, pool in enumerate(qm.pools):  # a pool's page I/O goes to its page sets by size
        pagesets_of_pool = np.nonzero(qm.pageset_pool == pool)[0]
        share = used[pagesets_of_pool] / max(1, used[pagesets_of_pool].sum())
        pool_written = np.floor(share * pools["written"][i]).astype(np.int64)
        pool_written[0] += pools["written"][i] - pool_written.sum()
        pool_read = np.floor(share * pools["read"][i]).astype(np.int64)
        pool_read[0] += pools["read"][i] - pool_read.sum()
        written[pagesets_of_pool] += pool_written
        read[pagesets_of_pool] += pool_read
    return {
        "QIS1PSNO": qm.pagesets.astype(np.int64),
        "QIS1BPNO": qm.pageset_pool.astype(np.int64),
        "QIS1TOPG": qm.pageset_pages.astype(np.int64),
        "QIS1UNPG": qm.pageset_pages - used,
        "QIS1PPG": persistent,
        "QIS1NPPG": used - persistent,
        "QIS1FULL": np.zeros(pageset_count, np.int64),
        "QIS1PCHI": used + rng.integers(0, 50, pageset_count),
        "QIS1DWPN": -(-written // 8),
        "QIS1DWPP": written,
        "QIS1DWPT": (-(-written // 8)) * 260,
        "QIS1IMWN": np.zeros(pageset_count, np.int64),
        "QIS1IMWP": np.zeros(pageset_count, np.int64),
        "QIS1IMWT": np.zeros(pageset_count, np.int64),
        "QIS1GETN": read,
        "QIS1GETP": read,
        "QIS1GETT": read * 230,
        "QIS1CKPP": np.where(checkpoints > 0, np.minimum(written, 40 * checkpoints), 0),
        "QIS1EXPN": state.expansions.astype(np.int64),
        "QIS1STRN": np.ones(pageset_count, np.int64),
        "QIS1EXPM": np.ones(pageset_count, np.int64),
        "QIS1STAT": np.zeros(pageset_count, np.int64),
        "QIS1EXPF": np.zeros(pageset_count, bool),
        "QIS1ENCF": (qm.pagesets % 2 == 1) & (qm.index % 2 == 0),
    }
