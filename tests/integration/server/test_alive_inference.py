"""A position that can go straight back to one proven alive is alive, and is
answered without a dead-position search (server/rooms/play.py, ``comes_back``)."""

from __future__ import annotations

import random

import pytest

from server.game import engine
from server.game.state import State
from server.game.variants import RULES
from server.rooms.play import comes_back
from tests.integration.server.test_solo import solo
from tests.support.servers import ServerFactory, ws_url

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


# where foundation cards move a single search can take seconds: covered by the
# offline figures in docs/benchmarks.md, not here
_SLOW = {"simplicity-pysol", "les-quatre-coins-pysol"}


_INFERRING = {"corner-stones", "florentine", "florentine-pysol", "four-seasons-redeal"}


@pytest.mark.parametrize("variant", sorted(set(RULES) - _SLOW))
def test_every_inferred_position_is_alive_by_the_exact_search(variant: str) -> None:
    rng = random.Random(16)
    inferred = 0
    for _ in range(2):
        engine.clear_caches()
        state = engine.new_game(variant, str(rng.randrange(10**12)))
        status, moves, _ = engine.status_before_search(state)
        alive: tuple[State, list[engine.Move], bool] = (state, moves, False)
        for _ in range(400):
            if status != engine.IN_PROGRESS or not moves:
                break
            text = str(rng.choice(moves))
            before, state = state, engine.play(state, text, status)
            status, moves, needs_search = engine.status_before_search(state)
            came_back = needs_search and comes_back(alive, before, state, text, moves)
            if needs_search:
                status, moves = engine.status_and_moves(state)  # the search, always
                assert not (came_back and status == engine.DEAD), (variant, before, text)
                inferred += came_back
            alive = (state, moves, came_back)
    engine.clear_caches()
    if variant in _INFERRING:  # these seeded games do come back to alive positions
        assert inferred > 0
