"""The results log in Redis: its head, its lines one list per UTC day, the index
of days, and the turn that orders ratings and log (docs/reference/results-log.md).

Every key carries the hash tag ``{results}``, so the append script touches the
head, the day's list, the index and the turn in one slot, on a cluster too.
An append is a compare-and-set on the head: it lands only after the entry the
caller chained it to, and only while the caller holds the turn.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis

from ..race.resultlog import GENESIS, Line, Link

HEAD: Final = "log:{results}:head"
DAYS: Final = "log:{results}:days"
TURN: Final = "log:{results}:turn"
TURN_MS: Final = 10_000  # a turn not given back lapses this long after it was taken


def day_key(date: str) -> str:
    return f"log:{{results}}:d:{date}"


# KEYS: head, day list, days index, turn.  ARGV: turn token, seq before, hash before, line,
# new seq, new hash, date -> 1 appended, 0 the head moved (chain again), -1 the turn is lost
APPEND: Final = """
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return -1 end
local h = redis.call('HMGET', KEYS[1], 'seq', 'hash')
if tonumber(h[1] or '0') ~= tonumber(ARGV[2]) or (h[2] or ARGV[3]) ~= ARGV[3] then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('HSET', KEYS[1], 'seq', ARGV[5], 'hash', ARGV[6], 'date', ARGV[7])
local d = redis.call('HGET', KEYS[3], ARGV[7])
local first = d and string.match(d, '^(%d+)') or ARGV[5]
redis.call('HSET', KEYS[3], ARGV[7], first .. ' ' .. ARGV[5] .. ' ' .. ARGV[6])
return 1
"""

# KEYS: turn.  ARGV: token -> 1 given back, 0 not held
GIVE_BACK: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class Head:
    link: Link
    date: str  # the day of the last entry ('' for an empty log)


@dataclass(frozen=True)
class Day:
    """One day of the log: its first and last entry's numbers and the last hash."""

    date: str
    first: int
    last: int
    hash: str

    def public(self) -> dict[str, Any]:
        return {"date": self.date, "first": self.first, "last": self.last, "hash": self.hash}


class LogStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._append = redis.register_script(APPEND)
        self._give_back = redis.register_script(GIVE_BACK)

    async def head(self) -> Head:
        seq, hash_, date = await self._guard(self.redis.hmget(HEAD, "seq", "hash", "date"))
        if seq is None:
            return Head(Link(), "")
        return Head(Link(int(seq), _s(hash_)), _s(date))

    async def take_turn(self) -> str | None:
        """The turn to rate and log a result, or None while another holds it."""
        token = secrets.token_hex(12)
        ok = await self._guard(self.redis.set(TURN, token, nx=True, px=TURN_MS))
        return token if ok else None

    async def give_back(self, token: str) -> None:
        await self._guard(self._give_back(keys=[TURN], args=[token]))

    async def append(self, token: str, before: Link, line: Line, date: str) -> int:
        """1 appended, 0 the head is no longer ``before``, -1 the turn was lost."""
        reply = await self._guard(self._append(
            keys=[HEAD, day_key(date), DAYS, TURN],
            args=[token, before.seq, before.hash if before.seq else GENESIS, line.text(), line.seq,
                  line.hash, date]))
        return int(reply)

    async def days(self) -> list[Day]:
        """Every day of the log, oldest first."""
        raw = await self._guard(self.redis.hgetall(DAYS))
        out = []
        for date, value in raw.items():
            first, last, hash_ = _s(value).split(" ")
            out.append(Day(_s(date), int(first), int(last), hash_))
        return sorted(out, key=lambda d: d.date)

    async def lines(self, date: str, offset: int, limit: int) -> tuple[list[str], int]:
        """A page of one day's lines, and how many that day has."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.lrange(day_key(date), offset, offset + limit - 1)
        pipe.llen(day_key(date))
        rows, total = await self._guard(pipe.execute())
        return [_s(r) for r in rows], int(total)
