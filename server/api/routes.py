"""The public read API: every route, what it reads and how long it may be cached.

Each route reads the application layer only (server/rooms/), as a websocket
handler does, and answers what the matching websocket message would show,
under the same rules: a room's games once it has results (a daily's once its
day is over, an arena race's once the arena is over), a day's deal once the
day is over, boards, profiles and standings as any player sees them. Nothing
here writes to the store, and no answer holds a resume token, a name's key,
a client's address or the stock's order (docs/reference/http-api.md).

:data:`ROUTES` is the one list of routes; server/api/openapi.py describes
each, and a test holds the two equal.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qs, unquote, urlsplit

from ..game.variants import UnknownVariant, get_rules
from ..race.rows import RoomRow
from ..rooms.arenas import ArenaRunner
from ..rooms.competition import DATE, board_date
from ..rooms.ladder import LADDER_KINDS
from ..rooms.player import clean_name
from ..rooms.replays import public_results, public_room, replay_message, replayed, seat_of
from ..rooms.service import RoomService
from ..wire.protocol import MAX_NAME_CHARS
from .http import FINAL, LIVE, SHORT, SPEC, Answer, ApiError
from .openapi import DOCUMENT

PREFIX: Final = "/api/v1"
PAGE_DEFAULT: Final = 20
PAGE_MAX: Final = 100  # entries in one page of a board, as the websocket's board message
OFFSET_MAX: Final = 100_000  # the furthest page start, as the websocket's board message
INDEX_MAX: Final = 2**31
ROOM_CODE: Final = re.compile(r"[A-Z0-9]{1,16}", re.ASCII)
ARENA_ID: Final = re.compile(r"[A-Z0-9]{1,16}", re.ASCII)
MAX_PLAYER: Final = 8
SEASONS_LISTED: Final = 24  # closed seasons named by /seasons, newest first


class Reads:
    """What the routes read: the application layer and the arenas' runner."""

    def __init__(self, service: RoomService, arenas: ArenaRunner,
                 room_miss: Callable[[], object]) -> None:
        self.service = service
        self.arenas = arenas
        # counts a room code that names no room against the asking address (the
        # websocket's join penalty: guessing codes over HTTP costs the same)
        self.room_miss = room_miss


Handler = Callable[[Reads, dict[str, str], dict[str, str]], Awaitable[Answer]]


@dataclass(frozen=True)
class Route:
    template: str  # the OpenAPI path: /api/v1/boards/{kind}/{variant}
    handler: Handler
    query: tuple[str, ...] = ()  # the query parameters it takes (any other is a 400)

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.template.strip("/").split("/"))

    def match(self, segments: list[str]) -> dict[str, str] | None:
        parts = self.parts
        if len(parts) != len(segments):
            return None
        params: dict[str, str] = {}
        for part, segment in zip(parts, segments, strict=True):
            if part.startswith("{"):
                params[part[1:-1]] = segment
            elif part != segment:
                return None
        return params


# -- parameters ------------------------------------------------------------------------------
def number(query: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    text = query.get(name)
    if text is None:
        return default
    if not re.fullmatch(r"[0-9]{1,10}", text, re.ASCII) or not low <= int(text) <= high:
        raise ApiError(400, "bad_field", f"{name} is a whole number from {low} to {high}")
    return int(text)


def variant_of(text: str) -> str:
    try:
        return get_rules(text).spec.id
    except UnknownVariant as exc:
        raise ApiError(404, "unknown_variant", str(exc)) from None


def name_of(text: str) -> str:
    if not text or len(text) > MAX_NAME_CHARS:
        raise ApiError(400, "bad_field", f"a name has 1 to {MAX_NAME_CHARS} characters")
    return clean_name(text)


def page(query: dict[str, str]) -> tuple[int, int]:
    return (number(query, "offset", 0, 0, OFFSET_MAX),
            number(query, "limit", PAGE_DEFAULT, 1, PAGE_MAX))


def kind_of(text: str) -> str:
    if text not in LADDER_KINDS:
        raise ApiError(404, "not_found", f"a board is one of {', '.join(LADDER_KINDS)} "
                       "(a day's board: /api/v1/daily/{variant}/{date}/board)")
    return text


# -- the routes ------------------------------------------------------------------------------
async def openapi(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    return Answer(DOCUMENT, SPEC)


async def board(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    kind, variant = kind_of(p["kind"]), variant_of(p["variant"])
    ladder = reads.service.competition.ladder
    season = ladder.season_of(q.get("season"))
    offset, limit = page(q)
    entries, total = await ladder.page(kind, variant, season, offset, limit)
    return Answer({"kind": kind, "variant": variant, "season": None if season == "alltime" else season,
                   "offset": offset, "limit": limit, "total": total, "entries": entries}, LIVE)


async def board_near(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    kind, variant, who = kind_of(p["kind"]), variant_of(p["variant"]), name_of(p["name"])
    ladder = reads.service.competition.ladder
    season = ladder.season_of(q.get("season"))
    me, entries, total = await ladder.near(kind, variant, season, who)
    return Answer({"kind": kind, "variant": variant, "season": None if season == "alltime" else season,
                   "near": who, "me": me, "offset": entries[0]["rank"] - 1 if entries else 0,
                   "total": total, "entries": entries}, LIVE)


async def seasons(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    return Answer(await reads.service.competition.ladder.season_list(SEASONS_LISTED), LIVE)


async def daily_today(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    info = await reads.service.competition.info(variant_of(p["variant"]))
    info.pop("t", None)
    return Answer(info, SHORT)


async def daily_day(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    competition = reads.service.competition
    variant = variant_of(p["variant"])
    date = board_date(p["date"], competition.today())
    day = await competition.day(date, variant)
    if day is None:
        raise ApiError(404, "no_daily", f"no daily deal of {variant} is kept for {date}")
    return Answer(day, FINAL if day["revealed"] else SHORT)


async def daily_board(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    competition = reads.service.competition
    variant = variant_of(p["variant"])
    date = board_date(p["date"], competition.today())
    offset, limit = page(q)
    entries, total = await competition.daily_board(date, variant, offset, limit,
                                                   get_rules(variant).spec.total_cards)
    return Answer({"kind": "daily", "variant": variant, "date": date, "offset": offset, "limit": limit,
                   "total": total, "entries": entries}, LIVE)


async def profile(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    out = await reads.service.competition.profile(name_of(p["name"]))
    out.pop("t", None)
    return Answer(out, SHORT)


async def _public_room(reads: Reads, text: str, what: str) -> RoomRow:
    code = text.strip().upper()
    room = await reads.service.room(code) if ROOM_CODE.fullmatch(code) else None
    if room is None:
        reads.room_miss()
        raise ApiError(404, "no_room", f"no room has the code {code[:16]!r}")
    return await public_room(reads.service, room, what)


def player_of(text: str) -> int:
    if not re.fullmatch(r"[1-9]", text, re.ASCII) or int(text) > MAX_PLAYER:
        raise ApiError(400, "bad_field", f"player is a seat number from 1 to {MAX_PLAYER}")
    return int(text)


async def room(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    found = await _public_room(reads, p["code"], "a room's results are available")
    return Answer(public_results(found), FINAL)


async def record(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    found = await _public_room(reads, p["code"], "records are available")
    n = player_of(p["player"])
    seat_of(found, n)
    moves = await reads.service.moves(found.code, n)
    return Answer({"code": found.code, "player": n,
                   "record": {"variant": found.variant, "deal": found.deal, "deal_version": "deal_v1",
                              "moves": [t for _, t in moves], "ms": [ms for ms, _ in moves]}}, FINAL)


async def replay(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    found = await _public_room(reads, p["code"], "a replay is available")
    n = player_of(p["player"])
    game = await replayed(reads.service, found, n)
    message = replay_message(found, n, game, number(q, "index", 0, 0, INDEX_MAX))
    message.pop("t", None)
    return Answer(message, FINAL)


async def arenas(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    return Answer({"arenas": await reads.arenas.listing()}, LIVE)


async def arena(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    arena_id = p["id"].strip().upper()
    d = await reads.arenas.definition(arena_id) if ARENA_ID.fullmatch(arena_id) else None
    if d is None:
        raise ApiError(404, "no_arena", f"no arena has the id {arena_id[:16]!r}")
    standing = await reads.arenas.standing(d, [])
    out = {k: v for k, v in standing.items() if k not in ("t", "mine")}
    return Answer(out, FINAL if out["phase"] == "finished" else LIVE)


def log_date(text: str) -> str:
    try:
        return dt.date.fromisoformat(text).isoformat() if DATE.fullmatch(text) else ""
    except ValueError:
        return ""


async def log_index(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    return Answer(await reads.service.competition.results_log.index(), LIVE)


async def log_day(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    competition = reads.service.competition
    date = log_date(p["date"])
    if not date:
        raise ApiError(400, "bad_field", "date is a day, YYYY-MM-DD")
    if date >= competition.today():  # its ranked dailies' games would give the day's deal away
        raise ApiError(403, "no_results", "a day's lines are served once the day is over (the daily "
                       "deals played that day are secret until then)")
    offset, limit = page(q)
    lines, total, closed = await competition.results_log.page(date, offset, limit)
    # a day before the log's last never gets another line (a void or a rename is a line of its own day)
    return Answer({"date": date, "offset": offset, "limit": limit, "total": total, "lines": lines},
                  FINAL if closed else LIVE)


async def bot_board(reads: Reads, p: dict[str, str], q: dict[str, str]) -> Answer:
    variant = variant_of(p["variant"])
    offset, limit = page(q)
    entries, total = await reads.service.competition.bot_accounts.board(variant, offset, limit)
    return Answer({"kind": "bots", "variant": variant, "offset": offset, "limit": limit, "total": total,
                   "entries": entries}, LIVE)


ROUTES: Final = (
    Route(f"{PREFIX}/openapi.json", openapi),
    Route(f"{PREFIX}/boards/{{kind}}/{{variant}}", board, ("season", "offset", "limit")),
    Route(f"{PREFIX}/boards/{{kind}}/{{variant}}/near/{{name}}", board_near, ("season",)),
    Route(f"{PREFIX}/seasons", seasons),
    Route(f"{PREFIX}/daily/{{variant}}", daily_today),
    Route(f"{PREFIX}/daily/{{variant}}/{{date}}", daily_day),
    Route(f"{PREFIX}/daily/{{variant}}/{{date}}/board", daily_board, ("offset", "limit")),
    Route(f"{PREFIX}/profiles/{{name}}", profile),
    Route(f"{PREFIX}/rooms/{{code}}", room),
    Route(f"{PREFIX}/rooms/{{code}}/records/{{player}}", record),
    Route(f"{PREFIX}/rooms/{{code}}/replays/{{player}}", replay, ("index",)),
    Route(f"{PREFIX}/arenas", arenas),
    Route(f"{PREFIX}/arenas/{{id}}", arena),
    Route(f"{PREFIX}/log", log_index),
    Route(f"{PREFIX}/log/{{date}}", log_day, ("offset", "limit")),
    Route(f"{PREFIX}/bots/{{variant}}", bot_board, ("offset", "limit")),
)


def find(target: str) -> tuple[Route, dict[str, str], dict[str, str]]:
    """The route of a request target with its path and query parameters; an
    unknown path is 404, an unknown or repeated query parameter 400."""
    parts = urlsplit(target)
    try:
        segments = [unquote(s, errors="strict") for s in parts.path.strip("/").split("/")]
    except UnicodeDecodeError:
        raise ApiError(400, "bad_field", "the path is not UTF-8 once decoded") from None
    for route in ROUTES:
        params = route.match(segments)
        if params is None:
            continue
        try:
            asked = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query),
                             max_num_fields=len(route.query) + 1)
        except ValueError:
            raise ApiError(400, "bad_field", "the query string does not parse") from None
        unknown = sorted(set(asked) - set(route.query))
        if unknown:
            raise ApiError(400, "bad_field", f"no query parameter {unknown[0][:32]!r} here "
                           f"(this path takes: {', '.join(route.query) or 'none'})")
        if any(len(v) > 1 for v in asked.values()):
            raise ApiError(400, "bad_field", "a query parameter is given once")
        return route, params, {k: v[0] for k, v in asked.items()}
    raise ApiError(404, "not_found", "no such path: the routes are listed in /api/v1/openapi.json")
