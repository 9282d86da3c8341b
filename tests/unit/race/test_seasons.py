"""Season boundaries (server/race/seasons.py): calendar months by default, or
periods of N days from the epoch."""

from __future__ import annotations

import datetime as dt

from server.race.seasons import previous, season_at, valid_id


def ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp() * 1000)


def test_a_season_is_a_calendar_month_by_default() -> None:
    s = season_at(ms("2026-12-06T16:00:00"))
    assert (s.id, s.starts_ms) == ("2026-12-01", ms("2026-12-01T00:00:00"))
    assert s.ends_ms == ms("2027-01-01T00:00:00")
    # the last instant of a month and the first of the next fall either side of the turn
    assert season_at(ms("2027-01-01T00:00:00") - 1).id == "2026-12-01"
    assert season_at(ms("2027-01-01T00:00:00")).id == "2027-01-01"
    assert season_at(ms("2028-02-29T12:00:00")).ends_ms == ms("2028-03-01T00:00:00")


def test_a_period_of_days_counts_from_the_epoch() -> None:
    s = season_at(ms("2026-01-15T10:00:00"), 7)
    assert (s.id, s.ends_ms) == ("2026-01-15", ms("2026-01-22T00:00:00"))
    assert season_at(ms("2026-01-14T23:59:59"), 7).id == "2026-01-08"
    assert season_at(ms("2025-12-31T12:00:00"), 7).id == "2025-12-25"  # before the epoch too


def test_the_season_before() -> None:
    assert previous(season_at(ms("2027-01-10T00:00:00"))).id == "2026-12-01"
    assert previous(season_at(ms("2026-01-15T00:00:00"), 7), 7).id == "2026-01-08"


def test_only_seasons_that_have_begun_are_named() -> None:
    now = ms("2026-12-06T16:00:00")
    assert valid_id("2026-12-01", now) and valid_id("2025-01-01", now)
    assert not valid_id("2027-01-01", now)  # to come
    assert not valid_id("2026-12-02", now)  # not a season's first day
    assert not valid_id("2026-13-01", now) and not valid_id("x", now) and not valid_id("20261201", now)
    assert valid_id("2026-01-29", now, 7) and not valid_id("2026-01-30", now, 7)
