"""A deal's par: each level's median foundation count over its bots' games."""

from __future__ import annotations

import pytest

from server.game import engine
from server.rooms.bots import par


def test_a_par_is_the_median_of_each_levels_games(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[tuple[str, str, int, int]] = []
    results = {1: [3, 9, 4], 2: [52, 10, 30]}

    def fake(variant: str, deal: str, level: int, seed: int, max_moves: int = par.MAX_MOVES) -> int:
        played.append((variant, deal, level, seed))
        return results[level][seed % 1000]

    monkeypatch.setattr(par, "bot_result", fake)
    assert par.bot_pars("czarina", "7", games=3, levels=(1, 2)) == (4, 30)
    assert {p[3] for p in played} == {1000, 1001, 1002, 2000, 2001, 2002}  # its own seed per game


def test_a_bot_game_plays_the_deal_through_the_engine() -> None:
    # the expert wins this redeal deal; a beginner gets fewer cards home, and a seed
    # gives the same game again
    deal = "3"
    best = par.bot_result("four-seasons-redeal", deal, 5, seed=1)
    assert best == 52
    start = engine.foundation_cards(engine.new_game("four-seasons-redeal", deal))
    weak = par.bot_result("four-seasons-redeal", deal, 1, seed=1)
    assert start <= weak < 52
    assert par.bot_result("four-seasons-redeal", deal, 1, seed=1) == weak
