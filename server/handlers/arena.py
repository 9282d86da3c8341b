"""Handlers for arenas: the list, joining, leaving, a standing (docs/design/arenas.md).

A refused message changes nothing: every check runs before the first write.
"""

from __future__ import annotations

import re
from typing import Any

from ..race.arena import Line
from ..rooms.arenas import ArenaRunner, identity, runner_for
from ..rooms.player import Player
from ..wire.protocol import ProtocolError
from .common import check_not_banned

ARENA_ID = re.compile(r"[A-Za-z0-9]{1,16}", re.ASCII)


def arena_id(text: str) -> str:
    arena = text.strip().upper()
    if ARENA_ID.fullmatch(arena) is None:
        raise ProtocolError("no_arena", f"no arena has the id {arena[:16]!r}")
    return arena


async def _definition(runner: ArenaRunner, arena: str) -> dict[str, str]:
    d = await runner.definition(arena)
    if d is None:
        raise ProtocolError("no_arena", f"no arena has the id {arena!r}")
    return d


async def on_arenas(player: Player, msg: dict[str, Any]) -> None:
    player.send({"t": "arenas", "arenas": await runner_for(player.service).listing()})


async def on_arena_info(player: Player, msg: dict[str, Any]) -> None:
    runner = runner_for(player.service)
    d = await _definition(runner, arena_id(msg["id"]))
    who = identity(player)
    member = runner.member(player)
    inside = member is not None and runner.arena_of.get(player) == d["id"]
    player.send(runner.for_member(await runner.standing(d, [who]), who, inside))


async def on_arena_join(player: Player, msg: dict[str, Any]) -> None:
    runner = runner_for(player.service)
    arena = arena_id(msg["id"])
    await player.service.competition.bot_accounts.forbid(player.identified, "join an arena")
    await player.can_leave()  # a race in progress first: it is not left for an arena
    await check_not_banned(player)
    d = await _definition(runner, arena)
    now = runner.service.clock()
    if d.get("status") == "finished" or now >= int(d["ends_at"]):
        raise ProtocolError("arena_over", f"arena {arena} has ended")
    current = runner.member(player)
    if current is not None and runner.arena_of.get(player) == arena:
        # in it already (maybe in one of its races): nothing to write, the standing again
        await runner.push(arena, [current], force=True)
        return
    who = identity(player)
    line = Line(who, player.name, claimed=player.identified is not None).dump()
    answer = await runner.join(arena, who, line, now, int(d["max_players"]))
    if answer != "ok":
        raise ProtocolError(answer, f"cannot join arena {arena}: {answer.replace('_', ' ')}")
    old = runner.arena_of.get(player)
    if old is not None and old != arena:
        await runner.leave(old, who)
    member = runner.add(player, arena, who)
    if player.code is not None:
        # back while still sitting in one of this arena's races (its results on
        # screen): that room is the arena's, not one it went to by itself, so it
        # is available for the next pairing like a member who never left
        room = await runner.service.room(player.code)
        if room is not None and room.arena == arena:
            member.room = player.code
    await runner.push(arena, [member], force=True)


async def on_arena_leave(player: Player, msg: dict[str, Any]) -> None:
    runner = runner_for(player.service)
    member = runner.member(player)
    arena = runner.arena_of.get(player)
    if member is None or arena is None:
        raise ProtocolError("not_in_arena", "this connection is in no arena")
    await runner.leave(arena, member.who)
    runner.remove(player)
    d = await runner.definition(arena)
    if d is not None:
        player.send(runner.for_member(await runner.standing(d, [member.who]), member.who, False))


HANDLERS = {"arenas": on_arenas, "arena_info": on_arena_info, "arena_join": on_arena_join,
            "arena_leave": on_arena_leave}
