"""Calibrated tile sets in the web app (:mod:`vision.tileset`): the menu, calibration from an
uploaded photo, reading with a set, and learning from the page's tile fixes.

Routes (added to the app by :func:`add_routes`)::

    GET  /api/tilesets     the calibrated tile sets (name, faces covered, examples, dates) and the default
    POST /api/tilesets     multipart: a calibration photo + name (+ tiles, replace) → the profile's report

``POST /api/score`` takes ``tileset`` (read with that set) and ``learn`` (add the fixed tiles to it;
each fix of a photo is learned once). Profiles are stored in ``$MAHJONG_TILESETS`` or
``DATA_DIR/tilesets`` — inside the server's data dir, the only folder it writes to.
"""
from __future__ import annotations

import inspect
import os
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Optional

from fastapi import File, Form, Request, UploadFile

from vision.errors import CalibrationError, ImageError, ModelError, NoTilesError, TilesetError, VisionError

NAME_MAX = 64
TILES_MAX = 400


def tilesets_dir_for(data_dir: Path) -> Path:
    """``$MAHJONG_TILESETS`` if set, else ``data_dir/tilesets``."""
    env = os.environ.get("MAHJONG_TILESETS")
    return Path(env) if env else Path(data_dir) / "tilesets"


class Tilesets:
    """The server's tile sets: classifiers with a profile (cached per profile file version) and
    learning from fixes (one at a time). ``classifier``: the app's classifier (a
    :class:`vision.classify.Classifier` for tile sets to work); ``default``: the set the page selects
    first (``serve --tileset``)."""

    def __init__(self, directory: Path, classifier: Any, default: Optional[str] = None):
        self.directory = Path(directory)
        self.base = classifier
        self.default = default
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[tuple[int, int], Any]] = {}

    def _error(self, e: Exception):
        from .errors import ApiError

        if isinstance(e, ModelError):
            return ApiError(503, f"tile sets are unavailable: {e}")
        return ApiError(422, self._for_page(str(e)))

    def _for_page(self, msg: str) -> str:
        """A vision message in the page's words: the form's fields, not the command line's flags; no
        server folder (the calibrate answer hides it too); the uploaded photo, not ``<bytes>``."""
        msg = msg.replace(f" in {self.directory}", "").replace(f"{self.directory}{os.sep}", "")
        msg = msg.replace(str(self.directory), "the server's tile sets")
        msg = msg.replace("`mahjong-score calibrate PHOTO --name NAME`", "the calibration form")
        msg = re.sub(r"`mahjong-score tilesets --remove ([^`]+)`", r"`mahjong-score tilesets --remove \1` on the server", msg)
        if msg.startswith("<bytes>: "):
            msg = "the photo: " + msg[len("<bytes>: "):]
        return msg.replace("--tiles ", "tiles ").replace("--replace", "'Start the tile set over'")

    def _check_base(self):
        from vision.classify import Classifier

        from .errors import ApiError

        if not isinstance(self.base, Classifier):
            raise ApiError(503, "tile sets need the ONNX classifier of models/, which this server has not loaded")

    def classifier(self, name: Optional[str]):
        """The app's classifier reading with profile ``name`` (None: the app's own). ApiError 422 for an
        unknown or unusable profile, 503 when the classifier has no ``embedding`` output."""
        if not name:
            return self.base
        self._check_base()
        from vision.tileset import profile_path, with_tileset

        try:
            path = profile_path(name, self.directory)
            st = path.stat() if path.is_file() else None
            key = (st.st_mtime_ns, st.st_size) if st else (0, 0)
            with self._lock:
                hit = self._cache.get(name)
                if hit is not None and hit[0] == key:
                    return hit[1]
            clf = with_tileset(self.base, name, self.directory)
            with self._lock:
                self._cache[name] = (key, clf)
            return clf
        except (TilesetError, ModelError) as e:
            raise self._error(e) from None

    def learn(self, name: str, photo, detections, order, fixes: Mapping[int, str],
              already: frozenset, added: Collection[int] = ()) -> tuple[int, frozenset]:
        """Add the fixes not in ``already`` ((pos, code) pairs) to profile ``name`` and save it, not
        those of tiles the user added (``added`` detection indices: no box seen in the photo);
        returns (tiles added, the pairs learned from this photo so far)."""
        self._check_base()
        from vision.tileset import learn, load_profile, profile_lock, save_profile

        new = {p: c for p, c in fixes.items() if (p, c) not in already}
        if not new:
            return 0, already
        try:
            with profile_lock(name, self.directory):  # one at a time, with other requests and processes
                prof, n = learn(load_profile(name, self.directory), self.base, photo.pixels, detections, order, new,
                                added=added)
                if n:
                    save_profile(prof, self.directory)
            with self._lock:  # (held only for the cache: the other tile sets' requests never wait on a save)
                self._cache.pop(name, None)
        except (TilesetError, ModelError) as e:
            raise self._error(e) from None
        return n, already | frozenset(new.items())

    def listing(self) -> dict[str, Any]:
        from vision.tileset import scan_profiles

        good, bad = scan_profiles(self.directory)
        return {"tilesets": [p.summary() for p in good], "default": self.default,
                "unreadable": [{"name": n, "error": self._for_page(m)} for n, m in bad]}

    def calibrate(self, detector, data: bytes, name: str, tiles: Optional[str], replace_existing: bool) -> dict[str, Any]:
        self._check_base()
        from vision.tileset import calibrate

        try:
            cal = calibrate([data], name, [tiles] if tiles else None, replace_existing=replace_existing,
                            detector=detector, classifier=self.base, directory=self.directory)
        except (TilesetError, CalibrationError, ModelError) as e:
            raise self._error(e) from None
        with self._lock:
            self._cache.pop(name, None)
        out = cal.to_json()
        out.pop("path", None)  # the server's folders are not the client's business
        return out


def add_routes(app, tilesets: Tilesets, run: Callable, detector, check_image: Callable, max_bytes: int) -> None:
    """``GET``/``POST /api/tilesets`` on ``app``; ``run``: the app's worker-pool runner."""
    from . import schemas as S
    from .errors import ApiError, refuse_unknown_fields

    @app.get("/api/tilesets", response_model=S.TilesetsResponse, summary="The calibrated tile sets")
    async def api_tilesets():
        return await run(tilesets.listing)

    @app.post("/api/tilesets", response_model=S.CalibrationOut, summary="Calibrate a tile set from a photo",
              responses={413: {"model": S.ErrorOut}, 415: {"model": S.ErrorOut}, 503: {"model": S.ErrorOut}})
    async def api_calibrate(
        image: UploadFile = File(..., description="a photo of the tiles in reading order (default: one of each of the 42 faces)"),
        name: str = Form(..., max_length=NAME_MAX, description="the profile's name (letters, digits, . _ -)"),
        tiles: str = Form("", max_length=TILES_MAX, description='the layout in notation, e.g. "123m456p +1f2f" (default: 42 faces)'),
        replace: bool = Form(False, description="start the profile over instead of adding to it"),
        request: Request = None,
    ):
        """Make or extend the tile set ``name`` from the photo (``mahjong-score calibrate``); 422 with
        the missing or duplicated faces when the photo does not show the layout, or naming a field it
        does not take (as ``/api/score``: a tester's extra field had been dropped without a word)."""
        refuse_unknown_fields([k for k, _ in (await request.form()).multi_items()], calibrate_fields)
        if detector is None or tilesets.base is None:
            raise ApiError(503, f"photo reading is unavailable: {app.state.models_error}")
        data = await image.read(max_bytes + 1)
        check_image(data, max_bytes)
        try:
            return await run(tilesets.calibrate, detector, data, name, tiles.strip() or None, replace)
        except NoTilesError as e:
            raise ApiError(422, str(e)) from None
        except ImageError as e:
            raise ApiError(413 if "too large" in str(e) or "of memory" in str(e) else 400, str(e)) from None
        except VisionError as e:
            raise ApiError(422, str(e)) from None

    #: the form fields of ``POST /api/tilesets``, from its parameters (any other field is refused)
    calibrate_fields = frozenset(inspect.signature(api_calibrate).parameters) - {"request"}


def reread(tilesets: Tilesets, item, name: Optional[str]):
    """A cached photo read again with tile set ``name`` (only the classifier runs): the new item."""
    clf = tilesets.classifier(name)
    return replace(item, readings=clf(item.photo.pixels, item.detections), tileset=name or None, learned=frozenset())
