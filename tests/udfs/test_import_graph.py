"""The package's import graph: no circle, and layers that import downward only.

Every ``import`` statement of ``udfs/`` counts, wherever it stands: at the top of a module, inside a
function (where a circle hides until the function runs) or under ``if TYPE_CHECKING``. A module
importing its own package's ``__init__`` is not an edge (Python imports the parents first anyway).

The layers, lowest first (a module may import its own layer and the ones below):

1. the parser core: framing, layouts, decoding, reading, encoding, the generator, event dumps;
2. the warehouse contract (``warehouse``, ``load_lock``): names, keys and the folder's lock;
3. Spark (``mqsmf.spark``, ``pyspark_mqsmf``);
4. what reads the warehouse: the gate (``quality``) and the report (``report``);
5. the commands and what runs them all: every ``cli`` module, ``pipeline``, ``orchestration``,
   ``dbt_codegen`` (which writes the dbt project from the layouts, the gate and the report).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[1] / "udfs"

LAYERS = (
    ("parser core", ()),
    ("warehouse contract", ("mqsmf.warehouse", "mqsmf.load_lock")),
    ("Spark", ("mqsmf.spark", "pyspark_mqsmf")),
    ("gate and report", ("mqsmf.quality", "mqsmf.report")),
    ("commands", ("mqsmf.cli", "mqsmf.pipeline", "mqsmf.orchestration", "mqsmf.dbt_codegen")),
)


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> int:
    if module.rsplit(".", 1)[-1] == "cli":  # a command's module, wherever its package is
        return len(LAYERS) - 1
    for index in range(len(LAYERS) - 1, 0, -1):
        if any(_within(module, prefix) for prefix in LAYERS[index][1]):
            return index
    return 0


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every package under ``root`` (a folder holding packages)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if not (root / parts[0] / "__init__.py").is_file():
            continue  # a loose script beside the packages (the build backend): not importable as one
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """module -> {module it imports: line of the first such statement}, over the packages of ``root``."""
    known = modules(root)

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [resolve(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                # `from pkg import name`: the submodule pkg.name when there is one, else pkg itself
                targets = [resolve(f"{origin}.{alias.name}") for alias in node.names]
            else:
                continue
            for target in targets:
                if target and target != module and not _within(module, target):
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def describe(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    lines = [" <-> ".join(component)]
    for module in component:
        for target, line in sorted(graph[module].items()):
            if target in component:
                lines.append(f"    {module} imports {target} (line {line})")
    return "\n".join(lines)


def test_the_package_has_no_import_circle():
    graph = import_graph(SOURCE)
    assert len(graph) > 50 and "mqsmf.spark.load" in graph
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(describe(graph, c) for c in found)


def test_layers_import_downward_only():
    graph = import_graph(SOURCE)
    upward = [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]}), line {line}"
        for module, edges in sorted(graph.items())
        for target, line in sorted(edges.items())
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, "\n".join(upward)
    assert {layer_of(m) for m in graph} == set(range(len(LAYERS)))  # every layer has its modules


def test_a_circle_through_a_function_level_or_type_checking_import_is_found(tmp_path):
    """The detector itself, on a small package: the circles hidden where the real ones hid."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from .a import f\n",
        "a.py": "def f():\n    from .b import g\n    return g()\n",
        "b.py": "from . import c\n\ndef g():\n    return 1\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
        "sub/__init__.py": "",
        "sub/x.py": "from .. import d\nfrom ..sub import y\n",
        "sub/y.py": "import pkg.sub.x\n",
        "d.py": "import pkg\n",  # its package's __init__: not an edge
    }
    for name, text in files.items():
        (package / name).write_text(text)
    graph = import_graph(tmp_path)
    assert (
        graph["pkg.a"] == {"pkg.b": 2} and graph["pkg.d"] == {} and graph["pkg.sub.x"] == {"pkg.d": 1, "pkg.sub.y": 2}
    )
    found = circles(graph)
    assert found == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.sub.x", "pkg.sub.y"]]
    assert "pkg.c imports pkg.a (line 3)" in describe(graph, found[0])
