"""Leaving, in the client's state: a late update of the room just left is not
taken back up, and the results of a race left before its end come to the lobby."""

from __future__ import annotations

from typing import Any

from client.screens.lobby import away_line
from client.state import RaceState, apply, mode


def room(code: str, left: bool = False) -> dict[str, Any]:
    return {"t": "room", "code": code, "phase": "lobby",
            "players": [{"player": 1, "name": "ann", "left": left}]}


def test_a_late_update_of_the_room_left_does_not_bring_it_back() -> None:
    state = RaceState(name="ann")
    apply(state, {"t": "joined", "code": "ABC", "player": 1, "token": "t"}, 0)
    apply(state, room("ABC"), 0)
    state.leave_room()
    apply(state, room("ABC", left=True), 0)  # sent before the leave was handled
    assert mode(state) == "lobby" and state.code is None
    apply(state, {"t": "joined", "code": "ABC", "player": 1, "token": "u"}, 0)  # joining it again
    apply(state, room("ABC"), 0)
    assert mode(state) == "room"


def results(code: str) -> dict[str, Any]:
    return {"t": "results", "code": code, "ranking": [
        {"place": 1, "player": 2, "name": "bot", "won": True, "foundation_cards": 52, "total_cards": 52},
        {"place": 2, "player": 1, "name": "ann", "won": False, "status": "resigned",
         "foundation_cards": 9, "total_cards": 52}]}


def racing(code: str) -> RaceState:
    state = RaceState(name="ann")
    apply(state, {"t": "joined", "code": code, "player": 1, "token": "t"}, 0)
    apply(state, {"t": "view", "v": 3, "view": {"status": "resigned"}}, 0)
    return state


def test_the_results_of_a_race_left_come_to_the_lobby_and_take_no_screen() -> None:
    state = racing("ABC")
    state.leave_room()
    apply(state, {"t": "joined", "code": "XYZ", "player": 1, "token": "u"}, 0)  # another room since
    apply(state, results("ABC"), 0)
    assert mode(state) == "room" and state.results is None
    assert [away_line(r) for r in state.away_results] == ["race ABC is over: you placed 2 of 2 (9/52 cards)"]
    apply(state, results("ABC"), 0)  # again: no second line
    assert len(state.away_results) == 1


def test_results_of_a_room_never_left_racing_are_ignored() -> None:
    state = RaceState(name="ann")
    apply(state, results("ABC"), 0)
    assert state.results is None and state.away_results == []
