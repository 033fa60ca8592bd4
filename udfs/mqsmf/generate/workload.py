"""Interval-by-interval simulation of the queue-sharing group's message traffic.

For every interval and queue manager it produces the field values of every structure the
queue manager writes (QQST per queue, QPST per buffer pool, QIS1 per page set, QJST, QMST, QEST,
QESD, ...), keyed by the layouts' sanitized column names. The values are coherent:

* depth: ``DPTH(k) = DPTH(k-1) + PUTS + PUT1 - GETS - EXPR - RBPT + RBGT`` for private queues and
  for the group-wide depth of a shared queue; ``DPLO <= min(start, end) <= max(start, end) <= DPHI``;
* persistent and non-persistent counts and bytes add up; bytes are counts times sizes that lie
  between QQSTMSMI and QQSTMSMA; MQPUT1 and browse counters likewise;
* a shared queue's counters are each queue manager's own share; its depth and age are the
  group's, except on partial records (QQSTPART: depth and age 0, QQSTUNCM off, IBM MQ 'Queue data records');
* buffer pool, page set, log, message/data manager and CF activity are computed from the queue
  traffic (pages per message, log records and bytes per persistent message, CF calls per shared
  queue operation).

Pathologies (``Effects``) act on the workload (a backlog, a burst, a stuck message, expiry ...)
or, for counters that have no driver in the model (buffer steal contention, CF redrives, log
buffer waits), on the counter itself; the consequences follow through the same models.
"""

from __future__ import annotations

import numpy as np

from .config import US_PER_S
from .families.accounting import accounting_records, server_tasks, without_queues
from .families.buffer_pools import buffer_pool_statistics, page_set_statistics
from .families.channel_initiator import channel_accounting, channel_initiator_statistics
from .families.coupling_facility import coupling_facility_statistics
from .families.log import log_statistics
from .families.managers import manager_statistics
from .families.queues import queue_statistics, queue_traffic, shared_queue_traffic, with_dynamic_queues
from .state import Effects, QmgrInterval, QmgrState, QueueState
from .topology import QueueManager, Topology


class Simulation:
    """Run the scenario one interval at a time; ``step(k)`` must be called for k = 0, 1, ...
    Each structure family computes its fields in its module (``families``); this class holds
    the state they carry between intervals and calls them in order."""

    def __init__(self, topology: Topology, effects: Effects, seed: int) -> None:
        self.topology = topology
        self.effects = effects
        self.seed = seed
        self.state = []
        rng = np.random.default_rng([seed, 7919])
        for qm in topology.qmgrs:
            queues = qm.queues
            count = len(queues)
            self.state.append(
                QmgrState(
                    queues=QueueState(
                        depth=np.zeros(count, np.int64),
                        rise_streak=np.zeros(count, np.int64),
                        last_put=np.zeros(count, np.int64),
                        last_get=np.zeros(count, np.int64),
                        qtime_long=np.zeros(count, np.float64),
                        inputs=queues.consumers.copy(),
                        outputs=queues.producers.copy(),
                        uncommitted=np.zeros(count, bool),
                    ),
                    spilled=np.zeros(len(qm.pools), np.int64),
                    new_logs=int(rng.integers(20, 200)),
                    expansions=rng.integers(0, 3, len(qm.pagesets)),
                )
            )
        shared_count = len(topology.shared_names)
        self.shared_depth = np.zeros(shared_count, np.int64)
        self.shared_rise_streak = np.zeros(shared_count, np.int64)
        self.next_k = 0

    # ------------------------------------------------------------------------------------------
    def interval_bounds(self, k: int, qm: QueueManager) -> tuple[int, int]:
        """A queue manager's k-th interval (each has its own STATIME, start and restarts)."""
        interval = qm.intervals[k]
        return interval.start_us, interval.end_us

    def interval_seconds(self, k: int, qm: QueueManager) -> int:
        """Seconds of a queue manager's k-th interval."""
        start, end = self.interval_bounds(k, qm)
        return (end - start) // US_PER_S

    def step(self, k: int) -> list[QmgrInterval]:
        """Step k: the k-th interval of every queue manager that has one. A QSG's members exchange
        shared-queue messages step by step, whatever their intervals' lengths."""
        if k != self.next_k:
            raise RuntimeError(f"intervals must be simulated in order (expected {self.next_k}, got {k})")
        self.next_k += 1
        active = [qm for qm in self.topology.qmgrs if k < len(qm.intervals)]
        # Step 1: puts per queue (every queue manager), private queues' gets and depth.
        traffic = [
            queue_traffic(
                k,
                qm,
                self.seed,
                self.interval_bounds(k, qm)[0],
                self.interval_seconds(k, qm),
                self.state[qm.index].queues,
                self.effects,
            )
            for qm in active
        ]
        # Step 2: shared queues: the group's depth, its gets shared out over the queue managers.
        shared_now = None
        if len(self.topology.shared_names):
            shared_now = shared_queue_traffic(
                k,
                active,
                traffic,
                self.seed,
                self.shared_depth,
                self.shared_rise_streak,
                self.effects.shared_backlog,
                max(self.interval_seconds(k, qm) for qm in active),
            )
            self.shared_depth, self.shared_rise_streak = shared_now["depth_end"], shared_now["rise_streak"]
        # Step 3: every queue manager's structures.
        return [
            self._qmgr_interval(k, qm, qm_traffic, shared_now) for qm, qm_traffic in zip(active, traffic, strict=True)
        ]

    def _qmgr_interval(self, k: int, qm: QueueManager, traffic: dict, shared_now: dict | None) -> QmgrInterval:
        """All structures of a queue manager's k-th interval, family by family (the order of the
        calls is the order of the random draws: keep it)."""
        start, end = self.interval_bounds(k, qm)
        seconds = self.interval_seconds(k, qm)
        state = self.state[qm.index]
        rng = traffic["rng"]
        dynamic_queues = self.effects.dynamic.get((k, qm.index), [])
        queue_columns, gets, browses = queue_statistics(
            k, qm, traffic, shared_now, start, end, seconds, state.queues, self.effects, self.topology.structure_names
        )
        qqst = with_dynamic_queues(queue_columns, dynamic_queues, rng, end)
        structures = {"QQST": qqst}
        log = log_statistics(k, qm, queue_columns, rng, start, seconds, state, self.effects)
        structures["QJST"] = log
        checkpoints = int(log["QJSTLLCP"][0])
        pools = buffer_pool_statistics(k, qm, traffic, queue_columns, gets, browses, checkpoints, state, self.effects)
        structures["QPST"] = pools["QPST"]
        structures["QIS1"] = page_set_statistics(k, qm, queue_columns, pools, checkpoints, rng, state, self.effects)
        managers = manager_statistics(qqst, pools["read"], dynamic_queues, rng, seconds)
        coupling_facility = coupling_facility_statistics(
            k, qm, queue_columns, rng, self.topology.structures, len(self.topology.qmgrs), self.effects
        )
        if qm.qsg is None:  # outside a QSG: no coupling facility, no Db2 (the triplets are empty)
            managers["Q5ST"] = {key: values[:0] for key, values in managers["Q5ST"].items()}
            coupling_facility = {
                name: {key: values[:0] for key, values in columns.items()}
                for name, columns in coupling_facility.items()
            }
        structures.update(managers)
        structures.update(coupling_facility)
        structures.update(channel_initiator_statistics(qm, queue_columns, rng, start, seconds))
        tasks = server_tasks(k, qm, queue_columns, self.topology.structure_names, qm.intervals[0].start_us)
        for add_tasks in self.effects.accounting.get((k, qm.index), ()):
            tasks += add_tasks(qm, queue_columns, self.topology.structure_names)
        config = self.topology.config
        tasks = without_queues(tasks, config.acctq_off_queues(qm.name)) if config.has_class3(qm.name, k) else []
        accounting = accounting_records(qm, tasks, start, end, qm.rel)
        task_of = accounting.pop("task_of")
        structures.update(accounting)
        peers = [other.name for other in self.topology.qmgrs]
        structures["QCST"] = channel_accounting(qm, peers, queue_columns, k, self.seed, start, end)
        rows = {name: len(next(iter(columns.values()))) if columns else 0 for name, columns in structures.items()}
        return QmgrInterval(k, qm.index, structures, rows, qqst["QQSTQNAM"], task_of)
