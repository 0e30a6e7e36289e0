"""Decomposition: every way to read a hand as sets + pair, and the special shapes rulesets declare.

A winning hand of the 13-tile game is 4 sets (chow/pung/kong) + 1 pair (16-tile game: 5 sets + 1
pair), or a special shape. :func:`standard_splits` enumerates every split of the concealed tiles
(lowest tile first: it is a pung, the start of a chow, or the pair; each split is returned once);
:func:`decompositions` then places the winning tile in each set that can hold it, because where the
winning tile sits changes the score (wait type, pung made exposed by a discard — RULINGS principle 6).

Shapes are named functions ``shape(hand) -> list[Decomposition]`` in :data:`SHAPES`; a ruleset
lists the shapes it knows. Built in: ``standard``, ``seven-pairs``, ``thirteen-orphans``,
``irregular`` (every concealed tile loose: a hand that only a ``completes`` rule of the ruleset,
such as a fixed-value special hand, can make a mahjong) and, for non-winners, ``partial``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain, groupby, product
from operator import itemgetter, mul
from typing import Callable, Iterable, Sequence

from .hand import _MELD_TILES, Hand, Meld
from .tiles import INDEX, PLAYING_TILES, TERMINALS_AND_HONOURS, counts34, rank, sort_tiles


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One reading of a hand.

    * ``shape``: ``standard``, ``seven-pairs``, ``thirteen-orphans``, ``irregular``, ``partial``
      or a ruleset's own shape name;
    * ``melds``: the melds on the table first, then the sets and pair(s) formed in the hand;
    * ``loose``: tiles in no meld (special shapes, non-winners), sorted;
    * ``wait``: how the winning tile completed the hand: ``edge`` (12-3, 7-89), ``closed``
      (4-6 waiting 5), ``open`` (two-sided), ``pung`` (pair became a pung), ``pair`` (single tile
      became the pair), ``special`` (a special shape) or None (no winning tile / non-winner).
    """

    shape: str
    melds: tuple[Meld, ...]
    loose: tuple[str, ...] = ()
    wait: str | None = None

    @property
    def winning_meld(self) -> Meld | None:
        """The meld completed by the winning tile, if any."""
        for m in self.melds:
            if m.winning:
                return m
        return None

    def describe(self, win_by: str = "discard") -> str:
        """One line: ``standard: pung exposed 777p, chow concealed 123m, ... pair 11z``
        (``win_by``: the context's win source, for the wording of :meth:`Meld.text`)."""
        parts = [m.text(win_by) + (" (winning tile)" if m.winning else "") for m in self.melds]
        if self.loose:
            parts.append("loose " + " ".join(self.loose))
        return f"{self.shape}: " + ", ".join(parts)


Shape = Callable[[Hand], list[Decomposition]]


#: the four groups of the 34-index: characters, circles, bamboo (chows allowed), honours (no chows)
_GROUPS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))
_KIND_ORDER = {"pung": 0, "chow": 1, "pair": 2}


def _split_codes(counts: Sequence[int], need_pair: bool, chows: bool) -> tuple[tuple[int, ...], ...]:
    """All splits of one group's counts (a suit's 9 or the honours' 7, or a stretch of them) into
    pungs/chows (+ a pair if ``need_pair``), each split once, as meld codes ``3 × position + (0
    pung, 1 chow, 2 pair)`` sorted (tile order).

    Depth first from the lowest tile held: it is a pung, the start of a chow, or the pair.
    """
    c = list(counts)
    n = len(c)
    acc: list[int] = []
    out: list[tuple[int, ...]] = []

    def go(i: int, pair: bool) -> None:
        while i < n and not c[i]:
            i += 1
        if i == n:
            if not pair:
                out.append(tuple(acc))
            return
        x = c[i]
        code = 3 * i
        if x >= 3:
            c[i] = x - 3
            acc.append(code)
            go(i, pair)
            acc.pop()
            c[i] = x
        if chows and i <= n - 3 and c[i + 1] and c[i + 2]:
            c[i] = x - 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            acc.append(code + 1)
            go(i, pair)
            acc.pop()
            c[i] = x
            c[i + 1] += 1
            c[i + 2] += 1
        if pair and x >= 2:
            c[i] = x - 2
            acc.append(code + 2)
            go(i, False)
            acc.pop()
            c[i] = x

    go(0, need_pair)
    # the pair taken at the lowest tile and a chow taken there can give the same multiset of
    # melds (11123444: 11+123+444 both ways): keep each split once, melds in tile order
    if len(out) <= 1:
        return tuple(tuple(sorted(split)) for split in out)
    return tuple(dict.fromkeys(tuple(sorted(s)) for s in out))


@lru_cache(maxsize=None)
def _group_splits(counts: tuple[int, ...], base: int, need_pair: bool,
                  chows: bool) -> tuple[tuple[Meld, ...], ...]:
    """All splits of one group's counts (a suit's 9 or the honours' 7) into pungs/chows (+ a pair
    if ``need_pair``), as tuples of the interned concealed melds in tile order, each split once.
    ``base`` is the group's first 34-index. Cached per pattern.
    """
    return _meld_splits(_split_codes(counts, need_pair, chows), 3 * base)


def _meld_splits(codes: tuple[tuple[int, ...], ...], offset: int) -> tuple[tuple[Meld, ...], ...]:
    """Meld codes (of a group's stretch that starts at 34-index offset / 3) → concealed melds."""
    melds = _CODE_MELD
    return tuple(tuple([melds[k + offset] for k in split]) for split in codes)


#: (chows allowed, need of the pair) → counts of a stretch of a group with no 0 at either end →
#: its splits as meld codes from the stretch's start. A split only uses the tiles held, so it
#: moves with them: 345p and 567s split alike (the same codes, shifted).
_STRETCH_SPLITS: dict[tuple[bool, bool], dict[bytes, tuple[tuple[int, ...], ...]]] = {
    (c, p): {} for c in (False, True) for p in (False, True)}


def _group_splits_via_stretch(g: tuple[int, ...], lo: int, pair: bool, chows: bool) -> tuple[tuple[Meld, ...], ...]:
    """:func:`_group_splits` through :data:`_STRETCH_SPLITS` (the stretch from the first to the
    last tile held)."""
    raw = bytes(g)
    stretch = raw.strip(b"\0")
    start = len(raw) - len(raw.lstrip(b"\0"))
    cache = _STRETCH_SPLITS[chows, pair]
    codes = cache.get(stretch)
    if codes is None:
        codes = cache[stretch] = _split_codes(stretch, pair, chows)
    return _meld_splits(codes, 3 * (lo + start))


def _sets_only(c: list[int], chows: bool) -> bool:
    """True when counts ``c`` (one group) split into pungs/chows only. Greedy: three identical
    chows can always be read as three pungs, so at each tile the chows starting there are the
    count left mod 3. ``c`` is modified."""
    n = len(c)
    for i in range(n):
        x = c[i]
        if x < 0:
            return False
        r = x % 3
        if r:
            if not chows or i > n - 3:
                return False
            c[i + 1] -= r
            c[i + 2] -= r
    return True


def _group_complete(c: Sequence[int], need_pair: bool, chows: bool) -> bool:
    """True when one group's counts ``c`` split into pungs/chows (+ a pair if ``need_pair``);
    ``c`` is not modified."""
    if not need_pair:
        return _sets_only(list(c), chows)
    # pungs (3i) and chows (3i + 3) are ≡ 0 mod 3 in Σ i·c[i]; the pair at p adds 2p, so
    # p ≡ 2·Σ i·c[i] (mod 3) when chows are allowed: only those positions can hold the pair
    start = 2 * sum(map(mul, range(len(c)), c)) % 3 if chows else 0
    step = 3 if chows else 1
    for i in range(start, len(c), step):
        if c[i] >= 2:
            t = list(c)
            t[i] -= 2
            if _sets_only(t, chows):
                return True
    return False


@lru_cache(maxsize=None)
def _group_ok(counts: tuple[int, ...], need_pair: bool, chows: bool) -> bool:
    """:func:`_group_complete`, cached per pattern."""
    return _group_complete(counts, need_pair, chows)


#: per group (characters, circles, bamboo, honours) and need of the pair: pattern → its splits
#: (:func:`_group_splits` without its ``lru_cache`` call: the hot path looks them up directly)
_GROUP_SPLITS: tuple[tuple[dict, dict], ...] = tuple(({}, {}) for _ in _GROUPS)
_GROUPS_CACHED = tuple((lo, hi, chows, caches) for (lo, hi, chows), caches in zip(_GROUPS, _GROUP_SPLITS))
def _splits(counts: tuple[int, ...], need_pair: bool) -> tuple[tuple[Meld, ...], ...]:
    """All splits of ``counts`` (34 ints) into pungs/chows (+ one pair if ``need_pair``), as
    tuples of concealed melds.

    Sets never cross a group (suit or honours), so each group is split on its own (cached per
    group pattern, shared between hands) and the splits are combined; exactly one group holds
    the pair. Melds are in tile order, each split once. (Not cached per hand: the group tables
    make a hand's splits cheap, and a cache of whole hands would only grow.)
    """
    return _split_groups(counts, need_pair)


def _split_groups(counts: tuple[int, ...], need_pair: bool) -> tuple[tuple[Meld, ...], ...]:
    """:func:`_splits`."""
    parts = []
    pair_groups = 0
    for lo, hi, chows, caches in _GROUPS_CACHED:
        g = counts[lo:hi]
        n = sum(g)
        if not n:
            continue
        r = n % 3
        if r == 1:
            return ()
        pair = r == 2
        if pair:
            if not need_pair:
                return ()
            pair_groups += 1
        cache = caches[pair]
        sp = cache.get(g)
        if sp is None:
            sp = cache[g] = _group_splits_via_stretch(g, lo, pair, chows)
        if not sp:
            return ()
        parts.append(sp)
    if need_pair and pair_groups != 1:
        return ()
    return _join_groups(parts)


def _join_groups(parts: list[tuple[tuple[Meld, ...], ...]]) -> tuple[tuple[Meld, ...], ...]:
    """Whole-hand splits from each group's splits (``parts``, one entry per group, in tile
    order): every combination of one split per group, its melds in group order."""
    if len(parts) == 1:
        return parts[0]
    if max(map(len, parts)) == 1:  # one split per group (the usual case)
        whole = parts[0][0]
        for sp in parts[1:]:
            whole += sp[0]
        return (whole,)
    return tuple(tuple(chain.from_iterable(combo)) for combo in product(*parts))


#: suit letter → (first 34-index of its group, chows allowed, the group's splits caches)
_SUIT_GROUP = {suit: (lo, chows, caches) for suit, (lo, hi, chows, caches) in zip("mpsz", _GROUPS_CACHED)}
#: (tiles of one group, in order) → their splits with / without the pair: _GROUP_SPLITS by tiles
_TILES_SPLITS: tuple[dict[tuple[str, ...], tuple[tuple[Meld, ...], ...]], ...] = ({}, {})
_SUIT_LETTER = itemgetter(1)


def _splits_of_sorted(tiles: tuple[str, ...]) -> tuple[tuple[Meld, ...], ...] | None:
    """:func:`_splits` (with the pair) of playing tiles in suit order (``Hand.concealed``), group
    by group without counting all 34 kinds; None when the tiles are not in suit order."""
    parts = []
    pair_groups = 0
    last = ""
    split = True  # (False: a group of 3n + 1 tiles — no split, once the order is checked)
    for suit, run in groupby(tiles, _SUIT_LETTER):
        if suit <= last or suit not in _SUIT_GROUP:  # a suit seen before: not sorted (or a bonus tile)
            return None
        last = suit
        group = tuple(run)
        r = len(group) % 3
        if r == 1 or not split:
            split = False
            continue
        pair = r == 2
        if pair:
            pair_groups += 1
        cache = _TILES_SPLITS[pair]
        sp = cache.get(group)
        if sp is None:
            lo, chows, caches = _SUIT_GROUP[suit]
            counts = [0] * (9 if chows else 7)
            for t in group:
                counts[ord(t[0]) - 49] += 1
            g = tuple(counts)
            sp = caches[pair].get(g)
            if sp is None:
                sp = caches[pair][g] = _group_splits_via_stretch(g, lo, pair, chows)
            cache[group] = sp
        if not sp:
            split = False
            continue
        parts.append(sp)
    if not split or pair_groups != 1:
        return ()
    return _join_groups(parts)


def standard_splits(tiles: Iterable[str]) -> list[list[Meld]]:
    """Every split of ``tiles`` (3n + 2 playing tiles) into n sets + 1 pair, as concealed melds.

    Returns ``[]`` when the tiles cannot be split (or their number is not 3n + 2).
    """
    counts = counts34(tiles)
    n = sum(counts)
    if n % 3 != 2:
        return []
    return [list(split) for split in _splits(tuple(counts), True)]


#: the concealed (in-hand) melds, made once: Meld is immutable
_CONCEALED: dict[tuple[str, int], Meld] = {
    (kind, i): Meld(kind, PLAYING_TILES[i]) for i in range(34) for kind in ("pung", "pair", "chow")
    if kind != "chow" or (i < 27 and i % 9 <= 6)}
_CONCEALED_PAIR: tuple[Meld, ...] = tuple(_CONCEALED["pair", i] for i in range(34))
#: 34-index → ids of the concealed melds holding that tile (a pung, pair or chow of :data:`_CONCEALED`)
_HOLDERS: tuple[frozenset[int], ...] = tuple(
    frozenset(id(m) for m in _CONCEALED.values() if PLAYING_TILES[i] in m.tiles) for i in range(34))
#: id of a concealed meld → that meld completed by the winning tile: by a discard (exposed for
#: points, RULINGS principle 6) / self-drawn (stays concealed)
_WON_DISCARD: dict[int, Meld] = {id(m): Meld(m.kind, m.tile, False, False, True) for m in _CONCEALED.values()}
_WON_DRAWN: dict[int, Meld] = {id(m): Meld(m.kind, m.tile, True, False, True) for m in _CONCEALED.values()}
#: [won by a discard][34-index of the winning tile] → {id of a concealed meld holding it: that meld won}
_WON_AT: tuple[tuple[dict[int, Meld], ...], ...] = tuple(
    tuple({i: won[i] for i in _HOLDERS[k]} for k in range(34)) for won in (_WON_DRAWN, _WON_DISCARD))
#: meld code (3 × 34-index + 0 pung / 1 chow / 2 pair, see :func:`_group_splits`) → concealed meld
_CODE_MELD: list[Meld | None] = [_CONCEALED.get((kind, code // 3)) for code in range(34 * 3)
                                 for kind in [("pung", "chow", "pair")[code % 3]]]


def is_standard_complete(counts: Sequence[int]) -> bool:
    """True when 34 counts (3n + 2 tiles) split into n sets + a pair.

    Checks each group (suit, honours) on its own, stopping at the first failure; cached per group.
    """
    pair_seen = False
    for lo, hi, chows in _GROUPS:
        g = tuple(counts[lo:hi])
        r = sum(g) % 3
        if r == 1:
            return False
        if r == 2:
            if pair_seen:
                return False
            pair_seen = True
        if any(g) and not _group_ok(g, r == 2, chows):
            return False
    return pair_seen


def clear_caches() -> None:
    """Empty the split caches (for cold-run benchmarks; results never depend on them)."""
    for cache in _STRETCH_SPLITS.values():
        cache.clear()
    for cache in _TILES_SPLITS:
        cache.clear()
    for caches in _GROUP_SPLITS:
        for cache in caches:
            cache.clear()
    _group_splits.cache_clear()
    _group_ok.cache_clear()
    _group_waits.cache_clear()
    for *_, ok_cache, waits_cache in _GROUPS_WAITS:
        ok_cache.clear()
        waits_cache.clear()
    _STRETCH_OK.clear()
    _STRETCH_WAITS.clear()
    _TILES_OK.clear()
    _TILES_WAITS.clear()
    _WON.clear()


def _wait_type(meld: Meld, tile: str) -> str:
    kind = meld.kind
    if kind == "pair":
        return "pair"
    if kind == "pung" or kind == "kong":
        return "pung"
    r = ord(meld.tile[0]) - 48  # rank()
    pos = ord(tile[0]) - 48 - r
    if pos == 1:
        return "closed"
    if (pos == 2 and r == 1) or (pos == 0 and r == 7):
        return "edge"
    return "open"


#: (kind, tile, concealed, declared) → that meld completed by the winning tile (made once each)
_WON: dict[tuple[str, str, bool, bool], Meld] = {}


def place_winning_tile(hand: Hand, shape: str, formed: Sequence[Meld], loose=()) -> list[Decomposition]:
    """Decompositions for each distinct formed meld that can hold the winning tile.

    A meld completed by a discard (or robbed kong) becomes exposed for points (RULINGS
    principle 6). Without a winning tile one decomposition is returned, ``wait=None``.
    """
    declared = hand.melds
    wt = hand.winning_tile
    formed = tuple(formed)
    loose = tuple(loose)
    if wt is None:
        return [Decomposition(shape, declared + formed, loose)]
    out: list[Decomposition] = []
    seen: set[tuple[str, str]] = set()
    by_discard = not hand.context.self_drawn
    tiles_of = _MELD_TILES
    for k, m in enumerate(formed):
        kind, tile = m.kind, m.tile
        if wt not in (tiles_of.get((kind, tile)) or m.tiles) or (kind, tile) in seen:
            continue
        seen.add((kind, tile))
        key = (kind, tile, m.concealed and not by_discard, m.declared)
        won = _WON.get(key)
        if won is None:
            won = _WON[key] = Meld(kind, tile, key[2], key[3], True)
        melds = declared + formed[:k] + (won,) + formed[k + 1:]
        out.append(Decomposition(shape, melds, loose, _wait_type(m, wt)))
    if not out and wt in loose:
        out.append(Decomposition(shape, declared + formed, loose, "special"))
    return out


def shape_standard(hand: Hand) -> list[Decomposition]:
    """n sets + 1 pair from the concealed tiles (n = 4 in the 13-tile game, 5 in the 16-tile)."""
    concealed = hand.concealed
    splits = _splits_of_sorted(concealed) if len(concealed) % 3 == 2 else None
    if splits is None:  # not in suit order (or not 3n + 2 tiles): count them
        counts = counts34(concealed)
        if sum(counts) % 3 != 2:
            return []
        splits = _splits(tuple(counts), True)
    wt = hand.winning_tile
    if wt is None or INDEX.get(wt, 34) >= 34:
        out: list[Decomposition] = []
        for formed in splits:
            out.extend(place_winning_tile(hand, "standard", formed))
        return out
    # place_winning_tile for the interned concealed melds of a split: the same melds, in the same
    # order, with tables in place of the tests (melds alike lie side by side in a split)
    won_of = _WON_AT[not hand.context.self_drawn][INDEX[wt]]
    declared = hand.melds
    out = []
    for formed in splits:
        prev = None
        for k, m in enumerate(formed):
            won = won_of.get(id(m))
            if won is None or m is prev:
                continue
            prev = m
            out.append(Decomposition("standard", declared + formed[:k] + (won,) + formed[k + 1:], (),
                                     _wait_type(m, wt)))
    return out


def seven_pairs_counts(counts: list[int] | tuple[int, ...], *, allow_four: bool = False) -> bool:
    """True when 14 tiles are seven pairs (``allow_four``: four alike count as two pairs)."""
    if sum(counts) != 14:
        return False
    return set(counts) <= (_EVEN_UP_TO_4 if allow_four else _ZERO_OR_TWO)


_ZERO_OR_TWO = frozenset((0, 2))
_EVEN_UP_TO_4 = frozenset((0, 2, 4))


def shape_seven_pairs(hand: Hand, *, allow_four: bool = False) -> list[Decomposition]:
    """Seven pairs, all in the hand (no melds on the table). Four alike = two pairs if allowed."""
    if hand.melds or len(hand.concealed) != 14 or len(set(hand.concealed)) > 7:
        return []  # (seven pairs, four alike or not, have at most 7 kinds of tile)
    counts = counts34(hand.concealed)
    if not seven_pairs_counts(counts, allow_four=allow_four):
        return []
    pair = _CONCEALED_PAIR
    formed = [pair[i] for i, c in enumerate(counts) if c for _ in range(c // 2)]
    return place_winning_tile(hand, "seven-pairs", formed)


def shape_seven_pairs_four_alike(hand: Hand) -> list[Decomposition]:
    """Seven pairs where four alike count as two pairs (000 line 101); shape ``seven-pairs``."""
    return shape_seven_pairs(hand, allow_four=True)


def shape_thirteen_orphans(hand: Hand) -> list[Decomposition]:
    """One of each terminal and honour (13 kinds) plus a duplicate of one of them."""
    if hand.melds or len(hand.concealed) != 14:
        return []
    tiles = set(hand.concealed)
    if tiles != TERMINALS_AND_HONOURS:
        return []
    pair = next(t for t in sort_tiles(tiles) if hand.concealed.count(t) == 2)
    loose = tuple(sort_tiles(t for t in TERMINALS_AND_HONOURS if t != pair))
    formed = [Meld("pair", pair)]
    wt = hand.winning_tile
    if wt is None:
        return [Decomposition("thirteen-orphans", formed, loose)]
    won = wt == pair
    meld = replace(formed[0], winning=won)
    return [Decomposition("thirteen-orphans", (meld,), loose, "pair" if won else "special")]


def shape_irregular(hand: Hand) -> list[Decomposition]:
    """All concealed tiles loose: valid only when a ``completes`` rule of the ruleset fires."""
    return [Decomposition("irregular", hand.melds, hand.concealed,
                          "special" if hand.winning_tile else None)]


def shape_partial(hand: Hand) -> list[Decomposition]:
    """A non-winner's hand: pungs of every tile held 3+ times, pairs of those held twice.

    Per tile kind this is the reading with the most points in every ruleset here (only pungs,
    kongs and pairs score for a non-winner), so one decomposition suffices.
    """
    counts = counts34(hand.concealed)
    formed: list[Meld] = []
    loose: list[str] = []
    for i, c in enumerate(counts):
        t = PLAYING_TILES[i]
        if c >= 3:
            formed.append(Meld("pung", t))
            loose.extend([t] * (c - 3))
        elif c == 2:
            formed.append(Meld("pair", t))
        elif c == 1:
            loose.append(t)
    return [Decomposition("partial", hand.melds + tuple(formed), tuple(loose))]


#: shape name → function; rulesets may register more with :func:`register_shape`
SHAPES: dict[str, Shape] = {
    "standard": shape_standard,
    "seven-pairs": shape_seven_pairs,
    "seven-pairs-four-alike": shape_seven_pairs_four_alike,
    "thirteen-orphans": shape_thirteen_orphans,
    "irregular": shape_irregular,
    "partial": shape_partial,
}

#: shapes that are structural (decided by tiles alone) and so take part in wait computation
STRUCTURAL = {"standard", "seven-pairs", "seven-pairs-four-alike", "thirteen-orphans"}


def register_shape(name: str, fn: Shape, *, structural: bool = True) -> None:
    """Add a named shape (e.g. a ruleset's own special form) to :data:`SHAPES`."""
    SHAPES[name] = fn
    if structural:
        STRUCTURAL.add(name)


def decompositions(hand: Hand, shapes: Iterable[str]) -> list[Decomposition]:
    """All decompositions of ``hand`` under the named shapes (non-winners: ``partial`` only)."""
    if not hand.context.winner:
        return shape_partial(hand)
    out: list[Decomposition] = []
    for name in shapes:
        out.extend(SHAPES[name](hand))
    return out


_ORPHAN_INDEX = tuple(sorted(INDEX[t] for t in TERMINALS_AND_HONOURS))
_GROUP_OF = tuple(0 if i < 9 else 1 if i < 18 else 2 if i < 27 else 3 for i in range(34))


def _builtin_shape_waits(name: str, base_counts: list[int], n_tiles: int,
                         no_melds: bool) -> set[int] | None:
    """34-indices that complete the built-in special shape ``name`` when added to
    ``base_counts`` (None: not built in, or replaced by :func:`register_shape`). Same conditions
    as the shape functions; the caller drops tiles held four times."""
    fn = SHAPES.get(name)
    if fn is shape_seven_pairs or fn is shape_seven_pairs_four_alike:
        if not no_melds or n_tiles != 14:
            return set()
        # only a tile held an odd number of times can become a pair, and the other counts
        # must already be even: exactly one odd count
        odd = [i for i, c in enumerate(base_counts) if c & 1]
        if len(odd) != 1:
            return set()
        trial = list(base_counts)
        trial[odd[0]] += 1
        return {odd[0]} if seven_pairs_counts(trial, allow_four=fn is shape_seven_pairs_four_alike) else set()
    if fn is shape_thirteen_orphans:
        if not no_melds or n_tiles != 14:
            return set()
        orphans = _ORPHAN_COUNTS(base_counts)
        if sum(orphans) != sum(base_counts):  # a tile that is no terminal or honour
            return set()
        # 13 tiles, all terminals/honours: complete with the one kind missing, or, with none
        # missing (a pair held), with any of the 13
        missing = [i for i, c in zip(_ORPHAN_INDEX, orphans) if not c]
        if not missing:
            return set(_ORPHAN_INDEX)
        return {missing[0]} if len(missing) == 1 else set()
    return None


_ORPHAN_SET = frozenset(_ORPHAN_INDEX)
#: the built-in shapes made only of concealed tiles (none with a meld on the table)
_CLOSED_BUILTINS = (shape_seven_pairs, shape_seven_pairs_four_alike, shape_thirteen_orphans)
_ORPHAN_COUNTS = itemgetter(*_ORPHAN_INDEX)  # 34 counts → the 13 terminal/honour counts


@lru_cache(maxsize=None)
def _group_waits(counts: tuple[int, ...], chows: bool) -> tuple[int, ...]:
    """Positions in one group (0..8 or 0..6) whose tile, added to ``counts``, leaves the group
    sets only (when the sum becomes ≡ 0 mod 3) or sets + a pair (≡ 2). Cached per pattern."""
    r_new = (sum(counts) + 1) % 3
    if r_new == 1:
        return ()
    out = []
    c = list(counts)
    n = len(counts)
    pair = r_new == 2
    # with a pair and chows, the pair lies at q ≡ 2·Σ i·c[i] (mod 3) (see _group_complete)
    weight = sum(map(mul, range(n), counts)) if pair and chows else 0
    for p in range(n):
        x = c[p]
        if x >= 4:
            continue
        # a completing tile joins a pung, chow or pair with a tile held (within 2 of it)
        if not x and not (chows and any(c[max(0, p - 2):p + 3])):
            continue
        c[p] = x + 1
        if not pair:
            ok = _sets_only(c[:], chows)
        else:
            ok = False
            for q in range(2 * (weight + p) % 3, n, 3) if chows else range(n):
                if c[q] >= 2:
                    t = c[:]
                    t[q] -= 2
                    if _sets_only(t, chows):
                        ok = True
                        break
        if ok:
            out.append(p)
        c[p] = x
    return tuple(out)


def _standard_waits(base_counts: list[int]) -> set[int]:
    """34-indices that make ``base_counts`` + that tile n sets + a pair.

    Only the group (suit or honours) that receives the tile changes: every other group must
    already be sets (sum ≡ 0 mod 3) or sets + the one pair (≡ 2); the receiving group's waits
    depend on its own pattern only (:func:`_group_waits`, cached).
    """
    groups = []
    bad = pairs = 0
    for lo, hi, chows, ok_cache, _ in _GROUPS_WAITS:
        g = tuple(base_counts[lo:hi])
        r = sum(g) % 3
        if r == 1:
            ok = False
        elif not r and not any(g):
            ok = True
        else:
            ok = ok_cache.get((g, r))
            if ok is None:
                stretch = bytes(g).strip(b"\0")  # completeness moves with the tiles held
                ok = _STRETCH_OK.get((stretch, r, chows))
                if ok is None:
                    ok = _STRETCH_OK[stretch, r, chows] = _group_complete(stretch, r == 2, chows)
                ok_cache[g, r] = ok
        if not ok:
            bad += 1
            if bad > 1:  # two groups that need a tile: no single tile completes the hand
                return set()
        if r == 2:
            pairs += 1
        groups.append((g, r, ok, lo, chows))
    out: set[int] = set()
    for (g, r, ok, lo, chows), (*_, waits_cache) in zip(groups, _GROUPS_WAITS):
        if bad and ok:  # another group cannot be completed by this tile
            continue
        r_new = (r + 1) % 3
        if r_new == 1 or pairs - (r == 2) + (r_new == 2) != 1:
            continue
        found = waits_cache.get(g)
        if found is None:
            found = waits_cache[g] = _group_waits_via_stretch(g, chows)
        out.update([lo + p for p in found])
    return out


#: (stretch of a group with no 0 at either end, remainder, chows) → complete?
_STRETCH_OK: dict[tuple[bytes, int, bool], bool] = {}
#: (chows, empty places before the stretch (at most 2), after it (at most 2), the stretch) →
#: waits, counted from the first of those places
_STRETCH_WAITS: dict[tuple[bool, int, int, bytes], tuple[int, ...]] = {}


def _group_waits_via_stretch(g: tuple[int, ...], chows: bool) -> tuple[int, ...]:
    """:func:`_group_waits` through :data:`_STRETCH_WAITS`: a waited tile is held or within 2 of
    a tile held, so the waits move with the stretch of tiles held and up to 2 places around it
    (the group's ends cut those places short)."""
    raw = bytes(g)
    stretch = raw.strip(b"\0")
    start = len(raw) - len(raw.lstrip(b"\0"))
    before = min(2, start)
    after = min(2, len(raw) - start - len(stretch))
    key = (chows, before, after, stretch)
    rel = _STRETCH_WAITS.get(key)
    if rel is None:
        rel = _STRETCH_WAITS[key] = _group_waits.__wrapped__(
            tuple(bytes(before) + stretch + bytes(after)), chows)
    shift = start - before
    return tuple([p + shift for p in rel]) if shift else rel


def _standard_waits_of_sorted(tiles: list[str]) -> set[int] | None:
    """:func:`_standard_waits` of playing tiles in suit order, group by group from the tiles (no
    count of all 34 kinds); None when the tiles are not in suit order."""
    runs = [(suit, tuple(run)) for suit, run in groupby(tiles, _SUIT_LETTER)]
    last = ""
    for suit, _ in runs:
        if suit <= last or suit not in _SUIT_WAITS:  # a suit seen before: not sorted (or a bonus tile)
            return None
        last = suit
    groups = []
    bad = pairs = 0
    for suit, group in runs:
        r = len(group) % 3
        if r == 1:
            ok = False
        else:
            ok = _TILES_OK.get(group)
            if ok is None:
                ok = _TILES_OK[group] = _stretch_ok(_group_counts(suit, group), r, _SUIT_WAITS[suit][2])
        if not ok:
            bad += 1
            if bad > 1:  # two groups that need a tile: no single tile completes the hand
                return set()
        if r == 2:
            pairs += 1
        groups.append((suit, group, r, ok))
    out: set[int] = set()
    for suit, group, r, ok in groups:  # (a group with no tile cannot take the one tile)
        if bad and ok:  # another group cannot be completed by this tile
            continue
        r_new = (r + 1) % 3
        if r_new == 1 or pairs - (r == 2) + (r_new == 2) != 1:
            continue
        found = _TILES_WAITS.get(group)
        if found is None:
            lo, hi, chows, _, waits_cache = _SUIT_WAITS[suit]
            g = _group_counts(suit, group)
            rel = waits_cache.get(g)
            if rel is None:
                rel = waits_cache[g] = _group_waits_via_stretch(g, chows)
            found = _TILES_WAITS[group] = tuple([lo + p for p in rel])
        out.update(found)
    return out


def _group_counts(suit: str, tiles: tuple[str, ...]) -> tuple[int, ...]:
    """Counts of one suit's (or the honours') tiles by rank."""
    counts = [0] * (7 if suit == "z" else 9)
    for t in tiles:
        counts[ord(t[0]) - 49] += 1
    return tuple(counts)


def _stretch_ok(g: tuple[int, ...], r: int, chows: bool) -> bool:
    """Sets (+ the pair when ``r`` is 2) complete, through :data:`_STRETCH_OK`."""
    stretch = bytes(g).strip(b"\0")  # completeness moves with the tiles held
    ok = _STRETCH_OK.get((stretch, r, chows))
    if ok is None:
        ok = _STRETCH_OK[stretch, r, chows] = _group_complete(stretch, r == 2, chows)
    return ok


#: tiles of one group (in order) → complete as they are? / the 34-indices that would complete them
_TILES_OK: dict[tuple[str, ...], bool] = {}
_TILES_WAITS: dict[tuple[str, ...], tuple[int, ...]] = {}


#: per group: (lo, hi, chows, (pattern, remainder) → sets (+ pair) complete?, pattern → its
#: waits) — :func:`_group_ok` and :func:`_group_waits` as plain tables for the hot path
_GROUPS_WAITS = tuple((lo, hi, chows, {}, {}) for lo, hi, chows in _GROUPS)
_SUIT_WAITS = dict(zip("mpsz", _GROUPS_WAITS))


def second_wait(hand: Hand, shapes: Iterable[str], d: Decomposition) -> str | None:
    """A tile other than the winning tile that the hand less its winning tile also waited on, as
    the standard reading ``d`` shows it without computing every wait; None when ``d`` shows none.

    * two-sided wait (``open``): 23 + 4 could as well have been 1 + 23;
    * pair to pung (``pung``): XX + YY waited on X and on Y (the reading's pair);
    * single wait (``pair``) on W beside a chow of the hand from W+1 or up to W-1: 3 + 456
      waited on 3 and 6, 123 + 4 on 4 and 1.

    The tile is one that :func:`waits` returns (it completes the standard shape and is not held
    four times), so ``len(waits(hand, shapes)) >= 2`` whenever this is not None.
    """
    wait = d.wait
    if (wait != "open" and wait != "pung" and wait != "pair") or d.shape != "standard" \
            or "standard" not in shapes:
        return None
    wt = hand.winning_tile
    if wt is None:
        return None
    other = None
    if wait == "open":
        for m in d.melds:
            if m.winning:
                if m.kind == "chow":
                    t = m.tile
                    other = _PLUS3[t] if wt == t else _MINUS1[t]
                break
    elif wait == "pung":
        for m in d.melds:
            if m.kind == "pair":
                other = m.tile
                break
        if other == wt:
            return None
    else:
        # single wait beside a chow in the hand: W + 456 (W = 3) could as well wait on 6
        # (345 + 66), and 123 + W (W = 4) on 1 (11 + 234)
        up, down = _PLUS1.get(wt), _MINUS3.get(wt)
        for m in d.melds:
            if m.kind == "chow" and not m.declared:
                if m.tile == up:
                    other = _PLUS3[wt]
                    break
                if m.tile == down:
                    other = down
                    break
    if other is None:
        return None
    held = hand.concealed.count(other)  # the winning tile is not ``other``: nothing to take off
    for m in hand.melds:
        held += m.tiles.count(other)
    return other if held < 4 else None


#: suit tile → the tile three ranks up / one rank up / one rank down / three ranks down, where
#: there is one
_PLUS3 = {t: f"{int(t[0]) + 3}{t[1]}" for t in PLAYING_TILES[:27] if int(t[0]) <= 6}
_PLUS1 = {t: f"{int(t[0]) + 1}{t[1]}" for t in PLAYING_TILES[:27] if int(t[0]) <= 8}
_MINUS1 = {t: f"{int(t[0]) - 1}{t[1]}" for t in PLAYING_TILES[:27] if int(t[0]) >= 2}
_MINUS3 = {t: f"{int(t[0]) - 3}{t[1]}" for t in PLAYING_TILES[:27] if int(t[0]) >= 4}


def waits(hand: Hand, shapes: Iterable[str]) -> frozenset[str]:
    """Tiles that would complete the hand without its winning tile (structural shapes only).

    For a winning hand the winning tile is removed first; a tile already held four times (in the
    hand or on the table) cannot be waited on. Returns a frozenset of tile codes.
    Standard hands and the built-in special shapes are checked on tile counts; a shape registered
    by a ruleset is asked with a trial hand.
    """
    shapes = [s for s in shapes if s in STRUCTURAL]
    base = list(hand.concealed)
    if hand.winning_tile is not None:
        base.remove(hand.winning_tile)
    base_counts: list[int] | None = None
    found: set[int] = set()
    if "standard" in shapes:
        std = _standard_waits_of_sorted(base)
        if std is None:  # not in suit order: count them
            base_counts = counts34(base)
            std = _standard_waits(base_counts)
        found = std
    n_tiles, no_melds = len(base) + 1, not hand.melds
    asked: list[str] = []
    for s in shapes:
        if s == "standard":
            continue
        if not no_melds and SHAPES.get(s) in _CLOSED_BUILTINS:
            continue  # built-in special shapes need every tile in the hand: no waits
        if base_counts is None:
            base_counts = counts34(base)
        w = _builtin_shape_waits(s, base_counts, n_tiles, no_melds)
        if w is None:
            asked.append(s)
        else:
            found |= w
    if asked:
        # a tile that completes a shape is next to (or the same as) a tile held
        candidates: set[int] = set()
        for i, c in enumerate(base_counts):
            if not c:
                continue
            if i >= 27:
                candidates.add(i)
            else:
                lo, hi = i - i % 9, i - i % 9 + 8
                candidates.update(range(max(lo, i - 2), min(hi, i + 2) + 1))
        extra = candidates | (set(_ORPHAN_INDEX) if "thirteen-orphans" in shapes else set())
        held = _held(hand, base_counts)  # (asked is not empty: base_counts made above)
        for i in sorted(extra - found):
            if held[i] >= 4:
                continue
            t = PLAYING_TILES[i]
            trial = Hand(tuple(sort_tiles(base + [t])), hand.melds, hand.bonus, None, hand.context)
            if any(SHAPES[s](trial) for s in asked):
                found.add(i)
    if not found:
        return frozenset()
    # a tile held four times (in the hand less the winning tile, or on the table) is no wait
    out = []
    for i in found:
        t = PLAYING_TILES[i]
        n = base.count(t)
        for m in hand.melds:
            n += m.tiles.count(t)
        if n < 4:
            out.append(t)
    return frozenset(out)


def _held(hand: Hand, base_counts: list[int]) -> list[int]:
    """Counts of every tile of the hand but the winning one, melds on the table included."""
    held = list(base_counts)
    for m in hand.melds:
        for t in m.tiles:
            held[INDEX[t]] += 1
    return held
