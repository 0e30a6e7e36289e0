"""Benchmark: ``mahjong-score calibrate`` on a 12 MP photo of the 42 faces, beside reading a photo.

    python benchmarks/bench_calibrate.py [--runs 5]

The photo is a calibration render (``datasets/calibration.py``: procedural set 0, render seed 902, the 42 faces of the
default layout in rows of 9 9 9 7 8) enlarged to 4000 × 3000 and saved as a JPEG (quality 92), read
from disk on every run. Timed, median of ``--runs`` warm runs (one warm-up excluded):

* ours: :func:`vision.tileset.calibrate` — load, detection (+ zoomed pass), reading order, crops,
  classifier with its ``embedding`` output, checks, the separation report and saving the profile
  (``--replace``, into a temporary ``$MAHJONG_TILESETS``);
* baseline: the model half of reading the same file as a photo — load, detection (+ zoomed pass),
  classification with the turn search (``vision.pipeline.read_photo`` without layout and decoding);

and once, cold, the whole command ``mahjong-score calibrate PHOTO --name bench`` in a fresh Python
process (start-up and model loading included) — the figure the issue's bound (≤ 10 s) is about.
Needs a CJK font (the procedural faces).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn, runs: int) -> float:
    fn()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    import cv2

    from datasets.calibration import calibration_render, tile_set

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MAHJONG_TILESETS"] = str(Path(tmp) / "tilesets")
        photo = Path(tmp) / "calibration-12mp.jpg"
        img = calibration_render(tile_set(0), 902).image
        big = cv2.resize(img, (4000, 3000), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(photo), cv2.cvtColor(big, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92])
        from vision.classify import load_classifier
        from vision.detect import load_detector
        from vision.io import load_photo
        from vision.pipeline import WORK_SIDE, detect_zoomed
        from vision.tileset import calibrate

        det, clf = load_detector(), load_classifier()

        def read_tiles():  # the model half of reading a photo: load, detect, classify
            ph = load_photo(photo, work_side=WORK_SIDE)
            return clf(ph.pixels, detect_zoomed(ph.pixels, det))

        t_cal = timed(lambda: calibrate([photo], "bench", replace_existing=True), a.runs)
        t_read = timed(read_tiles, a.runs)
        cal = calibrate([photo], "bench", replace_existing=True)
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "cli", "calibrate", str(photo), "--name", "cold", "--replace"],
                           cwd=ROOT, capture_output=True, text=True)
        t_cold = time.perf_counter() - t0
        if r.returncode != 0:
            print(r.stderr, file=sys.stderr)
            return 1
    print(f"photo 4000x3000 JPEG, {cal.photos[0].tiles} tiles; the classifier alone reads "
          f"{cal.photos[0].model_right} of them as the layout says")
    print(f"calibrate (warm, median of {a.runs}):  {t_cal * 1000:8.1f} ms")
    print(f"load+detect+classify (warm, median of {a.runs}): {t_read * 1000:8.1f} ms   ratio {t_cal / t_read:.2f}")
    print(f"`mahjong-score calibrate` cold, one run (process start and model loading included): {t_cold:.2f} s (bound: 10 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
