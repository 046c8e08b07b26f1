"""The graph of the imports a module can run, read from the source.

Every import statement counts, at module level or inside a function, except those under ``if
TYPE_CHECKING:`` (never run). Importing ``a.b.c`` runs the ``__init__`` of every package on the
way (``a``, ``a.b``) first, and Python holds ``a.b.c``'s import lock while it does: so a module
depends on its own package too, and a package ``__init__`` that imports its own submodules
closes a cycle with each of them. Two threads importing two modules of such a cycle at once
deadlock (CPython reports ``_DeadlockError``) or see a module half-initialised (``ImportError:
cannot import name``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def project_modules(
    packages: Iterable[str] = ("framework", "playground"), root: Path = ROOT
) -> dict[str, Path]:
    """Every module of the given top-level packages under ``root``, by dotted name."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def import_graph(modules: dict[str, Path], *, type_checking: bool = False) -> dict[str, set[str]]:
    """Module → the project modules it imports directly (its own package included).

    With ``type_checking`` the imports under ``if TYPE_CHECKING:`` count too: they never run,
    but a cycle through them is still two modules that each need the other to be read."""
    return {name: _imports(name, path, modules, type_checking) for name, path in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (or a self-import), each
    as one cycle through them, sorted, so a failure names a path to break."""
    cycles = []
    for component in _strongly_connected(graph):
        start = min(component)
        if len(component) > 1 or start in graph[start]:
            cycles.append(_cycle_within(graph, component, start))
    return sorted(cycles)


def _imports(name: str, path: Path, modules: dict[str, Path], type_checking: bool) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    targets = {package for package in _ancestors(name)[-1:] if package in modules}
    for node in _import_statements(tree.body, type_checking):
        for target in _imported_names(node, name, is_package):
            for candidate in [*_ancestors(target), target]:
                if candidate in modules and candidate != name:
                    targets.add(candidate)
    return targets


def _import_statements(
    nodes: Iterable[ast.AST], type_checking: bool
) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_statements(node.orelse, type_checking)
        else:
            yield from _import_statements(ast.iter_child_nodes(node), type_checking)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(node: ast.stmt, importer: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        package = importer.split(".")
        if not is_package:
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    # ``from pkg import name`` imports the submodule pkg.name when there is one.
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph has hundreds of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
    return components


def _cycle_within(graph: dict[str, set[str]], component: set[str], start: str) -> list[str]:
    """A shortest path from ``start`` back to itself inside the component (breadth first)."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for succ in sorted(graph[node] & component):
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if succ not in previous:
                    previous[succ] = node
                    following.append(succ)
        frontier = following
    return [start, start]
