"""Solo play against a real server and a real Redis: a chosen deal, undo, hints,
the record; and every refusal (undo or a hint in a race or the daily, the
daily's deal before its reveal) changing nothing stored."""

from __future__ import annotations

import re
from typing import Any

import redis.asyncio as aioredis

from server.game import engine
from server.game.records import record_from_dict, verify
from server.game.views import view
from tests.integration.server.test_finished_room import compacted
from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    fetch_record,
    move_log,
    race,
    results_of,
    room_snapshot,
    ws_url,
)
from tests.support.storeview import everything


async def solo(url: str, variant: str, deal: str | None, name: str = "solo") -> tuple[Bot, str]:
    bot = Bot(url, name)
    await bot.connect()
    msg: dict[str, Any] = {"t": "solo", "variant": variant}
    if deal is not None:
        msg["deal"] = deal
    await bot.send(msg)
    code: str = (await bot.expect("joined"))["code"]
    await bot.expect("view")  # no ready needed: it starts after the countdown
    return bot, code


async def undo(bot: Bot) -> dict[str, Any]:
    bot.seq += 1
    await bot.send({"t": "undo", "seq": bot.seq, "v": bot.v})
    while True:
        msg = await bot.recv()
        if msg.get("t") in ("view", "error") and msg.get("seq") == bot.seq:
            return msg


async def test_a_solo_game_on_a_chosen_deal_undo_and_a_verified_record(url: str, rdb: aioredis.Redis) -> None:
    bot, code = await solo(url, "four-seasons", "#2_4")  # PySolFC's forms: this is deal 24
    room = next(m for m in bot.inbox if m.get("t") == "room" and m.get("solo"))
    assert room["solo"] is True and room["deal"] == "24" and room["players_max"] == 1
    start = engine.new_game("four-seasons", 24)
    assert bot.view == view(start, engine.status(start), engine.legal_moves(start))
    first = bot.view["legal_moves"][0]
    assert (await bot.move(first))["t"] == "view"
    second = bot.view["legal_moves"][0]
    assert (await bot.move(second))["t"] == "view"
    answer = await undo(bot)  # takes back the second move
    assert answer["t"] == "view" and answer["v"] == 3
    after_first = engine.play(start, first)
    assert answer["view"] == view(after_first, engine.status(after_first), engine.legal_moves(after_first))
    answer = await undo(bot)  # and then the first move: back to the deal
    assert answer["view"]["piles"] == bot.view["piles"] and bot.view["piles"] == view(
        start, engine.IN_PROGRESS, [])["piles"]
    refused = await undo(bot)
    assert refused["t"] == "error" and refused["code"] == "illegal_move"
    assert await move_log(rdb, code, 1) == [first, second, "undo", "undo"]

    # a resume rebuilds the position through the undos
    await bot.close()
    again = Bot(url, "solo")
    await again.connect(bot.token)
    resumed = await again.expect("view")
    assert resumed["view"]["piles"] == answer["view"]["piles"] and resumed["v"] == 4
    again.seq = 10
    await again.send({"t": "resign", "seq": again.seq})
    results = await results_of(again)
    assert results["deal"] == "24" and "ratings" not in results and not results.get("ranked")
    record = await fetch_record(again, 1)
    assert record["moves"] == [first, second, "undo", "undo", "resign"]
    verdict = verify(record_from_dict(record))
    assert verdict["legal"] and verdict["undos"] == 2 and verdict["moves_played"] == 5
    assert not [k async for k in rdb.scan_iter(match="board:*solo*")]
    await close_all([again])


async def test_a_random_solo_deal_is_a_twenty_digit_number(url: str) -> None:
    bot, _ = await solo(url, "czarina", None)
    room = next(m for m in bot.inbox if m.get("t") == "room" and m.get("solo"))
    assert len(room["deal"]) == 20 and room["deal"].isdigit()
    await close_all([bot])


async def test_a_bad_deal_number_is_refused_and_nothing_is_stored(url: str, rdb: aioredis.Redis) -> None:
    bot = Bot(url, "solo")
    await bot.connect()
    before = await everything(rdb)
    await bot.send({"t": "solo", "variant": "four-seasons", "deal": "twelve"})
    assert (await bot.expect("error"))["code"] == "bad_field"
    assert await everything(rdb) == before
    await close_all([bot])


async def test_undo_and_hints_are_refused_in_a_race_and_change_nothing(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await race([url, url])
    await bots[0].move(bots[0].view["legal_moves"][0])  # type: ignore[index]
    before = await room_snapshot(rdb, code)
    bots[0].seq += 1
    await bots[0].send({"t": "undo", "seq": bots[0].seq, "v": bots[0].v})
    assert (await bots[0].expect("error"))["code"] == "solo_only"
    await bots[0].send({"t": "hint"})
    assert (await bots[0].expect("error"))["code"] == "solo_only"
    answer = await bots[0].move("undo")  # not a move either
    assert answer["code"] == "bad_move"
    assert await room_snapshot(rdb, code) == before
    await close_all(bots)


async def test_undo_and_hints_are_refused_in_the_daily_and_its_deal_in_solo(make_server: ServerFactory,
                                                                             rdb: aioredis.Redis) -> None:
    app = await make_server(secret="solo-test", daily_budget=200, daily_tries=1)
    url = ws_url(app)
    bot = Bot(url, "solo")
    await bot.connect()
    await bot.send({"t": "daily", "variant": "czarina"})
    code = (await bot.expect("joined"))["code"]
    await bot.send({"t": "ready"})
    await bot.expect("view")
    before = await everything(rdb)
    bot.seq += 1
    await bot.send({"t": "undo", "seq": bot.seq, "v": bot.v})
    assert (await bot.expect("error"))["code"] == "solo_only"
    await bot.send({"t": "hint"})
    assert (await bot.expect("error"))["code"] == "solo_only"
    assert await everything(rdb) == before

    date = app.service.competition.today()
    daily = await app.service.boards.daily(date, "czarina")
    assert daily is not None
    bot.seq += 1
    await bot.send({"t": "resign", "seq": bot.seq})
    await results_of(bot)
    await compacted(rdb, code)  # the finish packs the room after the results: not a refusal's write
    before = await everything(rdb)
    # today's deal of any variant, in any spelling, is refused for any variant
    for spelling in (daily.deal, f"#{daily.deal}", daily.deal + "L"):
        await bot.send({"t": "solo", "variant": "four-seasons", "deal": spelling})
        assert (await bot.expect("error"))["code"] == "daily_deal"
    assert await everything(rdb) == before
    assert code
    await close_all([bot])


async def test_a_hint_is_a_legal_move_that_keeps_the_game_winnable(url: str, rdb: aioredis.Redis) -> None:
    bot, code = await solo(url, "betsy-ross", "24")  # the solver wins this one at once
    before = await room_snapshot(rdb, code)
    await bot.send({"t": "hint"})
    answer = await bot.expect("hint", timeout=30)
    assert answer["result"] == "won" and answer["v"] == 0
    assert answer["move"] in bot.view["legal_moves"]  # type: ignore[index]
    # it says why where the line shows it, naming only cards on the table
    assert "why" in answer
    if answer["why"]:
        table = {c for pile in bot.view["piles"].values() for c in pile}  # type: ignore[index]
        assert set(re.findall(r"\b[A2-9TJQK][CSHD]\b", answer["why"])) <= table
    assert await room_snapshot(rdb, code) == before  # a hint stores nothing
    assert (await bot.move(answer["move"]))["t"] == "view"
    await bot.send({"t": "hint"})  # the rest of the line is remembered
    second = await bot.expect("hint", timeout=5)
    assert second["v"] == 1 and second["move"] in bot.view["legal_moves"]  # type: ignore[index]
    await close_all([bot])
