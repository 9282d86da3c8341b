"""Who is online, the challenges waiting for an answer, and the notice
channels, in Redis (docs/design/friends.md).

* ``presence:{NAME}``: hash, connection id -> ``"EXPIRES_MS|ROOM"`` for each of
  the name's live connections (at most MAX_CONNECTIONS); the process serving a
  connection rewrites its field every refresh, so a process that dies leaves
  fields that lapse by their own expiry, and the key by its TTL;
* ``presence:{NAME}:told``: a string with a TTL: NAME's followers were told it
  came online, and are not told again before it lapses;
* ``challenge:{NAME}``: hash, challenger (casefolded) -> ``"EXPIRES_MS|VARIANT|SHOWN"``,
  the challenges NAME has not answered (at most MAX_CHALLENGES, each lapsing);
* ``notify:{NAME}``: a shard channel, no key: the notices for NAME's
  connections, on any process (server/rooms/hub.py subscribes it).

Each script touches one key, so each works on a Redis Cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis

from . import keys

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

NOTIFY_PREFIX: Final = "notify:"
MAX_CONNECTIONS: Final = 16  # live connections counted per name
MAX_CHALLENGES: Final = 20  # unanswered challenges per name


def presence_key(name: str) -> str:
    return f"presence:{{{name.casefold()}}}"


def told_key(name: str) -> str:
    return f"presence:{{{name.casefold()}}}:told"


def challenge_key(name: str) -> str:
    return f"challenge:{{{name.casefold()}}}"


def notify_channel(name: str) -> str:
    return f"{NOTIFY_PREFIX}{{{name.casefold()}}}"


# Drop the fields of KEYS[1] whose expiry (the number before the first '|') is past
# ARGV[1]; count the others, leaving out the field named ARGV[2].
_PRUNE: Final = """
local function prune(now, keep)
  local all = redis.call('HGETALL', KEYS[1])
  local live = 0
  for i = 1, #all, 2 do
    local expires = tonumber(string.match(all[i + 1], '^(%d+)')) or 0
    if expires <= now then redis.call('HDEL', KEYS[1], all[i])
    elseif all[i] ~= keep then live = live + 1 end
  end
  return live
end
"""

# KEYS: presence.  ARGV: now, connection, ttl_ms, room, max
# -> the name's other live connections (-1: as many as counted, this one is not)
ARRIVE: Final = _PRUNE + """
local now = tonumber(ARGV[1])
local others = prune(now, ARGV[2])
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 and others >= tonumber(ARGV[5]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[2], (now + tonumber(ARGV[3])) .. '|' .. ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return others
"""

# KEYS: challenge.  ARGV: now, challenger, value, ttl_ms, max -> 1 added, 2 renewed, 0 full
CHALLENGE: Final = _PRUNE + """
local now = tonumber(ARGV[1])
local there = redis.call('HEXISTS', KEYS[1], ARGV[2])
if there == 0 and prune(now, '') >= tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return there + 1
"""

# KEYS: challenge.  ARGV: now, challenger -> its value, taken; false if none is live
TAKE: Final = """
local value = redis.call('HGET', KEYS[1], ARGV[2])
if not value then return false end
if (tonumber(string.match(value, '^(%d+)')) or 0) <= tonumber(ARGV[1]) then return false end
redis.call('HDEL', KEYS[1], ARGV[2])
return value
"""


@dataclass(frozen=True)
class Challenge:
    challenger: str  # casefolded
    shown: str
    variant: str
    expires_at: int

    def message(self) -> dict[str, Any]:
        return {"name": self.shown, "variant": self.variant, "expires_at": self.expires_at}


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _live(value: Any, now: int) -> tuple[int, list[str]] | None:
    parts = _s(value).split("|")
    try:
        expires = int(parts[0])
    except ValueError:
        return None
    return (expires, parts[1:]) if expires > now else None


class PresenceStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._arrive = redis.register_script(ARRIVE)
        self._challenge = redis.register_script(CHALLENGE)
        self._take = redis.register_script(TAKE)

    # -- presence ------------------------------------------------------------------------
    async def arrive(self, name: str, conn: str, room: str, now: int, ttl_ms: int) -> int:
        """Write (or renew) this connection's presence: the name's other live
        connections before it (0: the name has just come online)."""
        return int(await self._guard(self._arrive([presence_key(name)],
                                                  [now, conn, ttl_ms, room, MAX_CONNECTIONS])))

    async def depart(self, name: str, conn: str) -> None:
        await self._guard(self.redis.hdel(presence_key(name), conn))

    async def first_telling(self, name: str, ttl_ms: int) -> bool:
        """True once per ``ttl_ms``: whether to tell the followers now."""
        return bool(await self._guard(self.redis.set(told_key(name), 1, px=ttl_ms, nx=True)))

    async def where(self, names: list[str], now: int) -> dict[str, str | None]:
        """Each online name's room ("" in no room); an offline name is left out."""
        if not names:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for n in names:
            pipe.hgetall(presence_key(n))
        out: dict[str, str | None] = {}
        for n, row in zip(names, await self._guard(pipe.execute()), strict=True):
            rooms = [live[1][0] if live[1] else "" for v in row.values()
                     if (live := _live(v, now)) is not None]
            if rooms:
                out[n] = max(rooms)  # a connection in a room says more than one in none
        return out

    # -- challenges ---------------------------------------------------------------------
    async def challenge(self, whom: str, c: Challenge, now: int, ttl_ms: int) -> int:
        """Leave ``c`` for ``whom``: 1 new, 2 replacing the same challenger's, 0 full."""
        value = f"{c.expires_at}|{c.variant}|{c.shown}"
        return int(await self._guard(self._challenge(
            [challenge_key(whom)], [now, c.challenger, value, ttl_ms, MAX_CHALLENGES])))

    async def challenges(self, whom: str, now: int) -> list[Challenge]:
        raw = await self._guard(self.redis.hgetall(challenge_key(whom)))
        out = []
        for k, v in raw.items():
            live = _live(v, now)
            if live is not None and len(live[1]) >= 2:
                out.append(Challenge(_s(k), "|".join(live[1][1:]), live[1][0], live[0]))
        return sorted(out, key=lambda c: c.expires_at)

    async def take(self, whom: str, challenger: str, now: int) -> Challenge | None:
        """The live challenge of ``challenger`` to ``whom``, removed; None if none."""
        value = await self._guard(self._take([challenge_key(whom)], [now, challenger.casefold()]))
        if value is None:
            return None
        expires, rest = _s(value).split("|", 1)
        variant, _, shown = rest.partition("|")
        return Challenge(challenger.casefold(), shown, variant, int(expires))

    async def drop(self, whom: str, challenger: str) -> None:
        await self._guard(self.redis.hdel(challenge_key(whom), challenger.casefold()))

    # -- notices ---------------------------------------------------------------------------
    async def notify(self, names: list[str], payload: bytes) -> None:
        """Publish one encoded notice to each name's channel (one command each,
        side by side: a shard channel is routed by its own slot)."""
        message = keys.event_envelope(payload)
        await asyncio.gather(*(self._guard(self.redis.spublish(notify_channel(n), message))
                               for n in names))
