"""``analyse``: where a finished game was lost, and how it could have been won.

The answer names the cards of winning lines (the stock's order included), so
it is given only when the game's every card may be shown: the same rule as a
replay (server/rooms/replays.py ``public_room``): a solo game once it is over,
a race once it has results, a daily's game once its day is over, an arena's
race once the arena is over. Asked too early it is refused (``no_results``)
before anything is read but the room.

The work runs in the analysis worker (server/rooms/analysisworker.py), and
the answer is shared with the other server processes through Redis
(server/rooms/analyses.py); it comes when it is done, other messages
meanwhile. One analysis in the works per connection.
"""

from __future__ import annotations

import logging
from typing import Any

from ..rooms.analyses import shared_analysis
from ..rooms.player import Player
from ..wire.protocol import ProtocolError, error
from .common import finished_room

log = logging.getLogger("patience.analysis")

_asking: set[str] = set()  # connections with an analysis in the works (bounded by connections)


async def on_analyse(player: Player, msg: dict[str, Any]) -> None:
    service = player.service
    room = await finished_room(player, msg, "an analysis is available")
    if player.id in _asking:
        raise ProtocolError("analysis_busy", "an analysis is already being worked out for you")
    games = []
    for p in room.players:
        moves = await service.moves(room.code, p.n)
        games.append((p.n, [t for _, t in moves], p.status))
    _asking.add(player.id)
    player.spawn(_answer(player, room.code, room.variant, room.deal, games))


async def _answer(player: Player, code: str, variant: str, deal: str,
                  games: list[tuple[int, list[str], str]]) -> None:
    try:
        found = await shared_analysis(player.service, code, variant, deal, games)
        player.send({"t": "analysis", "code": code, **found})
    except ProtocolError as exc:
        player.send(error(exc.code, exc.message, retry_ms=exc.retry_ms))
    except Exception:  # an analysis is a courtesy: its failure must not touch the game
        log.exception("analysis failed", extra=player.log_extra())
        player.send(error("internal", "no analysis this time: the solver failed"))
    finally:
        _asking.discard(player.id)


HANDLERS = {"analyse": on_analyse}
