"""The spool of a load: each input partition decoded once, for every statement of the load.

A load lands every structure from the same files, one SQL statement per table. Without help each
statement would decode every file again. With the data source's ``spool`` option a partition is
decoded once, with all structures, into parquet files under the spool folder (plus its audit
counts and quarantine rows); later reads of any structure from the same partition come from there
(``partitions.py`` decides what goes in; this module stores, reads and removes it). Parquet, so
that the load's statements read a structure's rows of every partition with Spark's own parquet
reader (:func:`structure_glob`), not one Python worker per partition. The spool
belongs to one load and is removed by that load's last statement (or, if the load died, by the
next load, once it is old).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SPOOL_MARKER = ".mqsmf-spool"
SPOOL_FORMAT = 3  # part of every spool entry's key; bump it when what an entry holds changes
SPOOL_MAX_AGE_SECONDS = 24 * 3600
DATES_FILE = "interval_dates.json"  # in a spool entry: {structure: [ISO dates of its rows]}


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
    return entry / f"rows-{structure}.parquet"


def structure_glob(spool: str, structure: str) -> str:
    """The path (a glob over the entries) of a structure's rows in every filled entry of a spool."""
    return str(_file(Path(spool) / "part-*", structure))


def read(entry: Path, structure: str) -> Iterator[pa.RecordBatch]:
    path = _file(entry, structure)
    if not path.exists():  # the partition has no rows of this structure
        return
    yield from pq.ParquetFile(str(path)).iter_batches()


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
    writers: dict[str, pq.ParquetWriter] = {}
    dates: dict[str, set[str]] = {}
    try:
        try:
            for name, batch in decoded:
                if name not in writers:
                    writers[name] = pq.ParquetWriter(str(_file(tmp, name)), batch.schema)
                writers[name].write_batch(batch)
                dates.setdefault(name, set()).update(batch_interval_dates(batch, name))
        finally:
            for w in writers.values():
                w.close()
        whole = tables()
        (tmp / DATES_FILE).write_text(json.dumps({k: sorted(v) for k, v in dates.items()}))
        for name, table in whole.items():
            pq.write_table(table, str(_file(tmp, name)))
        try:
            os.rename(tmp, entry)
        except OSError:
            if not entry.exists():
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # another task published the same partition first
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def batch_interval_dates(batch: pa.RecordBatch, structure: str) -> set[str]:
    """The UTC dates (ISO) of a structure batch's partition time (``mqsmf.warehouse``): the
    ``interval_date`` partitions its rows go to."""
    import pyarrow.compute as pc

    from ..warehouse import partition_time_columns

    cols = [batch.column(c) for c in partition_time_columns(structure)]
    when = pc.coalesce(*cols) if len(cols) > 1 else cols[0]
    days = pc.unique(pc.cast(pc.cast(when, pa.timestamp("us")), pa.date32()))  # UTC wall clock -> date
    return {d.isoformat() for d in days.to_pylist() if d is not None}


def spool_interval_dates(spool: str) -> dict[str, list[str]]:
    """{structure: sorted ISO dates} over every filled entry of a load's spool."""
    out: dict[str, set[str]] = {}
    root = Path(spool)
    if root.is_dir():
        for part in root.glob("part-*"):
            for name, dates in json.loads((part / DATES_FILE).read_text()).items():
                out.setdefault(name, set()).update(dates)
    return {k: sorted(v) for k, v in sorted(out.items())}


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
