"""Predicates, shapes, hooks and settlement of the 16-tile HK/Taiwanese points table ``hk-tw-16``.

Seed ``004_7d7ce2dadca33504.txt`` (rules in ``hk_tw_16.toml``; rendering
``../shared/rules/004_7d7ce2dadca33504.en.md`` explains every term; RULINGS 004-01/04/30/38).

* A winner holds 17 tiles (5 sets + a pair; a kong counts 3) and up to 8 bonus tiles
  (``1f``–``4f`` plum/orchid/chrysanthemum/bamboo, ``1y``–``4y`` spring…winter).
* Scoring is additive (points); "暗四歸 x 2" is the only multiplier, written as its own rules.
  Cash items ($) are kind ``cash`` and reported apart (RULINGS 004-01).
* Special forms are shapes registered here with :func:`scoring.decompose.register_shape`:
  ``lik-gu`` (嚦咕: 7 pairs + 1 pung, 004:36), ``sixteen-unconnected`` (十六不搭, 004:37–38),
  ``thirteen-terminals`` (十三腰: 13 orphans + 1 set, 004:39) and ``eight-flowers`` (八隻花 as an
  instant win with the 16 tiles held, 004:44–46).
* Hooks: :func:`check_hand` (17 tiles, or 16 with all eight flowers), :func:`apply_exclusions`
  (an excluded rule excludes nothing, e.g. 缺一門 drops 無字花 but not 無花), :func:`combine`
  (雞胡 "ONLY 1 point", 004:10), :func:`finalize` (兩吃 two hands with one 底, 004:47; 搶暗槓
  only for 十三腰, 004:40; 包自摸 notes, 004:28/51) and :func:`settle` (004-01 payments).

Every predicate is a small pure function of a :class:`scoring.engine.View`; they return what the
engine counts as firings (bool, count, list of details or ``engine.Fired``).
"""
from __future__ import annotations

import math
import unicodedata
from collections import Counter
from dataclasses import replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..decompose import Decomposition, decompositions, is_standard_complete, place_winning_tile, register_shape
from ..errors import CircumstanceError, HandError, RulesetError
from ..hand import MAX_SCORE, Hand, Meld, WinFlag
from ..results import dollars
from ..tiles import (BONUS, DRAGONS, FLOWERS, HONOURS, PLAYING_TILES, SEASONS, SUITS,
                     TERMINALS, TERMINALS_AND_HONOURS, WIND_NUMBER, WINDS, counts34, next_tile, rank,
                     sort_tiles)

if TYPE_CHECKING:
    from ..engine import Line, Ruleset, ScoredHand, Totals, View

SEED = "004_7d7ce2dadca33504.txt"
RULESET_ID = "hk-tw-16"
#: the flags this ruleset reads from ``Context.flags`` (004:40 搶暗槓, 004:42 concealed kong not shown)
FLAGS = frozenset({"robbed-concealed-kong", "concealed-kong-not-shown"})
#: the flag that describes a mahjong, on a tile robbed from a concealed kong: refused for a non-winner and for a
#: win not by robbed-kong (scoring.engine.check_win_flags; a tester's flag with a self-drawn win was scored)
WIN_FLAGS = {"robbed-concealed-kong": WinFlag("搶暗槓", "004:40", "robbed-kong")}

LIK_GU = "lik-gu"
SIXTEEN = "sixteen-unconnected"
THIRTEEN = "thirteen-terminals"
EIGHT_FLOWERS = "eight-flowers"
STANDARD = "standard"
#: the shapes of a complete 17-tile hand (every shape but the instant flower win)
HAND_SHAPES = (STANDARD, LIK_GU, SIXTEEN, THIRTEEN)

#: the rule id of 底 (004:41), added once even for 兩吃 (004:47)
BASE_RULE = "base"

TWO_FIVE_EIGHT = frozenset(f"{r}{s}" for s in SUITS for r in (2, 5, 8))


def _name(m: Meld) -> str:
    return "".join(t[0] for t in m.tiles) + m.tile[1]


# =============================================================================== shapes
def shape_lik_gu(hand: Hand) -> list[Decomposition]:
    """嚦咕 (004:36): 7 pairs + 1 pung, all 17 tiles in the hand (nothing on the table).

    Four alike count as two pairs ("中中中中 count as 暗四歸"). Exactly one tile kind is held three
    times (the pung); every other kind 0, 2 or 4 times. One reading, the winning tile placed in
    each group that can hold it.
    """
    if hand.melds or len(hand.concealed) != 17:
        return []
    counts = counts34(hand.concealed)
    if sum(1 for c in counts if c == 3) != 1 or any(c == 1 for c in counts):
        return []
    formed: list[Meld] = []
    for i, c in enumerate(counts):
        t = PLAYING_TILES[i]
        if c == 3:
            formed.append(Meld("pung", t))
        else:
            formed.extend(Meld("pair", t) for _ in range(c // 2))
    return place_winning_tile(hand, LIK_GU, formed)


def unconnected_ranks(ranks: Iterable[int]) -> bool:
    """Three ranks of one suit, no two within 2 of each other (1-4-7, 1-5-9, 2-6-9 …; 004:37)."""
    r = sorted(ranks)
    return len(r) == 3 and r[1] - r[0] >= 3 and r[2] - r[1] >= 3


def shape_sixteen_unconnected(hand: Hand) -> list[Decomposition]:
    """十六不搭 (004:37): one of each of the 7 honours + 3 unconnected tiles in each suit (16 kinds)
    + a duplicate of one of them (the pair), all in the hand."""
    if hand.melds or len(hand.concealed) != 17:
        return []
    c = Counter(hand.concealed)
    if len(c) != 16 or sorted(c.values()).count(2) != 1 or not HONOURS <= set(c):
        return []
    for s in SUITS:
        if not unconnected_ranks(rank(t) for t in c if t[1] == s):
            return []
    pair = next(t for t, n in c.items() if n == 2)
    loose = tuple(sort_tiles(t for t in c if t != pair))
    return place_winning_tile(hand, SIXTEEN, [Meld("pair", pair)], loose)


def _thirteen_core(tiles: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """(pair tile, the 12 loose tiles) when 14 tiles are one of each terminal/honour + a duplicate."""
    c = Counter(tiles)
    if len(tiles) != 14 or set(c) != TERMINALS_AND_HONOURS:
        return None
    pair = next(t for t, n in c.items() if n == 2)
    return pair, tuple(sort_tiles(t for t in TERMINALS_AND_HONOURS if t != pair))


def shape_thirteen_terminals(hand: Hand) -> list[Decomposition]:
    """十三腰 = 十三么 (004:39): one of each 1/9 and honour, one of them paired, + one more set
    (pung or chow, in the hand or declared on the table) = 17 tiles.

    Every way to take the extra set out of the hand is a reading (the engine keeps the best).
    """
    out: list[Decomposition] = []
    if len(hand.melds) > 1:
        return out
    if hand.melds:
        core = _thirteen_core(hand.concealed)
        if core is not None:
            pair, loose = core
            out.extend(place_winning_tile(hand, THIRTEEN, [Meld("pair", pair)], loose))
        return out
    if len(hand.concealed) != 17:
        return out
    held = Counter(hand.concealed)
    seen: set[tuple[str, str]] = set()
    for t in sorted(held):
        candidates: list[Meld] = []
        if held[t] >= 3:
            candidates.append(Meld("pung", t))
        t2, t3 = next_tile(t), next_tile(t, 2)
        if t2 and t3 and held[t2] and held[t3]:
            candidates.append(Meld("chow", t))
        for m in candidates:
            if (m.kind, m.tile) in seen:
                continue
            seen.add((m.kind, m.tile))
            rest = list(hand.concealed)
            for x in m.tiles:
                rest.remove(x)
            core = _thirteen_core(rest)
            if core is None:
                continue
            pair, loose = core
            out.extend(place_winning_tile(hand, THIRTEEN, [Meld("pair", pair), m], loose))
    return out


def shape_eight_flowers(hand: Hand) -> list[Decomposition]:
    """八隻花 (004:44–46) as an instant win: all eight bonus tiles with the 16 tiles held when the eighth
    was drawn ("cannot pick up another tile"); the playing tiles are loose. A 17-tile hand with them is
    an ordinary win, 八隻花's 40 "added to the final hand" (004:46), or no win (a tester's 17 tiles that make
    no hand had been scored as the instant win, by discard)."""
    if not BONUS <= set(hand.bonus) or hand.tile_count != 16:
        return []
    return [Decomposition(EIGHT_FLOWERS, hand.melds, hand.concealed, None)]


register_shape(LIK_GU, shape_lik_gu)
register_shape(SIXTEEN, shape_sixteen_unconnected)
register_shape(THIRTEEN, shape_thirteen_terminals)
register_shape(EIGHT_FLOWERS, shape_eight_flowers, structural=False)

_SHAPE_FNS = {LIK_GU: shape_lik_gu, SIXTEEN: shape_sixteen_unconnected, THIRTEEN: shape_thirteen_terminals}


# =============================================================================== waits
_WAITS: dict[Hand, frozenset[str]] = {}


def waits16(hand: Hand) -> frozenset[str]:
    """Tiles that would have completed ``hand`` (without its winning tile) under any 17-tile shape.

    All 34 tiles are tried (a 十三腰 can wait on a tile far from every tile held); a tile already
    held four times cannot be waited on. Cached per hand.
    """
    got = _WAITS.get(hand)
    if got is not None:
        return got
    base = list(hand.concealed)
    if hand.winning_tile is not None:
        base.remove(hand.winning_tile)
    held = counts34(hand.all_tiles)
    if hand.winning_tile is not None:
        held[PLAYING_TILES.index(hand.winning_tile)] -= 1
    base_counts = counts34(base)
    out: set[str] = set()
    for i, t in enumerate(PLAYING_TILES):
        if held[i] >= 4:
            continue
        c = list(base_counts)
        c[i] += 1
        if is_standard_complete(tuple(c)):
            out.add(t)
            continue
        trial = Hand(tuple(sort_tiles(base + [t])), hand.melds, hand.bonus, None, hand.context)
        if any(fn(trial) for fn in _SHAPE_FNS.values()):
            out.add(t)
    if len(_WAITS) > 4096:
        _WAITS.clear()
    _WAITS[hand] = frozenset(out)
    return _WAITS[hand]


# =============================================================================== helpers
def _groups(v: "View") -> list[tuple[tuple[str, ...], Meld | None]]:
    """Every group of the reading: (tiles, meld) for melds, (tile,), None for loose tiles."""
    out: list[tuple[tuple[str, ...], Meld | None]] = [(m.tiles, m) for m in v.melds]
    out.extend(((t,), None) for t in v.d.loose)
    return out


def _concealed_set(v: "View", m: Meld | None) -> bool:
    """Concealed for points: loose tiles and pairs always; a set completed by a winning discard is
    exposed (RULINGS principle 6) unless option ``discard_set=concealed`` (004-09)."""
    if m is None or m.kind == "pair" or m.concealed:
        return True
    return m.winning and not m.declared and v.opts["discard_set"] == "concealed"


def _chows_by_suit(v: "View") -> dict[str, Counter]:
    out: dict[str, Counter] = {s: Counter() for s in SUITS}
    for m in v.chows:
        out[m.tile[1]][rank(m.tile)] += 1
    return out


# =============================================================================== flowers (004:1–2, 43–46)
def wrong_flowers(v: "View") -> Any:
    """爛花 (004:1): flowers/seasons not of the seat's number; option ``wrong_flower`` (004-02):
    ``per-tile`` one firing each, ``per-hand`` one firing if any."""
    n = WIND_NUMBER[v.ctx.seat_wind]
    wrong = [t for t in v.hand.bonus if int(t[0]) != n]
    if v.opts["wrong_flower"] == "per-hand":
        return bool(wrong) and "、".join(wrong)
    return wrong


def no_flowers(v: "View") -> bool:
    """無花 (004:1): no flower or season at all."""
    return not v.hand.bonus


def all_eight_flowers(v: "View") -> bool:
    """八隻花 (004:44): all eight flowers and seasons."""
    return BONUS <= set(v.hand.bonus)


def _flower_series(v: "View") -> int:
    b = set(v.hand.bonus)
    return int(set(FLOWERS) <= b) + int(set(SEASONS) <= b)


def flower_sets(v: "View") -> int:
    """台花 (004:43, 46): complete series 梅蘭菊竹 / 春夏秋冬, one firing each ("collect ONE time",
    the second 台花 of 八隻花 collected too)."""
    return _flower_series(v)


def grass_set(v: "View") -> bool:
    """台草 (004:43, 004-33 reading a): one bonus tile of each number 1–4 outside the complete
    series (so not all from one series), counted once."""
    b = set(v.hand.bonus)
    for series in (FLOWERS, SEASONS):
        if set(series) <= b:
            b -= set(series)
    return {int(t[0]) for t in b} == {1, 2, 3, 4}


# =============================================================================== honours (004:1–2, 25–29)
def wind_pungs(v: "View") -> list[str]:
    """碰字 (004:1): pungs/kongs of winds, one firing each. Option ``honour_pung`` (004-04, RULINGS):
    ``every-wind`` every wind pung (正風/正圈 add on top), ``guest-wind`` only a wind that is
    neither seat nor round wind."""
    guest_only = v.opts["honour_pung"] == "guest-wind"
    own = {v.ctx.seat_wind_tile, v.ctx.round_wind_tile}
    return [_name(m) for m in v.pungs if m.tile in WINDS and not (guest_only and m.tile in own)]


def honour_pattern(v: "View") -> bool:
    """Any of 四喜 / 三元 / 三風 holds (004:25–27): ≥3 wind or dragon pungs/kongs, or 2 of them
    with a pair of the same family."""
    for fam in (WINDS, DRAGONS):
        n = sum(1 for m in v.pungs if m.tile in fam)
        pair = any(m.tile in fam for m in v.pairs)
        if n >= 3 or (n == 2 and pair):
            return True
    return False


# =============================================================================== suits (004:8, 13–16, 30)
def no_honours(v: "View") -> bool:
    """無字 (004:1): no wind or dragon in the hand."""
    return not v.has_honours


def no_honours_no_flowers(v: "View") -> bool:
    """無字花 (004:8): no honours and no flowers."""
    return not v.has_honours and not v.hand.bonus


def missing_one_suit(v: "View") -> bool:
    """缺一門 (004:15): exactly one of the three suits absent. Option ``missing_suit`` (004-05):
    ``honours-allowed`` (reading a) or ``no-honours`` (reading b)."""
    if len(v.suits) != 2:
        return False
    return v.opts["missing_suit"] == "honours-allowed" or not v.has_honours


def five_gates(v: "View") -> bool:
    """五門 (004:14): characters, circles, bamboo, a wind and a dragon all present."""
    return len(v.suits) == 3 and any(t in WINDS for t in v.tile_set) and any(t in DRAGONS for t in v.tile_set)


def three_suits_meet(v: "View") -> list[str]:
    """三相逢 (004:13): the same chow in all three suits, one firing per chow rank."""
    by = _chows_by_suit(v)
    return [f"{r}{r + 1}{r + 2}" for r in range(1, 8) if all(by[s][r] for s in SUITS)]


# =============================================================================== chow shapes (004:3–9, 17–18)
def plain_win(v: "View") -> bool:
    """平胡 (004:9): all five sets are chows (nothing else is required by the seed, 004-06)."""
    return v.d.shape == STANDARD and len(v.chows) == 5


def big_clean_plain(v: "View") -> bool:
    """大清平 (004:9): 平胡 that is also 無字花 (no honours, no flowers)."""
    return plain_win(v) and no_honours_no_flowers(v)


def identical_chows(v: "View", n: int) -> list[str]:
    """一般高 / 三般高 / 四般高 (004:6): a chow held exactly ``n`` times (2, 3, 4), one firing per
    such chow. Option ``two_identical_chows`` (004-08): ``each`` every pair of identical chows,
    ``once`` at most one 一般高 per hand."""
    c = Counter(m.tile for m in v.chows)
    hits = [f"{k[0]}{int(k[0]) + 1}{int(k[0]) + 2}{k[1]}" for k, x in sorted(c.items()) if x == n]
    if n == 2 and v.opts["two_identical_chows"] == "once":
        return hits[:1]
    return hits


def old_young(v: "View", kind: str) -> list[str]:
    """老少 (004:4): chows 123 + 789 of one suit (``kind=chow``, one firing per such couple) or
    老少碰: pungs/kongs of 1 and 9 of one suit (``kind=pung``)."""
    out = []
    for s in SUITS:
        if kind == "chow":
            by = _chows_by_suit(v)[s]
            out.extend([f"123{s}+789{s}"] * min(by[1], by[7]))
        else:
            ranks = {rank(m.tile) for m in v.pungs if m.tile[1] == s}
            if {1, 9} <= ranks:
                out.append(f"111{s}+999{s}")
    return out


def sisters(v: "View") -> list[str]:
    """姊妹 (004:3). Option ``sisters`` (004-07): ``consecutive-pungs`` (reading a) = pungs/kongs
    of consecutive numbers in one suit, one firing per neighbouring couple; ``same-chow-two-suits``
    (reading b) = the same chow in exactly two suits (three suits are 三相逢)."""
    if v.opts["sisters"] == "consecutive-pungs":
        out = []
        for s in SUITS:
            ranks = {rank(m.tile) for m in v.pungs if m.tile[1] == s}
            out.extend(f"{r}{r}{r}{s}+{r + 1}{r + 1}{r + 1}{s}" for r in sorted(ranks) if r + 1 in ranks)
        return out
    by = _chows_by_suit(v)
    return [f"{r}{r + 1}{r + 2}" for r in range(1, 8) if sum(1 for s in SUITS if by[s][r]) == 2]


def brothers(v: "View", tier: str) -> list[str]:
    """兄弟 family (004:7), per number, the highest tier only:

    * ``big`` 大兄弟: pungs/kongs of the number in all three suits;
    * ``little`` 小兄弟: pungs in two suits + a pair of it in the third;
    * ``plain`` 兄弟: pungs in two suits (no such pair);
    * ``half`` 半兄弟, option ``half_brothers`` (004-11): ``pung-pair`` a pung + a pair of the
      number in another suit (reading a); ``two-pairs`` two pairs of it in two suits, no pung (b).
    """
    out = []
    for r in range(1, 10):
        p = {m.tile[1] for m in v.pungs if m.tile[1] in SUITS and rank(m.tile) == r}
        q = {m.tile[1] for m in v.pairs if m.tile[1] in SUITS and rank(m.tile) == r} - p
        if len(p) == 3:
            t = "big"
        elif len(p) == 2:
            t = "little" if q else "plain"
        elif len(p) == 1 and q and v.opts["half_brothers"] == "pung-pair":
            t = "half"
        elif not p and len(q) >= 2 and v.opts["half_brothers"] == "two-pairs":
            t = "half"
        else:
            continue
        if t == tier:
            out.append(str(r))
    return out


def four_returns(v: "View", groups: int, concealed: bool) -> list[str]:
    """四歸 family (004:5, 36, 39; 004-12 reading a): all four copies of a tile in the hand, not as
    a kong, spread over ``groups`` groups (2 四歸, 3 四歸三, 4 四歸四; a loose tile of 十三腰 is a
    group). ``concealed``: every group holding it is concealed (暗四歸, ×2 value: separate rules).

    Option ``four_identical_returns`` (004-08): ``concealed-doubles`` (literal "暗四歸 x 2") or
    ``plain``: the three 四歸四 of a 四般高 always count 20.
    """
    if v.d.shape == EIGHT_FLOWERS:
        return []
    kongs = {m.tile for m in v.kongs}
    out = []
    for t, n in Counter(v.tiles).items():
        if n != 4 or t in kongs:
            continue
        holders = [(tiles, m) for tiles, m in _groups(v) if t in tiles]
        if len(holders) != groups:
            continue
        dark = all(_concealed_set(v, m) for _, m in holders)
        if dark and groups == 4 and v.opts["four_identical_returns"] == "plain" \
                and len({m.tile for _, m in holders if m is not None}) == 1:
            dark = False
        if dark == concealed:
            out.append(t)
    return out


def _straight_candidates(v: "View") -> list[tuple[str, tuple[int, ...], bool, str]]:
    """All 龍 (1-9 of one suit) and 蟲 (004:18) made of three chows of the reading:
    (kind, chow indexes, concealed, description)."""
    chows = list(v.chows)
    idx = {}
    for i, m in enumerate(chows):
        idx.setdefault((m.tile[1], rank(m.tile)), []).append(i)
    out = []
    worm = v.opts["worm"]
    for a, b, c in combinations(range(len(chows)), 3):
        ms = sorted((chows[a], chows[b], chows[c]), key=lambda m: (rank(m.tile), m.tile[1]))
        ranks = [rank(m.tile) for m in ms]
        suits = {m.tile[1] for m in ms}
        kind = None
        if ranks == [1, 4, 7] and len(suits) == 1:
            kind = "dragon"
        elif len(suits) == 3 and (
                (worm == "mixed-straight" and ranks == [1, 4, 7])
                or (worm == "shifted-chows" and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1)):
            kind = "worm"
        if kind:
            dark = all(_concealed_set(v, m) for m in ms)
            out.append((kind, (a, b, c), dark, "+".join(_name(m) for m in ms)))
    return out


STRAIGHT_VALUE = {("dragon", False): 10, ("dragon", True): 20, ("worm", False): 5, ("worm", True): 10}


def _best_straights(v: "View") -> list[tuple[str, tuple[int, ...], bool, str]]:
    """The best set of 龍/蟲 (004:17–18): straights may be combined ("can combine 2 龍/2 蟲", 龍 with
    蟲); two may share one chow (004-09, option ``straights_share_chow``), never two."""
    cache = v.__dict__.get("_hk_straights")
    if cache is not None:
        return cache
    cands = _straight_candidates(v)
    share = 1 if v.opts["straights_share_chow"] == "yes" else 0
    best: list = []
    best_val = 0
    for k in range(1, 4):
        for combo in combinations(cands, k):
            if any(len(set(x[1]) & set(y[1])) > share for x, y in combinations(combo, 2)):
                continue
            val = sum(STRAIGHT_VALUE[(x[0], x[2])] for x in combo)
            if val > best_val:
                best, best_val = list(combo), val
    v.__dict__["_hk_straights"] = best
    return best


def straight(v: "View", kind: str, concealed: bool) -> list[str]:
    """明龍/暗龍 (``kind=dragon``, 004:17) and 明蟲/暗蟲 (``kind=worm``, 004:18): one firing per
    straight of the best combination; 暗 when all three chows are concealed."""
    return [x[3] for x in _best_straights(v) if x[0] == kind and x[2] == concealed]


# =============================================================================== pung shapes (004:20–21, 35)
def _pits(v: "View") -> list[Meld]:
    """Concealed pungs (暗崁, 004:20). Kongs count when concealed if option ``kong_is_pit=yes``
    (004-19); a pung completed by a winning discard is exposed (RULINGS principle 6) unless option
    ``discard_pung_is_pit=yes``."""
    out = []
    for m in v.pungs:
        if m.kind == "kong":
            if m.concealed and v.opts["kong_is_pit"] == "yes":
                out.append(m)
        elif m.concealed or (m.winning and not m.declared and v.opts["discard_pung_is_pit"] == "yes"):
            out.append(m)
    return out


def concealed_pits(v: "View", n: int) -> Any:
    """兩/三/四/五暗崁 (004:20): exactly ``n`` concealed pungs; one firing, the pungs as details."""
    from ..engine import Fired

    pits = _pits(v)
    return len(pits) == n and Fired(1, tuple(_name(m) for m in pits))


def all_pungs16(v: "View") -> bool:
    """對對 (004:35): all five sets are pungs/kongs (standard reading)."""
    return v.d.shape == STANDARD and len(v.pungs) == 5


def all_concealed_pits(v: "View") -> bool:
    """崁崁(自摸) (004:21): five concealed pungs/kongs + a pair, self-drawn; no claimed pung (碰)
    or exposed kong (明槓). Concealed kongs are not excluded by the text."""
    if v.d.shape != STANDARD or not v.ctx.self_drawn:
        return False
    if any(not m.concealed for m in v.hand.melds):
        return False
    return len(v.pungs) == 5 and all(m.concealed for m in v.pungs)


# =============================================================================== terminals (004:31–32)
def all_terminals(v: "View") -> bool:
    """全腰九 (004:31): every tile a 1 or 9 of a suit."""
    return v.tile_set <= TERMINALS


def all_terminals_honours(v: "View") -> Any:
    """全混腰 (004:31): every tile a terminal or an honour, both present.

    Inside 十三腰 its value follows option ``thirteen_mixed`` (004-30): ``table-60`` (RULINGS:
    the table's 60, 十三腰 + 全混腰 = 160) or ``seed-50`` (the seed's sum "=150").
    """
    from ..engine import Fired

    t = v.tile_set
    if not (t <= TERMINALS_AND_HONOURS and t & TERMINALS and t & HONOURS):
        return False
    if v.d.shape == THIRTEEN and v.opts["thirteen_mixed"] == "seed-50":
        return Fired(1, ("inside 十三腰: 50",), 50)
    return True


def terminal_every_group(v: "View", honours: bool) -> bool:
    """帶腰 (``honours=False``) / 混帶腰 (``honours=True``) (004:32): every set, the pair and every
    loose tile holds a terminal (or an honour); 帶腰 has no honours, 混帶腰 has some. A chow is
    required (else it is 全腰九/全混腰) under option ``terminal_sets_chow=required`` (004-26)."""
    ok = TERMINALS_AND_HONOURS if honours else TERMINALS
    if not all(any(x in ok for x in tiles) for tiles, _ in _groups(v)):
        return False
    if v.has_honours != honours:
        return False
    return bool(v.chows) or v.opts["terminal_sets_chow"] == "not-required"


# =============================================================================== waits (004:1–2)
def single_wait(v: "View") -> bool:
    """獨獨 (004:2): only one tile could have completed the hand. Option ``single_wait`` (004-16):
    ``pair-only`` the winning tile completes the pair; ``edge-closed-too`` also an edge or
    closed chow wait."""
    if v.hand.winning_tile is None or len(waits16(v.hand)) != 1:
        return False
    ok = ("pair",) if v.opts["single_wait"] == "pair-only" else ("pair", "edge", "closed")
    return v.d.wait in ok


def false_single(v: "View") -> bool:
    """假獨 (004:1): the winning tile completes the pair, but the hand waited on more than one tile."""
    return v.hand.winning_tile is not None and v.d.wait == "pair" and len(waits16(v.hand)) > 1


def dual_pung(v: "View") -> bool:
    """對碰 (004:2): the winning tile turned one of two pairs into a pung."""
    return v.d.wait == "pung"


def generals_eyes(v: "View") -> Any:
    """將眼 (004:1). Option ``generals_eyes`` (004-17): ``258-pair`` one firing per pair of 2, 5 or 8
    (a 嚦咕 may have several, 004:36); ``winning-on-pair`` the winning tile completed the pair."""
    if v.opts["generals_eyes"] == "winning-on-pair":
        return v.d.wait == "pair"
    return [_name(m) for m in v.pairs if m.tile in TWO_FIVE_EIGHT]


# =============================================================================== circumstances
def concealed_hand(v: "View", self_drawn: bool) -> bool:
    """門清 (``self_drawn=False``, won on a discard) / 門清摸 (self-drawn) (004:11): nothing claimed
    from discards. A concealed kong keeps it under option ``concealed_with_kong=yes`` (004-13)."""
    if v.ctx.self_drawn != self_drawn:
        return False
    for m in v.hand.melds:
        if not m.concealed or v.opts["concealed_with_kong"] == "no":
            return False
    return True


def begging(v: "View", self_drawn: bool) -> bool:
    """全求人 (discard) / 半求人 (self-drawn) (004:19): all five sets claimed and exposed on the
    table, the pair completed by the winning tile; no concealed kong ("cannot 暗槓")."""
    sets = v.hand.melds
    if len(sets) != 5 or any(m.concealed for m in sets):
        return False
    return v.ctx.self_drawn == self_drawn


def within_discards(v: "View", n: int) -> bool | str:
    """十張內 / 七張內 / 四張內 (004:22–23): at most ``n`` discarded tiles lying in the middle of the
    table (``Context.discards``; the winning tile not counted). Option ``within`` (004-22):
    ``highest`` only the tightest threshold met counts, ``each`` every threshold met. A first-turn win of
    天地胡's kinds (:attr:`scoring.hand.Context.dealt_first_turn`; the rule is a winner's) with no count given has
    at most 3 (0 for the dealer's first draw, :func:`check_hand`): 四張內 whatever the count (a tester's
    first-turn row with an empty discards cell had lost its 40 points without a word)."""
    d = v.ctx.discards
    inferred = d is None and v.ctx.dealt_first_turn
    if inferred:
        d = 0 if v.ctx.is_dealer else 3
    if d is None or d > n:
        return False
    if v.opts["within"] == "highest" and any(d <= m for m in (4, 7, 10) if m < n):
        return False
    # (the line says where the count came from: a referee read +40 with no --discards given as unexplained)
    return (f"a first-turn win (--first-turn): " + ("no discard lies in the middle" if d == 0 else
                                                     f"at most {d} discards lie in the middle")
            + ", no --discards given") if inferred else True


def dealer(v: "View") -> bool:
    """莊 (004:1): the winner is the dealer (004-15 reading a; reading b adds it to the dealer's
    payment in :func:`settle`)."""
    return v.ctx.is_dealer


def dealer_streak(v: "View") -> Any:
    """連莊 (004:2): the dealer wins again after ``Context.dealer_streak`` ≥ 1 deals kept. Option
    ``dealer_streak_points`` (004-15): ``flat`` one firing (2), ``per-deal`` one firing per deal."""
    from ..engine import Fired

    k = v.ctx.dealer_streak
    if not v.ctx.is_dealer or k < 1:
        return False
    return Fired(k if v.opts["dealer_streak_points"] == "per-deal" else 1, (f"streak {k}",))


def chicken(v: "View", win: str, not_counted: Sequence[str] = (), ignored: Sequence[str] = ()) -> bool:
    """大雞胡/小雞胡 candidates (004:10); whether the hand scores "ONLY 1 point" is decided in
    :func:`combine` (``not_counted``: the rules left out of that count, e.g. 莊/連莊).

    ``win``: ``discard``, ``self-drawn`` or ``any``.
    """
    if v.d.shape == EIGHT_FLOWERS:
        return False
    if win == "any":
        return True
    return v.ctx.self_drawn == (win == "self-drawn")


def concealed_kongs_not_shown(v: "View") -> list[str]:
    """暗槓 not shown (004:42): flag ``concealed-kong-not-shown``; one firing per concealed kong."""
    if "concealed-kong-not-shown" not in v.ctx.flags:
        return []
    return [_name(m) for m in v.kongs if m.concealed]


# =============================================================================== special forms (004:36–39, 47)
def true_sixteen(v: "View") -> bool:
    """真十六不搭 (004:38): 十六不搭 whose suits hold {1,4,7}, {2,5,8} and {3,6,9}, one each."""
    if v.d.shape != SIXTEEN:
        return False
    pats = sorted(tuple(sorted({rank(t) for t in v.tile_set if t[1] == s})) for s in SUITS)
    return pats == [(1, 4, 7), (2, 5, 8), (3, 6, 9)]


def two_readings(v: "View") -> bool:
    """兩吃 (004:47): this 嚦咕 reading also reads as 5 sets + a pair (scored in :func:`finalize`)."""
    return v.d.shape == LIK_GU and is_standard_complete(tuple(counts34(v.hand.concealed)))


def not_thirteen(v: "View", predicate: str) -> bool:
    """``predicate`` holds and the reading is not 十三腰 (for the 004-23 'listed' notes)."""
    return v.d.shape != THIRTEEN and bool(globals()[predicate](v))


def only_honours16(v: "View") -> bool:
    """字一色 (004:29): every tile an honour."""
    return v.tile_set <= HONOURS


# =============================================================================== hooks
def check_hand(hand: Hand, ruleset: "Ruleset", options: Mapping[str, Any]) -> None:
    """Tile count of the 16-tile game: a winner holds 17 (each meld on the table counts 3, a kong
    too) — or 16 when all eight flowers make the instant 八隻花 win (004:44–46, "cannot pick up
    another tile": self-drawn, and with no winning tile among the 16); a non-winner holds 16
    (``robbed-concealed-kong`` for a non-winner or without a win by robbed-kong is :data:`WIN_FLAGS`', checked
    first by :func:`scoring.engine.check_context_flags`). Raises :class:`HandError`."""
    n = hand.tile_count
    if not hand.context.winner:
        if n != 16:
            raise HandError(f"a non-winning hand needs 16 tiles in the 16-tile game (each meld on the table counts 3, a kong too), found {n}")
        return
    if n == 16 and BONUS <= set(hand.bonus) and hand.context.win_by in ("discard", "robbed-kong"):
        # (the 16-tile hand is the instant win on the eighth flower, a tile drawn from the wall or, as a
        # flower's or kong's replacement, from the dead wall: 004:45 "自摸+莊 … can also count 槓上自摸";
        # a tester's discard win had been settled with the discarder paying)
        raise HandError(
            "the 16-tile 八隻花 hand is the instant win on drawing the eighth flower, self-drawn (004:45 自摸): "
            f"it cannot be won by {hand.context.win_by}; give win by wall, or dead-wall for a replacement tile")
    if n == 16 and BONUS <= set(hand.bonus) and hand.winning_tile is not None:
        # (the tile that wins it is the eighth flower, a bonus tile, and no tile of the 16 was drawn with it,
        # 004:46 "cannot pick up another tile": a tester's -w 7z was scored without a word)
        raise HandError(
            "the 16-tile 八隻花 hand is won on drawing the eighth flower (004:45–46, 'cannot pick up another "
            f"tile'): none of its 16 tiles is the winning tile, yet {hand.winning_tile} is given as one; "
            "leave the winning tile out")
    if not (n == 17 or (n == 16 and BONUS <= set(hand.bonus))):
        raise HandError(
            f"a winning hand needs 17 tiles in the 16-tile game (each meld on the table counts 3, a kong too; "
            f"16 only for the instant win with all eight flowers), found {n}")
    c = hand.context  # (after the tile count: a tester's 18 tiles had been told of the discards alone)
    if c.winner and c.dealt_first_turn and c.discards is not None and c.discards > (0 if c.is_dealer else 3):
        # (a referee's 天胡 with --discards 9 was scored with 十張內: the dealer's first draw comes before any
        # discard; another's first turn sees at most the three discards before his own draw)
        most = 0 if c.is_dealer else 3
        raise CircumstanceError(
            f"a hand won on the first turn has at most {most} discard{'' if most == 1 else 's'} on the table "
            f"({'the dealer draws first' if c.is_dealer else 'those before its own first draw'}), not "
            f"{c.discards}: say one of first turn, discards")


def apply_exclusions(fired, opts):
    """Exclusions with "an excluded rule excludes nothing" (004:15/16/34 drop 無字花, which then
    no longer replaces 無花), then the engine's group rule (highest in each group).

    A fired rule is kept when no kept rule excludes it; rules caught in an exclusion cycle are
    dropped. Returns the kept ``(rule, fired)`` pairs in ruleset order.
    """
    from ..engine import apply_exclusions as engine_exclusions

    ids = [r.id for r, _ in fired]
    excluders: dict[str, set[str]] = {i: set() for i in ids}
    for r, _ in fired:
        for x in r.excludes:
            if x in excluders and x != r.id:
                excluders[x].add(r.id)
    kept: set[str] = set()
    dropped: set[str] = set()
    changed = True
    while changed:
        changed = False
        for i in ids:
            if i in kept or i in dropped:
                continue
            if excluders[i] & kept:
                dropped.add(i)
                changed = True
            elif excluders[i] <= dropped:
                kept.add(i)
                changed = True
    return engine_exclusions([(r, f) for r, f in fired if r.id in kept], opts)


def combine(lines: Sequence["Line"], ruleset: "Ruleset", view: "View") -> "Totals":
    """Sum the points (cash apart) after applying 雞胡 (004:10): a chicken line stands only when the
    other points, leaving out its ``not_counted`` rules (莊, 連莊, 底: kept and added) and its
    ``ignored`` rules (自摸 under option chicken_hand=discard-or-self-drawn: dropped), total exactly
    1; it then replaces them (:func:`_as_chicken`). Otherwise the chicken lines are dropped."""
    from ..engine import default_combine

    chickens = [ln for ln in lines if ln.rule in _chicken_ids(ruleset)]
    if chickens:
        params = ruleset.rule(chickens[0].rule).params
        skip_ids = set(params.get("not_counted", ())) | set(params.get("ignored", ()))
        own = sum(ln.points for ln in lines
                  if ln.kind == "points" and ln not in chickens and ln.rule not in skip_ids)
        lines = _as_chicken(lines, chickens, ruleset) if own == 1 else [ln for ln in lines if ln not in chickens]
    return default_combine(lines, ruleset, view)


def combine_claim(lines: Sequence["Line"], ruleset: "Ruleset", view: "View") -> "Totals":
    """The total of a claim's lines (``audit --claimed-lines``, :func:`vision.audit.add_up_claims`): as
    :func:`combine`, but a claimed 雞胡 line always replaces the other points claimed (:func:`_as_chicken`),
    whatever they total. Whether the hand has "ONLY 1 point" (004:10) is a judgement of the hand, not of the
    adding up: a claim of 大雞胡 lists the 25 and 底 without the point the chicken replaced, and :func:`combine`
    would drop the chicken for want of that point (25 + 5 claimed would add up to 5)."""
    from ..engine import default_combine

    chickens = [ln for ln in lines if ln.rule in _chicken_ids(ruleset)]
    return default_combine(_as_chicken(lines, chickens, ruleset) if chickens else lines, ruleset, view)


def _as_chicken(lines: Sequence["Line"], chickens: Sequence["Line"], ruleset: "Ruleset") -> list["Line"]:
    """``lines`` counted as a 雞胡 (004:10): the highest of ``chickens`` (lines of ``lines``, at least one)
    instead of the other points, with the ``not_counted`` rules of its params (莊, 連莊, 底) and the cash and
    note lines kept."""
    top = max(chickens, key=lambda ln: ln.points)
    keep_ids = set(ruleset.rule(chickens[0].rule).params.get("not_counted", ()))
    return [ln for ln in lines if ln is top or ln.rule in keep_ids or ln.kind in ("cash", "note")]


def _chicken_ids(ruleset: "Ruleset") -> set[str]:
    return {r.id for r in ruleset.rules if r.predicate is chicken}


def _best_of(hand: Hand, ruleset: "Ruleset", opts: Mapping[str, Any], shapes: Iterable[str]):
    from ..engine import score_decomposition

    best = None
    for d in decompositions(hand, ruleset.shapes):
        if d.shape not in shapes:
            continue
        totals, valid = score_decomposition(hand, d, ruleset, opts)
        if valid and (best is None or totals.total > best[0].total):
            best = (totals, d)
    return best


def finalize(result: "ScoredHand", ruleset: "Ruleset", options: Mapping[str, Any]) -> "ScoredHand":
    """After the best reading is chosen:

    * 兩吃 (004:47, RULINGS 004-38, option ``double_win``): a hand that reads both as 嚦咕 and as
      5 sets + a pair scores as two separate hands added, with one 底: the lines of both readings
      (each line's detail names its reading), the second 底 dropped;
    * 搶暗槓 (004:40): with flag ``robbed-concealed-kong`` only a 十三腰 may win — otherwise the
      result is "not allowed";
    * notes on 包自摸 (004:28, 004:51) for the settlement.
    """
    hand = result.hand
    notes = list(result.notes)
    if hand.context.winner and options["double_win"] == "two-hands":
        lg = _best_of(hand, ruleset, options, (LIK_GU,))
        st = _best_of(hand, ruleset, options, (STANDARD,))
        if lg and st:
            base_ids = {BASE_RULE}
            second = [ln for ln in st[0].lines if ln.rule not in base_ids]
            dropped = sum(ln.points for ln in st[0].lines if ln.rule in base_ids)
            tag = lambda ln, which: replace(ln, detail=(f"{which}; {ln.detail}" if ln.detail else which))
            lines = tuple(tag(ln, "嚦咕 reading") for ln in lg[0].lines) + tuple(
                tag(ln, "5 sets + pair reading") for ln in second)
            notes.append(
                f"兩吃 — double win: scored as two hands, {lg[0].total} (嚦咕) + {st[0].total} "
                f"(5 sets + pair) − {dropped:g} (only one 底) ({SEED}:47; option double_win=two-hands, 004-38); "
                f"second reading: {st[1].describe()}")
            result = replace(result, total=lg[0].total + st[0].total - int(dropped),
                             points=lg[0].points + st[0].points - dropped, lines=lines,
                             decomposition=lg[1], cash=lg[0].cash, alternatives=())
    if "robbed-concealed-kong" in hand.context.flags and result.decomposition.shape != THIRTEEN:
        # no mahjong: it scores 0 like every refused mahjong; the figure it would have had is kept
        # in the status (the lines still show how)
        result = replace(result, total=0, allowed=False,
                         status=f"not allowed: only 十三腰 may rob a concealed kong (搶暗槓, {SEED}:40); "
                                f"it would have scored {result.total}")
    names = {ln.rule for ln in result.lines}
    if names & {"big-three-dragons", "big-four-joys"}:
        fam = DRAGONS if "big-three-dragons" in names else WINDS
        if any(m.kind == "pung" and not m.concealed and m.tile in fam for m in result.decomposition.melds):
            how = ("only if the last set was claimed by pung (碰), not as a kong"
                   if options["big_hand_liability"] == "pung-claim" else "only when every set is a pung")
            notes.append(f"包自摸: whoever discarded the tile that completed the last set of 大三元/大四喜 "
                         f"pays for all three ({how}; option big_hand_liability, 004-25; {SEED}:28) — "
                         "settle with liable=PLAYER")
    if "pure-one-suit" in names and len([m for m in hand.melds if not m.concealed or m.kind == "kong"]) >= 5:
        notes.append(f"包自摸: whoever fed the discard that made the fifth set on the table (15 tiles, a kong "
                     f"counts) pays for all three ({SEED}:51, 004-36) — settle with liable=PLAYER")
    return replace(result, notes=tuple(notes))


def liable_problem(scored: Any, liable: str) -> str | None:
    """Why ``liable`` (settle option ``liable``: 包自摸) cannot pay for the winner's hand ``scored`` (a
    :class:`scoring.ScoredHand`), or None: 包自摸 is for 大三元/大四喜 whose last set was fed by a claimed pung
    (004:28) and for 清一色 fed to five sets on the table (004:51), the hands whose score carries the
    "包自摸" note (:func:`score_hook`). A tester's plain hand had been settled with a liable player paying
    for all three."""
    if any(str(n).startswith("包自摸") for n in getattr(scored, "notes", ())):
        return None
    return (f"settle option liable={liable}: 包自摸 is for 大三元/大四喜 completed by a claimed pung ({SEED}:28) or "
            f"清一色 fed to five sets on the table ({SEED}:51), and the winner's hand is neither")


def notes_for(hand: Hand, opts: Mapping[str, Any]) -> list[str]:
    """Notes shown with the score (strings): how ``--discards`` is read for 十張內 (004:23), and a dealer
    streak (連莊, 004:2) given for a player who is not the dealer — it scores nothing in that hand, yet it is
    no mistake to give: the streak is the table's, and under ``dealer_point=any-dealer-payment`` (004-15 b)
    the dealer adds 莊 1 + 連莊 to what he pays a non-dealer winner, in the settlement (its option
    ``dealer_streak``; :func:`settle`)."""
    out = []
    ctx = hand.context
    if ctx.winner and ctx.discards is None and not ctx.dealt_first_turn:  # (a first turn: at most 3, 四張內)
        out.append("十張內/七張內/四張內 need --discards N: the discarded tiles lying in the middle "
                   f"of the table when the hand is won, the winning tile not counted ({SEED}:22–23)")
    if ctx.dealer_streak >= 1 and not ctx.is_dealer:
        who = ("said not to be the dealer" if ctx.dealer is False
               else f"not the dealer (seat wind {ctx.seat_wind}, the dealer is East unless said)")
        out.append(f"連莊: the dealer streak {ctx.dealer_streak} is the dealer's ({SEED}:2), and this player is "
                   f"{who}: it scores nothing in this hand; it counts only in the dealer's payment to a non-dealer "
                   "winner, under option dealer_point=any-dealer-payment (004-15), when the hand is settled "
                   f"with settlement option dealer_streak={ctx.dealer_streak}")
    return out


# =============================================================================== settlement (004-01)
#: 底, in every win (004:41; the ruleset's rule ``base``)
BASE_POINTS = 5
#: the least a winner's hand scores, and why: 底 is in every win (004:41), so a winner's score of 0 is a score not
#: given (scoring.settle.check_winner_scores refuses a score below it, after this scheme's own refusals, for every
#: winner: the second winner of a double win too, SETTLE_WINNERS)
WINNER_SCORES_AT_LEAST = (BASE_POINTS, f"底 {BASE_POINTS} ({SEED}:41)")
SETTLE_KEYS = ("win_by", "discarder", "liable", "also_won", "cash", "false_win", "dealer_streak")
#: every option :func:`settle` takes: its own keys and the ruleset options it reads (scoring.settle.settle
#: refuses others, naming these)
SETTLE_OPTIONS = SETTLE_KEYS + ("cash_from", "cash_when_void", "dealer_point", "dealer_streak_points")
#: the settlement options of :func:`settle` that describe one hand (who discarded, who is liable …), not the
#: table: a batch of several hands takes them from each hand's ``settle`` cell, never one ``--settle-option``
#: for all (vision.batch_outputs.check_settle_options)
SETTLE_PER_HAND = ("discarder", "liable", "also_won", "cash", "false_win")
#: the settlement options of :func:`settle` that name another winner of the hand (一炮雙響, 004:52), whose score
#: scoring.settle.check_winner_scores holds to WINNER_SCORES_AT_LEAST as the winner's
SETTLE_WINNERS = ("also_won",)
#: the settlement options of :func:`settle` that name one player, and those that give players amounts
#: (``cash=E:5,S:3``): a batch reads a seat wind given in them as the player in that seat
#: (scoring.settle.players_for_seats)
SETTLE_PLAYERS = ("discarder", "liable", "also_won", "false_win")
SETTLE_PLAYER_AMOUNTS = ("cash",)
#: the settlement options of :func:`settle` whose values are words, taken in any case as a ruleset option's
#: choices are (scoring.settle.same_settle_value); the others name players, whose labels keep their case
SETTLE_CHOICES = {"win_by": ("discard", "self-drawn", "robbed-kong", "wall", "dead-wall")}
#: the settlement options of :func:`settle` that are counts, read and compared as numbers (``dealer_streak=02``
#: is 2: scoring.settle.settle_whole_number, same_settle_value)
SETTLE_WHOLE_NUMBERS = ("dealer_streak",)


def collects_void_cash(options: Mapping[str, Any]) -> bool:
    """Whether the cash a hand shows (暗槓 $5, 台花 $5, 台草 $3, 004:42–43) is collected in a hand nobody won, under
    the resolved ruleset ``options`` (``Ruleset.resolve_options``: its default, ``collected``, is the TOML file's,
    read nowhere else): option ``cash_when_void`` (004-33; the $ items are "immediate cash payments, not points",
    004 rendering line 12, INFERRED). The one reading of :func:`settle` and
    :func:`scoring.settle.void_cash_collected` (a void hand's hand that cannot be scored is noted only when its
    cash would be collected)."""
    return options["cash_when_void"] == "collected"


def _player(name: str, value: Any, players: Sequence[str]) -> str:
    v = unicodedata.normalize("NFC", str(value))  # (as the players' labels are: scoring.settle.player_label)
    if v not in players:
        raise RulesetError(f"settle option {name}={v}: not one of the players {', '.join(players)}")
    return v


#: the most cash a settlement option may name for one player, in dollars: a score's bound
#: (:data:`scoring.hand.MAX_SCORE`; a hand's 暗槓/台花/台草 are a few dollars, and past 2^53 a float no longer
#: holds whole dollars)
CASH_MAX = MAX_SCORE


def parse_cash(raw: Any, players: Sequence[str]) -> dict[str, float]:
    """``"E:10,S:3"`` or a mapping → {player: cash each player collects} (a hook of the settlement: also read by
    :func:`scoring.settle.cash_replaced_note`). Raises RulesetError for a player not of ``players``, an amount
    that is no finite number, a player named twice."""
    if not raw:
        return {}
    items = raw.items() if isinstance(raw, Mapping) else (p.split(":", 1) for p in str(raw).split(","))
    out: dict[str, float] = {}
    for item in items:
        try:
            p, amount = item
            value = float(amount)
        except ValueError:
            raise RulesetError(f"settle option cash must look like E:10,S:3, not {raw!r}") from None
        # (its own error: an unknown player had been told the cash "must look like E:10,S:3", a tester's)
        who = _player("cash", str(p).strip(), players)
        # (a tester's E:nan and E:inf were printed as $nan, and E:5,E:5 counted once; a negative amount is one
        # paid back, 暗槓不亮's $10 to each player, 004:42)
        if not math.isfinite(value):
            raise RulesetError(f"settle option cash: {who}'s amount must be a number of dollars, not {amount!r}")
        # (a tester's cash=A:1e25 was refused by an internal check's "cash does not sum to zero: {…}", and
        # A:12345678901234567890123 paid as 12345678901234567741440: bounded as a score is)
        if abs(value) > CASH_MAX:
            shown = amount.strip() if isinstance(amount, str) else amount
            raise RulesetError(f"settle option cash: {who}'s amount {shown} is more than any hand collects (at most "
                               f"{CASH_MAX:,} dollars): check it")
        if who in out:
            raise RulesetError(f"settle option cash names {who} twice: give each player's cash once, summed")
        out[who] = value
    return out


def settle(scores: Mapping[str, int], winner: str | None, east: str,
           options: Mapping[str, Any] | None = None):
    """Who pays whom for one hand of ``hk-tw-16`` (RULINGS 004-01; seed 004 lines 1, 2, 28, 42–43,
    47, 50–52). Points and cash are settled apart.

    * ``scores``: player → hand points (only the winner's is used; it already holds 底 and, for a
      dealer winner, 莊/連莊); ``winner``: a player or None; ``east``: the dealer.
    * ``options``: ``win_by`` = ``discard`` (default; also ``robbed-kong``, the robbed player paying
      as the discarder, 004-31) or ``self-drawn`` (also ``wall``/``dead-wall``), in any case; ``discarder`` = P
      (needed for a discard win); ``liable`` = P: 包自摸 (004:28, 51), P pays what all three would pay
      on a self-draw; ``also_won`` = Q: 一炮雙響 (004:52, 004-37 reading a), Q also won on the same
      discard and is paid by the discarder separately; ``cash`` = ``E:5,S:3`` cash each player
      collects (暗槓 $5, 台花 $5, 台草 $3 as reported by ``hand``), ruleset option ``cash_from`` =
      ``each`` (default: from each other player, 004-32/33) or ``total`` (split over the others,
      whole dollars, the remainder from the first), and with no winner (a void hand) ruleset option
      ``cash_when_void`` = ``collected`` (default: the $ items are immediate payments, 004 rendering line 12,
      INFERRED; 004-33)
      or ``not-collected`` (a note names it either way when it decides cash); ``false_win`` = P with no winner: 假胡, P pays
      $50 to each player and the game is replayed (004:50);
      ``dealer_point`` = ruleset option (004-15): ``winner-is-dealer`` or ``any-dealer-payment``
      (the dealer adds 莊 1 + 連莊 to what he pays a non-dealer winner); ``dealer_streak`` = N and
      ``dealer_streak_points`` = ``flat``/``per-deal`` for that 連莊. A ``dealer_streak`` ≥ 1 that changes no
      payment gets a note saying why: the dealer won (his 連莊 is in his score), or a non-dealer won under
      ``dealer_point=winner-is-dealer``.

    Returns a :class:`scoring.settle.Settlement` (points in ``net``/``transfers``; cash in ``cash``,
    described in ``notes``). Raises :class:`RulesetError` for an unknown option or player and
    ValueError for a bad score. A winner's score under 底 5 (each winner's, ``also_won``'s too) is refused after
    this scheme's own refusals, by :func:`scoring.settle.check_winner_scores` (:data:`WINNER_SCORES_AT_LEAST`).
    """
    from ..engine import load_ruleset
    from ..settle import Transfer, from_transfers, settle_whole_number

    options = dict(options or {})
    players = list(scores)
    rs = load_ruleset(RULESET_ID)
    rs_opts = rs.resolve_options({k: v for k, v in options.items() if k not in SETTLE_KEYS})
    for p, s in scores.items():
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"score of {p} must be a whole number ≥ 0, not {s!r}")
    notes: list[str] = []
    transfers: list[Transfer] = []
    given = str(options.get("win_by", "discard"))
    win_by = given.strip().lower()  # (in any case, as a ruleset option's choice: win_by=Self-Drawn)
    if win_by in ("wall", "dead-wall"):
        win_by = "self-drawn"
    if win_by not in SETTLE_CHOICES["win_by"]:
        raise RulesetError(f"settle option win_by must be discard, self-drawn or robbed-kong, not {given!r}")
    # (digits only: int() takes "1_0" and other scripts' digits; "02" is 2)
    streak = settle_whole_number("dealer_streak", options.get("dealer_streak", 0))
    extra_dealer = 0
    if rs_opts["dealer_point"] == "any-dealer-payment":
        extra_dealer = 1 + (0 if streak < 1 else (2 * streak if rs_opts["dealer_streak_points"] == "per-deal" else 2))

    def due(w: str, payer: str) -> int:
        amount = scores[w]
        if payer == east and w != east and extra_dealer:
            amount += extra_dealer
        return amount

    if winner is not None and options.get("false_win"):
        raise RulesetError("假胡 (false_win) replays the game: settle it with no winner")
    said = [k for k in ("discarder", "liable", "also_won") if options.get(k)]
    if winner is None and said:  # (a tester's void settlement with a discarder was accepted without a word)
        raise RulesetError(f"settle option{'s' if len(said) > 1 else ''} {', '.join(said)} "
                           f"{'describe' if len(said) > 1 else 'describes'} a win, but nobody won (a void hand)")
    if winner is not None:
        winners = [winner]
        if options.get("also_won"):
            winners.append(_player("also_won", options["also_won"], players))
            if win_by == "self-drawn":
                raise RulesetError("一炮雙響 (also_won) needs a discard win")
            if winners[1] == winner:  # (a tester's also_won=S with winner S had S paid twice)
                raise RulesetError(f"settle option also_won names the other winner of the same discard, not the "
                                   f"winner {winner}")
        liable = _player("liable", options["liable"], players) if options.get("liable") else None
        if liable in winners:  # (a tester's liable=S with winner S had S pay S: every net 0)
            raise RulesetError(f"settle option liable names the player who pays for all three (包自摸), not a "
                               f"winner ({liable})")

        def all_three(w: str) -> list[int]:
            """What each of the three others would pay ``w`` on a self-draw (the 包自摸 amount is their sum)."""
            return [due(w, p) for p in players if p != w]

        if win_by == "self-drawn":
            if options.get("discarder"):  # (was silently ignored)
                raise RulesetError(f"settle: a self-drawn win has no discarder (discarder={options['discarder']} "
                                   f"given); is it a discard win?")
            if liable:
                transfers.append(Transfer(liable, winner, sum(all_three(winner)),
                                          f"包自摸: pays for all three ({SEED}:28/51, RULINGS 004-01)"))
            else:
                transfers.extend(Transfer(p, winner, due(winner, p), "self-drawn: each of the three pays (RULINGS 004-01)")
                                 for p in players if p != winner)
        else:
            if not options.get("discarder"):
                raise RulesetError("settle: a discard win needs discarder=PLAYER (or win_by=self-drawn)"
                                   if win_by == "discard" else
                                   "settle: a robbed-kong win needs discarder=PLAYER, the player robbed (004-31)")
            disc = _player("discarder", options["discarder"], players)
            why = ("discarder pays" if win_by == "discard"
                   else "robbed kong: the robbed player pays as the discarder (004-31)")
            for w in winners:
                if disc == w:
                    raise RulesetError(f"settle: the discarder {disc} cannot be the winner")
                if liable and w == winner:  # (包自摸 is the fed hand's, the winner's: not also_won's — a breaker's
                    # liable player paid both winners of one discard, while the note said the discarder paid them)
                    # (the hand as won, on the discard: a referee read "what all three would pay on a self-draw" as
                    # the hand scored again as self-drawn, +1 自摸, which 004:28 does not say; the payment is for all
                    # three players, of the score given)
                    shares = all_three(w)
                    transfers.append(Transfer(liable, w, sum(shares),
                                              f"包自摸: pays for all three, 3 shares of the hand's {scores[w]} as "
                                              f"won on the discard ({' + '.join(map(str, shares))} = {sum(shares)}), "
                                              f"not scored again as self-drawn ({SEED}:28/51, RULINGS 004-01)"))
                else:
                    transfers.append(Transfer(disc, w, due(w, disc), f"{why} (RULINGS 004-01)"))
            if len(winners) > 1 and liable:
                notes.append(f"一炮雙響: the other winner {winners[1]} is paid by the discarder {disc}; 包自摸 "
                             f"(liable={liable}) is for the hand it fed, the winner {winner}'s ({SEED}:28/51-52, 004-37 "
                             f"reading a)")
            elif len(winners) > 1:
                notes.append(f"一炮雙響: both winners are paid by the discarder ({SEED}:52, 004-37 reading a)")
        if extra_dealer and east not in winners:
            # (the note had said "+N on the dealer's payment" when the dealer paid nothing: another player
            # discarded and paid alone, or a liable player other than the dealer paid for all three)
            opt = "option dealer_point=any-dealer-payment, 004-15"
            paid = [t for t in transfers if t.payer == east]
            if liable:
                notes.append(f"莊/連莊 +{extra_dealer} in the 包自摸 payment: the dealer {east}'s share of what "
                             f"all three would pay ({opt})")
            elif paid:
                to = ", ".join(t.payee for t in paid)
                notes.append(f"莊/連莊 +{extra_dealer} on the dealer {east}'s payment to {to} ({opt})")
            else:
                payer = ", ".join(sorted({t.payer for t in transfers}))
                notes.append(f"莊/連莊 changed nothing: the dealer {east} paid nothing in this hand, "
                             f"{payer} paid alone ({opt})")
        if streak >= 1 and east in winners:
            # (a tester's settle -o dealer_streak=3 with the dealer winning changed nothing without a word)
            notes.append(f"連莊: dealer_streak={streak} adds nothing to the payments: the dealer {east} won, and a "
                         f"dealer winner's 連莊 ({SEED}:2) is part of his hand score (`table` and the web's "
                         f"settlement score the dealer's hand with this streak; a score given alone must hold it)")
        elif streak >= 1 and not extra_dealer:
            notes.append(f"連莊: dealer_streak={streak} changes nothing: the winner is not the dealer, and under "
                         f"dealer_point=winner-is-dealer (the default, 004-15) 莊/連莊 count only in a dealer "
                         f"winner's hand ({SEED}:1–2); dealer_point=any-dealer-payment has the dealer {east} add "
                         f"them to what he pays")
        notes.append(f"底 is in the winner's score once ({SEED}:41, 47)")
    else:
        notes.append("no winner: no points change hands")
    cash = {p: 0.0 for p in players}
    mode = rs_opts["cash_from"]
    items = parse_cash(options.get("cash"), players)
    if winner is None and any(items.values()):
        # the cash of a hand nobody won (004-33: "at completion or at settlement?"): the $ items are "immediate
        # cash payments, not points" (004 rendering line 12, INFERRED: the seed says "$5", 004:42–43), paid when
        # the kong or the set is made (option cash_when_void). A negative amount is a penalty paid back
        # (暗槓不亮, a concealed kong not shown: $10 back to each player, 004:42), said as one
        got = ", ".join(f"{p} {dollars(a)}" for p, a in items.items() if a > 0)
        back = ", ".join(f"{p} {dollars(a)}" for p, a in items.items() if a < 0)
        source = "004 rendering line 12, INFERRED"
        if not collects_void_cash(rs_opts):
            what = " or ".join(w for w, x in (("collected", got), ("paid back", back)) if x)
            notes.append(f"cash: none {what}, nobody won ({', '.join(x for x in (got, back) if x)} not {what}; "
                         f"option cash_when_void=not-collected, 004-33)")
            items = {}
        else:
            penalty = back and (f"a penalty paid back{'' if got else ' though nobody won'} ({back}: 暗槓不亮, a "
                                f"concealed kong not shown, {SEED}:42)")
            said = ", and ".join(x for x in (got and f"collected though nobody won ({got})", penalty) if x)
            notes.append(f"cash: {said}: the $ items are immediate payments, made when the kong or the set is "
                         f"({source}; option cash_when_void=collected, 004-33)")
    for p, amount in items.items():
        others = [q for q in players if q != p]
        if mode == "each":
            for q in others:
                cash[q] -= amount
                cash[p] += amount
            notes.append(f"cash: {p} pays back {dollars(-amount)} to each other player ({SEED}:42)" if amount < 0 else
                         f"cash: {p} collects {dollars(amount)} from each other player ({SEED}:42–43)")
        else:
            whole = int(amount)
            share, rest = divmod(whole, len(others))
            for k, q in enumerate(others):
                pay = share + (1 if k < rest else 0)
                cash[q] -= pay
                cash[p] += pay
            notes.append(f"cash: {p} pays back {dollars(-whole)} in total, split over the others ({SEED}:42)"
                         if whole < 0 else f"cash: {p} collects {dollars(whole)} in total, split over the others "
                                           f"({SEED}:42–43)")
    if options.get("false_win"):
        fw = _player("false_win", options["false_win"], players)
        for q in players:
            if q != fw:
                cash[q] += 50
                cash[fw] -= 50
        notes.append(f"假胡: {fw} pays $50 to each player and the game is replayed ({SEED}:50)")
    if abs(sum(cash.values())) > 1e-9:
        raise ValueError(f"cash does not sum to zero: {cash}")
    cash = {p: (int(c) if float(c).is_integer() else c) for p, c in cash.items()}
    if any(cash.values()):
        # (to the cent, no exponent: a tester's cash=E:1234567 had been said "E +3.7037e+06")
        notes.append("cash net (apart from points): " + ", ".join(
            f"{p} {'-' if round(c, 2) < 0 else '+'}{dollars(abs(c))[1:]}" for p, c in cash.items()))
    return from_transfers(RULESET_ID, "hk-tw-16", players, transfers, notes, cash)
