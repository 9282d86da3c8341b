"""Real Redis for tests: ``REDIS_URL`` when set, else a private embedded redis-server.

Tests that share an external ``REDIS_URL`` share its keyspace too: use unique keys
(or a dedicated database in the URL) rather than FLUSHALL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import redis

from server.store.embedded import EmbeddedRedis, FsyncPolicy

__all__ = ["fresh_server", "redis_url", "sigkill", "wait_aof_written"]


@contextlib.contextmanager
def redis_url() -> Iterator[str]:
    """Yield a Redis URL: ``$REDIS_URL`` if set, else an embedded server in a temp dir."""
    external = os.environ.get("REDIS_URL", "").strip()
    if external:
        yield external
        return
    with tempfile.TemporaryDirectory(prefix="prr-test-") as tmp, EmbeddedRedis(Path(tmp)) as server:
        yield server.url


@contextlib.contextmanager
def fresh_server(
    data_dir: Path | None = None, *, appendfsync: FsyncPolicy = "everysec"
) -> Iterator[EmbeddedRedis]:
    """Start an embedded server on ``data_dir`` (a new temp dir if None); always stopped.

    Always embedded, never ``REDIS_URL``: restart and crash tests need a process
    and a data directory of their own.
    """
    with contextlib.ExitStack() as stack:
        if data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="prr-test-")))
        server = EmbeddedRedis(data_dir, appendfsync=appendfsync)
        with server:
            yield server


def sigkill(server: EmbeddedRedis) -> None:
    """Crash redis-server with SIGKILL: no AOF flush, pidfile and socket stay behind."""
    pid = server.pid
    assert pid is not None, "server is not running"
    os.kill(pid, signal.SIGKILL)
    server.stop()  # only reaps the dead process; stale files are left for the restart to face


def wait_aof_written(url: str, timeout: float = 5.0) -> None:
    """Wait until redis has handed its AOF buffer to the kernel and no fsync is pending.

    After that a SIGKILL of redis-server cannot lose the data, even with everysec.
    """
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            info = client.info("persistence")
            if info.get("aof_buffer_length", 0) == 0 and info.get("aof_pending_bio_fsync", 0) == 0:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"AOF still not written after {timeout} s: {info}")
            time.sleep(0.01)
    finally:
        client.close()
