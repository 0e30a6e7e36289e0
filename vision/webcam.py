"""Camera frames for ``mahjong-score webcam`` (:mod:`commands.webcam`): OpenCV quietened, and a
frame as the lossless PNG that the pipeline reads (its SHA-256 is the history's input hash)."""
from __future__ import annotations

from pathlib import Path

WINDOW = "mahjong-score webcam (space: score, q: quit)"


def _quiet_cv2():
    import cv2

    try:  # OpenCV logs a multi-line warning for a camera that does not open
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    except Exception:  # pragma: no cover - older builds without cv2.utils.logging
        pass
    return cv2


def _is_still_image(path: Path, cv2) -> bool:
    """True when ``path`` is a photo by its extension (:data:`vision.manifest.PHOTO_EXTS`) or a file
    that OpenCV's image reader (not its video reader) decodes."""
    from .manifest import PHOTO_EXTS

    if path.suffix.lower() in PHOTO_EXTS:
        return True
    try:
        return bool(cv2.haveImageReader(str(path)))
    except (cv2.error, AttributeError):  # pragma: no cover - builds without haveImageReader
        return False


def frame_to_png(frame) -> bytes:
    """A BGR frame (H, W, 3) uint8 from OpenCV → PNG bytes (fast compression, lossless)."""
    import cv2

    ok, buf = cv2.imencode(".png", frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise ValueError("could not encode the camera frame")
    return buf.tobytes()
