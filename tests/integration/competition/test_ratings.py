"""Ratings per variant on a real Redis: each variant apart, the history of each
change, the boards per variant, concurrent races and a race applied twice."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from server.race.ratings import HISTORY_KEPT, NEW, PROVISIONAL_RACES, Skill, field
from server.store.boards import BoardStore
from server.store.ratings import history_key, rating_board, user_key
from tests.support.servers import txt


async def test_a_race_rates_its_own_variant_only(boards: BoardStore, redis: Redis) -> None:
    done = await boards.ratings.rate_race("czarina", "AAAA", [("ann", 1), ("Bob", 2), ("cid", 3)], 10)
    assert done.after["ann"].ordinal > done.after["Bob"].ordinal > done.after["cid"].ordinal
    assert done.before == {"ann": NEW, "Bob": NEW, "cid": NEW}
    skills = await boards.ratings.skills("ann")
    assert set(skills) == {"czarina"} and skills["czarina"].races == 1
    # another variant starts new, and leaves czarina's rating as it was
    other = await boards.ratings.rate_race("calculation", "BBBB", [("cid", 1), ("ann", 2)], 20)
    assert other.before["ann"] == NEW and other.after["cid"].ordinal > other.after["ann"].ordinal
    assert (await boards.ratings.skills("ann"))["czarina"] == skills["czarina"]
    assert await redis.zscore(rating_board("czarina"), "bob") is not None
    assert await redis.zcard(rating_board("calculation")) == 2
    page, total = await boards.ratings.page("czarina", 0, 10)
    assert total == 3 and [e["name"] for e in page] == ["ann", "bob", "cid"]
    assert page[0]["provisional"] and page[0]["races"] == 1
    assert page[0]["deviation"] == round(done.after["ann"].sigma, 3)
    assert (await boards.ratings.rate_race("czarina", "CCCC", [("ann", 1)], 30)).after == {}


async def test_each_change_is_kept_with_its_race_before_and_after(boards: BoardStore) -> None:
    first = await boards.ratings.rate_race("czarina", "R001", [("ann", 1), ("bob", 2)], 100)
    second = await boards.ratings.rate_race("czarina", "R002", [("bob", 1), ("ann", 2)], 200)
    hist = await boards.ratings.history("ann", "czarina")
    assert [h["race"] for h in hist] == ["R002", "R001"]
    assert hist[1]["before"] == round(NEW.ordinal, 3)
    assert hist[1]["after"] == round(first.after["ann"].ordinal, 3) == hist[0]["before"]
    assert hist[0]["after"] == round(second.after["ann"].ordinal, 3) and hist[0]["at"] == 200


async def test_the_history_is_bounded(boards: BoardStore, redis: Redis) -> None:
    for i in range(HISTORY_KEPT + 5):
        await boards.ratings.rate_race("corners", f"H{i}", [("ann", 1), ("bob", 2)], i)
    assert await redis.llen(history_key("ann", "corners")) == HISTORY_KEPT
    assert (await boards.ratings.history("ann", "corners", 1))[0]["race"] == f"H{HISTORY_KEPT + 4}"
    skill = (await boards.ratings.skills("ann"))["corners"]
    assert skill.races == HISTORY_KEPT + 5 and not skill.provisional and HISTORY_KEPT > PROVISIONAL_RACES


async def test_a_race_applied_twice_counts_once(boards: BoardStore, redis: Redis) -> None:
    once = await boards.ratings.rate_race("czarina", "SAME", [("ann", 1), ("bob", 2)], 1)
    again = await boards.ratings.rate_race("czarina", "SAME", [("ann", 1), ("bob", 2)], 2)
    assert again.after == once.after
    assert (await boards.ratings.skills("ann"))["czarina"].races == 1
    assert await redis.llen(history_key("ann", "czarina")) == 1


async def test_races_finishing_together_lose_no_update(boards: BoardStore, redis: Redis) -> None:
    """Ten races of one player rated at once (as ten processes would): every one counts."""
    races = [boards.ratings.rate_race("czarina", f"C{i}", [("ann", 1), (f"p{i}", 2)], i)
             for i in range(10)]
    await asyncio.gather(*races)
    skill = (await boards.ratings.skills("ann"))["czarina"]
    assert skill.races == 10
    hist = await boards.ratings.history("ann", "czarina")
    assert sorted(h["race"] for h in hist) == sorted(f"C{i}" for i in range(10))
    # each change starts where the one before it ended: none was computed from a stale rating
    chain = list(reversed(hist))
    assert all(a["after"] == b["before"] for a, b in zip(chain, chain[1:], strict=False))
    stored = Skill.from_store(txt(await redis.hget(user_key("ann"), field("czarina"))))
    assert stored == skill


async def test_a_curve_is_the_newest_changes_oldest_first(boards: BoardStore) -> None:
    values = []
    for i in range(6):
        done = await boards.ratings.rate_race("czarina", f"K{i}", [("ann", 1), ("bob", 2)], 1000 + i)
        values.append(round(done.after["ann"].ordinal, 3))
    curves = await boards.ratings.curves("ann", ["czarina", "corners"], 4)
    assert curves == {"czarina": [[1000 + i, values[i]] for i in range(2, 6)], "corners": []}
