"""The client's token lock against another running client (a real second process holds it)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from client.config import TokenStore, server_key


def test_a_token_held_by_another_running_client_is_not_reused(tmp_path: Path) -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        path = tmp_path / "tokens.json"
        entry = {"token": "theirs", "pid": other.pid, "saved_at": int(time.time())}
        path.write_text(json.dumps({server_key("ws://a:1"): {"ann": entry}}))
        assert TokenStore(tmp_path).load("ws://a:1", "ann") is None
    finally:
        other.kill()
        other.wait()
    # once that client has gone, its token may be resumed
    assert TokenStore(tmp_path).load("ws://a:1", "ann") == "theirs"
