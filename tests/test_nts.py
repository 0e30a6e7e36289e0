"""NTS ruleset (seed 002_b9f4c4575200caaf.txt): one test per seed row, every option both ways.

Line numbers ("002:10") are lines of ../shared/seeds/002_b9f4c4575200caaf.txt. Every expected value
is derived by hand in the comment beside it. Unless said otherwise: seat wind East, round wind East,
won on a discard, all options at their defaults. A set completed by a winning discard is exposed
(RULINGS principle 6).

Recurring base hand "234m678m345s99p" + one set, won on 6m: the 78m part waits on 6m and 9m
(two tiles, open wait), so neither 002:15 (only possible tile) nor 002:16 (pair) applies; the 99p
pair (terminals) keeps 002:48 (pure simplicity) and the value pair (002:12) away.
"""
from __future__ import annotations

import pytest

from scoring import Context, HandError, explain, load_ruleset, parse_hand, score_hand

SEED = "002_b9f4c4575200caaf.txt"


def nts(notation: str, win: str | None = None, options: dict | None = None, **ctx):
    hand = parse_hand(notation, winning_tile=win, context=Context(**ctx))
    return score_hand(hand, "nts", options)


def fired(result) -> dict:
    return {ln.rule: ln for ln in result.lines}


# ============================================================ table 1: base points (002:9-17)
@pytest.mark.parametrize("meld, rule, total", [
    # 002:10 exposed pung simples 2; 002:13 mahjong 20 → 22, no doubling
    ("[555p]", "pung-simples-exposed", 22),
    # 002:10 concealed pung simples 4 + 20 = 24
    ("555p", "pung-simples-concealed", 24),
    # 002:10 exposed kong simples 8 + 20 = 28
    ("[5555p]", "kong-simples-exposed", 28),
    # 002:10 concealed kong simples 16 + 20 = 36 (one concealed "pung" only: no 002:61)
    ("(5555p)", "kong-simples-concealed", 36),
    # 002:11 exposed pung terminals 4 + 20 = 24
    ("[111p]", "pung-terminals-exposed", 24),
    # 002:11 concealed pung terminals 8 + 20 = 28
    ("111p", "pung-terminals-concealed", 28),
    # 002:11 exposed kong terminals 16 + 20 = 36
    ("[1111p]", "kong-terminals-exposed", 36),
    # 002:11 concealed kong terminals 32 + 20 = 52
    ("(1111p)", "kong-terminals-concealed", 52),
])
def test_base_point_cells(meld, rule, total):
    r = nts(f"234m678m345s99p {meld}", "6m")
    assert fired(r)[rule].points == total - 20
    assert r.total == total


@pytest.mark.parametrize("meld, rule, total", [
    # 002-02 (RULINGS: as terminals). North is no value wind for seat E / round E.
    # 002:11 exposed pung of North 4 + 20 = 24
    ("[444z]", "pung-honours-exposed", 24),
    # concealed pung 8 + 20 = 28
    ("444z", "pung-honours-concealed", 28),
    # exposed kong 16 + 20 = 36
    ("[4444z]", "kong-honours-exposed", 36),
    # concealed kong 32 + 20 = 52
    ("(4444z)", "kong-honours-concealed", 52),
])
def test_honour_sets_score_as_terminals(meld, rule, total):
    r = nts(f"234m678m345s99p {meld}", "6m")
    assert rule in fired(r) and "honour_pungs=as-terminals" in fired(r)[rule].option
    assert r.total == total


def test_option_honour_pungs_none():
    # 002-02 option none: [444z] gives no base points → mahjong 20 only = 20
    r = nts("234m678m345s99p [444z]", "6m", {"honour_pungs": "none"})
    assert r.total == 20
    assert not any(ln.rule.startswith(("pung-honours", "kong-honours")) for ln in r.lines)


@pytest.mark.parametrize("pair, ctx, total", [
    # 002:12 pair of dragons 2: exposed pung 555p 2 + pair 77z 2 + mahjong 20 = 24
    ("77z", {}, 24),
    # pair of own wind (seat S = 2z; round E): 2 + 2 + 20 = 24
    ("22z", {"seat_wind": "S"}, 24),
    # pair of the round wind (seat S, round W = 3z): 2 + 2 + 20 = 24
    ("33z", {"seat_wind": "S", "round_wind": "W"}, 24),
    # own wind that is also round wind (E/E), seat_round_wind=each (RULINGS): 2 + 2×2 + 20 = 26
    ("11z", {}, 26),
    # a wind that is neither (North, seat S, round E): 2 + 0 + 20 = 22
    ("44z", {"seat_wind": "S"}, 22),
])
def test_value_pair(pair, ctx, total):
    r = nts(f"234m678m345s{pair} [555p]", "6m", **ctx)
    assert r.total == total
    assert ("value-pair" in fired(r)) == (total > 22)


def test_option_seat_round_wind_once_for_pair():
    # 002-04 once: pair 11z for seat E / round E counts 2 once: 2 + 2 + 20 = 24
    r = nts("234m678m345s11z [555p]", "6m", {"seat_round_wind": "once"})
    assert r.total == 24
    assert "seat_round_wind=once" in fired(r)["value-pair"].option


def test_mahjong_20():
    # 002:13 mahjong 20; 002:46 four chows ×1 → 20 × 2 = 40
    r = nts("234m678m345s456p99p", "6m")
    assert fired(r)["mahjong"].points == 20
    assert r.total == 40


def test_self_drawn_2():
    # 002:14 self-drawn 2: 20 + 2 = 22; 002:46 four chows ×1 (exposed chow: no 002:57) → 44
    r = nts("234m678m345s99p [456p]", "6m", win_by="wall")
    assert fired(r)["self-drawn"].points == 2
    assert r.total == 44


def test_only_possible_tile_2():
    # 002:15: 23468m waits on 7m only (closed wait): 20 + 2 = 22; four chows ×1 → 44
    r = nts("234m678m345s99p [456p]", "7m")
    assert r.decomposition.wait == "closed"
    assert fired(r)["only-possible-tile"].points == 2
    assert r.total == 44


def test_pair_completed_2():
    # 002:16: 2345678m waits on 2m, 5m, 8m; winning 2m completes the pair 22m:
    # 20 + 2 (pair) = 22, not the only possible tile; four chows ×1 and, every tile being 2-8,
    # pure simplicity ×1 (002:48) → 22 × 4 = 88
    r = nts("22345678m345s [456p]", "2m")
    assert r.decomposition.wait == "pair"
    assert "only-possible-tile" not in fired(r)
    assert r.total == 88


@pytest.mark.parametrize("choice, total", [
    # 002-05 stack: single wait on 9p for the pair: 20 + 2 (only tile) + 2 (pair) = 24 × 2 = 48
    ("stack", 48),
    # exclusive: the pair item replaces the only-tile item: 20 + 2 = 22 × 2 = 44
    ("exclusive", 44),
])
def test_option_pair_wait(choice, total):
    r = nts("234m678m345s99p [456p]", "9p", {"pair_wait": choice})
    assert r.total == total


@pytest.mark.parametrize("choice, total", [
    # 002:17 Vogel 10, reading b (default): 1p completes 11p, the hand holds 1s (chow 123s);
    # 1234p waits on 1p and 4p, so pair 2 but no only-tile: 20 + 2 + 10 = 32; four chows ×1 → 64
    ("pair-beside-bamboo-1", 64),
    # reading c needs a pung/kong of 1s; a chow 123s is not: 20 + 2 = 22 × 2 = 44
    ("pair-beside-bamboo-1-pung", 44),
    # off: 22 × 2 = 44
    ("off", 44),
])
def test_bird(choice, total):
    r = nts("123s456m789m23411p", "1p", {"bird": choice})
    assert r.decomposition.wait == "pair"
    assert r.total == total


def test_bird_reading_c_with_pung_of_bamboo_1():
    # 002:17 reading c: pung 111s (concealed terminals 8); 456m 789m 234p chows, 11p pair on 1p:
    # 8 + 20 + 2 (pair; waits 1p and 4p) + 10 = 40; no doubling (three chows + pung)
    r = nts("111s456m789m23411p", "1p", {"bird": "pair-beside-bamboo-1-pung"})
    assert fired(r)["bird"].points == 10
    assert r.total == 40


def test_bird_needs_the_winning_1p_to_complete_the_pair():
    # winning 4p (completing 234p) instead: no bird; 20 + 0 … = 20 × 2 (four chows) = 40
    r = nts("123s456m789m23411p", "4p")
    assert "bird" not in fired(r)
    assert r.total == 40


# ============================================ 002:19 closed hands: waiting hand = half (002-07)
def test_waiting_for_nine_gates_scores_half():
    # non-winner 1112345678999m waits for Nine Gates (002:22, 2000) → 1000. Its normal count,
    # pungs 111m/999m concealed terminals 8 + 8 = 16 × 2^4 (002:67 pure) = 256, is lower.
    r = nts("1112345678999m", winner=False)
    assert fired(r)["closed-hand-waiting"].fixed == 1000
    assert r.total == 1000


def test_waiting_for_pure_twins_scores_half():
    # 1122334455667m waits on 7m for Pure Twins (002:28, 1000) → 500; normal count 0 points
    r = nts("1122334455667m", winner=False)
    assert r.total == 500


def test_option_closed_waiting_half_off():
    # off: normal count of 1112345678999m: 16 × 2^4 = 256 (see above)
    r = nts("1112345678999m", winner=False, options={"closed_waiting_half": "off"})
    assert r.total == 256


def test_waiting_half_only_when_it_beats_the_normal_count():
    # twins_four_alike=yes: 1111m9999m1111z5z waits on 5z for Very Clean Twins (002:29) → 500.
    # Normal count: pungs 111m 8 + 999m 8 + 111z 8 = 24; doublings: 002:60 pung of East
    # (seat and round, each) 2, 002:61 three concealed pungs 1, 002:66 very clean 4 → 2^7:
    # 24 × 128 = 3072 > 500, so the normal count stands (RULINGS principle 5).
    r = nts("1111m9999m1111z5z", winner=False, options={"twins_four_alike": "yes"})
    assert r.total == 3072


# ======================================================== table 2: closed hands (002:22-31)
@pytest.mark.parametrize("notation, win, rule, total", [
    # 002:22 Nine Gates 2000: 1112345678999m + 5m
    ("11123455678999m", "5m", "nine-gates", 2000),
    # 002:23 Thirteen Orphans 2000: one of each terminal/honour + a second 1z
    ("19m19p19s11234567z", "1z", "thirteen-orphans", 2000),
    # 002:24 Wind Snake 1000: 1-9 bamboo + each wind, the 5s doubled
    ("1234556789s1234z", "5s", "wind-snake", 1000),
    # 002:24 Wind Snake with a wind doubled ("one of these thirteen")
    ("123456789s12344z", "4z", "wind-snake", 1000),
    # 002:25 Dragon Snake 1000: 1-9 circles + each dragon + a pair of winds
    ("123456789p22567z", "2z", "dragon-snake", 1000),
    # 002:26 Court of Peking 1000: 1-7 characters + each wind + each dragon
    ("1234567m1234567z", "7z", "court-of-peking", 1000),
    # 002:27 Twins of Trump Tiles 2000: seven pairs of winds/dragons
    ("11223344556677z", "7z", "twins-of-trump-tiles", 2000),
    # 002:28 Pure Twins 1000: seven pairs of bamboo (not a standard hand: no 3s)
    ("11224466778899s", "9s", "pure-twins", 1000),
    # 002:29 Very Clean Twins 1000: 11m 99m + five honour pairs
    ("1199m1122335566z", "6z", "very-clean-twins", 1000),
    # 002:30 Clean Twins 500: pairs of characters + honour pairs
    ("113355m11225566z", "6z", "clean-twins", 500),
    # 002:31 Seven Twins 250: any seven pairs
    ("1133m5577p99s1122z", "2z", "seven-twins", 250),
])
def test_closed_hands(notation, win, rule, total):
    r = nts(notation, win)
    assert rule in fired(r)
    assert r.total == total
    # fixed value: no points or doublings lines beside it (002-17: not doubled)
    assert [ln.kind for ln in r.lines] == ["fixed"]


def test_closed_hands_are_not_doubled_by_circumstances():
    # 002-17: Thirteen Orphans self-drawn on the last wall tile is still 2000
    r = nts("19m19p19s11234567z", "1z", win_by="wall", last_tile=True)
    assert r.total == 2000


def test_twins_overlap_takes_the_highest():
    # 002:27 and 002:31 both describe 11223344556677z; the highest (2000) counts alone
    r = nts("11223344556677z", "1z")
    assert [ln.rule for ln in r.lines] == ["twins-of-trump-tiles"]


@pytest.mark.parametrize("choice, expect", [
    # 002-08 no (default): 1111m + 5 other pairs is not seven pairs and not standard → error
    ("no", None),
    # yes: four alike = two pairs → Seven Twins (002:31) 250
    ("yes", 250),
])
def test_option_twins_four_alike(choice, expect):
    hand = "1111m5577p99s1122z"
    if expect is None:
        with pytest.raises(HandError, match="not a winning hand"):
            nts(hand, "2z", {"twins_four_alike": choice})
    else:
        assert nts(hand, "2z", {"twins_four_alike": choice}).total == expect


# ===================================== 002:33 open hands: a non-winner counts them normally
def test_non_winner_with_four_wind_pungs_counts_normally():
    # 002:33 "bij andermans mahjong normale telling": non-winner 111z222z333z444z + 5z.
    # Pungs of winds concealed 4 × 8 = 32; doublings: 002:60 East pung (seat+round) 2,
    # 002:62 four concealed pungs 2, 002:68 only winds and dragons 4 → 2^8: 32 × 256 = 8192
    r = nts("1112223334445z", winner=False)
    assert not any(ln.kind == "fixed" for ln in r.lines)
    assert r.total == 8192


# ================================================ table 3: hands that may be open (002:36-43)
@pytest.mark.parametrize("notation, win, ctx, rule, total", [
    # 002:36 Four Winds 2000
    ("[111z] [222z] 333444z55m", "4z", {}, "four-winds", 2000),
    # 002:37 Three Dragons 2000: three dragon pungs + chow + pair
    ("[555z] [666z] 777z234m99p", "7z", {}, "three-dragons", 2000),
    # 002:38 Jade 2000: 222s 666s 234s 888s + 66z, all green
    ("[222s] [666s] 234888s66z", "6z", {}, "jade", 2000),
    # 002:39 Heaven 2000: East (dealer) wins with the dealt tiles
    ("234m678m345s456p99p", "9p", {"first_turn": True, "win_by": "wall"}, "heaven", 2000),
    # 002:40 Four Concealed Kongs 2000
    ("(1111m) (2222p) (3333s) (4444z) 55z", "5z", {}, "four-concealed-kongs", 2000),
    # 002:41 Head and Tail 2000: pungs of terminals + pair of terminals
    ("[111m] [999p] 111999s11p", "1p", {}, "head-and-tail", 2000),
    # 002:42 Earth 1000: a non-dealer wins on East's first discard
    ("234m678m345s456p99p", "6m", {"seat_wind": "S", "first_turn": True}, "earth", 1000),
    # 002:43 Winding Snake 1000, first form 111+22+345+678+999 (exposed: not Nine Gates)
    ("[111s] 22345678999s", "2s", {}, "winding-snake", 1000),
    # second form 111+234+55+678+999
    ("[111s] 23455678999s", "5s", {}, "winding-snake", 1000),
    # third form 111+234+567+88+999
    ("[999s] 11123456788s", "8s", {}, "winding-snake", 1000),
])
def test_open_hands(notation, win, ctx, rule, total):
    r = nts(notation, win, **ctx)
    assert rule in fired(r)
    assert r.total == total


def test_heaven_needs_the_dealer():
    # seat S first turn, self-drawn: not Heaven (002:39) and not Earth (002:42, discard only).
    # The winning 9p completes the pair 99p and is the only tile waited on: 20 + 2 (self-drawn)
    # + 2 (only tile) + 2 (pair) = 26; four chows 1 + hidden treasure 2 → 26 × 8 = 208
    r = nts("234m678m345s456p99p", "9p", seat_wind="S", first_turn=True, win_by="wall")
    assert not {"heaven", "earth"} & set(fired(r))
    assert r.total == 208


def test_heaven_needs_a_win_from_the_wall():
    # 002:39 "Oost wint direct met de 14 gedeelde stenen": East wins with the 14 tiles dealt, the last of
    # them drawn from the wall; a win by discard on the first turn is not Heaven (a new user's East
    # "--first-turn" row, win by discard the default, had scored 2000), nor Earth (002:42, a non-dealer's).
    # Scored as any hand: 20 (002:13) + 2 only possible tile (002:15, 9p alone completes it) + 2 the
    # winning tile completes the pair (002:16) = 24 points; Four Chows 1 doubling (002:46) → 24 × 2 = 48;
    # the note says the first turn scores nothing here and what a win from the wall would score
    r = nts("234m678m345s456p99p", "9p", first_turn=True, win_by="discard")
    assert not {"heaven", "earth"} & set(fired(r))
    assert r.total == 48
    assert any("won by wall" in n and "Spel van de hemel" in n for n in r.notes), r.notes
    # … nor with a kong in the hand (a referee's): the 14 dealt tiles hold none (a kong is a fifteenth tile and its
    # loose one), whether won with the kong's loose tile or from the wall. Scored as any hand: concealed kong of
    # terminals 32 (002:11) + East pair, seat and round wind, 2 × 2 (002:12, option seat_round_wind=each) +
    # mahjong 20 (002:13) + self-drawn 2 (002:14) = 58; the loose tile after a kong 1 doubling (002:54) + Hidden
    # Treasure 2 (002:57) = 3 → 58 × 8 = 464; and no way of winning is offered for the flag
    r = nts("(1111m) 456p789s234s11z", "4s", first_turn=True, win_by="dead-wall")
    assert "heaven" not in fired(r) and r.total == 464, (r.total, list(fired(r)))
    assert any(n.startswith("--first-turn scores nothing here") and "nor won another way (its kong: the tiles dealt"
               in n for n in r.notes), r.notes
    assert "heaven" not in fired(nts("(1111m) 456p789s234s11z", "4s", first_turn=True, win_by="wall"))
    # a flower's loose tile is dealt as the flower is replaced: Heaven from the dead wall with a flower, 2000
    # (flowers scored by no line under the default bonus_tiles=off, 002-03)
    assert nts("234m678m345s456p99p +1f", "9p", first_turn=True, win_by="dead-wall").total == 2000
    # a special hand won by discard on the first turn: the note offers Heaven, won from the wall (2000), though
    # the hand is scored as Zuivere tweelingen (1000): the way of winning that would change the total
    r = nts("11223344556677m", "7m", first_turn=True)
    assert r.total == 1000
    assert any(n.startswith("--first-turn scores nothing here") and "won by wall (--win-by wall) it scores Spel van "
               "de hemel" in n for n in r.notes), r.notes


def test_earth_needs_a_discard():
    # 002:42 "Mahjong met de eerste door Oost weggelegde steen": East's first discarded tile; a robbed kong's tile
    # is no discard (a referee's seat-S first-turn robbed-kong win had scored 1000). Scored as any hand: East pair
    # (round wind) 2 (002:12) + mahjong 20 (002:13) = 22 points (23s waits on 1s or 4s: no only-tile points); Four Chows 1
    # doubling (002:46) + Robbing the Kong 1 (002:53) → 22 × 4 = 88; the note names the discard that would score it
    r = nts("123m456p789s234s11z", "4s", seat_wind="S", first_turn=True, win_by="robbed-kong")
    assert "earth" not in fired(r) and r.total == 88
    assert any("won by discard (--win-by discard) it scores Spel van de aarde" in n for n in r.notes), r.notes
    # … nor with a kong in the hand (a tester's): nobody has had a turn to declare one before East's first discard
    r = nts("(1111m) 456m789m345s55p", "3s", seat_wind="S", first_turn=True)
    assert "earth" not in fired(r), list(fired(r))
    assert any("nor won another way (its kong" in n for n in r.notes), r.notes

def test_heaven_with_seven_pairs():
    # 002:39 Heaven (2000) on a seven-pairs hand: Seven Twins (002:31, 250) makes the shape a
    # mahjong, Heaven is the higher special hand of the group → 2000 (was "not a winning hand")
    r = nts("1133m5577p99s1122z", "2z", first_turn=True, win_by="wall")
    assert [ln.rule for ln in r.lines] == ["heaven"] and r.total == 2000


def test_fully_concealed_winding_snake_is_nine_gates():
    # 11122345678999s is also 1112345678999 + 2: both 002:22 (2000) and 002:43 (1000) fire,
    # the highest counts (RULINGS principle 5)
    r = nts("11122345678999s", "2s")
    assert [ln.rule for ln in r.lines] == ["nine-gates"]


@pytest.mark.parametrize("choice, total", [
    # 002-10 yes (default): Three Dragons with a kong as the "arbitrary chow or pung" → 2000
    ("yes", 2000),
    # no: not Three Dragons; normal count: exposed dragon pungs 4 + 4, 777z by discard exposed 4,
    # exposed kong 2222m simples 8, 99p pair 0, mahjong 20 = 40 (77z/99p wait on two tiles);
    # doublings: three dragon pungs 3 + four pungs 1 → 40 × 16 = 640
    ("no", 640),
])
def test_option_arbitrary_set_kong_three_dragons(choice, total):
    r = nts("[555z] [666z] [2222m] 777z99p", "7z", {"arbitrary_set_kong": choice})
    assert r.total == total


# ============================================= table 4: winning-hand doublings (002:46-57)
def test_four_chows():
    # 002:46: four chows + pair 99p: 20 × 2^1 = 40
    r = nts("234m678m345s456p99p", "6m")
    assert fired(r)["four-chows"].doublings == 1
    assert r.total == 40


def test_four_pungs():
    # 002:47: [222m] [333p] [444s] exposed simples 2 + 2 + 2; 555m completed by discard → exposed 2;
    # 55m/99p wait on two tiles; 8 + 20 = 28 × 2^1 = 56
    r = nts("[222m] [333p] [444s] 555m99p", "5m")
    assert fired(r)["four-pungs"].doublings == 1
    assert r.total == 56


def test_four_pungs_counts_kongs():
    # 002:47 with a kong (rendering INFERRED: kongs count): [2222m] 8 + [333p] 2 + [444s] 2 + 555m 2
    # + 20 = 34 × 2^1 = 68
    r = nts("[2222m] [333p] [444s] 555m99p", "5m")
    assert "four-pungs" in fired(r)
    assert r.total == 68


def test_pure_simplicity():
    # 002:48: only 2-8; 20 × 2^(four chows 1 + pure simplicity 1) = 80
    r = nts("234m678m345s456p88p", "6m")
    assert fired(r)["pure-simplicity"].doublings == 1
    assert r.total == 80


def test_little_four_winds():
    # 002:49: [111z] 4 + [222z] 4 + 333z concealed 8 + 44z (North, no value) + 234m, won on 2m
    # (34m waits 2m/5m): 16 + 20 = 36; doublings: little four winds 1, East pung (seat+round) 2,
    # clean (characters + honours, 002:65) 4 → 2^7: 36 × 128 = 4608
    r = nts("[111z] [222z] 33344z234m", "2m")
    assert fired(r)["little-four-winds"].doublings == 1
    assert r.total == 4608


@pytest.mark.parametrize("choice, total", [
    # 002-10 with a kong as the arbitrary set: [2222m] exposed kong 8; 44z waits alone on 4z
    # (+2 only tile +2 pair): 4 + 4 + 8 + 8 + 20 + 4 = 48; doublings: East pung 2, four pungs 1,
    # clean 4 and, under yes, little four winds 1 → yes 2^8: 12288; no 2^7: 6144
    ("yes", 12288),
    ("no", 6144),
])
def test_option_arbitrary_set_kong_little_four_winds(choice, total):
    r = nts("[111z] [222z] [2222m] 33344z", "4z", {"arbitrary_set_kong": choice})
    assert r.total == total


def test_little_three_dragons():
    # 002:50: [555z] 4 + [666z] 4 + pair 77z 2 + 234m 678m, won on 6m: 10 + 20 = 30;
    # doublings: little three dragons 1 + two dragon pungs 2 + clean 4 → 2^7: 30 × 128 = 3840
    r = nts("[555z] [666z] 77z234m678m", "6m")
    assert fired(r)["little-three-dragons"].doublings == 1
    assert r.total == 3840


def test_bottom_of_the_sea():
    # 002:51: last wall tile, self-drawn: 20 + 2 = 22; four chows 1 + 1 → 22 × 4 = 88
    r = nts("234m678m345s99p [456p]", "6m", win_by="wall", last_tile=True)
    assert fired(r)["bottom-of-the-sea"].doublings == 1
    assert r.total == 88


def test_bottom_of_the_sea_not_on_a_discard():
    # the last discard is not the last wall tile: 20 × 2 (four chows) = 40
    r = nts("234m678m345s99p [456p]", "6m", last_tile=True)
    assert "bottom-of-the-sea" not in fired(r)
    assert r.total == 40
    # a referee's --last-tile on a discard win had been dropped without a word: a note says that it scores nothing
    # here, and that won from the wall the hand scores 002:51's line (+1 doubling: 88, as test_bottom_of_the_sea)
    (note,) = [n for n in r.notes if n.startswith("--last-tile")]
    assert note == ("--last-tile scores nothing here: no rule of nts scores a win on the last tile for this hand won "
                    "by discard; won by wall (--win-by wall) it scores Winnen van de bodem van de zee — won with the "
                    "last tile of the wall, self-drawn (+1 dbl, 002_b9f4c4575200caaf.txt:51)")
    # … and no note where it counts, nor under a ruleset whose rule scores it
    assert not any(n.startswith("--last-tile") for n in nts("234m678m345s99p [456p]", "6m", win_by="wall",
                                                              last_tile=True).notes)
    # a special hand's value replaces the count (002-17): the note does not say that no rule scores the last
    # tile for this hand, nor offer another way of winning (002:51 would count it in a counted hand: a reviewer's
    # 111m999m111p999p11s, Kop en staart 2000, had been told so); it names the special hand it is scored as,
    # which a new user's Clean Twins with a last-tile flag had not been told at all
    special = nts("111m999m111p999p11s", "1s", win_by="wall", last_tile=True)
    assert special.total == 2000
    (note,) = [n for n in special.notes if n.startswith("--last-tile")]
    assert note == ("--last-tile scores nothing here: the hand is scored as Kop en staart — Head and Tail: pungs/kongs "
                    "of terminals and a pair of terminals (002_b9f4c4575200caaf.txt:41; total 2000), and a win on the "
                    "last tile adds nothing to it"), note
    # a first-turn win drawn by a non-dealer: nts scores only East's first discard to another (002:42 Spel van
    # de aarde, 1000); the note names that way, never a robbed kong's tile
    (note,) = [n for n in nts("234m678m345s99p456p", "6m", seat_wind="S", win_by="wall", first_turn=True).notes
               if n.startswith("--first-turn")]
    assert note == ("--first-turn scores nothing here: no rule of nts scores a win in the first turn for this hand "
                    "won by wall; won by discard (--win-by discard) it scores Spel van de aarde — Hand of Earth: won "
                    "on East's first discard (1000 fixed, 002_b9f4c4575200caaf.txt:42)"), note
    # a legality check (vision.decode) asks for no such note: it costs six more scorings
    hand = parse_hand("234m678m345s99p [456p]", winning_tile="6m", context=Context(last_tile=True))
    assert not any(n.startswith("--last-tile") for n in score_hand(hand, "nts", win_notes=False).notes)


@pytest.mark.parametrize("choice, total", [
    # 002:52 Fishing the Moon: last wall tile is 1p. 23p waits 1p/4p: 20 + 2 = 22;
    # 002-11 replace (RULINGS): four chows 1 + moon 3 → 22 × 16 = 352
    ("replace", 352),
    # add: four chows 1 + bottom of the sea 1 + moon 3 → 22 × 32 = 704
    ("add", 704),
])
def test_moon_from_the_bottom_of_the_sea(choice, total):
    r = nts("123p678m345s99p [456p]", "1p", {"specialisation": choice}, win_by="wall", last_tile=True)
    assert r.total == total
    assert ("bottom-of-the-sea" in fired(r)) == (choice == "add")


def test_robbing_the_kong():
    # 002:53: 20 × 2^(four chows 1 + robbing the kong 1) = 80
    r = nts("234m678m345s99p [456p]", "6m", win_by="robbed-kong")
    assert fired(r)["robbing-the-kong"].doublings == 1
    assert r.total == 80


def test_kong_with_blooming_flowers():
    # 002:54: (3333s) concealed kong simples 16 + 20 + self-drawn 2 = 38; blooming 1 → 76
    r = nts("234m678m99p [456p] (3333s)", "6m", win_by="dead-wall")
    assert fired(r)["kong-blooming"].doublings == 1
    assert r.total == 76


def test_a_dead_wall_win_needs_a_kong_for_blooming_flowers():
    # 002:54 "Mahjong met de losse steen verkregen na het maken van een kong": a tester's hand with no kong won by
    # dead-wall was scored with it (64); with no kong and no flower it is refused (scoring.hand.check_context);
    # with a flower (the dead-wall tile replaced it; flowers unscored, 002-03) the doubling does not fire:
    # [777p] exposed pung of simples 2 (002:10), East pair 2 × 2 (seat and round, 002:12, 002-04), mahjong 20
    # (002:13), self-drawn 2 (002:14), only possible tile 2 (002:15), pair completed 2 (002:16) = 32, no doubling
    with pytest.raises(HandError, match="dead wall"):
        nts("123m456p789s11z [777p]", "1z", win_by="dead-wall")
    r = nts("123m456p789s11z [777p] +2f", "1z", win_by="dead-wall")
    assert "kong-blooming" not in fired(r) and r.total == 32


@pytest.mark.parametrize("choice, total", [
    # 002:55 Plum Blossom: loose tile is 5p; 34p waits 2p/5p. 16 + 20 + 2 = 38;
    # replace: plum 3 → 38 × 8 = 304; add: plum 3 + blooming 1 → 38 × 16 = 608
    ("replace", 304),
    ("add", 608),
])
def test_plum_blossom_from_the_roof(choice, total):
    r = nts("345p678m99p [234m] (3333s)", "5p", {"specialisation": choice}, win_by="dead-wall")
    assert r.total == total


@pytest.mark.parametrize("choice, total", [
    # 002:56 Kong on Kong: two concealed kongs simples 16 + 16 + 20 + self-drawn 2 = 54; 34m
    # waits 2m/5m. replace: 2 → 54 × 4 = 216; add: 2 + blooming 1 → 54 × 8 = 432
    ("replace", 216),
    ("add", 432),
])
def test_kong_on_kong(choice, total):
    r = nts("234m99p [456p] (3333s) (7777m)", "2m", {"specialisation": choice},
            win_by="dead-wall", kong_on_kong=True)
    assert r.total == total


@pytest.mark.parametrize("choice, total", [
    # plum blossom (5p) after two kongs: both specialisations apply; each replaces only its
    # base item (RULINGS 002-11): 54 points; replace: 3 + 2 → 54 × 32 = 1728;
    # add: 3 + 2 + 1 → 54 × 64 = 3456
    ("replace", 1728),
    ("add", 3456),
])
def test_plum_blossom_and_kong_on_kong_together(choice, total):
    r = nts("345p99p [234m] (3333s) (7777m)", "5p", {"specialisation": choice},
            win_by="dead-wall", kong_on_kong=True)
    assert r.total == total


def test_hidden_treasure():
    # 002:57: fully concealed, self-drawn: 20 + 2 = 22; four chows 1 + hidden treasure 2 → 176
    r = nts("234m678m345s456p99p", "6m", win_by="wall")
    assert fired(r)["hidden-treasure"].doublings == 2
    assert r.total == 176


def test_hidden_treasure_allows_a_concealed_kong():
    # concealed kong (3333s) 16 + 20 + 2 = 38; hidden treasure 2 → 38 × 4 = 152
    r = nts("234m678m456p99p (3333s)", "6m", win_by="wall")
    assert "hidden-treasure" in fired(r)
    assert r.total == 152


def test_table_4_is_for_the_winner_only():
    # non-winner 234m678m345s456p9p: no mahjong, no four chows; nothing scores: 0
    r = nts("234m678m345s456p9p", winner=False)
    assert r.total == 0 and r.lines == ()


# ========================================= table 5: sets and composition (002:60-68)
@pytest.mark.parametrize("meld, ctx, total", [
    # 002:60 pung of dragons: [555z] 4 + 20 = 24 × 2 = 48
    ("[555z]", {}, 48),
    # own wind (seat S = 2z): 24 × 2 = 48
    ("[222z]", {"seat_wind": "S"}, 48),
    # round wind (seat S, round E = 1z): 24 × 2 = 48
    ("[111z]", {"seat_wind": "S"}, 48),
    # East for seat E and round E, seat_round_wind=each (RULINGS): 24 × 4 = 96
    ("[111z]", {}, 96),
    # not a value wind (North, seat E round E): 24
    ("[444z]", {}, 24),
])
def test_value_pung(meld, ctx, total):
    r = nts(f"234m678m345s99p {meld}", "6m", **ctx)
    assert r.total == total


def test_option_seat_round_wind_once_for_pung():
    # 002-04 once: [111z] for E/E gives 1 doubling: 24 × 2 = 48
    r = nts("234m678m345s99p [111z]", "6m", {"seat_round_wind": "once"})
    assert r.total == 48


@pytest.mark.parametrize("choice, total", [
    # 002-16 everyone (default): non-winner's concealed pung 555z 8 × 2 (dragon pung) = 16
    ("everyone", 16),
    # winner: table 5 is the winner's only: 8
    ("winner", 8),
])
def test_option_set_doublings_for(choice, total):
    r = nts("555z234m678m345s9p", winner=False, options={"set_doublings_for": choice})
    assert r.total == total


def test_three_concealed_pungs():
    # 002:61: 222m 555p 888s concealed simples 4 × 3 = 12 + 20 = 32 (45s waits 3s/6s); × 2 = 64
    r = nts("222m555p888345s99p", "3s")
    assert fired(r)["three-concealed-pungs"].doublings == 1
    assert r.total == 64


def test_pung_completed_by_discard_is_not_concealed():
    # RULINGS 6: 555p completed by the winning discard is exposed (2), so only two concealed
    # pungs: 4 + 2 + 4 = 10 + 20 = 30; 55p/99p wait on two tiles; no doubling → 30
    r = nts("222m555p888345s99p", "5p")
    assert "three-concealed-pungs" not in fired(r)
    assert r.total == 30


def test_four_concealed_pungs():
    # 002:62: 222m 555p 888s 444s concealed 4 × 4 = 16; 99p waits alone on 9p: +2 only +2 pair;
    # 16 + 20 + 4 = 40; doublings: four concealed pungs 2 (footnote ³: not 3 + 1) + four pungs 1
    # → 40 × 8 = 320
    r = nts("222m555p888444s99p", "9p")
    assert "three-concealed-pungs" not in fired(r)
    assert fired(r)["four-concealed-pungs"].doublings == 2
    assert r.total == 320


def test_three_concealed_kongs():
    # 002:63: three concealed kongs simples 16 × 3 = 48 + 20 = 68 (45s waits 3s/6s);
    # group (RULINGS 002-12): 3 concealed kongs 2 beats 3 concealed pungs 1 → 68 × 4 = 272
    r = nts("(2222m) (5555p) (8888s) 345s99p", "3s")
    assert fired(r)["three-concealed-kongs"].doublings == 2
    assert "three-concealed-pungs" not in fired(r)
    assert r.total == 272


@pytest.mark.parametrize("choice, total", [
    # 002:64 four kongs 3, stacking with the concealed-sets group (002-15, RULINGS).
    # Four exposed kongs simples 8 × 4 = 32 + 20 + 99p single wait 2 + 2 = 56.
    # 002-14 any (default, literal "kong telt als dichte pung"): four kongs 3 + four concealed
    # pungs 2 + four pungs 1 = 6 → 56 × 64 = 3584
    ("any", 3584),
    # concealed: exposed kongs do not count: 3 + 1 = 4 → 56 × 16 = 896
    ("concealed", 896),
])
def test_four_kongs_and_option_kong_counts_as_concealed_pung(choice, total):
    r = nts("[2222m] [5555p] [8888s] [3333s] 99p", "9p", {"kong_counts_as_concealed_pung": choice})
    assert fired(r)["four-kongs"].doublings == 3
    assert r.total == total


def test_clean():
    # 002:65: 444z concealed 8 + 20 = 28; clean 4 → 28 × 16 = 448
    r = nts("234m678m99m444z [456m]", "6m")
    assert fired(r)["clean"].doublings == 4
    assert r.total == 448


def test_very_clean():
    # 002:66: [111m] 4 + [999m] 4 + 333z 8 + 444z 8 + pair 55z (dragon) 2 + 20; 5z single
    # wait: +2 +2 → 50; doublings: four pungs 1 + very clean 4 (footnote: not + clean 4) → 50 × 32
    r = nts("[111m] [999m] 33344455z", "5z")
    assert fired(r)["very-clean"].doublings == 4
    assert "clean" not in fired(r)
    assert r.total == 1600


def test_pure():
    # 002:67: 111m concealed terminals 8 + 20 = 28; pure 4 → 28 × 16 = 448
    r = nts("111234678m99m [456m]", "6m")
    assert fired(r)["pure"].doublings == 4
    assert r.total == 448


def test_only_winds_and_dragons():
    # 002:68: [111z] 4 + [222z] 4 + 333z 8 + 555z 8 + pair 66z 2 + 20; 6z single wait +2 +2 → 50;
    # doublings: East pung (seat+round) 2 + White pung 1 + four pungs 1 + only honours 4 = 8
    # → 50 × 256 = 12800
    r = nts("[111z] [222z] 33355566z", "6z")
    assert fired(r)["only-honours"].doublings == 4
    assert r.total == 12800


# ======================================================= footnotes ¹ ² ³ (002:70-74, 002-12)
def test_footnote_composition_group_counts_once():
    # very clean + clean both describe [111m] [999m] 333z 444z 55z: one 4, not 8 (see test_very_clean)
    r = nts("[111m] [999m] 33344455z", "5z")
    comp = [ln for ln in r.lines if ln.rule in ("clean", "very-clean", "pure", "only-honours")]
    assert [ln.doublings for ln in comp] == [4]


def test_footnote_concealed_sets_group_counts_once():
    # three and four concealed pungs both fire for 222m555p888s444s99p; only the 2 counts
    r = nts("222m555p888444s99p", "9p")
    grp = [ln.rule for ln in r.lines if ln.rule in ("three-concealed-pungs", "four-concealed-pungs",
                                                     "three-concealed-kongs")]
    assert grp == ["four-concealed-pungs"]


# ============================================================= options not yet covered
@pytest.mark.parametrize("choice, total", [
    # 002-03 off (RULINGS): flowers are not scored, a note says so: 20 × 2 (four chows) = 40
    ("off", 40),
    # 4-points: 1f and 2y 4 each: 28 × 2 = 56
    ("4-points", 56),
])
def test_option_bonus_tiles(choice, total):
    r = nts("234m678m345s99p [456p] +1f2y", "6m", {"bonus_tiles": choice})
    assert r.total == total
    assert bool(r.notes) == (choice == "off")


@pytest.mark.parametrize("choice, total", [
    # 002-09 open (default): a non-winner with four concealed kongs is counted normally; with
    # set_doublings_for=winner only points count: 16 × 4 (simples) = 64
    ("open", 64),
    # closed: Four Concealed Kongs (002:40) is a closed hand; the hand waits on 6z for it:
    # half of 2000 = 1000 > 64
    ("closed", 1000),
])
def test_option_misplaced_hands(choice, total):
    r = nts("(2222m) (3333p) (4444s) (5555s) 6z", winner=False,
            options={"misplaced_hands": choice, "set_doublings_for": "winner"})
    assert r.total == total


# ================================================================== the ruleset file itself
def test_every_rule_cites_a_seed_line_with_its_value(shared):
    """Each rule's source line exists in the seed; fixed/doubling rows carry the rule's value. A rule the seed has
    no line for cites the RULINGS entry that makes it (the flowers' 4 points, 002-03: a referee read the section
    heading 002:7 it had cited as the seed's word)."""
    seed = (shared / "seeds" / SEED).read_text(encoding="utf-8").splitlines()
    rulings = (shared / "rules" / "RULINGS.md").read_text(encoding="utf-8")
    rs = load_ruleset("nts")
    assert load_ruleset("nts").rule("bonus-tile").source == "RULINGS 002-03"
    for r in rs.rules:
        if r.source.startswith("RULINGS "):
            assert f"- {r.source.split()[1]}:" in rulings and r.when, r.id  # (an option's rule, its entry there)
            continue
        file, _, line = r.source.partition(":")
        assert file == SEED, r.id
        first = int(line.split("-")[0])
        text = seed[first - 1]
        assert text.strip(), (r.id, first)
        if r.kind in ("fixed", "doublings") and r.id != "closed-hand-waiting":
            assert text.split("\t")[-1].strip() == f"{r.value:g}", (r.id, text)


def test_every_option_names_its_ambiguity_and_default_is_a_choice():
    rs = load_ruleset("nts")
    for o in rs.options.values():
        assert o.ambiguity.startswith("002-"), o.name
        assert o.default in o.choices and len(o.choices) >= 2, o.name


def test_option_fixed_hands_fixed_or_best():
    # 002:37 Drie draken 2000, self-drawn, concealed: 11m 555z 666z 777z [234m], win 1m from the wall.
    # Default fixed_hands=fixed (002-17): the fixed value replaces the count → 2000.
    hand = "555z666z777z11m [234m]"
    assert nts(hand, "1m", win_by="wall").total == 2000
    # fixed_hands=best: the normal count is higher. Points: 3 concealed dragon pungs 3 × 8 (002:11,
    # 002-02) = 24; chow 0; pair 11m 0; mahjong 20 (002:13); self-drawn 2 (002:14); only possible
    # tile 1m 2 (002:15); pair completed 2 (002:16) = 50. Doublings: 3 dragon pungs 3 (002:60),
    # 3 concealed pungs 1 (002:61), clean 4 (002:65) = 8 → 50 × 2^8 = 12800 > 2000.
    r = nts(hand, "1m", {"fixed_hands": "best"}, win_by="wall")
    assert r.total == 12800 and "three-dragons" not in fired(r)
    # the special hand passed over is said so, not "outranked … the highest" (no special hand counts), and the
    # default's explanation notes the higher count (scoring.engine.special_hand_count_note)
    assert "not counted: Drie draken" in explain(r) and "ordinary count is higher (option fixed_hands=best)" in \
        explain(r) and "outranked" not in explain(r)
    assert ("the hand's ordinary count is higher, 12800 = 50 points × 2^8: nts scores Drie draken instead "
            "(002_b9f4c4575200caaf.txt:37); option fixed_hands=best scores the higher") in \
        nts(hand, "1m", win_by="wall").notes
    # ... and where the fixed value is higher it stays: exposed Drie draken on a discard:
    # [555z] [666z] 777z 234m 99p win 7z: 4 + 4 + 4 (7z pung by discard, exposed) + 20 = 32 points,
    # doublings 3 → 256 < 2000
    assert nts("[555z] [666z] 777z234m99p", "7z", {"fixed_hands": "best"}).total == 2000


def test_a_special_hand_of_another_reading_passed_over_is_noted():
    # 11223344556677m self-drawn reads two ways: seven pairs, Zuivere tweelingen 1000 (002:28; fixed values are
    # not doubled, RULINGS 002-17), or 123 123 456 456 77: mahjong 20 (002:13) + self-drawn 2 (002:14) + pair
    # completed 2 (002:16) = 24 points; Vier chows 1 (002:46) + Verborgen schat 2 (002:57) + Zuiver 4 (002:67) = 7
    # doublings -> 24 x 2^7 = 3072. Several readings: the best for the player (RULINGS principle 5), 3072 — and the
    # special hand passed over is said (a seed referee saw none)
    r = nts("11223344556677m", "7m", win_by="wall")
    assert r.total == 3072 and "pure-twins" not in fired(r)
    assert ("the hand also reads as Zuivere tweelingen, 1000 (002_b9f4c4575200caaf.txt:28): its ordinary reading "
            "scores higher, 3072, and the best reading for the player counts (RULINGS principle 5)") in r.notes
    # a hand with one reading, or whose special reading is the one scored, has no such note
    assert not any("also reads as" in n for n in nts("123m456m789m234p55p", "5p").notes)


def test_a_line_cites_the_option_only_when_it_decides_it():
    # 002-04 (seat_round_wind) decides only a wind that is both seat and round wind; a new user read
    # the demo's Green-dragon pair line "(002:12; option seat_round_wind=each, 002-04)" as if the
    # dragon pair's value hung on it. 002:12 pair of dragons 2 points, either way
    r = nts("234m678m345s66z [555p]", "6m")
    assert fired(r)["value-pair"].points == 2 and "seat_round_wind" not in fired(r)["value-pair"].option
    # a pair of East for seat E / round E: 2 × 2 = 4 points under 'each' (RULINGS), and the line says so
    r = nts("234m678m345s11z [555p]", "6m")
    assert fired(r)["value-pair"].points == 4 and "seat_round_wind=each" in fired(r)["value-pair"].option
    # the same pair for seat S (round E): only the round wind, 2 points; the option decides nothing
    r = nts("234m678m345s11z [555p]", "6m", seat_wind="S")
    assert fired(r)["value-pair"].points == 2 and "seat_round_wind" not in fired(r)["value-pair"].option
    # a pung of Red dragons: 002:60 one doubling, the option not cited; a pung of East for E/E: cited
    r = nts("234m678m345s11z [777z]", "6m")
    ln = fired(r)["value-pung"]
    # (nor set_doublings_for, 002-16, which decides only a non-winner's table-5 lines: a seed auditor's; every
    # winner's line had cited it)
    assert ln.doublings == 1 and "seat_round_wind" not in ln.option and "set_doublings_for" not in ln.option
    r = nts("234m678m345s77z [111z]", "6m")
    assert fired(r)["value-pung"].doublings == 2 and "seat_round_wind=each" in fired(r)["value-pung"].option
    # a non-winner's pung of Red dragons: 002:60 one doubling under set_doublings_for=everyone (002-16), none under
    # winner: the option decides it, and the line says so
    r = nts("234m678m345s1z [777z]", winner=False)
    assert fired(r)["value-pung"].doublings == 1 and "set_doublings_for=everyone" in fired(r)["value-pung"].option
    # a hand with no kong does not cite kong_counts_as_concealed_pung (002-14): 002:57 Drie dichte pungs
    r = nts("222m555m888m345m77z", "3m", win_by="wall")
    assert not [ln.option for ln in r.lines if "kong_counts_as_concealed_pung" in ln.option]



def test_a_line_made_for_one_seat_is_not_reused_for_another():
    # the line cache (scoring.engine._line) keys on the options a firing leaves quiet: under 'once'
    # a pair of East counts 2 for seat S and for seat E alike (002:12, 002-04 once), but only the
    # second line is decided by the option (East both seat and round wind)
    r1 = nts("234m678m345s11z [555p]", "6m", {"seat_round_wind": "once"}, seat_wind="S")
    r2 = nts("234m678m345s11z [555p]", "6m", {"seat_round_wind": "once"})
    assert fired(r1)["value-pair"].points == fired(r2)["value-pair"].points == 2
    assert "seat_round_wind" not in fired(r1)["value-pair"].option
    assert "seat_round_wind=once" in fired(r2)["value-pair"].option


# ============================================================ no winning tile given
def test_a_winners_hand_with_no_winning_tile_is_noted_with_what_naming_it_changes():
    # the README's hand, 123m456p789s11z [777p], seat and round East, won on a discard. Typed without win: a new
    # user saw 26 with no word that the score rests on no wait; the README's own example, win:1z, scores 30.
    #   no winning tile: exposed pung of simples 777p 2 (002:10) + pair of own wind and round wind 11z 2 × 2 = 4
    #   (002:12, seat_round_wind=each, 002-04) + mahjong 20 (002:13); the chows 0 — 26, no wait counted.
    #   win:1z: + the only possible tile 2 (002:15: 123m456p789s1z [777p] waits on 1z alone) + the winning tile
    #   completes the pair 2 (002:16) — 30.
    #   win:2m: 1m_3m waits on 2m alone: + 002:15 2 — 28. win:1m: 23m waits on 1m and 4m (two-sided): 26.
    from scoring.engine import no_winning_tile_note, winning_tile_effect, with_no_winning_tile_note

    r = nts("123m456p789s11z [777p]")
    assert r.total == 26 and r.decomposition.wait is None
    effect = winning_tile_effect(r)
    assert (effect.totals["1z"], effect.totals["2m"], effect.totals["1m"]) == (30, 28, 26)
    assert set(effect.totals) == {"1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z"}
    assert effect.rules == ("only-possible-tile", "pair-completed")
    note = no_winning_tile_note(r)
    assert note.startswith("no winning tile given: scored with no wait (no rule on the wait or the winning tile "
                           "applies; no concealed set counts as completed by a discard); end "
                           "the notation with win:TILE or give --winning-tile TILE"), note
    assert note.endswith(": with one it scores 26–30 (lines that depend on it: only-possible-tile, "
                         "pair-completed)"), note
    noted = with_no_winning_tile_note(r)
    assert noted.total == 26 and noted.lines == r.lines and noted.notes[-1] == note  # (the score as it was)
    # named, it scores 30 and has nothing to say; nor has a non-winner's hand
    won = nts("123m456p789s11z [777p]", win="1z")
    assert won.total == 30 and no_winning_tile_note(won) is None and with_no_winning_tile_note(won) is won
    assert no_winning_tile_note(nts("123m456p789s1z [777p]", winner=False)) is None


def test_with_no_winning_tile_every_set_counts_concealed_and_a_discard_could_expose_one():
    # 111m222p333s444s55z (seat and round East), no winning tile: four concealed pungs, none completed by a
    # discard. 111m concealed terminals 8 (002:11) + 222p, 333s, 444s concealed simples 3 × 4 = 12 (002:10) +
    # pair 55z (White, a dragon) 2 (002:12) + mahjong 20 (002:13) = 42 points; doublings: four pungs 1 (002:47)
    # and four concealed pungs 2 (002:62) — 42 × 2^3 = 336.
    # win:1m on a discard: 111m becomes exposed (RULINGS principle 6): 4 (002:11), and three concealed pungs 1
    # doubling (002:61) in place of 2: (4 + 12 + 2 + 20) = 38 × 2^(1+1) = 152 — never the 336 scored without.
    from scoring.engine import no_winning_tile_note, winning_tile_effect

    r = nts("111m222p333s444s55z")
    assert r.total == 336
    effect = winning_tile_effect(r)
    assert effect.totals["1m"] == 152
    assert "four-concealed-pungs" in effect.rules and "pung-terminals-concealed" in effect.rules
    assert ", never this 336 (lines that depend on it: " in no_winning_tile_note(r)


def test_a_circumstance_no_rule_reads_is_said_to_score_nothing():
    # a seed auditor's: --announced-wait under nts (no rule reads it: the Dutch sheet's ×1.5 is not NTS's) was
    # dropped without a word, where --last-tile and --first-turn get a note. 123m456p789s234m 11z won on the East:
    # the same 56 with or without it, and a note says so
    r = nts("123m456p789s234m11z", "1z", announced_wait=True)
    assert r.total == nts("123m456p789s234m11z", "1z").total
    assert "--announced-wait scores nothing here: no rule of nts scores an announced wait for this hand" in r.notes
    assert not [n for n in nts("123m456p789s234m11z", "1z").notes if "announced" in n]
    # --discards is said so too, whatever another note says of tables (a reviewer's: a note's word "tables" had
    # hidden it)
    r = nts("123m456p789s234m11z +1f", "1z", discards=4)
    assert "--discards scores nothing here: no rule of nts scores the discards on the table for this hand" in r.notes
    # hk-tw-16's dealer streak is read by its settlement (the dealer pays 莊/連莊 under dealer_point=any-dealer-
    # payment): a dealer who did not win is not told it scores nothing
    from scoring import Context, parse_hand, score_hand

    hk = score_hand(parse_hand("123m456m789m123p456p7z", context=Context(winner=False, dealer_streak=2)), "hk-tw-16")
    assert not [n for n in hk.notes if "--dealer-streak" in n], hk.notes


# ============================================================ rules earned but not added (footnotes, 002:70-74)


def test_a_footnote_groups_lower_doubling_is_named_as_earned_not_added():
    # a referee: 123p 11z (2222m) (5555p) (7777s), won on 1z, East seat and round. It holds 3 concealed kongs
    # (002:63, +2 dbl) and so 3 concealed pungs (002:61, +1 dbl: a kong counts as a concealed pung, option
    # kong_counts_as_concealed_pung=any, 002-14); RULINGS 002-12/15 (a) groups 3/4 concealed pungs with 3 concealed
    # kongs (footnote ³ at 002:74, "deze verdubbelingen mogen niet worden opgeteld"): the highest counts, +2 dbl. Points: 3 concealed
    # kongs of simples 3 × 16 (002:10) + 11z pair seat and round wind 2 + 2 (002:12, seat_round_wind=each) +
    # mahjong 20 (002:13) + only possible tile 2 (002:15) + the pair completed 2 (002:16) = 76; 76 × 2^2 = 304.
    # The explanation had listed 3 dichte kongs alone, the JSON's outranked empty: a referee adding by hand counts
    # the +1 too
    r = nts("123p11z (2222m) (5555p) (7777s)", "1z")
    assert (r.total, r.points, r.doublings) == (304, 76, 2)
    assert [ln.rule for ln in r.not_added] == ["three-concealed-pungs"]
    text = explain(r)
    line = next(x for x in text.splitlines() if x.startswith("  not added: "))
    assert "3 dichte pungs" in line and f"{SEED}:61" in line and "earned, but 3 dichte kongs (+2 dbl" in line
    assert (f"3 or 4 concealed pungs and 3 concealed kongs are not added together ({SEED}:61-63, footnote ³ at 74; "
            f"RULINGS 002-12/15)") in line
    assert r.to_json()["not_added"][0]["rule"] == "three-concealed-pungs"
    # clean (002:65) beside very clean (002:66): footnotes ¹-³, one of the group counts (111m 999m 111z 222z 55z,
    # won on 5z: very clean counts, clean is named as not added)
    r = nts("111m999m111z222z55z", "5z")
    assert {ln.rule for ln in r.not_added} == {"three-concealed-pungs", "clean"}
    assert "very-clean" in {ln.rule for ln in r.lines}
    # a special hand replaces the count: nothing of the count is "not added" (Jade, 002:38, 2000)
    r = nts("234s666s888s666z22s", "2s")
    assert r.total == 2000 and r.not_added == ()
