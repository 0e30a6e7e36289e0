"""Grouping (vision.layout) and decoding on rendered layouts with known structure.

Fixtures are the ground-truth meta JSON of renders by ``python -m datasets.synth`` (tests/vision_layouts):
boxes, what each tile shows and its role. The classifier is simulated by giving each tile its true
class with probability 0.9, so these tests measure the geometry: rows, groups, roles, distractors.
"""
from __future__ import annotations

import numpy as np
import pytest
from vision_fixtures import (boxes_of, detections, keystone, load, readings, rotation, transform_boxes,
                             truth_notation)

from scoring import format_hand, parse_hand
from vision.decode import decode
from vision.layout import find_geometry, layout

FIXTURES = {
    # name: what it exercises
    "render-s7-20": "standing concealed row of 2, sideways winning tile, 4 melds in a line incl. a concealed kong, 17 distractors",
    "render-s8-3": "concealed kong with two face-down tiles, exposed pung and chow, 7 bonus tiles, sideways winning tile",
    "render-s8-31": "two concealed kongs, a bonus tile, sideways winning tile",
    "render-s7-12": "14-tile concealed hand, sideways winning tile, 15 distractor tiles (walls, discards)",
    "render-s8-46": "thirteen orphans with a sideways winning tile",
    "render-s7-27": "seven pairs with a sideways winning tile",
}


def _decode(meta, boxes=None):
    det = detections(meta, boxes)
    rd = readings(meta)
    lay = layout(det, rd, (meta["width"], meta["height"]))
    return lay, decode(lay, rd, "nts")


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_rendered_hand_is_read_exactly(name):
    meta = load(name)
    lay, r = _decode(meta)
    want = parse_hand(truth_notation(meta))
    assert r.legal, r.problem
    assert format_hand(r.hand) == format_hand(want), FIXTURES[name]
    # every distractor is ignored, every hand tile is used
    for i, t in enumerate(meta["tiles"]):
        assert (r.roles[i] == "ignored") == (t["role"] == "distractor"), (i, t["tile"], t["role"], r.roles[i])


@pytest.mark.parametrize("name", ["render-s7-20", "render-s8-3", "render-s8-31"])
def test_concealed_kong_with_backs(name):
    meta = load(name)
    _, r = _decode(meta)
    kongs = [m for m in r.melds if m.concealed]
    truth = [m for m in meta["melds"] if m["concealed"]]
    assert len(kongs) == len(truth) >= 1
    for k in kongs:
        shown = [meta["tiles"][i]["tile"] for i in k.positions]
        assert shown.count("0x") == 2 and set(shown) - {"0x"} == {k.tile}
        assert all(r.roles[i] == "concealed-kong" for i in k.positions)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_sideways_winning_tile_found(name):
    meta = load(name)
    _, r = _decode(meta)
    truth = [i for i, t in enumerate(meta["tiles"]) if t["role"] == "winning"]
    assert [i for i, role in enumerate(r.roles) if role == "winning"] == truth
    assert meta["tiles"][truth[0]]["pose"] == "sideways"


def test_groups_follow_gaps():
    # render-s8-3: melds are separated from each other by gaps; each meld is one group
    meta = load("render-s8-3")
    geo = find_geometry(detections(meta), (meta["width"], meta["height"]))
    by_gt = {}
    for i, t in enumerate(meta["tiles"]):
        if t["role"] == "exposed":
            by_gt.setdefault(t["group"], set()).add(i)
    mine = [set(g.tiles) for g in geo.groups]
    for tiles in by_gt.values():
        assert tiles in mine


def test_main_row_and_numbering_start_with_the_hand():
    meta = load("render-s7-12")
    geo = find_geometry(detections(meta), (meta["width"], meta["height"]))
    hand = {i for i, t in enumerate(meta["tiles"]) if t["role"] != "distractor"}
    assert set(geo.order[:len(hand)]) == hand  # tiles 1..14 are the hand, distractors after
    assert hand <= set(geo.hand_tiles)


@pytest.mark.parametrize("deg", [-15, -6, 8, 14])
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_tilted_photo(name, deg):
    meta = load(name)
    H = rotation(deg, meta["width"] / 2, meta["height"] / 2)
    _, r = _decode(meta, transform_boxes(boxes_of(meta), H))
    assert r.legal and format_hand(r.hand) == format_hand(parse_hand(truth_notation(meta)))


@pytest.mark.parametrize("name", ["render-s7-20", "render-s8-3", "render-s8-31", "render-s7-12"])
def test_perspective_photo(name):
    meta = load(name)
    _, r = _decode(meta, transform_boxes(boxes_of(meta), keystone(meta["width"], meta["height"], 0.15)))
    assert r.legal and format_hand(r.hand) == format_hand(parse_hand(truth_notation(meta)))


def test_non_winner_has_no_winning_tile():
    meta = load("render-s7-12")
    det, rd = detections(meta), readings(meta)
    lay = layout(det, rd, (meta["width"], meta["height"]), winner=False)
    assert all(o.winning is None and o.role != "winning" for g in lay.groups for o in g.options)


def test_empty_detections():
    from vision.detect import Detections

    geo = find_geometry(Detections.make(np.zeros((0, 4))), (640, 480))
    assert geo.groups == () and geo.order == ()


def test_demo_photo_layout_from_its_ground_truth():
    # docs/demo.json holds the render's tile boxes: concealed row with the plum flower set apart at its
    # left and the winning 8p sideways at its right; [777s] and (2222m) in front
    import json

    from vision.pipeline import DEMO_TRUTH

    meta = json.loads(DEMO_TRUTH.read_text())
    _, r = _decode(meta)
    assert r.legal and format_hand(r.hand) == format_hand(parse_hand(meta["notation"]))


@pytest.mark.parametrize("name", ["render-s8-3", "render-s7-12", "render-s8-31"])
def test_photo_taken_from_the_side(name):
    # rows running up the photo (turned 90° counter-clockwise, no EXIF): read turned back
    meta = load(name)
    W, H = meta["width"], meta["height"]
    b = boxes_of(meta)
    turned = np.stack([b[:, 1], W - b[:, 2], b[:, 3], W - b[:, 0]], 1)  # (x, y) → (y, W − x)
    det = detections(meta, turned)
    rd = readings(meta)
    geo = find_geometry(det, (H, W))
    assert geo.turned
    r = decode(layout(det, rd, (H, W)), rd, "nts")
    assert r.legal and format_hand(r.hand) == format_hand(parse_hand(truth_notation(meta)))


# ---------------------------------------------------------------- bonus tiles in touching columns


def _columns_geo(boxes, codes, groups, hand_rows, dist, off, sideways=None):
    """A hand-made geometry (one row per group) and one-hot readings of ``codes`` for assign_roles."""
    from vision.classes import CLASS_INDEX, NUM_CLASSES
    from vision.classify import TileReadings
    from vision.detect import Detections
    from vision.layout import Geometry, Group

    n = len(boxes)
    probs = np.full((n, NUM_CLASSES), 1e-4)
    for k, c in enumerate(codes):
        probs[k, CLASS_INDEX[c]] = 1.0
    probs /= probs.sum(1, keepdims=True)
    gs = tuple(Group(tuple(g), r) for r, g in enumerate(groups))
    geo = Geometry(0.0, gs, tuple((r,) for r in range(len(gs))), 0, tuple(hand_rows), tuple(range(n)),
                   tuple(sideways or (False,) * n), (False,) * n, 30.0, 40.0, False, tuple(dist), tuple(off))
    return geo, Detections.make(boxes), TileReadings.make(probs)


def test_touching_flowers_join_across_groups_that_two_merges_share():
    # reviewer's case: a hand row off the main row holds two flowers 0.4 tile apart (one group, not
    # touching each other); a column below each touches it. The second merge takes in the first one's
    # group: it used to look the first group up after it was gone (KeyError, the whole read failed)
    from vision.layout import assign_roles

    boxes = [[100 + i * 30, 300, 130 + i * 30, 340] for i in range(14)]
    boxes += [[200, 380, 230, 420], [242, 380, 272, 420], [200, 422, 230, 462], [200, 464, 230, 504],
              [242, 422, 272, 462], [200, 506, 230, 546]]
    codes = ["1m"] * 14 + ["1f", "2f", "3f", "4f", "1y", "5m"]
    geo, det, rd = _columns_geo(boxes, codes, [range(14), (14, 15), (16,), (17,), (18,), (19,)], (0, 1),
                                [0.0] * 14 + [0.5, 0.5, 2.0, 3.0, 2.0, 4.0], [0.0] * 14 + [1.5, 1.5, 2.5, 3.5, 2.5, 4.5])
    lay = assign_roles(geo, det, rd)
    assert set(lay.bonus) == {14, 15, 16, 17, 18}
    assert 19 in lay.ignored  # the 5m touching the column is read 5m for sure: not a misread flower


def test_a_winning_tile_laid_beside_a_bonus_column_keeps_its_roles():
    # a 9p laid sideways past the row's end, touching a column of four flowers: it is still offered as
    # the winning tile (it used to be offered only as a misread bonus tile or ignored)
    from vision.layout import assign_roles

    boxes = [[100 + i * 30, 300, 130 + i * 30, 340] for i in range(13)] + [[535, 305, 575, 335]]
    boxes += [[577, 250 + r * 32, 617, 280 + r * 32] for r in range(4)]
    codes = ["1m"] * 13 + ["9p", "1f", "2f", "3f", "4f"]
    geo, det, rd = _columns_geo(boxes, codes, [range(13), (13,), (14,), (15,), (16,), (17,)], range(6),
                                [0.0] * 13 + [1.5, 2.0, 2.0, 2.0, 2.5], [0.0] * 13 + [0.0, -1.2, -0.4, 0.4, 1.2],
                                (False,) * 13 + (True,) * 5)
    lay = assign_roles(geo, det, rd)
    assert set(lay.bonus) == {14, 15, 16, 17}
    (g,) = [g for g in lay.groups if 13 in g.tiles]
    assert g.options[0].role == "winning" and g.options[0].winning == 13


def _split_row_geo(boxes, codes, groups, rows, dist, off):
    """A hand-made geometry whose rows hold the groups ``rows`` (group indices per row; the first is the
    main row) and one-hot readings of ``codes``, for assign_roles."""
    from vision.layout import Geometry, Group

    geo, det, rd = _columns_geo(boxes, codes, groups, (0,), dist, off)
    row_of = {g: r for r, gs in enumerate(rows) for g in gs}
    gs = tuple(Group(tuple(g), row_of[i]) for i, g in enumerate(groups))
    geo = Geometry(0.0, gs, tuple(tuple(r) for r in rows), 0, tuple(range(len(rows))), geo.order, geo.sideways,
                   geo.displaced, 30.0, 40.0, False, tuple(dist), tuple(off))
    return geo, det, rd


def test_a_flower_ending_a_run_of_other_things_is_not_the_hands():
    # a held-out composite (columns seed 0, #15): a row of six keycaps in front of the hand, the last
    # one "4 P" read 4f, split from the other five by a gap 1.23× their spacing (GROUP_SPLIT 1.22): it was
    # a group of its own, all flowers, and counted as the hand's bonus tile. Touching a run of five
    # things, two read as seasons and three as other tiles, it is among them, as it would be inside
    # their group
    from vision.layout import assign_roles

    boxes = [[100 + i * 30, 300, 130 + i * 30, 340] for i in range(14)]
    boxes += [[200 + i * 30, 380, 230 + i * 30, 420] for i in range(5)] + [[352, 380, 382, 420]]
    codes = ["1m"] * 14 + ["4y", "2p", "2y", "4z", "2p", "4f"]
    groups = [range(14), range(14, 19), (19,)]
    dist, off = [0.0] * 14 + [0.5] * 6, [0.0] * 14 + [1.5] * 6
    lay = assign_roles(*_split_row_geo(boxes, codes, groups, [(0,), (1, 2)], dist, off))
    assert 19 in lay.ignored and 19 not in lay.bonus
    # the same flower after a pung laid in front of the row (a meld of 3, no run of other things) keeps
    # its own group and is the hand's
    codes = ["1m"] * 14 + ["2p", "2p", "2p", "4f"]
    boxes = boxes[:14] + boxes[14:17] + [[292, 380, 322, 420]]
    groups = [range(14), range(14, 17), (17,)]
    lay = assign_roles(*_split_row_geo(boxes, codes, groups, [(0,), (1, 2)], dist[:18], off[:18]))
    assert lay.bonus == (17,)
    # ... and after two exposed pungs touching each other, a group of 6 that makes melds (a reviewer's: it had been
    # taken as a run of other things, the flower lost)
    codes = ["1m"] * 14 + ["2p"] * 3 + ["5s"] * 3 + ["4f"]
    boxes = boxes[:14] + [[200 + i * 30, 380, 230 + i * 30, 420] for i in range(6)] + [[382, 380, 412, 420]]
    groups = [range(14), range(14, 20), (20,)]
    lay = assign_roles(*_split_row_geo(boxes, codes, groups, [(0,), (1, 2)], [0.0] * 14 + [0.5] * 7,
                                       [0.0] * 14 + [1.5] * 7))
    assert lay.bonus == (20,)
