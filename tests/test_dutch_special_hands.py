"""Ruleset dutch-special-hands (seed 000_f626c313f8929ba8.txt): one test per seed line.

Expected values are derived by hand from the seed lines cited beside each case ("000:L" = line L of
the seed). Special hands score their fixed value + 4 per flower/season, no doublings (RULINGS
000-26); ordinary hands score points (000:152-166) × 2^doublings (000:167-182).
"""
from __future__ import annotations

import re

import pytest

from scoring import Context, HandError, explain, load_ruleset, parse_hand, score_hand
from scoring.rulesets import dutch_special_hands as dsh

RS = "dutch-special-hands"
SEED = "000_f626c313f8929ba8.txt"


def score(notation: str, options=None, win: str | None = None, **ctx):
    """Score ``notation`` under dutch-special-hands with the given context fields."""
    flags = ctx.pop("flags", ())
    hand = parse_hand(notation, winning_tile=win, context=Context(flags=frozenset(flags), **ctx),
                      sizes=None)
    return score_hand(hand, RS, options)


def ids(result) -> set[str]:
    return {ln.rule for ln in result.lines}


# --------------------------------------------------------------------------- special hands
# (rule id, notation, context/options, expected total). Each is the hand's fixed value (000-26).
SPECIAL = [
    # 000:2-4 Keizerlijke Jade: 4 green-bamboo pungs + green-dragon pair = 2000
    ("keizerlijke-jade", "222s333s444s66z [888s]", {}, 2000),
    # 000:5-7 Groene Hand (RULINGS 000-03: green-dragon pung): 222s 333s 888s + 666z + pair 44s = 1750
    ("groene-hand", "222s333s44s666z [888s]", {}, 1750),
    # 000:8-9 Groene Vinger: 4 green-bamboo pungs + green-bamboo pair = 1500
    ("groene-vinger", "222s333s444s66s [888s]", {}, 1500),
    # 000:10-12 Koninklijk Rood: pungs 1 5 7 9 bamboo + red-dragon pair = 2000
    ("koninklijk-rood", "111s555s777s77z [999s]", {}, 2000),
    # 000:13-15 Keizerlijke Robijnen Hand: pungs 1s 5s 7s + red dragons + pair 9s = 1500
    ("keizerlijke-robijnen-hand", "111s555s777z99s [777s]", {}, 1500),
    # 000:16-19 Bamboes en Draken: red + green dragon pungs, 1s (red) + 3s (green) pungs, pair 2s = 2000
    ("bamboes-en-draken", "777z666z111s22s [333s]", {}, 2000),
    # 000:20-22 Drie Grote Leraren: 3 dragon pungs + South pung + East pair = 1500
    ("drie-grote-leraren", "555z666z777z11z [222z]", {}, 1500),
    # 000:20-22 with 000-05 default (1s/9s are honours): the honour pung is 111m, pair 99m = 1500
    ("drie-grote-leraren", "555z666z777z99m [111m]", {}, 1500),
    # 000:23-24 Vier Zegeningen: 4 wind pungs + any pair (55m) = 1500
    ("vier-zegeningen", "111z222z333z55m [444z]", {}, 1500),
    # 000:25-27 Robijnen Crack Hand: pungs 2m 3m 4m 8m + red-dragon pair = 1000
    ("robijnen-crack-hand", "222m333m444m77z [888m]", {}, 1000),
    # 000:28-30 Parel Hand: pungs 2p 3p 4p 8p + white-dragon pair = 1250
    ("parel-hand", "222p333p444p55z [888p]", {}, 1250),
    # 000:31-33 Geisha: East, White, Green pungs + 999m pung + South pair = 1500
    ("geisha-hand", "111z555z666z22z [999m]", {}, 1500),
    # 000:34-35 Koppen en Staarten: pungs 1m 9m 1p 9p + pair 9s = 1500
    ("koppen-en-staarten", "111m999m111p99s [999p]", {}, 1500),
    # 000:36-37 Gejaagd door de Wind 2000 beats Vier Zegeningen 1500 on the same hand (000-11)
    ("gejaagd-door-de-wind", "111z222z333z55z [444z]", {}, 2000),
    # 000:38-41 Nummers Racket: 222m 222p 222s + West pung + East pair (000-12 a) = 2000
    ("nummers-racket", "222m222p222s11z [333z]", {}, 2000),
    # 000:42-44 Dubbele Nummers: 2m 2p, 5s 5p + East pair (000-13 a: suit pairs may differ) = 1500
    ("dubbele-nummers", "222m222p555s11z [555p]", {}, 1500),
    # 000:45-47 Drievoudig Oost: 2m 3p 4s + East pung + red-dragon pair = 1000
    ("drievoudig-oost", "222m333p444s77z [111z]", {}, 1000),
    # 000:48-50 Drievoudig Zuid: 2m 3p 4s + South pung + green-dragon pair = 1000
    ("drievoudig-zuid", "222m333p444s66z [222z]", {}, 1000),
    # 000:51-54 Vrolijke Kerst: 2p and 5p pungs, red and green dragon pungs, white pair = 2000
    ("vrolijke-kerst", "222p555p777z55z [666z]", {}, 2000),
    # 000:55-58 Kerstavond: 1s (red) 2s (green) pungs, red + green dragon pungs, white pair = 2000
    ("kerstavond", "111s222s777z55z [666z]", {}, 2000),
    # 000:59-61 Kong Hand: kongs 2m 3m East Red + White pair = 2000
    ("kong-hand", "55z [2222m] [3333m] [1111z] [7777z]", {}, 2000),
    # 000:62-64 Chinese Odds: pungs 1p 3p 5p 9p + pair 7p, circles = 1500
    ("chinese-odds", "111p333p555p77p [999p]", {}, 1500),
    # 000:66-68 Hoge Enkelingen: one of each 1, 9, wind, dragon + extra Red = 2000
    ("hoge-enkelingen", "19m19p19s12345677z", {}, 2000),
    # 000:66-68 with 000-05 default the extra honour may be a 1: extra 1m = 2000
    ("hoge-enkelingen", "119m19p19s1234567z", {}, 2000),
    # 000:69-71 Negen Poorten: 1112345678999m + 5m = 1500
    ("negen-poorten", "11123455678999m", {}, 1500),
    # 000:73 Snake a: 1-9m + each wind + extra East = 1000
    ("slang-a", "123456789m11234z", {}, 1000),
    # 000:73 Snake a, extra tile a 9 of the snake's suit (000-16 a) = 1000
    ("slang-a", "1234567899m1234z", {}, 1000),
    # 000:74 Snake b: 1-9m + East pung + Red pair = 1000
    ("slang-b", "123456789m11177z", {}, 1000),
    # 000:75 Snake c: 1-9p + Red pung + East pair = 1000 (p's own dragon is White, so not e-g)
    ("slang-c", "123456789p11777z", {}, 1000),
    # 000:76 Snake d: 1-9m + 555m pung + 66m pair = 1500
    ("slang-d", "12345555666789m", {}, 1500),
    # 000:77 Snake e (RULINGS 000-04: + any pair): 1-9m + Red pung + 55p = 1000
    ("slang-e", "123456789m55p777z", {}, 1000),
    # 000:78 Snake f: 1-9s + Green pung + 55p = 1000
    ("slang-f", "55p123456789s666z", {}, 1000),
    # 000:79 Snake g: 1-9p + White pung + 11m = 1000
    ("slang-g", "11m123456789p555z", {}, 1000),
    # 000:80-81 Snake h: 1-9m + East South White Green Red, no pair = 1000
    ("slang-h", "123456789m12567z", {}, 1000),
    # 000:82-84 De Tuin van Grietje: 2-8p + each wind and dragon = 1000
    ("tuin-van-grietje", "2345678p1234567z", {}, 1000),
    # 000:86 Maan a: 123m 456p 789s + each wind + extra North = 750
    ("maan-a", "123m456p789s12344z", {}, 750),
    # 000:87 Maan b: 123m 234m 456m 789m + 55m, concealed = 1000
    ("maan-b", "12233445556789m", {}, 1000),
    # 000:89 Pair hand a: a pair of each wind and dragon = 1500 (beats c 750, f 250)
    ("paren-a", "11223344556677z", {}, 1500),
    # 000:90 Pair hand b: 7 pairs of characters = 1000
    ("paren-b", "11224455778899m", {}, 1000),
    # 000:91 Pair hand c (000-05: 1s/9s are honours): 11m 99m 11p 99p + East South West pairs = 750
    ("paren-c", "1199m1199p112233z", {}, 750),
    # 000:92-93 Pair hand d: 5 pairs of characters + East pair + White pair = 750
    ("paren-d", "1122335566m1155z", {}, 750),
    # 000:94 Pair hand e: 5 pairs of mixed suits + East pair + White pair = 500
    ("paren-e", "1122m3344p55s1155z", {}, 500),
    # 000:95 Pair hand f: any 7 pairs = 250
    ("paren-f", "1122m3344p5566s77z", {}, 250),
    # 000:96 Pair hand g: 5 pairs of characters + one of each wind = 750
    ("paren-g", "1122446688m1234z", {}, 750),
    # 000:97 Pair hand h: 5 pairs of characters + White, Green Green, Red = 750
    ("paren-h", "1122446688m5667z", {}, 750),
    # 000:98-99 Pair hand i: 3 pairs of characters + 8 winds = 1000
    ("paren-i", "113355m11223344z", {}, 1000),
    # 000:100-101 Pair hand j: 22 33 44 66 88 bamboo + four Green dragons (= 2 pairs) = 1500
    ("paren-j", "2233446688s6666z", {}, 1500),
    # 000:102 Pair hand k (000-17 a): 1111s (2 pairs) 55 77 99 bamboo + four Red (2 pairs) = 1500
    ("paren-k", "1111557799s7777z", {}, 1500),
    # 000:104 Windy Ones a: 111 in each suit + each wind + extra North = 1000
    ("windy-ones-a", "111m111p111s12344z", {}, 1000),
    # 000:105 Windy Ones b: 999 in each suit + each wind + extra North = 1000
    ("windy-ones-b", "999m999p999s12344z", {}, 1000),
    # 000:106-109 Haken: triples 2 4 6 8 in the three suits + pair 3m 3p = 250
    ("haken", "23468m23468p2468s", {}, 250),
    # 000:110-112 Breien: 1 2 3 5 7 8 9 in characters and circles = 250
    ("breien", "1235789m1235789p", {}, 250),
    # 000:113-114 Gertie's Kouseband: 1-7m + 1-7s = 500 (also Breien 250: the highest counts)
    ("kouseband", "1234567m1234567s", {}, 500),
    # 000:115-116 Winderige Draken: White and Green pungs + a pair of each wind = 1250
    ("winderige-draken", "11223344555666z", {}, 1250),
    # 000:117-119 Hachi-Ban: 1-8m + East, South, West pairs = 1750
    ("hachi-ban", "12345678m112233z", {}, 1750),
    # 000:117-119 Hachi-Ban with dragons: 2-9p + the three dragon pairs = 1750
    ("hachi-ban", "23456789p556677z", {}, 1750),
    # 000:120-122 Verwarde Poorten: 111m + 999p + 2-8s + extra 5s = 1750
    ("verwarde-poorten", "111m999p23455678s", {}, 1750),
    # 000:123-125 Echte Poorten: 111 22 44 66 88 999 characters = 1250
    ("echte-poorten", "11122446688999m", {}, 1250),
    # 000:126-128 Draken Poorten: 111m + Red pung (000-20) + 2-8m + extra 5m = 1500
    ("draken-poorten", "11123455678m777z", {}, 1500),
    # 000:129-131 Gouden Poort: 999s + Green pung + pairs 2 4 6 8 bamboo = 1750
    ("gouden-poort", "22446688999s666z", {}, 1750),
    # 000:132-133 Naar Boven: 2 44 666 8888 circles + each wind = 1500
    ("naar-boven", "2446668888p1234z", {}, 1500),
    # 000:134-135 Naar Beneden: 2222 444 66 8 bamboo + each wind = 1500
    ("naar-beneden", "2222444668s1234z", {}, 1500),
    # 000:136-137 Chop Suey: 123 in each suit + each wind + extra North = 1000
    ("chop-suey", "123m123p123s12344z", {}, 1000),
    # 000:138-139 Chow Mein: 789 in each suit + each wind + extra North = 1000
    ("chow-mein", "789m789p789s12344z", {}, 1000),
    # 000:140-142 Burgeroorlog: 1 1 6 8 characters + 1 5 6 8 circles + South and North pungs = 1500
    ("burgeroorlog", "1168m1568p222444z", {}, 1500),
    # 000:143-144 All tiles in the hand: 222m 444m 666p 888s + White pair, concealed = 1000
    ("alle-stenen-in-de-hand", "222444m666p888s55z", {}, 1000),
    # 000:145-146 Spel uit de Hemel: East wins with the dealt tiles = 2000
    ("spel-uit-de-hemel", "123m456p789s234m55z", {"first_turn": True, "win_by": "wall"}, 2000),
    # 000:147-148 Goddelijke Hand: South wins on East's first discard = 2000
    ("goddelijke-hand", "123m456p789s234m55z", {"first_turn": True, "seat_wind": "S"}, 2000),
    # 000:149-150 Spel uit de Aarde (000-22 a): dealt tiles waiting, unchanged = 1500
    ("spel-uit-de-aarde", "123m456p789s234m55z", {"flags": ("dealt-waiting", "hand-unchanged")}, 1500),
]


@pytest.mark.parametrize("rule,notation,ctx,expected", SPECIAL, ids=[f"{c[0]}:{c[1]}" for c in SPECIAL])
def test_special_hand(rule, notation, ctx, expected):
    ctx = dict(ctx)
    options = ctx.pop("options", None)
    r = score(notation, options, **ctx)
    top = [ln for ln in r.lines if ln.kind == "fixed"]
    assert [ln.rule for ln in top] == [rule]
    assert r.total == expected


def test_every_special_hand_has_a_case():
    """Each fixed-value rule of the ruleset (one per special hand, 000:1-150) is exercised above."""
    fixed = {r.id for r in load_ruleset(RS).rules if r.kind == "fixed"}
    assert fixed == {c[0] for c in SPECIAL}


def test_special_values_match_seed(shared):
    """Each special hand's value appears as 'NNNN ptn' within its cited seed lines (000:1-150)."""
    lines = (shared / "seeds" / SEED).read_text(encoding="utf-8").splitlines()
    for r in load_ruleset(RS).rules:
        assert r.source.startswith(SEED + ":"), r.id
        text = ""
        for span in r.source.split(":")[1].split(","):  # ("180,182": the lines named)
            lo, _, hi = span.partition("-")
            text += " " + " ".join(lines[int(lo) - 1:int(hi or lo)])
        if r.kind == "fixed":
            assert re.search(rf"\b{int(r.value)} ptn", text), (r.id, text)


# --------------------------------------------------------------------------- special-hand options
def test_groene_hand_as_written_never_matches():
    # 000:5-7 as written (13 tiles, 000-03 c): never matches; the same tiles then are only
    # Groene Vinger? no (one pung is the dragon) -> an ordinary hand: concealed pungs 222s 333s 4 + 4,
    # dragon pung 666z 8, exposed 888s 2, pair 44s 0 = 18; mah-jong 10 (clean, discard) = 28;
    # doublings: clean 1, all pungs 1, dragon pung 1 = 3 -> 28 x 8 = 224
    r = score("222s333s44s666z [888s]", {"green_hand": "as-written"})
    assert not any(ln.kind == "fixed" for ln in r.lines)
    assert r.total == 224


def test_snake_dragon_as_written_is_unplayable():
    # 000:77 as written (12 tiles, 000-04 c): Snake e never matches. 1-9m + 777z + 55p is also
    # 123 456 789 m + Red pung + pair, an ordinary hand: concealed dragon pung 8, pair 5p 0; not clean
    # (characters + circles): no mah-jong points; doublings: dragon pung 1 -> 16
    r = score("123456789m55p777z", {"snake_dragon": "as-written"})
    assert "slang-e" not in ids(r)
    assert r.total == 16


def test_honours_without_terminals():
    # 000-05 b: 'honneurs' = winds and dragons; 555z 666z 777z + 111m pung + 99m pair is then no
    # Drie Grote Leraren. Ordinary: concealed dragon pungs 3 x 8 = 24, exposed 111m 4, pair 99m 2
    # (000:156 names 1s and 9s) = 30; characters + dragons is clean: mah-jong by discard 10 = 40;
    # doublings: clean 1, all pungs 1, 3 dragon pungs 3 = 5 -> 40 x 32 = 1280
    r = score("555z666z777z99m [111m]", {"honours_include_terminals": "false"})
    assert not any(ln.kind == "fixed" for ln in r.lines)
    assert r.total == 1280


def test_pearl_six_option():
    # 000:29 literal (000-06 a): 6 circles not allowed -> ordinary; with pearl_six=allowed -> 1250
    tiles = "222p333p666p55z [888p]"
    assert "parel-hand" not in ids(score(tiles))
    assert score(tiles, {"pearl_six": "allowed"}).total == 1250


def test_numbers_racket_any_pung():
    # 000:40 (000-12 b): 222m 222p 222s + 555m pung + White pair is a Racket only under any-pung
    tiles = "222m222p222s55z [555m]"
    assert "nummers-racket" not in ids(score(tiles))
    assert score(tiles, {"racket_fourth_set": "any-pung"}).total == 2000


def test_double_numbers_same_suits():
    # 000:43 (000-13 b): 2m 2p + 5s 5p use different suit pairs -> not under 'same';
    # 2m 2p + 5m 5p -> 1500 under 'same'
    assert "dubbele-nummers" not in ids(score("222m222p555s11z [555p]", {"double_numbers_suits": "same"}))
    assert score("222m222p555m11z [555p]", {"double_numbers_suits": "same"}).total == 1500


def test_triple_east_different_numbers():
    # 000:46 (000-14 b): 2m 2p 4s share a number -> only under triple_numbers=any
    tiles = "222m222p444s77z [111z]"
    assert score(tiles).total == 1000
    assert "drievoudig-oost" not in ids(score(tiles, {"triple_numbers": "different"}))


def test_chinese_odds_bamboo():
    # 000:64 literal (000-15 a): bamboo is not allowed; option any -> 1500
    tiles = "111s333s555s77s [999s]"
    assert "chinese-odds" not in ids(score(tiles))
    assert score(tiles, {"chinese_odds_suits": "any"}).total == 1500


def test_snake_extra_any_suit():
    # 000:73 (000-16): 1-9m + each wind + 1p: not under snake-suit (not a winning hand), 1000 under any-suit
    with pytest.raises(HandError):
        score("123456789m1p1234z")
    assert score("123456789m1p1234z", {"snake_extra": "any-suit"}).total == 1000


def test_red_pairs_j_only():
    # 000:101-102 (000-17 b): four alike count only in the green hand -> red hand k impossible
    with pytest.raises(HandError):
        score("1111557799s7777z", {"four_alike_pairs": "j-only"})


def test_haken_any_numbers():
    # 000:107 (000-18): triples 1m5p1s 2m6p2s 3m7p3s 4m8p4s + pair 9m 9p: only under knit_numbers=any
    tiles = "12349m56789p1234s"
    with pytest.raises(HandError):
        score(tiles)
    assert score(tiles, {"knit_numbers": "any"}).total == 250


def test_breien_any_suits():
    # 000:111 (000-18): pairs 1mp 2ms 3ps 5mp 7ms 8ps 9mp mix three suits: only under knit_suits=any
    tiles = "12579m13589p2378s"
    with pytest.raises(HandError):
        score(tiles)
    assert score(tiles, {"knit_suits": "any"}).total == 250


def test_hachi_ban_any_pairs():
    # 000:118 (000-19): East East East East + South South = 3 wind pairs only under hachi_ban_pairs=any
    tiles = "12345678m111122z"
    with pytest.raises(HandError):
        score(tiles)
    assert score(tiles, {"hachi_ban_pairs": "any"}).total == 1750


def test_golden_gate_free_suits():
    # 000:130 (000-20): 999s + Green pung + pairs 6 8 characters, 2 4 circles: only under 'free'
    tiles = "6688m2244p999s666z"
    with pytest.raises(HandError):
        score(tiles)
    assert score(tiles, {"golden_gate_suit": "free"}).total == 1750


def test_all_in_hand_kongs():
    # 000:144 (000-21): with a concealed kong 2222m: 1000 when allowed; not when not-allowed ->
    # ordinary: concealed kong 2-8 16 + pungs 444m 666p 888s 3 x 4 = 12 + pair White 2 = 30;
    # not clean -> no mah-jong points; doublings: all pungs 1 -> 60
    tiles = "444m666p888s55z (2222m)"
    assert score(tiles).total == 1000
    assert score(tiles, {"all_in_hand_kongs": "not-allowed"}).total == 60


def test_all_in_hand_discard_pung():
    # 000:143-144 is a closed special hand (000:65 'dichte spelen'), whose winning tile may be a discard:
    # 111m 222m 333m 444p 55s won on the discard 4p -> 1000 under the default 'allowed', and the line cites
    # the option, as it decides it. Under 'exposed' (RULINGS principle 6) 444p is an exposed pung:
    # open pung 2-8 444p 2 (000:153) + concealed 222m 333m 2 x 4 = 8 + concealed terminal pung 111m 8
    # (000:157, ones are 'honneurs') + pair 55s 0 = 18; not clean -> no mah-jong points (000:163);
    # only pungs 1 doubling (000:170) -> 36. Won on 5s (the pair) it is 1000 under both, not citing it.
    tiles = "111222333m444p55s"
    r = score(tiles, win="4p")
    assert r.total == 1000
    assert "all_in_hand_discard_pung=allowed" in explain(r)
    r = score(tiles, {"all_in_hand_discard_pung": "exposed"}, win="4p")
    assert "alle-stenen-in-de-hand" not in ids(r)
    assert r.total == 36
    for opts in ({}, {"all_in_hand_discard_pung": "exposed"}):
        r = score(tiles, opts, win="5s")
        assert r.total == 1000 and not any("all_in_hand_discard_pung" in (ln.option or "") for ln in r.lines)


def test_fixed_hands_best_counts_the_ordinary_count_when_higher():
    # a seed tester's: four concealed honour kongs + a pair, won on the dead wall. Kong Hand (000:59-61) 2000 by
    # default (RULINGS 000-26 (a)). Under fixed_hands=best its ordinary count: 4 concealed honour kongs 4 x 32 = 128
    # (000:158) + mah-jong from the wall 20 (000:161) + dead wall 2 (000:165) = 150 points; doublings clean (000:169),
    # only pungs/kongs (000:170), own wind 1z (000:172), round wind 1z (000:173), three dragon kongs 3 (000:174) = 7:
    # 150 x 2^7 = 19200, and the explanation names Kong Hand as not counted.
    tiles = "22m (1111z) (5555z) (6666z) (7777z)"
    r = score(tiles, win="2m", win_by="dead-wall")
    assert r.total == 2000
    assert ("the hand's ordinary count is higher, 19200 = 150 points × 2^7: dutch-special-hands scores Kong Hand "
            "instead (000_f626c313f8929ba8.txt:59-61); option fixed_hands=best scores the higher") in r.notes, r.notes
    r = score(tiles, {"fixed_hands": "best"}, win="2m", win_by="dead-wall")
    assert r.total == 19200 and (r.points, r.doublings) == (150, 7), (r.points, r.doublings)
    assert "not counted: Kong Hand" in explain(r) and "(option fixed_hands=best)" in explain(r)
    # … and the count wins where it is higher: 222p 555p 666p 777p 88p self-drawn is
    # 'alle stenen in de hand' 1000 (000:143-144); its count: 4 concealed pungs 2-8 4 x 4 = 16 + 20 = 36 points,
    # only pungs 1 + 2-8 of one suit 4 (000:181, the clean doubling lapses) = 5: 36 x 32 = 1152 > 1000
    r = score("222555666777p88p", {"fixed_hands": "best"}, win="8p", win_by="wall")
    assert r.total == 1152
    # a special hand worth more than its count stays: 222m 444m 666p 888s 55z (drawn) is 'alle stenen in de hand'
    # 1000; its count 4 concealed pungs 2-8 16 (000:153) + White pair 2 (000:156) = 18, not clean: no mah-jong
    # points (000:163); only pungs 1 doubling (000:170): 36 < 1000
    r = score("222444m666p888s55z", {"fixed_hands": "best"}, win="2m", win_by="wall")
    assert r.total == 1000 and "not counted" not in explain(r)
    # an announced wait (000:183-188) on the 1152 hand: the ×1.5 is the closed special hand's under the default
    # waiting_hand_scope=closed-special (000-27): 1.5 × 1000 = 1500 beats the ordinary 1152, which takes no ×1.5 (a
    # reviewer's: 36 × 2^5 × 1.5 = 1728 had been given, the wait's line naming the special hand passed over)
    r = score("222555666777p88p", {"fixed_hands": "best"}, win="8p", win_by="wall", announced_wait=True)
    assert r.total == 1500 and "not counted" not in explain(r), explain(r)


def test_all_in_hand_not_with_exposed_pung():
    # 000:143-144: an exposed pung breaks it: exposed 222m 2 + concealed 444m 666p 888s 12 + pair 2 = 16;
    # all pungs 1 doubling -> 32
    r = score("444m666p888s55z [222m]")
    assert "alle-stenen-in-de-hand" not in ids(r)
    assert r.total == 32


def test_closed_hand_with_exposed_meld_never_matches():
    # 000:65 "dichte spelen": Windy Ones with the 111m pung exposed is no special hand (and no
    # 4 sets + pair) -> not a winning hand
    with pytest.raises(HandError):
        score("111p111s12344z [111m]")


def test_earth_any_later_win():
    # 000:150 (000-22 b): only dealt-waiting, hand changed: not under 'unchanged', 1500 under 'any-later-win'
    tiles = "123m456p789s234m55z"
    assert "spel-uit-de-aarde" not in ids(score(tiles, flags=("dealt-waiting",)))
    assert score(tiles, {"earth_hand": "any-later-win"}, flags=("dealt-waiting",)).total == 1500


def test_flag_that_scores_nothing_names_the_flag_it_lacks():
    # 000:150 under earth_hand=unchanged (000-22 a): --flag dealt-waiting alone scores no line; a referee's hand had
    # been told nothing. The note names --flag hand-unchanged, with which Spel uit de Aarde's 1500 counts.
    r = score("123m456p789s234m55z", flags=("dealt-waiting",))
    assert [n for n in r.notes if n.startswith("--flag")] == [
        "--flag dealt-waiting scores nothing here: with --flag hand-unchanged too it scores Spel uit de Aarde — Hand "
        "from the Earth: mah-jong from a waiting hand formed by the first 13 tiles (flags dealt-waiting, "
        "hand-unchanged) (1500 fixed, 000_f626c313f8929ba8.txt:149-150; option earth_hand=unchanged, 000-22)"]
    # both flags: the line counts, no note
    both = score("123m456p789s234m55z", flags=("dealt-waiting", "hand-unchanged"))
    assert both.total == 1500 and not [n for n in both.notes if n.startswith("--flag")]
    # both flags met, won on East's first discard by South: Goddelijke Hand (2000, 000:145-146, RULINGS principle 5:
    # the highest special hand alone) counts over Spel uit de Aarde (1500); the flags' note says they are met and
    # outranked (a referee's note had said "as option earth_hand=unchanged reads it", which decided nothing)
    r = score("123m456m789m555p22z", win="2z", seat_wind="S", first_turn=True,
              flags=("dealt-waiting", "hand-unchanged"))
    notes = [n for n in r.notes if n.startswith("--flag")]
    assert r.total == 2000 and len(notes) == 2 and all(
        "its special hand, Spel uit de Aarde" in n and "is met, but Goddelijke Hand" in n and "counts instead: only the "
        "highest special hand scores (RULINGS principle 5)" in n and "earth_hand" not in n for n in notes), notes
    # one flag alone: the other would meet it, and it would be outranked all the same (no option to blame)
    one = score("123m456m789m555p22z", win="2z", seat_wind="S", first_turn=True, flags=("dealt-waiting",))
    said = [n for n in one.notes if n.startswith("--flag")]
    assert len(said) == 1 and said[0].startswith("--flag dealt-waiting scores nothing here: with --flag hand-unchanged "
                                                 "too its special hand, Spel uit de Aarde") and "earth_hand" not in said[0]


def test_special_hand_adds_flowers_only():
    # RULINGS 000-26: Keizerlijke Jade 2000 + 2 flowers x 4 = 2008; own flower (1f for East) gives no
    # doubling on a special hand
    assert score("222s333s444s66z [888s] +1f2f").total == 2008


def test_overlap_highest_scores():
    # 000-11: seven pairs of winds and dragons are Pair hands a (1500), c (750), f (250): 1500
    r = score("11223344556677z")
    assert r.total == 1500 and [ln.rule for ln in r.lines if ln.kind == "fixed"] == ["paren-a"]


# --------------------------------------------------------------------------- PUNTENTELLING (000:152-166)
# Non-winners with three suits (never clean, no doublings) isolate one row each.
POINT_ROWS = [
    # 000:153 exposed pung 2-8 = 2
    ("pung-simples-open", "[222m] 57p246s1234z9p", 2),
    # 000:153 concealed pung 2-8 = 4
    ("pung-simples-closed", "222m57p246s1234z9p", 4),
    # 000:154 exposed kong 2-8 = 8
    ("kong-simples-open", "[2222m] 57p246s1234z9p", 8),
    # 000:154 concealed kong 2-8 = 16
    ("kong-simples-closed", "(2222m) 57p246s1234z9p", 16),
    # 000:155-156 pair of 1s (an honour, 000-08 a literal) = 2
    ("pair-honours", "113m57p246s2345z9p", 2),
    # 000:157 exposed pung of West (not seat or round wind: no doubling) = 4
    ("pung-honours-open", "[333z] 147m57p2469s2z", 4),
    # 000:157 concealed pung of 9 circles = 8
    ("pung-honours-closed", "999p147m57p2468s2z", 8),
    # 000:158 exposed kong of West = 16
    ("kong-honours-open", "[3333z] 147m57p2469s2z", 16),
    # 000:158 concealed kong of West = 32
    ("kong-honours-closed", "(3333z) 147m57p2469s2z", 32),
    # 000:159 a flower (Orchid, not East's own) = 4
    ("bonus-tile", "147m257p246s1234z +2f", 4),
]


@pytest.mark.parametrize("rule,notation,expected", POINT_ROWS, ids=[c[0] for c in POINT_ROWS])
def test_point_row(rule, notation, expected):
    r = score(notation, winner=False)
    assert rule in ids(r)
    assert r.total == expected


def test_pair_value_only():
    # 000-08 b: a pair of 1s scores nothing under pair_points=value-only; a pair of Red scores 2
    assert score("113m57p246s2345z9p", {"pair_points": "value-only"}, winner=False).total == 0
    assert score("13m57p246s23457z7z", {"pair_points": "value-only"}, winner=False).total == 2


# A clean winner (characters + winds): 123 456 789 234 characters + South pair (2, 000:156), seat E.
CLEAN = "123456789m234m22z"


def test_mahjong_drawn():
    # 000:161 self-drawn 20: (2 pair + 20) = 22 x 2^1 (clean, 000:169) = 44
    assert score(CLEAN, win="9m", win_by="wall").total == 44


def test_mahjong_discard():
    # 000:162 discard 10: (2 + 10) = 12 x 2 = 24
    assert score(CLEAN, win="9m").total == 24


def test_not_clean_no_mahjong_points():
    # 000:163 (RULINGS 000-07): 123m 456p 789s 234m + South pair, self-drawn: 2 points, no mah-jong
    # points, no doublings = 2
    r = score("123m456p789s234m22z", win="9s", win_by="wall")
    assert "not-clean" in ids(r) and "mahjong-drawn" not in ids(r)
    assert r.total == 2


def test_not_clean_all_points_option():
    # 000-07 b: the pair's 2 points are forfeited as well -> 0
    assert score("123m456p789s234m22z", {"not_clean_forfeits": "all-points"}, win="9s", win_by="wall").total == 0


def test_not_clean_one_suit_only_option():
    # 000-07 (meaning b, option clean_meaning=one-suit-only): characters + South is not clean ->
    # 2 points, nothing else = 2
    assert score(CLEAN, {"clean_meaning": "one-suit-only"}, win="9m", win_by="wall").total == 2


def test_last_wall_tile():
    # 000:164: (2 + 20 + 2) = 24 x 2 = 48
    assert score(CLEAN, win="9m", win_by="wall", last_tile=True).total == 48


def test_dead_wall_tile():
    # 000:165: a dead-wall tile is drawn (20) + 2 extra; the replacement for the flower 2f (000:159, 4 points;
    # not the seat's own flower, so no doubling): (2 pair + 4 flower + 20 + 2) = 28 x 2 (clean, 000:169) = 56
    assert score(CLEAN + " +2f", win="9m", win_by="dead-wall").total == 56
    # option dead_wall_mahjong=neither (000-23: the dead wall not 'de muur' of 000:161, its tile no discard of
    # 000:162): no mah-jong points, the +2 extra alone: (2 + 4 + 2) = 8 x 2 = 16; the 20 line names the option
    assert score(CLEAN + " +2f", {"dead_wall_mahjong": "neither"}, win="9m", win_by="dead-wall").total == 16
    drawn = [ln for ln in score(CLEAN + " +2f", win="9m", win_by="dead-wall").lines if ln.rule == "mahjong-drawn"]
    assert len(drawn) == 1 and "dead_wall_mahjong=drawn, 000-23" in drawn[0].option, drawn
    # a wall tile's 20 does not name it (the option decides nothing there)
    wall = [ln for ln in score(CLEAN, win="9m", win_by="wall").lines if ln.rule == "mahjong-drawn"]
    assert len(wall) == 1 and "dead_wall_mahjong" not in wall[0].option, wall
    # with no kong and no flower there was no dead-wall tile to draw (scoring.hand.check_context)
    with pytest.raises(HandError, match="dead wall"):
        score(CLEAN, win="9m", win_by="dead-wall")


def test_kongroof():
    # 000:166: robbed kong = a tile from another player, 10 (000-23) + 10 extra: (2 + 10 + 10) x 2 = 44
    assert score(CLEAN, win="9m", win_by="robbed-kong").total == 44
    # option robbed_kong_mahjong=drawn: (2 + 20 + 10) x 2 = 64
    assert score(CLEAN, {"robbed_kong_mahjong": "drawn"}, win="9m", win_by="robbed-kong").total == 64


# --------------------------------------------------------------------------- VERDUBBELEN (000:167-182)
# A winner that is not clean (three suits): no mah-jong points, base points from sets and pairs only.
def test_clean_doubling():
    # 000:169: CLEAN by discard = 12 points x 2^1 = 24 (see test_mahjong_discard); 'schoon' fires
    assert "clean" in ids(score(CLEAN, win="9m"))


def test_all_pungs_doubling():
    # 000:170: concealed pungs 222m 444p 666s 3 x 4 = 12 + exposed 888m 2 + West pair 2 = 16; not
    # clean; 1 doubling -> 32 (all four concealed would be 'alle stenen in de hand', 000:143)
    r = score("222m444p666s33z [888m]")
    assert "all-pungs" in ids(r) and r.total == 32


def test_own_flower_doubling():
    # 000:171: South seat with 2f: (South pair? no: West pair 2) pair 2 + flower 4 = 6 x 2^1 = 12
    assert score("123m456p789s234m33z +2f", seat_wind="S").total == 12


def test_own_flower_and_season_each():
    # 000:171 (000-25 INFERRED): own flower and own season: 2 + 8 = 10 x 2^2 = 40
    assert score("123m456p789s234m33z +2f2y", seat_wind="S").total == 40


def test_own_wind_pung():
    # 000:172: seat S, round E: exposed South pung 4 + West pair 2 = 6 x 2^1 = 12
    assert score("123m456p789s33z [222z]", seat_wind="S").total == 12


def test_round_wind_pung():
    # 000:173: seat S, round W: exposed West pung 4 + North pair 2 = 6 x 2^1 = 12
    assert score("123m456p789s44z [333z]", seat_wind="S", round_wind="W").total == 12


def test_seat_and_round_wind_pung():
    # 000:172-173 (000-24, RULINGS each): East pung for East in the East round: 6 x 2^2 = 24; once: 12
    assert score("123m456p789s44z [111z]").total == 24
    assert score("123m456p789s44z [111z]", {"seat_round_wind": "once"}).total == 12


def test_dragon_pungs():
    # 000:174 (one per pung, 000-24): White, Red exposed 4 + 4 + North pair 2 = 10 x 2^2 = 40
    assert score("123m456p44z [555z] [777z]").total == 40


def test_all_flowers():
    # 000:175: South with 1f-4f: pair 2 + 16 = 18; own flower 2f 1 + all flowers 1 = 2 -> 72
    r = score("123m456p789s234m33z +1234f", seat_wind="S")
    assert "bouquet-one" in ids(r) and r.total == 72


def test_all_flowers_and_seasons():
    # 000:176: 8 bonus tiles 32 + pair 2 = 34; own 2f 2y = 2, both series 2 -> 4 doublings: 34 x 16 = 544
    r = score("123m456p789s234m33z +1234f1234y", seat_wind="S")
    assert "bouquet-both" in ids(r) and r.total == 544
    # the bouquets do not stack: "alle bloemen of alle seizoenen" (000:175) is one series alone, so all eight score
    # 000:176's 2 alone (with 1 + 2 it would be 5 doublings, 1088: a referee's question, docs/rulesets)
    assert "bouquet-one" not in ids(r)
    # 000-25 b (bouquet replaces own): 2 doublings -> 136
    assert score("123m456p789s234m33z +1234f1234y", {"bouquet_with_own": "replace"}, seat_wind="S").total == 136


def test_nonwinner_gets_clean_doubling():
    # 000:178: non-winner 111m 999m 234567m + White: pungs of 1s and 9s 8 + 8 = 16; clean 1 -> 32
    r = score("111234567999m5z", winner=False)
    assert "clean-nonwinner" in ids(r) and r.total == 32


def test_nonwinner_pung_doublings():
    # 000:178 (RULINGS 000-09 a): non-winner with an exposed White pung 4 x 2^1 = 8;
    # option loser_excludes=all_pung_kong_doublings: 4
    tiles = "[555z] 123m456p789s4z"
    assert score(tiles, winner=False).total == 8
    assert score(tiles, {"loser_excludes": "all_pung_kong_doublings"}, winner=False).total == 4


def test_nonwinner_own_flower():
    # 000:178: a non-winner's own flower (1f, East): 4 points x 2^1 = 8
    assert score("147m257p246s1234z +1f", winner=False).total == 8


def test_pure_suit_everyone():
    # 000:180 (3) and 000:182 (the clean doubling lapses): winner 111 234 567 999 + 55 characters,
    # discard, no winning tile: concealed pungs of 1s and 9s 8 + 8 + mah-jong 10 (pure is clean) = 26
    # x 2^3 = 208. (4 chows + a pair of one suit would be Maan b, 000:87.)
    r = score("11123456799955m")
    assert "pure-suit" in ids(r) and "clean" not in ids(r)
    assert r.total == 208


def test_pure_suit_keeps_clean_option():
    # 000-10 (clean_lapse=simples-only): clean 1 + pure 3 -> 26 x 16 = 416
    assert score("11123456799955m", {"clean_lapse": "simples-only"}).total == 416


def test_pure_simples():
    # 000:181: 222 345 567 888 + 66 characters: pungs 4 + 4 + mah-jong 10 = 18 x 2^4 = 288
    # (not also the 3 of 000:180, not clean: 000:182)
    r = score("22234556667888m")
    assert "pure-simples" in ids(r) and "pure-suit" not in ids(r) and "clean" not in ids(r)
    assert r.total == 288


def test_pure_simples_any_suits():
    # 000-10 b: 222m + chows in circles/bamboo, only 2-8: concealed pung 4 x 2^4 = 64; default (one suit): 4
    tiles = "222345m456p678s88p"
    assert score(tiles).total == 4
    assert score(tiles, {"simples_doubling": "any-suits"}).total == 64
    # the line says what the option asks (a referee's three-suit hand had been told "only 2-8 of one suit")
    name = {ln.rule: ln.name for ln in score(tiles, {"simples_doubling": "any-suits"}).lines}["pure-simples"]
    assert name.endswith("only 2-8, of any suits; the clean doubling lapses"), name
    assert {ln.rule: ln.name for ln in score("22234556667888m").lines}["pure-simples"].endswith(
        "only 2-8 of one suit; the clean doubling lapses")


def test_pure_nonwinner():
    # 000:179-180 'voor allen': non-winner 1 22 3 4 55 6 7 8 999 characters: pung of 9s 8 (pairs of
    # 2 and 5 score nothing) x 2^3 = 64
    r = score("1223455678999m", winner=False)
    assert "pure-suit" in ids(r) and r.total == 64


# --------------------------------------------------------------------------- WACHTEND SPEL (000:183-188)
def test_announced_wait_snake():
    # 000:187-188 (RULINGS 000-26): Snake a 1000, waiting only on 5m: 1.5 x 1000 + 4 (flower) = 1504
    r = score("123456789m1234z1z +1f", win="5m", announced_wait=True)
    assert "announced-wait" in ids(r) and r.total == 1504


def test_announced_wait_pairs():
    # Pair hand a 1500 waiting only on Red: 1.5 x 1500 = 2250
    assert score("11223344556677z", win="7z", announced_wait=True).total == 2250


def test_announced_wait_not_the_only_tile():
    # 000:184 "de enig mogelijke": 1-9m + winds waits on 1m 9m winds dragons -> no 1.5x, a note;
    # 1000 + 4 = 1004
    r = score("123456789m1234z1z +1f", win="1z", announced_wait=True)
    assert "announced-wait-refused" in ids(r) and r.total == 1004


def test_announced_wait_ordinary_hand():
    # 000-27 a: an ordinary hand gets no 1.5x: concealed East pung 8 + South pair 2 + 10 = 20 x 2^3
    # (clean, own wind, round wind) = 160; under waiting_hand_scope=any-concealed: 1.5 x 160 = 240
    tiles = "123456789m111z22z"
    assert score(tiles, win="2z", announced_wait=True).total == 160
    assert score(tiles, {"waiting_hand_scope": "any-concealed"}, win="2z", announced_wait=True).total == 240


def test_announced_wait_flowers_outside_multiplier_ordinary():
    # 000:188 + RULINGS 000-26 under any-concealed: value without the flower (2f, not own) 160,
    # with it (20 + 4) x 8 = 192; 1.5 x 160 + (192 - 160) = 272
    tiles = "123456789m111z22z +2f"
    r = score(tiles, {"waiting_hand_scope": "any-concealed"}, win="2z", announced_wait=True)
    assert r.total == 272 and any("= 272" in n for n in r.notes)
    # the total line does not call this a limit (dutch-special-hands has none): 24 points × 2^3 × 1.5
    # = 288 is the formula, 272 the 000-26 count the note explains
    assert "total: 272 = 24 points × 2^3 × 1.5 = 288; counted as 272 (see the notes)" in explain(r).splitlines()


# --------------------------------------------------------------------------- misc
def test_closed_hands_list_matches_section_2():
    """CLOSED_HANDS is exactly the rules citing 000:65-150 (the closed section)."""
    rs = load_ruleset(RS)
    section2 = {r.id for r in rs.rules if r.kind == "fixed"
                and 65 <= int(r.source.split(":")[1].split("-")[0]) <= 150}
    assert section2 == set(dsh.CLOSED_HANDS)


def test_unknown_flag():
    with pytest.raises(HandError, match="unknown flag"):
        score(CLEAN, flags=("nope",))


def test_wrong_tile_count():
    with pytest.raises(HandError, match="needs 14 tiles"):
        score("123456789m234m2z")


def test_the_round_wind_pung_cites_seat_round_wind_only_when_it_is_the_seat_wind():
    # 000:173 pung of the round wind, 1 doubling; 000-24 (seat_round_wind) decides it only when the
    # round wind is also the seat wind (under 'once' it then does not count, 000:172 having counted it)
    from scoring import Context, parse_hand, score_hand

    def line(seat):
        r = score_hand(parse_hand("234m678m345s66z [111z]", winning_tile="6m", context=Context(seat_wind=seat)),
                       "dutch-special-hands")
        return next(ln for ln in r.lines if ln.rule == "round-wind-pung")

    assert line("S").doublings == 1 and "seat_round_wind" not in line("S").option
    assert "seat_round_wind=each" in line("E").option


def test_hand_from_heaven_needs_a_win_from_the_wall():
    # 000:145-146 "Oost maakt mah-jong met de eerste 14 stenen": East's first 14 tiles, the last drawn from
    # the wall; a first-turn win by discard is not Spel uit de Hemel (it had scored 2000). Scored as any
    # hand: pair of dragons 55z 2 points (000:155-156); four chows in three suits are not clean, so no
    # mah-jong points (000:163, option not_clean_forfeits=mahjong-points) → 2
    r = score("123m456p789s234m55z", win="5z", first_turn=True, win_by="discard")
    assert "spel-uit-de-hemel" not in ids(r)
    assert r.total == 2
    assert any("won by wall" in n and "Spel uit de Hemel" in n for n in r.notes), r.notes


def test_an_option_that_keeps_a_special_hand_out_is_named():
    # a referee (RULINGS principle 3, a line decided by an ambiguity names the option): 222p 333p 666p 555z 88p,
    # won on 8p, scores 240 under the default pearl_six=excluded (000-06: the Parel Hand's sixes are left out), where
    # pearl_six=allowed makes it the Parel Hand, 1250 (000:28-30). The default alone decides it: said in a note
    hand = parse_hand("222p333p666p555z88p", winning_tile="8p", context=Context())
    assert score_hand(hand, RS).notes == score_hand(hand, RS, option_notes=False).notes  # (opt-in: costs 17 scorings)
    r = score_hand(hand, RS, option_notes=True)
    allowed = score_hand(hand, RS, {"pearl_six": "allowed"})
    assert allowed.total == 1250 and r.total != 1250
    note = next(n for n in r.notes if n.startswith("under option pearl_six=allowed (000-06)"))
    assert f"Parel Hand 1250 fixed ({SEED}:28-30), 1250 in all; scored here with pearl_six=excluded, the default" \
        in note
    # a hand refused under the default that another choice makes a special hand: Snake a under
    # snake_extra=any-suit (000-16), 123456789m 1234z 9p: the extra tile of another suit (000:73)
    snake = parse_hand("123456789m1234z9p", winning_tile="9p", context=Context())
    with pytest.raises(HandError, match=r"not a winning hand .*; under option snake_extra=any-suit \(000-16\) this "
                                        r"hand is Slangenspel a 1000 fixed"):
        score_hand(snake, RS, option_notes=True)
    assert score_hand(snake, RS, {"snake_extra": "any-suit"}).total == 1000
