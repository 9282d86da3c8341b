"""A finished room's analysis, shared by every server process through Redis.

The players of a race may sit on different server processes, and each would
ask for the same analysis: seconds of a core each time. The first process to
finish one keeps it under ``analysis:{CODE}`` (the room's hash tag: the
room's slot), for as long as the finished room itself lives (24 h from its
end), and every process reads it there before starting a run of its own. An
answer cut short by the worker's time or memory guard is not kept: another
process, less loaded, may do better. Redis away, the analysis is still made
and answered, just not shared (the store's error never reaches the player).
"""

from __future__ import annotations

import contextlib
from typing import Any, Final

import msgpack

from ..wire.errors import StoreUnavailable
from .analysisworker import Games
from .service import RoomService

KEY_TTL_S: Final = 24 * 3600  # as long as a finished room's keys


def analysis_key(code: str) -> str:
    return f"analysis:{{{code}}}"


async def shared_analysis(service: RoomService, code: str, variant: str, deal: str,
                          games: Games) -> dict[str, Any]:
    """The analysis of the finished room ``code``: this process' own, another's
    from Redis, or a new run in this process' worker."""
    worker = service.analysis
    hit = worker.known(code)
    if hit is not None:
        return hit
    raw = None
    with contextlib.suppress(StoreUnavailable):
        raw = await service.store._guard(service.redis.get(analysis_key(code)))
    if raw:
        stored = msgpack.unpackb(raw, raw=False)
        if isinstance(stored, dict):
            worker.remember(code, stored)
            return stored
    answer = await worker.analyse(code, variant, deal, games)
    if "stopped" not in answer:
        with contextlib.suppress(StoreUnavailable):
            await service.store._guard(service.redis.set(
                analysis_key(code), msgpack.packb(answer, use_bin_type=True), ex=KEY_TTL_S, nx=True))
    return answer
