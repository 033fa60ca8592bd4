"""The generator's oracle: the rules it can inject, evaluated on typed tables in the decoder's
schema with the thresholds, comparisons and severities of the project's rule catalogue
(seeds/mp16_rules.csv, the same seed the dbt advisories read; nothing is copied here). The same
code runs on the truth (to write ``expected_firings`` into the manifest and to prove that every
injection fires) and on decoded files (tests).

Where the simulation knows more than the records say, the oracle uses that ground truth instead of
re-deriving it from the counters the SQL reads: LOG03 judges the log records the LOGLOAD counter
really held at each checkpoint (``log_truth``: the workload's LOGLOAD for a checkpoint it took by
count, the records since its previous checkpoint for a forced one), not the per-interval estimate
the advisories make.

Conventions where the rules document leaves a choice are in ``pathology.rule_assumptions`` and
the manifest's ``rule_assumptions``.

The configuration rules (BP12, BP14, CF06, CF08, CF15, CF16, LOG12, LOG13, LOG15, Q09) also need what a site declares and SMF does not record
(``SiteConfig``: the structure limits the topology was built with, the queues an injection made
IMS bridge queues, the queue managers an injection declared production, their page set write rates
and unstriped logs); without it they are silent (BP14: judged at MP16's default rate), as the
advisories are without the setting.
CHIN09 divides by the EPVT size an injection declared, else by MP16's planning value (a parameter of the
rule in the seed), as the advisories do."""

from __future__ import annotations

import csv
import math
import operator
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..project import packaged_project
from .config import iso
from .topology import elements_per_message, pages_per_message

# Columns the oracle reads (besides the context columns every table has).
ORACLE_COLUMNS: dict[str, set[str]] = {
    "QPST": {
        "QPSTPOOL",
        "QPSTNBUF",
        "QPSTCBSL",
        "QPSTSOS",
        "QPSTDMC",
        "QPSTSTL",
        "QPSTSTLA",
        "QPSTDWT",
        "QPSTRIO",
        "QPSTTPW",
        "QPSTLOC",
        "QPSTF4KB",
    },
    "QJST": {
        "QJSTWTB",
        "QJSTBFFL",
        "QJSTWRW",
        "QJSTWRNW",
        "QJSTWRF",
        "QJSTLLCP",
        "QJSTIO_0_0_QJSTIOCOUNT",
        "QJSTIO_0_1_QJSTIOCOUNT",
        # SUP05, SUP06 (supplementary rules)
        "QJSTRBUF",
        "QJSTRACT",
        "QJSTRARH",
        "QJSTTVC",
        "QJSTBPAG",
    },
    "QIS1": {"QIS1BPNO", "QIS1CKPP"},
    "QMST": {"QMSTSPP", "QMSTPBP", "QMSTOPEN", "QMSTPUT", "QMSTGET"},
    # Storage manager (115/1), for the supplementary rules SUP01-SUP03.
    "QSST": {"QSSTCRIT", "QSSTABND", "QSSTRCNZ"},
    "QLST": {"QLSTGETL"},  # SUP07
    "QEST": {"QESTSTR", "QESTSFUL", "QESTRSEC", "QESTRMEC", "QESTCSEC", "QESTCMEC", "QESTMNUS", "QESTMLUS"},
    "QESD": {"QESDSTR", "QESDSMBU", "QESDSMBT", "QESDSMFL", "QESDBFWP", "QESDBFWB", "QESDBFPT", "QESDBFBT"},
    "Q5ST": {
        *(f"{kind}{what}" for kind in ("READ", "WRIT", "UPDT", "DELE", "LIST") for what in ("CNT", "TCUW")),
        *(f"LMS{op}" for op in ("SEL", "INS", "UPD", "DEL", "LIS")),
        "SCSINS",
        "SCSUPD",
        "SCSDEL",
        "DHIGMAX",  # SUP08
        "ABNDCNT",
        "DEADCNT",
    },
    # Class 3 accounting (SMF 116): the task (WTID, WTAS) and its queues (WQ blocks).
    "WTID": {"WTIDCCN"},
    "WTAS": {"WTASMTHR", "WTASWTAS", "WTASINTS", "WTASINTE", "WTASCMN", "WTASCMET", "WTASDBCT", "WTASOTN"},
    "WQST": {
        "CORREL",
        "OBJNAME",
        "BASENAME",
        "INDXTYPE",
        "QSGDISP",
        "CFSTRUCNAME",
        "OPENN",
        "OPENCF0",
        "GETN",
        "GETS",
        "GETBRWS",
        "GETSMSG",
        "GETPSN",
        "GETET",
        "GETPMSG",
        "PUTN",
        "PUTET",
        "PUTPMSG",
        "PUT1N",
        "PUT1ET",
        "PUT1PMSG",
        "MAXQDPTH",
    },
    # Channel initiator statistics (115/231): QCCT and the adapter, dispatcher and SSL task arrays.
    "QCCT": {"QCCTJOBN", "QCCTNOCC", "QCCTMXCC", "QCCTNOAC", "QCCTMXAC", "QCCTSTUS"},
    "QCTADP": {"QCTELTM"},
    "QCTDSP": {"QCTELTM", "QCTCHLN"},
    "QCTSSL": {"QCTELTM", "QCTREQN"},
    "QCTDNS": {"QCTLGDU", "QCTLGTM"},  # SUP10 (QCTLGTM: PH69352, a longest request carried over)
    "QCST": {
        "QCSTCHNM",
        "QCSTCNNM",
        "QCSTRQMN",
        "QCSTCHTY",
        "QCSTSTRT",
        "QCSTCBSZ",
        "QCSTCBIT",
        "QCSTNMSG",
        "QCSTNPMG",
        "QCSTBATC",
        "QCSTNBYT",
        "QCSTCSCV",
        "QCSTCPRA",
    },
    "QQST": {
        "QQSTQNAM",
        "QQSTBPID",
        "QQSTPSID",
        "QQSTDPTH",
        "QQSTDPHI",
        "QQSTMSAV",
        "QQSTPUTS",
        "QQSTPUT1",
        "QQSTGETS",
        "QQSTMAGE",
        "QQSTEXPR",
        "QQSTUNCM",
        "QQSTDISP",
        "QQSTPART",
        "QQSTMSMA",
        "QQSTCFST",
        "QQSTQSGN",
        "QQSTIPCT",
        "QQSTDPLO",
    },
}
MQQSGD_SHARED = 2  # WQ QSGDISP of a shared queue
MQIT_NONE = 0  # WQ INDXTYPE of an unindexed queue
# Db2 request kinds of Q5ST (DB02): count and cumulative thread time fields are <kind>CNT, <kind>TCUW.
DB2_REQUEST_KINDS = ("READ", "WRIT", "UPDT", "DELE", "LIST")
SEVERITY_RANK = {"info": 1, "warning": 2, "critical": 3}
ADMIN_STRUCTURE = "CSQ_ADMIN"
# MQCHT_* channel types: those that send batches (sender, server, cluster sender), and SVRCONN.
SENDING_CHANNEL_TYPES = {1, 2, 9}
RECEIVING_CHANNEL_TYPES = {3, 4, 8}  # receiver, requester, cluster receiver
SVRCONN = 7
# LOG10: MP16's table of log bytes for a persistent message put and got on a local queue or a client
# channel, by message length ("How can we estimate the required log data rate for a system?"); the
# cost beyond the message is interpolated between its rows (constant outside them).
MP16_PUT_GET_LOG_BYTES = {500: 1_700, 1_000: 2_300, 5_000: 6_550, 10_000: 11_750, 30_000: 32_800, 100_000: 105_800}
SEEDS = Path("seeds")
SEED = SEEDS / "mp16_rules.csv"
# MP16's reference log rates per DASD model (MB/s for 1 KB / 5 KB / 1 MB persistent messages).
LOG_DASD_RATES_SEED = SEEDS / "site_config_log_dasd_rates.csv"
LOG_RATE_COLUMNS = {1024: "mb_per_sec_1kb", 5 * 1024: "mb_per_sec_5kb", 1 << 20: "mb_per_sec_1mb"}
# LOG02's firings are judged against the fastest reference DASD, so they fire whatever the site's
# DASD; clean data stay below the warning level against the slowest one the generator allows.
REFERENCE_DASD = {
    "LOG_REF_FASTEST": "DS8870-RAID5-4-STRIPES-ZHPF",
    "LOG_REF_SLOWEST": "ESS-E20-ESCON",
}
COMPARE = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
_LEVELS = {
    "info": "info_threshold",
    "warning": "warning_threshold",
    "critical": "critical_threshold",
    "escalation": "escalation_threshold",
    "min_volume": "min_volume",
    "window": "window_length",
}


def seed_path(seed: Path = SEED) -> Path:
    """A seed of the dbt project (default: the rule catalogue): $MQSMF_PROJECT_DIR's, else the one
    this package carries (the wheel's packaged dbt project, or the checkout's)."""
    roots = [Path(os.environ["MQSMF_PROJECT_DIR"])] if os.environ.get("MQSMF_PROJECT_DIR") else []
    packaged = packaged_project()
    roots += [packaged] if packaged is not None else []
    for root in roots:
        if (root / seed).is_file():
            return root / seed
    raise FileNotFoundError(f"the seed {seed} is in none of {', '.join(map(str, roots)) or 'no dbt project'}")


@cache
def log_reference_rates(dasd_model: str) -> dict[int, float]:
    """{message size in bytes: MB/s} of a DASD model from the log DASD rates seed; a model without
    a 1 MB figure has its 5 KB rate there (as dim_mp16_queue_manager_config reads it)."""
    with open(seed_path(LOG_DASD_RATES_SEED), newline="", encoding="utf-8") as fh:
        row = next((r for r in csv.DictReader(fh) if r["dasd_model"] == dasd_model), None)
    if row is None:
        raise KeyError(f"no DASD model {dasd_model!r} in {LOG_DASD_RATES_SEED}")
    rates = {size: float(row[column]) for size, column in LOG_RATE_COLUMNS.items() if row[column]}
    rates.setdefault(1 << 20, rates[5 * 1024])
    return rates


def __getattr__(name: str) -> dict[int, float]:
    """LOG_REF_FASTEST / LOG_REF_SLOWEST: read from the seed when first used (not at import)."""
    if name in REFERENCE_DASD:
        return log_reference_rates(REFERENCE_DASD[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def rule_parameters(path: str | None = None) -> dict[str, dict]:
    """{rule_id: {info, warning, critical, escalation, min_volume, window, <other parameters>,
    comparison, escalation_comparison, base_severity, escalation_severity}} from the seed, with the
    levels a rule leaves empty left out (as the dbt macro mp16_rule_parameters reads it)."""
    out: dict[str, dict] = {}
    with open(path or seed_path(), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            p: dict = {name: float(row[column]) for name, column in _LEVELS.items() if row[column]}
            for pair in filter(None, (row["other_parameters"] or "").split(";")):
                name, value = pair.split("=")
                p[name.strip()] = float(value)
            for name in ("comparison", "escalation_comparison", "base_severity", "escalation_severity"):
                p[name] = row[name] or None
            out[row["rule_id"]] = p
    return out


def level(rule: str, value: float) -> str | None:
    """The most severe level (critical, warning, info) whose threshold ``value`` crosses with the
    rule's comparison; None when none does or the value is unknown."""
    p = rule_parameters()[rule]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    compare = COMPARE[p["comparison"]]
    for name in ("critical", "warning", "info"):
        if name in p and compare(value, p[name]):
            return name
    return None


def threshold_text(rule: str, severity: str) -> str:
    p = rule_parameters()[rule]
    return f"{p['comparison']} {p[severity]:g}"


@dataclass(frozen=True)
class SiteConfig:
    """The site settings the configuration rules read: CF structure limits
    {(qsg, structure): (entries max, elements max)} (CF06, CF08) and SIZE in MB (CF15), IMS bridge queues
    {(qmgr, queue)} (Q09), production queue managers (BP12), the EPVT size of channel initiators
    {qmgr: MB} (CHIN09, which uses MP16's planning value where none is declared), page set write rates
    in MB/s (BP14; MP16's default where none is declared) and queue managers whose active logs are not
    striped (LOG15), restart targets and page set backup intervals (LOG13), structures' recovery
    targets and backup intervals (LOG12) and CFLEVELs (CF16), the processors of each z/OS system
    {system id: CPs} (CHIN02, CHIN07), its MAXPROCSYS / MAXPROCUSER and the user ids of channel
    initiators {qmgr: user id} (CHIN10). Empty: those rules are not judged (CHIN09 and BP14 at
    MP16's values)."""

    cf_limits: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)
    cf_sizes_mb: dict[tuple[str, str], float] = field(default_factory=dict)  # SIZE (CF15)
    ims_bridge_queues: frozenset[tuple[str, str]] = frozenset()
    production_qmgrs: frozenset[str] = frozenset()
    chin_epvt_mb: dict[str, float] = field(default_factory=dict)
    page_set_write_mb_per_sec: dict[str, float] = field(default_factory=dict)  # {qmgr: MB/s} (BP14)
    unstriped_log_qmgrs: frozenset[str] = frozenset()  # LOG15
    # {qmgr: (restart target minutes, page set backup hours)} (LOG13; log read at MP16's default rate)
    page_set_recovery: dict[str, tuple[float, float]] = field(default_factory=dict)
    # {(qsg, structure): (recovery target minutes, BACKUP CFSTRUCT interval minutes)} (LOG12)
    cf_recovery: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    cf_levels: dict[tuple[str, str], int] = field(default_factory=dict)  # {(qsg, structure): CFLEVEL} (CF16)
    processors: dict[str, int] = field(default_factory=dict)  # per z/OS system (CHIN02, CHIN07)
    max_proc_sys: dict[str, int] = field(default_factory=dict)  # per z/OS system (CHIN10)
    max_proc_user: dict[str, int] = field(default_factory=dict)  # per z/OS system (CHIN10)
    chin_user_ids: dict[str, str] = field(default_factory=dict)  # per queue manager (CHIN10)


def cf_message_bytes(sizes: np.ndarray) -> np.ndarray:
    """CF storage of one message of each size (CF15's parameters in seeds/mp16_rules.csv): the list
    elements it takes (topology.elements_per_message), at least min_entry_bytes, plus its entry's
    control; large_message_bytes above max_entry_message_bytes (offloaded)."""
    p = rule_parameters()["CF15"]
    sizes = np.asarray(sizes, dtype=np.int64)
    stored = np.maximum(elements_per_message(sizes) * p["element_bytes"], p["min_entry_bytes"])
    return np.where(sizes > p["max_entry_message_bytes"], p["large_message_bytes"], stored + p["entry_control_bytes"])


def structure_size_mb(entries_max: int, elements_max: int) -> float:
    """SIZE a generated site declares for a structure: its 256-byte list elements plus 256 bytes of
    control per entry (the topology allocates them 6 : 1)."""
    return (elements_max + entries_max) * 256 / 2**20


class Firing(dict):
    """One rule firing: rule_id, severity, qmgr, object_type, object_name, interval,
    interval_start, value, threshold."""


def _num(t: pa.Table, name: str, fill=0) -> np.ndarray:
    c = t.column(name)
    if pa.types.is_decimal(c.type) or pa.types.is_timestamp(c.type):
        c = c.cast(pa.int64())
    out = pc.fill_null(c, fill).to_numpy(zero_copy_only=False)
    return out.astype(np.int64) if out.dtype.kind in "iu" else out


def _present(t: pa.Table, name: str) -> np.ndarray:
    return pc.is_valid(t.column(name)).to_numpy(zero_copy_only=False)


def _str(t: pa.Table, name: str) -> np.ndarray:
    return np.asarray(t.column(name).to_pylist(), dtype=object)


def _codes(t: pa.Table, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values, code of each row) of a string column, without a per-row string copy."""
    d = pc.dictionary_encode(t.column(name)).combine_chunks()
    return np.asarray(d.dictionary.to_pylist(), dtype=object), d.indices.to_numpy(zero_copy_only=False).astype(np.int64)


def _interval_index(t: pa.Table, start_us: int, seconds: int) -> np.ndarray:
    """Interval number from the interval end (an interval whose start was moved keeps its end)."""
    end = _num(t, "interval_end")
    return np.rint((end - start_us) / (seconds * 1e6)).astype(np.int64) - 1


def log10_expected_bytes(persistent_puts: int, persistent_bytes: int, gets: int, channels=()) -> float:
    """LOG10: the log bytes MP16 expects of an interval: each persistent message put and got once
    (MP16's table, by the average length), the gets beyond those puts at MP16's get figure, and for
    each channel (MQCHT type, messages, persistent messages, batches) the batches that can hold a
    persistent message at MP16's per-batch figure (a sender's from its batch-of-1 to its batch-of-50
    figure by the achieved batch size)."""
    p = rule_parameters()["LOG10"]
    expected = 0.0
    if persistent_puts:
        size = persistent_bytes / persistent_puts
        lengths = list(MP16_PUT_GET_LOG_BYTES)
        beyond = [MP16_PUT_GET_LOG_BYTES[n] - n for n in lengths]
        expected += persistent_puts * (size + float(np.interp(size, lengths, beyond)))
    expected += max(0, gets - persistent_puts) * p["get_log_bytes"]
    for kind, msgs, persistent, batches in channels:
        logged = min(batches, persistent)
        if not logged:
            continue
        if kind in SENDING_CHANNEL_TYPES:
            full = p["large_batch_messages"]
            per_batch = np.interp(
                msgs / batches, [1, full], [p["sender_batch_log_bytes"], p["sender_batch_50_log_bytes"]]
            )
            expected += logged * float(per_batch)
        elif kind in RECEIVING_CHANNEL_TYPES:
            expected += logged * p["receiver_batch_log_bytes"]
    return expected


class Oracle:
    def __init__(
        self,
        tables: dict[str, pa.Table],
        roles: dict[tuple[str, int], str],
        start_us: int,
        seconds: int,
        interval_of: dict[tuple[str, int], int] | None = None,
        log_truth: dict[tuple[str, int], float] | None = None,
        site: SiteConfig | None = None,
    ):
        self.t = tables
        self.site = site or SiteConfig()
        self.roles = roles
        self.start_us = start_us
        self.seconds = seconds
        self.interval_of = interval_of  # (qmgr, interval end) -> its interval number, when they are irregular
        self.log_truth = log_truth
        self.p = rule_parameters()
        self.out: list[Firing] = []

    def _k(self, t: pa.Table) -> np.ndarray:
        if self.interval_of is None:
            return _interval_index(t, self.start_us, self.seconds)
        keys = zip(_str(t, "qmgr"), _num(t, "interval_end").tolist(), strict=True)
        return np.array([self.interval_of.get((q, int(e)), -1) for q, e in keys], dtype=np.int64)

    def fire(self, rule, severity, qmgr, object_type, object_name, k, start, value, threshold) -> None:
        self.out.append(
            Firing(
                rule_id=rule,
                severity=severity,
                qmgr=str(qmgr),
                object_type=object_type,
                object_name=str(object_name),
                interval=int(k),
                interval_start=iso(int(start)),
                value=_clean(value),
                threshold=threshold,
            )
        )

    def role(self, qmgr: str, pool: int) -> str:
        return self.roles.get((qmgr, int(pool)), "SYS" if int(pool) == 0 else "UNKNOWN")

    def table(self, name: str) -> pa.Table | None:
        t = self.t.get(name)
        return t if t is not None and t.num_rows else None

    # ------------------------------------------------------------------------------------------
    def run(self) -> list[Firing]:
        self.buffer_pools()
        self.production_pool_size()
        self.log()
        self.checkpoint_write_bursts()
        self.log_striping()
        self.page_set_recovery()
        self.structure_recovery()
        self.cf()
        self.cf_capacity()
        self.cf_sizing()
        self.batch_delete()
        self.smds()
        self.db2()
        self.channel_initiator()
        self.queues()
        self.accounting()
        self.ims_bridge()
        self.channels()
        self.log_volume()
        self.storage_manager()
        self.log_manager()
        self.lock_manager()
        self.db2_manager()
        self.smds_buffers()
        self.dns()
        self.out.sort(key=lambda f: (f["interval"], f["qmgr"], f["rule_id"], f["object_name"]))
        return self.out

    def buffer_pools(self) -> None:
        t = self.table("QPST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        pool, nbuf, cbsl = _num(t, "QPSTPOOL"), _num(t, "QPSTNBUF"), _num(t, "QPSTCBSL")
        sos, dmc, stl, stla = _num(t, "QPSTSOS"), _num(t, "QPSTDMC"), _num(t, "QPSTSTL"), _num(t, "QPSTSTLA")
        dwt, rio, tpw = _num(t, "QPSTDWT"), _num(t, "QPSTRIO"), _num(t, "QPSTTPW")
        above, fixed = _num(t, "QPSTLOC", True).astype(bool), _num(t, "QPSTF4KB", False).astype(bool)
        secs = _num(t, "interval_seconds", 0.0)
        rate = np.where(secs > 0, (rio + tpw) / np.where(secs > 0, secs, 1), 0.0)
        row_of = {(qm[i], int(pool[i]), int(k[i])): i for i in range(len(qm))}
        restart_phase = self._restart_phase(qm, pool, k, rio > 0, "BP06")
        bp03 = self.p["BP03"]
        bp16_window = int(self.p["BP16"]["window"])  # consecutive intervals the rate is sustained
        for i in range(len(qm)):
            args = (qm[i], "buffer_pool", int(pool[i]), k[i], st[i])
            role = self.role(qm[i], pool[i])
            for rule, value, what in (("BP01", sos[i], "QPSTSOS"), ("BP02", dmc[i], "QPSTDMC")):
                sev = level(rule, value)
                if sev:
                    self.fire(rule, sev, *args, int(value), f"{what} {threshold_text(rule, sev)}")
            sev = level("BP03", stla[i])
            if sev:
                ratio = stla[i] / stl[i] if stl[i] else math.inf
                crit = (
                    COMPARE[bp03["escalation_comparison"]](ratio, bp03["escalation"]) and stl[i] >= bp03["min_volume"]
                )
                self.fire(
                    "BP03",
                    bp03["escalation_severity"] if crit else sev,
                    *args,
                    int(stla[i]),
                    f"QPSTSTLA / QPSTSTL {bp03['escalation_comparison']} {bp03['escalation']:g} with QPSTSTL >= "
                    f"{bp03['min_volume']:g}"
                    if crit
                    else f"QPSTSTLA {threshold_text('BP03', sev)}",
                )
            if nbuf[i] > 0:
                pct = 100.0 * cbsl[i] / nbuf[i]
                sev = level("BP04", pct)
                if sev:
                    shown = "info" if sev == "warning" and role == "OTHER" else sev  # MP16 relaxes the OTHER pool
                    self.fire("BP04", shown, *args, pct, f"100 x QPSTCBSL / QPSTNBUF {threshold_text('BP04', sev)}")
            pressure = nbuf[i] > 0 and level("BP04", 100.0 * cbsl[i] / nbuf[i]) is not None
            for rule, value, what, skip in (
                ("BP05", dwt[i], "QPSTDWT", False),
                ("BP06", rio[i], "QPSTRIO", restart_phase[i]),
            ):
                sev = _short_lived(role, level(rule, value))
                if sev and not skip:
                    self.fire(rule, sev, *args, int(value), f"{what} {threshold_text(rule, sev)} ({role} pool)")
                    pressure = pressure or rule == "BP06"
            # Configuration as SMF shows it: below the bar (QPSTLOC off), page fixing (QPSTF4KB).
            previous = row_of.get((qm[i], int(pool[i]), int(k[i]) - 1))
            below_large = not above[i] and role == "LONG" and level("BP13", nbuf[i]) is not None
            was = previous is not None and not above[previous] and level("BP13", nbuf[previous]) is not None
            if below_large and not was:
                sev = level("BP13", nbuf[i])
                self.fire(
                    "BP13", sev, *args, int(nbuf[i]), f"LONG pool below the bar, QPSTNBUF {threshold_text('BP13', sev)}"
                )
            if not above[i] and pressure:
                self.fire(
                    "BP15", self.p["BP15"]["base_severity"], *args, int(cbsl[i]), "below the bar with BP04 / BP06"
                )
            earlier = [row_of.get((qm[i], int(pool[i]), int(k[i]) - d)) for d in range(1, bp16_window)]
            sustained = all(e is not None and level("BP16", rate[e]) is not None for e in earlier)
            sev = level("BP16", rate[i])
            if not fixed[i] and sustained and sev:
                self.fire("BP16", sev, *args, float(rate[i]), f"(QPSTRIO + QPSTTPW) / T {threshold_text('BP16', sev)}")

    def production_pool_size(self) -> None:
        """BP12: on a production queue manager, a pool under pressure (BP01-BP06 fired on it in
        the interval) that holds fewer buffers than MP16's production starting point for its role."""
        t = self.table("QPST")
        if t is None or not self.site.production_qmgrs:
            return
        bp12 = self.p["BP12"]
        pressed = {
            (f["qmgr"], f["object_name"], f["interval"])
            for f in self.out
            if f["rule_id"] in ("BP01", "BP02", "BP03", "BP04", "BP05", "BP06")
        }
        qm, k, st, pool = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _num(t, "QPSTPOOL")
        nbuf = _num(t, "QPSTNBUF")
        for i in range(len(qm)):
            if qm[i] not in self.site.production_qmgrs or (qm[i], str(int(pool[i])), int(k[i])) not in pressed:
                continue
            role = self.role(qm[i], pool[i])
            start = bp12["short_lived_buffers"] if role in ("SYS", "SHORT") else bp12["long_lived_buffers"]
            if not nbuf[i] < start:  # smaller than the starting point
                continue
            sample = int(pool[i]) == 0 and COMPARE[bp12["escalation_comparison"]](nbuf[i], bp12["escalation"])
            self.fire(
                "BP12", bp12["escalation_severity"] if sample else bp12["base_severity"],
                qm[i], "buffer_pool", int(pool[i]), k[i], st[i], int(nbuf[i]),
                f"production {role} pool of {nbuf[i]} buffers under pressure, below {start:g}",
            )  # fmt: skip

    def _restart_phase(self, qm, obj, k, active, rule) -> np.ndarray:
        """Rows in their object's restart phase: from the queue manager's first interval (the
        generator's queue managers start with the scenario and never restart) while the object
        shows the activity in every interval, up to restart_window_minutes after the start."""
        limit = self.p[rule]["restart_window_minutes"] * 60
        first: dict[str, int] = {}
        for q, kk in zip(qm, k, strict=True):
            first[q] = min(first.get(q, kk), kk)
        order = sorted(range(len(qm)), key=lambda i: (qm[i], obj[i], k[i]))
        out = np.zeros(len(qm), bool)
        run: dict[tuple, bool] = {}
        for i in order:
            key = (qm[i], obj[i])
            still = run.get(key, True) and bool(active[i])
            run[key] = still
            out[i] = still and (k[i] - first[qm[i]]) * self.seconds < limit
        return out

    def log(self) -> None:
        t = self.table("QJST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        secs = _num(t, "interval_seconds", 0.0)
        wtb, bffl, llcp = _num(t, "QJSTWTB"), _num(t, "QJSTBFFL"), _num(t, "QJSTLLCP")
        recs = _num(t, "QJSTWRW") + _num(t, "QJSTWRNW") + _num(t, "QJSTWRF")
        avg_size = {}
        m = self.table("QMST")
        if m is not None:
            mk = self._k(m)
            spp, pbp = _num(m, "QMSTSPP"), _num(m, "QMSTPBP")
            for q, kk, s, b in zip(_str(m, "qmgr"), mk, spp, pbp, strict=True):
                avg_size[(q, kk)] = b / s if s else None
        waits = {(q, kk) for q, kk, w in zip(qm, k, wtb, strict=True) if w > 0}
        log01 = self.p["LOG01"]
        run_needed = int(log01["escalation"])
        fastest = log_reference_rates(REFERENCE_DASD["LOG_REF_FASTEST"])
        members: dict[tuple[str, int], list[tuple]] = {}  # CF17: (qsg, interval) -> its members' LOG02
        qsg_of = self.qsg_of()
        for i in range(len(qm)):
            args = (qm[i], "queue_manager", qm[i], k[i], st[i])
            mbps = bffl[i] * 4096 / secs[i] / 2**20 if secs[i] > 0 else 0.0
            log02 = None
            sev = level("LOG01", wtb[i])
            if sev:
                crit = all((qm[i], k[i] - d) in waits for d in range(1, run_needed))
                self.fire(
                    "LOG01",
                    log01["escalation_severity"] if crit else sev,
                    *args,
                    int(wtb[i]),
                    f"QJSTWTB {threshold_text('LOG01', sev)}"
                    + (f" in {run_needed} consecutive intervals" if crit else ""),
                )
            size = avg_size.get((qm[i], k[i]))
            if size and secs[i] > 0:  # LOG02 needs the average persistent put size of the interval
                column = min(fastest, key=lambda c: abs(c - size))
                util = mbps / fastest[column]
                sev = log02 = level("LOG02", util)
                if sev:
                    self.fire(
                        "LOG02",
                        sev,
                        *args,
                        util,
                        f"log MB/s / {fastest[column]} MB/s (fastest reference, {column} B column) "
                        + threshold_text("LOG02", sev),
                    )
            per = self.records_per_checkpoint(qm[i], k[i], recs[i], llcp[i])
            sev = level("LOG03", per) if per is not None else None
            if sev:
                self.fire("LOG03", sev, *args, per, "log records per checkpoint " + threshold_text("LOG03", sev))
            if qsg_of.get(qm[i]):
                members.setdefault((qsg_of[qm[i]], int(k[i])), []).append((mbps, qm[i], st[i], log02 is not None))
        # CF17: LOG02 fires on every member of the QSG that wrote log statistics in the interval.
        cf17 = self.p["CF17"]
        for (qsg, kk), rows in members.items():
            share = sum(fired for *_, fired in rows) / len(rows)
            sev = level("CF17", share)
            if len(rows) >= cf17["min_members"] and sev:
                _, busiest, start, _ = max(rows)
                self.fire(
                    "CF17", sev, busiest, "queue_sharing_group", qsg, kk, start, share,
                    f"share of members at LOG02 >= warning {threshold_text('CF17', sev)}",
                )  # fmt: skip

    def checkpoint_write_bursts(self) -> None:
        """BP14: in each interval with a checkpoint, the bytes a pool's page sets wrote at checkpoints
        (QIS1CKPP pages of 4 KB) for one checkpoint (QJSTLLCP), timed at the page set write rate the
        site declares for the queue manager, MP16's default rate where it declares none."""
        s, j = self.table("QIS1"), self.table("QJST")
        if s is None or j is None:
            return
        checkpoints = {
            (q, int(kk)): int(c) for q, kk, c in zip(_str(j, "qmgr"), self._k(j), _num(j, "QJSTLLCP"), strict=True)
        }
        written: dict[tuple, list] = {}  # (qmgr, pool, interval) -> [checkpoint bytes, interval start]
        rows = zip(
            _str(s, "qmgr"),
            self._k(s),
            _num(s, "QIS1BPNO"),
            _num(s, "QIS1CKPP"),
            _num(s, "interval_start"),
            strict=True,
        )
        for q, kk, pool, pages, start in rows:
            entry = written.setdefault((q, int(pool), int(kk)), [0, start])
            entry[0] += 4096 * int(pages)
        default = self.p["BP14"]["default_page_set_write_mb_per_sec"]
        for (q, pool, kk), (checkpoint_bytes, start) in written.items():
            taken = checkpoints.get((q, kk), 0)
            if not taken:
                continue
            rate = self.site.page_set_write_mb_per_sec.get(q, default)
            seconds = checkpoint_bytes / taken / (rate * 2**20)
            sev = level("BP14", seconds)
            if sev:
                text = f"checkpoint write seconds at {rate:g} MB/s {threshold_text('BP14', sev)}"
                self.fire("BP14", sev, q, "buffer_pool", pool, kk, start, seconds, text)

    def log_striping(self) -> None:
        """LOG15: on the queue managers whose active logs the site declares not striped, copy 1's
        multi-CI log write I/Os as a share of all its log write I/Os (at least min_volume of them)."""
        t = self.table("QJST")
        if t is None or not self.site.unstriped_log_qmgrs:
            return
        log15 = self.p["LOG15"]
        single, multi = _num(t, "QJSTIO_0_0_QJSTIOCOUNT"), _num(t, "QJSTIO_0_1_QJSTIOCOUNT")
        for q, kk, start, one, many in zip(
            _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), single, multi, strict=True
        ):
            writes = int(one) + int(many)
            if q not in self.site.unstriped_log_qmgrs or writes < log15["min_volume"]:
                continue
            sev = level("LOG15", int(many) / writes)
            if sev:
                text = f"multi-CI share of copy 1's log writes {threshold_text('LOG15', sev)}, logs not striped"
                self.fire("LOG15", sev, q, "queue_manager", q, kk, start, int(many) / writes, text)

    def log_volume(self) -> None:
        """LOG10: log written (QJSTBFFL CIs of 4 KB) against MP16's expected log bytes of the
        interval's persistent puts, gets and channel batches, where the log writes at least
        min_volume MB/s and the release reports persistent puts."""
        t, m = self.table("QJST"), self.table("QMST")
        if t is None or m is None or "QMSTSPP" not in m.column_names:
            return
        traffic = {}
        known = _present(m, "QMSTSPP")
        for q, kk, ok, puts, data, gets in zip(
            _str(m, "qmgr"),
            self._k(m),
            known,
            _num(m, "QMSTSPP"),
            _num(m, "QMSTPBP"),
            _num(m, "QMSTGET"),
            strict=True,
        ):
            if ok:
                traffic[(q, int(kk))] = (int(puts), int(data), int(gets))
        channels: dict[tuple[str, int], list[tuple]] = {}
        c = self.table("QCST")
        if c is not None:
            rows = zip(
                _str(c, "qmgr"), self._k(c), _num(c, "QCSTCHTY"), _num(c, "QCSTNMSG"), _num(c, "QCSTNPMG"),
                _num(c, "QCSTBATC"), strict=True,
            )  # fmt: skip
            for q, kk, kind, msgs, persistent, batches in rows:
                channels.setdefault((q, int(kk)), []).append((int(kind), int(msgs), int(persistent), int(batches)))
        log10 = self.p["LOG10"]
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        secs, cis = _num(t, "interval_seconds", 0.0), _num(t, "QJSTBFFL")
        for i in range(len(qm)):
            key = (qm[i], int(k[i]))
            written = float(cis[i]) * 4096
            if key not in traffic or secs[i] <= 0 or written / secs[i] / 2**20 < log10["min_volume"]:
                continue
            expected = log10_expected_bytes(*traffic[key], channels.get(key, ()))
            if expected <= 0:  # no traffic to compare with: no ratio
                continue
            sev = level("LOG10", written / expected)
            if sev:
                self.fire(
                    "LOG10", sev, qm[i], "queue_manager", qm[i], k[i], st[i], written / expected,
                    f"log bytes / MP16's expected bytes {threshold_text('LOG10', sev)}",
                )  # fmt: skip

    def _log_mb_by_qmgr(self, t: pa.Table) -> dict[str, list[tuple[int, int, float]]]:
        """{qmgr: [(interval start us, interval end us, log MB written (QJSTBFFL x 4 KB))]}."""
        out: dict[str, list[tuple[int, int, float]]] = {}
        rows = zip(_str(t, "qmgr"), _num(t, "interval_start"), _num(t, "interval_end"), _num(t, "QJSTBFFL"),
                   strict=True)  # fmt: skip
        for q, start, end, cis in rows:
            out.setdefault(q, []).append((int(start), int(end), int(cis) * 4096 / 2**20))
        return out

    @staticmethod
    def _log_mb_since(intervals: list[tuple[int, int, float]], end_us: int, window_s: float) -> float:
        """Log MB a queue manager wrote in the window_s seconds before end_us (the last backup, when
        backups are taken every window_s): each interval's log in proportion to its overlap with the
        window. Intervals missing from the data add nothing (the result is a lower bound)."""
        since = end_us - window_s * 1e6
        total = 0.0
        for start, stop, mb in intervals:
            overlap = min(stop, end_us) - max(start, since)
            if overlap > 0 and stop > start:
                total += mb * overlap / (stop - start)
        return total

    def page_set_recovery(self) -> None:
        """LOG13 (MP16 formula A, "Recovery", ch. 1, p. 24): the log a queue manager wrote since its
        last page set backup (the declared backup interval before each interval's end) against the
        log its recovery reads within the restart target at MP16's default read rate."""
        t = self.table("QJST")
        if t is None or not self.site.page_set_recovery:
            return
        read_mb_per_s = self.p["LOG13"]["default_log_read_mb_per_sec"]
        logs = self._log_mb_by_qmgr(t)
        rows = zip(_str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _num(t, "interval_end"), strict=True)
        for q, kk, start, end in rows:
            if q not in self.site.page_set_recovery:
                continue
            restart_minutes, backup_hours = self.site.page_set_recovery[q]
            logged_mb = self._log_mb_since(logs[q], int(end), backup_hours * 3600)
            readable_mb = restart_minutes * 60 * read_mb_per_s
            sev = level("LOG13", logged_mb / readable_mb)
            if sev:
                text = f"log since the backup / log read in the restart target {threshold_text('LOG13', sev)}"
                self.fire("LOG13", sev, q, "queue_manager", q, kk, start, logged_mb / readable_mb, text)

    def structure_recovery(self) -> None:
        """LOG12 (MP16 "How often should CF structures be backed up?", ch. 2, p. 79): in each interval,
        the log each member of a queue-sharing group wrote since the structure's last backup (its
        declared BACKUP CFSTRUCT interval before the interval's end); the member with the most ("the
        log containing the most data since fuzzy backup will normally determine the replay time")
        against the log read backwards within the target at MP16's rate; reported on that member."""
        t = self.table("QJST")
        if t is None or not self.site.cf_recovery:
            return
        qsg_of = self.qsg_of()
        logs = self._log_mb_by_qmgr(t)
        read_mb_per_s = self.p["LOG12"]["backward_read_mb_per_sec"]
        busiest: dict[tuple, tuple[float, str, int]] = {}  # (qsg, structure, k) -> (MB, qmgr, start)
        rows = zip(_str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _num(t, "interval_end"), strict=True)
        for q, kk, start, end in rows:
            for (group, name), (_, backup_minutes) in self.site.cf_recovery.items():
                if qsg_of.get(q) != group:
                    continue
                logged_mb = self._log_mb_since(logs[q], int(end), backup_minutes * 60)
                key = (group, name, int(kk))
                if key not in busiest or logged_mb > busiest[key][0]:
                    busiest[key] = (logged_mb, q, start)
        for (group, name, kk), (logged_mb, q, start) in busiest.items():
            target_minutes, _ = self.site.cf_recovery[(group, name)]
            ratio = logged_mb / (target_minutes * 60 * read_mb_per_s)
            sev = level("LOG12", ratio)
            if sev:
                text = f"busiest log since the backup / log read back in the target {threshold_text('LOG12', sev)}"
                self.fire("LOG12", sev, q, "cf_structure", name, kk, start, ratio, text)

    def qsg_of(self) -> dict[str, str]:
        """Queue-sharing group of each queue manager, from its records' headers or its shared queues."""
        out: dict[str, str] = {}
        for name, column in (("QJST", "qsg"), ("QEST", "qsg"), ("Q5ST", "qsg"), ("QQST", "QQSTQSGN")):
            t = self.table(name)
            if t is not None and column in t.column_names:
                for q, g in zip(_str(t, "qmgr"), _str(t, column), strict=True):
                    if g and str(g).strip():
                        out.setdefault(str(q), str(g).strip())
        return out

    def records_per_checkpoint(self, qmgr: str, k: int, records: int, checkpoints: int) -> float | None:
        """LOG03's metric at an interval with checkpoints: from the simulation's ground truth when
        known (the LOGLOAD counter at the checkpoints), else from the records (decoded files
        without truth): records of the intervals since the previous interval with checkpoints."""
        if checkpoints <= 0:
            return None
        if self.log_truth is not None:
            return self.log_truth.get((qmgr, int(k)))
        raise ValueError("LOG03 needs the simulation's log truth (log_truth)")

    def cf(self) -> None:
        t = self.table("QEST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        name = _str(t, "QESTSTR")
        sful, rsec, rmec = _num(t, "QESTSFUL"), _num(t, "QESTRSEC"), _num(t, "QESTRMEC")
        csec, cmec = _num(t, "QESTCSEC"), _num(t, "QESTCMEC")
        mnus, mlus = _num(t, "QESTMNUS"), _num(t, "QESTMLUS")
        cf07 = self.p["CF07"]
        for i in range(len(qm)):
            args = (qm[i], "cf_structure", name[i], k[i], st[i])
            rule = "CF02" if name[i] == ADMIN_STRUCTURE else "CF01"
            sev = level(rule, sful[i])
            if sev:
                self.fire(rule, sev, *args, int(sful[i]), f"QESTSFUL {threshold_text(rule, sev)}")
            calls = csec[i] + cmec[i]
            if calls >= self.p["CF03"]["min_volume"]:
                pct = 100.0 * (rsec[i] + rmec[i]) / calls
                sev = level("CF03", pct)
                if sev:
                    self.fire("CF03", sev, *args, pct, "redrive % " + threshold_text("CF03", sev))
            # CF07: elements per entry in use outside the band, application structures with volume.
            if name[i] != ADMIN_STRUCTURE and mnus[i] >= cf07["min_volume"]:
                ratio = mlus[i] / mnus[i]
                if not cf07["low_ratio"] <= ratio <= cf07["high_ratio"]:
                    self.fire(
                        "CF07", cf07["base_severity"], *args, ratio,
                        f"QESTMLUS / QESTMNUS outside {cf07['low_ratio']:g} .. {cf07['high_ratio']:g}",
                    )  # fmt: skip

    def cf_sizing(self) -> None:
        """CF15: each queue manager's peak depths of a structure's shared queues, in CF storage
        (the list elements each message takes, at least min_entry_bytes, plus its entry's control;
        a message above max_entry_message_bytes large_message_bytes), with overhead_factor, against
        the SIZE the site declares. A message of unknown size (QQSTMSAV 0) counts as the smallest."""
        t = self.table("QQST")
        if t is None or not self.site.cf_sizes_mb:
            return
        cf15 = self.p["CF15"]
        qsg_of = self.qsg_of()
        shared = _num(t, "QQSTDISP", False).astype(bool)
        qm, k, st, structure = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QQSTCFST")
        dphi, each = _num(t, "QQSTDPHI"), cf_message_bytes(_num(t, "QQSTMSAV"))
        stored: dict[tuple, list] = {}
        for i in np.nonzero(shared)[0]:
            key = (qm[i], str(structure[i]).strip(), int(k[i]))
            entry = stored.setdefault(key, [0.0, st[i]])
            entry[0] += float(dphi[i]) * float(each[i])
        for (q, name, kk), (message_bytes, start) in stored.items():
            size_mb = self.site.cf_sizes_mb.get((qsg_of.get(q), name))
            if not size_mb:
                continue
            share = cf15["overhead_factor"] * message_bytes / (size_mb * 2**20)
            sev = level("CF15", share)
            if sev:
                text = f"peak messages x {cf15['overhead_factor']:g} / SIZE {threshold_text('CF15', sev)}"
                self.fire("CF15", sev, q, "cf_structure", name, kk, start, share, text)

    def batch_delete(self) -> None:
        """CF16: on a structure at CFLEVEL max_cf_level or below, each member of the QSG may leave
        dead_messages_per_qmgr deleted messages in it; per queue manager and interval, the largest
        average message it got from the structure's shared queues, in CF storage, so many times for
        every member, against the SIZE the site declares."""
        t = self.table("QQST")
        if t is None or not self.site.cf_levels:
            return
        cf16 = self.p["CF16"]
        qsg_of = self.qsg_of()
        members: dict[str, int] = {}
        for g in qsg_of.values():
            members[g] = members.get(g, 0) + 1
        shared = _num(t, "QQSTDISP", False).astype(bool) & (_num(t, "QQSTGETS") > 0)
        qm, k, st, structure = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QQSTCFST")
        each = cf_message_bytes(_num(t, "QQSTMSAV"))
        largest: dict[tuple, list] = {}  # (qmgr, structure, interval) -> [CF bytes, interval start]
        for i in np.nonzero(shared)[0]:
            entry = largest.setdefault((qm[i], str(structure[i]).strip(), int(k[i])), [0, st[i]])
            entry[0] = max(entry[0], int(each[i]))
        for (q, name, kk), (message_bytes, start) in largest.items():
            qsg = qsg_of.get(q)
            cf_level, size_mb = self.site.cf_levels.get((qsg, name)), self.site.cf_sizes_mb.get((qsg, name))
            if cf_level is None or not size_mb or cf_level > cf16["max_cf_level"]:
                continue
            dead_bytes = members[qsg] * cf16["dead_messages_per_qmgr"] * message_bytes
            sev = level("CF16", dead_bytes / (size_mb * 2**20))
            if sev:
                text = f"messages awaiting batch delete / SIZE {threshold_text('CF16', sev)} at CFLEVEL({cf_level})"
                self.fire("CF16", sev, q, "cf_structure", name, kk, start, dead_bytes / (size_mb * 2**20), text)

    def cf_capacity(self) -> None:
        """CF06 (structure filling) and CF08 (CSQ_ADMIN short of 1,000 free entries per member)
        against the limits the site declares: a structure without them is not judged."""
        t = self.table("QEST")
        if t is None or not self.site.cf_limits:
            return
        qm, k, st, name = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QESTSTR")
        mnus, mlus = _num(t, "QESTMNUS"), _num(t, "QESTMLUS")
        qsg_of = self.qsg_of()
        members: dict[str, int] = {}
        for g in qsg_of.values():
            members[g] = members.get(g, 0) + 1
        cf06, cf08 = self.p["CF06"], self.p["CF08"]
        for i in range(len(qm)):
            qsg = qsg_of.get(qm[i])
            limits = self.site.cf_limits.get((qsg, name[i]))
            if limits is None:
                continue
            entries_max, elements_max = limits
            args = (qm[i], "cf_structure", name[i], k[i], st[i])
            # CF06: the highest level whose share of either limit is in use.
            for sev in ("critical", "warning", "info"):
                if sev in cf06 and any(
                    COMPARE[cf06["comparison"]](100 * used, cf06[sev] * limit)
                    for used, limit in ((mnus[i], entries_max), (mlus[i], elements_max))
                ):
                    used_pct = 100 * max(mnus[i] / entries_max, mlus[i] / elements_max)
                    self.fire(
                        "CF06", sev, *args, used_pct, f"entries or elements in use {threshold_text('CF06', sev)} %"
                    )
                    break
            # CF08: the admin structure must keep 1,000 free entries for every member.
            if name[i] == ADMIN_STRUCTURE:
                free = entries_max - mnus[i]
                need = cf08["warning"] * members[qsg]
                if COMPARE[cf08["comparison"]](free, need):
                    self.fire(
                        "CF08", "warning", *args, free / members[qsg],
                        f"free admin entries {free} below {cf08['warning']:g} x {members[qsg]} members",
                    )  # fmt: skip

    def smds(self) -> None:
        """CF11: each queue manager's shared message data set of a structure (QESD)."""
        t = self.table("QESD")
        if t is None:
            return
        qm, k, st, name = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QESDSTR")
        used, total, failed = _num(t, "QESDSMBU"), _num(t, "QESDSMBT"), _num(t, "QESDSMFL")
        cf11 = self.p["CF11"]
        for i in range(len(qm)):
            share = used[i] / total[i] if total[i] else math.nan
            if COMPARE[cf11["escalation_comparison"]](failed[i], cf11["escalation"]):
                sev, value, what = cf11["escalation_severity"], int(failed[i]), "QESDSMFL > 0"
            else:
                sev, value = level("CF11", share), share
                what = f"QESDSMBU / QESDSMBT {threshold_text('CF11', sev)}" if sev else ""
            if sev:
                self.fire("CF11", sev, qm[i], "smds", name[i], k[i], st[i], value, what)

    def db2(self) -> None:
        """CF09 (Db2 BLOBs), DB02 (slow Db2 requests), DB03 (shared channel status churn) on Q5ST."""
        t = self.table("Q5ST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        secs = _num(t, "interval_seconds", 0.0)
        blobs = sum(_num(t, f"LMS{op}") for op in ("SEL", "INS", "UPD", "DEL", "LIS"))
        changes = _num(t, "SCSINS") + _num(t, "SCSUPD") + _num(t, "SCSDEL")
        per_hour = np.where(secs > 0, 3600.0 * changes / np.where(secs > 0, secs, 1), math.nan)
        db02, db03 = self.p["DB02"], self.p["DB03"]
        window = max(int(db03["baseline_intervals"]), 1)
        history: dict[str, list[float]] = {}
        for i in sorted(range(len(qm)), key=lambda i: (qm[i], k[i])):
            args = (qm[i], "db2_manager", qm[i], k[i], st[i])
            sev = level("CF09", blobs[i])
            if sev:
                self.fire("CF09", sev, *args, int(blobs[i]), f"Db2 BLOB requests {threshold_text('CF09', sev)}")
            averages = {
                kind: _num(t, f"{kind}TCUW")[i] / _num(t, f"{kind}CNT")[i]
                for kind in DB2_REQUEST_KINDS
                if _num(t, f"{kind}CNT")[i] >= db02["min_volume"]
            }
            slowest = max(averages.values(), default=None)
            sev = level("DB02", slowest)
            if sev:
                self.fire(
                    "DB02",
                    sev,
                    *args,
                    slowest,
                    f"slowest Db2 request kind's average thread time {threshold_text('DB02', sev)} us",
                )
            before = history.setdefault(qm[i], [])[-window:]
            sev = level("DB03", per_hour[i])
            if sev and before and per_hour[i] > db03["baseline_factor"] * (sum(before) / len(before)):
                self.fire(
                    "DB03",
                    sev,
                    *args,
                    float(per_hour[i]),
                    f"status changes per hour {threshold_text('DB03', sev)} and above the baseline",
                )
            history[qm[i]].append(float(per_hour[i]))

    def channel_initiator(self) -> None:
        """CHIN01, CHIN03-CHIN06, CHIN08 on each channel initiator's interval: QCCT and its task
        arrays, each task's busy share being the elapsed time it processed requests in the interval."""
        t = self.table("QCCT")
        if t is None:
            return
        tasks: dict[tuple[str, int], dict[str, list[tuple[int, float, int]]]] = {}
        ssl_requests: dict[tuple[str, int], int] = {}
        for name in ("QCTADP", "QCTDSP", "QCTSSL"):
            a = self.table(name)
            if a is None:
                continue
            qm, k, entry = _str(a, "qmgr"), self._k(a), _num(a, "entry_index")
            interval_us = _num(a, "interval_seconds", 0.0) * 1e6
            elapsed = _num(a, "QCTELTM")
            channels = _num(a, "QCTCHLN") if name == "QCTDSP" else np.zeros(len(qm), np.int64)
            requests = _num(a, "QCTREQN") if name == "QCTSSL" else None
            for i in range(len(qm)):
                if name == "QCTSSL":
                    ssl_requests[(qm[i], int(k[i]))] = ssl_requests.get((qm[i], int(k[i])), 0) + int(requests[i])
                busy = 100.0 * elapsed[i] / interval_us[i] if interval_us[i] else math.nan
                tasks.setdefault((qm[i], int(k[i])), {}).setdefault(name, []).append(
                    (int(entry[i]), busy, int(channels[i]))
                )
        p = {rule: self.p[rule] for rule in ("CHIN01", "CHIN03", "CHIN04", "CHIN05", "CHIN06", "CHIN08")}
        qm, k, st, job = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QCCTJOBN")
        current, max_current = _num(t, "QCCTNOCC"), _num(t, "QCCTMXCC")
        storage_mb = _num(t, "QCCTSTUS")
        system, seconds = _str(t, "system_id"), _num(t, "interval_seconds", 0.0)
        persistent = self.channel_persistent_msgs()
        omvs: list[tuple[tuple, str, int]] = []  # (firing args, system, OMVS threads) of each channel initiator
        active, max_active = _num(t, "QCCTNOAC"), _num(t, "QCCTMXAC")
        for i in range(len(qm)):
            args = (qm[i], "channel_initiator", job[i] or qm[i], k[i], st[i])
            mine = tasks.get((qm[i], int(k[i])), {})
            adapters = [busy for _, busy, _ in sorted(mine.get("QCTADP", []))]
            dispatchers = sorted(mine.get("QCTDSP", []))
            ssl = [busy for _, busy, _ in mine.get("QCTSSL", [])]
            # CHIN01: adapters are taken lowest-first; all of them busy is the escalation.
            if adapters:
                if COMPARE[p["CHIN01"]["escalation_comparison"]](min(adapters), p["CHIN01"]["escalation"]):
                    self.fire(
                        "CHIN01", p["CHIN01"]["escalation_severity"], *args, min(adapters),
                        f"least busy adapter {p['CHIN01']['escalation_comparison']} {p['CHIN01']['escalation']:g} %",
                    )  # fmt: skip
                elif sev := level("CHIN01", adapters[-1]):
                    self.fire(
                        "CHIN01", sev, *args, adapters[-1], f"last adapter busy {threshold_text('CHIN01', sev)} %"
                    )
            busy = [b for _, b, _ in dispatchers]
            channels = [c for _, _, c in dispatchers]
            if len(dispatchers) >= 2:
                median = float(np.median(channels))
                if COMPARE[p["CHIN03"]["comparison"]](max(busy), p["CHIN03"]["warning"]) and (
                    min(busy) < p["CHIN03"]["idle_busy_pct"]
                ):
                    self.fire("CHIN03", p["CHIN03"]["base_severity"], *args, max(busy), "one dispatcher busy, one idle")
                elif (
                    max(channels) >= p["CHIN03"]["min_volume"]
                    and median > 0
                    and max(channels) / median >= p["CHIN03"]["channel_skew_factor"]
                ):
                    self.fire(
                        "CHIN03", p["CHIN03"]["base_severity"], *args, max(channels) / median,
                        "most channels on one dispatcher against the median",
                    )  # fmt: skip
            if busy and (sev := level("CHIN04", max(busy))):
                self.fire("CHIN04", sev, *args, max(busy), f"busiest dispatcher {threshold_text('CHIN04', sev)} %")
            if len(dispatchers) < p["CHIN05"]["recommended_dispatchers"] and (sev := level("CHIN05", current[i])):
                self.fire("CHIN05", sev, *args, int(current[i]), f"QCCTNOCC {threshold_text('CHIN05', sev)}")
            if ssl and (sev := level("CHIN06", max(ssl))):
                self.fire("CHIN06", sev, *args, max(ssl), f"busiest SSL task {threshold_text('CHIN06', sev)} %")
            if COMPARE[p["CHIN08"]["escalation_comparison"]](current[i], p["CHIN08"]["escalation"]):
                self.fire(
                    "CHIN08", p["CHIN08"]["escalation_severity"], *args, int(current[i]),
                    f"QCCTNOCC {p['CHIN08']['escalation_comparison']} {p['CHIN08']['escalation']:g}",
                )  # fmt: skip
            else:
                uses = [100.0 * n / m for n, m in ((current[i], max_current[i]), (active[i], max_active[i])) if m]
                if uses and (sev := level("CHIN08", max(uses))):
                    self.fire(
                        "CHIN08", sev, *args, max(uses), f"channels {threshold_text('CHIN08', sev)} % of the limit"
                    )
            self.chin_storage(args, int(storage_mb[i]))
            processors = self.site.processors.get(system[i])
            if processors is not None and seconds[i]:
                per_second = persistent.get((qm[i], int(k[i])), 0) / seconds[i]
                self.chin_adapters(args, len(adapters), processors, per_second)
            self.chin_ssl_tasks(args, ssl, len(dispatchers), ssl_requests.get((qm[i], int(k[i])), 0), processors)
            omvs.append((args, system[i], int(self.p["CHIN10"]["threads_per_chin"]) + len(dispatchers) + len(ssl)))
        self.chin_omvs_threads(omvs)

    def chin_omvs_threads(self, omvs: list[tuple[tuple, str, int]]) -> None:
        """CHIN10: in each interval, the OMVS threads of a system's channel initiators against its
        MAXPROCSYS, and those of the ones started under one user id against its MAXPROCUSER (as the
        site declares them); every channel initiator of a group that reaches the level fires."""
        by_system: dict[tuple[str, int], int] = {}
        by_user: dict[tuple[str, str, int], int] = {}
        for args, system, threads in omvs:
            by_system[(system, args[3])] = by_system.get((system, args[3]), 0) + threads
            user = self.site.chin_user_ids.get(args[0])
            if user is not None:
                by_user[(system, user, args[3])] = by_user.get((system, user, args[3]), 0) + threads
        for args, system, _ in omvs:
            uses = []
            if system in self.site.max_proc_sys:
                uses.append(100.0 * by_system[(system, args[3])] / self.site.max_proc_sys[system])
            user = self.site.chin_user_ids.get(args[0])
            if user is not None and system in self.site.max_proc_user:
                uses.append(100.0 * by_user[(system, user, args[3])] / self.site.max_proc_user[system])
            if uses and (sev := level("CHIN10", max(uses))):
                self.fire(
                    "CHIN10", sev, *args, max(uses), f"OMVS threads {threshold_text('CHIN10', sev)} % of the limit"
                )

    def channel_persistent_msgs(self) -> dict[tuple[str, int], int]:
        """{(qmgr, interval): persistent messages over its channels} from channel accounting (QCST)."""
        t = self.table("QCST")
        if t is None:
            return {}
        out: dict[tuple[str, int], int] = {}
        for q, kk, n in zip(_str(t, "qmgr"), self._k(t), _num(t, "QCSTNPMG"), strict=True):
            out[(q, int(kk))] = out.get((q, int(kk)), 0) + int(n)
        return out

    def chin_adapters(self, args: tuple, adapters: int, processors: int, persistent_per_second: float) -> None:
        """CHIN02: heavy persistent channel work on fewer adapters than MP16's CHIADAPS for the LPAR's
        processors: its base up to base_processors, more per further processor, capped."""
        p = self.p["CHIN02"]
        if persistent_per_second < p["min_persistent_msgs_per_second"]:
            return
        recommended = p["base_adapters"]
        for _ in range(int(p["base_processors"]), processors):
            recommended = min(p["max_adapters"], recommended + p["adapters_per_processor"])
        if sev := level("CHIN02", 100.0 * adapters / recommended):
            self.fire("CHIN02", sev, *args, 100.0 * adapters / recommended, f"{adapters} adapters of {recommended:g}")

    def chin_ssl_tasks(
        self, args: tuple, ssl_busy: list[float], dispatchers: int, requests: int, processors: int | None
    ) -> None:
        """CHIN07: SSL tasks in use fewer than the dispatchers plus MP16's one, or not above the LPAR's
        processors (where declared); or more than that with several of them idle."""
        p = self.p["CHIN07"]
        wanted = dispatchers + p["ssl_tasks_above_dispatchers"]
        in_use = bool(ssl_busy) and requests > 0
        idle = sum(1 for b in ssl_busy if b < p["idle_busy_pct"])
        if in_use and len(ssl_busy) < wanted:
            why = f"{len(ssl_busy)} SSL tasks < {wanted:g}"
        elif in_use and processors is not None and len(ssl_busy) <= processors:
            why = f"{len(ssl_busy)} SSL tasks <= {processors} processors"
        elif len(ssl_busy) > wanted and idle >= p["min_idle_tasks"]:
            why = f"{idle} idle SSL tasks"
        else:
            return
        self.fire("CHIN07", p["base_severity"], *args, idle if why.endswith("idle SSL tasks") else len(ssl_busy), why)

    def chin_storage(self, args: tuple, used_mb: int) -> None:
        """CHIN09: the MB of 31-bit storage the channel initiator uses (QCCTSTUS, as CSQX004I says)
        reach a level's share of its EPVT: the size the site declares, else MP16's planning value."""
        p = self.p["CHIN09"]
        epvt_mb = self.site.chin_epvt_mb.get(args[0], p["planning_epvt_mb"])
        for name in ("critical", "warning", "info"):
            if name in p and COMPARE[p["comparison"]](used_mb, p[name] / 100 * epvt_mb):
                self.fire(
                    "CHIN09",
                    name,
                    *args,
                    100.0 * used_mb / epvt_mb,
                    f"{threshold_text('CHIN09', name)} % of {epvt_mb:g} MB EPVT",
                )
                return

    def queues(self) -> None:
        t = self.table("QQST")
        if t is None:
            return
        k, st = self._k(t), _num(t, "interval_start")
        names_u, name_i = _codes(t, "QQSTQNAM")
        qms_u, qm_i = _codes(t, "qmgr")
        order_u = np.argsort(qms_u.astype(str))  # searchable: sorted distinct queue managers
        qms_u, qm_i = qms_u[order_u], np.argsort(order_u)[qm_i]
        name, qm = names_u[name_i], qms_u[qm_i]
        shared = _num(t, "QQSTDISP", False).astype(bool)
        bpid, psid = _num(t, "QQSTBPID"), _num(t, "QQSTPSID")
        dpth = _num(t, "QQSTDPTH")
        dphi = np.where(_present(t, "QQSTDPHI"), _num(t, "QQSTDPHI"), dpth)
        msav = _num(t, "QQSTMSAV")
        has_puts = _present(t, "QQSTPUTS")
        puts = _num(t, "QQSTPUTS") + _num(t, "QQSTPUT1")
        gets = _num(t, "QQSTGETS")
        has_age = _present(t, "QQSTMAGE")
        age = _num(t, "QQSTMAGE")
        expr = _num(t, "QQSTEXPR")
        uncm = _num(t, "QQSTUNCM", False).astype(bool)
        private = ~shared

        # Q01: queues that do not belong in pool 0 / page set 0 (judged once per distinct name).
        upper = np.char.upper(names_u.astype(str))
        expected_u = (upper == "SYSTEM.CHANNEL.SYNCQ") | np.char.startswith(upper, "SYSTEM.CLUSTER.")
        suspect_u = (
            ~np.char.startswith(upper, "SYSTEM.")
            | np.char.startswith(upper, "SYSTEM.COMMAND.")
            | np.char.startswith(upper, "SYSTEM.ADMIN.")
            | (np.char.find(upper, "DEAD.LETTER") >= 0)
        )
        q01 = private & ((bpid == 0) | (psid == 0)) & ~expected_u[name_i] & suspect_u[name_i]
        for i in np.nonzero(q01)[0]:
            self.fire(
                "Q01",
                self.p["Q01"]["base_severity"],
                qm[i],
                "queue",
                name[i],
                k[i],
                st[i],
                int(bpid[i]),
                "queue other than SYSTEM.CHANNEL.SYNCQ / SYSTEM.CLUSTER.* in pool 0 or page set 0",
            )

        # Q02: message pages per SYS / SHORT pool against its buffers.
        pages = np.maximum(dpth, dphi) * pages_per_message(np.where(msav > 0, msav, 1))
        sel = private & (bpid >= 0)
        kmin = int(k.min()) if len(k) else 0
        width_k = int(k.max()) - kmin + 1 if len(k) else 1
        group = (qm_i * width_k + (k - kmin)) * 100 + np.clip(bpid, 0, 99)
        sums = _group_sum(group[sel], pages[sel])
        qp = self.table("QPST")
        if qp is not None:
            pk = self._k(qp)
            for q, kk, pool, nbuf, s in zip(
                _str(qp, "qmgr"),
                pk,
                _num(qp, "QPSTPOOL"),
                _num(qp, "QPSTNBUF"),
                _num(qp, "interval_start"),
                strict=True,
            ):
                if q not in qms_u:
                    continue
                role = self.role(q, pool)
                key = (int(np.searchsorted(qms_u, q)) * width_k + (int(kk) - kmin)) * 100 + int(pool)
                used = sums.get(key, 0)
                sev = _short_lived(role, level("Q02", used / nbuf)) if nbuf else None
                if sev:
                    self.fire(
                        "Q02",
                        sev,
                        q,
                        "buffer_pool",
                        int(pool),
                        kk,
                        s,
                        used / nbuf,
                        "sum(depth x pages per message) / QPSTNBUF " + threshold_text("Q02", level("Q02", used / nbuf)),
                    )

        # Q03 / Q10: runs over consecutive intervals of the same queue on the same queue manager.
        order = np.lexsort((k, name_i, qm_i))
        same = np.zeros(len(order), bool)
        if len(order) > 1:
            a, b = order[1:], order[:-1]
            same[1:] = (qm_i[a] == qm_i[b]) & (name_i[a] == name_i[b]) & (k[a] == k[b] + 1)
        prev = np.empty_like(order)
        prev[1:] = order[:-1]
        prev[0] = order[0] if len(order) else 0
        o = order
        rising = same & private[o] & has_puts[o] & (dpth[o] > dpth[prev]) & (puts[o] > gets[o])
        rise_run = _run_lengths(rising)
        unc = uncm[o]
        unc_run = _run_lengths(unc, continues=same)
        for rule, runs, values, what in (
            ("Q03", rise_run, dpth[o], "depth rising with puts > gets for consecutive intervals"),
            ("Q10", unc_run, unc_run, "QQSTUNCM set in consecutive intervals"),
        ):
            for j in np.nonzero([level(rule, int(n)) is not None for n in runs])[0]:
                i = o[j]
                self.fire(
                    rule,
                    level(rule, int(runs[j])),
                    qm[i],
                    "queue",
                    name[i],
                    k[i],
                    st[i],
                    int(values[j]),
                    f"{what} {threshold_text(rule, 'warning')}",
                )

        # Q04: message age against two checkpoint intervals, SHORT pools.
        j = self.table("QJST")
        if j is not None:
            jq = np.searchsorted(qms_u, _str(j, "qmgr").astype(str))
            jk = self._k(j)
            known = (jq < len(qms_u)) & (qms_u[np.minimum(jq, len(qms_u) - 1)] == _str(j, "qmgr").astype(str))
            limit = np.full(len(qms_u) * width_k, np.inf)
            n_ckpt, secs = _num(j, "QJSTLLCP"), _num(j, "interval_seconds", 0.0)
            ok = known & (n_ckpt > 0) & (jk >= kmin) & (jk < kmin + width_k)
            limit[jq[ok] * width_k + (jk[ok] - kmin)] = self.p["Q04"]["info"] * secs[ok] / n_ckpt[ok]
            roles = {}
            cand = private & has_age & (bpid >= 0)
            lim = limit[qm_i * width_k + (k - kmin)]
            for i in np.nonzero(cand & (age > lim))[0]:
                key = (qm[i], int(bpid[i]))
                if key not in roles:
                    roles[key] = self.role(*key)
                if roles[key] == "SHORT":
                    self.fire(
                        "Q04",
                        self.p["Q04"]["base_severity"],
                        qm[i],
                        "queue",
                        name[i],
                        k[i],
                        st[i],
                        int(age[i]),
                        f"QQSTMAGE > {self.p['Q04']['info']:g} x T / QJSTLLCP = {lim[i]:g} s",
                    )

        # Q07: expired messages while queue-manager expiry is off.
        q07 = self.p["Q07"]
        for i in np.nonzero(COMPARE[q07["comparison"]](expr, q07["info"]))[0]:
            sev = level("Q07", int(expr[i]))
            text = f"QQSTEXPR {threshold_text('Q07', sev)} (EXPRYINT 0)"
            self.fire("Q07", sev, qm[i], "queue", name[i], k[i], st[i], int(expr[i]), text)

        # CF10: large messages on a shared queue.
        msma = _num(t, "QQSTMSMA")
        for i in np.nonzero(shared & _present(t, "QQSTMSMA"))[0]:
            sev = level("CF10", int(msma[i]))
            if sev:
                text = f"shared queue QQSTMSMA {threshold_text('CF10', sev)}"
                self.fire("CF10", sev, qm[i], "queue", name[i], k[i], st[i], int(msma[i]), text)

        # CF13: a shared queue that keeps going empty while several members wait on it.
        qsgn, ipct, dplo = _str(t, "QQSTQSGN"), _num(t, "QQSTIPCT"), _num(t, "QQSTDPLO")
        cf13 = self.p["CF13"]
        readers: dict[tuple, set] = {}
        for i in np.nonzero(shared & (ipct > 0))[0]:
            readers.setdefault((qsgn[i], name[i], int(k[i])), set()).add(qm[i])
        busy = (puts >= cf13["min_volume"]) & (gets >= cf13["min_volume"])  # its own puts show it the depth
        for i in np.nonzero(shared & _present(t, "QQSTDPLO") & (dplo == 0) & busy)[0]:
            sev = level("CF13", int(dphi[i]))
            if sev and len(readers.get((qsgn[i], name[i], int(k[i])), ())) >= cf13["min_input_qmgrs"]:
                text = f"QQSTDPLO 0, QQSTDPHI {threshold_text('CF13', sev)}, open for input on several members"
                self.fire("CF13", sev, qm[i], "queue", name[i], k[i], st[i], int(dphi[i]), text)

    # ------------------------------------------------------------------------------------------
    def accounted_tasks(self) -> list[dict]:
        """Each task's accounting period (a WTAS row) with its WQ blocks: a block belongs to the
        task of the same queue manager and thread tokens (its correlator's last 16 bytes) whose
        period ended last before the block's record was written (116/2 continuations included)."""
        wtas, wqst = self.table("WTAS"), self.table("WQST")
        if wtas is None:
            return []
        ends = _num(wtas, "WTASINTE")
        if self.interval_of is None:
            ks = np.rint((ends - self.start_us) / (self.seconds * 1e6)).astype(np.int64) - 1
        else:
            ks = np.array(
                [self.interval_of.get((q, int(e)), -1) for q, e in zip(_str(wtas, "qmgr"), ends, strict=True)]
            )
        jobs = {}
        wtid = self.table("WTID")
        if wtid is not None:
            for q, at, job in zip(_str(wtid, "qmgr"), _num(wtid, "record_stck"), _str(wtid, "WTIDCCN"), strict=True):
                jobs[(q, int(at))] = job
        # "Other reqs" (WTASOTN): MP16's failed open of an undefined queue is counted there, not as
        # an open of a WQ block (MP16 "Frequent opening of un-defined queues", ch. 6, p. 183).
        other_calls = _num(wtas, "WTASOTN") if "WTASOTN" in wtas.column_names else np.zeros(wtas.num_rows, np.int64)
        tasks = []
        for i, (q, tokens, at) in enumerate(
            zip(
                _str(wtas, "qmgr"),
                [a + b for a, b in zip(_str(wtas, "WTASMTHR"), _str(wtas, "WTASWTAS"), strict=True)],
                _num(wtas, "record_stck"),
                strict=True,
            )
        ):
            tasks.append(
                dict(
                    qmgr=q,
                    name=f"{jobs.get((q, int(at)), '')}:{tokens}",
                    tokens=tokens,
                    k=int(ks[i]),
                    start=int(_num(wtas, "WTASINTS")[i]),
                    end=int(ends[i]),
                    commits=int(_num(wtas, "WTASCMN")[i]),
                    commit_us=int(_num(wtas, "WTASCMET")[i]),
                    db2=int(_num(wtas, "WTASDBCT")[i]),
                    other=int(other_calls[i]),
                    blocks=[],
                )
            )
        if wqst is None:
            return tasks
        by_tokens: dict[tuple, list[dict]] = {}
        for task in tasks:
            by_tokens.setdefault((task["qmgr"], task["tokens"]), []).append(task)
        columns = ORACLE_COLUMNS["WQST"] - {"CORREL", "OBJNAME", "BASENAME", "CFSTRUCNAME"}
        values = {c: _num(wqst, c) for c in columns}
        base, opened, structure = _str(wqst, "BASENAME"), _str(wqst, "OBJNAME"), _str(wqst, "CFSTRUCNAME")
        written = _num(wqst, "record_stck")
        for i, (q, correl) in enumerate(zip(_str(wqst, "qmgr"), _str(wqst, "CORREL"), strict=True)):
            before = [t for t in by_tokens.get((q, correl[16:]), ()) if t["end"] <= written[i]]
            if not before:
                continue
            owner = max(before, key=lambda t: t["end"])
            block = {c: int(values[c][i]) for c in columns}
            block.update(queue=base[i] or opened[i], structure=structure[i] or "")
            owner["blocks"].append(block)
        return tasks

    def accounting(self) -> None:
        """Class 3 accounting rules: per queue and accounting period (Q05, Q11, CF12), per task
        (APP01, APP02, CF14), per statistics interval of a queue (Q12 with QQST depths, Q13 with
        QQST input handles and gets) and DB01's confirmation of the Db2 counters."""
        tasks = self.accounted_tasks()
        if not tasks:
            return
        p = self.p
        per_queue: dict[tuple, dict] = {}
        for task in tasks:
            for b in task["blocks"]:
                key = (task["qmgr"], b["queue"], task["k"])
                agg = per_queue.setdefault(
                    key, dict(start=task["start"], seconds=0.0, blocks=[], openers=set(), latch=0)
                )
                agg["seconds"] = max(agg["seconds"], (task["end"] - task["start"]) / 1e6)
                agg["blocks"].append(b)
        keys = list(per_queue)
        # Q11 skips the queue's restart phase (gets from the page set since the queue manager started).
        restart = self._restart_phase(
            [q for q, _, _ in keys],
            [name for _, name, _ in keys],
            [k for _, _, k in keys],
            [sum(b["GETPSN"] for b in per_queue[key]["blocks"]) > 0 for key in keys],
            "Q11",
        )
        for (qmgr, queue, k), agg, in_restart in zip(keys, per_queue.values(), restart, strict=True):
            blocks = agg["blocks"]

            def total(*fields, blocks=blocks):
                return sum(b[f] for b in blocks for f in fields)

            args = (qmgr, "queue", queue, k, agg["start"])
            keyed = total("GETS", "GETBRWS")
            if all(b["INDXTYPE"] == MQIT_NONE for b in blocks) and keyed >= p["Q05"]["min_volume"]:
                skipped_each = total("GETSMSG") / keyed
                deepest = max(b["MAXQDPTH"] for b in blocks)
                if level("Q05", skipped_each):
                    self.fire("Q05", p["Q05"]["base_severity"], *args, skipped_each, "GETSMSG per keyed get")
                elif deepest > p["Q05"]["max_depth"]:
                    self.fire("Q05", p["Q05"]["base_severity"], *args, deepest, "MAXQDPTH")
            gets = total("GETN")
            if gets >= p["Q11"]["min_volume"] and not in_restart:
                sev = level("Q11", total("GETPSN") / gets)
                if sev:
                    self.fire("Q11", sev, *args, total("GETPSN") / gets, f"GETPSN / GETN {threshold_text('Q11', sev)}")
            opens = total("OPENN")
            shared = any(b["QSGDISP"] == MQQSGD_SHARED for b in blocks)
            if shared and opens and opens / agg["seconds"] > p["CF12"]["opens_per_second"]:
                to_cf = 1 - total("OPENCF0") / opens
                sev = level("CF12", to_cf)
                if sev:
                    self.fire("CF12", sev, *args, to_cf, f"opens to the CF {threshold_text('CF12', sev)}")
        app01 = p["APP01"]
        for task in tasks:
            blocks, commits = task["blocks"], task["commits"]
            args = (task["qmgr"], "task", task["name"], task["k"], task["start"])
            # MP16 "Use of MQ Utilities" (ch. 1, p. 47): "100 MQPUTs within a single MQCMIT"; gets
            # are not counted (MP16 "Large Units of Work", ch. 6, p. 179: get cost is consistent
            # up to 10,000 messages a unit of work).
            puts = sum(b["PUTN"] + b["PUT1N"] for b in blocks)
            if commits >= app01["min_volume"]:
                sev = level("APP01", puts / commits)
                if sev:
                    self.fire("APP01", sev, *args, puts / commits, f"MQPUTs per MQCMIT {threshold_text('APP01', sev)}")
            persistent = sum(b["GETPMSG"] + b["PUTPMSG"] + b["PUT1PMSG"] for b in blocks)
            seconds = (task["end"] - task["start"]) / 1e6
            if commits and seconds > 0:
                each = persistent / commits
                if p["APP02"]["min_persistent_per_commit"] <= each <= p["APP02"]["max_persistent_per_commit"]:
                    sev = level("APP02", commits / seconds)
                    if sev:
                        self.fire("APP02", sev, *args, commits / seconds, "commits per second")
            structures = {b["structure"] for b in blocks if b["QSGDISP"] == MQQSGD_SHARED and b["structure"]}
            if commits >= p["CF14"]["min_volume"]:
                sev = level("CF14", len(structures))
                if sev:
                    self.fire("CF14", sev, *args, len(structures), "CF structures in the units of work")
        self.accounting_with_statistics(tasks)

    def accounting_with_statistics(self, tasks: list[dict]) -> None:
        """Q12 and Q13 (QQST with the queues' WQ blocks), DB01 (Q5ST and QMST with the tasks)."""
        p = self.p
        t = self.table("QQST")
        if t is not None:
            index_type: dict[tuple, dict[int, int]] = {}
            consumers: dict[tuple, list[dict]] = {}
            for task in tasks:
                for b in task["blocks"]:
                    seen = index_type.setdefault((task["qmgr"], b["queue"]), {})
                    seen[task["k"]] = max(seen.get(task["k"], 0), b["INDXTYPE"])
                    if b["GETN"] > 0:
                        consumers.setdefault((task["qmgr"], b["queue"], task["k"]), []).append((b["GETN"], task))
            qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
            name, depth, gets, ipct = _str(t, "QQSTQNAM"), _num(t, "QQSTDPTH"), _num(t, "QQSTGETS"), _num(t, "QQSTIPCT")
            shared = _num(t, "QQSTDISP", False).astype(bool)
            secs = _num(t, "interval_seconds", 0.0)
            for i in range(len(qm)):
                args = (qm[i], "queue", name[i], k[i], st[i])
                known = {kk: v for kk, v in index_type.get((qm[i], name[i]), {}).items() if kk <= k[i]}
                if known and not shared[i] and known[max(known)] != MQIT_NONE:
                    sev = level("Q12", int(depth[i]))
                    if sev:
                        self.fire("Q12", sev, *args, int(depth[i]), f"indexed, QQSTDPTH {threshold_text('Q12', sev)}")
                candidates = consumers.get((qm[i], name[i], int(k[i])), [])
                if ipct[i] == 1 and gets[i] > 0 and candidates and secs[i] > 0:
                    _, task = max(candidates, key=lambda c: c[0])
                    work = sum(b["GETET"] + b["PUTET"] + b["PUT1ET"] for b in task["blocks"]) + task["commit_us"]
                    task_gets = sum(b["GETN"] for b in task["blocks"])
                    busy = gets[i] / secs[i] * (work / task_gets) / 1e6
                    sev = level("Q13", busy)
                    if sev:
                        self.fire("Q13", sev, *args, busy, f"single consumer busy {threshold_text('Q13', sev)}")
        db2, mm = self.table("Q5ST"), self.table("QMST")
        if db2 is None or mm is None:
            return
        opens = {
            (q, int(e)): int(o)
            for q, e, o in zip(_str(mm, "qmgr"), _num(mm, "interval_end"), _num(mm, "QMSTOPEN"), strict=True)
        }
        lookups = {
            (task["qmgr"], task["k"])
            for task in tasks
            if task["db2"] > 0
            and (sum(b["OPENN"] for b in task["blocks"]) > 0 or task["other"] > 0)
            and sum(b["GETN"] + b["PUTN"] + b["PUT1N"] for b in task["blocks"]) == 0
        }
        db01 = p["DB01"]
        qm, k, st, end = _str(db2, "qmgr"), self._k(db2), _num(db2, "interval_start"), _num(db2, "interval_end")
        secs = _num(db2, "interval_seconds", 0.0)
        reads = _num(db2, "READCNT")
        definitions = _num(db2, "WRITCNT") + _num(db2, "UPDTCNT") + _num(db2, "DELECNT")
        for i in range(len(qm)):
            opened = opens.get((qm[i], int(end[i])))  # QMSTOPEN: 0 when every open failed
            if (qm[i], int(k[i])) not in lookups or not reads[i] or opened is None or secs[i] <= 0:
                continue
            if definitions[i] / reads[i] <= db01["max_definition_share"] and (
                not opened or reads[i] / opened > db01["min_reads_per_open"]
            ):
                sev = level("DB01", reads[i] / secs[i])
                if sev:
                    self.fire(
                        "DB01", sev, qm[i], "db2_manager", qm[i], k[i], st[i], reads[i] / secs[i],
                        f"Db2 reads per second {threshold_text('DB01', sev)}, confirmed by open-only tasks",
                    )  # fmt: skip

    def ims_bridge(self) -> None:
        """Q09: a queue the site declares an IMS bridge queue reaches the depth MP16 read as its
        TPIPE task not keeping up."""
        t = self.table("QQST")
        if t is None or not self.site.ims_bridge_queues:
            return
        qm, k, st, name = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QQSTQNAM")
        dphi = _num(t, "QQSTDPHI")
        for i in range(len(qm)):
            if (qm[i], str(name[i]).strip()) in self.site.ims_bridge_queues:
                sev = level("Q09", int(dphi[i]))
                if sev:
                    text = f"IMS bridge queue QQSTDPHI {threshold_text('Q09', sev)}"
                    self.fire("Q09", sev, qm[i], "queue", str(name[i]).strip(), k[i], st[i], int(dphi[i]), text)

    def channels(self) -> None:
        """CHIN11-CHIN15, CHIN17 per channel (name, connection name, remote queue manager) and
        interval, its instances' QCST blocks summed; CHIN16 per channel name over its instances.
        Runs after log(): CHIN11 escalates where LOG02 fired at warning or above."""
        t = self.table("QCST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        secs = _num(t, "interval_seconds", 0.0)
        name = _str(t, "QCSTCHNM")
        conn = [c or "" for c in _str(t, "QCSTCNNM")]
        remote = [r or "" for r in _str(t, "QCSTRQMN")]
        kind, started = _num(t, "QCSTCHTY"), _num(t, "QCSTSTRT")
        size, interval_ms = _num(t, "QCSTCBSZ"), _num(t, "QCSTCBIT")
        msgs, kept, batches = _num(t, "QCSTNMSG"), _num(t, "QCSTNPMG"), _num(t, "QCSTBATC")
        data, conversations = _num(t, "QCSTNBYT"), _num(t, "QCSTCSCV")
        log_bound = {
            (f["qmgr"], f["interval"]) for f in self.out if f["rule_id"] == "LOG02" and f["severity"] != "info"
        }
        compression = _num(t, "QCSTCPRA")
        busy_dispatcher = {(f["qmgr"], f["interval"]): f["value"] for f in self.out if f["rule_id"] == "CHIN04"}
        groups: dict[tuple, list[int]] = {}
        churn: dict[tuple, list[int]] = {}
        for i in range(len(qm)):
            groups.setdefault((qm[i], name[i], conn[i], remote[i], int(k[i])), []).append(i)
            churn.setdefault((qm[i], name[i], int(k[i])), []).append(i)
        p = self.p
        for (q, n, c, r, kk), rows in groups.items():
            args = (q, "channel", "/".join((n, c, r)), kk, min(st[i] for i in rows))
            total = sum(int(msgs[i]) for i in rows)
            persistent = sum(int(kept[i]) for i in rows)
            ends = sum(int(batches[i]) for i in rows)
            seconds = max(secs[i] for i in rows)
            rate = total / seconds if seconds > 0 else 0.0
            per_batch = total / ends if ends else None
            batch, wait = max(int(size[i]) for i in rows), max(int(interval_ms[i]) for i in rows)
            sending = int(max(kind[i] for i in rows)) in SENDING_CHANNEL_TYPES
            chin11 = p["CHIN11"]
            carries_persistent = COMPARE[chin11["escalation_comparison"]](persistent, chin11["escalation"])
            # MP16 "Setting BATCHSZ and BATCHINT" (ch. 3, p. 125), synchronous request/reply: "For
            # persistent messages, absolute best efficiency might then be achieved with BATCHSZ of 1".
            recommended = batch == 1 and wait == 0 and carries_persistent
            if sending and per_batch is not None and rate >= chin11["min_msgs_per_second"] and not recommended:
                sev = level("CHIN11", per_batch)
                escalated = (q, kk) in log_bound and carries_persistent
                if sev:
                    self.fire(
                        "CHIN11", chin11["escalation_severity"] if escalated else sev, *args, per_batch,
                        f"messages per batch {threshold_text('CHIN11', sev)}"
                        + (" with persistent messages while LOG02 >= warning" if escalated else ""),
                    )  # fmt: skip
            sev = level("CHIN12", batch)
            if sev:
                self.fire("CHIN12", sev, *args, batch, f"QCSTCBSZ {threshold_text('CHIN12', sev)}")
            chin13 = p["CHIN13"]
            avg = sum(int(data[i]) for i in rows) / total if total else None
            if avg is not None:
                if COMPARE[chin13["escalation_comparison"]](avg, chin13["escalation"]) and (
                    batch > chin13["escalation_batch_size"]
                ):
                    self.fire(
                        "CHIN13", chin13["escalation_severity"], *args, avg,
                        f"bytes per message {chin13['escalation_comparison']} {chin13['escalation']:g} "
                        f"with QCSTCBSZ > {chin13['escalation_batch_size']:g}",
                    )  # fmt: skip
                elif level("CHIN13", avg) and batch > chin13["info_batch_size"]:
                    self.fire(
                        "CHIN13", level("CHIN13", avg), *args, avg,
                        f"bytes per message {threshold_text('CHIN13', 'info')} with QCSTCBSZ > "
                        f"{chin13['info_batch_size']:g}",
                    )  # fmt: skip
            sev = level("CHIN14", wait)
            if sev:
                self.fire("CHIN14", sev, *args, wait, f"QCSTCBIT {threshold_text('CHIN14', sev)} ms")
            chin15 = p["CHIN15"]
            non_persistent = persistent == 0 and wait == 0 and rate >= chin15["min_msgs_per_second"]
            sev = level("CHIN15", per_batch) if sending and non_persistent and per_batch is not None else None
            if sev:
                self.fire("CHIN15", sev, *args, per_batch, f"NP-only, BATCHINT 0, {threshold_text('CHIN15', sev)}")
            chin17 = p["CHIN17"]
            shared = max(int(conversations[i]) for i in rows) > chin17["min_shared_conversations"]
            if int(max(kind[i] for i in rows)) == SVRCONN and shared and total:
                sev = level("CHIN17", persistent / total)
                if sev:
                    self.fire(
                        "CHIN17", sev, *args, persistent / total, f"persistent share {threshold_text('CHIN17', sev)}"
                    )
            compressed = max(int(compression[i]) for i in rows)
            if (q, kk) in busy_dispatcher and (sev := level("CHIN18", compressed)):
                self.fire(
                    "CHIN18", sev, *args, compressed,
                    f"QCSTCPRA {threshold_text('CHIN18', sev)} while a dispatcher is busy "
                    f"{busy_dispatcher[(q, kk)]:.0f} % (CHIN04)",
                )  # fmt: skip
        chin16 = p["CHIN16"]
        for (q, n, kk), rows in churn.items():
            begun = [i for i in rows if started[i] >= st[i]]
            seconds = max(secs[i] for i in rows)
            if not begun or seconds <= 0:
                continue
            median = float(np.median([int(msgs[i]) for i in begun]))
            sev = level("CHIN16", len(begun) / seconds) if median <= chin16["max_median_msgs"] else None
            if sev:
                self.fire(
                    "CHIN16", sev, q, "channel", n, kk, min(st[i] for i in rows), len(begun) / seconds,
                    f"starts per second {threshold_text('CHIN16', sev)}, median {median:g} messages",
                )  # fmt: skip

    # -- supplementary rules (not MP16) -------------------------------------------------------
    def storage_manager(self) -> None:
        """SUP01-SUP03: the storage manager's counters of the interval (QSST), each against its rule."""
        t = self.table("QSST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        counters = (("SUP01", "QSSTCRIT"), ("SUP02", "QSSTABND"), ("SUP03", "QSSTRCNZ"))
        for rule, field_name in counters:
            values = _num(t, field_name)
            for i in range(len(qm)):
                sev = level(rule, int(values[i]))
                if sev:
                    self.fire(
                        rule, sev, qm[i], "storage_manager", qm[i], k[i], st[i], int(values[i]),
                        f"{field_name} {threshold_text(rule, sev)}",
                    )  # fmt: skip

    def log_manager(self) -> None:
        """SUP04 (checkpoints an hour, from an interval with min_volume of them), SUP05 (tape
        contention delays per log read) and SUP06 (log buffers paged in) on the interval's QJST."""
        t = self.table("QJST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        hours = _num(t, "interval_seconds", 0.0) / 3600
        checkpoints, contention, paged = _num(t, "QJSTLLCP"), _num(t, "QJSTTVC"), _num(t, "QJSTBPAG")
        reads = _num(t, "QJSTRBUF") + _num(t, "QJSTRACT") + _num(t, "QJSTRARH")
        enough = self.p["SUP04"]["min_volume"]
        for i in range(len(qm)):
            args = (qm[i], "queue_manager", qm[i], k[i], st[i])
            if checkpoints[i] >= enough and hours[i] > 0 and (sev := level("SUP04", checkpoints[i] / hours[i])):
                rate = checkpoints[i] / hours[i]
                self.fire("SUP04", sev, *args, rate, f"QJSTLLCP an hour {threshold_text('SUP04', sev)}")
            if reads[i] > 0 and (sev := level("SUP05", contention[i] / reads[i])):
                share = contention[i] / reads[i]
                self.fire("SUP05", sev, *args, share, f"QJSTTVC per log read {threshold_text('SUP05', sev)}")
            if sev := level("SUP06", int(paged[i])):
                self.fire("SUP06", sev, *args, int(paged[i]), f"QJSTBPAG {threshold_text('SUP06', sev)}")

    def lock_manager(self) -> None:
        """SUP07: lock requests per MQPUT / MQGET (QLSTGETL / (QMSTPUT + QMSTGET)) against the queue
        manager's own average of it over its previous intervals (those with calls), with volume."""
        t, m = self.table("QLST"), self.table("QMST")
        if t is None or m is None:
            return
        calls = {
            (q, int(kk)): int(p) + int(g)
            for q, kk, p, g in zip(_str(m, "qmgr"), self._k(m), _num(m, "QMSTPUT"), _num(m, "QMSTGET"), strict=True)
        }
        qm, k, st, locks = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _num(t, "QLSTGETL")
        sup07 = self.p["SUP07"]
        window = max(int(sup07["baseline_intervals"]), 1)
        history: dict[str, list[float | None]] = {}
        for i in sorted(range(len(qm)), key=lambda i: (qm[i], st[i])):
            made = calls.get((qm[i], int(k[i])))
            if made is None:
                continue
            earlier = [r for r in history.setdefault(qm[i], [])[-window:] if r is not None]
            per_call = locks[i] / made if made else None
            history[qm[i]].append(per_call)
            usual = sum(earlier) / len(earlier) if earlier else 0.0
            if per_call is None or made < sup07["min_volume"] or usual <= 0:
                continue
            if sev := level("SUP07", per_call / usual):
                self.fire(
                    "SUP07", sev, qm[i], "lock_manager", qm[i], k[i], st[i], per_call / usual,
                    f"QLSTGETL per MQPUT + MQGET / its average before {threshold_text('SUP07', sev)}",
                )  # fmt: skip

    def db2_manager(self) -> None:
        """SUP08: Db2 server task abends or deadlock timeouts (warning); else the request queue's
        high-water mark (DHIGMAX) above the info floor and baseline_factor x its average over the
        previous intervals (info)."""
        t = self.table("Q5ST")
        if t is None:
            return
        qm, k, st = _str(t, "qmgr"), self._k(t), _num(t, "interval_start")
        failures = _num(t, "ABNDCNT") + _num(t, "DEADCNT")
        queued = _num(t, "DHIGMAX")
        sup08 = self.p["SUP08"]
        window = max(int(sup08["baseline_intervals"]), 1)
        history: dict[str, list[int]] = {}
        for i in sorted(range(len(qm)), key=lambda i: (qm[i], st[i])):
            args = (qm[i], "db2_manager", qm[i], k[i], st[i])
            earlier = history.setdefault(qm[i], [])[-window:]
            history[qm[i]].append(int(queued[i]))
            if COMPARE[sup08["comparison"]](failures[i], sup08["warning"]):
                self.fire("SUP08", "warning", *args, int(failures[i]), f"ABNDCNT + DEADCNT > {sup08['warning']:g}")
            elif (
                earlier
                and COMPARE[sup08["comparison"]](queued[i], sup08["info"])
                and queued[i] > sup08["baseline_factor"] * sum(earlier) / len(earlier)
            ):
                self.fire(
                    "SUP08", "info", *args, int(queued[i]),
                    f"DHIGMAX > {sup08['info']:g} and > {sup08['baseline_factor']:g} x its average before",
                )  # fmt: skip

    def smds_buffers(self) -> None:
        """SUP09: waits for a queue manager's SMDS buffer pool or buffers (QESDBFWP + QESDBFWB)."""
        t = self.table("QESD")
        if t is None:
            return
        qm, k, st, name = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _str(t, "QESDSTR")
        waits = _num(t, "QESDBFWP") + _num(t, "QESDBFWB")
        for i in range(len(qm)):
            if sev := level("SUP09", int(waits[i])):
                self.fire(
                    "SUP09", sev, qm[i], "smds", name[i], k[i], st[i], int(waits[i]),
                    f"QESDBFWP + QESDBFWB {threshold_text('SUP09', sev)}",
                )  # fmt: skip

    def dns(self) -> None:
        """SUP10: the DNS task's longest request of the interval (QCTLGDU, microseconds) in seconds,
        on the channel initiator named by its job name."""
        t, c = self.table("QCTDNS"), self.table("QCCT")
        if t is None or c is None:
            return
        jobs = {(q, int(kk)): j or q for q, kk, j in zip(_str(c, "qmgr"), self._k(c), _str(c, "QCCTJOBN"), strict=True)}
        qm, k, st, longest_us = _str(t, "qmgr"), self._k(t), _num(t, "interval_start"), _num(t, "QCTLGDU")
        longest_at = _num(t, "QCTLGTM")
        for i in range(len(qm)):
            if longest_at[i] < st[i]:  # APAR PH69352: carried over from an earlier interval, not this one's
                continue
            job = jobs.get((qm[i], int(k[i])))
            seconds = longest_us[i] / 1e6
            if job is not None and (sev := level("SUP10", seconds)):
                self.fire(
                    "SUP10", sev, qm[i], "channel_initiator", job, k[i], st[i], seconds,
                    f"longest DNS request (QCTLGDU) {threshold_text('SUP10', sev)} s",
                )  # fmt: skip


def _short_lived(role: str, severity: str | None) -> str | None:
    """A rule meant for SYS and SHORT pools: as is there, one lower on UNKNOWN, none otherwise."""
    if role in ("SYS", "SHORT"):
        return severity
    if role == "UNKNOWN":
        return {"critical": "warning", "warning": "info"}.get(severity)
    return None


def _group_sum(keys: np.ndarray, values: np.ndarray) -> dict[int, int]:
    if not len(keys):
        return {}
    uniq, inverse = np.unique(keys, return_inverse=True)
    return dict(zip(uniq.tolist(), np.bincount(inverse, weights=values).astype(np.int64).tolist(), strict=True))


def _run_lengths(flag: np.ndarray, continues: np.ndarray | None = None) -> np.ndarray:
    """Length of the run of True values ending at each position (0 where False). A run continues
    from the previous position only where ``continues`` is true (default: always)."""
    n = len(flag)
    if not n:
        return np.zeros(0, np.int64)
    idx = np.arange(n)
    before = np.concatenate([[False], flag[:-1]])
    if continues is not None:
        before &= continues
    start = flag & ~before
    last_start = np.maximum.accumulate(np.where(start, idx, -1))
    return np.where(flag, idx - last_start + 1, 0)


def _clean(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return round(float(v), 4)
    return v


def evaluate(
    tables: dict[str, pa.Table],
    roles: dict[tuple[str, int], str],
    start_us: int,
    seconds: int,
    interval_of: dict[tuple[str, int], int] | None = None,
    log_truth: dict[tuple[str, int], float] | None = None,
    site: SiteConfig | None = None,
) -> list[Firing]:
    """Firings of the supported rules on typed tables (truth or decoded); LOG03 needs the
    simulation's ``log_truth`` (log_truth_of), the configuration rules the ``site`` (site_of)."""
    return Oracle(tables, roles, start_us, seconds, interval_of, log_truth, site).run()


def log_truth_of(scenario) -> dict[tuple[str, int], float]:
    """{(qmgr, interval): log records per checkpoint} of a scenario that has run (LOG03's truth)."""
    names = [qm.name for qm in scenario.topology.qmgrs]
    return {(names[m], int(k)): v for (k, m), v in scenario.effects.log_truth.items()}


def site_of(scenario) -> SiteConfig:
    """What the generated site declares: every QSG's structure limits as the topology built them,
    and the queues the scenario's injections made IMS bridge queues."""
    topo = scenario.topology
    qsgs = sorted({q.qsg for q in topo.qmgrs if q.qsg})
    return SiteConfig(
        cf_limits={(g, n): (int(e), int(el)) for g in qsgs for n, e, el, _ in topo.structures},
        cf_sizes_mb={(g, n): structure_size_mb(e, el) for g in qsgs for n, e, el, _ in topo.structures},
        ims_bridge_queues=frozenset(
            (b["qmgr_name"], b["queue_name"]) for b in scenario.planned.site.get("ims_bridge_queues", [])
        ),
        production_qmgrs=frozenset(q["qmgr_name"] for q in scenario.planned.site.get("production_qmgrs", [])),
        chin_epvt_mb={c["qmgr_name"]: float(c["chin_epvt_mb"]) for c in scenario.planned.site.get("chin_epvt", [])},
        page_set_write_mb_per_sec={
            r["qmgr_name"]: r["page_set_write_mb_per_sec"]
            for r in scenario.planned.site.get("page_set_write_rates", [])
        },
        unstriped_log_qmgrs=frozenset(q["qmgr_name"] for q in scenario.planned.site.get("unstriped_logs", [])),
        cf_levels={
            (r["qsg_name"], r["structure_name"]): r["cf_level"] for r in scenario.planned.site.get("cf_levels", [])
        },
        cf_recovery={
            (r["qsg_name"], r["structure_name"]): (r["recovery_target_minutes"], r["backup_interval_minutes"])
            for r in scenario.planned.site.get("cf_recovery", [])
        },
        page_set_recovery={
            r["qmgr_name"]: (r["restart_target_minutes"], r["page_set_backup_hours"])
            for r in scenario.planned.site.get("page_set_recovery", [])
        },
        processors={s["system_id"]: int(s["processors"]) for s in scenario.planned.site.get("processors", [])},
        max_proc_user={s["system_id"]: int(s["max_proc_user"]) for s in scenario.planned.site.get("omvs_limits", [])},
        chin_user_ids={c["qmgr_name"]: c["chin_user_id"] for c in scenario.planned.site.get("chin_user_ids", [])},
    )


def roles_of(topology) -> dict[tuple[str, int], str]:
    return {(q.name, int(p)): r for q in topology.qmgrs for p, r in zip(q.pools, q.pool_roles, strict=True)}


class InjectionError(RuntimeError):
    """An injected pathology did not make its rule fire (a generator bug, never silent)."""


def evaluate_scenario(scenario, collector) -> list[dict]:
    """Evaluate the truth, check every injection fired where planned, and attach its severity
    and metric value to the manifest entry."""
    tables = {name: collector.table(name) for name in ORACLE_COLUMNS}
    interval_of = (
        {(q.name, i.end_us): i.k for q in scenario.topology.qmgrs for i in q.intervals}
        if scenario.config.estate
        else None
    )
    firings = evaluate(
        tables,
        roles_of(scenario.topology),
        scenario.config.start_us,
        scenario.config.interval_seconds,
        interval_of,
        log_truth_of(scenario),
        site_of(scenario),
    )
    injected_keys = set()
    for inj in scenario.planned.injected:
        key = (inj["rule_id"], inj["qmgr"], inj["object_name"], inj["interval"])
        hits = [f for f in firings if (f["rule_id"], f["qmgr"], f["object_name"], f["interval"]) == key]
        if not hits:
            raise InjectionError(
                f"injected {inj['rule_id']} on {inj['qmgr']} {inj['object_name']} interval "
                f"{inj['interval']} did not fire"
            )
        top = max(hits, key=lambda f: SEVERITY_RANK[f["severity"]])
        inj["severity"] = top["severity"]
        inj["details"] = {"value": top["value"], "threshold": top["threshold"]}
        injected_keys.add(key)
    for f in firings:
        key = (f["rule_id"], f["qmgr"], f["object_name"], f["interval"])
        f["cause"] = "injected" if key in injected_keys else "consequence"
    return [dict(f) for f in firings]
