"""Resume tokens, kept per server and player name in the user's config directory.

The file is ``tokens.json`` under ``platformdirs.user_config_dir("patience-race")``
(``$XDG_CONFIG_HOME/patience-race`` on Linux), written atomically with mode 0600:
``{server: {name: {"token", "pid", "saved_at"}}}``. A running client marks its
entry with its pid, so a second terminal racing under the same name on the same
server does not take over the first one's seat; the mark is released on exit.
A config directory that cannot be read or written only costs resuming after a
restart: the store then keeps its tokens in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Final

__all__ = ["APP_DIR_NAME", "MAX_TOKEN_AGE_S", "TokenStore", "default_config_dir", "server_key"]

APP_DIR_NAME: Final = "patience-race"
MAX_TOKEN_AGE_S: Final = 24 * 3600  # older tokens have expired on the server anyway


def default_config_dir() -> Path:
    import platformdirs  # imported here: only the real app needs it

    return Path(platformdirs.user_config_dir(APP_DIR_NAME))


def server_key(url: str) -> str:
    """One key per server: ``WS://Host:1/`` and ``ws://host:1`` are the same server."""
    url = url.strip().rstrip("/")
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url.lower()
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}"


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


class TokenStore:
    """Resume tokens by (server, name). ``config_dir=None`` uses the user's config dir."""

    def __init__(self, config_dir: Path | str | None = None, *, persist: bool = True) -> None:
        self._persist = persist
        self._dir = Path(config_dir) if config_dir is not None else None
        self._memory: dict[str, dict[str, dict[str, Any]]] = {}
        self._pid = os.getpid()

    @classmethod
    def in_memory(cls) -> TokenStore:
        return cls(persist=False)

    @property
    def path(self) -> Path | None:
        if not self._persist:
            return None
        if self._dir is None:
            self._dir = default_config_dir()
        return self._dir / "tokens.json"

    # -- the public API ------------------------------------------------------
    def load(self, server: str, name: str) -> str | None:
        """The token to resume with, unless another live client holds it or it is stale."""
        entry = self._read().get(server_key(server), {}).get(name)
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        pid = entry.get("pid")
        if isinstance(pid, int) and pid != self._pid and _pid_alive(pid):
            return None
        saved = entry.get("saved_at")
        if isinstance(saved, int | float) and time.time() - saved > MAX_TOKEN_AGE_S:
            return None
        token: str = entry["token"]
        return token

    def save(self, server: str, name: str, token: str) -> None:
        data = self._read()
        data.setdefault(server_key(server), {})[name] = {
            "token": token, "pid": self._pid, "saved_at": int(time.time()),
        }
        self._write(data)

    def forget(self, server: str, name: str) -> None:
        data = self._read()
        entries = data.get(server_key(server), {})
        if entries.pop(name, None) is not None:
            if not entries:
                data.pop(server_key(server), None)
            self._write(data)

    def release(self, server: str, name: str) -> None:
        """Drop this process's hold on the token (kept for a later resume)."""
        data = self._read()
        entry = data.get(server_key(server), {}).get(name)
        if isinstance(entry, dict) and entry.get("pid") == self._pid:
            entry["pid"] = None
            self._write(data)

    # -- storage ---------------------------------------------------------------
    def _read(self) -> dict[str, dict[str, dict[str, Any]]]:
        path = self.path
        if path is None:
            return self._memory
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return self._memory
        if not isinstance(raw, dict):
            return self._memory
        return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, dict)}

    def _write(self, data: dict[str, dict[str, dict[str, Any]]]) -> None:
        self._memory = data
        path = self.path
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".tokens-", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(data, fh)
                os.chmod(tmp, 0o600)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            pass  # the tokens stay in memory for this run
