"""server.wire.protocol.encode packs with one shared packer: its bytes are msgpack's
own, and a message that cannot be packed leaves nothing behind for the next."""

from __future__ import annotations

import msgpack
import pytest

from server.wire.protocol import encode


def test_the_shared_packer_gives_msgpacks_bytes_even_after_a_failure() -> None:
    message = {"t": "view", "v": 3, "seq": None, "view": {"piles": {"t1": ["AS", "KH"]}},
               "blob": b"\x00\x01"}
    assert encode(message) == msgpack.packb(message, use_bin_type=True)
    with pytest.raises(TypeError):
        encode({"t": "x", "bad": object()})
    assert encode(message) == msgpack.packb(message, use_bin_type=True)
    assert encode({"t": "pong"}) == msgpack.packb({"t": "pong"}, use_bin_type=True)
