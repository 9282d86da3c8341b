"""The admin API fuzzed on a real store: random methods, paths built from its
routes with odd segments, odd queries and odd tokens. Without the token every
request is 401 and the store is untouched; with it, no request ever gets a 500
or logs an error, and every refusal leaves the whole store as it was."""

from __future__ import annotations

import random
from typing import Any

from redis.asyncio import Redis
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.api.admin import ROUTES, AdminApi
from server.ops.limits import AddressBook, Limits
from server.rooms.service import RoomService
from tests.support.errorlogs import no_error_records

from .conftest import claim, snapshot

TOKEN = "z" * 40
SEGMENTS = ["ann", "bob", "ANN", "name", "addr", "127.0.0.1", "2001:db8::1", "%ff", "%00", "x" * 40,
            "..", "", "%2F", "caf%C3%A9", "AB12CD", "NOPE", "-1"]
VALUES = ["", "x", "a reason", "%ff", "0", "-5", "99999999999", "1e3", "60", "ann", "bob", "zed", "\u00e9",
          "x" * 600, "+", "1-1", "%00"]
PARAMS = ["reason", "by", "minutes", "to", "limit", "before", "junk"]


def target(rng: random.Random) -> tuple[str, str]:
    """A method and a path: the route's own method mostly, else any."""
    route = rng.choice(ROUTES)
    parts = [rng.choice(SEGMENTS) if p.startswith("{") and rng.random() < 0.9 else p
             for p in route.template.split("/")]
    if rng.random() < 0.1:
        parts.append(rng.choice(SEGMENTS))
    names = list(dict.fromkeys(q for q in route.query if rng.random() < 0.7))
    if rng.random() < 0.15:
        names.append(rng.choice(PARAMS))
    values = {"reason": ["a reason"] * 4, "minutes": ["60", "5"], "limit": ["10", "200"]}
    query = "&".join(f"{n}={rng.choice(values.get(n, []) + VALUES)}" for n in names)
    odd = ["GET", "POST", "DELETE", "PUT", "HEAD", "get"]
    method = route.method if rng.random() < 0.8 else rng.choice(odd)
    return method, "/".join(parts) + (f"?{query}" if query else "")


def request(rng: random.Random, auth: str | None) -> Request:
    method, path = target(rng)
    return Request(path, Headers([("Authorization", auth)] if auth is not None else []), method)


async def test_the_admin_api_fuzzed(service: RoomService, redis: Redis) -> None:
    rng = random.Random(32)
    for name in ("ann", "bob"):
        await claim(service, name)
    api = AdminApi(service.moderation, TOKEN,
                   AddressBook(Limits(messages_per_2s=10**6, guesses_per_hour=10**6)))
    statuses: dict[int, int] = {}
    with no_error_records():
        before = await snapshot(redis)
        for i in range(300):
            wrong = rng.choice([None, "", "Bearer", f"Bearer {TOKEN[:-1]}", f"bearer  {TOKEN}x", "Basic zzz"])
            answer = await api.answer(f"10.0.{i % 7}.1", request(rng, wrong))
            assert answer.status_code == 401
        assert await snapshot(redis) == before
        for _ in range(150):
            answer = await api.answer("10.1.0.1", request(rng, f"Bearer {TOKEN}"))
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            assert answer.status_code in (200, 400, 404, 405, 409), answer.body
            after: dict[bytes, Any] = await snapshot(redis)
            if answer.status_code != 200:
                assert after == before, (answer.status_code, answer.body)
            before = after
    assert statuses.get(200, 0) > 10 and statuses.get(400, 0) > 10  # both ways were exercised
