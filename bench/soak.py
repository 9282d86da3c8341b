"""A soak: races started, played and finished without pause against one server
process, its memory sampled, to show where it levels off.

    python -m bench.soak [--seconds 480] [--races 60] [--moves 125] [--json]

``--races`` races run at once, two players each (the bench's players: random
legal moves, docs/benchmarks.md); each player makes up to ``--moves`` moves
and resigns if its game is still going, then both wait for the results and
close, and a new race takes the slot. The server is a fresh process on its own
Redis (an embedded one, or ``$REDIS_URL``) with the default 15-minute race
clock, so a clock that outlived its race would show.

Every ``--sample`` seconds: the server's RSS, the races finished so far, and the
Redis's used memory. The report's figure is the second half's growth per 1,000
races: RSS at the end less RSS at the midpoint, over the races finished between
them (the first half includes the tables filling up and the allocator's first
arenas, which a plateau need not give back).

``--trace DIR``: the server runs under tracemalloc (``bench/tracemem.py``), a
snapshot is taken at the midpoint and at the end, and the types whose live
objects and the source lines whose memory grew most between them are printed
(to stderr). Traced, the server is several times slower: its figures are not
the soak's (``PATIENCE_TRACEMALLOC=0``: only the object counts, at full speed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil
import redis.asyncio as aioredis

from server.store.embedded import EmbeddedRedis
from server.wire.protocol import encode

from . import tracemem
from .load.driver import Player, close_all, start_server

RESULTS_TIMEOUT_S = 60.0


async def one_race(url: str, rng: random.Random, variant: str, moves: int) -> int:
    """One race of two players to its results; the moves accepted."""
    players = [Player(url, random.Random(rng.random())) for _ in range(2)]
    try:
        for p in players:
            await p.open()
        code = await players[0].enter(None, variant, 2)
        await players[1].enter(code, variant, 2)
        for p in players:
            await p.ready()
        await asyncio.gather(*(p.started() for p in players))

        async def play(p: Player) -> int:
            made = 0
            while made < moves and await p.move(None):
                made += 1
            if p.view.get("status") == "in_progress":
                assert p.ws is not None
                p.seq += 1
                await p.ws.send(encode({"t": "resign", "seq": p.seq}))
            async with asyncio.timeout(RESULTS_TIMEOUT_S):
                await p.expect("results")
            return made

        return sum(await asyncio.gather(*(play(p) for p in players)))
    finally:
        await close_all([p.ws for p in players if p.ws is not None])


async def soak(url: str, redis_url: str, pid: int, seconds: float, races: int, moves: int,
               variants: Sequence[str], sample_s: float, seed: int,
               trace: Path | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    done = {"races": 0, "moves": 0, "failed": 0}
    stop = time.monotonic() + seconds
    proc = psutil.Process(pid)
    store = aioredis.Redis.from_url(redis_url)
    samples: list[dict[str, Any]] = []
    started = time.monotonic()

    async def slot(k: int) -> None:
        local = random.Random(rng.random())
        while time.monotonic() < stop:
            try:
                made = await one_race(url, local, local.choice(variants), moves)
                done["moves"] += made  # added after the await: the slots share the count
                done["races"] += 1
            except Exception as exc:  # a failed race is counted and said, the soak goes on
                done["failed"] += 1
                print(f"soak: a race failed: {exc!r}", file=sys.stderr, flush=True)

    async def sample() -> None:
        while True:
            info = await store.info("memory")
            samples.append({"t": round(time.monotonic() - started, 1), "races": done["races"],
                            "moves": done["moves"], "rss": proc.memory_info().rss,
                            "redis": int(info["used_memory"]),
                            "load": round(os.getloadavg()[0], 1)})
            print(f"soak: {samples[-1]}", file=sys.stderr, flush=True)
            await asyncio.sleep(sample_s)

    async def snapshot(n: int) -> None:
        assert trace is not None
        os.kill(pid, signal.SIGUSR1)
        await asyncio.to_thread(tracemem.wait_for, trace / f"snapshot-{n}.done")

    async def midpoint() -> None:
        await asyncio.sleep(seconds / 2)
        await snapshot(1)

    sampler = asyncio.create_task(sample())
    if trace is not None:
        await asyncio.gather(midpoint(), *(slot(k) for k in range(races)))
        await snapshot(2)
    else:
        await asyncio.gather(*(slot(k) for k in range(races)))
    sampler.cancel()
    info = await store.info("memory")
    samples.append({"t": round(time.monotonic() - started, 1), "races": done["races"],
                    "moves": done["moves"], "rss": proc.memory_info().rss,
                    "redis": int(info["used_memory"]), "load": round(os.getloadavg()[0], 1)})
    await store.aclose()
    mid = min(samples, key=lambda s: abs(s["t"] - samples[-1]["t"] / 2))
    end = samples[-1]
    half_races = max(1, end["races"] - mid["races"])
    return {"seconds": end["t"], "races_at_once": races, "races": done["races"],
            "moves": done["moves"], "failed": done["failed"],
            "rss_mb": {"start": round(samples[0]["rss"] / 2**20, 1),
                       "mid": round(mid["rss"] / 2**20, 1), "end": round(end["rss"] / 2**20, 1)},
            "second_half_races": end["races"] - mid["races"],
            "second_half_mb_per_1000_races": round((end["rss"] - mid["rss"]) / 2**20
                                                   / half_races * 1000, 2),
            "redis_bytes_per_race": round((end["redis"] - samples[0]["redis"])
                                          / max(1, end["races"])),
            "load_average": [s["load"] for s in samples], "samples": samples}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=480.0)
    p.add_argument("--races", type=int, default=60, help="races at once")
    p.add_argument("--moves", type=int, default=125, help="moves per player before it resigns")
    p.add_argument("--variants", default="simplicity,four-seasons,betsy-ross",
                   help="comma-separated ids, one picked at random per race")
    p.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--trace", type=Path, default=None,
                   help="a directory for tracemalloc snapshots at the midpoint and the end")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    under = [sys.executable, "-m", "bench.tracemem", str(args.trace)] if args.trace else []
    if args.trace:
        args.trace.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="patience-soak-") as data:
        redis_url = os.environ.get("REDIS_URL")
        store = None
        if not redis_url:
            store = EmbeddedRedis(Path(data) / "redis").start()
            redis_url = store.url
        os.environ["REDIS_URL"] = redis_url
        server = start_server(data, race_seconds=900, under=under)
        try:
            report = asyncio.run(soak(server.url, redis_url, server.popen.pid, args.seconds,
                                      args.races, args.moves, variants, args.sample, args.seed,
                                      args.trace))
        finally:
            server.stop()
            if store is not None:
                store.stop()
    if args.trace:
        lines = tracemem.type_growth(args.trace / "types-1.json", args.trace / "types-2.json")
        if (args.trace / "snapshot-1.bin").exists():
            lines += tracemem.growth(args.trace / "snapshot-1.bin", args.trace / "snapshot-2.bin")
        print("\n".join(["soak: grew most from the midpoint to the end:", *lines]), file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        report = {k: v for k, v in report.items() if k != "samples"}
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
