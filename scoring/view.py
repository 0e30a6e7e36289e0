"""What a rule predicate sees: :class:`View` (a hand, one of its decompositions, the context, the
options and the ruleset) and the feature bits that the engine's prefilters test.

Imported by :mod:`scoring.engine` (which builds views and re-exports these names) and by
:mod:`scoring.predicates` and the rulesets' own predicates (which read them), so neither of those
imports the other.
"""
from __future__ import annotations

from typing import Any, Mapping

from . import decompose
from .decompose import Decomposition, second_wait, waits
from .hand import Hand, Meld
from .tiles import DRAGONS, GREEN, HONOURS, SIMPLES, TERMINALS, WINDS

class _lazy:
    """A lazily computed attribute stored in the instance ``__dict__`` on first access (like
    :func:`functools.cached_property`, without its lock: a View lives in one thread)."""

    def __init__(self, fn: Callable[[Any], Any]):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class _hand_lazy(_lazy):
    """A lazy attribute that depends on the hand (and ruleset) only, not on the reading: computed
    once per :attr:`View.shared` dict, i.e. once per hand when :func:`score_hand` gives all the
    readings of a hand one dict."""

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self
        shared = obj.shared
        name = self.name
        if name in shared:
            value = shared[name]
        else:
            value = shared[name] = self.fn(obj)
        obj.__dict__[name] = value
        return value


class View:
    """What a predicate sees: the hand, one decomposition, the context and the options.

    Derived collections are computed once per view: ``melds`` (all, pairs included), ``sets``
    (chow/pung/kong), ``pungs`` (pung or kong), ``kongs``, ``chows``, ``pairs``, ``tiles`` (every
    playing tile incl. kongs), ``suits`` (suit letters present among m/p/s), ``has_honours``.
    Those that do not depend on the reading (``tiles``, ``tile_set``, ``suits``, ``has_honours``,
    ``waits``, ``one_wait``) are kept in ``shared``: views of one hand given the same dict (as
    :func:`score_hand` does) compute them once. ``shared`` must only be shared between views of
    the same hand, ruleset and options.
    """

    __slots__ = ("hand", "d", "ctx", "opts", "ruleset", "shared", "__dict__")

    def __init__(self, hand: Hand, d: Decomposition, ruleset: "Ruleset", opts: Mapping[str, Any],
                 shared: dict[str, Any] | None = None):
        self.hand = hand
        self.d = d
        self.ctx = hand.context
        self.opts = opts
        self.ruleset = ruleset
        if shared is None:
            self.shared = {}
        else:
            self.shared = shared
            self.__dict__.update(shared)  # what the hand's earlier views computed (no descriptor)

    @_lazy
    def melds(self) -> tuple[Meld, ...]:
        return self.d.melds

    def _classify(self) -> None:
        """Sort the reading's melds into sets/pungs/kongs/chows/pairs in one pass."""
        sets, pungs, kongs, chows, pairs = [], [], [], [], []
        for m in self.d.melds:
            k = m.kind
            if k == "pair":
                pairs.append(m)
                continue
            sets.append(m)
            if k == "chow":
                chows.append(m)
            else:
                pungs.append(m)
                if k == "kong":
                    kongs.append(m)
        self.__dict__.update(sets=tuple(sets), pungs=tuple(pungs), kongs=tuple(kongs),
                             chows=tuple(chows), pairs=tuple(pairs))

    @_lazy
    def sets(self) -> tuple[Meld, ...]:
        """Chows, pungs and kongs of the reading."""
        self._classify()
        return self.__dict__["sets"]

    @_lazy
    def pungs(self) -> tuple[Meld, ...]:
        """Pungs and kongs."""
        self._classify()
        return self.__dict__["pungs"]

    @_lazy
    def kongs(self) -> tuple[Meld, ...]:
        self._classify()
        return self.__dict__["kongs"]

    @_lazy
    def chows(self) -> tuple[Meld, ...]:
        self._classify()
        return self.__dict__["chows"]

    @_lazy
    def pairs(self) -> tuple[Meld, ...]:
        self._classify()
        return self.__dict__["pairs"]

    @_hand_lazy
    def tiles(self) -> tuple[str, ...]:
        return self.hand.all_tiles

    @_hand_lazy
    def tile_set(self) -> frozenset[str]:
        """The distinct playing tiles of the hand (``frozenset(tiles)``, without sorting)."""
        return _tile_set(self.hand)

    @_hand_lazy
    def suits(self) -> frozenset[str]:
        s = {t[1] for t in self.tile_set}
        s.discard("z")
        return frozenset(s)

    @_hand_lazy
    def has_honours(self) -> bool:
        return not self.tile_set.isdisjoint(HONOURS)

    @_hand_lazy
    def waits(self) -> frozenset[str]:
        """Tiles that would have completed the hand (structural shapes of the ruleset)."""
        if "_readings" in self.shared:  # score_hand's per-hand dict keeps them: no second cache
            return waits(self.hand, self.ruleset.shapes)
        return _waits_cached(self.hand, self.ruleset.shapes)

    @_hand_lazy
    def one_wait(self) -> bool:
        """``len(waits) == 1``, often without computing every wait: a two-sided or a
        pair-to-pung reading (this one, or any in ``shared["_readings"]``: the hand's other
        readings) shows a second waited tile (:func:`scoring.decompose.second_wait`)."""
        if self.__dict__.get("waits") is None:
            shapes = self.ruleset.shapes
            for d in self.shared.get("_readings") or (self.d,):
                if second_wait(self.hand, shapes, d) is not None:
                    return False
        return len(self.waits) == 1

    @_hand_lazy
    def hand_features(self) -> int:
        """The reading-independent part of :attr:`features` (see :func:`hand_features`)."""
        return _hand_bits(self.hand, self.tile_set)

    @_lazy
    def features(self) -> int:
        """The :data:`FEATURES` of this reading as a bit mask (see :func:`view_features`)."""
        return view_features(self)

    @property
    def winner(self) -> bool:
        return self.ctx.winner


# ------------------------------------------------------------------ features and prefilters
_TILE_CAT: dict[str, str] = {
    **{t: "simples" for t in SIMPLES}, **{t: "terminals" for t in TERMINALS},
    **{t: "winds" for t in WINDS}, **{t: "dragons" for t in DRAGONS},
}
#: feature name → bit. Melds: ``KIND:CAT:S`` (kind chow/pung/kong/pair; CAT simples, terminals,
#: winds, dragons of the meld's ``tile``; S ``c`` concealed / ``x`` exposed for points). Tiles:
#: ``one-suit``, ``has-honours``, ``no-honours``, ``only-honours``, ``all-simples``,
#: ``all-terminals``, ``all-green``, ``no-simples``. Table: ``no-declared`` (nothing on the table),
#: ``no-exposed-declared``. Context: ``winner``, ``self-drawn``, ``win:HOW``, ``last-tile``,
#: ``first-turn``, ``kong-on-kong``, ``winning-tile``, ``bonus``. Reading: ``wait:TYPE``. Counts:
#: ``no-pungs`` / ``no-chows`` (no pung or kong / no chow among the melds), ``cpk>=N`` (melds
#: that are a concealed pung/kong or any kong), ``kongs>=N``, ``pk:winds>=N`` / ``pk:dragons>=N``
#: (pungs/kongs of winds / dragons).
FEATURES: dict[str, int] = {}
for _name in ([f"{k}:{c}:{st}" for k in ("chow", "pung", "kong", "pair")
               for c in ("simples", "terminals", "winds", "dragons") for st in ("c", "x")]
              + ["one-suit", "has-honours", "no-honours", "only-honours", "all-simples", "all-terminals",
                 "all-green", "no-simples", "no-declared", "no-exposed-declared", "winner", "self-drawn",
                 "last-tile", "first-turn", "kong-on-kong", "winning-tile", "bonus",
                 "no-pungs", "no-chows", "cpk>=3", "cpk>=4", "kongs>=3", "kongs>=4",
                 "pk:winds>=2", "pk:winds>=3", "pk:winds>=4", "pk:dragons>=2", "pk:dragons>=3"]
              + [f"win:{w}" for w in ("discard", "wall", "dead-wall", "robbed-kong")]
              + [f"wait:{w}" for w in ("edge", "closed", "open", "pung", "pair", "special")]):
    FEATURES[_name] = 1 << len(FEATURES)
_MELD_BIT = {(k, c, conc): FEATURES[f"{k}:{c}:{'c' if conc else 'x'}"]
             for k in ("chow", "pung", "kong", "pair") for c in ("simples", "terminals", "winds", "dragons")
             for conc in (True, False)}


#: (kind, tile, concealed) → (the meld's feature bit, 0 chow / 1 pung / 2 kong / 3 pair, 0 other
#: tile / 1 wind / 2 dragon)
_MELD_INFO: dict[tuple[str, str, bool], tuple[int, int, int]] = {
    (k, t, conc): (_MELD_BIT[k, _TILE_CAT[t], conc], ("chow", "pung", "kong", "pair").index(k),
                   1 if t in WINDS else 2 if t in DRAGONS else 0)
    for k in ("chow", "pung", "kong", "pair") for t in _TILE_CAT for conc in (True, False)}


#: id of an interned meld of :mod:`scoring.decompose` (concealed in the hand, or completed by the
#: winning tile) → its :data:`_MELD_INFO` (those melds live as long as the module)
_MELD_INFO_BY_ID: dict[int, tuple[int, int, int]] = {
    id(m): _MELD_INFO[m.kind, m.tile, m.concealed]
    for m in [*decompose._CONCEALED.values(), *decompose._WON_DISCARD.values(), *decompose._WON_DRAWN.values()]}


def view_features(v: "View") -> int:
    """The features of a reading that the shared predicates' prefilters test (bit mask).

    Computed from exactly what the predicates read: ``v.melds`` (kind, category of ``tile``,
    ``concealed``, ``declared``), ``v.tile_set``, ``v.ctx``, ``v.hand.bonus``, ``v.d.wait``. The
    part that does not depend on the reading (:func:`hand_features`) is computed once per hand.
    """
    f = v.hand_features
    exposed_declared = False
    n_pk = n_chow = n_cpk = n_kong = n_wind = n_dragon = 0
    info = _MELD_INFO
    by_id = _MELD_INFO_BY_ID
    for m in v.d.melds:
        conc = m.concealed
        found = by_id.get(id(m))  # the melds decompositions make, looked up by identity
        bit, k, cat = found if found is not None else info[m.kind, m.tile, conc]
        f |= bit
        if not conc and m.declared:
            exposed_declared = True
        if k == 0:
            n_chow += 1
        elif k != 3:
            n_pk += 1
            if k == 2 or conc:
                n_cpk += 1
                if k == 2:
                    n_kong += 1
            if cat == 1:
                n_wind += 1
            elif cat == 2:
                n_dragon += 1
    if not n_pk:
        f |= _B_NO_PUNGS
    if not n_chow:
        f |= _B_NO_CHOWS
    if n_cpk >= 3:
        f |= _B_CPK[min(n_cpk, 4)]
    if n_kong >= 3:
        f |= _B_KONGS[min(n_kong, 4)]
    if n_wind >= 2:
        f |= _B_WINDS[min(n_wind, 4)]
    if n_dragon >= 2:
        f |= _B_DRAGONS[min(n_dragon, 3)]
    if not exposed_declared:
        f |= _B_NO_EXPOSED_DECLARED
    w = v.d.wait
    if w is not None:
        f |= _WAIT_BIT.get(w, 0)
    return f


def hand_features(v: "View") -> int:
    """The features that do not depend on the reading: tile facts (``one-suit``, ``has-honours``
    …), ``no-declared``, the context (``winner``, ``self-drawn``, ``win:HOW`` …), ``winning-tile``
    and ``bonus`` (bit mask; part of :func:`view_features`)."""
    return _hand_bits(v.hand, v.tile_set)


def _tile_set(hand: Hand) -> frozenset[str]:
    """The distinct playing tiles of ``hand`` (``View.tile_set``)."""
    melds = hand.melds
    if not melds:
        return frozenset(hand.concealed)
    return frozenset(hand.concealed).union(*[m.tiles for m in melds])


def _hand_bits(h: Hand, ts: frozenset[str]) -> int:
    """:func:`hand_features` of hand ``h`` with distinct tiles ``ts``."""
    c = h.context
    f = _WIN_BIT[c.win_by]
    if (not ts.isdisjoint(_SUIT_SETS[0])) + (not ts.isdisjoint(_SUIT_SETS[1])) \
            + (not ts.isdisjoint(_SUIT_SETS[2])) == 1:  # len(v.suits) == 1
        f |= _B_ONE_SUIT
    f |= _B_NO_HONOURS if ts.isdisjoint(HONOURS) else _B_HAS_HONOURS
    if ts <= HONOURS:
        f |= _B_ONLY_HONOURS
    if ts <= SIMPLES:
        f |= _B_ALL_SIMPLES
    if ts <= TERMINALS:
        f |= _B_ALL_TERMINALS
    if ts.isdisjoint(SIMPLES):
        f |= _B_NO_SIMPLES
    if ts <= GREEN:
        f |= _B_ALL_GREEN
    if not h.melds:
        f |= _B_NO_DECLARED
    if c.winner:
        f |= _B_WINNER
    if c.win_by in _SELF_DRAWN:
        f |= _B_SELF_DRAWN
    if c.last_tile:
        f |= _B_LAST_TILE
    if c.first_turn:
        f |= _B_FIRST_TURN
    if c.kong_on_kong:
        f |= _B_KONG_ON_KONG
    if h.winning_tile is not None:
        f |= _B_WINNING_TILE
    if h.bonus:
        f |= _B_BONUS
    return f


(_B_ONE_SUIT, _B_HAS_HONOURS, _B_NO_HONOURS, _B_ONLY_HONOURS, _B_ALL_SIMPLES, _B_ALL_TERMINALS,
 _B_ALL_GREEN, _B_NO_SIMPLES, _B_NO_DECLARED, _B_WINNER, _B_SELF_DRAWN, _B_LAST_TILE, _B_FIRST_TURN,
 _B_KONG_ON_KONG, _B_WINNING_TILE, _B_BONUS) = (FEATURES[n] for n in (
    "one-suit", "has-honours", "no-honours", "only-honours", "all-simples", "all-terminals",
    "all-green", "no-simples", "no-declared", "winner", "self-drawn", "last-tile", "first-turn",
    "kong-on-kong", "winning-tile", "bonus"))
_WIN_BIT = {w: FEATURES["win:" + w] for w in ("discard", "wall", "dead-wall", "robbed-kong")}
#: the tiles of each suit (characters, circles, bamboo)
_SUIT_SETS = tuple(frozenset(t for t in SIMPLES | TERMINALS if t[1] == s) for s in "mps")
#: every bit hand_features may set (view_features adds none of these)
_HAND_BITS = (_B_ONE_SUIT | _B_HAS_HONOURS | _B_NO_HONOURS | _B_ONLY_HONOURS | _B_ALL_SIMPLES
              | _B_ALL_TERMINALS | _B_ALL_GREEN | _B_NO_SIMPLES | _B_NO_DECLARED | _B_WINNER
              | _B_SELF_DRAWN | _B_LAST_TILE | _B_FIRST_TURN | _B_KONG_ON_KONG | _B_WINNING_TILE
              | _B_BONUS | sum(_WIN_BIT.values()))
_SELF_DRAWN = ("wall", "dead-wall")  # Context.self_drawn
(_B_NO_PUNGS, _B_NO_CHOWS, _B_NO_EXPOSED_DECLARED) = (FEATURES[n] for n in (
    "no-pungs", "no-chows", "no-exposed-declared"))
_B_CPK = (0, 0, 0, FEATURES["cpk>=3"], FEATURES["cpk>=3"] | FEATURES["cpk>=4"])
_B_KONGS = (0, 0, 0, FEATURES["kongs>=3"], FEATURES["kongs>=3"] | FEATURES["kongs>=4"])
_B_WINDS = (0, 0, FEATURES["pk:winds>=2"], FEATURES["pk:winds>=2"] | FEATURES["pk:winds>=3"],
            FEATURES["pk:winds>=2"] | FEATURES["pk:winds>=3"] | FEATURES["pk:winds>=4"])
_B_DRAGONS = (0, 0, FEATURES["pk:dragons>=2"], FEATURES["pk:dragons>=2"] | FEATURES["pk:dragons>=3"])
_WAIT_BIT = {w: FEATURES["wait:" + w] for w in ("edge", "closed", "open", "pung", "pair", "special")}


_WAITS: dict[tuple[Hand, tuple[str, ...]], frozenset[str]] = {}


def _waits_cached(hand: Hand, shapes: tuple[str, ...]) -> frozenset[str]:
    key = (hand, shapes)
    w = _WAITS.get(key)
    if w is None:
        if len(_WAITS) > 4096:
            _WAITS.clear()
        w = _WAITS[key] = waits(hand, shapes)
    return w
