"""The dbt project, wherever the package is installed; ``mqsmf init DIR`` writes a ready copy.

The project lives at the top of the repository (dbt_project.yml, models, macros, seeds, tests/dbt,
profiles/profiles.yml). A wheel carries a copy as ``mqsmf/dbt_project/`` (the build backend,
``udfs/_mqsmf_build.py``, puts it there from the list below); an editable install uses the
checkout's own. The commands look for the project from the current folder upwards (or
``--project-dir`` / ``$MQSMF_PROJECT_DIR``), so after ``mqsmf init DIR`` they work from ``DIR``.

This module imports nothing but the standard library: the build backend loads it by path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

# What makes the dbt project, relative to its root: files and whole folders.
PROJECT_FILES = ("dbt_project.yml", "profiles/profiles.yml", "profiles/spark-log4j2.properties")
PROJECT_FOLDERS = ("models", "macros", "seeds", "tests/dbt")
PACKAGED_DIR = "dbt_project"  # inside the installed package
# What `mqsmf init` records in the project: the package version that wrote it and the content of
# the site's configuration files as written, so `init --force` can tell the site's edits apart.
STAMP = ".mqsmf-project.json"
# The site's configuration among the project's files: never overwritten without a backup.
CONFIGURATION = ("dbt_project.yml", "profiles/profiles.yml", "seeds/mp16_rules.csv", "seeds/site_config_*.csv")
GITIGNORE = """\
# Written by mqsmf init: the data and what the tools make stay out of git; the project's files,
# its configuration seeds and .mqsmf-project.json belong in it.
/warehouse/
/target/
/landing/
/logs/
/dbt_packages/
.user.yml
*.bak-*
"""


def version() -> str:
    """This package's version: its distribution's, else (run from a source tree) ``mqsmf.__version__``."""
    try:
        from importlib.metadata import version as dist_version

        return dist_version("mqsmf")
    except Exception:  # not installed as a distribution
        from . import __version__

        return __version__


def is_project(path: Path) -> bool:
    return (path / "dbt_project.yml").is_file() and (path / "profiles" / "profiles.yml").is_file()


def project_files(root: Path) -> list[Path]:
    """The dbt project's files under ``root``, relative to it (no caches, no hidden or local files)."""
    missing = [name for name in (*PROJECT_FILES, *PROJECT_FOLDERS) if not (root / name).exists()]
    if missing:
        raise FileNotFoundError(f"the dbt project under {root} is incomplete: no {', '.join(missing)}")
    files = [Path(name) for name in PROJECT_FILES]
    for folder in PROJECT_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root)
            if path.is_file() and not any(part.startswith((".", "__pycache__")) for part in rel.parts):
                files.append(rel)
    return files


def packaged_project() -> Path | None:
    """The project this package carries: the wheel's copy, else the checkout of an editable install."""
    here = Path(__file__).resolve().parent
    for root in (here / PACKAGED_DIR, here.parents[1]):
        if is_project(root):
            return root
    return None


def is_configuration(rel: Path) -> bool:
    return any(rel.match(pattern) and len(rel.parts) == len(Path(pattern).parts) for pattern in CONFIGURATION)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_stamp(project: Path) -> dict:
    """What `mqsmf init` recorded in ``project`` ({} for a project it did not write, or an unreadable record)."""
    try:
        stamp = json.loads((Path(project) / STAMP).read_text())
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def find_project(project_dir: str | os.PathLike | None = None) -> Path | None:
    """The project a command works on, as the commands find it (the argument, $MQSMF_PROJECT_DIR,
    else the current folder or one above it); None if there is none."""
    given = project_dir or os.environ.get("MQSMF_PROJECT_DIR")
    candidates = [Path(given).expanduser()] if given else [Path.cwd(), *Path.cwd().parents]
    return next((path.resolve() for path in candidates if is_project(path)), None)


def version_mismatch(project: Path, installed: str) -> str | None:
    """The version that wrote ``project`` when it is not ``installed`` (None: same, or not written by init)."""
    written = read_stamp(project).get("mqsmf_version")
    return written if isinstance(written, str) and written != installed else None


def init_project(dest: str | Path, force: bool = False, version: str = "unknown") -> tuple[list[Path], list[Path]]:
    """Copy the packaged dbt project into ``dest``; returns the files written and the backups made
    (both relative to ``dest``).

    ``dest`` must be missing or empty, unless ``force``: then the project's files are overwritten
    and everything else in ``dest`` (its ``warehouse/`` and ``target/``, your own files) is kept. A
    configuration file (``CONFIGURATION``) the site changed since init wrote it is first copied to
    ``<name>.bak-<UTC time>``: the site's settings are never lost. Also writes a ``.gitignore`` (when
    there is none) and the record of the version and configuration written (``STAMP``)."""
    source = packaged_project()
    if source is None:
        raise FileNotFoundError("this installation of mqsmf carries no dbt project (reinstall the wheel)")
    dest = Path(dest).expanduser().resolve()
    if dest.exists() and not dest.is_dir():
        raise FileExistsError(f"{dest} is a file, not a folder")
    if dest.exists() and any(dest.iterdir()) and not force:
        raise FileExistsError(f"{dest} is not empty (use --force to overwrite the project's files there)")
    if dest == source:
        raise FileExistsError(f"{dest} is the packaged project itself")
    files = project_files(source)
    written_before = read_stamp(dest).get("configuration", {})
    suffix = ".bak-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    backups: list[Path] = []
    for rel in files:
        target = dest / rel
        if is_configuration(rel) and target.is_file():
            current = _digest(target)
            if current != _digest(source / rel) and current != written_before.get(rel.as_posix()):
                backup = target.with_name(target.name + suffix)
                shutil.copy2(target, backup)
                backups.append(backup.relative_to(dest))
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, dest / rel)
    if not (dest / ".gitignore").exists():
        (dest / ".gitignore").write_text(GITIGNORE)
        files.append(Path(".gitignore"))
    stamp = {
        "mqsmf_version": version,
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "configuration": {rel.as_posix(): _digest(dest / rel) for rel in files if is_configuration(rel)},
    }
    (dest / STAMP).write_text(json.dumps(stamp, indent=2) + "\n")
    files.append(Path(STAMP))
    return files, backups


def add_subcommand(subparsers) -> None:
    p = subparsers.add_parser(
        "init",
        help="write a ready dbt project (models, macros, seeds, tests, profiles) into a folder",
        description="Write the mqsmf dbt project that this package carries into DIR: dbt_project.yml, models, "
        "macros, seeds, tests/dbt and profiles/profiles.yml (the local and cluster targets). Then run the "
        "commands from DIR: mqsmf run (or mqsmf load, dbt build --profiles-dir profiles, mqsmf check, "
        "mqsmf report). Also writes a .gitignore (the warehouse, target/ and landing/ are data, not "
        f"source) and {STAMP} (the version that wrote the project: mqsmf warns when another one runs in "
        "it). Exit status: 0 written, 2 DIR is not empty (without --force) or cannot be written.",
    )
    p.add_argument("dir", metavar="DIR", help="folder to write the project into (created; must be empty)")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite the project's files in a non-empty DIR, e.g. after an upgrade (keeps warehouse/, target/ "
        "and any other file; a configuration file you changed - dbt_project.yml, profiles.yml, the "
        "mp16_rules and site_config_* seeds - is first copied to NAME.bak-<time>)",
    )
    p.set_defaults(func=_init)


def _init(args: argparse.Namespace) -> int:
    try:
        files, backups = init_project(args.dir, force=args.force, version=version())
    except OSError as e:
        print(f"mqsmf init: {e}", file=sys.stderr)
        return 2
    dest = Path(args.dir).expanduser().resolve()
    print(f"wrote the mqsmf dbt project ({len(files)} files) to {dest}")
    for backup in backups:
        print(f"  kept your changed {backup.name.rsplit('.bak-', 1)[0]} as {backup}")
    print("next, from that folder:")
    print("  mqsmf run /path/to/smf/dumps/             # all of the below in one command (or put dumps in landing/)")
    print("  mqsmf load /path/to/smf/dumps/            # SMF dumps -> raw tables")
    print("  dbt build --profiles-dir profiles         # models, seeds and dbt tests")
    print("  mqsmf check --stage all                   # the data-quality gate")
    print("  mqsmf report                              # the HTML report: target/report/index.html")
    return 0
