"""Write seeds/deals/deal_v1.tsv: the golden layouts of every variant.

Run once when a variant is added (``python tools/make_golden_deals.py``);
the tests then hold the engine to these rows. The rows are only as good as
their checks, listed in the header and run by tests/unit/game/test_golden_deals.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.game.cards import card_text  # noqa: E402
from server.game.deals import DEAL_VERSION, deal_order  # noqa: E402
from server.game.engine import new_game  # noqa: E402
from server.game.state import STOCK  # noqa: E402
from server.game.variants import SPECS, get_rules  # noqa: E402

NUMBERS = ("1", "24", "31999", "32000", "123456789", "ms100000", "99999999999999999999")

HEADER = f"""\
# Golden deals for every variant ({DEAL_VERSION}).
# generator: PySolFC deal numbers: LCRandom31 for 1..31999 and ms<N>, MT19937 (CPython random) otherwise;
#   PySolFC's unshuffled order (C S H D, A..K; rank-major C D H S on the LC path with one deck),
#   Fisher-Yates from the last index, the last array element dealt first.
# rows: variant, deal, pile, cards (bottom to top; for s, the order of drawing: next card first).
# checks: the card orders ("order" rows) equal the independent pysol-cards package's LCRandom31/MTRandom
#   shuffles (tests/unit/game/test_golden_deals.py); #1 equals Microsoft FreeCell deal #1; the cross-family,
#   Simplicity, Betsy Ross and Corner Stones rows for #1 (and the cross rows for 2, 3, 24, 31999, 32000,
#   123456789) equal vectors computed by an independent reimplementation of PySolFC's deal procedure,
#   transcribed by hand into the tests; so do the four-seasons-pysol and florentine-pysol rows for those
#   seven numbers, turned waste card included (PySolFC games 484 and 696 deal alike), and their layouts for
#   every number equal the pysol-cards shuffle dealt by PySolFC's procedure (base, t1..t5, waste, stock);
#   the calculation and fortunes-favor rows for every number equal the pysol-cards shuffle passed through
#   PySolFC's shuffle hooks of games 256 and 416 (first A, 2, 3, 4 from the bottom; the Aces to the top by
#   suit) and dealt as those games deal, and calculation #1's foundations equal betsy-ross #1's indicators
#   (the same scan); the florentine rows deal as the seed cross games, so their #1..123456789 rows equal the
#   hand-transcribed cross table;
#   simplicity-pysol, czarina-pysol, corners-pysol and les-quatre-coins-pysol (PySolFC 437, 483, 417, 620)
#   for every number equal the pysol-cards shuffle dealt by PySolFC's procedure for each game (corners-pysol:
#   its shuffle hook, the first card of each suit from the bottom of the talon to the foundations; les quatre
#   coins: 104 cards, one round of twelve down the left column then the right), and their #1 rows equal the
#   hand-transcribed vectors of the spec's section 7;
#   the remaining rows are our engine's output, kept to catch changes.
# made by: tools/make_golden_deals.py
"""


def main() -> None:
    out = [HEADER.rstrip("\n")]
    for number in NUMBERS:
        for decks in (1, 2):
            order = " ".join(card_text(c) for c in deal_order(number, decks))
            out.append(f"order-{decks}deck\t{number}\torder\t{order}")
    for spec in SPECS:
        rules = get_rules(spec.id)
        for number in NUMBERS:
            state = new_game(spec.id, number)
            for i, name in enumerate(rules.names):
                cards = [card_text(c) for c in state.piles[i]]
                if i == STOCK:
                    cards.reverse()
                out.append(f"{spec.id}\t{number}\t{name}\t{' '.join(cards)}")
    path = Path(__file__).resolve().parent.parent / "seeds" / "deals" / f"{DEAL_VERSION}.tsv"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {path.name}: {len(out) - 1} rows")


if __name__ == "__main__":
    main()
