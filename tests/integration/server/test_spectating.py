"""Watching a race with the room code: counts and the clock, never a card while
it runs; the records once it has results."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from server.rooms.spectator import MAX_SPECTATORS_PER_ROOM
from tests.support.bot import Bot
from tests.support.servers import (
    close_all,
    is_card,
    play_out,
    results_of,
    room_snapshot,
    seat,
    start_race,
)


def walk(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in walk(v)]
    if isinstance(value, list):
        return [x for v in value for x in walk(v)]
    return [value]


async def watcher(url: str, code: str) -> Bot:
    bot = Bot(url, "watcher")
    await bot.connect()
    await bot.send({"t": "watch", "code": code.lower()})
    await bot.expect("watching", code=code)
    await bot.expect("room", code=code)
    return bot


async def test_a_spectator_sees_counts_and_results_never_a_card(url: str) -> None:
    bots, code = await seat([url, url], "corner-stones")
    spectator = await watcher(url, code)
    try:
        await start_race(bots)
        await asyncio.gather(*(play_out(b, 40) for b in bots))
        results = await results_of(spectator)
        assert results["code"] == code
        moves = {b.player: b.v for b in bots}
        progress = [m for m in spectator.inbox if m.get("t") == "progress"]
        assert {m["player"] for m in progress} == {1, 2}
        assert {n: max(m["moves"] for m in progress if m["player"] == n) for n in (1, 2)} == moves
        for msg in spectator.inbox:
            assert msg["t"] != "view"
            assert not any(is_card(x) for x in walk(msg)), msg
        # after the results the records are public
        await spectator.send({"t": "record", "player": 2})
        record = (await spectator.expect("record"))["record"]
        assert len(record["moves"]) == moves[2]
    finally:
        await close_all([*bots, spectator])


async def test_a_spectator_cannot_move_and_a_bad_watch_changes_nothing(url: str,
                                                                       rdb: aioredis.Redis) -> None:
    bots, code = await seat([url, url])
    spectator = await watcher(url, code)
    try:
        await start_race(bots)
        await spectator.send({"t": "move", "seq": 1, "move": "draw", "v": 0})
        assert (await spectator.expect("error"))["code"] == "not_in_room"
        await spectator.send({"t": "record", "player": 1})
        assert (await spectator.expect("error"))["code"] == "no_results"
        before = await room_snapshot(rdb, code)
        # a player in a race may not walk away to watch another room
        other, other_code = await seat([url, url])
        await bots[0].send({"t": "watch", "code": other_code})
        assert (await bots[0].expect("error"))["code"] == "already_in_room"
        assert await room_snapshot(rdb, code) == before
        await spectator.send({"t": "watch", "code": "ZZZZZZ"})
        assert (await spectator.expect("error"))["code"] == "no_room"
        await spectator.send({"t": "leave"})
        await spectator.send({"t": "ping"})
        await spectator.expect("pong")
        seen = len(spectator.inbox)
        await bots[0].move(bots[0].choose() or "draw")
        await asyncio.sleep(0.3)
        assert not [m for m in spectator.inbox[seen:] if m.get("t") == "progress"]
        await close_all(other)
    finally:
        await close_all([*bots, spectator])


async def test_spectators_of_a_room_are_bounded(server: Any, url: str) -> None:
    bots, code = await seat([url, url])
    watchers = []
    try:
        for _ in range(MAX_SPECTATORS_PER_ROOM):
            watchers.append(await watcher(url, code))
        extra = Bot(url, "one-too-many")
        await extra.connect()
        watchers.append(extra)
        await extra.send({"t": "watch", "code": code})
        assert (await extra.expect("error"))["code"] == "room_full"
    finally:
        await close_all([*bots, *watchers])
