"""Faults on the local cluster (``python -m tools.localcluster``'s deployment: three
primaries with a replica each, three server processes, HAProxy), with real
processes and every player going through HAProxy."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from server.store import keys
from server.store.router import slot_of
from tests.support.bot import Bot
from tests.support.errorlogs import error_lines, log_sizes
from tests.support.localcluster import FAST_ENV, needs_haproxy, persist, placed, resume
from tests.support.servers import (
    VARIANT,
    close_all,
    closed_with,
    move_log,
    play_out,
    results_of,
    start_race,
)
from tools.localcluster.supervisor import LocalDeployment
from tools.localcluster.topology import Topology

pytestmark = needs_haproxy


@pytest.fixture(scope="module")
def dep() -> Iterator[LocalDeployment]:
    with tempfile.TemporaryDirectory(prefix="prr-lc-") as tmp:
        deployment = LocalDeployment(Path(tmp), Topology(servers=3), lb_port=0, redis_port=0,
                                     server_port=0, server_env=FAST_ENV)
        with deployment:
            yield deployment


@pytest.fixture
async def store(dep: LocalDeployment) -> AsyncIterator[RedisCluster]:
    client = RedisCluster.from_url(dep.redis.seeds.split(",")[0])
    yield client
    await client.aclose()


@pytest.fixture
def healthy(dep: LocalDeployment) -> Iterator[None]:
    """Every test starts and ends with the whole deployment up, and no server
    process logs at ERROR or a traceback meanwhile: a killed server, primary or
    balancer is met with warnings, refusals and resumes (on the compiled build
    too, where a caught failover error once came out of unrelated connections:
    docs/design/compiled-code.md)."""
    dep.heal()
    logs = [server.log for server in dep.servers]
    start = log_sizes(logs)
    yield
    dep.heal()
    logged = [line for log in logs for line in error_lines(log, start[log])]
    assert logged == [], f"{len(logged)} lines at ERROR or with a traceback:\n" + "\n".join(logged[:3])


async def seated_race(dep: LocalDeployment, n: int = 2) -> tuple[list[Bot], list[int], str]:
    """``n`` players through HAProxy, each on another process, in one started race."""
    bots = [Bot(dep.url, f"lc{i}", seed=40 + i) for i in range(n)]
    where = [(await placed(dep, bot))[0] for bot in bots]
    await bots[0].send({"t": "create", "variant": VARIANT, "players": n, "private": True})
    code: str = (await bots[0].expect("joined"))["code"]
    for bot in bots[1:]:
        await bot.send({"t": "join", "code": code})
        await bot.expect("joined", code=code)
    await start_race(bots)
    return bots, where, code


async def assert_kept(store: RedisCluster, code: str, player: int, acked: list[tuple[int, str]]) -> None:
    """Every acknowledged move is in the stored log at its version."""
    log = await move_log(store, code, player)  # type: ignore[arg-type]
    for v, text in acked:
        assert log[v - 1] == text, (v, text, log)


async def progress_arrives(mover: Bot, watcher: Bot, acked: list[tuple[int, str]], refused: list[str],
                           deadline_s: float = 60.0) -> None:
    """``mover`` plays until ``watcher`` sees the progress of its latest move."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + deadline_s
    while True:
        with contextlib.suppress(TimeoutError):
            await watcher.expect("progress", timeout=3, player=mover.player, moves=mover.v)
            return
        assert loop.time() < deadline, "no progress crossed processes after the failover"
        await persist(mover, acked, refused)


@pytest.mark.usefixtures("healthy")
async def test_a_full_race_with_each_player_on_another_process(dep: LocalDeployment) -> None:
    bots, where, _ = await seated_race(dep, 3)
    try:
        assert sorted(where) == [0, 1, 2]  # leastconn spread them
        await bots[0].move(bots[0].choose() or "draw")
        for other in bots[1:]:  # progress crosses processes on the room's shard channel
            await other.expect("progress", player=bots[0].player, moves=1)
        await asyncio.gather(*(play_out(bot, 40) for bot in bots))
        results = await asyncio.gather(*(results_of(bot, 30) for bot in bots))
        assert results[0]["ranking"] == results[1]["ranking"] == results[2]["ranking"]
    finally:
        await close_all(bots)


@pytest.mark.usefixtures("healthy")
async def test_sigkill_of_a_server_its_players_resume_on_another(
        dep: LocalDeployment, store: RedisCluster) -> None:
    bots, where, code = await seated_race(dep)
    later: list[Bot] = []
    try:
        acked: list[tuple[int, str]] = []
        for _ in range(8):
            await persist(bots[0], acked, [])
        await asyncio.to_thread(dep.kill_server, where[0])
        moved, now = await resume(dep, bots[0])
        later.append(moved)
        assert now != where[0] and moved.v == len(acked)
        await assert_kept(store, code, bots[0].player, acked)
        for _ in range(3):  # carries on where it was, the opponent sees it
            await persist(moved, acked, [])
        await bots[1].expect("progress", player=moved.player, moves=moved.v)
        await asyncio.gather(play_out(moved, 40), play_out(bots[1], 40))
        results = await asyncio.gather(results_of(moved, 30), results_of(bots[1], 30))
        assert results[0] == results[1]
        await assert_kept(store, code, bots[0].player, acked)
    finally:
        await close_all([*bots, *later])


@pytest.mark.usefixtures("healthy")
@pytest.mark.alone  # it holds a slot mid-migration for as long as it takes: nothing beside it
async def test_a_resharding_of_the_rooms_slot_mid_race(dep: LocalDeployment, store: RedisCluster) -> None:
    bots, _, code = await seated_race(dep)
    slot = slot_of(keys.meta(code))
    source = dep.redis.owner(slot)
    target = next(n for n in dep.redis.primaries() if n is not source)
    acked: list[tuple[int, str]] = []
    refused: list[str] = []
    # A player's first move creates their move log. Redis answers TRYAGAIN to a script
    # some of whose keys are missing in a slot that is migrating, so that first move
    # is refused until the slot has moved (docs/operations/deployment.md). Before this
    # move was made here, a loaded machine could start the migration first, and the
    # migration then waited for a move it refused.
    await persist(bots[0], acked, refused)
    # One key at a time. With every key still on the source (MIGRATING) and with every
    # key on the target before the handover (the source answers ASK), the migration
    # waits until the player has had a move acknowledged there: a wait for moves, not
    # for time, so a slow machine only makes it longer. In between, the room is split
    # between the nodes (a multi-key script gets TRYAGAIN, which the server retries
    # for a moment), so the keys move on at once.
    played = threading.Condition()
    held: list[str] = []

    def hold(state: str) -> None:
        if state == "split":
            return
        with played:
            before = len(acked)
            assert played.wait_for(lambda: len(acked) > before, timeout=120), f"no move while {state}"
            held.append(state)

    moving = asyncio.create_task(asyncio.to_thread(dep.redis.move_slot, slot, target, 1, hold))
    during = 0
    try:
        while not moving.done() or len(acked) < during + 10:  # moves during and after
            await persist(bots[0], acked, refused)
            with played:
                played.notify_all()
            during += not moving.done()
            assert bots[0].view is not None and bots[0].view["status"] == "in_progress"
        await moving
        assert held == ["migrating", "imported"] and during >= 2
        assert dep.redis.owner(slot) is target
        assert refused == []  # never refused: MOVED/ASK/TRYAGAIN are followed
        # progress still reaches the other process, now from the new owner's shard
        await bots[1].expect("progress", player=bots[0].player, moves=bots[0].v)
        await persist(bots[1], [], [])
        await bots[0].expect("progress", player=bots[1].player, moves=bots[1].v)
        await assert_kept(store, code, bots[0].player, acked)
    finally:
        with contextlib.suppress(Exception):
            await moving
        await close_all(bots)


@pytest.mark.usefixtures("healthy")
async def test_haproxy_restarted_players_reconnect_and_finish(dep: LocalDeployment) -> None:
    bots, _, code = await seated_race(dep)
    later: list[Bot] = []
    try:
        acked: list[tuple[int, str]] = []
        for _ in range(4):
            await persist(bots[0], acked, [])
        await asyncio.to_thread(dep.restart_haproxy)
        for bot in bots:  # the balancer's stop cut every websocket (no close frame)
            assert await closed_with(bot, 5) == 1006
        for bot in bots:
            later.append((await resume(dep, bot))[0])
        assert later[0].v == len(acked)
        await asyncio.gather(*(play_out(bot, 40) for bot in later))
        results = await asyncio.gather(*(results_of(bot, 30) for bot in later))
        assert results[0] == results[1] and results[0]["code"] == code
    finally:
        await close_all([*bots, *later])


@pytest.mark.usefixtures("healthy")
async def test_sigkill_of_the_rooms_primary_loses_nothing_acknowledged(
        dep: LocalDeployment, store: RedisCluster) -> None:
    bots, _, code = await seated_race(dep)
    owner = dep.redis.owner(slot_of(keys.meta(code)))
    acked: list[list[tuple[int, str]]] = [[], []]
    refused: list[str] = []

    async def supervise() -> None:  # what `python -m tools.localcluster` does while it runs
        while True:
            await asyncio.to_thread(dep.heal)
            await asyncio.sleep(0.2)

    healer = asyncio.create_task(supervise())
    try:
        for i, bot in enumerate(bots):
            for _ in range(5):
                await persist(bot, acked[i], refused)
        assert owner.pid is not None
        os.kill(owner.pid, signal.SIGKILL)
        # both players keep playing: refused while the shard is away, accepted after
        for _ in range(6):
            for i, bot in enumerate(bots):
                await persist(bot, acked[i], refused)
        assert "store_unavailable" in refused
        promoted = dep.redis.owner(slot_of(keys.meta(code)))
        assert promoted is not owner  # the replica took over the room's slot
        for i, bot in enumerate(bots):
            await assert_kept(store, code, bot.player, acked[i])
        # progress crosses processes again, now on the promoted node's shard channel.
        # Pub/sub delivers at most once: a message published while a process is still
        # subscribing again is lost (resume restores counts), so the player keeps
        # moving until one arrives, up to a deadline.
        await progress_arrives(bots[0], bots[1], acked[0], refused)
    finally:
        healer.cancel()
        await close_all(bots)
