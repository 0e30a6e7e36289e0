"""Tile crops for the classifier: ONE definition, used by training-crop export and by inference.

The model contract (``models/CONTRACT.md``) says crop preprocessing is defined here once, so that
the crops the classifier was trained on and the crops it sees at run time are made the same way.
The classifier's ONNX metadata records ``crop_margin`` and ``crop_resize``; inference passes them in.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

#: grey used for pixels outside the image and for letterbox padding (ultralytics' pad value)
PAD_VALUE = 114
RESIZE_MODES = ("stretch", "letterbox")


def crop_bounds(box_xyxy, margin: float) -> tuple[int, int, int, int]:
    """Integer pixel bounds ``(x0, y0, x1, y1)`` (x1/y1 exclusive) of ``box_xyxy`` grown by ``margin``.

    ``margin`` is a fraction of the box's own width (left and right) and height (top and bottom)
    added on each side. Bounds may lie outside the image; :func:`crop_tile` pads those parts.
    """
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    w, h = x1 - x0, y1 - y0
    mx, my = margin * w, margin * h
    return (math.floor(x0 - mx), math.floor(y0 - my), math.ceil(x1 + mx), math.ceil(y1 + my))


def crop_tile(image: np.ndarray, box_xyxy, size: int, margin: float, resize: str = "stretch") -> np.ndarray:
    """The classifier input for one tile: a ``(size, size, 3)`` uint8 crop of ``image``.

    * ``image``: (H, W, 3) uint8 RGB (from :func:`vision.io.load_image`);
    * ``box_xyxy``: the tile's box ``(x0, y0, x1, y1)`` in image pixels (float ok);
    * ``size``: output side in pixels (the classifier's ``imgsz``);
    * ``margin``: fraction of the box width/height added on each side (metadata ``crop_margin``);
    * ``resize``: ``"stretch"`` (scale width and height independently to ``size``) or
      ``"letterbox"`` (keep the aspect, centre it, pad with grey 114) (metadata ``crop_resize``).

    Parts of the grown box outside the image are filled with grey 114. Shrinking uses
    ``cv2.INTER_AREA`` (no aliasing on 12 MP photos), enlarging ``cv2.INTER_LINEAR``.
    The tile is never rotated here: pose is handled by the classifier (metadata ``rotation``).

    Raises ValueError for a bad image shape, a box of zero/negative size, ``size < 1`` or an
    unknown ``resize`` mode.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"crop_tile needs an (H, W, 3) uint8 image, got {image.shape} {image.dtype}")
    if resize not in RESIZE_MODES:
        raise ValueError(f"crop resize must be one of {RESIZE_MODES}, not {resize!r}")
    if size < 1:
        raise ValueError(f"crop size must be ≥ 1, not {size}")
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    if not (x1 > x0 and y1 > y0) or not all(map(math.isfinite, (x0, y0, x1, y1))):
        raise ValueError(f"empty or invalid tile box {box_xyxy!r}")
    H, W = image.shape[:2]
    bx0, by0, bx1, by1 = crop_bounds((x0, y0, x1, y1), margin)
    bx1, by1 = max(bx1, bx0 + 1), max(by1, by0 + 1)
    # the part inside the image, then pad the rest
    ix0, iy0, ix1, iy1 = max(bx0, 0), max(by0, 0), min(bx1, W), min(by1, H)
    cw, ch = bx1 - bx0, by1 - by0
    if ix0 >= ix1 or iy0 >= iy1:
        patch = np.full((ch, cw, 3), PAD_VALUE, np.uint8)
    elif (ix0, iy0, ix1, iy1) == (bx0, by0, bx1, by1):
        patch = image[iy0:iy1, ix0:ix1]
    else:
        patch = np.full((ch, cw, 3), PAD_VALUE, np.uint8)
        patch[iy0 - by0:iy1 - by0, ix0 - bx0:ix1 - bx0] = image[iy0:iy1, ix0:ix1]
    if resize == "stretch":
        return _resize(patch, size, size)
    s = size / max(cw, ch)
    nw, nh = max(1, round(cw * s)), max(1, round(ch * s))
    out = np.full((size, size, 3), PAD_VALUE, np.uint8)
    ox, oy = (size - nw) // 2, (size - nh) // 2
    out[oy:oy + nh, ox:ox + nw] = _resize(patch, nw, nh)
    return out


def _resize(patch: np.ndarray, w: int, h: int) -> np.ndarray:
    ph, pw = patch.shape[:2]
    if (pw, ph) == (w, h):
        return np.ascontiguousarray(patch)
    interp = cv2.INTER_AREA if (w < pw and h < ph) else cv2.INTER_LINEAR
    return cv2.resize(np.ascontiguousarray(patch), (w, h), interpolation=interp)


def crop_batch(image: np.ndarray, boxes_xyxy: np.ndarray, size: int, margin: float,
               resize: str = "stretch") -> np.ndarray:
    """Crops of every box as one classifier batch: float32 ``(B, 3, size, size)`` RGB in 0..1.

    Same errors as :func:`crop_tile`. An empty ``boxes_xyxy`` gives a ``(0, 3, size, size)`` array.
    """
    boxes = np.asarray(boxes_xyxy, np.float32).reshape(-1, 4)
    out = np.empty((len(boxes), 3, size, size), np.float32)
    for i, b in enumerate(boxes):
        out[i] = crop_tile(image, b, size, margin, resize).transpose(2, 0, 1)
    out *= 1.0 / 255.0
    return out
