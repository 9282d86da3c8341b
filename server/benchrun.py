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


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"args": {k: v for k, v in vars(args).items()
                                       if isinstance(v, int | float | str | bool)}}
    with tempfile.TemporaryDirectory(prefix="patience-bench-") as data:
        server = start_server(data)
        try:
            # closed loop: our server, then the echo with the same reply size
            players = await seat(server.url, args.players, args.per_room, args.variant, 1)
            m0, r0 = metric(server, "patience_moves_accepted"), metric(server,
                                                                        "patience_move_redis_round_trips")
            cpu0 = server.own_cpu_s
            ours = await bots_closed_loop(players, args.seconds)
            cpu1 = server.own_cpu_s
            m1, r1 = metric(server, "patience_moves_accepted"), metric(server,
                                                                        "patience_move_redis_round_trips")
            await close_all([p.ws for p in players])
            reply = int(statistics.mean(ours.reply_bytes)) if ours.reply_bytes else 600
            report["reply_bytes"] = reply
            report["redis_round_trips_per_move"] = (r1 - r0) / max(1.0, m1 - m0)
            echo = start_echo(reply)
            try:
                conns = await echo_conns(echo.url, args.players)
                ecpu0 = echo.own_cpu_s
                base = await echo_closed(conns, args.seconds)
                ecpu1 = echo.own_cpu_s
                await close_all(conns)
                # CPU per round trip is the steadiest figure on a shared machine
                report["cpu_us"] = {"server_per_move": 1e6 * (cpu1 - cpu0) / max(1, ours.accepted),
                                    "echo_per_round_trip": 1e6 * (ecpu1 - ecpu0) / max(1, base.accepted)}
                report["closed"] = [_row("server", ours, args.seconds), _row("echo", base, args.seconds)]

                # open loop at a fixed total rate
                players = await seat(server.url, args.open_players, 2, args.variant, 2)
                ours_open = await open_loop(players, args.rate, args.seconds)
                await close_all([p.ws for p in players])
                conns = await echo_conns(echo.url, args.open_players)
                base_open = await echo_open(conns, args.rate, args.seconds)
                await close_all(conns)
                report["open"] = [_row("server", ours_open, args.seconds),
                                  _row("echo", base_open, args.seconds)]

            finally:
                echo.stop()
        finally:
            server.stop()
        report["idle"] = await idle_memory(data, args)
    return report


async def idle_memory(data: str, args: argparse.Namespace) -> dict[str, Any]:
    """RSS growth of fresh processes (allocators keep what earlier phases took)
    while K players sit in lobbies and K bare connections sit on the echo."""
    server, echo = start_server(data), start_echo(600)
    try:
        warm = await seat_idle(server.url, 10, args.variant)
        warm += await echo_conns(echo.url, 10)
        await asyncio.sleep(0.5)
        rss0, erss0 = server.rss, echo.rss
        idle = await seat_idle(server.url, args.idle_players, args.variant)
        conns = await echo_conns(echo.url, args.idle_players)
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
    print(f"reply size {r['reply_bytes']} B; Redis round trips per accepted move: "
          f"{r['redis_round_trips_per_move']:.3f}")
    for phase, title in (("closed", f"closed loop, {r['args']['players']} players"),
                         ("open", f"open loop, {r['args']['open_players']} players at "
                                  f"{r['args']['rate']}/s")):
        srv, echo = r[phase]
        print(f"{title}:")
        for row in (srv, echo):
            print(f"  {row['name']:6} {row['per_s']:9.0f}/s  p50 {row['p50_ms']:6.2f} ms  "
                  f"p99 {row['p99_ms']:6.2f} ms  (n={row['n']})")
        print(f"  ratio server/echo: throughput {srv['per_s'] / echo['per_s']:.2f}, "
              f"p50 x{srv['p50_ms'] / echo['p50_ms']:.2f}, p99 x{srv['p99_ms'] / echo['p99_ms']:.2f}")
    cpu = r["cpu_us"]
    print(f"server CPU per accepted move {cpu['server_per_move']:.0f} µs, echo CPU per round trip "
          f"{cpu['echo_per_round_trip']:.0f} µs: ratio "
          f"{cpu['echo_per_round_trip'] / cpu['server_per_move']:.2f}")
    idle = r["idle"]
    print(f"idle: {idle['server_kb_per_player']:.1f} KB per connected player "
          f"(echo: {idle['echo_kb_per_conn']:.1f} KB per connection)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=100, help="closed-loop players")
    p.add_argument("--per-room", type=int, default=2)
    p.add_argument("--open-players", type=int, default=1000)
    p.add_argument("--rate", type=float, default=5000.0, help="open-loop moves per second in total")
    p.add_argument("--idle-players", type=int, default=1000)
    p.add_argument("--seconds", type=float, default=8.0, help="per measurement")
    p.add_argument("--variant", default="simplicity", help="long random games keep players busy")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def main(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:  # the load generator needs a fast loop too, or it measures itself
        import uvloop
        report = uvloop.run(run(args))
    except ImportError:
        report = asyncio.run(run(args))
    report["wall_s"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(report))
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
