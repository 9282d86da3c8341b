"""The read API's HTTP plumbing: ETags and 304s, refusals with Retry-After, and
how a request target finds its route (unknown paths and parameters refused)."""

from __future__ import annotations

import json

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.api.http import FINAL, Answer, ApiError, encode, etag_of, ok, refused
from server.api.routes import find


def request(path: str, **headers: str) -> Request:
    return Request(path, Headers([(k.replace("_", "-"), v) for k, v in headers.items()]))


def test_an_answer_carries_its_etag_and_cache_lifetime() -> None:
    answer = Answer({"b": 1, "a": [1, 2]}, FINAL)
    response = ok(request("/x"), answer)
    assert response.status_code == 200
    assert json.loads(response.body) == answer.body
    assert response.headers["ETag"] == etag_of(encode(answer.body))
    assert response.headers["Cache-Control"] == FINAL
    assert response.headers["Content-Type"] == "application/json"
    assert int(response.headers["Content-Length"]) == len(response.body)


def test_the_same_data_gives_the_same_etag_and_other_data_another() -> None:
    assert encode({"a": 1, "b": 2}) == encode({"b": 2, "a": 1})
    assert etag_of(encode({"a": 1})) != etag_of(encode({"a": 2}))


@pytest.mark.parametrize("sent", ['"{}"', 'W/"{}"', '"other", "{}"', "*"])
def test_if_none_match_naming_the_etag_is_answered_304_without_a_body(sent: str) -> None:
    answer = Answer({"a": 1}, FINAL)
    etag = ok(request("/x"), answer).headers["ETag"]
    response = ok(request("/x", If_None_Match=sent.format(etag.strip('"'))), answer)
    assert response.status_code == 304 and response.body == b""
    assert response.headers["ETag"] == etag


def test_a_stale_etag_gets_the_body() -> None:
    assert ok(request("/x", If_None_Match='"old"'), Answer({"a": 1}, FINAL)).status_code == 200


def test_a_refusal_is_json_never_cached_and_says_when_to_come_back() -> None:
    response = refused(ApiError(429, "rate_limited", "slow down", 0.2))
    assert response.status_code == 429
    assert json.loads(response.body) == {"code": "rate_limited", "message": "slow down"}
    assert response.headers["Retry-After"] == "1"  # whole seconds, rounded up, at least 1
    assert response.headers["Cache-Control"] == "no-store"
    assert "Retry-After" not in refused(ApiError(404, "no_room", "no")).headers


def test_a_target_finds_its_route_and_parameters() -> None:
    route, params, query = find("/api/v1/boards/rating/four-seasons?season=current&limit=5")
    assert route.template == "/api/v1/boards/{kind}/{variant}"
    assert params == {"kind": "rating", "variant": "four-seasons"}
    assert query == {"season": "current", "limit": "5"}
    _, params, _ = find("/api/v1/profiles/Ann%20Lee")
    assert params == {"name": "Ann Lee"}  # percent-decoded, one segment


@pytest.mark.parametrize(("target", "status"), [
    ("/api/v1/nothing", 404), ("/api/v1/boards/rating", 404), ("/api/v2/arenas", 404),
    ("/api/v1/arenas?x=1", 400),  # no parameter it does not take
    ("/api/v1/boards/rating/x?limit=1&limit=2", 400),  # none twice
    ("/api/v1/profiles/%ff", 400),  # not UTF-8
])
def test_unknown_paths_and_parameters_are_refused(target: str, status: int) -> None:
    with pytest.raises(ApiError) as caught:
        find(target)
    assert caught.value.status == status
