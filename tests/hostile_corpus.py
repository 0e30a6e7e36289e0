"""A hostile-input corpus for ``mahjong-score photo``: bad, odd and bomb-like image files (issue 16).

:func:`make_corpus` writes the files into a folder (at test time, in a temporary folder; nothing is
committed) and returns one :class:`Case` per file: what it is, and what ``photo`` must answer —
``"readable"`` (a picture: exit 0, or exit 2 with a reading problem such as "no tiles found") or
``"refused"`` (exit 2 with one line naming the problem), optionally with words the line must hold.

Families (about 270 files): valid pictures in every format and colour mode Pillow and pillow-heif
write, EXIF orientations and corrupt EXIF; truncations of each format at several lengths; seeded byte
flips in headers and data; decompression bombs (a 25 KB 1-bit 14400×14400 PNG, 16-bit 12000² PNGs,
headers claiming huge sizes, a JPEG header with no picture data); extreme sizes and aspect ratios;
files that are no image at all (text, HTML, PDF, ZIP, ELF, random bytes, zeros, a sparse 3 GB file);
special paths (folder, FIFO, symbolic link loop, dangling link, links to ``/dev/zero``,
``/dev/urandom`` and ``/dev/null``) and file names with control characters.

Run as a script (``python tests/hostile_corpus.py FILE...``) it calls :func:`cli.main` on each file
in one fresh interpreter, with stderr captured at the descriptor, and prints one JSON line per file
(``{"path", "rc", "stderr", "traceback", "seconds"}``): the test's view of the real command, warnings included.
"""
from __future__ import annotations

import io
import json
import os
import random
import struct
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    path: str
    kind: str  # family, e.g. "format", "truncated", "bomb", "odd", "special"
    expect: str  # "readable" or "refused"
    words: tuple[str, ...] = ()  # each must appear in the error line (case-insensitive)


# ----------------------------------------------------------------------------- raw writers
def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def deflate_repeated(row: bytes, n: int) -> bytes:
    """The zlib stream of ``row * n`` without compressing all of it: one chunk of rows is deflated
    once, ending in a full flush (which resets the compressor, so the chunk's bytes stand alone),
    and repeated; the Adler-32 checksum is computed over the chunks. A 288 MB image costs 1 MB."""
    k = max(1, min(n, (1 << 20) // max(1, len(row))))
    chunk = row * k
    full, rest = divmod(n, k)
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = co.compress(chunk) + co.flush(zlib.Z_FULL_FLUSH)
    last = zlib.compressobj(9, zlib.DEFLATED, -15)
    tail = last.compress(row * rest) + last.flush()
    adler = 1
    for _ in range(full):
        adler = zlib.adler32(chunk, adler)
    adler = zlib.adler32(row * rest, adler)
    return b"\x78\xda" + body * full + tail + struct.pack(">I", adler)


def png_raw(w: int, h: int, depth: int, color: int, fill: int = 0, idat: bytes | None = None,
            extra: bytes = b"") -> bytes:
    """A PNG written chunk by chunk: ``h`` rows of ``fill`` bytes, compressed by streaming (a 14400²
    image costs a row of memory, not the image)."""
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    rowbytes = (w * bpp * depth + 7) // 8
    if idat is None:
        idat = deflate_repeated(b"\x00" + bytes([fill]) * rowbytes, h)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + extra + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def _picture(w: int = 320, h: int = 240, seed: int = 0):
    """A small photo-like RGB picture (gradients and noise) as a Pillow image."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    a = np.stack([x * 255 // max(1, w - 1), y * 255 // max(1, h - 1), (x + y) * 127 // max(1, w + h)], -1)
    a = np.clip(a + rng.integers(-20, 20, a.shape), 0, 255).astype(np.uint8)
    return Image.fromarray(a, "RGB")


def _save(im, fmt: str, **kw) -> bytes:
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


def _jpeg_with_app1(payload: bytes) -> bytes:
    data = _save(_picture(seed=3), "JPEG", quality=85)
    seg = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + seg + data[2:]


def _exif_orientation(v: int) -> bytes:
    from PIL import Image

    ex = Image.Exif()
    ex[0x0112] = v
    return ex.tobytes()


def _claim_jpeg(w: int, h: int, tail: bytes = b"", cut_sos: bool = False, progressive: bool = False) -> bytes:
    """A small JPEG whose frame header claims w×h, with its picture data removed."""
    data = _save(_picture(64, 48), "JPEG", progressive=progressive)
    sof = data.find(b"\xff\xc2" if progressive else b"\xff\xc0")
    d = bytearray(data)
    d[sof + 5:sof + 9] = struct.pack(">HH", h, w)
    sos = data.find(b"\xff\xda")
    if cut_sos:
        return bytes(d[:sos]) + tail
    n = struct.unpack(">H", data[sos + 2:sos + 4])[0]
    return bytes(d[:sos + 2 + n]) + tail


def _valid_images() -> dict[str, bytes]:
    """name → bytes of valid small pictures in every format and mode we can write."""
    from PIL import Image

    pic = _picture()
    out: dict[str, bytes] = {
        "rgb.jpg": _save(pic, "JPEG", quality=90),
        "progressive.jpg": _save(pic, "JPEG", progressive=True),
        "grey.jpg": _save(pic.convert("L"), "JPEG"),
        "cmyk.jpg": _save(pic.convert("CMYK"), "JPEG"),
        "444.jpg": _save(pic, "JPEG", subsampling=0),
        "rgb.png": _save(pic, "PNG"),
        "rgba.png": _save(pic.convert("RGBA"), "PNG"),
        "grey.png": _save(pic.convert("L"), "PNG"),
        "la.png": _save(pic.convert("LA"), "PNG"),
        "palette.png": _save(pic.convert("P"), "PNG"),
        "palette-transparent.png": _save(pic.convert("P"), "PNG", transparency=0),
        "bilevel.png": _save(pic.convert("1"), "PNG"),
        "grey16.png": png_raw(320, 240, 16, 0, fill=0x80),
        "rgb16.png": png_raw(320, 240, 16, 2, fill=0x40),
        "interlaced.png": _save(pic, "PNG", optimize=False),
        "lossy.webp": _save(pic, "WEBP", quality=80),
        "lossless.webp": _save(pic, "WEBP", lossless=True),
        "rgba.webp": _save(pic.convert("RGBA"), "WEBP"),
        "still.gif": _save(pic.convert("P"), "GIF"),
        "animated.gif": _save(pic.convert("P"), "GIF", save_all=True,
                              append_images=[_picture(seed=1).convert("P")], duration=100),
        "rgb.bmp": _save(pic, "BMP"),
        "grey.bmp": _save(pic.convert("L"), "BMP"),
        "raw.tif": _save(pic, "TIFF"),
        "lzw.tif": _save(pic, "TIFF", compression="tiff_lzw"),
        "deflate.tif": _save(pic, "TIFF", compression="tiff_adobe_deflate"),
        "cmyk.tif": _save(pic.convert("CMYK"), "TIFF"),
        "grey16.tif": _save(Image.fromarray(__import__("numpy").full((240, 320), 30000, "uint16")), "TIFF"),
        "icon.ico": _save(pic.resize((64, 64)), "ICO"),
        "pixmap.ppm": _save(pic, "PPM"),
        "targa.tga": _save(pic, "TGA"),
        "paintbrush.pcx": _save(pic, "PCX"),
        "apng.png": _save(pic, "PNG", save_all=True, append_images=[_picture(seed=2)]),
        "tiny-ok.png": _save(_picture(32, 32), "PNG"),
        "wide-ok.png": _save(_picture(640, 32), "PNG"),  # 20:1, the limit: still accepted
        "many-comments.jpg": (lambda d: d[:2] + (b"\xff\xfe" + struct.pack(">H", 65002) + b"c" * 65000) * 40 + d[2:])(
            _save(pic, "JPEG")),
    }
    import numpy as np

    f = np.linspace(0, 1, 320 * 240, dtype=np.float32).reshape(240, 320)
    f[10:20, 10:20] = np.nan
    f[30:40, 30:40] = np.inf
    out["float-nan.tif"] = _save(Image.fromarray(f, "F"), "TIFF")
    for v in range(1, 9):
        out[f"orientation-{v}.jpg"] = _save(pic, "JPEG", exif=_exif_orientation(v))
    for v in (0, 9, 255):
        out[f"orientation-bad-{v}.jpg"] = _save(pic, "JPEG", exif=_exif_orientation(v))
    rng = random.Random(16)
    for i in range(4):  # corrupt EXIF: Pillow warns "Corrupt EXIF data"
        junk = bytes(rng.randrange(256) for _ in range(60))
        out[f"exif-corrupt-{i}.jpg"] = _jpeg_with_app1(b"Exif\x00\x00" + (b"II*\x00" if i % 2 else b"MM\x00*") + junk)
    out["exif-empty.jpg"] = _jpeg_with_app1(b"Exif\x00\x00")
    out["exif-png-garbage.png"] = png_raw(320, 240, 8, 2, fill=90, extra=_chunk(b"eXIf", b"MM\x00*\xff\xff\xff\xff"))
    try:
        import pillow_heif  # noqa: F401

        out["photo.heic"] = _save(pic, "HEIF", quality=60)
    except Exception:  # noqa: BLE001 - no HEIF encoder here: the format is skipped
        pass
    try:
        out["photo.avif"] = _save(pic, "AVIF", quality=60)
    except Exception:  # noqa: BLE001
        pass
    return out


def _bombs() -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    """(name, bytes, expect, words) for decompression bombs and extreme sizes."""
    big = 14400
    return [
        ("bomb-1bit-14400.png", png_raw(big, big, 1, 0), "readable", ()),  # 25 KB, 207 M pixels: decoded in budget
        ("bomb-grey16-12000.png", png_raw(12000, 12000, 16, 0), "readable", ()),
        ("bomb-rgb16-12000.png", png_raw(12000, 12000, 16, 2), "refused", ("memory", "limit")),
        ("bomb-rgba-9000.png", png_raw(9000, 9000, 8, 6), "refused", ("memory",)),
        ("bomb-rgb-10000.png", png_raw(10000, 10000, 8, 2), "refused", ("memory",)),
        ("bomb-claims-20000.png", png_raw(20000, 20000, 8, 0, idat=zlib.compress(b"\x00" * 100)), "refused", ("too large",)),
        ("bomb-claims-65535.png", png_raw(65535, 65535, 1, 0, idat=zlib.compress(b"")), "refused", ("too large",)),
        ("bomb-short-data.png", png_raw(4000, 3000, 8, 2, idat=zlib.compress(b"\x00" * 5000)), "refused",
         ("picture data ends early",)),  # (a whole file, damaged when saved: not "cut short")
        ("strip-200000x32.png", png_raw(200000, 32, 1, 0), "refused", ("narrow",)),
        ("strip-32x200000.png", png_raw(32, 200000, 1, 0), "refused", ("narrow",)),
        ("strip-641x32.png", png_raw(641, 32, 8, 0), "refused", ("narrow",)),
        ("one-pixel.png", png_raw(1, 1, 8, 2), "refused", ("too small",)),
        ("31x31.png", png_raw(31, 31, 8, 2), "refused", ("too small",)),
        ("zero-size.png", png_raw(0, 0, 8, 2), "refused", ()),
        ("jpeg-claims-16000x12000.jpg", _claim_jpeg(16000, 12000), "refused", ("corrupt",)),
        ("jpeg-claims-eoi.jpg", _claim_jpeg(16000, 12000, b"\xff\xd9"), "refused", ("corrupt",)),
        ("jpeg-claims-no-scan.jpg", _claim_jpeg(16000, 12000, cut_sos=True), "refused", ("corrupt",)),
        ("jpeg-progressive-claims.jpg", _claim_jpeg(16000, 12000, b"\xff\xd9", progressive=True), "refused", ()),
        ("jpeg-claims-65500.jpg", _claim_jpeg(65500, 65500, b"\xff\xd9"), "refused", ("too large",)),
        ("gif-claims-65535.gif", b"GIF89a" + struct.pack("<HH", 65535, 65535) + b"\x00\x00\x00" + b",\x00\x00\x00\x00"
         + struct.pack("<HH", 65535, 65535) + b"\x00\x02\x02D\x01\x00;", "refused", ("too large",)),
        ("gif-lzw-8000.gif", _save(__import__("PIL.Image", fromlist=["Image"]).new("P", (8000, 8000)), "GIF"), "readable", ()),
        ("bmp-claims-50000.bmp", b"BM" + struct.pack("<IHHI", 1000, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 50000, 50000, 1, 24, 0, 0, 0, 0, 0, 0) + b"\x00" * 100, "refused", ("too large",)),
        ("bmp-claims-12000.bmp", b"BM" + struct.pack("<IHHI", 1000, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 12000, 12000, 1, 24, 0, 0, 0, 0, 0, 0) + b"\x00" * 100, "refused", ()),
        ("tiff-claims-60000.tif", b"II*\x00\x08\x00\x00\x00" + struct.pack("<H", 4)
         + struct.pack("<HHII", 256, 4, 1, 60000) + struct.pack("<HHII", 257, 4, 1, 60000)
         + struct.pack("<HHII", 258, 3, 1, 8) + struct.pack("<HHII", 273, 4, 1, 8) + b"\x00\x00\x00\x00", "refused", ()),
        ("ztxt-bomb.png", png_raw(320, 240, 8, 2, fill=80, extra=_chunk(b"zTXt", b"k\x00\x00" + zlib.compress(b"a" * 50_000_000, 9))), "refused", ("decompression bomb",)),
        ("bad-crc-text.png", (lambda d: d[:33] + _chunk(b"tEXt", b"k\x00v")[:-4] + b"\x00\x00\x00\x00" + d[33:])(
            png_raw(320, 240, 8, 2, fill=90)), "refused", ("corrupt PNG",)),
        ("many-idat.png", (lambda raw: b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 320, 240, 8, 2, 0, 0, 0))
                           + b"".join(_chunk(b"IDAT", raw[i:i + 7]) for i in range(0, len(raw), 7)) + _chunk(b"IEND", b""))(
            zlib.compress((b"\x00" + b"\x50" * 960) * 240)), "readable", ()),
    ]


def _odd_files() -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    rng = random.Random(1616)
    return [
        ("empty.jpg", b"", "refused", ("empty",)),
        ("one-byte.jpg", b"\xff", "refused", ("not an image",)),
        ("soi-only.jpg", b"\xff\xd8", "refused", ()),
        ("soi-marker.jpg", b"\xff\xd8\xff", "refused", ()),
        ("png-signature-only.png", b"\x89PNG\r\n\x1a\n", "refused", ()),
        ("text.jpg", b"hello, this is not a photo\n", "refused", ("not an image",)),
        ("page.html", b"<!doctype html><html><body><img src=x></body></html>", "refused", ("not an image",)),
        ("drawing.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect/></svg>', "refused", ("not an image",)),
        ("data.json", b'{"tiles": [1, 2, 3]}', "refused", ("not an image",)),
        ("utf16.txt", "photo".encode("utf-16"), "refused", ("not an image",)),
        ("document.pdf", b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n", "refused", ("not an image",)),
        ("archive.zip", b"PK\x03\x04" + b"\x00" * 60, "refused", ("not an image",)),
        ("archive.gz", b"\x1f\x8b\x08\x00" + b"\x00" * 60, "refused", ("not an image",)),
        ("program.elf", b"\x7fELF\x02\x01\x01" + b"\x00" * 120, "refused", ("not an image",)),
        ("movie.mp4", b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"\x00" * 100, "refused", ()),
        ("fake.heic", b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(rng.randrange(256) for _ in range(300)), "refused", ()),
        ("random-1k.jpg", bytes(rng.randrange(256) for _ in range(1024)), "refused", ()),
        ("random-100k.png", bytes(rng.randrange(256) for _ in range(100_000)), "refused", ()),
        ("zeros-1m.jpg", b"\x00" * 1_000_000, "refused", ("not an image",)),
        ("png-named.jpg", _save(_picture(), "PNG"), "readable", ()),
        ("jpeg-named.png", _save(_picture(), "JPEG"), "readable", ()),
        ("psd-header.psd", b"8BPS\x00\x01" + b"\x00" * 6 + struct.pack(">HIIHH", 3, 30000, 30000, 8, 3) + b"\x00" * 40, "refused", ()),
    ]


def _mutations(valid: dict[str, bytes]) -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    """Truncations and seeded byte flips of the valid files (expect: refused, or readable where the
    damage happens to leave a picture — then any answer but a traceback is accepted)."""
    out = []
    rng = random.Random(42)
    bases = ["rgb.jpg", "progressive.jpg", "rgb.png", "palette.png", "lossy.webp", "lossless.webp", "still.gif",
             "rgb.bmp", "lzw.tif", "raw.tif", "icon.ico", "targa.tga", "photo.heic", "grey16.png"]
    for name in bases:
        data = valid.get(name)
        if data is None:
            continue
        stem, ext = os.path.splitext(name)
        for frac in (0.0, 0.3, 0.6, 0.95):
            n = 8 if frac == 0.0 else int(len(data) * frac)
            out.append((f"truncated-{stem}-{int(frac * 100)}{ext}", data[:n], "any", ()))
        for i in range(6):
            d = bytearray(data)
            lo, hi = (2, min(len(d), 64)) if i < 3 else (64, len(d))
            for _ in range(1 + i):
                p = rng.randrange(lo, max(lo + 1, hi))
                d[p] = rng.randrange(256)
            out.append((f"flipped-{stem}-{i}{ext}", bytes(d), "any", ()))
    return out


def make_corpus(root: str | os.PathLike) -> list[Case]:
    """Write the corpus into ``root`` (created) and return its cases (≥ 250)."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []

    def put(name: str, data: bytes, kind: str, expect: str, words: tuple[str, ...] = ()) -> None:
        p = root / name
        p.write_bytes(data)
        cases.append(Case(str(p), kind, expect, words))

    valid = _valid_images()
    for name, data in valid.items():
        put(f"valid-{name}", data, "format", "readable")
    for name, data, expect, words in _bombs():
        put(name, data, "bomb", expect, words)
    for name, data, expect, words in _odd_files():
        put(name, data, "odd", expect, words)
    for name, data, expect, words in _mutations(valid):
        put(name, data, "mutated", expect, words)
    demo = REPO / "docs" / "demo.jpg"
    if demo.is_file():
        cases.append(Case(str(demo), "photo", "readable"))
        from PIL import Image

        with Image.open(demo) as im:
            put("demo-as.png", _save(im, "PNG"), "photo", "readable")
            put("demo-turned.jpg", _save(im.transpose(Image.Transpose.ROTATE_90), "JPEG", quality=92,
                                         exif=_exif_orientation(6)), "photo", "readable")
    # file names with control and odd characters (the picture is fine)
    for i, nm in enumerate(["new\nline.jpg", "esc\x1b[31mred.jpg", "tab\there.jpg", "bell\x07.jpg", "del\x7f.jpg",
                            "ünïcødé 麻將.jpg", "spaces in name.jpg", "x" * 240 + ".jpg"]):
        put(nm, valid["rgb.jpg"], "name", "readable")
    # special paths
    folder = root / "a-folder.jpg"
    folder.mkdir(exist_ok=True)
    cases.append(Case(str(folder), "special", "refused", ("folder",)))
    fifo = root / "pipe.jpg"
    if hasattr(os, "mkfifo"):
        if not fifo.exists():
            os.mkfifo(fifo)
        cases.append(Case(str(fifo), "special", "refused", ("named pipe",)))
    loop_a, loop_b = root / "loop-a.jpg", root / "loop-b.jpg"
    for a, b in ((loop_a, loop_b), (loop_b, loop_a)):
        if not a.is_symlink():
            os.symlink(b, a)
    cases.append(Case(str(loop_a), "special", "refused", ("link loop",)))
    dangling = root / "dangling.jpg"
    if not dangling.is_symlink():
        os.symlink(root / "gone" / "nothing.jpg", dangling)
    cases.append(Case(str(dangling), "special", "refused", ("missing file",)))
    cases.append(Case(str(root / "never-written.jpg"), "special", "refused", ("no such file",)))
    cases.append(Case(str(root / "rgb.jpg" / "below-a-file.jpg"), "special", "refused", ("no such file",)))
    for dev in ("/dev/zero", "/dev/urandom", "/dev/null"):
        if os.path.exists(dev):
            link = root / f"link-to-{Path(dev).name}.jpg"
            if not link.is_symlink():
                os.symlink(dev, link)
            cases.append(Case(str(link), "special", "refused", ("device",)))
            cases.append(Case(dev, "special", "refused", ("device",)))
    sparse = root / "sparse-3gb.jpg"
    with sparse.open("wb") as f:
        f.truncate(3 * 2**30)
    cases.append(Case(str(sparse), "special", "refused", ("larger than any photo",)))
    return cases


# ----------------------------------------------------------------------------- runner
def run_photo_commands(paths: list[str], extra: list[str]) -> list[dict]:
    """``mahjong-score photo PATH *extra`` for each path, in this process, with stdout discarded
    and stderr captured at descriptor 2: a list of ``{"path", "rc", "stderr", "traceback"}``."""
    import tempfile
    import traceback

    sys.path.insert(0, os.environ.get("MAHJONG_CORPUS_REPO", str(REPO)))  # (benchmarks: another checkout)
    import cli

    results = []
    devnull = os.open(os.devnull, os.O_WRONLY)
    for p in paths:
        with tempfile.TemporaryFile() as err:
            sys.stdout.flush()
            sys.stderr.flush()
            saved_out, saved_err = os.dup(1), os.dup(2)
            os.dup2(devnull, 1)
            os.dup2(err.fileno(), 2)
            tb = None
            t0 = time.perf_counter()
            try:
                rc = cli.main(["photo", p, *extra])
            except SystemExit as e:  # argparse (e.g. a name starting with '-')
                rc = e.code if isinstance(e.code, int) else 2
            except BaseException:  # noqa: BLE001 - what the test looks for
                rc, tb = -1, traceback.format_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved_out, 1)
                os.dup2(saved_err, 2)
                os.close(saved_out)
                os.close(saved_err)
            err.seek(0)
            text = err.read().decode("utf-8", "replace")
        results.append({"path": p, "rc": rc, "stderr": text, "traceback": tb,
                        "seconds": round(time.perf_counter() - t0, 3)})
    return results


if __name__ == "__main__":
    # python tests/hostile_corpus.py --list LIST.json [photo options…]: one JSON result per line
    args = sys.argv[1:]
    if args[:1] == ["--list"]:
        paths = json.loads(Path(args[1]).read_text())
        extra = args[2:]
    else:
        paths, extra = args, []
    for r in run_photo_commands(paths, extra):
        sys.stdout.write(json.dumps(r, ensure_ascii=True) + "\n")
        sys.stdout.flush()
