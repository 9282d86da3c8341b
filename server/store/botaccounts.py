"""Bot accounts in Redis: the bot mark of a claimed name (field ``bot`` of its
``user:{name}`` hash, so it lives and lapses with the name) and the bots'
rating boards, apart from the persons' (docs/design/bot-accounts.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

from .ratings import RatingStore, bot_board, user_key

# KEYS: the name's hash -> 1 marked (or marked before), 0 the name has a ranked result,
# -1 the name is not claimed. A name with a rating or a ranked daily is a person's for good.
MARK: Final = """
if redis.call('HEXISTS', KEYS[1], 'key') == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'bot') == '1' then return 1 end
local fields = redis.call('HKEYS', KEYS[1])
for _, f in ipairs(fields) do
  if string.sub(f, 1, 2) == 'r:' or f == 'last_day' or f == 'mu' then return 0 end
end
redis.call('HSET', KEYS[1], 'bot', '1')
return 1
"""

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]


class BotAccountStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._mark = redis.register_script(MARK)
        self.entries = RatingStore(redis, guard).entries  # a board's rows as the persons' boards show them

    async def mark(self, name: str) -> int:
        return int(await self._guard(self._mark(keys=[user_key(name)])))

    async def marked(self, names: list[str]) -> set[str]:
        """Which of these names are bot accounts."""
        if not names:
            return set()
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hget(user_key(name), "bot")
        found = await self._guard(pipe.execute())
        return {n for n, v in zip(names, found, strict=True) if v in (b"1", "1")}

    async def page(self, variant: str, season: str, offset: int,
                   limit: int) -> tuple[list[tuple[str, float]], int]:
        key = bot_board(variant, season)
        rows = await self._guard(self.redis.zrevrange(key, offset, offset + limit - 1, withscores=True))
        count = await self._guard(self.redis.zcard(key))
        return [(n.decode() if isinstance(n, bytes) else str(n), float(v)) for n, v in rows], int(count)
