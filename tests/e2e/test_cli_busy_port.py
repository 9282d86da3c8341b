"""A busy port: the real server process says so in one line."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

from tests.unit.cli.test_cli import SCRIPT


def test_a_busy_port_gets_one_line_with_the_port(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PATIENCE_PORT": str(port), "PATIENCE_HOST": "127.0.0.1",
               "PATIENCE_DATA_DIR": str(tmp_path), "PATIENCE_SECRET": "x"}
        env.pop("REDIS_URL", None)
        done = subprocess.run([str(SCRIPT), "serve"], capture_output=True, text=True, timeout=60,
                              env=env, check=False, cwd=tmp_path)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if not line.startswith("{")]  # json logs aside
    assert errors == [f"patience-server: cannot listen on 127.0.0.1:{port}: the port is in use "
                      "(is another server running?) (choose another with --port or PATIENCE_PORT)"]
