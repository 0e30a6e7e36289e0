"""Hard scenes of the generator (datasets/hard.py), the named layouts for hand-finding tests
(datasets/layouts.py) and the composites of real crops (datasets/composite.py): small, CPU, seconds."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from datasets import faces, hard, layouts, synth
from datasets.scene import render_scene

needs_art = pytest.mark.skipif(not faces.available_sources(), reason="no tile art: neither a CJK font nor ../shared")
W, H = 400, 300


def _hand_tiles(sc):
    return [t for t in sc.tiles if t.placed.role != "distractor"]


@needs_art
@pytest.mark.parametrize("kind", hard.KINDS)
def test_every_kind_renders_deterministically(kind):
    hs = hard.HardScene(kind=kind, clutter=("keys", "dice"), split="val")
    a = render_scene(914_000, 3, W, H, hard=hs)
    b = render_scene(914_000, 3, W, H, hard=hs)
    assert a.image.shape == (H, W, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image)
    assert [t.xyxy for t in a.tiles] == [t.xyxy for t in b.tiles]
    assert a.info["hard"]["kind"] == kind and a.info["hard"]["split"] == "val"
    mine = _hand_tiles(a)
    assert 0 < len(mine) <= len(a.hand.all_tiles()) + len(a.hand.bonus)
    for t in a.tiles:
        x0, y0, x1, y1 = t.xyxy
        assert 0 <= x0 < x1 <= W and 0 <= y0 < y1 <= H


@needs_art
def test_hard_scene_changes_the_picture_and_plain_render_is_untouched():
    plain = render_scene(5, 1, W, H)
    again = render_scene(5, 1, W, H, hard=None)
    assert np.array_equal(plain.image, again.image) and "hard" not in plain.info
    hs = render_scene(5, 1, W, H, hard=hard.HardScene("bed-cover"))
    assert not np.array_equal(plain.image, hs.image)
    # the same base scene: the same tile set and hand (the hard parts have their own random stream)
    assert hs.hand.notation() == plain.hand.notation() and hs.info["source"] == plain.info["source"]


@needs_art
def test_seat_low_is_a_low_view_with_walls_behind():
    sc = render_scene(914_000, 0, W, H, hard=hard.HardScene("seat-low", distractors=False))
    assert sc.info["hard"]["tilt_deg"] >= 55
    walls = [t for t in sc.tiles if t.placed.role == "distractor" and t.placed.face_down]
    assert len(walls) >= 6
    row_y = np.median([(t.xyxy[1] + t.xyxy[3]) / 2 for t in _hand_tiles(sc)])
    assert np.median([(t.xyxy[1] + t.xyxy[3]) / 2 for t in walls]) < row_y  # behind = higher in the picture


@needs_art
def test_rows_of_nine_splits_the_concealed_row():
    for i in range(10):
        sc = render_scene(914_000, i, W, H, hard=hard.HardScene("rows-of-9", distractors=False))
        rows = [r for r in sc.rows if r["role"] in ("concealed", "winning")]
        if sum(len(r["tiles"]) for r in sc.rows if r["role"] == "concealed") > 9:
            assert len(sc.rows[0]["tiles"]) == 9 and sc.rows[1]["role"] == sc.rows[0]["role"]
            second = [t for t in sc.tiles if t.placed.row == 1]
            first = [t for t in sc.tiles if t.placed.row == 0]
            assert second and first
            break
        assert rows
    else:
        pytest.fail("no rows-of-9 render had more than 9 concealed tiles")


@needs_art
def test_clutter_is_never_labelled_as_a_tile():
    base = render_scene(914_000, 2, W, H, hard=hard.HardScene("desk-keyboard", distractors=False))
    more = render_scene(914_000, 2, W, H, hard=hard.HardScene("desk-keyboard", distractors=False,
                                                               clutter=tuple(hard.CLUTTER)))
    # clutter adds bodies, never boxes: every labelled tile is a hand tile here
    assert all(t.placed.role != "distractor" for t in base.tiles + more.tiles)
    assert not np.array_equal(base.image, more.image)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="unknown hard scene kind"):
        hard.HardScene("moon")
    with pytest.raises(ValueError, match="unknown clutter"):
        hard.HardScene("bed-cover", clutter=("cats",))
    with pytest.raises(ValueError, match="split"):
        hard.HardScene("bed-cover", split="test")
    # held-out palettes share nothing with the training ones
    for k in ("felt", "desk", "sill"):
        assert not set(hard.PALETTES["val"][k]) & set(hard.PALETTES["train"][k])
    assert set(hard.PALETTES["val"]["motifs"]) - set(hard.PALETTES["train"]["motifs"])


def test_hard_val_scene_cycles_kinds():
    kinds = [hard.hard_val_scene(i).kind for i in range(len(hard.KINDS))]
    assert sorted(kinds) == sorted(hard.KINDS)
    assert hard.hard_val_scene(4) == hard.hard_val_scene(4) and hard.hard_val_scene(4).split == "val"


@needs_art
def test_synth_cli_hard_mixed(tmp_path):
    out = tmp_path / "h"
    assert synth.main(["--out", str(out), "--images", "2", "--seed", "9", "--workers", "1", "--size", "320x240",
                       "--no-crops", "--hard", "mixed", "--hard-split", "val", "--val-every", "0"]) == 0
    metas = sorted((out / "meta" / "train").glob("*.json"))
    assert len(metas) == 2
    kinds = [json.loads(m.read_text())["scene"]["hard"]["kind"] for m in metas]
    assert kinds == [hard.hard_val_scene(0).kind, hard.hard_val_scene(1).kind]
    rec = json.loads((out / synth.ARGS_FILE).read_text())
    assert rec["hard"] == "mixed" and rec["hard_split"] == "val"


def test_synth_cli_refuses_bad_clutter(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        synth.main(["--out", str(tmp_path / "x"), "--hard", "bed-cover", "--clutter", "keys,cats"])
    assert e.value.code == 2 and "cats" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        synth.main(["--out", str(tmp_path / "x"), "--clutter", "keys"])
    assert e.value.code == 2


# ----------------------------------------------------------------------------- layouts


@needs_art
@pytest.mark.parametrize("kind", layouts.LAYOUTS)
def test_layouts_give_the_whole_hand_and_its_boxes(kind):
    lay = layouts.render_layout(kind, seed=0, W=480, H=360)
    h, w = lay.image.shape[:2]
    assert (w, h) == ((360, 480) if kind == "rotated-90" else (480, 360))
    assert len(lay.hand_tiles) == 14 == len(lay.hand_boxes)
    assert Counter(lay.hand_tiles) == Counter(t for t in _expand(lay.hand))
    b = lay.hand_boxes
    assert (b[:, 0] >= 0).all() and (b[:, 2] <= w).all() and (b[:, 1] >= 0).all() and (b[:, 3] <= h).all()
    assert (b[:, 2] > b[:, 0]).all() and (b[:, 3] > b[:, 1]).all()
    assert lay.jpeg()[:2] == b"\xff\xd8"
    again = layouts.render_layout(kind, seed=0, W=480, H=360)
    assert np.array_equal(lay.image, again.image)
    if kind == "row-with-tiles-behind":
        assert 3 <= len(lay.other_tiles) <= 5
        assert np.median((lay.other_boxes[:, 1] + lay.other_boxes[:, 3]) / 2) < np.median((b[:, 1] + b[:, 3]) / 2)
    if kind == "walls-behind":
        assert lay.other_tiles.count("0x") >= 6
    if kind == "rotated-90":  # the row runs down the picture
        cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        assert np.ptp(cy) > 2 * np.ptp(cx)


def test_layout_rotation_of_boxes():
    boxes = np.array([[10, 20, 30, 60]], np.float32)
    assert layouts._rot90_cw(boxes, 100).tolist() == [[40, 10, 80, 30]]
    with pytest.raises(ValueError):
        layouts.render_layout("upside-down")


def _expand(notation: str) -> list[str]:
    import re

    return [d + s for digits, s in re.findall(r"(\d+)([mpszfy])", notation) for d in digits]


@needs_art
def test_layout_check_scores_a_reading():
    lay = layouts.render_layout("row-with-tiles-behind", seed=0, W=480, H=360)
    everything = np.vstack([lay.hand_boxes, lay.other_boxes])
    right = lay.check(everything, lay.hand_boxes, lay.hand_tiles)
    assert right == {"found": True, "exact": True, "tp": 14, "fp": 0, "fn": 0}
    # the loose tiles behind taken into the hand: not found, not exact
    wrong = lay.check(everything, everything, lay.hand_tiles + lay.other_tiles)
    assert not wrong["found"] and not wrong["exact"] and wrong["fp"] == len(lay.other_tiles)
    # one tile misread: found, not exact
    codes = list(lay.hand_tiles)
    codes[0] = "7z" if codes[0] != "7z" else "6z"
    miss = lay.check(everything, lay.hand_boxes, codes)
    assert miss["found"] and not miss["exact"] and (miss["tp"], miss["fp"], miss["fn"]) == (13, 1, 1)


@needs_art
def test_plain_renders_never_touch_the_hard_code(monkeypatch):
    """Off by default: without ``hard`` no function of datasets/hard.py runs and no draw of its random
    stream is taken, so plain renders stay byte-identical to those made before hard scenes existed."""
    def boom(*a, **k):
        raise AssertionError("hard-scene code ran in a plain render")

    for name in ("hard_rng", "standing_for", "camera_opts", "frame_points", "surface_texture", "backdrop",
                 "backlight", "place_clutter", "clutter_group"):
        monkeypatch.setattr(hard, name, boom)
    sc = render_scene(5, 2, W, H)
    assert "hard" not in sc.info
    assert synth.hard_for({"hard": None}, 3) is None
