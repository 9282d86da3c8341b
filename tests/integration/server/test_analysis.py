"""Post-game analysis against a real server and a real Redis: a solo game whose
record leaves a winning line with a move proved lost is analysed to that move
once it is over, and refused (changing nothing) before; the worker's queue is
bounded, shares a run between two asks of one room, and a run past its time
answers "undecided" instead of hanging."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from server.game import engine
from server.rooms.analysisworker import AnalysisWorker, Games
from server.wire.protocol import ProtocolError
from tests.integration.server.test_solo import solo
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, close_all, race, results_of, room_snapshot, ws_url
from tests.unit.rooms.test_analysis import BETSY, losing_case


async def test_a_solo_game_is_analysed_to_its_losing_move_once_it_is_over(make_server: ServerFactory,
                                                                         rdb: aioredis.Redis) -> None:
    k, losing, record = losing_case(BETSY, 4)
    first, other = await make_server(), await make_server()  # two processes on one Redis
    bot, code = await solo(ws_url(first), BETSY, "4")
    elsewhere = Bot(ws_url(other), "other")
    try:
        before = await room_snapshot(rdb, code)
        await bot.send({"t": "analyse"})
        refused = await bot.expect("error")
        assert refused["code"] == "no_results"
        assert await room_snapshot(rdb, code) == before  # a refusal changes nothing
        for text in record:
            assert (await bot.move(text))["t"] == "view", text
            if bot.view and bot.view["status"] != engine.IN_PROGRESS:
                break
        if bot.view and bot.view["status"] == engine.IN_PROGRESS:
            bot.seq += 1
            await bot.send({"t": "resign", "seq": bot.seq})
        await results_of(bot)
        await bot.send({"t": "analyse"})
        answer = await bot.expect("analysis", timeout=60)
        assert answer["code"] == code and answer["deal_result"] == "won"
        game = answer["players"][0]
        assert (game["result"], game["index"], game["move"]) == ("lost_at", k, losing)
        assert "parted" not in answer  # a game of one compares with no one
        await bot.send({"t": "analyse"})  # asked again: the same answer, kept
        assert await bot.expect("analysis", timeout=5) == answer
        # shared through Redis for as long as the finished room lives: another
        # process answers from there without a run of its own
        key = f"analysis:{{{code}}}"
        assert 0 < await rdb.ttl(key) <= 24 * 3600
        await elsewhere.connect()
        await elsewhere.send({"t": "analyse", "code": code})
        assert await elsewhere.expect("analysis", timeout=5) == answer
        assert other.service.analysis.runs == 0 and first.service.analysis.runs == 1
    finally:
        await close_all([bot, elsewhere])


async def test_a_race_is_analysed_only_once_it_has_results(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    try:
        before = await room_snapshot(rdb, code)
        await bots[0].send({"t": "analyse"})
        assert (await bots[0].expect("error"))["code"] == "no_results"
        await bots[1].send({"t": "analyse", "code": code})
        assert (await bots[1].expect("error"))["code"] == "no_results"
        assert await room_snapshot(rdb, code) == before
    finally:
        await close_all(bots)


async def test_the_queue_is_bounded_and_one_room_is_analysed_once() -> None:
    worker = AnalysisWorker(256, queue_max=1, budget=200_000)
    # the deal itself: four-seasons 1 is undecided at this budget
    games: Games = [(1, [], engine.IN_PROGRESS)]
    try:
        first = asyncio.create_task(worker.analyse("AAAA", "four-seasons", "1", games))
        same = asyncio.create_task(worker.analyse("AAAA", "four-seasons", "1", games))
        await asyncio.sleep(0)
        with pytest.raises(ProtocolError) as busy:
            await worker.analyse("BBBB", "four-seasons", "2", games)
        assert busy.value.code == "analysis_busy" and busy.value.retry_ms
        worker.timeout_s = 0.5  # (read when the run starts)
        one, two = await asyncio.gather(first, same)
        assert one is two and worker.runs == 1
        assert one["players"][0]["result"] == "undecided"
    finally:
        worker.close()


async def test_a_run_past_its_time_stops_the_worker_and_says_undecided() -> None:
    worker = AnalysisWorker(256, timeout_s=0.3, budget=2_000_000)
    games: Games = [(1, [], engine.IN_PROGRESS), (2, ["draw"], engine.IN_PROGRESS)]
    try:
        answer = await worker.analyse("CCCC", "four-seasons", "1", games)
        assert answer["stopped"] == "time"
        assert [g["result"] for g in answer["players"]] == ["undecided", "undecided"]
        # the worker starts again for the next room
        worker.timeout_s, worker.budget = 60.0, 1
        again = await worker.analyse("DDDD", "four-seasons", "1", games[:1])
        assert again["players"][0]["result"] == "undecided" and again["nodes"] <= 5
    finally:
        worker.close()


async def test_an_asker_that_goes_away_stops_neither_the_run_nor_the_others() -> None:
    worker = AnalysisWorker(256, budget=50)
    games: Games = [(1, [], engine.IN_PROGRESS)]
    try:
        gone = asyncio.create_task(worker.analyse("EEEE", "four-seasons", "1", games))
        staying = asyncio.create_task(worker.analyse("EEEE", "four-seasons", "1", games))
        await asyncio.sleep(0)
        gone.cancel()
        answer = await staying
        assert answer["players"][0]["result"] == "undecided" and worker.runs == 1
        assert worker.known("EEEE") is answer
    finally:
        worker.close()
