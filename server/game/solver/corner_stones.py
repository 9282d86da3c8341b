"""Corner Stones as a fast, mutable search model.

Two decks: the engine already gives both copies of a card the same value, so
identical cards are one card to the key. During the deal the piles are not
interchangeable (deal order, side piles feeding one foundation) and neither
are the rows; once every card is dealt no rule looks at a pile's or a row's
position any more, so the key sorts the piles and lists the foundations by
suit.

Moves: ``(FND, pile, foundation, card)``, ``(TAB, src, dst)`` and ``(DEAL,)``
(one card; the engine's ``deal``).
"""

from __future__ import annotations

import random
from collections.abc import Hashable

from ..moves import DEAL_ONE, Move
from ..state import STOCK as STOCK_PILE
from ..state import State
from ..variants import RULES
from ..variants.corner_stones import DEAL_ORDER, ROUND

FND, TAB, DEAL = 0, 1, 4
CSMove = tuple[int, ...]
_DEAL: CSMove = (DEAL,)
TOTAL = 104


class CornerStonesModel:
    """A Corner Stones position, played and undone in place."""

    def __init__(self, state: State, *, safe_moves: bool = True, prune: bool = True,
                 detectors: bool = True, greedy: bool = False, shuffle_seed: int | None = None) -> None:
        rules = RULES[state.variant]
        self.spec = rules.spec
        t0, f0 = rules.t0, rules.f0
        self.piles: list[list[int]] = [list(state.piles[t0 + k]) for k in range(12)]
        self.stock: list[int] = list(state.piles[STOCK_PILE])
        # foundation k (0..7): suit (-1 empty) and height; 0..3 Aces up, 4..7 Kings down
        self.fsuit = [state.piles[f0 + k][0] // 13 if state.piles[f0 + k] else -1 for k in range(8)]
        self.fh = [len(state.piles[f0 + k]) for k in range(8)]
        self.nf = sum(self.fh)
        # copies of each card value already on a foundation (0..2)
        self.home = [0] * 52
        for k in range(8):
            for c in state.piles[f0 + k]:
                self.home[c] += 1
        self.deal_piles = DEAL_ORDER
        # side pile -> the one foundation it feeds during the deal
        self.adjacent: dict[int, int] = {k: k - 1 for k in range(1, 5)}
        self.adjacent.update({6 + k: 4 + k - 1 for k in range(1, 5)})
        self.safe_moves = safe_moves
        self.prune = prune
        self.greedy = greedy
        self.detectors = detectors
        # a seeded shuffle of the packing moves, for restarts of the quick stage
        self.rng = random.Random(shuffle_seed) if shuffle_seed is not None else None
        self.near = [[(c - t) % 13 in (1, 12) for t in range(52)] for c in range(52)]
        # cards that could ever be packed on c: one rank up or down, any suit
        self.children = [[x for x in range(52) if self.near[x][c]] for c in range(52)]

    # -- foundations ---------------------------------------------------------
    def _row_of(self, s: int, kings: bool) -> int:
        start = 4 if kings else 0
        for r in range(4):
            if self.fsuit[start + r] == s:
                return r
        return -1

    def targets(self, c: int) -> list[int]:
        """Foundations (0..7) that take card ``c`` now."""
        s, r = c // 13, c % 13 + 1
        out: list[int] = []
        fsuit, fh = self.fsuit, self.fh
        for kings in (False, True):
            start = 4 if kings else 0
            row = self._row_of(s, kings)
            if row >= 0:
                b = start + row
                h = fh[b]
                if h < 13 and r == ((13 - h) if kings else (h + 1)):
                    out.append(b)
                continue
            if r != (13 if kings else 1):
                continue
            partner = self._row_of(s, not kings)
            for rr in range(4):
                b = start + rr
                if fsuit[b] != -1:
                    continue
                if partner >= 0 and partner != rr:
                    continue
                other = fsuit[rr if kings else rr + 4]  # the other foundation of the row
                if other != -1 and other != s:
                    continue
                out.append(b)
        return out

    def safe(self, c: int) -> bool:
        """Playing ``c`` loses nothing: it is the last copy off the
        foundations and every card that could be packed on it is home."""
        home = self.home
        if home[c] != 1:
            return False
        return all(home[x] == 2 for x in self.children[c])

    # -- the model protocol --------------------------------------------------
    def won(self) -> bool:
        return self.nf == TOTAL

    def progress(self) -> int:
        return self.nf

    def dead(self) -> bool:
        return self.detectors and not self.stock and bool(corner_stones_frozen(self))

    def key(self) -> Hashable:
        if self.stock:
            return (len(self.stock), bytes(self.fsuit[k] + 1 + 8 * self.fh[k] for k in range(8)),
                    *[bytes(p) for p in self.piles])
        per_suit = [0] * 4
        for k in range(8):
            if self.fsuit[k] >= 0:
                per_suit[self.fsuit[k]] |= self.fh[k] << (4 if k >= 4 else 0)
        return (-1, bytes(per_suit), *sorted([bytes(p) for p in self.piles]))

    def snapshot(self) -> tuple[tuple[list[int], ...], list[int], list[int], list[int], list[int]]:
        return (tuple(list(p) for p in self.piles), list(self.stock), list(self.fsuit),
                list(self.fh), list(self.home))

    def restore(self, snap: tuple[tuple[list[int], ...], list[int], list[int], list[int], list[int]]) -> None:
        piles, stock, fsuit, fh, home = snap
        self.piles = [list(p) for p in piles]
        self.stock, self.fsuit, self.fh, self.home = list(stock), list(fsuit), list(fh), list(home)
        self.nf = sum(fh)

    def score(self) -> int:
        """Lower is better: foundation cards count most, then how deep the
        cards the foundations want next lie (the shallowest copy of each)."""
        want: set[int] = set()
        for s in range(4):
            a = self._height(s, False)
            k = self._height(s, True)
            if a < 13:
                want.add(s * 13 + a)  # rank a + 1
            if k < 13:
                want.add(s * 13 + 12 - k)  # rank 13 - k
        depth = {c: 99 for c in want}
        for p in self.piles:
            n = len(p)
            for d, c in enumerate(p):
                if c in depth and n - 1 - d < depth[c]:
                    depth[c] = n - 1 - d
        return -100 * self.nf + sum(min(v, 20) for v in depth.values()) + 10 * self.inversions()

    def inversions(self) -> int:
        """Pairs in one pile where the upper card can only follow the lower
        one onto the same foundation (a card's foundation is certain once one
        side of its suit has passed its rank)."""
        lo = [0] * 4  # ranks <= lo[s] can go only to the King foundation
        hi = [14] * 4  # ranks >= hi[s] can go only to the Ace foundation
        for s in range(4):
            lo[s] = self._height(s, False)
            hi[s] = 14 - self._height(s, True)
        n = 0
        for p in self.piles:
            for d in range(1, len(p)):
                x = p[d]
                s, r = x // 13, x % 13 + 1
                ace = r >= hi[s]
                king = r <= lo[s]
                if not (ace or king):
                    continue
                for y in p[:d]:
                    if y // 13 != s:
                        continue
                    ry = y % 13 + 1
                    if (ace and hi[s] <= ry < r) or (king and r < ry <= lo[s]):
                        n += 1
        return n

    def _height(self, s: int, kings: bool) -> int:
        r = self._row_of(s, kings)
        return 0 if r < 0 else self.fh[r + (4 if kings else 0)]

    def moves(self) -> list[CSMove]:
        piles = self.piles
        dealing = bool(self.stock)
        found: list[CSMove] = []
        for a, p in enumerate(piles):
            if not p:
                continue
            c = p[-1]
            for b in self.targets(c):
                if dealing:
                    feeds = self.adjacent.get(a)
                    if feeds is not None and feeds != b and self.fh[b]:
                        continue
                mv = (FND, a, b, c)
                if self.safe_moves and self.safe(c):
                    return [mv]
                found.append(mv)
        if self.greedy and found:
            return found[:1]
        if dealing:
            found.append(_DEAL)
            return found
        # after the deal an emptied pile is gone for good: try those plays last
        found.sort(key=lambda mv: len(piles[mv[1]]) == 1)
        near = self.near
        exposing: list[CSMove] = []
        other: list[CSMove] = []
        for a, p in enumerate(piles):
            if not p or (len(p) == 1 and self.prune):
                continue  # a lone card moved onto another pile only covers that pile
            c = p[-1]
            nc = near[c]
            for b, q in enumerate(piles):
                if b != a and q and nc[q[-1]]:
                    (exposing if len(p) > 1 and self.targets(p[-2]) else other).append((TAB, a, b))
        if self.rng is not None:
            self.rng.shuffle(exposing)
            self.rng.shuffle(other)
        if self.greedy:
            return exposing or other  # streamlined: only moves that uncover a foundation card, if any
        return found + exposing + other

    def do(self, m: CSMove) -> int:
        kind = m[0]
        if kind == FND:
            a, b, c = m[1], m[2], m[3]
            self.piles[a].pop()
            started = self.fh[b] == 0
            if started:
                self.fsuit[b] = c // 13
            self.fh[b] += 1
            self.home[c] += 1
            self.nf += 1
            return 1 if started else 0
        if kind == TAB:
            self.piles[m[2]].append(self.piles[m[1]].pop())
            return 0
        dealt = TOTAL - len(self.stock)
        self.piles[self.deal_piles[dealt % ROUND]].append(self.stock.pop())
        return 0

    def undo(self, m: CSMove, tok: int) -> None:
        kind = m[0]
        if kind == FND:
            a, b, c = m[1], m[2], m[3]
            self.piles[a].append(c)
            self.fh[b] -= 1
            if tok:
                self.fsuit[b] = -1
            self.home[c] -= 1
            self.nf -= 1
        elif kind == TAB:
            self.piles[m[1]].append(self.piles[m[2]].pop())
        else:
            self.stock.append(self.piles[self.deal_piles[(TOTAL - len(self.stock) - 1) % ROUND]].pop())

    def as_move(self, m: CSMove) -> Move:
        if m[0] == DEAL:
            return DEAL_ONE
        if m[0] == FND:
            return Move("move", f"t{m[1] + 1}", f"f{m[2] + 1}")
        return Move("move", f"t{m[1] + 1}", f"t{m[2] + 1}")


def corner_stones_frozen(m: CornerStonesModel) -> list[int]:
    """Corner Stones after the deal: pile cards that can never move again.

    The same least fixpoint as :func:`.cross_loss.cross_frozen`, with Corner Stones' exits:
    a foundation of the card's suit (the Ace one if every rank between its top
    and the card has a copy that can move and is not under the card; the King
    one likewise from above), or a card one rank away that is not home, not
    under it and either moves or can be uncovered where it lies. Emptied piles
    are never refilled, so there is no third exit. Foundations not yet started
    are taken as started from nothing (an over-estimate). Both copies of a card
    have the same value; mobility is kept per position, so "some copy moves"
    asks about each copy."""
    if m.stock:
        return []
    piles = m.piles
    # positions of each value: list of (pile, depth)
    where: list[list[tuple[int, int]]] = [[] for _ in range(52)]
    for pi, pile in enumerate(piles):
        for d, c in enumerate(pile):
            where[c].append((pi, d))
    mobile = [[False] * len(p) for p in piles]
    pending = [(pi, d) for pi, p in enumerate(piles) for d in range(len(p) - 1, -1, -1)]
    if not pending:
        return []
    fsuit, fh = m.fsuit, m.fh
    ace_h = [0] * 4
    king_h = [0] * 4
    for k in range(8):
        if fsuit[k] >= 0:
            if k < 4:
                ace_h[fsuit[k]] = fh[k]
            else:
                king_h[fsuit[k]] = fh[k]
    near = m.children  # near[c]: values one rank away from c (any suit)

    def copy_free(v: int, pi: int, d: int) -> bool:
        """Some copy of ``v`` can move and does not lie under (pi, d)."""
        return any(mobile[qp][qd] and not (qp == pi and qd < d) for qp, qd in where[v])

    changed = True
    while changed and pending:
        changed = False
        nxt: list[tuple[int, int]] = []
        for pi, d in pending:
            pile = piles[pi]
            if not all(mobile[pi][k] for k in range(d + 1, len(pile))):
                nxt.append((pi, d))
                continue
            x = pile[d]
            s, r = x // 13, x % 13 + 1
            ok = False
            a = ace_h[s]
            if r > a and all(copy_free(s * 13 + q - 1, pi, d) for q in range(a + 1, r)):
                ok = True
            if not ok:
                top = 13 - king_h[s]  # the King foundation's next rank
                if r <= top and all(copy_free(s * 13 + q - 1, pi, d) for q in range(r + 1, top + 1)):
                    ok = True
            if not ok:
                for y in near[x]:
                    for qp, qd in where[y]:
                        if qp == pi and qd < d:
                            continue  # under x
                        q = piles[qp]
                        if mobile[qp][qd] or all(mobile[qp][k] for k in range(qd + 1, len(q))):
                            ok = True
                            break
                    if ok:
                        break
            if ok:
                mobile[pi][d] = True
                changed = True
            else:
                nxt.append((pi, d))
        pending = nxt
    return [piles[pi][d] for pi, d in pending]
