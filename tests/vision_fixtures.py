"""Helpers for the vision tests: rendered-scene ground truth (tests/vision_layouts/*.json, the meta JSON
of ``python -m datasets.synth`` renders, quads stripped) as detections and classifier readings."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from vision.classes import CLASS_INDEX, NUM_CLASSES
from vision.classify import TileReadings
from vision.detect import Detections

DATA = Path(__file__).resolve().parent / "vision_layouts"


def load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def boxes_of(meta: dict) -> np.ndarray:
    return np.array([t["xyxy"] for t in meta["tiles"]], np.float64)


def detections(meta: dict, boxes: np.ndarray | None = None) -> Detections:
    b = boxes_of(meta) if boxes is None else boxes
    return Detections.make(b, None, [t["tile"] == "0x" for t in meta["tiles"]])


def readings(meta: dict, p_true: float = 0.9) -> TileReadings:
    """Each tile read as its true class with probability ``p_true``, the rest spread evenly."""
    n = len(meta["tiles"])
    P = np.full((n, NUM_CLASSES), (1 - p_true) / (NUM_CLASSES - 1), np.float32)
    for i, t in enumerate(meta["tiles"]):
        P[i, CLASS_INDEX[t["tile"]]] = p_true
    pose = ["face-down" if t["tile"] == "0x" else ("sideways" if t["pose"] == "sideways" else "upright")
            for t in meta["tiles"]]
    return TileReadings.make(P, pose)


def level_rows(*rows, p_true: float = 0.9) -> tuple[Detections, TileReadings]:
    """Detections + readings of level rows of tile codes, each row ``(codes, y)``: tile k at x = 40 + 92k, 90 px
    wide and 120 px high from ``y``; each box scored 0.9 by the detector and read as its code at ``p_true``, the
    rest spread evenly; a "0x" box is face-down (the detector's flag and the classifier's pose)."""
    boxes, codes = [], []
    for row, y in rows:
        boxes += [[40 + 92 * k, y, 130 + 92 * k, y + 120] for k in range(len(row))]
        codes += list(row)
    probs = np.full((len(codes), NUM_CLASSES), (1 - p_true) / (NUM_CLASSES - 1), np.float32)
    for k, c in enumerate(codes):
        probs[k, CLASS_INDEX[c]] = p_true
    down = [c == "0x" for c in codes]
    return (Detections.make(boxes, np.full(len(codes), 0.9), down),
            TileReadings.make(probs, ["face-down" if d else "upright" for d in down]))


def gapped_row(groups, gap: float = 35.0, probs=None, extra=(), backs: str | None = None
               ) -> tuple[Detections, TileReadings]:
    """Detections + readings of one level row of groups of tile codes: tiles 90 px wide at a 92 px step from x = 40,
    y 300-420, each group ``gap`` px further on (a finger's width), then the ``extra`` (box, code) pairs; each read
    as its code at 0.97, or at ``probs[k]`` (a row of NUM_CLASSES probabilities) for tile k; all upright, the
    detector 0.9 sure. ``backs``: where given, each ``0x`` is a box the detector calls face-down, lying face down,
    that the classifier reads as ``backs`` (``"0x"``: its back)."""
    boxes, codes, x = [], [], 40.0
    for g in groups:
        for c in g:
            boxes.append([x, 300, x + 90, 420])
            codes.append(c)
            x += 92
        x += gap
    for box, code in extra:
        boxes.append(list(box))
        codes.append(code)
    p = np.full((len(codes), NUM_CLASSES), 0.03 / (NUM_CLASSES - 1), np.float32)
    down = [backs is not None and c == "0x" for c in codes]
    for k, c in enumerate(codes):
        p[k, CLASS_INDEX[backs if down[k] else c]] = 0.97
    for k, row in (probs or {}).items():
        p[k] = row
    if backs is None:
        return Detections.make(boxes, np.full(len(codes), 0.9)), TileReadings.make(p, ["upright"] * len(codes))
    return (Detections.make(boxes, np.full(len(codes), 0.9), down),
            TileReadings.make(p, ["face-down" if d else "upright" for d in down]))


def truth_notation(meta: dict) -> str:
    return meta["hand"] + (f" win:{meta['winning']}" if meta.get("winning") else "")


def transform_boxes(boxes: np.ndarray, H: np.ndarray) -> np.ndarray:
    """Axis-aligned boxes of the box corners mapped by the 3×3 homography ``H``."""
    out = []
    for x0, y0, x1, y1 in boxes:
        pts = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]], float) @ H.T
        pts = pts[:, :2] / pts[:, 2:]
        out.append([pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()])
    return np.array(out)


def rotation(deg: float, cx: float, cy: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    T = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]], float)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], float)
    return T @ R @ np.linalg.inv(T)


def keystone(w: float, h: float, k: float = 0.15) -> np.ndarray:
    """A perspective homography: the top edge shrunk by ``k`` of the width on each side."""
    import cv2

    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[k * w, 0], [w - k * w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, dst).astype(float)


def hard_render_jpeg(index: int):
    """The held-out hard-scene render ``index`` as `mahjong-score eval --hard` renders it (1280 × 960, the
    scene's JPEG quality) → (the scene, its JPEG bytes); the test is skipped without the committed models or
    a CJK font for the generator's procedural faces."""
    import io

    import pytest
    from PIL import Image

    from datasets import faces
    from datasets.hard import HARD_VAL_SEED, hard_val_scene
    from datasets.scene import render_scene
    from vision.models import models_present

    if not models_present():
        pytest.skip("models missing")
    if not faces.cjk_fonts():
        pytest.skip("no CJK font for the generator's procedural faces")
    sc = render_scene(HARD_VAL_SEED, index, 1280, 960, hard=hard_val_scene(index))
    buf = io.BytesIO()
    Image.fromarray(sc.image).save(buf, "JPEG", quality=sc.jpeg_quality)
    return sc, buf.getvalue()


def weak_last(detector, factor: float = 0.7):
    """``detector`` (a :class:`vision.detect.Detector`) with the score of the right-most box of each image ×
    ``factor``: a tile the detector boxed less surely (the demo's winning 8p, set apart at the right, then
    reads as a false detection to a non-winner's reading)."""
    from vision.detect import Detections

    class WeakLast:
        imgsz = detector.imgsz

        def __call__(self, image, conf=0.25, iou=0.4):
            r = detector(image, conf, iou)
            s = r.scores.copy()
            if len(s):
                s[int(np.argmax(r.boxes[:, 2]))] *= factor
            return Detections.make(r.boxes, s, r.face_down)

    return WeakLast()
