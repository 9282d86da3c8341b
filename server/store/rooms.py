"""Rooms and players in Redis (layout in docs/reference/storage.md).

All writes that depend on what is stored go through one Lua script each
(server/store/lua.py); reads are single pipelines. Redis failures surface as
:class:`StoreUnavailable`, after which nothing has been acknowledged.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any, Final, cast

from redis.asyncio import Redis
from redis.exceptions import ClusterError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..ops.clock import now_ms
from ..ops.metrics import ROUND_TRIPS
from ..race.rows import PlayerRow, RoomRow
from ..wire.errors import RoomError, StoreUnavailable
from ..wire.protocol import MAX_PLAYERS
from . import keys, lua
from .batch import ScriptBatcher, pack_args
from .compact import pack_record, unpack_record
from .router import Router, slot_of
from .server_version import require_version

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: codes are read aloud
CODE_LENGTH = 6
HOUR_MS = 3_600_000
# The move script's arguments after its keys, and how many players' fixed parts
# are kept packed (a few hundred bytes each).
MOVE_ARGC = 10
MOVE_FIXED_MAX = 20_000
# Codes kept per variant in a quick-race index: the newest; older ones can
# still be joined by code, just not found by a quick race.
QUICK_MAX = 1000



def _closed_transport(exc: RuntimeError) -> bool:
    text = str(exc)
    return "closed" in text and ("transport" in text.lower() or "handler" in text)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _int(value: Any, default: int = 0) -> int:
    return int(value) if value not in (None, b"", "") else default


def _log_rows(rows: list[Any]) -> list[tuple[int, str]]:
    """A log list's entries, ``"<ms> <move>"`` each, as (ms, move)."""
    out = []
    for row in rows:
        ms, _, text = _s(row).partition(" ")
        out.append((int(ms), text))
    return out


# What a store call raises when Redis is away for now, read as store_unavailable by
# every store: ClusterError is redis-py's cluster client out of redirections (a slot
# moving or a shard failing over)
STORE_AWAY: Final = (RedisConnectionError, RedisTimeoutError, OSError, ClusterError)


class RoomStore:
    def __init__(self, redis: Redis, *, race_ms: int, countdown_ms: int,
                 lobby_ttl_ms: int = HOUR_MS, finished_ttl_ms: int = 24 * HOUR_MS,
                 max_moves: int = 5000, replicas: int = 0, lobby_grace_ms: int = 30_000,
                 clock: Callable[[], int] = now_ms) -> None:
        self.redis = redis
        # the application layer's clock (RoomService.clock): the times stored and the
        # times they are compared with come from one clock
        self.clock = clock
        self.race_ms = race_ms
        self.countdown_ms = countdown_ms
        self.lobby_ttl_ms = lobby_ttl_ms
        self.finished_ttl_ms = finished_ttl_ms
        self.race_ttl_ms = countdown_ms + race_ms + HOUR_MS
        self.max_moves = max_moves
        self.lobby_grace_ms = lobby_grace_ms
        self._join = redis.register_script(lua.JOIN)
        self._ready = redis.register_script(lua.READY)
        self._finish = redis.register_script(lua.FINISH)
        self._compact = redis.register_script(lua.COMPACT)
        self._release_conn = redis.register_script(lua.RELEASE_CONN)
        self._hset_existing = redis.register_script(lua.HSET_EXISTING)
        self._verdict = redis.register_script(lua.VERDICT)
        self._rematch_vote = redis.register_script(lua.REMATCH_VOTE)
        self._reserve_seats = redis.register_script(lua.RESERVE_SEATS)
        self._start_reserved = redis.register_script(lua.START_RESERVED)
        self._index_add = redis.register_script(lua.INDEX_ADD)
        # replicas > 0 (PATIENCE_DURABILITY=replica): a move is acknowledged once on a replica too
        self._moves = ScriptBatcher(Router(redis), lua.MOVE, replicas=replicas)
        self._moves.on_round_trip = ROUND_TRIPS.inc
        self._move_fixed: dict[tuple[str, int], tuple[bytes, bytes]] = {}
        self._slots: dict[str, int] = {}

    async def _guard(self, coro: Any) -> Any:
        try:
            return await coro
        except STORE_AWAY as exc:
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from None
        except RuntimeError as exc:
            # redis-py's cluster client may write on a connection it closed after a
            # timeout; the event loop then refuses the write on its closed transport
            if _closed_transport(exc):
                raise StoreUnavailable(str(exc)) from None
            raise

    def close(self) -> None:
        self._moves.close()

    async def require_version(self) -> str:
        """The server's name and version; :class:`.server_version.ServerTooOld` if too old."""
        return str(await self._guard(require_version(self.redis)))

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    # -- rooms -----------------------------------------------------------------
    async def create_room(self, variant: str, deal: str, max_players: int, private: bool,
                          min_players: int = 2, **extra: str | int) -> str:
        """A new room in its lobby. ``extra`` fields go into its meta hash; the
        caller passes ``fc0``, the deal's foundation cards before any move,
        so opponents' progress starts from the truth."""
        for _ in range(20):
            code = new_code()
            created = await self._guard(self.redis.hsetnx(keys.meta(code), "variant", variant))
            if created:
                fields: dict[str, str | int] = {
                    "deal": deal, "max": max_players, "min": min_players,
                    "private": int(private), "phase": "lobby", "players": 0,
                    "created": self.clock(), **extra}
                await self._guard(self.redis.hset(keys.meta(code), mapping=cast(Any, fields)))
                await self._guard(self.redis.pexpire(keys.meta(code), self.lobby_ttl_ms))
                return code
        raise RuntimeError("could not find a free room code")

    async def join(self, code: str, name: str, tokhash: str, who: str = "") -> tuple[int, bool]:
        """A seat for ``name``: (its number, whether it was ``who``'s seat already,
        taken over). ``who`` is the casefolded claimed name, '' for a guest."""
        seats = [keys.meta(code)] + keys.all_player_keys(code, MAX_PLAYERS)
        res = await self._guard(self._join(seats, [name, tokhash, self.clock(), self.lobby_ttl_ms, who,
                                                    self.lobby_grace_ms]))
        if int(res[0]) == 0:
            raise RoomError(_s(res[1]))
        return int(res[0]), len(res) > 1

    async def room(self, code: str) -> RoomRow | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.meta(code))
        for k in keys.all_player_keys(code, MAX_PLAYERS):
            pipe.hgetall(k)
        pipe.get(keys.done(code))
        rows = await self._guard(pipe.execute())
        meta = {_s(k): v for k, v in rows[0].items()}
        if not meta or "phase" not in meta:
            return None
        packed = rows[-1]
        if packed and "results" not in meta:  # a compacted finished room
            meta["results"] = unpack_record(packed)[0]
        room = RoomRow(code=code, variant=_s(meta["variant"]), deal=_s(meta["deal"]),
                       max=_int(meta["max"]), min=_int(meta.get("min"), 2),
                       private=_s(meta.get("private", "1")) == "1", phase=_s(meta["phase"]),
                       starts_at=_int(meta.get("starts_at")), ends_at=_int(meta.get("ends_at")),
                       results=meta.get("results"),
                       rematch=_s(meta["rematch"]) if "rematch" in meta else None,
                       daily=_s(meta["daily"]) if "daily" in meta else None,
                       ranked=_s(meta.get("ranked", "0")) == "1",
                       solo=_s(meta.get("solo", "0")) == "1",
                       arena=_s(meta["arena"]) if "arena" in meta else None,
                       grade=_int(meta["grade"]) if "grade" in meta else None)
        for n in range(1, _int(meta.get("players")) + 1):
            p = {_s(k): v for k, v in rows[n].items()}
            if not p:
                continue
            room.players.append(PlayerRow(
                n=n, name=_s(p.get("name", "")), v=_int(p.get("v")), seq=_int(p.get("seq"), -1),
                status=_s(p.get("status", "in_progress")), fc=_int(p.get("fc")),
                ready=_s(p.get("ready", "0")) == "1", conn=_s(p.get("conn", "0")) not in ("0", ""),
                left=_s(p.get("left", "0")) == "1",
                fc_ms=_int(p["fc_ms"]) if "fc_ms" in p else None,
                done_ms=_int(p["done_ms"]) if "done_ms" in p else None,
                ident=_s(p["ident"]) if "ident" in p else None,
                gone=_int(p["gone"]) if "gone" in p else None, bot=_int(p.get("bot")),
                bot_account=_s(p.get("acct", "")) == "bot"))
        return room

    async def token_hash(self, code: str, n: int) -> str | None:
        value = await self._guard(self.redis.hget(keys.player(code, n), "tok"))
        return _s(value) if value is not None else None

    async def set_ready(self, code: str, n: int, ready: bool) -> tuple[bool, int, int]:
        for _ in range(MAX_PLAYERS + 1):
            count = _int(await self._guard(self.redis.hget(keys.meta(code), "players")))
            ks = [keys.meta(code)] + keys.all_player_keys(code, count)
            res = await self._guard(self._ready(ks, [n, int(ready), self.clock(), self.countdown_ms,
                                                     self.race_ms, self.race_ttl_ms]))
            if int(res[0]) != -1:
                return int(res[0]) == 1, int(res[1]), int(res[2])
        raise StoreUnavailable("the room kept changing while marking ready")

    async def release_conn(self, code: str, n: int, session_id: str) -> bool:
        """Mark player ``n`` disconnected if connection ``session_id`` still holds the seat."""
        return bool(await self._guard(self._release_conn([keys.player(code, n)], [session_id, self.clock()])))

    async def set_player_fields(self, code: str, n: int, **fields: str | int | bytes) -> None:
        await self._set_existing(keys.player(code, n), fields)

    async def set_meta_fields(self, code: str, **fields: str | int | bytes) -> None:
        await self._set_existing(keys.meta(code), fields)

    async def _set_existing(self, key: str, fields: dict[str, str | int | bytes]) -> None:
        """HSET that never recreates an expired room's key (it would have no TTL)."""
        args = [x for pair in fields.items() for x in pair]
        await self._guard(self._hset_existing([key], args))

    async def set_grade(self, code: str, grade: int) -> bool:
        """Keep the deal's difficulty grade in the room's meta hash (never
        recreating an expired room); whether the room still exists."""
        args: list[str | int] = ["grade", grade]
        return bool(await self._guard(self._hset_existing([keys.meta(code)], args)))

    async def claim_rematch(self, code: str, new_code: str) -> str:
        """Link ``code`` to its rematch room; the first claim wins."""
        await self._guard(self.redis.hsetnx(keys.meta(code), "rematch", new_code))
        return _s(await self._guard(self.redis.hget(keys.meta(code), "rematch")))

    async def rematch_vote(self, code: str, n: int, accept: bool) -> set[int]:
        """Player ``n`` accepts (or withdraws from) the rematch; who accepts now."""
        members = await self._guard(self._rematch_vote(
            [keys.rematch(code)], [n, 1 if accept else 0, self.finished_ttl_ms]))
        return {int(m) for m in members}

    async def reserve_seats(self, code: str, seats: list[tuple[str, str | None]]) -> None:
        """Seat these (name, claimed name) in a new room, in this order, before
        anyone joins it; each seat waits for its player (no token, not connected;
        past the lobby's grace period an absent player's seat goes to whoever joins)."""
        now = self.clock()
        fc0 = _int(await self._guard(self.redis.hget(keys.meta(code), "fc0")))
        args: list[str | int] = [self.lobby_ttl_ms]
        for name, ident in seats:
            fields: dict[str, str | int] = {"name": name, "tok": "", "v": 0, "seq": -1, "fc": fc0,
                                            "status": "in_progress", "ready": 0, "conn": 0,
                                            "gone": now, "joined": now, "left": 0}
            if ident:
                fields.update(ident=ident, who=ident.casefold())
            args.append(len(fields))
            args.extend(x for pair in fields.items() for x in pair)
        seat_keys = keys.all_player_keys(code, len(seats))
        await self._guard(self._reserve_seats([keys.meta(code), *seat_keys], args))

    async def start_reserved(self, code: str, count: int, starts_at: int, ends_at: int) -> None:
        """Start a room whose ``count`` seats were reserved (an arena's pairing):
        everyone is ready, the clock is set; the players take their seats while
        it counts down, and one who never comes simply times out."""
        ks = [keys.meta(code)] + keys.all_player_keys(code, count)
        ttl = ends_at - self.clock() + HOUR_MS
        await self._guard(self._start_reserved(ks, [starts_at, ends_at, ttl]))

    # -- moves -----------------------------------------------------------------
    @property
    def replicated(self) -> bool:
        """Moves are acknowledged only once a replica has them (``replica`` durability)."""
        return self._moves.replicas > 0

    async def move(self, code: str, n: int, expected_v: int, seq: int, at_ms: int, move: str,
                   status: str, fc: int, progress: bytes) -> tuple[str, int]:
        """Store one accepted move; ``progress`` (empty: none) is published with it."""
        try:
            res = await self._moves.call_packed(
                self.move_command(code, n, expected_v, seq, at_ms, move, status, fc, progress),
                self.slot(code))
        except STORE_AWAY as exc:
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from None
        return _s(res[0]), int(res[1])

    async def verdict(self, code: str, n: int, expected_v: int, status: str, since_v: int,
                      progress: bytes) -> str:
        """End player ``n``'s game with ``status`` at version ``expected_v`` (a
        verdict that came after the move was answered; ``since_v``: the version
        the search judged). 'ok', or why not: 'stale' (the player moved on),
        'game_over', 'race_over'."""
        envelope = keys.progress_envelope(n, progress) if progress else b""
        res = await self._guard(self._verdict(
            [keys.meta(code), keys.player(code, n), keys.log(code, n)],
            [expected_v, status, since_v, envelope, keys.channel(code)]))
        return _s(res)

    def move_command(self, code: str, n: int, expected_v: int, seq: int, at_ms: int, move: str,
                     status: str, fc: int, progress: bytes) -> bytes:
        """The move script's call, packed: a player's keys and the room's channel
        are packed once, only the move's own arguments each time."""
        fixed = self._move_fixed.get((code, n))
        if fixed is None:
            if len(self._move_fixed) >= MOVE_FIXED_MAX:
                # full (races ended elsewhere, never forgotten here): the oldest goes
                del self._move_fixed[next(iter(self._move_fixed))]
            ks = [keys.meta(code), keys.player(code, n), keys.log(code, n)]
            fixed = self._move_fixed[(code, n)] = (
                self._moves.script_head(ks, MOVE_ARGC),
                pack_args((keys.channel(code), self.max_moves, self.race_ttl_ms)))
        envelope = keys.progress_envelope(n, progress) if progress else b""
        head, tail = fixed
        return head + pack_args((expected_v, seq, at_ms, move, status, fc, envelope)) + tail

    def slot(self, code: str) -> int:
        """The room's cluster slot (every key and the channel of a room share it)."""
        slot = self._slots.get(code)
        if slot is None:
            if len(self._slots) >= MOVE_FIXED_MAX:
                del self._slots[next(iter(self._slots))]
            slot = self._slots[code] = slot_of(keys.meta(code))
        return slot

    def forget(self, code: str) -> None:
        """The race of room ``code`` is over: its packed parts of the move script go."""
        self._slots.pop(code, None)
        for n in range(1, MAX_PLAYERS + 1):
            self._move_fixed.pop((code, n), None)

    async def moves(self, code: str, n: int) -> list[tuple[int, str]]:
        """Player ``n``'s log: from its list while the race runs, from the packed
        record once the race is finished and compacted (:meth:`compact`)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.lrange(keys.log(code, n), 0, -1)
        pipe.get(keys.done(code))
        rows, packed = await self._guard(pipe.execute())
        if not rows and packed:
            logs = unpack_record(packed)[1]
            return logs[n - 1] if 0 < n <= len(logs) else []
        return _log_rows(rows)

    async def compact(self, code: str) -> bool:
        """Shrink a finished race's room to what is read after it: its results
        and logs packed in one key (server/store/compact.py). False when the room
        is not finished with its results, or was compacted already."""
        meta = await self._guard(self.redis.hmget(keys.meta(code), "players", "results"))
        if not meta[1]:
            return False
        logs = [keys.log(code, n) for n in range(1, _int(meta[0]) + 1)]
        pipe = self.redis.pipeline(transaction=False)
        for key in logs:
            pipe.lrange(key, 0, -1)
        rows = await self._guard(pipe.execute())
        packed = pack_record(meta[1], [_log_rows(r) for r in rows])
        return bool(await self._guard(self._compact(
            [keys.meta(code), keys.done(code), *logs], [packed, *(len(r) for r in rows)])))

    async def finish(self, code: str, count: int, now: int | None = None) -> bool:
        """Finish the race if it is over at ``now`` (the caller's clock; else this
        store's), atomically: False when it is not, or was finished already."""
        at = self.clock() if now is None else now
        for _ in range(MAX_PLAYERS + 1):
            ks = ([keys.meta(code)] + keys.all_player_keys(code, count)
                  + [keys.log(code, n) for n in range(1, count + 1)])
            res = int(await self._guard(self._finish(ks, [at, self.finished_ttl_ms])))
            if res != -1:
                return res == 1
            count = _int(await self._guard(self.redis.hget(keys.meta(code), "players")))
        return False

    def publish_progress(self, code: str, n: int, progress: bytes) -> asyncio.Future[Any]:
        """A player's progress on its own, queued at once in order with the move
        scripts; its future says whether it reached Redis (a Redis error when not)."""
        return self._moves.command("SPUBLISH", keys.channel(code),
                                   keys.progress_envelope(n, progress), slot=self.slot(code))

    async def publish(self, code: str, payload: bytes) -> None:
        await self._guard(self.redis.spublish(keys.channel(code), keys.event_envelope(payload)))

    # -- quick race ------------------------------------------------------------
    async def quick_candidates(self, variant: str) -> list[str]:
        """The oldest open codes of a variant still young enough to be in their lobby."""
        rows = await self._guard(self.redis.zrangebyscore(
            keys.quick(variant), self.clock() - self.lobby_ttl_ms, "+inf", start=0, num=10))
        return [_s(r) for r in rows]

    async def add_quick(self, variant: str, code: str) -> None:
        """Index an open room for quick races. The index is pruned as it is
        written: codes older than a lobby's lifetime go, at most QUICK_MAX stay,
        and the key lapses with its newest lobby."""
        key, now = keys.quick(variant), self.clock()
        await self._guard(self._index_add(
            [key], [code, now, now - self.lobby_ttl_ms, QUICK_MAX, self.lobby_ttl_ms]))

    async def remove_quick(self, variant: str, code: str) -> None:
        await self._guard(self.redis.zrem(keys.quick(variant), code))
