"""Seasons and neighbours on a real Redis: results go on the all-time and the
season's boards, the season is closed at its turn with its final standing kept,
and a name's rank comes with the five above and below it."""

from __future__ import annotations

import datetime as dt

from redis.asyncio import Redis

from server.rooms.ladder import CLOSE_GRACE_MS, Ladder
from server.store.boards import BoardStore
from server.store.seasons import BOARDS_KEPT_S, FINAL_TOP, INDEX, board_key, final_key
from tests.support.servers import txt


def ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp() * 1000)


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


async def test_results_go_on_all_time_and_the_seasons_board(boards: BoardStore, redis: Redis) -> None:
    clock = Clock(ms("2026-12-06T12:00:00"))
    ladder = Ladder(boards, clock, 0)
    assert ladder.written() == ("alltime", "2026-12-01")
    await boards.ratings.rate_race("czarina", "R1", [("ann", 1), ("bob", 2)], clock(), ladder.written())
    await boards.count_win("czarina", "ann", ladder.written())
    for season in ("alltime", "2026-12-01"):
        page, total = await ladder.page("rating", "czarina", season, 0, 10)
        assert total == 2 and [e["name"] for e in page] == ["ann", "bob"]
        wins, total = await ladder.page("wins", "czarina", season, 0, 10)
        assert total == 1 and wins[0]["value"] == 1
    # the next month's board starts empty; all time goes on
    clock.now = ms("2027-01-02T00:00:00")
    await boards.ratings.rate_race("czarina", "R2", [("bob", 1), ("cid", 2)], clock(), ladder.written())
    assert (await ladder.page("rating", "czarina", "2027-01-01", 0, 10))[1] == 2
    assert (await ladder.page("rating", "czarina", "alltime", 0, 10))[1] == 3
    assert (await ladder.page("rating", "czarina", "2026-12-01", 0, 10))[1] == 2


async def test_a_season_is_closed_once_at_its_turn_and_its_standing_kept(boards: BoardStore,
                                                                         redis: Redis) -> None:
    clock = Clock(ms("2026-11-20T12:00:00"))
    ladder = Ladder(boards, clock, 0)
    for i in range(FINAL_TOP + 20):
        await redis.zadd(board_key("rating:corners", "2026-11-01"), {f"p{i:03d}": float(i)})
    await boards.count_win("corners", "ann", ladder.written())
    assert await ladder.close_due()  # October, the season before, had not been closed
    assert not await ladder.close_due()  # November has not ended
    clock.now = ms("2026-12-01T00:00:00") + CLOSE_GRACE_MS - 1
    assert not await ladder.close_due()  # late writes of the turn land first
    clock.now += 1
    assert await ladder.close_due()
    assert not await ladder.close_due() and not await Ladder(boards, clock, 0).close_due()  # once
    assert await redis.zrange(INDEX, 0, -1) == [b"2026-10-01", b"2026-11-01"]
    assert 0 < await redis.ttl(board_key("rating:corners", "2026-11-01")) <= BOARDS_KEPT_S
    fields = {txt(k) for k in await redis.hkeys(final_key("2026-11-01"))}
    assert fields == {"_closed", "rating:corners", "daily-wins:corners"}
    # pages of the closed season: from its board while kept, then from the standing kept
    top, total = await ladder.page("rating", "corners", "2026-11-01", 0, 3)
    assert total == FINAL_TOP + 20 and [e["name"] for e in top] == ["p119", "p118", "p117"]
    await redis.delete(board_key("rating:corners", "2026-11-01"))
    kept, total = await ladder.page("rating", "corners", "2026-11-01", 1, 2)
    assert total == FINAL_TOP + 20 and [(e["rank"], e["name"]) for e in kept] == [(2, "p118"), (3, "p117")]
    assert (await ladder.page("rating", "corners", "2026-11-01", FINAL_TOP, 10))[0] == []


async def test_my_rank_and_my_neighbours(boards: BoardStore, redis: Redis) -> None:
    ladder = Ladder(boards, Clock(ms("2026-12-06T12:00:00")), 0)
    key = board_key("rating:czarina")
    await redis.zadd(key, {f"p{i:02d}": float(100 - i) for i in range(40)})  # p00 first
    me, around, total = await ladder.near("rating", "czarina", "alltime", "P15")
    assert (me, total) == (16, 40)
    assert [e["rank"] for e in around] == list(range(11, 22))
    assert [e["name"] for e in around][5] == "p15"
    me, around, _ = await ladder.near("rating", "czarina", "alltime", "p01")
    assert me == 2 and [e["rank"] for e in around] == list(range(1, 8))
    me, around, _ = await ladder.near("rating", "czarina", "alltime", "p39")
    assert me == 40 and [e["rank"] for e in around] == list(range(35, 41))
    assert await ladder.near("rating", "czarina", "alltime", "nobody") == (None, [], 40)


async def test_my_rank_on_a_daily_board(boards: BoardStore) -> None:
    for i in range(12):
        await boards.enter_board("2026-12-06", "czarina", f"d{i:02d}", True, 10_000 + i * 1000, 50, 52)
    me, around, total = await boards.daily_near("2026-12-06", "czarina", "d07", 5, 52)
    assert (me, total) == (8, 12) and [e["rank"] for e in around] == list(range(3, 13))
    assert [e["name"] for e in around][5] == "d07"
