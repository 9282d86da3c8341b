"""Safe foundation moves: cards no other move could ever need.

A card on its way to a foundation is *safe* when no card that is not on a
foundation yet could ever be built on it in the tableau, under the family's
building rule (``Rules.may_build_on``). Foundation cards never come back in
most of these games (simplicity-pysol and les-quatre-coins-pysol only add a way
back), so a safe card sent home costs nothing: whatever the player does
next, it would never have been wanted where it was. docs/reference/moves.md says what
this means per family.

Only public facts decide it: the foundations, which every player sees, and
the pack (so "not on a foundation" includes the stock, read as a count, never
as an order). The server lists the safe moves in the view; the client's
"send safe cards home" key plays them one by one as ordinary moves.
"""

from __future__ import annotations

from .moves import Move
from .state import State
from .variants.base import Rules

# (variant, base rank, target card) -> the card values that may be built on it;
# at most variants x 14 bases x 52 cards, a few thousand small tuples
_BUILDERS: dict[tuple[str, int, int], tuple[int, ...]] = {}


def _builders(rules: Rules, base: int, target: int) -> tuple[int, ...]:
    key = (rules.spec.id, base, target)
    found = _BUILDERS.get(key)
    if found is None:
        found = _BUILDERS[key] = tuple(c for c in range(52) if rules.may_build_on(c, target, base))
    return found


def safe_foundation_moves(rules: Rules, state: State, moves: list[Move]) -> list[Move]:
    """The moves of ``moves`` that send a safe card to a foundation."""
    # (a foundation's own card moving on, where a variant allows it, is not going home)
    home = [m for m in moves if m.dst.startswith("f") and m.src != "s" and not m.src.startswith("f")]
    if not home:
        return []
    copies = [rules.spec.decks] * 52  # of each card value, not on a foundation yet
    for f in rules.foundation_range:
        for card in state.piles[f]:
            copies[card] -= 1
    for i in range(rules.i0, len(state.piles)):  # Betsy Ross' indicators count as placed
        for card in state.piles[i]:
            copies[card] -= 1
    out = []
    for m in home:
        pile = state.piles[rules.index[m.src]]
        if not pile:
            continue
        target = pile[-1]
        if not any(copies[c] > 0 for c in _builders(rules, state.base, target)):
            out.append(m)
    return out
