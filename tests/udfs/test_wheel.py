"""The wheel works outside the checkout: build it, install it in a fresh venv in a temporary folder,
and run the README's "use the installed package" block there verbatim (init -> generate -> load ->
dbt build -> gate -> report).

Cheap but honest about dependencies. Installing the extras for real would unpack about 1 GB per
run, so the fresh venv gets the wheel with ``--no-deps`` and a ``.pth`` line to a folder of
symlinks: one per top-level entry (package, module, ``.dist-info``) of exactly the distributions in
the closure of the wheel's declared requirements for the extras the README installs (computed
from the wheel's own METADATA and the installed distributions' metadata). A module that the code
imports but no declared distribution provides is simply absent there, as in a real install (jinja2
for ``mqsmf load`` once), and nothing is downloaded. ``.ci/constraints.txt`` pins what the
project venv holds, so the closure is the one pip would install with it.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .spark_log import spark_noise

pytestmark = [pytest.mark.slow, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]
README_EXTRAS = ("spark", "dbt", "quality", "report")


# The README's walk-through of the installed package: the bash block with a line starting `mqsmf init`
# (tests/udfs/test_gate_ci.py leaves that block to this module, which runs it by default).
INIT_BLOCK = r"^mqsmf init\b"


def readme_block(pattern: str) -> str:
    """The README bash block with a line matching ``pattern``."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    (block,) = [b for b in blocks if re.search(pattern, b, flags=re.M)]
    return block


def declared_closure(wheel: Path, extras: tuple[str, ...]) -> set[str]:
    """Canonical names of every distribution the wheel's requirements (with ``extras``) pull in,
    following the installed distributions' own requirements."""
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        own = z.read(meta).decode()
    own_requires = [line.split(":", 1)[1].strip() for line in own.splitlines() if line.startswith("Requires-Dist:")]
    seen: set[str] = set()
    todo = [(Requirement(r), extra) for r in own_requires for extra in ("", *extras)]
    while todo:
        req, extra = todo.pop()
        if req.marker and not req.marker.evaluate({**default_environment(), "extra": extra}):
            continue
        name = canonicalize_name(req.name)
        if name == "mqsmf":  # mqsmf[spark] inside another extra: that extra's requirements
            todo += [(Requirement(r), e) for r in own_requires for e in req.extras]
            continue
        key = name + "[" + ",".join(sorted(req.extras)) + "]"
        if key in seen:
            continue
        seen.add(key)
        dist = md.distribution(req.name)  # missing: the project venv itself lacks a declared dependency
        todo += [(Requirement(r), e) for r in dist.requires or () for e in ("", *req.extras)]
    return {k.split("[")[0] for k in seen}


def visible_site(allowed: set[str], dest: Path) -> None:
    """Symlinks in ``dest`` to the project venv's top-level entries of the ``allowed`` distributions."""
    site = Path(sysconfig.get_paths()["purelib"])
    dest.mkdir()
    for dist in md.distributions(path=[str(site)]):
        if canonicalize_name(dist.metadata["Name"]) not in allowed:
            continue
        for file in dist.files or ():
            top = file.parts[0]
            if top in ("..", "__pycache__") or top.endswith(".pth"):
                continue
            if (site / top).exists() and not (dest / top).exists():
                (dest / top).symlink_to(site / top)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dist")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = dist.glob("mqsmf-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {"mqsmf/dbt_project/dbt_project.yml", "mqsmf/dbt_project/profiles/profiles.yml"} <= names
    assert any(n.startswith("mqsmf/dbt_project/models/marts/") for n in names)
    return wheel


def make_venv(wheel: Path, extras: tuple[str, ...], work: Path) -> tuple[Path, set[str]]:
    """A fresh venv with the wheel and exactly the declared dependencies of ``extras``."""
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True
    )
    assert install.returncode == 0, install.stderr[-3000:]
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    allowed = declared_closure(wheel, extras)
    visible_site(allowed, work / "declared-site")
    (site / "mqsmf_declared_dependencies.pth").write_text(f"{work / 'declared-site'}\n")
    if "dbt-core" in allowed:  # pip would have written dbt's console script; --no-deps did not
        (venv / "bin" / "dbt").write_text(f"#!{py}\nimport sys\nfrom dbt.cli.main import cli\nsys.exit(cli())\n")
        (venv / "bin" / "dbt").chmod(0o755)
    return venv, allowed


@pytest.fixture(scope="module")
def wheel_venv(wheel, tmp_path_factory):
    return make_venv(wheel, README_EXTRAS, tmp_path_factory.mktemp("wheel"))


def _env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQSMF_", "DBT_", "PYSPARK_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["MQSMF_DRIVER_MEMORY"] = os.environ.get("MQSMF_DRIVER_MEMORY", "1g")
    if os.environ.get("MQSMF_DRIVER_JAVA_OPTIONS"):  # the test run's JVM options (.ci/test)
        env["MQSMF_DRIVER_JAVA_OPTIONS"] = os.environ["MQSMF_DRIVER_JAVA_OPTIONS"]
    return env


def test_the_wheel_runs_the_readme_outside_the_checkout(wheel_venv, tmp_path):
    venv, allowed = wheel_venv
    env = _env(venv)
    # The fresh venv imports mqsmf from the wheel, not from the checkout.
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import mqsmf; print(mqsmf.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.returncode == 0, where.stderr
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout
    # Only declared distributions are there: pytest (dev extra) and dagster (orchestration) are not.
    for module in ("pytest", "dagster"):
        probe = subprocess.run([str(venv / "bin" / "python"), "-c", f"import {module}"], env=env, capture_output=True)
        assert probe.returncode != 0, module
    assert {"pyspark", "jinja2", "pyyaml", "dbt-core", "great-expectations", "plotly"} <= allowed

    block = readme_block(INIT_BLOCK)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        capture_output=True,
        text=True,
        env={**env, "TMPDIR": str(tmp_path)},
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=3600,
    )
    assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-4000:])
    name = re.search(r"^mqsmf init\s+(?:-\S+\s+)*([^\s&;|]+)", block, flags=re.M).group(1)
    (project,) = tmp_path.glob(f"*/{name}")
    # The warehouse is the new project's, outside dbt's target/ (rm -rf target keeps the data).
    assert (project / "warehouse" / "spark-warehouse").is_dir()
    assert not (project / "target" / "spark-warehouse").exists()
    assert (project / "target" / "report" / "index.html").is_file()
    assert "rows inserted" in done.stdout
    assert not (ROOT / name).exists()


def test_the_spark_extra_alone_can_load(wheel, tmp_path):
    """``pip install 'mqsmf[spark]'`` is enough for ``mqsmf load`` (it once lacked jinja2 and yaml)."""
    venv, allowed = make_venv(wheel, ("spark",), tmp_path / "spark-only")
    assert {"pyspark", "jinja2", "pyyaml", "pandas", "tqdm"} <= allowed and "dbt-core" not in allowed
    env = _env(venv)
    script = (
        "mqsmf init --quiet proj && cd proj && export MQSMF_PROJECT_DIR=$PWD && "
        "mqsmf generate --quiet --out day.dat --qmgrs 1 --queues 2 --intervals 1 && mqsmf load --json day.dat"
    )
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    # The project mqsmf init wrote keeps Spark's log out of the terminal (its profile names the config).
    assert not spark_noise(done.stderr)
    summary = json.loads(done.stdout)
    manifest = json.loads((tmp_path / "proj" / "day.dat.manifest.json").read_text())
    assert summary["rows_inserted"]["QQST"] == manifest["counts"]["instances"]["QQST"]
