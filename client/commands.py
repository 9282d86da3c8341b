"""What the session does for each command a key asks for: :data:`COMMANDS`, one
small coroutine per command name (the app keeps ``quit`` and ``share``, which
act on the terminal)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from .friends import answered
from .home import send_safe_home
from .records import save_record
from .screens.games import PAGE as GAMES_PAGE
from .screens.replay import open_replay, racers
from .ui import Command

if TYPE_CHECKING:
    from .connection import ClientSession

__all__ = ["COMMANDS", "Doer", "run"]


class Doer(NamedTuple):
    """Who carries a command out: the session, and where records are saved (``--records``)."""

    session: ClientSession
    records: Path


Run = Callable[[Doer, Command], Awaitable[Any]]


async def run(doer: Doer, command: Command) -> bool:
    """Carry out ``command``; False for a command not in :data:`COMMANDS`."""
    action = COMMANDS.get(command.name)
    if action is None:
        return False
    await action(doer, command)
    return True


# -- races and rooms -----------------------------------------------------------------------
async def _create(d: Doer, c: Command) -> None:
    await d.session.create(c.arg, c.num or 2, True)


async def _home(d: Doer, c: Command) -> None:
    await send_safe_home(d.session)


async def _unwatch(d: Doer, c: Command) -> None:
    d.session.unwatch_board()


async def _board(d: Doer, c: Command) -> None:
    scopes = c.scope.split(",")
    await d.session.board(c.kind, c.arg or None, offset=c.num,
                          season="current" if "season" in scopes else None, near="near" in scopes)


# -- solo games ------------------------------------------------------------------------------
async def _solo(d: Doer, c: Command) -> None:
    msg: dict[str, Any] = {"t": "solo", "variant": c.arg}
    if c.kind:
        msg["deal"] = c.kind
    await d.session.send(msg)


async def _undo(d: Doer, c: Command) -> None:
    await d.session.send({"t": "undo", "seq": d.session.next_seq(), "v": d.session.state.v})


async def _save(d: Doer, c: Command) -> None:
    await save_record(d.session, d.records)


# -- watching, ghosts and replays --------------------------------------------------------------
async def _ghost(d: Doer, c: Command) -> None:
    msg: dict[str, Any] = {"t": "ghost", "code": c.arg}
    if c.num:
        msg["player"] = c.num
    await d.session.send(msg)


async def _replay_open(d: Doer, c: Command) -> None:
    state = d.session.state
    first, other = open_replay(state)
    state.replaying = {"code": state.code, "player": first, "index": 0, "with": other}
    for n in racers(state):
        if n not in state.records:
            await d.session.send({"t": "record", "player": n})
    await d.session.send({"t": "replay", "player": first, "index": 0})


async def _replay(d: Doer, c: Command) -> None:
    await d.session.send({"t": "replay", "player": int(c.arg), "index": max(c.num, 0)})


async def _replay_with(d: Doer, c: Command) -> None:
    if d.session.state.replaying is not None:
        d.session.state.replaying["with"] = c.num


async def _replay_close(d: Doer, c: Command) -> None:
    d.session.state.replaying = None


async def _games(d: Doer, c: Command) -> None:
    await d.session.send({"t": "games", "name": c.arg, "offset": max(c.num, 0), "limit": GAMES_PAGE})


async def _game_replay(d: Doer, c: Command) -> None:
    await d.session.send({"t": "game_replay", "name": c.scope, "code": c.arg, "index": max(c.num, 0)})


async def _game_ghost(d: Doer, c: Command) -> None:
    await d.session.send({"t": "game_ghost", "name": c.scope, "code": c.arg})


# -- arenas ----------------------------------------------------------------------------------
async def _arena_leave(d: Doer, c: Command) -> None:
    state = d.session.state
    if state.arena is not None and state.arena.get("phase") == "finished":
        state.arena = None  # the server forgot the members of a finished arena already
    else:
        await d.session.send({"t": "arena_leave"})
    await d.session.send({"t": "arenas"})


# -- devices ---------------------------------------------------------------------------------
async def _revoke(d: Doer, c: Command) -> None:
    """The device with that number in the list on screen."""
    listed = d.session.state.devices
    if not 1 <= c.num <= len(listed) or not isinstance(listed[c.num - 1].get("id"), str):
        d.session.state.tell("no device has that number in the list", error=True)
        return
    await d.session.send({"t": "revoke", "id": listed[c.num - 1]["id"]})


async def _codes_seen(d: Doer, c: Command) -> None:
    d.session.state.recovery_codes = []  # shown once: gone from memory too


def _sends(kind: str, field: str = "") -> Run:
    """A command that sends one message of ``kind``, with the command's ``arg`` as ``field``."""
    async def send(d: Doer, c: Command) -> None:
        await d.session.send({"t": kind, field: c.arg} if field else {"t": kind})
    return send


async def _report(d: Doer, c: Command) -> None:
    """A report: the name and the race's room (if any) in ``scope``, the reason in ``kind``."""
    name, _, room = c.scope.partition("\t")
    msg = {"t": "report", "name": name, "reason": c.kind, "text": c.arg[:200]}
    await d.session.send({**msg, "room": room} if room else msg)


async def _challenge(d: Doer, c: Command) -> None:
    await d.session.send({"t": "challenge", "name": c.arg, "variant": c.kind})


async def _answer(d: Doer, c: Command) -> None:
    answered(d.session.state, c.arg)
    await d.session.send({"t": "challenge_answer", "name": c.arg, "accept": bool(c.num)})


COMMANDS: Final[dict[str, Run]] = {
    "move": lambda d, c: d.session.move(c.arg),
    "home": _home,
    "resign": lambda d, c: d.session.resign(),
    "quick": lambda d, c: d.session.quick(c.arg),
    "create": _create,
    "join": lambda d, c: d.session.join(c.arg),
    "ready": lambda d, c: d.session.ready(),
    "leave": lambda d, c: d.session.leave(),
    "rematch": lambda d, c: d.session.rematch(),
    "decline": lambda d, c: d.session.rematch(accept=False),
    "claim": lambda d, c: d.session.claim(c.arg),
    "daily_info": lambda d, c: d.session.daily_info(c.arg),
    "daily": lambda d, c: d.session.daily(c.arg),
    "board": _board,
    "unwatch": _unwatch,
    "solo": _solo,
    "undo": _undo,
    "hint": _sends("hint"),
    "save": _save,
    "watch": _sends("watch", "code"),
    "ghost": _ghost,
    "replay_open": _replay_open,
    "replay": _replay,
    "replay_with": _replay_with,
    "replay_close": _replay_close,
    "arenas": _sends("arenas"),
    "arena_join": _sends("arena_join", "id"),
    "arena_info": _sends("arena_info", "id"),
    "arena_leave": _arena_leave,
    "profile": _sends("profile", "name"),
    "devices": _sends("devices"),
    "link_code": _sends("link_code"),
    "rotate_key": _sends("rotate_key"),
    "recovery_codes": _sends("recovery_codes"),
    "revoke": _revoke,
    "codes_seen": _codes_seen,
    "report": _report,
    "redeem": lambda d, c: d.session.redeem(c.kind, c.scope, c.arg),  # kind: link or recover; scope: the name
    "friends": _sends("friends"),
    "follow": _sends("follow", "name"),
    "unfollow": _sends("unfollow", "name"),
    "block": _sends("block", "name"),
    "unblock": _sends("unblock", "name"),
    "challenge": _challenge,
    "challenge_answer": _answer,
    "games": _games,  # arg: the name, num: the offset
    "game_replay": _game_replay,  # arg: the game's code, num: the move index, scope: whose
    "game_ghost": _game_ghost,  # arg: the game's code, scope: whose
    "analyse": _sends("analyse"),
}
