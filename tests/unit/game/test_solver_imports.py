"""The solver's modules import one another without a cycle, imports under
``if TYPE_CHECKING:`` included, so that each model owns its loss test. The
import contracts can be told to ignore an import; this test cannot: it reads
the sources itself and counts every import wherever it stands."""

from __future__ import annotations

import ast
from pathlib import Path

SOLVER = Path(__file__).resolve().parents[3] / "server" / "game" / "solver"
PACKAGE = "server.game.solver"


def solver_imports(source: str, module: str, names: set[str]) -> set[str]:
    """The solver modules (short names, out of ``names``) that ``source``,
    the text of solver module ``module``, imports anywhere in its body."""
    package_parts = PACKAGE.split(".")
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            # "from ." means the solver package, in __init__ as in the modules
            head = ".".join(package_parts[:len(package_parts) - node.level + 1]) if node.level else ""
            full = ".".join(p for p in (head, node.module or "") if p)
            targets = [full]
            # "from . import x" and "from server.game.solver import x" name modules
            targets += [f"{full}.{alias.name}" for alias in node.names]
        for target in targets:
            prefix = PACKAGE + "."
            if target.startswith(prefix):
                name = target[len(prefix):].split(".")[0]
                if name in names and name != module:
                    out.add(name)
    return out


def import_graph() -> dict[str, set[str]]:
    files = {p.stem: p for p in SOLVER.glob("*.py")}
    names = set(files)
    return {name: solver_imports(path.read_text(encoding="utf-8"), name, names)
            for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that comes back to its start, or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_type_only_imports_are_read() -> None:
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from ..cards import step\n"
        "if TYPE_CHECKING:\n"
        "    from .b import B\n"
        "def f() -> None:\n"
        "    from server.game.solver import c\n"
    )
    assert solver_imports(source, "a", {"a", "b", "c"}) == {"b", "c"}


def test_find_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]


def test_solver_modules_import_without_a_cycle() -> None:
    graph = import_graph()
    assert {"search", "cross", "betsy", "corner_stones"} <= set(graph)
    assert find_cycle(graph) == []
