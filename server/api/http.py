"""The read API's answers as HTTP: JSON bodies, ETags, cache lifetimes and refusals.

An answer's ETag is a hash of its body, so it changes exactly when the body
does; a request whose ``If-None-Match`` names it gets 304 and no body. The
server keeps no copy of any answer: a 304 saves the client the bytes, not the
server the look-up (docs/reference/http-api.md says why that is enough).

Every answer closes its connection, as the browser page's files do: the port
is the websocket's, and an idle kept-alive HTTP connection would hold one of
the address's connection slots for nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Final

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

# Cache-Control per kind of resource (docs/reference/http-api.md has the table)
LIVE: Final = "public, max-age=5"  # boards, standings: they change with every result
SHORT: Final = "public, max-age=30"  # profiles, the day's commitment, a finished room's summary
FINAL: Final = "public, max-age=86400, immutable"  # a finished game's record or replay, a past day
SPEC: Final = "public, max-age=3600"  # the OpenAPI document (it changes with a release)
REFUSED: Final = "no-store"

PHRASES: Final = {200: "OK", 304: "Not Modified", 400: "Bad Request", 403: "Forbidden",
                  404: "Not Found", 405: "Method Not Allowed", 429: "Too Many Requests",
                  503: "Service Unavailable"}
# the refusals of the application layer (server/wire/errors.py's codes) as statuses
STATUS_OF_CODE: Final = {"bad_field": 400, "unknown_variant": 404, "no_room": 404, "no_arena": 404,
                         "no_daily": 404, "no_results": 403, "not_found": 404,
                         "rate_limited": 429, "join_wait": 429, "store_unavailable": 503}


@dataclass(frozen=True)
class Answer:
    """What a route hands back: the JSON body and how long it may be cached."""

    body: Any
    cache: str


class ApiError(Exception):
    """A refusal: its HTTP status, the protocol's error code and a sentence."""

    def __init__(self, status: int, code: str, message: str, retry_s: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_s = retry_s


def encode(body: Any) -> bytes:
    """Compact JSON, keys in a fixed order: the same data gives the same bytes (and ETag)."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def etag_of(payload: bytes) -> str:
    return '"' + hashlib.sha256(payload).hexdigest()[:32] + '"'


def _common(content_type: str, length: int) -> list[tuple[str, str]]:
    return [("Content-Type", content_type), ("Content-Length", str(length)),
            ("X-Content-Type-Options", "nosniff"), ("Access-Control-Allow-Origin", "*"),
            ("Connection", "close")]


def matches(request: Request, etag: str) -> bool:
    asked = request.headers.get("If-None-Match", "")
    tags = [tag.strip().removeprefix("W/") for tag in asked.split(",")]
    return etag in tags or "*" in tags


def ok(request: Request, answer: Answer) -> Response:
    payload = encode(answer.body)
    etag = etag_of(payload)
    cache = [("ETag", etag), ("Cache-Control", answer.cache)]
    if matches(request, etag):
        return Response(304, PHRASES[304], Headers([*cache, ("Content-Length", "0"),
                                                    ("Connection", "close")]), b"")
    return Response(200, PHRASES[200], Headers([*_common("application/json", len(payload)), *cache]),
                    payload)


def refused(error: ApiError) -> Response:
    payload = encode({"code": error.code, "message": error.message})
    headers = [*_common("application/json", len(payload)), ("Cache-Control", REFUSED)]
    if error.retry_s is not None:
        headers.append(("Retry-After", str(max(1, math.ceil(error.retry_s)))))
    return Response(error.status, PHRASES.get(error.status, "Error"), Headers(headers), payload)


def from_protocol(code: str, message: str) -> ApiError:
    return ApiError(STATUS_OF_CODE.get(code, 400), code, message)
