"""Stand-in detector and classifier for the web tests (no ONNX models needed).

* :func:`row_photo`: a plain PNG with tiles "laid out" as boxes in one row, and models that read
  given codes there (fast, for the API tests);
* :func:`rendered_photo`: a synthetic photo from the project's renderer (``datasets.scene``, the
  renderer behind ``python -m datasets.synth``) with its ground truth, and :class:`TruthModels`, which
  "detect" the rendered tiles' true boxes and "classify" them from the truth, optionally misreading
  some tiles, so that a test knows exactly which tile the user has to correct.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from vision.classes import CLASS_INDEX, NUM_CLASSES
from vision.classify import TileReadings
from vision.detect import Detections


@dataclass
class TruthModels:
    """A detector + classifier pair that reads the given tiles.

    ``boxes``: (N, 4) x0, y0, x1, y1 in the pixels of an image ``width`` wide; ``codes``: the tile
    each box shows (``0x`` face down); ``poses``; ``misread``: box index → (code read instead,
    its probability; the true code gets the rest).
    """

    boxes: np.ndarray
    codes: list[str]
    poses: list[str]
    width: int
    misread: dict[int, tuple[str, float]] = field(default_factory=dict)
    delay_s: float = 0.0

    def detector(self, pixels: np.ndarray) -> Detections:
        if self.delay_s:
            import time

            time.sleep(self.delay_s)
        s = pixels.shape[1] / self.width
        return Detections.make(self.boxes * s, np.full(len(self.boxes), 0.95),
                               [c == "0x" for c in self.codes])

    def classifier(self, pixels: np.ndarray, det: Detections) -> TileReadings:
        p = np.full((len(self.codes), NUM_CLASSES), 1e-4, np.float32)
        for i, c in enumerate(self.codes):
            if i in self.misread:
                wrong, q = self.misread[i]
                p[i, CLASS_INDEX[wrong]] = q
                p[i, CLASS_INDEX[c]] = 1.0 - q
            else:
                p[i, CLASS_INDEX[c]] = 1.0
        p /= p.sum(1, keepdims=True)
        return TileReadings.make(p, self.poses)


def row_photo(codes: list[str], gap_before_last: bool = True) -> tuple[bytes, TruthModels]:
    """A 1000×300 PNG (green cloth) and models reading ``codes`` as touching tiles in one row, the
    last one set apart (the winning tile) when ``gap_before_last``."""
    from PIL import Image

    boxes, x = [], 40
    for i in range(len(codes)):
        if gap_before_last and i == len(codes) - 1:
            x += 40
        boxes.append((x, 120, x + 50, 190))
        x += 50
    buf = io.BytesIO()
    Image.new("RGB", (1000, 300), (30, 110, 60)).save(buf, "PNG")
    return buf.getvalue(), TruthModels(np.array(boxes, np.float32), list(codes), ["upright"] * len(codes), 1000)


@dataclass(frozen=True)
class Rendered:
    jpeg: bytes
    notation: str        # the true hand, with "win:" (scoring.notation)
    models: TruthModels  # reads the truth (no misreads yet)


def rendered_photo(seed: int, index: int) -> Rendered:
    """Render synthetic photo ``index`` of run ``seed`` (``datasets.scene.render_scene``) as a JPEG,
    with models that read its true tiles.

    The tile faces are the renderer's procedural ones (a CJK font), never the ../shared art sets, so
    the render is the same with or without ../shared. Raises RuntimeError without a CJK font.
    """
    import cv2

    from datasets import faces
    from datasets.scene import render_scene, tile_record

    if "proc" not in faces.available_sources():
        raise RuntimeError("no CJK font for the procedural tile faces (apt-get install fonts-noto-cjk)")
    sc = render_scene(seed, index, sources={"proc": 1.0})
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(sc.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    recs = [tile_record(t) for t in sc.tiles]
    models = TruthModels(np.array([r["xyxy"] for r in recs], np.float32), [r["tile"] for r in recs],
                         [r["pose"] for r in recs], sc.image.shape[1])
    return Rendered(buf.tobytes(), f"{sc.hand.notation()} win:{sc.hand.winning}", models)
