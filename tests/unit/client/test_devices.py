"""The terminal client's devices: the recovery codes shown once, the devices
screen's keys, and the input lines that link or recover a name (pure)."""

from __future__ import annotations

from client.screens import press, render, screen_of
from client.state import RaceState, apply
from client.text import text_lines
from client.ui import UI, Command, Context
from tests.unit.client.test_competition import T0, lobby

NAME = "Annabelle-the-Quick"
CODES = [f"{i}KQ2-M9XD-4H7Q-2ZM{i}" for i in range(8)]


def codes_shown() -> RaceState:
    st = lobby(name="guest")
    apply(st, {"t": "claimed", "name": NAME, "key": "k" * 32, "device": "1f0c9a2b", "recovery": CODES}, T0)
    return st


def many_devices() -> RaceState:
    st = lobby(True, NAME)
    apply(st, {"t": "devices", "devices": [
        {"id": f"{i:08x}", "label": "terminal on a-rather-long-hostname"[:32], "created": T0, "used": T0,
         "this": i == 0} for i in range(10)]}, T0)
    apply(st, {"t": "link_code", "code": "4H7Q-2ZMB", "expires_at": T0 + 600_000}, T0)
    return st


def shown(st: RaceState, ui: UI) -> str:
    return "\n".join(text_lines(render(st, ui, now_ms=T0, width=80, height=24)))


def test_the_recovery_codes_come_up_once_at_the_claim_until_enter() -> None:
    st = codes_shown()
    assert screen_of(st, UI(), "lobby") == "codes"
    text = shown(st, UI())
    assert all(code in text for code in CODES) and "password manager" in text
    ui, commands = press(UI(), "1", mode="lobby", state=st)
    assert commands == [] and "Enter" in ui.note  # a stray key does not lose them
    _, commands = press(UI(), "enter", mode="lobby", state=st)
    assert commands == [Command("codes_seen")]
    st.recovery_codes = []  # what codes_seen does
    assert screen_of(st, UI(), "lobby") == "lobby"


def test_the_devices_screen_lists_them_and_its_keys_ask_the_server() -> None:
    st = many_devices()
    text = shown(st, UI(menu="devices"))
    assert "this device" in text and "--link 4H7Q-2ZMB" in text.replace("\n", " ")
    ctx = Context(name=NAME, claimed=True)
    _, commands = press(UI(), "d", mode="lobby", state=lobby(True, NAME), ctx=ctx)
    assert commands == [Command("devices")]
    at_devices = UI(menu="devices")
    assert press(at_devices, "l", mode="lobby", state=st, ctx=ctx)[1] == [Command("link_code")]
    ui, commands = press(at_devices, "k", mode="lobby", state=st, ctx=ctx)
    assert commands == [] and ui.confirm == "rotate_key"
    assert press(ui, "y", mode="lobby", state=st, ctx=ctx)[1] == [Command("rotate_key")]
    ui, _ = press(at_devices, "c", mode="lobby", state=st, ctx=ctx)
    assert press(ui, "y", mode="lobby", state=st, ctx=ctx)[1] == [Command("recovery_codes")]
    ui, _ = press(at_devices, "x", mode="lobby", state=st, ctx=ctx)
    for key in "11":
        ui, _ = press(ui, key, mode="lobby", state=st, ctx=ctx)
    ui, commands = press(ui, "enter", mode="lobby", state=st, ctx=ctx)
    assert commands == [] and "number" in ui.note  # 11 is no device of the list
    _, commands = press(replace_text(ui, "2"), "enter", mode="lobby", state=st, ctx=ctx)
    assert commands == [Command("revoke", num=2)]


def replace_text(ui: UI, text: str) -> UI:
    from dataclasses import replace

    return replace(ui, text=text, text_purpose="revoke")


def test_a_guest_links_this_device_with_a_name_then_a_code() -> None:
    st = lobby(False, "guest")
    ctx = Context(name="guest", claimed=False)
    ui, _ = press(UI(menu="devices"), "n", mode="lobby", state=st, ctx=ctx)
    assert ui.text_purpose == "link_name"
    for key in "ann":
        ui, _ = press(ui, key, mode="lobby", state=st, ctx=ctx)
    ui, commands = press(ui, "enter", mode="lobby", state=st, ctx=ctx)
    assert commands == [] and ui.text_purpose == "link" and ui.target == "ann"
    for key in "4h7q-2zmb":
        ui, _ = press(ui, key, mode="lobby", state=st, ctx=ctx)
    ui, commands = press(ui, "enter", mode="lobby", state=st, ctx=ctx)
    assert commands == [Command("redeem", "4h7q-2zmb", kind="link", scope="ann")]
    assert ui.text is None and ui.target == ""
    apply(st, {"t": "linked", "name": "ann", "key": "k", "device": "d", "how": "recovery"}, T0)
    assert st.name == "ann" and st.claimed and "revoked" in st.notice
