"""The evaluation sets of ``mahjong-score eval`` (datasets/evalsets.py, datasets/composite.py): the
photo variants, the metrics, the ECE and the composite builder. Small and fast; the composites need
../shared/data/crops-real (the ``shared`` fixture skips without it)."""
from __future__ import annotations

import io
import math
from collections import Counter

import numpy as np
import pytest
from PIL import Image, ImageOps

from datasets import composite, evalsets
from vision.models import models_present


def _upright(h=60, w=90):
    img = np.zeros((h, w, 3), np.uint8)
    img[..., 1] = np.linspace(0, 120, w, dtype=np.uint8)[None, :]
    img[5:20, 5:40] = (250, 30, 30)  # an asymmetric mark: top-left
    img[40:55, 60:85] = (30, 30, 250)
    return img


def test_variants_apply_to_the_upright_photo():
    up = _upright()
    vs = dict(evalsets.variants(up))
    assert list(vs) == (["upright", "rot90", "rot180", "rot270"] + [f"exif{k}" for k in range(1, 9)] + ["800px"]
                        + ["tilt12", "tilt-20", "tilt30", "far25", "far20"])
    for name, data in vs.items():
        with Image.open(io.BytesIO(data)) as im:
            orient = im.getexif().get(0x0112)
            shown = np.asarray(ImageOps.exif_transpose(im).convert("RGB")).astype(int)
        if name.startswith("exif"):
            assert orient == int(name[4:])
            assert shown.shape == up.shape and np.abs(shown - up).mean() < 6, name
        elif name.startswith("rot"):
            assert orient is None
            k = int(name[3:]) // 90
            assert np.abs(shown - np.rot90(up, k)).mean() < 6
        elif name == "800px":
            assert max(shown.shape[:2]) == 800
        elif name.startswith("far"):  # the photo small in the middle of a 12 MP canvas of felt
            assert orient is None and shown.shape[:2] == (3024, 4032)
            w = round(4032 * int(name[3:]) / 100)
            h = round(up.shape[0] * w / up.shape[1])
            x0, y0 = (4032 - w) // 2, (3024 - h) // 2
            small = np.asarray(Image.fromarray(up.astype(np.uint8)).resize((w, h), Image.Resampling.LANCZOS)).astype(int)
            assert np.abs(shown[y0:y0 + h, x0:x0 + w] - small).mean() < 8, name
            assert np.abs(shown[:y0 - 2] - evalsets.FAR_FELT).mean() < 4  # felt above it
        elif name.startswith("tilt"):  # turned anticlockwise on a grown canvas: the top-left mark moves down
            assert orient is None
            a = math.radians(int(name[4:]))
            h, w = up.shape[:2]
            assert shown.shape[:2] == (int(np.ceil(w * abs(math.sin(a)) + h * math.cos(a))),
                                       int(np.ceil(h * abs(math.sin(a)) + w * math.cos(a))))
            red = np.argwhere((shown[..., 0] > 180) & (shown[..., 2] < 90)).mean(0)  # the red mark's centre
            cy, cx = (shown.shape[0] - 1) / 2, (shown.shape[1] - 1) / 2
            y0, x0 = 12 - (h - 1) / 2, 22 - (w - 1) / 2  # its centre upright, from the photo's centre
            want = (cy + (-x0 * math.sin(a) + y0 * math.cos(a)), cx + (x0 * math.cos(a) + y0 * math.sin(a)))
            assert np.hypot(red[0] - want[0], red[1] - want[1]) < 3, name
    # stored pixels differ from the upright photo where the tag turns or flips it
    with Image.open(io.BytesIO(vs["exif6"])) as im:
        assert im.size == (up.shape[0], up.shape[1])


def test_canon_ignores_meld_order():
    assert evalsets.canon("345m678p66z [777s] (2222m) +1f win:8p") == evalsets.canon(
        "345m678p66z (2222m) [777s] +1f win:8p")
    assert evalsets.canon("123m") != evalsets.canon("124m") and evalsets.canon(None) is None


def test_counts_and_hand_found():
    assert evalsets.multiset_counts(["1m", "1m", "2p"], ["1m", "2p", "3s"]) == (2, 1, 1)
    gb = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float)
    gc = ["1m", "2m", "3m"]
    pb = np.array([[0, 0, 10, 10], [21, 0, 31, 10], [100, 100, 110, 110]], float)
    assert evalsets.box_counts(pb, ["1m", "9m", "1m"], gb, gc) == (1, 2, 2)
    # every detected hand tile in the hand, nothing else: found; a stray tile or a dropped one: not
    assert evalsets.hand_found(pb, pb[:2], gb)
    assert not evalsets.hand_found(pb, pb, gb)
    assert not evalsets.hand_found(pb, pb[:1], gb)
    assert not evalsets.hand_found(np.zeros((0, 4)), np.zeros((0, 4)), gb)  # nothing detected: not found


def test_ece():
    conf = np.array([0.95, 0.95, 0.95, 0.95, 0.55, 0.55])
    right = np.array([1, 1, 1, 1, 0, 1], bool)
    e, bins = evalsets.ece(conf, right, 15)
    # bin 0.933–1: accuracy 1 vs 0.95 (4 of 6); bin 0.533–0.6: 0.5 vs 0.55 (2 of 6)
    assert e == pytest.approx(4 / 6 * 0.05 + 2 / 6 * 0.05)
    assert sum(b["n"] for b in bins) == 6
    assert evalsets.ece(np.array([1.0, 1.0]), np.array([True, True]))[0] == pytest.approx(0.0)


def test_trim_removes_black_bars():
    img = np.zeros((40, 50, 3), np.uint8)
    img[:, 10:40] = 200
    assert composite.trim(img).shape == (40, 30, 3)


@pytest.fixture(scope="module")
def crops(request):
    shared = request.getfixturevalue("shared")
    root = shared / "data" / "crops-real"
    if not (root / "labels.csv").exists():
        pytest.skip("../shared/data/crops-real is absent")
    return composite.load_crops(root)


def test_composite_is_deterministic_and_labelled(crops):
    a = composite.build_composite(np.random.default_rng([3, 0]), crops, 640, 480)
    b = composite.build_composite(np.random.default_rng([3, 0]), crops, 640, 480)
    assert np.array_equal(a.image, b.image) and a.hand_tiles == b.hand_tiles
    assert a.image.shape == (480, 640, 3)
    assert len(a.hand_tiles) in (13, 14) == len(a.hand_boxes) or len(a.hand_boxes) == len(a.hand_tiles)
    have = Counter(c.code for c in crops)
    assert all(have[t] >= n for t, n in Counter(a.hand_tiles).items())
    hb = a.hand_boxes
    assert (hb[:, 2] > hb[:, 0]).all() and (hb[:, 3] > hb[:, 1]).all()
    assert (hb >= 0).all() and (hb[:, 2] <= 640).all() and (hb[:, 3] <= 480).all()
    # a row: left to right, the boxes roughly on one line
    cx = (hb[:, 0] + hb[:, 2]) / 2
    assert (np.diff(cx) > 0).all()
    assert len(a.other_tiles) == len(a.other_boxes)
    # each crop at most once in a hand
    assert len(set(a.info["crops"])) == len(a.info["crops"])


def test_composite_options(crops):
    plain = composite.build_composite(np.random.default_rng([4, 1]), crops, 640, 480, clutter=False, behind=False,
                                      warp=False)
    assert plain.other_tiles == [] and plain.info["clutter"] == [] and plain.info["turn_deg"] == 0.0
    hb = plain.hand_boxes
    assert np.ptp((hb[:, 1] + hb[:, 3]) / 2) < 0.2 * np.median(hb[:, 3] - hb[:, 1])  # one straight row


def test_bonus_composite_is_the_same_scene_with_a_bonus_group(crops):
    """bonus_rng adds 1–4 real flower/season photos of distinct faces, set apart beside the row, as
    hand tiles after the row's; everything drawn from ``rng`` is the scene without them."""
    for i in range(4):
        plain = composite.build_composite(np.random.default_rng([5, i]), crops, 1280, 960)
        withb = composite.build_composite(np.random.default_rng([5, i]), crops, 1280, 960,
                                          bonus_rng=np.random.default_rng([5, i, 2828]))
        n = len(plain.hand_tiles)
        assert withb.hand_tiles[:n] == plain.hand_tiles and np.allclose(withb.hand_boxes[:n], plain.hand_boxes)
        assert withb.other_tiles == plain.other_tiles and withb.info["clutter"] == plain.info["clutter"]
        bonus = withb.hand_tiles[n:]
        assert bonus == withb.info["bonus"] and len(bonus) == len(set(bonus)) <= 4
        assert all(t[1] in "fy" for t in bonus) and plain.info["bonus"] == []
        assert len(withb.hand_boxes) == len(withb.hand_tiles)
        if bonus:  # the group lies off the row's tiles: no bonus box overlaps a row box
            from datasets.evalbase import box_iou

            assert box_iou(withb.hand_boxes[n:], withb.hand_boxes[:n]).max() < 0.1
    # the bonus group is placed in some of these scenes (room beside or in front of the row)
    assert any(composite.build_composite(np.random.default_rng([5, i]), crops, 1280, 960,
                                         bonus_rng=np.random.default_rng([5, i, 2828])).info["bonus"]
               for i in range(4))


def test_pick_hand_refuses_impossible_crops(crops):
    few = [c for c in crops if c.code in ("1m", "2m")]
    with pytest.raises(RuntimeError):
        composite.pick_hand(np.random.default_rng(0), few, tries=20)


def test_time_limit_stops_a_slow_read():
    import time

    with pytest.raises(evalsets.ReadTimeout):
        with evalsets._time_limit(0.2):
            time.sleep(2)
    with evalsets._time_limit(0):  # no limit
        time.sleep(0.01)


def test_eval_sets_end_to_end(shared, capsys):
    """One composite and one hard render through both tools, and the table that reports them."""
    import io as _io

    from datasets import evaluate

    if not (evaluate.MODELS / "detector.onnx").exists() or not (shared / "data" / "crops-real").is_dir():
        pytest.skip("models/ or ../shared/data/crops-real absent")
    out = _io.StringIO()
    R = evaluate.run(None, sets=("composites", "bonus", "columns", "tilted", "hard"), composites=1, hard=1, out=out)
    for name in ("composites", "bonus", "columns", "tilted", "hard"):
        t = R[name]["total"]["ours"]
        assert t["n"] == 1 and 0.0 <= t["f1"] <= 1.0 and t["exact"] in (0, 1) and t["found"] in (0, 1)
    text = out.getvalue()
    assert "| composites of real crops (1," in text and "| hard-scene renders, held out (1 of" in text
    # the renders' tile art depends on what the machine has (../shared's sets): the report says which
    from datasets import faces

    art = sorted(faces.available_sources())
    assert R["hard"]["art_sources"] == art and f"tried, tile art {', '.join(art)})" in text
    assert "flower/season photos set apart as the hand's bonus tiles (1)" in text
    assert "flower/season photos lying sideways in one or two touching columns near the hand (1)" in text
    assert "the same composites turned 8–30° either way, as a phone held askew takes them (1)" in text
    base = R["composites"]["total"]["baseline"]
    assert base == {} or base["n"] == 1  # mahjong-detector beside it when installed


def test_a_product_crash_is_counted_not_fatal(monkeypatch):
    import vision.pipeline

    from datasets import evaluate

    monkeypatch.setattr(evaluate, "_vision_models", lambda threads: (None, None))

    def boom(*a, **k):
        raise StopIteration

    monkeypatch.setattr(vision.pipeline, "read_photo", boom)
    r = evalsets.product_read(b"not read", "nts")
    assert r["tiles"] == [] and r["crashed"].startswith("StopIteration at test_evalsets.py:")
    s = evalsets._sum([{"ours": {"tp": 0, "fp": 0, "fn": 14, "exact": False, "crashed": r["crashed"]}}], "ours")
    assert s["crashed"] == 1 and "1 CRASHED" in evaluate._cell(s, "f1")


def test_sum_counts_confident_wrong_readings_against_flagged_ones():
    """A wrong reading the product is sure of (legal, confidence ≥ vision.batch.REVIEW_BELOW = 0.8) is
    the worst outcome; one it refuses (not legal) or flags (< 0.8) tells the user to check."""
    def row(legal, conf, exact):
        return {"ours": {"tp": 1, "fp": 0, "fn": 0, "exact": exact, "legal": legal, "confidence": conf}}

    rows = [row(True, 0.95, True),    # right and sure
            row(True, 0.90, False),   # confident wrong
            row(True, 0.40, False),   # wrong, flagged for review
            row(False, 0.0, False),   # refused
            row(True, 0.60, True)]    # right, flagged
    s = evalsets._sum(rows, "ours")
    assert (s["sure_wrong"], s["flagged"], s["flagged_wrong"]) == (1, 3, 2)
    # the baseline has no confidence: no such counts
    assert "sure_wrong" not in evalsets._sum([{"b": {"tp": 1, "fp": 0, "fn": 0, "exact": True}}], "b")
    assert "score_sure_wrong" not in s  # (rows without the score's confidence)
    # by the score's confidence (vision.pipeline.score_confidence, what batch's needs-review weighs): the wrong
    # reading at 0.40 whose score is 0.85 sure is confident (not exact: its score may still be right), the
    # right one at 0.60 whose score is 0.90 sure is no longer flagged
    for r, sc in zip(rows, (0.95, 0.90, 0.85, 0.0, 0.90)):
        r["ours"]["score_confidence"] = sc
    s = evalsets._sum(rows, "ours")
    assert (s["score_sure_wrong"], s["score_flagged"]) == (2, 1)
    assert (s["sure_wrong"], s["flagged"]) == (1, 3)  # (the reading's own counts unchanged)


def test_columns_composite_lays_the_bonus_tiles_sideways_in_touching_columns(crops):
    """bonus_columns: 3–8 real flower/season photos of distinct faces lying sideways (boxes wider than
    tall) in one column, or two when there are more than four, touching (neighbours a few pixels
    apart); the scene drawn from ``rng`` is the one without them."""
    placed = 0
    for i in range(6):
        plain = composite.build_composite(np.random.default_rng([0, i, 1414]), crops, 1280, 960, warp=False)
        c = composite.build_composite(np.random.default_rng([0, i, 1414]), crops, 1280, 960, warp=False,
                                      bonus_rng=np.random.default_rng([0, i, 3939]), bonus_columns=True)
        n = len(plain.hand_tiles)
        assert c.hand_tiles[:n] == plain.hand_tiles and c.other_tiles == plain.other_tiles
        bonus, bb = c.hand_tiles[n:], c.hand_boxes[n:]
        if not bonus:
            continue
        placed += 1
        assert 3 <= len(bonus) <= 8 and len(set(bonus)) == len(bonus) and all(t[1] in "fy" for t in bonus)
        w, h = bb[:, 2] - bb[:, 0], bb[:, 3] - bb[:, 1]
        assert (w > 1.1 * h).all()  # sideways
        cx = (bb[:, 0] + bb[:, 2]) / 2
        ncol = 2 if len(bonus) > 4 else 1
        assert len(np.unique(np.round(cx / (0.5 * np.median(w))))) <= ncol + 1  # one or two columns
        per = -(-len(bonus) // ncol)
        first = bb[:per]  # the first column, top to bottom: each tile just below the one before
        assert (np.abs(first[1:, 1] - first[:-1, 3]) < 0.25 * np.median(h)).all()
    assert placed >= 3


def test_a_rotation_read_the_wrong_way_up_is_not_the_upright_reading(monkeypatch):
    # the riichi photo turned 180° was read as stored, upside down: the same notation, so the rotations set had
    # counted it "same"; the quarter turn the product read it at must undo the variant's
    turns = {"upright": 0, "rot90": 90, "rot180": 0, "rot270": 270}  # rot180 read as stored: the wrong way up
    monkeypatch.setattr(evalsets, "variants", lambda up: [(v, v.encode()) for v in turns])
    monkeypatch.setattr(evalsets, "product_read", lambda data, rs, threads: {
        "tiles": ["1m"], "notation": "1m", "seconds": 0.0, "turned": turns[data.decode()]})
    r = evalsets.eval_rotations([("p.jpg", None, ["1m"])], baseline=False)
    same = {row["variant"]: row["ours"]["same"] for row in r["rows"]}
    assert same == {"upright": True, "rot90": True, "rot180": False, "rot270": True}, same
    assert r["total"]["ours"]["same"] == 3


def _tilted_composite(crops, tmp_path, seed: int, i: int):
    """The ``tilted`` eval set's composite ``[seed, i]`` as :func:`datasets.evalsets.eval_composites` writes it."""
    from PIL import Image

    from datasets.evalsets import TILT_RANGE

    c = composite.build_composite(np.random.default_rng([seed, i, 1414]), crops)
    trng = np.random.default_rng([seed, i, 5151])
    c = composite.tilt_composite(c, float(trng.choice([-1, 1]) * trng.uniform(*TILT_RANGE)))
    path = tmp_path / f"tilted_{seed}_{i}.jpg"
    Image.fromarray(c.image).save(path, "JPEG", quality=90)
    return path


@pytest.mark.skipif(not models_present(), reason="models missing")
def test_a_tilted_composite_is_read_in_the_frame_its_faces_stand_in(crops, tmp_path):
    # two composites of real tiles, upright, turned 17-24° as a phone held askew takes them (the `tilted` set):
    # (a) seed 1 #21 was read turned 270° at 89 %, all 14 tiles sideways, the hand the photo read upright (a
    #     quarter turn that replaced another turn was never weighed against the upright photo): now the upright
    #     frame, its tiles standing, the same hand (vision.pipeline, after the rotation tries);
    # (b) seed 0 #21 was read turned 180° at 98 %, a 6p read 4p, its 1-3m, 6p and 7p upside-down (the 2p, 4p and
    #     8p, the same either way up, read upright); its 8p, set apart, is boxed only in that turn. Now its boxes
    #     are read again turned back, where those faces stand: right, in the photo's own frame
    #     (vision.pipeline.read_photo's faces_frame)
    from scoring import Context
    from vision.pipeline import read_photo

    a = read_photo(_tilted_composite(crops, tmp_path, 1, 21), "nts", Context())
    assert a.turned == 0 and a.reading.notation == "12377m345999p123s", (a.turned, a.reading.notation)
    assert all(a.readings.pose[i] == "upright" for i, r in enumerate(a.reading.roles) if r != "ignored")
    path = _tilted_composite(crops, tmp_path, 0, 21)
    b = read_photo(path, "nts", Context())
    # its 14 tiles: 1-3m, 2p 2p 2p 3p 4p 4p 5p 6p 6p 7p 8p
    assert b.reading.notation.startswith("123m22234456678p") and b.turned == 0 and b.faces_frame, (
        b.reading.notation, b.turned, b.reading.confidence)
    assert any(n.startswith("the photo is read as it stands, where its tiles' faces stand upright; their boxes were "
                            "found in the photo turned 180° (the turn whose reading came out best") for n in
               b.reading.notes), b.reading.notes
    assert b.faces_from == 180
    # a correction keeps the frame and says how it was found (--fix 1=1m restates tile 1)
    c = read_photo(path, "nts", Context(), fixes={1: "1m"})
    assert c.faces_frame and c.turned == 0 and c.reading.notation == b.reading.notation
    assert c.faces_from == 180 and any("boxes were found in the photo turned 180°" in n for n in c.reading.notes)
