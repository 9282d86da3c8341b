"""A sound loss test for the cross family: the tableau's capacity when a
waste card comes back to the top.

**Piles are runs.** In the cross variants whose piles build down by rank (any
suit, alternate colours) one card at a time or in runs, and where a space
takes any one card, every pile is a *run*: consecutive ranks going down from
its bottom card (with the K-on-A wrap where the variant has it). A pile that
is a run stays one under every move (a card goes only onto the top it may be
packed on, or alone into a space), so if all piles are runs when the model is
made, all are in every position the search reaches.

**The snapshot.** Take the waste, bottom ``W[0]`` to top, in the last pass
(no redeal left: the waste is a stack for good). In a won game every waste
card ``y = W[j]`` comes back to the top of the waste at some moment ``T``
(it can leave only from there, and it must leave). At ``T``:

* ``W[0..j]`` are still in the waste, in particular not on the foundations;
* of the stock, some first ``d`` cards in drawing order have been turned and
  the rest are still in the stock; the turned ones are no longer in the waste
  (they were above ``y``), so each is on a foundation or in the tableau;
* the foundations are, suit by suit, a prefix of that suit's order which
  includes what is home now and no card still in the waste or the stock; so
  every card of a suit from the first such card on (``rel >= lim``) that is
  in neither place is in the tableau (*mandatory*), while the other cards not
  yet home and not in those places may be home or in the tableau
  (*optional*);
* the tableau is at most ``tn`` runs.

So the position is lost if for some ``j`` no ``d`` admits a cover of the
mandatory cards, plus any choice of optional ones, by at most ``tn`` runs.
Counting ranks only (a relaxation: suits and colours are ignored, and so is
how the cards came to lie where they do), the fewest runs covering ``c_r``
cards of rank ``r`` is the total rise of ``c`` along the ranks, from low to
high, ``sum max(0, c_r - c_{r-1})`` (with ``c`` taken round the circle where
K goes on A, else starting from 0 below the Ace): a run is an interval of
ranks, and each run adds one rise at its lowest rank. :func:`fewest_runs`
minimises it over ``m_r <= c_r <= m_r + o_r`` exactly, so the test only ever
answers True when every way the game could reach ``T`` needs more piles than
there are: it never calls a winnable position lost.

The test reads only the waste, the stock and the foundation heights, so a
move inside the tableau cannot change its answer; the model keeps answers in
a table keyed by those (at most one entry per node searched).
"""

from __future__ import annotations

_BIG = 1 << 20


def piles_are_runs(piles: list[bytes], on: list[list[bool]]) -> bool:
    """Whether every pile is a run: each card may be packed on the one under it."""
    for p in piles:
        for k in range(1, len(p)):
            if not on[p[k]][p[k - 1]]:
                return False
    return True


def some_runs(low: list[int], extra: list[int], wrap: bool) -> int:
    """The runs of one cover (so at least :func:`fewest_runs`): each rank's
    count kept as close to the previous rank's as its bounds allow. A cheap
    first try: when it already fits, the exact minimum is not needed."""
    prev = low[12] if wrap else 0
    first = -1
    rise = 0
    for r in range(13):
        lo, hi = low[r], low[r] + extra[r]
        c = lo if prev < lo else hi if prev > hi else prev
        if r == 0:
            first = c
        elif c > prev:
            rise += c - prev
        prev = c
    if wrap:
        if first > prev:
            rise += first - prev
        return rise if rise > 0 or prev == 0 else 1
    return rise + first


def fewest_runs(low: list[int], extra: list[int], wrap: bool) -> int:
    """The fewest runs (intervals of consecutive ranks, index 0 = Ace .. 12 =
    King; the King next to the Ace when ``wrap``) that can cover ``c_r`` cards
    of each rank for some ``low[r] <= c_r <= low[r] + extra[r]``: the least
    total rise of ``c``. Exact, by dynamic programming over the ranks (at most
    four cards of a rank, so five values per rank)."""
    best = _BIG
    first = low[12] if wrap else 0
    last = low[12] + extra[12] if wrap else 0
    prev = [_BIG] * 5
    cur = [_BIG] * 5
    for start in range(first, last + 1):
        # prev[c]: the least rise so far with the current rank's count c
        for c in range(5):
            prev[c] = _BIG
        prev[start] = 0
        for r in range(13):
            lo, hi = low[r], low[r] + extra[r]
            for c in range(5):
                cur[c] = _BIG
            for c in range(lo, hi + 1):
                v = _BIG
                for pc in range(5):
                    pv = prev[pc]
                    if pv < _BIG:
                        w = pv + c - pc if c > pc else pv
                        if w < v:
                            v = w
                cur[c] = v
            prev, cur = cur, prev
        # round the circle, the King's count is the one we started from
        v = prev[start] if wrap else min(prev)
        if v < best:
            best = v
    return best


def capacity_lost(waste: list[int], stock: list[int], fcount: list[int], rel: list[int],
                  tn: int, wrap: bool) -> bool:
    """True when some waste card can never come back to the top of the waste
    with at most ``tn`` runs holding what the tableau must then hold (see the
    module text). Only for the last pass and for positions whose piles are
    runs. ``stock`` is drawn from its end; ``fcount`` is each suit's
    foundation height and ``rel[c]`` card ``c``'s place in its suit's order;
    ``wrap``: a King may go on an Ace."""
    k = len(waste)
    if k == 0:
        return False
    draw = stock[::-1]  # the stock in drawing order
    nd = len(draw)
    # where each card not yet home lies: 0..k-1 the waste, k.. the stock in
    # drawing order, -1 the tableau; cards already home are left out
    pos = [-1] * 52
    for j in range(k):
        pos[waste[j]] = j
    for i in range(nd):
        pos[draw[i]] = k + i
    out: list[int] = []
    for c in range(52):
        if fcount[c // 13] <= rel[c]:
            out.append(c)
    # the lowest place in its suit's order of a card still in the stock from
    # drawing index i on: suffix minima, per suit
    stock_lim = [[13] * 4 for _ in range(nd + 1)]
    for i in range(nd - 1, -1, -1):
        row = stock_lim[i]
        row[:] = stock_lim[i + 1]
        c = draw[i]
        if rel[c] < row[c // 13]:
            row[c // 13] = rel[c]
    waste_lim = [13] * 4
    lim = [13] * 4
    low = [0] * 13
    extra = [0] * 13
    for j in range(k):
        y = waste[j]
        if rel[y] < waste_lim[y // 13]:
            waste_lim[y // 13] = rel[y]
        feasible = False
        for d in range(nd + 1):
            srow = stock_lim[d]
            for s in range(4):
                lim[s] = waste_lim[s] if waste_lim[s] < srow[s] else srow[s]
            for r in range(13):
                low[r] = 0
                extra[r] = 0
            mandatory = 0
            for c in out:
                p = pos[c]
                if 0 <= p <= j or p >= k + d:
                    continue  # still in the waste under y, or still in the stock
                if rel[c] >= lim[c // 13]:
                    low[c % 13] += 1
                    mandatory += 1
                else:
                    extra[c % 13] += 1
            if (mandatory <= tn or some_runs(low, extra, wrap) <= tn
                    or fewest_runs(low, extra, wrap) <= tn):
                feasible = True
                break
        if not feasible:
            return True
    return False
