"""One client must never stall another, tested with a real server process.

A player in a finished room stops reading (a tiny receive buffer, no reads)
and floods ``record`` requests while its partner asks for a rematch. Every
other room on the process goes on racing: the progress of their moves keeps
reaching their opponents fast, and the slow client is closed within the
outbox's documented bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import time
import urllib.request
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from server.net.outbox import CLOSE_GRACE_S, STALL_S
from server.wire import protocol
from tests.support.bot import Bot
from tests.support.servers import SpawnFactory, close_all, race, seat

# The flood needs a few seconds to fill the kernel's and the transport's buffers
# (a record of one resign is about 100 bytes) before the outbox starts waiting.
FILL_S = 4.0
PACE_S = 0.3  # longer than the progress throttle: every move's progress goes out at once
# The bound is a p99 of 50 ms. A test that shares two cores with whatever
# else runs holds the attack's p95 to 50 ms or, on a loaded machine, to twice the
# p95 measured before the attack in the same run, and every move to 1 s (the stall
# this guards against lasted 45 s). docs/operations/reliability.md has the p99 of a quiet run.
P95_BOUND_S = 0.050
MAX_BOUND_S = 1.0
ROOMS = 3


def connections(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        text = page.read().decode()
    match = re.search(r"^patience_connections (\S+)$", text, re.M)
    assert match is not None
    return int(float(match.group(1)))


async def slow_connection(url: str) -> ClientConnection:
    """A websocket whose socket takes almost nothing: the server's writes back up."""
    host, port = url.removeprefix("ws://").rstrip("/").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    return await connect(url, sock=sock, max_queue=1, max_size=2**20, compression=None)


async def measure(mover: Bot, watcher: Bot, seconds: float, out: list[tuple[float, float]]) -> None:
    """The mover moves every PACE_S; out gets (when it moved, the time until the
    watcher saw its progress)."""
    sent: dict[int, float] = {}
    seen: dict[int, float] = {}

    async def watch() -> None:
        while True:
            msg = await watcher.recv(30)
            if msg.get("t") == "progress" and msg.get("player") == mover.player:
                seen.setdefault(int(msg["moves"]), time.monotonic())

    reader = asyncio.create_task(watch())
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end and mover.view and mover.view["status"] == "in_progress":
            text = mover.choose()
            if text is None:
                break
            before = mover.v
            sent[before + 1] = time.monotonic()
            answer = await mover.move(text)
            if answer["t"] != "view":
                break
            await asyncio.sleep(PACE_S)
        await asyncio.sleep(2.0)  # whatever is still on its way
    finally:
        reader.cancel()
        with contextlib.suppress(BaseException):
            await reader
    for v, at in sent.items():
        # a progress that never came counts as the whole wait
        out.append((at, seen.get(v, at + 10.0) - at))


async def test_a_client_that_stops_reading_stalls_no_other_room(spawn: SpawnFactory) -> None:
    proc = await spawn()
    url = proc.url
    # two rooms racing, measured throughout
    rooms = [await race([url, url], "betsy-ross") for _ in range(ROOMS)]
    # the attacker's room: finished, its partner will ask for a rematch
    partner = Bot(url, "partner", seed=7)
    await partner.connect()
    await partner.send({"t": "create", "variant": "four-seasons", "players": 2})
    code = (await partner.expect("joined"))["code"]
    slow = await slow_connection(url)

    async def slow_send(message: dict[str, Any]) -> None:
        await asyncio.wait_for(slow.send(protocol.encode(message)), 5)

    await slow_send({"t": "hello", "proto": protocol.PROTOCOL_VERSION, "name": "slow"})
    await slow_send({"t": "join", "code": code})
    await partner.send({"t": "ready"})
    await slow_send({"t": "ready"})
    await partner.expect("view")
    await asyncio.sleep(0.3)
    partner.seq += 1
    await partner.send({"t": "resign", "seq": partner.seq})
    await slow_send({"t": "resign", "seq": 1})
    await partner.expect("results")
    open_before = await asyncio.to_thread(connections, proc.port)

    samples: list[tuple[float, float]] = []
    measuring = [asyncio.create_task(measure(bots[0], bots[1], 7.0, samples)) for bots, _ in rooms]
    await asyncio.sleep(2.0)
    attack_started = time.monotonic()

    async def flood() -> None:
        with contextlib.suppress(Exception):
            for _ in range(5000):  # never reads a reply
                await asyncio.wait_for(slow.send(protocol.encode({"t": "record", "player": 1})), 1)

    flooding = asyncio.create_task(flood())
    await asyncio.sleep(0.5)
    await partner.send({"t": "rematch"})
    dropped_after = None
    deadline = attack_started + STALL_S + CLOSE_GRACE_S + FILL_S + 3
    while time.monotonic() < deadline:
        if await asyncio.to_thread(connections, proc.port) < open_before:
            dropped_after = time.monotonic() - attack_started
            break
        await asyncio.sleep(0.1)
    await asyncio.gather(*measuring)
    flooding.cancel()
    with contextlib.suppress(BaseException):
        await flooding
    slow.transport.abort()
    await close_all([partner] + [b for bots, _ in rooms for b in bots])

    before = sorted(lat for at, lat in samples if at < attack_started)
    during = sorted(lat for at, lat in samples if at >= attack_started)
    p95_before, p95 = before[int(len(before) * 0.95)], during[int(len(during) * 0.95)]
    shown = (f"p95 {p95 * 1000:.1f} ms over {len(during)} moves during the attack "
             f"({p95_before * 1000:.1f} ms over {len(before)} before), slowest {during[-3:]}")
    print(f"{shown}; slow client dropped after {dropped_after}")
    assert len(during) >= 30 and len(before) >= 10, samples
    assert p95 <= max(P95_BOUND_S, 2 * p95_before) and during[-1] <= MAX_BOUND_S, shown
    assert dropped_after is not None and dropped_after <= STALL_S + CLOSE_GRACE_S + FILL_S, dropped_after


async def test_a_start_missed_while_pub_sub_was_down_is_made_up(make_server: Any) -> None:
    """The last ready comes while one process has no pub/sub link, and the
    countdown ends before the link is back: its player still gets the start."""
    a = await make_server()
    b = await make_server()
    bots = [Bot(f"ws://127.0.0.1:{a.port}/", "on-a"), Bot(f"ws://127.0.0.1:{b.port}/", "on-b")]
    for bot in bots:
        await bot.connect()
    await bots[0].send({"t": "create", "variant": "four-seasons", "players": 2})
    code = (await bots[0].expect("joined"))["code"]
    await bots[1].send({"t": "join", "code": code})
    await bots[1].expect("joined")
    await bots[1].send({"t": "ready"})
    await bots[1].expect("room")

    # b's pub/sub link goes down and stays down for longer than the countdown
    original = b.hub._sub
    blocked = asyncio.Event()

    class Refusing:
        """The subscriber, except that it cannot open again (a compiled
        connection's methods cannot be replaced on the instance)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(original, name)

        async def open(self) -> None:
            blocked.set()
            raise ConnectionError("pub/sub kept down by the test")

    b.hub._sub = Refusing()
    original.abort()
    await asyncio.wait_for(blocked.wait(), 5)
    await bots[0].send({"t": "ready"})
    await bots[0].expect("view")  # a's player starts; b heard nothing of it
    await asyncio.sleep(0.3)
    b.hub._sub = original
    view = await bots[1].expect("view", timeout=10)
    assert view["seq"] is None and view["view"]["status"] == "in_progress"
    answer = await bots[1].move(bots[1].choose() or "draw")
    assert answer["t"] == "view", answer
    await close_all(bots)


async def test_the_start_task_ends_with_the_room_membership(make_server: Any) -> None:
    """A player who leaves during the countdown gets no start from that room."""
    app = await make_server(countdown_ms=400)
    url = f"ws://127.0.0.1:{app.port}/"
    bots, code = await seat([url, url])
    for bot in bots:
        await bot.send({"t": "ready"})
    await bots[1].expect("room", phase="countdown")
    player = app.service.seats[(code, 2)]
    assert player.start_task is not None
    task = player.start_task
    await player.detach()
    await asyncio.sleep(0.5)  # past the countdown
    assert task.cancelled()
    assert player.game.state is None and player.code is None
    await close_all(bots)
