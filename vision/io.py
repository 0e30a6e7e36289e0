"""Image loading: a photo file (or its bytes) → RGB uint8 pixels, EXIF-upright.

Formats: whatever Pillow opens (JPEG, PNG, WebP, BMP, TIFF, GIF: first frame) plus HEIC/HEIF/AVIF
through ``pillow-heif`` (a runtime dependency). The EXIF orientation tag is applied
(:func:`PIL.ImageOps.exif_transpose`), so pixel coordinates are those of the photo as seen — the
coordinates of ``../shared/data/photos/labels.json``.

Large JPEGs are decoded at a reduced scale (1/2, 1/4, 1/8, chosen by libjpeg's DCT scaling through
:meth:`PIL.Image.Image.draft`) when ``work_side`` asks for it: the tiles of a 12 MP photo are still
100+ px wide at half scale, and decoding is several times faster. :class:`Photo` records the scale so
that boxes can be reported in the original pixels.

Every failure is an :class:`vision.errors.ImageError` with a one-line message.
"""
from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Union

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .errors import ImageError

try:  # HEIC/HEIF (iPhone photos) and AVIF
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF_SUPPORT = True
except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
    HEIF_SUPPORT = False

#: refuse images with more pixels than this (decompression-bomb guard; a 200 MP phone photo is
#: 16320 × 12240 ≈ 200 M, so every real camera fits)
MAX_PIXELS = 210_000_000
#: refuse images smaller than this on either side (no tile can be read)
MIN_SIDE = 32
#: refuse files larger than this before reading them into memory (a video or disk image picked by
#: mistake); an uncompressed 16-bit RGBA TIFF of MAX_PIXELS pixels is 1.7 GB
MAX_FILE_BYTES = 2 * 2**30
# Pillow's own decompression-bomb guard refuses images over 2 × MAX_IMAGE_PIXELS (default 2 × 89.5 M):
# it would refuse real 200 MP photos below MAX_PIXELS, with a message naming the wrong limit. Set
# it so that MAX_PIXELS (checked in _identify, with the image's size in the message) decides.
Image.MAX_IMAGE_PIXELS = max(Image.MAX_IMAGE_PIXELS or 0, MAX_PIXELS)

Source = Union[str, os.PathLike, bytes, bytearray, BinaryIO]


@dataclass(frozen=True)
class Photo:
    """A loaded photo.

    * ``pixels``: (H, W, 3) uint8 RGB, EXIF-upright (possibly decoded at reduced scale);
    * ``original_size``: (width, height) in pixels of the full-resolution photo, EXIF-upright;
    * ``scale``: ``pixels`` width / original width (1.0, 0.5, 0.25 or 0.125);
    * ``name``: the file name, or ``"<bytes>"``.
    """

    pixels: np.ndarray
    original_size: tuple[int, int]
    scale: float
    name: str

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of ``pixels``."""
        return self.pixels.shape[1], self.pixels.shape[0]


def _open(source: Source) -> tuple[Image.Image, str]:
    if isinstance(source, (bytes, bytearray)):
        if not source:
            raise ImageError("the image data is empty (0 bytes)")
        return _identify(io.BytesIO(bytes(source)), "<bytes>"), "<bytes>"
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = source.read()  # type: ignore[union-attr]
        if not data:
            raise ImageError(f"{name}: the image data is empty (0 bytes)")
        return _identify(io.BytesIO(data), name), name
    path = Path(source)  # type: ignore[arg-type]
    name = str(path)
    if not path.exists():
        raise ImageError(f"{name}: no such file")
    if path.is_dir():
        raise ImageError(f"{name}: is a folder, not an image file")
    try:
        size = path.stat().st_size
        if size == 0:
            raise ImageError(f"{name}: the file is empty (0 bytes)")
        if size > MAX_FILE_BYTES:
            raise ImageError(f"{name}: the file is {size / 2**30:.1f} GB, larger than any photo "
                             f"(limit {MAX_FILE_BYTES / 2**30:g} GB); is it a video or another kind of file?")
        with path.open("rb") as f:
            data = f.read()
    except PermissionError:
        raise ImageError(f"{name}: permission denied") from None
    except OSError as e:
        raise ImageError(f"{name}: cannot read the file ({e.strerror or e})") from None
    return _identify(io.BytesIO(data), name), name


def _identify(buf: io.BytesIO, name: str) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = Image.open(buf)
    except UnidentifiedImageError:
        hint = "" if HEIF_SUPPORT else " (HEIC needs the pillow-heif package)"
        raise ImageError(f"{name}: not an image file Pillow can read (JPEG, PNG, WebP, HEIC){hint}") from None
    except Image.DecompressionBombError:
        raise ImageError(f"{name}: the image is too large (over {MAX_PIXELS:,} pixels); refusing to decode it") from None
    except Exception as e:  # corrupt headers raise assorted errors inside plugins
        raise ImageError(f"{name}: corrupt image ({type(e).__name__}: {e})".splitlines()[0]) from None
    w, h = im.size
    if w * h > MAX_PIXELS:
        raise ImageError(f"{name}: the image is too large ({w}×{h} = {w * h:,} pixels, limit {MAX_PIXELS:,})")
    if min(w, h) < MIN_SIDE:
        raise ImageError(f"{name}: the image is too small ({w}×{h} pixels) to show tiles")
    return im


def _to_rgb(im: Image.Image, name: str) -> np.ndarray:
    mode = im.mode
    if mode == "RGB":
        out = np.asarray(im)
    elif mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in im.info):
        rgba = im.convert("RGBA")
        bg = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        out = np.asarray(Image.alpha_composite(bg, rgba).convert("RGB"))
    elif mode.startswith("I") or mode == "F":
        a = np.asarray(im, dtype=np.float32)
        if mode.startswith("I;16") or a.max(initial=0) > 255:
            a = a / 257.0
        a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
        out = np.repeat(a[..., None], 3, axis=2)
    else:
        try:
            out = np.asarray(im.convert("RGB"))
        except ValueError as e:
            raise ImageError(f"{name}: unsupported colour mode {mode!r} ({e})") from None
    out = np.ascontiguousarray(out, dtype=np.uint8)
    if out.ndim != 3 or out.shape[2] != 3:  # pragma: no cover - guarded by the conversions above
        raise ImageError(f"{name}: could not convert colour mode {mode!r} to RGB")
    return out


def load_photo(source: Source, work_side: int | None = None) -> Photo:
    """Load a photo as RGB uint8, EXIF orientation applied.

    ``source``: a path, bytes, or a binary file object. ``work_side``: when given, a JPEG is
    decoded at the smallest DCT scale (1/2, 1/4, 1/8) that keeps its long side ≥ ``work_side``
    pixels (other formats are decoded at full size). Returns a :class:`Photo`.

    Raises :class:`ImageError` (one line, naming the file) for a missing, unreadable, empty,
    oversized (:data:`MAX_FILE_BYTES`), non-image, corrupt or truncated file, an image over
    :data:`MAX_PIXELS` pixels or under
    :data:`MIN_SIDE` pixels on a side, or an unsupported colour mode.
    """
    im, name = _open(source)
    full_w, full_h = im.size
    if work_side and im.format == "JPEG" and max(full_w, full_h) > work_side:
        k = max(full_w, full_h) / work_side
        scale = 1.0
        while scale > 0.125 and k >= 2.0:
            scale /= 2
            k /= 2
        if scale < 1.0:
            im.draft("RGB", (max(1, int(full_w * scale)), max(1, int(full_h * scale))))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            im.load()
            upright = ImageOps.exif_transpose(im)
    except OSError as e:
        msg = str(e)
        if "truncated" in msg:  # Pillow: "image file is truncated (4 bytes not processed)"
            detail = msg.split("truncated", 1)[1].strip(" ()")
            raise ImageError(f"{name}: the image file is truncated" + (f" ({detail})" if detail else "")) from None
        raise ImageError(f"{name}: the image file is corrupt ({msg})".splitlines()[0]) from None
    except Exception as e:  # broken EXIF or pixel data
        raise ImageError(f"{name}: corrupt image ({type(e).__name__}: {e})".splitlines()[0]) from None
    pixels = _to_rgb(upright, name)
    # original size after EXIF orientation: transposed when the photo was turned by 90°
    turned = upright.size != im.size and upright.size == im.size[::-1]
    orig = (full_h, full_w) if turned else (full_w, full_h)
    scale = pixels.shape[1] / orig[0]
    return Photo(pixels=pixels, original_size=orig, scale=float(scale), name=name)


def load_image(source: Source) -> np.ndarray:
    """Load a photo at full resolution: (H, W, 3) uint8 RGB, EXIF-upright.

    Raises :class:`ImageError` as :func:`load_photo`.
    """
    return load_photo(source).pixels
