"""The terminal client's report: ``!`` on the results or on a profile asks whom
(after a race), why and in a few words, then sends one ``report`` (pure); a
moderator's refusals are shown as the server words them."""

from __future__ import annotations

from typing import Any

from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.http11 import Response

from client.keys import UI, Command, context_of
from client.screens import press
from client.state import RaceState, apply
from client.wire import banned_address, describe_failure
from tests.unit.client.test_screen import T0
from tests.unit.client.test_screen_fit import profile_state, results


def keys(state: RaceState, seq: list[str], ui: UI, mode: str) -> tuple[UI, list[Command]]:
    sent: list[Command] = []
    for key in seq:
        ui, more = press(ui, key, mode=mode, state=state, ctx=context_of(state))
        sent += more
    return ui, sent


def typed(text: str) -> list[str]:
    return list(text)


def test_a_player_of_the_race_is_reported_from_the_results() -> None:
    st = results(True)
    ui, sent = keys(st, ["!"], UI(), "results")
    assert sent == [] and ui.text_purpose == "report_name"
    ui, sent = keys(st, [*typed("bob"), "enter", "7", "enter"], ui, "results")
    assert sent == [] and ui.note == "1, 2, 3 or 4"  # no such reason: asked again
    ui, sent = keys(st, ["1", "enter", *typed("won in 40 s"), "enter"], ui, "results")
    assert sent == [Command("report", "won in 40 s", kind="cheating", scope="bob\tK7QX2M")]
    assert ui.text is None and "reporting bob" in ui.note


def test_esc_cancels_a_report() -> None:
    ui, sent = keys(results(False), ["!", *typed("bob"), "enter", "escape"], UI(), "results")
    assert sent == [] and ui.text is None


def test_a_claimed_name_is_reported_from_its_profile() -> None:
    st = profile_state(2)
    ui, sent = keys(st, ["!", "2", "enter", "enter"], UI(menu="profile"), "lobby")
    assert sent == [Command("report", "", kind="offensive_name", scope="ann\t")]
    apply(st, {"t": "profile", "name": "gus", "claimed": False, "ratings": {}, "streaks": None}, T0)
    ui, sent = keys(st, ["!"], UI(menu="profile"), "lobby")
    assert sent == [] and ui.text is None and "claimed" in ui.note


def test_the_answer_and_the_refusals_are_said() -> None:
    st = results(False)
    apply(st, {"t": "reported", "name": "bob"}, T0)
    assert "report of bob is with the moderators" in st.notice
    apply(st, {"t": "error", "code": "banned", "message": "'ann' is banned from ranked play for good: x"}, T0)
    assert st.notice.startswith("'ann' is banned") and st.notice_error


def refused(status: int, body: bytes) -> InvalidStatus:
    return InvalidStatus(Response(status, "x", Headers(), body))


def test_a_banned_addresss_handshake_is_shown_with_its_reason() -> None:
    ban = refused(403, b"this address is banned for good: a flood of rooms\n")
    assert banned_address(ban) == "this address is banned for good: a flood of rooms"
    said = describe_failure("ws://h:1/", ban)
    assert said.endswith("refused this connection: this address is banned for good: a flood of rooms")
    other: Any = refused(403, b"nope")
    assert banned_address(other) == "" and "HTTP 403" in describe_failure("ws://h:1/", other)
    assert banned_address(refused(429, b"this address is banned")) == ""
