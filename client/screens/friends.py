"""Friends (pure): the names followed, whether each is online and in which
room, the challenges waiting for an answer, the names blocked; keys to
follow, unfollow, challenge (a variant, then a name), block and unblock, and
to accept or decline the first challenge waiting. ``f`` in the lobby opens it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from ..state import RaceState
from ..text import Out, clean, keys_line
from ..ui import UI, Command, open_text
from ..variants import variant_name
from .base import At, Keys
from .chrome import connected, notices

__all__ = ["draw", "press"]

MAX_ROWS: Final = 8  # names followed on screen (the rest counted), so the page fits 80x24
MAX_CHALLENGES: Final = 3

def press(ui: UI, key: str, at: At) -> Keys:
    if key in ("escape", "backspace", "left", "h"):
        return replace(ui, menu="main", cursor=0, note=""), []
    if key == "q":
        return ui, [Command("quit")]
    if not at.ctx.claimed:
        return replace(ui, note="friends are for claimed names: 7 in the lobby claims yours"), []
    if key == "r":
        return ui, [Command("friends")]
    opens = {"f": "follow", "u": "unfollow", "b": "block", "n": "unblock"}
    if key in opens:
        return open_text(ui, opens[key]), []
    if key == "c":  # the variant first, then the name
        return replace(ui, menu="pick", purpose="challenge", cursor=0, note=""), []
    waiting = at.state.challenges
    if key in ("a", "x") and waiting:
        first = str(waiting[0].get("name", ""))
        return ui, [Command("challenge_answer", first, 1 if key == "a" else 0)]
    if key in ("a", "x"):
        return replace(ui, note="no challenge is waiting"), []
    return ui, []


def _row(entry: dict[str, Any]) -> str:
    name = clean(entry.get("name"), 24)
    if not entry.get("online"):
        return f"  {name:<26}offline"
    room = entry.get("room")
    where = (f"online, in room {clean(room, 16)}" if isinstance(room, str) and room
             else "online, in a room" if entry.get("in_room") else "online, in the lobby")
    return f"  {name:<26}{where}"


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    connected(state, out)
    out.text(" Friends", "class:title")
    if not state.claimed:
        out.text("  following, challenges and blocks are for claimed names: 7 in the lobby", "class:dim")
        out.text()
        out.text(keys_line("Esc back"), "class:dim")
        notices(state, ui, out)
        return
    listing = state.friends
    following = [f for f in (listing or {}).get("following", []) if isinstance(f, dict)]
    if listing is None:
        out.text("  loading\u2026", "class:dim")
    elif not following:
        out.text("  you follow nobody yet: f follows a claimed name", "class:dim")
    online = sorted(following, key=lambda f: not f.get("online"))
    for entry in online[:MAX_ROWS]:
        out.text(_row(entry), "class:label" if entry.get("online") else "")
    if len(online) > MAX_ROWS:
        out.text(f"  and {len(online) - MAX_ROWS} more", "class:dim")
    waiting = state.challenges
    if waiting:
        out.text()
        out.text(" Challenges waiting (a accepts the first, x declines it)", "class:title")
        for c in waiting[:MAX_CHALLENGES]:
            variant = variant_name(state.variants, str(c.get("variant", "")))
            out.text(f"  {clean(c.get('name'), 24)} \u00b7 {clean(variant, 30)}")
        if len(waiting) > MAX_CHALLENGES:
            out.text(f"  and {len(waiting) - MAX_CHALLENGES} more", "class:dim")
    blocked = [clean(b, 24) for b in (listing or {}).get("blocked", []) if isinstance(b, str)]
    if blocked:
        out.text()
        shown = ", ".join(blocked[:4]) + (f" and {len(blocked) - 4} more" if len(blocked) > 4 else "")
        out.text(f" blocked: {shown}", "class:dim")
    out.text()
    out.text(keys_line("f follow", "u unfollow", "c challenge", "a accept", "x decline"), "class:dim")
    out.text(keys_line("b block", "n unblock", "r refresh", "Esc back"), "class:dim")
    notices(state, ui, out)
