"""Annotated image: boxes, tile names, groups by role, changed tiles — drawing only, no inference.

:func:`annotate` takes the values the pipeline produced (image, detections, geometry order, reading)
and returns a new RGB image; :func:`save` writes it (JPEG/PNG by extension). Labels are ASCII
(tile codes such as ``5p``), so no CJK font is needed.

Colours by role: concealed green, winning red, exposed melds blue, concealed kongs purple, bonus tiles
orange, ignored tiles thin grey; a tile the decoder changed gets a magenta frame and ``was X``.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .decode import Reading
from .detect import Detections
from .errors import ImageError

#: role → RGB colour
COLOURS: dict[str, tuple[int, int, int]] = {
    "concealed": (40, 180, 60),
    "winning": (230, 40, 40),
    "exposed": (40, 110, 235),
    "concealed-kong": (150, 60, 200),
    "bonus": (245, 150, 20),
    "ignored": (150, 150, 150),
}
CHANGED = (235, 0, 200)


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour, thick: int) -> None:
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = org
    x = int(min(max(x, 0), img.shape[1] - tw - 2))
    y = int(min(max(y, th + 2), img.shape[0] - base - 1))
    cv2.rectangle(img, (x - 1, y - th - 2), (x + tw + 1, y + base), (255, 255, 255), -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def _fit(text: str, scale: float, width: float) -> float:
    """The largest font scale ≤ ``scale`` at which ``text`` is at most ``width`` pixels wide (≥ 0.3)."""
    (tw, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1)
    return max(0.3, min(scale, width / max(tw, 1)))


def annotate(image: np.ndarray, det: Detections, reading: Reading, order: tuple[int, ...],
             title: str | None = None) -> np.ndarray:
    """A copy of ``image`` (H, W, 3) uint8 RGB with the reading drawn on it.

    ``order``: detection indices in display order (tile k is ``order[k-1]``, the numbers ``--fix``
    uses). ``title``: a line drawn at the top (e.g. the reading and its confidence).
    """
    img = np.ascontiguousarray(image.copy())
    H, W = img.shape[:2]
    tile_h = float(np.median(det.sizes[:, 1])) if len(det) else 40.0
    scale = max(0.35, min(1.0, tile_h / 110.0))
    thick = max(1, int(round(scale * 2)))
    pos = {d: k + 1 for k, d in enumerate(order)}
    # group outlines: melds (by their positions) and the concealed tiles
    for m in reading.melds:
        if not m.positions:
            continue
        b = det.boxes[list(m.positions)]
        x0, y0 = b[:, 0].min(), b[:, 1].min()
        x1, y1 = b[:, 2].max(), b[:, 3].max()
        pad = int(tile_h * 0.12)
        col = COLOURS["concealed-kong" if m.concealed else "exposed"]
        cv2.rectangle(img, (int(x0) - pad, int(y0) - pad), (int(x1) + pad, int(y1) + pad), col, thick, cv2.LINE_AA)
        _text(img, m.notation(), (int(x0) - pad, int(y1) + pad + int(22 * scale)), scale * 0.9, col, thick)
    for i in range(len(det)):
        role = reading.roles[i] if i < len(reading.roles) else "ignored"
        col = COLOURS.get(role, COLOURS["ignored"])
        x0, y0, x1, y1 = (int(round(v)) for v in det.boxes[i])
        t = 1 if role == "ignored" else thick
        cv2.rectangle(img, (x0, y0), (x1, y1), col, t, cv2.LINE_AA)
        if role == "ignored":
            continue
        label = f"{pos.get(i, '?')}:{reading.tiles[i] or '?'}"
        s = _fit(label, scale * 0.8, 0.95 * (x1 - x0))
        _text(img, label, (x0, y0 - 3), s, col, max(1, thick - 1))
        if i in reading.changed:
            cv2.rectangle(img, (x0 - thick * 2, y0 - thick * 2), (x1 + thick * 2, y1 + thick * 2), CHANGED,
                          thick + 1, cv2.LINE_AA)
            was = f"was {reading.raw[i]}"
            _text(img, was, (x0 + 2, y1 - 4), _fit(was, scale * 0.7, 0.95 * (x1 - x0)), CHANGED, max(1, thick - 1))
    # legend and title
    y = int(28 * scale)
    if title:
        _text(img, title, (8, y), scale, (0, 0, 0), thick)
        y += int(30 * scale)
    x = 8
    for role in ("concealed", "winning", "exposed", "concealed-kong", "bonus"):
        _text(img, role, (x, y), scale * 0.7, COLOURS[role], max(1, thick - 1))
        (tw, _), _ = cv2.getTextSize(role, cv2.FONT_HERSHEY_SIMPLEX, scale * 0.7, max(1, thick - 1))
        x += tw + int(14 * scale)
    _text(img, "changed", (x, y), scale * 0.7, CHANGED, max(1, thick - 1))
    return img


def save(image: np.ndarray, path: str | Path, quality: int = 88) -> Path:
    """Write an RGB image to ``path`` (format from the extension: .jpg/.jpeg/.png/.webp).

    Raises :class:`ImageError` when the extension is unknown or the file cannot be written.
    """
    p = Path(path)
    ext = p.suffix.lower()
    if ext not in (".jpg", ".jpeg", ".png", ".webp"):
        raise ImageError(f"{p}: annotated image must be .jpg, .png or .webp")
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if ext in (".jpg", ".jpeg") else []
    ok = False
    try:
        ok = cv2.imwrite(str(p), cv2.cvtColor(image, cv2.COLOR_RGB2BGR), params)
    except cv2.error:
        ok = False
    if not ok:
        raise ImageError(f"{p}: cannot write the annotated image")
    return p
