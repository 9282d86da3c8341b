"""Storage a client can grow is bounded: names lapse, quick indexes are pruned,
board watchers go with their last watcher, boards of impossible days are
refused, and a hostile client at full speed grows Redis and the server's
memory only as far as the caps allow.

The hostile run takes ``PATIENCE_HOSTILE_SECONDS`` (10 by default); a longer
one, for the figures in docs/operations/reliability.md:

    PATIENCE_HOSTILE_SECONDS=60 .venv/bin/pytest -s tests/e2e/server/test_growth.py -k hostile
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, cast

import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.app import RaceServer
from server.store.rooms import CODE_ALPHABET, QUICK_MAX
from server.wire.protocol import MAX_PLAYERS, PROTOCOL_VERSION, encode
from tests.support.bot import Bot, decode
from tests.support.redis_server import fresh_server
from tests.support.servers import SpawnFactory, close_all, txt, ws_url

DAY_S = 86_400


def stamp() -> str:
    return f"{time.time_ns() % 10**10}"


# -- names ------------------------------------------------------------------------------------
async def claim(bot: Bot, name: str) -> str:
    await bot.send({"t": "claim", "name": name})
    key: str = (await bot.expect("claimed"))["key"]
    return key


async def test_a_name_lapses_unless_it_has_a_ranked_result(server: RaceServer,
                                                          rdb: aioredis.Redis) -> None:
    url = ws_url(server)
    s = stamp()
    ann, bob, cy = Bot(url, f"ann{s}"), Bot(url, f"bob{s}"), Bot(url, f"cy{s}")
    bots = [ann, bob, cy]
    try:
        for bot in bots:
            await bot.connect()
        keys = {bot.name: await claim(bot, bot.name) for bot in bots}
        for bot in bots:
            ttl = await rdb.ttl(f"user:{{{bot.name}}}")
            assert 29 * DAY_S < ttl <= 30 * DAY_S
        # a rated race between two claimed names: both are kept for good
        await ann.send({"t": "create", "variant": "four-seasons", "players": 2})
        code = (await ann.expect("joined"))["code"]
        await bob.send({"t": "join", "code": code})
        await bob.expect("joined")
        for b in (ann, bob):
            await b.send({"t": "ready"})
        for b in (ann, bob):
            await b.expect("view")
        for b in (bob, ann):
            b.seq += 1
            await b.send({"t": "resign", "seq": b.seq})
        results = await ann.expect("results")
        assert set(results["ratings"]) == {ann.name, bob.name}
        assert await rdb.ttl(f"user:{{{ann.name}}}") == -1
        assert await rdb.ttl(f"user:{{{bob.name}}}") == -1
        # a name used again (hello with its key) lapses a whole TTL later
        await rdb.expire(f"user:{{{cy.name}}}", 100)
        again = Bot(url, cy.name)
        bots.append(again)
        again.ws = await connect(url, compression=None)
        await again.send({"t": "hello", "proto": PROTOCOL_VERSION, "name": cy.name,
                          "key": keys[cy.name]})
        assert (await again.expect("welcome"))["identified"] == cy.name
        assert await rdb.ttl(f"user:{{{cy.name}}}") > 29 * DAY_S
        # a refused hello (a forged token) does not touch it
        await rdb.expire(f"user:{{{cy.name}}}", 100)
        forged = Bot(url, cy.name)
        bots.append(forged)
        forged.ws = await connect(url, compression=None)
        await forged.send({"t": "hello", "proto": PROTOCOL_VERSION, "name": cy.name,
                           "key": keys[cy.name], "token": "ZZZZZZ.1.nope"})
        assert (await forged.expect("error"))["code"] == "bad_token"
        assert await rdb.ttl(f"user:{{{cy.name}}}") <= 100
    finally:
        await close_all(bots)


# -- quick races ------------------------------------------------------------------------------
async def test_a_quick_index_is_pruned_bounded_and_lapses(server: RaceServer,
                                                         rdb: aioredis.Redis) -> None:
    variant, key = "betsy-ross", "quick:betsy-ross"
    await rdb.delete(key)
    now_ms = int(time.time() * 1000)
    # codes of lobbies long gone, and more fresh ones than the index keeps
    await rdb.zadd(key, {f"OLD{i:03}": now_ms - 2 * 3_600_000 - i for i in range(50)})
    await rdb.zadd(key, {f"NEW{i:04}": now_ms - 60_000 + i for i in range(QUICK_MAX + 20)})
    bot = Bot(ws_url(server))
    try:
        await bot.connect()
        # a public room is listed for quick races (a quick race no longer opens one: it queues)
        await bot.send({"t": "create", "variant": variant, "private": False})
        code = (await bot.expect("joined"))["code"]
        # without scores, the members only (redis-py's type names every reply's shape)
        members = {txt(m) for m in cast(list[bytes], await rdb.zrange(key, 0, -1))}
        assert code in members
        assert not any(m.startswith("OLD") for m in members)
        assert len(members) <= QUICK_MAX
        assert 0 < await rdb.pttl(key) <= 3_600_000
    finally:
        await close_all([bot])
        await rdb.delete(key)


# -- boards -----------------------------------------------------------------------------------
async def test_a_board_watcher_entry_goes_with_its_last_watcher(server: RaceServer) -> None:
    url = ws_url(server)
    bots = [Bot(url, f"w{i}") for i in range(3)]
    try:
        for bot in bots:
            await bot.connect()
        today = dt.datetime.now(dt.UTC).date()
        for i in range(30):  # one connection asking for board after board watches one
            day = (today - dt.timedelta(days=i)).isoformat()
            await bots[0].send({"t": "board", "kind": "daily", "variant": "czarina", "date": day})
            await bots[0].expect("board")
        assert server.service.watched_boards == 1
        for bot in bots[1:]:
            await bot.send({"t": "board", "kind": "rating", "variant": "czarina"})
            await bot.expect("board")
        assert server.service.watched_boards == 2
        await bots[1].close()
        await asyncio.sleep(0.2)
        assert server.service.watched_boards == 2  # one watcher of "rating:czarina" is left
        await bots[2].close()
        await bots[0].close()
        for _ in range(50):
            if server.service.watched_boards == 0:
                break
            await asyncio.sleep(0.05)
        assert server.service.watched_boards == 0
    finally:
        await close_all(bots)


async def test_boards_of_impossible_days_are_refused(server: RaceServer) -> None:
    bot = Bot(ws_url(server))
    today = dt.datetime.now(dt.UTC).date()
    try:
        await bot.connect()
        for day in ["2024-02-30", "9999-01-01", (today + dt.timedelta(days=1)).isoformat(),
                    (today - dt.timedelta(days=120)).isoformat(), "2024-1-01", "20240101",
                    "２０２４-01-01", "2024-01-01\n", "0000-01-01"]:
            await bot.send({"t": "board", "kind": "daily", "variant": "czarina", "date": day})
            assert (await bot.expect("error"))["code"] == "bad_field", day
            assert server.service.watched_boards == 0
        for date in (today, today - dt.timedelta(days=119)):
            await bot.send({"t": "board", "kind": "daily", "variant": "czarina",
                            "date": date.isoformat()})
            assert (await bot.expect("board"))["date"] == date.isoformat()
    finally:
        await close_all([bot])


# -- a hostile client at full speed -----------------------------------------------------------
@dataclass
class Tally:
    sent: int = 0
    connections: int = 0
    refused_handshakes: int = 0
    answers: dict[str, int] = field(default_factory=dict)

    def note(self, msg: dict[str, Any]) -> None:
        kind = msg.get("code") if msg.get("t") == "error" else msg.get("t")
        self.answers[str(kind)] = self.answers.get(str(kind), 0) + 1


def hostile_message(rng: random.Random, today: dt.date) -> dict[str, Any] | bytes:
    pick = rng.randrange(9)
    name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12))
    if pick == 0:
        return {"t": "claim", "name": name}
    if pick == 1:
        return {"t": "create", "variant": "four-seasons", "private": rng.random() < 0.5}
    if pick == 2:
        return {"t": "quick", "variant": "czarina"}
    if pick == 3:
        return {"t": "join", "code": "".join(rng.choice(CODE_ALPHABET) for _ in range(6))}
    if pick == 4:  # a day anywhere in four centuries
        day = dt.date(1900, 1, 1) + dt.timedelta(days=rng.randrange(146_000))
        return {"t": "board", "kind": "daily", "variant": "czarina", "date": day.isoformat()}
    if pick == 5:
        day = today - dt.timedelta(days=rng.randrange(120))
        return {"t": "board", "kind": "daily", "variant": "czarina", "date": day.isoformat()}
    if pick == 6:  # (not daily_info: its first call has the solver pick the day's deal)
        return {"t": "rematch"}
    if pick == 7:
        return {"t": "ping"}
    return rng.randbytes(rng.randrange(1, 64))


async def hostile_worker(url: str, forwarded_for: str, until: float, seed: int,
                         tally: Tally) -> None:
    """One connection after another, each sending as fast as its socket takes."""
    rng = random.Random(seed)
    today = dt.datetime.now(dt.UTC).date()
    while time.monotonic() < until:
        try:
            ws = await connect(url, compression=None, max_size=2**20,
                               additional_headers={"X-Forwarded-For": forwarded_for})
        except InvalidStatus:
            tally.refused_handshakes += 1
            await asyncio.sleep(0.02)
            continue
        except OSError:
            await asyncio.sleep(0.02)
            continue
        tally.connections += 1
        reader = asyncio.create_task(drain(ws, tally))
        try:
            await ws.send(encode({"t": "hello", "proto": PROTOCOL_VERSION, "name": "h"}))
            while time.monotonic() < until:
                msg = hostile_message(rng, today)
                await ws.send(msg if isinstance(msg, bytes) else encode(msg))
                tally.sent += 1
                await asyncio.sleep(0)  # a send into a socket with room never yields: let the reader run
        except ConnectionClosed:
            pass
        finally:
            reader.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)


async def drain(ws: ClientConnection, tally: Tally) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for frame in ws:
            assert isinstance(frame, bytes)
            tally.note(decode(frame))


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def redis_figures(client: aioredis.Redis) -> tuple[int, int]:
    info = await client.info("memory")
    return int(await client.dbsize()), int(info["used_memory"])


# The caps (server/ops/limits.py defaults, the table in docs/operations/reliability.md) and what
# each thing they let through may cost in Redis at most (checked key by key below).
CLAIM_BURST, CLAIMS_PER_S = 5, 20 / 3600
ROOM_BURST, ROOMS_PER_S = 30, 30 / 60
# A claimed name is up to four keys (its hash, its device keys, its recovery codes, a
# live link code: docs/design/identity.md), NAME_BYTES for all of them together.
NAME_KEYS, NAME_BYTES, ROOM_KEY_BYTES = 4, 2048, 1024
REDIS_SLACK = 512 * 1024  # Redis's own bookkeeping: clients, buffers, the allocator
# The server: 16 connections at most, each holding at most its outbox (256 KiB), 16
# frames received (8 KiB each) and its socket buffers; plus the allocator's slack.
RSS_BOUND_KIB = 16 * (256 + 16 * 8 + 128) + 8 * 1024


async def test_a_hostile_client_at_full_speed_grows_storage_only_as_far_as_the_caps(
        spawn: SpawnFactory) -> None:
    seconds = float(os.environ.get("PATIENCE_HOSTILE_SECONDS", "10"))
    with fresh_server() as redis_server:
        real = {"PATIENCE_RATE_PER_2S": "60", "PATIENCE_CONNECTIONS_PER_ADDRESS": "16",
                "PATIENCE_ADDRESS_RATE_PER_2S": "240", "PATIENCE_ROOMS_PER_MINUTE": "30",
                "PATIENCE_CLAIMS_PER_HOUR": "20", "PATIENCE_JOIN_PENALTY_MS": "500",
                "PATIENCE_TRUSTED_PROXIES": "127.0.0.1"}
        proc = await spawn(redis_server.url, **real)
        client = aioredis.Redis.from_url(redis_server.url)
        try:
            # warm up from another address: every code path loaded, Redis's pool opened
            warm = Tally()
            await asyncio.gather(*(hostile_worker(proc.url, "198.51.100.1", time.monotonic() + 2,
                                                  i, warm) for i in range(20)))
            await asyncio.sleep(0.5)
            keys0, bytes0 = await redis_figures(client)
            rss0 = rss_kib(proc.proc.pid)
            tally = Tally()
            until = time.monotonic() + seconds
            await asyncio.gather(*(hostile_worker(proc.url, "203.0.113.9", until, 100 + i, tally)
                                   for i in range(20)))
            await asyncio.sleep(0.5)
            keys1, bytes1 = await redis_figures(client)
            rss1 = rss_kib(proc.proc.pid)
            claims = CLAIM_BURST + CLAIMS_PER_S * seconds
            rooms = ROOM_BURST + ROOMS_PER_S * seconds
            # NAME_KEYS keys per name; per room its meta and up to MAX_PLAYERS seats (the
            # attacker's own quick races fill its public rooms); one quick index
            key_bound = int(NAME_KEYS * claims + (1 + MAX_PLAYERS) * rooms + 1)
            byte_bound = int(claims * NAME_BYTES + (1 + MAX_PLAYERS) * rooms * ROOM_KEY_BYTES
                             + REDIS_SLACK)
            print(f"\nhostile {seconds:.0f} s: {tally.sent} messages sent on {tally.connections} "
                  f"connections ({tally.refused_handshakes} handshakes refused); answers "
                  f"{dict(sorted(tally.answers.items()))}\nRedis keys +{keys1 - keys0} "
                  f"(bound {key_bound}), used_memory +{bytes1 - bytes0} B (bound {byte_bound}); "
                  f"server RSS +{rss1 - rss0} KiB (bound {RSS_BOUND_KIB})")
            assert tally.sent > 1000 * seconds  # it did go at full speed
            assert tally.answers.get("claimed", 0) <= claims
            assert keys1 - keys0 <= key_bound
            assert bytes1 - bytes0 <= byte_bound
            assert rss1 - rss0 <= RSS_BOUND_KIB
            per_name: dict[str, int] = {}
            async for key in client.scan_iter(match="user:*"):
                used = await client.memory_usage(key)
                assert used is not None
                tag = key.decode().partition("}")[0]
                per_name[tag] = per_name.get(tag, 0) + used
            assert all(used <= NAME_BYTES for used in per_name.values()), per_name
            async for key in client.scan_iter(match="room:*"):
                used = await client.memory_usage(key)
                assert used is not None and used <= ROOM_KEY_BYTES
        finally:
            await client.aclose()
            proc.stop()
