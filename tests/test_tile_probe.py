"""The classifier's "not a tile" output (``tile_prob``, written by ``datasets.tileprobe``) and its use.

Stand-in models: a classifier that reads a crop's mean colour (its ``embedding`` is that mean colour,
3 features), a probe attached to it by :func:`datasets.tileprobe.attach` that calls bright grey crops
"not a tile", and a detector with fixed boxes. Needs ``onnx`` (the ``train`` extra); skipped without it.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from datasets.embedding_output import add_embedding_output  # noqa: E402
from datasets.evalbase import box_iou, yolo_labels  # noqa: E402
from datasets.tileprobe import attach, auc, predict  # noqa: E402
from test_vision_onnx import make_classifier, make_detector  # noqa: E402
from vision.classify import TileReadings, load_classifier  # noqa: E402
from vision.detect import Detections  # noqa: E402
from vision.pipeline import NOT_A_TILE, drop_not_tiles, tileness  # noqa: E402

COLOURS = {"1m": (250, 30, 30), "2m": (30, 250, 30), "3m": (30, 30, 250), "4m": (250, 250, 30),
           "5m": (250, 30, 250)}
CLUTTER = (235, 235, 235)
#: probe: z = 20 · (2.2 − (r + g + b)) on 0..1 colours: every tile colour above has a sum ≤ 2.08
#: (z ≥ 2.4, p ≥ 0.92); the clutter's sum 2.76 gives z = −11.2 (p ≈ 1e-5)
W_PROBE = np.full(3, -20.0, np.float32)
B_PROBE = 44.0


def _classifier_with_probe(tmp_path) -> str:
    path = make_classifier(tmp_path / "classifier.onnx", {v: k for k, v in COLOURS.items()})
    m = onnx.load(path)
    add_embedding_output(m)  # the mean colour that the final MatMul reads
    attach(m, W_PROBE, B_PROBE)
    attach(m, W_PROBE, B_PROBE)  # a second time replaces the probe, it does not add another
    assert [o.name for o in m.graph.output] == ["probs", "embedding", "tile_prob"]
    onnx.save(m, path)
    return path


def test_probe_output_is_read_into_tile_readings(tmp_path):
    clf = load_classifier(_classifier_with_probe(tmp_path), threads=1)
    assert clf.has_tileness
    img = np.full((100, 200, 3), 90, np.uint8)
    img[20:80, 10:50] = COLOURS["4m"]
    img[20:80, 110:150] = CLUTTER
    det = Detections.make([[10, 20, 50, 80], [110, 20, 150, 80]], [0.9, 0.6])
    rd = clf(img, det)
    s4 = sum(COLOURS["4m"]) / 255.0
    assert rd.codes[0] == "4m"
    assert rd.tile[0] == pytest.approx(1 / (1 + math.exp(-20 * (2.2 - s4))), abs=1e-3)  # 0.92
    assert rd.tile[1] < 1e-3
    # tileness = detector score × top probability × tile probability
    t = tileness(det, rd)
    assert t[0] == pytest.approx(0.9 * rd.probs[0].max() * rd.tile[0], rel=1e-5) and t[1] < 1e-3
    # a graph without the output: every box is a tile
    plain = load_classifier(make_classifier(tmp_path / "plain.onnx", {v: k for k, v in COLOURS.items()}), threads=1)
    assert not plain.has_tileness and np.all(plain(img, det).tile == 1.0)


def test_drop_not_tiles_keeps_sure_and_face_down_boxes():
    probs = np.full((4, 43), 1 / 43, np.float32)
    rd = TileReadings.make(probs, tile=[0.95, 0.02, 0.02, 0.02])
    det = Detections.make([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14], [60, 0, 70, 14]],
                          [0.7, 0.6, 0.85, 0.6], [False, False, False, True])
    d2, r2, n = drop_not_tiles(det, rd)
    # box 1 is left out (tile 0.02 < NOT_A_TILE, detector 0.6); box 2: the detector is sure (0.85);
    # box 3: a face-down box (the probe judges faces only)
    assert n == 1 and len(d2) == 3 and list(r2.tile) == pytest.approx([0.95, 0.02, 0.02])
    assert list(d2.scores) == pytest.approx([0.7, 0.85, 0.6])
    assert drop_not_tiles(det, TileReadings.make(probs))[2] == 0  # no probe output: nothing dropped
    assert 0 < NOT_A_TILE < 0.5


def test_tile_readings_reject_a_wrong_length_and_clip_odd_values():
    with pytest.raises(ValueError, match="tile probabilities"):
        TileReadings.make(np.full((2, 43), 1 / 43), tile=[0.5])
    rd = TileReadings.make(np.full((3, 43), 1 / 43), tile=[float("nan"), 1.7, -0.2])
    assert list(rd.tile) == [1.0, 1.0, 0.0]  # a NaN says nothing: a tile
    assert list(rd.take([2, 0]).tile) == [0.0, 1.0]


def test_photo_with_clutter_in_line_with_the_hand(tmp_path, monkeypatch, capsys):
    """14 tiles 111m 222m 333m 444m 55m in a row, and three bright boxes continuing the row (clutter the
    detector boxed at 0.6): without the probe the row holds 17 boxes; with it the three are left out
    before the hand is looked for, the hand is read exactly, and a note says why."""
    import cli
    from PIL import Image

    hand = ["1m"] * 3 + ["2m"] * 3 + ["3m"] * 3 + ["4m"] * 3 + ["5m"] * 2
    img = np.full((480, 640, 3), 90, np.uint8)
    cols = []
    for k in range(17):
        x0 = 20 + k * 36
        img[300:360, x0:x0 + 34] = COLOURS[hand[k]] if k < 14 else CLUTTER
        cx, cy, w, h = (x0 + x0 + 34) / 4, (300 + 360) / 4 + 40, 34 / 2, 60 / 2
        cols.append([cx, cy, w, h, 0.9 if k < 14 else 0.6, 0.01])
    Image.fromarray(img).save(tmp_path / "hand.png")
    make_detector(tmp_path / "detector.onnx", np.array(cols, np.float32).T[None])
    _classifier_with_probe(tmp_path)
    monkeypatch.setenv("MAHJONG_MODELS", str(tmp_path))
    # (the stand-in detector boxes the same pixels in any image, the photo turned a quarter too)
    rc = cli.main(["photo", str(tmp_path / "hand.png"), "--json", "--no-history", "--no-sideways-pass"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    js = json.loads(out.out)
    assert js["reading"] == "11122233344455m" and len(js["tiles"]) == 14
    assert any("3 box(es) left out: the classifier judged them not to be tiles" in n for n in js["notes"])


def test_probe_helpers():
    a = np.array([[0, 0, 10, 10], [5, 0, 15, 10]], float)
    m = box_iou(a, a[:1])
    assert m[0, 0] == pytest.approx(1.0) and m[1, 0] == pytest.approx(50 / 150)
    assert box_iou(a, np.zeros((0, 4))).shape == (2, 0)
    assert auc(np.array([0.9, 0.8, 0.1, 0.2]), np.array([1, 1, 0, 0])) == 1.0
    assert auc(np.array([0.1, 0.9]), np.array([1, 0])) == 0.0
    assert predict(np.zeros((1, 3)), np.ones(3), 0.0)[0] == pytest.approx(0.5)


def test_yolo_labels(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("0 0.5 0.5 0.2 0.4\n1 0.1 0.1 0.1 0.1\n")
    b, c = yolo_labels(f, 100, 50)
    assert b.shape == (2, 4) and b[0] == pytest.approx([40, 15, 60, 35])
    assert yolo_labels(tmp_path / "missing.txt", 100, 50)[0].shape == (0, 4)
