"""A cheap proof that a position with movable foundation cards is dead, tried
before the rounds of :mod:`.deadwindow` (Les Quatre Coins: spaces are never
filled).

**The cards that can ever be on top.** Let T and D be the least sets such that
T holds every card on top of a tableau pile or of the waste; for every pile,
the card under its lowest card in T whenever that card may leave, that is may
be built on some card of T (``Rules.may_build_on``) or has the value of a card
in D (it may go home in its place); and for every foundation, its top and the
cards under it one by one while each may be built on some card of T: those
are in D and in T (taken down, they lie on the tableau). Walking the piles and
foundations down this way until nothing changes gives T in a few hundred steps.

**Claim.** If no card a foundation takes next is in T, and no suit's two
foundations can together hold 13 cards (their cards pass between them then:
each lies between its height once the cards of D have left and its start's),
then no card ever goes onto a foundation above its start: the position is
dead.

*Why.* Take any line of moves from the position, and suppose that up to some
point no foundation has risen above its start. Then up to that point every top
of every pile is in T, and every card that left a foundation is in D, by
induction over the moves: a move takes a top X (in T) from pile A onto a top Y
of pile B (in T): B's new top is X; A's new top is the card under X, either a
card moved onto A earlier, so a top before, so in T, or A's own card under X
where X is A's own card too and X left onto Y in T, so the walk went past X.
A foundation's top going onto a pile is a card the walk of that foundation
reaches (each card above it left before, onto a top in T), so in D and in T.
A card X going home from A: the foundation is below its start (not above, and
X is not the card it takes at its start, which is not in T), so X has the value
of a card that left it, in D, and the walk went past X too. The two foundations
of a suit pass cards only at 13 cards together, which they never hold (each
lies between its height once D has left and its start). So the next move cannot raise a
foundation above its start either: that takes the card it takes at its start,
on top of a pile, in T. Hence no foundation ever rises above its start, the
count never exceeds the start's, and it equals it only with every foundation
at its start, where the only card that could go home is one a foundation takes
at its start: never on top. Spaces are never filled (where they are, a space
takes any card, and this does not answer).

The test holds the claim to the search: wherever it answers, the whole-card
search finds the position dead. Where it does not answer, the rounds search.
Three dead regions of issue 16's fifth round were too large for the rounds
(131,950 positions in 1.6-2.8 s of CPU; two undecided after 30 s, one of them
with foundation tops that may be taken down); this proves them dead in well
under a millisecond.
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
    wanted = {seq[h] for seq, h in zip(seqs, heights, strict=True) if h < len(seq)}
    piles = [bytes(state.piles[i]) for i in [WASTE, *rules.tableau_range]]
    if any(c >= 52 for p in piles for c in p):
        return False  # a card numbered past one deck: the walk below asks only 0..51
    lowest = [len(p) - 1 for p in piles]  # per pile, the index of its lowest card in T
    down = heights.copy()  # per foundation, its height once every card in D has left
    on_top: set[int] = set()
    # may_leave[x]: card x may be built on some card of T, or go home (a card of D)
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
        for j, seq in enumerate(seqs):
            while down[j] and may_leave[seq[down[j] - 1]]:
                down[j] -= 1  # the top leaves: onto the tableau, and it may come home again
                todo.append(seq[down[j]])
                may_leave[seq[down[j]]] = 1
        for n, p in enumerate(piles):
            while lowest[n] > 0 and may_leave[p[lowest[n]]]:
                lowest[n] -= 1
                todo.append(p[lowest[n]])
    for j, a in enumerate(seqs):
        for k in range(j + 1, len(seqs)):
            # a foundation lies between its height once D has left and its start
            if seqs[k] == a[::-1] and down[j] + down[k] <= len(a) <= heights[j] + heights[k]:
                return False  # the pair may hold 13 cards together: cards pass between them
    return True
