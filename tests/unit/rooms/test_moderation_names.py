"""Moderation keeps names as the rest of the server does (its own copy of the
rule, as it may not import the player's module)."""

from __future__ import annotations

import pytest

from server.rooms.moderation import ModerationError, check_address, check_reason, tidy
from server.rooms.player import clean_name


@pytest.mark.parametrize("name", ["ann", " Ann  B ", "caf\u00e9", "a\x07b", "x" * 40, "\u200bzed", "a\u3000b",
                                  "\U0001f600", "tab\there"])
def test_tidy_is_the_players_clean_name(name: str) -> None:
    assert tidy(name) == clean_name(name)


def test_reasons_and_addresses() -> None:
    assert check_reason("  spam  ") == "spam"
    for bad in ("", "   ", "x" * 501):
        with pytest.raises(ModerationError):
            check_reason(bad)
    assert check_address("2001:db8::7") == "2001:db8::/64" and check_address("10.0.0.1") == "10.0.0.1"
    with pytest.raises(ModerationError):
        check_address("10.0.0.999")
