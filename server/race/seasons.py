"""Seasons without I/O: which season an instant falls in, its bounds, and the
one before it (docs/design/ladder.md).

A season is a calendar month in UTC by default; a deployment may set a period
of N days instead (``PATIENCE_SEASON_DAYS``), counted from the daily
challenge's epoch. A season is named by the UTC day it starts on, so its id
sorts with time and says when it began.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

from .daily import EPOCH

MONTH: Final = 0  # season_days 0: calendar months
_UTC = dt.UTC


@dataclass(frozen=True)
class Season:
    id: str  # the UTC day it starts, YYYY-MM-DD
    starts_ms: int
    ends_ms: int  # the first instant of the next season


def _ms(day: dt.date) -> int:
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=_UTC).timestamp() * 1000)


def _from(start: dt.date, end: dt.date) -> Season:
    return Season(start.isoformat(), _ms(start), _ms(end))


def season_at(now_ms: int, days: int = MONTH) -> Season:
    """The season that holds the instant ``now_ms``."""
    today = dt.datetime.fromtimestamp(now_ms / 1000, _UTC).date()
    if days == MONTH:
        start = today.replace(day=1)
        end = (start + dt.timedelta(days=32)).replace(day=1)
        return _from(start, end)
    index = (today - EPOCH).days // days
    start = EPOCH + dt.timedelta(days=index * days)
    return _from(start, start + dt.timedelta(days=days))


def previous(season: Season, days: int = MONTH) -> Season:
    """The season just before ``season``."""
    return season_at(season.starts_ms - 1, days)


def valid_id(text: str, now_ms: int, days: int = MONTH) -> bool:
    """``text`` names a season that has begun (the current one or a past one)."""
    try:
        start = dt.date.fromisoformat(text)
    except ValueError:
        return False
    if len(text) != 10:
        return False
    season = season_at(_ms(start), days)
    return season.id == text and season.starts_ms <= now_ms
