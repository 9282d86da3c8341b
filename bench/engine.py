"""Engine benchmark: legal-move generation + apply per second, per variant,
and the cost of view(), over random play from random deals.

Run: ``make bench`` (or ``python -m bench.engine [--seconds S] [--both]``;
``--both`` runs the pure core and the compiled one, each in its own process).
Figures are also given as ratios to a baseline measured in the same run
(copying a state's pile tuple, the least any apply must do), because the
machines are noisy: compare ratios across runs, not raw rates.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from server.game.engine import new_game
from server.game.state import State
from server.game.variants import RULES
from server.game.views import view

ROOT = Path(__file__).resolve().parents[1]


def baseline_rate(seconds: float) -> float:
    state = new_game("four-seasons", 1)
    n, end = 0, time.perf_counter() + seconds
    piles = state.piles
    while time.perf_counter() < end:
        for _ in range(1000):
            p = list(piles)
            p[2] = p[2] + (1,)
            State(state.variant, tuple(p), state.base)
        n += 1000
    return n / seconds


def play_rate(variant: str, seconds: float, seed: int = 1) -> tuple[float, int]:
    """Legal-move generations + applies per second on the fast path."""
    rules = RULES[variant]
    rng = random.Random(seed)
    steps, games = 0, 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        state = rules.initial(rng.randrange(1, 10**12))
        games += 1
        for _ in range(300):
            moves = rules.legal_moves(state)
            if not moves:
                break
            state = rules.apply(state, moves[rng.randrange(len(moves))])
            steps += 1
    return steps / seconds, games


def view_rate(variant: str, seconds: float) -> float:
    rules = RULES[variant]
    rng = random.Random(7)
    states = []
    for _ in range(20):
        s = rules.initial(rng.randrange(1, 10**12))
        for _ in range(rng.randrange(5, 40)):
            moves = rules.legal_moves(s)
            if not moves:
                break
            s = rules.apply(s, rng.choice(moves))
        states.append(s)
    n, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        for s in states:
            view(s)
        n += len(states)
    return n / seconds


def measure(seconds: float) -> dict[str, object]:
    """Every figure of one run, and which core ran them."""
    from server.ops.corebuild import rules_core

    base = baseline_rate(seconds)
    variants = {}
    for variant in RULES:
        rate, _ = play_rate(variant, seconds)
        variants[variant] = {"rate": rate, "view_rate": view_rate(variant, seconds / 2)}
    return {"core": rules_core(), "baseline": base, "variants": variants}


def print_one(result: dict[str, Any]) -> None:
    base = result["baseline"]
    print(f"rules core: {result['core']}")
    print(f"baseline (state copy): {base:,.0f}/s")
    print(f"{'variant':22} {'gen+apply/s':>12} {'x baseline':>10} {'view()/s':>10} {'view µs':>8}")
    for variant, row in result["variants"].items():
        rate, vrate = row["rate"], row["view_rate"]
        print(f"{variant:22} {rate:12,.0f} {rate / base:10.3f} {vrate:10,.0f} {1e6 / vrate:8.1f}")


def run_core(pure: bool, seconds: float) -> dict[str, Any]:
    """One run in a fresh interpreter on the pure core or the built one."""
    env = {**os.environ, "PATIENCE_PURE": "1" if pure else "0"}
    out = subprocess.run([sys.executable, "-m", "bench.engine", "--json", "--seconds", str(seconds)],
                         cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def print_both(pure: dict[str, Any], built: dict[str, Any]) -> None:
    print(f"engine, pure Python beside {built['core']} (each in its own process)")
    print(f"baseline (state copy): {pure['baseline']:,.0f}/s in the pure run, "
          f"{built['baseline']:,.0f}/s in the compiled one")
    print(f"{'variant':22} {'gen+apply/s':>12} {'compiled':>10} {'x':>5} "
          f"{'view µs':>8} {'compiled':>8} {'x':>5}")
    for variant, p in pure["variants"].items():
        c = built["variants"][variant]
        pv, cv = 1e6 / p["view_rate"], 1e6 / c["view_rate"]
        print(f"{variant:22} {p['rate']:12,.0f} {c['rate']:10,.0f} {c['rate'] / p['rate']:5.1f}"
              f" {pv:8.1f} {cv:8.1f} {pv / cv:5.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--both", action="store_true",
                        help="measure the pure core and the built (compiled) one, side by side")
    args = parser.parse_args()
    if args.both:
        print_both(run_core(True, args.seconds), run_core(False, args.seconds))
    elif args.json:
        print(json.dumps(measure(args.seconds)))
    else:
        print_one(measure(args.seconds))


if __name__ == "__main__":
    main()
