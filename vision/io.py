"""Image loading: a photo file (or its bytes) → RGB uint8 pixels, EXIF-upright, in bounded memory.

Formats: whatever Pillow opens (JPEG, PNG, WebP, BMP, TIFF, GIF; of an animated or multi-page file,
the first frame: ``Photo.more_frames``) plus HEIC/HEIF/AVIF through ``pillow-heif`` (a runtime
dependency). The EXIF orientation tag is applied (the transposition of
:func:`PIL.ImageOps.exif_transpose`), so pixel coordinates are those of the photo as seen — the
coordinates of ``../shared/data/photos/labels.json``.

**Reduced scale.** When ``work_side`` asks for it, a large photo is brought down to a long side
between ``work_side`` and ``2 × work_side``: a JPEG is decoded at a reduced DCT scale (1/2, 1/4, 1/8,
libjpeg's scaling through :meth:`PIL.Image.Image.draft`), so its full-resolution pixels never exist;
other formats are decoded and then reduced by an integer factor (:meth:`PIL.Image.Image.reduce`, or
nearest-neighbour resampling for 1-bit and palette images). The tiles of a 12 MP photo are still
100+ px wide at half scale. :class:`Photo` records the scale so that boxes can be reported in the
original pixels.

**Memory bound.** Before any pixel is decoded, the working memory of the decode is estimated from the
header (:func:`decode_bytes`: width × height × Pillow's bytes per pixel for the mode, twice that where
the reduction or the decoder copies the image, plus libjpeg's coefficient buffer for a progressive
JPEG) and an image over :data:`MAX_DECODE_BYTES` is refused. Decodes in concurrent threads (the web
server's workers) share one budget of :data:`MAX_DECODE_BYTES`, so a process never holds more than that
in decode buffers at once. A 25 KB 1-bit 14400×14400 PNG is thus decoded in about 210 MB, and a
16-bit RGB 12000×12000 PNG (576 MB in Pillow) is refused with a one-line message.

Files are read through their handle (never read whole into memory); a path that is not a regular file
(a folder, a FIFO, a device such as ``/dev/zero``, a socket), a symbolic link loop or a dangling link is
named as such. Names are printed with control characters escaped (:func:`display_name`).

Every failure is an :class:`vision.errors.ImageError` with a one-line message. Pillow's warnings
(corrupt EXIF, oversized images) are silenced: the limits here decide.
"""
from __future__ import annotations

import errno
import io
import os
import stat
import sys
import tempfile
import threading
import warnings
from contextlib import ExitStack, contextmanager
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Union

import numpy as np
from PIL import Image, UnidentifiedImageError

from .errors import ImageError

try:  # HEIC/HEIF (iPhone photos) and AVIF
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF_SUPPORT = True
except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
    HEIF_SUPPORT = False

MIB = 1024 * 1024
#: refuse images with more pixels than this (decompression-bomb guard; a 200 MP phone photo is
#: 16320 × 12240 ≈ 200 M, so every real camera fits)
MAX_PIXELS = 210_000_000
#: what to do with a photo over MAX_PIXELS (a director's 224 MP file was refused with the limit alone, and its review
#: card said to retake the photo)
SMALLER_COPY_HOW = "save a smaller copy (half its width and height is plenty: a tile needs some 40 pixels)"
SMALLER_COPY = f"{SMALLER_COPY_HOW} and read that"
#: refuse images smaller than this on either side (no tile can be read)
MIN_SIDE = 32
#: refuse images whose long side is more than this many times the short side (a strip cannot show a
#: hand, and the detector's letterbox would scale its short side to nothing)
MAX_ASPECT = 20
#: refuse files larger than this (a video or disk image picked by mistake)
MAX_FILE_BYTES = 2 * 2**30
#: most working memory one decode may take (bytes, estimated from the header before decoding), and
#: the budget that concurrent decodes in one process share. 320 MiB admits a 75 MP RGB PNG, a 200 MP
#: JPEG (decoded at 1/8 scale), a 1-bit 14400×14400 PNG and a 16-bit grey 12000×12000 PNG.
MAX_DECODE_BYTES = 320 * MIB
# Pillow's own decompression-bomb guard refuses images over 2 × MAX_IMAGE_PIXELS (default 2 × 89.5 M):
# it would refuse real 200 MP photos below MAX_PIXELS, with a message naming the wrong limit. Set
# it so that MAX_PIXELS (checked in _identify, with the image's size in the message) decides.
Image.MAX_IMAGE_PIXELS = max(Image.MAX_IMAGE_PIXELS or 0, MAX_PIXELS)
# Pillow warns (on stderr, and in the server log) about corrupt EXIF, odd tags and large images; the
# checks here decide instead, and a warning line would only confuse. Filters are process-wide (thread-
# safe, unlike warnings.catch_warnings in the server's worker threads).


def _silence_pillow() -> None:
    """Install (again, when a ``warnings.catch_warnings`` block dropped them) the filters that keep
    Pillow's warnings off stderr."""
    warnings.filterwarnings("ignore", module=r"PIL(\.|$)")
    warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)


_silence_pillow()

Source = Union[str, os.PathLike, bytes, bytearray, BinaryIO]

#: Pillow's bytes per pixel in memory, by mode (RGB is stored as 4 bytes)
_MODE_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16L": 2, "I;16B": 2, "I;16N": 2, "LA": 4, "La": 4,
               "PA": 4, "RGB": 4, "RGBA": 4, "RGBa": 4, "RGBX": 4, "CMYK": 4, "YCbCr": 4, "LAB": 4, "HSV": 4,
               "I": 4, "F": 4}
#: modes whose reduction copies the full image once more (alpha is premultiplied first)
_ALPHA = frozenset({"RGBA", "LA", "PA", "La", "RGBa"})
#: formats whose decoder holds its own full-size buffer besides Pillow's image
_DOUBLE_BUFFER = frozenset({"WEBP", "AVIF"})
#: the EXIF orientation tag's value → the transposition that makes the photo upright
_ORIENT = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
           5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
           8: Image.Transpose.ROTATE_90}
_MODE_WORDS = {"1": "1-bit", "L": "8-bit grey", "P": "palette", "I;16": "16-bit grey", "I;16B": "16-bit grey",
               "I": "32-bit grey", "F": "floating-point grey", "RGB": "RGB", "RGBA": "RGBA", "LA": "grey+alpha",
               "CMYK": "CMYK"}


@dataclass(frozen=True)
class Photo:
    """A loaded photo.

    * ``pixels``: (H, W, 3) uint8 RGB, EXIF-upright (possibly at reduced scale);
    * ``original_size``: (width, height) in pixels of the full-resolution photo, EXIF-upright;
    * ``scale``: ``pixels`` width / original width (1.0, or less when decoded or reduced to
      ``work_side``: 1/2, 1/4, 1/8 for a JPEG, 1/k for other formats);
    * ``name``: the file name (control characters escaped), or ``"<bytes>"``;
    * ``damage``: a JPEG whose picture data the decoder found damaged: its words (the photo is read all
      the same: some cameras write harmless stray bytes that it reports alike; the reading is flagged).
    """

    pixels: np.ndarray
    original_size: tuple[int, int]
    scale: float
    name: str
    #: what the JPEG decoder said of damaged picture data (:func:`jpeg_damage`), or None
    damage: str | None = None
    #: the file holds more than one frame (an animated GIF, PNG or WebP, a multi-page TIFF, an image
    #: sequence in a HEIC): ``pixels`` are its first
    more_frames: bool = False

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of ``pixels``."""
        return self.pixels.shape[1], self.pixels.shape[0]


def looping_link(path: str | os.PathLike) -> Path | None:
    """The first of ``path`` and its folders (from the top down) that is a symbolic link that loops, or None. A breaker's
    outputs given inside such a link were told "its folder cannot be made (File exists)", "the folder … does not
    exist" or "no history yet"; the loop is what to say. Raises nothing."""
    p = Path(path)
    for part in [*reversed(p.parents), p]:
        if part.is_symlink() and not part.exists():
            try:
                os.stat(part)
            except OSError as e:
                if e.errno == errno.ELOOP:
                    return part
    return None


def text_name(name: str) -> str:
    """``name`` as text that can be stored and written (SQLite, CSV, JSON in UTF-8): each byte of a file name that is
    not UTF-8 (held by Python as a lone surrogate, ``\\udcff``) written ``\\xff`` (:func:`scoring.history.storable_text`);
    any other name unchanged. A batch's photo so named had stopped the whole batch with a UnicodeEncodeError (a
    breaker's); its row now names it so, its file read by its real path."""
    from scoring.history import storable_text

    return storable_text(name)


def display_name(name: object) -> str:
    """``name`` for a one-line message: control and other unprintable characters (newline, ESC) escaped as Python
    writes them (``\\n``, ``\\x1b``), a byte of a file name that is not UTF-8 as the byte (``\\xff``, where
    Python holds ``\\udcff``; the history stores it so, :func:`scoring.history.insert`)."""
    from scoring.history import one_line_text

    return one_line_text(name)


def _detail(e: BaseException) -> str:
    """An exception's message, first line, without its class name; '' when it has none."""
    lines = str(e).strip().splitlines()
    return lines[0].strip() if lines else ""


# ----------------------------------------------------------------------------- opening
def _open_path(path: Path, stack: ExitStack) -> BinaryIO:
    """The file at ``path``, opened for reading, after checking it is a regular, non-empty file of
    at most :data:`MAX_FILE_BYTES`."""
    name = display_name(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ImageError(f"{name}: a symbolic link to a missing file ({display_name(os.readlink(path))})") from None
        raise ImageError(f"{name}: no such file") from None
    except PermissionError:
        raise ImageError(f"{name}: permission denied") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ImageError(f"{name}: a symbolic link loop (the link points back at itself)") from None
        if e.errno == errno.ENOTDIR:
            raise ImageError(f"{name}: no such file (a part of the path is a file, not a folder)") from None
        if e.errno == errno.ENAMETOOLONG:
            raise ImageError(f"{name[:80]}…: the file name is too long") from None
        raise ImageError(f"{name}: cannot read the file ({e.strerror or _detail(e)})") from None
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise ImageError(f"{name}: is a folder, not an image file")
    if not stat.S_ISREG(mode):
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
                else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")
        raise ImageError(f"{name}: is {kind}, not an image file")
    if st.st_size == 0:
        raise ImageError(f"{name}: the file is empty (0 bytes)")
    if st.st_size > MAX_FILE_BYTES:
        raise ImageError(f"{name}: the file is {st.st_size / 2**30:.1f} GB, larger than any photo "
                         f"(limit {MAX_FILE_BYTES / 2**30:g} GB); is it a video or another kind of file?")
    try:  # non-blocking, then checked again: a file swapped for a FIFO since the stat cannot hang us
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except PermissionError:
        raise ImageError(f"{name}: permission denied") from None
    except OSError as e:
        raise ImageError(f"{name}: cannot read the file ({e.strerror or _detail(e)})") from None
    f = stack.enter_context(os.fdopen(fd, "rb"))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise ImageError(f"{name}: is not a regular file (it changed while being opened)")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return f


def path_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a photo file — the one-line :class:`ImageError` message
    without the name (``"no such file"``, ``"is a named pipe (FIFO), not an image file"``, ``"a
    symbolic link loop …"``, ``"the file is empty (0 bytes)"``, …) — or None when it is a readable
    regular file. Opens nothing but a regular file (a FIFO would block)."""
    with ExitStack() as stack:
        try:
            _open_path(Path(path), stack)
        except ImageError as e:
            msg = str(e)
            prefix = display_name(path) + ": "
            return msg[len(prefix):] if msg.startswith(prefix) else msg
    return None


def _open(source: Source, stack: ExitStack) -> tuple[Image.Image, str, int, BinaryIO]:
    """(image with its header parsed, display name, file size in bytes, the file: seekable)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        if not len(source):
            raise ImageError("the image data is empty (0 bytes)")
        if len(source) > MAX_FILE_BYTES:
            raise ImageError(f"the image data is {len(source) / 2**30:.1f} GB, larger than any photo")
        fp = io.BytesIO(source)
        return _identify(fp, "<bytes>"), "<bytes>", len(source), fp
    if hasattr(source, "read"):
        name = display_name(getattr(source, "name", "<stream>"))
        data = source.read(MAX_FILE_BYTES + 1)  # type: ignore[union-attr]
        if not data:
            raise ImageError(f"{name}: the image data is empty (0 bytes)")
        if len(data) > MAX_FILE_BYTES:
            raise ImageError(f"{name}: the image data is larger than any photo ({MAX_FILE_BYTES / 2**30:g} GB limit)")
        fp = io.BytesIO(data)
        return _identify(fp, name), name, len(data), fp
    path = Path(source)  # type: ignore[arg-type]
    f = _open_path(path, stack)
    name = display_name(path)
    size = os.fstat(f.fileno()).st_size
    return _identify(f, name), name, size, f


#: magic bytes of the formats a photo comes in (for a file Pillow cannot open: corrupt, or no image)
_MAGIC = ((b"\xff\xd8\xff", "JPEG"), (b"\x89PNG\r\n\x1a\n", "PNG"), (b"GIF87a", "GIF"), (b"GIF89a", "GIF"),
          (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"))


#: HEIF/AVIF ``ftyp`` brands (bytes 8–12 of the file)
HEIF_BRANDS = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis"})


def sniff(head: bytes) -> str | None:
    """The photo format named by a file's first 18 bytes (JPEG, PNG, GIF, TIFF, BMP, WebP, HEIF), or
    None. The file name (and an upload's declared content type) is never consulted."""
    for magic, fmt in _MAGIC:
        if head.startswith(magic):
            return fmt
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    if head[:2] == b"BM" and len(head) >= 16 and int.from_bytes(head[14:16], "little") in (12, 40, 52, 56, 64, 108, 124):
        return "BMP"  # (the DIB header's size, not just two letters)
    if head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS:
        return "HEIF"
    return None


def _header_problem(d: str, fmt: str | None) -> str:
    """A Pillow header error in words (no library identifiers)."""
    if "Decompressed data too large" in d:
        return "a metadata chunk decompresses to too much data (a decompression bomb)"
    if "could not create decoder object" in d:
        return f"the {fmt or 'image'} decoder cannot read its data"
    return d


def _start_and_end(fp: BinaryIO) -> tuple[str | None, bytes, bytes, int]:
    """(the format its first bytes name, :func:`sniff`; its first and last 18 bytes; its size) of the
    open file ``fp`` that Pillow could not open ((None, b"", b"", 0) as far as it cannot be read)."""
    try:
        size = fp.seek(0, os.SEEK_END)
    except (OSError, ValueError):
        size = 0
    head, tail = file_ends(fp, size, 18)
    return sniff(head), head, tail, size


def _identify(fp: BinaryIO, name: str) -> Image.Image:
    try:
        im = Image.open(fp)
    except UnidentifiedImageError:
        fmt, head, tail, size = _start_and_end(fp)
        said = damage_words(fmt, head, tail, size, "", in_header=True)
        if said is not None:  # a WebP shorter than its header says
            raise ImageError(f"{name}: {said}") from None
        if fmt is not None:  # it starts like a photo: a damaged one, not "no image" (most often one cut short)
            raise ImageError(f"{name}: corrupt {fmt} image (its header cannot be parsed: the file is damaged or "
                             f"cut short); copy the photo again") from None
        hint = "" if HEIF_SUPPORT else " (HEIC needs the pillow-heif package)"
        raise ImageError(f"{name}: not an image file (a photo is read from {READ_FORMATS}){hint}") from None
    except Image.DecompressionBombError:
        raise ImageError(f"{name}: the image is too large (over {MAX_PIXELS:,} pixels); refusing to decode it: "
                         f"{SMALLER_COPY}") from None
    except MemoryError:
        raise ImageError(f"{name}: the image header asks for more memory than any photo needs; refusing it") from None
    except Exception as e:  # corrupt headers raise assorted errors inside plugins
        fmt, head, tail, size = _start_and_end(fp)
        d = _header_problem(_detail(e), fmt)
        said = damage_words(fmt, head, tail, size, d, in_header=True)
        if said is not None:  # Pillow: "Truncated File Read"; a WebP shorter than its header says
            raise ImageError(f"{name}: {said}") from None
        hint = "" if "bomb" in d else ": the file is damaged or cut short; copy the photo again"
        raise ImageError(f"{name}: corrupt image header" + (f" ({d})" if d else "") + hint) from None
    w, h = im.size
    if w * h > MAX_PIXELS:
        raise ImageError(f"{name}: the image is too large ({w}×{h} = {w * h:,} pixels, limit {MAX_PIXELS:,}): "
                         f"{SMALLER_COPY}")
    if min(w, h) < MIN_SIDE:
        raise ImageError(f"{name}: the image is too small ({w}×{h} pixels) to show tiles")
    if max(w, h) > MAX_ASPECT * min(w, h):
        raise ImageError(f"{name}: the image is {w}×{h} pixels, a strip too long and narrow to show a hand "
                         f"(sides more than {MAX_ASPECT}:1)")
    return im


# ----------------------------------------------------------------------------- memory
class _Budget:
    """Bytes of decode memory shared by the threads of this process (a counting condition)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.used = 0
        self._cond = threading.Condition()

    @contextmanager
    def hold(self, n: int) -> Iterator[None]:
        n = min(max(0, int(n)), self.capacity)
        with self._cond:
            while self.used + n > self.capacity:
                self._cond.wait()
            self.used += n
        try:
            yield
        finally:
            with self._cond:
                self.used -= n
                self._cond.notify_all()


_BUDGET = _Budget(MAX_DECODE_BYTES)


def _jpeg_scale(im: Image.Image, work_side: int | None) -> int:
    """The DCT scale denominator (1, 2, 4, 8) keeping the long side ≥ ``work_side``."""
    if not work_side:
        return 1
    k = max(im.size) / work_side
    s = 1
    while s < 8 and k >= 2.0:
        s *= 2
        k /= 2
    return s


def _reduce_factor(size: tuple[int, int], work_side: int | None) -> int:
    """The integer reduction keeping the long side ≥ ``work_side`` (1: none)."""
    if not work_side:
        return 1
    return max(1, max(size) // work_side)


def _is_jpeg(im: Image.Image) -> bool:
    return im.format in ("JPEG", "MPO")


def _is_heif(im: Image.Image) -> bool:
    return HEIF_SUPPORT and im.format == "HEIF" and hasattr(im, "fp") and im.fp is not None


def _load_heif(im: Image.Image, k: int) -> np.ndarray:
    """A HEIC/HEIF photo decoded by libheif (``pillow_heif.open_heif``) into its own buffer and
    reduced by ``k`` with OpenCV's area average, without the copy into a Pillow image that the
    Pillow plugin makes (7 bytes a pixel at full size → 3). libheif applies the file's rotation and
    mirroring (the Pillow plugin then clears the EXIF orientation, so nothing is turned twice).
    Returns (H, W, 3) uint8 RGB."""
    import cv2

    im.fp.seek(0)
    heif = pillow_heif.open_heif(im.fp, convert_hdr_to_8bit=True)
    a = np.asarray(heif)
    if a.dtype != np.uint8:  # pragma: no cover - convert_hdr_to_8bit gives 8 bits
        a = (a >> 8).astype(np.uint8) if a.dtype == np.uint16 else a.astype(np.uint8)
    if k > 1:
        h, w = a.shape[:2]
        a = cv2.resize(a, (-(-w // k), -(-h // k)), interpolation=cv2.INTER_AREA)
    del heif
    if a.ndim == 2:
        a = np.repeat(a[..., None], 3, axis=2)
    elif a.shape[2] == 4:  # alpha: composited onto white, as for other formats
        alpha = a[..., 3:4].astype(np.float32) / 255.0
        a = np.rint(a[..., :3] * alpha + 255.0 * (1.0 - alpha)).astype(np.uint8)
    return np.ascontiguousarray(a[..., :3])


def decode_bytes(im: Image.Image, work_side: int | None = None) -> int:
    """Estimated peak working memory (bytes) of :func:`load_photo` for an opened (header-only)
    image: the decoded image in Pillow's layout (width × height × bytes per pixel of its mode), twice
    that for alpha images and formats whose decoder keeps its own copy, libjpeg's coefficient buffer
    (2 bytes per sample at full size) for a progressive JPEG, plus the RGB result."""
    w, h = im.size
    if _is_jpeg(im):
        s = _jpeg_scale(im, work_side)
        dw, dh = -(-w // s), -(-h // s)
        total = dw * dh * _MODE_BYTES.get(im.mode, 4)
        if im.info.get("progressive") or im.info.get("progression"):
            layers = getattr(im, "layer", None) or [("", 1, 1, 0)] * len(im.getbands())
            hmax = max(int(c[1]) for c in layers) or 1
            vmax = max(int(c[2]) for c in layers) or 1
            total += int(w * h * 2 * sum(int(c[1]) * int(c[2]) for c in layers) / (hmax * vmax))
        out = dw * dh
    elif _is_heif(im):  # libheif's buffer (3 or 4 bytes a pixel), reduced in numpy (:func:`_load_heif`)
        total = w * h * len(im.getbands())
        k = _reduce_factor((w, h), work_side)
        out = -(-w // k) * -(-h // k)
    else:
        per = _MODE_BYTES.get(im.mode, 4)
        total = w * h * per * (2 if im.mode in _ALPHA or (im.format or "").upper() in _DOUBLE_BUFFER else 1)
        k = _reduce_factor((w, h), work_side)
        out = -(-w // k) * -(-h // k)
    # the RGB result: Pillow's RGB (4 bytes) and the numpy array (3 bytes) at the output size
    return int(total + 7 * out)


def _check_jpeg_data(im: Image.Image, name: str, file_bytes: int) -> None:
    """Refuse a JPEG whose file is far too small for its picture data (libjpeg fills missing data
    with grey and only warns, so a 600-byte file claiming 16000×12000 would decode "fine")."""
    w, h = im.size
    blocks = -(-w // 8) * -(-h // 8)
    if file_bytes * 64 < blocks:  # under 1/8 bit per 8×8 block: no picture can be that small
        raise ImageError(f"{name}: corrupt image: the file is {file_bytes:,} bytes, far too little picture data "
                         f"for the {w}×{h} pixels its header claims")


def _too_big(im: Image.Image, name: str, need: int) -> ImageError:
    w, h = im.size
    what = " ".join(x for x in (_MODE_WORDS.get(im.mode, ""), im.format or "") if x)
    hint = "save it as a JPEG or at a smaller size" if not _is_jpeg(im) else "save it at a smaller size"
    return ImageError(f"{name}: decoding this {w}×{h} {what} image would take about {need / MIB:,.0f} MB of memory "
                      f"(limit {MAX_DECODE_BYTES / MIB:g} MB); {hint}")


def _reduce(im: Image.Image, k: int) -> Image.Image:
    """``im`` reduced by the integer factor ``k`` (box average; nearest neighbour for modes whose
    values are palette indices or bits)."""
    if k <= 1:
        return im
    size = (-(-im.size[0] // k), -(-im.size[1] // k))
    if im.mode in ("1", "P", "PA"):
        return im.resize(size, Image.Resampling.NEAREST)
    if im.mode.startswith("I;16"):
        return im.resize(size, Image.Resampling.BOX)
    try:
        return im.reduce(k)
    except ValueError:  # a mode reduce does not handle
        return im.resize(size, Image.Resampling.NEAREST)


def _orientation(im: Image.Image) -> int:
    try:
        v = im.getexif().get(0x0112)
        return int(v) if v in _ORIENT else 1
    except Exception:  # noqa: BLE001 - a broken EXIF block: the photo as stored
        return 1


def _to_rgb(im: Image.Image, name: str) -> np.ndarray:
    mode = im.mode
    if mode == "RGB":
        out = np.asarray(im)
    elif mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in im.info):
        rgba = im.convert("RGBA")
        bg = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        out = np.asarray(Image.alpha_composite(bg, rgba).convert("RGB"))
    elif mode.startswith("I") or mode == "F":
        a = np.asarray(im).astype(np.float32)
        a = np.nan_to_num(a, nan=0.0, posinf=65535.0, neginf=0.0)  # NaN/inf in a float TIFF: no warning
        if mode.startswith("I;16") or a.max(initial=0) > 255:
            a = a / 257.0
        a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
        out = np.repeat(a[..., None], 3, axis=2)
    else:
        try:
            out = np.asarray(im.convert("RGB"))
        except ValueError as e:
            d = _detail(e)
            raise ImageError(f"{name}: unsupported colour mode {mode!r}" + (f" ({d})" if d else "")) from None
    out = np.ascontiguousarray(out, dtype=np.uint8)
    if out.ndim != 3 or out.shape[2] != 3:  # pragma: no cover - guarded by the conversions above
        raise ImageError(f"{name}: could not convert colour mode {mode!r} to RGB")
    return out


_FD2_LOCK = threading.Lock()


@contextmanager
def _stderr_captured(out: list[str], active: bool = True, ours: Callable[[str], bool] | None = None) -> Iterator[None]:
    """Descriptor 2 pointed at a temporary file while the block runs; what C libraries wrote there
    (libtiff prints its errors, e.g. "tempfile.tif: Using code not yet in table.") is appended to
    ``out`` instead of reaching the terminal or the server log. Blocks serialise on a lock. With
    ``ours``, only the lines it accepts are kept in ``out``; the others (another thread's log line
    written meanwhile, in the web server) are written on to descriptor 2 when it is restored."""
    if not active:
        yield
        return
    with _FD2_LOCK:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError, AttributeError):
            yield
            return
        with tempfile.TemporaryFile() as tmp:
            os.dup2(tmp.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
                os.close(saved)
                tmp.seek(0)
                if ours is None:
                    out.append(tmp.read(4096).decode("utf-8", "replace"))
                else:
                    lines = tmp.read().decode("utf-8", "replace").splitlines(keepends=True)
                    out.append("".join(ln for ln in lines if ours(ln))[:4096])
                    others = "".join(ln for ln in lines if not ours(ln))
                    if others:
                        try:
                            os.write(2, others.encode("utf-8", "replace"))
                        except OSError:
                            pass


def _c_message(captured: list[str]) -> str:
    """The first line a C library printed, without libtiff's stand-in file name."""
    for text in captured:
        for line in text.splitlines():
            line = line.strip()
            if line:
                return line.split(": ", 1)[1].rstrip(".") if line.startswith("tempfile.tif: ") else line
    return ""


#: a file that ends early, as a phone's photo copied or downloaded only in part (the byte count Pillow
#: gives is its decoder's buffer, not what is missing)
CUT_SHORT = ("the file is cut short (truncated: it ends before the picture does, as when a copy or "
             "download did not finish); copy the photo again")


def cut_short(in_header: bool = False, again: str = "copy the photo again") -> str:
    """:data:`CUT_SHORT`, said of the file's header when ``in_header``, ending in ``again`` (the web
    page: "upload the photo again")."""
    said = CUT_SHORT.replace("copy the photo again", again)
    return said.replace("the picture does", "its header does") if in_header else said


def says_cut_short(detail: str) -> bool:
    """A decoder's message says the data ended early (Pillow: "image file is truncated (4 bytes not
    processed)"; libheif: "Unexpected end of file: …")."""
    d = detail.lower()
    return "truncated" in d or "end of file" in d


#: the last bytes of a whole file of these formats (JPEG's end-of-image marker, PNG's IEND chunk)
END_MARKS = {"JPEG": b"\xff\xd9", "MPO": b"\xff\xd9", "PNG": b"IEND\xaeB`\x82"}


def file_ends(fp: BinaryIO, size: int, n: int = 16) -> tuple[bytes, bytes]:
    """The first and last ``n`` bytes of the open file ``fp`` of ``size`` bytes (b"", b"" when it
    cannot be read again)."""
    try:
        fp.seek(0)
        head = fp.read(n)
        fp.seek(max(0, size - n))
        return head, fp.read(n)
    except (OSError, ValueError):
        return b"", b""


#: the image formats a photo is read from, as the messages name them (the web page's 415 too)
READ_FORMATS = "JPEG, PNG, WebP, HEIC, AVIF, GIF, BMP or TIFF"
#: Pillow's words for picture data it cannot decode (a garbled JPEG), which tell a user nothing
BROKEN_STREAM = "broken data stream when reading image file"


def damage_words(fmt: str | None, head: bytes, tail: bytes, size: int, detail: str, in_header: bool = False,
                 again: str = "copy the photo again") -> str | None:
    """What a decoder's error ``detail`` on a damaged file means, in words; None when it says neither
    of these:

    * the file is cut short (:func:`cut_short`): a WebP shorter than its RIFF header says (whatever
      the decoder said), or a decoder that ran out of data (:func:`says_cut_short`) in a file that does
      not end as a whole file of its format does (:data:`END_MARKS`);
    * Pillow's "broken data stream" (a garbled picture): its picture data is damaged;
    * the picture data ends early though the file ends whole (a PNG's IEND; a JPEG's end marker too,
      though Pillow reads such a JPEG without a word, its missing blocks grey): the file was damaged
      when it was written, and copying it again will not help.
    """
    if detail == BROKEN_STREAM:  # (Pillow's words for a garbled picture, which told a tester nothing)
        return f"the image file is corrupt: its picture data is damaged; {again}"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and size < int.from_bytes(head[4:8], "little") + 8:
        return cut_short(False, again)  # (Pillow decodes a WebP as it opens it: its picture is what is short)
    if not says_cut_short(detail):
        return None
    mark = END_MARKS.get(fmt or "")
    if mark is not None and tail.endswith(mark):
        return (f"the image file is corrupt: its picture data ends early, though the file ends whole (as a {fmt} "
                f"file does): it was damaged when it was saved, not in the copy; save or export the photo again")
    return cut_short(in_header, again)


#: libjpeg fills the blocks of a JPEG whose picture data ends early with this value in every channel
#: (zero coefficients: level 128), and Pillow decodes such a file without a word when it ends with the
#: end-of-image marker
JPEG_FILL = 128
#: a band of :data:`JPEG_FILL` at least this share of the photo, from one edge, is data lost
GREY_BAND = 0.02


def grey_band(pixels: np.ndarray) -> float:
    """The largest share of ``pixels`` ((H, W, 3) uint8) that is a band of whole lines exactly
    :data:`JPEG_FILL` in every channel, reaching in from one edge (any edge: the EXIF turn may have
    moved the JPEG's last lines); 0.0 when no edge line is all that value. A camera's photo has noise:
    a band so flat is the decoder's fill."""
    h, w = pixels.shape[:2]
    best = 0.0
    for lines, n in ((pixels, h), (pixels[::-1], h), (pixels.transpose(1, 0, 2), w),
                     (pixels.transpose(1, 0, 2)[::-1], w)):
        if not (lines[0] == JPEG_FILL).all():
            continue
        flat = (lines == JPEG_FILL).all(axis=(1, 2))
        k = int(np.argmin(flat)) if not flat.all() else n
        best = max(best, k / n)
    return best


def _decode_error(name: str, e: BaseException, fmt: str | None, fp: BinaryIO, size: int) -> ImageError:
    msg = _header_problem(_detail(e), fmt)
    said = damage_words(fmt, *file_ends(fp, size), size, msg)
    if said is not None:  # (Pillow's byte count meant nothing to a user; libheif's text no more)
        return ImageError(f"{name}: {said}")
    return ImageError(f"{name}: the image file is corrupt" + (f" ({msg})" if msg else "") + "; copy the photo again")


#: libjpeg's warnings of damaged picture data (OpenCV's decoder prints them; Pillow keeps them)
JPEG_WARNINGS = ("Corrupt JPEG data", "Premature end of JPEG file")


def _from_libjpeg(line: str) -> bool:
    """The line printed to descriptor 2 is libjpeg's (its warnings name the JPEG data, file or a marker)."""
    return any(w in line for w in ("JPEG", "JFIF", "marker", "Huffman", "SOS", "SOF"))


def _libjpeg_says(data: bytes) -> tuple[bool, list[str]]:
    """JPEG ``data`` decoded by OpenCV at 1/8 scale in grey with descriptor 2 captured: (decoded, what
    libjpeg printed); (False, []) when OpenCV raises."""
    import cv2

    said: list[str] = []
    try:
        with _stderr_captured(said, ours=_from_libjpeg):
            ok = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_REDUCED_GRAYSCALE_8) is not None
    except cv2.error:
        return False, []
    return ok, said


def jpeg_damage(fp: BinaryIO, size: int) -> str | None:
    """What libjpeg warns of the picture data of the JPEG file ``fp`` (``size`` bytes), decoded again at
    1/8 scale in grey by OpenCV with descriptor 2 captured (Pillow decodes damaged data without a word:
    a tester's demo photo with six bytes changed a third of the way in was read with its lower part
    colour-shifted, its flower missed, and scored at >99 %): the first line naming
    :data:`JPEG_WARNINGS` (``"Corrupt JPEG data: 6 extraneous bytes before marker 0xd9"``), or None.
    Costs a second entropy decode: reading a 24 MP photo whole takes about 1.13× as long."""
    try:
        fp.seek(0)
        data = fp.read(size)
    except (OSError, ValueError):
        return None
    _, said = _libjpeg_says(data)
    for text in said:
        for line in text.splitlines():
            if any(w in line for w in JPEG_WARNINGS):
                return line.strip()[:120]
    return None


def _whole_without_end(fp: BinaryIO, size: int, draft: tuple[int, int] | None) -> Image.Image | None:
    """A JPEG whose file ends without its end-of-image marker though its picture data is whole (some
    cameras and tools write them so; Pillow calls it truncated): decoded with the marker put back
    (``draft``: the size to decode at, as :func:`load_photo` asked). None when the file already ends
    with the marker, or when the picture data itself is cut short: with the marker put back, libjpeg
    fills the blocks it lacks with one colour, and warns "Corrupt JPEG data: premature end of data
    segment", which Pillow keeps to itself and OpenCV's decoder prints (read here, at 1/8 scale)."""
    if file_ends(fp, size, 2)[1] == END_MARKS["JPEG"]:
        return None
    try:
        fp.seek(0)
        data = fp.read(size) + END_MARKS["JPEG"]
        ok, said = _libjpeg_says(data)
        # (no capture, stderr closed under a daemon: the warning cannot be seen, and the file is refused)
        if not ok or not said or any(w in " ".join(said).lower() for w in ("corrupt", "premature", "error")):
            return None
        im = Image.open(io.BytesIO(data))
        if draft is not None:
            im.draft("RGB", draft)
        im.load()
    except Exception:  # noqa: BLE001 - still broken: the caller says why
        return None
    return im


def load_photo(source: Source, work_side: int | None = None) -> Photo:
    """Load a photo as RGB uint8, EXIF orientation applied, in bounded memory.

    ``source``: a path, bytes, or a binary file object. ``work_side``: when given, a larger photo is
    brought down to a long side between ``work_side`` and ``2 × work_side`` pixels (a JPEG decoded at
    a DCT scale of 1/2, 1/4 or 1/8, other formats reduced by an integer factor after decoding);
    None: full resolution. Returns a :class:`Photo`.

    Raises :class:`ImageError` (one line, naming the file) for a missing, unreadable, empty,
    oversized (:data:`MAX_FILE_BYTES`), non-image, corrupt or truncated file, a path that is not a
    regular file (folder, FIFO, device, socket, link loop), an image over :data:`MAX_PIXELS` pixels,
    under :data:`MIN_SIDE` pixels on a side or longer than :data:`MAX_ASPECT`:1, an image whose decode
    would take more than :data:`MAX_DECODE_BYTES` (:func:`decode_bytes`), or an unsupported colour mode.
    A file cut short and one damaged when saved are told apart (:func:`damage_words`); a JPEG that
    lacks only its end-of-image marker is read (:func:`_whole_without_end`).
    """
    if isinstance(source, Photo):  # already loaded
        return source
    _silence_pillow()
    _limit_heap_once()  # a batch worker or the server reads photo after photo: buffers go back
    with ExitStack() as stack:
        im, name, file_bytes, fp = _open(source, stack)
        stack.callback(im.close)
        full_w, full_h = im.size
        try:  # (Pillow looks for a second frame only, and goes back to the first; a camera JPEG's embedded
            # preview or gain map makes it an "animated" MPO, and is no frame of its own: a reviewer's finding)
            more_frames = im.format != "MPO" and bool(getattr(im, "is_animated", False))
        except Exception:  # noqa: BLE001 - a broken second frame: the first is still read, or refused below
            more_frames = False
        need = decode_bytes(im, work_side)
        if need > MAX_DECODE_BYTES:
            raise _too_big(im, name, need)
        k = 1
        draft = None
        if _is_jpeg(im):
            _check_jpeg_data(im, name, file_bytes)
            s = _jpeg_scale(im, work_side)
            if s > 1:
                draft = (max(1, full_w // s), max(1, full_h // s))
                im.draft("RGB", draft)
        else:
            k = _reduce_factor((full_w, full_h), work_side)
        captured: list[str] = []
        with _BUDGET.hold(need), np.errstate(all="ignore"):
            try:
                if _is_heif(im):
                    heif_pixels = _load_heif(im, k)
                    orient, upright = 1, None
                else:
                    heif_pixels = None
                    try:
                        with _stderr_captured(captured, active=im.format == "TIFF"):
                            im.load()
                    except Exception as e:  # noqa: BLE001 - a JPEG without its end marker may be whole
                        whole = _whole_without_end(fp, file_bytes, draft) \
                            if _is_jpeg(im) and says_cut_short(_detail(e)) else None
                        if whole is None:
                            raise
                        im.close()
                        im = stack.enter_context(whole)
                    # (after the load: a PNG's EXIF may lie after its picture data, and Pillow's getexif
                    # loads the image for it; a failed load there left the picture black, unsaid)
                    orient = _orientation(im)
                    small = _reduce(im, k)
                    if small is not im:
                        im.close()  # the full-resolution buffer goes now
                    upright = small.transpose(_ORIENT[orient]) if orient != 1 else small
            except MemoryError:
                raise _too_big(im, name, need) from None
            except Exception as e:  # noqa: BLE001 - broken pixel data raises assorted errors in plugins
                c = _c_message(captured)
                if c and "decoder error" in _detail(e):  # libtiff said what was wrong
                    raise ImageError(f"{name}: the image file is corrupt ({c})") from None
                raise _decode_error(name, e, im.format, fp, file_bytes) from None
            pixels = heif_pixels if heif_pixels is not None else _to_rgb(upright, name)
            damage = None
            if _is_jpeg(im):
                damage = jpeg_damage(fp, file_bytes)
                # (a JPEG cut short with its end marker put back, or damaged when copied: Pillow read it with
                # its lower part blank grey, and the tiles there were simply not found; only when libjpeg
                # also warns: a real photo padded with that grey is a picture, a reviewer's finding)
                if damage is not None and (band := grey_band(pixels)) >= GREY_BAND:
                    raise ImageError(f"{name}: the image file is corrupt: its picture data ends early, and "
                                     f"{band:.0%} of the photo is blank grey where it is missing; copy or save "
                                     f"the photo again")
    turned = orient in (5, 6, 7, 8)
    orig = (full_h, full_w) if turned else (full_w, full_h)
    scale = pixels.shape[1] / orig[0]
    return Photo(pixels=pixels, original_size=orig, scale=float(scale), name=name, damage=damage,
                 more_frames=more_frames)


# ----------------------------------------------------------------------------- the C heap
@lru_cache(maxsize=1)
def _libc():
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:  # pragma: no cover - not glibc
        return None


def limit_heap_growth(threshold: int = MIB) -> bool:
    """Make glibc return large freed blocks to the system (a fixed ``M_MMAP_THRESHOLD``).

    By default glibc raises its mmap threshold after each large free, so that the next decode buffers
    (Pillow allocates images in 16 MB blocks) come from per-thread heaps that keep them after use: a
    server with two worker threads held 450–600 MB after a few large photos. With the threshold
    fixed at ``threshold`` bytes, a decode's buffers go back to the system when it ends. Process-wide;
    set by the first :func:`load_photo` of a process (batch workers, ``serve``). Returns False where
    glibc is not available."""
    libc = _libc()
    if libc is None or not hasattr(libc, "mallopt"):
        return False
    M_MMAP_THRESHOLD = -3
    return bool(libc.mallopt(M_MMAP_THRESHOLD, int(threshold)))


@lru_cache(maxsize=1)
def _limit_heap_once() -> bool:
    return limit_heap_growth()


def release_memory() -> None:
    """Give freed heap memory back to the system (glibc ``malloc_trim``); a no-op elsewhere."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


def load_image(source: Source) -> np.ndarray:
    """Load a photo at full resolution: (H, W, 3) uint8 RGB, EXIF-upright.

    Raises :class:`ImageError` as :func:`load_photo`.
    """
    return load_photo(source).pixels


def same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name the same file (same path, or hard/symbolic links to it): an output
    that would be written over an input (``--annotate`` the photo itself, a batch's ``--out`` its
    manifest)."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, RuntimeError):  # (RuntimeError: a symbolic link that loops, Python 3.11–3.12)
        return False
