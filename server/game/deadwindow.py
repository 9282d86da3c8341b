"""The dead-position search where foundation cards move, driven in rounds over
a window of known cards (see :mod:`.dead` and :mod:`.deadmovable`).

:mod:`.deadmovable` keys whole cards: a card going home is a move of one card,
so its suit matters. But in Les Quatre Coins a card's suit matters for nothing
else (the tableau builds up or down by one in any suit), and most cards are far
from any foundation: with Ace foundations at A-3 and King foundations at K-Q,
the fives to tens of every suit are interchangeable for as long as no
foundation reaches them, and keying them as themselves made plateaus of
millions of positions that differ only by the suits of such cards (deals
37871473884475188697, 967650305529529604, 38897930117519522540 of issue 16:
undecided after minutes and gigabytes).

**A round** keys by themselves only the cards of a set K (the *known* cards)
and every other card by its building class (``deadmovable.blur_table``: the
cards that may be built on, and take, the same cards). The successors are
those of the whole-card search, each card written as its key, except one kind
of move: a card of a class is never played to a foundation, even where the
foundation wants a card of that class; the search notes the wanted card
instead (``MovableSearch.unsure``). Call this the *blind* game.

* The blind game is an exact quotient of the whole-card game without those
  moves: two positions with the same key differ only by which cards of a class
  lie where, and every move left (between piles, a foundation's top to a pile
  or to its partner, a known card home) is open in one exactly when it is open
  in the other, with the same key after it: building asks only for the class
  (that is what a class is), a foundation's top is fixed by the heights (and a
  card of a class never joins a foundation, so a foundation only ever holds
  known cards or the cards it held at the start, which K includes), and a
  known card is itself in both. So the blind game's reachable keys are exactly
  the keys of the whole-card positions reachable without playing a class card
  home.
* **Alive** in the blind game (a known card home at the start's count or
  more) is alive in the whole game: the same moves, played on the cards.
* **Dead** in the blind game with nothing noted: no reachable position ever
  had a class card wanted on top, so the moves left out were never open, the
  blind game is the whole game, and the start is dead.
* **Dead with cards noted**: undecided. The next round adds the noted cards to
  K and searches again. K only grows, and with every card known the blind game
  is the whole-card search, so the rounds end, each verdict exact.

The first round's K is the window: the cards on the foundations and the next
card each one takes (``deadmovable.window``). On the 143,712-position dead
region of issue 16 (deal 67746192377353922602) the whole-card search visits
143,712 positions; the rounds visit 2,912 twice (one card noted in the first).

**Two orders, one search.** Within a round every position found is queued
twice, both newest first: by the fewest cards over wanted cards (the
shallowest of each pile that holds one, summed over the piles), and by more
cards home first, then that sum. The search takes from the two queues in turn
and expands each position once (the other queue's copy is skipped). Each order
alone leaves some of the hard positions of issue 16 undecided for minutes,
and so did the whole-card search's order (more cards home, then the single
shallowest wanted card, oldest first: behind a plateau of 2.3 million
positions it missed a witness of 14 moves between piles); the pair decides
most of them in a few hundred positions (docs/benchmarks.md, fourth round).
The positions expanded are the same set whatever the order when the start is
dead, so a dead verdict costs the region (and a second heap entry per
position).

It is a generator that yields after ``slice_s`` seconds of search, like every
dead search.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator
from time import perf_counter

from .deadmovable import BLUR0, BLUR_LATER, MovableSearch, cover_sum, key, unkey, window
from .state import State
from .variants import Rules
from .variants.base import MovableMoves


def movable_exhaust(rules: Rules, shape: MovableMoves, state: State, slice_s: float,
                    known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """:func:`.dead.exhaust` for movable foundation cards: (dead, the last
    round's keys). Only the first round looks keys up in ``known_dead``: its
    window depends only on the start's heights, which the caller's context
    holds, so its keys mean the same in every search of that context. A later
    round's classes are written from ``BLUR_LATER`` on, above the first
    round's: its keys (which may be remembered as dead, all exact) never equal
    a first round's key unless both name every card, i.e. the same position."""
    floor = rules.foundation_cards(state)
    known = window(shape, [len(state.piles[i]) for i in rules.foundation_range])
    first = True
    while True:
        search = MovableSearch(rules, shape, state.base, floor, known,
                               BLUR0 if first else BLUR_LATER)
        dead, seen = yield from two_orders(search, rules, state, slice_s,
                                           known_dead if first else set())
        if not dead or not search.unsure:
            return dead, seen
        known = known | frozenset(search.unsure)
        first = False


def two_orders(search: MovableSearch, rules: Rules, state: State, slice_s: float,
               known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """One round: (no known card goes home at the start's count or more, keys
    seen). Positions whose key is in ``known_dead`` are not entered."""
    start = key(search.start(rules, state))
    seen: set[bytes] = {start}
    done: set[bytes] = set()
    # (priority, tie, key), newest first: wide by the cards over wanted cards,
    # home by more cards home first, then the same
    wide: list[tuple[int, int, bytes]] = [(0, 0, start)]
    home: list[tuple[int, int, bytes]] = [(0, 0, start)]
    pushed = 0
    turn = False
    started = perf_counter()
    while wide or home:
        heap = wide if (turn and wide) or not home else home
        turn = not turn
        k = heapq.heappop(heap)[2]
        if k in done:
            continue
        done.add(k)
        pos = unkey(k)
        found, nexts = search.successors(pos)
        if found:
            return False, seen
        marks = search.wanted_marks(pos[0])
        for nxt in nexts:
            k = key(nxt)
            if k in seen or k in known_dead:
                continue
            seen.add(k)
            pushed += 1
            over = cover_sum(nxt, marks)
            heapq.heappush(wide, (over, -pushed, k))
            heapq.heappush(home, (over - 1024 * sum(nxt[0]), -pushed, k))
        if perf_counter() - started >= slice_s:
            yield
            started = perf_counter()
    return True, seen
