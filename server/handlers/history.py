"""``games``, ``game_replay``, ``game_ghost``: a claimed name's kept games
(server/rooms/history.py), listed, replayed and raced as ghosts long after
their rooms expired. Anyone may list a name's games, as anyone may see its
profile; what a kept game shows follows the live room's rules
(server/rooms/kept.py)."""

from __future__ import annotations

from typing import Any

from ..game.variants import get_rules
from ..rooms import ghost, kept
from ..rooms.player import Player, clean_name
from ..rooms.replays import replay_message
from .common import spend_room


async def on_games(player: Player, msg: dict[str, Any]) -> None:
    history = player.service.competition.history
    player.send(await history.games(clean_name(msg["name"]), msg.get("offset", 0), msg.get("limit", 20)))


async def on_game_replay(player: Player, msg: dict[str, Any]) -> None:
    name = clean_name(msg["name"])
    entry, room = await kept.find(player, name, msg["code"], "a replay is available")
    game = await kept.replayed(name, entry)
    out = replay_message(room, entry.n, game, msg.get("index", 0))
    out["name"] = name
    out["layout"] = get_rules(entry.variant).layout()  # no room message brings it: the room is gone
    player.send(out)


async def on_game_ghost(player: Player, msg: dict[str, Any]) -> None:
    """A room of one on the kept game's deal, that game's player as the ghost
    (as ``ghost`` does for a room still kept: server/handlers/ghost.py)."""
    service = player.service
    name = clean_name(msg["name"])
    entry, _ = await kept.find(player, name, msg["code"], "a ghost can be raced")
    run = await kept.ghost_of(player, name, entry)  # every refusal before the first write
    await player.can_leave()
    spend_room(player)
    await player.leave_current()
    new = await service.open_room(run.variant, run.deal, 1, True, min_players=1,
                                  **{ghost.META_FIELD: f"{run.code}.{run.n}", kept.KEPT_FIELD: name})
    await player.join(new)
    player.send(run.describe(new))
    _, starts_at, ends_at = await service.ready(new, player.n)
    await player.publish_room(new)
    ghost.start(player, new, run, starts_at, ends_at)


HANDLERS = {"games": on_games, "game_replay": on_game_replay, "game_ghost": on_game_ghost}
