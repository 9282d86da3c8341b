"""Handlers for friends and challenges: the list with who is online, follow,
block, challenge and the answer to one (server/rooms/friends.py decides;
docs/design/friends.md says why).

A follow, unfollow, block or unblock is answered with the list as it now is.
"""

from __future__ import annotations

from typing import Any

from ..rooms.friends import Friends, friends_for
from ..rooms.player import Player
from ..wire.protocol import ProtocolError
from .common import variant_id

# the messages after which a connection may have proved a claimed name
IDENTIFYING = frozenset({"hello", "claim", "link", "recover"})


def _friends(player: Player) -> Friends:
    friends = friends_for(player.service)
    if friends is None:
        raise ProtocolError("internal", "this server keeps no friends")
    return friends


async def arrived(player: Player, kind: str) -> None:
    """After a message that may have signed the connection in: its presence."""
    friends = friends_for(player.service)
    if kind in IDENTIFYING and friends is not None and player.identified is not None:
        await friends.presence.arrive(player)


async def on_friends(player: Player, msg: dict[str, Any]) -> None:
    player.send(await _friends(player).listing(player))


async def on_follow(player: Player, msg: dict[str, Any]) -> None:
    friends = _friends(player)
    await friends.follow(player, msg["name"])
    player.send(await friends.listing(player))


async def on_unfollow(player: Player, msg: dict[str, Any]) -> None:
    friends = _friends(player)
    await friends.unfollow(player, msg["name"])
    player.send(await friends.listing(player))


async def on_block(player: Player, msg: dict[str, Any]) -> None:
    friends = _friends(player)
    await friends.block(player, msg["name"])
    player.send(await friends.listing(player))


async def on_unblock(player: Player, msg: dict[str, Any]) -> None:
    friends = _friends(player)
    await friends.unblock(player, msg["name"])
    player.send(await friends.listing(player))


async def on_challenge(player: Player, msg: dict[str, Any]) -> None:
    friends = _friends(player)
    variant = variant_id(msg["variant"])
    player.send(await friends.challenge(player, msg["name"], variant))


async def on_challenge_answer(player: Player, msg: dict[str, Any]) -> None:
    await _friends(player).answer(player, msg["name"], msg.get("accept", True))


HANDLERS = {"friends": on_friends, "follow": on_follow, "unfollow": on_unfollow, "block": on_block,
            "unblock": on_unblock, "challenge": on_challenge, "challenge_answer": on_challenge_answer}
