"""PCF event-message layouts as data: ``mqsmf/layouts/pcf/*.csv``.

The tables hold IBM's structure layouts (MQMD with its ``dmpmqmsg`` attribute codes, MQCFH,
MQCFIN, MQCFST), the constants the reader and writer test against (``constants.csv``), the event
parameters and the columns they become (``parameters.csv``), the events by reason code
(``events.csv``) and the character sets strings may be in (``charsets.csv``). No offset, constant
or parameter identifier is written anywhere else.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class PcfField:
    name: str  # IBM field name
    offset: int
    length: int
    type: str  # MQLONG, MQCHAR, MQBYTE
    meaning: str
    alias: str  # column name
    dump_code: str = ""  # dmpmqmsg three-letter attribute code (MQMD only)
    since: str = ""  # MQMD version the field appears in


@dataclass(frozen=True)
class Parameter:
    name: str  # MQCA_* / MQIA_* constant
    value: int  # parameter identifier
    pcf_type: str  # MQCFIN or MQCFST
    field: str  # IBM event data field name
    alias: str  # column name
    meaning: str


@dataclass(frozen=True)
class Charset:
    ccsid: int
    codec: str
    ebcdic: bool


def _rows(name: str) -> list[dict[str, str]]:
    text = resources.files("mqsmf.layouts").joinpath("pcf", name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


@cache
def structure(name: str) -> tuple[PcfField, ...]:
    """Fields of MQMD, MQCFH, MQCFIN or MQCFST, in offset order."""
    return tuple(
        PcfField(
            r["field"],
            int(r["offset"]),
            int(r["length"]),
            r["type"],
            r["meaning"],
            r["alias"],
            r.get("dump_code") or "",
            r.get("since") or "",
        )
        for r in _rows(f"{name}.csv")
    )


def field(structure_name: str, name: str) -> PcfField:
    for f in structure(structure_name):
        if f.name == name:
            return f
    raise KeyError(f"{structure_name} has no field {name}")


def size(structure_name: str) -> int:
    return max(f.offset + f.length for f in structure(structure_name))


@cache
def constants() -> dict[str, int | str]:
    """IBM constants by name; numbers as int, character constants (MQFMT_*) as str."""
    out: dict[str, int | str] = {}
    for r in _rows("constants.csv"):
        v = r["value"]
        out[r["name"]] = int(v) if v.strip().lstrip("-").isdigit() else v
    return out


def const(name: str):
    return constants()[name]


@cache
def parameters() -> tuple[Parameter, ...]:
    return tuple(
        Parameter(r["parameter"], int(r["value"]), r["pcf_type"], r["field"], r["alias"], r["meaning"])
        for r in _rows("parameters.csv")
    )


@cache
def events() -> dict[int, tuple[str, str]]:
    """Reason code -> (event code, event name) of the queue depth events."""
    return {int(r["reason"]): (r["event"], r["name"]) for r in _rows("events.csv")}


@cache
def charsets() -> dict[int, Charset]:
    return {int(r["ccsid"]): Charset(int(r["ccsid"]), r["codec"], r["ebcdic"] == "true") for r in _rows("charsets.csv")}
