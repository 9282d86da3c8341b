"""What the input line does for the friends screen's prompts (pure): follow,
unfollow, block, unblock and challenge a name (client/screens/friends.py).
Kept apart from that screen so that client/screens/line.py can take these in
without importing a screen."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from ..ui import MAX_NAME, UI, Command
from .base import Keys

__all__ = ["ENTER", "PROMPTS"]

PROMPTS: Final = {
    "follow": "follow (a claimed name): ",
    "unfollow": "stop following (a name): ",
    "block": "block (a claimed name): ",
    "unblock": "unblock (a name): ",
    "challenge": "challenge (a claimed name): ",
}



def _named(kind: str) -> Callable[[UI, str], Keys]:
    def entered(ui: UI, value: str) -> Keys:
        closed = replace(ui, text=None, text_purpose="")
        if not value:
            return closed, []
        if len(value) > MAX_NAME:
            return replace(ui, note=f"a name has 1 to {MAX_NAME} characters"), []
        return replace(closed, menu="friends", note=""), [Command(kind, value)]
    return entered


def _challenge(ui: UI, value: str) -> Keys:
    closed = replace(ui, text=None, text_purpose="")
    if not value:
        return replace(closed, menu="friends"), []
    if len(value) > MAX_NAME:
        return replace(ui, note=f"a name has 1 to {MAX_NAME} characters"), []
    return replace(closed, menu="friends", note=""), [Command("challenge", value, kind=ui.variant)]


# the input line's answers (client/screens/line.py takes them in)
ENTER: Final[dict[str, Callable[[UI, str], Keys]]] = {
    "follow": _named("follow"), "unfollow": _named("unfollow"), "block": _named("block"),
    "unblock": _named("unblock"), "challenge": _challenge,
}


