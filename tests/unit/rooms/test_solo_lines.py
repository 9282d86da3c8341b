"""The hints' remembered winning lines are bounded and forget gradually: past
the bound the least recently used positions go, as many as a new line needs,
never the whole table at once (issue 34, item 17)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from server.game import engine
from server.game.state import State
from server.rooms import solo


@pytest.fixture(autouse=True)
def empty() -> Iterator[None]:
    solo._lines.clear()
    yield
    solo._lines.clear()


def a_line(deal: int, length: int = 3) -> tuple[State, tuple[str, ...]]:
    """A start and ``length`` legal moves from it, each to a new position
    (``_remember`` replays them)."""
    rng = random.Random(deal)
    start = state = engine.new_game("four-seasons", deal)
    seen = {state.digest()}
    texts: list[str] = []
    for _ in range(length):
        _, moves = engine.status_and_moves(state)
        ahead = [(m, engine.apply(state, m)) for m in moves if str(m) != "resign"]
        move, state = rng.choice([(m, s) for m, s in ahead if s.digest() not in seen])
        seen.add(state.digest())
        texts.append(str(move))
    return start, tuple(texts)


def test_a_full_table_forgets_only_the_least_recently_used_positions() -> None:
    lines = [a_line(deal) for deal in (1, 2, 3)]
    for start, line in lines[:2]:
        solo._remember(start, line, limit=6)
    assert len(solo._lines) == 6
    solo._remember(*lines[2], limit=6)
    assert len(solo._lines) == 6
    assert solo._known_line(lines[0][0]) is None  # the oldest line went
    assert solo._known_line(lines[1][0]) == lines[1][1]  # the one after it stayed
    assert solo._known_line(lines[2][0]) == lines[2][1]


def test_a_line_asked_again_is_kept_over_an_older_unasked_one() -> None:
    lines = [a_line(deal) for deal in (4, 5, 6)]
    for start, line in lines[:2]:
        solo._remember(start, line, limit=6)
    assert solo._known_line(lines[0][0]) == lines[0][1]  # asked: now the most recent
    solo._remember(*lines[2], limit=6)
    assert solo._known_line(lines[0][0]) == lines[0][1]
    assert solo._known_line(lines[1][0]) is None
