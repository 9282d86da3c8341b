"""The ``view`` message, encoded from cached pieces.

Every accepted move is answered with the player's whole view
(:func:`server.game.views.view`), and between two answers to one player only
the one or two piles the move touched change. So the answer is not built as a
dict and handed to msgpack: it is put together from msgpack fragments made
once. A msgpack map or array is a header followed by its items, so the bytes
of a view are its keys and values' bytes in order:

* each pile's entry (its name and its array of card texts) is kept per
  player, keyed by the identity of the pile's tuple: a state made by a move
  shares every untouched pile with the state before it; a pile seen before by
  any player comes from a bounded table keyed by its cards (its least recently
  used entry goes when it is full: docs/benchmarks.md measures what each size saves);
* each legal move's text, packed, comes from its variant's table keyed by the
  identity of the move object: the rules make every one-card move once and
  keep it (``Rules.steps``), so a lookup hashes a pointer, not a NamedTuple's
  five fields (that hashing was two thirds of the lists' encoding); a move made
  afresh (a run, a fill) comes from a bounded table keyed by the move;
* the rest (counts, the status, variant facts) is packed as it comes.

The bytes equal ``encode({"t": "view", "v": v, "seq": seq, "view": view(...)})``
exactly (tests/unit/wire/test_viewcodec.py checks that over random games of every
variant); what the player may see is decided by the same functions of the core
as in :func:`~server.game.views.view`.
"""

from __future__ import annotations

import functools

import msgpack

from ..game.cards import CARD_TEXT, rank_name
from ..game.engine import IN_PROGRESS, rules_of
from ..game.moves import DEAL_ALL, DEAL_ONE, DEAL_ROUND, DRAW, REDEAL, RESIGN, Move
from ..game.safe import safe_foundation_moves
from ..game.state import STOCK, WASTE, State

# Bounded tables shared by every player of the process. Full, each forgets its least
# recently used entry, one per new one (functools.lru_cache): never all at once, so
# the memory levels off and the hit rate does not drop to nothing. The sizes are
# where a larger table stops saving work (docs/benchmarks.md, "the server's tables").
PILES_MAX = 8_192  # a pile's cards -> its packed array of card texts
MOVES_MAX = 1_024  # a move made afresh (a run, a fill) -> its packed text

_pack = msgpack.Packer(use_bin_type=True).pack

_HEAD = _pack("t") + _pack("view") + _pack("v")
_SEQ = _pack("seq")
_VIEW = _pack("view")
_NIL = _pack(None)
_KEYS = {k: _pack(k) for k in (
    "variant", "piles", "stock_count", "waste_count", "passes_left", "foundation_cards",
    "total_cards", "status", "legal_moves", "safe_moves", "must_fill", "base_rank")}
_STATUS: dict[str, bytes] = {}
_VIEW_12 = bytes((0x80 | 12,))  # the view's keys where the variant adds none
(_STOCK_COUNT, _WASTE_COUNT, _PASSES_LEFT, _FOUNDATION_CARDS, _STATUS_KEY, _LEGAL_MOVES,
 _SAFE_MOVES, _MUST_FILL, _BASE_RANK) = (_KEYS[k] for k in (
     "stock_count", "waste_count", "passes_left", "foundation_cards", "status", "legal_moves",
     "safe_moves", "must_fill", "base_rank"))


def map_header(n: int) -> bytes:
    if n < 16:
        return bytes((0x80 | n,))
    if n < 0x10000:
        return b"\xde" + n.to_bytes(2, "big")
    return b"\xdf" + n.to_bytes(4, "big")


def array_header(n: int) -> bytes:
    if n < 16:
        return bytes((0x90 | n,))
    if n < 0x10000:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


class _Layout:
    """What every view of one variant shares, packed: its pile names, the
    view's keys and values that never change."""

    __slots__ = ("rules", "names", "head", "total", "passes", "moves")

    def __init__(self, state: State) -> None:
        rules = self.rules = rules_of(state)
        spec = rules.spec
        self.names = [_pack(name) for name in rules.names]
        # the view map's header is written per message (variant facts may add keys)
        self.head = _KEYS["variant"] + _pack(spec.id) + _KEYS["piles"] \
            + map_header(len(rules.names) - WASTE)
        self.total = _KEYS["total_cards"] + _pack(spec.total_cards)
        self.passes = spec.passes - 1
        # id -> packed text of the moves the rules keep: alive as long as the
        # rules (this layout holds them), so no other object can take their ids
        kept = [m for row in rules.steps for m in row] + list(_ACTIONS)
        self.moves = {id(m): _pack(str(m)) for m in kept}


# by variant id: as many as there are variants (a variant registered again under its
# id, as tests do, has other rules: its layout is made again)
_LAYOUTS: dict[str, _Layout] = {}


def pack_pile(pile: tuple[int, ...]) -> bytes:
    """A pile's packed array of card texts."""
    packed: bytes = _pack([CARD_TEXT[c] for c in pile])
    return packed


def pack_move(move: Move) -> bytes:
    packed: bytes = _pack(str(move))
    return packed


# the tables (cache_info() says how full and how useful each is)
pile_table = functools.lru_cache(maxsize=PILES_MAX)(pack_pile)
move_table = functools.lru_cache(maxsize=MOVES_MAX)(pack_move)


_ACTIONS = (DRAW, REDEAL, RESIGN, DEAL_ONE, DEAL_ROUND, DEAL_ALL)  # module constants: kept


def _moves(moves: list[Move], kept: dict[int, bytes]) -> bytes:
    n = len(moves)
    parts = [bytes((0x90 | n,)) if n < 16 else array_header(n)]
    for m in moves:
        packed = kept.get(id(m))
        if packed is None:  # a move made afresh
            packed = move_table(m)
        parts.append(packed)
    return b"".join(parts)


class ViewEncoder:
    """One player's view messages. Keeps the last position's pile entries, so
    the next answer re-packs only the piles its move changed."""

    __slots__ = ("_piles", "_entries")

    def __init__(self) -> None:
        self._piles: tuple[tuple[int, ...], ...] = ()
        self._entries: list[bytes] = []

    def encode(self, v: int, seq: int | None, state: State, status: str,
               moves: list[Move] | None = None) -> bytes:
        """The bytes of ``{"t": "view", "v": v, "seq": seq, "view": view(state,
        status, moves)}``; ``moves``: the position's legal moves when the
        caller has them (computed here otherwise, as the view does)."""
        rules = rules_of(state)
        layout = _LAYOUTS.get(state.variant)
        if layout is None or layout.rules is not rules:
            layout = _LAYOUTS[state.variant] = _Layout(state)
        piles = state.piles
        last, entries = self._piles, self._entries
        if len(last) != len(piles) or len(entries) != len(piles):
            last, entries = (), [b""] * len(piles)
        names = layout.names
        for i in range(WASTE, len(piles)):
            pile = piles[i]
            if not last or last[i] is not pile:
                entries[i] = names[i] + pile_table(pile)
        self._piles, self._entries = piles, entries
        legal = [] if status != IN_PROGRESS else (rules.legal_moves(state) if moves is None
                                                  else moves)
        extra = rules.extra_view(state)
        status_bytes = _STATUS.get(status)
        if status_bytes is None:
            status_bytes = _STATUS[status] = _pack(status)
        parts = [b"\x84", _HEAD, _pack(v), _SEQ, _NIL if seq is None else _pack(seq), _VIEW,
                 _VIEW_12 if not extra else map_header(12 + len(extra)), layout.head]
        parts += entries[WASTE:]
        parts += (
            _STOCK_COUNT, _pack(len(piles[STOCK])),
            _WASTE_COUNT, _pack(len(piles[WASTE])),
            _PASSES_LEFT, _pack(layout.passes - state.redeals),
            _FOUNDATION_CARDS, _pack(rules.foundation_cards(state)),
            layout.total,
            _STATUS_KEY, status_bytes,
            _LEGAL_MOVES, _moves(legal, layout.moves),
            _SAFE_MOVES, _moves(safe_foundation_moves(rules, state, legal), layout.moves),
            _MUST_FILL, layout.names[state.vacancy] if state.vacancy >= 0 else _NIL,
            _BASE_RANK, _pack(rank_name(state.base)) if state.base else _NIL,
        )
        for key, value in extra.items():
            parts.append(_pack(key))
            parts.append(_pack(value))
        return b"".join(parts)


def encode_view(v: int, seq: int | None, state: State, status: str,
                moves: list[Move] | None = None) -> bytes:
    """A view message with no player's cache (a spectator's, a one-off)."""
    return ViewEncoder().encode(v, seq, state, status, moves)


__all__ = ["ViewEncoder", "encode_view", "map_header", "array_header", "PILES_MAX", "MOVES_MAX",
           "pile_table", "move_table", "pack_pile", "pack_move"]
