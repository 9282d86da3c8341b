"""What a bot knows: the views its seat was sent, and nothing else.

A bot is handed the same ``view`` a human in its seat gets (face-up cards by
pile, the stock's size, passes left, legal moves). From the views alone it
keeps what a careful human keeps in mind: which cards are still unseen, and,
after a redeal, the order of the new stock (it is the old waste turned
over, and every card of the waste was face up).

To think ahead with the rules engine a bot needs a whole position, so the
unseen cards are *sampled*: :meth:`Knowledge.sample` deals them into the
stock in a random order. Every sample agrees with everything seen, and
nothing but the views goes into it: never the deal number, never the true
stock order.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from ...game.cards import CARD_TEXT
from ...game.state import State
from ...game.variants import get_rules

_CARD = {text: i for i, text in enumerate(CARD_TEXT)}
_RANK = {letter: r for r, letter in enumerate("A23456789TJQK", start=1)}


class Knowledge:
    """One seat's memory of its game, fed one view at a time."""

    def __init__(self, variant: str) -> None:
        self.rules = get_rules(variant)
        spec = self.rules.spec
        self.variant = spec.id
        self.deck: Counter[int] = Counter({c: spec.decks for c in range(52)})
        self.view: dict[str, Any] | None = None
        self.piles: tuple[tuple[int, ...], ...] = ()
        # the stock's order where it is known (after a redeal), bottom first
        self.known_stock: tuple[int, ...] | None = None
        self.seen_reveals = 0  # how many views brought a card never seen before

    # -- feeding --------------------------------------------------------------
    def observe(self, view: dict[str, Any]) -> None:
        """Take in the seat's newest view."""
        old = self.view
        piles: list[tuple[int, ...]] = [()]  # the stock: its cards are never in a view
        for name in self.rules.names[1:]:
            piles.append(tuple(_CARD[t] for t in view["piles"].get(name, ())))
        if old is not None and view["passes_left"] < old["passes_left"]:
            # a redeal turned the waste over: its cards come back in a known order
            self.known_stock = tuple(reversed(self.piles[1]))
        if self.known_stock is not None:
            self.known_stock = self.known_stock[: view["stock_count"]]
        if old is None or view["stock_count"] < old["stock_count"]:
            self.seen_reveals += 1
        self.view = view
        self.piles = tuple(piles)

    # -- what is known --------------------------------------------------------
    @property
    def moves(self) -> list[str]:
        return list(self.view["legal_moves"]) if self.view else []

    @property
    def in_progress(self) -> bool:
        return self.view is not None and self.view["status"] == "in_progress"

    def unseen(self) -> list[int]:
        """The cards not face up anywhere: exactly the stock's, in no known order."""
        visible: Counter[int] = Counter(c for pile in self.piles for c in pile)
        return sorted((self.deck - visible).elements())

    def stock_known(self) -> bool:
        assert self.view is not None
        return self.view["stock_count"] == 0 or (
            self.known_stock is not None and len(self.known_stock) == self.view["stock_count"])

    def view_key(self) -> tuple[int, int]:
        """Which stock this is: its size and the passes left (changes with every card turned)."""
        assert self.view is not None
        return self.view["stock_count"], self.view["passes_left"]

    def sample(self, rng: random.Random) -> State:
        """A whole position that agrees with everything this seat has seen; the
        unseen cards go into the stock in a random order."""
        view = self.view
        assert view is not None
        if self.stock_known():
            stock = self.known_stock or ()
        else:
            cards = self.unseen()
            rng.shuffle(cards)
            stock = tuple(cards)
        count = view["stock_count"]
        if len(stock) != count:
            raise ValueError(f"{len(stock)} unseen cards for a stock of {count}")
        piles = (stock, *self.piles[1:])
        spec = self.rules.spec
        base = _RANK[view["base_rank"]] if view.get("base_rank") else 0
        vacancy = self.rules.index[view["must_fill"]] if view.get("must_fill") else -1
        redeals = spec.passes - 1 - view["passes_left"]
        return State(self.variant, piles, base, redeals, vacancy)
