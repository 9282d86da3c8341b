"""Les Quatre Coins as PySolFC codes it (game 620): Corner Stones' table with
PySolFC's rules, so a game here replays there on the same deal number.

The piles are Corner Stones' (t1..t6 the left column L0..L5, t7..t12 the right
column R0..R5; f1..f4 the Ace foundations of rows 1..4, f5..f8 the King
foundations). What differs, each a named piece here:

* the suits are fixed per row: clubs, spades, hearts, diamonds from the top;
* a deal is one round, L0..L5 then R0..R5; the first round is dealt at the start;
* while the stock has cards a side pile feeds only its adjacent foundation once
  that foundation is started (an empty foundation takes its Ace or King from any
  pile: PySolFC's ``LesQuatreCoins_Foundation`` checks the side only when it
  holds cards), and nothing builds on the tableau;
* a foundation's top card may move to the other foundation of its suit where it
  fits and, once the stock is empty, onto a pile (PySolFC's default max_move=1);
* the tableau builds up or down by one in any suit, no wrap; a space is never filled;
* two redeals: a deal with the stock empty gathers the piles in PySolFC's order
  (L0, R0, L5, R5, L1..L4, R1..R4, each taken from its top) and deals a round.
"""

from __future__ import annotations

from typing import Any

from ..cards import card_text
from ..deals import deal_order
from ..moves import DEAL_ONE, REDEAL, Move
from ..state import STOCK, Pile, State
from .base import ClassMoves, MovableMoves, VariantSpec
from .corner_stones import CornerStonesRules

ROUND = 12
# PySolFC's rows in its own order, as offsets of t1..t12: the gathering order
GATHER = (0, 6, 5, 11, 1, 2, 3, 4, 7, 8, 9, 10)


class QuatreCoinsRules(CornerStonesRules):
    """PySolFC 620; the family (screen, bots, solver choice) is Corner Stones'."""

    def __init__(self, spec: VariantSpec) -> None:
        super().__init__(spec)
        self.gather = tuple(self.t0 + k for k in GATHER)

    # -- the deal ------------------------------------------------------------
    def initial(self, deal: int | str) -> State:
        piles: list[Pile] = [()] * len(self.names)
        piles[STOCK] = tuple(reversed(deal_order(deal, 2)))
        self._deal_round(piles)
        return State(self.spec.id, tuple(piles))

    def _deal_round(self, piles: list[Pile]) -> None:
        """One card to each pile in turn, L0..L5 then R0..R5, while the stock lasts."""
        stock = piles[STOCK]
        n = min(ROUND, len(stock))
        for k in range(n):
            i = self.t0 + k
            piles[i] = piles[i] + (stock[-1 - k],)
        piles[STOCK] = stock[:len(stock) - n]

    def _gather(self, piles: list[Pile]) -> None:
        stock: list[int] = []
        for i in self.gather:
            stock.extend(reversed(piles[i]))  # one card at a time from the top
            piles[i] = ()
        piles[STOCK] = tuple(stock)  # the last card gathered is dealt first

    def redeal_allowed(self, state: State) -> bool:
        return (not state.piles[STOCK] and state.redeals < self.spec.passes - 1
                and any(state.piles[i] for i in self.tableau_range))

    def can_draw_or_redeal(self, state: State) -> bool:
        return bool(state.piles[STOCK]) or self.redeal_allowed(state)

    def class_moves(self) -> ClassMoves | None:
        return None  # foundation cards move: the search keys whole cards and heights (dead.py)

    def movable_moves(self, base: int) -> MovableMoves | None:
        # f1..f4: clubs, spades, hearts, diamonds up from the Ace; f5..f8 the same suits
        # down from the King; spaces are never filled
        ups = tuple(bytes(s * 13 + i for i in range(13)) for s in range(4))
        return MovableMoves(ups + tuple(seq[::-1] for seq in ups), False)

    # -- foundations -----------------------------------------------------------
    def _fits(self, f: Pile, b: int, c: int) -> bool:
        """Whether foundation ``b`` (suit fixed by its row) takes ``c`` by suit and rank."""
        kings = b >= self.f0 + 4
        if c // 13 != (b - self.f0) % 4:
            return False
        if not f:
            return c % 13 == (12 if kings else 0)
        return len(f) < 13 and c % 13 == f[-1] % 13 + (-1 if kings else 1)

    def _side_ok(self, piles: tuple[Pile, ...], a: int, b: int) -> bool:
        feeds = self.adjacent.get(a)
        return feeds is None or feeds == b or not piles[b] or not piles[STOCK]

    def _wanted(self, piles: tuple[Pile, ...]) -> dict[int, list[int]]:
        wanted: dict[int, list[int]] = {}
        for b in self.foundation_range:
            f, s = piles[b], (b - self.f0) % 4
            kings = b >= self.f0 + 4
            if not f:
                wanted.setdefault(s * 13 + (12 if kings else 0), []).append(b)
            elif len(f) < 13 and f[-1] % 13 != (0 if kings else 12):
                wanted.setdefault(f[-1] + (-1 if kings else 1), []).append(b)
        return wanted

    def may_build_on(self, card: int, target: int, base: int) -> bool:
        return abs(card % 13 - target % 13) == 1  # up or down by one, no wrap

    # -- generation -------------------------------------------------------------
    def legal_moves(self, state: State) -> list[Move]:
        piles = state.piles
        dealing = bool(piles[STOCK])
        wanted = self._wanted(piles)
        steps = self.steps
        tops = [(a, piles[a][-1]) for a in self.tableau_range if piles[a]]
        ftops = [(a, piles[a][-1]) for a in self.foundation_range if piles[a]]
        out: list[Move] = []
        for a, c in tops + ftops:
            for b in wanted.get(c, ()):
                if b != a and self._side_ok(piles, a, b):
                    out.append(steps[a][b])
            if not dealing:
                for b, t in tops:
                    if b != a and self.may_build_on(c, t, 0):
                        out.append(steps[a][b])
        if dealing:
            out.append(DEAL_ONE)
        elif self.redeal_allowed(state):
            out.append(REDEAL)
        return out

    def why_illegal(self, state: State, move: Move) -> str | None:
        piles, name = state.piles, self.spec.name
        if move.kind == "deal":
            if move.amount:
                return f"{name} deals one round with every deal: use deal"
            if piles[STOCK]:
                return None
            return "the stock is empty: redeal gathers the piles" if self.redeal_allowed(state) \
                else "every card has been dealt"
        if move.kind == "redeal":
            if piles[STOCK]:
                return "the stock is not empty yet"
            if state.redeals >= self.spec.passes - 1:
                return f"no redeals left ({self.spec.passes - 1} allowed)"
            return None if self.redeal_allowed(state) else "there is nothing left to gather"
        if move.kind == "draw":
            return f"{name} has no draw: deal turns out a round"
        if move.kind != "move":
            return f"{move.kind} is not an action of {name}"
        a, b = self.index.get(move.src), self.index.get(move.dst)
        if a is None or b is None or a < self.f0 or b < self.f0:
            bad = move.src if a is None or a < self.f0 else move.dst
            return f"{name} has no pile {bad}: it deals straight onto the tableau"
        if move.n != 1:
            return f"{name} moves one card at a time"
        if a == b:
            return "a card cannot move onto its own pile"
        if not piles[a]:
            return f"{move.src} is empty"
        c = piles[a][-1]
        if b in self.foundation_range:
            return self._why_not_to_foundation(piles, a, b, c)
        if piles[STOCK]:
            return "nothing goes onto the tableau until every card is dealt"
        if not piles[b]:
            return f"an empty pile is never filled in {name}"
        if not self.may_build_on(c, piles[b][-1], 0):
            return (f"{card_text(c)} does not go on {card_text(piles[b][-1])}: "
                    "the tableau builds up or down by one, no King on an Ace")
        return None

    def _why_not_to_foundation(self, piles: tuple[Pile, ...], a: int, b: int, c: int) -> str | None:
        f = piles[b]
        kings = b >= self.f0 + 4
        s = (b - self.f0) % 4
        if not self._fits(f, b, c):
            suit_word = ("clubs", "spades", "hearts", "diamonds")[s]
            if c // 13 != s:
                return f"{self.names[b]} is the {suit_word} foundation of its row"
            if not f:
                kind = "King" if kings else "Ace"
                return f"an empty {kind} foundation takes only the {kind}"
            way = "down from King to Ace" if kings else "up from Ace to King"
            return f"{card_text(c)} does not go on {card_text(f[-1])}: this foundation builds {way}"
        if not self._side_ok(piles, a, b):
            return (f"during the deal {self.names[a]} feeds only {self.names[self.adjacent[a]]}, "
                    "the foundation beside it")
        return None

    # -- the fast path -------------------------------------------------------------
    def apply(self, state: State, move: Move) -> State:
        piles = list(state.piles)
        redeals = state.redeals
        if move.kind == "move":
            a, b = self.index[move.src], self.index[move.dst]
            piles[b] = piles[b] + piles[a][-1:]
            piles[a] = piles[a][:-1]
        elif move.kind == "deal":
            self._deal_round(piles)
        elif move.kind == "redeal":
            self._gather(piles)
            self._deal_round(piles)
            redeals += 1
        else:
            raise ValueError(f"cannot apply {move}")
        return State(state.variant, tuple(piles), redeals=redeals)

    def extra_view(self, state: State) -> dict[str, Any]:
        phase = "deal" if state.piles[STOCK] else "play"
        return {"phase": phase, "next_deal_pile": self.names[self.t0] if state.piles[STOCK] else None}
