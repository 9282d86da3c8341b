"""The terminal client's profile screen: asked from the boards menu with a name,
drawn from the server's ``profile`` answer (pure)."""

from __future__ import annotations

from client.keys import UI, Command, context_of
from client.screens import press, render
from client.state import RaceState, apply
from client.text import text_lines
from tests.support.serverdata import welcome
from tests.unit.client.test_screen import T0
from tests.unit.client.test_screen_fit import profile_state


def keys(state: RaceState, seq: list[str], ui: UI) -> tuple[UI, list[Command]]:
    sent: list[Command] = []
    for key in seq:
        ui, more = press(ui, key, mode="lobby", state=state, ctx=context_of(state))
        sent += more
    return ui, sent


def lobby(name: str = "ann") -> RaceState:
    st = RaceState(server="ws://host:1", name=name)
    apply(st, welcome(T0), T0)
    return st


def test_the_boards_menu_asks_for_a_name_starting_from_ones_own() -> None:
    st = lobby()
    ui, sent = keys(st, ["6", "4"], UI())
    assert sent == [] and ui.text == "ann" and ui.text_purpose == "profile"
    ui, sent = keys(st, ["enter"], ui)
    assert sent == [Command("profile", "ann")] and ui.menu == "profile"
    ui, sent = keys(st, ["6", "4", "backspace", "backspace", "backspace", "b", "o", "b", "enter"], UI())
    assert sent == [Command("profile", "bob")]
    _, sent = keys(st, ["6", "4"] + ["backspace"] * 3 + ["enter"], UI())
    assert sent == []  # no name, nothing asked


def test_the_profile_shows_each_rating_its_trend_and_the_streaks() -> None:
    st = profile_state(3)
    text = "\n".join(text_lines(render(st, UI(menu="profile"), now_ms=T0, width=80, height=24)))
    assert "Profile \u00b7 ann" in text
    first = st.variants[0].name
    row = next(line for line in text.splitlines() if first in line)
    assert "25.00" in row and "1.50" in row and "3?" in row  # provisional: fewer races than needed
    assert "20.0 -> 25.0 (5)" in row
    assert "daily streak 4 days (best 12)" in text and "ranked daily wins 30" in text


def test_an_unclaimed_name_says_so_and_keys_refresh_and_go_back() -> None:
    st = lobby()
    apply(st, {"t": "profile", "name": "zed", "claimed": False}, T0)
    text = "\n".join(text_lines(render(st, UI(menu="profile"), now_ms=T0, width=80, height=24)))
    assert "zed is not claimed" in text
    ui, sent = keys(st, ["r"], UI(menu="profile"))
    assert sent == [Command("profile", "zed")]
    ui, sent = keys(st, ["escape"], UI(menu="profile"))
    assert ui.menu == "boards" and sent == []
    ui, sent = keys(st, ["n"], UI(menu="profile"))
    assert ui.text == "" and ui.text_purpose == "profile"


def test_more_variants_than_rows_say_how_many_are_left_out() -> None:
    screen = render(profile_state(18), UI(menu="profile"), now_ms=T0, width=80, height=24)
    text = "\n".join(text_lines(screen))
    assert "and 11 more variants" in text
