"""The ladder's boards as the handlers ask for them: a variant's rating or
daily-wins board of all time or of a season, a page of it or a name with its
neighbours, and the close of each season at its turn (docs/design/ladder.md).

Every process runs the close check once a minute; the first to see the season
before the current one unclosed closes it (server/store/seasons.py), so the
close needs no process of its own and survives any one of them going away.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Final

from ..game.variants import variant_ids
from ..ops.aio import stop_task
from ..race.seasons import Season, previous, season_at, valid_id
from ..store.boards import BoardStore
from ..store.seasons import SeasonStore, board_key
from ..wire.errors import StoreUnavailable

log = logging.getLogger("patience.ladder")

Clock = Callable[[], int]

LADDER_KINDS: Final = ("rating", "wins")  # the boards with seasons (a daily board is a day's)
NEIGHBOURS: Final = 5  # entries shown above and below a name
CLOSE_CHECK_S: Final = 60.0
CLOSE_GRACE_MS: Final = 60_000  # a season is closed this long after its end: late writes land first


def board_name(kind: str, variant: str) -> str:
    """The stored board of a kind (``rating``, ``wins``) and variant."""
    return f"rating:{variant}" if kind == "rating" else f"daily-wins:{variant}"


class Ladder:
    def __init__(self, boards: BoardStore, clock: Clock, season_days: int) -> None:
        self.boards = boards
        self.clock = clock
        self.season_days = season_days
        self.seasons = SeasonStore(boards.redis, boards.guard)
        self._task: asyncio.Task[None] | None = None

    # -- seasons ---------------------------------------------------------------------------
    def current(self) -> Season:
        return season_at(self.clock(), self.season_days)

    def written(self) -> tuple[str, ...]:
        """The boards a result goes on now: all time and the current season."""
        return ("alltime", self.current().id)

    def season_of(self, asked: str | None) -> str:
        """The season a request names: none (all time), ``current``, or the id of
        a season that has begun; anything else is ``bad_field``."""
        if not asked:
            return "alltime"
        if asked == "current":
            return self.current().id
        if not valid_id(asked, self.clock(), self.season_days):
            from ..wire.protocol import ProtocolError

            raise ProtocolError("bad_field", "board: season is current or the first day (YYYY-MM-DD) "
                                "of a season that has begun")
        return asked

    async def season_list(self, closed: int) -> dict[str, Any]:
        """The season under way (its id, start and end) and the ids of the
        newest ``closed`` seasons that have closed, newest first."""
        now = self.current()
        return {"current": {"id": now.id, "starts_at": now.starts_ms, "ends_at": now.ends_ms},
                "closed": await self.seasons.closed_seasons(closed)}

    async def close_due(self) -> bool:
        """Close the season before the current one if it is not closed yet."""
        now = self.clock()
        last = previous(self.current(), self.season_days)
        if now < last.ends_ms + CLOSE_GRACE_MS:
            return False
        boards = [board_name(k, v) for k in LADDER_KINDS for v in variant_ids()]
        closed = await self.seasons.close(last, boards)
        if closed:
            log.info("season closed", extra={"season": last.id})
        return closed

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="seasons")

    async def close(self) -> None:
        if self._task is not None:
            await stop_task(self._task, 2.0)

    async def _loop(self) -> None:
        while True:
            try:
                await self.close_due()
            except StoreUnavailable:
                log.warning("season close check: the store is unreachable; the next check tries again")
            except Exception:  # a bug here must not end the checks of every later season
                log.exception("season close check failed")
            await asyncio.sleep(CLOSE_CHECK_S)

    # -- boards -----------------------------------------------------------------------------
    async def page(self, kind: str, variant: str, season: str, offset: int,
                   limit: int) -> tuple[list[dict[str, Any]], int]:
        key = board_key(board_name(kind, variant), season)
        rows, total = await self.seasons.page(key, offset, limit)
        if not total and season != "alltime":
            kept = await self.seasons.final(season, board_name(kind, variant))
            if kept is not None:  # its full board has lapsed: the standing kept at its close
                top, total = kept
                rows = top[offset:offset + limit]
        return await self._entries(kind, variant, rows, offset), total

    async def near(self, kind: str, variant: str, season: str,
                   name: str) -> tuple[int | None, list[dict[str, Any]], int]:
        """A name's rank (1 first; None when not on the board) with the entries
        around it."""
        key = board_key(board_name(kind, variant), season)
        rank, rows, total = await self.seasons.neighbours(key, name.casefold(), NEIGHBOURS)
        if rank is None:
            return None, [], total
        first = max(rank - NEIGHBOURS, 0)
        return rank + 1, await self._entries(kind, variant, rows, first), total

    async def _entries(self, kind: str, variant: str, rows: list[tuple[str, float]],
                       first: int) -> list[dict[str, Any]]:
        if kind == "rating":
            return await self.boards.ratings.entries(variant, rows, first)
        shown = await self.boards.display_names([n for n, _ in rows])
        return [{"rank": first + i + 1, "name": shown.get(n, n), "value": round(v, 3)}
                for i, (n, v) in enumerate(rows)]
