"""Teach the classifier to say "this box is not a tile" (issue 14, item 3): a logistic probe on its embedding.

Clutter — keyboard keys, dominoes, dice, cards, printed text, a patterned cloth, the parts of an automatic
table — gets boxed by the detector now and then, and the classifier, which only knows 43 tile classes,
reads it as some tile (often a flower). This module mines the detector's boxes on rendered scenes whose
true tile boxes are known (``datasets.synth`` folders, YOLO labels; the hard scenes with clutter), labels
each box *tile* (IoU ≥ :data:`POS_IOU` with a true tile or back) or *not a tile* (IoU < :data:`NEG_IOU`
with every true box; boxes in between are left out), fits a logistic regression on the classifier's
``embedding`` of the box's crop (at the turn the classifier chose, as at run time), and writes it into the
classifier graph as a third output ``tile_prob`` (B, 1) = sigmoid(embedding · w + b)
(``models/CONTRACT.md``). :class:`vision.classify.Classifier` reads it into ``TileReadings.tile``, and the
hand finding weighs every box by it (``vision.pipeline.tileness``).

    python -m datasets.tileprobe fit --data DIR [DIR ...] [--limit N] [--model models/classifier.onnx]
                                     [--detector models/detector.onnx] [--out models/classifier.onnx]
                                     [--report FILE] [--cache FILE.npz]

Reads the images of each folder's ``images/train`` for fitting and ``images/val`` for the report; the
model's other outputs are unchanged. Needs scikit-learn and onnx (the ``train`` extra). Source: a linear
probe on frozen features (Alain & Bengio, "Understanding intermediate layers using linear classifier
probes", 2016); the regression is scikit-learn's ``LogisticRegression``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .evalbase import box_iou, yolo_labels

#: a detection is a tile when it overlaps a true tile/back box this much (IoU) ...
POS_IOU = 0.6
#: ... and not a tile when it overlaps every true box less than this
NEG_IOU = 0.3
TILE_OUTPUT = "tile_prob"


def mine(folders: list[Path], split: str, limit: int | None = None, detector=None, classifier=None,
         log=print) -> dict[str, np.ndarray]:
    """Run the product's detector and classifier on the ``split`` images of ``folders`` and label each box.

    Returns ``{"emb": (K, D) float32, "y": (K,) int8 1 = tile 0 = not a tile, "score": (K,) detector
    score, "top": (K,) top class probability, "img": (K,) image number}``."""
    from vision.classify import load_classifier
    from vision.detect import detect, load_detector
    from vision.io import load_image

    detector = detector or load_detector()
    classifier = classifier or load_classifier(glyphs=False)  # the probe reads the model's own embedding
    embs, ys, scores, tops, imgs = [], [], [], [], []
    k = 0
    t0 = time.time()
    for folder in folders:
        images = sorted((folder / "images" / split).glob("*.jpg"))
        if limit:
            images = images[:limit]
        for path in images:
            img = load_image(path)
            H, W = img.shape[:2]
            det = detect(img, detector)
            if len(det) == 0:
                continue
            gold, _ = yolo_labels(folder / "labels" / split / (path.stem + ".txt"), W, H)
            best = box_iou(np.asarray(det.boxes, float), gold).max(1) if len(gold) else np.zeros(len(det))
            keep = (best >= POS_IOU) | (best < NEG_IOU)
            if not keep.any():
                continue
            rd, emb = classifier.read(img, det, embeddings=True)
            embs.append(emb[keep])
            ys.append((best[keep] >= POS_IOU).astype(np.int8))
            scores.append(np.asarray(det.scores)[keep])
            tops.append(rd.probs.max(1)[keep])
            imgs.append(np.full(int(keep.sum()), k))
            k += 1
            if k % 50 == 0:
                log(f"mine {split}: {k} images, {sum(map(len, ys))} boxes ({time.time() - t0:.0f} s)")
    cat = lambda xs, d=np.float32: np.concatenate(xs).astype(d) if xs else np.zeros(0, d)  # noqa: E731
    return {"emb": np.concatenate(embs).astype(np.float32) if embs else np.zeros((0, 0), np.float32),
            "y": cat(ys, np.int8), "score": cat(scores), "top": cat(tops), "img": cat(imgs, np.int32)}


def fit(emb: np.ndarray, y: np.ndarray, C: float = 1.0) -> tuple[np.ndarray, float]:
    """Logistic regression (scikit-learn, L2, classes balanced) → ((D,) float32 weights, bias)."""
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(C=C, class_weight="balanced", max_iter=2000)
    m.fit(emb, y)
    return m.coef_[0].astype(np.float32), float(m.intercept_[0])


def predict(emb: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """(K, D) embeddings → (K,) tile probability."""
    return 1.0 / (1.0 + np.exp(-(emb @ w + b)))


def auc(p: np.ndarray, y: np.ndarray) -> float:
    """Area under the ROC curve (rank statistic; ties count half)."""
    pos, neg = p[y == 1], p[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.r_[pos, neg], kind="stable")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def attach(model, w: np.ndarray, b: float):
    """``onnx.ModelProto`` with an ``embedding`` output → the same model with a ``tile_prob`` output
    (B, 1) float32 = sigmoid(embedding · w + b) (replacing an earlier one; in place, also returned).
    Raises ValueError when the graph has no ``embedding`` output or ``w`` has another length."""
    from onnx import TensorProto, helper, numpy_helper

    g = model.graph
    outs = [o.name for o in g.output]
    if "embedding" not in outs:
        raise ValueError("the classifier graph has no 'embedding' output (python -m datasets.embedding_output)")
    emb_vi = next(o for o in g.output if o.name == "embedding")
    d = emb_vi.type.tensor_type.shape.dim[-1].dim_value
    if d and d != len(w):
        raise ValueError(f"probe has {len(w)} weights, the embedding {d} features")
    for o in [o for o in g.output if o.name == TILE_OUTPUT]:
        g.output.remove(o)
    for n in [n for n in g.node if n.name.startswith("tile_probe_")]:
        g.node.remove(n)
    for i in [i for i in g.initializer if i.name.startswith("tile_probe_")]:
        g.initializer.remove(i)
    g.initializer.extend([numpy_helper.from_array(np.asarray(w, np.float32).reshape(-1, 1), "tile_probe_w"),
                          numpy_helper.from_array(np.asarray([b], np.float32), "tile_probe_b")])
    g.node.extend([
        helper.make_node("MatMul", ["embedding", "tile_probe_w"], ["tile_probe_z0"], name="tile_probe_matmul"),
        helper.make_node("Add", ["tile_probe_z0", "tile_probe_b"], ["tile_probe_z"], name="tile_probe_add"),
        helper.make_node("Sigmoid", ["tile_probe_z"], [TILE_OUTPUT], name="tile_probe_sigmoid"),
    ])
    batch = g.input[0].type.tensor_type.shape.dim[0]
    g.output.append(helper.make_tensor_value_info(TILE_OUTPUT, TensorProto.FLOAT,
                                                  [batch.dim_param or batch.dim_value or "batch", 1]))
    return model


def report(name: str, p: np.ndarray, y: np.ndarray, thresholds=(0.1, 0.2, 0.5)) -> dict:
    """AUC and, per threshold, the share of tiles kept and of non-tiles rejected."""
    out = {"set": name, "tiles": int((y == 1).sum()), "not_tiles": int((y == 0).sum()), "auc": round(auc(p, y), 4)}
    for t in thresholds:
        out[f"tiles_kept@{t}"] = round(float((p[y == 1] >= t).mean()), 4) if (y == 1).any() else None
        out[f"not_tiles_rejected@{t}"] = round(float((p[y == 0] < t).mean()), 4) if (y == 0).any() else None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.tileprobe", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="mine boxes, fit the probe, write it into the classifier")
    f.add_argument("--data", type=Path, nargs="+", required=True, help="datasets.synth folders with labels")
    f.add_argument("--limit", type=int, default=None, help="images per folder and split")
    f.add_argument("--model", type=Path, default=None, help="classifier to read (default models/classifier.onnx)")
    f.add_argument("--detector", type=Path, default=None,
                   help="detector whose boxes are mined (default models/detector.onnx)")
    f.add_argument("--out", type=Path, default=None, help="write the classifier with the probe here")
    f.add_argument("--C", type=float, default=1.0, help="inverse L2 strength of the regression")
    f.add_argument("--report", type=Path, default=None, help="write the measurements (JSON) here")
    f.add_argument("--cache", type=Path, default=None, help="keep the mined boxes (.npz) here and reuse them")
    a = ap.parse_args(argv)
    from vision.classify import load_classifier

    clf = load_classifier(str(a.model) if a.model else None, glyphs=False)
    if a.cache is not None and a.cache.exists():
        z = np.load(a.cache)
        tr = {k[3:]: z[k] for k in z.files if k.startswith("tr_")}
        va = {k[3:]: z[k] for k in z.files if k.startswith("va_")}
    else:
        from vision.detect import load_detector

        dt = load_detector(str(a.detector) if a.detector else None)
        tr = mine(a.data, "train", a.limit, detector=dt, classifier=clf)
        va = mine(a.data, "val", a.limit, detector=dt, classifier=clf)
        if a.cache is not None:
            np.savez_compressed(a.cache, **{f"tr_{k}": v for k, v in tr.items()}, **{f"va_{k}": v for k, v in va.items()})
    w, b = fit(tr["emb"], tr["y"], a.C)
    rows = [report("train", predict(tr["emb"], w, b), tr["y"]), report("val", predict(va["emb"], w, b), va["y"])]
    for r in rows:
        print(json.dumps(r), flush=True)
    if a.report is not None:
        a.report.write_text(json.dumps(rows, indent=1))
    if a.out is not None:
        import onnx

        m = onnx.load(str(clf.model.path))
        attach(m, w, b)
        props = {p.key: p for p in m.metadata_props}
        if "tile_probe" in props:
            m.metadata_props.remove(props["tile_probe"])
        m.metadata_props.add(key="tile_probe", value=json.dumps(
            {"pos_iou": POS_IOU, "neg_iou": NEG_IOU, "C": a.C, "train_boxes": int(len(tr["y"])),
             "val_auc": rows[1]["auc"], "data": [p.name for p in a.data]}))
        onnx.save(m, str(a.out))
        print(f"wrote {a.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
