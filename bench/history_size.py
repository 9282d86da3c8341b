"""The history's size in Redis: bytes per 1,000 players per month.

    python -m bench.history_size [--players 1000] [--games 60] [--moves 120] [--seed 1]

Fills a fresh Redis (the embedded one, in a temporary directory; or
``--redis URL``, which it flushes) with a month of finished games of claimed
names, written exactly as the server writes them (server/store/history.py's
script, one entry per claimed player per finished room), and reads Redis's own
accounting of it: ``used_memory`` before and after, and ``MEMORY USAGE`` of
each history key. Each player plays ``--games`` games in the month, two-player
races of Four Seasons of about ``--moves`` moves each (a game played by a
simple player with the engine, its moves timed a second or two apart); a third
of them rated (kept for good), the rest unranked. The figure and the command
are in docs/benchmarks.md; the retention is docs/design/history.md's.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from server.game import engine
from server.race.history import GameEntry
from server.store.embedded import EmbeddedRedis
from server.store.history import HistoryStore, history_keys

MONTH_MS = 30 * 86_400_000
START_MS = 1_765_000_000_000
SAMPLES = 64  # distinct games played with the engine; each player's games are drawn from them


def played(rng: random.Random, moves: int) -> tuple[str, tuple[tuple[int, str], ...], int, str]:
    """One game of Four Seasons on a random deal: foundation moves first, else any
    legal move, up to ``moves`` moves; its deal, timed log, foundation cards, status."""
    deal = str(rng.randrange(1, 10**9))
    state = engine.new_game("four-seasons", deal)
    log: list[tuple[int, str]] = []
    at = 0
    for _ in range(moves):
        legal = [m for m in engine.legal_moves(state) if m.kind != "resign"]
        if not legal:
            break
        up = [m for m in legal if str(m).endswith(("-f1", "-f2", "-f3", "-f4"))]
        move = rng.choice(up or legal)
        state = engine.apply(state, move)
        at += rng.randint(600, 2_500)
        log.append((at, str(move)))
    status = engine.status(state)
    shown = status if status != engine.IN_PROGRESS else "timed_out"
    return deal, tuple(log), engine.foundation_cards(state), shown


async def fill(redis: Redis, players: int, games: int, moves: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    samples = [played(rng, moves) for _ in range(SAMPLES)]
    names = [f"player{i:06}" for i in range(players)]
    pipe = redis.pipeline(transaction=False)
    for i, name in enumerate(names):
        pipe.hset(history_keys(name)[0], mapping={"name": name, "key": "k" * 64, "created": START_MS + i})
    await pipe.execute()
    await redis.execute_command("MEMORY", "PURGE")  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
    before = int((await redis.info("memory"))["used_memory"])

    async def guard(coro: Any) -> Any:
        return await coro

    store = HistoryStore(redis, guard)
    written = 0
    # races of two: each one's two entries, its players drawn at random
    for _ in range(players * games // 2):
        at = START_MS + rng.randrange(MONTH_MS)
        code = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
        deal, log, fc, status = rng.choice(samples)
        ranked = rng.random() < 1 / 3
        pair = rng.sample(names, 2)
        for seat, name in enumerate(pair, start=1):
            entry = GameEntry(code, at, "four-seasons", deal, "race", rng.random() < 0.3, None, None, seat,
                              name, tuple(pair), seat, False, status, fc, 52, log[-1][0] if log else None,
                              len(log), ranked, (10.0, 11.5) if ranked else None, log)
            await store.record(name, entry, START_MS + MONTH_MS)
            written += 1
    await redis.execute_command("MEMORY", "PURGE")  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
    after = int((await redis.info("memory"))["used_memory"])
    keyed = 0
    for name in names:
        for key in history_keys(name)[1:]:
            keyed += int(await redis.memory_usage(key, samples=0) or 0)
    return {"players": players, "games": written, "used_memory_bytes": after - before,
            "key_bytes": keyed, "moves": sum(len(s[1]) for s in samples) / len(samples)}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    if args.redis:
        redis = Redis.from_url(args.redis)
        await redis.flushdb()
        try:
            return await fill(redis, args.players, args.games, args.moves, args.seed)
        finally:
            await redis.aclose()
    with tempfile.TemporaryDirectory(prefix="patience-history-") as data:
        server = EmbeddedRedis(Path(data)).start()
        try:
            redis = Redis.from_url(server.url)
            try:
                return await fill(redis, args.players, args.games, args.moves, args.seed)
            finally:
                await redis.aclose()
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--games", type=int, default=60, help="games per player in the month")
    parser.add_argument("--moves", type=int, default=120, help="moves per game, at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--redis", default="",
                        help="a Redis to fill (flushed first); default: the embedded one")
    out = asyncio.run(main_async(parser.parse_args(argv)))
    per = 1000 / out["players"]
    print(f"{out['games']} games of {out['players']} players ({out['moves']:.0f} moves a game on average): "
          f"{out['key_bytes'] * per / 1e6:.1f} MB of history keys per 1,000 players per month "
          f"({out['key_bytes'] / max(out['games'], 1):.0f} bytes a game; used_memory grew "
          f"{out['used_memory_bytes'] * per / 1e6:.1f} MB per 1,000 players)")


if __name__ == "__main__":
    main()
