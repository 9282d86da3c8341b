"""``python -m tools.localcluster`` as a user runs it: everything up behind HAProxy,
then Ctrl-C (or SIGTERM) stops every child it started and leaves nothing behind."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.support.bot import Bot
from tests.support.localcluster import needs_haproxy

pytestmark = needs_haproxy

ROOT = Path(__file__).resolve().parents[3]


def _start(data: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "tools.localcluster", "--servers", "2", "--port", "0",
                             "--redis-port", "0", "--server-port", "0", "--data-dir", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("cluster ready"):
            return proc, line.split("connect to ")[1].split()[0]
    raise AssertionError(f"the cluster did not start (exit {proc.wait()})")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_the_cluster_command_serves_and_stops_every_child(sig: signal.Signals,
                                                                tmp_path: Path) -> None:
    proc, url = await asyncio.to_thread(_start, tmp_path / "cluster")
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
        names = sorted(c.name() for c in children)
        assert names.count("valkey-server") == 6 and names.count("haproxy") == 1
        assert sum("serve" in c.cmdline() for c in children) == 2
        bot = Bot(url, "cmd")
        try:
            welcome = await bot.connect()  # through HAProxy to a server on the cluster
            assert welcome["t"] == "welcome"
        finally:
            await bot.close()
        proc.send_signal(sig)  # what Ctrl-C in its terminal sends
        assert await asyncio.to_thread(proc.wait, 30) == 0
        assert proc.stdout is not None
        assert proc.stdout.read().strip().endswith("stopped")
        gone, alive = psutil.wait_procs(children, timeout=5)
        assert alive == [], f"left behind: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
