"""The admin API: moderation over HTTP under ``/admin/v1/`` (docs/reference/http-api.md,
docs/operations/moderation.md).

Its door checks, in this order and before anything is looked up: the
address's own budget of admin requests (429), that the server has a token at
all (403 ``admin_off``), the address's budget of wrong tokens (429), and the
token, ``Authorization: Bearer TOKEN``, compared in constant time (401). A
request refused at the door has read and written nothing, whatever its path,
method or query. Past the door every route calls the moderation service
(server/rooms/moderation.py), which checks all it needs before its first write.

The server's HTTP parser takes no request body, so an action's arguments are
query parameters (``POST /admin/v1/bans/name/ann?reason=...&minutes=60``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from ..ops import metrics
from ..ops.limits import AddressBook
from ..rooms.moderation import QUEUE_LIMIT, Moderation, ModerationError
from ..wire.errors import StoreUnavailable
from .http import PHRASES

PREFIX: Final = "/admin/v1"
MAX_BY: Final = 32  # characters of the ``by`` parameter (who acts: written in the audit log)
STATUS: Final = {"bad_field": 400, "not_found": 404, "conflict": 409, "full": 507}


def is_admin(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


class AdminError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_s: float | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.retry_s = status, code, message, retry_s


def answer(status: int, body: Any, retry_s: float | None = None) -> Response:
    payload = json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(payload))),
               ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Connection", "close")]
    if status == 401:
        headers.append(("WWW-Authenticate", 'Bearer realm="patience-admin"'))
    if retry_s is not None:
        headers.append(("Retry-After", str(max(1, math.ceil(retry_s)))))
    phrase = PHRASES.get(status, "Error" if status >= 400 else "OK")
    return Response(status, phrase, Headers(headers), payload)


def _refused(error: AdminError) -> Response:
    return answer(error.status, {"code": error.code, "message": error.message}, error.retry_s)


Query = dict[str, str]
Action = Callable[[Moderation, dict[str, str], Query, str], Awaitable[Any]]


@dataclass(frozen=True)
class AdminRoute:
    method: str
    template: str
    action: Action
    query: tuple[str, ...] = ()

    def match(self, segments: list[str]) -> dict[str, str] | None:
        parts = self.template.strip("/").split("/")
        if len(parts) != len(segments):
            return None
        params = {}
        for part, segment in zip(parts, segments, strict=True):
            if part.startswith("{"):
                params[part[1:-1]] = segment
            elif part != segment:
                return None
        return params


def _limit(q: Query) -> int:
    text = q.get("limit", "50")
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= QUEUE_LIMIT:
        raise AdminError(400, "bad_field", f"limit is a whole number from 1 to {QUEUE_LIMIT}")
    return int(text)


def _minutes(q: Query) -> int | None:
    text = q.get("minutes")
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise AdminError(400, "bad_field", "minutes is a whole number (absent: for good)")
    return int(text)


def _kind(p: dict[str, str]) -> str:
    if p["kind"] not in ("name", "addr"):
        raise AdminError(404, "not_found", "a ban is of a name or an addr")
    return p["kind"]


async def _queue(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return {"queue": await m.queue(_limit(q))}


async def _case(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.case(p["name"])


async def _bans(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return {"bans": await m.ban_list(_limit(q))}


async def _ban(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.ban(_kind(p), p["target"], q.get("reason", ""), _minutes(q), by)


async def _unban(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.unban(_kind(p), p["target"], q.get("reason", ""), by)


async def _rename(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.rename(p["name"], q.get("to", ""), q.get("reason", ""), by)


async def _cheater(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.cheater(p["name"], q.get("reason", ""), by)


async def _dismiss(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.dismiss(p["name"], q.get("reason", ""), by)


async def _void(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    return await m.void(p["code"], q.get("reason", ""), by)


async def _audit(m: Moderation, p: dict[str, str], q: Query, by: str) -> Any:
    before = q.get("before", "+")
    if before != "+" and not all(part.isdigit() for part in before.split("-", 1)):
        raise AdminError(400, "bad_field", "before is an audit entry's id (MS-N)")
    return {"entries": await m.audit_log(_limit(q), before)}


ACT: Final = ("reason", "by")
ROUTES: Final = (
    AdminRoute("GET", f"{PREFIX}/queue", _queue, ("limit",)),
    AdminRoute("GET", f"{PREFIX}/cases/{{name}}", _case),
    AdminRoute("GET", f"{PREFIX}/bans", _bans, ("limit",)),
    AdminRoute("POST", f"{PREFIX}/bans/{{kind}}/{{target}}", _ban, (*ACT, "minutes")),
    AdminRoute("DELETE", f"{PREFIX}/bans/{{kind}}/{{target}}", _unban, ACT),
    AdminRoute("POST", f"{PREFIX}/names/{{name}}/rename", _rename, (*ACT, "to")),
    AdminRoute("POST", f"{PREFIX}/names/{{name}}/cheater", _cheater, ACT),
    AdminRoute("POST", f"{PREFIX}/names/{{name}}/dismiss", _dismiss, ACT),
    AdminRoute("POST", f"{PREFIX}/races/{{code}}/void", _void, ACT),
    AdminRoute("GET", f"{PREFIX}/audit", _audit, ("limit", "before")),
)


def find(method: str, target: str) -> tuple[AdminRoute, dict[str, str], Query]:
    parts = urlsplit(target)
    try:
        segments = [unquote(s, errors="strict") for s in parts.path.strip("/").split("/")]
    except UnicodeDecodeError:
        raise AdminError(400, "bad_field", "the path is not UTF-8 once decoded") from None
    matched = [(r, p) for r in ROUTES if (p := r.match(segments)) is not None]
    if not matched:
        raise AdminError(404, "not_found", "no such admin path (docs/reference/http-api.md lists them)")
    route_params = next(((r, p) for r, p in matched if r.method == method), None)
    if route_params is None:
        raise AdminError(405, "bad_method", f"this path takes {', '.join(r.method for r, _ in matched)}")
    route, params = route_params
    try:
        asked = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query),
                         max_num_fields=len(route.query) + 1, errors="strict")
    except (ValueError, UnicodeDecodeError):
        raise AdminError(400, "bad_field", "the query string does not parse") from None
    unknown = sorted(set(asked) - set(route.query))
    if unknown or any(len(v) > 1 for v in asked.values()):
        raise AdminError(400, "bad_field", f"this path takes each of {', '.join(route.query) or 'nothing'} "
                         "at most once, and nothing else")
    return route, params, {k: v[0] for k, v in asked.items()}


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest()


class AdminApi:
    def __init__(self, moderation: Moderation, token: str, budget: AddressBook) -> None:
        """``budget``: this door's own per-address buckets (requests, and wrong tokens as guesses)."""
        self.moderation = moderation
        self._token = _digest(token) if token else None
        self.budget = budget

    async def answer(self, address: str, request: Request) -> Response:
        try:
            response = await self._answer(address, request)
        except AdminError as exc:
            response = _refused(exc)
        metrics.API_ANSWERS.labels(f"admin {response.status_code}").inc()
        return response

    def _door(self, address: str, request: Request) -> None:
        now = self.budget.clock()
        entry = self.budget.get(address)
        if not entry.messages.take(now):
            raise AdminError(429, "rate_limited", "too many admin requests from this address",
                             entry.messages.wait(now))
        if self._token is None:
            raise AdminError(403, "admin_off", "this server has no admin token: the admin API is off")
        if entry.guesses.wait(now) > 0:
            raise AdminError(429, "rate_limited", "too many wrong admin tokens from this address",
                             entry.guesses.wait(now))
        given = request.headers.get("Authorization", "")
        scheme, _, token = given.partition(" ")
        if not (scheme.lower() == "bearer" and hmac.compare_digest(_digest(token.strip()), self._token)):
            entry.guesses.take(now)
            raise AdminError(401, "unauthorized", "send the admin token: Authorization: Bearer TOKEN")

    async def _answer(self, address: str, request: Request) -> Response:
        self._door(address, request)
        route, params, query = find(request.method, request.path)
        by = query.get("by", "") or "api"
        if len(by) > MAX_BY or not by.isprintable():
            raise AdminError(400, "bad_field", f"by is at most {MAX_BY} printable characters")
        try:
            body = await route.action(self.moderation, params, query, f"{by} ({address})")
        except ModerationError as exc:
            raise AdminError(STATUS.get(exc.code, 400), exc.code, exc.message) from None
        except StoreUnavailable:
            raise AdminError(503, "store_unavailable", "the store is unreachable: try again",
                             1.0) from None
        return answer(200, body)
