"""Voiding a rated race and marking a cheater, on a real Redis: every player of
the race gets the rating it would have without it, the boards follow, a void
applied twice changes nothing, and the listeners hear of each void."""

from __future__ import annotations

import math

import pytest
from redis.asyncio import Redis

from server.race.ratings import NEW, Skill, field
from server.rooms.moderation import Event, Moderation, ModerationError
from server.rooms.service import RoomService
from server.store.ratings import rating_board, user_key
from server.store.seasons import board_key
from tests.support.servers import txt

from .conftest import Clock, claim, snapshot

V = "czarina"


async def rated(service: RoomService, mod: Moderation, code: str, ranking: list[tuple[str, int]],
                clock: Clock) -> None:
    clock.now += 1000
    ladder = service.competition.ladder
    await service.boards.ratings.rate_race(V, code, ranking, clock.now, ladder.written())
    await mod.bans.note_rated(code, {"variant": V, "names": [n for n, _ in ranking], "daily": None,
                                     "won": False})


async def skill(redis: Redis, name: str) -> Skill:
    return Skill.from_store(txt(await redis.hget(user_key(name), field(V))))


def close(a: Skill, b: Skill) -> bool:
    return math.isclose(a.mu, b.mu, abs_tol=1e-3) and math.isclose(a.sigma, b.sigma, abs_tol=1e-3)


async def test_voiding_the_last_race_gives_back_each_rating_before_it(
        service: RoomService, mod: Moderation, redis: Redis, clock: Clock) -> None:
    await rated(service, mod, "R1", [("ann", 1), ("bob", 2), ("cid", 3)], clock)
    before = {n: await skill(redis, n) for n in ("ann", "bob", "cid")}
    await rated(service, mod, "R2", [("cid", 1), ("ann", 2), ("bob", 3)], clock)
    heard: list[Event] = []

    async def listener(event: Event) -> None:
        heard.append(event)

    mod.listeners.append(listener)
    done = await mod.void("r2", "cid used a solver", "op")
    assert set(done["players"]) == {"ann", "bob", "cid"}
    for name in ("ann", "bob", "cid"):
        now = await skill(redis, name)
        assert close(now, before[name]) and now.races == before[name].races == 1
        board = await redis.zscore(rating_board(V), name)
        assert board is not None and math.isclose(board, now.ordinal)
        season = service.competition.ladder.written()[1]
        seasonal = await redis.zscore(rating_board(V, season), name)
        assert seasonal is not None and math.isclose(seasonal, now.ordinal)
    assert [(e.action, e.race, set(e.names), e.reason) for e in heard] == \
        [("void", "R2", {"ann", "bob", "cid"}, "cid used a solver")]
    # the void is in each history, marked; the audit log has it with its reason
    hist = await service.boards.ratings.history("ann", V)
    assert hist[0]["voids"] == "R2" and hist[1]["race"] == "R2"
    (entry,) = await mod.audit_log(10)
    assert (entry["action"], entry["target"], entry["reason"], entry["by"]) == \
        ("void", "R2", "cid used a solver", "op")
    # again: every player says already, and only the audit log grows
    snap = await snapshot(redis)
    again = await mod.void("R2", "twice", "op")
    assert set(again["players"].values()) == {"already"}
    after = await snapshot(redis)
    assert {k: v for k, v in after.items() if k != b"audit:log"} == \
        {k: v for k, v in snap.items() if k != b"audit:log"}


async def test_voiding_an_older_race_refunds_its_step(service: RoomService, mod: Moderation,
                                                     redis: Redis, clock: Clock) -> None:
    await rated(service, mod, "A1", [("ann", 1), ("bob", 2)], clock)
    step = (await skill(redis, "bob")).mu - NEW.mu  # what A1 did to bob's mean (a loss: < 0)
    await rated(service, mod, "A2", [("bob", 1), ("cid", 2)], clock)
    now = await skill(redis, "bob")
    await mod.void("A1", "ann's account was shared", "op")
    refunded = await skill(redis, "bob")
    assert step < 0 and math.isclose(refunded.mu, now.mu - step, abs_tol=1e-3)
    assert refunded.sigma > now.sigma and refunded.races == 1
    assert (await skill(redis, "cid")).races == 1  # not a player of A1: untouched


async def test_a_cheater_loses_every_rated_race_and_its_opponents_are_refunded(
        service: RoomService, mod: Moderation, redis: Redis, clock: Clock) -> None:
    await claim(service, "eve")
    await rated(service, mod, "C1", [("eve", 1), ("ann", 2)], clock)
    ann_before = await skill(redis, "ann")
    await rated(service, mod, "C2", [("eve", 1), ("ann", 2)], clock)
    await rated(service, mod, "C3", [("ann", 1), ("bob", 2)], clock)
    wins = board_key("daily-wins:" + V, "alltime")
    await redis.zadd(wins, {"eve": 3})
    done = await mod.cheater("Eve", "a solver's moves, 40 races in a row", "op")
    assert set(done["races"]) == {"C1", "C2"}
    eve = await skill(redis, "eve")
    assert close(eve, NEW) and eve.races == 0
    assert await redis.zscore(rating_board(V), "eve") is None and await redis.zscore(wins, "eve") is None
    ann = await skill(redis, "ann")
    # C3 came after: ann keeps its step, not the two losses to eve
    assert ann.races == 1 and ann.mu > ann_before.mu
    assert await mod.unrated(["eve", "ann"]) == {"eve"}
    assert (await mod.name_ban("eve") or {}).get("kind") == "cheater"


async def test_an_unknown_race_is_refused_and_writes_nothing(mod: Moderation, redis: Redis) -> None:
    snap = await snapshot(redis)
    with pytest.raises(ModerationError) as refused:
        await mod.void("NOPE", "x", "op")
    assert refused.value.code == "not_found"
    with pytest.raises(ModerationError):
        await mod.void("R1", " ", "op")  # no reason
    with pytest.raises(ModerationError):
        await mod.cheater("nobody", "x", "op")
    assert await snapshot(redis) == snap


async def test_a_daily_result_voided_leaves_the_days_board(service: RoomService, mod: Moderation,
                                                          redis: Redis) -> None:
    boards = service.boards
    await boards.enter_board("2026-09-20", V, "ann", True, 60_000, 80, 52)
    await boards.count_win(V, "ann", service.competition.ladder.written())
    await mod.bans.note_rated("D1", {"variant": V, "names": ["ann"], "daily": "2026-09-20", "won": True})
    done = await mod.void("D1", "two accounts on one install", "op")
    assert done["players"] == {"ann": "off the daily board"}
    assert await redis.zcard("daily:{2026-09-20|czarina}:board") == 0
    assert await redis.zscore(board_key("daily-wins:" + V, "alltime"), "ann") is None
