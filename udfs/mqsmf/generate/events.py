"""Queue depth performance events implied by a generated scenario, saved as dmpmqmsg dumps.

The events follow the SMF statistics of the same run (the simulation the SMF records come from):

* monitored queues: the private and shared queues with the deepest day (``QDEPTHHI`` at
  ``HIGH_LIMIT_SHARE`` of the queue's deepest interval, ``QDEPTHLO`` at ``LOW_LIMIT_SHARE`` of that);
* a Queue Depth High event fires in the first interval whose depth high reaches QDEPTHHI while
  high events are enabled; it enables Queue Depth Low (and disables itself); a Low event fires in
  the first later interval whose depth low reaches QDEPTHLO, and enables High again (IBM's
  toggling). A shared queue's depth is the group's (the highest/lowest any member saw);
* an event is put at the end of the interval it fires in (``PUT_BEFORE_END_MS`` before it): each
  message's counts cover whole SMF intervals, those that start at or after the queue's previous
  event (or the start of the day, the last statistics reset) up to this one's (the last second
  of an interval is counted in the next event: the model's one approximation): MsgEnqCount = sum of QQSTPUTS + QQSTPUT1,
  MsgDeqCount = sum of QQSTGETS, HighQDepth = max QQSTDPHI of the writing queue manager; a
  member that did nothing writes zeros (a "null event");
* shared queues (IBM MQ 'Shared queues and queue depth events on z/OS'): the coordinating queue manager is the member that put most in the
  interval; it writes first and every other active member writes one with the same CorrelId,
  ``ANSWER_DELAY_MS`` apart; members with PERFMEV(DISABLED) write none (their statistics are
  still reset). Private queues of a queue manager with PERFMEV(DISABLED) have no events.

Queue managers alternate between the two ways sites save the queue: as z/OS wrote it
(big-endian, EBCDIC CCSID 500) and converted (little-endian, CCSID 819).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from ..pcf import layouts as L
from ..pcf import writer as W
from .config import US_PER_S, iso
from .workload import Simulation

HIGH_LIMIT_SHARE = 0.6
LOW_LIMIT_SHARE = 0.2
MIN_DAY_DEPTH = 10  # queues shallower than this all day are not monitored
MONITORED_PRIVATE = 4
MONITORED_SHARED = 3
PUT_BEFORE_END_MS = 1000  # whole seconds: TimeSinceReset then points at the previous put exactly
ANSWER_DELAY_MS = 40
EVENT_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"
ZOS = (785, 500)  # Encoding MQENC_NATIVE on z/OS, EBCDIC CCSID
CONVERTED = (546, 819)


@dataclass
class _Series:
    """One queue's per-interval statistics: per queue manager (enq, deq, depth high, depth low)."""

    name: str
    shared: bool
    owner: str | None  # the queue manager of a private queue
    by_k: dict[int, dict[str, tuple[int, int, int, int]]] = field(default_factory=dict)

    def depth_high(self, k: int) -> int:
        return max((v[2] for v in self.by_k.get(k, {}).values()), default=0)

    def depth_low(self, k: int) -> int | None:
        vals = [v[3] for v in self.by_k.get(k, {}).values()]
        return min(vals) if vals else None


def _series(scenario) -> dict[tuple[str | None, str], _Series]:
    """(owner or None for shared, queue name) -> statistics, from the simulation."""
    sim = Simulation(scenario.topology, scenario.effects, scenario.config.seed)
    out: dict[tuple[str | None, str], _Series] = {}
    for k in range(scenario.config.intervals):
        qis = sim.step(k)
        for qi in qis:
            scenario.planned.mutate(qi)
        for qi in qis:
            qm = scenario.topology.qmgrs[qi.m].name
            c, n = qi.structures["QQST"], qi.rows["QQST"]
            shared = qi.structures["QQST"]["QQSTDISP"][:n]
            for i in range(n):
                name = str(qi.queue_names[i])
                key = (None if shared[i] else qm, name)
                s = out.setdefault(key, _Series(name, bool(shared[i]), key[0]))
                enq = int(c["QQSTPUTS"][i]) + int(c["QQSTPUT1"][i])
                s.by_k.setdefault(k, {})[qm] = (
                    enq,
                    int(c["QQSTGETS"][i]),
                    int(c["QQSTDPHI"][i]),
                    int(c["QQSTDPLO"][i]),
                )
    return out


def _id(*parts) -> str:
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:48].upper()


def default_perfmev_disabled(scenario) -> list[str]:
    """The last queue manager of a group of three or more runs with PERFMEV(DISABLED)."""
    qms = [q.name for q in scenario.topology.qmgrs]
    return qms[-1:] if len(qms) >= 3 else []


def plan_events(scenario, perfmev_disabled: list[str] | None = None) -> dict:
    """The event messages the scenario implies, as a manifest (nothing written)."""
    cfg = scenario.config
    if perfmev_disabled is None:
        perfmev_disabled = default_perfmev_disabled(scenario)
    qmgrs = [q.name for q in scenario.topology.qmgrs]
    unknown = sorted(set(perfmev_disabled) - set(qmgrs))
    if unknown:
        raise ValueError(f"PERFMEV: unknown queue manager(s) {', '.join(unknown)}")
    enabled = {q: q not in perfmev_disabled for q in qmgrs}
    series = _series(scenario)
    K, T = cfg.intervals, cfg.interval_seconds

    def day_max(s: _Series) -> int:
        return max(s.depth_high(k) for k in range(K))

    def pick(shared: bool, n: int) -> list[_Series]:
        cands = [s for s in series.values() if s.shared == shared and not s.name.startswith("SYSTEM.")]
        cands = [s for s in cands if day_max(s) >= MIN_DAY_DEPTH and (shared or enabled[s.owner])]
        return sorted(cands, key=lambda s: (-day_max(s), s.owner or "", s.name))[:n]

    monitored = pick(False, MONITORED_PRIVATE) + pick(True, MONITORED_SHARED)
    events: list[dict] = []
    groups: list[dict] = []
    queues: list[dict] = []
    for s in monitored:
        hi_limit = max(1, int(round(HIGH_LIMIT_SHARE * day_max(s))))
        lo_limit = int(LOW_LIMIT_SHARE * hi_limit)
        queues.append(
            {"queue": s.name, "shared": s.shared, "qmgr": s.owner, "qdepthhi": hi_limit, "qdepthlo": lo_limit}
        )
        members = qmgrs if s.shared else [s.owner]
        high_on, low_on = True, False
        last_k, last_at = -1, cfg.start_us
        for k in range(K):
            fire = None
            if high_on and s.depth_high(k) >= hi_limit:
                fire, high_on, low_on = 2224, False, True
            elif low_on and (lo := s.depth_low(k)) is not None and lo <= lo_limit:
                fire, high_on, low_on = 2225, True, False
            if fire is None:
                continue
            end_us = cfg.start_us + (k + 1) * T * US_PER_S
            active = [m for m in members if m in s.by_k.get(k, {})]
            window = [s.by_k.get(j, {}) for j in range(last_k + 1, k + 1)]
            counts = {}
            for m in active:
                enq = sum(w[m][0] for w in window if m in w)
                deq = sum(w[m][1] for w in window if m in w)
                high = max((w[m][2] for w in window if m in w), default=0) if enq or deq else 0
                counts[m] = (enq, deq, high)
            coordinator = max(active, key=lambda m: (s.by_k[k][m][0], -active.index(m)))
            order = [coordinator] + [m for m in active if m != coordinator]
            correl = _id(cfg.seed, "correl", s.name, k, fire) if s.shared else "00" * 24
            event_name = L.events()[fire][0]
            answered = []
            for i, m in enumerate(order):
                if not enabled[m]:
                    continue
                put_us = end_us - PUT_BEFORE_END_MS * 1000 + i * ANSWER_DELAY_MS * 1000
                enq, deq, high = counts[m]
                events.append(
                    {
                        "qmgr": m,
                        "queue": s.name,
                        "shared": s.shared,
                        "event": event_name,
                        "reason": fire,
                        "correl_id": correl,
                        "msg_id": _id(cfg.seed, "msg", m, s.name, k, fire),
                        "put_us": put_us,
                        "put_at": iso(put_us),
                        "seconds_since_reset": (put_us - last_at) // US_PER_S,
                        "msg_enq_count": enq,
                        "msg_deq_count": deq,
                        "high_q_depth": high,
                        "coordinator": m == coordinator,
                        "window_intervals": [last_k + 1, k],
                    }
                )
                answered.append(m)
            if s.shared:
                groups.append(
                    {
                        "correl_id": correl,
                        "queue": s.name,
                        "event": event_name,
                        "interval": k,
                        "coordinator": coordinator,
                        "coordinator_wrote": enabled[coordinator],
                        "answered": answered,
                        "not_answered": [m for m in qmgrs if m not in answered],
                        "msg_enq_count": sum(counts[m][0] for m in answered),
                        "msg_deq_count": sum(counts[m][1] for m in answered),
                        "max_high_q_depth": max((counts[m][2] for m in answered), default=None),
                        "idle_members": [m for m in answered if counts[m][0] == 0 and counts[m][1] == 0],
                    }
                )
            last_k, last_at = k, end_us - PUT_BEFORE_END_MS * 1000
    return {
        "generator": "mqsmf.generate.events",
        "seed": cfg.seed,
        "qsg": cfg.qsg,
        "perfmev": {q: "ENABLED" if enabled[q] else "DISABLED" for q in qmgrs},
        "encodings": {q: _encoding_label(i) for i, q in enumerate(qmgrs)},
        "monitored_queues": queues,
        "events": events,
        "groups": groups,
    }


def _encoding_label(i: int) -> str:
    return "z/OS big-endian EBCDIC" if i % 2 == 0 else "converted little-endian ASCII"


def write_events(scenario, prefix: str, perfmev_disabled: list[str] | None = None) -> dict:
    """Write one dump per queue manager (``{prefix}.{QMGR}.perfm.dmp``, only for queue managers
    that wrote events) and ``{prefix}.events.manifest.json``; return the manifest."""
    manifest = plan_events(scenario, perfmev_disabled)
    qmgrs = [q.name for q in scenario.topology.qmgrs]
    files = {}
    for i, qm in enumerate(qmgrs):
        mine = sorted((e for e in manifest["events"] if e["qmgr"] == qm), key=lambda e: e["put_us"])
        if not mine:
            continue
        enc, ccsid = ZOS if i % 2 == 0 else CONVERTED
        messages = []
        for e in mine:
            date, time = W.put_date_time(dt.datetime.fromtimestamp(e["put_us"] / 1e6, dt.UTC))
            md = _mqmd(qm, enc, ccsid, e["msg_id"], e["correl_id"], date, time)
            values = {
                "event_qmgr_name": qm,
                "queue_name": e["queue"],
                "seconds_since_reset": e["seconds_since_reset"],
                "high_q_depth": e["high_q_depth"],
                "msg_enq_count": e["msg_enq_count"],
                "msg_deq_count": e["msg_deq_count"],
            }
            messages.append((md, W.event_data(e["reason"], values, enc == ZOS[0], ccsid)))
        path = f"{prefix}.{qm}.perfm.dmp"
        last = iso(mine[-1]["put_us"] + 60_000_000)
        with open(path, "w", encoding="ascii", newline="\n") as fh:
            fh.write(W.dump_text(messages, qm, EVENT_QUEUE, last))
        files[qm] = path
        for e in mine:
            e["file"] = path
    manifest["files"] = files
    with open(prefix + ".events.manifest.json", "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, default=_json_default)
        fh.write("\n")
    return manifest


def _mqmd(qm: str, enc: int, ccsid: int, msg_id: str, correl_id: str, date: str, time: str) -> dict:
    """The MQMD of an event message (IBM: 'Event message MQMD'); values by column alias."""
    return {
        "md_version": 2,
        "report_options": 0,
        "msg_type": L.const("MQMT_DATAGRAM"),
        "expiry": -1,
        "feedback": 0,
        "encoding": enc,
        "coded_char_set_id": ccsid,
        "msg_format": str(L.const("MQFMT_EVENT")).rstrip(),
        "priority": 0,
        "persistence": 0,
        "msg_id": msg_id,
        "correl_id": correl_id,
        "backout_count": 0,
        "reply_to_q": "",
        "reply_to_qmgr": qm,
        "user_identifier": "",
        "accounting_token": "00" * 32,
        "appl_identity_data": "",
        "put_appl_type": L.const("MQAT_QMGR"),
        "put_appl_name": qm,
        "put_date": date,
        "put_time": time,
        "appl_origin_data": "",
        "group_id": "00" * 24,
        "msg_seq_number": 1,
        "msg_offset": 0,
        "msg_flags": 0,
        "original_length": -1,
    }


def _json_default(v):
    if isinstance(v, np.integer):
        return int(v)
    raise TypeError(type(v))
