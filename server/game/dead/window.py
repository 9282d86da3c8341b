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

**Rounds side by side.** A round that has noted a card can no longer answer
"dead" (its verdict would be "dead with cards noted"); it can still find a
foundation move. So the next round does not wait for it: as soon as the newest
round notes a card, a round with K and the cards it noted so far starts, and
the two take turns (``ROUND_CHUNK`` expansions each). At most two run: the
first round (the coarsest, so the quickest to find a move) and the newest; a
round in between is dropped when a newer one starts, and a round that ends
dead with cards noted leaves, a newer round with those cards starting if it
was the newest. "Dead" comes only from a round that ends with nothing noted;
"alive" from any round. K grows at every new round and is at most every card,
so the search ends. (Deal 92923005098426283025 after 1,432 moves of issue 16's
fifth round: the first round noted cards early but its region ran past 30 s of
CPU; the witness needs one of those cards, and the whole-card search meets it
in 6 positions.)

**Four orders, one search.** Within a round every position found is
queued twice, both newest first: by the fewest cards over wanted cards (the
shallowest of each pile that holds one, summed over the piles), and by more
cards home first, then that sum. A third order is depth-first: a stack of the
children of the positions it expanded itself, the best child on top: more
cards home, then the cards over *dig marks* summed (``MovableSearch.dig_marks``:
the wanted cards, and the cards the top of a pile holding a wanted card may be
built on, so a line that uncovers such a card, in any pile, goes first); among
equals the first made. The search takes its positions in turn: two from the
queues (alternately), then one from the stack. A position is expanded once,
whichever order reaches it first, and the stack's line goes on through the
positions a queue expanded first: a child the stack pushes (or keeps for it) is
the stack's, and a queue that expands one of those first keeps its children,
in the stack's order, for the stack, which takes them when it comes to that
position (past ``STASH_MAX`` such positions kept in a round, the stack expands
the position again instead). A child a queue expanded before the stack met it
is left to the queues. An empty stack restarts from the best position of the
second queue.

Why these: each order alone leaves some of the hard positions of issue 16
undecided for minutes or seconds. The whole-card search's order (more cards
home, then the single shallowest wanted card, oldest first) missed a witness
of 14 moves between piles behind a plateau of 2.3 million positions; the two
queues found most witnesses in a few hundred positions but wandered through
100,000 to millions on others (deals 65678648020803346153, 25340391595887204942,
76915210407588454569: witnesses of a take-down or two, which the stack's line
finds in tens of positions); the stack alone did not find the witness of deal
62192940386190360744 after 492 moves in 200,000 positions, which the queues
find in a few thousand (docs/benchmarks/history/rounds.md, fifth round). In the sixth round
the stack alone, with dig marks, still left 44298941923918915963 after 1,200
moves undecided after 30 s (the three orders find it in 660 positions) and
57959771711665884239 after 155 took 225,184 positions (the three orders: 141).

**The fourth order, oldest first** (the seventh round): every ``OLDEST_EVERY``-th
position a round expands is the oldest found and not yet expanded (ids count up
in the order positions are found, so it is the lowest id not expanded: a
breadth-first sweep); the three orders above share the others in their turns as
before. The three all put lines that take cards down from the foundations last
(fewer cards home), however short: 45915636978263286397 after 508 moves is
alive by 10 moves that take three foundation cards down and play four home
(a breadth-first search meets it after 1,798 positions; its last card, 3S, is
one the first round keys by its rank, so the second round finds it), and the
two rounds expanded tens of thousands of positions before it (docs/benchmarks.md);
with the sweep, 2,527 in the second round. Every third position instead of
every fourth took 31778732832141904812 after 1,571 moves from 1,217 positions
to 5,759 (every fourth: 1,438).

The stack's two changes of the sixth round: it used to drop a position a
queue had expanded first, with the part of its line below it (the queues,
newest first, take the stack's children before it, so its line was cut again
and again); and with only wanted cards counted, a line digging a pile that
holds no wanted card but the card a wanted pile's top needs was no better than
any other. Deal 90974346630347276887 after 429 moves (22 cards of one pile
moved one by one onto another, then a Ten uncovered frees a Jack over a
wanted Queen): nearly a million positions before, under a hundred now.

**Exact whatever the order.** Alive is a reached position with a known card
going home at the start's count or more, a real line of moves whichever order
found it. Dead is returned only when both queues are empty: then every position
ever found has been expanded (each was put in both queues when found, and left
them only to be expanded or because it was), so the set found is closed under
the successors: it is the whole reachable region of the round's blind game, and
none of it has the foundation move. So the positions found are the same set
whatever the order when the start is dead: a dead verdict costs the region,
once (past ``STASH_MAX``, and a second expansion per position put on the stack).

It is a generator that yields after ``slice_s`` seconds of search, like every
dead search.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator
from time import perf_counter
from typing import Final

from ..state import State
from ..variants import Rules
from ..variants.base import MovableMoves
from .bound import never_home
from .movable import BLUR0, BLUR_LATER, MovableSearch, cover_sum, key, unkey, window
from .room import room_steps


def movable_exhaust(rules: Rules, shape: MovableMoves, state: State, slice_s: float,
                    known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """:func:`.dead.exhaust` for movable foundation cards: (dead, the deciding
    round's keys). Only the first round looks keys up in ``known_dead``: its
    window depends only on the start's heights, which the caller's context
    holds, so its keys mean the same in every search of that context. A later
    round's classes are written from ``BLUR_LATER`` on, above the first
    round's: its keys (which may be remembered as dead, all exact) never equal
    a first round's key unless both name every card, i.e. the same position.
    The rounds run side by side (module docstring)."""
    floor = rules.foundation_cards(state)
    known = window(shape, [len(state.piles[i]) for i in rules.foundation_range])
    search = MovableSearch(rules, shape, state.base, floor, known, BLUR0)
    if never_home(rules, shape, state):  # proven dead without a search (deadbound.py)
        return True, {key(search.start(rules, state))}
    first = Round(search, known, round_search(search, rules, state, known_dead))
    rounds = [first]
    # the room proof (deadroom.py), once the rounds have run ROOM_AFTER chunks undecided
    room: Generator[None, None, bool] | None = None
    chunks = 0
    started = perf_counter()
    while True:
        chunks += 1
        if chunks == ROOM_AFTER:
            room = room_steps(rules, shape, state)
        if room is not None:
            try:
                next(room)
            except StopIteration as proof:
                if proof.value:
                    return True, {key(search.start(rules, state))}
                room = None
        for r in rounds.copy():
            if r not in rounds:
                continue  # dropped earlier in this turn
            try:
                next(r.steps)
            except StopIteration as done:
                dead, seen = done.value
                if not dead or not r.search.unsure:
                    return dead, seen
                newest = r is rounds[-1]
                rounds.remove(r)
                if newest:
                    rounds.append(next_round(rules, shape, state, floor, r))
                continue
            if r is rounds[-1] and r.search.unsure and not r.spawned:
                r.spawned = True
                if len(rounds) > 1 and rounds[0] is not r:
                    rounds.remove(r)  # in between now: only the first and the newest run
                rounds.append(next_round(rules, shape, state, floor, r))
            if perf_counter() - started >= slice_s:
                yield
                started = perf_counter()


class Round:
    """One round of the search: its tables (with the cards it noted), its K, its steps."""

    def __init__(self, search: MovableSearch, known: frozenset[int],
                 steps: Generator[None, None, tuple[bool, set[bytes]]]) -> None:
        self.search = search
        self.known = known
        self.steps = steps
        self.spawned = False  # a round with the cards it noted has started


def next_round(rules: Rules, shape: MovableMoves, state: State, floor: int, r: Round) -> Round:
    """A round with ``r``'s known cards and those it noted so far."""
    known = r.known | frozenset(r.search.unsure)
    search = MovableSearch(rules, shape, state.base, floor, known, BLUR_LATER)
    return Round(search, known, round_search(search, rules, state, set()))


# a queue entry is one int: (priority + PRIORITY_OFFSET) << 32 | (ID_MASK - id), so the
# smallest is the best priority, then the newest position (ids count up from 0, the start)
PRIORITY_OFFSET: Final = 1 << 20  # priorities lie above -104 * 1024 (every card home)
ID_MASK: Final = (1 << 32) - 1
# positions a round expands before the next round's turn (and a time check): well under 1 ms
ROUND_CHUNK: Final = 32
# turns of the rounds (each a chunk per round, a few ms of CPU in all) before the room
# proof of deadroom.py starts beside them, a step (one card of a pile) per turn: the many
# positions the rounds decide in a few hundred positions never pay for it
ROOM_AFTER: Final = 16
# positions whose stack children a round keeps for the stack (a list of a few ids each)
STASH_MAX: Final = 50_000
# every OLDEST_EVERY-th position a round expands is the oldest not yet expanded (the
# fourth order); the three others share the rest in their turns as before
OLDEST_EVERY: Final = 4


def entry(priority: int, ident: int) -> int:
    return ((priority + PRIORITY_OFFSET) << 32) | (ID_MASK - ident)


def ident_of(e: int) -> int:
    return ID_MASK - (e & ID_MASK)


def round_search(search: MovableSearch, rules: Rules, state: State,
                 known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """One round: (no known card goes home at the start's count or more, keys
    seen). Positions whose key is in ``known_dead`` are not entered (they are
    dead: nothing is found from them). The three orders of the module
    docstring; dead only when both queues are empty. It yields after every
    ``ROUND_CHUNK`` positions expanded. A position found gets an
    id (its index in ``keys``); the queues and the stack hold ids, and whether
    it was expanded or stacked is a byte per id."""
    start = key(search.start(rules, state))
    keys: list[bytes] = [start]
    seen: dict[bytes, int] = {start: 0}
    done = bytearray(1)
    stacked = bytearray(b"\x01")
    # newest first: wide by the cards over wanted cards, home by more cards home
    # first, then the same
    wide: list[int] = [entry(0, 0)]
    home: list[int] = [entry(0, 0)]
    # depth-first: the children of the positions it expanded, best last; among
    # equals the first made (successors' own order) last. (Ties decide much: with
    # the newest of equals on top instead, 92931714972471529876 after 618 moves took
    # 40,737 positions, not 1,416; 34345116745338649162 after 152, 1,454, not 563.)
    stack: list[int] = [0]
    # the stack's children of a position on the stack that a queue expanded
    # first (at most STASH_MAX positions: past it, the stack expands it again)
    stash: dict[int, list[int]] = {}
    turn = 0
    sweep = 0
    oldest = 0  # the oldest-first order: the lowest id not expanded (ids count in the order found)
    expanded = 0
    while wide or home:
        sweep += 1
        deep = False
        if sweep == OLDEST_EVERY:
            sweep = 0
            while oldest < len(keys) and done[oldest]:
                oldest += 1
            if oldest == len(keys):
                continue
            i = oldest
        else:
            turn += 1
            deep = turn % 3 == 0
            if deep:
                while stack and done[stack[-1]] and stack[-1] in stash:
                    stack.extend(stash.pop(stack.pop()))
                if not stack:  # restart from the best of the second queue
                    while home and done[ident_of(home[0])]:
                        heapq.heappop(home)
                    if not home:
                        continue
                    j = ident_of(heapq.heappop(home))
                    stacked[j] = 1
                    stack.append(j)
                i = stack.pop()  # if a queue expanded it already: again, for the stack's line
            else:
                heap = wide if (turn % 3 == 1 and wide) or not home else home
                i = ident_of(heapq.heappop(heap))
                if done[i]:
                    continue
        done[i] = 1
        pos = unkey(keys[i])
        found, nexts = search.successors(pos)
        if found:
            return False, set(keys)
        marks = search.wanted_marks(pos[0])
        # the stack's children: on its turn, or a queue's on a position on the stack
        own = deep or (stacked[i] and len(stash) < STASH_MAX)
        dig = search.dig_marks(pos, marks) if own else marks
        kids: list[int] = []
        for nxt in nexts:
            k = key(nxt)
            if known_dead and k in known_dead:
                continue
            j = seen.get(k, -1)
            if j >= 0 and (not own or stacked[j] or done[j]):
                continue
            if j < 0:
                over = cover_sum(nxt, marks)
                j = len(keys)
                keys.append(k)
                seen[k] = j
                done.append(0)
                stacked.append(0)
                heapq.heappush(wide, entry(over, j))
                heapq.heappush(home, entry(over - 1024 * sum(nxt[0]), j))
            if own and not stacked[j]:
                stacked[j] = 1
                best = cover_sum(nxt, dig) - 1024 * sum(nxt[0])
                kids.append(((best + PRIORITY_OFFSET) << 32) | j)
        kids.sort(reverse=True)
        if deep:
            stack.extend([e & ID_MASK for e in kids])
        elif own:
            stash[i] = [e & ID_MASK for e in kids]
        expanded += 1
        if expanded % ROUND_CHUNK == 0:
            yield
    return True, set(keys)
