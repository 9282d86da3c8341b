"""Betsy Ross as a fast, mutable search model.

Suits play no part in Betsy Ross, so the model works on ranks (1..13) only
and two cards of the same rank are the same card: the key is the rank
sequence of the waste and of the stock, the foundation heights and the pass.

Moves: ``(PLAY, foundation)`` plays the waste top, ``(DRAW,)``, ``(REDEAL,)``.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..cards import step
from ..moves import DRAW as DRAW_MOVE
from ..moves import REDEAL as REDEAL_MOVE
from ..moves import Move
from ..state import STOCK as STOCK_PILE
from ..state import WASTE as WASTE_PILE
from ..state import State
from ..variants import RULES
from ..variants.betsy_ross import FOUNDATION_SIZE

PLAY, DRAW, REDEAL = 0, 2, 3
BetsyMove = tuple[int, ...]
_DRAW: BetsyMove = (DRAW,)
_REDEAL: BetsyMove = (REDEAL,)


class BetsyModel:
    """A Betsy Ross position on ranks, played and undone in place."""

    def __init__(self, state: State, *, safe_moves: bool = True, detectors: bool = True,
                 greedy: bool = False) -> None:
        rules = RULES[state.variant]
        self.spec = rules.spec
        f0 = rules.f0
        self.stock: list[int] = [c % 13 + 1 for c in state.piles[STOCK_PILE]]
        self.waste: list[int] = [c % 13 + 1 for c in state.piles[WASTE_PILE]]
        self.height = [len(state.piles[f0 + i]) for i in range(4)]
        self.top = [state.piles[f0 + i][-1] % 13 + 1 for i in range(4)]
        self.redeals = state.redeals
        self.max_redeals = self.spec.passes - 1
        self.safe_moves = safe_moves
        self.detectors = detectors
        self.greedy = greedy
        self.total = 4 * FOUNDATION_SIZE

    def need(self, i: int) -> int:
        """The rank foundation ``i`` (0-based) takes next, or 0 when full."""
        if self.height[i] >= FOUNDATION_SIZE:
            return 0
        return step(self.top[i], i + 1)

    def remaining(self, i: int) -> list[int]:
        """The ranks foundation ``i`` still needs, in order."""
        out, t = [], self.top[i]
        for _ in range(FOUNDATION_SIZE - self.height[i]):
            t = step(t, i + 1)
            out.append(t)
        return out

    def wanted_later(self, i: int, r: int) -> bool:
        """Whether foundation ``i`` still needs rank ``r`` at some point."""
        h, t = self.height[i], self.top[i]
        for _ in range(FOUNDATION_SIZE - h):
            t = step(t, i + 1)
            if t == r:
                return True
        return False

    def won(self) -> bool:
        return sum(self.height) == self.total

    def progress(self) -> int:
        return sum(self.height)

    def dead(self) -> bool:
        return self.detectors and betsy_buried(self)

    def key(self) -> Hashable:
        h = self.height
        head = h[0] | h[1] << 4 | h[2] << 8 | h[3] << 12 | self.redeals << 16 | len(self.stock) << 20
        return (head, bytes(self.waste), bytes(self.stock))

    def moves(self) -> list[BetsyMove]:
        out: list[BetsyMove] = []
        if self.waste:
            r = self.waste[-1]
            fits = [i for i in range(4) if self.need(i) == r]
            if fits and self.safe_moves and len(fits) == 1:
                i = fits[0]
                if not any(self.wanted_later(j, r) for j in range(4) if j != i):
                    # the only rank-r card left, and it has only one home: play it
                    return [(PLAY, i)]
            out = [(PLAY, i) for i in fits]
            if out and self.greedy:
                return out
        if self.stock:
            out.append(_DRAW)
        elif self.waste and self.redeals < self.max_redeals:
            out.append(_REDEAL)
        return out

    def do(self, m: BetsyMove) -> int:
        kind = m[0]
        if kind == PLAY:
            i = m[1]
            prev = self.top[i]
            self.top[i] = self.waste.pop()
            self.height[i] += 1
            return prev
        if kind == DRAW:
            self.waste.append(self.stock.pop())
            return 0
        self.stock = self.waste[::-1]
        self.waste = []
        self.redeals += 1
        return 0

    def undo(self, m: BetsyMove, tok: int) -> None:
        kind = m[0]
        if kind == PLAY:
            i = m[1]
            self.waste.append(self.top[i])
            self.top[i] = tok
            self.height[i] -= 1
        elif kind == DRAW:
            self.stock.append(self.waste.pop())
        else:
            self.waste = self.stock[::-1]
            self.stock = []
            self.redeals -= 1

    def as_move(self, m: BetsyMove) -> Move:
        if m[0] == DRAW:
            return DRAW_MOVE
        if m[0] == REDEAL:
            return REDEAL_MOVE
        return Move("move", "w", f"f{m[1] + 1}")


def betsy_buried(m: BetsyModel) -> bool:
    """Betsy Ross in its last pass: a waste card that can never be played.

    Waste card ``x`` must be played before everything under it. For every
    foundation that still wants ``x``'s rank, some rank it needs first may
    have all its remaining copies under ``x``: those can never come out in
    time, so ``x`` can never be played and the game is lost."""
    if m.redeals < m.max_redeals or len(m.waste) < 2:
        return False
    waste = m.waste
    left = [0] * 14  # copies of each rank still in the stock or the waste
    for r in waste:
        left[r] += 1
    for r in m.stock:
        left[r] += 1
    seqs = [m.remaining(i) for i in range(4)]
    below = [0] * 14  # copies of each rank under the current waste card
    for k in range(1, len(waste)):
        below[waste[k - 1]] += 1
        x = waste[k]
        possible = False
        for seq in seqs:
            if x not in seq:
                continue
            blocked = False
            for r in seq[:seq.index(x)]:
                if below[r] == left[r]:
                    blocked = True
                    break
            if not blocked:
                possible = True
                break
        if not possible:
            return True
    return False
