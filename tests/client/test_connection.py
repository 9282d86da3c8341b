"""The client's connection against a tiny fake server on a free port."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from client.config import TokenStore
from client.connection import ClientSession, ServerUnreachable, decode_server, describe_failure
from client.state import mode
from server.protocol import encode
from tests.client.fakeserver import CODE, FakeServer


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
