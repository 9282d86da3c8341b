"""Arenas without I/O: points, streaks, pairing and the schedule (docs/design/arenas.md).

An arena is a timed event of one variant. Players join at any time; whoever
is waiting is grouped with others as soon as a pairing round comes; a
finished race scores points. Everything here is decided from plain values
(the race's ranking, the stored standing lines, the waiting list, the clock),
so it is tested by feeding it events; server/rooms/arenas.py reads and
writes Redis around it.

Scoring, per finished race and player:

* a **win** (the game won) scores 2; a player on a **streak** (its two races
  before this one were both wins) scores 4 instead: after two wins in a row
  every further win counts double, until a race that is not a win;
* when **nobody won**, the race's first place (most foundation cards, then
  earliest to reach that count, the race's own ranking) scores 1, if it put
  at least one card on a foundation itself; this is not a win, so it ends a
  streak;
* anything else scores 0 and ends the streak.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

WIN_POINTS = 2
FIRST_POINTS = 1  # the first place of a race nobody won
STREAK_WINS = 2  # wins in a row after which a win counts double
ID_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
ID_LENGTH = 6
MAX_GROUP = 8
DAY_MS = 86_400_000


@dataclass(frozen=True)
class Line:
    """One player's line of an arena's standing."""

    who: str  # the identity: "n:" + casefolded claimed name, "g:" + a guest's install or connection
    name: str
    points: int = 0
    races: int = 0
    wins: int = 0
    streak: int = 0  # wins in a row so far (a win with streak >= STREAK_WINS counts double)
    claimed: bool = False

    @property
    def on_fire(self) -> bool:
        """Its next win counts double."""
        return self.streak >= STREAK_WINS

    def dump(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def load(cls, text: str | bytes) -> Line:
        data = json.loads(text)
        return cls(who=str(data["who"]), name=str(data["name"]), points=int(data["points"]),
                   races=int(data["races"]), wins=int(data["wins"]), streak=int(data["streak"]),
                   claimed=bool(data.get("claimed", False)))

    def public(self, rank: int) -> dict[str, Any]:
        """What every member may see of the line: no identity key."""
        return {"rank": rank, "name": self.name, "points": self.points, "races": self.races,
                "wins": self.wins, "fire": self.on_fire, "claimed": self.claimed}


def race_points(won: bool, first_without_winner: bool, streak: int) -> tuple[int, int]:
    """(points, the streak after this race) for one player's finished race."""
    if won:
        return (2 * WIN_POINTS if streak >= STREAK_WINS else WIN_POINTS), streak + 1
    return (FIRST_POINTS if first_without_winner else 0), 0


def score_race(ranking: Sequence[Mapping[str, Any]], seats: Mapping[int, str],
               lines: Mapping[str, Line]) -> dict[str, Line]:
    """The new standing lines of a finished race's players.

    ``ranking`` is the race's results ranking (``player``, ``place``, ``won``,
    ``time_ms``: when it reached its foundation count, null if no move of its
    raised it), ``seats`` the seat number -> identity of the pairing, ``lines``
    the stored lines before the race. Seats the ranking lacks (a player who
    never came) count as a race scoring 0."""
    nobody_won = not any(r.get("won") for r in ranking)
    out: dict[str, Line] = {}
    ranked: dict[int, Mapping[str, Any]] = {int(r["player"]): r for r in ranking}
    for n, who in seats.items():
        line = lines.get(who)
        if line is None:
            continue  # its line is gone (the arena was closed meanwhile): nothing to score
        r = ranked.get(n)
        won = bool(r and r.get("won"))
        first = bool(r and nobody_won and r.get("place") == 1 and r.get("time_ms") is not None)
        points, streak = race_points(won, first, line.streak)
        out[who] = replace(line, points=line.points + points, races=line.races + 1,
                           wins=line.wins + int(won), streak=streak)
    return out


def split_sizes(count: int, group_max: int) -> list[int]:
    """Group sizes for ``count`` waiting players, at most ``group_max`` each, as
    even as possible; a group of one is a player who keeps waiting."""
    if count < 2:
        return [count] if count else []
    groups = math.ceil(count / group_max)
    low, extra = divmod(count, groups)
    return [low + 1] * extra + [low] * (groups - extra)


def pair(waiting: Sequence[tuple[str, int]], points: Mapping[str, int],
         group_max: int) -> list[list[str]]:
    """One pairing round: ``waiting`` is (identity, waiting since) of everyone
    who may be paired now. Players are ordered by points (most first), then by
    how long they waited, and cut into groups of at most ``group_max``, so each
    races others near it in the standing. Groups of one are left out (that
    player waits for the next round)."""
    if not 2 <= group_max <= MAX_GROUP:
        raise ValueError(f"group size must be 2..{MAX_GROUP}, not {group_max}")
    order = sorted(waiting, key=lambda w: (-points.get(w[0], 0), w[1], w[0]))
    out: list[list[str]] = []
    at = 0
    for size in split_sizes(len(order), group_max):
        group = [who for who, _ in order[at:at + size]]
        at += size
        if len(group) >= 2:
            out.append(group)
    return out


def phase(now: int, starts_at: int, ends_at: int, finished: bool) -> str:
    """``upcoming``, ``running`` (pairing), ``closing`` (over: its last races
    finish, nobody is paired) or ``finished`` (its final standing is kept)."""
    if finished:
        return "finished"
    if now < starts_at:
        return "upcoming"
    return "running" if now < ends_at else "closing"


def max_rounds(minutes: int, pair_ms: int) -> int:
    """The most pairing rounds an arena can have: one per pairing interval.
    Bounds the set of deals it used (each round uses one)."""
    return max(1, minutes * 60_000 // max(pair_ms, 1) + 1)


# -- the schedule ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Slot:
    """A daily arena of the schedule: at HH:MM UTC, one variant, for some minutes."""

    hour: int
    minute: int
    variant: str
    minutes: int


class ScheduleError(ValueError):
    pass


def parse_schedule(text: str, known: Iterable[str] = ()) -> list[Slot]:
    """``"18:00 four-seasons 60, 21:30 czarina 30"``: daily arenas (UTC); ``*`` for
    the hour (``"*:00 four-seasons 30"``) is one every hour, the 24 of them.
    ``known`` (if given) is the set of variant ids a slot may name."""
    known_set = set(known)
    out: list[Slot] = []
    for part in text.replace(";", ",").split(","):
        words = part.split()
        if not words:
            continue
        if len(words) != 3:
            raise ScheduleError(f"{part.strip()!r}: a slot is 'HH:MM VARIANT MINUTES'")
        clock, variant, minutes = words
        hh, _, mm = clock.partition(":")
        if not ((hh.isdigit() or hh == "*") and mm.isdigit() and minutes.isdigit()):
            raise ScheduleError(f"{part.strip()!r}: a slot is 'HH:MM VARIANT MINUTES'")
        hours = range(24) if hh == "*" else [int(hh)]
        slots = [Slot(hour, int(mm), variant, int(minutes)) for hour in hours]
        if not all(0 <= s.hour < 24 and 0 <= s.minute < 60 and 1 <= s.minutes <= 24 * 60 for s in slots):
            raise ScheduleError(f"{part.strip()!r}: the time or the length is out of range")
        if hh == "*" and int(minutes) > 60:
            raise ScheduleError(f"{part.strip()!r}: an hourly arena lasts at most 60 minutes")
        if known_set and variant not in known_set:
            raise ScheduleError(f"{part.strip()!r}: no variant {variant!r}")
        out += slots
    return out


def slot_start(slot: Slot, day: dt.date) -> int:
    moment = dt.datetime(day.year, day.month, day.day, slot.hour, slot.minute, tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def scheduled_id(slot: Slot, day: dt.date) -> str:
    """The same id on every server process for one slot and day, so each may
    create it and only the first does."""
    digest = hashlib.sha256(f"{day.isoformat()}|{slot.hour:02d}:{slot.minute:02d}|{slot.variant}"
                            .encode()).digest()
    return "".join(ID_ALPHABET[b % len(ID_ALPHABET)] for b in digest[:ID_LENGTH])


def due(slots: Sequence[Slot], now: int, ahead_ms: int) -> list[tuple[str, Slot, int]]:
    """The scheduled arenas to exist now: (id, slot, start) of every slot that
    starts within ``ahead_ms`` from now or is still running."""
    today = dt.datetime.fromtimestamp(now / 1000, tz=dt.UTC).date()
    out = []
    for day in (today - dt.timedelta(days=1), today, today + dt.timedelta(days=1)):
        for slot in slots:
            start = slot_start(slot, day)
            if start - ahead_ms <= now < start + slot.minutes * 60_000:
                out.append((scheduled_id(slot, day), slot, start))
    return out
