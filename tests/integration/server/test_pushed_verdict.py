"""A dead-position verdict that comes after its move was answered (server/rooms/verdicts.py).

The worker is held back by a gate, so each test decides when the verdict lands:
the move is answered ``in_progress`` at once, moves made meanwhile are answered
without a search of their own, and the verdict, when it lands, ends the game
where the player is, with the time of the move that made it dead.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from bench.dead_load import corpus
from server.app import RaceServer
from server.game import dead, engine
from server.ops.config import Settings
from server.store import keys
from tests.integration.server.test_solo import solo
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, txt, ws_url


class Gate:
    """The worker's searches, each held until the gate opens."""

    def __init__(self, app: RaceServer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = asyncio.Event()
        self.searched: list[engine.State] = []
        worker = app.service.dead_worker
        real = worker.decide

        async def gated(state: engine.State) -> bool | None:
            self.searched.append(state)
            await self.open.wait()
            return await real(state)

        monkeypatch.setattr(worker, "decide", gated)


async def pushed_server(make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
                        ) -> tuple[RaceServer, Gate]:
    """A server whose every dead search goes to the (gated) worker and whose
    moves never wait for it."""
    engine.clear_caches()
    app = await make_server()
    app.service.search_slice_s = 0.0  # a search yields after its first position
    app.service.search_offload_s = 0.0
    app.service.answer_wait_s = 0.0
    return app, Gate(app, monkeypatch)


def corpus_game(variant: str = "czarina", deal: str | None = None) -> tuple[str, list[str]]:
    game = next(g for g in corpus() if g["variant"] == variant
                and (deal is None or str(g["deal"]) == deal))
    return str(game["deal"]), str(game["moves"]).split()


# a corpus game whose last positions before the dead one are alive but need a search
ALIVE_SEARCHED = ("four-seasons-1883", "74120222633425240501")


def judged_positions(variant: str, deal: str, moves: list[str]) -> list[tuple[bool, str]]:
    """For each position after a move: (needs a search, its status)."""
    state, out = engine.new_game(variant, deal), []
    for text in moves:
        state = engine.play(state, text)
        out.append((engine.status_before_search(state)[2], engine.status(state)))
    engine.clear_caches()
    return out


async def play_all(bot: Bot, moves: list[str]) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    for text in moves:
        answer = await bot.move(text)
        assert answer["t"] == "view", answer
    return answer


async def pushed_view(bot: Bot) -> dict[str, Any]:
    while True:
        msg = await bot.recv()
        if msg.get("t") == "view" and msg.get("seq") is None:
            return msg


async def stored(rdb: aioredis.Redis, code: str) -> dict[str, str]:
    raw = await rdb.hgetall(keys.player(code, 1))
    return {txt(k): txt(v) for k, v in raw.items()}


async def log_ms(rdb: aioredis.Redis, code: str, v: int) -> int:
    row = await rdb.lindex(keys.log(code, 1), v - 1)
    return int(txt(row).split()[0])


async def played_to_dead(make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
                         ) -> tuple[Gate, Bot, str, list[str], dict[str, Any]]:
    """A czarina corpus game played as a solo game to the move that makes it
    dead, its verdict held at the gate: (gate, bot, room, moves, last answer)."""
    app, gate = await pushed_server(make_server, monkeypatch)
    deal, moves = corpus_game()
    bot, code = await solo(ws_url(app), "czarina", deal)
    return gate, bot, code, moves, await play_all(bot, moves)


async def test_a_late_dead_verdict_ends_the_game_at_the_move_that_made_it_dead(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, rdb: aioredis.Redis) -> None:
    gate, bot, code, moves, answer = await played_to_dead(make_server, monkeypatch)
    # answered at once, before the worker said anything
    assert answer["view"]["status"] == engine.IN_PROGRESS and answer["view"]["legal_moves"]
    assert (await stored(rdb, code))["status"] == engine.IN_PROGRESS
    dead_v = answer["v"]
    gate.open.set()
    pushed = await pushed_view(bot)
    assert pushed["v"] == dead_v and pushed["view"]["status"] == engine.DEAD
    assert pushed["view"]["legal_moves"] == []
    row = await stored(rdb, code)
    assert row["status"] == engine.DEAD and row["v"] == str(dead_v)
    assert int(row["done_ms"]) == await log_ms(rdb, code, dead_v)
    results = await bot.expect("results")  # the one game of the race is over: so is the race
    assert results["ranking"][0]["status"] == engine.DEAD
    # the last move's seq asked again gets the game's end, not the early answer
    await bot.send({"t": "move", "seq": bot.seq, "move": moves[-1], "v": dead_v - 1})
    again = await bot.expect("view", seq=bot.seq)
    assert again["view"]["status"] == engine.DEAD
    await bot.close()


async def test_moves_made_while_the_verdict_is_pending_need_no_search_and_end_with_it(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, rdb: aioredis.Redis) -> None:
    gate, bot, code, moves, answer = await played_to_dead(make_server, monkeypatch)
    dead_v = answer["v"]
    searches = len(gate.searched)
    # two more moves inside the dead region: answered at once, searched by nobody
    for _ in range(2):
        later = await bot.move(bot.view["legal_moves"][0] if bot.view else "")
        assert later["t"] == "view" and later["view"]["status"] == engine.IN_PROGRESS
    assert len(gate.searched) == searches
    gate.open.set()
    pushed = await pushed_view(bot)
    assert pushed["v"] == dead_v + 2 and pushed["view"]["status"] == engine.DEAD
    row = await stored(rdb, code)
    assert row["status"] == engine.DEAD and row["v"] == str(dead_v + 2)
    # dead since the move that made it so, not since the verdict's landing
    assert int(row["done_ms"]) == await log_ms(rdb, code, dead_v)
    await bot.close()


async def test_an_alive_verdict_after_covered_moves_judges_the_current_position(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, rdb: aioredis.Redis) -> None:
    app, gate = await pushed_server(make_server, monkeypatch)
    variant, deal = ALIVE_SEARCHED
    deal, moves = corpus_game(variant, deal)
    judged = judged_positions(variant, deal, moves)
    # the first position that needs a search and is alive: its verdict will say alive
    first = next(i for i, (search, status) in enumerate(judged)
                 if search and status == engine.IN_PROGRESS)
    assert judged[-1][1] == engine.DEAD
    bot, code = await solo(ws_url(app), variant, deal)
    await play_all(bot, moves[:first + 1])
    alive_at = len(gate.searched)
    assert alive_at >= 1  # that position went to the worker
    # the rest of the game while that verdict is pending
    for text in moves[first + 1:]:
        answer = await bot.move(text)
        assert answer["t"] == "view" and answer["view"]["status"] == engine.IN_PROGRESS
    assert (await stored(rdb, code))["status"] == engine.IN_PROGRESS
    gate.open.set()
    pushed = await pushed_view(bot)  # alive there; so the current position was judged: dead
    assert pushed["view"]["status"] == engine.DEAD and pushed["v"] == len(moves)
    assert len(gate.searched) > alive_at
    assert (await stored(rdb, code))["status"] == engine.DEAD
    await bot.close()


async def test_an_undo_drops_the_pending_verdict(
        make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, rdb: aioredis.Redis) -> None:
    app, gate = await pushed_server(make_server, monkeypatch)
    deal, moves = corpus_game()
    undone_to_needs_search = judged_positions("czarina", deal, moves)[-2][0]
    bot, code = await solo(ws_url(app), "czarina", deal)
    await play_all(bot, moves)
    searches = len(gate.searched)
    bot.seq += 1
    await bot.send({"t": "undo", "seq": bot.seq, "v": bot.v})
    back = await bot.expect("view", seq=bot.seq)
    assert back["view"]["status"] == engine.IN_PROGRESS
    # the position undone to is judged on its own
    assert len(gate.searched) == searches + undone_to_needs_search
    gate.open.set()
    await asyncio.sleep(0.5)  # both verdicts land; the dead one's game is no longer played
    assert (await stored(rdb, code))["status"] == engine.IN_PROGRESS
    assert not [m for m in bot.inbox if m.get("t") == "view" and m.get("seq") is None
                and m["view"]["status"] == engine.DEAD]
    await bot.close()


async def test_the_store_refuses_a_verdict_for_another_version(
        make_server: ServerFactory, rdb: aioredis.Redis) -> None:
    app = await make_server()
    deal, moves = corpus_game()
    bot, code = await solo(ws_url(app), "czarina", deal)
    await play_all(bot, moves[:3])
    before = await stored(rdb, code)
    store = app.service.store
    assert await store.verdict(code, 1, 2, engine.DEAD, 2, b"") == "stale"
    assert await stored(rdb, code) == before  # a refused verdict changes nothing
    assert await store.verdict(code, 1, 3, engine.DEAD, 3, b"") == "ok"
    assert await store.verdict(code, 1, 3, engine.DEAD, 3, b"") == "game_over"
    await bot.close()


async def test_the_answer_budget_is_a_setting(make_server: ServerFactory) -> None:
    assert Settings.from_env({}).dead_answer_ms == 250
    assert Settings.from_env({"PATIENCE_DEAD_ANSWER_MS": "40"}).dead_answer_ms == 40
    app = await make_server(dead_answer_ms=40)
    assert app.service.answer_wait_s == 0.04


def test_a_ranked_replay_runs_no_dead_position_search() -> None:
    """The results' replay runs on the event loop: it must not search (a search
    would remember its verdict, so the cache tells whether one ran)."""
    from server.game.records import Record
    from server.rooms.competition import ranked_replay

    deal, moves = corpus_game()
    engine.clear_caches()
    out = ranked_replay(Record("czarina", deal, tuple(moves)))
    final = engine.new_game("czarina", deal)
    for text in moves:
        final = engine.play(final, text)
    assert out["legal"] and out["undos"] == 0
    assert out["foundation_cards"] == engine.foundation_cards(final)
    assert dead.known_verdict(final) is None  # no search ran
    assert engine.status(final) == engine.DEAD and dead.known_verdict(final) is True
    engine.clear_caches()
