"""The solver's front door: pick the model, run the stages, check the answer.

Stage 1, *quick*: the same depth-first search on a streamlined model (every
playable foundation card is played at once; in Betsy Ross no card is ever
drawn over a playable one), or for Corner Stones a best-first search on a
heuristic score. It is incomplete, so only a win counts.
Stage 2, *complete*: the sound model with the rest of the budget; this stage
alone may answer *lost*. Every win is replayed move by move through the
engine's checked path (:func:`..engine.play`) before it is returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..engine import IN_PROGRESS, new_game, play, status
from ..engine import WON as ENGINE_WON
from ..state import State
from ..variants import RULES
from .betsy import BetsyModel
from .corner_stones import CornerStonesModel
from .cross import CrossModel
from .generic import EngineModel, needs_engine_model
from .search import LOST, UNKNOWN, WON, Model, best_first, dfs

DEFAULT_BUDGET = 200_000
# Stage 1 gets a fixed number of nodes (or the whole budget if smaller), so a
# run with a larger budget repeats a smaller one node for node and then goes
# on: one run at 2,000,000 nodes also gives the exact answer at 200,000.
QUICK_NODES = 5_000
# Stage 1b, for the cross family: a best-first search of a fixed size after the
# streamlined DFS, on "foundation cards, then how buried the cards they want
# next lie" (CrossModel.score). It finds wins the DFS order misses, and a
# fixed size keeps the larger-budget-repeats-smaller property.
BEST_FIRST_NODES = 5_000
# Variants whose loss detectors are on unless asked otherwise: where they
# measurably pay (seeds/winrates.md). The cross family's mobility test is
# sound but decided no extra deal in the measurements while halving the
# node rate, so it is opt-in there (``detectors=True``). The cross family's
# capacity test (:mod:`.capacity`) is a separate switch, on by default: it
# cuts many positions of the stock phase (docs/benchmarks.md, "The solver's loss proofs"). Its abstract
# game (:mod:`.stockbound`) is opt-in (``abstract=True``): it cuts about half
# the nodes late in the stock but proved no deal lost and costs time.
DETECTORS_ON = frozenset({"betsy-ross", "corners", "corner-stones"})


class SolverBug(Exception):
    """A line the solver called a win did not replay to a won game (an
    internal error; an Exception, not an AssertionError, because mypyc
    compiles subclasses of only a few builtin exceptions)."""


@dataclass
class Stage:
    name: str
    result: str
    nodes: int
    dead_hits: int = 0


@dataclass
class SolveResult:
    result: str  # won | lost | unknown
    moves: list[str]
    nodes: int
    seconds: float
    best_progress: int = 0  # most foundation cards in any position searched
    stages: list[Stage] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result, "moves": self.moves, "nodes": self.nodes}


def make_model(state: State, *, streamlined: bool = False, sound_extras: bool = True,
               detectors: bool = True, capacity: bool = True, abstract: bool = False) -> Model:
    """The family's model for ``state``.

    ``streamlined`` selects the incomplete stage-1 behaviour. With
    ``sound_extras`` off the model keeps every legal move apart from the
    engine's own symmetric duplicates and plays no safe moves; ``detectors``
    switches the loss detectors, ``capacity`` the cross family's capacity
    test (:mod:`.capacity`) and ``abstract`` its abstract game
    (:mod:`.stockbound`; these switches exist for cross-checks and for
    measuring what each technique buys).
    """
    rules = RULES[state.variant]
    family = rules.family
    detectors = detectors and sound_extras
    if family in ("calculation", "fortunes-favor") or rules.spec.centre_cell \
            or needs_engine_model(rules.spec):
        return EngineModel(state, greedy=streamlined)
    if family == "cross":
        return CrossModel(state, safe_moves=sound_extras, prune=sound_extras,
                          detectors=detectors, greedy=streamlined,
                          capacity=capacity and sound_extras,
                          abstract=abstract and sound_extras)
    if family == "corner-stones":
        return CornerStonesModel(state, safe_moves=sound_extras, prune=sound_extras,
                                 detectors=detectors, greedy=streamlined)
    if family == "betsy-ross":
        return BetsyModel(state, safe_moves=sound_extras, detectors=detectors,
                          greedy=streamlined)
    raise ValueError(f"no solver model for the {family} family")


def replay(state: State, moves: list[str]) -> State:
    """Play a winning line ``moves`` through the engine's checked path (every
    move parsed and checked against the rules); the final state, which the
    caller checks is won. The positions on the way are played as in progress
    without asking the dead-position rule: a line that ends won passes only
    alive positions (a dead one never takes another foundation card), so the
    final check covers them, and a long search on one of them (tens of seconds
    in some Corner Stones and Les Quatre Coins positions) buys nothing."""
    for m in moves:
        state = play(state, m, IN_PROGRESS)
    return state


def solve_state(state: State, budget: int = DEFAULT_BUDGET, *, quick: bool = True,
                detectors: bool | None = None, safe_moves: bool = True,
                capacity: bool = True, abstract: bool = False,
                best_first_stage: bool = True) -> SolveResult:
    """Decide the position ``state`` within ``budget`` nodes in all.

    ``detectors`` None means the variant's default (:data:`DETECTORS_ON`); it
    sets the complete stage (and Corner Stones' best-first stage), while the
    streamlined DFS stage always keeps them on."""
    if budget < 1:
        raise ValueError("the budget must be at least one node")
    if detectors is None:
        detectors = state.variant in DETECTORS_ON
    t0 = time.perf_counter()
    stages: list[Stage] = []
    spent, best = 0, 0
    if quick and budget > QUICK_NODES:
        fast = make_model(state, streamlined=True, detectors=True, capacity=capacity,
                          abstract=abstract)
        if isinstance(fast, CornerStonesModel):
            # a deal's hard part comes after 104 deals: DFS never gets back to
            # early choices, best-first on "uncover what the foundations want" does
            out = best_first(CornerStonesModel(state, detectors=detectors), QUICK_NODES)
        else:
            # (the streamlined model keeps every variant's detectors on: in a
            # stage that can only answer "won" they just cut dead subtrees)
            out = dfs(fast, QUICK_NODES, complete=False)
        stages.append(Stage("quick", out.result, out.nodes, out.dead_hits))
        spent, best = out.nodes, out.best_progress
        if out.result == WON:
            return _won(state, [str(m) for m in out.moves], spent, t0, best, stages)
        if best_first_stage and isinstance(fast, CrossModel) and budget > spent + BEST_FIRST_NODES:
            out = best_first(CrossModel(state, capacity=capacity), BEST_FIRST_NODES)
            stages.append(Stage("best-first", out.result, out.nodes, out.dead_hits))
            spent += out.nodes
            best = max(best, out.best_progress)
            if out.result == WON:
                return _won(state, [str(m) for m in out.moves], spent, t0, best, stages)
    model = make_model(state, sound_extras=safe_moves, detectors=detectors, capacity=capacity,
                       abstract=abstract)
    out = dfs(model, budget - spent, complete=True)
    stages.append(Stage("complete", out.result, out.nodes, out.dead_hits))
    spent += out.nodes
    best = max(best, out.best_progress)
    if out.result == WON:
        return _won(state, [str(m) for m in out.moves], spent, t0, best, stages)
    return SolveResult(out.result, [], spent, time.perf_counter() - t0, best, stages)


def _won(state: State, moves: list[str], nodes: int, t0: float, best: int,
         stages: list[Stage]) -> SolveResult:
    final = replay(state, moves)
    if status(final) != ENGINE_WON:
        raise SolverBug(f"{state.variant}: the line found does not win ({status(final)})")
    return SolveResult(WON, moves, nodes, time.perf_counter() - t0, best, stages)


def solve(variant: str, deal: int | str, budget: int = DEFAULT_BUDGET, *, quick: bool = True,
          detectors: bool | None = None, safe_moves: bool = True,
          capacity: bool = True, abstract: bool = False,
          best_first_stage: bool = True) -> SolveResult:
    """Decide deal ``deal`` of ``variant`` (id, name or alias)."""
    return solve_state(new_game(variant, deal), budget, quick=quick, detectors=detectors,
                       safe_moves=safe_moves, capacity=capacity, abstract=abstract,
                       best_first_stage=best_first_stage)


__all__ = ["DEFAULT_BUDGET", "LOST", "UNKNOWN", "WON", "SolveResult", "Stage", "SolverBug",
           "make_model", "replay", "solve", "solve_state"]
