"""The cross family's abstract game (server/game/solver/stockbound.py): its
run count, that it never calls a winnable position lost, where it is switched
on, and that the solver uses it."""

from __future__ import annotations

import random

import pytest

from server.game.engine import new_game
from server.game.solver import LOST, UNKNOWN, WON, solve, solve_state
from server.game.solver.capacity import fewest_runs
from server.game.solver.cross import CrossModel
from server.game.solver.cross_loss import cross_dead
from server.game.solver.reference import exhaustive
from server.game.solver.stockbound import (
    FAILS_IN_A_ROW,
    LOST_T,
    UNKNOWN_T,
    StockBound,
    runs_needed,
)
from server.game.variants import RULES

from .test_solver import cross_position
from .test_solver_capacity import run_position


def _decide(m: CrossModel) -> int:
    assert m.bound is not None
    return m.bound.decide(m.removed, len(m.stock), m.fcount)


def test_runs_needed_is_the_rise_of_fixed_counts() -> None:
    rng = random.Random("runs-needed")
    for _ in range(500):
        counts = [rng.choice([0, 0, 1, 2, 3, 4]) for _ in range(13)]
        wrap = rng.random() < 0.5
        assert runs_needed(counts, wrap) == fewest_runs(counts, [0] * 13, wrap)
    # A..4 twice and 9..J once: two runs start at the Ace, one at the Nine
    assert runs_needed([2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0, 0], False) == 3
    # round the corner, Q K A 2 is one run where K goes on A, two where it does not
    assert runs_needed([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1], True) == 1
    assert runs_needed([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1], False) == 2


@pytest.mark.parametrize("variant", ["four-seasons", "vanishing-cross", "four-seasons-redeal",
                                     "simplicity"])
def test_the_abstract_game_never_calls_a_winnable_position_lost(variant: str) -> None:
    """Every position whose triple the abstract game calls lost is lost by the
    plain search over the engine's legal moves; on the others the solver
    (abstract game on) and the plain search agree."""
    rng = random.Random(f"stockbound-{variant}")
    twelve = RULES[variant].spec.tableau == 12
    fired, agreed, opened = 0, 0, 0
    for _ in range(20 if twelve else 150):
        state = run_position(variant, rng, rng.choice([8] if twelve else [16, 18, 20, 22]))
        m = CrossModel(state, abstract=True)
        answer = _decide(m)
        assert answer != UNKNOWN_T  # these triples are small
        if answer == LOST_T:
            ref, _ = exhaustive(state, cap=50_000)
            assert ref != WON, state
            fired += ref == LOST
            continue
        opened += 1
        ref, _ = exhaustive(state, cap=20_000)
        if ref != UNKNOWN:
            assert solve_state(state, 50_000, abstract=True).result == ref, state
            agreed += 1
    assert agreed >= (5 if twelve else 20) and opened >= 5
    if not twelve:
        # (a triple lost that the capacity test passes is rarer: see the next test)
        assert fired >= 1


def test_a_lost_triple_the_capacity_test_misses() -> None:
    """Base 7, stock empty, a space in the cross: the capacity test and the
    mobility test are both silent (a space lets every card move), the
    abstract game finds no order in which the waste empties, and the plain
    search agrees (1,212 positions). Found by a random search."""
    lost = cross_position("four-seasons", 7, [11, 10, 1, 10], ["6H", "TH 9H", "", "4S", "6D"],
                          waste="2H 5S 4D 5H KH 5D 3H 8H 4H QH JH 6C 5C 6S AH")
    m = CrossModel(lost, abstract=True)
    assert not m.capacity_lost() and not cross_dead(m)
    assert _decide(m) == LOST_T and m.dead()
    assert exhaustive(lost, cap=100_000)[0] == LOST
    assert solve_state(lost, 10_000, abstract=True).result == LOST
    assert solve_state(lost, 10_000).nodes > solve_state(lost, 10_000, abstract=True).nodes


def test_switched_on_only_where_the_stock_never_reaches_the_tableau() -> None:
    for variant, on in [("four-seasons", True), ("vanishing-cross", True), ("simplicity", True),
                        ("czarina", False), ("corners", False), ("four-seasons-1883", False)]:
        state = run_position(variant, random.Random("switch"), 16) if variant != "corners" \
            else new_game(variant, 1)
        assert (CrossModel(state, abstract=True).bound is not None) == on, variant
    # the first pass of four-seasons-redeal: the waste is not a stack for good
    assert CrossModel(new_game("four-seasons-redeal", 1), abstract=True).bound is None
    assert CrossModel(new_game("four-seasons", 1)).bound is None  # off by default


def test_an_allowance_too_small_answers_unknown_never_lost() -> None:
    m = CrossModel(new_game("four-seasons", 1), abstract=True)
    small = StockBound(m.waste + m.stock[::-1], m.rel, m.tn, m.wrap_runs, m.total, 50, 10_000)
    assert small.decide(m.removed, len(m.stock), m.fcount) == UNKNOWN_T
    # asked again, the triple it gave up on is not searched a second time
    spent = small.expanded
    assert small.decide(m.removed, len(m.stock), m.fcount) == UNKNOWN_T
    assert small.expanded == spent


def test_a_stock_length_out_of_reach_is_only_probed() -> None:
    """After FAILS_IN_A_ROW searches in a row ran out of allowance at one stock
    length, the next triples there are answered "unknown" without a search,
    but for every PROBE_EVERY-th."""
    m = CrossModel(new_game("four-seasons", 1), abstract=True)
    bound = StockBound(m.waste + m.stock[::-1], m.rel, m.tn, m.wrap_runs, m.total, 50, 10_000)
    stock = len(m.stock)
    # the root's triple with one more card of the base's suit counted home: each a new triple
    triples = [(m.removed, [h if s else h + k for s, h in enumerate(m.fcount)]) for k in range(3)]
    triples += [(m.removed, [h + (s == t) for s, h in enumerate(m.fcount)])
                for t in range(1, 4)]
    triples += [(1 << c, m.fcount) for c in m.stock[:FAILS_IN_A_ROW]]
    answers = []
    for removed, heights in triples[:FAILS_IN_A_ROW]:
        spent = bound.expanded
        answers.append(bound.decide(removed, stock, heights))
        assert bound.expanded > spent  # searched
    assert answers == [UNKNOWN_T] * FAILS_IN_A_ROW
    spent = bound.expanded
    assert bound.decide(triples[FAILS_IN_A_ROW][0], stock, triples[FAILS_IN_A_ROW][1]) == UNKNOWN_T
    assert bound.expanded == spent  # not searched
    assert bound.fails[stock - 1] == 0  # other stock lengths are searched as before


@pytest.mark.compiled_pass  # about 8 s on the pure core
def test_the_search_of_a_real_deal_uses_it() -> None:
    on = solve("four-seasons", 1, 30_000, abstract=True)
    off = solve("four-seasons", 1, 30_000)
    assert on.result == off.result == UNKNOWN
    assert on.stages[-1].dead_hits > off.stages[-1].dead_hits
