"""The admin API's door and routes without a server (server/api/admin.py): every
request without the token is refused before any path is looked at."""

from __future__ import annotations

from typing import Any, cast

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.api.admin import ROUTES, AdminApi, AdminError, find
from server.ops.limits import AddressBook, Limits
from server.rooms.moderation import Moderation

TOKEN = "t" * 32


class Tick:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Untouchable:
    """Stands for the moderation service: any use of it fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the door let a request reach moderation.{name}")


def api(token: str = TOKEN, rate: int = 1000) -> tuple[AdminApi, Tick]:
    tick = Tick()
    book = AddressBook(Limits(messages_per_2s=rate, guesses_per_hour=30), clock=tick)
    return AdminApi(cast(Moderation, Untouchable()), token, book), tick


def request(method: str, path: str, auth: str | None = None) -> Request:
    headers = Headers([("Authorization", auth)] if auth is not None else [])
    return Request(path, headers, method)


@pytest.mark.parametrize("auth", [None, "", "Bearer", f"Basic {TOKEN}", f"Bearer {TOKEN[:-1]}",
                                  f"Bearer {TOKEN}x", "Bearer " + "\u00e9" * 32])
@pytest.mark.parametrize(("method", "path"), [("GET", "/admin/v1/queue"), ("DELETE", "/admin/v1/bans/name/a"),
                                              ("POST", "/admin/v1/races/X/void?reason=r"),
                                              ("PATCH", "/admin/v1/%ff"), ("GET", "/admin/v1")])
async def test_without_the_token_every_request_is_401(auth: str | None, method: str, path: str) -> None:
    door, _ = api()
    answer = await door.answer("10.0.0.1", request(method, path, auth))
    assert answer.status_code == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")


async def test_without_a_configured_token_the_api_is_off() -> None:
    door, _ = api(token="")
    for auth in (None, f"Bearer {TOKEN}", "Bearer "):
        assert (await door.answer("10.0.0.1", request("GET", "/admin/v1/queue", auth))).status_code == 403


async def test_wrong_tokens_run_out_for_the_address_only() -> None:
    door, tick = api()
    statuses = [(await door.answer("10.0.0.1", request("GET", "/admin/v1/x", "Bearer no"))).status_code
                for _ in range(11)]
    assert statuses == [401] * 10 + [429]
    right = await door.answer("10.0.0.1", request("GET", "/admin/v1/nowhere", f"Bearer {TOKEN}"))
    assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0
    other = await door.answer("10.0.0.2", request("GET", "/admin/v1/nowhere", f"Bearer {TOKEN}"))
    assert other.status_code == 404
    tick.now += 3600  # an hour later the address has its guesses back
    later = await door.answer("10.0.0.1", request("GET", "/admin/v1/nowhere", f"Bearer {TOKEN}"))
    assert later.status_code == 404


async def test_the_requests_budget_comes_first() -> None:
    door, _ = api(rate=4)
    statuses = [(await door.answer("10.0.0.1", request("GET", "/admin/v1/x", f"Bearer {TOKEN}"))).status_code
                for _ in range(5)]
    assert statuses == [404] * 4 + [429]


def test_routes_methods_and_parameters() -> None:
    route, params, query = find("POST", "/admin/v1/bans/name/Ann%20B?reason=x&minutes=5")
    assert route.template.endswith("{kind}/{target}") and params == {"kind": "name", "target": "Ann B"}
    assert query == {"reason": "x", "minutes": "5"}
    for method, path, status in (("PUT", "/admin/v1/queue", 405), ("GET", "/admin/v1/queue?x=1", 400),
                                 ("GET", "/admin/v1/queue?limit=1&limit=2", 400),
                                 ("GET", "/admin/v1/cases/%ff", 400), ("GET", "/admin/v2/queue", 404)):
        with pytest.raises(AdminError) as refused:
            find(method, path)
        assert refused.value.status == status, path
    assert len({(r.method, r.template) for r in ROUTES}) == len(ROUTES)
