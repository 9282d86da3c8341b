"""The results log as the server writes and serves it: a ranked result, a void
or a rename becomes the log's next line (docs/reference/results-log.md).

A rated race takes the log's turn before its ratings are written and gives it
back once its line is appended, so the log's order is the order in which
ratings changed, on any number of processes: that is what lets anyone replay
the log and get the server's numbers. Moderation appends voids and renames
through :meth:`ResultLog.void` and :meth:`ResultLog.rename`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

from ..race.daily import board_score, utc_day
from ..race.ratings import Skill
from ..race.resultlog import Line, chained, race_record, rename_fields, result_fields, seat, void_fields
from ..race.rows import RoomRow
from ..store.ratings import RaceRatings
from ..store.resultlog import TURN_MS, Day, LogStore
from ..store.rooms import RoomStore
from ..wire.errors import StoreUnavailable

log = logging.getLogger("patience.resultlog")

Clock = Callable[[], int]

TURN_WAIT_S: Final = TURN_MS / 1000 + 1.0  # a turn never given back has lapsed by then
TURN_POLL_S: Final = 0.02
CHAIN_TRIES: Final = 5
REASON_MAX: Final = 500  # characters of a void's reason kept in the log


class ResultLog:
    def __init__(self, store: LogStore, rooms: RoomStore, clock: Clock) -> None:
        self.store = store
        self.rooms = rooms
        self.clock = clock

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[str | None]:
        """Hold the log's turn (None if it could not be had in time: the work goes
        on unlogged rather than holding back a race's results for longer)."""
        token = None
        deadline = asyncio.get_running_loop().time() + TURN_WAIT_S
        while token is None and asyncio.get_running_loop().time() < deadline:
            token = await self.store.take_turn()
            if token is None:
                await asyncio.sleep(TURN_POLL_S * (1 + random.random()))
        if token is None:
            log.error("the results log's turn could not be had: a result goes unlogged")
        try:
            yield token
        finally:
            if token is not None:
                await self.store.give_back(token)

    async def _append(self, token: str | None, kind: str, fields: dict[str, Any],
                      record: dict[str, Any] | None) -> Line | None:
        if token is None:
            return None
        for _ in range(CHAIN_TRIES):
            head = await self.store.head()
            now = self.clock()
            date = max(utc_day(now), head.date)  # days never go back, whatever this clock says
            line = chained(head.link, kind, now, fields, record)
            done = await self.store.append(token, head.link, line, date)
            if done == 1:
                return line
            if done == -1:
                break
        log.error("a line could not be appended to the results log", extra={"kind": kind})
        return None

    async def _seats(self, room: RoomRow) -> list[dict[str, Any]]:
        out = []
        for p in room.players:
            if p.left:
                continue
            moves = await self.rooms.moves(room.code, p.n)
            out.append(seat(p.n, None if p.bot else p.ident, bool(p.bot), moves))
        return out

    async def result(self, token: str | None, room: RoomRow, done: RaceRatings | None,
                     seasons: tuple[str, ...], daily: tuple[str, dict[str, Any]] | None = None,
                     bots: frozenset[str] = frozenset()) -> Line | None:
        """Log a ranked result: a rated race's ratings as written (``done``; the
        bot accounts among its names: ``bots``), or a daily's board entry
        (``daily``: the name and its ranking row)."""
        try:
            race_ms = max(room.ends_at - room.starts_at, 0)
            record = race_record(room.variant, room.deal, race_ms, await self._seats(room))
            ratings = {} if done is None else {
                n: (done.before[n].to_store(), s.to_store()) for n, s in done.after.items()
                if done.before[n] != s}  # a race applied before (a retried update) changed nothing now
            board = None
            if daily is not None:
                name, row = daily
                board = {"name": name, "score": board_score(row["won"], row["time_ms"] or race_ms,
                                                           row["moves"], row["foundation_cards"])}
            fields = result_fields(room.code, room.variant, room.daily, ratings, seasons, board, bots)
            return await self._append(token, "result", fields, record)
        except StoreUnavailable:
            raise
        except Exception:  # the log must never hold back a race's results
            log.exception("a result could not be logged", extra={"room": room.code})
            return None

    async def void(self, race: str, names: list[str], reason: str,
                   ratings: dict[str, tuple[Skill, Skill]] | None = None,
                   seasons: tuple[str, ...] = ()) -> Line | None:
        """Log a void of ``names``' results in ``race``, why, and the ratings
        moderation wrote for them (name -> before, after) on these boards."""
        async with self.turn() as token:
            return await self.void_within(token, race, names, reason, ratings, seasons)

    async def void_within(self, token: str | None, race: str, names: list[str], reason: str,
                          ratings: dict[str, tuple[Skill, Skill]] | None = None,
                          seasons: tuple[str, ...] = (), variant: str | None = None) -> Line | None:
        """:meth:`void` in a turn the caller holds: moderation writes the ratings and
        logs them in one turn, so no rated race comes between the two."""
        written = {n: (a.to_store(), b.to_store()) for n, (a, b) in (ratings or {}).items()}
        return await self._append(token, "void", void_fields(race, names, reason[:REASON_MAX],
                                                             written, seasons, variant), None)

    async def rename(self, old: str, new: str) -> Line | None:
        """Log that the name ``old`` is ``new`` from now on."""
        async with self.turn() as token:
            return await self.rename_within(token, old, new)

    async def rename_within(self, token: str | None, old: str, new: str) -> Line | None:
        """:meth:`rename` in a turn the caller holds (moderation moves the ratings in it)."""
        return await self._append(token, "rename", rename_fields(old, new), None)

    # -- reads, for the read API ---------------------------------------------------------------
    async def index(self) -> dict[str, Any]:
        head = await self.store.head()
        days = await self.store.days()
        return {"head": {"seq": head.link.seq, "hash": head.link.hash, "date": head.date}
                if head.link.seq else None, "days": [d.public() for d in days]}

    async def page(self, date: str, offset: int, limit: int) -> tuple[list[str], int, bool]:
        """A page of a day's lines, how many that day has, and whether the day
        is closed: a later day has lines, so no line will join this one."""
        lines, total = await self.store.lines(date, offset, limit)
        head = await self.store.head()
        return lines, total, head.date > date

    async def head_at(self, date: str) -> dict[str, Any] | None:
        """The log's head at the end of ``date``: its last entry of that day or
        before (None while the log had no entry by then)."""
        last: Day | None = None
        for day in await self.store.days():
            if day.date > date:
                break
            last = day
        return None if last is None else {"seq": last.last, "hash": last.hash}
