"""How hard a deal is: a grade from the solver's effort and the share of
winning lines, for the server to show before a race and to pick the daily
deal by (docs/design/difficulty.md).

Two measures, each in 0..1, higher is harder:

* **effort**: the solver's nodes to its first win, on a log scale against
  the budget (a deal won in its first few dozen nodes is near 0, one won
  at the end of the budget near 1);
* **narrowness**: one minus the *share of winning lines*. Along the
  solver's winning line, at the first :data:`CHOICE_POINTS` positions where
  the player has more than one move, every other move is solved with a small
  budget; the share is the fraction of all the moves tried there after which
  a win is still found. A deal where most moves keep a win is forgiving; one
  where a single move in five does is narrow.

The score is their mean; :data:`GRADE_BOUNDS` cut it into grades 1 (easy) to 4
(hard), calibrated against the bots' win rates by level (the bounds are the
quartiles of the won deals' scores in the calibration run, see the design
page). A deal with no win found is grade 5: proved lost, or undecided at the
budget, which :attr:`Difficulty.result` tells apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..engine import IN_PROGRESS, new_game, play
from ..state import State
from ..variants import RULES
from .portfolio import solve_state
from .search import LOST, UNKNOWN, WON

GRADE_BUDGET = 20_000  # nodes for the deal itself
CHOICE_POINTS = 4  # positions along the line whose alternatives are tried
SHARE_BUDGET = 1_000  # nodes for each alternative
# score bounds between grades 1|2, 2|3, 3|4 (docs/design/difficulty.md)
GRADE_BOUNDS = (0.27, 0.285, 0.78)
NO_WIN = 5
GRADE_NAMES = {1: "easy", 2: "fair", 3: "tricky", 4: "hard", 5: "no win found"}


@dataclass(frozen=True)
class Difficulty:
    grade: int  # 1 easy .. 4 hard; 5 no win found (see result)
    result: str  # the solver's answer at the budget: won, lost or unknown
    nodes: int  # the solver's nodes to that answer
    share: float  # share of the moves tried that keep a win (1.0 when none was tried)
    score: float  # 0..1, what the grade cuts

    @property
    def name(self) -> str:
        return GRADE_NAMES[self.grade]

    def to_json(self) -> dict[str, object]:
        return {"grade": self.grade, "name": self.name, "result": self.result,
                "nodes": self.nodes, "share": round(self.share, 3), "score": round(self.score, 3)}


def grade_of(score: float) -> int:
    """The grade (1..4) of a won deal's score."""
    g = 1
    for bound in GRADE_BOUNDS:
        if score >= bound:
            g += 1
    return g


def effort(nodes: int, budget: int) -> float:
    """The solver's nodes on a log scale: 0 at one node, 1 at the budget."""
    if budget <= 1:
        return 1.0
    return min(1.0, math.log(max(nodes, 1)) / math.log(budget))


def winning_share(state: State, line: list[str], points: int = CHOICE_POINTS,
                  budget: int = SHARE_BUDGET) -> float:
    """The share of moves, at the first ``points`` choices along the winning
    ``line``, after which the solver still finds a win within ``budget``
    nodes (the line's own move always does). Moves that lead to the same
    position count once; a move whose answer is undecided counts as losing:
    the share is of lines *known* to win."""
    # the rules' own moves and apply: no dead-position search on the way
    rules = RULES[state.variant]
    kept = tried = 0
    seen_points = 0
    for text in line:
        if seen_points >= points:
            break
        children: dict[State, str] = {}
        for m in rules.legal_moves(state):
            children.setdefault(rules.apply(state, m), str(m))
        nxt = play(state, text, IN_PROGRESS)
        if len(children) > 1:
            seen_points += 1
            for child in children:
                tried += 1
                if child == nxt or solve_state(child, budget).result == WON:
                    kept += 1
        state = nxt
    return kept / tried if tried else 1.0


def grade_state(state: State, budget: int = GRADE_BUDGET, points: int = CHOICE_POINTS,
                share_budget: int = SHARE_BUDGET) -> Difficulty:
    """The difficulty of the position ``state`` (a new deal, usually)."""
    r = solve_state(state, budget)
    if r.result != WON:
        return Difficulty(NO_WIN, r.result if r.result in (LOST, UNKNOWN) else UNKNOWN,
                          r.nodes, 0.0, 1.0)
    return _graded(state, r.moves, r.nodes, budget, points, share_budget)


def grade_won(state: State, line: list[str], budget: int = GRADE_BUDGET) -> Difficulty:
    """The difficulty of ``state`` known to be won by ``line`` (found with a
    larger budget, as the daily's): a win the solver does not find again
    within ``budget`` counts at full effort, and the share is taken along
    ``line``."""
    r = solve_state(state, budget)
    if r.result == WON:
        line = r.moves
    return _graded(state, line, r.nodes, budget, CHOICE_POINTS, SHARE_BUDGET)


def _graded(state: State, line: list[str], nodes: int, budget: int, points: int,
            share_budget: int) -> Difficulty:
    share = winning_share(state, line, points, share_budget)
    score = (effort(nodes, budget) + (1.0 - share)) / 2
    return Difficulty(grade_of(score), WON, nodes, share, score)


def grade_deal(variant: str, deal: int | str, budget: int = GRADE_BUDGET) -> Difficulty:
    """The difficulty of deal ``deal`` of ``variant``."""
    return grade_state(new_game(variant, deal), budget)


__all__ = ["CHOICE_POINTS", "Difficulty", "GRADE_BOUNDS", "GRADE_BUDGET", "GRADE_NAMES", "NO_WIN",
           "SHARE_BUDGET", "effort", "grade_deal", "grade_of", "grade_state", "grade_won", "winning_share"]
