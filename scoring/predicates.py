"""Shared rule predicates: small pure functions over a :class:`scoring.view.View`.

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

from .fired import Fired
from .hand import _MELD_TILES, Meld
from .tiles import (BONUS, DRAGONS, GREEN, HONOURS, SIMPLES, SUIT_TILES, TERMINALS,
                    TERMINALS_AND_HONOURS, WIND_NUMBER, WINDS, FLOWERS, SEASONS)

if TYPE_CHECKING:
    from .view import View

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
    if tiles.__class__ is str:
        found = _CATEGORIES.get(tiles)
        if found is not None:
            return found
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
    """``777p``, ``123m``: the meld's ranks and suit (from a table for melds of playing tiles)."""
    name = _NAMES.get((m.kind, m.tile))
    return name if name is not None else "".join(t[0] for t in m.tiles) + m.tile[1]


_NAMES: dict[tuple[str, str], str] = {
    key: "".join(t[0] for t in tiles) + key[1][1] for key, tiles in _MELD_TILES.items()}


# ----------------------------------------------------------------------------- sets and pairs
def sets_of(v: "View", kinds: Iterable[str] = ("pung",), tiles: Any = "any",
            concealed: bool | None = None) -> list[str]:
    """Melds of the given kinds whose tile is in ``tiles``; ``concealed`` filters the points status.

    One firing per meld (details: ``777p``). Used for the point-table cells.
    """
    cat = _CATEGORIES.get(tiles) if tiles.__class__ is str else None
    if cat is None:
        cat = category(v, tiles)
    names = _NAMES
    return [names.get((m.kind, m.tile)) or _meld_name(m) for m in v.melds
            if m.tile in cat and m.kind in kinds and (concealed is None or m.concealed == concealed)]


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
    n, details = 0, []
    double = False  # a wind both seat and round wind: only then does the option decide the line
    for m in v.pairs:
        if m.tile in DRAGONS and not dragons:
            continue
        k = _value_tile_count(v, m.tile, option)
        if k:
            n += k
            double = double or (m.tile == v.ctx.seat_wind_tile == v.ctx.round_wind_tile)
            details.append(_meld_name(m) + (" (seat and round wind)" if k == 2 else ""))
    return Fired(n, tuple(details), quiet=() if double or not option else (option,)) if n else None


def value_pungs(v: "View", option: str | None = "seat_round_wind", dragons: bool = True,
                winds: bool = True) -> Any:
    """Pungs/kongs of dragons, own wind or round wind: one firing each (a double wind twice)."""
    n, details = 0, []
    seat, round_ = v.ctx.seat_wind_tile, v.ctx.round_wind_tile
    once = bool(option) and v.opts.get(option) == "once"
    double = False  # a wind both seat and round wind: only then does the option decide the line
    for m in v.pungs:
        t = m.tile
        if t in DRAGONS:
            if not dragons:
                continue
            k = 1
        elif t in WINDS:
            if not winds:
                continue
            k = (t == seat) + (t == round_)
            if once and k > 1:
                k = 1
        else:
            continue
        if k:
            n += k
            double = double or (t in WINDS and t == seat == round_)
            details.append(_meld_name(m) + (" (seat and round wind)" if k == 2 else ""))
    return Fired(n, tuple(details), quiet=() if double or not option else (option,)) if n else None


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
    any_kong = option is not None and v.opts.get(option) == "any"
    k = [m for m in v.pungs if m.concealed or (any_kong and m.kind == "kong")]
    if not (len(k) == n if exact else len(k) >= n):
        return False
    return Fired(1, tuple(_meld_name(m) for m in k))  # one firing, the melds as details


def kongs_count(v: "View", n: int = 1, exact: bool = False, concealed: bool | None = None) -> Any:
    """At least/exactly ``n`` kongs (``concealed`` filters). Fires once, the kongs as details."""
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


def win_by(v: "View", how: Iterable[str] | str, after_kong: bool = False) -> bool:
    """The winning tile came ``how``: discard / wall / dead-wall / robbed-kong (or a list);
    ``after_kong``: and the hand shows a kong (the loose tile drawn after a kong, 002:54, 004:2: a
    dead-wall tile drawn for a flower is no such tile)."""
    if after_kong and not v.kongs:
        return False
    return v.ctx.win_by in ((how,) if isinstance(how, str) else tuple(how))


def self_drawn(v: "View") -> bool:
    """The winning tile was drawn by the winner (wall or dead wall)."""
    return v.ctx.self_drawn


def last_tile(v: "View", self_drawn_only: bool | None = None) -> bool:
    """Won on the last tile: ``self_drawn_only`` True = last wall tile drawn (a loose tile too); False = last
    discard (won by discard: a kong's robbed tile was never discarded, 003:49 "sista kastade brickan"); None =
    either."""
    if not v.ctx.last_tile:
        return False
    if self_drawn_only is None:
        return True
    return v.ctx.self_drawn if self_drawn_only else v.ctx.win_by == "discard"


def winning_tile_is(v: "View", tiles: Any) -> bool:
    """The winning tile is in ``tiles``."""
    return v.hand.winning_tile is not None and v.hand.winning_tile in category(v, tiles)


def wait_is(v: "View", waits: Iterable[str] | str) -> bool:
    """The decomposition's wait type is one of ``waits`` (edge, closed, open, pung, pair, special)."""
    return v.d.wait in ((waits,) if isinstance(waits, str) else tuple(waits))


def only_possible_tile(v: "View") -> bool:
    """The hand without its winning tile waited on exactly one tile kind (``View.one_wait``:
    ``len(waits) == 1``, decided without every wait where the reading shows a second one)."""
    return v.hand.winning_tile is not None and v.one_wait


def fully_concealed(v: "View", self_drawn_required: bool = False) -> bool:
    """No meld exposed on the table (concealed kongs allowed) and, if required, self-drawn."""
    if any(m.declared and not m.concealed for m in v.melds):
        return False
    return v.ctx.self_drawn or not self_drawn_required


def nothing_exposed(v: "View") -> bool:
    """No meld on the table at all (not even a concealed kong)."""
    return not v.hand.melds


def first_turn(v: "View", dealer: bool | None = None, self_drawn_win: bool | None = None,
               win_by: str | None = None, dealt: bool = False, no_kong: bool = False) -> bool:
    """Won on the first turn (heaven/earth); filters on dealer, on self-draw and on ``win_by`` (the way of
    winning exactly: Earth on East's first *discard*, not a robbed kong's tile, 002:42). ``no_kong``: the hand
    holds no kong — Heaven is won with the 14 tiles dealt (002:39, 000:145-146, 001:58-60), among which no
    kong can be (a kong is a fifteenth tile and its loose one); a flower's loose tile (win by dead-wall) is
    dealt as the flower is replaced; Earth on East's first discard, before which no other player has had a
    turn to declare one. ``dealt`` (hk-tw-16's 天地胡, 004-27 (a), the rendering's 地胡 "on the
    dealer's first discard, or on their own first draw"): :attr:`scoring.hand.Context.dealt_first_turn`."""
    c = v.ctx
    if not c.first_turn:
        return False
    if dealer is not None and c.is_dealer != dealer:
        return False
    if win_by is not None and c.win_by != win_by:
        return False
    if dealt and not c.dealt_first_turn:
        return False
    if no_kong and any(m.kind == "kong" for m in v.hand.melds):
        return False
    return self_drawn_win is None or c.self_drawn == self_drawn_win


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


# ----------------------------------------------------------------------------- prefilters
# ``f.requires(**params)`` gives groups of feature names (scoring.engine.FEATURES), each a
# necessary condition for ``f`` to fire with those params: at least one name of each group is
# present in the reading. The engine skips the call otherwise. None = no prefilter. Every group
# here is read off the predicate's own code above; tests/test_engine.py checks on random hands of
# every ruleset that prefiltered and unfiltered evaluation give the same firings.
_BASE_CATS = {"simples": ("simples",), "terminals": ("terminals",), "honours": ("winds", "dragons"),
              "winds": ("winds",), "dragons": ("dragons",),
              "terminals-honours": ("terminals", "winds", "dragons"), "suits": ("simples", "terminals"),
              "green": ("simples", "dragons"), "seat-wind": ("winds",), "round-wind": ("winds",),
              "any": ("simples", "terminals", "winds", "dragons")}


def _cats(tiles: Any) -> set[str] | None:
    """The meld-tile categories (simples/terminals/winds/dragons) a ``tiles=`` parameter covers."""
    if isinstance(tiles, (list, tuple)):
        out: set[str] = set()
        for t in tiles:
            c = _cats(t)
            if c is None:
                return None
            out |= c
        return out
    if isinstance(tiles, str) and tiles in _BASE_CATS:
        return set(_BASE_CATS[tiles])
    if isinstance(tiles, str) and len(tiles) == 2:
        if tiles in SIMPLES:
            return {"simples"}
        if tiles in TERMINALS:
            return {"terminals"}
        if tiles in WINDS:
            return {"winds"}
        if tiles in DRAGONS:
            return {"dragons"}
    return None


def _meld_group(kinds: Iterable[str], tiles: Any, concealed: bool | None = None) -> frozenset[str] | None:
    cats = _cats(tiles)
    if cats is None:
        return None
    status = ("c", "x") if concealed is None else (("c",) if concealed else ("x",))
    return frozenset(f"{k}:{c}:{s}" for k in kinds for c in cats for s in status)


def _req_sets_of(kinds: Iterable[str] = ("pung",), tiles: Any = "any", concealed: bool | None = None):
    g = _meld_group(kinds, tiles, concealed)
    return None if g is None else (g,)


def _req_pairs_of(tiles: Any = "any"):
    g = _meld_group(("pair",), tiles)
    return None if g is None else (g,)


def _req_value_pairs(option: str | None = "seat_round_wind", dragons: bool = True):
    return (_meld_group(("pair",), ["winds", "dragons"] if dragons else "winds"),)


def _req_value_pungs(option: str | None = "seat_round_wind", dragons: bool = True, winds: bool = True):
    cats = [c for c, on in (("dragons", dragons), ("winds", winds)) if on]
    return (_meld_group(("pung", "kong"), cats),) if cats else (frozenset(),)


_PK_COUNTS = {"winds": (2, 3, 4), "dragons": (2, 3)}


def _req_pungs_count(tiles: Any = "any", n: int = 1, exact: bool = False, pair_tiles: Any = None):
    if n < 1:
        return None
    g = _meld_group(("pung", "kong"), tiles)
    if g is None:
        return None
    req: list[Any] = [g]
    if isinstance(tiles, str) and tiles in _PK_COUNTS:
        at_least = [k for k in _PK_COUNTS[tiles] if k <= n]
        if at_least:
            req.append(f"pk:{tiles}>={max(at_least)}")
    if pair_tiles is not None:
        p = _meld_group(("pair",), pair_tiles)
        if p is None:
            return None
        req.append(p)
    return tuple(req)


def _req_concealed_pungs(n: int = 3, exact: bool = False, option: str | None = None):
    if n < 1:
        return None
    req: list[Any] = [_meld_group(("pung", "kong"), "any", True) | _meld_group(("kong",), "any", False)]
    if n >= 3:
        req.append("cpk>=4" if n >= 4 else "cpk>=3")  # concealed pungs/kongs or (any) kongs
    return tuple(req)


def _req_kongs_count(n: int = 1, exact: bool = False, concealed: bool | None = None):
    if n < 1:
        return None
    req: list[Any] = [_meld_group(("kong",), "any", concealed)]
    if n >= 3:
        req.append("kongs>=4" if n >= 4 else "kongs>=3")
    return tuple(req)


_ALL_TILES_IN = {"simples": "all-simples", "terminals": "all-terminals", "green": "all-green",
                 "honours": "only-honours"}


def _req_all_tiles_in(tiles: Any):
    name = _ALL_TILES_IN.get(tiles) if isinstance(tiles, str) else None
    return None if name is None else (name,)


def _req_one_suit(honours: str = "none", terminals_only: bool = False):
    req = ["one-suit"]
    if honours == "none":
        req.append("no-honours")
    elif honours == "required":
        req.append("has-honours")
    if terminals_only:
        req.append("no-simples")
    return tuple(req)


def _req_win_by(how: Iterable[str] | str, after_kong: bool = False):
    return (frozenset(f"win:{h}" for h in ((how,) if isinstance(how, str) else how)),)


def _req_last_tile(self_drawn_only: bool | None = None):
    return ("last-tile", "self-drawn") if self_drawn_only else ("last-tile",)


def _req_wait_is(waits: Iterable[str] | str):
    return (frozenset(f"wait:{w}" for w in ((waits,) if isinstance(waits, str) else waits)),)


def _req_fully_concealed(self_drawn_required: bool = False):
    return ("no-exposed-declared", "self-drawn") if self_drawn_required else ("no-exposed-declared",)


sets_of.requires = _req_sets_of  # type: ignore[attr-defined]
pairs_of.requires = _req_pairs_of  # type: ignore[attr-defined]
value_pairs.requires = _req_value_pairs  # type: ignore[attr-defined]
value_pungs.requires = _req_value_pungs  # type: ignore[attr-defined]
pungs_count.requires = _req_pungs_count  # type: ignore[attr-defined]
concealed_pungs.requires = _req_concealed_pungs  # type: ignore[attr-defined]
kongs_count.requires = _req_kongs_count  # type: ignore[attr-defined]
all_tiles_in.requires = _req_all_tiles_in  # type: ignore[attr-defined]
one_suit.requires = _req_one_suit  # type: ignore[attr-defined]
only_honours.requires = lambda: ("only-honours",)  # type: ignore[attr-defined]
all_chows.requires = lambda: (_meld_group(("chow",), "any"), "no-pungs")  # type: ignore[attr-defined]
all_pungs.requires = lambda: (_meld_group(("pung", "kong"), "any"), "no-chows")  # type: ignore[attr-defined]
mahjong.requires = lambda: ("winner",)  # type: ignore[attr-defined]
win_by.requires = _req_win_by  # type: ignore[attr-defined]
self_drawn.requires = lambda: ("self-drawn",)  # type: ignore[attr-defined]
last_tile.requires = _req_last_tile  # type: ignore[attr-defined]
winning_tile_is.requires = lambda tiles: ("winning-tile",)  # type: ignore[attr-defined]
wait_is.requires = _req_wait_is  # type: ignore[attr-defined]
only_possible_tile.requires = lambda: ("winning-tile",)  # type: ignore[attr-defined]
fully_concealed.requires = _req_fully_concealed  # type: ignore[attr-defined]
nothing_exposed.requires = lambda: ("no-declared",)  # type: ignore[attr-defined]
first_turn.requires = (  # type: ignore[attr-defined]
    lambda dealer=None, self_drawn_win=None, win_by=None, dealt=False, no_kong=False: ("first-turn",))
bonus_tiles.requires = lambda: ("bonus",)  # type: ignore[attr-defined]
own_bonus.requires = lambda: ("bonus",)  # type: ignore[attr-defined]
bonus_sets.requires = lambda which="any": ("bonus",)  # type: ignore[attr-defined]
