"""Any variant as a search model, through its own rules (``legal_moves`` and
``apply``): the solver's model for the families without a tuned one
(Calculation, Fortune's Favor) and for Florentine's centre cell.

It is sound as the search needs: every legal move is listed but those that
take a card back off a foundation (Fortune's Favor), which never help a
one-deck game that builds its foundations up in suit (see :mod:`..dead`);
the key forgets only which interchangeable tableau pile is which
(``Rules.dead_places``) and, in Calculation, where suits play no part, the
suits. Foundation moves come first; in the streamlined (stage 1) mode they
come alone when there are any.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..cards import step
from ..moves import Move
from ..state import STOCK, WASTE, State
from ..variants import RULES

_RANKS = bytes(c % 13 + 1 for c in range(52)) + bytes(range(52, 256))
_SAME = bytes(range(256))


class EngineModel:
    """A position held as the engine's immutable state; do/undo swap states."""

    def __init__(self, state: State, *, greedy: bool = False) -> None:
        self.rules = RULES[state.variant]
        self.state = state
        self.greedy = greedy
        kept, loose = self.rules.dead_places()
        self.fixed = [STOCK, *self.rules.foundation_range, *kept]
        self.loose = loose
        self.calculation = self.rules.family == "calculation"
        self.table = _RANKS if self.calculation else _SAME

    def won(self) -> bool:
        return self.rules.is_won(self.state)

    def progress(self) -> int:
        return self.rules.foundation_cards(self.state)

    def dead(self) -> bool:
        return False

    def key(self) -> Hashable:
        s, t = self.state, self.table
        piles = s.piles
        parts = [bytes(piles[i]).translate(t) for i in self.fixed]
        parts += sorted(bytes(piles[i]).translate(t) for i in self.loose)
        return (s.base, s.redeals, s.vacancy, b"\xff".join(parts))

    def moves(self) -> list[Move]:
        legal = [m for m in self.rules.legal_moves(self.state) if m.src[:1] != "f"]
        home = [m for m in legal if m.dst[:1] == "f"]
        if self.greedy and home:
            return home
        rest = [m for m in legal if m.dst[:1] != "f"]
        if self.calculation and len(rest) > 1:
            need = self._needed_in()
            rest.sort(key=lambda m: self._calculation_order(m, need))
        return home + rest

    def _needed_in(self) -> list[int]:
        """Calculation: for each rank, how many cards its nearest foundation
        still takes before it (99: none wants it any more)."""
        piles = self.state.piles
        need = [99] * 14
        for k, b in enumerate(self.rules.foundation_range):
            f = piles[b]
            r = f[-1] % 13 + 1 if f else 0
            for d in range(1, 14 - len(f)):
                r = step(r, k + 1)
                need[r] = min(need[r], d)
        return need

    def _calculation_order(self, m: Move, need: list[int]) -> int:
        """Place the turned card where it lies above a card needed after it."""
        if m.kind != "move":
            return 0
        piles = self.state.piles
        card = need[piles[WASTE][-1] % 13 + 1]
        pile = piles[self.rules.index[m.dst]]
        if not pile:
            return 50
        under = need[pile[-1] % 13 + 1]
        return under - card if under >= card else 100 + card - under

    def do(self, m: Move) -> State:
        before = self.state
        self.state = self.rules.apply(before, m)
        return before

    def undo(self, m: Move, token: State) -> None:
        self.state = token

    def as_move(self, m: Move) -> Move:
        return m
