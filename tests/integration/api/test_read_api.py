"""The public read API through a real server (port 0, either transport) and a
real Redis: every route answers what a player may see, as its OpenAPI schema
says; a race still racing and a daily still being played show nothing of
their games; ETags give 304s; the address's budget gives 429; and no refusal
writes anything to the store."""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from redis.asyncio import Redis
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.api.http import ApiError
from server.api.openapi import DOCUMENT
from server.api.routes import ROUTES, find
from server.app import RaceServer
from server.ops import metrics
from server.ops.clock import now_ms
from server.ops.config import TRANSPORTS, Settings
from server.race.daily import day_bounds_ms
from server.store.embedded import EmbeddedRedis
from tests.integration.server.test_replays import check_view
from tests.integration.server.test_spectating import walk
from tests.support.bot import Bot
from tests.support.errorlogs import no_error_records
from tests.support.redis_server import redis_url
from tests.support.servers import NO_ADDRESS_LIMITS, fetch_record, is_card, play_out, states_of, txt

VARIANT = "four-seasons"
DAILY = "czarina"
DAY = "2026-11-30"
LOOPBACK = "127.0.0.1"
ARENA_ROUTES = {"/api/v1/arenas", "/api/v1/arenas/{id}"}


class Clock:
    """An hour into ``date``, then ticking; ``next_day`` moves a day on."""

    def __init__(self, date: str) -> None:
        self.ms = day_bounds_ms(date)[0] + 3_600_000
        self.since = now_ms()

    def __call__(self) -> int:
        return self.ms + now_ms() - self.since

    def next_day(self) -> None:
        self.ms += 86_400_000


@dataclass
class Got:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass
class Client:
    """Reads the API over plain HTTP, validates every answer against the
    document, and keeps every body for the leak scan."""

    port: int
    bodies: list[tuple[str, bytes]] = field(default_factory=list)  # (path, body) of every answer
    answered: set[str] = field(default_factory=set)  # routes answered 200

    def _get(self, path: str, headers: dict[str, str]) -> Got:
        req = urllib.request.Request(f"http://{LOOPBACK}:{self.port}{path}", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as answer:
                raw = answer.read()
                status, got = answer.status, dict(answer.headers)
        except urllib.error.HTTPError as exc:
            raw, status, got = exc.read(), exc.code, dict(exc.headers)
        return Got(status, got, json.loads(raw) if raw else None, raw)

    async def get(self, path: str, status: int = 200, **headers: str) -> Got:
        got = await asyncio.to_thread(self._get, path, {k.replace("_", "-"): v for k, v in headers.items()})
        assert got.status == status, (path, got.status, got.body)
        self.bodies.append((path, got.raw))
        try:
            template = find(path)[0].template
        except ApiError:
            template = ""  # no route: the answer is an Error all the same
        if status != 304:
            check_schema(template, str(status), got.body)
        if status == 200:
            self.answered.add(find(path)[0].template)
            assert got.headers["ETag"] and got.headers["Cache-Control"].startswith("public")
        return got


def check_schema(template: str, status: str, body: Any) -> None:
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    response = DOCUMENT["paths"][template]["get"]["responses"][status] if template else error
    schema = response["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": DOCUMENT["components"]})
    errors = [e.message for e in validator.iter_errors(body)]
    assert not errors, (template, status, errors[:3], body)


@pytest.fixture(scope="module")
def api_redis_url() -> Iterator[str]:
    with redis_url() as url:
        yield url


@pytest.fixture
async def redis(api_redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(api_redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
def clock() -> Clock:
    return Clock(DAY)


async def started(url: str, clock: Callable[[], int], **overrides: Any) -> RaceServer:
    options: dict[str, Any] = {"port": 0, "countdown_ms": 50, "rate_per_2s": 100_000, "secret": "s3cret",
                               "daily_budget": 3000, "daily_tries": 2, "race_seconds": 120,
                               "daily_par_games": 0, "grade_budget": 0,
                               **NO_ADDRESS_LIMITS, "api_rate_per_2s": 100_000}
    options.update(overrides)
    app = RaceServer(Settings(**options), url, clock=clock)
    await app.start()
    return app


async def claimed(app: RaceServer, name: str) -> tuple[Bot, str]:
    bot = Bot(f"ws://{LOOPBACK}:{app.port}/", name, seed=len(name))
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    return bot, (await bot.expect("claimed"))["key"]


async def rated_race(bots: list[Bot]) -> str:
    """Seat the bots in a private room, start the race; returns its code."""
    await bots[0].send({"t": "create", "variant": VARIANT, "players": len(bots), "private": True})
    code: str = (await bots[0].expect("joined"))["code"]
    for bot in bots[1:]:
        await bot.send({"t": "join", "code": code})
        await bot.expect("joined", code=code)
    for bot in bots:
        await bot.send({"t": "ready"})
    await asyncio.gather(*(bot.expect("view") for bot in bots))
    return code


async def play_daily(bot: Bot) -> str:
    await bot.send({"t": "daily", "variant": DAILY})
    code: str = (await bot.expect("joined", timeout=60))["code"]
    await bot.send({"t": "ready"})
    await bot.expect("view")
    await play_out(bot, 3)
    await bot.expect("results")
    return code


def secrets_of(bots: list[Bot], keys: list[str]) -> set[str]:
    """Every resume token and name key the server handed out: none may leave by the API."""
    tokens = {m["token"] for b in bots for m in b.inbox if isinstance(m.get("token"), str) and m["token"]}
    return tokens | set(keys)


def assert_no_leak(bodies: list[tuple[str, bytes]], secrets: set[str]) -> None:
    """No token, key or address in any answer, and no card outside a replay's view
    (check_view holds each of those to the player's face-up cards)."""
    for path, raw in bodies:
        text = raw.decode()
        assert not any(s in text for s in secrets), (path, text[:200])
        assert LOOPBACK not in text, path  # no client's address
        if "/replays/" not in path:
            assert not any(is_card(x) for x in walk(json.loads(text) if text else None)), path


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_every_route_answers_what_a_player_may_see(api_redis_url: str, redis: Redis,
                                                          clock: Clock, transport: str) -> None:
    app = await started(api_redis_url, clock, transport=transport)
    api = Client(app.port)
    bots: list[Bot] = []
    try:
        (ann, ann_key), (bob, bob_key) = await claimed(app, "Ann"), await claimed(app, "bob")
        bots += [ann, bob]
        code = await rated_race([ann, bob])
        # racing: nothing of the games, whoever asks
        for path in (f"/api/v1/rooms/{code}", f"/api/v1/rooms/{code}/records/1",
                     f"/api/v1/rooms/{code}/replays/2?index=1"):
            assert (await api.get(path, 403)).body["code"] == "no_results"
        assert_no_leak(api.bodies, secrets_of(bots, [ann_key, bob_key]))
        await asyncio.gather(*(play_out(b, 20) for b in (ann, bob)))
        results = await ann.expect("results")
        assert "ratings" in results  # two claimed names: a rated race

        room = (await api.get(f"/api/v1/rooms/{code.lower()}")).body
        assert room["code"] == code and room["ranking"] == results["ranking"]
        assert room["deal"] == (await app.service.room(code)).deal  # type: ignore[union-attr]
        for n in (1, 2):
            record = (await api.get(f"/api/v1/rooms/{code}/records/{n}")).body
            assert record["record"] == await fetch_record(ann, n)
            truth = states_of(record["record"])
            total = len(record["record"]["moves"])
            for index in sorted({0, 1, total // 2, total}):
                replay = (await api.get(f"/api/v1/rooms/{code}/replays/{n}?index={index}")).body
                assert replay["index"] == index and replay["total"] == total
                check_view(replay, truth)  # face-up cards only, exactly the true position's
        await api.get(f"/api/v1/rooms/{code}/records/5", 400)  # no such seat

        board = (await api.get(f"/api/v1/boards/rating/{VARIANT}?limit=5")).body
        assert {e["name"] for e in board["entries"]} == {"Ann", "bob"} and board["season"] is None
        season = (await api.get(f"/api/v1/boards/rating/{VARIANT}?season=current")).body
        assert season["total"] == 2 and season["season"] is not None
        near = (await api.get(f"/api/v1/boards/rating/{VARIANT}/near/ann?season=current")).body
        assert near["near"] == "ann" and near["me"] in (1, 2) and len(near["entries"]) == 2
        seasons = (await api.get("/api/v1/seasons")).body
        assert seasons["current"]["id"] == season["season"]
        assert all(closed < season["season"] for closed in seasons["closed"])  # October's, once closed
        assert seasons["current"]["starts_at"] <= clock() < seasons["current"]["ends_at"]
        wins = (await api.get(f"/api/v1/boards/wins/{VARIANT}")).body
        assert wins["total"] == 0
        profile = (await api.get("/api/v1/profiles/Ann")).body
        assert profile["claimed"] is True and VARIANT in profile["ratings"]
        assert (await api.get("/api/v1/profiles/nobody")).body["claimed"] is False

        # the daily: its commitment, a board while the day lasts, its games only after it
        info = (await api.get(f"/api/v1/daily/{DAILY}")).body
        assert info["date"] == DAY and info["yesterday"] is None
        daily_code = await play_daily(ann)
        day_board = (await api.get(f"/api/v1/daily/{DAILY}/{DAY}/board")).body
        assert [e["name"] for e in day_board["entries"]] == ["Ann"]
        today = (await api.get(f"/api/v1/daily/{DAILY}/{DAY}")).body
        assert today["revealed"] is False and "deal" not in today and "salt" not in today
        assert today["commitment"] == info["commitment"]
        await api.get(f"/api/v1/rooms/{daily_code}", 403)
        await api.get(f"/api/v1/rooms/{daily_code}/records/1", 403)
        assert_no_leak(api.bodies, secrets_of(bots, [ann_key, bob_key]))
        daily_bodies = [b for _, b in api.bodies if DAY.encode() in b]
        stored = await app.competition.daily_deal(DAY, DAILY)
        assert not any(f'"deal":"{stored.deal}"'.encode() in b for b in daily_bodies)
        assert (await api.get(f"/api/v1/log/{DAY}", 403)).body["code"] == "no_results"  # the daily in it
        clock.next_day()
        past = (await api.get(f"/api/v1/daily/{DAILY}/{DAY}")).body
        assert past["revealed"] is True and past["check"] is True and past["deal"] == stored.deal
        assert past["commitment"] == info["commitment"]
        assert (await api.get(f"/api/v1/daily/{DAILY}")).body["yesterday"]["deal"] == stored.deal
        assert (await api.get(f"/api/v1/rooms/{daily_code}")).body["deal"] == stored.deal
        # the results log: the rated race and the ranked daily, once their day is over
        index = (await api.get("/api/v1/log")).body
        logged = (await api.get(f"/api/v1/log/{DAY}")).body
        assert len(logged["lines"]) == logged["total"] == 2 and index["head"]["seq"] == 2
        assert past["log_head"] == {"seq": 2, "hash": index["head"]["hash"]}
        assert (await api.get(f"/api/v1/daily/{DAILY}")).body["yesterday"]["log_head"] == past["log_head"]
        assert (await api.get(f"/api/v1/bots/{VARIANT}")).body["total"] == 0  # no bot account raced

        spec = (await api.get("/api/v1/openapi.json")).body
        assert spec == json.loads(json.dumps(DOCUMENT))
        # every route was read (the arenas' in the next test: their keys expire on the real clock)
        assert api.answered == {route.template for route in ROUTES} - ARENA_ROUTES
        assert_no_leak(api.bodies, secrets_of(bots, [ann_key, bob_key]))
    finally:
        for bot in bots:
            await bot.close()
        await app.close()


async def test_arenas_list_and_standing(api_redis_url: str, redis: Redis) -> None:
    app = await started(api_redis_url, now_ms)
    api = Client(app.port)
    try:
        assert (await api.get("/api/v1/arenas")).body == {"arenas": []}
        await api.get("/api/v1/arenas/APIA", 404)
        assert await app.arenas.create("APIA", variant=VARIANT, starts_at=now_ms() + 60_000, minutes=10,
                                       group=2, race_seconds=60, name="api")
        listed = (await api.get("/api/v1/arenas")).body["arenas"]
        assert [(a["id"], a["phase"]) for a in listed] == [("APIA", "upcoming")]
        bot = Bot(f"ws://{LOOPBACK}:{app.port}/", "joiner")
        await bot.connect(device="install-4f2a9c")  # a guest's line is keyed by its install
        await bot.send({"t": "arena_join", "id": "APIA"})
        mine = await bot.expect("arena", id="APIA")
        standing = (await api.get("/api/v1/arenas/apia")).body  # ids in any case
        assert standing["players"] == 1 and standing["top"] == mine["top"]
        assert {k: v for k, v in mine.items() if k not in ("t", "me", "member", "server_time")} == \
            {k: v for k, v in standing.items() if k != "server_time"}
        await bot.close()
        assert api.answered == ARENA_ROUTES
        assert_no_leak(api.bodies, {"install-4f2a9c", "g:"})  # no member's identity key
    finally:
        await app.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_matching_etag_is_answered_304_and_a_change_gives_a_new_one(
        api_redis_url: str, redis: Redis, clock: Clock, transport: str) -> None:
    app = await started(api_redis_url, clock, transport=transport)
    api = Client(app.port)
    try:
        first = await api.get("/api/v1/profiles/carol")
        again = await api.get("/api/v1/profiles/carol", 304, If_None_Match=first.headers["ETag"])
        assert again.raw == b"" and again.headers["ETag"] == first.headers["ETag"]
        bot, _ = await claimed(app, "carol")  # the profile changes: claimed now
        changed = await api.get("/api/v1/profiles/carol", If_None_Match=first.headers["ETag"])
        assert changed.body["claimed"] is True and changed.headers["ETag"] != first.headers["ETag"]
        await bot.close()
    finally:
        await app.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_past_the_address_budget_is_429_and_the_websocket_keeps_its_own(
        api_redis_url: str, redis: Redis, clock: Clock, transport: str) -> None:
    app = await started(api_redis_url, clock, api_rate_per_2s=3, transport=transport)
    api = Client(app.port)
    try:
        for _ in range(3):
            await api.get("/api/v1/arenas")
        refused = await api.get("/api/v1/arenas", 429)
        assert refused.body["code"] == "rate_limited" and int(refused.headers["Retry-After"]) >= 1
        await api.get("/api/v1/openapi.json", 429)  # one budget for every route
        bot = Bot(f"ws://{LOOPBACK}:{app.port}/", "player")  # the player's budget is untouched
        await bot.connect()
        await bot.send({"t": "arenas"})
        await bot.expect("arenas")
        await bot.close()
        await asyncio.sleep(1.0)  # the budget refills at 1.5 requests a second
        await api.get("/api/v1/arenas")
    finally:
        await app.close()


def refusals_counted() -> float:
    return metrics.REGISTRY.get_sample_value("patience_api_answers_total", {"status": "429"}) or 0.0


async def test_each_address_has_its_own_budget_behind_a_trusted_proxy(api_redis_url: str, redis: Redis,
                                                                      clock: Clock) -> None:
    app = await started(api_redis_url, clock, api_rate_per_2s=2, trusted_proxies=LOOPBACK)
    api = Client(app.port)
    refused_before = refusals_counted()
    try:
        for _ in range(2):
            await api.get("/api/v1/arenas", X_Forwarded_For="198.51.100.7")
        await api.get("/api/v1/arenas", 429, X_Forwarded_For="198.51.100.7")
        await api.get("/api/v1/arenas", X_Forwarded_For="198.51.100.8")  # another client
        await api.get("/api/v1/arenas")  # the proxy's own address: another budget again
        assert refusals_counted() == refused_before + 1  # for the operator, in /metrics
    finally:
        await app.close()


async def test_unknown_room_codes_earn_the_join_wait(api_redis_url: str, redis: Redis,
                                                     clock: Clock) -> None:
    app = await started(api_redis_url, clock, join_penalty_ms=2000)
    api = Client(app.port)
    try:
        assert (await api.get("/api/v1/rooms/NOSUCH", 404)).body["code"] == "no_room"
        waited = await api.get("/api/v1/rooms/OTHER/records/1", 429)
        assert waited.body["code"] == "join_wait" and waited.headers["Retry-After"] == "2"
        await api.get("/api/v1/arenas")  # only room codes wait
        bot = Bot(f"ws://{LOOPBACK}:{app.port}/", "guesser")  # and the websocket's joins too
        await bot.connect()
        await bot.send({"t": "join", "code": "ABCDEF"})
        assert (await bot.expect("error"))["code"] == "join_wait"
        await bot.close()
    finally:
        await app.close()


async def snapshot(redis: Redis) -> dict[bytes, Any]:
    out: dict[bytes, Any] = {}
    async for key in redis.scan_iter():
        kind = txt(await redis.type(key))
        if kind == "string":
            out[key] = await redis.get(key)
        elif kind == "hash":
            out[key] = await redis.hgetall(key)
        elif kind == "zset":
            out[key] = await redis.zrange(key, 0, -1, withscores=True)
        elif kind == "list":
            out[key] = await redis.lrange(key, 0, -1)
        elif kind == "set":
            out[key] = await redis.smembers(key)
        else:
            out[key] = kind
    return out


async def test_refusals_write_nothing_to_the_store(api_redis_url: str, redis: Redis,
                                                   clock: Clock) -> None:
    app = await started(api_redis_url, clock, api_rate_per_2s=12, join_penalty_ms=1000)
    api = Client(app.port)
    bots: list[Bot] = []
    try:
        ann, _ = await claimed(app, "ann")
        bob, _ = await claimed(app, "bob")
        bots += [ann, bob]
        code = await rated_race([ann, bob])  # still racing
        before = await snapshot(redis)
        refusals = [(f"/api/v1/rooms/{code}", 403), (f"/api/v1/rooms/{code}/replays/1", 403),
                    ("/api/v1/boards/daily/czarina", 404), ("/api/v1/boards/rating/nope", 404),
                    (f"/api/v1/boards/rating/{VARIANT}?limit=0", 400),
                    (f"/api/v1/boards/rating/{VARIANT}?season=1999-01-02", 400),
                    (f"/api/v1/daily/{DAILY}/2030-01-01", 400), (f"/api/v1/daily/{DAILY}/2026-11-29", 404),
                    ("/api/v1/arenas/NOPE", 404), ("/api/v1/profiles/" + "x" * 30, 400),
                    ("/api/v1/nowhere", 404), ("/api/v1/rooms/ZZZZZZ", 404),
                    ("/api/v1/rooms/ZZZZZZ", 429), ("/api/v1/arenas", 429)]
        for path, status in refusals:
            await api.get(path, status)
        assert await snapshot(redis) == before
    finally:
        for bot in bots:
            await bot.close()
        await app.close()


FUZZ_WORDS = ("api", "v1", "boards", "rating", "wins", "daily", "near", "board", "profiles", "rooms",
              "records", "replays", "arenas", "openapi.json", "four-seasons", "Four Seasons", "2026-11-30",
              "current", "0", "1", "9", "-1", "99999999999", "%00", "%ff", "%2F", "..", "", " ", "é",
              "x" * 300, "{code}", "ABCDEF")
FUZZ_QUERIES = ("", "?", "?offset=5", "?limit=1000", "?season=", "?season=zz", "?index=-3",
                "?index=1e3", "?a=1", "?limit=1&limit=2", "?offset=%ff", "?&&", "?limit")


async def test_hostile_targets_are_refusals_never_errors(api_redis_url: str, redis: Redis,
                                                         clock: Clock) -> None:
    """Random request targets under /api/v1/: each answered with a documented
    status and a JSON body, never a server error or an ERROR record."""
    app = await started(api_redis_url, clock, secret="")  # no daily: no deal is made by a read
    rng = random.Random(32)
    try:
        with no_error_records():
            for _ in range(600):
                words = [rng.choice(FUZZ_WORDS) for _ in range(rng.randint(0, 5))]
                target = "/api/v1/" + "/".join(words) + rng.choice(FUZZ_QUERIES)
                response = await app.api.answer(f"10.0.{rng.randint(0, 3)}.1", Request(target, Headers()))
                assert response.status_code in {200, 400, 403, 404, 429}, (target, response.body)
                assert isinstance(json.loads(response.body), dict), target
    finally:
        await app.close()


async def test_a_lost_store_is_503_with_retry_after_and_no_error_record(clock: Clock) -> None:
    with tempfile.TemporaryDirectory(prefix="pra-") as tmp, EmbeddedRedis(Path(tmp)) as own:
        app = await started(own.url, clock)
        api = Client(app.port)
        try:
            await api.get("/api/v1/profiles/ann")
            with no_error_records():
                own.stop()
                lost = await api.get("/api/v1/profiles/ann", 503)
                assert lost.body["code"] == "store_unavailable" and lost.headers["Retry-After"] == "1"
                own.start()
                for _ in range(100):  # the client reconnects by itself
                    if (await asyncio.to_thread(api._get, "/api/v1/profiles/ann", {})).status == 200:
                        break
                    await asyncio.sleep(0.1)
                await api.get("/api/v1/profiles/ann")
        finally:
            await app.close()
