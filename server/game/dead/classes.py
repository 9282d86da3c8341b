"""The dead-position search at the level of card classes (see :mod:`.dead`).

The search of :mod:`.dead` needs, for each position, only the keys of its
successors and whether a foundation move is open. Where a variant's play with
the stock spent is described by :class:`~.variants.base.ClassMoves` (a top card
onto a top it may be built on, spaces filled from the tableau and/or the waste,
an emptied pile refilled from the waste), this module computes exactly those
from the key's own parts, without moves, states or translations per successor:

* a position is the waste and the tableau piles as bytes of card classes
  (``Rules.card_classes``), the tableau piles kept sorted, so its key is their
  join, byte for byte the key :func:`.dead.position_key` makes of the state;
* which class may go on which is read once per search from the variant's own
  ``Rules.may_build_on``, with one representative card of each class: cards of
  a class are interchangeable in the search, so any one of them answers for all;
* a foundation move is open exactly when a card some foundation wants lies on
  top of a pile or of the waste; wanted cards have classes of their own, and the
  foundations stay as they are until the first foundation move, so a class is
  wanted for the whole search. Only the piles a move changed can show a new top,
  so only they are looked at;
* four-seasons-1883 adds runs of two cards or more onto a tableau top, and its
  obligation: a pile emptied while something can fill it for good must be filled
  next, and no foundation move is open until it is (the key's last byte, as in
  :func:`.dead.key_of`).

Tests hold this to the engine: for random positions of every variant that uses
it, the successor keys equal those of ``legal_moves`` + ``apply``, and "a
foundation move is open" equals the engine's own answer.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator
from time import perf_counter

from ..state import WASTE, State
from ..variants import Rules
from ..variants.base import ClassMoves

SEP = b"\xff"
END = b""  # the key's last part: no vacancy obligation
VACANCY = b"\x01"  # or one (four-seasons-1883), as in dead.key_of
# the waste, the tableau piles sorted (each as bytes of card classes), whether a
# pile must be filled next (the 1883 rules)
Position = tuple[bytes, list[bytes], bool]


class ClassSearch:
    """One search context's tables: which class goes on which, which are wanted."""

    def __init__(self, rules: Rules, shape: ClassMoves, table: bytes, wanted: frozenset[int],
                 base: int) -> None:
        self.shape = shape
        # the shape's fields as plain attributes: read once per successor
        self.space_from_tableau = shape.space_from_tableau
        self.space_from_waste = shape.space_from_waste
        self.refill = shape.refill
        self.must_fill = shape.must_fill
        self.table = table
        reps: dict[int, int] = {}
        for card in range(52):
            reps.setdefault(table[card], card)
        wanted_class = bytearray(256)
        for card in wanted:
            wanted_class[table[card]] = 1
        self.wanted_class = bytes(wanted_class)
        # onto[x]: the classes class x may go on (none for a class no card has)
        onto: list[list[int]] = [[] for _ in range(256)]
        for x, cx in reps.items():
            onto[x] = [y for y, cy in reps.items() if rules.may_build_on(cx, cy, base)]
        self.onto = onto
        # fits[x][y] == 1 when class x may go on class y (for runs: one row per class cards have)
        empty = bytes(256)
        fits = [empty] * 256
        for x, ys in enumerate(onto):
            if ys:
                fits[x] = bytes(1 if y in ys else 0 for y in range(256))
        self.fits = fits
        self.places = list(rules.tableau_range)

    def start(self, state: State) -> Position:
        table = self.table
        return (bytes(state.piles[WASTE]).translate(table),
                sorted(bytes(state.piles[i]).translate(table) for i in self.places),
                state.vacancy >= 0)

    def open_foundation_move(self, pos: Position) -> bool:
        waste, piles, vacancy = pos
        return not vacancy and _shows_wanted(piles, waste, self.wanted_class)

    def successors(self, pos: Position) -> tuple[bool, list[Position]]:
        """(a successor has a foundation move open, the successors): the
        positions one move away, foundation moves left out, each with its
        tableau piles sorted. The list stops at the first successor with a
        wanted card on top (True is returned then)."""
        waste, piles, vacancy = pos
        if vacancy:
            return self.fills(waste, piles)
        out: list[Position] = []
        onto, wanted = self.onto, self.wanted_class
        refill, must_fill = self.refill, self.must_fill
        space_waste, space_tableau = self.space_from_waste, self.space_from_tableau
        # the piles by their top's class; one empty pile stands for all (they are equal)
        by_top: dict[int, list[int]] = {}
        space = -1
        for j, p in enumerate(piles):
            if p:
                by_top.setdefault(p[-1], []).append(j)
            elif space < 0:
                space = j
        # -1 stands for the waste, 0..n-1 for the tableau piles
        for i in range(-1, len(piles)):
            src = waste if i < 0 else piles[i]
            if not src or (i > 0 and src == piles[i - 1]):
                continue  # empty, or the same pile as the last source: the same successors
            rest = src[:-1]
            card = src[-1:]
            targets: list[int] = []
            for y in onto[src[-1]]:
                prev: bytes | None = None
                for j in by_top.get(y, ()):
                    if j != i and piles[j] != prev:  # equal piles lie side by side: one will do
                        targets.append(j)
                        prev = piles[j]
            if space >= 0 and (space_waste if i < 0 else space_tableau):
                targets.append(space)
            if targets and rest and wanted[rest[-1]] == 1:
                return True, out  # the card under the one moved goes home next, wherever it goes
            for j in targets:
                new = piles.copy()
                new[j] = piles[j] + card
                if i < 0:
                    w = rest
                else:
                    new[i] = rest
                    w = waste
                if w and refill and self.refills(new, i, rest):
                    w = _refill(new, w, i, refill == "every")
                    if _shows_wanted(new, w, wanted):
                        return True, out
                new.sort()
                out.append((w, new, must_fill and i >= 0 and not rest and _fill_source(new, w)))
        if self.shape.runs and self.runs(waste, piles, by_top, out):
            return True, out
        return False, out

    def runs(self, waste: bytes, piles: list[bytes], by_top: dict[int, list[int]],
             out: list[Position]) -> bool:
        """The 1883 rules' runs of two cards or more onto a tableau top, added to
        ``out``; True when one leaves a wanted card on top (``out`` is then cut short)."""
        fits, onto, wanted = self.fits, self.onto, self.wanted_class
        for i, src in enumerate(piles):
            if not src or (i > 0 and src == piles[i - 1]):
                continue
            n = 2
            while n <= len(src) and fits[src[-n + 1]][src[-n]] == 1:
                bottom, rest, run = src[-n], src[:-n], src[-n:]
                n += 1
                targets: list[int] = []
                for y in onto[bottom]:
                    prev: bytes | None = None
                    for j in by_top.get(y, ()):
                        if j != i and piles[j] != prev:
                            targets.append(j)
                            prev = piles[j]
                if targets and rest and wanted[rest[-1]] == 1:
                    return True
                for j in targets:
                    new = piles.copy()
                    new[j] = piles[j] + run
                    new[i] = rest
                    new.sort()
                    out.append((waste, new, self.must_fill and not rest and _fill_source(new, waste)))
        return False

    def fills(self, waste: bytes, piles: list[bytes]) -> tuple[bool, list[Position]]:
        """The 1883 obligation: the only moves put a tableau top or the waste top
        into the empty pile."""
        out: list[Position] = []
        hole = piles.index(b"")
        for i in range(-1, len(piles)):
            src = waste if i < 0 else piles[i]
            if not src or i == hole or (i > 0 and src == piles[i - 1]):
                continue
            new = piles.copy()
            new[hole] = src[-1:]
            w = waste
            if i < 0:
                w = waste[:-1]
            else:
                new[i] = src[:-1]
            vacancy = i >= 0 and len(src) == 1 and _fill_source(new, w)
            if not vacancy and _shows_wanted(new, w, self.wanted_class):
                return True, out
            new.sort()
            out.append((w, new, vacancy))
        return False, out

    def refills(self, new: list[bytes], i: int, rest: bytes) -> bool:
        """Whether the waste refills a pile after a move from ``i`` (-1: the waste)."""
        refill = self.refill
        if refill == "every":
            return any(not p for p in new)
        return refill == "source" and i >= 0 and not rest


def _refill(piles: list[bytes], waste: bytes, src: int, every: bool) -> bytes:
    """The waste's top cards into the emptied pile ``src`` (PySolFC's fillStack)
    or, with ``every``, into every empty pile in turn (Czarina's and Corners'
    refill); the waste left."""
    if not every:
        piles[src] = waste[-1:]
        return waste[:-1]
    for k in range(len(piles)):
        if not waste:
            break
        if not piles[k]:
            piles[k] = waste[-1:]
            waste = waste[:-1]
    return waste


def _fill_source(piles: list[bytes], waste: bytes) -> bool:
    """The 1883 obligation holds while something can fill the hole for good: the
    waste, or a pile of two cards or more (the stock is spent here)."""
    return bool(waste) or any(len(p) > 1 for p in piles)


def _shows_wanted(piles: list[bytes], waste: bytes, wanted: bytes) -> bool:
    return (bool(waste) and wanted[waste[-1]] == 1) or any(p and wanted[p[-1]] == 1 for p in piles)


def key(pos: Position) -> bytes:
    waste, piles, vacancy = pos
    return SEP.join([waste, *piles, VACANCY if vacancy else END])


def cover(pos: Position, marks: bytes) -> int:
    """How many cards lie on the shallowest wanted card (1,000: none)."""
    waste, piles, _ = pos
    return shallowest(waste, piles, marks)


def shallowest(waste: bytes, piles: list[bytes], marks: bytes) -> int:
    """How many cards lie on the shallowest card ``marks`` marks (1,000: none),
    in the waste and the piles, as bytes of cards or classes."""
    best = 1_000
    at = waste.translate(marks).rfind(1)
    if at >= 0:
        best = len(waste) - 1 - at
    for p in piles:
        at = p.translate(marks).rfind(1)
        if at >= 0 and len(p) - 1 - at < best:
            best = len(p) - 1 - at
    return best


def class_exhaust(search: ClassSearch, state: State, slice_s: float,
                  known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """:func:`.dead.exhaust` on class-level positions: (dead, keys seen), the
    same keys and verdict, best-first on the same measure."""
    first = search.start(state)
    seen: set[bytes] = {key(first)}
    if search.open_foundation_move(first):
        return False, seen
    marks = search.wanted_class
    heap: list[tuple[int, int, Position]] = [(0, 0, first)]
    pushed = 0
    started = perf_counter()
    while heap:
        _, _, pos = heapq.heappop(heap)
        found, nexts = search.successors(pos)
        if found:
            return False, seen
        for nxt in nexts:
            k = key(nxt)
            if k in seen or k in known_dead:
                continue
            seen.add(k)
            pushed += 1
            heapq.heappush(heap, (cover(nxt, marks), -pushed, nxt))
        if perf_counter() - started >= slice_s:
            yield
            started = perf_counter()
    return True, seen
