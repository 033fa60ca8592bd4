"""The file side of a load: staging the new rows as parquet files, the commit, and publishing them
by moving the files into the raw tables' partition folders. No Spark here: the data source runs
these in its Python workers (``_stage``, ``_commit``, ``_publish``, ``_reveal``, ``_finish``; with a
local master, the loader's own worker processes: ``mqsmf.spark.local``), and the load's SQL
(``mqsmf.spark.plan``) registers the partitions (which refreshes Spark's view of the tables).

Where things are (one file system, so a move is an atomic rename)::

    <db>/<table>/<column>=<value>/part-*.parquet       a raw table's partitions (Spark's own places)
    <db>/_mqsmf_loads/<load id>/                       a load in progress ('_': Spark never lists it)
        tasks.json                                      the staging tasks the load planned
        staged/<table>/<column>=<value>/part-<load id>-<piece>.parquet
        manifest-<table>.json                           a finished task: its files and rows added
        COMMITTED                                       the commit

``<db>`` is ``<spark.sql.warehouse.dir>/<raw schema>.db``, where Spark puts a schema created without
a location (the loader creates its schemas so). The warehouse must be a local (or mounted) folder.

A load adds files and never rewrites one: every partition it adds rows to gets new files (one
per spool file, written in parallel), holding only rows whose natural key the partition (and the load itself) does not already have.
Staging reads the new rows' keys from the spool and the keys already in the partitions of the
load's dates (of quarantine: in the whole table), keeps the first row of each new key (by file,
offset and entry), and writes those rows, with the load's columns, per partition. Memory is the
keys of one table plus one spool file at a time.

Crash safety. Nothing outside the load's folder changes before ``COMMITTED`` exists, and it is
written (atomically) only once every task's manifest is there. Publishing moves each staged file
to its partition folder (a file already moved is not there to move again), then the SQL adds the
partitions to the metastore (``ADD IF NOT EXISTS``, which refreshes the table); the load's audit
and load dates come last (:data:`REVEALED_LAST`: readers that keep to audited loads see the load
whole or not at all); the load's folder is removed last, its commit marker first. Every load starts by publishing (again) every committed
load folder it finds, and deleting every other one (a load that died before its commit: one load
runs at a time). A load killed anywhere, then run again, leaves the rows of one clean load.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..layouts import layouts
from ..pcf import reader as events
from ..warehouse import (
    AUDIT_SCHEMA,
    AUDIT_TABLE,
    LOAD_DATES_TABLE,
    QUARANTINE_TABLE,
    ident,
    literal,
    partition_column,
    partition_time,
    partition_time_columns,
    qualified,
    raw_table,
    raw_tables,
)
from . import partitions
from .spool import read_table, structure_files

LOADS_FOLDER = "_mqsmf_loads"
# A load's rows are visible to readers that keep to audited loads (the dbt staging models) once its
# audit rows are: these tables' files are moved last, after every other table's partitions are
# registered, so such a reader sees a load whole or not at all. The load dates before the audit: an
# incremental build that sees a load's rows sees the dates they changed.
REVEALED_LAST = (LOAD_DATES_TABLE, AUDIT_TABLE)
REVEAL_LABEL = "reveal load"
FINISH_LABEL = "finish load"
STAGED = "staged"
TASKS = "tasks.json"
COMMITTED = "COMMITTED"
# Test hook (as in mqsmf.spark.load): SIGKILL the whole load (driver, JVM, workers) right after the
# point this names, e.g. "move smf_raw.qpst" (that table's files moved while publishing).
KILL_AFTER_ENV = "MQSMF_TEST_KILL_AFTER_STEP"
WRITERS = min(4, os.cpu_count() or 1)  # threads writing a large table's files
ORDER = ("source_file", "record_offset", "entry_index")  # a load keeps the first row of a key
RANK, FILE, ROW, DAY, WHEN = "_mqsmf_rank", "_mqsmf_file", "_mqsmf_row", "_mqsmf_day", "_mqsmf_when"


def local_folder(uri: str) -> Path:
    """A folder from Spark's warehouse setting (``file:/x``, ``file:///x`` or ``/x``)."""
    if uri.startswith("file:"):
        uri = "/" + uri[len("file:") :].lstrip("/")
    elif "://" in uri:
        raise ValueError(f"mqsmf load: the warehouse {uri} is not a local folder (the loader writes files there)")
    return Path(uri)


@dataclass(frozen=True)
class Area:
    """The folders of one raw schema's tables and of its loads in progress."""

    warehouse: str  # spark.sql.warehouse.dir
    raw_schema: str

    @property
    def db(self) -> Path:
        return local_folder(self.warehouse) / f"{self.raw_schema.lower()}.db"

    @property
    def loads(self) -> Path:
        return self.db / LOADS_FOLDER

    def load_dir(self, load_id: str) -> Path:
        return self.loads / load_id

    def partition(self, table: str, value: str) -> Path:
        """A raw table's partition folder (relative to ``db``, the form manifests keep)."""
        return Path(table) / f"{partition_column(table)}={value}"

    def check(self) -> None:
        if not self.db.is_dir():
            raise FileNotFoundError(
                f"mqsmf load: the folder of schema {self.raw_schema}, {self.db}, does not exist: the raw "
                "schema must be where Spark creates it (under spark.sql.warehouse.dir, no LOCATION)"
            )


def pending_loads(area: Area) -> list[str]:
    """Load folders left in the area (none between loads)."""
    return sorted(p.name for p in area.loads.iterdir()) if area.loads.is_dir() else []


def kill_point(label: str) -> None:
    """The test hook: kill the load (its driver's process group and this worker's) after ``label``."""
    if os.environ.get(KILL_AFTER_ENV) != label:
        return
    pid = os.getpid()
    while pid > 1:  # up to the JVM: its process group is the driver's
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if Path(f"/proc/{pid}/comm").read_text().strip() == "java":
            os.killpg(os.getpgid(pid), signal.SIGKILL)
            break
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _write_json(path: Path, value) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    tmp.write_text(json.dumps(value))
    os.replace(tmp, path)


def _parquet_files(folder: Path) -> list[str]:
    """Data files of a partition folder (Spark's listing rules: no '.' or '_' names)."""
    if not folder.is_dir():
        return []
    return sorted(str(p) for p in folder.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


# --------------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------------


def plan_tasks(area: Area, load_id: str, spool: str) -> list[str]:
    """The load's staging tasks, largest first (a task per table with rows, audit, quarantine),
    recorded in the load's folder for the commit to check."""
    area.check()
    sizes = {}
    for name in [*sorted(layouts()), events.STRUCTURE, partitions.AUDIT, partitions.QUARANTINE]:
        files = structure_files(spool, name)
        if files or name in partitions.PSEUDO:
            sizes[name] = sum(f.stat().st_size for f in files)
    tasks = sorted(sizes, key=lambda n: (-sizes[n], n))
    folder = area.load_dir(load_id)
    folder.mkdir(parents=True, exist_ok=True)
    _write_json(folder / TASKS, tasks)
    return tasks


def _task_table(task: str) -> str:
    return {partitions.AUDIT: AUDIT_TABLE, partitions.QUARANTINE: QUARANTINE_TABLE}.get(task) or raw_table(task)


def stage(area: Area, load_id: str, loaded_at_us: int, spool: str, task: str) -> dict:
    """Run one staging task; returns (and writes, last) its manifest."""
    loaded_at = datetime.fromtimestamp(loaded_at_us / 1e6, UTC)
    if task == partitions.AUDIT:
        manifest = _stage_audit(area, load_id, loaded_at, spool)
    elif task == partitions.QUARANTINE:
        manifest = _stage_quarantine(area, load_id, loaded_at, spool)
    else:
        manifest = _stage_structure(area, load_id, loaded_at, spool, task)
    _write_json(area.load_dir(load_id) / f"manifest-{manifest['table']}.json", manifest)
    kill_point(f"stage {area.raw_schema}.{manifest['table']}")
    return manifest


class _Staged:
    """The files a task writes: per partition, one per piece (a spool file's rows, written by a
    thread of their own), each written whole under a temporary name, then named."""

    def __init__(self, area: Area, load_id: str, table: str) -> None:
        self.area, self.load_id, self.table = area, load_id, table
        schema = raw_tables()[table]
        self.schema = schema.remove(len(schema) - 1)  # files lack the partition column
        self.strings = [f.name for f in self.schema if pa.types.is_string(f.type)]  # dictionary-encoded
        self.files: list[tuple[str, Path]] = []
        self.lock = threading.Lock()

    def write(self, value: str, table: pa.Table, piece: int = 0) -> None:
        final = self.area.load_dir(self.load_id) / STAGED / self.area.partition(self.table, value)
        final = final / f"part-{self.load_id}-{piece:05d}.parquet"
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}")
        table = table.select(self.schema.names).cast(self.schema)
        pq.write_table(table, str(tmp), use_dictionary=self.strings)
        os.replace(tmp, final)
        with self.lock:
            self.files.append((value, final))

    def manifest(self, rows_added: dict[str, int] | None = None, totals: dict[str, int] | None = None) -> dict:
        moves = [
            [
                str(final.relative_to(self.area.load_dir(self.load_id))),
                str(self.area.partition(self.table, value) / final.name),
            ]
            for value, final in sorted(self.files)
        ]
        return {"table": self.table, "moves": moves, "rows_added": rows_added or {}, "totals": totals or {}}


def _load_columns(table: pa.Table, load_id: str, loaded_at: datetime) -> pa.Table:
    n = table.num_rows
    table = table.append_column("load_id", pa.repeat(pa.scalar(load_id, pa.string()), n))
    return table.append_column("loaded_at", pa.repeat(pa.scalar(loaded_at, pa.timestamp("us", tz="UTC")), n))


def _new_first(new: pa.Table, existing: pa.Table, key: list[str]) -> np.ndarray:
    """Indices of ``new``'s rows (in ``new``'s order) that are the first with their key and whose
    key ``existing`` does not have. NULL equals NULL in a key (grouping, not a join)."""
    ranks = pa.array(np.arange(new.num_rows, dtype=np.int64))
    both = pa.concat_tables(
        [
            new.select(key).append_column(RANK, ranks),
            existing.select(key)
            .cast(new.select(key).schema)
            .append_column(RANK, pa.array(np.full(existing.num_rows, -1, dtype=np.int64))),
        ]
    )
    first = both.group_by(key, use_threads=False).aggregate([(RANK, "min")]).column(f"{RANK}_min")
    first = first.to_numpy()
    return np.sort(first[first >= 0])


def _keys_of_files(files: Iterable[str], columns: list[str]) -> pa.Table | None:
    """The key columns of a raw table's files (what a load's rows are compared with)."""
    tables = []
    for f in files:
        try:
            tables.append(pq.read_table(f, columns=columns))
        except (OSError, pa.ArrowException) as e:
            raise OSError(f"mqsmf load: cannot read the raw table's file {f}: {e}") from e
    return pa.concat_tables(tables) if tables else None


def key_columns(structure: str) -> list[str]:
    """The columns of a structure row's natural key, with :data:`WHEN` (the coalesced partition time columns) standing for the partition time (``warehouse.partition_time``)."""
    if structure == events.STRUCTURE:
        return list(events.NATURAL_KEY)
    return ["qmgr", "smf_subtype", WHEN, *layouts()[structure].natural_key]


def _with_when(table: pa.Table, structure: str) -> pa.Table:
    when = partition_time(structure, {c: table.column(c) for c in partition_time_columns(structure)})
    table = table.append_column(WHEN, when)
    return table.append_column(DAY, pc.cast(pc.cast(when, pa.timestamp("us")), pa.date32()))


def _stage_structure(area: Area, load_id: str, loaded_at: datetime, spool: str, structure: str) -> dict:
    table_name = raw_table(structure)
    files = structure_files(spool, structure)
    names = partitions.schema_of(structure).names
    key = key_columns(structure)
    stored = [c for c in key if c != WHEN] + [c for c in partition_time_columns(structure) if c not in key]
    order = [c for c in ORDER if c in names]
    read = list(dict.fromkeys([*stored, *order]))
    pieces = []
    for i, f in enumerate(files):
        t = read_table(f, read)
        t = t.append_column(FILE, pa.array(np.full(t.num_rows, i, dtype=np.int32)))
        pieces.append(t.append_column(ROW, pa.array(np.arange(t.num_rows, dtype=np.int64))))
    new = _with_when(pa.concat_tables(pieces), structure)
    new = new.sort_by([(c, "ascending") for c in [*order, FILE, ROW]])
    days = sorted(d for d in pc.unique(new.column(DAY)).to_pylist() if d is not None)
    existing_files = [f for d in days for f in _parquet_files(area.db / area.partition(table_name, d.isoformat()))]
    existing = _keys_of_files(existing_files, stored)
    existing = _with_when(existing, structure) if existing is not None else new.slice(0, 0)
    keep = new.take(_new_first(new, existing, key))
    file_of, row_of = keep.column(FILE).to_numpy(), keep.column(ROW).to_numpy()
    if keep.column(DAY).null_count:  # the decoders quarantine what has no time (decode.NO_TIME)
        raise ValueError(
            f"mqsmf load: {keep.column(DAY).null_count} {structure} rows without a time (a decoder defect)"
        )
    day_of = keep.column(DAY).cast(pa.int32()).to_numpy()  # days since 1970-01-01
    rows_added = {d.isoformat(): 0 for d in days}
    for d, n in zip(*np.unique(day_of, return_counts=True), strict=True):
        rows_added[_iso_day(d)] = int(n)
    by_file = np.lexsort((row_of, file_of))
    file_of, row_of, day_of = file_of[by_file], row_of[by_file], day_of[by_file]
    bounds = np.searchsorted(file_of, np.arange(len(files) + 1))
    staged = _Staged(area, load_id, table_name)

    def write(i: int) -> None:  # a spool file's new rows, per partition
        rows, row_days = row_of[bounds[i] : bounds[i + 1]], day_of[bounds[i] : bounds[i + 1]]
        if not len(rows):
            return
        table = read_table(files[i])
        if len(rows) < table.num_rows:  # else every row, in order
            table = table.take(pa.array(rows))
        table = _load_columns(table, load_id, loaded_at)
        days_here = np.unique(row_days)
        for d in days_here:
            part = table if len(days_here) == 1 else table.filter(pa.array(row_days == d))
            staged.write(_iso_day(d), part, i)

    with ThreadPoolExecutor(max_workers=WRITERS) as pool:  # Arrow releases the GIL: the cores write
        list(pool.map(write, range(len(files))))
    return staged.manifest(rows_added)


def _iso_day(days_since_epoch) -> str:
    return (date(1970, 1, 1) + timedelta(days=int(days_since_epoch))).isoformat()


def _stage_audit(area: Area, load_id: str, loaded_at: datetime, spool: str) -> dict:
    """One row per file x type x subtype (a large file's byte ranges summed)."""
    files = structure_files(spool, partitions.AUDIT)
    group = ["source_file", "smf_type", "smf_subtype"]
    staged = _Staged(area, load_id, AUDIT_TABLE)
    if files:
        rows = pa.concat_tables([read_table(f) for f in files])
        how = {f.name: "sum" if f.name.startswith("records_") else "max" for f in AUDIT_SCHEMA if f.name not in group}
        summed = rows.group_by(group, use_threads=False).aggregate(list(how.items()))
        summed = summed.rename_columns(
            [n.removesuffix(f"_{how[n.rsplit('_', 1)[0]]}") if n not in group else n for n in summed.column_names]
        )
        staged.write(
            loaded_at.date().isoformat(),
            _load_columns(summed.select(AUDIT_SCHEMA.names).cast(AUDIT_SCHEMA), load_id, loaded_at),
        )
        sizes = dict(zip(summed.column("source_file").to_pylist(), summed.column("file_size").to_pylist(), strict=True))
        totals = {"files": len(sizes), "bytes": sum(v or 0 for v in sizes.values())}
        totals |= {c: pc.sum(summed.column(c)).as_py() or 0 for c in how if c.startswith("records_")}
        return staged.manifest(totals=totals)
    return staged.manifest()


def _stage_quarantine(area: Area, load_id: str, loaded_at: datetime, spool: str) -> dict:
    """The load's bad spans that no load recorded before (key: file digest, offset, length)."""
    files = structure_files(spool, partitions.QUARANTINE)
    staged = _Staged(area, load_id, QUARANTINE_TABLE)
    rows = pa.concat_tables([read_table(f) for f in files]) if files else None
    if rows is not None and rows.num_rows:
        key = ["source_sha256", "offset", "length"]
        rows = rows.sort_by([("source_file", "ascending")])
        table_dir = area.db / QUARANTINE_TABLE
        existing_files = (
            [f for d in sorted(table_dir.iterdir()) if d.is_dir() for f in _parquet_files(d)]
            if table_dir.is_dir()
            else []
        )
        existing = _keys_of_files(existing_files, key)
        keep = rows.take(_new_first(rows, existing if existing is not None else rows.slice(0, 0), key))
        if keep.num_rows:
            staged.write(loaded_at.date().isoformat(), _load_columns(keep, load_id, loaded_at))
        return staged.manifest(totals={"quarantine_rows_inserted": keep.num_rows})
    return staged.manifest()


# --------------------------------------------------------------------------------------------
# Commit, publish, finish
# --------------------------------------------------------------------------------------------


def _manifests(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("manifest-*.json"))]


def commit(area: Area, load_id: str, loaded_at_us: int) -> dict:
    """Stage the load's ``smf_load_dates`` rows (table x date of its rows, with the rows it adds),
    then write the commit marker; only if every planned task finished. Returns what the load
    read and adds: the files staged, its audit's totals, quarantine rows and rows per table."""
    folder = area.load_dir(load_id)
    tasks = json.loads((folder / TASKS).read_text())
    manifests = {m["table"]: m for m in _manifests(folder)}
    missing = [t for t in tasks if _task_table(t) not in manifests]
    if missing:
        raise RuntimeError(f"mqsmf load {load_id}: staging did not finish for {', '.join(missing)}: not committed")
    loaded_at = datetime.fromtimestamp(loaded_at_us / 1e6, UTC)
    dates = [(t, d, n) for t, m in sorted(manifests.items()) for d, n in sorted(m["rows_added"].items())]
    staged = _Staged(area, load_id, LOAD_DATES_TABLE)
    if dates:
        rows = pa.table(
            {
                "table_name": pa.array([t for t, _, _ in dates], pa.string()),
                "interval_date": pa.array([date.fromisoformat(d) for _, d, _ in dates], pa.date32()),
                "rows_added": pa.array([n for _, _, n in dates], pa.int64()),
            }
        )
        staged.write(loaded_at.date().isoformat(), _load_columns(rows, load_id, loaded_at))
    _write_json(folder / f"manifest-{LOAD_DATES_TABLE}.json", staged.manifest())
    _write_json(folder / COMMITTED, {"load_id": load_id})
    summary = {"staged_files": sum(len(m["moves"]) for m in _manifests(folder))}
    for m in manifests.values():
        summary |= m.get("totals", {})
    summary["rows_inserted"] = {t: sum(m["rows_added"].values()) for t, m in manifests.items() if m["rows_added"]}
    return summary


def _move(area: Area, folder: Path, manifest: dict) -> None:
    """Move a table's staged files of a load into their partition folders."""
    for staged, live in manifest["moves"]:
        source, target = folder / staged, area.db / live
        if source.exists():  # else moved already, by a publication that died later
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
    kill_point(f"move {area.raw_schema}.{manifest['table']}")


def _register(area: Area, manifest: dict) -> list[tuple[str, str]]:
    """The statement that registers the partitions a table's moved files are in (none if it has none)."""
    table = manifest["table"]
    values = sorted({Path(live).parent.name.split("=", 1)[1] for _, live in manifest["moves"]})
    if not values:
        return []
    column = ident(partition_column(table))
    specs = " ".join(
        f"PARTITION ({column} = {literal(v)}) LOCATION {literal(str(area.db / area.partition(table, v)))}"
        for v in values
    )
    # Also for partitions that exist: the command refreshes Spark's cached listing of the table.
    name = qualified(area.raw_schema, table)
    return [(f"publish {area.raw_schema}.{table}", f"ALTER TABLE {name} ADD IF NOT EXISTS {specs}")]


def publish(area: Area, load_id: str | None = None) -> list[tuple[str, str]]:
    """Move the staged files of committed loads into their partitions: of ``load_id`` (which must
    have committed), or (recovering, ``load_id`` None) of every committed load folder, deleting
    the others (loads that died before their commit). Returns the (label, statement) pairs that
    complete the publication: register the partitions (refreshing the tables), reveal the load
    (:func:`reveal`: its :data:`REVEALED_LAST` tables, then theirs), remove the folders."""
    if not area.loads.is_dir():
        return []
    folders = [area.load_dir(load_id)] if load_id else sorted(p for p in area.loads.iterdir() if p.is_dir())
    out: list[tuple[str, str]] = []
    for folder in folders:
        if not (folder / COMMITTED).is_file():
            if load_id:
                raise RuntimeError(f"mqsmf load {load_id}: not committed, nothing to publish")
            shutil.rmtree(folder, ignore_errors=True)  # died before its commit: never published
            continue
        manifests = {m["table"]: m for m in _manifests(folder)}
        for table, m in manifests.items():
            if table not in REVEALED_LAST:
                _move(area, folder, m)
                out += _register(area, m)
        out.append((f"{REVEAL_LABEL} {folder.name}", str(folder)))
        for table in REVEALED_LAST:
            if table in manifests:
                out += _register(area, manifests[table])
        out.append((f"{FINISH_LABEL} {folder.name}", str(folder)))
    return out


def _load_folder(area: Area, folder: str) -> Path:
    path = Path(folder)
    if path.parent != area.loads:
        raise ValueError(f"mqsmf load: {folder} is not a load folder of {area.loads}")
    return path


def reveal(area: Area, folder: str) -> bool:
    """Move a committed load's :data:`REVEALED_LAST` files into place, once every other table's
    partitions are registered: readers that keep to loads with audit rows (the dbt staging models,
    macro ``published_rows``) see the load from now on, whole."""
    path = _load_folder(area, folder)
    manifests = {m["table"]: m for m in _manifests(path)}
    for table in REVEALED_LAST:
        if table in manifests:
            _move(area, path, manifests[table])
    return True


def finish(area: Area, folder: str) -> bool:
    """Remove a published load's folder (its commit marker first: a half-removed folder is then a
    dead load's, which the next load deletes, its files being moved already)."""
    path = _load_folder(area, folder)
    (path / COMMITTED).unlink(missing_ok=True)
    shutil.rmtree(path, ignore_errors=True)
    return True
