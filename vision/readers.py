"""Photo readers for batch, audit, webcam and table (``--reader`` specs): the default one over the ONNX
models, ``MODULE:FUNCTION`` / ``FILE.py:FUNCTION`` factories, ``#tileset=NAME``, and the identity
that goes into a batch's parameter hash. Re-exported by :mod:`vision.batch`.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Callable

from .tileset import TILESET_TAG  # noqa: F401  (a reader spec's profile suffix; re-exported)


#: the reader used unless ``--reader`` names another: the ONNX models in models/
DEFAULT_READER = "vision.batch:model_reader"



class FatalError(Exception):
    """A failure that stops the whole batch (the reader/models cannot be loaded)."""


Reader = Callable[..., Any]


def model_reader(tileset: str | None = None) -> Reader:
    """The default reader: the ONNX detector and classifier of ``models/`` loaded once (with the
    calibrated profile ``tileset``, :mod:`vision.tileset`);
    ``reader(path, ruleset, context, **kw)`` → :class:`vision.pipeline.PhotoResult`.
    Raises :class:`vision.errors.ModelError` when a model is missing, TilesetError for a bad profile."""
    from .classify import load_classifier
    from .detect import load_detector
    from .pipeline import read_photo
    from .tileset import with_tileset

    det, cls = load_detector(), with_tileset(load_classifier(), tileset)

    def read(path, ruleset, context, **kw):
        return read_photo(path, ruleset, context, detector=det, classifier=cls, **kw)

    return read


def resolve_reader(spec: str) -> Callable[[], Reader]:
    """The reader factory named by ``spec``: ``module:function`` or ``path/to/file.py:function``,
    optionally followed by ``#tileset=NAME`` (:func:`vision.tileset.reader_spec`: the factory is then
    called with ``tileset=NAME``). Raises FatalError when it cannot be found."""
    spec, _, tileset = spec.partition(TILESET_TAG)
    if tileset:
        factory = resolve_reader(spec)
        return lambda: factory(tileset=tileset)
    mod_name, _, fn = spec.rpartition(":")
    if not mod_name or not fn:
        raise FatalError(f"--reader {spec!r} must be MODULE:FUNCTION or FILE.py:FUNCTION")
    try:
        if mod_name.endswith(".py"):
            p = Path(mod_name).resolve()
            name = "_mahjong_reader_" + hashlib.sha1(str(p).encode()).hexdigest()[:12]
            mod = sys.modules.get(name)
            if mod is None:
                s = importlib.util.spec_from_file_location(name, p)
                if s is None or s.loader is None:
                    raise ImportError(f"cannot load {p}")
                mod = importlib.util.module_from_spec(s)
                sys.modules[name] = mod
                s.loader.exec_module(mod)
        else:
            mod = importlib.import_module(mod_name)
        return getattr(mod, fn)
    except (ImportError, AttributeError, OSError) as e:
        raise FatalError(f"--reader {spec!r}: {e}") from None


def reader_identity(spec: str) -> str:
    """What identifies the reader in the parameter hash: for the default reader the SHA-256 of
    the model files, the second detector's (:func:`vision.detect.second_model_path`) among them (new models →
    photos are read again), else the spec itself."""
    base, _, tileset = spec.partition(TILESET_TAG)
    if tileset:  # the profile's contents too: a profile calibrated again → photos are read again
        from .errors import VisionError
        from .tileset import profile_path

        try:
            return f"{reader_identity(base)}{TILESET_TAG}{tileset}:{_sha256_file(profile_path(tileset))[:16]}"
        except (OSError, VisionError) as e:
            raise FatalError(str(e).splitlines()[0]) from None
    if spec != DEFAULT_READER:
        return spec
    from .detect import second_model_path
    from .models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

    h = hashlib.sha256()
    # (the second detector's too, the model of the mahjong-detector package: another version → read again)
    for p in (models_dir() / DETECTOR_FILE, models_dir() / CLASSIFIER_FILE, second_model_path()):
        try:
            h.update(bytes.fromhex(_sha256_file(p)) if p is not None else b"missing")
        except OSError:
            h.update(b"missing")
    return "models:" + h.hexdigest()[:16]


def _sha256_file(path: str | os.PathLike) -> str:
    from scoring.history import sha256_file

    return sha256_file(path)
