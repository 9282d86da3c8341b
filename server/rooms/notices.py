"""Notices of time: an arena a connection joined is about to start, the
season is ending (docs/design/friends.md).

Each process tells its own connections, so nothing crosses processes and
nothing is written: every TICK_S the loop looks at this process's arena
members and signed-in connections. An arena's members are told once, between
ARENA_AHEAD_MS and its start; a signed-in connection is told once per season,
from SEASON_AHEAD_MS before its end (on arrival, if later). What was told is
remembered per arena and per season, and forgotten with them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Final

from ..wire.errors import StoreUnavailable
from .presence import Presence, notice

if TYPE_CHECKING:
    from .arenas import ArenaRunner

log = logging.getLogger("patience.notices")

TICK_S: Final = 5.0
ARENA_AHEAD_MS: Final = 60_000  # an arena's members are told a minute before it starts
SEASON_AHEAD_MS: Final = 24 * 3_600_000  # a season's end is told a day before


class Notices:
    def __init__(self, presence: Presence, arenas: ArenaRunner) -> None:
        self.presence = presence
        self.arenas = arenas
        self.clock = presence.service.clock
        # arena -> its start (read once) and the connections told: arenas with members here only
        self._starts: dict[str, tuple[int, str]] = {}
        self._told_arena: dict[str, set[str]] = {}
        self._season = ""  # the season whose end is being told
        self._told_season: set[str] = set()  # connection ids told of it (signed-in ones here)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="notices")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def tick(self) -> None:
        now = self.clock()
        await self.arenas_soon(now)
        self.season_ending(now)

    async def arenas_soon(self, now: int) -> None:
        members = self.arenas.members
        for gone in [a for a in self._starts if a not in members]:
            self._starts.pop(gone, None)
            self._told_arena.pop(gone, None)
        for arena, local in list(members.items()):
            known = self._starts.get(arena)
            if known is None:
                d = await self.arenas.definition(arena)
                if not d:
                    continue
                known = self._starts[arena] = (int(d.get("starts_at", 0)), d.get("name", arena))
            starts, name = known
            if not 0 < starts - now <= ARENA_AHEAD_MS:
                continue
            told = self._told_arena.setdefault(arena, set())
            told &= {p.id for p in local}  # members gone are forgotten (one who comes back is told)
            for player in list(local):
                if player.id not in told and not player.closed:
                    told.add(player.id)
                    player.send(notice("arena_soon", id=arena, name=name, starts_at=starts))

    def season_ending(self, now: int) -> None:
        season = self.presence.service.competition.ladder.current()
        if season.ends_ms - now > SEASON_AHEAD_MS:
            return
        if season.id != self._season:
            self._season, self._told_season = season.id, set()
        here = {p.id: p for p in self.presence.online_here()}
        self._told_season &= set(here)  # connections gone are forgotten
        for pid, player in here.items():
            if pid not in self._told_season:
                self._told_season.add(pid)
                player.send(notice("season_ending", season=season.id, ends_at=season.ends_ms))

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                await self.tick()
            except StoreUnavailable:
                pass  # the next tick tries again
            except Exception:  # a bug here must not end every later notice
                log.exception("notices tick failed")
