"""The game state: an immutable value with a stable digest.

Piles are tuples of cards, bottom first, in a fixed order per variant:
stock, waste, foundations, tableau, indicators. The stock's last card is the
next one drawn; the waste's last card is the playable one.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from .cards import Card

STOCK = 0
WASTE = 1
FIRST_FOUNDATION = 2

Pile = tuple[Card, ...]


class State(NamedTuple):
    """Everything that decides the rest of a game; nothing derivable is stored.

    ``vacancy`` is the tableau pile that must be filled next (the 1883 rules'
    obligation), or -1. ``base`` is the base rank of the cross family's
    foundations (0 where the variant has none). ``redeals`` counts redeals used.
    """

    variant: str
    piles: tuple[Pile, ...]
    base: int = 0
    redeals: int = 0
    vacancy: int = -1
    resigned: bool = False

    def digest(self) -> str:
        """A hash that is the same in every process and on every machine."""
        parts = [self.variant, str(self.base), str(self.redeals), str(self.vacancy),
                 "R" if self.resigned else "-"]
        parts += [",".join(map(str, pile)) for pile in self.piles]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]

    @property
    def stock(self) -> Pile:
        return self.piles[STOCK]

    @property
    def waste(self) -> Pile:
        return self.piles[WASTE]
