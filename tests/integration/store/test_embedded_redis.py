"""The embedded redis-server launcher, against a real redis-server (no mocks)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import redis
import redis.asyncio

from server.store.embedded import (
    EmbeddedRedis,
    EmbeddedRedisError,
    FsyncPolicy,
    RedisServerNotFound,
    find_redis_server,
    resolve_redis_url,
)
from tests.support.redis_server import fresh_server, redis_url, sigkill, wait_aof_written


def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True)


def test_starts_and_answers_ping(tmp_path: Path) -> None:
    with fresh_server(tmp_path) as server:
        assert server.url.startswith("unix://")
        assert server.socket_path.parent == tmp_path
        client = _client(server.url)
        try:
            assert client.ping()
            assert client.config_get("port") == {"port": "0"}
            assert client.config_get("appendonly") == {"appendonly": "yes"}
            assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
            assert client.config_get("dir") == {"dir": str(tmp_path)}
        finally:
            client.close()
        assert server.pidfile.read_text().strip() == str(server.pid)
    assert not server.running
    # A clean shutdown removes its own socket and pidfile.
    assert not server.socket_path.exists()
    assert not server.pidfile.exists()


async def test_url_works_with_asyncio_client(tmp_path: Path) -> None:
    with fresh_server(tmp_path) as server:
        client = redis.asyncio.from_url(server.url)
        try:
            assert await client.ping()
        finally:
            await client.aclose()


def test_data_survives_clean_restart(tmp_path: Path) -> None:
    with fresh_server(tmp_path) as server:
        client = _client(server.url)
        client.set("race:1", "alice")
        client.close()
    with fresh_server(tmp_path) as server:
        client = _client(server.url)
        assert client.get("race:1") == "alice"
        client.close()


@pytest.mark.parametrize("policy", ["always", "everysec"])
def test_data_survives_sigkill(tmp_path: Path, policy: FsyncPolicy) -> None:
    with fresh_server(tmp_path, appendfsync=policy) as server:
        client = _client(server.url)
        client.hset("room:7", mapping={"seed": "42", "state": "racing"})
        client.close()
        if policy == "everysec":
            wait_aof_written(server.url)
        sigkill(server)
        assert not server.running
    with fresh_server(tmp_path, appendfsync=policy) as server:
        client = _client(server.url)
        assert client.hgetall("room:7") == {"seed": "42", "state": "racing"}
        client.close()


def test_stale_socket_and_pidfile_do_not_block_restart(tmp_path: Path) -> None:
    with fresh_server(tmp_path) as server:
        old_pid = server.pid
        sigkill(server)
        assert server.socket_path.exists()
        assert server.pidfile.read_text().strip() == str(old_pid)
    with fresh_server(tmp_path) as server:
        assert server.pid != old_pid
        assert server.pidfile.read_text().strip() == str(server.pid)
        assert _client(server.url).ping()


def test_refuses_second_server_on_live_data_dir(tmp_path: Path) -> None:
    with fresh_server(tmp_path) as first:
        with pytest.raises(EmbeddedRedisError, match="still running"):
            EmbeddedRedis(tmp_path).start()
        assert _client(first.url).ping()


def test_long_data_dir_gets_short_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    with fresh_server(deep) as server:
        assert len(os.fsencode(server.socket_path)) <= 103
        assert not server.socket_path.is_relative_to(deep)
        client = _client(server.url)
        client.set("k", "v")
        client.close()
        socket_dir = server.socket_path.parent
    assert not socket_dir.exists()
    assert (deep / "appendonly.aof").exists() or (deep / "appendonlydir").exists()
    with fresh_server(deep) as server:
        assert _client(server.url).get("k") == "v"


def test_startup_failure_reports_log_tail(tmp_path: Path) -> None:
    fake = tmp_path / "broken-redis-server"
    fake.write_text("#!/bin/sh\necho 'FATAL CONFIG FILE ERROR: boom' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    server = EmbeddedRedis(tmp_path / "data", executable=str(fake))
    with pytest.raises(EmbeddedRedisError, match="boom"):
        server.start()
    assert not server.running


def test_missing_binary_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    # no bundled binary either
    monkeypatch.setattr("server.store.server_version.bundled_server", lambda: None)
    assert find_redis_server() is None
    with pytest.raises(RedisServerNotFound, match="No redis-server binary found"):
        EmbeddedRedis(tmp_path / "data").start()
    with pytest.raises(RedisServerNotFound):
        EmbeddedRedis(tmp_path / "data", executable=str(tmp_path / "nope")).start()


def test_resolve_honours_redis_url_without_starting(tmp_path: Path) -> None:
    env = {"REDIS_URL": "redis://redis.example:6379/3", "PATIENCE_DATA_DIR": str(tmp_path / "d")}
    url, launcher = resolve_redis_url(env)
    assert (url, launcher) == ("redis://redis.example:6379/3", None)
    assert not (tmp_path / "d").exists()


def test_resolve_starts_embedded_under_data_dir(tmp_path: Path) -> None:
    url, launcher = resolve_redis_url({"PATIENCE_DATA_DIR": str(tmp_path / "d")})
    assert launcher is not None
    try:
        assert launcher.data_dir == tmp_path / "d" / "redis"
        assert url == launcher.url
        assert _client(url).ping()
    finally:
        launcher.stop()


def test_resolve_defaults_to_data_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url, launcher = resolve_redis_url({"REDIS_URL": ""})
    assert launcher is not None
    try:
        assert launcher.data_dir == tmp_path / "data" / "redis"
        assert _client(url).ping()
    finally:
        launcher.stop()


def test_redis_url_helper_yields_working_url() -> None:
    with redis_url() as url:
        assert _client(url).ping()
