"""A room and its players as the store keeps them: plain rows that the race's
rules read and the store writes (layout in docs/reference/storage.md)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PlayerRow:
    n: int
    name: str
    v: int = 0
    seq: int = -1
    status: str = "in_progress"
    fc: int = 0
    ready: bool = False
    conn: bool = False
    left: bool = False
    fc_ms: int | None = None
    done_ms: int | None = None
    ident: str | None = None  # the claimed name the player proved, if any
    gone: int | None = None  # when its connection went (server ms), while it is gone
    bot: int = 0  # a bot's level (1-5); 0 for a person
    bot_account: bool = False  # a claimed name declared a program (docs/design/bot-accounts.md)


@dataclass
class RoomRow:
    code: str
    variant: str
    deal: str
    max: int
    min: int
    private: bool
    phase: str
    starts_at: int = 0
    ends_at: int = 0
    players: list[PlayerRow] = field(default_factory=list)
    results: bytes | None = None
    rematch: str | None = None
    daily: str | None = None  # the date, for a daily-challenge room
    ranked: bool = False  # a daily room holding the player's first attempt of the day
    solo: bool = False  # a solo game: one player, a chosen deal, undo and hints, never ranked
    arena: str | None = None  # the arena that paired this race (docs/design/arenas.md)
    grade: int | None = None  # the deal's difficulty, 1 easy .. 5 no win found (docs/design/difficulty.md)

    def player(self, n: int) -> PlayerRow | None:
        return self.players[n - 1] if 1 <= n <= len(self.players) else None
