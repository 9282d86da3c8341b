"""Profiles' history through a real server and Redis: a race's games kept per
claimed name when its results are written, listed, counted in the profile, and
replayed or raced as a ghost after the room itself has expired."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import redis.asyncio as aioredis

from server.app import RaceServer
from server.store import keys
from tests.integration.server.test_spectating import walk
from tests.support.bot import Bot
from tests.support.servers import close_all, is_card, play_out, results_of, ws_url


def named(*names: str) -> list[str]:
    """Names of this test's own: the session's Redis keeps earlier tests' claims."""
    tag = uuid.uuid4().hex[:6]
    return [f"{n}{tag}" for n in names]


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
    a, b = named("ann", "bob")
    bots, code, results = await raced(server, [a, b])
    try:
        ann = bots[0]
        await ann.send({"t": "games", "name": b.upper()})
        page = await ann.expect("games")
        assert page["total"] == 1 and [g["code"] for g in page["games"]] == [code]
        (g,) = page["games"]
        mine = next(r for r in results["ranking"] if r["name"] == b)
        assert g["player"] == mine["player"] and g["place"] == mine["place"] and g["mode"] == "race"
        assert g["ranked"] and g["rating_after"] == results["ratings"][b] and "deal" not in g
        assert not any(is_card(x) for x in walk(page))  # the leak scan: a list, never a card or a move
        await ann.send({"t": "profile", "name": a})
        stats = (await ann.expect("profile"))["stats"]
        won = results["ranking"][0]["name"] == a
        assert stats["races"] == 1 and stats["wins"] == int(won) and stats["win_rate"] == float(won)
        assert stats["variants"]["four-seasons"]["races"] == 1 and stats["played"]["race"] == 1
        # a name nobody claimed: no games
        await ann.send({"t": "games", "name": named("nobody")[0]})
        assert (await ann.expect("games"))["total"] == 0
    finally:
        await close_all(bots)


async def test_a_kept_game_is_replayed_and_raced_after_its_room_expired(
        server: RaceServer, rdb: aioredis.Redis) -> None:
    a, b = named("ann", "bob")
    bots, code, _ = await raced(server, [a, b], private=False)
    try:
        bob = bots[1]
        await bob.send({"t": "replay", "code": code, "player": 1, "index": 4})
        live = await bob.expect("replay")
        await expire(rdb, code)
        await bob.send({"t": "replay", "code": code, "player": 1})
        assert (await bob.expect("error"))["code"] == "no_room"
        await bob.send({"t": "game_replay", "name": a, "code": code.lower(), "index": 4})
        kept = await bob.expect("replay")
        assert kept["view"] == live["view"] and kept["total"] == live["total"] and kept["name"] == a
        assert kept["layout"]["piles"]  # drawn without its room: the variant's layout comes with it
        # its ghost: a room of one on the same deal, the kept run's progress at its times
        await bob.send({"t": "game_ghost", "name": a, "code": code})
        described = await bob.expect("ghost")
        assert described["source"] == code and described["moves"] == live["total"]
        await bob.expect("progress", player=2, timeout=5)  # the ghost's, from its start
    finally:
        await close_all(bots)


async def test_refusals_change_nothing(server: RaceServer, rdb: aioredis.Redis) -> None:
    a, b, c = named("ann", "bob", "cy")
    bots, code, _ = await raced(server, [a, b], private=True)
    cy = await claimed(ws_url(server), c)
    try:
        await expire(rdb, code)
        before = {k: await rdb.dump(k) for k in await rdb.keys("*")}
        for msg, refusal in (({"t": "game_replay", "name": a, "code": "ZZZZZZ"}, "no_game"),
                             ({"t": "game_ghost", "name": named("nobody")[0], "code": code}, "no_game"),
                             # a private race's ghost is for its own players only
                             ({"t": "game_ghost", "name": a, "code": code}, "ghost_private"),
                             ({"t": "games", "name": a, "limit": 0}, "bad_field")):
            await cy.send(msg)
            assert (await cy.expect("error"))["code"] == refusal, msg
        assert {k: await rdb.dump(k) for k in await rdb.keys("*")} == before
        # its own player may race it
        await bots[0].send({"t": "game_ghost", "name": a, "code": code})
        assert (await bots[0].expect("ghost"))["source"] == code
    finally:
        await close_all([*bots, cy])


async def test_a_kept_games_ghost_comes_back_on_resume(server: RaceServer, rdb: aioredis.Redis) -> None:
    a, b = named("ann", "bob")
    bots, code, _ = await raced(server, [a, b], private=False)
    racer = Bot(ws_url(server), "cyd")
    await racer.connect()
    again: Bot | None = None
    try:
        await expire(rdb, code)
        await racer.send({"t": "game_ghost", "name": a, "code": code})
        assert (await racer.expect("ghost"))["source"] == code
        token = next(m for m in racer.inbox if m["t"] == "joined")["token"]
        await racer.close()
        again = Bot(ws_url(server), "cyd")
        await again.connect(token)  # the source room is gone: the ghost comes from the history
        assert (await again.expect("ghost"))["source"] == code
        await again.expect("progress", player=2, timeout=5)
    finally:
        await close_all([*bots, racer, *([again] if again else [])])
