"""Protocol handlers for names, the daily challenge and boards.

Kept apart from server/session.py (rooms and races) so each stays one
concept; the session dispatches ``claim``, ``daily``, ``daily_info`` and
``board`` here.
"""

from __future__ import annotations

import hmac
import secrets
from typing import TYPE_CHECKING, Any

from .game.variants import UnknownVariant, get_rules
from .protocol import ProtocolError

if TYPE_CHECKING:
    from .session import Session

BOARD_KINDS = ("daily", "rating", "wins")


def _variant(name: object) -> str:
    try:
        return get_rules(name).spec.id
    except UnknownVariant as exc:
        raise ProtocolError("unknown_variant", str(exc)) from None


async def check_name(session: Session, name: str, key: str | None) -> None:
    """A claimed name needs its key; an unclaimed one is a guest's."""
    from .session import token_hash

    stored = await session.server.boards.key_hash(name)
    if stored is None:
        session.identified = None
        return
    if key is None or not hmac.compare_digest(stored, token_hash(key)):
        raise ProtocolError("name_taken", f"the name {name!r} is claimed: send its key, or pick another")
    session.identified = name


async def on_claim(session: Session, msg: dict[str, Any]) -> None:
    from .session import clean_name, token_hash

    name = clean_name(msg["name"])
    if session.identified is not None:
        raise ProtocolError("name_taken", f"this connection already plays as {session.identified}")
    key = secrets.token_urlsafe(24)
    if not await session.server.boards.claim(name, token_hash(key), session.server.clock()):
        raise ProtocolError("name_taken", f"the name {name!r} is already claimed")
    session.identified = session.name = name
    await session.send({"t": "claimed", "name": name, "key": key})


async def on_daily(session: Session, msg: dict[str, Any]) -> None:
    """Start today's deal of a variant in a room of one; the first attempt of
    a claimed name is ranked, later ones (and guests') are practice."""
    server = session.server
    variant = _variant(msg["variant"])
    if not server.competition.secret:
        raise ProtocolError("no_daily", "this server has no secret: the daily challenge is off")
    date = server.competition.today()
    deal = await server.competition.daily_deal(date, variant)
    ranked = False
    if session.identified is not None:
        ranked = await server.boards.start_attempt(date, variant, session.identified) == 1
    await session.leave_current()
    code = await server.open_room(variant, deal.deal, 1, True, min_players=1,
                                  daily=date, ranked=int(ranked))
    await session.join(code)


async def on_daily_info(session: Session, msg: dict[str, Any]) -> None:
    await session.send(await session.server.competition.info(_variant(msg["variant"])))


async def on_board(session: Session, msg: dict[str, Any]) -> None:
    server = session.server
    kind = msg["kind"]
    if kind not in BOARD_KINDS:
        raise ProtocolError("bad_field", f"board: kind is one of {', '.join(BOARD_KINDS)}")
    offset, limit = msg.get("offset", 0), msg.get("limit", 20)
    variant = _variant(msg["variant"]) if "variant" in msg else None
    out: dict[str, Any] = {"t": "board", "kind": kind, "variant": variant, "offset": offset}
    if kind == "daily":
        if variant is None:
            raise ProtocolError("bad_field", "board: a daily board needs a variant")
        date = msg.get("date") or server.competition.today()
        total_cards = get_rules(variant).spec.total_cards
        out["entries"], out["total"] = await server.boards.board_page(date, variant, offset, limit,
                                                                      total_cards)
        out["date"] = date
        board = f"daily:{date}:{variant}"
    elif kind == "rating":
        out["entries"], out["total"] = await server.boards.alltime_page("rating", offset, limit)
        board = "rating"
    else:
        if variant is None:
            raise ProtocolError("bad_field", "board: the wins board needs a variant")
        out["entries"], out["total"] = await server.boards.alltime_page(f"daily-wins:{variant}",
                                                                        offset, limit)
        board = f"wins:{variant}"
    server.watch_board(session, board)
    await session.send(out)


HANDLERS = {"claim": on_claim, "daily": on_daily, "daily_info": on_daily_info, "board": on_board}
