"""An arena round's groups keep blocked players apart, moving one elsewhere when it can."""

from __future__ import annotations

from collections.abc import Callable

from server.race.apart import keep_apart


def blocks(*pairs: tuple[str, str]) -> Callable[[str, str], bool]:
    kept = {frozenset(p) for p in pairs}
    return lambda a, b: frozenset((a, b)) in kept


def test_groups_without_blocks_stay_as_they_are() -> None:
    groups = [["a", "b"], ["c", "d"]]
    assert keep_apart(groups, blocks(), 2) == [["a", "b"], ["c", "d"]]


def test_a_blocked_player_moves_to_a_group_with_room_or_waits() -> None:
    apart = blocks(("a", "b"))
    assert keep_apart([["a", "b", "c"], ["d", "e"]], apart, 3) == [["a", "c"], ["d", "e", "b"]]
    # no group has room: b waits for the next round
    assert keep_apart([["a", "b", "c"], ["d", "e", "f"]], apart, 3) == [["a", "c"], ["d", "e", "f"]]
    # a group of two blocked: neither races the other, a lone player waits
    assert keep_apart([["a", "b"]], apart, 2) == []
    # nor joins a group where someone blocks him: b waits, and a alone waits too
    assert keep_apart([["a", "b"], ["a2", "c"]], blocks(("a", "b"), ("b", "c")), 3) == [["a2", "c"]]
