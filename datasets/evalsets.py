"""The evaluation sets of issue 14 for ``mahjong-score eval`` (:mod:`datasets.evaluate`), each read by
the whole product (:func:`vision.pipeline.read_photo`) and by PyPI ``mahjong-detector`` side by side:

* **rotations**: the shared photos and the demo turned 90/180/270° without EXIF, stored with each
  EXIF orientation 1–8 (pixels transformed so that applying the tag gives the upright photo), and
  scaled to 800 px on the long side; per variant: is the reading the upright reading, and tile F1;
* **composites**: real single-tile photos pasted into hand rows on rendered backgrounds with clutter
  (:mod:`datasets.composite`), made at run time into a temporary folder;
* **hard**: hard-scene renders (:mod:`datasets.hard`) from the held-out seeds and palettes: hand
  found, hands exact, tile F1;
* **calibration**: the expected calibration error of the classifier on the real crops (15 bins).

Definitions (both tools alike):

* the *hand* a tool reports: the product's detections with a role other than ``ignored`` and their
  decoded tiles; ``mahjong-detector`` has no hand finding, so its hand is every detection it makes;
* *tile F1*: where the true boxes are known (composites, renders) a reported tile is right when its
  box overlaps a true hand tile's box at IoU ≥ 0.5 (each true tile used once) and the codes agree;
  for the rotations (boxes not known in every frame) the tiles are compared as multisets;
* *hands exact*: the reported hand tiles equal the true hand tiles as a multiset;
* *hand found* (composites, renders): the tool boxed some of the hand's tiles, every true hand tile
  that its detections box (IoU ≥ 0.5) is in the reported hand, and every reported tile is a true
  hand tile's box;
* ``mahjong-detector`` reads riichi tiles only (34 classes: no flowers, seasons or backs) and is
  given the stored pixels without EXIF applied, as its command line opens them.
"""
from __future__ import annotations

import io
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

#: EXIF orientation → the PIL transpose that turns the upright picture into the stored pixels (the
#: inverse of what ``ImageOps.exif_transpose`` applies for that tag)
_STORE = {1: None, 2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE", 6: "ROTATE_90",
          7: "TRANSVERSE", 8: "ROTATE_270"}


#: the rotation set's tilts: the photo turned this many degrees anticlockwise (a phone held askew)
TILTS = (12, -20, 30)
#: the rotation set's far variants: the photo scaled to this share of the width of a 12 MP canvas
#: (:data:`FAR_CANVAS`, plain felt green) and set in its middle — a hand taken from across the table, or a
#: whole-table photo whose hand is a fifth of it (the demo so had been read as one tile: its tiles, 46 px
#: high at the half scale a 12 MP photo is read at, were 9 px in the detector's input, and boxed as one blob)
FAR_SHARES = (25, 20)
FAR_CANVAS = (4032, 3024)
FAR_FELT = (38, 92, 64)


def variants(upright: np.ndarray) -> list[tuple[str, bytes]]:
    """JPEG files (name, bytes) of one upright photo (H, W, 3) uint8 RGB: ``upright``; ``rot90``,
    ``rot180``, ``rot270`` (turned counter-clockwise, no EXIF); ``exif1``–``exif8`` (stored so that
    applying the tag gives ``upright``); ``800px`` (long side 800); ``tilt12``, ``tilt-20``, ``tilt30``
    (turned that many degrees anticlockwise on a grown canvas, :data:`TILTS`,
    :func:`datasets.composite.tilt_image`); ``far25``, ``far20`` (scaled to 25 % and 20 % of a 12 MP canvas's
    width, set in its middle: :data:`FAR_SHARES`)."""
    from PIL import Image

    im = Image.fromarray(upright)

    def enc(x: Image.Image, orient: int | None = None) -> bytes:
        buf = io.BytesIO()
        kw = {}
        if orient is not None:
            ex = Image.Exif()
            ex[0x0112] = orient
            kw["exif"] = ex.tobytes()
        x.save(buf, "JPEG", quality=93, **kw)
        return buf.getvalue()

    out = [("upright", enc(im))]
    for k in (1, 2, 3):
        out.append((f"rot{90 * k}", enc(Image.fromarray(np.ascontiguousarray(np.rot90(upright, k))))))
    for o, t in _STORE.items():
        out.append((f"exif{o}", enc(im if t is None else im.transpose(getattr(Image.Transpose, t)), o)))
    s = 800 / max(im.size)
    out.append(("800px", enc(im.resize((max(1, round(im.size[0] * s)), max(1, round(im.size[1] * s))),
                                       Image.Resampling.LANCZOS))))
    from .composite import tilt_image

    for deg in TILTS:
        out.append((f"tilt{deg}", enc(Image.fromarray(tilt_image(upright, deg)[0]))))
    for share in FAR_SHARES:
        out.append((f"far{share}", enc(far_canvas(im, round(FAR_CANVAS[0] * share / 100)))))
    return out


def far_canvas(im, width: int, canvas: tuple[int, int] = FAR_CANVAS, felt: tuple[int, int, int] = FAR_FELT,
               resample=None):
    """The photo ``im`` (a PIL RGB image) scaled to ``width`` px wide (``resample``: a PIL filter, default Lanczos;
    its aspect kept) and set in the middle of a plain canvas of ``felt`` colour (:data:`FAR_FELT`) of ``canvas``
    (W, H) px, grown in height when the photo is taller: a hand taken from across the table (the rotation set's far
    variants, ``bench_photo.py --far``, the tests). Returns the canvas, a PIL RGB image. Raises nothing of its
    own."""
    from PIL import Image

    cw, ch = canvas
    h = max(1, round(im.size[1] * width / im.size[0]))
    out = Image.new("RGB", (cw, max(ch, h)), felt)
    out.paste(im.resize((width, h), Image.Resampling.LANCZOS if resample is None else resample),
              ((cw - width) // 2, (out.size[1] - h) // 2))
    return out


def canon(notation: str | None) -> str | None:
    """A reading's notation with its tokens sorted: the same hand whatever order the melds are listed in
    (``345m (2222m) [777s]`` = ``345m [777s] (2222m)``)."""
    return None if notation is None else " ".join(sorted(notation.split()))


def multiset_counts(pred: list[str], gold: list[str]) -> tuple[int, int, int]:
    """(TP, FP, FN) of two tile lists compared as multisets."""
    p, g = Counter(pred), Counter(gold)
    tp = sum((p & g).values())
    return tp, len(pred) - tp, len(gold) - tp


def box_counts(pb: np.ndarray, pc: list[str], gb: np.ndarray, gc: list[str]) -> tuple[int, int, int]:
    """(TP, FP, FN): a predicted tile is a TP when its box meets an unused true box at IoU ≥ 0.5 (the
    best one) with the same code."""
    from .evalbase import box_iou

    used = np.zeros(len(gb), bool)
    tp = fp = 0
    if len(pb) and len(gb):
        iou = box_iou(pb, gb)
    for i in range(len(pb)):
        if not len(gb):
            fp += 1
            continue
        row = np.where(used, 0.0, iou[i])
        k = int(row.argmax())
        if row[k] >= 0.5:
            used[k] = True
            tp += pc[i] == gc[k]
            fp += pc[i] != gc[k]
        else:
            fp += 1
    return tp, fp, len(gb) - tp


def hand_found(all_boxes: np.ndarray, hand_boxes: np.ndarray, gb: np.ndarray) -> bool:
    """Some true hand tile is boxed by a detection, every true hand tile boxed by some detection is in
    the reported hand, and every reported tile is a true hand tile (box IoU ≥ 0.5)."""
    from .evalbase import box_iou

    if not len(gb):
        return not len(hand_boxes)
    detected = box_iou(gb, all_boxes).max(1) >= 0.5 if len(all_boxes) else np.zeros(len(gb), bool)
    if len(hand_boxes):
        covered = box_iou(gb, hand_boxes).max(1) >= 0.5
        extra = box_iou(hand_boxes, gb).max(1) < 0.5
    else:
        covered, extra = np.zeros(len(gb), bool), np.zeros(0, bool)
    return bool(detected.any() and np.all(covered | ~detected) and not extra.any())


# ----------------------------------------------------------------------------- the two tools

#: seconds one photo may take the product before it counts as read wrong (no hand), so that the
#: eval stays bounded; ``mahjong-score eval --image-seconds``
IMAGE_SECONDS = 30.0


class ReadTimeout(Exception):
    """The product took longer than :data:`IMAGE_SECONDS` on one photo."""


class _time_limit:
    """Raise :class:`ReadTimeout` in the main thread after ``seconds`` (SIGALRM; a no-op elsewhere or
    when ``seconds`` ≤ 0)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.old = None

    def __enter__(self):
        import signal
        import threading

        if self.seconds > 0 and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            def fire(*_):
                raise ReadTimeout(f"no reading within {self.seconds:.0f} s")

            self.old = signal.signal(signal.SIGALRM, fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        import signal

        if self.old is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


def product_read(source, ruleset: str, threads: int = 1) -> dict:
    """The product on one photo (path or bytes): ``tiles``/``boxes`` of the reported hand (boxes in the
    decoded photo's pixels ÷ its scale = the stored upright frame), ``all_boxes`` of every detection,
    ``notation``, ``legal``, ``confidence``, ``score_confidence`` (:func:`vision.pipeline.score_confidence`),
    ``seconds``; an unreadable photo or no tile found gives an
    empty hand with ``error``."""
    from scoring import Context
    from vision.errors import VisionError
    from vision.pipeline import loaded_frame_boxes, read_photo, score_confidence

    from .evalbase import _vision_models

    det, clf = _vision_models(threads)
    t0 = time.perf_counter()
    try:
        with _time_limit(IMAGE_SECONDS):
            res = read_photo(source, ruleset, Context(), detector=det, classifier=clf)
    except (VisionError, ReadTimeout) as e:
        return {"tiles": [], "boxes": np.zeros((0, 4)), "all_boxes": np.zeros((0, 4)), "notation": None,
                "legal": False, "confidence": 0.0, "error": str(e) or type(e).__name__,
                "timed_out": isinstance(e, ReadTimeout), "seconds": time.perf_counter() - t0}
    except Exception as e:  # a bug in the product: counted and named, and the eval goes on
        import traceback

        where = traceback.extract_tb(e.__traceback__)[-1]
        return {"tiles": [], "boxes": np.zeros((0, 4)), "all_boxes": np.zeros((0, 4)), "notation": None,
                "legal": False, "confidence": 0.0, "timed_out": False, "seconds": time.perf_counter() - t0,
                "crashed": f"{type(e).__name__} at {Path(where.filename).name}:{where.lineno}: {e}"[:200]}
    r = res.reading
    idx = [i for i, role in enumerate(r.roles) if role != "ignored"]
    inv = 1.0 / res.photo.scale
    # a photo read turned or straightened: its boxes back in the frame of the photo as stored upright
    boxes = loaded_frame_boxes(res) * inv
    return {"tiles": [r.tiles[i] if r.tiles[i] is not None else r.raw[i] for i in idx], "boxes": boxes[idx],
            "all_boxes": boxes, "notation": r.notation, "legal": bool(r.legal), "confidence": float(r.confidence),
            "score_confidence": score_confidence(res),
            "turned": int(res.turned or 0), "error": None, "seconds": time.perf_counter() - t0}


def baseline_read(data: bytes) -> dict | None:
    """PyPI ``mahjong-detector`` on JPEG bytes opened as its command line does (no EXIF applied): every
    detection is its hand; None when it is not installed."""
    from PIL import Image

    from .evalbase import baseline_detect

    with Image.open(io.BytesIO(data)) as im:
        img = np.asarray(im.convert("RGB"))
    t0 = time.perf_counter()
    ds = baseline_detect(img)
    if ds is None:
        return None
    boxes = np.array([d.xyxy for d in ds], float).reshape(-1, 4)
    return {"tiles": [d.tile for d in ds], "boxes": boxes, "all_boxes": boxes,
            "notation": " ".join(sorted(d.tile for d in ds)), "seconds": time.perf_counter() - t0}


def _sureness(r: dict) -> dict:
    """The product's own verdict on a reading (``legal``, ``confidence``), kept so that confident wrong
    readings can be counted against refusals (:func:`_sum`); empty for the baseline, which has none."""
    if "confidence" not in r:
        return {}
    return {"legal": bool(r.get("legal")), "confidence": float(r.get("confidence") or 0.0),
            "score_confidence": float(r.get("score_confidence", r.get("confidence")) or 0.0)}


def _sum(rows: list[dict], who: str) -> dict:
    rs = [r[who] for r in rows if r.get(who) is not None]
    if not rs:
        return {}
    tp, fp, fn = (sum(r[k] for r in rs) for k in ("tp", "fp", "fn"))
    p = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    out = {"n": len(rs), "tp": tp, "fp": fp, "fn": fn, "f1": 2 * p * rc / (p + rc) if p + rc else 0.0,
           "precision": p, "recall": rc, "exact": sum(bool(r["exact"]) for r in rs)}
    out["timed_out"] = sum(bool(r.get("timed_out")) for r in rs)
    out["crashed"] = sum(bool(r.get("crashed")) for r in rs)
    if all("found" in r for r in rs):
        out["found"] = sum(bool(r["found"]) for r in rs)
    if all("same" in r for r in rs):
        out["same"] = sum(bool(r["same"]) for r in rs)
    if all("confidence" in r for r in rs):
        from vision.batch import REVIEW_BELOW

        # confident wrong: legal, confidence at or over the review flag of batch (0.8), and not the hand;
        # flagged: refused (not legal) or shown for review (under 0.8): the product said it was unsure
        flagged = [(not r["legal"]) or r["confidence"] < REVIEW_BELOW for r in rs]
        out["sure_wrong"] = sum(not f and not r["exact"] for f, r in zip(flagged, rs))
        out["flagged"] = sum(flagged)
        out["flagged_wrong"] = sum(f and not r["exact"] for f, r in zip(flagged, rs))
        # the same by the score's confidence (vision.pipeline.score_confidence, what batch's needs-review weighs):
        # a reading not exact counts as wrong here, though its score may be right (bonus faces under nts)
        if all("score_confidence" in r for r in rs):
            by_score = [(not r["legal"]) or r["score_confidence"] < REVIEW_BELOW for r in rs]
            out["score_sure_wrong"] = sum(not f and not r["exact"] for f, r in zip(by_score, rs))
            out["score_flagged"] = sum(by_score)
    return out


# ----------------------------------------------------------------------------- rotations


def rotation_sources(shared: Path | None, repo: Path) -> list[tuple[str, np.ndarray, list[str]]]:
    """(name, upright RGB pixels, gold hand tiles) for the shared photos and the demo."""
    from .evalbase import load_photo

    out = []
    if shared is not None and (shared / "data" / "photos" / "labels.json").exists():
        root = shared / "data" / "photos"
        for name, lab in json.load(open(root / "labels.json"))["photos"].items():
            out.append((name, load_photo(root / name), [t for r in lab["rows"] for t in r["tiles"]]))
    demo, truth = repo / "docs" / "demo.jpg", repo / "docs" / "demo.json"
    if demo.exists() and truth.exists():
        lab = json.loads(truth.read_text())
        out.append(("demo.jpg", load_photo(demo), [t for r in lab["rows"] for t in r["tiles"]]))
    return out


#: the quarter turn (degrees clockwise) that brings each turned variant of :func:`variants` upright
ROTATION_TURNS = {"rot90": 90, "rot180": 180, "rot270": 270}


def eval_rotations(sources, ruleset: str = "nts", threads: int = 1, baseline: bool = True,
                   log=None) -> dict:
    """Every variant of every source read by both tools: per row the variant, TP/FP/FN (multiset) and
    exact against the gold tiles, and ``same``: the reading (notation) equals the upright variant's —
    for the product also read the right way up: the quarter turn it read the photo at (``turned``)
    undoes the variant's (``rot90``: 90° clockwise; EXIF-tagged, resized and tilted variants: none). A
    hand read upside down has the same notation, but its tiles are numbered and drawn backwards."""
    rows = []
    for name, upright, gold in sources:
        ref = {}
        for vname, data in variants(upright):
            row = {"photo": name, "variant": vname}
            for who in ("ours", "baseline"):
                if who == "ours":
                    r = product_read(data, ruleset, threads)
                else:
                    r = baseline_read(data) if baseline else None
                if r is None:
                    row[who] = None
                    continue
                tp, fp, fn = multiset_counts(r["tiles"], gold)
                key = canon(r["notation"]) if who == "ours" else " ".join(sorted(r["tiles"]))
                if vname == "upright":
                    ref[who] = key
                right_way = who != "ours" or r.get("turned", 0) == ROTATION_TURNS.get(vname, 0)
                row[who] = {"tp": tp, "fp": fp, "fn": fn, "exact": Counter(r["tiles"]) == Counter(gold),
                            "same": key is not None and key == ref.get(who) and right_way,
                            **({"turned": r.get("turned", 0)} if who == "ours" else {}),
                            "reading": r["notation"], "seconds": r["seconds"],
                            "timed_out": bool(r.get("timed_out")), "crashed": r.get("crashed")}
            rows.append(row)
            if log:
                log(f"rotations {name} {vname}")
    by_variant = {}
    for v in dict.fromkeys(r["variant"] for r in rows):
        sel = [r for r in rows if r["variant"] == v]
        by_variant[v] = {who: _sum(sel, who) for who in ("ours", "baseline")}
    return {"rows": rows, "by_variant": by_variant, "total": {who: _sum(rows, who) for who in ("ours", "baseline")},
            "photos": len(sources)}


# ----------------------------------------------------------------------------- composites


#: the ``tilted`` set's turns: a magnitude drawn uniformly from this range (degrees), either way
TILT_RANGE = (8.0, 30.0)


def eval_composites(crops_root: Path, n: int = 20, seed: int = 0, threads: int = 1, baseline: bool = True,
                    keep: Path | None = None, log=None, bonus: bool = False, columns: bool = False,
                    tilted: bool = False) -> dict:
    """``n`` composites (:func:`datasets.composite.build_composite`, seeds ``[seed, i]``) written as
    JPEG files into a temporary folder (``keep``: into that folder instead, kept), each read by both
    tools: tile F1 by boxes, hands exact, hand found. ``bonus``: the same scenes with a group of 1–4
    real flower/season photos set apart beside the hand (bonus seeds ``[seed, i, 2828]``), which
    count as hand tiles; ``columns``: instead 3–8 of them lying sideways in one or two touching columns
    (:func:`datasets.composite._place_bonus_columns`, bonus seeds ``[seed, i, 3939]``); ``tilted``: the
    plain scenes turned 8–30° either way (:data:`TILT_RANGE`, seeds ``[seed, i, 5151]``) as a phone held
    askew takes them (:func:`datasets.composite.tilt_composite`)."""
    from PIL import Image

    from .composite import build_composite, load_crops, tilt_composite

    crops = load_crops(crops_root)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mahjong-composites-") as tmp:
        folder = Path(keep) if keep is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            c = build_composite(np.random.default_rng([int(seed), i, 1414]), crops,
                                bonus_rng=(np.random.default_rng([int(seed), i, 3939 if columns else 2828])
                                           if bonus or columns else None), bonus_columns=columns)
            if tilted:
                trng = np.random.default_rng([int(seed), i, 5151])
                c = tilt_composite(c, float(trng.choice([-1, 1]) * trng.uniform(*TILT_RANGE)))
            kind = "_columns" if columns else "_bonus" if bonus else "_tilted" if tilted else ""
            path = folder / f"composite{kind}_{i:03d}.jpg"
            Image.fromarray(c.image).save(path, "JPEG", quality=90)
            data = path.read_bytes()
            row = {"index": i, "info": c.info, "gold": c.hand_tiles}
            for who in ("ours", "baseline"):
                r = product_read(str(path), "nts", threads) if who == "ours" else (baseline_read(data) if baseline else None)
                if r is None:
                    row[who] = None
                    continue
                tp, fp, fn = box_counts(r["boxes"], r["tiles"], c.hand_boxes, c.hand_tiles)
                row[who] = {"tp": tp, "fp": fp, "fn": fn, "exact": Counter(r["tiles"]) == Counter(c.hand_tiles),
                            "found": hand_found(r["all_boxes"], r["boxes"], c.hand_boxes),
                            "reading": r["notation"], "seconds": r["seconds"],
                            "timed_out": bool(r.get("timed_out")), "crashed": r.get("crashed"),
                            **_sureness(r)}
            rows.append(row)
            if log:
                log(f"composite {i}")
    return {"rows": rows, "total": {who: _sum(rows, who) for who in ("ours", "baseline")}, "n": n,
            "folder": str(keep) if keep is not None else None}


# ----------------------------------------------------------------------------- hard-scene renders


def eval_hard(n: int = 18, W: int = 1280, H: int = 960, threads: int = 1, baseline: bool = True,
              keep: Path | None = None, log=None, kinds: tuple[str, ...] | None = None) -> dict:
    """``n`` hard-scene renders of the held-out set (seed :data:`datasets.hard.HARD_VAL_SEED`, scene
    :func:`datasets.hard.hard_val_scene` of each index, held-out palettes) whose hand is all in the
    picture (every hand tile ≥ 60 % visible and not cut): image j is the first of indices j, j + 9,
    j + 18, … (the same scene kind; at most 6 tried) that shows it (``kinds``: only the slots j of
    those scene kinds, still n images); read by both tools (ruleset ``hk-tw-16`` for 16-tile hands, else ``nts``)."""
    from PIL import Image

    from .faces import NoFontError, cjk_fonts
    from .hard import HARD_VAL_SEED, KINDS, hard_val_scene
    from .scene import render_scene

    if not cjk_fonts():  # (the set draws its tile art from what is installed: without a font, another set)
        raise NoFontError("the hard-scene set needs a CJK font for its procedural tile faces: install one "
                           "(apt-get install fonts-wqy-zenhei) or set $MAHJONG_CJK_FONTS")

    rows = []
    by_kind: dict[str, list[dict]] = {}
    i = 0
    with tempfile.TemporaryDirectory(prefix="mahjong-hard-") as tmp:
        folder = Path(keep) if keep is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        slots = [j for j in range(len(KINDS) * (n + 1)) if kinds is None or KINDS[j % len(KINDS)] in kinds][:n]
        for slot in slots:
            for idx in range(slot, slot + 6 * len(KINDS), len(KINDS)):  # the same kind, until the hand is whole
                hs = hard_val_scene(idx)
                sc = render_scene(HARD_VAL_SEED, idx, W, H, hard=hs)
                i += 1
                mine = [t for t in sc.tiles if t.placed.role != "distractor"]
                need = len(sc.hand.all_tiles()) + len(sc.hand.bonus)
                if len(mine) == need and not any(t.truncated or t.visible < 0.6 for t in mine):
                    break
            else:
                continue
            path = folder / f"hard_{idx:04d}_{hs.kind}.jpg"
            Image.fromarray(sc.image).save(path, "JPEG", quality=sc.jpeg_quality)
            data = path.read_bytes()
            gb = np.array([t.xyxy for t in mine], float).reshape(-1, 4)
            gc = [t.placed.shown for t in mine]
            row = {"index": idx, "kind": hs.kind, "clutter": list(hs.clutter), "gold": sorted(gc),
                   "hand": sc.hand.notation()}
            rs = "hk-tw-16" if sc.hand.size == 16 else "nts"
            for who in ("ours", "baseline"):
                r = product_read(str(path), rs, threads) if who == "ours" else (baseline_read(data) if baseline else None)
                if r is None:
                    row[who] = None
                    continue
                tp, fp, fn = box_counts(r["boxes"], r["tiles"], gb, gc)
                row[who] = {"tp": tp, "fp": fp, "fn": fn, "exact": Counter(r["tiles"]) == Counter(gc),
                            "found": hand_found(r["all_boxes"], r["boxes"], gb), "reading": r["notation"],
                            "seconds": r["seconds"], "timed_out": bool(r.get("timed_out")), "crashed": r.get("crashed"),
                            **_sureness(r)}
            rows.append(row)
            by_kind.setdefault(hs.kind, []).append(row)
            if log:
                log(f"hard {hs.kind} {idx}")
    return {"rows": rows, "total": {who: _sum(rows, who) for who in ("ours", "baseline")},
            "by_kind": {k: {who: _sum(v, who) for who in ("ours", "baseline")} for k, v in by_kind.items()},
            "n": len(rows), "tried": i}


# ----------------------------------------------------------------------------- calibration


def ece(conf: np.ndarray, correct: np.ndarray, bins: int = 15) -> tuple[float, list[dict]]:
    """Expected calibration error: Σ_b (n_b / N) · |accuracy_b − mean confidence_b| over ``bins``
    equal-width confidence bins of (0, 1] (top-1 probability vs top-1 right); → (ECE, the bins)."""
    conf = np.asarray(conf, float)
    correct = np.asarray(correct, bool)
    edges = np.linspace(0, 1, bins + 1)
    total, out = 0.0, []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if not m.any():
            continue
        acc, cf = float(correct[m].mean()), float(conf[m].mean())
        total += m.sum() / max(len(conf), 1) * abs(acc - cf)
        out.append({"lo": round(float(lo), 3), "hi": round(float(hi), 3), "n": int(m.sum()), "accuracy": acc,
                    "confidence": cf})
    return float(total), out
