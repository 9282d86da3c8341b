"""Groups of a pairing round with no two players kept apart (one blocks the
other: docs/design/friends.md), without I/O.

An arena's round cuts its players into groups by standing; a player whose
group holds someone he is kept apart from moves to another group of the
round that has room and no such player, and otherwise waits for the next
round. A group left with one player waits too.
"""

from __future__ import annotations

from collections.abc import Callable


def keep_apart(groups: list[list[str]], apart: Callable[[str, str], bool],
               group_max: int) -> list[list[str]]:
    kept: list[list[str]] = []
    moved: list[str] = []
    for group in groups:
        mine: list[str] = []
        for who in group:
            if any(apart(who, other) for other in mine):
                moved.append(who)
            else:
                mine.append(who)
        kept.append(mine)
    for who in moved:
        home = next((g for g in kept if len(g) < group_max and not any(apart(who, o) for o in g)), None)
        if home is not None:
            home.append(who)
    return [g for g in kept if len(g) >= 2]
