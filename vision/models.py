"""ONNX model files: locating them, opening onnxruntime sessions, reading their metadata.

Everything a model needs at run time (input size, class names, crop margin, rotation mode) is read
from the ONNX ``metadata_props`` written at export (``models/CONTRACT.md``); nothing is
hard-coded here. Models are looked up in ``$MAHJONG_MODELS`` or the repository's ``models/``.

Threads: sessions run with :data:`THREADS` intra-op threads (``$MAHJONG_THREADS`` overrides it);
the measurements behind the choice are in its comment.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .errors import ModelError

REPO = Path(__file__).resolve().parents[1]
DETECTOR_FILE = "detector.onnx"
CLASSIFIER_FILE = "classifier.onnx"

#: intra-op threads per onnxruntime session. Measured on this 2-core machine with model training
#: running beside it (median of 20 warm runs, 12 MP demo photo decoded at 2000 × 1500; YOLOv8n
#: detector, the architecture of models/ (measured at 416 px; the committed one is 384), 64-px
#: tile classifier, 16 crops in one batch):
#:
#:   ============================  ===========  =============
#:   stage                         1 thread     2 threads
#:   ============================  ===========  =============
#:   detector model (416 px)       38 ms        81–126 ms
#:   detect() incl. letterbox/NMS  49–62 ms     106–162 ms
#:   classify 16 tiles             18–28 ms     28–50 ms
#:   ============================  ===========  =============
#:
#: On an idle machine 2 threads are ~1.5× faster for the detector (TRAINING-NOTES.md: 50 vs 32 ms at
#: 416 px), but a second thread only helps when a core is free; on a shared or busy machine (CI, a
#: server scoring several photos, training beside it) it is 2–3× slower. One thread is the default;
#: ``$MAHJONG_THREADS=2`` for a dedicated machine.
THREADS = 1


def content_key(a: np.ndarray) -> tuple:
    """The key of an array's content for a model's memo (:class:`vision.detect.MemoisedDetector`,
    :meth:`vision.classify.Classifier.memoised`, :meth:`vision.glyphs.GlyphReader.memoised`): its shape, its
    dtype and the SHA-1 of its bytes (C order; about 4 ms for a 1600 × 1200 RGB photo here, against some
    100 ms for a detector pass). Two arrays share a key only when their pixels are the same. Raises nothing."""
    a = np.ascontiguousarray(a)
    return a.shape, a.dtype.str, hashlib.sha1(a.data, usedforsecurity=False).digest()


def through_memo(memo: dict, keys: list, run) -> list:
    """The values of ``keys`` in ``memo``; the keys missing are computed once each by ``run(indices)`` (the
    index of each missing key's first place in ``keys``; one value per index, in order) and stored. The memo
    of :meth:`vision.classify.Classifier.memoised` and :meth:`vision.glyphs.GlyphReader.memoised`."""
    todo: dict = {}
    for i, k in enumerate(keys):
        if k not in memo and k not in todo:
            todo[k] = i
    if todo:
        for k, v in zip(todo, run(list(todo.values()))):
            memo[k] = v
    return [memo[k] for k in keys]


def models_dir() -> Path:
    """``$MAHJONG_MODELS`` if set, else ``models/`` in the repository."""
    env = os.environ.get("MAHJONG_MODELS")
    return Path(env) if env else REPO / "models"


def model_path(filename: str) -> Path:
    """Path of a model file in :func:`models_dir`; :class:`ModelError` when it is not there."""
    p = models_dir() / filename
    if not p.is_file():
        raise ModelError(
            f"model {p} not found: the photo pipeline needs models/{DETECTOR_FILE} and "
            f"models/{CLASSIFIER_FILE} (train them with `python -m datasets.train`)")
    return p


def models_present() -> bool:
    """True when both model files exist."""
    d = models_dir()
    return (d / DETECTOR_FILE).is_file() and (d / CLASSIFIER_FILE).is_file()


def thread_count() -> int:
    """Intra-op threads for new sessions: ``$MAHJONG_THREADS`` or :data:`THREADS`."""
    env = os.environ.get("MAHJONG_THREADS")
    if env:
        try:
            n = int(env)
        except ValueError:
            raise ModelError(f"MAHJONG_THREADS must be an integer, not {env!r}") from None
        return max(1, n)
    return THREADS


@dataclass(frozen=True)
class Model:
    """An open onnxruntime session with its metadata.

    ``session``: :class:`onnxruntime.InferenceSession`; ``input_name``; ``meta``: metadata_props as
    str → str; ``path``.
    """

    session: Any
    input_name: str
    meta: Mapping[str, str]
    path: Path

    def get(self, key: str, default: Any = None) -> Any:
        """A metadata value parsed as a Python/JSON literal when possible, else the raw string."""
        raw = self.meta.get(key)
        if raw is None:
            return default
        return parse_literal(raw)


def parse_literal(raw: str) -> Any:
    """Metadata strings as values: JSON, then Python literal (ultralytics writes ``{0: 'tile'}``)."""
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return raw


def names_list(value: Any, what: str) -> list[str]:
    """Class names from metadata (a dict index → name, or a list) as a list in index order."""
    if isinstance(value, Mapping):
        try:
            return [str(value[k]) for k in sorted(value, key=int)]
        except (TypeError, ValueError):
            pass
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    raise ModelError(f"{what}: metadata 'names' is missing or malformed ({value!r})")


def imgsz_of(model: Model) -> int:
    """The square input side from metadata ``imgsz`` (``640`` or ``[640, 640]``), else the graph."""
    v = model.get("imgsz")
    if isinstance(v, (list, tuple)) and v:
        return int(v[0])
    if isinstance(v, (int, float)):
        return int(v)
    shape = model.session.get_inputs()[0].shape
    if isinstance(shape[-1], int):
        return int(shape[-1])
    raise ModelError(f"{model.path.name}: no input size in metadata 'imgsz' nor in the graph")


@lru_cache(maxsize=8)
def open_model(path: str, threads: int) -> Model:
    """Open ``path`` with onnxruntime on the CPU with ``threads`` intra-op threads (cached).

    Raises :class:`ModelError` when onnxruntime cannot load the file.
    """
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    try:
        sess = ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])
    except Exception as e:
        raise ModelError(f"{path}: onnxruntime cannot load the model ({str(e).splitlines()[0]})") from None
    meta = dict(sess.get_modelmeta().custom_metadata_map)
    return Model(sess, sess.get_inputs()[0].name, meta, Path(path))
