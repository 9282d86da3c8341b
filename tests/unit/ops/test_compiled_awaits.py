"""No compiled coroutine waits while it handles an exception
(docs/design/compiled-code.md, "Exceptions in compiled coroutines").

mypyc keeps the exception an ``except`` or ``finally`` block handles in the
thread's exception state, shared by every task, and reads it back after an
``await`` in a ``finally``; so in the modules the build compiles, no
``await`` (nor ``async for``, ``async with`` or ``yield``) may stand in an
``except`` handler or a ``finally`` body. ``async with`` is allowed only around
context managers whose exit never suspends (``asyncio.timeout``): mypyc runs
that exit inside a handler of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.ops.corebuild import compiled_modules

ROOT = Path(__file__).resolve().parents[3]
# context managers whose __aexit__ returns without suspending
NON_SUSPENDING_EXITS = frozenset({"asyncio.timeout", "asyncio.timeout_at"})
SUSPENDS = (ast.Await, ast.AsyncFor, ast.AsyncWith, ast.Yield, ast.YieldFrom)
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def source_of(module: str) -> Path:
    path = ROOT / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _within(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``nodes``, not entering functions or classes defined there
    (they run elsewhere, and are checked on their own)."""
    stack: list[ast.AST] = [node for node in nodes if not isinstance(node, NESTED)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, NESTED))


def waits_while_handling(tree: ast.AST) -> list[str]:
    """Where a function of ``tree`` may suspend inside an except handler or a
    finally body, or enters an ``async with`` whose exit might suspend."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Try | ast.TryStar):
            blocks = [("an except block", h.body) for h in node.handlers]
            blocks.append(("a finally block", node.finalbody))
            for where, body in blocks:
                for inner in _within(body):
                    if isinstance(inner, SUSPENDS):
                        found.append((inner.lineno, f"{type(inner).__name__} in {where}"))
        if isinstance(node, ast.AsyncWith):
            for item in node.items:
                expr = item.context_expr
                name = ast.unparse(expr.func) if isinstance(expr, ast.Call) else ast.unparse(expr)
                if name not in NON_SUSPENDING_EXITS:
                    found.append((node.lineno, f"async with {name} (its exit runs in a handler)"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


@pytest.mark.parametrize("module", compiled_modules())
def test_no_compiled_coroutine_waits_inside_an_except_or_finally_block(module: str) -> None:
    tree = ast.parse(source_of(module).read_text(), str(source_of(module)))
    assert waits_while_handling(tree) == [], (
        f"{module} is compiled by mypyc: move the wait after the try statement "
        "(docs/design/compiled-code.md)")


def test_the_check_finds_each_kind_of_wait() -> None:
    tree = ast.parse("""
async def f(x):
    try:
        await x()
    except ValueError:
        await x()
    except KeyError:
        async for _ in x():
            pass
    finally:
        async with x():
            pass
    try:
        pass
    finally:
        def later():
            yield 1
    async with asyncio.timeout(1):
        pass
    async with lock:
        pass
""")
    assert waits_while_handling(tree) == [
        "line 6: Await in an except block",
        "line 8: AsyncFor in an except block",
        "line 11: AsyncWith in a finally block",
        "line 11: async with x (its exit runs in a handler)",
        "line 20: async with lock (its exit runs in a handler)",
    ]
