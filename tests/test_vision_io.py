"""vision.io: formats, EXIF orientation, colour modes, reduced decoding, and clean failures."""
from __future__ import annotations

import io
import os

import numpy as np
import pytest
from PIL import Image

from vision import io as vio
from vision.errors import ImageError
from vision.io import load_image, load_photo


def _pattern(w=120, h=80) -> Image.Image:
    """A picture whose corners differ: red top-left, blue bottom-right."""
    a = np.zeros((h, w, 3), np.uint8)
    a[: h // 2, : w // 2] = (255, 0, 0)
    a[h // 2:, w // 2:] = (0, 0, 255)
    return Image.fromarray(a)


def _jpeg(im: Image.Image, **kw) -> bytes:
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=95, **kw)
    return buf.getvalue()


def test_jpeg_png_webp_load_as_rgb_uint8(tmp_path):
    im = _pattern()
    for fmt in ("JPEG", "PNG", "WEBP"):
        p = tmp_path / f"x.{fmt.lower()}"
        im.save(p, fmt)
        a = load_image(p)
        assert a.shape == (80, 120, 3) and a.dtype == np.uint8
        assert a[5, 5, 0] > 200 and a[75, 115, 2] > 200


def test_heic_roundtrip(tmp_path):
    pillow_heif = pytest.importorskip("pillow_heif")
    p = tmp_path / "x.heic"
    try:
        _pattern().save(p, "HEIF")
    except Exception as e:  # no HEVC encoder in this libheif build
        pytest.skip(f"cannot write HEIC here: {e}")
    a = load_image(p)
    assert a.shape == (80, 120, 3) and a[5, 5, 0] > 180
    assert pillow_heif is not None


def test_exif_orientation_applied():
    # orientation 6: the stored image must be turned 90° clockwise to be seen upright
    exif = Image.Exif()
    exif[0x0112] = 6
    a = load_image(_jpeg(_pattern(), exif=exif.tobytes()))
    assert a.shape == (120, 80, 3)  # width and height swapped
    # the stored top-left (red) ends at the top-right after a clockwise turn
    assert a[5, 75, 0] > 200 and a[5, 5, 0] < 60
    p = load_photo(_jpeg(_pattern(), exif=exif.tobytes()))
    assert p.original_size == (80, 120)


@pytest.mark.parametrize("mode", ["L", "RGBA", "P", "CMYK", "I;16", "LA", "1"])
def test_colour_modes_normalised(mode):
    im = _pattern().convert("RGBA" if mode in ("RGBA", "LA") else "RGB")
    if mode == "I;16":
        im = Image.fromarray((np.asarray(_pattern().convert("L")).astype(np.uint16) * 257))
    else:
        im = im.convert(mode)
    buf = io.BytesIO()
    im.save(buf, "TIFF" if mode in ("CMYK", "I;16") else "PNG")
    a = load_image(buf.getvalue())
    assert a.shape == (80, 120, 3) and a.dtype == np.uint8
    assert a.max() > 50  # red is 76 in grey


def test_large_jpeg_decoded_at_reduced_scale():
    big = _pattern(1600, 1200)
    p = load_photo(_jpeg(big), work_side=700)
    assert p.original_size == (1600, 1200)
    assert p.scale == 0.5 and p.pixels.shape == (600, 800, 3)
    assert load_photo(_jpeg(big)).scale == 1.0


def test_missing_folder_empty_and_non_image(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="folder"):
        load_image(tmp_path)
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(ImageError, match="empty"):
        load_image(tmp_path / "empty.jpg")
    (tmp_path / "notes.txt").write_text("a finished hand: 123m456p789s11z [777p]\n")
    with pytest.raises(ImageError, match="not an image"):
        load_image(tmp_path / "notes.txt")
    with pytest.raises(ImageError, match="empty"):
        load_image(b"")


def test_truncated_and_corrupt_jpeg():
    data = _jpeg(_pattern(400, 300))
    with pytest.raises(ImageError, match="truncated|corrupt") as e:
        load_image(data[: len(data) // 2])
    assert str(e.value).count("truncated") <= 1
    # what happened and what to do, not the decoder's "(N bytes not processed)": N is its buffer, not
    # what is missing; a file cut inside its header says so too
    assert "cut short" in str(e.value) and "copy the photo again" in str(e.value)
    assert "bytes not processed" not in str(e.value)
    with pytest.raises(ImageError, match="cut short .*its header") as e:
        load_image(data[:300])
    broken = bytearray(data)
    for k in range(200, len(broken) - 10, 7):
        broken[k] = 0
    try:
        load_image(bytes(broken))  # libjpeg may tolerate damaged scan data …
    except ImageError as e:  # … or refuse it; either way never another exception
        assert str(e).count("\n") == 0


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    import struct

    out, pos = [], 8
    while pos < len(png):
        n = struct.unpack(">I", png[pos:pos + 4])[0]
        out.append((png[pos + 4:pos + 8], png[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return out


def _chunk(kind: bytes, data: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@pytest.mark.parametrize("work_side", [None, 100])
def test_a_jpeg_whose_file_lacks_only_its_end_marker_is_read(work_side):
    # a reviewer: a JPEG missing only its last two bytes (the end-of-image marker; some cameras and
    # tools write them so) was refused as "cut short", though all of its picture is there. It is read,
    # the same pixels as the whole file (also decoded at a reduced DCT scale); a file cut inside its
    # picture data is still refused: libjpeg fills the blocks it lacks with one flat colour
    data = _jpeg(_pattern(400, 300))
    assert data.endswith(b"\xff\xd9")
    whole = load_photo(data, work_side)
    short = load_photo(data[:-2], work_side)
    assert short.pixels.shape == whole.pixels.shape and np.array_equal(short.pixels, whole.pixels)
    for cut in (len(data) // 2, len(data) - 40):
        with pytest.raises(ImageError, match="the file is cut short"):
            load_photo(data[:cut], work_side)


@pytest.mark.parametrize("orientation", [1, 6])
def test_a_jpeg_whose_picture_data_ends_early_though_its_file_ends_whole_is_refused(orientation):
    # a tester's JPEG cut inside its picture data with the end-of-image marker put back: Pillow reads it
    # without a word, the lower part of the photo blank grey (libjpeg's fill), and the hand was read from
    # what was left. It is refused, saying how much is missing, also when an EXIF turn moved the band
    rng = np.random.default_rng(0)
    photo = Image.fromarray(rng.integers(0, 256, (300, 400, 3), np.uint8))
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _jpeg(photo, exif=exif.tobytes())
    assert load_photo(data).pixels.shape[:2] == ((300, 400) if orientation == 1 else (400, 300))
    cut = data[: int(len(data) * 0.6)] + b"\xff\xd9"
    with pytest.raises(ImageError, match=r"^<bytes>: the image file is corrupt: its picture data ends early, and "
                                         r"\d+% of the photo is blank grey where it is missing; copy or save the "
                                         r"photo again$"):
        load_photo(cut)
    # a flat band of another grey, or of 128 with a camera's noise, is a picture
    a = rng.integers(0, 256, (300, 400, 3), np.uint8)
    a[-60:] = 127
    assert vio.grey_band(a) == 0.0
    load_photo(_jpeg(Image.fromarray(a)))
    a[-60:] = 128
    assert vio.grey_band(a) == pytest.approx(0.2)
    # a whole JPEG with such a band (padding) is a picture: refused only when libjpeg warns too (a reviewer)
    assert load_photo(_jpeg(Image.fromarray(a))).damage is None
    a[-60:] = np.clip(128 + rng.normal(0, 2, (60, 400, 3)), 0, 255).astype(np.uint8)
    assert vio.grey_band(a) == 0.0


def test_a_jpeg_whose_picture_data_the_decoder_finds_damaged_says_so():
    # a tester's demo photo with six bytes changed a third of the way in: Pillow decodes it without a
    # word, the rest of the picture colour-shifted; libjpeg warns (OpenCV prints it), and the photo
    # carries those words for the reading to flag (vision.pipeline.DAMAGED_PICTURE)
    rng = np.random.default_rng(1)
    data = bytearray(_jpeg(Image.fromarray(rng.integers(0, 256, (300, 400, 3), np.uint8))))
    assert load_photo(bytes(data)).damage is None
    at = int(len(data) * 0.35)
    for k in range(at, at + 6):
        data[k] ^= 0x3C
    photo = load_photo(bytes(data))
    assert photo.damage is not None and photo.damage.startswith("Corrupt JPEG data"), photo.damage
    assert vio.grey_band(photo.pixels) < vio.GREY_BAND  # (read: the picture is there, garbled)


def test_the_jpeg_check_keeps_only_libjpegs_lines_and_passes_on_the_others(capfd):
    # the check points descriptor 2 at a file while OpenCV decodes; in the threaded web server another
    # thread's log line written meanwhile was swallowed with libjpeg's warning. It is written on
    said: list[str] = []
    with vio._stderr_captured(said, ours=vio._from_libjpeg):
        os.write(2, b"INFO: 127.0.0.1 - GET /api/rulesets 200\n")
        os.write(2, b"Corrupt JPEG data: 6 extraneous bytes before marker 0xd9\n")
    assert said == ["Corrupt JPEG data: 6 extraneous bytes before marker 0xd9\n"]
    assert capfd.readouterr().err == "INFO: 127.0.0.1 - GET /api/rulesets 200\n"


def test_damaged_png_and_webp_are_said_as_what_happened():
    # a PNG whose picture data ends early but whose file ends with its IEND chunk was not cut short in a
    # copy ("copy the photo again" will not help): it was damaged when saved. A WebP cut short was called
    # a "corrupt image header (the WebP decoder cannot read its data)": its RIFF header gives its length
    buf = io.BytesIO()
    _pattern(400, 300).save(buf, "PNG")
    png = buf.getvalue()
    ch = _chunks(png)
    idat = b"".join(d for k, d in ch if k == b"IDAT")
    short = png[:8] + b"".join(_chunk(k, d) for k, d in ch if k not in (b"IDAT", b"IEND")) + \
        _chunk(b"IDAT", idat[: len(idat) // 2]) + _chunk(b"IEND", b"")
    with pytest.raises(ImageError) as e:
        load_image(short)
    assert "its picture data ends early, though the file ends whole (as a PNG file does): it was damaged when " \
           "it was saved" in str(e.value) and "cut short" not in str(e.value), str(e.value)
    with pytest.raises(ImageError, match="the file is cut short .*ends before the picture does"):
        load_image(png[: len(png) // 2])
    buf = io.BytesIO()
    _pattern(400, 300).save(buf, "WEBP", quality=80)
    webp = buf.getvalue()
    for cut in (len(webp) // 2, len(webp) - 10):
        with pytest.raises(ImageError) as e:
            load_image(webp[:cut])
        assert "the file is cut short (truncated: it ends before the picture does" in str(e.value), str(e.value)
        assert "decoder" not in str(e.value)


@pytest.mark.parametrize("where", ["first", "middle"])
def test_a_png_whose_picture_data_is_damaged_is_refused_not_read_black(where):
    # a tester: a PNG with a damaged byte in its picture data was read all black ("no tiles found in the
    # photo"), or its top part only ("add a tile the detector missed"): the EXIF lookup, made before the
    # picture was loaded, loaded it for a PNG and swallowed the decoder's error, and the load after it
    # had nothing left to decode. It is refused as corrupt, in one line
    buf = io.BytesIO()
    Image.fromarray(np.random.default_rng(1).integers(0, 255, (300, 400, 3), np.uint8)).save(buf, "PNG")
    data = bytearray(buf.getvalue())
    at = data.index(b"IDAT") + 10 if where == "first" else len(data) // 2
    for k in range(at, at + 20):
        data[k] ^= 0x55
    with pytest.raises(ImageError) as e:
        load_photo(bytes(data))
    assert "the image file is corrupt" in str(e.value) and "copy the photo again" in str(e.value), str(e.value)
    assert "\n" not in str(e.value)


def test_bomb_guard_and_tiny_images(monkeypatch):
    monkeypatch.setattr(vio, "MAX_PIXELS", 1000)
    with pytest.raises(ImageError, match="too large"):
        load_image(_jpeg(_pattern(100, 100)))
    monkeypatch.undo()
    with pytest.raises(ImageError, match="too small"):
        load_image(_jpeg(_pattern(20, 10)))


def test_errors_are_one_line(tmp_path):
    for src in (tmp_path / "nope.jpg", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b"GIF89a" + b"\x01" * 30):
        with pytest.raises(ImageError) as e:
            load_image(src)
        assert "\n" not in str(e.value)
