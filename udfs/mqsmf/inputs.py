"""What a file a site hands us is, judged by its content (never its name), before any Spark starts.

Two kinds of input are first-class: SMF dumps (RDW, BDW-blocked VBS or NORDW, detected from the
first records) and ``dmpmqmsg`` dumps of queue depth event messages (text, ``mqsmf.pcf``). Any
other file (a generator's ``.manifest.json`` left in a landing folder, a README, an empty file) is
*unrecognised*: every command reports it with the reason and skips it, and the other files are still
read. The exit status says so (``mqsmf.cli``: 1 when other files were processed, 2 when none was).

A path that does not exist is different: a typing error, refused before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from .framing import FramingError, detect_framing
from .pcf.reader import FRAMING as EVENTS_FRAMING
from .pcf.reader import looks_like_dump

SMF = "smf"
EVENTS = "events"
HEAD_BYTES = 1 << 20  # enough for the first records of any dump: what framing detection looks at


@dataclass(frozen=True)
class Recognised:
    path: str
    kind: str  # SMF or EVENTS
    size: int
    framing: str  # the SMF framing detected (or forced), or 'dmpmqmsg'


@dataclass(frozen=True)
class Unrecognised:
    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}; skipped"


def recognise(path: str, framing: str = "auto") -> Recognised | Unrecognised:
    """The kind of one file. FileNotFoundError when it does not exist; a folder is Unrecognised
    (callers expand folders first: mqsmf.spark.partitions.expand_paths)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    if os.path.isdir(path):
        return Unrecognised(path, "is a folder, not a dump")
    size = os.path.getsize(path)
    if size == 0:
        return Unrecognised(path, "empty file (0 bytes), not an SMF dump nor a dmpmqmsg dump")
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    if looks_like_dump(head[:512]):
        return Recognised(path, EVENTS, size, EVENTS_FRAMING)
    if framing != "auto":  # the user says how records are delimited: trust it, damage is quarantined
        return Recognised(path, SMF, size, framing)
    try:
        detected = detect_framing(head)
    except FramingError as e:
        return Unrecognised(path, f"not an SMF dump ({e}) nor a dmpmqmsg dump of event messages")
    return Recognised(path, SMF, size, detected)


def sort_inputs(paths: Iterable[str], framing: str = "auto") -> tuple[list[Recognised], list[Unrecognised]]:
    """Every file's kind, in order: (recognised, unrecognised). FileNotFoundError for a missing one."""
    recognised, unrecognised = [], []
    for path in paths:
        kind = recognise(path, framing)
        (recognised if isinstance(kind, Recognised) else unrecognised).append(kind)
    return recognised, unrecognised
