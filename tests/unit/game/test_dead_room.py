"""The room proof for Les Quatre Coins (server/game/dead/room.py): its rank
arithmetic, its verdicts against the whole-card search, and the dead regions of
issue 16 it decides without a search."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.game import dead, engine
from server.game.dead.bound import never_home
from server.game.dead.room import room_dead, walks_fit
from server.game.state import State
from server.game.variants import RULES
from tests.unit.game.test_dead_golden import ALIVE, ENTRIES, replay
from tests.unit.game.test_dead_movable import LQC, whole_card_verdict

ROOM = [e for e in ENTRIES if e["variant"] == LQC and "deadroom" in e["found_by"]]


def ranks(**counts: int) -> list[int]:
    """A count per rank 0..12 (A..K) from r0=.., r1=.. keywords."""
    out = [0] * 13
    for name, n in counts.items():
        out[int(name[1:])] = n
    return out


def test_walks_fit_counts_the_steps_between_ranks() -> None:
    # one walk from a 6 (rank 5) holding a 7: its top is the 7
    assert walks_fit(ranks(r5=1, r6=1), ranks(r5=1), 1, ranks(r6=1))
    assert not walks_fit(ranks(r5=1, r6=1), ranks(r5=1), 1, ranks(r4=1))
    # a 6 and an 8 cannot lie in one walk; with a 7 between them they can (top: the 8 or back at 6)
    assert not walks_fit(ranks(r5=1, r7=1), ranks(r5=1), 1, ranks(r7=1))
    assert walks_fit(ranks(r5=1, r6=1, r7=1), ranks(r5=1), 1, ranks(r7=1))
    # a lone base is its own top
    assert walks_fit(ranks(r3=1), ranks(r3=1), 1, ranks(r3=1))
    assert not walks_fit(ranks(r3=1), ranks(r3=1), 1, ranks(r4=1))
    # no wrap: a King (12) and an Ace (0) are not neighbours
    assert not walks_fit(ranks(r0=1, r12=1), ranks(r12=1), 1, ranks(r0=1))
    # five 9s (rank 8) need ten steps to 8s: four 8s in one walk from an 8 give at most
    # eight; five 8s in two walks from two of them give ten
    assert not walks_fit(ranks(r7=4, r8=5), ranks(r7=1), 1, [1] * 13)
    assert walks_fit(ranks(r7=5, r8=5), ranks(r7=2), 2, [1] * 13)
    # the steps balance for two Aces and two 2s with no base among them (a loop), but no
    # walk reaches them from the base, a 6
    assert not walks_fit(ranks(r0=2, r1=2, r5=1), ranks(r5=1), 1, ranks(r5=1))
    assert walks_fit(ranks(r5=1), ranks(r5=1), 1, ranks(r5=1))
    # a foundation card that may lie on the tableau (extra) may be the top
    assert walks_fit(ranks(r5=1), ranks(r5=1), 1, ranks(r6=1), ranks(r6=1))
    assert not walks_fit(ranks(r5=1), ranks(r5=1), 1, ranks(r6=1))


@pytest.mark.parametrize("entry", ROOM, ids=lambda e: e["deal"])
def test_the_regions_the_rounds_found_too_large_are_proven_dead(entry: dict[str, Any]) -> None:
    final = replay(entry)[-1]
    rules = engine.rules_of(final)
    shape = rules.movable_moves(final.base)
    assert shape is not None
    assert not never_home(rules, shape, final)  # the walk alone digs through
    assert room_dead(rules, shape, final)
    assert dead.region(rules, final) == (True, 1)


def test_one_move_earlier_the_room_is_there_and_it_does_not_answer() -> None:
    """90974346630347276887 after 429 moves is alive (a 5 on the third pile's 7
    gives the room): the proof must not answer there."""
    entry = next(e for e in ALIVE if e["deal"] == "90974346630347276887")
    s = replay(entry)[429]
    rules = engine.rules_of(s)
    shape = rules.movable_moves(s.base)
    assert shape is not None
    assert not room_dead(rules, shape, s)
    assert whole_card_verdict(rules, s, 2_000) is False


def mutants(base: State, seed: int, count: int) -> list[State]:
    """``base`` with random cards taken out of its piles (each keeps its two
    lowest): smaller regions of the same shape, dead and alive."""
    rng = random.Random(seed)
    rules = RULES[LQC]
    out: list[State] = []
    for _ in range(count):
        piles = list(base.piles)
        for i in rules.tableau_range:
            p = piles[i]
            keep = rng.choice([0.3, 0.6, 1.0])
            piles[i] = p[:2] + tuple(c for c in p[2:] if rng.random() < keep)
        out.append(base._replace(piles=tuple(piles)))
    return out


def test_a_proof_is_never_wrong_and_it_proves_what_the_walk_does_not() -> None:
    """Positions cut from the corpus entries: wherever the proof answers and the
    whole-card search ends, the position is dead; it proves some that the walk
    of deadbound.py does not, and it does not answer everywhere (most of these
    positions are alive)."""
    rules = RULES[LQC]
    tried = answered = proved = beyond_walk = 0
    for n, entry in enumerate(ROOM):
        for s in mutants(replay(entry)[-1], n, 150):
            shape = rules.movable_moves(s.base)
            assert shape is not None
            tried += 1
            if not room_dead(rules, shape, s):
                continue
            answered += 1
            whole = whole_card_verdict(rules, s, 1_000)
            if whole is None:
                continue
            assert whole is True
            proved += 1
            beyond_walk += not never_home(rules, shape, s)
    # seeds 0..3: 600 positions, 73 answered, 42 of them confirmed (31 past 1,000 positions), 23
    # of those beyond the walk (8,000 more, cut and shuffled, the whole-card search up to 50,000
    # positions: 234 confirmed, 133 of them beyond the walk, 86 past it, none wrong)
    assert proved >= 20 and beyond_walk >= 10 and answered < tried // 4
