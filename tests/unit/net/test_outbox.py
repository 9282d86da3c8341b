"""The outbox, fed by hand: a fake socket whose buffer fills and drains on command."""

from __future__ import annotations

import asyncio

from websockets.protocol import State

from server.net.outbox import Outbox
from server.wire.protocol import CLOSE_SLOW


class FakeSocket:
    def __init__(self) -> None:
        self.state = State.OPEN
        self.written: list[bytes] = []
        self.buffer = 0  # bytes the "kernel" has not taken yet
        self.drained = asyncio.Event()
        self.closes: list[tuple[int, str]] = []
        self.aborted = False
        self.answer_close = True

    def write_now(self, payload: bytes) -> None:
        self.written.append(payload)

    def buffered(self) -> int:
        return self.buffer

    async def drain(self) -> None:
        await self.drained.wait()

    async def close(self, code: int, reason: str) -> None:
        self.closes.append((code, reason))
        if not self.answer_close:
            await asyncio.sleep(3600)  # a client that never answers the closing handshake
        self.state = State.CLOSED

    def abort(self) -> None:
        self.aborted = True
        self.state = State.CLOSED

    def unblock(self) -> None:
        self.buffer = 0
        self.drained.set()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_client_that_keeps_up_is_written_at_once() -> None:
    sock = FakeSocket()
    box = Outbox(sock)
    box.send(b"a")
    box.send_progress(2, b"p")
    assert sock.written == [b"a", b"p"] and box.queued_frames == 0


async def test_an_opponents_progress_is_not_held_on_a_timer() -> None:
    """With no move of the player's own in hand, a progress goes to the socket
    as it comes (the transport joins the frames of one loop tick into one
    write), not held on a timer for a frame that may come: the timer that
    released the held ones put them out in bursts that the next moves waited
    behind (the open loop's p99)."""
    sock = FakeSocket()
    box = Outbox(sock)
    box.send_progress(2, b"p2")
    box.send_progress(3, b"p3")
    assert sock.written == [b"p2", b"p3"] and box.queued_frames == 0


async def test_a_progress_waits_for_the_answer_on_its_way_and_leaves_ahead_of_it() -> None:
    sock = FakeSocket()
    box = Outbox(sock)
    box.hold_progress()  # the player's move is being answered
    box.send_progress(2, b"p2-old")
    box.send_progress(3, b"p3")
    box.send_progress(2, b"p2-new")  # the newest of a player replaces its waiting one
    assert sock.written == []
    box.send(b"view")  # the answer takes them along, ahead of it
    assert sock.written == [b"p2-new", b"p3", b"view"]
    box.release_progress()
    assert len(sock.written) == 3  # nothing twice
    box.send_progress(2, b"p2-next")  # no answer on its way: at once
    assert sock.written[-1] == b"p2-next" and box.queued_frames == 0


async def test_what_waited_goes_when_the_move_ends_without_an_answer() -> None:
    sock = FakeSocket()
    box = Outbox(sock)
    box.hold_progress()
    box.send_progress(2, b"p2")
    assert sock.written == []
    box.release_progress()
    assert sock.written == [b"p2"]


async def test_the_wait_ends_with_the_answer_not_with_the_move() -> None:
    """What the move does after its answer (the race's end, a reload) holds no
    opponent's progress back."""
    sock = FakeSocket()
    box = Outbox(sock)
    box.hold_progress()
    box.send(b"view")
    box.send_progress(2, b"p2")  # the move is not over, but its answer has gone
    assert sock.written == [b"view", b"p2"]
    box.release_progress()
    assert sock.written == [b"view", b"p2"]


async def test_a_closed_outbox_sends_nothing_that_waited() -> None:
    sock = FakeSocket()
    box = Outbox(sock)
    box.hold_progress()
    box.send_progress(2, b"p2")
    box.stop()
    box.release_progress()
    assert sock.written == []


async def test_frames_wait_in_order_while_the_socket_is_full_and_go_when_it_drains() -> None:
    sock = FakeSocket()
    sock.buffer = 10**6
    box = Outbox(sock, high_water=1000)
    for i in range(3):
        box.send(b"m%d" % i)
    await settle()
    assert sock.written == [] and box.queued_frames == 3
    sock.unblock()
    box.send(b"m3")  # behind the queued ones, never ahead of them
    await settle()
    assert sock.written == [b"m0", b"m1", b"m2", b"m3"]
    assert box.queued_bytes == 0


async def test_a_newer_progress_of_a_player_replaces_the_queued_one() -> None:
    sock = FakeSocket()
    sock.buffer = 10**6
    box = Outbox(sock, high_water=1000)
    box.send_progress(2, b"p2-old")
    box.send_progress(3, b"p3")
    box.send(b"room")
    box.send_progress(2, b"p2-new")
    assert box.queued_bytes == len(b"p3") + len(b"room") + len(b"p2-new")
    sock.unblock()
    await settle()
    assert sock.written == [b"p3", b"room", b"p2-new"]


async def test_past_its_bound_the_connection_is_closed_with_1013_without_waiting() -> None:
    sock = FakeSocket()
    sock.buffer = 10**6
    sock.answer_close = False
    box = Outbox(sock, max_bytes=100, high_water=1000, close_grace_s=0.05)
    for _ in range(10):
        box.send(b"x" * 20)  # returns at once every time
    assert box.closed_for is not None and box.queued_bytes == 0
    await settle()
    assert sock.closes and sock.closes[0][0] == CLOSE_SLOW
    await asyncio.sleep(0.1)
    assert sock.aborted  # the close frame could not get through: cut off after the grace
    box.send(b"late")
    assert box.queued_frames == 0 and sock.written == []


async def test_too_many_frames_also_closes() -> None:
    sock = FakeSocket()
    sock.buffer = 10**6
    box = Outbox(sock, max_frames=5, high_water=1000)
    for _ in range(6):
        box.send(b"y")
    assert box.closed_for is not None
    await settle()
    assert sock.closes[0][0] == CLOSE_SLOW


async def test_a_socket_that_takes_nothing_for_the_stall_time_is_closed() -> None:
    sock = FakeSocket()
    sock.buffer = 10**6
    box = Outbox(sock, high_water=1000, stall_s=0.05)
    box.send(b"z")
    await asyncio.sleep(0.15)
    assert box.closed_for is not None and "read nothing" in box.closed_for
    assert sock.closes[0][0] == CLOSE_SLOW


async def test_a_closed_socket_gets_nothing() -> None:
    sock = FakeSocket()
    sock.state = State.CLOSING
    box = Outbox(sock)
    box.send(b"a")
    assert sock.written == []


class Member:
    def __init__(self, n: int, fail: bool = False) -> None:
        self.sock = FakeSocket()
        self.outbox = Outbox(self.sock)
        self.n = n
        self.fail = fail
        self.events: list[dict[str, object]] = []

    def on_room_event(self, message: dict[str, object]) -> None:
        if self.fail:
            raise RuntimeError("a bug in one member")
        self.events.append(message)

    async def resync(self) -> None:
        return None


async def test_the_hub_only_enqueues_and_one_failing_member_costs_the_others_nothing() -> None:
    import redis.asyncio as aioredis

    from server.rooms.hub import Hub
    from server.store import keys
    from server.wire.protocol import encode

    async def nothing(_: str) -> None:
        return None

    hub = Hub(aioredis.Redis(), nothing)  # never connected: deliver needs no Redis
    members = [Member(1, fail=True), Member(2), Member(3)]
    members[2].sock.buffer = 10**6  # a client that reads nothing: its frames wait in its outbox
    for m in members:
        await hub.add("ROOM01", m)
    await hub.deliver("ROOM01", keys.event_envelope(encode({"t": "room", "phase": "lobby"})))
    await hub.deliver("ROOM01", keys.progress_envelope(2, encode({"t": "progress", "player": 2})))
    assert members[1].events == [{"t": "room", "phase": "lobby"}]
    assert len(members[0].sock.written) == 2  # its room message and player 2's progress
    assert len(members[1].sock.written) == 1  # its own progress is not sent back to it
    assert members[2].outbox.queued_frames == 2 and members[2].sock.written == []
    members[2].outbox.stop()


def test_an_outbox_outliving_its_loop_starts_its_writer_on_the_running_one() -> None:
    """The outbox keeps the running loop (asking for it is a system call) but
    never one that no longer runs."""
    sock = FakeSocket()
    box = Outbox(sock, high_water=1000)

    async def queue_and_drain() -> list[bytes]:
        sock.written.clear()
        sock.buffer = 10**6
        sock.drained = asyncio.Event()
        box.send(b"m")  # queued: the writer's task waits for the socket
        await settle()
        sock.unblock()
        await settle()
        return list(sock.written)

    assert asyncio.run(queue_and_drain()) == [b"m"]
    assert asyncio.run(queue_and_drain()) == [b"m"]  # a task on the closed loop would never run


