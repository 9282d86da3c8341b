"""Unit tests start no process and open no network socket: both raise here.

A test that needs either belongs in tests/integration/ (a real Redis, servers in
the test's own process) or tests/e2e/ (processes). Sockets of the address families
that reach a server (TCP and unix) are refused at bind and connect; a socketpair
inside the process, as the event loop makes, is left alone.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

NETWORK = (socket.AF_INET, socket.AF_INET6, socket.AF_UNIX)


class NotAUnitTest(AssertionError):
    """What a unit test did that belongs to an integration or e2e test."""


def refuse(what: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotAUnitTest(f"a unit test {what}: move it to tests/integration/ or tests/e2e/")
    return refused


def guarded_socket_call(original: Callable[..., Any], what: str) -> Callable[..., Any]:
    def call(self: socket.socket, *args: Any) -> Any:
        if self.family in NETWORK:
            raise NotAUnitTest(f"a unit test {what} a socket: move it to tests/integration/")
        return original(self, *args)
    return call


@contextlib.contextmanager
def no_processes_or_network() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(subprocess.Popen, "__init__", refuse("started a process"))
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
            if hasattr(os, name):
                mp.setattr(os, name, refuse(f"called os.{name}"))
        for name in ("bind", "connect", "connect_ex"):
            mp.setattr(socket.socket, name, guarded_socket_call(getattr(socket.socket, name), name))
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    with no_processes_or_network():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with no_processes_or_network():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    with no_processes_or_network():
        return (yield)
