"""Tile classification: image + :class:`~vision.detect.Detections` → :class:`TileReadings`.

Runs ``models/classifier.onnx`` on crops made by :func:`vision.crops.crop_tile` (the same function
the training crops were made with), in one batch. Everything comes from the model's metadata:
``imgsz`` (crop side), ``crop_margin``, ``crop_resize``, ``names`` (must equal
:data:`vision.classes.CLASS_NAMES`) and ``rotation``:

* ``invariant`` — the classifier was trained on every pose: one pass; the pose of a face-up tile is
  ``upright`` here (the layout step judges ``sideways`` from the box shape);
* ``upright`` — the crop is also tried turned by 90°, 180° and 270° for tiles that are not read
  confidently upright (or whose box is wider than tall); the most confident turn wins and gives the
  pose (``sideways`` for 90°/270°, ``upside-down`` for 180°). A box wider than tall leans sideways:
  there the better of 90°/270° wins unless 0°/180° is more confident by more than
  :data:`SIDEWAYS_LEAN` — a geometric prior (a tile laid sideways has a wide box) whose measured
  effect is small: on the synthetic validation renders of ``synth-v2``, hand tiles matched to
  detections, with the first-round detector 0.954 read right with the lean of 0.1 against 0.953
  without (sideways tiles 0.949 against 0.923; 1 526 tiles); with the committed detector 0.9458
  against 0.9464 (one tile of 1 549; sideways tiles 0.95 both).

A box taller than wide (:data:`TALL`, :data:`TALL_STRICT`) is read sideways only when that is much surer, or
never (:func:`choose_turns`).

With a glyph reader (:mod:`vision.glyphs`, set by :func:`load_classifier`), the tiles that may be
flowers/seasons or (unsure) honours then get its second opinion on what is written on them, and an
unsure bonus tile may be turned over by it (:func:`glyph_turns`); ``TileReadings.glyphs`` / ``was``
say what it read and what the classifier alone had read where that changed.

A tile the detector calls face-down, or that the classifier reads as ``0x`` with probability ≥
:data:`BACK_SURE`, has pose ``face-down``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .classes import BACK, CLASS_INDEX, CLASS_NAMES, NUM_CLASSES, SUIT_TILES
from .crops import RESIZE_MODES, crop_tile
from .detect import Detections, readonly_array
from .errors import ModelError
from .models import (CLASSIFIER_FILE, Model, content_key, imgsz_of, model_path, names_list, open_model, thread_count,
                     through_memo)

POSES = ("upright", "sideways", "upside-down", "face-down")
#: a tile read upright with at least this probability is not tried in other turns
UPRIGHT_SURE = 0.9
BACK_INDEX = CLASS_INDEX[BACK]
#: on a box wider than tall, a 0°/180° reading beats the best sideways one only when this much more sure
SIDEWAYS_LEAN = 0.1
#: a box at least this many times taller than wide is read sideways only when that reading is surer than
#: the upright/upside-down one by :data:`TALL_LEAN`, and from :data:`TALL_STRICT` on never: a tile lying
#: sideways shows a wide box (perspective only shortens it from top to bottom), so a 90° turn of a tall
#: box is most often a misreading (the real crops, photos of upright tiles with boxes 1.33× taller than
#: wide: the turn search read 13 of them sideways, 12 wrongly; with the rule top-1 0.854 against 0.844).
#: A tile turned sideways and standing, or lying flat seen from low, can still show a box up to about
#: 1.2× taller than wide (a held-out hard render's winning 1m set apart: 52 × 59 px, read 1m at 0.99
#: turned and 4s at 0.05 upright). A lean of 0.5 also turned real flowers pasted upright into the
#: composites (boxes 1.19–1.28× taller than wide, read 0.28–0.65 upright and 0.75–0.89 sideways as
#: other flowers or as East); with 0.7 every tile it turns on the bonus and columns composites and the
#: hard renders was read under 0.2 upright and over 0.84 sideways. A photo turned as a whole is read
#: turned by ``read_photo``.
TALL = 1.1
#: see :data:`TALL`
TALL_STRICT = 1.3
#: see :data:`TALL`
TALL_LEAN = 0.7
#: the classifier alone calls a tile face-down only when this sure
BACK_SURE = 0.5
#: name of the classifier's optional second output: (B, D) features of the final layer (calibration)
EMBEDDING_OUTPUT = "embedding"
#: name of the classifier's optional third output: (B, 1) probability that the crop shows a tile at all
#: (not clutter: keys, cloth, cards, dice), a logistic probe on the embedding (``datasets.tileprobe``)
TILE_OUTPUT = "tile_prob"


@dataclass(frozen=True, eq=False)
class TileReadings:
    """What each detected tile shows.

    * ``probs``: (N, 43) float32 class probabilities in :data:`CLASS_NAMES` order (rows sum to 1);
    * ``pose``: N of ``upright`` / ``sideways`` / ``upside-down`` / ``face-down``;
    * ``tile``: (N,) float32 probability that the box shows a tile at all (the classifier's
      ``tile_prob`` output; all 1 for a graph without it);
    * ``glyphs``: N strings, what the glyph reader (:mod:`vision.glyphs`) read on each tile that
      weighed in (``"numeral 4, 竹"``), "" where nothing was read;
    * ``was``: N strings, the classifier's own top reading where the glyph reading changed it, else "".
    """

    probs: np.ndarray
    pose: tuple[str, ...]
    tile: np.ndarray
    glyphs: tuple[str, ...] = ()
    was: tuple[str, ...] = ()

    @staticmethod
    def make(probs, pose=None, tile=None, glyphs=None, was=None) -> "TileReadings":
        p = np.asarray(probs, np.float32).reshape(-1, NUM_CLASSES)
        pose = tuple(pose) if pose is not None else tuple(
            "face-down" if r[BACK_INDEX] >= BACK_SURE else "upright" for r in p)
        if len(pose) != len(p):
            raise ValueError(f"{len(pose)} poses for {len(p)} tiles")
        bad = set(pose) - set(POSES)
        if bad:
            raise ValueError(f"unknown pose {sorted(bad)}; poses are {POSES}")
        t = np.ones(len(p), np.float32) if tile is None else np.asarray(tile, np.float32).reshape(-1)
        if len(t) != len(p):
            raise ValueError(f"{len(t)} tile probabilities for {len(p)} tiles")
        t = np.clip(np.nan_to_num(t, nan=1.0), 0.0, 1.0)
        texts = []
        for name, v in (("glyphs", glyphs), ("was", was)):
            v = ("",) * len(p) if v is None else tuple(str(x) for x in v)
            if len(v) != len(p):
                raise ValueError(f"{len(v)} {name} for {len(p)} tiles")
            texts.append(v)
        return TileReadings(readonly_array(p), pose, readonly_array(t), *texts)

    def __len__(self) -> int:
        return len(self.probs)

    @property
    def codes(self) -> tuple[str, ...]:
        """The most probable tile code of each tile (the raw reading)."""
        return tuple(CLASS_NAMES[i] for i in self.probs.argmax(1))

    def top(self, k: int = 5) -> list[list[tuple[str, float]]]:
        """Per tile, the ``k`` most probable (code, probability) pairs, best first."""
        order = np.argsort(-self.probs, axis=1, kind="stable")[:, :k]
        return [[(CLASS_NAMES[j], float(self.probs[i, j])) for j in row] for i, row in enumerate(order)]

    def take(self, idx) -> "TileReadings":
        idx = np.arange(len(self))[idx]
        return TileReadings.make(self.probs[idx], [self.pose[i] for i in idx], self.tile[idx],
                                 [self.glyphs[i] for i in idx], [self.was[i] for i in idx])


def _as_probs(out: np.ndarray) -> np.ndarray:
    """Model output → probabilities (softmax applied if the graph returned logits)."""
    out = out.astype(np.float32)
    if (out < 0).any() or not np.allclose(out.sum(1), 1.0, atol=1e-3):
        z = out - out.max(1, keepdims=True)
        e = np.exp(z)
        out = e / e.sum(1, keepdims=True)
    return out


@dataclass(frozen=True)
class Classifier:
    """The tile classifier with its crop settings (all from metadata)."""

    model: Model
    imgsz: int
    margin: float
    resize: str
    rotation: str
    batch: int | None  # fixed batch size of the graph, None when dynamic
    #: a user's tile-set profile (:class:`vision.tileset.Profile`) whose opinion :meth:`run` combines
    #: with the model's; None: the model alone. Set with :func:`vision.tileset.with_tileset`.
    tileset: Any = None
    #: the glyph reader (:class:`vision.glyphs.GlyphReader`) whose second opinion :meth:`read` takes on
    #: the tiles told apart by a written glyph (honours, flowers and seasons); None: the model alone.
    #: :func:`load_classifier` sets it unless asked not to.
    glyphs: Any = None
    #: the graph's outputs per crop content (:func:`vision.models.content_key`) and output names, for one
    #: photo's reading (:meth:`memoised`); None: every crop is run
    memo: dict | None = field(default=None, repr=False, compare=False)

    def memoised(self) -> "Classifier":
        """This classifier (and its glyph reader, :meth:`vision.glyphs.GlyphReader.memoised`) with an empty
        memo: a crop read before, in another pass over the same photo (the mirror pass, the second detector's:
        most of their boxes are the first pass's), is not run through the graph again. The
        readings are those without the memo (the same crop, the same graph; a crop's outputs do not depend on
        the others of its batch, to float rounding). :func:`vision.pipeline.read_photo` makes one per photo.
        Raises nothing."""
        g = self.glyphs.memoised() if hasattr(self.glyphs, "memoised") else self.glyphs
        return replace(self, glyphs=g, memo={})

    def _forward(self, crops: np.ndarray, outputs: list[str] | None) -> list[np.ndarray]:
        """(B, S, S, 3) uint8 crops → the graph's ``outputs`` (None: all), each (B, ...); through the memo
        when there is one (:meth:`memoised`)."""
        if self.memo is None or not len(crops):
            return self._forward_all(crops, outputs)
        names = tuple(outputs) if outputs is not None else None

        def run(rows):
            got = self._forward_all(np.ascontiguousarray(crops[rows]), outputs)
            return [tuple(np.array(o[j]) for o in got) for j in range(len(rows))]

        vals = through_memo(self.memo, [(content_key(c), names) for c in crops], run)
        return [np.stack([v[m] for v in vals]) for m in range(len(vals[0]))]

    def _forward_all(self, crops: np.ndarray, outputs: list[str] | None) -> list[np.ndarray]:
        x = crops.transpose(0, 3, 1, 2).astype(np.float32) * (1.0 / 255.0)
        sess, name = self.model.session, self.model.input_name
        if self.batch is None:
            return [np.asarray(o) for o in sess.run(outputs, {name: x})]
        parts = []
        for i in range(0, len(x), self.batch):
            chunk = x[i:i + self.batch]
            n = len(chunk)
            if n < self.batch:
                chunk = np.concatenate([chunk, np.zeros((self.batch - n,) + chunk.shape[1:], np.float32)])
            parts.append([np.asarray(o)[:n] for o in sess.run(outputs, {name: chunk})])
        return [np.concatenate(k) for k in zip(*parts)]

    def _probs(self, out: np.ndarray, n: int) -> np.ndarray:
        out = np.asarray(out).reshape(n, -1)
        if out.shape[1] != NUM_CLASSES:
            raise ModelError(f"classifier output has {out.shape[1]} classes, expected {NUM_CLASSES}")
        return _as_probs(out)

    @property
    def embedding_dim(self) -> int | None:
        """D of the optional ``embedding`` output (``models/CONTRACT.md``), None when the graph has none."""
        for o in self.model.session.get_outputs():
            if o.name == EMBEDDING_OUTPUT:
                d = o.shape[-1] if o.shape else None
                return int(d) if isinstance(d, int) else -1
        return None

    def _require_embedding(self) -> None:
        """Raises :class:`ModelError` when the graph has no ``embedding`` output."""
        if self.embedding_dim is None:
            raise ModelError(f"{self.model.path}: the classifier has no 'embedding' output, which tile-set "
                             f"calibration needs (add it with `python -m datasets.embedding_output`)")

    def embed(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(B, S, S, 3) uint8 crops → the model's own (B, 43) probabilities and its (B, D) float32
        ``embedding`` output. Raises :class:`ModelError` when the graph has no ``embedding`` output."""
        self._require_embedding()
        if len(crops) == 0:
            return np.zeros((0, NUM_CLASSES), np.float32), np.zeros((0, max(self.embedding_dim, 0)), np.float32)
        probs, emb, _ = self._outputs(crops, True, False)
        return probs, emb

    def run(self, crops: np.ndarray) -> np.ndarray:
        """(B, S, S, 3) uint8 crops → (B, 43) probabilities of the model alone (``__call__`` combines
        them with the :attr:`tileset` profile's)."""
        if len(crops) == 0:
            return np.zeros((0, NUM_CLASSES), np.float32)
        first = self.model.session.get_outputs()[0].name
        return self._probs(self._forward(crops, [first])[0], len(crops))

    @property
    def has_tileness(self) -> bool:
        """Whether the graph has the optional ``tile_prob`` output (``models/CONTRACT.md``)."""
        return any(o.name == TILE_OUTPUT for o in self.model.session.get_outputs())

    def _outputs(self, crops: np.ndarray, emb: bool, tile: bool):
        """(B, S, S, 3) uint8 crops → ((B, 43) probabilities, (B, D) embedding or None, (B,) tile
        probability or None): one pass of the graph (:meth:`run` when only probabilities are asked)."""
        if not emb and not tile:
            return self.run(crops), None, None
        first = self.model.session.get_outputs()[0].name
        names = [first] + ([EMBEDDING_OUTPUT] if emb else []) + ([TILE_OUTPUT] if tile else [])
        out = self._forward(crops, names)
        n = len(crops)
        probs = self._probs(out[0], n)
        e = np.asarray(out[1], np.float32).reshape(n, -1) if emb else None
        t = np.asarray(out[-1], np.float32).reshape(n) if tile else None
        return probs, e, t

    def _glyph_opinion(self, image, det, crops, probs, turn, emb, tile, half):
        """:func:`glyph_turns` with this classifier and its glyph reader; unchanged readings when no
        tile is wanted (:func:`vision.glyphs.wanted`, on the reading at the tile's turn or, for the
        corners, turned half round: ``half["probs"]``; a bonus tile read upside-down as a suit tile has
        its bonus share the right way up). The turn search's outputs at the half turn (``half``, where
        ``half["have"]``) are reused; the other tiles read turned over are run through the graph."""
        from .glyphs import wanted, wanted_number, within_budget

        down = np.asarray(det.face_down, bool) | (probs[:, BACK_INDEX] >= BACK_SURE)  # never read a back
        corners, face = wanted(probs, down)
        corners |= wanted(half["probs"], down)[0]
        turn_over = self.rotation == "upright"
        corners, face = within_budget(np.maximum(probs, half["probs"]), corners, corners & turn_over, face)
        number = wanted_number(probs, down)
        if not (corners.any() or face.any() or number.any()):
            return probs, turn, emb, tile, None
        want_emb, want_tile = emb is not None, tile is not None

        def turned_over(idx):
            p2 = half["probs"][idx].copy()
            e2 = None if half["emb"] is None else half["emb"][idx].copy()
            t2 = None if half["tile"] is None else half["tile"][idx].copy()
            need = [k for k, i in enumerate(idx) if not half["have"][i]]
            if need:
                crops2 = np.stack([np.rot90(crops[idx[k]], turn[idx[k]] + 2) for k in need])
                pn, en, tn = self._outputs(np.ascontiguousarray(crops2), want_emb, want_tile)
                p2[need] = pn
                if want_emb:
                    e2 = np.zeros((len(idx), en.shape[1]), np.float32) if e2 is None else e2
                    e2[need] = en
                if want_tile:
                    t2 = np.ones(len(idx), np.float32) if t2 is None else t2
                    t2[need] = tn
            return p2, e2, t2

        return glyph_turns(probs, turn, emb, tile, corners, face, turned_over if turn_over else None,
                           lambda idx, turns, cm, fm, tm: self.glyphs.read(image, det.boxes[idx], turns, cm, fm, tm),
                           number)

    def __call__(self, image: np.ndarray, det: Detections) -> TileReadings:
        """Classify every detected tile of ``image`` (H, W, 3) uint8 RGB; see the module docstring."""
        return self.read(image, det)[0]

    def read(self, image: np.ndarray, det: Detections, embeddings: bool = False
             ) -> tuple[TileReadings, np.ndarray | None]:
        """:meth:`__call__`, and with ``embeddings`` also the (N, D) float32 ``embedding`` of each tile's
        chosen turn (None otherwise). Raises :class:`ModelError` when ``embeddings`` is asked of a
        graph without that output."""
        n = len(det)
        ts = self.tileset  # the turn is chosen by the model alone; the profile then reads the chosen turn
        want_emb = embeddings or ts is not None
        if want_emb:
            self._require_embedding()
        if n == 0:
            return TileReadings.make(np.zeros((0, NUM_CLASSES)), ()), (
                np.zeros((0, max(self.embedding_dim or 0, 0)), np.float32) if embeddings else None)
        want_tile = self.has_tileness
        crops = np.stack([crop_tile(image, b, self.imgsz, self.margin, self.resize) for b in det.boxes])
        probs, emb, tile = self._outputs(crops, want_emb, want_tile)
        turn = np.zeros(n, int)
        # each tile's reading turned half round from its turn, where the turn search made it (unsure tiles)
        half = {"probs": probs, "emb": None, "tile": None, "have": np.zeros(n, bool)}
        if self.rotation == "upright":
            wide = det.sizes[:, 0] > det.sizes[:, 1]
            tall = det.sizes[:, 1] >= TALL_STRICT * det.sizes[:, 0]
            tallish = (det.sizes[:, 1] >= TALL * det.sizes[:, 0]) & ~tall
            unsure = np.nonzero((probs.max(1) < UPRIGHT_SURE) | wide)[0]
            if len(unsure):
                turned = np.concatenate([np.rot90(crops[unsure], k, axes=(1, 2)) for k in (1, 2, 3)])
                tp, te, tt = self._outputs(np.ascontiguousarray(turned), want_emb, want_tile)
                tp = tp.reshape(3, len(unsure), NUM_CLASSES)
                cand = np.concatenate([probs[unsure][None], tp])  # (4, u, 43)
                best = choose_turns(cand.max(2), wide[unsure], tall[unsure], tallish[unsure])
                back = upright_consensus(best, cand, unsure, n, np.asarray(det.face_down, bool) |
                                         (probs[:, BACK_INDEX] >= BACK_SURE)) & ~wide[unsure]
                best = np.where(back, 0, best)
                u = np.arange(len(unsure))
                other = (best + 2) % 4  # the turn half round from the one read
                half["probs"] = probs.copy()
                half["probs"][unsure] = cand[other, u]
                probs[unsure] = cand[best, u]
                # (turned back upright, read as the two turns' readings mixed, the photo's turn weighing most)
                probs[unsure[back]] = (CONSENSUS_WEIGHT * cand[0, u[back]]
                                       + (1 - CONSENSUS_WEIGHT) * cand[2, u[back]])
                if emb is not None:
                    ce = np.concatenate([emb[unsure][None], te.reshape(3, len(unsure), -1)])
                    half["emb"] = emb.copy()
                    half["emb"][unsure] = ce[other, u]
                    emb[unsure] = ce[best, u]
                if tile is not None:
                    ct = np.concatenate([tile[unsure][None], tt.reshape(3, len(unsure))])
                    half["tile"] = tile.copy()
                    half["tile"][unsure] = ct[other, u]
                    tile[unsure] = ct[best, u]
                turn[unsure] = best
                half["have"][unsure] = True
        glyphs = was = None
        seen = None
        if self.glyphs is not None:
            before = probs, emb  # the reading without the glyphs (glyph_turns returns new arrays)
            probs, turn, emb, tile, seen = self._glyph_opinion(image, det, crops, probs, turn, emb, tile, half)
        if ts is not None:
            probs = ts.combine(probs, emb)
        if seen is not None:
            alone = before[0] if ts is None else ts.combine(*before)  # what is read without the glyphs
            final = [CLASS_NAMES[c] for c in probs.argmax(1)]
            glyphs = seen.describe(final)
            # the classifier's own reading, where what is written on the tile changed it
            was = [CLASS_NAMES[b] if CLASS_NAMES[b] != f and g else "" for f, b, g in zip(final, alone.argmax(1), glyphs)]
        pose = []
        for i in range(n):
            if det.face_down[i] or probs[i, BACK_INDEX] >= BACK_SURE:
                pose.append("face-down")
            else:
                pose.append(("upright", "sideways", "upside-down", "sideways")[turn[i]])
        return TileReadings.make(probs, pose, tile, glyphs, was), (emb if embeddings else None)


def glyph_turns(probs, turn, emb, tile, corners, face, half, read, number=None):
    """The glyph reader's second opinion (:mod:`vision.glyphs`) on the tiles ``corners`` | ``face``
    ((N,) bool, :func:`vision.glyphs.wanted`) | ``number`` ((N,) bool or None, the character tiles read
    for their numeral, :func:`vision.glyphs.wanted_number`; at their turn only) of a reading
    (``probs`` (N, 43), ``turn`` (N,) quarter
    turns, ``emb`` / ``tile`` or None), with the turn chosen jointly: a tile whose corners are read is
    also read turned half round — the classifier (``half(indices) → (probs, emb, tile)`` of those
    tiles turned half round from ``turn``; None: not turned over, for a classifier that reads every
    pose) and the glyph reader (``read(indices, turns, corners, face, number) → GlyphScores``) — and that turn
    is taken when its reading, classifier × glyphs summed over the classes
    (:func:`vision.glyphs.posterior`'s evidence), is :data:`TURN_EVIDENCE` times as probable as the
    turn the classifier chose (an unsure bonus tile's way up is the least sure part of the
    classifier's reading). Returns (probs, turn, emb, tile, the GlyphScores of the turn kept, one row
    per tile, NaN for the tiles not read); the arrays are updated copies."""
    from .glyphs import posterior

    n = len(probs)
    number = np.zeros(n, bool) if number is None else np.asarray(number, bool)
    g = np.nonzero(corners | face | number)[0]
    c2 = np.nonzero(corners)[0] if half is not None else np.zeros(0, int)
    idx = np.r_[g, c2]
    sc = read(idx, np.r_[turn[g], (turn[c2] + 2) % 4], np.r_[corners[g], np.ones(len(c2), bool)],
              np.r_[face[g], face[c2]], np.r_[number[g], np.zeros(len(c2), bool)])
    probs, turn = probs.copy(), turn.copy()
    emb = None if emb is None else emb.copy()
    tile = None if tile is None else tile.copy()
    post, evidence = posterior(probs[g], sc.rows(np.arange(len(g))))
    probs[g] = post
    row = np.full(n, -1)
    row[g] = np.arange(len(g))
    if len(c2):
        p2, e2, t2 = half(c2)
        post2, ev2 = posterior(p2, sc.rows(np.arange(len(g), len(idx))))
        at = {int(i): k for k, i in enumerate(g)}
        for k, i in enumerate(c2):
            if ev2[k] > TURN_EVIDENCE * evidence[at[int(i)]]:
                probs[i] = post2[k]
                turn[i] = (turn[i] + 2) % 4
                row[i] = len(g) + k
                if emb is not None and e2 is not None:
                    emb[i] = e2[k]
                if tile is not None and t2 is not None:
                    tile[i] = t2[k]
    return probs.astype(np.float32), turn, emb, tile, sc.rows(row)


#: the glyph reading turns a tile half round from the classifier's turn only when the reading there
#: (classifier × glyphs) is this many times as probable. With no margin the real crops' characters
#: fell from 0.96 to 0.84: a tile with no glyph read either way ties at ×1.000…, and the tie went to the
#: other turn. On the real crops the turns that were right came at ×2.5–70, the wrong ones at ≤ ×1.3
#: (chosen there: 10 read 0.904, 3 read 0.914, 2 read 0.920; see the model card)
TURN_EVIDENCE = 2.0


#: a photo whose face-up tiles are read upright at least this many times as often as upside-down (and at least
#: :data:`CONSENSUS_MIN` of them): an unsure tile read best upside-down as another tile is turned back upright where
#: that reading is at least :data:`CONSENSUS_KEEP` sure, read as its two turns' readings mixed, the upright one
#: weighing :data:`CONSENSUS_WEIGHT` (:func:`upright_consensus`, :meth:`Classifier.read`)
CONSENSUS_RATIO = 4.0
CONSENSUS_MIN = 5
CONSENSUS_KEEP = 0.5
CONSENSUS_WEIGHT = 0.75


def upright_consensus(best: np.ndarray, cand: np.ndarray, unsure: np.ndarray, n: int, down: np.ndarray) -> np.ndarray:
    """Which of the ``unsure`` tiles ((U,) indices into the photo's ``n``; ``best`` their turns of the turn search,
    0..3; ``cand`` (4, U, 43) their probabilities in each turn; ``down`` (n,) the face-down tiles) to turn back
    upright: (U,) bool, those read best upside-down (turn 2) as another suit tile than the suit tile they read
    upright (an honour, a flower or a season read either way keeps its turn: the glyph reader and the decoder weigh
    those, a bird 1s read 4f upside-down and 5m upright among them) where the photo's other
    face-up tiles stand — read upright :data:`CONSENSUS_RATIO` times as often as upside-down, at least
    :data:`CONSENSUS_MIN` of them — and whose upright reading is at least :data:`CONSENSUS_KEEP`. A tester's real 6p,
    read 6p at 0.88 upright (under :data:`UPRIGHT_SURE`, so tried turned) and 4p at 0.93 upside-down, in a row whose
    12 other tiles stood, made a non-winner's hand 97 % sure with a 4p for the 6p; mixed, it reads 6p at 0.67, 4p at
    0.32, and the decoder weighs both. A photo taken from across the table (most tiles upside-down) keeps its turns:
    the 180° try reads it upright. (:meth:`Classifier.read` also leaves out the boxes wider than tall: a tile lying
    sideways stands neither way.)"""
    turn = np.zeros(n, int)
    turn[unsure] = best
    face_up = ~np.asarray(down, bool)
    ups, downs = int(np.sum((turn == 0) & face_up)), int(np.sum((turn == 2) & face_up))
    if ups < CONSENSUS_MIN or ups < CONSENSUS_RATIO * downs:
        return np.zeros(len(unsure), bool)
    u = np.arange(len(unsure))
    a, b = cand[0, u].argmax(1), cand[2, u].argmax(1)
    suited = (a < len(SUIT_TILES)) & (b < len(SUIT_TILES))  # (two suit tiles: a 6p read as a 4p)
    return (best == 2) & (cand[0, u].max(1) >= CONSENSUS_KEEP) & (a != b) & suited & face_up[unsure]


def choose_turns(sure: np.ndarray, wide: np.ndarray, tall: np.ndarray,
                 tallish: np.ndarray | None = None) -> np.ndarray:
    """The turn read for each tile of the turn search: ``sure`` (4, U) the top probability of each
    quarter turn (0°, 90°, 180°, 270° counter-clockwise), ``wide`` / ``tall`` / ``tallish`` (U,) bool box
    shapes (None: none is tallish) → (U,) int in 0..3. The surest turn, except that a wide box takes
    the surer sideways turn unless an upright/upside-down one is surer by more than
    :data:`SIDEWAYS_LEAN`; a tall box (:data:`TALL_STRICT`) takes the surer of upright and upside-down;
    a tallish one (:data:`TALL` up to :data:`TALL_STRICT`) the sideways turn only when it is surer than
    those by :data:`TALL_LEAN`."""
    u = np.arange(sure.shape[1])
    side = np.where(sure[3] > sure[1], 3, 1)
    up = np.where(sure[2] > sure[0], 2, 0)
    best = sure.argmax(0)
    best = np.where(tall, up, best)
    if tallish is not None:
        best = np.where(tallish, np.where(sure[side, u] >= sure[up, u] + TALL_LEAN, side, up), best)
    return np.where(wide, np.where(sure[side, u] >= sure[up, u] - SIDEWAYS_LEAN, side, up), best)


def load_classifier(path: str | None = None, threads: int | None = None, glyphs: bool = True) -> Classifier:
    """Open the classifier (default ``models/classifier.onnx``), checking its metadata against the
    model contract, with the glyph reader of :mod:`vision.glyphs` (``glyphs``; False: the model
    alone). Raises :class:`ModelError` for a missing file, class names that differ from
    :data:`CLASS_NAMES`, an unknown ``crop_resize``/``rotation``, or a missing glyph reader."""
    p = str(path or model_path(CLASSIFIER_FILE))
    threads = threads or thread_count()
    m = open_model(p, threads)
    names = names_list(m.get("names"), p)
    if names != CLASS_NAMES:
        raise ModelError(f"{p}: metadata 'names' differs from vision.classes.CLASS_NAMES "
                         f"({len(names)} names, first {names[:3]})")
    margin = float(m.get("crop_margin", 0.0))
    resize = str(m.get("crop_resize", "stretch"))
    rotation = str(m.get("rotation", "invariant"))
    if resize not in RESIZE_MODES:
        raise ModelError(f"{p}: metadata crop_resize {resize!r} is not one of {RESIZE_MODES}")
    if rotation not in ("invariant", "upright"):
        raise ModelError(f"{p}: metadata rotation {rotation!r} is not 'invariant' or 'upright'")
    b = m.session.get_inputs()[0].shape[0]
    reader = None
    if glyphs:
        from .glyphs import load_glyph_reader

        reader = load_glyph_reader(threads)
    return Classifier(m, imgsz_of(m), margin, resize, rotation, b if isinstance(b, int) else None, glyphs=reader)


def classify(image: np.ndarray, det: Detections, classifier: Classifier | None = None) -> TileReadings:
    """Per-tile probabilities and pose with the default classifier (or ``classifier``)."""
    return (classifier or load_classifier())(image, det)
