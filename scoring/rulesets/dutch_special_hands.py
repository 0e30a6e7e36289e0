"""Predicates and hooks of the Dutch special-hands sheet (seed 000_f626c313f8929ba8.txt).

Rules are in ``dutch_special_hands.toml``; each special hand is one rule whose predicate is a small
pure function here, named after the hand. The seed's five parts:

1. open special hands (000:1-64): 4 pungs/kongs + a pair of given tiles, read from a ``standard``
   decomposition (exposed sets allowed, AMBIGUITIES 000-30 a);
2. closed special hands (000:65-150): tile-multiset patterns read from the ``irregular`` reading
   (every tile loose); a hand with an exposed meld never matches. A concealed kong on the table
   counts as the pung it contains (000:116 says "(geen kongs)" for one hand, so kongs are otherwise
   allowed where a pung is asked), so a closed pattern always has 14 tiles;
3. the point table PUNTENTELLING (000:151-166), 4. the doublings VERDUBBELEN (000:167-182) and
5. the announced waiting hand WACHTEND SPEL (000:183-188) — see :func:`combine`.

Flags (``--flag NAME``) for circumstances :class:`scoring.hand.Context` has no field for:

* ``dealt-waiting`` — the 13 dealt tiles were already a waiting hand (Spel uit de Aarde, 000:150);
* ``hand-unchanged`` — … and the player won without changing them (000-22 reading a).
"""
from __future__ import annotations

from collections import Counter
from itertools import permutations
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import HandError
from ..hand import Hand, WinFlag
from ..notation import check_size
from ..predicates import category as shared_category
from ..tiles import (DRAGONS, HONOURS, PLAYING_TILES, SUITS, TERMINALS, TERMINALS_AND_HONOURS,
                     WINDS, sort_tiles)

if TYPE_CHECKING:
    from ..engine import Line, Ruleset, Totals, View

SEED = "000_f626c313f8929ba8.txt"
FLAGS = frozenset({"dealt-waiting", "hand-unchanged"})
#: both flags describe a win (Spel uit de Aarde, 000:150), refused for a non-winner (scoring.engine.check_win_flags)
WIN_FLAGS = {"dealt-waiting": WinFlag("Spel uit de Aarde", "000:150"),
             "hand-unchanged": WinFlag("Spel uit de Aarde", "000:150, 000-22 reading a")}

#: "groene bamboes zijn 2,3,4,6 en 8" (000:4)
GREEN_BAMBOO = frozenset({"2s", "3s", "4s", "6s", "8s"})
#: "rode bamboes zijn 1,5,7 en 9" (000:12)
RED_BAMBOO = frozenset({"1s", "5s", "7s", "9s"})
#: "bijbehorende draken" (000:127, 000:130): characters–red, bamboo–green, circles–white, the only
#: association in the document (Snake e–g, 000:77-79; AMBIGUITIES 000-20 INFERRED)
ASSOCIATED_DRAGON = {"m": "7z", "s": "6z", "p": "5z"}
EACH_WIND = Counter(sorted(WINDS))
EACH_DRAGON = Counter(sorted(DRAGONS))

#: the closed special hands (section 2, 000:65-150): announced waiting hand (000:184) applies to them
CLOSED_HANDS = (
    "hoge-enkelingen", "negen-poorten", "slang-a", "slang-b", "slang-c", "slang-d", "slang-e",
    "slang-f", "slang-g", "slang-h", "tuin-van-grietje", "maan-a", "maan-b", "paren-a", "paren-b",
    "paren-c", "paren-d", "paren-e", "paren-f", "paren-g", "paren-h", "paren-i", "paren-j",
    "paren-k", "windy-ones-a", "windy-ones-b", "haken", "breien", "kouseband", "winderige-draken",
    "hachi-ban", "verwarde-poorten", "echte-poorten", "draken-poorten", "gouden-poort",
    "naar-boven", "naar-beneden", "chop-suey", "chow-mein", "burgeroorlog",
    "alle-stenen-in-de-hand", "spel-uit-de-hemel", "goddelijke-hand", "spel-uit-de-aarde",
)
#: rules whose lines are flowers/seasons: left out of the 1.5× of an announced wait (000:188, 000-26)
BONUS_RULES = frozenset({"bonus-tile", "own-bonus", "own-bonus-nonwinner", "bouquet-one",
                         "bouquet-both", "bouquet-one-nonwinner", "bouquet-both-nonwinner"})
#: the PUNTENTELLING rows a not-clean winner forfeits under not_clean_forfeits=all-points (000-07 b)
POINT_TABLE_RULES = frozenset({
    "pung-simples-open", "pung-simples-closed", "kong-simples-open", "kong-simples-closed",
    "pair-honours", "pair-value", "pung-honours-open", "pung-honours-closed", "kong-honours-open",
    "kong-honours-closed", "bonus-tile"})


# ------------------------------------------------------------------------- categories
def honneurs(opts: Mapping[str, Any]) -> frozenset[str]:
    """"honneurs": winds and dragons, plus 1s and 9s under ``honours_include_terminals`` (000-05)."""
    return TERMINALS_AND_HONOURS if opts["honours_include_terminals"] else HONOURS


def pearl_tiles(opts: Mapping[str, Any]) -> frozenset[str]:
    """Pearl Hand tiles (000:29): circles 2, 3, 4, 8 (+ 6 under ``pearl_six=allowed``, 000-06), white dragon."""
    ranks = (2, 3, 4, 6, 8) if opts["pearl_six"] == "allowed" else (2, 3, 4, 8)
    return frozenset(f"{r}p" for r in ranks) | {"5z"}


def category(v: "View", spec: Any) -> frozenset[str]:
    """Tile set named by ``spec``: this sheet's own names or :func:`scoring.predicates.category`'s.

    Own names: ``green-bamboo`` (000:4), ``red-bamboo`` (000:12), ``green`` (green bamboo + green
    dragon), ``red`` (red bamboo + red dragon), ``honneurs`` (000:155, option 000-05),
    ``crack`` (characters 2 3 4 6 8 + red dragon, 000:26), ``pearl`` (000:29, option 000-06),
    ``winds-dragons``. Lists are unions.
    """
    if isinstance(spec, (list, tuple)):
        out: set[str] = set()
        for s in spec:
            out |= category(v, s)
        return frozenset(out)
    own = {
        "green-bamboo": GREEN_BAMBOO,
        "red-bamboo": RED_BAMBOO,
        "green": GREEN_BAMBOO | {"6z"},
        "red": RED_BAMBOO | {"7z"},
        "crack": frozenset({"2m", "3m", "4m", "6m", "8m", "7z"}),
        "winds-dragons": HONOURS,
    }
    if spec in own:
        return own[spec]
    if spec == "honneurs":
        return honneurs(v.opts)
    if spec == "pearl":
        return pearl_tiles(v.opts)
    return shared_category(v, spec)


# ------------------------------------------------------------------------- section 1: open hands
def _open_parts(v: "View") -> tuple[list[str], str] | None:
    """(tiles of the 4 pungs/kongs, tile of the pair) of a standard reading, else None."""
    if v.d.shape != "standard" or len(v.pungs) != 4 or len(v.pairs) != 1:
        return None
    return [m.tile for m in v.pungs], v.pairs[0].tile


def _assign(tiles: Sequence[str], cats: Sequence[frozenset[str]]) -> bool:
    """True when the pungs' ``tiles`` can be matched one-to-one with the categories ``cats``."""
    return len(tiles) == len(cats) and any(
        all(t in c for t, c in zip(perm, cats)) for perm in set(permutations(tiles)))


def four_pungs_pair(v: "View", pungs: Any, pair: Any) -> bool:
    """4 pungs/kongs and a pair: ``pungs`` is one category (all four) or a list of four (one each,
    in any order), ``pair`` a category. Used for most open hands (000:2-37, 000:55-58)."""
    parts = _open_parts(v)
    if parts is None:
        return False
    tiles, pair_tile = parts
    specs = pungs if isinstance(pungs, list) and len(pungs) == 4 else [pungs] * 4
    return pair_tile in category(v, pair) and _assign(tiles, [category(v, s) for s in specs])


def green_hand(v: "View") -> bool:
    """Groene Hand (000:5-7): 13 tiles as written (000-03). Option ``green_hand``:
    ``dragon-pung`` (RULINGS 000-03) = 3 pungs/kongs green bamboo + 1 pung/kong green dragons + 1 pair
    green bamboo; ``as-written`` = never matches (unplayable)."""
    if v.opts["green_hand"] == "as-written":
        return False
    return four_pungs_pair(v, ["green-bamboo", "green-bamboo", "green-bamboo", "6z"], "green-bamboo")


def _no_terminals(tiles: Iterable[str]) -> bool:
    return not any(t in TERMINALS for t in tiles)


def nummers_racket(v: "View") -> bool:
    """Nummers Racket (000:38-41): pungs of one number 2–8 in all three suits + a pung and a pair;
    no 1s or 9s. Option ``racket_fourth_set`` (000-12): ``honour-set`` = a wind pung + a wind pair or
    a dragon pung + a dragon pair; ``any-pung`` = any pung (no 1/9) + a pair of winds or dragons."""
    parts = _open_parts(v)
    if parts is None:
        return False
    tiles, pair = parts
    if not _no_terminals(tiles + [pair]):
        return False
    for r in range(2, 9):
        three = [f"{r}{s}" for s in SUITS]
        if all(t in tiles for t in three):
            fourth = list(tiles)
            for t in three:
                fourth.remove(t)
            x = fourth[0]
            if v.opts["racket_fourth_set"] == "any-pung":
                return pair in HONOURS
            return (x in WINDS and pair in WINDS) or (x in DRAGONS and pair in DRAGONS)
    return False


def dubbele_nummers(v: "View") -> bool:
    """Dubbele Nummers (000:42-44): twice [2 pungs of one number in 2 suits] + a pair of winds or
    dragons; no 1s or 9s. Option ``double_numbers_suits`` (000-13): ``any`` = the two numbers may
    use different suit pairs; ``same`` = the same two suits for both numbers."""
    parts = _open_parts(v)
    if parts is None:
        return False
    tiles, pair = parts
    if pair not in HONOURS or any(t[1] == "z" for t in tiles) or not _no_terminals(tiles):
        return False
    by_rank: dict[str, list[str]] = {}
    for t in tiles:
        by_rank.setdefault(t[0], []).append(t[1])
    if len(by_rank) != 2 or any(len(s) != 2 for s in by_rank.values()):
        return False
    if v.opts["double_numbers_suits"] == "same":
        a, b = (sorted(s) for s in by_rank.values())
        return a == b
    return True


def drievoudig(v: "View", wind: str, dragon: str) -> bool:
    """Drievoudig Oost/Zuid (000:45-50): one pung/kong in each suit (2–8) + a pung of ``wind`` +
    a pair of ``dragon``. Option ``triple_numbers`` (000-14): ``any`` = any numbers;
    ``different`` = the three suit pungs have three different numbers."""
    parts = _open_parts(v)
    if parts is None:
        return False
    tiles, pair = parts
    if pair != dragon or wind not in tiles:
        return False
    rest = list(tiles)
    rest.remove(wind)
    if sorted(t[1] for t in rest) != sorted(SUITS) or not _no_terminals(rest):
        return False
    return v.opts["triple_numbers"] == "any" or len({t[0] for t in rest}) == 3


def vrolijke_kerst(v: "View") -> bool:
    """Vrolijke Kerst (000:51-54): pung of 2s + pung of 5s of the same suit + pung of red dragons +
    pung of green dragons + pair of white dragons."""
    parts = _open_parts(v)
    if parts is None:
        return False
    tiles, pair = parts
    if pair != "5z" or "7z" not in tiles or "6z" not in tiles:
        return False
    return any(f"2{s}" in tiles and f"5{s}" in tiles for s in SUITS)


def kong_hand(v: "View") -> bool:
    """Kong Hand (000:59-61): 4 kongs of one suit and/or winds and/or dragons + a pair of that suit
    or of winds or dragons (one suit: INFERRED in the rendering, "van een serie … van die serie")."""
    parts = _open_parts(v)
    if parts is None or len(v.kongs) != 4:
        return False
    suits = {t[1] for t in v.tile_set} - {"z"}
    return len(suits) <= 1


def chinese_odds(v: "View") -> bool:
    """Chinese Odds (000:62-64): 4 pungs/kongs + a pair of 1, 3, 5, 7, 9, all of one suit.
    Option ``chinese_odds_suits`` (000-15): ``circles-characters`` (literal) or ``any``."""
    parts = _open_parts(v)
    if parts is None:
        return False
    tiles, pair = parts
    allowed = "pm" if v.opts["chinese_odds_suits"] == "circles-characters" else "pms"
    suits = {t[1] for t in tiles + [pair]}
    return len(suits) == 1 and suits <= set(allowed) and all(int(t[0]) % 2 for t in tiles + [pair])


# ------------------------------------------------------------------------- section 2: closed hands
def closed_tiles(v: "View") -> Counter | None:
    """The 14 tiles of a closed hand (no exposed meld), a concealed kong counted as its pung; else None."""
    hand = v.hand
    if any(not m.concealed for m in hand.melds):
        return None
    c = Counter(hand.concealed)
    for m in hand.melds:
        c[m.tile] += 3
    return c


def _take(c: Counter, need: Counter) -> Counter | None:
    """``c`` minus ``need`` when ``need`` is contained in ``c``, else None."""
    return None if need - c else c - need


def _run(s: str, lo: int, hi: int) -> Counter:
    return Counter(f"{r}{s}" for r in range(lo, hi + 1))


def _of(tile: str, n: int) -> Counter:
    return Counter({tile: n})


def _suit_part(c: Counter) -> Counter:
    return Counter({t: n for t, n in c.items() if t[1] != "z"})


def _honour_part(c: Counter) -> Counter:
    return Counter({t: n for t, n in c.items() if t[1] == "z"})


def _is_pairs(c: Counter, n: int, four_alike: bool = False) -> bool:
    """``c`` is ``n`` pairs (each kind twice; four alike = two pairs when ``four_alike``)."""
    ok = {2, 4} if four_alike else {2}
    return sum(c.values()) == 2 * n and all(k in ok for k in c.values())


def _one_suit(c: Counter) -> str | None:
    suits = {t[1] for t in c}
    return next(iter(suits)) if len(suits) == 1 and "z" not in suits else None


def hoge_enkelingen(v: "View") -> bool:
    """Hoge Enkelingen (000:66-68): one of each wind, dragon, 1 and 9 + one extra honour; with
    ``honours_include_terminals`` (000-05) the extra may also be a 1 or a 9."""
    c = closed_tiles(v)
    rest = c and _take(c, Counter(TERMINALS_AND_HONOURS))
    return bool(rest) and sum(rest.values()) == 1 and next(iter(rest)) in honneurs(v.opts)


NINE_GATES = Counter({1: 3, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 3})


def negen_poorten(v: "View") -> bool:
    """Spel der Negen Poorten (000:69-71): 1112345678999 + one more tile, all of one suit."""
    c = closed_tiles(v)
    if not c or (s := _one_suit(c)) is None:
        return False
    rest = _take(c, Counter({f"{r}{s}": n for r, n in NINE_GATES.items()}))
    return rest is not None and sum(rest.values()) == 1


def slang(v: "View", variant: str) -> bool:
    """Slangenspelen (000:72-81): 1 through 9 of one suit plus, by ``variant``:

    * ``a`` (000:73): one of each wind + an extra wind or 1 or 9; option ``snake_extra`` (000-16):
      ``snake-suit`` = the extra 1/9 is of the snake's suit, ``any-suit`` = of any suit;
    * ``b`` (000:74) a wind pung + a dragon pair; ``c`` (000:75) a dragon pung + a wind pair;
    * ``d`` (000:76) a pung + a pair of the same suit;
    * ``h`` (000:80-81) five different winds and/or dragons (no pair).
    """
    c = closed_tiles(v)
    if not c:
        return False
    for s in SUITS:
        rest = _take(c, _run(s, 1, 9))
        if rest is None:
            continue
        kinds = sorted(rest.values())
        tiles = set(rest)
        if variant == "a":
            extra = _take(rest, EACH_WIND)
            if not extra or sum(extra.values()) != 1:
                return False
            x = next(iter(extra))
            ends = {f"1{s}", f"9{s}"} if v.opts["snake_extra"] == "snake-suit" else TERMINALS
            return x in WINDS or x in ends
        if variant in ("b", "c"):
            pung = next((t for t, n in rest.items() if n == 3), None)
            pair = next((t for t, n in rest.items() if n == 2), None)
            if kinds != [2, 3] or pung is None or pair is None:
                return False
            want = (WINDS, DRAGONS) if variant == "b" else (DRAGONS, WINDS)
            return pung in want[0] and pair in want[1]
        if variant == "d":
            return kinds == [2, 3] and all(t[1] == s for t in tiles)
        if variant == "h":
            return kinds == [1] * 5 and tiles <= HONOURS
    return False


def slang_dragon(v: "View", suit: str) -> bool:
    """Slang e–g (000:77-79): 1 through 9 of ``suit`` + a pung of its dragon, 12 tiles as written
    (000-04). Option ``snake_dragon``: ``any-pair`` (RULINGS 000-04) = + any pair;
    ``as-written`` = never matches (unplayable)."""
    if v.opts["snake_dragon"] == "as-written":
        return False
    c = closed_tiles(v)
    rest = c and _take(c, _run(suit, 1, 9) + _of(ASSOCIATED_DRAGON[suit], 3))
    return bool(rest) and len(rest) == 1 and sum(rest.values()) == 2


def tuin_van_grietje(v: "View") -> bool:
    """De Tuin van Grietje (000:82-84): 1–7, 2–8 or 3–9 of one suit + one of each wind and dragon."""
    c = closed_tiles(v)
    if not c:
        return False
    return any(c == _run(s, lo, lo + 6) + EACH_WIND + EACH_DRAGON for s in SUITS for lo in (1, 2, 3))


def _is_chow(c: Counter, s: str) -> bool:
    tiles = sorted(int(t[0]) for t, n in c.items() for _ in range(n) if t[1] == s)
    return len(tiles) == 3 and tiles[1] == tiles[0] + 1 and tiles[2] == tiles[0] + 2


def maan_a(v: "View") -> bool:
    """De Maan op de Bodem van de Put a (000:86): a chow of each suit + one of each wind + an extra wind."""
    c = closed_tiles(v)
    rest = c and _take(c, EACH_WIND)
    if not rest:
        return False
    honours = _honour_part(rest)
    return (sum(honours.values()) == 1 and set(honours) <= WINDS
            and all(_is_chow(rest, s) for s in SUITS))


def _concealed_reading(v: "View") -> bool:
    return not any(m.declared and not m.concealed for m in v.melds)


def maan_b(v: "View") -> bool:
    """De Maan op de Bodem van de Put b (000:87): 4 chows + a pair, all of one suit, concealed."""
    return (v.d.shape == "standard" and _concealed_reading(v) and len(v.chows) == 4
            and len(v.suits) == 1 and not v.has_honours)


def _four_alike(v: "View", which: str) -> bool:
    """May four alike count as two pairs in pair hand ``which`` (``j``/``k``)? Option
    ``four_alike_pairs`` (000-17): ``j-and-k`` (reading a; k is impossible otherwise) or ``j-only``."""
    return which == "j" or (which == "k" and v.opts["four_alike_pairs"] == "j-and-k")


def paren(v: "View", variant: str) -> bool:
    """Parenspelen (000:88-102), seven-pair hands by ``variant``:

    ``a`` a pair of each wind and dragon; ``b`` 7 pairs of one suit; ``c`` 7 pairs of honours
    (000-05); ``d`` 5 pairs of one suit + 2 pairs of winds/dragons; ``e`` 5 pairs of the suits + a
    dragon pair + a wind pair; ``f`` any 7 pairs; ``g`` 5 pairs of one suit + one of each wind;
    ``h`` 5 pairs of one suit + one of each dragon, one dragon paired; ``i`` 3 pairs of one suit +
    8 winds/dragons (a pair among them, necessarily: 7 kinds); ``j`` 7 pairs of green bamboo/green
    dragon, four alike = 2 pairs (000:101); ``k`` the same in red (000-17).
    """
    c = closed_tiles(v)
    if not c or v.hand.melds:
        return False
    suit, hon = _suit_part(c), _honour_part(c)
    one = _one_suit(suit) if suit else None
    if variant == "a":
        return c == EACH_WIND + EACH_WIND + EACH_DRAGON + EACH_DRAGON
    if variant == "b":
        return not hon and one is not None and _is_pairs(c, 7)
    if variant == "c":
        return set(c) <= honneurs(v.opts) and _is_pairs(c, 7)
    if variant == "d":
        return one is not None and _is_pairs(suit, 5) and _is_pairs(hon, 2)
    if variant == "e":
        return (_is_pairs(suit, 5) and _is_pairs(hon, 2)
                and len(set(hon) & WINDS) == 1 and len(set(hon) & DRAGONS) == 1)
    if variant == "f":
        return _is_pairs(c, 7)
    if variant == "g":
        return one is not None and _is_pairs(suit, 5) and hon == EACH_WIND
    if variant == "h":
        return (one is not None and _is_pairs(suit, 5) and set(hon) == DRAGONS
                and sorted(hon.values()) == [1, 1, 2])
    if variant == "i":
        return one is not None and _is_pairs(suit, 3) and sum(hon.values()) == 8
    if variant in ("j", "k"):
        tiles = category(v, "green" if variant == "j" else "red")
        return set(c) <= tiles and _is_pairs(c, 7, four_alike=_four_alike(v, variant))
    raise ValueError(f"unknown pair-hand variant {variant!r}")


def windy_ones(v: "View", rank: int) -> bool:
    """Windy Ones (000:104-105): pungs of ``rank`` (1 or 9) in the three suits + one of each wind +
    an extra wind ("3 pungs van de enen": one per suit, INFERRED in the rendering)."""
    c = closed_tiles(v)
    rest = c and _take(c, sum((_of(f"{rank}{s}", 3) for s in SUITS), Counter()) + EACH_WIND)
    return bool(rest) and sum(rest.values()) == 1 and next(iter(rest)) in WINDS


def haken(v: "View") -> bool:
    """Haken (000:106-109): 4 triples of one tile from each suit + a pair of two tiles from
    different suits. Option ``knit_numbers`` (000-18): ``same`` = each triple and the pair have one
    number (as the examples); ``any`` = any numbers in a triple, the pair one number."""
    c = closed_tiles(v)
    if not c or _honour_part(c):
        return False
    counts = {s: [c.get(f"{r}{s}", 0) for r in range(1, 10)] for s in SUITS}
    if v.opts["knit_numbers"] == "any":
        sizes = {s: sum(counts[s]) for s in SUITS}
        five = [s for s in SUITS if sizes[s] == 5]
        return (sorted(sizes.values()) == [4, 5, 5]
                and any(counts[five[0]][r] and counts[five[1]][r] for r in range(9)))
    triples = pairs = 0
    for r in range(9):
        abc = [counts[s][r] for s in SUITS]
        t = min(abc)
        rest = sorted(x - t for x in abc)
        triples += t
        if rest == [0, 1, 1]:
            pairs += 1
        elif rest != [0, 0, 0]:
            return False
    return triples == 4 and pairs == 1


def breien(v: "View") -> bool:
    """Breien (000:110-112): 7 pairs, each of one number in two suits. Option ``knit_suits``
    (000-18): ``same`` = the same two suits throughout (as the example); ``any`` = each pair may use
    any two suits."""
    c = closed_tiles(v)
    if not c or _honour_part(c) or sum(c.values()) != 14:
        return False
    counts = {s: [c.get(f"{r}{s}", 0) for r in range(1, 10)] for s in SUITS}
    if v.opts["knit_suits"] == "same":
        used = [s for s in SUITS if any(counts[s])]
        return len(used) == 2 and counts[used[0]] == counts[used[1]]
    for r in range(9):
        abc = [counts[s][r] for s in SUITS]
        if sum(abc) % 2 or 2 * max(abc) > sum(abc):
            return False
    return True


def kouseband(v: "View") -> bool:
    """Gertie's Kouseband (000:113-114): 1 through 7 in two suits."""
    c = closed_tiles(v)
    return bool(c) and any(c == _run(a, 1, 7) + _run(b, 1, 7)
                           for i, a in enumerate(SUITS) for b in SUITS[i + 1:])


def winderige_draken(v: "View") -> bool:
    """Winderige Draken (000:115-116): 2 pungs (no kongs) of dragons + a pair of each wind."""
    c = closed_tiles(v)
    if not c or any(m.kind == "kong" for m in v.hand.melds):
        return False
    hon = _honour_part(c)
    return (hon == c and all(c[w] == 2 for w in WINDS)
            and sorted(c[d] for d in DRAGONS) == [0, 3, 3])


def hachi_ban(v: "View") -> bool:
    """Hachi-Ban (000:117-119): eight consecutive tiles of one suit + 3 pairs of winds or 3 pairs
    of dragons. Option ``hachi_ban_pairs`` (000-19): ``different`` = three different winds/dragons;
    ``any`` = a kind held four times counts as two pairs."""
    c = closed_tiles(v)
    if not c:
        return False
    four = v.opts["hachi_ban_pairs"] == "any"
    for s in SUITS:
        for lo in (1, 2):
            rest = _take(c, _run(s, lo, lo + 7))
            if rest and (set(rest) <= WINDS or set(rest) <= DRAGONS) and _is_pairs(rest, 3, four):
                return True
    return False


def verwarde_poorten(v: "View") -> bool:
    """Verwarde Poorten (000:120-122): a pung of 1s in one suit + a pung of 9s in a second suit +
    2 through 8 in the third suit + one extra 2–8 of the third suit."""
    c = closed_tiles(v)
    if not c:
        return False
    for a, b, s in permutations(SUITS):
        rest = _take(c, _of(f"1{a}", 3) + _of(f"9{b}", 3) + _run(s, 2, 8))
        if rest and sum(rest.values()) == 1 and next(iter(rest)) in _run(s, 2, 8):
            return True
    return False


def echte_poorten(v: "View") -> bool:
    """Echte Poorten (000:123-125): a pung of 1s + a pung of 9s + pairs of 2, 4, 6 and 8, one suit."""
    c = closed_tiles(v)
    return bool(c) and any(
        c == Counter({f"1{s}": 3, f"9{s}": 3, f"2{s}": 2, f"4{s}": 2, f"6{s}": 2, f"8{s}": 2})
        for s in SUITS)


def draken_poorten(v: "View") -> bool:
    """Draken Poorten (000:126-128): a pung of 1s or 9s + a pung of the associated dragon (000-20) +
    2 through 8 + one extra 2–8, all of one suit."""
    c = closed_tiles(v)
    if not c:
        return False
    for s in SUITS:
        for end in (1, 9):
            rest = _take(c, _of(f"{end}{s}", 3) + _of(ASSOCIATED_DRAGON[s], 3) + _run(s, 2, 8))
            if rest and sum(rest.values()) == 1 and next(iter(rest)) in _run(s, 2, 8):
                return True
    return False


def gouden_poort(v: "View") -> bool:
    """Gouden Poort (000:129-131): a pung of 1s or 9s + a pung of the associated dragon (000-20) +
    pairs of 2, 4, 6 and 8. Option ``golden_gate_suit`` (000-20): ``one-suit`` = all of one suit (as
    in the neighbouring gates); ``free`` = each pair of 2/4/6/8 of any suit."""
    c = closed_tiles(v)
    if not c:
        return False
    for s in SUITS:
        for end in (1, 9):
            rest = _take(c, _of(f"{end}{s}", 3) + _of(ASSOCIATED_DRAGON[s], 3))
            if not rest:
                continue
            if v.opts["golden_gate_suit"] == "one-suit":
                if rest == Counter({f"{r}{s}": 2 for r in (2, 4, 6, 8)}):
                    return True
            elif (_is_pairs(rest, 4) and all(t[1] != "z" for t in rest)
                  and sorted(int(t[0]) for t in rest) == [2, 4, 6, 8]):
                return True
    return False


def naar_boven(v: "View", counts: Sequence[int]) -> bool:
    """Naar Boven / Naar Beneden (000:132-135): ``counts`` of 2, 4, 6, 8 (1-2-3-4 or 4-3-2-1) in one
    suit + one of each wind."""
    c = closed_tiles(v)
    return bool(c) and any(
        c == Counter({f"{r}{s}": n for r, n in zip((2, 4, 6, 8), counts)}) + EACH_WIND for s in SUITS)


def chop_suey(v: "View", low: int) -> bool:
    """Chop Suey (000:136-137, ``low`` 1: 1-2-3) / Chow Mein (000:138-139, ``low`` 7: 7-8-9): that
    run in each suit + one of each wind + an extra wind."""
    c = closed_tiles(v)
    need = sum((_run(s, low, low + 2) for s in SUITS), Counter()) + EACH_WIND
    rest = c and _take(c, need)
    return bool(rest) and sum(rest.values()) == 1 and next(iter(rest)) in WINDS


def burgeroorlog(v: "View") -> bool:
    """Burgeroorlog (000:140-142): 1, 8, 6, 1 in one suit + 1, 8, 6, 5 in a second suit + a pung of
    North + a pung of South winds."""
    c = closed_tiles(v)
    if not c:
        return False
    for a, b in permutations(SUITS, 2):
        want = (Counter([f"1{a}", f"8{a}", f"6{a}", f"1{a}"]) + Counter([f"1{b}", f"8{b}", f"6{b}", f"5{b}"])
                + _of("4z", 3) + _of("2z", 3))
        if c == want:
            return True
    return False


def alle_stenen_in_de_hand(v: "View") -> bool:
    """Mah Jong met alle stenen in de hand (000:143-144): 4 pungs of suit tiles + any pair, nothing
    exposed. Option ``all_in_hand_kongs`` (000-21): concealed kongs ``allowed`` or ``not-allowed``;
    option ``all_in_hand_discard_pung``: a pung completed by the winning discard ``allowed`` (a
    closed special hand may win on a discard) or ``exposed`` (RULINGS principle 6)."""
    if v.d.shape != "standard" or not _concealed_reading(v) or len(v.pungs) != 4:
        return False
    if v.opts["all_in_hand_kongs"] == "not-allowed" and v.hand.melds:
        return False
    if v.opts["all_in_hand_discard_pung"] == "exposed" and any(
            m.winning and m.is_set and not m.concealed for m in v.melds):
        return False
    return all(m.tile[1] != "z" for m in v.pungs)


def spel_uit_de_aarde(v: "View") -> bool:
    """Spel uit de Aarde (000:149-150): a win from a waiting hand formed by the first 13 tiles.
    Flag ``dealt-waiting`` = the dealt 13 tiles were waiting; option ``earth_hand`` (000-22):
    ``unchanged`` (reading a) also needs flag ``hand-unchanged``; ``any-later-win`` (reading b) not."""
    flags = v.ctx.flags
    if "dealt-waiting" not in flags:
        return False
    return v.opts["earth_hand"] == "any-later-win" or "hand-unchanged" in flags


# ------------------------------------------------------------------------- point table, doublings
def is_clean(v: "View") -> bool:
    """"schoon" (RULINGS shared definitions, 000-07): tiles of one suit plus winds/dragons, at
    least one suit tile; option ``clean_meaning=one-suit-only`` also forbids winds/dragons. A pure
    hand is clean too (000:182: the pure doublings make "the doubling for clean" lapse)."""
    if len(v.suits) != 1:
        return False
    return v.opts["clean_meaning"] == "suit-and-honours" or not v.has_honours


def clean(v: "View") -> bool:
    """The hand is clean (see :func:`is_clean`)."""
    return is_clean(v)


def not_clean(v: "View") -> Any:
    """A winner that is not clean gets none of the mah-jong points (000:163; option not_clean_forfeits)."""
    if is_clean(v):
        return False
    what = ("the set, pair and flower points and the mah-jong points"
            if v.opts["not_clean_forfeits"] == "all-points" else "the mah-jong points (20/10)")
    # (why, as a referee checks it: an all-honours hand had been "not clean" with no word of the suit tile it lacks)
    n = len(v.suits)
    why = ("no suit tile, and clean needs one: RULINGS shared definitions, 000-07" if n == 0 else
           f"tiles of {n} suits" if n > 1 else "winds or dragons beside its suit (option clean_meaning=one-suit-only)")
    return f"not clean ({why}): {what} are not scored"


def mahjong_points(v: "View", how: str) -> bool:
    """Mah-jong points (000:161-162) for a clean winner: ``how`` = ``drawn`` (from the wall or the
    dead wall) or ``discard``. A robbed kong tile counts as ``discard`` unless option
    ``robbed_kong_mahjong=drawn``, a dead-wall tile as ``drawn`` unless option ``dead_wall_mahjong=neither``
    (then neither: 000-23)."""
    if not is_clean(v):
        return False
    if v.ctx.win_by == "dead-wall" and v.opts["dead_wall_mahjong"] == "neither":
        return False
    drawn = v.ctx.self_drawn or (v.ctx.win_by == "robbed-kong" and v.opts["robbed_kong_mahjong"] == "drawn")
    return drawn == (how == "drawn")


def value_pairs_000(v: "View") -> Any:
    """Pairs of dragons, own wind or round wind (000:156 under ``pair_points=value-only``, 000-08)."""
    from ..predicates import value_pairs

    return value_pairs(v, option="seat_round_wind")


def round_wind_pungs(v: "View") -> Any:
    """Pungs/kongs of the round wind (000:173); under ``seat_round_wind=once`` not when it is also
    the seat wind (that pung already has the own-wind doubling, 000:172). The line cites the option
    only when the round wind is the seat wind (:attr:`scoring.fired.Fired.quiet`)."""
    from ..fired import Fired

    rw = v.ctx.round_wind_tile
    if v.opts["seat_round_wind"] == "once" and rw == v.ctx.seat_wind_tile:
        return []
    found = tuple("".join(t[0] for t in m.tiles) + m.tile[1] for m in v.pungs if m.tile == rw)
    if not found:
        return None
    return Fired(len(found), found, quiet=() if rw == v.ctx.seat_wind_tile else ("seat_round_wind",))


def own_bonus_000(v: "View") -> list[str]:
    """Own flower/season (000:171), one doubling each (INFERRED, 000-25). Option
    ``bouquet_with_own=replace``: tiles of a complete series (all flowers / all seasons) do not
    count here, the bouquet doubling replaces them."""
    from ..predicates import own_bonus

    tiles = own_bonus(v)
    if v.opts["bouquet_with_own"] == "replace":
        b = set(v.hand.bonus)
        tiles = [t for t in tiles if not {f"{r}{t[1]}" for r in range(1, 5)} <= b]
    return tiles


def bouquets(v: "View", n: int) -> bool:
    """Exactly ``n`` complete series of bonus tiles: 1 = all flowers or all seasons (000:175),
    2 = all flowers and all seasons (000:176)."""
    from ..predicates import bonus_sets

    return bonus_sets(v, "any") == n


def pure_suit(v: "View", simples: bool = False) -> bool:
    """Only bamboos, characters or circles: one suit, no winds/dragons (000:180); with ``simples``
    only 2 through 8 (000:181) — of one suit, or of any suits under ``simples_doubling=any-suits``
    (000-10)."""
    if v.has_honours:
        return False
    if not simples:
        return len(v.suits) == 1
    if any(t in TERMINALS for t in v.tile_set):
        return False
    return len(v.suits) == 1 or v.opts["simples_doubling"] == "any-suits"


# ------------------------------------------------------------------------- waiting hand (000:183-188)
#: closed hands that are circumstances, not tile patterns: nobody waits "for" them (000:145-150)
TIMING_HANDS = frozenset({"spel-uit-de-hemel", "goddelijke-hand", "spel-uit-de-aarde"})


def _pattern_rules(rs: "Ruleset") -> list:
    return [r for r in rs.rules if r.id in CLOSED_HANDS and r.id not in TIMING_HANDS]


def closed_in_view(v: "View") -> list[str]:
    """Names of the closed special hands (section 2 tile patterns) this reading makes."""
    from ..engine import rule_fires

    return [r.name for r in _pattern_rules(v.ruleset) if rule_fires(r, v)]


def makes_closed_hand(hand: Hand, rs: "Ruleset", opts: Mapping[str, Any]) -> bool:
    """True when some reading of ``hand`` makes a closed special hand (section 2 tile pattern)."""
    from ..decompose import decompositions
    from ..engine import View as _View, rule_fires

    rules = _pattern_rules(rs)
    for d in decompositions(hand, rs.shapes):
        view = _View(hand, d, rs, opts)
        if any(rule_fires(r, view) for r in rules):
            return True
    return False


def closed_waits(hand: Hand, rs: "Ruleset", opts: Mapping[str, Any]) -> list[str]:
    """Tiles that, in place of the winning tile, would have made a closed special hand."""
    from dataclasses import replace as _replace

    if hand.winning_tile is None:
        return []
    base = list(hand.concealed)
    base.remove(hand.winning_tile)
    held = Counter(hand.all_tiles)
    held[hand.winning_tile] -= 1
    out = []
    for t in PLAYING_TILES:
        if held[t] >= 4:
            continue
        trial = _replace(hand, concealed=tuple(sort_tiles(base + [t])), winning_tile=t)
        if makes_closed_hand(trial, rs, opts):
            out.append(t)
    return out


def _announced_wait_check(v: "View") -> tuple[bool, str]:
    """(qualifies, detail) for an announced waiting hand on this reading (000:184-188, 000-27)."""
    rs, hand = v.ruleset, v.hand
    special = closed_in_view(v)
    if not special:
        if v.opts["waiting_hand_scope"] == "closed-special":
            return False, ("this reading is not one of the closed special hands "
                           "(000:184; option waiting_hand_scope=closed-special, 000-27)")
        if v.d.shape != "standard" or not all(m.concealed for m in hand.melds):
            return False, "the hand is not concealed (000:184)"
        tiles = sorted(set(v.waits) | set(closed_waits(hand, rs, v.opts)), key=PLAYING_TILES.index)
    else:
        tiles = closed_waits(hand, rs, v.opts)
    if tiles != [hand.winning_tile]:
        return False, (f"the hand waited on {', '.join(tiles) or 'nothing'}, not on one special tile "
                       "(000:184 'de enig mogelijke')")
    return True, f"announced, waiting only on {hand.winning_tile}" + (f" for {special[0]}" if special else "")


def announced_wait(v: "View") -> Any:
    """Wachtend spel (000:183-188): an announced waiting hand that waited on the only possible
    tile and won pays 1.5 × its value counted without flowers/seasons, which are then added
    (RULINGS 000-26). Scope (000-27): option ``waiting_hand_scope``."""
    if not (v.ctx.announced_wait and v.ctx.winner and v.hand.winning_tile):
        return False
    ok, detail = _announced_wait_check(v)
    return detail if ok else False


def announced_wait_refused(v: "View") -> Any:
    """A note when an announced wait does not qualify (000:184), saying why."""
    if not (v.ctx.announced_wait and v.ctx.winner):
        return False
    if not v.hand.winning_tile:
        return "announced wait: give the winning tile to check it (000:184)"
    ok, detail = _announced_wait_check(v)
    return False if ok else f"announced wait does not count: {detail}"


# ------------------------------------------------------------------------- hooks
def check_hand(hand: Hand, ruleset: "Ruleset", options: Mapping[str, Any]) -> None:
    """Tile count (13-tile game) and this ruleset's flags (a flag for a non-winner is :data:`WIN_FLAGS`',
    checked first by :func:`scoring.engine.check_context_flags`); HandError otherwise."""
    check_size(hand, (ruleset.hand_size,))
    unknown = sorted(hand.context.flags - FLAGS)
    if unknown:
        raise HandError(f"unknown flag {', '.join(unknown)} for ruleset dutch-special-hands "
                        f"(flags: {', '.join(sorted(FLAGS))})")


def combine(lines: Sequence["Line"], ruleset: "Ruleset", view: "View") -> "Totals":
    """Totals of one reading (:func:`scoring.engine.default_combine`), with two additions:

    * ``not_clean_forfeits=all-points`` (000-07 b): a winner that is not clean loses the
      PUNTENTELLING points too (the ``not-clean`` note line says so);
    * an announced waiting hand (000:187-188, RULINGS 000-26): 1.5 × the value counted without
      flowers/seasons, then what the flowers/seasons add: ``1.5 × V(no bonus) + (V − V(no bonus))``;
      for a special hand that is 1.5 × the fixed value + 4 per flower/season;
    * with option ``fixed_hands=best`` (000-26) a winner's special hand counts only when it beats the hand's
      ordinary count (the lines without it, combined as above); by default (``fixed``) its value replaces the
      count. A seed tester's four concealed honour kongs (Kong Hand, 2000) count 150 × 2^7 = 19200 so.
    """
    lines = list(lines)
    if view.winner and view.opts["fixed_hands"] == "best" and any(ln.kind in ("fixed", "limit") for ln in lines):
        from ..engine import special_or_count

        special = _combined(lines, ruleset, view)
        # (an announced wait counts for the closed special hands alone under waiting_hand_scope=closed-special,
        # 000-27: the ordinary count passes it by; a reviewer's 1728 = 36 × 2^5 × 1.5 had been given it)
        plain = ("fixed", "limit") + (("multiplier",) if view.opts["waiting_hand_scope"] == "closed-special" else ())
        normal = _combined([ln for ln in lines if ln.kind not in plain], ruleset, view)
        return special_or_count(special, normal, lines)
    return _combined(lines, ruleset, view)


def _combined(lines: list["Line"], ruleset: "Ruleset", view: "View") -> "Totals":
    """:func:`combine` of one set of lines, a special hand among them or not."""
    from ..engine import Totals, default_combine, round_half_up

    if any(ln.kind in ("fixed", "limit") for ln in lines):  # a special hand has no mah-jong points anyway
        lines = [ln for ln in lines if ln.rule != "not-clean"]
    if (view.opts["not_clean_forfeits"] == "all-points" and view.winner
            and any(ln.rule == "not-clean" for ln in lines)):
        lines = [ln for ln in lines if ln.rule not in POINT_TABLE_RULES]
    mult = [ln for ln in lines if ln.kind == "multiplier"]
    if not mult:
        return default_combine(lines, ruleset, view)
    rest = [ln for ln in lines if ln.kind != "multiplier"]
    full = default_combine(rest, ruleset, view)
    plain = default_combine([ln for ln in rest if ln.rule not in BONUS_RULES], ruleset, view)
    factor = 1.0
    for ln in mult:
        factor *= ln.multiplier
    total = round_half_up(plain.total * factor + (full.total - plain.total))
    return Totals(total, full.points, full.doublings, tuple(full.lines) + tuple(mult), full.cash,
                  full.limit_applied, full.outranked)


def finalize(result, ruleset: "Ruleset", options: Mapping[str, Any]):
    """Add a note with the arithmetic of an announced waiting hand (000:187-188, RULINGS 000-26):
    the engine's summary line cannot show that flowers/seasons are added after the 1.5×."""
    from dataclasses import replace as _replace

    if not any(ln.rule == "announced-wait" for ln in result.lines):
        return result
    if not any(ln.rule in BONUS_RULES for ln in result.lines):
        return result
    note = ("announced waiting hand (000:187-188, RULINGS 000-26): 1.5 × the value without "
            f"flowers/seasons, then what they add = {result.total}")
    return _replace(result, notes=result.notes + (note,))
