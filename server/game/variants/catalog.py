"""The catalogue: every variant the server offers, as data (see seeds/rules/).

A new variant of an existing family is one entry here, its rules card and its
golden deals; nothing else changes.
"""

from __future__ import annotations

from .base import VariantSpec

S0 = "S0: Publications International (2006), 'Vanishing Cross'"
S1 = "S1: Wikipedia, 'Four Seasons (card game)'"
S2 = "S2: 'Corner Stones', a two-deck rules page"
S3 = "S3: Amiga Plus Sonderheft 25 (2000), 'Four Seasons'"
S4 = "S4: 'Betsy Ross Solitaire', a Java applet help page"

SPECS: tuple[VariantSpec, ...] = (
    VariantSpec(
        "four-seasons", "Four Seasons", "cross",
        aliases=("Corner Card", "Cross Currents"),
        summary="build the corners up in suit from the base rank; the cross builds down, any suit",
        sources=(S1, "PySolFC 484"),
        blurb=("One deck in a cross of five piles with a foundation in each corner. The first card "
               "dealt sets the base rank: the corners build up in suit from it, round the corner "
               "from King to Ace. The cross builds down regardless of suit, one card at a time (a "
               "King may go on an Ace unless Aces are the base). Any card may fill a space. Draw one "
               "card at a time; no redeal."),
    ),
    VariantSpec(
        "four-seasons-1883", "Four Seasons (1883)", "cross",
        aliases=("Dick 1883", "Four Seasons original"),
        runs=True, space_fill="must-fill", deal_style="cross-1883",
        summary="Dick's original rules: runs move together, a vacancy must be filled at once",
        sources=(S1,),
        blurb=("Dick's original rules. Cards that fit a foundation while the cross is dealt are "
               "built at once. Descending runs move together, and an empty cross pile must be filled "
               "straight away: from another pile, the waste, or the stock when the waste is empty. "
               "Otherwise as Four Seasons."),
    ),
    VariantSpec(
        "vanishing-cross", "Vanishing Cross", "cross",
        aliases=("Vanishing Cross 2006",),
        draw_needs_full_cross=True,
        summary="the 2006 text: no draw while a cross pile is empty and the waste is not",
        sources=(S0, S1),
        blurb=("The 2006 text of Four Seasons: spaces must be kept filled, so you cannot draw while "
               "a cross pile is empty and the waste has a card to fill it. One card moves at a time; "
               "no redeal."),
    ),
    VariantSpec(
        "four-seasons-redeal", "Four Seasons with one redeal", "cross",
        aliases=("Four Seasons Amiga",),
        passes=2, space_fill="waste",
        summary="one redeal; a space is filled only from the waste",
        sources=(S3, "PySolFC 696"),
        blurb=("Four Seasons with a second pass: when the stock runs out, turn the waste over once "
               "and go again. An empty cross pile may be filled only from the waste."),
    ),
    VariantSpec(
        "czarina", "Czarina", "cross",
        space_fill="auto",
        summary="a space is filled at once from the stock, then the waste",
        sources=(S1, "PySolFC 483"),
        blurb=("Four Seasons where a space is never yours to fill: an emptied cross pile is filled "
               "at once from the stock, or from the waste when the stock is out."),
    ),
    VariantSpec(
        "corners", "Corners", "cross",
        build="cells", space_fill="auto",
        summary="the cross is five one-card cells refilled from the stock",
        sources=(S1, "PySolFC 417"),
        blurb=("The cross is five cells of one card each. Nothing builds on them: cell cards and the "
               "waste top go only to the corner foundations, and an empty cell is refilled at once "
               "from the stock (then the waste)."),
    ),
    VariantSpec(
        "simplicity", "Simplicity", "cross",
        tableau=12, build="down-alt",
        summary="twelve piles in two rows building down in alternating colours",
        sources=(S1, "PySolFC 437"),
        blurb=("Four Seasons with twelve piles in two rows of six instead of the cross. The piles "
               "build down in alternating colours; foundations build up in suit from the base rank. "
               "Any card fills a space."),
    ),
    VariantSpec(
        "corner-stones", "Corner Stones", "corner-stones",
        aliases=("Four Corners", "Les Quatre Coins", "Cornerstones"),
        decks=2, foundations=8, tableau=12,
        summary="two decks dealt card by card round the corner stones; Ace and King foundations",
        sources=(S2, "PySolFC 620"),
        blurb=("Two decks dealt one card at a time round two columns of six piles; the corner piles "
               "are the corner stones. Between the columns, each row has an Ace foundation (up to "
               "King) and a King foundation (down to Ace) of one suit. While dealing, a side pile "
               "may feed only the foundation next to it; after the deal, any top card goes anywhere "
               "it fits, and piles build up or down by one in any suit, round the corner. No redeal; "
               "spaces stay empty."),
    ),
    VariantSpec(
        "betsy-ross", "Betsy Ross", "betsy-ross",
        aliases=("Fairest", "Four Kings", "Musical Patience", "Quadruple Alliance"),
        foundations=4, tableau=0, indicators=4, passes=3,
        summary="foundations from 2, 4, 6, 8 build by 1, 2, 3, 4 regardless of suit",
        sources=(S4, "PySolFC 134"),
        blurb=("One deck, no tableau. An indicator row of A, 2, 3, 4 sits above four foundations "
               "started with 2, 4, 6 and 8, which build regardless of suit by 1, 2, 3 and 4 (round "
               "the corner) until each ends on a King. Play from the waste only; two redeals."),
    ),
    VariantSpec(
        "four-seasons-pysol", "Four Seasons (PySolFC)", "cross",
        aliases=("Four Seasons PySol", "PySolFC 484"),
        wrap="always", deal_waste=True,
        summary="PySolFC's Four Seasons: a card turned at the deal; a King always goes on an Ace",
        sources=("PySolFC 484 (rules as coded)", S1),
        blurb=("Four Seasons exactly as PySolFC plays it, so a game here can be replayed there on the "
               "same deal number. One card is turned onto the waste at the deal, and the cross "
               "always builds round the corner: a King may go on an Ace even when Aces are the base. "
               "Any card may fill a space; one card at a time; no redeal."),
    ),
    VariantSpec(
        "florentine-pysol", "Florentine Patience (PySolFC)", "cross",
        aliases=("Florentine Patience", "PySolFC 696"),
        wrap="always", deal_waste=True, passes=2,
        summary="PySolFC's Florentine Patience: Four Seasons (PySolFC) with one redeal",
        sources=("PySolFC 696 (rules as coded)", S3),
        blurb=("Florentine Patience as PySolFC plays it: Four Seasons with a card turned at the deal, "
               "a King always allowed on an Ace, any card into a space, and one redeal: when the "
               "stock runs out, turn the waste over once, in the same order, and go again."),
    ),
    # -- issue 15: three related games (calculation, fortunes-favor, florentine) --
    VariantSpec(
        "calculation", "Calculation", "calculation",
        aliases=("Progression", "Broken Intervals", "PySolFC 256"),
        foundations=4, tableau=4,
        summary="foundations from A, 2, 3, 4 build by 1, 2, 3, 4 regardless of suit; four wastepiles",
        sources=("PySolFC 256 (rules as coded)", "rules.md 4.3", S4),
        blurb=("One deck, four foundations started with an Ace, a 2, a 3 and a 4 of any suits. They "
               "build regardless of suit by 1, 2, 3 and 4 (round the corner) until each ends on a "
               "King. Turn one card at a time and place it on a foundation or on one of four "
               "wastepiles before turning the next; wastepile tops play only to the foundations. "
               "No redeal."),
    ),
    VariantSpec(
        "fortunes-favor", "Fortune's Favor", "fortunes-favor",
        aliases=("Fortunes Favour", "PySolFC 416"),
        foundations=4, tableau=12,
        summary="Aces start the foundations; twelve piles build down in suit; spaces fill from the waste",
        sources=("PySolFC 416 (rules as coded)", "rules.md 5.2", S1),
        blurb=("The four Aces start the foundations, which build up in suit to the King. Twelve piles "
               "of one card each, in two rows, build down in suit, one card at a time. A space is "
               "filled at once from the waste, and the waste from the stock; once both are gone a "
               "space takes any card. Draw one card at a time; no redeal."),
    ),
    VariantSpec(
        "florentine", "Florentine", "cross",
        aliases=("Florentine Solitaire", "Florentine Parlett"),
        wrap="always", passes=2, centre_cell=True,
        summary="Four Seasons whose centre is a one-card cell the stock refills; one redeal",
        sources=("Parlett, as summarised by solitaireforever.com 'Florentine'", "rules.md 5.1",
                 "semicolon.com 'Rules for Florentine Solitaire'"),
        blurb=("Four Seasons with a difference in the middle: the centre of the cross is a cell of "
               "one card. Its card may go to a foundation or into an empty pile, never onto the "
               "cross, and nothing is placed on it; when it is emptied the stock refills it at "
               "once. The four outer piles build down regardless of suit, a King on an Ace too; a "
               "space takes the waste top or the centre card. One redeal."),
    ),
    # -- PySolFC-exact versions of issue 15 (czarina, corners, simplicity, les quatre coins) --
    VariantSpec(
        "simplicity-pysol", "Simplicity (PySolFC)", "cross",
        aliases=("Simplicity PySol", "PySolFC 437"),
        tableau=12, build="down-alt", wrap="always", deal_waste=True, foundation_moves=True,
        summary="PySolFC's Simplicity: a card turned at the deal, always round the corner, "
                "foundation cards may come back",
        sources=("PySolFC 437 (rules as coded)", S1),
        blurb=("Simplicity exactly as PySolFC plays it: twelve piles in two rows building down in "
               "alternating colours, always round the corner (a King may go on an Ace even when Aces "
               "are the base), one card turned onto the waste at the deal, any card into a space, "
               "and a foundation's top card may be taken back onto a pile it fits or a space. "
               "One pass."),
    ),
    VariantSpec(
        "czarina-pysol", "Czarina (PySolFC)", "cross",
        aliases=("Czarina PySol", "PySolFC 483"),
        wrap="always", deal_waste=True, space_fill="waste-auto",
        summary="PySolFC's Czarina: an emptied pile takes the waste top at once; the waste "
                "refills from the stock",
        sources=("PySolFC 483 (rules as coded)", S1),
        blurb=("Czarina exactly as PySolFC plays it: one card turned onto the waste at the deal; "
               "an emptied cross pile takes the waste top at once, and an emptied waste takes the "
               "next stock card at once, so the waste is never empty while the stock lasts. The "
               "cross always builds round the corner. One pass."),
    ),
    VariantSpec(
        "corners-pysol", "Corners (PySolFC)", "cross",
        aliases=("Corners PySol", "PySolFC 417"),
        build="cells", space_fill="waste-auto", cell_fill=True, deal_style="corners-pysol",
        deal_waste=True, passes=3,
        summary="PySolFC's Corners: each foundation starts with a card of its suit; five cells "
                "refilled from the waste; two redeals",
        sources=("PySolFC 417 (rules as coded)", S1),
        blurb=("Corners exactly as PySolFC plays it: each corner starts with a card of its own suit "
               "(so each suit starts at its own rank), the cross is five one-card cells, and a card "
               "goes only to a foundation. An emptied cell takes the waste top at once, an emptied "
               "waste the next stock card; an empty cell with nothing to refill it takes any one "
               "card you put there. Two redeals, order kept."),
    ),
    VariantSpec(
        "les-quatre-coins-pysol", "Les Quatre Coins (PySolFC)", "corner-stones",
        aliases=("Les Quatre Coins PySol", "PySolFC 620"),
        decks=2, foundations=8, tableau=12, passes=3, foundation_moves=True,
        deal_style="quatre-coins-pysol",
        summary="PySolFC's Les Quatre Coins: a round of twelve per deal, suits fixed per row, "
                "no wrap, two redeals",
        sources=("PySolFC 620 (rules as coded)", S2),
        blurb=("Corner Stones exactly as PySolFC plays it: each deal turns out a round of twelve, "
               "down the left column then the right. The rows belong to clubs, spades, hearts and "
               "diamonds. While cards are left to deal, a side pile feeds only the started "
               "foundation beside it and nothing builds on the piles; then they build up or down by "
               "one in any suit, no King on an Ace. A foundation's top card may move to its suit's "
               "other foundation, or back to a pile once all is dealt. Spaces stay empty. Two "
               "redeals gather the piles and deal again."),
    ),
)
