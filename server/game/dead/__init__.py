"""The dead-position rule (rules 1.3): a game is dead when no sequence of moves
can put another card on a foundation. Decided exactly, never by a cap.

Only positions where the stock can bring nothing new and no foundation move is
open come here. From such a position nothing reaches a foundation until the
first foundation move, so the foundations stay as they are during the whole
search and the cards they would take now (``Rules.foundation_wants``) are the
only goals: the position is alive exactly when some reachable position shows one
of them on top of a pile or of the waste.

The search is exhaustive and memoised. Its key forgets what cannot matter
before the first foundation move: which tableau pile is which (they are sorted),
and which card is which beyond its class (``Rules.card_classes``: rank, colour
where building needs it, wanted or not), so the four cards of a rank that no
foundation wants are interchangeable. It is best-first: positions whose shallowest
wanted card lies under the fewest cards are expanded first. Among equals the class
search (:mod:`.deadsearch`) takes the newest first, so it follows one line down a
plateau of equal positions instead of sweeping it breadth-first (on a Corner Stones
line that took alive answers from tens of thousands of positions to tens); the search on the
engine's moves below keeps the oldest first (where foundation cards move, newest
first is untried). An alive position usually finds its foundation move in a few
dozen positions; a dead one costs the size of its region whatever the order.

Moves that take a card back off a foundation (Fortune's Favor keeps PySolFC's
movable foundation cards) are left out of the search, and the foundations
still stay fixed. That is exact because such a move never helps: in a
one-deck game whose foundations build up in suit, the card taken back, X, can
take on the tableau only the card one below it in its suit, which is on the
foundation under X, so no tableau card can ever be moved onto X; and X covers
a pile top or fills a space, which only takes options away. Every line that
raises the foundations again therefore has a counterpart without those moves
(drop them, and the moves that only put their cards back). A family where this
argument fails says so (``VariantSpec.foundation_moves``, below), and there
the search plays those moves.

Where a foundation's top card may leave it again (``VariantSpec.foundation_moves``:
simplicity-pysol, les-quatre-coins-pysol) the foundations are not fixed: a card
taken back may uncover play that puts it home again and one more card after it.
There the search keeps the foundations in its key (their heights: a foundation's
cards follow from its height), plays foundation-to-pile and foundation-to-foundation
moves like any other, and calls a position alive only when it reaches a move that
puts a card from outside the foundations onto one while the foundations hold at
least as many cards as at the start: the count can then exceed the start's. Cards
taken down and played back only restore it. That search runs on bytes
(:mod:`.deadmovable`, ``Rules.movable_moves``), keys a suit's two foundations as
one node when they hold each rank once (Les Quatre Coins), and runs in rounds
(:mod:`.deadwindow`): the cards on the foundations and the next each one takes are
keyed as themselves, every other card by its building class, a class card wanted
home is noted instead of played, and a round that noted one is searched again with
those cards known, so each verdict is the whole-card search's: see those modules.
Before the rounds a cheap proof is tried (:mod:`.deadbound`: no card a foundation
wants at the start can ever come to the top of a pile, foundation tops that may be
taken down included).
Once the rounds have run a few turns undecided, a second proof runs beside them
(:mod:`.deadroom`: a card a pile must lose first finds no top to go on, by the
ranks of the cards that would have to lie on the other piles then).
Beside the rounds (three quarters of the slices at first, then half: ``with_dig``),
a position whose wanted cards all lie in the waste, none on the tableau, is tried
by a certificate (:mod:`.deadwaste`): it is alive only if the cards above the
shallowest wanted card can all be dug into the tableau, and an abstraction that
splits the tableau into the components building links may prove that they cannot
(dead); whichever knows first answers.

Where a variant's play with the stock spent fits ``Rules.class_moves`` the same
search runs on class bytes alone (:mod:`.deadsearch`): the same keys, the same
verdicts, successors made without moves or states.

It is a generator that yields whenever it has run for ``slice_s`` seconds, so a
server can let other players' work run in between; it has no position cap, so
"undecided" only ever means "not finished yet".
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Generator
from time import perf_counter
from typing import Final

from ..moves import Move
from ..state import State
from ..variants import RULES, Rules
from .classes import ClassSearch, class_exhaust
from .movable import MovableSearch
from .waste import with_dig
from .window import movable_exhaust

# Seconds of search between two yields: short enough that other players'
# moves wait at most this long, long enough that yielding costs little.
SLICE_S: Final = 0.004

# Remembered verdicts, so a player moving around inside a dead region pays for
# one search, not one per move, and asking twice costs nothing.
# * _DEAD_KEYS: per search context (variant, base, wanted cards: what the class
#   table depends on), the keys of positions proven dead. A search that exhausts
#   a region without a foundation move proves every position in it dead. At
#   most DEAD_KEYS_MAX keys in all; a region that does not fit pushes out the
#   least recently used contexts, oldest first, until it does.
# * _VERDICTS: searched start positions and their verdicts (True: dead), at most
#   VERDICTS_MAX entries; full, the least recently used one goes for each new one.
# Both only ever hold exact verdicts: there is no "gave up" to remember. Neither
# is ever emptied at once, so the memory levels off where the bounds put it and
# the hit rate stays (the bounds, from what each size saves: docs/benchmarks.md).
# A dead verdict ends its game, so a proven region is rarely entered again: the
# key store is kept small, for the searches of one deal that do meet one.
# The bounds are module variables, not constants (compiled, a constant is fixed):
# set_cache_limits changes them, for the bench that measures them.
Context = tuple[str, int, frozenset[int], bytes]
_DEAD_KEYS: OrderedDict[Context, set[bytes]] = OrderedDict()
_dead_key_count = [0]
_VERDICTS: OrderedDict[State, bool] = OrderedDict()
DEAD_KEYS_MAX: Final = 20_000
VERDICTS_MAX: Final = 1_024
_limits = [VERDICTS_MAX, DEAD_KEYS_MAX]  # [verdicts, dead keys], as set_cache_limits left them


def set_cache_limits(verdicts: int = VERDICTS_MAX, dead_keys: int = DEAD_KEYS_MAX) -> None:
    """Bound the remembered verdicts anew (the defaults: the server's bounds);
    what no longer fits goes, least recently used first."""
    _limits[0], _limits[1] = verdicts, dead_keys
    while len(_VERDICTS) > verdicts:
        _VERDICTS.popitem(last=False)
    _make_room(0)


def cache_sizes() -> tuple[int, int]:
    """(verdicts remembered, proven-dead keys remembered)."""
    return len(_VERDICTS), _dead_key_count[0]


def known_verdict(state: State) -> bool | None:
    """What earlier searches proved about ``state``: dead, alive, or None."""
    known = _VERDICTS.get(state)
    if known is not None:
        _VERDICTS.move_to_end(state)
    return known


def position_key(state: State, places: list[int], table: bytes, fixed: int = 1) -> bytes:
    """The first ``fixed`` places in order (the waste; Florentine's centre too),
    then the other places (interchangeable tableau piles) sorted, each card
    replaced by its class, and whether a vacancy must be filled (four-seasons-1883)."""
    return key_of(class_piles(state, places, table), state, fixed)


def class_piles(state: State, places: list[int], table: bytes) -> list[bytes]:
    """The piles at ``places``, each card replaced by its class."""
    piles = state.piles
    return [bytes(piles[i]).translate(table) for i in places]


def next_class_piles(before: State, after: State, parent: list[bytes], places: list[int],
                     table: bytes) -> list[bytes]:
    """:func:`class_piles` of ``after``, a successor of ``before`` whose class
    piles are ``parent``: a move leaves all but a pile or two as they were (the
    same tuple objects), and only the piles it changed are translated again."""
    old, new = before.piles, after.piles
    out = parent.copy()
    for j, i in enumerate(places):
        if new[i] is not old[i]:
            out[j] = bytes(new[i]).translate(table)
    return out


def key_of(classes: list[bytes], state: State, fixed: int = 1) -> bytes:
    return b"\xff".join([*classes[:fixed], *sorted(classes[fixed:]),
                         b"\x01" if state.vacancy >= 0 else b""])


def cover(state: State, places: list[int], marks: bytes) -> int:
    """How many cards lie on the shallowest wanted card (0: one is on top; a
    large number when none lies in ``places``). ``marks`` translates a wanted
    card to 1 and any other to 0, so the scan runs in C."""
    best = 1_000
    piles = state.piles
    for i in places:
        pile = piles[i]
        at = bytes(pile).translate(marks).rfind(1)
        if at >= 0 and len(pile) - 1 - at < best:
            best = len(pile) - 1 - at
    return best


def raises_count(move: Move) -> bool:
    """Whether ``move`` puts a card from outside the foundations onto one (a
    foundation's own top card moving on, where a variant allows it, does not)."""
    return move.dst.startswith("f") and not move.src.startswith("f")


def plain_classes() -> bytes:
    """Card classes where every card is itself (a second deck's copy excepted)."""
    table = bytearray(range(256))
    for c in range(104):
        table[c] = 1 + c % 52
    return bytes(table)


def heights(rules: Rules, state: State) -> bytes:
    return bytes(len(p) for p in state.piles[rules.f0:rules.t0])


def wanted_marks(wanted: frozenset[int]) -> bytes:
    table = bytearray(256)
    for c in wanted:
        table[c] = 1
    return bytes(table)


def dead_search(state: State, moves: list[Move] | None = None,
                slice_s: float = SLICE_S) -> Generator[None, None, bool]:
    """Whether ``state`` is dead, yielding after every ``slice_s`` seconds of
    search. ``moves``: the legal moves of ``state``, when the caller has them."""
    known = known_verdict(state)
    if known is not None:
        return known
    rules = RULES[state.variant]
    wanted = rules.foundation_wants(state)
    # with movable foundation cards the key holds the heights; the context pins the start's
    context = (state.variant, state.base, wanted,
               heights(rules, state) if rules.spec.foundation_moves else b"")
    known_dead = _DEAD_KEYS.get(context)
    if known_dead is None:
        known_dead = set()
    else:
        _DEAD_KEYS.move_to_end(context)
    dead, seen = yield from exhaust(rules, state, wanted, moves, slice_s, known_dead)
    if dead:
        _remember_dead(context, seen)
    return _decided(state, dead)


def exhaust(rules: Rules, state: State, wanted: frozenset[int], moves: list[Move] | None,
            slice_s: float, known_dead: set[bytes]) -> Generator[None, None, tuple[bool, set[bytes]]]:
    """The search itself: (dead, keys seen). Positions whose key is in
    ``known_dead`` are not entered. Memory: one key and at most one queued
    position (with its class piles, short bytes) per position of the region."""
    movable = rules.spec.foundation_moves
    floor = rules.foundation_cards(state)  # movable foundations: the count to beat
    moving = rules.movable_moves(state.base) if movable else None
    if moving is not None and MovableSearch.fits(rules, moving):  # on bytes (deadwindow.py)
        rounds = movable_exhaust(rules, moving, state, slice_s / 2, known_dead)
        return (yield from with_dig(rules, moving, state, slice_s, rounds))  # a waste to dig (deadwaste.py)
    table = plain_classes() if movable else rules.card_classes(wanted)
    shape = None if movable else rules.class_moves()
    if shape is not None:  # the same search on class bytes alone (deadsearch.py)
        search = ClassSearch(rules, shape, table, wanted, state.base)
        return (yield from class_exhaust(search, state, slice_s, known_dead))
    marks = wanted_marks(wanted)
    kept, loose = rules.dead_places()
    places, fixed = kept + loose, len(kept)
    first = class_piles(state, places, table)
    seen: set[bytes] = {_key(rules, state, first, fixed, movable)}
    # a queued position carries its class piles, so a successor's key
    # translates only the piles its move changed
    heap: list[tuple[int, int, State, list[bytes]]] = [(0, 0, state, first)]
    pushed = 0
    started = perf_counter()
    while heap:
        _, _, s, classes = heapq.heappop(heap)
        level = rules.foundation_cards(s) >= floor if movable else True
        for m in (moves if s is state and moves is not None else rules.legal_moves(s)):
            if m.dst[0] == "f" and level and (not movable or m.src[0] != "f"):
                return False, seen
            if m.src[0] == "f" and not movable:
                continue  # a card back off a foundation never helps (module docstring)
            nxt = rules.apply(s, m)
            nxt_classes = next_class_piles(s, nxt, classes, places, table)
            key = _key(rules, nxt, nxt_classes, fixed, movable)
            if key in seen or key in known_dead:
                continue  # already queued, or nothing can be found from there
            seen.add(key)
            pushed += 1
            heapq.heappush(heap, (cover(nxt, places, marks), pushed, nxt, nxt_classes))
        if perf_counter() - started >= slice_s:  # cheap beside expanding a position
            yield
            started = perf_counter()
    return True, seen


def _key(rules: Rules, state: State, classes: list[bytes], fixed: int, movable: bool) -> bytes:
    key = key_of(classes, state, fixed)
    return key + b"\xfe" + heights(rules, state) if movable else key


def region(rules: Rules, state: State) -> tuple[bool, int]:
    """(dead, positions seen) of one search run to its end with no memory of
    earlier searches: for measurements (0 positions where the dig certificate
    of :mod:`.deadwaste` proves the position dead: it runs first here)."""
    steps = exhaust(rules, state, rules.foundation_wants(state), None, 1e9, set())
    while True:
        try:
            next(steps)
        except StopIteration as done:
            dead, seen = done.value
            return dead, len(seen)


def record_verdict(state: State, dead: bool) -> None:
    """Remember an exact verdict reached by the same search in another process."""
    _decided(state, dead)


def _decided(state: State, dead: bool) -> bool:
    # two players with the same position may search it at once: both are exact,
    # so whichever lands first is the answer for both
    known = _VERDICTS.setdefault(state, dead)
    _VERDICTS.move_to_end(state)
    if len(_VERDICTS) > _limits[0]:
        _VERDICTS.popitem(last=False)
    return known


def _remember_dead(context: Context, seen: set[bytes]) -> None:
    if len(seen) > _limits[1]:
        return  # a region larger than the whole memory is not worth keeping
    keys = _DEAD_KEYS.get(context)
    if keys is None:
        _make_room(len(seen))
        _DEAD_KEYS[context] = set(seen)
        _dead_key_count[0] += len(seen)
        return
    before = len(keys)
    keys.update(seen)
    _DEAD_KEYS.move_to_end(context)
    _dead_key_count[0] += len(keys) - before
    _make_room(0)


def _make_room(wanted: int) -> None:
    """Forget the least recently used contexts until ``wanted`` more keys fit."""
    while _DEAD_KEYS and _dead_key_count[0] + wanted > _limits[1]:
        _, keys = _DEAD_KEYS.popitem(last=False)
        _dead_key_count[0] -= len(keys)


def clear_caches() -> None:
    """Forget every remembered verdict."""
    _VERDICTS.clear()
    _DEAD_KEYS.clear()
    _dead_key_count[0] = 0
