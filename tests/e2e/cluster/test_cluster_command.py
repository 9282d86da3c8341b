"""``python -m tools.localcluster`` as a user runs it: everything up behind HAProxy,
then Ctrl-C (or SIGTERM) stops every child it started and leaves nothing behind; a
SIGKILL takes every child with it; a port someone else holds is one line."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.support.bot import Bot
from tests.support.localcluster import needs_haproxy
from tools.localcluster.nodes import BUS_OFFSET, free_port
from tools.localcluster.ports import bindable

pytestmark = needs_haproxy

ROOT = Path(__file__).resolve().parents[3]


def _command(data: Path, port: int = 0, redis_port: int = 0, servers: int = 2) -> list[str]:
    return [sys.executable, "-m", "tools.localcluster", "--servers", str(servers), "--port", str(port),
            "--redis-port", str(redis_port), "--server-port", "0", "--data-dir", str(data)]


def _start(data: Path, port: int = 0, redis_port: int = 0) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(_command(data, port, redis_port), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=ROOT)
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


def _free_node_ports() -> int:
    """A first port whose six nodes and their cluster buses find their ports free."""
    for _ in range(200):
        base = free_port()
        wanted = [base + i for i in range(6)] + [base + BUS_OFFSET + i for i in range(6)]
        if wanted[-1] < 65536 and all(bindable(p) for p in wanted):
            return base
    raise AssertionError("no six free ports in a row")


def _taken() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("which", ["haproxy", "redis"])
def test_a_taken_port_is_one_line_naming_it_and_its_holder(which: str, tmp_path: Path) -> None:
    with _taken() as sock:
        port = sock.getsockname()[1]
        where = {"port": port} if which == "haproxy" else {"redis_port": port}
        cmd = _command(tmp_path / "cluster", **where)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 1, done.stderr
    what, option = (("HAProxy, where players connect", "--port") if which == "haproxy"
                    else ("Redis node 1 of 6", "--redis-port"))
    holder = f"{psutil.Process().name()} (pid {os.getpid()})"  # this test holds it
    assert done.stderr.splitlines() == [f"patience-server: cannot start the cluster: port {port} ({what}) "
                                        f"is in use by {holder}; choose another with {option}"]
    assert done.stdout == ""


def test_a_sigkilled_cluster_command_takes_every_child_with_it_and_starts_again(tmp_path: Path) -> None:
    port, redis_port = free_port(), _free_node_ports()
    proc, _ = _start(tmp_path / "cluster", port, redis_port)
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
        assert sorted(c.name() for c in children).count("valkey-server") == 6
        proc.kill()  # no handler runs: only the kernel can stop the children now
        proc.wait()
        gone, alive = psutil.wait_procs(children, timeout=30)
        assert alive == [], f"left behind: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # the same fixed ports are free again: a second run starts where the first one was
    again, url = _start(tmp_path / "cluster", port, redis_port)
    try:
        assert url == f"ws://127.0.0.1:{port}/"
        again.send_signal(signal.SIGINT)
        assert again.wait(30) == 0
    finally:
        if again.poll() is None:
            again.kill()
            again.wait()
