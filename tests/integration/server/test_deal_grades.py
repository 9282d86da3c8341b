"""A race's deal graded by difficulty before the race: worked out off the
event loop, kept with the room, and published to its players in the lobby."""

from __future__ import annotations

import asyncio

from server.game.solver.difficulty import grade_deal
from server.rooms.bots.par import bot_pars
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, ws_url


async def test_a_room_gets_its_deals_grade_in_the_lobby(make_server: ServerFactory) -> None:
    app = await make_server(grade_budget=2_000)
    ann = Bot(ws_url(app), "ann")
    await ann.connect()
    await ann.send({"t": "create", "variant": "four-seasons-redeal", "players": 2})
    code = (await ann.expect("joined"))["code"]
    graded = await ann.expect("room")
    assert "difficulty" in graded
    while graded["difficulty"] is None:  # the room is sent again once graded
        graded = await ann.expect("room", timeout=60, code=code)
    room = await app.service.room(code)
    assert room is not None and room.phase == "lobby"  # no one waited for it
    # the grade the worker found is the solver's grade of the room's deal
    assert graded["difficulty"] == room.grade == grade_deal(room.variant, room.deal, 2_000).grade
    await ann.close()


async def test_grading_off_leaves_rooms_without_a_grade(make_server: ServerFactory) -> None:
    app = await make_server()  # the tests' servers grade nothing unless asked
    assert app.competition.par is bot_pars  # (and make no daily par: daily_par_games=0)
    ann = Bot(ws_url(app), "ann")
    await ann.connect()
    await ann.send({"t": "create", "variant": "four-seasons-redeal", "players": 2})
    code = (await ann.expect("joined"))["code"]
    assert (await ann.expect("room"))["difficulty"] is None
    await asyncio.sleep(0.05)
    room = await app.service.room(code)
    assert room is not None and room.grade is None and not app.service.grader._tasks
    await ann.close()
