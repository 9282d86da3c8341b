"""Any variant as a search model, through its own rules (``legal_moves`` and
``apply``): the solver's model for the families without a tuned one
(Calculation, Fortune's Favor), for Florentine's centre cell, and for the
variants whose quirks the family models (:mod:`.cross`, :mod:`.corner_stones`)
leave out (PySolFC's fill from the waste, Corners' own foundation starts,
foundation cards that move, Les Quatre Coins' rounds and gathering: see
:func:`needs_engine_model`). No loss detector runs, so it is complete and
exact by construction, only slower than a family model.

Which moves it lists depends on one fact of the variant,
``VariantSpec.foundation_moves``:

* Without it, every legal move but those that take a card back off a
  foundation (Fortune's Favor), which never help a one-deck game that builds
  its foundations up in suit (see :mod:`..dead`).
* With it (simplicity-pysol, les-quatre-coins-pysol), those moves too, after
  every other move, and not at all in the greedy first stage (which may only
  answer "won").

Moves that add a card to the foundations come first; in the streamlined
(stage 1) mode they come alone when there are any. The key forgets which
interchangeable tableau pile is which (``Rules.dead_places``), except while a
variant that deals onto its piles (Les Quatre Coins) still has cards to deal
or gather, and, in Calculation, where suits play no part, the suits.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..cards import step
from ..moves import Move
from ..state import STOCK, WASTE, State
from ..variants import RULES
from ..variants.base import VariantSpec

_RANKS = bytes(c % 13 + 1 for c in range(52)) + bytes(range(52, 256))
_SAME = bytes(range(256))


def needs_engine_model(spec: VariantSpec) -> bool:
    """Whether the family's fast model leaves out a rule of this variant."""
    return (spec.foundation_moves or spec.space_fill == "waste-auto"
            or spec.deal_style in ("corners-pysol", "quatre-coins-pysol"))


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
        self.movable = self.rules.spec.foundation_moves
        # In the greedy stage, the variants searched for their quirks play the
        # first foundation move only (their rows in seeds/winrates.md were measured so)
        self.first_home_only = needs_engine_model(self.rules.spec)
        # a pile's place matters while the stock still deals onto the piles
        self.placed_deals = self.rules.family == "corner-stones"

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
        loose = [bytes(piles[i]).translate(t) for i in self.loose]
        if not self.placed_deals or not self.rules.can_draw_or_redeal(s):
            loose.sort()
        parts += loose
        return (s.base, s.redeals, s.vacancy, b"\xff".join(parts))

    def moves(self) -> list[Move]:
        legal = self.rules.legal_moves(self.state)
        home = [m for m in legal if m.dst[:1] == "f" and m.src[:1] != "f"]
        if self.greedy and home:
            return home[:1] if self.first_home_only else home
        rest = [m for m in legal if m.dst[:1] != "f" and m.src[:1] != "f"]
        if self.calculation and len(rest) > 1:
            need = self._needed_in()
            rest.sort(key=lambda m: self._calculation_order(m, need))
        if self.movable and not self.greedy:
            rest += [m for m in legal if m.src[:1] == "f"]  # a foundation card moving on: last
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
