"""The quick-race queue of each variant in Redis (docs/design/ladder.md,
"Pairing by skill").

Every key of a variant's queue carries the tag ``{mm:VARIANT}``: one slot, so
each write is one script on a Redis Cluster too. Whoever waits is in ``queue``
(ticket -> since), ``tickets`` (ticket -> its rating) and ``seen`` (ticket ->
when its process last renewed it). One process at a time pairs a variant: the
holder of ``lease`` (SET NX PX, renewed each tick, as an arena's pairer); its
``ASSIGN`` is fenced by that lease, so a process that lost it cannot pair beside
the new holder. A pairing is written to ``assign`` (ticket -> room code and bot
level) and taken by the process that holds the waiting player's connection.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

from ..race.matching import Ticket

QUEUE_MAX: Final = 5000  # tickets waiting per variant: one more is refused
SEEN_MS: Final = 5000  # a ticket not renewed this long is dropped (its process went away)
KEY_TTL_S: Final = 3600  # every queue key lapses an hour after its last write

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]


def key(variant: str, part: str) -> str:
    return f"mm:{{{variant}}}:{part}"


def parts(variant: str) -> list[str]:
    return [key(variant, p) for p in ("queue", "tickets", "seen", "assign")]


_TOUCH = """
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[#ARGV]) end
"""

# KEYS: queue tickets seen assign.  ARGV: ticket rating now max ttl -> 1 queued, 0 full
ENQUEUE: Final = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
""" + _TOUCH + """
return 1
"""

# KEYS: queue tickets seen assign.  ARGV: ticket, ttl -> 1 if it was waiting
CANCEL: Final = """
local was = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return was
"""

# KEYS: queue tickets seen assign.  ARGV: now, ticket..., ttl: renew the tickets still waiting
SEEN: Final = """
for i = 2, #ARGV - 1 do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then redis.call('ZADD', KEYS[3], ARGV[1], ARGV[i]) end
end
""" + _TOUCH

# KEYS: lease. ARGV: token ms -> 1 if held (taken or renewed)
LEASE: Final = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: lease queue tickets seen assign.  ARGV: token, value, ttl, now, ticket...
# -> 1 assigned (every ticket still waiting), 0 a ticket left meanwhile, -1 lease lost.
# An assigned ticket stays in seen, no longer renewed: a pairing nobody takes goes with it.
ASSIGN: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
for i = 5, #ARGV do
  if redis.call('ZSCORE', KEYS[2], ARGV[i]) == false then return 0 end
end
for i = 5, #ARGV do
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[i])
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[2])
end
for i = 2, 5 do redis.call('EXPIRE', KEYS[i], ARGV[3]) end
return 1
"""

# KEYS: lease queue tickets seen assign.  ARGV: token, before -> tickets dropped: waiting
# and not renewed since (their process went away), or paired and not taken since
DROP_UNSEEN: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[2])
for _, t in ipairs(gone) do
  redis.call('ZREM', KEYS[2], t)
  redis.call('HDEL', KEYS[3], t)
  redis.call('ZREM', KEYS[4], t)
  redis.call('HDEL', KEYS[5], t)
end
return #gone
"""

# KEYS: assign seen.  ARGV: ticket... -> the values taken (false where none), each removed
TAKE: Final = """
local out = {}
for i = 1, #ARGV do
  out[i] = redis.call('HGET', KEYS[1], ARGV[i])
  if out[i] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
  end
end
return out
"""


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class MatchStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._enqueue = redis.register_script(ENQUEUE)
        self._cancel = redis.register_script(CANCEL)
        self._seen = redis.register_script(SEEN)
        self._lease = redis.register_script(LEASE)
        self._assign = redis.register_script(ASSIGN)
        self._drop = redis.register_script(DROP_UNSEEN)
        self._take = redis.register_script(TAKE)

    async def enqueue(self, variant: str, ticket: str, rating: float, now: int) -> bool:
        """Queue a player; False when the variant's queue is full."""
        return bool(await self._guard(self._enqueue(
            parts(variant), [ticket, repr(rating), now, QUEUE_MAX, KEY_TTL_S])))

    async def cancel(self, variant: str, ticket: str) -> bool:
        return bool(await self._guard(self._cancel(parts(variant), [ticket, KEY_TTL_S])))

    async def renew(self, variant: str, tickets: list[str], now: int) -> None:
        if tickets:
            await self._guard(self._seen(parts(variant), [now, *tickets, KEY_TTL_S]))

    async def hold_lease(self, variant: str, token: str, ms: int) -> bool:
        return bool(await self._guard(self._lease([key(variant, "lease")], [token, ms])))

    async def waiting(self, variant: str, token: str, now: int) -> list[Ticket]:
        """The tickets waiting, after dropping those their process stopped renewing."""
        await self._guard(self._drop([key(variant, p) for p in ("lease", "queue", "tickets", "seen",
                                                                 "assign")], [token, now - SEEN_MS]))
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrange(key(variant, "queue"), 0, -1, withscores=True)
        pipe.hgetall(key(variant, "tickets"))
        queue, ratings = await self._guard(pipe.execute())
        rated = {_s(k): float(_s(v)) for k, v in ratings.items()}
        return [Ticket(_s(t), rated.get(_s(t), 0.0), int(since)) for t, since in queue]

    async def assign(self, variant: str, token: str, tickets: list[str], value: str, now: int) -> int:
        """Give these tickets their room, all at once and only if every one still waits."""
        ks = [key(variant, p) for p in ("lease", "queue", "tickets", "seen", "assign")]
        return int(await self._guard(self._assign(ks, [token, value, KEY_TTL_S, now, *tickets])))

    async def take(self, variant: str, tickets: list[str]) -> dict[str, str]:
        """The pairings of these tickets that are ready (each taken once)."""
        if not tickets:
            return {}
        values = await self._guard(self._take([key(variant, "assign"), key(variant, "seen")], tickets))
        return {t: _s(v) for t, v in zip(tickets, values, strict=True) if v}
