"""The unit folder's guard (tests/unit/conftest.py) refuses processes and network sockets."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest

from tests.unit.conftest import NotAUnitTest


def test_a_process_is_refused() -> None:
    with pytest.raises(NotAUnitTest, match="started a process"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_UNIX])
def test_a_network_socket_is_refused(family: socket.AddressFamily) -> None:
    with socket.socket(family) as sock, pytest.raises(NotAUnitTest, match="bind"):
        sock.bind(("127.0.0.1", 0) if family == socket.AF_INET else "")


async def test_a_server_is_refused_and_the_event_loop_still_runs() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    with pytest.raises(NotAUnitTest):
        await asyncio.start_server(handler, "127.0.0.1", 0)
    assert await asyncio.sleep(0, "ticks") == "ticks"


def test_a_socketpair_is_left_alone() -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"x")
        assert right.recv(1) == b"x"
