"""A notice belongs to the screen (and room) it came on; keys that used to surprise now ask."""

from __future__ import annotations

from client.keys import UI
from client.screens import press
from client.state import RaceState, apply
from tests.support.samples import VIEWS
from tests.support.serverdata import welcome

T0 = 1_000_000


def state() -> RaceState:
    st = RaceState(server="ws://h:1", name="ann")
    apply(st, welcome(T0), T0)
    return st


def enter_room(st: RaceState, code: str) -> None:
    apply(st, {"t": "joined", "code": code, "player": 1, "token": "x"}, T0)
    apply(st, {"t": "room", "code": code, "variant": "four-seasons", "phase": "lobby",
               "players": [{"player": 1, "name": "ann"}], "server_time": T0}, T0)


def test_the_claim_notice_stays_in_the_lobby() -> None:
    st = state()
    apply(st, {"t": "claimed", "name": "ann", "key": "k"}, T0)
    assert "is yours" in st.notice
    enter_room(st, "R1")
    assert st.notice == ""
    st.leave_room()
    st.expire_notice()
    assert st.notice == ""  # back in the lobby, the old notice does not come back


def test_the_rematch_notice_and_an_old_error_do_not_follow_into_the_next_race() -> None:
    st = state()
    enter_room(st, "R1")
    apply(st, {"t": "view", "v": 0, "seq": None, "view": VIEWS["four-seasons"]}, T0)
    apply(st, {"t": "error", "code": "illegal_move", "seq": 3, "message": "the waste is empty"}, T0)
    assert st.notice_error
    apply(st, {"t": "results", "code": "R1", "ranking": []}, T0)
    assert st.notice == ""
    apply(st, {"t": "rematch", "code": "R2"}, T0)
    assert st.notice == "rematch in room R2"
    enter_room(st, "R2")
    assert st.notice == ""


def test_a_lobby_error_stays_while_the_player_is_on_that_screen() -> None:
    st = state()
    apply(st, {"t": "error", "code": "no_room", "message": "no room has the code 'ZZ'"}, T0)
    apply(st, {"t": "pong", "server_time": T0}, T0)
    assert st.notice.startswith("no room")


def test_escape_in_the_lobby_asks_before_quitting() -> None:
    ui, sent = press(UI(), "escape", mode="lobby")
    assert sent == [] and ui.confirm == "quit" and "y to quit" in ui.note
    assert press(ui, "n", mode="lobby")[1] == []
    ui, _ = press(UI(), "escape", mode="lobby")
    assert [c.name for c in press(ui, "y", mode="lobby")[1]] == ["quit"]
    assert [c.name for c in press(UI(), "q", mode="lobby")[1]] == ["quit"]  # q says what it does
