"""``mqsmf`` command line. Each subcommand lives in the module that owns the feature; this file
wires them up (importing heavy modules, Spark and GX, only when a command runs), owns the options
every command has (``--quiet``, ``--verbose``) and the exit-status contract:

- 0: done, nothing wrong with the data;
- 1: done, but the data has problems: quarantined spans, failed data-quality checks, failed dbt
  models or tests;
- 2: not done: usage or input error (unknown option or structure, missing, empty or non-SMF file,
  a file without IBM MQ records, a project or warehouse that cannot be used), one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import traceback
from collections import Counter
from pathlib import Path

from .framing import FRAMINGS, FramingError
from .project import find_project, version, version_mismatch

EXIT_OK = 0
EXIT_DATA = 1
EXIT_USAGE = 2

EXIT_STATUS_HELP = (
    "exit status: 0 ok; 1 data problems (quarantined spans, failed checks, failed dbt models or tests); "
    "2 usage or input error (one line on stderr)"
)
MQ_SMF_TYPES = (115, 116)


class InputError(Exception):
    """A problem with what the user gave us: one line on stderr, exit status 2."""


# -- output helpers shared by the commands --------------------------------------------------------


def emit_json(args: argparse.Namespace, payload) -> None:
    """Write a command's machine-readable summary (``--json``) on the real standard output; the
    human-readable lines went to stderr (or nowhere with ``--quiet``)."""
    out = getattr(args, "_json_stream", None) or sys.stdout
    json.dump(payload, out, indent=2, default=str)
    out.write("\n")
    out.flush()


def show_progress(args: argparse.Namespace) -> bool:
    """Progress on stderr: with --progress, or by default when stderr is a terminal (never with
    --quiet or --no-progress)."""
    if getattr(args, "quiet", False) or getattr(args, "no_progress", False):
        return False
    return bool(getattr(args, "progress", False)) or sys.stderr.isatty()


class ByteProgress:
    """The progress of reading a file on stderr (tqdm, as every long command's): percent, bytes and
    rate; ``progress(done)`` with the bytes read so far. The line is removed when done."""

    def __init__(self, label: str, total: int, enabled: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            total=max(total, 1), desc=label, unit="B", unit_scale=True, disable=not enabled, leave=False,
            mininterval=0.2, dynamic_ncols=True, file=sys.stderr,
        )  # fmt: skip

    def __call__(self, done: int) -> None:
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        # Show the finished state before the line goes: tqdm draws at most every mininterval, so a
        # file read faster than that would otherwise never show its 100% (a disabled bar ignores it).
        self.bar.refresh()
        self.bar.close()


def check_input_file(path: str) -> int:
    """The size of a file the user named, or InputError (missing, a folder, empty)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a folder, not an SMF dump")
    size = p.stat().st_size
    if size == 0:
        raise InputError(f"{path}: empty file (0 bytes), not an SMF dump")
    return size


def sort_input_files(command: str, paths: list[str], framing: str = "auto"):
    """The files' kinds (mqsmf.inputs), each unrecognised one reported on stderr. InputError for a
    path that does not exist (nothing runs then)."""
    from .inputs import sort_inputs

    try:
        recognised, unrecognised = sort_inputs(paths, framing)
    except FileNotFoundError as e:
        raise InputError(str(e)) from e
    for u in unrecognised:
        print(f"{command}: {u}", file=sys.stderr)
    return recognised, unrecognised


def input_exit_status(processed: int, skipped: int, data_problems: bool = False) -> int:
    """The exit status for files read: 2 when none could be processed (every file unrecognised),
    1 when some were skipped or the data has problems (quarantine), else 0."""
    if skipped and not processed:
        return EXIT_USAGE
    return EXIT_DATA if skipped or data_problems else EXIT_OK


def no_mq_records(path: str, report) -> str | None:
    """The error for a file whose records are all of other SMF types (or subtypes mqsmf does not
    decode), or None. A file whose MQ records were damaged is a data problem, not this."""
    if sum(report.decoded.values()) or sum(report.quarantined.values()) or report.quarantine:
        return None
    found = Counter()
    for (t, s), n in report.read.items():
        found[f"{t}" if s is None or s < 0 else f"{t}/{s}"] += n
    listing = ", ".join(f"{k} x {v:,}" for k, v in sorted(found.items())) or "none"
    return f"{path}: no IBM MQ statistics records (SMF {'/'.join(map(str, MQ_SMF_TYPES))}) that mqsmf decodes; records found: {listing}"


def check_structures(structures: list[str] | None) -> list[str] | None:
    if not structures:
        return None
    from .layouts import layouts
    from .pcf.reader import STRUCTURE as EVENTS_STRUCTURE

    known = sorted([*layouts(), EVENTS_STRUCTURE])
    names = [s.upper() for s in structures]
    unknown = [s for s in names if s not in known]
    if unknown:
        raise InputError(f"unknown structure {unknown[0]!r}; known: {', '.join(known)}")
    return names


# -- decode ---------------------------------------------------------------------------------------


def _decode(args: argparse.Namespace) -> int:
    from .decode import RAW, TYPED
    from .inputs import EVENTS
    from .output import TableSink
    from .pcf.reader import STRUCTURE as EVENTS_STRUCTURE
    from .pcf.reader import read_dump
    from .reader import FileReport, iter_file

    structures = check_structures(args.structure)
    recognised, unrecognised = sort_input_files("mqsmf decode", args.files, args.framing)
    mode = RAW if args.raw_times else TYPED
    sink = TableSink(args.out, args.format, raw_times=args.raw_times) if recognised else None
    quarantined, processed, skipped = 0, 0, len(unrecognised)
    try:
        for f in recognised:
            if f.kind == EVENTS:
                table, dump = read_dump(f.path)
                if table.num_rows and (structures is None or EVENTS_STRUCTURE in structures):
                    for batch in table.combine_chunks().to_batches():
                        sink.add(EVENTS_STRUCTURE, batch)
                for q in dump.quarantine:
                    print(f"quarantined: {q}", file=sys.stderr)
                quarantined += len(dump.quarantine)
                processed += 1
                continue
            report = FileReport(f.path)
            bar = ByteProgress(f"decode {f.path}", f.size, show_progress(args))
            try:
                for name, batch in iter_file(f.path, structures, f.framing, mode, report=report, progress=bar):
                    sink.add(name, batch)
            except FramingError as e:  # a forced --framing that does not fit the file
                print(
                    f"mqsmf decode: {f.path}: not an SMF dump with --framing {args.framing}: {e}; skipped",
                    file=sys.stderr,
                )
                skipped += 1
                continue
            finally:
                bar.close()
            problem = no_mq_records(f.path, report)
            if problem:
                print(f"mqsmf decode: {problem}; skipped", file=sys.stderr)
                skipped += 1
                continue
            for q in report.quarantine:
                print(f"quarantined: {q}", file=sys.stderr)
            quarantined += len(report.quarantine)
            processed += 1
    finally:
        if sink is not None:
            sink.close()
    for name, n in sorted(sink.rows.items() if sink else ()):
        print(f"{name:11s} {n:9d} rows -> {sink.path(name)}")
    if quarantined:
        print(f"{quarantined} quarantined spans (see messages above)", file=sys.stderr)
    return input_exit_status(processed, skipped, bool(quarantined))


# -- inspect --------------------------------------------------------------------------------------


def _label(t, s) -> str:
    return "unframed" if t is None else f"{t}/{s}" if s is not None and s >= 0 else f"{t}"


def inspect_file(path: str, framing: str = "auto", progress: bool = False) -> dict:
    """What ``mqsmf inspect`` says about one file, as a dict (also its ``--json`` form): an SMF
    dump, or a dmpmqmsg dump of event messages. InputError when it is neither."""
    from .inputs import EVENTS, Unrecognised, recognise

    try:
        kind = recognise(path, framing)
    except FileNotFoundError as e:
        raise InputError(str(e)) from e
    if isinstance(kind, Unrecognised):
        raise InputError(kind.reason if kind.reason.startswith(path) else f"{path}: {kind.reason}")
    if kind.kind == EVENTS:
        return inspect_event_dump(path)
    return inspect_smf_dump(path, kind.framing if framing == "auto" else framing, progress)


def inspect_event_dump(path: str) -> dict:
    """``mqsmf inspect`` of a dmpmqmsg dump: messages read, queue depth events decoded, messages
    skipped (other events or commands) by reason, the quarantine, queue managers, queues, put times."""
    import hashlib

    from .pcf.reader import FRAMING, read_dump_bytes

    data = Path(path).read_bytes()  # event dumps are small: one message per queue manager per event
    table, dump = read_dump_bytes(data, path)
    cols = table.select(["event_qmgr_name", "queue_name", "event_name", "put_at"]).to_pydict()
    times = [t for t in cols["put_at"] if t is not None]
    return {
        "path": path,
        "kind": "events",
        "size": dump.size,
        "sha256": hashlib.sha256(data).hexdigest(),
        "framing": FRAMING,
        "messages": {"read": dump.messages, "decoded": dump.decoded, "skipped": dump.skipped},
        "skipped_reasons": dict(dump.skipped_reasons.most_common()),
        "events": dict(sorted(Counter(cols["event_name"]).items())),
        "queue_managers": dict(sorted(Counter(cols["event_qmgr_name"]).items())),
        "queues": len(set(cols["queue_name"])),
        "first_put_time": min(times).isoformat() if times else None,
        "last_put_time": max(times).isoformat() if times else None,
        "quarantine": {
            "spans": len(dump.quarantine),
            "bytes": sum(q.length for q in dump.quarantine),
            "entries": [{"offset": q.offset, "length": q.length, "reason": q.reason} for q in dump.quarantine],
        },
    }


def inspect_smf_dump(path: str, framing: str = "auto", progress: bool = False) -> dict:
    """``mqsmf inspect`` of an SMF dump."""
    from .decode import TYPED
    from .reader import FileReport, iter_file

    size = check_input_file(path)
    report = FileReport(path)
    qmgrs, versions, systems = Counter(), Counter(), Counter()
    first = last = None
    bar = ByteProgress(f"inspect {path}", size, progress)
    try:
        for _name, batch in iter_file(path, None, framing, TYPED, report=report, progress=bar):
            cols = batch.to_pydict()
            qmgrs.update(cols["qmgr"])
            versions.update(v for v in cols["mq_version"] if v)
            systems.update(cols["system_id"])
            times = [t for t in cols["smf_time"] if t is not None]
            if times:
                first = min([first, *times]) if first else min(times)
                last = max([last, *times]) if last else max(times)
    except FramingError as e:
        raise InputError(f"{path}: not an SMF dump: {e}") from e
    finally:
        bar.close()
    problem = no_mq_records(path, report)
    if problem:
        raise InputError(problem)
    keys = sorted(set(report.read) | set(report.quarantined), key=lambda k: (k[0] or -1, k[1] or -1))
    return {
        "path": path,
        "kind": "smf",
        "size": report.size,
        "sha256": report.sha256,
        "framing": report.framing,
        "segments": report.segments,
        "records": [
            {
                "smf_type": t,
                "smf_subtype": s,
                "label": _label(t, s),
                "read": report.read[(t, s)],
                "decoded": report.decoded[(t, s)],
                "skipped": report.skipped[(t, s)],
                "quarantined": report.quarantined[(t, s)],
                "unexpected_id": report.unexpected_id[(t, s)],
            }
            for t, s in keys
        ],
        # structures decoded although their identifier is not the layout's (a warning, not damage)
        "unexpected_ids": [
            {"structure": st, "id": i, "instances": n} for (st, i), n in sorted(report.unexpected_ids.items())
        ],
        "structures": dict(sorted(report.instances.items())),
        "queue_managers": dict(sorted(qmgrs.items())),
        "systems": sorted(systems),
        "mq_versions": sorted(versions),
        "first_smf_time": first.isoformat() if first else None,
        "last_smf_time": last.isoformat() if last else None,
        "quarantine": {
            "spans": len(report.quarantine),
            "bytes": sum(q.length for q in report.quarantine),
            "entries": [{"offset": q.offset, "length": q.length, "reason": q.reason} for q in report.quarantine],
        },
    }


def _print_event_inspection(info: dict) -> None:
    print(f"{info['path']}  (dmpmqmsg dump of event messages)")
    print(f"  size {info['size']:,} bytes, sha256 {info['sha256'][:16]}...")
    m = info["messages"]
    print(f"  messages: {m['read']:,} read, {m['decoded']:,} queue depth events decoded, {m['skipped']:,} skipped")
    for reason, n in info["skipped_reasons"].items():
        print(f"    skipped x{n:,}: {reason}")
    print("  events: " + (", ".join(f"{k} {v:,}" for k, v in info["events"].items()) or "-"))
    print("  queue managers: " + (", ".join(f"{k} ({v:,} events)" for k, v in info["queue_managers"].items()) or "-"))
    print(f"  queues: {info['queues']:,}")
    print(f"  put times (UTC): {info['first_put_time']} .. {info['last_put_time']}")
    _print_quarantine(info["quarantine"])


def _print_quarantine(q: dict) -> None:
    print(f"  quarantine: {q['spans']} spans, {q['bytes']:,} bytes")
    for e in q["entries"][:20]:
        print(f"    offset {e['offset']}: {e['length']} bytes: {e['reason']}")
    if q["spans"] > 20:
        print(f"    ... {q['spans'] - 20} more")


def _print_inspection(info: dict) -> None:
    if info.get("kind") == "events":
        _print_event_inspection(info)
        return
    print(info["path"])
    print(f"  size {info['size']:,} bytes, sha256 {info['sha256'][:16]}...")
    print(f"  framing {info['framing']}, {info['segments']:,} segments")
    print("  records by type/subtype (read / decoded / skipped / quarantined / decoded with unexpected id):")
    for r in info["records"]:
        print(
            f"    {r['label']:10s} {r['read']:7d} {r['decoded']:7d} {r['skipped']:7d} {r['quarantined']:7d} "
            f"{r['unexpected_id']:7d}"
        )
    if info["unexpected_ids"]:
        print(
            "  warning: structures with an unexpected identifier (decoded: the self-defining section "
            "and the eyecatcher identify them): "
            + ", ".join(f"{u['structure']} {u['id']} x{u['instances']:,}" for u in info["unexpected_ids"])
        )
    print("  structures: " + ", ".join(f"{k} {v:,}" for k, v in info["structures"].items()))
    print("  queue managers: " + ", ".join(f"{k} ({v:,} rows)" for k, v in info["queue_managers"].items()))
    print("  systems: " + ", ".join(info["systems"]))
    print("  MQ versions: " + (", ".join(info["mq_versions"]) or "-"))
    print(f"  time range (UTC): {info['first_smf_time']} .. {info['last_smf_time']}")
    _print_quarantine(info["quarantine"])


def _inspect(args: argparse.Namespace) -> int:
    files, processed, skipped, quarantined = [], 0, 0, False
    for path in args.files:
        try:
            info = inspect_file(path, args.framing, show_progress(args))
        except InputError as e:  # say so, go on with the next file
            print(f"mqsmf inspect: {e}; skipped", file=sys.stderr)
            files.append({"path": path, "error": str(e)})
            skipped += 1
            continue
        _print_inspection(info)
        files.append(info)
        processed += 1
        quarantined = quarantined or bool(info["quarantine"]["spans"])
    rc = input_exit_status(processed, skipped, quarantined)
    if args.json_summary:
        emit_json(args, {"files": files, "exit_status": rc})
    return rc


# -- the parser -----------------------------------------------------------------------------------


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def _add_common(parser: argparse.ArgumentParser, top: bool) -> None:
    """--quiet and --verbose, accepted before the command and after it (default: leave as set)."""
    default = {} if top else {"default": argparse.SUPPRESS}
    taken = parser._option_string_actions
    if "--quiet" not in taken:
        flags = ("-q", "--quiet") if "-q" not in taken else ("--quiet",)
        parser.add_argument(*flags, action="store_true", help="print only errors (and --json output)", **default)
    if "--verbose" not in taken:
        flags = ("-v", "--verbose") if "-v" not in taken else ("--verbose",)
        parser.add_argument(
            *flags, action="store_true", help="more detail: INFO logging, tracebacks of errors", **default
        )


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                yield sub
                yield from _subparsers(sub)


def _add_json_flag(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--json",
        dest="json_summary",
        action="store_true",
        help=f"print {what} as JSON on stdout (the human-readable lines go to stderr)",
    )


def _add_progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action="store_true",
        help="show progress on stderr even when it is not a terminal (default: only on a terminal)",
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mqsmf",
        description="IBM MQ for z/OS SMF 115/116 tools: decode and inspect dumps, load them into a Spark "
        "warehouse, build the dbt marts, run the data-quality gate, write the report.",
        epilog=EXIT_STATUS_HELP + ". 'mqsmf COMMAND --help' describes a command.",
        formatter_class=_Formatter,
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}", help="print the version and exit")
    _add_common(p, top=True)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    d = sub.add_parser(
        "decode",
        help="decode SMF dumps into JSON lines, CSV or parquet (one file per structure)",
        description="Decode SMF 115/116 dumps into one output file per structure (QMST, QQST, ...) in --out. "
        "Damaged spans are quarantined (listed on stderr) and the rest is decoded.",
        epilog=EXIT_STATUS_HELP + "; 1 here means some spans were quarantined.",
    )
    d.add_argument("files", nargs="+", metavar="FILE", help="SMF dump file (RDW, BDW or no descriptor words)")
    d.add_argument(
        "--structure",
        action="append",
        metavar="NAME",
        help="only this structure (repeatable), e.g. QPST; default: every structure",
    )
    d.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet"),
        default="jsonl",
        help="output format: jsonl, csv (times as ISO-8601 'YYYY-MM-DD HH:MM:SS.fff', UTC but the *_local "
        "columns, as spreadsheets read them) or parquet (typed timestamps); default jsonl",
    )
    d.add_argument(
        "--raw-times",
        action="store_true",
        help="write the raw decode instead: STCK/TOD clocks as the 64-bit values in the records, IBM field "
        "names (JSON lines: each STCK field with a <name>_utc beside it), to compare with another decoder",
    )
    d.add_argument("--out", default="mqsmf-out", help="output folder (default: mqsmf-out)")
    d.add_argument(
        "--framing",
        choices=("auto", *FRAMINGS),
        default="auto",
        help="how records are delimited in the file (default auto: detected from its first bytes)",
    )
    _add_progress_flag(d)
    d.set_defaults(func=_decode)

    i = sub.add_parser(
        "inspect",
        help="summarise an SMF dump: framing, record counts, structures, quarantine",
        description="Read SMF dumps and summarise each: size and checksum, framing, records by SMF type and "
        "subtype (read, decoded, skipped, quarantined), structures, queue managers, systems, MQ versions, "
        "time range and the quarantined spans.",
        epilog=EXIT_STATUS_HELP + "; 1 here means some spans were quarantined.",
    )
    i.add_argument("files", nargs="+", metavar="FILE", help="SMF dump file (RDW, BDW or no descriptor words)")
    i.add_argument(
        "--framing",
        choices=("auto", *FRAMINGS),
        default="auto",
        help="how records are delimited in the file (default auto: detected from its first bytes)",
    )
    _add_progress_flag(i)
    _add_json_flag(i, "the summary of every file")
    i.set_defaults(func=_inspect)

    # Feature modules add their own subcommands (init, generate, load, check, report, run).
    for module in ("project", "generate", "spark.cli", "quality.cli", "report.cli", "pipeline"):
        try:
            mod = __import__(f"mqsmf.{module}", fromlist=["add_subcommand"])
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith("mqsmf"):
                continue
            raise
        if hasattr(mod, "add_subcommand"):
            mod.add_subcommand(sub)
    for parser in _subparsers(p):
        _add_common(parser, top=False)
        if parser.epilog is None:
            parser.epilog = EXIT_STATUS_HELP + "."
    return p


# -- running a command ----------------------------------------------------------------------------


def _configure_logging(quiet: bool, verbose: bool) -> None:
    level = logging.ERROR if quiet else logging.INFO if verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger().setLevel(level)


def _one_line(e: BaseException) -> str:
    """An exception's message on one line: its first line, and when that only announces more
    (Spark's "An exception was thrown from the Python worker:"), the last line too, which names it."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    if not lines:
        return ""
    if len(lines) > 1 and lines[0].endswith(":"):
        return f"{lines[0]} {lines[-1]}"
    return lines[0]


def _warn_if_other_version(args: argparse.Namespace) -> None:
    """One line on stderr when the project this command works in was written (``mqsmf init``) by
    another version of the package: its models, macros and seeds may not be the ones this code expects."""
    try:
        project = find_project(getattr(args, "project_dir", None))
        written = project and version_mismatch(project, version())
    except OSError:
        return
    if written:
        print(
            f"mqsmf: warning: the project {project} was written by mqsmf {written}, this is mqsmf {version()}; "
            f"`mqsmf init --force {project}` updates its files (a configuration file you changed is kept as *.bak-<time>)",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help/--version (0) or a usage error (2, message printed)
        return int(e.code or 0)
    quiet, verbose = bool(getattr(args, "quiet", False)), bool(getattr(args, "verbose", False))
    _configure_logging(quiet, verbose)
    if verbose:  # Spark's own warnings too (the profile gives its JVM this level at start)
        from .spark.profile import LOG_LEVEL_ENV

        os.environ.setdefault(LOG_LEVEL_ENV, "warn")
    name = f"mqsmf {args.command}"
    if args.command != "init" and not quiet:
        _warn_if_other_version(args)
    # --json: the JSON alone on stdout; everything else a command prints goes to stderr.
    # --quiet: everything a command prints on stdout goes nowhere (errors still on stderr).
    args._json_stream = sys.stdout
    redirect = None
    if quiet:
        redirect = open(os.devnull, "w")  # noqa: SIM115 - closed below
    elif getattr(args, "json_summary", False):
        redirect = sys.stderr
    try:
        with contextlib.redirect_stdout(redirect) if redirect is not None else contextlib.nullcontext():
            return args.func(args)
    except InputError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # one line, not a traceback (unless --verbose)
        if verbose:
            traceback.print_exc()
        hint = "" if verbose else " (--verbose shows the traceback)"
        print(f"{name}: {type(e).__name__}: {_one_line(e)}{hint}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if quiet and redirect is not None:
            redirect.close()


if __name__ == "__main__":
    sys.exit(main())
