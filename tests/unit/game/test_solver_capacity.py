"""The cross family's capacity test (server/game/solver/capacity.py): its
run count is exact, it never calls a winnable position lost, and the solver
uses it."""

from __future__ import annotations

import itertools
import random

import pytest

from server.game.cards import card_text
from server.game.solver import LOST, UNKNOWN, WON, solve, solve_state
from server.game.solver.capacity import fewest_runs, some_runs
from server.game.solver.cross import CrossModel
from server.game.solver.cross_loss import cross_dead
from server.game.solver.reference import exhaustive
from server.game.state import State
from server.game.variants import RULES

from .test_solver import cross_position, off_foundations


def _rise(c: tuple[int, ...], wrap: bool) -> int:
    if wrap:
        rise = sum(max(0, c[r] - c[r - 1]) for r in range(13))
        return 1 if rise == 0 and any(c) else rise
    return sum(max(0, c[r] - (c[r - 1] if r else 0)) for r in range(13))


def test_fewest_runs_is_the_least_rise_over_every_choice() -> None:
    rng = random.Random("fewest-runs")
    for _ in range(600):
        low = [rng.choice([0, 0, 1, 2, 3, 4]) for _ in range(13)]
        extra = [0] * 13
        for _ in range(rng.randint(0, 3)):
            r = rng.randrange(13)
            extra[r] = rng.randint(0, 4 - low[r])
        wrap = rng.random() < 0.5
        brute = min(_rise(c, wrap) for c in itertools.product(
            *[range(lo, lo + e + 1) for lo, e in zip(low, extra, strict=True)]))
        exact = fewest_runs(low, extra, wrap)
        # a circle of equal counts is one run, which the rise calls none: still a lower bound
        assert exact == brute or (exact == 0 and brute == 1)
        assert some_runs(low, extra, wrap) >= brute


def test_runs_round_the_corner_only_where_k_goes_on_a() -> None:
    # one card of each rank 2..Q, two Kings, two Aces: with the wrap all of
    # them make one run from the bottom, A K Q .. 2 A K; without it three
    # (K Q .. 2 A, then an Ace and a King alone)
    low = [2] + [1] * 11 + [2]
    assert fewest_runs(low, [0] * 13, True) == 1
    assert fewest_runs(low, [0] * 13, False) == 3


def run_position(variant: str, rng: random.Random, left: int) -> State:
    """A last-pass position with ``left`` cards off the foundations whose piles
    are runs (as in every game played from the deal), most of the rest in
    the waste, a few in the stock."""
    spec = RULES[variant].spec
    base, height, rest = off_foundations(rng, left)
    on = CrossModel(cross_position(variant, base, [13] * 4, [])).on
    piles: list[list[int]] = [[] for _ in range(spec.tableau)]
    for p in piles:
        if not rest or rng.random() < 0.15:
            continue
        p.append(rest.pop())
        while rng.random() < 0.3:
            cand = [c for c in rest if on[c][p[-1]]]
            if not cand:
                break
            c = rng.choice(cand)
            rest.remove(c)
            p.append(c)
    n_stock = rng.choice([0, 0, 0, 2, 3])
    stock, waste = rest[:n_stock], rest[n_stock:]
    if spec.space_fill == "auto":
        for p in piles:
            if not p and (stock or waste):
                p.append(stock.pop() if stock else waste.pop())
    return cross_position(variant, base, height, [" ".join(map(card_text, p)) for p in piles],
                          " ".join(map(card_text, waste)), " ".join(map(card_text, stock[::-1])),
                          redeals=spec.passes - 1)


# (simplicity's twelve piles almost never run short: it is checked for agreement only)
@pytest.mark.compiled_pass  # about 50 s on the pure core
@pytest.mark.parametrize("variant", ["four-seasons", "vanishing-cross", "four-seasons-redeal",
                                     "czarina", "four-seasons-1883", "simplicity"])
def test_capacity_never_calls_a_winnable_position_lost(variant: str) -> None:
    """Every position the test calls lost is lost by the plain search over the
    engine's legal moves; on the others the solver (test on) and the plain
    search agree."""
    rng = random.Random(f"capacity-{variant}")
    twelve = RULES[variant].spec.tableau == 12
    fired, beyond_mobility, agreed = 0, 0, 0
    for _ in range(30 if twelve else 300):
        state = run_position(variant, rng, rng.choice([8] if twelve else [16, 18, 20, 22]))
        m = CrossModel(state)
        assert m.capacity  # every pile a run: the test applies
        if m.capacity_lost():
            ref, _ = exhaustive(state, cap=50_000)
            assert ref != WON, state
            fired += ref == LOST
            beyond_mobility += ref == LOST and not cross_dead(m)
            continue
        ref, _ = exhaustive(state, cap=20_000)
        if ref != UNKNOWN:
            assert solve_state(state, 50_000).result == ref, state
            agreed += 1
    assert agreed >= (5 if twelve else 30)
    if not twelve:
        assert fired >= 1 and beyond_mobility >= 1


def test_piles_that_are_not_runs_switch_the_test_off() -> None:
    state = cross_position("four-seasons", 1, [10, 10, 10, 10], ["5C 9D", "", "", "", ""],
                           waste="KC QC JC KD QD JD KH QH JS KS")
    assert not CrossModel(state).capacity
    assert CrossModel(cross_position("four-seasons", 1, [10, 10, 10, 10], ["9D", "", "", "", ""],
                                     waste="5C KC QC JC KD QD JD KH QH")).capacity


def test_six_runs_for_five_piles() -> None:
    """Base 4 (K goes on A). When 2H comes back to the top of the waste, the
    2C, 2S and 2D lie under it: 3C, 3S, 3H and 3D cannot go home (each waits
    for its Two) nor lie on a Two, so each starts a run; AC and AH wait too
    (clubs wait for JC, hearts for KH, both in the waste) and have no Two to
    lie on: six runs, five piles. (Found by a random search; the plain search
    confirms it.)"""
    lost = cross_position("four-seasons", 4, [7, 9, 9, 11], ["KC QC", "KS", "AC", "3S", "AS"],
                          waste="2C 2S JC KH 2D 2H 3C AH 3H 3D")
    m = CrossModel(lost)
    assert m.capacity_lost() and m.dead() and not cross_dead(m)
    assert exhaustive(lost, cap=100_000)[0] == LOST
    assert solve_state(lost, 10_000).result == LOST
    # 3C under 2H instead of over it: 3C can go home first, five runs will
    # do, the test is silent, and the position is won
    won = cross_position("four-seasons", 4, [7, 9, 9, 11], ["KC QC", "KS", "AC", "3S", "AS"],
                         waste="2C 2S JC KH 2D 3C 2H AH 3H 3D")
    assert not CrossModel(won).capacity_lost()
    assert exhaustive(won, cap=100_000)[0] == WON
    assert solve_state(won, 10_000).result == WON


def test_the_search_of_a_real_deal_uses_it() -> None:
    on = solve("four-seasons", 10, 20_000)
    off = solve("four-seasons", 10, 20_000, capacity=False)
    assert on.result == off.result == UNKNOWN
    assert on.stages[-1].dead_hits > 0 and off.stages[-1].dead_hits == 0
