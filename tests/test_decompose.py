"""Decomposition: every split, where the winning tile sits, wait types, waits(), shapes."""
from __future__ import annotations

import pytest

from scoring import Context, Meld, decompositions, parse_hand, parse_tiles, standard_splits, waits
from scoring.decompose import (SHAPES, STRUCTURAL, Decomposition, is_standard_complete,
                               register_shape, seven_pairs_counts, shape_partial)
from scoring.tiles import counts34

STD = ("standard",)
NTS_SHAPES = ("standard", "seven-pairs-four-alike", "thirteen-orphans", "irregular")


def kinds(split):
    return sorted((m.kind, m.tile) for m in split)


# ------------------------------------------------------------------------ standard splits
def _naive_splits(tiles: list[str]) -> set[tuple]:
    """Every split into sets + one pair by brute force: remove any meld anywhere, in any order."""
    from functools import lru_cache

    from scoring.tiles import PLAYING_TILES

    @lru_cache(maxsize=None)
    def go(counts: tuple[int, ...], need_pair: bool) -> frozenset:
        if not any(counts):
            return frozenset({()}) if not need_pair else frozenset()
        out = set()
        for i, c in enumerate(counts):
            shapes = [("pung", (i, i, i))]
            if need_pair:
                shapes.append(("pair", (i, i)))
            if i < 27 and i % 9 <= 6:
                shapes.append(("chow", (i, i + 1, i + 2)))
            for kind, idx in shapes:
                cc = list(counts)
                for k in idx:
                    cc[k] -= 1
                if min(cc) < 0:
                    continue
                for rest in go(tuple(cc), need_pair and kind != "pair"):
                    out.add(tuple(sorted(((kind, PLAYING_TILES[i]),) + rest)))
        return frozenset(out)

    return set(go(tuple(counts34(tiles)), True))


@pytest.mark.parametrize("text", [
    "11122233344m",        # three pungs or three chows (+ 11 123 234 234)
    "11123444m",           # 11+123+444 or 111+234+44, each once
    "11123455678999m",     # nine gates + 5m
    "11223344556677m",     # seven pairs that is also standard in several ways
    "22233344455566m",
    "123m456p789s11122z",
    "1112223334445556m",   # not 3n + 2 (16 tiles): no split
])
def test_standard_splits_match_brute_force(text):
    tiles = parse_tiles(text)
    got = [tuple(sorted((m.kind, m.tile) for m in s)) for s in standard_splits(tiles)]
    assert len(got) == len(set(got)), "a split is returned twice"
    assert set(got) == (_naive_splits(tiles) if len(tiles) % 3 == 2 else set())


def test_all_splits_of_triple_run():
    # 111222333m + 44m: three pungs; three chows 123m + 44m; or 11m + 123m + 234m + 234m
    splits = sorted(kinds(s) for s in standard_splits(parse_tiles("11122233344m")))
    assert splits == [
        [("chow", "1m"), ("chow", "1m"), ("chow", "1m"), ("pair", "4m")],
        [("chow", "1m"), ("chow", "2m"), ("chow", "2m"), ("pair", "1m")],
        [("pair", "4m"), ("pung", "1m"), ("pung", "2m"), ("pung", "3m")],
    ]


def test_nine_gates_split():
    # 1112345678999m + 5m: only 111 234 55 678 999
    (split,) = standard_splits(parse_hand("11123455678999m").concealed)
    assert kinds(split) == [("chow", "2m"), ("chow", "6m"), ("pair", "5m"), ("pung", "1m"), ("pung", "9m")]


def test_no_split():
    assert standard_splits(["1m", "2m", "4m", "5m", "5m"]) == []
    assert standard_splits(["1m", "1m", "1m"]) == []  # 3n, not 3n + 2
    assert not is_standard_complete(tuple(counts34(["1m", "2m", "4m", "5m", "5m"])))
    assert is_standard_complete(tuple(counts34(["1m", "2m", "3m", "5m", "5m"])))


def test_honours_never_chow():
    assert standard_splits(["1z", "2z", "3z", "5z", "5z"]) == []


def test_no_chow_across_suits():
    assert standard_splits(["8m", "9m", "1p", "5z", "5z"]) == []


# ---------------------------------------------------------------------- winning tile placement
def test_winning_tile_in_each_meld_that_can_hold_it():
    # 123m 345m 678p 999s 55z, winning 3m: in 123m (edge wait) or in 345m (open wait)
    h = parse_hand("123345m678p999s55z", winning_tile="3m")
    ds = decompositions(h, STD)
    placed = sorted((d.winning_meld.tile, d.wait) for d in ds)
    assert placed == [("1m", "edge"), ("3m", "open")]
    assert all(sum(m.winning for m in d.melds) == 1 for d in ds)


def test_identical_melds_placed_once():
    # 123m 123m: the winning 2m in "either" chow is one reading
    h = parse_hand("112233m678p999s55z", winning_tile="2m")
    ds = decompositions(h, STD)
    assert sorted((d.winning_meld.kind, d.winning_meld.tile) for d in ds) == [("chow", "1m")]


def test_discard_makes_completed_set_exposed():
    # RULINGS principle 6: pung completed by a discard is exposed for points
    h = parse_hand("555p123m678p99s234s", winning_tile="5p")
    (d,) = decompositions(h, STD)
    assert d.winning_meld == Meld("pung", "5p", concealed=False, winning=True)
    h2 = h.with_context(win_by="wall")
    (d2,) = decompositions(h2, STD)
    assert d2.winning_meld.concealed


def test_robbed_kong_counts_as_discard():
    # (won on 3m: a robbed kong's tile is held once, the other three lie in the robbed pung)
    h = parse_hand("555p123m678p99s234s", winning_tile="3m", context=Context(win_by="robbed-kong"))
    (d,) = decompositions(h, STD)
    assert d.winning_meld.tiles == ("1m", "2m", "3m") and not d.winning_meld.concealed


def test_declared_melds_come_first_and_keep_status():
    h = parse_hand("123m456p99s [777p] (5555s)", winning_tile="9s")
    (d,) = decompositions(h, STD)
    assert d.melds[:2] == h.melds
    assert d.describe().startswith("standard: pung exposed 777p, kong concealed 5555s")


B = "456p789s555z11p"  # 11 tiles: two chows, a pung and a pair; three more tiles make 14


@pytest.mark.parametrize("hand, win, wait", [
    ("123m" + B, "3m", "edge"),      # 12m waiting 3m
    ("789m" + B, "7m", "edge"),      # 89m waiting 7m
    ("456m" + B, "5m", "closed"),    # 46m waiting 5m
    ("456m" + B, "4m", "open"),      # 56m waiting 4m (or 7m)
    ("555m456p123789s11p", "5m", "pung"),   # 55m + 11p waiting 5m or 1p
    ("123m" + B, "1p", "pair"),      # single 1p waiting 1p
])
def test_wait_types(hand, win, wait):
    ds = decompositions(parse_hand(hand, winning_tile=win), STD)
    assert [d.wait for d in ds] == [wait]


def test_no_winning_tile_no_wait():
    (d,) = decompositions(parse_hand("123m456p789s555z11p"), STD)
    assert d.wait is None and d.winning_meld is None


# --------------------------------------------------------------------------------- waits()
@pytest.mark.parametrize("hand, win, expected", [
    # closed wait 46m → 5m only
    ("456m" + B, "5m", {"5m"}),
    # open wait 56m → 4m, 7m
    ("456m" + B, "4m", {"4m", "7m"}),
    # shanpon 55m + 11p → 5m, 1p
    ("555m456p123789s11p", "5m", {"5m", "1p"}),
    # nine gates: 1112345678999m waits on every characters tile
    ("11123455678999m", "5m", {f"{r}m" for r in range(1, 10)}),
    # thirteen orphans, 13-sided wait (the hand without its winning tile has all 13 kinds)
    ("19m19p19s11234567z", "1z", {"1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"}),
])
def test_waits(hand, win, expected):
    assert waits(parse_hand(hand, winning_tile=win), NTS_SHAPES) == frozenset(expected)


def test_waits_seven_pairs():
    # six pairs + single 7z: the single only (standard reading impossible)
    h = parse_hand("1133m5577p99s1177z", winning_tile="7z")
    assert waits(h, NTS_SHAPES) == {"7z"}
    assert waits(h, STD) == frozenset()


def test_tile_held_four_times_cannot_be_waited_on():
    # without the winning 4m, 23m waits on 1m or 4m; the four 1m are the kong on the table → 4m only
    h = parse_hand("234m456p999s55z (1111m)", winning_tile="4m")
    assert waits(h, STD) == {"4m"}
    h2 = parse_hand("234m456p999s55z [789m]", winning_tile="4m")
    assert waits(h2, STD) == {"1m", "4m"}


def test_non_winner_waits():
    h = parse_hand("456m456p789s555z1p", context=Context(winner=False))
    assert waits(h, STD) == {"1p"}


def test_waits_irregular_not_structural():
    assert "irregular" not in STRUCTURAL and "standard" in STRUCTURAL


# ------------------------------------------------------------------------------- other shapes
def test_seven_pairs_shape():
    h = parse_hand("1133m5577p99s1122z", winning_tile="2z")
    (d,) = decompositions(h, ("seven-pairs",))
    assert d.shape == "seven-pairs" and len(d.melds) == 7 and d.wait == "pair"
    # four alike is two pairs only under seven-pairs-four-alike
    h4 = parse_hand("1111m5577p99s1122z", winning_tile="2z")
    assert decompositions(h4, ("seven-pairs",)) == []
    (d4,) = decompositions(h4, ("seven-pairs-four-alike",))
    assert d4.shape == "seven-pairs" and [m.tile for m in d4.melds].count("1m") == 2
    assert seven_pairs_counts(counts34(h4.concealed), allow_four=True)
    assert not seven_pairs_counts(counts34(h4.concealed))


def test_seven_pairs_needs_no_melds():
    h = parse_hand("1133m5577p111z [222z]", winning_tile="1z")
    assert decompositions(h, ("seven-pairs",)) == []


def test_thirteen_orphans_shape():
    h = parse_hand("19m19p19s11234567z", winning_tile="5z")
    (d,) = decompositions(h, ("thirteen-orphans",))
    assert d.shape == "thirteen-orphans" and d.wait == "special"
    assert d.melds == (Meld("pair", "1z"),) and len(d.loose) == 12
    (d2,) = decompositions(h.__class__(h.concealed, (), (), "1z", h.context), ("thirteen-orphans",))
    assert d2.wait == "pair"


def test_irregular_keeps_everything_loose():
    h = parse_hand("1234567m1234567z", winning_tile="7z")
    (d,) = decompositions(h, ("irregular",))
    assert d.loose == h.concealed and d.wait == "special"


def test_partial_for_non_winner():
    h = parse_hand("1111m22p345s6z [777p]", context=Context(winner=False))
    (d,) = decompositions(h, NTS_SHAPES)
    assert d.shape == "partial"
    assert [(m.kind, m.tile) for m in d.melds] == [("pung", "7p"), ("pung", "1m"), ("pair", "2p")]
    assert d.loose == ("1m", "3s", "4s", "5s", "6z")
    assert shape_partial(h) == [d]


def test_register_shape():
    def only_red(hand):
        return [Decomposition("only-red", (), hand.concealed)] if set(hand.concealed) == {"7z"} else []

    register_shape("test-only-red", only_red, structural=False)
    try:
        assert SHAPES["test-only-red"] is only_red and "test-only-red" not in STRUCTURAL
    finally:
        del SHAPES["test-only-red"]


def _reference_waits(hand, shapes):
    """waits() by brute force: every tile not held four times, asked to every shape function."""
    from scoring.tiles import PLAYING_TILES, sort_tiles

    base = list(hand.concealed)
    if hand.winning_tile is not None:
        base.remove(hand.winning_tile)
    held = counts34(hand.all_tiles)
    if hand.winning_tile is not None:
        held[PLAYING_TILES.index(hand.winning_tile)] -= 1
    out = set()
    for i, t in enumerate(PLAYING_TILES):
        if held[i] >= 4:
            continue
        trial = hand.__class__(tuple(sort_tiles(base + [t])), hand.melds, hand.bonus, None, hand.context)
        if any(SHAPES[s](trial) for s in shapes if s in STRUCTURAL):
            out.add(t)
    return frozenset(out)


def test_waits_match_brute_force_on_generated_hands():
    import random

    from scoring.generate import random_non_winning_hand, random_winning_hand

    rng = random.Random(7)
    for k in range(400):
        h = random_winning_hand(rng) if k % 2 else random_non_winning_hand(rng)
        assert waits(h, NTS_SHAPES) == _reference_waits(h, NTS_SHAPES), h
        assert waits(h, ("standard", "seven-pairs")) == _reference_waits(h, ("standard", "seven-pairs")), h
    for _ in range(50):
        h = random_winning_hand(rng, size=16)
        assert waits(h, STD) == _reference_waits(h, STD), h


@pytest.mark.parametrize("text", [
    "1112345678999m", "1122334455667m", "19m19p19s1234567z", "19m19p19s1234566z", "1112223334445z",
    "2345678m22p33s44z", "1111m2222p3333s4z",
])
def test_waits_match_brute_force_on_hard_hands(text):
    h = parse_hand(text, context=Context(winner=False))
    for shapes in (NTS_SHAPES, STD, ("seven-pairs",)):
        assert waits(h, shapes) == _reference_waits(h, shapes)


def test_second_wait_is_a_wait_other_than_the_winning_tile():
    """second_wait (the shortcut of "only possible tile", 002:15) names a tile that the brute-force
    waits also give, never the winning tile; and it finds one on every two-sided or pair-to-pung
    reading whose other tile is not held four times (single waits beside a chow too)."""
    import random

    from scoring.decompose import second_wait
    from scoring.generate import random_winning_hand

    rng = random.Random(3)
    shown = 0
    for k in range(600):
        h = random_winning_hand(rng, size=16 if k % 5 == 0 else 13)
        shapes = STD if k % 5 == 0 else NTS_SHAPES
        ref = _reference_waits(h, shapes)
        for d in decompositions(h, shapes):
            t = second_wait(h, shapes, d)
            if t is not None:
                shown += 1
                assert t != h.winning_tile and t in ref and len(ref) >= 2, (h, d)
            elif d.shape == "standard" and d.wait in ("open", "pung"):
                # only when the other tile is held four times (by the hand less its winning tile)
                held = list(h.all_tiles)
                held.remove(h.winning_tile)
                assert any(held.count(x) == 4 for x in set(held)), (h, d)
    assert shown > 200


def test_second_wait_examples():
    from scoring.decompose import second_wait

    # 23m + 4m: two-sided, 1m also completes; 34m + 2m: 5m also; 11p + 55z won on 5z (pair to
    # pung): 1p also
    # 33m + 456m won on 3m (single wait beside a chow from 4m): 6m also; 123m + 44m won on 4m: 1m also
    for text, win, other in [("234m567p789s111z11p", "4m", "1m"), ("234m567p789s111z11p", "2m", "5m"),
                             ("123m456p789s11p555z", "5z", "1p"), ("33456m567p789s111z", "3m", "6m"),
                             ("12344m567p789s111z", "4m", "1m")]:
        h = parse_hand(text, winning_tile=win)
        (d,) = decompositions(h, STD)
        assert second_wait(h, STD, d) == other
        assert other in waits(h, STD)
    # closed wait 4-6 waiting 5: the reading shows no second tile
    h = parse_hand("456m567p789s111z11p", winning_tile="5m")
    (d,) = decompositions(h, STD)
    assert second_wait(h, STD, d) is None
    # 23m + 4m with all four 1m in a kong on the table: 1m cannot be waited on, 4m is the only wait
    h = parse_hand("234m567p789s11p (1111m)", winning_tile="4m")
    (d,) = decompositions(h, STD)
    assert d.wait == "open" and second_wait(h, STD, d) is None and waits(h, STD) == {"4m"}
