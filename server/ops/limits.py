"""Limits per client address and per connection, kept in this process's memory.

One client address (an IPv4 address, or an IPv6 /64: one household or host)
gets budgets that all its connections share: how many connections it holds,
how many messages it sends, how many rooms it opens and names it claims, and
how soon it may join again after asking for a room code that does not exist.
Each connection also has budgets of its own, so one connection cannot spend
its address's whole allowance.

The state is per process, not shared in Redis: a refused message must change
nothing stored, and a counter bumped in Redis by every refusal would be a
change. With several processes behind a balancer that spreads one address
over them, an address gets each budget once per process
(docs/operations/reliability.md works the numbers for that case).

The table of addresses is bounded (least recently seen goes first) and forgets
an address idle for longer than any budget needs to refill, so a flood of
distinct addresses costs a fixed amount of memory.

Nothing here imports the rest of the server: callers turn a refusal (a wait
in seconds) into their own error.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

Clock = Callable[[], float]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# After the k-th failed join in a row an address waits min(BASE * 2^(k-1), MAX)
# seconds before its next join is looked at; failures are forgotten after a
# quiet spell. See docs/operations/reliability.md for what this does to code guessing.
JOIN_PENALTY_BASE_S = 0.5
JOIN_PENALTY_MAX_S = 60.0
JOIN_FAILS_FORGOTTEN_S = 15 * 60.0
# An address unseen this long is forgotten: longer than any budget takes to
# refill (the claims budget refills within an hour), so forgetting gives back
# nothing it would not have given anyway.
ADDRESS_IDLE_S = 3600.0
ADDRESS_TABLE_MAX = 16_384
# A connection's own share of the address's room budget: a third of it, so
# one connection alone cannot spend it all.
CONNECTION_SHARE = 3
# Guesses of a link or recovery code against one name, per process: a burst
# and a refill an hour. docs/design/identity.md works out why guessing a code
# takes far longer than it lives at these rates.
NAME_GUESSES_BURST = 4
NAME_GUESSES_PER_HOUR = 12
NAME_TABLE_MAX = 16_384


class Bucket:
    """A token bucket: holds up to ``capacity`` tokens, refilled at ``rate``
    tokens a second. Taking never waits: it succeeds or says how long to wait."""

    __slots__ = ("capacity", "rate", "tokens", "stamp")

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.stamp = now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: one is there now)."""
        self._refill(now)
        if self.tokens >= 1:
            return 0.0
        return (1 - self.tokens) / self.rate if self.rate > 0 else float("inf")

    def take(self, now: float) -> bool:
        self._refill(now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def take_with(self, other: Bucket, now: float) -> bool:
        """A token from this bucket and one from ``other``, or none from either:
        ``wait(now) == 0 and other.take(now) and self.take(now)`` in one call
        (the hot path: one per message)."""
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
        if self.tokens < 1 or not other.take(now):
            return False
        self.tokens -= 1
        return True


@dataclass(frozen=True)
class Limits:
    """The budgets of one address (server/ops/config.py reads them from the environment)."""

    connections: int = 16
    messages_per_2s: int = 240
    rooms_per_min: int = 30
    claims_per_hour: int = 20
    join_penalty_s: float = JOIN_PENALTY_BASE_S  # the first wait after an unknown code
    guesses_per_hour: int = 30  # link and recovery codes tried, whatever the name

    @property
    def claims_burst(self) -> int:
        return max(1, self.claims_per_hour // 4)

    @property
    def guesses_burst(self) -> int:
        return max(1, self.guesses_per_hour // 3)

    @property
    def connection_rooms_per_min(self) -> int:
        return max(1, self.rooms_per_min // CONNECTION_SHARE)


class Address:
    """What one process remembers about one client address."""

    __slots__ = ("key", "limits", "connections", "messages", "rooms", "claims", "guesses",
                 "join_fails", "last_fail", "join_open_at", "seen")

    def __init__(self, key: str, limits: Limits, now: float) -> None:
        self.key = key
        self.limits = limits
        self.connections = 0
        self.messages = Bucket(limits.messages_per_2s, limits.messages_per_2s / 2, now)
        self.rooms = Bucket(limits.rooms_per_min, limits.rooms_per_min / 60, now)
        self.claims = Bucket(limits.claims_burst, limits.claims_per_hour / 3600, now)
        self.guesses = Bucket(limits.guesses_burst, limits.guesses_per_hour / 3600, now)
        self.join_fails = 0
        self.last_fail = 0.0
        self.join_open_at = 0.0
        self.seen = now

    def join_wait(self, now: float) -> float:
        """Seconds before this address may join again (0: now)."""
        return max(0.0, self.join_open_at - now)

    def join_failed(self, now: float) -> float:
        """Count a join of a code that does not exist; returns the wait it earns."""
        if now - self.last_fail > JOIN_FAILS_FORGOTTEN_S:
            self.join_fails = 0
        self.join_fails += 1
        self.last_fail = now
        wait = min(self.limits.join_penalty_s * 2.0 ** min(self.join_fails - 1, 30),
                   JOIN_PENALTY_MAX_S)
        self.join_open_at = now + wait
        return wait


class AddressBook:
    """Every address this process has heard from lately, least recently seen first."""

    def __init__(self, limits: Limits, clock: Clock = time.monotonic,
                 max_entries: int = ADDRESS_TABLE_MAX, idle_s: float = ADDRESS_IDLE_S) -> None:
        self.limits = limits
        self.clock = clock
        self.max_entries = max_entries
        self.idle_s = idle_s
        self._table: OrderedDict[str, Address] = OrderedDict()

    def __len__(self) -> int:
        return len(self._table)

    def get(self, key: str) -> Address:
        """The entry of ``key`` (a fresh one when unknown or forgotten), marked as seen."""
        now = self.clock()
        self._forget_idle(now)
        entry = self._table.get(key)
        if entry is None:
            entry = self._table[key] = Address(key, self.limits, now)
            while len(self._table) > self.max_entries:
                # An evicted address with open connections keeps its entry
                # through them; only its next connection starts afresh.
                self._table.popitem(last=False)
        else:
            self._table.move_to_end(key)
        entry.seen = now
        return entry

    def peek(self, key: str) -> Address | None:
        return self._table.get(key)

    def _forget_idle(self, now: float) -> None:
        # the oldest entries first, up to the first one seen lately; one with
        # open connections is still in use: it goes to the back as seen now
        for _ in range(len(self._table)):
            oldest = next(iter(self._table.values()))
            if now - oldest.seen <= self.idle_s:
                return
            if oldest.connections > 0:
                oldest.seen = now
                self._table.move_to_end(oldest.key)
            else:
                self._table.popitem(last=False)


class NameBook:
    """Each name's budget of code guesses in this process, least recently
    guessed first. Bounded like the address table: a flood of guesses at
    distinct names costs a fixed amount of memory, and a name forgotten has
    refilled by then anyway."""

    def __init__(self, clock: Clock = time.monotonic, max_entries: int = NAME_TABLE_MAX,
                 burst: int = NAME_GUESSES_BURST, per_hour: int = NAME_GUESSES_PER_HOUR) -> None:
        self.clock = clock
        self.max_entries = max_entries
        self.burst = burst
        self.rate = per_hour / 3600
        self.idle_s = burst / self.rate if self.rate > 0 else float("inf")  # full again by then
        self._table: OrderedDict[str, Bucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._table)

    def bucket(self, name: str, now: float) -> Bucket:
        key = name.casefold()
        while self._table:  # the idle ones first: they would be full again
            oldest = next(iter(self._table.values()))
            if now - oldest.stamp <= self.idle_s:
                break
            self._table.popitem(last=False)
        entry = self._table.get(key)
        if entry is None:
            entry = self._table[key] = Bucket(self.burst, self.rate, now)
            while len(self._table) > self.max_entries:
                self._table.popitem(last=False)
        else:
            self._table.move_to_end(key)
        return entry


class ConnectionLimits:
    """The budgets one connection spends: its own and its address's."""

    __slots__ = ("address", "clock", "rooms", "names")

    def __init__(self, address: Address, clock: Clock = time.monotonic,
                 names: NameBook | None = None) -> None:
        self.address = address
        self.clock = clock
        # code guesses per name: shared by every connection of this process
        self.names = names if names is not None else NameBook(clock)
        per_min = address.limits.connection_rooms_per_min
        self.rooms = Bucket(per_min, per_min / 60, clock())

    def room_wait(self) -> float:
        """Seconds before a room may be opened (0: now); spends nothing."""
        now = self.clock()
        return max(self.rooms.wait(now), self.address.rooms.wait(now))

    def take_room(self) -> float:
        """Spend one room opening; returns 0, or the seconds to wait (nothing spent)."""
        now = self.clock()
        wait = max(self.rooms.wait(now), self.address.rooms.wait(now))
        if wait == 0:
            self.rooms.take(now)
            self.address.rooms.take(now)
        return wait

    def take_claim(self) -> float:
        """Spend one name claim; returns 0, or the seconds to wait (nothing spent).
        (A connection claims at most one name: the claim handler sees to that.)"""
        now = self.clock()
        wait = self.address.claims.wait(now)
        if wait == 0:
            self.address.claims.take(now)
        return wait

    def take_key_change(self) -> float:
        """Spend one change of a name's keys or codes (a link code, a new key,
        new recovery codes, a revocation) from the address's claims budget;
        returns 0, or the seconds to wait (nothing spent)."""
        return self.take_claim()

    def take_guess(self, name: str) -> float:
        """Spend one guess of a link or recovery code for ``name``, from the
        address's guesses and the name's; returns 0, or the seconds to wait
        (nothing spent from either)."""
        now = self.clock()
        per_name = self.names.bucket(name, now)
        wait = max(self.address.guesses.wait(now), per_name.wait(now))
        if wait == 0:
            self.address.guesses.take(now)
            per_name.take(now)
        return wait

    def join_wait(self) -> float:
        return self.address.join_wait(self.clock())

    def join_failed(self) -> float:
        return self.address.join_failed(self.clock())


def unlimited() -> ConnectionLimits:
    """Budgets no test or tool will exhaust (for a Player made without a connection)."""
    huge = 10**9
    limits = Limits(connections=huge, messages_per_2s=huge, rooms_per_min=huge, claims_per_hour=huge,
                    join_penalty_s=0.0, guesses_per_hour=huge)
    return ConnectionLimits(Address("local", limits, time.monotonic()))


# -- which address a connection is from ---------------------------------------------------
def parse_networks(text: str) -> tuple[Network, ...]:
    """``"10.0.0.1, 172.16.0.0/12"`` -> networks; raise ValueError on a bad entry."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in text.split(",") if part.strip())


def address_key(ip: str) -> str:
    """The key an address is counted under: an IPv4 address as it is, an IPv6
    address by its /64 (one host or household holds a whole /64)."""
    try:
        addr = ipaddress.ip_address(ip.strip().strip("[]"))
    except ValueError:
        return "unknown"
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


def _in(ip: str, networks: Iterable[Network]) -> bool:
    try:
        addr = ipaddress.ip_address(ip.strip().strip("[]"))
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return any(addr in net for net in networks)


def client_address(peer: str | None, forwarded_for: Iterable[str],
                   trusted: tuple[Network, ...]) -> str:
    """The key of the client behind a connection from ``peer``.

    ``X-Forwarded-For`` is believed only from a trusted proxy, and then read
    from the right: each trusted hop appends the address it saw, so the first
    address from the right that is not a trusted proxy is the client's. A
    header anyone else sends is ignored: a client could write any address in it.
    """
    if peer is None:
        return "unknown"
    if not trusted or not _in(peer, trusted):
        return address_key(peer)
    hops = [h.strip() for value in forwarded_for for h in value.split(",") if h.strip()]
    for hop in reversed(hops):
        if not _in(hop, trusted):
            key = address_key(hop)
            # a garbled header counts against the proxy itself, never against no one
            return key if key != "unknown" else address_key(peer)
    return address_key(peer)
