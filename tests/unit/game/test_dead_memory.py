"""The dead-position search's memories are bounded and forget gradually: the
least recently used verdict, the least recently used search context's keys,
never everything at once (issue 34, item 17)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.game import dead, engine


@pytest.fixture
def small() -> Iterator[None]:
    engine.clear_caches()
    dead.set_cache_limits(verdicts=3, dead_keys=7)
    yield
    dead.set_cache_limits()
    engine.clear_caches()


def test_the_verdicts_forget_the_least_recently_used_one_at_a_time(small: None) -> None:
    states = [engine.new_game("four-seasons", deal) for deal in range(1, 6)]
    for state in states[:3]:
        engine.record_verdict(state, False)
    assert dead.known_verdict(states[0]) is False  # used: now the most recent
    engine.record_verdict(states[3], True)
    assert dead.cache_sizes()[0] == 3
    assert dead.known_verdict(states[1]) is None  # the least recently used went, alone
    assert dead.known_verdict(states[0]) is False and dead.known_verdict(states[2]) is False
    assert dead.known_verdict(states[3]) is True
    engine.record_verdict(states[4], False)
    assert dead.cache_sizes()[0] == 3


def test_the_first_verdict_stands(small: None) -> None:
    state = engine.new_game("four-seasons", 9)
    engine.record_verdict(state, True)
    engine.record_verdict(state, False)
    assert dead.known_verdict(state) is True


def context(k: int) -> dead.Context:
    return ("four-seasons", k, frozenset(), b"")


def test_the_dead_keys_forget_whole_contexts_oldest_first(small: None) -> None:
    dead._remember_dead(context(1), {b"a", b"b", b"c"})
    dead._remember_dead(context(2), {b"d", b"e", b"f"})
    assert dead.cache_sizes()[1] == 6
    dead._remember_dead(context(3), {b"g", b"h", b"i"})  # 9 > 7: the oldest context goes
    assert dead.cache_sizes()[1] == 6
    assert context(1) not in dead._DEAD_KEYS and context(2) in dead._DEAD_KEYS
    dead._remember_dead(context(2), {b"d", b"j"})  # one new key; context 2 is now the newest
    assert dead.cache_sizes()[1] == 7
    dead._remember_dead(context(4), {b"k"})
    assert context(3) not in dead._DEAD_KEYS and context(2) in dead._DEAD_KEYS
    assert dead.cache_sizes()[1] == sum(len(keys) for keys in dead._DEAD_KEYS.values()) == 5


def test_a_region_larger_than_the_bound_is_not_kept(small: None) -> None:
    dead._remember_dead(context(1), {b"a"})
    dead._remember_dead(context(2), {bytes([i]) for i in range(8)})
    assert context(2) not in dead._DEAD_KEYS and dead.cache_sizes()[1] == 1
