"""Undo in records: a stack of positions, legal only in a game in progress with a
move left to take back; verify() and the CLI replay it and count it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli.main import main
from server.game import engine
from server.game.moves import GameOver, IllegalMove
from server.game.records import Record, positions, replay, step, verify
from tests.support.game import random_game


def test_undo_goes_back_one_position_at_a_time() -> None:
    trace = random_game("four-seasons", 24, 3, 12)
    moves = [str(m) for m in trace.moves]
    history = positions(trace.states[0], [*moves, "undo", "UNDO ", "undo"])
    assert history == trace.states[: len(moves) - 2]
    # a move after undos goes on from the position undone to
    again = positions(trace.states[0], [*moves[:3], "undo", moves[2]])
    assert again[-1] == trace.states[3]


def test_undo_with_nothing_to_take_back_is_illegal_and_changes_nothing() -> None:
    start = engine.new_game("czarina", 7)
    history = [start]
    with pytest.raises(IllegalMove):
        step(history, "undo")
    assert history == [start]


def test_undo_after_the_game_has_ended_is_refused() -> None:
    start = engine.new_game("simplicity", 24)
    history = positions(start, [str(engine.legal_moves(start)[0]), "resign"])
    with pytest.raises(GameOver):
        step(history, "undo")


def test_verify_counts_undos_and_finds_the_final_state() -> None:
    trace = random_game("betsy-ross", 24, 1, 20)
    moves = [str(m) for m in trace.moves]
    rec = Record("betsy-ross", 24, (*moves, "undo", moves[-1]))
    verdict = verify(rec)
    assert verdict["legal"] and verdict["undos"] == 1 and verdict["moves_played"] == len(moves) + 2
    assert verdict["final_state"] == trace.final.digest()
    bad = replay(Record("betsy-ross", 24, ("undo",)))
    assert bad.first_illegal == 0 and "no move to undo" in (bad.reason or "")


def test_the_cli_verifies_a_record_with_undos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = random_game("corners", 11, 2, 10)
    moves = [str(m) for m in trace.moves]
    path = tmp_path / "solo.json"
    path.write_text(json.dumps({"variant": "corners", "deal": 11, "moves": [*moves, "undo"]}))
    assert main(["verify", str(path)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["legal"] and verdict["undos"] == 1
