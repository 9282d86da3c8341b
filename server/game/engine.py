"""The engine's front door: new games, legal moves, checked and unchecked play,
and the status of a game.

``play`` is the checked path (parse, validate, explain a refusal with a
specific :class:`IllegalMove`); ``apply`` is the unchecked fast path used by
replay and search, for moves that came from ``legal_moves``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Final

from . import dead
from .deals import deal_input
from .moves import BadMove, GameOver, IllegalMove, Move, parse
from .state import State
from .variants import RULES, Rules, get_rules

IN_PROGRESS: Final = "in_progress"
WON: Final = "won"
DEAD: Final = "dead"
RESIGNED: Final = "resigned"

__all__ = [
    "BadMove", "GameOver", "IllegalMove", "Move", "State",
    "new_game", "legal_moves", "play", "apply", "status", "status_and_moves",
    "status_and_moves_steps", "status_before_search", "dead_search_steps", "foundation_cards",
    "record_verdict",
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


def status_and_moves_steps(
        state: State, slice_s: float = dead.SLICE_S) -> Generator[None, None, tuple[str, list[Move]]]:
    """:func:`status_and_moves` as a generator that yields between the slices of
    a dead-position search (``slice_s`` seconds each), so a server can let other
    players' work run in between; without a search it returns at the first step.

    A game is dead when no sequence of moves can put another card on a
    foundation (rules 1.3). A position without a legal move is dead at once.
    Otherwise only positions where the stock can bring nothing new and no
    foundation move is open are searched, exhaustively (see :mod:`.dead`): the
    answer is exact, never "alive because the search gave up"."""
    status, moves, search = status_before_search(state)
    if not search:
        return status, moves
    is_dead = yield from dead.dead_search(state, moves, slice_s)
    return (DEAD, []) if is_dead else (IN_PROGRESS, moves)


def status_before_search(state: State) -> tuple[str, list[Move], bool]:
    """Everything :func:`status_and_moves` decides without a dead-position
    search: (status, legal moves, whether the status still needs the search).
    With True the status is ``in_progress`` only until the search says
    otherwise (:func:`dead_search_steps` runs it)."""
    rules = RULES[state.variant]
    if rules.is_won(state):
        return WON, [], False
    if state.resigned:
        return RESIGNED, [], False
    moves = rules.legal_moves(state)
    if not moves:
        # No move, no game: nothing can ever reach a foundation again. Decided
        # here, before any remembered verdict is consulted.
        return DEAD, [], False
    if rules.can_draw_or_redeal(state) or any(dead.raises_count(m) for m in moves):
        return IN_PROGRESS, moves, False
    return IN_PROGRESS, moves, True


def dead_search_steps(state: State, moves: list[Move],
                      slice_s: float = dead.SLICE_S) -> Generator[None, None, bool]:
    """The dead-position search of a position :func:`status_before_search`
    left open (``moves``: its legal moves), yielding between slices: True when
    the position is dead."""
    return dead.dead_search(state, moves, slice_s)


def record_verdict(state: State, is_dead: bool) -> None:
    """Remember a verdict on ``state`` decided elsewhere (a worker process that
    ran the same exhaustive search), so asking again costs nothing here."""
    dead.record_verdict(state, is_dead)


def clear_caches() -> None:
    """Forget every remembered dead-search verdict."""
    dead.clear_caches()
