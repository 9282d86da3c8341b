"""Fair-play signals after a ranked race, on a real Redis: the worker's analysis,
the per-name keys with their bounds and lifetimes, and the flagged set."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from server.app import RaceServer
from server.game import engine
from server.game.solver import WON, solve
from server.ops.config import Settings
from server.race.fairplay_score import FLAG_AT
from server.race.rows import PlayerRow, RoomRow
from server.rooms import fairplay as fairplay_module
from server.rooms.competition import Competition
from server.store import keys
from server.store.boards import BoardStore
from server.store.fairplay import FLAGGED, GAMES_KEPT, KEPT_S, FairPlayStore, evidence_key, games_key
from server.store.rooms import RoomStore
from tests.integration.competition.test_daily_flow import DAY, Clock, identified, play_daily

VARIANT, DEAL = "four-seasons", "884107995872"  # a deal whose line the solver finds at once


@pytest.fixture
async def competition(rooms: RoomStore, boards: BoardStore) -> AsyncIterator[Competition]:
    comp = Competition(rooms, boards, "", lambda: 1_000_000)
    yield comp
    comp.close()


async def _race(redis: Redis, code: str, cheat: list[str],
                honest: list[str]) -> tuple[RoomRow, list[dict[str, Any]]]:
    """A finished rated race of two claimed names: ``Cheat`` played ``cheat`` at a
    metronome's 1.5 s, ``Hon`` played ``honest``."""
    players = []
    for n, (name, texts) in enumerate((("Cheat", cheat), ("Hon", honest)), start=1):
        state = engine.new_game(VARIANT, DEAL)
        for text in texts:
            state = engine.play(state, text, engine.IN_PROGRESS)
        if texts:
            await redis.rpush(keys.log(code, n), *[f"{4000 + 1500 * i} {t}" for i, t in enumerate(texts)])
        players.append(PlayerRow(n, name, fc=engine.foundation_cards(state), ident=name))
    room = RoomRow(code=code, variant=VARIANT, deal=DEAL, max=2, min=2, private=True, phase="finished",
                   starts_at=1, ends_at=2, players=players)
    ranking = [{"place": 1, "player": 1, "won": True, "moves": len(cheat),
                "foundation_cards": players[0].fc},
               {"place": 2, "player": 2, "won": False, "moves": len(honest),
                "foundation_cards": players[1].fc}]
    return room, ranking


async def test_a_ranked_race_scores_each_name_off_the_loop_and_flags_the_solvers_line(
        competition: Competition, redis: Redis) -> None:
    line = solve(VARIANT, DEAL, 10_000)
    assert line.result == WON
    room, ranking = await _race(redis, "FAIR0001", line.moves, line.moves[:3])
    extra = await competition.after_race(room, ranking, {1: "Cheat", 2: "Hon"})
    assert "ratings" in extra  # the race was rated: the analysis comes after, in the background
    await competition.fairplay.idle()
    assert competition.fairplay.analysed == 2
    store = competition.fairplay.store
    flagged = await store.flagged()
    assert [m for m, _ in flagged] == ["cheat"] and flagged[0][1] >= FLAG_AT
    assert await redis.zcard(FLAGGED) == 1
    why = await store.evidence("Cheat")
    assert why is not None and why["score"] == round(flagged[0][1], 3)
    assert why["parts"]["agreement"] >= FLAG_AT and why["agreement"]["agreed"] > 20
    assert why["parts"]["machine_pace"] > 0  # 1.5 s to the millisecond, move after move
    honest = await store.evidence("hon")
    assert honest is not None and honest["score"] < FLAG_AT and honest["reasons"] == []
    for key in (games_key("Cheat"), evidence_key("Cheat"), games_key("Hon"), evidence_key("Hon")):
        assert 0 < await redis.ttl(key) <= KEPT_S
    assert await redis.llen(games_key("cheat")) == 1


async def test_an_unranked_result_is_not_analysed(competition: Competition, redis: Redis) -> None:
    room, ranking = await _race(redis, "FAIR0002", ["draw"], [])
    await competition.after_race(room, ranking, {1: "Cheat"})  # one claimed name: nothing is rated
    await competition.fairplay.idle()
    assert competition.fairplay.analysed == 0 and not await redis.keys("fairplay:*")


async def test_a_names_games_are_bounded_and_a_dropped_score_leaves_the_flagged_set(
        rooms: RoomStore, redis: Redis) -> None:
    store = FairPlayStore(redis, rooms)
    for i in range(GAMES_KEPT + 3):
        games = await store.push("Ann", {"choices": i})
    assert len(games) == GAMES_KEPT and games[0] == {"choices": GAMES_KEPT + 2}
    assert await redis.llen(games_key("ann")) == GAMES_KEPT
    await store.publish("Ann", 2.5, True, {"score": 2.5})
    assert await store.flagged() == [("ann", 2.5)]
    assert await store.evidence("ANN") == {"score": 2.5}
    await store.publish("Ann", 0.2, False, {"score": 0.2, "huge": "x" * 10_000})
    assert await store.flagged() == []
    kept = await store.evidence("ann")
    assert kept is not None and kept["truncated"] and kept["score"] == 0.2  # bounded in size


async def test_a_ranked_daily_attempt_is_analysed_and_practice_is_not(competition_redis_url: str,
                                                                      redis: Redis) -> None:
    settings = Settings(port=0, countdown_ms=50, rate_per_2s=100_000, secret="s3cret",
                        daily_budget=3000, daily_tries=2, race_seconds=120)
    app = RaceServer(settings, competition_redis_url, clock=Clock(DAY))
    await app.start()
    try:
        ann, _ = await identified(app, "Ann")
        assert (await play_daily(ann, resign_after=25))["ranked"] is True
        assert (await play_daily(ann, resign_after=25))["ranked"] is False
        fairplay = app.service.competition.fairplay
        await fairplay.idle()
        assert fairplay.analysed == 1  # the ranked attempt only
        assert await redis.llen(games_key("ann")) == 1 and await redis.ttl(games_key("ann")) > 0
        why = await fairplay.store.evidence("ann")
        assert why is not None and why["games"] == 1
        await ann.close()
    finally:
        await app.close()


async def test_a_full_backlog_drops_the_analysis_and_nothing_else(
        competition: Competition, redis: Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fairplay_module, "MAX_PENDING", 1)
    line = solve(VARIANT, DEAL, 10_000).moves
    await _race(redis, "FAIR0003", line[:40], line[:40])
    fairplay = competition.fairplay
    fairplay.after_ranked("FAIR0003", VARIANT, DEAL, {1: "Ann"})
    fairplay.after_ranked("FAIR0003", VARIANT, DEAL, {2: "Bob"})  # the first still waits: dropped
    assert fairplay.dropped == 1
    await fairplay.idle()
    assert fairplay.analysed == 1
    assert await redis.llen(games_key("ann")) == 1 and not await redis.exists(games_key("bob"))


async def test_a_job_the_worker_does_not_finish_in_time_is_given_up_and_the_next_runs(
        competition: Competition, redis: Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    line = solve(VARIANT, DEAL, 10_000).moves
    await _race(redis, "FAIR0004", line[:40], line[:40])
    fairplay = competition.fairplay
    monkeypatch.setattr(fairplay_module, "JOB_TIMEOUT_S", 0.0)
    fairplay.after_ranked("FAIR0004", VARIANT, DEAL, {1: "Ann"})
    await fairplay.idle()
    assert fairplay.analysed == 0 and not await redis.exists(games_key("ann"))
    monkeypatch.setattr(fairplay_module, "JOB_TIMEOUT_S", 60.0)
    fairplay.after_ranked("FAIR0004", VARIANT, DEAL, {2: "Bob"})
    await fairplay.idle()
    assert fairplay.analysed == 1 and await redis.llen(games_key("bob")) == 1
