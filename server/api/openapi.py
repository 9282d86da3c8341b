"""The read API's OpenAPI 3.1 document, as data; served at /api/v1/openapi.json.

A test (tests/unit/api/test_openapi.py) holds its paths and parameters equal
to server/api/routes.py's routes, and the integration tests validate real
answers against its schemas: a route cannot change without this changing too.
"""

from __future__ import annotations

from typing import Any, Final

NAME_MAX: Final = 24  # server/wire/protocol.py's MAX_NAME_CHARS (a test holds them equal)

INT: Final = {"type": "integer"}
NAT: Final = {"type": "integer", "minimum": 0}
STR: Final = {"type": "string"}
BOOL: Final = {"type": "boolean"}
DATE: Final = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
HASH: Final = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def obj(required: dict[str, Any], optional: dict[str, Any] | None = None,
        closed: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "required": sorted(required),
                           "properties": {**required, **(optional or {})}}
    if closed:
        out["additionalProperties"] = False
    return out


RATING_ENTRY: Final = obj({"rank": NAT, "name": STR, "value": {"type": "number"},
                           "deviation": nullable({"type": "number"}), "races": NAT,
                           "provisional": BOOL})
WINS_ENTRY: Final = obj({"rank": NAT, "name": STR, "value": {"type": "number"}})
DAILY_ENTRY: Final = obj({"rank": NAT, "name": STR, "won": BOOL, "time_ms": NAT, "moves": NAT,
                          "foundation_cards": NAT})
BOARD_ENTRY: Final = {"anyOf": [ref("RatingEntry"), ref("WinsEntry")]}
SEASON: Final = nullable(DATE)
# a daily deal's difficulty grade (1 easy .. 4 hard, null: not graded) and the bots' par per
# level, level 1 first (docs/design/difficulty.md)
GRADE_AND_PARS: Final = {"difficulty": nullable(INT), "pars": {"type": "array", "items": NAT}}
REVEAL: Final = obj({"date": DATE, "day": INT, "deal": STR, "salt": STR, "commitment": STR,
                     "par": nullable(INT), "check": BOOL, **GRADE_AND_PARS},
                    {"log_head": nullable({"$ref": "#/components/schemas/LogLink"})})
RANKING: Final = obj({"place": NAT, "player": NAT, "name": STR, "won": BOOL, "status": STR,
                      "time_ms": nullable(NAT), "foundation_cards": NAT, "total_cards": NAT,
                      "moves": NAT, "bot": NAT},
                     {"bot_account": BOOL})  # results kept from before the mark lack it
ARENA_LINE: Final = obj({"rank": NAT, "name": STR, "points": NAT, "races": NAT, "wins": NAT,
                         "fire": BOOL, "claimed": BOOL})
ARENA_PHASE: Final = {"enum": ["upcoming", "running", "closing", "finished"]}
RATE: Final = nullable({"type": "number", "minimum": 0, "maximum": 1})
PROFILE_STATS: Final = obj({  # a claimed name's figures (docs/design/history.md)
    "races": NAT, "wins": NAT, "win_rate": RATE, "games": NAT,
    "played": obj({m: NAT for m in ("race", "arena", "daily", "ghost", "solo")}),
    "variants": {"type": "object", "additionalProperties": obj(
        {"races": NAT, "wins": NAT, "win_rate": RATE, "best_ms": nullable(NAT), "best_code": nullable(STR)})},
    "daily": obj({"played": NAT, "won": NAT, "last": {"type": "array", "items": obj(
        {"date": DATE, "variant": STR, "won": BOOL, "ranked": BOOL, "foundation_cards": NAT,
         "total_cards": NAT, "time_ms": nullable(NAT), "code": STR})}}),
    "arenas": obj({"played": NAT, "races": NAT, "wins": NAT})})

SCHEMAS: Final[dict[str, Any]] = {
    "Error": obj({"code": STR, "message": STR}),
    "RatingEntry": RATING_ENTRY,
    "WinsEntry": WINS_ENTRY,
    "DailyEntry": DAILY_ENTRY,
    "Seasons": obj({"current": obj({"id": DATE, "starts_at": INT, "ends_at": INT}),
                    "closed": {"type": "array", "items": DATE}}),
    "Board": obj({"kind": {"enum": ["rating", "wins"]}, "variant": STR, "season": SEASON,
                  "offset": NAT, "limit": NAT, "total": NAT,
                  "entries": {"type": "array", "items": BOARD_ENTRY}}),
    "BoardNear": obj({"kind": {"enum": ["rating", "wins"]}, "variant": STR, "season": SEASON,
                      "near": STR, "me": nullable(NAT), "offset": NAT, "total": NAT,
                      "entries": {"type": "array", "items": BOARD_ENTRY}}),
    "DailyBoard": obj({"kind": {"const": "daily"}, "variant": STR, "date": DATE, "offset": NAT,
                       "limit": NAT, "total": NAT,
                       "entries": {"type": "array", "items": ref("DailyEntry")}}),
    "DailyInfo": obj({"variant": STR, "date": DATE, "day": INT, "commitment": STR, "ends_at": INT,
                      "yesterday": nullable(REVEAL), **GRADE_AND_PARS}),
    "DailyDay": obj({"variant": STR, "date": DATE, "day": INT, "commitment": STR, "ends_at": INT,
                     "revealed": BOOL},
                    {"deal": STR, "salt": STR, "par": nullable(INT), "check": BOOL,
                     "log_head": nullable(ref("LogLink"))}),
    "Profile": obj({"name": STR, "claimed": BOOL,
                    "ratings": {"type": "object", "additionalProperties": obj(
                        {"value": {"type": "number"}, "deviation": {"type": "number"}, "races": NAT,
                         "provisional": BOOL,
                         "curve": {"type": "array", "items": {"type": "array", "minItems": 2,
                                                              "maxItems": 2,
                                                              "items": {"type": "number"}}}})},
                    "streaks": nullable(obj({"days": NAT, "best": NAT, "wins": NAT}))},
                   {"bot": BOOL, "stats": ref("ProfileStats")}),
    "ProfileStats": PROFILE_STATS,
    "Room": obj({"code": STR, "variant": STR, "deal": STR, "deal_version": STR,
                 "daily": nullable(DATE), "arena": nullable(STR),
                 "ranking": {"type": "array", "items": RANKING}},
                {"ranked": BOOL, "day": INT, "share": STR, "streaks": {"type": "object"},
                 "ratings": {"type": "object", "additionalProperties": {"type": "number"}},
                 "ratings_before": {"type": "object", "additionalProperties": {"type": "number"}},
                 "rating_variant": STR, "provisional": {"type": "array", "items": STR},
                 "bot_accounts": {"type": "array", "items": STR}}),
    "Record": obj({"code": STR, "player": NAT,
                   "record": obj({"variant": STR, "deal": STR, "deal_version": STR,
                                  "moves": {"type": "array", "items": STR},
                                  "ms": {"type": "array", "items": NAT}})}),
    "Replay": obj({"code": STR, "player": NAT, "index": NAT, "total": NAT, "move": nullable(STR),
                   "ms": nullable(NAT),
                   # the player's view (docs/reference/protocol.md): face-up cards only
                   "view": obj({"variant": STR, "status": STR, "stock_count": NAT,
                                "foundation_cards": NAT, "total_cards": NAT,
                                "piles": {"type": "object", "additionalProperties": {
                                    "type": "array", "items": STR}}}, closed=False)}),
    "Arenas": obj({"arenas": {"type": "array", "items": obj(
        {"id": STR, "name": STR, "variant": STR, "phase": ARENA_PHASE, "starts_at": INT,
         "ends_at": INT, "players": NAT, "group": NAT})}}),
    "Arena": obj({"id": STR, "name": STR, "variant": STR, "phase": ARENA_PHASE, "starts_at": INT,
                  "ends_at": INT, "group": NAT, "race_ms": NAT, "server_time": INT, "players": NAT,
                  "top": {"type": "array", "items": ARENA_LINE}}),
    "BotBoard": obj({"kind": {"const": "bots"}, "variant": STR, "offset": NAT, "limit": NAT,
                     "total": NAT, "entries": {"type": "array", "items": ref("RatingEntry")}}),
    "LogLink": obj({"seq": NAT, "hash": HASH}),
    "LogIndex": obj({"head": nullable(obj({"seq": NAT, "hash": HASH, "date": DATE})),
                     "days": {"type": "array", "items": obj({"date": DATE, "first": NAT, "last": NAT,
                                                              "hash": HASH})}}),
    "LogDay": obj({"date": DATE, "offset": NAT, "limit": NAT, "total": NAT,
                   "lines": {"type": "array", "items": STR}}),
}


def path_param(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": schema or STR}


def query_param(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": schema}


VARIANT: Final = path_param("variant", "a variant's id, name or alias (four-seasons)")
KIND: Final = path_param("kind", "rating or wins (daily wins)", {"enum": ["rating", "wins"]})
SEASON_Q: Final = query_param("season", "current, or a season's first day; none: all time", STR)
OFFSET_Q: Final = query_param("offset", "entries skipped", {"type": "integer", "minimum": 0,
                                                           "maximum": 100_000, "default": 0})
LIMIT_Q: Final = query_param("limit", "entries in the page", {"type": "integer", "minimum": 1,
                                                             "maximum": 100, "default": 20})
DATE_P: Final = path_param("date", "a day (UTC) whose deal or board is kept", DATE)
NAME_P: Final = path_param("name", "a player's name", {"type": "string", "minLength": 1,
                                                      "maxLength": NAME_MAX})
CODE_P: Final = path_param("code", "a room's code")
PLAYER_P: Final = path_param("player", "a seat of the room", {"type": "integer", "minimum": 1,
                                                               "maximum": 8})


def ok(schema: str, description: str) -> dict[str, Any]:
    return {"description": description, "headers": {
        "ETag": {"description": "a hash of the body; send it as If-None-Match", "schema": STR},
        "Cache-Control": {"description": "how long the answer may be kept", "schema": STR}},
        "content": {"application/json": {"schema": ref(schema)}}}


def refusal(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ref("Error")}}}


COMMON: Final = {
    "304": {"description": "If-None-Match named the current ETag: no body"},
    "400": refusal("a malformed parameter (bad_field)"),
    "429": {"description": "past the address's budget (rate_limited), or waiting after unknown "
                           "room codes (join_wait)",
            "headers": {"Retry-After": {"description": "seconds to wait", "schema": INT}},
            "content": {"application/json": {"schema": ref("Error")}}},
    "503": refusal("the store is unreachable (store_unavailable)"),
}


def get(summary: str, schema: str, parameters: list[dict[str, Any]], *,
        not_found: str = "", forbidden: str = "") -> dict[str, Any]:
    responses = {"200": ok(schema, summary), **COMMON}
    if not_found:
        responses["404"] = refusal(not_found)
    if forbidden:
        responses["403"] = refusal(forbidden)
    return {"get": {"summary": summary, "parameters": parameters, "responses": responses}}


PATHS: Final[dict[str, Any]] = {
    "/api/v1/openapi.json": {"get": {"summary": "this document", "parameters": [], "responses": {
        "200": {"description": "the OpenAPI document",
                "content": {"application/json": {"schema": {"type": "object"}}}}, **COMMON}}},
    "/api/v1/boards/{kind}/{variant}": get(
        "a page of a variant's rating or daily-wins board, of all time or of a season", "Board",
        [KIND, VARIANT, SEASON_Q, OFFSET_Q, LIMIT_Q], not_found="no such kind or variant"),
    "/api/v1/boards/{kind}/{variant}/near/{name}": get(
        "a name's rank on a board and the five entries above and below it", "BoardNear",
        [KIND, VARIANT, NAME_P, SEASON_Q], not_found="no such kind or variant"),
    "/api/v1/seasons": get(
        "the season under way with its bounds, and the newest 24 closed seasons (newest first)",
        "Seasons", []),
    "/api/v1/daily/{variant}": get(
        "today's commitment to the daily deal, and yesterday's deal revealed with its salt",
        "DailyInfo", [VARIANT], not_found="no such variant, or the server runs no daily (no_daily)"),
    "/api/v1/daily/{variant}/{date}": get(
        "a kept day's daily deal: a past day's revealed, today's commitment only", "DailyDay",
        [VARIANT, DATE_P], not_found="no such variant, or no deal kept for that day"),
    "/api/v1/daily/{variant}/{date}/board": get(
        "a page of a day's daily board", "DailyBoard", [VARIANT, DATE_P, OFFSET_Q, LIMIT_Q],
        not_found="no such variant"),
    "/api/v1/profiles/{name}": get(
        "a name's ratings per variant with their curves, its streaks and its figures (claimed "
        "false: nobody holds the name)", "Profile", [NAME_P]),
    "/api/v1/rooms/{code}": get(
        "a finished race's results with its deal", "Room", [CODE_P],
        not_found="no room has the code (no_room; the address then waits before its next code)",
        forbidden="the race has no results yet, or its day or arena is not over (no_results)"),
    "/api/v1/rooms/{code}/records/{player}": get(
        "one player's game record of a finished race (patience-server verify replays it)",
        "Record", [CODE_P, PLAYER_P], not_found="no room has the code (no_room)",
        forbidden="the race has no results yet, or its day or arena is not over (no_results)"),
    "/api/v1/rooms/{code}/replays/{player}": get(
        "one player's view after index entries of the record", "Replay",
        [CODE_P, PLAYER_P, query_param("index", "entries of the record played (clamped to it)",
                                       {"type": "integer", "minimum": 0, "default": 0})],
        not_found="no room has the code (no_room)",
        forbidden="the race has no results yet, or its day or arena is not over (no_results)"),
    "/api/v1/arenas": get("the arenas to come, running, and finished ones kept", "Arenas", []),
    "/api/v1/arenas/{id}": get("an arena's standing: its first ten lines", "Arena",
                               [path_param("id", "an arena's id")], not_found="no such arena"),
    "/api/v1/log": get(
        "the results log's head and its days (patience-server verify-log reads the log from here)",
        "LogIndex", []),
    "/api/v1/log/{date}": get(
        "a page of one day's lines of the results log, oldest first (docs/reference/results-log.md)",
        "LogDay", [path_param("date", "a day (UTC) of the log", DATE), OFFSET_Q,
                   query_param("limit", "lines in the page", {"type": "integer", "minimum": 1,
                                                               "maximum": 100, "default": 20})],
        forbidden="the day is not over (its daily deals are secret until then: no_results)"),
    "/api/v1/bots/{variant}": get(
        "a page of a variant's bots' rating board (bot accounts only: docs/design/bot-accounts.md)",
        "BotBoard", [VARIANT, OFFSET_Q, LIMIT_Q], not_found="no such variant"),
}

DOCUMENT: Final[dict[str, Any]] = {
    "openapi": "3.1.0",
    "info": {"title": "Patience Race read API", "version": "1",
             "description": "Boards, profiles, finished games, the daily deal's commitments and "
                            "reveals, arena standings and the results log, as any player may see "
                            "them. GET only; JSON; every answer has an ETag and a Cache-Control; "
                            "each client address has a budget of requests (429 with Retry-After "
                            "past it)."},
    "servers": [{"url": "/"}],
    "paths": PATHS,
    "components": {"schemas": SCHEMAS},
}
