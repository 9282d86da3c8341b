"""The wire protocol: message shapes, error and close codes, msgpack codec.

Every frame is one binary websocket message holding a msgpack map with a
``t`` (type) key and flat fields. The tables here are the single source for
docs/reference/protocol.md; tests hold the two together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import msgpack

PROTOCOL_VERSION: Final = 1
MAX_FRAME_BYTES: Final = 8192
MAX_NAME_CHARS: Final = 24
MAX_LABEL_CHARS: Final = 32  # a device key's label ("laptop", "browser")
MAX_PLAYERS: Final = 8
MIN_PLAYERS: Final = 2

# -- close codes (RFC 6455 numbers with our meaning) ---------------------------
CLOSE_NORMAL: Final = 1000  # the client left or the server is done with it
CLOSE_GOING_AWAY: Final = 1001  # server restart or shutdown: reconnect and resume
CLOSE_POLICY: Final = 1008  # abuse: flood past the rate limit, repeated garbage
CLOSE_TOO_BIG: Final = 1009  # a frame over MAX_FRAME_BYTES (sent by websockets itself)
CLOSE_INTERNAL: Final = 1011  # a server bug; nothing acknowledged is lost
CLOSE_SLOW: Final = 1013  # the client fell too far behind reading: resume with the token
CLOSE_UNRESPONSIVE: Final = 4000  # no pong to a keepalive ping in time: resume with the token

CLOSE_CODES: Final[dict[int, str]] = {
    CLOSE_NORMAL: "normal closure: the client left, or a newer connection of the same player took over",
    CLOSE_GOING_AWAY: "the server is restarting or shutting down: reconnect and resume with your token",
    CLOSE_POLICY: "policy violation: too many messages, or too many malformed ones, "
                  "or more connections from one address than the server allows",
    CLOSE_TOO_BIG: f"a frame was larger than {MAX_FRAME_BYTES} bytes",
    CLOSE_INTERNAL: "unexpected server error",
    CLOSE_SLOW: "the client fell too far behind reading what it was sent: reconnect and resume",
    CLOSE_UNRESPONSIVE: "the client answered no keepalive ping in time (its network or its "
                        "process stalled): reconnect and resume with your token",
}

# -- error codes (sent in an ``error`` message; the connection stays open) -----
ERROR_CODES: Final[dict[str, str]] = {
    "bad_frame": "a text frame, or bytes that are not a msgpack map with a string 't'",
    "unknown_type": "the 't' of the message is not a client message type",
    "bad_field": "a field is missing, of the wrong type or out of range",
    "old_protocol": "the client speaks an older protocol version: upgrade the client",
    "hello_first": "the first message must be hello; hello only once",
    "unknown_variant": "no variant has that id, name or alias",
    "no_room": "no room has that code (or it has expired)",
    "room_full": "the room has as many players as it allows",
    "room_started": "the race has already started: the room takes no new players",
    "not_in_room": "this needs a room: create, join or quick first",
    "already_in_room": "leave the current room first",
    "not_host": "only the creator of a private room may add a bot, and only in its lobby",
    "bad_token": "the resume token is unknown, expired or for another player",
    "name_taken": "that name is claimed: send its key in hello, or pick another name",
    "no_daily": "this server has no daily challenge (it has no secret)",
    "bad_move": "the move text is not in the move notation",
    "illegal_move": "the move is not legal in the current position (the message says why)",
    "stale_version": "the move was made against an older position: the current view follows",
    "stale_seq": "a move sequence number older than the last one acknowledged",
    "not_started": "the race has not started yet",
    "race_over": "the race has ended: no more moves",
    "game_over": "your own game has ended (won, dead or resigned)",
    "no_results": "records are available only once the race has results",
    "solo_only": "undo and hints are for solo games only, never a race or the daily",
    "daily_deal": "that deal number is one of today's daily deals: it is revealed when the day ends",
    "ghost_private": "a private race's ghosts are for its own players",
    "hint_busy": "a hint is already being worked out for this player",
    "rate_limited": "too many messages: slow down (persisting gets the connection closed)",
    "over_limit": "this connection, its address or the name has opened as many rooms, claimed as "
                  "many names, changed as many keys or guessed as many codes as it may for now: "
                  "try again after retry_ms",
    "join_wait": "codes that name no room were tried from this address: the next join, watch, "
                 "ghost or replay of a code is looked at after retry_ms (the wait doubles with each "
                 "unknown code)",
    "store_unavailable": "the game store is unreachable: nothing was changed, try again",
    "no_arena": "no arena has that id (or it has expired)",
    "arena_over": "the arena has ended: it takes no new players (its final standing stays)",
    "arena_full": "the arena's standing holds as many players as it allows",
    "not_in_arena": "this needs an arena: arena_join first",
    "not_identified": "this needs a claimed name proved on this connection (claim it, or hello with its key)",
    "bad_code": "that link or recovery code is wrong, used or expired for that name (each try spends "
                "one of the address's and the name's guesses)",
    "this_device": "a connection cannot revoke the key it signed in with: rotate_key replaces it",
    "no_device": "this name has no device key with that id",
    "too_many_devices": "the name has as many device keys as it may: revoke one first",
    "internal": "unexpected server error: nothing was changed",
    "banned": "a moderator banned this name from ranked play (quick races, the daily, arenas): the "
              "message says why and until when (retry_ms; none: for good)",
    "renamed": "a moderator renamed this name: it is reserved; sign in as the new name the message "
               "gives, with the same key",
    "bot_account": "a bot account cannot do that (a public room, the daily, an arena), or a name with "
                   "ranked results cannot become one",
    "no_name": "no one has claimed that name (or it is your own)",
    "blocked": "that name takes no follows or challenges from you (one of the two blocks the other)",
    "list_full": "a list is as long as it may be (names followed, a name's followers, names blocked, "
                 "challenges waiting): remove one first, or try later",
    "no_challenge": "no challenge from that name is waiting for you (answered, withdrawn or lapsed)",
    "no_game": "that name's history holds no game with that code (or it has lapsed)",
    "analysis_busy": "the server is analysing as many games as it may, or one for this connection "
                     "already: ask again after retry_ms (or when that answer comes)",
}


class ProtocolError(ValueError):
    """A message that cannot be accepted; ``code`` is one of ERROR_CODES."""

    def __init__(self, code: str, message: str, retry_ms: int | None = None) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_ms = retry_ms  # when to try again, for a refusal that passes with time


@dataclass(frozen=True)
class Field:
    kind: type
    required: bool = True
    low: int | None = None
    high: int | None = None
    max_len: int | None = None


_SEQ = Field(int, low=0, high=2**31)
# Client -> server messages and their fields.
CLIENT_MESSAGES: Final[dict[str, dict[str, Field]]] = {
    "hello": {"proto": Field(int, low=0, high=2**16), "name": Field(str, False, max_len=MAX_NAME_CHARS),
              "token": Field(str, False, max_len=128), "key": Field(str, False, max_len=64),
              "device": Field(str, False, max_len=64)},
    "claim": {"name": Field(str, max_len=MAX_NAME_CHARS),
              "label": Field(str, False, max_len=MAX_LABEL_CHARS)},
    "link_code": {},
    "link": {"name": Field(str, max_len=MAX_NAME_CHARS), "code": Field(str, max_len=32),
             "label": Field(str, False, max_len=MAX_LABEL_CHARS)},
    "recover": {"name": Field(str, max_len=MAX_NAME_CHARS), "code": Field(str, max_len=32),
                "label": Field(str, False, max_len=MAX_LABEL_CHARS)},
    "devices": {},
    "revoke": {"id": Field(str, max_len=16)},
    "rotate_key": {},
    "recovery_codes": {},
    "daily": {"variant": Field(str, max_len=64)},
    "daily_info": {"variant": Field(str, max_len=64)},
    "board": {"kind": Field(str, max_len=16), "variant": Field(str, False, max_len=64),
              "date": Field(str, False, max_len=10), "offset": Field(int, False, 0, 100_000),
              "limit": Field(int, False, 1, 100), "season": Field(str, False, max_len=10),
              "near": Field(bool, False), "name": Field(str, False, max_len=MAX_NAME_CHARS)},
    "create": {"variant": Field(str, max_len=64), "players": Field(int, False, MIN_PLAYERS, MAX_PLAYERS),
               "private": Field(bool, False)},
    "join": {"code": Field(str, max_len=16)},
    "quick": {"variant": Field(str, max_len=64), "accept_bots": Field(bool, False)},
    "ready": {},
    "move": {"seq": _SEQ, "move": Field(str, max_len=32), "v": Field(int, low=0, high=2**31)},
    "resign": {"seq": _SEQ},
    "rematch": {"accept": Field(bool, False)},
    "record": {"player": Field(int, False, 1, MAX_PLAYERS)},
    "leave": {},
    "watch": {"code": Field(str, max_len=16)},
    "add_bot": {"level": Field(int, low=1, high=5)},
    "ping": {},
    "solo": {"variant": Field(str, max_len=64), "deal": Field(str, False, max_len=32)},
    "undo": {"seq": _SEQ, "v": Field(int, low=0, high=2**31)},
    "hint": {},
    "replay": {"player": Field(int, False, 1, MAX_PLAYERS), "index": Field(int, False, 0, 2**31),
               "code": Field(str, False, max_len=16)},
    "ghost": {"code": Field(str, max_len=16), "player": Field(int, False, 1, MAX_PLAYERS)},
    "profile": {"name": Field(str, max_len=MAX_NAME_CHARS)},
    "arenas": {},
    "arena_join": {"id": Field(str, max_len=16)},
    "arena_leave": {},
    "arena_info": {"id": Field(str, max_len=16)},
    "report": {"name": Field(str, max_len=MAX_NAME_CHARS), "reason": Field(str, max_len=16),
               "text": Field(str, False, max_len=200), "room": Field(str, False, max_len=16)},
    "bot_account": {},
    "friends": {},
    "follow": {"name": Field(str, max_len=MAX_NAME_CHARS)},
    "unfollow": {"name": Field(str, max_len=MAX_NAME_CHARS)},
    "block": {"name": Field(str, max_len=MAX_NAME_CHARS)},
    "unblock": {"name": Field(str, max_len=MAX_NAME_CHARS)},
    "challenge": {"name": Field(str, max_len=MAX_NAME_CHARS), "variant": Field(str, max_len=64)},
    "challenge_answer": {"name": Field(str, max_len=MAX_NAME_CHARS), "accept": Field(bool, False)},
    "games": {"name": Field(str, max_len=MAX_NAME_CHARS), "offset": Field(int, False, 0, 500),
              "limit": Field(int, False, 1, 50)},
    "game_replay": {"name": Field(str, max_len=MAX_NAME_CHARS), "code": Field(str, max_len=16),
                    "index": Field(int, False, 0, 2**31)},
    "game_ghost": {"name": Field(str, max_len=MAX_NAME_CHARS), "code": Field(str, max_len=16)},
    "analyse": {"code": Field(str, False, max_len=16)},
}

# The move's limits, for decode_client's inline check (a test holds them to the table)
_SEQ_HIGH: Final = 2**31
_MOVE_LEN: Final = 32

# Server -> client messages: type -> the fields it carries (documentation and tests).
SERVER_MESSAGES: Final[dict[str, str]] = {
    "welcome": "proto, server_time, resumed, identified (the claimed name proved by the key, or null), "
               "server_id (the deployment's stable id, or null without a secret), "
               "variants[{id, name, family, blurb}] (every variant it offers, in the order to list them)",
    "joined": "code, player, token: you are player N of room CODE; keep the token to resume",
    "room": "code, variant, players_max, private, phase, players[{player, name, claimed, ready, connected, "
            "left, bot (its level 1-5, 0 for a person), bot_account (a bot account's seat), ...}], "
            "starts_at, ends_at, server_time, "
            "solo, layout{rows, piles, gap} (where the variant's piles sit: see Layouts), and deal in a "
            "solo game only (a race's deal is secret "
            "until its results)",
    "view": "v, seq (the move it answers, or null: the start, a resume, a verdict that came "
            "after its move's answer), view{...}: your own position",
    "progress": "player, foundation_cards, total_cards, moves, status: an opponent's counts only",
    "results": "code, variant, deal, deal_version, ranking[] (each with bot: 0 or a level, and "
               "bot_account: true for a registered bot account's seat): "
               "sent when the race ends; between claimed names also ratings, ratings_before, "
               "rating_variant, provisional[], and bot_accounts[] (the names among them that are bot "
               "accounts)",
    "record": "record{variant, deal, deal_version, moves, ms}: a finished player's game",
    "rematch_offer": "code, player, accept, accepted[], players[]: a player of the finished race accepts "
                     "(or declines) a rematch; it is made once all of players[] accept",
    "rematch": "code, players[]: every player accepted; each is moved to the new room, seated in this order",
    "error": "code, message, seq when it answers a move, retry_ms when waiting ends the refusal",
    "pong": "server_time",
    "queued": "variant, rating (the ordinal you are paired by), window (points either side now; "
              "it widens with the wait), bot_after_ms (a bot comes after this wait; null: never): "
              "no open room to join, you wait to be paired by skill; joined and room follow",
    "unqueued": "you left the quick-race queue (a leave while waiting)",
    "watching": "code: you watch that room without a seat (room, progress and results follow)",
    "claimed": "name, key, device (this key's id), recovery[] (8 recovery codes, shown this once: "
               "each moves the name to a new device once): the name is yours; keep the key (send it "
               "in hello) to use the name again",
    "link_code": "code, expires_at: a one-time code that gives a new device a key of this name "
                 "(link there with the name and the code before expires_at)",
    "linked": "name, key, device, how (link or recovery): this connection now plays as the name; "
              "keep the key. A recovery revokes every other device's key",
    "devices": "devices[{id, label, created, used, this}]: the name's device keys (this: the one "
               "this connection signed in with)",
    "rotated": "name, key, device: the key this connection signed in with is replaced; the old "
               "one proves nothing any more",
    "recovery_codes": "codes[]: a new set of recovery codes, shown this once; the old set is void",
    "daily_info": "variant, date, day, commitment, ends_at, yesterday{date, day, deal, salt, par, "
                  "difficulty, pars[] (the bots' median result per level), log_head{seq, hash} (the "
                  "results log's head at that day's end, or null)}, ranked (this connection's next "
                  "attempt would go on the board), difficulty (today's deal's grade, 1 easy to 4 "
                  "hard, or null), pars[]",
    "board": "kind, variant, date (a daily board), season (null: all time), offset, total, "
             "entries[{rank, name, ...}]; asked with near: near (whose), me (that name's rank, "
             "or null when not on the board) and the entries around it",
    "board_changed": "board (daily:DATE:VARIANT, rating:VARIANT or wins:VARIANT, all time and "
                     "season alike): it changed; ask again",
    "profile": "name, claimed, ratings{VARIANT: {value, deviation, races, provisional, "
               "curve[[at, value], ...] (the newest 50 changes, oldest first)}}, streaks{days, best, "
               "wins}, bot (a claimed name's: a bot account): a name's ratings per variant and their "
               "curve (no error for an unknown name: claimed false, nothing else); stats{races, wins, "
               "win_rate, games, played{MODE: n}, variants{VARIANT: {races, wins, win_rate, best_ms, "
               "best_code}}, daily{played, won, last[{date, variant, won, ranked, foundation_cards, "
               "total_cards, time_ms, code}]}, arenas{played, races, wins}} for a claimed name",
    "replay": "code, player, index, total (entries in the record), move and ms (the entry that led "
              "here, null at 0), view{...}: that player's view after index entries of its record; "
              "name and layout{rows, piles, gap} too when it answers game_replay (a kept game of "
              "that name, drawn without its room)",
    "ghost": "code (the ghost race's room), player (the ghost's number there), name, source, "
             "source_player, moves: the recorded run raced as a ghost; its progress follows",
    "arenas": "arenas[{id, name, variant, phase (upcoming, running, closing, finished), starts_at, "
              "ends_at, players, group}]: the arenas to come, running, and finished ones kept",
    "arena": "id, name, variant, phase, starts_at, ends_at, group, race_ms, server_time, players "
             "(lines in the standing), top[{rank, name, points, races, wins, fire, claimed}] (the "
             "first 10), me (your own line, or null), member (you are in it): an arena's standing, "
             "pushed to its members whenever it changes; a pairing moves you into a race "
             "(joined, room, view follow)",
    "hint": "v (the position it is for), result (won, lost or unknown), move (keeps the game "
            "winnable; null unless won), why (what the move is for, read off the winning line; "
            "null when the line shows nothing plain)",
    "reported": "name: your report of that name is with the moderators",
    "bot_account": "name: the name is a bot account from now on, for good (rated on the bots' board, "
                   "marked as a bot, paired only with persons who accept bots)",
    "friends": "following[{name, online, in_room, room (the code of the room it is in, only when that "
               "name follows you too; else null)}], blocked[] (names), "
               "challenges[{name, variant, expires_at}] (waiting for your answer), max_following: "
               "the answer to friends, follow, unfollow, block and unblock",
    "challenge_sent": "name, variant, expires_at: your challenge waits for that name's answer until "
                      "expires_at",
    "notice": "kind, then by kind: challenge (name, variant, expires_at: answer with "
              "challenge_answer), challenge_declined (name), challenge_accepted (name, variant, code: "
              "the room kept for the two of you; you are moved into it unless your race holds you), "
              "friend_online (name), arena_soon (id, name, starts_at: an arena you joined starts "
              "within a minute), season_ending (season, ends_at: within a day)",
    "games": "name, offset, total (games kept), games[{code, at, variant, mode (race, arena, daily, "
             "ghost, solo), private, daily, arena, player, players[] (shown names, in finishing "
             "order), place, won, status, foundation_cards, total_cards, time_ms, moves, ranked, "
             "rating_before, rating_after}]: a page of a name's kept games, newest first (never a "
             "deal or a move: game_replay and game_ghost open one)",
    "analysis": "code, variant, deal, budget (solver positions per game), deal_result (won, lost or "
                "unknown), nodes, players[{player, result (won, lost_at, deal_lost, winnable_at_end or "
                "undecided), moves, nodes, on_line, winnable_through, index, move, losing_entry, line[], "
                "lost_from}], parted[{a, b, after}] and longest[] in a race: a finished room's "
                "post-game analysis (docs/design/analysis.md)",
}


# One packer for every message: msgpack.packb makes a new one (and its buffer)
# per call. The event loop's thread is the only one that encodes, and the
# packer empties its buffer after each message, and after a failed one.
_PACKER = msgpack.Packer(use_bin_type=True)


def encode(message: dict[str, Any]) -> bytes:
    packed: bytes = _PACKER.pack(message)
    return packed


def decode_client(frame: bytes | str) -> dict[str, Any]:
    """Decode and validate one client frame; raise :class:`ProtocolError`."""
    if isinstance(frame, str):
        raise ProtocolError("bad_frame", "frames must be binary msgpack, not text")
    if len(frame) > MAX_FRAME_BYTES:
        raise ProtocolError("bad_frame", f"frame larger than {MAX_FRAME_BYTES} bytes")
    try:
        data = msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True)
    except Exception:  # msgpack raises several unrelated types for bad input
        raise ProtocolError("bad_frame", "the frame is not valid msgpack") from None
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise ProtocolError("bad_frame", "a message is a msgpack map with a string 't'")
    kind = data["t"]
    if kind == "move":  # the message of the hot path: its three fields checked inline
        seq, move, v = data.get("seq"), data.get("move"), data.get("v")
        if type(seq) is int and type(v) is int and type(move) is str \
                and 0 <= seq <= _SEQ_HIGH and 0 <= v <= _SEQ_HIGH and len(move) <= _MOVE_LEN:
            return {"t": kind, "seq": seq, "move": move, "v": v}
        # anything else takes the general path below, for its precise error
    fields = CLIENT_MESSAGES.get(kind)
    if fields is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:32]!r}")
    out: dict[str, Any] = {"t": kind}
    for name, spec in fields.items():
        value = data.get(name)
        if value is None:
            if spec.required:
                raise ProtocolError("bad_field", f"{kind}: field {name!r} is required")
            continue
        out[name] = _check_field(kind, name, spec, value)
    return out


def _check_field(kind: str, name: str, spec: Field, value: Any) -> Any:
    # bool is an int in Python: keep the two apart on the wire
    if spec.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ProtocolError("bad_field", f"{kind}: {name} must be an integer")
    if spec.kind is not int and not isinstance(value, spec.kind):
        raise ProtocolError("bad_field", f"{kind}: {name} must be {spec.kind.__name__}")
    if spec.low is not None and value < spec.low:
        raise ProtocolError("bad_field", f"{kind}: {name} must be at least {spec.low}")
    if spec.high is not None and value > spec.high:
        raise ProtocolError("bad_field", f"{kind}: {name} must be at most {spec.high}")
    if spec.max_len is not None and len(value) > spec.max_len:
        raise ProtocolError("bad_field", f"{kind}: {name} is longer than {spec.max_len}")
    return value


def error(code: str, message: str, seq: int | None = None,
          retry_ms: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"t": "error", "code": code, "message": message}
    if seq is not None:
        out["seq"] = seq
    if retry_ms is not None:
        out["retry_ms"] = retry_ms
    return out
