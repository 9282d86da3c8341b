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

**Cards keyed by class** (``known``, ``blur_table``): a search may key only
some cards as themselves and every other card by its building class; a card of
a class is then never played home, and where a foundation wants one whose
class shows on top the search notes it (``unsure``). :mod:`.deadwindow` runs
such searches in rounds and says why each verdict is exact. With ``known``
None every card is itself, as above.

Tests hold this to the engine: for random positions of both variants, the keys
of the successors equal those of ``legal_moves`` + ``apply`` over every split of
the position's node, and the alive answer equals the engine's.
"""

from __future__ import annotations

from typing import Final

from ..state import WASTE, State
from ..variants import Rules
from ..variants.base import MovableMoves
from .classes import shallowest

SEP = b"\xff"
# the first class byte of blur_table: above every card (0..51), well below the separator;
# BLUR_LATER for the rounds after the first (see deadwindow.py)
BLUR0: Final = 64
BLUR_LATER: Final = 128
# the wanted-card tables one search keeps (256 bytes each, one per foundation heights met)
MARKS_MAX: Final = 4_096
# the foundations' heights, the waste, the tableau piles sorted (all as bytes)
Position = tuple[bytes, bytes, list[bytes]]
# MovableSearch.options: what a foundation top gives, what the foundations take, the wanted cards by class
Options = tuple[list[tuple[int, bytes]], dict[int, list[bytes]], dict[int, list[int]]]


class MovableSearch:
    """One search's tables: which card goes on which, the foundations' sequences."""

    def __init__(self, rules: Rules, shape: MovableMoves, base: int, floor: int,
                 known: frozenset[int] | None = None, blur0: int = BLUR0) -> None:
        self.floor = floor  # the start's foundation count: a card home at this or more is progress
        self.spaces = shape.spaces
        seqs = [bytes(s) for s in shape.sequences]
        self.seqs = seqs
        self.places = list(rules.tableau_range)
        self.f0 = rules.f0
        # the cards keyed by themselves (None: all); the others by their building class
        self.table = blur_table(rules, base, known, blur0)
        reps: dict[int, int] = {}
        for c in range(52):
            reps.setdefault(self.table[c], c)
        # onto[x]: the bytes (cards or classes) byte x may be built on
        onto: list[list[int]] = [[] for _ in range(256)]
        for x, cx in reps.items():
            onto[x] = [y for y, cy in reps.items() if rules.may_build_on(cx, cy, base)]
        self.onto = onto
        # the cards a foundation wanted while they were keyed by class (see blur_table)
        self.unsure: set[int] = set()
        # foundations whose sequences are each other's reversed: one node per pair at a full suit
        partner = [-1] * len(seqs)
        for j, sj in enumerate(seqs):
            for k, sk in enumerate(seqs):
                if j != k and sk == sj[::-1]:
                    partner[j] = k
        self.pairs = [(j, partner[j]) for j in range(len(seqs)) if partner[j] > j]
        self.singles = [j for j in range(len(seqs)) if partner[j] < 0]
        self._marks: dict[bytes, bytes] = {}  # per heights, at most MARKS_MAX (cleared when full)
        # per heights, at most MARKS_MAX (cleared when full): foundation_options and the
        # wanted cards keyed by a class, by class (what successors needs of the heights)
        self._options: dict[bytes, Options] = {}

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
        table = self.table
        return (self.canon(heights), bytes(piles[WASTE]).translate(table),
                sorted(bytes(piles[i]).translate(table) for i in self.places))

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

    def options(self, heights: bytes) -> Options:
        """:meth:`foundation_options` and the wanted cards keyed by a class, by
        class, remembered per heights (a search meets few heights)."""
        known = self._options.get(heights)
        if known is None:
            if len(self._options) >= MARKS_MAX:
                self._options.clear()
            gives, takes = self.foundation_options(heights)
            table = self.table
            blurred: dict[int, list[int]] = {}
            for c in takes:
                if table[c] != c:
                    blurred.setdefault(table[c], []).append(c)
            known = self._options[heights] = (gives, takes, blurred)
        return known

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

    def dig_marks(self, pos: Position, marks: bytes) -> bytes:
        """``marks`` and, for every pile that holds a marked (wanted) card, the
        bytes its top may be built on: the cards whose coming to the top would
        let that pile be dug (the depth-first order of :mod:`.deadwindow`)."""
        _, waste, piles = pos
        table = bytearray(marks)
        onto = self.onto
        for p in [waste, *piles]:
            at = p.translate(marks).rfind(1)
            if 0 <= at < len(p) - 1:
                for y in onto[p[-1]]:
                    table[y] = 1
        return bytes(table)

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
        # blurred: a wanted card keyed by its class: seeing that class on top is unsure, never a move
        gives, takes, blurred = self.options(heights)
        table = self.table
        out: list[Position] = []
        onto = self.onto
        tops = bytearray(256)  # 1 for each byte on top of a pile
        space = -1
        for j, p in enumerate(piles):
            if p:
                tops[p[-1]] = 1
            elif space < 0:
                space = j
        spaces = self.spaces and space >= 0
        # -1 stands for the waste, 0..n-1 for the tableau piles
        for i in range(-1, len(piles)):
            src = waste if i < 0 else piles[i]
            if not src or (i > 0 and src == piles[i - 1]):
                continue  # empty, or the same pile as the last source: the same successors
            c = src[-1]
            if blurred and c in blurred:
                self.unsure.update(blurred[c])
            home = takes.get(c)
            targets = _targets(onto[c], tops, piles, i)
            if not home and not targets and not spaces:
                continue  # nowhere to go
            rest = src[:-1]
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
            c = table[c]
            targets = _targets(onto[c], tops, piles, -1)
            if spaces:
                targets.append(space)
            card = bytes((c,))
            for j in targets:
                new = piles.copy()
                new[j] = piles[j] + card
                new.sort()
                out.append((h, waste, new))
        return False, out


def window(shape: MovableMoves, heights: list[int]) -> frozenset[int]:
    """The cards each foundation holds and the next one it takes: the cards the
    first round of :mod:`.deadwindow` keys by themselves."""
    out: set[int] = set()
    for seq, h in zip(shape.sequences, heights, strict=True):
        out.update(seq[:h + 1])
    return frozenset(out)


def blur_table(rules: Rules, base: int, known: frozenset[int] | None, blur0: int = BLUR0) -> bytes:
    """A translation table: each card of ``known`` (all when None) to itself,
    each other card to its building class, ``blur0`` + the first card of the
    class, where a class is the cards that may be built on the same cards and
    take the same cards (Les Quatre Coins: a rank; simplicity-pysol: a rank and
    a colour). Classes lie above every card and below the separator."""
    table = bytearray(range(256))
    if known is None:
        return bytes(table)
    named: dict[bytes, int] = {}
    for c in range(52):
        if c not in known:
            sig = bytes([1 if rules.may_build_on(c, t, base) else 0 for t in range(52)]
                        + [1 if rules.may_build_on(t, c, base) else 0 for t in range(52)])
            table[c] = named.setdefault(sig, blur0 + c)
    return bytes(table)


def _targets(ys: list[int], tops: bytearray, piles: list[bytes], i: int) -> list[int]:
    """The piles (other than ``i``) whose top is one of ``ys`` (``tops`` marks
    the bytes on top of some pile); of equal piles, which lie side by side, one
    will do."""
    out: list[int] = []
    for y in ys:
        if not tops[y]:
            continue
        prev = b""  # no pile with a top is empty
        for j, p in enumerate(piles):
            if j != i and p and p[-1] == y and p != prev:
                out.append(j)
                prev = p
    return out


def cover(pos: Position, marks: bytes) -> int:
    """How many cards lie on the shallowest card ``marks`` marks (1,000: none)."""
    _, waste, piles = pos
    return shallowest(waste, piles, marks)


def cover_sum(pos: Position, marks: bytes) -> int:
    """How many cards lie on the shallowest card ``marks`` marks, summed over
    the waste and the piles that hold one."""
    _, waste, piles = pos
    total = 0
    for p in [waste, *piles]:
        at = p.translate(marks).rfind(1)
        if at >= 0:
            total += len(p) - 1 - at
    return total


def key(pos: Position) -> bytes:
    heights, waste, piles = pos
    return SEP.join([heights, waste, *piles])


def unkey(k: bytes) -> Position:
    """The position a key was made of (heights, waste and cards never hold the separator)."""
    parts = k.split(SEP)
    return parts[0], parts[1], parts[2:]
