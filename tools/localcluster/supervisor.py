"""The whole deployment on one machine: the Redis Cluster, K ``patience-server
serve`` processes and HAProxy in front, all on loopback ports, each child
started by us and stopped by us (HAProxy first, so no new player lands on a
process that is going away; then the servers, which tell their players 1001
"going away"; Redis last, once nobody writes to it).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .nodes import BUS_OFFSET, RedisCluster, die_with_parent, free_port
from .ports import check_free
from .topology import LB_PORT, REDIS_BASE_PORT, SERVER_BASE_PORT, Topology, haproxy_config

SERVE_LINE = re.compile(rb"serving ws://[^:/]+:(\d+)/")


class MissingTool(RuntimeError):
    """A program the local cluster needs is not installed."""


def _popen(args: list[str], log: Path, env: dict[str, str] | None = None,
           stdout_pipe: bool = False, tied: bool = False) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if stdout_pipe else out,
            stderr=out, env=env,
            # own session: a terminal Ctrl-C reaches the supervisor only, which then
            # stops the children in order instead of all of them at once
            start_new_session=True,
            # only from the main thread: the death signal follows the thread that forked
            preexec_fn=die_with_parent() if tied else None)


def _stop(proc: subprocess.Popen[bytes] | None, timeout: float = 15.0) -> None:
    if proc is None or proc.poll() is not None:
        if proc is not None:
            proc.wait()
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def server_command() -> list[str]:
    exe = Path(sys.executable).parent / "patience-server"
    return [str(exe), "serve"] if exe.exists() else [sys.executable, "-m", "server.cli.main", "serve"]


@dataclass
class ServerProc:
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class LocalDeployment:
    """``start()``/``stop()``, or use as a context manager. Port 0 = a free port."""

    def __init__(self, root: Path, topology: Topology | None = None, *, lb_port: int = LB_PORT,
                 redis_port: int = REDIS_BASE_PORT, server_port: int = SERVER_BASE_PORT,
                 server_env: dict[str, str] | None = None, tied: bool = False) -> None:
        self.root = root
        self.topology = topology or Topology()
        self.lb_port = lb_port or free_port()
        self.redis = RedisCluster(root / "redis", self.topology, redis_port, tied=tied)
        ports = ([free_port() for _ in range(self.topology.servers)] if server_port == 0
                 else [server_port + i for i in range(self.topology.servers)])
        self.servers = [ServerProc(p, root / f"server-{p}.log") for p in ports]
        # one secret for all: the processes must agree on the daily deal
        self.secret = secrets.token_hex(32)
        self.extra_env = dict(server_env or {})
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.haproxy_cfg = root / "haproxy.cfg"
        self.tied = tied  # children die with us (see nodes.die_with_parent)
        # the ports asked for by number, which someone else may hold (port 0: found free)
        self.fixed_ports: list[tuple[int, str, str]] = []
        if lb_port:
            self.fixed_ports.append((lb_port, "HAProxy, where players connect", "--port"))
        if redis_port:
            n = len(self.redis.nodes)
            for i, node in enumerate(self.redis.nodes):
                self.fixed_ports += [(node.port, f"Redis node {i + 1} of {n}", "--redis-port"),
                                     (node.port + BUS_OFFSET, f"Redis node {i + 1} of {n}'s cluster bus",
                                      "--redis-port")]
        if server_port:
            self.fixed_ports += [(s.port, f"server {i + 1} of {len(self.servers)}", "--server-port")
                                 for i, s in enumerate(self.servers)]

    @property
    def url(self) -> str:
        """Where players connect: HAProxy."""
        return f"ws://127.0.0.1:{self.lb_port}/"

    def server_env(self, server: ServerProc) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.topology.server_env)
        env.update({"REDIS_URL": self.redis.seeds, "PATIENCE_PORT": str(server.port),
                    # reachable through HAProxy on loopback only
                    "PATIENCE_HOST": "127.0.0.1", "PATIENCE_SECRET": self.secret,
                    "PATIENCE_DATA_DIR": str(self.root / "server-data"), "PYTHONUNBUFFERED": "1"})
        env.update(self.extra_env)
        return env

    def haproxy_text(self) -> str:
        import resource

        return haproxy_config(f"127.0.0.1:{self.lb_port}",
                              [("127.0.0.1", s.port) for s in self.servers], self.topology.balancer,
                              fd_limit=resource.getrlimit(resource.RLIMIT_NOFILE)[1])

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        haproxy = shutil.which("haproxy")
        if haproxy is None:
            raise MissingTool("haproxy is not installed (Debian/Ubuntu: apt-get install haproxy)")
        check_free(self.fixed_ports)  # raises PortTaken: nothing started yet
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            self.redis.start()
            for server in self.servers:
                self.start_server(server, wait=False)
            for server in self.servers:
                self._wait_serving(server)
            self.start_haproxy()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        _stop(self.haproxy)
        self.haproxy = None
        for server in self.servers:
            _stop(server.proc)
            if server.proc is not None and server.proc.stdout is not None:
                server.proc.stdout.close()
        self.redis.stop()

    def __enter__(self) -> LocalDeployment:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def children(self) -> list[int]:
        """Pids of every process of the deployment that is running."""
        procs = [self.haproxy, *(s.proc for s in self.servers)]
        pids = [p.pid for p in procs if p is not None and p.poll() is None]
        return pids + [n.pid for n in self.redis.nodes if n.running and n.pid is not None]

    # -- servers -----------------------------------------------------------------------
    def start_server(self, server: ServerProc, wait: bool = True) -> None:
        if server.proc is not None:
            _stop(server.proc)
        server.proc = _popen(server_command(), server.log, self.server_env(server), stdout_pipe=True,
                             tied=self.tied)
        if wait:
            self._wait_serving(server)

    def _wait_serving(self, server: ServerProc, timeout: float = 30.0) -> None:
        proc = server.proc
        assert proc is not None and proc.stdout is not None
        deadline = time.monotonic() + timeout
        for line in iter(proc.stdout.readline, b""):
            if SERVE_LINE.search(line):
                return  # the pipe stays open (closed at stop): the server prints nothing more
            if time.monotonic() > deadline:
                break
        raise RuntimeError(f"server on port {server.port} did not start; see {server.log}")

    def kill_server(self, index: int) -> None:
        proc = self.servers[index].proc
        assert proc is not None
        proc.kill()
        proc.wait()

    # -- HAProxy -------------------------------------------------------------------------
    def start_haproxy(self) -> None:
        self.haproxy_cfg.write_text(self.haproxy_text())
        haproxy = shutil.which("haproxy")
        assert haproxy is not None
        # -db: stay in the foreground, a child we can wait for and signal
        self.haproxy = _popen([haproxy, "-db", "-f", str(self.haproxy_cfg)], self.root / "haproxy.log",
                              tied=self.tied)
        self._wait_balancing()

    def restart_haproxy(self) -> None:
        _stop(self.haproxy)
        self.start_haproxy()

    def _wait_balancing(self, timeout: float = 15.0) -> None:
        """Until HAProxy answers and has found at least one server healthy."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.haproxy is not None
            if self.haproxy.poll() is not None:
                raise RuntimeError(f"haproxy exited; see {self.root / 'haproxy.log'}")
            with contextlib.suppress(OSError):
                url = f"http://127.0.0.1:{self.lb_port}/healthz"
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            if time.monotonic() > deadline:
                raise TimeoutError("haproxy has no healthy server")
            time.sleep(0.05)

    # -- the supervisor's round --------------------------------------------------------
    def heal(self) -> list[str]:
        """What a process supervisor would do: restart the dead. Redis nodes wait
        until the cluster has failed them over (:meth:`RedisCluster.restart_failed`).
        Returns what was restarted, for the log."""
        done = [f"redis node on port {p}" for p in self.redis.restart_failed()]
        for server in self.servers:
            if server.proc is not None and not server.running:
                self.start_server(server)
                done.append(f"server on port {server.port}")
        if self.haproxy is not None and self.haproxy.poll() is not None:
            self.start_haproxy()
            done.append("haproxy")
        return done
