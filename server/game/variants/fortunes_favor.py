"""Fortune's Favor (PySolFC 416): the four Aces start the foundations (f1
clubs, f2 spades, f3 hearts, f4 diamonds), which build up in suit to the
King; twelve tableau piles of one card each (t1..t6 the top row, t7..t12 the
bottom row) build down in suit, no wrap, one card at a time; one pass.

As in PySolFC a space is filled at once with the waste's top card, and an
empty waste at once with the stock's next card, so the waste is never empty
while the stock lasts; once both are gone a space takes any card. A
foundation's top card may come back to the tableau where it fits (PySolFC's
foundations let it go); the dead-position search leaves those moves out, and
:mod:`..dead` says why that stays exact.

The named pieces: PySolFC's Aces-to-the-top deal hook, and ``_settle``, the
automatic fills.
"""

from __future__ import annotations

from typing import Any

from ..cards import SUIT_NAMES, card_text, rank
from ..deals import shuffled_array
from ..moves import DRAW, Move
from ..state import STOCK, WASTE, Pile, State
from . import layouts
from .base import Rules


def aces_to_top(cards: list[int]) -> list[int]:
    """PySolFC's hook: the four Aces leave the shuffled array and go on top of
    the talon, clubs on top, then spades, hearts, diamonds; the other cards
    keep their order."""
    aces = sorted((c for c in cards if c % 13 == 0), reverse=True)  # an Ace's value is suit * 13
    return [c for c in cards if c % 13 != 0] + aces


class FortunesFavorRules(Rules):
    family = "fortunes-favor"

    def family_layout(self) -> dict[str, Any]:
        tableau = tuple(f"t{k}" for k in range(1, self.spec.tableau + 1))
        grid = (("f1", "f2", "f3", "f4"), *layouts.rows_grid(tableau, 6))
        return layouts.build(grid, fans=dict.fromkeys(tableau, "down"),
                             foundations=self.foundation_hints())

    def foundation_hints(self) -> dict[str, dict[str, Any]]:
        return layouts.suit_foundations(4, "A")

    def initial(self, deal: int | str) -> State:
        order = aces_to_top(shuffled_array(deal, 1))[::-1]
        piles: list[Pile] = [()] * len(self.names)
        for k in range(4):
            piles[self.f0 + k] = (order[k],)
        n = self.spec.tableau
        for k in range(n):
            piles[self.t0 + k] = (order[4 + k],)
        piles[WASTE] = (order[4 + n],)
        piles[STOCK] = tuple(reversed(order[5 + n:]))
        return State(self.spec.id, tuple(piles))

    # -- card relations ----------------------------------------------------
    def _fits_foundation(self, piles: tuple[Pile, ...] | list[Pile], c: int) -> bool:
        f = piles[self.f0 + c // 13]
        return len(f) == c % 13  # the foundation of c's suit holds exactly the ranks below c

    def may_build_on(self, card: int, target: int, base: int) -> bool:
        return target - card == 1 and card // 13 == target // 13

    def card_classes(self, wanted: frozenset[int]) -> bytes:
        # building in suit: every card is its own class (whether it is wanted follows)
        table = bytearray(range(256))
        for c in range(52):
            table[c] = 1 + c
        return bytes(table)

    def foundation_wants(self, state: State) -> frozenset[int]:
        return frozenset(c for c in range(52) if self._fits_foundation(state.piles, c))

    # -- moves -------------------------------------------------------------
    def legal_moves(self, state: State) -> list[Move]:
        piles = state.piles
        out: list[Move] = []
        sources = [i for i in self.tableau_range if piles[i]]
        if piles[WASTE]:
            sources.append(WASTE)
        slots = [(b, piles[b][-1] if piles[b] else -1) for b in self.tableau_range]
        for a in sources:
            c = piles[a][-1]
            step = self.steps[a]
            if self._fits_foundation(piles, c):
                out.append(step[self.f0 + c // 13])
            for b, t in slots:
                if b != a and (t < 0 or self.may_build_on(c, t, 0)):
                    out.append(step[b])
        for a in self.foundation_range:
            if piles[a]:
                c = piles[a][-1]
                out.extend(self.steps[a][b] for b, t in slots if t < 0 or self.may_build_on(c, t, 0))
        if piles[STOCK]:
            out.append(DRAW)
        return out

    def why_illegal(self, state: State, move: Move) -> str | None:
        piles, name = state.piles, self.spec.name
        if move.kind == "draw":
            return None if piles[STOCK] else f"the stock is empty: {name} has no redeal"
        found = self.move_piles(state, move)
        if isinstance(found, str):
            return found or None
        a, b = found
        if b in (STOCK, WASTE):
            return f"nothing may be moved to the {'stock' if b == STOCK else 'waste'}"
        if a == STOCK:
            return "the stock's top card is turned with draw"
        if move.n != 1:
            return f"{name} moves one card at a time"
        if not piles[a]:
            return f"{move.src} is empty"
        c = piles[a][-1]
        if b in self.foundation_range:
            want = self.f0 + c // 13
            if b != want:
                return f"{card_text(c)} goes to the {SUIT_NAMES[c // 13]} foundation ({self.names[want]})"
            if self._fits_foundation(piles, c):
                return None
            f = piles[b]
            if len(f) == 13:
                return f"the {SUIT_NAMES[c // 13]} foundation is complete"
            return f"{card_text(c)} does not go on {card_text(f[-1]) if f else 'an empty foundation'}: " \
                "foundations build up in suit from the Ace"
        dst = piles[b]
        if not dst:
            return None  # a space stays open only once the waste and the stock are gone
        if self.may_build_on(c, dst[-1], 0):
            return None
        return (f"{card_text(c)} does not go on {card_text(dst[-1])}: the tableau builds down in suit, "
                f"one rank at a time{' (nothing goes on an Ace)' if rank(dst[-1]) == 1 else ''}")

    def apply(self, state: State, move: Move) -> State:
        if move.kind == "move":
            piles = list(state.piles)
            a, b = self.index[move.src], self.index[move.dst]
            piles[b] = piles[b] + piles[a][-1:]
            piles[a] = piles[a][:-1]
            self._settle(piles)
            return State(state.variant, tuple(piles), 0, state.redeals)
        if move.kind == "draw":
            return State(state.variant, tuple(self.do_draw(state)), 0, state.redeals)
        raise ValueError(f"cannot apply {move}")

    def _settle(self, piles: list[Pile]) -> None:
        """PySolFC's fills: a space takes the waste's top card, and an empty
        waste the stock's next card, at once."""
        for i in self.tableau_range:
            if not piles[i]:
                if not piles[WASTE] and piles[STOCK]:
                    piles[WASTE] = piles[STOCK][-1:]
                    piles[STOCK] = piles[STOCK][:-1]
                if piles[WASTE]:
                    piles[i] = piles[WASTE][-1:]
                    piles[WASTE] = piles[WASTE][:-1]
        if not piles[WASTE] and piles[STOCK]:
            piles[WASTE] = piles[STOCK][-1:]
            piles[STOCK] = piles[STOCK][:-1]
