"""Send safe cards home: one key plays every safe foundation move in turn.

A macro on the client's side: the server lists the safe moves in each view
(``safe_moves``: cards no other move could ever need, docs/reference/moves.md) and plays
nothing by itself; this sends them one at a time as ordinary moves, each
after the view that answers the one before, and stops when none is left, on
any refusal, or after a whole pack's worth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .state import RaceState

MOST = 104  # two packs: more safe moves than that in a row cannot happen


class Mover(Protocol):
    state: RaceState

    async def move(self, text: str) -> int | None: ...

    async def wait_for(self, predicate: Callable[[RaceState], bool],
                       timeout: float = 10.0) -> RaceState: ...  # noqa: ASYNC109 (a wait with a default deadline of its own)


def next_safe(state: RaceState) -> str | None:
    view = state.view or {}
    if view.get("status") != "in_progress":
        return None
    safe = view.get("safe_moves") or []
    return str(safe[0]) if safe else None


async def send_safe_home(session: Mover, timeout: float = 5.0) -> int:  # noqa: ASYNC109 (a wait with a default deadline of its own)
    """Play the safe moves one by one; returns how many were accepted."""
    sent = 0
    for _ in range(MOST):
        text = next_safe(session.state)
        if text is None:
            break
        v, errors = session.state.v, session.state.errors_seen
        if await session.move(text) is None:
            break
        def answered(st: RaceState, v: int = v, errors: int = errors) -> bool:
            return st.v > v or st.errors_seen > errors

        try:
            await session.wait_for(answered, timeout)
        except TimeoutError:
            break
        if session.state.v <= v:
            break  # refused (the position changed meanwhile): the player looks again
        sent += 1
    return sent
