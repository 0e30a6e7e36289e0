"""hk-tw-16: the 16-tile HK/Taiwanese points table, seed 004_7d7ce2dadca33504.txt.

One test (or a few) per seed line and per exclusion note; every expected value is derived by hand
from the seed lines in the comment beside it ("004:N" = seed line N). Unless a test says otherwise
the player sits South (not the dealer) in an East round and wins on a discard, so 莊 (dealer) does
not fire and 正風 = South, 正圈 = East.
"""
from __future__ import annotations

import json
import random
import re

import pytest

import cli
from scoring import HandError, RulesetError, load_ruleset, parse_hand, score_hand
from scoring.generate import random_winning_hand
from scoring.hand import Context
from scoring.settle import settle

RS = "hk-tw-16"
SEED = "004_7d7ce2dadca33504.txt"


def score(notation: str, win: str | None = None, options=None, flags=(), **ctx):
    """Score ``notation`` under hk-tw-16; seat South, round East, discard unless given."""
    ctx.setdefault("seat_wind", "S")
    ctx.setdefault("round_wind", "E")
    c = Context(flags=frozenset(flags), **ctx)
    return score_hand(parse_hand(notation, winning_tile=win, context=c, sizes=None), RS, options)


def pts(result) -> dict[str, float]:
    """rule id → points of that line (cash lines give their cash)."""
    return {ln.rule: (ln.cash if ln.kind == "cash" else ln.points) for ln in result.lines}


def check(result, expected: dict[str, float], total: int) -> None:
    """The result has exactly the ``expected`` point/cash lines (note lines ignored) and ``total``."""
    got = {k: v for k, v in pts(result).items()
           if next(ln for ln in result.lines if ln.rule == k).kind != "note"}
    assert got == expected, result.decomposition.describe()
    assert result.total == total


# =================================================================================== line 1
def test_line1_wrong_flower_per_tile_and_per_hand():
    # seat S = number 2; 1f and 3y are wrong flowers: 004:1 爛花 1 each = 2; 004:41 底 5 → 7
    r = score("[123m] 456m 777p 234s 678s 11z +1f3y", "6s")
    check(r, {"wrong-flower": 2, "base": 5}, 7)
    # option wrong_flower=per-hand (004-02 b): 爛花 1 → the hand has ONLY 1 point → 004:10 大雞胡 25
    # (won on a discard, option chicken_hand default) replaces it; + 底 5 = 30
    r = score("[123m] 456m 777p 234s 678s 11z +1f3y", "6s", {"wrong_flower": "per-hand"})
    check(r, {"big-chicken": 25, "base": 5}, 30)


def test_line1_no_honours_and_no_flowers():
    # three suits, no honours, one wrong flower: 004:1 無字 1 + 爛花 1 + 底 5 = 7
    check(score("[123m] 456m 777p 234s 678s 99m +1f", "6s"),
          {"no-honours": 1, "wrong-flower": 1, "base": 5}, 7)


def test_line1_honour_pung_seat_and_round_wind_ruling_004_04():
    # [222z] South = seat wind: 碰字 1 + 正風 1; [111z] East = round wind: 碰字 1 + 正圈 1 (RULINGS
    # 004-04 reading a); 無花 1; win 9s completes the pair but 6s also wins (78s+99s): 假獨 1;
    # 底 5 → 1+1+1+1+1+1+5 = 11
    r = score("[222z] [111z] 123m 456p 678s 99s", "9s")
    check(r, {"honour-pung": 2, "seat-wind": 1, "round-wind": 1, "no-flowers": 1,
              "false-single": 1, "base": 5}, 11)
    # option honour_pung=guest-wind (004-04 b): neither wind is a guest → 碰字 0 → 11 - 2 = 9
    r = score("[222z] [111z] 123m 456p 678s 99s", "9s", {"honour_pung": "guest-wind"})
    assert "honour-pung" not in pts(r) and r.total == 9
    # a guest wind (West) gets 碰字 only: 碰字 1 + 無花 1 + 假獨 1 + 底 5 = 8
    r = score("[333z] [567m] 123m 456p 678s 99s", "9s")
    check(r, {"honour-pung": 1, "no-flowers": 1, "false-single": 1, "base": 5}, 8)


def test_line1_generals_eyes_258_pair():
    # 004:8 無字花 5 (no honours, no flowers); 004:1 將眼 1 (55p); 底 5 → 11
    check(score("[123m] 456m 777p 234s 678s 55p", "6s"),
          {"no-honours-no-flowers": 5, "generals-eyes": 1, "base": 5}, 11)
    # option generals_eyes=winning-on-pair (004-17 b): the winning 6s completes a chow → no 將眼;
    # 無字花 5 + 底 5 = 10
    assert score("[123m] 456m 777p 234s 678s 55p", "6s", {"generals_eyes": "winning-on-pair"}).total == 10


def test_line1_false_single_and_line2_single_wait():
    # 678s + 5p: only 5p wins → 獨獨 2 (004:2); 無字花 5; 將眼 1; 底 5 → 13
    check(score("[123m] [456m] [777p] [234s] 678s 55p", "5p"),
          {"single-wait": 2, "no-honours-no-flowers": 5, "generals-eyes": 1, "base": 5}, 13)
    # 假獨 (004:1), the rendering's example: holding 1123s, 1s wins (11+123) and so does 4s
    # (11+234); winning on 1s to complete the pair is a false single wait → 假獨 1; 無字花 5;
    # 底 5 → 11
    check(score("[123m] [456m] [777p] [678s] 11123s", "1s"),
          {"false-single": 1, "no-honours-no-flowers": 5, "base": 5}, 11)


def test_line2_single_wait_edge_option_004_16():
    # 12s waiting on 3s only (edge): default 獨獨 pair-only → nothing: 無字花 5 + 將眼 1 + 底 5 = 11
    hand = "[123m] [456m] [777p] [678s] 123s 55p"
    assert score(hand, "3s").total == 11
    # option single_wait=edge-closed-too: + 獨獨 2 = 13
    assert pts(score(hand, "3s", {"single_wait": "edge-closed-too"}))["single-wait"] == 2


def test_line2_dual_pung():
    # the winning 9s makes 99s a pung (exposed: won on a discard, RULINGS 6): 對碰 2 (004:2);
    # 無字花 5; 將眼 1 (55p); 底 5 → 13
    check(score("[123m] [456m] [777p] 678s 55p 999s", "9s"),
          {"dual-pung": 2, "no-honours-no-flowers": 5, "generals-eyes": 1, "base": 5}, 13)


def test_line1_exposed_kong_line2_concealed_kong_line42_cash():
    # [5555p] 明槓 1 (004:1); (8888m) 暗槓 2 (004:2) + $5 cash (004:42); 無花 1; the pair 1z is the
    # only wait: 獨獨 2; 底 5 → 1+2+1+2+5 = 11, cash $5 apart
    r = score("[5555p] (8888m) [123s] 456s 789p 11z", "1z")
    check(r, {"exposed-kong": 1, "concealed-kong": 2, "concealed-kong-cash": 5, "no-flowers": 1,
              "single-wait": 2, "base": 5}, 11)
    assert r.cash == 5


def test_line1_robbing_the_kong():
    # 004:1 搶槓 1 + the 11 of test_line1_generals_eyes_258_pair = 12
    r = score("[123m] 456m 777p 234s 678s 55p", "6s", win_by="robbed-kong")
    assert pts(r)["robbing-kong"] == 1 and r.total == 12


def test_line1_self_drawn():
    # exposed chow, so no 門清摸: 自摸 1 (004:1) + 無字花 5 + 將眼 1 + 底 5 = 12
    r = score("[123m] 456m 777p 234s 678s 55p", "6s", win_by="wall")
    check(r, {"self-drawn": 1, "no-honours-no-flowers": 5, "generals-eyes": 1, "base": 5}, 12)


def test_line1_dealer_and_line2_dealer_streak():
    hand = "[123m] 456m 777p 234s 678s 55p"
    # East = dealer: 莊 1 (004:1) + 11 = 12
    assert score(hand, "6s", seat_wind="E").total == 12
    # dealer with 3 deals kept: 連莊 2 (004:2, option dealer_streak_points=flat) → 14
    r = score(hand, "6s", seat_wind="E", dealer_streak=3)
    assert pts(r)["dealer-streak"] == 2 and r.total == 14
    # option per-deal (004-15 b): 3 × 2 = 6 → 18
    assert score(hand, "6s", {"dealer_streak_points": "per-deal"}, seat_wind="E", dealer_streak=3).total == 18
    # a streak does not count for a non-dealer winner: 11
    assert score(hand, "6s", dealer_streak=3).total == 11


# =================================================================================== line 2
def test_line2_own_flower():
    # seat S = 2: 2f and 2y are own flowers, 正花 2 each = 4 (004:2); with flowers 無字花 fails, so
    # 無字 1; 將眼 1; 底 5 → 11
    check(score("[123m] 456m 777p 234s 678s 55p +2f2y", "6s"),
          {"own-flower": 4, "no-honours": 1, "generals-eyes": 1, "base": 5}, 11)


def test_line2_dragon_pungs():
    # [777z] 中 2 + [666z] 發 2 (004:2); 無花 1; 9s also waits on 6s: 假獨 1; 底 5 → 11
    check(score("[777z] [666z] 123m 456p 678s 99s", "9s"),
          {"red": 2, "green": 2, "no-flowers": 1, "false-single": 1, "base": 5}, 11)
    # [555z] 白 2; 無花 1; 6s or 9s would win: 假獨 1; 底 5 → 9
    check(score("[555z] [234p] 123m 456p 678s 99s", "9s"),
          {"white": 2, "no-flowers": 1, "false-single": 1, "base": 5}, 9)


def test_line2_kong_replacement_win():
    # won on the kong replacement tile: 槓上自摸 2 + 自摸 1 (004:1–2); 明槓 1; 無字花 5; 底 5 → 14
    check(score("[5555p] [123m] [456m] [999s] 678s 33s", "8s", win_by="dead-wall"),
          {"kong-replacement": 2, "self-drawn": 1, "exposed-kong": 1, "no-honours-no-flowers": 5,
           "base": 5}, 14)


# =================================================================================== lines 3–4
def test_line3_sisters():
    # [222m]+[333m]: 姊妹 3 (004:3, option sisters=consecutive-pungs, 004-07 a); 123p + 789p: 老少 5;
    # 無字花 5; only 9s wins: 獨獨 2; 底 5 → 20
    r = score("[222m] [333m] 123p 456s 789p 99s", "9s")
    check(r, {"sisters": 3, "old-young": 5, "no-honours-no-flowers": 5, "single-wait": 2, "base": 5}, 20)
    # reading b (same chow in two suits): no such chows → 20 - 3 = 17
    assert score("[222m] [333m] 123p 456s 789p 99s", "9s", {"sisters": "same-chow-two-suits"}).total == 17
    # reading b fires for 456m + 456p: 姊妹 3; 平胡 + no honours/flowers → 大清平 15; 底 5 → 23
    r = score("[456m] 456p 123s 789m 234s 99m", "9m", {"sisters": "same-chow-two-suits"})
    assert pts(r)["sisters"] == 3


def test_line4_old_young_and_old_young_pungs():
    # [111s]+[999s] 老少碰 10; 123m+789m 老少 5; 無字花 5; 將眼 1 (55m); only 5m wins: 獨獨 2; 底 5 → 28
    check(score("[111s] [999s] 123m 456p 789m 55m", "5m"),
          {"old-young-pungs": 10, "old-young": 5, "no-honours-no-flowers": 5, "generals-eyes": 1,
           "single-wait": 2, "base": 5}, 28)


# =================================================================================== line 5
def test_line5_four_returns_exposed_and_concealed():
    # 2m ×4 in an exposed pung [222m] + the chow 234m: 四歸 5 (two groups, one exposed); 無花 1;
    # only 1z wins: 獨獨 2; 底 5 → 13
    check(score("[222m] 234m 567p 789s 345s 11z", "1z"),
          {"four-returns": 5, "no-flowers": 1, "single-wait": 2, "base": 5}, 13)
    # the same four 2m all concealed: 暗四歸 ×2 = 10; 無花 1; 獨獨 2; 底 5 → 18
    check(score("[789s] 222234m 567p 345s 11z", "1z"),
          {"four-returns-concealed": 10, "no-flowers": 1, "single-wait": 2, "base": 5}, 18)


def test_line5_four_returns_in_three_groups():
    # 2m ×4 = pair 22m + chows 234m 234m (three concealed groups): 暗四歸三 10 × 2 = 20; 一般高 5
    # (004:6); five chows, no honours, no flowers: 大清平 15 (004:9, replaces 平胡 + 無字花); 將眼 1;
    # 底 5 → 46
    check(score("[789s] [567p] 22234234m 345s", "5s"),
          {"four-returns-three-concealed": 20, "two-identical-chows": 5, "big-clean-plain": 15,
           "generals-eyes": 1, "base": 5}, 46)


# =================================================================================== line 6
def test_line6_three_identical_chows():
    # 234m ×3: 三般高 25 beats the pung reading; 大清平 15; 將眼 1; only 5s wins: 獨獨 2; 底 5 → 48
    # (pung reading 222 333 444m: 三暗崁 10 + 姊妹 2×3 + 無字花 5 + 將眼 1 + 獨獨 2 + 底 5 = 29)
    check(score("[567p] [789s] 234234234m 55s", "5s"),
          {"three-identical-chows": 25, "big-clean-plain": 15, "generals-eyes": 1, "single-wait": 2,
           "base": 5}, 48)


def test_line6_four_identical_chows_plus_three_four_returns():
    # 234m ×4 all concealed, self-drawn: 四般高 50 + "3個四歸四": 2m, 3m, 4m each in four concealed
    # chows = 暗四歸四 3 × 40 = 120 (004:5 ×2); 斷腰 10, which cannot count 無字花 (004:16, 34), so not 大清平
    # (= 無字花 + 平胡, 004:9) either: 平胡 5 and 無花 1 (004:1); 獨獨 2; 將眼 1; 門清摸 10 (includes 自摸);
    # 底 5 → 204
    r = score("234m234m234m234m567p55s", "5s", win_by="wall")
    check(r, {"four-identical-chows": 50, "four-returns-four-concealed": 120, "all-simples": 10,
              "plain-win": 5, "no-flowers": 1, "single-wait": 2, "generals-eyes": 1, "concealed-self-drawn": 10,
              "base": 5}, 204)
    # option four_identical_returns=plain (004-08): 3 × 20 = 60 → 144
    r = score("234m234m234m234m567p55s", "5s", {"four_identical_returns": "plain"}, win_by="wall")
    assert pts(r)["four-returns-four"] == 60 and r.total == 144


# =================================================================================== line 7
def test_line7_brothers_family():
    # [555m]+[555p]: 兄弟 5; 123s+789s 老少 5; 無字花 5; only 9p wins: 獨獨 2; 底 5 → 22
    check(score("[555m] [555p] 123s 789s 234m 99p", "9p"),
          {"brothers": 5, "old-young": 5, "no-honours-no-flowers": 5, "single-wait": 2, "base": 5}, 22)
    # + a pair 55s in the third suit: 小兄弟 15 (instead of 兄弟); 老少 5; 無字花 5; 將眼 1; 獨獨 2;
    # 底 5 → 33
    check(score("[555m] [555p] 123s 789s 234m 55s", "5s"),
          {"little-brothers": 15, "old-young": 5, "no-honours-no-flowers": 5, "generals-eyes": 1,
           "single-wait": 2, "base": 5}, 33)
    # 555 in all three suits: 大兄弟 25; 老少 5; 無字花 5; 獨獨 2; 底 5 → 42
    check(score("[555m] [555p] [555s] 123s 789s 99m", "9m"),
          {"big-brothers": 25, "old-young": 5, "no-honours-no-flowers": 5, "single-wait": 2, "base": 5}, 42)


def test_line7_half_brothers_option_004_11():
    # [555m] + pair 55s: 半兄弟 3 (reading a); 老少 5; 無字花 5; 將眼 1; 獨獨 2; 底 5 → 21
    hand = "[555m] 123s 789s 234p 678p 55s"
    check(score(hand, "5s"), {"half-brothers": 3, "old-young": 5, "no-honours-no-flowers": 5,
                              "generals-eyes": 1, "single-wait": 2, "base": 5}, 21)
    # reading b (two same-number pairs): not here → 18
    assert score(hand, "5s", {"half_brothers": "two-pairs"}).total == 18


# =================================================================================== lines 8–9
def test_line8_no_honours_no_flowers_replaces_or_adds():
    # 無字花 5 replaces 無字 + 無花 (004-03 a): 無字花 5 + 底 5 = 10
    hand = "[123m] 456m 777p 234s 678s 99m"
    check(score(hand, "6s"), {"no-honours-no-flowers": 5, "base": 5}, 10)
    # option adds: 無字 1 + 無花 1 + 無字花 5 + 底 5 = 12
    assert score(hand, "6s", {"no_honours_no_flowers": "adds"}).total == 12


def test_line9_plain_win_and_big_clean_plain():
    # five chows with an honour pair: 平胡 5; 無花 1; 底 5 → 11
    check(score("[123m] 456m 789p 234s 678s 11z", "6s"), {"plain-win": 5, "no-flowers": 1, "base": 5}, 11)
    # no honours, no flowers: 大清平 15 replaces 平胡 5 + 無字花 5 (004-06 a); 底 5 → 20
    hand = "[123m] 456m 789p 234s 678s 99m"
    check(score(hand, "6s"), {"big-clean-plain": 15, "base": 5}, 20)
    # option adds: 大清平 15 + 平胡 5 + 無字花 5 + 底 5 = 30
    assert score(hand, "6s", {"big_clean_plain": "adds"}).total == 30


# =================================================================================== line 10
def test_line10_chicken_hands():
    hand = "[123m] 456m 777p 234s 678s 11z +1f"
    # only 爛花 1 (004:1): won on a discard → 大雞胡 25 (004-21 b); 底 5 → 30
    check(score(hand, "6s"), {"big-chicken": 25, "base": 5}, 30)
    # self-drawn: 爛花 1 (自摸 left out of the count) → 小雞胡 10; 底 5 → 15
    check(score(hand, "6s", win_by="wall"), {"small-chicken": 10, "base": 5}, 15)
    # "+莊 & 連莊": East dealer with 1f = own flower would be 正花 2, so take 3f: 爛花 1 → 大雞胡 25
    # + 莊 1 + 連莊 2 + 底 5 = 33
    r = score("[123m] 456m 777p 234s 678s 11z +3f", "6s", seat_wind="E", dealer_streak=1)
    check(r, {"big-chicken": 25, "dealer": 1, "dealer-streak": 2, "base": 5}, 33)
    # "no 雞 for 十張內": 9 discards → 十張內 10, so 11 points: 爛花 1 + 十張內 10 + 莊 1 + 連莊 2 + 底 5 = 19
    r = score("[123m] 456m 777p 234s 678s 11z +3f", "6s", seat_wind="E", dealer_streak=1, discards=9)
    check(r, {"wrong-flower": 1, "within-ten": 10, "dealer": 1, "dealer-streak": 2, "base": 5}, 19)
    # option chicken_hand=one-point (004-21 a): discard → 小雞胡 10 + 底 5 = 15; self-drawn:
    # 爛花 1 + 自摸 1 = 2 points, not a chicken → 2 + 底 5 = 7
    assert score(hand, "6s", {"chicken_hand": "one-point"}).total == 15
    assert score(hand, "6s", {"chicken_hand": "one-point"}, win_by="wall").total == 7


# =================================================================================== line 11
def test_line11_concealed_hand_and_concealed_self_drawn():
    hand = "123m 456m 777p 234s 678s 11z"
    # nothing claimed, won on a discard: 門清 5; 無花 1; 底 5 → 11
    check(score(hand, "6s"), {"concealed-hand": 5, "no-flowers": 1, "base": 5}, 11)
    # self-drawn: 門清摸 10 "includes 自摸" (no separate 自摸); 無花 1; 底 5 → 16
    check(score(hand, "6s", win_by="wall"), {"concealed-self-drawn": 10, "no-flowers": 1, "base": 5}, 16)


def test_line11_concealed_kong_keeps_concealed_option_004_13():
    hand = "(5555p) 123m 456m 234s 678s 11z"
    # 門清摸 10 + 暗槓 2 + 無花 1 + 底 5 = 18, cash $5
    r = score(hand, "6s", win_by="wall")
    check(r, {"concealed-self-drawn": 10, "concealed-kong": 2, "concealed-kong-cash": 5,
              "no-flowers": 1, "base": 5}, 18)
    # option concealed_with_kong=no: 自摸 1 + 暗槓 2 + 無花 1 + 底 5 = 9
    assert score(hand, "6s", {"concealed_with_kong": "no"}, win_by="wall").total == 9


# =================================================================================== line 12
def test_line12_last_tile_includes_self_draw():
    hand = "[123m] 456m 777p 234s 678s 55p"
    # last wall tile, self-drawn: 海底撈 5 includes 自摸 (004-14 a); 無字花 5; 將眼 1; 底 5 → 16
    check(score(hand, "6s", win_by="wall", last_tile=True),
          {"last-tile": 5, "no-honours-no-flowers": 5, "generals-eyes": 1, "base": 5}, 16)
    # option adds: + 自摸 1 → 17
    assert score(hand, "6s", {"last_tile_self_draw": "adds"}, win_by="wall", last_tile=True).total == 17
    # last discard (海底出): 5 + 5 + 1 + 5 = 16
    assert score(hand, "6s", last_tile=True).total == 16


# =================================================================================== lines 13–16
def test_line13_three_suits_meet():
    # 123 in all three suits: 三相逢 10; 大清平 15; 123s+789s 老少 5; 將眼 1; only 5p wins: 獨獨 2;
    # 底 5 → 38
    check(score("[123m] 123p 123s 345m 789s 55p", "5p"),
          {"three-suits-meet": 10, "big-clean-plain": 15, "old-young": 5, "generals-eyes": 1,
           "single-wait": 2, "base": 5}, 38)


def test_line14_five_gates():
    # m p s + East + White: 五門 10; [111z] 碰字 1 + 正圈 1; [555z] 白 2; 無花 1; 將眼 1; 獨獨 2;
    # 底 5 → 23
    check(score("[111z] [555z] 123m 456p 678s 55m", "5m"),
          {"five-gates": 10, "honour-pung": 1, "round-wind": 1, "white": 2, "no-flowers": 1,
           "generals-eyes": 1, "single-wait": 2, "base": 5}, 23)


def test_line15_missing_one_suit_drops_no_honours_but_not_no_flowers():
    # bamboo missing, no honours, no flowers: 缺一門 10 "cannot count 無字 or 無字花" — 無花 1 still
    # counts (an excluded 無字花 no longer replaces it); 底 5 → 16
    check(score("[123m] 456m 999p 234p 567p 77m", "7p"), {"missing-one-suit": 10, "no-flowers": 1, "base": 5}, 16)
    # with honours (004-05 a): 缺一門 10 + 無花 1 + 底 5 = 16
    hand = "[123m] 456m 999p 234p 567p 11z"
    check(score(hand, "7p"), {"missing-one-suit": 10, "no-flowers": 1, "base": 5}, 16)
    # option missing_suit=no-honours: no 缺一門; only 無花 1 → 大雞胡 25 + 底 5 = 30
    assert score(hand, "7p", {"missing_suit": "no-honours"}).total == 30


def test_line16_all_simples_drops_no_honours():
    # only 2–8: 斷腰 10, not 無字花; 無花 1; 將眼 1; 底 5 → 17
    check(score("[234m] 456m 777p 234s 678s 55p", "6s"),
          {"all-simples": 10, "no-flowers": 1, "generals-eyes": 1, "base": 5}, 17)


# =================================================================================== lines 17–18
def test_line17_exposed_and_concealed_dragon():
    # 123m exposed: 明龍 10; 大清平 15; 老少 5; 底 5 → 35
    check(score("[123m] 456m 789m 234s 678s 99p", "6s"),
          {"exposed-dragon": 10, "big-clean-plain": 15, "old-young": 5, "base": 5}, 35)
    # the straight all concealed: 暗龍 20 → 45
    check(score("[234s] 123m 456m 789m 678s 99p", "6s"),
          {"concealed-dragon": 20, "big-clean-plain": 15, "old-young": 5, "base": 5}, 45)


def test_line17_two_dragons_share_a_chow():
    # 123 123 456 789 789m + 55p all concealed: two 暗龍 sharing 456m = 40 ("can combine 2龍",
    # 004-09); 一般高 2 × 5; 老少 2 × 5; 缺一門 10, which cannot count 無字花 (004:15), so not 大清平 (004:9):
    # 平胡 5 + 無花 1; 門清 5; 將眼 1; 獨獨 2; 底 5 → 89
    hand = "123m 123m 456m 789m 789m 55p"
    check(score(hand, "5p"),
          {"concealed-dragon": 40, "two-identical-chows": 10, "old-young": 10, "plain-win": 5, "no-flowers": 1,
           "missing-one-suit": 10, "concealed-hand": 5, "generals-eyes": 1, "single-wait": 2,
           "base": 5}, 89)
    # option straights_share_chow=no: one 暗龍 → 69
    assert score(hand, "5p", {"straights_share_chow": "no"}).total == 69


def test_line18_worms():
    # 123m 456p 789s (three suits), 123m exposed: 明蟲 5; 平胡 5; 無花 1; 底 5 → 16
    check(score("[123m] 456p 789s 234s 678s 11z", "6s"),
          {"exposed-worm": 5, "plain-win": 5, "no-flowers": 1, "base": 5}, 16)
    # all three concealed: 暗蟲 10 → 21
    check(score("[234s] 123m 456p 789s 678s 11z", "6s"),
          {"concealed-worm": 10, "plain-win": 5, "no-flowers": 1, "base": 5}, 21)


def test_line17_18_dragon_with_worm():
    # 龍 123m 456m 789m + 蟲 123m 456p 789s sharing 123m: 暗龍 20 + 暗蟲 10 ("can be combined with
    # 蟲"); 123m + 789m 老少 5; 門清 5; 平胡 5; 無花 1; only 1z wins: 獨獨 2; 底 5 → 53
    hand = "123m 456m 789m 456p 789s 11z"
    check(score(hand, "1z"),
          {"concealed-dragon": 20, "concealed-worm": 10, "old-young": 5, "concealed-hand": 5,
           "plain-win": 5, "no-flowers": 1, "single-wait": 2, "base": 5}, 53)
    # option worm=shifted-chows (004-10 b): no worm here → 43
    assert score(hand, "1z", {"worm": "shifted-chows"}).total == 43


# =================================================================================== line 19
def test_line19_all_begged_and_half_begged():
    # five sets on the table, won on the pair by discard: 全求人 10 (includes 獨獨: not added);
    # [111z] 碰字 1 + 正圈 1; [555z] 白 2; 五門 10; [123m] [456p] [789s] 明蟲 5; 無花 1; 將眼 1;
    # 底 5 → 36
    hand = "[123m] [456p] [789s] [111z] [555z] 55s"
    check(score(hand, "5s"),
          {"all-begged": 10, "honour-pung": 1, "round-wind": 1, "white": 2, "five-gates": 10,
           "exposed-worm": 5, "no-flowers": 1, "generals-eyes": 1, "base": 5}, 36)
    # self-drawn: 半求人 10 (includes 自摸 and 獨獨) → 36
    r = score(hand, "5s", win_by="wall")
    assert "half-begged" in pts(r) and "self-drawn" not in pts(r) and r.total == 36
    # "cannot 暗槓": with a concealed kong it is neither
    r = score("[123m] [456p] [789s] [111z] (5555z) 55s", "5s")
    assert not {"all-begged", "half-begged"} & set(pts(r))


# =================================================================================== lines 20–21
def test_line20_concealed_pungs_plus_all_pungs_plus_concealed_is_75():
    # five concealed pungs won on the pair by discard: 五暗崁 40 + 對對 30 + 門清 5 = 75 (the seed's
    # own "(+對對=70+門清=75)"); + 無字花 5 + 獨獨 2 + 底 5 → 87
    r = score("111m 222p 333s 444m 555p 99s", "9s")
    check(r, {"five-concealed-pungs": 40, "all-pungs": 30, "concealed-hand": 5,
              "no-honours-no-flowers": 5, "single-wait": 2, "base": 5}, 87)


def test_line20_two_concealed_pungs_and_discard_pung_is_exposed():
    # 222p concealed, 333s completed by the winning discard = exposed (RULINGS 6, 004-19): one
    # concealed pung only → no 兩暗崁. 對碰 2; 無花 1; 底 5 → 8
    hand = "[123m] [456s] [789s] 222p 33s 11z"
    r = score(hand + " 3s", "3s")
    assert "two-concealed-pungs" not in pts(r)
    # option discard_pung_is_pit=yes: 兩暗崁 5 → 13
    r2 = score(hand + " 3s", "3s", {"discard_pung_is_pit": "yes"})
    assert pts(r2)["two-concealed-pungs"] == 5 and r2.total == r.total + 5
    # self-drawn the pung stays concealed: 兩暗崁 5
    assert pts(score(hand + " 3s", "3s", win_by="wall"))["two-concealed-pungs"] == 5


def test_line21_all_concealed_pungs_self_drawn():
    # self-drawn: 崁崁 100 includes 門清摸, 對對 (and 五暗崁, 004-20 a, and 自摸); 無字花 5; 獨獨 2;
    # 底 5 → 112
    hand = "111m 222p 333s 444m 555p 99s"
    check(score(hand, "9s", win_by="wall"),
          {"all-concealed-pungs": 100, "no-honours-no-flowers": 5, "single-wait": 2, "base": 5}, 112)
    # option plus-five: + 五暗崁 40 → 152
    assert score(hand, "9s", {"all_concealed_pungs": "plus-five"}, win_by="wall").total == 152
    # "cannot 碰": with a claimed pung it is not 崁崁
    assert "all-concealed-pungs" not in pts(score("[111m] 222p 333s 444m 555p 99s", "9s", win_by="wall"))


# =================================================================================== lines 22–23
@pytest.mark.parametrize("discards, rule, value", [
    (10, "within-ten", 10), (8, "within-ten", 10), (7, "within-seven", 20), (4, "within-four", 40),
    (0, "within-four", 40)])
def test_line22_within_n_tiles(discards, rule, value):
    # 004:22–23: at most N discards in the middle (the winning tile not counted); only the highest
    # (004-22): base hand 11 (無字花 5 + 將眼 1 + 底 5) + value
    r = score("[123m] 456m 777p 234s 678s 55p", "6s", discards=discards)
    assert {k for k in pts(r) if k.startswith("within")} == {rule}
    assert r.total == 11 + value


def test_line22_more_than_ten_and_each_option():
    hand = "[123m] 456m 777p 234s 678s 55p"
    assert score(hand, "6s", discards=11).total == 11
    # option within=each: 4 discards → 10 + 20 + 40 = 70 → 81
    assert score(hand, "6s", {"within": "each"}, discards=4).total == 81


# =================================================================================== lines 25–27
def test_line25_big_and_little_four_joys_cannot_count_honours():
    # [111z][222z][333z][444z]: 大四喜 80, no 碰字/正風/正圈 ("cannot count 字"); no bamboo: 缺一門 10;
    # 無花 1; 將眼 1; only 5p wins: 獨獨 2; 底 5 → 99
    check(score("[111z] [222z] [333z] [444z] 123m 55p", "5p"),
          {"big-four-joys": 80, "missing-one-suit": 10, "no-flowers": 1, "generals-eyes": 1,
           "single-wait": 2, "base": 5}, 99)
    # three wind pungs + 44z pair: 小四喜 60 (not also 大三風: highest only, 004-24); 缺一門 10;
    # 無花 1; 獨獨 2; 底 5 → 78
    check(score("[111z] [222z] [333z] 44z 123m 456p", "4z"),
          {"little-four-joys": 60, "missing-one-suit": 10, "no-flowers": 1, "single-wait": 2, "base": 5}, 78)


def test_line26_big_and_little_three_dragons():
    # 大三元 60, no 中/發/白; 無花 1; 獨獨 2; 底 5 → 68
    r = score("[555z] [666z] [777z] 123m 456p 11s", "1s")
    check(r, {"big-three-dragons": 60, "no-flowers": 1, "single-wait": 2, "base": 5}, 68)
    # 004:28: the exposed dragon pungs bring the 包自摸 note
    assert any("包自摸" in n for n in r.notes)
    # two dragon pungs + 77z pair: 小三元 40; 無花 1; 獨獨 2; 底 5 → 48
    check(score("[555z] [666z] 77z 123m 456p 678s", "7z"),
          {"little-three-dragons": 40, "no-flowers": 1, "single-wait": 2, "base": 5}, 48)


def test_line27_big_and_little_three_winds():
    # 大三風 40; 無花 1; 將眼 1; 獨獨 2; 底 5 → 49
    check(score("[111z] [222z] [333z] 123m 456p 55s", "5s"),
          {"big-three-winds": 40, "no-flowers": 1, "generals-eyes": 1, "single-wait": 2, "base": 5}, 49)
    # 小三風 20; 無花 1; 獨獨 2; 底 5 → 28
    check(score("[111z] [222z] 33z 123m 456p 678s", "3z"),
          {"little-three-winds": 20, "no-flowers": 1, "single-wait": 2, "base": 5}, 28)


def test_lines25_27_cannot_count_honours_scope_004_24():
    # 大三風 + a Red pung: literal "cannot count 字" drops 中 too: 大三風 40 + 缺一門 10 (no bamboo)
    # + 無花 1 + 將眼 1 + 獨獨 2 + 底 5 = 59
    hand = "[111z] [222z] [333z] [777z] 123m 55p"
    r = score(hand, "5p")
    assert "red" not in pts(r) and r.total == 59
    # option honour_with_patterns=pattern-kind: the wind pattern keeps the dragon's 中 2 → 61
    r = score(hand, "5p", {"honour_with_patterns": "pattern-kind"})
    assert pts(r)["red"] == 2 and r.total == 61


# =================================================================================== lines 28, 51
def test_line28_big_three_dragons_liable_player_pays_all():
    # 包自摸 (RULINGS 004-01): N fed the last dragon pung; S wins 68 by discard from N → N pays
    # what all three would pay on a self-draw: 3 × 68 = 204
    s = settle(RS, {"E": 0, "S": 68, "W": 0, "N": 0}, "S", "E", {"discarder": "N", "liable": "N"})
    assert s.net == {"E": 0, "S": 204, "W": 0, "N": -204}


def test_line51_pure_one_suit_fifteen_tiles_note_and_liability():
    # 清一色 with five sets on the table: the note names 004:51
    r = score("[123m] [456m] [789m] [234m] [678m] 99m", "9m")
    assert "pure-one-suit" in pts(r) and any(":51" in n for n in r.notes)
    # the liable player W pays for all three on a self-draw: 3 × 50 = 150
    s = settle(RS, {"E": 0, "S": 50, "W": 0, "N": 0}, "S", "E", {"win_by": "self-drawn", "liable": "W"})
    assert s.net == {"E": 0, "S": 150, "W": -150, "N": 0}


# =================================================================================== lines 29–32
def test_line29_all_honours_with_patterns():
    # 字一色 100 + 對對 30 + 大三元 60 + 小三風 20 (the seed's "+30對對+四喜/三元/三風"); honour points
    # cancelled; 666z 777z concealed: 兩暗崁 5; 無花 1; only 3z wins: 獨獨 2; 底 5 → 223
    hand = "[111z] [222z] [555z] 666z 777z 33z"
    check(score(hand, "3z"),
          {"all-honours": 100, "all-pungs": 30, "big-three-dragons": 60, "little-three-winds": 20,
           "two-concealed-pungs": 5, "no-flowers": 1, "single-wait": 2, "base": 5}, 223)
    # option special_additions=listed (004-23): 兩暗崁 is not in 字一色's list → 218
    assert score(hand, "3z", {"special_additions": "listed"}).total == 218


def test_line29_all_honours_with_pairs_hand():
    # 字一色 100 + 嚦咕 40 ("+40嚦咕"); 1z ×4 as two pairs: 暗四歸 10 (004:36); 777z pung: 中 2
    # ("嚦咕 has 字", 004:48); self-drawn pung: 對碰 2; 自摸 1; 無花 1; 底 5 → 161
    check(score("11112233445566777z", "7z", win_by="wall"),
          {"all-honours": 100, "lik-gu": 40, "four-returns-concealed": 10, "red": 2, "dual-pung": 2,
           "self-drawn": 1, "no-flowers": 1, "base": 5}, 161)


def test_line30_pure_and_mixed_one_suit():
    # 清一色 70 (no 無字/無字花, 004:34, and so no 大清平 = 無字花 + 平胡, 004:9: a seed auditor's); five chows:
    # 平胡 5; 無花 1 (004:1); [123m] exposed: 明龍 10; 老少 5; 底 5 → 96
    check(score("[123m] 456m 789m 234m 678m 99m", "6m"),
          {"pure-one-suit": 70, "plain-win": 5, "no-flowers": 1, "exposed-dragon": 10, "old-young": 5, "base": 5}, 96)
    # 混一色 30 with a concealed East pung: 碰字 1 + 正圈 1; 123m exposed: 明龍 10; 老少 5; 無花 1;
    # 3m, 6m or 9m would win: 假獨 1; 底 5 → 54
    check(score("[123m] 456m 789m 345m 111z 99m", "9m"),
          {"mixed-one-suit": 30, "honour-pung": 1, "round-wind": 1, "exposed-dragon": 10,
           "old-young": 5, "no-flowers": 1, "false-single": 1, "base": 5}, 54)


def test_line31_all_terminals_with_all_pungs_brothers_old_young():
    # 全腰九 120 + 對對 30 (+30對對) + 老少碰 2 × 10 (m, s) + 小兄弟 15 (1m 1s pungs + 11p pair) +
    # 大兄弟 25 (999 m p s) (+兄弟+老少); 999m 111s 999s concealed: 三暗崁 10; 無花 1; 獨獨 2; 底 5 → 228
    hand = "[111m] [999p] 999m 111s 999s 11p"
    check(score(hand, "1p"),
          {"all-terminals": 120, "all-pungs": 30, "old-young-pungs": 20, "little-brothers": 15,
           "big-brothers": 25, "three-concealed-pungs": 10, "no-flowers": 1, "single-wait": 2,
           "base": 5}, 228)
    # option special_additions=listed: 三暗崁 not in the list → 218
    assert score(hand, "1p", {"special_additions": "listed"}).total == 218


def test_line31_all_terminals_and_honours():
    # 全混腰 60 + 對對 30; [111z] 碰字 1 + 正圈 1; 777z 中 2; 999p+999s 兄弟 5; 111m + 11s 半兄弟 3;
    # 999s 777z concealed: 兩暗崁 5; 五門 10; 無花 1; 獨獨 2; 底 5 → 125
    hand = "[111m] [999p] [111z] 999s 777z 11s"
    check(score(hand, "1s"),
          {"all-terminals-honours": 60, "all-pungs": 30, "honour-pung": 1, "round-wind": 1, "red": 2,
           "brothers": 5, "half-brothers": 3, "two-concealed-pungs": 5, "five-gates": 10,
           "no-flowers": 1, "single-wait": 2, "base": 5}, 125)
    # listed: drops 碰字 1, 正圈 1, 中 2, 兩暗崁 5, 五門 10 → 106
    assert score(hand, "1s", {"special_additions": "listed"}).total == 106


def test_line32_terminal_in_every_set():
    # 帶腰 60 (no 無字/無字花); 老少 m + s = 10; 無花 1; 獨獨 2; 底 5 → 78
    check(score("[123m] 789m 999p 123s 789s 11p", "1p"),
          {"terminal-every-set": 60, "old-young": 10, "no-flowers": 1, "single-wait": 2, "base": 5}, 78)
    # 混帶腰 25; 老少 5; [111z] concealed: 碰字 1 + 正圈 1; 999p 111z: 兩暗崁 5; 無花 1; 獨獨 2; 底 5 → 45
    check(score("[123m] 789m 999p 111z 789s 11p", "1p"),
          {"terminal-honour-every-set": 25, "old-young": 5, "honour-pung": 1, "round-wind": 1,
           "two-concealed-pungs": 5, "no-flowers": 1, "single-wait": 2, "base": 5}, 45)


# =================================================================================== lines 33–35
def test_line33_heaven_earth_no_concealed_hand():
    # dealer wins on the first draw: 天地胡 100, no 門清摸 (004:49) so 自摸 1 stands; 無字花 5;
    # 將眼 1; 莊 1; 底 5; and no discard can lie on the table before the dealer's first draw: 四張內 40
    # (004:22-23, counted without --discards for a first-turn win) → 153
    check(score("123m 456m 777p 234s 678s 55p", "6s", win_by="wall", first_turn=True, seat_wind="E"),
          {"heaven-earth": 100, "self-drawn": 1, "no-honours-no-flowers": 5, "generals-eyes": 1,
           "dealer": 1, "base": 5, "within-four": 40}, 153)


def test_line34_no_honours_items_dropped_by_five_items():
    # 清一色, 全腰九, 帶腰, 斷腰, 缺一門 never keep 無字 / 無字花 (004:15, 16, 34)
    for hand, win in [("[123m] 456m 789m 234m 678m 99m", "6m"), ("[111m] [999p] 999m 111s 999s 11p", "1p"),
                      ("[123m] 789m 999p 123s 789s 11p", "1p"), ("[234m] 456m 777p 234s 678s 55p", "6s"),
                      ("[123m] 456m 999p 234p 567p 77m", "7p")]:
        got = pts(score(hand, win))
        assert not {"no-honours", "no-honours-no-flowers"} & set(got), hand


def test_line35_all_pungs():
    # 對對 30; 斷腰 10; 444s 666m 888p concealed: 三暗崁 10; 無花 1; 將眼 1; 44s+5s also waits 3s/6s:
    # 假獨 1; 底 5 → 58
    check(score("[222m] [333p] 444s 666m 888p 55s", "5s"),
          {"all-pungs": 30, "all-simples": 10, "three-concealed-pungs": 10, "no-flowers": 1,
           "generals-eyes": 1, "false-single": 1, "base": 5}, 58)


# =================================================================================== lines 36–39
def test_line36_pairs_hand():
    # 7 pairs + 888s pung: 嚦咕 40 (no 門清, 004:49); 將眼 22m 55s = 2; only 7z wins: 獨獨 2; 無花 1;
    # 底 5 → 50
    check(score("1122m3344p5566s77z888s", "7z"),
          {"lik-gu": 40, "generals-eyes": 2, "single-wait": 2, "no-flowers": 1, "base": 5}, 50)


def test_line36_four_alike_as_two_pairs_is_concealed_four_returns():
    # 5555m = two pairs: 暗四歸 10 ("中中中中 count as 暗四歸"); 嚦咕 40; 將眼 55m 55m 22p = 3 ("more
    # than one set of 將眼"); 777z: 中 2; 自摸 1; 無花 1; 獨獨 2; 底 5 → 64
    check(score("5555m1122p3344s99s777z", "9s", win_by="wall"),
          {"lik-gu": 40, "four-returns-concealed": 10, "generals-eyes": 3, "red": 2, "self-drawn": 1,
           "no-flowers": 1, "single-wait": 2, "base": 5}, 64)


def test_line37_38_sixteen_unconnected_and_true():
    # 159m 147p 269s + 7 honours + 77z: 十六不搭 40 (no 門清); 五門 10; 無花 1; 16 tiles could
    # have made the pair: 假獨 1; 底 5 → 57
    check(score("159m147p269s12345677z", "7z"),
          {"sixteen-unconnected": 40, "five-gates": 10, "no-flowers": 1, "false-single": 1, "base": 5}, 57)
    # 147m 258p 369s: 真十六不搭 80 replaces 十六不搭 (004-29 a) → 97
    hand = "147m258p369s12345677z"
    check(score(hand, "7z"),
          {"true-sixteen-unconnected": 80, "five-gates": 10, "no-flowers": 1, "false-single": 1, "base": 5}, 97)
    # option true_sixteen=adds: + 40 → 137
    assert score(hand, "7z", {"true_sixteen": "adds"}).total == 137
    # 1-4-6 is connected (4, 6 within 2): not a 十六不搭, and no other reading
    with pytest.raises(HandError):
        score("146m258p369s12345677z", "7z")


def test_line39_thirteen_terminals_ruling_004_30():
    # 13 orphans + 111m pung: 十三腰 100 + 全混腰 60 = 160 (RULINGS 004-30: table values added;
    # the seed writes 150) + 暗四歸 10 (1m: a loose tile + a concealed pung) = 170; + 五門 10;
    # 無花 1; 假獨 1; 底 5 → 187
    hand = "19m19p19s12345677z111m"
    check(score(hand, "7z"),
          {"thirteen-terminals": 100, "all-terminals-honours": 60, "four-returns-concealed": 10,
           "five-gates": 10, "no-flowers": 1, "false-single": 1, "base": 5}, 187)
    # special_additions=listed: only 全混腰, 暗四歸, 混帶腰 add → 187 - 五門 10 = 177
    assert score(hand, "7z", {"special_additions": "listed"}).total == 177
    # + thirteen_mixed=seed-50: the seed's own arithmetic 100 + 50 + 10 = 160 (+ 7 other) = 167
    r = score(hand, "7z", {"special_additions": "listed", "thirteen_mixed": "seed-50"})
    assert sum(v for k, v in pts(r).items()
               if k in ("thirteen-terminals", "all-terminals-honours", "four-returns-concealed")) == 160
    assert r.total == 167


def test_line39_thirteen_terminals_with_terminal_chow_is_125():
    # extra set 123m: 十三腰 100 + 混帶腰 25 = 125 (the seed's "or 混帶腰=125"); + 五門 10; 無花 1;
    # 假獨 1; 底 5 → 142
    check(score("19m19p19s12345677z123m", "7z"),
          {"thirteen-terminals": 100, "terminal-honour-every-set": 25, "five-gates": 10,
           "no-flowers": 1, "false-single": 1, "base": 5}, 142)


def test_line40_only_thirteen_terminals_may_rob_a_concealed_kong():
    # (won on 1z, its only East: a robbed kong's tile is one the winner did not hold; on 7z, beside the
    # pair 77z, the hand would hold five 7z with the kong robbed)
    r = score("19m19p19s12345677z111m", "1z", win_by="robbed-kong", flags=("robbed-concealed-kong",))
    assert r.allowed and r.decomposition.shape == "thirteen-terminals"
    r = score("[123m] 456m 777p 234s 678s 55p", "6s", win_by="robbed-kong", flags=("robbed-concealed-kong",))
    assert not r.allowed and "十三腰" in r.status and ":40" in r.status


def test_line40_the_flag_on_an_allowed_rob_is_said_to_name_the_win():
    # the 十三腰 robbing a concealed kong scores as any robbed kong (搶槓 1, 004:1): the flag adds no line, but it
    # is what allows the win (004:40). A referee read "no rule of hk-tw-16 scores it for this hand" as the flag
    # doing nothing; the note now says what it does
    from scoring import explain

    r = score("19m19p19s12345677z111m", "1z", win_by="robbed-kong", flags=("robbed-concealed-kong",))
    text = explain(r)
    assert ("--flag robbed-concealed-kong scores nothing here: it names the win 搶暗槓 (004:40), which this hand "
            "may make, and no rule of hk-tw-16 adds points for it") in text, text
    assert "no rule of hk-tw-16 scores it" not in text


def test_line40_refused_rob_of_a_concealed_kong_scores_nothing():
    # 004:40 only 十三腰 may 搶暗槓: this standard hand robbing a concealed kong is no mahjong, so it
    # scores 0 (as every refused mahjong: rode-draak 001:1), the figure it would have had in the
    # status. Would-be count: 004:1 無字 1 + 無花 1 → 004:8 無字花 5 (004-03), 004:1 將眼 55p 1,
    # 004:1 搶槓 1, 004:41 底 5 = 12.
    r = score("[123m] 456m 777p 234s 678s 55p", "6s", win_by="robbed-kong", flags=("robbed-concealed-kong",))
    assert not r.allowed and r.total == 0
    assert "would have scored 12" in r.status
    assert cli.main(["hand", "[123m] 456m 777p 234s 678s 55p", "-r", RS, "-w", "6s", "--seat-wind", "S",
                     "--win-by", "robbed-kong", "--flag", "robbed-concealed-kong", "--no-history"]) == 0


# =================================================================================== lines 41–46
def test_line41_base_once_per_win():
    r = score("[123m] 456m 777p 234s 678s 55p", "6s")
    assert [ln.points for ln in r.lines if ln.rule == "base"] == [5]


def test_line42_concealed_kong_not_shown_penalty():
    # flag concealed-kong-not-shown: no $5; returns $10 to each player → cash -10 (points unchanged)
    r = score("(5555p) 123m 456m 234s 678s 11z", "6s", win_by="wall", flags=("concealed-kong-not-shown",))
    assert pts(r)["concealed-kong-not-shown"] == -10 and "concealed-kong-cash" not in pts(r)
    assert r.cash == -10 and r.total == 18


def test_line42_non_winner_collects_concealed_kong_cash():
    # a non-winner (16 tiles) scores no points but collects $5 per concealed kong
    c = Context(seat_wind="W", winner=False)
    r = score_hand(parse_hand("(5555p) 123m 456m 234s 67s 11z", context=c, sizes=None), RS)
    assert r.total == 0 and r.cash == 5


def test_line43_flower_sets_cash_collected_once():
    base = "[123m] 456m 777p 234s 678s 55p"
    # 梅蘭菊竹 complete: 台花 $5 (004:43); points: 正花 2 (2f, seat S) + 爛花 3 + 無字 1 + 將眼 1 + 底 5 = 12
    r = score(base + " +1f2f3f4f", "6s")
    assert pts(r)["flower-set"] == 5 and "grass-set" not in pts(r) and r.total == 12 and r.cash == 5
    # one of each number from mixed series: 台草 $3
    r = score(base + " +1f2y3f4y", "6s")
    assert pts(r)["grass-set"] == 3 and "flower-set" not in pts(r) and r.cash == 3
    # seven: one complete series, the remaining 1y2y3y are no set → $5 only
    assert score(base + " +1f2f3f4f1y2y3y", "6s").cash == 5


def test_line44_46_eight_flowers_instant_win():
    # 16 tiles + all 8 flowers: 八隻花 40 "count as 40pts" (no 正花/爛花), "自摸+莊": 自摸 1 + 莊 1
    # (East), "can also count … 四張內": 3 discards → 40; 底 5 → 87; 連莊 is not in 004:45's list, so
    # a dealer streak adds nothing; cash: 2 × 台花 $5 ("collect $5 for second 台花") = $10
    r = score("123m456p789s1234567z +1f2f3f4f1y2y3y4y", seat_wind="E", discards=3, dealer_streak=2, win_by="wall")
    check(r, {"eight-flowers": 40, "self-drawn-eight-flowers": 1, "dealer": 1, "within-four": 40,
              "flower-set": 10, "base": 5}, 87)
    assert r.decomposition.shape == "eight-flowers"
    # option eight_flowers_self_draw=payment-only (004-34 a): no 自摸 point → 86
    r = score("123m456p789s1234567z +1f2f3f4f1y2y3y4y", options={"eight_flowers_self_draw": "payment-only"},
              seat_wind="E", discards=3, win_by="wall")
    assert r.total == 86
    # the eighth flower may be a flower's replacement tile, from the dead wall ("can also count 槓上自摸",
    # 004:45): scored the same, and 槓上自摸 itself needs a kong, so it does not fire here
    assert score("123m456p789s1234567z +1f2f3f4f1y2y3y4y", seat_wind="E", discards=3,
                 win_by="dead-wall").total == 87


def test_line44_46_seventeen_tiles_with_eight_flowers_are_no_instant_win():
    # the instant win holds the 16 tiles of the draw ("cannot pick up another tile", 004:46); a tester's 17
    # tiles making no hand, with all eight flowers, had been scored 47 as it (自摸 on a discard win)
    with pytest.raises(HandError, match="not a winning hand"):
        score("123m456p789s12345677z +1f2f3f4f1y2y3y4y", seat_wind="S")
    # a 17-tile win with them is the ordinary hand, 八隻花's 40 added (004:46), and no 自摸 on a discard:
    # 八隻花 40 (replaces 正花/爛花) + 底 5 = 45 (seat S: no dealer; exposed melds: no 門清); it had been
    # read as the instant win, 46 with a 自摸 point
    r = score("[234m] [456p] [678s] [777p] 34s 5s 11z +1f2f3f4f1y2y3y4y", "5s", seat_wind="S")
    assert r.decomposition.shape != "eight-flowers"
    check(r, {"eight-flowers": 40, "flower-set": 10, "base": 5}, 45)


def test_line45_eight_flowers_instant_win_is_self_drawn():
    # "自摸+莊" (004:45): the instant win is on drawing the eighth flower; no discard or robbed kong
    # can give it (a tester's discard win had been settled with the discarder paying everything)
    for win_by in ("discard", "robbed-kong"):
        with pytest.raises(HandError, match=f"八隻花.*cannot be won by {win_by}"):
            score("123m456p789s1234567z +1f2f3f4f1y2y3y4y", seat_wind="E", win_by=win_by)
    # a 17-tile hand that kept its eight flowers (004:46) may still be won on a discard
    assert score("[123m] 456m 777p 234s 678s 55p +1f2f3f4f1y2y3y4y", "6s", win_by="discard").total == 47


def test_line45_46_eight_flowers_instant_win_has_no_winning_tile_among_its_16(capsys):
    # the instant win is on drawing the eighth flower (004:45 自摸) and "cannot pick up another tile" (004:46):
    # none of the 16 playing tiles is the winning tile. A tester's -w 7z was scored 87 without a word
    for win in ("7z", "1m"):
        with pytest.raises(HandError, match=f"八隻花 .*none of its 16 tiles is the winning tile, yet {win} is given"):
            score("123m456p789s1234567z +1f2f3f4f1y2y3y4y", win, seat_wind="E", win_by="wall")
    # with a concealed kong made before the eighth flower (a kong counts 3 of the 16), the same
    with pytest.raises(HandError, match="none of its 16 tiles is the winning tile, yet 4p is given"):
        score("(1111m) 456p789s1234567z +1f2f3f4f1y2y3y4y", "4p", seat_wind="S", win_by="dead-wall")
    code = cli.main(["hand", "123m456p789s1234567z +1f2f3f4f1y2y3y4y", "-r", RS, "--win-by", "wall", "-w", "7z"])
    err = capsys.readouterr().err
    assert code == 2 and "leave the winning tile out" in err and len(err.strip().splitlines()) == 1, err


def test_line46_eight_flowers_kept_adds_40_to_the_final_hand():
    # declined instant win, later a normal hand: "40 points will be added to the final hand":
    # 八隻花 40 + 無字 1 + 將眼 1 + 底 5 = 47 (正花/爛花 replaced, option eight_flowers_flower_points)
    r = score("[123m] 456m 777p 234s 678s 55p +1f2f3f4f1y2y3y4y", "6s")
    check(r, {"eight-flowers": 40, "no-honours": 1, "generals-eyes": 1, "flower-set": 10, "base": 5}, 47)
    # option added: + 正花 2 × 2 (2f 2y) + 爛花 6 → 57
    assert score("[123m] 456m 777p 234s 678s 55p +1f2f3f4f1y2y3y4y", "6s",
                 {"eight_flowers_flower_points": "added"}).total == 57


def test_tile_count_of_the_16_tile_game():
    with pytest.raises(HandError, match="17 tiles"):
        score("123m456p789s1234567z", "7z")          # 16 tiles without eight flowers
    with pytest.raises(HandError, match="17 tiles"):
        score("123m 456m 777p 234s 678s 11z 9p", "9p")  # 18 tiles


# =================================================================================== lines 47–49
def test_line47_double_win_two_hands_one_base():
    # 11223344556677888m self-drawn (seat S):
    #  嚦咕 reading: 嚦咕 40 + 清一色 70 + 將眼 22m 55m 2 + 對碰 2 + 自摸 1 + 無花 1 + 底 5 = 121
    #  5 sets + pair (123 123 456 456 888 + 77): 清一色 70 + 一般高 2 × 5 + 對碰 2 + 門清摸 10 +
    #  無花 1 + 底 5 = 98
    #  兩吃: 121 + 98 − 5 (only one 底) = 214
    r = score("11223344556677888m", "8m", win_by="wall")
    assert r.total == 214
    assert sum(1 for ln in r.lines if ln.rule == "base") == 1
    assert any("兩吃" in n for n in r.notes)
    # option double_win=best-reading: the better single reading, 121
    assert score("11223344556677888m", "8m", {"double_win": "best-reading"}, win_by="wall").total == 121


def test_line48_pairs_hand_has_honour_points_but_no_honour_patterns():
    # 嚦咕 with the East pung won by discard: 嚦咕 40; 碰字 1 + 正圈 1 ("has 字"); 對碰 2; 將眼 22m 55s
    # = 2; 五門 10; 無花 1; 底 5 → 62
    check(score("1122m3344p5566s77z111z", "1z"),
          {"lik-gu": 40, "honour-pung": 1, "round-wind": 1, "dual-pung": 2, "generals-eyes": 2,
           "five-gates": 10, "no-flowers": 1, "base": 5}, 62)
    rule = load_ruleset(RS).rule("lik-gu")
    assert set(rule.excludes) >= {"big-four-joys", "little-four-joys", "big-three-dragons",
                                  "little-three-dragons", "big-three-winds", "little-three-winds"}


def test_line49_no_concealed_hand_items_for_special_forms():
    cases = [("1122m3344p5566s77z888s", "7z", {}, ("discard", "wall")),
             ("159m147p269s12345677z", "7z", {}, ("discard", "wall")),
             ("19m19p19s12345677z111m", "7z", {}, ("discard", "wall")),
             # 天地胡: the dealer's first draw (天胡), another's win on the first discard (地胡), 004-27 (a): a dealer's
             # first-turn win by discard is neither, and is scored with its concealed-hand items
             ("123m 456m 777p 234s 678s 55p", "6s", {"first_turn": True, "seat_wind": "E"}, ("wall",)),
             ("123m 456m 777p 234s 678s 55p", "6s", {"first_turn": True, "seat_wind": "S"}, ("discard",)),
             ("111m 222p 333s 444m 555p 99s", "9s", {}, ("wall",))]  # 崁崁 is self-drawn only
    for hand, win, extra, hows in cases:
        for how in hows:
            got = pts(score(hand, win, win_by=how, **extra))
            assert not {"concealed-hand", "concealed-self-drawn"} & set(got), (hand, how)


# =================================================================================== lines 50–54
def test_settle_discard_self_drawn_and_cash():
    # 004-01: a discard win is paid by the discarder alone
    s = settle(RS, {"E": 0, "S": 30, "W": 0, "N": 0}, "S", "E", {"discarder": "W", "cash": "S:5"})
    assert s.net == {"E": 0, "S": 30, "W": -30, "N": 0}
    # cash apart: S collects $5 from each other player
    assert s.cash == {"E": -5, "S": 15, "W": -5, "N": -5}
    # a self-drawn win is paid by each of the three others
    s = settle(RS, {"E": 0, "S": 30, "W": 0, "N": 0}, "S", "E", {"win_by": "self-drawn"})
    assert s.net == {"E": -30, "S": 90, "W": -30, "N": -30}
    # option dealer_point=any-dealer-payment (004-15 b): East adds 莊 1 + 連莊 2 → pays 33
    s = settle(RS, {"E": 0, "S": 30, "W": 0, "N": 0}, "S", "E",
               {"win_by": "self-drawn", "dealer_point": "any-dealer-payment", "dealer_streak": 1})
    assert s.net == {"E": -33, "S": 93, "W": -30, "N": -30}


def test_line50_false_win_penalty():
    # 假胡: $50 to each player, game replayed (no points)
    s = settle(RS, {"E": 0, "S": 0, "W": 0, "N": 0}, None, "E", {"false_win": "W"})
    assert s.net == {"E": 0, "S": 0, "W": 0, "N": 0}
    assert s.cash == {"E": 50, "S": 50, "W": -150, "N": 50}
    with pytest.raises(RulesetError):
        settle(RS, {"E": 0, "S": 9, "W": 0, "N": 0}, "S", "E", {"false_win": "W", "discarder": "N"})


def test_line52_one_shot_two_winners():
    # 一炮雙響 (004-37 a): N's discard wins for S (30) and W (20); N pays each
    s = settle(RS, {"E": 0, "S": 30, "W": 20, "N": 0}, "S", "E", {"discarder": "N", "also_won": "W"})
    assert s.net == {"E": 0, "S": 30, "W": 20, "N": -50}


def test_line52_a_liable_player_pays_for_the_hand_it_fed_alone():
    # a breaker's 包自摸 (liable=A) with 一炮雙響 (also_won=N) on W's discard: A paid both winners, 60 and 90, W
    # nothing, while the note said "both winners are paid by the discarder". 包自摸 is for the hand the liable
    # player fed (大三元/大四喜 completed by a claimed pung, 004:28, 51), the winner's (S); the other winner of the
    # discard is paid by the discarder (004:52, 004-37 reading a). The dealer A is not a winner: no dealer point
    # (dealer_point=winner-is-dealer, 004-15). S 20: A pays what all three would pay S on a self-draw, 3 × 20 = 60;
    # N 30: W pays 30
    s = settle(RS, {"A": 0, "S": 20, "W": 0, "N": 30}, "S", "A", {"discarder": "W", "also_won": "N", "liable": "A"})
    assert [(t.payer, t.payee, t.amount) for t in s.transfers] == [("A", "S", 60), ("W", "N", 30)]
    assert s.net == {"A": -60, "S": 60, "W": -30, "N": 30}
    assert any(n.startswith("一炮雙響: the other winner N is paid by the discarder W; 包自摸 (liable=A) is for the "
                            "hand it fed, the winner S's") for n in s.notes), s.notes


def test_settle_errors():
    with pytest.raises(RulesetError, match="discarder"):
        settle(RS, {"E": 0, "S": 30, "W": 0, "N": 0}, "S", "E", {})
    with pytest.raises(RulesetError):
        settle(RS, {"E": 0, "S": 30, "W": 0, "N": 0}, "S", "E", {"discarder": "X"})
    with pytest.raises(RulesetError):
        settle(RS, {"E": 0, "S": 30, "W": 0, "N": 0}, "S", "E", {"discarder": "N", "bogus": 1})


def test_settle_refuses_a_winner_as_liable_or_second_winner_and_bad_cash():
    # a tester's liable=S with winner S had S pay S 204 (every net 0); also_won=S had N pay S twice; a second
    # winner scored 0 was paid nothing; cash E:nan printed $nan, E:5,E:5 counted one of them
    sc = {"E": 0, "S": 68, "W": 0, "N": 0}
    with pytest.raises(RulesetError, match=r"liable names the player who pays .*, not a winner \(S\)"):
        settle(RS, sc, "S", "E", {"discarder": "N", "liable": "S"})
    with pytest.raises(RulesetError, match="also_won names the other winner of the same discard, not the winner S"):
        settle(RS, sc, "S", "E", {"discarder": "N", "also_won": "S"})
    # 底 5 is in every win (004:41): a winner's score under 5 is no winning score
    with pytest.raises(RulesetError, match="score of W, a winner, is 0: every win under hk-tw-16 scores at least 底 5"):
        settle(RS, sc, "S", "E", {"discarder": "N", "also_won": "W"})
    with pytest.raises(RulesetError, match="score of S, a winner, is 0"):
        settle(RS, {"E": 0, "S": 0, "W": 0, "N": 0}, "S", "E", {"discarder": "N"})
    for bad in ("E:nan", "E:inf", "E:-inf"):
        with pytest.raises(RulesetError, match="E's amount must be a number of dollars, not"):
            settle(RS, sc, "S", "E", {"discarder": "N", "cash": bad})
    # a cash past any hand's (a tester's A:1e25 had met an internal "cash does not sum to zero", and
    # A:12345678901234567890123 was paid as 12345678901234567741440): refused, naming the amount
    for bad in ("E:1e25", "E:12345678901234567890123", "E:-20000000"):
        with pytest.raises(RulesetError, match="is more than any hand collects"):
            settle(RS, sc, "S", "E", {"discarder": "N", "cash": bad})
    # a negative amount is paid back: 暗槓不亮 returns $10 to each player (004:42)
    assert settle(RS, sc, "S", "E", {"discarder": "N", "cash": "E:-10"}).cash == {"E": -30, "S": 10, "W": 10, "N": 10}
    with pytest.raises(RulesetError, match="cash names E twice"):
        settle(RS, sc, "S", "E", {"discarder": "N", "cash": "E:5,E:5"})
    with pytest.raises(RulesetError, match="settle options discarder, liable describe a win, but nobody won"):
        settle(RS, {"E": 0, "S": 0, "W": 0, "N": 0}, None, "E", {"discarder": "N", "liable": "W"})
    # the lawful ones still settle: W also won on N's discard, each paid by N (004:52); S is dealer-free here
    s = settle(RS, {"E": 0, "S": 68, "W": 20, "N": 0}, "S", "E", {"discarder": "N", "also_won": "W"})
    assert s.net == {"E": 0, "S": 68, "W": 20, "N": -88}


def test_line12_33_first_turn_and_last_tile_are_not_one_win():
    # a tester's 天地胡 100 + 海底 5 on one hand: the first turn is the wall's start, the last tile its end
    with pytest.raises(HandError, match="a hand won on the first turn is not won on the last tile"):
        score("234m456p678s777p345s99m", "9m", win_by="wall", first_turn=True, last_tile=True)


def test_line53_54_counting_two_ways_scores_one_reading():
    # 11 22 33 44m: 123 123 + 44 or 11 + 234 234 — one 一般高 either way; only the best reading
    # counts (RULINGS 004-38): 一般高 5 once
    r = score("[222z] 11223344m 567p 789s", "4m")
    assert pts(r)["two-identical-chows"] == 5
    assert r.total == sum(ln.points for ln in r.lines)


# =================================================================================== engine / CLI
def test_names_are_chinese_with_english_gloss():
    for rule in load_ruleset(RS).rules:
        assert re.search(r"[\u4e00-\u9fff]", rule.name), rule.id
        assert rule.gloss and rule.label() == f"{rule.name} — {rule.gloss}"
        assert rule.source.startswith(SEED + ":")


def test_every_option_names_an_004_ambiguity():
    rs = load_ruleset(RS)
    assert len(rs.options) >= 25
    for o in rs.options.values():
        assert re.fullmatch(r"004-\d\d", o.ambiguity) and o.default in o.choices and o.doc


def test_rule_sources_point_at_seed_lines_naming_them(shared):
    """Each rule's cited seed line exists and (for Chinese-named items) holds its name."""
    lines = (shared / "seeds" / SEED).read_text(encoding="utf-8").splitlines()
    cited: set[int] = set()
    for rule in load_ruleset(RS).rules:
        spec = rule.source.split(":", 1)[1]
        nums: list[int] = []
        for part in spec.split(","):
            a, _, b = part.strip().partition("-")
            nums.extend(range(int(a), int(b or a) + 1))
        cited.update(nums)
        text = " ".join(lines[n - 1] for n in nums)
        core = rule.name.split()[0].replace("暗四歸三", "四歸三").replace("暗四歸四", "四歸四")
        for piece in re.split(r"[/ ]", core):
            if piece in ("大四喜", "小四喜", "大三元", "小三元", "大三風", "小三風", "不計字", "暗槓不亮"):
                continue
            if piece and re.search(r"[\u4e00-\u9fff]", piece):
                assert piece in text or piece[-1] in text, (rule.id, piece, rule.source)
    # every seed line with a scoring item is cited by some rule; the rest are covered by tests
    # above (23 heading note, 24 heading, 28/50–54 settlement and notes, 53–54 best reading)
    assert set(range(1, 23)) | {25, 26, 27, 29, 30, 31, 32, 33, 35, 36, 37, 38, 39, 41, 42, 43, 44, 45, 46, 47} <= cited


def test_cli_hand_json_end_to_end(capsys):
    code = cli.main(["hand", "[123m] 456m 777p 234s 678s 55p", "-w", "6s", "--ruleset", RS,
                     "--dealer-streak", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    # East dealer, streak 2: 無字花 5 + 將眼 1 + 莊 1 + 連莊 2 + 底 5 = 14
    assert out["total"] == 14 and out["ruleset"] == RS
    names = {ln["name"] for ln in out["lines"]}
    assert "連莊 — dealer continuing (--dealer-streak N)" in names
    assert "底 — base, once per win" in names


def test_line2_dealer_streak_of_a_non_dealer_is_said_to_score_nothing(capsys):
    # a tester's --dealer-streak 2 with --not-dealer was scored without a word: 連莊 (004:2) is the dealer's.
    # The streak is the table's (settle's dealer_streak: the dealer's payment under dealer_point=
    # any-dealer-payment, 004-15), so the hand is scored, with a note. 無字花 5 (004:8) + 將眼 1 (004:1) +
    # 底 5 (004:41) = 11: no 莊 1 / 連莊 2 (004:1-2, the dealer's)
    hand = "[123m] 456m 777p 234s 678s 55p"
    for ctx, who in (({"seat_wind": "E", "dealer": False}, "said not to be the dealer"),
                     ({"seat_wind": "S"}, "not the dealer (seat wind S")):
        r = score(hand, "6s", dealer_streak=2, discards=12, **ctx)
        check(r, {"no-honours-no-flowers": 5, "generals-eyes": 1, "base": 5}, 11)
        said = [n for n in r.notes if n.startswith("連莊")]
        assert len(said) == 1 and who in said[0] and "dealer_streak=2" in said[0], r.notes
    # the dealer's streak scores (+ 莊 1 + 連莊 2 = 14) and needs no note; no streak, no note
    r = score(hand, "6s", dealer_streak=2, discards=12, seat_wind="E")
    assert r.total == 14 and not any(n.startswith("連莊") for n in r.notes)
    assert not any(n.startswith("連莊") for n in score(hand, "6s", discards=12).notes)
    assert cli.main(["hand", hand, "-w", "6s", "-r", RS, "--dealer-streak", "2", "--not-dealer"]) == 0
    assert "note: 連莊: the dealer streak 2 is the dealer's" in capsys.readouterr().out


def test_cli_hand_eight_flowers_sixteen_tiles(capsys):
    code = cli.main(["hand", "123m456p789s1234567z +1f2f3f4f1y2y3y4y", "--ruleset", RS,
                     "--seat-wind", "S", "--win-by", "wall", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    # 八隻花 40 + 自摸 1 + 底 5 = 46, cash 2 × $5
    assert out["total"] == 46 and out["cash"] == 10 and out["shape"] == "eight-flowers"
    # the default win by discard contradicts the instant win (004:45 自摸): refused in one line
    code = cli.main(["hand", "123m456p789s1234567z +1f2f3f4f1y2y3y4y", "--ruleset", RS, "--seat-wind", "S"])
    err = capsys.readouterr().err
    assert code != 0 and "cannot be won by discard" in err and len(err.strip().splitlines()) == 1


def test_cli_rules_lists_patterns_and_options(capsys):
    assert cli.main(["rules", RS]) == 0
    out = capsys.readouterr().out
    for word in ("嚦咕", "十六不搭", "十三腰", "八隻花", "連莊", "底", "double_win", "chicken_hand"):
        assert word in out


def test_random_16_tile_hands_score_and_add_up():
    rng = random.Random(4)
    for _ in range(60):
        hand = random_winning_hand(rng, size=16, p_bonus=0.4)
        r = score_hand(hand, RS)
        assert r.total >= 5  # 底 5 at least
        if not any("兩吃" in n for n in r.notes):
            assert r.total == sum(ln.points for ln in r.lines if ln.kind == "points")


def test_cli_settle_end_to_end(capsys):
    # S won 30 on W's discard and holds a concealed kong ($5 from each other player):
    # points W → S 30 (RULINGS 004-01); cash S +15, the others −5 each (004:42)
    code = cli.main(["settle", "--ruleset", RS, "--scores", "E=0,S=30,W=0,N=0", "--winner", "S",
                     "--east", "E", "--option", "discarder=W", "--option", "cash=S:5", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["net"] == {"E": 0, "S": 30, "W": -30, "N": 0}
    assert out["cash"] == {"E": -5, "S": 15, "W": -5, "N": -5}
    # a discard win without a discarder is bad input: one line, exit 2
    assert cli.main(["settle", "--ruleset", RS, "--scores", "E=0,S=30,W=0,N=0", "--winner", "S",
                     "--east", "E"]) == 2
    assert "discarder" in capsys.readouterr().err


def test_settle_robbed_kong_and_cash_in_total():
    # 搶槓: the robbed player N pays as the discarder (004-31 default): 12
    s = settle(RS, {"E": 0, "S": 12, "W": 0, "N": 0}, "S", "E", {"win_by": "robbed-kong", "discarder": "N"})
    assert s.net == {"E": 0, "S": 12, "W": 0, "N": -12}
    # option cash_from=total (004-32 b): $5 in total over three others: 2 + 2 + 1
    s = settle(RS, {"E": 0, "S": 12, "W": 0, "N": 0}, "S", "E",
               {"discarder": "N", "cash": "S:5", "cash_from": "total"})
    assert s.cash == {"E": -2, "S": 5, "W": -2, "N": -1}


def test_cli_table_settles_a_self_drawn_win_from_win_by(capsys):
    # a new user's trial: `table --win-by wall` scored the winner's hand as self-drawn but still
    # settled it as a discard win ("a discard win needs discarder=PLAYER", as if that were a photo
    # flag). The winner's --win-by is the settlement's win_by unless --settle-option gives one.
    # RULINGS 004-01 / 004:28: on a self-draw each of the three others pays the winner's points (here
    # the dealer E's 57, his 莊 already in them), so E nets 3 × 57 = 171
    # (the others' 16 tiles each: a 2z, 3z or 4z beside the suits, so that the four hands are tiles of one set)
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "E", "--win-by", "wall", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    won = out["scores"]["E"]
    assert out["settlement"]["net"] == {"E": 3 * won, "S": -won, "W": -won, "N": -won}
    # a discard win with no discarder names this command's flags, in one line
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "E"]) == 2
    err = capsys.readouterr().err
    assert "needs --settle-option discarder=PLAYER (or --win-by wall)" in err and len(err.strip().splitlines()) == 1
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "E", "--settle-option", "discarder=S", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)  # (no 自摸 point now: E's score is less)
    assert out["scores"]["E"] < won and out["settlement"]["net"] == {"E": out["scores"]["E"], "S": -out["scores"]["E"],
                                                                   "W": 0, "N": 0}
    # `settle` names its own flag
    assert cli.main(["settle", "--ruleset", RS, "--scores", "E=0,S=30,W=0,N=0", "--winner", "S", "--east", "E"]) == 2
    assert "needs --option discarder=PLAYER (or --option win_by=self-drawn)" in capsys.readouterr().err


def test_cli_table_settles_the_cash_the_hands_report(capsys):
    # a tester's table: the winner's 八隻花 hand reported "cash: $10" (two 台花, 004:43 "Collect $5 for second
    # 台花"), and the settlement's cash was 0 for everyone. The hands' cash is now the settlement's unless
    # --settle-option cash gives it: with cash_from=each (004-32) E collects $10 from each of the three
    hands = ["--hand", "E=123m456p789s123p4567z +1f2f3f4f1y2y3y4y", "--hand", "S=1789m4569s11223366z",
             "--hand", "W=234m567m234s567s2345p", "--hand", "N=234p678p12378s55669m"]
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "E", "--win-by", "wall", "--json",
                     "--no-history"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"]["E"]["cash"] == 10
    assert out["settlement"]["cash"] == {"E": 30, "S": -10, "W": -10, "N": -10}
    # collected as the hands were scored: with -o cash_from=total (004-32 b) E's $10 is split over the three
    # others, whole dollars, the remainder from the first: 4 + 3 + 3 (a reviewer's table had used "each")
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "E", "--win-by", "wall", "--json",
                     "-o", "cash_from=total", "--no-history"]) == 0
    assert json.loads(capsys.readouterr().out)["settlement"]["cash"] == {"E": 10, "S": -4, "W": -3, "N": -3}
    # a double win is not a table's (it scores one winner's hand): said, and `settle` named
    plain = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    # cash paid back is settled too: N's concealed kong not shown returns $10 to each player (004:42)
    unshown = plain[:6] + ["--hand", "N=11z22z33z44z55z66z7z (7777s)", "--player-flag", "N=concealed-kong-not-shown"]
    assert cli.main(["table", "--ruleset", RS, *unshown, "--winner", "E", "--win-by", "wall", "--json",
                     "--no-history"]) == 0
    assert json.loads(capsys.readouterr().out)["settlement"]["cash"] == {"E": 10, "S": 10, "W": 10, "N": -30}
    assert cli.main(["table", "--ruleset", RS, *plain, "--winner", "E", "--settle-option", "discarder=S",
                     "--settle-option", "also_won=W", "--no-history"]) == 2
    assert "`table` scores one winner's hand; settle a double win with `settle`" in capsys.readouterr().err
    # given, the option is the settlement's (here: E's $5 only)
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "E", "--win-by", "wall", "--json",
                     "--settle-option", "cash=E:5", "--no-history"]) == 0
    assert json.loads(capsys.readouterr().out)["settlement"]["cash"] == {"E": 15, "S": -5, "W": -5, "N": -5}


def test_a_liable_player_needs_a_hand_that_makes_one(capsys, tmp_path):
    # a tester's plain hand settled with liable=S: S paid for all three. 包自摸 is for 大三元/大四喜 fed by a
    # claimed pung (004:28) or 清一色 fed to five sets on the table (004:51): the hands whose score says so
    others = [x for k, p in enumerate("SWN", 2) for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    plain = ["table", "--ruleset", RS, "--hand", "E=123m456m789m123p456p11z", *others, "--winner", "E",
             "--settle-option", "liable=S", "--settle-option", "discarder=W", "--no-history"]
    assert cli.main(plain) == 2
    assert "--settle-option liable=S: 包自摸 is for 大三元/大四喜 completed by a claimed pung" in capsys.readouterr().err
    # 大三元 with its dragons claimed as pungs: S, liable, pays what all three would on a self-draw (RULINGS
    # 004-01): 3 × E's score, and W, the discarder, nothing
    dragons = ["table", "--ruleset", RS, "--hand", "E=[555z] [666z] [777z] 123m456p11s", *others, "--winner", "E",
               "-w", "1s", "--settle-option", "liable=S", "--settle-option", "discarder=W", "--no-history", "--json"]
    assert cli.main(dragons) == 0
    out = json.loads(capsys.readouterr().out)
    won = out["scores"]["E"]
    assert out["settlement"]["net"] == {"E": 3 * won, "S": -3 * won, "W": 0, "N": 0}
    # the web's settlement says it too
    from fastapi.testclient import TestClient

    from web.app import Settings, create_app

    client = TestClient(create_app(Settings(data_dir=tmp_path), detector=object(), classifier=object()))
    players = [{"name": "E", "hand": "123m456m789m123p456p11z"}] + [
        {"name": p, "hand": f"123m456m789m123p456p{k}z"} for k, p in enumerate("SWN", 2)]
    r = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "E", "players": players,
                                         "settle_options": {"liable": "S", "discarder": "W"}})
    assert r.status_code == 422 and r.json()["error"].startswith("settle_options liable=S: 包自摸 is for"), r.text


def test_a_table_whose_win_by_and_settle_option_disagree_is_refused(capsys):
    # a tester's findings: `--win-by discard --settle-option win_by=self-drawn` scored a discard win and
    # settled a self-draw (3 × the points) without a word; `--win-by wall --settle-option discarder=S`
    # ignored the discarder; a robbed-kong win with no discarder was called "a discard win"
    # (the others' 16 tiles each: a 2z, 3z or 4z beside the suits, so that the four hands are tiles of one set)
    hands = ["--hand", "E=123m456m789m123p456p11z"] + [x for k, p in enumerate("SWN", 2)
                                                       for x in ("--hand", f"{p}=123m456m789m123p456p{k}z")]
    base = ["table", "--ruleset", RS, *hands, "--winner", "E"]
    assert cli.main([*base, "--win-by", "discard", "--settle-option", "win_by=self-drawn"]) == 2
    assert "disagrees with the winner's win by discard" in capsys.readouterr().err
    assert cli.main([*base, "--win-by", "wall", "--settle-option", "win_by=self-drawn", "--json"]) == 0  # agree
    capsys.readouterr()
    assert cli.main([*base, "--win-by", "wall", "--settle-option", "discarder=S"]) == 2
    assert "a self-drawn win has no discarder" in capsys.readouterr().err
    assert cli.main([*base, "--win-by", "robbed-kong"]) == 2
    err = capsys.readouterr().err
    assert "a robbed-kong win needs --settle-option discarder=PLAYER, the player robbed" in err and "--win-by wall" not in err


def test_the_web_settlement_takes_the_winners_win_by(tmp_path):
    # the same fix as `table`'s reached the web page's /api/settle too: a self-drawn hk-tw-16 win was
    # refused there as "a discard win needs discarder=PLAYER". RULINGS 004-01: each of the three pays
    from fastapi.testclient import TestClient

    from web.app import Settings, create_app

    client = TestClient(create_app(Settings(data_dir=tmp_path), detector=object(), classifier=object()))
    players = [{"name": "E", "hand": "123m456m789m123p456p11z"}] + [  # (four hands of one set of tiles)
        {"name": p, "hand": f"123m456m789m123p456p{k}z"} for k, p in enumerate("SWN", 2)]
    r = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "E", "win_by": "wall", "players": players})
    assert r.status_code == 200, r.text
    j = r.json()
    won = j["scores"]["E"]
    assert j["net"] == {"E": 3 * won, "S": -won, "W": -won, "N": -won}
    # the cash the winner's hand reports is settled too, as `table` settles it: two 台花 (004:43), $10 from each
    players = [{"name": "E", "hand": "123m456p789s123p4567z +1f2f3f4f1y2y3y4y"},
               {"name": "S", "hand": "1789m4569s11223366z"}, {"name": "W", "hand": "234m567m234s567s2345p"},
               {"name": "N", "hand": "234p678p12378s55669m"}]
    j = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "E", "win_by": "wall",
                                         "players": players}).json()
    assert j["hands"]["E"]["cash"] == 10 and j["cash"] == {"E": 30, "S": -10, "W": -10, "N": -10}
    # a second winner given by its hand (scored as a non-winner's here) is refused: its score is asked for
    players = [{"name": "E", "hand": "123m456m789m123p456p11z"}] + [
        {"name": p, "hand": f"123m456m789m123p456p{k}z"} for k, p in enumerate("SWN", 2)]
    r = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "E", "players": players,
                                         "settle_options": {"discarder": "S", "also_won": "W"}})
    assert r.status_code == 422 and "give W's score instead of a hand" in r.json()["error"], r.text


def test_the_web_settlement_of_a_score_alone_keeps_its_settle_options(tmp_path):
    # a reviewer's finding: a winner given by score only (no hand scored here) with settle option
    # win_by=self-drawn was refused as disagreeing with the request's default win_by "discard"
    from fastapi.testclient import TestClient

    from web.app import Settings, create_app

    client = TestClient(create_app(Settings(data_dir=tmp_path), detector=object(), classifier=object()))
    players = [{"name": p, "score": 30 if p == "S" else 0} for p in "ESWN"]
    r = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "S", "players": players,
                                         "settle_options": {"win_by": "self-drawn"}})
    assert r.status_code == 200, r.text
    assert r.json()["net"]["S"] > 30  # each of the three pays (RULINGS 004-01)


def test_line40_the_robbed_concealed_kong_flag_needs_a_robbed_kong_win():
    # a tester's flag with the default discard win scored 119 (假獨) on a hand holding the "robbed" 1m twice: the
    # held-once check runs on a robbed-kong win only, so the flag (004:40 搶暗槓) now needs one
    with pytest.raises(HandError, match=r"flag robbed-concealed-kong describes a win by robbed-kong \(搶暗槓, 004:40\), not by discard"):
        score("119m19p19s1234567z234m +1f", "1m", flags=("robbed-concealed-kong",))
    with pytest.raises(HandError, match="a robbed kong's tile is the fourth 1m"):
        score("119m19p19s1234567z234m +1f", "1m", win_by="robbed-kong", flags=("robbed-concealed-kong",))


# the four hands of one table used below (tiles of one set): E's 17 tiles win on 6s; S, W, N hold 16
DEALER_WINS = ["--hand", "E=[123m] 456m 777p 234s 678s 55p", "--hand", "S=123m456m789m123p999p2z",
               "--hand", "W=123m456m789m123p888p3z", "--hand", "N=789m123p111s999s123s4z"]


def test_line2_a_tables_dealer_streak_scores_the_dealers_hand(capsys):
    # a colleague's finding: `table` built each hand's context without the dealer streak, so a dealer who won
    # after 3 deals kept scored no 連莊 there, while `photo --dealer-streak 3` (and `hand`) scored it. The table's
    # one value is its settlement option dealer_streak: the dealer's (East's) hand is scored with it.
    # E, the dealer, wins on S's discard of 6s: 無字花 5 (004:8) + 將眼 1 (55p, 004:1) + 莊 1 (004:1)
    # + 連莊 2 (004:2, dealer_streak_points=flat) + 底 5 (004:41) = 14; S, the discarder, pays it (RULINGS 004-01)
    base = ["table", "--ruleset", RS, *DEALER_WINS, "--winner", "E", "-w", "6s", "--settle-option", "discarder=S",
            "--no-history", "--json"]
    assert cli.main([*base, "--settle-option", "dealer_streak=3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == {"E": 14, "S": 0, "W": 0, "N": 0}
    assert out["settlement"]["net"] == {"E": 14, "S": -14, "W": 0, "N": 0}
    # as `hand --dealer-streak 3` scores the same hand (photo's option)
    assert cli.main(["hand", "[123m] 456m 777p 234s 678s 55p", "-w", "6s", "-r", RS, "--dealer-streak", "3",
                     "--no-history", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 14
    # dealer_streak_points=per-deal given for the settlement scores the hand so too (one value per table):
    # 連莊 2 × 3 deals = 6 (004-15 b) → 12 + 6 = 18
    assert cli.main([*base, "--settle-option", "dealer_streak=3", "--settle-option", "dealer-streak-points=per-deal"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"]["E"] == 18
    # given for scoring and for the settlement with values that differ: refused in one line
    assert cli.main([*base, "--settle-option", "dealer_streak=3", "-o", "dealer_streak_points=per-deal",
                     "--settle-option", "dealer_streak_points=flat"]) == 2
    err = capsys.readouterr().err
    assert "dealer_streak_points is given as 'per-deal' with -o and 'flat' with --settle-option" in err
    assert len(err.strip().splitlines()) == 1
    assert cli.main([*base, "--settle-option", "dealer_streak=100"]) == 2
    assert "--settle-option dealer_streak must be 0 to 99, not '100'" in capsys.readouterr().err


def test_004_15_a_tables_dealer_point_given_for_scoring_is_the_settlements(capsys):
    # `table -o dealer_point=any-dealer-payment` had reached the hands only; the payments kept the default. Now
    # one value: S wins on E's discard of 6s: 無字花 5 (004:8) + 將眼 1 (004:1) + 底 5 (004:41) = 11 (S is not
    # the dealer: no 莊); E, the dealer, pays it + 莊 1 + 連莊 2 (dealer streak 3, flat) = 14 (004-15 b)
    hands = ["--hand", "E=123m456m789m123p999p2z", "--hand", "S=[123m] 456m 777p 234s 678s 55p",
             "--hand", "W=123m456m789m123p888p3z", "--hand", "N=789m123p111s999s123s4z"]
    assert cli.main(["table", "--ruleset", RS, *hands, "--winner", "S", "-w", "6s", "--settle-option", "discarder=E",
                     "--settle-option", "dealer_streak=3", "-o", "dealer_point=any-dealer-payment",
                     "--no-history", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"]["S"] == 11
    assert out["settlement"]["net"] == {"E": -14, "S": 14, "W": 0, "N": 0}


def test_line2_the_web_settlements_dealer_streak_scores_the_dealers_hand(tmp_path):
    # the same finding in /api/settle: settle_options dealer_streak=3 is the dealer's hand's too.
    # E: 無字花 5 (004:8) + 將眼 1 + 莊 1 (004:1) + 連莊 2 (004:2) + 底 5 (004:41) = 14, paid by S (RULINGS 004-01)
    from fastapi.testclient import TestClient

    from web.app import Settings, create_app

    client = TestClient(create_app(Settings(data_dir=tmp_path), detector=object(), classifier=object()))
    hands = dict(x.split("=", 1) for x in DEALER_WINS[1::2])
    players = [{"name": p, "hand": h} for p, h in hands.items()]
    r = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "E", "winning_tile": "6s",
                                         "players": players,
                                         "settle_options": {"discarder": "S", "dealer_streak": 3}})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["scores"]["E"] == 14 and j["net"] == {"E": 14, "S": -14, "W": 0, "N": 0}
    r = client.post("/api/settle", json={"ruleset": RS, "east": "E", "winner": "E", "winning_tile": "6s",
                                         "players": players, "options": {"dealer_streak_points": "per-deal"},
                                         "settle_options": {"discarder": "S", "dealer_streak_points": "flat"}})
    assert r.status_code == 422 and "given as 'per-deal' in options and 'flat' in settle_options" in r.text, r.text


def test_line2_a_settlements_dealer_streak_that_changes_nothing_is_said(capsys):
    # a colleague's finding: `settle -o dealer_streak=N` was dropped without a word where it changes nothing
    base = ["settle", "-r", RS, "--scores", "E=14,S=11,W=0,N=0", "--east", "E"]
    # the dealer won: his 連莊 (004:2) is in his score; the payments add nothing (S pays 14)
    assert cli.main([*base, "--winner", "E", "-o", "discarder=S", "-o", "dealer_streak=3"]) == 0
    out = capsys.readouterr().out
    assert "S pays E     14" in out
    assert "note: 連莊: dealer_streak=3 adds nothing to the payments: the dealer E won" in out
    # a non-dealer winner under the default dealer_point=winner-is-dealer (004-15 a): W pays S's 11, nothing more
    assert cli.main([*base, "--winner", "S", "-o", "discarder=E", "-o", "dealer_streak=3"]) == 0
    out = capsys.readouterr().out
    assert "E pays S     11" in out and "note: 連莊: dealer_streak=3 changes nothing: the winner is not the dealer" in out
    # under any-dealer-payment (004-15 b) it counts: E pays 11 + 莊 1 + 連莊 2 = 14, and no such note
    assert cli.main([*base, "--winner", "S", "-o", "discarder=E", "-o", "dealer_streak=3",
                     "-o", "dealer_point=any-dealer-payment"]) == 0
    out = capsys.readouterr().out
    assert "E pays S     14" in out and "連莊: dealer_streak" not in out
    # no streak, no note
    assert cli.main([*base, "--winner", "S", "-o", "discarder=E"]) == 0
    assert "連莊" not in capsys.readouterr().out


def test_004_15_the_dealer_payment_note_shows_only_when_the_dealer_pays():
    # a colleague's finding: under dealer_point=any-dealer-payment the note said "莊/連莊 +N on the dealer's
    # payment" when the dealer paid nothing. S wins 30 with dealer_streak=2 (連莊 flat 2, 004:2, 004-15 a of
    # 連莊): the dealer's extra is 莊 1 (004:1) + 連莊 2 (004:2) = 3.
    opts = {"dealer_point": "any-dealer-payment", "dealer_streak": 2}
    scores = {"E": 0, "S": 30, "W": 0, "N": 0}
    # W discards (004-01: the discarder pays alone): W pays S's 30, the dealer E pays nothing
    s = settle(RS, scores, "S", "E", {**opts, "discarder": "W"})
    assert s.net == {"E": 0, "S": 30, "W": -30, "N": 0}
    assert not any("on the dealer" in n for n in s.notes)
    assert ("莊/連莊 changed nothing: the dealer E paid nothing in this hand, W paid alone "
            "(option dealer_point=any-dealer-payment, 004-15)") in s.notes
    # E discards: E pays 30 + 3 = 33, and the note says so
    s = settle(RS, scores, "S", "E", {**opts, "discarder": "E"})
    assert s.net == {"E": -33, "S": 33, "W": 0, "N": 0}
    assert "莊/連莊 +3 on the dealer E's payment to S (option dealer_point=any-dealer-payment, 004-15)" in s.notes
    # 包自摸 by N (004:28/51): N pays what all three would pay on a self-draw, 33 + 30 + 30 = 93, the dealer's
    # share holding the 3
    s = settle(RS, scores, "S", "E", {**opts, "discarder": "W", "liable": "N"})
    assert s.net == {"E": 0, "S": 93, "W": 0, "N": -93}
    # the line says what it charges: the hand as won, for all three, not the hand scored again as self-drawn
    # (a referee had read "what all three would pay on a self-draw" as 3 x the self-drawn score)
    assert [t.reason for t in s.transfers] == ["包自摸: pays for all three, 3 shares of the hand's 30 as won on the "
                                           "discard (33 + 30 + 30 = 93), not scored again as self-drawn "
                                           "(004_7d7ce2dadca33504.txt:28/51, RULINGS 004-01)"]
    assert any(n.startswith("莊/連莊 +3 in the 包自摸 payment: the dealer E's share") for n in s.notes)
    # the dealer wins (W discards, pays E's 30, whose score holds his 莊/連莊): no dealer-payment note
    s = settle(RS, {"E": 30, "S": 0, "W": 0, "N": 0}, "E", "E", {**opts, "discarder": "W"})
    assert s.net == {"E": 30, "S": 0, "W": -30, "N": 0}
    assert not any(n.startswith("莊/連莊") for n in s.notes)


def test_a_penalty_paid_back_is_said_in_dollars_as_the_settlement_says_it():
    # a reviewer's: the hand line said "$-10" (and "2×-10 = $-20" for two kongs) where the settlement notes say
    # "-$10". 暗槓不亮 (004:42): "returning $10 back to each player", -$10 a kong not shown
    from scoring import Context, parse_hand, score_hand
    from scoring.engine import explain

    ctx = Context(winner=False, flags=frozenset({"concealed-kong-not-shown"}))
    sc = score_hand(parse_hand("(9999m) 111p 222p 333z 567s 4z", context=ctx), "hk-tw-16")
    text = explain(sc)
    assert "-$10  暗槓不亮" in text and "cash: -$10 (paid apart)" in text and "$-" not in text, text


def test_heaven_earth_is_the_dealers_first_draw_or_anothers_first_discard():
    # 004:33 天地胡 100, AMBIGUITIES 004-27 (a): 天胡 on the dealer's first draw (a kong's loose tile too), 地胡 on the
    # first discard. A dealer's first-turn win by discard (he has no first discard to win on) and another's by a
    # robbed kong's tile (no discard) had scored 100 (a referee's); neither is 天地胡 now, and the note names the way
    # of winning that would score it. Another's win on his own first draw is 地胡 (the rendering: "on the dealer's
    # first discard, or on their own first draw", a reviewer's)
    hand = "123m 456m 789p 234s 567s 11z"
    for ctx, fires in (({"win_by": "wall", "seat_wind": "E"}, True), ({"win_by": "discard", "seat_wind": "E"}, False),
                       ({"win_by": "discard", "seat_wind": "S"}, True), ({"win_by": "wall", "seat_wind": "S"}, True),
                       ({"win_by": "robbed-kong", "seat_wind": "S"}, False)):
        win = "7p" if ctx["win_by"] == "robbed-kong" else "1z"
        r = score(hand, win, first_turn=True, discards=0, **ctx)
        assert ("heaven-earth" in pts(r)) == fires, (ctx, pts(r))
        if not fires:
            assert any(n.startswith("--first-turn scores nothing here") and "天地胡" in n for n in r.notes), r.notes


def test_a_first_turn_win_has_at_most_the_discards_before_it():
    # a referee's 天胡 with --discards 9 had been scored (十張內 10 in place of 四張內 40): the dealer's first draw
    # comes before any discard, another's first turn sees at most the three before his own draw (004-27 (a))
    from scoring import CircumstanceError

    hand = "123m 456m 789p 234s 567s 11z"
    with pytest.raises(CircumstanceError, match="at most 0 discards on the table"):
        score(hand, "1z", first_turn=True, win_by="wall", seat_wind="E", discards=9)
    with pytest.raises(CircumstanceError, match="at most 3 discards"):
        score(hand, "1z", first_turn=True, win_by="wall", seat_wind="N", discards=4)
    assert "heaven-earth" in pts(score(hand, "1z", first_turn=True, win_by="wall", seat_wind="N", discards=3))


def test_a_first_turn_win_counts_four_discards_without_a_count():
    # a tester's first-turn row with an empty discards cell was scored without 四張內 (a note asked for the count),
    # though a first-turn win has at most 3 discards on the table: 四張內 40 (004:22-23) counts without it
    hand = "123m 456m 789p 234s 567s 11z"
    r = score(hand, "1z", first_turn=True, win_by="wall", seat_wind="N")
    assert pts(r).get("within-four") == 40, pts(r)
    assert not any("need --discards" in n for n in r.notes), r.notes
    # the line says the count came from the first turn (a referee read +40 with no --discards as unexplained); a
    # non-dealer's first draw has at most the 3 discards of the players before him, the dealer's none
    line = next(ln for ln in r.lines if ln.rule == "within-four")
    assert line.detail == "a first-turn win (--first-turn): at most 3 discards lie in the middle, no --discards given"
    r = score(hand, "1z", first_turn=True, win_by="wall", seat_wind="E")
    assert next(ln for ln in r.lines if ln.rule == "within-four").detail.startswith(
        "a first-turn win (--first-turn): no discard lies in the middle")
    assert next(ln for ln in score(hand, "1z", first_turn=True, win_by="wall", seat_wind="N", discards=2).lines
                if ln.rule == "within-four").detail == ""
    # … and the discards check comes after the tile count (a tester's 18 tiles had been told of the discards alone)
    with pytest.raises(HandError, match="needs 17 tiles"):
        score(hand + " 5p", "1z", first_turn=True, win_by="wall", seat_wind="E", discards=9)


def test_a_discards_count_that_scores_nothing_says_why():
    # a seed tester's: a first-turn win given --discards 0 scored 四張內 40 (004:22-23) and was told "no rule of
    # hk-tw-16 scores the discards on the table" beside it; --discards 20 was told the same, though 十張內 (+10)
    # counts up to 10 discards (004:22: 十張內 10 / 七張內 20 / 四張內 40)
    hand = "123m 456m 789p 234s 567s 11z"
    r = score(hand, "1z", first_turn=True, win_by="wall", seat_wind="N", discards=0)
    assert pts(r).get("within-four") == 40
    assert ("--discards scores nothing here: the first turn (--first-turn) already says how few discards lie on the "
            "table") in r.notes, r.notes
    r = score(hand, "1z", discards=20)
    assert not any(k.startswith("within") for k in pts(r)), pts(r)
    (note,) = [n for n in r.notes if n.startswith("--discards")]
    assert note.startswith("--discards scores nothing here: with 20 discards on the table no rule of hk-tw-16 "
                           "counts them; with at most 10 it scores 十張內"), note
    assert "(+10 pts, 004_7d7ce2dadca33504.txt:22-23)" in note and "no rule of hk-tw-16 scores" not in note
    # where no rule reads the count (swedish), a first-turn win's --discards is said to be read by none (a reviewer's:
    # "the first turn already says how few discards lie on the table" had been said there too)
    from scoring import load_ruleset as _load

    c = Context(seat_wind="S", round_wind="E", win_by="wall", first_turn=True, discards=2)
    r = score_hand(parse_hand("123m456p789s11z 999p", winning_tile="1z", context=c), _load("swedish"))
    assert "--discards scores nothing here: no rule of swedish scores the discards on the table for this hand" \
        in r.notes, r.notes


def test_a_dealers_first_turn_win_by_discard_bounds_no_discards_and_keeps_its_note():
    # a reviewer's: a dealer's first-turn win by discard is no 天地胡 (004-27 (a)); guessing its discards had given it
    # 四張內 40 and hidden the note that the flag scores nothing, and an honest --discards 2 had been refused
    hand = "123m 456m 789p 234s 567s 11z"
    r = score(hand, "1z", first_turn=True, win_by="discard", seat_wind="E")
    assert "within-four" not in pts(r) and "heaven-earth" not in pts(r), pts(r)
    assert any(n.startswith("--first-turn scores nothing here") for n in r.notes), r.notes
    assert "heaven-earth" not in pts(score(hand, "1z", first_turn=True, win_by="discard", seat_wind="E", discards=2))


def test_eight_flowers_on_the_last_tile_count_self_drawn_once():
    # 004:45 八隻花 counts as 40, "自摸+莊", "can also count … 海底撈"; 004:12 海底撈/出 5 "incl. 自摸" (option
    # last_tile_self_draw=includes, 004-14): the 自摸 1 of the instant win is inside 海底撈's 5, not beside it.
    # South, self-drawn on the last tile: 八隻花 40 + 海底撈 5 + 底 5 = 50 (it had been 51), 台花 2 × $5 apart
    r = score("139m258p147s1234567z +1f2f3f4f1y2y3y4y", win_by="wall", last_tile=True)
    check(r, {"eight-flowers": 40, "flower-set": 10, "last-tile": 5, "base": 5}, 50)


def test_an_option_is_cited_only_where_it_decides_the_line():
    # RULINGS principle 3. 全混腰 60 outside 十三腰: thirteen_mixed (004-30) decides only inside 十三腰
    r = score("111m 999p [111z] 555z 777z 99s", "9s", win_by="wall")
    assert pts(r)["all-terminals-honours"] == 60 and not next(
        ln for ln in r.lines if ln.rule == "all-terminals-honours").option
    r = score("19m19p19s12345677z111m", "7z")
    assert "thirteen_mixed=table-60" in next(ln for ln in r.lines if ln.rule == "all-terminals-honours").option
    # 四歸 of 1z in a self-drawn 嚦咕, its groups all concealed: discard_set (004-09) is not cited ...
    r = score("1111z22z33z44z55z66z777z", "6z")
    assert not next(ln for ln in r.lines if ln.rule == "four-returns-concealed").option
    # ... but it is where a pung holding the tile was completed by the winning discard: 004:5 四歸 5 as exposed
    r = score("111m123m456p789p234s99s", "1m")
    assert "discard_set=exposed" in next(ln for ln in r.lines if ln.rule == "four-returns").option


def test_a_straight_completed_by_the_winning_discard_cites_discard_set():
    # a tester's fully concealed hand 123m 456m 789m 234s 678s 99p, won on a discard of 5m, read "明龍 — exposed
    # straight … a chow exposed" with no option named, though nothing is on the table. 004:17 明龍 10, 暗龍 20;
    # RULINGS principle 6: a chow completed by the winning discard is exposed, unless discard_set=concealed
    # (004-09), and principle 3: a line the option decides names it.
    # on a discard, default: 456m exposed → 明龍 10, discard_set cited
    line = next(ln for ln in score("123m456m789m234s678s99p", "5m").lines if ln.rule in ("exposed-dragon",
                                                                                        "concealed-dragon"))
    assert (line.rule, line.points) == ("exposed-dragon", 10) and "discard_set=exposed, 004-09" in line.option
    assert "completed by the winning discard" in line.name
    # discard_set=concealed: 456m stays concealed → 暗龍 20, cited
    line = next(ln for ln in score("123m456m789m234s678s99p", "5m", {"discard_set": "concealed"}).lines
                if ln.rule.endswith("-dragon"))
    assert (line.rule, line.points) == ("concealed-dragon", 20) and "discard_set=concealed" in line.option
    # self-drawn, or won on 2s (outside the straight): 暗龍 20 either way, the option decides nothing, not cited
    for win, how in (("5m", "wall"), ("2s", "discard")):
        line = next(ln for ln in score("123m456m789m234s678s99p", win, win_by=how).lines if ln.rule.endswith("-dragon"))
        assert (line.rule, line.points) == ("concealed-dragon", 20) and "discard_set" not in line.option, (win, line)
    # 四歸四 likewise (a tester's): 123m ×4 456s 99p won on a discard of 3m. 004:5-6 四歸四 20 each, 暗 40 each
    # when the four chows are concealed (four_identical_returns=concealed-doubles, 004-08); the chow completed by
    # the discard is exposed by default (discard_set, 004-09): 3 × 20 = 60, discard_set cited; concealed: 3 × 40
    r = score("123m123m123m123m456s99p", "3m")
    line = next(ln for ln in r.lines if ln.rule.startswith("four-returns-four"))
    assert (line.rule, line.points) == ("four-returns-four", 60) and "discard_set=exposed" in line.option, line
    r = score("123m123m123m123m456s99p", "3m", {"discard_set": "concealed"})
    line = next(ln for ln in r.lines if ln.rule.startswith("four-returns-four"))
    assert (line.rule, line.points) == ("four-returns-four-concealed", 120) and "discard_set=concealed" in line.option
