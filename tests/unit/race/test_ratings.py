"""Ratings per variant: the update, the provisional mark, the stored form and
where a variant's rating starts (server/race/ratings.py)."""

from __future__ import annotations

from server.race.ratings import (
    NEW,
    PROVISIONAL_RACES,
    Skill,
    change_entry,
    field,
    legacy_skill,
    rate,
    read_entry,
    starting_skill,
    stored_skills,
)


def test_a_race_moves_the_winner_up_and_the_loser_down() -> None:
    ann, bob, cid = rate([NEW, NEW, NEW], [1, 2, 3], "ABCD")
    assert ann.ordinal > NEW.ordinal > cid.ordinal
    assert ann.ordinal > bob.ordinal > cid.ordinal
    assert ann.sigma < NEW.sigma  # every race makes the rating surer
    assert (ann.races, ann.last) == (1, "ABCD")


def test_equal_places_tie() -> None:
    a, b = rate([NEW, NEW], [1, 1], "T")
    assert abs(a.ordinal - b.ordinal) < 1e-9


def test_a_rating_is_provisional_until_the_documented_number_of_races() -> None:
    skill = NEW
    for n in range(PROVISIONAL_RACES):
        assert skill.provisional, n
        skill, _ = rate([skill, NEW], [1, 2], f"R{n}")
    assert skill.races == PROVISIONAL_RACES and not skill.provisional


def test_the_stored_form_reads_back() -> None:
    skill = Skill(27.123456789, 6.5, 12, "QWER")
    assert Skill.from_store(skill.to_store()) == skill
    assert Skill.from_store("25.0 8.0 3") == Skill(25.0, 8.0, 3, "")


def test_a_variant_starts_from_its_own_rating_else_the_single_one_else_new() -> None:
    own = Skill(30.0, 5.0, 4, "X")
    row = {"name": "Ann", "mu": "28.0", "sigma": "4.0", "races": "40", field("czarina"): own.to_store()}
    assert starting_skill(row, "czarina") == own
    # a name with a rating of some variant starts any other one new
    assert starting_skill(row, "calculation") == NEW
    # a name with only the single rating (nothing per variant yet) starts from it
    legacy = {"name": "Ann", "mu": "28.0", "sigma": "4.0", "races": "40"}
    assert starting_skill(legacy, "calculation") == Skill(28.0, 4.0, 40, "migrated")
    assert legacy_skill({"name": "x"}) is None and starting_skill({}, "czarina") == NEW
    assert stored_skills(row) == {"czarina": own}


def test_a_change_is_kept_with_its_race_and_both_ratings() -> None:
    after = rate([NEW, NEW], [1, 2], "R1")[0]
    entry = read_entry(change_entry("R1", 1234, NEW, after))
    assert entry["race"] == "R1" and entry["at"] == 1234
    assert entry["before"] == round(NEW.ordinal, 3) and entry["after"] == round(after.ordinal, 3)
