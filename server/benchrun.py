"""The bench's phases and report (``patience-server bench``), and the bare
echo server it compares against (``python -m server.benchrun echo``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from .loadtest import (
    Proc,
    Stats,
    close_all,
    echo_closed,
    echo_conns,
    echo_open,
    metric,
    open_loop,
    pct,
    seat,
    start_echo,
    start_server,
)
from .loadtest import closed_loop as bots_closed_loop


async def _echo(reply_bytes: int) -> None:
    reply = b"v" * reply_bytes

    async def handler(ws: ServerConnection) -> None:
        async for _ in ws:
            await ws.send(reply)

    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=8192) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"echo serving ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()


def _row(name: str, s: Stats, seconds: float) -> dict[str, Any]:
    return {"name": name, "per_s": s.accepted / seconds, "p50_ms": pct(s.rtts, 0.5),
            "p99_ms": pct(s.rtts, 0.99), "n": s.accepted}


def _sum_metric(procs: list[Proc], name: str) -> float:
    return sum(metric(p, name) for p in procs)


def _cpu_s(procs: list[Proc]) -> float:
    return sum(p.own_cpu_s for p in procs)


def _median_run(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The run whose ``key`` is the median (both rows of a ratio come from one run)."""
    return sorted(runs, key=lambda r: r[key])[len(runs) // 2]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"args": {k: v for k, v in vars(args).items()
                                       if isinstance(v, int | float | str | bool)}}
    with tempfile.TemporaryDirectory(prefix="patience-bench-") as data:
        servers: list[Proc] = []
        echoes: list[Proc] = []
        try:
            # several servers share the first one's embedded Redis (or $REDIS_URL)
            for _ in range(args.servers):
                servers.append(start_server(data))
            urls = [s.url for s in servers]
            closed_runs, open_runs = [], []
            for rep in range(args.repeat):
                # closed loop: our servers, then the echoes with the same reply size
                players = await seat(urls, args.players, args.per_room, args.variant, 1 + rep)
                m0 = [metric(s, "patience_moves_accepted") for s in servers]
                r0 = _sum_metric(servers, "patience_move_redis_round_trips")
                cpu0 = _cpu_s(servers)
                ours = await bots_closed_loop(players, args.seconds)
                cpu1 = _cpu_s(servers)
                m1 = [metric(s, "patience_moves_accepted") for s in servers]
                r1 = _sum_metric(servers, "patience_move_redis_round_trips")
                await close_all([p.ws for p in players])
                if not echoes:
                    reply = int(statistics.mean(ours.reply_bytes)) if ours.reply_bytes else 600
                    report["reply_bytes"] = reply
                    for _ in range(args.servers):
                        echoes.append(start_echo(reply))
                conns = await echo_conns([e.url for e in echoes], args.players)
                ecpu0 = _cpu_s(echoes)
                base = await echo_closed(conns, args.seconds)
                ecpu1 = _cpu_s(echoes)
                await close_all(conns)
                moves = [b - a for a, b in zip(m0, m1, strict=True)]
                closed_runs.append({
                    "rows": [_row("server", ours, args.seconds), _row("echo", base, args.seconds)],
                    "ratio": ours.accepted / max(1, base.accepted),
                    "moves_by_server": moves,
                    "redis_round_trips_per_move": (r1 - r0) / max(1.0, sum(moves)),
                    # CPU per round trip is the steadiest figure on a shared machine
                    "cpu_us": {"server_per_move": 1e6 * (cpu1 - cpu0) / max(1, ours.accepted),
                               "echo_per_round_trip": 1e6 * (ecpu1 - ecpu0) / max(1, base.accepted)}})

                # open loop at a fixed total rate
                players = await seat(urls, args.open_players, 2, args.variant, 100 + rep)
                ours_open = await open_loop(players, args.rate, args.seconds)
                await close_all([p.ws for p in players])
                conns = await echo_conns([e.url for e in echoes], args.open_players)
                base_open = await echo_open(conns, args.rate, args.seconds)
                await close_all(conns)
                srv, echo = _row("server", ours_open, args.seconds), _row("echo", base_open, args.seconds)
                open_runs.append({"rows": [srv, echo], "p99_ratio": srv["p99_ms"] / echo["p99_ms"]})
            middle = _median_run(closed_runs, "ratio")
            report["closed"] = middle["rows"]
            report["closed_ratios"] = [r["ratio"] for r in closed_runs]
            report["closed_runs"] = closed_runs
            report["cpu_us"] = middle["cpu_us"]
            report["redis_round_trips_per_move"] = middle["redis_round_trips_per_move"]
            report["open"] = _median_run(open_runs, "p99_ratio")["rows"]
            report["open_p99_ratios"] = [r["p99_ratio"] for r in open_runs]
        finally:
            for proc in echoes + servers[::-1]:  # the first server owns the embedded Redis
                proc.stop()
        report["idle"] = await idle_memory(data, args)
    return report


async def idle_memory(data: str, args: argparse.Namespace) -> dict[str, Any]:
    """RSS growth of fresh processes (allocators keep what earlier phases took)
    while K players sit in lobbies and K bare connections sit on the echo."""
    server, echo = start_server(data), start_echo(600)
    try:
        warm = await seat_idle(server.url, 10, args.variant)
        warm += await echo_conns([echo.url], 10)
        await asyncio.sleep(0.5)
        rss0, erss0 = server.rss, echo.rss
        idle = await seat_idle(server.url, args.idle_players, args.variant)
        conns = await echo_conns([echo.url], args.idle_players)
        await asyncio.sleep(1.0)
        out = {"players": args.idle_players,
               "server_kb_per_player": (server.rss - rss0) / 1024 / args.idle_players,
               "echo_kb_per_conn": (echo.rss - erss0) / 1024 / args.idle_players}
        await close_all(idle + conns + warm)
        return out
    finally:
        echo.stop()
        server.stop()


async def seat_idle(url: str, n: int, variant: str) -> list[Any]:
    import random

    from .loadtest import Player

    out = []
    for i in range(0, n, 50):
        group = [Player(url, random.Random(i + k)) for k in range(min(50, n - i))]
        await asyncio.gather(*(p.open() for p in group))
        await asyncio.gather(*(p.enter(None, variant, 2) for p in group))
        out += [p.ws for p in group]
    return out


def print_report(r: dict[str, Any]) -> None:
    a = r["args"]
    print(f"{a['servers']} server process(es) against {a['servers']} echo process(es); "
          f"median of {a['repeat']} run(s) of {a['seconds']} s each")
    print(f"reply size {r['reply_bytes']} B; Redis round trips per accepted move: "
          f"{r['redis_round_trips_per_move']:.3f}")
    for phase, title, spread in (
            ("closed", f"closed loop, {a['players']} players", "closed_ratios"),
            ("open", f"open loop, {a['open_players']} players at {a['rate']}/s", "open_p99_ratios")):
        srv, echo = r[phase]
        print(f"{title} (the median run):")
        for row in (srv, echo):
            print(f"  {row['name']:6} {row['per_s']:9.0f}/s  p50 {row['p50_ms']:6.2f} ms  "
                  f"p99 {row['p99_ms']:6.2f} ms  (n={row['n']})")
        print(f"  ratio server/echo: throughput {srv['per_s'] / echo['per_s']:.2f}, "
              f"p50 x{srv['p50_ms'] / echo['p50_ms']:.2f}, p99 x{srv['p99_ms'] / echo['p99_ms']:.2f}")
        print(f"  every run's {'throughput' if phase == 'closed' else 'p99'} ratio: "
              + ", ".join(f"{x:.2f}" for x in r[spread]))
    cpu = r["cpu_us"]
    print(f"server CPU per accepted move {cpu['server_per_move']:.0f} µs, echo CPU per round trip "
          f"{cpu['echo_per_round_trip']:.0f} µs: ratio "
          f"{cpu['echo_per_round_trip'] / cpu['server_per_move']:.2f}")
    idle = r["idle"]
    print(f"idle: {idle['server_kb_per_player']:.1f} KB per connected player "
          f"(echo: {idle['echo_kb_per_conn']:.1f} KB per connection)")


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _server_counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("must be numbers separated by commas") from None
    if not counts or not all(1 <= k <= 32 for k in counts):
        raise argparse.ArgumentTypeError("each must be between 1 and 32")
    return counts


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=100, help="closed-loop players")
    p.add_argument("--per-room", type=int, default=2)
    p.add_argument("--open-players", type=int, default=1000)
    p.add_argument("--rate", type=float, default=5000.0, help="open-loop moves per second in total")
    p.add_argument("--idle-players", type=int, default=1000)
    p.add_argument("--seconds", type=float, default=8.0, help="per measurement")
    p.add_argument("--variant", default="simplicity", help="long random games keep players busy")
    p.add_argument("--repeat", type=_at_least_one, default=3,
                   help="runs of each measurement; the report gives the median run")
    p.add_argument("--servers", type=_at_least_one, default=1,
                   help="server processes sharing one Redis (and as many echo processes); "
                        "the players of a room sit on different ones")
    p.add_argument("--cluster", action="store_true",
                   help="measure the local cluster (3 primaries + 3 replicas, HAProxy) with 1, 2 "
                        "and 3 server processes beside one server on one Redis; needs haproxy")
    p.add_argument("--cluster-servers", type=_server_counts, default=(1, 2, 3), metavar="K,K,..",
                   help="with --cluster: the numbers of server processes to measure (default 1,2,3)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def main(args: argparse.Namespace) -> int:
    from .benchcluster import print_cluster, run_cluster
    from .localcluster.supervisor import MissingTool

    started = time.perf_counter()
    measure = run_cluster if args.cluster else run
    try:
        try:  # the load generator needs a fast loop too, or it measures itself
            import uvloop
            report = uvloop.run(measure(args))
        except ImportError:
            report = asyncio.run(measure(args))
    except MissingTool as exc:
        sys.stderr.write(f"patience-server: {exc}\n")
        return 2
    report["wall_s"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(report))
    elif args.cluster:
        print_cluster(report)
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["echo"]:
        size = int(sys.argv[sys.argv.index("--reply-bytes") + 1]) if "--reply-bytes" in sys.argv else 600
        try:
            import uvloop
            uvloop.run(_echo(size))
        except ImportError:
            asyncio.run(_echo(size))
