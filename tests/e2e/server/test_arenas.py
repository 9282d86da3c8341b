"""Arenas through real servers on real Redis: join, get paired, finish, score, re-pair."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.app import RaceServer
from server.race.arena import ID_ALPHABET
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, close_all, txt, ws_url

TICK_MS = 40
VARIANT = "four-seasons"


def new_arena_id() -> str:
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(6))


async def arena_snapshot(client: aioredis.Redis, arena: str) -> dict[str, Any]:
    """Every stored key of an arena and its value (the lease aside: it is renewed each tick)."""
    out: dict[str, Any] = {}
    async for key in client.scan_iter(match=f"arena:{{{arena}}}:*"):
        k = txt(key)
        if k.endswith(":lease") or k.endswith(":seen"):
            continue
        kind = txt(await client.type(key))
        if kind == "hash":
            out[k] = {txt(f): v for f, v in (await client.hgetall(key)).items()}
        elif kind == "zset":
            out[k] = await client.zrange(key, 0, -1, withscores=True)
        elif kind == "set":
            out[k] = sorted(await client.smembers(key))
        else:
            out[k] = await client.get(key)
    return out


async def arena_server(make_server: ServerFactory, **kw: Any) -> RaceServer:
    # no rest between a race and the next pairing, unless a test asks for one
    return await make_server(arena_tick_ms=TICK_MS, **{"arena_rest_ms": 0, **kw})


async def new_arena(app: RaceServer, minutes: int = 10, group: int = 2, start_in_ms: int = 0,
                    race_seconds: int = 60) -> str:
    arena = new_arena_id()
    assert await app.arenas.create(arena, variant=VARIANT, starts_at=app.service.clock() + start_in_ms,
                                   minutes=minutes, group=group, race_seconds=race_seconds)
    return arena


async def joined_arena(url: str, arena: str, name: str) -> Bot:
    bot = Bot(url, name, seed=len(name))
    await bot.connect()
    await bot.send({"t": "arena_join", "id": arena.lower()})  # ids are case-insensitive
    msg = await bot.expect("arena", id=arena)
    assert msg["member"] is True
    return bot


async def paired(bots: list[Bot]) -> str:
    """Each bot is moved into one race (joined, then its first view at the start)."""
    joins = await asyncio.gather(*(b.expect("joined") for b in bots))
    codes = {j["code"] for j in joins}
    assert len(codes) == 1, codes
    assert sorted(j["player"] for j in joins) == list(range(1, len(bots) + 1))
    await asyncio.gather(*(b.expect("view", timeout=10) for b in bots))
    return str(codes.pop())


async def resign_all(bots: list[Bot]) -> None:
    for bot in bots:
        bot.seq += 1
        await bot.send({"t": "resign", "seq": bot.seq})


async def test_two_players_are_paired_score_and_are_paired_again_with_a_new_deal(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server)
    arena = await new_arena(app)
    url = ws_url(app)
    bots = [await joined_arena(url, arena, n) for n in ("ann", "bob")]
    try:
        code = await paired(bots)
        meta = await rdb.hgetall(f"room:{{{code}}}:meta")
        assert txt(meta[b"arena"]) == arena and txt(meta[b"private"]) == "1"
        deal = txt(meta[b"deal"])
        # ann puts a card or two up, then both resign: nobody won, ann is first by cards
        mover = bots[0]
        for _ in range(3):
            assert mover.view is not None
            choice = mover.choose()
            if choice is None:
                break
            await mover.move(choice)
        await resign_all(bots)
        results = await asyncio.gather(*(b.expect("results") for b in bots))
        ranking = results[0]["ranking"]
        assert results[0]["arena"] == arena and results[0]["deal"] is None  # the round's deal stays secret
        first = ranking[0]
        winner = next(b for b in bots if b.player == first["player"])
        expected = 1 if first["time_ms"] is not None else 0
        standing = await winner.expect("arena", timeout=10, players=2)
        while standing["me"]["races"] < 1:
            standing = await winner.expect("arena", timeout=10)
        assert standing["me"]["points"] == expected and standing["me"]["races"] == 1
        assert [line["name"] for line in standing["top"]][:1] == [winner.name] or expected == 0
        # ...and they are paired again at once, on another deal
        for bot in bots:
            bot.results, bot.view = None, None
        again = await paired(bots)
        assert again != code
        deal2 = txt(await rdb.hget(f"room:{{{again}}}:meta", "deal"))
        assert deal2 != deal
        used = {txt(d) for d in await rdb.smembers(f"arena:{{{arena}}}:deals")}
        assert {deal, deal2} <= used
        # the standing's identities never go out
        assert all("who" not in line for line in standing["top"])
    finally:
        await close_all(bots)


async def test_one_pairing_round_gives_every_race_the_same_deal(make_server: ServerFactory,
                                                                rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server)
    arena = await new_arena(app, start_in_ms=600)  # everyone is waiting when the first round comes
    url = ws_url(app)
    bots = [await joined_arena(url, arena, f"p{i}") for i in range(4)]
    try:
        joins = await asyncio.gather(*(b.expect("joined", timeout=10) for b in bots))
        codes = sorted({j["code"] for j in joins})
        assert len(codes) == 2
        deals = {txt(await rdb.hget(f"room:{{{c}}}:meta", "deal")) for c in codes}
        assert len(deals) == 1
        assert await rdb.scard(f"arena:{{{arena}}}:deals") == 1
    finally:
        await close_all(bots)


async def test_a_refused_arena_message_changes_nothing(make_server: ServerFactory,
                                                       rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server)
    arena = await new_arena(app, start_in_ms=60_000)  # nobody is paired meanwhile
    url = ws_url(app)
    bot = await joined_arena(url, arena, "cat")
    other = Bot(url, "dan")
    await other.connect()
    try:
        before = await arena_snapshot(rdb, arena)
        missing = new_arena_id()
        await other.send({"t": "arena_join", "id": missing})
        assert (await other.expect("error"))["code"] == "no_arena"
        assert [k async for k in rdb.scan_iter(match=f"arena:{{{missing}}}:*")] == []
        await other.send({"t": "arena_join", "id": "no such id!"})
        assert (await other.expect("error"))["code"] == "no_arena"
        await other.send({"t": "arena_leave"})
        assert (await other.expect("error"))["code"] == "not_in_arena"
        await other.send({"t": "arena_join", "id": 7})
        assert (await other.expect("error"))["code"] == "bad_field"
        # a player racing elsewhere may not join (it would be paired while it races)
        await other.send({"t": "create", "variant": VARIANT, "players": 2})
        code = (await other.expect("joined"))["code"]
        third = Bot(url, "eve")
        await third.connect()
        await third.send({"t": "join", "code": code})
        await third.expect("joined")
        for b in (other, third):
            await b.send({"t": "ready"})
        await other.expect("view")
        await other.send({"t": "arena_join", "id": arena})
        assert (await other.expect("error"))["code"] == "already_in_room"
        await close_all([third])
        assert await arena_snapshot(rdb, arena) == before
    finally:
        await close_all([bot, other])


async def test_an_ended_arena_refuses_new_players_and_keeps_its_final_standing(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server)
    # 1.5 s left: room for a join on a loaded machine (0.3 s was too little)
    arena = await new_arena(app, minutes=1, start_in_ms=-58_500)
    url = ws_url(app)
    bot = await joined_arena(url, arena, "fay")
    try:
        final = await bot.expect("arena", phase="finished", timeout=10)
        assert [line["name"] for line in final["top"]] == ["fay"]
        assert await rdb.ttl(f"arena:{{{arena}}}:final") > 29 * 86_400
        assert await rdb.exists(f"arena:{{{arena}}}:members") == 0
        before = await arena_snapshot(rdb, arena)
        late = Bot(url, "gus")
        await late.connect()
        await late.send({"t": "arena_join", "id": arena})
        assert (await late.expect("error"))["code"] == "arena_over"
        assert await arena_snapshot(rdb, arena) == before
        await late.send({"t": "arena_info", "id": arena})
        kept = await late.expect("arena")
        assert kept["phase"] == "finished" and kept["top"][0]["name"] == "fay" and kept["member"] is False
        await late.send({"t": "arenas"})
        listed = (await late.expect("arenas"))["arenas"]
        assert any(a["id"] == arena and a["phase"] == "finished" for a in listed)
        await close_all([late])
    finally:
        await close_all([bot])


async def test_leaving_an_arena_stops_the_pairing(make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server)
    arena = await new_arena(app, start_in_ms=400)
    url = ws_url(app)
    bots = [await joined_arena(url, arena, n) for n in ("hal", "ivy")]
    try:
        await bots[1].send({"t": "arena_leave"})
        left = await bots[1].expect("arena", member=False)
        assert left["me"]["name"] == "ivy"  # its line stays in the standing
        with pytest.raises(TimeoutError):
            await bots[0].expect("joined", timeout=1.0)
        assert not await rdb.sismember(f"arena:{{{arena}}}:members", "g:" + "x")
        assert await rdb.scard(f"arena:{{{arena}}}:members") == 1
    finally:
        await close_all(bots)


async def test_two_processes_on_one_redis_pair_each_waiting_player_once(
        spawn: Any, redis_url_session: str, rdb: aioredis.Redis, tmp_path: Any) -> None:
    """Both processes tick on the arena; only the lease holder pairs, so no
    player is paired twice and no room is made for nothing."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {"PATIENCE_ARENA_TICK_MS": "30"}
    procs = [await spawn(**env), await spawn(**env)]
    exe = Path(sys.executable).parent / "patience-server"
    made = await asyncio.to_thread(
        subprocess.run, [str(exe), "arena", "create", "--variant", "Four Seasons", "--minutes", "5",
                         "--start", "+0", "--group", "2"],
        env={**os.environ, "REDIS_URL": redis_url_session}, capture_output=True, text=True, timeout=30)
    assert made.returncode == 0, made.stderr
    arena = made.stdout.strip()
    bots: list[Bot] = []
    try:
        # six players, three on each process, all waiting before a round can pair them
        await rdb.hset(f"arena:{{{arena}}}:def", "starts_at", 10**15)  # hold the pairing
        for i in range(6):
            bots.append(await joined_arena(procs[i % 2].url, arena, f"w{i}"))
        await rdb.hset(f"arena:{{{arena}}}:def", "starts_at", 0)
        joins = await asyncio.gather(*(b.expect("joined", timeout=15) for b in bots))
        codes = [j["code"] for j in joins]
        assert len(set(codes)) == 3 and all(codes.count(c) == 2 for c in codes)
        await asyncio.sleep(0.5)  # several more ticks of both processes
        rooms = {txt(k) for k in await rdb.hkeys(f"arena:{{{arena}}}:rooms")}
        assert rooms == set(codes)
        made_rooms = set()
        async for key in rdb.scan_iter(match="room:{*}:meta", count=1000):
            if txt(await rdb.hget(key, "arena")) == arena:
                made_rooms.add(txt(key)[6:12])
        assert made_rooms == set(codes)  # no second pairer made rooms for the same players
        for bot in bots:  # nobody was moved twice
            assert sum(1 for m in bot.inbox if m.get("t") == "joined") == 1
    finally:
        await close_all(bots)


async def test_the_leak_scan_over_an_arena_flow(make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    """No card outside a player's own views, no deal number, no identity: not in
    the standing, not to a spectator of an arena race, not in its results."""
    from tests.integration.server.test_spectating import walk
    from tests.support.servers import is_card

    app = await arena_server(make_server)
    arena = await new_arena(app)
    url = ws_url(app)
    bots = [await joined_arena(url, arena, n) for n in ("jo", "kim")]
    watcher = Bot(url, "lee")
    await watcher.connect()
    try:
        code = await paired(bots)
        deal = txt(await rdb.hget(f"room:{{{code}}}:meta", "deal"))
        await watcher.send({"t": "watch", "code": code})
        await watcher.expect("watching")
        await asyncio.gather(*(b.play(15) for b in bots))
        await resign_all(bots)
        await asyncio.gather(*(b.expect("results") for b in bots))
        await watcher.expect("results")
        for bot in bots:
            await bot.expect("arena", timeout=10)
            # the record, a replay and a ghost of the race wait for the arena's end
            for ask in ({"t": "record", "player": 1}, {"t": "replay", "player": 1, "index": 1},
                        {"t": "ghost", "code": code}):
                await bot.send(ask)
                assert (await bot.expect("error"))["code"] == "no_results", ask
        for who in [*bots, watcher]:
            for msg in who.inbox:
                assert deal not in [str(x) for x in walk(msg)], msg
                if msg["t"] == "view":
                    assert who is not watcher
                    continue
                assert not any(is_card(x) for x in walk(msg)), msg
                if msg["t"] == "arena":
                    lines = msg["top"] + ([msg["me"]] if msg["me"] else [])
                    assert all(set(line) == {"rank", "name", "points", "races", "wins", "fire",
                                             "claimed"} for line in lines), msg
    finally:
        await close_all([*bots, watcher])


async def test_a_scheduled_arena_is_created_once_by_each_process_that_sees_it_due(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    import datetime as dt

    from server.race.arena import parse_schedule, scheduled_id

    soon = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=30)
    schedule = f"{soon:%H:%M} czarina 45"
    apps = [await arena_server(make_server, arena_schedule=schedule) for _ in range(2)]
    arena = scheduled_id(parse_schedule(schedule)[0], soon.date())
    for _ in range(100):
        if await rdb.exists(f"arena:{{{arena}}}:def"):
            break
        await asyncio.sleep(0.05)
    d = {txt(k): txt(v) for k, v in (await rdb.hgetall(f"arena:{{{arena}}}:def")).items()}
    assert d["variant"] == "czarina" and d["minutes"] == "45" and d["status"] == "open"
    bot = Bot(ws_url(apps[1]), "sam")
    await bot.connect()
    try:
        await bot.send({"t": "arenas"})
        listed = (await bot.expect("arenas"))["arenas"]
        assert [a["phase"] for a in listed if a["id"] == arena] == ["upcoming"]
    finally:
        await close_all([bot])


async def test_a_malformed_schedule_stops_the_server_at_start(make_server: ServerFactory) -> None:
    from server.ops.config import ConfigError

    with pytest.raises(ConfigError, match="PATIENCE_ARENAS"):
        await make_server(arena_schedule="25:00 czarina 30")


async def test_when_the_pairer_goes_another_process_takes_the_lease_over(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    apps = [await arena_server(make_server), await arena_server(make_server)]
    arena = await new_arena(apps[0])
    lease = f"arena:{{{arena}}}:lease"
    for _ in range(100):
        if await rdb.get(lease):
            break
        await asyncio.sleep(0.02)
    token = txt(await rdb.get(lease))
    holder = next(a for a in apps if a.arenas.token == token)
    other = next(a for a in apps if a is not holder)
    held_before = other.arenas.leases_held
    await holder.close()  # its lease lapses 5 ticks later; the other process takes it
    bots = [await joined_arena(ws_url(other), arena, n) for n in ("uma", "val")]
    try:
        await paired(bots)
        assert txt(await rdb.get(lease)) == other.arenas.token
        assert other.arenas.leases_held > held_before
    finally:
        await close_all(bots)


async def test_a_member_sitting_in_another_room_is_not_paired_until_it_comes_back(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server)
    arena = await new_arena(app, start_in_ms=60_000)
    url = ws_url(app)
    bots = [await joined_arena(url, arena, n) for n in ("wes", "xia")]
    try:
        await bots[0].send({"t": "create", "variant": VARIANT, "players": 2})
        room = (await bots[0].expect("joined"))["code"]
        await asyncio.sleep(3 * TICK_MS / 1000)  # a tick or two: its process sees it busy
        await rdb.hset(f"arena:{{{arena}}}:def", "starts_at", 0)  # the arena starts now
        with pytest.raises(TimeoutError):
            await bots[1].expect("joined", timeout=1.0)
        await bots[0].send({"t": "leave"})
        code = await paired(bots)
        assert code != room
    finally:
        await close_all(bots)


async def test_joining_the_same_arena_again_during_its_countdown_changes_nothing(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await arena_server(make_server, countdown_ms=1500)
    arena = await new_arena(app)
    url = ws_url(app)
    bots = [await joined_arena(url, arena, n) for n in ("yul", "zed")]
    try:
        code = (await bots[0].expect("joined"))["code"]
        await bots[1].expect("joined", code=code)
        before = await arena_snapshot(rdb, arena)
        await bots[0].send({"t": "arena_join", "id": arena})
        again = await bots[0].expect("arena", id=arena)
        assert again["member"] is True
        assert await arena_snapshot(rdb, arena) == before  # not waiting again while it races
        await asyncio.gather(*(b.expect("view") for b in bots))
        assert sum(1 for m in bots[0].inbox if m.get("t") == "joined") == 1
    finally:
        await close_all(bots)


async def test_closing_the_runner_is_bounded_and_stays_cancellable(make_server: ServerFactory,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop that will not end must not hold the server's close for ever, and a
    close run under a timeout must give way to it (the old close swallowed the
    caller's cancellation, and a test's teardown then waited for good)."""
    app = await make_server()
    runner = app.arenas
    await runner.close()  # the real loop ends at once

    released = asyncio.Event()

    async def stubborn() -> None:
        while not released.is_set():
            try:
                await released.wait()
            except asyncio.CancelledError:
                continue  # ignores every cancel until released

    monkeypatch.setattr("server.rooms.arenas.CLOSE_WAIT_S", 0.2)
    runner._task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(runner.close(), 2)  # gives up waiting after CLOSE_WAIT_S
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(runner.close(), 0.05)  # the caller's timeout wins
    released.set()
    await runner._task
    runner._task = None


async def test_closing_ends_a_loop_busy_in_redis_every_time(make_server: ServerFactory,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.11's ``asyncio.wait_for``, which redis-py puts around each write,
    loses a cancel that arrives just as the write completes: a runner busy in
    Redis went on ticking after its close, and a test loop's teardown then
    waited for it for good. Its close must end it each time, at the latest
    once the tick in hand is over."""
    app = await make_server()
    runner = app.arenas
    await runner.close()  # the real loop
    redis = app.redis

    async def busy() -> None:  # a tick that is all redis-py calls
        for _ in range(300):
            await redis.get("arena-test:busy")

    monkeypatch.setattr(runner, "tick", busy)
    loop = asyncio.get_running_loop()
    for _ in range(8):
        runner._closing = False
        runner._task = task = asyncio.create_task(runner._loop())
        await asyncio.sleep(0.01)
        start = loop.time()
        await runner.close()
        assert task.done(), "the loop outlived its close"
        assert loop.time() - start < 1.0


async def test_a_member_who_leaves_after_a_race_and_joins_again_is_paired_again(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    """Leaving the arena and coming back while still sitting in its finished race
    (the results on screen) makes the player available again, as a member who
    never left is: its next pairing comes."""
    app = await arena_server(make_server)
    arena = await new_arena(app)
    url = ws_url(app)
    bots = [await joined_arena(url, arena, n) for n in ("abe", "bea")]
    try:
        code = await paired(bots)
        await bots[0].send({"t": "arena_leave"})
        await bots[0].expect("arena", member=False)
        await resign_all(bots)
        await asyncio.gather(*(b.expect("results") for b in bots))
        with pytest.raises(TimeoutError):  # only one member is left: nobody is paired
            await bots[1].expect("joined", timeout=0.5)
        for bot in bots:
            bot.results, bot.view = None, None
        await bots[0].send({"t": "arena_join", "id": arena})
        assert (await bots[0].expect("arena", id=arena))["member"] is True
        again = await paired(bots)
        assert again != code
    finally:
        await close_all(bots)
