"""Bad input from a hostile or careless user: every case is a one-line error naming the problem with
exit code 2 (or the library's HandError/RulesetError/ImageError), never a traceback, never a silent
wrong answer, and a batch keeps going past a bad row. Each test here failed before its fix."""
from __future__ import annotations

import pytest

from scoring import Context, HandError, RulesetError, parse_hand, score_hand
from scoring.settle import settle

HAND = "123m456p789s11z [777p]"          # nts winner, 14 tiles
NON_WINNER = "123m456p789s1z [777p]"     # 13 tiles
HK_HAND = "123456789m123p11z [777p]"     # hk-tw-16 winner, 17 tiles


def one_error_line(err: str) -> str:
    """The single stderr line of a failed command (asserting there is exactly one)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mahjong-score: error: "), err
    assert "Traceback" not in err
    return lines[0]


def fails(run_cli, *argv: str) -> str:
    rc, out, err = run_cli(*argv)
    assert rc == 2, (rc, out, err)
    return one_error_line(err)


# ------------------------------------------------------------------------------ flags
@pytest.mark.parametrize("ruleset, hand", [("nts", HAND), ("hk-tw-16", HK_HAND)])
def test_unknown_flag_is_an_error_in_every_ruleset(run_cli, ruleset, hand):
    # was: nts and hk-tw-16 (no flag check of their own) ignored a misspelt --flag silently
    msg = fails(run_cli, "hand", hand, "-r", ruleset, "--flag", "last-tiel", "--no-history")
    assert f"unknown flag last-tiel for ruleset {ruleset}" in msg
    with pytest.raises(HandError, match="unknown flag"):
        score_hand(parse_hand(hand, context=Context(flags=frozenset({"nope"})), sizes=None), ruleset)


def test_known_hk_flag_still_accepted(run_cli):
    rc, _, _ = run_cli("hand", HK_HAND, "-r", "hk-tw-16", "--flag", "concealed-kong-not-shown", "--no-history")
    assert rc == 0


# ------------------------------------------------------------------------------ context
@pytest.mark.parametrize("extra, named", [
    (["--win-by", "wall"], "--win-by wall"),
    (["--last-tile"], "--last-tile"),
    (["--first-turn", "--kong-on-kong"], "--first-turn, --kong-on-kong"),
])
def test_not_winner_with_how_the_hand_was_won_is_contradictory(run_cli, extra, named):
    # was: accepted, the header even said "non-winner … win by wall"
    msg = fails(run_cli, "hand", NON_WINNER, "--not-winner", *extra, "--no-history")
    assert f"--not-winner contradicts {named}" in msg


def test_win_by_still_works_for_a_winner(run_cli):
    rc, out, _ = run_cli("hand", HAND, "--win-by", "wall", "--no-history")
    assert rc == 0 and "[winner, seat E, round E, win by wall]" in out.splitlines()[0]


def test_negative_discards(run_cli):
    # was: --discards -1 accepted (--dealer-streak -1 was already refused)
    assert "discards" in fails(run_cli, "hand", HAND, "--discards", "-1", "--no-history")
    with pytest.raises(HandError, match="discards"):
        Context(discards=-3)


@pytest.mark.parametrize("tile, needle", [("9z", "there is no tile 9z"), ("", "empty tile group"),
                                          ("5p6p", "must be one playing tile")])
def test_bad_winning_tile_names_the_winning_tile_not_a_column(run_cli, tile, needle):
    # was: "there is no tile 9z … (at column 1)", a column of the -w value read as one of the hand
    msg = fails(run_cli, "hand", HAND, "-w", tile, "--no-history")
    assert f"winning tile {tile!r}" in msg and needle in msg and "column" not in msg


def test_option_given_twice_with_different_values(run_cli):
    # was: the last one silently won
    msg = fails(run_cli, "hand", HAND, "-o", "seat_round_wind=once", "-o", "seat_round_wind=each", "--no-history")
    assert "--option seat_round_wind is given twice" in msg
    rc, _, _ = run_cli("hand", HAND, "-o", "seat_round_wind=once", "-o", "seat_round_wind=once", "--no-history")
    assert rc == 0
    assert "has no option name" in fails(run_cli, "hand", HAND, "-o", "=once", "--no-history")


def test_boolean_option_choices_are_named_as_typed(run_cli):
    # was: "must be one of True, False" (Python spelling; the user types true/false)
    msg = fails(run_cli, "hand", HAND, "-r", "dutch-special-hands", "-o", "honours_include_terminals=maybe",
                "--no-history")
    assert "must be one of true, false" in msg


# ------------------------------------------------------------------------------ settle
@pytest.mark.parametrize("scores", ["E=200,S=100,W=200", "E=1,S=1,W=2,N=3,X=5"])
def test_settle_needs_four_players(run_cli, scores):
    # was: 3 and 5 players settled (hk-tw-16: "each of the three pays" with a fifth paying too)
    assert "needs the 4 players" in fails(run_cli, "settle", "--east", "E", "--winner", "W", "--scores", scores)
    with pytest.raises(ValueError, match="4 players"):
        settle("rode-draak", dict.fromkeys("ABCDE", 1), "A", "B")


@pytest.mark.parametrize("streak", ["abc", "-4"])
def test_hk_settle_dealer_streak(run_cli, streak):
    # was: "invalid literal for int() with base 10: 'abc'"; -4 accepted
    msg = fails(run_cli, "settle", "-r", "hk-tw-16", "--east", "E", "--winner", "W", "--scores", "E=0,S=0,W=20,N=0",
                "-o", "win_by=self-drawn", "-o", f"dealer_streak={streak}")
    assert "settle option dealer_streak must be a whole number ≥ 0" in msg
    with pytest.raises(RulesetError):
        settle("hk-tw-16", {"E": 0, "S": 0, "W": 20, "N": 0}, "W", "E", {"win_by": "self-drawn", "dealer_streak": streak})


def test_history_negative_limit(run_cli):
    # was: accepted (SQLite's LIMIT -1 = everything)
    assert "--limit -1 must be ≥ 0" in fails(run_cli, "history", "-n", "-1")