"""A claimed name's devices as the client shows them (pure reducers): the
recovery codes (shown once, kept nowhere), the link code, the list of device
keys. The session keeps the keys themselves (client/connection.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol


class RaceState(Protocol):
    """What these reducers touch of client.state.RaceState (which imports them:
    this module may not import it back)."""

    name: str
    claimed: bool
    recovery_codes: list[str]
    devices: list[dict[str, Any]]
    link_code: dict[str, Any] | None

    def tell(self, text: str, error: bool = False) -> None: ...


def _codes(value: Any) -> list[str]:
    return [c for c in value if isinstance(c, str)][:16] if isinstance(value, list) else []


def claimed(state: RaceState, msg: dict[str, Any]) -> None:
    name = msg.get("name")
    if isinstance(name, str) and name:
        state.name = name
        state.claimed = True
        state.recovery_codes = _codes(msg.get("recovery"))
        state.tell(f"the name {name} is yours on this server: its key is kept on this computer")


def recovery_codes(state: RaceState, msg: dict[str, Any]) -> None:
    state.recovery_codes = _codes(msg.get("codes"))


def link_code(state: RaceState, msg: dict[str, Any]) -> None:
    code = msg.get("code")
    if isinstance(code, str):
        state.link_code = {"code": code, "expires_at": msg.get("expires_at")}


def linked(state: RaceState, msg: dict[str, Any]) -> None:
    name = msg.get("name")
    if not isinstance(name, str) or not name:
        return
    state.name, state.claimed, state.devices, state.link_code = name, True, [], None
    if msg.get("how") == "recovery":
        state.tell(f"this device plays as {name} again; every other device's key is revoked")
    else:
        state.tell(f"this device plays as {name} now, with a key of its own kept on this computer")


def devices(state: RaceState, msg: dict[str, Any]) -> None:
    listed = msg.get("devices")
    state.devices = [d for d in listed if isinstance(d, dict)][:16] if isinstance(listed, list) else []


def rotated(state: RaceState, msg: dict[str, Any]) -> None:
    state.tell("this device has a new key, kept on this computer: the old one proves nothing now")


REDUCERS: Final[dict[str, Callable[[RaceState, dict[str, Any]], None]]] = {
    "claimed": claimed, "recovery_codes": recovery_codes, "link_code": link_code, "linked": linked,
    "devices": devices, "rotated": rotated,
}
