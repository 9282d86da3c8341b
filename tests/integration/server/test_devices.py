"""A name's device keys, recovery codes and link codes, against a real server
and Redis: each flow, and each refusal compared against the whole store."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.rooms import identity as identity_module
from server.store.identity import Device
from tests.support.bot import Bot
from tests.support.servers import ServerFactory, close_all, txt, ws_url
from tests.support.storeview import everything


def fresh(name: str) -> str:
    return f"{name}{secrets.token_hex(3)}"  # the session's Redis keeps names across tests


async def guest(url: str, name: str = "newcomer") -> Bot:
    bot = Bot(url, name)
    await bot.connect()
    return bot


async def claimed(url: str, name: str, label: str = "laptop") -> tuple[Bot, dict[str, Any]]:
    bot = await guest(url, name)
    await bot.send({"t": "claim", "name": name, "label": label})
    return bot, await bot.expect("claimed")


async def signed_in(url: str, name: str, key: str) -> Bot:
    bot = Bot(url, name)
    welcome = await bot.connect(key=key)
    assert welcome["identified"] == name
    return bot


async def key_refused(url: str, name: str, key: str) -> None:
    """A hello with this key for the name is refused ``name_taken``."""
    from websockets.asyncio.client import connect

    bot = Bot(url, name)
    bot.ws = await connect(url, compression=None)
    await bot.send({"t": "hello", "proto": 1, "name": name, "key": key})
    assert (await bot.expect("error"))["code"] == "name_taken"
    await bot.close()


async def refused(bot: Bot, message: dict[str, Any], code: str, rdb: aioredis.Redis) -> dict[str, Any]:
    """Send ``message``, expect the error ``code``, and check the store did not change."""
    before = await everything(rdb)
    await bot.send(message)
    answer = await bot.expect("error")
    assert answer["code"] == code, answer
    assert await everything(rdb) == before, message
    return answer


async def link_code(bot: Bot) -> str:
    await bot.send({"t": "link_code"})
    code: str = (await bot.expect("link_code"))["code"]
    return code


async def test_a_claim_gives_a_device_key_and_eight_recovery_codes_kept_hashed(
        url: str, rdb: aioredis.Redis) -> None:
    name = fresh("ann")
    ann, msg = await claimed(url, name)
    try:
        codes = msg["recovery"]
        assert len(codes) == 8 and len(set(codes)) == 8
        assert all(len(c.replace("-", "")) == 16 for c in codes)
        base = f"user:{{{name.casefold()}}}"
        keys = {txt(k): txt(v) for k, v in (await rdb.hgetall(f"{base}:keys")).items()}
        assert list(keys) == [hashlib.sha256(msg["key"].encode()).hexdigest()]
        (entry,) = keys.values()
        assert entry.startswith(msg["device"] + " ") and entry.endswith(" laptop")
        stored = {txt(m) for m in await rdb.smembers(f"{base}:recovery")}
        assert len(stored) == 8 and not stored & {c.replace("-", "") for c in codes}
        assert stored == {identity_module.code_hash(name, c) for c in codes}
        ttl = await rdb.ttl(base)
        for key in (f"{base}:keys", f"{base}:recovery"):  # they lapse with the name
            assert abs(await rdb.ttl(key) - ttl) <= 1
    finally:
        await close_all([ann])


async def test_a_link_code_gives_a_new_device_a_key_of_its_own(url: str, rdb: aioredis.Redis) -> None:
    name = fresh("ann")
    ann, msg = await claimed(url, name)
    phone = await guest(url)
    try:
        code = await link_code(ann)
        assert await rdb.pttl(f"user:{{{name.casefold()}}}:link") > 9 * 60_000
        await phone.send({"t": "link", "name": name, "code": code.lower(), "label": "phone"})
        linked = await phone.expect("linked")
        assert linked["name"] == name and linked["how"] == "link" and linked["key"] != msg["key"]
        assert await rdb.exists(f"user:{{{name.casefold()}}}:link") == 0  # spent
        # both keys prove the name
        for key in (msg["key"], linked["key"]):
            await close_all([await signed_in(url, name, key)])
        await ann.send({"t": "devices"})
        devices = (await ann.expect("devices"))["devices"]
        assert [(d["label"], d["this"]) for d in devices] == [("laptop", True), ("phone", False)]
        assert devices[1]["id"] == linked["device"]
        # the code was good once
        other = await guest(url)
        await refused(other, {"t": "link", "name": name, "code": code}, "bad_code", rdb)
        await close_all([other])
    finally:
        await close_all([ann, phone])


async def test_a_new_link_code_voids_the_one_before_and_one_expires(
        url: str, rdb: aioredis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    name = fresh("ann")
    ann, _ = await claimed(url, name)
    phone = await guest(url)
    try:
        first = await link_code(ann)
        await link_code(ann)
        await refused(phone, {"t": "link", "name": name, "code": first}, "bad_code", rdb)
        monkeypatch.setattr(identity_module, "LINK_TTL_MS", 150)
        short = await link_code(ann)
        await asyncio.sleep(0.3)
        await refused(phone, {"t": "link", "name": name, "code": short}, "bad_code", rdb)
    finally:
        await close_all([ann, phone])


async def test_a_recovery_spends_its_code_and_revokes_every_other_key(url: str, rdb: aioredis.Redis) -> None:
    name = fresh("ann")
    ann, msg = await claimed(url, name)
    phone = await guest(url)
    newpc = await guest(url)
    try:
        await phone.send({"t": "link", "name": name, "code": await link_code(ann)})
        phone_key = (await phone.expect("linked"))["key"]
        dangling = await link_code(ann)  # a live link code: the recovery voids it too
        code = msg["recovery"][3]
        typed = code.replace("-", " ").replace("0", "o").lower()  # as a person may type it
        await newpc.send({"t": "recover", "name": name, "code": typed, "label": "new pc"})
        linked = await newpc.expect("linked", how="recovery")
        base = f"user:{{{name.casefold()}}}"
        assert await rdb.hlen(f"{base}:keys") == 1
        assert await rdb.scard(f"{base}:recovery") == 7
        assert await rdb.exists(f"{base}:link") == 0
        for old in (msg["key"], phone_key):
            await key_refused(url, name, old)
        await close_all([await signed_in(url, name, linked["key"])])
        # the code is spent; the link code is void
        other = await guest(url)
        await refused(other, {"t": "recover", "name": name, "code": code}, "bad_code", rdb)
        await refused(other, {"t": "link", "name": name, "code": dangling}, "bad_code", rdb)
        await close_all([other])
    finally:
        await close_all([ann, phone, newpc])


async def test_a_revoked_key_proves_nothing_and_its_live_connection_changes_nothing(
        url: str, rdb: aioredis.Redis) -> None:
    name = fresh("ann")
    ann, msg = await claimed(url, name)
    thief = await guest(url)
    try:
        await thief.send({"t": "link", "name": name, "code": await link_code(ann)})
        stolen = await thief.expect("linked")
        await ann.send({"t": "revoke", "id": stolen["device"]})
        devices = (await ann.expect("devices"))["devices"]
        assert [d["id"] for d in devices] == [msg["device"]]
        # the live connection can no longer change anything about the name
        for ask in ({"t": "link_code"}, {"t": "rotate_key"}, {"t": "recovery_codes"},
                    {"t": "revoke", "id": msg["device"]}):
            await refused(thief, ask, "not_identified", rdb)
        await key_refused(url, name, stolen["key"])
    finally:
        await close_all([ann, thief])


async def test_rotate_key_replaces_this_devices_key_and_recovery_codes_the_set(
        url: str, rdb: aioredis.Redis) -> None:
    name = fresh("ann")
    ann, msg = await claimed(url, name)
    try:
        await ann.send({"t": "rotate_key"})
        rotated = await ann.expect("rotated")
        assert rotated["device"] == msg["device"] and rotated["key"] != msg["key"]
        await key_refused(url, name, msg["key"])
        await close_all([await signed_in(url, name, rotated["key"])])
        assert txt(await rdb.hget(f"user:{{{name.casefold()}}}", "key")) == "moved"
        await ann.send({"t": "devices"})
        (device,) = (await ann.expect("devices"))["devices"]
        assert device["label"] == "laptop" and device["this"]
        await ann.send({"t": "recovery_codes"})
        codes = (await ann.expect("recovery_codes"))["codes"]
        assert len(codes) == 8 and not set(codes) & set(msg["recovery"])
        other = await guest(url)
        await refused(other, {"t": "recover", "name": name, "code": msg["recovery"][0]}, "bad_code", rdb)
        await other.send({"t": "recover", "name": name, "code": codes[0]})
        await other.expect("linked")
        await close_all([other])
    finally:
        await close_all([ann])


async def test_every_refusal_changes_nothing_stored(url: str, rdb: aioredis.Redis,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    name = fresh("ann")
    ann, msg = await claimed(url, name)
    stranger = await guest(url)
    try:
        for ask in ({"t": "link_code"}, {"t": "devices"}, {"t": "rotate_key"}, {"t": "recovery_codes"},
                    {"t": "revoke", "id": msg["device"]}):
            await refused(stranger, ask, "not_identified", rdb)
        await refused(ann, {"t": "revoke", "id": msg["device"]}, "this_device", rdb)
        await refused(ann, {"t": "revoke", "id": "00000000"}, "no_device", rdb)
        code = await link_code(ann)
        await refused(ann, {"t": "link", "name": name, "code": code}, "name_taken", rdb)
        await refused(ann, {"t": "recover", "name": name, "code": msg["recovery"][0]}, "name_taken", rdb)
        await refused(stranger, {"t": "link", "name": name, "code": "ZZZZ-ZZZZ"}, "bad_code", rdb)
        await refused(stranger, {"t": "link", "name": fresh("nobody"), "code": code}, "bad_code", rdb)
        await refused(stranger, {"t": "recover", "name": fresh("nobody"), "code": msg["recovery"][0]},
                      "bad_code", rdb)
        # a name with as many keys as allowed: the right code is refused, and not spent
        monkeypatch.setattr(identity_module, "MAX_DEVICES", 1)
        await refused(stranger, {"t": "link", "name": name, "code": code}, "too_many_devices", rdb)
        monkeypatch.setattr(identity_module, "MAX_DEVICES", 10)
        await stranger.send({"t": "link", "name": name, "code": code})
        await stranger.expect("linked")
    finally:
        await close_all([ann, stranger])


async def test_guesses_are_limited_per_name_and_per_address(make_server: ServerFactory,
                                                            rdb: aioredis.Redis) -> None:
    url = ws_url(await make_server())
    name, other_name = fresh("ann"), fresh("bob")
    ann, _ = await claimed(url, name)
    bob, _ = await claimed(url, other_name)
    guesser = await guest(url)
    try:
        for _ in range(4):  # the name's burst
            await refused(guesser, {"t": "link", "name": name, "code": "AAAA-AAAA"}, "bad_code", rdb)
        answer = await refused(guesser, {"t": "link", "name": name, "code": "AAAA-AAAA"}, "over_limit", rdb)
        assert answer["retry_ms"] > 60_000
        # even the right code now waits: the budget goes before the code is looked at
        code = await link_code(ann)
        await refused(guesser, {"t": "link", "name": name.upper(), "code": code}, "over_limit", rdb)
        # another name has guesses of its own
        await refused(guesser, {"t": "recover", "name": other_name, "code": "AAAA"}, "bad_code", rdb)
    finally:
        await close_all([ann, bob, guesser])
    # per address: a burst of a third of the hour's budget, whatever the name
    url = ws_url(await make_server(guesses_per_hour=6))
    guesser = await guest(url)
    try:
        for _ in range(2):
            await refused(guesser, {"t": "link", "name": fresh("x"), "code": "AAAA"}, "bad_code", rdb)
        await refused(guesser, {"t": "link", "name": fresh("x"), "code": "AAAA"}, "over_limit", rdb)
    finally:
        await close_all([guesser])


async def test_a_name_claimed_before_device_keys_gets_its_key_as_its_first_device(
        server: Any, url: str, rdb: aioredis.Redis) -> None:
    name = fresh("old")
    key = secrets.token_urlsafe(24)
    boards = server.competition.boards
    base = f"user:{{{name.casefold()}}}"
    # the layout before device keys: the key's hash in the name's hash, nothing else
    await rdb.hset(base, mapping={"key": hashlib.sha256(key.encode()).hexdigest(), "name": name,
                                  "created": 1})
    await rdb.expire(base, 3600)
    await key_refused(url, name, "not-the-key")
    assert await rdb.exists(f"{base}:keys") == 0
    ann = await signed_in(url, name, key)
    try:
        await ann.send({"t": "devices"})
        (device,) = (await ann.expect("devices"))["devices"]
        assert device["id"] == "k0" and device["label"] == "first device" and device["this"]
        assert abs(await rdb.ttl(f"{base}:keys") - await rdb.ttl(base)) <= 1
        await ann.send({"t": "recovery_codes"})
        codes = (await ann.expect("recovery_codes"))["codes"]
        await boards.keep_names([name])  # a ranked result: the name and its keys are kept for good
        for suffix in ("", ":keys", ":recovery"):
            assert await rdb.ttl(base + suffix) == -1
        assert len(codes) == 8
    finally:
        await close_all([ann])


async def test_no_identity_answer_carries_a_card_a_hash_or_another_devices_key(url: str) -> None:
    """The leak scan over the identity messages: the devices' list names ids,
    labels and times only; a key is sent once, to the device it is for."""
    from tests.support.servers import is_card

    name = fresh("ann")
    ann, msg = await claimed(url, name)
    phone = await guest(url)
    try:
        await phone.send({"t": "link", "name": name, "code": await link_code(ann)})
        phone_key = (await phone.expect("linked"))["key"]
        for ask in ({"t": "devices"}, {"t": "rotate_key"}, {"t": "recovery_codes"}, {"t": "devices"}):
            await ann.send(ask)
            await ann.expect(ask["t"] if ask["t"] != "rotate_key" else "rotated")
        hashes = {hashlib.sha256(k.encode()).hexdigest() for k in (msg["key"], phone_key)}
        for bot, own in ((ann, phone_key), (phone, msg["key"])):
            for heard in bot.inbox:
                flat = repr(heard)
                assert own not in flat and not any(h in flat for h in hashes), heard
                if heard["t"] in ("devices", "link_code", "linked", "rotated", "recovery_codes", "claimed"):
                    assert not any(is_card(v) for v in _strings(heard)), heard
        listed = next(m for m in reversed(ann.inbox) if m["t"] == "devices")["devices"]
        assert all(set(d) == {"id", "label", "created", "used", "this"} for d in listed)
    finally:
        await close_all([ann, phone])


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


async def test_a_key_used_as_its_name_lapses_leaves_no_key_behind(server: Any, rdb: aioredis.Redis) -> None:
    """The name's hash gone, its device keys still there for a moment (they expire
    together): a use of a key then takes its keys with the name, never keeps them."""
    store = server.competition.identity.store
    name = fresh("gone")
    base = f"user:{{{name.casefold()}}}"
    key = "k" * 32
    await rdb.hset(f"{base}:keys", hashlib.sha256(key.encode()).hexdigest(), "ab12cd34 1 1 laptop")
    await store.touch(name, hashlib.sha256(key.encode()).hexdigest(), 5, 3600,
                      Device("k0", 5, 5, "first device"))
    assert await rdb.exists(f"{base}:keys") == 0
