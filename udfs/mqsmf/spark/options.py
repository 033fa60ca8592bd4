"""The read options of the ``mqsmf`` data source as one typed object, and its pseudo-structures
that are statements rather than rows.

The data source parses its OPTIONS with :meth:`ReadOptions.from_options`; the loader builds the
views of a load with :meth:`ReadOptions.to_options`. The option names and defaults are written
here only (the data source's module documentation says what each means).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from .partitions import DEFAULT_SPLIT_BYTES, check_framing

# Pseudo-structures (option ``structure``) that yield statements or act, rather than rows of a dump.
LOAD_SQL = "_load_sql"  # the statements of a load
STAGE = "_stage"  # stages a load's new rows as files, from its spool (mqsmf.spark.staging)
COMMIT = "_commit"  # commits a staged load
PUBLISH = "_publish"  # moves a committed load's files into place; yields the statements that follow
REVEAL = "_reveal"  # moves a published load's audit and load dates into place: readers see it whole
FINISH = "_finish"  # removes a published load's folder
RELEASE = "_release"  # ends a load's spool
UNLOCK = "_unlock"  # gives back the load lock a SQL plan took (mqsmf.load_lock)
ACTING = (LOAD_SQL, STAGE, COMMIT, PUBLISH, REVEAL, FINISH, RELEASE, UNLOCK)


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes")


@dataclass(frozen=True)
class ReadOptions:
    """What a read of the data source covers and how: the input paths (files, folders, globs), the
    framing, the size above which an RDW file is split, the load's spool, and whether structure
    rows carry their file's digest."""

    paths: tuple[str, ...] = ()
    framing: str = "auto"
    split_bytes: int = DEFAULT_SPLIT_BYTES
    spool: str | None = None
    with_sha256: bool = False

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> ReadOptions:
        """``paths`` (a JSON list, or one string) and ``path`` (comma-separated) both name inputs."""
        specs: list[str] = []
        if options.get("paths"):
            value = json.loads(options["paths"])
            specs.extend([value] if isinstance(value, str) else value)
        if options.get("path"):
            specs.extend(options["path"].split(","))
        return cls(
            paths=tuple(specs),
            framing=check_framing(options.get("framing")),
            split_bytes=int(options.get("split_bytes") or DEFAULT_SPLIT_BYTES),
            spool=options.get("spool") or None,
            with_sha256=_true(options.get("with_sha256")),
        )

    def to_options(self) -> dict[str, str]:
        """The options that read the same (what a load writes into its views)."""
        out = {"paths": json.dumps(list(self.paths)), "framing": self.framing, "split_bytes": str(self.split_bytes)}
        if self.spool:
            out["spool"] = self.spool
        if self.with_sha256:
            out["with_sha256"] = "true"
        return out
