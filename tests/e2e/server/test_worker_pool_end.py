"""A server killed by SIGKILL leaves no process of its own behind (server/ops/workers.py):
its pool's workers, idle or in the middle of a compiled solve, the fork server that
started them and multiprocessing's resource tracker all end with it. Without that
they lived on as orphans, one set for every server a test (or an operator) killed;
a busy worker for as long as its job ran."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from pathlib import Path

import psutil

from tests.support.bot import Bot
from tests.support.servers import SpawnFactory

GONE_WITHIN_S = 10.0  # a bound, not a wait: they go in well under a second
ROOT = Path(__file__).resolve().parents[3]
# a process that makes a pool as the server does and sets its worker on a long
# solve (the exhaustive stage at once, far longer than GONE_WITHIN_S for this deal
# and budget): the compiled search holds the interpreter all along, so no thread of
# the worker runs until the solve ends
BUSY_SERVER = """
import os, sys
from server.game.solver.portfolio import solve
from server.ops.workers import worker_pool
pool = worker_pool()
pool.submit(os.getpid).result(timeout=60)
pool.submit(solve, "four-seasons", 7, 50_000_000, quick=False)
print("solving", flush=True)
sys.stdin.read()
"""


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


def test_a_worker_in_the_middle_of_a_compiled_solve_ends_with_its_killed_server() -> None:
    server = subprocess.Popen([sys.executable, "-c", BUSY_SERVER], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    tree: list[psutil.Process] = []
    try:
        assert server.stdout is not None and server.stdout.readline() == b"solving\n"
        tree = psutil.Process(server.pid).children(recursive=True)
        forkserver = next(p for p in psutil.Process(server.pid).children()
                          if "multiprocessing.forkserver" in " ".join(p.cmdline()))
        worker = forkserver.children()[0]
        started = sum(worker.cpu_times()[:2])
        deadline = time.monotonic() + GONE_WITHIN_S
        while sum(worker.cpu_times()[:2]) - started < 0.3 and time.monotonic() < deadline:
            time.sleep(0.02)  # until the search is under way
        server.kill()
        server.wait(10)
        killed = time.monotonic()
        left = left_after(tree, GONE_WITHIN_S)
        assert not left, [(p.pid, p.cmdline()[:4]) for p in left]
        print(f"all {len(tree)} gone {time.monotonic() - killed:.3f} s after the kill")
    finally:
        server.kill()
        server.wait(10)
        for p in alive(tree):
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        for pipe in (server.stdin, server.stdout):
            if pipe is not None:
                pipe.close()
