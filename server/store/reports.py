"""Players' reports of other names in Redis (docs/operations/moderation.md).

* ``report:{NAME}``: list, the newest reports of one name (JSON, newest
  first), at most :data:`KEPT_PER_NAME`, gone :data:`REPORT_TTL_S` after the
  last one;
* ``report:queue``: sorted set, reported names by the time of their newest
  report, at most :data:`QUEUE_MAX` (the oldest go first) and none older than
  :data:`REPORT_TTL_S`;
* ``report:by:{REPORTER}``: string, the reports a name sent this hour
  (:data:`PER_HOUR`), gone an hour after the first.

Each check comes before the first write, so a refused report writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

REASONS: Final = ("cheating", "offensive_name", "abuse", "other")
MAX_TEXT: Final = 200  # characters of a report's own words
KEPT_PER_NAME: Final = 20  # reports kept per reported name (the newest)
REPORT_TTL_S: Final = 30 * 86_400  # a name's reports lapse this long after the last
QUEUE_MAX: Final = 10_000  # names in the queue of reports
PER_HOUR: Final = 10  # reports one name may send in an hour
QUEUE: Final = "report:queue"

# KEYS: the reported name's list.  ARGV: reporter (casefolded), entry json, kept, ttl_s
# -> 0 the reporter already has a report of this name kept, 1 stored
ADD = """
for _, e in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, row = pcall(cjson.decode, e)
  if ok and row['by_key'] == ARGV[1] then return 0 end
end
redis.call('LPUSH', KEYS[1], ARGV[2])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[3]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


def reports_key(name: str) -> str:
    return f"report:{{{name.casefold()}}}"


def sent_key(reporter: str) -> str:
    return f"report:by:{{{reporter.casefold()}}}"


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class ReportStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._add = redis.register_script(ADD)

    async def sent(self, reporter: str) -> int:
        """Reports ``reporter`` sent in the current hour."""
        return int(await self._guard(self.redis.get(sent_key(reporter))) or 0)

    async def add(self, reporter: str, name: str, reason: str, text: str, room: str | None,
                  now_ms: int) -> bool:
        """Store a report; False (nothing written) when this reporter's earlier
        report of this name is still kept."""
        entry = json.dumps({"by": reporter, "by_key": reporter.casefold(), "reason": reason,
                            "text": text, "room": room, "at": now_ms}, separators=(",", ":"))
        added = await self._guard(self._add([reports_key(name)],
                                            [reporter.casefold(), entry, KEPT_PER_NAME, REPORT_TTL_S]))
        if not int(added):
            return False
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(sent_key(reporter))
        pipe.expire(sent_key(reporter), 3600, nx=True)
        pipe.zadd(QUEUE, {name.casefold(): now_ms})
        pipe.zremrangebyscore(QUEUE, "-inf", now_ms - REPORT_TTL_S * 1000)
        pipe.zremrangebyrank(QUEUE, 0, -QUEUE_MAX - 1)
        await self._guard(pipe.execute())
        return True

    async def reports(self, name: str) -> list[dict[str, Any]]:
        raw = await self._guard(self.redis.lrange(reports_key(name), 0, KEPT_PER_NAME - 1))
        out = []
        for r in raw:
            row = json.loads(_s(r))
            row.pop("by_key", None)
            out.append(row)
        return out

    async def queued(self, limit: int) -> list[tuple[str, int]]:
        """Reported names, newest report first, with its time."""
        rows = await self._guard(self.redis.zrevrange(QUEUE, 0, limit - 1, withscores=True))
        return [(_s(n), int(s)) for n, s in rows]

    async def counts(self, names: list[str]) -> list[int]:
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.llen(reports_key(name))
        return [int(n) for n in await self._guard(pipe.execute())] if names else []

    async def clear(self, name: str) -> None:
        """A moderator dealt with these reports: off the queue."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(reports_key(name))
        pipe.zrem(QUEUE, name.casefold())
        await self._guard(pipe.execute())
