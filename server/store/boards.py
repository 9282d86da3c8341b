"""Identities, daily deals, leaderboards and streaks in Redis (ratings: ratings.py).

Key layout (docs/reference/storage.md): a player's keys share the tag ``{name}``; a
day's keys share ``{DATE|VARIANT}`` so the first-attempt check and the board
entry are one script. Daily keys expire after DAILY_TTL_DAYS.
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis

from ..race.daily import DailyDeal, board_score, score_fields
from .identity import LEGACY_ID, Device, IdentityStore, identity_keys
from .ratings import RatingStore
from .rooms import RoomStore
from .seasons import board_key

DAILY_TTL_S = 120 * 86_400
NAME_TTL_DAYS = 30  # a claimed name without a ranked result lapses this long after its last use

# KEYS: board zset, results hash.  ARGV: name, score, result json, ttl_s
# -> 1 if entered (the first ranked result of that name that day), else 0
ENTER_BOARD = """
local added = redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
if added == 1 then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
for i = 1, 2 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return added
"""

# KEYS: the day's deal hash.  ARGV: ttl_s, field, value, field, value, ...
# Writes the whole deal unless one is stored; returns the stored hash either way,
# so a reader never sees half a deal.
SAVE_DAILY = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 2))
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
"""


def user_key(name: str) -> str:
    return f"user:{{{name.casefold()}}}"


def daily_key(date: str, variant: str, part: str) -> str:
    return f"daily:{{{date}|{variant}}}:{part}"


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class BoardStore:
    def __init__(self, redis: Redis, rooms: RoomStore) -> None:
        self.redis = redis
        self._guard = rooms._guard  # the same mapping of Redis failures to StoreUnavailable
        self.guard = self._guard
        self._enter_board = redis.register_script(ENTER_BOARD)
        self._save_daily = redis.register_script(SAVE_DAILY)
        self.ratings = RatingStore(redis, self._guard)
        self.identity = IdentityStore(redis, self._guard)

    # -- identity --------------------------------------------------------------
    async def claim(self, name: str, keyhash: str, now: int,
                    ttl_days: int = NAME_TTL_DAYS) -> bool:
        """Claim ``name`` for the holder of the key (its one device key, no
        recovery codes); False if already claimed. The claim lapses after
        ``ttl_days`` unused, unless the name earns a ranked result (:meth:`keep_names`)."""
        return await self.identity.claim(name, keyhash, Device(LEGACY_ID, now, now, "device"),
                                         ttl_days * 86_400, [])

    async def keep_names(self, names: list[str]) -> None:
        """These names have a ranked result: they are kept for good, and their
        device keys and recovery codes with them."""
        if names:
            pipe = self.redis.pipeline(transaction=False)
            for name in names:
                for key in identity_keys(name)[:3]:
                    pipe.persist(key)
            await self._guard(pipe.execute())

    async def key_hash(self, name: str) -> str | None:
        value = await self._guard(self.redis.hget(user_key(name), "key"))
        return _s(value) if value is not None else None

    # -- daily deals -----------------------------------------------------------
    async def daily(self, date: str, variant: str) -> DailyDeal | None:
        row = await self._guard(self.redis.hgetall(daily_key(date, variant, "deal")))
        if not row:
            return None
        return DailyDeal.from_store({_s(k): _s(v) for k, v in row.items()})

    async def save_daily(self, deal: DailyDeal) -> DailyDeal:
        """Store the day's deal unless another process stored one first; return the stored one."""
        key = daily_key(deal.date, deal.variant, "deal")
        fields = [part for item in dict(deal.to_store()).items() for part in item]
        flat = await self._guard(self._save_daily([key], [DAILY_TTL_S, *fields]))
        row = {_s(flat[i]): _s(flat[i + 1]) for i in range(0, len(flat), 2)}
        return DailyDeal.from_store(row)

    async def start_attempt(self, date: str, variant: str, name: str | None,
                            device: str | None = None) -> tuple[int, int]:
        """Count an attempt at the day's deal against the name (None: a guest) and
        the device (None: the client sent none); returns both counts so far, 0 for
        what was not counted. A ranked attempt is the first of both."""
        names, devices = daily_key(date, variant, "attempts"), daily_key(date, variant, "devices")
        pipe = self.redis.pipeline(transaction=False)
        for key, field in ((names, name.casefold() if name else None), (devices, device)):
            if field is not None:
                pipe.hincrby(key, field, 1)
                pipe.expire(key, DAILY_TTL_S)
        counts = [int(x) for x in (await self._guard(pipe.execute()))[::2]]
        n = counts.pop(0) if name else 0
        return n, counts[0] if device else 0

    async def attempts(self, date: str, variant: str, name: str | None,
                       device: str | None) -> tuple[int, int]:
        """The attempts counted so far today against the name and the device (0
        for what is None), as :meth:`start_attempt` counts them, without counting one."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(daily_key(date, variant, "attempts"), name.casefold() if name else "")
        pipe.hget(daily_key(date, variant, "devices"), device or "")
        names, devices = await self._guard(pipe.execute())
        return (int(names or 0) if name else 0), (int(devices or 0) if device else 0)

    async def adopt_attempts(self, date: str, variants: list[str], name: str,
                             device: str | None, seen: set[str]) -> None:
        """A name just claimed takes on what was played before it was a name:
        today's attempts of the device, and the dailies this connection started
        (``seen``, variants), whichever is more, so its next attempt is not ranked."""
        devices: list[Any] = [None] * len(variants)
        if device:
            pipe = self.redis.pipeline(transaction=False)
            for v in variants:
                pipe.hget(daily_key(date, v, "devices"), device)
            devices = await self._guard(pipe.execute())
        pipe = self.redis.pipeline(transaction=False)
        for variant, raw in zip(variants, devices, strict=True):
            count = max(int(raw or 0), 1 if variant in seen else 0)
            if count:
                key = daily_key(date, variant, "attempts")
                pipe.hincrby(key, name.casefold(), count)
                pipe.expire(key, DAILY_TTL_S)
        await self._guard(pipe.execute())

    async def enter_board(self, date: str, variant: str, name: str, won: bool, time_ms: int,
                          moves: int, fc: int) -> bool:
        score = board_score(won, time_ms, moves, fc)
        result = json.dumps({"won": won, "time_ms": time_ms, "moves": moves, "foundation_cards": fc})
        ks = [daily_key(date, variant, p) for p in ("board", "results")]
        return bool(await self._guard(self._enter_board(ks, [name.casefold(), score, result,
                                                              DAILY_TTL_S])))

    async def board_page(self, date: str, variant: str, offset: int, limit: int,
                         total_cards: int) -> tuple[list[dict[str, Any]], int]:
        key = daily_key(date, variant, "board")
        rows = await self._guard(self.redis.zrange(key, offset, offset + limit - 1, withscores=True))
        count = await self._guard(self.redis.zcard(key))
        names = [_s(n) for n, _ in rows]
        shown = await self.display_names(names)
        out = []
        for i, (name, score) in enumerate(zip(names, (int(s) for _, s in rows), strict=True)):
            out.append({"rank": offset + i + 1, "name": shown.get(name, name),
                        **score_fields(score, total_cards)})
        return out, int(count)

    async def display_names(self, names: list[str]) -> dict[str, str]:
        if not names:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for n in names:
            pipe.hget(user_key(n), "name")
        values = await self._guard(pipe.execute())
        return {n: _s(v) for n, v in zip(names, values, strict=True) if v is not None}

    # -- streaks -----------------------------------------------------------------
    async def update_streaks(self, name: str, date: str, yesterday: str, won: bool) -> dict[str, int]:
        """Consecutive days with a ranked attempt, and with a win."""
        key = user_key(name)
        row = {_s(k): _s(v) for k, v in (await self._guard(self.redis.hgetall(key))).items()}
        days = int(row.get("streak_days", 0))
        if row.get("last_day") != date:
            days = days + 1 if row.get("last_day") == yesterday else 1
        wins = int(row.get("win_streak", 0))
        if won and row.get("last_win_day") != date:
            wins = wins + 1 if row.get("last_win_day") == yesterday else 1
        elif not won and row.get("last_win_day") not in (date, yesterday):
            wins = 0
        fields: dict[str, str | int] = {"streak_days": days, "last_day": date, "win_streak": wins,
                                        "streak_best": max(days, int(row.get("streak_best", 0)))}
        if won:
            fields["last_win_day"] = date
        await self._guard(self.redis.hset(key, mapping=fields))  # type: ignore[arg-type]
        return {"streak_days": days, "win_streak": wins}

    async def count_win(self, variant: str, name: str, seasons: tuple[str, ...] = ("alltime",)) -> None:
        """One more ranked daily win of the name, on the variant's wins board of
        all time and of each season given."""
        pipe = self.redis.pipeline(transaction=False)
        for season in seasons:
            pipe.zincrby(board_key(f"daily-wins:{variant}", season), 1, name.casefold())
        await self._guard(pipe.execute())

    async def daily_near(self, date: str, variant: str, name: str, around: int,
                         total_cards: int) -> tuple[int | None, list[dict[str, Any]], int]:
        """A name's rank on a day's board (1 first, None when not on it) and the
        entries around it: one sorted-set rank and one range."""
        key = daily_key(date, variant, "board")
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(key)
        pipe.zrank(key, name.casefold())
        count, rank = await self._guard(pipe.execute())
        if rank is None:
            return None, [], int(count)
        first = max(int(rank) - around, 0)
        page, _ = await self.board_page(date, variant, first, int(rank) - first + around + 1, total_cards)
        return int(rank) + 1, page, int(count)
