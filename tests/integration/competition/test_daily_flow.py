"""Names, the daily challenge, boards and ratings through a real server and Redis."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import connect

from server.app import RaceServer
from server.game import engine
from server.ops.clock import now_ms
from server.ops.config import Settings
from server.race.daily import day_bounds_ms
from server.store import keys
from tests.support.bot import Bot

VARIANT = "czarina"
DAY = "2026-11-30"


class Clock:
    """An hour into ``date``, then ticking: a race's start and end come on it."""

    def __init__(self, date: str) -> None:
        self.ms = day_bounds_ms(date)[0] + 3_600_000
        self.since = now_ms()

    def __call__(self) -> int:
        return self.ms + now_ms() - self.since

    def next_day(self) -> None:
        self.ms += 86_400_000


@pytest.fixture
def clock() -> Clock:
    return Clock(DAY)


@pytest.fixture
async def server(competition_redis_url: str, redis: Redis, clock: Clock) -> AsyncIterator[RaceServer]:
    settings = Settings(port=0, countdown_ms=50, rate_per_2s=100_000, secret="s3cret",
                        daily_budget=3000, daily_tries=2, race_seconds=120, daily_par_games=0,
                        grade_budget=0)
    app = RaceServer(settings, competition_redis_url, clock=clock)
    await app.start()
    yield app
    await app.close()


def url(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


async def identified(server: RaceServer, name: str) -> tuple[Bot, str]:
    bot = Bot(url(server), name)
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    key = (await bot.expect("claimed"))["key"]
    return bot, key


async def play_daily(bot: Bot, resign_after: int = 3) -> dict[str, Any]:
    await bot.send({"t": "daily", "variant": VARIANT})
    joined = await bot.expect("joined", timeout=60)
    room = await bot.expect("room")
    assert room["daily"] == DAY
    await bot.send({"t": "ready"})
    await bot.expect("view")
    for _ in range(resign_after):
        text = bot.choose()
        if text is None:
            break
        await bot.move(text)
    if bot.view and bot.view["status"] == "in_progress":
        bot.seq += 1
        await bot.send({"t": "resign", "seq": bot.seq})
    results = await bot.expect("results")
    results["joined"] = joined
    results["room"] = room
    return results


async def test_a_claimed_name_needs_its_key(server: RaceServer) -> None:
    ann, key = await identified(server, "Ann")
    other = Bot(url(server), "x")
    await other.connect()
    await other.send({"t": "claim", "name": "ann"})
    assert (await other.expect("error"))["code"] == "name_taken"
    thief = Bot(url(server), "Ann")
    thief.ws = await connect(url(server))
    await thief.send({"t": "hello", "proto": 1, "name": "Ann"})
    assert (await thief.expect("error"))["code"] == "name_taken"
    await thief.send({"t": "hello", "proto": 1, "name": "Ann", "key": key})
    assert (await thief.expect("welcome"))["t"] == "welcome"
    for b in (ann, other, thief):
        await b.close()


async def test_first_daily_attempt_is_ranked_and_later_ones_are_practice(server: RaceServer) -> None:
    ann, _ = await identified(server, "ann")
    first = await play_daily(ann)
    assert first["ranked"] is True and first["room"]["ranked"] is True
    assert first["deal"] is None  # not revealed while the day lasts
    assert first["share"].startswith("Patience Race daily #334 · Czarina · ")
    assert "(practice)" not in first["share"]
    second = await play_daily(ann)
    assert second["ranked"] is False and second["share"].endswith("(practice)")
    await ann.send({"t": "board", "kind": "daily", "variant": VARIANT})
    board = await ann.expect("board")
    assert board["total"] == 1 and board["entries"][0]["name"] == "ann"
    assert board["entries"][0]["moves"] == first["ranking"][0]["moves"]
    await ann.close()


async def test_guests_play_the_daily_as_practice(server: RaceServer) -> None:
    guest = Bot(url(server), "guest")
    await guest.connect()
    results = await play_daily(guest)
    assert results["ranked"] is False
    await guest.send({"t": "board", "kind": "daily", "variant": VARIANT})
    assert (await guest.expect("board"))["total"] == 0
    await guest.close()


async def test_commit_then_reveal_across_the_day_rollover(server: RaceServer, clock: Clock) -> None:
    bot = Bot(url(server), "viewer")
    await bot.connect()
    await bot.send({"t": "daily_info", "variant": VARIANT})
    today = await bot.expect("daily_info", timeout=60)
    assert today["date"] == DAY and today["yesterday"] is None
    assert "deal" not in today and len(today["commitment"]) == 64
    # before the race: for a deal the solver won, its difficulty grade (no par
    # here: tests/unit/rooms/test_daily_choice.py makes one)
    assert today["pars"] == [] and (today["difficulty"] is None or 1 <= today["difficulty"] <= 4)
    results = await play_daily(bot)
    await bot.send({"t": "record"})
    assert (await bot.expect("error"))["code"] == "no_results"  # not while the day lasts
    clock.next_day()
    await bot.send({"t": "daily_info", "variant": VARIANT})
    tomorrow = await bot.expect("daily_info", timeout=60)
    past = tomorrow["yesterday"]
    assert past["date"] == DAY and tomorrow["commitment"] != today["commitment"]
    assert past["pars"] == today["pars"] and past["difficulty"] == today["difficulty"]
    # anyone can check the deal was fixed in advance, and replay it
    digest = hashlib.sha256(f"{past['deal']}|{past['salt']}".encode()).hexdigest()
    assert digest == today["commitment"]
    await bot.send({"t": "record"})
    record = (await bot.expect("record"))["record"]
    assert record["deal"] == past["deal"]
    state = engine.new_game(record["variant"], record["deal"])
    for text in record["moves"]:
        state = engine.play(state, text)
    assert engine.foundation_cards(state) == results["ranking"][0]["foundation_cards"]
    await bot.close()


async def test_a_tampered_record_never_enters_the_board(server: RaceServer, redis: Redis) -> None:
    ann, _ = await identified(server, "ann")
    await ann.send({"t": "daily", "variant": VARIANT})
    code = (await ann.expect("joined", timeout=60))["code"]
    await ann.send({"t": "ready"})
    await ann.expect("view")
    await ann.move(ann.choose() or "draw")
    # someone with access to the store forges a move the engine would refuse
    await redis.rpush(keys.log(code, 1), "5 t1-f9")
    ann.seq += 1
    await ann.send({"t": "resign", "seq": ann.seq})
    results = await ann.expect("results")
    assert results["ranked"] is False
    await ann.send({"t": "board", "kind": "daily", "variant": VARIANT})
    assert (await ann.expect("board"))["total"] == 0
    await ann.close()


async def test_races_between_claimed_names_update_ratings(server: RaceServer) -> None:
    ann, _ = await identified(server, "ann")
    bob, _ = await identified(server, "bob")
    await ann.send({"t": "create", "variant": "four-seasons", "players": 2})
    code = (await ann.expect("joined"))["code"]
    await bob.send({"t": "join", "code": code})
    await bob.expect("joined")
    for b in (ann, bob):
        await b.send({"t": "ready"})
    for b in (ann, bob):
        await b.expect("view")
    await ann.move(ann.choose() or "draw")
    await ann.move(ann.choose() or "draw")
    for b in (bob, ann):
        b.seq += 1
        await b.send({"t": "resign", "seq": b.seq})
    results = await ann.expect("results")
    assert set(results["ratings"]) == {"ann", "bob"}
    assert results["rating_variant"] == "four-seasons" and results["provisional"] == ["ann", "bob"]
    assert set(results["ratings_before"]) == {"ann", "bob"}
    await bob.send({"t": "board", "kind": "rating", "variant": "four-seasons"})
    board = await bob.expect("board")
    assert {e["name"] for e in board["entries"]} == {"ann", "bob"} and board["season"] is None
    assert all(e["provisional"] and e["races"] == 1 and e["deviation"] > 0 for e in board["entries"])
    # the race's variant only: another variant's board has nobody
    await bob.send({"t": "board", "kind": "rating", "variant": "czarina"})
    assert (await bob.expect("board"))["total"] == 0
    # this season's board, and bob's rank with his neighbours
    await bob.send({"t": "board", "kind": "rating", "variant": "four-seasons", "season": "current"})
    season = await bob.expect("board")
    assert season["season"] == server.competition.ladder.current().id and season["total"] == 2
    await bob.send({"t": "board", "kind": "rating", "variant": "four-seasons", "near": True})
    near = await bob.expect("board")
    assert near["near"] == "bob" and near["me"] in (1, 2) and len(near["entries"]) == 2
    # the profile: the variant's rating, its curve (one change) and the streaks
    await bob.send({"t": "profile", "name": "ANN"})
    profile = await bob.expect("profile")
    assert profile["name"] == "ann" and profile["claimed"] and set(profile["ratings"]) == {"four-seasons"}
    rating = profile["ratings"]["four-seasons"]
    assert rating["value"] == results["ratings"]["ann"] and rating["races"] == 1 and rating["provisional"]
    assert [value for _, value in rating["curve"]] == [results["ratings"]["ann"]]
    assert profile["streaks"] == {"days": 0, "best": 0, "wins": 0}
    await bob.send({"t": "profile", "name": "nobody-at-all"})
    assert await bob.expect("profile") == {"t": "profile", "name": "nobody-at-all", "claimed": False,
                                           "ratings": {}, "streaks": None}
    for b in (ann, bob):
        await b.close()


async def test_a_refused_board_request_changes_nothing(server: RaceServer, redis: Redis) -> None:
    bot = Bot(url(server), "cy")
    await bot.connect()
    before = {k: await redis.dump(k) for k in await redis.keys("*")}
    for bad in ({"kind": "rating"}, {"kind": "rating", "variant": "czarina", "season": "2099-01-01"},
                {"kind": "wins", "variant": "czarina", "season": "2026-11-02"},
                {"kind": "daily", "variant": "czarina", "season": "current"},
                {"kind": "rating", "variant": "czarina", "season": 7}):
        await bot.send({"t": "board", **bad})
        assert (await bot.expect("error"))["code"] == "bad_field", bad
    assert {k: await redis.dump(k) for k in await redis.keys("*")} == before
    await bot.send({"t": "board", "kind": "wins", "variant": "czarina", "near": True})
    assert (await bot.expect("board"))["me"] is None  # not on it: no rank, no neighbours
    await bot.close()


async def test_watchers_are_told_when_a_board_changes(server: RaceServer) -> None:
    watcher = Bot(url(server), "watcher")
    await watcher.connect()
    await watcher.send({"t": "board", "kind": "daily", "variant": VARIANT})
    assert (await watcher.expect("board"))["total"] == 0
    ann, _ = await identified(server, "ann")
    await play_daily(ann)
    changed = await watcher.expect("board_changed")
    assert changed["board"] == f"daily:{DAY}:{VARIANT}"
    for b in (ann, watcher):
        await b.close()


async def test_no_secret_no_daily(competition_redis_url: str, redis: Redis) -> None:
    app = RaceServer(Settings(port=0, secret=""), competition_redis_url)
    await app.start()
    bot = Bot(f"ws://127.0.0.1:{app.port}/", "x")
    await bot.connect()
    await bot.send({"t": "daily", "variant": VARIANT})
    assert (await bot.expect("error"))["code"] == "no_daily"
    await bot.close()
    await app.close()


async def test_only_records_that_can_count_are_replayed(server: RaceServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Guests' races end without a replay; a race between claimed names replays both."""
    import server.rooms.competition as competition

    replayed: list[str] = []
    real_replay = competition.ranked_replay

    def counting_replay(record: Any) -> Any:
        replayed.append(record.variant)
        return real_replay(record)

    monkeypatch.setattr(competition, "ranked_replay", counting_replay)

    async def race(a: Bot, b: Bot) -> dict[str, Any]:
        await a.send({"t": "create", "variant": "four-seasons", "players": 2})
        code = (await a.expect("joined"))["code"]
        await b.send({"t": "join", "code": code})
        await b.expect("joined")
        for bot in (a, b):
            await bot.send({"t": "ready"})
        for bot in (a, b):
            await bot.expect("view")
        for bot in (a, b):
            bot.seq += 1
            await bot.send({"t": "resign", "seq": bot.seq})
        return await a.expect("results")

    guests = [Bot(url(server), "guest"), Bot(url(server), "guest")]
    for g in guests:
        await g.connect()
    await race(*guests)
    assert replayed == []
    ann, _ = await identified(server, "ann")
    bob, _ = await identified(server, "bob")
    results = await race(ann, bob)
    assert len(replayed) == 2 and set(results["ratings"]) == {"ann", "bob"}
    for bot in (*guests, ann, bob):
        await bot.close()


# -- no practice before the ranked attempt ------------------------------------------
async def test_a_daily_played_as_a_guest_then_claimed_is_not_ranked_for_the_name(
        server: RaceServer) -> None:
    bot = Bot(url(server), "cleo")
    await bot.connect()
    practice = await play_daily(bot)
    assert practice["ranked"] is False
    await bot.send({"t": "claim", "name": "cleo"})
    await bot.expect("claimed")
    again = await play_daily(bot)
    assert again["ranked"] is False and again["room"]["ranked"] is False
    await bot.send({"t": "board", "kind": "daily", "variant": VARIANT})
    assert (await bot.expect("board"))["total"] == 0
    await bot.close()


async def test_the_install_carries_the_practice_to_a_name_claimed_on_a_new_connection(
        server: RaceServer) -> None:
    guest = Bot(url(server), "guest")
    await guest.connect(device="install-1")
    await play_daily(guest)
    await guest.close()
    later = Bot(url(server), "dora")  # the client restarted: a new connection, same install
    await later.connect(device="install-1")
    await later.send({"t": "claim", "name": "dora"})
    await later.expect("claimed")
    assert (await play_daily(later))["ranked"] is False
    await later.close()


async def test_a_claimed_name_on_an_install_that_practised_today_is_not_ranked(
        server: RaceServer) -> None:
    eve, key = await identified(server, "eve")  # claimed long ago, elsewhere
    await eve.close()
    guest = Bot(url(server), "guest")
    await guest.connect(device="install-2")
    await play_daily(guest)
    await guest.close()
    back = Bot(url(server), "eve")
    await back.connect(key=key, device="install-2")
    assert (await play_daily(back))["ranked"] is False
    await back.close()


async def test_a_fresh_install_and_a_fresh_name_play_a_ranked_first_attempt(server: RaceServer) -> None:
    bot = Bot(url(server), "fay")
    await bot.connect(device="install-3")
    await bot.send({"t": "claim", "name": "fay"})
    await bot.expect("claimed")
    assert (await play_daily(bot))["ranked"] is True
    assert (await play_daily(bot))["ranked"] is False
    await bot.close()
