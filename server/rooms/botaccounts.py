"""Bot accounts, as lichess has them: a claimed name whose holder declares it a
program (docs/design/bot-accounts.md). It plays through the same websocket and
protocol as a person's seat, is marked as a bot wherever its name is shown,
is rated on a bots' board of its own (never the persons'), and meets persons
only in rooms they invited it to or in quick races they asked to share with
bots. The mark is for good, and only a name with no ranked result may take it.
"""

from __future__ import annotations

from typing import Any, Final

from ..store.botaccounts import BotAccountStore
from ..wire.protocol import ProtocolError

MARKED, RANKED, UNCLAIMED = 1, 0, -1
ACCEPT: Final = "a"  # a quick-race ticket's flag: a person who accepts bots
BOT: Final = "b"  # a quick-race ticket's flag: a bot account's


def ticket_flags(ticket: str) -> set[str]:
    """The flags after a quick-race ticket's process token and random part."""
    return set(ticket.split(".")[2:])


def refuse(what: str) -> ProtocolError:
    return ProtocolError("bot_account", f"a bot account cannot {what}: it races in private rooms it "
                         "is invited to and in quick races with persons who accept bots")


class BotAccounts:
    def __init__(self, store: BotAccountStore) -> None:
        self.store = store

    async def register(self, name: str) -> int:
        """Mark ``name`` a bot account: MARKED, RANKED (it has a ranked result:
        a person's name for good) or UNCLAIMED."""
        return await self.store.mark(name)

    async def is_bot(self, name: str | None) -> bool:
        return name is not None and bool(await self.store.marked([name]))

    async def marked(self, names: list[str]) -> set[str]:
        return await self.store.marked(names)

    async def board(self, variant: str, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """A page of the bots' rating board of a variant (all time), best first."""
        rows, total = await self.store.page(variant, "alltime", offset, limit)
        return await self.store.entries(variant, rows, offset), total

    async def forbid(self, name: str | None, what: str) -> None:
        """Refuse what a bot account may not do (a person passes at the cost of one read)."""
        if await self.is_bot(name):
            raise refuse(what)
