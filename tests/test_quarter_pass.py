"""The detector's quarter-turned pass (vision.detect.QuarterAddedDetector, unturn_quarter): tiles lying
sideways, which the upright pass misses or boxes two as one, boxed in the photo turned a quarter."""
from __future__ import annotations

import numpy as np
import pytest

from vision.detect import QUARTER_TURNS, Detections, QuarterAddedDetector, unturn_quarter

#: the stand-in detectors below answer every turned image alike: one turn (counter-clockwise) is read
ONE_TURN = (1,)


def test_a_box_of_the_turned_image_maps_back_onto_the_same_pixels():
    img = np.zeros((100, 200), np.uint8)
    img[20:60, 40:100] = 255  # rows 20–59, columns 40–99: the box (40, 20, 100, 60), x1 and y1 exclusive
    turned = np.rot90(img, 1)
    ys, xs = np.nonzero(turned)
    box = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
    assert box == [20, 100, 60, 160]  # (y0, W − x1, y1, W − x0)
    assert np.allclose(unturn_quarter([box], (200, 100)), [[40, 20, 100, 60]])


def test_a_box_of_the_image_turned_clockwise_maps_back_onto_the_same_pixels():
    img = np.zeros((100, 200), np.uint8)
    img[20:60, 40:100] = 255
    turned = np.rot90(img, 3)  # (clockwise: 200 rows, 100 columns)
    ys, xs = np.nonzero(turned)
    box = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
    assert box == [40, 40, 80, 100]  # (H − y1, x0, H − y0, x1)
    assert np.allclose(unturn_quarter([box], (200, 100), 3), [[40, 20, 100, 60]])
    with pytest.raises(ValueError, match="k must be 1 or 3"):
        unturn_quarter([box], (200, 100), 2)


def test_both_quarter_turns_are_read_and_a_tile_only_the_clockwise_one_boxes_is_added():
    # a detector trained on standing tiles boxes a tile lying sideways in one turn of the photo and not in the
    # other (a columns composite's four bonus tiles on a checked cloth: none boxed turned counter-clockwise,
    # three at 0.39–0.62 turned clockwise): both turns are read, and a box is mapped back by its own turn
    assert QUARTER_TURNS == (1, 3)
    photo = np.zeros((100, 200, 3), np.uint8)
    photo[0, 0] = 1  # (a mark: rot90 k=1 puts it in the last row, k=3 in the last column)
    standing = [[x, 70, x + 10, 95] for x in range(0, 200, 20)]
    upright = Detections.make(standing, [0.9] * 10)
    lying = [40, 20, 100, 60]  # (60 × 40 in the photo) → (40, 40, 80, 100) in the photo turned clockwise
    calls = []

    def det(image, *a):
        if image.shape[:2] == (100, 200):
            calls.append("upright")
            return upright
        k = 1 if image[-1, 0, 0] else 3
        calls.append(k)
        return Detections.make([[40, 40, 80, 100]], [0.7]) if k == 3 else Detections.make(np.zeros((0, 4)))

    d = QuarterAddedDetector(det, det)(photo)
    assert calls == ["upright", 1, 3]
    assert len(d) == 11 and np.allclose(d.boxes[-1], lying) and np.isclose(d.scores[-1], 0.7)
    # read counter-clockwise only, the tile is not boxed
    calls.clear()
    assert np.array_equal(QuarterAddedDetector(det, det, ONE_TURN)(photo).boxes, upright.boxes)
    assert calls == ["upright", 1]
    # boxed in both turns, offset: the boxes of one turn only are taken, the turn that boxes the sideways tiles
    # with the most score in all (mixed, both turns' offset boxes of one column had made more boxes than tiles)
    other = [100, 20, 160, 60]  # (a second tile lying sideways, boxed counter-clockwise only)

    def both(image, *a, ccw=(0.6, 0.5), cw=0.8):
        if image.shape[:2] == (100, 200):
            return upright
        if image[-1, 0, 0]:
            return Detections.make(_turned([lying, other]), list(ccw))
        return Detections.make([[41, 40, 80, 101]], [cw])

    d = QuarterAddedDetector(both, both)(photo)  # (counter-clockwise: 0.6 + 0.5 in all, over 0.8)
    assert len(d) == 12 and np.allclose(d.boxes[10:], [lying, other]) and np.allclose(d.scores[10:], [0.6, 0.5])
    # (the score in all counts the boxes kept only: 0.39 is under QUARTER_CONF, so 0.45 against 0.8, not 0.84)
    d = QuarterAddedDetector(lambda im, *a: both(im, ccw=(0.45, 0.39)), lambda im, *a: both(im, ccw=(0.45, 0.39)))(photo)
    assert len(d) == 11 and np.allclose(d.boxes[-1], [40, 20, 101, 59]) and np.isclose(d.scores[-1], 0.8)


class _ByShape:
    """A stand-in detector: ``upright`` for an image of the photo's shape, ``turned`` for one turned a
    quarter (its width and height swapped)."""

    imgsz = 64

    def __init__(self, shape, upright: Detections, turned: Detections):
        self.shape, self.upright, self.turned = shape, upright, turned
        self.calls: list[tuple[int, int]] = []

    def __call__(self, image, conf=0.25, iou=0.4):
        self.calls.append(image.shape[:2])
        return self.upright if image.shape[:2] == self.shape else self.turned


def _turned(boxes, W=200):
    """Photo boxes (W = 200 px wide) → the same boxes in the photo turned a quarter counter-clockwise."""
    b = np.asarray(boxes, float)
    return np.c_[b[:, 1], W - b[:, 2], b[:, 3], W - b[:, 0]]


def test_two_sideways_tiles_boxed_as_one_are_split_and_a_missed_one_added():
    photo = np.zeros((100, 200, 3), np.uint8)
    # upright pass: four standing tiles and one box over two touching sideways tiles (40–160, 60 × 40 each)
    standing = [[10, 20, 30, 60], [170, 10, 185, 40], [185, 10, 200, 40], [170, 60, 185, 90]]
    upright = Detections.make(standing + [[40, 20, 160, 60]], [0.9, 0.9, 0.9, 0.9, 0.5])
    # turned pass: the two sideways tiles, a third one lying under them the upright pass missed (face down), and
    # the standing tile, which is tall in the photo (20 × 40) and so never taken from this pass
    sideways = [[40, 20, 100, 60], [100, 20, 160, 60], [40, 60, 100, 100], [10, 20, 30, 60]]
    turned = Detections.make(_turned(sideways), [0.8, 0.7, 0.6, 0.9], [False, False, True, False])
    inner = _ByShape((100, 200), upright, turned)
    d = QuarterAddedDetector(inner, inner, ONE_TURN)(photo)
    assert inner.calls == [(100, 200), (200, 100)] and QuarterAddedDetector(inner, inner, ONE_TURN).imgsz == 64
    got = {tuple(np.round(b).astype(int).tolist()): (round(float(s), 2), bool(f))
           for b, s, f in zip(d.boxes, d.scores, d.face_down)}
    assert got == {**{tuple(b): (0.9, False) for b in standing}, (40, 20, 100, 60): (0.8, False),
                   (100, 20, 160, 60): (0.7, False), (40, 60, 100, 100): (0.6, True)}
    # with only the first standing tile, the three sideways tiles are the most: the photo itself is turned
    # (the pipeline's quarter turns read it), and the upright pass's boxes stand
    few = Detections.make([[10, 20, 30, 60], [40, 20, 160, 60]], [0.9, 0.5])
    alone = _ByShape((100, 200), few, turned)
    d = QuarterAddedDetector(alone, alone, ONE_TURN)(photo)
    assert np.array_equal(d.boxes, few.boxes)


def test_a_turned_box_less_sure_than_the_box_it_would_split_leaves_it():
    # turned, a standing tile looks like two tiles lying sideways, and is boxed so, less surely than upright:
    # a sure standing box is never split by them (a real-crop composite's 4f had been)
    photo = np.zeros((100, 200, 3), np.uint8)
    standing = [[10, 20, 40, 60], [60, 20, 90, 60], [100, 20, 130, 60]]
    upright = Detections.make(standing, [0.83, 0.9, 0.9])
    halves = Detections.make(_turned([[10, 20, 40, 40], [10, 40, 40, 60]]), [0.46, 0.45])  # 30 × 20: wide
    inner = _ByShape((100, 200), upright, halves)
    d = QuarterAddedDetector(inner, inner, ONE_TURN)(photo)
    assert np.array_equal(d.boxes, upright.boxes)
    # surer than it, the same two boxes are two tiles boxed as one
    sure = _ByShape((100, 200), upright, Detections.make(halves.boxes, [0.9, 0.88]))
    assert len(QuarterAddedDetector(sure, sure, ONE_TURN)(photo)) == 4


def test_one_sideways_tile_boxed_twice_upright_is_boxed_once_by_a_surer_turned_box():
    # a column's 4f boxed twice by the upright pass, each box offset (IoU 0.33: both kept by its NMS), and once,
    # surely, turned: the turned box replaces the two (nine boxes for a set's eight bonus tiles had made the
    # column no group of bonus tiles at all)
    photo = np.zeros((600, 600, 3), np.uint8)
    standing = [[x, 480, x + 80, 600] for x in range(0, 480, 90)]
    upright = Detections.make(standing + [[301, 375, 382, 455], [260, 370, 344, 452]], [0.8] * 6 + [0.57, 0.29])
    turned = Detections.make(_turned([[264, 365, 384, 457]], W=600), [0.81])
    # (a square photo: the two passes are two stand-ins)
    d = QuarterAddedDetector(lambda image, *a: upright, lambda image, *a: turned, ONE_TURN)(photo)
    assert sorted(map(tuple, np.round(d.boxes).astype(int).tolist())) == sorted(
        [tuple(b) for b in standing] + [(264, 365, 384, 457)])


def test_a_turned_pass_that_adds_nothing_leaves_the_upright_boxes_as_they_are():
    photo = np.zeros((100, 200, 3), np.uint8)
    upright = Detections.make([[10, 20, 30, 60], [40, 20, 100, 60]], [0.9, 0.8])
    # the same two tiles again (the standing one tall, the sideways one over the upright pass's box)
    turned = Detections.make(_turned([[10, 20, 30, 60], [42, 20, 100, 60]]), [0.9, 0.8])
    inner = _ByShape((100, 200), upright, turned)
    d = QuarterAddedDetector(inner, inner, ONE_TURN)(photo)
    assert np.array_equal(d.boxes, upright.boxes) and np.array_equal(d.scores, upright.scores)
    empty = _ByShape((100, 200), upright, Detections.make(np.zeros((0, 4))))
    assert QuarterAddedDetector(empty, empty, ONE_TURN)(photo) is upright


def test_bonus_tiles_in_sideways_columns_are_boxed_by_the_turned_pass():
    # a render (seed 7, scene 2, 1280 × 960) of 345m33789s222z [555s] with all eight bonus tiles lying sideways
    # in two touching columns behind the row: the upright pass boxes four of them (+24f13y read without
    # the turned pass, the rotation tries, the mirror pass and the second detector); turned a quarter they
    # stand, and seven are boxed surely enough (QUARTER_CONF), read right and set apart as the hand's bonus tiles
    import io

    from PIL import Image

    from datasets.scene import render_scene
    from vision.pipeline import read_photo

    sc = render_scene(7, 2, 1280, 960, bonus_columns=1.0)
    assert sc.hand.notation() == "345m33789s222z [555s] +1234f1234y"
    buf = io.BytesIO()
    Image.fromarray(sc.image).save(buf, "JPEG", quality=90)
    kw = dict(rotate=False, mirror=False, second=False)
    def bonus(res):
        return sorted(t for t, role in zip(res.reading.tiles, res.reading.roles) if role == "bonus")

    plain = read_photo(buf.getvalue(), quarter=False, **kw)
    assert len(bonus(plain)) == 4  # (of the eight; which faces, the glyph reading's upper corners decide)
    r = read_photo(buf.getvalue(), **kw)
    assert bonus(r) == sorted(set(sc.hand.bonus) - {"4y"})
    assert r.reading.notation.startswith("345m33789s222z [555s] +1234f123y")


def test_no_sideways_pass_on_the_command_line(monkeypatch, capsys):
    # `photo --no-sideways-pass` and `audit --no-sideways-pass` box the tiles in the photo as it stands only
    import cli
    import vision.pipeline as pipeline
    from vision.pipeline import DEMO_PHOTO

    made = []

    class Counting(QuarterAddedDetector):
        def __call__(self, image, *a, **k):
            made.append(image.shape)
            return super().__call__(image, *a, **k)

    monkeypatch.setattr(pipeline, "QuarterAddedDetector", Counting)
    assert cli.main(["photo", str(DEMO_PHOTO), "--no-history", "--no-sideways-pass"]) == 0
    assert made == []
    assert cli.main(["audit", str(DEMO_PHOTO), "--claimed", "1", "--no-history", "--no-annotate",
                     "--no-sideways-pass"]) == 1  # (MISMATCH: the demo scores 40)
    assert made == []
    assert cli.main(["photo", str(DEMO_PHOTO), "--no-history"]) == 0
    assert made  # (the pass runs by default)
    capsys.readouterr()


def test_a_surer_turned_box_over_two_upright_tiles_never_merges_them():
    # a reviewer's case: two touching sideways tiles boxed one by one upright (less surely), and once over both
    # turned: the two boxes do not overlap, so they are two tiles, not one boxed twice; they stay
    photo = np.zeros((100, 200, 3), np.uint8)
    standing = [[x, 70, x + 10, 95] for x in range(0, 200, 20)]
    upright = Detections.make(standing + [[40, 20, 100, 60], [100, 20, 160, 60]], [0.9] * 10 + [0.5, 0.55])
    turned = Detections.make(_turned([[40, 20, 160, 60]]), [0.6])
    inner = _ByShape((100, 200), upright, turned)
    d = QuarterAddedDetector(inner, inner, ONE_TURN)(photo)
    assert np.array_equal(d.boxes, upright.boxes)


def test_a_turned_box_that_is_not_a_box_is_never_added():
    photo = np.zeros((100, 200, 3), np.uint8)
    upright = Detections.make([[x, 70, x + 10, 95] for x in range(0, 200, 20)], [0.9] * 10)
    bad = Detections.make(_turned([[40, 20, 100, 20], [40, 20, 100, 60]]), [0.8, float("nan")])
    inner = _ByShape((100, 200), upright, bad)
    assert np.array_equal(QuarterAddedDetector(inner, inner, ONE_TURN)(photo).boxes, upright.boxes)


def test_a_bonus_face_changed_by_the_set_does_not_count_against_max_changed():
    # a column of eight bonus tiles read with 2f twice: the set changes the second to a face left (2y); three
    # such changes and a 1s read as a flower count as one change, not four (MAX_CHANGED is 3)
    from vision.decode import MAX_CHANGED, Reading, _counted_changes

    raw = ("1f", "2f", "3y", "4f", "1m")
    tiles = ("1s", "2y", "1y", "4y", "1m")
    r = Reading(hand=None, tiles=tiles, raw=raw, roles=("concealed",) + ("bonus",) * 3 + ("concealed",),
                melds=(), changed=(0, 1, 2, 3), probability=1.0, relative=1.0, confidence=1.0, legal=True,
                notation="")
    assert _counted_changes(r) == 1 <= MAX_CHANGED
    # a playing tile read as a flower and changed to another playing tile counts, as does a flower made a suit tile
    assert _counted_changes(Reading(hand=None, tiles=("5p", "2m"), raw=("5m", "2f"), roles=("concealed",) * 2,
                                    melds=(), changed=(0, 1), probability=1.0, relative=1.0, confidence=1.0,
                                    legal=True, notation="")) == 2
