"""Class 3 accounting (SMF 116 subtypes 1 and 2): the long-running server tasks of a queue
manager, each writing an interval record per accounting interval: WTID (who), WTAS (the task's
commits, log writes, suspends, latch waits, Db2 and CF calls) and one WQ block per queue it used.

Each server takes the messages of one busy queue (its share of the queue's gets in the interval:
the queue's gets divided among its input handles) and puts one reply per request to a private
reply queue (the first server, a router, spreads them over up to 12: more WQ blocks than a 116/1
record holds), committing every four requests. Times follow the
work: elapsed and CPU per call, a log force per unit of work with persistent messages. Injected
pathologies (``Effects.accounting``) add tasks of their own, so the servers stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...codecs import unix_us_to_stck
from ..topology import QueueManager

SERVER_TASKS = 4  # accounted server tasks per queue manager (the busiest queues that have consumers)
ROUTER_REPLY_QUEUES = 12  # reply queues of the first server (a router)
REQUESTS_PER_COMMIT = 4  # a server's unit of work: four requests got and their replies put
MQQT_LOCAL = 1
MQIT_NONE, MQIT_MSGID = 0, 1
MQQSGD_Q_MGR, MQQSGD_SHARED = 0, 2
UINT32_MAX = 0xFFFFFFFF
NO_MESSAGE = 0x0FFFFFFF  # GETMINMS / PUTMINMS when no message was got / put
TOD_HIGH_MAX_US = (1 << 20) - 1  # the largest latch wait time the high-word encoding holds
# Per call (microseconds): elapsed and CPU of a get, a put, a commit with and without a log force.
GET_US, GET_CPU_US = 40, 12
PUT_US, PUT_CPU_US = 45, 14
COMMIT_US, COMMIT_FORCED_US, COMMIT_CPU_US = 6, 900, 4
# "Other reqs" of MP16's failed open of an undefined queue: average elapsed 201 us, CPU 31 us (MP16
# "Frequent opening of un-defined queues", ch. 6, p. 183).
OTHER_REQUEST_US, OTHER_REQUEST_CPU_US = 201, 31


def task_tokens(number: int) -> str:
    """WTASMTHR and WTASWTAS of task ``number`` (hex): with WTASSTRT, the task's correlator."""
    return f"{0x1F400000 + 0x1000 * number:08X}{0x2E600000 + 0x800 * number:08X}"


def task_object_name(job: str, number: int) -> str:
    """How the advisories name a task: its connection name and thread tokens."""
    return f"{job}:{task_tokens(number)}"


@dataclass
class Task:
    """One accounted task of one interval: its identity and its WQ blocks (one per queue)."""

    name: str  # connection (job) name
    number: int  # stable per queue manager: the correlator and the thread tokens derive from it
    started_us: int
    commits: int = 0
    db2_requests: int = 0
    other_requests: int = 0  # "Other reqs" (WTASOTN): MQI calls of no WQ block, e.g. a failed MQOPEN
    latch: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # class -> (waits, total us, max us)
    commit_us: int | None = None  # elapsed of all commits (default: from the work)
    queues: list[dict] = field(default_factory=list)  # per queue: WQ column values


def queue_block(qm: QueueManager, q: int | None, structure_names, name: str | None = None, **counts) -> dict:
    """A WQ block's columns for queue row ``q`` of the queue manager's defined queues: identity
    from the topology, counters (gets, puts, persistent_gets, persistent_puts, opens, ...) given.
    ``q`` None: a queue the queue manager does not define, named ``name`` (an open that failed)."""
    queues = qm.queues
    if q is None:
        return dict(queue_block(qm, 0, [""] * 64, **counts), name=name, shared=False, structure="", page_set=0, pool=0)
    shared = bool(queues.shared_index[q] >= 0)
    size = int(queues.size_mean[q])
    gets, puts = int(counts.get("gets", 0)), int(counts.get("puts", 0))
    return dict(
        name=name or str(queues.name[q]),
        shared=shared,
        structure=str(structure_names[int(queues.structure[q])]) if shared else "",
        page_set=0 if shared else int(queues.psid[q]),
        pool=0 if shared else int(queues.bpid[q]),
        size=size,
        gets=gets,
        puts=puts,
        persistent_gets=int(counts.get("persistent_gets", 0)),
        persistent_puts=int(counts.get("persistent_puts", 0)),
        specific_gets=int(counts.get("specific_gets", 0)),
        skipped=int(counts.get("skipped", 0)),
        page_set_gets=int(counts.get("page_set_gets", 0)),
        opens=int(counts.get("opens", 0)),
        opens_without_cf=int(counts.get("opens_without_cf", 0)),
        index_type=int(counts.get("index_type", MQIT_NONE)),
        depth_max=int(counts.get("depth_max", 0)),
    )


def server_input_queues(qm: QueueManager) -> set[int]:
    """Queue rows the server tasks get from, whatever the interval."""
    queues = qm.queues
    rate = queues.persistent_rate + queues.nonpersistent_rate
    order = [int(q) for q in np.argsort(-rate, kind="stable") if queues.consumers[q] >= 1 and rate[q] > 0]
    return set(order[:SERVER_TASKS])


def server_queues(qm: QueueManager) -> set[int]:
    """Queue rows the server tasks use (their input and reply queues), whatever the interval."""
    queues = qm.queues
    rate = queues.persistent_rate + queues.nonpersistent_rate
    private = np.nonzero(queues.shared_index < 0)[0]
    used = server_input_queues(qm)
    by_rate = [int(r) for r in private[np.argsort(-rate[private], kind="stable")]]
    return used | set(by_rate[: ROUTER_REPLY_QUEUES + SERVER_TASKS])


def server_tasks(k: int, qm: QueueManager, queue_columns: dict, structure_names, first_start_us: int) -> list[Task]:
    """The queue manager's server tasks in its k-th interval."""
    queues = qm.queues
    rate = queues.persistent_rate + queues.nonpersistent_rate
    private = np.nonzero(queues.shared_index < 0)[0]
    order = [int(q) for q in np.argsort(-rate, kind="stable") if queues.consumers[q] >= 1 and rate[q] > 0]
    names = list(np.asarray(queue_columns["QQSTQNAM"], dtype=object))
    gets_of = np.asarray(queue_columns["QQSTGETS"], dtype=np.int64)
    persistent_of = np.asarray(queue_columns["QQSTPDG"], dtype=np.int64)
    depth_high = np.asarray(queue_columns["QQSTDPHI"], dtype=np.int64)
    tasks = []
    for number, q in enumerate(order[:SERVER_TASKS]):
        row = names.index(str(queues.name[q]))
        consumers = max(1, int(queues.consumers[q]))
        gets = int(gets_of[row]) // consumers
        persistent = int(persistent_of[row]) // consumers
        replies = [int(r) for r in private[np.argsort(-rate[private], kind="stable")] if int(r) != q]
        # The first server routes its replies over several queues: more WQ blocks than a 116/1 record
        # holds, so its record is continued in 116/2.
        replies = replies[: ROUTER_REPLY_QUEUES if number == 0 else 1]
        commits = -(-gets // REQUESTS_PER_COMMIT)
        task = Task(f"{qm.name}SRV{number}", number, first_start_us - (number + 1) * 3_600_000_000, commits=commits)
        first = k == 0
        task.queues.append(
            queue_block(
                qm, q, structure_names, gets=gets, persistent_gets=persistent, opens=int(first),
                opens_without_cf=0, depth_max=int(depth_high[row]),
            )
        )  # fmt: skip
        for i, reply in enumerate(replies):
            puts, persistent_puts = (_share(n, i, len(replies)) for n in (gets, persistent))
            task.queues.append(
                queue_block(qm, reply, structure_names, puts=puts, persistent_puts=persistent_puts, opens=int(first))
            )
        tasks.append(task)
    return tasks


def without_queues(tasks: list[Task], names: set[str]) -> list[Task]:
    """The tasks with no WQ block for the queues named: ACCTQ(OFF) on a queue leaves it out of every
    task's class 3 accounting (the task's own WTAS is still written)."""
    for task in tasks:
        task.queues = [block for block in task.queues if block["name"] not in names]
    return tasks


def _share(n: int, i: int, parts: int) -> int:
    """The i-th of ``parts`` near-equal shares of n."""
    return n // parts + (i < n % parts)


def accounting_records(
    qm: QueueManager, tasks: list[Task], start: int, end: int, rel: str
) -> dict[str, dict[str, np.ndarray]]:
    """WTID and WTAS (one per task) and WQST (one per task and queue) columns, plus ``task_of``:
    the task of each WQST row. Without tasks, the same columns with no rows."""
    if not tasks:
        template = Task("", 0, start, queues=[queue_block(qm, None, [], name="")])
        full = accounting_records(qm, [template], start, end, rel)
        return {name: {k: v[:0] for k, v in cols.items()} for name, cols in full.items() if name != "task_of"} | {
            "task_of": np.zeros(0, np.int64)
        }
    wtid: dict[str, list] = {k: [] for k in ("WTIDATYP", "WTIDCCN", "WTIDOPID", "WTIDCORI", "WTIDTRAN", "WTIDUOWI")}
    wtas: dict[str, list] = {}
    wq: dict[str, list] = {}
    task_of: list[int] = []

    def put(cols: dict, key: str, value) -> None:
        cols.setdefault(key, []).append(value)

    for t, task in enumerate(tasks):
        correlator_words = task_tokens(task.number)
        strt = int(unix_us_to_stck(np.array([task.started_us], dtype=np.int64))[0])
        correlator = f"{strt:016X}{correlator_words}"
        wtid["WTIDATYP"].append(2)
        wtid["WTIDCCN"].append(task.name)
        wtid["WTIDOPID"].append(f"{qm.name}USR")
        wtid["WTIDCORI"].append(f"{task.number:024X}")
        wtid["WTIDTRAN"].append(f"{qm.name}USR")
        wtid["WTIDUOWI"].append(f"{strt:016X}{task.number:032X}")
        gets = sum(b["gets"] for b in task.queues)
        puts = sum(b["puts"] for b in task.queues)
        persistent = sum(b["persistent_gets"] + b["persistent_puts"] for b in task.queues)
        forced = min(task.commits, persistent)
        shared_calls = sum(b["gets"] + b["puts"] for b in task.queues if b["shared"])
        commit_us = (
            task.commit_us
            if task.commit_us is not None
            else forced * COMMIT_FORCED_US + (task.commits - forced) * COMMIT_US
        )
        put(wtas, "WTASSTRT", task.started_us)
        put(wtas, "WTASMTHR", correlator_words[:8])
        put(wtas, "WTASWTAS", correlator_words[8:])
        put(wtas, "WTASWQCT", len(task.queues))
        put(wtas, "WTASCMET", commit_us)
        put(wtas, "WTASCMCT", task.commits * COMMIT_CPU_US)
        put(wtas, "WTASCMN", task.commits)
        put(wtas, "WTASJWN", persistent)
        put(wtas, "WTASJWET", persistent * 30)
        put(wtas, "WTASJWB", min(persistent * 1200, UINT32_MAX))  # a 4-byte counter
        put(wtas, "WTASJCN", forced)
        put(wtas, "WTASJCET", forced * 850)
        put(wtas, "WTASSUSN", forced)
        put(wtas, "WTASSUSE", forced * 850)
        put(wtas, "WTASOTN", task.other_requests)
        put(wtas, "WTASOTET", task.other_requests * OTHER_REQUEST_US)
        put(wtas, "WTASOTCT", task.other_requests * OTHER_REQUEST_CPU_US)
        put(wtas, "WTASDBCT", task.db2_requests)
        put(wtas, "WTASDBET", task.db2_requests * 120)
        put(wtas, "WTASDBES", task.db2_requests * 60)
        put(wtas, "WTASCSEC", shared_calls)
        put(wtas, "WTASSSTC", shared_calls * 8)
        put(wtas, "WTASINTS", start)
        put(wtas, "WTASINTE", end)
        put(wtas, "WTASGPO", gets + puts)
        put(wtas, "WTASGPN", puts)
        put(wtas, "WTASVER", 8)
        put(wtas, "WTASAEOT", False)
        largest = max(task.latch.items(), key=lambda kv: kv[1][1], default=(0, (0, 0, 0)))
        put(wtas, "WTASMLW", largest[1][1])
        put(wtas, "WTASMLWN", largest[0])
        for latch_class in range(1, 33):
            waits, total_us, max_us = task.latch.get(latch_class, (0, 0, 0))
            put(wtas, f"WTASLWET_{latch_class}", total_us)
            put(wtas, f"WTASLWN_{latch_class}", waits)
            put(wtas, f"WTASLMAX_{latch_class}", max_us)
        for b in task.queues:
            task_of.append(t)
            _queue_columns(wq, b, correlator, task, start, rel)
    out = {
        "WTID": {k: _column(v) for k, v in wtid.items()},
        "WTAS": {k: _column(v) for k, v in wtas.items()},
        "WQST": {k: _column(v) for k, v in wq.items()},
    }
    return out | {"task_of": np.array(task_of, dtype=np.int64)}


def _column(values: list) -> np.ndarray:
    if values and isinstance(values[0], str):
        return np.array(values, dtype=object)
    if values and isinstance(values[0], bool):
        return np.array(values, dtype=bool)
    return np.array(values, dtype=np.int64)


def _queue_columns(wq: dict, b: dict, correlator: str, task: Task, start: int, rel: str) -> None:
    def put(key: str, value) -> None:
        wq.setdefault(key, []).append(value)

    gets, puts, size = b["gets"], b["puts"], b["size"]
    specific = b["specific_gets"]
    put("WQVER", 9 if rel >= "932" else 8)
    put("CORREL", correlator)
    put("OBJNAME", b["name"])
    put("BASENAME", b["name"])
    put("OPENTIME", task.started_us + 1_000_000)
    put("QTYPE", MQQT_LOCAL)
    put("INDXTYPE", b["index_type"])
    put("QSGDISP", MQQSGD_SHARED if b["shared"] else MQQSGD_Q_MGR)
    for section, eye in (("OPENEYE", "OPEN"), ("CLOSEEYE", "CLOS"), ("GETEYE", "GET "), ("PUTEYE", "PUT ")):
        put(section, eye)
    for section, eye in (("PUT1EYE", "PUT1"), ("INQEYE", "INQ "), ("SETEYE", "SET "), ("CBEYE", "CB  ")):
        put(section, eye)
    put("OPENN", b["opens"])
    put("OPENET", b["opens"] * 30)
    put("OPENCT", b["opens"] * 20)
    put("OPENCF0", b["opens_without_cf"])
    put("GETN", gets)
    put("GETET", gets * GET_US + specific * 0 + b["skipped"] * 2)
    put("GETCT", gets * GET_CPU_US + b["skipped"])
    put("GETA", gets - specific)
    put("GETS", specific)
    put("GETSMSG", b["skipped"])
    put("GETPSN", b["page_set_gets"])
    put("GETPSET", b["page_set_gets"] * 250)
    put("GETJWN", b["persistent_gets"])
    put("GETJWET", b["persistent_gets"] * 30)
    put("PUTN", puts)
    put("PUTET", puts * PUT_US)
    put("PUTCT", puts * PUT_CPU_US)
    put("PUTJWN", b["persistent_puts"])
    put("PUTJWET", b["persistent_puts"] * 30)
    put("NPS", b["page_set"])
    put("CFSTRUCNAME", b["structure"])
    put("NBUFFPOOL", b["pool"])
    put("PUTBYTES", puts * size)
    put("GETBYTES", gets * size)
    put("VALIDPUT", puts)
    put("VALIDGET", gets)
    put("GETMAXMS", size if gets else 0)
    put("GETMINMS", size if gets else NO_MESSAGE)
    put("PUTMAXMS", size if puts else 0)
    put("PUTMINMS", size if puts else NO_MESSAGE)
    put("MAXLATNT", 4_000 if gets else 0)
    put("MINLATNT", 200 if gets else 0)
    put("TOTLATNT", gets * 1_500)
    put("USE_COUNT", 1)
    put("TOTAL_USE", 1)
    put("GETPMSG", b["persistent_gets"])
    put("PUTPMSG", b["persistent_puts"])
    put("MAXQDPTH", b["depth_max"])
    put("GETDVAL", gets)
    put("PUTDSQ", puts if b["shared"] else 0)
