"""Fixtures for the race server tests: a real Redis, real servers, real websocket bots.

* ``redis_url_session``: one real Redis for the whole session (``$REDIS_URL`` or a
  private redis-server); tests keep to their own room codes, never FLUSHALL.
* ``make_server``: in-process :class:`RaceServer` instances on port 0 (short
  countdown, high rate limit unless told otherwise), closed in teardown.
* ``server`` / ``url``: the default one of those and its websocket URL.
* ``spawn``: real ``patience-server serve`` subprocesses on free ports with
  ``REDIS_URL`` set, killed in teardown.
* ``rdb``: an asyncio Redis client on the session Redis, to look at what was stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.app import RaceServer
from server.game import engine
from server.game.cards import card_text
from server.game.state import State
from server.ops.config import Settings
from server.store.compact import unpack_record
from tests.support.bot import Bot
from tests.support.redis_server import redis_url

VARIANT = "four-seasons"
COUNTDOWN_MS = 150
FAST_RATE = 100_000  # bots play as fast as they can: no rate limiting in the way
# Every test's bots come from 127.0.0.1: the per-address limits are lifted
# unless a test asks for them (the limit tests pass the real defaults).
NO_ADDRESS_LIMITS: dict[str, Any] = {
    "connections_per_address": 100_000, "address_rate_per_2s": 10_000_000,
    "rooms_per_minute": 1_000_000, "claims_per_hour": 1_000_000, "join_penalty_ms": 0,
    "guesses_per_hour": 1_000_000}
SERVE_LINE = re.compile(rb"serving ws://([^:/]+):(\d+)/")
CARD_STRINGS = frozenset(card_text(c) for c in range(52))


# -- Redis ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def redis_url_session() -> Iterator[str]:
    with redis_url() as url:
        yield url


@pytest.fixture
async def rdb(redis_url_session: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url_session)
    yield client
    await client.aclose()


def txt(value: bytes | str | None) -> str:
    """A Redis reply as text ('' for a missing value)."""
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value


async def room_snapshot(client: aioredis.Redis, code: str) -> dict[str, Any]:
    """Every stored key of a room and its value (hashes as dicts, lists as lists)."""
    out: dict[str, Any] = {}
    async for key in client.scan_iter(match=f"room:{{{code}}}:*"):
        k = txt(key)
        kind = txt(await client.type(key))
        if kind == "hash":
            out[k] = {txt(f): v for f, v in (await client.hgetall(key)).items()}
        elif kind == "list":
            out[k] = await client.lrange(key, 0, -1)
        else:
            out[k] = kind
    return out


async def player_row(client: aioredis.Redis, code: str, n: int) -> dict[str, str]:
    raw = await client.hgetall(f"room:{{{code}}}:p:{n}")
    return {txt(k): txt(v) for k, v in raw.items()}


async def move_log(client: aioredis.Redis, code: str, n: int) -> list[str]:
    """Player ``n``'s stored moves: the log's list, or once the race is finished and
    compacted, its part of the packed record (server/store/compact.py)."""
    rows = await client.lrange(f"room:{{{code}}}:log:{n}", 0, -1)
    if not rows:
        packed = await client.get(f"room:{{{code}}}:done")
        if isinstance(packed, bytes) and packed:
            logs = unpack_record(packed)[1]
            return [text for _, text in logs[n - 1]] if n <= len(logs) else []
    return [txt(r).partition(" ")[2] for r in rows]


# -- in-process servers ---------------------------------------------------------------------
ServerFactory = Callable[..., Awaitable[RaceServer]]


@pytest.fixture
async def make_server(redis_url_session: str) -> AsyncIterator[ServerFactory]:
    started: list[RaceServer] = []

    async def make(redis: str | None = None, **overrides: Any) -> RaceServer:
        options: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "countdown_ms": COUNTDOWN_MS,
                                   "race_seconds": 60, "rate_per_2s": FAST_RATE, "daily_par_games": 0,
                                   "grade_budget": 0,
                                   **NO_ADDRESS_LIMITS}
        options.update(overrides)
        app = RaceServer(Settings(**options), redis or redis_url_session)
        await app.start()
        started.append(app)
        return app

    yield make
    for app in reversed(started):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(app.close(), 10)


@pytest.fixture
async def server(make_server: ServerFactory) -> RaceServer:
    return await make_server()


def ws_url(app: RaceServer) -> str:
    return f"ws://127.0.0.1:{app.port}/"


@pytest.fixture
def url(server: RaceServer) -> str:
    return ws_url(server)


# -- server processes -----------------------------------------------------------------------
@dataclass
class ServerProcess:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    lines: list[bytes] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def sigkill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def sigterm(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(15)

    def stop(self) -> None:
        """SIGTERM first, so an embedded redis-server is stopped with the server."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _server_command() -> list[str]:
    exe = Path(sys.executable).parent / "patience-server"
    if exe.exists():
        return [str(exe), "serve"]
    found = shutil.which("patience-server")
    return [found, "serve"] if found else [sys.executable, "-m", "server.cli.main", "serve"]


SpawnFactory = Callable[..., Awaitable[ServerProcess]]


@pytest.fixture
async def spawn(redis_url_session: str, tmp_path: Path) -> AsyncIterator[SpawnFactory]:
    """Start ``patience-server serve`` on a free port (PATIENCE_PORT=0, port read from stdout)."""
    procs: list[ServerProcess] = []

    async def start(redis: str | None = None, **env_overrides: str) -> ServerProcess:
        env = dict(os.environ)
        env.update({"REDIS_URL": redis or redis_url_session, "PATIENCE_PORT": "0",
                    "PATIENCE_HOST": "127.0.0.1", "PATIENCE_COUNTDOWN_MS": str(COUNTDOWN_MS),
                    "PATIENCE_RATE_PER_2S": str(FAST_RATE), "PATIENCE_RACE_SECONDS": "60",
                    "PATIENCE_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1",
                    **{f"PATIENCE_{k.upper()}": str(v) for k, v in NO_ADDRESS_LIMITS.items()}})
        env.update(env_overrides)
        log = tmp_path / f"server-{len(procs)}.log"
        # Popen returns once the process is started (the wait for its port runs in a
        # thread below); the log file is opened and handed to it on the way
        with open(log, "wb") as err:  # noqa: ASYNC230
            proc = subprocess.Popen(  # noqa: ASYNC220
                _server_command(), stdout=subprocess.PIPE, stderr=err,
                stdin=subprocess.DEVNULL, env=env, cwd=tmp_path)
        sp = ServerProcess(proc, 0, log)
        procs.append(sp)

        def wait_port() -> int:
            assert proc.stdout is not None
            for line in iter(proc.stdout.readline, b""):
                sp.lines.append(line)
                m = SERVE_LINE.search(line)
                if m:
                    return int(m.group(2))
            raise RuntimeError(f"server exited ({proc.wait()}) before serving:\n{log.read_text()}")

        sp.port = await asyncio.wait_for(asyncio.to_thread(wait_port), 30)
        return sp

    yield start
    for sp in procs:
        sp.stop()


def steady_port() -> int:
    """A free port below the kernel's range of ephemeral ports, for a server that must
    come back on the port it had: a port 0 handed out from that range may be handed to
    another test's server (or a client's socket) while this one is down."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(100):
        port = random.randrange(20000, max(low, 20001))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")


# -- bots and races ---------------------------------------------------------------------------
async def seat(urls: list[str], variant: str = VARIANT, *, players: int | None = None,
               private: bool = True, names: list[str] | None = None) -> tuple[list[Bot], str]:
    """Connect one bot per URL, the first creates a room and the others join it."""
    bots = [Bot(u, (names or [])[i] if names else f"bot{i + 1}", seed=1000 + i)
            for i, u in enumerate(urls)]
    for bot in bots:
        await bot.connect()
    await bots[0].send({"t": "create", "variant": variant, "players": players or len(bots),
                        "private": private})
    joined = await bots[0].expect("joined")
    code: str = joined["code"]
    for i, bot in enumerate(bots[1:]):
        # codes are case-insensitive: some players type them in lower case
        await bot.send({"t": "join", "code": code.lower() if i % 2 else code})
        await bot.expect("joined", code=code)
    return bots, code


async def start_race(bots: list[Bot]) -> None:
    """Everyone ready; wait for each bot's first view (sent at the start)."""
    for bot in bots:
        await bot.send({"t": "ready"})
    await asyncio.gather(*(bot.expect("view") for bot in bots))


async def race(urls: list[str], variant: str = VARIANT, **kw: Any) -> tuple[list[Bot], str]:
    bots, code = await seat(urls, variant, **kw)
    await start_race(bots)
    return bots, code


async def play_out(bot: Bot, cap: int) -> int:
    """Play up to ``cap`` moves; resign if the game is still going."""
    played = await bot.play(cap)
    assert bot.view is not None
    if bot.view["status"] == "in_progress":
        bot.seq += 1
        await bot.send({"t": "resign", "seq": bot.seq})
        answer = await bot.expect("view", seq=bot.seq)
        assert answer["view"]["status"] == "resigned"
    return played


async def results_of(bot: Bot, timeout: float = 15.0) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
    if bot.results is None:
        await bot.expect("results", timeout=timeout)
    assert bot.results is not None
    return bot.results


async def fetch_record(bot: Bot, player: int) -> dict[str, Any]:
    await bot.send({"t": "record", "player": player})
    msg = await bot.expect("record", player=player)
    record: dict[str, Any] = msg["record"]
    return record


async def close_all(bots: list[Bot]) -> None:
    """Close every bot. Unread messages are drained first: a client whose receive queue
    is full stops reading and would wait out the whole close timeout for the reply."""
    for bot in bots:
        with contextlib.suppress(Exception):
            for _ in range(10_000):
                await bot.recv(0.02)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bot.close(), 5)


async def closed_with(bot: Bot, timeout: float = 10.0) -> int | None:  # noqa: ASYNC109 (a wait with a default deadline of its own)
    """Read until the server closes the connection; return its close code."""
    from websockets.exceptions import ConnectionClosed

    assert bot.ws is not None
    with contextlib.suppress(ConnectionClosed):
        while True:
            await bot.recv(timeout)
    return bot.ws.close_code


def states_of(record: dict[str, Any]) -> list[State]:
    """The true position after 0, 1, ... n moves of a record (the engine replays it)."""
    state = engine.new_game(record["variant"], record["deal"])
    out = [state]
    for text in record["moves"]:
        state = engine.play(state, text)
        out.append(state)
    return out


def is_card(text: object) -> bool:
    return isinstance(text, str) and text in CARD_STRINGS
