"""Side-by-side report of tile classifiers on the real single-tile photos (``../shared/data/crops-real``).

    python -m datasets.realcrops MODEL.onnx [MODEL.onnx ...] [--ensemble A.onnx B.onnx] [--glyphs] [--ocr] [--json OUT]

For each ONNX classifier (and each ``--ensemble`` pair: the normalised product of their
probabilities), through the run-time crop (:func:`vision.crops.crop_tile`) and the run-time turn
search of :mod:`vision.classify` (same thresholds): top-1 overall and per group (flowers/seasons,
characters, honours, bamboo, circles), top-1 upright only, and the expected calibration error (15
equal-width confidence bins) of the final probabilities. ``--glyphs``: also with the run-time glyph
reading of :mod:`vision.glyphs` as a second opinion (each photo is the tile's box). ``--ocr``: PP-OCR recognition
(``rapidocr-onnxruntime``) of the top glyph of character tiles and the whole face of honour tiles,
alone and as a second opinion (see :func:`ocr_report`).

For reporting only: nothing here trains or tunes on these photos.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

from vision.classes import CLASS_INDEX, CLASS_NAMES, NUM_CLASSES

GROUPS = {"flowers/seasons": "fy", "characters": "m", "honours": "z", "bamboo": "s", "circles": "p"}


def real_root() -> Path | None:
    from .paths import shared_dir

    sh = shared_dir()
    root = None if sh is None else sh / "data" / "crops-real"
    return root if root is not None and (root / "labels.csv").exists() else None


def load_real(root: Path) -> tuple[list[np.ndarray], np.ndarray, list[str]]:
    """(images RGB uint8, labels (N,) int, file names) of the labelled real crops."""
    from .evaluate import load_photo

    imgs, ys, names = [], [], []
    for r in csv.DictReader(open(root / "labels.csv")):
        if r["tile"] not in CLASS_INDEX:
            continue
        imgs.append(load_photo(root / r["image"]))
        ys.append(CLASS_INDEX[r["tile"]])
        names.append(r["image"])
    return imgs, np.array(ys), names


def _crops(imgs, clf) -> np.ndarray:
    """Run-time crops (B, S, S, 3): the whole photo is the tile's grown box (as datasets.evaluate)."""
    from vision.crops import crop_tile

    out = []
    for img in imgs:
        H, W = img.shape[:2]
        f = clf.margin / (1 + 2 * clf.margin)
        box = np.asarray([W * f, H * f, W * (1 - f), H * (1 - f)], np.float32)  # as Detections stores it
        out.append(crop_tile(img, box, clf.imgsz, clf.margin, clf.resize))
    return np.stack(out)


def _norm(p: np.ndarray) -> np.ndarray:
    return p / p.sum(1, keepdims=True)


def turn_search(run, wide: np.ndarray, tall: np.ndarray | None = None,
                tallish: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run-time turn search of :class:`vision.classify.Classifier` over a ``run(k) → (N, 43)``
    function (k quarter turns) and the (N,) bool box shapes (``tall``/``tallish`` None: none is);
    returns (upright probs, final probs, (N,) the turn read)."""
    from vision import classify as C

    up = run(0)
    probs = up.copy()
    tall = np.zeros_like(wide) if tall is None else tall
    tallish = np.zeros_like(wide) if tallish is None else tallish
    turn = np.zeros(len(up), int)
    unsure = np.nonzero((probs.max(1) < C.UPRIGHT_SURE) | wide)[0]
    if len(unsure):
        cand = np.stack([up[unsure]] + [run(k)[unsure] for k in (1, 2, 3)])
        best = C.choose_turns(cand.max(2), wide[unsure], tall[unsure], tallish[unsure])
        probs[unsure] = cand[best, np.arange(len(unsure))]
        turn[unsure] = best
    return up, probs, turn


def glyph_opinion(imgs, probs: np.ndarray, turn: np.ndarray, run, wide: np.ndarray, reader=None,
                  numbers: bool = True) -> np.ndarray:
    """The run-time glyph reading (:func:`vision.classify.glyph_turns`, :mod:`vision.glyphs`) on the
    real crops, as :meth:`vision.classify.Classifier.read` takes it (the half-turn bonus share only of
    the tiles the turn search tried); each photo is the tile's box; ``run(k)`` the classifier's
    (N, 43) probabilities at k quarter turns, ``wide`` the (N,) box shapes. Returns the (N, 43)
    probabilities after the second opinion."""
    from vision.classify import UPRIGHT_SURE, glyph_turns
    from vision.glyphs import GlyphScores, load_glyph_reader, wanted, wanted_number

    reader = reader or load_glyph_reader(2)
    corners, face = wanted(probs)
    number = wanted_number(probs, limit=None) if numbers else np.zeros(len(probs), bool)  # (each crop a photo)
    unsure = (run(0).max(1) < UPRIGHT_SURE) | wide
    half_probs = np.stack([run((t + 2) % 4)[i] for i, t in enumerate(turn)])
    corners |= wanted(half_probs)[0] & unsure
    if not (corners.any() or face.any() or number.any()):
        return probs

    def half(idx):
        return half_probs[idx], None, None

    def read(idx, turns, cm, fm, tm):
        parts = [reader.read(imgs[i], np.array([[0, 0, imgs[i].shape[1], imgs[i].shape[0]]], np.float32),
                             turns[k:k + 1], cm[k:k + 1], fm[k:k + 1], tm[k:k + 1]) for k, i in enumerate(idx)]
        return GlyphScores(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("face", "corner", "numeral", "top")))

    return glyph_turns(probs, turn, None, None, corners, face, half, read, number)[0]


def ece(probs: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top-1 confidence (equal-width bins)."""
    conf, pred = probs.max(1), probs.argmax(1)
    edges = np.linspace(0, 1, bins + 1)
    e = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            e += m.mean() * abs((pred[m] == y[m]).mean() - conf[m].mean())
    return float(e)


def scores(up: np.ndarray, probs: np.ndarray, y: np.ndarray) -> dict:
    pred = probs.argmax(1)
    out = {"top1": float((pred == y).mean()), "top1_upright": float((up.argmax(1) == y).mean()),
           "ece": ece(probs, y), "n": int(len(y))}
    suits = np.array([CLASS_NAMES[i][1] for i in y])
    for g, ss in GROUPS.items():
        m = np.isin(suits, list(ss))
        out[g] = float((pred[m] == y[m]).mean()) if m.any() else float("nan")
    return out


def model_runs(paths: list[str], imgs) -> tuple[list, np.ndarray]:
    """Per model a ``run(k)`` over the real crops (cached per k); and the wide-box flags."""
    from vision.classify import load_classifier

    runs = []
    for p in paths:
        clf = load_classifier(p, threads=2, glyphs=False)
        crops = _crops(imgs, clf)
        cache: dict[int, np.ndarray] = {}

        def run(k, clf=clf, crops=crops, cache=cache):
            if k not in cache:
                cache[k] = clf.run(np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))))
            return cache[k]

        runs.append(run)
    wide = np.array([img.shape[1] > img.shape[0] for img in imgs])
    return runs, wide


# ----------------------------------------------------------------------------- OCR

_OCR_MAP = {**{c: str(i + 1) for i, c in enumerate("一二三四五六七八九")}, "伍": "5", "五": "5",
            "東": "1z", "东": "1z", "南": "2z", "西": "3z", "北": "4z", "中": "7z", "發": "6z", "发": "6z", "発": "6z"}


def ocr_read(engine, img: np.ndarray, top: bool) -> tuple[str | None, float]:
    """OCR of one real tile photo: the top glyph (upper 55 % of the face, characters) or the whole face
    (honours), recognition only; → (a digit "1".."9" or an honour code, score) or (None, 0)."""
    import cv2

    H, W = img.shape[:2]
    f = 0.1 / 1.2
    x0, y0, x1, y1 = int(W * f), int(H * f), int(W * (1 - f)), int(H * (1 - f))
    face = img[y0:y1, x0:x1]
    if top:
        face = face[: int(face.shape[0] * 0.55)]
    s = 96 / max(face.shape[:2])
    face = cv2.resize(face, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    res, _ = engine(face[..., ::-1].copy(), use_det=False, use_cls=False, use_rec=True)
    if not res:
        return None, 0.0
    text, score = res[0][0], float(res[0][1])
    for ch in text:
        if ch in _OCR_MAP:
            return _OCR_MAP[ch], score
    return None, score


def ocr_report(imgs, y: np.ndarray, probs: np.ndarray, min_score: float = 0.8) -> dict:
    """OCR alone on the character tiles (numeral right) and honour tiles (1z–4z, 6z, 7z right), and as a
    second opinion: where the classifier's top class is a character (honour) tile and OCR reads a
    numeral (honour) with score ≥ ``min_score``, the OCR reading replaces the classifier's
    (``with_ocr_replace``), or is mixed into its probabilities with weight ½·score (``with_ocr_soft``).
    The classifier's readings are its final (turn-searched) ones; OCR reads the photo as it is."""
    from rapidocr_onnxruntime import RapidOCR

    eng = RapidOCR()
    names = [CLASS_NAMES[i] for i in y]
    pred = probs.argmax(1).copy()
    soft = probs.astype(np.float64).copy()
    n_m = ok_m = n_z = ok_z = 0
    for i, (img, code) in enumerate(zip(imgs, names)):
        top_cls = CLASS_NAMES[pred[i]]
        is_m, is_z = code[1] == "m", code[1] == "z" and code != "5z"
        cls_m, cls_z = top_cls[1] == "m", top_cls[1] == "z" and top_cls != "5z"
        if not (is_m or is_z or cls_m or cls_z):
            continue
        r, sc = ocr_read(eng, img, top=(is_m if (is_m or is_z) else cls_m))
        if is_m:
            n_m += 1
            ok_m += r == code[0]
        if is_z:
            n_z += 1
            ok_z += r == code
        if r is not None and sc >= min_score:
            j = CLASS_INDEX[r + "m"] if (cls_m and r.isdigit()) else (CLASS_INDEX[r] if (cls_z and not r.isdigit()) else None)
            if j is not None:
                pred[i] = j
                w = 0.5 * sc  # soft: mix the OCR reading in with weight ½·score
                soft[i] = (1 - w) * soft[i]
                soft[i, j] += w
    return {"ocr_characters_numeral": ok_m / max(n_m, 1), "n_characters": n_m,
            "ocr_honours": ok_z / max(n_z, 1), "n_honours": n_z, "min_score": min_score,
            "with_ocr_replace": scores(probs, np.eye(NUM_CLASSES, dtype=np.float32)[pred], y),
            "with_ocr_soft": scores(probs, soft.astype(np.float32), y)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.realcrops", description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--ensemble", nargs="+", action="append", default=[], help="models whose probabilities multiply")
    ap.add_argument("--ocr", action="store_true", help="also OCR (rapidocr-onnxruntime) with the first model")
    ap.add_argument("--glyphs", action="store_true",
                    help="also each model with the run-time glyph reading (vision.glyphs) as a second opinion")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    root = real_root()
    if root is None:
        print("error: ../shared/data/crops-real is absent", file=sys.stderr)
        return 2
    imgs, y, _ = load_real(root)
    allp = sorted(set(a.models) | {p for e in a.ensemble for p in e})
    runs, wide = model_runs(allp, imgs)
    from vision.classify import TALL, TALL_STRICT

    aspect = np.array([img.shape[0] / img.shape[1] for img in imgs])
    tall = aspect >= TALL_STRICT
    tallish = (aspect >= TALL) & ~tall
    R = dict(zip(allp, runs))
    rep = {}
    first = None
    for p in a.models:
        up, pr, turn = turn_search(R[p], wide, tall, tallish)
        rep[p] = scores(up, pr, y)
        if a.glyphs:
            rep[p + " + glyphs"] = scores(up, glyph_opinion(imgs, pr, turn, R[p], wide), y)
        first = first if first is not None else pr
    for e in a.ensemble:
        def run(k, e=e):
            out = np.ones((len(y), NUM_CLASSES), np.float64)
            for p in e:
                out *= np.maximum(R[p](k), 1e-12)
            return _norm(out).astype(np.float32)

        up, pr, turn = turn_search(run, wide, tall, tallish)
        rep[" × ".join(e)] = scores(up, pr, y)
        if a.glyphs:
            rep[" × ".join(e) + " + glyphs"] = scores(up, glyph_opinion(imgs, pr, turn, run, wide), y)
    if a.ocr and first is not None:
        rep["ocr"] = ocr_report(imgs, y, first)
    for k, v in rep.items():
        print(k, json.dumps(v))
    if a.json:
        a.json.write_text(json.dumps(rep, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
