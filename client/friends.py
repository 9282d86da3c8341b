"""Friends, challenges and notices as the client keeps them (pure reducers):
the last friends list, the challenges waiting for an answer, and a line for
each notice (docs/reference/protocol.md, "Friends, challenges and notices")."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final, Protocol

MAX_WAITING: Final = 20  # challenges kept (the server holds no more per name)


class RaceState(Protocol):
    """What these reducers touch of client.state.RaceState (which imports them)."""

    friends: dict[str, Any] | None
    challenges: list[dict[str, Any]]

    def tell(self, text: str, error: bool = False) -> None: ...


def _text(value: Any, limit: int = 24) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _waiting(value: Any) -> list[dict[str, Any]]:
    rows = [c for c in value if isinstance(c, dict) and isinstance(c.get("name"), str)] \
        if isinstance(value, list) else []
    return rows[:MAX_WAITING]


def friends(state: RaceState, msg: dict[str, Any]) -> None:
    state.friends = dict(msg)
    state.challenges = _waiting(msg.get("challenges"))


def challenge_sent(state: RaceState, msg: dict[str, Any]) -> None:
    state.tell(f"challenge sent to {_text(msg.get('name'))}: it waits two minutes for the answer")


def answered(state: RaceState, name: str) -> None:
    """The player answered the challenge of ``name``: it waits no more."""
    state.challenges = [c for c in state.challenges if c.get("name") != name]


def _challenge(state: RaceState, msg: dict[str, Any]) -> str:
    name = _text(msg.get("name"))
    state.challenges = [c for c in state.challenges if c.get("name") != name]
    state.challenges = [*state.challenges, {"name": name, "variant": _text(msg.get("variant"), 64),
                                            "expires_at": msg.get("expires_at")}][-MAX_WAITING:]
    return f"{name} challenges you to {_text(msg.get('variant'), 64)}: f in the lobby to answer"


NOTICES: Final[dict[str, Callable[[RaceState, dict[str, Any]], str]]] = {
    "challenge": _challenge,
    "challenge_declined": lambda s, m: f"{_text(m.get('name'))} declined your challenge",
    "challenge_accepted": lambda s, m: f"{_text(m.get('name'))} accepted your challenge: "
                                       f"room {_text(m.get('code'), 16)}",
    "friend_online": lambda s, m: f"{_text(m.get('name'))} is online",
    "arena_soon": lambda s, m: f"the arena {_text(m.get('name'), 40)} starts in a minute",
    "season_ending": lambda s, m: f"the season ends {_when(m.get('ends_at'))}",
}


def _when(ms: Any) -> str:
    if isinstance(ms, bool) or not isinstance(ms, int):
        return "soon"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ms / 1000))


def notice(state: RaceState, msg: dict[str, Any]) -> None:
    line = NOTICES.get(_text(msg.get("kind"), 32))
    if line is not None:
        state.tell(line(state, msg))


REDUCERS: Final = {"friends": friends, "challenge_sent": challenge_sent, "notice": notice}
