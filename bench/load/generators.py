"""The bench's load generator, split over several processes.

One Python process driving every player of the bench can become the limit
itself: then the bench measures the generator, not the server (and the echo's
baseline is capped the same way). Each generator process here drives its share
of the rooms (a room's players stay together) or of the echo connections, and
reports its own CPU time beside the wall time of each phase, so the report can
say how busy the generator was and mark a phase in which it was saturated.
The same generators drive the server and the echo.

A generator is ``python -m bench.load.generators``: one JSON command per line on its
stdin, one JSON answer per line on its stdout.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import sys
import time
from dataclasses import dataclass
from typing import Any

import psutil

from .driver import (
    CHECKOUT,
    Player,
    Stats,
    close_all,
    closed_loop,
    echo_closed,
    echo_conns,
    echo_open,
    open_loop,
)

# A generator process busier than this share of one core during a phase is
# taken to be the limit of that phase (it had no time left to wait for answers).
SATURATED = 0.9
LINE_LIMIT = 1 << 28  # an answer carries every round trip time of its phase
MEASURED = frozenset({"closed", "open", "echo_closed", "echo_open"})  # phases timed


@dataclass
class Phase:
    """What the generators measured in one phase, summed over the processes."""

    stats: Stats
    wall_s: float
    cpu_s: list[float]  # each process's CPU seconds during the phase
    # the whole machine's busy share over the phase (0..1): on a shared machine
    # every process may get less than a core, generator or not
    machine_busy: float = 0.0

    @property
    def shares(self) -> list[float]:
        """Each process's CPU share of one core during the phase."""
        return [c / self.wall_s if self.wall_s > 0 else 0.0 for c in self.cpu_s]

    @property
    def busiest(self) -> float:
        return max(self.shares, default=0.0)

    @property
    def saturated(self) -> bool:
        return self.busiest >= SATURATED

    def summary(self) -> dict[str, Any]:
        return {"generator_cpu_share": self.busiest, "generator_cpu_shares": self.shares,
                "generator_saturated": self.saturated, "machine_busy": self.machine_busy}


def rooms_of(players: int, per_room: int, part: int, parts: int) -> list[int]:
    """The player indices generator ``part`` of ``parts`` drives: whole rooms,
    dealt round-robin (so every generator gets rooms of every server)."""
    out: list[int] = []
    for room, start in enumerate(range(0, players, per_room)):
        if room % parts == part:
            out += range(start, min(start + per_room, players))
    return out


async def seat_part(urls: list[str], players: int, per_room: int, variant: str, seed: int,
                    part: int, parts: int, client: str = "websockets") -> list[Player]:
    """Like :func:`.loadtest.seat`, for this generator's rooms only; player i
    sits on ``urls[i % len(urls)]`` whichever generator drives it."""
    rng = random.Random(seed)
    everyone = [Player(urls[i % len(urls)], random.Random(rng.random()), client)
                for i in range(players)]
    mine = [everyone[i] for i in rooms_of(players, per_room, part, parts)]
    for i in range(0, len(mine), 50):
        await asyncio.gather(*(p.open() for p in mine[i:i + 50]))
    for i in range(0, len(mine), per_room):
        group = mine[i:i + per_room]
        code = await group[0].enter(None, variant, max(2, len(group)))
        for p in group[1:]:
            await p.enter(code, variant, len(group))
    await asyncio.gather(*(p.ready() for p in mine))
    await asyncio.gather(*(p.started() for p in mine))
    return mine


class Worker:
    """The generator process's side: its players and echo connections."""

    def __init__(self) -> None:
        self.players: list[Player] = []
        self.conns: list[Any] = []

    async def do(self, cmd: dict[str, Any]) -> dict[str, Any]:
        if cmd["op"] not in MEASURED:
            return await self._do(cmd)
        # No collection while a phase is measured: a generator holding a
        # thousand connections spent tens of milliseconds per collection (seen with
        # gc.callbacks), and every pause was counted as the server's (or the
        # echo's) latency. What the phase allocates is mostly freed by reference
        # counting; the rest is collected after it.
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            return await self._do(cmd)
        finally:
            gc.enable()

    async def _do(self, cmd: dict[str, Any]) -> dict[str, Any]:
        op = cmd["op"]
        cpu0, wall0 = time.process_time(), time.perf_counter()
        stats = Stats()
        if op == "seat":
            self.players = await seat_part(cmd["urls"], cmd["players"], cmd["per_room"],
                                           cmd["variant"], cmd["seed"], cmd["part"], cmd["parts"],
                                           cmd.get("client", "websockets"))
        elif op == "echo_conns":
            mine = [i for i in range(cmd["n"]) if i % cmd["parts"] == cmd["part"]]
            urls = cmd["urls"]
            self.conns = await echo_conns([urls[i % len(urls)] for i in mine], len(mine),
                                          cmd.get("client", "websockets"))
        elif op == "closed":
            stats = await closed_loop(self.players, cmd["seconds"])
        elif op == "open":
            rate = cmd["rate"] * len(self.players) / cmd["of"]
            stats = await open_loop(self.players, rate, cmd["seconds"]) if self.players else stats
        elif op == "echo_closed":
            stats = await echo_closed(self.conns, cmd["seconds"])
        elif op == "echo_open":
            rate = cmd["rate"] * len(self.conns) / cmd["of"]
            stats = await echo_open(self.conns, rate, cmd["seconds"]) if self.conns else stats
        elif op == "close":
            await close_all([p.ws for p in self.players] + self.conns)
            self.players, self.conns = [], []
        else:
            raise ValueError(f"unknown generator command {op!r}")
        return {"rtts": stats.rtts, "reply_bytes": sum(stats.reply_bytes),
                "replies": len(stats.reply_bytes), "accepted": stats.accepted,
                "unanswered": stats.unanswered, "cpu_s": time.process_time() - cpu0,
                "wall_s": time.perf_counter() - wall0}


async def _serve_commands() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    worker = Worker()
    print(json.dumps({"ready": True}), flush=True)
    while line := await reader.readline():
        answer = await worker.do(json.loads(line))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


class Generators:
    """The bench's side: K generator processes, each command sent to all of
    them at once and their answers summed."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._procs: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        for _ in range(self.count):
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.load.generators", stdin=asyncio.subprocess.PIPE, cwd=CHECKOUT,
                stdout=asyncio.subprocess.PIPE, limit=LINE_LIMIT)
            self._procs.append(proc)
        for proc in self._procs:
            assert proc.stdout is not None
            if not json.loads(await proc.stdout.readline() or b"{}").get("ready"):
                raise RuntimeError("a load generator did not start")

    async def _all(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for proc, cmd in zip(self._procs, commands, strict=True):
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(cmd).encode() + b"\n")
        answers = []
        for proc in self._procs:
            assert proc.stdout is not None
            line = await proc.stdout.readline()
            if not line:
                raise RuntimeError("a load generator stopped")
            answers.append(json.loads(line))
        return answers

    async def run(self, op: str, **fields: Any) -> Phase:
        """``op`` on every generator, each with its part of the players (``part``
        and ``parts`` are added); a total ``rate`` over ``of`` players is shared
        in proportion to each generator's players."""
        commands = [{"op": op, "part": k, "parts": self.count, **fields}
                    for k in range(self.count)]
        psutil.cpu_percent()  # starts the machine's count for this phase
        answers = await self._all(commands)
        busy = psutil.cpu_percent() / 100
        stats = Stats(rtts=[x for a in answers for x in a["rtts"]], accepted=sum(
            a["accepted"] for a in answers), unanswered=sum(a["unanswered"] for a in answers))
        replies = sum(a["replies"] for a in answers)
        if replies:
            stats.reply_bytes = [sum(a["reply_bytes"] for a in answers) // replies]
        return Phase(stats, max(a["wall_s"] for a in answers), [a["cpu_s"] for a in answers], busy)

    async def stop(self) -> None:
        for proc in self._procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in self._procs:
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
        self._procs = []


if __name__ == "__main__":
    try:
        import uvloop
        uvloop.run(_serve_commands())
    except ImportError:
        asyncio.run(_serve_commands())
