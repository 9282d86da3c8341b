"""Handlers before and around a race: hello (and resume), rooms, ready, leave.

A refused message changes nothing: every check that can refuse runs before
the first write (leaving the current room included).
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import re
from typing import Any

from ..game import engine
from ..game.variants import specs
from ..race.rows import PlayerRow
from ..rooms.awaited import await_results
from ..rooms.friends import friends_for
from ..rooms.play import play
from ..rooms.player import Player, clean_name, token_hash
from ..wire.protocol import PROTOCOL_VERSION, ProtocolError
from .common import (
    asked_code,
    check_not_banned,
    check_not_reserved,
    check_room_budget,
    join_failed,
    spend_room,
    variant_id,
)
from .competition import check_name

log = logging.getLogger("patience.lobby")

# CODE.N.SECRET in ASCII only: str.isdigit() also takes "²" and "①"
TOKEN = re.compile(r"([A-Za-z0-9]{1,16})\.([0-9]{1,2})\.([A-Za-z0-9_-]{1,64})", re.ASCII)


def free_seat(p: PlayerRow, grace_ms: int, now: int) -> bool:
    """A seat a newcomer may take (as the join script decides): left in the lobby,
    or its connection gone for longer than the grace period."""
    return p.left or (not p.conn and p.gone is not None and now - p.gone >= grace_ms)


def parse_token(token: str) -> tuple[str, int, str]:
    match = TOKEN.fullmatch(token)
    if match is None:
        raise ProtocolError("bad_token", "the resume token is malformed")
    return match[1].upper(), int(match[2]), match[3]


async def on_ping(player: Player, msg: dict[str, Any]) -> None:
    player.send({"t": "pong", "server_time": player.service.clock()})


async def on_hello(player: Player, msg: dict[str, Any]) -> None:
    if msg["proto"] != PROTOCOL_VERSION:
        raise ProtocolError("old_protocol", f"this server speaks protocol {PROTOCOL_VERSION}, "
                            f"the client {msg['proto']}: please upgrade the client")
    name = clean_name(msg.get("name"))
    if msg.get("name"):
        await check_not_reserved(player, name)
    proved = await check_name(player.service, name, msg.get("key")) if msg.get("name") else None
    token = msg.get("token")
    if token:
        code, n, secret = parse_token(token)
        stored = await player.service.seat_token_hash(code, n)
        if stored is None or not hmac.compare_digest(stored, token_hash(secret)):
            raise ProtocolError("bad_token", "the resume token is unknown or expired")
    identified, key_id = proved if proved is not None else (None, None)
    if identified is not None:  # accepted: a name in use stays claimed (docs/reference/storage.md)
        await player.service.competition.identity.touch(identified, msg["key"],
                                                        player.service.settings.name_ttl_days)
    player.name, player.identified, player.key_id = name, identified, key_id
    # the install id is kept hashed: it is the client's secret, only counted here
    player.device = token_hash(msg["device"]) if msg.get("device") else None
    player.hello = True
    player.send({"t": "welcome", "proto": PROTOCOL_VERSION, "server_time": player.service.clock(),
                 "resumed": bool(token), "identified": player.identified,
                 "server_id": player.service.competition.server_id,
                 "variants": [spec.listing() for spec in specs()]})
    if token:
        await player.attach(code, n, token)


async def on_create(player: Player, msg: dict[str, Any]) -> None:
    variant = variant_id(msg["variant"])
    await player.can_leave()
    service = player.service
    private = msg.get("private", True)
    if not private:  # a quick race may join a public room: a bot's would meet persons unasked
        await service.competition.bot_accounts.forbid(player.identified, "open a public room")
    spend_room(player)  # after every refusal: a refused create spends nothing
    await player.leave_current()
    code = await service.open_room(variant, service.new_deal(), msg.get("players", 2), private)
    if not private:
        # an open room is one a quick race may join: listed before its host hears
        # "joined", so a quick race asked for after that finds it
        await service.list_quick(variant, code)
    try:
        await player.join(code)
    except Exception:
        if not private:  # nobody took it: off the list (best effort; a lobby's TTL ends it anyway)
            with contextlib.suppress(Exception):
                await service.unlist_quick(variant, code)
        raise


async def on_join(player: Player, msg: dict[str, Any]) -> None:
    code = asked_code(player, msg["code"])
    await player.can_leave()
    # the target first: a refused join leaves the player where it was
    room = await player.service.room(code)
    if room is None:
        raise join_failed(player, code)
    if not player.holds_seat_in(room):  # else this join takes its own seat over
        if room.phase != "lobby":
            raise ProtocolError("room_started", f"cannot join room {code}: room started")
        grace, now = player.service.lobby_grace_ms, player.service.clock()
        taken = [p for p in room.players if not free_seat(p, grace, now)]
        if code != player.code and len(taken) >= room.max:
            raise ProtocolError("room_full", f"cannot join room {code}: room full")
    await player.leave_current()
    await player.join(code)


async def on_quick(player: Player, msg: dict[str, Any]) -> None:
    """Join a public room a host opened for anyone, else wait in the variant's
    queue to be paired by skill (server/rooms/matchmaker.py)."""
    variant = variant_id(msg["variant"])
    check_room_budget(player)  # the pairing opens a room for it: refuse before leaving anything
    await check_not_banned(player)
    service = player.service
    bot = await service.competition.bot_accounts.is_bot(player.identified)
    await player.leave_current()
    # a bot account goes straight to the queue: an open room's host did not ask for bots
    for code in [] if bot else await service.quick_candidates(variant):
        friends = friends_for(service)
        if friends is not None and await friends.kept_from(player, code):
            continue  # a block between this player and one seated there (docs/design/friends.md)
        try:
            await player.join(code)
            return
        except ProtocolError:
            await service.unlist_quick(variant, code)
    if service.queue is None:
        raise RuntimeError("this service was built without a quick-race queue")
    # a full queue refuses, spending nothing
    queued = await service.queue.enqueue(player, variant, bool(msg.get("accept_bots")), bot)
    player.limits.take_room()
    player.send(queued)


async def on_ready(player: Player, msg: dict[str, Any]) -> None:
    code = player.need_room()
    started, _, _ = await player.service.ready(code, player.n)
    await player.publish_room(code)
    if started:
        log.info("race scheduled", extra=player.log_extra())


async def on_leave(player: Player, msg: dict[str, Any]) -> None:
    if player.queued is not None and player.code is None:
        await player.stop_waiting()
        player.send({"t": "unqueued"})
        return
    if player.spectating is not None and player.code is None:
        await player.stop_watching()
        return
    code = player.need_room()
    if player.game.state is not None and player.game.status == engine.IN_PROGRESS:
        await play(player, player.game.last_seq + 1, "resign", player.game.v)
    room = await player.service.room(code)
    if room is not None and room.phase == "finished" and not room.daily and not room.arena \
            and not room.rematch:
        await player.service.rematch_vote(room, player.n, False)  # leaving the results declines
    await player.leave_current()
    if room is not None and room.phase == "racing":
        # the race goes on without this player, whose result stands: its
        # results still come to this connection when the race ends
        await_results(player.service, player.id, code, player.send_bytes, player.spawn)


HANDLERS = {"hello": on_hello, "create": on_create, "join": on_join, "quick": on_quick,
            "ready": on_ready, "leave": on_leave}
