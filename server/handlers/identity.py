"""Handlers for a claimed name's devices: link codes, recovery, the list of
device keys, revoking one and replacing this one (docs/design/identity.md).

Every refusal comes before the first write: the budgets are checked first
(they live in this process's memory), and each store script checks all it
needs before it writes anything.
"""

from __future__ import annotations

import math
from typing import Any

from ..rooms.identity import Identity
from ..rooms.player import Player, clean_name
from ..wire.protocol import ProtocolError


def _identity(player: Player) -> Identity:
    return player.service.competition.identity


def _signed_in(player: Player) -> tuple[str, str]:
    if player.identified is None or player.key_id is None:
        raise ProtocolError("not_identified",
                            "sign in with the name's key first (claim, or hello with the key)")
    return player.identified, player.key_id


def _revoked() -> ProtocolError:
    return ProtocolError("not_identified", "the key this connection signed in with has been revoked")


def _spend_change(player: Player) -> None:
    wait = player.limits.take_key_change()
    if wait > 0:
        raise ProtocolError("over_limit", f"as many key changes as allowed from this address for now: "
                            f"try again in {wait:.1f} s", retry_ms=math.ceil(wait * 1000))


def _spend_guess(player: Player, name: str) -> None:
    wait = player.limits.take_guess(name)
    if wait > 0:
        raise ProtocolError("over_limit", f"as many codes tried for this name or from this address as "
                            f"allowed for now: try again in {wait:.1f} s", retry_ms=math.ceil(wait * 1000))


async def on_link_code(player: Player, msg: dict[str, Any]) -> None:
    name, caller = _signed_in(player)
    _spend_change(player)
    made = await _identity(player).link_code(name, caller)
    if made is None:
        raise _revoked()
    code, expires_at = made
    player.send({"t": "link_code", "code": code, "expires_at": expires_at})


def _new_device(player: Player, msg: dict[str, Any]) -> str:
    if player.identified is not None:
        raise ProtocolError("name_taken", f"this connection already plays as {player.identified}")
    name = clean_name(msg["name"])
    _spend_guess(player, name)
    return name


def _linked(player: Player, name: str, key: str, key_id: str, how: str) -> None:
    player.identified = player.name = name
    player.key_id = key_id
    player.send({"t": "linked", "name": name, "key": key, "device": key_id, "how": how})


async def on_link(player: Player, msg: dict[str, Any]) -> None:
    name = _new_device(player, msg)
    made = await _identity(player).link(name, msg["code"], msg.get("label"))
    if made == "full":
        raise ProtocolError("too_many_devices", f"{name!r} has as many device keys as it may: "
                            "revoke one from a signed-in device first")
    if isinstance(made, str):
        raise ProtocolError("bad_code", f"that link code is wrong, used or expired for {name!r}")
    _linked(player, name, *made, "link")


async def on_recover(player: Player, msg: dict[str, Any]) -> None:
    name = _new_device(player, msg)
    made = await _identity(player).recover(name, msg["code"], msg.get("label"))
    if made is None:
        raise ProtocolError("bad_code", f"that recovery code is wrong or used for {name!r}")
    _linked(player, name, *made, "recovery")


async def _send_devices(player: Player, name: str, caller: str) -> None:
    player.send({"t": "devices", "devices": await _identity(player).devices(name, caller)})


async def on_devices(player: Player, msg: dict[str, Any]) -> None:
    name, caller = _signed_in(player)
    await _send_devices(player, name, caller)


async def on_revoke(player: Player, msg: dict[str, Any]) -> None:
    name, caller = _signed_in(player)
    if msg["id"] == caller:
        raise ProtocolError("this_device", "this connection signed in with that key: rotate_key replaces it")
    _spend_change(player)
    status = await _identity(player).revoke(name, msg["id"], caller)
    if status == "gone":
        raise _revoked()
    if status != "ok":
        raise ProtocolError("no_device", f"{name!r} has no device key {msg['id'][:16]!r}")
    await _send_devices(player, name, caller)


async def on_rotate_key(player: Player, msg: dict[str, Any]) -> None:
    name, caller = _signed_in(player)
    _spend_change(player)
    key = await _identity(player).rotate(name, caller)
    if key is None:
        raise _revoked()
    player.send({"t": "rotated", "name": name, "key": key, "device": caller})


async def on_recovery_codes(player: Player, msg: dict[str, Any]) -> None:
    name, caller = _signed_in(player)
    _spend_change(player)
    codes = await _identity(player).new_codes(name, caller)
    if codes is None:
        raise _revoked()
    player.send({"t": "recovery_codes", "codes": codes})


HANDLERS = {"link_code": on_link_code, "link": on_link, "recover": on_recover, "devices": on_devices,
            "revoke": on_revoke, "rotate_key": on_rotate_key, "recovery_codes": on_recovery_codes}
