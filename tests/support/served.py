"""A real ``patience-server serve`` process for the terminal tests, which can be
killed and started again on the same port, Redis and data directory (a restart
as an operator would do it)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from tests.support.redis_server import redis_url

SERVER = Path(sys.executable).parent / "patience-server"
SERVING = re.compile(r"serving (ws://[^/ ]+)/")


class Served:
    """One server process at a time on one Redis; ``url`` stays the same across restarts."""

    def __init__(self, redis: str, workdir: Path, **env: str) -> None:
        self.workdir = workdir
        self.env = {**os.environ, "REDIS_URL": redis, "PATIENCE_PORT": "0", "PATIENCE_HOST": "127.0.0.1",
                    "PATIENCE_COUNTDOWN_MS": "300", "PATIENCE_DATA_DIR": str(workdir / "data"),
                    "PYTHONUNBUFFERED": "1", **env}
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self._log: IO[str] | None = None

    def start(self) -> str:
        """Start the server (on the port of the last one, if there was one); its url."""
        if self.url:
            self.env["PATIENCE_PORT"] = self.url.rsplit(":", 1)[1]
        self._log = open(self.workdir / "server.log", "a")  # noqa: SIM115 (read when a test fails)
        self.proc = subprocess.Popen([str(SERVER), "serve"], stdout=subprocess.PIPE, stderr=self._log,
                                     stdin=subprocess.DEVNULL, env=self.env, cwd=self.workdir, text=True)
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            found = SERVING.search(line)
            if found:
                self.url = found.group(1)
                return self.url
        raise AssertionError("the server exited before serving:\n" + self.log())

    def kill(self) -> None:
        """SIGKILL: nothing is cleaned up, as in a crash."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(15)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def log(self) -> str:
        path = self.workdir / "server.log"
        return path.read_text() if path.exists() else ""


@contextmanager
def served(workdir: Path, **env: str) -> Iterator[Served]:
    """A started server on a Redis of its own (or ``$REDIS_URL``), stopped at the end."""
    with redis_url() as redis:
        server = Served(redis, workdir, **env)
        server.start()
        try:
            yield server
        finally:
            server.stop()
