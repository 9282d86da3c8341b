"""Solo play, the scrollable help and saving records, in the client.

:func:`press` sits in front of :func:`client.keys.press` and takes the keys
these features add; every other key goes on to it unchanged:

* lobby ``8``: play alone. Pick a variant, then type a deal number (PySolFC's,
  as ``patience-server deal`` takes it: ``24``, ``ms24``, ``#1_000``) or just
  press Enter for a random deal. The game starts after the countdown.
* in a solo game: ``u`` undoes the last move (the server records the undo),
  ``h`` asks the server for a hint (a move that keeps the game winnable,
  when its solver finds one quickly). Races and the daily have neither.
* ``?`` anywhere: the keys, and in a room, a race or its results the
  variant's rules card; up/down, space and ``b`` scroll, other keys close it.
* on any results screen: ``s`` saves your game's record as JSON (in the
  directory of ``--records``, the current one by default), ready for
  ``patience-server verify``. The daily's record is the server's to give
  once the day is over: before that, ``s`` says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .help_screen import SCROLL_KEYS, help_body, scroll
from .keys import LOBBY_ITEMS, UI, Command, Context
from .keys import press as press_key
from .screen import HELP
from .state import RaceState

if TYPE_CHECKING:
    from .connection import ClientSession

__all__ = ["SOLO_KEY", "is_solo", "press", "record_path", "run", "save_record"]

SOLO_KEY: Final = "8"
RECORD_WAIT_S: Final = 10.0
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]+")


def is_solo(state: RaceState) -> bool:
    return bool((state.room or {}).get("solo"))


def press(ui: UI, key: str, *, mode: str, view: dict[str, Any] | None, ctx: Context, state: RaceState,
          size: tuple[int, int | None] = (80, None)) -> tuple[UI, list[Command]]:
    """:func:`client.keys.press` with solo play, help scrolling and record saving."""
    if key == "c-c" or ui.confirm:
        return press_key(ui, key, mode=mode, view=view, ctx=ctx)
    if ui.help:
        if key in SCROLL_KEYS:
            total = len(help_body(HELP, state, size[0], False))
            return replace(ui, help_top=scroll(ui.help_top, key, total, size[1])), []
        return press_key(ui, key, mode=mode, view=view, ctx=ctx)
    if ui.text is not None:
        if ui.text_purpose == "deal" and key == "enter":
            closed = replace(ui, text=None, text_purpose="", menu="main", cursor=0,
                             note="starting a solo game")
            return closed, [Command("solo", ui.variant, kind=ui.text.strip())]
        return press_key(ui, key, mode=mode, view=view, ctx=ctx)
    if mode == "lobby":
        if ui.menu == "main":
            items: list[str] = [item[0] for item in LOBBY_ITEMS]
            on_solo = key == "enter" and items[ui.cursor % len(items)] == SOLO_KEY
            if key == SOLO_KEY or on_solo:
                return replace(ui, menu="pick", purpose="solo", cursor=0, note=""), []
        elif ui.menu == "pick" and ui.purpose == "solo":
            chosen = _chosen(ui, key, len(state.variants))
            if chosen is not None:
                opened = replace(ui, text="", text_purpose="deal", variant=state.variants[chosen].id,
                                 cursor=chosen, note="")
                return opened, []
    elif mode == "race" and is_solo(state) and not ui.want_foundation:
        if key == "u":
            return replace(ui, pending=None, note=""), [Command("undo")]
        if key == "h":
            return replace(ui, pending=None, note="asking the server for a hint\u2026"), [Command("hint")]
    elif mode == "results":
        if key == "s":
            return replace(ui, note="asking the server for your record\u2026"), [Command("save")]
        if key == "m" and is_solo(state):
            return replace(ui, note=f"a solo game has no rematch: {SOLO_KEY} in the lobby starts another"), []
    return press_key(ui, key, mode=mode, view=view, ctx=ctx)


def _chosen(ui: UI, key: str, count: int) -> int | None:
    if not count:
        return None  # nothing listed yet: the welcome has not come
    if key == "enter":
        return ui.cursor % count
    if len(key) == 1 and key.isdigit() and 1 <= int(key) <= count:
        return int(key) - 1
    return None


# -- commands ------------------------------------------------------------------------------
async def run(session: ClientSession, command: Command, records_dir: Path) -> bool:
    """Carry out a command of this module's; False for any other command."""
    name = command.name
    if name == "solo":
        msg: dict[str, Any] = {"t": "solo", "variant": command.arg}
        if command.kind:
            msg["deal"] = command.kind
        await session.send(msg)
    elif name == "undo":
        await session.send({"t": "undo", "seq": session.next_seq(), "v": session.state.v})
    elif name == "hint":
        await session.send({"t": "hint"})
    elif name == "save":
        await save_record(session, records_dir)
    else:
        return False
    return True


def record_path(record: dict[str, Any], code: str | None, directory: Path) -> Path:
    """A new file name for a record: variant, deal and room, never an existing file's."""
    parts = [str(record.get("variant") or "game"), str(record.get("deal") or ""), code or ""]
    stem = "-".join(_UNSAFE.sub("", p)[:40] for p in ["patience", *parts] if _UNSAFE.sub("", p))
    path = directory / f"{stem}.json"
    n = 2
    while path.exists():
        path = directory / f"{stem}-{n}.json"
        n += 1
    return path


async def save_record(session: ClientSession, directory: Path) -> Path | None:
    """Ask for this player's record and write it to a file; the notice says where (or why not)."""
    state = session.state
    state.record, state.last_error = None, ""
    if not await session.record():
        return None
    try:
        await session.wait_for(lambda st: st.record is not None or st.last_error != "", RECORD_WAIT_S)
    except TimeoutError:
        state.tell("the server did not send the record: try s again", error=True)
        return None
    record = state.record
    if record is None:
        return None  # the server said why, and its notice is on screen
    try:
        # a few kB to a local file, asked for by the player, who waits for the answer anyway
        directory.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240
        path = record_path(record, state.code, directory)
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    except OSError as exc:
        state.tell(f"cannot save the record in {directory}: {exc.strerror or exc}", error=True)
        return None
    state.tell(f"record saved to {path} (check it: patience-server verify {path})")
    return path
