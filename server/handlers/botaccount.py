"""``bot_account``: a signed-in name declares itself a bot account, for good
(docs/design/bot-accounts.md). Only a name with no ranked result may: a name
that has raced ranked as a person stays a person's."""

from __future__ import annotations

from typing import Any

from ..rooms.botaccounts import MARKED, RANKED
from ..rooms.player import Player
from ..wire.protocol import ProtocolError


async def on_bot_account(player: Player, msg: dict[str, Any]) -> None:
    if player.identified is None or player.key_id is None:
        raise ProtocolError("not_identified",
                            "sign in with the name's key first (claim, or hello with the key)")
    done = await player.service.competition.bot_accounts.register(player.identified)
    if done == RANKED:
        raise ProtocolError("bot_account", f"{player.identified} has ranked results as a person: "
                            "claim another name for the bot")
    if done != MARKED:
        raise ProtocolError("not_identified", f"{player.identified} is no longer claimed")
    player.send({"t": "bot_account", "name": player.identified})


HANDLERS = {"bot_account": on_bot_account}
