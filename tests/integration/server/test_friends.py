"""Friends, presence, challenges, blocks and notices, against real Redis and
two in-process servers (one name on each, so every notice crosses processes):
each flow, and each refusal compared against the whole store."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.app import RaceServer
from server.ops.clock import now_ms
from server.rooms import friends as friends_module
from server.rooms import notices as notices_module
from server.rooms.arenas import new_id
from server.store import friends as friend_store
from server.store.presence import notify_channel, presence_key
from tests.support.bot import Bot
from tests.support.servers import VARIANT, ServerFactory, close_all, start_race, txt, ws_url


def fresh(name: str) -> str:
    return f"{name}{secrets.token_hex(3)}"  # the session's Redis keeps names across tests


async def claimed(url: str, name: str) -> Bot:
    bot = Bot(url, name)
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    await bot.expect("claimed")
    return bot


async def notice(bot: Bot, kind: str) -> dict[str, Any]:
    """The next notice of this kind (``kind`` is also expect's own argument)."""
    while True:
        msg = await bot.expect("notice")
        if msg.get("kind") == kind:
            return msg


async def store(rdb: aioredis.Redis) -> dict[str, Any]:
    """Every key with its whole value, but those a server's own timers rewrite
    (presence, seasons, the quick-race lease)."""
    out: dict[str, Any] = {}
    async for raw in rdb.scan_iter(count=1000):
        key = raw.decode()
        if key.startswith(("presence:", "season")) or (key.startswith("mm:") and key.endswith(":lease")):
            continue
        kind = txt(await rdb.type(raw))
        if kind == "hash":
            out[key] = await rdb.hgetall(raw)
        elif kind == "set":
            out[key] = await rdb.smembers(raw)
        elif kind == "zset":
            out[key] = await rdb.zrange(raw, 0, -1, withscores=True)
        elif kind == "list":
            out[key] = await rdb.lrange(raw, 0, -1)
        else:
            out[key] = await rdb.get(raw)
    return out


STORAGE = (Path(__file__).resolve().parents[3] / "docs/reference/storage.md").read_text(encoding="utf-8")


async def every_key_lapses_and_is_documented(rdb: aioredis.Redis, *names: str) -> int:
    """Each of these names' friends, block, presence and challenge keys has a TTL and
    its pattern (the name as ``{name}``) is a row of the storage table; how many."""
    found = 0
    for name in names:
        tag = "{" + name.casefold() + "}"
        for prefix in ("friends:", "block:", "presence:", "challenge:"):
            async for raw in rdb.scan_iter(match=f"{prefix}{tag}*"):
                key = raw.decode()
                assert await rdb.pttl(key) > 0, f"{key} has no TTL"
                assert f"| `{key.replace(tag, '{name}')}` |" in STORAGE, key
                found += 1
    return found


async def refused(bot: Bot, message: dict[str, Any], code: str, rdb: aioredis.Redis) -> None:
    before = await store(rdb)
    await bot.send(message)
    answer = await bot.expect("error")
    assert answer["code"] == code, answer
    assert await store(rdb) == before, message


@pytest.fixture
async def two(make_server: ServerFactory) -> tuple[RaceServer, RaceServer]:
    return await make_server(), await make_server()


async def test_a_followed_name_is_seen_online_in_its_room_across_processes(
        two: tuple[RaceServer, RaceServer], rdb: aioredis.Redis) -> None:
    one, other = two
    ann_name, bob_name = fresh("ann"), fresh("Bob")
    ann = await claimed(ws_url(one), ann_name)
    bob = await claimed(ws_url(other), bob_name)
    try:
        await ann.send({"t": "follow", "name": bob_name.lower()})  # any case finds the name
        listing = await ann.expect("friends")
        assert listing["following"] == [{"name": bob_name, "online": True, "in_room": False, "room": None}]
        assert await rdb.sismember(friend_store.followers_key(bob_name), ann_name.casefold())
        # the follow's two keys, both presences and their told marks
        assert await every_key_lapses_and_is_documented(rdb, ann_name, bob_name) == 6
        await bob.send({"t": "create", "variant": VARIANT})
        code = (await bob.expect("joined"))["code"]
        await other.presence.refresh()  # the timer's work, now: the room it is in
        await ann.send({"t": "friends"})
        row = (await ann.expect("friends"))["following"][0]
        assert row["in_room"] is True and row["room"] is None  # its code: for those it follows
        await bob.send({"t": "follow", "name": ann_name})
        await bob.expect("friends")
        await ann.send({"t": "friends"})
        assert (await ann.expect("friends"))["following"][0]["room"] == code
        await bob.close()
        await asyncio.sleep(0.2)  # the connection's end is written
        await ann.send({"t": "friends"})
        assert (await ann.expect("friends"))["following"][0]["online"] is False
        await ann.send({"t": "unfollow", "name": bob_name})
        assert (await ann.expect("friends"))["following"] == []
        assert not await rdb.sismember(friend_store.followers_key(bob_name), ann_name.casefold())
    finally:
        await close_all([ann, bob])


async def test_followers_are_told_when_a_name_comes_online(two: tuple[RaceServer, RaceServer]) -> None:
    one, other = two
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(ws_url(one), ann_name)
    bob = await claimed(ws_url(other), bob_name)
    try:
        await ann.send({"t": "follow", "name": bob_name})
        await ann.expect("friends")
        bob_key = next(m for m in bob.inbox if m["t"] == "claimed")["key"]
        await bob.close()
        await asyncio.sleep(0.2)
        await other.presence.store.redis.delete(f"presence:{{{bob_name.casefold()}}}:told")
        back = Bot(ws_url(other), bob_name)
        await back.connect(key=bob_key)
        told = await notice(ann, "friend_online")
        assert told["name"] == bob_name
        await back.close()
    finally:
        await close_all([ann, bob])


async def test_guests_and_bad_names_are_refused_and_change_nothing(
        server: RaceServer, rdb: aioredis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    url = ws_url(server)
    ann_name, bob_name, cid_name = fresh("ann"), fresh("bob"), fresh("cid")
    ann = await claimed(url, ann_name)
    bob = await claimed(url, bob_name)
    cid = await claimed(url, cid_name)
    guest = Bot(url, "visitor")
    await guest.connect()
    try:
        for message in ({"t": "friends"}, {"t": "follow", "name": ann_name},
                        {"t": "challenge", "name": ann_name, "variant": VARIANT},
                        {"t": "block", "name": ann_name}):
            await refused(guest, message, "not_identified", rdb)
        await refused(ann, {"t": "follow", "name": fresh("nobody")}, "no_name", rdb)
        await refused(ann, {"t": "follow", "name": ann_name.upper()}, "no_name", rdb)
        await refused(ann, {"t": "challenge", "name": fresh("nobody"), "variant": VARIANT}, "no_name", rdb)
        await refused(ann, {"t": "challenge_answer", "name": bob_name}, "no_challenge", rdb)
        # a full list refuses before writing anything
        await ann.send({"t": "follow", "name": bob_name})
        await ann.expect("friends")
        monkeypatch.setattr(friends_module, "MAX_FOLLOWING", 1)
        await refused(ann, {"t": "follow", "name": cid_name}, "list_full", rdb)
        # the budget: past it, refused with the wait
        monkeypatch.setattr(friends_module, "BUDGET", 0)
        await refused(cid, {"t": "block", "name": ann_name}, "over_limit", rdb)
    finally:
        await close_all([ann, bob, cid, guest])


async def test_a_challenge_accepted_seats_both_names_in_one_room(
        two: tuple[RaceServer, RaceServer], rdb: aioredis.Redis) -> None:
    one, other = two
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(ws_url(one), ann_name)
    bob = await claimed(ws_url(other), bob_name)
    try:
        await ann.send({"t": "challenge", "name": bob_name, "variant": "Four Seasons"})
        sent = await ann.expect("challenge_sent")
        assert sent["variant"] == VARIANT and sent["expires_at"] > now_ms()
        heard = await notice(bob, "challenge")
        assert (heard["name"], heard["variant"]) == (ann_name, VARIANT)
        await bob.send({"t": "friends"})
        assert [c["name"] for c in (await bob.expect("friends"))["challenges"]] == [ann_name]
        await bob.send({"t": "challenge_answer", "name": ann_name, "accept": True})
        accepted = await notice(ann, "challenge_accepted")
        code = accepted["code"]
        joined = await asyncio.gather(ann.expect("joined", code=code), bob.expect("joined", code=code))
        assert sorted(j["player"] for j in joined) == [1, 2]
        room = await bob.expect("room")
        assert room["private"] is True and room["variant"] == VARIANT and room["players_max"] == 2
        assert not await rdb.exists(f"challenge:{{{bob_name.casefold()}}}")  # answered: gone
        # answered once
        await refused(bob, {"t": "challenge_answer", "name": ann_name}, "no_challenge", rdb)
    finally:
        await close_all([ann, bob])


async def test_a_challenge_declined_tells_the_challenger_and_one_lapses(
        two: tuple[RaceServer, RaceServer], rdb: aioredis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    one, other = two
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(ws_url(one), ann_name)
    bob = await claimed(ws_url(other), bob_name)
    try:
        await ann.send({"t": "challenge", "name": bob_name, "variant": VARIANT})
        await notice(bob, "challenge")
        await bob.send({"t": "challenge_answer", "name": ann_name, "accept": False})
        assert (await notice(ann, "challenge_declined"))["name"] == bob_name
        monkeypatch.setattr(friends_module, "CHALLENGE_TTL_MS", 150)
        await ann.send({"t": "challenge", "name": bob_name, "variant": VARIANT})
        await notice(bob, "challenge")
        await asyncio.sleep(0.3)
        await refused(bob, {"t": "challenge_answer", "name": ann_name, "accept": True}, "no_challenge", rdb)
        await bob.send({"t": "friends"})
        assert (await bob.expect("friends"))["challenges"] == []
        assert bob.code == ""  # never moved anywhere
    finally:
        await close_all([ann, bob])


async def test_a_block_keeps_two_names_apart(server: RaceServer, rdb: aioredis.Redis) -> None:
    url = ws_url(server)
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(url, ann_name)
    bob = await claimed(url, bob_name)
    try:
        await bob.send({"t": "follow", "name": ann_name})
        await bob.expect("friends")
        await ann.send({"t": "challenge", "name": bob_name, "variant": VARIANT})
        await notice(bob, "challenge")
        await bob.send({"t": "challenge", "name": ann_name, "variant": VARIANT})
        await notice(ann, "challenge")
        await ann.send({"t": "block", "name": bob_name})
        listing = await ann.expect("friends")
        assert listing["blocked"] == [bob_name] and listing["challenges"] == []
        # the follow is gone, and the blocked name can neither follow nor challenge
        assert not await rdb.hexists(friend_store.following_key(bob_name), ann_name.casefold())
        await refused(bob, {"t": "follow", "name": ann_name}, "blocked", rdb)
        await refused(bob, {"t": "challenge", "name": ann_name, "variant": VARIANT}, "blocked", rdb)
        await refused(ann, {"t": "challenge", "name": bob_name, "variant": VARIANT}, "blocked", rdb)
        # an open room of the blocker's is never the blocked name's quick race
        await ann.send({"t": "create", "variant": VARIANT, "private": False})
        code = (await ann.expect("joined"))["code"]
        await bob.send({"t": "quick", "variant": VARIANT})
        await bob.expect("queued")
        assert bob.code != code
        # the block, the challenge still waiting, both presences and their told marks
        assert await every_key_lapses_and_is_documented(rdb, ann_name, bob_name) >= 6
        await ann.send({"t": "unblock", "name": bob_name})
        assert (await ann.expect("friends"))["blocked"] == []
    finally:
        await close_all([ann, bob])


async def test_the_pairing_never_puts_blocked_names_in_one_race(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await make_server(quick_bot_s=0, arena_tick_ms=60_000)  # the test runs the rounds
    url = ws_url(app)
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(url, ann_name)
    bob = await claimed(url, bob_name)
    variant = "czarina"
    try:
        # this process pairs the variant (the round's assignment is fenced by the lease)
        assert await app.matchmaker.store.hold_lease(variant, app.matchmaker.token, 60_000)
        await ann.send({"t": "block", "name": bob_name})
        await ann.expect("friends")
        for bot in (ann, bob):
            await bot.send({"t": "quick", "variant": variant})
            await bot.expect("queued")
        assert await app.matchmaker.pair_round(variant, now_ms()) == 0
        await ann.send({"t": "unblock", "name": bob_name})
        await ann.expect("friends")
        assert await app.matchmaker.pair_round(variant, now_ms()) == 1
    finally:
        await close_all([ann, bob])


async def test_notices_of_an_arena_about_to_start_and_a_season_ending(
        server: RaceServer, monkeypatch: pytest.MonkeyPatch) -> None:
    url = ws_url(server)
    arena = new_id()
    assert await server.arenas.create(arena, variant=VARIANT, starts_at=now_ms() + 30_000, minutes=10,
                                      group=2, race_seconds=60, name="Soon")
    ann = await claimed(url, fresh("ann"))
    visitor = Bot(url, "visitor")
    await visitor.connect()
    try:
        for bot in (ann, visitor):
            await bot.send({"t": "arena_join", "id": arena})
            await bot.expect("arena")
        monkeypatch.setattr(notices_module, "SEASON_AHEAD_MS", 400 * 86_400_000)
        await server.notices.tick()
        await server.notices.tick()  # told once
        for bot in (ann, visitor):
            soon = await notice(bot, "arena_soon")
            assert soon["id"] == arena and soon["name"] == "Soon"
        ending = await notice(ann, "season_ending")
        assert ending["ends_at"] > now_ms()
        await ann.send({"t": "ping"})
        await ann.expect("pong")
        await visitor.send({"t": "ping"})
        await visitor.expect("pong")
        assert sum(m.get("kind") == "arena_soon" for m in ann.inbox) == 1
        assert not any(m.get("kind") == "season_ending" for m in visitor.inbox)  # a guest has no season
    finally:
        await close_all([ann, visitor])


async def test_a_name_channel_is_subscribed_again_after_pubsub_drops(
        two: tuple[RaceServer, RaceServer], rdb: aioredis.Redis) -> None:
    """The hub re-subscribes a name's notice channel with its rooms' after a reconnect."""
    one, other = two
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(ws_url(one), ann_name)
    bob = await claimed(ws_url(other), bob_name)
    try:
        channel = notify_channel(bob_name)
        await rdb.client_kill_filter(_type="pubsub")  # both hubs' subscriptions drop
        assert (await rdb.execute_command("PUBSUB", "SHARDNUMSUB", channel))[1] == 0
        for _ in range(100):
            await asyncio.sleep(0.05)
            if (await rdb.execute_command("PUBSUB", "SHARDNUMSUB", channel))[1] == 1:
                break
        await ann.send({"t": "challenge", "name": bob_name, "variant": VARIANT})
        assert (await notice(bob, "challenge"))["name"] == ann_name
    finally:
        await close_all([ann, bob])


async def test_accepting_during_ones_own_race_is_refused_and_the_challenge_waits(
        server: RaceServer, rdb: aioredis.Redis) -> None:
    url = ws_url(server)
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(url, ann_name)
    bob = await claimed(url, bob_name)
    rival = Bot(url, "rival")
    await rival.connect()
    try:
        await bob.send({"t": "create", "variant": VARIANT})
        code = (await bob.expect("joined"))["code"]
        await rival.send({"t": "join", "code": code})
        await rival.expect("joined")
        await start_race([bob, rival])
        await ann.send({"t": "challenge", "name": bob_name, "variant": VARIANT})
        await notice(bob, "challenge")
        answer = {"t": "challenge_answer", "name": ann_name, "accept": True}
        await refused(bob, answer, "already_in_room", rdb)
        await bob.send({"t": "friends"})
        assert [c["name"] for c in (await bob.expect("friends"))["challenges"]] == [ann_name]
        assert bob.code == code
    finally:
        await close_all([ann, bob, rival])


async def test_a_presence_its_process_stopped_writing_lapses(server: RaceServer) -> None:
    """A process that died leaves fields nobody rewrites: they count as offline once
    past their expiry, and the next write drops them."""
    store, name, now = server.presence.store, fresh("gone"), now_ms()
    assert await store.arrive(name, "dead-process-conn", "ABC123", now, 100) == 0
    assert await store.where([name], now) == {name: "ABC123"}
    assert await store.where([name], now + 101) == {}
    assert await store.arrive(name, "live-conn", "", now + 101, 60_000) == 0  # online anew: told again
    assert await store.redis.hkeys(presence_key(name)) == [b"live-conn"]


async def test_an_arena_round_keeps_blocked_names_apart(server: RaceServer) -> None:
    url = ws_url(server)
    ann_name, bob_name = fresh("ann"), fresh("bob")
    ann = await claimed(url, ann_name)
    try:
        await ann.send({"t": "block", "name": (await claimed(url, bob_name)).name})
        await ann.expect("friends")
        a, b = f"n:{ann_name.casefold()}", f"n:{bob_name.casefold()}"
        groups = [[a, b], ["g:guest1", "g:guest2"]]
        assert await server.friends.arena_groups(groups, 3) == [["g:guest1", "g:guest2", b]]
        assert await server.friends.arena_groups([[a, "g:guest1"]], 2) == [[a, "g:guest1"]]
    finally:
        await close_all([ann])
