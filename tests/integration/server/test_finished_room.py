"""A finished room shrinks to what is read after its race (issue 34, item 18).

For the 24 hours a finished room is kept, only its results, its players' rows
(a resume) and its records (a replay, a ghost) are read. At the finish the
players' move logs leave their lists for one packed key with the results
(server/store/compact.py), measured here with Redis's own MEMORY USAGE; what is
read back is the same as before.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from server.app import RaceServer
from tests.support.bot import Bot
from tests.support.servers import close_all, fetch_record, play_out, race, results_of, txt, ws_url

MOVES = 120  # about what a player of the soak made per race (261,531 moves, 1,037 races)

async def room_bytes(rdb: aioredis.Redis, code: str) -> dict[str, int]:
    """Every key of the room and what Redis says it takes (exactly: SAMPLES 0)."""
    out = {}
    async for key in rdb.scan_iter(match=f"room:{{{code}}}:*"):
        out[txt(key)] = int(await rdb.memory_usage(key, samples=0) or 0)
    return out


async def compacted(rdb: aioredis.Redis, code: str) -> dict[str, int]:
    """The room's keys once the finish has packed its logs (it follows the results).
    Waited for by the packed key itself: a scan that overlaps the packing can miss
    keys it rewrote, so the keys are read only once it is done."""
    for _ in range(200):
        if await rdb.exists(f"room:{{{code}}}:done"):
            return await room_bytes(rdb, code)
        await asyncio.sleep(0.05)
    raise AssertionError(f"the finished room kept its log lists: {sorted(await room_bytes(rdb, code))}")


async def test_a_finished_room_keeps_its_record_in_less_than_half_the_bytes(
        server: RaceServer, rdb: aioredis.Redis) -> None:
    # A third player who makes no move keeps the race open while the racing keys are
    # read: the deal is random, and bob's game may end (won or dead) within MOVES.
    bots, code = await race([ws_url(server)] * 3)
    try:
        ann, bob, cat = bots
        await play_out(ann, MOVES)
        await bob.play(MOVES)
        racing = await room_bytes(rdb, code)
        assert f"room:{{{code}}}:done" not in racing
        records = {n: await server.service.moves(code, n) for n in (1, 2)}
        assert bob.view is not None
        bob_resigns = bob.view["status"] == "in_progress"
        await play_out(bob, 0)  # bob resigns if his game still goes on
        await play_out(cat, 0)  # cat resigns: the race is over
        results = await results_of(ann)
        finished = await compacted(rdb, code)

        # the logs went into one key with the results: 1 + N + 1 keys, not 1 + 2N
        assert sorted(finished) == sorted([k for k in racing if ":log:" not in k]
                                          + [f"room:{{{code}}}:done"])
        # measured on the two racers' keys: cat's row is the same before and after
        two = {k: v for k, v in finished.items() if not k.endswith(":p:3")}
        assert sum(two.values()) < sum(v for k, v in racing.items() if not k.endswith(":p:3")) / 2, (
            finished, racing)
        # what is read after the race is what was stored during it
        assert await server.service.moves(code, 1) == records[1]
        after = await server.service.moves(code, 2)
        assert after == records[2] + ([after[-1]] if bob_resigns else [])
        assert not bob_resigns or after[-1][1] == "resign"
        record = await fetch_record(ann, 2)
        assert record["moves"] == [text for _, text in after]
        room = await server.service.room(code)
        assert room is not None and room.phase == "finished" and room.results
        assert results["ranking"]
    finally:
        await close_all(bots)


async def test_a_room_still_racing_is_not_compacted(server: RaceServer, rdb: aioredis.Redis) -> None:
    bots, code = await race([ws_url(server), ws_url(server)])
    try:
        await bots[0].play(5)
        before = await room_bytes(rdb, code)
        assert not await server.service.store.compact(code)
        assert await room_bytes(rdb, code) == before
    finally:
        await close_all(bots)


async def test_a_resumed_player_of_a_compacted_room_gets_its_final_position(
        server: RaceServer, rdb: aioredis.Redis) -> None:
    bots, code = await race([ws_url(server), ws_url(server)])
    try:
        ann, bob = bots
        await ann.play(20)
        await play_out(ann, 0)
        await play_out(bob, 10)
        await results_of(ann)
        await compacted(rdb, code)
        again = Bot(ws_url(server), ann.name, seed=7)
        bots.append(again)
        welcome = await again.connect(token=ann.token)
        assert welcome["resumed"] is True
        view = await again.expect("view")
        assert view["view"]["status"] == "resigned" and view["v"] == ann.v
        await again.expect("results")
    finally:
        await close_all(bots)
