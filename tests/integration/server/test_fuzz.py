"""Short seeded fuzzing runs in the suite (the long ones: ``python -m tests.support.fuzzing``,
with ``--abrupt N`` for the concurrent attack). Both count every record logged at
ERROR, on whichever build runs: the compiled one in ``make test``."""

from __future__ import annotations

from tests.support.flood import flood_campaign
from tests.support.fuzzing import campaign, frame_maker
from tests.support.redis_server import fresh_server

MESSAGES = 1200
ATTACKERS = 400


async def test_fuzzed_messages_cause_no_handler_error_and_refusals_change_nothing() -> None:
    with fresh_server() as redis_server:
        report = await campaign(redis_server.url, MESSAGES, seed=20261201)
    print(report.line())
    assert report.messages == MESSAGES
    assert report.refused > MESSAGES // 2  # the run reached the handlers' refusals
    assert report.handler_errors == []
    assert report.refused_changed == []
    assert (report.error_records, report.tracebacks) == (0, 0)


async def test_concurrent_connections_cut_mid_flood_log_no_error() -> None:
    """Many connections at once sending fuzzed frames unanswered, closed for
    malformed messages or cut off mid-frame: every one is a refusal or a close,
    never an ERROR record (once one connection's refusal came out of another's
    clean-up on the compiled build: docs/design/compiled-code.md)."""
    with fresh_server() as redis_server:
        report = await flood_campaign(redis_server.url, frame_maker(20261206), ATTACKERS,
                                      seed=20261206)
    print(report.line())
    assert report.frames > ATTACKERS * 10  # the attackers got their frames out
    assert (report.error_records, report.tracebacks) == (0, 0), "\n".join(report.first_errors)
