"""Settings from the environment (documented in the README)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

TRANSPORTS = ("websockets", "sansio")


class ConfigError(ValueError):
    """An environment variable has a value the server cannot use."""


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, not {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, not {value}")
    return value


def _networks(env: Mapping[str, str], name: str) -> str:
    """A comma-separated list of addresses or networks, checked here so a typo
    stops the server at start rather than trusting no proxy in silence."""
    raw = env.get(name, "")
    for part in raw.split(","):
        if part.strip():
            try:
                ipaddress.ip_network(part.strip(), strict=False)
            except ValueError:
                raise ConfigError(f"{name}: {part.strip()!r} is not an address or network") from None
    return raw


def _choice(env: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = env.get(name) or default
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    data_dir: str = "./data"
    secret: str = ""
    race_seconds: int = 15 * 60
    countdown_ms: int = 3000
    quick_size: int = 4
    rate_per_2s: int = 60
    daily_budget: int = 200_000
    daily_tries: int = 12
    daily_par_games: int = 3  # bot games per level for a daily deal's par (0: no par)
    grade_budget: int = 20_000  # solver nodes to grade a race's deal (0: no grades)
    max_bad_frames: int = 20  # malformed messages a connection may send before it is closed
    redis_cluster: bool = False  # REDIS_URL holds seed nodes of a Redis Cluster
    durability: str = "local"  # "replica": a move is acknowledged once a replica has it
    lobby_grace_ms: int = 30_000  # a lobby seat whose connection is gone this long is free
    # limits per client address (server/ops/limits.py; the table in docs/operations/reliability.md)
    connections_per_address: int = 16
    address_rate_per_2s: int = 240
    rooms_per_minute: int = 30
    claims_per_hour: int = 20
    guesses_per_hour: int = 30  # link and recovery codes an address may try (docs/design/identity.md)
    join_penalty_ms: int = 500
    api_rate_per_2s: int = 20  # read API requests per address per 2 s (docs/reference/http-api.md)
    name_ttl_days: int = 30
    season_days: int = 0  # a season's length: 0 = calendar months (UTC), else N days (docs/design/ladder.md)
    trusted_proxies: str = ""  # addresses or networks whose X-Forwarded-For is believed
    quick_bot_s: int = 20  # a quick race nobody joined gets a bot after this long (0: never)
    quick_bot_level: int = 3
    bot_pace_pct: int = 100  # bots' think times in percent of a person's (tests: 0)
    # arenas (docs/design/arenas.md)
    arena_schedule: str = ""  # daily arenas, "HH:MM VARIANT MINUTES, ..." (UTC)
    arena_tick_ms: int = 1000  # how often each process pairs, scores and pushes standings
    arena_group: int = 2  # players per arena race, at most (scheduled arenas)
    # a player's next arena pairing waits this long after its race was scored, so
    # that the results stay on screen to be read (docs/design/arenas.md)
    arena_rest_ms: int = 10_000
    arena_race_seconds: int = 300  # an arena race's clock (scheduled arenas)
    arena_max_players: int = 500  # lines an arena's standing may hold
    # in-loop dead-position search before it moves to a worker process (0: never)
    dead_offload_ms: int = 50
    # how long a move's answer waits for a dead-position verdict in all; past it the
    # move is answered "in progress" and the verdict is pushed when it lands
    dead_answer_ms: int = 250
    # the dead-search worker's memory above its size at start (a larger search ends without a verdict)
    dead_worker_mb: int = 2048
    # the pub/sub link's heartbeat: a PING after this long without a message; the
    # link counts as lost (and is replaced, every room caught up) after twice as long
    hub_heartbeat_ms: int = 15_000
    # debug: log the event loop's gaps of at least this many ms and the collector's
    # pauses every 10 s (server/ops/loopprobe.py; 0: off)
    loop_probe_ms: int = 0
    # the websocket transport: websockets' asyncio server, or its sans-I/O
    # protocol on a plain asyncio Protocol (server/net/sansio.py)
    # (its default follows PATIENCE_TRANSPORT, so settings built in code, as the
    # tests build them, run on the transport the environment names)
    transport: str = field(default_factory=lambda: default_transport())
    # the built browser client (web/dist beside the server's package when empty)
    web_root: str = ""
    # the admin API's token (docs/operations/moderation.md): PATIENCE_ADMIN_TOKEN, or the
    # first line of the file PATIENCE_ADMIN_TOKEN_FILE names; empty: the admin API is off
    admin_token: str = ""
    admin_rate_per_2s: int = 4  # admin API requests per address per 2 s, its own budget

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        e = os.environ if env is None else env
        return cls(
            host=e.get("PATIENCE_HOST", "127.0.0.1"),
            port=_int(e, "PATIENCE_PORT", 8765, 0, 65535),
            redis_url=e.get("REDIS_URL") or None,
            data_dir=e.get("PATIENCE_DATA_DIR", "./data"),
            secret=e.get("PATIENCE_SECRET", ""),
            race_seconds=_int(e, "PATIENCE_RACE_SECONDS", 15 * 60, 1, 24 * 3600),
            countdown_ms=_int(e, "PATIENCE_COUNTDOWN_MS", 3000, 0, 60_000),
            quick_size=_int(e, "PATIENCE_QUICK_SIZE", 4, 2, 8),
            rate_per_2s=_int(e, "PATIENCE_RATE_PER_2S", 60, 1, 100_000),
            daily_budget=_int(e, "PATIENCE_DAILY_BUDGET", 200_000, 1, 10**8),
            daily_tries=_int(e, "PATIENCE_DAILY_TRIES", 12, 1, 1000),
            daily_par_games=_int(e, "PATIENCE_DAILY_PAR_GAMES", 3, 0, 15),
            grade_budget=_int(e, "PATIENCE_GRADE_BUDGET", 20_000, 0, 10**7),
            max_bad_frames=_int(e, "PATIENCE_MAX_BAD_FRAMES", 20, 1, 10**9),
            redis_cluster=_choice(e, "REDIS_CLUSTER", "0", ("0", "1")) == "1",
            durability=_choice(e, "PATIENCE_DURABILITY", "local", ("local", "replica")),
            lobby_grace_ms=_int(e, "PATIENCE_LOBBY_GRACE_MS", 30_000, 0, 3_600_000),
            connections_per_address=_int(e, "PATIENCE_CONNECTIONS_PER_ADDRESS", 16, 1, 10**6),
            address_rate_per_2s=_int(e, "PATIENCE_ADDRESS_RATE_PER_2S", 240, 1, 10**7),
            rooms_per_minute=_int(e, "PATIENCE_ROOMS_PER_MINUTE", 30, 1, 10**6),
            claims_per_hour=_int(e, "PATIENCE_CLAIMS_PER_HOUR", 20, 1, 10**6),
            guesses_per_hour=_int(e, "PATIENCE_GUESSES_PER_HOUR", 30, 1, 10**6),
            join_penalty_ms=_int(e, "PATIENCE_JOIN_PENALTY_MS", 500, 0, 60_000),
            api_rate_per_2s=_int(e, "PATIENCE_API_RATE_PER_2S", 20, 1, 10**6),
            name_ttl_days=_int(e, "PATIENCE_NAME_TTL_DAYS", 30, 1, 3650),
            season_days=_int(e, "PATIENCE_SEASON_DAYS", 0, 0, 3650),
            trusted_proxies=_networks(e, "PATIENCE_TRUSTED_PROXIES"),
            quick_bot_s=_int(e, "PATIENCE_QUICK_BOT_S", 20, 0, 24 * 3600),
            quick_bot_level=_int(e, "PATIENCE_QUICK_BOT_LEVEL", 3, 1, 5),
            bot_pace_pct=_int(e, "PATIENCE_BOT_PACE_PCT", 100, 0, 1000),
            arena_schedule=e.get("PATIENCE_ARENAS", ""),
            arena_tick_ms=_int(e, "PATIENCE_ARENA_TICK_MS", 1000, 20, 60_000),
            arena_group=_int(e, "PATIENCE_ARENA_GROUP", 2, 2, 8),
            arena_rest_ms=_int(e, "PATIENCE_ARENA_REST_MS", 10_000, 0, 600_000),
            arena_race_seconds=_int(e, "PATIENCE_ARENA_RACE_SECONDS", 300, 10, 3600),
            arena_max_players=_int(e, "PATIENCE_ARENA_MAX_PLAYERS", 500, 2, 10_000),
            loop_probe_ms=_int(e, "PATIENCE_LOOP_PROBE_MS", 0, 0, 10_000),
            dead_offload_ms=_int(e, "PATIENCE_DEAD_OFFLOAD_MS", 50, 0, 60_000),
            dead_answer_ms=_int(e, "PATIENCE_DEAD_ANSWER_MS", 250, 0, 60_000),
            dead_worker_mb=_int(e, "PATIENCE_DEAD_WORKER_MB", 2048, 1, 1_000_000),
            hub_heartbeat_ms=_int(e, "PATIENCE_HUB_HEARTBEAT_MS", 15_000, 50, 600_000),
            transport=default_transport(e),
            web_root=e.get("PATIENCE_WEB_ROOT", ""),
            admin_token=admin_token(e),
            admin_rate_per_2s=_int(e, "PATIENCE_ADMIN_RATE_PER_2S", 4, 1, 10_000),
        )


MIN_ADMIN_TOKEN = 24  # characters: a shorter token is refused at start, not guessed later


def admin_token(env: Mapping[str, str]) -> str:
    """The admin token from PATIENCE_ADMIN_TOKEN or the file PATIENCE_ADMIN_TOKEN_FILE
    names (its first line): a file keeps the token out of the process's environment."""
    token = env.get("PATIENCE_ADMIN_TOKEN", "")
    path = env.get("PATIENCE_ADMIN_TOKEN_FILE", "")
    if token and path:
        raise ConfigError("set PATIENCE_ADMIN_TOKEN or PATIENCE_ADMIN_TOKEN_FILE, not both")
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                token = fh.readline().strip()
        except OSError as exc:
            raise ConfigError(f"PATIENCE_ADMIN_TOKEN_FILE: cannot read {path!r}: {exc.strerror}") from None
    if token and (len(token) < MIN_ADMIN_TOKEN or not token.isascii() or not token.isprintable()):
        raise ConfigError(f"the admin token must be at least {MIN_ADMIN_TOKEN} printable ASCII characters")
    return token


def default_transport(env: Mapping[str, str] | None = None) -> str:
    """The websocket transport that PATIENCE_TRANSPORT names (``sansio`` when unset: the
    lean one, less CPU per move and per idle connection; docs/benchmarks.md)."""
    return _choice(os.environ if env is None else env, "PATIENCE_TRANSPORT", "sansio",
                   TRANSPORTS)


def load_or_create_secret(data_dir: str) -> str:
    """The server secret when PATIENCE_SECRET is unset: made once from the
    OS's CSPRNG and kept (readable by the owner only) in the data directory,
    so the daily challenge works out of the box and survives restarts."""
    import secrets
    from pathlib import Path

    path = Path(data_dir) / "secret"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(32)
    # Written whole under a private name, then linked into place: processes
    # starting together on one data directory all end up with the same secret,
    # and none ever reads a half-written file.
    tmp = path.with_name(f"secret.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(value + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:  # another process got there first: its secret wins
            value = path.read_text().strip()
    finally:
        tmp.unlink()
    return value
