"""One finish path (issue 29): whether a race is over is decided by
``RoomService.finish_if_done`` alone, on the service's injected clock; the
store's FINISH script stays the atomic guard against a second finish."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import RaceServer
from server.ops.clock import now_ms
from server.ops.config import Settings
from server.race.rows import PlayerRow, RoomRow
from server.race.rules import race_over
from server.rooms.service import RoomService
from tests.support.servers import COUNTDOWN_MS, FAST_RATE, NO_ADDRESS_LIMITS, VARIANT, close_all, race, ws_url

RACE_SECONDS = 60


class SkewedClock:
    """The time now, plus a skew a test sets: the service's only clock."""

    def __init__(self) -> None:
        self.skew_ms = 0

    def __call__(self) -> int:
        return now_ms() + self.skew_ms


@pytest.fixture
async def clocked(redis_url_session: str) -> AsyncIterator[tuple[RaceServer, SkewedClock]]:
    clock = SkewedClock()
    app = RaceServer(Settings(host="127.0.0.1", port=0, countdown_ms=COUNTDOWN_MS,
                              race_seconds=RACE_SECONDS, rate_per_2s=FAST_RATE, **NO_ADDRESS_LIMITS),
                     redis_url_session, clock)
    await app.start()
    yield app, clock
    await app.close()


async def seated_race(service: RoomService) -> tuple[str, int, int]:
    """A room of two seats, both ready: its code, its start and its end."""
    code = await service.open_room(VARIANT, service.new_deal(), 2, True)
    for name in ("ann", "bob"):
        await service.store.join(code, name, f"hash-{name}")
    await service.ready(code, 1)
    started, starts_at, ends_at = await service.ready(code, 2)
    assert started and ends_at - starts_at == RACE_SECONDS * 1000
    return code, starts_at, ends_at


def row(phase: str, ends_at: int, *statuses: str, left: tuple[int, ...] = ()) -> RoomRow:
    players = [PlayerRow(n=n, name=f"p{n}", status=s, left=n in left)
               for n, s in enumerate(statuses, 1)]
    return RoomRow(code="R", variant=VARIANT, deal="1", phase=phase, max=len(players), min=1, private=True,
                   starts_at=0, ends_at=ends_at, players=players)


def test_a_race_is_over_once_every_game_is_or_its_clock_ran_out() -> None:
    assert not race_over(row("racing", 1000, "in_progress", "won"), 999)
    assert race_over(row("racing", 1000, "in_progress", "won"), 1000)
    assert race_over(row("racing", 1000, "dead", "won"), 0)
    assert race_over(row("racing", 1000, "in_progress", "won", left=(1,)), 0)
    assert not race_over(row("lobby", 1000, "in_progress"), 5000)
    assert not race_over(row("finished", 1000, "won"), 5000)


async def test_the_race_ends_on_the_services_clock_once(
        clocked: tuple[RaceServer, SkewedClock]) -> None:
    app, clock = clocked
    service = app.service
    code, starts_at, ends_at = await seated_race(service)
    clock.skew_ms = starts_at + 1 - now_ms()
    assert not await service.finish_if_done(code)
    room = await service.room(code)
    assert room is not None and room.phase == "racing" and not room.results
    # by the service's clock the race is over, by the machine's not for a minute:
    # the service's clock decides, and the store's guard takes its word
    clock.skew_ms = ends_at - now_ms()
    assert now_ms() < ends_at
    assert await service.finish_if_done(code)
    room = await service.room(code)
    assert room is not None and room.phase == "finished" and room.results
    assert not await service.finish_if_done(code)  # finished once


async def test_the_race_ends_when_its_last_game_does(clocked: tuple[RaceServer, SkewedClock]) -> None:
    app, clock = clocked
    service = app.service
    code, starts_at, _ = await seated_race(service)
    clock.skew_ms = starts_at + 1 - now_ms()
    await service.store.set_player_fields(code, 1, status="resigned")
    assert not await service.finish_if_done(code)
    await service.store.set_player_fields(code, 2, status="won")
    assert await service.finish_if_done(code)
    room = await service.room(code)
    assert room is not None and room.phase == "finished"


async def test_a_move_after_the_services_clock_ran_out_ends_the_race(
        clocked: tuple[RaceServer, SkewedClock]) -> None:
    app, clock = clocked
    bots, code = await race([ws_url(app), ws_url(app)])
    try:
        clock.skew_ms = RACE_SECONDS * 1000 + COUNTDOWN_MS
        answer = await bots[0].move(bots[0].choose() or "draw")
        assert answer["t"] == "error" and answer["code"] == "race_over"
        results = await bots[1].expect("results")
        assert [r["player"] for r in results["ranking"]] != []
        room = await app.service.room(code)
        assert room is not None and room.phase == "finished"
    finally:
        await close_all(bots)
