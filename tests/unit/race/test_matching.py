"""Pairing by skill (server/race/matching.py): the widening window, the groups
of a round, and the bot level of a rating."""

from __future__ import annotations

from server.race.matching import (
    WINDOW_GROWTH,
    WINDOW_MAX,
    WINDOW_START,
    Ticket,
    bot_level,
    first_come,
    pair,
    window,
)


def test_the_window_widens_with_the_wait_up_to_its_cap() -> None:
    assert window(0) == WINDOW_START
    assert window(4000) == WINDOW_START + 4 * WINDOW_GROWTH
    assert window(10_000) > window(5000) > window(0)
    assert window(10**9) == WINDOW_MAX and window(-5) == WINDOW_START


def test_players_far_apart_wait_until_both_windows_reach() -> None:
    newcomer, expert = Ticket("n", 0.0, 0), Ticket("e", 12.0, 0)
    assert pair([newcomer, expert], 1000, 4) == []
    # 12 points apart: both windows reach 12 after (12 - 2) / 0.75 s
    reach_ms = int((12.0 - WINDOW_START) / WINDOW_GROWTH * 1000) + 1
    assert pair([newcomer, expert], reach_ms, 4) == [[expert, newcomer]]  # ties in wait: by id


def test_each_must_lie_in_the_others_window() -> None:
    """A long wait widens one's own window, not the other's."""
    old, fresh = Ticket("old", 0.0, 0), Ticket("new", 10.0, 59_000)
    assert pair([old, fresh], 60_000, 4) == []  # the newcomer's window is still narrow


def test_a_round_makes_tight_groups_up_to_the_size() -> None:
    ts = [Ticket(f"p{i}", r, 0) for i, r in enumerate([1.0, 1.5, 20.0, 2.0, 20.5, 2.5, 40.0])]
    groups = pair(ts, 0, 3)
    names = [sorted(t.id for t in g) for g in groups]
    assert ["p0", "p1", "p3"] in names  # 1.0, 1.5, 2.0: within 2 points of each other
    assert ["p2", "p4"] in names
    assert all(len(g) <= 3 for g in groups)
    assert "p6" not in {t.id for g in groups for t in g}  # alone at 40: waits


def test_the_longest_waiting_is_served_first() -> None:
    a, b, c = Ticket("a", 5.0, 0), Ticket("b", 5.5, 900), Ticket("c", 4.6, 800)
    (group,) = pair([b, c, a], 1000, 2)
    assert group[0] == a and group[1] == c  # a waited longest; c is closest to it


def test_first_come_ignores_ratings() -> None:
    ts = [Ticket(f"p{i}", r, i) for i, r in enumerate([0.0, 30.0, 1.0, 29.0, 5.0])]
    assert [[t.id for t in g] for g in first_come(ts, 2)] == [["p0", "p1"], ["p2", "p3"]]


def test_a_bot_level_matches_the_rating() -> None:
    assert [bot_level(r) for r in (-3.0, 0.0, 7.0, 12.0, 30.0)] == [1, 2, 3, 4, 5]
