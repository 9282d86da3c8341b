"""A server killed by SIGKILL leaves no process of its own behind (server/ops/workers.py):
its pool's worker, the fork server that started it and multiprocessing's resource
tracker all end with it. Without that they lived on as orphans, one set for every
server a test (or an operator) killed."""

from __future__ import annotations

import asyncio
import contextlib
import time

import psutil

from tests.support.bot import Bot
from tests.support.servers import SpawnFactory

GONE_WITHIN_S = 10.0  # a bound, not a wait: they go in well under a second


def alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    """Those still running: an orphan's zombie waiting for its new parent counts as gone."""
    left = []
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                left.append(p)
    return left


def left_after(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Those still running once they have all gone or ``timeout`` has passed (polled)."""
    deadline = time.monotonic() + timeout
    while (left := alive(procs)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


async def test_a_killed_servers_workers_and_fork_server_end_with_it(spawn: SpawnFactory) -> None:
    sp = await spawn()
    bot = Bot(sp.url, "solo")
    await bot.connect()
    await bot.send({"t": "solo", "variant": "four-seasons", "deal": "24"})
    await bot.expect("view")
    await bot.send({"t": "hint"})  # the first hint makes the solver's pool and runs one job
    assert (await bot.expect("hint", timeout=60))["result"] in ("won", "lost", "unknown")

    server = psutil.Process(sp.proc.pid)
    tree = server.children(recursive=True)
    forkservers = [p for p in server.children() if "multiprocessing.forkserver" in " ".join(p.cmdline())]
    assert len(forkservers) == 1, [p.cmdline() for p in tree]
    assert forkservers[0].children(), "the pool's worker, the fork server's child, is up and idle"
    try:
        sp.sigkill()
        killed = time.monotonic()
        left = await asyncio.to_thread(left_after, tree, GONE_WITHIN_S)
        assert not left, [(p.pid, p.cmdline()[:4]) for p in left]
        print(f"all {len(tree)} gone {time.monotonic() - killed:.3f} s after the kill")
    finally:
        for p in alive(tree):  # never leave them to the next test, even when this one fails
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        with contextlib.suppress(Exception):
            await bot.close()
