"""The hot path's move counter (server/ops/metrics.py, ``LoopCounter``) renders
like prometheus_client's own Counter: ``_total`` and ``_created``."""

from __future__ import annotations

import re

from prometheus_client import CollectorRegistry, Counter, generate_latest

from server.ops.metrics import LoopCounter


def test_a_loop_counter_renders_as_a_counter_would() -> None:
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    counter = LoopCounter("x_moves", "Moves", ours)
    reference = Counter("x_moves", "Moves", registry=theirs)
    for _ in range(3):
        counter.inc()
        reference.inc()
    text, expected = generate_latest(ours).decode(), generate_latest(theirs).decode()
    assert re.search(r"^x_moves_total 3\.0$", text, re.M)
    # the same lines, but for the creation times
    assert re.sub(r"_created \S+", "", text) == re.sub(r"_created \S+", "", expected)
