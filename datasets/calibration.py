"""Renders of one tile set for calibration (``mahjong-score calibrate``), and its measurement.

:func:`tile_set` makes one physical set (procedural faces, optionally with recoloured art, which the
classifier never saw: a stand-in for an unseen real set); :func:`calibration_render` lays the 42
faces of :data:`vision.tileset.DEFAULT_LAYOUT` out in rows (9 9 9 7 8) as a calibration photo;
:func:`test_renders` are other photos of the same set (the generator's crop grids: every pose,
standing and lying, close-ups).

``python -m datasets.calibration [--sets 6] [--renders 6] [--recolour] [--photos 1]`` calibrates on one render
of each set through the whole calibration path (detector, reading order, profile) and prints the
classifier's top-1 on the other renders' tiles (true boxes, every face tile ≥ 90 % visible) without
and with the profile, and the calibration time. A calibration photo in which the detector misses or
doubles a tile is refused (as ``calibrate`` refuses it) and counted as ``refused``.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from vision.classes import BACK, CLASS_INDEX

from .faces import NoFontError
from .scene import TileSet, render_scene

#: the default layout in rows of the calibration photo
ROWS = (9, 9, 9, 7, 8)
PROC = {"proc": 1.0}


class RecolouredSet(TileSet):
    """A tile set whose face textures have their colour channels turned (R, G, B → B, R, G): red
    numerals turn green, green sticks blue — colours the classifier never saw in training."""

    def face(self, code: str) -> np.ndarray:
        t = self._faces.get(code)
        if t is None:
            t = super().face(code).copy()
            t[..., :3] = t[..., [2, 0, 1]]
            self._faces[code] = t
        return t


def tile_set(k: int, recolour: bool = False) -> TileSet:
    """Physical set number ``k`` (procedural faces; a pure function of ``k`` and ``recolour``)."""
    return (RecolouredSet if recolour else TileSet)(np.random.default_rng([int(k), 7701]), PROC)


def layout_rows(codes) -> list[list[str]]:
    codes, rows, i = list(codes), [], 0
    for n in ROWS:
        rows.append(codes[i:i + n])
        i += n
    if i < len(codes):
        rows.append(codes[i:])
    return [r for r in rows if r]


def calibration_render(ts: TileSet, seed: int, codes=None, W: int = 1280, H: int = 960):
    """A :class:`datasets.scene.Scene` of ``codes`` (default: the 42-face layout) laid out upright."""
    from vision.tileset import DEFAULT_LAYOUT

    return render_scene(seed, 0, W, H, sources=PROC, crops_only=True, tileset=ts,
                        grid=layout_rows(DEFAULT_LAYOUT if codes is None else codes))


def test_renders(ts: TileSet, seed: int, n: int, W: int = 960, H: int = 720):
    """``n`` other photos of the set: crop grids, every second one a close-up."""
    return [render_scene(seed, i, W, H, sources=PROC, crops_only=True, tileset=ts, close=i % 2 == 0)
            for i in range(1, n + 1)]


def face_tiles(scene, visible: float = 0.9):
    """(boxes (N, 4) float32 xyxy pixels, codes) of the face-up tiles at least ``visible`` shown."""
    tl = [t for t in scene.tiles if t.visible >= visible and not t.truncated and t.placed.shown != BACK]
    return np.array([t.xyxy for t in tl], np.float32).reshape(-1, 4), [t.placed.shown for t in tl]


def accuracy(classifier, scenes) -> tuple[int, int]:
    """(right, tiles) of ``classifier`` on the face tiles of ``scenes`` (true boxes)."""
    from vision.detect import Detections

    right = n = 0
    for sc in scenes:
        boxes, codes = face_tiles(sc)
        if not len(codes):
            continue
        got = classifier(sc.image, Detections.make(boxes)).codes
        right += sum(a == b for a, b in zip(got, codes))
        n += len(codes)
    return right, n


def measure(sets: int = 6, renders: int = 6, recolour: bool = True, start: int = 0, photos: int = 1) -> dict:
    """Calibrate on ``photos`` renders of the layout per set (saved as JPEG and read back, through
    :func:`vision.tileset.calibrate`), then top-1 without/with the profile on ``renders`` others."""
    import os

    from PIL import Image

    from vision.classify import load_classifier
    from vision.detect import load_detector
    from vision.errors import CalibrationError
    from vision.tileset import calibrate, with_tileset

    clf, det = load_classifier(glyphs=False), load_detector()  # the profile measured against the model alone
    rows, tot = [], {"before": [0, 0], "after": [0, 0]}
    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("MAHJONG_TILESETS")
        os.environ["MAHJONG_TILESETS"] = tmp
        try:
            for k in range(start, start + sets):
                ts = tile_set(k, recolour)
                shots = []
                for j in range(photos):
                    shots.append(Path(tmp) / f"set{k}-{j}.jpg")
                    Image.fromarray(calibration_render(ts, 900 + k + 1000 * j).image).save(shots[-1], quality=90)
                try:
                    cal = calibrate(shots, f"set{k}", detector=det, classifier=clf)
                except CalibrationError as e:  # the detector missed or doubled a tile: refused, counted
                    rows.append({"set": k, "style": ts.style, "refused": str(e).split(": ", 1)[1][:60]})
                    print(json.dumps(rows[-1]), flush=True)
                    continue
                scenes = test_renders(ts, 900 + k, renders)
                b = accuracy(clf, scenes)
                a = accuracy(with_tileset(clf, cal.profile), scenes)
                rows.append({"set": k, "style": ts.style, "calibration_s": round(cal.seconds, 3),
                             "calibration_model_right": cal.photos[0].model_right, "tiles": b[1],
                             "before": round(b[0] / b[1], 4), "after": round(a[0] / a[1], 4),
                             "min_margin": cal.separation["min_margin"], "loo": cal.separation["loo_accuracy"]})
                for key, v in (("before", b), ("after", a)):
                    tot[key][0] += v[0]
                    tot[key][1] += v[1]
                print(json.dumps(rows[-1]), flush=True)
        finally:
            if old is None:
                os.environ.pop("MAHJONG_TILESETS", None)
            else:
                os.environ["MAHJONG_TILESETS"] = old
    return {"sets": rows, "before": round(tot["before"][0] / max(tot["before"][1], 1), 4),
            "after": round(tot["after"][0] / max(tot["after"][1], 1), 4), "tiles": tot["before"][1],
            "refused": sum("refused" in r for r in rows),
            "calibration_s_max": max((r["calibration_s"] for r in rows if "calibration_s" in r), default=None)}


def write_photos(folder: Path, k: int = 0, recolour: bool = False, hands: int = 3) -> list[Path]:
    """JPEGs of set ``k`` to try ``calibrate`` and ``photo --tileset`` with: its calibration layout
    (``calibration-K.jpg``) and ``hands`` hand photos of the same set (``hand-K-i.jpg``). Returns the paths."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    ts = tile_set(k, recolour)
    out = [folder / f"calibration-{k}.jpg"]
    Image.fromarray(calibration_render(ts, 900 + k).image).save(out[0], quality=90)
    for i in range(1, hands + 1):
        out.append(folder / f"hand-{k}-{i}.jpg")
        Image.fromarray(render_scene(900 + k, 100 + i, 1280, 960, sources=PROC, tileset=ts).image).save(out[-1], quality=90)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.calibration", description=__doc__.split("\n")[0])
    ap.add_argument("--sets", type=int, default=6)
    ap.add_argument("--renders", type=int, default=6)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--recolour", action="store_true", help="recoloured art (colours the classifier never saw)")
    ap.add_argument("--photos", type=int, default=1, help="calibration photos per set (other renders of the layout)")
    ap.add_argument("--write", type=Path, default=None, metavar="DIR",
                    help="instead of measuring, write photos of set --start to try calibration without a tile set: "
                         "DIR/calibration-K.jpg (its 42 faces laid out) and DIR/hand-K-1..3.jpg (hands of the same set)")
    a = ap.parse_args(argv)
    try:
        if a.write is not None:
            for p in write_photos(a.write, a.start, a.recolour):
                print(p)
            return 0
        t0 = time.perf_counter()
        res = measure(a.sets, a.renders, a.recolour, a.start, a.photos)
    except NoFontError as e:  # the procedural tile sets cannot be drawn
        print(f"error: {e}", file=sys.stderr)
        return 2
    res["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps({k: v for k, v in res.items() if k != "sets"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
