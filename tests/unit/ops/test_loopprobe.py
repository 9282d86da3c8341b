"""The debug probe of the loop's lag and the collector's pauses (server/ops/loopprobe.py)."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import time

import pytest

from server.ops.config import Settings
from server.ops.loopprobe import LoopProbe


def test_gaps_are_counted_by_size_from_the_threshold_on() -> None:
    probe = LoopProbe(2)
    for ms in (0.5, 1.9, 2.0, 4.0, 7.0, 30.0, 250.0):
        probe.note_gap(ms / 1000)
    assert probe.gaps == {2: 2, 5: 1, 20: 1, 100: 1} and probe.longest_ms == pytest.approx(250.0)


async def test_a_blocked_loop_and_a_collection_show_in_the_report(caplog: pytest.LogCaptureFixture
                                                                   ) -> None:
    probe = LoopProbe(5, report_s=0.05)
    probe.start()
    try:
        await asyncio.sleep(0.005)
        time.sleep(0.03)  # noqa: ASYNC251 (the loop held for 30 ms: what the probe must report)
        gc.collect(0)
        with caplog.at_level(logging.WARNING, logger="patience.loopprobe"):
            await asyncio.sleep(0.08)
    finally:
        probe.stop()
    reports = [r.getMessage() for r in caplog.records if r.name == "patience.loopprobe"]
    assert reports and ">= 20 ms" in reports[0] and re.search(r"gen0: \d+ taking", reports[0])
    assert probe._on_gc not in gc.callbacks


def test_the_probe_is_off_unless_asked_for() -> None:
    assert Settings().loop_probe_ms == 0
    assert Settings.from_env({"PATIENCE_LOOP_PROBE_MS": "2"}).loop_probe_ms == 2
