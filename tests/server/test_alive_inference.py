"""A position that can go straight back to one proven alive is alive, and is
answered without a dead-position search (server/play.py, ``comes_back``)."""

from __future__ import annotations

import random

import pytest

from server.game import engine
from server.game.state import State
from tests.server.conftest import ServerFactory, ws_url
from tests.server.test_solo import solo

# a Simplicity deal whose seeded random game (below) needs 119 searches in 349
# moves and ends dead: both verdicts come up
DEAL = "1021"


async def test_positions_that_can_go_back_are_not_searched_and_every_status_is_exact(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    engine.clear_caches()
    app = await make_server()
    searched: list[State] = []
    real = app.service.search

    async def counting(state: State, moves: list[engine.Move], slice_s: float | None = None
                       ) -> tuple[str, list[engine.Move], object]:
        searched.append(state)
        return await real(state, moves, slice_s)

    monkeypatch.setattr(app.service, "search", counting)
    bot, _ = await solo(ws_url(app), "simplicity", DEAL)
    rng = random.Random(12)
    state = engine.new_game("simplicity", DEAL)
    needing = 0
    assert bot.view is not None
    while bot.view["status"] == engine.IN_PROGRESS:
        text = rng.choice(bot.view["legal_moves"])
        answer = await bot.move(text)
        assert answer["t"] == "view", answer
        state = engine.play(state, text)
        needing += engine.status_before_search(state)[2]
        # the engine's own verdict, search and all, for every position
        status, moves = engine.status_and_moves(state)
        assert answer["view"]["status"] == status
        assert answer["view"]["legal_moves"] == [str(m) for m in moves]
    assert bot.view["status"] == engine.DEAD
    assert needing == 119
    # most positions in the searched part of a random game can go back
    assert len(searched) < needing // 2
    await bot.close()
    engine.clear_caches()
