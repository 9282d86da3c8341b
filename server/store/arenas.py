"""Arenas in Redis (layout in docs/reference/storage.md, rules in docs/design/arenas.md).

Every key of one arena carries its id as a hash tag (``arena:{ID}:…``), so
one Lua script may touch all of them (one Redis Cluster slot). The pairer's
writes are fenced: each script first checks that the caller still holds the
arena's lease (``arena:{ID}:lease``, taken with SET NX PX and renewed), so
a process that lost its lease (a long pause, a partition) can never pair or
score next to the new holder.
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

from redis.asyncio import Redis

from ..wire.errors import StoreUnavailable
from . import keys as room_keys
from .rooms import STORE_AWAY, RoomStore, _int, _s

INDEX: Final = "arenas:index"  # sorted set: arena id -> its end (ms)
INDEX_MAX: Final = 1000  # arenas indexed at most (the newest ends stay)
LIST_READ: Final = 50  # index entries one listing (or one tick) reads at most
KEEP_MS: Final = 30 * 86_400_000  # a finished arena's final standing is kept this long
GRACE_MS: Final = 3_600_000  # working keys live this long past the arena's last possible race


def key(arena: str, part: str) -> str:
    return f"arena:{{{arena}}}:{part}"


WORK_PARTS: Final = ("members", "waiting", "seen", "assign", "rooms", "deals")
KEPT_PARTS: Final = ("def", "lines", "standing", "final")

_FENCE: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
"""

# KEYS: def members waiting lines standing. ARGV: who line now max_players
# -> 'ok' | an error code
JOIN: Final = """
local d = redis.call('HMGET', KEYS[1], 'status', 'ends_at', 'expire_at')
if not d[1] then return 'no_arena' end
local now = tonumber(ARGV[3])
if d[1] == 'finished' or now >= tonumber(d[2]) then return 'arena_over' end
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0
   and redis.call('HLEN', KEYS[4]) >= tonumber(ARGV[4]) then return 'arena_full' end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[1])
if redis.call('HSETNX', KEYS[4], ARGV[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[5], 0, ARGV[1])
end
redis.call('HINCRBY', KEYS[1], 'ver', 1)
for i = 2, #KEYS do redis.call('PEXPIREAT', KEYS[i], d[3]) end
return 'ok'
"""

# KEYS: def members waiting seen assign. ARGV: who -> 1 if it was a member
# (its last pairing is forgotten too: a member who comes back must not be moved
# into that race again)
LEAVE: Final = """
local was = redis.call('SREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
if was == 1 and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'ver', 1) end
return was
"""

# One script, not MULTI (why: server/store/lua.py). KEYS: an arena's seen set.
# ARGV: now, keep_ms, count of away, the away members, then the members seen now.
MARK_SEEN: Final = """
local away = tonumber(ARGV[3])
for i = 4, 3 + away do redis.call('ZREM', KEYS[1], ARGV[i]) end
if #ARGV > 3 + away then
  for i = 4 + away, #ARGV do redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i]) end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
"""

# KEYS: lease. ARGV: token ms -> 1 if held (taken or renewed)
LEASE: Final = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: lease def deals. ARGV: token deal max_rounds -> 1 | 0 (used before) | -2 (no round left)
ROUND: Final = _FENCE + """
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[3]) then return -2 end
local added = redis.call('SADD', KEYS[3], ARGV[2])
redis.call('PEXPIREAT', KEYS[3], redis.call('HGET', KEYS[2], 'expire_at'))
return added
"""

# KEYS: lease def members waiting assign rooms. ARGV: token code seats_json who1 seat1 who2 seat2...
# -> 1 (assigned) | 0 (one of them is no longer waiting: nothing done)
ASSIGN: Final = _FENCE + """
for i = 4, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[4], ARGV[i]) or redis.call('SISMEMBER', KEYS[3], ARGV[i]) == 0 then
    return 0
  end
end
for i = 4, #ARGV, 2 do
  redis.call('ZREM', KEYS[4], ARGV[i])
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[2] .. '.' .. ARGV[i + 1])
end
redis.call('HSET', KEYS[6], ARGV[2], ARGV[3])
redis.call('HINCRBY', KEYS[2], 'ver', 1)
local exp = redis.call('HGET', KEYS[2], 'expire_at')
for i = 5, 6 do redis.call('PEXPIREAT', KEYS[i], exp) end
return 1
"""

# KEYS: lease def rooms lines standing waiting members.
# ARGV: token code now who1 line1 points1 ... -> 1 (scored) | 0 (scored before)
SCORE: Final = _FENCE + """
if redis.call('HDEL', KEYS[3], ARGV[2]) == 0 then return 0 end
for i = 4, #ARGV, 3 do
  if redis.call('HEXISTS', KEYS[4], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
    redis.call('ZADD', KEYS[5], ARGV[i + 2], ARGV[i])
  end
  if redis.call('SISMEMBER', KEYS[7], ARGV[i]) == 1 then
    redis.call('ZADD', KEYS[6], 'NX', ARGV[3], ARGV[i])
  end
end
redis.call('HINCRBY', KEYS[2], 'ver', 1)
redis.call('PEXPIREAT', KEYS[6], redis.call('HGET', KEYS[2], 'expire_at'))
return 1
"""

# KEYS: lease def lines standing final, then the working keys. ARGV: token final keep_ms
CLOSE: Final = _FENCE + """
redis.call('HSET', KEYS[2], 'status', 'finished')
redis.call('HINCRBY', KEYS[2], 'ver', 1)
redis.call('SET', KEYS[5], ARGV[2])
for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
for i = 6, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('DEL', KEYS[1])
return 1
"""


async def _guard(coro: Any) -> Any:
    try:
        return await coro
    except STORE_AWAY as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from None


class ArenaStore:
    def __init__(self, redis: Redis, rooms: RoomStore | None = None) -> None:
        self.redis = redis
        self._guard = rooms._guard if rooms is not None else _guard
        self._join = redis.register_script(JOIN)
        self._leave = redis.register_script(LEAVE)
        self._mark_seen = redis.register_script(MARK_SEEN)
        self._lease = redis.register_script(LEASE)
        self._round = redis.register_script(ROUND)
        self._assign = redis.register_script(ASSIGN)
        self._score = redis.register_script(SCORE)
        self._close = redis.register_script(CLOSE)

    # -- definitions and the index ------------------------------------------------------
    async def create(self, arena: str, *, name: str, variant: str, starts_at: int, minutes: int,
                     group: int, race_ms: int, max_players: int, max_rounds: int, now: int) -> bool:
        """A new arena (False: that id exists already). Its keys live until
        its last race could have ended, plus an hour; then only the final
        standing stays (:data:`KEEP_MS`)."""
        ends_at = starts_at + minutes * 60_000
        expire_at = ends_at + race_ms + GRACE_MS
        d = key(arena, "def")
        if not await self._guard(self.redis.hsetnx(d, "variant", variant)):
            return False
        fields: dict[str, Any] = {
            "id": arena, "name": name, "starts_at": starts_at, "ends_at": ends_at,
            "minutes": minutes, "group": group, "race_ms": race_ms, "max_players": max_players,
            "max_rounds": max_rounds, "status": "open", "ver": 0, "created": now,
            "expire_at": expire_at}
        # two slots (the arena's keys and the index): no MULTI, which a cluster refuses
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(d, mapping=cast(Any, fields))
        pipe.pexpireat(d, expire_at)
        pipe.zadd(INDEX, {arena: ends_at})
        pipe.zremrangebyscore(INDEX, "-inf", now - KEEP_MS)
        pipe.zremrangebyrank(INDEX, 0, -INDEX_MAX - 1)
        await self._guard(pipe.execute())
        return True

    async def definition(self, arena: str) -> dict[str, str] | None:
        raw = await self._guard(self.redis.hgetall(key(arena, "def")))
        if not raw:
            return None
        return {_s(k): _s(v) for k, v in raw.items()}

    async def listed(self, now: int, limit: int) -> list[dict[str, str]]:
        """Arenas not over yet (soonest end first), then the finished ones kept
        (newest first): at most ``limit``."""
        ids = [_s(i) for i in await self._guard(
            self.redis.zrevrangebyscore(INDEX, "+inf", now - KEEP_MS, start=0, num=LIST_READ))][::-1]
        return await self._definitions(ids, limit)

    async def live(self, now: int) -> list[dict[str, str]]:
        """Arenas that may still need a pairer: not ended a day ago (the
        closing phase lasts one race at most)."""
        ids = [_s(i) for i in await self._guard(
            self.redis.zrangebyscore(INDEX, now - 86_400_000, "+inf", start=0, num=LIST_READ))]
        return [d for d in await self._definitions(ids, LIST_READ) if d.get("status") != "finished"]

    async def _definitions(self, ids: list[str], limit: int) -> list[dict[str, str]]:
        pipe = self.redis.pipeline(transaction=False)
        for arena in ids:
            pipe.hgetall(key(arena, "def"))
            pipe.hlen(key(arena, "lines"))
        rows = await self._guard(pipe.execute())
        out = []
        for i in range(0, len(rows), 2):
            if rows[i]:
                d = {_s(k): _s(v) for k, v in rows[i].items()}
                d["players"] = str(rows[i + 1])
                out.append(d)
        live = [d for d in out if d.get("status") != "finished"]
        done = [d for d in out if d.get("status") == "finished"][::-1]
        return (live + done)[:limit]

    # -- members ------------------------------------------------------------------------
    async def join(self, arena: str, who: str, line: str, now: int, max_players: int) -> str:
        ks = [key(arena, p) for p in ("def", "members", "waiting", "lines", "standing")]
        return _s(await self._guard(self._join(ks, [who, line, now, max_players])))

    async def leave(self, arena: str, who: str) -> bool:
        ks = [key(arena, p) for p in ("def", "members", "waiting", "seen", "assign")]
        return bool(await self._guard(self._leave(ks, [who])))

    async def mark_seen(self, arena: str, whos: list[str], away: list[str], now: int,
                        keep_ms: int) -> None:
        """``whos`` are available now; ``away`` are members busy elsewhere (in another
        room): not paired from this moment, not only once their mark has aged."""
        if whos or away:
            await self._guard(self._mark_seen([key(arena, "seen")],
                                              [now, keep_ms, len(away), *away, *whos]))

    async def assignments(self, arena: str, whos: list[str]) -> list[str | None]:
        values = await self._guard(self.redis.hmget(key(arena, "assign"), whos))
        return [_s(v) if v is not None else None for v in values]

    async def standing(self, arena: str, top: int, whos: list[str]) -> tuple[
            list[tuple[str, str]], dict[str, tuple[int | None, str | None]], int]:
        """The top lines (who, line JSON), each of ``whos``' (rank, line), and how many lines."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrevrange(key(arena, "standing"), 0, top - 1)
        pipe.zcard(key(arena, "standing"))
        for who in whos:
            pipe.zrevrank(key(arena, "standing"), who)
            pipe.hget(key(arena, "lines"), who)
        rows = await self._guard(pipe.execute())
        head = [_s(w) for w in rows[0]]
        lines = await self._guard(self.redis.hmget(key(arena, "lines"), head)) if head else []
        tops = [(w, _s(text)) for w, text in zip(head, lines, strict=True) if text is not None]
        mine: dict[str, tuple[int | None, str | None]] = {}
        for i, who in enumerate(whos):
            rank, text = rows[2 + 2 * i], rows[3 + 2 * i]
            mine[who] = (int(rank) + 1 if rank is not None else None,
                         _s(text) if text is not None else None)
        return tops, mine, int(rows[1])

    async def final(self, arena: str) -> list[dict[str, Any]] | None:
        raw = await self._guard(self.redis.get(key(arena, "final")))
        return json.loads(raw) if raw else None

    # -- the pairer (each write fenced by the lease) --------------------------------------
    async def hold_lease(self, arena: str, token: str, ms: int) -> bool:
        return bool(await self._guard(self._lease([key(arena, "lease")], [token, ms])))

    async def pairing_state(self, arena: str) -> tuple[list[tuple[str, int]], dict[str, int],
                                                        dict[str, int], dict[str, str]]:
        """(waiting with since, seen times, points, rooms in play -> seats JSON)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrange(key(arena, "waiting"), 0, -1, withscores=True)
        pipe.zrange(key(arena, "seen"), 0, -1, withscores=True)
        pipe.zrange(key(arena, "standing"), 0, -1, withscores=True)
        pipe.hgetall(key(arena, "rooms"))
        waiting, seen, points, rooms = await self._guard(pipe.execute())
        return ([(_s(w), int(s)) for w, s in waiting], {_s(w): int(s) for w, s in seen},
                {_s(w): int(s) for w, s in points}, {_s(c): _s(v) for c, v in rooms.items()})

    async def room_clocks(self, codes: list[str]) -> dict[str, tuple[str | None, int]]:
        """Each room's phase (None: expired) and end, in one round trip: the
        pairer reads a whole room only once it has finished."""
        pipe = self.redis.pipeline(transaction=False)
        for code in codes:
            pipe.hmget(room_keys.meta(code), "phase", "ends_at")
        rows = await self._guard(pipe.execute()) if codes else []
        return {code: (_s(phase) if phase is not None else None, _int(ends))
                for code, (phase, ends) in zip(codes, rows, strict=True)}

    async def new_round(self, arena: str, token: str, deal: str, max_rounds: int) -> int:
        ks = [key(arena, "lease"), key(arena, "def"), key(arena, "deals")]
        return int(await self._guard(self._round(ks, [token, deal, max_rounds])))

    async def assign(self, arena: str, token: str, code: str, seats: dict[int, str]) -> int:
        ks = [key(arena, p) for p in ("lease", "def", "members", "waiting", "assign", "rooms")]
        args: list[Any] = [token, code, json.dumps({str(n): w for n, w in seats.items()})]
        for n, who in seats.items():
            args += [who, n]
        return int(await self._guard(self._assign(ks, args)))

    async def lines(self, arena: str, whos: list[str]) -> dict[str, str]:
        if not whos:
            return {}
        values = await self._guard(self.redis.hmget(key(arena, "lines"), whos))
        return {w: _s(v) for w, v in zip(whos, values, strict=True) if v is not None}

    async def score(self, arena: str, token: str, code: str, now: int,
                    updates: list[tuple[str, str, int]]) -> int:
        ks = [key(arena, p) for p in ("lease", "def", "rooms", "lines", "standing", "waiting",
                                      "members")]
        args: list[Any] = [token, code, now]
        for who, line, points in updates:
            args += [who, line, points]
        return int(await self._guard(self._score(ks, args)))

    async def all_lines(self, arena: str) -> list[str]:
        """Every line, best first (the final standing)."""
        whos = [_s(w) for w in await self._guard(self.redis.zrevrange(key(arena, "standing"), 0, -1))]
        return list((await self.lines(arena, whos)).values()) if whos else []

    async def close(self, arena: str, token: str, final: str) -> int:
        ks = [key(arena, p) for p in ("lease",) + KEPT_PARTS + WORK_PARTS]
        return int(await self._guard(self._close(ks, [token, final, KEEP_MS])))


async def arena_over(redis: Redis, arena: str) -> bool:
    """The arena is finished (or long gone): its races' deals may be shown."""
    status = await redis.hget(key(arena, "def"), "status")
    return status is None or _s(status) == "finished"


def definition_int(d: dict[str, str], name: str) -> int:
    return _int(d.get(name))


__all__ = ["ArenaStore", "arena_over", "StoreUnavailable", "key", "INDEX", "KEEP_MS"]
