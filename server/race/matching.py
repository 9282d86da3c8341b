"""Pairing by skill without I/O: the rating window that widens with the wait,
the groups one pairing round makes, and the bot level that matches a rating
(docs/design/ladder.md, "Pairing by skill").

Two waiting players may race when each lies within the other's window, so a
newcomer's narrow window protects him from the top of the board as long as it
is narrow, and a long wait on either side does not drag the other outside his
own. A group (two to the configured size) holds players all within the
narrowest window among them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

WINDOW_START: Final = 2.0  # ordinal points either side at once
WINDOW_GROWTH: Final = 0.75  # points more per second waited
WINDOW_MAX: Final = 25.0  # reached after about 31 s: anyone of nearly any rating
BOT_LEVEL_BANDS: Final = (0.0, 6.0, 12.0, 18.0)  # ordinals from which levels 2, 3, 4, 5 start


def window(waited_ms: int) -> float:
    """How far from a player's rating, either side, he may be paired after this wait."""
    return min(WINDOW_START + WINDOW_GROWTH * max(waited_ms, 0) / 1000.0, WINDOW_MAX)


@dataclass(frozen=True)
class Ticket:
    """One player waiting for a quick race of a variant."""

    id: str
    rating: float  # the ordinal of the variant's rating (a new name's: that of a new rating)
    since_ms: int


def bot_level(rating: float) -> int:
    """The bot level (1-5) that matches an ordinal."""
    return 1 + sum(1 for edge in BOT_LEVEL_BANDS if rating >= edge)


def pair(tickets: list[Ticket], now_ms: int, size: int,
         apart: Callable[[Ticket, Ticket], bool] | None = None) -> list[list[Ticket]]:
    """One pairing round: groups of two to ``size`` players, the longest waiting
    served first; who is left waits for the next round. ``apart``: two tickets
    that must never race together (one's name blocks the other's)."""
    left = sorted(tickets, key=lambda t: (t.since_ms, t.id))
    reach = {t.id: window(now_ms - t.since_ms) for t in left}
    groups: list[list[Ticket]] = []
    taken: set[str] = set()
    for first in left:
        if first.id in taken:
            continue
        group = [first]
        low = high = first.rating
        narrow = reach[first.id]
        # the closest in rating first: the group stays as tight as it can
        for other in sorted((t for t in left if t.id not in taken and t.id != first.id),
                            key=lambda t: (abs(t.rating - first.rating), t.since_ms)):
            if len(group) == size:
                break
            if apart is not None and any(apart(g, other) for g in group):
                continue
            lo, hi = min(low, other.rating), max(high, other.rating)
            tightest = min(narrow, reach[other.id])
            if hi - lo <= tightest:
                group.append(other)
                low, high, narrow = lo, hi, tightest
        if len(group) >= 2:
            groups.append(group)
            taken.update(t.id for t in group)
    return groups


def first_come(tickets: list[Ticket], size: int) -> list[list[Ticket]]:
    """What a quick race did before pairing by skill: whoever waits, in order of
    arrival, in groups of up to ``size`` (the measurement's baseline)."""
    left = sorted(tickets, key=lambda t: (t.since_ms, t.id))
    groups = [left[i:i + size] for i in range(0, len(left), size)]
    return [g for g in groups if len(g) >= 2]
