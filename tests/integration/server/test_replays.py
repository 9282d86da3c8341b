"""Replays: a finished game's view at any move, from the server's own replay of
the record; refused before the results; never a card the player did not see."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import redis.asyncio as aioredis

from server.game.cards import card_text
from server.game.state import STOCK
from tests.integration.server.test_race import VIEW_KEYS, face_up
from tests.integration.server.test_spectating import walk, watcher
from tests.support.bot import Bot
from tests.support.servers import (
    close_all,
    fetch_record,
    is_card,
    play_out,
    race,
    results_of,
    room_snapshot,
    seat,
    start_race,
    states_of,
)


def check_view(msg: dict[str, Any], truth: list[Any]) -> None:
    """The replay view is the true position's face-up cards, and not one card more."""
    state = truth[msg["index"]]
    shown = msg["view"]
    assert set(shown) <= VIEW_KEYS, set(shown) - VIEW_KEYS
    assert shown["piles"] == face_up(state)
    assert shown["stock_count"] == len(state.piles[STOCK])
    sent = Counter(x for x in walk(msg) if is_card(x))
    visible = Counter(c for pile in face_up(state).values() for c in pile)
    assert sent == visible, sent - visible
    assert not {card_text(c) for c in state.piles[STOCK]} & set(sent)


async def test_replay_views_follow_the_record_for_players_and_spectators(url: str) -> None:
    bots, code = await race([url, url])
    spectator = await watcher(url, code)
    try:
        await asyncio.gather(*(play_out(b, 25) for b in bots))
        for b in [*bots, spectator]:
            await results_of(b)
        records = {n: await fetch_record(bots[0], n) for n in (1, 2)}
        for asker in (bots[1], spectator):
            for n in (1, 2):
                truth = states_of(records[n])
                total = len(records[n]["moves"])
                for index in sorted({0, 1, total // 2, total - 1, total}):
                    await asker.send({"t": "replay", "player": n, "index": index})
                    msg = await asker.expect("replay", player=n, index=index)
                    assert msg["total"] == total and msg["code"] == code
                    assert msg["move"] == (records[n]["moves"][index - 1] if index else None)
                    check_view(msg, truth)
                assert msg["view"]["status"] == "resigned" or msg["view"]["status"] in ("won", "dead")
        # past the end: the last position, and the index says so
        await spectator.send({"t": "replay", "player": 1, "index": 10**6})
        last = await spectator.expect("replay", player=1)
        assert last["index"] == len(records[1]["moves"])
        # by code, from a connection that is in no room at all
        outsider = Bot(url, "outsider")
        await outsider.connect()
        await outsider.send({"t": "replay", "code": code.lower(), "player": 2, "index": 3})
        check_view(await outsider.expect("replay", player=2, index=3), states_of(records[2]))
        await close_all([outsider])
    finally:
        await close_all([*bots, spectator])


async def test_no_replay_before_the_results_and_refusals_change_nothing(url: str,
                                                                        rdb: aioredis.Redis) -> None:
    bots, code = await seat([url, url])
    spectator = await watcher(url, code)
    outsider = Bot(url, "outsider")
    await outsider.connect()
    try:
        await start_race(bots)
        await bots[0].move(bots[0].choose() or "draw")
        before = await room_snapshot(rdb, code)
        for asker in (bots[0], bots[1], spectator):
            await asker.send({"t": "replay", "player": 1, "index": 1})
            assert (await asker.expect("error"))["code"] == "no_results"
        await outsider.send({"t": "replay", "code": code, "player": 1})
        assert (await outsider.expect("error"))["code"] == "no_results"
        await outsider.send({"t": "replay", "player": 1})
        assert (await outsider.expect("error"))["code"] == "not_in_room"
        await outsider.send({"t": "replay", "code": "ZZZZZ2", "player": 1})
        assert (await outsider.expect("error"))["code"] == "no_room"
        for bad in ({"player": 9}, {"player": "1"}, {"index": -1}, {"index": True}, {"code": 5}):
            await spectator.send({"t": "replay", **bad})
            assert (await spectator.expect("error"))["code"] == "bad_field", bad
        assert await room_snapshot(rdb, code) == before
        await asyncio.gather(*(play_out(b, 5) for b in bots))
        await results_of(spectator)
        await spectator.send({"t": "replay", "player": 3})
        assert (await spectator.expect("error"))["code"] == "bad_field"  # a room of two
    finally:
        await close_all([*bots, spectator, outsider])
