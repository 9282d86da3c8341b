"""Instructions per move of the rules path, counted by callgrind: a figure
that does not move with the machine's load, so it compares across commits.

The rules path is what the server runs for each accepted move: the checked
``play`` (parse, validate, apply), then ``status_and_moves`` (the dead-position
rule included) and ``view``. It runs over a fixed list of games (every
variant, fixed deals, moves picked by a seeded generator), on the compiled core
and on the pure one (``PATIENCE_PURE=1``).

Counting: callgrind counts a whole process, interpreter start and imports
included, so each core runs twice under it: once preparing the games and
playing them, once only preparing them. The difference divided by the moves
played is the cost of a move. ``PYTHONHASHSEED`` is fixed so both runs (and
every later one) take the same paths through sets and dicts.

Run: ``make bench`` (or ``python -m bench.instructions``); needs ``valgrind``
(Debian package ``valgrind``), and says so when it is missing.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEALS = (3, 24, 1_000_017)  # an LC deal, a famous one, a Mersenne Twister one
MOVES_PER_GAME = 60
HASH_SEED = "0"


def games() -> list[tuple[str, int, list[int]]]:
    """(variant, deal, the seeded choices) for every game of the fixed list."""
    from server.game.variants import RULES

    out = []
    for variant in RULES:
        for deal in DEALS:
            rng = random.Random(f"{variant}/{deal}")
            out.append((variant, deal, [rng.randrange(1 << 30) for _ in range(MOVES_PER_GAME)]))
    return out


def play_games(plan: list[tuple[str, int, list[int]]]) -> int:
    """The rules path over the fixed games; returns the number of moves played."""
    from server.game import engine
    from server.game.views import view

    played = 0
    for variant, deal, choices in plan:
        state = engine.new_game(variant, deal)
        status, moves = engine.status_and_moves(state)
        for pick in choices:
            if status != engine.IN_PROGRESS or not moves:
                break
            text = str(moves[pick % len(moves)])  # the server gets text off the wire
            state = engine.play(state, text, status)
            status, moves = engine.status_and_moves(state)
            view(state, status, moves)
            played += 1
    return played


def child(play: bool) -> None:
    """One counted process: prepare the games, maybe play them, say what ran.
    Everything is imported in both runs, so imports cancel out."""
    from server.game import engine, views  # noqa: F401
    from server.ops.corebuild import rules_core

    plan = games()
    # the collector's counters restart here, so where it runs during the games
    # does not depend on what the start-up allocated (the environment, paths)
    gc.collect()
    played = play_games(plan) if play else 0
    print(f"{played} {rules_core()}")


@dataclass
class Count:
    instructions: int
    moves: int
    core: str


def _callgrind(pure: bool, play: bool) -> Count:
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED, "PATIENCE_PURE": "1" if pure else "0"}
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
               sys.executable, "-m", "bench.instructions", "--child", "--play" if play else "--no-play"]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        moves, core = done.stdout.strip().split(" ", 1)
        return Count(total_instructions(out_file.read_text()), int(moves), core)


def total_instructions(callgrind_out: str) -> int:
    """The process's instruction count from a callgrind output file."""
    found = re.search(r"^(?:summary|totals): (\d+)", callgrind_out, re.MULTILINE)
    if found is None:
        raise ValueError("no summary or totals line in callgrind's output")
    return int(found.group(1))


def _warm(pure: bool) -> None:
    # one uncounted run first: it writes any missing bytecode cache, which
    # would otherwise be paid by whichever counted run came first
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED, "PATIENCE_PURE": "1" if pure else "0"}
    subprocess.run([sys.executable, "-m", "bench.instructions", "--child"], cwd=ROOT, env=env,
                   capture_output=True, check=True)


def per_move(pure: bool) -> tuple[float, Count]:
    _warm(pure)
    base, full = _callgrind(pure, play=False), _callgrind(pure, play=True)
    return (full.instructions - base.instructions) / full.moves, full


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--play", action=argparse.BooleanOptionalAction, default=True,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.play)
        return 0
    if shutil.which("valgrind") is None:
        print("instructions per move: skipped, valgrind is not installed (Debian package valgrind)")
        return 0
    print("rules path (play + status_and_moves + view), instructions per move, callgrind:")
    results = {}
    for label, pure in (("pure Python", True), ("compiled", False)):
        cost, count = per_move(pure)
        results[label] = cost
        note = "" if count.core == label else f"  (ran: {count.core})"
        print(f"  {label:12} {cost:12,.0f}   over {count.moves} moves{note}")
    if results["compiled"] > 0:
        print(f"  pure / compiled: {results['pure Python'] / results['compiled']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
