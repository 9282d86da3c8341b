"""tools/dead_regions.py's random play: ``--keep-home`` never takes a card back
off a foundation, which Fortune's Favor's rules allow and its random walks
otherwise do until the move cap."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from server.game import engine
from tests.support.scripts import load_script


def takebacks(moves: list[str]) -> int:
    return sum(1 for m in moves if m.startswith("f"))


def test_keep_home_random_play_never_moves_a_foundation_card() -> None:
    script = load_script("dead_regions")
    rng = random.Random(5)
    kept = [script.play_one("fortunes-favor", rng, 2000, 0, False, True) for _ in range(20)]
    assert all(takebacks(g.moves) == 0 for g in kept)
    assert all(g.outcome in ("won", "dead") for g in kept)  # they end before the cap
    rng = random.Random(5)
    free = [script.play_one("fortunes-favor", rng, 300, 0, False) for _ in range(20)]
    assert sum(takebacks(g.moves) for g in free) > 0  # the rules allow it; plain random play does it


def test_a_search_past_its_budget_counts_as_undecided_and_is_logged(tmp_path: Path) -> None:
    script = load_script("dead_regions")
    log = tmp_path / "slow.jsonl"
    with log.open("a") as out:
        game = script.play_one("four-seasons", random.Random(3), 2000, 0, False, budget_s=0.0,
                               slow_log=out, slow_s=1e9)
    lines = log.read_text().splitlines()
    # a budget of nothing leaves every search unfinished: each is counted, and logged
    assert game.undecided > 0 and len(lines) == game.undecided
    entry = json.loads(lines[0])
    assert entry["verdict"] is None and entry["variant"] == "four-seasons"
    state = engine.new_game("four-seasons", entry["deal"])
    for text in entry["moves"].split():
        state = engine.play(state, text)
    assert engine.status_before_search(state)[2]  # the logged position is one that needs a search
    with log.open("a") as out:
        again = script.play_one("four-seasons", random.Random(3), 2000, 0, False, slow_log=out)
    assert again.undecided == 0 and again.outcome == "dead"


def test_jsonl_keeps_each_finished_game_and_its_summary_is_the_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--jsonl F`` writes a line per game as it finishes (a stopped run keeps
    them); ``--summary-of F`` prints from those lines the summary the run printed."""
    script = load_script("dead_regions")
    lines = tmp_path / "games.jsonl"
    args = ["--games", "6", "--variants", "four-seasons", "--alive-check", "0", "--check-every", "3"]
    assert script.main([*args, "--jsonl", str(lines)]) == 0
    run = json.loads(capsys.readouterr().out.splitlines()[0])
    games = [json.loads(line) for line in lines.read_text().splitlines()]
    assert [g["index"] for g in games] == list(range(6))
    assert all(g["variant"] == "four-seasons" and g["outcome"] in ("dead", "won", "in_progress")
               for g in games)
    assert script.main(["--summary-of", str(lines)]) == 0
    again = json.loads(capsys.readouterr().out.splitlines()[0])
    run.pop("seconds")
    assert again == run


def test_give_up_ends_a_game_at_its_first_undecided_search(tmp_path: Path) -> None:
    """``--give-up``: a search past its budget ends the game as abandoned (and
    is still counted and logged), where without it the game plays on."""
    script = load_script("dead_regions")
    log = tmp_path / "slow.jsonl"
    with log.open("a") as out:
        game = script.play_one("four-seasons", random.Random(3), 2000, 0, False, budget_s=0.0,
                               slow_log=out, slow_s=1e9, give_up=True)
    assert game.outcome == "abandoned" and game.undecided == 1
    assert len(log.read_text().splitlines()) == 1
    on = script.play_one("four-seasons", random.Random(3), 2000, 0, False, budget_s=0.0)
    assert on.undecided > 1 and len(on.moves) > len(game.moves)
    assert script.Tally([game, on]).summary()["abandoned"] == 1
