"""Bots that outlive their process: a bot's seat is taken up again by a process
that has players in its room, so a race never waits on a bot nobody drives.

Each bot holds its seat's lease (server/store/botleases.py) while it plays. A
process looks at the rooms it has seats in (from the moment one is attached
here: a join, a resume after a restart), and every ``SWEEP_S`` while it still
has: a bot seat still in its game whose lease has lapsed is resumed here, as a
person's seat is resumed by a new connection (its moves so far stand, its
sequence numbers go on), after taking the lease so that only one process does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Final

from ...game import engine
from ...store.botleases import LEASE_MS, BotLeases
from ...wire.errors import StoreUnavailable
from ..service import RoomService

log = logging.getLogger("patience.bots")

SWEEP_S: Final = LEASE_MS / 1000 / 2  # how often the rooms with seats here are looked at

# (room, seat, level, the seat's last sequence number, the lease's token) -> resumed
Resume = Callable[[str, int, int, int, str], Awaitable[bool]]


class BotKeeper:
    def __init__(self, service: RoomService, leases: BotLeases, resume: Resume) -> None:
        self.service = service
        self.leases = leases
        self.resume = resume
        # rooms with a seat on this process: each goes at the first sweep that
        # finds none here, or the room finished (so bounded by the rooms here)
        self.watched: set[str] = set()
        self.resumed = 0  # bots taken up here (tests, logs)
        self._task: asyncio.Task[None] | None = None
        self._checks: set[asyncio.Task[None]] = set()

    def noticed(self, code: str) -> None:
        if code in self.watched:
            return
        self.watched.add(code)
        check = asyncio.get_running_loop().create_task(self._quietly(code))
        self._checks.add(check)
        check.add_done_callback(self._checks.discard)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._sweep(), name="bot-keeper")

    async def stop(self) -> None:
        for task in [*self._checks, *([self._task] if self._task is not None else [])]:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._task = None

    async def _sweep(self) -> None:
        while self.watched:
            await asyncio.sleep(SWEEP_S)
            for code in list(self.watched):
                await self._quietly(code)

    async def _quietly(self, code: str) -> None:
        try:
            await self.check(code)
        except StoreUnavailable:
            pass  # the next sweep looks again
        except Exception:
            log.exception("looking after a room's bots failed", extra={"room": code})

    async def check(self, code: str) -> None:
        """Resume here every bot of room ``code`` that no process drives."""
        if not self.service.hub.members(code):
            self.watched.discard(code)
            return
        room = await self.service.store.room(code)
        if room is None or room.phase == "finished":
            self.watched.discard(code)
            return
        bots = [p for p in room.players if p.bot and not p.left and p.status == engine.IN_PROGRESS]
        if not bots:
            self.watched.discard(code)
            return
        for p, held in zip(bots, await self.leases.held(code, [p.n for p in bots]), strict=True):
            if held:
                continue
            token = secrets.token_hex(12)
            if not await self.leases.take(code, p.n, token):
                continue  # another process took it up first
            if await self.resume(code, p.n, p.bot, p.seq, token):
                self.resumed += 1
                log.info("bot taken up again: its process had gone", extra={"room": code, "player": p.n})
            else:
                await self.leases.release(code, p.n, token)
