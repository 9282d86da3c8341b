"""``patience-server arena``: create and list arenas from the command line.

It talks to the server's Redis (``REDIS_URL``, or the private one a running
``patience-server serve`` started in the data directory); the running
servers pick a new arena up at their next tick.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys

from ..game.variants import get_rules
from ..ops.clock import now_ms
from ..ops.config import ConfigError, Settings
from ..race.arena import ID_ALPHABET, ID_LENGTH, MAX_GROUP
from ..rooms.arenas import create_arena, new_id
from ..store.arenas import ArenaStore
from ..store.client import open_client


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="arena_command", required=True, parser_class=type(p))
    c = sub.add_parser("create", help="create an arena (prints its id)")
    c.add_argument("--variant", required=True, help="the variant: its id, name or an alias")
    c.add_argument("--minutes", type=int, required=True, help="how long it pairs players (1-1440)")
    c.add_argument("--start", default="now",
                   help="now (default), +MINUTES from now, or a UTC time YYYY-MM-DDTHH:MM")
    c.add_argument("--group", type=int, default=None,
                   help=f"players per race, at most (2-{MAX_GROUP}; default $PATIENCE_ARENA_GROUP or 2)")
    c.add_argument("--race-seconds", type=int, default=None,
                   help="each race's clock (10-3600; default $PATIENCE_ARENA_RACE_SECONDS or 300)")
    c.add_argument("--name", default="", help="shown in the lobby (default: VARIANT arena)")
    c.add_argument("--id", default=None, help=f"{ID_LENGTH} letters or digits (default: random)")
    sub.add_parser("list", help="list the arenas to come, running and kept")


def parse_start(text: str, now: int) -> int:
    if text == "now":
        return now
    if text.startswith("+") and text[1:].isdigit():
        return now + int(text[1:]) * 60_000
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"--start: {text!r} is not now, +MINUTES or YYYY-MM-DDTHH:MM") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def _check(args: argparse.Namespace, settings: Settings) -> tuple[int, int, str, int]:
    group = settings.arena_group if args.group is None else args.group
    race = settings.arena_race_seconds if args.race_seconds is None else args.race_seconds
    if not 1 <= args.minutes <= 24 * 60:
        raise ConfigError("--minutes must be 1..1440")
    if not 2 <= group <= MAX_GROUP:
        raise ConfigError(f"--group must be 2..{MAX_GROUP}")
    if not 10 <= race <= 3600:
        raise ConfigError("--race-seconds must be 10..3600")
    get_rules(args.variant)  # UnknownVariant: one line, exit 2, before any Redis
    arena = (args.id or new_id()).upper()
    if len(arena) != ID_LENGTH or any(ch not in ID_ALPHABET for ch in arena):
        raise ConfigError(f"--id must be {ID_LENGTH} of {ID_ALPHABET}")
    return group, race, arena, parse_start(args.start, now_ms())


async def _run(args: argparse.Namespace, settings: Settings, url: str) -> int:
    redis = open_client(url, settings.redis_cluster)
    try:
        store = ArenaStore(redis)
        now = now_ms()
        if args.arena_command == "list":
            for d in await store.listed(now, 100):
                start = dt.datetime.fromtimestamp(int(d["starts_at"]) / 1000, dt.UTC)
                print(f"{d['id']}\t{d['variant']}\t{start:%Y-%m-%d %H:%M} UTC\t"
                      f"{d['minutes']} min\t{d.get('status', 'open')}\t{d['players']} players\t"
                      f"{d.get('name', '')}")
            return 0
        group, race, arena, starts_at = _check(args, settings)
        if not await create_arena(store, settings, arena, variant=args.variant,
                                  starts_at=starts_at, minutes=args.minutes,
                                  group=group, race_seconds=race, name=args.name, now=now):
            sys.stderr.write(f"patience-server: an arena {arena} exists already\n")
            return 1
        print(arena)
        return 0
    finally:
        await redis.aclose()


def run(args: argparse.Namespace) -> int:
    from ..store.embedded import resolve_redis_url

    settings = Settings.from_env()
    if args.arena_command == "create":
        _check(args, settings)  # bad options stop before any Redis is started
    url, launcher = resolve_redis_url()
    try:
        return asyncio.run(_run(args, settings, url))
    finally:
        if launcher is not None:
            launcher.stop()
