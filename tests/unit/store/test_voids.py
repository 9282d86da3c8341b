"""The arithmetic of a void (server/store/voids.py): a race's step taken out of a rating."""

from __future__ import annotations

import json
import math

from server.race.ratings import HISTORY_KEPT, NEW, SIGMA, Skill, rate
from server.store.voids import mark, prior_of, void_entry, without


def entry(race: str, before: Skill, after: Skill) -> dict[str, object]:
    return {"race": race, "before": before.ordinal, "after": after.ordinal, "mu": after.mu,
            "sigma": after.sigma}


def test_the_last_race_taken_out_is_the_rating_before_it() -> None:
    before = Skill(27.0, 6.0, 4, "X")
    after = rate([before, Skill()], [1, 2], "R")[0]
    back = without(after, entry("R", before, after), (before.mu, before.sigma))
    assert math.isclose(back.mu, before.mu) and math.isclose(back.sigma, before.sigma)
    assert back.races == 4 and back.last == after.last


def test_an_older_race_is_refunded_by_its_step() -> None:
    before = Skill(25.0, 8.0, 0)
    lost = rate([Skill(30.0, 3.0), before], [1, 2], "R1")[1]
    later = rate([lost, Skill()], [1, 2], "R2")[0]
    back = without(later, entry("R1", before, lost), (before.mu, before.sigma))
    assert math.isclose(back.mu, later.mu - (lost.mu - before.mu))
    assert later.sigma < back.sigma <= SIGMA and back.races == later.races - 1


def test_the_deviation_given_back_is_capped_at_a_new_ratings() -> None:
    now = Skill(20.0, SIGMA, 1)
    back = without(now, {"mu": 20.0, "sigma": 1.0}, (25.0, SIGMA))
    assert back.sigma == SIGMA


def test_the_rating_before_an_entry() -> None:
    older = {"race": "A", "mu": 26.0, "sigma": 7.0, "before": 0, "after": 5}
    newer = {"race": "B", "mu": 27.0, "sigma": 6.5, "before": 5, "after": 7.5}
    assert prior_of([newer, older], 0, {}, "czarina") == (26.0, 7.0)
    assert prior_of([newer, older], 1, {}, "czarina") == (NEW.mu, NEW.sigma)
    # a migrated single rating is where a first change started
    assert prior_of([older], 0, {"mu": "30", "sigma": "4", "races": "9"}, "czarina") == (30.0, 4.0)
    # a history trimmed past it: the mean's step from the ordinals, the deviation as it was after
    full = [newer] * (HISTORY_KEPT - 1) + [older]
    assert prior_of(full, HISTORY_KEPT - 1, {}, "czarina") == (26.0 - 5, 7.0)


def test_a_voids_entry_carries_the_mark_the_script_looks_for() -> None:
    text = void_entry("AB12", 5, Skill(), Skill(24.0, 8.0))
    assert mark("AB12") in text and mark("AB1") not in text
    assert json.loads(text)["voids"] == "AB12"
