"""The dead-position search where foundation cards move (see :mod:`.dead`):
simplicity-pysol and les-quatre-coins-pysol, on bytes alone.

There the foundations are not fixed (a card taken down may open play that sends
it home again and one more after it), so :mod:`.dead` keys whole cards and the
foundations' heights, and calls a position alive only when it reaches a move
that puts a card from outside the foundations onto one while they hold at least
as many cards as at the start. This module computes the same successors from
bytes, without moves or states (``Rules.movable_moves``, a ``MovableMoves``):

* a position is the foundations' heights (one byte each: a foundation holds a
  fixed sequence of cards, so its height fixes its cards), the waste and the
  tableau piles sorted, each as bytes of cards (a second deck's copy is the same
  card, as the engine has it);
* a foundation takes the next card of its sequence; its top card may go onto a
  tableau top where ``Rules.may_build_on`` allows (asked once per search for each
  pair of cards), into a space where the variant fills spaces, or onto another
  foundation whose next card it is.

**One key for a suit's two foundations when they hold each rank once**
(Les Quatre Coins: an Ace foundation up and a King foundation down in the same
suit, so each one's sequence is the other's reversed). A card passes between two
such foundations only when their heights add up to 13: the Ace foundation's top,
rank a, fits on the King foundation only when its top is rank a + 1, that is
when it holds 13 - a cards (and an empty one takes the King only from a full
partner, the Ace only likewise). At a sum of 13 every split (0 + 13 ... 13 + 0)
is reached from every other by such moves alone, which change neither the
tableau nor the count. So all fourteen splits are one node of the search: its
key writes the pair as (13, 0), and its successors are those of every split (a
card from either top to the tableau; any card of the suit from outside, which
one split or another wants). Reachability and the verdict are those of the
search over single positions: a node is reached exactly when one of its splits
is, and a position of the node reaches a card onto a foundation exactly when
some split does, at the same count. Taking rank r off either top leaves the pair
holding every rank but r, one position whichever foundation r came from; a card
from outside onto the node likewise gives one position.

Tests hold this to the engine: for random positions of both variants, the keys
of the successors equal those of ``legal_moves`` + ``apply`` over every split of
the position's node, and the alive answer equals the engine's.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator
from time import perf_counter
from typing import Final

from .deadsearch import ClassSearch, class_exhaust, shallowest
from .state import WASTE, State
from .variants import Rules
from .variants.base import ClassMoves, MovableMoves

SEP = b"\xff"
# the wanted-card tables one search keeps (256 bytes each, one per foundation heights met)
MARKS_MAX: Final = 4_096
# the foundations' heights, the waste, the tableau piles sorted (all as bytes)
Position = tuple[bytes, bytes, list[bytes]]


class MovableSearch:
    """One search's tables: which card goes on which, the foundations' sequences."""

    def __init__(self, rules: Rules, shape: MovableMoves, base: int, floor: int) -> None:
        self.floor = floor  # the start's foundation count: a card home at this or more is progress
        self.spaces = shape.spaces
        seqs = [bytes(s) for s in shape.sequences]
        self.seqs = seqs
        self.places = list(rules.tableau_range)
        self.f0 = rules.f0
        onto: list[list[int]] = [[] for _ in range(52)]
        for c in range(52):
            onto[c] = [t for t in range(52) if rules.may_build_on(c, t, base)]
        self.onto = onto
        # foundations whose sequences are each other's reversed: one node per pair at a full suit
        partner = [-1] * len(seqs)
        for j, sj in enumerate(seqs):
            for k, sk in enumerate(seqs):
                if j != k and sk == sj[::-1]:
                    partner[j] = k
        self.pairs = [(j, partner[j]) for j in range(len(seqs)) if partner[j] > j]
        self.singles = [j for j in range(len(seqs)) if partner[j] < 0]
        self._marks: dict[bytes, bytes] = {}  # per heights, at most MARKS_MAX (cleared when full)

    @staticmethod
    def fits(rules: Rules, shape: MovableMoves) -> bool:
        """Whether the shape is one this module handles exactly: a card in two
        sequences only where the two are each other's reversed."""
        owner: dict[int, bytes] = {}
        for seq in shape.sequences:
            for c in seq:
                other = owner.get(c)
                if other is not None and other != seq[::-1]:
                    return False
                owner[c] = seq
        return True

    def canon(self, heights: bytearray) -> bytes:
        """The heights with every pair at a full suit written (n, 0)."""
        seqs = self.seqs
        for j, k in self.pairs:
            if heights[j] + heights[k] == len(seqs[j]):
                heights[j], heights[k] = len(seqs[j]), 0
        return bytes(heights)

    def start(self, rules: Rules, state: State) -> Position:
        piles = state.piles
        heights = bytearray(len(piles[i]) for i in rules.foundation_range)
        return (self.canon(heights), bytes(piles[WASTE]),
                sorted(bytes(piles[i]) for i in self.places))

    def foundation_options(self, heights: bytes) -> tuple[list[tuple[int, bytes]], dict[int, list[bytes]]]:
        """(gives, takes): the cards a foundation top offers and the heights once
        it has left; the cards a foundation takes and the heights once it is on."""
        seqs = self.seqs
        gives: set[tuple[int, bytes]] = set()
        takes: dict[int, set[bytes]] = {}
        for j in self.singles:
            h, seq = heights[j], seqs[j]
            if h:
                gives.add((seq[h - 1], self._with(heights, j, h - 1)))
            if h < len(seq):
                takes.setdefault(seq[h], set()).add(self._with(heights, j, h + 1))
        for j, k in self.pairs:
            a, b, n = heights[j], heights[k], len(seqs[j])
            splits = [(x, n - x) for x in range(n + 1)] if a + b == n else [(a, b)]
            sj, sk = seqs[j], seqs[k]
            for x, y in splits:
                if x:
                    gives.add((sj[x - 1], self._with2(heights, j, x - 1, k, y)))
                if y:
                    gives.add((sk[y - 1], self._with2(heights, j, x, k, y - 1)))
                if x < n:
                    takes.setdefault(sj[x], set()).add(self._with2(heights, j, x + 1, k, y))
                if y < n:
                    takes.setdefault(sk[y], set()).add(self._with2(heights, j, x, k, y + 1))
        return sorted(gives), {c: sorted(hs) for c, hs in takes.items()}

    def wanted_marks(self, heights: bytes) -> bytes:
        """A translation table marking (1) the cards some foundation takes next."""
        known = self._marks.get(heights)
        if known is None:
            if len(self._marks) >= MARKS_MAX:
                self._marks.clear()
            table = bytearray(256)
            for c in self.foundation_options(heights)[1]:
                table[c] = 1
            known = self._marks[heights] = bytes(table)
        return known

    def _with(self, heights: bytes, j: int, h: int) -> bytes:
        new = bytearray(heights)
        new[j] = h
        return bytes(new)

    def _with2(self, heights: bytes, j: int, a: int, k: int, b: int) -> bytes:
        new = bytearray(heights)
        new[j], new[k] = a, b
        if a + b == len(self.seqs[j]):
            new[j], new[k] = a + b, 0
        return bytes(new)

    def successors(self, pos: Position) -> tuple[bool, list[Position]]:
        """(a card from outside can go onto a foundation at the start's count or
        more, the successors): the positions one move away, moves between the two
        foundations of a node left out (they stay in the node). The list stops at
        the first such card (True is returned then)."""
        heights, waste, piles = pos
        level = sum(heights) >= self.floor
        gives, takes = self.foundation_options(heights)
        out: list[Position] = []
        onto = self.onto
        by_top: dict[int, list[int]] = {}
        space = -1
        for j, p in enumerate(piles):
            if p:
                by_top.setdefault(p[-1], []).append(j)
            elif space < 0:
                space = j
        spaces = self.spaces and space >= 0
        # -1 stands for the waste, 0..n-1 for the tableau piles
        for i in range(-1, len(piles)):
            src = waste if i < 0 else piles[i]
            if not src or (i > 0 and src == piles[i - 1]):
                continue  # empty, or the same pile as the last source: the same successors
            c = src[-1]
            rest = src[:-1]
            home = takes.get(c)
            if home:
                if level:
                    return True, out
                for h in home:
                    if i < 0:
                        out.append((h, rest, piles))
                    else:
                        new = piles.copy()
                        new[i] = rest
                        new.sort()
                        out.append((h, waste, new))
            targets = _targets(onto[c], by_top, piles, i)
            if spaces and (i < 0 or rest):  # a lone card into a space is the same position
                targets.append(space)
            card = src[-1:]
            for j in targets:
                new = piles.copy()
                new[j] = piles[j] + card
                if i < 0:
                    w = rest
                else:
                    new[i] = rest
                    w = waste
                new.sort()
                out.append((heights, w, new))
        for c, h in gives:
            targets = _targets(onto[c], by_top, piles, -1)
            if spaces:
                targets.append(space)
            card = bytes((c,))
            for j in targets:
                new = piles.copy()
                new[j] = piles[j] + card
                new.sort()
                out.append((h, waste, new))
        return False, out


def _targets(ys: list[int], by_top: dict[int, list[int]], piles: list[bytes], i: int) -> list[int]:
    """The piles (other than ``i``) whose top is one of ``ys``; of equal piles,
    which lie side by side, one will do."""
    out: list[int] = []
    for y in ys:
        prev: bytes | None = None
        for j in by_top.get(y, ()):
            if j != i and piles[j] != prev:
                out.append(j)
                prev = piles[j]
    return out


def cover(pos: Position, marks: bytes) -> int:
    """How many cards lie on the shallowest card ``marks`` marks (1,000: none)."""
    _, waste, piles = pos
    return shallowest(waste, piles, marks)


def key(pos: Position) -> bytes:
    heights, waste, piles = pos
    return SEP.join([heights, waste, *piles])


def plateau(search: MovableSearch, rules: Rules, state: State, slice_s: float,
            known_dead: set[bytes]) -> Generator[None, None, tuple[bool | None, set[bytes]]]:
    """What the start's plateau decides: (True, its keys) dead, (False, keys) alive,
    (None, keys) not decided there.

    The plateau: the positions reached by moves between piles alone, where the
    foundations stand as at the start. On it the cards a foundation takes are
    fixed, and so are the cards a foundation top may be built on (a foundation's
    top may go only onto those), so the class search of :mod:`.deadsearch`
    decides exactly whether a position of the plateau shows one of these cards
    on top, every other card keyed by its rank class alone:

    * one that shows a card a foundation takes proves the start alive: the
      foundations hold the start's count there, and the card goes home;
    * where spaces are never filled (Les Quatre Coins) and neither kind ever
      shows, the plateau is all that is reachable: no card goes home, none
      leaves a foundation, the count never moves, and the start is dead (a
      region of 281,664 whole-card positions where the foundations never moved
      is such a plateau: 740 class positions);
    * otherwise the search over whole cards decides.

    The class keys begin with the separator of the empty waste, never with the
    heights the whole-card keys begin with: both kinds share a context's
    remembered dead keys without meeting."""
    heights = search.start(rules, state)[0]
    gives, takes = search.foundation_options(heights)
    shape = ClassMoves(search.spaces, search.spaces, "")
    wanted = frozenset(takes)
    home = ClassSearch(rules, shape, rules.card_classes(wanted), wanted, state.base)
    dead, seen = yield from class_exhaust(home, state, slice_s, set())
    if not dead:
        return False, seen
    if search.spaces:
        return None, seen
    flagged = set(takes)
    for c, _ in gives:
        flagged.update(search.onto[c])
    if flagged == set(takes):
        return True, seen
    either = frozenset(flagged)
    classes = ClassSearch(rules, shape, rules.card_classes(either), either, state.base)
    dead, seen = yield from class_exhaust(classes, state, slice_s, known_dead)
    return (True if dead else None), seen


def unkey(k: bytes) -> Position:
    """The position a key was made of (heights, waste and cards never hold the separator)."""
    parts = k.split(SEP)
    return parts[0], parts[1], parts[2:]


def movable_exhaust(search: MovableSearch, rules: Rules, state: State, slice_s: float,
                    known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """:func:`.dead.exhaust` for movable foundation cards: (dead, keys seen).
    Positions with more cards on the foundations go first (a card home at the
    start's count is what the search looks for), among those the ones whose
    shallowest card a foundation takes lies under the fewest cards, then the
    oldest. (On the hard positions of random Les Quatre Coins games this order
    needed a fifth of the time of the shallowest-card order alone.)"""
    verdict, keys = yield from plateau(search, rules, state, slice_s, known_dead)
    if verdict is not None:
        return verdict, keys
    first = search.start(rules, state)
    seen: set[bytes] = {key(first)}
    # the queue holds keys, not positions: a key is the position's own bytes,
    # a fifth of the memory of its parts
    heap: list[tuple[int, int, bytes]] = [(0, 0, key(first))]
    pushed = 0
    started = perf_counter()
    while heap:
        _, _, k = heapq.heappop(heap)
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
            heapq.heappush(heap, (cover(nxt, marks) - 1024 * sum(nxt[0]), pushed, k))
        if perf_counter() - started >= slice_s:
            yield
            started = perf_counter()
    return True, seen

