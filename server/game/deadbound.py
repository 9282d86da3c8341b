"""A cheap proof that a position with movable foundation cards is dead, tried
before the rounds of :mod:`.deadwindow` (Les Quatre Coins: spaces are never
filled).

**The cards that can ever be on top.** Let T be the least set that holds every
card on top of a tableau pile or of the waste, and, for every pile, the card
under its lowest card in T whenever that card may be built on some card of T
(``Rules.may_build_on``). Walking each pile down this way until nothing changes
gives T in a few hundred steps.

**Claim.** If no card a foundation takes next is in T, no foundation's top may
be built on a card of T, and no suit's two foundations hold each rank once
(where a card may pass between them), then no card ever goes onto a foundation
again: the position is dead.

*Why.* Take any line of moves from the position. As long as no move touches a
foundation, every top of every pile is in T, by induction over the moves: a
move takes a top X (in T) from pile A onto a top Y of pile B (in T). B's new
top is X. A's new top is the card under X: either a card moved onto A earlier,
which was a top before X came, so in T; or A's own card under X where X is A's
own card too, and X left onto Y in T, so the walk down A went past X and put
that card in T. (Spaces are never filled, so nothing else moves.) Then no
foundation move is open at any point of the line: a card going home is a top
the foundation takes next, and none of those is in T; a foundation's top going
onto a pile needs a top it may be built on, and none is in T; and the two
foundations of a suit pass cards only when they hold each rank once, which
they do not. So the line never touches a foundation, and the induction holds
for all of it.

The test holds the claim to the search: wherever it answers, the whole-card
search finds the position dead. Where it does not answer, the rounds search.
Two dead regions of issue 16's fifth round were too large for the rounds
(131,950 positions in 1.6-2.8 s of CPU; over 300,000 and still going after
30 s); this proves both dead in well under a millisecond.
"""

from __future__ import annotations

from .state import WASTE, State
from .variants import Rules
from .variants.base import MovableMoves


def never_home(rules: Rules, shape: MovableMoves, state: State) -> bool:
    """Whether the claim of the module docstring proves ``state`` dead (False:
    it does not say; the search decides)."""
    if shape.spaces:
        return False  # a space may take any card: the walk does not cover it
    base = state.base
    seqs = [bytes(s) for s in shape.sequences]
    heights = [len(state.piles[i]) for i in rules.foundation_range]
    for j, a in enumerate(seqs):
        for k in range(j + 1, len(seqs)):
            if seqs[k] == a[::-1] and heights[j] + heights[k] == len(a):
                return False  # cards pass between the pair: not covered
    wanted = {seq[h] for seq, h in zip(seqs, heights, strict=True) if h < len(seq)}
    tops = [seq[h - 1] for seq, h in zip(seqs, heights, strict=True) if h]
    piles = [bytes(state.piles[i]) for i in [WASTE, *rules.tableau_range]]
    if any(c >= 52 for p in piles for c in p):
        return False  # a card numbered past one deck: the walk below asks only 0..51
    lowest = [len(p) - 1 for p in piles]  # per pile, the index of its lowest card in T
    on_top: set[int] = set()
    # may_leave[x]: card x may be built on some card of T
    may_leave = bytearray(256)
    todo = [p[-1] for p in piles if p]
    while todo:
        while todo:
            y = todo.pop()
            if y in on_top:
                continue
            if y in wanted:
                return False
            on_top.add(y)
            for x in range(52):
                if not may_leave[x] and rules.may_build_on(x, y, base):
                    may_leave[x] = 1
        for n, p in enumerate(piles):
            while lowest[n] > 0 and may_leave[p[lowest[n]]]:
                lowest[n] -= 1
                todo.append(p[lowest[n]])
    return not any(may_leave[c] for c in tops)
