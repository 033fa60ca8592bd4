"""Channel initiator statistics (115/231): QCCT and the dispatcher, adapter, SSL and DNS tasks."""

from __future__ import annotations

import numpy as np

from ..config import US_PER_S
from ..topology import QueueManager

# 31-bit storage of a channel initiator's tasks and channels (MP16 "Channel initiator task storage
# usage" (ch. 3, p. 110): adapter 223 KB, dispatcher 248 KB, SSL task 1.3 MB; "How many channels can a
# channel initiator support?" (ch. 3, p. 110): about 90 KB a channel with 1 KB messages).
TASK_STORAGE_KB = {"adapter": 223, "dispatcher": 248, "ssl": 1331}
CHANNEL_STORAGE_KB = 90


def chin_storage_mb(qm: QueueManager, base_mb: int) -> int:
    """QCCTSTUS: the channel initiator's 31-bit storage in MB (as CSQX004I reports it): a base for
    its code and pools, its tasks and its channels."""
    tasks_kb = (
        qm.adapters * TASK_STORAGE_KB["adapter"]
        + qm.dispatchers * TASK_STORAGE_KB["dispatcher"]
        + qm.ssl_tasks * TASK_STORAGE_KB["ssl"]
    )
    return base_mb + round((tasks_kb + qm.channels * CHANNEL_STORAGE_KB) / 1024)


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
        "QCCTSTUS": one(chin_storage_mb(qm, base_mb=int(rng.integers(8, 16)))),
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


# Channel accounting (SMF 116 subtype 10): one QCST block per active channel instance and interval.
MQCHT_SENDER, MQCHT_RECEIVER, MQCHT_SVRCONN = 1, 3, 7
MQCHLD_PRIVATE = 4
MQCHS_RUNNING = 3
MQMON_HIGH = 65
NO_TIME = 0x8FFFFFFF  # QCSTETMN / QCSTNTMN when nothing was measured
BATCH_SIZE = 50  # BATCHSZ of every generated channel (the MQ default)
BATCH_DATA_LIMIT_KB = 5000  # BATCHLIM (the MQ default)
PEERS_PER_QMGR = 3  # sender / receiver pairs to other queue managers
CLIENTS = 2  # client applications on the queue manager's SVRCONN channel
CHANNEL_MESSAGE_SHARE = 0.1  # share of the queue manager's puts that arrive or leave over channels
MESSAGE_HEADER_BYTES = 500  # transmission header and descriptor sent with each message
CLIENT_PERSISTENT_SHARE = 0.2


def channel_object_name(channel: dict) -> str:
    """How the advisories name a channel: its name, connection name and remote queue manager."""
    return "/".join((channel["name"], channel["conn"], channel["remote"]))


def accounted_channels(qm: QueueManager, peers: list[str]) -> list[dict]:
    """The queue manager's channels with channel accounting, in QCST row order: a sender and a
    receiver channel to each of up to three other queue managers of the estate (a remote one when
    alone) and two client connections on its SVRCONN channel."""
    others = [p for p in peers if p != qm.name][:PEERS_PER_QMGR] or ["REMOTEQM"]
    channels: list[dict] = []
    for i, other in enumerate(others):
        peer = 10 + (peers.index(other) if other in peers else 99)
        for kind, name in ((MQCHT_SENDER, f"{qm.name}.TO.{other}"), (MQCHT_RECEIVER, f"{other}.TO.{qm.name}")):
            channels.append(dict(kind=kind, name=name, conn=f"10.1.{peer}.10(1414)", remote=other, number=i))
    for c in range(CLIENTS):
        channels.append(
            dict(
                kind=MQCHT_SVRCONN, name=f"{qm.name}.APP.SVRCONN", conn=f"10.2.{qm.index}.{20 + c}",
                remote=f"appserver{c}.jar", number=len(channels), conversations=2,
            )
        )  # fmt: skip
    return channels


def channel_accounting(
    qm: QueueManager, peers: list[str], queue_columns: dict, k: int, seed: int, start: int, end: int
):
    """QCST columns of one interval, one row per accounted channel (accounted_channels). The
    channels were started long before the scenario and stay running; messages follow the queue
    manager's traffic, batches fill to 4-12 messages, message sizes are its queues' average; the
    message channels carry the queues' persistent share, the clients a fifth persistent work."""
    rng = np.random.default_rng([seed, 116, 10, k, qm.index])  # its own draws: the statistics stay as they were
    puts = np.asarray(queue_columns["QQSTPUTS"], dtype=np.int64)
    put_bytes = int(np.asarray(queue_columns["QQSTPUTB"], dtype=np.int64).sum())
    persistent_share = float(np.asarray(queue_columns["QQSTPPT"], dtype=np.int64).sum() / max(1, puts.sum()))
    size = max(100, min(60_000, put_bytes // max(1, int(puts.sum()))))
    traffic = int(puts.sum() * CHANNEL_MESSAGE_SHARE)
    channels = accounted_channels(qm, peers)
    for ch in channels:
        ch["share"] = CLIENT_PERSISTENT_SHARE if ch["kind"] == MQCHT_SVRCONN else persistent_share
    cols: dict[str, list] = {}

    def put(key: str, value) -> None:
        cols.setdefault(key, []).append(value)

    interval_us = end - start
    for j, ch in enumerate(channels):
        messages = int(traffic / len(channels) * rng.uniform(0.8, 1.2))
        persistent = int(messages * ch["share"])
        sender = ch["kind"] == MQCHT_SENDER
        message_channel = ch["kind"] != MQCHT_SVRCONN
        batches = -(-messages // int(rng.integers(4, 13))) if message_channel else 0
        network_us = int(rng.integers(300, 2000)) if sender and messages else 0
        put("QCSTCLTM", end)
        put("QCSTCHNM", ch["name"])
        put("QCSTCHDP", MQCHLD_PRIVATE)
        put("QCSTCHTY", ch["kind"])
        put("QCSTCHST", MQCHS_RUNNING)
        put("QCSTSTCL", MQMON_HIGH)
        put("QCSTCNNM", ch["conn"])
        put("QCSTSTRT", qm.intervals[0].start_us - (j + 1) * 3_600 * US_PER_S)
        put("QCSTLUDT", end - int(rng.integers(1, 60)) * US_PER_S)
        put("QCSTLMST", end - int(rng.uniform(0, 1) * min(interval_us, 60 * US_PER_S)) if messages else 0)
        put("QCSTCBSZ", BATCH_SIZE if message_channel else 1)
        put("QCSTNMSG", messages)
        put("QCSTNPMG", persistent)
        put("QCSTBATC", batches)
        put("QCSTFUBA", batches // 50)
        put("QCSTBFST", messages + batches if ch["kind"] != MQCHT_RECEIVER else batches)
        put("QCSTBFRC", batches if ch["kind"] != MQCHT_RECEIVER else messages + batches)
        put("QCSTCSCV", ch.get("conversations", 0))
        put("QCSTNBYT", messages * size)
        put("QCSTNPBY", persistent * size)
        wire = messages * (size + MESSAGE_HEADER_BYTES)
        put("QCSTBYST", wire if ch["kind"] != MQCHT_RECEIVER else batches * 100)
        put("QCSTBYRC", batches * 100 if ch["kind"] != MQCHT_RECEIVER else wire)
        put("QCSTCPRA", 0)
        put("QCSTETAV", 0)
        put("QCSTETMN", NO_TIME)
        put("QCSTETMX", 0)
        put("QCSTETDT", 0)
        put("QCSTDNRT", int(rng.integers(1_000, 5_000)) if sender else 0)
        put("QCSTNTAV", network_us)
        put("QCSTNTMN", network_us // 2 if network_us else NO_TIME)
        put("QCSTNTMX", network_us * 4)
        put("QCSTNTDT", start + int(rng.uniform(0, 1) * interval_us) if network_us else 0)
        put("QCSTRQMN", ch["remote"])
        put("QCSTSLSN", "0000000000000000")
        put("QCSTSLCN", "")
        put("QCSTSLCS", 0)
        put("QCSTPTRC", 0)
        put("QCSTQETC", int(batches * 0.9) if sender else 0)
        put("QCSTCBIT", 0)
        put("QCSTCBDL", BATCH_DATA_LIMIT_KB)
        put("QCSTDSPN", ch["number"] % max(1, qm.dispatchers))
        put("QCSTRPID", "MQMV" if message_channel else "MQJB")
        put("QCSTRVER", "09040300")
    return {
        key: np.array(values, dtype=object if isinstance(values[0], str) else np.int64) for key, values in cols.items()
    }
