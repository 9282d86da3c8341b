"""Room channels are shard channels (SPUBLISH/SSUBSCRIBE), against real servers."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from server.store import keys
from server.store.resp import RespConnection, ShardChannelLost
from tests.support.cluster import local_cluster
from tests.support.servers import ServerFactory, close_all, race, ws_url


async def _live(client: aioredis.Redis, channel: str, shard: bool, count: int = 1) -> None:
    """Wait until the server counts ``count`` subscribers."""
    for _ in range(100):
        numsub = await client.execute_command("PUBSUB", "SHARDNUMSUB" if shard else "NUMSUB", channel)
        if int(numsub[1]) >= count:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"no subscriber on {channel}")


async def test_moves_are_published_on_the_rooms_shard_channel(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await make_server()
    url = ws_url(app)
    bots, code = await race([url, url])
    ann, bob = bots
    shard, classic = RespConnection.like(rdb), RespConnection.like(rdb)
    channel = keys.channel(code)
    try:
        await shard.open()
        await classic.open()
        await shard.ssubscribe(channel)
        await classic.subscribe(channel)
        await _live(rdb, channel, shard=True, count=2)  # the hub's and ours
        await _live(rdb, channel, shard=False)
        await ann.move(ann.choose() or "draw")
        got = await asyncio.wait_for(shard.message(), 5)
        assert got is not None and got[0] == channel.encode() and got[1][:2] == keys.PROGRESS + b"\x01"
        # a classic subscriber of the same name hears nothing: shard channels are their own space
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(classic.message(), 0.5)
        await bob.expect("progress", player=1, moves=1)
    finally:
        shard.close()
        classic.close()
        await close_all(bots)


async def test_leaving_a_shard_channel_on_purpose_is_not_a_lost_channel(rdb: aioredis.Redis) -> None:
    sub = RespConnection.like(rdb)
    gone, kept = (f"room:{{T{secrets.token_hex(4)}}}:events" for _ in range(2))
    try:
        await sub.open()
        await sub.ssubscribe(gone, kept)
        await _live(rdb, kept, shard=True)
        await sub.sunsubscribe(gone)
        await rdb.spublish(kept, b"still here")
        assert await asyncio.wait_for(sub.message(), 2) == (kept.encode(), b"still here")
    finally:
        sub.close()


def _slot_of(code: str) -> int:
    return int(key_slot(keys.meta(code).encode()))


async def test_a_shard_channel_dropped_by_the_server_is_reported() -> None:
    with local_cluster(1) as cluster:
        node = cluster.primaries[0]
        client = aioredis.Redis(host="127.0.0.1", port=node.port)
        sub = RespConnection(host="127.0.0.1", port=node.port)
        code = "LOST" + secrets.token_hex(2).upper()
        try:
            await sub.open()
            await sub.ssubscribe(keys.channel(code))
            await _live(client, keys.channel(code), shard=True)
            # the slot leaves this node (what a resharding does to the old owner)
            await client.execute_command("CLUSTER", "DELSLOTS", _slot_of(code))
            with pytest.raises(ShardChannelLost, match="slot moved"):
                await asyncio.wait_for(sub.message(), 5)
        finally:
            sub.close()
            await client.aclose()


async def test_the_hub_follows_a_slot_that_moved_and_catches_up(make_server: ServerFactory) -> None:
    """A dropped shard channel is handled as a reconnect: subscribe again, catch up."""
    with local_cluster(1) as cluster:
        node = cluster.primaries[0]
        app = await make_server(node.tcp_url)
        url = ws_url(app)
        bots, code = await race([url, url])
        ann, bob = bots
        client = aioredis.Redis(host="127.0.0.1", port=node.port)
        try:
            slot = _slot_of(code)
            await client.execute_command("CLUSTER", "DELSLOTS", slot)
            await client.execute_command("CLUSTER", "ADDSLOTS", slot)
            mark = len(ann.inbox)
            await ann.expect("room", timeout=10)  # the catch-up after the lost channel
            assert any(m["t"] == "room" for m in ann.inbox[mark - 1:])
            await bob.move(bob.choose() or "draw")
            await ann.expect("progress", player=2, moves=1, timeout=10)
        finally:
            await client.aclose()
            await close_all(bots)
