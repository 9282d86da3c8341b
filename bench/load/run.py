"""The bench's phases and report (``python -m bench.load``), and the bare
echo server it compares against (``python -m bench.load.run echo``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from server.game.variants import RULES
from server.net.sansio import SansioConnection
from server.net.sansio_server import SansioServer
from server.ops.config import TRANSPORTS
from server.store.embedded import EmbeddedRedis

from .driver import (
    CLIENTS,
    Proc,
    Stats,
    close_all,
    echo_conns,
    metric,
    pct,
    start_echo,
    start_server,
)
from .generators import Generators

P99_LIMIT = 3.0  # target 3: the server's p99 within this many times the echo's at the same rate
ENGINE_VARIANT = "four-seasons"  # target 5's engine figure


async def _echo(reply_bytes: int) -> None:
    reply = b"v" * reply_bytes

    async def handler(ws: ServerConnection) -> None:
        async for _ in ws:
            await ws.send(reply)

    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=8192) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"echo serving ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()


# The store echo's script: a move's writes in small (the position's version, the
# move appended to a capped log, the progress published), one call per message.
STORE_ECHO_SCRIPT = """
redis.call('HSET', KEYS[1], 'v', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], -500, -1)
redis.call('PUBLISH', KEYS[3], ARGV[2])
return {'ok', ARGV[1]}
"""


async def _echo_store(reply_bytes: int, redis_url: str) -> None:
    """The echo that stores each message before it answers: one script call
    through the server's own batcher and Redis connection (server/store/batch.py),
    as an accepted move is stored before its answer. The floor of any server that
    keeps the promise "an acknowledged move is stored", beside the bare echo."""
    import redis.asyncio as aioredis

    from server.store.batch import ScriptBatcher
    from server.store.resp import RespConnection

    reply = b"v" * reply_bytes
    batcher = ScriptBatcher(RespConnection.like(aioredis.Redis.from_url(redis_url)), STORE_ECHO_SCRIPT)
    connections = 0

    async def handler(ws: ServerConnection) -> None:
        nonlocal connections
        connections += 1
        keys_ = [f"echo:{connections}", f"echo:{connections}:log", "echo:channel"]
        count = 0
        async for message in ws:
            count += 1
            await batcher.call(keys_, [count, message])
            await ws.send(reply)

    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=8192) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"echo serving ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()


async def _echo_sansio(reply_bytes: int) -> None:
    """The same echo on the lean transport (server/net/sansio.py)."""
    reply = b"v" * reply_bytes

    async def handler(conn: SansioConnection) -> None:
        async for _ in conn:
            conn.send(reply)

    server = await SansioServer(handler, max_size=8192).start("127.0.0.1", 0)
    port = next(iter(server.sockets)).getsockname()[1]
    print(f"echo serving ws://127.0.0.1:{port}/", flush=True)
    await asyncio.Future()


def _row(name: str, s: Stats, seconds: float, cpu_s: float | None = None) -> dict[str, Any]:
    row = {"name": name, "per_s": s.accepted / seconds, "p50_ms": pct(s.rtts, 0.5),
           "p99_ms": pct(s.rtts, 0.99), "n": s.accepted, "unanswered": s.unanswered}
    if cpu_s is not None:  # the answering processes' CPU per answered message
        row["cpu_us"] = 1e6 * cpu_s / max(1, s.accepted)
    return row


def _sum_metric(procs: list[Proc], name: str) -> float:
    return sum(metric(p, name) for p in procs)


def _cpu_s(procs: list[Proc]) -> float:
    return sum(p.own_cpu_s for p in procs)


def _median_run(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The run whose ``key`` is the median (both rows of a ratio come from one run)."""
    return sorted(runs, key=lambda r: r[key])[len(runs) // 2]


async def _closed_run(gens: Generators, servers: list[Proc], echoes: list[Proc],
                      args: argparse.Namespace, rep: int, report: dict[str, Any]) -> dict[str, Any]:
    """One closed-loop measurement: our servers, then the echoes with the same reply size."""
    await gens.run("seat", urls=[s.url for s in servers], players=args.players,
                   per_room=args.per_room, variant=args.variant, seed=1 + rep, client=args.client)
    m0 = [metric(s, "patience_moves_accepted") for s in servers]
    r0 = _sum_metric(servers, "patience_move_redis_round_trips")
    cpu0 = _cpu_s(servers)
    ours = await gens.run("closed", seconds=args.seconds)
    cpu1 = _cpu_s(servers)
    m1 = [metric(s, "patience_moves_accepted") for s in servers]
    r1 = _sum_metric(servers, "patience_move_redis_round_trips")
    await gens.run("close")
    if not echoes:
        report["reply_bytes"] = ours.stats.reply_bytes[0] if ours.stats.reply_bytes else 600
        for _ in range(args.servers):
            echoes.append(start_echo(report["reply_bytes"], args.echo_transport))
    await gens.run("echo_conns", urls=[e.url for e in echoes], n=args.players, client=args.client)
    ecpu0 = _cpu_s(echoes)
    base = await gens.run("echo_closed", seconds=args.seconds)
    ecpu1 = _cpu_s(echoes)
    await gens.run("close")
    moves = [b - a for a, b in zip(m0, m1, strict=True)]
    server_us = 1e6 * (cpu1 - cpu0) / max(1, ours.stats.accepted)
    echo_us = 1e6 * (ecpu1 - ecpu0) / max(1, base.stats.accepted)
    return {"rows": [_row("server", ours.stats, args.seconds), _row("echo", base.stats, args.seconds)],
            "ratio": ours.stats.accepted / max(1, base.stats.accepted),
            "moves_by_server": moves,
            "redis_round_trips_per_move": (r1 - r0) / max(1.0, sum(moves)),
            # CPU per round trip is the steadiest figure on a shared machine
            "cpu_us": {"server_per_move": server_us, "echo_per_round_trip": echo_us,
                       "times_echo": server_us / echo_us if echo_us else float("nan")},
            "generator": {"server": ours.summary(), "echo": base.summary()}}


async def _open_run(gens: Generators, servers: list[Proc], echoes: list[Proc],
                    args: argparse.Namespace, rep: int, rate: float,
                    store_echoes: list[Proc] | None = None) -> dict[str, Any]:
    """One open-loop measurement at ``rate`` moves/s in total, server then echo
    (then, with ``store_echoes``, the echo that stores each message)."""
    await gens.run("seat", urls=[s.url for s in servers], players=args.open_players, per_room=2,
                   variant=args.variant, seed=100 + rep, client=args.client)
    cpu0 = _cpu_s(servers)
    ours = await gens.run("open", rate=rate, of=args.open_players, seconds=args.sweep_seconds)
    srv = _row("server", ours.stats, args.sweep_seconds, _cpu_s(servers) - cpu0)
    await gens.run("close")
    rows = [srv]
    phases = {"server": ours}
    for name, procs in (("echo", echoes), ("echo+store", store_echoes or [])):
        if not procs:
            continue
        await gens.run("echo_conns", urls=[e.url for e in procs], n=args.open_players,
                       client=args.client)
        cpu0 = _cpu_s(procs)
        phases[name] = await gens.run("echo_open", rate=rate, of=args.open_players,
                                      seconds=args.sweep_seconds)
        rows.append(_row(name, phases[name].stats, args.sweep_seconds, _cpu_s(procs) - cpu0))
        await gens.run("close")
    echo = rows[1]
    out = {"rate": rate, "rows": rows, "p99_ratio": srv["p99_ms"] / echo["p99_ms"],
           "generator": {"server": ours.summary(), "echo": phases["echo"].summary()}}
    if len(rows) > 2:  # beside the echo that stores: the floor of a server that stores first
        out["p99_ratio_store"] = srv["p99_ms"] / rows[2]["p99_ms"]
    return out


def knee(points: list[tuple[float, float]], limit: float = P99_LIMIT) -> float | None:
    """The highest rate up to which every swept rate's p99 ratio is within
    ``limit`` (None: not even the lowest); a missing ratio (nan) counts as over."""
    best = None
    for rate, ratio in sorted(points):
        if not ratio <= limit:
            break
        best = rate
    return best


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"args": {k: v for k, v in vars(args).items()
                                       if isinstance(v, int | float | str | bool)}}
    report["args"]["rates"] = args.rates
    gens = Generators(args.generators)
    await gens.start()
    with tempfile.TemporaryDirectory(prefix="patience-bench-") as data:
        servers: list[Proc] = []
        echoes: list[Proc] = []
        store_echoes: list[Proc] = []
        store: EmbeddedRedis | None = None
        try:
            # several servers share the first one's embedded Redis (or $REDIS_URL)
            for _ in range(args.servers):
                servers.append(start_server(data, args.transport))
            closed_runs: list[dict[str, Any]] = []
            sweep: dict[float, list[dict[str, Any]]] = {rate: [] for rate in args.rates}
            for rep in range(args.repeat):
                closed_runs.append(await _closed_run(gens, servers, echoes, args, rep, report))
                if args.echo_store and not store_echoes:
                    # a Redis of its own, configured as the server's embedded one
                    store = EmbeddedRedis(Path(data) / "echo-store").start()
                    store_echoes += [start_echo(report["reply_bytes"], store=store.url)
                                     for _ in range(args.servers)]
                for rate in args.rates:
                    sweep[rate].append(await _open_run(gens, servers, echoes, args, rep, rate,
                                                       store_echoes))
        finally:
            for proc in store_echoes + echoes + servers[::-1]:  # the first server owns the embedded Redis
                proc.stop()
            if store is not None:
                store.stop()
            await gens.stop()
        middle = _median_run(closed_runs, "ratio")
        report["closed"] = middle["rows"]
        report["closed_ratios"] = [r["ratio"] for r in closed_runs]
        report["closed_runs"] = closed_runs
        report["cpu_us"] = _median_run(closed_runs, "ratio")["cpu_us"]
        report["cpu_times_echo"] = sorted(r["cpu_us"]["times_echo"] for r in closed_runs)[
            len(closed_runs) // 2]
        report["generator"] = middle["generator"]
        report["redis_round_trips_per_move"] = middle["redis_round_trips_per_move"]
        report["sweep"] = [{**_median_run(runs, "p99_ratio"),
                            "p99_ratios": [r["p99_ratio"] for r in runs]}
                           for _, runs in sorted(sweep.items())]
        report["knee"] = knee([(s["rate"], s["p99_ratio"]) for s in report["sweep"]])
        if args.echo_store:
            # not a target: the same knee against the echo that stores each message
            # first (each rate's median run of that ratio), which pays the store's hop too
            report["knee_store"] = knee([(rate, _median_run(runs, "p99_ratio_store")["p99_ratio_store"])
                                         for rate, runs in sorted(sweep.items())])
        report["idle"] = await idle_memory(data, args)
    report["engine"] = {"variant": ENGINE_VARIANT,
                        "gen_apply_per_s": engine_rate(ENGINE_VARIANT, args.engine_seconds)}
    report["targets"] = targets(report)
    return report


async def idle_memory(data: str, args: argparse.Namespace) -> dict[str, Any]:
    """RSS growth of fresh processes (allocators keep what earlier phases took)
    while K players sit in lobbies and K bare connections sit on the echo."""
    server, echo = start_server(data, args.transport), start_echo(600, args.echo_transport)
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

    from .driver import Player

    out = []
    for i in range(0, n, 50):
        group = [Player(url, random.Random(i + k)) for k in range(min(50, n - i))]
        await asyncio.gather(*(p.open() for p in group))
        await asyncio.gather(*(p.enter(None, variant, 2) for p in group))
        out += [p.ws for p in group]
    return out


def engine_rate(variant: str, seconds: float, seed: int = 1) -> float:
    """Legal-move generations + applies per second of random play (the same
    loop as ``bench/engine.py``), in this process."""
    rules = RULES[variant]
    rng = random.Random(seed)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = rules.initial(rng.randrange(1, 10**12))
        for _ in range(300):
            moves = rules.legal_moves(state)
            if not moves:
                break
            state = rules.apply(state, moves[rng.randrange(len(moves))])
            steps += 1
    return steps / (time.perf_counter() - started)


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 12's targets, each with its figure from this report and whether it
    is met; a figure whose load generator was saturated is marked as such."""
    at = {s["rate"]: s["p99_ratio"] for s in r["sweep"]}
    gen = r["generator"]
    saturated = gen["server"]["generator_saturated"] or gen["echo"]["generator_saturated"]
    out = [
        {"name": "1. server CPU per accepted move / echo CPU per round trip",
         "value": r["cpu_times_echo"], "target": "<= 2.5", "met": r["cpu_times_echo"] <= 2.5},
        {"name": f"2. closed loop, {r['args']['players']} players: throughput / echo's",
         "value": r["closed_ratios"] and sorted(r["closed_ratios"])[len(r["closed_ratios"]) // 2],
         "target": ">= 0.35", "saturated": saturated},
        {"name": f"3. open loop, {r['args']['open_players']} players: highest rate with p99 <= "
                 f"{P99_LIMIT:g}x echo's", "value": r["knee"], "target": ">= 3000",
         "met": r["knee"] is not None and r["knee"] >= 3000,
         "p99_ratio_at": {str(int(k)): at.get(k) for k in (1000.0, 2000.0, 3000.0)}},
        {"name": "5. Redis round trips per accepted move", "value": r["redis_round_trips_per_move"],
         "target": "<= 1", "met": r["redis_round_trips_per_move"] <= 1},
        {"name": "5. memory per idle connected player (KB)",
         "value": r["idle"]["server_kb_per_player"], "target": "<= 30",
         "met": r["idle"]["server_kb_per_player"] <= 30},
        {"name": f"5. engine gen+apply/s ({r['engine']['variant']})",
         "value": r["engine"]["gen_apply_per_s"], "target": ">= 50000",
         "met": r["engine"]["gen_apply_per_s"] >= 50_000},
    ]
    out[1]["met"] = out[1]["value"] >= 0.35
    return out


def _share(g: dict[str, Any]) -> str:
    text = f"{g['generator_cpu_share']:.2f} of a core"
    text += " SATURATED" if g["generator_saturated"] else ""
    return text + f" (machine {100 * g.get('machine_busy', 0.0):.0f}% busy)"


def print_report(r: dict[str, Any]) -> None:
    a = r["args"]
    print(f"transport: server {a.get('transport') or 'from the environment'}, echo "
          f"{a.get('echo_transport', 'websockets')}; generators' client {a.get('client', 'websockets')}")
    print(f"{a['servers']} server process(es) against {a['servers']} echo process(es), "
          f"{a['generators']} load generator process(es); median of {a['repeat']} run(s)")
    print(f"reply size {r['reply_bytes']} B; Redis round trips per accepted move: "
          f"{r['redis_round_trips_per_move']:.3f}")
    srv, echo = r["closed"]
    print(f"closed loop, {a['players']} players, {a['seconds']} s (the median run):")
    for row in (srv, echo):
        print(f"  {row['name']:6} {row['per_s']:9.0f}/s  p50 {row['p50_ms']:6.2f} ms  "
              f"p99 {row['p99_ms']:6.2f} ms  (n={row['n']})")
    print(f"  ratio server/echo: throughput {srv['per_s'] / echo['per_s']:.2f}, "
          f"p50 x{srv['p50_ms'] / echo['p50_ms']:.2f}, p99 x{srv['p99_ms'] / echo['p99_ms']:.2f}")
    print("  every run's throughput ratio: " + ", ".join(f"{x:.2f}" for x in r["closed_ratios"]))
    print(f"  load generator (busiest process): server run {_share(r['generator']['server'])}, "
          f"echo run {_share(r['generator']['echo'])}")
    cpu = r["cpu_us"]
    print(f"CPU per move: server {cpu['server_per_move']:.0f} µs per accepted move, echo "
          f"{cpu['echo_per_round_trip']:.0f} µs per round trip: x{r['cpu_times_echo']:.2f} "
          f"(every run: " + ", ".join(f"x{x['cpu_us']['times_echo']:.2f}" for x in r["closed_runs"])
          + ")")
    print(f"open loop, {a['open_players']} players, {a['sweep_seconds']} s per rate (median run):")
    for s in r["sweep"]:
        srv, echo = s["rows"][:2]
        gen = s["generator"]
        print(f"  {s['rate']:7.0f}/s  server p99 {srv['p99_ms']:8.2f} ms, echo {echo['p99_ms']:6.2f} ms:"
              f" x{s['p99_ratio']:.1f} (runs " + ", ".join(f"{x:.1f}" for x in s["p99_ratios"])
              + f"); generator {_share(gen['server'])} / {_share(gen['echo'])}")
        rows = s["rows"]
        print("           p50 " + ", ".join(f"{row['name']} {row['p50_ms']:.2f} ms" for row in rows)
              + "; CPU per answer " + ", ".join(f"{row['name']} {row.get('cpu_us', 0):.0f} µs"
                                                 for row in rows))
        if len(rows) > 2:
            print(f"           echo+store p99 {rows[2]['p99_ms']:.2f} ms: "
                  f"x{rows[2]['p99_ms'] / echo['p99_ms']:.1f} the echo's; the server's "
                  f"x{srv['p99_ms'] / rows[2]['p99_ms']:.1f} the echo+store's")
    lost = sum(row.get("unanswered", 0) for s in r["sweep"] for row in s["rows"])
    lost += sum(row.get("unanswered", 0) for run in r["closed_runs"] for row in run["rows"])
    if lost:
        print(f"  WARNING: {lost} move(s) of the median runs never answered within "
              "15 s (those players stopped)")
    knee_ = r["knee"]
    print(f"  knee (p99 within {P99_LIMIT:g}x the echo's): "
          + (f"{knee_:.0f} moves/s" if knee_ is not None else "below the lowest rate"))
    if "knee_store" in r:
        knee_ = r["knee_store"]
        print("  the same knee against the echo+store's p99 (not a target): "
              + (f"{knee_:.0f} moves/s" if knee_ is not None else "below the lowest rate"))
    idle = r["idle"]
    print(f"idle: {idle['server_kb_per_player']:.1f} KB per connected player "
          f"(echo: {idle['echo_kb_per_conn']:.1f} KB per connection)")
    print(f"engine: {r['engine']['gen_apply_per_s']:,.0f} gen+apply/s ({r['engine']['variant']})")
    print("targets:")
    for t in r["targets"]:
        value = t["value"]
        shown = ("-" if value is None else f"{value:,.0f}" if value >= 100
                 else f"{value:.2f}" if isinstance(value, float) else str(value))
        note = " (load generator saturated)" if t.get("saturated") else ""
        print(f"  {'met    ' if t['met'] else 'NOT met'} {t['name']}: {shown} (target {t['target']})"
              + note)


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


def _rates(text: str) -> list[float]:
    try:
        rates = sorted({float(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError("a comma-separated list of moves per second") from None
    if not rates or rates[0] <= 0:
        raise argparse.ArgumentTypeError("rates must be positive")
    return rates


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=100, help="closed-loop players")
    p.add_argument("--per-room", type=int, default=2)
    p.add_argument("--open-players", type=int, default=1000)
    p.add_argument("--rates", type=_rates, default=_rates("1000,1500,2000,2500,3000,4000"),
                   help="open-loop total moves per second to sweep (comma-separated)")
    p.add_argument("--idle-players", type=int, default=1000)
    p.add_argument("--seconds", type=float, default=8.0, help="per closed-loop measurement")
    p.add_argument("--sweep-seconds", type=float, default=5.0, help="per open-loop rate")
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


    p.add_argument("--transport", choices=TRANSPORTS, default=None,
                   help="the server's websocket transport (PATIENCE_TRANSPORT; default: the "
                        "environment's, else sansio)")
    p.add_argument("--echo-transport", choices=TRANSPORTS, default="websockets",
                   help="the echo compared against: websockets' standard asyncio server (the "
                        "issue's baseline) or the lean sans-I/O transport")
    p.add_argument("--client", choices=CLIENTS, default="websockets",
                   help="the generators' websocket client, the same for the server and the echo: "
                        "the library's asyncio client, or the lean sans-I/O one that times each "
                        "answer as its bytes are read (bench/load/leanclient.py)")
    p.add_argument("--echo-store", action="store_true",
                   help="also sweep the echo that stores each message in Redis (one script call, "
                        "through the server's own batcher) before its answer: the floor of a "
                        "server that stores every move before acknowledging it")
    p.add_argument("--generators", type=_at_least_one, default=2,
                   help="load generator processes (the same ones drive server and echo)")
    p.add_argument("--engine-seconds", type=float, default=1.0)
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def main(args: argparse.Namespace) -> int:
    from tools.localcluster.supervisor import MissingTool

    from .cluster import print_cluster, run_cluster

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
        lean = "--transport" in sys.argv and sys.argv[sys.argv.index("--transport") + 1] == "sansio"
        store = sys.argv[sys.argv.index("--store") + 1] if "--store" in sys.argv else None
        echo = _echo_store(size, store) if store else _echo_sansio(size) if lean else _echo(size)
        try:
            import uvloop
            uvloop.run(echo)
        except ImportError:
            asyncio.run(echo)
