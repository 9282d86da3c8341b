"""The store comparison of the refusal tests leaves out only keys a server writes on
its own clock: a key a message writes must stay in it, or a refusal that changed it
would pass."""

from __future__ import annotations

import pytest

from server.rooms.analyses import analysis_key
from server.store import keys
from server.store.botleases import lease_key
from tests.support.storeview import on_their_clock


@pytest.mark.parametrize("key", [
    "season:{s2026-11-01}:final", "seasons:index", "mm:four-seasons:lease",
    lease_key("ABC123", 2), "arena:{x}:seen", "arena:{x}:lease", analysis_key("ABC123"),
])
def test_keys_written_on_a_clock_are_left_out(key: str) -> None:
    assert on_their_clock(key)


@pytest.mark.parametrize("key", [
    keys.meta("ABC123"), keys.player("ABC123", 2), keys.log("ABC123", 2), keys.done("ABC123"),
    keys.rematch("ABC123"), "user:ann",
    "room:{ABC123}:bot:2:x", "board:four-seasons:alltime",
])
def test_keys_a_message_writes_stay_in(key: str) -> None:
    assert not on_their_clock(key)
