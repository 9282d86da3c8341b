"""The engine's front door: new games, legal moves, checked and unchecked play,
and the status of a game.

``play`` is the checked path (parse, validate, explain a refusal with a
specific :class:`IllegalMove`); ``apply`` is the unchecked fast path used by
replay and search, for moves that came from ``legal_moves``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Final

from .deals import deal_input
from .moves import BadMove, GameOver, IllegalMove, Move, parse
from .state import State
from .variants import RULES, Rules, get_rules

IN_PROGRESS: Final = "in_progress"
WON: Final = "won"
DEAD: Final = "dead"
RESIGNED: Final = "resigned"

# A dead-position search gives up (and calls the game alive) past this many
# positions; the cross games and Betsy Ross never come near it.
DEAD_SEARCH_CAP: Final = 3_000

__all__ = [
    "BadMove", "GameOver", "IllegalMove", "Move", "State",
    "new_game", "legal_moves", "play", "apply", "status", "status_and_moves",
    "status_and_moves_steps", "foundation_cards",
    "rules_of",
    "IN_PROGRESS", "WON", "DEAD", "RESIGNED",
]


def rules_of(state: State) -> Rules:
    return RULES[state.variant]


def new_game(variant: object, deal: object) -> State:
    """The starting position of ``variant`` (id, name or alias) for a deal number.
    Typed ``object``: bad input gets our errors, compiled or not (see deal_input)."""
    return get_rules(variant).initial(deal_input(deal))


def apply(state: State, move: Move) -> State:
    """Play ``move`` without checking it: for moves from :func:`legal_moves`."""
    if move.kind == "resign":
        return state._replace(resigned=True)
    return RULES[state.variant].apply(state, move)


def legal_moves(state: State) -> list[Move]:
    """Every legal move; none once the game is over."""
    return status_and_moves(state)[1]


def play(state: State, move: object, known_status: str | None = None) -> State:
    """Parse and validate a move, then play it; raise a specific error if not legal.
    ``known_status``: the caller's ``status(state)``, when it has it already."""
    m = move if isinstance(move, Move) else parse(move)
    st = known_status or status(state)
    if st != IN_PROGRESS:
        raise GameOver(_over_reason(st))
    if m.kind == "resign":
        return state._replace(resigned=True)
    reason = RULES[state.variant].why_illegal(state, m)
    if reason is not None:
        raise IllegalMove(reason)
    return RULES[state.variant].apply(state, m)


def _over_reason(st: str) -> str:
    return {
        WON: "the game is won",
        RESIGNED: "the player has resigned",
        DEAD: "the game is dead: no card can reach a foundation any more",
    }[st]


def foundation_cards(state: State) -> int:
    return RULES[state.variant].foundation_cards(state)


def status(state: State) -> str:
    return status_and_moves(state)[0]


def status_and_moves(state: State) -> tuple[str, list[Move]]:
    """``status(state)`` and ``legal_moves(state)`` together, generating the
    moves once: what the server needs after every move."""
    steps = status_and_moves_steps(state)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def status_and_moves_steps(state: State, slice_size: int | None = None,
                           ) -> Generator[None, None, tuple[str, list[Move]]]:
    """:func:`status_and_moves` as a generator that yields between the slices of
    a dead-position search (which may take a good part of a second), so a server
    can let other players' work run in between; without a search it returns at
    the first step.

    A game is dead when no sequence of moves can put another card on a
    foundation. Only positions where the stock can bring nothing new and no
    foundation move is open are searched: every position reachable from there
    is explored (memoised) until one offers a foundation move. Past
    :data:`DEAD_SEARCH_CAP` positions the game counts as alive, never wrongly
    as dead."""
    rules = RULES[state.variant]
    if rules.is_won(state):
        return WON, []
    if state.resigned:
        return RESIGNED, []
    moves = rules.legal_moves(state)
    if rules.can_draw_or_redeal(state) or any(m.dst.startswith("f") for m in moves):
        return IN_PROGRESS, moves
    dead = yield from dead_search(state, moves, slice_size)
    return (DEAD, []) if dead else (IN_PROGRESS, moves)


# Keys of positions proven dead. A search that exhausts every position
# reachable from a start without a foundation move proves all of them dead,
# so a player moving around inside a dead position costs one search, not one
# per move. A search that gives up marks what it saw as undecided, which is
# always sound (undecided only ever means "not declared dead") and keeps a
# player wandering in a huge position from paying for the search again.
# Both are bounded: cleared when full.
_DEAD_KEYS: set[tuple[object, ...]] = set()
_UNDECIDED_KEYS: set[tuple[object, ...]] = set()
_KEYS_MAX: Final = 200_000


# Searched start positions and their verdicts (True: dead). Every status
# question goes through _settled first, so a position gets one answer however
# it is asked.
_VERDICTS: dict[State, bool] = {}
_VERDICTS_MAX: Final = 16_384

# Positions a search expands before it lets its caller do other work.
SEARCH_SLICE: Final = 100


def _settled(state: State) -> bool | None:
    """What earlier searches know about ``state``: dead, alive, or None. The
    first answer given for a position sticks: a later search may learn more
    about its keys, but a game must not change its mind about a position it
    has already been played from (a replay would then refuse the next move)."""
    verdict = _VERDICTS.get(state)
    if verdict is not None:
        return verdict
    key = RULES[state.variant].search_key(state)
    if key in _DEAD_KEYS:
        return _decided(state, True)
    if key in _UNDECIDED_KEYS:
        return _decided(state, False)
    return None


def dead_search(state: State, moves: list[Move] | None = None,
                slice_size: int | None = None) -> Generator[None, None, bool]:
    """The dead-position search in slices: it yields after every
    ``slice_size`` positions (default :data:`SEARCH_SLICE`; a parameter, so
    tests can make slices small without patching a constant the compiled core
    has baked in), so a caller serving others can let them run
    in between, and returns whether ``state`` is dead. Run to the end it is
    exactly the search :func:`status` does. ``moves``: the legal moves of
    ``state``, when the caller has them already."""
    settled = _settled(state)
    if settled is not None:
        return settled
    every = SEARCH_SLICE if slice_size is None else slice_size
    rules = RULES[state.variant]
    seen = {rules.search_key(state)}
    frontier = [state]
    expanded = 0
    while frontier:
        s = frontier.pop()
        for m in (moves if s is state and moves is not None else rules.legal_moves(s)):
            if m.dst.startswith("f"):
                return _decided(state, False)
            nxt = rules.apply(s, m)
            key = rules.search_key(nxt)
            if key in _DEAD_KEYS or key in seen:
                continue  # nothing new can be found from there
            if len(seen) >= DEAD_SEARCH_CAP:
                _remember(_UNDECIDED_KEYS, seen)
                return _decided(state, False)
            seen.add(key)
            frontier.append(nxt)
        expanded += 1
        if expanded % every == 0:
            yield
    _remember(_DEAD_KEYS, seen)
    return _decided(state, True)


def _decided(state: State, dead: bool) -> bool:
    if len(_VERDICTS) >= _VERDICTS_MAX:
        _VERDICTS.clear()
    # two players with the same position may search it at once: the first answer sticks
    return _VERDICTS.setdefault(state, dead)


def _remember(keys: set[tuple[object, ...]], seen: set[tuple[object, ...]]) -> None:
    if len(keys) + len(seen) > _KEYS_MAX:
        keys.clear()
    keys.update(seen)


def clear_caches() -> None:
    """Forget every remembered verdict (for tests that change the search cap)."""
    _VERDICTS.clear()
    _DEAD_KEYS.clear()
    _UNDECIDED_KEYS.clear()
