"""What the client knows: server messages folded into one state (pure, no I/O).

The server is the only source of truth. This module only remembers what it was
told (the room, the player's own view, opponents' counts, the results) plus the
connection's status, and derives which screen to show. Times are kept on the
server's clock: ``clock_offset_ms`` turns the local clock into the server's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "QUIET_ERRORS",
    "RaceState",
    "apply",
    "mode",
    "player_number",
    "players_of",
]

# Errors the player needs not see: the server follows them with what fixes them.
QUIET_ERRORS: Final = frozenset({"stale_version", "stale_seq"})

MODES: Final = ("lobby", "room", "countdown", "race", "results")


@dataclass
class RaceState:
    server: str = ""
    name: str = ""
    conn: str = "connecting"  # connecting | online | reconnecting | closed
    attempt: int = 0  # reconnect attempts so far
    clock_offset_ms: int = 0  # server clock minus local clock
    code: str | None = None
    me: int | None = None
    room: dict[str, Any] | None = None
    view: dict[str, Any] | None = None
    v: int = 0
    progress: dict[int, dict[str, Any]] = field(default_factory=dict)
    results: dict[str, Any] | None = None
    record: dict[str, Any] | None = None
    notice: str = ""  # the last thing to tell the player (server text: escape before drawing)
    notice_error: bool = False
    last_error: str = ""  # code of the last error message

    def server_now(self, local_ms: int) -> int:
        return local_ms + self.clock_offset_ms

    def leave_room(self) -> None:
        """Forget the room and everything in it (after ``leave`` or an expired token)."""
        self.code = None
        self.me = None
        self.room = None
        self._reset_race()

    def _reset_race(self) -> None:
        self.view = None
        self.v = 0
        self.progress = {}
        self.results = None
        self.record = None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def apply(state: RaceState, msg: dict[str, Any], local_ms: int) -> None:
    """Fold one decoded server message into ``state``; unknown messages are ignored."""
    kind = msg.get("t")
    server_time = _int(msg.get("server_time"))
    if server_time is not None and kind in ("welcome", "room", "pong"):
        state.clock_offset_ms = server_time - local_ms
    if kind == "welcome":
        state.conn = "online"
        state.attempt = 0
    elif kind == "joined":
        code = msg.get("code")
        if isinstance(code, str):
            if code != state.code:
                state._reset_race()
                state.room = None
                if state.notice_error:  # complaints about the old room are moot
                    state.notice, state.notice_error = "", False
            state.code = code
        state.me = _int(msg.get("player"))
    elif kind == "room":
        if isinstance(msg.get("code"), str) and state.code not in (None, msg["code"]):
            return  # a late message of a room we left
        state.room = dict(msg)
        if state.code is None and isinstance(msg.get("code"), str):
            state.code = msg["code"]
    elif kind == "view":
        view = msg.get("view")
        if isinstance(view, dict):
            state.view = view
            state.v = _int(msg.get("v")) or 0
            if msg.get("seq") is not None and state.notice_error:
                state.notice = ""  # an accepted move clears the last complaint
                state.notice_error = False
    elif kind == "progress":
        player = _int(msg.get("player"))
        if player is not None:
            state.progress[player] = dict(msg)
    elif kind == "results":
        state.results = dict(msg)
        if state.notice_error:
            state.notice, state.notice_error = "", False
    elif kind == "record":
        record = msg.get("record")
        if isinstance(record, dict):
            state.record = record
    elif kind == "rematch":
        code = msg.get("code")
        if isinstance(code, str):
            state.notice = f"rematch in room {code}"
            state.notice_error = False
    elif kind == "error":
        code = str(msg.get("code", ""))
        state.last_error = code
        if code not in QUIET_ERRORS:
            state.notice = str(msg.get("message") or code)
            state.notice_error = True


def mode(state: RaceState) -> str:
    """Which screen: lobby, room (waiting), countdown, race or results."""
    if state.code is None:
        return "lobby"
    if state.results is not None:
        return "results"
    if state.view is not None:
        return "race"
    room = state.room or {}
    if room.get("phase") == "countdown" or _int(room.get("starts_at")) is not None:
        return "countdown"
    return "room"


def player_number(entry: Any, index: int) -> int:
    """The seat number of a ``room.players`` entry (1-based; the list order if absent)."""
    if isinstance(entry, dict):
        for key in ("player", "number", "seat", "id"):
            n = _int(entry.get(key))
            if n is not None:
                return n
    return index + 1


def players_of(state: RaceState) -> list[dict[str, Any]]:
    """The room's players as dicts with at least ``player`` and ``name``."""
    raw = (state.room or {}).get("players")
    out: list[dict[str, Any]] = []
    if not isinstance(raw, list):
        return out
    for i, entry in enumerate(raw):
        if isinstance(entry, dict):
            item = dict(entry)
        elif isinstance(entry, str):
            item = {"name": entry}
        else:
            continue
        item["player"] = player_number(entry, i)
        item.setdefault("name", f"player {item['player']}")
        out.append(item)
    return out
