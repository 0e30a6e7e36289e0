"""Benchmark: photo → score on a 12 MP JPEG, side by side with PyPI ``mahjong-detector``.

    python benchmarks/bench_photo.py [--photo IMG] [--runs 7] [--threads] [--rotation] [--mirror] [--quarter] [--memo] [--tilt DEG] [--far PCT]

The 12 MP photo (4000 × 3000 JPEG, quality 92) is the bundled demo render ``docs/demo.jpg`` enlarged,
unless ``--photo`` names another. Both sides read the same file from disk on every run:

* ours: :func:`vision.pipeline.read_photo` — load (JPEG DCT-scaled decode, EXIF), detect, classify,
  layout, structure-aware decode and ``score_hand`` (nts);
* baseline: ``mahjong_detector.detect_tiles(path)`` (detection + classification into 34 riichi classes
  only, no scoring), with its default onnxruntime session.

Median wall time of ``--runs`` warm runs (one warm-up run each, excluded). ``--threads`` also times our
pipeline with 1 and 2 intra-op threads (the numbers behind ``vision.models.THREADS``). ``--rotation``
also times the same photo turned 90° without EXIF (the upright reading is weak, so
:func:`vision.pipeline.read_photo` tries the 90°/180°/270° turns) and prints its ratio to the upright
photo's time, and the time with the rotation tries switched off (``rotate=False``). ``--mirror`` times a
weak reading (the photo read under hk-tw-16, whose 17-tile hands its 14 tiles never make) with and without
the detector's mirror pass (``mirror=False``) and prints the ratios; ``--second`` likewise with and without
the second detector (``second=False``: :class:`vision.detect.SecondDetector`, run for a reading under 95 %). ``--far PCT`` times the photo
scaled to PCT % of a 4032 × 3024 canvas's width (a hand taken from across the table: the zoomed passes grown
over it, :func:`vision.pipeline.detect_zoomed`), and that canvas turned 180° (read in parts, turned), against
the photo (one thread). ``--tilt DEG``
likewise times the photo turned DEG degrees anticlockwise (a phone held askew: the rows are measured and
the photo straightened, :func:`vision.pipeline.read_photo`) against the upright photo, and with
``straight=False``. ``--glyphs`` also
times the photo (and ``--glyphs-photos``) with the glyph reader of :mod:`vision.glyphs` on and off
(one thread) and prints the ratios, for the whole photo and the classify stage. ``--edits`` times the photo
read with ``exposed`` (its own melds named) and with ``exposed`` and ``fixes`` (a tile set to itself and
the last box left out) against the plain reading (one thread): the turn and the numbering are chosen
without them, so they cost one more model-free layout-and-decode pass.
``--quarter`` times the photo with and without the detector's quarter-turned pass (``quarter=False``:
:class:`vision.detect.QuarterAddedDetector`, two more detector passes per reading — the photo turned a quarter each
way —, for tiles lying sideways) and
prints the ratio, for the photo and its detect stage (one thread).
``--memo`` times the photo, a weak reading of it (under hk-tw-16: mirror pass, second detector and turn tries)
and ``--memo-photos`` with and without the models' memo (``memo=False``: each pass runs the models on every
image, crop and text line again; :class:`vision.detect.MemoisedDetector`) and prints the ratios (one thread).
``mahjong-detector`` is a dependency: its model is the product's second detector (above); its own code,
timed here as the baseline, is never run by the product.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_12mp(src: Path, out: Path) -> Path:
    img = cv2.imread(str(src))
    if img is None:
        raise SystemExit(f"cannot read {src}")
    big = cv2.resize(img, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(out), big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return out


def timed(fn, runs: int) -> tuple[float, object]:
    out = fn()  # warm-up
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photo", type=Path)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", action="store_true", help="also compare 1 and 2 intra-op threads")
    ap.add_argument("--rotation", action="store_true", help="also time the photo turned 90° (rotation tries)")
    ap.add_argument("--mirror", action="store_true",
                    help="also time a weak reading with and without the mirror pass (the photo under hk-tw-16)")
    ap.add_argument("--quarter", action="store_true",
                    help="also time the photo with and without the detector's quarter-turned pass, 1 thread")
    ap.add_argument("--memo", action="store_true",
                    help="also time the photo, a weak reading of it and --memo-photos with and without the models' memo")
    ap.add_argument("--memo-photos", nargs="*", default=[],
                    help="more photos for --memo (e.g. a composite with bonus tiles in columns), read under nts")
    ap.add_argument("--second", action="store_true",
                    help="also time a weak reading with and without the second detector")
    ap.add_argument("--far", type=float, default=0.0, metavar="PCT",
                    help="also time the photo scaled to PCT %% of a 4032x3024 canvas's width (a hand taken from "
                         "across the table: zoomed passes grown over it), and turned 180°, against the photo")
    ap.add_argument("--tilt", type=float, default=0.0, metavar="DEG",
                    help="also time the photo turned DEG degrees anticlockwise on a grown canvas (straightening)")
    ap.add_argument("--glyphs", action="store_true",
                    help="also time read_photo with the glyph reader (vision.glyphs) on and off, 1 thread")
    ap.add_argument("--edits", action="store_true",
                    help="also time the photo read with --exposed, and with --exposed plus a --fix and a --fix POS=-"
                         " (read once more without them, for the numbering), 1 thread")
    ap.add_argument("--glyphs-photos", nargs="*", default=[],
                    help="more photos for --glyphs (e.g. the shared photos, a photo with flowers)")
    a = ap.parse_args()
    from vision.models import models_present

    if not models_present():
        print("models/detector.onnx and models/classifier.onnx are missing: nothing to benchmark")
        return 0
    from vision.classify import load_classifier
    from vision.detect import load_detector
    from vision.pipeline import DEMO_PHOTO, read_photo

    with tempfile.TemporaryDirectory() as tmp:
        photo = a.photo or make_12mp(DEMO_PHOTO, Path(tmp) / "demo-12mp.jpg")
        rows = []
        thread_counts = (1, 2) if a.threads else (None,)
        ours = {}
        for th in thread_counts:
            det, cls = load_detector(threads=th), load_classifier(threads=th)
            t, res = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            ours[th] = (t, res)
            label = "mahjong-score photo" + (f" ({th} thread{'s' if th > 1 else ''})" if th else "")
            rows.append((label, t, res.reading.notation + (f"  total {res.scored.total}" if res.scored else "")))
            stages = ", ".join(f"{k} {v * 1000:.0f}" for k, v in res.timings.items())
            rows.append(("  stages (ms)", float("nan"), stages))
        if a.rotation:
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            img = cv2.imread(str(photo))
            turned = Path(tmp) / "turned.jpg"
            cv2.imwrite(str(turned), cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), [cv2.IMWRITE_JPEG_QUALITY, 92])
            t_up, _ = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            t_rot, r_rot = timed(lambda: read_photo(turned, "nts", detector=det, classifier=cls), a.runs)
            t_off, r_off = timed(lambda: read_photo(turned, "nts", detector=det, classifier=cls, rotate=False), a.runs)
            rows.append(("photo turned 90°, rotation tries", t_rot,
                         f"{r_rot.reading.notation} (read turned {r_rot.turned}°)"))
            rows.append(("photo turned 90°, rotate=False", t_off, r_off.reading.notation))
            print(f"rotation tries: turned photo {t_rot / t_up:.2f}× the upright photo's time "
                  f"(without the tries {t_off / t_up:.2f}×; 1 thread)")
        if a.quarter:
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            t_q, r_q = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            t_nq, r_nq = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls, quarter=False), a.runs)
            rows.append(("photo, quarter-turned pass", t_q, f"{r_q.reading.notation} (detect "
                         f"{r_q.timings.get('detect', 0) * 1000:.0f} ms)"))
            rows.append(("photo, quarter=False", t_nq, f"{r_nq.reading.notation} (detect "
                         f"{r_nq.timings.get('detect', 0) * 1000:.0f} ms)"))
            print(f"quarter-turned pass: the photo {t_q / t_nq:.2f}× its time without it, its detect stage "
                  f"{r_q.timings.get('detect', 0) / max(r_nq.timings.get('detect', 0), 1e-9):.2f}× (1 thread)")
        if a.memo:
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            for label, src, rules in ([("photo", photo, "nts"), ("weak reading (hk-tw-16)", photo, "hk-tw-16")]
                                      + [(Path(p).name, Path(p), "nts") for p in a.memo_photos]):
                t_m, r_m = timed(lambda: read_photo(src, rules, detector=det, classifier=cls), a.runs)
                t_n, r_n = timed(lambda: read_photo(src, rules, detector=det, classifier=cls, memo=False), a.runs)
                same = "same reading" if (r_m.reading.notation, round(r_m.reading.confidence, 4)) == (
                    r_n.reading.notation, round(r_n.reading.confidence, 4)) else "READINGS DIFFER"
                rows.append((f"{label}, memo", t_m, f"{r_m.reading.notation} ({same})"))
                rows.append((f"{label}, memo=False", t_n, r_n.reading.notation))
                print(f"memo: {label} {t_m / t_n:.2f}× its time without it ({same}; 1 thread)")
        if a.far:
            # a small hand in a large photo (vision.pipeline.detect_zoomed: zoomed passes grown over the hand, parts)
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            from PIL import Image

            from datasets.evalsets import FAR_CANVAS, far_canvas

            rgb = far_canvas(Image.open(photo).convert("RGB"), round(FAR_CANVAS[0] * a.far / 100))
            canvas = cv2.cvtColor(np.asarray(rgb), cv2.COLOR_RGB2BGR)
            far = Path(tmp) / "far.jpg"
            cv2.imwrite(str(far), canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
            far180 = Path(tmp) / "far180.jpg"
            cv2.imwrite(str(far180), cv2.rotate(canvas, cv2.ROTATE_180), [cv2.IMWRITE_JPEG_QUALITY, 92])
            t_up, _ = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            t_far, r_far = timed(lambda: read_photo(far, "nts", detector=det, classifier=cls), a.runs)
            t_180, r_180 = timed(lambda: read_photo(far180, "nts", detector=det, classifier=cls), a.runs)
            rows.append((f"photo at {a.far:g} % of a 12 MP canvas", t_far, r_far.reading.notation))
            rows.append((f"photo at {a.far:g} % of a 12 MP canvas, turned 180°", t_180,
                         f"{r_180.reading.notation} (turned {r_180.turned}°)"))
            print(f"far: photo at {a.far:g} % of a 12 MP canvas {t_far / t_up:.2f}× the photo's time, turned 180° "
                  f"{t_180 / t_up:.2f}× (1 thread)")
        if a.tilt:
            from datasets.composite import tilt_image

            det, cls = load_detector(threads=1), load_classifier(threads=1)
            rgb = cv2.cvtColor(cv2.imread(str(photo)), cv2.COLOR_BGR2RGB)
            tilted = Path(tmp) / "tilted.jpg"
            cv2.imwrite(str(tilted), cv2.cvtColor(tilt_image(rgb, a.tilt)[0], cv2.COLOR_RGB2BGR),
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            t_up, _ = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            t_st, r_st = timed(lambda: read_photo(tilted, "nts", detector=det, classifier=cls), a.runs)
            t_no, r_no = timed(lambda: read_photo(tilted, "nts", detector=det, classifier=cls, straight=False), a.runs)
            how = f"straightened {r_st.straightened.degrees:.1f}°" if r_st.straightened else "not straightened"
            rows.append((f"photo turned {a.tilt:g}°, straightening", t_st, f"{r_st.reading.notation} ({how})"))
            rows.append((f"photo turned {a.tilt:g}°, straight=False", t_no, r_no.reading.notation))
            print(f"straightening: photo turned {a.tilt:g}° {t_st / t_up:.2f}× the upright photo's time "
                  f"(without the straightening {t_no / t_up:.2f}×; 1 thread)")
        if a.mirror:
            # a weak reading (vision.pipeline.read_photo's mirror pass): the photo read under hk-tw-16, a 17-tile
            # game, where a 14-tile hand is never legal; the rotation tries run in both
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            t_up, _ = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            t_mi, r_mi = timed(lambda: read_photo(photo, "hk-tw-16", detector=det, classifier=cls), a.runs)
            t_nm, r_nm = timed(lambda: read_photo(photo, "hk-tw-16", detector=det, classifier=cls, mirror=False), a.runs)
            rows.append(("weak reading (hk-tw-16), mirror pass", t_mi,
                         f"{r_mi.reading.notation} (mirror pass {r_mi.timings.get('mirror pass', 0) * 1000:.0f} ms, "
                         f"{'kept' if r_mi.mirrored else 'not kept'})"))
            rows.append(("weak reading (hk-tw-16), mirror=False", t_nm, r_nm.reading.notation))
            print(f"mirror pass: a weak reading {t_mi / t_up:.2f}× the upright photo's time (without the pass "
                  f"{t_nm / t_up:.2f}×; the pass alone {t_mi / t_nm:.2f}× the weak reading without it; 1 thread)")
        if a.second:
            # the same weak reading (hk-tw-16): the second detector runs for it (under 95 % sure)
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            t_up, _ = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            t_se, r_se = timed(lambda: read_photo(photo, "hk-tw-16", detector=det, classifier=cls, mirror=False,
                                                  rotate=False), a.runs)
            t_ns, r_ns = timed(lambda: read_photo(photo, "hk-tw-16", detector=det, classifier=cls, mirror=False,
                                                  rotate=False, second=False), a.runs)
            rows.append(("weak reading (hk-tw-16), second detector", t_se,
                         f"{r_se.reading.notation} (second detector {r_se.timings.get('second detector', 0) * 1000:.0f} ms)"))
            rows.append(("weak reading (hk-tw-16), second=False", t_ns, r_ns.reading.notation))
            print(f"second detector: a weak reading {t_se / t_ns:.2f}× its time without it, {t_se / t_up:.2f}× the "
                  f"upright sure photo's (no mirror pass or turns in either; 1 thread)")
        if a.edits:
            det, cls = load_detector(threads=1), load_classifier(threads=1)
            t_plain, r_plain = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls), a.runs)
            melds = " ".join(m.notation() for m in r_plain.reading.melds) or "none"
            t_exp, r_exp = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls, exposed=melds), a.runs)
            first = r_plain.order.index(next(i for i, r in enumerate(r_plain.reading.roles) if r == "concealed")) + 1
            fixes = {first: r_plain.reading.tiles[r_plain.order[first - 1]], len(r_plain.order): "-"}
            t_fix, r_fix = timed(lambda: read_photo(photo, "nts", detector=det, classifier=cls, exposed=melds,
                                                    fixes=fixes), a.runs)
            rows.append((f"--exposed {melds!r}", t_exp, r_exp.reading.notation))
            rows.append((f"  and --fix {fixes}", t_fix, r_fix.reading.notation))
            print(f"edits: --exposed {t_exp / t_plain:.2f}× the plain reading's time, with --fix too "
                  f"{t_fix / t_plain:.2f}× (1 thread)")
        if a.glyphs:
            det = load_detector(threads=1)
            with_g, without = load_classifier(threads=1), load_classifier(threads=1, glyphs=False)
            paths = [photo] + [Path(p) for p in a.glyphs_photos]
            for p in paths:
                t_on, r_on = timed(lambda: read_photo(p, "nts", detector=det, classifier=with_g), a.runs)
                t_off, r_off = timed(lambda: read_photo(p, "nts", detector=det, classifier=without), a.runs)
                c_on, c_off = r_on.timings.get("classify", float("nan")), r_off.timings.get("classify", float("nan"))
                read = sum(1 for g in r_on.readings.glyphs if g)
                rows.append((f"glyph reading on: {p.name}", t_on, r_on.reading.notation))
                rows.append((f"glyph reading off: {p.name}", t_off, r_off.reading.notation))
                print(f"glyph reading, {p.name}: photo {t_on / t_off:.2f}× the time without it, classify stage "
                      f"{c_on * 1000:.0f} against {c_off * 1000:.0f} ms ({c_on / c_off:.2f}×; last run; {read} tile(s) "
                      f"with a glyph read; 1 thread)")
        try:
            from mahjong_detector import detect_tiles
        except ImportError:
            detect_tiles = None
        base = None
        if detect_tiles is not None:
            base, tiles = timed(lambda: detect_tiles(str(photo)), a.runs)
            rows.append(("mahjong-detector detect_tiles", base, " ".join(tiles)))
        print(f"photo: {photo} (12 MP JPEG), median of {a.runs} warm runs")
        for label, t, what in rows:
            ms = f"{t * 1000:8.0f} ms" if t == t else " " * 11
            print(f"{label:<34}{ms}  {what}")
        if base:
            best = min(v[0] for v in ours.values())
            print(f"ratio ours / mahjong-detector = {best / base:.2f} (target ≤ 0.5)")
        if a.threads:
            t1, t2 = ours[1][0], ours[2][0]
            print(f"threads: 1 → {t1 * 1000:.0f} ms, 2 → {t2 * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
