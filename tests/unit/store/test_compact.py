"""A finished race's packed record gives back exactly the results and the rows
it was packed from, and takes far fewer bytes than the logs' entries (issue 34,
item 18)."""

from __future__ import annotations

import random
import zlib

import msgpack
import pytest

from server.store.compact import Log, pack_record, unpack_record


def rows_of(n: int, seed: int = 1) -> Log:
    rng = random.Random(seed)
    at, rows = 0, []
    for _ in range(n):
        at += rng.randrange(80, 2500)
        rows.append((at, rng.choice(["draw", "w-f", "t1-t3", "t10-t12", "w-t4", "t3-f", "redeal"])))
    return rows


RESULTS = msgpack.packb({"t": "results", "code": "ABC234", "ranking": [{"player": 1, "name": "ann"}]})


@pytest.mark.parametrize("logs", [
    [], [[]], [[(0, "draw")], []], [[(-5, "draw"), (0, "w-f")], [(12, "resign")]],
    [rows_of(300), rows_of(120, 2), rows_of(0)], [rows_of(5000, 7)]])
def test_a_packed_record_unpacks_to_its_results_and_logs(logs: list[Log]) -> None:
    assert unpack_record(pack_record(RESULTS, logs)) == (RESULTS, logs)


def test_a_packed_record_is_a_fraction_of_its_entries() -> None:
    logs = [rows_of(126), rows_of(126, 2)]
    entries = sum(len(f"{ms} {text}") for rows in logs for ms, text in rows)
    assert len(pack_record(RESULTS, logs)) < entries / 2


@pytest.mark.parametrize("junk", [b"", b"\x02abc", b"\x01not zlib",
                                  b"\x01" + zlib.compress(b"\x93\x01\x02\x03")])
def test_anything_else_is_refused(junk: bytes) -> None:
    with pytest.raises(ValueError):
        unpack_record(junk)
