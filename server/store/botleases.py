"""Who drives a bot's seat: one lease per bot seat, in the room's slot.

A bot plays in the process that seated it. That process renews the seat's
lease (``room:{CODE}:bot:N``, a token with a time to live) while the bot runs;
a lease that lapsed means no process drives the bot any more (the process
died, or was killed), and any process may take the seat up again by taking
the lease (SET NX: only one does). Renewing is fenced by the token, so a bot
whose lease was taken over stops instead of playing next to its successor.
"""

from __future__ import annotations

from typing import Final

from redis.asyncio import Redis

from .rooms import RoomStore

__all__ = ["BotLeases", "LEASE_MS", "lease_key"]

LEASE_MS: Final = 10_000  # a bot's lease outlives its process by at most this long

# KEYS: lease. ARGV: token ms -> 1 (renewed) | 0 (another token holds it, or none)
_RENEW: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: lease. ARGV: token -> 1 (released) | 0 (not ours)
_RELEASE: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""


def lease_key(code: str, n: int) -> str:
    """In the room's hash slot (its code is the tag), beside the room's own keys."""
    return f"room:{{{code}}}:bot:{n}"


class BotLeases:
    def __init__(self, redis: Redis, rooms: RoomStore) -> None:
        self.redis = redis
        self._guard = rooms._guard
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    async def take(self, code: str, n: int, token: str) -> bool:
        """The seat's lease, if nobody holds it (a bot just seated, or one left undriven)."""
        return bool(await self._guard(self.redis.set(lease_key(code, n), token, px=LEASE_MS, nx=True)))

    async def renew(self, code: str, n: int, token: str) -> bool:
        return bool(await self._guard(self._renew(keys=[lease_key(code, n)], args=[token, LEASE_MS])))

    async def release(self, code: str, n: int, token: str) -> None:
        await self._guard(self._release(keys=[lease_key(code, n)], args=[token]))

    async def held(self, code: str, ns: list[int]) -> list[bool]:
        """Whether each of these seats' leases is held (by anyone)."""
        if not ns:
            return []
        count = [await self._guard(self.redis.exists(lease_key(code, n))) for n in ns]
        return [bool(c) for c in count]
