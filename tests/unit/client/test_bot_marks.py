"""The client marks a bot as a bot: in the race's progress rows, the lobby and the results."""

from __future__ import annotations

from client.state import RaceState, apply
from tests.support.samples import VIEWS
from tests.unit.client.test_screen import T0, lines, racing


def with_bot(st: RaceState, phase: str) -> None:
    players = [{"player": 1, "name": "ann", "ready": True, "connected": True, "bot": 0},
               {"player": 2, "name": "Club bot", "ready": True, "connected": True, "bot": 3}]
    apply(st, {"t": "room", "code": "K7QX2M", "variant": "four-seasons", "phase": phase,
               "players": players, "starts_at": T0 - 61_000, "ends_at": T0 + 839_000,
               "total_cards": 52, "server_time": T0}, T0)


def test_a_bot_is_marked_in_the_race_and_a_person_is_not() -> None:
    st = racing(VIEWS["four-seasons"], progress={2: 5})
    with_bot(st, "racing")
    text = "\n".join(lines(st))
    assert "Club bot [bot 3]" in text
    assert "ann [bot" not in text
    # the same text in --ascii (no glyph needed to tell a bot)
    assert "[bot 3]" in "\n".join(lines(st, ascii_only=True))


def test_a_bot_is_marked_in_the_lobby_and_the_results() -> None:
    st = RaceState(server="ws://test", name="ann")
    apply(st, {"t": "welcome", "proto": 1, "server_time": T0}, T0)
    apply(st, {"t": "joined", "code": "K7QX2M", "player": 1, "token": "x"}, T0)
    with_bot(st, "lobby")
    assert any("Club bot [bot 3]" in line for line in lines(st))
    st = racing(VIEWS["four-seasons"])
    with_bot(st, "racing")
    apply(st, {"t": "results", "code": "K7QX2M", "variant": "four-seasons", "deal": "1",
               "ranking": [{"place": 1, "player": 2, "name": "Club bot", "won": True, "status": "won",
                            "time_ms": 60_000, "foundation_cards": 52, "total_cards": 52, "moves": 90,
                            "bot": 3},
                           {"place": 2, "player": 1, "name": "ann", "won": False, "status": "resigned",
                            "time_ms": 1000, "foundation_cards": 3, "total_cards": 52, "moves": 4,
                            "bot": 0}]}, T0)
    text = "\n".join(lines(st))
    assert "Club bot [bot 3]" in text and "ann [bot" not in text


def test_a_bot_account_is_marked_in_the_lobby() -> None:
    st = RaceState(server="ws://test", name="ann")
    apply(st, {"t": "welcome", "proto": 1, "server_time": T0}, T0)
    apply(st, {"t": "joined", "code": "K7QX2M", "player": 1, "token": "x"}, T0)
    players = [{"player": 1, "name": "ann", "ready": True, "connected": True, "bot": 0,
                "bot_account": False},
               {"player": 2, "name": "robo", "ready": True, "connected": True, "bot": 0,
                "bot_account": True}]
    apply(st, {"t": "room", "code": "K7QX2M", "variant": "four-seasons", "phase": "lobby",
               "players": players, "starts_at": None, "ends_at": None, "total_cards": 52,
               "server_time": T0}, T0)
    text = "\n".join(lines(st))
    assert "robo [bot]" in text and "ann [bot" not in text
