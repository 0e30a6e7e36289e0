"""Tile detection: RGB image → :class:`Detections` (boxes, scores, face-down flags).

Runs ``models/detector.onnx`` (ultralytics YOLO detect export, no NMS in the graph) with
onnxruntime: letterbox to the square input side read from metadata ``imgsz`` (aspect kept, grey 114
padding, centred as ultralytics does), decode ``(1, 4 + nc, N)`` (cx, cy, w, h in input pixels, then
one score per class), class-agnostic NMS with OpenCV's :func:`cv2.dnn.NMSBoxes` (a tile is either
face-up or face-down, never both), boxes mapped back to image pixels. Class names come from metadata
``names``; a class named ``back`` (or ``0x``) marks face-down tiles.

Sessions run with :data:`vision.models.THREADS` intra-op threads (1; the measured timings for 1 and 2
threads are written beside it). ``benchmarks/bench_photo.py --threads`` repeats the measurement.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np

from .errors import ModelError
from .models import DETECTOR_FILE, Model, content_key, imgsz_of, model_path, names_list, open_model, thread_count

#: class names (from metadata) that mean "a face-down tile"
BACK_NAMES = frozenset({"back", "0x", "face-down", "face_down", "facedown"})
CONF_THRESHOLD = 0.25
#: NMS IoU: two distinct tiles of a hand never overlap more than IoU 0.29 in the renders' exact boxes
#: (26 245 pairs), so 0.4 keeps every tile and removes the duplicate boxes a weak detector makes
IOU_THRESHOLD = 0.4
#: the most boxes kept *after* NMS (ultralytics' ``max_det``). NMS itself sees every candidate over
#: ``conf``: OpenCV's ``top_k`` would cut the candidates *before* suppression, and a 42-tile layout
#: gives about 400 candidates over 0.25 (several per tile), so a tile whose candidates all scored
#: below the 300th was lost with no box at all (three of six calibration renders)
MAX_DETECTIONS = 300


def readonly_array(a: np.ndarray) -> np.ndarray:
    """``a`` as a C-contiguous array that cannot be written to (a copy only when ``a`` is not
    contiguous), for the arrays of the frozen result types (:class:`Detections`,
    :class:`vision.classify.TileReadings`)."""
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Detections:
    """Tiles found in an image.

    * ``boxes``: (N, 4) float32 ``x0, y0, x1, y1`` in image pixels;
    * ``scores``: (N,) float32 detector confidence 0..1;
    * ``face_down``: (N,) bool, True for a tile showing its back.

    Arrays are read-only. Build with :meth:`make` to coerce types.
    """

    boxes: np.ndarray
    scores: np.ndarray
    face_down: np.ndarray

    @staticmethod
    def make(boxes, scores=None, face_down=None) -> "Detections":
        """Detections from array-likes (scores default 1, face_down default False)."""
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        n = len(b)
        s = np.ones(n, np.float32) if scores is None else np.asarray(scores, np.float32).reshape(n)
        f = np.zeros(n, bool) if face_down is None else np.asarray(face_down, bool).reshape(n)
        return Detections(readonly_array(b), readonly_array(s), readonly_array(f))

    def __len__(self) -> int:
        return len(self.boxes)

    def take(self, idx) -> "Detections":
        """The detections at ``idx`` (indices or a boolean mask), in that order."""
        return Detections.make(self.boxes[idx], self.scores[idx], self.face_down[idx])

    def scaled(self, factor: float) -> "Detections":
        """Boxes multiplied by ``factor`` (e.g. working pixels → original photo pixels)."""
        return Detections.make(self.boxes * factor, self.scores, self.face_down)

    @property
    def centres(self) -> np.ndarray:
        """(N, 2) float32 box centres."""
        return (self.boxes[:, :2] + self.boxes[:, 2:]) / 2

    @property
    def sizes(self) -> np.ndarray:
        """(N, 2) float32 box widths and heights."""
        return self.boxes[:, 2:] - self.boxes[:, :2]


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the square model input: ``ratio`` (input px per image px) and
    ``pad`` (left, top) in input pixels."""

    ratio: float
    pad: tuple[float, float]

    def to_image(self, boxes_xyxy: np.ndarray) -> np.ndarray:
        """Input-pixel boxes → image-pixel boxes."""
        out = boxes_xyxy.astype(np.float32).copy()
        out[:, [0, 2]] -= self.pad[0]
        out[:, [1, 3]] -= self.pad[1]
        out /= self.ratio
        return out


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Fit ``image`` (H, W, 3) uint8 RGB into a ``size`` × ``size`` model input.

    Returns (float32 (1, 3, size, size) in 0..1, :class:`Letterbox`). As ultralytics' LetterBox
    (centre=True): scale ``r = min(size/H, size/W)``, resize to ``round(W r) × round(H r)``, pad
    with 114 split evenly (``round(d − 0.1)`` before, ``round(d + 0.1)`` after). Shrinking uses
    ``cv2.INTER_AREA`` (anti-aliased), enlarging ``cv2.INTER_LINEAR``.
    """
    h, w = image.shape[:2]
    r = min(size / h, size / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    img = image
    if (nw, nh) != (w, h):
        img = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    dw, dh = (size - nw) / 2, (size - nh) / 2
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    img = cv2.copyMakeBorder(img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    blob = img.transpose(2, 0, 1)[None].astype(np.float32) * (1.0 / 255.0)
    return blob, Letterbox(r, (float(left), float(top)))


def decode(output: np.ndarray, lb: Letterbox, image_size: tuple[int, int], names: list[str],
           conf: float = CONF_THRESHOLD, iou: float = IOU_THRESHOLD,
           max_det: int = MAX_DETECTIONS) -> Detections:
    """Raw YOLO output ``(1, 4 + nc, N)`` → :class:`Detections` in image pixels.

    Drops predictions with a non-finite (NaN, ±inf) box coordinate or class score, then keeps those
    whose best class score ≥ ``conf``; class-agnostic NMS at IoU ``iou`` with
    :func:`cv2.dnn.NMSBoxes` over all of them (no ``top_k`` cut before suppression); then at most
    ``max_det``, best first; boxes clipped to ``image_size``
    (width, height). Raises :class:`ModelError` when the output shape does not match ``names``.
    """
    out = np.asarray(output)
    if out.ndim == 3:
        out = out[0]
    nc = len(names)
    if out.ndim != 2 or out.shape[0] != 4 + nc:
        raise ModelError(f"detector output has shape {np.shape(output)}, expected (1, {4 + nc}, N)")
    pred = out.T
    # a corrupt or odd model output: a prediction with a NaN or infinite box coordinate or class score
    # is no detection (a NaN box would also upset NMS, suppressing a good box it overlaps)
    pred = pred[np.isfinite(pred).all(1)]
    cls_scores = pred[:, 4:]
    cls = cls_scores.argmax(1)
    score = cls_scores[np.arange(len(pred)), cls]
    keep = score >= conf
    if not keep.any():
        return Detections.make(np.zeros((0, 4)))
    pred, cls, score = pred[keep], cls[keep], score[keep]
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    xywh = np.stack([cx - w / 2, cy - h / 2, w, h], 1)
    idx = cv2.dnn.NMSBoxes(xywh.tolist(), score.tolist(), conf, iou)
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    idx = idx[np.argsort(-score[idx], kind="stable")][:max_det]
    xyxy = np.concatenate([xywh[idx, :2], xywh[idx, :2] + xywh[idx, 2:]], 1)
    boxes = lb.to_image(xyxy)
    W, H = image_size
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, W)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, H)
    ok = (boxes[:, 2] - boxes[:, 0] > 1) & (boxes[:, 3] - boxes[:, 1] > 1)
    back = np.array([names[c].lower() in BACK_NAMES for c in cls[idx]], bool)
    return Detections.make(boxes[ok], score[idx][ok], back[ok])


@dataclass(frozen=True)
class Detector:
    """The tile detector: an open model with its input side and class names."""

    model: Model
    imgsz: int
    names: tuple[str, ...]
    #: its boxes come from the image's pixels, so the mirror image is worth reading too
    #: (:class:`MirrorFusedDetector`; a stand-in that boxes a scene's known tiles is not)
    mirror_safe: ClassVar[bool] = True

    def __call__(self, image: np.ndarray, conf: float = CONF_THRESHOLD, iou: float = IOU_THRESHOLD) -> Detections:
        """Detect tiles in ``image`` (H, W, 3) uint8 RGB; see :func:`decode`."""
        blob, lb = letterbox(image, self.imgsz)
        out = self.model.session.run(None, {self.model.input_name: blob})[0]
        return decode(out, lb, (image.shape[1], image.shape[0]), list(self.names), conf, iou)


@dataclass(frozen=True)
class MemoisedDetector:
    """``detector`` with its boxes kept per image content (:func:`vision.models.content_key`), for one photo's
    reading (:func:`vision.pipeline.read_photo` makes one per photo): the mirror pass reads the photo as loaded
    and turned a quarter again (:class:`MirrorFusedDetector` inside :class:`QuarterAddedDetector`), and the
    quarter-turn tries read the photo in the turns that the quarter-turned pass already read. Each image is
    read once; the boxes are the same as without the memo (the same pixels, the same model). Raises what
    ``detector`` raises."""

    detector: object
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def imgsz(self) -> int:
        return self.detector.imgsz

    @property
    def mirror_safe(self) -> bool:
        return bool(getattr(self.detector, "mirror_safe", False))

    def __call__(self, image: np.ndarray, conf: float = CONF_THRESHOLD, iou: float = IOU_THRESHOLD) -> Detections:
        """``detector(image, conf, iou)`` for ``image`` (H, W, 3) uint8 RGB → :class:`Detections` in its pixels,
        the image read once per content and thresholds (the same object returned again: its arrays are read-only)."""
        key = (content_key(image), float(conf), float(iou))
        if key not in self.memo:
            self.memo[key] = self.detector(image, conf, iou)
        return self.memo[key]


#: the second detector: PyPI ``mahjong-detector`` 0.0.6's YOLO11n (MIT; trained on real photos of tiles), read
#: from its installed package folder (found, not imported), never downloaded
SECOND_PACKAGE = "mahjong_detector"
SECOND_DISTRIBUTION = "mahjong-detector"
SECOND_MODEL = "model.onnx"
#: its boxes are kept from this best-class score (its 34 classes are faces; a face it does not know, a flower
#: or a season, is still boxed, at a lower score): on 40 composites of real tile photos with bonus tiles in
#: sideways columns, 0.25 boxed 80 % of the hand's tiles alone and 95 % with the first detector's (0.86 without)
SECOND_CONF = 0.25
#: its NMS IoU (as the package's own post-processing)
SECOND_IOU = 0.5
#: a second-detector box is a tile the first detector missed when it overlaps no first box at IoU ≥
#: :data:`SECOND_SKIP_IOU` and lies less than :data:`SECOND_INSIDE` of its area inside any
SECOND_SKIP_IOU = 0.4
SECOND_INSIDE = 0.6
#: a first box holding two or more second boxes, each lying :data:`SECOND_INSIDE` of its area in it at IoU under
#: this, is two tiles boxed as one (each of two tiles under one box exactly is at IoU 0.5 with it)
SECOND_SPLIT_IOU = 0.6


@dataclass(frozen=True)
class SecondDetector:
    """``mahjong-detector``'s YOLO (PyPI, MIT), read class-agnostically as a second tile detector.

    As the package prepares its input (``mahjong_detector.preprocess``): grey, contrast stretched to the
    full range (:func:`PIL.ImageOps.autocontrast`), letterboxed into 640 × 640 with black padding, the grey
    in all three channels; here the photo is shrunk (:data:`cv2.INTER_AREA`) before the grey and the
    stretch, which the package does on the whole photo, at a fraction of the time. The input is not the
    package's: on the demo it differs by 2.4 grey levels on average (1 % of pixels by 21 or more), and boxes
    13 tiles at 0.25 where the package's input boxes 11; the product was measured with this one (model card).
    Output ``(1, 4 + 34, 8400)`` as ultralytics' export; boxes kept from :data:`SECOND_CONF`, NMS at
    :data:`SECOND_IOU` (:func:`decode`). No face-down class: every box is face-up."""

    model: Model
    imgsz: int = 640

    def __call__(self, image: np.ndarray, conf: float = SECOND_CONF, iou: float = SECOND_IOU) -> Detections:
        """Tiles in ``image`` (H, W, 3) uint8 RGB → :class:`Detections` in its pixels."""
        from PIL import Image, ImageOps

        h, w = image.shape[:2]
        r = min(self.imgsz / h, self.imgsz / w)
        nw, nh = max(1, int(round(w * r))), max(1, int(round(h * r)))
        small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
        grey = np.asarray(ImageOps.autocontrast(Image.fromarray(small).convert("L")))
        left, top = (self.imgsz - nw) // 2, (self.imgsz - nh) // 2
        canvas = np.zeros((self.imgsz, self.imgsz), np.float32)
        canvas[top:top + nh, left:left + nw] = grey * (1.0 / 255.0)
        blob = np.ascontiguousarray(np.broadcast_to(canvas, (1, 3, self.imgsz, self.imgsz)))
        out = self.model.session.run(None, {self.model.input_name: blob})[0]
        names = ["tile"] * (np.shape(out)[-2] - 4)
        return decode(out, Letterbox(r, (float(left), float(top))), (w, h), names, conf, iou)


#: a second-detector box cut by the photo's edge to under this share of the first detector's median box short side,
#: across that edge, is no tile to read (:func:`edge_slivers`, :func:`add_second`): it boxed the cloth at a
#: composite's right edge 44 px wide beside 95-px tiles, read 2y at 27 % and counted as the hand's flower at the
#: row's end (the median of its own boxes, 65 px, is pulled down by the dice and loose tiles it boxes)
SLIVER = 0.5


def edge_slivers(boxes: np.ndarray, size: tuple[int, int], tile: float, share: float = SLIVER) -> np.ndarray:
    """Which of ``boxes`` ((N, 4) float32 xyxy pixels of an image ``size`` (W, H)) touch an edge of it (within a pixel)
    while their extent across that edge is under ``share`` of ``tile`` (a tile's short side, pixels): (N,) bool."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    short = share * tile
    W, H = size
    across_x = (b[:, 0] <= 1) | (b[:, 2] >= W - 1)
    across_y = (b[:, 1] <= 1) | (b[:, 3] >= H - 1)
    return (across_x & (w < short)) | (across_y & (h < short))


def second_model_path() -> Path | None:
    """``model.onnx`` of the installed ``mahjong_detector`` package (found, not imported), or None."""
    spec = importlib.util.find_spec(SECOND_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    p = Path(list(spec.submodule_search_locations)[0]) / SECOND_MODEL
    return p if p.is_file() else None


@lru_cache(maxsize=4)
def load_second_detector(threads: int | None = None) -> SecondDetector:
    """Open the second detector (:class:`SecondDetector`, cached per thread count). Raises
    :class:`ModelError` when the ``mahjong-detector`` package or its model is missing."""
    p = second_model_path()
    if p is None:
        raise ModelError(f"the second detector's model is missing: install the PyPI package {SECOND_DISTRIBUTION} "
                         f"(a dependency of mahjong-score: pip install {SECOND_DISTRIBUTION}==0.0.6)")
    return SecondDetector(open_model(str(p), threads or thread_count()))


def _pairwise(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes ``a`` (N, 4) and ``b`` (M, 4) xyxy pixels → (their intersections (N, M), ``a``'s areas (N,),
    ``b``'s areas (M,)), in pixels²: what :func:`add_second` and :func:`fuse_mirrored` measure their overlaps by."""
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    return inter, (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]), (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def _splits(iou: np.ndarray, within: np.ndarray, a_s: np.ndarray, a_f: np.ndarray, inside: float, split_iou: float,
            surer: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[set[int], set[int]]:
    """The first boxes that are two tiles boxed as one, and the second boxes that replace them: a first box j
    holding two or more second boxes i (``within[i, j]`` ≥ ``inside`` of i's area in it, ``iou[i, j]`` under
    ``split_iou``; with ``surer`` = (second scores, first scores), each scored above j) whose areas ``a_s`` add up
    to ``inside`` of its area ``a_f[j]`` or more (:func:`add_second`, :func:`add_turned`). Returns (first indices
    replaced, second indices replacing them)."""
    replaced: set[int] = set()
    added: set[int] = set()
    for j in range(iou.shape[1]):
        ok = (within[:, j] >= inside) & (iou[:, j] < split_iou)
        if surer is not None:
            ok &= surer[0] > surer[1][j]
        held = np.flatnonzero(ok)
        if len(held) >= 2 and a_s[held].sum() >= inside * a_f[j]:
            replaced.add(j)
            added.update(int(i) for i in held)
    return replaced, added


def add_second(first: Detections, second: Detections, skip_iou: float = SECOND_SKIP_IOU,
               inside: float = SECOND_INSIDE, split_iou: float = SECOND_SPLIT_IOU,
               size: tuple[int, int] | None = None) -> Detections:
    """The first detector's boxes with the second's (:class:`SecondDetector`) that add a tile:

    * a first box that holds two or more second boxes (each at least ``inside`` of its area in it, at IoU
      under ``split_iou`` with it) covering together at least ``inside`` of its area is two tiles boxed as one
      (touching tiles lying sideways, bonus tiles in a column): those boxes replace it;
    * a second box overlapping no first box (a replaced one included) at IoU ≥ ``skip_iou`` and lying less
      than ``inside`` of its area in each is a tile the first missed: it is added;
    * the rest are the first detector's tiles again: dropped.

    With the image's ``size`` (W, H), the second's boxes that its edge cuts to a sliver of a tile (:func:`edge_slivers`,
    against the first's median short side when it has 3 boxes or more) are dropped first.

    Boxes (N, 4) float32 xyxy pixels; the first's come first, in their order (less those replaced), then the
    second's added, with their own scores and face-down flags (:class:`SecondDetector`'s are all face-up)."""
    if size is not None and len(first) >= 3 and len(second):
        fb = first.boxes.astype(np.float64)
        tile = float(np.median(np.minimum(fb[:, 2] - fb[:, 0], fb[:, 3] - fb[:, 1])))
        second = second.take(~edge_slivers(second.boxes, size, tile))
    if not len(second):
        return first
    if not len(first):
        return second
    F = first.boxes.astype(np.float64)
    S = second.boxes.astype(np.float64)
    inter, a_s, a_f = _pairwise(S, F)
    iou = inter / (a_s[:, None] + a_f[None, :] - inter + 1e-9)
    within = inter / (a_s[:, None] + 1e-9)
    replaced, added = _splits(iou, within, a_s, a_f, inside, split_iou)
    kept = np.array([j for j in range(len(F)) if j not in replaced], np.int64)
    for i in range(len(S)):
        # (against every first box, the replaced too: the second's own box over the same two tiles, kept by
        # its NMS beside its two halves, is that first box again, not a third tile)
        if i not in added and iou[i].max() < skip_iou and within[i].max() < inside:
            added.add(i)
    new = np.array(sorted(added), np.int64)
    return Detections.make(np.vstack([F[kept], S[new]]), np.r_[first.scores[kept], second.scores[new]],
                           np.r_[first.face_down[kept], second.face_down[new]])


def load_detector(path: str | None = None, threads: int | None = None) -> Detector:
    """Open the detector (default ``models/detector.onnx``), reading ``imgsz`` and ``names`` from
    its metadata. Raises :class:`ModelError` when the file or its metadata is missing."""
    p = str(path or model_path(DETECTOR_FILE))
    m = open_model(p, threads or thread_count())
    names = names_list(m.get("names"), p)
    return Detector(m, imgsz_of(m), tuple(names))


def detect(image: np.ndarray, detector: Detector | None = None, conf: float = CONF_THRESHOLD,
           iou: float = IOU_THRESHOLD) -> Detections:
    """Tiles in ``image`` (H, W, 3) uint8 RGB with the default detector (or ``detector``)."""
    return (detector or load_detector())(image, conf, iou)


#: a box of the mirrored pass is the same tile as a box of the plain pass at this IoU or more (their
#: coordinates are then averaged, :func:`fuse_mirrored`)
MIRROR_MATCH_IOU = 0.55


def fuse_mirrored(plain: Detections, mirrored: Detections, iou: float = IOU_THRESHOLD,
                  match: float = MIRROR_MATCH_IOU) -> Detections:
    """The detections of an image and of its mirror image (``mirrored``: its boxes already mapped back
    into the image's pixels) made one set: class-agnostic NMS at IoU ``iou`` over both
    (:func:`cv2.dnn.NMSBoxes`); a kept box with a box of the other pass at IoU ≥ ``match`` is averaged
    with the best of them, weighted by score, at their mean score (weighted box fusion, Solovyev et al.
    2021, for two passes); a box only one pass found keeps its own. Boxes (N, 4) float32 xyxy pixels.
    """
    if not len(plain) or not len(mirrored):
        return plain if len(plain) else mirrored
    boxes = np.vstack([plain.boxes, mirrored.boxes]).astype(np.float64)
    scores = np.r_[plain.scores, mirrored.scores].astype(np.float64)
    face_down = np.r_[plain.face_down, mirrored.face_down]
    src = np.r_[np.zeros(len(plain), int), np.ones(len(mirrored), int)]
    xywh = np.c_[boxes[:, :2], boxes[:, 2:] - boxes[:, :2]]
    keep = np.asarray(cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), 0.0, iou), np.int64).reshape(-1)
    keep = keep[np.argsort(-scores[keep], kind="stable")]
    inter, a_keep, area = _pairwise(boxes[keep], boxes)
    ious = inter / (a_keep[:, None] + area[None, :] - inter + 1e-9)
    out_b, out_s, used = [], [], set()
    for row, k in enumerate(keep):
        cand = np.flatnonzero((src != src[k]) & (ious[row] >= match))
        cand = [j for j in cand[np.argsort(-ious[row, cand], kind="stable")] if j not in used]
        if cand:
            j = cand[0]
            used.add(j)
            w = scores[[k, j]]
            out_b.append((boxes[k] * w[0] + boxes[j] * w[1]) / w.sum())
            out_s.append(w.mean())
        else:
            out_b.append(boxes[k])
            out_s.append(scores[k])
    order = np.argsort(-np.array(out_s), kind="stable")[:MAX_DETECTIONS]  # (as one pass keeps at most)
    return Detections.make(np.array(out_b)[order], np.array(out_s)[order], face_down[keep][order])


@dataclass(frozen=True)
class MirrorFusedDetector:
    """A :class:`Detector` that also reads the image mirrored left to right and fuses the two passes
    (:func:`fuse_mirrored`): test-time augmentation, twice the detector's time. A tile's outline is
    symmetric, so the mirror image is as much a photo of tiles to the detector (it boxes tiles and
    backs, not faces)."""

    detector: Detector
    mirror_safe: ClassVar[bool] = False  # (already mirrored)

    @property
    def imgsz(self) -> int:
        return self.detector.imgsz

    def __call__(self, image: np.ndarray, conf: float = CONF_THRESHOLD, iou: float = IOU_THRESHOLD) -> Detections:
        """Detect tiles in ``image`` (H, W, 3) uint8 RGB and in its mirror image; see :func:`fuse_mirrored`."""
        plain = self.detector(image, conf, iou)
        m = self.detector(np.ascontiguousarray(image[:, ::-1]), conf, iou)
        W = image.shape[1]
        back = m.boxes.copy()
        back[:, [0, 2]] = W - m.boxes[:, [2, 0]]
        return fuse_mirrored(plain, Detections.make(back, m.scores, m.face_down), iou)


#: a box of the quarter-turned pass (:class:`QuarterAddedDetector`) is used only when, in the photo, it is at
#: least this many times as wide as tall: a tile lying sideways, which the upright pass boxes worst
QUARTER_WIDE = 1.1
#: ... and only when its area is at least this share of the upright pass's median box (not the edge of a tile)
QUARTER_SMALL = 0.2
#: ... and only when its score is at least this: on seed 0's columns composites, of its sideways boxes that
#: added a tile of the hand 90 of 96 score 0.4 or more, of those that were no tile 6 of 30 (on the plain
#: composites, 4 of 23, and no tile of the hand added): the upright pass's 0.25 let clutter in (a tilted
#: composite was read turned 180° with a loose flower for it)
QUARTER_CONF = 0.4
#: of two of its boxes sharing this much of the smaller one's area, the less sure is dropped (one box a tile);
#: a box of it lying this much of its area inside an upright box is that box's tile
QUARTER_INSIDE = 0.45
#: an upright box at least this wide for its height (not a standing tile) may be replaced by a surer turned box
QUARTER_NOT_STANDING = 0.9


def unturn_quarter(boxes: np.ndarray, size: tuple[int, int], k: int = 1) -> np.ndarray:
    """Boxes (N, 4) xyxy pixels of an image turned a quarter counter-clockwise (``np.rot90(image, 1)``,
    ``k`` 1) or clockwise (``np.rot90(image, 3)``, ``k`` 3) → the same boxes in the image (``size`` = its
    (W, H)), float32. Raises ValueError for another ``k``."""
    if k not in (1, 3):
        raise ValueError(f"unturn_quarter: k must be 1 or 3 (np.rot90's quarter turns), got {k!r}")
    W, H = size
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if k == 3:
        return np.c_[b[:, 1], H - b[:, 2], b[:, 3], H - b[:, 0]].astype(np.float32)
    return np.c_[W - b[:, 3], b[:, 0], W - b[:, 1], b[:, 2]].astype(np.float32)


#: two upright boxes that a surer turned box replaces must overlap at least this much (IoU): one tile boxed
#: twice, each box offset (0.33 on a real-crop composite), never two touching tiles (0)
QUARTER_TWICE_IOU = 0.1
#: the quarter turns read (``np.rot90`` k): 1 counter-clockwise, 3 clockwise
QUARTER_TURNS = (1, 3)


def _one_tile(boxes: np.ndarray) -> bool:
    """True when ``boxes`` (K, 4) xyxy pixels may all be one tile: every two of them overlap at IoU ≥
    :data:`QUARTER_TWICE_IOU` (a single box always)."""
    if len(boxes) < 2:
        return True
    inter, a, _ = _pairwise(boxes, boxes)
    iou = inter / (a[:, None] + a[None, :] - inter + 1e-9)
    return bool((iou >= QUARTER_TWICE_IOU).all())


def add_turned(first: Detections, turned: Detections, skip_iou: float = SECOND_SKIP_IOU,
               inside: float = QUARTER_INSIDE, not_standing: float = QUARTER_NOT_STANDING) -> Detections:
    """The upright pass's boxes (``first``) with the quarter-turned pass's (``turned``: already in the
    image's pixels, the sideways ones only) that add or re-box a tile:

    * a first box holding two or more turned boxes surer than it (each at least :data:`SECOND_INSIDE` of its
      area in it, at IoU under :data:`SECOND_SPLIT_IOU`) that cover together at least that share of it is
      two tiles boxed as one: they replace it (as :func:`add_second`, but only by surer boxes: turned, a
      standing tile looks like two tiles lying sideways, and is boxed so, less surely);
    * then, surest first, a turned box that overlaps no first box (IoU under ``skip_iou``, less than ``inside``
      of its area in it nor of the first box's in it) is a tile the first pass missed: it is added;
    * one that overlaps only first boxes less sure than it, not standing (at least ``not_standing`` as wide
      as tall) and, when more than one, overlapping each other (:func:`_one_tile`: one tile lying sideways
      boxed twice, each box offset) replaces them;
    * the rest are the first pass's tiles again: dropped.

    The turned boxes are taken one box a tile (:class:`QuarterAddedDetector` drops the less sure of two sharing
    most of one): a box a split added is not weighed against the others again.

    Boxes (N, 4) float32 xyxy pixels; the first's kept come first, in their order, then the turned ones, with
    their own scores and face-down flags."""
    if not len(turned) or not len(first):
        return first if len(first) else turned
    F = first.boxes.astype(np.float64)
    T = turned.boxes.astype(np.float64)
    fs, ts = first.scores, turned.scores
    inter, a_t, a_f = _pairwise(T, F)
    iou = inter / (a_t[:, None] + a_f[None, :] - inter + 1e-9)
    within = inter / (a_t[:, None] + 1e-9)
    holds = inter / (a_f[None, :] + 1e-9)  # (a first box's share inside a turned one: a box over several tiles)
    lying = (F[:, 2] - F[:, 0]) >= not_standing * (F[:, 3] - F[:, 1])
    removed, added = _splits(iou, within, a_t, a_f, SECOND_INSIDE, SECOND_SPLIT_IOU, surer=(ts, fs))
    for i in np.argsort(-ts, kind="stable"):
        if i in added:
            continue
        over = [j for j in range(len(F)) if j not in removed
                and (iou[i, j] >= skip_iou or within[i, j] >= inside or holds[i, j] >= inside)]
        if not over:
            added.add(int(i))
        elif all(lying[j] and fs[j] < ts[i] for j in over) and _one_tile(F[over]):
            removed.update(over)
            added.add(int(i))
    if not added:
        return first
    kept = np.array([j for j in range(len(F)) if j not in removed], np.int64)
    new = np.array(sorted(added), np.int64)
    return Detections.make(np.vstack([F[kept], T[new]]), np.r_[fs[kept], ts[new]],
                           np.r_[first.face_down[kept], turned.face_down[new]])


@dataclass(frozen=True)
class QuarterAddedDetector:
    """A detector (``detector``) with passes of ``turned_by`` over the image turned a quarter, each way of
    ``turns`` (``np.rot90`` k: 1 counter-clockwise, 3 clockwise; test-time augmentation, one more detector pass
    a turn): of the boxes of the turn that boxes them best (the most score in all), those at least
    :data:`QUARTER_WIDE` times as wide as tall in the image (tiles lying sideways: bonus tiles laid in
    columns, a kong's or a claimed tile turned), not slivers (:data:`QUARTER_SMALL`) and scored at least
    :data:`QUARTER_CONF` are added where the
    first pass missed them, or replace first boxes over them (:func:`add_turned`), unless they are as many as the
    first pass's standing boxes (taller than wide) or more: then the photo itself is turned (the pipeline's
    quarter-turn tries read it). The detector was trained
    mostly on standing tiles and boxes a column of sideways tiles poorly (3 or 4 of 8 on the columns
    composites); turned, they stand (model card, twenty-seventh session). It boxes some of them one way up
    only: on a checked cloth, a column of four real bonus tiles had none boxed turned counter-clockwise and
    three turned clockwise (model card, thirty-first session). Boxes (N, 4) float32 xyxy pixels of
    ``image``."""

    detector: object
    turned_by: object
    turns: tuple = QUARTER_TURNS
    mirror_safe: ClassVar[bool] = False  # (a wrapper: the pipeline asks its inner detector)

    @property
    def imgsz(self) -> int:
        return self.turned_by.imgsz

    def __call__(self, image: np.ndarray, conf: float = CONF_THRESHOLD, iou: float = IOU_THRESHOLD) -> Detections:
        """Detect tiles in ``image`` (H, W, 3) uint8 RGB, then add the sideways tiles of the quarter turn that
        boxes them best: of ``turns``, the one whose sideways boxes kept score the most in all (the first of
        two alike). One turn's boxes only: both turns' boxes of one tile lie offset (on a render straightened
        14°, two boxes of a tile shared 0.42 of the smaller where two touching tiles' shared up to 0.29), and
        mixed they made a column of eight bonus tiles more boxes than tiles, and no column."""
        first = self.detector(image, conf, iou)
        best: Detections | None = None
        for k in self.turns:
            t = self._sideways(image, k, first, conf, iou)
            if t is not None and (best is None or float(t.scores.sum()) > float(best.scores.sum())):
                best = t
        if best is None:
            return first
        # (as many tiles lying sideways as standing, or more: the photo itself is turned, and the pipeline's quarter turns,
        # which read it where its tiles stand, are the remedy; the demo turned 90° read its 16 tiles sideways)
        standing = int(np.sum(first.sizes[:, 1] > first.sizes[:, 0])) if len(first) else 0
        if len(best) >= standing:
            return first
        return add_turned(first, best)

    def _sideways(self, image: np.ndarray, k: int, first: Detections, conf: float, iou: float) -> Detections | None:
        """The boxes of ``image`` turned a quarter (``np.rot90`` k) that lie sideways in it, in its pixels (N, 4)
        float32 xyxy: not slivers, scored at least :data:`QUARTER_CONF`, one box a tile; None when there is none."""
        t = self.turned_by(np.ascontiguousarray(np.rot90(image, k)), conf, iou)
        if not len(t):
            return None
        boxes = unturn_quarter(t.boxes, (image.shape[1], image.shape[0]), k)
        wh = boxes[:, 2:] - boxes[:, :2]
        area = wh[:, 0] * wh[:, 1]
        keep = np.isfinite(boxes).all(1) & (wh > 0).all(1) & (t.scores >= QUARTER_CONF)
        keep &= wh[:, 0] >= QUARTER_WIDE * wh[:, 1]
        if len(first):  # (not a sliver of a tile: the edge of a tile lying flat, boxed as a back)
            fwh = first.sizes
            keep &= area >= QUARTER_SMALL * float(np.median(fwh[:, 0] * fwh[:, 1]))
        # one box per tile: the turned pass's NMS (IoU 0.4) keeps two boxes over one tile when one is offset
        # (IoU 0.31, half of the smaller inside the larger), which makes a set's eight bonus tiles nine
        inter, _, _ = _pairwise(boxes, boxes)
        for i in np.argsort(-t.scores, kind="stable"):
            if keep[i]:
                worse = keep & (t.scores <= t.scores[i]) & (np.arange(len(boxes)) != i)
                keep &= ~(worse & (inter[i] >= QUARTER_INSIDE * np.minimum(area, area[i])))
        if not keep.any():
            return None
        return Detections.make(boxes[keep], t.scores[keep], t.face_down[keep])
