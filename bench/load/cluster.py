"""``python -m bench.load --cluster``: the closed- and open-loop measures against
the local cluster (server/localcluster: 3 primaries + 3 replicas, HAProxy) with
K = 1, 2, 3 server processes, beside one server on one Redis in the same run.

Besides throughput and latency it reports what sizing needs: Redis round trips
per move, and the CPU each part spends per accepted move (server processes,
primaries, replicas, HAProxy, and the load generator itself), measured as the
processes' own CPU time over the run divided by the moves accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from tools.localcluster.supervisor import LocalDeployment
from tools.localcluster.topology import Topology

from .driver import NO_ADDRESS_LIMITS, close_all, closed_loop, open_loop, pct, seat, start_server

BENCH_ENV = {"PATIENCE_COUNTDOWN_MS": "0", "PATIENCE_RATE_PER_2S": "100000",
             "PATIENCE_RACE_SECONDS": "3600", "PATIENCE_LOG_LEVEL": "WARNING", **NO_ADDRESS_LIMITS}
PARTS = ("servers", "primaries", "replicas", "haproxy", "load generator")


def _metric(port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    m = re.search(rf"^{name}(?:_total)? ([\d.e+]+)$", text, re.M)
    return float(m.group(1)) if m else 0.0


def _cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):  # a process gone since
            total += float(sum(psutil.Process(pid).cpu_times()[:2]))
    return total


class Target:
    """Where the players connect, which ports serve /metrics, and which pids make each part."""

    def __init__(self, name: str, urls: list[str], ports: list[int],
                 parts: Callable[[], dict[str, list[int]]]) -> None:
        self.name, self.urls, self.ports, self.parts = name, urls, ports, parts

    def counters(self) -> tuple[float, float, dict[str, float]]:
        moves = sum(_metric(p, "patience_moves_accepted") for p in self.ports)
        trips = sum(_metric(p, "patience_move_redis_round_trips") for p in self.ports)
        cpu = {part: _cpu(pids) for part, pids in self.parts().items()}
        cpu["load generator"] = _cpu([os.getpid()])
        return moves, trips, cpu


async def measure(target: Target, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    row: dict[str, Any] = {"name": target.name}
    players = await seat(target.urls, args.players, args.per_room, args.variant, seed)
    m0, r0, c0 = target.counters()
    closed = await closed_loop(players, args.seconds)
    m1, r1, c1 = target.counters()
    await close_all([p.ws for p in players])
    moves = max(1.0, m1 - m0)
    row["closed"] = {"per_s": closed.accepted / args.seconds, "p50_ms": pct(closed.rtts, 0.5),
                     "p99_ms": pct(closed.rtts, 0.99)}
    row["round_trips_per_move"] = (r1 - r0) / moves
    row["cpu_us_per_move"] = {part: 1e6 * (c1[part] - c0[part]) / moves for part in c1}
    players = await seat(target.urls, args.open_players, 2, args.variant, seed + 1)
    # one open-loop rate per configuration: the lowest of --rates
    opened = await open_loop(players, args.rates[0], args.seconds)
    await close_all([p.ws for p in players])
    row["open"] = {"per_s": opened.accepted / args.seconds, "p50_ms": pct(opened.rtts, 0.5),
                   "p99_ms": pct(opened.rtts, 0.99)}
    return row


async def _single(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    data = root / "single"
    server = start_server(str(data))
    try:
        pid = int((data / "redis" / "redis.pid").read_text())
        target = Target("1 server, 1 Redis (local)", [server.url], [server.port],
                        lambda: {"servers": [server.popen.pid], "primaries": [pid]})
        return await measure(target, args, 1)
    finally:
        server.stop()


async def _cluster(args: argparse.Namespace, root: Path, servers: int, durability: str) -> dict[str, Any]:
    env = dict(BENCH_ENV, PATIENCE_DURABILITY=durability)
    dep = LocalDeployment(root / f"cluster-{servers}-{durability}", Topology(servers=servers),
                          lb_port=0, redis_port=0, server_port=0, server_env=env)
    await asyncio.to_thread(dep.start)
    try:
        def parts() -> dict[str, list[int]]:
            primaries = {n.port for n in dep.redis.primaries()}
            nodes = [n for n in dep.redis.nodes if n.pid is not None]
            return {"servers": [s.proc.pid for s in dep.servers if s.proc is not None],
                    "primaries": [n.pid for n in nodes if n.port in primaries],  # type: ignore[misc]
                    "replicas": [n.pid for n in nodes if n.port not in primaries],  # type: ignore[misc]
                    "haproxy": [dep.haproxy.pid] if dep.haproxy is not None else []}

        name = f"cluster, K={servers} ({durability})"
        target = Target(name, [dep.url], [s.port for s in dep.servers], parts)
        return await measure(target, args, 10 * servers)
    finally:
        await asyncio.to_thread(dep.stop)


async def run_cluster(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"args": {k: v for k, v in vars(args).items()
                                       if isinstance(v, int | float | str | bool)},
                              "cores": os.cpu_count(), "rows": []}
    report["args"]["rate"] = args.rates[0]  # the one open-loop rate measured here
    with tempfile.TemporaryDirectory(prefix="patience-bench-cluster-") as tmp:
        root = Path(tmp)
        report["rows"].append(await _single(args, root))
        # the cluster path without replica waits first: it separates their cost
        report["rows"].append(await _cluster(args, root, args.cluster_servers[0], "local"))
        for k in args.cluster_servers:
            report["rows"].append(await _cluster(args, root, k, "replica"))
    report["sizing"] = sizing(report["rows"][-1])
    return report


def sizing(row: dict[str, Any], rates: tuple[int, ...] = (10_000, 100_000),
           busy: float = 0.5) -> dict[str, dict[str, float]]:
    """Cores each part needs for ``rates`` moves per second (one a player a
    second), from its CPU per move, kept ``busy`` at most (headroom for bursts)."""
    cpu = row["cpu_us_per_move"]
    return {str(rate): {part: rate * cpu.get(part, 0.0) / 1e6 / busy for part in PARTS[:4]}
            for rate in rates}


def print_cluster(r: dict[str, Any]) -> None:
    a = r["args"]
    print(f"{r['cores']} cores; {a['seconds']} s a measure; closed loop {a['players']} players, "
          f"open loop {a['open_players']} players at {a['rate']:.0f} moves/s in total")
    print(f"{'':34} {'closed/s':>9} {'p99 ms':>7} {'open/s':>7} {'p99 ms':>7} {'rt/move':>7}  "
          "CPU µs per move: " + ", ".join(PARTS))
    for row in r["rows"]:
        c, o, cpu = row["closed"], row["open"], row["cpu_us_per_move"]
        print(f"{row['name']:34} {c['per_s']:9.0f} {c['p99_ms']:7.2f} {o['per_s']:7.0f} "
              f"{o['p99_ms']:7.2f} {row['round_trips_per_move']:7.3f}  "
              + " / ".join(f"{cpu.get(part, 0.0):.0f}" for part in PARTS))
    print("cores needed at one move a second a player, each part at most half busy "
          f"(from the last row, {r['rows'][-1]['name']}):")
    for rate, parts in r["sizing"].items():
        print(f"  {int(rate):>7} players: "
              + ", ".join(f"{part} {cores:.1f}" for part, cores in parts.items()))
