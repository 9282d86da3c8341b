"""One game's fair-play signals: agreement with a solver's line at real choices,
and the think times' figures."""

from __future__ import annotations

import pytest

from server.game import engine
from server.game.solver import WON, solve, solve_state
from server.game.state import STOCK
from server.race.fairplay_signals import FAST_MS, SOLVE_BUDGET, agreement, game_signals, hidden, pace, walk

VARIANT, DEAL = "four-seasons", 884107995872  # its line is found in the solver's first, quick stage


@pytest.fixture(scope="module")
def line() -> list[str]:
    found = solve(VARIANT, DEAL, SOLVE_BUDGET)
    assert found.result == WON
    return found.moves


def test_a_game_on_the_solvers_line_agrees_at_every_real_choice(line: list[str]) -> None:
    choices, agreed, searches = agreement(engine.new_game(VARIANT, DEAL), line)
    assert choices == agreed and choices > 20
    assert searches == 1  # the line in hand is followed: no search after the first


def _first_real_choice(line: list[str]) -> int:
    start = engine.new_game(VARIANT, DEAL)
    for i in range(1, len(line)):
        prefix = line[:i]
        state = start
        for text in prefix:
            state = engine.play(state, text, engine.IN_PROGRESS)
        if agreement(start, prefix)[0] >= 3 and hidden(state) and len(engine.legal_moves(state)) >= 3:
            return i
    raise AssertionError("no real choice on the line")


def test_leaving_the_line_at_a_real_choice_is_a_disagreement(line: list[str]) -> None:
    i = _first_real_choice(line)
    start = engine.new_game(VARIANT, DEAL)
    state = start
    for text in line[:i]:
        state = engine.play(state, text, engine.IN_PROGRESS)
    before = agreement(start, line[:i])
    fresh = solve_state(state, SOLVE_BUDGET).moves[0]
    wanted = {engine.play(state, m, engine.IN_PROGRESS) for m in (line[i], fresh)}
    other = next(str(m) for m in engine.legal_moves(state)
                 if engine.play(state, str(m), engine.IN_PROGRESS) not in wanted)
    choices, agreed, searches = agreement(start, [*line[:i], other])
    assert (choices, agreed) == (before[0] + 1, before[1])
    assert searches == 2  # asked again from the position where the player left the line
    # the same position played the solver's way agrees
    assert agreement(start, line[: i + 1])[1] == before[1] + 1


def test_a_search_budget_of_nothing_counts_nothing(line: list[str]) -> None:
    assert agreement(engine.new_game(VARIANT, DEAL), line, max_solves=0) == (0, 0, 0)


def test_a_known_stock_hides_nothing() -> None:
    state = engine.new_game(VARIANT, DEAL)
    assert hidden(state)
    assert not hidden(state._replace(redeals=1))  # the new stock is the old waste, all of it seen
    assert not hidden(state._replace(piles=((), *state.piles[1:])))
    assert state.piles[STOCK]


def test_pace_of_a_machine_and_of_a_person() -> None:
    n = 30
    flat = pace([5000 + 1000 * i for i in range(n)], [4] * n, [False] * n)
    assert flat == {"moves": n - 1, "median_ms": 1000, "spread": 0.0, "fast": 0, "mode_ms": 1000,
                    "mode_share": 1.0, "shape": 0.0}
    gaps = [900, 2500, 1400, 4100, 800, 1900, 3300, 1200]
    ms = [3000]
    for g in gaps:
        ms.append(ms[-1] + g)
    person = pace(ms, [4] * len(ms), [False] * len(ms))
    assert person["moves"] == len(gaps) and person["median_ms"] == 1650
    assert person["spread"] > 0.4 and person["mode_share"] == 1 / len(gaps)


def test_easy_moves_are_left_out_of_speed_and_make_the_shape() -> None:
    # safe cards sent home at once (the client's key) are not a person's choices
    ms, options, easy = [0], [1], [True]
    for i in range(20):
        hard = i % 2 == 0
        ms.append(ms[-1] + (3000 if hard else 40))
        options.append(5 if hard else 2)
        easy.append(not hard)
    out = pace(ms, options, easy)
    assert out["moves"] == 10 and out["fast"] == 0 and out["median_ms"] == 3000
    assert out["shape"] > 4  # log(3000/40): long over hard positions, at once over easy ones
    every = pace(ms, options, [False] * len(ms))
    assert every["fast"] == 10 > FAST_MS // 1000


def test_a_games_signals_from_its_record(line: list[str]) -> None:
    moves = [(4000 + 1500 * i, text) for i, text in enumerate(line)]
    out = game_signals(VARIANT, DEAL, moves)
    assert out["won"] and out["variant"] == VARIANT
    assert out["choices"] == out["agreed"] > 20 and out["median_ms"] == 1500 and out["spread"] == 0.0
    options, easy, won = walk(engine.new_game(VARIANT, DEAL), line)
    assert won and len(options) == len(easy) == len(line) and any(easy) and not all(easy)
    assert not game_signals(VARIANT, DEAL, moves[:5])["won"]
