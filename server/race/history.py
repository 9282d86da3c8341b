"""A claimed name's finished game as its history keeps it, without I/O
(docs/design/history.md).

One entry per claimed person per finished room: what the games list shows
(when, the variant, the kind of game, the place, the outcome, the rating's
change) and that player's own record (the deal and the moves with their
times), enough to replay the game or race its ghost once the room itself has
expired. Only the record is kept, never a view: a view is the replay's to
make again. The moves are the compacted room's form (server/store/compact.py:
the steps between times, one move a line) and the whole entry is compressed.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from .rows import RoomRow

GAMES_KEPT: Final = 500  # the newest games of a name kept, ranked or not
CASUAL_KEPT_MS: Final = 90 * 86_400_000  # an unranked game is kept this long after it ended
DAILY_KEPT: Final = 10  # the newest daily results a profile lists
FORMAT: Final = b"\x01"  # the first byte says how the rest is packed

MODES: Final = ("race", "arena", "daily", "ghost", "solo")

Log = tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class GameEntry:
    """One name's game of one finished room."""

    code: str
    at: int  # when the race finished (server ms)
    variant: str
    deal: str
    mode: str  # one of MODES
    private: bool
    daily: str | None
    arena: str | None
    n: int  # the name's seat in the room
    name: str  # as the room showed it
    field: tuple[str, ...]  # every racer's shown name, in finishing order
    place: int
    won: bool
    status: str
    fc: int
    total: int
    time_ms: int | None
    moves: int
    ranked: bool  # a rated race or a ranked daily: the name's ranked results
    rating: tuple[float, float] | None  # the variant's rating before and after, when rated
    log: Log = ()

    @property
    def race_win(self) -> bool:
        """First place in a race of two or more (a win for the win rate)."""
        return self.mode in ("race", "arena") and self.place == 1 and len(self.field) >= 2

    def summary(self) -> dict[str, Any]:
        """The entry as the games list sends it: never the deal (a daily's is
        secret until its day is over, an arena's until the arena is) nor a move."""
        return {"code": self.code, "at": self.at, "variant": self.variant, "mode": self.mode,
                "private": self.private, "daily": self.daily, "arena": self.arena,
                "player": self.n, "players": list(self.field), "place": self.place,
                "won": self.won, "status": self.status, "foundation_cards": self.fc,
                "total_cards": self.total, "time_ms": self.time_ms, "moves": self.moves,
                "ranked": self.ranked,
                "rating_before": self.rating[0] if self.rating else None,
                "rating_after": self.rating[1] if self.rating else None}


def mode_of(room: RoomRow, ghost: str | None) -> str:
    if room.solo:
        return "solo"
    if room.daily:
        return "daily"
    if ghost:
        return "ghost"
    return "arena" if room.arena else "race"


def log_text(log: Sequence[tuple[int, str]]) -> str:
    """A move log as text: each entry's ms since the one before, its move (a finished
    room's packed record keeps its logs the same way: server/store/compact.py)."""
    lines, last = [], 0
    for ms, text in log:
        lines.append(f"{ms - last} {text}")
        last = ms
    return "\n".join(lines)


def log_rows(text: str) -> Log:
    """The entries of :func:`log_text`'s text, with their times again."""
    rows, at = [], 0
    for line in text.split("\n") if text else ():
        step, _, move = line.partition(" ")
        at += int(step)
        rows.append((at, move))
    return tuple(rows)


def pack_entry(entry: GameEntry) -> bytes:
    body = [entry.code, entry.at, entry.variant, entry.deal, entry.mode, entry.private, entry.daily,
            entry.arena, entry.n, entry.name, list(entry.field), entry.place, entry.won, entry.status,
            entry.fc, entry.total, entry.time_ms, entry.moves, entry.ranked,
            list(entry.rating) if entry.rating else None, log_text(entry.log)]
    return FORMAT + zlib.compress(msgpack.packb(body, use_bin_type=True), 9)


def unpack_entry(packed: bytes) -> GameEntry:
    """What :func:`pack_entry` packed; ValueError for anything else."""
    if packed[:1] != FORMAT:
        raise ValueError("not a packed game entry")
    try:
        b = msgpack.unpackb(zlib.decompress(packed[1:]), raw=False)
        return GameEntry(str(b[0]), int(b[1]), str(b[2]), str(b[3]), str(b[4]), bool(b[5]), b[6], b[7],
                         int(b[8]), str(b[9]), tuple(str(x) for x in b[10]), int(b[11]), bool(b[12]),
                         str(b[13]), int(b[14]), int(b[15]), b[16], int(b[17]), bool(b[18]),
                         (float(b[19][0]), float(b[19][1])) if b[19] else None, log_rows(str(b[20])))
    except (zlib.error, ValueError, TypeError, IndexError, KeyError) as exc:
        raise ValueError(f"a packed game entry that does not unpack: {exc}") from None


def entries_of(room: RoomRow, results: dict[str, Any], logs: dict[int, list[tuple[int, str]]],
               at: int, ghost: str | None) -> list[GameEntry]:
    """One entry per claimed person of a finished room (a bot's seat has none,
    nor a guest's), from the results as they were sent and each one's log."""
    ranking = [r for r in results.get("ranking", []) if isinstance(r, dict)]
    field = tuple(str(r.get("name", "")) for r in ranking)
    rated = results.get("ratings") or {}
    before = results.get("ratings_before") or {}
    mode = mode_of(room, ghost)
    out = []
    for r in ranking:
        p = room.player(int(r["player"]))
        if p is None or p.bot or not p.ident or p.n not in logs:
            continue
        ranked = p.ident in rated or bool(room.daily and results.get("ranked"))
        rating = (float(before[p.ident]), float(rated[p.ident])) \
            if p.ident in rated and p.ident in before else None
        out.append(GameEntry(
            room.code, at, room.variant, room.deal, mode, room.private, room.daily, room.arena, p.n,
            str(r.get("name", p.name)), field, int(r["place"]), bool(r["won"]), str(r["status"]),
            int(r["foundation_cards"]), int(r["total_cards"]), r.get("time_ms"), int(r["moves"]),
            ranked, rating, tuple(logs[p.n])))
    return out


def daily_item(entry: GameEntry) -> dict[str, Any]:
    """A daily game as the profile's newest daily results list it."""
    return {"date": entry.daily, "variant": entry.variant, "won": entry.won, "ranked": entry.ranked,
            "foundation_cards": entry.fc, "total_cards": entry.total, "time_ms": entry.time_ms,
            "code": entry.code}


def win_rate(wins: int, races: int) -> float | None:
    return round(wins / races, 3) if races else None
