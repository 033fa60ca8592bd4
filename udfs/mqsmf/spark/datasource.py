"""The Spark data source ``mqsmf``: SMF dumps read as typed rows, one structure per read.

Spark registers it by itself wherever the package is installed (``pyspark_mqsmf.DefaultSource``)::

    spark.read.format("mqsmf").option("structure", "QPST").load("dumps/")      # file, folder or glob
    spark.read.format("mqsmf").option("structure", "QPST").load(["a.dat", "b.dat"])
    CREATE TEMPORARY VIEW qpst USING mqsmf OPTIONS (path 'dumps/*.dat', structure 'QPST')

Options:

- ``path``: a file, a folder (every file below it) or a glob; several separated by commas.
  ``paths``: a JSON list of the same (what ``load([...])`` passes, and what the loader writes).
  No path at all reads nothing: an empty relation with the structure's schema.
- ``structure``: a structure of ``mqsmf.layouts`` (any case), or a pseudo-structure:
  ``_audit`` (records read, decoded, quarantined and skipped per file, SMF type and subtype),
  ``_quarantine`` (bad spans: file, digest, offset, length, type, subtype, reason, raw bytes),
  ``_load_sql`` (the statements of a load; see ``mqsmf.spark.plan``); the steps of a load, which
  act when read (``mqsmf.spark.staging``): ``_stage``, ``_commit``, ``_publish`` (yields the
  statements that complete it), ``_reveal`` (the load's audit last: readers see it whole), ``_finish``,
  and ``_release`` (ends a load's spool).
- ``framing``: auto (default), rdw, bdw or nordw.
- ``split_bytes``: RDW files larger than this are read as several partitions (default 64 MiB;
  0 = one partition per file).
- ``with_sha256``: 'true' adds a last column ``source_sha256``, the digest of the row's file.
- ``spool``: a folder where one load decodes each partition once for all its statements (set by
  the loader; see ``mqsmf.spark.spool``).

``mqsmf.spark.options.ReadOptions`` is these options, typed.

The schema is ``mqsmf.decode.arrow_schema(structure)`` in Spark types: unsigned 64-bit counters
``decimal(20,0)``, UTC times ``timestamp``, local times ``timestamp_ntz``. Rows are yielded as Arrow
record batches, exactly the batches ``mqsmf.read_file`` produces.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import StructType

from .. import load_lock
from ..warehouse import RAW_SCHEMA
from . import partitions, staging
from .options import ACTING, COMMIT, FINISH, LOAD_SQL, PUBLISH, RELEASE, REVEAL, STAGE, UNLOCK, ReadOptions
from .plan import BUSY, Step, plan_from_options, publish_statements
from .spool import release_spool

FORMAT = "mqsmf"
LOAD_SQL_SCHEMA = pa.schema(
    [("step", pa.int32()), ("label", pa.string()), ("statement", pa.string()), ("kind", pa.string())]
)
RELEASE_SCHEMA = pa.schema([("spool", pa.string()), ("released", pa.bool_())])
STAGE_SCHEMA = pa.schema([("table_name", pa.string()), ("files", pa.int32()), ("rows_added", pa.int64())])
COMMIT_SCHEMA = pa.schema([("load_id", pa.string()), ("files", pa.int32()), ("summary", pa.string())])
FINISH_SCHEMA = pa.schema([("folder", pa.string()), ("removed", pa.bool_())])
REVEAL_SCHEMA = pa.schema([("folder", pa.string()), ("revealed", pa.bool_())])
UNLOCK_SCHEMA = pa.schema([("lock", pa.string()), ("released", pa.bool_())])
ACTING_SCHEMAS = {
    LOAD_SQL: LOAD_SQL_SCHEMA,
    PUBLISH: LOAD_SQL_SCHEMA,
    STAGE: STAGE_SCHEMA,
    COMMIT: COMMIT_SCHEMA,
    REVEAL: REVEAL_SCHEMA,
    FINISH: FINISH_SCHEMA,
    RELEASE: RELEASE_SCHEMA,
    UNLOCK: UNLOCK_SCHEMA,
}


def spark_schema(schema: pa.Schema) -> StructType:
    """Spark schema whose Arrow form is exactly ``schema`` (Spark checks batches against it)."""
    out = from_arrow_schema(schema, prefer_timestamp_ntz=True)
    back = to_arrow_schema(out, timezone="UTC")
    if not back.equals(schema):
        raise TypeError(f"mqsmf: Arrow schema has no exact Spark equivalent:\n{schema}\n!=\n{back}")
    return out


class MqsmfDataSource(DataSource):
    """``format("mqsmf")``: see the module documentation for options."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def _target(self) -> str:
        name = self.options.get("structure")
        if name and name.lower() in ACTING:
            return name.lower()
        return partitions.structure_name(name)

    def arrow_schema(self) -> pa.Schema:
        target = self._target()
        if target in ACTING_SCHEMAS:
            return ACTING_SCHEMAS[target]
        return partitions.schema_of(target, ReadOptions.from_options(self.options).with_sha256)

    def schema(self) -> StructType:
        return spark_schema(self.arrow_schema())

    def reader(self, schema: StructType) -> DataSourceReader:
        target = self._target()
        if target == LOAD_SQL:
            return LoadSqlReader(self.options)
        if target == RELEASE:
            return ReleaseReader(self.options)
        if target in ACTING:
            return LoadStepReader(self.options, target)
        return StructureReader(self.options, target, self.arrow_schema())


class StructureReader(DataSourceReader):
    """Rows of one structure or of ``_audit`` / ``_quarantine``; a partition per file or range."""

    def __init__(self, options: Mapping[str, str], structure: str, schema: pa.Schema) -> None:
        self.structure = structure
        self.schema = schema
        self.read_options = ReadOptions.from_options(options)

    def partitions(self) -> list[InputPartition]:
        o = self.read_options
        files = partitions.expand_paths(list(o.paths))
        return [InputPartition(p) for p in partitions.plan_parts(files, o.framing, o.split_bytes, o.spool)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        part: partitions.FilePart = partition.value
        o = self.read_options
        try:
            for batch in partitions.part_batches(part, self.structure, o.spool, o.with_sha256):
                # The decoder builds batches with this exact schema; cast only if a version differs.
                yield batch if batch.schema.equals(self.schema) else batch.cast(self.schema)
        except OSError as e:
            raise OSError(f"mqsmf: {part.label}: {e}") from e


class LoadSqlReader(DataSourceReader):
    """The statements of one load (``_load_sql``), in order (``step``), for the dbt macro to run
    one by one; or, when another load kept the load lock past this one's wait, one ``busy`` step
    whose statement is the LoadBusy message (the macro raises it)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = dict(options)

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(None)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        try:
            steps = plan_from_options(self.options)
        except load_lock.LoadBusy as e:  # the macro raises it: a load that waited is no task failure
            steps = [Step("load lock", str(e), BUSY)]
        yield _statements(steps)


def _statements(steps) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict(
        {
            "step": list(range(1, len(steps) + 1)),
            "label": [s.label for s in steps],
            "statement": [s.sql for s in steps],
            "kind": [s.kind for s in steps],
        },
        schema=LOAD_SQL_SCHEMA,
    )


class LoadStepReader(DataSourceReader):
    """A step of a load that acts when read (``mqsmf.spark.staging``): ``_stage`` (a partition per
    task, run in parallel), ``_commit``, ``_publish`` (its rows: the statements that follow) and
    ``_reveal``, ``_finish``. Options: warehouse, raw_schema, load_id, loaded_at_us, spool, folder."""

    def __init__(self, options: Mapping[str, str], target: str) -> None:
        self.options = dict(options)
        self.target = target
        self.area = staging.Area(self.options["warehouse"], self.options.get("raw_schema") or RAW_SCHEMA)

    def partitions(self) -> list[InputPartition]:
        if self.target == STAGE:
            tasks = staging.plan_tasks(self.area, self.options["load_id"], self.options["spool"])
            return [InputPartition(t) for t in tasks]
        return [InputPartition(None)]

    def publish_steps(self) -> list:
        """What a ``_publish`` read does and returns: the steps that complete the publication."""
        return publish_statements(self.area, self.options.get("load_id") or None)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        o = self.options
        lock = load_lock.lock_path(self.area.db.parent, self.area.raw_schema)
        if self.target == UNLOCK:
            load_lock.release(lock, o["load_id"])
            yield pa.RecordBatch.from_pydict({"lock": [str(lock)], "released": [True]}, schema=UNLOCK_SCHEMA)
            return
        if o.get("load_id"):
            load_lock.renew(lock, o["load_id"])  # the plan advances: its lease starts again
        if self.target == STAGE:
            m = staging.stage(self.area, o["load_id"], int(o["loaded_at_us"]), o["spool"], partition.value)
            row = {
                "table_name": [m["table"]],
                "files": [len(m["moves"])],
                "rows_added": [sum(m["rows_added"].values())],
            }
            yield pa.RecordBatch.from_pydict(row, schema=STAGE_SCHEMA)
        elif self.target == COMMIT:
            summary = staging.commit(self.area, o["load_id"], int(o["loaded_at_us"]))
            row = {"load_id": [o["load_id"]], "files": [summary["staged_files"]], "summary": [json.dumps(summary)]}
            yield pa.RecordBatch.from_pydict(row, schema=COMMIT_SCHEMA)
        elif self.target == PUBLISH:
            yield _statements(self.publish_steps())
        elif self.target == REVEAL:
            revealed = staging.reveal(self.area, o["folder"])
            yield pa.RecordBatch.from_pydict({"folder": [o["folder"]], "revealed": [revealed]}, schema=REVEAL_SCHEMA)
        elif self.target == FINISH:
            removed = staging.finish(self.area, o["folder"])
            yield pa.RecordBatch.from_pydict({"folder": [o["folder"]], "removed": [removed]}, schema=FINISH_SCHEMA)


class ReleaseReader(DataSourceReader):
    """Removes a load's spool when read (the last statement of a load)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.spool = options.get("spool") or ""

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(self.spool)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        released = bool(partition.value) and release_spool(partition.value)
        yield pa.RecordBatch.from_pydict({"spool": [partition.value], "released": [released]}, schema=RELEASE_SCHEMA)
