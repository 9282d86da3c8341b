"""Shared helpers for the game-core tests: build positions by hand, read piles
back as card texts, list every well-formed move of a variant, play random games.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from server.game import engine
from server.game.cards import RANK_LETTERS, Card, card_text, parse_card
from server.game.moves import DEAL_ALL, DEAL_ONE, DEAL_ROUND, DRAW, REDEAL, Move, parse
from server.game.state import STOCK, State
from server.game.variants import Rules, get_rules, variant_ids

ALL_VARIANTS: tuple[str, ...] = tuple(variant_ids())
CROSS_VARIANTS: tuple[str, ...] = (
    "four-seasons", "four-seasons-1883", "vanishing-cross", "four-seasons-redeal",
    "czarina", "corners", "simplicity", "four-seasons-pysol", "florentine-pysol",
    "simplicity-pysol", "czarina-pysol", "corners-pysol",
)
# the cross variants whose tableau builds (Corners has single-card cells instead)
BUILDING_VARIANTS: tuple[str, ...] = tuple(v for v in CROSS_VARIANTS if not v.startswith("corners"))
# ... and of those, the ones that keep the books' "no King on an Ace while Aces are the base"
BOOK_WRAP_VARIANTS: tuple[str, ...] = tuple(v for v in BUILDING_VARIANTS if not v.endswith("-pysol"))

PileSpec = str | Sequence[str] | Sequence[Card]


def words(text: str) -> list[str]:
    """``"JD 2D"`` -> ``["JD", "2D"]``: card lists written the way rules.md writes them."""
    return text.split()


def cards(spec: PileSpec) -> tuple[Card, ...]:
    """``"TD 9C"`` (or ``["TD", "9C"]``, or card ints) -> card values, bottom first."""
    items: Sequence[str] | Sequence[Card] = spec.split() if isinstance(spec, str) else spec
    return tuple(c if isinstance(c, int) else parse_card(c) for c in items)


def build(
    variant: str,
    piles: Mapping[str, PileSpec],
    *,
    base: str | int = 0,
    redeals: int = 0,
    vacancy: str | None = None,
    resigned: bool = False,
) -> State:
    """A State of ``variant`` from pile name -> cards (bottom first; for ``s`` the
    last card is the next one drawn or dealt). Unnamed piles are empty.

    ``base`` is the cross family's base rank, as a rank letter (``"5"``, ``"K"``)
    or a number 1..13; ``vacancy`` names the pile the 1883 rules oblige to fill.
    """
    rules = get_rules(variant)
    out: list[tuple[Card, ...]] = [()] * len(rules.names)
    for name, spec in piles.items():
        out[rules.index[name]] = cards(spec)
    b = RANK_LETTERS.index(base) + 1 if isinstance(base, str) else base
    v = rules.index[vacancy] if vacancy is not None else -1
    return State(rules.spec.id, tuple(out), b, redeals, v, resigned)


def texts(state: State, pile: str) -> list[str]:
    """The cards of one pile as texts, bottom first."""
    return [card_text(c) for c in state.piles[engine.rules_of(state).index[pile]]]


def top(state: State, pile: str) -> str | None:
    t = texts(state, pile)
    return t[-1] if t else None


def stock_next_first(state: State) -> list[str]:
    return [card_text(c) for c in reversed(state.piles[STOCK])]


def card_multiset(state: State) -> Counter[Card]:
    return Counter(c for pile in state.piles for c in pile)


def candidate_moves(rules: Rules, max_n: int = 13) -> list[Move]:
    """Every well-formed move naming this variant's piles: all ordered pairs of
    distinct pile names with 1..max_n cards, plus every action but resign.

    13 covers every run but the 1883 rules' longest: a run there builds down
    regardless of suit and wraps K on A, so it may be longer than a suit."""
    names = rules.names
    out = [Move("move", a, b, n) for a in names for b in names if a != b for n in range(1, max_n + 1)]
    return out + [DRAW, REDEAL, DEAL_ONE, DEAL_ROUND, DEAL_ALL]


@dataclass
class Trace:
    """A game played by random legal moves: ``states[k+1]`` follows ``moves[k]``."""

    variant: str
    deal: int | str
    states: list[State]
    moves: list[Move]

    @property
    def final(self) -> State:
        return self.states[-1]


def random_game(variant: str, deal: int | str, seed: int, max_moves: int = 300) -> Trace:
    """Play up to ``max_moves`` random legal moves (never resign) from ``new_game``,
    stopping when the game is over."""
    rng = random.Random(seed)
    state = engine.new_game(variant, deal)
    states, played = [state], []
    for _ in range(max_moves):
        legal = engine.legal_moves(state)
        if not legal:
            break
        m = rng.choice(legal)
        state = engine.apply(state, m)
        states.append(state)
        played.append(m)
    return Trace(variant, deal, states, played)


def clear_engine_caches() -> None:
    """Forget every memoised verdict of the engine."""
    engine.clear_caches()
    for obj in vars(engine).values():
        clear = getattr(obj, "cache_clear", None)
        if callable(clear):
            clear()


@contextmanager
def fresh_engine_caches() -> Iterator[None]:
    """Play with no verdict remembered from other tests, and leave none behind."""
    clear_engine_caches()
    try:
        yield
    finally:
        clear_engine_caches()


def plain_dead(state: State, limit: int = 10**7) -> bool | None:
    """The dead-position rule by the plainest exhaustive search there is: every
    position reachable from ``state`` (whole states as keys, no sorting, no
    ordering, no memory between calls) is visited until one offers a
    foundation move that adds to the start's count. The reference the engine's
    verdicts are checked against.
    None: more than ``limit`` positions without a foundation move (undecided;
    an alive endgame can make a depth-first search wander that long)."""
    rules = get_rules(state.variant)
    if rules.can_draw_or_redeal(state):
        return False
    start = rules.foundation_cards(state)
    seen = {state}
    todo = [state]
    while todo:
        s = todo.pop()
        for m in rules.legal_moves(s):
            nxt = rules.apply(s, m)
            # "another card on a foundation": more than at the start (Fortune's Favor
            # may take a card back off a foundation and put it there again)
            if m.dst.startswith("f") and rules.foundation_cards(nxt) > start:
                return False
            if nxt not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(nxt)
                todo.append(nxt)
    return True


def illegal(state: State, text: str, *fragments: str) -> str:
    """Assert ``text`` is refused, the state is untouched and the reason says each fragment."""
    before = state
    with pytest.raises(engine.IllegalMove) as info:
        engine.play(state, text)
    assert state == before
    reason = str(info.value)
    assert reason, f"{text}: an empty reason"
    for f in fragments:
        assert f.lower() in reason.lower(), f"{text}: reason {reason!r} lacks {f!r}"
    assert parse(text) not in engine.legal_moves(state)
    return reason


def legal(state: State, text: str) -> State:
    """Assert ``text`` is generated as legal, and play it."""
    assert parse(text) in engine.legal_moves(state), f"{text} not generated"
    return engine.play(state, text)


# Where foundation cards move (simplicity-pysol, les-quatre-coins-pysol), a few
# dead-position searches still run for minutes and gigabytes (issue 16,
# docs/benchmarks/history/rounds.md): a test that meets a random position may give it this long.
MOVABLE_SEARCH_S = 5.0


def status_within(state: State, seconds: float = MOVABLE_SEARCH_S) -> tuple[str, list[Move]] | None:
    """``engine.status_and_moves(state)``, or None when its dead-position search
    runs past ``seconds`` (only exact verdicts are ever remembered, so a search
    abandoned here leaves nothing behind)."""
    import time

    steps = engine.status_and_moves_steps(state)
    ends = time.monotonic() + seconds
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        if time.monotonic() > ends:
            steps.close()
            return None


def slow_to_judge(state: State) -> bool:
    """Whether ``state``'s status is one a random-example test should skip: its
    variant's foundation cards move and its dead-position search runs past
    :data:`MOVABLE_SEARCH_S` (its verdict is then remembered for the test)."""
    return engine.rules_of(state).spec.foundation_moves and status_within(state) is None
