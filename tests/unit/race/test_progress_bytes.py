"""The move path's progress bytes (server/race/rules.py's encode_progress) are the
bytes of the progress message's dict, encoded as every other message is."""

from __future__ import annotations

import pytest

from server.game import engine
from server.race.rules import encode_progress, progress_message
from server.wire.protocol import encode


@pytest.mark.parametrize("status", [engine.IN_PROGRESS, engine.WON, engine.DEAD, engine.RESIGNED,
                                    "frozen", "a status of 40 characters and some more."])
@pytest.mark.parametrize("numbers", [(1, 0, 52, 0), (2, 51, 52, 127), (4, 104, 104, 128),
                                     (3, 127, 128, 65_535), (1, 128, 255, 70_000), (255, 0, 1, 2**33)])
@pytest.mark.parametrize("connected", [True, False])
def test_the_fragments_make_the_dicts_bytes(status: str, numbers: tuple[int, int, int, int],
                                            connected: bool) -> None:
    n, fc, total, moves = numbers
    assert encode_progress(n, status, fc, total, moves, connected) == \
        encode(progress_message(n, status, fc, total, moves, connected))
