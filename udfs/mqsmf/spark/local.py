"""A load's acting reads run in this machine's processes when Spark itself runs on this machine.

A load's file work (decode into the spool, stage, commit, publish's moves, finish) is what the
``mqsmf`` data source does when Spark reads one of its acting pseudo-structures
(``mqsmf.spark.load``). With a ``local`` master those reads run in Spark's Python workers on this
machine anyway, but each also costs a temporary view and a planning round trip to a Python planner
process, and a new process's first reads start those processes and Spark's Python workers: about
4 of the 16 seconds a new process took to load the large day. :class:`LocalReads` calls the very
same reader (``MqsmfDataSource``: same partitions, same code, same files) in worker processes it
starts at once, while Spark opens its metastore; the statements that touch the catalog still run in
Spark. A cluster master, Spark Connect and dbt's load macro keep every read in Spark.

The workers are ``python -m mqsmf.spark.local`` processes fed pickled (reader, partition) pairs
on their standard input, not ``multiprocessing`` children: those import the caller's main script
again, which a script without an ``if __name__ == "__main__"`` guard would run again, Spark and all.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_EXCEPTION, Future, wait
from queue import Empty, SimpleQueue

import pyarrow as pa

_LENGTH = struct.Struct("!Q")


def runs_locally(spark) -> bool:
    """Whether the session's executors are this process's machine (a ``local`` master)."""
    try:
        return spark.sparkContext.master.startswith("local")
    except Exception:  # Spark Connect: no SparkContext here, reads go to the server
        return False


def local_parallelism(spark) -> int:
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:
        return os.cpu_count() or 1


def _send(stream, value) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream):
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def _serve() -> None:
    """A worker: read (reader, partition) pairs until end of input; answer each with ("ok", the
    partition's batches) or ("error", the exception, its traceback)."""
    import mqsmf.spark.datasource  # noqa: F401  (what every task unpickles, imported before the first)

    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write to the answers' stream
    while True:
        try:
            reader, partition = _receive(source)
        except EOFError:
            return
        try:
            answer = ("ok", list(reader.read(partition)))
        except BaseException as e:  # noqa: BLE001  (the caller re-raises it)
            answer = ("error", e, traceback.format_exc())
        try:
            _send(sink, answer)  # pickled whole before a byte is written
        except Exception:  # an exception whose arguments do not pickle: its text does
            _send(sink, ("error", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}"), answer[-1]))


class LocalReads:
    """Reads of the ``mqsmf`` data source done by its own reader: a partition per worker process
    at a time (a read of one partition: in this process). ``warehouse`` replaces Spark SQL's
    ``${spark.sql.warehouse.dir}`` in the options, as Spark would."""

    def __init__(self, warehouse: str, workers: int) -> None:
        self.warehouse = warehouse
        self.tasks: SimpleQueue = SimpleQueue()
        self.broken: str | None = None  # why a worker process ended early: no read runs after
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.processes = [
            subprocess.Popen(
                [sys.executable, "-m", "mqsmf.spark.local"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
            )
            for _ in range(workers)
        ]
        self.threads = [threading.Thread(target=self._feed, args=(p,), daemon=True) for p in self.processes]
        for t in self.threads:
            t.start()

    def _feed(self, process: subprocess.Popen) -> None:
        """Hand one worker the queued tasks one at a time (None: stop)."""
        while (task := self.tasks.get()) is not None:
            future, reader, partition = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                _send(process.stdin, (reader, partition))
                answer = _receive(process.stdout)
            except (EOFError, OSError):
                process.kill()
                self.broken = f"mqsmf load: a local worker process ended (exit status {process.wait()})"
                future.set_exception(RuntimeError(self.broken))
                return
            if answer[0] == "ok":
                future.set_result(answer[1])
            else:
                error = answer[1]
                error.add_note(f"in a local worker process:\n{answer[2]}")
                future.set_exception(error)

    def cancel(self) -> None:
        """Cancel the partitions queued and not started (the running ones finish): a load that
        failed reads nothing more, and close() need not wait for them."""
        while True:
            try:
                task = self.tasks.get_nowait()
            except Empty:
                return
            if task is None:  # closing already: leave the stop where it was
                self.tasks.put(None)
                return
            task[0].cancel()
            task[0].set_running_or_notify_cancel()  # wakes wait(): cancel() alone does not

    def close(self) -> None:
        for _ in self.threads:
            self.tasks.put(None)
        for t in self.threads:
            t.join()
        for p in self.processes:
            if p.stdin:
                p.stdin.close()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def options(self, options: Mapping[str, str], placeholder: str) -> dict[str, str]:
        return {k: v.replace(placeholder, self.warehouse) for k, v in options.items()}

    @staticmethod
    def reader(target: str, options: Mapping[str, str]):
        """The data source's reader of ``target`` with ``options``, as Spark would make it."""
        source = _source(target, options)
        return source.reader(source.schema())

    def read(self, target: str, options: Mapping[str, str], done: Callable[[int, int], None] | None = None) -> pa.Table:
        """All rows of a read of ``target`` with ``options``; ``done(finished, total)`` after each
        partition."""
        if self.broken:
            raise RuntimeError(self.broken)
        source = _source(target, options)
        reader = source.reader(source.schema())
        parts = reader.partitions()
        if len(parts) == 1:
            batches = list(reader.read(parts[0]))
            if done:
                done(1, 1)
        else:
            futures: list[Future] = []
            finished = [0]

            def count(_: Future) -> None:
                finished[0] += 1
                if done:
                    done(finished[0], len(futures))

            for part in parts:
                future: Future = Future()
                future.add_done_callback(count)
                futures.append(future)
                self.tasks.put((future, reader, part))
            wait(futures, return_when=FIRST_EXCEPTION)
            failed = [f for f in futures if f.done() and not f.cancelled() and f.exception() is not None]
            if failed:  # as a failed Spark job: nothing more starts, nothing still runs after
                for f in futures:
                    f.cancel()
                wait(futures)
                raise failed[0].exception()
            batches = [b for f in futures for b in f.result()]
        return pa.Table.from_batches(batches, schema=source.arrow_schema())


def _source(target: str, options: Mapping[str, str]):
    from .datasource import MqsmfDataSource

    return MqsmfDataSource({**options, "structure": target})


if __name__ == "__main__":
    _serve()
