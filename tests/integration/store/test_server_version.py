"""The server binary we pick and the version we accept, against real servers."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import redis
import redis.asyncio

from server.store.embedded import EmbeddedRedis, find_redis_server
from server.store.server_version import (
    ServerTooOld,
    binary_version,
    bundled_server,
    check_version,
    require_version,
    server_version,
)
from tests.support.redis_server import fresh_server


def _old_binary(directory: Path, name: str = "redis-server") -> Path:
    """A program that answers --version like Redis 6.2 (it is never started)."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text("#!/bin/sh\necho 'Redis server v=6.2.6 sha=00000000:0 malloc=libc bits=64'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_the_wheel_ships_a_current_valkey() -> None:
    exe = bundled_server()
    assert exe is not None and exe.endswith("valkey-server")
    version = binary_version(exe)
    assert version is not None and version >= (7, 0)


def test_without_a_server_on_path_the_bundled_valkey_is_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert find_redis_server() == bundled_server()
    with EmbeddedRedis(tmp_path / "data") as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        try:
            info = client.info("server")
            assert server_version(info)[0] == "valkey"
            check_version(info)
            # the sharded pub/sub the room channels need
            assert client.execute_command("SPUBLISH", "room:{X}:events", "hi") == 0
        finally:
            client.close()


def test_a_current_server_on_path_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = bundled_server()
    assert bundled is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "redis-server").symlink_to(bundled)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert find_redis_server() == str(bin_dir / "redis-server")


def test_an_old_server_on_path_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _old_binary(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert binary_version(str(tmp_path / "bin" / "redis-server")) == (6, 2)
    assert find_redis_server() == bundled_server()


def test_old_versions_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ServerTooOld, match=r"redis 6\.2\.14 is too old: .* Redis >= 7\.0"):
        check_version({"redis_version": "6.2.14"})
    assert check_version({"redis_version": "7.0.15"}) == "redis 7.0.15"
    # Valkey gives its own number beside the Redis one it is compatible with
    assert check_version({"redis_version": "7.2.4", "valkey_version": "8.1.8"}) == "valkey 8.1.8"


async def test_start_up_check_asks_the_real_server() -> None:
    with fresh_server() as server:
        client = redis.asyncio.from_url(server.url)
        try:
            assert (await require_version(client)).startswith("valkey ")
            # the same server, held to a bar it does not reach: refused
            with pytest.raises(ServerTooOld, match="too old"):
                await require_version(client, minimum=(99, 0))
        finally:
            await client.aclose()
