"""Solo play: the deal of a solo game, and hints.

A solo game is a room of one (like the daily) whose deal the player picks,
by PySolFC's number or at random. It is played on the same authoritative
path as a race and is never ranked. Two things are solo-only: undo (an
ordinary recorded entry, see server/game/records.py) and hints (here).

**Never the daily's deal before its reveal.** A deal number equal to any
variant's stored deal for today is refused. The check is cheap: every daily
deal has PySolFC's 20 digits (at least 10**19), so a smaller number (the
numbers people type, PySolFC's 1..32000 among them) needs no look-up at all;
a 20-digit one costs one pipelined round trip reading today's deal of every
variant (nine hash fields).

**Hints run off the event loop.** The solver (``solve_state``, which sees
the whole deal, stock included) runs in a worker process of its own, with a
small node budget (:data:`HINT_BUDGET`, a few seconds at most for Corner
Stones on a slow machine), so a hint never stalls another player and never
waits behind a daily's provisioning. Each player has at most one hint in
the works. A winning line found is remembered under every position along
it, so a player who follows the hints gets the next ones without a search.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from typing import Final

from ..game import engine
from ..game.deals import BadDealNumber, canonical_deal_text, parse_deal_number
from ..game.state import State
from ..game.variants import specs
from ..ops.workers import worker_pool
from ..race.daily import DEAL_LOW
from ..store.boards import daily_key
from ..wire.protocol import ProtocolError
from .service import RoomService

log = logging.getLogger("patience.solo")

HINT_BUDGET: Final = 20_000  # solver nodes per hint
HINT_TIMEOUT_S: Final = 20.0  # a worker this late is stuck behind something: say so
# positions whose winning line is remembered; full, the least recently used go,
# as many as a new line needs, never all at once (a hint asked again stays known)
LINES_MAX: Final = 20_000

_pool: ProcessPoolExecutor | None = None
_lines: OrderedDict[str, tuple[str, ...]] = OrderedDict()  # position digest -> a winning line from it


# -- the deal ---------------------------------------------------------------------------------
async def is_todays_daily(service: RoomService, deal: str) -> bool:
    """Whether ``deal`` (a valid deal number) is any variant's daily deal today."""
    number, ms = parse_deal_number(deal)
    if ms or number < DEAL_LOW:
        return False  # no daily deal is below 10**19: nothing to look up
    date = service.competition.today()
    pipe = service.redis.pipeline(transaction=False)
    for spec in specs():
        pipe.hget(daily_key(date, spec.id, "deal"), "deal")
    stored = await service.store._guard(pipe.execute())
    wanted = str(number)
    return any(value is not None and (value.decode() if isinstance(value, bytes) else str(value)) == wanted
               for value in stored)


async def solo_deal(service: RoomService, asked: str | None) -> str:
    """The deal of a new solo game: ``asked`` in its canonical form (PySolFC's
    parsing, as ``patience-server deal``), or a random one for None or blank."""
    if asked is None or not asked.strip():
        while True:  # a clash is all but impossible; checking costs one round trip
            deal = service.new_deal()
            if not await is_todays_daily(service, deal):
                return deal
    try:
        deal = canonical_deal_text(asked)
    except BadDealNumber as exc:
        raise ProtocolError("bad_field", f"solo: {exc}") from None
    if await is_todays_daily(service, deal):
        raise ProtocolError("daily_deal", "that deal is one of today's daily deals: it is revealed "
                            "when the day ends")
    return deal


# -- hints ------------------------------------------------------------------------------------
def _solve_line(state: State, budget: int) -> tuple[str, list[str]]:
    """In the worker process: the solver's verdict on ``state`` and its winning line."""
    from ..game.solver import solve_state

    result = solve_state(state, budget)
    return result.result, result.moves


def _pool_of() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = worker_pool()
    return _pool


def _remember(state: State, line: tuple[str, ...], limit: int = LINES_MAX) -> None:
    """Keep the line under every position along it (the moves replay: the solver
    checked them), forgetting the least recently used positions past ``limit``."""
    for i, text in enumerate(line):
        digest = state.digest()
        _lines[digest] = line[i:]
        _lines.move_to_end(digest)
        state = engine.play(state, text, engine.IN_PROGRESS)
    while len(_lines) > limit:
        _lines.popitem(last=False)


def _known_line(state: State) -> tuple[str, ...] | None:
    """A remembered winning line from ``state`` (now the most recently used)."""
    digest = state.digest()
    line = _lines.get(digest)
    if line is not None:
        _lines.move_to_end(digest)
    return line


def known_line(state: State) -> tuple[str, ...] | None:
    """The winning line remembered from ``state`` (a hint's, once it is answered)."""
    return _known_line(state)


async def hint(state: State, budget: int = HINT_BUDGET) -> tuple[str, str | None]:
    """``(result, move)``: ``won`` and a legal move after which the game can
    still be won, else ``lost`` (proved: no line wins) or ``unknown`` (the
    budget ran out) and no move."""
    line = _known_line(state)
    if line:
        return "won", line[0]
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_pool_of(), _solve_line, state, budget)
    try:
        result, moves = await asyncio.wait_for(future, HINT_TIMEOUT_S)
    except TimeoutError:
        log.warning("a hint took too long")
        return "unknown", None
    if result != "won" or not moves:
        return result, None
    _remember(state, tuple(moves))
    return "won", moves[0]
