"""Channel initiator statistics (115/231): QCCT and the dispatcher, adapter, SSL and DNS tasks."""

from __future__ import annotations

import numpy as np

from ..config import US_PER_S
from ..topology import QueueManager


def channel_initiator_statistics(
    qm: QueueManager, queue_columns: dict, rng: np.random.Generator, start: int, seconds: int
) -> dict:
    """QCCT, QCTDSP, QCTADP, QCTSSL and QCTDNS of one interval: task busy shares follow the
    queue manager's message traffic."""
    interval_us = seconds * US_PER_S
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
    messages = int(np.asarray(queue_columns["QQSTPUTS"]).sum() // 10)

    def tasks(count: int, busy: np.ndarray, per_request_us: float, first_task_number: int) -> dict:
        requests = np.maximum(0, np.round(busy * interval_us / per_request_us)).astype(np.int64)
        elapsed = np.round(busy * interval_us).astype(np.int64)
        return {
            "QCTTSKN": first_task_number + 0x1000 * np.arange(count, dtype=np.int64),
            "QCTREQN": requests,
            "QCTCPTM": np.round(elapsed * 0.6).astype(np.int64),
            "QCTELTM": elapsed,
            "QCTWTTM": interval_us - elapsed,
        }

    dispatcher_busy = np.full(qm.dispatchers, min(0.3, 0.02 + messages * 60 / interval_us)) * rng.uniform(
        0.8, 1.2, qm.dispatchers
    )
    dispatchers = tasks(qm.dispatchers, dispatcher_busy, 60.0, 0x008C5000)
    dispatchers["QCTCHLN"] = np.full(qm.dispatchers, qm.channels // qm.dispatchers) + (
        np.arange(qm.dispatchers) < qm.channels % qm.dispatchers
    )
    adapter_busy = 0.12 * (0.7 ** np.arange(qm.adapters)) * rng.uniform(0.8, 1.2, qm.adapters)  # lowest first
    adapters = tasks(qm.adapters, adapter_busy, 120.0, 0x008D1000)
    ssl = tasks(qm.ssl_tasks, rng.uniform(0.01, 0.05, qm.ssl_tasks), 200.0, 0x008E2000)
    ssl["QCTLSTM"] = start + np.floor(rng.uniform(0, 1, qm.ssl_tasks) * interval_us).astype(np.int64)
    ssl["QCTLSDU"] = rng.integers(2_000, 40_000, qm.ssl_tasks)
    dns = tasks(1, np.array([0.0005]), 800.0, 0x008F3000)
    dns["QCTLGTM"] = one(start + int(rng.uniform(0, 1) * interval_us))
    dns["QCTLGDU"] = one(int(rng.integers(1_000, 90_000)))
    return {"QCCT": qcct, "QCTDSP": dispatchers, "QCTADP": adapters, "QCTSSL": ssl, "QCTDNS": dns}
