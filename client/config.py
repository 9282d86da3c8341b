"""What the client keeps in the user's config directory, per server.

Everything lives under ``platformdirs.user_config_dir("patience-race")``
(``$XDG_CONFIG_HOME/patience-race`` on Linux), each file written atomically
with mode 0600 in a directory of mode 0700:

* ``tokens.json``: resume tokens, ``{server: {name: {"token", "pid", "saved_at"}}}``.
  A running client marks its entry with its pid, so a second terminal racing
  under the same name on the same server does not take over the first one's
  seat; the mark is released on exit.
* ``keys.json``: the secret keys of claimed names, ``{server: {name: {"key",
  "saved_at", "rating"?}}}``; a key is what proves a name is yours, so it is
  kept as carefully as a token (and never expires). ``rating`` is the last
  rating seen for that name, so the next result can show the change.
* ``commitments.json``: the daily commitments this client has seen,
  ``{server: {"DATE|VARIANT": sha256}}``, so the next day's reveal can be
  checked against what was published in advance (a week is kept).
* ``servers.json``: which server each address reached, ``{address: {"id"}}``,
  from ``welcome.server_id``.
* ``install``: a random id made at first launch and sent in every hello
  (``device``). Servers count daily attempts against it, guest or not, so a
  deal practised as a guest is not ranked for a name claimed afterwards.

Names are the server's, not the address's: ``ws://127.0.0.1:8765`` and
``ws://localhost:8765`` reach the same names. So keys and commitments are
filed under ``id:<server_id>`` once a server has told its id, and entries
filed under an address before (older clients, servers without an id) move
there the first time that address says which server it is. An address not
seen yet is looked up by its spelling first; when the server then refuses
the name, the session asks the server its id and tries the key kept for it
(see :mod:`client.connection`). Resume tokens stay by address: they live a
day and belong to one command line.

A config directory that cannot be read or written only costs persistence: the
stores then keep their data in memory for this run.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Final

__all__ = [
    "APP_DIR_NAME",
    "MAX_TOKEN_AGE_S",
    "CommitmentBook",
    "KeyStore",
    "ServerBook",
    "TokenStore",
    "default_config_dir",
    "install_id",
    "server_key",
    "where",
]

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


def where(url: str, server_id: str | None) -> str:
    """The config key of a server: its id when known, else its address."""
    return f"id:{server_id}" if server_id else server_key(url)


def install_id(config_dir: Path | str | None = None) -> str:
    """This installation's id: made once, at first launch, and kept (0600).

    Made under a private name and linked into place, so two clients starting
    together agree on one id. Without a writable config directory it lives for
    this run only (and every run then counts as a new install)."""
    import secrets

    path = Path(config_dir) if config_dir is not None else default_config_dir()
    path = path / "install"
    with contextlib.suppress(OSError):
        value = path.read_text(encoding="ascii").strip()
        if value:
            return value
    value = secrets.token_urlsafe(24)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".install-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(value + "\n")
            os.chmod(tmp, 0o600)
            try:
                os.link(tmp, path)
            except FileExistsError:  # another client got there first: its id wins
                value = path.read_text(encoding="ascii").strip() or value
        finally:
            os.unlink(tmp)
    except OSError:
        pass
    return value


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


class _JsonStore:
    """One private JSON file in the config directory: ``{server: {...}}``."""

    FILE_NAME = "store.json"

    def __init__(self, config_dir: Path | str | None = None, *, persist: bool = True) -> None:
        self._persist = persist
        self._dir = Path(config_dir) if config_dir is not None else None
        self._memory: dict[str, dict[str, Any]] = {}

    @property
    def path(self) -> Path | None:
        if not self._persist:
            return None
        if self._dir is None:
            self._dir = default_config_dir()
        return self._dir / self.FILE_NAME

    def _read(self) -> dict[str, dict[str, Any]]:
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

    def adopt(self, url: str, server_id: str) -> None:
        """File what was kept under the address ``url`` under the server's id instead.

        An entry already kept under the id stays unless the address's one is newer
        (commitments carry no date: the one under the id, seen first or not, stays).
        """
        data = self._read()
        old = data.pop(server_key(url), None)
        if not old:
            return
        target = data.setdefault(where(url, server_id), {})
        for name, entry in old.items():
            mine = target.get(name)
            if mine is None or (isinstance(mine, dict) and _saved(entry) > _saved(mine)):
                target[name] = entry
        self._write(data)

    def _write(self, data: dict[str, dict[str, Any]]) -> None:
        self._memory = data
        path = self.path
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
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
            pass  # the data stay in memory for this run


def _saved(entry: Any) -> float:
    value = entry.get("saved_at") if isinstance(entry, dict) else None
    return float(value) if isinstance(value, int | float) else 0.0


class ServerBook(_JsonStore):
    """Which server (by ``welcome.server_id``) each address reached last."""

    FILE_NAME = "servers.json"

    @classmethod
    def in_memory(cls) -> ServerBook:
        return cls(persist=False)

    def id_of(self, url: str) -> str | None:
        value = self._read().get(server_key(url), {}).get("id")
        return value if isinstance(value, str) and value else None

    def note(self, url: str, server_id: str) -> None:
        data = self._read()
        if data.get(server_key(url), {}).get("id") != server_id:
            data[server_key(url)] = {"id": server_id, "saved_at": int(time.time())}
            self._write(data)


class TokenStore(_JsonStore):
    """Resume tokens by (server, name). ``config_dir=None`` uses the user's config dir."""

    FILE_NAME = "tokens.json"

    def __init__(self, config_dir: Path | str | None = None, *, persist: bool = True) -> None:
        super().__init__(config_dir, persist=persist)
        self._pid = os.getpid()

    @classmethod
    def in_memory(cls) -> TokenStore:
        return cls(persist=False)

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


class KeyStore(_JsonStore):
    """The keys of claimed names by (server, name), and the last rating seen for each.

    Names are matched as the server matches them: an exact entry first, else
    one that differs only in case (``Ann`` claimed, ``--name ann`` later).
    """

    FILE_NAME = "keys.json"

    @classmethod
    def in_memory(cls) -> KeyStore:
        return cls(persist=False)

    def _entry(self, data: dict[str, dict[str, Any]], server: str, name: str) -> dict[str, Any] | None:
        names = data.get(server_key(server), {})
        entry = names.get(name)
        if not isinstance(entry, dict):
            folded = name.casefold()
            entry = next((v for k, v in names.items() if k.casefold() == folded and isinstance(v, dict)),
                         None)
        return entry if isinstance(entry, dict) else None

    def load(self, server: str, name: str) -> str | None:
        entry = self._entry(self._read(), server, name)
        key = entry.get("key") if entry else None
        return key if isinstance(key, str) and key else None

    def save(self, server: str, name: str, key: str) -> None:
        data = self._read()
        names = data.setdefault(server_key(server), {})
        old = self._entry(data, server, name)
        for k in [k for k, v in names.items() if v is old]:
            del names[k]  # one entry per name, spelt as claimed last
        names[name] = {"key": key, "saved_at": int(time.time())}
        self._write(data)

    def known_ids(self, name: str) -> list[str]:
        """The server ids under which a key for ``name`` is kept."""
        folded = name.casefold()
        return [k.removeprefix("id:") for k, names in self._read().items()
                if k.startswith("id:") and any(n.casefold() == folded for n in names)]

    def rating(self, server: str, name: str) -> float | None:
        entry = self._entry(self._read(), server, name)
        value = entry.get("rating") if entry else None
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    def save_rating(self, server: str, name: str, value: float) -> None:
        """Remember a claimed name's latest rating (names without a key are not kept)."""
        data = self._read()
        entry = self._entry(data, server, name)
        if entry is not None and entry.get("rating") != value:
            entry["rating"] = value
            self._write(data)


MAX_COMMITMENT_DAYS: Final = 7


class CommitmentBook(_JsonStore):
    """Daily commitments seen, by server and ``DATE|VARIANT`` (the last week's).

    The first commitment seen for a day is kept: a server that published
    another one later would be caught by the reveal not matching it.
    """

    FILE_NAME = "commitments.json"

    @classmethod
    def in_memory(cls) -> CommitmentBook:
        return cls(persist=False)

    def seen(self, server: str, date: str, variant: str) -> str | None:
        value = self._read().get(server_key(server), {}).get(f"{date}|{variant}")
        return value if isinstance(value, str) else None

    def note(self, server: str, date: str, variant: str, commitment: str) -> None:
        data = self._read()
        book = data.setdefault(server_key(server), {})
        key = f"{date}|{variant}"
        if key in book:
            return  # the first one seen is the evidence: a later, different one is not taken
        book[key] = commitment
        dates = sorted({k.partition("|")[0] for k in book}, reverse=True)
        keep = set(dates[:MAX_COMMITMENT_DAYS])
        for k in [k for k in book if k.partition("|")[0] not in keep]:
            del book[k]
        self._write(data)
