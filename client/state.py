"""What the client knows: server messages folded into one state (pure, no I/O).

The server is the only source of truth. This module only remembers what it was
told (the room, the player's own view, opponents' counts, the results) plus the
connection's status, and derives which screen to show. Times are kept on the
server's clock: ``clock_offset_ms`` turns the local clock into the server's.

Besides the race it keeps the competition side: whether this connection plays
a claimed name, the daily challenge's info per variant, the last board page,
and the ratings seen (so a race's result can show each rating's change: the
server sends only the new value).

A notice (the last thing to tell the player) belongs to the screen it was
given on: it records the screen (mode and room) it came on, and goes as soon
as the player is on another one (:meth:`RaceState.expire_notice`, after every
message and, from the app, after every key that changes the screen). So a
rematch notice, a claim notice or an old illegal-move error never follows the
player into the next race or menu.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from .devices import REDUCERS as DEVICE_REDUCERS
from .friends import REDUCERS as FRIEND_REDUCERS
from .text import clean
from .variants import Variant, variants_from

__all__ = [
    "BOARD_PAGE",
    "CLOCKED",
    "MODES",
    "NOT_FOLDED",
    "QUIET_ERRORS",
    "REDUCERS",
    "RaceState",
    "RatingChange",
    "Reducer",
    "apply",
    "is_daily",
    "is_solo",
    "mode",
    "player_number",
    "players_of",
]

# Errors the player needs not see: the server follows them with what fixes them.
QUIET_ERRORS: Final = frozenset({"stale_version", "stale_seq"})

MODES: Final = ("lobby", "room", "countdown", "race", "results")
BOARD_PAGE: Final = 15  # board entries asked for, and shown, at a time
AWAY_KEPT: Final = 2  # races left before their end whose results are awaited, then kept


class RatingChange(NamedTuple):
    name: str
    value: float
    before: float | None  # None: this client had not seen the player's rating before
    provisional: bool = False  # rated in too few races of the variant to be sure


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
    notice_where: tuple[str, str | None] | None = None  # the screen (mode, room) the notice came on
    notices_given: int = 0  # notices so far: a new one replaces the note that waited for it
    last_error: str = ""  # code of the last error message
    errors_seen: int = 0  # error messages so far (a macro waiting for an answer counts them)
    claimed: bool = False  # this connection plays a claimed name (it sent the name's key)
    recovery_codes: list[str] = field(default_factory=list)  # shown once, until the player saw them
    devices: list[dict[str, Any]] = field(default_factory=list)  # the name's device keys, last listed
    link_code: dict[str, Any] | None = None  # the last link code made here: {code, expires_at}
    daily_info: dict[str, dict[str, Any]] = field(default_factory=dict)  # by variant
    seen_commitments: dict[str, str] = field(default_factory=dict)  # "DATE|VARIANT" -> first seen
    board: dict[str, Any] | None = None  # the last board page
    profile: dict[str, Any] | None = None  # the last ``profile`` answer (client/screens/profile.py)
    games: dict[str, Any] | None = None  # the last ``games`` page (client/screens/games.py)
    kept: dict[str, Any] | None = None  # a kept game's replay on screen (client/screens/kept.py)
    ratings_seen: dict[str, float] = field(default_factory=dict)  # casefolded name -> ordinal
    rating_changes: list[RatingChange] = field(default_factory=list)  # of the current results
    rematch_offer: dict[str, Any] | None = None  # who accepts a rematch of the current results
    variants: tuple[Variant, ...] = ()  # the variants the server offers, from its welcome
    watching: str | None = None  # the room watched without a seat (client/screens/watch.py)
    ghost: dict[str, Any] | None = None  # the ghost raced in this room (its ``ghost`` message)
    records: dict[int, list[str]] = field(default_factory=dict)  # finished games' moves, by player
    replaying: dict[str, Any] | None = None  # the replay on screen: its last ``replay`` message
    arenas: list[dict[str, Any]] = field(default_factory=list)  # the last ``arenas`` list
    arena: dict[str, Any] | None = None  # the last ``arena`` standing (client/screens/arena.py)
    arena_rejoin: str = ""  # the arena to join again on a new connection (set by its welcome)
    left_code: str | None = None  # the room last left: a late update of it is not taken back up
    left_seat: dict[str, int] = field(default_factory=dict)  # room -> our seat, of rooms left racing
    away_results: list[dict[str, Any]] = field(default_factory=list)  # results of races left (newest first)
    friends: dict[str, Any] | None = None  # the last ``friends`` list (client/screens/friends.py)
    challenges: list[dict[str, Any]] = field(default_factory=list)  # waiting for our answer
    analysis: dict[str, Any] | None = None  # the last ``analysis`` answer (client/analysis.py)

    def tell(self, text: str, error: bool = False) -> None:
        """A notice for the screen the player is on now."""
        self.notice, self.notice_error = text, error
        self.notice_where = (mode(self), self.code) if text else None
        if text:
            self.notices_given += 1

    def expire_notice(self) -> None:
        """Forget a notice that belongs to another screen than the current one."""
        if self.notice and self.notice_where not in (None, (mode(self), self.code)):
            self.tell("")

    def server_now(self, local_ms: int) -> int:
        return local_ms + self.clock_offset_ms

    def leave_room(self) -> None:
        """Forget the room and everything in it (after ``leave`` or an expired token)."""
        self.left_code = self.code or self.left_code
        if self.code is not None and self.me is not None and self.watching is None \
                and self.results is None and self.view is not None:
            # left while the race goes on: its results will still come (server/rooms/awaited.py)
            self.left_seat = {**dict(list(self.left_seat.items())[-(AWAY_KEPT - 1):]), self.code: self.me}
        self.code = None
        self.me = None
        self.room = None
        self.watching = None
        self._reset_race()

    def _reset_race(self) -> None:
        self.view = None
        self.v = 0
        self.progress = {}
        self.results = None
        self.record = None
        self.rating_changes = []
        self.rematch_offer = None
        self.ghost = None
        self.records = {}
        self.replaying = None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- folding messages in: one small reducer per server message type ------------------------
Reducer = Callable[[RaceState, dict[str, Any]], None]

# Messages whose ``server_time`` sets the clock offset (the ones sent as the answer
# to something, so the time in them is fresh).
CLOCKED: Final = frozenset({"welcome", "room", "pong"})


def apply(state: RaceState, msg: dict[str, Any], local_ms: int) -> None:
    """Fold one decoded server message into ``state``; unknown messages are ignored."""
    _apply(state, msg, local_ms)
    state.expire_notice()


def _apply(state: RaceState, msg: dict[str, Any], local_ms: int) -> None:
    kind = msg.get("t")
    server_time = _int(msg.get("server_time"))
    if server_time is not None and kind in CLOCKED:
        state.clock_offset_ms = server_time - local_ms
    reducer = REDUCERS.get(kind) if isinstance(kind, str) else None
    if reducer is not None:
        reducer(state, msg)


def _welcome(state: RaceState, msg: dict[str, Any]) -> None:
    state.conn = "online"
    state.attempt = 0
    if "variants" in msg:
        state.variants = variants_from(msg["variants"])
    if state.arena is not None:  # an arena's member is its connection: a new one is in none
        if state.arena.get("member") is True and state.arena.get("phase") != "finished":
            state.arena_rejoin = str(state.arena.get("id") or "")  # the session joins again
        state.arena = {**state.arena, "member": False}


def _joined(state: RaceState, msg: dict[str, Any]) -> None:
    code = msg.get("code")
    if isinstance(code, str):
        if code != state.code:
            state._reset_race()
            state.room = None
            if state.notice_error:  # complaints about the old room are moot
                state.tell("")
        state.code = code
        state.watching = None  # a seat now, not a spectator's place
    state.me = _int(msg.get("player"))


def _room(state: RaceState, msg: dict[str, Any]) -> None:
    if isinstance(msg.get("code"), str) and state.code not in (None, msg["code"]):
        return  # a late message of a room we left for another
    if state.code is None and msg.get("code") == state.left_code:
        return  # ... or for the lobby: its last update may come after the leave
    state.room = dict(msg)
    if state.code is None and isinstance(msg.get("code"), str):
        state.code = msg["code"]
    # A room message is the newest word on who is connected: an older
    # progress message must not keep showing a player who came back as gone.
    for i, entry in enumerate(msg.get("players") or ()):
        known = state.progress.get(player_number(entry, i))
        if known is not None and isinstance(entry, dict) and "connected" in entry:
            known["connected"] = entry["connected"]


def _view(state: RaceState, msg: dict[str, Any]) -> None:
    view = msg.get("view")
    if isinstance(view, dict):
        state.view = view
        state.v = _int(msg.get("v")) or 0
        if msg.get("seq") is not None and state.notice_error:
            state.tell("")  # an accepted move clears the last complaint


def _progress(state: RaceState, msg: dict[str, Any]) -> None:
    player = _int(msg.get("player"))
    known = state.progress.get(player or 0, {})
    # messages about one player can arrive out of order: never go back in moves
    if player is not None and (_int(msg.get("moves")) or 0) >= (_int(known.get("moves")) or 0):
        state.progress[player] = dict(msg)


def _results(state: RaceState, msg: dict[str, Any]) -> None:
    if msg.get("code") != state.code:  # a race left before its end (or late: seen already)
        _away_results(state, msg)
        return
    again = state.results is not None and state.results.get("code") == msg.get("code")
    state.results = dict(msg)
    if not again:  # a results message sent again after a resume changes no rating
        _note_ratings(state, msg.get("ratings"), msg.get("ratings_before"), msg.get("provisional"))
    if state.notice_error:
        state.tell("")


def _away_results(state: RaceState, msg: dict[str, Any]) -> None:
    code = msg.get("code")
    if not isinstance(code, str) or code not in state.left_seat:
        return
    me = state.left_seat.pop(code)
    state.away_results = [{**msg, "me": me}, *state.away_results][:AWAY_KEPT]


def _record(state: RaceState, msg: dict[str, Any]) -> None:
    record = msg.get("record")
    if isinstance(record, dict):
        state.record = record
        moves, n = record.get("moves"), _int(msg.get("player"))
        if n is not None and isinstance(moves, list):
            state.records[n] = [m for m in moves if isinstance(m, str)]


def _watching(state: RaceState, msg: dict[str, Any]) -> None:
    code = msg.get("code")
    if isinstance(code, str):
        state.leave_room()
        state.code, state.watching = code, code


def _queued(state: RaceState, msg: dict[str, Any]) -> None:
    """No open room: the server pairs us with players near our rating."""
    after = _int(msg.get("bot_after_ms"))
    bot = f"; a bot of your level comes after {after // 1000} s" if after else ""
    state.tell(f"waiting for players near your rating (the range widens as you wait){bot}")


def _unqueued(state: RaceState, msg: dict[str, Any]) -> None:
    state.tell("you left the quick-race queue")


def _ghost(state: RaceState, msg: dict[str, Any]) -> None:
    if msg.get("code") == state.code:
        state.ghost = dict(msg)


def _replay(state: RaceState, msg: dict[str, Any]) -> None:
    if "name" in msg:  # a kept game's (game_replay), from the lobby's games list
        state.kept = dict(msg) if isinstance(msg.get("view"), dict) else state.kept
        return
    on_screen = state.replaying
    if msg.get("code") == state.code and on_screen is not None and isinstance(msg.get("view"), dict):
        # the player compared with is the client's own choice: it stays
        state.replaying = {**msg, "with": on_screen.get("with")}


def _rematch_offer(state: RaceState, msg: dict[str, Any]) -> None:
    if msg.get("code") == state.code:
        state.rematch_offer = dict(msg)


def _rematch(state: RaceState, msg: dict[str, Any]) -> None:
    code = msg.get("code")
    if isinstance(code, str):
        state.tell(f"rematch in room {code}")


def _daily_info(state: RaceState, msg: dict[str, Any]) -> None:
    variant = msg.get("variant")
    if isinstance(variant, str):
        state.daily_info[variant] = dict(msg)


def _board(state: RaceState, msg: dict[str, Any]) -> None:
    state.board = dict(msg)
    if msg.get("kind") == "rating":
        for entry in msg.get("entries") or ():
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                value = _num(entry.get("value"))
                if value is not None:
                    state.ratings_seen[entry["name"].casefold()] = value


def _profile(state: RaceState, msg: dict[str, Any]) -> None:
    state.profile = dict(msg)


def _games(state: RaceState, msg: dict[str, Any]) -> None:
    state.games = dict(msg)


def _arenas(state: RaceState, msg: dict[str, Any]) -> None:
    listed = msg.get("arenas")
    state.arenas = [a for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []


def _arena(state: RaceState, msg: dict[str, Any]) -> None:
    state.arena = dict(msg)


def _hint(state: RaceState, msg: dict[str, Any]) -> None:
    state.tell(hint_text(msg, state.v))


def _analysis(state: RaceState, msg: dict[str, Any]) -> None:
    state.analysis = dict(msg)
    # drawn under the results, no notice: the note that waited for it goes all the same
    state.notices_given += 1


def _error(state: RaceState, msg: dict[str, Any]) -> None:
    code = str(msg.get("code", ""))
    state.last_error = code
    state.errors_seen += 1
    if code not in QUIET_ERRORS:
        state.tell(str(msg.get("message") or code), error=True)


def _reported(state: RaceState, msg: dict[str, Any]) -> None:
    state.tell(f"your report of {clean(msg.get('name'), 24)} is with the moderators")


def _clock_only(state: RaceState, msg: dict[str, Any]) -> None:
    """Its ``server_time`` is all it brings (see ``CLOCKED``)."""


REDUCERS: Final[dict[str, Reducer]] = {
    "welcome": _welcome,
    "joined": _joined,
    "room": _room,
    "view": _view,
    "progress": _progress,
    "results": _results,
    "record": _record,
    "watching": _watching,
    "queued": _queued,
    "unqueued": _unqueued,
    "ghost": _ghost,
    "replay": _replay,
    "rematch_offer": _rematch_offer,
    "rematch": _rematch,
    **DEVICE_REDUCERS,  # claimed, linked, devices, ... (client/devices.py)
    **FRIEND_REDUCERS,  # friends, challenge_sent, notice (client/friends.py)
    "daily_info": _daily_info,
    "board": _board,
    "profile": _profile,
    "arenas": _arenas,
    "arena": _arena,
    "hint": _hint,
    "games": _games,
    "error": _error,
    "reported": _reported,
    "pong": _clock_only,
    "analysis": _analysis,
}

# Server messages that change nothing the screens draw: the session acts on them
# itself (client/connection.py asks for a changed board page again); bot_account
# answers a message only a bot's own program sends (docs/design/bot-accounts.md).
NOT_FOLDED: Final = frozenset({"board_changed", "bot_account"})


def hint_text(msg: dict[str, Any], v: int) -> str:
    """What a solo game's ``hint`` answer tells the player."""
    move, result = msg.get("move"), msg.get("result")
    if _int(msg.get("v")) != v:
        return "that hint was for an earlier position: press h again"
    if isinstance(move, str) and move:
        why = msg.get("why")
        if isinstance(why, str) and why:
            return f"hint: {move}: {why}"
        return f"hint: {move} (the game can still be won after it)"
    if result == "lost":
        return "no line wins from here: u undoes a move"
    return "no hint: the solver found no sure line in the time it has"


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _note_ratings(state: RaceState, ratings: Any, before: Any = None, provisional: Any = None) -> None:
    """The rating changes of a race: new and old values from the server (ratings
    are per variant: the race's), old ones from memory for a server that sends none."""
    state.rating_changes = []
    if not isinstance(ratings, dict):
        return
    olds = before if isinstance(before, dict) else {}
    marked = set(provisional) if isinstance(provisional, list) else set()
    for name, raw in ratings.items():
        value = _num(raw)
        if not isinstance(name, str) or value is None:
            continue
        old = _num(olds.get(name)) if name in olds else state.ratings_seen.get(name.casefold())
        state.rating_changes.append(RatingChange(name, value, old, name in marked))
        state.ratings_seen[name.casefold()] = value
    state.rating_changes.sort(key=lambda c: -c.value)


def is_daily(state: RaceState) -> bool:
    """The current room (or its results) is a daily challenge."""
    return bool((state.room or {}).get("daily") or (state.results or {}).get("daily"))


def is_solo(state: RaceState) -> bool:
    """The current room is a solo game (undo and hints, no rematch)."""
    return bool((state.room or {}).get("solo"))


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
    ghost = state.ghost
    if ghost is not None and _int(ghost.get("player")) is not None and out:
        # the ghost of a ghost race: a row like an opponent's, named as a ghost
        out.append({"player": ghost["player"], "name": f"ghost: {ghost.get('name', '?')}",
                    "connected": True, "ghost": True})
    return out
