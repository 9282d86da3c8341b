"""welcome.server_id: one stable id per deployment (its secret), whatever address reached it."""

from __future__ import annotations

from tests.support.bot import Bot
from tests.support.servers import ServerFactory, ws_url


async def test_every_process_of_a_deployment_gives_one_id_and_another_secret_another(
        make_server: ServerFactory) -> None:
    one, two = await make_server(secret="s1"), await make_server(secret="s1")
    other, none = await make_server(secret="s2"), await make_server(secret="")
    ids = []
    for address in (ws_url(one), f"ws://localhost:{one.port}", ws_url(two), ws_url(other), ws_url(none)):
        bot = Bot(address, "ann")
        try:
            ids.append((await bot.connect()).get("server_id"))
        finally:
            await bot.close()
    assert ids[0] == ids[1] == ids[2] and isinstance(ids[0], str) and len(ids[0]) == 24
    assert ids[3] not in (ids[0], None)
    assert "s1" not in ids[0]
    assert ids[4] is None  # no secret, no id: clients fall back to the address
