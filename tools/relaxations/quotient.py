"""The quotient by reversible tableau moves: the real game, keyed by classes of arrangements.

Every move inside a Four Seasons tableau can be undone, so the arrangements of one set of
tableau cards fall into classes whose members reach one another. This search keys a
position by its content (waste, stock, foundations) and the class of its arrangement,
named by the class's least member; it never plays a move inside the tableau, and plays
every other move from every member of the class. It is exact (won and lost mean what they
mean in the real game), but a won line leaves out the moves inside the tableau.

A class is walked once and remembered for every member: a draw or a waste card going home
leaves the tableau as it was, so the next position's class is known at once.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from server.game.moves import Move
from server.game.solver.cross import DRAW, FND, TAB, WASTE, CrossModel

from .common import check_modelled

Arrangement = tuple[bytes, ...]
# (the member the move is played from, or None: any; the real game's move)
QuotientMove = tuple[Arrangement | None, tuple[int, ...]]


class QuotientGame:
    """A position of the real game at the granularity of classes (the search's Model)."""

    def __init__(self, model: CrossModel) -> None:
        check_modelled(model)
        self.m = model
        self.classes: dict[Arrangement, tuple[Arrangement, list[Arrangement]]] = {}
        self.walked = 0  # arrangements enumerated, over every class

    def members(self) -> tuple[Arrangement, list[Arrangement]]:
        """The class of the current arrangement: its least member and all of them."""
        start = tuple(sorted(self.m.piles))
        hit = self.classes.get(start)
        if hit is not None:
            return hit
        on = self.m.on
        seen, todo = {start}, [start]
        while todo:
            piles = todo.pop()
            for i, p in enumerate(piles):
                if not p:
                    continue
                c = p[-1]
                for j, q in enumerate(piles):
                    if j != i and ((not q and len(p) > 1) or (q and on[c][q[-1]])):
                        nxt = list(piles)
                        nxt[i], nxt[j] = p[:-1], q + bytes((c,))
                        t = tuple(sorted(nxt))
                        if t not in seen:
                            seen.add(t)
                            todo.append(t)
        ordered = sorted(seen)
        found = (ordered[0], ordered)
        self.walked += len(ordered)
        for a in ordered:
            self.classes[a] = found
        return found

    def key(self) -> Hashable:
        m = self.m
        return (m.removed | len(m.stock) << 52, self.members()[0])

    def won(self) -> bool:
        return self.m.won()

    def progress(self) -> int:
        return self.m.progress()

    def dead(self) -> bool:
        return self.m.dead()

    def moves(self) -> list[QuotientMove]:
        m = self.m
        fc, rel, on = m.fcount, m.rel, m.on
        out: list[QuotientMove] = []
        w = m.waste[-1] if m.waste else -1
        if w >= 0 and fc[w // 13] == rel[w]:
            if m.safe(w, WASTE):
                return [(None, (FND, WASTE, w))]
            out.append((None, (FND, WASTE, w)))
        after: set[tuple[int, Arrangement]] = set()
        placing: list[QuotientMove] = []
        for a in self.members()[1]:
            for i, p in enumerate(a):
                if p and fc[p[-1] // 13] == rel[p[-1]]:
                    nxt = list(a)
                    nxt[i] = p[:-1]
                    t = (0, tuple(sorted(nxt)))
                    if t not in after:
                        after.add(t)
                        if m.safe(p[-1], i):
                            return [(a, (FND, i, p[-1]))]
                        out.append((a, (FND, i, p[-1])))
                if w >= 0 and ((not p) or on[w][p[-1]]):
                    nxt = list(a)
                    nxt[i] = p + bytes((w,))
                    t = (1, tuple(sorted(nxt)))
                    if t not in after:
                        after.add(t)
                        placing.append((a, (TAB, WASTE, i, 1)))
        out += placing
        if m.stock:
            out.append((None, (DRAW,)))
        return out

    def do(self, mv: QuotientMove) -> Any:
        member, inner = mv
        old = self.m.piles
        if member is not None:
            self.m.piles = list(member)
        return old, self.m.do(inner)

    def undo(self, mv: QuotientMove, token: Any) -> None:
        old, inner_token = token
        self.m.undo(mv[1], inner_token)
        self.m.piles = old

    def as_move(self, mv: QuotientMove) -> Move:
        return self.m.as_move(mv[1])
