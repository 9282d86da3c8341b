"""Saving a finished game's record (``s`` on any results screen).

The record is written as JSON in the directory of ``--records`` (the current
one by default), ready for ``patience-server verify``. The daily's record is
the server's to give once the day is over: before that, the server says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .connection import ClientSession

__all__ = ["RECORD_WAIT_S", "record_path", "save_record"]

RECORD_WAIT_S: Final = 10.0
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]+")


def record_path(record: dict[str, Any], code: str | None, directory: Path) -> Path:
    """A new file name for a record: variant, deal and room, never an existing file's."""
    parts = [str(record.get("variant") or "game"), str(record.get("deal") or ""), code or ""]
    stem = "-".join(_UNSAFE.sub("", p)[:40] for p in ["patience", *parts] if _UNSAFE.sub("", p))
    path = directory / f"{stem}.json"
    n = 2
    while path.exists():
        path = directory / f"{stem}-{n}.json"
        n += 1
    return path


async def save_record(session: ClientSession, directory: Path) -> Path | None:
    """Ask for this player's record and write it to a file; the notice says where (or why not)."""
    state = session.state
    state.record, state.last_error = None, ""
    if not await session.record():
        return None
    try:
        await session.wait_for(lambda st: st.record is not None or st.last_error != "", RECORD_WAIT_S)
    except TimeoutError:
        state.tell("the server did not send the record: try s again", error=True)
        return None
    record = state.record
    if record is None:
        return None  # the server said why, and its notice is on screen
    try:
        # a few kB to a local file, asked for by the player, who waits for the answer anyway
        directory.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240
        path = record_path(record, state.code, directory)
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    except OSError as exc:
        state.tell(f"cannot save the record in {directory}: {exc.strerror or exc}", error=True)
        return None
    state.tell(f"record saved to {path} (check it: patience-server verify {path})")
    return path
