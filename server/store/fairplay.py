"""Fair-play signals and suspicion scores per name, in Redis (docs/reference/storage.md).

* ``fairplay:games:{name}`` - a list of the name's newest ranked games'
  signals (JSON, newest first), trimmed to :data:`GAMES_KEPT` at each push;
  its time to live (:data:`KEPT_S`) starts again at each ranked game.
* ``fairplay:evidence:{name}`` - the explanation of the name's current score
  (JSON, at most :data:`EVIDENCE_MAX` bytes), rewritten after each ranked game
  with the same time to live.
* ``fairplay:flagged`` - a sorted set: member the name, score its suspicion
  score, for the names at or over the flag threshold; a name whose score drops
  under it leaves it. At most :data:`FLAGGED_MAX` names (the least suspicious go).

Names are casefolded, as in every key of a name, and the name is the hash tag
(``{name}``): a name's two keys sit in the slot of its ``user:{name}`` hash on a
Redis Cluster. No command here touches two slots.
"""

from __future__ import annotations

import json
from typing import Any, Final

from redis.asyncio import Redis

from ..race.fairplay_score import HISTORY
from .rooms import RoomStore

__all__ = ["EVIDENCE_MAX", "FLAGGED", "FLAGGED_MAX", "FairPlayStore", "GAMES_KEPT", "KEPT_S",
           "evidence_key", "games_key"]

GAMES_KEPT: Final = HISTORY  # the signals of a name's newest ranked games: the scoring's window
KEPT_S: Final = 180 * 86_400  # a name's signals and evidence outlive its last ranked game by this
EVIDENCE_MAX: Final = 4_096  # bytes of one name's explanation
FLAGGED: Final = "fairplay:flagged"
FLAGGED_MAX: Final = 10_000


def games_key(name: str) -> str:
    return f"fairplay:games:{{{name.casefold()}}}"


def evidence_key(name: str) -> str:
    return f"fairplay:evidence:{{{name.casefold()}}}"


class FairPlayStore:
    def __init__(self, redis: Redis, rooms: RoomStore) -> None:
        self.redis = redis
        self._guard = rooms._guard

    async def push(self, name: str, signals: dict[str, Any]) -> list[dict[str, Any]]:
        """Keep one more ranked game's signals; the name's kept games, newest first."""
        key = games_key(name)
        pipe = self.redis.pipeline(transaction=False)
        pipe.lpush(key, json.dumps(signals, separators=(",", ":")))
        pipe.ltrim(key, 0, GAMES_KEPT - 1)
        pipe.expire(key, KEPT_S)
        pipe.lrange(key, 0, -1)
        rows = (await self._guard(pipe.execute()))[-1]
        return [json.loads(r) for r in rows]

    async def games(self, name: str) -> list[dict[str, Any]]:
        rows = await self._guard(self.redis.lrange(games_key(name), 0, -1))
        return [json.loads(r) for r in rows]

    async def publish(self, name: str, score: float, flagged: bool, evidence: dict[str, Any]) -> None:
        """Write a name's explanation, and enter it in (or take it out of) the flagged set."""
        folded = name.casefold()
        text = json.dumps(evidence, separators=(",", ":"))
        if len(text.encode()) > EVIDENCE_MAX:  # (never with the scorer's fields; a guard all the same)
            text = json.dumps({"score": evidence.get("score"), "parts": evidence.get("parts"),
                               "truncated": True})
        await self._guard(self.redis.set(evidence_key(name), text, ex=KEPT_S))
        if flagged:
            pipe = self.redis.pipeline(transaction=False)
            pipe.zadd(FLAGGED, {folded: score})
            pipe.zremrangebyrank(FLAGGED, 0, -FLAGGED_MAX - 1)
            await self._guard(pipe.execute())
        else:
            await self._guard(self.redis.zrem(FLAGGED, folded))

    async def evidence(self, name: str) -> dict[str, Any] | None:
        raw = await self._guard(self.redis.get(evidence_key(name)))
        return json.loads(raw) if raw else None

    async def flagged(self, limit: int = 100) -> list[tuple[str, float]]:
        """The most suspicious flagged names first."""
        rows = await self._guard(self.redis.zrevrange(FLAGGED, 0, limit - 1, withscores=True))
        return [(m.decode() if isinstance(m, bytes) else str(m), float(s)) for m, s in rows]
