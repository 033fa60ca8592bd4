"""``mqsmf`` command line. Each subcommand lives in the module that owns the feature; this file
only wires them up, importing heavy modules (Spark, GX) lazily."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from .framing import FRAMINGS, FramingError


def _decode(args: argparse.Namespace) -> int:
    from .decode import RAW, TYPED
    from .output import TableSink
    from .reader import FileReport, iter_file

    mode = RAW if args.format == "jsonl" else TYPED
    sink = TableSink(args.out, args.format)
    quarantined = 0
    try:
        for path in args.files:
            report = FileReport(path)
            try:
                for name, batch in iter_file(path, args.structure, args.framing, mode, report=report):
                    sink.add(name, batch)
            except (OSError, FramingError) as e:
                print(f"mqsmf: {path}: {e}", file=sys.stderr)
                return 2
            for q in report.quarantine:
                print(f"quarantined: {q}", file=sys.stderr)
            quarantined += len(report.quarantine)
    finally:
        sink.close()
    for name, n in sorted(sink.rows.items()):
        print(f"{name:8s} {n:9d} rows -> {sink.path(name)}")
    if quarantined:
        print(f"{quarantined} quarantined spans (see messages above)", file=sys.stderr)
    return 0


def _inspect(args: argparse.Namespace) -> int:
    from .decode import TYPED
    from .reader import FileReport, iter_file

    rc = 0
    for path in args.files:
        report = FileReport(path)
        qmgrs, versions, systems = Counter(), Counter(), Counter()
        first = last = None
        try:
            for _name, batch in iter_file(path, None, args.framing, TYPED, report=report):
                cols = batch.to_pydict()
                qmgrs.update(cols["qmgr"])
                versions.update(v for v in cols["mq_version"] if v)
                systems.update(cols["system_id"])
                times = [t for t in cols["smf_time"] if t is not None]
                if times:
                    first = min([first, *times]) if first else min(times)
                    last = max([last, *times]) if last else max(times)
        except (OSError, FramingError) as e:
            print(f"mqsmf: {path}: {e}", file=sys.stderr)
            rc = 2
            continue
        print(f"{path}")
        print(f"  size {report.size:,} bytes, sha256 {report.sha256[:16]}...")
        print(f"  framing {report.framing}, {report.segments:,} segments")
        print("  records by type/subtype (read / decoded / skipped / quarantined / decoded with unexpected id):")
        for key in sorted(set(report.read) | set(report.quarantined), key=lambda k: (k[0] or -1, k[1] or -1)):
            t, s = key
            label = "unframed" if t is None else f"{t}/{s}" if s is not None and s >= 0 else f"{t}"
            print(
                f"    {label:10s} {report.read[key]:7d} {report.decoded[key]:7d} {report.skipped[key]:7d} "
                f"{report.quarantined[key]:7d} {report.unexpected_id[key]:7d}"
            )
        if report.unexpected_ids:
            print(
                "  warning: structures with an unexpected identifier (decoded: the self-defining section "
                "and the eyecatcher identify them): "
                + ", ".join(f"{s} {i} x{n:,}" for (s, i), n in sorted(report.unexpected_ids.items()))
            )
        print("  structures: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.instances.items())))
        print("  queue managers: " + ", ".join(f"{k} ({v:,} rows)" for k, v in sorted(qmgrs.items())))
        print("  systems: " + ", ".join(sorted(systems)))
        print("  MQ versions: " + (", ".join(sorted(versions)) or "-"))
        print(f"  time range (UTC): {first} .. {last}")
        print(f"  quarantine: {len(report.quarantine)} spans, {sum(q.length for q in report.quarantine):,} bytes")
        for q in report.quarantine[:20]:
            print(f"    offset {q.offset}: {q.length} bytes: {q.reason}")
        if len(report.quarantine) > 20:
            print(f"    ... {len(report.quarantine) - 20} more")
    return rc


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mqsmf", description="IBM MQ for z/OS SMF 115/116 tools")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("decode", help="decode SMF dumps into JSON lines, CSV or parquet (one file per structure)")
    d.add_argument("files", nargs="+", metavar="FILE")
    d.add_argument("--structure", action="append", help="only this structure (repeatable), e.g. QPST")
    d.add_argument("--format", choices=("jsonl", "csv", "parquet"), default="jsonl")
    d.add_argument("--out", default="mqsmf-out", help="output folder (default: mqsmf-out)")
    d.add_argument("--framing", choices=("auto", *FRAMINGS), default="auto")
    d.set_defaults(func=_decode)

    i = sub.add_parser("inspect", help="summarise an SMF dump: framing, record counts, structures, quarantine")
    i.add_argument("files", nargs="+", metavar="FILE")
    i.add_argument("--framing", choices=("auto", *FRAMINGS), default="auto")
    i.set_defaults(func=_inspect)

    # Feature modules add their own subcommands (generate, load, check, report, run).
    for module in ("generate", "spark.cli", "quality.cli", "report.cli", "pipeline"):
        try:
            mod = __import__(f"mqsmf.{module}", fromlist=["add_subcommand"])
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith("mqsmf"):
                continue
            raise
        if hasattr(mod, "add_subcommand"):
            mod.add_subcommand(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
