"""Structure-aware decoding (vision.decode): planted misclassifications, overrides, failures."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from vision_fixtures import detections, load, readings, truth_notation

from scoring import Context, HandError, format_hand, parse_hand
from vision.classes import CLASS_INDEX
from vision.classify import TileReadings
from vision.decode import _kbest, _Unit, decode, parse_exposed
from vision.layout import layout


def _setup(name="render-s8-3", p_true=0.9):
    meta = load(name)
    det, rd = detections(meta), readings(meta, p_true)
    return meta, det, rd


def _plant(rd: TileReadings, i: int, wrong: str, p_wrong: float, p_true: float) -> TileReadings:
    """Tile i read as ``wrong`` (p_wrong) over its true class (p_true)."""
    P = np.array(rd.probs)
    true = int(P[i].argmax())
    P[i] = (1 - p_wrong - p_true) / 41
    P[i, CLASS_INDEX[wrong]] = p_wrong
    P[i, true] = p_true
    return TileReadings.make(P, rd.pose)


def _index(meta, role, tile):
    return next(i for i, t in enumerate(meta["tiles"]) if t["role"] == role and t["tile"] == tile)


def test_fixes_a_planted_misread_concealed_tile():
    # render-s8-3 (456p55z [222z] [456s] (1111s) +1234f124y win:5z): read the 5p of the concealed
    # 456p run as 6p (0.6) over 5p (0.35). 466p55z is not a hand; 456p55z is, so 5p is chosen.
    meta, det, rd = _setup()
    i = _index(meta, "concealed", "5p")
    bad = _plant(rd, i, "6p", 0.6, 0.35)
    assert bad.codes[i] == "6p"
    r = decode(layout(det, bad, (meta["width"], meta["height"])), bad, "nts")
    assert r.legal and format_hand(r.hand) == format_hand(parse_hand(truth_notation(meta)))
    assert r.changed == (i,) and r.tiles[i] == "5p" and r.raw[i] == "6p"
    assert r.relative == pytest.approx(0.35 / 0.6, rel=1e-3)  # the one changed tile's odds


def test_fixes_a_planted_misread_in_an_exposed_chow():
    # the exposed chow [456s]: 6s read as 9s (0.7) over 6s (0.2); 459s is no meld, 456s is
    meta, det, rd = _setup()
    i = _index(meta, "exposed", "6s")
    bad = _plant(rd, i, "9s", 0.7, 0.2)
    r = decode(layout(det, bad, (meta["width"], meta["height"])), bad, "nts")
    assert r.legal and "[456s]" in r.notation and r.changed == (i,)


def test_tile_counts_limit_the_reading():
    # a fifth 1s is impossible (concealed kong of 1s on the table): a concealed 5p read as 1s
    # (0.55) over 5p (0.4) must come back as 5p
    meta, det, rd = _setup()
    i = _index(meta, "concealed", "5p")
    bad = _plant(rd, i, "1s", 0.55, 0.4)
    r = decode(layout(det, bad, (meta["width"], meta["height"])), bad, "nts")
    assert r.legal and r.tiles[i] == "5p"


def test_implausible_change_returns_the_raw_reading():
    # the misread tile's true class is far below the threshold: no legal reading is plausible
    meta, det, rd = _setup()
    i = _index(meta, "concealed", "5p")
    bad = _plant(rd, i, "9m", 0.999, 0.0001)
    r = decode(layout(det, bad, (meta["width"], meta["height"])), bad, "nts")
    assert not r.legal and r.hand is None and "9m" in r.notation and r.problem


def test_missing_tile_is_reported_by_count():
    meta, det, rd = _setup("render-s7-12")
    keep = np.array([not (t["role"] == "concealed" and k == 0) for k, t in enumerate(meta["tiles"])])
    first = next(k for k, t in enumerate(meta["tiles"]) if t["role"] == "concealed")
    keep[:] = True
    keep[first] = False
    det2, rd2 = det.take(keep), rd.take(keep)
    r = decode(layout(det2, rd2, (meta["width"], meta["height"])), rd2, "nts")
    assert not r.legal and "13 tiles" in r.problem and "14" in r.problem


def test_winning_tile_override():
    meta, det, rd = _setup("render-s7-12")  # 34555s333555777z win:3z, the 3z laid sideways
    lay = layout(det, rd, (meta["width"], meta["height"]))
    r = decode(lay, rd, "nts", winning_tile="3z")
    assert r.hand.winning_tile == "3z"
    with pytest.raises(HandError):
        decode(lay, rd, "nts", winning_tile="9x")


def test_exposed_override_names_the_melds():
    # render-s7-12 is all concealed; say the 555z pung is exposed
    meta, det, rd = _setup("render-s7-12")
    lay = layout(det, rd, (meta["width"], meta["height"]))
    r = decode(lay, rd, "nts", exposed="[555z]")
    assert r.legal and "[555z]" in r.notation and r.notation.count("5z") == 1
    # and a meld that is not in the photo at all is added to the hand
    meta2, det2, rd2 = _setup("render-s8-3")
    lay2 = layout(det2, rd2, (meta2["width"], meta2["height"]))
    r2 = decode(lay2, rd2, "nts", exposed="[222z] [456s] (1111s)")
    assert r2.legal and format_hand(r2.hand) == format_hand(parse_hand(truth_notation(meta2)))


def test_parse_exposed_errors():
    assert [g.kind for g in parse_exposed("[777p] [1111s] (2222m) [345m]")] == ["pung", "kong", "kong", "chow"]
    for bad in ("777p", "[778p]", "(777p)", "[77p"):
        with pytest.raises(HandError):
            parse_exposed(bad)


def test_non_winner_reads_13_tiles():
    meta, det, rd = _setup("render-s7-12")
    win = next(k for k, t in enumerate(meta["tiles"]) if t["role"] == "winning")
    keep = np.ones(len(meta["tiles"]), bool)
    keep[win] = False
    det2, rd2 = det.take(keep), rd.take(keep)
    ctx = Context(winner=False)
    r = decode(layout(det2, rd2, (meta["width"], meta["height"]), winner=False), rd2, "nts", ctx)
    assert r.legal and r.hand.winning_tile is None and len(r.hand.concealed) == 13


def test_confidence_reflects_ambiguity():
    # a tile equally likely 5p or 2p where both give a legal hand → confidence about one half
    meta, det, rd = _setup("render-s7-27")  # seven pairs 22556677m88p77s44z
    i = _index(meta, "concealed", "8p")
    j = [k for k, t in enumerate(meta["tiles"]) if t["tile"] == "8p" and k != i]
    # both 8p tiles read 50/50 as 8p or 1p: 88p and 11p are both pairs
    P = np.array(rd.probs)
    for k in [i] + j:
        P[k] = 0.0
        P[k, CLASS_INDEX["8p"]] = 0.5
        P[k, CLASS_INDEX["1p"]] = 0.5
    rd2 = TileReadings.make(P, rd.pose)
    r = decode(layout(det, rd2, (meta["width"], meta["height"])), rd2, "nts")
    assert r.legal and 0.4 < r.confidence < 0.6


def test_kbest_enumerates_in_decreasing_order():
    rng = np.random.default_rng(1)
    units = []
    for _ in range(4):
        lp = sorted(np.log(rng.dirichlet(np.ones(4))), reverse=True)
        units.append(_Unit("tile", (0,), [(float(v), k, (k,)) for k, v in enumerate(lp)]))
    got = list(_kbest(units))
    brute = sorted((sum(u.cands[k][0] for u, k in zip(units, idx)), idx)
                   for idx in itertools.product(range(4), repeat=4))
    assert len(got) == 4 ** 4 and len({g[1] for g in got}) == 4 ** 4
    assert all(a[0] >= b[0] - 1e-12 for a, b in zip(got, got[1:]))
    assert math.isclose(got[0][0], brute[-1][0])


def test_winning_tile_override_never_rewrites_a_tile():
    # render-s7-12: 34555s333555777z with the 3z laid sideways. Saying the winning tile is 5z
    # makes 5z the winning tile; the sideways 3z stays a 3z. A winning tile the hand lacks is refused.
    meta, det, rd = _setup("render-s7-12")
    lay = layout(det, rd, (meta["width"], meta["height"]))
    r = decode(lay, rd, "nts", winning_tile="5z")
    assert r.legal and r.hand.winning_tile == "5z" and r.changed == ()
    assert format_hand(r.hand, with_winning_tile=False) == "34555s333555777z"
    r2 = decode(lay, rd, "nts", winning_tile="9m")
    assert not r2.legal


def test_raw_reading_with_a_broken_meld_still_prints():
    # the exposed chow [456s] read as 4s 9s 6s with certainty: no legal reading; the raw reading's
    # meld is written as read, [469s]
    meta, det, rd = _setup()
    i = _index(meta, "exposed", "5s")
    P = np.array(rd.probs)
    P[i] = 0.0
    P[i, CLASS_INDEX["9s"]] = 1.0
    bad = TileReadings.make(P, rd.pose)
    r = decode(layout(det, bad, (meta["width"], meta["height"])), bad, "nts")
    assert not r.legal and "[469s]" in r.notation
    assert any(m.notation() == "[469s]" for m in r.melds)


def test_exposed_none_reads_every_group_as_concealed():
    # `--exposed none`: nothing on the table. render-s7-12 (all concealed, 34555s333555777z) reads as
    # without it; render-s8-3 shows [222z] [456s] (1111s) on the table, so with "none" its concealed
    # tiles (456p55z) plus the meld groups read as concealed tiles (face-down ones left out) are no
    # legal 14-tile hand — not legal, and the problem names --exposed
    meta, det, rd = _setup("render-s7-12")
    lay = layout(det, rd, (meta["width"], meta["height"]))
    assert format_hand(decode(lay, rd, "nts", exposed="none").hand) == format_hand(decode(lay, rd, "nts").hand)
    meta2, det2, rd2 = _setup("render-s8-3")
    lay2 = layout(det2, rd2, (meta2["width"], meta2["height"]))
    assert decode(lay2, rd2, "nts").legal
    r2 = decode(lay2, rd2, "nts", exposed="none")
    assert not r2.legal and "--exposed" in r2.problem


def test_a_named_meld_is_matched_in_the_hand_before_a_far_group():
    # a new user's trial: a meld named with --exposed was matched to another group far from the hand
    # (wall tiles, another player's meld) that read more like it, and the hand's own meld was then read
    # as concealed tiles. The match now weighs the group's prior of being in the hand (GIVEN_OFF_HAND
    # for a group with no hand role). render-s8-3: 456p55z [222z] [456s] (1111s) +1234f124y win:5z;
    # its 222z read 2z at only 0.6, and three more boxes far away, ignored by the layout, read 2z at 0.99
    from dataclasses import replace

    from vision.layout import GroupRoles, Option

    meta, det, rd = _setup("render-s8-3")
    lay = layout(det, rd, (meta["width"], meta["height"]))
    pung = [i for i, t in enumerate(meta["tiles"]) if t["role"] == "exposed" and t["tile"] == "2z"]
    assert len(pung) == 3
    for i in pung:
        rd = _plant(rd, i, "3z", 0.3, 0.6)
    n = len(rd.probs)
    far = np.full((3, rd.probs.shape[1]), 0.01 / 42, np.float32)
    far[:, CLASS_INDEX["2z"]] = 0.99
    rd2 = TileReadings.make(np.vstack([rd.probs, far]), tuple(rd.pose) + ("upright",) * 3)
    lay2 = replace(lay, groups=lay.groups + (GroupRoles((n, n + 1, n + 2), 9, (Option("ignored", 1.0),)),))
    r = decode(lay2, rd2, "nts", exposed="[222z] [456s] (1111s)")
    assert r.legal and format_hand(r.hand) == format_hand(parse_hand(truth_notation(meta)))
    assert all(r.roles[i] == "exposed" for i in pung) and all(r.roles[i] == "ignored" for i in (n, n + 1, n + 2))


def test_a_count_at_best_names_no_other_games_hand_size():
    # a new user's trial: a whole-table render read a wall region "found 16 tiles in the hand at best (33
    # as shown …)" and was told "16 tiles is a 16-tile game's hand … is it the right ruleset?"; under
    # hk-tw-16 it only failed again. The other game's size is named only when the tiles shown are that
    # many; a count over the hand's says how to leave boxes out. render-s7-12's row of 14 with two more
    # boxes put in it (16, no way to leave them out), and its two groups of 6 that the layout offers as
    # concealed tiles (0.65, 0.6) or loose: 28 as shown, 16 at best
    from dataclasses import replace

    from vision.layout import GroupRoles

    meta, det, rd = _setup("render-s7-12")
    lay = layout(det, rd, (meta["width"], meta["height"]))
    main = next(g for g in lay.groups if g.row == 0)
    extra = next(g for g in lay.groups if len(g.tiles) == 3)
    assert len(main.tiles) == 14 and all(o.role == "ignored" for o in extra.options)
    groups = tuple(GroupRoles(main.tiles + extra.tiles[:2], 0, main.options) if g is main else g
                   for g in lay.groups if g is not extra)
    r = decode(replace(lay, groups=groups), rd, "nts")
    assert not r.legal and r.problem.startswith("found 16 tiles in the hand at best (28 as shown"), r.problem
    assert "16-tile game" not in r.problem and "--fix POS=-" in r.problem


def test_groups_left_out_for_one_reason_share_one_note():
    # a new user's busy photo printed one "ignored: outside the main row (tile N)" note per group left out,
    # five lines of them; the groups left out for one reason now share a note, at the first one's place.
    # render-s7-12 (34555s333555777z, all concealed): its layout has the row of 14 (tiles 1-14) and three
    # groups off it, all left out of the reading: tiles 15-17 (three face-down tiles: "a group with face-down
    # tiles, not a kong"; it had said "face-down tiles that are not a kong", of a group where one tile of three
    # was face-down, a new user's), 18-23 ("outside the main row") and 24-29 (six tiles, one called face-down:
    # the same reason again). The old code said the first reason twice: (tiles 15-17) and
    # (tiles 24-29), with the other reason's note between them
    from dataclasses import replace

    meta, det, rd = _setup("render-s7-12")
    lay = layout(det, rd, (meta["width"], meta["height"]))
    num = {p: k + 1 for k, p in enumerate(lay.geometry.order)}
    r = decode(lay, rd, "nts")
    assert sorted(num[p] for p, role in enumerate(r.roles) if role == "ignored") == list(range(15, 30))
    ignored = [n for n in r.notes if n.startswith("ignored: ")]
    assert ignored == ["ignored: a group with face-down tiles, not a kong (tiles 15-17, 24-29)",
                       "ignored: outside the main row (tiles 18-23)"], r.notes
    # without the group of tiles 24-29, each reason has one group, said as before
    one = replace(lay, groups=tuple(g for g in lay.groups if min(num[p] for p in g.tiles) != 24))
    assert [n for n in decode(one, rd, "nts").notes if n.startswith("ignored: ")] == [
        "ignored: a group with face-down tiles, not a kong (tiles 15-17)", "ignored: outside the main row (tiles 18-23)"]


def test_a_tile_read_as_a_flower_may_be_the_1s_as_much_as_its_likeliest_playing_tile():
    # a concealed tile the classifier reads as a flower/season (under 50 % a playing tile) may be any playing
    # tile; the one drawn as a picture, the 1s's bird, is read as a flower with next to nothing on the 1s (the
    # real-crop composites of seeds 0 and 1 read at their true boxes: 20 of the 26 such tiles were 1s, 2 of them
    # with the 1s likeliest among the playing tiles). So the 1s is a candidate with BIRD_SHARE (1) × the likeliest
    # playing tile's probability added: a 1s read 1f at 0.60, 7z 0.10 and 1s 0.01 has 1s at 0.01 + 1 × 0.10 =
    # 0.11, then 7z at 0.10, for the hand's structure to choose; a calligraphic South read 3f with 2z at 0.16 has
    # its 2z next to the 1s (0.16 + the 1s's own share of the rest). A tile read as a back, or as a playing tile,
    # keeps its own reading
    from vision.classes import NUM_CLASSES
    from vision.decode import BIRD_SHARE, _tile_unit

    def unit(**probs):
        p = np.zeros(NUM_CLASSES, np.float64)
        for k, v in probs.items():
            p[CLASS_INDEX[k.lstrip("_")]] = v
        rest = [c for c in range(34) if p[c] == 0]
        p[rest] = (1 - p.sum()) / len(rest)
        return _tile_unit(np.log(p)[None], 0)

    assert BIRD_SHARE == 1.0
    u = unit(_1f=0.60, _3y=0.05, _7z=0.10, _1s=0.01)
    assert [c[1] for c in u.cands[:2]] == [CLASS_INDEX["1s"], CLASS_INDEX["7z"]]
    assert math.exp(u.cands[0][0]) == pytest.approx(0.01 + 0.10) and math.exp(u.cands[1][0]) == pytest.approx(0.10)
    assert len(u.cands) == 34 and all(c[1] < 34 for c in u.cands)
    u = unit(_3f=0.60, _2z=0.16)
    assert [c[1] for c in u.cands[:2]] == [CLASS_INDEX["1s"], CLASS_INDEX["2z"]]
    assert math.exp(u.cands[0][0]) / math.exp(u.cands[1][0]) < 1.05  # (about as likely)
    u = unit(_0x=0.60, _7z=0.10, _1s=0.01)  # (a back: no bird)
    assert [c[1] for c in u.cands[:2]] == [CLASS_INDEX["7z"], CLASS_INDEX["1s"]] and u.cands[1][0] < math.log(0.02)
    assert unit(_4s=0.70).cands[0][1] == CLASS_INDEX["4s"]


def test_another_games_hand_size_names_the_boxes_left_out_in_the_hands_rows():
    # a phone tester's 16-tile hk-tw-16 hand, its concealed kong's three boxes and a 1s left out, was read as 14
    # tiles and asked only "is it the right ruleset?": the boxes left out in the hand's rows are named as the other
    # way the count falls short (17 is hk-tw-16's winning count, 004; 14 a 13-tile game's)
    from scoring import load_ruleset
    from vision.decode import _other_size_hint

    hk, nts = load_ruleset("hk-tw-16"), load_ruleset("nts")
    said = _other_size_hint(14, hk, [11, 7, 8, 9])
    assert said.startswith("; 14 tiles is a 13-tile game's hand with its winning tile, and hk-tw-16 plays 16-tile "
                           "hands: is it the right ruleset?"), said
    assert said.endswith("; if it is, check the boxes left out in the hand's rows (tiles 7-9, 11): some may be the "
                         "hand's, misread or beside a face-down tile not boxed"), said
    assert "left out" not in _other_size_hint(14, hk)
    # a 16-tile game's 17 under nts is over its 14: boxes left out cannot make up a shortfall
    assert "left out" not in _other_size_hint(17, nts, [3])
