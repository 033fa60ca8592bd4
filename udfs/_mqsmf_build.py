"""Build backend of the mqsmf distribution: setuptools, plus the dbt project as package data.

The dbt project stays where dbt and the developers expect it, at the top of the repository
(dbt_project.yml, models, macros, seeds, tests/dbt, profiles). A wheel built from the checkout
carries a copy of it as ``mqsmf/dbt_project/``, so an installed package can write a ready project
(``mqsmf init DIR``) without the checkout. An sdist carries the same files at their own places.
``pyproject.toml`` names this module as the backend (``backend-path = ["udfs"]``) and its two
commands in ``[tool.setuptools.cmdclass]``; every PEP 517 hook is setuptools' own.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist as _sdist

ROOT = Path(__file__).resolve().parents[1]


def _project_module():
    """mqsmf/project.py, loaded by path: importing the package would need numpy and pyarrow, which
    the isolated build environment does not have. It holds the list of the project's files."""
    spec = importlib.util.spec_from_file_location("_mqsmf_project", ROOT / "udfs" / "mqsmf" / "project.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project_files() -> list[Path]:
    return _project_module().project_files(ROOT)


class BuildPy(_build_py):
    """build_py that also copies the dbt project into the built package (not for editable
    installs: those find the checkout's project itself)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "mqsmf" / _project_module().PACKAGED_DIR
        shutil.rmtree(target, ignore_errors=True)
        for rel in project_files():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, target / rel)


class Sdist(_sdist):
    """sdist that carries the dbt project too, so a wheel built from it has the project."""

    def make_release_tree(self, base_dir, files) -> None:
        # This backend (needed to build the wheel from the sdist) and the project's files.
        extra = ["udfs/_mqsmf_build.py", *(str(rel) for rel in project_files())]
        super().make_release_tree(base_dir, sorted(set(files) | set(extra)))


# PEP 517 hooks: setuptools' own.
get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
build_wheel = _setuptools.build_wheel
build_sdist = _setuptools.build_sdist
build_editable = _setuptools.build_editable
