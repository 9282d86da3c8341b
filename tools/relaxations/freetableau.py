"""The free tableau: a relaxation of Four Seasons that keeps the waste and drops the piles' order.

The tableau is only a set of cards; a waste card may join it whenever five runs can still
cover the set (the capacity test's count of ranks, exact here), and any card of it the
foundations want may go home. Every real tableau is five runs holding such a set, so every
real line is a line here, and a position lost here is lost. Its position is the real one's
*content* (which cards left the waste, the stock's length, the foundations) and nothing else.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from server.game.moves import DRAW as DRAW_MOVE
from server.game.moves import Move
from server.game.solver.cross import CrossModel

from .common import Capacity, LostKeys, RelaxedContent, check_modelled

WF, TF, WT, DRAW = 0, 1, 2, 3
FreeMove = tuple[int, int]  # (kind, card or -1)


def runs_needed(count: list[int], wrap: bool) -> int:
    """The fewest runs covering ``count[r]`` cards of each rank (the total rise)."""
    if wrap:
        rise = sum(max(0, count[r] - count[r - 1]) for r in range(13))
        return rise if rise or not any(count) else 1
    rise, prev = 0, 0
    for c in count:
        rise += max(0, c - prev)
        prev = c
    return rise


class FreeTableauGame(RelaxedContent):
    """A position of the relaxation, played and undone in place (the search's Model)."""

    def __init__(self, model: CrossModel, memo: LostKeys | None = None,
                 capacity: Capacity | None = None) -> None:
        check_modelled(model)
        self.rel, self.card_at, self.children = model.rel, model.card_at, model.children
        self.wrap, self.tn = model.wrap_runs, model.tn
        self.stock, self.waste = list(model.stock), list(model.waste)
        self.fc = list(model.fcount)
        self.removed = model.removed
        self.count = [0] * 13
        self.tab = 0
        for p in model.piles:
            for c in p:
                self.tab |= 1 << c
                self.count[c % 13] += 1
        self.memo = memo or LostKeys()
        self.capacity = capacity or Capacity(model)

    def key(self) -> Hashable:
        return self.memo.note(self.content())

    def moves(self) -> list[FreeMove]:
        fc, rel = self.fc, self.rel
        out: list[FreeMove] = []
        w = self.waste[-1] if self.waste else -1
        if w >= 0 and fc[w // 13] == rel[w]:
            out.append((WF, w))
        for s in range(4):
            c = self.card_at[s][fc[s]] if fc[s] < 13 else -1
            if c >= 0 and self.tab >> c & 1:
                out.append((TF, c))
        for m in out:
            if all(fc[x // 13] > rel[x] for x in self.children[m[1]]):
                return [m]  # nothing can ever lie on it: playing it home loses nothing
        if w >= 0:
            self.count[w % 13] += 1
            if runs_needed(self.count, self.wrap) <= self.tn:
                out.append((WT, w))
            self.count[w % 13] -= 1
        if self.stock:
            out.append((DRAW, -1))
        return out

    def do(self, m: FreeMove) -> Any:
        kind, c = m
        if kind == DRAW:
            self.waste.append(self.stock.pop())
        elif kind == WF:
            self.waste.pop()
            self.removed |= 1 << c
            self.fc[c // 13] += 1
        elif kind == TF:
            self.tab &= ~(1 << c)
            self.count[c % 13] -= 1
            self.fc[c // 13] += 1
        else:
            self.waste.pop()
            self.removed |= 1 << c
            self.tab |= 1 << c
            self.count[c % 13] += 1
        return None

    def undo(self, m: FreeMove, token: Any) -> None:
        kind, c = m
        if kind == DRAW:
            self.stock.append(self.waste.pop())
        elif kind == WF:
            self.fc[c // 13] -= 1
            self.removed &= ~(1 << c)
            self.waste.append(c)
        elif kind == TF:
            self.fc[c // 13] -= 1
            self.count[c % 13] += 1
            self.tab |= 1 << c
        else:
            self.count[c % 13] -= 1
            self.tab &= ~(1 << c)
            self.removed &= ~(1 << c)
            self.waste.append(c)

    def as_move(self, m: FreeMove) -> Move:
        return DRAW_MOVE  # a line of the relaxation is not a line of the real game
