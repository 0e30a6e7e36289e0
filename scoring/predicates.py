"""Shared rule predicates: small pure functions over a :class:`scoring.engine.View`.

Each returns what the engine counts as firings: ``True``/``False``, an ``int`` count, a list of
detail strings (one firing each, e.g. the melds that matched) or an ``engine.Fired``. They take the
view plus keyword parameters given in the ruleset file (``params = {...}``), so one predicate
serves every ruleset where the meaning is the same ("pung of dragons", "one suit with honours").

Tile categories accepted by ``tiles=`` parameters: ``simples`` (2–8), ``terminals`` (1, 9),
``honours`` (winds + dragons), ``winds``, ``dragons``, ``terminals-honours``, ``suits`` (1–9 of
any suit), ``green`` (2 3 4 6 8 bamboo + green dragon), ``seat-wind``, ``round-wind``, ``any``,
or a list of tile codes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from .hand import Meld
from .tiles import (BONUS, DRAGONS, GREEN, HONOURS, SIMPLES, SUIT_TILES, TERMINALS,
                    TERMINALS_AND_HONOURS, WIND_NUMBER, WINDS, FLOWERS, SEASONS)

if TYPE_CHECKING:
    from .engine import View

_CATEGORIES: dict[str, frozenset[str]] = {
    "simples": SIMPLES,
    "terminals": TERMINALS,
    "honours": HONOURS,
    "winds": WINDS,
    "dragons": DRAGONS,
    "terminals-honours": TERMINALS_AND_HONOURS,
    "suits": SUIT_TILES,
    "green": GREEN,
}


def category(v: "View", tiles: Any) -> frozenset[str]:
    """The tile set named by ``tiles`` (see the module docstring) for this view's context."""
    if isinstance(tiles, (list, tuple)):
        out: set[str] = set()
        for t in tiles:
            out |= category(v, t)
        return frozenset(out)
    if tiles == "seat-wind":
        return frozenset({v.ctx.seat_wind_tile})
    if tiles == "round-wind":
        return frozenset({v.ctx.round_wind_tile})
    if tiles == "any":
        return frozenset(SUIT_TILES | HONOURS)
    if tiles in _CATEGORIES:
        return _CATEGORIES[tiles]
    if isinstance(tiles, str) and len(tiles) == 2:
        return frozenset({tiles})
    raise ValueError(f"unknown tile category {tiles!r}")


def _meld_name(m: Meld) -> str:
    return "".join(t[0] for t in m.tiles) + m.tile[1]


# ----------------------------------------------------------------------------- sets and pairs
def sets_of(v: "View", kinds: Iterable[str] = ("pung",), tiles: Any = "any",
            concealed: bool | None = None) -> list[str]:
    """Melds of the given kinds whose tile is in ``tiles``; ``concealed`` filters the points status.

    One firing per meld (details: ``777p``). Used for the point-table cells.
    """
    cat = category(v, tiles)
    return [_meld_name(m) for m in v.melds
            if m.kind in kinds and m.tile in cat and (concealed is None or m.concealed == concealed)]


def pairs_of(v: "View", tiles: Any = "any") -> list[str]:
    """Pairs whose tile is in ``tiles`` (one firing per pair)."""
    cat = category(v, tiles)
    return [_meld_name(m) for m in v.pairs if m.tile in cat]


def _value_tile_count(v: "View", tile: str, option: str | None) -> int:
    """How many times a tile is a 'value' tile: dragon 1; wind = seat + round (option once/each)."""
    if tile in DRAGONS:
        return 1
    n = (tile == v.ctx.seat_wind_tile) + (tile == v.ctx.round_wind_tile)
    if option and v.opts.get(option) == "once":
        n = min(n, 1)
    return n


def value_pairs(v: "View", option: str | None = "seat_round_wind", dragons: bool = True) -> Any:
    """Pairs of dragons (if ``dragons``), own (seat) wind or round wind.

    A wind that is both seat and round wind fires twice unless option ``option`` is ``once``
    (RULINGS: ``seat_round_wind=each`` by default).
    """
    from .engine import Fired

    n, details = 0, []
    for m in v.pairs:
        if m.tile in DRAGONS and not dragons:
            continue
        k = _value_tile_count(v, m.tile, option)
        if k:
            n += k
            details.append(_meld_name(m) + (" (seat and round wind)" if k == 2 else ""))
    return Fired(n, tuple(details)) if n else None


def value_pungs(v: "View", option: str | None = "seat_round_wind", dragons: bool = True,
                winds: bool = True) -> Any:
    """Pungs/kongs of dragons, own wind or round wind: one firing each (a double wind twice)."""
    from .engine import Fired

    n, details = 0, []
    for m in v.pungs:
        if (m.tile in DRAGONS and not dragons) or (m.tile in WINDS and not winds):
            continue
        k = _value_tile_count(v, m.tile, option)
        if k:
            n += k
            details.append(_meld_name(m) + (" (seat and round wind)" if k == 2 else ""))
    return Fired(n, tuple(details)) if n else None


def pungs_count(v: "View", tiles: Any = "any", n: int = 1, exact: bool = False,
                pair_tiles: Any = None) -> bool:
    """At least (``exact``: exactly) ``n`` pungs/kongs of ``tiles``; optionally a pair of ``pair_tiles``."""
    cat = category(v, tiles)
    k = sum(1 for m in v.pungs if m.tile in cat)
    ok = k == n if exact else k >= n
    if ok and pair_tiles is not None:
        pc = category(v, pair_tiles)
        ok = any(m.tile in pc for m in v.pairs)
    return ok


def concealed_pungs(v: "View", n: int = 3, exact: bool = False, option: str | None = None) -> Any:
    """At least/exactly ``n`` concealed pungs; kongs count as concealed pungs. Fires once (the
    melds are the details), not once per meld.

    With ``option`` naming a choice ``any|concealed`` (002-14), ``any`` counts every kong (also
    exposed ones), ``concealed`` only concealed kongs. A pung completed by a discard is exposed.
    """
    from .engine import Fired

    any_kong = option is not None and v.opts.get(option) == "any"
    k = [m for m in v.pungs if m.concealed or (any_kong and m.kind == "kong")]
    if not (len(k) == n if exact else len(k) >= n):
        return False
    return Fired(1, tuple(_meld_name(m) for m in k))  # one firing, the melds as details


def kongs_count(v: "View", n: int = 1, exact: bool = False, concealed: bool | None = None) -> Any:
    """At least/exactly ``n`` kongs (``concealed`` filters). Fires once, the kongs as details."""
    from .engine import Fired

    k = [m for m in v.kongs if concealed is None or m.concealed == concealed]
    if not (len(k) == n if exact else len(k) >= n):
        return False
    return Fired(1, tuple(_meld_name(m) for m in k))  # one firing, the melds as details


# ----------------------------------------------------------------------------- hand composition
def all_tiles_in(v: "View", tiles: Any) -> bool:
    """Every playing tile of the hand is in ``tiles``."""
    return v.tile_set <= category(v, tiles)


def one_suit(v: "View", honours: str = "none", terminals_only: bool = False) -> bool:
    """Tiles of one suit only; ``honours``: ``none`` (pure), ``required`` (clean), ``allowed``.

    ``terminals_only``: the suit tiles are all 1s and 9s ("very clean", 002 line 66).
    """
    if len(v.suits) != 1:
        return False
    if honours == "none" and v.has_honours:
        return False
    if honours == "required" and not v.has_honours:
        return False
    if terminals_only and any(t in SIMPLES for t in v.tile_set):
        return False
    return True


def only_honours(v: "View") -> bool:
    """Only winds and dragons."""
    return v.tile_set <= HONOURS


def all_chows(v: "View") -> bool:
    """Every set is a chow (standard shape)."""
    return v.d.shape == "standard" and all(m.kind == "chow" for m in v.sets)


def all_pungs(v: "View") -> bool:
    """Every set is a pung or kong (standard shape)."""
    return v.d.shape == "standard" and all(m.kind in ("pung", "kong") for m in v.sets)


def shape_is(v: "View", shapes: Iterable[str] | str) -> bool:
    """The decomposition's shape is one of ``shapes``."""
    return v.d.shape in ((shapes,) if isinstance(shapes, str) else tuple(shapes))


# ----------------------------------------------------------------------------- circumstances
def mahjong(v: "View") -> bool:
    """The player won (always true for rules that apply to the winner)."""
    return v.ctx.winner


def win_by(v: "View", how: Iterable[str] | str) -> bool:
    """The winning tile came ``how``: discard / wall / dead-wall / robbed-kong (or a list)."""
    return v.ctx.win_by in ((how,) if isinstance(how, str) else tuple(how))


def self_drawn(v: "View") -> bool:
    """The winning tile was drawn by the winner (wall or dead wall)."""
    return v.ctx.self_drawn


def last_tile(v: "View", self_drawn_only: bool | None = None) -> bool:
    """Won on the last tile: ``self_drawn_only`` True = last wall tile drawn; False = last discard."""
    if not v.ctx.last_tile:
        return False
    if self_drawn_only is None:
        return True
    return v.ctx.self_drawn == self_drawn_only


def winning_tile_is(v: "View", tiles: Any) -> bool:
    """The winning tile is in ``tiles``."""
    return v.hand.winning_tile is not None and v.hand.winning_tile in category(v, tiles)


def wait_is(v: "View", waits: Iterable[str] | str) -> bool:
    """The decomposition's wait type is one of ``waits`` (edge, closed, open, pung, pair, special)."""
    return v.d.wait in ((waits,) if isinstance(waits, str) else tuple(waits))


def only_possible_tile(v: "View") -> bool:
    """The hand without its winning tile waited on exactly one tile kind."""
    return v.hand.winning_tile is not None and len(v.waits) == 1


def fully_concealed(v: "View", self_drawn_required: bool = False) -> bool:
    """No meld exposed on the table (concealed kongs allowed) and, if required, self-drawn."""
    if any(m.declared and not m.concealed for m in v.melds):
        return False
    return v.ctx.self_drawn or not self_drawn_required


def nothing_exposed(v: "View") -> bool:
    """No meld on the table at all (not even a concealed kong)."""
    return not v.hand.melds


def first_turn(v: "View", dealer: bool | None = None, self_drawn_win: bool | None = None) -> bool:
    """Won on the first turn (heaven/earth); filters on dealer and on self-draw."""
    if not v.ctx.first_turn:
        return False
    if dealer is not None and v.ctx.is_dealer != dealer:
        return False
    return self_drawn_win is None or v.ctx.self_drawn == self_drawn_win


def context_flag(v: "View", flag: str) -> bool:
    """A named flag of the context is set (``Context.flags`` or a bool field of that name)."""
    if flag in v.ctx.flags:
        return True
    return bool(getattr(v.ctx, flag.replace("-", "_"), False))


# ----------------------------------------------------------------------------- bonus tiles
def bonus_tiles(v: "View") -> list[str]:
    """Every flower and season (one firing each)."""
    return [t for t in v.hand.bonus if t in BONUS]


def own_bonus(v: "View") -> list[str]:
    """Flowers/seasons whose number is the seat wind's (East 1 … North 4), one firing each."""
    n = WIND_NUMBER[v.ctx.seat_wind]
    return [t for t in v.hand.bonus if int(t[0]) == n]


def bonus_sets(v: "View", which: str = "any") -> int:
    """Complete series of bonus tiles: ``flowers``, ``seasons``, ``any`` (count of complete series),
    ``both`` (1 if all eight)."""
    b = set(v.hand.bonus)
    fl, se = set(FLOWERS) <= b, set(SEASONS) <= b
    if which == "flowers":
        return int(fl)
    if which == "seasons":
        return int(se)
    if which == "both":
        return int(fl and se)
    return int(fl) + int(se)


def always(v: "View") -> bool:
    """Always fires (e.g. a base amount such as 004's 底)."""
    return True
