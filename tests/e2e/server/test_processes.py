"""Real ``patience-server serve`` processes sharing one Redis: fan-out between processes,
SIGKILL and SIGTERM of a server with every acknowledged move kept."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from tests.support.bot import Bot
from tests.support.servers import (
    SpawnFactory,
    close_all,
    closed_with,
    fetch_record,
    move_log,
    play_out,
    player_row,
    race,
    results_of,
)


async def acked_moves(bot: Bot, count: int) -> list[str]:
    """Play ``count`` moves one by one; return the texts the server acknowledged with a view."""
    acked = []
    for _ in range(count):
        text, v = bot.choose(), bot.v
        assert text is not None
        answer = await bot.move(text)
        assert answer["t"] == "view" and answer["v"] == v + 1, answer
        acked.append(text)
    return acked


async def resume(url: str, old: Bot) -> Bot:
    """A new connection (maybe to another process) carrying on with ``old``'s token."""
    bot = Bot(url, old.name, seed=99)
    welcome = await bot.connect(token=old.token)
    assert welcome["resumed"] is True
    await bot.expect("joined", code=old.code, player=old.player)
    await bot.expect("room")
    await bot.expect("view")
    bot.seq = old.seq
    return bot


async def resign(bot: Bot) -> None:
    bot.seq += 1
    await bot.send({"t": "resign", "seq": bot.seq})
    await bot.expect("view", seq=bot.seq)


async def test_two_processes_share_one_race(spawn: SpawnFactory) -> None:
    a, b = await asyncio.gather(spawn(), spawn())
    bots, code = await race([a.url, b.url])
    try:
        assert a.port != b.port
        await asyncio.gather(*(play_out(bot, 30) for bot in bots))
        results = await asyncio.gather(*(results_of(bot) for bot in bots))
        assert results[0] == results[1] and results[0]["code"] == code
        for me, other in (bots, bots[::-1]):
            progress = [m for m in me.inbox if m.get("t") == "progress" and m["player"] == other.player]
            assert progress, f"player {me.player} never saw player {other.player}'s progress"
            assert max(m["moves"] for m in progress) == other.v
            assert progress[-1]["status"] == other.view["status"]  # type: ignore[index]
        # structured logs: one JSON object a line, carrying room and player
        entries = [json.loads(line) for sp in (a, b) for line in sp.log.read_text().splitlines()
                   if line.startswith("{")]
        scheduled = [e for e in entries if e["message"] == "race scheduled"]
        assert scheduled and all(e["room"] == code and e["player"] in (1, 2) for e in scheduled)
    finally:
        await close_all(bots)


async def test_a_takeover_from_another_process_keeps_the_player_connected(
        spawn: SpawnFactory, rdb: aioredis.Redis) -> None:
    a, b = await asyncio.gather(spawn(), spawn())
    bots, code = await race([a.url, a.url])
    moved = None
    try:
        await bots[0].play(2)
        moved = await resume(b.url, bots[0])
        assert await closed_with(bots[0]) == 1000
        await asyncio.sleep(0.3)
        assert (await player_row(rdb, code, 1))["conn"] not in ("0", "")
        answer = await moved.move(moved.choose() or "draw")
        assert answer["t"] == "view" and answer["v"] == 3
        progress = await bots[1].expect("progress", player=1, moves=3)
        assert progress["connected"] is True
    finally:
        await close_all([*bots, *([moved] if moved else [])])


async def test_sigkill_of_the_server_loses_no_acknowledged_move(
        spawn: SpawnFactory, rdb: aioredis.Redis) -> None:
    first = await spawn()
    bots, code = await race([first.url, first.url])
    later: list[Bot] = []
    try:
        acked = await acked_moves(bots[0], 12)
        acked2 = await acked_moves(bots[1], 3)
        first.sigkill()
        assert first.proc.returncode == -9

        second = await spawn()
        later = [await resume(second.url, bots[0]), await resume(second.url, bots[1])]
        assert later[0].v == len(acked) and later[1].v == len(acked2)
        assert await move_log(rdb, code, 1) == acked
        # carry on on the new process, then end the race
        more = await acked_moves(later[0], 2) if later[0].choose() else []
        for bot in later:
            await resign(bot)
        await results_of(later[0])
        record = await fetch_record(later[0], 1)
        assert record["moves"] == acked + more + ["resign"]
        assert (await fetch_record(later[1], 2))["moves"] == acked2 + ["resign"]
    finally:
        await close_all([*bots, *later])


async def test_sigterm_closes_clients_1001_exits_0_and_loses_nothing(
        spawn: SpawnFactory, rdb: aioredis.Redis) -> None:
    first = await spawn()
    bots, code = await race([first.url, first.url])
    later: list[Bot] = []
    try:
        acked = await acked_moves(bots[0], 6)
        closes = asyncio.gather(*(closed_with(bot) for bot in bots))
        await asyncio.sleep(0.05)
        assert await asyncio.to_thread(first.sigterm) == 0
        assert await closes == [1001, 1001]
        logs = [json.loads(line) for line in first.log.read_text().splitlines() if line.startswith("{")]
        assert any("shutting down" in entry.get("message", "") for entry in logs)

        second = await spawn()
        later = [await resume(second.url, bot) for bot in bots]
        assert later[0].v == len(acked) and later[1].v == 0
        assert await move_log(rdb, code, 1) == acked
        for bot in later:
            await resign(bot)
        await results_of(later[1])
        assert (await fetch_record(later[1], 1))["moves"] == acked + ["resign"]
    finally:
        await close_all([*bots, *later])


async def test_without_redis_url_the_server_runs_its_own_redis_and_keeps_the_data(
        spawn: SpawnFactory, tmp_path: Path) -> None:
    data = tmp_path / "fresh-machine"
    first = await spawn(REDIS_URL="", PATIENCE_DATA_DIR=str(data))
    bots, _ = await race([first.url, first.url])
    later: list[Bot] = []
    try:
        acked = await acked_moves(bots[0], 4)
        pid = int((data / "redis" / "redis.pid").read_text())
        assert await asyncio.to_thread(first.sigterm) == 0
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # its redis-server was stopped with it
        second = await spawn(REDIS_URL="", PATIENCE_DATA_DIR=str(data))
        later = [await resume(second.url, bots[0])]
        assert later[0].v == len(acked)  # the AOF under the data dir kept the race
    finally:
        await close_all([*bots, *later])


async def test_after_a_sigkill_the_embedded_default_starts_again(spawn: SpawnFactory,
                                                                 tmp_path: Path) -> None:
    data = tmp_path / "fresh-machine"
    first = await spawn(REDIS_URL="", PATIENCE_DATA_DIR=str(data))
    pid = int((data / "redis" / "redis.pid").read_text())
    try:
        first.sigkill()
        second = await spawn(REDIS_URL="", PATIENCE_DATA_DIR=str(data))
        bots, _ = await race([second.url, second.url])
        await close_all(bots)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)  # the orphan, if it is still there
