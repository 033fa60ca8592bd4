"""What the simulation carries between intervals and between its parts: the pathologies acting on it
(``Effects``), each queue manager's state from one interval to the next (``QmgrState``,
``QueueState``) and what a queue manager reports for an interval (``QmgrInterval``). The structure
families (``families``) read and update these; ``workload.Simulation`` drives them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
    # (k, m, structure) -> (redrive share, single-entry requests at least)
    redrive: dict[tuple[int, int, int], tuple[float, int]] = field(default_factory=dict)
    cf: dict[tuple[int, int, int], dict[str, int]] = field(default_factory=dict)  # (k, m, structure) -> counters
    partial_shared: set[tuple[int, int, int]] = field(default_factory=set)  # (k, m, structure)
    partial_private: set[tuple[int, int, int]] = field(default_factory=set)  # (k, m, q)
    # (k, m) -> functions adding a pathology's own accounted tasks: (qm, queue columns, interval) -> [Task]
    accounting: dict[tuple[int, int], list] = field(default_factory=dict)
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
    # Class 3 accounting: the task (row of WTID and WTAS) each WQST row belongs to
    task_of: np.ndarray | None = None


@dataclass
class QueueState:
    """What a queue manager's queues carry from one interval to the next."""

    depth: np.ndarray
    rise_streak: np.ndarray
    last_put: np.ndarray
    last_get: np.ndarray
    qtime_long: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    uncommitted: np.ndarray


@dataclass
class QmgrState:
    """What a queue manager carries from one interval to the next."""

    queues: QueueState
    spilled: np.ndarray  # per pool: message pages on the page set only (pushed out of the pool)
    log_records_total: int = 0
    new_logs: int = 0
    expansions: np.ndarray | None = None
