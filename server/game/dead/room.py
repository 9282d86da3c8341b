"""A dead proof that counts the room a pile's cards need (Les Quatre Coins), for
regions the walk of :mod:`.deadbound` digs through and the rounds of
:mod:`.deadwindow` find too large.

The walk of :mod:`.deadbound` treats every card that may be on top as free at
once. Issue 16's deal 90974346630347276887 after 430 moves is dead, but the walk
digs a pile of 26 cards down to the Ten under them, and the rounds visit 773,600
positions (seconds of CPU; docs/benchmarks.md) to see that the 24 cards over the Ten cannot all find
room on the two other piles that change while a card the Ten's pile needs shows
on top. This module asks exactly that, with arithmetic on ranks.

**Places and chains.** As in :mod:`.deadbound`, a card *at its place* is where
the position has it, and the cards of a pile that are at their place are a
bottom part of it (cards leave only from the top). Every card a pile holds over
that part was put there, each onto the card under it: in Les Quatre Coins
(``Rules.may_build_on`` is a rank one up or down, no wrap, any suit; spaces are
never filled) the pile is its bottom part, then a *chain* whose cards each lie
one rank from the card under it, the first one rank from the bottom part's top.
An empty pile stays empty.

**Counting ranks.** Take piles that each hold a bottom part of k >= 1 cards and
a chain. Read each such pile from the top of its bottom part (its *base*) up as
a walk on the ranks A..K, one step per card; let n_r be the cards of rank r in
all those walks (bases included), ends_r the walks that start or end at r (a
walk of its base alone counts twice), and e_r the steps between r and r + 1.
Each card of rank r has two neighbours in its walk except at a walk's ends, so

    e_(r-1) + e_r = 2 n_r - ends_r,   e_r >= 0,   e_0 = e_K = 0 (no wrap).

And a walk covers a run of ranks with a step between each two, its base among
them: so the ranks between two ranks with no step up (e_r = 0) that hold a card
hold a base too. Given the cards, the bases and the ranks of the tops, the e_r
follow one by one from the Ace up; the tops are free. :func:`walks_fit` decides
whether some ranks of the tops, one per walk, satisfy all this with one top
among ``need``, where up to ``extra`` more cards of each rank may lie in the
walks (a dynamic programme over the ranks: the steps so far, the tops used,
whether one was in ``need``, whether the ranks since the last rank with no step
up hold a base, a card).

**Claim.** Let P be a tableau pile and o the card at index q >= 1 of P. Run the
walk of :mod:`.deadbound` with P dug no lower than o (the card under o is never
in E): E', L', D', and down_j, foundation j's height once the cards of D' have
left it. Suppose that

1. the stock and the waste are empty (nothing reaches the waste), no card a
   foundation takes next is in T' = E' + D', and no suit's two foundations
   can together hold 13 cards (the conditions of :mod:`.deadbound`'s claim);
2. for every choice of k_p for the other piles p, from the least its walk
   allows (``lowest`` + 1, or 0 where its lowest card may leave too) to its
   length, the cards that have left their place (each p's above k_p, P's above
   o), with up to all the cards of D' (a foundation's cards from down_j to its
   height), cannot lie in chains on the piles with k_p >= 1 with a top one rank
   from o: :func:`walks_fit` is false;
3. and where a card of D' has o's value (o may go home below its start), the
   same with that card among the chains' cards, whatever the tops.

Then the position is dead.

*Why.* Take a line of moves, and the first move that either puts a card onto
a foundation above its start or takes o from its place. Before it, o is at its
place, so the card under o has never been on top, and the induction of
:mod:`.deadbound` holds with P dug no lower than o: every top was in T', every
card that left its place is in L', every card that left a foundation is in D',
and foundation j lies between down_j and its start, holding the first cards of
its sequence. That move cannot raise a foundation above its start: the card
would be the one it takes at its start, on top, in T'. So it takes o from its
place: onto the top of another pile, or home to a foundation below its start
(at its start it would rise above it), whose next card is then a card of D'
with o's value, off its foundation. Just before it, P is its cards up to o,
at their place; every other pile p is a bottom part of k_p cards (k_p within
the range of 2: a card that left its place is in L') with a chain over it, or
empty; the tableau holds its cards at the start less those now on foundations,
plus the foundations' cards now off them: by ranks, the cards that left their
place plus, per foundation j at height h, its cards from h to its start's
height, h >= down_j (each card is somewhere: nothing reaches the waste); so
the chains hold the cards that left their place and some cards of D' (among
them, if o goes home, the one with o's value); and if o goes onto a pile, it
may be built on that pile's top. That is a choice of 2 for which
:func:`walks_fit` holds, or of 3: excluded. So in no line does a foundation
rise above its start or o leave its place; the count never exceeds the start's
and equals it only with every foundation at its start, where the only card
that could go home is one a foundation takes at its start, never on top: dead.

The proof is tried for each pile and each depth, the walk grown as P is dug one
card deeper (it only grows); a choice of bottom parts is counted only when the
piles that may change allow at most ``CHOICES_MAX`` of them. The tests hold it
to the whole-card search (wherever it answers, the position is dead) and keep
430 (dead, proved here) beside 429 (alive: one more card, on the third pile,
gives the room).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Final

from ..state import STOCK, WASTE, State
from ..variants import Rules
from ..variants.base import MovableMoves
from .bound import leaves

# the most choices of bottom parts one (pile, depth) is counted for (each a few hundred steps)
CHOICES_MAX: Final = 256
# whether ranks alone build, per (variant, base): a variant has one base or thirteen
RANKS_MAX: Final = 64
_RANKS: dict[tuple[str, int], bool] = {}


def room_dead(rules: Rules, shape: MovableMoves, state: State) -> bool:
    """Whether the claim of the module docstring proves ``state`` dead (False:
    it does not say)."""
    steps = room_steps(rules, shape, state)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return bool(done.value)


def room_steps(rules: Rules, shape: MovableMoves, state: State) -> Generator[None, None, bool]:
    """:func:`room_dead`, yielding after each card tried (a card costs up to a
    few milliseconds of CPU compiled, most far less)."""
    if shape.spaces or state.piles[STOCK] or state.piles[WASTE]:
        return False
    if not _ranks_build(rules, state.variant, state.base):
        return False
    piles = [bytes(state.piles[i]) for i in [WASTE, *rules.tableau_range]]
    if any(c >= 52 for p in piles for c in p):
        return False
    onto = [[y for y in range(52) if rules.may_build_on(x, y, state.base)] for x in range(52)]
    walk = _Walk([bytes(q) for q in shape.sequences],
                 [len(state.piles[i]) for i in rules.foundation_range], piles, onto)
    if walk.wanted_on_top():
        return False
    for n in range(1, len(piles)):
        if len(piles[n]) >= 2:
            if (yield from _pile_proves(walk, piles, n)):
                return True
            yield
    return False


def _pile_proves(base: _Walk, piles: list[bytes], n: int) -> Generator[None, None, bool]:
    """Whether some card of pile ``n`` (above its lowest) never leaves its place
    by the claim: the walk grown one card deeper into ``n`` at a time (it
    yields after each card tried)."""
    walk = base.copy()
    p = piles[n]
    for q in range(len(p) - 1, 0, -1):
        walk.clamp[n] = q
        if not walk.grow():
            return False  # a wanted card on top, or the pair condition: deeper only worse
        if walk.lowest[n] > q:
            return False  # o is never on top: the walk cannot dig to it at all
        if not _may_leave(walk, piles, n, q):
            return True
        yield
    return False


def _may_leave(walk: _Walk, piles: list[bytes], n: int, q: int) -> bool:
    """Whether some choice of bottom parts lets the card at index ``q`` of pile
    ``n`` leave its place (2 of the claim; True also where too many choices)."""
    o = piles[n][q]
    ranges: list[tuple[int, int]] = []  # per other pile: (least k, its length)
    count = 1
    for m in range(1, len(piles)):
        if m == n or not piles[m]:
            continue
        low = walk.lowest[m]
        least = 0 if low == 0 and walk.leaves_at(m, 0) else low + 1
        ranges.append((m, least))
        count *= len(piles[m]) - least + 1
    if count > CHOICES_MAX:
        return True
    need = [0] * 13
    for r in (o % 13 - 1, o % 13 + 1):
        if 0 <= r < 13:
            need[r] = 1
    pool = [0] * 13  # the cards that left their place in every choice: P's above o
    for c in piles[n][q + 1:]:
        pool[c % 13] += 1
    home = o % 13 if walk.home[o] else -1  # o may go home below its start (3 of the claim)
    return _any_choice(piles, ranges, 0, pool, [0] * 13, 0, need, walk.taken_down(), home)


def _any_choice(piles: list[bytes], ranges: list[tuple[int, int]], i: int, cards: list[int],
                bases: list[int], walks: int, need: list[int], extra: list[int], home: int) -> bool:
    """Whether some bottom parts of the piles ``ranges[i:]`` make the walks fit:
    with a top in ``need``, or (``home``, a rank, >= 0) with a card of that rank
    taken from ``extra`` into the walks, any tops."""
    if i == len(ranges):
        if walks == 0:
            return False
        if walks_fit(cards, bases, walks, need, extra):
            return True
        if home < 0:
            return False
        forced, fewer = cards.copy(), extra.copy()
        forced[home] += 1
        fewer[home] -= 1
        return walks_fit(forced, bases, walks, [1] * 13, fewer)
    m, least = ranges[i]
    p = piles[m]
    for k in range(len(p), least - 1, -1):
        c = cards.copy()
        b = bases.copy()
        for x in p[k:]:
            c[x % 13] += 1
        w = walks
        if k:
            top = p[k - 1] % 13
            c[top] += 1  # the base is a card of its walk
            b[top] += 1
            w += 1
        if _any_choice(piles, ranges, i + 1, c, b, w, need, extra, home):
            return True
    return False


def walks_fit(cards: list[int], bases: list[int], walks: int, need: list[int],
              extra: list[int] | None = None) -> bool:
    """Whether ``walks`` walks on the ranks 0..12 (a step is one rank up or
    down), starting at the ``bases`` (a count per rank) and holding the
    ``cards`` (a count per rank, bases included) and up to ``extra`` more (a
    count per rank: foundation cards that may be on the tableau), can satisfy
    the degree equations of the module docstring with their free ends (tops) at
    some ranks, one of them where ``need`` is 1."""
    # a state: (steps between rank r - 1 and r, tops placed so far, a top in need, the
    # ranks since the last rank with no step up hold a base, hold a card)
    states: set[tuple[int, int, int, int, int]] = {(0, 0, 0, 0, 0)}
    for r in range(13):
        nxt: set[tuple[int, int, int, int, int]] = set()
        more = extra[r] if extra is not None else 0
        for e, used, hit, based, held in states:
            for x in range(more + 1):
                room = 2 * (cards[r] + x) - bases[r]
                b = 1 if based or bases[r] else 0
                h = 1 if held or cards[r] + x else 0
                for t in range(walks - used + 1):
                    left = room - t - e  # the steps between r and r + 1
                    if left < 0:
                        break
                    hit2 = 1 if hit or (t and need[r]) else 0
                    if left:
                        nxt.add((left, used + t, hit2, b, h))
                    elif b or not h:  # the walks through these ranks end here: one has a base
                        nxt.add((0, used + t, hit2, 0, 0))
        states = nxt
        if not states:
            return False
    return (0, walks, 1, 0, 0) in states


def _ranks_build(rules: Rules, variant: str, base: int) -> bool:
    """Whether a card may be built on another exactly when their ranks differ
    by one (no wrap), whatever the suits: what the chains of the claim assume
    (remembered per variant and base, at most ``RANKS_MAX`` of them)."""
    known = _RANKS.get((variant, base))
    if known is None:
        if len(_RANKS) >= RANKS_MAX:
            _RANKS.clear()
        known = _RANKS[(variant, base)] = all(
            rules.may_build_on(x, y, base) == (abs(x % 13 - y % 13) == 1)
            for x in range(52) for y in range(52))
    return known


class _Walk:
    """The walk of :mod:`.deadbound`, every set grown to its end (no early
    answer), with a pile dug no lower than ``clamp`` (the claim's P)."""

    def __init__(self, seqs: list[bytes], heights: list[int], piles: list[bytes],
                 onto: list[list[int]]) -> None:
        self.seqs = seqs
        self.heights = heights
        wanted = bytearray(52)
        for seq, h in zip(seqs, heights, strict=True):
            if h < len(seq):
                wanted[seq[h]] = 1
        self.wanted = wanted
        self.piles = piles
        self.onto = onto
        self.lowest = [len(p) - 1 for p in piles]
        self.clamp = [0] * len(piles)
        self.on_top = [0] * 52
        self.moved = [0] * 52
        self.home = bytearray(52)  # the values of D's cards
        self.down = heights.copy()  # per foundation, its height once every card of D has left
        for p in piles:
            if p:
                self.on_top[p[-1]] += 1

    def copy(self) -> _Walk:
        new = _Walk(self.seqs, self.heights, self.piles, self.onto)
        new.lowest, new.clamp, new.down = self.lowest.copy(), self.clamp.copy(), self.down.copy()
        new.on_top, new.moved, new.home = self.on_top.copy(), self.moved.copy(), bytearray(self.home)
        return new

    def wanted_on_top(self) -> bool:
        return any(self.on_top[c] and self.wanted[c] for c in range(52))

    def leaves_at(self, m: int, at: int) -> bool:
        return leaves(self.piles[m][at], m, self.piles, self.lowest, self.onto,
                      self.on_top, self.moved, self.home)

    def grow(self) -> bool:
        """Grow E, L and D to their fixpoint as :mod:`.deadbound` does; False as
        soon as a wanted card is in T or a suit's two foundations may hold 13
        cards together (the claim's condition 1 fails)."""
        seqs, piles, onto, down = self.seqs, self.piles, self.onto, self.down
        grown = True
        while grown:
            grown = False
            for j, seq in enumerate(seqs):
                while down[j] and (self.home[seq[down[j] - 1]]
                                   or any(self.on_top[y] for y in onto[seq[down[j] - 1]])):
                    down[j] -= 1  # the top leaves: onto the tableau, and it may come home again
                    c = seq[down[j]]
                    if self.wanted[c]:
                        return False
                    self.home[c] = 1
                    self.on_top[c] += 1
                    self.moved[c] += 1
                    grown = True
            for n, p in enumerate(piles):
                while self.lowest[n] > self.clamp[n] and self.leaves_at(n, self.lowest[n]):
                    self.moved[p[self.lowest[n]]] += 1
                    self.lowest[n] -= 1
                    c = p[self.lowest[n]]
                    if self.wanted[c]:
                        return False
                    self.on_top[c] += 1
                    grown = True
        for j, a in enumerate(seqs):
            for k in range(j + 1, len(seqs)):
                if seqs[k] == a[::-1] and down[j] + down[k] <= len(a) <= self.heights[j] + self.heights[k]:
                    return False  # the pair may hold 13 cards together: cards pass between them
        return True

    def taken_down(self) -> list[int]:
        """Per rank, the cards of D: the most that may lie on the tableau, off
        their foundations (each foundation lies between ``down`` and its start)."""
        out = [0] * 13
        for j, seq in enumerate(self.seqs):
            for c in seq[self.down[j]:self.heights[j]]:
                out[c % 13] += 1
        return out
