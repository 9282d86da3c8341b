"""Which server a hot-path command goes to: the one Redis, or on a Redis
Cluster the primary that owns the command's slot.

The slot is CRC16 of the key's hash tag (redis-py's ``key_slot``, the same
function the server uses); the slot map is redis-py's cluster client's own,
refreshed when a server answers MOVED. Each primary gets one lean connection
(:mod:`.resp`) per router: the batcher runs one pipeline per node.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from .resp import RespConnection

Address = tuple[str, int]
SINGLE: Address = ("", 0)  # the address of every call on a single server


def slot_of(key: str) -> int:
    return int(key_slot(key.encode()))


def is_cluster(redis: Any) -> bool:
    return isinstance(redis, RedisCluster)


class Router:
    def __init__(self, redis: Redis | RedisCluster | None, timeout: float = 5.0,
                 single: RespConnection | None = None) -> None:
        self._redis = redis
        self.timeout = timeout
        if single is None and not isinstance(redis, RedisCluster):
            assert redis is not None
            single = RespConnection.like(redis, timeout)
        self._single = single
        self._conns: dict[Address, RespConnection] = {}

    @classmethod
    def of(cls, conn: RespConnection) -> Router:
        """Everything to this one connection (one server)."""
        return cls(None, conn.timeout, single=conn)

    @property
    def cluster(self) -> bool:
        return self._single is None

    async def ready(self) -> None:
        """Learn the slot map once (redis-py does it at its first command)."""
        if isinstance(self._redis, RedisCluster) and not self._redis.nodes_manager.slots_cache:
            await self._redis.initialize()

    async def refresh(self) -> None:
        """Ask the cluster for its slot map again (after MOVED, or a lost node)."""
        if isinstance(self._redis, RedisCluster):
            await self._redis.nodes_manager.initialize()

    def address(self, slot: int) -> Address:
        if self._single is not None:
            return SINGLE
        assert isinstance(self._redis, RedisCluster)
        node = self._redis.nodes_manager.get_node_from_slot(slot)
        return (node.host, int(node.port))

    def primaries(self) -> list[Address]:
        if not isinstance(self._redis, RedisCluster):
            return [("", 0)]
        return sorted({(n.host, int(n.port)) for n in self._redis.get_primaries()})

    def connection(self, address: Address) -> RespConnection:
        if self._single is not None:
            return self._single
        conn = self._conns.get(address)
        if conn is None:
            assert isinstance(self._redis, RedisCluster)
            kw = self._redis.connection_kwargs
            conn = self._conns[address] = RespConnection(
                host=address[0], port=address[1], username=kw.get("username"),
                password=kw.get("password"), timeout=self.timeout)
        return conn

    def for_slot(self, slot: int) -> RespConnection:
        return self.connection(self.address(slot))

    def close(self) -> None:
        if self._single is not None:
            self._single.close()
        for conn in self._conns.values():
            conn.close()
