"""A voided race taken out of its players' ratings and boards (docs/operations/moderation.md).

A race's change is taken out of a rating by its own step: the mean goes back
by what the race added, and the variance the race took away is given back
(capped at a new rating's). When the voided race is the name's last change in
that variant, that is exactly the rating before it (to the four decimals the
history keeps); after later races it is the refund lichess gives, not a
replay of every later race. Each void is one compare-and-set script on the
name's own slot, which also writes the void into the name's rating history,
marked with the race's code: a void applied again finds the mark and changes
nothing.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.asyncio import Redis

from ..race.ratings import HISTORY_KEPT, SIGMA, Skill, field, starting_skill
from .ratings import ATTEMPTS, BACKOFF_S, history_key, rating_board, user_key
from .seasons import board_key

Guard = Callable[[Awaitable[Any]], Awaitable[Any]]

# KEYS: user hash, history list.  ARGV: field, expected, new value, entry, kept, mark
# -> 1 written, 0 the rating changed since it was read, 2 this void is written already
VOID = """
for _, e in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  if string.find(e, ARGV[6], 1, true) then return 2 end
end
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if cur ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('LPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
return 1
"""
MIN_SIGMA: Final = 1e-6


def mark(race: str) -> str:
    """The text a void's history entry holds, found again by the script."""
    return json.dumps({"voids": race}, separators=(",", ":"))[1:-1]


def void_entry(race: str, at_ms: int, before: Skill, after: Skill) -> str:
    return json.dumps({"voids": race, "race": race, "at": at_ms, "before": round(before.ordinal, 3),
                       "after": round(after.ordinal, 3), "mu": round(after.mu, 4),
                       "sigma": round(after.sigma, 4)}, separators=(",", ":"))


def without(current: Skill, entry: dict[str, Any], prior: tuple[float, float]) -> Skill:
    """``current`` without the change ``entry`` made from the rating ``prior`` (mu, sigma)."""
    mu_b, sigma_b = prior
    mu = current.mu - (float(entry["mu"]) - mu_b)
    variance = current.sigma ** 2 + sigma_b ** 2 - float(entry["sigma"]) ** 2
    sigma = min(SIGMA, math.sqrt(max(variance, MIN_SIGMA ** 2)))
    return Skill(mu, sigma, max(0, current.races - 1), current.last)


def prior_of(history: list[dict[str, Any]], i: int, row: dict[str, str], variant: str) -> tuple[float, float]:
    """The rating (mu, sigma) before history entry ``i`` (newest first)."""
    entry = history[i]
    if i + 1 < len(history):
        older = history[i + 1]
        return float(older["mu"]), float(older["sigma"])
    if len(history) < HISTORY_KEPT:  # the name's first change: it started from a new (or migrated) rating
        start = starting_skill({k: v for k, v in row.items() if not k.startswith("r:")}, variant)
        return start.mu, start.sigma
    # the history was trimmed before it: the mean's step from the ordinals, the deviation as is
    return float(entry["mu"]) - (float(entry["after"]) - float(entry["before"])), float(entry["sigma"])


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class VoidStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._void = redis.register_script(VOID)

    async def history(self, name: str, variant: str) -> list[dict[str, Any]]:
        raw = await self._guard(self.redis.lrange(history_key(name, variant), 0, -1))
        return [json.loads(_s(r)) for r in raw]

    async def row(self, name: str) -> dict[str, str]:
        raw = await self._guard(self.redis.hgetall(user_key(name)))
        return {_s(k): _s(v) for k, v in raw.items()}

    async def void_rating(self, variant: str, race: str, name: str,
                          now_ms: int) -> tuple[Skill, Skill] | str:
        """Take race ``race`` out of ``name``'s rating of ``variant``: (before,
        after), or why not (``no_rating``, ``not_in_history``, ``already``, ``busy``)."""
        for _ in range(ATTEMPTS):
            row = await self.row(name)
            raw = row.get(field(variant))
            if not raw:
                return "no_rating"
            history = await self.history(name, variant)
            if any(e.get("voids") == race for e in history):
                return "already"
            i = next((j for j, e in enumerate(history) if e.get("race") == race and "voids" not in e), None)
            if i is None:
                return "not_in_history"
            current = Skill.from_store(raw)
            new = without(current, history[i], prior_of(history, i, row, variant))
            reply = int(await self._guard(self._void(
                keys=[user_key(name), history_key(name, variant)],
                args=[field(variant), raw, new.to_store(), void_entry(race, now_ms, current, new),
                      HISTORY_KEPT, mark(race)])))
            if reply == 1:
                return current, new
            if reply == 2:
                return "already"
            await asyncio.sleep(random.random() * BACKOFF_S)
        return "busy"

    async def rated_races(self, name: str, variant: str) -> list[str]:
        """The races in ``name``'s kept history of ``variant`` not voided yet, newest first."""
        history = await self.history(name, variant)
        voided = {e["voids"] for e in history if "voids" in e}
        return [e["race"] for e in history
                if "voids" not in e and e.get("race") not in voided and e.get("race") != "migrated"]

    async def place(self, variant: str, names: list[str], seasons: tuple[str, ...]) -> None:
        """Put each name's stored rating of ``variant`` on the boards of ``seasons``."""
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hget(user_key(name), field(variant))
        values = await self._guard(pipe.execute()) if names else []
        pipe = self.redis.pipeline(transaction=False)
        for name, raw in zip(names, values, strict=True):
            if raw is not None:
                for season in seasons:
                    ordinal = Skill.from_store(_s(raw)).ordinal
                    pipe.zadd(rating_board(variant, season), {name.casefold(): ordinal})
        await self._guard(pipe.execute())

    async def take_off_boards(self, name: str, variants: list[str], seasons: tuple[str, ...]) -> None:
        """A cheater's name off every rating and daily-wins board of these seasons."""
        pipe = self.redis.pipeline(transaction=False)
        for variant in variants:
            for season in seasons:
                pipe.zrem(rating_board(variant, season), name.casefold())
                pipe.zrem(board_key(f"daily-wins:{variant}", season), name.casefold())
        await self._guard(pipe.execute())

    async def take_off_daily(self, days: list[str], variants: list[str], name: str) -> int:
        """A name's entries off the daily boards of these days; how many there were."""
        from .boards import daily_key

        pipe = self.redis.pipeline(transaction=False)
        for day in days:
            for variant in variants:
                pipe.zrem(daily_key(day, variant, "board"), name.casefold())
                pipe.hdel(daily_key(day, variant, "results"), name.casefold())
        replies = await self._guard(pipe.execute()) if days and variants else []
        return sum(int(r) for r in replies[::2])

    async def uncount_win(self, variant: str, name: str, seasons: tuple[str, ...]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for season in seasons:
            pipe.zincrby(board_key(f"daily-wins:{variant}", season), -1, name.casefold())
            pipe.zremrangebyscore(board_key(f"daily-wins:{variant}", season), "-inf", 0)
        await self._guard(pipe.execute())
