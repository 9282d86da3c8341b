"""The codec and the message tables, fed bytes directly (no server)."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from server.wire.protocol import (
    CLIENT_MESSAGES,
    CLOSE_CODES,
    ERROR_CODES,
    MAX_FRAME_BYTES,
    SERVER_MESSAGES,
    ProtocolError,
    decode_client,
    encode,
)

DOC = (Path(__file__).resolve().parents[3] / "docs/reference/protocol.md").read_text(encoding="utf-8")


def test_the_document_lists_every_message_error_and_close_code() -> None:
    for t in [*CLIENT_MESSAGES, *SERVER_MESSAGES]:
        assert f"| `{t}` |" in DOC, t
    for code in ERROR_CODES:
        assert f"| `{code}` | {ERROR_CODES[code]} |" in DOC, code
    for close in CLOSE_CODES:
        assert f"| {close} | {CLOSE_CODES[close]} |" in DOC, close


def test_each_message_has_one_row_in_its_own_table() -> None:
    client = DOC.partition("### Client to server")[2].partition("### Server to client")[0]
    server = DOC.partition("### Server to client")[2].partition("### Error codes")[0]
    for table, names in ((client, CLIENT_MESSAGES), (server, SERVER_MESSAGES)):
        for t in names:
            assert table.count(f"\n| `{t}` |") == 1, t


def test_a_valid_move_decodes_to_its_fields() -> None:
    msg = decode_client(encode({"t": "move", "seq": 3, "move": "w-t3", "v": 2, "extra": 1}))
    assert msg == {"t": "move", "seq": 3, "move": "w-t3", "v": 2}


def test_the_inline_move_check_keeps_to_the_table() -> None:
    from server.wire.protocol import _MOVE_LEN, _SEQ_HIGH

    fields = CLIENT_MESSAGES["move"]
    assert set(fields) == {"seq", "move", "v"}
    assert fields["seq"].low == fields["v"].low == 0
    assert fields["seq"].high == fields["v"].high == _SEQ_HIGH
    assert fields["move"].max_len == _MOVE_LEN
    # the bounds themselves pass, one past them does not
    top = {"t": "move", "seq": _SEQ_HIGH, "move": "x" * _MOVE_LEN, "v": _SEQ_HIGH}
    assert decode_client(encode(top)) == top
    for past in ({"seq": _SEQ_HIGH + 1}, {"v": _SEQ_HIGH + 1}, {"v": -1}, {"v": False},
                 {"move": b"t1-t2"}, {"v": None}):
        with pytest.raises(ProtocolError) as err:
            decode_client(encode({**top, **past}))
        assert err.value.code == "bad_field"


@pytest.mark.parametrize(("frame", "code"), [
    ("text", "bad_frame"),
    (b"\xc1", "bad_frame"),
    (msgpack.packb([1, 2]), "bad_frame"),
    (msgpack.packb({"t": 5}), "bad_frame"),
    (msgpack.packb({1: "move"}), "bad_frame"),
    (b"\x81" + b"\xa1t" + b"\xa4ping" + b"\x00" * MAX_FRAME_BYTES, "bad_frame"),
    (encode({"t": "fly"}), "unknown_type"),
    (encode({"t": "move", "seq": "1", "move": "draw", "v": 0}), "bad_field"),
    (encode({"t": "move", "seq": True, "move": "draw", "v": 0}), "bad_field"),
    (encode({"t": "move", "seq": -1, "move": "draw", "v": 0}), "bad_field"),
    (encode({"t": "move", "seq": 1, "move": "x" * 33, "v": 0}), "bad_field"),
    (encode({"t": "move", "seq": 1, "v": 0}), "bad_field"),
    (encode({"t": "create", "variant": "czarina", "players": 9}), "bad_field"),
    (encode({"t": "create", "variant": "czarina", "private": 1}), "bad_field"),
])
def test_bad_frames_get_a_specific_code(frame: bytes | str, code: str) -> None:
    with pytest.raises(ProtocolError) as err:
        decode_client(frame)
    assert err.value.code == code


def _field_text(name: str, spec: object) -> str:
    from server.wire.protocol import Field

    assert isinstance(spec, Field)
    mark = "" if spec.required else "?"
    if spec.kind is int:
        kind = f"int {spec.low}..{spec.high}"
    elif spec.kind is str:
        kind = f"str ≤{spec.max_len} chars"
    else:
        kind = spec.kind.__name__
    return f"`{name}{mark}`: {kind}"


def test_the_client_message_table_matches_the_fields_the_server_checks() -> None:
    for kind, fields in CLIENT_MESSAGES.items():
        cells = ", ".join(_field_text(n, f) for n, f in fields.items()) or "—"
        assert f"| `{kind}` | {cells} |" in DOC, kind


def test_the_server_message_table_matches_the_protocol_module() -> None:
    for kind, text in SERVER_MESSAGES.items():
        assert f"| `{kind}` | {text} |" in DOC, kind
