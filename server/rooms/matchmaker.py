"""Quick races paired by skill (docs/design/ladder.md, "Pairing by skill").

A quick race with no open public room to join queues the player in Redis
(server/store/matching.py) with the ordinal of his rating of that variant. Each
tick, every process renews its own waiting players, takes the pairings made for
them (and moves each into its room), and, if it holds the variant's lease,
runs a pairing round for everyone waiting in that variant, on any process: the
groups of server/race/matching.py, each given a new private room of its size;
a player alone after the bot wait gets a room of two and a bot of his level.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from ..ops.aio import stop_task
from ..race.matching import Ticket, bot_level, pair, window
from ..race.ratings import NEW
from ..store.matching import MatchStore
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError
from .botaccounts import ACCEPT, BOT, ticket_flags
from .friends import friends_for

if TYPE_CHECKING:
    from .player import Player
    from .service import RoomService

log = logging.getLogger("patience.matchmaker")

NAMED: Final = ".n"  # then the casefolded claimed name, in hex: a ticket's last part


def named(name: str) -> str:
    return NAMED + name.casefold().encode().hex()


def name_in(ticket: str) -> str | None:
    """The casefolded claimed name a ticket carries, or None (a guest's)."""
    _, sep, tail = ticket.rpartition(NAMED)
    if not sep or not tail:
        return None
    try:
        return bytes.fromhex(tail).decode()
    except ValueError:
        return None

LEASE_TICKS: Final = 3  # the pairer's lease lapses after this many ticks without renewal


def bot_pairing(tickets: list[Ticket], now: int, size: int,
                apart: Callable[[Ticket, Ticket], bool] | None = None) -> list[list[Ticket]]:
    """The groups of a pairing round: persons among persons first; then the bot
    accounts with the persons left who accept bots (a group of bots alone too),
    never a bot with a person who did not ask for bots."""
    persons = [t for t in tickets if BOT not in ticket_flags(t.id)]
    groups = pair(persons, now, size, apart)
    taken = {t.id for g in groups for t in g}
    open_to_bots = [t for t in tickets if t.id not in taken and ticket_flags(t.id) & {ACCEPT, BOT}]
    groups += [g for g in pair(open_to_bots, now, size, apart) if any(BOT in ticket_flags(t.id) for t in g)]
    return groups


class Matchmaker:
    def __init__(self, service: RoomService) -> None:
        self.service = service
        self.store = MatchStore(service.redis, service.store._guard)
        self.token = secrets.token_hex(8)
        # variant -> ticket -> the waiting player: this process's connections only
        self.local: dict[str, dict[str, Player]] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def tick_ms(self) -> int:
        return self.service.settings.arena_tick_ms

    # -- a player's side -------------------------------------------------------------------
    async def rating_of(self, player: Player, variant: str) -> tuple[float, bool]:
        """The ordinal a player is paired by, and whether it is a rated name's."""
        if player.identified is None:
            return NEW.ordinal, False
        skill = (await self.service.boards.ratings.skills(player.identified)).get(variant)
        return (skill or NEW).ordinal, True

    async def enqueue(self, player: Player, variant: str, accept_bots: bool = False,
                      bot: bool = False) -> dict[str, object]:
        """Queue the player for a quick race of ``variant``; the ``queued`` message.
        ``accept_bots``: a person who may be paired with bot accounts; ``bot``:
        the player is a bot account (docs/design/bot-accounts.md)."""
        await self.cancel(player)
        rating, rated = await self.rating_of(player, variant)
        ticket = f"{self.token}.{secrets.token_hex(6)}"
        ticket += f".{BOT}" if bot else (f".{ACCEPT}" if accept_bots else "")
        # a guest's ticket says so: his bot is of the configured level, not of a rating;
        # a claimed name's carries the name (its last part), so that blocked names are kept apart
        ticket += named(player.identified) if rated and player.identified else ".g"
        now = self.service.clock()
        if not await self.store.enqueue(variant, ticket, rating, now):
            raise ProtocolError("over_limit", "the quick-race queue of this variant is full: try again "
                                "after retry_ms", retry_ms=5000)
        self.local.setdefault(variant, {})[ticket] = player
        player.queued = (variant, ticket)
        bot_s = 0 if bot else self.service.settings.quick_bot_s  # a bot account is given no server bot
        return {"t": "queued", "variant": variant, "rating": round(rating, 3),
                "window": round(window(0), 3), "bot_after_ms": bot_s * 1000 if bot_s > 0 else None}

    async def cancel(self, player: Player) -> None:
        """The player stops waiting (a leave, another room, the connection closed)."""
        if player.queued is None:
            return
        variant, ticket = player.queued
        player.queued = None
        mine = self.local.get(variant, {})
        mine.pop(ticket, None)
        if not mine:
            self.local.pop(variant, None)
        await self.store.cancel(variant, ticket)

    # -- the tick --------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="matchmaker")

    async def close(self) -> None:
        if self._task is not None:
            await stop_task(self._task, 2.0)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.tick_ms / 1000)
            try:
                await self.tick()
            except StoreUnavailable:
                log.warning("quick-race pairing: the store is unreachable; the next tick tries again")
            except Exception:  # a bug must not stop every later pairing
                log.exception("quick-race pairing failed")

    async def tick(self) -> None:
        now = self.service.clock()
        for variant in list(self.local):
            mine = self.local.get(variant, {})
            for player in list(mine.values()):
                if player.closed:
                    await self.cancel(player)
            if not mine:
                continue
            await self.store.renew(variant, list(mine), now)
            for ticket, value in (await self.store.take(variant, list(mine))).items():
                player = mine.pop(ticket)
                player.queued = None
                player.spawn(self._deliver(player, value))
            if mine and await self.store.hold_lease(variant, self.token, self.tick_ms * LEASE_TICKS):
                await self.pair_round(variant, now)
            if not mine:
                self.local.pop(variant, None)

    async def pair_round(self, variant: str, now: int) -> int:
        """Pair everyone waiting in ``variant`` that can be; returns the rooms made."""
        settings = self.service.settings
        tickets = await self.store.waiting(variant, self.token, now)
        made = 0
        paired: set[str] = set()
        apart = await self._apart(tickets) if len(tickets) > 1 else None
        for group in bot_pairing(tickets, now, settings.quick_size, apart):
            made += await self._room_for(variant, group, 0, now)
            paired.update(t.id for t in group)
        bot_ms = settings.quick_bot_s * 1000
        if bot_ms > 0:
            for t in tickets:
                if t.id not in paired and now - t.since_ms >= bot_ms and BOT not in ticket_flags(t.id):
                    level = settings.quick_bot_level if "g" in ticket_flags(t.id) else bot_level(t.rating)
                    made += await self._room_for(variant, [t], level, now)
        return made

    async def _apart(self, tickets: list[Ticket]) -> Callable[[Ticket, Ticket], bool] | None:
        """Whether two tickets' names are kept apart by a block (read once per round,
        only for the named tickets waiting)."""
        friends = friends_for(self.service)
        names = {t.id: name_in(t.id) for t in tickets}
        wanted = sorted({n for n in names.values() if n})
        if friends is None or len(wanted) < 2:
            return None
        blocks = await friends.presence.friends.blocks_of(wanted)

        def apart(a: Ticket, b: Ticket) -> bool:
            na, nb = names.get(a.id), names.get(b.id)
            return bool(na and nb and (nb in blocks.get(na, ()) or na in blocks.get(nb, ())))
        return apart

    async def _room_for(self, variant: str, group: list[Ticket], bot: int, now: int) -> int:
        service = self.service
        code = await service.open_room(variant, service.new_deal(), max(len(group), 2) if not bot else 2,
                                       private=True)
        done = await self.store.assign(variant, self.token, [t.id for t in group], f"{code}|{bot}", now)
        if done != 1:  # a player left meanwhile, or the lease was lost: the empty lobby lapses
            return 0
        return 1

    async def _deliver(self, player: Player, value: str) -> None:
        code, _, level = value.partition("|")
        if player.closed:
            return
        try:
            await player.leave_current()
            await player.join(code)
            if int(level or 0):
                await self.service.need_bots().add(code, int(level))
        except ProtocolError as exc:
            from ..wire.protocol import error

            player.send(error(exc.code, exc.message))
        except StoreUnavailable:
            player.send({"t": "error", "code": "store_unavailable",
                         "message": "the game store is unreachable: ask for a quick race again"})
