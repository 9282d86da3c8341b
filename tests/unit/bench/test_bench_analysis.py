"""The analysis bench (bench/analysis.py) on one short game: it runs, times the
game and says what the analysis answered."""

from __future__ import annotations

from bench.analysis import bot_record, main, rates
from server.game import engine


def test_a_bots_record_replays_and_the_bench_prints_its_figures(capsys) -> None:
    moves, status = bot_record("betsy-ross", 4, 1, seed=1)
    state = engine.new_game("betsy-ross", 4)
    for text in moves:
        if text != "resign":
            state = engine.play(state, text, engine.IN_PROGRESS)
    assert status in (engine.WON, engine.DEAD, engine.RESIGNED) and moves
    main(["--variants", "betsy-ross", "--deals", "1", "--level", "1", "--budget", "2000"])
    out = capsys.readouterr().out
    assert "median" in out and "p95" in out and "games   1" in out


def test_the_node_rates_cover_every_variant() -> None:
    from server.game.variants import specs
    found = rates(deals=(1,), budget=50)
    assert [v for v, _ in found] == [s.id for s in specs()] and all(r > 0 for _, r in found)
