"""How long a player waits to learn that a game is dead, on a loaded server.

Issue 16 asks that a player learns that the game is dead within one second of
the move that made it dead, measured under the bench's load. This bench starts
a real server (its embedded Redis) and the bench's load generators, keeps the
server busy with an open loop of players making random moves at a fixed rate,
and meanwhile plays each game of the dead-region corpus
(``seeds/deals/dead_regions_v1.json``, the largest regions found) as a solo game
through the protocol: every move but the last as fast as answers come, then
the move that makes the game dead, timed from its send to the view that says
``dead`` (the move's answer, or the view pushed when the verdict lands after
the answer: server/rooms/verdicts.py). Each of the ``--repeat`` rounds plays every
game on a server process of its own, started for that round: a server
remembers the verdicts it reached, so a second play on the same server would
time a look-up, not a search. The same positions are also decided in this
process by the engine alone (no server, no load), so the two times can be
read side by side; run it with ``PATIENCE_PURE=1`` for the pure core.

    python -m bench.dead_load [--rate 2000] [--players 1000] [--repeat 3]
                              [--phase-seconds 5] [--only V,..] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from bench.load.driver import start_server
from bench.load.generators import Generators, Phase
from server.game import engine
from server.game.moves import parse
from server.ops.corebuild import rules_core
from server.wire.protocol import PROTOCOL_VERSION, encode

CORPUS = Path(__file__).resolve().parent.parent / "seeds" / "deals" / "dead_regions_v1.json"
LIMIT_S = 1.0  # issue 16: the verdict within one second of the move
PUSH_WAIT_S = 120.0  # how long a pushed verdict is waited for before the bench gives up


def corpus(path: Path = CORPUS, digs: bool = False) -> list[dict[str, Any]]:
    """The corpus's dead regions, each played to the move that makes it dead;
    with ``digs``, also its dig entries (simplicity-pysol: dead after
    ``dead_from`` moves, proved by the dig certificate), cut at that move. A dig's
    region is the positions the window rounds alone would visit."""
    data = json.loads(path.read_text())
    games = list(data["regions"])
    if digs:
        for dig in data.get("dig", []):
            moves = dig["moves"].split()[: dig["dead_from"]]
            games.append({"variant": dig["variant"], "deal": dig["deal"],
                          "region": dig["window_region"], "moves": " ".join(moves)})
    return games


def engine_time(game: dict[str, Any]) -> float:
    """The engine's own time to decide the game's last position, caches cleared."""
    state = engine.new_game(game["variant"], game["deal"])
    moves = game["moves"].split()
    for text in moves:
        state = engine.apply(state, parse(text))
    engine.clear_caches()
    t0 = time.perf_counter()
    status, _ = engine.status_and_moves(state)
    took = time.perf_counter() - t0
    if status != engine.DEAD:
        raise RuntimeError(f"{game['variant']} {game['deal']}: the corpus game is {status}, not dead")
    return took


async def _expect(ws: ClientConnection, kinds: tuple[str, ...]) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = msgpack.unpackb(await ws.recv(), raw=False)
        if msg.get("t") in kinds:
            return msg


async def played_time(url: str, game: dict[str, Any]) -> float:
    """Seconds from sending the game's last move to the view that says dead."""
    async with connect(url, compression=None, max_size=2**20, open_timeout=30) as ws:
        await ws.send(encode({"t": "hello", "proto": PROTOCOL_VERSION, "name": "deadbench"}))
        await _expect(ws, ("welcome",))
        await ws.send(encode({"t": "solo", "variant": game["variant"], "deal": game["deal"]}))
        v = (await _expect(ws, ("view",)))["v"]
        moves = game["moves"].split()
        took = 0.0
        for seq, text in enumerate(moves, start=1):
            t0 = time.perf_counter()
            await ws.send(encode({"t": "move", "seq": seq, "move": text, "v": v}))
            msg = await _expect(ws, ("view", "error"))
            took = time.perf_counter() - t0
            if msg["t"] == "error":
                raise RuntimeError(f"{game['variant']} {game['deal']} move {seq} {text}: {msg}")
            v = msg["v"]
        status = msg["view"]["status"]
        if status == engine.IN_PROGRESS:
            # answered before its verdict (server/rooms/verdicts.py): the verdict is pushed
            async with asyncio.timeout(PUSH_WAIT_S):
                while msg["t"] != "view" or msg["seq"] is not None:
                    msg = await _expect(ws, ("view",))
            took = time.perf_counter() - t0
            status = msg["view"]["status"]
        if status != engine.DEAD:
            raise RuntimeError(f"{game['variant']} {game['deal']}: the server says {status}, not dead")
        return took


async def run(args: argparse.Namespace) -> dict[str, Any]:
    games = [g for g in corpus(digs=True) if not args.only or g["variant"] in args.only.split(",")]
    if not games:
        raise SystemExit(f"no corpus game of {args.only}")
    alone = {i: [engine_time(g) for _ in range(args.repeat)] for i, g in enumerate(games)}
    rows = [{"variant": g["variant"], "deal": g["deal"], "region": g["region"], "served_s": [],
             "engine_s": alone[i]} for i, g in enumerate(games)]
    gens = Generators(args.generators)
    await gens.start()
    phases: list[Phase] = []
    servers: list[int] = []
    try:
        # a server remembers the verdicts it reached: each repeat plays every game
        # on a server process of its own, which has never seen these positions
        for _ in range(args.repeat):
            servers.append(await _one_round(args, gens, games, rows, phases))
    finally:
        await gens.stop()
    rtts = sorted(x for ph in phases for x in ph.stats.rtts)
    busy = statistics.mean(ph.machine_busy for ph in phases)
    worst = max(max(r["served_s"]) for r in rows)
    return {"core": rules_core(), "rate": args.rate, "players": args.players,
            "load_moves": sum(ph.stats.accepted for ph in phases),
            "load_p50_ms": round(1000 * statistics.median(rtts), 2) if rtts else None,
            "load_p99_ms": round(1000 * rtts[int(0.99 * (len(rtts) - 1))], 2) if rtts else None,
            "machine_busy": round(busy, 2), "games": rows, "server_pids": servers,
            "worst_served_s": worst, "within_limit": worst <= LIMIT_S}


async def _one_round(args: argparse.Namespace, gens: Generators, games: list[dict[str, Any]],
                     rows: list[dict[str, Any]], phases: list[Phase]) -> int:
    """Start a fresh server, load it, play every game once on it, stop it; its pid."""
    with tempfile.TemporaryDirectory(prefix="patience-deadbench-") as data:
        server = start_server(data)
        try:
            await gens.run("seat", urls=[server.url], players=args.players, per_room=2,
                           variant=args.variant, seed=16)
            # the load runs in short phases for as long as the corpus takes
            done = asyncio.Event()

            async def load() -> None:
                while not done.is_set():
                    phases.append(await gens.run("open", rate=args.rate, of=args.players,
                                                 seconds=args.phase_seconds))

            loading = asyncio.create_task(load())
            await asyncio.sleep(1.0)  # let the load settle first
            for row, game in zip(rows, games, strict=True):
                row["served_s"].append(await played_time(server.url, game))
            done.set()
            await loading
            await gens.run("close")
        finally:
            server.stop()
        return server.popen.pid


def print_report(r: dict[str, Any]) -> None:
    print(f"rules core: {r['core']}; load: {r['players']} players at {r['rate']} moves/s "
          f"({r['load_moves']} moves, p50 {r['load_p50_ms']} ms, p99 {r['load_p99_ms']} ms, "
          f"machine {round(100 * r['machine_busy'])}% busy)")
    print(f"{'variant':<20} {'region':>6}  {'engine alone (ms)':>18}  {'served under load (ms)':>22}")
    for g in r["games"]:
        alone = statistics.median(g["engine_s"]) * 1000
        served = ", ".join(f"{1000 * s:.1f}" for s in g["served_s"])
        print(f"{g['variant']:<20} {g['region']:>6}  {alone:>18.1f}  {served:>22}")
    verdict = "within" if r["within_limit"] else "NOT within"
    print(f"slowest dead verdict under load: {1000 * r['worst_served_s']:.1f} ms ({verdict} "
          f"{LIMIT_S:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate", type=float, default=2000.0, help="the load's moves per second")
    p.add_argument("--players", type=int, default=1000, help="players making the load")
    p.add_argument("--variant", default="simplicity", help="the load's variant")
    p.add_argument("--generators", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3,
                   help="times each corpus game is played, each time on a fresh server")
    p.add_argument("--phase-seconds", type=float, default=5.0,
                   help="the load runs in phases this long until the corpus is played")
    p.add_argument("--only", default="", help="comma-separated variants of the corpus to play")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0 if report["within_limit"] else 1


if __name__ == "__main__":
    sys.exit(main())
