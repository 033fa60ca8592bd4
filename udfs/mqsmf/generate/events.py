"""Queue depth performance events implied by a generated scenario, saved as dmpmqmsg dumps.

The events follow the SMF statistics of the same run (the simulation the SMF records come from):

* monitored queues: the private and shared queues with the deepest day (``QDEPTHHI`` at
  ``HIGH_LIMIT_SHARE`` of the queue's deepest interval, ``QDEPTHLO`` at ``LOW_LIMIT_SHARE`` of that,
  ``MAXDEPTH`` IBM's default except on one queue, see below);
* at most one event per queue and interval, with IBM's toggling: Queue Depth High fires in an
  interval whose depth high reaches QDEPTHHI while enabled, and enables Low and Full; Low fires when
  the depth low reaches QDEPTHLO while enabled, and enables High and Full; Queue Full fires when the
  depth high reaches MAXDEPTH while enabled, and enables Low. One queue fills: the first monitored
  queue whose deepest interval comes after a High or Low event gets MAXDEPTH = that interval's depth
  high (QQSTDPHI == MAXDEPTH there; the SMF records get no failed puts for it). A shared queue's
  depth is the group's (the highest/lowest any member saw);
* an event is put at the end of the interval it fires in (``PUT_BEFORE_END_MS`` before the end of
  the coordinating queue manager's interval): each message's counts cover whole SMF intervals of
  the writing queue manager, those that start at or after its statistics reset (its previous event,
  the start of its day or its restart) and before the put (the model's one approximation: an
  interval still open at the put is counted whole in that event, the last second of the
  coordinator's interval in none; members whose intervals do not line up with the coordinator's,
  as in an estate, can write null events for lack of a new interval): MsgEnqCount = sum of QQSTPUTS + QQSTPUT1,
  MsgDeqCount = sum of QQSTGETS, HighQDepth = max QQSTDPHI; a member that did nothing on the queue
  writes zeros (a "null event", e.g. one of ``ScenarioConfig.idle_shared``);
* shared queues (IBM MQ 'Shared queues and queue depth events on z/OS'): the coordinating queue
  manager is the member that put most in the interval; it writes first and every other active
  member writes one with the same CorrelId, ``ANSWER_DELAY_MS`` apart; members with PERFMEV(DISABLED) write none (their statistics are
  still reset). A member is active when one of its written intervals covers the event: a lost
  interval is taken as the queue manager being down (it writes no message and restarts with its
  next interval, which resets its statistics). Private queues of a queue manager with
  PERFMEV(DISABLED) have no events.

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
DEFAULT_MAXDEPTH = 999_999_999  # IBM MQ for z/OS MAXDEPTH default: the other queues never fill
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
    qsg: str | None  # the queue-sharing group of a shared queue
    by_k: dict[int, dict[str, tuple[int, int, int, int]]] = field(default_factory=dict)

    def depth_high(self, k: int) -> int:
        return max((v[2] for v in self.by_k.get(k, {}).values()), default=0)

    def depth_low(self, k: int) -> int | None:
        vals = [v[3] for v in self.by_k.get(k, {}).values()]
        return min(vals) if vals else None


def _series(scenario) -> dict[tuple[str | None, str], _Series]:
    """(owner, or the QSG of a shared queue; queue name) -> statistics, from the simulation."""
    sim = Simulation(scenario.topology, scenario.effects, scenario.config.seed)
    out: dict[tuple[str | None, str], _Series] = {}
    for k in range(scenario.topology.steps):
        qis = sim.step(k)
        for qi in qis:
            scenario.planned.mutate(qi)
        for qi in qis:
            qmgr = scenario.topology.qmgrs[qi.m]
            qm = qmgr.name
            c, n = qi.structures["QQST"], qi.rows["QQST"]
            shared = qi.structures["QQST"]["QQSTDISP"][:n]
            for i in range(n):
                name = str(qi.queue_names[i])
                key = (qmgr.qsg if shared[i] else qm, name)
                s = out.setdefault(
                    key, _Series(name, bool(shared[i]), None if shared[i] else qm, key[0] if shared[i] else None)
                )
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


def _active_at(qm, at_us: int) -> bool:
    """Whether a queue manager runs at ``at_us``: one of its written intervals covers it (a lost
    interval is the queue manager down: no statistics, no event messages)."""
    return any(i.start_us <= at_us < i.end_us and not i.lost for i in qm.intervals)


def _restarted_at(qm, at_us: int) -> int | None:
    """The queue manager's last (re)start at or before ``at_us``: the end of a restart interval or
    of a lost one (its statistics start again there: IBM resets them when a queue manager restarts)."""
    return max((i.end_us for i in qm.intervals if (i.lost or i.restart) and i.end_us <= at_us), default=None)


def _fire(s: _Series, k: int, limits: dict, state: dict) -> int | None:
    """The reason code of the event step k fires on the queue (at most one per interval), and the
    toggling IBM applies: High enables Low and Full; Low enables High and Full; Full enables Low.
    Full comes first: it needs the depth at MAXDEPTH, which High has announced already."""
    high, low = s.depth_high(k), s.depth_low(k)
    if state["full"] and high >= limits["maxdepth"]:
        state.update(full=False, low=True)
        return L.const("MQRC_Q_FULL")
    if state["high"] and high >= limits["qdepthhi"]:
        state.update(high=False, low=True, full=True)
        return L.const("MQRC_Q_DEPTH_HIGH")
    if state["low"] and low is not None and low <= limits["qdepthlo"]:
        state.update(high=True, low=False, full=True)
        return L.const("MQRC_Q_DEPTH_LOW")
    return None


def plan_events(scenario, perfmev_disabled: list[str] | None = None) -> dict:
    """The event messages the scenario implies, as a manifest (nothing written)."""
    cfg = scenario.config
    if perfmev_disabled is None:
        perfmev_disabled = default_perfmev_disabled(scenario)
    by_name = {q.name: q for q in scenario.topology.qmgrs}
    qmgrs = list(by_name)
    unknown = sorted(set(perfmev_disabled) - set(qmgrs))
    if unknown:
        raise ValueError(f"PERFMEV: unknown queue manager(s) {', '.join(unknown)}")
    enabled = {q: q not in perfmev_disabled for q in qmgrs}
    series = _series(scenario)
    steps = scenario.topology.steps

    def day_max(s: _Series) -> int:
        return max(s.depth_high(k) for k in range(steps))

    def pick(shared: bool, n: int) -> list[_Series]:
        cands = [s for s in series.values() if s.shared == shared and not s.name.startswith("SYSTEM.")]
        cands = [s for s in cands if day_max(s) >= MIN_DAY_DEPTH and (shared or enabled[s.owner])]
        return sorted(cands, key=lambda s: (-day_max(s), s.qsg or "", s.owner or "", s.name))[:n]

    monitored = pick(False, MONITORED_PRIVATE) + pick(True, MONITORED_SHARED)
    limits = {}
    for s in monitored:
        hi_limit = max(1, int(round(HIGH_LIMIT_SHARE * day_max(s))))
        limits[s.name, s.owner, s.qsg] = {
            "qdepthhi": hi_limit,
            "qdepthlo": int(LOW_LIMIT_SHARE * hi_limit),
            "maxdepth": DEFAULT_MAXDEPTH,
        }
    # One queue fills: the first monitored queue whose deepest interval comes after its Queue
    # Depth High event gets MAXDEPTH = that depth (QQSTDPHI == MAXDEPTH there): Queue Full fires.
    for s in monitored:
        trial = {**limits[s.name, s.owner, s.qsg], "maxdepth": day_max(s)}
        state = {"high": True, "low": False, "full": False}
        if L.const("MQRC_Q_FULL") in [_fire(s, k, trial, state) for k in range(steps)]:
            limits[s.name, s.owner, s.qsg] = trial
            break

    events: list[dict] = []
    groups: list[dict] = []
    queues: list[dict] = []
    for s in monitored:
        lim = limits[s.name, s.owner, s.qsg]
        queues.append({"queue": s.name, "shared": s.shared, "qmgr": s.owner, "qsg": s.qsg, **lim})
        members = [q for q in qmgrs if by_name[q].qsg == s.qsg] if s.shared else [s.owner]
        reset = {m: by_name[m].intervals[0].start_us for m in members}
        state = {"high": True, "low": False, "full": False}
        for k in range(steps):
            # Queue managers whose k-th interval is written (the coordinator is one of them).
            reporting = [m for m in members if k < len(by_name[m].intervals) and not by_name[m].intervals[k].lost]
            if not reporting:
                continue
            fire = _fire(s, k, lim, state)
            if fire is None:
                continue
            coordinator = max(reporting, key=lambda m: (s.by_k[k][m][0], -reporting.index(m)))
            at_us = by_name[coordinator].intervals[k].end_us - PUT_BEFORE_END_MS * 1000
            active = [m for m in members if _active_at(by_name[m], at_us)]
            order = [coordinator] + [m for m in active if m != coordinator]
            correl = _id(cfg.seed, "correl", s.qsg, s.name, k, fire) if s.shared else "00" * 24
            event_name = L.events()[fire][0]
            counts, answered = {}, []
            for i, m in enumerate(order):
                put_us = at_us + i * ANSWER_DELAY_MS * 1000
                since = max(reset[m], _restarted_at(by_name[m], at_us) or reset[m])
                # The member's written intervals that start at or after its reset and before the put.
                window = [
                    s.by_k[j][m]
                    for j, iv in enumerate(by_name[m].intervals)
                    if not iv.lost and since <= iv.start_us < put_us and m in s.by_k.get(j, {})
                ]
                enq, deq = sum(w[0] for w in window), sum(w[1] for w in window)
                high = max((w[2] for w in window), default=0) if enq or deq else 0
                counts[m] = (enq, deq, high)
                reset[m] = at_us  # every active member's statistics reset, PERFMEV or not
                if not enabled[m]:
                    continue
                answered.append(m)
                events.append(
                    {
                        "qmgr": m,
                        "queue": s.name,
                        "shared": s.shared,
                        "qsg": s.qsg,
                        "event": event_name,
                        "reason": fire,
                        "correl_id": correl,
                        "msg_id": _id(cfg.seed, "msg", m, s.name, k, fire),
                        "put_us": put_us,
                        "put_at": iso(put_us),
                        "seconds_since_reset": (put_us - since) // US_PER_S,
                        "msg_enq_count": enq,
                        "msg_deq_count": deq,
                        "high_q_depth": high,
                        "coordinator": m == coordinator,
                        "null_event": enq == 0 and deq == 0,
                        "window_intervals": [j for j, iv in enumerate(by_name[m].intervals)
                                             if not iv.lost and since <= iv.start_us < put_us],
                    }
                )  # fmt: skip
            if s.shared:
                groups.append(
                    {
                        "correl_id": correl,
                        "qsg": s.qsg,
                        "queue": s.name,
                        "event": event_name,
                        "interval": k,
                        "coordinator": coordinator,
                        "coordinator_wrote": enabled[coordinator],
                        "members": members,
                        "answered": answered,
                        "not_answered": [m for m in members if m not in answered],
                        "inactive_members": [m for m in members if m not in active],
                        "perfmev_disabled_members": [m for m in active if not enabled[m]],
                        "msg_enq_count": sum(counts[m][0] for m in answered),
                        "msg_deq_count": sum(counts[m][1] for m in answered),
                        "max_high_q_depth": max((counts[m][2] for m in answered), default=None),
                        "idle_members": [m for m in answered if counts[m][0] == 0 and counts[m][1] == 0],
                    }
                )
    return {
        "generator": "mqsmf.generate.events",
        "seed": cfg.seed,
        "qsgs": scenario.topology.qsgs,
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
