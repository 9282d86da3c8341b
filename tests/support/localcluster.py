"""Players on the local cluster (server/localcluster): bots that connect through
HAProxy, learn which server process took them, and keep playing through faults."""

from __future__ import annotations

import asyncio
import re
import shutil
import urllib.request
from typing import Any

import pytest

from tests.support.bot import Bot
from tools.localcluster.supervisor import LocalDeployment

needs_haproxy = pytest.mark.skipif(
    shutil.which("haproxy") is None,
    reason="haproxy is not installed (apt-get install haproxy); .ci/run installs it, so CI runs this")

# what the servers of a fault test run with: fast countdowns, no rate limit in the way
FAST_ENV = {"PATIENCE_COUNTDOWN_MS": "150", "PATIENCE_RATE_PER_2S": "100000",
            "PATIENCE_RACE_SECONDS": "120", "PATIENCE_LOG_LEVEL": "WARNING"}


def connections(dep: LocalDeployment) -> list[int]:
    """Open websocket connections on each server process (-1 for a dead one)."""
    out = []
    for server in dep.servers:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=2) as resp:
                text = resp.read().decode()
        except OSError:
            out.append(-1)
            continue
        m = re.search(r"^patience_connections ([\d.e+]+)$", text, re.M)
        out.append(int(float(m.group(1))) if m else 0)
    return out


async def placed(dep: LocalDeployment, bot: Bot, token: str | None = None) -> tuple[int, dict[str, Any]]:
    """Connect ``bot`` through HAProxy; returns the index of the process it landed
    on (the one whose connection count went up) and the welcome."""
    before = await asyncio.to_thread(connections, dep)
    welcome = await bot.connect(token=token)
    for _ in range(100):
        after = await asyncio.to_thread(connections, dep)
        grew = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if b > a and a >= 0]
        if len(grew) == 1:
            return grew[0], welcome
        await asyncio.sleep(0.02)
    raise AssertionError(f"could not tell where the bot landed: {before} -> {after}")


async def resume(dep: LocalDeployment, old: Bot, seed: int = 99) -> tuple[Bot, int]:
    """A new connection through HAProxy carrying on with ``old``'s token."""
    bot = Bot(dep.url, old.name, seed=seed)
    where, welcome = await placed(dep, bot, token=old.token)
    assert welcome["resumed"] is True
    await bot.expect("joined", code=old.code, player=old.player)
    await bot.expect("view")
    bot.seq = old.seq
    return bot, where


async def persist(bot: Bot, acked: list[tuple[int, str]], refused: list[str],
                  deadline_s: float = 60.0) -> None:
    """Play one move, again and again while the store is away; record it as
    ``(version, move)`` once a view acknowledges it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + deadline_s
    text = bot.choose()
    assert text is not None
    while True:
        v = bot.v
        # while a shard fails over, the server answers once its own store timeout runs
        # out, which a loaded machine stretches: wait up to the deadline, not 10 s
        answer = await bot.move(text, timeout=max(10.0, deadline - loop.time()))
        if answer["t"] == "view":
            if answer["v"] == v + 1:
                acked.append((answer["v"], text))
            return
        assert answer["code"] == "store_unavailable", answer
        refused.append(answer["code"])
        assert loop.time() < deadline, "the store never came back"
        await asyncio.sleep(0.05)
