"""The race's rules, without I/O: phases, who may move, ranking, messages.

The store keeps the facts (server/store); this module decides what they mean
and what players are told, so it is tested by feeding it rows.
"""

from __future__ import annotations

from typing import Any, Final

import msgpack

from ..game.engine import IN_PROGRESS, WON
from ..game.state import State
from ..game.variants import get_rules
from ..race.rows import PlayerRow, RoomRow


def phase_at(room: RoomRow, now: int) -> str:
    """``lobby``, ``countdown``, ``racing`` or ``finished`` at server time ``now``."""
    if room.phase == "racing":
        if now < room.starts_at:
            return "countdown"
        return "racing"
    return room.phase


def shown_names(room: RoomRow) -> dict[int, str]:
    """Each seat's name as every screen shows it: players who picked the same
    name (guests may) are told apart by a number after it, ``ann``, ``ann #2``,
    in seat order, so no one mistakes one for the other."""
    out: dict[int, str] = {}
    seen: dict[str, int] = {}
    for p in room.players:
        if p.left:
            out[p.n] = p.name
            continue
        key = p.name.casefold()
        seen[key] = seen.get(key, 0) + 1
        out[p.n] = p.name if seen[key] == 1 else f"{p.name} #{seen[key]}"
    return out


def player_public(p: PlayerRow, name: str | None = None) -> dict[str, Any]:
    """What every player of a room may know about a player: never a card."""
    return {"player": p.n, "name": name or p.name, "ready": p.ready, "connected": p.conn,
            "left": p.left, "status": p.status, "foundation_cards": p.fc, "moves": p.v,
            "claimed": p.ident is not None, "bot": p.bot, "bot_account": p.bot_account}


def room_message(room: RoomRow, now: int) -> dict[str, Any]:
    names = shown_names(room)
    rules = get_rules(room.variant)
    out = {
        "t": "room", "code": room.code, "variant": room.variant, "players_max": room.max,
        "private": room.private, "phase": phase_at(room, now),
        "players": [player_public(p, names[p.n]) for p in room.players],
        "starts_at": room.starts_at or None, "ends_at": room.ends_at or None,
        "total_cards": rules.spec.total_cards, "layout": rules.layout(),
        "server_time": now, "rematch": room.rematch, "daily": room.daily, "ranked": room.ranked,
        "solo": room.solo, "arena": room.arena, "difficulty": room.grade,
    }
    if room.solo:  # its player chose the deal (or asked for a random one): no secret to keep
        out["deal"] = room.deal
    return out


def progress_message(n: int, status: str, fc: int, total: int, moves: int,
                     connected: bool = True) -> dict[str, Any]:
    return {"t": "progress", "player": n, "status": status, "foundation_cards": fc,
            "total_cards": total, "moves": moves, "connected": connected}


# The move path's progress, put together from msgpack fragments made once: the
# same bytes as encoding progress_message's dict (a map's bytes are its keys and
# values in order), for far fewer instructions (docs/benchmarks.md).
# (Final: compiled, a constant is read directly, not looked up in the module)
_packb: Final = msgpack.Packer(use_bin_type=True).pack
_PROGRESS_HEAD: Final = b"\x87" + _packb("t") + _packb("progress") + _packb("player")
_STATUS: Final = _packb("status")
_FC: Final = _packb("foundation_cards")
_TOTAL: Final = _packb("total_cards")
_MOVES: Final = _packb("moves")
_CONNECTED: Final = _packb("connected")
_FIXINTS: Final = [bytes((i,)) for i in range(128)]  # msgpack's positive fixints: the byte itself
_STATUSES: Final[dict[str, bytes]] = {}  # a status's packed text (a handful of statuses)
STATUSES_MAX: Final = 64


def _int(i: int) -> bytes:
    return _FIXINTS[i] if 0 <= i < 128 else _packb(i)


def encode_progress(n: int, status: str, fc: int, total: int, moves: int,
                    connected: bool = True) -> bytes:
    """The bytes of ``encode(progress_message(n, status, fc, total, moves, connected))``."""
    packed = _STATUSES.get(status)
    if packed is None:
        packed = _packb(status)
        if len(_STATUSES) < STATUSES_MAX:
            _STATUSES[status] = packed
    return b"".join((_PROGRESS_HEAD, _int(n), _STATUS, packed, _FC, _int(fc), _TOTAL, _int(total),
                     _MOVES, _int(moves), _CONNECTED, b"\xc3" if connected else b"\xc2"))


def ranking(room: RoomRow) -> list[dict[str, Any]]:
    """Winners by finish time; then the rest by foundation cards (more first),
    then by the time they reached that count (earlier first)."""
    total = get_rules(room.variant).spec.total_cards
    race_ms = max(room.ends_at - room.starts_at, 0)

    def key(p: PlayerRow) -> tuple[int, int, int]:
        if p.status == WON:
            return (0, p.done_ms if p.done_ms is not None else race_ms, 0)
        reached = p.fc_ms if p.fc_ms is not None else race_ms
        return (1, -p.fc, reached)

    out = []
    # players who left the lobby (or were dropped at the start) took no part
    racers = [p for p in room.players if not p.left]
    names = shown_names(room)
    for place, p in enumerate(sorted(racers, key=key), start=1):
        status = p.status if p.status != IN_PROGRESS else "timed_out"
        time_ms = p.done_ms if p.status == WON else p.fc_ms
        out.append({"place": place, "player": p.n, "name": names[p.n], "won": p.status == WON,
                    "status": status, "time_ms": time_ms, "foundation_cards": p.fc,
                    "total_cards": total, "moves": p.v, "bot": p.bot, "bot_account": p.bot_account})
    return out


def results_message(room: RoomRow) -> dict[str, Any]:
    """The ranking, and the deal number: revealed here and not before, except
    for a daily deal, which stays secret until the day closes, and an arena's,
    which other races of its pairing round may still be playing (others
    still have to play it)."""
    return {"t": "results", "code": room.code, "variant": room.variant,
            "deal": None if room.daily or room.arena else room.deal, "deal_version": "deal_v1",
            "daily": room.daily, "arena": room.arena, "ranking": ranking(room)}


def one_seat_each(room: RoomRow) -> bool:
    """No claimed name holds two seats among the racers (joining takes a name's
    seat over, so this holds unless something went around that): a race that
    breaks it is neither rated nor boarded."""
    idents = [p.ident.casefold() for p in room.players if p.ident and not p.left]
    return len(idents) == len(set(idents))


def all_done(room: RoomRow) -> bool:
    return all(p.status != IN_PROGRESS or p.left for p in room.players)


def race_over(room: RoomRow, now: int) -> bool:
    """A race still racing whose games are all over, or whose clock ran out at
    ``now``: what the application layer's one finish path decides on
    (``RoomService.finish_if_done``; the store's FINISH script checks the same
    again, atomically)."""
    return room.phase == "racing" and (now >= room.ends_at or all_done(room))


def cards_conserved(before: State, after: State) -> bool:
    """A move kept every card in play exactly as often as before. Only the piles
    it changed are compared: an unchanged pile is the very same tuple, so by
    induction from the deal every card of the deal is still there once."""
    old: list[int] = []
    new: list[int] = []
    was, now = before.piles, after.piles
    if len(was) != len(now):
        return False
    for i in range(len(was)):  # indexed: compiled, faster than a zip's iterator
        a, b = was[i], now[i]
        if a is not b:
            old.extend(a)
            new.extend(b)
    old.sort()
    new.sort()
    return old == new
