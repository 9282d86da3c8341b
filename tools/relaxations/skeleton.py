"""The rank skeleton: a relaxation of Four Seasons that forgets which card of a rank lies where.

A pile that is a run is fixed by its bottom rank and its length, up to which card of each
rank fills each place. This game keeps that *skeleton* of every pile, and the exact place of
only the next ``tracked`` cards of each suit (the ones the foundations want soonest):

* with ``tracked`` = 0 any tableau card the foundations want may go home from any pile whose
  top has its rank;
* with ``tracked`` = *K* > 0 only from the place it holds. A card that enters that window
  while it lies in the tableau is put, in a branch each, at every place of its rank that no
  tracked card holds.

Every real line maps to a line here (a real top of rank *q* is a skeleton top of rank *q*,
and the real place of a card entering the window is one of the branches), so a position
lost here is lost in the real game. The waste, the stock and the foundations are exact, and
the solver's capacity test (sound for any tableau of runs) cuts positions here too.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from server.game.moves import DRAW as DRAW_MOVE
from server.game.moves import Move
from server.game.solver.cross import CrossModel

from .common import Capacity, LostKeys, RelaxedContent, check_modelled

# a pile: (bottom rank 0..12, length, tracked cards as (depth from the bottom, card), by depth)
Pile = tuple[int, int, tuple[tuple[int, int], ...]]
EMPTY: Pile = (0, 0, ())
WF, TF, WT, TT, DRAW = 0, 1, 2, 3, 4
# a move: (kind, pile or -1, card or -1, pile for a card entering the window or -1, its depth)
SkeletonMove = tuple[int, int, int, int, int]


class SkeletonGame(RelaxedContent):
    """A position of the relaxation, played and undone in place (the search's Model)."""

    def __init__(self, model: CrossModel, tracked: int = 0, memo: LostKeys | None = None,
                 capacity: Capacity | None = None) -> None:
        check_modelled(model)
        self.tracked = tracked
        self.rel, self.card_at, self.children = model.rel, model.card_at, model.children
        self.wrap = model.wrap_runs
        self.stock, self.waste = list(model.stock), list(model.waste)
        self.fc = list(model.fcount)
        self.removed = model.removed
        self.tab = 0
        self.piles: list[Pile] = []
        for p in model.piles:
            for c in p:
                self.tab |= 1 << c
            marks = tuple((d, c) for d, c in enumerate(p) if self._in_window(c))
            self.piles.append((p[0] % 13, len(p), marks) if p else EMPTY)
        self.memo = memo or LostKeys()
        self.capacity = capacity or Capacity(model)

    # -- rules -----------------------------------------------------------------------
    def _in_window(self, c: int) -> bool:
        return 0 <= self.rel[c] - self.fc[c // 13] < self.tracked

    def _accepts(self, pile: Pile, rank: int) -> bool:
        bottom, length, _ = pile
        if not length:
            return True
        top = (bottom - length + 1) % 13
        return (top - rank) % 13 == 1 and (self.wrap or top != 0)

    def _safe(self, c: int) -> bool:
        fc, rel = self.fc, self.rel
        return all(fc[x // 13] > rel[x] for x in self.children[c])

    def _places(self, suit: int) -> list[tuple[int, int]]:
        """Where the card entering suit ``suit``'s window after its foundation grew may lie:
        (pile, depth) each, or [(-1, -1)] when no card enters or it is not in the tableau."""
        if not self.tracked:
            return [(-1, -1)]
        h = self.fc[suit] + 1 + self.tracked - 1
        c = self.card_at[suit][h] if h < 13 else -1
        if c < 0 or not self.tab >> c & 1:
            return [(-1, -1)]
        out, met = [], set()
        for i, (bottom, length, marks) in enumerate(self.piles):
            if not length or (bottom, length, marks) in met:
                continue
            met.add((bottom, length, marks))
            held = {d for d, _ in marks}
            out += [(i, d) for d in range(length) if (bottom - d) % 13 == c % 13 and d not in held]
        if not out:  # as many places of a rank as cards of it: one is always free
            raise RuntimeError(f"no place for card {c} in {self.piles}")
        return out

    # -- the search's model protocol ---------------------------------------------------
    def key(self) -> Hashable:
        return self.memo.note((self.content(), tuple(sorted(self.piles))))

    def moves(self) -> list[SkeletonMove]:
        fc, rel, piles = self.fc, self.rel, self.piles
        home: list[SkeletonMove] = []
        w = self.waste[-1] if self.waste else -1
        if w >= 0 and fc[w // 13] == rel[w]:
            home += [(WF, -1, w, i, d) for i, d in self._places(w // 13)]
        for s in range(4):
            c = self.card_at[s][fc[s]] if fc[s] < 13 else -1
            if c < 0 or not self.tab >> c & 1:
                continue
            met = set()
            for i, (bottom, length, marks) in enumerate(piles):
                top_is_c = (marks[-1] == (length - 1, c)) if marks else False
                if not length or (bottom, length, marks) in met:
                    continue
                if (top_is_c if self.tracked else (bottom - length + 1) % 13 == c % 13):
                    met.add((bottom, length, marks))
                    home += [(TF, i, c, j, d) for j, d in self._places(s)]
        for mv in home:
            if self._safe(mv[2]):
                return [mv]
        out = home
        if w >= 0:
            met = set()
            for i, p in enumerate(piles):
                if p not in met and self._accepts(p, w % 13):
                    met.add(p)
                    out.append((WT, i, w, -1, -1))
        for i, p in enumerate(piles):
            if not p[1]:
                continue
            rank = (p[0] - p[1] + 1) % 13
            met = set()
            for j, o in enumerate(piles):
                if j != i and o not in met and not (o[1] == 0 and p[1] == 1) and self._accepts(o, rank):
                    met.add(o)
                    out.append((TT, i, j, -1, -1))  # the target pile in the card's slot
        if self.stock:
            out.append((DRAW, -1, -1, -1, -1))
        return out

    def do(self, m: SkeletonMove) -> Any:
        token = (list(self.piles), self.tab, self.removed)
        kind, i, c, j, d = m
        piles = self.piles
        if kind == DRAW:
            self.waste.append(self.stock.pop())
            return token
        if kind == WF:
            self.waste.pop()
            self.removed |= 1 << c
        elif kind == TF:
            bottom, length, marks = piles[i]
            piles[i] = (bottom, length - 1, marks[:-1] if self.tracked else marks) if length > 1 else EMPTY
            self.tab &= ~(1 << c)
        elif kind == WT:
            self.waste.pop()
            self.removed |= 1 << c
            self.tab |= 1 << c
            bottom, length, marks = piles[i]
            mark = ((length, c),) if self._in_window(c) else ()
            piles[i] = (bottom, length + 1, marks + mark) if length else (c % 13, 1, mark)
            return token
        else:  # TT: the top of pile i onto pile j (c holds j here)
            j = c
            bottom, length, marks = piles[i]
            rank = (bottom - length + 1) % 13
            moving = marks[-1][1] if marks and marks[-1][0] == length - 1 else -1
            piles[i] = (bottom, length - 1, marks[:-1] if moving >= 0 else marks) if length > 1 else EMPTY
            ob, ol, om = piles[j]
            mark = ((ol, moving),) if moving >= 0 else ()
            piles[j] = (ob, ol + 1, om + mark) if ol else (rank, 1, mark)
            return token
        self.fc[c // 13] += 1
        if j >= 0:  # the card entering the window, at the place this branch chose
            bottom, length, marks = piles[j]
            entering = self.card_at[c // 13][self.fc[c // 13] + self.tracked - 1]
            piles[j] = (bottom, length, tuple(sorted(marks + ((d, entering),))))
        return token

    def undo(self, m: SkeletonMove, token: Any) -> None:
        kind, _, c, _, _ = m
        if kind == DRAW:
            self.stock.append(self.waste.pop())
            return
        piles, self.tab, self.removed = token
        self.piles[:] = piles
        if kind in (WF, WT):
            self.waste.append(c)
        if kind in (WF, TF):
            self.fc[c // 13] -= 1

    def as_move(self, m: SkeletonMove) -> Move:
        # a line of the relaxation is not a line of the real game: only its length is kept
        return DRAW_MOVE
