"""The dead-verdict-under-load bench (bench/dead_load.py): it plays corpus games
through a loaded server and reports the time of the move that made each dead."""

from __future__ import annotations

import json

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


def test_the_bench_times_the_dead_verdict_on_a_loaded_server(capsys: pytest.CaptureFixture[str]) -> None:
    code = dead_load.main(["--players", "20", "--rate", "40", "--repeat", "1", "--phase-seconds", "2",
                           "--only", "czarina", "--generators", "1", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["within_limit"]
    assert report["load_moves"] > 20  # the load really ran beside the corpus
    (row,) = report["games"]
    assert row["variant"] == "czarina" and 0 < row["served_s"][0] <= dead_load.LIMIT_S


def test_each_repeat_meets_a_server_that_has_never_seen_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    """A server remembers its verdicts: a repeat on the same server would time a
    look-up. Every repeat plays on a server process of its own."""
    code = dead_load.main(["--players", "10", "--rate", "20", "--repeat", "2", "--phase-seconds", "1",
                           "--only", "czarina", "--generators", "1", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert len(report["server_pids"]) == 2 and len(set(report["server_pids"])) == 2
    (row,) = report["games"]
    assert len(row["served_s"]) == 2 and len(row["engine_s"]) == 2
