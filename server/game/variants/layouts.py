"""How a variant's piles sit on the screen, as data the server sends.

The ``room`` message carries :func:`Rules.layout`'s answer, so a client can
draw a variant it has never heard of (docs/reference/protocol.md, "Layouts"). A layout is

* ``rows``: the board top to bottom; each row a list of cells left to right,
  each cell a list of the piles it holds (an empty list is a blank cell);
* ``piles``: for every pile placed, its ``role`` (foundation, tableau, cell,
  indicator) and ``fan`` (right, left: towards the top card; down: a column;
  none: only the top card and a count), plus what a foundation takes next
  when the client may say so: ``suit`` (fixed, or null), ``step`` (rank
  steps up by this much), ``size`` (cards when complete) and ``start`` (the
  rank of its first card; null: the deal's base rank);
* ``gap``: whether a blank line separates the rows (a tall grid says no).

Stock and waste are not placed: every board shows them on a line of their own.
"""

from __future__ import annotations

from typing import Any

Grid = tuple[tuple[str, ...], ...]  # rows of cells; a cell is pile names joined by spaces

CROSS_GRID: Grid = (("f1", "t1", "f2"), ("t2", "t3", "t4"), ("f3", "t5", "f4"))
SUIT_LETTERS = "CSHD"  # foundations f1..f4 of the suit-keyed families


def role_of(pile: str) -> str:
    """The role a pile's name implies; a family may say otherwise."""
    return {"f": "foundation", "i": "indicator"}.get(pile[:1], "tableau")


def default_fan(role: str) -> str:
    return "right" if role in ("tableau", "cell") else "none"


def rows_grid(names: tuple[str, ...], width: int) -> Grid:
    """Piles in rows of at most ``width`` cells, in order."""
    return tuple(names[i:i + width] for i in range(0, len(names), width))


def build(grid: Grid, roles: dict[str, str] | None = None, fans: dict[str, str] | None = None,
          foundations: dict[str, dict[str, Any]] | None = None, gap: bool = True) -> dict[str, Any]:
    """The layout message part: the grid, and each placed pile's role, fan and hints."""
    roles, fans, foundations = roles or {}, fans or {}, foundations or {}
    piles: dict[str, dict[str, Any]] = {}
    rows: list[list[list[str]]] = []
    for row in grid:
        cells: list[list[str]] = []
        for cell in row:
            names = cell.split()
            for name in names:
                role = roles.get(name, role_of(name))
                entry: dict[str, Any] = {"role": role, "fan": fans.get(name, default_fan(role))}
                entry.update(foundations.get(name, {}))
                piles[name] = entry
            cells.append(names)
        rows.append(cells)
    return {"rows": rows, "piles": piles, "gap": gap}


def suit_foundations(count: int, start: str | None, size: int = 13) -> dict[str, dict[str, Any]]:
    """f1..f``count`` each of one suit (clubs, spades, hearts, diamonds), building up by one."""
    return {f"f{k + 1}": {"suit": SUIT_LETTERS[k], "step": 1, "size": size, "start": start}
            for k in range(count)}


def stepped_foundations(count: int, starts: tuple[str, ...], size: int) -> dict[str, dict[str, Any]]:
    """Foundation k builds by k regardless of suit (Betsy Ross, Calculation)."""
    return {f"f{k + 1}": {"suit": None, "step": k + 1, "size": size, "start": starts[k]}
            for k in range(count)}
