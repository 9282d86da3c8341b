"""The rematch offer on the results screen: who accepts, whom it waits for (pure)."""

from __future__ import annotations

from ..state import RaceState, players_of
from ..text import Out, player_name

__all__ = ["rematch_offer"]


def rematch_offer(state: RaceState, out: Out) -> None:
    """Who accepts a rematch so far, and whom it waits for (it starts once all accept)."""
    offer = state.rematch_offer or {}
    accepted = [n for n in offer.get("accepted") or () if isinstance(n, int)]
    if not offer:
        return
    names = {p["player"]: player_name(p.get("name"), 18) for p in players_of(state)}
    waiting = [n for n in offer.get("players") or () if isinstance(n, int) and n not in accepted]
    if offer.get("accept") is False and offer.get("player") != state.me:
        out.text(f" {names.get(offer.get('player') or 0, 'a player')} declined a rematch", "class:warn")
    elif accepted and state.me not in accepted:
        who = ", ".join(names.get(n, f"player {n}") for n in accepted)
        out.text(f" {who} offered a rematch: m accept \u00b7 n decline", "class:title")
    elif accepted:
        rest = ", ".join(names.get(n, f"player {n}") for n in waiting)
        out.text(f" Rematch accepted: waiting for {rest}" if rest else " Rematch accepted", "class:dim")
    out.text()
