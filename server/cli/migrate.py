"""``patience-server migrate-ratings``: give every name its single rating as the
start of each variant it played (server/store/migrate.py). Safe to run again,
and while servers run: it writes only ratings that are not stored yet."""

from __future__ import annotations

import argparse
import asyncio

from ..ops.config import Settings
from ..store.client import open_client
from ..store.migrate import migrate_ratings


async def _run(url: str, cluster: bool) -> int:
    redis = open_client(url, cluster)
    try:
        report = await migrate_ratings(redis)
    finally:
        await redis.aclose()
    print(f"names with a single rating: {report.names}; given ratings per variant: {report.migrated} "
          f"({report.ratings} ratings written); variants not found: {len(report.unknown)} "
          "(their first rated variant starts from the single rating)")
    return 0


def run(args: argparse.Namespace) -> int:
    from ..store.embedded import resolve_redis_url

    settings = Settings.from_env()
    url, launcher = resolve_redis_url()
    try:
        return asyncio.run(_run(url, settings.redis_cluster))
    finally:
        if launcher is not None:
            launcher.stop()
