"""The gate's verdict for CI: which violations fail the job, and the reports CI systems read.

A gate run (``run_gate``, one per stage) says which checks found violating rows. Whether the job
fails depends on two choices of the team adopting the gate:

- ``fail_on``: ``error`` (default) fails on error checks only; ``warn`` fails on warnings too;
- a **baseline** of accepted violations (``mqsmf check --write-baseline FILE`` writes one,
  ``--baseline FILE`` checks against it): a violation found in the baseline is *accepted* (reported,
  counted, never failing); only *new* ones fail. A violation is identified by its check and the key
  of the row it is about (table, QSG, queue manager, object, interval start; for rows without an
  interval, such as quarantined spans, the file name and byte offset), never by row order, so a
  reload or a re-run finds the same identities. The baseline is a multiset: a key accepted once
  and found twice has one new violation.

Reports: JUnit XML (one ``testcase`` per check and stage, as GitLab, Jenkins and GitHub test
reporters read it), Markdown (a job summary page) and JSON (for scripts).
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .checks import ERROR, SEVERITIES, WARN

FAIL_ON = {ERROR: (ERROR,), WARN: (ERROR, WARN)}
BASELINE_FORMAT = "mqsmf-gate-baseline/1"
KEY_FIELDS = ("table", "qsg", "qmgr", "object", "interval_start", "record")


def _iso(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        value = value if value.tzinfo else value.replace(tzinfo=UTC)
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return str(value)


def violation_key(row: Mapping) -> tuple:
    """Identity of a violation: (check, table, QSG, queue manager, object, interval start, record).

    ``row`` has the ``dq_violations`` column names (``interval_start_at`` a datetime). The record
    (file name, not its folder, and byte offset) only identifies rows that have no interval."""
    start = _iso(row.get("interval_start_at"))
    record = None
    if start is None and row.get("source_file") is not None:
        record = f"{os.path.basename(str(row['source_file']))}@{row.get('record_offset')}"
    return (
        row["check_name"],
        row.get("table_name"),
        row.get("qsg_name"),
        row.get("qmgr_name"),
        row.get("object_name"),
        start,
        record,
    )


class BaselineError(ValueError):
    """The baseline file cannot be read."""


def write_baseline(path: str, keys: Iterable[tuple]) -> int:
    """Write every violation key as accepted; returns how many."""
    entries = sorted(keys, key=lambda k: tuple("" if v is None else str(v) for v in k))
    doc = {
        "format": BASELINE_FORMAT,
        "written_at": _iso(datetime.now(UTC)),
        "violations": [{"check": k[0], **dict(zip(KEY_FIELDS, k[1:], strict=True))} for k in entries],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return len(entries)


def read_baseline(path: str) -> Counter:
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise BaselineError(f"cannot read baseline {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise BaselineError(f"baseline {path} is not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != BASELINE_FORMAT:
        raise BaselineError(f"baseline {path} is not an mqsmf gate baseline (format {BASELINE_FORMAT})")
    try:
        return Counter((v["check"], *(v.get(f) for f in KEY_FIELDS)) for v in doc["violations"])
    except (KeyError, TypeError) as e:
        raise BaselineError(f"baseline {path}: malformed entry ({e})") from None


@dataclass
class CheckVerdict:
    stage: str
    outcome: object  # gate.Outcome
    accepted: int = 0
    new: int = 0
    blocking: bool = False  # new violations at a severity that fails the gate

    @property
    def check(self):
        return self.outcome.check

    @property
    def status(self) -> str:
        """skipped | passed | failed (new violations that fail) | warned (new, not failing) | accepted"""
        o = self.outcome
        if o.status == "skipped":
            return "skipped"
        if o.status == "passed":
            return "passed"
        if self.new == 0:
            return "accepted"
        return "failed" if self.blocking else "warned"


@dataclass
class Verdict:
    results: list  # gate.GateResult, one per stage run
    fail_on: str = ERROR
    baseline: str | None = None
    checks: list[CheckVerdict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(c.blocking for c in self.checks)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)


def decide(results: Sequence, fail_on: str = ERROR, baseline: Counter | None = None, baseline_path=None) -> Verdict:
    """Which checks fail the gate. With a baseline, each result must carry its ``violation_keys``."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}")
    verdict = Verdict(list(results), fail_on, baseline_path)
    left = Counter(baseline or ())
    for result in results:
        found = Counter(result.violation_keys or ()) if baseline is not None else Counter()
        for o in result.outcomes:
            accepted = 0
            if baseline is not None and o.violations:
                mine = {k: n for k, n in found.items() if k[0] == o.check.name}
                for k, n in mine.items():
                    take = min(n, left[k])
                    left[k] -= take
                    accepted += take
            new = max(0, o.violations - accepted)
            blocking = new > 0 and o.check.severity in FAIL_ON[fail_on]
            verdict.checks.append(CheckVerdict(result.stage, o, accepted, new, blocking))
    return verdict


def is_accepted(sample: Mapping, baseline: Counter | None) -> bool:
    return baseline is not None and baseline[violation_key(sample)] > 0


# ----------------------------------------------------------------------------------------------
# Reports
# ----------------------------------------------------------------------------------------------


def _sample_line(s: Mapping) -> str:
    start = _iso(s.get("interval_start_at")) or "-"
    where = " ".join(str(s.get(k)) for k in ("qsg_name", "qmgr_name") if s.get(k))
    record = f"{s.get('source_file')} @ {s.get('record_offset')}" if s.get("source_file") else ""
    return f"{where or '-'} {s.get('object_name') or '-'} {start} {s.get('values')} {record}".strip()


def _summary(c: CheckVerdict) -> str:
    o = c.outcome
    if c.status == "skipped":
        return f"skipped: {o.note}"
    if c.status == "passed":
        return f"passed on {o.evaluated_rows or 0} rows"
    parts = [f"{o.violations} violating rows"]
    if c.accepted:
        parts.append(f"{c.new} new, {c.accepted} accepted by the baseline")
    return ", ".join(parts) + f": {o.check.text}"


def junit_xml(verdict: Verdict) -> str:
    """JUnit XML: a testsuite per stage, a testcase per check (classname ``mqsmf.<stage>.<frame>``).

    A check with new violations at a failing severity is a ``failure`` whose message carries the
    violation count and whose text lists the first rows; skipped checks are ``skipped``; warnings
    that do not fail the gate and violations the baseline accepts pass, described in ``system-out``."""
    suites = ET.Element("testsuites", name="mqsmf check")
    totals = Counter()
    for result in verdict.results:
        mine = [c for c in verdict.checks if c.stage == result.stage]
        failures = sum(c.status == "failed" for c in mine)
        skipped = sum(c.status == "skipped" for c in mine)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f"mqsmf check --stage {result.stage}",
            tests=str(len(mine)),
            failures=str(failures),
            errors="0",
            skipped=str(skipped),
            time=f"{result.seconds:.3f}",
            timestamp=result.checked_at.strftime("%Y-%m-%dT%H:%M:%S"),
        )
        props = ET.SubElement(suite, "properties")
        for name, value in (
            ("run_id", result.run_id),
            ("fail_on", verdict.fail_on),
            ("baseline", verdict.baseline or ""),
            ("rows_checked", str(result.rows_checked)),
        ):
            ET.SubElement(props, "property", name=name, value=value)
        for c in mine:
            o = c.outcome
            case = ET.SubElement(
                suite, "testcase", classname=f"mqsmf.{result.stage}.{o.check.frame}", name=o.check.name, time="0"
            )
            if c.status == "skipped":
                ET.SubElement(case, "skipped", message=o.note or "its tables are absent")
            elif c.status == "failed":
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=f"{o.check.name}: {c.new} new violating rows ({o.violations} in all): {o.check.text}",
                    type=o.check.severity,
                )
                lines = [o.check.description, f"rule: {o.check.text}", f"source: {o.check.source}", ""]
                lines.append(
                    f"first {len(o.samples)} of {o.violations} violating rows (qsg qmgr object interval values):"
                )
                lines.extend("  " + _sample_line(s) for s in o.samples)
                failure.text = "\n".join(lines)
            if c.status in ("warned", "accepted"):
                out = ET.SubElement(case, "system-out")
                out.text = f"[{o.check.severity}] {_summary(c)}\n" + "\n".join(
                    "  " + _sample_line(s) for s in o.samples
                )
        totals.update(tests=len(mine), failures=failures, skipped=skipped)
        totals["time"] += result.seconds
    for name in ("tests", "failures", "skipped"):
        suites.set(name, str(totals[name]))
    suites.set("errors", "0")
    suites.set("time", f"{totals['time']:.3f}")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _md(text) -> str:
    return str("" if text is None else text).replace("|", "\\|").replace("\n", " ")


def markdown(verdict: Verdict) -> str:
    """A job summary page (GitHub ``$GITHUB_STEP_SUMMARY``, a GitLab/Jenkins artifact)."""
    word = "PASSED" if verdict.passed else "FAILED"
    lines = [f"## mqsmf data-quality gate: {word}", ""]
    lines.append(
        f"Fails on: **{verdict.fail_on}**"
        + (f"; baseline `{verdict.baseline}`" if verdict.baseline else "")
        + f". Checks: {verdict.count('failed')} failed, {verdict.count('warned')} warned, "
        f"{verdict.count('accepted')} with accepted violations only, {verdict.count('passed')} passed, "
        f"{verdict.count('skipped')} skipped."
    )
    for result in verdict.results:
        mine = [c for c in verdict.checks if c.stage == result.stage]
        lines += ["", f"### Stage `{result.stage}`", ""]
        lines.append(
            f"{result.rows_checked:,} rows checked in {result.seconds:.1f} s, run `{result.run_id}`"
            + (f"; all violations: `SELECT * FROM {result.violations_table}`" if result.violations_table else "")
        )
        shown = [c for c in mine if c.status in ("failed", "warned", "accepted")]
        if not shown:
            lines += ["", "No violations."]
            continue
        lines += ["", "| status | severity | check | violations | new | rule |", "|---|---|---|---:|---:|---|"]
        order = {"failed": 0, "warned": 1, "accepted": 2}
        for c in sorted(shown, key=lambda c: (order[c.status], c.check.name)):
            o = c.outcome
            lines.append(
                f"| {c.status} | {o.check.severity} | `{o.check.name}` | {o.violations} | {c.new} | {_md(o.check.text)} |"
            )
        for c in (c for c in shown if c.status == "failed" and c.outcome.samples):
            o = c.outcome
            lines += ["", f"<details><summary><code>{o.check.name}</code>: first {len(o.samples)} rows</summary>", ""]
            lines += ["| QSG | qmgr | object | interval start (UTC) | values |", "|---|---|---|---|---|"]
            for s in o.samples:
                lines.append(
                    f"| {_md(s.get('qsg_name'))} | {_md(s.get('qmgr_name'))} | {_md(s.get('object_name'))} | "
                    f"{_md(_iso(s.get('interval_start_at')))} | `{_md(s.get('values'))}` |"
                )
            lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def as_json(verdict: Verdict) -> dict:
    def sample(s: Mapping) -> dict:
        return {k: (_iso(v) if isinstance(v, datetime) else v) for k, v in s.items()}

    stages = []
    for result in verdict.results:
        checks = []
        for c in (c for c in verdict.checks if c.stage == result.stage):
            o = c.outcome
            checks.append(
                {
                    "check": o.check.name,
                    "severity": o.check.severity,
                    "frame": o.check.frame,
                    "rule": o.check.text,
                    "status": o.status,
                    "verdict": c.status,
                    "evaluated_rows": o.evaluated_rows,
                    "violations": o.violations,
                    "new_violations": c.new,
                    "accepted_violations": c.accepted,
                    "gx_unexpected": o.gx_unexpected,
                    "note": o.note,
                    "samples": [sample(s) for s in o.samples],
                }
            )
        stages.append(
            {
                "stage": result.stage,
                "run_id": result.run_id,
                "checked_at": result.checked_at.isoformat(),
                "passed": not any(c.blocking for c in verdict.checks if c.stage == result.stage),
                "seconds": round(result.seconds, 3),
                "frame_rows": result.frame_rows,
                "skipped_frames": result.skipped_frames,
                "violations_table": result.violations_table,
                "docs_index": str(result.docs_index) if result.docs_index else None,
                "checks": checks,
            }
        )
    return {
        "passed": verdict.passed,
        "exit_code": verdict.exit_code,
        "fail_on": verdict.fail_on,
        "baseline": verdict.baseline,
        "stages": stages,
    }


assert set(FAIL_ON) == set(SEVERITIES)
