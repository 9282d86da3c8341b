"""The deployment's shape, said once: what ``python -m tools.localcluster`` starts on
one machine and what ``docker-compose.yml`` with ``deploy/haproxy.cfg``
describes for containers. Tests check both against this module
(tests/unit/tools/test_topology.py), so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PRIMARIES = 3
REPLICAS_PER_PRIMARY = 1
SERVERS = 3  # K, the server processes behind HAProxy
LB_PORT = 8765  # where players connect
REDIS_BASE_PORT = 7000  # nodes on 7000.., their cluster bus on 17000..
SERVER_BASE_PORT = 8801  # server processes on 8801.. (loopback)

# Every node of the Redis Cluster runs with these (on top of the launcher's own:
# AOF on, no RDB snapshots). A small node timeout makes a dead primary's replica
# take over within a couple of seconds; a validity factor of 0 lets any replica
# take over however long it was cut off (the test cluster's replicas never lag far).
REDIS_NODE_CONFIG: dict[str, str] = {
    "cluster-enabled": "yes",
    "cluster-node-timeout": "1000",
    "cluster-replica-validity-factor": "0",
    # a shard whose primary is gone must not stop the other shards' rooms
    "cluster-require-full-coverage": "no",
    # a replica (re)joining gets its full copy at once, not after 5 s spent
    # waiting for other replicas to share the transfer with
    "repl-diskless-sync-delay": "0",
    "appendonly": "yes",
    "appendfsync": "everysec",
}

# What every server process gets besides its port and the seeds in REDIS_URL:
# cluster routing, and moves acknowledged only once a replica has them.
SERVER_ENV: dict[str, str] = {
    "REDIS_CLUSTER": "1",
    "PATIENCE_DURABILITY": "replica",
    # only the load balancer reaches the servers (loopback here, the private network
    # under compose): believe the client address it forwards for the per-address limits
    "PATIENCE_TRUSTED_PROXIES": "127.0.0.0/8,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16",
}


@dataclass(frozen=True)
class Balancer:
    """HAProxy's settings, the same in the local cluster and the compose file."""

    maxconn: int = 20000
    # Websockets: after the upgrade a connection is a tunnel; players idle between
    # moves (the server pings every 20 s), so the tunnel timeout is the one that
    # bounds a quiet connection; the client/server timeouts bound the handshake.
    timeouts: tuple[tuple[str, str], ...] = (
        ("connect", "5s"), ("client", "60s"), ("server", "60s"), ("tunnel", "1h"),
        ("client-fin", "5s"))
    balance: str = "leastconn"  # connections are long-lived: spread their count
    health: str = "GET /healthz"  # 503 while a process cannot reach Redis
    # a dead process is out within 2 s; a connection refused meanwhile is retried
    # on another process (redispatch) rather than failing the player's reconnect
    check: str = "check inter 1s fall 2 rise 1"
    retries: int = 3

    def global_lines(self, fd_limit: int | None = None) -> list[str]:
        """HAProxy needs two descriptors a connection and refuses to start when
        the machine's limit is below that: on one machine the limit caps maxconn."""
        maxconn = self.maxconn if fd_limit is None else min(self.maxconn, (fd_limit - 100) // 2)
        return [f"maxconn {maxconn}"]

    def defaults_lines(self) -> list[str]:
        return (["mode http", "option redispatch", f"retries {self.retries}"]
                + [f"timeout {name} {value}" for name, value in self.timeouts])

    def frontend_lines(self, bind: str) -> list[str]:
        return [f"bind {bind}", "default_backend servers"]

    def backend_lines(self) -> list[str]:
        return [f"balance {self.balance}", "option forwardfor", f"option httpchk {self.health}",
                "http-check expect status 200"]


BALANCER = Balancer()


@dataclass(frozen=True)
class Topology:
    primaries: int = PRIMARIES
    replicas_per_primary: int = REPLICAS_PER_PRIMARY
    servers: int = SERVERS
    redis_config: dict[str, str] = field(default_factory=lambda: dict(REDIS_NODE_CONFIG))
    server_env: dict[str, str] = field(default_factory=lambda: dict(SERVER_ENV))
    balancer: Balancer = BALANCER

    @property
    def nodes(self) -> int:
        return self.primaries * (1 + self.replicas_per_primary)


def haproxy_config(bind: str, servers: list[tuple[str, int]], balancer: Balancer = BALANCER,
                   fd_limit: int | None = None) -> str:
    """The configuration the local cluster runs: the shared settings, one
    ``server`` line per local process."""
    out = ["# Written by patience-server cluster at every start; the settings come from",
           "# tools/localcluster/topology.py, like deploy/haproxy.cfg's.", "global"]
    out += [f"    {line}" for line in balancer.global_lines(fd_limit)]
    out += ["", "defaults"] + [f"    {line}" for line in balancer.defaults_lines()]
    out += ["", "frontend players"] + [f"    {line}" for line in balancer.frontend_lines(bind)]
    out += ["", "backend servers"] + [f"    {line}" for line in balancer.backend_lines()]
    out += [f"    server s{i + 1} {host}:{port} {balancer.check}" for i, (host, port) in enumerate(servers)]
    return "\n".join(out) + "\n"


def parse_haproxy(text: str) -> dict[str, list[str]]:
    """Sections of an HAProxy configuration (``"backend servers"`` -> its lines),
    comments and blank lines dropped, whitespace normalised."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        words = " ".join(line.split())
        if not raw[0].isspace():
            current = sections.setdefault(words, [])
        elif current is not None:
            current.append(words)
    return sections
