"""A Redis Cluster on loopback ports from the embedded server binary: N
primaries, each with its replicas, formed the way ``redis-cli --cluster
create`` does it (slots split evenly, MEET, REPLICATE), plus what an operator
does to it later: restart a node that died, move a slot.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from server.store.embedded import EmbeddedRedis

from .topology import Topology

SLOTS = 16384
BUS_OFFSET = 10000  # a node's cluster bus listens on its port + 10000
PR_SET_PDEATHSIG = 1


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` for a child that must not outlive us: the kernel SIGTERMs
    it when the thread that started it dies, even by SIGKILL (Linux only; None
    elsewhere). Started from the main thread only, which lives as long as we do."""
    if not sys.platform.startswith("linux"):
        return None
    parent = os.getpid()

    def tie() -> None:
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # we died between the fork and the prctl
            os._exit(1)

    return tie


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# Ports handed out by this process: a port is only free until someone binds it,
# and a node binds its bus port (+10000) too, so none is handed out twice.
_handed_out: set[int] = set()


def free_port(bus: bool = False) -> int:
    """A free loopback port; with ``bus``, one whose cluster bus port is free too."""
    for _ in range(200):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        wanted = {port, port + BUS_OFFSET} if bus else {port}
        if wanted & _handed_out or (bus and (port + BUS_OFFSET >= 65536
                                             or not _port_free(port + BUS_OFFSET))):
            continue
        _handed_out.update(wanted)
        return port
    raise RuntimeError("no free port pair for a cluster node")


class RedisCluster:
    """The nodes in start order: primaries first, then replica i following primary i % N."""

    def __init__(self, root: Path, topology: Topology, base_port: int = 0, tied: bool = False) -> None:
        self.root = root
        self.topology = topology
        ports = ([free_port(bus=True) for _ in range(topology.nodes)] if base_port == 0
                 else [base_port + i for i in range(topology.nodes)])
        # tied: the nodes die with this process (see die_with_parent)
        preexec = die_with_parent() if tied else None
        self.nodes = [EmbeddedRedis(root / f"node-{port}", port=port, extra_config=topology.redis_config,
                                    preexec=preexec) for port in ports]

    @property
    def seeds(self) -> str:
        """``REDIS_URL`` for REDIS_CLUSTER=1: the first primaries (any one would do)."""
        return ",".join(f"redis://127.0.0.1:{n.port}" for n in self.nodes[:self.topology.primaries])

    def client(self, node: EmbeddedRedis) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=node.port, decode_responses=True,
                           socket_timeout=5, socket_connect_timeout=2)

    def _command(self, node: EmbeddedRedis, *args: object) -> Any:
        c: Any = self.client(node)  # redis-py leaves execute_command untyped
        try:
            return c.execute_command(*args)
        finally:
            c.close()

    def node_id(self, node: EmbeddedRedis) -> str:
        return str(self._command(node, "CLUSTER", "MYID"))

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        primaries = self.nodes[:self.topology.primaries]
        step = SLOTS // len(primaries)
        for i, node in enumerate(primaries):
            high = SLOTS - 1 if i == len(primaries) - 1 else (i + 1) * step - 1
            self._command(node, "CLUSTER", "ADDSLOTSRANGE", i * step, high)
        for node in self.nodes[1:]:
            self._command(self.nodes[0], "CLUSTER", "MEET", "127.0.0.1", node.port)
        self.wait_ok()
        for i, node in enumerate(self.nodes[len(primaries):]):
            primary_id = self.node_id(primaries[i % len(primaries)])
            deadline = time.monotonic() + 20
            while True:  # a node can follow only a primary it has heard of by gossip
                try:
                    self._command(node, "CLUSTER", "REPLICATE", primary_id)
                    break
                except redis.ResponseError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        self.wait_ok()
        self.wait_replicated()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM every node (each fsyncs its AOF and writes nodes.conf), side by
        side. A node busy writing its first AOF after a sync refuses a shutdown
        once and does not try again, so the signal is repeated until it exits."""
        deadline = time.monotonic() + timeout
        while (live := [n.pid for n in self.nodes if n.running and n.pid is not None]):
            sig = signal.SIGTERM if time.monotonic() < deadline else signal.SIGKILL
            for pid in live:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            time.sleep(0.2)
        for node in self.nodes:
            node.stop()  # reaps the process, removes its socket directory

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Every running node says ``cluster_state:ok`` and knows every other by
        its own id. A node can be ok on slot owners it heard of by gossip while
        its handshake with one of them is still under way; until that handshake
        ends it answers "I don't know about node" to a command naming that node
        (a slot's IMPORTING, a REPLICATE)."""
        deadline = time.monotonic() + timeout
        running = [node for node in self.nodes if node.running]
        for node in running:
            while "cluster_state:ok" not in str(self._command(node, "CLUSTER", "INFO")):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the cluster is not ok on port {node.port}")
                time.sleep(0.05)
        ids = {self.node_id(node) for node in running}
        for node in running:
            while not ids <= known_ids(str(self._command(node, "CLUSTER", "NODES"))):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the node on port {node.port} does not know every node yet")
                time.sleep(0.05)

    def view(self) -> dict[int, Seen]:
        """Port -> what a live node's ``CLUSTER NODES`` says of that node."""
        for node in self.nodes:
            if not node.running:
                continue
            with contextlib.suppress(redis.RedisError):
                return parse_nodes(str(self._command(node, "CLUSTER", "NODES")))
        return {}

    def roles(self) -> dict[int, tuple[str, frozenset[str]]]:
        """Port -> (role, flags) as a live node sees the cluster."""
        return {port: ("master" if "master" in seen.flags else "replica", seen.flags)
                for port, seen in self.view().items()}

    def primaries(self) -> list[EmbeddedRedis]:
        roles = self.roles()
        return [n for n in self.nodes if n.running and roles.get(n.port, ("", set()))[0] == "master"]

    def wait_replicated(self, timeout: float = 30.0) -> None:
        """Until every primary serving slots has a replica whose link is up."""
        deadline = time.monotonic() + timeout
        while True:
            ready = True
            for node in self.primaries():
                c = self.client(node)
                try:
                    info = c.info("replication")
                finally:
                    c.close()
                links = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)]
                if not any(link.get("state") == "online" for link in links):
                    ready = False
            if ready:
                return
            if time.monotonic() > deadline:
                raise TimeoutError("a primary is still without a replica")
            time.sleep(0.05)

    def owner(self, slot: int) -> EmbeddedRedis:
        """The node that serves ``slot`` now."""
        for node in self.nodes:
            if not node.running:
                continue
            with contextlib.suppress(redis.RedisError):
                for low, high, primary, *_ in self._command(node, "CLUSTER", "SLOTS"):
                    if int(low) <= slot <= int(high):
                        return next(n for n in self.nodes if n.port == int(primary[1]))
        raise LookupError(f"no node serves slot {slot}")

    def restart_failed(self) -> list[int]:
        """Start again the nodes that died, once it is safe: a node once the
        cluster has marked it failed (a primary back within the node timeout would
        keep its slots and no failover would happen), and a primary only once its
        slots have a new owner (its replica won the election), unless no live
        replica is left to take them over. A primary restarted earlier comes back
        serving its slots from its own AOF, which with ``appendfsync everysec`` can
        lack the last writes it acknowledged (Redis postpones the write while a
        background fsync is slow); its replica, which has them (``WAIT``), cannot
        resume the old replication stream, copies the restarted node's data in full
        and may then be elected with it: acknowledged writes lost
        (docs/operations/deployment.md). Restarted after the failover, the old
        primary rejoins as the new one's replica and takes its data from it.
        Returns the ports restarted."""
        dead = [n for n in self.nodes if not n.running]
        if not dead:
            return []
        view = self.view()
        alive = {n.port for n in self.nodes if n.running}
        restarted = []
        for node in dead:
            seen = view.get(node.port)
            if seen is None or "fail" not in seen.flags:
                continue
            if seen.slots and any(other.primary == seen.id and port in alive and "fail" not in other.flags
                                  for port, other in view.items()):
                continue  # its replica is still to take the slots over
            node.stop()  # reaps the dead process; the files stay for the restart
            node.start()
            restarted.append(node.port)
        return restarted

    def move_slot(self, slot: int, target: EmbeddedRedis, batch: int = 100,
                  between: Callable[[str], None] | None = None) -> None:
        """Reshard one slot with its keys to ``target``, as ``redis-cli --cluster
        reshard`` does (IMPORTING/MIGRATING, MIGRATE in batches, SETSLOT NODE).
        ``between`` is called with each state the slot reaches: ``"migrating"``
        (every key still on the source), ``"split"`` after each batch, and
        ``"imported"`` (every key on the target, the slot not yet handed over).
        A test holds the migration there until it has played through that state,
        however slow the machine."""
        step = between or (lambda state: None)
        source = self.owner(slot)
        if source is target:
            return
        src_id, dst_id = self.node_id(source), self.node_id(target)
        self._command(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
        self._command(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
        step("migrating")
        while names := self._command(source, "CLUSTER", "GETKEYSINSLOT", slot, batch):
            self._command(source, "MIGRATE", "127.0.0.1", target.port, "", 0, 5000,
                          "KEYS", *names)
            step("split")
        step("imported")
        for node in (target, source):
            self._command(node, "CLUSTER", "SETSLOT", slot, "NODE", dst_id)


@dataclass(frozen=True)
class Seen:
    """One line of ``CLUSTER NODES``: a node as another node sees it."""

    id: str
    flags: frozenset[str]
    primary: str  # the id of the primary it replicates, "-" for a primary
    slots: bool  # it serves slots


def parse_nodes(nodes_text: str) -> dict[int, Seen]:
    """Port -> :class:`Seen` for each line of a ``CLUSTER NODES`` answer."""
    out = {}
    for line in nodes_text.splitlines():
        fields = line.split()
        if len(fields) < 8:
            continue
        port = int(fields[1].split("@")[0].rpartition(":")[2])
        flags = frozenset(fields[2].split(",")) - {"myself"}
        out[port] = Seen(fields[0], flags, fields[3], len(fields) > 8)
    return out


def known_ids(nodes_text: str) -> set[str]:
    """The ids of ``CLUSTER NODES`` lines whose handshake is done."""
    known = set()
    for line in nodes_text.splitlines():
        fields = line.split()
        if len(fields) > 2 and "handshake" not in fields[2].split(","):
            known.add(fields[0])
    return known
