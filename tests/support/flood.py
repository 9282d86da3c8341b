"""The fuzzer's concurrent attack: many connections at once, each saying hello
and then sending fuzzed frames without waiting for a single answer, and cutting
its TCP connection (no closing handshake) when done.

Sequential bad frames do not show what this shows: connections that the server
is closing for too many malformed messages (1008) while others vanish
mid-message, all in the same loop ticks. On the compiled build that is where
one coroutine's refusal once came out of another's clean-up as an ERROR
record (docs/design/compiled-code.md). The server runs with its default
limits on bad frames and on messages (only the per-address ones are lifted:
every attacker is on 127.0.0.1), so the closing paths are the ones taken.

``python -m tests.support.fuzzing --abrupt 2200`` runs a long one; the suite
runs a short seeded one (tests/integration/server/test_fuzz.py).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from websockets.asyncio.client import connect

from server.app import RaceServer
from server.ops.config import Settings
from server.ops.corebuild import rules_core
from server.wire.protocol import PROTOCOL_VERSION, encode
from tests.support.errorlogs import ErrorRecords

Frames = Callable[[], bytes | str]


@dataclass
class FloodReport:
    connections: int = 0
    frames: int = 0
    error_records: int = 0
    tracebacks: int = 0
    first_errors: tuple[str, ...] = ()
    seconds: float = 0.0
    core: str = ""

    def line(self) -> str:
        return (f"{self.connections} connections cut after {self.frames} frames sent unanswered "
                f"in {self.seconds:.0f} s ({self.core}): {self.error_records} records at ERROR, "
                f"{self.tracebacks} with a traceback")


async def one_connection(url: str, frames: list[bytes | str]) -> int:
    """Hello, the frames without reading anything, then the TCP connection cut;
    the number of frames sent (fewer if the server closed first)."""
    sent = 0
    ws = await connect(url, max_size=2**20, compression=None, open_timeout=30)
    try:
        await ws.send(encode({"t": "hello", "proto": PROTOCOL_VERSION, "name": "flood"}))
        for frame in frames:
            await ws.send(frame)
            sent += 1
    except Exception:  # noqa: BLE001 (the server closed it first: its right)
        pass
    finally:
        ws.transport.abort()
    return sent


async def flood(url: str, frame: Frames, connections: int, frames_each: int, at_once: int,
                seed: int) -> int:
    """``connections`` attackers, ``at_once`` of them at any moment; the frames sent."""
    rng = random.Random(seed)
    sent = 0
    pending: set[asyncio.Task[int]] = set()
    for _ in range(connections):
        frames = [frame() for _ in range(rng.randint(frames_each // 2, frames_each))]
        pending.add(asyncio.create_task(one_connection(url, frames)))
        if len(pending) >= at_once:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            sent += sum(t.result() for t in done)
    if pending:
        sent += sum(await asyncio.gather(*pending))
    return sent


async def all_handlers_done(app: RaceServer, timeout: float = 120.0) -> None:  # noqa: ASYNC109 (a deadline of its own)
    """Until every attacker's handler has run to its end (its address holds no
    connection): what a handler logs on its way out is logged by then."""
    async with asyncio.timeout(timeout):
        # the count is the server's own, with no event to wait on: polled
        while (entry := app.addresses.peek("127.0.0.1")) is not None and entry.connections:  # noqa: ASYNC110
            await asyncio.sleep(0.02)


async def flood_campaign(redis_url: str, frame: Frames, connections: int, seed: int,
                         frames_each: int = 40, at_once: int = 64) -> FloodReport:
    """One attack on a server of its own with the default limits; what it logged."""
    # the daily deal's search kept small (as the fuzzer's): a handler asking for
    # it waits for the search, and the attack is about the connections
    settings = Settings(host="127.0.0.1", port=0, secret="flood", daily_budget=500, daily_par_games=0,
                        grade_budget=0,
                        connections_per_address=10**6, address_rate_per_2s=10**7,
                        rooms_per_minute=10**6, claims_per_hour=10**6, join_penalty_ms=0)
    app = RaceServer(settings, redis_url)
    rdb = aioredis.Redis.from_url(redis_url)
    await rdb.flushdb()
    await rdb.aclose()
    await app.start()
    report = FloodReport(connections=connections, core=rules_core())
    started = time.monotonic()
    errors = ErrorRecords()
    with errors:  # the server's close counts too
        try:
            report.frames = await flood(f"ws://127.0.0.1:{app.port}/", frame, connections,
                                        frames_each, at_once, seed)
            await all_handlers_done(app)
        finally:
            await app.close()
    report.seconds = time.monotonic() - started
    report.error_records = len(errors.records)
    report.tracebacks = errors.tracebacks
    report.first_errors = tuple(errors.shown())
    return report
