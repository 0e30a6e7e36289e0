"""More tile art for the renders (issue 18, item 4): open-licence tile sets of the KDE and GNOME
mahjongg games, rasterised once into art layers that :mod:`datasets.faces` reads as extra sources.

The sets are not in ``../shared`` and none of their files is committed: the user fetches the two
projects (``git clone https://invent.kde.org/games/libkmahjongg`` — or its mirror
github.com/KDE/libkmahjongg — and ``git clone https://gitlab.gnome.org/GNOME/gnome-mahjongg``, mirror
github.com/GNOME/gnome-mahjongg) and runs::

    python -m datasets.extra_art --kde LIBKMAHJONGG/tilesets --gnome GNOME-MAHJONGG/data/themes [--out DIR]

It writes ``DIR/<set>/<code>.png`` — an RGBA art layer per tile code (ink on transparent, cropped to the
ink) — and ``DIR/<set>/SOURCE.json`` (author, licence, origin). ``DIR`` defaults to
:func:`datasets.paths.extra_art_dir` (``$MAHJONG_EXTRA_ART``, else ``<data_root()>/tile-art-extra``).
Renders use these sets only when asked (``datasets.synth --extra-art F``).

KDE tilesets are SVG sprite sheets with one element per face (``CHARACTER_1`` …); each is rasterised
with ``rsvg-convert --export-id`` (Debian ``librsvg2-bin``). Element names do not say the identity
the same way in every set (the game only matches "any flower"), so the maps below were checked by
looking at every face: KDE's ``ROD_*`` are circles and ``BAMBOO_*`` bamboo; winds run N S E W in most
sets, E S W N in ``bamboo``; ``classic`` has Orchid as ``FLOWER_1`` and Plum as ``FLOWER_2``.
GNOME themes are one strip of 43 whole-tile cells (top row); the face is cut out and the body colour
keyed out to transparency.

Licences (all allow this use; the model card credits them): KDE ``traditional`` © 2007 James L.
Hammons, ``default`` © 2006 Raquel Ravanini, ``classic`` © 2006 Robert Buchholz — GPL-2.0-or-later;
``bamboo`` © 2009 Matthew Woehlke, 2006 Robert Buchholz — GPL-3.0-or-later; GNOME ``smooth`` (from
github.com/j-evins/smooth-tileset) and ``postmodern`` © 2004–2025 Mahjongg Contributors —
GPL-2.0-or-later.

Faces are cropped to their ink and the renderer fits each into the face (:func:`datasets.faces.set_art`),
so the ink's margin differs a little from face to face, unlike the games, which scale every face's
bound box alike (a known simplification of classifier version 4's data).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from vision.classes import CLASS_INDEX

from .faces import ART_H, ART_W
from .paths import extra_art_dir


class ExtraArtError(RuntimeError):
    """A tile set file is missing or could not be rasterised."""


_KDE_SETS = {
    "traditional": ("James L. Hammons, 2007", "GPL-2.0-or-later"),
    "default": ("Raquel Ravanini, 2006", "GPL-2.0-or-later"),
    "classic": ("Robert Buchholz, 2006", "GPL-2.0-or-later"),
    "bamboo": ("Matthew Woehlke 2009, Robert Buchholz 2006", "GPL-3.0-or-later"),
}
_WINDS_NSEW = {"WIND_1": "4z", "WIND_2": "2z", "WIND_3": "1z", "WIND_4": "3z"}
_WINDS_ESWN = {"WIND_1": "1z", "WIND_2": "2z", "WIND_3": "3z", "WIND_4": "4z"}
_FLOWERS = {f"FLOWER_{r}": f"{r}f" for r in range(1, 5)}


def kde_map(name: str) -> dict[str, str]:
    """Element id → tile code (42 faces) for the KDE tileset ``name`` (checked face by face, see module doc).

    Raises :class:`ExtraArtError` for a set whose faces were not checked (not in :data:`_KDE_SETS`)."""
    if name not in _KDE_SETS:
        raise ExtraArtError(f"KDE tileset {name!r} has no checked map (known: {', '.join(_KDE_SETS)})")
    m = {f"CHARACTER_{r}": f"{r}m" for r in range(1, 10)}
    m |= {f"ROD_{r}": f"{r}p" for r in range(1, 10)}
    m |= {f"BAMBOO_{r}": f"{r}s" for r in range(1, 10)}
    m |= {"DRAGON_1": "5z", "DRAGON_2": "6z", "DRAGON_3": "7z"}
    m |= {f"SEASON_{r}": f"{r}y" for r in range(1, 5)}
    m |= _WINDS_ESWN if name == "bamboo" else _WINDS_NSEW
    m |= {"FLOWER_1": "2f", "FLOWER_2": "1f", "FLOWER_3": "3f", "FLOWER_4": "4f"} if name == "classic" else _FLOWERS
    return m


#: GNOME theme strip: cell index → tile code (cells 0–8 circles, 9–12 N W S E, 13 Red, 14 Green, 15–23
#: characters, 24–32 bamboo, 33–36 flowers, 37 White, 38–41 seasons, 42 blank)
GNOME_CELLS = ([f"{r}p" for r in range(1, 10)] + ["4z", "3z", "2z", "1z", "7z", "6z"]
               + [f"{r}m" for r in range(1, 10)] + [f"{r}s" for r in range(1, 10)]
               + ["2f", "3f", "1f", "4f", "5z", "1y", "2y", "3y", "4y", None])
#: per theme: file, licence, and which cells to leave out (postmodern's bonus cells are weather and
#: flower pictures whose flower/season identity the art does not say)
_GNOME = {
    "smooth": ("smooth.png", "GPL-2.0-or-later", set()),
    "postmodern": ("postmodern.svg", "GPL-2.0-or-later", {33, 34, 35, 36, 38, 39, 40, 41}),
}


def _crop_to_ink(a: np.ndarray, pad: int = 2) -> np.ndarray:
    ys, xs = np.nonzero(a[..., 3] > 8)
    if not len(xs):  # a blank face (e.g. a Japanese-style White): a transparent layer of the art's shape
        return np.zeros((ART_H, ART_W, 4), np.uint8)
    y0, y1 = max(0, ys.min() - pad), min(a.shape[0], ys.max() + 1 + pad)
    x0, x1 = max(0, xs.min() - pad), min(a.shape[1], xs.max() + 1 + pad)
    return a[y0:y1, x0:x1]


def _run(cmd: list[str], what: str) -> None:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ExtraArtError(f"{what}: {e}") from None
    if r.returncode != 0:
        raise ExtraArtError(f"{what}: {r.stderr.strip()[:200]}")


def _sha256(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()


def _rsvg_version() -> str:
    r = subprocess.run([_rsvg(), "--version"], capture_output=True, text=True, timeout=30)
    return r.stdout.strip()


def _fresh(dst: Path) -> Path:
    """``dst`` emptied (no stale faces of an earlier extraction) and created."""
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    return dst


def _rsvg() -> str:
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise ExtraArtError("rsvg-convert not found: install Debian's librsvg2-bin")
    return exe


def rasterise_element(svg: Path, element: str, zoom: float = 3.0) -> np.ndarray:
    """One SVG element as (H, W, 4) uint8 RGBA pixels, cropped to its ink (alpha > 8, 2 px kept);
    ``zoom``: pixels per SVG user unit. Source: ``rsvg-convert --export-id`` (librsvg).

    Raises :class:`ExtraArtError` when rsvg-convert is missing, fails or writes nothing."""
    from PIL import Image

    with tempfile.TemporaryDirectory() as td:
        out = Path(td) / "e.png"
        _run([_rsvg(), f"--export-id={element}", "--zoom", str(zoom), str(svg), "-o", str(out)],
             f"{svg.name}: cannot rasterise element {element}")
        if not out.exists():
            raise ExtraArtError(f"{svg.name}: rsvg-convert wrote nothing for element {element}")
        return _crop_to_ink(np.asarray(Image.open(out).convert("RGBA")))


def key_out_body(cell: np.ndarray, face=(0.07, 0.05, 0.85, 0.80), soft: tuple[float, float] = (28.0, 70.0)) -> np.ndarray:
    """The face of a whole-tile cell ``(H, W, 4) uint8 RGBA`` as an ink layer ``(h, w, 4) uint8 RGBA``
    cropped to its ink: the ``face`` box (fractions of W and H: x0 y0 x1 y1) cut out and the body
    colour (the median of the box's 3-px border) made transparent, softly between the ``soft`` colour
    distances (Euclidean, RGB 0..255 units)."""
    H, W = cell.shape[:2]
    x0, y0, x1, y1 = int(face[0] * W), int(face[1] * H), int(face[2] * W), int(face[3] * H)
    f = cell[y0:y1, x0:x1].astype(np.float32)
    border = np.concatenate([f[:3].reshape(-1, 4), f[-3:].reshape(-1, 4), f[:, :3].reshape(-1, 4), f[:, -3:].reshape(-1, 4)])
    body = np.median(border[:, :3], 0)
    dist = np.linalg.norm(f[..., :3] - body, axis=2)
    alpha = np.clip((dist - soft[0]) / (soft[1] - soft[0]), 0, 1) * (f[..., 3] / 255.0)
    out = np.zeros(f.shape, np.uint8)
    out[..., :3] = np.clip(f[..., :3], 0, 255).astype(np.uint8)
    out[..., 3] = (alpha * 255).astype(np.uint8)
    return _crop_to_ink(out)


def _save(dst: Path, code: str, a: np.ndarray) -> None:
    from PIL import Image

    if code not in CLASS_INDEX:
        raise ExtraArtError(f"unknown tile code {code}")
    Image.fromarray(a, "RGBA").save(dst / f"{code}.png")


def extract_kde(src: Path, out: Path) -> list[str]:
    """Every KDE tileset of :data:`_KDE_SETS` found in ``src`` (``NAME.svg`` or ``NAME.svgz``) →
    ``out/kde-NAME`` (emptied first). Returns the folder names written; raises :class:`ExtraArtError`."""
    done = []
    for name, (author, lic) in _KDE_SETS.items():
        svg = next((p for p in (src / f"{name}.svg", src / f"{name}.svgz") if p.exists()), None)
        if svg is None:
            print(f"  kde {name}: not in {src}, skipped", file=sys.stderr)
            continue
        dst = _fresh(out / f"kde-{name}")
        for element, code in kde_map(name).items():
            _save(dst, code, rasterise_element(svg, element))
        (dst / "SOURCE.json").write_text(json.dumps({
            "set": f"KDE libkmahjongg tileset '{name}'", "author": author, "licence": lic,
            "origin": "https://invent.kde.org/games/libkmahjongg (mirror github.com/KDE/libkmahjongg), tilesets/"
                      f"{svg.name}", "sha256": _sha256(svg), "rasteriser": _rsvg_version()}, indent=1) + "\n")
        done.append(dst.name)
    return done


def extract_gnome(src: Path, out: Path) -> list[str]:
    """The GNOME themes of :data:`_GNOME` found in ``src`` → ``out/gnome-NAME`` (emptied first). Returns
    the folder names written; raises :class:`ExtraArtError` for a file that is not a 43-cell strip."""
    from PIL import Image

    done = []
    for name, (fname, lic, skip) in _GNOME.items():
        p = src / fname
        if not p.exists():
            print(f"  gnome {name}: not in {src}, skipped", file=sys.stderr)
            continue
        if p.suffix == ".svg":
            with tempfile.TemporaryDirectory() as td:
                png = Path(td) / "t.png"
                _run([_rsvg(), "--zoom", "2", str(p), "-o", str(png)], f"{p.name}: cannot rasterise")
                strip = np.asarray(Image.open(png).convert("RGBA"))
        else:
            try:
                strip = np.asarray(Image.open(p).convert("RGBA"))
            except OSError as e:
                raise ExtraArtError(f"{p.name}: not an image: {e}") from None
        H, W = strip.shape[:2]
        if not 25 < W / (H / 2) < 38:  # 43 cells of a tile's aspect (about 0.7 wide per high), two rows
            raise ExtraArtError(f"{p.name}: {W}×{H} px is not a strip of 43 tiles in two rows")
        cw = W / len(GNOME_CELLS)
        dst = _fresh(out / f"gnome-{name}")
        for i, code in enumerate(GNOME_CELLS):
            if code is None or i in skip:
                continue
            cell = strip[: H // 2, int(round(i * cw)): int(round((i + 1) * cw))]
            _save(dst, code, key_out_body(cell))
        (dst / "SOURCE.json").write_text(json.dumps({
            "set": f"GNOME Mahjongg theme '{name}'", "author": "Mahjongg Contributors, 2004-2025", "licence": lic,
            "origin": f"https://gitlab.gnome.org/GNOME/gnome-mahjongg (mirror github.com/GNOME/gnome-mahjongg), data/themes/{fname}"
                      + (" (smooth: from github.com/j-evins/smooth-tileset)" if name == "smooth" else ""),
            "sha256": _sha256(p), "rasteriser": _rsvg_version() if p.suffix == ".svg" else None},
            indent=1) + "\n")
        done.append(dst.name)
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.extra_art", description=__doc__.split("\n")[0])
    ap.add_argument("--kde", type=Path, default=None, help="libkmahjongg's tilesets/ folder")
    ap.add_argument("--gnome", type=Path, default=None, help="gnome-mahjongg's data/themes/ folder")
    ap.add_argument("--out", type=Path, default=None, help="default: $MAHJONG_EXTRA_ART or <data>/tile-art-extra")
    a = ap.parse_args(argv)
    if a.kde is None and a.gnome is None:
        ap.error("give --kde and/or --gnome")
    out = a.out or extra_art_dir()
    done = []
    try:
        for src, fn in ((a.kde, extract_kde), (a.gnome, extract_gnome)):
            if src is not None:
                if not src.is_dir():
                    raise ExtraArtError(f"no folder {src}")
                done += fn(src, out)
    except ExtraArtError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{len(done)} sets in {out}: {', '.join(done)}")
    return 0 if done else 2


if __name__ == "__main__":
    sys.exit(main())
