"""Who of the claimed names is online, and their notices, across processes
(docs/design/friends.md).

A connection that proves a claimed name *arrives*: its presence goes to Redis
(server/store/presence.py) with the room it is in, and it joins its name's
notice channel through the hub. A timer rewrites every local connection's
presence each REFRESH_S, so the move path never pays for it, and a process
that dies leaves presences that lapse by themselves within TTL_MS. A name
that comes online (no other live connection) tells its online followers, at
most once per TOLD_MS.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final

from ..store.friends import FriendStore
from ..store.presence import PresenceStore, notify_channel
from ..wire.errors import StoreUnavailable
from ..wire.protocol import ProtocolError, encode, error
from .ports import Outbox

if TYPE_CHECKING:
    from .player import Player
    from .service import RoomService

log = logging.getLogger("patience.presence")

REFRESH_S: Final = 20.0  # every local presence is rewritten this often
TTL_MS: Final = 60_000  # a presence not rewritten this long is gone (its process died)
TOLD_MS: Final = 10 * 60_000  # a name's followers are told of its arrival at most this often


def notice(kind: str, **fields: Any) -> dict[str, Any]:
    return {"t": "notice", "kind": kind, **fields}


class Listener:
    """A connection's membership of its name's notice channel, as the hub sees it."""

    def __init__(self, player: Player, on_accepted: Callable[[Player, str], Coroutine[Any, Any, None]]
                 ) -> None:
        self.player = player
        self._on_accepted = on_accepted

    @property
    def outbox(self) -> Outbox:
        return self.player.outbox

    @property
    def n(self) -> int:
        return 0  # no progress comes on a notice channel

    def on_room_event(self, message: dict[str, Any]) -> None:
        if message.get("t") != "notice":
            return
        self.player.send(message)
        if message.get("kind") == "challenge_accepted" and isinstance(message.get("code"), str):
            self.player.spawn(self._on_accepted(self.player, message["code"]))

    async def resync(self) -> None:
        """Notices are not kept: nothing missed while pub/sub was away comes back
        (a challenge does: the friends list shows it)."""


async def move_into(player: Player, code: str) -> None:
    """Take the seat kept for this player in a challenge's room, unless its own
    race holds it (then the notice has the code: join it after)."""
    if player.closed or player.code == code:
        return
    try:
        await player.leave_current()
        await player.join(code)
    except ProtocolError as exc:
        player.send(error(exc.code, exc.message))
    except StoreUnavailable:
        player.send(error("store_unavailable", "the game store is unreachable: join the room by its code"))


class Presence:
    def __init__(self, service: RoomService) -> None:
        self.service = service
        guard = service.store._guard
        self.store = PresenceStore(service.redis, guard)
        self.friends = FriendStore(service.redis, guard, service.settings.name_ttl_days * 86_400)
        # connection id -> its player and its channel membership: this process's
        # signed-in connections only, each gone with its connection
        self.local: dict[str, tuple[Player, Listener]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="presence")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def online_here(self) -> list[Player]:
        return [p for p, _ in self.local.values()]

    async def arrive(self, player: Player) -> None:
        """A connection has proved its claimed name (hello, claim, link, recovery)."""
        name = player.identified
        if name is None or player.id in self.local:
            return
        listener = Listener(player, move_into)
        self.local[player.id] = (player, listener)
        await self.service.hub.add(notify_channel(name), listener)
        now = self.service.clock()
        others = await self.store.arrive(name, player.id, player.code or "", now, TTL_MS)
        await self.friends.renew(name)
        for c in await self.store.challenges(name, now):  # waiting since before this connection
            player.send(notice("challenge", **c.message()))
        if others == 0 and await self.store.first_telling(name, TOLD_MS):
            followers = await self.friends.followers(name)
            online = list(await self.store.where(followers, now))
            await self.store.notify(online, encode(notice("friend_online", name=name)))

    async def depart(self, player: Player) -> None:
        entry = self.local.pop(player.id, None)
        if entry is None or player.identified is None:
            return
        await self.service.hub.remove(notify_channel(player.identified), entry[1])
        await self.store.depart(player.identified, player.id)

    async def refresh(self) -> None:
        """Rewrite every local presence (with the room each is in now)."""
        now = self.service.clock()
        for player, _ in list(self.local.values()):
            if player.identified is not None and not player.closed:
                await self.store.arrive(player.identified, player.id, player.code or "", now, TTL_MS)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            try:
                await self.refresh()
            except StoreUnavailable:
                log.warning("presence refresh: the store is unreachable; the next one tries again")
            except Exception:  # a bug here must not end every later refresh
                log.exception("presence refresh failed")


class Departures:
    """What a connection's end tells, beside the arenas: its presence goes too
    (the endpoint calls :meth:`forget` once, when the connection is over)."""

    def __init__(self, arenas: Any, presence: Presence, friends: Any) -> None:
        self.arenas = arenas
        self.presence = presence
        self.friends = friends

    async def forget(self, player: Player) -> None:
        self.friends.forget(player)
        with contextlib.suppress(StoreUnavailable):
            await self.presence.depart(player)
        await self.arenas.forget(player)
