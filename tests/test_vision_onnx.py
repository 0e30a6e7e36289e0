"""Inference plumbing (vision.detect / vision.classify / vision.models) with tiny hand-made ONNX models.

The detector model returns fixed YOLO predictions (in letterboxed input pixels) whatever the image;
the classifier maps a crop's mean colour to a class. So letterbox mapping, decoding, OpenCV NMS,
face-down classes, metadata parsing, cropping and batching are checked without trained models.
Needs the ``onnx`` package (the ``train`` extra) to build the models; skipped without it.
"""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.classes import CLASS_INDEX, CLASS_NAMES, NUM_CLASSES  # noqa: E402
from vision.classify import load_classifier  # noqa: E402
from vision.detect import decode, letterbox, load_detector  # noqa: E402
from vision.errors import ModelError  # noqa: E402

S = 320


def _save(graph, path, meta: dict) -> str:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, v in meta.items():
        p = model.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(model, str(path))
    return str(path)


def make_detector(path, preds: np.ndarray, names=("tile", "back")) -> str:
    """A detector whose output is ``preds`` (1, 4 + nc, N) + 0 × mean(input)."""
    inp = helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, S, S])
    out = helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(preds.shape))
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "zero"], ["z"]),
        helper.make_node("Add", ["preds", "z"], ["output0"]),
    ]
    init = [numpy_helper.from_array(preds.astype(np.float32), "preds"),
            numpy_helper.from_array(np.array(0.0, np.float32), "zero")]
    g = helper.make_graph(nodes, "det", [inp], [out], init)
    return _save(g, path, {"names": str({i: n for i, n in enumerate(names)}), "imgsz": f"[{S}, {S}]",
                           "stride": "32", "task": "detect", "mahjong_model": "detector"})


def make_classifier(path, colour_to_class: dict[tuple[int, int, int], str], size=32, **meta) -> str:
    """Softmax(k · mean-colour · W): crops of each listed colour read as the listed class."""
    W = np.zeros((3, NUM_CLASSES), np.float32)
    b = np.zeros(NUM_CLASSES, np.float32)
    for rgb, code in colour_to_class.items():
        v = np.array(rgb, np.float32) / 255.0
        W[:, CLASS_INDEX[code]] = 40 * (v - 0.5)
        b[CLASS_INDEX[code]] = -40 * float(((v - 0.5) * v).sum()) + 20 * float(((v - 0.5) ** 2).sum())
    inp = helper.make_tensor_value_info("images", TensorProto.FLOAT, ["B", 3, size, size])
    out = helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["B", NUM_CLASSES])
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["m", "W"], ["l0"]),
        helper.make_node("Add", ["l0", "b"], ["l"]),
        helper.make_node("Softmax", ["l"], ["probs"], axis=1),
    ]
    init = [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")]
    g = helper.make_graph(nodes, "cls", [inp], [out], init)
    md = {"names": str({i: n for i, n in enumerate(CLASS_NAMES)}), "imgsz": str(size), "crop_margin": "0.0",
          "crop_resize": "stretch", "rotation": "invariant", "mahjong_model": "classifier"}
    md.update({k: str(v) for k, v in meta.items()})
    return _save(g, path, md)


def _scene():
    """640 × 480 grey image with three coloured 'tiles' (x0, y0, x1, y1) and their colours."""
    img = np.full((480, 640, 3), 128, np.uint8)
    tiles = [((100, 200, 160, 280), (250, 30, 30)), ((170, 200, 230, 280), (30, 250, 30)),
             ((400, 100, 460, 180), (30, 30, 250))]
    for (x0, y0, x1, y1), c in tiles:
        img[y0:y1, x0:x1] = c
    return img, tiles


def _preds_for(boxes, back=(), dup=True) -> np.ndarray:
    """YOLO output (1, 6, N) in the letterboxed 320-px input of a 640 × 480 image (r = 0.5, pad y 40)."""
    cols = []
    for k, (x0, y0, x1, y1) in enumerate(boxes):
        cx, cy, w, h = (x0 + x1) / 4, (y0 + y1) / 4 + 40, (x1 - x0) / 2, (y1 - y0) / 2
        cls = [0.1, 0.9] if k in back else [0.9, 0.1]
        cols.append([cx, cy, w, h] + cls)
        if dup:  # a near-duplicate that NMS must remove
            cols.append([cx + 1, cy + 1, w, h, cls[0] * 0.8, cls[1] * 0.8])
    cols.append([10, 10, 5, 5, 0.05, 0.01])  # below the confidence threshold
    return np.array(cols, np.float32).T[None]


def test_letterbox_matches_ultralytics_geometry():
    img = np.zeros((480, 640, 3), np.uint8)
    blob, lb = letterbox(img, 320)
    assert blob.shape == (1, 3, 320, 320) and blob.dtype == np.float32
    assert lb.ratio == 0.5 and lb.pad == (0.0, 40.0)
    assert abs(blob[0, 0, 0, 0] - 114 / 255) < 1e-6 and blob[0, 0, 160, 160] == 0.0
    assert np.allclose(lb.to_image(np.array([[0, 40, 320, 280]], np.float32)), [[0, 0, 640, 480]])


def test_decode_nms_and_back_class():
    img, tiles = _scene()
    preds = _preds_for([t[0] for t in tiles], back={2})
    _, lb = letterbox(img, S)
    det = decode(preds, lb, (640, 480), ["tile", "back"])
    assert len(det) == 3  # duplicates suppressed, the weak one dropped
    got = sorted(map(tuple, np.round(det.boxes).astype(int).tolist()))
    assert got == sorted(t[0] for t in tiles)
    assert det.face_down[np.argmin(np.abs(det.boxes[:, 0] - 400))]
    with pytest.raises(ModelError):
        decode(preds, lb, (640, 480), ["tile"])


def test_models_from_metadata_end_to_end(tmp_path):
    img, tiles = _scene()
    dpath = make_detector(tmp_path / "detector.onnx", _preds_for([t[0] for t in tiles]))
    cpath = make_classifier(tmp_path / "classifier.onnx",
                            {(250, 30, 30): "7z", (30, 250, 30): "6z", (30, 30, 250): "1p"})
    detector = load_detector(dpath, threads=1)
    assert detector.imgsz == S and detector.names == ("tile", "back")
    det = detector(img)
    assert len(det) == 3
    classifier = load_classifier(cpath, threads=1)
    assert classifier.imgsz == 32 and classifier.rotation == "invariant"
    rd = classifier(img, det)
    assert rd.probs.shape == (3, NUM_CLASSES) and np.allclose(rd.probs.sum(1), 1, atol=1e-4)
    by_x = {int(round(b[0])): c for b, c in zip(det.boxes, rd.codes)}
    assert by_x == {100: "7z", 170: "6z", 400: "1p"}
    assert rd.top(2)[0][0][1] >= rd.top(2)[0][1][1]


def test_upright_rotation_mode_gives_pose(tmp_path):
    # metadata rotation=upright: unsure tiles are also tried turned by 90/180/270 degrees; the mean
    # colour is the same in every turn, so the upright reading is kept and probabilities stay normalised
    img, tiles = _scene()
    dpath = make_detector(tmp_path / "d.onnx", _preds_for([t[0] for t in tiles]))
    cpath = make_classifier(tmp_path / "c.onnx", {(250, 30, 30): "7z"}, rotation="upright")
    rd = load_classifier(cpath, threads=1)(img, load_detector(dpath, threads=1)(img))
    assert rd.pose == ("upright",) * 3 and np.allclose(rd.probs.sum(1), 1, atol=1e-4)


def test_classifier_names_must_match(tmp_path):
    cpath = make_classifier(tmp_path / "c.onnx", {(250, 30, 30): "7z"})
    m = onnx.load(cpath)
    for p in m.metadata_props:
        if p.key == "names":
            p.value = str({0: "a", 1: "b"})
    onnx.save(m, str(tmp_path / "bad.onnx"))
    with pytest.raises(ModelError, match="names"):
        load_classifier(str(tmp_path / "bad.onnx"), threads=1)


def test_missing_model_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MAHJONG_MODELS", str(tmp_path))
    with pytest.raises(ModelError, match="not found"):
        load_detector()


def test_cli_photo_end_to_end_with_stand_in_models(tmp_path, monkeypatch, capsys):
    # 14 coloured "tiles" in a row, a stand-in detector that finds them and a colour classifier:
    # 111m 222m 333m 444m 55m — the whole command runs: load, detect, classify, layout, decode, score
    import json

    import cli
    from PIL import Image

    colours = {"1m": (250, 30, 30), "2m": (30, 250, 30), "3m": (30, 30, 250), "4m": (250, 250, 30),
               "5m": (250, 30, 250)}
    hand = ["1m"] * 3 + ["2m"] * 3 + ["3m"] * 3 + ["4m"] * 3 + ["5m"] * 2
    img = np.full((480, 640, 3), 90, np.uint8)
    boxes = []
    for k, code in enumerate(hand):
        x0 = 40 + k * 40
        img[300:360, x0:x0 + 38] = colours[code]
        boxes.append((x0, 300, x0 + 38, 360))
    Image.fromarray(img).save(tmp_path / "hand.png")
    make_detector(tmp_path / "detector.onnx", _preds_for(boxes))
    make_classifier(tmp_path / "classifier.onnx", {v: k for k, v in colours.items()})
    monkeypatch.setenv("MAHJONG_MODELS", str(tmp_path))
    monkeypatch.setenv("MAHJONG_HISTORY", str(tmp_path / "history.db"))
    rc = cli.main(["photo", str(tmp_path / "hand.png"), "--json", "--no-history",
                   "--annotate", str(tmp_path / "out.png"),
                   # (the stand-in detector boxes the same pixels in any image: the photo turned a quarter too)
                   "--no-sideways-pass"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    js = json.loads(out.out)
    assert js["legal"] and js["reading"] == "11122233344455m"
    assert [t["tile"] for t in js["tiles"]] == hand and js["score"]["total"] > 0
    assert (tmp_path / "out.png").stat().st_size > 1000
    # text mode with a correction by position: tile 14 := 4m gives 111 222 33 345 444m, a hand
    rc = cli.main(["photo", str(tmp_path / "hand.png"), "--no-history", "--fix", "14=4m"])
    out = capsys.readouterr()
    assert rc == 0 and "reading: 11122233344445m" in out.out and "total:" in out.out
    # tile 14 := 9p leaves 111 222 333 444 5m 9p: no pair, so no hand — exit 2, one line on stderr
    rc = cli.main(["photo", str(tmp_path / "hand.png"), "--no-history", "--fix", "14=9p"])
    out = capsys.readouterr()
    assert rc == 2 and "reading: " in out.out and out.err.count("\n") == 1, out.out


def test_wide_box_leans_sideways(tmp_path):
    """vision.classify.SIDEWAYS_LEAN: on a box wider than tall the better sideways reading wins unless a
    0°/180° reading is surer by more than the lean; on a square box the surest turn wins outright, and a
    tall box (classify.TALL_STRICT) is never read sideways, however sure that reading, and a tallish one
    (classify.TALL) only when that reading is much surer (classify.TALL_LEAN).
    A stand-in `run` reads the crop's bright half: top → 9p (0.92), right → 8p (0.90 − drop), other → 1m (0.5)."""
    import dataclasses

    from vision import classify
    from vision.detect import Detections

    base = load_classifier(make_classifier(tmp_path / "c.onnx", {(250, 30, 30): "7z"}, rotation="upright"))
    p8 = {"drop": 0.0, "top": 0.92, "other": 0.5}

    class Stand(classify.Classifier):
        def run(self, crops):
            out = np.zeros((len(crops), NUM_CLASSES), np.float32)  # the rest of each row's mass is nowhere
            for i, c in enumerate(crops.astype(float).mean(3)):
                h, w = c.shape
                top, right = c[: h // 2].mean() - c[h // 2:].mean(), c[:, w // 2:].mean() - c[:, : w // 2].mean()
                if top > 50:
                    out[i, CLASS_INDEX["9p"]] = p8["top"]
                elif right > 50:
                    out[i, CLASS_INDEX["8p"]] = 0.90 - p8["drop"]
                else:
                    out[i, CLASS_INDEX["1m"]] = p8["other"]
            return out

    clf = Stand(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)})
    img = np.zeros((200, 300, 3), np.uint8)
    img[40:160, 60:200] = 40
    img[40:100, 60:200] = 250  # the upper half of the tile is bright
    wide = Detections.make([[60, 40, 200, 160]])  # 140 × 120 px: wider than tall
    rd = clf(img, wide)
    assert rd.codes == ("8p",) and rd.pose == ("sideways",)  # 0.90 ≥ 0.92 − 0.1
    p8["drop"] = 0.2  # now the upright reading is surer by 0.22 > SIDEWAYS_LEAN
    rd = clf(img, wide)
    assert rd.codes == ("9p",) and rd.pose == ("upright",)
    # a square box read upright below UPRIGHT_SURE (0.85 < 0.9), so the turns are tried: the sideways
    # 8p (0.90 − 0.1 = 0.80) is within the lean of the upright 9p (0.80 ≥ 0.85 − 0.1) and would win
    # on a wide box, but on a square box the surest turn (9p, 0.85 > 0.80) wins
    p8["top"], p8["drop"] = 0.85, 0.1
    assert p8["top"] < classify.UPRIGHT_SURE and 0.90 - p8["drop"] >= p8["top"] - classify.SIDEWAYS_LEAN
    square = Detections.make([[60, 40, 180, 160]])  # 120 × 120 px
    rd = clf(img, square)
    assert rd.codes == ("9p",) and rd.pose == ("upright",)
    assert clf(img, wide).codes == ("8p",)  # the same readings on the wide box: the lean decides
    # the sideways 8p surer than the upright 9p (0.90 > 0.85): it wins on the square box, never on a tall one
    p8["drop"] = 0.0
    assert clf(img, square).codes == ("8p",)
    # a tallish box (100 × 120 px: TALL ≤ 1.2 < TALL_STRICT) takes the sideways turn only when it is
    # surer by TALL_LEAN: 0.90 against 0.85 is not; 0.90 against an upright 0.15 is (a tile standing
    # sideways, or lying flat seen from low: a held-out hard render's winning 1m set apart, 52 × 59 px)
    tallish = Detections.make([[60, 40, 160, 160]])
    assert classify.TALL <= 120 / 100 < classify.TALL_STRICT
    rd = clf(img, tallish)
    assert rd.codes == ("9p",) and rd.pose == ("upright",)
    p8["top"], p8["other"] = 0.15, 0.15  # upright 9p 0.15, upside-down 1m 0.15, sideways 8p 0.9
    assert 0.90 >= p8["top"] + classify.TALL_LEAN
    rd = clf(img, tallish)
    assert rd.codes == ("8p",) and rd.pose == ("sideways",)
    # a tall box (100 × 140 px ≥ TALL_STRICT) is never read sideways, however sure that reading
    tall = Detections.make([[60, 30, 160, 170]])
    assert 140 / 100 >= classify.TALL_STRICT
    rd = clf(img, tall)
    assert rd.codes == ("9p",) and rd.pose == ("upright",)


def test_an_unsure_tile_read_upside_down_in_a_photo_of_standing_tiles_is_read_upright():
    # a tester's real 6p, read 6p at 0.88 upright (under UPRIGHT_SURE, so tried turned) and 4p at 0.93 upside-down, in a
    # row whose 12 other tiles stood, made a non-winner's hand 97 % sure with a 4p for the 6p: where the photo's
    # face-up tiles stand (4 upright for each upside-down one, 5 or more), such a tile is read upright
    from vision.classes import CLASS_INDEX, NUM_CLASSES
    from vision.classify import upright_consensus

    n = 13
    unsure = np.array([5, 12])  # (tile 5 the 6p; tile 12 a tile that reads alike both ways)
    cand = np.full((4, 2, NUM_CLASSES), 0.001, np.float32)
    cand[0, 0, CLASS_INDEX["6p"]], cand[2, 0, CLASS_INDEX["4p"]] = 0.88, 0.93
    cand[0, 1, CLASS_INDEX["8p"]], cand[2, 1, CLASS_INDEX["8p"]] = 0.7, 0.8
    best = np.array([2, 2])
    down = np.zeros(n, bool)
    assert upright_consensus(best, cand, unsure, n, down).tolist() == [True, False]
    # most tiles upside-down (a photo from across the table: its 180° try reads it): the turns kept
    many = np.arange(n)
    c2 = np.repeat(cand[:, :1], n, axis=1)
    assert not upright_consensus(np.full(n, 2), c2, many, n, down).any()
    # an upright reading under CONSENSUS_KEEP, or too few standing tiles (the face-down ones not counted): kept
    weak = cand.copy()
    weak[0, 0, CLASS_INDEX["6p"]] = 0.4
    assert not upright_consensus(best, weak, unsure, n, down).any()
    assert not upright_consensus(best, cand, unsure, n, np.arange(n) >= 4).any()
    # a tile read upside-down as a flower (a bird 1s read 4f that way and 5m upright): the decoder weighs those
    bird = cand.copy()
    bird[2, 0] = 0.001
    bird[2, 0, CLASS_INDEX["4f"]] = 0.93
    assert not upright_consensus(best, bird, unsure, n, down).any()
