"""What several handlers share."""

from __future__ import annotations

import math
import re
from typing import Any

from ..game.variants import UnknownVariant, get_rules
from ..race.rows import RoomRow
from ..rooms.player import Player
from ..rooms.replays import public_room
from ..wire.protocol import ProtocolError

ROOM_CODE = re.compile(r"[A-Za-z0-9]{1,16}", re.ASCII)


def room_code(text: str) -> str:
    """A room code as typed (any case, spaces around); else ``no_room``."""
    code = text.strip().upper()
    if ROOM_CODE.fullmatch(code) is None:
        raise ProtocolError("no_room", f"no room has the code {code[:16]!r}")
    return code


def variant_id(name: object) -> str:
    """The registry id of a variant named by id, name or alias; else ``unknown_variant``."""
    try:
        return get_rules(name).spec.id
    except UnknownVariant as exc:
        raise ProtocolError("unknown_variant", str(exc)) from None


def _over_limit(what: str, wait: float) -> ProtocolError:
    return ProtocolError("over_limit", f"{what} from this connection or address for now: "
                         f"try again in {wait:.1f} s", retry_ms=math.ceil(wait * 1000))


def check_room_budget(player: Player) -> None:
    """Refuse, spending nothing, when the player may not open a room now."""
    wait = player.limits.room_wait()
    if wait > 0:
        raise _over_limit("as many rooms opened as allowed", wait)


def spend_room(player: Player) -> None:
    """Spend one room opening, or refuse when none is left (server/ops/limits.py)."""
    wait = player.limits.take_room()
    if wait > 0:
        raise _over_limit("as many rooms opened as allowed", wait)


def spend_claim(player: Player) -> None:
    wait = player.limits.take_claim()
    if wait > 0:
        raise _over_limit("as many names claimed as allowed", wait)


def check_join(player: Player) -> None:
    """Refuse a join while the address waits out its unknown codes. The code is
    not even looked at, so a join refused here tells nothing about it."""
    wait = player.limits.join_wait()
    if wait > 0:
        raise ProtocolError("join_wait", f"codes that name no room were tried from this address: "
                            f"join again in {wait:.1f} s", retry_ms=math.ceil(wait * 1000))


def join_failed(player: Player, code: str) -> ProtocolError:
    """The ``no_room`` refusal of a code asked for (join, watch); the address's
    next such request waits."""
    player.limits.join_failed()
    return ProtocolError("no_room", f"no room has the code {code[:16]!r}")


def asked_code(player: Player, text: str) -> str:
    """A room code a client asks for by itself (join, watch): refused while its
    address waits out earlier unknown codes; a malformed one counts as unknown."""
    check_join(player)
    try:
        return room_code(text)
    except ProtocolError:
        raise join_failed(player, text.strip()) from None


def ban_refusal(name: str, ban: dict[str, object], now_ms: int) -> ProtocolError:
    """The refusal a banned name hears: why, and until when (docs/operations/moderation.md)."""
    until = ban.get("until")
    if until is None:
        return ProtocolError("banned", f"{name!r} is banned from ranked play for good: "
                             f"{ban.get('reason', '')}")
    left = max(0, int(str(until)) - now_ms)
    return ProtocolError("banned", f"{name!r} is banned from ranked play for {math.ceil(left / 60_000)} "
                         f"more minutes: {ban.get('reason', '')}", retry_ms=left)


async def check_not_banned(player: Player) -> None:
    """Refuse ranked play (a quick race, the daily, an arena) to a banned name,
    before anything is written."""
    if player.identified is None:
        return
    ban = await player.service.moderation.name_ban(player.identified)
    if ban is not None:
        raise ban_refusal(player.identified, ban, player.service.clock())


async def check_not_reserved(player: Player, name: str) -> None:
    """Refuse a name a moderator renamed (hello, claim): it is reserved, and its
    holder is told the new one."""
    ban = await player.service.moderation.name_ban(name)
    if ban is not None and ban.get("kind") == "renamed":
        raise ProtocolError("renamed", f"a moderator renamed {name!r} to {ban.get('to')!r}: "
                            f"sign in as {ban.get('to')!r} with the same key ({ban.get('reason', '')})")


async def finished_room(player: Player, msg: dict[str, Any], what: str) -> RoomRow:
    """The room a replay or an analysis asks of: the code typed (with the same wait
    after unknown codes as join and watch), else the room the player sits or watches
    in; refused unless its game may be shown (``what`` names it in the refusal)."""
    service = player.service
    if msg.get("code") is not None:
        code = asked_code(player, msg["code"])
        room = await service.room(code)
        if room is None:
            raise join_failed(player, code)
    else:
        current = player.code or (player.spectating.code if player.spectating is not None else None)
        if current is None:
            player.need_room()  # refuses: neither seated nor watching, and no code given
        room = await service.room(current or "")
    return await public_room(service, room, what)
