"""The bench's lean websocket client (bench/load/leanclient.py) against real
servers on port 0: messages both ways in order, whole fragmented messages, each
answer's time taken as its bytes were read, the close both ways; and the bench
driving the race server and the echo with it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from bench.load.driver import Stats, answered_at, start_echo
from bench.load.leanclient import connect
from bench.load.run import _row
from server.store.embedded import EmbeddedRedis


async def _echo(ws: ServerConnection) -> None:
    async for msg in ws:
        if msg == b"fragments":
            await ws.send([b"one ", b"two ", b"three"])  # one message in three frames
        elif msg == b"close":
            await ws.close(4000, "asked")
        else:
            await ws.send(msg)


@pytest.fixture
async def echo_url() -> AsyncIterator[str]:
    server: Server = await serve(_echo, "127.0.0.1", 0, compression=None)
    port = next(iter(server.sockets)).getsockname()[1]
    try:
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.close()
        await server.wait_closed()


async def test_messages_go_both_ways_in_order(echo_url: str) -> None:
    client = await connect(echo_url)
    for i in range(50):
        await client.send(b"m%d" % i)
    assert [await client.recv() for _ in range(50)] == [b"m%d" % i for i in range(50)]
    await client.close()


async def test_a_message_in_several_frames_comes_whole(echo_url: str) -> None:
    client = await connect(echo_url)
    await client.send(b"fragments")
    await client.send(b"after")
    assert await client.recv() == b"one two three"
    assert await client.recv() == b"after"
    await client.close()


async def test_an_answer_is_timed_when_its_bytes_were_read_not_when_it_was_looked_at(
        echo_url: str) -> None:
    client = await connect(echo_url)
    sent = time.perf_counter()
    await client.send(b"ping")
    await asyncio.sleep(0.2)  # the answer arrives while the player is busy elsewhere
    assert await client.recv() == b"ping"
    looked = time.perf_counter()
    assert sent < answered_at(client) == client.arrived < looked - 0.1
    await client.close()


async def test_a_server_close_ends_recv_and_a_client_close_ends_the_connection(
        echo_url: str) -> None:
    client = await connect(echo_url)
    await client.send(b"close")
    with pytest.raises(ConnectionClosed) as info:
        await client.recv()
    assert info.value.rcvd is not None and info.value.rcvd.code == 4000
    with pytest.raises(ConnectionClosed):
        await client.send(b"late")
    other = await connect(echo_url)
    await other.close()
    assert other.transport is not None and other.transport.is_closing()


async def test_a_refused_handshake_raises() -> None:
    async def refuse(ws: ServerConnection) -> None:  # pragma: no cover - never reached
        await ws.close()

    server = await serve(refuse, "127.0.0.1", 0,
                         process_request=lambda ws, req: ws.respond(403, "no\n"))
    port = next(iter(server.sockets)).getsockname()[1]
    try:
        with pytest.raises(Exception, match="403"):
            await connect(f"ws://127.0.0.1:{port}/")
    finally:
        server.close()
        await server.wait_closed()


def test_the_bench_drives_server_and_both_echoes_with_the_lean_client() -> None:
    """``--client lean`` for every phase, and ``--echo-store``: the echo that
    stores each message in a Redis of its own is swept beside the bare echo."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.load", "--client", "lean", "--echo-store",
         "--players", "4", "--open-players", "4", "--rates", "20", "--idle-players", "4",
         "--seconds", "1", "--sweep-seconds", "1", "--repeat", "1", "--generators", "1",
         "--engine-seconds", "0.1", "--json"],
        capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(out.stdout)
    assert report["args"]["client"] == "lean" and report["args"]["echo_store"] is True
    server, echo = report["closed"]
    assert server["n"] > 0 and echo["n"] > 0 and server["unanswered"] == 0
    rows = report["sweep"][0]["rows"]
    assert [row["name"] for row in rows] == ["server", "echo", "echo+store"]
    for row in rows:
        assert row["n"] > 0 and row["unanswered"] == 0 and 0 < row["p50_ms"] < 1000
        # the answering process's CPU per answer (psutil counts whole clock ticks:
        # twenty answers may take less than one, so zero is a possible reading)
        assert row["cpu_us"] >= 0


def test_the_store_echo_stores_each_message_before_it_answers(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "redis") as store:
        echo = start_echo(40, store=store.url)
        try:
            async def talk() -> None:
                client = await connect(echo.url)
                rdb = redis.asyncio.Redis.from_url(store.url)
                for i in range(3):
                    await client.send(b"move %d" % i)
                    assert await client.recv() == b"v" * 40
                    stored = await rdb.lrange("echo:1:log", 0, -1)
                    assert stored == [b"move %d" % k for k in range(i + 1)]  # stored before answered
                await rdb.aclose()
                await client.close()

            asyncio.run(talk())
        finally:
            echo.stop()


def test_an_open_loop_row_gives_its_process_cpu_per_answer() -> None:
    stats = Stats(rtts=[0.001, 0.002, 0.003, 0.004], accepted=4)
    row = _row("echo", stats, 2.0, cpu_s=0.002)
    assert row["cpu_us"] == pytest.approx(500.0) and row["per_s"] == 2.0
    assert "cpu_us" not in _row("echo", stats, 2.0)  # the closed loop reports it elsewhere
