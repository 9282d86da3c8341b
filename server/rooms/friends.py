"""Following, blocking and challenging claimed names (docs/design/friends.md).

Only a connection that proved a claimed name may follow, block or challenge,
and only claimed names can be followed, blocked or challenged: a guest has no
lasting name to be found by. A block keeps the two names apart both ways: the
blocked name cannot follow or challenge the blocker, neither follows the other
any more, and neither the quick-race pairing nor an arena's puts them in one race.

Every refusal is decided before the first write (the budget, the names, the
blocks and the lists' bounds), so a refused message leaves the store as it was.
"""

from __future__ import annotations

import math
import time
import weakref
from typing import TYPE_CHECKING, Any, Final

from ..race.apart import keep_apart
from ..store.friends import MAX_BLOCKS, MAX_FOLLOWERS, MAX_FOLLOWING
from ..store.presence import MAX_CHALLENGES, Challenge
from ..wire.protocol import ProtocolError, encode
from .presence import Presence, notice

if TYPE_CHECKING:
    from .player import Player
    from .service import RoomService

CHALLENGE_TTL_MS: Final = 120_000  # an unanswered challenge lapses after two minutes
BUDGET: Final = 20  # follows, blocks and challenges per connection ...
BUDGET_S: Final = 60.0  # ... in this many seconds


# each service's friends, found by the layers that have the service (the
# handlers, the pairings) without the service knowing of them
_FRIENDS: weakref.WeakKeyDictionary[RoomService, Friends] = weakref.WeakKeyDictionary()


def friends_for(service: RoomService) -> Friends | None:
    return _FRIENDS.get(service)


class Friends:
    def __init__(self, presence: Presence) -> None:
        self.presence = presence
        self.service = presence.service
        _FRIENDS[self.service] = self
        # connection id -> (window start, writes in it): signed-in connections of this
        # process only, gone with the connection (server/rooms/presence.py's Departures
        # calls forget)
        self._spent: dict[str, tuple[float, int]] = {}

    def forget(self, player: Player) -> None:
        self._spent.pop(player.id, None)

    # -- checks (no writes) -------------------------------------------------------------
    @staticmethod
    def signed_in(player: Player) -> str:
        if player.identified is None:
            raise ProtocolError("not_identified", "friends and challenges are for claimed names: "
                                "claim yours (7 in the lobby) or sign in with its key")
        return player.identified

    def spend(self, player: Player) -> None:
        now = time.monotonic()
        start, used = self._spent.get(player.id, (now, 0))
        if now - start >= BUDGET_S:
            start, used = now, 0
        if used >= BUDGET:
            wait = BUDGET_S - (now - start)
            raise ProtocolError("over_limit", f"as many follows, blocks and challenges as allowed for "
                                f"now: try again in {wait:.1f} s", retry_ms=math.ceil(wait * 1000))
        self._spent[player.id] = (start, used + 1)

    async def other(self, me: str, asked: str) -> tuple[str, str]:
        """(casefolded, display) of a claimed name that is not ``me``."""
        name = asked.strip()
        if name.casefold() == me.casefold():
            raise ProtocolError("no_name", "that is your own name")
        shown = await self.presence.friends.display(name) if name else None
        if shown is None:
            raise ProtocolError("no_name", f"no one has claimed the name {name[:24]!r}")
        return name.casefold(), shown

    async def not_apart(self, me: str, whom: str) -> None:
        if await self.presence.friends.apart(me, whom):
            raise ProtocolError("blocked", "that name takes no follows or challenges from you")

    async def kept_from(self, player: Player, code: str) -> bool:
        """A quick race must not seat this player in room ``code``: one of its
        claimed names and the player's block the other."""
        me = player.identified
        if me is None:
            return False
        room = await self.service.store.room(code)
        names = sorted({p.ident.casefold() for p in room.players if p.ident and not p.left}) \
            if room is not None else []
        if not names:
            return False
        blocks = await self.presence.friends.blocks_of([me.casefold(), *names])
        mine = blocks.get(me.casefold(), set())
        return any(n in mine or me.casefold() in blocks.get(n, set()) for n in names)

    async def arena_groups(self, groups: list[list[str]], group_max: int) -> list[list[str]]:
        """An arena round's groups (members ``n:NAME`` or a guest's ``g:...``) with
        no two names that block each other in one group (server/race/apart.py)."""
        names = sorted({w[2:] for g in groups for w in g if w.startswith("n:")})
        if len(names) < 2:
            return groups
        blocks = await self.presence.friends.blocks_of(names)

        def apart(a: str, b: str) -> bool:
            if not (a.startswith("n:") and b.startswith("n:")):
                return False
            return b[2:] in blocks.get(a[2:], set()) or a[2:] in blocks.get(b[2:], set())
        return keep_apart(groups, apart, group_max)

    # -- the list ------------------------------------------------------------------------
    async def listing(self, player: Player) -> dict[str, Any]:
        me = self.signed_in(player)
        store, now = self.presence.friends, self.service.clock()
        following = await store.following(me)
        where = await self.presence.store.where(list(following), now)
        # a room's code lets one join it: shown only to a name that name follows back
        mutual = set(await store.followers(me))
        rows = [{"name": shown, "online": key in where, "in_room": bool(where.get(key)),
                 "room": (where.get(key) or None) if key in mutual else None}
                for key, shown in sorted(following.items(), key=lambda kv: kv[1].casefold())]
        blocked = sorted((await store.blocked(me)).values(), key=str.casefold)
        challenges = [c.message() for c in await self.presence.store.challenges(me, now)]
        return {"t": "friends", "following": rows, "blocked": blocked, "challenges": challenges,
                "max_following": MAX_FOLLOWING}

    # -- follows and blocks --------------------------------------------------------------
    async def follow(self, player: Player, asked: str) -> None:
        me = self.signed_in(player)
        whom, shown = await self.other(me, asked)
        await self.not_apart(me, whom)
        store = self.presence.friends
        if not await store.follows(me, whom):
            following, _, _ = await store.room_left(me)
            _, followers, _ = await store.room_left(whom)
            if following >= MAX_FOLLOWING or followers >= MAX_FOLLOWERS:
                raise ProtocolError("list_full", f"you follow {MAX_FOLLOWING} names, or {shown} has "
                                    f"{MAX_FOLLOWERS} followers: unfollow one first")
            self.spend(player)
            if not await store.follow(me, whom, shown):
                raise ProtocolError("list_full", "that list filled up meanwhile: nothing was changed")

    async def unfollow(self, player: Player, asked: str) -> None:
        me = self.signed_in(player)
        await self.presence.friends.unfollow(me, asked.strip())

    async def block(self, player: Player, asked: str) -> None:
        me = self.signed_in(player)
        whom, shown = await self.other(me, asked)
        store = self.presence.friends
        if whom not in await store.blocked(me):
            _, _, blocks = await store.room_left(me)
            if blocks >= MAX_BLOCKS:
                raise ProtocolError("list_full", f"you block {MAX_BLOCKS} names: unblock one first")
            self.spend(player)
            await store.block(me, whom, shown)
        await self.presence.store.drop(me, whom)  # a challenge of the blocked name goes

    async def unblock(self, player: Player, asked: str) -> None:
        me = self.signed_in(player)
        await self.presence.friends.unblock(me, asked.strip())

    # -- challenges ------------------------------------------------------------------------
    async def challenge(self, player: Player, asked: str, variant: str) -> dict[str, Any]:
        """Leave a challenge for a claimed name; its connections are told at once."""
        me = self.signed_in(player)
        whom, shown = await self.other(me, asked)
        await self.not_apart(me, whom)
        now = self.service.clock()
        waiting = await self.presence.store.challenges(whom, now)
        if len(waiting) >= MAX_CHALLENGES and all(c.challenger != me.casefold() for c in waiting):
            raise ProtocolError("list_full", f"{shown} has {MAX_CHALLENGES} challenges waiting: "
                                "try again later")
        self.spend(player)
        c = Challenge(me.casefold(), me, variant, now + CHALLENGE_TTL_MS)
        if not await self.presence.store.challenge(whom, c, now, CHALLENGE_TTL_MS):
            raise ProtocolError("list_full", f"{shown} has {MAX_CHALLENGES} challenges waiting")
        await self.presence.store.notify([whom], encode(notice("challenge", **c.message())))
        return {"t": "challenge_sent", "name": shown, "variant": variant, "expires_at": c.expires_at}

    async def answer(self, player: Player, asked: str, accept: bool) -> None:
        """Accept (a room for the two, both moved into it) or decline a challenge."""
        me = self.signed_in(player)
        name = asked.strip()
        store = self.presence.store
        if accept:
            await player.can_leave()  # a race in progress: refused before the challenge is taken
        taken = await store.take(me, name, self.service.clock())
        if taken is None:
            raise ProtocolError("no_challenge", f"no challenge from {name[:24]!r} is waiting (it may "
                                "have lapsed)")
        if not accept:
            await store.notify([taken.challenger], encode(notice("challenge_declined", name=me)))
            return
        service = self.service
        code = await service.open_room(taken.variant, service.new_deal(), 2, True)
        await service.store.reserve_seats(code, [(taken.shown, taken.shown), (player.name, me)])
        await store.notify([taken.challenger], encode(notice(
            "challenge_accepted", name=me, variant=taken.variant, code=code)))
        await player.leave_current()
        await player.join(code)
