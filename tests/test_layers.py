"""The layers point one way: command line (cli.py, commands/) → web / vision → scoring.

Read with ``ast`` (nothing is imported): every ``import`` and ``from … import`` of the project's
own modules, at module level or inside functions, ``if TYPE_CHECKING:`` blocks included.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the project's top-level modules and packages, and the layer of each (higher may import lower)
LAYERS = {"cli": 3, "commands": 3, "web": 2, "vision": 2, "datasets": 2, "scoring": 1}
LIBRARY = ("scoring", "vision", "web", "datasets")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_files() -> dict[str, Path]:
    files = {"cli": REPO / "cli.py"}
    for top in ("commands", "scoring", "vision", "web", "datasets"):
        for p in sorted((REPO / top).rglob("*.py")):
            files[_module_name(p)] = p
    return files


FILES = _project_files()


def imports_of(name: str, path: Path) -> set[str]:
    """The project modules that module ``name`` (file ``path``) imports, resolved to the names in
    :data:`FILES` (``from pkg import mod`` counts as importing ``pkg.mod`` when that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(mod: str) -> None:
        while mod and mod not in FILES:  # a name inside a module: the module itself
            mod = mod.rpartition(".")[0]
        if mod and mod != name:
            found.add(mod)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] not in LAYERS:
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                add(sub if sub in FILES else mod)
    return found


GRAPH = {name: imports_of(name, path) for name, path in FILES.items()}


def test_the_walk_sees_the_project():
    assert {"cli", "commands.common", "scoring.engine", "scoring.view", "vision.batch", "web.app"} <= set(FILES)
    assert "scoring.view" in GRAPH["scoring.engine"] and "scoring.view" in GRAPH["scoring.predicates"]
    assert "commands.common" in GRAPH["cli"]


@pytest.mark.parametrize("name", sorted(n for n in FILES if n.split(".")[0] in LIBRARY))
def test_no_library_module_imports_the_command_line(name):
    up = sorted(m for m in GRAPH[name] if m.split(".")[0] in ("cli", "commands"))
    assert not up, f"{name} imports the command line: {', '.join(up)}"


@pytest.mark.parametrize("name", sorted(FILES))
def test_imports_point_down_or_sideways(name):
    layer = LAYERS[name.split(".")[0]]
    up = sorted(m for m in GRAPH[name] if LAYERS[m.split(".")[0]] > layer)
    assert not up, f"{name} (layer {layer}) imports a higher layer: {', '.join(up)}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


#: cycles not broken yet: the training stage of datasets/train.py runs datasets/pretrained.py, which
#: uses train's torch helpers (evalsets ↔ evaluate was broken by datasets/evalbase.py); a new cycle,
#: or this one gone, fails the test below so that this list stays exact
KNOWN_CYCLES = [["datasets.pretrained", "datasets.train"]]


def test_no_import_cycle_among_project_modules():
    # a package's __init__ re-exporting its modules is not a cycle with them
    graph = {n: {m for m in deps if not (n.startswith(m + ".") and FILES[m].name == "__init__.py")}
             for n, deps in GRAPH.items()}
    assert sorted(_cycles(graph)) == KNOWN_CYCLES


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
