"""The server on a real Redis Cluster (three primaries on loopback ports)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.asyncio.cluster import RedisCluster

import server
from server.race.ratings import Skill
from server.store import keys
from server.store.arenas import ArenaStore
from server.store.arenas import key as arena_key
from server.store.batch import ScriptBatcher
from server.store.client import open_client
from server.store.ratings import history_key, rating_board
from server.store.rooms import RoomStore
from server.store.router import Router, slot_of
from tests.integration.server.test_friends import notice
from tests.support.bot import Bot
from tests.support.cluster import LocalCluster, local_cluster
from tests.support.servers import (
    VARIANT,
    ServerFactory,
    close_all,
    play_out,
    results_of,
    start_race,
    txt,
    ws_url,
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with local_cluster(3) as c:
        yield c


def owner(cluster: LocalCluster, key: str) -> int:
    """Index of the primary that owns ``key``'s slot."""
    c = cluster.client(cluster.primaries[0])
    try:
        for low, high, node, *_ in c.execute_command("CLUSTER", "SLOTS"):
            if low <= slot_of(key) <= high:
                return next(i for i, p in enumerate(cluster.primaries) if p.port == node[1])
    finally:
        c.close()
    raise AssertionError("slot not served")


async def test_the_stores_multi_command_writes_run_on_the_cluster_client(cluster: LocalCluster) -> None:
    # They were MULTI/EXEC: redis-py's cluster client queued each command on a
    # thread with an event loop of its own, and a transaction holding SMEMBERS
    # raised TypeError after Redis had applied it (the rematch vote).
    client = open_client(cluster.url, cluster=True)
    await client.ping()  # the client learns the slots in this test's loop
    store = RoomStore(client, race_ms=60_000, countdown_ms=0)
    arenas = ArenaStore(client, store)
    code = f"RV{secrets.token_hex(3).upper()}"
    arena = f"cl{secrets.token_hex(3)}"
    variant = f"nov{secrets.token_hex(2)}"
    try:
        assert await store.rematch_vote(code, 1, True) == {1}
        assert await store.rematch_vote(code, 2, True) == {1, 2}
        assert await store.rematch_vote(code, 1, False) == {2}
        assert await client.pttl(keys.rematch(code)) > 0
        await store.reserve_seats(code, [("ann", None), ("bob", "Bob")])
        starts = int(time.time() * 1000)
        await store.start_reserved(code, 2, starts, starts + 60_000)
        assert await client.hget(keys.meta(code), "players") == b"2"
        assert await client.hmget(keys.meta(code), ["phase", "starts_at"]) == [
            b"racing", str(starts).encode()]
        assert await client.pttl(keys.player(code, 1)) > 60_000
        bob = await client.hgetall(keys.player(code, 2))
        assert (bob[b"name"], bob[b"who"], bob[b"ready"]) == (b"bob", b"bob", b"1")
        await store.add_quick(variant, code)
        assert await store.quick_candidates(variant) == [code]
        await arenas.mark_seen(arena, ["ann", "bob"], [], 5, 60_000)
        await arenas.mark_seen(arena, ["cy"], ["ann"], 6, 60_000)
        assert await client.zrange(arena_key(arena, "seen"), 0, -1, withscores=True) == [
            (b"bob", 5.0), (b"cy", 6.0)]
    finally:
        await client.delete(keys.rematch(code), keys.meta(code), *keys.all_player_keys(code, 2))
        await client.delete(keys.quick(variant), arena_key(arena, "seen"))
        await client.aclose()


def test_no_store_write_is_a_redis_py_transaction() -> None:
    # the reason is the test above; a script is one routed command instead
    sources = [p.read_text() for p in Path(server.__file__).parent.rglob("*.py")]
    assert not [s for s in sources if "transaction=True" in s]


async def test_a_full_race_on_a_cluster_with_players_on_two_processes(
        cluster: LocalCluster, make_server: ServerFactory) -> None:
    apps = [await make_server(cluster.url, redis_cluster=True) for _ in range(2)]
    names = [f"cl{secrets.token_hex(3)}" for _ in range(2)]
    bots = [Bot(ws_url(app), name, seed=7 + i) for i, (app, name) in enumerate(zip(apps, names, strict=True))]
    try:
        for bot, name in zip(bots, names, strict=True):
            await bot.connect()
            await bot.send({"t": "claim", "name": name})
            await bot.expect("claimed")
        await bots[0].send({"t": "create", "variant": VARIANT, "players": 2, "private": True})
        code = (await bots[0].expect("joined"))["code"]
        await bots[1].send({"t": "join", "code": code})
        await bots[1].expect("joined", code=code)
        await start_race(bots)
        # progress crosses processes over the room's shard channel
        await bots[0].move(bots[0].choose() or "draw")
        await bots[1].expect("progress", player=1, moves=1)
        for bot in bots:
            await play_out(bot, 40)
        results = [await results_of(bot, timeout=30) for bot in bots]
        assert results[0]["ranking"] == results[1]["ranking"]
        # the room lives on one primary; ratings went to the players' own slots
        # and the all-time board's, wherever those are
        c = RedisCluster(host="127.0.0.1", port=cluster.primaries[0].port, decode_responses=True)
        try:
            assert await c.hget(keys.meta(code), "phase") == "finished"
            rated = await c.zrange(f"board:{{alltime}}:rating:{VARIANT}", 0, -1)
            assert set(names) <= set(rated)
            season = await c.zrange(rating_board(VARIANT, apps[0].competition.ladder.current().id), 0, -1)
            assert set(names) <= set(season)
            assert Skill.from_store(txt(await c.hget(f"user:{{{names[0]}}}", f"r:{VARIANT}"))).races == 1
            assert len(await c.lrange(history_key(names[0], VARIANT), 0, -1)) == 1
        finally:
            await c.aclose()
    finally:
        await close_all(bots)


async def test_move_scripts_are_routed_to_each_slots_owner(cluster: LocalCluster) -> None:
    """One batch with keys on every primary: each call runs on its owner (a wrong
    node would answer MOVED, which the batcher follows; a cross-node batch needs both)."""
    client = RedisCluster(host="127.0.0.1", port=cluster.primaries[0].port)
    batcher = ScriptBatcher(Router(client), "return redis.call('INCR', KEYS[1])")
    try:
        ks = [f"test:{{{secrets.token_hex(4)}}}" for _ in range(30)]
        assert {owner(cluster, k) for k in ks} == {0, 1, 2}
        replies = await asyncio.gather(*(batcher.call([k], [], slot=slot_of(k)) for k in ks))
        assert replies == [1] * len(ks)
        batcher.round_trips = 0  # the first batch also loaded the script on each node
        replies = await asyncio.gather(*(batcher.call([k], [], slot=slot_of(k)) for k in ks))
        assert replies == [2] * len(ks)
        assert batcher.round_trips == 3  # one pipeline per node
    finally:
        batcher.close()
        await client.aclose()


def _move_slot(cluster: LocalCluster, slot: int, source: int, target: int) -> None:
    """Reshard one slot with its keys, as redis-cli --cluster reshard does."""
    src, dst = cluster.primaries[source], cluster.primaries[target]
    s, d = cluster.client(src), cluster.client(dst)
    try:
        src_id, dst_id = cluster.node_id(src), cluster.node_id(dst)
        d.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
        s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
        while names := s.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
            s.execute_command("MIGRATE", "127.0.0.1", dst.port, "", 0, 5000, "KEYS", *names)
        for c in (d, s):
            c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
    finally:
        s.close()
        d.close()


async def test_a_stale_slot_map_is_followed_after_moved(cluster: LocalCluster) -> None:
    client = RedisCluster(host="127.0.0.1", port=cluster.primaries[0].port)
    batcher = ScriptBatcher(Router(client), "return redis.call('INCR', KEYS[1])")
    key = f"test:{{{secrets.token_hex(4)}}}"
    try:
        assert await batcher.call([key], [], slot=slot_of(key)) == 1
        source = owner(cluster, key)
        target = (source + 1) % 3
        _move_slot(cluster, slot_of(key), source, target)
        # the batcher still believes the old owner: MOVED, refresh, again on the new one
        assert await batcher.call([key], [], slot=slot_of(key)) == 2
        direct = redis.Redis(host="127.0.0.1", port=cluster.primaries[target].port)
        assert int(direct.get(key) or 0) == 2
        direct.close()
    finally:
        batcher.close()
        await client.aclose()


async def test_ask_to_a_node_without_the_script_while_it_runs_its_own_calls(
        cluster: LocalCluster) -> None:
    """Mid-migration a moved key is answered ASK: the call goes after ASKING to the
    target, which may not have the script yet (NOSCRIPT: load it there) and may be
    running a pipeline of this same batch (one pipeline per connection, or replies
    would reach the wrong callers)."""
    # a script no node has seen: the target answers NOSCRIPT to the ASKed call
    source_text = f"-- {secrets.token_hex(4)}\nreturn redis.call('INCR', KEYS[1])"
    client = RedisCluster(host="127.0.0.1", port=cluster.primaries[0].port)
    batcher = ScriptBatcher(Router(client), source_text)
    key = f"test:{{{secrets.token_hex(4)}}}"
    source = owner(cluster, key)
    target = (source + 1) % 3
    src, dst = cluster.primaries[source], cluster.primaries[target]
    s, d = cluster.client(src), cluster.client(dst)
    slot = slot_of(key)
    try:
        s.set(key, 41)
        # keys the target owns, in the same batch as the ASKed call
        theirs = [k for k in (f"t:{{{secrets.token_hex(4)}}}" for _ in range(200))
                  if owner(cluster, k) == target][:5]
        d.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", cluster.node_id(src))
        s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", cluster.node_id(dst))
        s.execute_command("MIGRATE", "127.0.0.1", dst.port, "", 0, 5000, "KEYS", key)
        replies = await asyncio.gather(batcher.call([key], [], slot=slot),
                                       *(batcher.call([k], [], slot=slot_of(k)) for k in theirs))
        assert replies == [42] + [1] * len(theirs)
        for c in (d, s):
            c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", cluster.node_id(dst))
        assert await batcher.call([key], [], slot=slot) == 43
    finally:
        s.close()
        d.close()
        batcher.close()
        await client.aclose()


async def test_quick_races_are_paired_across_processes_on_a_cluster(
        cluster: LocalCluster, make_server: ServerFactory) -> None:
    """The queue's keys share one slot per variant: its scripts run on a real cluster,
    and two processes pair their players through it."""
    apps = [await make_server(cluster.url, redis_cluster=True, arena_tick_ms=100, quick_bot_s=0)
            for _ in range(2)]
    bots = [Bot(ws_url(app), f"mm{i}") for i, app in enumerate(apps)]
    try:
        for bot in bots:
            await bot.connect()
            await bot.send({"t": "quick", "variant": "corners"})
            await bot.expect("queued")
        codes = [(await bot.expect("joined", timeout=15))["code"] for bot in bots]
        assert codes[0] == codes[1]
    finally:
        await close_all(bots)


async def test_a_names_devices_and_codes_on_a_cluster_across_processes(
        cluster: LocalCluster, make_server: ServerFactory) -> None:
    """Every identity script touches one slot (the name's tag), on whichever primary owns it."""
    apps = [await make_server(cluster.url, redis_cluster=True) for _ in range(2)]
    name = f"cd{secrets.token_hex(3)}"
    laptop, phone, newpc = Bot(ws_url(apps[0]), name), Bot(ws_url(apps[1]), "g"), Bot(ws_url(apps[1]), "g")
    try:
        await laptop.connect()
        await laptop.send({"t": "claim", "name": name})
        claimed = await laptop.expect("claimed")
        await laptop.send({"t": "link_code"})
        code = (await laptop.expect("link_code"))["code"]
        await phone.connect()
        await phone.send({"t": "link", "name": name, "code": code})
        await phone.expect("linked")
        await phone.send({"t": "revoke", "id": claimed["device"]})
        assert len((await phone.expect("devices"))["devices"]) == 1
        await phone.send({"t": "rotate_key"})
        await phone.expect("rotated")
        await phone.send({"t": "recovery_codes"})
        codes = (await phone.expect("recovery_codes"))["codes"]
        await newpc.connect()
        await newpc.send({"t": "recover", "name": name, "code": codes[2]})
        await newpc.expect("linked", how="recovery")
        c = RedisCluster(host="127.0.0.1", port=cluster.primaries[0].port, decode_responses=True)
        try:
            base = f"user:{{{name}}}"
            assert await c.hlen(f"{base}:keys") == 1 and await c.scard(f"{base}:recovery") == 7
            assert owner(cluster, f"{base}:keys") == owner(cluster, base)
        finally:
            await c.aclose()
    finally:
        await close_all([laptop, phone, newpc])


async def test_friends_presence_and_a_challenge_on_a_cluster_across_processes(
        cluster: LocalCluster, make_server: ServerFactory) -> None:
    """A name's keys and its notice channel sit in its own slot: a follow, the
    presence read and a challenge with its answer cross two processes and nodes."""
    apps = [await make_server(cluster.url, redis_cluster=True) for _ in range(2)]
    names = [f"fr{secrets.token_hex(3)}" for _ in range(2)]
    ann, bob = (Bot(ws_url(app), name) for app, name in zip(apps, names, strict=True))
    try:
        for bot, name in ((ann, names[0]), (bob, names[1])):
            await bot.connect()
            await bot.send({"t": "claim", "name": name})
            await bot.expect("claimed")
        await ann.send({"t": "follow", "name": names[1]})
        following = (await ann.expect("friends"))["following"]
        assert following == [{"name": names[1], "online": True, "in_room": False, "room": None}]
        await ann.send({"t": "challenge", "name": names[1], "variant": VARIANT})
        assert (await notice(bob, "challenge"))["name"] == names[0]
        await bob.send({"t": "challenge_answer", "name": names[0]})
        code = (await notice(ann, "challenge_accepted"))["code"]
        await asyncio.gather(ann.expect("joined", code=code), bob.expect("joined", code=code))
        # a block reads and writes both names' keys, in their two slots
        await bob.send({"t": "block", "name": names[0]})
        assert (await bob.expect("friends"))["blocked"] == [names[0]]
        await ann.send({"t": "friends"})
        assert (await ann.expect("friends"))["following"] == []  # the block ended the follow
        await ann.send({"t": "follow", "name": names[1]})
        assert (await ann.expect("error"))["code"] == "blocked"
    finally:
        await close_all([ann, bob])
