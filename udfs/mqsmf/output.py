"""Writing decoded structures: JSON lines, CSV and parquet, one file per structure.

JSON lines and CSV are for people and spreadsheets: times are written as ISO-8601 date-times
``YYYY-MM-DD HH:MM:SS.fff`` (a space, milliseconds, no zone suffix: the form Excel, LibreOffice and
Google Sheets read as a date-time), in UTC except the ``*_local`` columns (the system's local
time). With ``raw_times`` the rows are the raw decode instead: clocks as the 64-bit STCK/TOD values
the records hold (the JSON lines keyed by IBM field names, each STCK field with a ``<name>_utc``
beside it: diffable against any other decoder). Parquet keeps typed timestamps."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .codecs import TOD_UNIX_EPOCH
from .layouts import layouts

FORMATS = ("jsonl", "csv", "parquet")
# Context keys of the JSON lines, in order (the expected/ golden files use these).
JSON_CONTEXT = (
    "smf_type",
    "smf_subtype",
    "record_offset",
    "system_id",
    "qmgr",
    "smf_rel",
    "qsg",
    "smf_date",
    "smf_time_hundredths",
    "qwhs_stck",
    "interval_start",
    "interval_duration_raw",
)


# ISO-8601 with a space and milliseconds (Arrow's %S of a microsecond timestamp is SS.ffffff).
TIME_FORMAT, TIME_LENGTH = "%Y-%m-%d %H:%M:%S", len("YYYY-MM-DD HH:MM:SS.fff")


def readable_times(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with every timestamp column as ISO-8601 text (``TIME_FORMAT``, milliseconds), in the
    column's own zone (UTC, or local for the naive ``*_local`` columns); NULL stays NULL."""
    columns, fields = [], []
    for field, column in zip(batch.schema, batch.columns, strict=True):
        if pa.types.is_timestamp(field.type):
            micros = pc.cast(column, pa.timestamp("us", tz=field.type.tz))
            column = pc.utf8_slice_codeunits(pc.strftime(micros, format=TIME_FORMAT), 0, TIME_LENGTH)
            field = pa.field(field.name, pa.string(), field.nullable, field.metadata)
        columns.append(column)
        fields.append(field)
    return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields, metadata=batch.schema.metadata))


def _stck_iso(v: int | None) -> str | None:
    if not v or v == 0xFFFFFFFFFFFFFFFF:
        return None
    us = (v >> 12) - (TOD_UNIX_EPOCH >> 12)
    return datetime.fromtimestamp(us // 1_000_000, UTC).replace(microsecond=us % 1_000_000).isoformat()


def json_records(name: str, batch: pa.RecordBatch):
    """Dicts keyed by IBM names from a RAW-mode batch; STCK fields also get a ``<name>_utc`` key."""
    lay = layouts().get(name)
    if lay is None:  # event messages of a dmpmqmsg dump (mqsmf.pcf): their typed columns as they are
        for row in batch.to_pylist():
            yield {"structure": name, **row}
        return
    fields = [(f.column, f.name, f.kind) for f in lay.data_fields]
    flag_names = [fl.name for fl in lay.flags]
    for row in batch.to_pylist():
        out = {"structure": name}
        out.update({k: row[k] for k in JSON_CONTEXT})
        out["source_file"] = row["source_file"]
        if lay.entry_start is not None:
            out["entry_index"] = row["entry_index"]
        for col, ibm, kind in fields:
            out[ibm] = row[col]
            if kind == "stck":
                out[f"{ibm}_utc"] = _stck_iso(row[col])
        for fl in flag_names:
            out[fl] = row[fl]
        yield out


def _json_value(v):
    """Values JSON has no type for: times as ISO-8601, anything else as its text."""
    return v.isoformat() if hasattr(v, "isoformat") else str(v)


def write_json_lines(path: str, items, append: bool = False) -> int:
    n = 0
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for name, batch in items:
            for rec in json_records(name, batch):
                f.write(json.dumps(rec, ensure_ascii=False, default=_json_value))
                f.write("\n")
                n += 1
    return n


class TableSink:
    """Collects batches per structure and writes one file per structure into a folder.

    ``raw_times``: the batches are the raw decode (clock values as integers) and are written as they
    are; otherwise JSON lines and CSV get readable times (``readable_times``)."""

    def __init__(self, out_dir: str, fmt: str, raw_times: bool = False) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        self.out_dir, self.fmt, self.raw_times = out_dir, fmt, raw_times
        os.makedirs(out_dir, exist_ok=True)
        self.writers: dict[str, object] = {}
        self.rows: dict[str, int] = {}

    def path(self, name: str) -> str:
        return os.path.join(self.out_dir, f"{name}.{self.fmt}")

    def add(self, name: str, batch: pa.RecordBatch) -> None:
        self.rows[name] = self.rows.get(name, 0) + batch.num_rows
        if self.fmt != "parquet" and not self.raw_times:
            batch = readable_times(batch)
        if self.fmt == "jsonl":
            if self.raw_times:
                write_json_lines(self.path(name), [(name, batch)], append=name in self.writers)
            else:
                with open(self.path(name), "a" if name in self.writers else "w", encoding="utf-8") as f:
                    for row in batch.to_pylist():
                        f.write(json.dumps({"structure": name, **row}, ensure_ascii=False, default=_json_value))
                        f.write("\n")
            self.writers[name] = True
            return
        w = self.writers.get(name)
        if w is None:
            if self.fmt == "parquet":
                w = pq.ParquetWriter(self.path(name), batch.schema)
            else:
                w = pacsv.CSVWriter(self.path(name), batch.schema)
            self.writers[name] = w
        w.write_batch(batch)

    def close(self) -> None:
        for w in self.writers.values():
            if hasattr(w, "close"):
                w.close()
