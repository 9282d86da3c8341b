"""The four PySolFC games of issue 15 raced end to end: the real server and two real
clients, the view's legal moves played (deals, draws, foundation moves, redeals), the
board drawn from the server's layout, results at the end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from client.keys import UI
from client.screens import render
from client.state import RaceState, mode
from client.text import text_lines
from tests.support.client_races import play_forward, start_race, two_clients
from tests.support.servers import ServerFactory, ws_url


def screen(state: RaceState) -> list[str]:
    return text_lines(render(state, UI(), now_ms=int(time.time() * 1000), width=80, height=24))


@pytest.mark.parametrize("variant", ["simplicity-pysol", "czarina-pysol", "corners-pysol",
                                     "les-quatre-coins-pysol"])
async def test_a_pysolfc_game_is_raced_end_to_end(variant: str, make_server: ServerFactory,
                                                 tmp_path: Path) -> None:
    async with two_clients(ws_url(await make_server()), tmp_path) as (ann, bob):
        await start_race(ann, bob, variant)
        view = ann.state.view or {}
        assert view["variant"] == variant
        rows = screen(ann.state)
        assert len(rows) <= 24 and "[f1]" in "\n".join(rows)
        assert await play_forward(ann, 80) > 0
        await bob.wait_for(lambda st: ann.state.me in st.progress, 5)

        await bob.resign()
        if (ann.state.view or {}).get("status") == "in_progress":
            await ann.resign()
        await ann.wait_for(lambda st: st.results is not None, 10)
        assert (ann.state.results or {})["variant"] == variant and mode(ann.state) == "results"
