"""One load at a time per warehouse: the load lock.

A load (``mqsmf load``, ``mqsmf run``, the Dagster jobs, ``load_files``, the dbt on-run-start
hook's SQL plan) holds the lock of its raw schema from before its recovery step to its end, so a
second load never runs beside it and never recovers (deletes) a load still running. The lock is a
folder made with one atomic ``mkdir`` beside the raw schema's tables::

    <spark.sql.warehouse.dir>/_mqsmf_load_<raw schema>.lock/owner.json

``owner.json`` names the load: its id, host, process (and that process's start time, so a reused
process number is not taken for the owner), what runs it and since when. A second load waits for
the lock up to ``MQSMF_LOAD_WAIT_SECONDS`` (default :data:`DEFAULT_WAIT_SECONDS`; ``--wait`` of
``mqsmf load``/``run``), then fails with :class:`LoadBusy` naming the running load (exit status 2).

A lock whose owner is gone is taken over: a process of this host that no longer runs (a load killed
with SIGKILL, a machine restarted); the SQL plan's owner is the Spark JVM that runs the plan's reads,
and its lock also lapses when the plan has not advanced for ``MQSMF_LOAD_LEASE_SECONDS`` (default
:data:`DEFAULT_LEASE_SECONDS`: a plan's steps renew it), since a dbt run stopped by an error leaves
the JVM running and never reaches the plan's last step. The lock lives on the warehouse's file
system: loads from several machines need a warehouse folder they all see (as they do anyway).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

WAIT_ENV = "MQSMF_LOAD_WAIT_SECONDS"
LEASE_ENV = "MQSMF_LOAD_LEASE_SECONDS"
DEFAULT_WAIT_SECONDS = 600.0
DEFAULT_LEASE_SECONDS = 3600.0
OWNER_FILE = "owner.json"
# A lock folder without its owner file (its maker died between the mkdir and the write): stale after this.
UNNAMED_GRACE_SECONDS = 30.0
POLL_SECONDS = 0.5

PROCESS = "process"  # the owner is the process that made the lock (mqsmf load/run, load_files)
SQL_PLAN = "sql plan"  # the owner is the JVM whose Python workers run the plan's reads


BUSY_PREFIX = "another load is running into this warehouse: "
BUSY_SUFFIX = "Remove the lock folder only if no load runs."


class LoadBusy(RuntimeError):
    """Another load holds the warehouse's load lock (the message names it)."""


def busy_message(text: str) -> str | None:
    """The LoadBusy message inside another process's error text (a load through the Thrift server
    is refused by its dbt macro, whose error dbt logs), or None."""
    start = text.find(BUSY_PREFIX)
    end = text.find(BUSY_SUFFIX, start)
    return text[start : end + len(BUSY_SUFFIX)] if start >= 0 and end >= 0 else None


@dataclass(frozen=True)
class Owner:
    load_id: str
    host: str
    pid: int
    pid_started: str  # /proc/<pid>/stat start time, "" where unknown
    kind: str
    command: str
    since: str  # ISO-8601 UTC

    def describe(self, lock: Path) -> str:
        who = "the Spark JVM" if self.kind == SQL_PLAN else "process"
        return f"load {self.load_id} ({self.command}, {who} {self.pid} on {self.host}, since {self.since}; lock {lock})"


def lock_path(warehouse: str | os.PathLike, raw_schema: str) -> Path:
    """The lock folder of ``raw_schema`` in the Spark warehouse folder ``warehouse``."""
    return Path(os.path.abspath(warehouse)) / f"_mqsmf_load_{raw_schema.lower()}.lock"


def wait_seconds(value: float | None = None) -> float:
    if value is not None:
        return max(0.0, float(value))
    return max(0.0, float(os.environ.get(WAIT_ENV) or DEFAULT_WAIT_SECONDS))


def _lease_seconds() -> float:
    return float(os.environ.get(LEASE_ENV) or DEFAULT_LEASE_SECONDS)


def _process_start(pid: int) -> str:
    try:  # field 22 of /proc/<pid>/stat, after the command in parentheses
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _alive(pid: int, started: str) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a process that ended but whose parent has not yet reaped it (a zombie) runs no load
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
            return False
    except (OSError, IndexError):
        pass
    return not started or _process_start(pid) in ("", started)


def read_owner(lock: Path) -> Owner | None:
    try:
        return Owner(**json.loads((lock / OWNER_FILE).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def running_load(lock: Path) -> str | None:
    """The load holding ``lock`` (described), or None when the lock is free or its owner is gone."""
    lock = Path(lock)
    if not lock.exists():
        return None
    with _guard(lock):
        current, stale = _lock_state(lock)
    return current.describe(lock) if current is not None and not stale else None


def _lock_state(lock: Path) -> tuple[Owner | None, str | None]:
    """Under the lock's guard: its owner (None when free or not yet named) and why that owner is
    gone (None while it may run)."""
    if not lock.exists():
        return None, None
    current = read_owner(lock)
    return current, stale_reason(lock, current)


def stale_reason(lock: Path, owner: Owner | None, now: float | None = None) -> str | None:
    """Why the lock's owner is gone (so the lock may be taken over), or None while it may run."""
    now = time.time() if now is None else now
    if owner is None:
        try:
            age = now - lock.stat().st_mtime
        except OSError:
            return None  # released meanwhile: the next mkdir decides
        return f"no owner written for {age:.0f} s" if age > UNNAMED_GRACE_SECONDS else None
    if owner.host == socket.gethostname() and not _alive(owner.pid, owner.pid_started):
        return f"{'JVM' if owner.kind == SQL_PLAN else 'process'} {owner.pid} no longer runs"
    if owner.kind == SQL_PLAN:
        try:
            idle = now - (lock / OWNER_FILE).stat().st_mtime
        except OSError:
            return None
        if idle > _lease_seconds():
            return f"its plan has not advanced for {idle:.0f} s ({LEASE_ENV})"
    return None


_held: dict[Path, int] = {}  # locks this process holds -> depth (a load inside `mqsmf run` nests)
_held_guard = threading.Lock()


@contextmanager
def _guard(lock: Path) -> Iterator[None]:
    """Serialises the short critical sections (make the lock and name its owner; judge an owner and
    break its lock; give a lock back) across processes, with an advisory lock on a file beside the
    lock that is never removed: without it, a load judging an old owner stale could break the lock
    another load has just made in its place."""
    fd = os.open(f"{lock}.guard", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _write_owner(lock: Path, owner: Owner) -> None:
    tmp = lock / f".{OWNER_FILE}.{uuid.uuid4().hex[:8]}"
    tmp.write_text(json.dumps(asdict(owner)))
    os.replace(tmp, lock / OWNER_FILE)


def acquire(
    lock: Path,
    load_id: str,
    *,
    wait: float | None = None,
    kind: str = PROCESS,
    pid: int | None = None,
    command: str | None = None,
    say: Callable[[str], None] | None = None,
    asked: float | None = None,
) -> bool:
    """Take ``lock`` for ``load_id``, waiting up to ``wait`` seconds (default :func:`wait_seconds`)
    for a running load; True when this call made it, False when this process already held it (a
    nested load). Raises LoadBusy when the wait ends first, saying it waited ``asked`` seconds
    (default ``wait``: a load through the Thrift server waits the rest of its client's --wait)."""
    lock = Path(lock)
    with _held_guard:
        if kind == PROCESS and lock in _held:
            _held[lock] += 1
            return False
    limit = wait_seconds(wait)
    deadline = time.monotonic() + limit
    pid = os.getpid() if pid is None else pid
    owner = Owner(
        load_id, socket.gethostname(), pid, _process_start(pid), kind,
        command or " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])[:200] or "python",
        datetime.now(UTC).isoformat(timespec="seconds"),
    )  # fmt: skip
    said = False
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        with _guard(lock):
            current, reason = _lock_state(lock)
            if kind == PROCESS and current is not None and _is_this_process(current):
                return False  # held by this process already, under another spelling of its path
            # Free, stale, or this load's own lock (its plan read again): take it.
            if not lock.exists() or reason or (current is not None and current.load_id == load_id):
                if reason:
                    if say:
                        say(f"mqsmf load: taking over the load lock {lock}: {reason}")
                    shutil.rmtree(lock, ignore_errors=True)
                lock.mkdir(exist_ok=True)
                _write_owner(lock, owner)
                break
        if time.monotonic() >= deadline:
            running = current.describe(lock) if current else f"a load starting (lock {lock})"
            raise LoadBusy(
                f"{BUSY_PREFIX}{running}; waited {limit if asked is None else asked:.0f} s ({WAIT_ENV} or --wait sets how long). {BUSY_SUFFIX}"
            )
        if say and not said:
            said = True
            say(f"mqsmf load: waiting for {current.describe(lock) if current else 'a load starting'}")
        time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())) or POLL_SECONDS / 10)
    if kind == PROCESS:
        with _held_guard:
            _held[lock] = 1
    return True


def _is_this_process(owner: Owner) -> bool:
    pid = os.getpid()
    return (
        owner.kind == PROCESS
        and owner.host == socket.gethostname()
        and owner.pid == pid
        and (owner.pid_started in ("", _process_start(pid)))
    )


def renew(lock: Path, load_id: str) -> None:
    """A step of the SQL plan ran: its lease starts again (only the owning load's)."""
    owner = read_owner(Path(lock))
    if owner is not None and owner.load_id == load_id:
        os.utime(Path(lock) / OWNER_FILE)


def release(lock: Path, load_id: str) -> None:
    """Give the lock back (only the load that holds it; a nested hold only counts down)."""
    lock = Path(lock)
    with _held_guard:
        depth = _held.get(lock, 0)
        if depth > 1:
            _held[lock] = depth - 1
            return
        _held.pop(lock, None)
    with _guard(lock):
        owner = read_owner(lock)
        if owner is not None and owner.load_id == load_id:
            shutil.rmtree(lock, ignore_errors=True)


@contextmanager
def holding(
    lock: Path, load_id: str, *, wait: float | None = None, say: Callable[[str], None] | None = None
) -> Iterator[None]:
    """The lock held by this process for the ``with`` block."""
    made = acquire(lock, load_id, wait=wait, say=say)
    try:
        yield
    finally:
        if made:
            release(lock, load_id)
        else:  # nested: the outer hold gives it back
            with _held_guard:
                if _held.get(Path(lock), 0) > 1:
                    _held[Path(lock)] -= 1
