"""The results log's format, without I/O: entries, records, hashes and the chain.

Every ranked result, every void and every rename is one line of the log: the
canonical JSON of ``{"entry": ..., "record": ...}``. The entry says what the
server did (the ratings it wrote, the board score it entered) and holds the
SHA-256 of its record (the games as played, or null for a void or a rename)
and of the entry before it, so changing any line breaks the chain at that
line or at the next. Canonical JSON (sorted keys, no spaces, ASCII only) makes
the bytes hashed a function of the data, so anyone can recompute each hash
from the parsed line (docs/reference/results-log.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

VERSION: Final = 1
GENESIS: Final = "0" * 64  # the "previous hash" of the first entry
KINDS: Final = ("result", "void", "rename")
LINE_MAX: Final = 4_000_000  # bytes of one line: 8 seats of at most 5,001 entries with their times


class BadLine(ValueError):
    """A line that is not an entry of this log's format."""


def canonical(data: Any) -> bytes:
    """The one byte form of a JSON value: what every hash of the log is taken over."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode()


def digest(data: Any) -> str:
    return hashlib.sha256(canonical(data)).hexdigest()


@dataclass(frozen=True)
class Link:
    """Where the chain stands: the last entry's number and hash (0 and GENESIS: empty)."""

    seq: int = 0
    hash: str = GENESIS


@dataclass(frozen=True)
class Line:
    entry: dict[str, Any]
    record: dict[str, Any] | None

    @property
    def hash(self) -> str:
        return digest(self.entry)

    @property
    def seq(self) -> int:
        return int(self.entry["seq"])

    def text(self) -> str:
        return canonical({"entry": self.entry, "record": self.record}).decode()


def chained(after: Link, kind: str, at_ms: int, fields: dict[str, Any],
            record: dict[str, Any] | None) -> Line:
    """The next line after ``after``: a ``kind`` entry at ``at_ms`` with these
    fields, holding its record's hash (null without a record)."""
    if kind not in KINDS:
        raise ValueError(f"an entry is one of {', '.join(KINDS)}")
    entry = {**fields, "v": VERSION, "seq": after.seq + 1, "prev": after.hash, "kind": kind,
             "at": at_ms, "record": None if record is None else digest(record)}
    return Line(entry, record)


def parse(text: str | bytes) -> Line:
    """A line of the log as read; :class:`BadLine` when it is not one."""
    if len(text) > LINE_MAX:
        raise BadLine(f"a line is longer than {LINE_MAX} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BadLine(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or set(data) != {"entry", "record"}:
        raise BadLine("a line is an object of two fields, entry and record")
    entry, record = data["entry"], data["record"]
    if not isinstance(entry, dict) or not (record is None or isinstance(record, dict)):
        raise BadLine("entry is an object, record an object or null")
    if entry.get("v") != VERSION:
        raise BadLine(f"unknown entry version {entry.get('v')!r}; this tool reads {VERSION}")
    seq, prev, kind = entry.get("seq"), entry.get("prev"), entry.get("kind")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise BadLine("seq is a whole number from 1")
    if not isinstance(prev, str) or len(prev) != 64:
        raise BadLine("prev is a SHA-256 in hex")
    if kind not in KINDS:
        raise BadLine(f"kind is one of {', '.join(KINDS)}")
    if not isinstance(entry.get("at"), int):
        raise BadLine("at is a time in ms")
    return Line(entry, record)


def link_fault(line: Line, before: Link) -> str | None:
    """Why ``line`` does not follow ``before`` in the chain, or None if it does."""
    if line.seq != before.seq + 1:
        return f"its number is {line.seq}, the entry after {before.seq} is {before.seq + 1}"
    if line.entry["prev"] != before.hash:
        return "it does not hold the hash of the entry before it (that entry or this one was changed)"
    wanted = None if line.record is None else digest(line.record)
    if line.entry.get("record") != wanted:
        return "its record's hash is not the hash it holds (the record was changed)"
    return None


# -- what the server logs ------------------------------------------------------------------
def seat(n: int, name: str | None, bot: bool, moves: list[tuple[int, str]]) -> dict[str, Any]:
    """One racer of a race's record: seat number, claimed name (None: a guest),
    whether a bot sat there, and the log the server accepted, its times apart."""
    return {"n": n, "name": name, "bot": bot, "moves": [t for _, t in moves], "ms": [ms for ms, _ in moves]}


def race_record(variant: str, deal: str, race_ms: int, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """What a ranked result's entry holds the hash of: the deal and every racer's game."""
    return {"variant": variant, "deal": deal, "deal_version": "deal_v1", "race_ms": race_ms, "seats": seats}


def result_fields(race: str, variant: str, daily: str | None, ratings: dict[str, tuple[str, str]],
                  boards: tuple[str, ...], board: dict[str, Any] | None,
                  bots: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A result entry's claims: the ratings written (name -> stored form before
    and after), the boards (season ids) they went on, a daily's board entry, and
    the bot accounts among the names (rated on the bots' boards)."""
    return {"race": race, "variant": variant, "daily": daily,
            "ratings": {n: list(v) for n, v in sorted(ratings.items())}, "boards": list(boards),
            "board": board, "bots": sorted(bots)}


def void_fields(race: str, names: list[str], reason: str,
                ratings: dict[str, tuple[str, str]] | None = None,
                boards: tuple[str, ...] = (), variant: str | None = None) -> dict[str, Any]:
    """A void's claims: the race, whose results of these names no longer count,
    why, and the ratings moderation wrote in their place (name -> before, after).
    ``variant`` names the race's variant, which lets a log that does not hold the race
    (it was rated before the log began) apply the ratings all the same."""
    fields = {"race": race, "names": sorted(names), "reason": reason,
              "ratings": {n: list(v) for n, v in sorted((ratings or {}).items())},
              "boards": list(boards)}
    if variant is not None:
        fields["variant"] = variant
    return fields


def rename_fields(old: str, new: str) -> dict[str, Any]:
    return {"old": old, "new": new}
