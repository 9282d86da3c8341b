"""``python -m tools.localcluster``: the deployment of docker-compose.yml on one
machine, in the foreground until Ctrl-C (or SIGTERM), which stops every child.
While it runs it restarts whatever dies, as a container runtime would.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

import redis

from server.store.embedded import RedisServerNotFound

from .ports import PortTaken, check_free
from .supervisor import LocalDeployment, MissingTool
from .topology import LB_PORT, REDIS_BASE_PORT, SERVER_BASE_PORT, SERVERS, Topology

HEAL_EVERY_S = 0.5


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--servers", type=int, default=SERVERS, metavar="K",
                   help=f"server processes behind HAProxy (default {SERVERS})")
    p.add_argument("--port", type=int, default=LB_PORT,
                   help=f"HAProxy's port, where players connect (default {LB_PORT}; 0: any free port)")
    p.add_argument("--redis-port", type=int, default=REDIS_BASE_PORT,
                   help=f"first Redis node's port; the six nodes take the next ones "
                        f"(default {REDIS_BASE_PORT}; 0: free ports)")
    p.add_argument("--server-port", type=int, default=SERVER_BASE_PORT,
                   help=f"first server process's port (default {SERVER_BASE_PORT}; 0: free ports)")
    p.add_argument("--data-dir", default=None,
                   help="where the nodes, configs and logs go (default: a temporary directory, "
                        "removed at exit); emptied at start: every run is a new cluster")


class _Stop(Exception):
    pass


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signal.Signals(signum).name)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.servers <= 32:
        sys.stderr.write("patience-server: --servers must be between 1 and 32\n")
        return 2
    temporary = args.data_dir is None
    root = Path(tempfile.mkdtemp(prefix="patience-cluster-") if temporary else args.data_dir)
    if not temporary:
        shutil.rmtree(root, ignore_errors=True)
    deployment = LocalDeployment(root, Topology(servers=args.servers), lb_port=args.port,
                                 redis_port=args.redis_port, server_port=args.server_port, tied=True)
    # Signals become an exception in the main thread: start-up is interrupted as
    # cleanly as the steady state, and every path goes through stop().
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise_stop)
    keep = False
    try:
        try:
            deployment.start()
        except (MissingTool, RedisServerNotFound) as exc:
            sys.stderr.write(f"patience-server: {exc}\n")
            return 2
        except PortTaken as exc:
            sys.stderr.write(f"patience-server: {exc}\n")
            return 1
        except (RuntimeError, OSError, redis.RedisError) as exc:
            # start() stopped whatever it had started; a port taken meanwhile is the usual cause
            try:
                check_free(deployment.fixed_ports)
            except PortTaken as taken:
                sys.stderr.write(f"patience-server: {taken}\n")
                return 1
            keep = True  # the logs say why: they outlive the temporary directory
            first = str(exc).splitlines()[0].rstrip(":") if str(exc) else type(exc).__name__
            sys.stderr.write(f"patience-server: the cluster did not start: {first}; "
                             f"its files and logs are kept in {root}\n")
            return 1
        pids = " ".join(str(pid) for pid in deployment.children())
        t = deployment.topology
        print(f"redis cluster: {t.primaries} primaries + {t.primaries * t.replicas_per_primary} "
              f"replicas on " + ", ".join(str(n.port) for n in deployment.redis.nodes), flush=True)
        print("servers: " + ", ".join(s.url for s in deployment.servers), flush=True)
        print(f"files and logs: {root}", flush=True)
        print(f"processes: {pids} (they stop with this command, even if it is killed)", flush=True)
        print(f"cluster ready: players connect to {deployment.url} (Ctrl-C stops everything)",
              flush=True)
        while True:
            time.sleep(HEAL_EVERY_S)
            for what in deployment.heal():
                print(f"restarted {what}", flush=True)
    except _Stop as stop:
        print(f"{stop}: stopping HAProxy, the servers, then Redis", flush=True)
    finally:
        # a second Ctrl-C must not cut the orderly stop short
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        deployment.stop()
        if temporary and not keep:
            shutil.rmtree(root, ignore_errors=True)
    print("stopped", flush=True)
    return 0
