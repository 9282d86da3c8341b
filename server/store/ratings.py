"""Ratings per variant in Redis: each name's ratings in its ``user:{name}`` hash,
the history of each change beside it, and the boards per variant.

A race's update reads every player's rating, computes the new ones
(server/race/ratings.py) and writes each with a compare-and-set script on that
player's own slot, so two races finishing at once on two processes never lose
an update: a player whose rating changed meanwhile is read and computed again.
The boards are written after, from the values just stored; a failure between
the two leaves the board one race behind until that name's next race.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis

from ..race.ratings import HISTORY_KEPT, Skill, change_entry, field, read_entry, starting_skill
from .seasons import board_key

ATTEMPTS: Final = 20  # compare-and-set rounds before a race's rating gives up (logged by the caller)
BACKOFF_S: Final = 0.01  # at most this long, at random, between rounds: contenders spread out

# KEYS: user hash, history list.  ARGV: field, expected ('' = none), new value, history entry,
# entries kept, race code -> 1 written, 0 the rating changed since it was read, 2 already
# written for this race (a retried update)
RATE = """
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
local tail = ' ' .. ARGV[6]
if #cur >= #tail and string.sub(cur, -#tail) == tail then return 2 end
if cur ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('LPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
return 1
"""


def user_key(name: str) -> str:
    return f"user:{{{name.casefold()}}}"


def history_key(name: str, variant: str) -> str:
    """A name's rating changes in one variant, newest first (same slot as its hash)."""
    return f"user:{{{name.casefold()}}}:rh:{variant}"


def rating_board(variant: str, season: str = "alltime") -> str:
    """The board of a variant's ratings: all time, or one season's (a season id)."""
    return board_key(f"rating:{variant}", season)


def bot_board(variant: str, season: str = "alltime") -> str:
    """The bots' rating board of a variant, apart from the persons': all time or
    one season's (docs/design/bot-accounts.md)."""
    return f"botacct:{{{season}}}:rating:{variant}"


BOT_BOARDS_KEPT_S: Final = 430 * 86_400  # a season's bots' board: its month and the persons' 400 days after


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class RaceRatings:
    """What a race did to its players' ratings of its variant."""

    after: dict[str, Skill]
    before: dict[str, Skill]


Guard = Callable[[Awaitable[Any]], Awaitable[Any]]


class RatingStore:
    def __init__(self, redis: Redis, guard: Guard) -> None:
        self.redis = redis
        self._guard = guard
        self._rate = redis.register_script(RATE)

    async def rows(self, names: list[str]) -> list[dict[str, str]]:
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(user_key(name))
        raw = await self._guard(pipe.execute())
        return [{_s(k): _s(v) for k, v in row.items()} for row in raw]

    async def skills(self, name: str) -> dict[str, Skill]:
        """Every variant's rating a name has, by variant."""
        (row,) = await self.rows([name])
        return {k[2:]: Skill.from_store(v) for k, v in row.items() if k.startswith("r:")}

    async def rate_race(self, variant: str, race: str, ranking: list[tuple[str, int]],
                        now_ms: int, boards: tuple[str, ...] = ("alltime",),
                        bots: frozenset[str] = frozenset()) -> RaceRatings:
        """Rate a race of ``variant`` (code ``race``) from (name, place) pairs and
        put each new rating on the variant's ``boards`` (season ids): a person's
        on the persons' boards, a bot account's (``bots``) on the bots' boards
        only. Applying the same race again changes nothing."""

        from ..race.ratings import rate

        if len(ranking) < 2:
            return RaceRatings({}, {})
        names = [name for name, _ in ranking]
        places = [place for _, place in ranking]
        after: dict[str, Skill] = {}
        before: dict[str, Skill] = {}
        for _ in range(ATTEMPTS):
            rows = await self.rows(names)
            current = [starting_skill(row, variant) for row in rows]
            new = rate(current, places, race)
            todo, calls = [], []
            for name, row, old, skill in zip(names, rows, current, new, strict=True):
                if name in after:
                    continue
                entry = change_entry(race, now_ms, old, skill)
                # one script per player, each on its own slot: sent side by side
                calls.append(self._rate(keys=[user_key(name), history_key(name, variant)],
                                        args=[field(variant), row.get(field(variant), ""),
                                              skill.to_store(), entry, HISTORY_KEPT, race]))
                todo.append((name, old, skill))
            if not todo:
                break
            replies = await self._guard(asyncio.gather(*calls))
            for (name, old, skill), reply in zip(todo, replies, strict=True):
                if int(reply) == 1:
                    after[name], before[name] = skill, old
                elif int(reply) == 2:  # an earlier try of this race wrote it: read it back
                    after[name] = before[name] = Skill.from_store(
                        (await self.rows([name]))[0][field(variant)])
            if len(after) == len(names):
                break
            await asyncio.sleep(random.random() * BACKOFF_S)
        # the boards take the ratings as stored now, not as computed: a race that
        # finished meanwhile may have written a newer one
        stored = await self.rows(list(after))
        pipe = self.redis.pipeline(transaction=False)
        for name, row in zip(after, stored, strict=True):
            skill = Skill.from_store(row[field(variant)])
            for season in boards:
                if name in bots:
                    pipe.zadd(bot_board(variant, season), {name.casefold(): skill.ordinal})
                    if season != "alltime":
                        pipe.expire(bot_board(variant, season), BOT_BOARDS_KEPT_S)
                else:
                    pipe.zadd(rating_board(variant, season), {name.casefold(): skill.ordinal})
        await self._guard(pipe.execute())
        return RaceRatings(after, before)

    async def history(self, name: str, variant: str, limit: int = HISTORY_KEPT) -> list[dict[str, Any]]:
        """A name's rating changes in a variant, newest first."""
        raw = await self._guard(self.redis.lrange(history_key(name, variant), 0, limit - 1))
        return [read_entry(_s(r)) for r in raw]

    async def page(self, variant: str, offset: int, limit: int,
                   season: str = "alltime") -> tuple[list[dict[str, Any]], int]:
        """A page of a variant's rating board, best first: each entry's rating
        (the ordinal), deviation and provisional mark."""
        key = rating_board(variant, season)
        rows = await self._guard(self.redis.zrevrange(key, offset, offset + limit - 1, withscores=True))
        count = await self._guard(self.redis.zcard(key))
        return await self.entries(variant, [(_s(n), float(v)) for n, v in rows], offset), int(count)

    async def entries(self, variant: str, rows: list[tuple[str, float]],
                       first: int) -> list[dict[str, Any]]:
        pipe = self.redis.pipeline(transaction=False)
        for name, _ in rows:
            pipe.hmget(user_key(name), "name", field(variant))
        found = await self._guard(pipe.execute()) if rows else []
        out = []
        for i, ((name, value), (shown, raw)) in enumerate(zip(rows, found, strict=True)):
            skill = Skill.from_store(_s(raw)) if raw else None
            out.append({"rank": first + i + 1, "name": _s(shown) if shown else name,
                        "value": round(value, 3),
                        "deviation": round(skill.sigma, 3) if skill else None,
                        "races": skill.races if skill else 0,
                        "provisional": skill.provisional if skill else True})
        return out

    async def curves(self, name: str, variants: list[str], points: int) -> dict[str, list[list[float]]]:
        """Each variant's newest ``points`` changes as [when, rating after], oldest first."""
        if not variants:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for variant in variants:
            pipe.lrange(history_key(name, variant), 0, points - 1)
        lists = await self._guard(pipe.execute())
        out = {}
        for variant, raw in zip(variants, lists, strict=True):
            entries = [read_entry(_s(r)) for r in reversed(raw)]
            out[variant] = [[e["at"], e["after"]] for e in entries]
        return out
