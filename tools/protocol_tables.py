"""Print the protocol tables of docs/reference/protocol.md from server/wire/protocol.py.

``python tools/protocol_tables.py > /tmp/t.md`` and paste below "## Tables";
tests/unit/wire/test_protocol.py checks that every row is in the document.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.wire.protocol import (  # noqa: E402
    CLIENT_MESSAGES,
    CLOSE_CODES,
    ERROR_CODES,
    SERVER_MESSAGES,
    Field,
)


def field_text(name: str, f: Field) -> str:
    bits = [f.kind.__name__]
    if f.low is not None or f.high is not None:
        bits.append(f"{f.low}..{f.high}")
    if f.max_len is not None:
        bits.append(f"≤{f.max_len} chars")
    opt = "" if f.required else "?"
    return f"`{name}{opt}`: {' '.join(bits)}"


def tables() -> str:
    out = ["### Client to server", "", "| t | fields (`?` = optional) |", "|---|---|"]
    for t, fields in CLIENT_MESSAGES.items():
        out.append(f"| `{t}` | {', '.join(field_text(n, f) for n, f in fields.items()) or '—'} |")
    out += ["", "### Server to client", "", "| t | fields |", "|---|---|"]
    out += [f"| `{t}` | {d} |" for t, d in SERVER_MESSAGES.items()]
    out += ["", "### Error codes (an `error` message; the connection stays open)", "",
            "| code | meaning |", "|---|---|"]
    out += [f"| `{c}` | {d} |" for c, d in ERROR_CODES.items()]
    out += ["", "### Close codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| {c} | {d} |" for c, d in CLOSE_CODES.items()]
    return "\n".join(out)


if __name__ == "__main__":
    print(tables())
