"""Who is connected, as every client sees it: a (re)join or a resume reaches the others at once."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.bot import Bot
from tests.support.servers import SpawnFactory, close_all, closed_with, race, seat

FAST_S = 2.0  # "at once": well before anyone would press a key to refresh


async def all_connected(bot: Bot, players: int, timeout: float = FAST_S) -> dict[str, Any]:  # noqa: ASYNC109 (a wait with a default deadline of its own)
    """The next room message showing ``players`` players, every one connected."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await bot.expect("room", timeout=max(0.01, deadline - loop.time()))
        live = [p for p in msg["players"] if p["connected"] and not p["left"]]
        if len(live) == players:
            return msg


async def resumed(url: str, old: Bot) -> Bot:
    bot = Bot(url, old.name, seed=5)
    welcome = await bot.connect(token=old.token)
    assert welcome["resumed"] is True
    return bot


async def _restart_and_resume(spawn: SpawnFactory, racing: bool) -> None:
    first = await spawn()
    bots, _ = await (race if racing else seat)([first.url, first.url])
    later: list[Bot] = []
    try:
        closes = asyncio.gather(*(closed_with(bot) for bot in bots))
        await asyncio.sleep(0.05)
        assert await asyncio.to_thread(first.sigterm) == 0
        assert await closes == [1001, 1001]
        second = await spawn()
        ann = await resumed(second.url, bots[0])
        later.append(ann)
        await ann.expect("joined")
        own = await ann.expect("room")  # its own row is already connected
        assert next(p for p in own["players"] if p["player"] == 1)["connected"]
        bob = await resumed(second.url, bots[1])
        later.append(bob)
        # ann learns at once that bob is back, and bob sees both connected
        await all_connected(ann, 2)
        await all_connected(bob, 2)
    finally:
        await close_all([*bots, *later])


async def test_after_a_server_restart_each_resume_shows_everyone_connected_in_a_lobby(
        spawn: SpawnFactory) -> None:
    await _restart_and_resume(spawn, racing=False)


async def test_after_a_server_restart_each_resume_shows_everyone_connected_in_a_race(
        spawn: SpawnFactory) -> None:
    await _restart_and_resume(spawn, racing=True)


async def test_a_client_restart_is_seen_by_the_others_at_once(url: str) -> None:
    bots, _ = await race([url, url])
    ann, bob = bots
    again: Bot | None = None
    try:
        assert ann.ws is not None
        ann.ws.transport.abort()
        # bob is told ann is gone ...
        while True:
            msg = await bob.expect("room")
            if not next(p for p in msg["players"] if p["player"] == 1)["connected"]:
                break
        again = await resumed(url, ann)
        # ... and that she is back, without anyone doing anything
        await all_connected(bob, 2)
    finally:
        await close_all([ann, bob, *([again] if again else [])])
