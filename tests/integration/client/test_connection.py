"""The client's connection against a tiny fake server on a free port."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from client.config import CommitmentBook, KeyStore, ServerBook, TokenStore
from client.connection import ClientSession, NameTaken, ServerUnreachable, decode_server, describe_failure
from client.requests import device_label
from client.state import mode
from server.wire.protocol import encode
from tests.support.fakeserver import CODE, FakeServer


@pytest.fixture
async def fake() -> AsyncIterator[FakeServer]:
    server = await FakeServer().start()
    try:
        yield server
    finally:
        await server.stop()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def session(url: str, tmp_path: Path, name: str = "ann") -> ClientSession:
    return ClientSession(url, name, tokens=TokenStore(tmp_path), backoff_initial=0.02, backoff_max=0.2,
                         open_timeout=2)


async def test_hello_welcome_and_a_quick_race(fake: FakeServer, tmp_path: Path) -> None:
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        assert fake.hellos == [{"t": "hello", "proto": 1, "name": "ann"}]
        assert s.state.conn == "online" and abs(s.state.clock_offset_ms) < 1000
        await s.quick("four-seasons")
        await s.wait_for(lambda st: st.room is not None)
        assert s.state.code == CODE and s.state.me == 1 and mode(s.state) == "room"
        saved = json.loads((tmp_path / "tokens.json").read_text())[fake.url]["ann"]
        assert saved["token"] == s.token and saved["pid"] == os.getpid() and s.token
        await s.ready()
        await s.wait_for(lambda st: st.view is not None and 2 in st.progress)
        assert mode(s.state) == "race"
    finally:
        await s.close()


async def test_moves_carry_seq_and_version_and_illegal_ones_show_the_reason(
        fake: FakeServer, tmp_path: Path) -> None:
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        await s.quick("four-seasons")
        await s.ready()
        await s.wait_for(lambda st: st.view is not None)
        first = await s.move("t3-f1")
        await s.wait_for(lambda st: st.v == 1)
        second = await s.move("w-t3")
        err = await s.wait_message("error")
        assert err["seq"] == second and first is not None and second is not None and second > first
        assert s.state.notice == "the waste is empty" and s.state.notice_error
        sent = [m for m in fake.received if m["t"] == "move"]
        assert [(m["move"], m["v"]) for m in sent] == [("t3-f1", 0), ("w-t3", 1)]
        await s.move("t3-f1")
        await s.wait_for(lambda st: st.v == 2)
        assert s.state.notice == ""  # an accepted move clears the complaint
        assert await s.resign() is not None
        await fake.wait_received("resign")
    finally:
        await s.close()


async def test_resume_with_the_token_after_a_dropped_connection(fake: FakeServer, tmp_path: Path) -> None:
    statuses: list[str] = []
    s = session(fake.url, tmp_path)
    s.on_change = lambda: statuses.append(s.state.conn)
    await s.connect()
    try:
        await s.quick("four-seasons")
        await s.ready()
        await s.wait_for(lambda st: st.view is not None)
        await s.move("t3-f1")
        await s.wait_for(lambda st: st.v == 1)
        token = s.token
        await fake.drop()  # abrupt: no close frame
        await s.wait_for(lambda st: st.conn == "reconnecting", 5)
        await s.wait_for(lambda st: st.conn == "online" and len(fake.hellos) == 2, 5)
        assert fake.hellos[1]["token"] == token
        await s.wait_for(lambda st: st.view is not None and st.v == 1, 5)
        assert "reconnecting" in statuses and statuses[-1] == "online"
        assert mode(s.state) == "race" and s.state.code == CODE
        # and it carries on
        await s.move("t3-f1")
        await s.wait_for(lambda st: st.v == 2)
    finally:
        await s.close()


async def test_a_client_closed_for_falling_behind_resumes(fake: FakeServer, tmp_path: Path) -> None:
    """1013: the server dropped us for reading too slowly; the seat is still ours."""
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        await s.quick("four-seasons")
        await s.wait_for(lambda st: st.room is not None)
        token = s.token
        await fake.drop(1013)
        await s.wait_for(lambda st: st.conn == "online" and len(fake.hellos) == 2, 5)
        assert fake.hellos[1]["token"] == token and s.state.code == CODE
    finally:
        await s.close()


async def test_server_restart_is_survived_with_backoff(tmp_path: Path) -> None:
    fake = await FakeServer().start()
    port = fake.port
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        await s.quick("four-seasons")
        await s.wait_for(lambda st: st.room is not None)
        tokens = dict(fake.tokens)
        await fake.drop(1001)  # "going away": the server restarts
        await fake.stop()
        await s.wait_for(lambda st: st.conn == "reconnecting" and st.attempt >= 3, 5)
        assert s.state.conn == "reconnecting"
        fake2 = FakeServer()
        fake2.tokens = tokens  # the new process shares the store
        await fake2.start(port)
        try:
            await s.wait_for(lambda st: st.conn == "online" and st.room is not None, 5)
            assert fake2.hellos[0]["token"] == s.token and s.state.code == CODE
        finally:
            await s.close()
            await fake2.stop()
    finally:
        await s.close()


async def test_an_unknown_token_falls_back_to_a_plain_hello(fake: FakeServer, tmp_path: Path) -> None:
    TokenStore(tmp_path).save(fake.url, "ann", "ABC123.1.expired")
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        assert fake.hellos[0]["token"] == "ABC123.1.expired"
        assert "token" not in fake.hellos[1]
        assert s.state.conn == "online" and mode(s.state) == "lobby" and s.token is None
        assert TokenStore(tmp_path).load(fake.url, "ann") is None
    finally:
        await s.close()


async def test_a_stored_token_resumes_after_a_client_restart(fake: FakeServer, tmp_path: Path) -> None:
    first = session(fake.url, tmp_path)
    await first.connect()
    await first.quick("four-seasons")
    await first.ready()
    await first.wait_for(lambda st: st.view is not None)
    await first.close()  # quitting mid-race keeps the seat
    again = session(fake.url, tmp_path)
    await again.connect()
    try:
        await again.wait_for(lambda st: st.view is not None)
        assert fake.hellos[-1]["token"] == first.token and mode(again.state) == "race"
        seq = await again.move("t3-f1")
        assert seq is not None and seq >= 1
    finally:
        await again.close(keep_seat=False)
    assert TokenStore(tmp_path).load(fake.url, "ann") is None


async def test_a_takeover_is_final(fake: FakeServer, tmp_path: Path) -> None:
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        await s.quick("four-seasons")
        await s.wait_for(lambda st: st.room is not None)
        await fake.drop(1000)  # a newer connection of this player took over
        await s.wait_for(lambda st: st.conn == "closed", 5)
        assert "taken over" in s.state.notice
        await asyncio.sleep(0.3)
        assert len(fake.hellos) == 1  # no reconnect fight
        assert not await s.send({"t": "ping"})
    finally:
        await s.close()


async def test_unreachable_server_gives_one_sentence(tmp_path: Path) -> None:
    url = f"ws://127.0.0.1:{closed_port()}"
    s = session(url, tmp_path)
    with pytest.raises(ServerUnreachable) as info:
        await s.connect()
    text = str(info.value)
    assert text == f"Cannot reach the Patience Race server at {url}: the connection was refused " \
                   "(is the server running?)."
    assert "\n" not in text and text.count(". ") == 0
    with pytest.raises(ServerUnreachable, match="not a websocket address"):
        await session("http://127.0.0.1:1", tmp_path).connect()


async def test_a_non_websocket_server_is_named(tmp_path: Path) -> None:
    async def http_only(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(http_only, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(ServerUnreachable, match=r"not as a Patience Race server \(HTTP 404\)"):
            await session(f"ws://127.0.0.1:{port}", tmp_path).connect()
    finally:
        server.close()
        await server.wait_closed()


def test_decode_server_refuses_what_is_not_a_message() -> None:
    assert decode_server(encode({"t": "pong", "server_time": 5})) == {"t": "pong", "server_time": 5}
    for bad in ("text", b"\xc1", encode({"x": 1}), b"\x93\x01\x02\x03"):
        with pytest.raises(ValueError):
            decode_server(bad)
    assert describe_failure("ws://h:1", TimeoutError()).endswith("did not answer in time.")


# -- names, the daily, boards ------------------------------------------------------------------------
def named(url: str, tmp_path: Path, name: str = "ann", key: str | None = None) -> ClientSession:
    return ClientSession(url, name, tokens=TokenStore(tmp_path), keys=KeyStore(tmp_path),
                         commitments=CommitmentBook(tmp_path), servers=ServerBook(tmp_path), key=key,
                         backoff_initial=0.02,
                         backoff_max=0.2, open_timeout=2)


async def test_a_claimed_key_is_kept_privately_and_sent_in_every_hello(fake: FakeServer,
                                                                         tmp_path: Path) -> None:
    s = named(fake.url, tmp_path)
    await s.connect()
    try:
        assert "key" not in fake.hellos[0] and not s.state.claimed
        await s.claim()
        await s.wait_for(lambda st: st.claimed)
        key = fake.claimed["ann"]
        assert s.key == key and s.state.name == "ann" and "yours" in s.state.notice
        path = tmp_path / "keys.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert json.loads(path.read_text())[fake.url]["ann"]["key"] == key
    finally:
        await s.close()
    again = named(fake.url, tmp_path)  # a later run
    await again.connect()
    try:
        assert fake.hellos[-1] == {"t": "hello", "proto": 1, "name": "ann", "key": key}
        assert again.state.claimed and again.state.conn == "online"
        # and after a dropped connection too
        await fake.drop()
        await again.wait_for(lambda st: st.conn == "online" and len(fake.hellos) == 3, 5)
        assert fake.hellos[-1]["key"] == key
    finally:
        await again.close()


async def test_a_typed_name_is_claimed_and_played_under(fake: FakeServer, tmp_path: Path) -> None:
    s = named(fake.url, tmp_path)
    await s.connect()
    try:
        await s.claim("Zed")
        await s.wait_for(lambda st: st.claimed)
        assert fake.received[-1] == {"t": "claim", "name": "Zed", "label": device_label()}
        assert s.name == "Zed" == s.state.name
        assert KeyStore(tmp_path).load(fake.url, "zed") == fake.claimed["zed"]  # found whatever the case
        assert KeyStore(tmp_path).load(fake.url, "ann") is None
        # a name someone else holds: the server's reason, and nothing stored
        await s.claim("Zed")
        await s.wait_for(lambda st: st.last_error == "name_taken")
        assert "already claimed" in s.state.notice and s.state.notice_error
    finally:
        await s.close()


async def test_name_taken_at_hello_is_one_sentence(fake: FakeServer, tmp_path: Path) -> None:
    fake.claimed["ann"] = "their-key"
    s = named(fake.url, tmp_path)
    with pytest.raises(NameTaken) as info:
        await s.connect()
    text = str(info.value)
    assert isinstance(info.value, ServerUnreachable) and s.state.conn == "closed"
    assert text == (f"The name 'ann' is claimed on {fake.url} by someone else: start with another --name, "
                    "or, if it is yours, give its key with --key-file (or $PATIENCE_KEY), or link this "
                    "computer with --link CODE or --recover CODE.")
    KeyStore(tmp_path).save(fake.url, "ann", "a-stale-key")
    with pytest.raises(NameTaken, match="refused the key kept for it: start with another --name, or give the "
                                        "right key with --key-file"):
        await named(fake.url, tmp_path).connect()
    assert len(fake.hellos) == 2  # no retrying a refused name


async def test_a_key_given_by_hand_is_kept_once_accepted(fake: FakeServer, tmp_path: Path) -> None:
    fake.claimed["ann"] = "k-ann"
    with pytest.raises(NameTaken):
        await named(fake.url, tmp_path, key="wrong").connect()
    assert KeyStore(tmp_path).load(fake.url, "ann") is None
    s = named(fake.url, tmp_path, key="k-ann")
    await s.connect()
    try:
        assert fake.hellos[-1]["key"] == "k-ann" and s.state.claimed
        assert KeyStore(tmp_path).load(fake.url, "ann") == "k-ann"
    finally:
        await s.close()


async def test_board_changed_asks_again_once_per_push_while_on_screen(fake: FakeServer,
                                                                        tmp_path: Path) -> None:
    s = named(fake.url, tmp_path)
    await s.connect()
    try:
        await s.board("rating", offset=15)
        await s.wait_for(lambda st: st.board is not None)
        assert fake.received[-1] == {"t": "board", "kind": "rating", "offset": 15, "limit": 15}
        assert [e["rank"] for e in (s.state.board or {})["entries"]][:2] == [16, 17]

        def asked() -> int:
            return sum(1 for m in fake.received if m["t"] == "board")

        await fake.push({"t": "board_changed", "board": "rating"})
        await fake.wait_received("board", 2)
        await fake.push({"t": "board_changed", "board": "rating"})
        await fake.push({"t": "board_changed", "board": "rating"})
        await fake.wait_received("board", 4)
        assert fake.received[-1] == {"t": "board", "kind": "rating", "offset": 15, "limit": 15}
        await fake.push({"t": "board_changed", "board": "wins:czarina"})  # not the board on screen
        s.unwatch_board()
        await fake.push({"t": "board_changed", "board": "rating"})  # off screen now
        await s.ping()
        await s.wait_message("pong")
        assert asked() == 4 and s.board_refreshes == 3

        # a daily board is named by its date, known from the answer
        await s.board("daily", "czarina")
        await s.wait_for(lambda st: (st.board or {}).get("kind") == "daily")
        (s.state.board or {})["date"] = "2026-11-30"
        await fake.push({"t": "board_changed", "board": "daily:2026-11-29:czarina"})
        await fake.push({"t": "board_changed", "board": "daily:2026-11-30:czarina"})
        await fake.wait_received("board", 6)
        await s.ping()
        await s.wait_message("pong")
        assert asked() == 6
    finally:
        await s.close()


async def test_daily_info_and_the_daily_room(fake: FakeServer, tmp_path: Path) -> None:
    book = CommitmentBook(tmp_path)
    book.note(fake.url, "2026-11-29", "czarina", "ab" * 32)
    fake.daily_info["yesterday"] = {"date": "2026-11-29", "day": 333, "deal": "1", "salt": "s",
                                    "commitment": "ab" * 32, "par": None, "check": False}
    s = named(fake.url, tmp_path)
    await s.connect()
    try:
        await s.daily_info("czarina")
        await s.wait_for(lambda st: "czarina" in st.daily_info)
        assert s.state.daily_info["czarina"]["day"] == 334
        assert s.state.seen_commitments["2026-11-29|czarina"] == "ab" * 32
        today = CommitmentBook(tmp_path).seen(fake.url, "2026-11-30", "czarina")
        assert today == fake.daily_info["commitment"]
        await s.daily("czarina")
        await s.wait_for(lambda st: st.room is not None)
        assert fake.received[-1] == {"t": "daily", "variant": "czarina"}
        assert (s.state.room or {})["daily"] == "2026-11-30" and mode(s.state) == "room"
    finally:
        await s.close()


async def test_my_rating_is_remembered_for_the_next_change(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path)
    keys.save("ws://h:1", "ann", "k")
    s = ClientSession("ws://h:1", "ann", keys=keys)
    s._handle({"t": "joined", "code": "R1", "player": 1, "token": "R1.1.x"})
    s._handle({"t": "results", "code": "R1", "ranking": [], "ratings": {"ann": 2.5, "bob": -1.0}})
    assert KeyStore(tmp_path).rating("ws://h:1", "ann") == 2.5
    assert KeyStore(tmp_path).rating("ws://h:1", "bob") is None  # only names with a key are kept
    later = ClientSession("ws://h:1", "ann", keys=KeyStore(tmp_path))
    later._handle({"t": "joined", "code": "R2", "player": 1, "token": "R2.1.x"})
    later._handle({"t": "results", "code": "R2", "ranking": [], "ratings": {"ann": 3.0}})
    assert later.state.rating_changes[0].before == 2.5


async def test_a_reconnect_joins_the_arena_again(fake: FakeServer, tmp_path: Path) -> None:
    s = session(fake.url, tmp_path)
    await s.connect()
    try:
        await fake.push({"t": "arena", "id": "K7QX2M", "phase": "running", "member": True, "top": [],
                         "me": None})
        await s.wait_for(lambda st: st.arena is not None)
        await fake.drop()
        await s.wait_for(lambda st: st.conn == "online" and len(fake.hellos) == 2, 5)
        rejoin = await fake.wait_received("arena_join")
        assert rejoin["id"] == "K7QX2M"
        assert [m["t"] for m in fake.received].count("arena_join") == 1
    finally:
        await s.close()
