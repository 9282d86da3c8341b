"""Moderation through a real server: the report message, the ban refusals a
player hears, a banned address refused at the handshake, a renamed name
refused at hello, a banned name left out of a race's ratings, and the admin
API behind its token. Every refusal is checked against the whole store."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from server.app import RaceServer
from server.ops.config import Settings
from server.wire import protocol
from tests.support.bot import Bot
from tests.support.servers import NO_ADDRESS_LIMITS

from .conftest import snapshot

TOKEN = "an-admin-token-of-thirty-two-ch"
VARIANT = "four-seasons"


@pytest.fixture
async def app(moderation_redis_url: str, redis: Redis) -> AsyncIterator[RaceServer]:
    server = RaceServer(Settings(port=0, countdown_ms=50, rate_per_2s=100_000, secret="s3cret",
                                 race_seconds=120, admin_token=TOKEN, admin_rate_per_2s=1000,
                                 **NO_ADDRESS_LIMITS), moderation_redis_url)
    await server.start()
    # the ladder closes the season before this one as the server starts: let it, so that
    # the store compared around a refusal holds only what the refusal might have changed
    for _ in range(100):
        if await redis.exists("seasons:index"):
            break
        await asyncio.sleep(0.02)
    yield server
    await server.close()


def url(app: RaceServer) -> str:
    return f"ws://127.0.0.1:{app.port}/"


async def claimed(app: RaceServer, name: str) -> tuple[Bot, str]:
    bot = Bot(url(app), name, seed=len(name))
    await bot.connect()
    await bot.send({"t": "claim", "name": name})
    return bot, (await bot.expect("claimed"))["key"]


def _http(port: int, method: str, path: str, token: str | None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


async def admin(app: RaceServer, method: str, path: str, token: str | None = TOKEN) -> tuple[int, Any]:
    return await asyncio.to_thread(_http, app.port, method, path, token)


async def test_a_report_over_the_websocket(app: RaceServer, redis: Redis) -> None:
    ann, _ = await claimed(app, "ann")
    bob, _ = await claimed(app, "bob")
    guest = Bot(url(app), "gus")
    await guest.connect()
    try:
        snap = await snapshot(redis)
        for bot, msg, code in ((guest, {"name": "bob", "reason": "cheating"}, "not_identified"),
                               (ann, {"name": "bob", "reason": "rude"}, "bad_field"),
                               (ann, {"name": "bob", "reason": "other", "room": "no such!"}, "bad_field"),
                               (ann, {"name": "ann", "reason": "other"}, "bad_field"),
                               (ann, {"name": "zed", "reason": "other"}, "bad_field")):
            await bot.send({"t": "report", **msg})
            assert (await bot.expect("error"))["code"] == code, msg
        assert await snapshot(redis) == snap
        await ann.send({"t": "report", "name": "Bob", "reason": "cheating", "text": "40 s\x07 win",
                        "room": "ab12"})
        assert await ann.expect("reported") == {"t": "reported", "name": "Bob"}
        (kept,) = await app.service.moderation.reports.reports("bob")
        assert (kept["by"], kept["text"], kept["room"]) == ("ann", "40 s win", "AB12")
    finally:
        for bot in (ann, bob, guest):
            await bot.close()


async def test_a_banned_name_hears_why_and_is_not_rated(app: RaceServer, redis: Redis) -> None:
    ann, _ = await claimed(app, "ann")
    bob, _ = await claimed(app, "bob")
    try:
        await app.service.moderation.ban("name", "ann", "a solver's moves", 90, "op")
        snap = await snapshot(redis)
        for msg in ({"t": "quick", "variant": VARIANT}, {"t": "daily", "variant": VARIANT}):
            await ann.send(msg)
            error = await ann.expect("error")
            assert error["code"] == "banned" and "a solver's moves" in error["message"]
            assert 0 < error["retry_ms"] <= 90 * 60_000
        assert await snapshot(redis) == snap
        # a private race still plays, but rates neither of them (a rating needs two)
        await ann.send({"t": "create", "variant": VARIANT, "players": 2, "private": True})
        code = (await ann.expect("joined"))["code"]
        await bob.send({"t": "join", "code": code})
        await bob.expect("joined")
        for bot in (ann, bob):
            await bot.send({"t": "ready"})
        await asyncio.gather(*(bot.expect("view") for bot in (ann, bob)))
        for bot in (ann, bob):
            await bot.send({"t": "resign", "seq": 1})
        results = await ann.expect("results", timeout=20)
        assert "ratings" not in results
        assert await redis.exists("user:{ann}:rh:" + VARIANT) == 0
    finally:
        await ann.close()
        await bob.close()


async def test_a_banned_address_is_refused_at_the_handshake(app: RaceServer, redis: Redis) -> None:
    await app.service.moderation.ban("addr", "127.0.0.1", "a flood of rooms", None, "op")
    snap = await snapshot(redis)
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url(app)):
            pass
    assert refused.value.response.status_code == 403
    assert b"banned for good: a flood of rooms" in refused.value.response.body
    assert await snapshot(redis) == snap
    await app.service.moderation.unban("addr", "127.0.0.1", "lifted", "op")
    async with connect(url(app)):
        pass


async def test_a_renamed_name_is_told_its_new_name(app: RaceServer, redis: Redis) -> None:
    rude, key = await claimed(app, "Rude1")
    await rude.close()
    await app.service.moderation.rename("Rude1", "Polite", "an insult", "op")
    snap = await snapshot(redis)
    for hello in ({"name": "rude1", "key": key}, {"name": "Rude1"}):
        async with connect(url(app)) as ws:
            await ws.send(protocol.encode({"t": "hello", "proto": protocol.PROTOCOL_VERSION, **hello}))
            error = _decode(await ws.recv())
            assert error["code"] == "renamed" and "'Polite'" in error["message"]
    gus = Bot(url(app), "gus")
    await gus.connect()
    await gus.send({"t": "claim", "name": "RUDE1"})
    assert (await gus.expect("error"))["code"] == "renamed"
    await gus.close()
    assert await snapshot(redis) == snap
    polite = Bot(url(app), "Polite")
    welcome = await polite.connect(key=key)
    assert welcome["identified"] == "Polite"
    await polite.close()


def _decode(frame: bytes | str) -> dict[str, Any]:
    from tests.support.bot import decode

    return decode(frame)


async def test_the_admin_api_refuses_without_its_token(app: RaceServer, redis: Redis) -> None:
    await claimed_close(app, "ann")
    snap = await snapshot(redis)
    paths = [("GET", "/admin/v1/queue"), ("POST", "/admin/v1/bans/name/ann?reason=x"),
             ("DELETE", "/admin/v1/bans/name/ann?reason=x"), ("POST", "/admin/v1/races/AB/void?reason=x"),
             ("GET", "/admin/v1/nowhere"), ("PUT", "/admin/v1/queue"), ("GET", "/admin/v1"),
             ("POST", "/admin/v1/names/ann/cheater?reason=x&junk=%ff")]
    answers = [await admin(app, method, path, token)
               for token in (None, "", "wrong", TOKEN + "x", TOKEN[:-1]) for method, path in paths]
    # ten wrong tokens, then the address waits: 401 each, then 429 each, whatever was asked
    assert [(status, body["code"]) for status, body in answers] == \
        [(401, "unauthorized")] * 10 + [(429, "rate_limited")] * (len(answers) - 10)
    assert await snapshot(redis) == snap


async def claimed_close(app: RaceServer, name: str) -> str:
    bot, key = await claimed(app, name)
    await bot.close()
    return key


async def test_the_admin_api_acts_with_its_token(app: RaceServer, redis: Redis) -> None:
    await claimed_close(app, "ann")
    status, ban = await admin(app, "POST", "/admin/v1/bans/name/Ann?reason=insults&minutes=30&by=kim")
    assert status == 200 and ban["target"] == "ann" and ban["until"] is not None
    status, listed = await admin(app, "GET", "/admin/v1/bans")
    assert [b["target"] for b in listed["bans"]] == ["ann"]
    snap = await snapshot(redis)
    for method, path, code in (("POST", "/admin/v1/bans/name/ann?minutes=30", 400),  # no reason
                               ("POST", "/admin/v1/bans/name/ann?reason=x&minutes=-1", 400),
                               ("POST", "/admin/v1/bans/user/ann?reason=x", 404),
                               ("GET", "/admin/v1/bans?limit=0", 400),
                               ("POST", "/admin/v1/races/NOPE/void?reason=x", 404),
                               ("GET", "/admin/v1/queue?x=1", 400),
                               ("PUT", "/admin/v1/queue", 405)):
        status, body = await admin(app, method, path)
        assert status == code, (method, path, body)
    assert await snapshot(redis) == snap
    status, gone = await admin(app, "DELETE", "/admin/v1/bans/name/ann?reason=served")
    assert status == 200 and gone["lifted"]
    status, log = await admin(app, "GET", "/admin/v1/audit?limit=5")
    assert [(e["action"], e["reason"], e["by"].split(" ")[0]) for e in log["entries"]] == \
        [("unban_name", "served", "api"), ("ban_name", "insults", "kim")]


async def test_the_admin_api_is_off_without_a_token_and_wrong_tokens_run_out(
        moderation_redis_url: str, redis: Redis) -> None:
    off = RaceServer(Settings(port=0, secret="s", **NO_ADDRESS_LIMITS), moderation_redis_url)
    await off.start()
    try:
        assert (await admin(off, "GET", "/admin/v1/queue"))[0] == 403
    finally:
        await off.close()
    on = RaceServer(Settings(port=0, secret="s", admin_token=TOKEN, admin_rate_per_2s=1000,
                             **NO_ADDRESS_LIMITS), moderation_redis_url)
    await on.start()
    try:
        statuses = [(await admin(on, "GET", "/admin/v1/queue", "wrong"))[0] for _ in range(12)]
        assert statuses[:10] == [401] * 10 and statuses[10:] == [429, 429]
        assert (await admin(on, "GET", "/admin/v1/queue"))[0] == 429  # the right one waits too
    finally:
        await on.close()


async def test_a_rated_race_is_noted_and_voided_through_the_api(app: RaceServer, redis: Redis) -> None:
    ann, _ = await claimed(app, "ann")
    bob, _ = await claimed(app, "bob")
    try:
        await ann.send({"t": "create", "variant": VARIANT, "players": 2, "private": True})
        code = (await ann.expect("joined"))["code"]
        await bob.send({"t": "join", "code": code})
        await bob.expect("joined")
        for bot in (ann, bob):
            await bot.send({"t": "ready"})
        await asyncio.gather(*(bot.expect("view") for bot in (ann, bob)))
        for bot in (ann, bob):
            await bot.send({"t": "resign", "seq": 1})
        results = await ann.expect("results", timeout=20)
        assert set(results["ratings"]) == {"ann", "bob"}
        noted = json.loads(await redis.get(f"mod:rated:{{{code}}}") or "null")
        assert sorted(noted.pop("names")) == ["ann", "bob"]
        assert noted == {"variant": VARIANT, "daily": None, "won": False}
        path = f"/admin/v1/races/{code.lower()}/void?reason=shared%20account"
        status, done = await admin(app, "POST", path)
        assert status == 200 and set(done["players"]) == {"ann", "bob"}
        for name in ("ann", "bob"):
            profile = await app.service.competition.profile(name)
            assert profile["ratings"][VARIANT]["races"] == 0
            assert abs(profile["ratings"][VARIANT]["value"]) < 1e-3  # a new rating's ordinal: 25 - 3 * 25/3
    finally:
        await ann.close()
        await bob.close()
