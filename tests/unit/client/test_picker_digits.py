"""The variant picker takes numbers of more than one digit: ``12`` is variant 12."""

from __future__ import annotations

from client.keys import UI, Command, context_of
from client.screens import press
from client.state import RaceState, apply
from tests.support.serverdata import VARIANTS, welcome
from tests.unit.client.test_screen import T0


def typed(keys: list[str], purpose: str = "quick") -> tuple[UI, list[Command]]:
    st = RaceState(server="ws://host:1", name="ann")
    apply(st, welcome(T0), T0)
    ui, sent = UI(menu="pick", purpose=purpose), []
    for key in keys:
        ui, more = press(ui, key, mode="lobby", state=st, ctx=context_of(st))
        sent += more
    return ui, sent


def test_two_digits_pick_a_variant_past_nine() -> None:
    assert len(VARIANTS) >= 12
    ui, sent = typed(["1"])
    assert sent == [] and ui.cursor == 0 and "another digit" in ui.note  # 1 of 1x: wait
    ui, sent = typed(["1", "2"])
    assert sent == [Command("quick", VARIANTS[11].id)]
    ui, sent = typed(["1", "enter"])
    assert sent == [Command("quick", VARIANTS[0].id)]


def test_a_digit_no_longer_number_can_start_with_is_chosen_at_once() -> None:
    _, sent = typed(["2"])
    assert sent == [Command("quick", VARIANTS[1].id)]
    _, sent = typed(["1", "9"])  # no variant 19: the 9 is a number of its own
    assert sent == [Command("quick", VARIANTS[8].id)]


def test_a_number_no_variant_has_says_so_and_moving_forgets_the_digits() -> None:
    ui, sent = typed(["0"])
    assert sent == [] and ui.note.startswith("no variant 0")
    ui, sent = typed(["1", "down"])
    assert sent == [] and ui.digits == "" and ui.cursor == 1
    ui, sent = typed(["1", "backspace"])
    assert ui.menu == "pick" and ui.digits == ""
