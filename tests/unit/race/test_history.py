"""A kept game's entry: built from a finished room's results, packed and read back."""

from __future__ import annotations

from typing import Any

import pytest

from server.race.history import GameEntry, daily_item, entries_of, mode_of, pack_entry, unpack_entry, win_rate
from server.race.rows import PlayerRow, RoomRow


def finished(**kw: Any) -> RoomRow:
    players = [PlayerRow(1, "Ann", status="won", fc=52, done_ms=61_000, ident="Ann", v=90),
               PlayerRow(2, "bob", status="resigned", fc=20, ident=None, v=40),
               PlayerRow(3, "Bot", status="in_progress", fc=30, ident="Cy", bot=3, v=70),
               PlayerRow(4, "dee", status="in_progress", fc=25, ident="Dee", v=50)]
    return RoomRow("ABCDEF", "four-seasons", "24", 4, 2, False, "finished", 0, 120_000, players, **kw)


RESULTS: dict[str, Any] = {"ranking": [
    {"place": 1, "player": 1, "name": "Ann", "won": True, "status": "won", "time_ms": 61_000,
     "foundation_cards": 52, "total_cards": 52, "moves": 90},
    {"place": 2, "player": 3, "name": "Bot", "won": False, "status": "timed_out", "time_ms": 9_000,
     "foundation_cards": 30, "total_cards": 52, "moves": 70},
    {"place": 3, "player": 4, "name": "dee", "won": False, "status": "timed_out", "time_ms": 8_000,
     "foundation_cards": 25, "total_cards": 52, "moves": 50},
    {"place": 4, "player": 2, "name": "bob", "won": False, "status": "resigned", "time_ms": None,
     "foundation_cards": 20, "total_cards": 52, "moves": 40}],
    "ratings": {"Ann": 3.5, "Dee": -1.25}, "ratings_before": {"Ann": 0.0, "Dee": 0.0}}

LOGS = {1: [(100, "t3-f1"), (1_250, "draw")], 3: [(5, "draw")], 4: [(900, "draw"), (950, "t1-t2")]}


def test_one_entry_per_claimed_person_never_a_guest_or_a_bot() -> None:
    entries = entries_of(finished(), RESULTS, LOGS, 123_456, None)
    assert [(e.n, e.name) for e in entries] == [(1, "Ann"), (4, "dee")]
    ann, dee = entries
    assert ann.field == ("Ann", "Bot", "dee", "bob") and ann.place == 1 and ann.won and ann.race_win
    assert ann.ranked and ann.rating == (0.0, 3.5) and ann.log == ((100, "t3-f1"), (1_250, "draw"))
    assert dee.place == 3 and not dee.won and not dee.race_win and dee.status == "timed_out"
    assert dee.at == 123_456 and dee.mode == "race" and dee.deal == "24"


def test_unrated_games_are_not_ranked() -> None:
    results = dict(RESULTS, ratings={}, ratings_before={})
    assert not any(e.ranked or e.rating for e in entries_of(finished(), results, LOGS, 1, None))


@pytest.mark.parametrize(("kw", "ghost", "mode"), [
    ({}, None, "race"), ({"arena": "A1"}, None, "arena"), ({"daily": "2026-12-01"}, None, "daily"),
    ({"solo": True}, None, "solo"), ({}, "XYZ.1", "ghost")])
def test_the_kind_of_game(kw: dict[str, Any], ghost: str | None, mode: str) -> None:
    assert mode_of(finished(**kw), ghost) == mode


def test_a_ranked_daily_and_its_item() -> None:
    room = finished(daily="2026-12-01")
    room.players = room.players[:1]
    results = {"ranking": RESULTS["ranking"][:1], "ranked": True}
    (entry,) = entries_of(room, results, LOGS, 5, None)
    assert entry.ranked and entry.mode == "daily" and not entry.race_win  # a daily is no race
    assert daily_item(entry) == {"date": "2026-12-01", "variant": "four-seasons", "won": True,
                                 "ranked": True, "foundation_cards": 52, "total_cards": 52,
                                 "time_ms": 61_000, "code": "ABCDEF"}


def test_an_entry_packs_small_and_reads_back_whole() -> None:
    log = tuple((i * 1_700, "t3-f1" if i % 2 else "draw") for i in range(120))
    entry = GameEntry("ABCDEF", 1_765_000_000_000, "four-seasons", "12345678901234567890", "race", True,
                      None, None, 2, "ann", ("bob", "ann"), 2, False, "timed_out", 31, 52, 88_000, 120,
                      True, (1.5, 2.25), log)
    packed = pack_entry(entry)
    assert unpack_entry(packed) == entry
    assert len(packed) < 400  # the record, compressed: a few bytes a move
    summary = entry.summary()
    assert "deal" not in summary and "log" not in summary and summary["rating_after"] == 2.25


EMPTY_ZLIB = b"x\x9c\x03\x00\x00\x00\x00\x01"  # zlib of nothing: no msgpack in it


@pytest.mark.parametrize("junk", [b"", b"\x02abc", b"\x01not zlib", b"\x01" + EMPTY_ZLIB])
def test_anything_else_is_refused(junk: bytes) -> None:
    with pytest.raises(ValueError):
        unpack_entry(junk)


def test_win_rate() -> None:
    assert win_rate(0, 0) is None and win_rate(1, 3) == 0.333 and win_rate(2, 2) == 1.0
