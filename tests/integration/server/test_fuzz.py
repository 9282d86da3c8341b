"""A short seeded fuzzing run in the suite (the long one: ``python -m tests.support.fuzzing``)."""

from __future__ import annotations

from tests.support.fuzzing import campaign
from tests.support.redis_server import fresh_server

MESSAGES = 1200


async def test_fuzzed_messages_cause_no_handler_error_and_refusals_change_nothing() -> None:
    with fresh_server() as redis_server:
        report = await campaign(redis_server.url, MESSAGES, seed=20261201)
    print(report.line())
    assert report.messages == MESSAGES
    assert report.refused > MESSAGES // 2  # the run reached the handlers' refusals
    assert report.handler_errors == []
    assert report.refused_changed == []
