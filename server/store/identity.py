"""A claimed name's device keys, recovery codes and link code in Redis.

Beside the name's hash ``user:{name}`` (same hash tag, so every script below
touches one slot):

* ``user:{name}:keys``: hash, SHA-256 of a device key -> ``"ID CREATED USED LABEL"``;
* ``user:{name}:recovery``: set of the salted hashes of the unused recovery codes;
* ``user:{name}:link``: string, the hash of the one live link code, with its TTL.

The keys hash and the recovery set live as long as the name: every script that
writes them gives them the name's own TTL (none once the name is kept for good).
Every script checks everything before its first write, so a refusal writes
nothing. docs/design/identity.md says why; docs/reference/storage.md lists the keys.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

LEGACY_ID = "k0"  # the id given to the key of a name claimed before device keys
MOVED = "moved"  # user.key once the key the name was claimed with proves nothing

# Give KEYS[i] for i in 2..n the TTL of KEYS[1] (the name's hash): none if it has none,
# and gone with it if it has lapsed (a script running as the two expire leaves no orphan).
_SYNC_TTL = """
local function sync_ttl(n)
  local ttl = redis.call('PTTL', KEYS[1])
  for i = 2, n do
    if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl)
    elseif ttl == -1 then redis.call('PERSIST', KEYS[i])
    else redis.call('DEL', KEYS[i]) end
  end
end
local function find_id(id)
  local all = redis.call('HGETALL', KEYS[2])
  for i = 1, #all, 2 do
    if string.match(all[i + 1], '^(%S+)') == id then return all[i], all[i + 1] end
  end
  return nil, nil
end
"""

# KEYS: user, keys, recovery.  ARGV: key hash, display name, now, ttl_s, key entry, code hashes...
CLAIM = _SYNC_TTL + """
if redis.call('HSETNX', KEYS[1], 'key', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'created', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[5])
if #ARGV > 5 then redis.call('SADD', KEYS[3], unpack(ARGV, 6)) end
sync_ttl(3)
return 1
"""

# KEYS: user, keys, recovery.  ARGV: key hash, now, ttl_s, the entry of a legacy key.
# A name claimed before device keys gets its one key as a device key here.
TOUCH = _SYNC_TTL + """
if redis.call('EXISTS', KEYS[2]) == 0 then
  if redis.call('HGET', KEYS[1], 'key') ~= ARGV[1] then return 0 end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
else
  local entry = redis.call('HGET', KEYS[2], ARGV[1])
  if not entry then return 0 end
  local id, created, _, label = string.match(entry, '^(%S+) (%S+) (%S+) (.*)$')
  redis.call('HSET', KEYS[2], ARGV[1], id .. ' ' .. created .. ' ' .. ARGV[2] .. ' ' .. label)
end
if redis.call('TTL', KEYS[1]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
sync_ttl(3)
return 1
"""

# KEYS: user, keys, recovery, link.  ARGV: code hash, new key hash, entry, max keys
LINK = _SYNC_TTL + """
if redis.call('HEXISTS', KEYS[1], 'key') == 0 then return 'bad' end
local stored = redis.call('GET', KEYS[4])
if not stored or stored ~= ARGV[1] then return 'bad' end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
sync_ttl(3)
return 'ok'
"""

# KEYS: user, keys, recovery, link.  ARGV: code hash, new key hash, entry.
# The code is spent, and every other key and the live link code go with it.
RECOVER = _SYNC_TTL + """
if redis.call('HEXISTS', KEYS[1], 'key') == 0 then return 'bad' end
if redis.call('SREM', KEYS[3], ARGV[1]) == 0 then return 'bad' end
redis.call('DEL', KEYS[2], KEYS[4])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[1], 'key', '""" + MOVED + """')
sync_ttl(3)
return 'ok'
"""

# KEYS: user, keys.  ARGV: id, the caller's id -> 'ok', 'none' or 'gone' (the caller's key is)
REVOKE = _SYNC_TTL + """
if not find_id(ARGV[2]) then return 'gone' end
local field = find_id(ARGV[1])
if not field then return 'none' end
redis.call('HDEL', KEYS[2], field)
if redis.call('HGET', KEYS[1], 'key') == field then
  redis.call('HSET', KEYS[1], 'key', '""" + MOVED + """')
end
return 'ok'
"""

# KEYS: user, keys.  ARGV: id, new key hash, now -> 'ok' or 'gone'
ROTATE = _SYNC_TTL + """
local field, entry = find_id(ARGV[1])
if not field then return 'gone' end
local label = string.match(entry, '^%S+ %S+ %S+ (.*)$')
redis.call('HDEL', KEYS[2], field)
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1] .. ' ' .. ARGV[3] .. ' ' .. ARGV[3] .. ' ' .. label)
if redis.call('HGET', KEYS[1], 'key') == field then
  redis.call('HSET', KEYS[1], 'key', '""" + MOVED + """')
end
sync_ttl(2)
return 'ok'
"""

# KEYS: user, keys, recovery.  ARGV: the caller's id, code hashes...
# -> 1, or 0 when the caller's key is gone
NEW_CODES = _SYNC_TTL + """
if not find_id(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[3])
redis.call('SADD', KEYS[3], unpack(ARGV, 2))
sync_ttl(3)
return 1
"""

# KEYS: user, keys, link.  ARGV: the caller's id, code hash, ttl_ms
# -> 1, or 0 when the caller's key is gone
NEW_LINK = _SYNC_TTL + """
if not find_id(ARGV[1]) then return 0 end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return 1
"""


def user_key(name: str) -> str:
    return f"user:{{{name.casefold()}}}"


def identity_keys(name: str) -> list[str]:
    """The name's hash, then its keys, recovery codes and link code."""
    base = user_key(name)
    return [base, f"{base}:keys", f"{base}:recovery", f"{base}:link"]


@dataclass(frozen=True)
class Device:
    id: str
    created: int
    used: int
    label: str

    def entry(self) -> str:
        return f"{self.id} {self.created} {self.used} {self.label}"

    @classmethod
    def parse(cls, text: str) -> Device:
        id_, created, used, label = (text.split(" ", 3) + ["", "", ""])[:4]
        return cls(id_, int(created or 0), int(used or 0), label)


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class IdentityStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._claim = redis.register_script(CLAIM)
        self._touch = redis.register_script(TOUCH)
        self._link = redis.register_script(LINK)
        self._recover = redis.register_script(RECOVER)
        self._revoke = redis.register_script(REVOKE)
        self._rotate = redis.register_script(ROTATE)
        self._new_codes = redis.register_script(NEW_CODES)
        self._new_link = redis.register_script(NEW_LINK)

    async def claim(self, name: str, keyhash: str, device: Device, ttl_s: int,
                    recovery: list[str]) -> bool:
        """Claim ``name`` with its first device key and its recovery codes'
        hashes; False (and nothing written) if the name is claimed."""
        return bool(await self._guard(self._claim(
            identity_keys(name)[:3], [keyhash, name, device.created, ttl_s, device.entry(), *recovery])))

    async def prove(self, name: str, keyhash: str) -> tuple[bool, str | None, str | None]:
        """(claimed, the id of the device key with this hash or None, the name's
        claim-time key hash when it has no device keys yet). Reads only."""
        user, keys, _, _ = identity_keys(name)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(user, "key")
        pipe.exists(keys)
        pipe.hget(keys, keyhash)
        stored, has_keys, entry = await self._guard(pipe.execute())
        if stored is None:
            return False, None, None
        if has_keys:
            return True, (Device.parse(_s(entry)).id if entry is not None else None), None
        return True, None, _s(stored)

    async def touch(self, name: str, keyhash: str, now: int, ttl_s: int, legacy: Device) -> None:
        """The key was used now: its last use, and the name's TTL renewed (if it
        lapses at all); a name without device keys gets ``legacy`` for this one."""
        await self._guard(self._touch(identity_keys(name)[:3], [keyhash, now, ttl_s, legacy.entry()]))

    async def new_link(self, name: str, caller: str, codehash: str, ttl_ms: int) -> bool:
        """The name's one live link code is this one now; False (nothing
        written) when the caller's own key is gone."""
        user, keys, _, link = identity_keys(name)
        return bool(await self._guard(self._new_link([user, keys, link], [caller, codehash, ttl_ms])))

    async def link(self, name: str, codehash: str, keyhash: str, device: Device, max_keys: int) -> str:
        """'ok', 'bad' (no such live code) or 'full' (as many keys as allowed)."""
        return _s(await self._guard(self._link(identity_keys(name),
                                               [codehash, keyhash, device.entry(), max_keys])))

    async def recover(self, name: str, codehash: str, keyhash: str, device: Device) -> str:
        """'ok' (the code spent, this the only key now) or 'bad'."""
        return _s(await self._guard(self._recover(identity_keys(name), [codehash, keyhash, device.entry()])))

    async def devices(self, name: str) -> list[Device]:
        rows = await self._guard(self.redis.hvals(identity_keys(name)[1]))
        return sorted((Device.parse(_s(r)) for r in rows), key=lambda d: (d.created, d.id))

    async def revoke(self, name: str, key_id: str, caller: str) -> str:
        """'ok', 'none' (no such key) or 'gone' (the caller's own key is)."""
        return _s(await self._guard(self._revoke(identity_keys(name)[:2], [key_id, caller])))

    async def rotate(self, name: str, key_id: str, keyhash: str, now: int) -> bool:
        """This device's key replaced; False (nothing written) when it is gone."""
        return _s(await self._guard(self._rotate(identity_keys(name)[:2], [key_id, keyhash, now]))) == "ok"

    async def new_codes(self, name: str, caller: str, hashes: list[str]) -> bool:
        """A new set of recovery codes; False (nothing written) when the caller's key is gone."""
        return bool(await self._guard(self._new_codes(identity_keys(name)[:3], [caller, *hashes])))

    async def codes_left(self, name: str) -> int:
        return int(await self._guard(self.redis.scard(identity_keys(name)[2])))
