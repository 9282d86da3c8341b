"""Any variant as a search model, straight through its rules (``Rules``).

The family models (:mod:`.cross`, :mod:`.corner_stones`, :mod:`.betsy`) mirror
their family's rules in a fast mutable form; a variant whose quirks they do not
model (PySolFC's fill from the waste, Corners' own foundation starts, foundation
cards that move, Les Quatre Coins' rounds and gathering) is searched here
instead: every legal move of :meth:`..variants.base.Rules.legal_moves`, the
engine's own ``apply``, the whole state as the key. Nothing is left out and no
loss detector runs, so it is complete and exact by construction, only slower.

Moves that add a card to the foundations come first; a foundation card moving
on (where a variant allows it) comes last, after every other move, and not at
all in the greedy first stage (which may only answer "won"). The key sorts the
tableau piles where no rule looks at a pile's place: always in the cross
family, and in Les Quatre Coins once nothing is left to deal or gather.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..moves import Move
from ..state import State
from ..variants import RULES
from ..variants.base import VariantSpec


def needs_engine_model(spec: VariantSpec) -> bool:
    """Whether the family's fast model leaves out a rule of this variant."""
    return (spec.foundation_moves or spec.space_fill == "waste-auto"
            or spec.deal_style in ("corners-pysol", "quatre-coins-pysol"))


class EngineModel:
    """A position of any variant; ``greedy``: only the first foundation move when
    there is one (the incomplete first stage)."""

    def __init__(self, state: State, *, greedy: bool = False) -> None:
        self.rules = RULES[state.variant]
        self.state = state
        self.greedy = greedy

    def moves(self) -> list[Move]:
        home: list[Move] = []
        other: list[Move] = []
        back: list[Move] = []
        for m in self.rules.legal_moves(self.state):
            if m.src.startswith("f"):
                back.append(m)
            elif m.dst.startswith("f"):
                home.append(m)
            else:
                other.append(m)
        if self.greedy:
            return home[:1] if home else other
        return home + other + back

    def do(self, move: Move) -> State:
        before = self.state
        self.state = self.rules.apply(before, move)
        return before

    def undo(self, move: Move, token: State) -> None:
        self.state = token

    def key(self) -> Hashable:
        """The position as one short bytes string (cards are below 104; 255 separates)."""
        state, rules = self.state, self.rules
        piles = [bytes(p) for p in state.piles]
        if rules.family == "cross" or not rules.can_draw_or_redeal(state):
            piles[rules.t0:rules.i0] = sorted(piles[rules.t0:rules.i0])
        return b"\xff".join([*piles, bytes((state.base, state.redeals, state.vacancy + 1))])

    def won(self) -> bool:
        return self.rules.is_won(self.state)

    def dead(self) -> bool:
        return False

    def as_move(self, move: Move) -> Move:
        return move

    def progress(self) -> int:
        return self.rules.foundation_cards(self.state)
