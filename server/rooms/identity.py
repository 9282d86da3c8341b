"""An identity a player cannot lose: device keys, recovery codes, link codes.

A claimed name holds one key per device (at most MAX_DEVICES), each with a
label and its time of last use. At the claim the player also gets
RECOVERY_CODES recovery codes, shown once and stored as salted hashes, each
good for one recovery; a signed-in device makes a short-lived link code that
gives a new device a key of its own. docs/design/identity.md says why each
choice, and works out the guessing arithmetic.

The codes are high-entropy random strings, so a salted SHA-256 stores them
well: there is nothing for a slow hash to stretch, and a slow hash on the
event loop would let anyone who sends codes spend the server's CPU.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Callable
from typing import Any

from ..store.identity import LEGACY_ID, Device, IdentityStore

MAX_DEVICES = 10  # device keys a name holds at most
RECOVERY_CODES = 8
RECOVERY_SYMBOLS = 16  # 80 bits each
LINK_SYMBOLS = 8  # 40 bits
LINK_TTL_MS = 10 * 60_000
MAX_LABEL = 32
# Crockford's base 32: no I, L, O or U, so that a code read aloud or copied by hand
# survives; what a reader may type instead (o for 0, i and l for 1) is mapped back.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_TYPED = str.maketrans({"O": "0", "I": "1", "L": "1"})

Clock = Callable[[], int]


def new_code(symbols: int) -> str:
    """A random code of ``symbols`` base-32 symbols, in groups of four (``ABCD-EFGH``)."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(symbols))
    return "-".join(raw[i:i + 4] for i in range(0, symbols, 4))


def normal_code(text: str) -> str:
    """A code as typed, as it was made: case, dashes and spaces do not count."""
    return "".join(ch for ch in text.upper() if ch not in "- \t").translate(_TYPED)


def code_hash(name: str, code: str) -> str:
    """The stored form of a code: salted by the name, so one table of hashes
    serves no two names."""
    return hashlib.sha256(f"{name.casefold()}\n{normal_code(code)}".encode()).hexdigest()


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return secrets.token_urlsafe(24)


def clean_label(label: str | None) -> str:
    """Printable, one line, never empty: labels are drawn in the devices' list."""
    text = "".join(ch for ch in (label or "") if unicodedata.category(ch)[0] not in ("C", "Z")
                   or ch == " ")
    return " ".join(text.split())[:MAX_LABEL] or "device"


def device_view(device: Device, this: str | None) -> dict[str, Any]:
    return {"id": device.id, "label": device.label, "created": device.created,
            "used": device.used, "this": device.id == this}


class Identity:
    """The name's keys and codes, as the handlers ask for them."""

    def __init__(self, store: IdentityStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    def _device(self, label: str | None, key_id: str | None = None) -> Device:
        now = self.clock()
        return Device(key_id or secrets.token_hex(4), now, now, clean_label(label))

    async def claim(self, name: str, label: str | None,
                    ttl_days: int) -> tuple[str, str, list[str]] | None:
        """(key, device id, recovery codes) for a name just claimed; None when
        it was claimed already (nothing written)."""
        key, device = new_key(), self._device(label)
        codes = [new_code(RECOVERY_SYMBOLS) for _ in range(RECOVERY_CODES)]
        if not await self.store.claim(name, key_hash(key), device, ttl_days * 86_400,
                                      [code_hash(name, c) for c in codes]):
            return None
        return key, device.id, codes

    async def prove(self, name: str, key: str | None) -> tuple[bool, str | None]:
        """(claimed, the id of the device key ``key`` is, or None when it is none)."""
        if key is None:
            claimed, _, _ = await self.store.prove(name, "")
            return claimed, None
        claimed, key_id, legacy = await self.store.prove(name, key_hash(key))
        if legacy is not None and hmac.compare_digest(legacy, key_hash(key)):
            return True, LEGACY_ID
        return claimed, key_id

    async def touch(self, name: str, key: str, ttl_days: int) -> None:
        now = self.clock()
        await self.store.touch(name, key_hash(key), now, ttl_days * 86_400,
                               Device(LEGACY_ID, now, now, "first device"))

    async def link_code(self, name: str, caller: str) -> tuple[str, int] | None:
        """A new link code of the name (the one before is void) and when it
        expires; None when the caller's key has been revoked."""
        code = new_code(LINK_SYMBOLS)
        if not await self.store.new_link(name, caller, code_hash(name, code), LINK_TTL_MS):
            return None
        return code, self.clock() + LINK_TTL_MS

    async def link(self, name: str, code: str, label: str | None) -> tuple[str, str] | str:
        """(key, device id), or the refusal: 'bad' or 'full'."""
        key, device = new_key(), self._device(label)
        status = await self.store.link(name, code_hash(name, code), key_hash(key), device, MAX_DEVICES)
        return (key, device.id) if status == "ok" else status

    async def recover(self, name: str, code: str, label: str | None) -> tuple[str, str] | None:
        """(key, device id), the code spent and every other key revoked; None: no such code."""
        key, device = new_key(), self._device(label)
        if await self.store.recover(name, code_hash(name, code), key_hash(key), device) != "ok":
            return None
        return key, device.id

    async def devices(self, name: str, this: str | None) -> list[dict[str, Any]]:
        return [device_view(d, this) for d in await self.store.devices(name)]

    async def revoke(self, name: str, key_id: str, caller: str) -> str:
        return await self.store.revoke(name, key_id, caller)

    async def rotate(self, name: str, key_id: str) -> str | None:
        """The new key of this device, or None when its key is gone."""
        key = new_key()
        return key if await self.store.rotate(name, key_id, key_hash(key), self.clock()) else None

    async def new_codes(self, name: str, caller: str) -> list[str] | None:
        codes = [new_code(RECOVERY_SYMBOLS) for _ in range(RECOVERY_CODES)]
        if not await self.store.new_codes(name, caller, [code_hash(name, c) for c in codes]):
            return None
        return codes
