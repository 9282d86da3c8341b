"""``python -m bench.load`` end to end, tiny: every figure of the report is there
and comes from real work (moves accepted, echoes answered, memory measured);
and the bench's own arithmetic (the knee, the targets, the generators' shares
and parts), fed made-up figures. Nothing here is timed."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from bench.load.cluster import sizing
from bench.load.driver import READY_TRIES, Player, Stats
from bench.load.generators import SATURATED, Phase, rooms_of
from bench.load.run import P99_LIMIT, knee, targets


def test_sizing_is_cores_at_half_load() -> None:
    row = {"cpu_us_per_move": {"servers": 100.0, "primaries": 20.0, "replicas": 10.0, "haproxy": 5.0}}
    cores = sizing(row)
    assert cores["10000"] == {"servers": 2.0, "primaries": 0.4, "replicas": 0.2, "haproxy": 0.1}
    assert cores["100000"]["servers"] == 20.0


def test_the_knee_is_the_highest_rate_before_the_first_one_over_the_limit() -> None:
    assert knee([(2000, 2.9), (1000, 1.5), (3000, 3.1), (4000, 2.0)]) == 2000
    assert knee([(1000, P99_LIMIT)]) == 1000  # within means up to and including
    assert knee([(1000, 4.0), (2000, 1.0)]) is None
    assert knee([(1000, 1.0), (2000, float("nan")), (3000, 1.0)]) == 1000
    assert knee([]) is None


def _report(**over: Any) -> dict[str, Any]:
    unsaturated = {"generator_cpu_share": 0.5, "generator_cpu_shares": [0.5, 0.4],
                   "generator_saturated": False}
    r: dict[str, Any] = {
        "args": {"players": 100, "open_players": 1000},
        "cpu_times_echo": 2.4, "closed_ratios": [0.30, 0.40, 0.36],
        "generator": {"server": unsaturated, "echo": unsaturated},
        "sweep": [{"rate": 1000.0, "p99_ratio": 1.2}, {"rate": 2000.0, "p99_ratio": 2.0},
                  {"rate": 3000.0, "p99_ratio": 2.9}],
        "knee": 3000.0, "redis_round_trips_per_move": 0.05,
        "idle": {"server_kb_per_player": 18.0}, "engine": {"variant": "four-seasons",
                                                          "gen_apply_per_s": 150_000.0}}
    r.update(over)
    return r


def test_the_targets_read_the_report() -> None:
    met = targets(_report())
    assert all(t["met"] for t in met)
    assert met[1]["value"] == 0.36  # the median run's ratio
    assert met[2]["p99_ratio_at"] == {"1000": 1.2, "2000": 2.0, "3000": 2.9}
    missed = targets(_report(cpu_times_echo=2.6, closed_ratios=[0.3], knee=2500.0,
                             redis_round_trips_per_move=1.5, idle={"server_kb_per_player": 31.0},
                             engine={"variant": "four-seasons", "gen_apply_per_s": 40_000.0}))
    assert not any(t["met"] for t in missed)
    assert targets(_report(knee=None))[2]["met"] is False


def test_a_saturated_generator_marks_the_closed_loop_figure() -> None:
    busy = {"generator_cpu_share": 0.95, "generator_cpu_shares": [0.95, 0.5],
            "generator_saturated": True}
    calm = _report()["generator"]["server"]
    assert targets(_report(generator={"server": calm, "echo": busy}))[1]["saturated"]
    assert not targets(_report())[1]["saturated"]


def test_a_phase_reports_each_generators_share_of_a_core() -> None:
    phase = Phase(Stats(), wall_s=2.0, cpu_s=[1.0, 1.9])
    assert phase.shares == [0.5, 0.95]
    assert phase.busiest == 0.95 and phase.saturated == (SATURATED <= 0.95)
    assert phase.summary()["generator_saturated"]
    assert not Phase(Stats(), wall_s=2.0, cpu_s=[1.0, 1.0]).saturated


@pytest.mark.parametrize(("players", "per_room", "parts"), [(100, 2, 2), (9, 3, 2), (5, 2, 3),
                                                             (4, 2, 1)])
def test_the_generators_share_whole_rooms_and_every_player(players: int, per_room: int,
                                                           parts: int) -> None:
    shares = [rooms_of(players, per_room, k, parts) for k in range(parts)]
    assert sorted(i for s in shares for i in s) == list(range(players))
    for s in shares:  # a room is never split between two generators
        assert {i // per_room for i in s}.isdisjoint(
            {i // per_room for other in shares if other is not s for i in other})


async def test_a_generator_collects_no_garbage_while_a_phase_is_measured(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from bench.load import generators as loadgen

    seen: list[bool] = []

    async def phase(players: list[object], seconds: float) -> Stats:
        seen.append(gc.isenabled())
        return Stats()

    monkeypatch.setattr(loadgen, "closed_loop", phase)
    worker = loadgen.Worker()
    try:
        await worker.do({"op": "closed", "seconds": 0.1})
        assert seen == [False]  # a collection's pause would count as the server's latency
        assert gc.isenabled()  # and it is back once the phase is over
        assert gc.get_freeze_count() > 0  # the connections made before it stay out of it
    finally:
        gc.unfreeze()


class _ScriptedSocket:
    """A bench player's connection whose frames come from a list."""

    def __init__(self, frames: list[dict[str, Any]]) -> None:
        self.frames = [msgpack.packb(f) for f in frames]
        self.sent: list[dict[str, Any]] = []

    async def recv(self) -> bytes:
        return bytes(self.frames.pop(0))

    async def send(self, frame: bytes) -> None:
        self.sent.append(msgpack.unpackb(frame))


async def test_a_refused_ready_is_sent_again_and_the_seating_goes_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A ready answered with an error (the server's Redis pool gave up on a saturated
    machine) would leave its room in the lobby and the bench waiting for good."""
    player = Player("ws://unused", random.Random(1))
    sock = _ScriptedSocket([{"t": "room"}, {"t": "error", "code": "store_unavailable"},
                            {"t": "room"}, {"t": "view", "v": 0, "view": {"status": "in_progress"}}])
    player.ws = sock  # type: ignore[assignment]
    await player.ready()
    await player.started()
    assert sock.sent == [{"t": "ready"}, {"t": "ready"}] and player.v == 0
    assert "ready refused (store_unavailable)" in capsys.readouterr().err
    always = _ScriptedSocket([{"t": "error", "code": "store_unavailable"}] * READY_TRIES)
    player.ws = always  # type: ignore[assignment]
    with pytest.raises(RuntimeError):
        await player.started()


