"""End to end: a real server (with a secret) and a real Redis; the client claims its name,
plays today's challenge, sees its share line and finds itself on the daily board; two
claimed names race and see their ratings move.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from client.config import CommitmentBook, KeyStore, ServerBook, TokenStore
from client.connection import ClientSession, NameTaken
from client.keys import UI
from client.screens import render
from client.state import RaceState, mode
from client.text import text_lines

server_app: Any = pytest.importorskip("server.app", reason="the race server has not landed yet")
server_config: Any = pytest.importorskip("server.ops.config", reason="the race server has not landed yet")
redis_support: Any = pytest.importorskip("tests.support.redis_server")

VARIANT = "czarina"


@pytest.fixture
async def server_url() -> AsyncIterator[str]:
    with redis_support.redis_url() as redis_url:
        settings = server_config.Settings(host="127.0.0.1", port=0, race_seconds=120, countdown_ms=200,
                                          secret="x", daily_budget=2000, daily_tries=2,
                                          daily_par_games=0, grade_budget=0)
        server = server_app.RaceServer(settings, redis_url)
        await server.start()
        try:
            yield f"ws://127.0.0.1:{server.port}"
        finally:
            await server.close()


def player(url: str, name: str, home: Path) -> ClientSession:
    return ClientSession(url, name, tokens=TokenStore(home), keys=KeyStore(home),
                         commitments=CommitmentBook(home), servers=ServerBook(home), backoff_initial=0.05)


def screen(state: RaceState, ui: UI | None = None) -> str:
    return "\n".join(text_lines(render(state, ui or UI(), now_ms=int(time.time() * 1000))))


def unique(name: str) -> str:
    return f"{name}{time.time_ns() % 10**9}"  # an external REDIS_URL may keep names of earlier runs


async def claim(s: ClientSession) -> str:
    await s.connect()
    await s.claim()
    await s.wait_for(lambda st: st.claimed or st.last_error != "", 10)
    assert s.state.claimed, s.state.notice
    assert s.key is not None
    assert len(s.state.recovery_codes) == 8
    s.state.recovery_codes = []  # written down (Enter on the codes screen): the lobby's screens again
    return s.key


async def test_claim_play_the_daily_and_find_yourself_on_the_board(server_url: str, tmp_path: Path) -> None:
    name = unique("ann")
    ann = player(server_url, name, tmp_path / "ann")
    watcher = player(server_url, unique("eve"), tmp_path / "eve")
    try:
        key = await claim(ann)
        saved = json.loads((tmp_path / "ann" / "keys.json").read_text())
        assert ann.server_id and list(saved) == [f"id:{ann.server_id}"]  # filed by server id
        assert saved[f"id:{ann.server_id}"][name]["key"] == key

        # someone else cannot use the name
        with pytest.raises(NameTaken, match="is claimed on .* by someone else"):
            await player(server_url, name.upper(), tmp_path / "thief").connect()

        # today's challenge: its info (the solver picks the deal in a worker the first time)
        await ann.daily_info(VARIANT)
        await ann.wait_for(lambda st: VARIANT in st.daily_info or st.last_error != "", 60)
        info = ann.state.daily_info[VARIANT]
        daily_ui = UI(menu="daily", variant=VARIANT)
        text = screen(ann.state, daily_ui)
        assert f"Day #{info['day']} \u00b7 {info['date']}" in text
        assert info["commitment"][:16] in text and "Ranked: this attempt goes on today's board" in text

        # someone watches today's board while ann plays: the push makes them ask again
        await watcher.connect()
        await watcher.board("daily", VARIANT)
        await watcher.wait_for(lambda st: st.board is not None, 10)
        assert (watcher.state.board or {})["total"] == 0

        await ann.daily(VARIANT)
        await ann.wait_for(lambda st: (st.room or {}).get("daily") is not None, 60)
        assert (ann.state.room or {})["ranked"] is True and mode(ann.state) == "room"
        assert "Ranked attempt: your result goes on today's board." in screen(ann.state)
        await ann.ready()
        await ann.wait_for(lambda st: st.view is not None, 10)
        assert "daily, ranked" in screen(ann.state).splitlines()[0]
        await ann.move("draw")
        await ann.wait_for(lambda st: st.v == 1 or st.last_error != "", 5)
        await ann.resign()
        await ann.wait_for(lambda st: st.results is not None, 10)

        results = ann.state.results or {}
        assert results["ranked"] is True and results["deal"] is None
        assert results["share"].startswith(f"Patience Race daily #{info['day']} \u00b7 Czarina \u00b7 ")
        assert results["streaks"] == {"streak_days": 1, "win_streak": 0}
        text = screen(ann.state)
        assert f"today's challenge #{info['day']} \u00b7 ranked" in text
        assert f"Share:  {results['share']} " in text
        assert "Streaks: 1 day in a row with a ranked attempt" in text

        # the watcher's board was asked for again after the push, and shows ann
        await watcher.wait_for(lambda st: (st.board or {}).get("total") == 1, 10)
        assert watcher.board_refreshes == 1

        # b on the results: back to the lobby, today's board on screen
        await ann.leave()
        await ann.board("daily", VARIANT)
        await ann.wait_for(lambda st: st.board is not None, 10)
        board_ui = UI(menu="board", board_kind="daily", variant=VARIANT)
        text = screen(ann.state, board_ui)
        row = next(line for line in text.splitlines() if f"{name} *" in line)
        assert row.split()[0] == "1" and "not won" in row
        assert "1-1 of 1" in text

        # a later attempt is practice
        await ann.daily(VARIANT)
        await ann.wait_for(lambda st: (st.room or {}).get("daily") is not None, 10)
        assert (ann.state.room or {})["ranked"] is False
        assert "Practice: only your first attempt" in screen(ann.state)
    finally:
        await ann.close(keep_seat=False)
        await watcher.close(keep_seat=False)

    # the next run sends the kept key and plays as the claimed name
    again = player(server_url, name, tmp_path / "ann")
    await again.connect()
    try:
        assert again.state.claimed and "(claimed)" in screen(again.state)
    finally:
        await again.close(keep_seat=False)


async def test_a_race_between_claimed_names_shows_the_ratings(server_url: str, tmp_path: Path) -> None:
    ann = player(server_url, unique("ann"), tmp_path / "ann")
    bob = player(server_url, unique("bob"), tmp_path / "bob")
    try:
        await claim(ann)
        await claim(bob)
        await ann.create(VARIANT, 2, True)
        await ann.wait_for(lambda st: st.code is not None)
        await bob.join(ann.state.code or "")
        await bob.wait_for(lambda st: st.room is not None)
        await ann.ready()
        await bob.ready()
        await ann.wait_for(lambda st: st.view is not None, 10)
        await bob.wait_for(lambda st: st.view is not None, 10)
        await ann.move("draw")
        await ann.wait_for(lambda st: st.v == 1 or st.last_error != "", 5)
        await bob.resign()
        await ann.resign()
        await ann.wait_for(lambda st: st.results is not None, 10)
        ratings = (ann.state.results or {})["ratings"]
        assert set(ratings) == {ann.name, bob.name}
        text = screen(ann.state)
        assert "(OpenSkill ordinal; ? provisional)" in text and f"{ann.name} *" in text and bob.name in text
        # ann's new rating is kept with her key: the next race shows the change
        assert KeyStore(tmp_path / "ann").rating(ann.where, ann.name) == ratings[ann.name]
    finally:
        await ann.close(keep_seat=False)
        await bob.close(keep_seat=False)


async def test_a_name_claimed_on_one_address_is_yours_on_another_spelling(server_url: str,
                                                                          tmp_path: Path) -> None:
    name = unique("ann")
    ann = player(server_url, name, tmp_path)
    try:
        await claim(ann)
    finally:
        await ann.close(keep_seat=False)
    again = player(server_url.replace("127.0.0.1", "localhost"), name, tmp_path)
    await again.connect()
    try:
        assert again.state.claimed and again.server_id == ann.server_id is not None
    finally:
        await again.close(keep_seat=False)
