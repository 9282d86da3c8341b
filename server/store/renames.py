"""A claimed name moved to a new name by a moderator (docs/operations/moderation.md).

The old name's keys sit in its own slot and the new name's in another, so the
move is key by key (``DUMP`` and ``RESTORE``, each with its TTL), never one
script: the new name's keys are written first, the boards' entries moved, and
the old keys deleted last. A failure half way leaves both names holding the
account, never neither; the rename run again finishes it (it writes a new key
only where none is).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis

from ..race.ratings import stored_skills
from .boards import daily_key
from .identity import identity_keys
from .ratings import history_key, rating_board, user_key
from .seasons import board_key

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def name_keys(name: str, variants: list[str]) -> list[str]:
    """Every key of a claimed name this server knows: its hash, device keys,
    recovery codes, link code and rating histories."""
    return [*identity_keys(name), *(history_key(name, v) for v in variants)]


class RenameStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard

    async def claimed(self, name: str) -> bool:
        return bool(await self._guard(self.redis.hexists(user_key(name), "key")))

    async def exists(self, name: str) -> bool:
        return bool(await self._guard(self.redis.exists(user_key(name))))

    async def move(self, old: str, new: str, seasons: tuple[str, ...], days: list[str],
                   all_variants: list[str]) -> list[str]:
        """Move ``old``'s keys and board entries to ``new``; returns the variants it was rated in."""
        row = {_s(k): _s(v) for k, v in (await self._guard(self.redis.hgetall(user_key(old)))).items()}
        variants = sorted(stored_skills(row))
        for src, dst in zip(name_keys(old, variants), name_keys(new, variants), strict=True):
            pipe = self.redis.pipeline(transaction=False)
            pipe.dump(src)
            pipe.pttl(src)
            blob, ttl = await self._guard(pipe.execute())
            if blob is None:
                continue
            await self._guard(self.redis.restore(dst, max(int(ttl), 0), blob, replace=True))
        await self._guard(self.redis.hset(user_key(new), "name", new))
        await self._move_members(old, new, [rating_board(v, s) for v in variants for s in seasons]
                                 + [board_key(f"daily-wins:{v}", s) for v in all_variants for s in seasons])
        await self._move_daily(old, new, days, all_variants)
        await self._guard(self.redis.delete(*name_keys(old, variants)))
        return variants

    async def _move_members(self, old: str, new: str, boards: list[str]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for board in boards:
            pipe.zscore(board, old.casefold())
        scores = await self._guard(pipe.execute()) if boards else []
        pipe = self.redis.pipeline(transaction=False)
        for board, score in zip(boards, scores, strict=True):
            if score is not None:
                pipe.zadd(board, {new.casefold(): float(score)})
                pipe.zrem(board, old.casefold())
        await self._guard(pipe.execute())

    async def _move_daily(self, old: str, new: str, days: list[str], variants: list[str]) -> None:
        """The daily boards of the kept days: entry and result under the new name."""
        places = [(d, v) for d in days for v in variants]
        pipe = self.redis.pipeline(transaction=False)
        for day, variant in places:
            pipe.zscore(daily_key(day, variant, "board"), old.casefold())
            pipe.hget(daily_key(day, variant, "results"), old.casefold())
        found = await self._guard(pipe.execute()) if places else []
        pipe = self.redis.pipeline(transaction=False)
        for (day, variant), score, result in zip(places, found[::2], found[1::2], strict=True):
            if score is None:
                continue
            board, results = daily_key(day, variant, "board"), daily_key(day, variant, "results")
            pipe.zadd(board, {new.casefold(): float(score)})
            pipe.zrem(board, old.casefold())
            if result is not None:
                pipe.hset(results, new.casefold(), result)
                pipe.hdel(results, old.casefold())
        await self._guard(pipe.execute())
