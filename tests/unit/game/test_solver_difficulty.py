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

from .test_solver import _random_small_position, cross_position


def test_grades_rise_with_the_score_and_effort_with_the_nodes() -> None:
    scores = (0.0, GRADE_BOUNDS[0], GRADE_BOUNDS[1], GRADE_BOUNDS[2], 1.0)
    assert [grade_of(s) for s in scores] == [1, 2, 3, 4, 4]
    assert grade_of(GRADE_BOUNDS[0] - 1e-9) == 1
    assert effort(1, 20_000) == 0.0 and effort(20_000, 20_000) == 1.0
    assert effort(100, 20_000) < effort(1_000, 20_000) < effort(10_000, 20_000)


def test_the_share_of_winning_lines_is_what_a_plain_search_says() -> None:
    """Hearts wait for 4H, the waste top; clubs for QC, under it; every pile is
    blocked. Playing 4H home or onto 5H keeps the win; drawing KH over it loses
    (KH has nowhere to go). The plain search agrees, move by move."""
    state = cross_position("four-seasons", 1, [11, 13, 3, 13],
                           ["QH JH", "TH 9H", "8H 7H", "6H 5H", "KC"], waste="QC 4H", stock="KH")
    rules = RULES[state.variant]
    children = {rules.apply(state, m) for m in rules.legal_moves(state)}
    answers = sorted(exhaustive(c)[0] for c in children)
    assert answers == [LOST, WON, WON]
    line = solve_state(state, 1_000).moves
    assert winning_share(state, line, points=1) == 2 / 3
    # further along the line every move keeps the win (a forced line)
    assert winning_share(state, line, points=4) > 2 / 3


def test_a_deal_with_no_win_is_grade_five_and_says_why() -> None:
    lost = grade_deal("four-seasons", 387)  # proved lost in a few dozen nodes
    assert lost.grade == NO_WIN and lost.result == LOST and lost.name == "no win found"
    won = grade_deal("four-seasons", 2)
    assert won.result == WON and 1 <= won.grade <= 4 and 0 < won.share <= 1
    assert won.to_json()["grade"] == won.grade


def test_a_win_found_only_with_a_larger_budget_counts_at_full_effort() -> None:
    rng = random.Random(3)
    while True:
        state = _random_small_position("four-seasons", rng, 12)
        big = solve_state(state, 50_000)
        if big.result == WON and solve_state(state, 3).result != WON:
            break
    full = grade_won(state, big.moves, budget=3)  # the small search does not find it again
    assert full.result == WON and full.score >= 0.5 and full.nodes == 3
    again = grade_state(state, budget=50_000)
    assert again.result == WON and again.score <= full.score
