"""Worker processes start from a clean fork server (server/ops/workers.py): one forked
from the server would keep its listening socket, and a restarted server could not
listen on its port while that worker lived (a browser test of a resume after a kill
found it so)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from server.ops.workers import worker_pool

SERVER = Path(__file__).resolve().parents[3] / "server"


def test_a_worker_holds_none_of_the_servers_sockets() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    pool = worker_pool()
    try:
        assert pool.submit(os.getpid).result(timeout=60) != os.getpid()  # the worker is up
        listener.close()
        with socket.create_server(("127.0.0.1", port)):  # free again: no worker holds it
            pass
    finally:
        pool.shutdown()


def test_every_worker_pool_of_the_server_is_made_there() -> None:
    makers = [str(p.relative_to(SERVER)) for p in SERVER.rglob("*.py")
              if "ProcessPoolExecutor(" in p.read_text(encoding="utf-8")]
    assert makers == ["ops/workers.py"]


def test_the_pools_own_initializer_still_runs_in_each_worker() -> None:
    """worker_pool wraps the initializer it is given (to watch the server first): the given one still runs."""
    pool = worker_pool(initializer=os.nice, initargs=(1,))
    try:
        assert pool.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + 1)
    finally:
        pool.shutdown()
