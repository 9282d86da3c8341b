"""Game records: JSON round trip, replay, and verify() on legal, illegal and
malformed records."""

from __future__ import annotations

import json

import pytest

from server.game import engine
from server.game.deals import DEAL_VERSION
from server.game.moves import parse
from server.game.records import (
    MAX_RECORD_MOVES,
    BadRecord,
    Record,
    record_from_dict,
    record_from_json,
    replay,
    verify,
)
from tests.support.game import random_game

WON = ("four-seasons-redeal", 6, 5)  # (variant, deal, seed): random play wins this one
DEAD = ("czarina", 1, 0)  # and plays this one into a dead end


def record_of(variant: str, deal: int | str, seed: int, max_moves: int = 400) -> tuple[Record, engine.State]:
    trace = random_game(variant, deal, seed, max_moves)
    moves = tuple(str(m) for m in trace.moves)
    return Record(variant, deal, moves, ms=tuple(range(0, 250 * len(moves), 250))), trace.final


def test_record_json_round_trip() -> None:
    rec, _ = record_of("simplicity", 24, 1, 60)
    text = rec.to_json()
    assert json.loads(text) == rec.to_dict()
    assert record_from_json(text) == rec
    assert rec.to_dict()["deal_version"] == DEAL_VERSION
    bare = Record("corner-stones", "ms100000", ("deal", "deal:round", "deal:all"))
    assert "ms" not in bare.to_dict()
    assert record_from_json(bare.to_json()) == bare
    # deal_version may be left out; the variant may be named by a name or alias
    assert record_from_dict({"variant": "Four Corners", "deal": 5, "moves": ["deal"]}) == \
        Record("corner-stones", 5, ("deal",))


@pytest.mark.parametrize(("variant", "deal", "seed"), [
    ("four-seasons", 1, 11), ("four-seasons-1883", 31999, 2), ("vanishing-cross", 32000, 3),
    ("czarina", "ms24", 4), ("corners", 123456789, 5), ("simplicity", 24, 6),
    ("corner-stones", 1, 7), ("betsy-ross", 99999999999999999999, 8), WON,
])
def test_replay_reproduces_the_final_state(variant: str, deal: int | str, seed: int) -> None:
    rec, final = record_of(variant, deal, seed)
    r = replay(record_from_json(rec.to_json()))
    assert r.legal and r.first_illegal is None and r.reason is None
    assert r.moves_played == len(rec.moves)
    assert r.state == final and r.state.digest() == final.digest()


def test_verify_legal_won_record() -> None:
    rec, final = record_of(*WON)
    out = verify(rec)
    assert out["legal"] is True and out["won"] is True and out["dead"] is False
    assert out["foundation_cards"] == 52
    assert out["moves_played"] == len(rec.moves)
    assert out["final_state"] == final.digest()
    assert "first_illegal" not in out and "reason" not in out
    json.dumps(out)


def test_verify_legal_dead_record() -> None:
    rec, final = record_of(*DEAD)
    out = verify(rec)
    assert out["legal"] is True and out["dead"] is True and out["won"] is False
    assert out["final_state"] == final.digest()


def test_verify_illegal_record() -> None:
    rec, _ = record_of("four-seasons", 1, 11, 20)
    state = engine.new_game("four-seasons", 1)
    for m in rec.moves[:7]:
        state = engine.play(state, m)
    legal = engine.legal_moves(state)
    bad = next(t for t in ("t1-t2", "w-f1", "t3-f2", "t5-t1") if parse(t) not in legal)
    with pytest.raises(engine.IllegalMove) as info:
        engine.play(state, bad)
    moves = (*rec.moves[:7], bad, *rec.moves[7:])
    out = verify(Record("four-seasons", 1, moves))
    assert out["legal"] is False
    assert out["first_illegal"] == 7 and out["moves_played"] == 7
    assert out["reason"] == str(info.value)
    assert out["final_state"] == state.digest()


def test_verify_unparsable_move_and_move_after_the_end() -> None:
    out = verify(Record("four-seasons", 1, ("draw", "fly-away")))
    assert out["legal"] is False and out["first_illegal"] == 1 and "not a move" in out["reason"]
    out = verify(Record("betsy-ross", 1, ("resign", "draw")))
    assert out["legal"] is False and out["first_illegal"] == 1 and "resigned" in out["reason"]


@pytest.mark.parametrize("text", [
    "", "{", "[1, 2", '{"variant": "four-seasons", "deal": 1, "moves": ["draw", "w-t', "null", "42",
    '"four-seasons"', "[]", "{}", "[" * 100_000, "\ud800",
])
def test_malformed_json_is_a_bad_record(text: str) -> None:
    with pytest.raises(BadRecord):
        record_from_json(text)


def test_truncated_record_is_a_bad_record() -> None:
    rec, _ = record_of("czarina", 7, 1, 50)
    text = rec.to_json()
    for cut in (1, len(text) // 3, len(text) // 2, len(text) - 1):
        with pytest.raises(BadRecord):
            record_from_json(text[:cut])


@pytest.mark.parametrize(("data", "why"), [
    ({"deal": 1, "moves": []}, "variant"),
    ({"variant": "four-seasons", "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": 1}, "moves"),
    ({"variant": "klondike", "deal": 1, "moves": []}, "unknown variant"),
    ({"variant": 7, "deal": 1, "moves": []}, "variant"),
    ({"variant": "four-seasons", "deal": 0, "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": -3, "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": "abc", "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": 10**20, "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": 1.0, "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": True, "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": None, "moves": []}, "deal"),
    ({"variant": "four-seasons", "deal": 1, "deal_version": "deal_v0", "moves": []}, "deal_version"),
    ({"variant": "four-seasons", "deal": 1, "deal_version": None, "moves": []}, "deal_version"),
    ({"variant": "four-seasons", "deal": 1, "moves": "draw"}, "moves"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw", 3]}, "moves"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["x" * 33]}, "longer"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw"] * (MAX_RECORD_MOVES + 1)}, "moves"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw", "draw"], "ms": [0]}, "ms"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw"], "ms": [0, 5]}, "ms"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw"], "ms": [True]}, "ms"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw"], "ms": ["5"]}, "ms"),
    ({"variant": "four-seasons", "deal": 1, "moves": ["draw"], "ms": 5}, "ms"),
])
def test_bad_record_fields(data: dict[str, object], why: str) -> None:
    with pytest.raises(BadRecord, match=f"(?i){why}"):
        record_from_dict(data)
    with pytest.raises(BadRecord):
        record_from_json(json.dumps(data))


def test_record_with_ms_list_of_the_right_length_is_fine() -> None:
    rec = record_from_dict({"variant": "four-seasons", "deal": 1, "moves": ["draw", "draw"], "ms": [0, 900]})
    assert rec.ms == (0, 900)
    assert verify(rec)["legal"] is True
