"""Handlers for names, the daily challenge and boards."""

from __future__ import annotations

from typing import Any

from ..game.variants import get_rules, variant_ids
from ..rooms.competition import board_date
from ..rooms.player import Player, clean_name
from ..rooms.service import RoomService
from ..wire.protocol import ProtocolError
from .common import check_not_banned, check_not_reserved, spend_claim, spend_room, variant_id

BOARD_KINDS = ("daily", "rating", "wins")


async def check_name(service: RoomService, name: str, key: str | None) -> tuple[str, str] | None:
    """(the claimed name a key proves, the id of that device key), or None for
    a guest's (unclaimed) name; a claimed name with a wrong or missing key is refused."""
    claimed, key_id = await service.competition.identity.prove(name, key)
    if not claimed:
        return None
    if key_id is None:
        raise ProtocolError("name_taken", f"the name {name!r} is claimed: send its key, or pick another")
    return name, key_id


async def on_claim(player: Player, msg: dict[str, Any]) -> None:
    name = clean_name(msg["name"])
    if player.identified is not None:
        raise ProtocolError("name_taken", f"this connection already plays as {player.identified}")
    await check_not_reserved(player, name)
    spend_claim(player)
    service = player.service
    made = await service.competition.identity.claim(name, msg.get("label"), service.settings.name_ttl_days)
    if made is None:
        raise ProtocolError("name_taken", f"the name {name!r} is already claimed")
    key, key_id, codes = made
    player.identified = player.name = name
    player.key_id = key_id
    today = service.competition.today()
    await service.competition.adopt_attempts(today, variant_ids(), name, player.device,
                                             {v for d, v in player.practised if d == today})
    player.send({"t": "claimed", "name": name, "key": key, "device": key_id, "recovery": codes})


async def on_daily(player: Player, msg: dict[str, Any]) -> None:
    """Start today's deal of a variant in a room of one; the first attempt of
    a claimed name is ranked, later ones (and guests') are practice."""
    service = player.service
    variant = variant_id(msg["variant"])
    if not service.competition.secret:
        raise ProtocolError("no_daily", "this server has no secret: the daily challenge is off")
    await service.competition.bot_accounts.forbid(player.identified, "play the daily (its board is persons')")
    await player.can_leave()  # check first: a refused daily counts no attempt and stores nothing
    await check_not_banned(player)
    spend_room(player)
    # Leave before anything is written: the day's deal may take a while to come,
    # and a race starting meanwhile must not turn this into a refusal that had
    # already counted an attempt (leave_current checks again, then leaves).
    await player.leave_current()
    date = service.competition.today()
    deal = await service.competition.daily_deal(date, variant)
    # Every attempt counts against the client's install (guests' too), and a
    # name's is ranked only if it is the first of the name and of the install:
    # practice as a guest, then claim, and the deal has been seen (docs/reference/protocol.md).
    names, devices = await service.competition.start_attempt(date, variant, player.identified,
                                                             player.device)
    ranked = player.identified is not None and names == 1 and devices <= 1
    if player.identified is None:
        player.practised.add((date, variant))
    grade = {} if deal.grade is None else {"grade": deal.grade}
    code = await service.open_room(variant, deal.deal, 1, True, min_players=1,
                                   daily=date, ranked=int(ranked), **grade)
    await player.join(code)


async def on_daily_info(player: Player, msg: dict[str, Any]) -> None:
    competition = player.service.competition
    info = await competition.info(variant_id(msg["variant"]))
    # what this connection's next attempt would be, so that the screen can say it
    # truthfully (a guest who played and then claimed the name plays practice)
    info["ranked"] = await competition.next_ranked(info["date"], info["variant"], player.identified,
                                                   player.device)
    player.send(info)


async def on_board(player: Player, msg: dict[str, Any]) -> None:
    """A page of a board, or with ``near`` a name's rank and its neighbours
    (the connection's own name unless ``name`` says whose)."""
    service = player.service
    kind = msg["kind"]
    if kind not in BOARD_KINDS:
        raise ProtocolError("bad_field", f"board: kind is one of {', '.join(BOARD_KINDS)}")
    if "variant" not in msg:
        raise ProtocolError("bad_field", f"board: a {kind} board needs a variant")
    variant = variant_id(msg["variant"])
    offset, limit = msg.get("offset", 0), msg.get("limit", 20)
    near = msg.get("near", False)
    who = clean_name(msg["name"]) if "name" in msg else player.identified or player.name
    if near and not who:
        raise ProtocolError("bad_field", "board: near needs a name (send name, or play under one)")
    out: dict[str, Any] = {"t": "board", "kind": kind, "variant": variant, "offset": offset}
    competition = service.competition
    if kind == "daily":
        if "season" in msg:
            raise ProtocolError("bad_field", "board: a daily board is a day's: it has no season")
        date = board_date(msg.get("date"), competition.today())
        total_cards = get_rules(variant).spec.total_cards
        if near:
            out["me"], out["entries"], out["total"] = await competition.daily_near(
                date, variant, who, total_cards)
        else:
            out["entries"], out["total"] = await competition.daily_board(
                date, variant, offset, limit, total_cards)
        out["date"] = date
        board = f"daily:{date}:{variant}"
    else:
        ladder = competition.ladder
        season = ladder.season_of(msg.get("season"))
        if near:
            out["me"], out["entries"], out["total"] = await ladder.near(kind, variant, season, who)
        else:
            out["entries"], out["total"] = await ladder.page(kind, variant, season, offset, limit)
        out["season"] = None if season == "alltime" else season
        board = f"{kind}:{variant}"
    if near:
        out["near"], out["offset"] = who, (out["entries"][0]["rank"] - 1 if out["entries"] else 0)
    service.watch_board(player.outbox, board)
    player.send(out)


async def on_profile(player: Player, msg: dict[str, Any]) -> None:
    player.send(await player.service.competition.profile(clean_name(msg["name"])))


HANDLERS = {"claim": on_claim, "daily": on_daily, "daily_info": on_daily_info, "board": on_board,
            "profile": on_profile}
