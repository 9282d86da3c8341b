"""Bad input: each gets its error code (or close code) and changes nothing stored."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect

from server.game import engine
from server.game.moves import IllegalMove
from server.wire.protocol import MAX_FRAME_BYTES, encode
from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    closed_with,
    move_log,
    player_row,
    race,
    room_snapshot,
    seat,
    states_of,
    txt,
    ws_url,
)


@dataclass
class Racing:
    """A two-player race in progress; ``bot`` is the one sending bad input."""

    bot: Bot
    other: Bot
    code: str
    rdb: aioredis.Redis

    async def snapshot(self) -> dict[str, Any]:
        return await room_snapshot(self.rdb, self.code)

    async def error(self, message: dict[str, Any] | bytes | str, code: str) -> dict[str, Any]:
        """Send one bad message; expect exactly one error with ``code`` and nothing changed."""
        before = await self.snapshot()
        if isinstance(message, dict):
            await self.bot.send(message)
        else:
            assert self.bot.ws is not None
            await self.bot.ws.send(message)
        answer = await self.bot.expect("error")
        assert answer["code"] == code, answer
        await self.still_alive()
        assert await self.snapshot() == before
        return answer

    async def still_alive(self) -> None:
        await self.bot.send({"t": "ping"})
        await self.bot.expect("pong")


@pytest.fixture
async def racing(url: str, rdb: aioredis.Redis) -> AsyncIterator[Racing]:
    bots, code = await race([url, url])
    await bots[0].move(bots[0].choose() or "draw")  # a stored move to protect
    yield Racing(bots[0], bots[1], code, rdb)
    await close_all(bots)


# -- frames -------------------------------------------------------------------------------------
async def test_a_frame_over_8_kib_closes_1009(racing: Racing) -> None:
    before = await move_log(racing.rdb, racing.code, 1)
    big = encode({"t": "move", "seq": 9, "move": "draw", "v": 1, "pad": "x" * MAX_FRAME_BYTES})
    assert racing.bot.ws is not None
    await racing.bot.ws.send(big)
    assert await closed_with(racing.bot) == 1009
    assert await move_log(racing.rdb, racing.code, 1) == before
    assert (await player_row(racing.rdb, racing.code, 1))["v"] == "1"


async def test_a_text_frame_is_bad_frame(racing: Racing) -> None:
    await racing.error('{"t": "ping"}', "bad_frame")


async def test_malformed_msgpack_is_bad_frame(racing: Racing) -> None:
    await racing.error(b"\xc1\xff\x00", "bad_frame")
    await racing.error(b"\x85\xa1t", "bad_frame")  # truncated map


async def test_msgpack_that_is_not_a_map_is_bad_frame(racing: Racing) -> None:
    await racing.error(msgpack.packb(["move", 1, "draw"]), "bad_frame")
    await racing.error(msgpack.packb({"type": "move"}), "bad_frame")  # no 't'
    await racing.error(msgpack.packb({"t": 7}), "bad_frame")  # 't' not a string


async def test_an_unknown_type_is_unknown_type(racing: Racing) -> None:
    await racing.error({"t": "teleport"}, "unknown_type")
    await racing.error({"t": "on_move"}, "unknown_type")
    await racing.error({"t": "_takeover", "player": 2, "session": "x"}, "unknown_type")


@pytest.mark.parametrize("message", [
    {"t": "move", "seq": "2", "move": "draw", "v": 1},  # seq as a string
    {"t": "move", "seq": True, "move": "draw", "v": 1},  # a bool is not an int
    {"t": "move", "seq": 2, "move": "draw", "v": False},
    {"t": "move", "seq": 2, "move": 5, "v": 1},
    {"t": "move", "seq": 2, "v": 1},  # missing move
    {"t": "move", "seq": -1, "move": "draw", "v": 1},
    {"t": "move", "seq": 2**40, "move": "draw", "v": 1},
    {"t": "move", "seq": 2, "move": "d" * 33, "v": 1},
    {"t": "move", "seq": 2.0, "move": "draw", "v": 1},
    {"t": "resign", "seq": [2]},
    {"t": "record", "player": 9},
    {"t": "join", "code": {"a": 1}},
])
async def test_wrong_field_types_are_bad_field(racing: Racing, message: dict[str, Any]) -> None:
    await racing.error(message, "bad_field")


async def test_bad_fields_before_a_room_are_bad_field(url: str) -> None:
    bot = Bot(url)
    try:
        await bot.connect()
        for message in ({"t": "create", "variant": "four-seasons", "players": True},
                        {"t": "create", "variant": "four-seasons", "players": 9},
                        {"t": "create", "variant": "four-seasons", "private": 1},
                        {"t": "create", "variant": b"four-seasons"}):
            await bot.send(message)
            assert (await bot.expect("error"))["code"] == "bad_field", message
        assert not any(m["t"] == "joined" for m in bot.inbox)
    finally:
        await bot.close()


# -- hello ---------------------------------------------------------------------------------------
async def bare(url: str, name: str = "bot") -> Bot:
    """A bot connected without its hello."""
    bot = Bot(url, name)
    bot.ws = await connect(url, compression=None)
    return bot


async def test_an_old_protocol_version_is_old_protocol(url: str) -> None:
    bot = await bare(url)
    try:
        await bot.send({"t": "hello", "proto": 0, "name": "old"})
        answer = await bot.expect("error")
        assert answer["code"] == "old_protocol" and "upgrade" in answer["message"]
        await bot.send({"t": "create", "variant": "four-seasons"})
        assert (await bot.expect("error"))["code"] == "hello_first"
    finally:
        await bot.close()


async def test_messages_before_hello_are_hello_first(url: str) -> None:
    bot = await bare(url)
    try:
        for message in ({"t": "create", "variant": "four-seasons"}, {"t": "join", "code": "ABCDEF"},
                        {"t": "move", "seq": 1, "move": "draw", "v": 0}, {"t": "ready"}):
            await bot.send(message)
            assert (await bot.expect("error"))["code"] == "hello_first", message
        await bot.send({"t": "hello", "proto": 1})
        await bot.expect("welcome")
        await bot.send({"t": "hello", "proto": 1})  # hello only once
        assert (await bot.expect("error"))["code"] == "hello_first"
    finally:
        await bot.close()


# -- moves ---------------------------------------------------------------------------------------
async def test_an_illegal_move_gets_the_engines_reason_and_changes_nothing(racing: Racing) -> None:
    assert racing.bot.view is not None
    legal = set(racing.bot.view["legal_moves"])
    # the true position, to ask the engine itself why a move is illegal
    state = states_of({"variant": "four-seasons", "deal": await _deal(racing),
                       "moves": await move_log(racing.rdb, racing.code, 1)})[-1]
    for text in ("w-t1", "t1-t2", "t5-f1", "f1-t1", "redeal", "s-t1"):
        if text in legal:
            continue
        try:
            engine.play(state, text)
            continue
        except IllegalMove as exc:
            reason = str(exc)
        answer = await racing.error({"t": "move", "seq": 50, "move": text, "v": 1}, "illegal_move")
        assert answer["message"] == reason and answer["seq"] == 50
        racing.bot.seq = 50
        assert (await player_row(racing.rdb, racing.code, 1))["v"] == "1"
        return
    raise AssertionError("no illegal move found to try")


async def _deal(racing: Racing) -> str:
    return txt(await racing.rdb.hget(f"room:{{{racing.code}}}:meta", "deal"))


async def test_bad_move_text_is_bad_move(racing: Racing) -> None:
    answer = await racing.error({"t": "move", "seq": 5, "move": "zz-top", "v": 1}, "bad_move")
    assert answer["seq"] == 5
    await racing.error({"t": "move", "seq": 6, "move": "t1-t1", "v": 1}, "bad_move")


async def test_moves_before_the_start_are_not_started(make_server: ServerFactory,
                                                      rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(countdown_ms=1500))
    bots, code = await seat([url, url])
    try:
        await bots[0].send({"t": "move", "seq": 1, "move": "draw", "v": 0})
        assert (await bots[0].expect("error"))["code"] == "not_started"  # in the lobby
        for bot in bots:
            await bot.send({"t": "ready"})
        await bots[0].expect("room", phase="countdown")
        before = await room_snapshot(rdb, code)
        await bots[0].send({"t": "move", "seq": 2, "move": "draw", "v": 0})
        assert (await bots[0].expect("error"))["code"] == "not_started"  # in the countdown
        assert await room_snapshot(rdb, code) == before
        assert not any(m["t"] == "view" for m in bots[0].inbox)
    finally:
        await close_all(bots)


async def test_moves_after_the_end_are_race_over(make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(race_seconds=1))
    bots, code = await race([url, url])
    try:
        await bots[0].move(bots[0].choose() or "draw")
        results = await bots[0].expect("results", timeout=5)  # the clock ran out
        assert {r["status"] for r in results["ranking"]} == {"timed_out"}
        before = await room_snapshot(rdb, code)
        answer = await bots[0].move(bots[0].choose() or "draw")
        assert answer["t"] == "error" and answer["code"] == "race_over"
        assert await room_snapshot(rdb, code) == before
    finally:
        await close_all(bots)


async def test_a_move_after_ones_own_game_ended_is_game_over(racing: Racing) -> None:
    racing.bot.seq += 1
    await racing.bot.send({"t": "resign", "seq": racing.bot.seq})
    await racing.bot.expect("view", seq=racing.bot.seq)
    v = racing.bot.v
    await racing.error({"t": "move", "seq": racing.bot.seq + 1, "move": "draw", "v": v}, "game_over")


async def test_a_duplicate_seq_gets_the_same_answer_and_applies_once(racing: Racing, url: str) -> None:
    bot = racing.bot
    text = bot.choose() or "draw"
    message = {"t": "move", "seq": 7, "move": text, "v": 1}
    await bot.send(message)
    await bot.send(message)
    first = await bot.expect("view", seq=7)
    second = await bot.expect("view", seq=7)
    assert first == second and first["v"] == 2
    assert (await player_row(racing.rdb, racing.code, 1))["v"] == "2"
    assert len(await move_log(racing.rdb, racing.code, 1)) == 2
    # the same seq again from a new connection: the store itself refuses to apply it twice
    again = Bot(url, "again")
    try:
        await again.connect(token=bot.token)
        await again.expect("view")
        await again.send({**message, "v": 2})
        third = await again.expect("view", seq=7)
        assert third["v"] == 2 and third["view"] == first["view"]
        assert len(await move_log(racing.rdb, racing.code, 1)) == 2
        await again.send({**message, "seq": 6, "v": 2})
        assert (await again.expect("error"))["code"] == "stale_seq"
    finally:
        await again.close()


async def test_a_stale_version_gets_stale_version_then_the_current_view(racing: Racing) -> None:
    bot = racing.bot
    before = await racing.snapshot()
    await bot.send({"t": "move", "seq": 3, "move": bot.choose() or "draw", "v": 0})
    err = await bot.expect("error")
    assert err["code"] == "stale_version" and err["seq"] == 3
    view = await bot.recv()
    assert view["t"] == "view" and view["v"] == 1 and view["seq"] == 3
    assert await racing.snapshot() == before


# -- rooms and tokens ----------------------------------------------------------------------------
async def test_an_unknown_room_code_is_no_room(url: str, rdb: aioredis.Redis) -> None:
    bot = Bot(url)
    try:
        await bot.connect()
        for code in ("000000", "zz", "ab-cd!"):
            await bot.send({"t": "join", "code": code})
            assert (await bot.expect("error"))["code"] == "no_room"
        assert [k async for k in rdb.scan_iter(match="room:{000000}*")] == []
    finally:
        await bot.close()


async def test_someone_elses_or_a_forged_token_is_bad_token(racing: Racing, url: str) -> None:
    secret_of_2 = racing.other.token.split(".", 2)[2]
    forged = [
        f"{racing.code}.1.{secret_of_2}",  # player 2's secret on player 1's seat
        f"{racing.code}.2.{'A' * 24}",
        f"{racing.code}.3.{secret_of_2}",  # a seat that does not exist
        f"ZZZZZZ.1.{secret_of_2}",
        "not-a-token",
        f"{racing.code}.x.{secret_of_2}",
    ]
    before = await racing.snapshot()
    for token in forged:
        thief = await bare(url, "thief")
        try:
            await thief.send({"t": "hello", "proto": 1, "token": token})
            answer = await thief.expect("error")
            assert answer["code"] == "bad_token", token
            assert not any(m["t"] in ("joined", "view", "welcome") for m in thief.inbox)
        finally:
            await thief.close()
    await asyncio.sleep(0.1)
    assert await racing.snapshot() == before
    await racing.still_alive()


# -- abuse ---------------------------------------------------------------------------------------
async def test_a_flood_is_rate_limited_then_closed_1008(make_server: ServerFactory,
                                                        rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server(rate_per_2s=60))
    bots, code = await seat([url, url])
    try:
        before = await room_snapshot(rdb, code)
        flood = encode({"t": "record"})
        assert bots[0].ws is not None
        for _ in range(200):
            await bots[0].ws.send(flood)
        close = await closed_with(bots[0])
        assert close == 1008
        codes = [m["code"] for m in bots[0].inbox if m["t"] == "error"]
        # a leaky bucket: a burst of about 60 passes, then only what leaks out (30/s)
        assert 0 < codes.count("no_results") <= 70
        assert codes.count("rate_limited") == 60  # the 61st refusal closes it
        await asyncio.sleep(0.1)
        after = await room_snapshot(rdb, code)
        assert after[f"room:{{{code}}}:p:1"].pop("conn") == b"0"
        assert after[f"room:{{{code}}}:p:1"].pop("gone")  # when it went: the closing, not a refusal
        before[f"room:{{{code}}}:p:1"].pop("conn")
        assert after == before
        await bots[1].send({"t": "ping"})
        await bots[1].expect("pong")  # the others are not affected
    finally:
        await close_all(bots)


async def test_21_malformed_frames_close_1008(racing: Racing) -> None:
    assert racing.bot.ws is not None
    before = await move_log(racing.rdb, racing.code, 1)
    for _ in range(21):
        await racing.bot.ws.send(b"\xc1")
    assert await closed_with(racing.bot) == 1008
    errors = [m for m in racing.bot.inbox if m["t"] == "error"]
    assert [e["code"] for e in errors] == ["bad_frame"] * 20
    assert await move_log(racing.rdb, racing.code, 1) == before


# -- room errors ---------------------------------------------------------------------------------
async def test_room_errors_are_refused_and_change_nothing(url: str, rdb: aioredis.Redis) -> None:
    bots, code = await seat([url, url])
    late = Bot(url, "late")
    try:
        await late.connect()

        async def refused(bot: Bot, message: dict[str, Any], error: str) -> None:
            before = await room_snapshot(rdb, code)
            await bot.send(message)
            answer = await bot.expect("error")
            assert answer["code"] == error, (message, answer)
            assert await room_snapshot(rdb, code) == before

        await refused(late, {"t": "ready"}, "not_in_room")
        await refused(late, {"t": "move", "seq": 1, "move": "draw", "v": 0}, "not_in_room")
        await refused(late, {"t": "create", "variant": "klondike-deluxe"}, "unknown_variant")
        await refused(late, {"t": "quick", "variant": "nope"}, "unknown_variant")
        await refused(late, {"t": "join", "code": code}, "room_full")
        await refused(bots[0], {"t": "record", "player": 2}, "no_results")
        await refused(bots[0], {"t": "rematch"}, "no_results")
        for bot in bots:
            await bot.send({"t": "ready"})
        await asyncio.gather(*(b.expect("view") for b in bots))
        await refused(late, {"t": "join", "code": code.lower()}, "room_started")
        await refused(bots[0], {"t": "create", "variant": "four-seasons"}, "already_in_room")
        await refused(bots[0], {"t": "join", "code": code}, "already_in_room")
    finally:
        await close_all([*bots, late])
