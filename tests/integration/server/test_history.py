"""Profiles' history through a real server and Redis: a race's games kept per
claimed name when its results are written, listed, counted in the profile, and
replayed or raced as a ghost after the room itself has expired."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from server.app import RaceServer
from server.store import keys
from tests.support.bot import Bot
from tests.support.servers import close_all, play_out, results_of, ws_url


async def claimed(url: str, name: str) -> Bot:
    bot = Bot(url, name, seed=len(name))
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    await bot.expect("claimed")
    return bot


async def raced(app: RaceServer, names: list[str],
                private: bool = True) -> tuple[list[Bot], str, dict[str, Any]]:
    url = ws_url(app)
    bots = [await claimed(url, n) for n in names]
    await bots[0].send({"t": "create", "variant": "four-seasons", "players": len(bots), "private": private})
    code = (await bots[0].expect("joined"))["code"]
    for b in bots[1:]:
        await b.send({"t": "join", "code": code})
        await b.expect("joined")
    for b in bots:
        await b.send({"t": "ready"})
    for b in bots:
        await b.expect("view")
    for _ in range(4):
        await bots[0].move(bots[0].choose() or "draw")
    await asyncio.gather(*(play_out(b, 0) for b in bots))
    results = (await asyncio.gather(*(results_of(b) for b in bots)))[0]
    await written(app, code, names)
    return bots, code, results


async def written(app: RaceServer, code: str, names: list[str]) -> None:
    """Wait for the race's history writes: they follow the results, in the background."""
    history = app.service.competition.history
    for _ in range(200):
        await history.drain()
        if None not in [await history.game(n, code) for n in names]:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the history of {code} was not written")


async def expire(rdb: aioredis.Redis, code: str) -> None:
    """What a day does to a finished room: every key of it gone."""
    await rdb.delete(*(await rdb.keys(f"room:{{{code}}}:*")))
    assert await rdb.exists(keys.meta(code)) == 0


async def test_a_race_is_kept_listed_and_counted(server: RaceServer, rdb: aioredis.Redis) -> None:
    bots, code, results = await raced(server, ["ann", "bob"])
    try:
        ann = bots[0]
        await ann.send({"t": "games", "name": "BOB"})
        page = await ann.expect("games")
        assert page["total"] == 1 and [g["code"] for g in page["games"]] == [code]
        (g,) = page["games"]
        mine = next(r for r in results["ranking"] if r["name"] == "bob")
        assert g["player"] == mine["player"] and g["place"] == mine["place"] and g["mode"] == "race"
        assert g["ranked"] and g["rating_after"] == results["ratings"]["bob"] and "deal" not in g
        await ann.send({"t": "profile", "name": "ann"})
        stats = (await ann.expect("profile"))["stats"]
        won = results["ranking"][0]["name"] == "ann"
        assert stats["races"] == 1 and stats["wins"] == int(won) and stats["win_rate"] == float(won)
        assert stats["variants"]["four-seasons"]["races"] == 1 and stats["played"]["race"] == 1
        # a guest's profile and games: nothing
        await ann.send({"t": "games", "name": "nobody"})
        assert (await ann.expect("games"))["total"] == 0
    finally:
        await close_all(bots)


async def test_a_kept_game_is_replayed_and_raced_after_its_room_expired(
        server: RaceServer, rdb: aioredis.Redis) -> None:
    bots, code, _ = await raced(server, ["ann", "bob"], private=False)
    try:
        ann, bob = bots
        await bob.send({"t": "replay", "code": code, "player": 1, "index": 4})
        live = await bob.expect("replay")
        await expire(rdb, code)
        await bob.send({"t": "replay", "code": code, "player": 1})
        try:
            assert (await bob.expect("error", timeout=3))["code"] == "no_room"
        except TimeoutError:
            raise AssertionError(bob.inbox[-5:]) from None
        await bob.send({"t": "game_replay", "name": "ann", "code": code.lower(), "index": 4})
        kept = await bob.expect("replay")
        assert kept["view"] == live["view"] and kept["total"] == live["total"] and kept["name"] == "ann"
        # its ghost: a room of one on the same deal, the kept run's progress at its times
        await bob.send({"t": "game_ghost", "name": "ann", "code": code})
        described = await bob.expect("ghost")
        assert described["source"] == code and described["moves"] == live["total"]
        await bob.expect("view")
        progress = await bob.expect("progress", player=2)
        assert progress["moves"] >= 0
    finally:
        await close_all(bots)


async def test_refusals_change_nothing(server: RaceServer, rdb: aioredis.Redis) -> None:
    bots, code, _ = await raced(server, ["ann", "bob"], private=True)
    cy = await claimed(ws_url(server), "cy")
    try:
        await expire(rdb, code)
        before = {k: await rdb.dump(k) for k in await rdb.keys("*")}
        for msg, refusal in (({"t": "game_replay", "name": "ann", "code": "ZZZZZZ"}, "no_game"),
                             ({"t": "game_ghost", "name": "nobody", "code": code}, "no_game"),
                             # a private race's ghost is for its own players only
                             ({"t": "game_ghost", "name": "ann", "code": code}, "ghost_private"),
                             ({"t": "games", "name": "ann", "limit": 0}, "bad_field")):
            await cy.send(msg)
            assert (await cy.expect("error"))["code"] == refusal, msg
        assert {k: await rdb.dump(k) for k in await rdb.keys("*")} == before
        # its own player may race it
        await bots[0].send({"t": "game_ghost", "name": "ann", "code": code})
        assert (await bots[0].expect("ghost"))["source"] == code
    finally:
        await close_all([*bots, cy])
