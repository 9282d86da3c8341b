"""The bots' strength, measured: each level plays the same deals of each variant.

    python -m bench.bots run [--deals 300] [--levels 1,2,3,4,5] [--variants ...] [--jobs 2]
    python -m bench.bots report            # the markdown tables of docs/design/bots.md

A game here is exactly a seat's game without the network: the engine makes
the position, :func:`server.game.views.view` makes what the seat is sent,
the bot's :class:`~server.rooms.bots.knowledge.Knowledge` takes in that view and
nothing else, and the move it picks is played through the engine's checked
path. Finishing times are the bot's own pacing (the think times it would
wait on a server, summed), not the computer's time.

Each deal is also solved with every card known (the solver, at the budget
of seeds/winrates.md) to show what the deal allowed. Deal numbers are
``random.Random(2026).randrange(1, 10**12)``, the same list as
tools/winrates.py. Results go to a JSON-lines file, flushed after each
game; ``run`` skips what is already there, so it resumes after a stop.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from server.game import engine
from server.game.solver import solve
from server.game.variants import SPECS
from server.game.views import view
from server.rooms.bots.knowledge import Knowledge
from server.rooms.bots.pace import think_time
from server.rooms.bots.policy import LEVEL, LEVELS, Mind, decide

SEED = 2026
DEFAULT_OUT = Path("data/bot-runs.jsonl")  # git-ignored scratch; the command rebuilds it
MAX_MOVES = 3000
SOLVER_BUDGET = {"corner-stones": 3_000}  # as seeds/winrates.md; others 10,000
HEADLINE = ("four-seasons", "betsy-ross")


def deal_numbers(n: int, seed: int = SEED) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(1, 10**12) for _ in range(n)]


def play_game(variant: str, deal: int, level: int, seed: int) -> dict[str, Any]:
    """One bot game from the views alone; returns what the tables need."""
    t0 = time.process_time()
    rng = random.Random(seed)
    state = engine.new_game(variant, deal)
    know = Knowledge(variant)
    mind = Mind(LEVEL[level], know, rng)
    clock = 0.0
    moves = 0
    status = engine.IN_PROGRESS
    while moves < MAX_MOVES:
        status, legal = engine.status_and_moves(state)
        know.observe(view(state, status, legal))
        if status != engine.IN_PROGRESS:
            break
        decision = decide(mind)
        clock += think_time(level, decision, rng)
        state = engine.play(state, decision.move, status)
        moves += 1
    else:
        status = engine.status(state)
    return {"kind": "bot", "variant": variant, "deal": deal, "level": level, "won": status == engine.WON,
            "status": status, "fc": engine.foundation_cards(state), "moves": moves,
            "seconds": round(clock, 1), "nodes": mind.nodes, "cpu": round(time.process_time() - t0, 3)}


def solve_deal(variant: str, deal: int) -> dict[str, Any]:
    budget = SOLVER_BUDGET.get(variant, 10_000)
    r = solve(variant, deal, budget)
    return {"kind": "solver", "variant": variant, "deal": deal, "budget": budget,
            "result": r.result, "cpu": round(r.seconds, 3)}


def _job(job: tuple[str, str, int, int]) -> dict[str, Any]:
    kind, variant, deal, level = job
    if kind == "solver":
        return solve_deal(variant, deal)
    return play_game(variant, deal, level, seed=deal * 10 + level)


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    if path.exists():
        with path.open(encoding="utf-8") as fh:
            yield from (json.loads(line) for line in fh if line.strip())


def _key(r: dict[str, Any]) -> tuple[str, str, int, int]:
    return (r["kind"], r["variant"], r["deal"], r.get("level", 0))


def cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {_key(r) for r in read_lines(out)}
    variants = args.variants.split(",") if args.variants else [s.id for s in SPECS]
    levels = [int(x) for x in args.levels.split(",")] if args.levels else list(LEVELS)
    deals = deal_numbers(args.deals)
    todo = [("bot", v, d, lv) for v in variants for lv in levels for d in deals]
    if not args.no_solver:
        todo += [("solver", v, d, 0) for v in variants for d in deals]
    todo = [j for j in todo if j not in done]
    t0 = time.monotonic()
    with out.open("a", encoding="utf-8") as fh, ProcessPoolExecutor(args.jobs) as pool:
        for i, rec in enumerate(pool.map(_job, todo, chunksize=4), start=1):
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            if i % 50 == 0 or i == len(todo):
                sys.stderr.write(f"\r{i}/{len(todo)} {time.monotonic() - t0:6.0f}s")
                sys.stderr.flush()
    sys.stderr.write("\n")
    return 0


# -- the report -------------------------------------------------------------------
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval for k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f}% ({100 * lo:.1f}–{100 * hi:.1f}%)" if n else "—"


def _mmss(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def report(rows: list[dict[str, Any]]) -> str:
    bots = [r for r in rows if r["kind"] == "bot"]
    solver = {(r["variant"], r["deal"]): r for r in rows if r["kind"] == "solver"}
    variants = [s.id for s in SPECS if any(r["variant"] == s.id for r in bots)]
    lines = ["| variant | level | deals | won, 95% Wilson | median time of wins | median foundation "
             "cards | bot CPU per game | solver, every card known (same deals; undecided as lost) |",
             "|---|---:|---:|---|---:|---:|---:|---|"]
    order_ok = []
    for v in variants:
        last = -1.0
        ordered = True
        for lv in LEVELS:
            games = [r for r in bots if r["variant"] == v and r["level"] == lv]
            if not games:
                continue
            won = [r for r in games if r["won"]]
            deals = {r["deal"] for r in games}
            solved = [solver[(v, d)] for d in deals if (v, d) in solver]
            sw = sum(1 for s in solved if s["result"] == "won")
            median_t = _mmss(statistics.median(r["seconds"] for r in won)) if won else "—"
            fc = statistics.median(r["fc"] for r in games)
            cpu = statistics.mean(r["cpu"] for r in games)
            lines.append(f"| `{v}` | {lv} {LEVEL[lv].name} | {len(games)} | {rate(len(won), len(games))} "
                         f"| {median_t} | {fc:g} | {cpu * 1000:.0f} ms | "
                         f"{rate(sw, len(solved)) if solved else 'not run'} |")
            share = len(won) / len(games)
            ordered = ordered and share > last
            last = share
        order_ok.append(f"- `{v}`: levels {'strictly ordered' if ordered else 'NOT strictly ordered'} "
                        "by win rate")
    return "\n".join(lines + [""] + order_ok)


def cmd_report(args: argparse.Namespace) -> int:
    print(report(list(read_lines(Path(args.out)))))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="play the games (resumable)")
    run.add_argument("--deals", type=int, default=300)
    run.add_argument("--levels", default="")
    run.add_argument("--variants", default="")
    run.add_argument("--jobs", type=int, default=1)
    run.add_argument("--no-solver", action="store_true")
    run.add_argument("--out", default=str(DEFAULT_OUT))
    rep = sub.add_parser("report", help="print the tables")
    rep.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args(argv)
    return cmd_run(args) if args.cmd == "run" else cmd_report(args)


if __name__ == "__main__":
    sys.exit(main())
