"""No import circles among the project's own modules (issue 72).

Every import counts, function-local and type-checking ones included: a circle that only closes
inside a function still ties the two modules together. A package's ``__init__`` may import its
submodules; a submodule that imports the package back (``from engine import Tile`` inside
engine/) closes a circle through that ``__init__`` and must import the defining module instead.
Importing ``a.b`` is counted as an arrow to ``a.b`` alone, not to the package ``a`` that Python
runs first: otherwise every submodule of a package that re-exports it would be a circle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "vision", "calibration", "api", "models", "datasets", "benchmarks")


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by dotted name (a package by its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules that the module ``name`` imports anywhere in its file."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(_nearest_module(alias.name, modules) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, name, is_package)
            for alias in node.names:  # ``from a import b`` imports the module a.b when there is one
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else _nearest_module(base, modules))
    found.discard("")
    found.discard(name)
    return found


def _absolute(module: str | None, level: int, importer: str, is_package: bool) -> str:
    if level == 0:
        return module or ""
    package = importer.split(".")
    if not is_package:
        package = package[:-1]
    package = package[: len(package) - (level - 1)]
    return ".".join([*package, module] if module else package)


def _nearest_module(dotted: str, modules: dict[str, Path]) -> str:
    """``dotted`` itself, or the longest part of it that is a project module ('' for none)."""
    parts = dotted.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    modules = module_files(root, packages)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import one another, as ``[a, b, ..., a]``
    (Tarjan's strongly connected components, then a shortest way back round each)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = lowest[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for after in sorted(graph.get(node, ())):
            if after not in index:
                visit(after)
                lowest[node] = min(lowest[node], lowest[after])
            elif after in on_stack:
                lowest[node] = min(lowest[node], index[after])
        if lowest[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_way_round(group, graph) for group in sorted(groups)]


def _way_round(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest circle from the group's first module back to itself, inside the group."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for after in sorted(graph[node] & members):
                if after == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if after not in came_from:
                    came_from[after] = node
                    following.append(after)
        frontier = following
    raise AssertionError(f"no way round {group}")  # a strongly connected group always has one


def test_no_module_of_the_project_imports_itself_round_a_circle():
    graph = import_graph(ROOT, PACKAGES)
    assert "engine.state" in graph and "engine.legality" in graph["engine.transitions"]  # the graph was read
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in found)


def test_a_circle_closed_inside_a_function_is_found_and_named(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg.a import thing\n")
    (package / "a.py").write_text("from .sub import b\nthing = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def late():\n    from pkg import c\n")
    (package / "c.py").write_text("import pkg.a\n")
    (package / "d.py").write_text("from pkg import thing\n")  # through __init__, but nothing imports d
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.d"] == {"pkg"}
    assert circles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]


def test_a_submodule_importing_its_package_back_is_a_circle(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.state import State\n")
    (package / "state.py").write_text("class State:\n    def verb(self):\n        from pkg import judge\n")
    assert circles(import_graph(tmp_path, ["pkg"])) == [["pkg", "pkg.state", "pkg"]]
