"""The progress throttle (server/rooms/progress.py), fed moves by hand with a fake clock."""

from __future__ import annotations

import asyncio

from server.rooms.progress import PROGRESS_EVERY_S, ProgressThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make() -> tuple[ProgressThrottle, Clock, list[tuple[str, int, bytes]]]:
    sent: list[tuple[str, int, bytes]] = []

    def publish(code: str, n: int, payload: bytes) -> asyncio.Future[None]:
        sent.append((code, n, payload))  # queued at once, like the store's pipeline
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done

    clock = Clock()
    return ProgressThrottle(publish, clock), clock, sent


def move(t: ProgressThrottle, fc: int, status: str, payload: bytes, ok: bool = True) -> bool:
    """One move through the throttle: whether its progress went out with it."""
    with_move = t.send_with_move(fc, status)
    if ok:
        t.accepted("ROOM", 1, fc, status, lambda: payload, with_move)
    else:
        t.refused()
    return with_move


async def test_foundation_and_status_changes_go_out_at_once() -> None:
    t, clock, _ = make()
    assert move(t, 4, "in_progress", b"1")  # the first one always goes
    clock.now += 0.01
    assert move(t, 5, "in_progress", b"2")  # a card reached a foundation
    clock.now += 0.01
    assert move(t, 5, "dead", b"3")  # the game ended
    t.flush()


async def test_counter_only_moves_are_held_and_the_newest_goes_out_later() -> None:
    t, clock, sent = make()
    assert move(t, 4, "in_progress", b"1")
    clock.now += 0.01
    assert not move(t, 4, "in_progress", b"2")
    clock.now += 0.01
    assert not move(t, 4, "in_progress", b"3")
    assert sent == []
    await asyncio.sleep(PROGRESS_EVERY_S + 0.05)  # the timer runs on the real loop clock
    assert t.task is not None
    await t.task
    assert sent == [("ROOM", 1, b"3")]  # only the newest, once


async def test_after_the_interval_a_counter_move_goes_with_the_move() -> None:
    t, clock, sent = make()
    assert move(t, 4, "in_progress", b"1")
    clock.now += PROGRESS_EVERY_S
    assert move(t, 4, "in_progress", b"2")
    assert sent == []


async def test_a_move_sent_with_its_progress_cancels_what_was_held() -> None:
    t, clock, sent = make()
    assert move(t, 4, "in_progress", b"1")
    clock.now += 0.01
    assert not move(t, 4, "in_progress", b"2")
    clock.now += 0.01
    assert move(t, 5, "in_progress", b"3")  # newer, and out at once
    await asyncio.sleep(PROGRESS_EVERY_S + 0.05)
    assert sent == []  # b"2" must never follow b"3"


async def test_a_refused_move_gives_back_what_it_superseded() -> None:
    t, clock, sent = make()
    assert move(t, 4, "in_progress", b"1")
    clock.now += 0.01
    assert not move(t, 4, "in_progress", b"2")
    clock.now += 0.01
    assert move(t, 5, "in_progress", b"3", ok=False)  # it would have gone at once
    await asyncio.sleep(PROGRESS_EVERY_S + 0.05)
    assert t.task is not None
    await t.task
    assert sent == [("ROOM", 1, b"2")]


async def test_leaving_sends_what_was_held_at_once() -> None:
    t, clock, sent = make()
    assert move(t, 4, "in_progress", b"1")
    clock.now += 0.01
    assert not move(t, 4, "in_progress", b"2")
    t.flush()
    assert sent == [("ROOM", 1, b"2")]  # queued before anything that comes after
    await asyncio.sleep(PROGRESS_EVERY_S + 0.05)
    assert sent == [("ROOM", 1, b"2")]  # and only once


async def test_the_held_progress_is_queued_in_the_timer_callback_itself() -> None:
    """Nothing handled after the timer fires can get into the pipeline ahead of it."""
    t, clock, sent = make()
    assert move(t, 4, "in_progress", b"1")
    clock.now += 0.01
    assert not move(t, 4, "in_progress", b"2")
    assert t._timer is not None
    t._timer._run()  # the loop running the callback
    assert sent == [("ROOM", 1, b"2")]
    t.flush()


async def test_only_the_held_progress_that_goes_out_is_encoded() -> None:
    t, clock, sent = make()
    encoded: list[bytes] = []

    def held(payload: bytes) -> bool:
        def encode() -> bytes:
            encoded.append(payload)
            return payload
        with_move = t.send_with_move(4, "in_progress")
        t.accepted("ROOM", 1, 4, "in_progress", encode, with_move)
        return with_move

    assert held(b"1")  # published with its move: the caller encoded it already
    for payload in (b"2", b"3", b"4"):
        clock.now += 0.01
        assert not held(payload)
    t.flush()
    assert encoded == [b"4"] and sent == [("ROOM", 1, b"4")]  # b"2" and b"3" never were
