"""Two real terminal-client sessions racing through a real server: the setup and
the move loop the variant race tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

from client.config import TokenStore
from client.connection import ClientSession
from client.state import RaceState


@asynccontextmanager
async def two_clients(url: str, tmp_path: Path) -> AsyncIterator[tuple[ClientSession, ClientSession]]:
    """``ann`` and ``bob`` connected (ann has the variant list); both leave their
    seats at the end."""
    ann = ClientSession(url, "ann", tokens=TokenStore(tmp_path / "ann"), backoff_initial=0.05)
    bob = ClientSession(url, "bob", tokens=TokenStore(tmp_path / "bob"), backoff_initial=0.05)
    await ann.connect()
    await bob.connect()
    try:
        await ann.wait_for(lambda st: bool(st.variants), 5)
        yield ann, bob
    finally:
        await ann.close(keep_seat=False)
        await bob.close(keep_seat=False)


async def start_race(ann: ClientSession, bob: ClientSession, variant: str) -> None:
    """A private race of ``variant`` created by ann, joined by bob, started: both
    have their first view."""
    assert variant in [v.id for v in ann.state.variants]
    await ann.create(variant, 2, True)
    await ann.wait_for(lambda st: st.room is not None and st.code is not None, 5)
    await bob.join(ann.state.code or "")
    await bob.wait_for(lambda st: st.room is not None, 5)
    await ann.ready()
    await bob.ready()
    await ann.wait_for(lambda st: st.view is not None, 10)
    await bob.wait_for(lambda st: st.view is not None, 10)


async def play_forward(session: ClientSession, most: int,
                       stock: tuple[str, ...] = ("deal", "draw", "redeal")) -> int:
    """Play up to ``most`` moves from the view's legal list: a card to a foundation
    (not one moving between foundations) when there is one, else the first of
    ``stock`` that is legal; stops when there is none. Each must be accepted.
    How many were played."""
    played = 0
    for _ in range(most):
        legal = (session.state.view or {}).get("legal_moves") or []
        move = next((m for m in legal if "-f" in m and not m.startswith("f")), None)
        move = move or next((m for m in stock if m in legal), None)
        if move is None:
            break
        v = session.state.v
        await session.move(move)
        await session.wait_for(partial(moved_on, v), 5)
        assert session.state.last_error == "", (move, session.state.last_error)
        played += 1
    return played


def moved_on(v: int, st: RaceState) -> bool:
    """The move sent at version ``v`` is answered: a newer version or a refusal."""
    return st.v > v or st.last_error != ""
