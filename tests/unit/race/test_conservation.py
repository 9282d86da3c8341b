"""cards_conserved: the check run after every accepted move."""

from __future__ import annotations

import random

from server.game import engine
from server.race.rules import cards_conserved


def test_every_legal_move_of_random_games_conserves_cards() -> None:
    rng = random.Random(7)
    for variant in ("four-seasons", "simplicity", "corner-stones", "betsy-ross", "four-seasons-1883"):
        state = engine.new_game(variant, str(rng.randrange(10**19, 10**20)))
        for _ in range(60):
            moves = engine.legal_moves(state)
            if not moves:
                break
            after = engine.apply(state, rng.choice(moves))
            assert cards_conserved(state, after)
            state = after


def test_a_lost_a_doubled_or_a_swapped_card_is_caught() -> None:
    state = engine.new_game("four-seasons", "24")
    piles = list(state.piles)
    t = next(i for i, p in enumerate(piles) if i > 1 and len(p) == 1)
    lost = state._replace(piles=tuple(piles[:t] + [()] + piles[t + 1:]))
    doubled = state._replace(piles=tuple(piles[:t] + [piles[t] * 2] + piles[t + 1:]))
    other = (piles[t][0] + 1) % 52
    swapped = state._replace(piles=tuple(piles[:t] + [(other,)] + piles[t + 1:]))
    for bad in (lost, doubled, swapped):
        assert not cards_conserved(state, bad)
    # a rebuilt but equal pile is compared, and passes
    same = state._replace(piles=tuple(piles[:t] + [tuple(list(piles[t]))] + piles[t + 1:]))
    assert cards_conserved(state, same)



def test_a_position_with_a_pile_more_or_less_is_not_conserved() -> None:
    state = engine.new_game("four-seasons", "24")
    for piles in (state.piles + ((),), state.piles[:-1], state.piles[:-1] + ((),) * 2):
        assert not cards_conserved(state, state._replace(piles=piles))
