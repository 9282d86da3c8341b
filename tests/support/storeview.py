"""The whole store as a test compares it before and after a refusal.

A refusal must change nothing, but a server's own loops write some keys on their
clock while the test runs, answering no message, and a key of an earlier test's
room may reach the end of its time to live meanwhile. Those keys are left out
of the comparison:

* the seasons' closes (``season:…``, ``seasons:…``: the server closes the season
  before its first when it starts, server/rooms/ladder.py);
* leases, renewed or let go on a timer: the quick-race pairing's per variant, an
  arena runner's, a bot seat's (``room:{CODE}:bot:N``, server/store/botleases.py);
* an arena's presence marks (``…:seen``), renewed on every tick;
* who is online (``presence:…``), written at a sign-in and rewritten by a timer
  (server/rooms/presence.py);
* a finished room's post-game analysis (``analysis:{CODE}``), written when the worker
  finishes a job an earlier message queued, whatever message the server is answering
  then (server/rooms/analyses.py).
"""

from __future__ import annotations

import re
from typing import Any

import redis.asyncio as aioredis

from tests.support.servers import txt

_BOT_LEASE = re.compile(r"room:\{\w+\}:bot:\d+")


def on_their_clock(key: str) -> bool:
    """Whether a server writes ``key`` on its own clock (see the module's list)."""
    return (key.startswith(("season:", "seasons:", "presence:", "analysis:"))
            or key.endswith((":lease", ":seen"))
            or _BOT_LEASE.fullmatch(key) is not None)


async def everything(rdb: aioredis.Redis) -> dict[str, Any]:
    """Every key but those written on a server's clock, with its value (a string's
    type only: the stores keep tokens and timestamps there)."""
    out: dict[str, Any] = {}
    async for raw in rdb.scan_iter(count=1000):
        key = raw.decode()
        if on_their_clock(key):
            continue
        kind = txt(await rdb.type(raw))
        if kind == "hash":
            out[key] = await rdb.hgetall(raw)
        elif kind == "list":
            out[key] = await rdb.lrange(raw, 0, -1)
        elif kind == "zset":
            out[key] = await rdb.zrange(raw, 0, -1, withscores=True)
        else:
            out[key] = kind
    return out
