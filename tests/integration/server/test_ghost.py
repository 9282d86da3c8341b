"""Ghost races: a recorded run's progress at its real times, like a live
opponent's; offered only when it spoils nothing; stopped with its room."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import redis.asyncio as aioredis

from server.game import engine
from tests.integration.server.test_race import PROGRESS_KEYS, VIEW_KEYS, face_up
from tests.integration.server.test_spectating import walk
from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    fetch_record,
    is_card,
    play_out,
    results_of,
    room_snapshot,
    seat,
    start_race,
    states_of,
    ws_url,
)

GAP_S = 0.12  # between the recorded player's moves: the ghost must keep these times


async def finished_race(url: str, *, private: bool = True, paced: int = 5) -> tuple[list[Bot], str]:
    """A finished race of two whose player 1 made ``paced`` moves GAP_S apart, then resigned."""
    bots, code = await seat([url, url], private=private, names=["ann", "bob"])
    await start_race(bots)
    for _ in range(paced):
        await asyncio.sleep(GAP_S)
        await bots[0].move(bots[0].choose() or "draw")
    await asyncio.gather(*(play_out(b, 0) for b in bots))
    await asyncio.gather(*(results_of(b) for b in bots))
    return bots, code


async def read_for(bot: Bot, seconds: float) -> list[tuple[float, dict[str, Any]]]:
    """Every message in the next ``seconds``, with the local time it came."""
    out = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            msg = await bot.recv(left)
        except TimeoutError:
            break
        out.append((time.time(), msg))
    return out


async def test_a_ghost_replays_its_progress_at_its_times_and_leaks_no_card(url: str) -> None:
    bots, code = await finished_race(url, private=False)
    racer = Bot(url, "cyd")
    await racer.connect()
    try:
        record = await fetch_record(bots[0], 1)
        await racer.send({"t": "ghost", "code": code.lower(), "player": 1})
        joined = await racer.expect("joined")
        ghost = await racer.expect("ghost")
        assert ghost["player"] == 2 and ghost["name"] == "ann" and ghost["source"] == code
        assert ghost["moves"] == len(record["moves"]) == 6  # five moves and the resignation
        start = (await racer.expect("view")).get("v") == 0
        assert start
        room = next(m for m in racer.inbox if m["t"] == "room" and m.get("starts_at"))
        starts_at = room["starts_at"]
        seen = await read_for(racer, GAP_S * 5 + 1.5)
        progress = [(at, m) for at, m in seen if m["t"] == "progress"]
        assert [m["moves"] for _, m in progress][-6:] == [1, 2, 3, 4, 5, 6]
        truth = states_of(record)
        for at, m in progress:
            assert set(m) == PROGRESS_KEYS and m["player"] == 2
            i = m["moves"]
            assert m["foundation_cards"] == engine.foundation_cards(truth[i])
            if i:  # never before its recorded time since the start
                assert at * 1000 >= starts_at + record["ms"][i - 1] - 5, (i, at, record["ms"])
        assert progress[-1][1]["status"] == "resigned"
        # the ghost race itself: a room of one on that deal, never an undo or a hint
        await racer.send({"t": "undo", "seq": 1, "v": 0})
        assert (await racer.expect("error"))["code"] == "solo_only"
        await racer.send({"t": "resign", "seq": 2})
        results = await racer.expect("results", code=joined["code"])
        assert results["deal"] == bots[0].results["deal"]  # type: ignore[index]
        # the leak scan: nothing but the racer's own face-up cards, ever
        own = states_of({"variant": record["variant"], "deal": results["deal"], "moves": []})[0]
        for msg in racer.inbox:
            if msg["t"] == "view":
                assert set(msg["view"]) <= VIEW_KEYS
                sent = Counter(x for x in walk(msg) if is_card(x))
                if msg["v"] == 0:
                    assert msg["view"]["piles"] == face_up(own)
                assert sent == Counter(c for p in msg["view"]["piles"].values() for c in p)
            elif msg["t"] not in ("results", "record"):
                assert not any(is_card(x) for x in walk(msg)), msg
    finally:
        await close_all([*bots, racer])


async def test_the_ghost_stops_when_its_racer_leaves_and_comes_back_on_resume(url: str) -> None:
    bots, code = await finished_race(url, private=False, paced=8)
    racer = Bot(url, "cyd")
    await racer.connect()
    try:
        await racer.send({"t": "ghost", "code": code})  # no player: the race's first place
        ghost = await racer.expect("ghost")
        first = bots[0].results["ranking"][0]["player"]  # type: ignore[index]
        assert ghost["source_player"] == first
        token = (next(m for m in racer.inbox if m["t"] == "joined"))["token"]
        await racer.expect("progress", player=2, moves=1, timeout=5)
        # a reconnect: the ghost comes back at the point its clock has reached
        await racer.close()
        again = Bot(url, "cyd")
        await again.connect(token)
        assert (await again.expect("ghost"))["source"] == code
        later = await again.expect("progress", player=2, timeout=5)
        assert later["moves"] >= 1
        # leaving the room ends the ghost: nothing more comes
        await again.send({"t": "leave"})
        await asyncio.sleep(0.05)
        tail = await read_for(again, GAP_S * 8 + 0.5)
        assert not [m for _, m in tail if m["t"] == "progress"], tail
        await close_all([again])
    finally:
        await close_all([*bots, racer])


async def test_ghosts_only_when_they_spoil_nothing(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await finished_race(url, private=True, paced=1)
    outsider = Bot(url, "eve")
    await outsider.connect()
    running, running_code = await seat([url, url])
    try:
        # a private race's ghost is for its own players only
        before = await room_snapshot(rdb, code)
        await outsider.send({"t": "ghost", "code": code})
        assert (await outsider.expect("error"))["code"] == "ghost_private"
        assert await room_snapshot(rdb, code) == before
        await bots[1].send({"t": "ghost", "code": code, "player": 1})
        assert (await bots[1].expect("ghost"))["name"] == "ann"
        # a race without results has no ghost yet, and nothing is opened for asking
        await start_race(running)
        await outsider.send({"t": "ghost", "code": running_code})
        assert (await outsider.expect("error"))["code"] == "no_results"
        await outsider.send({"t": "ghost", "code": "ZZZZZ2"})
        assert (await outsider.expect("error"))["code"] == "no_room"
        for bad in ({}, {"code": 7}, {"code": code, "player": 0}, {"code": code, "player": 9}):
            await outsider.send({"t": "ghost", **bad})
            assert (await outsider.expect("error"))["code"] == "bad_field", bad
        # a player still racing may not walk off into a ghost race
        await running[0].send({"t": "ghost", "code": code})
        assert (await running[0].expect("error"))["code"] in ("ghost_private", "already_in_room")
        assert not [m for m in outsider.inbox if m["t"] == "joined"]
    finally:
        await close_all([*bots, outsider, *running])


async def test_ghost_and_replay_codes_cost_the_same_wait_as_join(make_server: ServerFactory) -> None:
    """``ghost`` and ``replay`` take a code too: guessing through them is no cheaper."""
    url = ws_url(await make_server(join_penalty_ms=300))
    bots, code = await finished_race(url, private=False, paced=0)
    spy = Bot(url, "spy")
    await spy.connect()
    try:
        for first, then in (("ghost", "replay"), ("replay", "ghost")):
            await spy.send({"t": first, "code": "ZZZZZZ"})
            assert (await spy.expect("error"))["code"] == "no_room"
            await spy.send({"t": then, "code": code})
            waiting = await spy.expect("error")
            assert waiting["code"] == "join_wait" and waiting["retry_ms"] > 0
            await spy.send({"t": "join", "code": code})
            assert (await spy.expect("error"))["code"] == "join_wait"
            await asyncio.sleep(waiting["retry_ms"] / 1000 + 0.05)
        await spy.send({"t": "replay", "code": code, "player": 1})
        await spy.expect("replay", code=code)
    finally:
        await close_all([*bots, spy])
