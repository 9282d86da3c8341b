"""A plain exhaustive search on the engine itself: the yardstick for the solver.

No canonical keys beyond the engine's own state value, no safe moves, no
pruned moves, no loss detectors: every legal move of
:meth:`..variants.base.Rules.legal_moves` from every reachable state, until a
won state turns up or nothing new is reachable. It is slow and only meant for
small positions, where it checks the fast solver's answers (tests, and the
``--check`` option of the batch runner).
"""

from __future__ import annotations

from ..state import State
from ..variants import RULES
from .search import LOST, UNKNOWN, WON


def exhaustive(state: State, cap: int = 200_000) -> tuple[str, int]:
    """``(won | lost | unknown, states seen)``; unknown once ``cap`` states are seen."""
    rules = RULES[state.variant]
    if rules.is_won(state):
        return WON, 1
    seen = {state}
    frontier = [state]
    while frontier:
        s = frontier.pop()
        for m in rules.legal_moves(s):
            nxt = rules.apply(s, m)
            if nxt in seen:
                continue
            if rules.is_won(nxt):
                return WON, len(seen) + 1
            if len(seen) >= cap:
                return UNKNOWN, len(seen)
            seen.add(nxt)
            frontier.append(nxt)
    return LOST, len(seen)
