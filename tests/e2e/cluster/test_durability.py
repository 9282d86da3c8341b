"""PATIENCE_DURABILITY=replica: a move is acknowledged only once a replica has it
(WAIT 1 per batch), against a real primary and replica."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from server.ops.config import ConfigError, Settings
from server.store.batch import ReplicaLagging, ScriptBatcher
from server.store.embedded import EmbeddedRedis
from server.store.resp import RespConnection
from tests.support.bot import Bot
from tests.support.cluster import free_port
from tests.support.servers import ServerFactory, close_all, race, ws_url

INCR = "return redis.call('INCR', KEYS[1])"


@pytest.fixture
def pair() -> Iterator[tuple[EmbeddedRedis, EmbeddedRedis]]:
    with tempfile.TemporaryDirectory(prefix="prr-dur-") as tmp:
        # a primary waits 5 s by default for more replicas before a diskless full sync
        primary = EmbeddedRedis(Path(tmp) / "primary", port=free_port(),
                                extra_config={"repl-diskless-sync-delay": "0"})
        with primary:
            # no AOF on the replica: after its sync it would be writing its first one, and
            # refuse the shutdown at the test's end (a SIGKILL 10 s later)
            replica = EmbeddedRedis(Path(tmp) / "replica", port=free_port(),
                                    extra_config={"replicaof": f"127.0.0.1 {primary.port}",
                                                  "appendonly": "no"})
            with replica:
                c = redis.Redis.from_url(replica.url, decode_responses=True)
                deadline = time.monotonic() + 20
                while c.info("replication").get("master_link_status") != "up":
                    assert time.monotonic() < deadline, "the replica never caught up"
                    time.sleep(0.05)
                c.close()
                yield primary, replica


def test_the_setting_is_read_and_checked() -> None:
    assert Settings.from_env({}).durability == "local"
    assert Settings.from_env({"PATIENCE_DURABILITY": "replica"}).durability == "replica"
    with pytest.raises(ConfigError, match="PATIENCE_DURABILITY"):
        Settings.from_env({"PATIENCE_DURABILITY": "always"})


async def test_an_acknowledged_call_is_already_on_the_replica(
        pair: tuple[EmbeddedRedis, EmbeddedRedis]) -> None:
    primary, replica = pair
    batcher = ScriptBatcher(RespConnection(host="127.0.0.1", port=primary.port), INCR, replicas=1)
    on_replica = redis.Redis.from_url(replica.url)
    try:
        for i in range(1, 20):
            assert await batcher.call(["k"], []) == i
            assert int(on_replica.get("k") or 0) == i  # no lag to wait out: WAIT saw it there
    finally:
        batcher.close()
        on_replica.close()


async def test_without_a_replica_nothing_is_acknowledged(
        pair: tuple[EmbeddedRedis, EmbeddedRedis]) -> None:
    primary, replica = pair
    replica.stop()
    local = ScriptBatcher(RespConnection(host="127.0.0.1", port=primary.port), INCR)
    durable = ScriptBatcher(RespConnection(host="127.0.0.1", port=primary.port), INCR, replicas=1)
    try:
        assert await local.call(["k"], []) == 1  # "local" promises the primary only
        with pytest.raises(ReplicaLagging, match="no replica confirmed"):
            await durable.call(["k"], [])
    finally:
        local.close()
        durable.close()


async def test_the_server_refuses_moves_it_cannot_replicate(
        make_server: ServerFactory, pair: tuple[EmbeddedRedis, EmbeddedRedis]) -> None:
    primary, replica = pair
    app = await make_server(primary.tcp_url, durability="replica")
    url = ws_url(app)
    bots, _ = await race([url, url])
    ann = bots[0]
    try:
        answer = await ann.move(ann.choose() or "draw")
        assert answer["t"] == "view"
        replica.stop()
        answer = await ann.move(ann.choose() or "draw")
        assert answer["t"] == "error" and answer["code"] == "store_unavailable"
    finally:
        await close_all(bots)


async def test_a_resent_move_is_acknowledged_only_once_the_replica_has_it(
        make_server: ServerFactory, pair: tuple[EmbeddedRedis, EmbeddedRedis]) -> None:
    """A move written on the primary but refused (its replica did not confirm it) and
    sent again on another process, after a resume: the answer waits for the replica."""
    primary, replica = pair
    first = await make_server(primary.tcp_url, durability="replica")
    second = await make_server(primary.tcp_url, durability="replica")
    bots, _ = await race([ws_url(first), ws_url(first)])
    ann = bots[0]
    later: list[Bot] = []
    assert replica.pid is not None
    try:
        assert (await ann.move(ann.choose() or "draw"))["t"] == "view"
        os.kill(replica.pid, signal.SIGSTOP)  # connected, but it confirms nothing
        text = ann.choose() or "draw"
        v, seq = ann.v, ann.seq + 1
        answer = await ann.move(text)
        assert answer["t"] == "error" and answer["code"] == "store_unavailable"
        again = Bot(ws_url(second), ann.name)
        later.append(again)
        await again.connect(token=ann.token)
        await again.expect("view")
        again.seq, again.v = seq - 1, v
        answer = await again.move(text)  # the same seq: the same move
        assert answer["t"] == "error" and answer["code"] == "store_unavailable", answer
        os.kill(replica.pid, signal.SIGCONT)
        answer = await again.move(text)
        assert answer["t"] == "view" and answer["v"] == v + 1
    finally:
        os.kill(replica.pid, signal.SIGCONT)
        await close_all([*bots, *later])
