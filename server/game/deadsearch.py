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
  so only they are looked at.

Tests hold this to the engine: for random positions of every variant that uses
it, the successor keys equal those of ``legal_moves`` + ``apply``, and "a
foundation move is open" equals the engine's own answer.
"""

from __future__ import annotations

import heapq
from collections.abc import Generator
from time import perf_counter

from .state import WASTE, State
from .variants import Rules
from .variants.base import ClassMoves

SEP = b"\xff"
END = b""  # the key's last part: no vacancy obligation (no variant here has one)


class ClassSearch:
    """One search context's tables: which class goes on which, which are wanted."""

    def __init__(self, rules: Rules, shape: ClassMoves, table: bytes, wanted: frozenset[int],
                 base: int) -> None:
        self.shape = shape
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
        self.places = list(rules.tableau_range)

    def start(self, state: State) -> tuple[bytes, list[bytes]]:
        table = self.table
        return (bytes(state.piles[WASTE]).translate(table),
                sorted(bytes(state.piles[i]).translate(table) for i in self.places))

    def open_foundation_move(self, waste: bytes, piles: list[bytes]) -> bool:
        wanted = self.wanted_class
        return (bool(waste) and wanted[waste[-1]] == 1) or any(p and wanted[p[-1]] == 1 for p in piles)

    def successors(self, waste: bytes, piles: list[bytes]) -> tuple[bool, list[tuple[bytes, list[bytes]]]]:
        """(a successor has a foundation move open, the successors): the
        positions one move away, foundation moves left out, each with its
        tableau piles sorted. The list stops at the first successor with a
        wanted card on top (True is returned then)."""
        out: list[tuple[bytes, list[bytes]]] = []
        shape, onto, wanted = self.shape, self.onto, self.wanted_class
        refill = shape.refill
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
            if space >= 0 and (shape.space_from_waste if i < 0 else shape.space_from_tableau):
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
                out.append((w, new))
        return False, out

    def refills(self, new: list[bytes], i: int, rest: bytes) -> bool:
        """Whether the waste refills a pile after a move from ``i`` (-1: the waste)."""
        refill = self.shape.refill
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


def _shows_wanted(piles: list[bytes], waste: bytes, wanted: bytes) -> bool:
    return (bool(waste) and wanted[waste[-1]] == 1) or any(p and wanted[p[-1]] == 1 for p in piles)


def key(waste: bytes, piles: list[bytes]) -> bytes:
    return SEP.join([waste, *piles, END])


def cover(waste: bytes, piles: list[bytes], marks: bytes) -> int:
    """How many cards lie on the shallowest wanted card (1,000: none)."""
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
    waste, piles = search.start(state)
    seen: set[bytes] = {key(waste, piles)}
    if search.open_foundation_move(waste, piles):
        return False, seen
    marks = search.wanted_class
    heap: list[tuple[int, int, bytes, list[bytes]]] = [(0, 0, waste, piles)]
    pushed = 0
    started = perf_counter()
    while heap:
        _, _, w, ps = heapq.heappop(heap)
        found, nexts = search.successors(w, ps)
        if found:
            return False, seen
        for w2, ps2 in nexts:
            k = key(w2, ps2)
            if k in seen or k in known_dead:
                continue
            seen.add(k)
            pushed += 1
            heapq.heappush(heap, (cover(w2, ps2, marks), -pushed, w2, ps2))
        if perf_counter() - started >= slice_s:
            yield
            started = perf_counter()
    return True, seen
