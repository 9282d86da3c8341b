"""Arenas on a server process: pairing under a lease, scoring, standings pushed.

Every process runs one :class:`ArenaRunner`. Each tick (``arena_tick_ms``) it

* creates the scheduled arenas that are due (each process may: the ids are
  the same everywhere, and only the first creation counts);
* for every arena that has started, takes or renews the arena's lease in
  Redis; the holder (one process per arena) scores the arena's finished
  races, pairs whoever waits into new races (one fresh deal per round), and
  closes the arena once it is over and its last races are scored;
* for the arena members connected here: marks them seen (only players seen
  lately are paired), moves each into the race it was paired into, and
  pushes the standing when it changed.

The rules (points, groups, phases) are in server/race/arena.py; the keys and
the fenced scripts in server/store/arenas.py. Bots are never paired: only a
connection that sends ``arena_join`` is a member, and bots never do.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import weakref
from dataclasses import dataclass
from typing import Any

import msgpack

from ..game.variants import get_rules, variant_ids
from ..ops.aio import stop_task
from ..ops.config import ConfigError, Settings
from ..race import arena as arena_rules
from ..race.arena import Line, ScheduleError, parse_schedule
from ..store.arenas import ArenaStore
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError, error
from .friends import friends_for
from .player import Player
from .service import RoomService

log = logging.getLogger("patience.arenas")

TOP_LINES = 10  # standing lines pushed to every member (plus its own)
LIST_LIMIT = 20  # arenas in one ``arenas`` answer
PRESENCE_TICKS = 5  # a member not seen for this many ticks is not paired
LEASE_TICKS = 5  # the lease outlives this many ticks without renewal
SCHEDULE_AHEAD_MS = 3_600_000  # scheduled arenas are listed an hour before they start
CLOSE_WAIT_S = 5.0  # how long close() waits for the loop to end after cancelling it

_RUNNERS: weakref.WeakKeyDictionary[RoomService, ArenaRunner] = weakref.WeakKeyDictionary()


def runner_for(service: RoomService) -> ArenaRunner:
    runner = _RUNNERS.get(service)
    if runner is None:
        raise ProtocolError("internal", "this server runs no arenas")
    return runner


def identity(player: Player) -> str:
    """Whose line a member plays: a claimed name's, else a guest's install
    (or, without one, this connection)."""
    if player.identified is not None:
        return "n:" + player.identified.casefold()
    return "g:" + (player.device[:32] if player.device else player.id)


async def create_arena(store: ArenaStore, settings: Settings, arena: str, *, variant: str,
                       starts_at: int, minutes: int, group: int, race_seconds: int, name: str,
                       now: int) -> bool:
    """Create an arena (False: that id exists already). ``variant`` is any of its
    names (UnknownVariant if none); the limits come from the settings."""
    rules = get_rules(variant)
    if not 2 <= group <= arena_rules.MAX_GROUP:
        raise ValueError(f"a group is 2..{arena_rules.MAX_GROUP} players")
    return await store.create(
        arena, name=name or f"{rules.spec.name} arena", variant=rules.spec.id,
        starts_at=starts_at, minutes=minutes, group=group, race_ms=race_seconds * 1000,
        max_players=settings.arena_max_players,
        max_rounds=arena_rules.max_rounds(minutes, settings.arena_tick_ms), now=now)


def new_id() -> str:
    return "".join(secrets.choice(arena_rules.ID_ALPHABET) for _ in range(arena_rules.ID_LENGTH))


@dataclass
class Member:
    player: Player
    who: str
    room: str | None = None  # the arena race it was last moved into
    followed: str | None = None  # the last pairing followed ("CODE.N")
    pushed: int = -1  # the standing version last pushed


class ArenaRunner:
    def __init__(self, service: RoomService) -> None:
        self.service = service
        settings = service.settings
        self.store = ArenaStore(service.redis, service.store)
        self.tick_s = settings.arena_tick_ms / 1000
        self.token = secrets.token_hex(16)  # this process, as a lease holder
        try:
            self.slots = parse_schedule(settings.arena_schedule, variant_ids())
        except ScheduleError as exc:
            raise ConfigError(f"PATIENCE_ARENAS: {exc}") from None
        # arena -> its members connected here (bounded by this process's connections)
        self.members: dict[str, dict[Player, Member]] = {}
        self.arena_of: dict[Player, str] = {}
        self.leases_held = 0  # pairing ticks this process ran as a holder (tests, metrics)
        self._task: asyncio.Task[None] | None = None
        self._closing = False  # close() was called: the loop ends after the tick in hand
        _RUNNERS[service] = self

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="arenas")

    async def close(self) -> None:
        """End the loop: cancelled, and cancelled again while it runs (a tick's
        redis-py call can lose a cancel on Python 3.11: server/ops/aio.py), and told
        by a flag to stop after the tick in hand. Waits at most CLOSE_WAIT_S,
        and stays cancellable (a close under a timeout must give way to it)."""
        self._closing = True
        if self._task is not None and not await stop_task(self._task, CLOSE_WAIT_S):
            log.warning("the arena loop did not end within %g s of its close", CLOSE_WAIT_S)

    async def _loop(self) -> None:
        while not self._closing:
            try:
                await self.tick()
            except StoreUnavailable:
                pass  # the next tick tries again
            except Exception:
                log.exception("arena tick failed")
            if self._closing:
                return  # a cancel lost in the tick (server/ops/aio.py): the flag ends it
            await asyncio.sleep(self.tick_s)

    # -- creating -----------------------------------------------------------------------
    async def create(self, arena: str, *, variant: str, starts_at: int, minutes: int, group: int,
                     race_seconds: int, name: str = "") -> bool:
        return await create_arena(self.store, self.service.settings, arena, variant=variant,
                                  starts_at=starts_at, minutes=minutes, group=group,
                                  race_seconds=race_seconds, name=name, now=self.service.clock())

    async def ensure_scheduled(self, now: int) -> None:
        settings = self.service.settings
        for arena, slot, start in arena_rules.due(self.slots, now, SCHEDULE_AHEAD_MS):
            await self.create(arena, variant=slot.variant, starts_at=start, minutes=slot.minutes,
                              group=settings.arena_group, race_seconds=settings.arena_race_seconds)

    # -- one tick -----------------------------------------------------------------------
    async def tick(self) -> None:
        now = self.service.clock()
        if self.slots:
            await self.ensure_scheduled(now)
        lease_ms = LEASE_TICKS * self.service.settings.arena_tick_ms
        for d in await self.store.live(now):
            if now < int(d["starts_at"]):
                continue
            if await self.store.hold_lease(d["id"], self.token, lease_ms):
                self.leases_held += 1
                await self.lead(d, now)
        for arena in list(self.members):
            await self.serve_members(arena, self.service.clock())

    async def lead(self, d: dict[str, str], now: int) -> None:
        """The lease holder's work for one arena."""
        arena = d["id"]
        waiting, seen, points, rooms = await self.store.pairing_state(arena)
        left = await self.score_finished(arena, rooms, now)
        phase = arena_rules.phase(now, int(d["starts_at"]), int(d["ends_at"]), False)
        if phase == "running":
            presence = PRESENCE_TICKS * self.service.settings.arena_tick_ms
            # ``since`` of a player back from a race is its rest's end (score_finished)
            fresh = [(w, since) for w, since in waiting if seen.get(w, 0) >= now - presence and since <= now]
            groups = arena_rules.pair(fresh, points, int(d["group"]))
            friends = friends_for(self.service)
            if groups and friends is not None:  # blocked names never race each other
                groups = await friends.arena_groups(groups, int(d["group"]))
            if groups:
                await self.pair_round(d, groups, now)
        elif phase == "closing" and (not left or now > int(d["ends_at"]) + int(d["race_ms"]) + 60_000):
            final = [Line.load(t).public(i) for i, t in enumerate(await self.store.all_lines(arena), 1)]
            if await self.store.close(arena, self.token, json.dumps(final)) == 1:
                log.info("arena finished", extra={"arena": arena, "players": len(final)})

    async def score_finished(self, arena: str, rooms: dict[str, str], now: int) -> int:
        """Score every race of the arena that has results; the number still going."""
        going = 0
        clocks = await self.store.room_clocks(list(rooms))
        for code, seats_json in rooms.items():
            phase, ends_at = clocks[code]
            if phase is not None and phase != "finished":
                going += 1
                if phase == "racing" and now > ends_at + 1000:
                    await self.service.finish_if_done(code)  # its players' process may be gone
                continue
            room = await self.service.store.room(code)
            ranking: list[dict[str, Any]] = []
            if room is not None and room.results:
                ranking = msgpack.unpackb(room.results, raw=False)["ranking"]
            seats = {int(n): str(w) for n, w in json.loads(seats_json).items()}
            stored = await self.store.lines(arena, list(seats.values()))
            lines = arena_rules.score_race(ranking, seats, {w: Line.load(t) for w, t in stored.items()})
            # back to waiting, from the end of a rest: the results stay on screen that long
            rest_ends = now + self.service.settings.arena_rest_ms
            await self.store.score(arena, self.token, code, rest_ends,
                                   [(w, line.dump(), line.points) for w, line in lines.items()])
        return going

    async def pair_round(self, d: dict[str, str], groups: list[list[str]], now: int) -> None:
        arena, service = d["id"], self.service
        for _ in range(5):
            deal = service.new_deal()
            result = await self.store.new_round(arena, self.token, deal, int(d["max_rounds"]))
            if result == 1:
                break
            if result < 0:
                return  # the lease was lost, or the arena has used all its rounds
        else:
            return
        stored = await self.store.lines(arena, [w for g in groups for w in g])
        starts_at = now + service.settings.countdown_ms + 2 * service.settings.arena_tick_ms
        for group in groups:
            lines = [Line.load(stored[w]) for w in group if w in stored]
            if len(lines) != len(group):
                continue
            code = await service.open_room(d["variant"], deal, len(group), private=True,
                                           min_players=2, arena=arena)
            await service.store.reserve_seats(
                code, [(line.name, line.name if line.claimed else None) for line in lines])
            seats = {n: who for n, who in enumerate(group, start=1)}
            if await self.store.assign(arena, self.token, code, seats) != 1:
                continue  # someone left meanwhile: the room never starts and expires
            await service.store.start_reserved(code, len(group), starts_at,
                                               starts_at + int(d["race_ms"]))
            log.info("arena race paired", extra={"arena": arena, "room": code})

    # -- what the handlers ask of the stored arenas (they never reach the store) --------
    async def definition(self, arena: str) -> dict[str, str] | None:
        return await self.store.definition(arena)

    async def join(self, arena: str, who: str, line: str, now: int, max_players: int) -> str:
        """``who`` joins with its line (kept if it had one): "ok", else the refusal's code."""
        return await self.store.join(arena, who, line, now, max_players)

    async def leave(self, arena: str, who: str) -> bool:
        return await self.store.leave(arena, who)

    # -- members connected here -----------------------------------------------------------
    def add(self, player: Player, arena: str, who: str) -> Member:
        self.remove(player)
        member = Member(player, who)
        self.members.setdefault(arena, {})[player] = member
        self.arena_of[player] = arena
        return member

    def remove(self, player: Player) -> str | None:
        arena = self.arena_of.pop(player, None)
        if arena is not None:
            members = self.members.get(arena, {})
            members.pop(player, None)
            if not members:
                self.members.pop(arena, None)
        return arena

    async def forget(self, player: Player) -> None:
        """The player's connection ended: it leaves its arena (its line stays)."""
        member = self.member(player)
        arena = self.remove(player)
        if member is not None and arena is not None:
            await self.store.leave(arena, member.who)

    def member(self, player: Player) -> Member | None:
        arena = self.arena_of.get(player)
        return self.members[arena][player] if arena is not None else None

    async def serve_members(self, arena: str, now: int) -> None:
        members = self.members.get(arena, {})
        for player in [p for p in members if p.closed]:
            await self.forget(player)  # missed by its connection's end (the store was away)
        if not members:
            return
        ms = list(members.values())
        available = [m for m in ms if m.player.code is None or m.player.code == m.room]
        away = [m.who for m in ms if m not in available]
        await self.store.mark_seen(arena, [m.who for m in available], away, now,
                                   PRESENCE_TICKS * self.service.settings.arena_tick_ms * 4)
        for m, got in zip(ms, await self.store.assignments(arena, [m.who for m in ms]), strict=True):
            if got and got != m.followed and m in available:
                m.followed = got
                code, _, n = got.partition(".")
                m.player.spawn(self._follow(m, code, int(n)))
        await self.push(arena, ms)

    async def _follow(self, m: Member, code: str, n: int) -> None:
        try:
            await m.player.leave_current()
            m.room = code
            await m.player.take_reserved(code, n)
        except ProtocolError as exc:
            m.player.send(error(exc.code, exc.message))
        except StoreUnavailable:
            m.followed = None  # try again next tick

    async def push(self, arena: str, ms: list[Member], force: bool = False) -> None:
        d = await self.store.definition(arena)
        if d is None:
            return
        ver = int(d.get("ver", 0))
        # a member that left meanwhile is not told it is in (its leave answered already)
        todo = [m for m in ms if (force or m.pushed != ver) and self.arena_of.get(m.player) == arena]
        if not todo:
            return
        message = await self.standing(d, [m.who for m in todo])
        for m in todo:
            if self.arena_of.get(m.player) != arena:
                continue  # it left while the standing was read
            m.pushed = ver
            m.player.send(self.for_member(message, m.who, True))
        if d.get("status") == "finished":
            for m in ms:
                self.remove(m.player)

    @staticmethod
    def for_member(message: dict[str, Any], who: str, member: bool) -> dict[str, Any]:
        out = {k: v for k, v in message.items() if k != "mine"}
        out["me"] = message["mine"].get(who)
        out["member"] = member
        return out

    async def standing(self, d: dict[str, str], whos: list[str]) -> dict[str, Any]:
        """The ``arena`` message (before ``me`` and ``member``): the top lines, and
        each of ``whos``' own line under ``mine``."""
        arena = d["id"]
        now = self.service.clock()
        finished = d.get("status") == "finished"
        if finished:
            final = await self.store.final(arena) or []
            top, count, mine = final[:TOP_LINES], len(final), {}
        else:
            tops, own, count = await self.store.standing(arena, TOP_LINES, whos)
            top = [Line.load(t).public(i) for i, (_, t) in enumerate(tops, 1)]
            mine = {w: Line.load(t).public(r) for w, (r, t) in own.items() if r and t}
        return {"t": "arena", "id": arena, "name": d.get("name", ""), "variant": d["variant"],
                "phase": arena_rules.phase(now, int(d["starts_at"]), int(d["ends_at"]), finished),
                "starts_at": int(d["starts_at"]), "ends_at": int(d["ends_at"]),
                "group": int(d["group"]), "race_ms": int(d["race_ms"]), "server_time": now,
                "players": count, "top": top, "mine": mine}

    async def listing(self) -> list[dict[str, Any]]:
        now = self.service.clock()
        out = []
        for d in await self.store.listed(now, LIST_LIMIT):
            out.append({"id": d["id"], "name": d.get("name", ""), "variant": d["variant"],
                        "phase": arena_rules.phase(now, int(d["starts_at"]), int(d["ends_at"]),
                                                  d.get("status") == "finished"),
                        "starts_at": int(d["starts_at"]), "ends_at": int(d["ends_at"]),
                        "players": int(d.get("players", 0)), "group": int(d["group"])})
        return out


__all__ = ["ArenaRunner", "create_arena", "identity", "new_id", "runner_for"]
