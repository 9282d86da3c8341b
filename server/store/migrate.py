"""The one-off migration from the single rating to ratings per variant
(``patience-server migrate-ratings``; docs/design/ladder.md, "Migration").

Before ratings were kept per variant, ``user:{name}`` held one OpenSkill
``mu``/``sigma`` and ``races``. Each name keeps that rating as the start of
every variant it is known to have played: the store knows a name's variants
from the daily boards kept (120 days), the all-time daily-wins boards and the
rooms still kept (a day). A name whose variants cannot be found keeps the
single rating for its first rated variant (server/race/ratings.py,
``starting_skill``). The migration writes a variant's rating only where none is
stored (``HSETNX``), so running it again, or while servers rate races, changes
nothing already written; the old fields and the old board are left as they were.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis

from ..game.variants import variant_ids
from ..race.ratings import field as rating_field
from ..race.ratings import legacy_skill
from .ratings import rating_board, user_key

SCAN_COUNT = 1000


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass
class MigrationReport:
    names: int = 0  # names with a single rating
    migrated: int = 0  # of those, names given at least one variant's rating
    ratings: int = 0  # variants' ratings written
    unknown: list[str] = field(default_factory=list)  # names whose variants were not found


async def played_variants(redis: Redis) -> dict[str, set[str]]:
    """The variants each (casefolded) name is known to have played."""
    known = set(variant_ids())
    played: dict[str, set[str]] = defaultdict(set)
    async for raw in redis.scan_iter(match="daily:{*}:board", count=SCAN_COUNT):
        key = _s(raw)
        variant = key[key.index("|") + 1:key.index("}")] if "|" in key else ""
        if variant in known:
            for name in await redis.zrange(key, 0, -1):
                played[_s(name)].add(variant)
    async for raw in redis.scan_iter(match="board:{alltime}:daily-wins:*", count=SCAN_COUNT):
        variant = _s(raw).rsplit(":", 1)[1]
        if variant in known:
            for name in await redis.zrange(raw, 0, -1):
                played[_s(name)].add(variant)
    async for raw in redis.scan_iter(match="room:{*}:meta", count=SCAN_COUNT):
        key = _s(raw)
        variant = _s(await redis.hget(key, "variant") or b"")
        if variant not in known:
            continue
        seats = int(await redis.hget(key, "players") or 0)
        tag = key[:-len(":meta")]
        for n in range(1, seats + 1):
            who = await redis.hget(f"{tag}:p:{n}", "who")
            if who:
                played[_s(who)].add(variant)
    return played


async def migrate_ratings(redis: Redis) -> MigrationReport:
    report = MigrationReport()
    played = await played_variants(redis)
    async for raw in redis.scan_iter(match="user:{*}", count=SCAN_COUNT, _type="hash"):
        key = _s(raw)
        if not key.endswith("}"):  # a name's device keys (user:{name}:keys), not the name
            continue
        name = key[len("user:{"):-1]
        row = {_s(k): _s(v) for k, v in (await redis.hgetall(key)).items()}
        legacy = legacy_skill(row)
        if legacy is None:
            continue
        report.names += 1
        variants = sorted(played.get(name, ()))
        if not variants:
            report.unknown.append(name)
            continue
        wrote = 0
        for variant in variants:
            if await redis.hsetnx(user_key(name), rating_field(variant), legacy.to_store()):
                await redis.zadd(rating_board(variant), {name: legacy.ordinal})
                wrote += 1
        report.ratings += wrote
        report.migrated += 1
    report.unknown.sort()
    return report
