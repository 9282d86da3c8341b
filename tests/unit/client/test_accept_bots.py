"""``patience --accept-bots``: the client's quick races say the player accepts bot accounts."""

from __future__ import annotations

import asyncio
from typing import Any

from client.app import parse_args
from client.requests import Requests
from client.state import RaceState


class Sent(Requests):
    def __init__(self) -> None:
        self.name, self.state, self._seq = "ann", RaceState(), 0
        self.sent: list[dict[str, Any]] = []

    async def send(self, msg: dict[str, Any]) -> bool:
        self.sent.append(msg)
        return True


def test_quick_says_accept_bots_only_when_asked() -> None:
    plain, open_to_bots = Sent(), Sent()
    open_to_bots.accept_bots = parse_args(["--accept-bots"]).accept_bots
    asyncio.run(plain.quick("four-seasons"))
    asyncio.run(open_to_bots.quick("four-seasons"))
    assert plain.sent == [{"t": "quick", "variant": "four-seasons"}]
    assert open_to_bots.sent == [{"t": "quick", "variant": "four-seasons", "accept_bots": True}]
    assert parse_args([]).accept_bots is False
