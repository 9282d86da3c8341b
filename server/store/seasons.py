"""Season boards in Redis: the close at the turn of a season (its final standing
kept), a board's pages by season, and a name's rank with its neighbours.

A board of the current season is written beside its all-time board by the same
write (ratings: server/store/ratings.py; daily wins: boards.py); at the turn,
new writes go to the new season's keys by themselves, and the first process
that sees the old season unclosed takes its lock and closes it: the top of each
of its boards kept for good as JSON, the boards themselves kept a while longer
(docs/design/ladder.md, "Seasons").
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

from ..race.seasons import Season

FINAL_TOP: Final = 100  # entries of each board kept for good at a season's close
BOARDS_KEPT_S: Final = 400 * 86_400  # a closed season's full boards: ranks and pages for 13 months
SEASONS_LISTED: Final = 240  # closed seasons in the index (20 years of months)
LOCK_MS: Final = 60_000

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]


def tag(season: str) -> str:
    """The hash tag of a season's keys: ``alltime`` or ``s`` + the season's id."""
    return season if season == "alltime" else f"s{season}"


def board_key(board: str, season: str = "alltime") -> str:
    """A board (``rating:VARIANT``, ``daily-wins:VARIANT``) of all time or of a season."""
    return f"board:{{{tag(season)}}}:{board}"


def final_key(season: str) -> str:
    return f"season:{{{tag(season)}}}:final"


def lock_key(season: str) -> str:
    return f"season:{{{tag(season)}}}:lock"


INDEX: Final = "seasons:index"


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class SeasonStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard

    async def closed(self, season: str) -> bool:
        return bool(await self._guard(self.redis.exists(final_key(season))))

    async def close(self, season: Season, boards: list[str]) -> bool:
        """Close a season that has ended: keep each board's top for good and let
        the full boards lapse later. One process does it (a lock); True if this
        call closed it. Repeating a close rewrites the same standing."""
        if await self.closed(season.id):
            return False
        token = secrets.token_hex(8)
        if not await self._guard(self.redis.set(lock_key(season.id), token, nx=True, px=LOCK_MS)):
            return False
        final: dict[str, str] = {}
        for board in boards:
            key = board_key(board, season.id)
            rows = await self._guard(self.redis.zrevrange(key, 0, FINAL_TOP - 1, withscores=True))
            if rows:
                total = int(await self._guard(self.redis.zcard(key)))
                final[board] = json.dumps({"total": total, "top": [[_s(n), float(v)] for n, v in rows]},
                                          separators=(",", ":"))
                await self._guard(self.redis.expire(key, BOARDS_KEPT_S))
        final["_closed"] = json.dumps({"starts": season.starts_ms, "ends": season.ends_ms})
        # redis-py types mapping with an invariant key type no dict of str matches
        await self._guard(self.redis.hset(final_key(season.id), mapping=final))  # type: ignore[arg-type]
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(INDEX, {season.id: season.ends_ms})
        pipe.zremrangebyrank(INDEX, 0, -SEASONS_LISTED - 1)
        await self._guard(pipe.execute())
        return True

    async def closed_seasons(self, limit: int = 24) -> list[str]:
        """The newest closed seasons, newest first."""
        return [_s(s) for s in await self._guard(self.redis.zrevrange(INDEX, 0, limit - 1))]

    async def final(self, season: str, board: str) -> tuple[list[tuple[str, float]], int] | None:
        """A closed season's kept standing of a board: its top and how many were on it."""
        raw = await self._guard(self.redis.hget(final_key(season), board))
        if raw is None:
            return None
        doc = json.loads(_s(raw))
        return [(str(n), float(v)) for n, v in doc["top"]], int(doc["total"])

    async def page(self, key: str, offset: int, limit: int,
                   rev: bool = True) -> tuple[list[tuple[str, float]], int]:
        get = self.redis.zrevrange if rev else self.redis.zrange
        rows = await self._guard(get(key, offset, offset + limit - 1, withscores=True))
        count = await self._guard(self.redis.zcard(key))
        return [(_s(n), float(v)) for n, v in rows], int(count)

    async def neighbours(self, key: str, member: str, around: int,
                         rev: bool = True) -> tuple[int | None, list[tuple[str, float]], int]:
        """The member's rank (0-based, None when not on the board), the ``around``
        entries above and below it with its own, and the board's size: a
        sorted-set rank and one range, whatever the board's size."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(key)
        if rev:
            pipe.zrevrank(key, member)
        else:
            pipe.zrank(key, member)
        count, rank = await self._guard(pipe.execute())
        if rank is None:
            return None, [], int(count)
        first = max(int(rank) - around, 0)
        rows, _ = await self.page(key, first, int(rank) - first + around + 1, rev)
        return int(rank), rows, int(count)
