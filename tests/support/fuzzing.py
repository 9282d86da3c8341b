"""A protocol fuzzer: random and mutated messages against a real server and a
real Redis, checking the two promises of docs/operations/reliability.md:

* no handler error: no close with 1011, nothing logged at ERROR (any logger,
  with a traceback or without);
* a refusal changes nothing: the whole Redis state after a message answered
  with an ``error`` equals the state before it.

Players sit in every situation (before hello, in a lobby, mid-race, after the
results) and send every message type with fields dropped, mistyped, out of
range or taken from another situation, plus random bytes and text frames.

Run a long campaign with ``python -m tests.support.fuzzing --messages 100000``, and
the concurrent attack of tests/support/flood.py (many connections sending
without waiting, cut off abruptly) with ``--abrupt 2200``; the suite runs short
seeded ones of both (tests/integration/server/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.app import RaceServer
from server.game.variants import RULES
from server.ops.config import Settings
from server.rooms.arenas import new_id
from server.store.arenas import ArenaStore
from server.wire.protocol import CLIENT_MESSAGES, CLOSE_INTERNAL, PROTOCOL_VERSION, encode
from tests.support.errorlogs import ErrorRecords
from tests.support.flood import flood_campaign
from tests.support.storeview import on_their_clock

VARIANTS = sorted(RULES)
ODD_STRINGS = ["", " ", "²", "①", "٣", "ABCDEF.².x", "ABCDEF.1.", "..", "A" * 64, "\x00", "🂡",
               "t1-f1", "s-f1", "draw", "resign", "deal:all", "w-t3", "redeal", "ZZZZZZ", "-1",
               "1e9", "nan", "four-seasons", "daily", "rating", "wins", "2026-13-45", "0000-00-00"]
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 1, 2, 7, 8, 9, 2**31, 2**31 + 1, -(2**63), 2**64 - 1,
                         1.5, float("nan"), b"\x00\xff", [], [1, 2], {}, {"t": "x"}]


@dataclass
class Report:
    messages: int = 0
    refused: int = 0
    refused_changed: list[str] = field(default_factory=list)
    handler_errors: list[str] = field(default_factory=list)
    error_records: int = 0  # everything logged at ERROR, from any logger
    tracebacks: int = 0  # of those, the records with a traceback
    closes: dict[int, int] = field(default_factory=dict)
    seconds: float = 0.0

    def line(self) -> str:
        return (f"{self.messages} messages fuzzed in {self.seconds:.0f} s: {self.refused} refused, "
                f"{len(self.refused_changed)} refused but changed the store, "
                f"{len(self.handler_errors)} handler errors ({self.error_records} records at ERROR, "
                f"{self.tracebacks} with a traceback), closes {dict(sorted(self.closes.items()))}")


def is_ping(frame: bytes | str) -> bool:
    with contextlib.suppress(Exception):
        msg = msgpack.unpackb(frame, raw=False)
        return isinstance(msg, dict) and msg.get("t") == "ping"
    return False


class Client:
    """One fuzzing player: a connection and what it last heard."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws: ClientConnection | None = None
        self.code = ""
        self.token = ""
        self.player = 0
        self.v = 0
        self.seq = 0
        self.moves: list[str] = []
        self.closed: int | None = None

    async def open(self, name: str) -> None:
        self.ws = await connect(self.url, max_size=2**20, compression=None)
        self.closed = None
        await self.exchange(encode({"t": "hello", "proto": PROTOCOL_VERSION, "name": name}))

    async def exchange(self, frame: bytes | str, timeout: float = 5.0) -> list[dict[str, Any]]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
        """Send a frame, then a ping; everything heard until the pong answers the frame
        (a connection handles its messages one after another)."""
        assert self.ws is not None
        heard: list[dict[str, Any]] = []
        pongs = 2 if is_ping(frame) else 1
        try:
            await self.ws.send(frame)
            await self.ws.send(encode({"t": "ping"}))
            async with asyncio.timeout(timeout):
                while True:
                    raw = await self.ws.recv()
                    msg = msgpack.unpackb(raw, raw=False) if isinstance(raw, bytes) else {}
                    if msg.get("t") == "pong":
                        pongs -= 1
                        if pongs == 0:
                            return heard
                        continue
                    heard.append(msg)
                    self.note(msg)
        except ConnectionClosed as exc:
            self.closed = exc.rcvd.code if exc.rcvd is not None else 1006
        return heard

    def note(self, msg: dict[str, Any]) -> None:
        kind = msg.get("t")
        if kind == "joined":
            self.code, self.player, self.token = msg["code"], msg["player"], msg["token"]
        elif kind == "view":
            self.v = msg["v"]
            self.moves = list(msg["view"].get("legal_moves") or [])

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 2)


class FrameMaker:
    """Random and mutated frames, with fields taken from what the players heard."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.codes: list[str] = []
        self.tokens: list[str] = []
        self.arenas: list[str] = []
        self.names: list[str] = []  # claimed names: the targets of link and recover
        self.link_codes: list[str] = []  # link codes heard

    def value(self, name: str, client: Client) -> Any:
        r = self.rng.random()
        if r < 0.25:
            return self.rng.choice(ODD_VALUES)
        if r < 0.45:
            return self.rng.choice(ODD_STRINGS)
        if name in ("variant",):
            return self.rng.choice(VARIANTS)
        if name == "name" and self.names and self.rng.random() < 0.5:
            return self.rng.choice(self.names)
        if name == "code" and self.link_codes and self.rng.random() < 0.3:
            return self.rng.choice(self.link_codes)
        if name == "code":
            return self.rng.choice(self.codes + ["ZZZZZZ", "abc", "A1B2C3"]) if self.codes else "ZZZZZZ"
        if name == "id":
            return self.rng.choice(self.arenas + ["ZZZZZZ", "abc", ""])
        if name == "token":
            token = self.rng.choice(self.tokens) if self.tokens else "A.1.x"
            return token if self.rng.random() < 0.5 else self.mutate_text(token)
        if name == "move":
            return self.rng.choice(client.moves) if client.moves and self.rng.random() < 0.6 \
                else self.rng.choice(ODD_STRINGS)
        if name == "seq":
            return max(0, client.seq + self.rng.randint(-2, 2))
        if name == "v":
            return max(0, client.v + self.rng.randint(-1, 1))
        if name in ("player", "players"):
            return self.rng.randint(0, 10)
        if name == "proto":
            return self.rng.choice([PROTOCOL_VERSION, 0, 2])
        if name in ("offset", "limit"):
            return self.rng.randint(-5, 200)
        if name == "date":
            return self.rng.choice(["2026-12-01", "1970-01-01", "2999-12-31", "yesterday"])
        if name == "kind":
            return self.rng.choice(["daily", "rating", "wins", "x"])
        if name == "season":
            return self.rng.choice(["current", "2026-12-01", "2026-11-02", "2999-01-01", "x", ""])
        if name == "near":
            return self.rng.random() < 0.5
        if name in ("private", "accept"):
            return self.rng.random() < 0.5
        if name == "reason":
            return self.rng.choice(["cheating", "offensive_name", "abuse", "other", "x"])
        return self.mutate_text(name)

    def mutate_text(self, text: str) -> str:
        if not text:
            return self.rng.choice(ODD_STRINGS)
        i = self.rng.randrange(len(text))
        return text[:i] + self.rng.choice(["²", "①", ".", "", "9", "é"]) + text[i + 1:]

    def frame(self, client: Client) -> bytes | str:
        r = self.rng.random()
        if r < 0.04:
            return bytes(self.rng.randrange(256) for _ in range(self.rng.randint(0, 40)))
        if r < 0.06:
            return "a text frame"
        if r < 0.08:
            return bytes(msgpack.packb([1, 2, 3]))
        kind = self.rng.choice(sorted(CLIENT_MESSAGES) + ["nope", "_takeover"])
        fields = CLIENT_MESSAGES.get(kind, {})
        msg: dict[str, Any] = {"t": kind}
        for name in fields:
            if self.rng.random() < 0.85:
                msg[name] = self.value(name, client)
        if self.rng.random() < 0.1:
            msg[self.rng.choice(["x", "session", "t2"])] = self.rng.choice(ODD_VALUES)
        if kind == "move" and "seq" in msg and isinstance(msg["seq"], int):
            client.seq = max(client.seq, msg["seq"])
        try:
            packed: bytes = msgpack.packb(msg, use_bin_type=True)
        except (TypeError, ValueError, OverflowError):
            packed = encode({"t": kind})
        return packed



class Fuzzer(FrameMaker):
    """Players in every situation, each sent fuzzed frames one at a time."""

    def __init__(self, url: str, rdb: aioredis.Redis, seed: int) -> None:
        super().__init__(seed)
        self.url = url
        self.rdb = rdb
        self.clients: list[Client] = []
        self.progress = 0  # print a line every this many messages (0: never)
        # waits out the server's background writes of earlier messages (a finished race's
        # history, written after its results) so that a snapshot holds them all
        self.settle: Callable[[], Awaitable[None]] | None = None

    # -- the situations -----------------------------------------------------------------
    async def setup(self) -> None:
        """A fresh cast: one before hello, a lobby, a race of two, a finished room."""
        for c in self.clients:
            await c.close()
        self.clients = []
        # Each cast starts on an empty store: the whole-state comparison reads every
        # key, and a keyspace growing with every cast slowed a long run tenfold.
        await asyncio.sleep(0.1)  # the closed connections' seat releases
        await self.rdb.flushdb()
        self.codes, self.tokens = [], []
        # two arenas: one pairing from an hour on (so nothing moves under the
        # comparison), one that has ended and keeps its final standing
        store = ArenaStore(self.rdb)
        now = int(time.time() * 1000)
        self.arenas = [new_id(), new_id()]
        for arena, start in zip(self.arenas, (now + 3_600_000, now - 3_600_000), strict=True):
            await store.create(arena, name="fuzz", variant=self.rng.choice(VARIANTS), starts_at=start,
                               minutes=30, group=2, race_ms=60_000, max_players=50, max_rounds=10,
                               now=now)
        await self.rdb.hset(f"arena:{{{self.arenas[1]}}}:def", mapping={"status": "finished"})
        await self.rdb.set(f"arena:{{{self.arenas[1]}}}:final", "[]")
        lobby = Client(self.url)
        await lobby.open("lobby")
        # a claimed name: its device keys and codes are fuzzed too
        self.names, self.link_codes = [f"fz{self.rng.randrange(10**6)}"], []
        await lobby.exchange(encode({"t": "claim", "name": self.names[0]}))
        await lobby.exchange(encode({"t": "create", "variant": self.rng.choice(VARIANTS)}))
        racers = [Client(self.url), Client(self.url)]
        await racers[0].open("racer")
        await racers[0].exchange(encode({"t": "create", "variant": self.rng.choice(VARIANTS)}))
        await racers[1].open("racer")
        await racers[1].exchange(encode({"t": "join", "code": racers[0].code}))
        for r in racers:
            await r.exchange(encode({"t": "ready"}))
        await asyncio.sleep(0.05)  # the countdown
        for r in racers:
            await r.exchange(encode({"t": "ping"}))
        done = Client(self.url)
        await done.open("done")
        await done.exchange(encode({"t": "create", "variant": "four-seasons", "players": 2}))
        other = Client(self.url)
        await other.open("other")
        await other.exchange(encode({"t": "join", "code": done.code}))
        for d in (done, other):
            await d.exchange(encode({"t": "ready"}))
        await asyncio.sleep(0.05)
        for d in (done, other):
            await d.exchange(encode({"t": "resign", "seq": 1}))
        fresh = Client(self.url)
        fresh.ws = await connect(self.url, max_size=2**20, compression=None)
        self.clients = [fresh, lobby, *racers, done, other]
        for c in self.clients:
            if c.code:
                self.codes.append(c.code)
                self.tokens.append(c.token)
        self.codes = self.codes[-20:]
        self.tokens = self.tokens[-20:]

    # -- the run -------------------------------------------------------------------------------
    async def snapshot(self) -> dict[bytes, Any]:
        """Every key and its value (TTLs left out: they only run down), but the keys
        a server writes on its own clock (tests/support/storeview.py), once the
        server's background history writes have settled."""
        if self.settle is not None:
            await self.settle()
        keys = [k async for k in self.rdb.scan_iter(count=1000) if not on_their_clock(k.decode())]
        pipe = self.rdb.pipeline(transaction=False)
        for k in keys:
            pipe.type(k)
        kinds = await pipe.execute()
        read = {b"hash": lambda k: pipe.hgetall(k), b"list": lambda k: pipe.lrange(k, 0, -1),
                b"zset": lambda k: pipe.zrange(k, 0, -1, withscores=True),
                b"set": lambda k: pipe.smembers(k), b"string": lambda k: pipe.get(k)}
        for k, kind in zip(keys, kinds, strict=True):
            read.get(kind, lambda k: pipe.type(k))(k)
        state = dict(zip(keys, await pipe.execute(), strict=True))
        bots = [k for k, v in state.items()
                if b":p:" in k and isinstance(v, dict) and v.get(b"bot", b"0") != b"0"]
        for k in bots:
            state.pop(k)
            state.pop(k.replace(b":p:", b":log:"), None)
        return state

    async def run(self, messages: int, report: Report, errors: ErrorRecords) -> None:
        started = time.monotonic()
        await self.setup()
        await asyncio.sleep(0.1)
        before = await self.snapshot()
        for i in range(messages):
            if self.progress and i and i % self.progress == 0:
                print(f"{i} messages, {report.refused} refused, {len(report.refused_changed)} "
                      f"changed, {len(report.handler_errors)} errors", flush=True)
            if i and i % 400 == 0:
                await self.setup()
                await asyncio.sleep(0.1)
                before = await self.snapshot()
            client = self.rng.choice(self.clients)
            if client.ws is None or client.closed is not None:
                await client.close()
                await client.open(f"again{i}")
                await asyncio.sleep(0.05)  # the old connection's seat release
                before = await self.snapshot()
            frame = self.frame(client)
            before = await self.snapshot()
            logged = len(errors.records)
            heard = await client.exchange(frame)
            report.messages += 1
            if client.closed is not None:
                report.closes[client.closed] = report.closes.get(client.closed, 0) + 1
                if client.closed == CLOSE_INTERNAL:
                    report.handler_errors.append(f"1011 after {frame!r}")
                await asyncio.sleep(0.05)
                before = await self.snapshot()
                continue
            if len(errors.records) > logged:
                report.handler_errors.extend(f"{frame!r}: {e}" for e in errors.shown(start=logged))
            self.link_codes += [m["code"] for m in heard if m.get("t") == "link_code"][-5:]
            after = await self.snapshot()
            answers = [m for m in heard if m.get("t") == "error"]
            if answers and not any(m.get("t") in ("joined", "claimed", "welcome", "linked")
                                                      for m in heard):
                report.refused += 1
                if after != before:
                    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
                    report.refused_changed.append(
                        f"{shown(frame)} -> {answers[0].get('code')}: "
                        + "; ".join(f"{k.decode()} {before.get(k)} -> {after.get(k)}"
                                    for k in changed[:3]))
            before = after
        report.seconds = time.monotonic() - started
        for c in self.clients:
            await c.close()


def shown(frame: bytes | str) -> str:
    with contextlib.suppress(Exception):
        return repr(msgpack.unpackb(frame, raw=False))[:200]
    return repr(frame)[:200]


async def campaign(redis_url: str, messages: int, seed: int, progress: int = 0) -> Report:
    """One fuzzing run on its own server, against a Redis that nothing else uses."""
    settings = Settings(host="127.0.0.1", port=0, countdown_ms=30, race_seconds=3600,
                        rate_per_2s=1_000_000, secret="fuzz", daily_budget=500, daily_tries=1,
                        daily_par_games=0, grade_budget=0,  # (a grade written later is no refusal's doing)
                        max_bad_frames=10**9,
                        # every client is on 127.0.0.1: the per-address budgets would refuse
                        # most messages before a handler saw them (tests/e2e/server/test_limits.py
                        # holds those refusals to changing nothing)
                        connections_per_address=10**6, address_rate_per_2s=10**7,
                        rooms_per_minute=10**6, claims_per_hour=10**6, join_penalty_ms=0,
                        # no pairing round and no bot for a quick race in the background
                        # while a refusal is compared: they would change the store under it
                        arena_tick_ms=60_000, quick_bot_s=0)
    app = RaceServer(settings, redis_url)
    errors = ErrorRecords()
    rdb = aioredis.Redis.from_url(redis_url)
    await rdb.flushdb()
    await app.start()
    report = Report()
    with errors:  # every logger's records at ERROR, the server's and the libraries'
        try:
            fuzzer = Fuzzer(f"ws://127.0.0.1:{app.port}/", rdb, seed)
            fuzzer.progress = progress
            fuzzer.settle = app.service.competition.history.drain
            await fuzzer.run(messages, report, errors)
        finally:
            await app.close()
            await rdb.aclose()
    report.error_records = len(errors.records)
    report.tracebacks = errors.tracebacks
    return report


def frame_maker(seed: int) -> Callable[[], bytes | str]:
    """The fuzzer's frames for players who heard nothing (the concurrent attack's)."""
    maker = FrameMaker(seed)
    nobody = Client("")
    return lambda: maker.frame(nobody)


def main() -> None:
    from tests.support.redis_server import fresh_server

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--abrupt", type=int, default=0, metavar="N",
                        help="run the concurrent attack of N connections instead (tests/support/flood.py)")
    args = parser.parse_args()
    with fresh_server() as redis_server:
        if args.abrupt:
            attack = asyncio.run(flood_campaign(redis_server.url, frame_maker(args.seed), args.abrupt,
                                                args.seed))
            print(attack.line())
            for text in attack.first_errors:
                print("  ", text[:2000])
            raise SystemExit(1 if attack.error_records else 0)
        report = asyncio.run(campaign(redis_server.url, args.messages, args.seed, progress=5000))
    print(report.line())
    for line in (report.handler_errors + report.refused_changed)[:20]:
        print("  ", line[:300])
    raise SystemExit(1 if report.handler_errors or report.refused_changed or report.error_records else 0)


if __name__ == "__main__":
    main()
