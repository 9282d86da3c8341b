"""The results log through a real server and Redis: a rated race and a ranked
daily are appended as they are rated, voids and renames by their functions,
the log is served by the read API, and verify-log finds a changed entry and a
changed record where they are."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from server.app import RaceServer
from server.cli.main import main as cli
from server.cli.verifylog import check, download
from server.game.records import Record, replay_facts
from server.ops.clock import now_ms
from server.ops.config import Settings
from server.race.daily import day_bounds_ms
from server.race.logcheck import LogCheck
from server.race.ratings import Skill
from server.race.resultlog import canonical
from server.race.rows import PlayerRow, RoomRow
from server.race.rules import ranking
from server.store import keys
from server.store.resultlog import DAYS, HEAD, day_key
from tests.support.bot import Bot
from tests.support.servers import close_all, play_out, results_of, txt

VARIANT = "four-seasons"


class Clock:
    """Real time from a day's start on, that a test can move a day on: a day's
    lines of the log are served once it is over."""

    def __init__(self) -> None:
        self.ms = day_bounds_ms("2026-12-01")[0] + 3_600_000
        self.since = now_ms()

    def __call__(self) -> int:
        return self.ms + now_ms() - self.since

    def next_day(self) -> None:
        self.ms += 86_400_000


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def server(competition_redis_url: str, redis: Redis, clock: Clock) -> AsyncIterator[RaceServer]:
    settings = Settings(port=0, countdown_ms=50, rate_per_2s=100_000, secret="s3cret", race_seconds=120)
    app = RaceServer(settings, competition_redis_url, clock=clock)
    KEYS.clear()  # a new store: no name is claimed yet
    await app.start()
    yield app
    await app.close()


KEYS: dict[tuple[int, str], str] = {}  # (server, name) -> the key its claim gave


async def rated_race(server: RaceServer, names: list[str], caps: list[int]) -> str:
    bots = [Bot(f"ws://127.0.0.1:{server.port}/", n, seed=7 + i) for i, n in enumerate(names)]
    for bot in bots:
        key = KEYS.get((id(server), bot.name))
        await bot.connect(key=key)
        if key is None:
            await bot.send({"t": "claim", "name": bot.name})
            KEYS[id(server), bot.name] = (await bot.expect("claimed"))["key"]
    await bots[0].send({"t": "create", "variant": VARIANT, "players": len(bots)})
    code: str = (await bots[0].expect("joined"))["code"]
    for bot in bots[1:]:
        await bot.send({"t": "join", "code": code})
        await bot.expect("joined")
    for bot in bots:
        await bot.send({"t": "ready"})
    await asyncio.gather(*(bot.expect("view") for bot in bots))
    for bot, cap in zip(bots, caps, strict=True):
        await play_out(bot, cap)
    assert set((await results_of(bots[0]))["ratings"]) == set(names)
    await close_all(bots)
    return code


async def ranked_daily(server: RaceServer, redis: Redis, name: str) -> str:
    """A daily room's ranked attempt, put in the store as the race left it, and
    finished by the server's own after-race path (no deal to search for)."""
    competition = server.service.competition
    code, date = "DAILY1", competition.today()
    await redis.rpush(keys.log(code, 1), "900 draw", "1500 resign")
    fc = replay_facts(Record(VARIANT, "4242", ("draw", "resign")))[1]["foundation_cards"]
    room = RoomRow(code, VARIANT, "4242", 1, 1, True, "finished", 1_000, 601_000,
                   [PlayerRow(1, name, 2, status="resigned", fc=fc, done_ms=1500, ident=name)],
                   daily=date, ranked=True)
    extra = await competition.after_race(room, ranking(room), {1: name})
    assert extra["ranked"] is True
    return code


async def lines_of(server: RaceServer) -> list[str]:
    base = f"http://127.0.0.1:{server.port}"
    return await asyncio.to_thread(lambda: list(download(base)))


async def test_the_servers_log_replays_to_its_ratings_and_boards(server: RaceServer, redis: Redis,
                                                                 clock: Clock) -> None:
    first = await rated_race(server, ["ann", "bob"], [12, 2])
    second = await rated_race(server, ["bob", "cid", "ann"], [20, 1, 4])
    daily = await ranked_daily(server, redis, "cid")
    date = server.service.competition.today()
    assert await lines_of(server) == []  # not while the day lasts: the daily's deal is in it
    clock.next_day()
    lines = await lines_of(server)
    log = LogCheck()
    for text in lines:
        log.feed(text)
    assert [json.loads(t)["entry"]["race"] for t in lines] == [first, second, daily]
    # the log alone gives the server's ratings, to the last bit, and its board
    ratings = server.service.boards.ratings
    for name in ("ann", "bob", "cid"):
        assert log.ratings[name][VARIANT] == (await ratings.skills(name))[VARIANT]
    page, _ = await ratings.page(VARIANT, 0, 10)
    assert [e["name"] for e in page] == [n for n, _ in log.boards()["rating"][f"{VARIANT} alltime"]]
    entries, _ = await server.service.competition.daily_board(date, VARIANT, 0, 10, 52)
    assert [e["name"] for e in entries] == ["cid"]
    # the index and the head: one day so far, its last hash the head
    index = await server.service.competition.results_log.index()
    assert index["head"]["seq"] == 3 and index["head"]["hash"] == log.link.hash
    assert index["days"][-1]["hash"] == log.link.hash


async def test_voids_and_renames_are_appended_and_hold(server: RaceServer, clock: Clock) -> None:
    first = await rated_race(server, ["ann", "bob"], [12, 2])
    results_log = server.service.competition.results_log
    assert await results_log.void(first, ["bob"], "a test of the void") is not None
    # moderation that writes ratings holds the turn around its writes and the void
    ratings = server.service.boards.ratings
    ann = (await ratings.skills("ann"))[VARIANT]
    async with results_log.turn() as token:
        assert token is not None
        assert await results_log.store.take_turn() is None  # held: nobody else rates meanwhile
        refunded = Skill(ann.mu - 1.0, ann.sigma, ann.races, "VOIDED")
        assert await results_log.void_within(token, first, ["ann"], "refund", {"ann": (ann, refunded)},
                                             ("alltime",)) is not None
    assert await results_log.rename("ann", "anne") is not None
    clock.next_day()
    lines = await lines_of(server)
    assert [json.loads(t)["entry"]["kind"] for t in lines] == ["result", "void", "void", "rename"]
    log, fault = check(iter(lines))
    assert fault is None and log.summary()["void"] == 2 and log.ratings["anne"][VARIANT] == refunded


async def corrupt(redis: Redis, date: str, index: int, change: Callable[[dict[str, Any]], None]) -> str:
    """Change one stored line; returns it as it was."""
    was = txt(await redis.lindex(day_key(date), index))
    data = json.loads(was)
    change(data)
    await redis.lset(day_key(date), index, canonical(data).decode())
    return was


async def test_verify_log_finds_a_changed_entry_and_a_changed_record(
        server: RaceServer, redis: Redis, clock: Clock, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    for caps in ([12, 2], [3, 9], [5, 5]):
        await rated_race(server, ["ann", "bob"], caps)
    date = server.service.competition.today()
    clock.next_day()
    base = f"http://127.0.0.1:{server.port}"
    saved = tmp_path / "log.ndjson"
    assert await asyncio.to_thread(cli, ["verify-log", base, "--save", str(saved)]) == 0
    assert "the log holds: 3 entries" in capsys.readouterr().out

    def later(data: dict[str, Any]) -> None:
        data["entry"]["at"] += 1

    was = await corrupt(redis, date, 0, later)  # entry 1 changed: entry 2 no longer holds its hash
    assert await asyncio.to_thread(cli, ["verify-log", base]) == 1
    out = capsys.readouterr().out
    assert "entry 2 does not hold" in out and "hash of the entry before it" in out
    await redis.lset(day_key(date), 0, was)

    def other_time(data: dict[str, Any]) -> None:
        data["record"]["seats"][0]["ms"][0] += 1

    await corrupt(redis, date, 2, other_time)  # entry 3's record changed
    assert await asyncio.to_thread(cli, ["verify-log", base]) == 1
    out = capsys.readouterr().out
    assert "entry 3 does not hold" in out and "record was changed" in out
    # the copy saved before still holds, and passes through the heads it had, no other
    assert await asyncio.to_thread(cli, ["verify-log", str(saved)]) == 0
    second = LogCheck()
    for text in saved.read_text().splitlines()[:2]:
        second.feed(text)
    assert await asyncio.to_thread(cli, ["verify-log", str(saved), "--head", second.link.hash]) == 0
    assert await asyncio.to_thread(cli, ["verify-log", str(saved), "--head", "0" * 64]) == 1


async def test_a_past_day_publishes_the_logs_head_beside_its_reveal(server: RaceServer, redis: Redis) -> None:
    await rated_race(server, ["ann", "bob"], [6, 2])
    competition = server.service.competition
    index = await competition.results_log.index()
    today = competition.today()
    assert await competition.results_log.head_at(today) == {"seq": 1, "hash": index["head"]["hash"]}
    assert await competition.results_log.head_at("2000-01-01") is None


async def test_a_void_of_a_race_rated_before_the_log_began_verifies(
        server: RaceServer, redis: Redis, clock: Clock) -> None:
    """An upgraded server's log starts after races it has rated. Voiding one of them
    logs the variant with the ratings written, and the log alone still gives them."""
    first = await rated_race(server, ["ann", "bob"], [12, 2])
    date = server.service.competition.today()
    await redis.delete(HEAD, DAYS, day_key(date))  # as if the log began after that race
    await server.service.moderation.void(first, "played a solver's line", "op")
    clock.next_day()
    lines = await lines_of(server)
    (entry,) = [json.loads(t)["entry"] for t in lines]
    assert entry["kind"] == "void" and entry["variant"] == VARIANT
    log, fault = check(iter(lines))
    assert fault is None, fault
    assert log is not None and log.summary()["voided_before_the_log"] == [first]
    ratings = server.service.boards.ratings
    for name in ("ann", "bob"):
        assert log.ratings[name][VARIANT] == (await ratings.skills(name))[VARIANT]


async def test_moderations_voids_and_renames_enter_the_log_and_it_replays_to_the_store(
        server: RaceServer, clock: Clock) -> None:
    """Moderation writes its ratings and their lines in one turn of the log: after a void of
    an older race (a step refunded under a later one) and a rename, the log alone still
    gives every stored rating."""
    first = await rated_race(server, ["ann", "bob"], [12, 2])
    await rated_race(server, ["bob", "cid"], [20, 1])
    mod = server.service.moderation
    await mod.void(first, "played a solver's line", "op")
    await mod.rename("cid", "cyd", "an offensive name", "op")
    clock.next_day()
    lines = await lines_of(server)
    entries = [json.loads(t)["entry"] for t in lines]
    assert [e["kind"] for e in entries] == ["result", "result", "void", "rename"]
    assert entries[2]["race"] == first and set(entries[2]["ratings"]) == {"ann", "bob"}
    log, fault = check(iter(lines))
    assert fault is None, fault
    ratings = server.service.boards.ratings
    for name in ("ann", "bob", "cyd"):
        assert log.ratings[name][VARIANT] == (await ratings.skills(name))[VARIANT]
