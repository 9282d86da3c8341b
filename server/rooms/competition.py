"""The daily challenge, boards, ratings and streaks, as the server uses them.

Sits between the sessions and the stores: provisions each day's deal (the
solver runs in a worker process, never on the event loop), counts attempts,
and after a race or a daily re-verifies every record by replaying it before
any board or rating takes it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import hmac
import logging
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..game.records import Record, replay_facts
from ..game.variants import get_rules
from ..ops.workers import worker_pool
from ..race.daily import DailyDeal, choose_daily, commitment, day_bounds_ms, day_number, share_line, utc_day
from ..race.ratings import stored_skills
from ..race.rows import RoomRow
from ..race.rules import one_seat_each
from ..race.seasons import MONTH
from ..store.boards import DAILY_TTL_S, BoardStore
from ..store.botaccounts import BotAccountStore
from ..store.fairplay import FairPlayStore
from ..store.resultlog import LogStore
from ..store.rooms import RoomStore
from .botaccounts import BotAccounts
from .fairplay import FairPlay
from .history import GameHistory
from .identity import Identity
from .ladder import NEIGHBOURS, Ladder
from .resultlog import ResultLog

log = logging.getLogger("patience.competition")

Clock = Callable[[], int]

PROFILE_CURVE = 50  # changes of each variant's rating a profile draws (the newest)
DAILY_KEPT_S = DAILY_TTL_S  # how long a day's board is kept: older days are not asked for
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def board_date(asked: str | None, today: str) -> str:
    """The day of a daily board: today unless asked; a day that is malformed,
    still to come, or older than the boards are kept is ``bad_field`` (each
    would be one more board to look up and to watch, for nothing)."""
    if not asked:
        return today
    try:
        day = dt.date.fromisoformat(asked) if DATE.fullmatch(asked) else None
    except ValueError:
        day = None
    first = dt.date.fromisoformat(today) - dt.timedelta(seconds=DAILY_KEPT_S - 86_400)
    if day is None or not first <= day <= dt.date.fromisoformat(today):
        from ..wire.protocol import ProtocolError

        raise ProtocolError("bad_field", f"board: date is a day from {first} to {today} (YYYY-MM-DD)")
    return asked


def _solve(variant: str, deal: str, budget: int) -> Any:
    from ..game.solver import solve

    return solve(variant, deal, budget)


def _grader(budget: int) -> Callable[[str, str, list[str]], int]:
    def grade(variant: str, deal: str, line: list[str]) -> int:
        from ..game.engine import new_game
        from ..game.solver.difficulty import GRADE_BUDGET, grade_won

        return grade_won(new_game(variant, deal), line, min(GRADE_BUDGET, budget)).grade

    return grade


# (variant, deal, games per level) -> each level's median foundation count: the bots'
# par, handed in by the composition root (server/rooms/bots/par.py: the bots sit above
# this module, which they reach through the service)
ParMaker = Callable[[str, str, int], tuple[int, ...]]


def _choose(secret: bytes, date: str, variant: str, budget: int, tries: int,
            par_games: int = 0, par: ParMaker | None = None) -> DailyDeal:
    """The day's deal on the weekly curve, with the bots' par when asked
    (in the worker process: a par is a few bot games per level)."""
    deal = choose_daily(secret, date, variant, _solve, budget, tries, grade=_grader(budget))
    if par_games > 0 and par is not None:
        deal = dataclasses.replace(deal, pars=par(variant, deal.deal, par_games))
    return deal


def ranked_replay(record: Record) -> dict[str, Any]:
    """What a ranked result is checked against: whether the record replays
    legally, the foundation count it reaches and its undos. Not its status: a
    dead-position search here would run on the event loop (its verdict was the
    move path's business, in slices and in the worker), and a result is ranked
    by foundation cards and times, which the replay gives."""
    return replay_facts(record)[1]


class Competition:
    def __init__(self, rooms: RoomStore, boards: BoardStore, secret: str, clock: Clock,
                 solve_budget: int = 200_000, tries: int = 12, season_days: int = MONTH,
                 par_games: int = 0) -> None:
        self.rooms = rooms
        self.boards = boards
        self.ladder = Ladder(boards, clock, season_days)
        self.identity = Identity(boards.identity, clock)  # device keys and codes of claimed names
        # fair-play signals of each ranked result, computed in the background (server/rooms/fairplay.py)
        self.fairplay = FairPlay(rooms, FairPlayStore(rooms.redis, rooms))
        self.results_log = ResultLog(LogStore(boards.redis, boards.guard), rooms, clock)
        self.bot_accounts = BotAccounts(BotAccountStore(boards.redis, boards.guard))
        self.history = GameHistory(boards.redis, rooms, clock)  # each claimed name's finished games
        self.secret = secret.encode()
        self.clock = clock
        self.solve_budget = solve_budget
        self.tries = tries
        self.par_games = par_games  # bot games per level for a daily's par (0: none)
        self.par: ParMaker | None = None  # set by the composition root
        self._pool: ProcessPoolExecutor | None = None
        self._pending: dict[tuple[str, str], asyncio.Future[DailyDeal]] = {}
        # Names live in this deployment's store, which shares this secret: a one-way tag of the
        # secret names the deployment, so clients key their names' keys by it, not by the URL.
        self.server_id: str | None = (hmac.new(self.secret, b"server-id", hashlib.sha256).hexdigest()[:24]
                                      if self.secret else None)
        # moderation's hooks (server/rooms/moderation.py): the names a race may not
        # rate (banned ones, cheaters), and who hears of each rated race or ranked daily
        self.unrated: Callable[[list[str]], Awaitable[set[str]]] | None = None
        self.on_rated: list[Callable[[RoomRow, list[str], bool], Awaitable[None]]] = []

    def close(self) -> None:
        self.fairplay.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # -- the day's deal ----------------------------------------------------------
    def today(self) -> str:
        return utc_day(self.clock())

    async def daily_deal(self, date: str, variant: str) -> DailyDeal:
        stored = await self.boards.daily(date, variant)
        if stored is not None:
            return stored
        key = (date, variant)
        fut = self._pending.get(key)
        if fut is None:
            if self._pool is None:
                self._pool = worker_pool()
            loop = asyncio.get_running_loop()
            fut = asyncio.ensure_future(loop.run_in_executor(
                self._pool, _choose, self.secret, date, variant, self.solve_budget, self.tries,
                self.par_games, self.par))
            self._pending[key] = fut
        try:
            deal = await asyncio.shield(fut)
        finally:
            self._pending.pop(key, None)
        return await self.boards.save_daily(deal)

    async def info(self, variant: str) -> dict[str, Any]:
        """Today's commitment, and yesterday's deal revealed with its salt."""
        if not self.secret:
            from ..wire.protocol import ProtocolError

            raise ProtocolError("no_daily", "this server has no secret: the daily challenge is off")
        date = self.today()
        deal = await self.daily_deal(date, variant)
        _, ends = day_bounds_ms(date)
        out: dict[str, Any] = {"t": "daily_info", "variant": variant, "date": date,
                               "day": day_number(date), "commitment": deal.commitment,
                               "ends_at": ends, "yesterday": None,
                               "difficulty": deal.grade, "pars": list(deal.pars)}
        yesterday = (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()
        past = await self.boards.daily(yesterday, variant)
        if past is not None:
            out["yesterday"] = {"date": yesterday, "day": day_number(yesterday), "deal": past.deal,
                                "salt": past.salt, "commitment": past.commitment, "par": past.par,
                                "difficulty": past.grade, "pars": list(past.pars),
                                "check": commitment(past.deal, past.salt) == past.commitment,
                                "log_head": await self.results_log.head_at(yesterday)}
        return out

    async def day(self, date: str, variant: str) -> dict[str, Any] | None:
        """A kept day's deal as anyone may see it: a past day's revealed with its
        salt, today's commitment only (the deal is secret until the day is over);
        None when that day's deal was never made or has lapsed."""
        today = self.today()
        if date > today:
            return None
        stored = await self.boards.daily(date, variant)
        if stored is None:
            return None
        out: dict[str, Any] = {"variant": variant, "date": date, "day": day_number(date),
                               "commitment": stored.commitment, "ends_at": day_bounds_ms(date)[1],
                               "revealed": date < today}
        if date < today:
            out.update(deal=stored.deal, salt=stored.salt, par=stored.par,
                       check=commitment(stored.deal, stored.salt) == stored.commitment,
                       log_head=await self.results_log.head_at(date))
        return out

    # -- names and boards, as the handlers ask for them (they never reach the store) ---
    async def adopt_attempts(self, date: str, variants: list[str], name: str,
                             device: str | None, seen: set[str]) -> None:
        await self.boards.adopt_attempts(date, variants, name, device, seen)

    async def next_ranked(self, date: str, variant: str, name: str | None, device: str | None) -> bool:
        """Whether the next attempt of this name on this install would be ranked:
        a claimed name's first of the day, and the install's (as on_daily decides)."""
        if name is None:
            return False
        names, devices = await self.boards.attempts(date, variant, name, device)
        return names == 0 and devices == 0

    async def start_attempt(self, date: str, variant: str, name: str | None,
                            device: str | None) -> tuple[int, int]:
        return await self.boards.start_attempt(date, variant, name, device)

    async def daily_board(self, date: str, variant: str, offset: int, limit: int,
                          total_cards: int) -> tuple[list[dict[str, Any]], int]:
        return await self.boards.board_page(date, variant, offset, limit, total_cards)

    async def profile(self, name: str) -> dict[str, Any]:
        """A name's ratings per variant with their curves, its streaks and its figures."""
        (row,) = await self.boards.ratings.rows([name])
        out: dict[str, Any] = {"t": "profile", "name": row.get("name", name), "claimed": "key" in row,
                               "ratings": {}, "streaks": None}
        if "key" not in row:
            return out
        out["bot"] = row.get("bot") == "1"  # a claimed name's: a bot account (docs/design/bot-accounts.md)
        skills = stored_skills(row)
        curves = await self.boards.ratings.curves(name, sorted(skills), PROFILE_CURVE)
        for variant, skill in sorted(skills.items()):
            out["ratings"][variant] = {"value": round(skill.ordinal, 3), "deviation": round(skill.sigma, 3),
                                       "races": skill.races, "provisional": skill.provisional,
                                       "curve": curves.get(variant, [])}
        out["streaks"] = {"days": int(row.get("streak_days") or 0), "best": int(row.get("streak_best") or 0),
                          "wins": int(row.get("win_streak") or 0)}
        out["stats"] = await self.history.figures(name)
        return out

    async def daily_near(self, date: str, variant: str, name: str,
                         total_cards: int) -> tuple[int | None, list[dict[str, Any]], int]:
        return await self.boards.daily_near(date, variant, name, NEIGHBOURS, total_cards)

    # -- after a race ------------------------------------------------------------
    async def verified_records(self, room: RoomRow, players: set[int]) -> dict[int, dict[str, Any]]:
        """Replay these players' records; only legal ones that match what the
        store says may enter a board or a rating."""
        out = {}
        for p in room.players:
            if p.n not in players:
                continue
            moves = await self.rooms.moves(room.code, p.n)
            verdict = ranked_replay(Record(room.variant, room.deal, tuple(t for _, t in moves)))
            # an undo never reaches a race's log; a record holding one is not a race's
            if not verdict["legal"] or verdict["foundation_cards"] != p.fc or verdict["undos"]:
                log.error("record rejected: it does not replay", extra={
                    "room": room.code, "player": p.n, "reason": verdict.get("reason")})
                continue
            out[p.n] = verdict
        return out

    async def after_race(self, room: RoomRow, ranking: list[dict[str, Any]],
                         identified: dict[int, str]) -> dict[str, Any]:
        """Boards, streaks and ratings for a finished room; returns extra
        fields for the results message."""
        # A bot's result never enters a board or a rating, whatever name it holds,
        # and the people's places are counted among people only.
        bots = {p.n for p in room.players if p.bot}
        if bots:
            identified = {n: name for n, name in identified.items() if n not in bots}
            ranking = [dict(r, place=i) for i, r in
                       enumerate((r for r in ranking if r["player"] not in bots), start=1)]
            if not ranking:
                return {}
        if room.solo:  # solo play is practice: never a board, a streak or a rating
            return {}
        if self.unrated is not None and identified:  # a banned name or a cheater is rated by no race
            barred = await self.unrated(list(identified.values()))
            identified = {n: name for n, name in identified.items() if name not in barred}
        if not one_seat_each(room):
            # one identity on two seats could rate itself against itself: the
            # race keeps its results, but nothing of it counts
            log.error("one claimed name held two seats: not rated, not boarded",
                      extra={"room": room.code})
            return {"ranked": False} if room.daily else {}
        # Only records that may enter a board or a rating are replayed (a casual
        # race of guests costs no replay when it ends): the daily's ranked
        # attempt, or the claimed names of a race that can be rated.
        if room.daily:
            top = ranking[0]["player"]
            wanted = {top} if room.ranked and top in identified else set()
        else:
            wanted = set(identified) if len(identified) >= 2 else set()
        verified = await self.verified_records(room, wanted)
        extra: dict[str, Any] = {}
        if room.daily:
            row = ranking[0]
            name = identified.get(row["player"])
            won = row["won"]
            time_ms = row["time_ms"] or (room.ends_at - room.starts_at)
            total = get_rules(room.variant).spec.total_cards
            # a bot account's attempt never enters the persons' daily board
            ranked = (bool(room.ranked) and name is not None and row["player"] in verified
                      and not await self.bot_accounts.is_bot(name))
            extra["ranked"] = ranked
            extra["day"] = day_number(room.daily)
            if ranked and name is not None:
                await self.boards.keep_names([name])  # a name with a ranked result is kept
                seasons = self.ladder.written()
                async with self.results_log.turn() as token:
                    if await self.boards.enter_board(room.daily, room.variant, name, won, time_ms,
                                                     row["moves"], row["foundation_cards"]):
                        await self.results_log.result(token, room, None, seasons, (name, row))
                yesterday = (dt.date.fromisoformat(room.daily) - dt.timedelta(days=1)).isoformat()
                extra["streaks"] = await self.boards.update_streaks(name, room.daily, yesterday, won)
                if won:
                    await self.boards.count_win(room.variant, name, seasons)
                extra["board_changed"] = f"daily:{room.daily}:{room.variant}"
                for hook in self.on_rated:
                    await hook(room, [name], won)
                self.fairplay.after_ranked(room.code, room.variant, room.deal, {row["player"]: name})
            extra["share"] = share_line(get_rules(room.variant).spec.name, room.daily, won, time_ms,
                                        row["moves"], row["foundation_cards"], total, ranked)
            return extra
        rated = [(identified[r["player"]], r["place"]) for r in ranking
                 if r["player"] in identified and r["player"] in verified]
        if len(rated) >= 2:
            await self.boards.keep_names([name for name, _ in rated])
            seasons = self.ladder.written()
            accounts = frozenset(await self.bot_accounts.marked([name for name, _ in rated]))
            # the log's turn orders ratings and log alike: the log replays to these numbers
            async with self.results_log.turn() as token:
                done = await self.boards.ratings.rate_race(room.variant, room.code, rated, self.clock(),
                                                          seasons, accounts)
                await self.results_log.result(token, room, done, seasons, bots=accounts)
            if accounts:
                extra["bot_accounts"] = sorted(accounts)
            if len(done.after) < len(rated):
                log.error("ratings not all written: they kept changing under this race",
                          extra={"room": room.code})
            extra["ratings"] = {n: round(s.ordinal, 3) for n, s in done.after.items()}
            extra["ratings_before"] = {n: round(s.ordinal, 3) for n, s in done.before.items()}
            extra["rating_variant"] = room.variant
            extra["provisional"] = sorted(n for n, s in done.after.items() if s.provisional)
            extra["board_changed"] = f"rating:{room.variant}"
            for hook in self.on_rated:
                await hook(room, list(done.after), False)
            self.fairplay.after_ranked(room.code, room.variant, room.deal, {
                r["player"]: identified[r["player"]] for r in ranking
                if r["player"] in identified and r["player"] in verified})
        return extra
