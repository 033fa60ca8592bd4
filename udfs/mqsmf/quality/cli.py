"""``mqsmf check``: run the data-quality gate and print what failed.

Exit status: 0 the gate passed (warnings may have been reported), 1 it failed (an ``error`` check
found violations, or with ``--strict`` any check did), 2 it could not run.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap

from .checks import DEFAULT_INTERVAL_TOLERANCE_SECONDS, ERROR, MARTS, RAW, SEVERITIES, STAGES

ALL = "all"


def add_subcommand(subparsers) -> None:
    from .gate import DEFAULT_DOCS_DIR, QUALITY_SCHEMA

    p = subparsers.add_parser(
        "check",
        help="run the data-quality gate (GX suites) on the raw tables and/or the marts",
        description="Run the data-quality gate: every check of the stage as a Great Expectations suite on the "
        "Spark tables. Violating rows are listed in <quality-schema>.dq_violations (one row per row and check) "
        "and printed; Data Docs go to <docs>/<stage>/index.html. Exit 0 = passed, 1 = failed, 2 = could not run.",
    )
    p.add_argument(
        "--stage",
        choices=(*STAGES, ALL),
        default=ALL,
        help="raw (after loading), marts (after dbt build) or all (default)",
    )
    p.add_argument("--check", action="append", metavar="NAME", help="run only this check (repeatable; see --list)")
    p.add_argument(
        "--severity",
        action="append",
        metavar="NAME=LEVEL",
        default=[],
        help="override a check's severity: error fails the gate, warn is reported only (repeatable)",
    )
    p.add_argument("--strict", action="store_true", help="warnings fail the gate too")
    p.add_argument(
        "--interval-tolerance",
        type=float,
        default=DEFAULT_INTERVAL_TOLERANCE_SECONDS,
        metavar="SECONDS",
        help=f"slack between consecutive intervals before a gap or overlap is reported (default {DEFAULT_INTERVAL_TOLERANCE_SECONDS:g})",
    )
    p.add_argument("--raw-schema", default=None, help="schema of the raw tables (default smf_raw)")
    p.add_argument(
        "--marts-schema", default=None, help="schema of the dbt marts (default <MQSMF_SCHEMA or mqsmf>_marts)"
    )
    p.add_argument(
        "--quality-schema",
        default=QUALITY_SCHEMA,
        help=f"schema of dq_violations and dq_check_results (default {QUALITY_SCHEMA})",
    )
    p.add_argument(
        "--docs", default=DEFAULT_DOCS_DIR, help=f"Data Docs folder, one site per stage (default {DEFAULT_DOCS_DIR})"
    )
    p.add_argument("--no-docs", action="store_true", help="do not build Data Docs")
    p.add_argument("--no-write", action="store_true", help="do not write dq_violations / dq_check_results")
    p.add_argument(
        "--rows", type=int, default=10, metavar="N", help="violating rows printed per failed check (default 10)"
    )
    p.add_argument("--json", metavar="FILE", help="also write the outcome of every check as JSON")
    p.add_argument("--list", action="store_true", help="print the check catalogue and exit (no Spark)")
    p.add_argument("--project-dir", help="the dbt project (default: found from the current folder)")
    p.set_defaults(func=run)


def _severities(values: list[str]) -> dict[str, str]:
    out = {}
    for v in values:
        name, sep, level = v.partition("=")
        if not sep or level not in SEVERITIES:
            raise ValueError(f"--severity {v!r}: use NAME=error or NAME=warn")
        out[name.strip()] = level
    return out


def list_catalogue(out=None) -> None:
    from .checks import catalogue

    out = out or sys.stdout
    cat = catalogue()
    for stage in STAGES:
        part = cat.for_stage(stage)
        print(f"stage {stage}: {len(part.checks)} checks", file=out)
        for frame in part.frames.values():
            checks = part.frame_checks(frame.name)
            if not checks:
                continue
            print(f"  {frame.id}  ({', '.join(frame.tables[:4])}{' ...' if len(frame.tables) > 4 else ''})", file=out)
            for c in checks:
                print(f"    {c.name:46s} {c.severity:5s} {c.text}", file=out)
                print(f"    {'':46s}       source: {c.source}", file=out)


def _cell(value, width: int) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= width else text[: width - 1] + "~"


def format_result(result) -> str:
    """The gate's readable report: a table of failed checks, then their offending rows."""
    lines = []
    failed_errors, failed_warnings = result.failed(ERROR), [o for o in result.failed() if o.check.severity != ERROR]
    verdict = "PASSED" if result.passed else "FAILED"
    ran = [o for o in result.outcomes if o.status != "skipped"]
    lines.append(
        f"mqsmf check --stage {result.stage}: {verdict}: {len(failed_errors)} error and {len(failed_warnings)} warning "
        f"checks failed of {len(ran)} run ({len(result.outcomes) - len(ran)} skipped) on {result.rows_checked:,} rows, "
        f"{result.seconds:.1f} s, run {result.run_id}"
    )
    for frame, reason in result.skipped_frames.items():
        lines.append(f"  skipped {frame}: {reason}")
    failed = result.failed()
    if failed:
        lines.append("")
        header = f"  {'severity':8s}  {'check':44s} {'table':10s} {'rows':>8s}  rule"
        lines.append(header)
        lines.append("  " + "-" * (len(header) + 30))
        for o in failed:
            lines.append(
                f"  {o.check.severity:8s}  {o.check.name:44s} {_cell(_table(o), 10):10s} {o.violations:8d}  {o.check.text}"
            )
        for o in failed:
            lines.append("")
            shown = len(o.samples)
            lines.append(f"  {o.check.name}: {o.violations} violating rows" + (f", first {shown}:" if shown else ""))
            if shown:
                lines.append(f"    {'qmgr':8s} {'object':48s} {'interval start (UTC)':26s} values")
            for s in o.samples:
                start = s.get("interval_start_at")
                lines.append(
                    f"    {_cell(s.get('qmgr_name'), 8):8s} {_cell(s.get('object_name'), 48):48s} "
                    f"{_cell(start.strftime('%Y-%m-%d %H:%M:%S') if start else '', 26):26s} {s.get('values')}"
                )
    if result.violations_table:
        lines.append("")
        lines.append(
            f"  all violations: SELECT * FROM {result.violations_table} WHERE stage = '{result.stage}'"
            f"   (run_id '{result.run_id}')"
        )
    if result.docs_index:
        lines.append(f"  Data Docs: {result.docs_index}")
    return "\n".join(lines)


def _table(outcome) -> str:
    tables = {s.get("table_name") for s in outcome.samples if s.get("table_name")}
    return ",".join(sorted(tables)) if tables else outcome.check.frame


def outcome_json(result) -> dict:
    return {
        "stage": result.stage,
        "run_id": result.run_id,
        "checked_at": result.checked_at.isoformat(),
        "passed": result.passed,
        "seconds": round(result.seconds, 3),
        "frame_rows": result.frame_rows,
        "checks": [
            {
                "check": o.check.name,
                "severity": o.check.severity,
                "frame": o.check.frame,
                "rule": o.check.text,
                "status": o.status,
                "evaluated_rows": o.evaluated_rows,
                "violations": o.violations,
                "gx_unexpected": o.gx_unexpected,
                "note": o.note,
            }
            for o in result.outcomes
        ],
    }


def marts_schema_default() -> str:
    import os

    return f"{os.environ.get('MQSMF_SCHEMA', 'mqsmf')}_marts"


def run(args: argparse.Namespace) -> int:
    if args.list:
        list_catalogue()
        return 0
    try:
        severities = _severities(args.severity)
        _known(list(args.check or ()) + list(severities))
    except ValueError as e:
        print(f"mqsmf check: {e}", file=sys.stderr)
        return 2
    from .gate import GateError, run_gate

    try:
        from ..spark.session import local_session
    except ImportError as e:
        print(f"mqsmf check: the Spark layer is not available ({e})", file=sys.stderr)
        return 2

    stages = STAGES if args.stage == ALL else (args.stage,)
    schemas = {RAW: args.raw_schema or "smf_raw", MARTS: args.marts_schema or marts_schema_default()}
    spark = local_session(args.project_dir)
    results, rc = [], 0
    for stage in stages:
        only = _stage_checks(args.check, stage)
        if only == []:
            continue  # --check named no check of this stage
        try:
            result = run_gate(
                spark,
                stage,
                schemas=schemas,
                quality_schema=args.quality_schema,
                docs_dir=None if args.no_docs else args.docs,
                checks=only,
                severities={k: v for k, v in severities.items() if _in_stage(k, stage)},
                interval_tolerance=args.interval_tolerance,
                write=not args.no_write,
                strict=args.strict,
                sample_rows=args.rows,
            )
        except GateError as e:
            print(f"mqsmf check --stage {stage}: {e}", file=sys.stderr)
            return 2
        if all(o.status == "skipped" for o in result.outcomes):
            message = f"mqsmf check --stage {stage}: nothing to check: " + "; ".join(
                sorted(set(result.skipped_frames.values()))
            )
            if args.stage == ALL and stage == MARTS:
                print(textwrap.shorten(message + " (run dbt build first)", 200))
                continue
            print(message, file=sys.stderr)
            return 2
        print(format_result(result))
        print()
        results.append(result)
        rc = max(rc, result.exit_code)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([outcome_json(r) for r in results], f, indent=2)
    return rc


def _known(names: list[str]) -> None:
    from .checks import catalogue

    unknown = sorted(set(names) - {c.name for c in catalogue().checks})
    if unknown:
        raise ValueError(f"unknown check(s): {', '.join(unknown)} (see mqsmf check --list)")


def _in_stage(check: str, stage: str) -> bool:
    from .checks import catalogue

    return check in {c.name for c in catalogue().for_stage(stage).checks}


def _stage_checks(names: list[str] | None, stage: str) -> list[str] | None:
    """The --check names that belong to this stage (None = all of them)."""
    if not names:
        return None

    return [n for n in names if _in_stage(n, stage)]
