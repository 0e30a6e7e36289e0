"""Hand notation: the grammar of scoring/notation.py and every HandError it raises.

Every error must be one line naming the problem; errors tied to a place in the string name the
1-based column ("(at column N)", also ``HandError.column``).
"""
from __future__ import annotations

import pytest

from scoring import Context, HandError, Meld, format_hand, parse_hand, parse_tiles
from scoring.notation import check_size, meld_from_tiles, parse_tiles_at, parse_winning_tile


# ------------------------------------------------------------------------------ grammar
def test_compact_tiles():
    assert parse_tiles("123m44p55z") == ["1m", "2m", "3m", "4p", "4p", "5z", "5z"]
    assert parse_tiles("1f3y") == ["1f", "3y"]
    assert parse_tiles_at("12m5p", column=7) == [("1m", 7), ("2m", 8), ("5p", 10)]


def test_full_hand_tokens():
    h = parse_hand("123m 456p 11z [777p] (5555s) +1f3y win:1z")
    # concealed tokens are joined and sorted; the winning tile is among them
    assert h.concealed == ("1m", "2m", "3m", "4p", "5p", "6p", "1z", "1z")
    assert h.melds == (Meld("pung", "7p", concealed=False, declared=True),
                       Meld("kong", "5s", concealed=True, declared=True))
    assert h.bonus == ("1f", "3y")
    assert h.winning_tile == "1z"
    assert h.tile_count == 14  # 8 + 3 + 3 (a kong counts 3)


def test_exposed_chow_and_kong():
    h = parse_hand("[345m] [1111s] 234p567p99s", winning_tile="9s")
    assert h.melds[0] == Meld("chow", "3m", concealed=False, declared=True)
    assert h.melds[1] == Meld("kong", "1s", concealed=False, declared=True)


def test_exposed_meld_tiles_in_any_order():
    assert parse_hand("[543m] 234p567p111z99s").melds[0].kind == "chow"


def test_winning_tile_given_apart_must_agree_with_the_token():
    # given apart (--winning-tile, the web's winning_tile), it may restate win: or stand for it; two that differ
    # had been scored with the one given apart without a word (a tester's win:1z with 2m: 28 points, no note)
    assert parse_hand("123m456p789s11z [777p] win:1z", winning_tile="1z").winning_tile == "1z"
    assert parse_hand("123m456p789s11z [777p]", winning_tile="3m").winning_tile == "3m"
    with pytest.raises(HandError, match=r"the winning tile is given twice: win:1z in the hand and 3m apart"):
        parse_hand("123m456p789s11z [777p] win:1z", winning_tile="3m")


def test_win_prefix_case_insensitive():
    assert parse_hand("123m456p789s11z [777p] WIN:1z").winning_tile == "1z"


def test_sixteen_tile_game():
    # 5 sets + pair = 17 tiles; accepted when 16 is among the sizes
    h = parse_hand("123m456m789m123p456p77z", sizes=(16,))
    assert h.tile_count == 17
    with pytest.raises(HandError, match="needs 14 tiles"):
        parse_hand("123m456m789m123p456p77z", sizes=(13,))


def test_non_winner_counts_13():
    h = parse_hand("123m456p789s1z [777p]", context=Context(winner=False))
    assert h.tile_count == 13 and h.winning_tile is None


def test_format_round_trip():
    text = "123m456p11z [777p] (5555s) +1f3y win:1z"
    h = parse_hand(text)
    assert format_hand(h) == text
    assert parse_hand(format_hand(h)) == h
    assert format_hand(h, with_winning_tile=False) == "123m456p11z [777p] (5555s) +1f3y"


def test_meld_from_tiles():
    assert meld_from_tiles(["7p", "7p", "7p"], concealed=False) == Meld("pung", "7p", False, True)
    assert meld_from_tiles(["5m"] * 4, concealed=True) == Meld("kong", "5m", True, True)


def test_check_size_returns_game():
    assert check_size(parse_hand("123m456p789s11z [777p]")) == 13


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("text, message, column", [
    # bad notation
    ("123m4x5p", "unexpected character 'x'", 6),
    ("123m 456", "does not end in a suit letter", 8),
    ("0m", "there is no tile 0m", 1),
    ("123m 8z", "there is no tile 8z", 6),
    ("5f", "there is no tile 5f", 1),
    ("[777p", "exposed meld '[777p' must look like [777p]", 1),
    ("[]", "must look like [777p]", 1),
    ("123m (555m", "concealed kong '(555m' must look like (5555m)", 6),
    ("123m ]", "unmatched ']'", 6),
    ("[12]", "does not end in a suit letter", 3),
    ("[1234m]", "[1234m] is not a meld", 1),
    ("[123z]", "[123z] is not a meld", 1),
    ("11m (111m)", "(111m) must be a concealed kong: 4 identical tiles", 5),
    ("[11f]", "flowers and seasons cannot be part of a meld", 1),
    ("+", "empty tile group", 2),
    ("123m +1f1m", "1m after '+' is not a flower", 9),
    ("123m1f", "bonus tile 1f must be written after '+'", 5),
    ("win:", "empty tile group", 5),
    ("123m win:12m", "must name exactly one winning tile", 6),
    ("123m win:1f", "winning tile 1f must be a playing tile", 6),
    ("123m win:1m win:2m", "the winning tile is given twice", 13),
    # too many copies: the column of the 5th copy
    ("11112m [111m]", "tile 1m occurs 7 times; a set has only 4 of each tile", 8),
    ("111m11m", "tile 1m occurs 5 times", 6),
    # a bonus tile twice: the column of the second one
    ("123m +1f2f1f", "bonus tile 1f occurs 2 times; there is only one of each", 11),
    # winning tile not in the hand: the column of the win: token
    ("123m456p789s11z [777p] win:7p", "winning tile 7p is not among the concealed tiles", 24),
])
def test_errors_name_problem_and_column(text, message, column):
    with pytest.raises(HandError) as e:
        parse_hand(text)
    assert message in str(e.value)
    assert e.value.column == column
    assert str(e.value).endswith(f"(at column {column})")
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("text, kwargs, message", [
    ("", {}, "the hand has no tiles"),
    ("+1f", {}, "the hand has no tiles"),
    # wrong tile count: a winner needs 14 (13-tile game) or 17
    ("123m456p789s1z [777p]", {}, "a winning hand needs 14 or 17 tiles (each meld on the table counts 3, a kong too), found 13"),
    ("123m456p789s11z [777p]", {"context": Context(winner=False)},
     "a non-winning hand needs 13 or 16 tiles (each meld on the table counts 3, a kong too), found 14"),
    # winning tile given as option, not in the hand
    ("123m456p789s11z [777p]", {"winning_tile": "5s"}, "winning tile 5s is not among the concealed tiles"),
    ("123m456p789s11z [777p]", {"winning_tile": "5"}, "does not end in a suit letter"),
    ("123m456p789s11z [777p]", {"winning_tile": "1f"}, "must be one playing tile"),
    # a non-winner with a winning tile
    ("123m456p789s1z [777p]", {"winning_tile": "1z", "context": Context(winner=False)},
     "a non-winning hand has no winning tile"),
])
def test_hand_level_errors(text, kwargs, message):
    with pytest.raises(HandError) as e:
        parse_hand(text, **kwargs)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_a_suit_letter_without_a_rank_is_named():
    # a tester's `-w 1zz` was told "'1zz' does not end in a suit letter", which it does
    with pytest.raises(HandError, match="suit letter 'z' in '1zz' has no rank digit before it") as e:
        parse_tiles_at("1zz", 5)
    assert e.value.column == 7
    with pytest.raises(HandError, match="suit letter 'm' in 'm12' has no rank digit"):
        parse_tiles("m12")
    with pytest.raises(HandError, match="'12' does not end in a suit letter"):
        parse_tiles("12")


def test_winning_tile_given_alone_spaces_and_empty():
    # a pasted " 1z " is the tile 1z, as spaces around a hand's notation are dropped; a blank one is refused
    # in words, not as "empty tile group"
    assert parse_winning_tile(" 1z ") == "1z" and parse_winning_tile("5p") == "5p"
    with pytest.raises(HandError, match="winning tile is empty"):
        parse_winning_tile("  ")
    with pytest.raises(HandError, match="unexpected character"):
        parse_winning_tile("1z 2z")


def test_non_winner_with_win_token_names_column():
    with pytest.raises(HandError) as e:
        parse_hand("123m456p789s1z [777p] win:1z", context=Context(winner=False))
    assert "a non-winning hand has no winning tile" in str(e.value) and e.value.column == 23


def test_not_a_string():
    with pytest.raises(HandError, match="must be a string"):
        parse_hand(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs, message", [
    ({"seat_wind": "X"}, "seat wind must be one of E, S, W, N"),
    ({"round_wind": "e"}, "round wind must be one of E, S, W, N"),
    ({"win_by": "air"}, "win by must be one of"),
    ({"dealer_streak": -1}, "dealer streak must be 0 to 99, not -1"),
    ({"discards": -1}, "discards .* must be 0 to 144"),
])
def test_context_errors(kwargs, message):
    with pytest.raises(HandError, match=message):
        Context(**kwargs)


@pytest.mark.parametrize("text, first, second, column", [
    # issue 15 item 13: melds pasted without spaces read as one token ("must look like [777p]")
    ("[5555s]123s789s444s22s", "[5555s]", "123s789s444s22s", 8),
    ("123m456p678p[222z] 11s", "123m456p678p", "[222z]", 13),
    ("123m456p678p(2222z) 11s", "123m456p678p", "(2222z)", 13),
    ("123m456p789s11s+1f", "123m456p789s11s", "+1f", 16),
    ("[222z](3333m) 123m 11s 789p", "[222z]", "(3333m)", 7),
])
def test_tokens_written_together_say_a_space_is_needed(text, first, second, column):
    with pytest.raises(HandError) as e:
        parse_hand(text)
    assert f"tokens need a space between them: {first!r} and {second!r} are written together" in str(e.value)
    assert f"(write {first + ' ' + second!r})" in str(e.value)
    assert e.value.column == column


def test_full_width_notation_as_a_cjk_keyboard_types_it():
    # a tester's １２３m was refused: full-width digits, letters, brackets, colon and space are their ASCII forms
    h = parse_hand("１２３ｍ４５６ｐ７８９ｓ１１ｚ　［７７７Ｐ］ win：１ｚ")
    assert format_hand(h) == format_hand(parse_hand("123m456p789s11z [777p] win:1z"))
    assert parse_winning_tile("５ｐ") == "5p"
    # a wrong tile is still pointed at by its column in what was typed
    with pytest.raises(HandError) as e:
        parse_hand("１２３ｍ４５６ｐ７８９ｓ１１ｘ")
    assert e.value.column == 15


def test_a_ten_is_said_to_be_two_tiles():
    # a tester's -w 10p was told "there is no tile 0p" alone
    with pytest.raises(HandError, match=r"there is no tile 0p \(ranks for 'p' are 1–9; each digit is one tile's rank, "
                                        r"so 10p is read as 1p then 0p\)"):
        parse_winning_tile("10p")


def test_a_meld_with_its_bracket_doubled_is_named():
    # a breaker's "[[777p]]" was told "tokens need a space between them … (write '[[777p] ]')"
    with pytest.raises(HandError, match=r"meld '\[\[777p\]\]' has two brackets: write one, \[777p\] for an exposed "
                                        r"meld \(at column 17\)"):
        parse_hand("123m456p789s11z [[777p]]")
    with pytest.raises(HandError, match=r"or \(7777p\) for a concealed kong"):
        parse_hand("123m456p789s11z ((7777p))")
