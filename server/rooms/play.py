"""The move path: one player's move from its checks to the store and back.

Idempotent by ``seq`` (the same seq gets the same answer), guarded by the
position's version ``v`` (a move made against an older position is refused
and the current view follows), checked by the engine and by card
conservation, stored by one pipelined store script.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..game import engine
from ..game.dead import known_verdict, raises_count
from ..game.moves import BadMove, GameOver, IllegalMove, Move, parse
from ..game.state import State
from ..ops.metrics import ACCEPTED, MOVES_REJECTED
from ..race.rules import encode_progress
from ..wire.protocol import ProtocolError, encode, error
from . import verdicts
from .player import Player
from .session import GameSession, Proof

log = logging.getLogger("patience.play")

REFUSALS = {"not_started": "the race has not started yet", "race_over": "the race is over",
            "game_over": "your game has ended", "stale_seq": "that seq is older than the last one",
            "too_long": "this game has reached the move limit"}
_ENGINE_ERRORS = {BadMove: "bad_move", IllegalMove: "illegal_move", GameOver: "game_over"}

# (position, move text, its status) -> the next position, or an engine error.
# A solo game's undo passes its own (server/handlers/solo.py): the rest of the
# path, checks and storing included, is the same for it.
Step = Callable[[State, str, str], State]


async def play(player: Player, seq: int, text: str, v: int, step: Step = engine.play) -> None:
    # one writer per game: a verdict that lands late (server/rooms/verdicts.py) waits
    # for the move in hand, from its check to its store
    game = player.game
    lock = game.write_lock
    if not lock.try_acquire():  # free nearly always: no coroutine then
        await lock.acquire()
    try:
        await _play(player, game, seq, text, v, step)
    finally:
        lock.release()


async def _play(player: Player, game: GameSession, seq: int, text: str, v: int, step: Step) -> None:
    code = player.need_room()
    if seq == game.last_seq and game.last_answer:
        for payload in game.last_answer:  # the same seq gets the same answer
            player.send_bytes(payload)
        return
    if seq == game.last_seq and game.state is not None:
        # Accepted before this connection (the stored seq came with a resume):
        # that move made the current position, so its view is the same answer.
        # With replica durability, only once a replica has it: it may have been
        # stored and refused for want of one (the script answers 'dup' and the
        # batch's WAIT counts the replicas that have it).
        if player.service.store.replicated:
            await player.service.store.move(code, player.n, game.v, seq, player.clock(), "",
                                             game.status, 0, b"")
        game.last_answer = [player.send_view(seq)]
        return
    if seq < game.last_seq:
        raise ProtocolError("stale_seq", f"seq {seq} is older than the last one ({game.last_seq})")
    now = player.clock()
    if game.state is None or now < game.starts_at:
        raise ProtocolError("not_started", "the race has not started yet")
    service = player.service
    if now >= game.ends_at:
        await service.finish_if_done(code)
        raise ProtocolError("race_over", "the race clock has run out")
    if v != game.v:
        player.send(error("stale_version", f"the position is at version {game.v}, not {v}", seq))
        player.send_view(seq)
        return
    state = game.state
    try:
        new_state = step(state, text, game.status)
    except (BadMove, IllegalMove, GameOver) as exc:
        code_ = _ENGINE_ERRORS[type(exc)]
        MOVES_REJECTED.labels(code_).inc()
        answer = encode(error(code_, str(exc), seq))
        game.last_seq, game.last_answer = seq, [answer]
        player.send_bytes(answer)
        return
    if not service.conserved(state, new_state):
        log.error("card conservation failed: game frozen", extra=player.log_extra())
        await service.store.set_player_fields(code, player.n, status="frozen")
        raise ProtocolError("internal", "this game failed a consistency check and is frozen")
    status, moves, needs_search = engine.status_before_search(new_state)
    # a position that can go back to one proven alive is alive: no search
    inferred = needs_search and step is engine.play and comes_back(game.alive, state, new_state,
                                                                     text, moves)
    needs_search = needs_search and not inferred
    covered = needs_search and step is engine.play and verdicts.covered(game, new_state)
    verdict = None
    if needs_search and not covered:
        status, moves, verdict = await service.search(new_state, moves)
    if player.code != code or game.state is not state:
        # the player left, or its state was rebuilt, while the search ran
        raise ProtocolError("stale_version", "the position changed: send the move again")
    fc = engine.foundation_cards(new_state)

    n, total = player.n, game.total_cards  # as they are now, whenever it is encoded

    def progress() -> bytes:
        return encode_progress(n, status, fc, total, v + 1)

    with_move = player.progress.send_with_move(fc, status)
    try:
        result, stored_v = await service.store.move(
            code, player.n, v, seq, now, text, status, fc, progress() if with_move else b"")
    except BaseException:
        player.progress.refused()
        raise
    if result == "ok":
        player.progress.accepted(code, player.n, fc, status, progress, with_move)
        ACCEPTED.inc()
        game.state, game.v, game.status = new_state, stored_v, status
        game.last_seq = seq
        game.alive = (new_state, moves, inferred)  # for the next move's comes_back
        if verdict is not None:
            verdicts.follow(player, new_state, stored_v, verdict)  # answered before its verdict
        elif covered and game.pending is not None:
            game.pending.covered = True  # its verdict speaks for this position too
        else:
            game.drop_pending()  # judged on its own: an older verdict says nothing of it
        game.last_answer = [player.send_view(seq, status, moves)]
        if status != engine.IN_PROGRESS:
            await service.finish_if_done(code)
        return
    player.progress.refused()
    if verdict is not None:
        verdict.cancel()  # for a position that was not stored
    if result in ("dup", "stale"):
        # Another connection of this player, or a lost reply: the store wins.
        await player.reload()
        if result == "stale":
            player.send(error("stale_version", "the position changed: here is the current one", seq))
        game.last_seq = max(game.last_seq, seq) if result == "dup" else game.last_seq
        answer = player.send_view(seq)
        if result == "dup":
            game.last_answer = [answer]
        return
    err = "race_over" if result == "too_long" else result
    raise ProtocolError(err, REFUSALS.get(result, result))



def comes_back(proof: Proof | None, before: State, after: State, text: str, moves: list[Move]) -> bool:
    """Whether ``after`` (``before`` with the move ``text`` played; ``moves``: its
    legal moves) is alive because it can go straight back to ``before``, and
    ``before`` is proven alive (``proof``: the player's ``alive``, what the last
    move left of its position).

    Why this is exact: when one legal move of ``after`` gives ``before`` again,
    every position reachable from ``before`` is reachable from ``after``. A
    position is alive when a reachable one offers a move that puts a card from
    outside the foundations onto one (rules 1.3; where foundation cards can
    move, while the foundations hold at least the judged position's count: the
    two positions hold the same count, checked here). So ``after`` is alive
    whenever ``before`` is, and the dead-position search would say so; it is
    skipped. ``before`` counts as proven alive only when this same argument said
    so, a finished search did (the engine remembers its verdict), or a foundation
    move was open in it; not while a verdict on it is still to come, nor when a
    search gave up on it, nor when it was only in progress because the stock
    could still bring something. In the bench's random Simplicity games most
    searches are of such positions (docs/benchmarks.md)."""
    if proof is None or proof[0] is not before:
        return False
    if not (proof[2] or known_verdict(before) is False or any(raises_count(m) for m in proof[1])):
        return False
    m = parse(text)
    if m.kind != "move" or engine.foundation_cards(after) != engine.foundation_cards(before):
        return False
    for back in moves:
        if back.kind == "move" and back.src == m.dst and back.dst == m.src and back.n == m.n:
            return engine.apply(after, back) == before
    return False
