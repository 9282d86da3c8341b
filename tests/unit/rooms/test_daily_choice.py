"""The daily deal as the server's worker chooses it: on the weekly curve, graded by
the solver, with the bots' par per level."""

from __future__ import annotations

from server.game.engine import new_game
from server.game.solver import solve
from server.game.solver.difficulty import grade_won
from server.race.daily import weekly_target
from server.rooms.bots.par import bot_pars
from server.rooms.competition import _choose


def test_the_workers_daily_is_graded_and_has_a_par() -> None:
    date = "2026-12-06"  # a Sunday: the curve's hardest grade
    deal = _choose(b"secret", date, "four-seasons-redeal", 3_000, 3, par_games=1, par=bot_pars)
    assert deal.certificate and deal.grade is not None and 1 <= deal.grade <= 4
    line = solve("four-seasons-redeal", deal.deal, 3_000).moves
    assert deal.grade == grade_won(new_game("four-seasons-redeal", deal.deal), line, 3_000).grade
    assert len(deal.pars) == 5 and all(0 <= p <= 52 for p in deal.pars)
    assert weekly_target(date) == 4
    assert _choose(b"secret", date, "four-seasons-redeal", 3_000, 3, par=bot_pars).pars == ()  # none asked


def test_the_composition_root_hands_the_bots_par_to_the_daily() -> None:
    from server.app import RaceServer
    from server.ops.config import Settings

    app = RaceServer(Settings(port=0), "redis://127.0.0.1:1")  # built, never started
    assert app.competition.par is bot_pars
