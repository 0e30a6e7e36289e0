"""Ruleset rode-draak (seed 001_20e8f920a7ce7e86.txt, base NTS seed 002): one test per seed line.

"001:L" = line L of seed 001; "002:L" = the NTS base (ordinary points and doublings, 001 is an
excerpt). Ordinary hands: NTS points × 2^doublings, uncapped (001:46); limit hands 1000 / 500,
× 2 entirely in the hand (RULINGS 001-11).
"""
from __future__ import annotations

import json
import re

import pytest

from cli import main
from scoring import CircumstanceError, Context, HandError, load_ruleset, parse_hand, score_hand

RS = "rode-draak"
SEED = "001_20e8f920a7ce7e86.txt"


def score(notation: str, options=None, win: str | None = None, **ctx):
    flags = ctx.pop("flags", ())
    hand = parse_hand(notation, winning_tile=win, context=Context(flags=frozenset(flags), **ctx), sizes=None)
    return score_hand(hand, RS, options)


def ids(result) -> set[str]:
    return {ln.rule for ln in result.lines}


def limit_rule(result) -> list[str]:
    return [ln.rule for ln in result.lines if ln.kind == "limit"]


# A clean hand with a kong (for the dead-wall / robbed-kong / first-turn items): 123m 456m in the
# hand, East pair, exposed 789m and exposed Green kong (a Red kong would make it Het Spel van de
# Rode Draak, 001:90). Points (002:10-13): Green kong exposed 16 (002-02 as terminals), East pair
# 2 x 2 (seat and round wind, 002-04 each) = 4, mahjong 20 = 40 before the wait items; doublings:
# Green kong 1 (002:60), clean 4 (002:65) = 5.
KONG = "123m456m11z [789m] [6666z]"


# --------------------------------------------------------------------------- 001:1 entry rule
def test_entry_clean_allowed():
    # 001:1 clean: exposed Red pung 4, East pair 4, mahjong 20, only possible tile 2, pair completed 2
    # = 32; doublings: Red pung 1 + clean 4 = 5 -> 32 x 32 = 1024
    r = score("123m456m789m11z [777z]", win="1z")
    assert r.allowed and "entry-clean" in ids(r) and r.total == 1024


def test_entry_not_clean_refused():
    # 001:1 (RULINGS 001-03): three suits, 0 doublings: "mahjong not allowed", total 0, never silent
    r = score("123m456p789s11z [777p]", win="1z")
    assert not r.allowed and r.total == 0
    assert r.status.startswith("mahjong not allowed:") and "0 doublings" in r.status


def test_entry_two_doublings_allowed():
    # 001:1 (RULINGS 001-03 total): not clean but White and Red pungs: 2 doublings (002:60).
    # Points: 4 + 4 + East pair 4 + 20 + only possible 2 + pair completed 2 = 36 x 2^2 = 144
    r = score("123m456p11z [555z] [777z]", win="1z")
    assert r.allowed and r.total == 144 and "2 doublings" in r.status


def test_entry_single_item_option():
    # 001-03 a (entry_doublings=single-item): the two dragon pungs are two items of 1 -> refused
    r = score("123m456p11z [555z] [777z]", {"entry_doublings": "single-item"}, win="1z")
    assert not r.allowed and r.total == 0


# --------------------------------------------------------------------------- 001:3-21 doublings
def test_winst_met_gelijke():
    # 001:5 replaces NTS 'Vier pungs' (002:47): concealed 222m 444p 666s 4 x 3 = 12, exposed 888m 2,
    # East pair 4, mahjong 20 = 38; doublings: Gelijke 1, 3 concealed pungs 1 (002:61) = 2 -> 152
    r = score("222m444p666s11z [888m]")
    assert "four-pungs" in ids(r)
    assert [ln.name for ln in r.lines if ln.rule == "four-pungs"] == ["Winst met Gelijke — Win with Equals: only pungs/kongs (replaces NTS 'Vier pungs', the same item)"]
    assert r.total == 152


def test_winst_met_gelijke_2_8():
    # 001:7 (001-04 a): 222m 444p 666s concealed 12 + exposed 333s 2 + pair 88m 0 + mahjong 20 = 34;
    # doublings: Gelijke 1, Gelijke 2-8 1 ("so 2 in total"; it replaces NTS pure simplicity 002:48,
    # the same feature), 3 concealed pungs 1 = 3 -> 272
    r = score("222m444p666s88m [333s]")
    assert "pure-simplicity" not in ids(r) and r.total == 272
    # equals_2_8=included: Gelijke 1 + NTS pure simplicity 1 + 3 concealed pungs 1 = 3 doublings -> 272
    assert score("222m444p666s88m [333s]", {"equals_2_8": "included"}).total == 272


def test_kong_met_bloeiende_bloemen():
    # 001:9: win on 6m from the dead wall: 40 + self-drawn 2 (002:14) = 42 (waits 3m/6m: not the only
    # tile); doublings 5 + 1 = 6 -> 42 x 64 = 2688
    r = score(KONG, win="6m", win_by="dead-wall")
    assert "kong-blooming" in ids(r) and r.total == 2688


def test_bloeiende_bloemen_kong_only():
    # 001-05 b: the dead-wall tile replaced the flower 2f -> no doubling: 42 x 32 = 1344 (the flower scores
    # nothing here: no line of 001/002 counts bonus tiles)
    r = score(KONG + " +2f", {"blooming_flowers": "kong-only"}, win="6m", win_by="dead-wall",
              flags=("flower-replacement",))
    assert r.total == 1344 and "kong-blooming" not in ids(r)
    # the flag says a flower was replaced: a hand showing none is refused (this test had scored one)
    with pytest.raises(HandError, match="flag flower-replacement says the winning tile replaced a flower"):
        score(KONG, {"blooming_flowers": "kong-only"}, win="6m", win_by="dead-wall", flags=("flower-replacement",))
    # a non-winner is told to leave the flag out (a tester's was told to give --win-by dead-wall, which the
    # non-winner then could not)
    with pytest.raises(HandError, match="scored as a non-winner: leave the flag out"):
        score("123m456p789s1z [777p] +1f", winner=False, flags=("flower-replacement",))
    with pytest.raises(HandError, match="needs --win-by dead-wall"):
        score(KONG + " +2f", win="6m", win_by="wall", flags=("flower-replacement",))


def test_kongroof_with_chow():
    # 001:11: robbed 6m completes the chow 456m: 40 points; doublings 5 + 1 = 6 -> 40 x 64 = 2560
    r = score(KONG, win="6m", win_by="robbed-kong")
    assert "robbing-the-kong" in ids(r) and r.total == 2560


def test_kongroof_on_a_tile_held_is_refused():
    # 001:11 "Kongroof: Mahjong halen met een chow": a robbed tile completes a chow. It can complete no
    # pair (nor pung): the robbed pung holds its other three copies, so a winner holding an East beside
    # the robbed East would make five. This test had scored that impossible hand (1408; 2816 with option
    # robbing_kong=any); it is refused (scoring.hand.check_context), under either option
    for opts in (None, {"robbing_kong": "any"}):
        with pytest.raises(HandError, match="robbed kong"):
            score(KONG, opts, win="1z", win_by="robbed-kong")


def test_gelukkige_dertien():
    # 001:13: announced dealt waiting hand wins on 6m (discard): 40 x 2^(5 + 1) = 2560
    r = score(KONG, win="6m", announced_wait=True, flags=("dealt-waiting",))
    assert "lucky-thirteen" in ids(r) and r.total == 2560
    assert score(KONG, win="6m").total == 1280  # without it: 40 x 2^5


def test_spel_van_de_aarde():
    # 001:17: South wins on East's first discard (so nothing on the table: no turn to claim or declare):
    # concealed Green pung 8 (002:11, as terminals), East pair = round wind only 2 (002:12), mahjong 20
    # (002:13) = 30; doublings: Green pung 1 (002:60), clean 4 (002:65), earth 2 (001:17) = 7
    # -> 30 x 128 = 3840 (not the NTS 1000 fixed hand)
    r = score("123m456m789m666z11z", win="6m", seat_wind="S", first_turn=True)
    assert "earth" in ids(r) and r.total == 3840


def test_first_turn_with_an_exposed_meld_is_refused():
    # nothing can have been claimed before East's first discard: the context contradicts the table
    with pytest.raises(HandError, match="first turn"):
        score(KONG, win="6m", seat_wind="S", first_turn=True)


def test_verborgen_schat():
    # 001:21: 123 456 789 234 characters + East pair, self-drawn 9m: East pair 4, 20, self-drawn 2 = 26;
    # doublings: four chows 1 (002:46), clean 4, Hidden Treasure 3 = 8 -> 26 x 256 = 6656
    r = score("123456789m234m11z", win="9m", win_by="wall")
    assert "hidden-treasure" in ids(r) and r.total == 6656


def test_drie_wijzen():
    # 001:21 (001-08 a): White, Green, Red pungs exposed 3 x 4 = 12, East pair 4, 20, only possible 2,
    # pair completed 2 = 40; doublings: 3 dragon pungs 3, clean 4, Three Wise Men 3 = 10 -> 40960
    r = score("123m11z [555z] [666z] [777z]", win="1z")
    assert "three-wise-men" in ids(r) and r.total == 40960
    # as written (001-08 b): never -> 40 x 2^7 = 5120
    assert score("123m11z [555z] [666z] [777z]", {"three_wise_men": "as-written"}, win="1z").total == 5120


def test_limit_geheel_in_de_hand():
    # 001:21 "Bij limietspelen: 1x verdubbelen" (RULINGS 001-11): Thirteen Orphans self-drawn 2000,
    # on a discard 1000
    assert score("19m19p19s12345671z", win="1z", win_by="wall").total == 2000
    assert score("19m19p19s12345671z", win="1z").total == 1000


# --------------------------------------------------------------------------- 001:44-102 limit hands
LIMITS = [
    # 001:58-60 Het Spel van de Hemel: East wins with the dealt tiles: Limit 1000, x 2 in the hand
    # (option heaven_in_hand=yes, 001:21) = 2000
    ("heaven", "123m456p789s234m55z", {"first_turn": True, "win_by": "wall"}, 2000),
    # 001:62-64 De Negen Poorten on a discard: Limit 1000
    ("nine-gates", "11123455678999m", {"win": "5m"}, 1000),
    # 001:62-64 self-drawn: geheel in de hand 1x verdubbelen = 2000
    ("nine-gates", "11123455678999m", {"win": "5m", "win_by": "wall"}, 2000),
    # 001:66-68 De Dertien Wezen: Limit 1000
    ("thirteen-orphans", "19m19p19s12345671z", {"win": "1z"}, 1000),
    # 001:70-72 De Zeven Tweelingen, superschoon (pure): Limit 1000
    ("seven-twins-superschoon", "11224455778899m", {"win": "9m"}, 1000),
    # 001:70-72 schoon: Half Limit 500
    ("seven-twins-schoon", "1122445577m1155z", {"win": "5z"}, 500),
    # 001:72 schoon, entirely in the hand: 500 x 2 = 1000
    ("seven-twins-schoon", "1122445577m1155z", {"win": "5z", "win_by": "wall"}, 1000),
    # 001:74-76 Slang 1: 1-9m + each wind, East doubled: Half Limit 500
    ("wind-snake", "123456789m11234z", {"win": "5m"}, 500),
    # 001:78-80 Slang 2: 1-9m + each dragon + 2 East: Half Limit 500
    ("dragon-snake", "123456789m11567z", {"win": "5m"}, 500),
    # 001:82-84 Peking Garden: 1-7m + each wind and dragon: Half Limit 500
    ("court-of-peking", "1234567m1234567z", {"win": "7z"}, 500),
    # 001:88-90 Het Spel van de Rode Draak: Red kong (concealed) + 1-9m + own-wind pair, discard: 500
    ("rode-draak-hand", "123456789m11z (7777z)", {"win": "1z"}, 500),
    # 001:90 self-drawn, nothing exposed: 500 x 2 = 1000
    ("rode-draak-hand", "123456789m11z (7777z)", {"win": "1z", "win_by": "wall"}, 1000),
    # 001:90 a regular limit hand may be exposed (001:50): exposed Red kong, South seat with South pair: 500
    ("rode-draak-hand", "123456789m22z [7777z]", {"win": "2z", "seat_wind": "S"}, 500),
    # 001:92-94 Het Jade Spel with an exposed pung (regular, 001:50): Limit 1000
    ("jade", "222s333s666z88s [444s]", {}, 1000),
    # 001:96-98 Het Vierwindenspel: 4 wind pungs + any pair: Limit 1000
    ("four-winds", "111z222z333z55m [444z]", {}, 1000),
    # 001:100-102 De Kronkelende Slang, first form: 111 + 22 + 345 + 678 + 999 (345 exposed): 1000
    ("winding-snake", "11122678999m [345m]", {}, 1000),
    # 001:102 second form: 111 + 234 + 55 + 678 + 999 (678 exposed): 1000
    ("winding-snake", "11123455999m [678m]", {}, 1000),
    # 001:102 third form: 111 + 234 + 567 + 88 + 999 (567 exposed): 1000
    ("winding-snake", "11123488999m [567m]", {}, 1000),
]


@pytest.mark.parametrize("rule,notation,ctx,expected", LIMITS, ids=[f"{c[0]}:{c[1]}" for c in LIMITS])
def test_limit_hand(rule, notation, ctx, expected):
    r = score(notation, **ctx)
    assert limit_rule(r) == [rule]
    assert r.total == expected and r.allowed


def test_every_limit_hand_has_a_case():
    rs = load_ruleset(RS)
    lim = {r.id for r in rs.rules if r.kind == "limit" and r.applies_to == "winner"}
    assert lim == {c[0] for c in LIMITS}


def test_heaven_needs_a_win_from_the_wall():
    # 001:58-60 "Winnen door Oost in de eerste hand": East wins with the hand dealt, its last tile drawn
    # from the wall; a first-turn win by discard (the default way of winning) is not Heaven (it had
    # scored the Limit). Scored as any hand: pair 55z 2 (002:12) + 20 + 2 only tile + 2 pair wait, Four
    # Chows 1 doubling: 1 doubling and not clean, under the 2 doublings the club needs (001:1, option
    # entry_doublings=total) → 0, mahjong not allowed
    r = score("123m456p789s234m55z", win="5z", first_turn=True, win_by="discard")
    assert "heaven" not in ids(r) and not limit_rule(r)
    assert r.total == 0
    assert any("won by wall" in n and "Het Spel van de Hemel" in n for n in r.notes), r.notes

def test_heaven_without_in_hand_doubling():
    # option heaven_in_hand=no: 001:60 states no 'geheel in de hand' -> 1000
    r = score("123m456p789s234m55z", {"heaven_in_hand": "no"}, first_turn=True, win_by="wall")
    assert r.total == 1000


def test_heaven_with_another_limit_hand_counts_the_one_worth_most():
    # A Snake 1 (001:74-76: 1-9 of one suit, one of each wind, one wind doubled; Half Limit 500, 1x doubled
    # entirely in the hand = 1000, RULINGS 001-11) won by East on the first turn is also Heaven (001:58-60, Limit
    # 1000). Only one special hand counts. heaven_in_hand=no: Heaven 1000 (no doubling) or Snake 1 500 x 2 = 1000:
    # 1000, Heaven (the higher hand on the tie), with no doubling line (a tester's 2000 had doubled Heaven with
    # Snake 1's doubling). heaven_in_hand=yes: Heaven 1000 x 2 = 2000, the doubling naming Heaven.
    no = score("123456789m11234z", {"heaven_in_hand": "no"}, win="4z", first_turn=True, win_by="wall")
    assert no.total == 1000 and limit_rule(no) == ["heaven"] and "limit-in-hand" not in ids(no)
    assert [ln.rule for ln in no.outranked] == ["wind-snake"]
    yes = score("123456789m11234z", win="4z", first_turn=True, win_by="wall")
    assert yes.total == 2000 and limit_rule(yes) == ["heaven"]
    dbl = next(ln for ln in yes.lines if ln.rule == "limit-in-hand")
    assert dbl.detail == "Het Spel van de Hemel entirely in the hand" and "heaven_in_hand=yes" in dbl.option


def test_seven_twins_entirely_in_the_hand_beats_heaven_without_its_doubling():
    # 11223344556677m self-drawn by East on the first turn: Seven Twins super-clean (001:70-72, one suit, no
    # honours: Limit 1000, 1x doubled entirely in the hand = 2000) and Heaven (001:58-60, 1000). Under
    # heaven_in_hand=no Heaven stays 1000, so Seven Twins counts: 2000 (the two Limits had tied at 1000 and
    # Heaven, the first, was kept before the doubling was weighed: 1000). The doubling names Seven Twins
    # and cites the option, which decided it; Heaven is outranked.
    r = score("11223344556677m", {"heaven_in_hand": "no"}, win="7m", first_turn=True, win_by="wall")
    assert r.total == 2000 and limit_rule(r) == ["seven-twins-superschoon"]
    dbl = next(ln for ln in r.lines if ln.rule == "limit-in-hand")
    assert dbl.detail.startswith("De Zeven Tweelingen (superschoon)") and "heaven_in_hand=no" in dbl.option
    assert "heaven" in {ln.rule for ln in r.outranked}


def test_the_in_hand_doubling_cites_heavens_option_only_when_heaven_is_made():
    # Thirteen Orphans self-drawn (001:66-68, Limit 1000 x 2 entirely in the hand = 2000): option heaven_in_hand
    # decides nothing here, and the doubling line does not cite it
    r = score("19m19p19s1234567z1m", win="1m", win_by="wall")
    dbl = next(ln for ln in r.lines if ln.rule == "limit-in-hand")
    assert r.total == 2000 and dbl.option == "" and dbl.detail == "De Dertien Wezen (Wonderen) entirely in the hand"


def test_the_other_limit_hands_are_weighed_as_counted_in_the_explanation():
    # Four Winds (001:96-98, Limit 1000; "Geheel in hand: 1x verdubbelen", 001:98) self-drawn by East on the first
    # turn, all concealed, is also Heaven (001:58-60, Limit 1000). Under heaven_in_hand=no Heaven stays 1000 and
    # Four Winds doubled is 2000: Four Winds counts, and Heaven is outranked (a referee's explanation had said
    # Heaven was "worth the same as the one counted", comparing the two Limits before the doubling). Under the
    # default (yes) both are 2000: Heaven counts, Four Winds "also made", worth the same.
    from scoring import explain

    no = score("111z222z333z444z55m", {"heaven_in_hand": "no"}, win="5m", first_turn=True, win_by="wall")
    assert no.total == 2000 and limit_rule(no) == ["four-winds"]
    text = explain(no)
    assert "outranked: Het Spel van de Hemel" in text and "worth the same" not in text, text
    yes = score("111z222z333z444z55m", win="5m", first_turn=True, win_by="wall")
    assert yes.total == 2000 and limit_rule(yes) == ["heaven"]
    assert "also made: Het Vierwindenspel" in explain(yes) and "worth the same as the one counted" in explain(yes)
    # the doubling cites 001:21 and the counted hand's own in-hand line (001:98 for Four Winds); Heaven's lines
    # state none, so under the default it cites 001:21 alone (it had cited 001:21 alone for every hand)
    dbl = next(ln for ln in no.lines if ln.rule == "limit-in-hand")
    assert dbl.source == "001_20e8f920a7ce7e86.txt:21, 98"
    assert next(ln for ln in yes.lines if ln.rule == "limit-in-hand").source == "001_20e8f920a7ce7e86.txt:21"
    orphans = score("19m19p19s1234567z1m", win="1m", win_by="wall")  # (001:66-68: its in-hand line is 68)
    assert next(ln for ln in orphans.lines if ln.rule == "limit-in-hand").source == "001_20e8f920a7ce7e86.txt:21, 68"


def test_a_limit_hand_won_on_easts_first_discard_takes_the_earth_doublings_only_under_limit_extras():
    # AMBIGUITIES 001-18 (what else counts on a limit hand) as option limit_extras (a referee: the ambiguity had no
    # option, RULINGS principle 2). Thirteen Orphans (001:66-68, Limit 1000) won by South on East's first discard is
    # also Het Spel van de Aarde (001:17, 2 doublings). none (default): the Limit alone, 1000. win-doublings: the
    # doublings for how it was won double it too: 1000 x 2^2 = 4000, the line naming the option
    none = score("19m19p19s1234567z1m", win="1m", seat_wind="S", first_turn=True)
    assert none.total == 1000 and "earth" not in ids(none)
    more = score("19m19p19s1234567z1m", {"limit_extras": "win-doublings"}, win="1m", seat_wind="S", first_turn=True)
    assert more.total == 4000 and limit_rule(more) == ["thirteen-orphans"]
    earth = next(ln for ln in more.lines if ln.rule == "earth")
    assert earth.doublings == 2 and "limit_extras=win-doublings, 001-18" in earth.option
    # the hand's own tiles still give nothing: a Four Winds (001:96-98) self-drawn keeps its in-hand doubling alone
    # (1000 x 2 = 2000), its wind pungs' doublings not counted under either reading (001:46)
    fw = score("111z222z333z444z55m", {"limit_extras": "win-doublings"}, win="5m", win_by="wall")
    assert fw.total == 2000 and not ({"value-pung", "four-pungs"} & ids(fw))


def test_irregular_limit_must_be_concealed():
    # 001:50: an irregular limit hand is played in the hand; Peking Garden cannot have melds, and a
    # wind snake with 9m doubled is no Slang 1 (only a wind may be doubled, 001:76): not winning
    with pytest.raises(HandError):
        score("1234567899m1234z", win="9m")


def test_seven_twins_not_clean_normal():
    # RULINGS 001-12: seven pairs of winds and dragons are not clean (no suit tile): counted normally.
    # East pair 2 x 2, White Green Red pairs 3 x 2 = 10, mahjong 20, only possible 2, pair completed 2
    # = 34; only winds and dragons 4 doublings (002:68) -> 34 x 16 = 544 (allowed: 4 >= 2)
    r = score("11223344556677z", win="7z")
    assert "seven-twins-other" in ids(r) and r.allowed and r.total == 544


def test_seven_twins_not_clean_refused():
    # RULINGS 001-12: seven pairs in three suits + Red: Red pair 2 + 20 + 2 + 2 = 26, 0 doublings ->
    # mahjong not allowed
    r = score("1122m3344p5566s77z", win="7z")
    assert not r.allowed and r.total == 0


def test_seven_twins_four_alike():
    # 001-12: 1111 22 44 55 77 88 characters: not seven pairs by default (not a winning hand);
    # option seven_twins_four_alike=yes: super-clean, Limit 1000
    with pytest.raises(HandError):
        score("11112244557788m", win="8m")
    assert score("11112244557788m", {"seven_twins_four_alike": "yes"}, win="8m").total == 1000


def test_limit_is_no_cap_on_ordinary_hands():
    # 001:46 "zonder een echte limiet": the Three Wise Men hand above scores 40960 > 1000
    assert score("123m11z [555z] [666z] [777z]", win="1z").total > 1000


# --------------------------------------------------------------------------- 001:52-54 waiting hand
def test_waiting_irregular_limit():
    # 001:54 (001-10 a): non-winner 1-9m + each wind waits for Slang 1 (Half Limit 500): half = 250
    r = score("123456789m1234z", winner=False)
    assert "waiting-irregular-limit" in ids(r) and r.total == 250


def test_waiting_irregular_limit_with_doubling():
    # 001-10 b: half of 500 x 2 = 500
    assert score("123456789m1234z", {"waiting_limit_half": "with-in-hand-doubling"}, winner=False).total == 500


def test_waiting_thirteen_orphans():
    # 001:54: waiting for De Dertien Wezen (Limit 1000): 500
    assert score("19m19p19s1234567z", winner=False).total == 500


def test_waiting_regular_limit_no_bonus():
    # 001:54: waiting for Het Vierwindenspel: no bonus, normal count: concealed East pung 8, South 8,
    # West 8, exposed North 4 = 28; doublings: East pung seat + round 2, 3 concealed pungs 1, clean
    # (5m + winds, 002:65, for everyone 002-16) 4 = 7 -> 28 x 128 = 3584
    r = score("111z222z333z5m [444z]", winner=False)
    assert "waiting-regular-limit" in ids(r) and r.total == 3584


# --------------------------------------------------------------------------- 001:106-108 dead hand
def test_dead_hand_more_tiles():
    # 001:108: more than 13 tiles -> records no points (0), still settles
    r = score("123456789m12345z", winner=False, flags=("dead-hand",))
    assert r.total == 0 and "dead-hand-more" in ids(r)


def test_dead_hand_fewer_tiles():
    # 001:108: fewer than 13 -> the combinations still count: concealed 555p 4; circles + winds is
    # clean (002:65) 4 doublings -> 64; no waiting-hand bonus
    r = score("555p1234z", winner=False, flags=("dead-hand",))
    assert "dead-hand-fewer" in ids(r) and r.total == 64


def test_dead_hand_fewer_tiles_points_only():
    # 001:108 "mag nog wel punten noteren voor de gemaakte combinaties", and 001:46 tells "punten" from
    # "verdubbelingen": option dead_hand_score=points-only counts the combinations' points and no doubling.
    # 12m45p11z [555z] [777z], East seat and round, 12 tiles: exposed dragon pungs 2 x 4 = 8 (002:11, as
    # terminals 002-02); pair of own + round wind 2 x 2 = 4 (002:12, each 002-04): 12 points. As a non-winner's
    # hand (default): + dragon pungs 2 x 1 doubling (002:60) -> 12 x 2^2 = 48; points only -> 12, the doubling
    # line shown as a note that it is not counted, the dead-hand line naming the option either way.
    hand = "12m45p11z [555z] [777z]"
    r = score(hand, winner=False, flags=("dead-hand",))
    assert (r.total, r.points, r.doublings) == (48, 12, 2)
    dead = next(ln for ln in r.lines if ln.rule == "dead-hand-fewer")
    assert "doublings included" in dead.detail and "dead_hand_score=as-non-winner" in dead.option
    r = score(hand, {"dead_hand_score": "points-only"}, winner=False, flags=("dead-hand",))
    assert (r.total, r.points, r.doublings) == (12, 12, 0)
    dropped = [ln for ln in r.lines if ln.option.endswith("dead_hand_score=points-only") and ln.rule != "dead-hand-fewer"]
    assert len(dropped) == 1 and dropped[0].kind == "note" and "not counted on a dead hand" in dropped[0].detail
    # a 13-tile non-winner's hand (a loose 9m more) is no dead hand: the option changes nothing, 48 as above
    assert score("12m45p9m11z [555z] [777z]", {"dead_hand_score": "points-only"}, winner=False).total == 48


def test_a_limit_hand_of_another_reading_passed_over_is_noted():
    # 11223344556677m self-drawn: seven pairs of one suit, no honours = De Zeven Tweelingen superschoon, Limit 1000
    # (001:70-72, RULINGS 001-12), entirely in the hand x 2 (001:21, RULINGS 001-11) = 2000; read as 123 123 456
    # 456 77 it is 24 points (002:13, 14, 16) x 2^(1 + 4 + 3) (Vier chows 002:46, Zuiver 002:67, Verborgen schat
    # 001:21) = 6144. Two readings: the best for the player (RULINGS principle 5), said with the limit hand passed
    # over (a seed referee saw 6144 with no word of it, where a limit hand of the reading scored is held to its
    # Limit, 001:46, with a note of its higher ordinary count)
    r = score("11223344556677m", win="7m", win_by="wall")
    assert r.total == 6144 and not limit_rule(r)
    assert ("the hand also reads as De Zeven Tweelingen (superschoon), 2000 (001_20e8f920a7ce7e86.txt:70-72): its "
            "ordinary reading scores higher, 6144, and the best reading for the player counts (RULINGS principle 5)"
            ) in r.notes


def test_table_lines_cite_their_options(capsys):
    # table prints each hand's lines with the options they rest on, as hand does (RULINGS principle 3): S holds
    # one of each terminal and honour, waiting for De Dertien Wezen (001:66-68): half the Limit, 500 (001:54,
    # option waiting_limit_half=reward, 001-10; with-in-hand-doubling would make it 1000)
    code = main(["table", "-r", RS, "--winner", "E", "-w", "7z", "--win-by", "wall", "--no-history",
                 "--hand", "E=19m19p19s12345677z", "--hand", "S=19m19p19s1234567z",
                 "--hand", "W=147m258p369s1234z", "--hand", "N=147p258s369m1234z"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"({SEED}:54; option waiting_limit_half=reward, 001-10)" in out


def test_dead_hand_cannot_win():
    with pytest.raises(HandError, match="cannot make mahjong"):
        score("555p1234z", flags=("dead-hand",))


def test_wrong_count_suggests_dead_hand():
    with pytest.raises(HandError, match="dead-hand"):
        score("555p1234z", winner=False)


def test_dead_hand_flag_needs_wrong_count():
    with pytest.raises(HandError, match="more or fewer than 13"):
        score("123456789m1234z", winner=False, flags=("dead-hand",))


def test_dead_hand_cli(capsys):
    # the CLI way to score a dead hand: --flag dead-hand --not-winner
    assert main(["hand", "555p1234z", "-r", RS, "--flag", "dead-hand", "--not-winner"]) == 0
    assert "total: 64" in capsys.readouterr().out


# --------------------------------------------------------------------------- ruleset structure
def test_rules_cite_seed_lines(shared):
    """Every rule cites 001 (or the NTS base 002) with lines that exist; limit values match
    'Limiet' / 'Halve Limiet' on the cited line."""
    seeds = {p.name: p.read_text(encoding="utf-8").splitlines() for p in (shared / "seeds").glob("*.txt")}
    for r in load_ruleset(RS).rules:
        if r.source == "RULINGS 002-03":  # (the NTS flowers' rule, no seed line: tests/test_nts.py)
            continue
        name, span = r.source.split(":")
        assert name in (SEED, "002_b9f4c4575200caaf.txt"), r.id
        lo, _, hi = span.partition("-")
        text = " ".join(seeds[name][int(lo) - 1:int(hi or lo)])
        assert text.strip(), r.id
        if r.kind == "limit" and r.applies_to == "winner" and not r.id.startswith("seven-twins"):
            half = "Halve Limiet" in text
            assert (r.value == 0.5) == half, (r.id, text)


def test_base_is_nts():
    rs = load_ruleset(RS)
    assert rs.base == "nts" and rs.limit == 1000 and rs.settlement == "rode-draak"
    assert not {"three-dragons", "head-and-tail", "four-concealed-kongs", "closed-hand-waiting"} & {r.id for r in rs.rules}


def test_cli_hand_json(capsys):
    assert main(["hand", "123m456p789s11z [777p]", "-w", "1z", "-r", RS, "--json"]) == 0
    out = capsys.readouterr().out
    assert '"allowed": false' in out and "mahjong not allowed" in out


def test_rules_listing(capsys):
    assert main(["rules", RS]) == 0
    out = capsys.readouterr().out
    assert "based on nts" in out and re.search(r"limit-in-hand .*001_20e8f920a7ce7e86.txt:21", out)


# ------------------------------------------------------------------ issue 15 item 12: limit_entry
def test_limit_hand_and_the_entry_rule_option():
    # Thirteen Orphans won on a discard (19m19p19s1234567z + 1m). 001:66-68 De Dertien Wezen is a
    # Limit hand: 1000 (001:46), not doubled: not played entirely in the hand (001:21, a discard).
    # The entry rule (001:1: clean, or 2 doublings): the hand has three suits (not clean) and its
    # tiles "leveren geen punten of verdubbelingen meer op" (001:46): 0 doublings.
    # Default limit_entry=waived (RULINGS principle 4: as written no irregular limit hand could win):
    # 1000, with an entry-rule line that says it was waived and names the option.
    # (the line is the rule entry-limit-hand, 001:42-46: test_a_limit_hand_not_clean_has_its_own_entry_rule)
    r = score("19m19p19s1234567z 1m", win="1m")
    assert r.allowed and r.total == 1000
    entry = [ln for ln in r.lines if ln.rule == "entry-limit-hand"]
    assert len(entry) == 1 and "waived" in entry[0].detail and "not clean, 0 doublings" in entry[0].detail
    assert "option limit_entry=waived, 001-03" in entry[0].option and entry[0].source == f"{SEED}:42-46"
    # limit_entry=required (001:1 literal): not clean, 0 doublings → mahjong not allowed, total 0
    r = score("19m19p19s1234567z 1m", {"limit_entry": "required"}, win="1m")
    assert not r.allowed and r.total == 0
    assert "limit_entry=required" in r.status and "it would have scored 1000" in r.status
    # Nine Gates 1112345678999m + 5m on a discard (001:62-64, Limit 1000): one suit, clean — the
    # entry rule is met under either choice, and the line says so
    for opt in ("waived", "required"):
        r = score("1112345678999m 5m", {"limit_entry": opt}, win="5m")
        assert r.allowed and r.total == 1000
        entry = [ln for ln in r.lines if ln.rule == "entry-clean"]
        assert len(entry) == 1 and entry[0].detail == "limit hand, clean: the entry rule is met"


def test_limit_entry_line_is_in_the_explanation(capsys):
    assert main(["hand", "19m19p19s1234567z 1m", "-w", "1m", "-r", RS, "--no-history"]) == 0
    out = capsys.readouterr().out
    assert "the entry rule is waived for limit hands" in out and "option limit_entry=waived" in out


def test_a_limit_hand_not_clean_has_its_own_entry_rule(capsys):
    # Thirteen Orphans 19m19p19s1234567z + 1m self-drawn, seat East (001:66-68 De Dertien Wezen): Limit 1000
    # (001:46), entirely in the hand 1 doubling (001:21, RULINGS 001-11) = 2000. Three suits: not clean (RULINGS
    # 001-02); 1 doubling, under the 2 of 001:1 (RULINGS 001-03, entry_doublings=total): the entry rule is not
    # met, and is waived (limit_entry=waived, the default): a limit hand is one of the "Bijzondere winstspelen"
    # (001:42) whose tiles "leveren geen punten of verdubbelingen meer op" (001:46), RULINGS principle 4.
    # The line says so under its own rule, entry-limit-hand (001:42-46): it had been the "Schoon spel" rule
    # entry-clean (001:1's first sentence) on a hand it called not clean.
    r = score("19m19p19s1234567z 1m", win="1m", win_by="wall")
    assert r.allowed and r.total == 2000 and r.doublings == 1
    assert not {"entry-clean", "entry-doublings"} & ids(r), ids(r)
    entry = [ln for ln in r.lines if ln.rule == "entry-limit-hand"]
    assert len(entry) == 1 and entry[0].kind == "note" and entry[0].source == f"{SEED}:42-46"
    assert entry[0].name.startswith("Bijzondere winstspelen — entry rule waived for a limit hand")
    assert entry[0].detail == "limit hand, not clean, 1 doubling: the entry rule is waived for limit hands"
    assert entry[0].option == "option limit_entry=waived, 001-03; entry_doublings=total, 001-03"
    # --json names the rule
    assert main(["hand", "19m19p19s1234567z 1m", "-w", "1m", "--win-by", "wall", "-r", RS, "--no-history",
                 "--json"]) == 0
    rules = [ln["rule"] for ln in json.loads(capsys.readouterr().out)["lines"]]
    assert rules.count("entry-limit-hand") == 1 and "entry-clean" not in rules, rules
    # a clean limit hand keeps entry-clean (001:1 first sentence, met): Nine Gates 1112345678999m + 5m on a
    # discard (001:62-64), Limit 1000, one suit; under limit_entry=required the waived line is never made
    # (Thirteen Orphans is refused there, test_limit_hand_and_the_entry_rule_option)
    r = score("1112345678999m 5m", win="5m")
    assert "entry-clean" in ids(r) and "entry-limit-hand" not in ids(r)
    # the rule is in the ruleset, citing the seed lines, and never fires of itself (finalize makes its line)
    rule = load_ruleset(RS).rule("entry-limit-hand")
    assert rule.source == f"{SEED}:42-46" and rule.option == "limit_entry" and rule.kind == "note"


# ------------------------------------------------------------------ referee 5 item 2: fixed_hands here
def test_fixed_hands_best_has_no_effect_and_the_explanation_says_so(capsys):
    # Het Spel van de Rode Draak (001:88-90): exposed Red kong, 123m 456m 789m, South pair (own wind,
    # seat S), won on a discard: Half Limit 500 (001-11), not doubled (a discard, 001:90).
    # Its normal NTS count would be 1344 (Red kong exposed 16 002-02, South pair 2 002:12, mahjong 20,
    # only possible tile 2 002:15, pair completed 2 002:16 = 42; doublings Red kong 1 002:60, clean 4
    # 002:65 = 5 -> 42 x 2^5 = 1344), but 001:46: the limit's own tiles "leveren geen punten of
    # verdubbelingen meer op" (AMBIGUITIES 001-18, decided: the limit and nothing else). NTS's option
    # fixed_hands=best (002-17) therefore has nothing to take the higher of: 500 either way, said in a note.
    for opt in ("fixed", "best"):
        r = score("123m456m789m22z [7777z]", {"fixed_hands": opt}, win="2z", seat_wind="S")
        assert r.allowed and r.total == 500 and limit_rule(r) == ["rode-draak-hand"]
    r = score("123m456m789m22z [7777z]", {"fixed_hands": "best"}, win="2z", seat_wind="S")
    assert [n for n in r.notes if n.startswith("option fixed_hands=best has no effect under rode-draak")]
    assert any(f"{SEED}:46" in n and "001-18" in n for n in r.notes)
    # the default: no note of the option, but the count the limit hand replaces is said (a seed tester's referee could
    # not tell why South's hand scored 500 where East's same tiles, no limit hand, scored 1280)
    assert score("123m456m789m22z [7777z]", win="2z", seat_wind="S").notes == (
        "the hand's ordinary count is higher, 1344 = 42 points × 2^5: rode-draak scores Het Spel van de Rode Draak "
        f"instead ({SEED}:88-90) — its own tiles 'leveren geen punten of verdubbelingen meer op' ({SEED}:46): a "
        f"limit hand scores its Limit (RULINGS 001-11) and nothing else ({SEED}:46 says so of its own tiles; what "
        "else may count, AMBIGUITIES 001-18 leaves open: option limit_extras, none by default)",)
    assert main(["hand", "123m456m789m22z [7777z]", "-w", "2z", "--seat-wind", "S", "-r", RS,
                 "-o", "fixed_hands=best", "--no-history"]) == 0
    out = capsys.readouterr().out
    assert "total: 500" in out and "note: option fixed_hands=best has no effect under rode-draak" in out
    # and `rules rode-draak` says it of the option itself
    assert main(["rules", RS]) == 0
    out = capsys.readouterr().out
    assert re.search(r"fixed_hands = fixed .*\n\s+Inherited from NTS \(002-17\), no effect under rode-draak", out)


# ------------------------------------------------------------------ referee 5 item 5: the entry condition met
def test_a_hand_let_through_by_its_doublings_says_which(capsys):
    # 123m 456p 777p 789s + 11z won on East's first discard, seat South: three suits, not clean (RULINGS 001-02).
    # Points: concealed pung of simples 777p 4 (002:10), East pair 2 (002:12, round wind), mahjong 20 (002:13),
    # only possible tile 2 (002:15), pair completed 2 (002:16) = 30; Het Spel van de Aarde 2 dbl (001:17) →
    # 30 × 2^2 = 120. The entry rule (001:1, RULINGS 001-03, entry_doublings=total) is met by the 2 doublings:
    # the explanation has an entry-rule line saying so and naming them (it had none: only a status, not shown)
    r = score("123m456777p789s11z", win="1z", first_turn=True, seat_wind="S")
    assert r.allowed and r.total == 120
    # (its own rule, entry-doublings: the "Schoon spel" rule entry-clean had been shown on a hand not clean)
    assert "entry-clean" not in ids(r)
    entry = [ln for ln in r.lines if ln.rule == "entry-doublings"]
    assert len(entry) == 1 and entry[0].kind == "note" and entry[0].source == f"{SEED}:1"
    assert entry[0].name.startswith("Wanneer echter op één van boven- of onderstaande manieren tenminste twee keer "
                                    "verdubbelen wordt behaald, is Mahjong ook mogelijk")
    assert entry[0].detail == ("not clean, 2 doublings (Het Spel van de Aarde +2 dbl): mahjong allowed with at "
                               "least 2 doublings in total")
    assert entry[0].option == "option entry_doublings=total, 001-03"
    assert main(["hand", "123m456777p789s11z", "-w", "1z", "--first-turn", "--seat-wind", "S", "-r", RS,
                 "--no-history"]) == 0
    assert "mahjong allowed with at least 2 doublings in total" in capsys.readouterr().out
    assert main(["hand", "123m456777p789s11z", "-w", "1z", "--first-turn", "--seat-wind", "S", "-r", RS,
                 "--no-history", "--json"]) == 0
    rules = [ln["rule"] for ln in json.loads(capsys.readouterr().out)["lines"]]
    assert "entry-doublings" in rules and "entry-clean" not in rules, rules
    # the entry rule still lets it through (_entry_ok): a clean hand by entry-clean, this one by its 2 doublings;
    # without them (won on another discard: no Het Spel van de Aarde, 001:17) it is not allowed (001:1)
    assert "entry-clean" in ids(score("123m456m777m789m11z", win="1z"))
    r = score("123m456777p789s11z", win="1z", seat_wind="S")
    assert not r.allowed and r.total == 0 and "entry-doublings" not in ids(r)


# ------------------------------------------------------------------ referee 5 item 6: a refused mahjong at a table
def test_table_with_a_refused_mahjong_says_what_to_do_next(capsys):
    # E's 123m 456p 789s 11z + exposed 777p won on 1z: three suits, not clean, 0 doublings (the East pair is points
    # only, 002:12): the entry rule (001:1) refuses it; it would have scored 30 (pung of simples exposed 2 002:10,
    # East pair 2 × 2 002:12 seat and round wind, mahjong 20 002:13, only possible 2 002:15, pair completed 2
    # 002:16 = 30, no doubling).
    # The refusal stays; what follows is the seed's "Ten onrechte mahjong afkondigen" (001:118-120, no penalty,
    # 001-14) and the void hand the table gives with --winner none (001:134)
    hands = ["--hand", "E=123m456p789s11z [777p]", "--hand", "S=[555z] 123m456p789s4z",
             "--hand", "W=147m258p369s1234z", "--hand", "N=[222p] 147m258s1234z"]
    assert main(["table", "-r", RS, "--winner", "E", "-w", "1z", *hands, "--no-history"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "E's mahjong cannot be settled: mahjong not allowed" in err
    assert "it would have scored 30" in err
    assert f"{SEED}:118-120" in err and "check the hand's lines" in err and "--winner none" in err
    assert f"{SEED}:134" in err
    # and that is how it is given: a void hand, nothing paid
    assert main(["table", "-r", RS, "--winner", "none", *hands, "--no-history"]) == 0
    assert f"void hand: no points are counted ({SEED}:134)" in capsys.readouterr().out


def test_unscored_flowers_are_said_as_under_nts():
    # a colleague's finding: NTS's note on flowers/seasons not scored (bonus_tiles=off, RULINGS 002-03) came only
    # from nts.py's notes_for, so it never showed under rode-draak, which plays on NTS's tables. 001 scores no
    # flower or season (it names them only in Kong met de Bloeiende Bloemen, 001:9, 001-05), so under the
    # default they count nothing here either, and the note must show. Nine Gates (001:62-64) 1000, flowers or not.
    r = score("111m 456m 789m 234m 99m +1f3y", win="4m")
    assert r.total == 1000
    assert ("flowers/seasons 1f 3y are not scored in rode-draak (001 scores none; it plays on NTS's tables) "
            "(option bonus_tiles=off, 002-03)") in r.notes
    # with bonus_tiles=4-points (4 each, 002-03) a limit hand still scores its Limit alone (001:46, 001-18): the
    # note says that instead (it had said nothing); on an ordinary hand they are scored, and no note; a hand
    # without them has none
    r = score("111m 456m 789m 234m 99m +1f3y", {"bonus_tiles": "4-points"}, win="4m")
    assert r.total == 1000 and [n for n in r.notes if n.startswith("flowers/seasons")] == [
        "flowers/seasons 1f 3y are not scored on a limit hand: a limit hand scores its Limit (RULINGS 001-11) and "
        "nothing else (001_20e8f920a7ce7e86.txt:46 says so of its own tiles; what else may count, AMBIGUITIES 001-18 "
        "leaves open: option limit_extras, none by default)"]
    assert not [n for n in score("123m 456m 789m 234p 99s +1f3y", {"bonus_tiles": "4-points"}, win="4p").notes
                if n.startswith("flowers/seasons")]
    assert not [n for n in score("111m 456m 789m 234m 99m", win="4m").notes if n.startswith("flowers/seasons")]


def test_a_refused_hand_with_no_winning_tile_is_not_said_to_depend_on_one():
    # the demo's hand, typed with no winning tile: not clean and no doubling, so mahjong is refused (001:1,
    # entry_doublings=total, 001-03) whatever tile won, and it scores 0 with any of them. The note said "with one it
    # scores 0 (lines that depend on it: only-possible-tile, …)": lines that move nothing
    from scoring.engine import no_winning_tile_note

    scored = score_hand(parse_hand("345m678p66z [777s] (2222m) +1f"), "rode-draak")
    assert scored.total == 0
    note = no_winning_tile_note(scored)
    assert note.endswith("(any of its tiles as the winning tile scores it the same, 0)"), note
    assert "depend on it" not in note


def test_a_flowers_loose_tile_is_no_kongs():
    # [2222z] 123p 345p 789p 55p +2f, won on the 5p drawn from the dead wall for the 2f (--flag flower-replacement):
    # 002:11 exposed kong of winds 16; 002:13 mahjong 20; 002:14 self-drawn 2; 002:16 the pair completed 2 → 40;
    # 002:65 clean 4 dbl; 001:9 Kong met de Bloeiende Bloemen (blooming_flowers=any-dead-wall) 1 dbl → 40 × 2^5 =
    # 1280. Not 002:55 De pruimenbloesem (the loose tile *after a kong*, and it is 5p): the 5p replaced the
    # flower, not the kong (it had scored +3 dbl, 5120)
    r = score("[2222z] 123p345p789p55p +2f", win="5p", win_by="dead-wall", flags={"flower-replacement"})
    assert r.total == 1280 and not {"plum-blossom-from-the-roof", "plum-blossom-from-the-roof-added"} & ids(r)
    # blooming_flowers=kong-only: no 001:9 either → 40 × 2^4 = 640
    r = score("[2222z] 123p345p789p55p +2f", {"blooming_flowers": "kong-only"}, win="5p", win_by="dead-wall",
              flags={"flower-replacement"})
    assert r.total == 640
    # one loose tile replaced either a flower or the second kong (002:56), not both
    with pytest.raises(CircumstanceError, match="say one of them"):
        score("[2222z] [3333p] 789p55p123s +2f", win="5p", win_by="dead-wall", flags={"flower-replacement"},
              kong_on_kong=True)


def test_flowers_left_out_of_a_limit_hand_are_said_to_be():
    # 111z 222z 333z (4444z) 55z +1f2f3f4f self-drawn: 001:96-98 Het Vierwindenspel 1000, entirely in the hand
    # 001:21 1 doubling → 2000; under bonus_tiles=4-points (002-03) the four flowers would be 16 points, but a limit
    # hand's tiles "leveren geen punten of verdubbelingen meer op" (001:46, 001-18): still 2000, and a note says so
    r = score("111z222z333z (4444z) 55z +1f2f3f4f", {"bonus_tiles": "4-points"}, win="5z", win_by="wall")
    assert r.total == 2000
    assert any("1f 2f 3f 4f are not scored on a limit hand" in n and "001-18" in n for n in r.notes), r.notes


def test_a_thirteen_sided_wait_names_every_tile():
    # 19m 19p 19s 1234567z, a non-winner: one tile short of De Dertien Wezen (001:54 waiting for an irregular limit
    # hand: half, 500), and any of the 13 completes it; the line had said "on 1m"
    r = score("19m19p19s1234567z", winner=False)
    (ln,) = [ln for ln in r.lines if ln.fixed]
    assert r.total == 500 and ln.detail.endswith("on 1m, 9m, 1p, 9p, 1s, 9s, 1z, 2z, 3z, 4z, 5z, 6z or 7z"), ln.detail
