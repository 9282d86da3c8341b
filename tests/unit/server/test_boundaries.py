"""The handlers talk to the application layer only (issue 29): no handler module
reaches the store, the board store or Redis by attribute, nor imports the store."""

from __future__ import annotations

import ast
from pathlib import Path

import server.handlers

HANDLERS = Path(server.handlers.__file__).parent
# what the application layer holds of the storage below it
STORAGE_ATTRIBUTES = frozenset({"store", "boards", "redis"})


def storage_reaches(source: str) -> list[str]:
    """Each attribute access or import in ``source`` that reaches the storage layer."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in STORAGE_ATTRIBUTES:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module is not None \
                and (node.module == "store" or node.module.startswith("store.")
                     or ".store" in f".{node.module}"):
            found.append(f"line {node.lineno}: from {'.' * node.level}{node.module} import")
        elif isinstance(node, ast.Import) and any(".store" in a.name for a in node.names):
            found.append(f"line {node.lineno}: import")
    return found


def test_the_scan_sees_what_it_looks_for() -> None:
    assert storage_reaches("async def f(p):\n    await p.service.store.room('A')\n") == [
        "line 2: .store"]
    assert storage_reaches("x = service.boards.key_hash\n") == ["line 1: .boards"]
    assert storage_reaches("from ..store.rooms import RoomStore\n") == [
        "line 1: from ..store.rooms import"]
    assert storage_reaches("import server.store.rooms\n") == ["line 1: import"]
    assert storage_reaches("from ..rooms.service import RoomService\nservice.room('A')\n") == []


def test_no_handler_reaches_the_store() -> None:
    modules = sorted(HANDLERS.glob("*.py"))
    assert len(modules) > 5  # the package was found
    reaches = {path.name: found for path in modules
               if (found := storage_reaches(path.read_text(encoding="utf-8")))}
    assert reaches == {}


def clock_calls(source: str) -> list[str]:
    """Each import of the global clock ``now_ms`` in ``source``."""
    return [f"line {node.lineno}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) and any(a.name == "now_ms" for a in node.names)]


def test_the_application_layer_keeps_to_the_injected_clock() -> None:
    assert clock_calls("from ..ops.clock import now_ms\n") == ["line 1"]
    assert clock_calls("from ..ops.clock import Clock\n") == []
    modules = [p for package in (HANDLERS, HANDLERS.parent / "rooms") for p in package.rglob("*.py")]
    assert len(modules) > 20
    imports = {path.name: found for path in modules
               if (found := clock_calls(path.read_text(encoding="utf-8")))}
    assert imports == {}  # the service's clock (RoomService.clock), never the global one


def finish_decisions(source: str) -> list[str]:
    """Each use in ``source`` of what decides a race's end: the rules' ``all_done``
    and ``race_over``, and the store's ``finish``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id in ("all_done", "race_over"):
            found.append(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in ("finish", "all_done", "race_over"):
            found.append(f".{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            found += [a.name for a in node.names if a.name in ("all_done", "race_over")]
    return found


def test_one_place_decides_that_a_race_is_over() -> None:
    assert finish_decisions("from ..race.rules import all_done\nif all_done(room): pass\n") == [
        "all_done", "all_done"]
    assert finish_decisions("await self.store.finish(code, 2)\n") == [".finish"]
    root = HANDLERS.parent
    uses = {str(path.relative_to(root)): found for path in sorted(root.rglob("*.py"))
            if path.parts[-2] not in ("store", "race")
            and (found := sorted(finish_decisions(path.read_text(encoding="utf-8"))))}
    # RoomService.finish_if_done: the rules' race_over, then the store's atomic guard
    assert uses == {"rooms/service.py": [".finish", "race_over", "race_over"]}
