"""The client shows a player's connection as the newest message says (pure)."""

from __future__ import annotations

from typing import Any

from client.keys import UI
from client.screens import render
from client.state import RaceState, apply
from client.text import text_lines
from tests.support.samples import VIEWS


def _room(connected: bool) -> dict[str, Any]:
    players = [{"player": 1, "name": "ann", "ready": True, "connected": True, "left": False,
                "status": "in_progress", "foundation_cards": 4, "moves": 1},
               {"player": 2, "name": "bob", "ready": True, "connected": connected, "left": False,
                "status": "in_progress", "foundation_cards": 4, "moves": 3}]
    return {"t": "room", "code": "ABC", "variant": "four-seasons", "players_max": 2, "private": True,
            "phase": "racing", "players": players, "starts_at": 1, "ends_at": 10**13,
            "total_cards": 52, "server_time": 2}


def test_a_room_message_saying_a_player_is_back_beats_an_older_progress_message() -> None:
    state = RaceState(name="ann")
    apply(state, {"t": "joined", "code": "ABC", "player": 1, "token": "ABC.1.x"}, 0)
    apply(state, _room(True), 0)
    # a resync after an outage said bob was gone
    apply(state, {"t": "progress", "player": 2, "status": "in_progress", "foundation_cards": 4,
                  "total_cards": 52, "moves": 3, "connected": False}, 0)
    assert state.progress[2]["connected"] is False
    apply(state, _room(True), 0)  # bob resumed: the server says so to everyone
    assert state.progress[2]["connected"] is True
    apply(state, _room(False), 0)
    assert state.progress[2]["connected"] is False


def test_the_race_screen_stops_showing_disconnected_once_the_room_says_connected() -> None:
    state = RaceState(name="ann")
    apply(state, {"t": "joined", "code": "ABC", "player": 1, "token": "ABC.1.x"}, 0)
    apply(state, {"t": "progress", "player": 2, "status": "in_progress", "foundation_cards": 4,
                  "total_cards": 52, "moves": 3, "connected": False}, 0)
    apply(state, {"t": "view", "v": 1, "seq": None, "view": VIEWS["four-seasons"]}, 0)
    assert "disconnected" in "\n".join(text_lines(render(state, UI(), now_ms=5, width=80, height=24)))
    apply(state, _room(True), 0)
    assert "disconnected" not in "\n".join(text_lines(render(state, UI(), now_ms=5, width=80, height=24)))


def test_two_players_of_one_name_stay_apart_even_when_names_are_abbreviated() -> None:
    from client.text import player_name

    long = "abcdefghijklmnopqrstuvwx"
    assert player_name(f"{long} #2", 16).endswith(" #2")
    assert player_name(f"{long} #2", 16) != player_name(long, 16)
    assert len(player_name(f"{long} #2", 16)) == 16
    assert player_name("sam #2", 16) == "sam #2"
    state = RaceState(name="sam")
    apply(state, {"t": "joined", "code": "ABC", "player": 1, "token": "ABC.1.x"}, 0)
    room = _room(True)
    room["players"][0]["name"], room["players"][1]["name"] = long, f"{long} #2"
    room["phase"], room["starts_at"], room["ends_at"] = "lobby", None, None
    apply(state, room, 0)
    shown = "\n".join(text_lines(render(state, UI(), now_ms=5, width=80, height=24)))
    assert " #2" in shown


def test_the_results_screen_shows_a_rematch_offer_and_whom_it_waits_for() -> None:
    state = RaceState(name="ann")
    apply(state, {"t": "joined", "code": "ABC", "player": 1, "token": "ABC.1.x"}, 0)
    room = _room(True)
    room["phase"] = "finished"
    apply(state, room, 0)
    apply(state, {"t": "results", "code": "ABC", "variant": "four-seasons", "deal": "1",
                  "ranking": [{"place": 1, "player": 1, "name": "ann"},
                              {"place": 2, "player": 2, "name": "bob"}]}, 0)

    def text() -> str:
        return "\n".join(text_lines(render(state, UI(), now_ms=5, width=80, height=24)))

    assert "offered a rematch" not in text() and "n no rematch" in text()
    apply(state, {"t": "rematch_offer", "code": "ABC", "player": 2, "accept": True,
                  "accepted": [2], "players": [1, 2]}, 0)
    assert "bob offered a rematch: m accept" in text()
    apply(state, {"t": "rematch_offer", "code": "ABC", "player": 1, "accept": True,
                  "accepted": [1], "players": [1, 2]}, 0)
    assert "waiting for bob" in text()
    apply(state, {"t": "rematch_offer", "code": "ABC", "player": 2, "accept": False,
                  "accepted": [1], "players": [1, 2]}, 0)
    assert "bob declined a rematch" in text()
