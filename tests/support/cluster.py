"""A real Redis Cluster on loopback ports, from the embedded server binary.

Nodes get ``cluster-enabled yes``; slots are split evenly with CLUSTER
ADDSLOTSRANGE, the nodes MEET, and we wait for ``cluster_state:ok`` on each.
Optional replicas follow a primary each (CLUSTER REPLICATE).
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from server.store.embedded import EmbeddedRedis
from tools.localcluster.nodes import SLOTS, known_ids
from tools.localcluster.nodes import free_port as _free_port

__all__ = ["LocalCluster", "free_port", "local_cluster"]


def free_port() -> int:
    """A free port whose cluster bus port (+10000) is free too."""
    return _free_port(bus=True)


def node_config() -> dict[str, str]:
    return {"cluster-enabled": "yes", "cluster-config-file": "nodes.conf",
            "cluster-node-timeout": "2000", "cluster-require-full-coverage": "no",
            # a replica promotes itself at once when its primary dies (tests wait on it)
            "cluster-replica-validity-factor": "0"}


@dataclass
class LocalCluster:
    primaries: list[EmbeddedRedis]
    replicas: list[EmbeddedRedis] = field(default_factory=list)

    @property
    def url(self) -> str:
        """Seed URLs as REDIS_URL takes them with REDIS_CLUSTER=1."""
        return ",".join(n.tcp_url for n in self.primaries)

    def client(self, node: EmbeddedRedis) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=node.port, decode_responses=True)

    def node_id(self, node: EmbeddedRedis) -> str:
        c = self.client(node)
        try:
            return str(c.execute_command("CLUSTER", "MYID"))
        finally:
            c.close()

    def wait_ok(self, timeout: float = 30.0) -> None:
        """As the served cluster's (tools/localcluster/nodes.py): every running
        node ok, and knowing every other by its id (its handshakes done)."""
        deadline = time.monotonic() + timeout
        running = [node for node in [*self.primaries, *self.replicas] if node.running]
        for node in running:
            c = self.client(node)
            try:
                while "cluster_state:ok" not in c.execute_command("CLUSTER", "INFO"):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"cluster not ok on port {node.port}")
                    time.sleep(0.05)
            finally:
                c.close()
        ids = {self.node_id(node) for node in running}
        for node in running:
            c = self.client(node)
            try:
                while not ids <= known_ids(str(c.execute_command("CLUSTER", "NODES"))):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"the node on port {node.port} does not know every node yet")
                    time.sleep(0.05)
            finally:
                c.close()


def _start(root: Path, name: str) -> EmbeddedRedis:
    node = EmbeddedRedis(root / name, port=free_port(), extra_config=node_config())
    node.start()
    return node


@contextlib.contextmanager
def local_cluster(primaries: int = 3, replicas: int = 0) -> Iterator[LocalCluster]:
    with tempfile.TemporaryDirectory(prefix="prr-cl-") as tmp, contextlib.ExitStack() as stack:
        root = Path(tmp)
        cluster = LocalCluster([])
        for i in range(primaries):
            cluster.primaries.append(_start(root, f"p{i}"))
            stack.callback(cluster.primaries[-1].stop)
        for i in range(replicas):
            cluster.replicas.append(_start(root, f"r{i}"))
            stack.callback(cluster.replicas[-1].stop)
        step = SLOTS // primaries
        first = cluster.client(cluster.primaries[0])
        try:
            for i, node in enumerate(cluster.primaries):
                low, high = i * step, SLOTS - 1 if i == primaries - 1 else (i + 1) * step - 1
                c = cluster.client(node)
                c.execute_command("CLUSTER", "ADDSLOTSRANGE", low, high)
                c.close()
            for node in [*cluster.primaries[1:], *cluster.replicas]:
                first.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port)
        finally:
            first.close()
        cluster.wait_ok()
        for i, node in enumerate(cluster.replicas):
            primary_id = cluster.node_id(cluster.primaries[i % primaries])
            c = cluster.client(node)
            try:
                deadline = time.monotonic() + 20
                while True:  # the replica must have heard of its primary through gossip first
                    try:
                        c.execute_command("CLUSTER", "REPLICATE", primary_id)
                        break
                    except redis.ResponseError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.1)
            finally:
                c.close()
        cluster.wait_ok()
        yield cluster
