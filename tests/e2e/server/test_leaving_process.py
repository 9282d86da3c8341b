"""Leaving a room's lobby, against a real server process: the leaver is not
sent the room it has just left (its client would show that room again)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.bot import Bot
from tests.support.served import SERVER, served

pytestmark = pytest.mark.skipif(not SERVER.exists(), reason="the console script is not installed")


async def drain(bot: Bot, seconds: float) -> list[dict[str, Any]]:
    """Every message the bot gets in ``seconds`` (read: a queued one counts too)."""
    got: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (left := deadline - loop.time()) > 0:
        try:
            got.append(await bot.recv(left))
        except TimeoutError:
            break
    return got


async def leave_lobbies(url: str, times: int) -> list[list[object]]:
    """Open a room, leave it, ``times`` over: the rooms' seats as sent after each leave."""
    bot = Bot(url, "ann", seed=1)
    await bot.connect()
    seen: list[list[object]] = []
    try:
        for _ in range(times):
            await bot.send({"t": "create", "variant": "four-seasons", "players": 2})
            await bot.expect("joined")
            await drain(bot, 0.3)  # the room's own updates of the join
            await bot.send({"t": "leave"})
            for message in await drain(bot, 0.5):
                if message.get("t") == "room":
                    seen.append([p.get("left") for p in message.get("players") or ()])
    finally:
        await bot.close()
    return seen


def test_the_leaver_of_a_lobby_is_not_sent_the_room_it_left(tmp_path: Path) -> None:
    with served(tmp_path) as server:
        assert asyncio.run(leave_lobbies(server.url, 5)) == []
