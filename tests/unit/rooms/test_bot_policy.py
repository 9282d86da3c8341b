"""The bots' minds without a server: what they know comes from views only, every
decision is legal and thinks in bounded slices, and pacing is person-like."""

from __future__ import annotations

import random
import statistics

import pytest

from server.game import engine
from server.game.variants import variant_ids
from server.game.views import view
from server.rooms.bots.knowledge import Knowledge
from server.rooms.bots.pace import think_time
from server.rooms.bots.policy import LEVEL, LEVELS, SLICE, Decision, Mind, SolveJob, decide, solve_job


@pytest.mark.parametrize("variant", variant_ids())
def test_a_sample_agrees_with_every_view_and_a_known_stock_is_the_true_one(variant: str) -> None:
    rng = random.Random(7)
    for deal in (1, 2, 3):
        state, know = engine.new_game(variant, deal), Knowledge(variant)
        for _ in range(300):
            status, moves = engine.status_and_moves(state)
            shown = view(state, status, moves)
            know.observe(shown)
            if status != engine.IN_PROGRESS:
                break
            guess = know.sample(rng)
            assert view(guess) == shown  # a guess a person could not tell from the truth
            if know.stock_known():
                assert guess == state  # a redeal's order was remembered, not looked up
            state = engine.apply(state, rng.choice(moves))


def test_a_sample_is_made_from_the_views_alone() -> None:
    """Two different deals that show the same view give the same samples: nothing but the
    view (no deal number, no stock order) goes into what a bot knows."""
    a = engine.new_game("four-seasons", 11)
    shown = view(a)
    know = Knowledge("four-seasons")
    know.observe(shown)
    other = Knowledge("four-seasons")
    other.observe(dict(shown))
    assert know.sample(random.Random(1)) == other.sample(random.Random(1))
    assert sorted(know.sample(random.Random(2)).piles[0]) == sorted(a.piles[0])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("variant", ["four-seasons", "betsy-ross", "corner-stones", "czarina",
                                     "four-seasons-1883", "calculation", "fortunes-favor", "florentine"])
def test_every_level_plays_legal_moves_to_the_end(variant: str, level: int) -> None:
    rng = random.Random(level)
    state, know = engine.new_game(variant, 4242), Knowledge(variant)
    mind = Mind(LEVEL[level], know, rng)
    for _ in range(3000):
        status, moves = engine.status_and_moves(state)
        know.observe(view(state, status, moves))
        if status != engine.IN_PROGRESS:
            break
        state = engine.play(state, decide(mind).move, status)  # the checked path: raises if illegal
    assert engine.status(state) != engine.IN_PROGRESS


def test_a_decision_looks_at_no_more_than_a_slice_between_pauses() -> None:
    """So a server can run it with other players' work in between: a step never looks
    at more than SLICE positions, and a full solve is handed out as a job."""
    rng = random.Random(3)
    state, know = engine.new_game("four-seasons", 99), Knowledge("four-seasons")
    mind = Mind(LEVEL[5], know, rng)
    steps = jobs = 0
    for _ in range(400):
        status, moves = engine.status_and_moves(state)
        know.observe(view(state, status, moves))
        if status != engine.IN_PROGRESS:
            break
        gen = mind.think()
        answer: list[str] | None = None
        while True:
            before = mind.nodes
            try:
                step = gen.send(answer)
            except StopIteration as done:
                decision: Decision = done.value
                break
            steps += 1
            if isinstance(step, SolveJob):
                jobs += 1
                answer = solve_job(step)
            else:
                assert mind.nodes - before <= SLICE
                answer = None
        state = engine.play(state, decision.move, status)
    assert steps > 10


def test_think_times_are_person_like() -> None:
    def median(level: int, options: int, planned: bool = False) -> float:
        rng = random.Random(5)
        return statistics.median(think_time(level, Decision("draw", options, planned), rng)
                                 for _ in range(2000))

    # a second or more a move, more for a weaker player, more with more to weigh
    assert all(1.0 < median(lv, 1) < 3.0 for lv in LEVELS)
    assert [median(lv, 3) for lv in LEVELS] == sorted((median(lv, 3) for lv in LEVELS), reverse=True)
    assert median(3, 6) > 1.5 * median(3, 1)
    assert median(3, 1, planned=True) < median(3, 1)
    times = [think_time(3, Decision("draw", 2), random.Random(s)) for s in range(500)]
    assert max(times) > 2 * statistics.median(times)  # now and then a long stare


@pytest.mark.parametrize("variant", ["vanishing-cross", "four-seasons-1883"])
def test_a_bot_fills_the_space_a_rule_demands_instead_of_giving_up(variant: str) -> None:
    """Where a space must be filled before the next card is turned, a searching bot fills
    it (even though a space looks good) rather than resign with cards still in the stock."""
    for level in (3, 4, 5):
        for deal in (1, 2, 3):
            state, know = engine.new_game(variant, deal), Knowledge(variant)
            mind = Mind(LEVEL[level], know, random.Random(deal))
            played = 0
            while True:
                status, moves = engine.status_and_moves(state)
                know.observe(view(state, status, moves))
                if status != engine.IN_PROGRESS:
                    break
                move = decide(mind).move
                if move == "resign":
                    assert len(state.piles[0]) < 20, (level, deal, played)
                state = engine.play(state, move, status)
                played += 1


def test_a_move_that_sets_off_a_fill_from_the_stock_counts_as_turning_a_card() -> None:
    """What comes out of the stock is unknown to a bot: Fortune's Favor's refilled waste,
    Florentine's refilled centre, Czarina's space; not a plain move."""
    from server.game.moves import parse
    from server.rooms.bots.policy import _reveals

    ff = engine.new_game("fortunes-favor", 1)  # t2 = 2D goes home: the waste fills t2, the stock the waste
    assert _reveals(ff, parse("t2-f4")) and _reveals(ff, parse("w-t10"))  # the waste's only card leaves
    assert not _reveals(ff, parse("f4-t2"))  # AD back onto 2D: nothing empties
    flo = engine.new_game("florentine", 1)  # t3 = JC, the centre, goes home: the stock refills it
    assert _reveals(flo, parse("t3-f1")) and _reveals(flo, parse("draw"))
    calc = engine.new_game("calculation", 1)
    assert not _reveals(calc, parse("w-t1"))
