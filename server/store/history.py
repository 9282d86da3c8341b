"""A claimed name's finished games and its figures in Redis (docs/reference/storage.md).

Three keys per name, all in the name's slot (the tag ``{name}`` of its
``user:{name}`` hash), so one script writes a game and its figures at once:
``games:{name}`` (the games by when they ended), ``games:{name}:e`` (each
game's packed entry, server/race/history.py), ``games:{name}:u`` (the
unranked ones by when they ended, for their shorter retention), and
``stats:{name}`` (counts, best times, the newest daily results).

Bounds: the newest :data:`GAMES_KEPT` games; an unranked game goes
:data:`CASUAL_KEPT_MS` after it ended (pruned at the name's next write, and
never listed once past it). The keys live as long as the name: kept for good
with a name that has a ranked result, else they lapse with the longer of the
name's time to live and the unranked retention after the last game. A name
that lapsed and was claimed again by someone else starts afresh: the keys
remember which claim they belong to (the name's ``created``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

from ..race.history import (
    CASUAL_KEPT_MS,
    DAILY_KEPT,
    GAMES_KEPT,
    GameEntry,
    daily_item,
    pack_entry,
    unpack_entry,
)

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

# Which claim of the name the keys belong to: its ``created`` (a name stored before that
# field was written counts as one claim, '-'); false when the name is not claimed.
OWNER: Final = """
local created = redis.call('HGET', KEYS[1], 'created')
if not created and redis.call('HEXISTS', KEYS[1], 'key') == 1 then created = '-' end
"""

# KEYS: user hash, games zset, entries hash, unranked zset, stats hash
# ARGV: code, at, entry, ranked (1/0), kept, casual ms, now, mode, variant, race win (1/0),
#       won time ms ('' none), arena id (''), daily item json (''), dailies kept
# -> 1 written, 0 the name is not claimed, 2 already written (a retried write)
RECORD: Final = OWNER + """
if not created then return 0 end
if redis.call('HGET', KEYS[5], '_owner') ~= created then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
  redis.call('HSET', KEYS[5], '_owner', created)
end
local at = tonumber(ARGV[2])
if tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1])) == at then return 2 end
redis.call('ZADD', KEYS[2], at, ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
if ARGV[4] == '1' then redis.call('ZREM', KEYS[4], ARGV[1]) else redis.call('ZADD', KEYS[4], at, ARGV[1]) end
local function drop(codes)
  for _, c in ipairs(codes) do
    redis.call('ZREM', KEYS[2], c); redis.call('ZREM', KEYS[4], c); redis.call('HDEL', KEYS[3], c)
  end
end
drop(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. (tonumber(ARGV[7]) - tonumber(ARGV[6]))))
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then drop(redis.call('ZRANGE', KEYS[2], 0, over - 1)) end
local mode, v = ARGV[8], ARGV[9]
redis.call('HINCRBY', KEYS[5], 'n:' .. mode, 1)
if mode == 'race' or mode == 'arena' then
  redis.call('HINCRBY', KEYS[5], 'races:' .. v, 1)
  if ARGV[10] == '1' then redis.call('HINCRBY', KEYS[5], 'wins:' .. v, 1) end
end
if ARGV[11] ~= '' then
  local best = redis.call('HGET', KEYS[5], 'best:' .. v)
  if not best or tonumber(ARGV[11]) < tonumber(string.match(best, '^%d+')) then
    redis.call('HSET', KEYS[5], 'best:' .. v, ARGV[11] .. ' ' .. ARGV[1] .. ' ' .. ARGV[2])
  end
end
if mode == 'arena' then
  if ARGV[10] == '1' then redis.call('HINCRBY', KEYS[5], 'arena_wins', 1) end
  if redis.call('HGET', KEYS[5], 'arena_last') ~= ARGV[12] then
    redis.call('HSET', KEYS[5], 'arena_last', ARGV[12])
    redis.call('HINCRBY', KEYS[5], 'arenas', 1)
  end
end
if ARGV[13] ~= '' then
  local item = cjson.decode(ARGV[13])
  if item.won then redis.call('HINCRBY', KEYS[5], 'daily_won', 1) end
  local raw = redis.call('HGET', KEYS[5], 'daily_last')
  local last = raw and cjson.decode(raw) or {}
  local kept = {item}
  for i = 1, math.min(#last, tonumber(ARGV[14]) - 1) do kept[#kept + 1] = last[i] end
  redis.call('HSET', KEYS[5], 'daily_last', cjson.encode(kept))
end
local ttl = redis.call('PTTL', KEYS[1])
for i = 2, 5 do
  if ttl == -1 then redis.call('PERSIST', KEYS[i])
  else redis.call('PEXPIRE', KEYS[i], math.max(ttl, tonumber(ARGV[6]))) end
end
return 1
"""

# KEYS: user hash, games zset, entries hash, unranked zset, stats hash.  ARGV: offset, count,
# now, casual ms.  -> {total, entry, entry, ...}, newest first; nothing for another claim's keys
PAGE: Final = OWNER + """
if not created or redis.call('HGET', KEYS[5], '_owner') ~= created then return {0} end
local cut = tonumber(ARGV[3]) - tonumber(ARGV[4])
local stale = redis.call('ZCOUNT', KEYS[4], '-inf', '(' .. cut)
local out = {redis.call('ZCARD', KEYS[2]) - stale}
local first, count, seen = tonumber(ARGV[1]), tonumber(ARGV[2]), 0
for _, c in ipairs(redis.call('ZREVRANGE', KEYS[2], 0, -1)) do
  if #out > count then break end
  local u = redis.call('ZSCORE', KEYS[4], c)
  if not u or tonumber(u) >= cut then
    if seen >= first then out[#out + 1] = redis.call('HGET', KEYS[3], c) end
    seen = seen + 1
  end
end
return out
"""

# KEYS: as PAGE.  ARGV: code, now, casual ms  -> the entry, or nothing
ONE: Final = OWNER + """
if not created or redis.call('HGET', KEYS[5], '_owner') ~= created then return false end
local u = redis.call('ZSCORE', KEYS[4], ARGV[1])
if u and tonumber(u) < tonumber(ARGV[2]) - tonumber(ARGV[3]) then return false end
return redis.call('HGET', KEYS[3], ARGV[1])
"""

# KEYS: as PAGE -> the stats hash, flat; nothing for another claim's keys
STATS: Final = OWNER + """
if not created or redis.call('HGET', KEYS[5], '_owner') ~= created then return {} end
return redis.call('HGETALL', KEYS[5])
"""


def history_keys(name: str) -> list[str]:
    """The name's hash, then its games, their entries, its unranked games and its figures."""
    tag = f"{{{name.casefold()}}}"
    return [f"user:{tag}", f"games:{tag}", f"games:{tag}:e", f"games:{tag}:u", f"stats:{tag}"]


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class HistoryStore:
    def __init__(self, redis: Redis, guard: Guard, kept: int = GAMES_KEPT,
                 casual_ms: int = CASUAL_KEPT_MS) -> None:
        self.redis = redis
        self._guard = guard
        self.kept = kept
        self.casual_ms = casual_ms
        self._record = redis.register_script(RECORD)
        self._page = redis.register_script(PAGE)
        self._one = redis.register_script(ONE)
        self._stats = redis.register_script(STATS)

    async def record(self, name: str, entry: GameEntry, now: int) -> int:
        """Keep one game of ``name`` (its claimed name) and count it in its
        figures; the same game again changes nothing."""
        best = str(entry.time_ms) if entry.won and entry.mode != "solo" and entry.time_ms else ""
        daily = json.dumps(daily_item(entry)) if entry.mode == "daily" else ""
        args: list[str | int | bytes] = [
            entry.code, entry.at, pack_entry(entry), int(entry.ranked), self.kept, self.casual_ms, now,
            entry.mode, entry.variant, int(entry.race_win), best, entry.arena or "", daily, DAILY_KEPT]
        return int(await self._guard(self._record(keys=history_keys(name), args=args)))

    async def page(self, name: str, offset: int, limit: int, now: int) -> tuple[list[GameEntry], int]:
        """The name's games newest first, from ``offset``, and how many it has."""
        raw = await self._guard(self._page(keys=history_keys(name),
                                           args=[offset, limit, now, self.casual_ms]))
        return [unpack_entry(bytes(e)) for e in raw[1:] if e], int(raw[0])

    async def game(self, name: str, code: str, now: int) -> GameEntry | None:
        raw = await self._guard(self._one(keys=history_keys(name), args=[code, now, self.casual_ms]))
        return unpack_entry(bytes(raw)) if raw else None

    async def stats(self, name: str) -> dict[str, str]:
        flat = await self._guard(self._stats(keys=history_keys(name)))
        return {_s(flat[i]): _s(flat[i + 1]) for i in range(0, len(flat), 2)}
