"""Bots as seats, on real servers and a real Redis: add_bot, the quick-race bot,
the same move path and record as a person, nothing a person's seat would not get,
and no bot in a rating."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import redis.asyncio as aioredis

from server.game import engine
from server.game.records import Record, verify
from server.game.views import view
from server.race.rows import PlayerRow, RoomRow
from server.rooms.bots.seat import BotSeat
from tests.integration.server.test_spectating import walk
from tests.support.bot import Bot
from tests.support.servers import (
    ServerFactory,
    close_all,
    fetch_record,
    is_card,
    move_log,
    play_out,
    player_row,
    results_of,
    seat,
    states_of,
    ws_url,
)


async def room_with_bot(bot_client: Any, n: int = 2) -> dict[str, Any]:
    """Read room messages until seat ``n`` is marked as a bot."""
    for _ in range(50):
        msg: dict[str, Any] = await bot_client.expect("room")
        players = {p["player"]: p for p in msg["players"]}
        if n in players and players[n]["bot"]:
            return msg
    raise AssertionError("no bot seat appeared")


def the_bot(app: Any) -> BotSeat:
    seats = list(app.bots.seats)
    assert len(seats) == 1
    seat: BotSeat = seats[0]
    return seat


async def test_add_bot_seats_a_bot_that_plays_through_the_move_path(make_server: ServerFactory,
                                                                    rdb: aioredis.Redis) -> None:
    app = await make_server(bot_pace_pct=0)
    (human,), code = await seat([ws_url(app)], players=2)
    try:
        await human.send({"t": "add_bot", "level": 1})
        room = await room_with_bot(human)
        bot_row = room["players"][1]
        assert bot_row["bot"] == 1 and bot_row["name"] == "Beginner bot"
        assert room["players"][0]["bot"] == 0
        assert (await player_row(rdb, code, 2))["bot"] == "1"
        await human.send({"t": "ready"})
        await human.expect("view")
        human.seq += 1
        await human.send({"t": "resign", "seq": human.seq})
        results = await results_of(human, timeout=60)
        ranking = {r["player"]: r for r in results["ranking"]}
        assert ranking[2]["bot"] == 1 and ranking[1]["bot"] == 0
        # the bot's game is in the same log as a person's, and its record replays
        moves = await move_log(rdb, code, 2)
        assert moves and ranking[2]["moves"] == len(moves)
        record = await fetch_record(human, 2)
        verdict = verify(Record(record["variant"], record["deal"], tuple(record["moves"])))
        assert verdict["legal"] and verdict["foundation_cards"] == ranking[2]["foundation_cards"]
    finally:
        await close_all([human])


async def test_a_bot_seat_receives_nothing_a_person_in_a_seat_does_not(make_server: ServerFactory) -> None:
    """The recorded frames of the bot's seat against a person's in the same race: the same
    kinds of message with the same fields; each view exactly the engine's view of the bot's
    true position (so no stock card, in any order); no card outside a view; never the deal."""
    app = await make_server(bot_pace_pct=0)
    (human,), code = await seat([ws_url(app)], "betsy-ross", players=2)
    try:
        await human.send({"t": "add_bot", "level": 5})
        await room_with_bot(human)
        bot = the_bot(app)
        await human.send({"t": "ready"})
        await human.expect("view")
        # the person resigns after 30 moves, so the race ends when the bot's game does
        # (not when the time left to the others after a winner runs out)
        await play_out(human, 30)
        results = await results_of(human, timeout=90)
        record = await fetch_record(human, 2)
        await asyncio.sleep(0.1)
        frames = list(bot.frames)
        deal = results["deal"]
        states = states_of(record)
        human_fields: dict[str, set[str]] = {}
        for msg in human.inbox:
            human_fields.setdefault(msg["t"], set()).update(msg)
        views = 0
        for msg in frames:
            kind = msg["t"]
            assert kind in human_fields, kind
            assert set(msg) <= human_fields[kind], (kind, set(msg) - human_fields[kind])
            if kind == "results":
                break  # the deal is revealed to every seat here, after every game is over
            assert deal not in [str(x) for x in walk(msg)], msg
            if kind == "view":
                views += 1
                true_state = states[msg["v"]]
                assert msg["view"] == view(true_state), msg["v"]
                shown = sorted(c for c in walk(msg["view"]["piles"]))
                face_up = sorted(engine.rules_of(true_state).pile_text(true_state, i)[k]
                                 for i in range(1, len(true_state.piles))
                                 for k in range(len(true_state.piles[i])))
                assert shown == face_up  # every card shown is face up; the stock never is
            else:
                assert not any(is_card(x) for x in walk(msg)), msg
        assert views == len(record["moves"]) + 1  # the start, then one answer per move
    finally:
        await close_all([human])


async def test_add_bot_is_for_the_creator_of_a_private_lobby(make_server: ServerFactory,
                                                             rdb: aioredis.Redis) -> None:
    app = await make_server(bot_pace_pct=0)
    url = ws_url(app)
    (creator, guest), code = await seat([url, url], players=3)
    # an open room of a variant no quick-race test uses, taken off the quick list after
    public, public_code = await seat([url], "four-seasons-redeal", private=False, players=2)
    try:
        await guest.send({"t": "add_bot", "level": 3})
        assert (await guest.expect("error"))["code"] == "not_host"
        await public[0].send({"t": "add_bot", "level": 3})
        assert (await public[0].expect("error"))["code"] == "not_host"
        await creator.send({"t": "add_bot", "level": 6})
        assert (await creator.expect("error"))["code"] == "bad_field"
        await creator.send({"t": "add_bot", "level": 2})
        await room_with_bot(creator, 3)
        await creator.send({"t": "add_bot", "level": 2})  # three seats, all taken
        assert (await creator.expect("error"))["code"] == "room_full"
        assert len(app.bots.seats) == 1
        for p in (creator, guest):
            await p.send({"t": "ready"})
        await creator.expect("view")
        await creator.send({"t": "add_bot", "level": 2})
        assert (await creator.expect("error"))["code"] == "room_started"
    finally:
        await app.service.store.remove_quick("four-seasons-redeal", public_code)
        await close_all([creator, guest, *public])


async def test_a_quick_race_nobody_joins_gets_a_bot(make_server: ServerFactory) -> None:
    app = await make_server(bot_pace_pct=0, quick_bot_s=1, quick_bot_level=4)
    never = await make_server(bot_pace_pct=0, quick_bot_s=0)
    waiting, alone = Bot(ws_url(app), "waiting"), Bot(ws_url(never), "alone")
    try:
        # variants no other test races quick, so each waits alone in its queue
        for person, variant in ((waiting, "simplicity"), (alone, "four-seasons-1883")):
            await person.connect()
            await person.send({"t": "quick", "variant": variant})
            await person.expect("queued")
        await waiting.expect("joined")
        room = await room_with_bot(waiting)
        assert room["players"][1]["bot"] == 4  # a guest's bot: the configured level
        await asyncio.sleep(1.5)
        assert not never.bots.seats
        assert not [m for m in alone.inbox if m.get("t") == "joined"]  # without a bot wait it waits on
    finally:
        await close_all([waiting, alone])


async def test_a_bot_leaves_a_lobby_its_people_left(make_server: ServerFactory) -> None:
    app = await make_server(bot_pace_pct=0)
    (creator,), code = await seat([ws_url(app)], players=3)
    await creator.send({"t": "add_bot", "level": 1})
    await room_with_bot(creator)
    bot = the_bot(app)
    await creator.send({"t": "leave"})
    await close_all([creator])
    assert bot.task is not None
    await asyncio.wait_for(bot.task, 5)
    assert not app.bots.seats


async def test_a_bots_result_never_enters_a_rating(make_server: ServerFactory) -> None:
    """Even a bot seat holding a claimed name is kept out; the people's places are re-counted."""
    app = await make_server()
    robo, alice = f"robo-{secrets.token_hex(3)}", f"alice-{secrets.token_hex(3)}"
    variant, deal = "four-seasons", "12345"
    fc0 = engine.foundation_cards(engine.new_game(variant, deal))
    room = RoomRow(code="BOTRATE1", variant=variant, deal=deal, max=3, min=2, private=True,
                   phase="finished", starts_at=1, ends_at=2,
                   players=[PlayerRow(1, robo, fc=fc0, ident=robo, bot=3),
                            PlayerRow(2, alice, fc=fc0, ident=alice)])
    ranking = [{"place": 1, "player": 1, "won": False, "moves": 0, "foundation_cards": fc0},
               {"place": 2, "player": 2, "won": False, "moves": 0, "foundation_cards": fc0}]
    extra = await app.service.competition.after_race(room, ranking, {1: robo, 2: alice})
    assert "ratings" not in extra and "board_changed" not in extra
    entries, _ = await app.service.boards.ratings.page(variant, 0, 100)
    assert not {robo, alice} & {e["name"] for e in entries}
