"""End to end: a real server (and a real Redis), two clients in-process, a whole race.

Skipped until the server is importable: it needs ``server.app.RaceServer`` (with
``start()``, ``port`` and ``close()``) and ``server.ops.config.Settings``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from client.config import TokenStore
from client.connection import ClientSession
from client.keys import UI
from client.screens import render
from client.state import RaceState, mode
from client.text import text_lines
from tests.support.client_races import moved_on
from tests.support.servers import steady_port

server_app: Any = pytest.importorskip("server.app", reason="the race server has not landed yet")
server_config: Any = pytest.importorskip("server.ops.config", reason="the race server has not landed yet")
RaceServer: Any = getattr(server_app, "RaceServer", None)
if RaceServer is None or not all(hasattr(RaceServer, a) for a in ("start", "close", "port")):
    pytest.skip("server.app has no RaceServer entry point yet", allow_module_level=True)
redis_support: Any = pytest.importorskip("tests.support.redis_server")


@pytest.fixture
async def server_url() -> AsyncIterator[str]:
    with redis_support.redis_url() as redis_url:
        settings = server_config.Settings(host="127.0.0.1", port=0, race_seconds=120, countdown_ms=300)
        server = RaceServer(settings, redis_url)
        await server.start()
        try:
            yield f"ws://127.0.0.1:{server.port}"
        finally:
            await server.close()


def screen(state: RaceState) -> str:
    return "\n".join(text_lines(render(state, UI(), now_ms=int(time.time() * 1000))))


async def play_some(s: ClientSession, count: int) -> None:
    """Make up to ``count`` moves from the server's legal list (no rules here)."""
    for _ in range(count):
        view = s.state.view or {}
        if view.get("status") != "in_progress" or not view.get("legal_moves"):
            return
        legal = view["legal_moves"]
        move = next((m for m in legal if "-f" in m), legal[0])
        v = s.state.v
        await s.move(move)
        await s.wait_for(partial(moved_on, v), 5)


async def test_two_clients_race_from_hello_to_rematch(server_url: str, tmp_path: Path) -> None:
    ann = ClientSession(server_url, "ann", tokens=TokenStore(tmp_path / "ann"), backoff_initial=0.05)
    bob = ClientSession(server_url, "bob\x1b[31m", tokens=TokenStore(tmp_path / "bob"), backoff_initial=0.05)
    await ann.connect()
    await bob.connect()
    try:
        await ann.create("four-seasons", 2, True)
        await ann.wait_for(lambda st: st.room is not None)
        code = ann.state.code
        assert code is not None and "Share this code" in screen(ann.state)
        await bob.join(code.lower())
        await bob.wait_for(lambda st: st.code == code and st.room is not None)
        await ann.wait_for(lambda st: len((st.room or {}).get("players", [])) == 2)

        await ann.ready()
        await bob.ready()
        await ann.wait_for(lambda st: mode(st) == "countdown", 5)
        await ann.wait_for(lambda st: st.view is not None, 10)
        await bob.wait_for(lambda st: st.view is not None, 10)
        board = screen(ann.state)
        assert "[f1]" in board and "[f4]" in board and "bob" in board and "\x1b" not in board

        await play_some(ann, 3)
        assert ann.state.v >= 1
        await bob.wait_for(lambda st: ann.state.me in st.progress, 5)

        # an illegal move gets the server's reason
        await ann.move("t1-t9")
        await ann.wait_for(lambda st: st.notice_error, 5)
        assert ann.state.notice

        # a dropped connection is resumed with the token, and the race carries on
        v_before = ann.state.v
        assert ann._ws is not None
        ann._ws.transport.abort()
        await ann.wait_for(lambda st: st.conn == "reconnecting", 5)
        await ann.wait_for(lambda st: st.conn == "online" and st.view is not None and st.v == v_before, 10)
        await play_some(ann, 2)

        await bob.resign()
        await ann.resign()
        await ann.wait_for(lambda st: st.results is not None, 10)
        await bob.wait_for(lambda st: st.results is not None, 10)
        results = screen(ann.state)
        assert "Results" in results and "ann *" in results and "bob" in results
        ranking = (ann.state.results or {})["ranking"]
        assert [r["place"] for r in ranking] == [1, 2]

        await ann.rematch()  # an offer: nobody moves until bob accepts too
        await bob.wait_for(lambda st: st.rematch_offer is not None, 10)
        assert "offered a rematch: m accept" in screen(bob.state)
        assert ann.state.code == code
        await bob.rematch()
        await ann.wait_for(lambda st: st.code not in (None, code) and mode(st) == "room", 10)
        await bob.wait_for(lambda st: st.code == ann.state.code and mode(st) == "room", 10)
        assert (ann.state.me, bob.state.me) == (1, 2)  # the race's seats, in its order
    finally:
        await ann.close(keep_seat=False)
        await bob.close(keep_seat=False)


async def test_clients_resume_after_a_server_restart(tmp_path: Path) -> None:
    with redis_support.redis_url() as redis_url:
        # it comes back on its port: one that no other server can be handed meanwhile
        settings = server_config.Settings(host="127.0.0.1", port=steady_port(), race_seconds=120,
                                          countdown_ms=200)
        first: Any = RaceServer(settings, redis_url)
        await first.start()
        port = first.port
        url = f"ws://127.0.0.1:{port}"
        ann = ClientSession(url, "ann", tokens=TokenStore(tmp_path / "ann"), backoff_initial=0.05,
                            backoff_max=0.3)
        bob = ClientSession(url, "bob", tokens=TokenStore(tmp_path / "bob"), backoff_initial=0.05,
                            backoff_max=0.3)
        second: Any = None
        try:
            await ann.connect()
            await bob.connect()
            await ann.create("betsy-ross", 2, True)
            await ann.wait_for(lambda st: st.code is not None)
            await bob.join(ann.state.code or "")
            await bob.wait_for(lambda st: st.room is not None)
            await ann.ready()
            await bob.ready()
            await ann.wait_for(lambda st: st.view is not None, 10)
            await ann.move("draw")
            await ann.wait_for(lambda st: st.v == 1, 5)

            await first.close()  # clients are told 1001: going away
            first = None
            await ann.wait_for(lambda st: st.conn == "reconnecting", 5)
            assert "reconnecting" in screen(ann.state)
            # the port is free at once: no worker process of the first server holds it
            # (server/ops/workers.py)
            second = RaceServer(server_config.Settings(host="127.0.0.1", port=port, race_seconds=120,
                                                       countdown_ms=200), redis_url)
            await second.start()
            await ann.wait_for(lambda st: st.conn == "online" and st.view is not None and st.v == 1, 10)
            await bob.wait_for(lambda st: st.conn == "online" and st.view is not None, 10)
            await ann.move("draw")
            await ann.wait_for(lambda st: st.v == 2, 5)
        finally:
            await ann.close(keep_seat=False)
            await bob.close(keep_seat=False)
            for server in (first, second):
                if server is not None:
                    await server.close()
