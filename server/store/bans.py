"""Bans, reserved names, cheater marks, rated races and the audit log in Redis
(docs/operations/moderation.md; docs/reference/storage.md lists the keys).

* ``ban:name:{NAME}`` and ``ban:addr:{ADDRESS}``: string, the ban as JSON
  (kind, reason, at, until), expiring when the ban does (no TTL: for good);
* ``ban:index``: sorted set, ``name:NAME`` / ``addr:ADDRESS`` by the end of the
  ban (``+inf`` for good), at most :data:`MAX_BANS`; lapsed ones are pruned at
  each write;
* ``mod:cheaters``: sorted set, names marked cheaters by when, at most
  :data:`MAX_BANS`;
* ``mod:cleared``: sorted set, flagged names a moderator dismissed, by the
  suspicion score they had then, at most :data:`MAX_CLEARED`;
* ``mod:rated:{CODE}``: string, a rated race's variant and names (and a
  daily's day and result), for :data:`RATED_TTL_S`: what a void reads;
* ``audit:log``: stream, every moderation action with its reason, appended
  only, about :data:`AUDIT_KEPT` entries kept.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

MAX_BANS: Final = 100_000  # bans in force (names and addresses together); more is refused
MAX_CLEARED: Final = 10_000  # dismissed flags remembered (the least suspicious go first)
RATED_TTL_S: Final = 90 * 86_400  # how long a rated race can be voided with its opponents refunded
AUDIT_KEPT: Final = 1_000_000  # audit entries kept (approximately: the stream trims whole nodes)
AUDIT: Final = "audit:log"
INDEX: Final = "ban:index"
CHEATERS: Final = "mod:cheaters"
CLEARED: Final = "mod:cleared"
KINDS: Final = ("name", "addr")


def ban_key(kind: str, target: str) -> str:
    return f"ban:{kind}:{{{target}}}"


def rated_key(code: str) -> str:
    return f"mod:rated:{{{code}}}"


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class BanStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard

    # -- bans ------------------------------------------------------------------
    async def ban(self, kind: str, target: str, entry: dict[str, Any], until_ms: int | None,
                  now_ms: int) -> bool:
        """Ban (or reserve) a casefolded name or an address key; False, writing
        nothing, when :data:`MAX_BANS` are in force already and this is a new one."""
        member = f"{kind}:{target}"
        await self._guard(self.redis.zremrangebyscore(INDEX, "-inf", now_ms))
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(INDEX)
        pipe.zscore(INDEX, member)
        count, present = await self._guard(pipe.execute())
        if present is None and int(count) >= MAX_BANS:
            return False
        key = ban_key(kind, target)
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(key, json.dumps(entry, separators=(",", ":")))
        if until_ms is not None:  # relative: the server's clock decides the end, not Redis's
            pipe.pexpire(key, max(1, until_ms - now_ms))
        pipe.zadd(INDEX, {member: until_ms if until_ms is not None else math.inf})
        await self._guard(pipe.execute())
        return True

    async def unban(self, kind: str, target: str) -> bool:
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(ban_key(kind, target))
        pipe.zrem(INDEX, f"{kind}:{target}")
        gone, _ = await self._guard(pipe.execute())
        return bool(gone)

    async def get(self, kind: str, target: str) -> dict[str, Any] | None:
        raw = await self._guard(self.redis.get(ban_key(kind, target)))
        return json.loads(_s(raw)) if raw is not None else None

    async def many(self, kind: str, targets: list[str]) -> dict[str, dict[str, Any]]:
        """The bans in force among ``targets``, by target."""
        if not targets:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for t in targets:
            pipe.get(ban_key(kind, t))
        raw = await self._guard(pipe.execute())
        return {t: json.loads(_s(r)) for t, r in zip(targets, raw, strict=True) if r is not None}

    async def listing(self, now_ms: int, limit: int) -> list[dict[str, Any]]:
        """The bans in force, the soonest to end first (those for good last):
        each entry's ``of`` is name or addr, its ``kind`` ban, cheater or renamed."""
        rows = await self._guard(self.redis.zrangebyscore(INDEX, now_ms, "+inf", start=0, num=limit,
                                                          withscores=True))
        out = []
        for member, score in rows:
            kind, _, target = _s(member).partition(":")
            entry = await self.get(kind, target)
            if entry is not None:
                out.append({**entry, "of": kind, "target": target,
                            "until": None if math.isinf(score) else int(score)})
        return out

    # -- cheaters and dismissed flags ----------------------------------------------
    async def mark_cheater(self, name: str, now_ms: int) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(CHEATERS, {name: now_ms})
        pipe.zremrangebyrank(CHEATERS, 0, -MAX_BANS - 1)
        await self._guard(pipe.execute())

    async def cheaters(self, names: list[str]) -> set[str]:
        if not names:
            return set()
        scores = await self._guard(self.redis.zmscore(CHEATERS, names))
        return {n for n, s in zip(names, scores, strict=True) if s is not None}

    async def clear_flag(self, name: str, score: float) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(CLEARED, {name: score})
        pipe.zremrangebyrank(CLEARED, 0, -MAX_CLEARED - 1)
        await self._guard(pipe.execute())

    async def cleared(self, names: list[str]) -> dict[str, float]:
        if not names:
            return {}
        scores = await self._guard(self.redis.zmscore(CLEARED, names))
        return {n: float(s) for n, s in zip(names, scores, strict=True) if s is not None}

    # -- rated races ---------------------------------------------------------------
    async def note_rated(self, code: str, row: dict[str, Any]) -> None:
        await self._guard(self.redis.set(rated_key(code), json.dumps(row, separators=(",", ":")),
                                         ex=RATED_TTL_S))

    async def rated(self, code: str) -> dict[str, Any] | None:
        raw = await self._guard(self.redis.get(rated_key(code)))
        return json.loads(_s(raw)) if raw is not None else None

    # -- the audit log -------------------------------------------------------------
    async def audit(self, fields: dict[str, str]) -> str:
        """Append one action; returns its stream id (which orders the log)."""
        entry_id = await self._guard(self.redis.xadd(AUDIT, fields,  # type: ignore[arg-type]
                                                     maxlen=AUDIT_KEPT, approximate=True))
        return _s(entry_id)

    async def audit_tail(self, limit: int, before: str = "+") -> list[dict[str, str]]:
        """The newest ``limit`` actions older than stream id ``before``, newest first."""
        rows = await self._guard(self.redis.xrevrange(AUDIT, max=before, min="-", count=limit))
        return [{"id": _s(i), **{_s(k): _s(v) for k, v in f.items()}} for i, f in rows]
