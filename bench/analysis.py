"""How long a post-game analysis takes, per game: median and 95th percentile.

    python -m bench.analysis [--variants four-seasons,betsy-ross,corner-stones] [--deals 6]
                             [--level 3] [--budget 600000]
    python -m bench.analysis --rates     # the solver's nodes a second per variant

The games are the bots' (bench/bots.py's loop: a level's bot plays from the
views alone, every move through the engine's checked path) on the deal numbers
of bench/bots.py and tools/winrates.py, resigned at the bots' move cap. Each
record is then analysed exactly as the analysis worker does it
(:func:`server.rooms.analysis.analyse_room`, one game a room, the server's
budget unless ``--budget`` says otherwise), in this process, timed on the
wall clock. Printed per variant and over all: the median and the 95th
percentile of the time per game, the nodes searched, and how many games each
answer got (lost_at, deal_lost, winnable_at_end, won, undecided).
The figures are in docs/design/analysis.md. The default run is short (18 games,
about a minute on one idle core with the compiled core).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from bench.bots import MAX_MOVES, deal_numbers
from server.game import engine
from server.game.solver import solve
from server.game.variants import SPECS
from server.game.views import view
from server.rooms.analysis import GAME_BUDGET, analyse_room
from server.rooms.bots.knowledge import Knowledge
from server.rooms.bots.policy import LEVEL, Mind, decide

DEFAULT_VARIANTS = ("four-seasons", "betsy-ross", "corner-stones")


def bot_record(variant: str, deal: int, level: int, seed: int) -> tuple[list[str], str]:
    """A bot's game: its moves and its final status (resigned at the move cap)."""
    rng = random.Random(seed)
    state = engine.new_game(variant, deal)
    know = Knowledge(variant)
    mind = Mind(LEVEL[level], know, rng)
    moves: list[str] = []
    status = engine.IN_PROGRESS
    while len(moves) < MAX_MOVES:
        status, legal = engine.status_and_moves(state)
        know.observe(view(state, status, legal))
        if status != engine.IN_PROGRESS:
            return moves, status
        text = decide(mind).move
        state = engine.play(state, text, status)
        moves.append(text)
    return [*moves, "resign"], engine.RESIGNED


@dataclass
class Timings:
    seconds: list[float] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    results: Counter[str] = field(default_factory=Counter)

    def line(self, name: str) -> str:
        times = sorted(self.seconds)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        answers = " ".join(f"{k} {v}" for k, v in sorted(self.results.items()))
        return (f"{name:<16} games {len(times):>3}   median {statistics.median(times):6.2f} s   "
                f"p95 {p95:6.2f} s   median nodes {int(statistics.median(self.nodes)):>8,}   {answers}")


def measure(variants: list[str], deals: int, level: int, budget: int) -> dict[str, Timings]:
    out: dict[str, Timings] = {}
    for variant in variants:
        got = out[variant] = Timings()
        for deal in deal_numbers(deals):
            moves, status = bot_record(variant, deal, level, seed=deal * 10 + level)
            t0 = time.perf_counter()
            answer = analyse_room(variant, str(deal), [(1, moves, status)], budget)
            got.seconds.append(time.perf_counter() - t0)
            got.nodes.append(int(answer["nodes"]))
            got.results[answer["players"][0]["result"]] += 1
    return out


def rates(deals: tuple[int, ...] = (1, 2), budget: int = 20_000) -> list[tuple[str, float]]:
    """The solver's positions a second per variant (what ``SLOW_VARIANTS`` scales by)."""
    out = []
    for spec in SPECS:
        nodes, seconds = 0, 0.0
        for deal in deals:
            t0 = time.perf_counter()
            nodes += solve(spec.id, deal, budget).nodes
            seconds += time.perf_counter() - t0
        out.append((spec.id, nodes / seconds))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.analysis", description=__doc__.split("\n")[0])
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    p.add_argument("--deals", type=int, default=6)
    p.add_argument("--level", type=int, default=3)
    p.add_argument("--budget", type=int, default=GAME_BUDGET)
    p.add_argument("--rates", action="store_true", help="the solver's node rate per variant, then stop")
    args = p.parse_args(argv)
    if args.rates:
        for variant, rate in rates():
            print(f"{variant:<26} {rate:>9,.0f} nodes a second")
        return 0
    print(f"post-game analysis: level-{args.level} bots' games, {args.deals} deals a variant, "
          f"budget {args.budget:,} nodes a game, rules core: {engine_kind()}")
    found = measure(args.variants.split(","), args.deals, args.level, args.budget)
    every = Timings()
    for variant, got in found.items():
        print(got.line(variant))
        every.seconds += got.seconds
        every.nodes += got.nodes
        every.results += got.results
    print(every.line("all"))
    return 0


def engine_kind() -> str:
    from server.ops.corebuild import rules_core
    return rules_core()


if __name__ == "__main__":
    raise SystemExit(main())
