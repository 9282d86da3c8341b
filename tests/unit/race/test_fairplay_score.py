"""The suspicion score's properties on small hand-made careers (the experiment
that sets its thresholds is bench/fairplay.py, not a test)."""

from __future__ import annotations

import json
from typing import Any

from server.race.fairplay_score import (
    AGREE_LLR,
    FLAG_AT,
    HISTORY,
    MACHINE_GAMES,
    MIN_TIMES,
    MODE_SHARE,
    P_ASSISTED,
    P_HONEST,
    SPEED_MS,
    SPREAD_MIN,
    agreement_llr,
    score,
)
from server.store.fairplay import EVIDENCE_MAX


def game(choices: int = 10, agreed: int = 5, moves: int = 60, median_ms: int = 2400, spread: float = 0.6,
         fast: int = 0, mode_ms: int = 1733, mode_share: float = 0.03, shape: float = 0.4) -> dict[str, Any]:
    return {"variant": "four-seasons", "won": False, "choices": choices, "agreed": agreed, "searches": 4,
            "moves": moves, "median_ms": median_ms, "spread": spread, "fast": fast, "mode_ms": mode_ms,
            "mode_share": mode_share, "shape": shape}


def test_an_honest_career_is_not_flagged() -> None:
    # a good player agreeing with the solver at about the honest rate, game after game
    total, why = score([game(choices=10, agreed=6, mode_ms=1000 + i) for i in range(HISTORY)])
    assert total < FLAG_AT and why["reasons"] == []
    assert why["agreement"]["rate"] == 0.6 and why["games"] == HISTORY


def test_one_game_on_the_solvers_line_is_flagged_with_its_reason() -> None:
    history = [game(choices=80, agreed=79)] + [game(mode_ms=1000 + i) for i in range(5)]
    total, why = score(history)
    assert total >= FLAG_AT and why["parts"]["agreement"] == round(total, 3)
    assert why["reasons"] and "solver" in why["reasons"][0]
    # the games pooled say little (the others dilute it): the best game alone says it
    assert why["agreement"] == {"choices": 130, "agreed": 104, "rate": 0.8,
                                "llr": round(agreement_llr(130, 104), 2),
                                "best_game_llr": round(agreement_llr(80, 79), 2)}
    assert agreement_llr(130, 104) < AGREE_LLR <= agreement_llr(80, 79)


def test_agreement_scores_by_the_likelihood_ratio_and_disagreement_takes_it_back() -> None:
    assert agreement_llr(1, 1) > 0 > agreement_llr(1, 0)
    # the rates are where the ratio turns: above the honest rate alone scores nothing
    assert agreement_llr(100, round(100 * P_HONEST)) < 0
    assert agreement_llr(100, round(100 * P_ASSISTED)) > AGREE_LLR
    few = score([game(choices=8, agreed=8)])[1]
    assert 0 < few["parts"]["agreement"] < FLAG_AT  # eight lucky choices are not enough


def test_only_the_newest_games_count() -> None:
    old_cheat = game(choices=80, agreed=80)
    honest = [game(choices=10, agreed=5, mode_ms=1000 + i) for i in range(HISTORY)]
    assert score([*honest[:-1], old_cheat])[0] >= FLAG_AT  # still in the window
    assert score([*honest, old_cheat])[0] < FLAG_AT  # one game too old


def test_inhuman_speed_is_flagged_and_a_quick_person_is_not() -> None:
    quick = [game(median_ms=700, fast=2, mode_ms=1000 + i) for i in range(5)]
    assert score(quick)[0] < FLAG_AT
    bot = [game(median_ms=SPEED_MS // 2, mode_ms=1000 + i) for i in range(5)]
    total, why = score(bot)
    assert total >= FLAG_AT and why["parts"]["speed"] == 2.0 and why["speed"]["median_ms"] == SPEED_MS // 2
    fast_hand = [game(fast=40, mode_ms=1000 + i) for i in range(2)]  # 40 of 60 under a quarter second
    assert score(fast_hand)[0] >= FLAG_AT


def test_speed_waits_for_enough_think_times() -> None:
    few = [game(moves=MIN_TIMES - 1, median_ms=50)]
    assert score(few)[1]["parts"]["speed"] == 0
    assert score([game(moves=MIN_TIMES, median_ms=50)])[1]["parts"]["speed"] > FLAG_AT


def test_a_pace_the_same_to_the_millisecond_is_flagged_after_enough_games() -> None:
    flat = [game(spread=SPREAD_MIN / 2, mode_ms=900 + i) for i in range(MACHINE_GAMES)]
    assert score(flat[:-1])[0] < FLAG_AT <= score(flat)[0]
    repeat = [game(mode_share=MODE_SHARE, mode_ms=900 + i) for i in range(MACHINE_GAMES)]
    assert score(repeat)[1]["parts"]["machine_pace"] >= FLAG_AT
    # the same most common think time, game after game, though each alone looks loose
    same = [game(mode_share=MODE_SHARE / 2, mode_ms=1200) for _ in range(MACHINE_GAMES)]
    total, why = score(same)
    assert total >= FLAG_AT and why["machine_pace"]["same_ms_games"] == MACHINE_GAMES
    short = [game(moves=5, spread=0.0, mode_ms=900 + i) for i in range(MACHINE_GAMES)]
    assert score(short)[0] < FLAG_AT  # too few think times a game to judge its pace


def test_the_explanation_is_small_json() -> None:
    history = [game(choices=300, agreed=290, median_ms=10, spread=0.0, mode_share=1.0)] * HISTORY
    total, why = score(history)
    text = json.dumps(why)
    assert len(text.encode()) < EVIDENCE_MAX and set(why["parts"]) == {"agreement", "speed", "machine_pace"}
    assert len(why["reasons"]) == 3 and why["score"] == round(total, 3)


def test_no_games_no_suspicion() -> None:
    total, why = score([])
    assert total == 0 and why["games"] == 0 and why["agreement"]["rate"] is None
