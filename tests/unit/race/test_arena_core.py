"""The arena's rules fed with plain events: points, streaks, groups, phases, the schedule."""

from __future__ import annotations

import datetime as dt

import pytest

from server.race.arena import (
    Line,
    ScheduleError,
    due,
    max_rounds,
    pair,
    parse_schedule,
    phase,
    race_points,
    scheduled_id,
    score_race,
    split_sizes,
)


def rank(*rows: tuple[int, bool, int]) -> list[dict[str, object]]:
    """Ranking rows (player, won, foundation cards it put up) in place order."""
    return [{"player": n, "place": i, "won": won, "time_ms": 1000 * put if put else None}
            for i, (n, won, put) in enumerate(rows, start=1)]


def fresh(*whos: str) -> dict[str, Line]:
    return {w: Line(w, w.upper()) for w in whos}


def play(lines: dict[str, Line], ranking: list[dict[str, object]], seats: dict[int, str]) -> None:
    lines.update(score_race(ranking, seats, lines))


def test_a_win_scores_two_and_the_loser_nothing() -> None:
    lines = fresh("a", "b")
    play(lines, rank((2, True, 80), (1, False, 40)), {1: "a", 2: "b"})
    assert (lines["b"].points, lines["b"].wins, lines["b"].streak) == (2, 1, 1)
    assert (lines["a"].points, lines["a"].races, lines["a"].streak) == (0, 1, 0)


def test_first_by_foundation_cards_scores_one_when_nobody_won_and_ends_a_streak() -> None:
    lines = {"a": Line("a", "A", points=4, streak=2), "b": Line("b", "B")}
    play(lines, rank((1, False, 30), (2, False, 50)), {1: "a", 2: "b"})
    assert lines["a"].points == 5 and lines["a"].streak == 0 and lines["a"].wins == 0
    assert lines["b"].points == 0


def test_a_first_place_that_put_no_card_up_scores_nothing() -> None:
    lines = fresh("a", "b")
    play(lines, rank((1, False, 0), (2, False, 0)), {1: "a", 2: "b"})
    assert lines["a"].points == 0 and lines["b"].points == 0


def test_after_two_wins_in_a_row_each_win_counts_double_until_a_non_win() -> None:
    lines = fresh("a", "b")
    seats = {1: "a", 2: "b"}
    gained = []
    for won in (True, True, True, True, False, True):
        before = lines["a"].points
        play(lines, rank((1, won, 50), (2, False, 10)) if won else rank((2, False, 60), (1, False, 10)),
             seats)
        gained.append(lines["a"].points - before)
    assert gained == [2, 2, 4, 4, 0, 2]
    assert lines["a"].wins == 5 and lines["a"].races == 6


def test_race_points_is_the_rule_itself() -> None:
    assert race_points(True, False, 0) == (2, 1)
    assert race_points(True, False, 1) == (2, 2)
    assert race_points(True, False, 2) == (4, 3)
    assert race_points(False, True, 5) == (1, 0)
    assert race_points(False, False, 5) == (0, 0)


def test_two_winners_of_one_race_both_score() -> None:
    lines = fresh("a", "b", "c")
    play(lines, rank((3, True, 90), (1, True, 95), (2, False, 20)), {1: "a", 2: "b", 3: "c"})
    assert [lines[w].points for w in "abc"] == [2, 0, 2]


def test_a_seat_missing_from_the_ranking_is_a_race_scoring_nothing() -> None:
    lines = {"a": Line("a", "A", streak=3, points=8), "b": Line("b", "B")}
    play(lines, rank((2, True, 70)), {1: "a", 2: "b"})
    assert lines["a"].points == 8 and lines["a"].races == 1 and lines["a"].streak == 0


def test_a_line_round_trips_through_its_stored_text() -> None:
    line = Line("n:ann", "Ann", points=7, races=4, wins=3, streak=2, claimed=True)
    assert Line.load(line.dump()) == line
    assert line.public(3) == {"rank": 3, "name": "Ann", "points": 7, "races": 4, "wins": 3,
                              "fire": True, "claimed": True}
    assert "who" not in line.public(1)  # the identity key never goes out


@pytest.mark.parametrize(("count", "group", "sizes"), [
    (0, 2, []), (1, 2, [1]), (2, 2, [2]), (3, 2, [2, 1]), (5, 2, [2, 2, 1]),
    (5, 4, [3, 2]), (7, 3, [3, 2, 2]), (8, 4, [4, 4]), (9, 8, [5, 4]),
])
def test_groups_are_as_even_as_possible_and_never_over_the_size(count: int, group: int,
                                                                 sizes: list[int]) -> None:
    assert split_sizes(count, group) == sizes
    assert sum(sizes) == count and all(s <= group for s in sizes)


def test_pairing_groups_neighbours_in_the_standing_and_leaves_one_out() -> None:
    waiting = [("a", 5), ("b", 1), ("c", 3), ("d", 2), ("e", 4)]
    points = {"a": 10, "b": 0, "c": 8, "d": 2, "e": 1}
    groups = pair(waiting, points, 2)
    assert groups == [["a", "c"], ["d", "e"]]  # b, last in the standing, waits for the next round
    assert all(len(g) >= 2 for g in groups)
    everyone = [w for g in groups for w in g]
    assert len(everyone) == len(set(everyone))  # nobody in two races


def test_equal_points_pair_by_how_long_they_waited() -> None:
    assert pair([("x", 30), ("y", 10), ("z", 20)], {}, 2) == [["y", "z"]]


def test_pairing_refuses_an_impossible_group_size() -> None:
    with pytest.raises(ValueError):
        pair([("a", 1), ("b", 2)], {}, 1)


def test_phases_follow_the_clock() -> None:
    assert phase(5, 10, 20, False) == "upcoming"
    assert phase(10, 10, 20, False) == "running"
    assert phase(20, 10, 20, False) == "closing"
    assert phase(15, 10, 20, True) == "finished"


def test_the_deal_set_is_bounded_by_the_arenas_length() -> None:
    assert max_rounds(60, 1000) == 3601
    assert max_rounds(1, 60_000) == 2


def test_the_schedule_is_parsed_and_checked() -> None:
    slots = parse_schedule("18:00 four-seasons 60; 06:30 klondike 30,", ["four-seasons", "klondike"])
    assert [(s.hour, s.minute, s.variant, s.minutes) for s in slots] == [
        (18, 0, "four-seasons", 60), (6, 30, "klondike", 30)]
    hourly = parse_schedule("*:15 klondike 30", ["klondike"])  # every hour, at a quarter past
    assert [(s.hour, s.minute) for s in hourly] == [(h, 15) for h in range(24)]
    assert len({scheduled_id(s, dt.date(2026, 12, 1)) for s in hourly}) == 24
    for bad in ("18:00 four-seasons", "25:00 klondike 30", "18:00 klondike 0", "x:00 klondike 5",
                "18:00 nosuch 30", "*:00 klondike 61", "**:00 klondike 30"):
        with pytest.raises(ScheduleError):
            parse_schedule(bad, ["four-seasons", "klondike"])


def test_a_scheduled_arena_is_due_an_hour_ahead_and_until_it_ends_with_one_id() -> None:
    slots = parse_schedule("18:00 klondike 60")
    day = dt.date(2026, 12, 1)
    start = int(dt.datetime(2026, 12, 1, 18, 0, tzinfo=dt.UTC).timestamp() * 1000)
    hour = 3_600_000
    assert due(slots, start - hour - 1, hour) == []
    assert due(slots, start - hour, hour) == [(scheduled_id(slots[0], day), slots[0], start)]
    assert due(slots, start + hour - 1, hour)[0][0] == scheduled_id(slots[0], day)
    assert due(slots, start + hour, hour) == []
    assert scheduled_id(slots[0], day) != scheduled_id(slots[0], day + dt.timedelta(days=1))
    assert len(scheduled_id(slots[0], day)) == 6
