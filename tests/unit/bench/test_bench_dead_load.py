"""The dead-verdict-under-load bench (bench/dead_load.py): it plays corpus games
through a loaded server and reports the time of the move that made each dead."""

from __future__ import annotations

import pytest

from bench import dead_load


def test_every_corpus_game_is_dead_at_its_last_move_for_the_engine() -> None:
    games = dead_load.corpus()
    assert len(games) >= 5 and {g["variant"] for g in games} >= {"four-seasons", "vanishing-cross"}
    for game in games:
        assert dead_load.engine_time(game) < 10.0  # raises if the game is not dead there


def test_the_bench_also_plays_the_dig_cut_at_the_move_that_makes_it_dead() -> None:
    (dig,) = [g for g in dead_load.corpus(digs=True) if g not in dead_load.corpus()]
    assert dig["variant"] == "simplicity-pysol"
    assert dead_load.engine_time(dig) < 10.0  # dead at its last move
    dig["moves"] = " ".join(dig["moves"].split()[:-1])
    with pytest.raises(RuntimeError, match="not dead"):
        dead_load.engine_time(dig)  # and alive one move before


def test_a_corpus_game_that_is_not_dead_is_refused() -> None:
    game = dict(dead_load.corpus()[0])
    game["moves"] = " ".join(game["moves"].split()[:-1])  # one move short of dead
    with pytest.raises(RuntimeError, match="not dead"):
        dead_load.engine_time(game)


