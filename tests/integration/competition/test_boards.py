"""Identities, daily boards, streaks and ratings on a real Redis."""

from __future__ import annotations

from redis.asyncio import Redis

from server.race.daily import DailyDeal
from server.store.boards import BoardStore, daily_key


async def test_a_name_is_claimed_once(boards: BoardStore) -> None:
    assert await boards.claim("Ann", "h1", 1)
    assert not await boards.claim("ann", "h2", 2)  # case does not make another name
    assert await boards.key_hash("ANN") == "h1"
    assert await boards.key_hash("bob") is None


async def test_the_first_stored_daily_deal_wins(boards: BoardStore) -> None:
    a = DailyDeal("2026-11-30", "czarina", "11111111111111111111", 0, "s1", ("draw",), None)
    b = DailyDeal("2026-11-30", "czarina", "22222222222222222222", 1, "s2", (), 7)
    assert await boards.save_daily(a) == a
    assert await boards.save_daily(b) == a
    assert await boards.daily("2026-11-30", "czarina") == a
    assert await boards.daily("2026-12-01", "czarina") is None


async def test_a_reader_never_sees_half_a_daily_deal(boards: BoardStore) -> None:
    """The deal is written in one step: readers racing the writer see all or nothing."""
    import asyncio

    for day in range(1, 21):
        date = f"2026-10-{day:02d}"
        deal = DailyDeal(date, "czarina", "33333333333333333333", 0, "s", ("draw",), 3)

        reads = [boards.daily(date, "czarina") for _ in range(20)]
        seen = await asyncio.gather(*reads[:10], boards.save_daily(deal), *reads[10:])
        assert all(s is None or s == deal for s in seen)


async def test_attempts_count_and_only_the_first_result_enters_the_board(boards: BoardStore,
                                                                         redis: Redis) -> None:
    assert await boards.start_attempt("2026-11-30", "czarina", "Ann") == (1, 0)
    assert await boards.start_attempt("2026-11-30", "czarina", "ann") == (2, 0)
    assert await boards.enter_board("2026-11-30", "czarina", "ann", False, 100_000, 50, 20)
    assert not await boards.enter_board("2026-11-30", "czarina", "ann", True, 50_000, 40, 52)
    page, total = await boards.board_page("2026-11-30", "czarina", 0, 10, 52)
    assert total == 1 and page[0]["foundation_cards"] == 20 and not page[0]["won"]
    assert await redis.ttl(daily_key("2026-11-30", "czarina", "board")) > 0


async def test_board_pages_rank_winners_first_and_show_claimed_names(boards: BoardStore) -> None:
    await boards.claim("Zoë", "h", 1)
    await boards.enter_board("2026-11-30", "czarina", "bob", False, 10_000, 10, 30)
    await boards.enter_board("2026-11-30", "czarina", "Zoë", True, 90_000, 80, 52)
    await boards.enter_board("2026-11-30", "czarina", "cid", True, 60_000, 99, 52)
    page, total = await boards.board_page("2026-11-30", "czarina", 0, 10, 52)
    assert total == 3
    assert [(r["rank"], r["name"]) for r in page] == [(1, "cid"), (2, "Zoë"), (3, "bob")]
    second, _ = await boards.board_page("2026-11-30", "czarina", 1, 1, 52)
    assert [r["name"] for r in second] == ["Zoë"]


async def test_streaks_count_consecutive_days_and_wins(boards: BoardStore) -> None:
    assert await boards.update_streaks("ann", "2026-11-28", "2026-11-27", True) == \
        {"streak_days": 1, "win_streak": 1}
    assert await boards.update_streaks("ann", "2026-11-29", "2026-11-28", True) == \
        {"streak_days": 2, "win_streak": 2}
    assert await boards.update_streaks("ann", "2026-11-30", "2026-11-29", False) == \
        {"streak_days": 3, "win_streak": 2}
    # a gap of a day starts both again
    assert await boards.update_streaks("ann", "2026-12-02", "2026-12-01", True) == \
        {"streak_days": 1, "win_streak": 1}
