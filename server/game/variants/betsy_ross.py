"""Betsy Ross: four dead indicator cards (A 2 3 4) above four foundations
(2 4 6 8) that build by +1, +2, +3, +4 regardless of suit, with wrap, up to
twelve cards ending on a King. Only the waste top plays; three passes.

The named pieces: PySolFC's card selection for the top two rows, and the
stepped foundations.
"""

from __future__ import annotations

from typing import Any

from ..cards import card_text, rank, step
from ..deals import shuffled_array
from ..moves import Move
from ..state import STOCK, WASTE, Pile, State
from . import layouts
from .base import Rules

FOUNDATION_SIZE = 12


def select_top_rows(cards: list[int]) -> list[int]:
    """Scanning the shuffled array from the bottom of the talon, take the first
    A, 2, 3, 4 as indicators and then one each of 2, 4, 6, 8 as bases, and put
    them on top so they are dealt first (as PySolFC does; see rules card)."""
    chosen: list[int | None] = [None] * 8
    rest: list[int] = []
    for c in cards:
        r0 = c % 13
        if r0 <= 3 and chosen[r0] is None:
            chosen[r0] = c
        elif r0 in (1, 3, 5, 7) and chosen[4 + r0 // 2] is None:
            chosen[4 + r0 // 2] = c
        else:
            rest.append(c)
    top = [c for c in chosen if c is not None]
    return rest + top[::-1]


class BetsyRossRules(Rules):
    family = "betsy-ross"

    def family_layout(self) -> dict[str, Any]:
        grid = (("i1", "i2", "i3", "i4"), ("f1", "f2", "f3", "f4"))
        hints = self.foundation_hints()
        hints.update({f"i{k}": {"note": f"+{k}"} for k in range(1, 5)})  # the step under each
        return layouts.build(grid, foundations=hints, gap=False)

    def foundation_hints(self) -> dict[str, dict[str, Any]]:
        return layouts.stepped_foundations(4, ("2", "4", "6", "8"), FOUNDATION_SIZE)

    def initial(self, deal: int | str) -> State:
        order = select_top_rows(shuffled_array(deal, 1))[::-1]
        piles: list[Pile] = [()] * len(self.names)
        for k in range(4):
            piles[self.i0 + k] = (order[k],)
            piles[self.f0 + k] = (order[4 + k],)
        piles[WASTE] = (order[8],)  # PySolFC turns one card at the deal; harmless here
        piles[STOCK] = tuple(reversed(order[9:]))
        return State(self.spec.id, tuple(piles))

    def _fits(self, piles: tuple[Pile, ...], c: int, b: int) -> bool:
        f = piles[b]
        return len(f) < FOUNDATION_SIZE and rank(c) == step(rank(f[-1]), b - self.f0 + 1)

    def foundation_wants(self, state: State) -> frozenset[int]:
        return frozenset(c for c in range(52) for b in self.foundation_range
                         if self._fits(state.piles, c, b))

    def legal_moves(self, state: State) -> list[Move]:
        piles = state.piles
        out: list[Move] = []
        if piles[WASTE]:
            c = piles[WASTE][-1]
            out = [Move("move", "w", self.names[b]) for b in self.foundation_range
                   if self._fits(piles, c, b)]
        out.extend(self.draw_moves(state))
        return out

    def why_illegal(self, state: State, move: Move) -> str | None:
        piles = state.piles
        if move.kind == "draw":
            if piles[STOCK]:
                return None
            return "the stock is empty" + (": redeal first" if self.redeal_allowed(state) else "")
        found = self.move_piles(state, move)
        if isinstance(found, str):
            return found or None
        a, b = found
        if a >= self.i0 or b >= self.i0:
            return "the indicator cards are dead: nothing moves onto or off them"
        if a != WASTE:
            return "only the waste's top card can be played"
        if b not in self.foundation_range:
            return "the waste's top card can go only to a foundation"
        if move.n != 1:
            return "one card at a time"
        if not piles[WASTE]:
            return "the waste is empty"
        c, f = piles[WASTE][-1], piles[b]
        if len(f) == FOUNDATION_SIZE:
            return f"{move.dst} is complete"
        if self._fits(piles, c, b):
            return None
        k = b - self.f0 + 1
        return f"{card_text(c)} does not go on {card_text(f[-1])}: {move.dst} builds up by {k}"

    def apply(self, state: State, move: Move) -> State:
        if move.kind == "move":
            piles = list(state.piles)
            b = self.index[move.dst]
            piles[b] = piles[b] + piles[WASTE][-1:]
            piles[WASTE] = piles[WASTE][:-1]
            return State(state.variant, tuple(piles), 0, state.redeals)
        if move.kind == "draw":
            return State(state.variant, tuple(self.do_draw(state)), 0, state.redeals)
        if move.kind == "redeal":
            return self.do_redeal(state)
        raise ValueError(f"cannot apply {move}")
