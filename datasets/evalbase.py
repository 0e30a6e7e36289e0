"""What :mod:`datasets.evaluate` and :mod:`datasets.evalsets` share: box IoU, the detection record,
photo loading, the ``mahjong-detector`` baseline and the product's models loaded once (so that
neither module imports the other)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .paths import REPO

MODELS = REPO / "models"


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) IoU of xyxy boxes."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    tl = np.maximum(a[:, None, :2], b[None, :, :2])
    br = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(br - tl, 0, None), 2)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter + 1e-9)


def yolo_labels(label: Path, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    """A YOLO label file (class cx cy w h, normalised) of a W × H image → ((M, 4) float xyxy pixels,
    (M,) int classes); empty for a missing or empty file."""
    if not label.exists() or label.stat().st_size == 0:
        return np.zeros((0, 4)), np.zeros(0, int)
    c, x, y, w, h = np.loadtxt(label, ndmin=2).T
    return (np.stack([(x - w / 2) * W, (y - h / 2) * H, (x + w / 2) * W, (y + h / 2) * H], 1),
            c.astype(int))


@dataclass
class Detection:
    xyxy: np.ndarray  # (4,) image pixels
    score: float
    cls: int  # detector class
    tile: str | None = None  # classifier code
    prob: float = 0.0


def load_photo(path: Path) -> np.ndarray:
    """RGB uint8 image with EXIF orientation applied (labels use that frame)."""
    from PIL import Image, ImageOps

    with Image.open(path) as im:
        return np.asarray(ImageOps.exif_transpose(im).convert("RGB"))


BASELINE_MAP = {"chun": "7z", "haku": "5z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}


def baseline_detect(img: np.ndarray) -> list[Detection] | None:
    """PyPI ``mahjong-detector`` on an RGB image → detections with our tile codes; None if not installed."""
    try:
        from mahjong_detector.predict import CLASS_NAMES as BN
        from mahjong_detector.predict import predict
        from mahjong_detector.preprocess import preprocess_image
    except ImportError:
        return None
    from PIL import Image

    im, pad = preprocess_image(Image.fromarray(img))
    out = []
    for d in predict(im, pad):
        name = BN[d.class_id]
        out.append(Detection(np.array([d.x1, d.y1, d.x2, d.y2], float), d.confidence, 0,
                             BASELINE_MAP.get(name, name), d.confidence))
    return out


_VISION: dict = {}


def _vision_models(threads: int):
    from vision.classify import load_classifier
    from vision.detect import load_detector

    if threads not in _VISION:
        _VISION[threads] = (load_detector(str(MODELS / "detector.onnx"), threads),
                            load_classifier(str(MODELS / "classifier.onnx"), threads))
    return _VISION[threads]
