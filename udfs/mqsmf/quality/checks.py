"""The check catalogue: every data-quality check of the gate, written once, as data.

A **frame** is one Spark query the checks of a stage look at (a raw table, the union of all raw
tables, the intervals of each queue manager, a reconciliation join of two marts). It also says
which of its columns identify a row for an analyst: queue manager, QSG, object (queue, buffer
pool, CF structure), interval, and the SMF record the row came from.

A **check** is a named rule on a frame with a severity (``error`` fails the gate, ``warn`` is
reported and passes), optional applicability conditions, and the source of the invariant. From
each check the gate derives both the GX expectation (suite ``<stage>.<frame>``) and the SQL that
lists the violating rows into ``dq_violations`` (see ``mqsmf.quality.expectations``).

Structure-wide checks (identifiers, eyecatchers, duplicates, interval continuity) are generated
from the layout tables, so a structure added there is checked without code here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..decode import MAX_INTERVAL_US
from ..invariants import VIOLATIONS
from ..layouts import QPSTCBSL_NOT_SET, Layout, column_name, layout, layouts
from ..pcf.reader import STRUCTURE as EVENT_STRUCTURE
from ..spark.plan import natural_key
from ..warehouse import AUDIT_TABLE, QUARANTINE_TABLE, ident, literal, raw_table
from .expectations import (
    AtMost,
    Between,
    EachAtMost,
    EqualColumns,
    InSet,
    NonNegative,
    NoRows,
    NotInSet,
    Rule,
    SumAtMost,
    SumOf,
    Unique,
    When,
)

ERROR = "error"
WARN = "warn"
SEVERITIES = (ERROR, WARN)
RAW = "raw"
MARTS = "marts"
STAGES = (RAW, MARTS)

# Default slack, in seconds, between one interval's end and the next one's start.
DEFAULT_INTERVAL_TOLERANCE_SECONDS = 1.0

SEED_QQST = "IBM MQ 9.3.3 'Queue data records' (IBM MQ for z/OS documentation, SMF statistics)"
SEED_QSG = (
    "IBM MQ: each queue manager reports only its own use of a shared object ('Shared queues and queue depth events "
    "on z/OS'); 'RESET QSTATS' with CMDSCOPE(*) sums the members"
)
LAYOUTS_DOC = "layout tables udfs/mqsmf/layouts (IBM MQ for z/OS: SMF record layouts, macros in SCSQMACS)"


@dataclass(frozen=True)
class Frame:
    """One query the checks look at. ``build(tables, spark)`` gets ``{logical table: qualified
    name}`` for the tables that exist (and the session, for frames that must look at the data
    first) and returns the SELECT, or None when the frame has nothing to look at. The key
    attributes are SQL expressions over the frame's columns."""

    name: str
    stage: str
    tables: tuple[str, ...]
    build: Callable[[Mapping[str, str], Any], str | None]
    description: str
    table_name: str = "NULL"
    qmgr_name: str = "qmgr"
    qsg_name: str = "qsg"
    object_name: str = "NULL"
    interval_start_at: str = "interval_start"
    interval_end_at: str = "interval_end"
    source_file: str = "source_file"
    record_offset: str = "record_offset"
    # Columns computed before the checks' own derived columns (checks may condition on them).
    derived: tuple[tuple[str, str], ...] = ()

    @property
    def id(self) -> str:
        return f"{self.stage}.{self.name}"


@dataclass(frozen=True)
class Check:
    name: str
    frame: str
    rule: Rule
    severity: str = ERROR
    when: tuple[When, ...] = ()
    source: str = ""
    description: str = ""
    fields: tuple[str, ...] = field(default=())  # IBM fields the check is about (for the docs)

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"{self.name}: severity must be one of {SEVERITIES}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"check name {self.name!r}: lower-case letters, digits and _ only")

    @property
    def planted_by(self) -> tuple[str, ...]:
        """The generator's violations (``mqsmf generate --violate``) this check must report, as
        ``mqsmf.invariants`` declares them."""
        return tuple(violation for violation, v in VIOLATIONS.items() if self.name in v.breaks)

    @property
    def text(self) -> str:
        """The rule with its conditions, e.g. ``QQSTMAGE = 0 when QQSTDISP == True and ...``."""
        if not self.when:
            return self.rule.text
        return f"{self.rule.text} when {' and '.join(w.text for w in self.when)}"

    def violation_sql(self) -> str:
        """True for a row of the frame that this check finds in violation."""
        return " AND ".join([*(w.sql() for w in self.when), self.rule.violation_sql()])

    def values_sql(self) -> str:
        """The involved values of a row as a JSON object (decimal counters stay numbers)."""
        names = dict.fromkeys([*(w.column for w in self.when), *self.rule.columns])
        return "to_json(named_struct(" + ", ".join(f"{literal(n)}, {ident(n)}" for n in names) + "))"


@dataclass(frozen=True)
class Catalogue:
    frames: dict[str, Frame]
    checks: tuple[Check, ...]

    def for_stage(self, stage: str) -> Catalogue:
        frames = {k: f for k, f in self.frames.items() if f.stage == stage}
        return Catalogue(frames, tuple(c for c in self.checks if c.frame in frames))

    def select(self, names: list[str] | None) -> Catalogue:
        if not names:
            return self
        unknown = sorted(set(names) - {c.name for c in self.checks})
        if unknown:
            raise KeyError(f"unknown check(s): {', '.join(unknown)}")
        checks = tuple(c for c in self.checks if c.name in names)
        used = {c.frame for c in checks}
        return Catalogue({k: f for k, f in self.frames.items() if k in used}, checks)

    def check(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"unknown check {name!r}")

    def frame_checks(self, frame: str) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.frame == frame)


# ----------------------------------------------------------------------------------------------
# Raw stage: frames
# ----------------------------------------------------------------------------------------------


def _statistics_structures() -> list[Layout]:
    return [lay for lay in layouts().values() if all(p.smf_type == 115 for p in lay.placements)]


def _identity(lay: Layout) -> tuple[str | None, str | None]:
    """Columns of a structure's identifier (X'....') and eyecatcher, if it has them."""
    ident = next((f.column for f in lay.data_fields if f.type == "hex id (2)" and f.offset == 0), None)
    eye = next((f.column for f in lay.data_fields if f.kind == "char" and f.offset == 4 and f.length == 4), None)
    if lay.id_value is None or lay.eyecatcher is None:
        return None, None
    return ident, eye


def _object_key_sql(lay: Layout) -> str:
    keys = [column_name(k) for k in lay.natural_key]
    if not keys:
        return "CAST(NULL AS STRING)"
    return "concat_ws('/', " + ", ".join(f"CAST({ident(k)} AS STRING)" for k in keys) + ")"


def _records_sql(tables: Mapping[str, str], spark=None) -> str | None:
    """Every decoded structure instance, narrowed to what identifies it."""
    parts = []
    for lay in layouts().values():
        table = tables.get(raw_table(lay.name))
        if table is None:
            continue
        id_column, eye = _identity(lay)
        parts.append(
            f"SELECT {literal(lay.name)} AS structure, smf_type, smf_subtype, qmgr, qsg, interval_start, "
            f"interval_end, source_file, record_offset, entry_index, {_object_key_sql(lay)} AS object_key, "
            f"CAST({ident(id_column) if id_column else 'NULL'} AS INT) AS identifier, "
            f"{lay.id_value if id_column else 'CAST(NULL AS INT)'} AS identifier_expected, "
            f"concat_ws('/', {', '.join(f'CAST({k} AS STRING)' for k in natural_key(lay.name))}) AS load_key, "
            f"CAST({ident(eye) if eye else 'NULL'} AS STRING) AS eyecatcher, "
            f"{literal(lay.eyecatcher) if eye else 'CAST(NULL AS STRING)'} AS eyecatcher_expected "
            f"FROM {table}"
        )
    return "\nUNION ALL\n".join(parts) or None


def _intervals_sql(tables: Mapping[str, str], spark=None) -> str | None:
    """One row per queue manager, statistics record kind (SMF 115 subtype) and interval, with the
    gap to the previous interval of the same queue manager and subtype (negative = overlap).

    The structures of one subtype share their record and so its interval; grouping by subtype
    (not by structure) keeps a structure that a record may legitimately lack (the QEST entry of an
    unused CF structure, SSL tasks) from looking like a gap."""
    parts = [
        f"SELECT DISTINCT {literal(lay.name)} AS structure, smf_type, smf_subtype, qmgr, qsg, interval_start, "
        f"interval_end, interval_seconds FROM {tables[raw_table(lay.name)]} WHERE interval_start IS NOT NULL"
        for lay in _statistics_structures()
        if raw_table(lay.name) in tables
    ]
    if not parts:
        return None
    union = "\nUNION ALL\n".join(parts)
    # A queue manager that stops writes the statistics of its unfinished interval: a gap after an
    # interval shorter than the queue manager's usual one is a restart (its down time), not lost data.
    by_kind = "PARTITION BY smf_type, smf_subtype, qmgr"
    return (
        "SELECT *, (unix_micros(interval_start) - unix_micros(previous_interval_end)) / 1e6 AS dq_gap_seconds, "
        "coalesce(previous_interval_seconds < dq_usual_interval_seconds * 0.9, false) AS dq_after_restart "
        f"FROM (SELECT *, lag(interval_end) OVER ({by_kind} ORDER BY interval_start, interval_end) "
        "AS previous_interval_end, "
        f"lag(interval_seconds) OVER ({by_kind} ORDER BY interval_start, interval_end) AS previous_interval_seconds, "
        f"percentile_approx(interval_seconds, 0.5) OVER ({by_kind}) AS dq_usual_interval_seconds FROM ("
        "SELECT smf_type, smf_subtype, qmgr, max(qsg) AS qsg, interval_start, interval_end, "
        "min(interval_seconds) AS interval_seconds, "
        "array_join(array_sort(collect_set(lower(structure))), ',') AS structures "
        f"FROM ({union}) AS by_structure GROUP BY smf_type, smf_subtype, qmgr, interval_start, interval_end"
        ") AS intervals) AS ordered"
    )


def _shared_structures_sql(tables: Mapping[str, str], spark=None) -> str | None:
    """Shared-queue rows that name a CF structure, each with the structure the queue's rows in its
    QSG name most often (ties: the greatest name) and how many structures they name. A shared
    queue lives in one CF structure of its QSG, so a row naming another one is the odd one out."""
    if "qqst" not in tables:
        return None
    qqst = tables["qqst"]
    named = "`QQSTDISP` AND `QQSTCFST` <> ''"
    return (
        "SELECT q.*, s.dq_cf_structures, s.dq_usual_cf_structure FROM "
        f"(SELECT * FROM {qqst} WHERE {named}) AS q JOIN ("
        "SELECT `QQSTQSGN`, `QQSTQNAM`, count(*) AS dq_cf_structures, "
        "max_by(`QQSTCFST`, struct(n, `QQSTCFST`)) AS dq_usual_cf_structure FROM ("
        f"SELECT `QQSTQSGN`, `QQSTQNAM`, `QQSTCFST`, count(*) AS n FROM {qqst} WHERE {named} "
        "GROUP BY `QQSTQSGN`, `QQSTQNAM`, `QQSTCFST`) AS per_structure GROUP BY `QQSTQSGN`, `QQSTQNAM`) AS s "
        "ON q.`QQSTQSGN` = s.`QQSTQSGN` AND q.`QQSTQNAM` = s.`QQSTQNAM`"
    )


def _event_groups_sql(tables: Mapping[str, str], spark=None) -> str | None:
    """The shared-queue depth event messages of one CorrelId, counted straight from the raw event
    messages (the marts' fct_shared_queue_event_groups counts the same groups its own way). A
    CorrelId of zeros is MQCI_NONE: private-queue events, which form no group."""
    table = raw_table(EVENT_STRUCTURE)
    if table not in tables:
        return None
    return (
        "SELECT correl_id, count(*) AS dq_messages, count(DISTINCT event_qmgr_name) AS dq_answering_qmgrs, "
        "count(DISTINCT queue_name) AS dq_queues, count(DISTINCT reason) AS dq_events, "
        "min_by(event_qmgr_name, struct(put_at, event_qmgr_name)) AS qmgr, "
        "min_by(source_file, struct(put_at, event_qmgr_name)) AS source_file, "
        "min_by(record_offset, struct(put_at, event_qmgr_name)) AS record_offset, "
        "min(queue_name) AS queue_name, min(put_at) AS first_put_at, max(put_at) AS last_put_at "
        f"FROM {tables[table]} WHERE correl_id IS NOT NULL AND correl_id <> repeat('0', 48) GROUP BY correl_id"
    )


def _single(table: str) -> Callable[[Mapping[str, str], Any], str | None]:
    def build(tables: Mapping[str, str], spark=None) -> str | None:
        return f"SELECT * FROM {tables[table]}" if table in tables else None

    return build


# Temporary views the gate creates (and drops at the end of a run) start with this.
VIEW_PREFIX = "mqsmf_dq_"
UNLOADED_COLUMNS = (
    "source_file STRING, source_sha256 STRING, smf_type INT, smf_subtype INT, record_offset BIGINT, qmgr STRING, "
    "qsg STRING, interval_start TIMESTAMP, interval_end TIMESTAMP, structures STRING, instances BIGINT, "
    "duplicate_of STRING, records_decoded BIGINT, records_loaded BIGINT"
)


def _landed_sql(tables: Mapping[str, str]) -> str:
    """Records (file digest, type, subtype, offset) that have at least one row in a raw table."""
    return "\nUNION ALL\n".join(
        f"SELECT DISTINCT source_sha256, smf_type, smf_subtype, record_offset FROM {tables[raw_table(n)]}"
        for n in layouts()
        if raw_table(n) in tables
    )


def _deficit_sql(tables: Mapping[str, str]) -> str:
    """Per file digest, SMF type and subtype: records the reader decoded (audit) and records with
    rows in the tables, where the second is smaller."""
    return (
        "SELECT a.source_sha256, a.smf_type, a.smf_subtype, a.source_file, a.framing, a.records_decoded, "
        "coalesce(l.records_loaded, 0) AS records_loaded FROM ("
        "SELECT source_sha256, CAST(smf_type AS INT) AS smf_type, CAST(smf_subtype AS INT) AS smf_subtype, "
        "max_by(source_file, loaded_at) AS source_file, max_by(framing, loaded_at) AS framing, "
        f"max(records_decoded) AS records_decoded FROM {tables[AUDIT_TABLE]} "
        "WHERE smf_type IS NOT NULL AND records_decoded > 0 GROUP BY 1, 2, 3) AS a LEFT JOIN ("
        "SELECT source_sha256, CAST(smf_type AS INT) AS smf_type, CAST(smf_subtype AS INT) AS smf_subtype, "
        f"count(*) AS records_loaded FROM ({_landed_sql(tables)}) AS landed GROUP BY 1, 2, 3) AS l "
        "ON a.source_sha256 = l.source_sha256 AND a.smf_type = l.smf_type AND a.smf_subtype = l.smf_subtype "
        "WHERE a.records_decoded > coalesce(l.records_loaded, 0)"
    )


def _unloaded_sql(tables: Mapping[str, str], spark=None) -> str | None:
    """Decoded records without a row in the raw tables, one row each. The loader keeps one row per
    natural key, so a record whose every instance was loaded before (the same record twice in a
    dump, overlapping dumps) leaves no row; the audit still counts it. Where the counts differ the
    file is read again (only those files and subtypes) to name the records and the copy that was
    kept; a file that is gone is reported by its counts alone."""
    if AUDIT_TABLE not in tables or spark is None or not any(raw_table(n) in tables for n in layouts()):
        return None
    empty = f"SELECT * FROM VALUES ({', '.join('NULL' for _ in UNLOADED_COLUMNS.split(', '))}) AS t("
    empty += ", ".join(c.split()[0] for c in UNLOADED_COLUMNS.split(", ")) + ") WHERE false"
    typed = ", ".join(f"CAST({c.split()[0]} AS {c.split()[1]}) AS {c.split()[0]}" for c in UNLOADED_COLUMNS.split(", "))
    parts = [f"SELECT {typed} FROM ({empty}) AS no_rows"]
    for i, d in enumerate(spark.sql(_deficit_sql(tables)).collect()):
        parts.append(_unloaded_records_sql(spark, tables, d, i, typed))
    return "\nUNION ALL\n".join(parts)


def _unloaded_records_sql(spark, tables: Mapping[str, str], deficit, i: int, typed: str) -> str:
    import os

    counts = f"{deficit.records_decoded} AS records_decoded, {deficit.records_loaded} AS records_loaded"
    structures = [
        lay
        for lay in layouts().values()
        if any((p.smf_type, p.smf_subtype) == (deficit.smf_type, deficit.smf_subtype) for p in lay.placements)
        and raw_table(lay.name) in tables
    ]
    if not structures or not os.path.isfile(deficit.source_file):
        # The file cannot be read again here: report the counts, without record details.
        return (
            f"SELECT {typed} FROM (SELECT {literal(deficit.source_file)} AS source_file, "
            f"{literal(deficit.source_sha256)} AS source_sha256, {deficit.smf_type} AS smf_type, "
            f"{deficit.smf_subtype} AS smf_subtype, NULL AS record_offset, NULL AS qmgr, NULL AS qsg, "
            "NULL AS interval_start, NULL AS interval_end, NULL AS structures, "
            f"{deficit.records_decoded - deficit.records_loaded} AS instances, NULL AS duplicate_of, {counts}) AS gone"
        )
    landed = (
        f"SELECT DISTINCT record_offset FROM ({_landed_sql(tables)}) AS landed WHERE source_sha256 = "
        f"{literal(deficit.source_sha256)} AND smf_type = {deficit.smf_type} AND smf_subtype = {deficit.smf_subtype}"
    )
    reread = []
    for lay in structures:
        view = f"{VIEW_PREFIX}reread_{i}_{lay.name.lower()}"
        (
            spark.read.format("mqsmf")
            .option("structure", lay.name)
            .option("framing", deficit.framing or "auto")
            .load(deficit.source_file)
            .where(f"smf_subtype = {deficit.smf_subtype}")
            .createOrReplaceTempView(view)
        )
        key = [column_name(k) for k in lay.natural_key]
        on = " AND ".join(
            ["t.qmgr = r.qmgr", "t.smf_subtype = r.smf_subtype"]
            + ["coalesce(t.interval_start, t.record_stck) = coalesce(r.interval_start, r.record_stck)"]
            + [f"t.{ident(k)} <=> r.{ident(k)}" for k in key]
        )
        reread.append(
            f"SELECT {literal(lay.name)} AS structure, r.entry_index, r.record_offset, r.qmgr, r.qsg, "
            "r.interval_start, r.interval_end, concat(t.source_file, ' @ ', t.record_offset) AS duplicate_of "
            f"FROM {view} AS r LEFT JOIN {tables[raw_table(lay.name)]} AS t ON {on} "
            f"WHERE r.record_offset NOT IN ({landed})"
        )
    return (
        f"SELECT {typed} FROM (SELECT {literal(deficit.source_file)} AS source_file, "
        f"{literal(deficit.source_sha256)} AS source_sha256, {deficit.smf_type} AS smf_type, "
        f"{deficit.smf_subtype} AS smf_subtype, record_offset, min(qmgr) AS qmgr, min(qsg) AS qsg, "
        "min(interval_start) AS interval_start, max(interval_end) AS interval_end, "
        "array_join(array_sort(collect_set(structure)), ',') AS structures, "
        "count(DISTINCT structure, entry_index) AS instances, "
        f"min(duplicate_of) AS duplicate_of, {counts} FROM ({' UNION ALL '.join(reread)}) AS missing "
        "GROUP BY record_offset) AS unloaded"
    )


def _raw_frames() -> list[Frame]:
    statistics = tuple(raw_table(lay.name) for lay in _statistics_structures())
    return [
        Frame(
            "event_groups",
            RAW,
            (raw_table(EVENT_STRUCTURE),),
            _event_groups_sql,
            "Shared-queue depth event messages (PCF, SYSTEM.ADMIN.PERFM.EVENT) grouped by CorrelId.",
            table_name=literal(raw_table(EVENT_STRUCTURE)),
            qsg_name="CAST(NULL AS STRING)",
            object_name="concat(queue_name, ' CorrelId ', correl_id)",
            interval_start_at="first_put_at",
            interval_end_at="last_put_at",
        ),
        Frame(
            "records",
            RAW,
            tuple(raw_table(n) for n in layouts()),
            _records_sql,
            "Every decoded structure instance of every raw table: identity and natural key.",
            table_name="lower(structure)",
            object_name="coalesce(object_key, structure)",
        ),
        Frame(
            "intervals",
            RAW,
            statistics,
            _intervals_sql,
            "Statistics intervals per queue manager and SMF 115 subtype, in start order.",
            table_name="structures",
            object_name="concat(smf_type, '/', smf_subtype)",
            source_file="CAST(NULL AS STRING)",
            record_offset="CAST(NULL AS BIGINT)",
        ),
        Frame(
            "qqst",
            RAW,
            ("qqst",),
            _single("qqst"),
            "Queue statistics (115/216), one row per queue and interval.",
            table_name="'qqst'",
            object_name="QQSTQNAM",
            derived=(
                ("dq_messages_put", "`QQSTPUTS` + `QQSTPUT1`"),
                ("dq_put_bytes", "`QQSTPUTB` + `QQSTPT1B`"),
                ("dq_put_bytes_at_min_size", "`QQSTMSMI` * (`QQSTPUTS` + `QQSTPUT1`)"),
                ("dq_put_bytes_at_max_size", "`QQSTMSMA` * (`QQSTPUTS` + `QQSTPUT1`)"),
                # IBM MQ 'Queue data records': a shared queue's partial record zeroes the depth; a private one's stands.
                ("dq_depth_trusted", "NOT (`QQSTDISP` AND `QQSTPART`)"),
                ("dq_last_put_or_get", "greatest(`QQSTLPUT`, `QQSTLGET`)"),
            ),
        ),
        Frame(
            "qqst_shared",
            RAW,
            ("qqst",),
            _shared_structures_sql,
            "Shared queues' statistics (115/216) with the CF structure most of the queue's rows name in its QSG.",
            table_name="'qqst'",
            object_name="QQSTQNAM",
        ),
        Frame(
            "qpst",
            RAW,
            ("qpst",),
            _single("qpst"),
            "Buffer pool statistics (115/215), one row per pool and interval.",
            table_name="'qpst'",
            object_name="CAST(QPSTPOOL AS STRING)",
        ),
        Frame(
            "qest",
            RAW,
            ("qest",),
            _single("qest"),
            "Coupling facility manager statistics (115/2), one row per used CF structure entry.",
            table_name="'qest'",
            object_name="QESTSTR",
        ),
        Frame(
            "qjst",
            RAW,
            ("qjst",),
            _single("qjst"),
            "Log manager statistics (115/1).",
            table_name="'qjst'",
            object_name="'log'",
        ),
        Frame(
            "qmst",
            RAW,
            ("qmst",),
            _single("qmst"),
            "Message manager statistics (115/2).",
            table_name="'qmst'",
            object_name="'message manager'",
        ),
        Frame(
            "unloaded_records",
            RAW,
            (AUDIT_TABLE, *(raw_table(n) for n in layouts())),
            _unloaded_sql,
            f"SMF records the reader decoded ({AUDIT_TABLE}) that have no row in any raw table.",
            table_name=literal(AUDIT_TABLE),
            object_name="structures",
        ),
        Frame(
            "qctdns",
            RAW,
            ("qctdns",),
            _single("qctdns"),
            "The channel initiator's DNS task statistics (115/231), one row per interval.",
            table_name="'qctdns'",
            object_name="'DNS task'",
            derived=(
                # PH69352: the longest request kept from an earlier interval is dated before this one.
                ("dq_longest_request_before_interval", "coalesce(`QCTLGDU` > 0 AND `QCTLGTM` < interval_start, false)"),
            ),
        ),
        Frame(
            "qis1",
            RAW,
            ("qis1",),
            _single("qis1"),
            "Page set statistics (115/201), one row per page set and interval.",
            table_name="'qis1'",
            object_name="CAST(QIS1PSNO AS STRING)",
        ),
        Frame(
            "quarantine",
            RAW,
            (QUARANTINE_TABLE,),
            _single(QUARANTINE_TABLE),
            "Spans of the input the reader could not decode (bad descriptor words, truncation, wrong "
            "identifier or eyecatcher): the records are not in the tables, so the gate must say so.",
            table_name=literal(QUARANTINE_TABLE),
            qmgr_name="CAST(NULL AS STRING)",
            qsg_name="CAST(NULL AS STRING)",
            object_name="reason",
            interval_start_at="CAST(NULL AS TIMESTAMP)",
            interval_end_at="CAST(NULL AS TIMESTAMP)",
            record_offset="`offset`",
        ),
    ]


# ----------------------------------------------------------------------------------------------
# Raw stage: checks
# ----------------------------------------------------------------------------------------------

SHARED = When("QQSTDISP", "==", True)
PRIVATE = When("QQSTDISP", "==", False)
PARTIAL = When("QQSTPART", "==", True)


def _qqst_checks() -> list[Check]:
    def qqst(name, rule, *, when=(), severity=ERROR, description="", source=SEED_QQST, frame="qqst"):
        return Check(name, frame, rule, severity, tuple(when), source, description, fields=tuple(_ibm(rule, when)))

    splits = [
        ("qqst_puts_split", "QQSTPUTS", ("QQSTNPPT", "QQSTPPT"), "MQPUT count"),
        ("qqst_put1_split", "QQSTPUT1", ("QQSTNPP1", "QQSTPP1"), "MQPUT1 count"),
        ("qqst_put_bytes_split", "QQSTPUTB", ("QQSTNPPB", "QQSTPPB"), "MQPUT bytes"),
        ("qqst_put1_bytes_split", "QQSTPT1B", ("QQSTNP1B", "QQSTP1B"), "MQPUT1 bytes"),
        ("qqst_gets_split", "QQSTGETS", ("QQSTNPDG", "QQSTPDG"), "destructive MQGET count"),
        ("qqst_get_bytes_split", "QQSTGETB", ("QQSTNPDB", "QQSTPDB"), "destructive MQGET bytes"),
        ("qqst_browses_split", "QQSTBRWS", ("QQSTNPBR", "QQSTPBR"), "browse count"),
        ("qqst_browse_bytes_split", "QQSTBRWB", ("QQSTNPBB", "QQSTPBB"), "browse bytes"),
    ]
    checks = [
        qqst(
            "qqst_nmag_within_flgt",
            AtMost("QQSTNMAG", "QQSTFLGT"),
            description="Failed no-wait gets with NO_MSG_AVAILABLE are a subset of failed destructive gets.",
        ),
        qqst(
            "qqst_tmfg_within_flgt",
            AtMost("QQSTTMFG", "QQSTFLGT"),
            description="Gets failed with TRUNCATED_MSG_FAILED are a subset of failed destructive gets "
            "(the 9.3.3 page names the field QQSTTMFB).",
        ),
        qqst(
            "qqst_get_failures_within_flgt",
            SumAtMost(("QQSTNMAG", "QQSTTMFG"), "QQSTFLGT", "dq_get_failure_subcounts_excess"),
            description="No-message-available and truncated-message failures are disjoint subsets of the "
            "failed destructive gets (IBM's 'Queue data records' names the second one QQSTTMFB), so together at most QQSTFLGT.",
        ),
        qqst(
            "qqst_browse_failures_within_flbr",
            SumAtMost(("QQSTNMAB", "QQSTTMFB"), "QQSTFLBR", "dq_browse_failure_subcounts_excess"),
            description="The browse counterparts: no-message-available and truncated-message browse failures "
            "are disjoint subsets of the failed browses (structure CSQDQQST, offsets 408-424).",
            source=f"{SEED_QQST}; {LAYOUTS_DOC}",
        ),
        qqst(
            "qqst_partial_shared_depth_zero",
            InSet("QQSTDPTH", (0,)),
            when=(SHARED, PARTIAL),
            description="A partial shared-queue record has its depth zeroed.",
        ),
        qqst(
            "qqst_partial_shared_age_zero",
            InSet("QQSTMAGE", (0,)),
            when=(SHARED, PARTIAL),
            description="A partial shared-queue record has the oldest message age zeroed.",
        ),
        qqst(
            "qqst_partial_shared_uncommitted_off",
            InSet("QQSTUNCM", (False,)),
            when=(SHARED, PARTIAL),
            description="A partial shared-queue record never has the uncommitted-changes flag set.",
        ),
        qqst(
            "qqst_partial_private_age_zero",
            InSet("QQSTMAGE", (0,)),
            when=(PRIVATE, PARTIAL),
            description="A partial private-queue record has the oldest message age zeroed.",
        ),
        qqst(
            "qqst_shared_no_pageset",
            InSet("QQSTPSID", (-1,)),
            when=(SHARED,),
            description="A shared queue lives in a CF structure: page set id is -1 (X'FFFF').",
        ),
        qqst(
            "qqst_shared_no_bufferpool",
            InSet("QQSTBPID", (-1,)),
            when=(SHARED,),
            description="A shared queue uses no buffer pool: buffer pool id is -1 (X'FFFF').",
        ),
        qqst(
            "qqst_shared_qsg_named",
            NotInSet("QQSTQSGN", ("",)),
            when=(SHARED,),
            description="A shared queue names its queue sharing group.",
        ),
        qqst(
            "qqst_shared_cf_structure_named",
            NotInSet("QQSTCFST", ("",)),
            when=(SHARED,),
            description="A shared queue names its CF structure.",
        ),
        qqst(
            "qqst_private_qsg_blank",
            InSet("QQSTQSGN", ("",)),
            when=(PRIVATE,),
            description="A private queue has a blank QSG name.",
        ),
        qqst(
            "qqst_private_cf_structure_blank",
            InSet("QQSTCFST", ("",)),
            when=(PRIVATE,),
            description="A private queue has a blank CF structure name.",
        ),
        qqst(
            "qqst_shared_qsg_matches_header",
            EqualColumns("QQSTQSGN", "qsg"),
            when=(SHARED,),
            description="A shared queue's QSG is the queue manager's QSG of the record header (QWHX, MQ 10).",
            source=f"{SEED_QQST}; QWHX header ({LAYOUTS_DOC})",
        ),
        *(
            qqst(
                name,
                SumOf(total, parts, diff=f"dq_{total}_minus_parts"),
                description=f"The {what} is the non-persistent plus the persistent one.",
            )
            for name, total, parts, what in splits
        ),
        qqst(
            "qqst_depth_watermarks",
            AtMost("QQSTDPLO", "QQSTDPHI"),
            description="Lowest depth in the interval <= highest depth.",
        ),
        qqst(
            "qqst_depth_above_low_watermark",
            AtMost("QQSTDPLO", "QQSTDPTH"),
            when=(When("dq_depth_trusted", "==", True),),
            description="The depth at collection time counts towards the interval's lowest depth, so it is "
            ">= QQSTDPLO. Not in a shared queue's partial record, whose depth is zeroed; a private queue's "
            "partial record has only its age zeroed, so its depth is checked.",
        ),
        qqst(
            "qqst_depth_below_high_watermark",
            AtMost("QQSTDPTH", "QQSTDPHI"),
            when=(When("dq_depth_trusted", "==", True),),
            description="The depth at collection time counts towards the interval's highest depth, so it is "
            "<= QQSTDPHI (not in a shared queue's partial record, whose depth is zeroed).",
        ),
        qqst(
            "qqst_depth_not_negative",
            Between("QQSTDPTH", minimum=0),
            description="A queue's depth is a number of messages: never negative.",
        ),
        qqst(
            "qqst_input_handle_watermarks",
            EachAtMost(
                (("QQSTIPLO", "QQSTIPCT"), ("QQSTIPCT", "QQSTIPHI")),
                "dq_input_handles_outside",
                "QQSTIPLO <= QQSTIPCT <= QQSTIPHI",
            ),
            description="The input handles open at collection time (IPPROCS) lie within the interval's low "
            "and high watermarks of input handles.",
        ),
        qqst(
            "qqst_output_handle_watermarks",
            EachAtMost(
                (("QQSTOPLO", "QQSTOPCT"), ("QQSTOPCT", "QQSTOPHI")),
                "dq_output_handles_outside",
                "QQSTOPLO <= QQSTOPCT <= QQSTOPHI",
            ),
            description="The output handles open at collection time (OPPROCS) lie within the interval's low "
            "and high watermarks of output handles.",
        ),
        qqst(
            "qqst_put_bytes_within_message_sizes",
            EachAtMost(
                (("dq_put_bytes_at_min_size", "dq_put_bytes"), ("dq_put_bytes", "dq_put_bytes_at_max_size")),
                "dq_put_bytes_outside_sizes",
                "QQSTMSMI x (QQSTPUTS + QQSTPUT1) <= QQSTPUTB + QQSTPT1B <= QQSTMSMA x (QQSTPUTS + QQSTPUT1)",
            ),
            when=(When("dq_messages_put", ">", 0),),
            description="Every message put is between the smallest and the largest size put, so the bytes put "
            "lie between messages x minimum size and messages x maximum size.",
        ),
        *(
            qqst(
                name,
                InSet(amount, (0,)),
                when=(When(count, "==", 0),),
                description=f"No {what} bytes in an interval without {what}s.",
            )
            for name, amount, count, what in (
                ("qqst_put_bytes_need_puts", "dq_put_bytes", "dq_messages_put", "put"),
                ("qqst_get_bytes_need_gets", "QQSTGETB", "QQSTGETS", "destructive get"),
                ("qqst_browse_bytes_need_browses", "QQSTBRWB", "QQSTBRWS", "browse"),
            )
        ),
        qqst(
            "qqst_last_put_get_not_after_record",
            AtMost("dq_last_put_or_get", "record_stck"),
            description="The last put and the last get (QQSTLPUT, QQSTLGET: when the last message was put or "
            "got, as at collection) happened before the record was written (QWHSSTCK).",
            source=f"{SEED_QQST}; QWHS header ({LAYOUTS_DOC})",
        ),
        qqst(
            "qqst_shared_queue_one_cf_structure",
            EqualColumns("QQSTCFST", "dq_usual_cf_structure"),
            frame="qqst_shared",
            description="A shared queue is defined once for its QSG, in one CF structure: every queue manager "
            "reports the same QQSTCFST for it. Listed: the rows naming another structure than most rows of the "
            "queue do (dq_cf_structures says how many structures its rows name).",
            source=SEED_QSG,
        ),
        qqst(
            "qqst_message_size_min_avg",
            AtMost("QQSTMSMI", "QQSTMSAV"),
            when=(When("dq_messages_put", ">", 0),),
            description="When messages were put (MQPUT + MQPUT1 > 0): minimum size <= average size.",
        ),
        qqst(
            "qqst_message_size_avg_max",
            AtMost("QQSTMSAV", "QQSTMSMA"),
            when=(When("dq_messages_put", ">", 0),),
            description="When messages were put (MQPUT + MQPUT1 > 0): average size <= maximum size.",
        ),
        qqst(
            "qqst_queue_named",
            NotInSet("QQSTQNAM", ("",)),
            description="Every queue statistics entry names its queue.",
        ),
    ]
    return checks


def _ibm(rule: Rule, when=()) -> list[str]:
    return [c for c in dict.fromkeys([*(w.column for w in when), *rule.columns]) if re.fullmatch(r"Q[A-Z0-9_]+", c)]


def _int32_counters(lay: Layout, exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Signed counters of a structure (not identifiers, lengths, pool numbers or flags)."""
    return tuple(
        f.column
        for f in lay.data_fields
        if f.type in ("int32", "int64") and f.column not in exclude and f.name != lay.length_field
    )


def _zero_without(name: str, frame: str, amount: str, count: str, description: str) -> Check:
    """An amount (time, bytes) is 0 in an interval whose count of the events behind it is 0."""
    return Check(
        name,
        frame,
        InSet(amount, (0,)),
        when=(When(count, "==", 0),),
        source=LAYOUTS_DOC,
        description=description,
        fields=(count, amount),
    )


def _other_checks() -> list[Check]:
    qjst = layout("QJST")
    io_slots = sorted({m.group(1) for f in qjst.data_fields if (m := re.match(r"(QJSTIO_\d+_\d+)_", f.column))})
    qpst_counters = _int32_counters(layout("QPST"), exclude=("QPSTPOOL", "QPSTNBUF", "QPSTCBSL", "QPSTCBS"))
    return [
        # QPST: buffer pools
        Check(
            "qpst_lowest_stealable_within_current",
            "qpst",
            AtMost("QPSTCBSL", "QPSTCBS"),
            # X'7FFFFFFF' is MQ's "never set in the interval" (seen in real MQ 10 dumps with QPSTCBS 0).
            when=(When("QPSTCBSL", "!=", QPSTCBSL_NOT_SET),),
            source=LAYOUTS_DOC,
            description="The lowest number of stealable buffers in the interval <= stealable buffers now "
            "(X'7FFFFFFF', the value MQ leaves when the lowest was never set, is no count).",
            fields=("QPSTCBSL", "QPSTCBS"),
        ),
        Check(
            "qpst_stealable_within_buffers",
            "qpst",
            AtMost("QPSTCBS", "QPSTNBUF"),
            source=LAYOUTS_DOC,
            description="Stealable buffers now <= buffers in the pool.",
            fields=("QPSTCBS", "QPSTNBUF"),
        ),
        Check(
            "qpst_pool_number",
            "qpst",
            Between("QPSTPOOL", 0, 99),
            source="IBM MQ DEFINE BUFFPOOL: pool ids 0-99",
            description="Buffer pool numbers are 0 to 99.",
            fields=("QPSTPOOL",),
        ),
        Check(
            "qpst_counters_not_negative",
            "qpst",
            NonNegative(qpst_counters, "dq_smallest_counter"),
            WARN,
            source=LAYOUTS_DOC,
            description="Signed 32-bit buffer manager counters never go negative unless they wrapped.",
            fields=qpst_counters,
        ),
        # QIS1: page sets
        Check(
            "qis1_unused_within_total",
            "qis1",
            AtMost("QIS1UNPG", "QIS1TOPG"),
            source=LAYOUTS_DOC,
            description="Unused pages of a page set <= its total pages.",
            fields=("QIS1UNPG", "QIS1TOPG"),
        ),
        Check(
            "qis1_page_set_number",
            "qis1",
            Between("QIS1PSNO", 0, 99),
            source="IBM MQ DEFINE PSID: page set ids 00-99",
            description="Page set numbers are 0 to 99.",
            fields=("QIS1PSNO",),
        ),
        # QEST: CF manager
        _zero_without(
            "qest_ixllste_time_needs_calls",
            "qest",
            "QESTSSTC",
            "QESTCSEC",
            "No time in IXLLSTE calls without IXLLSTE calls.",
        ),
        _zero_without(
            "qest_ixllstm_time_needs_calls",
            "qest",
            "QESTMSTC",
            "QESTCMEC",
            "No time in IXLLSTM calls without IXLLSTM calls.",
        ),
        Check(
            "qest_structure_number",
            "qest",
            Between("QESTSTRN", 0, 63),
            source=LAYOUTS_DOC,
            description="A CF structure number indexes the 64 QEST entries.",
            fields=("QESTSTRN",),
        ),
        # QJST: log manager
        Check(
            "qjst_compression_failures_within_requests",
            "qjst",
            AtMost("QJSTCMPFAIL", "QJSTCMPREQ"),
            source=LAYOUTS_DOC,
            description="Failed log compressions are a subset of compression requests.",
            fields=("QJSTCMPFAIL", "QJSTCMPREQ"),
        ),
        Check(
            "qjst_decompression_failures_within_requests",
            "qjst",
            AtMost("QJSTDECFAIL", "QJSTDECREQ"),
            source=LAYOUTS_DOC,
            description="Failed log decompressions are a subset of decompression requests.",
            fields=("QJSTDECFAIL", "QJSTDECREQ"),
        ),
        Check(
            "qjst_longest_io_within_total",
            "qjst",
            EachAtMost(
                tuple((f"{s}_QJSTIOMAXIO", f"{s}_QJSTIOTOTIO") for s in io_slots),
                "dq_io_time_excess",
                "QJSTIO[copy][kind].QJSTIOMAXIO <= QJSTIOTOTIO",
            ),
            source=LAYOUTS_DOC,
            description="The longest single log write I/O is part of the total I/O time, per log copy and kind.",
            fields=tuple(f"{s}_{f}" for s in io_slots for f in ("QJSTIOMAXIO", "QJSTIOTOTIO")),
        ),
        Check(
            "qjst_longest_suspend_within_total",
            "qjst",
            EachAtMost(
                tuple((f"{s}_QJSTIOMAXSUS", f"{s}_QJSTIOTOTSUS") for s in io_slots),
                "dq_suspend_time_excess",
                "QJSTIO[copy][kind].QJSTIOMAXSUS <= QJSTIOTOTSUS",
            ),
            source=LAYOUTS_DOC,
            description="The longest suspend is part of the total suspend time, per log copy and kind.",
            fields=tuple(f"{s}_{f}" for s in io_slots for f in ("QJSTIOMAXSUS", "QJSTIOTOTSUS")),
        ),
        Check(
            "qjst_counters_not_negative",
            "qjst",
            NonNegative(_int32_counters(qjst), "dq_smallest_counter"),
            WARN,
            source=LAYOUTS_DOC,
            description="Signed log manager counters never go negative unless they wrapped.",
            fields=_int32_counters(qjst),
        ),
        # QMST: message manager
        _zero_without(
            "qmst_persistent_bytes_need_messages",
            "qmst",
            "QMSTPBP",
            "QMSTSPP",
            "No persistent bytes put without persistent messages put.",
        ),
        _zero_without(
            "qmst_nonpersistent_bytes_need_messages",
            "qmst",
            "QMSTNBP",
            "QMSTSNP",
            "No non-persistent bytes put without non-persistent messages put.",
        ),
        Check(
            "qmst_counters_not_negative",
            "qmst",
            NonNegative(_int32_counters(layout("QMST")), "dq_smallest_counter"),
            WARN,
            source=LAYOUTS_DOC,
            description="Signed message manager counters never go negative unless they wrapped.",
            fields=_int32_counters(layout("QMST")),
        ),
    ]


PITFALLS_SEED = "seeds/data_pitfalls.csv"


def _pitfall_checks() -> list[Check]:
    """Known quirks of MQ's SMF data (the data_pitfalls seed, one row each): warnings that list the
    affected rows, so a site knows which values mean something else than they seem to."""
    return [
        Check(
            "pitfall_qpst_lowest_stealable_never_set",
            "qpst",
            NotInSet("QPSTCBSL", (QPSTCBSL_NOT_SET,)),
            WARN,
            source=f"{PITFALLS_SEED} qpst_lowest_stealable_never_set",
            description="QPSTCBSL X'7FFFFFFF': the lowest number of stealable buffers was never set in the "
            "interval (a sentinel, not a count; seen in MQ 10 dumps with QPSTCBS 0).",
            fields=("QPSTCBSL", "QPSTCBS"),
        ),
        Check(
            "pitfall_qct_dns_longest_request_carried_over",
            "qctdns",
            InSet("dq_longest_request_before_interval", (False,)),
            WARN,
            source=f"{PITFALLS_SEED} qct_dns_longest_request_carried_over (APAR PH69352)",
            description="The DNS task's longest request (QCTLGDU, QCTLGTM) is dated before the interval: it "
            "was carried over from an earlier interval (MQ 9.4.0, PH69352) and is not this interval's.",
            fields=("QCTLGTM", "QCTLGDU", "QCTREQN"),
        ),
    ]


def _structure_checks(tolerance: float) -> list[Check]:
    return [
        Check(
            "structure_identifier",
            "records",
            EqualColumns("identifier", "identifier_expected"),
            # A warning, as in the reader: the triplet and eyecatcher identify a structure; an id the
            # layouts do not list (the QIS1 X'D90F'/X'C927' confusion) is reported, not a failure.
            WARN,
            source=LAYOUTS_DOC,
            description="Every instance carries its structure's identifier (e.g. X'D80F' for QQST); another id is reported.",
        ),
        Check(
            "structure_eyecatcher",
            "records",
            EqualColumns("eyecatcher", "eyecatcher_expected"),
            source=LAYOUTS_DOC,
            description="Every instance carries its structure's eyecatcher (e.g. 'QQST').",
        ),
        Check(
            "duplicate_record",
            "records",
            Unique(("structure", "load_key"), "dq_rows_with_key"),
            when=(When("smf_type", "==", 115),),
            source=f"{LAYOUTS_DOC}: natural keys in structures.csv; mqsmf.spark.plan.natural_key",
            description="A statistics structure instance appears once per natural key as the loader "
            "de-duplicates it (queue manager, subtype, interval start or, without one, the record's STCK "
            "time, and the queue, pool, CF structure, page set or task); twice means a record was loaded twice.",
        ),
        Check(
            "duplicate_record_in_input",
            "unloaded_records",
            NoRows(
                ("source_file", "record_offset", "smf_subtype", "structures", "instances", "duplicate_of"),
                "every decoded record has rows in the raw tables",
            ),
            # A warning: re-sent days and overlapping SMF dump jobs are normal input; the loader keeps
            # one copy by design and smf_load_audit counts the others.
            WARN,
            source=f"mqsmf.spark.load: one row per natural key; {AUDIT_TABLE} records_decoded",
            description="A decoded SMF record has no row in the raw tables: every instance's natural key was "
            "already loaded, so the loader kept the other copy (the same record twice in a dump, or overlapping "
            "dumps, as when a site re-sends a day). Listed with the copy that was kept (duplicate_of).",
        ),
        Check(
            "interval_gap",
            "intervals",
            Between(
                "dq_gap_seconds",
                maximum=tolerance,
                context=("previous_interval_end",),
                label=f"interval_start - previous interval_end <= {tolerance:g} s",
            ),
            # A warning: a lost interval is a coverage fact (SMF records not collected or not sent, a
            # STATIME change, statistics on demand), not damage to the rows that are there.
            WARN,
            when=(When("dq_after_restart", "==", False),),
            source="SMF statistics intervals are back to back (STATIME/SMF global interval)",
            description=f"Each statistics interval of a queue manager (per SMF 115 subtype, i.e. per record kind "
            f"and its structures) starts where the previous one ended (within {tolerance:g} s); a gap means "
            "intervals are missing (listed with the end of the interval before them: the missing time). A gap "
            "after a short interval is a restart (a stopping queue manager writes its unfinished interval) "
            "and is not reported.",
        ),
        Check(
            "interval_overlap",
            "intervals",
            Between(
                "dq_gap_seconds",
                minimum=-tolerance,
                context=("previous_interval_end",),
                label=f"interval_start - previous interval_end >= -{tolerance:g} s",
            ),
            source="SMF statistics intervals are back to back (STATIME/SMF global interval)",
            description=f"No statistics interval of a queue manager (per SMF 115 subtype) starts more than "
            f"{tolerance:g} s before the previous one ended.",
        ),
        Check(
            "interval_length_plausible",
            "intervals",
            Between("interval_seconds", minimum=0, strict_minimum=True, maximum=MAX_INTERVAL_US / 1e6),
            source=f"{LAYOUTS_DOC}: QWHSDURN; STATIME and ACCTIME are at most 1440 minutes",
            description="Every interval has a positive length of at most 24 hours (a longer QWHSDURN is damage; "
            "the decoder gives such an interval no end).",
        ),
        Check(
            "quarantined_span",
            "quarantine",
            NoRows(("source_file", "offset", "length", "smf_type", "smf_subtype", "reason"), "no quarantined span"),
            source="mqsmf.reader quarantine (file, byte offset, reason)",
            description="Undecodable input (bad descriptor words, truncation, wrong identifier or eyecatcher) is "
            f"kept as evidence in {QUARANTINE_TABLE}; any span there is a violation.",
        ),
    ]


def _event_checks() -> list[Check]:
    source = (
        "IBM MQ 'Queue depth events on shared queues': the coordinating queue manager and every other "
        "active member with PERFMEV(ENABLED) each put one event message with the same CorrelId"
    )
    return [
        Check(
            "event_group_one_message_per_member",
            "event_groups",
            EqualColumns("dq_messages", "dq_answering_qmgrs"),
            source=source,
            description="A shared-queue event group holds exactly one message per answering queue manager "
            "(a second message of one member is a duplicate put or a reloaded copy under a new MsgId).",
        ),
        Check(
            "event_group_one_queue",
            "event_groups",
            InSet("dq_queues", (1,)),
            source=source,
            description="Every message of an event group names the same queue.",
        ),
        Check(
            "event_group_one_event",
            "event_groups",
            InSet("dq_events", (1,)),
            source=source,
            description="Every message of an event group reports the same event (Queue Depth High, Low or Full).",
        ),
    ]


def catalogue(*, interval_tolerance: float = DEFAULT_INTERVAL_TOLERANCE_SECONDS) -> Catalogue:
    """Every frame and check of both stages."""
    frames = {f.name: f for f in [*_raw_frames(), *_marts_frames()]}
    checks = [
        *_structure_checks(interval_tolerance),
        *_qqst_checks(),
        *_other_checks(),
        *_event_checks(),
        *_pitfall_checks(),
        *_marts_checks(),
    ]
    names = [c.name for c in checks]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate check names: {duplicates}")
    for c in checks:
        if c.frame not in frames:
            raise ValueError(f"{c.name}: unknown frame {c.frame}")
    return Catalogue(frames, tuple(checks))


# ----------------------------------------------------------------------------------------------
# Marts stage
# ----------------------------------------------------------------------------------------------


# A QSG roll-up mart and the per-queue-manager mart it must equal: the roll-up's object key, the
# members' filter, the member column whose presence means "this member's release has the counters",
# the counters (apportioned by overlap and summed) and the peaks (maximum over the overlapping member
# intervals). Each queue manager reports only its own activity on a shared object (SEED_QSG).
# This is the one definition of the roll-up reconciliation (the dbt project has no copy of it).
# The recomputation takes a different route from the models (README "QSG roll-ups: interval grid and
# coverage"): it reads the member facts (the models read the intermediate rows), builds the day's
# slots once from the roll-up's own slot length and range-joins the member intervals to them (the
# models cut each interval with sequence()), and recounts members and covered seconds from the join.
ROLLUPS = {
    "qsg_queue_rollup": dict(
        rollup="fct_shared_queue_qsg_stats",
        members="fct_queue_stats",
        where="is_shared",
        object="queue_name",
        has_counters="msgs_in",
        description="Shared queues: fct_shared_queue_qsg_stats against fct_queue_stats apportioned to the QSG's "
        "grid slots by overlap and summed over the QSG's queue managers, per queue and slot.",
        sums=(
            "puts", "put1s", "msgs_in", "msgs_out", "gets", "browses", "persistent_msgs_in",
            "nonpersistent_msgs_in", "msgs_in_bytes", "get_bytes", "browse_bytes", "failed_puts",
            "failed_put1s", "failed_gets", "gets_no_msg_available", "gets_truncated_failed", "hard_failed_gets",
            "failed_browses", "expired_msgs",
        ),
        maxima=(("depth_high_max", "depth_high"),),
    ),
    "qsg_cf_rollup": dict(
        rollup="fct_cf_structure_stats",
        members="fct_cf_structure_qmgr_stats",
        where="true",
        object="structure_name",
        has_counters="requests",
        description="CF structures: fct_cf_structure_stats against fct_cf_structure_qmgr_stats apportioned to the "
        "QSG's grid slots by overlap and summed over the QSG's queue managers, per structure and slot.",
        sums=(
            "requests", "single_entry_requests", "multi_entry_requests", "redrives", "request_time_us",
            "structure_full_count",
        ),
        maxima=(("entries_in_use_max", "entries_in_use_max"), ("elements_in_use_max", "elements_in_use_max")),
    ),
}  # fmt: skip
DEFAULT_QSG_GRID_SECONDS = 1800  # dbt var qsg_grid_seconds, when the roll-up has no row to read it from


def rollup_measures(spec: dict) -> tuple[tuple[str, str], ...]:
    """(roll-up column, aggregate over the range-joined member slices ``j``) of one ROLLUPS entry."""
    share = "(j.overlap_seconds / (j.member_end_s - j.member_start_s))"
    # Distinct members as the size of a set: two count(DISTINCT) of different expressions make Spark
    # expand every row per distinct aggregate and shuffle them again (the large day's queue frame:
    # 8.7/4.5/3.5 s with count(DISTINCT), 4.4/2.7/2.8 s with sets; the same rows).
    return (
        ("qmgrs_reporting", "size(collect_set(j.qmgr_name))"),
        (
            "qmgrs_with_counters",
            f"size(collect_set(CASE WHEN j.{spec['has_counters']} IS NOT NULL THEN j.qmgr_name END))",
        ),
        ("covered_member_seconds", "sum(j.overlap_seconds)"),
        *((m, f"sum(j.{m} * {share})") for m in spec["sums"]),
        *((m, f"max(j.{member})") for m, member in spec["maxima"]),
    )


def _rollup_sql(spec: dict) -> Callable[[Mapping[str, str], Any], str | None]:
    def build(tables: Mapping[str, str], spark=None) -> str | None:
        if spec["rollup"] not in tables or spec["members"] not in tables:
            return None
        obj, rollup, measures = spec["object"], tables[spec["rollup"]], rollup_measures(spec)
        member_cols = sorted({spec["has_counters"], *spec["sums"], *(m for _, m in spec["maxima"])})
        members = (
            f"SELECT qsg_name, {obj}, qmgr_name, unix_seconds(aligned_interval_start_at) AS member_start_s, "
            f"unix_seconds(aligned_interval_end_at) AS member_end_s, {', '.join(member_cols)} "
            f"FROM {tables[spec['members']]} WHERE {spec['where']} AND qsg_name IS NOT NULL "
            "AND aligned_interval_end_at > aligned_interval_start_at"
        )
        grid = f"(SELECT coalesce(max(interval_seconds), {DEFAULT_QSG_GRID_SECONDS}) AS g FROM {rollup})"
        # Every slot of the days the members cover, once; then a range join of intervals to slots.
        slots = (
            "SELECT explode(sequence(lo, hi, g)) AS slot_start_s, g FROM (SELECT "
            "cast(floor(min(member_start_s) / grid.g) * grid.g AS BIGINT) AS lo, "
            "cast(floor(max(member_end_s) / grid.g) * grid.g AS BIGINT) AS hi, cast(grid.g AS BIGINT) AS g "
            f"FROM members CROSS JOIN {grid} AS grid GROUP BY grid.g)"
        )
        joined = (
            "SELECT members.*, slots.slot_start_s, slots.g, least(members.member_end_s, slots.slot_start_s + slots.g) "
            "- greatest(members.member_start_s, slots.slot_start_s) AS overlap_seconds FROM members "
            "INNER JOIN slots ON slots.slot_start_s < members.member_end_s "
            "AND slots.slot_start_s + slots.g > members.member_start_s"
        )
        recomputed = (
            f"SELECT j.qsg_name, j.{obj}, j.slot_start_s, max(j.g) AS g, count(*) AS member_rows, "
            + ", ".join(f"{agg} AS member_{m}" for m, agg in measures)
            + f" FROM joined AS j GROUP BY j.qsg_name, j.{obj}, j.slot_start_s"
        )

        def compared(m: str) -> str:
            # Counters are apportioned doubles summed in another order: equal within 1e-9 (relative).
            # A NULL on one side only is a difference (-1: counters are never negative). A row on one
            # side only is the _complete check's finding, not every measure's: compared as equal.
            q, r = f"coalesce(CAST(q.{m} AS DOUBLE), -1)", f"coalesce(CAST(r.member_{m} AS DOUBLE), -1)"
            return (
                f"{q} AS {m}, CASE WHEN q.interval_start_at IS NULL OR r.member_rows IS NULL "
                f"OR abs({q} - {r}) <= 1e-9 * greatest(1, abs({r})) THEN {q} ELSE {r} END AS member_{m}"
            )

        return (
            f"WITH members AS ({members}), slots AS ({slots}), joined AS ({joined}), recomputed AS ({recomputed}) "
            f"SELECT coalesce(q.qsg_name, r.qsg_name) AS qsg_name, coalesce(q.{obj}, r.{obj}) AS {obj}, "
            "coalesce(q.interval_start_at, timestamp_seconds(r.slot_start_s)) AS interval_start_at, "
            "coalesce(q.interval_end_at, timestamp_seconds(r.slot_start_s + r.g)) AS interval_end_at, "
            "q.interval_start_at IS NOT NULL AS in_rollup, r.member_rows IS NOT NULL AS in_members, r.member_rows, "
            + ", ".join(compared(m) for m, _ in measures)
            + f" FROM {rollup} AS q FULL OUTER JOIN recomputed AS r "
            f"ON q.qsg_name <=> r.qsg_name AND q.{obj} = r.{obj} AND unix_seconds(q.interval_start_at) = r.slot_start_s"
        )

    return build


def _marts_frames() -> list[Frame]:
    return [
        Frame(
            name,
            MARTS,
            (spec["rollup"], spec["members"]),
            _rollup_sql(spec),
            spec["description"],
            table_name=literal(spec["rollup"]),
            qmgr_name="CAST(NULL AS STRING)",
            qsg_name="qsg_name",
            object_name=spec["object"],
            interval_start_at="interval_start_at",
            interval_end_at="interval_end_at",
            source_file="CAST(NULL AS STRING)",
            record_offset="CAST(NULL AS BIGINT)",
            derived=(("dq_in_rollup_and_members", "in_rollup AND in_members"),),
        )
        for name, spec in ROLLUPS.items()
    ]


def _marts_checks() -> list[Check]:
    checks = []
    for name, spec in ROLLUPS.items():
        what = "shared queue" if spec["object"] == "queue_name" else "CF structure"
        checks.append(
            Check(
                f"{name}_complete",
                name,
                InSet("dq_in_rollup_and_members", (True,)),
                source=SEED_QSG,
                description=f"Every {spec['rollup']} row has {spec['members']} rows of the same {what} overlapping "
                f"its grid slot, and every slot such rows overlap has its {spec['rollup']} row.",
            )
        )
        for measure, agg in rollup_measures(spec):
            checks.append(
                Check(
                    f"{name}_{measure}",
                    name,
                    EqualColumns(measure, f"member_{measure}"),
                    source=SEED_QSG,
                    description=f"{spec['rollup']}.{measure} = {agg} over the {spec['members']} intervals of the "
                    f"QSG's queue managers range-joined to the same {what}'s grid slot (share = overlap seconds / "
                    "interval seconds).",
                )
            )
    return checks
