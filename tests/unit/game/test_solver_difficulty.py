"""Deals graded by difficulty (server/game/solver/difficulty.py): the share of
winning lines against a plain search, the grades' bounds, and the grade of
a deal with no win."""

from __future__ import annotations

import random

from server.game.solver import LOST, WON, solve_state
from server.game.solver.difficulty import (
    GRADE_BOUNDS,
    NO_WIN,
    effort,
    grade_deal,
    grade_of,
    grade_state,
    grade_won,
    winning_share,
)
from server.game.solver.reference import exhaustive
from server.game.variants import RULES

from .test_solver import _random_small_position


def test_grades_rise_with_the_score_and_effort_with_the_nodes() -> None:
    assert [grade_of(s) for s in (0.0, GRADE_BOUNDS[0], GRADE_BOUNDS[1], GRADE_BOUNDS[2], 1.0)] == [1, 2, 3, 4, 4]
    assert grade_of(GRADE_BOUNDS[0] - 1e-9) == 1
    assert effort(1, 20_000) == 0.0 and effort(20_000, 20_000) == 1.0
    assert effort(100, 20_000) < effort(1_000, 20_000) < effort(10_000, 20_000)


def test_the_share_of_winning_lines_is_what_a_plain_search_says() -> None:
    """At the first choice along a winning line, the share is the fraction of the
    distinct positions one move away from which the plain search finds a win."""
    rng = random.Random("share")
    checked = narrow = 0
    while checked < 6:
        state = _random_small_position("four-seasons", rng, rng.choice([8, 9, 10]))
        r = solve_state(state, 50_000)
        if r.result != WON:
            continue
        rules = RULES[state.variant]
        children = {rules.apply(state, m) for m in rules.legal_moves(state)}
        if len(children) < 2:
            continue
        answers = [exhaustive(c, cap=30_000)[0] for c in children]
        if any(a not in (WON, LOST) for a in answers):
            continue
        expected = sum(a == WON for a in answers) / len(answers)
        assert winning_share(state, r.moves, points=1, budget=50_000) == expected
        checked += 1
        narrow += expected < 1
    assert narrow > 0  # some position where a move throws the win away


def test_a_deal_with_no_win_is_grade_five_and_says_why() -> None:
    lost = grade_deal("four-seasons", 387)  # proved lost in a few dozen nodes
    assert lost.grade == NO_WIN and lost.result == LOST and lost.name == "no win found"
    won = grade_deal("four-seasons", 2)
    assert won.result == WON and 1 <= won.grade <= 4 and 0 < won.share <= 1
    assert won.to_json()["grade"] == won.grade


def test_a_win_found_only_with_a_larger_budget_counts_at_full_effort() -> None:
    state = _random_small_position("four-seasons", random.Random(3), 8)
    big = solve_state(state, 50_000)
    assert big.result == WON
    full = grade_won(state, big.moves, budget=1)  # the small search cannot find it again
    assert full.result == WON and full.score >= 0.5 and full.nodes == 1
    again = grade_state(state, budget=50_000)
    assert again.score <= full.score
