"""A sound loss test for the cross family: a search of the *abstract game*,
in which only the waste, the stock and the foundations are kept.

**The abstraction.** Map a position of a cross variant to the triple
(waste, stock, foundation heights). The tableau is then implied: it holds
every card that is neither home nor in the waste or the stock. Every move of
the real game maps to one of these abstract moves, or to none:

* turn a stock card onto the waste;
* the waste top home, when its suit's foundation is one below it;
* the waste top into the tableau (onto a pile or into a space);
* a tableau card home, when its suit's foundation is one below it (the card
  must lie on top of its pile in the real game; here any tableau card may go);
* a move inside the tableau changes nothing in the triple.

Only the last pass is searched (no redeal left: the waste is a stack for
good), and only for variants without automatic or compulsory fills (the
stock never goes straight into the tableau).

**The capacity check.** Where every pile is a run (see :mod:`.capacity`), a
real tableau of ``tn`` piles is at most ``tn`` runs, and the fewest runs that
can hold a multiset of cards is at least the total rise of its counts per
rank (:func:`runs_needed`). So every real position maps to a triple whose
tableau passes that check, and the abstract search keeps only such triples.

**Soundness.** Every line of the real game maps to a walk of the abstract
game through triples that pass the check, and a won position maps to the
triple with every card home. So when no abstract walk from a position's
triple reaches that triple, the position is lost. The abstract game only
ever grows the number of cards taken out of the stock and waste plus the
cards home, so its graph has no cycle and a depth-first search with a memory
decides every triple it finishes: a triple is *abstract-lost* once all its
successors are, and *open* (maybe winnable) once one of them reaches the
all-home triple. Both memories are kept for the whole search of a deal, so
the positions of the real search that share a triple (they differ only in
their tableau, typically hundreds of arrangements) cost one look-up, and an
abstract search from a shallower triple stops at every deeper one already
decided. A search that exceeds its allowance of new triples answers
"unknown" (never "lost"); the triples it finished stay decided.

The relaxation is strong where the real search spends its nodes: late in
the stock, with a long waste and a full cross, where one triple stands for
hundreds of tableau arrangements. It is weak near the root, where five runs
of any suits hold almost anything (docs/benchmarks.md, "The solver's loss proofs"): the tests there run
out of allowance, so a stock length where :data:`FAILS_IN_A_ROW` tests in a
row did is only probed every :data:`PROBE_EVERY`-th time after that.
"""

from __future__ import annotations

LOST_T, OPEN_T, UNKNOWN_T = 1, 0, -1
FAILS_IN_A_ROW = 16
PROBE_EVERY = 64


def runs_needed(counts: list[int], wrap: bool) -> int:
    """A lower bound on the runs (intervals of consecutive ranks, index 0 =
    Ace .. 12 = King, the King next to the Ace when ``wrap``) that hold
    ``counts[r]`` cards of each rank: each run adds one to the count at its
    lowest rank only, so the runs are at least the total rise of the counts
    (going up from rank to rank, round the circle when ``wrap``, else from
    zero below the Ace)."""
    prev = counts[12] if wrap else 0
    rise = 0
    for r in range(13):
        c = counts[r]
        if c > prev:
            rise += c - prev
        prev = c
    return rise


class StockBound:
    """The abstract game of one deal's last pass, with its memories.

    ``seq`` is the waste (bottom to top) followed by the stock in drawing
    order, as they are when the object is made; a triple is written as the
    set of cards taken out of ``seq`` (``removed``, a bit per card), the
    stock's length and the four foundation heights, exactly the model's own
    ``removed`` and stock length. ``rel[c]`` is card ``c``'s place in its
    suit's foundation order, ``tn`` the number of tableau piles, ``wrap``
    whether a King may go on an Ace, ``total`` the cards of the game.
    """

    def __init__(self, seq: list[int], rel: list[int], tn: int, wrap: bool, total: int,
                 allowance: int, limit: int) -> None:
        self.seq = seq
        self.n = len(seq)
        self.rel = rel
        self.tn = tn
        self.wrap = wrap
        self.total = total
        self.allowance = allowance  # new triples one call may expand
        self.limit = limit  # triples remembered in all; past it, the memories start afresh
        self.lost: set[int] = set()
        self.open: set[int] = set()
        self.tried: set[int] = set()  # triples whose search ran out of allowance
        # per stock length, searches that ran out of allowance in a row: past
        # FAILS_IN_A_ROW only every PROBE_EVERY-th triple there is searched
        # (the shallow triples of the stock phase are mostly out of reach)
        self.fails = [0] * (self.n + 1)
        self.expanded = 0  # triples expanded in all (for the figures)
        card_at = [[0] * 13 for _ in range(4)]
        for c in range(52):
            card_at[c // 13][rel[c]] = c
        self.card_at = card_at
        # home[s][h]: the cards of suit s on a foundation of height h
        self.home = [[0] * 14 for _ in range(4)]
        for s in range(4):
            acc = 0
            for h in range(14):
                self.home[s][h] = acc
                if h < 13:
                    acc |= 1 << card_at[s][h]
        # drawn[i]: cards seq[:i]; rest[i]: cards seq[i:]
        self.drawn = [0] * (self.n + 1)
        self.rest = [0] * (self.n + 1)
        for i in range(self.n):
            self.drawn[i + 1] = self.drawn[i] | 1 << seq[i]
        for i in range(self.n - 1, -1, -1):
            self.rest[i] = self.rest[i + 1] | 1 << seq[i]
        self.rank_cards = [0] * 13
        for c in range(52):
            self.rank_cards[c % 13] |= 1 << c
        self.all_cards = (1 << 52) - 1

    def fits(self, tableau: int) -> bool:
        """Whether ``tableau`` (a bit per card) passes the capacity check."""
        if tableau.bit_count() <= self.tn:
            return True
        counts = [(tableau & self.rank_cards[r]).bit_count() for r in range(13)]
        return runs_needed(counts, self.wrap) <= self.tn

    def _successors(self, removed: int, stock: int, heights: int) -> list[int] | None:
        """The triples one abstract move away, or None when one of them has
        every card home. A triple is ``removed | stock << 52 | heights << 58``
        with four bits of height per suit."""
        f = [(heights >> (4 * s)) & 15 for s in range(4)]
        home = 0
        for s in range(4):
            home |= self.home[s][f[s]]
        drawn = self.n - stock
        waste = self.drawn[drawn] & ~removed
        tableau = self.all_cards & ~home & ~waste & ~self.rest[drawn]
        nf = f[0] + f[1] + f[2] + f[3]
        out: list[int] = []
        head = removed | stock << 52
        for s in range(4):
            h = f[s]
            if h < 13:
                c = self.card_at[s][h]
                if tableau >> c & 1 and self.fits(tableau & ~(1 << c)):
                    if nf + 1 == self.total:
                        return None
                    out.append(head | (heights + (1 << (4 * s))) << 58)
        if waste:
            # the waste top is the last card of seq[:drawn] not removed
            i = drawn - 1
            seq = self.seq
            while not (waste >> seq[i]) & 1:
                i -= 1
            y = seq[i]
            top = 1 << y
            s = y // 13
            if f[s] == self.rel[y]:
                if nf + 1 == self.total:
                    return None
                out.append((removed | top) | stock << 52 | (heights + (1 << (4 * s))) << 58)
            if self.fits(tableau | top):
                out.append((removed | top) | stock << 52 | heights << 58)
        if stock:
            out.append(removed | (stock - 1) << 52 | heights << 58)
        return out

    def decide(self, removed: int, stock: int, fcount: list[int]) -> int:
        """:data:`LOST_T` when no abstract walk from this triple gets every
        card home, :data:`OPEN_T` when one does, :data:`UNKNOWN_T` when the
        allowance ran out first (now or at an earlier call for the triple),
        or when the triple's stock length is only probed and this is not a
        probe. Past ``limit`` triples remembered, the memories start afresh."""
        heights = fcount[0] | fcount[1] << 4 | fcount[2] << 8 | fcount[3] << 12
        key = removed | stock << 52 | heights << 58
        lost, opened = self.lost, self.open
        if key in lost:
            return LOST_T
        if key in opened:
            return OPEN_T
        if key in self.tried:
            return UNKNOWN_T
        fails = self.fails[stock]
        if fails >= FAILS_IN_A_ROW:
            self.fails[stock] = fails + 1
            if fails % PROBE_EVERY:
                return UNKNOWN_T
        if len(lost) + len(opened) + len(self.tried) >= self.limit:
            # forget, rather than stop: the triples still to come lie mostly
            # deeper than the root's, where a search from scratch is cheap
            lost.clear()
            opened.clear()
            self.tried.clear()
        first = self._successors(removed, stock, heights)
        if first is None:
            opened.add(key)
            return OPEN_T
        keys: list[int] = [key]
        succs: list[list[int]] = [first]
        index: list[int] = [0]
        spent = 1
        while keys:
            top = len(keys) - 1
            i = index[top]
            children = succs[top]
            if i >= len(children):
                lost.add(keys.pop())
                succs.pop()
                index.pop()
                continue
            index[top] = i + 1
            child = children[i]
            if child in lost:
                continue
            if child in opened:
                opened.update(keys)
                self.expanded += spent
                self.fails[stock] = 0
                return OPEN_T
            if spent >= self.allowance:
                self.expanded += spent
                self.tried.add(key)
                self.fails[stock] += 1
                return UNKNOWN_T
            nxt = self._successors(child & ((1 << 52) - 1), (child >> 52) & 63, child >> 58)
            spent += 1
            if nxt is None:
                opened.add(child)
                opened.update(keys)
                self.expanded += spent
                self.fails[stock] = 0
                return OPEN_T
            keys.append(child)
            succs.append(nxt)
            index.append(0)
        self.expanded += spent
        self.fails[stock] = 0
        return LOST_T
