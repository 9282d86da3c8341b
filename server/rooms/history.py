"""Profiles' history: each claimed name's finished games and its figures
(docs/design/history.md).

**Written after the results, off the move path.** The one finish path
(``RoomService.finish_if_done``) hands the finished room and its results here
once they are published; the entries are built and stored by a background task
(at most :data:`MAX_PENDING` at once; past that a game is left out of the
history and logged), so neither a move nor the results wait for it.

**Read back** as the games list and the profile's figures; a kept game's
replay or ghost is server/rooms/kept.py's.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, Final

from redis.asyncio import Redis

from ..race.history import GameEntry, entries_of, win_rate
from ..race.rows import RoomRow
from ..store import keys
from ..store.history import HistoryStore
from ..store.rooms import RoomStore
from ..wire.errors import StoreUnavailable

log = logging.getLogger("patience.history")

MAX_PENDING: Final = 1_000  # history writes in flight per process
PAGE_MAX: Final = 50  # games per page of the list


class GameHistory:
    def __init__(self, redis: Redis, rooms: RoomStore, clock: Callable[[], int]) -> None:
        self.store = HistoryStore(redis, rooms._guard)
        self.rooms = rooms
        self.clock = clock
        self._pending: set[asyncio.Task[None]] = set()

    # -- writing ------------------------------------------------------------------
    def record_soon(self, room: RoomRow, results: dict[str, Any]) -> None:
        """Keep this finished room's games in its claimed players' histories, in
        the background."""
        if not any(p.ident and not p.bot for p in room.players):
            return  # guests and bots only: nobody's history
        if len(self._pending) >= MAX_PENDING:
            log.warning("history writes backed up: a race left out of the history",
                        extra={"room": room.code})
            return
        task = asyncio.create_task(self._record(room, results), name=f"history {room.code}")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _record(self, room: RoomRow, results: dict[str, Any]) -> None:
        try:
            await self.record(room, results)
        except StoreUnavailable:
            log.warning("a race's history not written: the store is unreachable",
                        extra={"room": room.code})
        except Exception:  # the history must never touch the race or its results
            log.exception("a race's history not written", extra={"room": room.code})

    async def record(self, room: RoomRow, results: dict[str, Any]) -> int:
        """Write the history of a finished room now; the number of games written."""
        raw = await self.rooms._guard(self.rooms.redis.hmget(keys.meta(room.code), "finished_at", "ghost"))
        at = int(raw[0]) if raw[0] else self.clock()
        ghost = (raw[1].decode() if isinstance(raw[1], bytes) else raw[1]) if raw[1] else None
        logs = {p.n: await self.rooms.moves(room.code, p.n)
                for p in room.players if p.ident and not p.bot}
        written = 0
        for entry in entries_of(room, results, logs, at, ghost):
            ident = room.player(entry.n).ident  # type: ignore[union-attr]  # entries_of kept claimed seats
            written += await self.store.record(str(ident), entry, self.clock()) == 1
        return written

    async def drain(self) -> None:
        """Wait for the writes in flight (a test's, or the server's shutdown)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._pending)
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        for task in tasks:
            task.cancel()

    # -- reading ------------------------------------------------------------------
    async def games(self, name: str, offset: int, limit: int) -> dict[str, Any]:
        """The ``games`` message: a page of the name's kept games, newest first."""
        limit = max(1, min(limit, PAGE_MAX))
        entries, total = await self.store.page(name, offset, limit, self.clock())
        return {"t": "games", "name": name, "offset": offset, "total": total,
                "games": [e.summary() for e in entries]}

    async def game(self, name: str, code: str) -> GameEntry | None:
        return await self.store.game(name, code, self.clock())

    async def figures(self, name: str) -> dict[str, Any]:
        """The profile's figures of a name: races, wins and win rate (all
        variants and per variant), best winning times, daily results, arenas."""
        row = await self.store.stats(name)
        variants: dict[str, dict[str, Any]] = {}
        for key, value in row.items():
            kind, _, variant = key.partition(":")
            if kind not in ("races", "wins", "best") or not variant:
                continue
            line = variants.setdefault(variant, {"races": 0, "wins": 0, "win_rate": None,
                                                 "best_ms": None, "best_code": None})
            if kind == "best":
                ms, code, *_ = value.split(" ")
                line["best_ms"], line["best_code"] = int(ms), code
            else:
                line[kind] = int(value)
        for line in variants.values():
            line["win_rate"] = win_rate(line["wins"], line["races"])
        races = sum(v["races"] for v in variants.values())
        wins = sum(v["wins"] for v in variants.values())
        daily_last = json.loads(row["daily_last"]) if row.get("daily_last") else []
        count = {mode: int(row.get(f"n:{mode}", 0)) for mode in ("race", "arena", "daily", "ghost", "solo")}
        return {"races": races, "wins": wins, "win_rate": win_rate(wins, races), "games": sum(count.values()),
                "played": count, "variants": variants,
                "daily": {"played": count["daily"], "won": int(row.get("daily_won", 0)), "last": daily_last},
                "arenas": {"played": int(row.get("arenas", 0)), "races": count["arena"],
                           "wins": int(row.get("arena_wins", 0))}}

