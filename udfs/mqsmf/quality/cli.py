"""``mqsmf check``: run the data-quality gate and print what failed.

Exit status (the contract CI relies on): 0 the gate passed (warnings, and violations a baseline
accepts, may have been reported); 1 violations at the severity chosen with ``--fail-on`` (``error``
by default, ``warn`` for warnings too) that the baseline does not accept; 2 the gate could not run
(usage, no project, no warehouse or tables, unreadable tables, unwritable outputs), with a one-line
message on stderr and never a traceback (``--verbose`` shows it).

Paths: ``--docs`` defaults to ``<project>/target/data_docs``; the files given to ``--docs``,
``--junit``, ``--markdown``, ``--json``, ``--baseline`` and ``--write-baseline`` are taken from the
current folder, so the command works the same from any folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Callable, Mapping

from ..warehouse import MARTS_SCHEMA_HELP, QUALITY_SCHEMA, RAW_SCHEMA, marts_schema
from .checks import DEFAULT_INTERVAL_TOLERANCE_SECONDS, ERROR, MARTS, RAW, SEVERITIES, STAGES, WARN

ALL = "all"


def add_subcommand(subparsers) -> None:
    p = subparsers.add_parser(
        "check",
        help="run the data-quality gate (GX suites) on the raw tables and/or the marts",
        description="Run the data-quality gate: every check of the stage as a Great Expectations suite on the "
        "Spark tables. Violating rows are listed in <quality-schema>.dq_violations (one row per row and check) "
        "and printed; Data Docs go to <docs>/<stage>/index.html. Exit 0 = passed, 1 = violations at the --fail-on "
        "severity that the baseline does not accept, 2 = could not run (one-line message).",
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
    p.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default=None,
        help="lowest severity that fails the gate: error (default) or warn (warnings fail too)",
    )
    p.add_argument("--strict", action="store_true", help="same as --fail-on warn")
    p.add_argument(
        "--all",
        action="store_true",
        dest="check_all",
        help="check all the data (default: what the loads since the stage's last gate run changed)",
    )
    p.add_argument(
        "--interval-tolerance",
        type=float,
        default=DEFAULT_INTERVAL_TOLERANCE_SECONDS,
        metavar="SECONDS",
        help=f"slack between consecutive intervals before a gap or overlap is reported (default {DEFAULT_INTERVAL_TOLERANCE_SECONDS:g})",
    )
    p.add_argument("--raw-schema", default=None, help=f"schema of the raw tables (default {RAW_SCHEMA})")
    p.add_argument("--marts-schema", default=None, help=MARTS_SCHEMA_HELP)
    p.add_argument(
        "--quality-schema",
        default=QUALITY_SCHEMA,
        help=f"schema of dq_violations and dq_check_results (default {QUALITY_SCHEMA})",
    )
    p.add_argument(
        "--docs", default=None, help="Data Docs folder, one site per stage (default <project>/target/data_docs)"
    )
    p.add_argument("--no-docs", action="store_true", help="do not build Data Docs")
    p.add_argument("--no-write", action="store_true", help="do not write dq_violations / dq_check_results")
    p.add_argument(
        "--rows", type=int, default=10, metavar="N", help="violating rows printed per failed check (default 10)"
    )
    p.add_argument("--json", metavar="FILE", help="write the verdict and every check's outcome as JSON (- = stdout)")
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML: a testcase per check and stage")
    p.add_argument("--markdown", metavar="FILE", help="write a Markdown summary (e.g. $GITHUB_STEP_SUMMARY)")
    p.add_argument(
        "--baseline", metavar="FILE", help="accepted violations (from --write-baseline): only new ones fail the gate"
    )
    p.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="write every violation found as accepted to FILE, then exit 0 (adopting the gate on old data)",
    )
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
                if c.planted_by:
                    print(
                        f"    {'':46s}       see it fail: mqsmf generate --violate {','.join(c.planted_by)}", file=out
                    )


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
        f"{result.seconds:.1f} s, run {result.run_id}, scope {result.scope}"
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


class CheckError(Exception):
    """The gate cannot run: the message is the one line ``mqsmf check`` prints (exit 2)."""


def run(args: argparse.Namespace) -> int:
    if args.list:
        list_catalogue()
        return 0
    return exit_status(lambda: _run(args), getattr(args, "verbose", False))


def exit_status(gate: Callable[[], int], verbose: bool = False) -> int:
    """``gate()``'s exit status, or 2 with one line on stderr when the gate cannot run (the exit
    contract: never a traceback, unless ``verbose``, when mqsmf's main prints it)."""
    try:
        return gate()
    except CheckError as e:
        print(f"mqsmf check: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        if verbose:
            raise
        print(f"mqsmf check: {_one_line(e)} (--verbose shows the traceback)", file=sys.stderr)
        return 2


def _one_line(e: BaseException) -> str:
    text = str(getattr(e, "desc", None) or e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def _out_path(path: str | None) -> str | None:
    """A file argument, from the current folder; its folder is created (before the gate runs, so
    an unwritable place is an error before any work)."""
    if path is None or path == "-":
        return path
    full = os.path.abspath(os.path.expanduser(path))
    try:
        os.makedirs(os.path.dirname(full), exist_ok=True)
    except OSError as e:
        raise CheckError(f"cannot write {path}: {e.strerror}") from None
    return full


def _run(args: argparse.Namespace) -> int:
    try:
        severities = _severities(args.severity)
        _known(list(args.check or ()) + list(severities))
    except ValueError as e:
        raise CheckError(str(e)) from None
    fail_on = args.fail_on or (WARN if args.strict else ERROR)
    outputs = {k: _out_path(getattr(args, k)) for k in ("json", "junit", "markdown", "write_baseline")}
    baseline, baseline_path = read_baseline_or_fail(args.baseline)
    try:
        from ..spark.profile import resolve_project_dir
    except ImportError as e:
        raise CheckError(f"the Spark layer is not available ({e})") from None
    try:
        project = resolve_project_dir(args.project_dir)
    except FileNotFoundError as e:
        raise CheckError(str(e).removeprefix("mqsmf: ")) from None
    docs = None if args.no_docs else os.path.abspath(args.docs) if args.docs else str(project / "target" / "data_docs")

    _require_warehouse(project)
    from ..spark.session import local_session

    try:
        spark = local_session(project)
    except Exception as e:
        raise CheckError(f"cannot start Spark: {_one_line(e)}") from None
    return check(
        spark,
        args.stage,
        schemas={RAW: args.raw_schema or RAW_SCHEMA, MARTS: args.marts_schema or marts_schema()},
        quality_schema=args.quality_schema,
        docs=docs,
        checks=args.check,
        severities=severities,
        interval_tolerance=args.interval_tolerance,
        write=not args.no_write,
        fail_on=fail_on,
        sample_rows=args.rows,
        check_all=args.check_all,
        baseline=baseline,
        baseline_path=baseline_path,
        outputs=outputs,
    )


def read_baseline_or_fail(path: str | None):
    """(the accepted violations, their file's absolute path) of ``--baseline``, (None, None) without
    it; CheckError when the file cannot be read."""
    from .verdict import BaselineError, read_baseline

    if not path:
        return None, None
    full = os.path.abspath(path)
    try:
        return read_baseline(full), full
    except BaselineError as e:
        raise CheckError(str(e)) from None


def check(
    spark,
    stage: str = ALL,
    *,
    schemas: Mapping[str, str] | None = None,
    quality_schema: str = QUALITY_SCHEMA,
    docs: str | None = None,
    checks: list[str] | None = None,
    severities: Mapping[str, str] | None = None,
    interval_tolerance: float = DEFAULT_INTERVAL_TOLERANCE_SECONDS,
    write: bool = True,
    fail_on: str = ERROR,
    sample_rows: int = 10,
    check_all: bool = False,
    baseline=None,
    baseline_path: str | None = None,
    outputs: Mapping[str, str | None] | None = None,
) -> int:
    """Run the gate (``run_gate`` per stage) on an open session, print each stage's report and the
    verdict, write the requested outputs, and return the exit status of ``mqsmf check``. Raises
    CheckError when the gate cannot run (see :func:`exit_status`). The defaults are the command's:
    the stages' default schemas (the raw tables, the dbt target's marts), only what changed since
    the stage's last gate run."""
    from .gate import GateError, all_loads_scope, changed_scope, run_gate
    from .verdict import as_json, decide, junit_xml, markdown, write_baseline

    schemas = dict(schemas or {RAW: RAW_SCHEMA, MARTS: marts_schema()})
    severities = dict(severities or {})
    outputs = {k: None for k in ("json", "junit", "markdown", "write_baseline")} | dict(outputs or {})
    # JSON on stdout is for scripts: the readable report goes to stderr then.
    report = sys.stderr if outputs["json"] == "-" else sys.stdout
    stages = STAGES if stage == ALL else (stage,)
    results = []
    for stage_name in stages:
        only = _stage_checks(checks, stage_name)
        if only == []:
            continue  # --check named no check of this stage
        try:
            scope = (
                all_loads_scope(spark, schemas[RAW])
                if check_all
                else changed_scope(spark, stage_name, schemas[RAW], quality_schema)
            )
            result = run_gate(
                spark,
                stage_name,
                schemas=schemas,
                quality_schema=quality_schema,
                docs_dir=docs,
                checks=only,
                severities={k: v for k, v in severities.items() if _in_stage(k, stage_name)},
                interval_tolerance=interval_tolerance,
                write=write,
                strict=fail_on == WARN,
                sample_rows=sample_rows,
                keys=bool(baseline is not None or outputs["write_baseline"]),
                scope=scope,
            )
        except GateError as e:
            raise CheckError(f"--stage {stage_name}: {e}") from None
        except Exception as e:
            raise CheckError(
                f"--stage {stage_name}: cannot read the tables of {schemas[stage_name]}: {_one_line(e)}"
            ) from None
        if all(o.status == "skipped" for o in result.outcomes):
            message = f"--stage {stage_name}: nothing to check: " + "; ".join(
                sorted(set(result.skipped_frames.values()))
            )
            if stage == ALL and stage_name == MARTS and results:
                print(textwrap.shorten("mqsmf check " + message + " (run dbt build first)", 200), file=report)
                continue
            raise CheckError(textwrap.shorten(message + (" (run mqsmf load first)" if stage_name == RAW else ""), 300))
        print(format_result(result), file=report)
        print(file=report)
        results.append(result)

    verdict = decide(results, fail_on, baseline, baseline_path)
    if outputs["write_baseline"]:
        n = write_baseline(outputs["write_baseline"], (k for r in results for k in r.violation_keys or ()))
        print(f"baseline: {n} violations accepted in {outputs['write_baseline']}", file=report)
    rc = 0 if outputs["write_baseline"] else verdict.exit_code
    _write(outputs["junit"], junit_xml(verdict))
    _write(outputs["markdown"], markdown(verdict))
    if outputs["json"]:
        _write(outputs["json"], json.dumps(as_json(verdict), indent=2, default=str) + "\n")
    print(verdict_line(verdict), file=report)
    return rc


def _require_warehouse(project) -> None:
    """No local warehouse folder: nothing was ever loaded (said before a Spark start)."""
    if os.environ.get("MQSMF_SPARK_MASTER"):
        return  # an application on a cluster: its metastore is elsewhere
    try:
        from ..spark.profile import warehouse_dir

        folder = warehouse_dir(project)
    except (ImportError, TypeError, AttributeError):
        return
    if not folder.exists():
        raise CheckError(f"no warehouse at {folder} (run mqsmf load first, or set MQSMF_WAREHOUSE_DIR)")


def verdict_line(verdict) -> str:
    """The last line of the report: what decided the exit status."""
    accepted = sum(c.accepted for c in verdict.checks)
    parts = [
        f"gate {'PASSED' if verdict.passed else 'FAILED'} (fails on {verdict.fail_on})",
        f"{verdict.count('failed')} checks with new violations that fail",
        f"{verdict.count('warned')} warned",
    ]
    if verdict.baseline:
        parts.append(f"{accepted} violations accepted by the baseline {verdict.baseline}")
    return ": ".join(parts[:1]) + ": " + ", ".join(parts[1:])


def _write(path: str | None, text: str) -> None:
    if path is None:
        return
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise CheckError(f"cannot write {path}: {e.strerror}") from None


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
