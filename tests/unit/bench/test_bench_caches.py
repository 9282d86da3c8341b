"""bench.caches measures what the proven-dead key store spares: the positions
the searches entered under each bound, against a run with no store."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bench import caches
from server.game import dead, engine
from server.game.variants import RULES
from server.ops.corebuild import is_compiled

# The bench counts positions by wrapping the search's module-level function,
# which a compiled core calls directly; `make test` runs this file in its pure pass.
pytestmark = pytest.mark.skipif(is_compiled("server.game.dead"),
                                reason="counts the searches of the pure core")


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    engine.clear_caches()
    yield
    dead.set_cache_limits()
    engine.clear_caches()


def a_dead_position() -> engine.State:
    """A four-seasons game played at random until the engine proves it dead by
    a search of more than a few positions."""
    rng = random.Random(3)
    for deal in range(1, 200):
        state = engine.new_game("four-seasons", deal)
        for _ in range(200):
            status, moves = engine.status_and_moves(state)
            if status == engine.DEAD and engine.status_before_search(state)[2] \
                    and dead.region(RULES[state.variant], state)[1] > 5:
                return state
            if status != engine.IN_PROGRESS or not moves:
                break
            state = engine.apply(state, rng.choice(moves))
    raise AssertionError("no dead four-seasons position found")


def test_a_remembered_region_spares_the_positions_a_second_search_would_enter() -> None:
    state = a_dead_position()
    _, moves = engine.status_before_search(state)[:2]
    work = caches.Work()
    with caches.counting(work):
        engine.clear_caches()
        assert caches._search(state, moves)
        first = work.positions
        dead._VERDICTS.clear()  # the region's keys stay: only they can spare the search
        assert caches._search(state, moves)
    assert work.searches == 2 and first > 1
    assert work.positions - first < first
    assert caches.dead_key_bytes() > 0


def test_with_no_store_a_second_search_enters_them_all_again() -> None:
    state = a_dead_position()
    _, moves = engine.status_before_search(state)[:2]
    dead.set_cache_limits(dead_keys=0)
    work = caches.Work()
    with caches.counting(work):
        engine.clear_caches()
        caches._search(state, moves)
        first = work.positions
        engine.clear_caches()
        caches._search(state, moves)
    assert work.positions == 2 * first
    assert dead.cache_sizes()[1] == 0 and caches.dead_key_bytes() == 0


def test_the_dead_key_rows_play_the_same_games_under_each_bound() -> None:
    rows = caches.dead_key_rows(6, 4_000, 1, ["four-seasons"], (50, 5_000))
    assert [r["size"] for r in rows] == [0, 50, 5_000]
    assert all(r["table"] == "dead keys" for r in rows)
    bare = rows[0]
    assert bare["lookups"] > 0 and bare["positions"] > 0  # the searches were counted
    assert bare["hit_rate"] == 0 and bare["keys"] == 0 and bare["bytes"] == 0
    for row in rows[1:]:
        assert row["lookups"] == bare["lookups"]  # verdicts are exact: the same games
        assert row["positions"] <= bare["positions"]
        assert row["hit_rate"] == pytest.approx(1 - row["positions"] / bare["positions"])
        assert row["keys"] <= row["size"]
        assert (row["bytes"] > 0) == (row["keys"] > 0)
    assert dead.cache_sizes()[1] == 0  # the server's bounds are back, the store empty


def test_the_report_has_a_row_per_dead_key_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert caches.main(["--races", "4", "--moves", "400", "--variants", "four-seasons",
                        "--tables", "dead-keys"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("dead keys")]
    assert [row[2] for row in rows] == [f"{size:,}" for size in caches.DEAD_KEY_SIZES]
