"""Bot accounts on a real server: a name declares itself a bot, is refused what
a bot may not do (changing nothing), and the example bot of the docs races a
person who accepts bots, rated on the bots' board only."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from server.app import RaceServer
from server.store.ratings import bot_board, rating_board, user_key
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, close_all, txt, ws_url

DOC = Path(__file__).resolve().parents[3] / "docs" / "design" / "bot-accounts.md"
VARIANT = "four-seasons"


async def claimed(app: RaceServer, name: str) -> tuple[Bot, str]:
    bot = Bot(ws_url(app), name)
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    key: str = (await bot.expect("claimed"))["key"]
    return bot, key


async def error_of(bot: Bot, message: dict[str, Any]) -> str:
    await bot.send(message)
    code: str = (await bot.expect("error"))["code"]
    return code


async def test_a_name_becomes_a_bot_and_is_refused_what_bots_may_not_do(
        make_server: ServerFactory, rdb: Redis) -> None:
    app = await make_server(secret="s3cret")
    guest = Bot(ws_url(app), "guest")
    await guest.connect()
    assert await error_of(guest, {"t": "bot_account"}) == "not_identified"
    robo, _ = await claimed(app, "robo1")
    await robo.send({"t": "bot_account"})
    assert (await robo.expect("bot_account"))["name"] == "robo1"
    assert txt(await rdb.hget(user_key("robo1"), "bot")) == "1"
    before = await rdb.dbsize()
    for message in ({"t": "create", "variant": VARIANT, "private": False},
                    {"t": "daily", "variant": VARIANT}, {"t": "arena_join", "id": "ANY"}):
        assert await error_of(robo, message) == "bot_account"
    assert await rdb.dbsize() == before  # each refusal wrote nothing
    await robo.send({"t": "profile", "name": "robo1"})
    assert (await robo.expect("profile"))["bot"] is True
    # a name with a ranked result stays a person's
    await app.service.boards.ratings.rate_race(VARIANT, "RATED1", [("pers1", 1), ("pers2", 2)], 1)
    person, _ = await claimed(app, "pers3")
    await app.service.boards.ratings.rate_race(VARIANT, "RATED2", [("pers3", 1), ("pers2", 2)], 2)
    assert await error_of(person, {"t": "bot_account"}) == "bot_account"
    assert await rdb.hget(user_key("pers3"), "bot") is None
    await person.send({"t": "profile", "name": "pers3"})
    assert (await person.expect("profile"))["bot"] is False
    await close_all([guest, robo, person])


def example_bot() -> Any:
    """The example bot, run from the text of the docs."""
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    space: dict[str, Any] = {"__name__": "example_bot"}
    exec(compile(code.group(1), str(DOC), "exec"), space)  # noqa: S102  # our own docs' example
    return space["main"]


async def test_the_example_bot_races_a_person_who_accepts_bots(make_server: ServerFactory,
                                                                rdb: Redis) -> None:
    app = await make_server(race_seconds=3, quick_bot_s=0, arena_tick_ms=50)
    robo, key = await claimed(app, "robo2")
    await robo.send({"t": "bot_account"})
    await robo.expect("bot_account")
    await robo.close()
    pat, _ = await claimed(app, "pat2")
    await pat.send({"t": "quick", "variant": VARIANT, "accept_bots": True})
    await pat.expect("queued")
    bot = asyncio.create_task(example_bot()(ws_url(app), "robo2", key, 1))
    await pat.expect("joined", timeout=10)
    room = await pat.expect("room", timeout=10)
    await pat.send({"t": "ready"})
    await pat.expect("view", timeout=10)
    await pat.move(pat.choose() or "draw")
    pat.seq += 1
    await pat.send({"t": "resign", "seq": pat.seq})
    results = await pat.expect("results", timeout=15)
    await asyncio.wait_for(bot, 10)
    assert {r["name"] for r in results["ranking"]} == {"pat2", "robo2"}
    # the room marks the bot's seat, not the person's (the room seen once both sat)
    while len(room["players"]) < 2:
        room = next(m for m in pat.inbox[pat.inbox.index(room) + 1:] if m["t"] == "room")
    assert {p["name"]: p["bot_account"] for p in room["players"]} == {"pat2": False, "robo2": True}
    assert set(results["ratings"]) == {"pat2", "robo2"} and results["bot_accounts"] == ["robo2"]
    # and each row of the ranking says whether its seat was a bot account's
    assert {r["name"]: r["bot_account"] for r in results["ranking"]} == {"pat2": False, "robo2": True}
    # the bot on the bots' board only, the person on the persons' only
    assert await rdb.zscore(bot_board(VARIANT), "robo2") is not None
    assert await rdb.zscore(rating_board(VARIANT), "robo2") is None
    assert await rdb.zscore(rating_board(VARIANT), "pat2") is not None
    entries, _ = await app.service.competition.bot_accounts.board(VARIANT, 0, 100)
    assert "robo2" in [e["name"] for e in entries] and "pat2" not in [e["name"] for e in entries]
    # and the results log says which name was a bot (verify-log boards it apart)
    head = await app.service.competition.results_log.store.head()
    (last,), _ = await app.service.competition.results_log.store.lines(head.date, -1, 1)
    entry = json.loads(last)["entry"]
    assert entry["race"] == results["code"] and entry["bots"] == ["robo2"]
    await close_all([pat])
