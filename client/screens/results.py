"""The results of a race: places, times, rating changes, the rematch offer; a
daily's share line and streaks; and the keys after a race (pure).

``v`` replays the games (client/screens/replay.py), ``a`` asks where each game
was lost (client/analysis.py), ``g`` races the winner as a ghost, ``s`` saves
the player's record (client/records.py), ``m``/``n`` accept or decline a
rematch, ``b`` opens a board, ``c`` copies a daily's share line, ``!`` reports a
player, ``p`` opens one's own profile (a claimed name's, with its kept games).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..analysis import analysis_lines, title
from ..state import RaceState, is_daily, is_solo, players_of
from ..text import Out, bot_tag, clean, keys_line, player_name
from ..ui import UI, Command, open_board
from ..variants import variant_name
from .base import At, Keys
from .chrome import STATUS_TEXT, header, mmss, notices, num, practice_reason, ranked
from .offers import rematch_offer

__all__ = ["draw", "press"]


def press(ui: UI, key: str, at: At) -> Keys:
    ctx, state = at.ctx, at.state
    if key == "v":
        return replace(ui, note=""), [Command("replay_open")]
    if key == "g" and state.code:
        if ctx.daily:
            return replace(ui, note="a daily's ghosts are raced once the day is over"), []
        return replace(ui, note="racing this race's first place as a ghost"), [Command("ghost", state.code)]
    if key == "s":
        return replace(ui, note="asking the server for your record\u2026"), [Command("save")]
    if key == "a":
        if ctx.daily:
            return replace(ui, note="a daily's games are analysed once the day is over"), []
        return (replace(ui, note="asking the server where the game was lost\u2026 (it takes a few seconds)"),
                [Command("analyse")])
    if key == "m":
        if is_solo(state):
            return replace(ui, note="a solo game has no rematch: 8 in the lobby starts another"), []
        if ctx.daily:
            return replace(ui, note="a daily deal is played once a day: no rematch"), []
        return replace(ui, note="rematch accepted: it starts when everyone accepts"), [Command("rematch")]
    if key == "n" and not ctx.daily:
        return replace(ui, note="no rematch for you"), [Command("decline")]
    if key == "c" and ctx.share:
        note = "share line copied (if your terminal allows) and printed when you quit"
        return replace(ui, note=note), [Command("share", ctx.share)]
    if key == "b":  # today's board after a daily, else the ratings of the race's variant
        kind, variant = ("daily", ctx.variant) if ctx.daily and ctx.variant else ("rating", ctx.variant)
        opened, commands = open_board(UI(), kind, variant)
        return opened, [Command("leave"), *commands]
    if key == "!" and state.code and not is_solo(state):  # report a player of this race
        return replace(ui, text="", text_purpose="report_name", target=state.code, note=""), []
    if key == "p" and state.name and state.claimed:  # one's own profile, with its kept games
        return UI(menu="profile"), [Command("leave"), Command("profile", state.name)]
    if key in ("l", "escape"):
        return UI(), [Command("leave")]
    if key == "q":
        return ui, [Command("quit")]
    return ui, []


def draw(state: RaceState, ui: UI, out: Out, now: int) -> None:
    header(state, out, [])
    _results(state, out)
    notices(state, ui, out)


def _results(state: RaceState, out: Out) -> None:
    res = state.results or {}
    deal = res.get("deal")
    title = " Results" + (f" \u00b7 deal #{clean(deal, 20)}" if deal is not None else "")
    daily = is_daily(state)
    if daily:
        info = state.daily_info.get(str(res.get("variant")), {})
        day = num(info.get("day")) if info.get("date") == res.get("daily") else None
        title += " \u00b7 today's challenge" + (f" #{day}" if day else "")
        title += " \u00b7 " + ("ranked" if ranked(state) else "practice")
    out.text(title, "class:title")
    out.text()
    out.text(f"  {'place':<6}{'player':<20}{'time':>7}{'moves':>7}  foundation", "class:dim")
    seats = {p["player"]: p for p in players_of(state)}
    starts = num((state.room or {}).get("starts_at"))
    ranking = res.get("ranking")
    for i, entry in enumerate(ranking if isinstance(ranking, list) else []):
        if not isinstance(entry, dict):
            continue
        n = num(entry.get("player"))
        name = entry.get("name") or seats.get(n or 0, {}).get("name") or f"player {n}"
        place = num(entry.get("place")) or i + 1
        ms = next((v for k in ("ms", "time_ms", "elapsed_ms") if (v := num(entry.get(k))) is not None), None)
        finished = num(entry.get("finished_at"))
        if ms is None and finished is not None and starts is not None:
            ms = finished - starts
        moves = num(entry.get("moves"))
        done, total = num(entry.get("foundation_cards")), num(entry.get("total_cards"))
        status = STATUS_TEXT.get(str(entry.get("status")), clean(entry.get("status") or "", 14))
        me = n is not None and n == state.me
        tag = bot_tag(entry) or bot_tag(seats.get(n or 0, {}))
        found = f"{done if done is not None else '?'}" + (f"/{total}" if total else "")
        out.add(("class:me" if me else "",
                 f"  {place:<6}{player_name(name, 18 - len(tag)) + tag + (' *' if me else ''):<20}"
                 f"{mmss(ms) if ms is not None else '  --':>7}{moves if moves is not None else '--':>7}"
                 f"  {found:<8}"),
                ("class:dim", status))
    # what the columns say (the time is the race clock's, from its start)
    out.text("  time: a winner's finish, else when the last foundation card went up"
             " · * you", "class:dim")
    out.text()
    if daily:
        _daily_results(state, res, out)
        return
    if state.rating_changes:
        _rating_changes(state, out)
    _analysis(state, out)
    rematch_offer(state, out)
    rematch = () if is_solo(state) else ("m rematch", "n no rematch")
    report = () if is_solo(state) else ("! report",)
    won = any(isinstance(e, dict) and e.get("won") for e in (ranking if isinstance(ranking, list) else []))
    ghost = "g winner's ghost" if won else "g first place's ghost"
    mine = "p your profile" if state.claimed else ""
    out.text(keys_line(*rematch, "b ratings", "s save the record", "v replay", "a analyse", ghost, *report,
                       mine,
                       "l back to the lobby", "q quit"), "class:dim")


def _analysis(state: RaceState, out: Out) -> None:
    found = state.analysis
    if not found or found.get("code") != state.code:
        return
    names = {p["player"]: str(p.get("name") or "") for p in players_of(state)}
    out.text(" " + title(found), "class:title")
    for line in analysis_lines(found, state.me, names):
        out.text("  " + line, "class:info")
    out.text()


def _daily_results(state: RaceState, res: dict[str, Any], out: Out) -> None:
    if not ranked(state):
        out.text(f" Not on today's board: {practice_reason(state)}.", "class:warn")
    share = res.get("share")
    if isinstance(share, str) and share:
        out.add(("", " Share: "), ("class:code", f" {clean(share, 400)} "))
    streaks = res.get("streaks")
    if isinstance(streaks, dict):
        days, wins = num(streaks.get("streak_days")), num(streaks.get("win_streak"))
        parts = []
        if days is not None:
            parts.append(f"{days} day{'s' if days != 1 else ''} in a row with a ranked attempt")
        if wins is not None:
            parts.append(f"{wins} day{'s' if wins != 1 else ''} in a row with a win")
        if parts:
            out.text(" Streaks: " + " \u00b7 ".join(parts), "class:info")
    out.text()
    copy = "c copy the share line" if isinstance(share, str) and share else ""
    mine = "p your profile" if state.claimed else ""
    out.text(keys_line(copy, "b today's board", mine, "l back to the lobby", "q quit"), "class:dim")


def _rating_changes(state: RaceState, out: Out) -> None:
    variant = (state.results or {}).get("rating_variant")
    which = f" \u00b7 {clean(variant_name(state.variants, variant), 24)}" if isinstance(variant, str) else ""
    out.text(f" Ratings{which} (OpenSkill ordinal; ? provisional)", "class:title")
    me = state.name.casefold()
    for change in state.rating_changes:
        mine = change.name.casefold() == me
        who = clean(change.name, 18) + (" *" if mine else "")
        if change.before is None:
            delta = "(no earlier rating seen here)"
        else:
            delta = f"({change.value - change.before:+.2f})"
        mark = "?" if change.provisional else " "
        line = f"   {who:<20}{change.value:>8.2f}{mark} "
        out.add(("class:me" if mine else "", line), ("class:dim", delta))
    out.text()
