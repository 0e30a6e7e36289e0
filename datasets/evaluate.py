"""Evaluate the ONNX tile detector + classifier honestly: synthetic, real crops, real photos, baseline.

``python -m datasets.evaluate`` (also ``mahjong-score eval``) prints one table, side by side:

* synthetic validation mAP50 of the detector (onnxruntime on ``<data>/images/val``);
* top-1 accuracy of the classifier on the real single-tile photos ``../shared/data/crops-real``
  (42 face classes; the whole photo is the crop);
* per-tile precision / recall / F1 and whole-hand exact match on ``../shared/data/photos`` —
  predictions are matched to labelled tiles by box IoU ≥ 0.5 where the labels give boxes, else the
  hand row (the main row of ``vision.layout``) read along the row is aligned to the labelled rows
  (edit distance: a substitution is one false positive and one false negative);
* the same photos through PyPI ``mahjong-detector`` (its 34 classes) as the baseline;
* model time for one photo on one CPU thread;
* the sets of :mod:`datasets.evalsets`, each side by side with ``mahjong-detector``: the shared
  photos and the demo turned and EXIF-tagged (rotations), composites of the real crops on rendered
  backgrounds with clutter, hard-scene renders of held-out seeds and palettes, and the classifier's
  expected calibration error (ECE, 15 bins) on the real crops.

All inference goes through onnxruntime (the ONNX files in ``models/``), never torch.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_INDEX

from .evalbase import (BASELINE_MAP, MODELS, _VISION, Detection, _vision_models, baseline_detect,  # noqa: F401
                       box_iou, load_photo, yolo_labels)
from .paths import REPO, default_synth, shared_dir



# ----------------------------------------------------------------------------- helpers


# ----------------------------------------------------------------------------- metrics


def ap50(dets_per_img: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
         gts_per_img: list[tuple[np.ndarray, np.ndarray]], nc: int) -> tuple[float, list[float]]:
    """mAP at IoU 0.5 (all-point interpolation, as ultralytics' 'continuous' AP), mean over classes with labels.

    dets_per_img: (boxes (N,4), scores (N,), classes (N,)) per image; gts_per_img: (boxes (M,4), classes (M,)).
    """
    aps = []
    for c in range(nc):
        recs, npos = [], 0
        for (db, ds, dc), (gb, gc) in zip(dets_per_img, gts_per_img):
            g = gb[gc == c]
            npos += len(g)
            d = db[dc == c]
            s = ds[dc == c]
            order = np.argsort(-s)
            used = np.zeros(len(g), bool)
            ious = box_iou(d[order], g) if len(g) and len(d) else np.zeros((len(d), len(g)))
            for j, i in enumerate(order):
                tp = 0
                if len(g):
                    cand = np.where(~used & (ious[j] >= 0.5))[0]
                    if len(cand):
                        k = cand[np.argmax(ious[j][cand])]
                        used[k] = True
                        tp = 1
                recs.append((s[i], tp))
        if npos == 0:
            aps.append(float("nan"))
            continue
        recs.sort(key=lambda r: -r[0])
        tps = np.array([r[1] for r in recs], float)
        ctp, cfp = np.cumsum(tps), np.cumsum(1 - tps)
        rec = ctp / npos
        prec = ctp / np.maximum(ctp + cfp, 1e-9)
        mrec = np.concatenate([[0.0], rec, [1.0]])
        mpre = np.concatenate([[1.0], prec, [0.0]])
        mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
        i = np.where(mrec[1:] != mrec[:-1])[0]
        aps.append(float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1])))
    valid = [a for a in aps if a == a]
    return (float(np.mean(valid)) if valid else float("nan")), aps


def align(pred: list[str], gold: list[str]) -> tuple[int, int, int]:
    """(TP, FP, FN) of the minimum-edit alignment of two tile sequences (sub = FP + FN, cost 2)."""
    n, m = len(pred), len(gold)
    D = np.zeros((n + 1, m + 1), int)
    D[:, 0] = np.arange(n + 1)
    D[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + (0 if pred[i - 1] == gold[j - 1] else 2))
    # count matches along one optimal path
    i, j, tp = n, m, 0
    while i > 0 and j > 0:
        if pred[i - 1] == gold[j - 1] and D[i, j] == D[i - 1, j - 1]:
            tp, i, j = tp + 1, i - 1, j - 1
        elif D[i, j] == D[i - 1, j] + 1:
            i -= 1
        elif D[i, j] == D[i, j - 1] + 1:
            j -= 1
        else:
            i, j = i - 1, j - 1
    return tp, n - tp, m - tp


def hand_row(dets: list[Detection], W: int, H: int) -> list[Detection]:
    """The photographed player's hand row, in order along the row: the *main row* of
    :func:`vision.layout.find_geometry` (the product's own grouping: the nearest, lowest, largest and
    longest row; walls, discards and other players' tiles are left out)."""
    if not dets:
        return []
    from vision.detect import Detections
    from vision.layout import find_geometry

    geo = find_geometry(Detections.make(np.stack([d.xyxy for d in dets])), (W, H))
    return [dets[i] for i in geo.row_tiles(geo.main_row)]


def score_photo(pred: list[Detection], label: dict, W: int, H: int) -> dict:
    """Per-tile TP/FP/FN and exact match of one photo's predictions against its labels."""
    gold_seq = [t for r in label["rows"] for t in r["tiles"]]
    boxes = label.get("boxes") or []
    if boxes:
        g = np.array([[(b["xywhn"][0] - b["xywhn"][2] / 2) * W, (b["xywhn"][1] - b["xywhn"][3] / 2) * H,
                       (b["xywhn"][0] + b["xywhn"][2] / 2) * W, (b["xywhn"][1] + b["xywhn"][3] / 2) * H] for b in boxes])
        gt = [b["tile"] for b in boxes]
        used = np.zeros(len(g), bool)
        tp = fp = 0
        for d in sorted(pred, key=lambda d: -d.score):
            ious = box_iou(d.xyxy[None], g)[0]
            ious[used] = 0
            k = int(ious.argmax())
            if ious[k] >= 0.5:
                used[k] = True
                if d.tile == gt[k]:
                    tp += 1
                else:
                    fp += 1  # wrong class on a real tile: one FP and (below) one FN
            else:
                fp += 1
        fn = len(g) - tp
        seq = [d.tile for d in sorted(pred, key=lambda d: d.xyxy[0])]
        method = "box IoU≥0.5"
    else:
        row = hand_row(pred, W, H)
        seq = [d.tile for d in row]
        tp, fp, fn = align(seq, gold_seq)
        method = "row alignment"
    return {"tp": tp, "fp": fp, "fn": fn, "exact": seq == gold_seq, "pred": seq, "gold": gold_seq, "method": method}


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


# ----------------------------------------------------------------------------- the parts


def eval_synth(data: Path, limit: int, threads: int = 1) -> dict:
    """Detector mAP50 on the synthetic validation images (labels: YOLO txt), via vision.detect; with
    the renders' meta JSON also the hand tiles found (score ≥ 0.25, IoU ≥ 0.5) and, for the hand
    tiles at least 60 % visible, the share read right by the product's detect → classify path
    (default thresholds, each tile matched to its best-overlapping detection at IoU ≥ 0.5; a
    face-down tile must read ``0x``)."""
    det, clf = _vision_models(threads)
    imgs = sorted((data / "images" / "val").glob("*.jpg"))[:limit]
    if not imgs:
        return {"synth_map50": None, "synth_images": 0}
    back = [i for i, n in enumerate(det.names) if n in ("back", "0x")]
    D, G = [], []
    hand_n = hand_hit = read_n = read_ok = 0
    for p in imgs:
        img = cv2.imread(str(p))[..., ::-1]
        H, W = img.shape[:2]
        ds = det(np.ascontiguousarray(img), conf=0.001, iou=0.6)
        D.append((np.asarray(ds.boxes, float).reshape(-1, 4), np.asarray(ds.scores, float),
                  np.where(ds.face_down, back[0] if back else 0, 0).astype(int)))
        G.append(yolo_labels(data / "labels" / "val" / (p.stem + ".txt"), W, H))
        meta = data / "meta" / "val" / (p.stem + ".json")
        if meta.exists():  # the hand's own tiles (not discards/walls): found at score ≥ 0.25, box IoU ≥ 0.5
            tiles = json.loads(meta.read_text())["tiles"]
            hb = np.array([t["xyxy"] for t in tiles if t["role"] != "distractor"], float).reshape(-1, 4)
            db = D[-1][0][D[-1][1] >= 0.25]
            hand_n += len(hb)
            if len(hb) and len(db):
                hand_hit += int((box_iou(hb, db).max(1) >= 0.5).sum())
            seen = [t for t in tiles if t["role"] != "distractor" and t["visible"] > 0.6]
            prod = det(np.ascontiguousarray(img))
            if seen and len(prod):
                codes = clf(np.ascontiguousarray(img), prod).codes
                iou = box_iou(np.array([t["xyxy"] for t in seen], float), np.asarray(prod.boxes, float))
                for t, row in zip(seen, iou):
                    j = int(row.argmax())
                    if row[j] >= 0.5:
                        read_n += 1
                        read_ok += codes[j] == ("0x" if t["pose"] == "face-down" else t["tile"])
    m, per = ap50(D, G, max(len(det.names), 1))
    return {"synth_map50": m, "synth_map50_per_class": per, "synth_images": len(imgs),
            "synth_hand_recall": hand_hit / hand_n if hand_n else None, "synth_hand_tiles": hand_n,
            "synth_read_right": read_ok / read_n if read_n else None, "synth_read_matched": read_n}


def eval_hands(data: Path, limit: int, threads: int = 1) -> dict:
    """The whole product on the synthetic validation renders whose hand is entirely in the picture
    (every hand tile and bonus tile of the meta JSON present, ≥ 60 % visible, not cut off):
    ``vision.pipeline.read_photo`` (ruleset ``nts``, ``hk-tw-16`` for 16-tile hands, default
    circumstances) → how many readings are legal, have the true tiles (as a multiset, melds and
    concealed alike), also the true bonus tiles, the true melds, the true winning tile, and the whole
    hand exactly. Renders that show the winning tile in the row give the product no way to tell it, so
    the winning-tile and exact counts are lower bounds."""
    from scoring import Context, format_hand, parse_hand
    from vision.pipeline import read_photo

    det, clf = _vision_models(threads)
    c = dict.fromkeys(("hands", "legal", "tiles", "bonus", "melds", "winning", "exact"), 0)
    for p in sorted((data / "images" / "val").glob("*.jpg"))[:limit]:
        meta = data / "meta" / "val" / (p.stem + ".json")
        if not meta.exists():
            continue
        m = json.loads(meta.read_text())
        truth = parse_hand(m["hand"] + (f" win:{m['winning']}" if m.get("winning") else ""))
        shown = [t for t in m["tiles"] if t["role"] != "distractor"]
        if len(shown) != len(truth.all_tiles) + len(truth.bonus) or any(
                t["truncated"] or t["visible"] < 0.6 for t in shown):
            continue
        c["hands"] += 1
        rd = read_photo(str(p), "hk-tw-16" if m["size"] == 16 else "nts", Context(), detector=det,
                        classifier=clf).reading
        if not rd.legal:
            continue
        h = rd.hand
        c["legal"] += 1
        if sorted(h.all_tiles) != sorted(truth.all_tiles):
            continue
        c["tiles"] += 1
        c["bonus"] += sorted(h.bonus) == sorted(truth.bonus)
        c["melds"] += sorted(map(str, h.melds)) == sorted(map(str, truth.melds))
        c["winning"] += h.winning_tile == truth.winning_tile
        c["exact"] += format_hand(h) == format_hand(truth)
    return {"hands_" + k: v for k, v in c.items()}


def eval_crops(root: Path, threads: int = 1) -> dict:
    """Top-1 of the classifier (via vision.classify) on real single-tile photos: the whole photo is the
    tile's grown box, so the box handed to crop_tile is the photo shrunk by the model's crop margin."""
    from vision.detect import Detections

    _, clf = _vision_models(threads)
    rows = [r for r in csv.DictReader(open(root / "labels.csv")) if r["tile"] in CLASS_INDEX]
    ys, pred, top_p = [], [], []
    for r in rows:
        img = load_photo(root / r["image"])
        H, W = img.shape[:2]
        f = clf.margin / (1 + 2 * clf.margin)
        read = clf(img, Detections.make([[W * f, H * f, W * (1 - f), H * (1 - f)]]))
        ys.append(r["tile"])
        pred.append(read.codes[0])
        top_p.append(float(np.asarray(read.probs[0]).max()))
    conf: dict[str, int] = {}
    for a, b in zip(pred, ys):
        if a != b:
            conf[f"{b}→{a}"] = conf.get(f"{b}→{a}", 0) + 1
    from .evalsets import ece

    right = np.array([a == b for a, b in zip(pred, ys)])
    e, bins = ece(np.array(top_p), right, 15)
    return {"crops_top1": float(np.mean(right)), "crops_n": len(ys), "crops_ece": e, "crops_ece_bins": bins,
            "crops_mean_conf": float(np.mean(top_p)),
            "crops_errors": dict(sorted(conf.items(), key=lambda kv: -kv[1])),
            "crops_pred": [(r["image"], y, p) for r, y, p in zip(rows, ys, pred)]}


def run_pipeline(img: np.ndarray, conf: float, threads: int = 1) -> list[Detection]:
    """Detector + classifier through the product's inference code (:mod:`vision.detect`,
    :mod:`vision.classify`, onnxruntime) → detections with tile codes."""
    det, clf = _vision_models(threads)
    d = det(img, conf=conf)
    r = clf(img, d)
    codes = r.codes
    return [Detection(np.asarray(d.boxes[i], float), float(d.scores[i]), int(d.face_down[i]), codes[i],
                      float(r.probs[i].max())) for i in range(len(d))]


def eval_photos(root: Path, conf: float, threads: int = 1) -> dict:
    labels = json.load(open(root / "labels.json"))["photos"]
    res = {}
    for name, lab in labels.items():
        img = load_photo(root / name)
        H, W = img.shape[:2]
        t0 = time.perf_counter()
        ds = run_pipeline(img, conf, threads)
        dt = time.perf_counter() - t0
        ours = score_photo(ds, lab, W, H)
        ours["seconds"] = dt
        ours["detections"] = ds
        b = baseline_detect(img)
        base = score_photo(b, lab, W, H) if b is not None else None
        res[name] = {"ours": ours, "baseline": base, "size": (W, H)}
    return res


def time_models(img: np.ndarray, threads: int = 1, reps: int = 5) -> dict:
    """Median seconds (``threads`` intra-op threads): letterbox + detector, and crops + classifier."""
    det, clf = _vision_models(threads)
    td, tc, n = [], [], 0
    for _ in range(reps):
        t0 = time.perf_counter()
        d = det(img)
        t1 = time.perf_counter()
        clf(img, d)
        t2 = time.perf_counter()
        td.append(t1 - t0)
        tc.append(t2 - t1)
        n = len(d)
    # the ONNX sessions alone (no image resize / crop work): what the models themselves cost
    S = det.imgsz
    blob = np.zeros((1, 3, S, S), np.float32)
    crops = np.zeros((max(n, 1), 3, clf.imgsz, clf.imgsz), np.float32)
    sd, sc = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        det.model.session.run(None, {det.model.input_name: blob})
        t1 = time.perf_counter()
        clf.model.session.run(None, {clf.model.input_name: crops})
        sd.append(t1 - t0)
        sc.append(time.perf_counter() - t1)
    return {"detector_s": float(np.median(td)), "classifier_s": float(np.median(tc)), "n_crops": n,
            "detector_model_s": float(np.median(sd)), "classifier_model_s": float(np.median(sc))}


# ----------------------------------------------------------------------------- report


#: the sets ``run`` can measure (``--sets``), all run by default
SETS = ("photos", "crops", "rotations", "composites", "bonus", "columns", "tilted", "hard")


def run(data: Path | None, limit: int = 200, conf: float = 0.25, threads: int = 1, as_json: bool = False,
        out=sys.stdout, sets: tuple[str, ...] = SETS,
        composites: int = 20, hard: int = 18, baseline: bool = True, keep: Path | None = None,
        progress: bool = False, hard_kinds: tuple[str, ...] | None = None) -> dict:
    """Run every evaluation that its inputs allow and print one table; returns the raw results.

    ``sets``: which of photos, crops (with the ECE), rotations, composites, bonus, columns, tilted, hard to run; ``composites``
    / ``hard``: how many images of those sets; ``baseline``: also run ``mahjong-detector`` on them;
    ``keep``: a folder to keep the composite and hard-scene images in (else a temporary folder)."""
    det, clf = _vision_models(threads)
    sh = shared_dir()
    R: dict = {"detector_names": list(det.names), "detector_meta": {k: det.model.get(k) for k in ("mahjong_version", "trained", "data_hash", "imgsz")},
               "classifier_meta": {k: clf.model.get(k) for k in ("mahjong_version", "trained", "data_hash", "imgsz")}}
    if data is not None and (data / "images" / "val").is_dir():
        R.update(eval_synth(data, limit, threads))
        R.update(eval_hands(data, limit, threads))
    from . import evalsets

    log = (lambda m: print(f"[{time.strftime('%H:%M:%S')}] {m}", file=sys.stderr)) if progress else None
    timing: dict = {}
    t0 = time.perf_counter()
    if "crops" in sets and sh is not None and (sh / "data" / "crops-real" / "labels.csv").exists():
        R.update(eval_crops(sh / "data" / "crops-real", threads))
    timing["crops"] = time.perf_counter() - t0
    if "rotations" in sets:
        t0 = time.perf_counter()
        srcs = evalsets.rotation_sources(sh, REPO)
        if srcs:
            R["rotations"] = evalsets.eval_rotations(srcs, "nts", threads, baseline, log)
        timing["rotations"] = time.perf_counter() - t0
    if "composites" in sets and composites > 0 and sh is not None and (sh / "data" / "crops-real" / "labels.csv").exists():
        t0 = time.perf_counter()
        R["composites"] = evalsets.eval_composites(sh / "data" / "crops-real", composites, 0, threads, baseline,
                                                   None if keep is None else keep / "composites", log)
        timing["composites"] = time.perf_counter() - t0
    if "bonus" in sets and composites > 0 and sh is not None and (sh / "data" / "crops-real" / "labels.csv").exists():
        t0 = time.perf_counter()
        R["bonus"] = evalsets.eval_composites(sh / "data" / "crops-real", composites, 0, threads, baseline,
                                              None if keep is None else keep / "bonus", log, bonus=True)
        timing["bonus"] = time.perf_counter() - t0
    if "columns" in sets and composites > 0 and sh is not None and (sh / "data" / "crops-real" / "labels.csv").exists():
        t0 = time.perf_counter()
        R["columns"] = evalsets.eval_composites(sh / "data" / "crops-real", composites, 0, threads, baseline,
                                                None if keep is None else keep / "columns", log, columns=True)
        timing["columns"] = time.perf_counter() - t0
    if "tilted" in sets and composites > 0 and sh is not None and (sh / "data" / "crops-real" / "labels.csv").exists():
        t0 = time.perf_counter()
        R["tilted"] = evalsets.eval_composites(sh / "data" / "crops-real", composites, 0, threads, baseline,
                                               None if keep is None else keep / "tilted", log, tilted=True)
        timing["tilted"] = time.perf_counter() - t0
    if "hard" in sets and hard > 0:
        from . import faces

        if not faces.cjk_fonts():  # (its procedural faces: without a font the set would be another)
            R["hard_skipped"] = "no CJK font for its procedural tile faces (apt-get install fonts-wqy-zenhei)"
        elif faces.available_sources():
            t0 = time.perf_counter()
            R["hard"] = evalsets.eval_hard(hard, threads=threads, baseline=baseline,
                                           keep=None if keep is None else keep / "hard", log=log, kinds=hard_kinds)
            # (the renders draw their tile art from what this machine has: without ../shared's tile sets
            # they are other images, and their figures are not those of the model card)
            R["hard"]["art_sources"] = sorted(faces.available_sources())
            timing["hard"] = time.perf_counter() - t0
    R["set_seconds"] = timing
    R["baseline_on_sets"] = baseline
    photos = {}
    if "photos" in sets and sh is not None and (sh / "data" / "photos" / "labels.json").exists():
        photos = eval_photos(sh / "data" / "photos", conf, threads)
        big = max(photos, key=lambda n: photos[n]["size"][0] * photos[n]["size"][1])
        R["timing"] = time_models(load_photo(sh / "data" / "photos" / big), threads)
        R["timing"]["photo"] = big
    R["photos"] = photos
    if as_json:
        print(json.dumps(_jsonable(R), indent=1), file=out)
    else:
        print(format_table(R), file=out)
    return R


def _jsonable(R):
    def conv(v):
        if isinstance(v, Detection):
            return {"xyxy": [round(float(a), 1) for a in v.xyxy], "score": round(v.score, 3), "tile": v.tile,
                    "prob": round(v.prob, 3)}
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return conv(v.tolist())
        return v
    return conv(R)


def format_table(R: dict) -> str:
    f = lambda v: "—" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))  # noqa: E731
    L = ["| metric | ours | mahjong-detector | target |", "|---|---|---|---|"]
    if R.get("synth_images"):
        L.append(f"| synthetic val mAP50 ({R['synth_images']} images) | {f(R.get('synth_map50'))} | — | ≥ 0.98 |")
    else:
        L.append("| synthetic val mAP50 | not run (no rendered validation set: --data) | — | ≥ 0.98 |")
    per = R.get("synth_map50_per_class")
    if per:
        L.append(f"| synthetic val AP50 per class ({', '.join(R.get('detector_names') or [])}) | "
                 f"{' / '.join(f(v) for v in per)} | — | |")
    if R.get("synth_hand_recall") is not None:
        L.append(f"| synthetic val: hand tiles found (score ≥ 0.25, IoU ≥ 0.5; {R['synth_hand_tiles']} tiles) | "
                 f"{f(R['synth_hand_recall'])} | — | |")
    if R.get("synth_read_right") is not None:
        L.append(f"| synthetic val: hand tiles read right after detection ({R['synth_read_matched']} matched) | "
                 f"{f(R['synth_read_right'])} | — | |")
    if R.get("hands_hands"):
        n = R["hands_hands"]
        L.append(f"| synthetic val, whole product on the {n} renders showing the whole hand: legal / true tiles / "
                 f"+ bonus tiles / + melds / + winning tile / exact | "
                 + " / ".join(str(R[f"hands_{k}"]) for k in ("legal", "tiles", "bonus", "melds", "winning", "exact"))
                 + " | — | |")
    if R.get("crops_n"):
        L.append(f"| real crops top-1 ({R['crops_n']} crops) | {f(R.get('crops_top1'))} | — | ≥ 0.95 |")
    else:
        L.append("| real crops top-1 | not run (crops not in --sets, or ../shared/data/crops-real absent) | — | ≥ 0.95 |")
    tot = {"ours": [0, 0, 0], "baseline": [0, 0, 0]}
    for name, r in R.get("photos", {}).items():
        cells = []
        for who in ("ours", "baseline"):
            s = r[who]
            if s is None:
                cells.append("not installed")
                continue
            tot[who] = [a + b for a, b in zip(tot[who], (s["tp"], s["fp"], s["fn"]))]
            p, rc, f1 = prf(s["tp"], s["fp"], s["fn"])
            cells.append(f"P {p:.2f} R {rc:.2f} F1 {f1:.2f} exact {'yes' if s['exact'] else 'no'}")
        L.append(f"| photo {name} ({r['ours']['method']}) | {cells[0]} | {cells[1]} | F1 ≥ 0.95 |")
    for who in ("ours", "baseline"):
        tot[who] = prf(*tot[who])
    if R.get("photos"):
        ex = lambda who: sum(1 for r in R["photos"].values() if r[who] and r[who]["exact"])  # noqa: E731
        L.append(f"| photos, all tiles: F1 / exact hands | {tot['ours'][2]:.3f} / {ex('ours')} of {len(R['photos'])} | "
                 f"{tot['baseline'][2]:.3f} / {ex('baseline')} of {len(R['photos'])} | ≥ 0.95 |")
    t = R.get("timing")
    if t:
        L.append(f"| model time, 1 thread ({t['photo']}): detector / classifier ×{t['n_crops']} / sum | "
                 f"{t['detector_s'] * 1000:.0f} / {t['classifier_s'] * 1000:.0f} / "
                 f"{(t['detector_s'] + t['classifier_s']) * 1000:.0f} ms | — | ≤ 150 ms |")
        L.append(f"| ONNX sessions only (no resize/crop): detector / classifier ×{t['n_crops']} / sum | "
                 f"{t['detector_model_s'] * 1000:.0f} / {t['classifier_model_s'] * 1000:.0f} / "
                 f"{(t['detector_model_s'] + t['classifier_model_s']) * 1000:.0f} ms | — | |")
    lines = ["\n".join(L), ""]
    sets_table = format_sets(R)
    if sets_table:
        lines += [sets_table, ""]
    for name, r in R.get("photos", {}).items():
        lines.append(f"{name}: gold {' '.join(r['ours']['gold'])}")
        lines.append(f"{' ' * len(name)}  ours {' '.join(str(t) for t in r['ours']['pred'])}")
        if r["baseline"]:
            lines.append(f"{' ' * len(name)}  base {' '.join(str(t) for t in r['baseline']['pred'])}")
    if R.get("crops_errors"):
        lines.append("real-crop confusions (gold→pred: n): " + ", ".join(f"{k}: {v}" for k, v in R["crops_errors"].items()))
    return "\n".join(lines)


def _cell(s: dict | None, *keys: str, n: int | None = None, skipped: bool = False) -> str:
    """One tool's cell of the sets table: ``keys`` among f1, exact, found, same (counts as 'k of n')."""
    if s is None or not s:
        return "skipped (--no-baseline)" if skipped else "not installed"
    n = s["n"] if n is None else n
    out = []
    for k in keys:
        if k == "f1":
            out.append(f"F1 {s['f1']:.3f} (P {s['precision']:.2f} R {s['recall']:.2f})")
        elif k in s:
            out.append(f"{k} {s[k]}/{n} ({s[k] / n:.0%})" if n else f"{k} —")
    if s.get("timed_out"):
        out.append(f"{s['timed_out']} timed out")
    if s.get("crashed"):
        out.append(f"{s['crashed']} CRASHED")
    return ", ".join(out)


def format_sets(R: dict) -> str:
    """The table of the issue-14 sets: one row per set (and per variant / scene kind), ours | baseline."""
    from .evalsets import ROTATION_TURNS

    L = []
    sk = not R.get("baseline_on_sets", True)
    rot = R.get("rotations")
    if rot:
        t = rot["total"]
        L.append(f"| rotations & EXIF: {rot['photos']} photos × {len(rot['by_variant'])} variants, reading = upright "
                 f"reading, read the right way up; tile F1 (multiset); hands exact | {_cell(t['ours'], 'same', 'f1', 'exact')} | "
                 f"{_cell(t.get('baseline'), 'same', 'f1', 'exact', skipped=sk)} | same: all |")
        for v, d in rot["by_variant"].items():
            L.append(f"| · {v} | {_cell(d['ours'], 'same', 'f1', 'exact')} | {_cell(d.get('baseline'), 'same', 'f1', 'exact', skipped=sk)} | |")
    for name, what in (("composites", "composites of real crops ({n}, rendered backgrounds + clutter)"),
                       ("bonus", "the same composites with 1–4 real flower/season photos set apart as the hand's "
                                 "bonus tiles ({n})"),
                       ("columns", "the same composites with 3–8 real flower/season photos lying sideways in one or "
                                   "two touching columns near the hand ({n})"),
                       ("tilted", "the same composites turned 8–30° either way, as a phone held askew takes them ({n})")):
        comp = R.get(name)
        if comp:
            t = comp["total"]
            L.append(f"| {what.format(n=comp['n'])}: tile F1 (boxes); hands exact; hand found | "
                     f"{_cell(t['ours'], 'f1', 'exact', 'found')} | "
                     f"{_cell(t.get('baseline'), 'f1', 'exact', 'found', skipped=sk)} | F1 ≥ 0.90, exact ≥ 50 % |")
    hard = R.get("hard")
    if R.get("hard_skipped"):
        L.append(f"| hard-scene renders, held out | skipped: {R['hard_skipped']} | — | |")
    if hard:
        t = hard["total"]
        art = hard.get("art_sources")
        art = f", tile art {', '.join(art)}" if art else ""
        L.append(f"| hard-scene renders, held out ({hard['n']} of {hard['tried']} tried{art}): hand found; hands exact; "
                 f"tile F1 (boxes) | {_cell(t['ours'], 'found', 'exact', 'f1')} | "
                 f"{_cell(t.get('baseline'), 'found', 'exact', 'f1', skipped=sk)} | found ≥ 99 %, exact ≥ 90 % |")
        for k, d in hard["by_kind"].items():
            L.append(f"| · {k} | {_cell(d['ours'], 'found', 'exact', 'f1')} | {_cell(d.get('baseline'), 'found', 'exact', 'f1', skipped=sk)} | |")
    sure = [(name, (R.get(name) or {}).get("total", {}).get("ours") or {})
            for name in ("composites", "bonus", "columns", "tilted", "hard")]
    sure = [(k, t) for k, t in sure if "sure_wrong" in t]
    if sure:
        cells = "; ".join(f"{k}: {t['sure_wrong']} confident wrong, {t['flagged_wrong']} of {t['n'] - t['exact']} "
                          f"wrong ones flagged ({t['flagged']} flagged in all)" for k, t in sure)
        L.append(f"| wrong readings: confident (legal, confidence ≥ 80 %) against refused or flagged for review "
                 f"| {cells} | — | confident wrong < flagged |")
        # (by the score's confidence, as batch's needs-review weighs it: doubts that cannot change the score left out)
        cells = "; ".join(f"{k}: {t['score_sure_wrong']} confident not exact, {t['score_flagged']} flagged"
                          for k, t in sure if "score_sure_wrong" in t)
        if cells:
            L.append(f"| the same by the score's confidence (flowers/seasons that cannot change the score left out; a "
                     f"reading not exact may score right) | {cells} | — | |")
    if R.get("crops_ece") is not None:
        L.append(f"| classifier calibration on the {R['crops_n']} real crops: ECE (15 bins); mean top-1 probability "
                 f"vs top-1 | ECE {R['crops_ece']:.3f}; {R['crops_mean_conf']:.3f} vs {R['crops_top1']:.3f} | — | "
                 f"ECE small |")
    if not L:
        return ""
    secs = R.get("set_seconds") or {}
    head = ["| set | ours | mahjong-detector | target |", "|---|---|---|---|"]
    tail = ["", "seconds per set: " + ", ".join(f"{k} {v:.0f}" for k, v in secs.items())] if secs else []
    miss = []  # the product's misses, to look at (--keep keeps the images)
    for name in ("composites", "bonus", "columns", "tilted", "hard"):
        for r in (R.get(name) or {}).get("rows", []):
            o = r.get("ours")
            if o and not o["exact"]:
                what = f"{name} {r['index']}" + (f" {r['kind']}" if "kind" in r else "")
                why = ("CRASHED: " + o["crashed"]) if o.get("crashed") else "timed out" if o.get("timed_out") else (
                    "hand not found" if not o.get("found") else "misread")
                miss.append(f"  {what}: {why}; gold {' '.join(sorted(r['gold']))} | read {o['reading']}")
    for r in (rot or {}).get("rows", []):
        o = r.get("ours")
        if o and not o["same"]:
            turn = ROTATION_TURNS.get(r["variant"], 0)
            wrong_way = (f" turned {o['turned']}° (upright: {turn}°)" if o.get("turned", turn) != turn else "")
            miss.append(f"  rotations {r['photo']} {r['variant']}: not the upright reading; read {o['reading']}{wrong_way}"
                        + (f" (CRASHED: {o['crashed']})" if o.get("crashed") else ""))
    if miss:
        tail += ["", "the product's misses on the sets:"] + miss
    return "\n".join(head + L + tail)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.evaluate", description=__doc__.split("\n")[0])
    add_args(ap)
    a = ap.parse_args(argv)
    return cmd_eval(a)


def add_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data", type=Path, default=None, help="synthetic dataset with images/val (default $MAHJONG_SYNTH, else synth-v2 in $MAHJONG_DATA or the user cache directory)")
    ap.add_argument("--limit", type=int, default=200, help="synthetic val images to use")
    ap.add_argument("--conf", type=float, default=0.25, help="detector score threshold for photos (vision.detect's default)")
    ap.add_argument("--threads", type=int, default=1,
                    help="CPU threads for each ONNX model (default 1: the model times are per core)")
    ap.add_argument("--models", type=Path, default=None, help="folder with detector.onnx and classifier.onnx (default models/)")
    ap.add_argument("--json", action="store_true", help="print raw results as JSON")
    ap.add_argument("--sets", default=",".join(SETS),
                    type=lambda t: tuple(x for x in t.split(",") if x),
                    help="comma-separated sets to run: photos, crops (top-1 and ECE), rotations, composites, bonus "
                         "(the composites with flowers/seasons set apart), columns (with 3-8 of them lying sideways in "
                         "touching columns), tilted (the composites turned 8-30 degrees), hard "
                         "(default all; the synthetic validation set runs when --data exists)")
    ap.add_argument("--composites", type=int, default=20, help="composite photos of real crops to make and read")
    ap.add_argument("--hard", type=int, default=18, help="hard-scene renders (held-out seeds/palettes) to read")
    ap.add_argument("--hard-kinds", default=None, type=lambda t: tuple(x for x in t.split(",") if x),
                    help="only these scene kinds in the hard set (comma-separated, from datasets/hard.py KINDS)")
    ap.add_argument("--no-baseline", action="store_true", help="skip mahjong-detector on the sets")
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the composite and hard-scene images in this folder (default: a temporary folder)")
    ap.add_argument("--progress", action="store_true", help="log each image of the sets to stderr")
    ap.add_argument("--image-seconds", type=float, default=30.0,
                    help="seconds the product may take on one image of the sets before it counts as no reading "
                         "(0: no limit)")
    ap.add_argument("--failures", type=Path, default=None,
                    help="write small PNGs of the failures (misread real crops, photo readings) into this folder")


def cmd_eval(a) -> int:
    import os

    global MODELS
    from . import evalbase

    data = a.data or default_synth()
    if a.models is not None:  # every set loads the models through evalbase._vision_models
        MODELS = evalbase.MODELS = a.models
        _VISION.clear()
    for f in ("detector.onnx", "classifier.onnx"):
        if not (MODELS / f).exists():
            print(f"error: models/{f} is missing (train with python -m datasets.train)", file=sys.stderr)
            return 2
    from . import evalsets

    evalsets.IMAGE_SECONDS = float(getattr(a, "image_seconds", evalsets.IMAGE_SECONDS))
    R = run(data if data.is_dir() else None, a.limit, a.conf, a.threads, a.json,
            sets=getattr(a, "sets", SETS),
            composites=getattr(a, "composites", 20), hard=getattr(a, "hard", 18),
            baseline=not getattr(a, "no_baseline", False), keep=getattr(a, "keep", None),
            progress=getattr(a, "progress", False), hard_kinds=getattr(a, "hard_kinds", None))
    if a.failures is not None:
        write_failures(R, a.failures)
    return 0


def write_failures(R: dict, out: Path, max_crops: int = 24) -> None:
    """Small PNGs for the model card: misread real crops (gold → read) and each photo's reading."""
    out.mkdir(parents=True, exist_ok=True)
    sh = shared_dir()
    bad = [(img, g, p) for img, g, p in R.get("crops_pred", []) if g != p][:max_crops]
    if bad and sh is not None:
        tiles = []
        for img, g, p in bad:
            im = cv2.resize(load_photo(sh / "data" / "crops-real" / img), (60, 80), interpolation=cv2.INTER_AREA)
            cell = np.full((96, 64, 3), 255, np.uint8)
            cell[:80, 2:62] = im
            cv2.putText(cell, f"{g}>{p}", (2, 92), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (200, 0, 0), 1, cv2.LINE_AA)
            tiles.append(cell)
        while len(tiles) % 12:
            tiles.append(np.full((96, 64, 3), 255, np.uint8))
        grid = np.vstack([np.hstack(tiles[i:i + 12]) for i in range(0, len(tiles), 12)])
        _save_small_png(grid, out / "real_crop_errors.png")
    for name, r in R.get("photos", {}).items():
        if sh is None:
            break
        img = load_photo(sh / "data" / "photos" / name)
        s = 640 / max(img.shape[:2])
        vis = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA).copy()
        for d in r["ours"]["detections"]:
            x0, y0, x1, y1 = (d.xyxy * s).astype(int)
            cv2.rectangle(vis, (x0, y0), (x1, y1), (0, 200, 255), 1)
            cv2.putText(vis, str(d.tile), (x0, max(y0 - 3, 8)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 0), 1, cv2.LINE_AA)
        cv2.putText(vis, "gold: " + " ".join(r["ours"]["gold"]), (4, vis.shape[0] - 22), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (0, 255, 0), 1, cv2.LINE_AA)
        cv2.putText(vis, "read: " + " ".join(str(t) for t in r["ours"]["pred"]), (4, vis.shape[0] - 8),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 0), 1, cv2.LINE_AA)
        _save_small_png(vis, out / (Path(name).stem + "_reading.png"))


def _save_small_png(rgb: np.ndarray, path: Path, colours: int = 64) -> None:
    """An RGB array as a palette PNG (small enough to commit)."""
    from PIL import Image

    Image.fromarray(rgb).quantize(colours, dither=Image.Dither.NONE).save(path, optimize=True)


def register(subparsers) -> None:
    """``mahjong-score eval``: the evaluation table (thin wrapper over :func:`run`)."""
    p = subparsers.add_parser(
        "eval", help="evaluate the ONNX tile models (synthetic, real crops, real photos, baseline)",
        description="Measure the detector and classifier, and the whole product, on the evaluation sets: the "
                    "real single-tile photos and hand photos of ../shared (set MAHJONG_SHARED), the shared "
                    "photos turned and re-tagged, composites of real tiles, held-out hard-scene renders, and "
                    "the synthetic validation set when it exists; PyPI's mahjong-detector runs beside it when "
                    "installed. Prints one table (the model card's figures; docs/photo.md explains the sets). "
                    "The default run takes minutes.")
    add_args(p)
    p.set_defaults(func=cmd_eval)


if __name__ == "__main__":
    sys.exit(main())
