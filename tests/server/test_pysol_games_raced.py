"""The four PySolFC games of issue 15 raced end to end: the real server and two real
clients, the view's legal moves played (deals, draws, foundation moves, redeals), the
board drawn from the server's layout, results at the end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from client.config import TokenStore
from client.connection import ClientSession
from client.keys import UI
from client.screen import render, text_lines
from client.state import RaceState, mode
from tests.server.conftest import ServerFactory, ws_url


def screen(state: RaceState) -> list[str]:
    return text_lines(render(state, UI(), now_ms=int(time.time() * 1000), width=80, height=24))


@pytest.mark.parametrize("variant", ["simplicity-pysol", "czarina-pysol", "corners-pysol",
                                     "les-quatre-coins-pysol"])
async def test_a_pysolfc_game_is_raced_end_to_end(variant: str, make_server: ServerFactory,
                                                 tmp_path: Path) -> None:
    url = ws_url(await make_server())
    ann = ClientSession(url, "ann", tokens=TokenStore(tmp_path / "ann"), backoff_initial=0.05)
    bob = ClientSession(url, "bob", tokens=TokenStore(tmp_path / "bob"), backoff_initial=0.05)
    await ann.connect()
    await bob.connect()
    try:
        await ann.wait_for(lambda st: bool(st.variants), 5)
        assert variant in [v.id for v in ann.state.variants]
        await ann.create(variant, 2, True)
        await ann.wait_for(lambda st: st.room is not None and st.code is not None, 5)
        await bob.join(ann.state.code or "")
        await bob.wait_for(lambda st: st.room is not None, 5)
        await ann.ready()
        await bob.ready()
        await ann.wait_for(lambda st: st.view is not None, 10)
        view = ann.state.view or {}
        assert view["variant"] == variant
        rows = screen(ann.state)
        assert len(rows) <= 24 and "[f1]" in "\n".join(rows)

        played = 0
        for _ in range(80):
            legal = (ann.state.view or {}).get("legal_moves") or []
            move = next((m for m in legal if "-f" in m and not m.startswith("f")), None)
            move = move or next((m for m in ("deal", "draw", "redeal") if m in legal), None)
            if move is None:
                break
            v = ann.state.v
            await ann.move(move)
            await ann.wait_for(lambda st, v=v: st.v > v or st.last_error != "", 5)
            assert ann.state.last_error == "", (move, ann.state.last_error)
            played += 1
        assert played > 0
        await bob.wait_for(lambda st: ann.state.me in st.progress, 5)

        await bob.resign()
        if (ann.state.view or {}).get("status") == "in_progress":
            await ann.resign()
        await ann.wait_for(lambda st: st.results is not None, 10)
        assert (ann.state.results or {})["variant"] == variant and mode(ann.state) == "results"
    finally:
        await ann.close(keep_seat=False)
        await bob.close(keep_seat=False)
