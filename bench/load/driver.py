"""``python -m bench.load``: bots against a real server, beside a bare echo.

Starts a server process (on ``$REDIS_URL`` or its embedded Redis) and a bare
websockets echo process on the same kind of event loop, then measures, in the
same run and with the same client:

* closed loop: N players each sending their next move as soon as the last is
  answered: accepted moves per second and round-trip p50/p99, against the echo
  answering messages of the same sizes;
* open loop: M players sending at a fixed total rate: p50/p99 against the echo
  at the same rate;
* Redis round trips per accepted move (from the server's /metrics);
* server memory per idle connected player (RSS growth over K players in lobbies).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import psutil
from websockets.asyncio.client import ClientConnection, connect

from server.wire.protocol import PROTOCOL_VERSION, encode

from .leanclient import LeanClient
from .leanclient import connect as lean_connect

# bench/ is not installed: the processes it starts run from the checkout, as it does
CHECKOUT = Path(__file__).resolve().parents[2]

MOVE_BYTES = len(encode({"t": "move", "seq": 123, "move": "t10-t12", "v": 123}))


# -- processes -------------------------------------------------------------------
@dataclass
class Proc:
    popen: subprocess.Popen[str]
    url: str
    port: int

    @property
    def rss(self) -> int:
        return int(psutil.Process(self.popen.pid).memory_info().rss)

    @property
    def own_cpu_s(self) -> float:
        """CPU seconds (user and system) used so far by the process itself."""
        return float(sum(psutil.Process(self.popen.pid).cpu_times()[:2]))

    def stop(self) -> None:
        self.popen.terminate()
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            self.popen.kill()


def _spawn(args: list[str], env: dict[str, str], under: Sequence[str] = ()) -> Proc:
    """``args`` as a process (``under``: a command it runs under, a profiler),
    once it says where it serves."""
    # PATIENCE_BENCH_LOG: a file the spawned processes' logs are appended to (with
    # PATIENCE_LOOP_PROBE_MS, the server's loop probe; server/ops/loopprobe.py)
    log_path = env.get("PATIENCE_BENCH_LOG")
    args = [*under, *args]
    wait_s = 300.0 if under else 30.0  # under a profiler a process starts tens of times slower
    with open(log_path, "a") if log_path else contextlib.nullcontext() as log_file:
        popen = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env, cwd=CHECKOUT,
                                 stderr=log_file if log_file is not None else subprocess.DEVNULL)
    assert popen.stdout is not None
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        line = popen.stdout.readline()
        m = re.search(r"ws://([\d.]+):(\d+)/", line)
        if m:
            return Proc(popen, m.group(0), int(m.group(2)))
        if not line and popen.poll() is not None:
            break
    popen.kill()
    raise RuntimeError(f"could not start {' '.join(args)}")


# Every simulated player comes from this machine's address: the per-address
# budgets (server/ops/limits.py) would refuse most of them.
NO_ADDRESS_LIMITS = {"PATIENCE_CONNECTIONS_PER_ADDRESS": "1000000",
                     "PATIENCE_ADDRESS_RATE_PER_2S": "10000000",
                     "PATIENCE_ROOMS_PER_MINUTE": "1000000", "PATIENCE_CLAIMS_PER_HOUR": "1000000",
                     "PATIENCE_JOIN_PENALTY_MS": "0"}


def start_server(data_dir: str, transport: str | None = None, under: Sequence[str] = (),
                 race_seconds: int = 3600) -> Proc:
    """A server process; ``transport`` (PATIENCE_TRANSPORT) or the environment's;
    ``under``: a command it runs under (a profiler: bench/server_instructions.py)."""
    extra = {"PATIENCE_TRANSPORT": transport} if transport else {}
    env = dict(os.environ, **extra, PATIENCE_PORT="0", PATIENCE_COUNTDOWN_MS="0",
               PATIENCE_RATE_PER_2S="100000", PATIENCE_RACE_SECONDS=str(race_seconds),
               PATIENCE_DATA_DIR=data_dir, PATIENCE_LOG_LEVEL="WARNING", **NO_ADDRESS_LIMITS)
    return _spawn([sys.executable, "-m", "server.cli.main", "serve"], env, under)


def start_echo(reply_bytes: int, transport: str = "websockets", store: str | None = None,
               under: Sequence[str] = ()) -> Proc:
    """The bare echo: websockets' standard asyncio server, or the lean transport's;
    with ``store`` (a Redis URL), the echo that stores each message before its
    answer (websockets' server)."""
    extra = ["--store", store] if store else []
    return _spawn([sys.executable, "-m", "bench.load.run", "echo", "--reply-bytes", str(reply_bytes),
                   "--transport", transport, *extra], dict(os.environ), under)


def metric(proc: Proc, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{proc.port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    m = re.search(rf"^{name}(?:_total)? ([\d.e+]+)$", text, re.M)
    return float(m.group(1)) if m else 0.0


# -- players ---------------------------------------------------------------------
REPLY_TIMEOUT_S = 15.0
READY_TRIES = 5
# the generators' websocket client: the library's asyncio client, or the lean one
# (bench/load/leanclient.py), the same for the server and the echo in one bench
CLIENTS = ("websockets", "lean")
Client = ClientConnection | LeanClient


async def open_client(url: str, client: str = "websockets") -> Client:
    if client == "lean":
        return await lean_connect(url, open_timeout=30)
    return await connect(url, compression=None, max_size=2**20, open_timeout=30)


def answered_at(ws: Client) -> float:
    """When the message ``ws.recv()`` just returned reached this process: as read
    from the socket for the lean client, when the coroutine resumed for the
    library's (which does not keep the time)."""
    return ws.arrived if isinstance(ws, LeanClient) else time.perf_counter()

@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    reply_bytes: list[int] = field(default_factory=list)
    accepted: int = 0
    unanswered: int = 0  # moves with no answer within REPLY_TIMEOUT_S (that player stopped)


class Player:
    """A bench bot: random legal moves (random play keeps games long)."""

    def __init__(self, url: str, rng: random.Random, client: str = "websockets") -> None:
        self.url, self.rng, self.client = url, rng, client
        self.ws: Client | None = None
        self.view: dict[str, Any] = {}
        self.v = 0
        self.seq = 0
        self.code = ""

    async def _recv(self) -> dict[str, Any]:
        assert self.ws is not None
        frame = await self.ws.recv()
        msg: dict[str, Any] = msgpack.unpackb(frame, raw=False)
        if msg.get("t") == "view":
            self.view, self.v = msg["view"], msg["v"]
        return msg

    async def expect(self, kind: str) -> dict[str, Any]:
        while True:
            msg = await self._recv()
            if msg.get("t") == kind:
                return msg

    async def open(self) -> None:
        self.ws = await open_client(self.url, self.client)
        await self.ws.send(encode({"t": "hello", "proto": PROTOCOL_VERSION, "name": "bench"}))
        await self.expect("welcome")

    async def enter(self, code: str | None, variant: str, size: int) -> str:
        assert self.ws is not None
        if code is None:
            await self.ws.send(encode({"t": "create", "variant": variant, "players": size}))
        else:
            await self.ws.send(encode({"t": "join", "code": code}))
        self.code = (await self.expect("joined"))["code"]
        return self.code

    async def ready(self) -> None:
        assert self.ws is not None
        await self.ws.send(encode({"t": "ready"}))

    async def started(self) -> None:
        """Wait for the race's first view after :meth:`ready`. A ready the server
        refused (an error comes instead: ``store_unavailable`` when its Redis
        pool waited too long on a saturated machine) is sent again, said on
        stderr, so one lost ready cannot hold the whole bench's seating."""
        for _ in range(READY_TRIES):
            while True:
                msg = await self._recv()
                if msg.get("t") == "view":
                    return
                if msg.get("t") == "error":
                    print(f"bench player: ready refused ({msg.get('code')}): sent again",
                          file=sys.stderr, flush=True)
                    break
            await self.ready()
        raise RuntimeError(f"every ready was refused {READY_TRIES} times")

    async def move(self, stats: Stats | None) -> bool:
        """One move and its answer; False once this game is over."""
        assert self.ws is not None
        moves = self.view.get("legal_moves") or []
        if self.view.get("status") != "in_progress" or not moves:
            return False
        self.seq += 1
        ws = self.ws
        t0 = time.perf_counter()
        await ws.send(encode({"t": "move", "seq": self.seq, "move": self.rng.choice(moves),
                              "v": self.v}))
        try:  # a move never answered stops this player, counted, not the whole bench
            async with asyncio.timeout(REPLY_TIMEOUT_S):  # one timer per move, no task per frame
                while True:
                    frame = await ws.recv()
                    msg = msgpack.unpackb(frame, raw=False)
                    if msg.get("seq") == self.seq and msg.get("t") in ("view", "error"):
                        break
        except TimeoutError:
            if stats is not None:
                stats.unanswered += 1
            return False
        if msg["t"] == "view":
            self.view, self.v = msg["view"], msg["v"]
            if stats is not None:
                stats.rtts.append(answered_at(ws) - t0)
                stats.reply_bytes.append(len(frame))
                stats.accepted += 1
            return True
        return msg.get("code") not in ("race_over", "game_over")

    async def rematch(self) -> None:
        assert self.ws is not None
        await self.expect("results")
        await self.ws.send(encode({"t": "rematch"}))
        await self.expect("joined")
        await self.ready()
        await self.started()


async def seat(urls: list[str], players: int, per_room: int, variant: str, seed: int,
               client: str = "websockets") -> list[Player]:
    """Players in rooms of ``per_room``, player i on server ``urls[i % len(urls)]``:
    with several servers the players of one room sit on different processes."""
    rng = random.Random(seed)
    out = [Player(urls[i % len(urls)], random.Random(rng.random()), client) for i in range(players)]
    for i in range(0, players, 50):
        await asyncio.gather(*(p.open() for p in out[i:i + 50]))
    for i in range(0, players, per_room):
        group = out[i:i + per_room]
        code = await group[0].enter(None, variant, max(2, len(group)))
        for p in group[1:]:
            await p.enter(code, variant, len(group))
    await asyncio.gather(*(p.ready() for p in out))
    await asyncio.gather(*(p.started() for p in out))
    return out


async def closed_loop(players: list[Player], seconds: float) -> Stats:
    stats = Stats()
    stop = time.perf_counter() + seconds

    async def run(p: Player) -> None:
        while time.perf_counter() < stop:
            if not await p.move(stats):
                # the results wait for the opponent's game, which may outlast the run
                try:
                    await asyncio.wait_for(p.rematch(), max(0.05, stop - time.perf_counter()))
                except TimeoutError:
                    return

    await asyncio.gather(*(run(p) for p in players))
    return stats


async def open_loop(players: list[Player], rate: float, seconds: float) -> Stats:
    stats = Stats()
    interval = len(players) / rate
    start = time.perf_counter() + 0.2
    stop = start + seconds

    async def run(p: Player, offset: float) -> None:
        nxt = start + offset
        while nxt < stop:
            await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
            if not await p.move(stats):
                return
            nxt += interval

    await asyncio.gather(*(run(p, p.rng.random() * interval) for p in players))
    return stats


async def echo_conns(urls: list[str], n: int, client: str = "websockets") -> list[Client]:
    """``n`` connections spread over the echo processes like players over servers."""
    conns: list[Client] = []
    for i in range(0, n, 50):
        conns += await asyncio.gather(*(open_client(urls[k % len(urls)], client)
                                        for k in range(i, min(i + 50, n))))
    return conns


async def echo_closed(conns: list[Client], seconds: float) -> Stats:
    stats = Stats()
    payload = b"m" * MOVE_BYTES
    stop = time.perf_counter() + seconds

    async def run(ws: Client) -> None:
        while time.perf_counter() < stop:
            if not await _echo_round_trip(ws, payload, stats):
                return

    await asyncio.gather(*(run(ws) for ws in conns))
    return stats


async def echo_open(conns: list[Client], rate: float, seconds: float) -> Stats:
    stats = Stats()
    payload = b"m" * MOVE_BYTES
    interval = len(conns) / rate
    start = time.perf_counter() + 0.2
    stop = start + seconds
    rng = random.Random(5)

    async def run(ws: Client, offset: float) -> None:
        nxt = start + offset
        while nxt < stop:
            await asyncio.sleep(max(0.0, nxt - time.perf_counter()))
            if not await _echo_round_trip(ws, payload, stats):
                return
            nxt += interval

    await asyncio.gather(*(run(ws, rng.random() * interval) for ws in conns))
    return stats


async def _echo_round_trip(ws: Client, payload: bytes, stats: Stats) -> bool:
    """One echoed message, timed as a player's move is (the same timeout)."""
    t0 = time.perf_counter()
    await ws.send(payload)
    try:
        async with asyncio.timeout(REPLY_TIMEOUT_S):
            await ws.recv()
    except TimeoutError:
        stats.unanswered += 1
        return False
    stats.rtts.append(answered_at(ws) - t0)
    stats.accepted += 1
    return True


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def close_all(conns: list[Any]) -> None:
    await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
