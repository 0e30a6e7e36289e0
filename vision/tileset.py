"""Calibration to the user's own tile set: profiles of class prototypes, and the commands that make them.

The user photographs their own tiles once (``mahjong-score calibrate PHOTO --name NAME``). The
tiles are found by the usual pipeline (:func:`vision.io.load_photo` → detector →
:func:`vision.layout.find_geometry`), put in reading order (rows top to bottom, each left to right,
:func:`reading_order`) and labelled with the layout: by default :data:`DEFAULT_LAYOUT`, one of each
face (1–9m, 1–9p, 1–9s, East South West North White Green Red, flowers 1–4, seasons 1–4), else the
tiles of ``--tiles`` notation in the order written. The classifier's ``embedding`` output (the
features its final layer reads, ``models/CONTRACT.md``) of each upright crop is stored, L2-normalised,
in a :class:`Profile`; a class's *prototype* is the renormalised mean of its examples — weight
imprinting (Qi, Brown & Lowe, "Low-Shot Learning with Imprinted Weights", CVPR 2018).

At run time (``--tileset NAME``, :func:`with_tileset`) the classifier picks each tile's turn as
before, then :meth:`Profile.combine` multiplies its probabilities with the profile's — a product of
experts over the classes the profile covers, whose total probability is kept; classes the profile lacks
(always the face-down ``0x``) keep the model's probability. The profile's probabilities come from its
*head*, a logistic regression on the unit embeddings of the examples and of :data:`VIEWS` altered views
of each (:func:`example_views`: a slant, a squashed face under a band of the tile's body as a standing
tile shows it, a small turn and zoom, blur, light), fitted when the profile is saved (:func:`fit_head`)
and stored with it; a profile without views (made before them) uses the softmax of the cosine
similarities to the prototypes at temperature :data:`TEMPERATURE` until the views are computed (the
first time it is read with, then saved). The calibration report's separation figures are the
prototypes'. Corrections teach the profile (``--fix … --learn``,
:func:`learn`): the fixed tiles' embeddings are added as examples.

Profiles live in :func:`tilesets_dir` (``$MAHJONG_TILESETS`` or
``platformdirs.user_data_dir("mahjong-score")/tilesets``), one ``NAME.npz`` each (examples, their
crops, the classifier's fingerprint, history). A profile made with another classifier is re-embedded
from its stored crops when the crop geometry is unchanged, else refused (:class:`TilesetError`).
Errors: :class:`~vision.errors.TilesetError` (profiles), :class:`~vision.errors.CalibrationError`
(photos that do not show the layout), :class:`~vision.errors.ModelError` (no ``embedding`` output).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import re
import time
import zipfile
import zlib
from contextlib import contextmanager
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence

import numpy as np

from .classes import BACK, CLASS_INDEX, CLASS_NAMES, DROP
from .classify import Classifier
from .crops import crop_tile
from .detect import Detections
from .errors import CalibrationError, ModelError, TileNumberError, TilesetError

#: a reader spec (:func:`reader_spec`, :mod:`vision.readers`) ending in TILESET_TAG + NAME reads
#: with the calibrated profile NAME
TILESET_TAG = "#tileset="
#: the default calibration layout, in reading order: one of each of the 42 faces
DEFAULT_LAYOUT: tuple[str, ...] = tuple(CLASS_NAMES[:42])
#: softmax temperature of the profile's cosine similarities. Chosen in exploration runs on renders
#: of six procedural tile sets with recoloured art (colours the model never saw; calibration on one
#: render of the 42-face layout, true boxes on six other renders of each set, tiles in every pose,
#: the turn chosen by the model): sets 1–3 (372 tiles) model alone 0.801, with the profile at
#: T = 0.02 / 0.05 / 0.1: 0.844 / 0.831 / 0.820; sets 4–6 (266 tiles) alone 0.808, T = 0.005 / 0.01
#: / 0.02: 0.842 / 0.842 / 0.850 (the nearest prototype alone: 0.858 / 0.838). Letting the combined
#: probabilities choose the turn instead was worse (0.79–0.82: a turned crop matches some upright
#: prototype confidently); augmenting the calibration crops (small turns, scale, blur, light) and
#: centring the embeddings did not help the prototypes (the head below gains from such views).
TEMPERATURE = 0.02
#: altered views of each example the head is fitted on (:func:`example_views`), its logit scale on
#: the cosine-like scores of unit embeddings, L2 weight, gradient steps and step size. Measured on the
#: renders of ``python -m datasets.calibration`` (true boxes, six other renders per set; eighth session
#: of 2026-12-02, classifier version 4; first with a fixed step of 1.0): recoloured sets 0–5 (695
#: tiles) prototypes 0.873, head on the examples alone 0.885, head with 8 views 0.906 (16 views 0.908;
#: scale 60 0.876); held-out recoloured sets 6–11 (658) 0.889 → 0.912, standing tiles 0.796 → 0.855;
#: plain sets 0–5 (695) 0.899 → 0.918. With the accelerated steps of :func:`fit_head`: 0.912, 0.910,
#: 0.925; L2 1e-2 0.898, 1e-4 0.911; the head's logits tempered (× 0.5) 0.891
VIEWS = 8
HEAD_SCALE, HEAD_L2, HEAD_STEPS = 30.0, 1e-3, 300
#: the head is fitted on at most this many rows (every example, then views spread over them)
HEAD_MAX_ROWS = 800
#: a learned tile that the classifier reads as another face at least this surely is named (learn)
LEARN_DOUBT = 0.95
#: below this cosine margin (own prototype − nearest other class) two classes are hard to tell apart
MARGIN_WARN = 0.05
#: a calibration photo whose tiles the classifier finds in the layout's top-5 this rarely is refused
#: as not following the layout's order (an unseen set is still read right about 3 times in 4)
ORDER_MIN = 0.3
#: at most this many unsure extra detections are left out of a calibration photo, a box lying over
#: two tiles only when this share of it lies over other boxes (the tiles of a calibration photo lie apart)
MAX_DROP = 2
OVERLAP_DROP = 0.5
#: a box of a calibration photo is off the layout (background: a false box on the cloth or a photo's
#: edge) when a side of it (long or short) is more than ODD_SIZE times the size a face tile has at that
#: place in the photo, or less than 1/ODD_SIZE of it, or when no face tile of the usual size lies within
#: FAR_OFF tile lengths of it (centre to centre; the layout's tiles lie in rows, a little apart). The size
#: at a place is a plane fitted to the face tiles' log sides over the photo (:func:`tile_size_at`): a
#: photo taken at a slant shows the near row's tiles up to twice the far row's (a render's near 1f was
#: 1.61x the median tile and refused the photo as "found 41 tiles")
ODD_SIZE, FAR_OFF = 1.6, 2.5
#: fewer face tiles than this, or tiles spread less than PLANE_SPREAD tile lengths (standard deviation)
#: across their main line (one row): the median tile size everywhere, no plane. A plane fitted to one row
#: takes its slope across the row from a pixel or two of jitter (a reviewer's trials: 0.1x to 7.7x the
#: row's size 150 px off it)
PLANE_MIN = 8
PLANE_SPREAD = 0.5
#: profile file format: 2 adds the views' embeddings (``views``); format 1 files are read, their views
#: computed when a classifier reads with them (:func:`fit_to`)
#: a calibration photo's faces that look laid twice are named up to this many (more: the set's look, not the layout)
TWICE_MAX = 2
FORMAT = 2
READ_FORMATS = (1, 2)
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
FACE_CODES = frozenset(CLASS_NAMES) - {BACK}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def tilesets_dir() -> Path:
    """``$MAHJONG_TILESETS`` if set, else ``platformdirs.user_data_dir("mahjong-score")/tilesets``."""
    env = os.environ.get("MAHJONG_TILESETS")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("mahjong-score", appauthor=False)) / "tilesets"


#: names a Windows file system keeps for devices (a profile CON.npz cannot be made there), any case
_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul"} | {f"{d}{k}" for d in ("com", "lpt") for k in range(1, 10)})


def check_name(name: str) -> str:
    """A profile name: 1–64 letters, digits, ``.``, ``_`` or ``-``, not starting with ``.``/``-``/``_``, not
    ending in ``.npz`` (the file's own ending: a tester's ``--name setA.npz`` made ``setA.npz.npz`` beside
    ``setA.npz``), nor a Windows device name (``CON``, ``NUL``, ``COM1`` …, before any ``.``).
    Raises :class:`TilesetError` otherwise."""
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise TilesetError(f"tile-set name {name!r} must be 1-64 ASCII letters (a-z, A-Z), digits, '.', '_' or '-', "
                           f"starting with a letter or digit")
    if name.lower().endswith(".npz"):
        raise TilesetError(f"tile-set name {name!r}: give it without '.npz' ({name[:-4]!r}); the profile is stored "
                           f"as NAME.npz")
    if name.split(".")[0].lower() in _DEVICE_NAMES:
        raise TilesetError(f"tile-set name {name!r} is a name Windows keeps for a device: choose another")
    return name


def profile_path(name: str, directory: str | os.PathLike | None = None) -> Path:
    """Where profile ``name`` is stored: ``directory`` (default :func:`tilesets_dir`)/``NAME.npz``."""
    return Path(directory or tilesets_dir()) / f"{check_name(name)}.npz"


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


@lru_cache(maxsize=8)
def _file_sha(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint(classifier: Classifier) -> dict[str, Any]:
    """What a profile's embeddings depend on: the classifier file's SHA-256, the embedding size and
    the crop geometry (``imgsz``, ``crop_margin``, ``crop_resize``). Raises ModelError without an
    ``embedding`` output."""
    d = classifier.embedding_dim
    if d is None:
        classifier.embed(np.zeros((0, classifier.imgsz, classifier.imgsz, 3), np.uint8))  # raises ModelError
    p = Path(classifier.model.path)
    try:
        st = p.stat()
        sha = _file_sha(str(p), st.st_mtime_ns, st.st_size)
    except OSError:
        sha = "unknown"
    return {"sha256": sha, "dim": int(d or -1), "imgsz": int(classifier.imgsz),
            "margin": float(classifier.margin), "resize": str(classifier.resize)}


# ============================================================================ the profile
@dataclass(frozen=True, eq=False)
class Profile:
    """A user's tile set: labelled example embeddings and the crops they came from.

    * ``codes``: K tile codes (one per example);
    * ``embeddings``: (K, D) float32, L2-normalised rows (the classifier's ``embedding`` output);
    * ``crops``: (K, S, S, 3) uint8 RGB upright crops (to re-embed with a new classifier);
    * ``kinds``: K of ``calibrate`` / ``fix`` (where each example came from);
    * ``model``: :func:`fingerprint` of the classifier the embeddings were made with;
    * ``history``: one record per calibration photo or learned correction;
    * ``views``: (V, D) float32 unit rows, the embeddings of :data:`VIEWS` altered views of each of
      the first V / VIEWS examples, in example order (:func:`with_views`); may cover fewer examples
      than there are (those added since) or none;
    * ``classes`` (C,) int class indices covered and ``prototypes`` (C, D) float32 unit rows,
      derived; :attr:`head` the logistic regression fitted on the examples and their views.
    """

    name: str
    codes: tuple[str, ...]
    embeddings: np.ndarray
    crops: np.ndarray
    kinds: tuple[str, ...]
    model: Mapping[str, Any]
    created: str
    updated: str
    history: tuple[Mapping[str, Any], ...] = ()
    temperature: float = TEMPERATURE
    views: np.ndarray | None = field(default=None, repr=False)
    #: a head fitted before (stored with the profile); used only when its signature is this profile's
    fitted: "Head | None" = field(default=None, repr=False, compare=False)
    classes: np.ndarray = field(init=False, repr=False)
    prototypes: np.ndarray = field(init=False, repr=False)
    _head: list = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        emb = np.asarray(self.embeddings, np.float32)
        if emb.ndim != 2 or len(emb) != len(self.codes) or len(self.crops) != len(self.codes) \
                or len(self.kinds) != len(self.codes):
            raise TilesetError(f"tile set {self.name!r}: {len(self.codes)} codes, {len(self.kinds)} kinds, "
                               f"embeddings {emb.shape} and {len(self.crops)} crops do not match")
        emb = _normalise(emb)
        object.__setattr__(self, "embeddings", emb)
        idx = np.array([CLASS_INDEX[c] for c in self.codes], int)
        classes = np.unique(idx)
        protos = np.stack([emb[idx == c].mean(0) for c in classes]) if len(classes) else np.zeros((0, emb.shape[1]), np.float32)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "prototypes", _normalise(protos))
        views = None if self.views is None else np.asarray(self.views, np.float32)
        if views is not None and (views.ndim != 2 or views.shape[1] != emb.shape[1] or len(views) % VIEWS
                                  or len(views) > VIEWS * len(self.codes) or not np.isfinite(views).all()):
            raise TilesetError(f"tile set {self.name!r}: view embeddings of shape {views.shape} do not fit "
                               f"{len(self.codes)} examples of {emb.shape[1]} numbers")
        object.__setattr__(self, "views", None if views is None else _normalise(views))
        f = self.fitted
        ok = f is not None and f.signature == self.signature and np.shape(f.weight) == (emb.shape[1], len(classes)) \
            and np.shape(f.bias) == (len(classes),) and np.isfinite(f.weight).all() and np.isfinite(f.bias).all()
        object.__setattr__(self, "_head", [self.fitted] if ok else [])  # else fitted on first use (:attr:`head`)

    @property
    def signature(self) -> str:
        """What the head was fitted on and how: the head's settings, a hash of the codes, the numbers of
        examples and views and the embeddings' sum (3 decimals: a renormalisation moves the 5th)."""
        views = 0 if self.views is None else len(self.views)
        codes = hashlib.sha256(",".join(self.codes).encode()).hexdigest()[:12]
        settings = f"{HEAD_SCALE}/{HEAD_L2}/{HEAD_STEPS}/{HEAD_MAX_ROWS}/{VIEWS}/nesterov"
        return f"{settings}:{codes}:{len(self.codes)}:{views}:{float(np.asarray(self.embeddings, np.float64).sum()):.3f}"

    @property
    def head(self) -> "Head | None":
        """The logistic regression on the examples and their views (:func:`fit_head`), fitted on first
        use; None while some example has no views or fewer than two classes are covered."""
        if not self._head:
            full = self.views is not None and len(self.views) == VIEWS * len(self.codes) and len(self.classes) >= 2
            idx = np.array([CLASS_INDEX[c] for c in self.codes], int)
            head = fit_head(self.embeddings, self.views, idx, self.classes) if full else None
            self._head.append(None if head is None else replace(head, signature=self.signature))
        return self._head[0]

    @property
    def viewed(self) -> int:
        """How many examples (the first ones) have their views."""
        return 0 if self.views is None else len(self.views) // VIEWS

    @property
    def dim(self) -> int:
        return int(self.embeddings.shape[1])

    def similarities(self, emb: np.ndarray) -> np.ndarray:
        """(B, D) embeddings → (B, C) cosine similarities to the prototypes (``classes`` order)."""
        return _normalise(np.asarray(emb, np.float32).reshape(len(emb), -1)) @ self.prototypes.T

    def combine(self, probs: np.ndarray, emb: np.ndarray) -> np.ndarray:
        """The model's (B, 43) probabilities and the crops' (B, D) embeddings → (B, 43) probabilities.

        Over the covered classes: model probability × the profile's probability (its :attr:`head`;
        without one, softmax(cosine to the prototypes / temperature)), renormalised to the model's
        total probability on those classes; the other classes keep the model's value.
        Raises :class:`TilesetError` when D differs from the profile's.
        """
        p = np.asarray(probs, np.float64)
        emb = np.asarray(emb)
        if emb.ndim != 2 or emb.shape[1] != self.dim:
            raise TilesetError(f"tile set {self.name!r} has {self.dim}-dimensional embeddings, the classifier gives "
                               f"{emb.shape[-1] if emb.ndim else '?'}; calibrate again with --replace")
        if len(p) == 0 or len(self.classes) == 0:
            return np.asarray(probs, np.float32)
        if self.head is not None:
            w = self.head.probs(_normalise(emb.astype(np.float64)))
        else:
            w = _softmax(self.similarities(emb).astype(np.float64) / self.temperature)
        c = self.classes
        mass = p[:, c].sum(1, keepdims=True)
        pq = p[:, c] * w
        tot = pq.sum(1, keepdims=True)
        out = p.copy()
        ok = tot[:, 0] > 1e-300  # rows where the model gives the covered classes no probability keep it
        out[np.ix_(ok, c)] = mass[ok] * pq[ok] / tot[ok]
        return (out / out.sum(1, keepdims=True)).astype(np.float32)

    def add(self, codes: Sequence[str], embeddings: np.ndarray, crops: np.ndarray, kind: str,
            record: Mapping[str, Any] | None = None) -> "Profile":
        """A new profile with these examples added (``kind``: ``calibrate`` or ``fix``)."""
        codes = tuple(codes)
        bad = [c for c in codes if c not in FACE_CODES]
        if bad:
            raise TilesetError(f"tile set examples must be faces, not {sorted(set(bad))}")
        emb = np.asarray(embeddings, np.float32).reshape(len(codes), -1)
        if len(self.codes) and emb.shape[1] != self.dim:
            raise TilesetError(f"tile set {self.name!r}: {emb.shape[1]}-dimensional embeddings added to "
                               f"{self.dim}-dimensional ones")
        crops = np.asarray(crops, np.uint8)
        if len(self.codes) and crops.shape[1:] != self.crops.shape[1:]:
            raise TilesetError(f"tile set {self.name!r}: crops of {crops.shape[1]} px added to crops of "
                               f"{self.crops.shape[1]} px")
        hist = self.history + ((dict(record) if record else {}) | {"kind": kind, "tiles": len(codes), "at": _now()},)
        views = self.views if self.viewed == len(self.codes) else None  # else: some lacked views already
        return replace(self, codes=self.codes + codes, views=views,
                       embeddings=np.concatenate([self.embeddings, emb]) if len(self.codes) else emb,
                       crops=np.concatenate([self.crops, crops]) if len(self.codes) else crops,
                       kinds=self.kinds + (kind,) * len(codes), updated=_now(), history=hist)

    def separation(self) -> dict[str, Any]:
        """How well the prototypes tell the classes apart, from the examples themselves.

        * ``margin``: per example, cosine to its own class's prototype minus the highest cosine to
          another class's; ``min_margin``, ``median_margin``, the ``closest`` pairs (worst first) and
          ``hard`` (examples with a margin below :data:`MARGIN_WARN`);
        * ``loo_accuracy``: leave-one-out nearest-prototype accuracy over the examples whose class has
          another example (None when no class has two), with ``loo_examples``.
        """
        idx = np.array([CLASS_INDEX[c] for c in self.codes], int)
        out: dict[str, Any] = {"classes": int(len(self.classes)), "examples": len(self.codes)}
        if len(self.classes) < 2:
            out.update(min_margin=None, median_margin=None, closest=[], hard=0, loo_accuracy=None, loo_examples=0)
            return out
        sim = self.embeddings @ self.prototypes.T  # (K, C)
        pos = np.searchsorted(self.classes, idx)
        own = sim[np.arange(len(idx)), pos]
        other = sim.copy()
        other[np.arange(len(idx)), pos] = -np.inf
        nearest = other.argmax(1)
        margin = own - other[np.arange(len(idx)), nearest]
        order = np.argsort(margin, kind="stable")
        closest, seen = [], set()
        for k in order:
            pair = tuple(sorted((self.codes[k], CLASS_NAMES[self.classes[nearest[k]]])))
            if pair in seen:
                continue
            seen.add(pair)
            closest.append({"tile": self.codes[k], "nearest": CLASS_NAMES[self.classes[nearest[k]]],
                            "margin": round(float(margin[k]), 4)})
            if len(closest) == 3:
                break
        out.update(min_margin=round(float(margin.min()), 4), median_margin=round(float(np.median(margin)), 4),
                   closest=closest, hard=int((margin < MARGIN_WARN).sum()))
        counts = Counter(idx.tolist())
        right = n = 0
        sums = {c: self.embeddings[idx == c].sum(0) for c in self.classes}
        for k in range(len(idx)):
            if counts[idx[k]] < 2:
                continue
            protos = {c: (s - self.embeddings[k] if c == idx[k] else s) for c, s in sums.items()}
            keys = list(protos)
            P = _normalise(np.stack([protos[c] for c in keys]))
            right += int(keys[int((P @ self.embeddings[k]).argmax())] == idx[k])
            n += 1
        out.update(loo_accuracy=round(right / n, 4) if n else None, loo_examples=n)
        return out

    def summary(self) -> dict[str, Any]:
        """Name, classes covered, examples, dates: one row of ``mahjong-score tilesets``."""
        cov = [CLASS_NAMES[c] for c in self.classes]
        return {"name": self.name, "classes": len(cov), "covered": cov, "examples": len(self.codes),
                "learned": sum(k == "fix" for k in self.kinds), "created": self.created, "updated": self.updated,
                "photos": sum(1 for h in self.history if h.get("kind") == "calibrate")}


def new_profile(name: str, classifier: Classifier) -> Profile:
    """An empty profile for ``classifier`` (raises ModelError without an ``embedding`` output)."""
    fp = fingerprint(classifier)
    now = _now()
    return Profile(check_name(name), (), np.zeros((0, max(fp["dim"], 0)), np.float32),
                   np.zeros((0, classifier.imgsz, classifier.imgsz, 3), np.uint8), (), fp, now, now)


# ============================================================================ storage
def save_profile(profile: Profile, directory: str | os.PathLike | None = None) -> Path:
    """Write ``profile`` to :func:`profile_path` atomically (a temporary file, then a rename).
    Raises :class:`TilesetError` when the folder cannot be written."""
    path = profile_path(profile.name, directory)
    meta = {"format": FORMAT, "name": profile.name, "model": dict(profile.model), "created": profile.created,
            "updated": profile.updated, "history": list(profile.history), "temperature": profile.temperature}
    buf = io.BytesIO()
    views = profile.views if profile.views is not None else np.zeros((0, profile.dim), np.float32)
    head = profile.head  # fitted now (if it can be), so that reading with the profile need not fit it
    arrays = {}
    if head is not None:
        meta["head"] = {"signature": head.signature, "rows": head.rows}
        arrays = {"head_weight": head.weight, "head_bias": head.bias}
    np.savez_compressed(buf, meta=np.array(json.dumps(meta)), codes=np.array(profile.codes, dtype="<U2"),
                        kinds=np.array(profile.kinds, dtype="<U9"), embeddings=profile.embeddings,
                        crops=profile.crops, views=views.astype(np.float16), **arrays)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    except OSError as e:
        try:  # the cleanup fails too on a read-only folder or a file in the folder's place
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise TilesetError(f"cannot write the tile set {path} ({e.strerror or e})") from None
    return path


@contextmanager
def profile_lock(name: str, directory: str | os.PathLike | None = None):
    """Hold an exclusive lock on profile ``name`` while it is read, changed and written again, so that
    two runs teaching one profile at once (``--learn`` in two shells, a calibration and a page's tap-to-fix)
    both land instead of the last save overwriting the other. ``fcntl.flock`` on a ``.NAME.npz.lock`` file
    beside the profile (never deleted, also not by :func:`remove_profile`): it holds between processes
    and between threads (each opens its own file). Where there is no ``fcntl`` (Windows), the folder
    cannot be written (the save then says so) or the file system refuses locks, nothing is locked.
    Raises TilesetError for a bad name."""
    path = profile_path(name, directory)
    f = None
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path.with_name(f".{path.name}.lock"), "a+b")
        fcntl.flock(f, fcntl.LOCK_EX)
    except (ImportError, OSError):  # not POSIX, a folder that cannot be written, a file system without locks
        if f is not None:
            f.close()
        f = None
    try:
        yield
    finally:
        if f is not None:
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()


def load_profile(name: str, directory: str | os.PathLike | None = None) -> Profile:
    """The stored profile ``name`` (in ``directory``, default :func:`tilesets_dir`). Raises
    :class:`TilesetError` when there is none (naming the ones there are) or the file is unreadable."""
    path = profile_path(name, directory)
    if path.exists() and not path.is_file():
        raise TilesetError(f"tile set {name!r} ({path}) is unreadable (a folder or other non-file, not a tile-set "
                           f"file); move it out of {path.parent}")
    if not path.is_file():
        have = [p.stem for p in sorted(path.parent.glob("*.npz")) if p.is_file()]
        raise TilesetError(f"no tile set named {name!r} in {path.parent} ("
                           + (f"there are: {', '.join(have)}" if have else "make one with `mahjong-score calibrate PHOTO --name NAME`")
                           + ")")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            _check_meta(meta)
            codes = tuple(str(c) for c in z["codes"])
            kinds = tuple(str(k) for k in z["kinds"])
            emb, crops = np.array(z["embeddings"], np.float32), np.array(z["crops"], np.uint8)
            views = np.array(z["views"], np.float32) if "views" in z.files else None
            head = None
            try:  # a stored head is a cache: a bad one is fitted again, never a reason to refuse the profile
                if isinstance(meta.get("head"), dict) and {"head_weight", "head_bias"} <= set(z.files):
                    head = Head(np.array(z["head_weight"], np.float32), np.array(z["head_bias"], np.float32),
                                int(meta["head"].get("rows", 0)), str(meta["head"].get("signature", "")))
            except (ValueError, TypeError, KeyError):
                head = None
        return Profile(name, codes, emb, crops, kinds, meta["model"], meta["created"], meta["updated"],
                       tuple(meta.get("history", ())), float(meta.get("temperature", TEMPERATURE)),
                       views if views is not None and len(views) else None, head)
    except (OSError, ValueError, KeyError, TypeError, TilesetError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "pickle" in why or isinstance(e, (zipfile.BadZipFile, KeyError)):  # numpy's advice is not for users
            why = "not a tile-set file, or a damaged one"
        raise TilesetError(f"tile set {name!r} ({path}) is unreadable ({why}); "
                           f"remove it with `mahjong-score tilesets --remove {name}` and calibrate again") from None


def _check_meta(meta) -> None:
    """Raises ValueError naming what is wrong with a profile file's ``meta`` record (its format, and
    the types the rest of the code relies on: ``model`` a mapping of the classifier's fingerprint,
    ``history`` a list of records, ``created``/``updated`` strings)."""
    if not isinstance(meta, dict):
        raise ValueError(f"its record is a {type(meta).__name__}, not a mapping")
    if meta.get("format") not in READ_FORMATS:
        raise ValueError(f"format {meta.get('format')!r}, expected one of {READ_FORMATS}")
    if not isinstance(meta.get("model"), dict):
        raise ValueError("its classifier fingerprint ('model') is missing or not a mapping")
    hist = meta.get("history", [])
    if not isinstance(hist, list) or not all(isinstance(h, dict) for h in hist):
        raise ValueError("its history is not a list of records")
    for k in ("created", "updated"):
        if not isinstance(meta.get(k), str):
            raise ValueError(f"its {k!r} date is missing or not text")
    t = meta.get("temperature", TEMPERATURE)
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise ValueError("its temperature is not a number")


def list_profiles(directory: str | os.PathLike | None = None) -> list[Profile]:
    """Every stored profile, by name (unreadable files are skipped: :func:`scan_profiles`)."""
    return scan_profiles(directory)[0]


def scan_profiles(directory: str | os.PathLike | None = None) -> tuple[list[Profile], list[tuple[str, str]]]:
    """Every profile file read once: (the profiles, by name; (name, error message) of each file that
    cannot be read)."""
    d = Path(directory or tilesets_dir())
    good: list[Profile] = []
    bad: list[tuple[str, str]] = []
    for p in sorted(d.glob("*.npz")) if d.is_dir() else []:
        try:
            good.append(load_profile(p.stem, d))
        except TilesetError as e:
            bad.append((p.stem, str(e)))
    return good, bad


def remove_profile(name: str, directory: str | os.PathLike | None = None) -> Path:
    """Delete profile ``name``; :class:`TilesetError` when there is none."""
    path = profile_path(name, directory)
    if not path.is_file():
        load_profile(name, directory)  # raises, naming the profiles there are (or the folder in the way)
    with profile_lock(name, directory):  # not while another run is changing it (its lock file stays:
        try:                               # deleting it would let two runs hold "the lock" at once)
            path.unlink()
        except OSError as e:
            raise TilesetError(f"cannot remove {path} ({e.strerror or e})") from None
    return path


def check_geometry(profile: Profile, fp: Mapping[str, Any]) -> None:
    """Raises :class:`TilesetError` when ``profile`` was made with a classifier (its stored
    fingerprint) that crops tiles otherwise than the one of fingerprint ``fp``: its crops cannot be
    re-embedded."""
    geo = ("imgsz", "margin", "resize")
    if any(profile.model.get(k) != fp[k] for k in geo):
        raise TilesetError(f"tile set {profile.name!r} was made with a classifier that crops tiles differently "
                           f"({', '.join(f'{k} {profile.model.get(k)}' for k in geo)}; now "
                           f"{', '.join(f'{k} {fp[k]}' for k in geo)}): calibrate again with "
                           f"`mahjong-score calibrate PHOTO --name {profile.name} --replace`")


def fit_to(profile: Profile, classifier: Classifier) -> Profile:
    """``profile`` with embeddings of ``classifier``: as stored when it was made with that
    classifier, else re-embedded from its stored crops when the crop geometry is the same.
    Raises :class:`TilesetError` when the geometry differs, ModelError without ``embedding``."""
    fp = fingerprint(classifier)
    if dict(profile.model) == fp:
        return with_views(profile, classifier)
    check_geometry(profile, fp)
    emb = classifier.embed(profile.crops)[1] if len(profile.codes) else np.zeros((0, fp["dim"]), np.float32)
    return with_views(replace(profile, embeddings=emb, model=fp, views=None), classifier)


@dataclass(frozen=True)
class Head:
    """A tile set's logistic regression on unit embeddings: ``weight`` (D, C) float32 and ``bias`` (C,)
    float32 over the profile's ``classes`` in order; ``rows``: how many rows it was fitted on;
    ``signature``: :attr:`Profile.signature` of the profile it was fitted for."""

    weight: np.ndarray
    bias: np.ndarray
    rows: int = 0
    signature: str = ""

    def probs(self, emb: np.ndarray) -> np.ndarray:
        """(B, D) unit embeddings → (B, C) float64 probabilities: softmax of HEAD_SCALE · x·W + b."""
        return _softmax(HEAD_SCALE * (np.asarray(emb, np.float64) @ self.weight) + self.bias)


def _softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of (B, C) float64 logits (shifted by each row's maximum: no overflow)."""
    w = np.exp(z - z.max(1, keepdims=True))
    return w / w.sum(1, keepdims=True)


def fit_head(emb: np.ndarray, views: np.ndarray, idx: np.ndarray, classes: np.ndarray) -> Head:
    """The logistic regression of a profile: examples ``emb`` (N, D) unit rows with class indices
    ``idx`` (N,), their ``views`` (N·VIEWS, D) unit rows (example-major), over ``classes`` (C,).

    Softmax of HEAD_SCALE · x·W + b, mean cross-entropy + HEAD_L2/2 · |W|², minimised by HEAD_STEPS
    steps of Nesterov's accelerated gradient from zero at step 1/L, L the gradient's Lipschitz bound
    (½·(HEAD_SCALE²·λmax(XXᵀ) + M)/M + HEAD_L2, λmax by power iteration). W = Xᵀ·A throughout, so
    the steps run on the (M, M) Gram matrix. Every example, then views spread evenly over them up to
    :data:`HEAD_MAX_ROWS` rows in all (a profile with many learned tiles stays quick to fit: about 0.3 s
    for 42 examples × 9, a few seconds at the cap)."""
    y_all = np.concatenate([idx, np.repeat(idx, VIEWS)])
    X = np.concatenate([emb, views]).astype(np.float64)
    if len(X) > HEAD_MAX_ROWS:  # every example stays; views spread evenly fill the rest of the cap
        n = len(emb)
        pick = np.linspace(n, len(X) - 1, max(HEAD_MAX_ROWS - n, 0)).round().astype(int)
        keep = np.unique(np.concatenate([np.arange(n), pick]))
        X, y_all = X[keep], y_all[keep]
    y = np.searchsorted(classes, y_all)
    M, C = len(X), len(classes)
    Y = np.zeros((M, C))
    Y[np.arange(M), y] = 1.0
    K = X @ X.T
    v = np.full(M, 1.0 / np.sqrt(M))
    lam = 1.0
    for _ in range(30):  # power iteration: λmax(K) (K is positive semi-definite)
        w = K @ v
        lam = float(np.linalg.norm(w))
        if lam <= 0:
            break
        v = w / lam
    step = 1.0 / (0.5 * (HEAD_SCALE ** 2 * max(lam, 1e-12) + M) / M + HEAD_L2)
    A = np.zeros((M, C))
    b = np.zeros(C)
    A_prev, b_prev = A, b
    for k in range(HEAD_STEPS):
        beta = k / (k + 3)
        Av, bv = A + beta * (A - A_prev), b + beta * (b - b_prev)
        G = (_softmax(HEAD_SCALE * (K @ Av) + bv) - Y) / M
        A_prev, b_prev = A, b
        A = Av - step * (HEAD_SCALE * G + HEAD_L2 * Av)
        b = bv - step * G.sum(0)
    return Head((X.T @ A).astype(np.float32), b.astype(np.float32), M)


def example_views(crop: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` altered views (n, S, S, 3) uint8 of one upright example crop (S, S, 3) uint8, a pure
    function of ``crop``, ``n`` and ``seed``: a slant (the top edge narrower or wider by up to 12 %
    each side, the top lowered by up to a quarter); every second view the face squashed to 50–80 %
    of the height under a band of the tile's body colour (its side, seen below the face in a photo
    from above), as a standing tile shows it; a turn of up to 7° with a zoom of 0.9–1.1 and a shift
    of up to 5 %; half of them blurred (down to 24–47 px and back); gamma 0.7–1.4 and gain
    0.85–1.1. OpenCV warps, replicated borders."""
    import cv2

    rng = np.random.default_rng([int(seed), 5151])
    S = crop.shape[0]
    out = []
    for j in range(n):
        c = np.ascontiguousarray(crop)
        tilt, drop = rng.uniform(-0.12, 0.12) * S, rng.uniform(0.0, 0.25) * S
        src = np.float32([[0, 0], [S, 0], [S, S], [0, S]])
        dst = np.float32([[tilt, drop], [S - tilt, drop], [S, S], [0, S]])
        c = cv2.warpPerspective(c, cv2.getPerspectiveTransform(src, dst), (S, S), borderMode=cv2.BORDER_REPLICATE)
        if j % 2 == 0:
            h = max(1, int(S * rng.uniform(0.5, 0.8)))
            body = c[int(S * 0.86):int(S * 0.95), S // 4:3 * S // 4].reshape(-1, 3).mean(0)
            stand = np.empty_like(c)
            stand[:] = body.astype(np.uint8)
            stand[S - h:] = cv2.resize(c, (S, h), interpolation=cv2.INTER_AREA)
            c = stand
        angle, zoom = rng.uniform(-7, 7), rng.uniform(0.9, 1.1)
        centre = (S / 2 + rng.uniform(-0.05, 0.05) * S, S / 2 + rng.uniform(-0.05, 0.05) * S)
        c = cv2.warpAffine(c, cv2.getRotationMatrix2D(centre, angle, zoom), (S, S), borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.5:
            m = int(rng.integers(24, 48))
            c = cv2.resize(cv2.resize(c, (m, m), interpolation=cv2.INTER_AREA), (S, S), interpolation=cv2.INTER_LINEAR)
        gamma, gain = rng.uniform(0.7, 1.4), rng.uniform(0.85, 1.1)
        c = np.clip(255.0 * (c / 255.0) ** gamma * gain, 0, 255).astype(np.uint8)
        out.append(c)
    return np.stack(out) if out else np.zeros((0, S, S, 3), np.uint8)


def with_views(profile: Profile, classifier: Classifier) -> Profile:
    """``profile`` with the views of every example embedded by ``classifier`` (those it has are kept;
    example k's views are :func:`example_views` of its crop with seed k), so that its :attr:`head`
    is fitted. Raises ModelError without an ``embedding`` output."""
    have = profile.viewed
    if have == len(profile.codes) or profile.crops.shape[1:3] != (classifier.imgsz, classifier.imgsz):
        return profile
    crops = np.concatenate([example_views(profile.crops[k], VIEWS, k) for k in range(have, len(profile.codes))])
    emb = classifier.embed(crops)[1]
    views = emb if profile.views is None else np.concatenate([profile.views, emb])
    return replace(profile, views=views)


def _stamp(name: str, directory) -> tuple[int, int] | None:
    """(mtime ns, size) of profile ``name``'s file, None when it cannot be read."""
    try:
        st = profile_path(name, directory).stat()
    except (OSError, TilesetError):
        return None
    return st.st_mtime_ns, st.st_size


def with_tileset(classifier: Classifier, name_or_profile: str | Profile | None,
                 directory: str | os.PathLike | None = None) -> Classifier:
    """``classifier`` reading with the profile (a name is loaded from ``directory``, default
    :func:`tilesets_dir`); None: ``classifier`` unchanged. Raises TilesetError / ModelError (see
    :func:`fit_to`)."""
    if name_or_profile is None:
        return classifier
    stamp = _stamp(name_or_profile, directory) if isinstance(name_or_profile, str) else None
    prof = load_profile(name_or_profile, directory) if isinstance(name_or_profile, str) else name_or_profile
    base = replace(classifier, tileset=None)
    fitted = fit_to(prof, base)
    # re-embedded or given its views: saved, so that the next reading need not do it again, unless the
    # file changed meanwhile (a tile learned in another process or request is never overwritten)
    if stamp is not None and fitted is not prof:
        try:
            with profile_lock(name_or_profile, directory):
                if _stamp(name_or_profile, directory) == stamp:
                    save_profile(fitted, directory)
        except TilesetError:
            pass
    return replace(base, tileset=fitted)


# ============================================================================ calibration
def layout_codes(notation: str | None) -> tuple[str, ...]:
    """The tiles of a calibration layout in reading order: ``None`` → :data:`DEFAULT_LAYOUT`, else
    the tiles of ``notation`` in the order written (``"123m456p +1f2f"``; brackets, ``+`` and spaces
    only separate). Raises :class:`CalibrationError` for bad notation or a face-down tile."""
    if notation is None:
        return DEFAULT_LAYOUT
    from scoring import HandError
    from scoring.notation import parse_tiles

    out: list[str] = []
    for tok in re.split(r"[\s\[\]()+]+", notation):
        if not tok:
            continue
        if re.search(r"0x", tok):  # notation has no 0x outside a concealed kong: say what is meant
            raise CalibrationError(f"--tiles {notation!r}: a calibration layout shows faces, not face-down tiles (0x)")
        try:
            out.extend(parse_tiles(tok))
        except HandError as e:
            raise CalibrationError(f"--tiles {notation!r}: {e}") from None
    if not out:
        raise CalibrationError(f"--tiles {notation!r} names no tiles")
    return tuple(out)


def reading_order(det: Detections, image_size: tuple[int, int]) -> list[int]:
    """Detection indices in reading order: rows (:func:`vision.layout.find_geometry`) from the top
    of the photo down, each left to right; rows on one line (a gap split them) are joined."""
    from .layout import find_geometry

    if len(det) == 0:
        return []
    geo = find_geometry(det, image_size)
    c = np.asarray(det.centres, np.float64)
    if geo.turned:  # the frame find_geometry worked in: the photo turned 90° clockwise
        c = np.stack([image_size[1] - c[:, 1], c[:, 0]], 1)
    a = geo.angle
    u = c[:, 0] * np.cos(a) + c[:, 1] * np.sin(a)
    v = -c[:, 0] * np.sin(a) + c[:, 1] * np.cos(a)
    rows = [[t for g in ids for t in geo.groups[g].tiles] for ids in geo.rows]
    rows = [r for r in rows if r]
    tile_h = float(np.median(det.sizes[:, 1])) or 1.0
    rows.sort(key=lambda r: float(np.median(v[r])))
    lines: list[list[int]] = []
    for r in rows:
        if lines and abs(float(np.median(v[r])) - float(np.median(v[lines[-1]]))) < 0.5 * tile_h:
            lines[-1] = lines[-1] + r
        else:
            lines.append(list(r))
    return [t for line in lines for t in sorted(line, key=lambda k: float(u[k]))]


def _names(codes: Sequence[str], limit: int = 8) -> str:
    cnt = Counter(codes)
    items = [f"{c}×{n}" if n > 1 else c for c, n in sorted(cnt.items(), key=lambda kv: CLASS_INDEX[kv[0]])]
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def off_layout(det: Detections) -> np.ndarray:
    """(N,) bool: the boxes of a calibration photo that are no tile of its rows: a side (long, short)
    outside :data:`ODD_SIZE` × a face tile's at its place (:func:`tile_size_at`), or no face-up box of the usual size
    within :data:`FAR_OFF` tile lengths (a false box on the background, e.g. the detector's
    face-down boxes on a cloth's pattern or at the photo's edge)."""
    n = len(det)
    if n == 0:
        return np.zeros(0, bool)
    sides = np.sort(np.asarray(det.sizes, np.float64), 1)  # (short, long) per box
    if (sides <= 0).any():
        return np.zeros(n, bool)
    face = ~np.asarray(det.face_down, bool)
    c = np.asarray(det.centres, np.float64)
    expected = tile_size_at(sides, c, face)
    ratio = sides / expected
    odd = ((ratio > ODD_SIZE) | (ratio < 1 / ODD_SIZE)).any(1)
    core = face & ~odd
    d = np.hypot(*(c[:, None, :] - c[None, :, :]).transpose(2, 0, 1))
    d[~core[None, :].repeat(n, 0) | np.eye(n, dtype=bool)] = np.inf
    nearest = d.min(1)  # to the nearest other face tile of the usual size (inf: there is none)
    far = np.isfinite(nearest) & (nearest > FAR_OFF * expected[:, 1])
    return odd | far


def tile_size_at(sides: np.ndarray, centres: np.ndarray, face: np.ndarray) -> np.ndarray:
    """(N, 2) float64 pixels: the (short, long) side a face tile has at each box's centre, from the
    boxes' ``sides`` (N, 2) (short, long, > 0) and ``centres`` (N, 2) xy pixels. Log side = a + b·x +
    c·y, least squares over the face tiles (``face`` (N,) bool), refitted without those more than
    :data:`ODD_SIZE` off it (twice); with fewer than :data:`PLANE_MIN` face tiles, a fit that keeps
    fewer, or tiles along one line (:data:`PLANE_SPREAD`), the median face tile's sides everywhere.
    Never raises."""
    logs = np.log(sides)
    base = face if face.any() else np.ones(len(sides), bool)
    med = np.median(logs[base], 0)
    flat = np.broadcast_to(np.exp(med), sides.shape).copy()
    fit = base & (np.abs(logs - med) <= np.log(ODD_SIZE)).all(1)
    if fit.sum() < PLANE_MIN:
        return flat
    scale = float(np.exp(med[1]))  # centres in tile lengths: a well-conditioned design matrix
    spread = centres[fit] / scale
    spread = spread - spread.mean(0)
    if np.linalg.svd(spread, compute_uv=False)[-1] / np.sqrt(len(spread)) < PLANE_SPREAD:
        return flat  # the tiles lie along one line: a plane's slope across it would be noise
    X = np.column_stack([np.ones(len(sides)), centres / scale])
    pred = None
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(X[fit], logs[fit], rcond=None)
        pred = X @ coef
        keep = base & (np.abs(logs - pred) <= np.log(ODD_SIZE)).all(1)
        if keep.sum() < PLANE_MIN:
            return flat
        if (keep == fit).all():
            break
        fit = keep
    return np.exp(pred)


def _count_problem(name: str, found: int, expected: Sequence[str], read: Sequence[str], default: bool,
                   left_out: int = 0) -> str:
    need = Counter(expected)
    seen = Counter(read)
    missing = list((need - seen).elements())
    extra = list((seen - need).elements())
    parts = []
    if missing:
        parts.append(f"not seen: {_names(missing)}")
    if extra:
        parts.append(f"seen more often than the layout has them: {_names(extra)}")
    what = "the default layout (one of each of 1-9m 1-9p 1-9s 1-7z 1-4f 1-4y)" if default else "--tiles"
    hint = ("by the classifier's reading, " + "; ".join(parts)) if parts else "the classifier reads the layout's faces"
    if not found:  # (a tester's blank photo was told "not seen: 1m, 2m, … and 34 more")
        hint = "no tile was found in the photo"
    tiles = (f"{found} face tiles in the layout's rows ({left_out} face-down or stray box(es) off the rows left out)"
             if left_out else f"{found} tiles")
    # (a tester's --tiles of the eight bonus tiles on a photo of all 42 faces was told only to correct it)
    whole = not default and found == len(DEFAULT_LAYOUT) != len(expected)
    return (f"{name}: found {tiles}, {what} needs {len(expected)}: {hint}; lay the tiles apart on a plain "
            f"surface, all in the photo, evenly lit" + ("" if default else ", or correct --tiles")
            + (f" (the photo shows {len(DEFAULT_LAYOUT)} tiles, the default layout's count: if it is the 42 faces in "
               f"order, leave out --tiles)" if whole else ""))


@dataclass(frozen=True)
class PhotoCheck:
    """One calibration photo: ``name``, ``tiles`` (found = layout size), ``model_right`` (tiles the
    classifier alone reads as the layout says) and ``doubtful`` ((position, expected, read) of tiles
    the classifier reads confidently as another face: a layout mistake, or a face it misreads),
    ``dropped`` (unsure detections left out to match the layout's count) and ``left_out`` (boxes that
    are no tile of the layout: off its rows, or face-down while there were more boxes than tiles)."""

    name: str
    tiles: int
    model_right: int
    doubtful: tuple[tuple[int, str, str], ...]
    dropped: int = 0
    left_out: int = 0
    #: (position, expected, read) of the other tiles the classifier reads as another face, less surely
    #: (a new user was told 2 of 7 such tiles, with no way to find the other 5)
    unsure: tuple[tuple[int, str, str], ...] = ()
    #: the layout's faces, in reading order (position k + 1 is ``expected[k]``)
    expected: tuple[str, ...] = ()

    def twice(self) -> list[tuple[int, str, str, int]]:
        """(position a, the layout's face there, the face read surely, position b) for each tile of
        :attr:`doubtful` read as the face the layout has at another position b whose tile is read as that face
        too: a face laid twice, the layout's face at a missing (a tester's 5m laid in the 6m's place was "learned
        as the layout says", nothing said of the 5m twice); none when more than :data:`TWICE_MAX` are (then the
        classifier confuses the set's faces: what calibration is for)."""
        wrong = {a for a, _, _ in self.doubtful + self.unsure}
        out = []
        for a, b, c in self.doubtful:
            j = next((k + 1 for k, e in enumerate(self.expected) if e == c and k + 1 != a and k + 1 not in wrong), None)
            if j is not None:
                out.append((a, b, c, j))
        return out if len(out) <= TWICE_MAX else []


@dataclass(frozen=True)
class Calibration:
    """The result of :func:`calibrate`: the saved ``profile``, its ``path``, per-photo checks, the
    :meth:`Profile.separation` report, ``added`` examples and ``seconds`` taken."""

    profile: Profile
    path: Path
    photos: tuple[PhotoCheck, ...]
    separation: Mapping[str, Any]
    added: int
    seconds: float
    #: tiles of the photos whose crop the profile already held (the same photo given twice): not added
    repeated: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.profile.name, "path": str(self.path), "added": self.added, "repeated": self.repeated,
                "seconds": round(self.seconds, 3), "profile": self.profile.summary(),
                "separation": dict(self.separation),
                "photos": [{"name": p.name, "tiles": p.tiles, "model_right": p.model_right,
                            "doubtful": [{"pos": a, "expected": b, "read": c} for a, b, c in p.doubtful],
                            "unsure": [{"pos": a, "expected": b, "read": c} for a, b, c in p.unsure],
                            "dropped": p.dropped, "left_out": p.left_out,
                            "twice": [{"pos": a, "expected": b, "read": c, "also": j} for a, b, c, j in p.twice()]}
                           for p in self.photos]}


def read_layout(source, expected: Sequence[str], detector, classifier: Classifier, default: bool = False):
    """One calibration photo → (name, crops (N, S, S, 3) uint8 upright in reading order, model
    probabilities (N, 43), embeddings (N, D), :class:`PhotoCheck`).

    The layout shows faces in rows, so boxes off its rows (:func:`off_layout`: an odd size, or far
    from every face tile) are left out first, then, while there are more boxes than the layout has
    tiles, face-down boxes (least sure first; when the count is right a "face-down" box in the rows
    stays, a white dragon the detector took for a back). Then, when the detector finds up to
    :data:`MAX_DROP` tiles more than the layout has, that many boxes
    scoring below :data:`vision.pipeline.DROP_SCORE` that lie over two other boxes at once (at least
    :data:`OVERLAP_DROP` of the box; a box between two tiles) or on a surer box's tile (IoU ≥ 0.4)
    are left out, the least sure first. Raises :class:`~vision.errors.ImageError` for an unreadable
    photo and :class:`CalibrationError` when the tile count differs from the layout's (naming the
    faces the classifier misses or sees twice) or when the tiles do not follow the layout's order.
    """
    from .io import load_photo
    from .pipeline import DROP_SCORE, WORK_SIDE, detect_zoomed

    photo = load_photo(source, work_side=WORK_SIDE)
    det = detect_zoomed(photo.pixels, detector)
    off = off_layout(det)
    left_out = int(off.sum())
    if left_out:
        det = det.take(np.nonzero(~off)[0])
    backs = np.nonzero(np.asarray(det.face_down, bool))[0]
    if len(det) > len(expected) and len(backs):
        back_out = backs[np.argsort(np.asarray(det.scores)[backs], kind="stable")][:len(det) - len(expected)]
        det = det.take(np.setdiff1d(np.arange(len(det)), back_out))
        left_out += len(back_out)
    dropped = 0
    extra = len(det) - len(expected)
    if 0 < extra <= MAX_DROP:  # unsure boxes lying over other tiles (a box between two tiles) go
        b = np.asarray(det.boxes, np.float64)
        w = np.clip(np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]), 0, None)
        h = np.clip(np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]), 0, None)
        inter = w * h
        np.fill_diagonal(inter, 0)
        area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-9)
        share = inter / area[:, None]  # share[i, j]: the part of box i lying over box j
        iou = inter / (area[:, None] + area[None, :] - inter)
        sc = np.asarray(det.scores)
        between = (share.sum(1) >= OVERLAP_DROP) & ((share >= 0.2).sum(1) >= 2)  # over two tiles at once
        double = ((iou >= 0.4) & (sc[None, :] > sc[:, None])).any(1)  # a second box on a surer one's tile
        cand = [i for i in np.argsort(sc, kind="stable") if sc[i] < DROP_SCORE and (between[i] or double[i])]
        if len(cand) >= extra:
            det = det.take(np.setdiff1d(np.arange(len(det)), cand[:extra]))
            dropped = extra
    n = len(det)
    if n != len(expected):
        read = list(classifier(photo.pixels, det).codes) if n else []
        raise CalibrationError(_count_problem(photo.name, n, expected, read, default, left_out))
    order = reading_order(det, photo.size)
    crops = np.stack([crop_tile(photo.pixels, det.boxes[i], classifier.imgsz, classifier.margin, classifier.resize)
                      for i in order])
    probs, emb = classifier.embed(crops)
    want = np.array([CLASS_INDEX[c] for c in expected])
    top5 = np.argsort(-probs, 1)[:, :5]
    in_top5 = float(np.mean((top5 == want[:, None]).any(1)))
    if in_top5 < ORDER_MIN:
        raise CalibrationError(
            f"{photo.name}: the {n} tiles do not seem to follow the layout's order (the classifier finds only "
            f"{in_top5:.0%} of them among its 5 best guesses; rows top to bottom, each left to right"
            + (": 1-9m, 1-9p, 1-9s, East South West North White Green Red, flowers 1-4, seasons 1-4" if default
               else f", as --tiles lists them") + "; a photo turned or upside down is not "
            "turned back here: turn it upright first)")
    top = probs.argmax(1)
    # a tile showing its back where the layout has a face: the layout is a tile off (one missing or extra in
    # --tiles), or a tile lies face down (a tester's --tiles with one 8p too many took the demo's face-down
    # kong tile as 7s, "learned as the layout says", exit 0, the profile's leave-one-out 44 %)
    # (the detector's word alone: a set's blank White the classifier may read as a back, and calibration is
    # what teaches it that face)
    face_down = np.asarray(det.face_down, bool)
    back = next((k for k, i in enumerate(order) if face_down[i]), None)
    if back is not None:
        raise CalibrationError(
            f"{photo.name}: tile {back + 1} lies face down where the layout has {expected[back]} (rows top to "
            f"bottom, each left to right): a calibration photo shows faces only; turn it face up, or check "
            + ("the layout" if default else "--tiles for a tile missing or one too many"))
    doubtful = tuple((k + 1, expected[k], CLASS_NAMES[top[k]]) for k in range(n)
                     if top[k] != want[k] and probs[k, top[k]] >= 0.9)
    others = tuple((k + 1, expected[k], CLASS_NAMES[top[k]]) for k in range(n)
                   if top[k] != want[k] and probs[k, top[k]] < 0.9)
    check = PhotoCheck(photo.name, n, int((top == want).sum()), doubtful, dropped, left_out, others, tuple(expected))
    return photo.name, crops, probs, emb, check


def calibrate(photos: Sequence, name: str, tiles: Sequence[str | None] | None = None, *, replace_existing: bool = False,
              detector=None, classifier: Classifier | None = None,
              directory: str | os.PathLike | None = None) -> Calibration:
    """Make (or add to) profile ``name`` from calibration photos and save it.

    ``tiles``: per photo, its layout in notation (None: :data:`DEFAULT_LAYOUT`); ``None`` for all
    photos; a list of one applies to every photo. Nothing is saved unless every photo passes.
    Raises :class:`TilesetError` (bad name, a profile made with another classifier), CalibrationError
    (a photo that does not show its layout, ``tiles`` not matching the photos), ImageError,
    ModelError (no models, no ``embedding`` output).
    """
    from .classify import load_classifier
    from .detect import load_detector

    t0 = time.perf_counter()
    check_name(name)
    if not photos:
        raise CalibrationError("give at least one calibration photo")
    tiles = list(tiles) if tiles else [None] * len(photos)
    if len(tiles) == 1 and len(photos) > 1:
        tiles = tiles * len(photos)
    if len(tiles) != len(photos):
        raise CalibrationError(f"{len(tiles)} --tiles for {len(photos)} photo{'' if len(photos) == 1 else 's'}: "
                               f"give --tiles once per photo, "
                               f"in the same order, or once for all")
    layouts = [layout_codes(t) for t in tiles]
    for t, lay in zip(tiles, layouts):
        if BACK in lay:
            raise CalibrationError(f"--tiles {t!r}: a calibration layout shows faces, not face-down tiles (0x)")
    classifier = replace(classifier or load_classifier(glyphs=False), tileset=None)
    fp = fingerprint(classifier)  # ModelError without the embedding output, before the detector runs
    detector = detector or load_detector()
    path = profile_path(name, directory)
    if path.is_file() and not replace_existing:
        check_geometry(load_profile(name, directory), fp)  # a profile that cannot be used: said before the photos are read
    checks, parts = [], []
    for src, lay, t in zip(photos, layouts, tiles):
        pname, crops, _probs, emb, check = read_layout(src, lay, detector, classifier, default=t is None)
        checks.append(check)
        parts.append((lay, emb, crops, {"photo": pname, "layout": t or "default"}))
    with profile_lock(name, directory):  # read again under the lock: what another run added meanwhile stays
        if path.is_file() and not replace_existing:
            prof = fit_to(load_profile(name, directory), classifier)
        else:
            prof = new_profile(name, classifier)
        added = repeated = 0
        # a tile whose crop the profile holds already (the same photo twice, in one call or two) is not
        # added again: identical examples would only inflate the leave-one-out accuracy
        held = {hashlib.sha1(c.tobytes()).digest() for c in prof.crops}
        for lay, emb, crops, rec in parts:
            keys = [hashlib.sha1(c.tobytes()).digest() for c in crops]
            new = [k for k in range(len(lay)) if keys[k] not in held]
            held.update(keys)
            repeated += len(lay) - len(new)
            if new:
                prof = prof.add([lay[k] for k in new], emb[new], crops[new], "calibrate", rec)
                added += len(new)
        if not added:
            raise CalibrationError("every tile of the photo(s) is in the tile set already (the same photo "
                                   "again?): nothing to add")
        prof = with_views(prof, classifier)
        saved = save_profile(prof, directory)
    return Calibration(prof, saved, tuple(checks), prof.separation(), added, time.perf_counter() - t0, repeated)


def learn(profile: Profile, classifier: Classifier, image: np.ndarray, det: Detections, order: Sequence[int],
          fixes: Mapping[int, str], notes: list[str] | None = None, added: Collection[int] = ()
          ) -> tuple[Profile, int]:
    """Add the corrected tiles of one photo to ``profile`` (not saved): for each fix ``pos → code``
    (1-based positions in ``order``; face-down ``0x`` fixes and boxes left out (``-``) are skipped, and so are the tiles the user
    added, ``added`` detection indices: their boxes are placed by the reader, not seen, and would teach
    the profile whatever lies under them; ``notes`` names them) the tile's crop, turned the
    way the classifier finds ``code`` most probable when it reads turns, and its embedding. A crop
    the profile already holds is not added again; a tile the classifier reads as another face at
    ≥ :data:`LEARN_DOUBT` (and as ``code`` under 1 − that, every turn) is learned but named in
    ``notes`` (a mistyped position teaches the profile a wrong face).
    Returns (new profile, examples added). Raises TileNumberError (a HandError) for a position outside
    the tiles."""
    classifier = replace(classifier, tileset=None)
    prof = fit_to(profile, classifier)
    items = [(pos, code) for pos, code in sorted(fixes.items()) if code not in (BACK, DROP)]
    if not items:
        return prof, 0
    crops, codes = [], []
    for pos, code in items:
        if not 1 <= pos <= len(order):
            raise TileNumberError(f"--fix: there is no tile {pos} (tiles are numbered 1 to {len(order)})")
        if order[pos - 1] in added:
            if notes is not None:
                notes.append(f"tile {pos} ({code}) was added with --add: not learned (its box is placed by the "
                             f"reader, not a tile seen in the photo)")
            continue
        c = crop_tile(image, det.boxes[order[pos - 1]], classifier.imgsz, classifier.margin, classifier.resize)
        turns = [c] if classifier.rotation == "invariant" else [np.ascontiguousarray(np.rot90(c, k)) for k in range(4)]
        p = classifier.run(np.stack(turns))
        crop = turns[int(p[:, CLASS_INDEX[code]].argmax())]
        if any(np.array_equal(crop, c) for c in prof.crops) or any(np.array_equal(crop, c) for c in crops):
            if notes is not None:
                notes.append(f"tile {pos} ({code}) is already in the tile set: not added again")
            continue
        best = np.unravel_index(int(p.argmax()), p.shape)
        if notes is not None and p[best] >= LEARN_DOUBT and CLASS_NAMES[best[1]] != code \
                and p[:, CLASS_INDEX[code]].max() < 1 - LEARN_DOUBT:
            notes.append(f"tile {pos}: learned as {code}, but the classifier reads it as {CLASS_NAMES[best[1]]} at "
                         f"{p[best]:.0%}; if the position was wrong, only `calibrate ... --replace` removes it")
        crops.append(crop)
        codes.append(code)
    if not crops:
        return prof, 0
    crops_a = np.stack(crops)
    emb = classifier.embed(crops_a)[1]
    prof = prof.add(codes, emb, crops_a, "fix", {"positions": [p for p, _ in items]})
    return with_views(prof, classifier), len(codes)


def reader_spec(spec: str, name: str | None) -> str:
    """The ``batch``/``audit``/``webcam`` reader spec (:func:`vision.batch.resolve_reader`) reading
    with profile ``name`` (``spec#tileset=NAME``); ``spec`` itself when ``name`` is None. Raises
    TilesetError when the profile does not exist or cannot be read."""
    if not name:
        return spec
    load_profile(name)
    return f"{spec}{TILESET_TAG}{name}"


#: said instead of learning when the reading with the user's fixes is not a legal hand (``photo --learn``,
#: the web's ``learn``): a tester's mistyped ``--fix 2=5m`` broke the demo's hand, exit 2, and was learned
#: all the same, for good (only ``calibrate --replace`` removes an example)
NOT_LEARNED = ("nothing learned: the reading with these fixes is not a legal hand; check them (a wrong fix would "
               "teach the tile set a wrong face): they are learned once the hand is legal")


def learn_from_result(name: str, res, fixes: Mapping[int, str], log=None) -> tuple[Profile, int]:
    """Add the tiles corrected by ``fixes`` in a :class:`vision.pipeline.PhotoResult` to profile
    ``name`` and save it (:func:`learn`); one line to ``log`` (default: stderr). Raises
    TilesetError / ModelError / HandError."""
    import sys

    from .classify import load_classifier

    notes: list[str] = []
    with profile_lock(name):  # loaded, taught and saved under the lock: another run's tiles are kept
        prof, n = learn(load_profile(name), load_classifier(glyphs=False), res.photo.pixels, res.detections,
                        res.order, fixes, notes, getattr(res, "added", ()))
        if n:
            save_profile(prof)
    done = ", ".join(f"{k}={v}" for k, v in sorted(fixes.items()) if v not in (BACK, DROP))
    line = (f"tile set {name!r}: learned {n} tile(s) ({done}); now {len(prof.codes)} examples" if n
            else f"tile set {name!r}: nothing new to learn" if notes
            else f"tile set {name!r}: nothing to learn (face-down fixes and boxes left out are not faces)")
    say = log or (lambda m: print(m, file=sys.stderr))
    say(line)
    for note in notes:
        say(f"tile set {name!r}: {note}")
    return prof, n


def classifier_for(name: str | None, classifier: Classifier | None = None) -> Classifier | None:
    """The default classifier with profile ``name`` (None when ``name`` is None and no classifier is
    given). Raises TilesetError / ModelError."""
    if name is None:
        return classifier
    from .classify import load_classifier

    return with_tileset(classifier or load_classifier(), name)
