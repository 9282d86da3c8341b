"""The history bench's games are real games: each replays legally from its deal."""

from __future__ import annotations

import random

from bench.history_size import played
from server.game import engine
from server.game.records import positions


def test_a_sampled_game_replays_and_is_timed_forwards() -> None:
    deal, log, fc, status = played(random.Random(3), 40)
    assert 0 < len(log) <= 40 and all(a < b for (a, _), (b, _) in zip(log, log[1:], strict=False))
    last = positions(engine.new_game("four-seasons", deal), [text for _, text in log])[-1]
    assert engine.foundation_cards(last) == fc and status in ("timed_out", "won", "dead")
