"""The cheap dead proof for movable foundation cards (server/game/dead/bound.py)
against the whole-card search: wherever it says dead, the search finds no
foundation move; and it decides the two Les Quatre Coins regions of issue 16's
fifth round that the rounds found too large."""

from __future__ import annotations

from typing import Any

import pytest

from server.game import dead, engine
from server.game.dead.bound import never_home
from server.game.variants import RULES
from tests.unit.game.test_dead_golden import ENTRIES, replay
from tests.unit.game.test_dead_movable import LQC, endgame_positions, sparse_positions, whole_card_verdict


def test_a_proof_is_never_wrong_and_it_answers_often() -> None:
    """Over random endgames and sparse synthetic ones: a position it calls dead
    is dead by the whole-card search (where that finishes): it never answers
    for an alive one, and it answers for some of the dead ones."""
    rules = RULES[LQC]
    proved = dead_ones = alive_ones = 0
    for s in endgame_positions(LQC, 17, 60) + sparse_positions(LQC, 17, 400):
        shape = rules.movable_moves(s.base)
        assert shape is not None
        says = never_home(rules, shape, s)
        whole = whole_card_verdict(rules, s, 5_000)
        if whole is None:
            continue
        if says:
            assert whole is True
        proved += says
        dead_ones += whole
        alive_ones += not whole
    # dead positions are rare here (7 of 424 decided); the bound proves 3 of them
    assert dead_ones >= 5 and alive_ones >= 100 and proved >= 3


BOUND = [e for e in ENTRIES if e["variant"] == LQC and "deadbound" in e["found_by"]]


@pytest.mark.parametrize("entry", BOUND, ids=lambda e: e["deal"])
def test_the_regions_too_large_for_the_rounds_are_proven_dead(entry: dict[str, Any]) -> None:
    final = replay(entry)[-1]
    rules = engine.rules_of(final)
    shape = rules.movable_moves(final.base)
    assert shape is not None and never_home(rules, shape, final)
    assert dead.region(rules, final) == (True, 1)


def test_it_does_not_answer_where_spaces_are_filled() -> None:
    rules = RULES["simplicity-pysol"]
    s = endgame_positions("simplicity-pysol", 23, 1)[0]
    shape = rules.movable_moves(s.base)
    assert shape is not None and shape.spaces and not never_home(rules, shape, s)
