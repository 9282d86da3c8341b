"""Reports, the queue, bans and renames on a real Redis: each bounded, each
refusal writing nothing (the whole store compared), each action in the audit log."""

from __future__ import annotations

import json

import pytest
from redis.asyncio import Redis

from server.race.ratings import field
from server.rooms.moderation import Event, Moderation, ModerationError
from server.rooms.service import RoomService
from server.store.bans import ban_key
from server.store.ratings import history_key, rating_board, user_key
from server.store.reports import KEPT_PER_NAME, PER_HOUR, reports_key, sent_key
from server.wire.protocol import ProtocolError

from .conftest import Clock, claim, snapshot


async def test_a_report_is_kept_bounded_and_queued(service: RoomService, mod: Moderation,
                                                  redis: Redis) -> None:
    await claim(service, "bob")
    await mod.report("ann", "Bob", "cheating", "won in 40 s, every move safe", "AB12")
    (kept,) = await mod.reports.reports("bob")
    assert (kept["by"], kept["reason"], kept["room"]) == ("ann", "cheating", "AB12")
    assert [n for n, _ in await mod.reports.queued(10)] == ["bob"]
    assert await redis.ttl(reports_key("bob")) > 0 and 0 < await redis.ttl(sent_key("ann")) <= 3600
    for i in range(KEPT_PER_NAME + 3):
        await mod.report(f"p{i}", "bob", "abuse", "", None)
    assert await redis.llen(reports_key("bob")) == KEPT_PER_NAME


async def test_refused_reports_write_nothing(service: RoomService, mod: Moderation, redis: Redis) -> None:
    await claim(service, "bob")
    await mod.report("ann", "bob", "cheating", "", None)
    for i in range(PER_HOUR - 1):
        await claim(service, f"t{i}")
        await mod.report("ann", f"t{i}", "other", "", None)
    snap = await snapshot(redis)
    refusals = [("ann", "bob", "cheating", "", "already"),  # one report of a name at a time
                ("cid", "bob", "rude", "", "reason"),
                ("cid", "bob", "other", "x" * 201, "text"),
                ("bob", "BOB", "other", "", "itself"),
                ("cid", "nobody", "other", "", "claimed"),
                ("ann", "cid", "other", "", "hour")]
    await claim(service, "cid")
    snap = await snapshot(redis)
    for reporter, name, reason, text, why in refusals:
        with pytest.raises(ProtocolError) as refused:
            await mod.report(reporter, name, reason, text, None)
        assert refused.value.code in ("bad_field", "over_limit"), why
        assert await snapshot(redis) == snap, why


async def test_the_queue_merges_flags_and_reports(service: RoomService, mod: Moderation,
                                                 redis: Redis, clock: Clock) -> None:
    await claim(service, "bob")
    await redis.zadd("fairplay:flagged", {"eve": 0.97, "dan": 0.5})
    await redis.set("fairplay:evidence:{eve}", json.dumps({"why": "every move the solver's"}))
    await mod.report("ann", "bob", "cheating", "", None)
    await mod.report("cid", "bob", "cheating", "", None)
    queue = await mod.queue()
    assert [q["name"] for q in queue] == ["eve", "dan", "bob"]
    assert queue[0]["evidence"] == {"why": "every move the solver's"} and queue[0]["suspicion"] == 0.97
    assert queue[2]["reports"] == 2 and queue[2]["suspicion"] is None
    await mod.dismiss("eve", "looked at the replays: a strong player", "op")
    await mod.dismiss("bob", "nothing in the games", "op")
    assert [q["name"] for q in await mod.queue()] == ["dan"]
    await redis.zadd("fairplay:flagged", {"eve": 0.99})  # flagged again, higher: back in the queue
    assert [q["name"] for q in await mod.queue()] == ["eve", "dan"]
    case = await mod.case("eve")
    assert case["suspicion"] == 0.99 and case["reports"] == [] and case["ban"] is None


async def test_bans_for_a_time_and_for_good(mod: Moderation, redis: Redis, clock: Clock) -> None:
    timed = await mod.ban("name", "Ann", "insults in the lobby", 60, "op")
    assert timed["until"] == clock.now + 3_600_000
    assert 3500 < await redis.ttl(ban_key("name", "ann")) <= 3600
    await mod.ban("addr", "2001:db8::1", "a flood of rooms", None, "op")
    assert await redis.ttl(ban_key("addr", "2001:db8::/64")) == -1  # for good, by the /64
    assert await mod.address_ban("2001:db8::/64") is not None
    listed = await mod.ban_list(10)
    assert [(b["of"], b["target"], b["until"]) for b in listed] == \
        [("name", "ann", clock.now + 3_600_000), ("addr", "2001:db8::/64", None)]
    assert await mod.unrated(["Ann", "bob"]) == {"Ann"}
    await mod.unban("name", "ann", "served", "op")
    assert await mod.name_ban("ann") is None
    actions = [e["action"] for e in await mod.audit_log(10)]
    assert actions == ["unban_name", "ban_addr", "ban_name"]


async def test_refused_actions_write_nothing(service: RoomService, mod: Moderation, redis: Redis) -> None:
    await claim(service, "ann")
    await claim(service, "bob")
    snap = await snapshot(redis)
    for refused in (mod.ban("name", "ann", "", 60, "op"), mod.ban("name", "ann", "x", 0, "op"),
                    mod.ban("addr", "not an address", "x", None, "op"),
                    mod.ban("user", "ann", "x", None, "op"),
                    mod.unban("name", "cid", "x", "op"), mod.rename("ann", "bob", "x", "op"),
                    mod.rename("nobody", "new", "x", "op"), mod.rename("ann", "bad\x07name", "x", "op"),
                    mod.dismiss("ann", "", "op")):
        with pytest.raises(ModerationError):
            await refused
        assert await snapshot(redis) == snap


async def test_a_rename_moves_the_account_and_reserves_the_old_name(
        service: RoomService, mod: Moderation, redis: Redis) -> None:
    key = await claim(service, "Rude1")
    await claim(service, "bob")
    ladder = service.competition.ladder
    await service.boards.ratings.rate_race("czarina", "N1", [("Rude1", 1), ("bob", 2)], 5, ladder.written())
    rating = await redis.hget(user_key("rude1"), field("czarina"))
    heard: list[Event] = []

    async def listener(event: Event) -> None:
        heard.append(event)

    mod.listeners.append(listener)
    done = await mod.rename("rude1", "Polite", "an insult as a name", "op")
    assert done == {"from": "rude1", "to": "Polite", "variants": ["czarina"]}
    assert await redis.exists(user_key("rude1"), history_key("rude1", "czarina")) == 0
    assert await redis.hget(user_key("polite"), field("czarina")) == rating
    assert await redis.hget(user_key("polite"), "name") == b"Polite"
    assert await redis.llen(history_key("polite", "czarina")) == 1
    assert await redis.zscore(rating_board("czarina"), "rude1") is None
    assert await redis.zscore(rating_board("czarina"), "polite") is not None
    # the old name's key now proves the new name
    claimed, key_id = await service.competition.identity.prove("Polite", key)
    assert claimed and key_id is not None
    assert (await mod.name_ban("rude1") or {}).get("to") == "Polite"
    assert [(e.action, e.names, e.reason) for e in heard] == \
        [("rename", ("rude1", "Polite"), "an insult as a name")]
    with pytest.raises(ModerationError):  # reserved: neither banned over nor lifted
        await mod.unban("name", "rude1", "x", "op")
