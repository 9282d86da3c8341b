"""A cheap proof that a position with movable foundation cards is dead, tried
before the rounds of :mod:`.deadwindow` (Les Quatre Coins: spaces are never
filled).

**The cards that can ever be on top.** The walk below speaks of physical cards
(a second deck's copy is another card): a card *at its place* is where the
position has it; E, L and D are the least sets such that

* E holds every card on top of a tableau pile or of the waste, and the card
  under a card of L at its place;
* L (*may leave its place*) holds a card x of E whose cards above it are all in
  L, when x has the value of a card of D (it may go home in that card's place),
  or when x may be built (``Rules.may_build_on``) on a card y other than x with
  - y at its place in E, in a tableau pile other than x's, or
  - y in L or D (it may have moved) and y may be built on some card z of
    E + D other than x (y lies on z);
* D holds, for every foundation, its top and the cards under it one by one
  while each has the value of a card of D or may be built on some card of E + D
  (those are taken down: they lie on the tableau and may come home again).

T = E + D is the set of cards that can ever be on top. Walking the piles and
foundations down until nothing changes gives them in a few hundred steps.

**Claim.** If no card a foundation takes next is in T, and no suit's two
foundations can together hold 13 cards (their cards pass between them then:
each lies between its height once the cards of D have left and its start's),
then no card ever goes onto a foundation above its start: the position is
dead.

*Why.* Take any line of moves from the position, and suppose that up to some
point no foundation has risen above its start. Then up to that point every card
that has been on top of a pile is in T, every card that has left its place in a
pile is in L, and every card that has left a foundation is in D, by induction
over the moves. A move takes a top X from pile A onto a top Y of pile B:

* If X is at its place (it leaves it the first time; A's cards above it have
  left, so are in L, so X is in E), Y is not X. Either Y is at its place in B,
  so in E (B's cards above it have left), and B is not A; or Y has moved (so is
  in L or D), and lies on the card Z it was put on: Z was on top then, so is in
  T, Y may be built on Z, and Z is not X (Z is in B, X in A). Either way X is in
  L, so the card under X, A's new top, is in E.
* If X has moved before, A's new top is the card X was put on: a top before,
  so in T. B's new top is X, in T.

A foundation's top going onto a pile goes onto a top Y (in T): the walk of that
foundation passes it, so it is in D. A card X going home at its place: the
foundation is below its start (not above, and X is not the card it takes at
its start, which is not in T), so X has the value of a card that left it, in D,
and X is in L. The two foundations of a suit pass cards only at 13 cards
together, which they never hold (each lies between its height once D has left
and its start). So the next move cannot raise a foundation above its start
either: that takes the card it takes at its start, on top of a pile, in T.
Hence no foundation ever rises above its start, the count never exceeds the
start's, and it equals it only with every foundation at its start, where the
only card that could go home is one a foundation takes at its start: never on
top. Spaces are never filled (where they are, a space takes any card, and this
does not answer).

*Why the second case of L.* Without it (a card of T as a target whatever lies
under it), a King taken down from its foundation onto the only Queen on top
would let that Queen leave onto the King lying on it, and the walk would dig on
through the Queen's pile: issue 16's deal 38105972083272986699 after 569 moves,
a dead region of a quarter of a million positions the rounds had to visit.

The test holds the claim to the search: wherever it answers, the whole-card
search finds the position dead. Where it does not answer, the rounds search.
Three dead regions of issue 16's fifth round were too large for the rounds
(seconds of CPU each; two undecided after 30 s, one of them
with foundation tops that may be taken down); this proves them dead in well
under a millisecond, and the sixth round's region above (docs/benchmarks.md).
"""

from __future__ import annotations

from ..state import WASTE, State
from ..variants import Rules
from ..variants.base import MovableMoves


def never_home(rules: Rules, shape: MovableMoves, state: State) -> bool:
    """Whether the claim of the module docstring proves ``state`` dead (False:
    it does not say; the search decides)."""
    if shape.spaces:
        return False  # a space may take any card: the walk does not cover it
    base = state.base
    seqs = [bytes(s) for s in shape.sequences]
    heights = [len(state.piles[i]) for i in rules.foundation_range]
    wanted = bytearray(52)
    for seq, h in zip(seqs, heights, strict=True):
        if h < len(seq):
            wanted[seq[h]] = 1
    piles = [bytes(state.piles[i]) for i in [WASTE, *rules.tableau_range]]
    if any(c >= 52 for p in piles for c in p):
        return False  # a card numbered past one deck: the walk below asks only 0..51
    onto = [[y for y in range(52) if rules.may_build_on(x, y, base)] for x in range(52)]
    lowest = [len(p) - 1 for p in piles]  # per pile, the index of its lowest card in E
    down = heights.copy()  # per foundation, its height once every card in D has left
    on_top = [0] * 52  # per card, how many of its copies are in T = E + D
    moved = [0] * 52  # per card, how many of its copies are in L + D (may have moved)
    home = bytearray(52)  # the cards of D: one of that card may go home below the start
    for p in piles:
        if p:
            if wanted[p[-1]]:
                return False
            on_top[p[-1]] += 1
    grown = True
    while grown:
        grown = False
        for j, seq in enumerate(seqs):
            while down[j] and (home[seq[down[j] - 1]]
                               or any(on_top[y] for y in onto[seq[down[j] - 1]])):
                down[j] -= 1  # the top leaves: onto the tableau, and it may come home again
                c = seq[down[j]]
                if wanted[c]:
                    return False
                home[c] = 1
                on_top[c] += 1
                moved[c] += 1
                grown = True
        for n, p in enumerate(piles):
            while lowest[n] > 0 and leaves(p[lowest[n]], n, piles, lowest, onto, on_top, moved, home):
                moved[p[lowest[n]]] += 1
                lowest[n] -= 1
                c = p[lowest[n]]
                if wanted[c]:
                    return False
                on_top[c] += 1
                grown = True
    for j, a in enumerate(seqs):
        for k in range(j + 1, len(seqs)):
            # a foundation lies between its height once D has left and its start
            if seqs[k] == a[::-1] and down[j] + down[k] <= len(a) <= heights[j] + heights[k]:
                return False  # the pair may hold 13 cards together: cards pass between them
    return True


def leaves(x: int, n: int, piles: list[bytes], lowest: list[int], onto: list[list[int]],
            on_top: list[int], moved: list[int], home: bytearray) -> bool:
    """Whether ``x``, the lowest card of pile ``n`` in E, may leave its place
    (the module docstring's condition)."""
    if home[x]:
        return True
    for y in onto[x]:
        if not on_top[y]:
            continue
        for m in range(1, len(piles)):  # nothing is ever built on the waste (piles[0])
            if m != n and y in piles[m][lowest[m]:]:
                return True  # a y uncovered where it was dealt, in another pile
        if moved[y] and any(on_top[z] - (z == x) > 0 for z in onto[y]):
            return True  # a y that moved, lying on a card of T other than x
    return False
