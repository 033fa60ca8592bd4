"""Scenario configuration: sizes, MQ versions, time base, and the pathologies to produce.

Everything a scenario contains follows from this object and its seed, so the same configuration
always writes the same bytes."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime

from ..invariants import VIOLATIONS

# MQ version -> (SM11xREL, QWHXREL). From MQ 10 the 3-character release says '946' and the real
# version is in the QWHX extension header.
VERSIONS: dict[str, tuple[str, str | None]] = {
    "9.3.0": ("930", None),
    "9.3.1": ("931", None),
    "9.3.3": ("933", None),
    "9.4.0": ("940", None),
    "9.4.3": ("943", None),
    "10.0.0": ("946", "100000"),
}
VERSION_ALIASES = {"9.4": "9.4.0", "10": "10.0.0", "10.0": "10.0.0"}
US_PER_S = 1_000_000


def iso(us: int) -> str:
    """Microseconds since the Unix epoch as UTC ISO 8601 ending in Z, as manifests and truth say times."""
    return datetime.fromtimestamp(us / US_PER_S, tz=UTC).isoformat().replace("+00:00", "Z")


# MP16 rules (seeds/mp16_rules.csv) that --inject can drive a workload into.
SUPPORTED_RULES = (
    "BP01",
    "BP02",
    "BP03",
    "BP04",
    "BP05",
    "BP06",
    "BP12",
    "BP13",
    "BP14",
    "BP15",
    "BP16",
    "LOG01",
    "LOG02",
    "LOG03",
    "LOG12",
    "LOG13",
    "LOG15",
    "CF01",
    "CF02",
    "CF03",
    "CF06",
    "CF07",
    "CF08",
    "CF09",
    "CF10",
    "CF11",
    "CF13",
    "CF15",
    "CF16",
    "CF17",
    "DB02",
    "DB03",
    "Q01",
    "Q02",
    "Q03",
    "Q04",
    "Q07",
    "Q09",
    "Q10",
    "Q05",
    "Q11",
    "Q12",
    "Q13",
    "CF12",
    "CF14",
    "APP01",
    "APP02",
    "DB01",
    "CHIN01",
    "CHIN02",
    "CHIN03",
    "CHIN04",
    "CHIN05",
    "CHIN06",
    "CHIN07",
    "CHIN08",
    "CHIN09",
    "CHIN10",
    "CHIN11",
    "CHIN12",
    "CHIN13",
    "CHIN14",
    "CHIN15",
    "CHIN16",
    "CHIN17",
    "CHIN18",
    "LOG10",
    # Supplementary rules (not MP16).
    "SUP01",
    "SUP02",
    "SUP03",
    "SUP04",
    "SUP05",
    "SUP06",
    "SUP07",
    "SUP08",
    "SUP09",
    "SUP10",
)
# Data invariants --violate can break, each with the gate's checks that catch it (``mqsmf.invariants``).
SUPPORTED_CHECKS = tuple(VIOLATIONS)
CORRUPTIONS = ("truncate", "bitflip", "badrdw")

# An estate (``--preset estate``): two QSGs and three standalone queue managers, each with its own
# STATIME and start, mixed releases inside a QSG, a restart mid-day and a lost interval. Spec syntax:
# see QmgrPlan.parse. The day is 24 x 3,600 s; each queue manager fills it with its own intervals.
ESTATE = (
    "QA01@QSGA:10.0.0:30",
    "QA02@QSGA:9.4.3:30+7",  # started at 00:07: reports 00:07-00:37, 00:37-01:07 ...
    "QA03@QSGA:9.3.3:15:restart=40+6",  # restarts 6 minutes into its 41st interval (10:06)
    "QB01@QSGB:9.4.0:60",
    "QB02@QSGB:9.3.0:60+13",  # 9.3.0 and 9.3.1 members have no 9.3.3 QQST counters
    "QB03@QSGB:9.3.1:30:lost=11",  # interval 05:30-06:00 never written
    "QS01:10.0.0:15",  # standalone queue managers
    "QS02:9.3.3:60",
    "QS03:9.4.0:30:lost=20",
)

PRESETS = {
    # 10 queue managers x 2,000 queues x 48 half-hour intervals = 960,000 QQST instances.
    "large-day": dict(qmgrs=10, lpars=4, queues=2000, intervals=48, interval_seconds=1800),
    "estate": dict(estate=ESTATE, lpars=4, queues=24, intervals=24, interval_seconds=3600),
}

_SPEC = re.compile(r"^(?P<id>[A-Za-z0-9_]+)(?:@(?P<qmgr>[A-Za-z0-9]{1,4})(?::(?P<obj>[^#]+))?)?(?:#(?P<k>\d+))?$")


@dataclass(frozen=True)
class Target:
    """One --inject or --violate request: ``ID[@QMGR[:OBJECT]][#INTERVAL]``.

    Unset parts are chosen from the seed. OBJECT is a buffer pool number (BP rules), a CF
    structure name (CF rules), a queue name (Q rules and QQST checks), a page set number, or
    omitted (LOG rules, interval checks). INTERVAL counts from 0."""

    id: str
    qmgr: str | None = None
    object_name: str | None = None
    interval: int | None = None

    @classmethod
    def parse(cls, spec: str) -> Target:
        m = _SPEC.match(spec.strip())
        if not m:
            raise ValueError(f"bad target {spec!r}: use ID[@QMGR[:OBJECT]][#INTERVAL], e.g. BP01@QM02:1#3")
        k = m.group("k")
        return cls(m.group("id"), m.group("qmgr"), m.group("obj"), int(k) if k is not None else None)

    def __str__(self) -> str:
        s = self.id
        if self.qmgr:
            s += f"@{self.qmgr}" + (f":{self.object_name}" if self.object_name else "")
        return s + (f"#{self.interval}" if self.interval is not None else "")


def parse_targets(values: list[str] | tuple[str, ...] | None, known: tuple[str, ...], what: str) -> tuple[Target, ...]:
    """Comma-separated specs (repeatable option) -> Targets; unknown ids are an error."""
    out = []
    for value in values or ():
        for spec in value.split(","):
            if not spec.strip():
                continue
            t = Target.parse(spec)
            tid = t.id.upper() if what == "rule" else t.id.lower()
            if tid not in known:
                raise ValueError(f"unknown {what} {t.id!r}; supported: {', '.join(known)}")
            out.append(replace(t, id=tid))
    return tuple(out)


def normalise_version(v: str) -> str:
    v = VERSION_ALIASES.get(v.strip(), v.strip())
    if v not in VERSIONS:
        raise ValueError(f"unsupported MQ version {v!r}; supported: {', '.join(VERSIONS)} (9.4 = 9.4.0, 10 = 10.0.0)")
    return v


_QMGR_PLAN = re.compile(
    r"^(?P<name>[A-Z0-9]{1,4})(?:@(?P<qsg>[A-Z0-9]{1,4}))?:(?P<version>[0-9.]+):(?P<statime>\d+)(?:\+(?P<offset>\d+))?"
    r"(?P<opts>(?::(?:restart=\d+\+\d+|lost=\d+(?:;\d+)*))*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QmgrPlan:
    """One queue manager of an estate: ``NAME[@QSG]:VERSION:STATIME[+OFFSET][:restart=K+M][:lost=K;K]``.

    STATIME and OFFSET are minutes: the first interval starts OFFSET minutes after the day starts,
    then one every STATIME minutes until the day is covered. ``restart=K+M``: the queue manager
    stops M minutes into its interval K (a short interval) and starts again at once, its intervals
    now counted from the restart. ``lost=K``: interval K is written by no record (a gap)."""

    name: str
    qsg: str | None
    version: str
    statime_minutes: int
    offset_minutes: int = 0
    restart: tuple[int, int] | None = None  # (interval, minutes into it)
    lost: tuple[int, ...] = ()

    @classmethod
    def parse(cls, spec: str) -> QmgrPlan:
        m = _QMGR_PLAN.match(spec.strip())
        if not m:
            raise ValueError(
                f"bad queue manager plan {spec!r}: use NAME[@QSG]:VERSION:STATIME[+OFFSET][:restart=K+M][:lost=K;K], "
                "e.g. QA02@QSGA:9.4.3:30+7"
            )
        restart, lost = None, ()
        for opt in filter(None, m.group("opts").split(":")):
            key, value = opt.split("=")
            if key.lower() == "restart":
                k, minutes = value.split("+")
                restart = (int(k), int(minutes))
            else:
                lost = tuple(int(k) for k in value.split(";"))
        plan = cls(
            m.group("name").upper(),
            m.group("qsg").upper() if m.group("qsg") else None,
            normalise_version(m.group("version")),
            int(m.group("statime")),
            int(m.group("offset") or 0),
            restart,
            lost,
        )
        if not 1 <= plan.statime_minutes <= 1440:
            raise ValueError(f"{spec!r}: STATIME is 1..1440 minutes")
        if plan.offset_minutes >= plan.statime_minutes:
            raise ValueError(f"{spec!r}: the start offset must be shorter than STATIME")
        if restart and not 0 < restart[1] < plan.statime_minutes:
            raise ValueError(f"{spec!r}: a restart falls inside its interval (0 < M < STATIME)")
        return plan

    def __str__(self) -> str:
        s = self.name + (f"@{self.qsg}" if self.qsg else "") + f":{self.version}:{self.statime_minutes}"
        s += f"+{self.offset_minutes}" if self.offset_minutes else ""
        s += f":restart={self.restart[0]}+{self.restart[1]}" if self.restart else ""
        return s + (":lost=" + ";".join(map(str, self.lost)) if self.lost else "")


@dataclass(frozen=True)
class ScenarioConfig:
    """A queue-sharing group scenario. ``queues`` counts every queue a queue manager reports in
    115/216 (system, shared and private), so the large day is 10 x 2,000 x 48 QQST instances."""

    seed: int = 1
    qmgrs: int = 6
    lpars: int = 3
    queues: int = 40
    shared_queues: int | None = None  # default: a fifth of the queues, when there are 2+ queue managers
    intervals: int = 4
    interval_seconds: int = 1800  # STATIME
    start: str = "2025-06-02T00:00:00Z"  # first interval start, UTC
    qsg: str = "QSGA"
    qmgr_prefix: str = "QM"  # queue managers <prefix>01, <prefix>02 ...: two scenarios can share a warehouse
    versions: tuple[str, ...] = tuple(VERSIONS)  # assigned to the queue managers in turn
    inject: tuple[Target, ...] = ()
    violate: tuple[Target, ...] = ()
    max_record_bytes: int = 32760  # longest logical record (RDW included) before instances go to a new record
    partial_records: bool = True  # a CF access problem leaves one queue manager with partial QQST records
    # An estate: one QmgrPlan (or its spec string) per queue manager; replaces qmgrs, qsg, versions
    # and qmgr_prefix, and intervals x interval_seconds is then the span the queue managers cover.
    estate: tuple[QmgrPlan, ...] = ()
    # Queue managers that neither put to nor get from their QSG's last shared queue: their queue
    # depth event messages for it are null events (IBM MQ 'Shared queues and queue depth events on z/OS').
    idle_shared: tuple[str, ...] = ()
    # Queues with ACCTQ(OFF) against the queue manager's default, "QMGR:QUEUE": class 3 accounting
    # writes no WQ block for them, so the accounted tasks' records leave them out
    # (MP16 "Queue option ACCTQ" (ch. 7, p. 187)).
    acctq_off: tuple[str, ...] = ()
    # Intervals of a queue manager outside the class 3 sample windows, "QMGR#K": no SMF 116
    # subtype 1 or 2 record (MP16 suggests collecting class 3 periodically:
    # MP16 "Accounting Trace Costs" (ch. 1, p. 51)).
    class3_off: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "versions", tuple(normalise_version(v) for v in self.versions))
        for spec in self.acctq_off:
            if not re.fullmatch(r"[A-Za-z0-9]{1,4}:.{1,48}", spec):
                raise ValueError(f"acctq_off {spec!r}: use QMGR:QUEUE")
        for spec in self.class3_off:
            if not re.fullmatch(r"[A-Za-z0-9]{1,4}#\d+", spec):
                raise ValueError(f"class3_off {spec!r}: use QMGR#INTERVAL")
        if self.estate:
            plans = tuple(p if isinstance(p, QmgrPlan) else QmgrPlan.parse(p) for p in self.estate)
            names = [p.name for p in plans]
            if len(set(names)) != len(names):
                raise ValueError(f"estate: queue manager names repeat ({', '.join(names)})")
            if self.inject or self.violate:
                raise ValueError("an estate takes no --inject or --violate (its irregularities are planned)")
            object.__setattr__(self, "estate", plans)
            object.__setattr__(self, "qmgrs", len(plans))
            # The partial-record event is planned on the regular interval grid: an estate has none.
            object.__setattr__(self, "partial_records", False)
        if not 1 <= self.qmgrs <= 999:
            raise ValueError("qmgrs must be 1..999")
        if self.lpars < 1:
            raise ValueError("lpars must be >= 1")
        object.__setattr__(self, "lpars", min(self.lpars, self.qmgrs))  # an LPAR without a queue manager writes nothing
        if not 1 <= self.queues <= 60000:
            raise ValueError("queues must be 1..60000")
        if self.intervals < 1:
            raise ValueError("intervals must be >= 1")
        if not 60 <= self.interval_seconds <= 86400:
            raise ValueError("interval_seconds must be 60..86400")
        if len(self.qsg) > 4:
            raise ValueError("qsg names are 1-4 characters ('' = standalone queue managers, outside any QSG)")
        if not (1 <= len(self.qmgr_prefix) <= 2 and self.qmgr_prefix.isalnum() and self.qmgr_prefix[0].isalpha()):
            raise ValueError(
                "qmgr_prefix is 1-2 letters or digits starting with a letter (names are at most 4 characters)"
            )
        if not self.versions:
            raise ValueError("at least one MQ version")
        if self.max_record_bytes < 4096:
            raise ValueError("max_record_bytes must be >= 4096")
        _ = self.start_us  # validates the timestamp

    @property
    def start_us(self) -> int:
        ts = datetime.fromisoformat(self.start.replace("Z", "+00:00"))
        if ts.tzinfo is None:
            ts = ts.replace(tzinfo=UTC)
        return int(ts.timestamp()) * US_PER_S + ts.microsecond

    def acctq_off_queues(self, qmgr: str) -> set[str]:
        """Queue names of ``qmgr`` with ACCTQ(OFF) (acctq_off)."""
        return {spec.split(":", 1)[1] for spec in self.acctq_off if spec.split(":", 1)[0] == qmgr}

    def has_class3(self, qmgr: str, k: int) -> bool:
        """Whether class 3 accounting is collected on ``qmgr`` in its interval ``k`` (class3_off)."""
        return f"{qmgr}#{k}" not in self.class3_off

    @property
    def n_shared(self) -> int:
        """Shared queues of each queue-sharing group."""
        if (self.qmgrs < 2 or not self.qsg) and self.shared_queues is None and not self.estate:
            return 0
        n = self.queues // 5 if self.shared_queues is None else self.shared_queues
        return max(0, min(n, self.queues - 1))

    @classmethod
    def preset(cls, name: str, **overrides) -> ScenarioConfig:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], **overrides})

    def as_dict(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = (
                [str(t) for t in v]
                if f.name in ("inject", "violate", "estate", "idle_shared", "acctq_off", "class3_off")
                else list(v)
                if isinstance(v, tuple)
                else v
            )
        return out


__all__ = [
    "CORRUPTIONS",
    "PRESETS",
    "SUPPORTED_CHECKS",
    "SUPPORTED_RULES",
    "VERSIONS",
    "QmgrPlan",
    "ScenarioConfig",
    "Target",
    "normalise_version",
    "parse_targets",
]
