"""Declarative layouts of the SMF 115/116 structures.

Each structure is one CSV table in this folder (offset, length, type, field, since, meaning),
taken from the project's layout specification. These tables are the only place a field offset is
written: the decoder, the encoder, the Arrow/Spark schemas and the dbt column docs are all derived
from them. ``structures.csv`` says where each structure sits (SMF type, subtype, triplet) and
``flags.csv`` names the bits of the flag words.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources

import numpy as np
import pyarrow as pa

# Layout type vocabulary -> (kind, numpy dtype of the stored bytes)
_STORAGE = {
    "uint8": ("int", ">u1"),
    "uint16": ("int", ">u2"),
    "uint32": ("int", ">u4"),
    "uint64": ("u64", ">u8"),
    "int16": ("int", ">i2"),
    "int32": ("int", ">i4"),
    "int64": ("int", ">i8"),
    "hex id (2)": ("int", ">u2"),
    "bit flags": ("int", ">u1"),
    "bit flags (16)": ("int", ">u2"),
    "bit flags (32)": ("int", ">u4"),
    "EBCDIC char": ("char", None),
    "binary": ("hex", None),
    "STCK time (UTC)": ("stck", ">u8"),
    "TOD time (LOCAL)": ("tod_local", ">u8"),
    "TOD duration": ("tod_duration", ">u8"),
    # WTAS latch wait times: TOD-clock units in the high 4 bytes of the 8-byte field (MQ 10 data).
    "TOD duration (high word)": ("tod_high", ">u8"),
    "reserved": ("reserved", None),
}

# Typed (analyst-facing) Arrow type per storage dtype. Spark has no unsigned integers, so each
# unsigned type widens to the next signed one; uint64 becomes decimal(20,0) so no value wraps.
_TYPED_INT = {
    ">u1": pa.int16(),
    ">u2": pa.int32(),
    ">u4": pa.int64(),
    ">i2": pa.int16(),
    ">i4": pa.int32(),
    ">i8": pa.int64(),
}
U64_TYPE = pa.decimal128(20, 0)
TIMESTAMP_UTC = pa.timestamp("us", tz="UTC")

UNITS = {
    "stck": "UTC timestamp (from an 8-byte STCK value)",
    "tod_local": "local timestamp (TOD format)",
    "tod_duration": "microseconds (TOD-clock duration >> 12)",
    "tod_high": "microseconds (TOD-clock units in the high word: value >> 32 >> 12)",
}


def column_name(ibm_name: str) -> str:
    """Arrow/Spark-safe column name for an IBM field name (``QJSTIO[0][1].QJSTIOCI`` ->
    ``QJSTIO_0_1_QJSTIOCI``)."""
    return re.sub(r"_+", "_", re.sub(r"[\[\].]", "_", ibm_name)).strip("_")


# Values MQ writes in a field to mean "no value" (seeds/data_pitfalls.csv).
QPSTCBSL_NOT_SET = 0x7FFFFFFF  # QPSTCBSL: the interval's lowest stealable count was never set (MQ 10)


@dataclass(frozen=True)
class Field:
    name: str  # IBM name, as in the specification
    offset: int
    length: int
    type: str  # specification vocabulary
    since: str
    meaning: str
    # Readable snake_case name used from the staging models on (optional column of the table).
    alias: str = ""

    @property
    def kind(self) -> str:
        return _STORAGE[self.type][0]

    @property
    def dtype(self) -> str | None:
        return _STORAGE[self.type][1]

    @cached_property
    def column(self) -> str:
        return column_name(self.name)

    @property
    def end(self) -> int:
        return self.offset + self.length

    @cached_property
    def arrow_type(self) -> pa.DataType:
        """Type of the field in typed (analyst-facing) batches."""
        kind = self.kind
        if kind == "int":
            return _TYPED_INT[self.dtype]
        if kind == "u64":
            return U64_TYPE
        if kind in ("char", "hex"):
            return pa.string()
        if kind == "stck":
            return TIMESTAMP_UTC
        if kind == "tod_local":
            return pa.timestamp("us")
        if kind in ("tod_duration", "tod_high"):
            return pa.int64()
        raise ValueError(f"{self.name}: no Arrow type for {self.type}")

    @cached_property
    def typed_numpy(self) -> np.dtype:
        """Native numpy dtype of the typed Arrow column (integers: the widened signed type)."""
        return np.dtype(self.arrow_type.to_pandas_dtype())

    @property
    def unit(self) -> str:
        return UNITS.get(self.kind, "")


@dataclass(frozen=True)
class Flag:
    field: str
    mask: int
    name: str
    min_length: int
    meaning: str


@dataclass(frozen=True)
class Placement:
    smf_type: int
    smf_subtype: int
    triplet: int


@dataclass(frozen=True)
class Layout:
    name: str
    fields: tuple[Field, ...]
    description: str = ""
    placements: tuple[Placement, ...] = ()
    id_value: int | None = None
    eyecatcher: str | None = None
    length_field: str | None = None
    # Structures that are a header followed by fixed entries (QEST): each entry is one row.
    entry_start: int | None = None
    entry_size: int | None = None
    entry_count: int | None = None
    entry_key: str | None = None
    # Columns that, with the queue manager and the interval (or record time), identify one row.
    natural_key: tuple[str, ...] = ()
    flags: tuple[Flag, ...] = field(default=())

    # Layouts are immutable, so what is derived from them is computed once (a small file's read
    # would otherwise spend most of its time re-deriving names, dtypes and schemas).
    @cached_property
    def data_fields(self) -> tuple[Field, ...]:
        """Fields that become columns (reserved space is not)."""
        return tuple(f for f in self.fields if f.kind != "reserved")

    @cached_property
    def size(self) -> int:
        """Length of the newest (longest) layout."""
        return max(f.end for f in self.fields)

    @cached_property
    def flags_by_field(self) -> dict[str, tuple[Flag, ...]]:
        out: dict[str, list[Flag]] = {}
        for fl in self.flags:
            out.setdefault(fl.field, []).append(fl)
        return {k: tuple(v) for k, v in out.items()}

    @cached_property
    def _fields_by_name(self) -> dict[str, Field]:
        return {f.name: f for f in self.fields}

    @cached_property
    def eyecatcher_field(self) -> Field | None:
        """The field that holds the eyecatcher (the layout's first text field), if it has one."""
        if not self.eyecatcher:
            return None
        return next(f for f in self.data_fields if f.kind == "char")

    @property
    def eyecatcher_ebcdic(self) -> bytes | None:
        return self.eyecatcher.encode("cp037") if self.eyecatcher else None

    def field(self, name: str) -> Field:
        try:
            return self._fields_by_name[name]
        except KeyError:
            raise KeyError(f"{self.name} has no field {name}") from None

    def numpy_dtype(self) -> np.dtype:
        """Big-endian structured dtype with explicit offsets, one entry per fixed-width field."""
        return self._numpy_dtype

    @cached_property
    def _numpy_dtype(self) -> np.dtype:
        names, formats, offsets = [], [], []
        for f in self.fields:
            if f.kind == "reserved":
                continue
            names.append(f.column)
            offsets.append(f.offset)
            formats.append(f.dtype if f.dtype else f"S{f.length}")
        return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": self.size})


def _read_csv(name: str) -> list[dict[str, str]]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


def _fields(name: str) -> tuple[Field, ...]:
    return tuple(
        Field(r["field"], int(r["offset"]), int(r["length"]), r["type"], r["since"], r["meaning"], r.get("alias") or "")
        for r in _read_csv(f"{name}.csv")
    )


def _opt_int(s: str, base: int = 10) -> int | None:
    return int(s, base) if s else None


@cache
def layouts() -> dict[str, Layout]:
    """All decodable structures, by name."""
    flags: dict[str, list[Flag]] = {}
    for r in _read_csv("flags.csv"):
        flags.setdefault(r["structure"], []).append(
            Flag(r["field"], int(r["mask"], 16), r["flag"], int(r["min_length"]), r["meaning"])
        )
    rows: dict[str, list[dict[str, str]]] = {}
    for r in _read_csv("structures.csv"):
        rows.setdefault(r["structure"], []).append(r)
    out = {}
    for name, rs in rows.items():
        r = rs[0]
        out[name] = Layout(
            name=name,
            fields=_fields(name),
            description=r["description"].split(" (obsolete")[0],
            placements=tuple(Placement(int(x["smf_type"]), int(x["smf_subtype"]), int(x["triplet"])) for x in rs),
            id_value=_opt_int(r["id_hex"], 16),
            eyecatcher=r["eyecatcher"] or None,
            length_field=r["length_field"] or None,
            entry_start=_opt_int(r["entry_start"]),
            entry_size=_opt_int(r["entry_size"]),
            entry_count=_opt_int(r["entry_count"]),
            entry_key=r["entry_key"] or None,
            natural_key=tuple(r["natural_key"].split()),
            flags=tuple(flags.get(name, ())),
        )
    return out


@cache
def header_layout(name: str) -> Layout:
    """The record headers: SMFHDR (offsets include the RDW), QWHS, QWHC, QWHX."""
    return Layout(name=name, fields=_fields(name))


def layout(name: str) -> Layout:
    try:
        return layouts()[name.upper()]
    except KeyError:
        raise KeyError(f"unknown structure {name!r}; known: {', '.join(sorted(layouts()))}") from None


@cache
def placements() -> dict[tuple[int, int], list[tuple[int, Layout]]]:
    """(smf_type, subtype) -> [(triplet index, layout)]."""
    out: dict[tuple[int, int], list[tuple[int, Layout]]] = {}
    for lay in layouts().values():
        for p in lay.placements:
            out.setdefault((p.smf_type, p.smf_subtype), []).append((p.triplet, lay))
    return out
