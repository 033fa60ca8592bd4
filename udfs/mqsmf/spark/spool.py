"""The spool of a load: each input partition decoded once, for every statement of the load.

A load lands every structure from the same files, one SQL statement per table. Without help each
statement would decode every file again. With the data source's ``spool`` option a partition is
decoded once, with all structures, into Arrow IPC files under the spool folder (plus its audit
counts and quarantine rows); later reads of any structure from the same partition come from there
(``partitions.py`` decides what goes in; this module stores, reads and removes it). Arrow IPC,
uncompressed: written at the speed of a copy, read back memory-mapped, without decoding, by the
load's staging (``staging.py``, :func:`structure_files`). The spool
belongs to one load and is removed by that load's last statement (or, if the load died, by the
next load, once it is old).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pyarrow as pa

SPOOL_MARKER = ".mqsmf-spool"
SPOOL_FORMAT = 4  # part of every spool entry's key; bump it when what an entry holds changes
SPOOL_MAX_AGE_SECONDS = 24 * 3600


def spool_base() -> Path:
    """Where loads keep their spools: $MQSMF_SPOOL_DIR, else <temp>/mqsmf-spool."""
    return Path(os.environ.get("MQSMF_SPOOL_DIR") or Path(tempfile.gettempdir()) / "mqsmf-spool")


def spool_root(spool: str) -> Path:
    """The spool folder, created (with the marker that lets it be released) if need be."""
    root = Path(spool)
    root.mkdir(parents=True, exist_ok=True)
    (root / SPOOL_MARKER).touch()
    return root


def entry(spool: str, key: str) -> Path:
    """The folder of one partition's entry (it exists once the partition is decoded)."""
    return spool_root(spool) / f"part-{key}"


def _file(entry: Path, structure: str) -> Path:
    # Never a name starting with '_' (pseudo-structures do): Spark's file listing skips those.
    return entry / f"rows-{structure}.arrow"


def structure_files(spool: str, structure: str) -> list[Path]:
    """A structure's (or pseudo-structure's) files in every filled entry of a spool, in a stable order."""
    return sorted(Path(spool).glob(f"part-*/{_file(Path(), structure).name}"))


def read_table(path: Path, columns: list[str] | None = None) -> pa.Table:
    """A spool file, memory-mapped (only the columns asked for are ever touched)."""
    table = pa.ipc.open_file(pa.memory_map(str(path))).read_all()
    return table.select(columns) if columns is not None else table


def read(entry: Path, structure: str) -> Iterator[pa.RecordBatch]:
    path = _file(entry, structure)
    if not path.exists():  # the partition has no rows of this structure
        return
    yield from read_table(path).to_batches()


def fill(
    entry: Path,
    decoded: Iterable[tuple[str, pa.RecordBatch]],
    tables: Callable[[], dict[str, pa.Table]],
) -> None:
    """Write a partition's entry: the ``decoded`` (structure, batch) pairs, then what ``tables()``
    returns once they are all written (whole tables such as the audit counts and the quarantine
    rows). The entry is published atomically."""
    tmp = entry.with_name(f".tmp-{entry.name}-{uuid.uuid4().hex}")
    tmp.mkdir()
    writers: dict[str, pa.ipc.RecordBatchFileWriter] = {}
    try:
        try:
            for name, batch in decoded:
                if name not in writers:
                    writers[name] = pa.ipc.new_file(str(_file(tmp, name)), batch.schema)
                writers[name].write_batch(batch)
        finally:
            for w in writers.values():
                w.close()
        whole = tables()
        for name, table in whole.items():
            with pa.ipc.new_file(str(_file(tmp, name)), table.schema) as w:
                w.write_table(table)
        try:
            os.rename(tmp, entry)
        except OSError:
            if not entry.exists():
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # another task published the same partition first
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def release_spool(spool: str) -> bool:
    """Remove a load's spool; only folders this module created (they hold the marker file)."""
    root = Path(spool)
    if not (root / SPOOL_MARKER).is_file():
        return False
    shutil.rmtree(root, ignore_errors=True)
    return True


def prune_spools(base: Path | None = None, max_age_seconds: float = SPOOL_MAX_AGE_SECONDS) -> int:
    """Remove spools left behind by loads that died, once they are older than ``max_age_seconds``."""
    base = base or spool_base()
    if not base.is_dir():
        return 0
    removed = 0
    cutoff = time.time() - max_age_seconds
    for root in base.iterdir():
        marker = root / SPOOL_MARKER
        if marker.is_file() and marker.stat().st_mtime < cutoff and release_spool(str(root)):
            removed += 1
    return removed
