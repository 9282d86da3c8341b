"""A name's devices across real ``patience-server`` processes on one Redis: a
link code made on one process is redeemed on another, a key revoked on the
second is refused by the first, and a recovery on the first shuts out the
device that linked on the second."""

from __future__ import annotations

import secrets

from tests.support.bot import Bot
from tests.support.servers import SpawnFactory, close_all


async def hello_refused(url: str, name: str, key: str) -> None:
    from websockets.asyncio.client import connect

    bot = Bot(url, name)
    bot.ws = await connect(url, compression=None)
    await bot.send({"t": "hello", "proto": 1, "name": name, "key": key})
    assert (await bot.expect("error"))["code"] == "name_taken"
    await bot.close()


async def test_link_revoke_and_recover_across_two_server_processes(spawn: SpawnFactory) -> None:
    first, second = await spawn(), await spawn()
    name = f"pd{secrets.token_hex(3)}"
    laptop, phone, newpc = Bot(first.url, name), Bot(second.url, "guest"), Bot(first.url, "guest")
    try:
        await laptop.connect()
        await laptop.send({"t": "claim", "name": name, "label": "laptop"})
        claimed = await laptop.expect("claimed")
        await laptop.send({"t": "link_code"})
        code = (await laptop.expect("link_code"))["code"]
        await phone.connect()
        await phone.send({"t": "link", "name": name, "code": code, "label": "phone"})
        linked = await phone.expect("linked")
        await phone.send({"t": "devices"})
        listed = (await phone.expect("devices"))["devices"]
        assert [(d["label"], d["this"]) for d in listed] == [("laptop", False), ("phone", True)]
        # the phone (on the second process) revokes the laptop's key: the first refuses it
        await phone.send({"t": "revoke", "id": claimed["device"]})
        assert len((await phone.expect("devices"))["devices"]) == 1
        await hello_refused(first.url, name, claimed["key"])
        # and the laptop's live connection on the first process can change nothing
        await laptop.send({"t": "link_code"})
        assert (await laptop.expect("error"))["code"] == "not_identified"
        # a recovery on the first process: the phone's key goes, on the second too
        await newpc.connect()
        await newpc.send({"t": "recover", "name": name, "code": claimed["recovery"][0]})
        recovered = await newpc.expect("linked", how="recovery")
        await hello_refused(second.url, name, linked["key"])
        again = Bot(second.url, name)
        assert (await again.connect(key=recovered["key"]))["identified"] == name
        await again.close()
    finally:
        await close_all([laptop, phone, newpc])
