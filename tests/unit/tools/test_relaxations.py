"""The solver experiments in tools/relaxations: the relaxations never call a winnable
position lost, the quotient search answers as the plain one, and the command runs."""

from __future__ import annotations

import itertools
import random

import pytest

from server.game.solver.cross import CrossModel
from server.game.solver.reference import exhaustive
from server.game.solver.search import LOST, UNKNOWN, WON, dfs
from server.game.state import State
from tests.unit.game.test_solver_capacity import run_position
from tools.relaxations.__main__ import main
from tools.relaxations.common import Capacity, LostKeys
from tools.relaxations.freetableau import FreeTableauGame, runs_needed
from tools.relaxations.quotient import QuotientGame
from tools.relaxations.skeleton import SkeletonGame

ORDER = ("free", "skeleton", "tracked1", "tracked2")  # each keeps more of the real game


def relaxation(name: str, state: State) -> FreeTableauGame | SkeletonGame:
    model = CrossModel(state)
    if name == "free":
        return FreeTableauGame(model)
    return SkeletonGame(model, int(name.removeprefix("tracked")) if name != "skeleton" else 0)


@pytest.mark.compiled_pass  # the plain search over the engine is slow on the pure core
def test_the_relaxations_never_call_a_winnable_position_lost() -> None:
    """On last-pass positions the plain search over the engine decides: a relaxation never
    answers lost where that search wins, one that keeps more never answers won where one
    that keeps less proved a loss, and the rank skeleton proves losses that neither the
    capacity test nor the free tableau sees."""
    rng = random.Random("relaxations")
    lost, beyond = 0, 0
    for _ in range(120):
        state = run_position("four-seasons", rng, rng.choice([18, 20, 22]))
        truth, _ = exhaustive(state, cap=20_000)
        answers = [dfs(relaxation(name, state), 20_000).result for name in ORDER]
        if truth == WON:
            assert LOST not in answers, state
        for weaker, stronger in itertools.pairwise(answers):
            assert not (weaker == LOST and stronger == WON), (answers, state)
        lost += truth == LOST
        beyond += (answers[1] == LOST and answers[0] != LOST
                   and not CrossModel(state).capacity_lost())
    assert lost >= 3 and beyond >= 1


@pytest.mark.compiled_pass
def test_the_quotient_search_answers_as_the_plain_search() -> None:
    rng = random.Random("quotient")
    agreed = {WON: 0, LOST: 0}
    for _ in range(45):
        state = run_position("four-seasons", rng, rng.choice([20, 22, 24]))
        plain = dfs(CrossModel(state), 10_000).result
        if plain == UNKNOWN:
            continue
        game = QuotientGame(CrossModel(state))
        assert dfs(game, 10_000).result == plain, state
        assert game.walked > 0
        agreed[plain] += 1
    assert agreed[WON] >= 3 and agreed[LOST] >= 2


def test_runs_needed_counts_the_rise_round_the_corner() -> None:
    assert runs_needed([1] * 13, True) == 1  # A K Q .. 2 in one run, round the corner
    assert runs_needed([1] * 13, False) == 1
    two_aces = [2] + [1] * 12
    assert runs_needed(two_aces, False) == 2 and runs_needed(two_aces, True) == 1 + 0
    assert runs_needed([0] * 13, True) == 0


def test_lost_keys_pass_on_only_what_a_lost_search_met() -> None:
    memo = LostKeys()
    memo.note("a")
    memo.settle(False)
    assert memo.lost == set()
    memo.note("b")
    memo.settle(True)
    assert memo.lost == {"b"} and memo.current == set()


def test_the_command_runs_each_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["root", "--game", "skeleton", "--deals", "2", "--budget", "2000"]) == 0
    assert main(["root", "--game", "quotient", "--deals", "2", "--budget", "2000"]) == 0
    assert main(["inside", "--game", "free", "--deals", "2", "--budget", "2000"]) == 0
    assert main(["inside", "--deals", "2", "--budget", "2000", "--quotient"]) == 0
    assert main(["profile", "--deal", "2", "--budget", "2000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 skeleton won") and out[1].startswith("2 quotient won")
    assert out[2].startswith("2 free won") and out[3].startswith("2 skeleton won")
    assert out[4].startswith("2 won")


def test_other_variants_are_refused() -> None:
    from server.game.engine import new_game
    with pytest.raises(ValueError):
        SkeletonGame(CrossModel(new_game("simplicity", 1)))
    with pytest.raises(ValueError):
        FreeTableauGame(CrossModel(new_game("corners", 1)), LostKeys(),
                        Capacity(CrossModel(new_game("four-seasons", 1))))
