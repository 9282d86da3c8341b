"""Engine benchmark: legal-move generation + apply per second, per variant,
and the cost of view(), over random play from random deals.

Run: ``make bench`` (or ``python -m bench.engine [--seconds S]``).
Figures are also given as ratios to a baseline measured in the same run
(copying a state's pile tuple, the least any apply must do), because the
machines are noisy: compare ratios across runs, not raw rates.
"""

from __future__ import annotations

import argparse
import random
import time

from server.game.engine import RULES, new_game
from server.game.state import State
from server.game.views import view


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    args = parser.parse_args()
    base = baseline_rate(args.seconds)
    print(f"baseline (state copy): {base:,.0f}/s")
    print(f"{'variant':22} {'gen+apply/s':>12} {'x baseline':>10} {'view()/s':>10} {'view µs':>8}")
    for variant in RULES:
        rate, _ = play_rate(variant, args.seconds)
        vrate = view_rate(variant, args.seconds / 2)
        print(f"{variant:22} {rate:12,.0f} {rate / base:10.3f} {vrate:10,.0f} {1e6 / vrate:8.1f}")


if __name__ == "__main__":
    main()
