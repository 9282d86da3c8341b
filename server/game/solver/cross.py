"""The Four Seasons family as a fast, mutable search model.

One model covers the seven cross variants (four-seasons, four-seasons-1883,
vanishing-cross, four-seasons-redeal, czarina, corners, simplicity); the
variant's :class:`VariantSpec` switches the few rules that differ, exactly as
the engine's :mod:`..variants.cross` does. Moves are tuples of small ints:

* ``(FND, src, card)``: the top card of ``src`` to its suit's foundation;
* ``(TAB, src, dst, n)``: ``n`` cards from ``src`` onto tableau pile ``dst``;
* ``(DRAW,)`` and ``(REDEAL,)``.

``src`` is a tableau index (0-based), :data:`WASTE` or :data:`STOCK`.

The stock and waste are one sequence that never changes order (a redeal
turns the waste over keeping the order), so together they are keyed by the
set of cards taken out of that sequence, the stock's length and the pass.
Tableau piles are interchangeable in every cross variant (no rule looks at a
pile's position), so the key sorts them; moves still name physical piles,
so a line found by the search is the line to play. Foundations are implied
by where the other cards are and stay out of the key.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..moves import DRAW as DRAW_MOVE
from ..moves import REDEAL as REDEAL_MOVE
from ..moves import Move
from ..state import STOCK as STOCK_PILE
from ..state import WASTE as WASTE_PILE
from ..state import State
from ..variants import RULES
from ..variants.base import VariantSpec
from .capacity import capacity_lost, piles_are_runs
from .cross_loss import corners_endgame_dead, cross_dead
from .stockbound import LOST_T, StockBound

FND, TAB, DRAW, REDEAL = 0, 1, 2, 3
WASTE, STOCK = -1, -2
_DRAW: tuple[int, ...] = (DRAW,)
_REDEAL: tuple[int, ...] = (REDEAL,)
_BYTE = [bytes((c,)) for c in range(52)]
_NO_LAST = (-9, -9)

CrossMove = tuple[int, ...]

# When a card may go to its foundation without branching (see ``safe``):
#   always       - empty piles have no side effects: four-seasons, simplicity, four-seasons-redeal
#   stock-empty  - only once the stock is gone (vanishing-cross: a gap blocks drawing)
#   no-refill    - only when no automatic refill follows, or nothing is left to refill from
#                  (czarina, corners)
#   never        - four-seasons-1883: the gap obligation makes any card a possible filler
SAFE_ALWAYS, SAFE_STOCK_EMPTY, SAFE_NO_REFILL, SAFE_NEVER = 0, 1, 2, 3
# The abstract game's limits (stockbound.py): new triples one test may expand,
# and triples remembered in all (about 100 bytes each)
ABSTRACT_ALLOWANCE = 1_000
ABSTRACT_LIMIT = 2_000_000


def safe_policy(spec: VariantSpec) -> int:
    if spec.space_fill == "must-fill" or spec.runs:
        return SAFE_NEVER
    if spec.space_fill == "auto":
        return SAFE_NO_REFILL
    if spec.draw_needs_full_cross:
        return SAFE_STOCK_EMPTY
    return SAFE_ALWAYS


class CrossModel:
    """A cross-family position that plays and undoes moves in place."""

    def __init__(self, state: State, *, safe_moves: bool = True, prune: bool = True,
                 detectors: bool = True, greedy: bool = False, capacity: bool = True,
                 abstract: bool = False) -> None:
        rules = RULES[state.variant]
        spec = rules.spec
        self.spec = spec
        self.tn = spec.tableau
        t0, i0, f0 = rules.t0, rules.i0, rules.f0
        # piles as bytes: immutable, so the key is a sort and nothing else
        self.piles: list[bytes] = [bytes(state.piles[i]) for i in range(t0, i0)]
        self.stock: list[int] = list(state.piles[STOCK_PILE])
        self.waste: list[int] = list(state.piles[WASTE_PILE])
        self.fcount: list[int] = [len(state.piles[f0 + s]) for s in range(4)]
        self.nf = sum(self.fcount)
        self.total = spec.total_cards
        self.base = state.base
        self.redeals = state.redeals
        self.vacancy = state.vacancy - t0 if state.vacancy >= 0 else -1
        self.removed = 0
        # the tableau-to-tableau move that led here: its reverse only goes back
        # to the parent position (never where a refill follows an emptied pile)
        self.last = _NO_LAST
        self.cells = spec.build == "cells"
        self.fill = spec.space_fill
        self.auto = spec.space_fill == "auto"
        self.must_fill = spec.space_fill == "must-fill"
        self.runs = spec.runs
        self.blocks_draw = spec.draw_needs_full_cross
        self.max_redeals = spec.passes - 1
        self.safe_moves = safe_moves
        self.prune = prune
        self.detectors = detectors
        self.greedy = greedy
        self.policy = safe_policy(spec)
        base0 = self.base - 1
        # base-relative rank: the position of a card in its suit's foundation
        self.rel = [(c % 13 - base0) % 13 for c in range(52)]
        self.on = [[self._builds_on(c, t) for t in range(52)] for c in range(52)]
        self.children = [[x for x in range(52) if self.on[x][t]] for t in range(52)]
        self.parents = [[t for t in range(52) if self.on[x][t]] for x in range(52)]
        # the cards of x's suit below it in foundation order, lowest first
        self.lower = [[x // 13 * 13 + (base0 + k) % 13 for k in range(self.rel[x])] for x in range(52)]
        # card_at[s][h]: the card of suit s that goes on a foundation of height h
        self.card_at = [[s * 13 + (base0 + h) % 13 for h in range(13)] for s in range(4)]
        self.names = [f"t{k + 1}" for k in range(self.tn)]
        # the capacity test (see capacity.py): only where every pile is a run
        self.wrap_runs = any(self.on[k][a] for k in range(12, 52, 13) for a in range(0, 52, 13))
        self.capacity = (capacity and not self.cells
                         and piles_are_runs(self.piles, self.on))
        self.capacity_seen: dict[tuple[int, int, int], bool] = {}
        # the abstract game (see stockbound.py): from the last pass on, where
        # piles are runs and the stock never goes straight into the tableau
        self.bound: StockBound | None = None
        if (abstract and self.capacity and not self.auto and not self.must_fill
                and self.redeals >= self.max_redeals):
            self.bound = StockBound(self.waste + self.stock[::-1], self.rel, self.tn,
                                    self.wrap_runs, self.total, ABSTRACT_ALLOWANCE,
                                    ABSTRACT_LIMIT)

    # -- rules ---------------------------------------------------------------
    def _builds_on(self, c: int, t: int) -> bool:
        spec = self.spec
        if spec.build == "cells" or (t - c) % 13 != 1:
            return False
        if t % 13 == 0 and spec.wrap == "unless-ace-base" and self.base == 1:
            return False
        return spec.build != "down-alt" or (c >= 26) != (t >= 26)

    def _has_fill_source(self, hole: int) -> bool:
        if self.waste or self.stock:
            return True
        return any(len(p) > 1 for i, p in enumerate(self.piles) if i != hole)

    def safe(self, c: int, src: int) -> bool:
        """Whether playing ``c`` to its foundation now loses nothing.

        Every card that could ever be packed on ``c`` is already on a
        foundation, so ``c`` can serve in the cross only as a card to move
        about; with no side effect attached to an empty pile, any line that
        keeps ``c`` back stays legal (and no worse) with ``c`` played now.
        """
        policy = self.policy
        if self.cells and not self.stock and (not self.waste or all(self.piles)):
            return True  # Corners' endgame: any order of play is as good (see cross_loss)
        if policy == SAFE_NEVER:
            return False
        if policy == SAFE_STOCK_EMPTY and self.stock:
            return False
        refill = policy == SAFE_NO_REFILL and bool(self.stock or self.waste)
        if refill and src >= 0 and len(self.piles[src]) == 1:
            return False
        fcount, rel = self.fcount, self.rel
        return all(fcount[x // 13] > rel[x] for x in self.children[c])

    # -- the model protocol ------------------------------------------------
    def won(self) -> bool:
        return self.nf == self.total

    def progress(self) -> int:
        return self.nf

    def dead(self) -> bool:
        if self.redeals < self.max_redeals:
            return False
        if self.capacity and self.capacity_lost():
            return True
        bound = self.bound
        # after a move inside the tableau the triple is the parent's, which
        # was searched already (the bound is off where a refill could follow)
        if (bound is not None and self.last == _NO_LAST
                and bound.decide(self.removed, len(self.stock), self.fcount) == LOST_T):
            return True
        if not self.detectors:
            return False
        if self.cells:
            if not self.stock:
                return corners_endgame_dead(self)
            return False
        if self.stock or self.last != _NO_LAST:
            # after a move inside the tableau the test is skipped (always
            # sound): it rarely finds anything new there and costs the most
            return False
        return cross_dead(self)

    def capacity_lost(self) -> bool:
        """The capacity test (:mod:`.capacity`) on this position, remembered
        per waste, stock and foundation heights (a move inside the tableau
        cannot change the answer): at most one entry per node searched."""
        fc = self.fcount
        k = (self.removed, len(self.stock), fc[0] | fc[1] << 4 | fc[2] << 8 | fc[3] << 12)
        seen = self.capacity_seen.get(k)
        if seen is None:
            seen = capacity_lost(self.waste, self.stock, fc, self.rel, self.tn, self.wrap_runs)
            self.capacity_seen[k] = seen
        return seen

    def key(self) -> Hashable:
        head = (self.removed | (len(self.stock) << 52) | (self.redeals << 58)
                | ((self.vacancy >= 0) << 61))
        return (head, *sorted(self.piles))

    def moves(self) -> list[CrossMove]:
        if self.vacancy >= 0:
            return self._fill_moves(self.vacancy)
        piles, waste, fcount, rel, on = self.piles, self.waste, self.fcount, self.rel, self.on
        safe_ok = self.safe_moves
        found: list[CrossMove] = []
        emptying: list[CrossMove] = []
        from_waste: list[CrossMove] = []
        packing: list[CrossMove] = []
        to_gap: list[CrossMove] = []
        gap = -1
        for i, p in enumerate(piles):
            if not p:
                gap = i
                break
        tops = [(i, p[-1]) for i, p in enumerate(piles) if p]
        if waste:
            c = waste[-1]
            if fcount[c // 13] == rel[c]:
                if safe_ok and self.safe(c, WASTE):
                    return [(FND, WASTE, c)]
                found.append((FND, WASTE, c))
        for i, c in tops:
            if fcount[c // 13] == rel[c]:
                if safe_ok and self.safe(c, i):
                    return [(FND, i, c)]
                found.append((FND, i, c))
        if not self.cells:
            if waste:
                c = waste[-1]
                onc = on[c]
                for j, t in tops:
                    if onc[t]:
                        from_waste.append((TAB, WASTE, j, 1))
                if gap >= 0:
                    to_gap.append((TAB, WASTE, gap, 1))
            any_fill = self.fill != "waste"
            back_to, back_from = self.last if not self.auto else _NO_LAST
            for i, c in tops:
                onc = on[c]
                lone = len(piles[i]) == 1
                for j, t in tops:
                    if j != i and onc[t] and not (i == back_from and j == back_to):
                        (emptying if lone else packing).append((TAB, i, j, 1))
                if (gap >= 0 and any_fill and not (lone and self.prune)
                        and not (i == back_from and not piles[back_to])):
                    to_gap.append((TAB, i, gap, 1))
            if self.runs:
                packing.extend(self._run_moves(tops))
        if self.greedy and found:
            return found[:1]
        out = found + emptying + from_waste + packing + to_gap
        if self.stock:
            if not (self.blocks_draw and waste and gap >= 0):
                out.append(_DRAW)
        elif waste and self.redeals < self.max_redeals:
            out.append(_REDEAL)
        return out

    def _run_moves(self, tops: list[tuple[int, int]]) -> list[CrossMove]:
        out: list[CrossMove] = []
        on = self.on
        for i, p in enumerate(self.piles):
            n = 1
            while n < len(p) and on[p[-n]][p[-n - 1]]:
                n += 1
                bottom = p[-n]
                onb = on[bottom]
                for j, t in tops:
                    if j != i and onb[t]:
                        out.append((TAB, i, j, n))
        return out

    def _fill_moves(self, hole: int) -> list[CrossMove]:
        """The 1883 obligation: only moves into the pending gap. Moving a
        lone card into it only moves the gap, so it is left out."""
        out: list[CrossMove] = []
        if self.waste:
            out.append((TAB, WASTE, hole, 1))
        elif self.stock:
            out.append((TAB, STOCK, hole, 1))
        for i, p in enumerate(self.piles):
            if i != hole and (len(p) > 1 or (p and not self.prune)):
                out.append((TAB, i, hole, 1))
        return out

    def do(self, m: CrossMove) -> int:
        kind = m[0]
        piles = self.piles
        self.last = _NO_LAST
        if kind == FND:
            src, c = m[1], m[2]
            if src == WASTE:
                self.waste.pop()
                self.removed |= 1 << c
            else:
                piles[src] = piles[src][:-1]
            self.fcount[c // 13] += 1
            self.nf += 1
            return self._after_move(src)
        if kind == TAB:
            src, dst, n = m[1], m[2], m[3]
            if src == WASTE:
                c = self.waste.pop()
                self.removed |= 1 << c
                piles[dst] += _BYTE[c]
            elif src == STOCK:
                c = self.stock.pop()
                self.removed |= 1 << c
                piles[dst] += _BYTE[c]
            else:
                p = piles[src]
                piles[dst] += p[-n:]
                piles[src] = p[:-n]
                self.last = (src, dst)
            return self._after_move(src)
        if kind == DRAW:
            self.waste.append(self.stock.pop())
            return 0
        self.stock = self.waste[::-1]
        self.waste = []
        self.redeals += 1
        return 0

    def _after_move(self, src: int) -> int:
        """Vacancy and refill bookkeeping; returns what :meth:`undo` needs:
        the previous vacancy (+1, shifted) and one bit per refilled pile,
        with a second bit saying whether it came from the waste."""
        tok = (self.vacancy + 1) << 32
        if self.must_fill:
            self.vacancy = src if (src >= 0 and not self.piles[src]
                                   and self._has_fill_source(src)) else -1
        elif self.auto:
            piles = self.piles
            for i, p in enumerate(piles):
                if not p:
                    if self.stock:
                        c = self.stock.pop()
                        tok |= 1 << (2 * i)
                    elif self.waste:
                        c = self.waste.pop()
                        tok |= 3 << (2 * i)
                    else:
                        break
                    self.removed |= 1 << c
                    piles[i] = _BYTE[c]
        return tok

    def undo(self, m: CrossMove, tok: int) -> None:
        kind = m[0]
        if kind == DRAW:
            self.stock.append(self.waste.pop())
            return
        if kind == REDEAL:
            self.waste = self.stock[::-1]
            self.stock = []
            self.redeals -= 1
            return
        piles = self.piles
        fills = tok & 0xFFFFFFFF
        if fills:
            for i in range(self.tn - 1, -1, -1):
                how = (fills >> (2 * i)) & 3
                if how:
                    c = piles[i][0]
                    piles[i] = b""
                    self.removed &= ~(1 << c)
                    (self.waste if how == 3 else self.stock).append(c)
        self.vacancy = (tok >> 32) - 1
        if kind == FND:
            src, c = m[1], m[2]
            self.fcount[c // 13] -= 1
            self.nf -= 1
            if src == WASTE:
                self.waste.append(c)
                self.removed &= ~(1 << c)
            else:
                piles[src] += _BYTE[c]
            return
        src, dst, n = m[1], m[2], m[3]
        if src in (WASTE, STOCK):
            q = piles[dst]
            c = q[-1]
            piles[dst] = q[:-1]
            self.removed &= ~(1 << c)
            (self.waste if src == WASTE else self.stock).append(c)
        else:
            q = piles[dst]
            piles[src] += q[-n:]
            piles[dst] = q[:-n]

    # -- for the best-first stage (search.best_first) -------------------------
    def snapshot(self) -> tuple[list[bytes], list[int], list[int], list[int], int, int, int, int]:
        return (list(self.piles), list(self.stock), list(self.waste), list(self.fcount),
                self.redeals, self.vacancy, self.removed, self.nf)

    def restore(self, snap: tuple[list[bytes], list[int], list[int], list[int], int, int, int, int]) -> None:
        piles, stock, waste, fcount, self.redeals, self.vacancy, self.removed, self.nf = snap
        self.piles, self.stock, self.waste, self.fcount = list(piles), list(stock), list(waste), list(fcount)
        self.last = _NO_LAST

    def score(self) -> int:
        """Lower is better: foundation cards count most, then how many cards
        lie on the cards the foundations want next (in the waste or a pile;
        a card still in the stock costs nothing yet), then the waste's length."""
        depth = [0] * 52
        for p in self.piles:
            n = len(p)
            for d in range(n):
                depth[p[d]] = n - 1 - d
        w = self.waste
        n = len(w)
        for d in range(n):
            depth[w[d]] = n - 1 - d
        buried = 0
        fcount, card_at = self.fcount, self.card_at
        for s in range(4):
            if fcount[s] < 13:
                buried += depth[card_at[s][fcount[s]]]
        return -10 * self.nf + 2 * buried + n

    def as_move(self, m: CrossMove) -> Move:
        kind = m[0]
        if kind == DRAW:
            return DRAW_MOVE
        if kind == REDEAL:
            return REDEAL_MOVE
        src = m[1]
        sname = "w" if src == WASTE else "s" if src == STOCK else self.names[src]
        if kind == FND:
            return Move("move", sname, f"f{m[2] // 13 + 1}")
        return Move("move", sname, self.names[m[2]], m[3])
