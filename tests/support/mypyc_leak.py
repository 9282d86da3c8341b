"""The smallest program that shows a compiled coroutine reading another task's
exception (docs/design/compiled-code.md): compiled with mypyc it prints a
``KeyError`` twice, as plain Python ``returned normally`` and ``None``.

One task catches an exception and waits inside its ``except`` block; compiled
code keeps the exception it handles in the thread's exception state
(``sys.exc_info()``), not in the coroutine, so it stays there while the task
waits. Another task leaves a ``try`` whose ``finally`` holds an ``await``:
mypyc decides after that ``await`` whether an exception is to be raised again
by reading the same thread state, finds the first task's exception there, and
raises it, although nothing went wrong in the second task. Meanwhile every
exception raised anywhere else, interpreted code included, takes the first
task's exception as its ``__context__`` (the second line printed).

``tests/e2e/test_mypyc_leak.py`` compiles this file in a temporary directory
and runs it both ways; nothing else imports it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable


async def holds_an_exception(caught: asyncio.Event, release: asyncio.Event) -> None:
    try:
        raise KeyError("handled by another task")
    except KeyError:
        caught.set()
        await release.wait()  # suspended while handling its exception


async def cleans_up(caught: asyncio.Event) -> str:
    try:
        await caught.wait()
    finally:
        await asyncio.sleep(0)  # an await in a finally: nothing was raised in this task
    return "returned normally"


# made by eval, so it stays interpreted in the compiled module: what plain
# Python code running meanwhile in another task sees as the exception in hand
_context_seen: Callable[[], BaseException | None] = eval(
    "lambda: sys.exc_info()[1]", {"sys": sys})


async def looks(caught: asyncio.Event) -> str:
    await caught.wait()
    return repr(_context_seen())


async def run() -> tuple[str, str]:
    caught, release = asyncio.Event(), asyncio.Event()
    holder = asyncio.create_task(holds_an_exception(caught, release))
    onlooker = asyncio.create_task(looks(caught))
    outcome = "nothing"
    try:
        outcome = await cleans_up(caught)
    except KeyError as exc:
        outcome = f"raised the other task's KeyError({exc})"
    seen = await onlooker
    release.set()
    await holder
    return outcome, seen


def main() -> None:
    for line in asyncio.run(run()):
        print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
