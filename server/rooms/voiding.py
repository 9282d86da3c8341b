"""Voiding a rated race: every player's rating without it, and the boards after
(docs/operations/moderation.md says how, and how exact that is).

A race is found by its code: the players and variant noted when it was rated
(``mod:rated:{CODE}``, kept 90 days), else the room while its row is kept. A
daily's ranked result leaves that day's board (and the wins boards, had it
won); a race's ratings are each taken out of its players' ratings and the
boards of the current season and all time take the new values.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..race.ratings import Skill
from ..race.rows import RoomRow
from ..store.bans import BanStore
from ..store.boards import DAILY_TTL_S
from ..store.voids import VoidStore
from .ladder import Ladder


def noted(room: RoomRow, names: list[str], won: bool) -> dict[str, Any]:
    """What a void needs of a rated race, noted when it is rated."""
    return {"variant": room.variant, "names": names, "daily": room.daily or None, "won": won}


def from_room(room: RoomRow) -> dict[str, Any]:
    """The same from a room's row, for a race rated before notes were kept."""
    names = [p.ident for p in room.players if p.ident and not p.bot]
    return {"variant": room.variant, "names": names, "daily": room.daily or None, "won": None}


def kept_days(today: str) -> list[str]:
    """The days whose daily boards are kept, newest first."""
    first = dt.date.fromisoformat(today)
    return [(first - dt.timedelta(days=i)).isoformat() for i in range(DAILY_TTL_S // 86_400)]


class Voider:
    def __init__(self, voids: VoidStore, bans: BanStore, ladder: Ladder) -> None:
        self.voids = voids
        self.bans = bans
        self.ladder = ladder

    async def race(self, code: str, race: dict[str, Any], now_ms: int,
                   only: set[str] | None = None,
                   skills: dict[str, tuple[Skill, Skill]] | None = None) -> dict[str, Any]:
        """Void race ``code`` for its players (or only those named): what changed, by
        name; ``skills`` gets each rating written (before, after), for the results log."""
        variant = race["variant"]
        names = [n for n in race["names"] if only is None or n.casefold() in only]
        out: dict[str, Any] = {}
        if race.get("daily"):
            for name in names:
                took = await self.voids.take_off_daily([race["daily"]], [variant], name)
                if took and race.get("won"):
                    await self.voids.uncount_win(variant, name, self.ladder.written())
                out[name] = "off the daily board" if took else "not on the daily board"
            return out
        placed = []
        for name in names:
            done = await self.voids.void_rating(variant, code, name, now_ms)
            if isinstance(done, str):
                out[name] = done
                continue
            before, after = done
            if skills is not None:
                skills[name] = (before, after)
            out[name] = {"before": round(before.ordinal, 3), "after": round(after.ordinal, 3)}
            placed.append(name)
        cheaters = await self.bans.cheaters([n.casefold() for n in placed])
        await self.voids.place(variant, [n for n in placed if n.casefold() not in cheaters],
                               self.ladder.written())
        return out

    async def everything_of(self, name: str, variants: list[str], all_variants: list[str],
                            today: str, now_ms: int, lookup: Any,
                            skills: dict[str, dict[str, tuple[Skill, Skill]]] | None = None
                            ) -> dict[str, Any]:
        """Void every rated race kept in a cheater's histories (newest first,
        so each is its last change when voided: exact for the cheater), refund
        its opponents, and take the name off every board."""
        voided: dict[str, Any] = {}
        of: dict[str, str] = {}  # race -> its variant
        for variant in variants:
            for code in await self.voids.rated_races(name, variant):
                of[code] = variant
                race = await lookup(code)
                if race is None:  # the opponents are no longer known: the cheater's own change
                    race = {"variant": variant, "names": [name], "daily": None, "won": None}
                voided[code] = await self.race(code, race, now_ms, None,
                                               None if skills is None else skills.setdefault(code, {}))
        await self.voids.take_off_boards(name, all_variants, self.ladder.written())
        days = await self.voids.take_off_daily(kept_days(today), all_variants, name)
        return {"races": voided, "daily_entries": days, "variants": of}
