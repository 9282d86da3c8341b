"""Quick-race pairing with bot accounts: persons among persons first; a bot
account only with persons who accept bots (or other bots); never a server bot."""

from __future__ import annotations

from server.race.matching import Ticket
from server.rooms.botaccounts import ticket_flags
from server.rooms.matchmaker import bot_pairing


def ticket(name: str, flags: str = "", rating: float = 0.0, since: int = 0) -> Ticket:
    return Ticket(f"proc.{name}{flags}", rating, since)


def names(groups: list[list[Ticket]]) -> list[set[str]]:
    return [{t.id.split(".")[1] for t in g} for g in groups]


def test_ticket_flags_follow_the_random_part() -> None:
    assert ticket_flags("proc.ab12") == set()
    assert ticket_flags("proc.ab12.g.a") == {"g", "a"}
    assert ticket_flags("proc.ab12.b") == {"b"}


def test_a_person_who_did_not_accept_bots_never_meets_one() -> None:
    assert bot_pairing([ticket("ann"), ticket("robo", ".b")], 1_000, 4) == []


def test_a_person_who_accepts_bots_meets_one_when_no_person_is_near() -> None:
    groups = bot_pairing([ticket("ann", ".a"), ticket("robo", ".b")], 1_000, 4)
    assert names(groups) == [{"ann", "robo"}]
    # a guest may accept bots too
    assert names(bot_pairing([ticket("g1", ".g.a"), ticket("robo", ".b")], 1_000, 4)) == [{"g1", "robo"}]


def test_persons_are_paired_among_persons_first() -> None:
    groups = bot_pairing([ticket("ann", ".a"), ticket("bob"), ticket("robo", ".b")], 1_000, 4)
    assert names(groups) == [{"ann", "bob"}]


def test_bots_may_race_bots_and_accepters_alone_are_not_paired_twice() -> None:
    groups = bot_pairing([ticket("r1", ".b"), ticket("r2", ".b")], 1_000, 4)
    assert names(groups) == [{"r1", "r2"}]
    far = [ticket("ann", ".a", rating=0.0), ticket("cid", ".a", rating=40.0)]
    assert bot_pairing(far, 1_000, 4) == []
