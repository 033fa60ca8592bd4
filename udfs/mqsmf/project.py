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
import shutil
import sys
from pathlib import Path

# What makes the dbt project, relative to its root: files and whole folders.
PROJECT_FILES = ("dbt_project.yml", "profiles/profiles.yml", "profiles/spark-log4j2.properties")
PROJECT_FOLDERS = ("models", "macros", "seeds", "tests/dbt")
PACKAGED_DIR = "dbt_project"  # inside the installed package


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


def init_project(dest: str | Path, force: bool = False) -> list[Path]:
    """Copy the packaged dbt project into ``dest``; returns the files written (relative).

    ``dest`` must be missing or empty, unless ``force``: then the project's files are overwritten
    and everything else in ``dest`` (its ``warehouse/`` and ``target/``, your own files) is kept."""
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
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, dest / rel)
    return files


def add_subcommand(subparsers) -> None:
    p = subparsers.add_parser(
        "init",
        help="write a ready dbt project (models, macros, seeds, tests, profiles) into a folder",
        description="Write the mqsmf dbt project that this package carries into DIR: dbt_project.yml, models, "
        "macros, seeds, tests/dbt and profiles/profiles.yml (the local and cluster targets). Then run the "
        "commands from DIR: mqsmf load, dbt build --profiles-dir profiles, mqsmf check, mqsmf report. "
        "Exit status: 0 written, 2 DIR is not empty (without --force) or cannot be written.",
    )
    p.add_argument("dir", metavar="DIR", help="folder to write the project into (created; must be empty)")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite the project's files in a non-empty DIR (keeps warehouse/, target/ and any other file)",
    )
    p.set_defaults(func=_init)


def _init(args: argparse.Namespace) -> int:
    try:
        files = init_project(args.dir, force=args.force)
    except OSError as e:
        print(f"mqsmf init: {e}", file=sys.stderr)
        return 2
    dest = Path(args.dir).expanduser().resolve()
    print(f"wrote the mqsmf dbt project ({len(files)} files) to {dest}")
    print("next, from that folder:")
    print("  mqsmf load /path/to/smf/dumps/            # SMF dumps -> raw tables")
    print("  dbt build --profiles-dir profiles         # models, seeds and dbt tests")
    print("  mqsmf check --stage all                   # the data-quality gate")
    return 0
