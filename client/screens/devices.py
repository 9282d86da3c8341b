"""A claimed name's devices (pure): the recovery codes shown once, the list of
device keys, a link code for a new device, revoking one, a new key for this
one; and for a guest, linking this device to a name or recovering one.

The codes screen comes up by itself in the lobby whenever recovery codes have
come (at the claim, or asked for anew) and stays until Enter: it is the only
time they are shown, and the client keeps none of them.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..state import RaceState
from ..text import Out, clean
from ..ui import UI, Command, open_text
from .base import At, Keys
from .chrome import connected, notices, num

__all__ = ["draw", "draw_codes", "press", "press_codes"]

CODES_HELP = (
    "Each code gives the name back once, on a new device, if you lose every device that plays it "
    "(patience --name {name} --recover CODE); using one revokes every other device's key. "
    "Keep them where you keep passwords: a password manager, or on paper away from this computer. "
    "This program keeps none of them, and the server only their hashes."
)


def press_codes(ui: UI, key: str, at: At) -> Keys:
    if key == "enter":
        return replace(ui, note=""), [Command("codes_seen")]
    return replace(ui, note="write the codes down, then press Enter"), []


def draw_codes(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    out.text(f" Recovery codes of {clean(state.name, 24)}: shown this once", "class:title")
    out.text()
    codes = state.recovery_codes
    half = (len(codes) + 1) // 2
    for i in range(half):
        pair = [f"{n + 1:>4}  {clean(codes[n], 24):<22}" for n in (i, i + half) if n < len(codes)]
        out.text("".join(pair), "class:label")
    out.text()
    out.text(" " + CODES_HELP.format(name=clean(state.name, 24)))
    out.text()
    out.text(" Enter once they are written down", "class:dim")
    notices(state, ui, out)


def _clock(ms: object) -> str:
    value = num(ms)
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(value / 1000)) if value else "never"


def press(ui: UI, key: str, at: At) -> Keys:
    if key in ("escape", "q"):
        return replace(ui, menu="main", cursor=0, note=""), []
    if not at.ctx.claimed:
        if key == "n":
            return open_text(ui, "link_name"), []
        if key == "r":
            return open_text(ui, "recover_name"), []
        return ui, []
    if key == "l":
        return replace(ui, note=""), [Command("link_code")]
    if key == "x":
        return open_text(ui, "revoke"), []
    if key == "k":
        return replace(ui, confirm="rotate_key",
                       note="replace this device's key (the old one stops working)? y to replace"), []
    if key == "c":
        return replace(ui, confirm="recovery_codes",
                       note="new recovery codes (the old ones stop working)? y for new ones"), []
    if key == "u":
        return replace(ui, note=""), [Command("devices")]
    return ui, []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    if not state.claimed:
        out.text(" Devices: this device plays no claimed name", "class:title")
        out.text()
        out.add(("", "  n  "), ("", "link it to a name: its name, then a link code made on a device"))
        out.text("     that plays it (d there, then l)", "class:dim")
        out.add(("", "  r  "), ("", "recover a name: its name, then one of its recovery codes"))
        out.text()
        out.text(" Esc back", "class:dim")
        notices(state, ui, out)
        return
    out.text(f" Devices of {clean(state.name, 24)}", "class:title")
    out.text()
    for i, device in enumerate(state.devices[:10]):
        this = "this device" if device.get("this") else ""
        out.text(f"  {i + 1:>2}  {clean(str(device.get('label', '')), 32):<32} {this:<12}"
                 f"used {_clock(device.get('used'))}")
    if not state.devices:
        out.text("  (asking the server...)", "class:dim")
    out.text()
    link = state.link_code
    if link is not None:
        code = clean(str(link.get("code", "")), 12)
        out.text(f" Link code {code}, good once until {_clock(link.get('expires_at'))[11:]} UTC: on the "
                 f"new device run  patience --name {clean(state.name, 24)} --link {code}", "class:info")
        out.text()
    out.text(" l link code for a new device \u00b7 x revoke a device \u00b7 k new key for this device \u00b7 "
             "c new recovery codes \u00b7 u update \u00b7 Esc back", "class:dim")
    notices(state, ui, out)
