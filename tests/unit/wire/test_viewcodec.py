"""The view message put together from cached pieces (server/wire/viewcodec.py) is
byte for byte the message the view dict makes, in random games of every
variant, whichever positions one player's encoder is given in turn."""

from __future__ import annotations

import functools
import random

import msgpack
import pytest

from server.game import engine
from server.game.state import State
from server.game.variants import variant_ids
from server.game.views import view
from server.wire import viewcodec
from server.wire.protocol import encode
from server.wire.viewcodec import ViewEncoder, array_header, encode_view, map_header
from tests.support.game import random_game


def reference(v: int, seq: int | None, state: State, status: str,
              moves: list[engine.Move] | None) -> bytes:
    message = {"t": "view", "v": v, "seq": seq, "view": view(state, status, moves)}
    packed = encode(message)
    assert packed == msgpack.packb(message, use_bin_type=True)
    return packed


@pytest.mark.parametrize("variant", variant_ids())
def test_every_answer_of_a_random_game_is_the_view_dicts_bytes(variant: str) -> None:
    rng = random.Random(f"viewcodec-{variant}")
    for game in range(3):
        trace = random_game(variant, rng.getrandbits(64), seed=game, max_moves=120)
        encoder = ViewEncoder()
        for k, state in enumerate(trace.states):
            status, moves, _ = engine.status_before_search(state)
            seq = None if k == 0 else k - 1
            v = k * 131  # versions past one byte and two bytes too
            assert encoder.encode(v, seq, state, status, moves) == \
                reference(v, seq, state, status, moves), (variant, game, k)
            # the legal moves left to the encoder, as after a resume
            assert encoder.encode(v, seq, state, status) == reference(v, seq, state, status, None)
        # a game over (resigned, won, dead): no legal moves are listed
        final = trace.final
        for status in (engine.RESIGNED, engine.DEAD, engine.WON):
            assert encoder.encode(7, 3, final, status) == reference(7, 3, final, status, None)
            assert encode_view(7, 3, final, status) == reference(7, 3, final, status, None)


def test_one_encoder_given_unrelated_positions_and_variants_in_turn() -> None:
    """The encoder's kept piles are only reused for the very pile objects it saw."""
    rng = random.Random(5)
    traces = [random_game(variant, rng.getrandbits(64), seed=1, max_moves=40)
              for variant in variant_ids()]
    positions = [s for t in traces for s in t.states]
    rng.shuffle(positions)
    encoder = ViewEncoder()
    for k, state in enumerate(positions[:400]):
        status, moves, _ = engine.status_before_search(state)
        assert encoder.encode(k, k, state, status, moves) == reference(k, k, state, status, moves)
        # an equal state built anew (no pile object shared with the last one)
        copy = state._replace(piles=tuple(tuple(p) for p in [list(p) for p in state.piles]))
        assert encoder.encode(k, k, copy, status, moves) == reference(k, k, copy, status, moves)


def test_the_bytes_stay_right_while_a_small_table_evicts(monkeypatch: pytest.MonkeyPatch) -> None:
    piles = functools.lru_cache(maxsize=5)(viewcodec.pack_pile)
    moves = functools.lru_cache(maxsize=7)(viewcodec.pack_move)
    monkeypatch.setattr(viewcodec, "pile_table", piles)
    monkeypatch.setattr(viewcodec, "move_table", moves)
    trace = random_game("simplicity", 12345, seed=2, max_moves=60)
    encoder = ViewEncoder()
    for k, state in enumerate(trace.states):
        status, moves_now, _ = engine.status_before_search(state)
        assert encoder.encode(k, k, state, status, moves_now) == reference(k, k, state, status, moves_now)
    assert piles.cache_info().currsize == 5 and piles.cache_info().misses > 5


def distinct_piles(n: int) -> list[tuple[int, ...]]:
    return [(i % 52, (i // 52) % 52, i // 2704) for i in range(n)]


def test_the_pile_table_forgets_its_least_recently_used_piles_one_at_a_time() -> None:
    """Full, the table makes room for a new pile by forgetting one: the oldest
    unused, never all at once (issue 34: a table emptied when full took its hit
    rate to nothing and made the memory climb and fall)."""
    table = viewcodec.pile_table
    assert table.cache_info().maxsize == viewcodec.PILES_MAX
    table.cache_clear()
    piles = distinct_piles(viewcodec.PILES_MAX + 10)
    try:
        for pile in piles[:viewcodec.PILES_MAX]:
            table(pile)
        table(piles[0])  # used again: now the most recent
        for pile in piles[viewcodec.PILES_MAX:]:
            table(pile)
        info = table.cache_info()
        assert info.currsize == viewcodec.PILES_MAX
        hits = info.hits
        for pile in (piles[0], piles[11], piles[-1]):  # kept: recently used, or not yet the oldest
            table(pile)
        assert table.cache_info().hits == hits + 3
        table(piles[1])  # one of the ten oldest: gone
        assert table.cache_info().hits == hits + 3
        assert table(piles[5]) == viewcodec.pack_pile(piles[5])
    finally:
        table.cache_clear()


def test_the_move_table_is_bounded_the_same_way() -> None:
    assert viewcodec.move_table.cache_info().maxsize == viewcodec.MOVES_MAX


def test_the_moves_the_rules_keep_are_packed_by_their_identity() -> None:
    """The one-card moves the rules make once (``Rules.steps``) never go through
    the table keyed by the move's value, whose lookups hash the whole tuple."""
    viewcodec.move_table.cache_clear()
    state = engine.new_game("simplicity", 3)
    status, moves, _ = engine.status_before_search(state)
    kept = {id(m) for row in engine.rules_of(state).steps for m in row}
    assert any(id(m) in kept for m in moves)
    encoded = ViewEncoder().encode(1, 1, state, status, moves)
    assert encoded == reference(1, 1, state, status, moves)
    # the table keyed by value was asked for the moves made afresh only (the
    # actions, module constants, are kept too)
    fresh = {m for m in moves if id(m) not in kept and m not in viewcodec._ACTIONS}
    assert viewcodec.move_table.cache_info().misses == len(fresh)


@pytest.mark.parametrize("n", [0, 1, 15, 16, 255, 65535, 65536])
def test_headers_are_msgpacks(n: int) -> None:
    assert map_header(n) == msgpack.packb({i: 0 for i in range(n)})[:len(map_header(n))]
    assert array_header(n) == msgpack.packb([0] * n)[:len(array_header(n))]


def test_a_layout_made_for_other_rules_under_the_same_id_is_made_again() -> None:
    """A variant registered again under its id (tests do) brings other rules: the
    packed pile names of the old ones must not be used."""
    state = engine.new_game("simplicity", 7)
    other = engine.new_game("four-seasons", 7)
    viewcodec._LAYOUTS["simplicity"] = viewcodec._Layout(other)  # stale: another rules' names
    status, moves, _ = engine.status_before_search(state)
    assert ViewEncoder().encode(1, 0, state, status, moves) == reference(1, 0, state, status, moves)
    assert viewcodec._LAYOUTS["simplicity"].rules is engine.rules_of(state)
