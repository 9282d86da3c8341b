"""Pairing keeps names that block each other apart, and nothing else changes."""

from __future__ import annotations

from server.race.matching import Ticket, pair


def test_two_tickets_kept_apart_are_never_grouped() -> None:
    a, b, c = Ticket("a", 0.0, 0), Ticket("b", 0.0, 0), Ticket("c", 0.0, 1)
    assert [[t.id for t in g] for g in pair([a, b, c], 1000, 2)] == [["a", "b"]]

    def apart(x: Ticket, y: Ticket) -> bool:
        return {x.id, y.id} == {"a", "b"}

    assert [[t.id for t in g] for g in pair([a, b, c], 1000, 2, apart)] == [["a", "c"]]
    assert [[t.id for t in g] for g in pair([a, b], 1000, 2, apart)] == []
    # in a larger group, apart from any member is enough to stay out
    groups = pair([a, b, c], 1000, 3, apart)
    assert [[t.id for t in g] for g in groups] == [["a", "c"]]
