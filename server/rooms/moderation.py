"""Reports and moderation: the one service the report handler, the admin API
and ``patience-server admin`` call (docs/operations/moderation.md).

Every moderator's action checks all it needs before its first write (a refused
action writes nothing), then writes its entry in the append-only audit log
with its reason, then tells its listeners (:attr:`Moderation.listeners`: the
results log hears of each void and rename there). The queue merges the names
the fair-play signals flagged (``fairplay:flagged``, ``fairplay:evidence:{NAME}``)
with the names players reported.
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from redis.asyncio import Redis

from ..game.variants import variant_ids
from ..ops.limits import address_key
from ..race.ratings import Skill
from ..race.rows import RoomRow
from ..store.bans import BanStore
from ..store.fairplay import FLAGGED, evidence_key  # the fair-play signals' keys
from ..store.renames import RenameStore
from ..store.reports import MAX_TEXT, PER_HOUR, REASONS, ReportStore
from ..store.voids import VoidStore
from ..wire.protocol import MAX_NAME_CHARS, ProtocolError
from .competition import Competition
from .voiding import Voider, from_room, kept_days, noted

log = logging.getLogger("patience.moderation")

MAX_REASON: Final = 500  # characters of a moderator's reason
MAX_MINUTES: Final = 10 * 365 * 24 * 60  # the longest timed ban; longer is for good
QUEUE_LIMIT: Final = 200  # entries of the queue one answer holds at most


class ModerationError(ValueError):
    """A refused moderator's action: ``code`` (bad_field, not_found, conflict, full) and why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Event:
    """What a listener hears after an action commits."""

    action: str  # void, rename, cheater
    reason: str
    by: str
    race: str | None = None
    names: tuple[str, ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[Event], Awaitable[None]]
RoomLookup = Callable[[str], Awaitable[RoomRow | None]]


def voided_names(players: dict[str, Any]) -> list[str]:
    """The names a void changed something for (a rating taken out, a daily entry off
    its board): what the results log records as voided."""
    return [n for n, done in players.items() if isinstance(done, dict) or done == "off the daily board"]


def check_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason or len(reason) > MAX_REASON:
        raise ModerationError("bad_field", f"a reason of 1 to {MAX_REASON} characters is required")
    return reason


def tidy(name: str) -> str:
    """A name as the server keeps it (server/rooms/player.py's clean_name, which this
    module may not import: the player imports the service, which builds this one)."""
    text = "".join(ch for ch in name if unicodedata.category(ch)[0] not in ("C", "Z") or ch == " ")
    return " ".join(text.split())[:MAX_NAME_CHARS]


def check_address(text: str) -> str:
    key = address_key(text)
    if key == "unknown":
        raise ModerationError("bad_field", f"{text[:64]!r} is not an IPv4 or IPv6 address")
    return key


class Moderation:
    def __init__(self, redis: Redis, guard: Callable[[Awaitable[Any]], Awaitable[Any]],
                 competition: Competition, room: RoomLookup, clock: Callable[[], int]) -> None:
        self.redis = redis
        self._guard = guard
        self.competition = competition
        self.room = room
        self.clock = clock
        self.reports = ReportStore(redis, guard)
        self.bans = BanStore(redis, guard)
        self.voids = VoidStore(redis, guard)
        self.renames = RenameStore(redis, guard)
        self.voider = Voider(self.voids, self.bans, competition.ladder)
        self.listeners: list[Listener] = []  # called after a void, a rename or a cheater mark commits
        competition.unrated = self.unrated
        competition.on_rated.append(self.note_rated)

    # -- what the rest of the server asks ------------------------------------------
    async def name_ban(self, name: str) -> dict[str, Any] | None:
        return await self.bans.get("name", name.casefold())

    async def address_ban(self, address: str) -> dict[str, Any] | None:
        return await self.bans.get("addr", address)

    async def unrated(self, names: list[str]) -> set[str]:
        """The names a race may not rate: banned (or reserved) ones and cheaters."""
        keys = [n.casefold() for n in names]
        out = set(await self.bans.many("name", keys)) | await self.bans.cheaters(keys)
        return {n for n in names if n.casefold() in out}

    async def note_rated(self, room: RoomRow, names: list[str], won: bool) -> None:
        try:
            await self.bans.note_rated(room.code, noted(room, names, won))
        except Exception:  # the race's results stand; only a later void of it would miss its note
            log.warning("a rated race was not noted for moderation", extra={"room": room.code})

    # -- reports -------------------------------------------------------------------
    async def report(self, reporter: str, name: str, reason: str, text: str, room: str | None) -> None:
        """Store a player's report; every refusal comes before the first write."""
        if reason not in REASONS:
            raise ProtocolError("bad_field", f"report: reason is one of {', '.join(REASONS)}")
        if len(text) > MAX_TEXT:
            raise ProtocolError("bad_field", f"report: the text has at most {MAX_TEXT} characters")
        if name.casefold() == reporter.casefold():
            raise ProtocolError("bad_field", "report: a name cannot report itself")
        if not await self.renames.claimed(name):
            raise ProtocolError("bad_field", f"report: {name!r} is not a claimed name "
                                "(only those are reported)")
        if await self.reports.sent(reporter) >= PER_HOUR:
            raise ProtocolError("over_limit", f"as many reports as a name may send in an hour ({PER_HOUR})",
                                retry_ms=3_600_000)
        if not await self.reports.add(reporter, name, reason, text, room, self.clock()):
            raise ProtocolError("bad_field", f"report: your report of {name!r} is already "
                                "with the moderators")

    # -- the queue -----------------------------------------------------------------
    async def queue(self, limit: int = QUEUE_LIMIT) -> list[dict[str, Any]]:
        """Flagged and reported names with their evidence, the most suspicious
        first (flagged by score, then reported by their newest report)."""
        limit = max(1, min(limit, QUEUE_LIMIT))
        flagged = [(_s(n), float(s)) for n, s in
                   await self._guard(self.redis.zrevrange(FLAGGED, 0, limit - 1, withscores=True))]
        cleared = await self.bans.cleared([n for n, _ in flagged])
        flagged = [(n, s) for n, s in flagged if s > cleared.get(n, float("-inf"))]
        reported = await self.reports.queued(limit)
        names = list(dict.fromkeys([n for n, _ in flagged] + [n for n, _ in reported]))[:limit]
        scores, latest = dict(flagged), dict(reported)
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.get(evidence_key(name))
        evidence = await self._guard(pipe.execute()) if names else []
        counts = await self.reports.counts(names)
        bans = await self.bans.many("name", names)
        cheaters = await self.bans.cheaters(names)
        out = []
        for name, raw, count in zip(names, evidence, counts, strict=True):
            out.append({"name": name, "suspicion": scores.get(name), "evidence": _json(raw),
                        "reports": count, "last_report": latest.get(name),
                        "ban": bans.get(name), "cheater": name in cheaters})
        return out

    async def case(self, name: str) -> dict[str, Any]:
        """One name's whole file: its flag, evidence, reports and ban."""
        key = name.casefold()
        score = await self._guard(self.redis.zscore(FLAGGED, key))
        raw = await self._guard(self.redis.get(evidence_key(key)))
        return {"name": key, "suspicion": None if score is None else float(score), "evidence": _json(raw),
                "reports": await self.reports.reports(key), "ban": await self.name_ban(key),
                "cheater": bool(await self.bans.cheaters([key]))}

    # -- actions -------------------------------------------------------------------
    async def ban(self, kind: str, target: str, reason: str, minutes: int | None, by: str) -> dict[str, Any]:
        reason = check_reason(reason)
        target = self._target(kind, target)
        if kind == "name" and (await self.bans.get(kind, target) or {}).get("kind") == "renamed":
            raise ModerationError("conflict", f"{target!r} was renamed: its name stays reserved")
        if minutes is not None and not 1 <= minutes <= MAX_MINUTES:
            raise ModerationError("bad_field", f"minutes is 1 to {MAX_MINUTES} (none: for good)")
        now = self.clock()
        until = now + minutes * 60_000 if minutes is not None else None
        entry = {"kind": "ban", "reason": reason, "at": now, "until": until}
        if not await self.bans.ban(kind, target, entry, until, now):
            raise ModerationError("full", "as many bans are in force as the server keeps: lift some first")
        await self._audit(f"ban_{kind}", target, reason, by, {"until": until})
        return {**entry, "of": kind, "target": target}

    async def unban(self, kind: str, target: str, reason: str, by: str) -> dict[str, Any]:
        reason = check_reason(reason)
        target = self._target(kind, target)
        current = await self.bans.get(kind, target)
        if current is None:
            raise ModerationError("not_found", f"no ban of {kind} {target!r} is in force")
        if current.get("kind") == "renamed":
            raise ModerationError("conflict", f"{target!r} was renamed: its name stays reserved")
        await self.bans.unban(kind, target)
        await self._audit(f"unban_{kind}", target, reason, by, {})
        return {"of": kind, "target": target, "lifted": True}

    async def dismiss(self, name: str, reason: str, by: str) -> dict[str, Any]:
        """The reports and the flag of a name looked at and found nothing: off the queue."""
        reason = check_reason(reason)
        key = name.casefold()
        score = await self._guard(self.redis.zscore(FLAGGED, key))
        await self.reports.clear(key)
        if score is not None:
            await self.bans.clear_flag(key, float(score))
        await self._audit("dismiss", key, reason, by, {"suspicion": score})
        return {"name": key, "dismissed": True}

    async def rename(self, old: str, new: str, reason: str, by: str) -> dict[str, Any]:
        reason = check_reason(reason)
        if not new or len(new) > MAX_NAME_CHARS or tidy(new) != new:
            raise ModerationError("bad_field", f"a new name has 1 to {MAX_NAME_CHARS} printable characters")
        if not await self.renames.claimed(old):
            raise ModerationError("not_found", f"{old!r} is not a claimed name")
        if await self.renames.exists(new) or await self.name_ban(new) is not None:
            raise ModerationError("conflict", f"{new!r} is taken, banned or reserved: choose another")
        old_key = old.casefold()
        results = self.competition.results_log
        async with results.turn() as token:  # the ratings moved and the log's line in one turn
            variants = await self.renames.move(old_key, new, self.competition.ladder.written(),
                                               kept_days(self.competition.today()), variant_ids())
            await results.rename_within(token, old_key, new)
        now = self.clock()
        # the old name stays reserved: nobody claims it again, its holder is told the new one
        await self.bans.ban("name", old_key, {"kind": "renamed", "reason": reason, "at": now,
                                              "until": None, "to": new}, None, now)
        await self._audit("rename", old_key, reason, by, {"to": new})
        await self._tell(Event("rename", reason, by, names=(old_key, new), detail={"variants": variants}))
        return {"from": old_key, "to": new, "variants": variants}

    async def void(self, code: str, reason: str, by: str) -> dict[str, Any]:
        reason = check_reason(reason)
        code = code.strip().upper()
        race = await self._race(code)
        if race is None:
            raise ModerationError("not_found", f"no rated race {code[:16]!r} is known (kept 90 days)")
        skills: dict[str, tuple[Skill, Skill]] = {}
        results = self.competition.results_log
        # the ratings written and their line in the results log in one turn of the log: no
        # rated race comes between them, so the log replays to the stored numbers
        async with results.turn() as token:
            done = await self.voider.race(code, race, self.clock(), None, skills)
            if voided_names(done):  # a void again changes nothing: no line either
                await results.void_within(token, code, voided_names(done), reason, skills,
                                          self.competition.ladder.written(), race["variant"])
        await self._audit("void", code, reason, by, {"players": done})
        await self._tell(Event("void", reason, by, race=code, names=tuple(race["names"]),
                               detail={"players": done, "variant": race["variant"], "skills": skills}))
        return {"race": code, "variant": race["variant"], "players": done}

    async def cheater(self, name: str, reason: str, by: str) -> dict[str, Any]:
        """Mark a cheater: banned from ranked play for good, every kept rated
        race of it voided (opponents refunded), off every board."""
        reason = check_reason(reason)
        key = name.casefold()
        if not await self.renames.exists(key):
            raise ModerationError("not_found", f"{name!r} has no account on this server")
        now = self.clock()
        row = await self.voids.row(key)
        variants = sorted(k[2:] for k in row if k.startswith("r:"))
        await self.bans.mark_cheater(key, now)
        if (await self.name_ban(key) or {}).get("kind") != "renamed":
            await self.bans.ban("name", key, {"kind": "cheater", "reason": reason, "at": now,
                                              "until": None}, None, now)
        skills: dict[str, dict[str, tuple[Skill, Skill]]] = {}
        results = self.competition.results_log
        async with results.turn() as token:  # as a void: the ratings and their lines in one turn
            done = await self.voider.everything_of(key, variants, variant_ids(), self.competition.today(),
                                                   now, self._race, skills)
            for code, players in done["races"].items():
                if voided_names(players):
                    await results.void_within(token, code, voided_names(players), reason,
                                              skills.get(code, {}), self.competition.ladder.written(),
                                              done["variants"][code])
        await self._audit("cheater", key, reason, by, {"voided": sorted(done["races"])})
        for code, players in done["races"].items():
            await self._tell(Event("void", reason, by, race=code, names=tuple(players),
                                   detail={"players": players, "cheater": key,
                                           "skills": skills.get(code, {})}))
        return {"name": key, **done}

    async def audit_log(self, limit: int, before: str = "+") -> list[dict[str, str]]:
        return await self.bans.audit_tail(max(1, min(limit, QUEUE_LIMIT)), before)

    async def ban_list(self, limit: int) -> list[dict[str, Any]]:
        return await self.bans.listing(self.clock(), max(1, min(limit, QUEUE_LIMIT)))

    # -- helpers -------------------------------------------------------------------
    def _target(self, kind: str, target: str) -> str:
        if kind == "addr":
            return check_address(target)
        if kind != "name":
            raise ModerationError("bad_field", "a ban is of a name or an addr")
        if not target or len(target) > MAX_NAME_CHARS or not tidy(target):
            raise ModerationError("bad_field", f"a name has 1 to {MAX_NAME_CHARS} printable characters")
        return tidy(target).casefold()

    async def _race(self, code: str) -> dict[str, Any] | None:
        race = await self.bans.rated(code)
        if race is None:
            room = await self.room(code)
            if room is not None and room.phase == "finished":
                race = from_room(room)
        return race

    async def _audit(self, action: str, target: str, reason: str, by: str, detail: dict[str, Any]) -> None:
        fields = {"at": str(self.clock()), "action": action, "target": target, "reason": reason,
                  "by": by, "detail": json.dumps(detail, separators=(",", ":"), default=str)}
        fields["id"] = await self.bans.audit(fields)
        log.info(f"moderation: {action} {target}", extra={"audit": fields})

    async def _tell(self, event: Event) -> None:
        for listener in list(self.listeners):
            try:
                await listener(event)
            except Exception:  # a listener's fault never undoes or hides the action
                log.exception("a moderation listener failed", extra={"action": event.action})


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _json(raw: Any) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(_s(raw))
    except ValueError:
        return _s(raw)
