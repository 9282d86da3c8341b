"""The local cluster's supervisor restarting a SIGKILLed primary (what
``python -m tools.localcluster`` does between faults): never before its replica has
taken its slots over, so an acknowledged write that only the replica holds survives."""

from __future__ import annotations

import os
import secrets
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store.embedded import EmbeddedRedis
from server.store.router import slot_of
from tools.localcluster.nodes import RedisCluster
from tools.localcluster.topology import Topology


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster]:
    with tempfile.TemporaryDirectory(prefix="prr-heal-") as tmp:
        nodes = RedisCluster(Path(tmp), Topology())
        try:
            nodes.start()
            yield nodes
        finally:
            nodes.stop()


def kill_owner(cluster: RedisCluster, key: str) -> EmbeddedRedis:
    owner = cluster.owner(slot_of(key))
    assert owner.pid is not None
    os.kill(owner.pid, signal.SIGKILL)
    while owner.running:  # dead before the supervisor's first round
        time.sleep(0.01)
    return owner


def heal_rounds(cluster: RedisCluster, dead: EmbeddedRedis, timeout: float = 60.0) -> None:
    """Run the supervisor's round every 20 ms until ``dead`` is restarted."""
    deadline = time.monotonic() + timeout
    while not cluster.restart_failed():
        assert time.monotonic() < deadline, "the killed node was never restarted"
        time.sleep(0.02)


def role(cluster: RedisCluster, node: EmbeddedRedis) -> str:
    """What ``node`` says it is (``INFO replication``): master or slave."""
    client = cluster.client(node)
    try:
        return str(client.info("replication")["role"])
    finally:
        client.close()


def replica_of(cluster: RedisCluster, primary: EmbeddedRedis) -> EmbeddedRedis:
    view = cluster.view()
    primary_id = view[primary.port].id
    return next(n for n in cluster.nodes if view[n.port].primary == primary_id)


def settled(cluster: RedisCluster) -> None:
    cluster.wait_ok(60)
    cluster.wait_replicated(60)


def test_a_killed_primary_is_restarted_only_after_its_replica_took_its_slots(cluster: RedisCluster) -> None:
    settled(cluster)
    key = f"heal:{secrets.token_hex(4)}"
    replica = replica_of(cluster, cluster.owner(slot_of(key)))
    dead = kill_owner(cluster, key)
    heal_rounds(cluster, dead)
    assert role(cluster, replica) == "master"  # it had won the election when its old primary came back
    settled(cluster)
    assert cluster.owner(slot_of(key)) is replica
    assert cluster.owner(slot_of(key)) is not dead
    assert cluster.roles()[dead.port][0] == "replica"


def test_a_write_only_the_replica_holds_survives_the_primary_sigkill(cluster: RedisCluster) -> None:
    """With ``appendfsync everysec`` a primary answers a write before its AOF has it
    while a background fsync is slow (up to 2 s), so a SIGKILL can take the
    write from its AOF while the replica has it (``WAIT`` said so). Switching the
    AOF off on the primary makes that state certain: the write is acknowledged
    by the replica and absent from the primary's files."""
    settled(cluster)
    key = f"heal:{secrets.token_hex(4)}"
    owner = cluster.owner(slot_of(key))
    client = cluster.client(owner)
    try:
        client.config_set("appendonly", "no")
        client.set(key, "acknowledged")
        assert client.execute_command("WAIT", 1, 10_000) == 1
    finally:
        client.close()
    dead = kill_owner(cluster, key)
    assert dead is owner
    heal_rounds(cluster, dead)
    settled(cluster)
    new_owner = cluster.owner(slot_of(key))
    reader = cluster.client(new_owner)
    try:
        assert reader.get(key) == "acknowledged"
    finally:
        reader.close()
