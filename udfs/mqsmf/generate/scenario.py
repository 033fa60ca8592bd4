"""Scenario runs: simulation -> logical records -> dump file, plus the truth and the manifest.

A run is deterministic, so it can be repeated: ``generate_scenario`` runs it once to collect the
truth (every value written, typed exactly as the decoder types it) and the manifest;
``write_scenario`` runs it again, streaming records to the file interval by interval (memory
stays bounded for the large day) and completing the manifest with file offsets."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..decode import TYPED, arrow_schema
from ..encode import DumpWriter, RecordHeader, build_records, dump_record, encode, entry_block, version_length
from ..framing import MAX_BLOCK
from ..headers import QWHS_LONG, QWHX_SIZE, TRIPLET_AREA, TRIPLET_SIZE
from ..layouts import layout, placements
from . import topology as topo_mod
from .config import US_PER_S, ScenarioConfig, iso
from .corrupt import apply_corruptions
from .families.channel_initiator import accounted_channels, channel_object_name
from .mp16_oracle import ORACLE_COLUMNS, evaluate_scenario
from .pathology import plan
from .state import Effects, QmgrInterval
from .workload import Simulation

# Per subtype: triplets counted in QWHSNSDA, IFCID (QWHSIID; 0 where IBM documents none), and
# the resource manager / release byte (the channel initiator differs).
SUBTYPES = {
    1: dict(nsda=12, ifcid=1, internal={4: 64, 5: 96}),
    2: dict(nsda=9, ifcid=2, skip=("QPST",)),  # triplet 3 is the obsolete QPST slot: left empty
    201: dict(nsda=2, ifcid=0),
    215: dict(nsda=2, ifcid=8),
    216: dict(nsda=2, ifcid=0),
    231: dict(nsda=6, ifcid=0, rmid=231, release_byte=0),
}
# SMF header, 2 triplets (QWHS and one section), QWHS and QWHX: the record bytes not left for instances
RECORD_OVERHEAD = TRIPLET_AREA + 2 * TRIPLET_SIZE + QWHS_LONG + QWHX_SIZE
# Class 3 accounting (SMF 116): a task's 116/1 record holds its WTID, its WTAS and up to 8 WQ blocks
# (25,076 bytes with V8's 2,792-byte blocks, as MP16 reports for eight queues); each 116/2
# continuation record its WTID and up to 9 more WQ blocks. IFCID and resource manager as in the
# public 116/1 sample.
ACCOUNTING = {1: dict(wq_triplet=3, wq_per_record=8), 2: dict(wq_triplet=2, wq_per_record=9)}
ACCOUNTING_HEADER = dict(ifcid=25, rmid=247)
ACCOUNTING_CONNECTION_TYPE = 2  # QWHCATYP / WTIDATYP: TSO or batch
# Channel accounting (SMF 116/10), as the channel initiator writes it in TESTCHL: the long QWHS with
# the interval (QWHSDURN in TOD units), two triplets, IFCID 0, resource manager 231, release byte 0;
# as many QCST blocks per record as max_record_bytes allows.
CHANNEL_ACCOUNTING = dict(nsda=2, ifcid=0, rmid=231, release_byte=0, triplet=1)
# Context columns of the decoder's typed rows that the truth reproduces (the file position is
# the only one it cannot know).
TRUTH_CONTEXT = (
    "smf_type",
    "smf_subtype",
    "system_id",
    "qmgr",
    "qsg",
    "smf_rel",
    "mq_version",
    "smf_time_local",
    "smf_time",
    "utc_offset_minutes",
    "record_stck",
    "interval_start_local",
    "interval_start",
    "interval_end",
    "interval_seconds",
    "structure_length",
    "entry_index",
)


@dataclass
class LogicalRecord:
    """One logical record ready for the writer, with what it holds."""

    data: bytes
    smf_type: int
    subtype: int
    qmgr: str
    k: int
    instances: dict[str, int]
    # (structure, columns, rows, record context, structure lengths, entry indexes) per structure
    truth: list[tuple] = field(default_factory=list)


class TruthCollector:
    """Rows written per structure: column slices (numpy) and the record context as scalars."""

    def __init__(self, columns: dict[str, set[str]] | None = None) -> None:
        self.columns = columns  # None = every column; else structure -> wanted columns
        self.parts: dict[str, list[tuple[dict, dict, np.ndarray, np.ndarray]]] = {}

    def wants(self, name: str) -> bool:
        return self.columns is None or name in self.columns

    def add(self, name: str, cols: dict[str, np.ndarray], rows: np.ndarray, ctx: dict, lengths, entry_index) -> None:
        if not self.wants(name):
            return
        wanted = None if self.columns is None else self.columns[name]
        sliced = {k: v[rows] for k, v in cols.items() if wanted is None or k in wanted}
        self.parts.setdefault(name, []).append((sliced, ctx, np.asarray(lengths), np.asarray(entry_index)))

    def table(self, name: str) -> pa.Table:
        return truth_table(name, self.parts.get(name, []), None if self.columns is None else self.columns.get(name))


@cache
def _schema(name: str) -> pa.Schema:
    return arrow_schema(name, TYPED)


def truth_table(name: str, parts: list[tuple], wanted: set[str] | None = None) -> pa.Table:
    """Typed Arrow table of the written rows, in the decoder's schema (minus the file position).
    Fields beyond an instance's length are NULL; fields the model leaves out are zero."""
    schema = _schema(name)
    lay = layout(name)
    counts = np.array([len(p[2]) for p in parts], dtype=np.int64)
    n_total = int(counts.sum())
    names = [f for f in schema.names if f not in ("source_file", "record_offset")]
    if wanted is not None:
        names = [f for f in names if f in wanted or f in TRUTH_CONTEXT]
    out: dict[str, pa.Array] = {}
    eff = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.int64)
    flags = {fl.name: fl for fl in lay.flags}
    fields_by_col = {f.column: f for f in lay.data_fields}
    eye = next((x for x in lay.data_fields if x.kind == "char"), None) if lay.eyecatcher else None
    for col in names:
        typ = schema.field(col).type
        if col == "structure_length":
            out[col] = pa.array(eff, type=typ)
        elif col == "entry_index":
            out[col] = pa.array(np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, np.int64), type=typ)
        elif col in TRUTH_CONTEXT:
            scalars = [p[1][col] for p in parts]
            if pa.types.is_string(typ):
                out[col] = pa.array(np.repeat(np.array(scalars, dtype=object), counts), type=typ)
            else:
                out[col] = pa.array(np.repeat(np.array(scalars), counts), type=typ)
        elif col in flags:
            fl = flags[col]
            f = lay.field(fl.field)
            vals = _gather(parts, col, bool)
            absent = (eff < f.end) | (eff < fl.min_length)
            out[col] = pa.array(vals, type=pa.bool_(), mask=absent if absent.any() else None)
        else:
            f = fields_by_col[col]
            absent = eff < f.end
            if col == lay.fields[0].column and lay.id_value is not None and lay.entry_start is None:
                vals = np.full(n_total, lay.id_value)
            elif lay.length_field and col == lay.field(lay.length_field).column:
                vals = eff
            elif eye is not None and col == eye.column and lay.entry_start is None:
                vals = np.full(n_total, lay.eyecatcher, dtype=object)
            elif f.name in {fl.field for fl in lay.flags}:
                vals = np.zeros(n_total, np.uint64)
                for fl in lay.flags:
                    vals |= np.where(_gather(parts, fl.name, bool), np.uint64(fl.mask), np.uint64(0))
            elif f.kind == "hex":  # hex text as given, left-aligned in the field; missing = zeros
                vals = np.array(
                    [bytes.fromhex(v or "").ljust(f.length, b"\0").hex().upper() for v in _gather(parts, col, object)],
                    dtype=object,
                )
            else:
                vals = _gather(parts, col, object if f.kind == "char" else np.int64)
            out[col] = _field_arrow(f, vals, absent, typ)
    return pa.table(out)


def _gather(parts, col: str, dtype) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype)
    pieces = []
    for cols, _, lengths, _ in parts:
        m = len(lengths)
        v = cols.get(col)
        if v is None:
            v = np.full(m, "" if dtype is object else 0, dtype=dtype)
        pieces.append(np.asarray(v))
    return np.concatenate(pieces)


def _field_arrow(f, vals: np.ndarray, absent: np.ndarray, typ: pa.DataType) -> pa.Array:
    mask = absent if absent.any() else None
    kind = f.kind
    if kind == "hex":
        text = pa.array(np.asarray(vals), type=pa.string())
        return pc.if_else(pa.array(absent), pa.nulls(len(text), pa.string()), text) if mask is not None else text
    if kind == "char":
        text = pc.utf8_rtrim(pa.array(np.asarray(vals), type=pa.string()), characters=" ")
        return pc.if_else(pa.array(absent), pa.nulls(len(text), pa.string()), text) if mask is not None else text
    if kind == "u64":
        return pa.array(np.asarray(vals).astype(np.uint64), type=pa.uint64(), mask=mask).cast(typ)
    if kind == "stck":
        v = np.asarray(vals).astype(np.int64)
        never = v == 0
        full = never | absent
        return pa.array(v, type=typ, mask=full if full.any() else None)
    return pa.array(np.asarray(vals).astype(np.int64), type=typ, mask=mask)


class Scenario:
    """A planned scenario: topology, pathologies and the manifest skeleton. Iterating ``run()``
    simulates it and yields its logical records."""

    def __init__(self, config: ScenarioConfig) -> None:
        self.config = config
        rng = np.random.default_rng([config.seed, 1])
        self.topology = topo_mod.build(config, rng)
        self.effects = Effects()
        self.manifest: dict = {}
        self.planned = plan(self, np.random.default_rng([config.seed, 2]))
        self.truth_collector: TruthCollector | None = None

    # -- time ------------------------------------------------------------------------------
    def interval_start_us(self, k: int) -> int:
        return self.config.start_us + k * self.config.interval_seconds * US_PER_S

    # -- records ---------------------------------------------------------------------------
    def run(self, truth: TruthCollector | None = None) -> Iterator[LogicalRecord]:
        """Simulate interval by interval; yield every logical record in file order (a record the
        plan duplicates is yielded twice)."""
        sim = Simulation(self.topology, self.effects, self.config.seed)
        seq = 0
        for k in range(self.topology.steps):
            qis = sim.step(k)
            for qi in qis:
                self.planned.mutate(qi)
            encoded = self._encode_interval(qis)
            for qi in qis:
                for rec in self._records(qi, encoded, truth, seq):
                    seq += 1
                    duplicated = rec.smf_type == 115 and (rec.k, rec.qmgr, rec.subtype) in self.planned.duplicates
                    copies = 2 if duplicated else 1
                    for _ in range(copies):
                        if truth is not None:
                            for part in rec.truth:
                                truth.add(*part)
                        yield rec

    def _encode_interval(self, qis: list[QmgrInterval]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each structure's instances of every queue manager, encoded at once at the layout's full
        length: {structure: (bytes (n, size), first row of each queue manager)}. Each queue
        manager's instances are later cut to its version's length."""
        out = {}
        for name in qis[0].structures:
            lay = layout(name)
            rows = np.array([qi.rows[name] for qi in qis], dtype=np.int64)
            first = np.concatenate([[0], np.cumsum(rows)])
            cols = {
                key: np.concatenate([np.asarray(qi.structures[name][key]) for qi in qis])
                for key in qis[0].structures[name]
            }
            if lay.length_field:
                lengths = [version_length(lay, self.topology.qmgrs[qi.m].version) for qi in qis]
                cols[lay.length_field] = np.repeat(np.array(lengths, dtype=np.int64), rows)
            entry = lay.entry_start is not None
            first_of = {qi.m: int(first[i]) for i, qi in enumerate(qis)}
            out[name] = (encode(lay, cols, int(first[-1]), lay.entry_size if entry else None), first_of)
        return out

    def _records(self, qi: QmgrInterval, encoded: dict, truth: TruthCollector | None, seq0: int) -> list[LogicalRecord]:
        qm = self.topology.qmgrs[qi.m]
        hooks = self.planned.record_hooks.get((qi.k, qm.name), {})
        interval = qm.intervals[qi.k]
        if hooks.get("drop") or interval.lost:
            return []  # interval gap: this queue manager wrote nothing for the interval
        start = interval.start_us + hooks.get("start_shift_us", 0)
        duration = interval.end_us - interval.start_us - hooks.get("start_shift_us", 0)
        end = start + duration
        offset_us = qm.utc_offset_min * 60 * US_PER_S
        headers: list[RecordHeader] = []
        sections: list[dict[int, np.ndarray]] = []
        metas: list[tuple[int, dict]] = []
        for subtype, spec in SUBTYPES.items():
            for secs, meta in self._split(qi, qm, subtype, spec, encoded):
                i = len(headers)
                created = end + (qi.m * 37 + 11) * 1000 + i * 1000  # records leave a few ms after the interval
                headers.append(
                    RecordHeader(
                        smf_type=115,
                        subtype=subtype,
                        system_id=qm.system_id,
                        qmgr=qm.name,
                        rel=qm.rel,
                        smf_time_local_us=created + offset_us + 3000,
                        stck_us=created,
                        interval_start_local_us=start + offset_us,
                        interval_duration=duration,
                        nsda=spec["nsda"],
                        ifcid=spec["ifcid"],
                        rmid=spec.get("rmid", 26),
                        release_byte=spec.get("release_byte", 0x10),
                        sequence=seq0 + i + 1,
                        qwhx_qsg=qm.qsg if qm.qwhx_rel else None,
                        qwhx_rel=qm.qwhx_rel,
                    )
                )
                sections.append(secs)
                metas.append((subtype, meta))
        datas = build_records(headers, sections)
        out = []
        for hdr, data, (subtype, meta) in zip(headers, datas, metas, strict=True):
            rec = LogicalRecord(data, 115, subtype, qm.name, qi.k, {name: len(r[0]) for name, r in meta.items()})
            if truth is not None:
                ctx = self._context(qm, hdr, start, duration)
                for name, (rows, entry_index, lengths) in meta.items():
                    if truth.wants(name):
                        rec.truth.append((name, qi.structures[name], rows, ctx, lengths, entry_index))
            out.append(rec)
        # Accounting records leave after the statistics records, each a millisecond after the previous.
        accounting_at = end + (qi.m * 37 + 11) * 1000 + len(headers) * 1000
        tasks = self._accounting_records(qi, qm, encoded, truth, accounting_at, seq0 + len(headers))
        channels_at = accounting_at + len(tasks) * 1000
        channels = self._channel_accounting_records(
            qi, qm, encoded, truth, channels_at, seq0 + len(headers) + len(tasks), start, duration
        )
        return out + tasks + channels

    def _channel_accounting_records(
        self, qi: QmgrInterval, qm, encoded: dict, truth: TruthCollector | None, written_us: int, seq0: int,
        start: int, duration: int,
    ) -> list[LogicalRecord]:  # fmt: skip
        """The channel initiator's 116/10 records of the interval: one QCST block per channel
        instance, as many records as max_record_bytes needs."""
        n = qi.rows.get("QCST", 0)
        if not n:
            return []
        lay = layout("QCST")
        length = version_length(lay, qm.version)
        data, first = encoded["QCST"]
        mine = data[first[qi.m] : first[qi.m] + n, :length]
        per_record = max(1, (self.config.max_record_bytes - RECORD_OVERHEAD) // length)
        offset_us = qm.utc_offset_min * 60 * US_PER_S
        spec = CHANNEL_ACCOUNTING
        out = []
        for i, lo in enumerate(range(0, n, per_record)):
            rows = np.arange(lo, min(n, lo + per_record))
            created = written_us + i * 1000
            hdr = RecordHeader(
                smf_type=116,
                subtype=10,
                system_id=qm.system_id,
                qmgr=qm.name,
                rel=qm.rel,
                smf_time_local_us=created + offset_us + 3000,
                stck_us=created,
                interval_start_local_us=start + offset_us,
                interval_duration=duration,
                nsda=spec["nsda"],
                ifcid=spec["ifcid"],
                rmid=spec["rmid"],
                release_byte=spec["release_byte"],
                sequence=seq0 + i + 1,
                qwhx_qsg=qm.qsg if qm.qwhx_rel else None,
                qwhx_rel=qm.qwhx_rel,
            )
            (data_bytes,) = build_records([hdr], [{spec["triplet"]: mine[rows]}])
            rec = LogicalRecord(data_bytes, 116, 10, qm.name, qi.k, {"QCST": len(rows)})
            if truth is not None and truth.wants("QCST"):
                ctx = self._context(qm, hdr, start, duration)
                ctx["smf_type"] = 116
                rec.truth.append(
                    ("QCST", qi.structures["QCST"], rows, ctx, np.full(len(rows), length), np.arange(len(rows)))
                )
            out.append(rec)
        return out

    def _accounting_records(
        self, qi: QmgrInterval, qm, encoded: dict, truth: TruthCollector | None, written_us: int, seq0: int
    ) -> list[LogicalRecord]:
        """Each accounted task's 116/1 record (WTID, WTAS, its first WQ blocks) and, when its WQ
        blocks do not fit, 116/2 continuation records (WTID and the next WQ blocks)."""
        if qi.task_of is None or not qi.rows.get("WTAS"):
            return []
        mine = {}
        for name in ("WTID", "WTAS", "WQST"):
            data, first = encoded[name]
            length = version_length(layout(name), qm.version)
            mine[name] = (data[first[qi.m] : first[qi.m] + qi.rows[name], :length], length)
        offset_us = qm.utc_offset_min * 60 * US_PER_S
        headers, sections, metas = [], [], []
        for task in range(qi.rows["WTAS"]):
            blocks = np.nonzero(qi.task_of == task)[0]
            first_count = ACCOUNTING[1]["wq_per_record"]
            chunks = [(1, blocks[:first_count])]
            rest = blocks[first_count:]
            per_record = ACCOUNTING[2]["wq_per_record"]
            chunks += [(2, rest[i : i + per_record]) for i in range(0, len(rest), per_record)]
            wtid = qi.structures["WTID"]
            for subtype, chunk in chunks:
                secs = {1: mine["WTID"][0][task : task + 1]}
                meta = {"WTID": (np.array([task]), np.array([0]), np.array([mine["WTID"][1]]))}
                if subtype == 1:
                    secs[2] = mine["WTAS"][0][task : task + 1]
                    meta["WTAS"] = (np.array([task]), np.array([0]), np.array([mine["WTAS"][1]]))
                if len(chunk):
                    secs[ACCOUNTING[subtype]["wq_triplet"]] = mine["WQST"][0][chunk]
                    meta["WQST"] = (chunk, np.arange(len(chunk)), np.full(len(chunk), mine["WQST"][1]))
                created = written_us + len(headers) * 1000
                headers.append(
                    RecordHeader(
                        smf_type=116,
                        subtype=subtype,
                        system_id=qm.system_id,
                        qmgr=qm.name,
                        rel=qm.rel,
                        smf_time_local_us=created + offset_us + 3000,
                        stck_us=created,
                        interval_start_local_us=0,
                        interval_duration=0,
                        nsda=max(secs) + 1,
                        sequence=seq0 + len(headers) + 1,
                        qwhx_qsg=qm.qsg if qm.qwhx_rel else None,
                        qwhx_rel=qm.qwhx_rel,
                        qwhc={
                            "QWHCAID": str(wtid["WTIDTRAN"][task]),
                            "QWHCCV": str(wtid["WTIDCORI"][task]),
                            "QWHCCN": str(wtid["WTIDCCN"][task]),
                            "QWHCOPID": str(wtid["WTIDOPID"][task]),
                            "QWHCATYP": ACCOUNTING_CONNECTION_TYPE,
                        },
                        **ACCOUNTING_HEADER,
                    )
                )
                sections.append(secs)
                metas.append(meta)
        out = []
        for hdr, data, meta in zip(headers, build_records(headers, sections), metas, strict=True):
            rec = LogicalRecord(data, 116, hdr.subtype, qm.name, qi.k, {name: len(r[0]) for name, r in meta.items()})
            if truth is not None:
                ctx = self._accounting_context(qm, hdr)
                for name, (rows, entry_index, lengths) in meta.items():
                    if truth.wants(name):
                        rec.truth.append((name, qi.structures[name], rows, ctx, lengths, entry_index))
            out.append(rec)
        return out

    def _accounting_context(self, qm, hdr: RecordHeader) -> dict:
        """Record context of an SMF 116 record: no interval (its short QWHS has none)."""
        ctx = self._context(qm, hdr, 0, 0)
        ctx.update(smf_type=116, interval_start_local=None, interval_start=None, interval_end=None)
        ctx["interval_seconds"] = None
        return ctx

    def _context(self, qm, hdr: RecordHeader, start: int, duration: int) -> dict:
        local = hdr.smf_time_local_us // 10_000 * 10_000
        offset_us = qm.utc_offset_min * 60 * US_PER_S
        return {
            "smf_type": 115,
            "smf_subtype": hdr.subtype,
            "system_id": qm.system_id,
            "qmgr": qm.name,
            "qsg": (qm.qsg or "") if qm.qwhx_rel else None,  # MQ 10 writes QWHX, its QSG blank when standalone
            "smf_rel": qm.qwhx_rel or qm.rel,
            "mq_version": qm.version,
            "smf_time_local": local,
            "smf_time": local - offset_us,
            "utc_offset_minutes": qm.utc_offset_min,
            "record_stck": hdr.stck_us,
            "interval_start_local": start + offset_us,
            "interval_start": start,
            "interval_end": start + duration,
            "interval_seconds": duration / US_PER_S,
        }

    def _split(self, qi: QmgrInterval, qm, subtype: int, spec: dict, encoded: dict):
        """The sections of the records of one subtype (several records when instances do not fit
        ``max_record_bytes``): [(sections, {structure: (rows, entry_index, lengths)})]."""
        placed = sorted((t, lay) for t, lay in placements()[(115, subtype)] if lay.name not in spec.get("skip", ()))
        secs: dict[int, np.ndarray] = {t: np.zeros((1, size), np.uint8) for t, size in spec.get("internal", {}).items()}
        meta = {}
        for t, lay in placed:
            data, first = encoded[lay.name]
            n = qi.rows[lay.name]
            mine = data[first[qi.m] : first[qi.m] + n]
            if lay.entry_start is not None:
                secs[t] = entry_block(lay, mine)
                meta[lay.name] = (np.arange(n), np.arange(n), np.full(n, lay.entry_size))
                continue
            length = version_length(lay, qm.version)
            if subtype == 216:  # one queue per instance, as many records as max_record_bytes needs
                per_record = self.queues_per_record(qm)
                parts = []
                for lo in range(0, max(n, 1), per_record):
                    rows = np.arange(lo, min(n, lo + per_record))
                    meta = {lay.name: (rows, np.arange(len(rows)), np.full(len(rows), length))}
                    parts.append(({t: mine[rows, :length]}, meta))
                return parts
            secs[t] = mine[:, :length]
            meta[lay.name] = (np.arange(n), np.arange(n), np.full(n, length))
        return [(secs, meta)]

    def queues_per_record(self, qm) -> int:
        return max(1, (self.config.max_record_bytes - RECORD_OVERHEAD) // version_length(layout("QQST"), qm.version))

    # -- outputs ---------------------------------------------------------------------------
    def truth(self, name: str) -> pa.Table:
        """Every instance of a structure written (typed like the decoder's output)."""
        if self.truth_collector is None:
            self.truth_collector = TruthCollector()
            for _ in self.run(self.truth_collector):
                pass
        return self.truth_collector.table(name)


def _dump_times(scenario: Scenario) -> tuple[str, int, int]:
    qm0 = scenario.topology.qmgrs[0]
    off = qm0.utc_offset_min * 60 * US_PER_S
    first = scenario.interval_start_us(0) + off
    last = scenario.interval_start_us(scenario.config.intervals) + off + 60 * US_PER_S
    return qm0.system_id, first, last


def generate_scenario(config: ScenarioConfig, keep_truth: bool = True) -> Scenario:
    """Plan and run a scenario: its manifest (and, unless ``keep_truth`` is false, its truth
    tables via ``scenario.truth(name)``) are ready on return; nothing is written."""

    scenario = Scenario(config)
    collector = TruthCollector() if keep_truth else TruthCollector(oracle_columns())
    counts = _Counts()
    for rec in scenario.run(collector):
        counts.add(rec)
    if keep_truth:
        scenario.truth_collector = collector
    scenario.manifest = build_manifest(scenario, counts, evaluate_scenario(scenario, collector))
    return scenario


def oracle_columns() -> dict[str, set[str]]:
    return ORACLE_COLUMNS


@dataclass
class _Counts:
    records: Counter = field(default_factory=Counter)
    instances: Counter = field(default_factory=Counter)

    def add(self, rec: LogicalRecord) -> None:
        self.records[f"{rec.smf_type}/{rec.subtype}"] += 1
        self.instances.update({name: n for name, n in rec.instances.items() if n})


def write_scenario(
    scenario: Scenario,
    path: str,
    framing: str = "rdw",
    corrupt: list[str] | tuple[str, ...] | str | None = None,
    block_size: int = MAX_BLOCK,
) -> dict:
    """Write the scenario's dump (type 2 header, the 115 records, type 3 trailer) to ``path`` and
    its manifest to ``path + '.manifest.json'``; return the manifest."""

    kinds = [corrupt] if isinstance(corrupt, str) else list(corrupt or [])
    collector = TruthCollector(oracle_columns())
    counts = _Counts()
    index: list[dict] = []
    sid, first_local, last_local = _dump_times(scenario)
    dup_records: list[dict] = []
    with open(path, "wb") as fh:
        w = DumpWriter(fh, framing, block_size)

        def written(data: bytes, smf_type: int, subtype=None, qmgr=None, k=None, **more) -> dict:
            """Write a record; its entry in the file's record index."""
            where = w.write(data)
            entry = dict(smf_type=smf_type, subtype=subtype, qmgr=qmgr, k=k, offset=where.offset, length=where.length)
            entry.update(segments=where.segments, **more)
            index.append(entry)
            return entry

        written(dump_record(2, sid, first_local), 2)
        for rec in scenario.run(collector):
            entry = written(rec.data, rec.smf_type, rec.subtype, rec.qmgr, rec.k, instances=rec.instances)
            counts.add(rec)
            if rec.smf_type == 115 and (rec.k, rec.qmgr, rec.subtype) in scenario.planned.duplicates:
                dup_records.append(entry)
        written(dump_record(3, sid, last_local), 3)
        w.close()
    firings = evaluate_scenario(scenario, collector)
    manifest = build_manifest(scenario, counts, firings)
    manifest["violations"] = _locate_violations(scenario, manifest["violations"], index, dup_records)
    corruptions = apply_corruptions(path, framing, index, kinds, np.random.default_rng([scenario.config.seed, 3]))
    manifest["corruptions"] = corruptions
    manifest["file"] = _file_facts(path, framing, block_size, index)
    scenario.manifest = manifest
    with open(path + ".manifest.json", "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, default=_json_default)
        fh.write("\n")
    return manifest


def _json_default(v):
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    raise TypeError(f"not JSON serialisable: {type(v).__name__}")


def _locate_violations(scenario: Scenario, violations: list[dict], index: list[dict], dups: list[dict]) -> list[dict]:
    """Add the file offsets of the records each violation is in (for a queue: the one 115/216
    record that holds it)."""
    out = []
    for v in violations:
        v = dict(v)
        if v["check"] == "duplicate_record":
            v["record_offsets"] = [d["offset"] for d in dups if d["qmgr"] == v["qmgr"] and d["k"] == v["interval"]]
        elif v["check"] != "interval_gap":
            subtype = v.get("smf_subtype")
            offsets = [
                e["offset"]
                for e in index
                if e["smf_type"] == 115
                and e["qmgr"] == v["qmgr"]
                and e["k"] == v["interval"]
                and (subtype is None or e["subtype"] == subtype)
            ]
            if "queue_row" in v:
                qm = scenario.topology.qmgr(v["qmgr"])
                offsets = [offsets[v["queue_row"] // scenario.queues_per_record(qm)]]
            v["record_offsets"] = offsets
        out.append(v)
    return out


def _file_facts(path: str, framing: str, block_size: int, index: list[dict]) -> dict:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(16 << 20):
            h.update(chunk)
            size += len(chunk)
    by_type = Counter(f"{e['smf_type']}" + (f"/{e['subtype']}" if e["subtype"] is not None else "") for e in index)
    return {
        "path": path,
        "framing": framing,
        "block_size": block_size if framing != "nordw" else None,
        "size": size,
        "sha256": h.hexdigest(),
        "logical_records": len(index),
        "records_by_type": dict(sorted(by_type.items())),
        "segments": sum(len(e["segments"]) for e in index),
        "spanned_records": sum(1 for e in index if len(e["segments"]) > 1),
        "longest_record": max(e["length"] for e in index),
    }


def build_manifest(scenario: Scenario, counts: _Counts, firings: list[dict]) -> dict:
    cfg, topo = scenario.config, scenario.topology
    return {
        "generator": "mqsmf.generate",
        "manifest_version": 1,
        "seed": cfg.seed,
        "config": cfg.as_dict(),
        "qsg": topo.qsgs[0] if topo.qsgs else None,
        "estate": _estate_facts(topo),
        "time_range": {
            "start": iso(scenario.interval_start_us(0)),
            "end": iso(scenario.interval_start_us(cfg.intervals)),
            "interval_seconds": cfg.interval_seconds,
            "intervals": cfg.intervals,
            "interval_starts": [iso(scenario.interval_start_us(k)) for k in range(cfg.intervals)],
        },
        "lpars": [
            {"system_id": s, "utc_offset_minutes": o}
            for s, o in sorted({(q.system_id, q.utc_offset_min) for q in topo.qmgrs})
        ],
        "qmgrs": [_qmgr_facts(q, [p.name for p in topo.qmgrs]) for q in topo.qmgrs],
        "cf_structures": [
            {"name": n, "number": i + 1, "entries_max": e, "elements_max": el, "smds": smds}
            for i, (n, e, el, smds) in enumerate(topo.structures)
        ],
        "shared_queues": [
            {"name": str(n), "structure": topo.structure_names[s], "qsg": str(g)}
            for n, s, g in zip(topo.shared_names, topo.shared_structure, topo.shared_qsg, strict=True)
        ],
        "partial_records": scenario.planned.partials,
        "injected": scenario.planned.injected,
        "violations": scenario.planned.violations,
        "corruptions": [],
        "expected_firings": firings,
        "rule_assumptions": scenario.planned.assumptions,
        # What the site declares for the configuration rules' injections (site_config_vars turns it,
        # with the CF structure limits above, into dbt vars).
        "site_config": scenario.planned.site,
        "invariants": INVARIANTS,
        "counts": {
            "records": dict(sorted(counts.records.items())),
            "instances": dict(sorted(counts.instances.items())),
        },
    }


def _estate_facts(topo) -> dict:
    """Who is in which QSG, and every irregularity of the queue managers' intervals, so that tests
    can predict the QSG roll-ups (coverage, members with counters) without reading the dump."""
    qqst_counters = {f.name for f in layout("QQST").data_fields if f.name == "QQSTPUTS"}
    counters_from = min(f.end for f in layout("QQST").data_fields if f.name in qqst_counters)
    return {
        "qsgs": [
            {
                "name": g,
                "members": [q.name for q in topo.qmgrs if q.qsg == g],
                "members_with_qqst_counters": [
                    q.name
                    for q in topo.qmgrs
                    if q.qsg == g and version_length(layout("QQST"), q.version) >= counters_from
                ],
                "statime_seconds": sorted({int(q.statime_seconds) for q in topo.qmgrs if q.qsg == g}),
            }
            for g in topo.qsgs
        ],
        "standalone": [q.name for q in topo.qmgrs if q.qsg is None],
        "restarts": [
            {"qmgr": q.name, "interval": i.k, "stopped_at": iso(i.end_us), "short_interval_seconds": i.seconds}
            for q in topo.qmgrs
            for i in q.intervals
            if i.restart
        ],
        "lost_intervals": [
            {"qmgr": q.name, "interval": i.k, "start": iso(i.start_us), "end": iso(i.end_us)}
            for q in topo.qmgrs
            for i in q.intervals
            if i.lost
        ],
    }


def _qmgr_facts(q, peers: list[str]) -> dict:
    return {
        "name": q.name,
        "qsg": q.qsg,
        "statime_seconds": int(q.statime_seconds),
        "first_interval_start": iso(q.intervals[0].start_us) if q.intervals else None,
        # Every interval (written or lost): [start, end, written]
        "intervals": [[iso(i.start_us), iso(i.end_us), not i.lost] for i in q.intervals],
        "system_id": q.system_id,
        "utc_offset_minutes": q.utc_offset_min,
        "mq_version": q.version,
        "smf_rel": q.rel,
        "qwhx_rel": q.qwhx_rel,
        "structure_lengths": {
            name: version_length(layout(name), q.version) for name in ("QQST", "QJST", "QMST", "QESD", "QCCT")
        },
        "buffer_pools": [
            {"pool": int(p), "buffers": int(b), "role": r}
            for p, b, r in zip(q.pools, q.pool_buffers, q.pool_roles, strict=True)
        ],
        "page_sets": [
            {"page_set": int(s), "pool": int(p), "pages": int(n)}
            for s, p, n in zip(q.pagesets, q.pageset_pool, q.pageset_pages, strict=True)
        ],
        "queues": len(q.queues),
        "loglimit": q.loglimit,
        "dual_logging": q.dual_logging,
        "chin": {
            "dispatchers": q.dispatchers,
            "adapters": q.adapters,
            "ssl_tasks": q.ssl_tasks,
            "channels": q.channels,
            # Channels with channel accounting (116/10 QCST, one block each per interval; an injected
            # CHIN16 adds client connections), named as the advisories name them.
            "accounted_channels": [channel_object_name(c) for c in accounted_channels(q, peers)],
        },
    }


# What clean generated data guarantees (the --violate checks break exactly one of these).
INVARIANTS = [
    "QQSTPUTS = QQSTNPPT + QQSTPPT; QQSTPUT1 = QQSTNPP1 + QQSTPP1; QQSTGETS = QQSTNPDG + QQSTPDG; QQSTBRWS = QQSTNPBR + QQSTPBR",
    "QQSTPUTB = QQSTNPPB + QQSTPPB; QQSTPT1B = QQSTNP1B + QQSTP1B; QQSTGETB = QQSTNPDB + QQSTPDB; QQSTBRWB = QQSTNPBB + QQSTPBB",
    "QQSTNMAG + QQSTTMFG <= QQSTFLGT; QQSTNMAB + QQSTTMFB <= QQSTFLBR; QQSTFLGW <= QQSTRDGW; QQSTFPTC <= QQSTNPPT + QQSTNPP1",
    "QQSTMSMI <= QQSTMSAV <= QQSTMSMA (0 when nothing was put); QQSTMSAV = (QQSTPUTB + QQSTPT1B) div (QQSTPUTS + QQSTPUT1)",
    "QQSTDPLO <= QQSTDPHI; complete records: QQSTDPLO <= QQSTDPTH <= QQSTDPHI",
    "private queue, consecutive complete records: DPTH(k) = DPTH(k-1) + PUTS + PUT1 - GETS - EXPR - RBPT + RBGT",
    "shared queue: the same identity holds for the group-wide depth with counters summed over the queue managers",
    "shared queue with QQSTPART: QQSTDPTH = 0, QQSTMAGE = 0, QQSTUNCM off; private queue with QQSTPART: QQSTMAGE = 0",
    "QQSTIPLO <= QQSTIPCT <= QQSTIPHI; QQSTOPLO <= QQSTOPCT <= QQSTOPHI",
    "QPSTCBSL <= QPSTCBS <= QPSTNBUF; QIS1UNPG <= QIS1TOPG",
    "QMSTPUT = sum(QQSTPUTS + QQSTFLPT); QMSTSPP = sum(QQSTPPT + QQSTPP1); QMSTPBP = sum(QQSTPPB + QQSTP1B) (per queue manager and interval)",
    "each queue manager's intervals are contiguous: interval_end(k) = interval_start(k+1); no record is written twice",
]
