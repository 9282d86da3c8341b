"""The claimed name a quick-race ticket carries, and the hub's channel of a member."""

from __future__ import annotations

from server.rooms.hub import NOTIFY_PREFIX, channel_of
from server.rooms.matchmaker import name_in, named
from server.store import keys, presence
from server.store.presence import notify_channel


def test_a_ticket_carries_its_claimed_name_casefolded() -> None:
    for name in ("Ann", "Zoë", "a.n b", "x.nff"):
        assert name_in(f"0123abcd.a1b2c3{named(name)}") == name.casefold()
    assert name_in("0123abcd.a1b2c3.g") is None
    assert name_in("0123abcd.a1b2c3") is None
    assert name_in("0123abcd.a1b2c3.nzz") is None  # not hex: no name


def test_a_name_channel_is_its_own_and_a_room_channel_its_code() -> None:
    assert NOTIFY_PREFIX == presence.NOTIFY_PREFIX
    channel = notify_channel("Ann")
    assert channel == "notify:{ann}"
    assert channel_of(channel) == channel
    assert channel_of("ABC123") == keys.channel("ABC123")
