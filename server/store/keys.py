"""The Redis key layout (docs/reference/storage.md).

Every key of a room carries the room code as a hash tag, ``room:{CODE}:…``,
so all of a room's keys sit in one Redis Cluster slot and one Lua script may
touch them together. The quick-race index is one key per variant.
"""

from __future__ import annotations


def meta(code: str) -> str:
    return f"room:{{{code}}}:meta"


def player(code: str, n: int) -> str:
    return f"room:{{{code}}}:p:{n}"


def log(code: str, n: int) -> str:
    return f"room:{{{code}}}:log:{n}"


def done(code: str) -> str:
    """A finished race's results and logs, packed (server/store/compact.py)."""
    return f"room:{{{code}}}:done"


def rematch(code: str) -> str:
    """The set of a finished room's players who accept a rematch."""
    return f"room:{{{code}}}:rematch"


def channel(code: str) -> str:
    return f"room:{{{code}}}:events"


# A room channel's message starts with one byte saying what follows, so the
# hub can forward a player's progress without decoding it.
EVENT = b"E"  # then a msgpack room event, for the sessions to read
PROGRESS = b"P"  # then the mover's number as one byte, then msgpack progress as sent


def event_envelope(payload: bytes) -> bytes:
    return EVENT + payload


def progress_envelope(n: int, payload: bytes) -> bytes:
    return PROGRESS + bytes((n,)) + payload


def all_player_keys(code: str, players: int) -> list[str]:
    return [player(code, n) for n in range(1, players + 1)]


def quick(variant: str) -> str:
    return f"quick:{variant}"
