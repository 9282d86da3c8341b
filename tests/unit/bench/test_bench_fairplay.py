"""The fair-play experiment's careers (bench/fairplay.py) on hand-made games: each
kind's pace reaches the server's score as it should. The experiment itself is a
measurement, run by hand (docs/design/fair-play.md), not a test."""

from __future__ import annotations

import random
from typing import Any

from bench.fairplay import by_game, career
from server.race.fairplay_score import MACHINE_GAMES


def made_game(choices: int = 10, agreed: int = 5, moves: int = 60) -> dict[str, Any]:
    """A game of ``moves`` moves, each a real choice among four, none easy."""
    return {"variant": "four-seasons", "won": False, "agreement": [choices, agreed, 4],
            "options": [4] * moves, "easy": [False] * moves, "dec_options": [3] * moves,
            "planned": [False] * moves}


def test_the_game_by_which_a_share_of_careers_was_flagged() -> None:
    assert by_game([1, 2, None, 3], 0.5) == 2
    assert by_game([1, None, None, None], 0.95) is None
    assert by_game([4] * 20, 0.95) == 4


def test_a_machines_pace_is_flagged_and_a_persons_is_not() -> None:
    games = [made_game()]
    first, peak = career(games, "metronome", 6, random.Random(1))
    assert first == MACHINE_GAMES and peak["machine_pace"] >= 1.0 and peak["agreement"] == 0
    first, peak = career(games, "instant", 6, random.Random(1))
    assert first == 1 and peak["speed"] >= 1.0
    for kind in ("person 3", "bot L3"):
        first, peak = career(games, kind, 20, random.Random(2))
        assert first is None and max(peak.values()) < 1.0


def test_a_game_on_the_solvers_line_flags_its_career_at_once() -> None:
    first, peak = career([made_game(choices=60, agreed=60)], "assisted", 3, random.Random(3))
    assert first == 1 and peak["agreement"] >= 1.0
