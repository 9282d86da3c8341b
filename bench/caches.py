"""What each bounded table of a server process saves at each size.

    python -m bench.caches [--races 60] [--moves 60000] [--seed 1] [--json]

The tables are the view encoder's pile and move tables (server/wire/viewcodec.py)
and the dead-position search's remembered verdicts (server/game/dead/__init__.py).
A server's process works like this: ``--races`` races at once, two players each
on the same deal (a race's players reach many of the same piles), each player's
move a random legal one (a foundation move first when there is one), the moves of
all races interleaved at random, a finished race replaced by a new one of a random
variant and deal. Every move is answered as the server answers it: the position's
status (with the dead-position search when it needs one), the view's bytes from
the player's own encoder, and the check that the position before was proven
alive (``known_verdict``, the move path's alive inference).

* The pile and move tables: the keys the encoder asked for, in order, are
  recorded once and played against a least-recently-used table of each size:
  the hit rate, and the bytes of a table of that size filled with those keys
  (tracemalloc).
* The verdicts: the same games (the moves do not depend on what is remembered:
  every verdict is exact) played again under each bound: the share of asked
  positions already known and the seconds spent searching.
* The proven-dead keys: the same games again under each bound of the key store
  (the verdicts at the server's bound), and once with no store (bound 0): the
  positions the searches entered, the share of the storeless run's positions a
  bound spared them (its hit rate), the seconds spent searching, and the bytes
  the store held at the end (its sets and keys, sys.getsizeof).

The size to pick is the smallest whose hit rate is within a point of the
largest's: past it a larger table keeps memory and saves nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import random
import sys
import time
import tracemalloc
from collections import OrderedDict
from collections.abc import Callable, Generator, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.game import dead, engine
from server.game.moves import parse
from server.game.state import State
from server.game.variants import RULES
from server.wire import viewcodec

MOVE_CAP = 125  # a player still going after this many moves resigns (as in bench.soak)
TABLE_SIZES = (256, 1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536, 131_072)
VERDICT_SIZES = (64, 256, 1_024, 4_096, 16_384)
DEAD_KEY_SIZES = (0, 1_000, 5_000, 20_000, 50_000, 200_000)


@dataclass
class Seat:
    state: State
    encoder: viewcodec.ViewEncoder = field(default_factory=viewcodec.ViewEncoder)
    status: str = engine.IN_PROGRESS
    moves: list[engine.Move] = field(default_factory=list)
    played: int = 0


@dataclass
class Work:
    """What one run of the workload did."""

    moves: int = 0
    races: int = 0
    search_s: float = 0.0
    verdict_asks: int = 0
    verdict_known: int = 0
    searches: int = 0
    positions: int = 0


def new_race(rng: random.Random, variants: Sequence[str]) -> list[Seat]:
    variant = rng.choice(variants)
    deal = rng.randrange(1, 10**12)
    return [Seat(engine.new_game(variant, deal)) for _ in range(2)]


def answer(seat: Seat, work: Work, seq: int) -> None:
    """The status and the view of the seat's position, as the move path makes them."""
    state = seat.state
    status, moves, search = engine.status_before_search(state)
    if search:
        work.verdict_asks += 1
        work.verdict_known += dead.known_verdict(state) is not None
        started = time.perf_counter()
        if _search(state, moves):
            status, moves = engine.DEAD, []
        work.search_s += time.perf_counter() - started
    seat.status, seat.moves = status, moves
    seat.encoder.encode(seq, seq, state, status, moves)


def _search(state: State, moves: list[engine.Move]) -> bool:
    steps = engine.dead_search_steps(state, moves, 1e9)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return bool(done.value)


def run(races: int, total_moves: int, seed: int, variants: Sequence[str],
        work: Work | None = None) -> Work:
    """The workload of the module's docstring, ``total_moves`` moves long."""
    rng = random.Random(seed)
    work = Work() if work is None else work
    live = [new_race(rng, variants) for _ in range(races)]
    for race in live:
        for seat in race:
            answer(seat, work, 0)
    while work.moves < total_moves:
        k = rng.randrange(len(live))
        going = [s for s in live[k] if s.status == engine.IN_PROGRESS]
        if not going:
            live[k] = new_race(rng, variants)
            work.races += 1
            for seat in live[k]:
                answer(seat, work, 0)
            continue
        seat = rng.choice(going)
        before = seat.state
        if seat.played >= MOVE_CAP or not seat.moves:
            seat.state = engine.apply(before, parse("resign"))
        else:
            up = [m for m in seat.moves if "-f" in str(m)]
            seat.state = engine.apply(before, rng.choice(up or seat.moves))
        dead.known_verdict(before)  # the move path's alive inference asks about the last position
        seat.played += 1
        work.moves += 1
        answer(seat, work, seat.played)
    return work


@contextlib.contextmanager
def counting(work: Work) -> Iterator[None]:
    """Count the searches run and the positions they entered (keys seen: a key
    in the proven-dead store is never entered). Pure Python only: the search
    calls ``exhaust`` by its module name."""
    real = dead.exhaust

    def counted(*args: Any) -> Generator[None, None, tuple[bool, set[bytes]]]:
        found, seen = yield from real(*args)
        work.searches += 1
        work.positions += len(seen)
        return found, seen

    dead.exhaust = counted  # type: ignore[assignment]
    try:
        yield
    finally:
        dead.exhaust = real


def dead_key_bytes() -> int:
    """The bytes the proven-dead store holds: its sets and their keys."""
    return sum(sys.getsizeof(keys) + sum(sys.getsizeof(k) for k in keys)
               for keys in dead._DEAD_KEYS.values())


def dead_key_rows(races: int, total_moves: int, seed: int,
                  variants: Sequence[str], sizes: Sequence[int]) -> list[dict[str, Any]]:
    """The same games under each bound of the proven-dead store (0: no store)."""
    runs: list[tuple[int, Work, int, int]] = []
    for size in sorted({0, *sizes}):
        engine.clear_caches()
        dead.set_cache_limits(dead_keys=size)
        work = Work()
        with counting(work):
            played = run(races, total_moves, seed, variants, work)
        runs.append((size, played, dead.cache_sizes()[1], dead_key_bytes()))
    dead.set_cache_limits()
    engine.clear_caches()
    if runs[0][1].verdict_asks and not runs[0][1].searches:
        raise SystemExit("the dead-position searches were not counted: is the core compiled? "
                         "(run with PATIENCE_PURE=1)")
    bare = max(1, runs[0][1].positions)
    return [{"table": "dead keys", "size": size, "lookups": work.searches,
             "positions": work.positions, "hit_rate": 1 - work.positions / bare,
             "search_s": round(work.search_s, 3), "keys": keys, "bytes": held}
            for size, work, keys, held in runs]


def recorded(table: Callable[[Any], bytes], trace: list[Hashable]) -> Callable[[Any], bytes]:
    def lookup(key: Any) -> bytes:
        trace.append(key)
        return table(key)
    return lookup


def lru_hits(trace: Sequence[Hashable], size: int) -> int:
    table: OrderedDict[Hashable, None] = OrderedDict()
    hits = 0
    for key in trace:
        if key in table:
            hits += 1
            table.move_to_end(key)
        else:
            table[key] = None
            if len(table) > size:
                table.popitem(last=False)
    return hits


def table_bytes(make: Callable[[Any], bytes], trace: Sequence[Hashable], size: int) -> int:
    """The bytes a least-recently-used table of ``size`` holds after the trace's keys
    (copies of them: the recorded ones are shared with the trace)."""
    keys = list(OrderedDict.fromkeys(reversed(trace)))[:size]
    copies = [tuple(list(k)) if isinstance(k, tuple) and not hasattr(k, "_fields") else k for k in keys]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    table = functools.lru_cache(maxsize=size)(make)
    for key in copies:
        table(key)
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del table
    return used


def table_rows(name: str, make: Callable[[Any], bytes], trace: list[Hashable],
               sizes: Sequence[int]) -> list[dict[str, Any]]:
    distinct = len(set(trace))
    rows: list[dict[str, Any]] = []
    for size in sizes:
        if size > 2 * distinct and rows:
            break
        hits = lru_hits(trace, size)
        rows.append({"table": name, "size": size, "lookups": len(trace), "distinct": distinct,
                     "hit_rate": hits / max(1, len(trace)),
                     "bytes": table_bytes(make, trace, size)})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.caches", description=__doc__.split("\n")[0])
    p.add_argument("--races", type=int, default=60, help="races at once")
    p.add_argument("--moves", type=int, default=60_000, help="moves in all")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--variants", default="", help="comma-separated ids (default: every variant)")
    p.add_argument("--tables", default="piles,verdicts,dead-keys",
                   help="which to measure (piles: the encoder's pile and move tables)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    tables = set(args.tables.split(","))
    variants = [v for v in args.variants.split(",") if v] or sorted(RULES)

    piles: list[Hashable] = []
    moves: list[Hashable] = []
    saved = viewcodec.pile_table, viewcodec.move_table
    viewcodec.pile_table = recorded(viewcodec.pack_pile, piles)  # type: ignore[assignment]
    viewcodec.move_table = recorded(viewcodec.pack_move, moves)  # type: ignore[assignment]
    try:
        engine.clear_caches()
        base = run(args.races, args.moves, args.seed, variants)
    finally:
        viewcodec.pile_table, viewcodec.move_table = saved
    if not piles:
        raise SystemExit("the encoder's tables were not reached: is the module compiled with "
                         "its tables as constants? (run with PATIENCE_PURE=1)")
    rows: list[dict[str, Any]] = []
    if "piles" in tables:
        rows += table_rows("piles", viewcodec.pack_pile, piles, TABLE_SIZES)
        rows += table_rows("moves", viewcodec.pack_move, moves, TABLE_SIZES)
    if "verdicts" in tables:
        for size in VERDICT_SIZES:
            engine.clear_caches()
            dead.set_cache_limits(verdicts=size)
            work = run(args.races, args.moves, args.seed, variants)
            rows.append({"table": "verdicts", "size": size, "lookups": work.verdict_asks,
                         "hit_rate": work.verdict_known / max(1, work.verdict_asks),
                         "search_s": round(work.search_s, 3)})
        dead.set_cache_limits()
        engine.clear_caches()
    if "dead-keys" in tables:
        rows += dead_key_rows(args.races, args.moves, args.seed, variants, DEAD_KEY_SIZES)
    report = {"races_at_once": args.races, "moves": base.moves, "races_finished": base.races,
              "variants": len(variants), "rows": rows}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{args.races} races at once, {base.moves} moves, {base.races} races finished, "
          f"{len(variants)} variants")
    print(f"{'table':<10}{'size':>9}{'lookups':>10}{'hit rate':>10}{'search s':>10}{'bytes':>13}")
    for row in rows:
        search_s = f"{row['search_s']:>10.2f}" if "search_s" in row else f"{'':>10}"
        held = f"{row['bytes']:>13,}" if "bytes" in row else ""
        print(f"{row['table']:<10}{row['size']:>9,}{row['lookups']:>10,}{row['hit_rate']:>10.1%}"
              f"{search_s}{held}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
