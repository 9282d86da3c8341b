"""``patience-server admin``: the moderation queue and actions from the command line.

It talks to the server's Redis (``REDIS_URL``, or the private one a running
``patience-server serve`` started in the data directory) through the same
moderation service as the admin API, so every action is checked the same way
and written in the same audit log (``by`` names the operating system's user).
Answers are JSON on standard output; a refused action says why on standard
error and exits 1 (docs/operations/moderation.md).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from typing import Any

from ..ops.clock import now_ms
from ..ops.config import Settings

EXIT_REFUSED = 1


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="admin_command", required=True, parser_class=type(p))
    q = sub.add_parser("queue", help="flagged and reported names with their evidence")
    q.add_argument("--limit", type=int, default=50)
    c = sub.add_parser("case", help="one name's flag, evidence, reports and ban")
    c.add_argument("name")
    b = sub.add_parser("bans", help="the bans in force")
    b.add_argument("--limit", type=int, default=50)
    a = sub.add_parser("audit", help="the audit log, newest first")
    a.add_argument("--limit", type=int, default=50)
    a.add_argument("--before", default="+", help="entries older than this entry id")
    for verb, what in (("ban", "ban a name (from ranked play) or an address (from connecting)"),
                       ("unban", "lift a ban")):
        v = sub.add_parser(verb, help=what)
        v.add_argument("kind", choices=("name", "addr"))
        v.add_argument("target", help="the name, or the address (IPv6: its /64)")
        v.add_argument("--reason", required=True)
        if verb == "ban":
            v.add_argument("--minutes", type=int, default=None, help="how long (default: for good)")
    r = sub.add_parser("rename", help="force a claimed name to a new one (the old one is reserved)")
    r.add_argument("name")
    r.add_argument("to")
    r.add_argument("--reason", required=True)
    for verb, what in (("cheater", "mark a cheater: its rated results voided, off the boards, "
                                   "banned from ranked play for good"),
                       ("dismiss", "a flagged or reported name looked at and cleared: off the queue")):
        v = sub.add_parser(verb, help=what)
        v.add_argument("name")
        v.add_argument("--reason", required=True)
    v = sub.add_parser("void", help="void a rated race: its players' ratings without it, boards after")
    v.add_argument("code")
    v.add_argument("--reason", required=True)


async def act(args: argparse.Namespace, settings: Settings, url: str) -> Any:
    from ..rooms.moderation import Moderation
    from ..rooms.service import RoomService
    from ..store.client import open_client

    redis = open_client(url, settings.redis_cluster)
    try:
        service = RoomService(settings, redis, now_ms)
        m: Moderation = service.moderation
        by = f"cli {getpass.getuser()}"[:32]
        cmd = args.admin_command
        if cmd == "queue":
            return {"queue": await m.queue(args.limit)}
        if cmd == "case":
            return await m.case(args.name)
        if cmd == "bans":
            return {"bans": await m.ban_list(args.limit)}
        if cmd == "audit":
            return {"entries": await m.audit_log(args.limit, args.before)}
        if cmd == "ban":
            return await m.ban(args.kind, args.target, args.reason, args.minutes, by)
        if cmd == "unban":
            return await m.unban(args.kind, args.target, args.reason, by)
        if cmd == "rename":
            return await m.rename(args.name, args.to, args.reason, by)
        if cmd == "cheater":
            return await m.cheater(args.name, args.reason, by)
        if cmd == "dismiss":
            return await m.dismiss(args.name, args.reason, by)
        return await m.void(args.code, args.reason, by)
    finally:
        await redis.aclose()


def run(args: argparse.Namespace) -> int:
    from ..rooms.moderation import ModerationError
    from ..store.embedded import resolve_redis_url

    settings = Settings.from_env()
    url, launcher = resolve_redis_url()
    try:
        out = asyncio.run(act(args, settings, url))
    except ModerationError as exc:
        sys.stderr.write(f"patience-server: {exc.code}: {exc.message}\n")
        return EXIT_REFUSED
    finally:
        if launcher is not None:
            launcher.stop()
    print(json.dumps(out, indent=2, ensure_ascii=False, default=str))
    return 0
