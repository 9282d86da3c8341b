"""Corner Stones (two decks): two columns of six piles with the Ace and King
foundations between them, dealt one card at a time.

Piles: ``t1``..``t6`` are the left column top to bottom (L0..L5), ``t7``..``t12``
the right column (R0..R5); ``f1``..``f4`` the Ace foundations of rows 1..4 and
``f5``..``f8`` the King foundations. Corner stones: t1, t6, t7, t12.
The named pieces here: the deal phase and its side-pile restriction, and the
row pairing of a suit's Ace and King foundations.
"""

from __future__ import annotations

from typing import Any

from ..cards import SUIT_NAMES, card_text
from ..deals import deal_order
from ..moves import DEAL_ALL, DEAL_ONE, DEAL_ROUND, Move
from ..state import STOCK, Pile, State
from . import layouts
from .base import ClassMoves, Rules, VariantSpec

ROUND = 12
# Clockwise from the top-left corner stone: L0, R0..R5, L5..L1 (pile offsets).
DEAL_ORDER = (0, 6, 7, 8, 9, 10, 11, 5, 4, 3, 2, 1)
CORNERS = frozenset({0, 5, 6, 11})


class CornerStonesRules(Rules):
    family = "corner-stones"

    # the parameters spelled out: compiled with mypyc, *args/**kwargs passed on
    # to a typed super().__init__ arrive as one tuple argument
    def __init__(self, spec: VariantSpec) -> None:
        super().__init__(spec)
        t0, f0 = self.t0, self.f0
        # side pile -> the one foundation it may feed during the deal
        self.adjacent = {t0 + k: f0 + k - 1 for k in range(1, 5)}
        self.adjacent.update({t0 + 6 + k: f0 + 4 + k - 1 for k in range(1, 5)})
        self.deal_piles = tuple(t0 + k for k in DEAL_ORDER)

    def family_layout(self) -> dict[str, Any]:
        # two columns, tops facing the Ace and King foundations of each row between them
        grid = tuple((f"t{r}", f"f{r - 1} f{r + 3}" if 2 <= r <= 5 else "", f"t{r + 6}")
                     for r in range(1, 7))
        return layouts.build(grid, fans={f"t{k}": "left" for k in range(7, 13)}, gap=False)

    def initial(self, deal: int | str) -> State:
        piles: list[Pile] = [()] * len(self.names)
        piles[STOCK] = tuple(reversed(deal_order(deal, 2)))
        return State(self.spec.id, tuple(piles))

    # -- foundations and pairing -------------------------------------------
    def _row_of_suit(self, piles: tuple[Pile, ...], s: int, kings: bool) -> int | None:
        """The row (0..3) whose Ace (or King) foundation holds suit ``s``."""
        start = self.f0 + (4 if kings else 0)
        for r in range(4):
            pile = piles[start + r]
            if pile and pile[0] // 13 == s:
                return r
        return None

    def _why_not_foundation(self, piles: tuple[Pile, ...], c: int, b: int) -> str | None:
        kings = b >= self.f0 + 4
        row = (b - self.f0) % 4
        f = piles[b]
        r, s = c % 13 + 1, c // 13
        kind = "King" if kings else "Ace"
        if f:
            if f[0] // 13 != s:
                return f"{card_text(c)} does not go on {card_text(f[-1])}: foundations follow suit"
            want = f[-1] % 13 + (0 if kings else 2)  # next rank (1..13): one down or one up
            if len(f) == 13 or r != want:
                way = "down from King to Ace" if kings else "up from Ace to King"
                return f"{card_text(c)} does not go on {card_text(f[-1])}: this foundation builds {way}"
            return None
        if r != (13 if kings else 1):
            return f"an empty {kind} foundation takes only a {kind}"
        if self._row_of_suit(piles, s, kings) is not None:
            return (f"the {SUIT_NAMES[s]} {kind} foundation is already started: "
                    f"this {card_text(c)} is an ordinary card")
        partner_row = self._row_of_suit(piles, s, not kings)
        if partner_row is not None and partner_row != row:
            return f"{card_text(c)} must go to row {partner_row + 1}, beside its partner foundation"
        partner = piles[self.f0 + row + (0 if kings else 4)]
        if partner and partner[0] // 13 != s:
            owner = SUIT_NAMES[partner[0] // 13]
            return f"row {row + 1} belongs to {owner}: both foundations of a row share a suit"
        return None

    # -- the tableau ---------------------------------------------------------
    @staticmethod
    def _neighbours(c: int, t: int) -> bool:
        return (c - t) % 13 in (1, 12)  # one up or one down, King and Ace touch

    def may_build_on(self, card: int, target: int, base: int) -> bool:
        # after the deal: one up or down in any suit, round the corner
        return self._neighbours(card, target)

    def _side_ok(self, piles: tuple[Pile, ...], a: int, b: int) -> bool:
        """During the deal a side pile feeds only its adjacent foundation,
        except for a base card, which may start any foundation it may start."""
        feeds = self.adjacent.get(a)
        return feeds is None or feeds == b or not piles[b]

    # -- generation ----------------------------------------------------------
    def legal_moves(self, state: State) -> list[Move]:
        piles, names = state.piles, self.names
        dealing = bool(piles[STOCK])
        wanted = self._wanted(piles)
        tops = [(a, piles[a][-1]) for a in self.tableau_range if piles[a]]
        by_rank: dict[int, list[int]] = {}
        if not dealing:
            for a, c in tops:
                by_rank.setdefault(c % 13, []).append(a)
        out: list[Move] = []
        for a, c in tops:
            for b in wanted.get(c, ()):
                if not dealing or self._side_ok(piles, a, b):
                    out.append(Move("move", names[a], names[b]))
            if not dealing:
                r = c % 13
                for b in by_rank.get((r + 1) % 13, []) + by_rank.get((r + 12) % 13, []):
                    if b != a:
                        out.append(Move("move", names[a], names[b]))
        if dealing:
            out.append(DEAL_ONE)
            out.append(DEAL_ROUND)
            out.append(DEAL_ALL)
        return out

    def foundation_wants(self, state: State) -> frozenset[int]:
        return frozenset(self._wanted(state.piles))

    def _wanted(self, piles: tuple[Pile, ...]) -> dict[int, list[int]]:
        """Each card some foundation would take now -> those foundations."""
        wanted: dict[int, list[int]] = {}
        for b in self.foundation_range:
            f = piles[b]
            kings = b >= self.f0 + 4
            if f:
                if len(f) < 13:
                    wanted.setdefault(f[-1] + (-1 if kings else 1), []).append(b)
                continue
            for s in range(4):
                c = s * 13 + (12 if kings else 0)
                if self._why_not_foundation(piles, c, b) is None:
                    wanted.setdefault(c, []).append(b)
        return wanted

    def why_illegal(self, state: State, move: Move) -> str | None:
        piles = state.piles
        if move.kind == "deal":
            return None if piles[STOCK] else "every card has been dealt"
        if move.kind in ("draw", "redeal"):
            return f"{self.spec.name} has no {move.kind}: use deal, deal:round or deal:all"
        if move.kind != "move":
            return f"{move.kind} is not an action of {self.spec.name}"
        a, b = self.index.get(move.src), self.index.get(move.dst)
        if a is None or b is None or a < self.f0 or b < self.f0:
            bad = move.src if a is None or a < self.f0 else move.dst
            return f"{self.spec.name} has no pile {bad}: it deals straight onto the tableau"
        if a in self.foundation_range:
            return "cards on a foundation stay there"
        if move.n != 1:
            return f"{self.spec.name} moves one card at a time"
        if not piles[a]:
            return f"{move.src} is empty"
        c = piles[a][-1]
        dealing = bool(piles[STOCK])
        if b in self.foundation_range:
            if dealing and not self._side_ok(piles, a, b):
                return (f"during the deal {move.src} feeds only {self.names[self.adjacent[a]]}, "
                        "the foundation beside it")
            return self._why_not_foundation(piles, c, b)
        if dealing:
            return "no building on the tableau until every card is dealt"
        if not piles[b]:
            return "an empty pile is never filled in Corner Stones"
        if not self._neighbours(c, piles[b][-1]):
            return (f"{card_text(c)} does not go on {card_text(piles[b][-1])}: "
                    "the tableau builds up or down by one")
        return None

    # -- the fast path -------------------------------------------------------
    def apply(self, state: State, move: Move) -> State:
        piles = list(state.piles)
        if move.kind == "move":
            a, b = self.index[move.src], self.index[move.dst]
            piles[b] = piles[b] + piles[a][-1:]
            piles[a] = piles[a][:-1]
        elif move.kind == "deal":
            stock = piles[STOCK]
            dealt = 2 * 52 - len(stock)
            if move.amount == "all":
                n = len(stock)
            elif move.amount == "round":
                n = ROUND - dealt % ROUND
            else:
                n = 1
            for k in range(min(n, len(stock))):
                i = self.deal_piles[(dealt + k) % ROUND]
                piles[i] = piles[i] + (stock[-1 - k],)
            piles[STOCK] = stock[: len(stock) - n] if n < len(stock) else ()
        else:
            raise ValueError(f"cannot apply {move}")
        return State(state.variant, tuple(piles))

    def can_draw_or_redeal(self, state: State) -> bool:
        return bool(state.piles[STOCK])

    def class_moves(self) -> ClassMoves | None:
        # after the deal: a top card onto a neighbouring top; spaces stay empty; no waste
        return ClassMoves(False, False, "")

    def extra_view(self, state: State) -> dict[str, Any]:
        dealt = 2 * 52 - len(state.piles[STOCK])
        phase = "deal" if state.piles[STOCK] else "play"
        nxt = self.names[self.deal_piles[dealt % ROUND]] if state.piles[STOCK] else None
        return {"phase": phase, "next_deal_pile": nxt}
