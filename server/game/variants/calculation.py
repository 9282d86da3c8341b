"""Calculation (PySolFC 256): four foundations started with an A, 2, 3 and 4
of any suits build by +1, +2, +3, +4 regardless of suit, with wrap, up to
thirteen cards ending on a King. The turned card must be placed, on a
foundation or on one of four wastepiles, before the next card is turned; only
wastepile tops play, and only to the foundations. One pass.

In this project's notation the turned card is the waste (``w``, at most one
card), the four wastepiles are ``t1``..``t4``: ``draw`` turns a card (only
while the waste is empty), ``w-t2`` places it on a wastepile, ``w-f3`` or
``t1-f2`` builds. The named pieces: PySolFC's card selection for the
foundations, and the stepped foundations.
"""

from __future__ import annotations

from typing import Any

from ..cards import card_text, rank, step
from ..deals import shuffled_array
from ..moves import DRAW, Move
from ..state import STOCK, WASTE, Pile, State
from . import layouts
from .base import Rules

FOUNDATION_SIZE = 13
STARTS = ("A", "2", "3", "4")


def select_foundation_cards(cards: list[int]) -> list[int]:
    """PySolFC's hook: scanning the shuffled array from index 0 (the bottom of
    the talon), the first A, 2, 3 and 4 met, whatever their suits, are taken out
    and put on top in the order A, 2, 3, 4, so they are dealt first (the bias
    this brings is kept: rules.md 1.4)."""
    chosen: list[int | None] = [None] * 4
    rest: list[int] = []
    for c in cards:
        r0 = c % 13
        if r0 <= 3 and chosen[r0] is None:
            chosen[r0] = c
        else:
            rest.append(c)
    return rest + [c for c in reversed(chosen) if c is not None]


class CalculationRules(Rules):
    family = "calculation"

    def family_layout(self) -> dict[str, Any]:
        grid = (("f1", "f2", "f3", "f4"), ("t1", "t2", "t3", "t4"))
        fans = {f"t{k}": "down" for k in range(1, 5)}
        return layouts.build(grid, fans=fans, foundations=self.foundation_hints())

    def foundation_hints(self) -> dict[str, dict[str, Any]]:
        return layouts.stepped_foundations(4, STARTS, FOUNDATION_SIZE)

    def initial(self, deal: int | str) -> State:
        order = select_foundation_cards(shuffled_array(deal, 1))[::-1]
        piles: list[Pile] = [()] * len(self.names)
        for k in range(4):
            piles[self.f0 + k] = (order[k],)
        piles[WASTE] = (order[4],)  # PySolFC turns the first card at the deal
        piles[STOCK] = tuple(reversed(order[5:]))
        return State(self.spec.id, tuple(piles))

    def _fits(self, piles: tuple[Pile, ...], c: int, b: int) -> bool:
        f = piles[b]
        if not f:
            return False  # never happens in play: the four starting cards stay
        return len(f) < FOUNDATION_SIZE and rank(c) == step(rank(f[-1]), b - self.f0 + 1)

    def foundation_wants(self, state: State) -> frozenset[int]:
        return frozenset(c for c in range(52) for b in self.foundation_range
                         if self._fits(state.piles, c, b))

    def legal_moves(self, state: State) -> list[Move]:
        piles = state.piles
        out: list[Move] = []
        for a in self.tableau_range:
            if piles[a]:
                c = piles[a][-1]
                out.extend(self.steps[a][b] for b in self.foundation_range if self._fits(piles, c, b))
        if piles[WASTE]:
            c = piles[WASTE][-1]
            out.extend(self.steps[WASTE][b] for b in self.foundation_range if self._fits(piles, c, b))
            out.extend(self.steps[WASTE][b] for b in self.tableau_range)
        elif piles[STOCK]:
            out.append(DRAW)
        return out

    def why_illegal(self, state: State, move: Move) -> str | None:
        piles, name = state.piles, self.spec.name
        if move.kind == "draw":
            if piles[WASTE]:
                return (f"place the turned card ({card_text(piles[WASTE][-1])}) on a foundation "
                        "or a wastepile before turning the next")
            if not piles[STOCK]:
                return f"the stock is empty: {name} has no redeal"
            return None
        found = self.move_piles(state, move)
        if isinstance(found, str):
            return found or None
        a, b = found
        if b in (STOCK, WASTE):
            return f"nothing may be moved to the {'stock' if b == STOCK else 'waste'}"
        if a in self.foundation_range:
            return "cards on a foundation stay there"
        if a == STOCK:
            return "the stock's top card is turned with draw"
        if move.n != 1:
            return "one card at a time"
        if not piles[a]:
            return f"{move.src} is empty"
        c = piles[a][-1]
        if b in self.tableau_range:
            if a != WASTE:
                return "a wastepile takes only the turned card, from the waste"
            return None
        f = piles[b]
        if len(f) >= FOUNDATION_SIZE:
            return f"{move.dst} is complete"
        if self._fits(piles, c, b):
            return None
        k = b - self.f0 + 1
        top = card_text(f[-1]) if f else "nothing"
        return f"{card_text(c)} does not go on {top}: {move.dst} builds up by {k}, any suit"

    def apply(self, state: State, move: Move) -> State:
        if move.kind == "move":
            piles = list(state.piles)
            a, b = self.index[move.src], self.index[move.dst]
            piles[b] = piles[b] + piles[a][-1:]
            piles[a] = piles[a][:-1]
            return State(state.variant, tuple(piles), 0, state.redeals)
        if move.kind == "draw":
            return State(state.variant, tuple(self.do_draw(state)), 0, state.redeals)
        raise ValueError(f"cannot apply {move}")
