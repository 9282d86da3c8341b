"""A dead-position search (rarely up to half a second) runs off the event loop,
so one player's endgame does not stall everyone else on the process."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from server.game import engine
from tests.game.helpers import build
from tests.server.conftest import ServerFactory

CLUBS = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
SPADES = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
HEARTS_TO_J = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH"


def dead_endgame() -> engine.State:
    """Stock gone, no foundation move, a few pointless moves left: only a search
    can tell that it is dead."""
    return build("four-seasons", {
        "f1": CLUBS, "f2": SPADES, "f3": HEARTS_TO_J,
        "t1": "QH KH", "t2": "AD KD", "t3": "2D 3D 4D JD", "t4": "5D 6D 8D 9D", "t5": "TD 7D QD",
    }, base="A")


async def test_the_search_runs_on_another_thread_and_agrees(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    engine.clear_caches()
    state = dead_endgame()
    assert engine.quick_status_and_moves(state) is None  # it needs the search
    threads: list[str] = []
    search = engine._no_foundation_move_reachable

    def spy(s: engine.State) -> Any:
        threads.append(threading.current_thread().name)
        return search(s)

    monkeypatch.setattr(engine, "_no_foundation_move_reachable", spy)
    app = await make_server()
    assert await app.status_and_moves(state) == (engine.DEAD, [])
    assert threads and all(name.startswith("dead-search") for name in threads)
    # once searched, the verdict is remembered and the next call stays on the loop
    assert engine.quick_status_and_moves(state) == (engine.DEAD, [])
    monkeypatch.undo()
    engine.clear_caches()


async def test_positions_that_need_no_search_are_answered_inline(make_server: ServerFactory) -> None:
    app = await make_server()
    state = engine.new_game("four-seasons", "24")
    assert engine.quick_status_and_moves(state) is not None
    assert await app.status_and_moves(state) == engine.status_and_moves(state)
