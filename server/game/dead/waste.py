"""A dead certificate for a one-pass waste that must be dug into the tableau
(movable foundation cards: simplicity-pysol; see :mod:`.dead`, :mod:`.deadwindow`).

**The dig.** Say every card the foundations take next (the *wanted* cards) lies
in the waste, none on the tableau, and the shallowest of them has ``depth`` >= 1
cards above it. Then the start is alive only if those ``depth`` cards can all
leave the waste onto the tableau:

* alive means the foundations come to hold more cards than at the start, so a
  card that was not on them at the start goes home. The first such card is a
  wanted card: a card of suit s other than s's wanted card needs s's wanted card
  home below it, and that would be an earlier one. So a wanted card reaches the
  top of the waste first (it is nowhere else, and the waste only gives its top);
* a card above the shallowest wanted card cannot go home before that (it is not
  wanted, and no other card has gone home), so it goes onto the tableau.

Until then the only cards that move to or from a foundation are the start's
foundation cards (a foundation's top taken down, or put back as the next card).
Call this the *dig game*: tableau moves, those foundation moves, and the dig
cards played from the waste in their order. If the dig game never places all of
them, the start is dead.

**Components.** Cards are keyed as in :mod:`.deadwindow`: the start's foundation
cards by themselves (they go home by suit), every other card by its building
class (no other card goes home in the dig game, so its suit never matters). Two
keys are linked when one may be built on the other; a *component* is a class of
linked keys among the cards in play (the tableau's, the dig cards, the start's
foundation cards). A card only ever lands on a card it may be built on, or in a
space, so when every pile starts inside one component (checked) every pile stays
inside one, and the tableau splits into one *local state* per component (its
piles), the piles in use being the sum of the local states' pile counts (at most
the number of tableau piles, P). Where building runs through rank and colour
(simplicity-pysol) a missing class (both cards of a rank and colour out of play,
e.g. deep in the waste) cuts the chain of classes, and the tableau falls into a
few independent components. Every move changes one component only: a tableau
move, a foundation card down or home (its own component), a dig card placed (its
component). The components share nothing but the piles: a move into a space
needs the pile count to stay <= P.

**The abstraction** (a Cartesian one). A *frame* is (dig cards placed, the
foundations' heights): it fixes every component's cards. For each frame g and
component i the search keeps a set Q_i(g) of *proposed* local states; the
*bound* of (g, i) is P minus, for each other component j, the least pile count
in Q_j(g); the *admitted* states S_i(g) are those of Q_i(g) whose pile count is
within the bound. The sets are closed under:

* the start's local states are in Q_i(start frame);
* a local move of component i from s in S_i(g) gives s' in Q_i(g); an event
  (a foundation card down or home, the next dig card placed) from s in S_i(g)
  gives s' in Q_i(g') for the frame g' after it;
* after an event of component i from g to g', Q_j(g') includes S_j(g) for every
  other component j (kept so as the sets grow);
* the last dig card placed (the *end*) is reached when it is placed from s in
  S_i(g) and the s' it gives is within the bound of (g, i).

Every position of the dig game, with frame g and local states s_1 .. s_n, has
s_i in S_i(g) for every i. Induction along the moves. For the start, and for a
position p' (frame g', states s'_j) one move after a position p whose states
are admitted: each s'_j is proposed in g' (the start's by the first rule; the
moved component's by the second, from its admitted state; every other's is its
state in p, admitted, so in Q_j(g') by the third rule, or already there when the
move leaves the frame as it is); so each least count of g' is at most the
count of p''s state, and since p' uses at most P piles, each s'_j is within its
bound: admitted. The end likewise: the position it gives uses at most P piles,
and its other components are those of the position before, in the sets of g.
(The bound takes the least over the proposed states, not the admitted ones: the
argument needs a set that holds the position's state *before* it is known
admitted.) The sets only grow, so the bounds only rise and a state once
admitted stays so: the closure is reached by working until nothing changes, in
any order (a proposed state over its bound waits, and is admitted when the bound
rises to it). So if the end is never reached, the dig game never places every
dig card, and the start is **dead**. Otherwise the certificate says nothing
(the abstraction forgets which local states of different components occur
together) and the search of :mod:`.deadwindow` decides.

The work is the admitted states'. A local state is interned once (an id) and
expanded once, whatever the frames that hold it: its tableau moves, a home card
leaving its top, a card placed on it are worked out the first time and shared,
so a frame only combines ids.

Measured on deal 30639130923231203594 of issue 16 after 278 moves (21 waste
cards, the two of hearts 8th from the top): the search of :mod:`.deadwindow`
visits millions of positions (docs/benchmarks.md); the position has three
components and every frame's least pile count is the sum of its components'
least counts, so the abstraction loses nothing there. The certificate proves
it dead from some thousands of local states in a small fraction of that
time (docs/benchmarks.md, "Single positions").
"""

from __future__ import annotations

from collections.abc import Generator
from time import perf_counter
from typing import Final

from ..state import STOCK, WASTE, State
from ..variants import Rules
from ..variants.base import MovableMoves
from .movable import MovableSearch

SEP = b"\xff"
# local states (all frames) after which the certificate gives up and leaves the
# verdict to the search it runs beside: a bound on its memory (docs/benchmarks.md)
DIG_STATES_MAX: Final = 400_000
# the certificate's CPU at three quarters of each two slices beside the search
# (with_dig), then half: its answer sooner, the search's at most 2/3 of it later
DIG_FIRST_S: Final = 0.25
# (dig cards placed, the foundations' heights)
Frame = tuple[int, bytes]
# the fewest piles of a set still empty: above any pile count
NO_PILES: Final = 1_000
# a work item: slot << 32 | local state id
ID_MASK: Final = (1 << 32) - 1


def dig_depth(rules: Rules, shape: MovableMoves, state: State) -> int:
    """How many cards lie on the shallowest wanted card in the waste, or -1
    where the certificate does not apply: the stock not spent, a suit's two
    foundations each other's reverse (Les Quatre Coins: cards pass between
    them), a wanted card on the tableau, or none in the waste."""
    piles = state.piles
    seqs = shape.sequences
    if piles[STOCK] or any(sj == sk[::-1] for j, sj in enumerate(seqs) for sk in seqs[j + 1:]):
        return -1
    heights = [len(piles[i]) for i in rules.foundation_range]
    wanted = {seq[h] for seq, h in zip(seqs, heights, strict=True) if h < len(seq)}
    if any(c in wanted for i in rules.tableau_range for c in piles[i]):
        return -1
    waste = piles[WASTE]
    for k in range(len(waste) - 1, -1, -1):
        if waste[k] in wanted:
            return len(waste) - 1 - k
    return -1


class Dig:
    """One certificate's tables: the keys, the components, the dig cards."""

    def __init__(self, rules: Rules, shape: MovableMoves, state: State) -> None:
        piles = state.piles
        self.heights0 = bytes(len(piles[i]) for i in rules.foundation_range)
        self.seqs = seqs = [bytes(s) for s in shape.sequences]
        waste = bytes(piles[WASTE])
        self.depth = dig_depth(rules, shape, state)
        home = frozenset(c for seq, h in zip(seqs, self.heights0, strict=True) for c in seq[:h])
        self.tables = MovableSearch(rules, shape, state.base, 0, home)
        table = self.tables.table
        self.spaces = shape.spaces
        self.piles_max = len(rules.tableau_range)
        self.tableau = [bytes(piles[i]).translate(table) for i in rules.tableau_range if piles[i]]
        # the dig cards, the waste's top first
        self.dig = [table[c] for c in reversed(waste[len(waste) - self.depth:])] if self.depth > 0 else []
        # components: keys linked by building, among the keys in play
        keys = set(b"".join(self.tableau)) | set(self.dig) | set(home)
        parent = {k: k for k in keys}

        def find(k: int) -> int:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        onto = self.tables.onto
        # fits[x]: the keys x may be built on, as bytes (a membership test in C)
        self.fits = [bytes(ys) for ys in onto]
        for x in keys:
            for y in onto[x]:
                if y in keys:
                    parent[find(x)] = find(y)
        roots = sorted({find(k) for k in keys})
        self.comp = [-1] * 256
        for k in keys:
            self.comp[k] = roots.index(find(k))
        self.ncomp = len(roots)

    def applies(self) -> bool:
        """Whether the position is a dig (see the module docstring) whose piles
        each lie inside one component."""
        if self.depth <= 0:
            return False
        comp = self.comp
        return all(len({comp[c] for c in p}) == 1 for p in self.tableau)

    def start_locals(self) -> list[bytes]:
        parts: list[list[bytes]] = [[] for _ in range(self.ncomp)]
        for p in self.tableau:
            parts[self.comp[p[0]]].append(p)
        return [SEP.join(sorted(ps)) for ps in parts]


class Closure:
    """The sets Q_i(g) (proposed) and S_i(g) (admitted) of the module
    docstring, and the work still to do.

    Local states are interned (an id per distinct state, whatever its frames)
    and expanded once: their tableau moves, a home card leaving their top and a
    card placed on them are worked out the first time they are asked for and
    then shared by every frame holding the state, so a frame only combines ids.
    Frames are interned too; a component's set in a frame is a *slot*
    (frame id * components + component), and the work list holds
    slot << 32 | local state id."""

    def __init__(self, dig: Dig) -> None:
        self.dig = dig
        self.ncomp = dig.ncomp
        # local states: key -> id, and per id its key, its pile count, its tableau moves
        self.ids: dict[bytes, int] = {}
        self.keys: list[bytes] = []
        self.npiles: list[int] = []
        self.succ: list[list[int] | None] = []
        self.placings: dict[int, list[int]] = {}  # id << 8 | card: the ids once card is placed
        self.homings: dict[int, int] = {}  # id << 8 | card: the id once card went home, or -1
        # frames: per frame id its frame, the frames its events lead to, per slot its set
        self.frame_ids: dict[Frame, int] = {}
        self.frames: list[Frame] = []
        # per slot: (card, frame after) of the events of that component, None until asked
        self.homes: list[list[tuple[int, int]] | None] = []
        self.comers: list[list[tuple[int, int]] | None] = []
        # per frame: frame after * components + component, for each event that left it
        self.inherits: list[list[int]] = []
        self.sets: list[set[int]] = []  # per slot: its proposed states (the admitted: within its bound)
        self.least: list[int] = []  # per slot: the fewest piles of its proposed states
        self.least_sum: list[int] = []  # per frame: the sum of its slots' least
        # per slot: proposed local states over its pile bound, admitted when it rises
        self.waiting: list[list[int]] = []
        # per slot: local states whose last dig card met the pile bound: expanded again when it rises
        self.blocked: list[list[int]] = []
        self.work: list[int] = []
        self.reached_end = False
        self.size = 0  # local states proposed in all frames
        self.admitted = 0  # ... and admitted: the states expanded
        self.late = 0  # ... of them admitted after waiting for their bound to rise

    def start(self) -> None:
        """The start's local states, proposed in the start frame."""
        dig = self.dig
        start = self.frame_id((0, dig.heights0))
        for i, k in enumerate(dig.start_locals()):
            self.add(start, i, self.intern(k))

    def step(self) -> None:
        """Expand the newest admitted state of the work list."""
        w = self.work.pop()
        self.expand(w >> 32, w & ID_MASK)

    def intern(self, key: bytes) -> int:
        got = self.ids.get(key)
        if got is None:
            got = len(self.keys)
            self.ids[key] = got
            self.keys.append(key)
            self.npiles.append(key.count(SEP) + 1 if key else 0)
            self.succ.append(None)
        return got

    def frame_id(self, g: Frame) -> int:
        """The id of frame g, -1 for a frame with every dig card placed."""
        if g[0] == len(self.dig.dig):
            return -1
        got = self.frame_ids.get(g)
        if got is None:
            got = len(self.frames)
            self.frame_ids[g] = got
            self.frames.append(g)
            self.inherits.append([])
            self.least_sum.append(NO_PILES * self.ncomp)
            for _ in range(self.ncomp):
                self.sets.append(set())
                self.least.append(NO_PILES)
                self.homes.append(None)
                self.comers.append(None)
                self.waiting.append([])
                self.blocked.append([])
        return got

    def bound(self, slot: int) -> int:
        """The most piles component ``slot % ncomp`` may use in frame ``slot // ncomp``."""
        return self.dig.piles_max - (self.least_sum[slot // self.ncomp] - self.least[slot])

    def add(self, f: int, i: int, k: int) -> None:
        """Propose local state k for component i in frame f: it joins the
        proposed set, and is admitted (expanded, inherited) once its pile count
        is within the bound, now or when the bound rises."""
        ncomp = self.ncomp
        slot = f * ncomp + i
        got = self.sets[slot]
        if k in got:
            return
        got.add(k)
        self.size += 1
        n = self.npiles[k]
        least = self.least
        if n < least[slot]:
            self.least_sum[f] -= least[slot] - n
            least[slot] = n
            for j in range(ncomp):  # the others' bounds rose
                if j != i:
                    self.rise(f * ncomp + j)
        if n <= self.bound(slot):
            self.admit(f, i, k)
        else:
            self.waiting[slot].append(k)

    def rise(self, slot: int) -> None:
        """The bound of ``slot`` rose: admit what now fits, expand again what met it."""
        again = self.blocked[slot]
        if again:
            self.blocked[slot] = []
            self.work.extend(slot << 32 | b for b in again)
        waiting = self.waiting[slot]
        if waiting:
            self.waiting[slot] = []
            bound = self.bound(slot)
            f = slot // self.ncomp
            i = slot - f * self.ncomp
            still: list[int] = []
            for k in waiting:
                if self.npiles[k] <= bound:
                    self.late += 1
                    self.admit(f, i, k)
                else:
                    still.append(k)
            if still:
                self.waiting[slot].extend(still)

    def admit(self, f: int, i: int, k: int) -> None:
        ncomp = self.ncomp
        self.admitted += 1
        self.work.append((f * ncomp + i) << 32 | k)
        for e in self.inherits[f]:
            if e % ncomp != i:
                self.add(e // ncomp, i, k)

    def event(self, f: int, i: int, f2: int, k: int) -> None:
        """Component i's event from frame f: its local state k in frame f2."""
        ncomp = self.ncomp
        edges = self.inherits[f]
        edge = f2 * ncomp + i
        if edge not in edges:
            edges.append(edge)
            for j in range(ncomp):
                if j != i:
                    slot = f * ncomp + j
                    bound = self.bound(slot)
                    for b in list(self.sets[slot]):
                        if self.npiles[b] <= bound:  # admitted (the others wait, and follow when admitted)
                            self.add(f2, j, b)
        self.add(f2, i, k)

    def tables(self, f: int) -> None:
        """The events of frame f per component: each start foundation card a
        foundation takes back, each card that may come to the tableau (the
        next dig card, a foundation's top), with the frame after it."""
        dig = self.dig
        ncomp = self.ncomp
        placed, heights = self.frames[f]
        homes: list[list[tuple[int, int]]] = [[] for _ in range(ncomp)]
        comers: list[list[tuple[int, int]]] = [[] for _ in range(ncomp)]
        c = dig.dig[placed]
        comers[dig.comp[c]].append((c, self.frame_id((placed + 1, heights))))
        for j, seq in enumerate(dig.seqs):
            h = heights[j]
            if h < dig.heights0[j]:
                c = seq[h]
                homes[dig.comp[c]].append((c, self.frame_id((placed, _height(heights, j, h + 1)))))
            if h:
                c = seq[h - 1]
                comers[dig.comp[c]].append((c, self.frame_id((placed, _height(heights, j, h - 1)))))
        for i in range(ncomp):
            self.homes[f * ncomp + i] = homes[i]
            self.comers[f * ncomp + i] = comers[i]

    def moves(self, k: int) -> list[int]:
        """The local states one tableau move away from ``k`` (a card onto a top
        it may be built on, or into a space): the same in every frame."""
        known = self.succ[k]
        if known is not None:
            return known
        fits = self.dig.fits
        key = self.keys[k]
        piles = key.split(SEP) if key else []
        out: list[int] = []
        for a, p in enumerate(piles):
            x = p[-1]
            rest = p[:-1]
            for b, q in enumerate(piles):
                if b != a and q[-1] in fits[x]:
                    out.append(self.intern(_join(piles, a, rest, b, q + p[-1:])))
            if rest and self.dig.spaces:
                out.append(self.intern(_join(piles, a, rest, -1, p[-1:])))
        self.succ[k] = out
        return out

    def placing(self, k: int, c: int) -> list[int]:
        """The local states once card ``c`` comes to ``k``: onto a top it may
        be built on, or into a space."""
        memo = k << 8 | c
        known = self.placings.get(memo)
        if known is not None:
            return known
        key = self.keys[k]
        piles = key.split(SEP) if key else []
        fit = self.dig.fits[c]
        card = bytes((c,))
        out = [self.intern(_join(piles, b, q + card, -1, b"")) for b, q in enumerate(piles) if q[-1] in fit]
        if self.dig.spaces:
            out.append(self.intern(_join(piles, -1, b"", -1, card)))
        self.placings[memo] = out
        return out

    def homing(self, k: int, c: int) -> int:
        """The local state once card ``c`` leaves the top of ``k`` for its
        foundation, or -1 where no top of ``k`` is ``c``."""
        memo = k << 8 | c
        known = self.homings.get(memo)
        if known is not None:
            return known
        key = self.keys[k]
        piles = key.split(SEP) if key else []
        got = -1
        for a, p in enumerate(piles):
            if p[-1] == c:
                got = self.intern(_join(piles, a, p[:-1], -1, b""))
        self.homings[memo] = got
        return got

    def expand(self, slot: int, k: int) -> None:
        ncomp = self.ncomp
        f = slot // ncomp
        i = slot - f * ncomp
        npiles = self.npiles
        for k2 in self.moves(k):
            self.add(f, i, k2)
        homes = self.homes[slot]
        comers = self.comers[slot]
        if homes is None or comers is None:
            self.tables(f)
            homes = self.homes[slot]
            comers = self.comers[slot]
            assert homes is not None and comers is not None
        # a start foundation card home again
        for c, f2 in homes:
            k2 = self.homing(k, c)
            if k2 >= 0:
                self.event(f, i, f2, k2)
        # the next dig card, a foundation's top: onto a top, or into a space
        for c, f2 in comers:
            for k2 in self.placing(k, c):
                if f2 >= 0:
                    self.event(f, i, f2, k2)
                elif npiles[k2] <= self.bound(slot):  # the last dig card placed: the end
                    self.reached_end = True
                else:
                    self.blocked[slot].append(k)


def _height(heights: bytes, f: int, h: int) -> bytes:
    new = bytearray(heights)
    new[f] = h
    return bytes(new)


def _join(piles: list[bytes], a: int, pa: bytes, b: int, pb: bytes) -> bytes:
    """The local state with pile a replaced by pa and pile b by pb (-1: pb is a
    new pile), as its key: the piles left non-empty, sorted, joined."""
    out = piles.copy()
    if a >= 0:
        out[a] = pa
    if b >= 0:
        out[b] = pb
    elif pb:
        out.append(pb)
    out = [p for p in out if p]
    out.sort()
    return SEP.join(out)


def dig_dead(rules: Rules, shape: MovableMoves, state: State, slice_s: float = 1e9,
             states_max: int = DIG_STATES_MAX) -> Generator[None, None, bool]:
    """True when the certificate proves ``state`` dead (module docstring); False
    when it does not apply or cannot tell (or gives up past ``states_max``
    local states). Yields after every ``slice_s`` seconds of work, like every
    dead search."""
    if dig_depth(rules, shape, state) <= 0:
        return False
    dig = Dig(rules, shape, state)
    if not dig.applies():
        return False
    closure = Closure(dig)
    closure.start()
    started = perf_counter()
    while closure.work:
        closure.step()
        if closure.reached_end or closure.size > states_max or len(closure.keys) > states_max:
            return False
        if perf_counter() - started >= slice_s:
            yield
            started = perf_counter()
    return True


def with_dig(rules: Rules, shape: MovableMoves, state: State, slice_s: float,
             search: Generator[None, None, tuple[bool, set[bytes]]]
             ) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """``search`` (an exact dead search: (dead, keys seen)) and the certificate
    side by side, the first to know answers ((True, no keys) when the
    certificate proves the position dead). The certificate only ever answers
    dead, and only where it proves it; the search alone answers alive. Where
    the certificate does not apply (a scan of the piles says so), the search
    runs alone.

    The share: each slice is two halves, the certificate's first. Until the
    certificate has run ``DIG_FIRST_S`` in all it takes three halves of every
    two slices (both halves of every other slice), then one of each; once it has
    ended, the search runs alone. That cannot starve a position the search
    decides: while the certificate runs its first ``DIG_FIRST_S`` the search has
    a third of that, so it has at every moment at least as much as at half
    shares less ``DIG_FIRST_S`` / 3 (its answer comes at most 2 * DIG_FIRST_S / 3
    of CPU later), and the certificate itself ends, proving or giving up, within
    ``DIG_STATES_MAX`` local states."""
    if dig_depth(rules, shape, state) <= 0:
        return (yield from search)
    half = slice_s / 2
    certificate: Generator[None, None, bool] | None = dig_dead(rules, shape, state, half)
    first = int(DIG_FIRST_S / half) if half > 0 else 0  # the certificate's half slices at the larger share
    spent = turn = 0
    while True:
        if certificate is not None:
            both = spent < first and turn % 2 == 0  # this slice is the certificate's alone
            turn += 1
            for _ in range(2 if both else 1):
                try:
                    next(certificate)
                    spent += 1
                except StopIteration as done:
                    if done.value:
                        search.close()
                        return True, set()
                    certificate = None
                    break
            if both and certificate is not None:
                yield
                continue
        try:
            next(search)
        except StopIteration as done:
            if certificate is not None:
                certificate.close()
            result: tuple[bool, set[bytes]] = done.value
            return result
        yield
