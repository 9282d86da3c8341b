"""Who a claimed name follows and blocks, in Redis (docs/design/friends.md).

Every key is one name's and carries that name, casefolded, as its hash tag:

* ``friends:{NAME}:following``: hash, followed name (casefolded) -> its display
  name; at most MAX_FOLLOWING fields;
* ``friends:{NAME}:followers``: set of the names following NAME; at most
  MAX_FOLLOWERS (who is told when NAME comes online);
* ``block:{NAME}``: hash, blocked name (casefolded) -> its display name; at most
  MAX_BLOCKS fields.

Each key lapses ``ttl_s`` (the claimed name's own time to live) after its last
write or its owner's last sign-in. Every write is one script on one key that
checks its bound before it writes, so a refusal writes nothing; a follow or a
block that touches two names' keys checks both before writing either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

MAX_FOLLOWING: Final = 100
MAX_FOLLOWERS: Final = 1000
MAX_BLOCKS: Final = 200


def _tag(name: str) -> str:
    return name.casefold()


def following_key(name: str) -> str:
    return f"friends:{{{_tag(name)}}}:following"


def followers_key(name: str) -> str:
    return f"friends:{{{_tag(name)}}}:followers"


def block_key(name: str) -> str:
    return f"block:{{{_tag(name)}}}"


# KEYS: a hash.  ARGV: field, value, max, ttl_s -> 1 added, 2 there already, 0 full
_HADD: Final = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  return 2
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS: a set.  ARGV: member, max, ttl_s -> 1 added, 2 there already, 0 full
_SADD: Final = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 2 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class FriendStore:
    def __init__(self, redis: Redis, guard: Guard, ttl_s: int) -> None:
        self.redis = redis
        self._guard = guard
        self.ttl_s = ttl_s
        self._hadd = redis.register_script(_HADD)
        self._sadd = redis.register_script(_SADD)

    # -- reads -------------------------------------------------------------------------
    async def display(self, name: str) -> str | None:
        """The claimed name's display form, or None when no one holds it."""
        from .identity import user_key

        shown = await self._guard(self.redis.hget(user_key(name), "name"))
        return None if shown is None else _s(shown)

    async def following(self, name: str) -> dict[str, str]:
        """Followed name (casefolded) -> display name."""
        raw = await self._guard(self.redis.hgetall(following_key(name)))
        return {_s(k): _s(v) for k, v in raw.items()}

    async def followers(self, name: str) -> list[str]:
        return sorted(_s(m) for m in await self._guard(self.redis.smembers(followers_key(name))))

    async def blocked(self, name: str) -> dict[str, str]:
        raw = await self._guard(self.redis.hgetall(block_key(name)))
        return {_s(k): _s(v) for k, v in raw.items()}

    async def blocks_of(self, names: list[str]) -> dict[str, set[str]]:
        """Each name's blocked names (casefolded): one read per name, pipelined."""
        if not names:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for n in names:
            pipe.hkeys(block_key(n))
        rows = await self._guard(pipe.execute())
        return {n: {_s(x) for x in row} for n, row in zip(names, rows, strict=True)}

    async def apart(self, a: str, b: str) -> bool:
        """Either of the two names blocks the other."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hexists(block_key(a), _tag(b))
        pipe.hexists(block_key(b), _tag(a))
        one, two = await self._guard(pipe.execute())
        return bool(one) or bool(two)

    async def room_left(self, name: str) -> tuple[int, int, int]:
        """(following, followers, blocks) counts: what a refusal checks first."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hlen(following_key(name))
        pipe.scard(followers_key(name))
        pipe.hlen(block_key(name))
        a, b, c = await self._guard(pipe.execute())
        return int(a), int(b), int(c)

    async def follows(self, who: str, whom: str) -> bool:
        return bool(await self._guard(self.redis.hexists(following_key(who), _tag(whom))))

    # -- writes --------------------------------------------------------------------------
    async def follow(self, who: str, whom: str, shown: str) -> int:
        """``who`` follows ``whom``: 1 added, 2 followed already, 0 a list is full
        (nothing written). The follower's side is written first, so a follow lost
        halfway leaves at most a follower told of an arrival."""
        added = int(await self._guard(self._sadd([followers_key(whom)],
                                                 [_tag(who), MAX_FOLLOWERS, self.ttl_s])))
        if added == 0:
            return 0
        done = int(await self._guard(self._hadd([following_key(who)],
                                                [_tag(whom), shown, MAX_FOLLOWING, self.ttl_s])))
        if done == 0 and added == 1:  # full after all: the other side is taken back
            await self._guard(self.redis.srem(followers_key(whom), _tag(who)))
        return done

    async def unfollow(self, who: str, whom: str) -> bool:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hdel(following_key(who), _tag(whom))
        pipe.srem(followers_key(whom), _tag(who))
        gone, _ = await self._guard(pipe.execute())
        return bool(gone)

    async def block(self, who: str, whom: str, shown: str) -> int:
        """``who`` blocks ``whom`` (1, 2 already, 0 the list is full), and neither
        follows the other any more."""
        done = int(await self._guard(self._hadd([block_key(who)],
                                                [_tag(whom), shown, MAX_BLOCKS, self.ttl_s])))
        if done:
            await self.unfollow(who, whom)
            await self.unfollow(whom, who)
        return done

    async def unblock(self, who: str, whom: str) -> bool:
        return bool(await self._guard(self.redis.hdel(block_key(who), _tag(whom))))

    async def renew(self, name: str) -> None:
        """The name signed in: its lists live another ``ttl_s``."""
        pipe = self.redis.pipeline(transaction=False)
        for k in (following_key(name), followers_key(name), block_key(name)):
            pipe.expire(k, self.ttl_s)
        await self._guard(pipe.execute())
