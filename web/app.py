"""The FastAPI application behind ``mahjong-score serve``: the phone page and the JSON API.

Routes (``docs/web.md``; OpenAPI schema at ``/api/openapi.json``)::

    GET  /                 the page (web/static/index.html; plain HTML/CSS/JS, nothing fetched elsewhere)
    GET  /api/rulesets     rulesets, their options and flags, the 43 tile faces, limits, model status
    POST /api/score        multipart: a photo (or the photo_id of an earlier one) + context + fixes → reading and score
    POST /api/hand         JSON: a hand in notation + context → score
    POST /api/settle       JSON: four players' scores or hands → who pays whom (scoring.settle.settle)

Limits and safety (:class:`Settings`):

* the request body is capped at ``max_upload_bytes`` (+64 KiB for the form fields) before any parsing:
  a larger ``Content-Length`` or a longer stream → 413;
* the upload is checked by its content (magic bytes, then Pillow's header parse and ``verify``), never
  by its file name or declared type: not an image → 415, corrupt → 400, too many pixels → 413;
* uploads are parsed and decoded in memory (Starlette's spool threshold is raised to the upload limit)
  and nothing is written to disk by a request; ``serve`` also points the process's temporary
  directory into the data dir, so a library's temporary file cannot land elsewhere;
* photos are read in their own pool of ``workers`` threads; notation, settlement and ruleset requests
  have a pool of their own, so they never queue behind photos (:class:`PhotoGate`). At most
  ``workers + photo_queue`` photos are in the server at once (waiting or being read, abandoned ones
  included); one more is answered 503 with a ``Retry-After`` header;
* a request waiting longer than ``timeout_s`` gets 504 and its work is abandoned: a photo still
  waiting is cancelled, one being read stops before its next model run (detector, zoomed detector,
  classifier); decoding is bounded by :data:`vision.io.MAX_DECODE_BYTES` (a budget all decodes share);
* every error is one line of JSON ``{"error": "..."}``: 400 malformed request, 404 unknown photo_id
  or path, 413 too large, 415 not an image, 422 invalid content (notation, options, fixes, context,
  no tiles found), 503 photo reading unavailable (models missing) or busy (``Retry-After``), 504 timeout;
* the models are loaded once, when the app is created.

Photos stay in memory (the last ``photo_cache`` of them, at most ``photo_cache_bytes`` in all: their
pixels at the reduced working scale of :data:`vision.pipeline.WORK_SIDE`, detections and classifier
readings) under a random ``photo_id``, so a fix or a context change re-runs only the model-free half of the
pipeline (:func:`vision.pipeline.read_detections`) without uploading the photo again.
"""
from __future__ import annotations

import asyncio
import base64
import inspect
import io
import json
import os
import re
import secrets
import threading
import time
import warnings
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import cv2
from fastapi import Depends, FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from PIL import Image, UnidentifiedImageError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartParser

from scoring import HandError, RulesetError, ScoredHand, available, explain, load_ruleset, parse_hand, score_hand
from scoring.engine import check_context_flags, keyed_options, same_text, with_no_winning_tile_note
from scoring.hand import MAX_DEALER_STREAK, MAX_DISCARDS, WIN_BY, Context, winning_tile_missing
from scoring.session import SessionState
from scoring.settle import (dealer_streak_of, liable_problem, over_the_set_text, players_for_seats, refused_win_text,
                            robbed_kong_problem,
                            keyed_settle_options, scores_void_hands, settle, settle_option_given_for_scoring, table_options,
                            read_void_hand, tiles_over_the_set, with_cash,
                            with_win_by)
from vision.classes import CLASS_NAMES, ENGLISH_NAMES
from vision.decode import REVIEW_BELOW  # (vision.batch.REVIEW_BELOW: batch's needs-review)
from vision.errors import ImageError, ModelError, NoTilesError, VisionError
from vision.io import MAX_PIXELS, READ_FORMATS, damage_words, limit_heap_growth, release_memory, sniff
from vision.record import scored_without_winning_tile
from vision.pipeline import (WORK_SIDE, least_sure_tile, loose_bonus_boxes, parse_additions, parse_fixes,
                             read_detections, read_photo, to_json, with_frame, won_hint)
from vision.tileset import NOT_LEARNED

from . import schemas as S
from .errors import ApiError, BusyError, joined_field, refuse_repeated_keys, refuse_unknown_fields  # noqa: F401  (web.errors; re-exported: web.app.ApiError)

STATIC = Path(__file__).resolve().parent / "static"
#: fields of POST /api/score that may be sent more than once, their values joined by commas as the
#: command line joins a repeated --fix/--add/--flag: the field → its greatest length in all
JOINED_FIELDS = {"fixes": 400, "adds": 400, "flags": 400}
MIB = 1024 * 1024
#: room in the request body for the form fields besides the image
FORM_OVERHEAD = 64 * 1024

def default_data_dir() -> Path:
    """The per-user data dir of the app (``platformdirs.user_data_dir("mahjong-score")``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("mahjong-score", appauthor=False))


@dataclass(frozen=True)
class Settings:
    """The app's limits.

    * ``data_dir``: the only place the server may write (see :mod:`web.server`);
    * ``max_upload_bytes``: largest photo accepted (bytes; default 20 MiB);
    * ``timeout_s``: longest a request waits for scoring (seconds);
    * ``photo_cache``: photos kept in memory for re-scoring by ``photo_id``;
    * ``photo_cache_bytes``: most bytes the kept photos' pixels may take (bytes; default 256 MiB);
    * ``workers``: photo-reading threads (notation and settlement have a pool of their own);
    * ``photo_queue``: photos that may wait for a worker; beyond that a photo gets 503;
    * ``annotated_side``: long side of the annotated image sent back (pixels);
    * ``tileset``: the calibrated tile set the page selects first (``serve --tileset``; web/tilesets.py).
    """

    data_dir: Path = field(default_factory=default_data_dir)
    max_upload_bytes: int = 20 * MIB
    timeout_s: float = 30.0
    photo_cache: int = 8
    workers: int = 2
    photo_cache_bytes: int = 256 * MIB
    photo_queue: int = 4
    annotated_side: int = 1280
    tileset: Optional[str] = None


def one_line(msg: object) -> str:
    """``msg`` as one line (whitespace runs, newlines included, become one space)."""
    return " ".join(str(msg).split()) or "error"


def error_response(status: int, message: object, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": one_line(message)}, status_code=status, headers=headers)


# ----------------------------------------------------------------------------- image checks
def check_image(data: bytes, max_bytes: int) -> tuple[str, int, int]:
    """Check an upload by its content: ``(format, width, height)``.

    Raises :class:`ApiError` 413 (over ``max_bytes`` or over :data:`vision.io.MAX_PIXELS`), 415 (not
    an image format we read), 400 (empty, or an image whose header or data is corrupt or cut short,
    said as :func:`vision.io.damage_words` says it).
    """
    if not data:
        raise ApiError(400, "the uploaded image is empty (0 bytes)")
    if len(data) > max_bytes:
        raise ApiError(413, f"the photo is {len(data) / MIB:.1f} MB; the limit is {max_bytes / MIB:g} MB")
    fmt = sniff(data[:18])
    if fmt is None:
        raise ApiError(415, f"the upload is not an image this server reads ({READ_FORMATS}); it is checked by its "
                            f"content, not its name")
    opened = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            im = Image.open(io.BytesIO(data))
            opened = True
            w, h = im.size
            if w * h > MAX_PIXELS:
                raise ApiError(413, f"the photo has {w}×{h} = {w * h:,} pixels; the limit is {MAX_PIXELS:,}")
            im.verify()
    except ApiError:
        raise
    except Image.DecompressionBombError:
        raise ApiError(413, f"the photo has more than {MAX_PIXELS:,} pixels") from None
    except UnidentifiedImageError:  # (it starts like an image: damaged, a 400, not a format we do not read)
        said = damage_words(fmt, data[:16], data[-16:], len(data), "", True, "upload the photo again")
        raise ApiError(400, f"the {fmt} image: {said}" if said else
                       f"the upload starts like a {fmt} image but is not one that can be opened (the file is "
                       f"damaged or cut short; upload the photo again)") from None
    except Exception as e:  # noqa: BLE001 - corrupt data raises assorted errors inside plugins
        detail = " ".join(str(e).split())
        said = damage_words(fmt, data[:16], data[-16:], len(data), detail, not opened, "upload the photo again")
        if said is not None:  # as vision.io says it
            raise ApiError(400, f"the {fmt} image: {said}") from None
        raise ApiError(400, f"the {fmt} image is corrupt" + (f" ({detail})" if detail else "")) from None
    return fmt, w, h


def parse_turn(value: str | None) -> int | None:
    """The ``turn`` form field: None (blank), or 0, 90, 180 or 270 degrees clockwise. Raises :class:`ApiError` 422
    for anything else."""
    v = (value or "").strip()
    if not v:
        return None
    if v not in ("0", "90", "180", "270"):
        raise ApiError(422, f"turn {v!r}: it is 0, 90, 180 or 270 (degrees clockwise; 0 reads the photo as it is "
                            f"stored)")
    return int(v)


# ----------------------------------------------------------------------------- JSON forms
#: the explanation's lines (:func:`scoring.engine.explain`) of rules earned that do not count, shown on the page
SET_ASIDE = ("  not added: ", "  outranked: ", "  also made: ", "  not counted: ")


def score_out(scored: ScoredHand) -> dict[str, Any]:
    """:class:`ScoredHand` → :class:`web.schemas.ScoreOut` fields (adds each line's amount as the CLI
    prints it, the total's formula and the full text explanation)."""
    rs = load_ruleset(scored.ruleset)
    j = scored.to_json()
    text = explain(scored)
    summary = next((ln for ln in text.splitlines() if ln.startswith("total:")), f"total: {scored.total}")
    return {
        "ruleset": rs.id, "ruleset_name": rs.name, "hand": j["hand"], "winner": j["winner"],
        "total": scored.total, "points": scored.points, "doublings": scored.doublings, "cash": scored.cash,
        "allowed": scored.allowed, "status": scored.status, "limit_applied": scored.limit_applied,
        "no_winning_tile": winning_tile_missing(scored.hand),
        "summary": summary.strip(),
        "lines": [{**ln.to_json(), "amount": ln.amount()} for ln in scored.lines],
        "shape": j["shape"], "melds": j["melds"], "decomposition": j["decomposition"],
        "alternatives": j["alternatives"], "notes": j["notes"], "options": j["options"],
        # (a referee adding by hand on the page had no word of the rules earned but not added: the CLI's lines)
        "set_aside": [ln.strip() for ln in text.splitlines() if ln.startswith(SET_ASIDE)],
        "changed_options": {k: v for k, v in scored.options.items()
                            if k in rs.options and v != rs.options[k].default},
        "explanation": text,
    }


def flags_of(rs) -> list[str]:
    """The context flags a ruleset understands: its module's ``FLAGS`` and every ``--flag NAME`` its
    notes and description mention."""
    found = set(getattr(rs.module, "FLAGS", ()) or ())
    for text in (*rs.notes, rs.description):
        found.update(re.findall(r"--flag ([a-z][a-z0-9-]*)", text))
    return sorted(found)


def ruleset_out(rid: str) -> dict[str, Any]:
    rs = load_ruleset(rid)
    has_settle = getattr(rs.module, "settle", None) is not None
    return {
        "id": rs.id, "name": rs.name, "seed": rs.seed, "description": rs.description,
        "hand_size": rs.hand_size, "limit": rs.limit, "notes": list(rs.notes),
        "options": [{"name": o.name, "default": o.default, "choices": list(o.choices),
                     "ambiguity": o.ambiguity, "doc": o.doc} for o in rs.options.values()],
        "flags": flags_of(rs),
        "settlement": rs.settlement or (rs.id if has_settle else None),
    }


def parse_options_field(text: str | None, rs: Any = None) -> dict[str, Any]:
    """The ``options`` form field: a JSON object, or ``NAME=VALUE`` pairs separated by commas, each name
    spelt as the rulesets spell them (:func:`scoring.engine.keyed_options`). An option given twice with
    values that mean the same (as the ruleset ``rs`` reads them, :meth:`scoring.engine.Ruleset.same_value`:
    a choice in any case; without ``rs``, the same text in any case) is taken once; 422 :class:`ApiError`
    for a malformed field, and RulesetError (422) for one given twice with values that differ, naming both
    (as ``/api/hand`` and the command line say it)."""
    text = (text or "").strip()
    if not text:
        return {}
    if text.startswith("{"):
        refuse_repeated_keys(text.encode("utf-8"))  # (the parser keeps the last of an option given twice)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ApiError(422, f"options: not a JSON object ({e.msg})") from None
        if not isinstance(obj, dict) or not all(isinstance(v, (str, int, float, bool)) for v in obj.values()):
            raise ApiError(422, "options: must map option names to strings, numbers or booleans")
        return obj
    pairs: list[tuple[str, str]] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ApiError(422, f"options: {item!r} must be NAME=VALUE")
        k, v = item.split("=", 1)
        pairs.append((k.strip(), v.strip()))
    # (the last had been scored, unsaid, where the command line refuses a repeat)
    return keyed_options(pairs, same=rs.same_value if rs is not None else same_text)


def safe_name(name: str | None) -> str:
    """A display name for an uploaded file: its base name, printable, at most 80 characters."""
    base = re.split(r"[\\/]", name or "")[-1]
    base = "".join(ch for ch in base if ch.isprintable())[:80]
    return base or "photo"


def annotated_data_url(res, side: int, fixes=None, source: bytes | None = None) -> tuple[str, list[float] | None]:
    """The annotated photo (:func:`vision.annotate.annotate`) scaled to ``side`` pixels on its long
    side, as a ``data:image/jpeg;base64,…`` URL; the tiles numbered in ``fixes`` (tile number → code,
    set by the user) framed as fixed. With it the part of the photo the image shows, ``[x0, y0, x1, y1]``
    in the photo's own pixels (the boxes' frame), when the hand is small in its photo and drawn enlarged
    (:func:`vision.annotate.hand_view`), else None. ``source``: the upload's bytes, to enlarge that part from its
    own pixels (:func:`vision.annotate.full_pixels`)."""
    from vision.annotate import draw_reading, fixed_detections, reading_title

    img, view = draw_reading(res, reading_title(res.reading), fixed_detections(res.order, fixes), source)
    shown = None if view is None else view.in_photo(res.photo.scale)
    h, w = img.shape[:2]
    k = side / max(h, w)
    if k < 1:
        img = cv2.resize(img, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 82])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 RGB image
        raise ApiError(500, "could not encode the annotated image")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii"), shown


# ----------------------------------------------------------------------------- photo cache
@dataclass(frozen=True)
class CachedPhoto:
    photo: Any
    detections: Any
    readings: Any
    timings: dict[str, float]
    tileset: Optional[str] = None  # the calibrated tile set the readings were made with (web/tilesets.py)
    learned: frozenset = frozenset()  # (pos, code) fixes of this photo already added to it
    turned: int = 0  # the photo was read turned this far clockwise (``photo`` is the turned photo)
    straightened: Any = None  # vision.pipeline.Straightened: ``photo`` was straightened before the turn
    frame_notes: tuple = ()  # read_photo's notes on the straightening and turn, shown with every reading
    mirrored: bool = False  # the boxes are the detector's passes over the photo and its mirror image fused
    second: bool = False  # the boxes include the second detector's (vision.pipeline.read_photo's second)
    faces_frame: bool = False  # the boxes were found in another turn and read where the faces stand (read_photo)
    not_tiles: int = 0  # boxes left out as clutter before the reading (vision.pipeline.drop_not_tiles)
    # the upload's own bytes, when it was read at a reduced scale: a far hand's enlarged view is drawn from them
    # (vision.annotate.full_pixels), on every answer alike, the first and those after a tap-fix
    data: Optional[bytes] = None


def new_photo_id() -> str:
    """A random, unguessable photo id (96 bits)."""
    return secrets.token_urlsafe(12)


def cached_bytes(item: CachedPhoto) -> int:
    """Bytes a cached photo holds: its pixels plus its detections' and readings' arrays, and the upload's bytes."""
    n = int(getattr(item.photo.pixels, "nbytes", 0)) + len(item.data or b"")
    for obj in (item.detections, item.readings):
        for v in vars(obj).values() if hasattr(obj, "__dict__") else ():
            n += int(getattr(v, "nbytes", 0))
    return n


class PhotoCache:
    """The last ``size`` photos' pixels (at the reduced working scale), detections and readings, by
    random id (thread-safe, in memory), at most ``max_bytes`` in all (:func:`cached_bytes`; the
    newest photo is kept even when it alone is larger)."""

    def __init__(self, size: int, max_bytes: int | None = None):
        self.size = max(1, size)
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[str, tuple[CachedPhoto, int]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, item: CachedPhoto, key: str) -> str:
        n = cached_bytes(item)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._items[key] = (item, n)
            self.bytes += n
            while len(self._items) > self.size or (
                    self.max_bytes is not None and self.bytes > self.max_bytes and len(self._items) > 1):
                _, (_, m) = self._items.popitem(last=False)
                self.bytes -= m
        return key

    def get(self, key: str) -> CachedPhoto | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
                return item[0]
            return None

    def __len__(self) -> int:
        return len(self._items)


# ----------------------------------------------------------------------------- photo admission
class Abandoned(Exception):
    """Raised inside a photo worker whose request was answered 504: the work stops there."""


class _Checked:
    """A model (detector or classifier) that first checks whether its request was abandoned; other
    attributes (e.g. the detector's ``imgsz``) are the model's."""

    def __init__(self, model: Callable, abandoned: threading.Event):
        self._model = model
        self._abandoned = abandoned

    def __call__(self, *a, **kw):
        if self._abandoned.is_set():
            raise Abandoned()
        return self._model(*a, **kw)

    def __getattr__(self, name: str):
        attr = getattr(self._model, name)
        if name == "memoised":  # (a photo's memoised classifier keeps the check: vision.pipeline.read_photo)
            return lambda: _Checked(attr(), self._abandoned)
        return attr


#: nice value of the photo worker threads: the CPU goes to notation and the event loop first
PHOTO_NICE = 10


def _lower_priority() -> None:
    """Lower the calling thread's CPU priority by :data:`PHOTO_NICE` (Linux schedules threads one by
    one; the models run in this thread, ``vision.models.THREADS`` = 1), so that a photo flood
    cannot starve notation requests of CPU. A no-op where the OS refuses it."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), PHOTO_NICE)
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        pass


class PhotoGate:
    """Admission and cancellation of photo work in the photo pool.

    At most ``capacity`` photo tasks are in the pool (queued or running; a running task whose
    request timed out still counts until it stops), so the queue cannot grow without bound and
    abandoned work cannot pile up. :meth:`retry_after` estimates when a place frees up from the mean
    time of recent photos (seconds, 1 to 120).
    """

    def __init__(self, executor: ThreadPoolExecutor, workers: int, capacity: int):
        self.executor = executor
        self.workers = max(1, workers)
        self.capacity = max(1, capacity)
        self.inflight = 0
        self.mean_s = 2.0
        self._lock = threading.Lock()

    def retry_after(self) -> int:
        with self._lock:
            waiting = max(0, self.inflight - self.workers + 1)
            return int(min(120, max(1, round(self.mean_s * waiting / self.workers + 0.5))))

    def submit(self, fn: Callable, *args) -> tuple[Any, threading.Event] | None:
        """Submit ``fn(abandoned_event, *args)``; None when the gate is full."""
        with self._lock:
            if self.inflight >= self.capacity:
                return None
            self.inflight += 1
        ev = threading.Event()
        t0 = time.perf_counter()

        def done(_f) -> None:
            with self._lock:
                self.inflight -= 1
                if not _f.cancelled():
                    self.mean_s = 0.8 * self.mean_s + 0.2 * (time.perf_counter() - t0)
            if not _f.cancelled() and _f.exception() is not None:
                # the error's traceback holds the pipeline's frames (the photo's pixels); cut it so
                # that they go now, not at the next cyclic garbage collection
                _f.exception().__traceback__ = None
            release_memory()  # the decode's buffers go back to the system, not to this thread's heap

        try:
            cf = self.executor.submit(fn, ev, *args)
        except BaseException:
            with self._lock:
                self.inflight -= 1
            raise
        cf.add_done_callback(done)
        return cf, ev


# ----------------------------------------------------------------------------- middleware
class LimitsMiddleware:
    """Pure ASGI middleware: refuses request bodies over ``limit`` bytes with 413 before any parsing
    (by ``Content-Length`` and by counting a streamed body), and adds security headers to every
    response (no sniffing, no referrer, a content security policy allowing only this origin)."""

    HEADERS = [
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"content-security-policy",
         b"default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
         b"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
    ]

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + self.HEADERS}
            await send(message)

        # (the photo's limit as --max-upload-mb gives it: the form's allowance beside it had been counted in, a new
        # user's 20 said "20.1 MB")
        too_big = f"the request is larger than the {(self.limit - FORM_OVERHEAD) / MIB:.3g} MB limit on a photo"
        if scope["method"] in ("POST", "PUT", "PATCH"):
            length = dict(scope["headers"]).get(b"content-length")
            if length is not None:
                try:
                    n = int(length)
                except ValueError:
                    await error_response(400, "bad Content-Length header")(scope, receive, send_with_headers)
                    return
                if n > self.limit:
                    await error_response(413, too_big)(scope, receive, send_with_headers)
                    return
            body = bytearray()
            more = True
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.limit:
                    await error_response(413, too_big)(scope, receive, send_with_headers)
                    return
            replayed = False

            async def replay():
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": bytes(body), "more_body": False}
                return await receive()

            await self.app(scope, replay, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


# ----------------------------------------------------------------------------- the app
#: how ``/api/settle``'s notes and errors ask for a ``cash`` settlement option: the page's words (its Settlement options
#: field, ``cash=S:10``) and the request's (``settle_options``); ``{player}`` is the player
VOID_CASH_WORDS = "cash={player}:DOLLARS in Settlement options (settle_options in a request)"


def create_app(settings: Settings | None = None, *, detector: Callable | None = None,
               classifier: Callable | None = None, load_models: bool = True) -> FastAPI:
    """The application. ``detector``/``classifier``: the pipeline's models (the ONNX models of
    ``models/`` are loaded here, once, when not given and ``load_models`` is true; when they are
    missing, photo reading answers 503 with the reason and everything else works)."""
    st = settings or Settings()
    models_error: str | None = None
    if load_models and (detector is None or classifier is None):
        try:
            from vision.classify import load_classifier
            from vision.detect import load_detector

            detector = detector or load_detector()
            classifier = classifier or load_classifier()
        except (VisionError, ImportError, OSError) as e:
            models_error = one_line(e)
    elif detector is None or classifier is None:
        models_error = "the server was started without the photo models (--no-models)"
    # uploads up to the limit stay in memory: nothing is spooled to a temporary file
    MultiPartParser.spool_max_size = max(MultiPartParser.spool_max_size, st.max_upload_bytes + FORM_OVERHEAD)
    limit_heap_growth()  # large decode buffers are returned to the system after each photo
    executor = ThreadPoolExecutor(max_workers=max(1, st.workers), thread_name_prefix="mahjong-score-photo",
                                  initializer=_lower_priority)
    quick = ThreadPoolExecutor(max_workers=max(2, st.workers), thread_name_prefix="mahjong-score")
    gate = PhotoGate(executor, st.workers, st.workers + max(0, st.photo_queue))
    cache = PhotoCache(st.photo_cache, st.photo_cache_bytes)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        executor.shutdown(wait=False, cancel_futures=True)
        quick.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="mahjong-score", version="0.1.0", lifespan=lifespan,
        description="Score a finished mahjong hand from a photo or from notation, with a line-by-line "
                    "explanation citing the seed documents; settle a table. Errors are "
                    '`{"error": "one line"}` with status 400/404/413/415/422/503/504.',
        docs_url=None, redoc_url=None, openapi_url="/api/openapi.json",  # the docs UIs need a CDN
        responses={400: {"model": S.ErrorOut}, 422: {"model": S.ErrorOut}},
    )
    app.state.settings = st
    app.state.models_error = models_error
    app.state.cache = cache
    app.state.gate = gate
    app.add_middleware(LimitsMiddleware, limit=st.max_upload_bytes + FORM_OVERHEAD)

    # ------------------------------------------------------------------ errors
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return error_response(exc.status, exc.message,
                              {"Retry-After": str(exc.retry_after)} if isinstance(exc, BusyError) else None)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        errs = exc.errors()
        if errs:
            e = errs[0]
            loc = ".".join(str(x) for x in e.get("loc", ()) if x not in ("body", "query", "path"))
            msg = f"{loc}: {e.get('msg', 'invalid')}" if loc else e.get("msg", "invalid request")
            if e.get("type") == "json_invalid":  # loc is the character position, not a field
                why = (e.get("ctx") or {}).get("error", "decode error")
                msg = f"the request body is not valid JSON ({why} at character {loc or '?'})"
            elif "Expected UploadFile" in str(e.get("msg", "")):  # (a tester's `-F image=hello`: text, not a file)
                msg = (f"{loc or 'image'}: send the photo as a file (a multipart file field, e.g. curl -F "
                       f"{loc or 'image'}=@photo.jpg), not text")
            elif tuple(e.get("loc", ())) == ("body",):  # the body as a whole: missing, or not an object
                msg = ("the request body is missing: send a JSON object" if e.get("type") == "missing"
                       else "the request body must be a JSON object (Content-Type: application/json)")
            if len(errs) > 1:
                msg += f" (and {len(errs) - 1} more)"
        else:  # pragma: no cover
            msg = "invalid request"
        return error_response(422, msg)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else "error"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no such page: {request.url.path}"
        elif exc.status_code == 400:
            detail = f"malformed request: {detail}"
        return error_response(exc.status_code, detail, getattr(exc, "headers", None))

    @app.exception_handler(HandError)
    async def _hand(request: Request, exc: HandError):
        return error_response(422, exc)

    @app.exception_handler(RulesetError)
    async def _ruleset(request: Request, exc: RulesetError):
        return error_response(422, exc)

    @app.exception_handler(Exception)
    async def _any(request: Request, exc: Exception):
        return error_response(500, f"internal error: {type(exc).__name__}: {exc}")

    async def run(fn: Callable, *args, **kwargs):
        """``fn(*args, **kwargs)`` in the pool of notation/settlement work (never behind photos);
        504 after ``timeout_s``."""
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(quick, partial(fn, *args, **kwargs))
        try:
            return await asyncio.wait_for(fut, st.timeout_s)
        except asyncio.TimeoutError:
            raise ApiError(504, f"scoring took longer than {st.timeout_s:g} s and was abandoned; "
                                f"try again, or with a smaller photo") from None

    async def run_photo(fn: Callable, *args):
        """``fn(abandoned, *args)`` in the photo pool through the :class:`PhotoGate`: 503 with
        ``Retry-After`` when it is full; after ``timeout_s`` 504, the task cancelled if it is still
        waiting, else told to stop (``abandoned`` set: the models refuse to run)."""
        sub = gate.submit(fn, *args)
        if sub is None:
            wait_s = gate.retry_after()
            raise BusyError(f"the server is busy reading {gate.inflight} photos; try again in {wait_s} s", wait_s)
        cf, abandoned = sub
        fut = asyncio.wrap_future(cf)
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # an abandoned task's end: not logged
        try:
            return await asyncio.wait_for(asyncio.shield(fut), st.timeout_s)
        except asyncio.TimeoutError:
            abandoned.set()
            cf.cancel()
            raise ApiError(504, f"reading the photo took longer than {st.timeout_s:g} s and was abandoned; "
                                f"try again, or with a smaller photo") from None
        except Abandoned:  # pragma: no cover - only after a timeout, which answered already
            raise ApiError(504, "the photo was abandoned") from None

    from .tilesets import Tilesets, add_routes, reread, tilesets_dir_for

    tilesets = Tilesets(tilesets_dir_for(st.data_dir), classifier, st.tileset)
    add_routes(app, tilesets, run, detector, check_image, st.max_upload_bytes)

    # ------------------------------------------------------------------ page
    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ rulesets
    rulesets_cache: list[dict[str, Any]] = []

    @app.get("/api/rulesets", response_model=S.RulesetsResponse, summary="Rulesets, options, flags, tile faces")
    async def api_rulesets():
        if not rulesets_cache:
            rulesets_cache.extend(await run(lambda: [ruleset_out(r) for r in available()]))
        return {
            "rulesets": rulesets_cache,
            "tiles": [{"code": c, "name": n} for c, n in zip(CLASS_NAMES, ENGLISH_NAMES)],
            "win_by": list(WIN_BY),
            "models": app.state.models_error is None,
            "models_error": app.state.models_error,
            "max_upload_bytes": st.max_upload_bytes,
            "timeout_s": st.timeout_s,
        }

    # ------------------------------------------------------------------ hand
    def _score_notation(req: S.HandRequest) -> dict[str, Any]:
        rs = load_ruleset(req.ruleset)
        ctx = req.context.to_context()
        sizes = rs.notation_sizes
        hand = parse_hand(req.notation, winning_tile=req.winning_tile or None, context=ctx, sizes=sizes)
        # (a winner's hand with no winning tile is scored with no wait: a note says so and what naming one changes,
        # as `mahjong-score hand` says it; the page words its --winning-tile)
        return score_out(with_no_winning_tile_note(score_hand(hand, rs, req.options, option_notes=True)))

    async def one_key_once(request: Request) -> None:
        """A dependency: :func:`web.errors.refuse_repeated_keys` on the JSON body."""
        refuse_repeated_keys(await request.body())

    @app.post("/api/hand", response_model=S.ScoreOut, summary="Score a hand written in notation",
              dependencies=[Depends(one_key_once)])
    async def api_hand(req: S.HandRequest):
        """Score ``notation`` (grammar: ``scoring/notation.py``) under ``ruleset`` with ``context``.
        422 for bad notation, a hand that is not a winning hand, unknown ruleset or option."""
        return await run(_score_notation, req)

    # ------------------------------------------------------------------ photo
    def _photo_answer(res, timings: dict[str, float], photo_id: str, rs, fixes: dict[int, str],
                      source: bytes | None = None) -> dict[str, Any]:
        t0 = time.perf_counter()
        annotated, view = annotated_data_url(res, st.annotated_side, fixes, source)
        j = to_json(res)
        timings = {**timings, "annotate": time.perf_counter() - t0}
        least = least_sure_tile(res)
        return {
            "photo_id": photo_id,
            "photo": {k: j["photo"][k] for k in ("name", "width", "height", "turned", "straightened", "mirrored",
                                                 "second_detector",
                                                 "file_width", "file_height")} | {"view": view},
            "ruleset": rs.id,
            "reading": j["reading"], "legal": j["legal"], "problem": j["problem"], "confidence": j["confidence"],
            "confidence_shown": j["confidence_shown"],
            # a legal reading below batch's needs-review bar: the page says to check it (a tournament director's
            # page showed "Score 25" from a reading 18 % sure, with only a grey "(18% sure)")
            # (the score's confidence: doubts that cannot change the score under the ruleset are none of it — loose
            # flowers/seasons, which flower a bonus tile is —, vision.pipeline.score_confidence, as batch and audit)
            "score_confidence": j["score_confidence"],
            "unsure": bool(j["legal"] and j["score_confidence"] < REVIEW_BELOW), "review_below": REVIEW_BELOW,
            # a winner's hand scored with no winning tile marked: scored with no wait (batch's needs-review,
            # table's provisional; a tester's page showed an 89 % reading's score as sure)
            "no_winning_tile": scored_without_winning_tile(res.reading),
            "least_sure": None if least is None else {"pos": res.position(least[0]), "tile": res.readings.codes[least[0]],
                                                      "probability": round(least[1], 4)},
            "changed": [{"pos": c["pos"], "raw": c["from"], "tile": c["to"]} for c in j["changed"]],
            "melds": j["melds"],
            "tiles": [{**t, "fixed": t["pos"] in fixes or bool(t.get("added"))} for t in j["tiles"]],
            "groups": [{"tiles": g["tiles"], "row": g["row"], "main_row": g["main_row"], "role": g["role"]}
                       for g in j["groups"]],
            "notes": j["notes"],
            "fixes": {str(k): v for k, v in sorted(fixes.items())},
            "annotated": annotated,
            "timings_ms": {k: round(v * 1000, 1) for k, v in timings.items()},
            "score": score_out(res.scored) if res.scored is not None else None,
        }

    def _learn(tileset: str | None, learn: bool, fixes: dict[int, str], res, photo, learned: frozenset):
        """``learn``: the fixed tiles of the reading ``res`` taught to ``tileset``, once each fix of the photo
        (``learned``: those taught before), when the reading with them is a legal hand. Returns (tiles
        learned, the photo's fixes learned now, :data:`vision.tileset.NOT_LEARNED` or None)."""
        if not (learn and tileset and fixes):
            return 0, learned, None
        if not res.reading.legal:  # (a mistyped fix that breaks the hand would teach a wrong face for good)
            return 0, learned, NOT_LEARNED
        n, learned = tilesets.learn(tileset, photo, res.detections, res.order, fixes, learned, res.added)
        return n, learned, None

    def _first_reading(abandoned: threading.Event, data: bytes, name: str, photo_id: str, rs, ctx: Context,
                       fixes: dict[int, str], options: dict[str, Any], winning_tile: str | None,
                       exposed: str | None, tileset: str | None = None, learn: bool = False,
                       additions: list | None = None, turn: int | None = None) -> dict[str, Any]:
        """A new photo: the whole pipeline (:func:`vision.pipeline.read_photo`, no fixes, so that the
        cached readings are the classifier's own, with the calibrated ``tileset`` if one is named; ``turn``: read
        turned so, no other turn tried); then the fixes, if any, on the cached readings (``learn``: they teach
        ``tileset``). The models raise :class:`Abandoned` once ``abandoned`` is set (the request timed out)."""
        res = read_photo(data, rs, ctx, winning_tile=winning_tile, exposed=exposed, options=options, turn=turn,
                         detector=_Checked(detector, abandoned),
                         classifier=_Checked(tilesets.classifier(tileset), abandoned), work_side=WORK_SIDE)
        photo = replace(res.photo, name=name)
        model_t = {k: v for k, v in res.timings.items() if k in ("load", "detect", "classify")}
        item = CachedPhoto(photo, res.detections, res.readings, model_t, tileset or None, turned=res.turned,
                           straightened=res.straightened, frame_notes=res.frame_notes,
                           not_tiles=res.not_tiles, mirrored=res.mirrored, second=res.second,
                           faces_frame=res.faces_frame, data=data if res.photo.scale < 1 else None)
        if fixes or additions:
            # (with exposed, the roles first read are those without it, as the command line's and a cached
            # photo's second reading take them: read_detections finds them when shown_roles is None)
            res = with_frame(read_detections(
                photo, res.detections, res.readings, rs, ctx, winning_tile=winning_tile, exposed=exposed, fixes=fixes,
                options=options, additions=additions, shown=res.layout.geometry, not_tiles=res.not_tiles,
                shown_roles=None if exposed else res.reading.roles, shown_legal=res.reading.legal,
                shown_loose=None if exposed else loose_bonus_boxes(res.layout),
                shown_rivals=() if exposed else res.reading.region_rivals),
                item.turned, item.straightened, item.frame_notes, item.mirrored, item.second)
            res = replace(res, faces_frame=item.faces_frame)
        else:
            res = replace(res, photo=photo)
        n, learned, not_learned = _learn(tileset, learn, fixes, res, photo, item.learned)
        item = replace(item, learned=learned)
        cache.put(item, photo_id)
        return {**_photo_answer(res, {**model_t, **{k: v for k, v in res.timings.items() if k not in model_t}},
                                photo_id, rs, fixes, item.data), "tileset": tileset or None, "learned": n,
                "not_learned": not_learned}

    def _again(abandoned: threading.Event, item: CachedPhoto, photo_id: str, rs, ctx: Context,
               fixes: dict[int, str], options: dict[str, Any], winning_tile: str | None,
               exposed: str | None, tileset: str | None = None, learn: bool = False,
               additions: list | None = None) -> dict[str, Any]:
        """A cached photo: only layout, decoding and scoring (:func:`vision.pipeline.read_detections`);
        the classifier runs again only when another calibrated ``tileset`` is asked for."""
        if (tileset or None) != item.tileset:
            item = reread(tilesets, item, tileset)
            cache.put(item, photo_id)
        res = read_detections(
            item.photo, item.detections, item.readings, rs, ctx, winning_tile=winning_tile, exposed=exposed,
            fixes=fixes, options=options, additions=additions, not_tiles=item.not_tiles)
        if not ctx.winner:  # ("Not the winner" ticked after the upload: the note read_photo gives, here too)
            res = won_hint(res, rs, ctx, {"winning_tile": winning_tile, "options": options}, exposed)
        # (the frame last, as read_photo gives it: its doubt weighs the reading won_hint judged)
        res = replace(with_frame(res, item.turned, item.straightened, item.frame_notes, item.mirrored, item.second),
                      faces_frame=item.faces_frame)
        n, learned, not_learned = _learn(tileset, learn, fixes, res, item.photo, item.learned)
        if learned is not item.learned:
            cache.put(replace(item, learned=learned), photo_id)
        return {**_photo_answer(res, {**item.timings, **res.timings}, photo_id, rs, fixes, item.data),
                "tileset": tileset or None, "learned": n, "not_learned": not_learned}

    @app.post("/api/score", response_model=S.PhotoScoreResponse, summary="Read a photo and score it",
              responses={404: {"model": S.ErrorOut}, 413: {"model": S.ErrorOut}, 415: {"model": S.ErrorOut},
                         503: {"model": S.ErrorOut}, 504: {"model": S.ErrorOut}})
    async def api_score(
        request: Request,
        image: Optional[UploadFile] = File(None, description="the photo (checked by content; JPEG, PNG, WebP, HEIC…)"),
        photo_id: Optional[str] = Form(None, max_length=40, description="instead of image: the photo_id of an earlier answer"),
        ruleset: str = Form("nts", max_length=40),
        seat_wind: S.Wind = Form("E"),
        round_wind: S.Wind = Form("E"),
        winner: bool = Form(True),
        win_by: S.WinBy = Form("discard"),
        last_tile: bool = Form(False),
        first_turn: bool = Form(False),
        announced_wait: bool = Form(False),
        kong_on_kong: bool = Form(False),
        dealer: Optional[bool] = Form(None),
        dealer_streak: Annotated[S.WholeNumber, Form(ge=0, le=MAX_DEALER_STREAK)] = 0,
        discards: Optional[S.WholeNumber] = Form(None, ge=0, le=MAX_DISCARDS),
        flags: str = Form("", max_length=400, description="comma-separated ruleset flags"),
        options: str = Form("", max_length=2000, description='ruleset options: JSON object or NAME=VALUE,NAME=VALUE'),
        fixes: str = Form("", max_length=400, description="tile corrections by number: 3=5p,7=1z (9=- leaves tile 9 out of the hand)"),
        winning_tile: Optional[str] = Form(None, max_length=4, description="override the winning tile, e.g. 5p"),
        exposed: Optional[str] = Form(None, max_length=200, description='override the exposed melds: "[777p] (1111s)"'),
        tileset: Optional[str] = Form(None, max_length=64, description="read with this calibrated tile set (GET /api/tilesets)"),
        learn: bool = Form(False, description="add the fixed tiles to the tile set (each fix of a photo once)"),
        adds: str = Form("", max_length=400, description="tiles the detector missed, added in order: 14=5p,3=2z "
                         "(each becomes tile POS; fixes then count them)"),
        turn: Optional[str] = Form(None, max_length=3, description="with image: read the photo turned this many "
                                   "degrees clockwise (0, 90, 180 or 270; 0: as it is stored) and try no other turn, "
                                   "as the command line's --turn"),
    ):
        """Read the photo (detector + classifier, once per upload), apply ``fixes``, decode the most
        probable legal hand and score it. Answers the reading (tiles with boxes and top-3 readings,
        groups, melds), the annotated photo and the score, or ``legal: false`` with the problem so that
        tiles can be fixed. Send ``photo_id`` instead of ``image`` to re-score the same photo."""
        form = await request.form()
        refuse_unknown_fields([k for k, _ in form.multi_items()], score_fields, repeatable=JOINED_FIELDS)
        fixes, adds, flags = (joined_field(form, k, JOINED_FIELDS[k]) for k in ("fixes", "adds", "flags"))
        if learn and not tileset:  # (as the command line refuses --learn without --tileset)
            raise ApiError(422, "learn needs a tileset: the profile that learns the fixed tiles")
        ctx = S.ContextIn(seat_wind=seat_wind, round_wind=round_wind, winner=winner, win_by=win_by,
                          last_tile=last_tile, first_turn=first_turn, announced_wait=announced_wait,
                          kong_on_kong=kong_on_kong, dealer=dealer, dealer_streak=dealer_streak, discards=discards,
                          flags=[f for f in flags.split(",") if f.strip()]).to_context()
        # unknown ruleset, option or flag → 422 before any work (the decoder would only report "no legal
        # reading"); the options as the ruleset reads them (one given twice: ONCE is once)
        rs = load_ruleset(ruleset)
        opts = parse_options_field(options, rs)
        fix = parse_fixes(fixes)
        add = parse_additions(adds) or None
        rs.resolve_options(opts)
        check_context_flags(rs, ctx)  # HandError → 422: an unknown flag, or one the context contradicts
        turn_deg = parse_turn(turn)
        if turn_deg is not None and image is None:  # (the models read the photo again: it is sent again)
            raise ApiError(422, "turn reads a photo anew: send the photo (image) with it, not its photo_id")
        if image is not None and photo_id:
            raise ApiError(400, "send either an image or a photo_id, not both")
        if image is not None:
            if detector is None or classifier is None:
                raise ApiError(503, f"photo reading is unavailable: {app.state.models_error}")
            data = await image.read(st.max_upload_bytes + 1)
            check_image(data, st.max_upload_bytes)
            name = safe_name(image.filename)

            def said(e: Exception) -> str:  # the upload's name, not the reader's "<bytes>" (a tester's finding)
                msg = str(e).replace("copy the photo again", "upload the photo again")  # (a page has no copy to make)
                return f"{name}: {msg[len('<bytes>: '):]}" if msg.startswith("<bytes>: ") else msg

            try:
                return await run_photo(_first_reading, data, name, new_photo_id(), rs, ctx,
                                       fix, opts, S.blank_is_none(winning_tile), exposed or None, tileset or None, learn,
                                       add, turn_deg)
            except NoTilesError as e:
                raise ApiError(422, said(e)) from None
            except ImageError as e:  # too many pixels, or too much memory to decode: 413
                raise ApiError(413 if "too large" in str(e) or "of memory" in str(e) else 400, said(e)) from None
            except ModelError as e:
                raise ApiError(503, f"photo reading failed: {e}") from None
        if photo_id:
            item = cache.get(photo_id)
            if item is None:
                raise ApiError(404, f"photo {photo_id} is no longer held by the server (it keeps the last "
                                    f"{cache.size}); upload it again")
            args = (item, photo_id, rs, ctx, fix, opts, S.blank_is_none(winning_tile), exposed or None,
                    tileset or None, learn, add)
            if (tileset or None) == item.tileset and not learn:
                # (no model runs: a fix or a context change is layout, decoding and scoring, milliseconds, in the
                # quick pool, never behind the photos being read: a tester's fixes were refused 503 "busy reading 6
                # photos" while uploads were read)
                return await run(_again, threading.Event(), *args)
            return await run_photo(_again, *args)
        raise ApiError(400, "send a photo (multipart field 'image') or the photo_id of an earlier upload")

    #: the form fields of ``POST /api/score``, from its parameters (any other field is refused)
    score_fields = frozenset(inspect.signature(api_score).parameters) - {"request"}

    # ------------------------------------------------------------------ settle
    def _settle(req: S.SettleRequest) -> dict[str, Any]:
        names = [p.name.strip() for p in req.players]
        if len(set(names)) != len(names) or not all(names):
            raise ApiError(422, f"players must have distinct names, got {', '.join(names)}")
        if req.east not in names:
            raise ApiError(422, f"east {req.east!r} is not one of the players {', '.join(names)}")
        if req.winner is not None and not req.winner.strip():  # (a blank winner is a forgotten one: not void)
            raise ApiError(422, "winner is blank: give the player who went mahjong, or null for a void hand")
        winner = req.winner or None
        if winner is not None and winner not in names:
            raise ApiError(422, f"winner {winner!r} is not one of the players {', '.join(names)}")
        rs = load_ruleset(req.ruleset)
        misplaced = settle_option_given_for_scoring(rs.id, req.options)  # (as `table -o DISCARDER=S` is said)
        if misplaced is not None:
            raise ApiError(422, f"ruleset {rs.id} has no option {misplaced[0]!r}: it is a settlement option; send "
                                f"it in settle_options: {json.dumps({misplaced[0]: misplaced[1]}, ensure_ascii=False)}")
        # (names in any case, - or _; one given twice with values that mean the same taken once)
        given = keyed_settle_options(rs.id, req.settle_options, "settle_options")
        # one value per table fact, as `table` takes it: a ruleset option the scheme reads too (hk-tw-16's
        # dealer_point, dealer_streak_points, cash_from) is the hands' and the payments'; the settlement's
        # dealer_streak (連莊, 004:2) is the dealer's hand's (it had reached the payments only)
        try:
            scoring_opts, given = table_options(rs.id, req.options, given)
            streak = dealer_streak_of(rs.id, given)
        except RulesetError as e:
            raise ApiError(422, str(e).replace("for scoring", "in options", 1).replace(
                "for the settlement", "in settle_options", 1).replace("settle option", "settle_options", 1)) from None
        state = SessionState(tuple(names), east=names.index(req.east), round_wind=req.round_wind)
        seats = state.seats()
        # a seat wind where a player is expected (settle_options {"discarder": "W"}) is the player in that seat,
        # noted; a player's name wins (as `table` and a batch read it: scoring.settle.players_for_seats)
        try:
            given, seated = players_for_seats(rs.id, given, seats)
        except RulesetError as e:
            raise ApiError(422, str(e).replace("settle option", "settle_options", 1)) from None
        sizes = rs.notation_sizes
        hands: dict[str, Any] = {}
        parsed: dict[str, Any] = {}  # the hands given in notation (tiles over the set: below)
        scored_hands: dict[str, Any] = {}  # the hands scored (their cash: scoring.settle.with_cash)
        scores: dict[str, int] = {}
        # a void hand's hands are scored too, as non-winners', where the settlement collects the cash they show
        # whether or not the hand is won (hk-tw-16's 暗槓 $5, 台花 $5, 台草 $3, 004:42–43, option cash_when_void,
        # 004-33), as `table` scores them (scoring.settle.scores_void_hands); one that cannot be, a placeholder of a
        # few tiles or the false_win player's 假胡 hand, is read as notation only and noted (read_void_hand)
        void_scored = winner is None and scores_void_hands(rs.id)
        void_notes: list[str] = []

        def player_context(name: str, p: Any) -> Context:
            """The circumstances of ``name``'s hand (in a void hand, no one won: each winner's part at its default)."""
            is_w = name == winner
            return Context(
                seat_wind=seats[name], round_wind=req.round_wind, winner=is_w,
                win_by=req.win_by if is_w else "discard", last_tile=req.last_tile and is_w,
                first_turn=req.first_turn and is_w, announced_wait=req.announced_wait and is_w,
                kong_on_kong=req.kong_on_kong and is_w,
                dealer_streak=streak if name == req.east else 0,  # (the dealer is East)
                flags=frozenset(set(p.flags) | (set(req.flags) if is_w else set())))

        for name, p in zip(names, req.players):
            hand_text = (p.hand or "").strip()
            if hand_text and p.score is not None:
                raise ApiError(422, f"player {name}: give a score or a hand, not both")
            is_w = name == winner
            if hand_text and void_scored:
                ctx = player_context(name, p)
                try:
                    read = read_void_hand(rs.id, name, hand_text, ctx, scoring_opts, given, VOID_CASH_WORDS)
                except (HandError, RulesetError) as e:
                    raise ApiError(422, f"hand of {name}: {e}") from None
                parsed[name] = read.hand
                if read.scored is not None:
                    hands[name] = score_out(read.scored)
                    scored_hands[name] = read.scored
                void_notes += [read.note] if read.note else []
                scores[name] = 0  # (a void hand counts no points, 001:134: its hands are scored for their cash alone)
            elif hand_text and winner is not None:
                ctx = player_context(name, p)
                try:
                    h = parse_hand(hand_text, winning_tile=(req.winning_tile or None) if is_w else None,
                                   context=ctx, sizes=sizes)
                    scored = score_hand(h, rs, scoring_opts, option_notes=True)
                except (HandError, RulesetError) as e:
                    from scoring.rulesets.rode_draak import reword_dead_hand

                    # (the command line's words for a dead hand said in the request's: its flags)
                    said = reword_dead_hand(str(e), f'"dead-hand" in the flags of {name}',
                                            f'leave "dead-hand" out of the flags of {name}, or name the right winner')
                    raise ApiError(422, f"hand of {name}: {said}") from None
                if is_w and not scored.allowed:
                    raise ApiError(422, refused_win_text(name, scored.status, scored.ruleset, "winner null"))
                hands[name] = score_out(scored)
                scored_hands[name] = scored
                parsed[name] = h
                scores[name] = scored.total
            elif winner is None:
                # a void hand: no points are counted (001:134), a score typed in no more than a hand given
                # (`table` settles it so; the page showed typed scores beside a hand's 0). A hand given is
                # still read as notation, any tile count (a typo is said, as `table` says it)
                if hand_text:
                    try:
                        parsed[name] = parse_hand(hand_text, context=Context(winner=False), sizes=None)
                    except HandError as e:
                        raise ApiError(422, f"hand of {name}: {e}") from None
                scores[name] = 0
            elif p.score is not None:
                # (a score alone: its flags are still checked, as with a hand — a tester's winner flagged dead-hand
                # under rode-draak, and a flag "bogus", had been settled without a word)
                try:
                    check_context_flags(rs, player_context(name, p))
                except HandError as e:
                    raise ApiError(422, f"flags of {name}: {e}") from None
                scores[name] = p.score
            else:
                raise ApiError(422, f"player {name}: give a score or a hand")
        if winner is not None and winner not in hands and req.winning_tile:  # (it had been dropped without a word)
            raise ApiError(422, f"winning_tile is a tile of the winner's hand: give the hand of {winner}, not a score")
        if winner is None:  # (win_by, last_tile … had been accepted and ignored; `table` refuses them too)
            won = (["winning_tile"] if req.winning_tile else []) + (
                [f"win_by {req.win_by}"] if req.win_by != "discard" else []) + [
                f for f in ("last_tile", "first_turn", "announced_wait", "kong_on_kong") if getattr(req, f)] + (
                ["flags"] if req.flags else [])
            if won:
                raise ApiError(422, f"{', '.join(won)} {'is' if len(won) == 1 else 'are'} given, but nobody won "
                                    f"(winner null: a void hand): leave {'it' if len(won) == 1 else 'them'} out, or "
                                    f"name the winner")
        # the hands of one deal hold at most 4 of a tile and one of each flower and season (as `table`)
        over = [over_the_set_text(t, held) for t, held in tiles_over_the_set(parsed)]
        if over:
            raise ApiError(422, f"{'; '.join(over)}: check the hands")
        robbed = robbed_kong_problem(parsed, winner)  # (the kong robbed holds the other three: as `table`)
        if robbed is not None:
            raise ApiError(422, f"{robbed[0]}: check the hands, or where the winning tile came from (win_by)")
        try:
            # the winner's win_by is the settlement's (hk-tw-16 pays by it), as in `table`: the one the
            # winner's hand was scored with, or with a score alone the win_by sent (a tester's hk-tw-16 table
            # of scores with win_by "wall" was settled as a discard win, the discarder paying alone)
            said = winner in hands or "win_by" in req.model_fields_set
            opts = with_win_by(rs.id, given, req.win_by, scored=winner in hands) if said else given
            second = str(opts.get("also_won", "")).strip()
            if second and second in hands:  # (scored here as a non-winner's hand: give its score)
                raise ApiError(422, f"settle_options also_won={second}: the second winner's hand is scored as a "
                                    f"non-winner's here; give {second}'s score instead of a hand")
            opts = with_cash(rs.id, opts, scored_hands)  # (the cash the hands scored report, as `table`)
            liable = liable_problem(rs.id, opts, scored_hands.get(winner) if winner is not None else None)
            if liable is not None:
                raise ApiError(422, liable.replace("settle option liable", "settle_options liable", 1))
            s = settle(rs.id, scores, winner, req.east, opts, scored=scored_hands)
        except (HandError, RulesetError):
            raise
        except ValueError as e:
            raise ApiError(422, str(e)) from None
        return {"ruleset": s.ruleset, "scheme": s.scheme, "east": req.east, "winner": winner, "seats": seats,
                "scores": scores, "hands": hands, "net": dict(s.net),
                "transfers": [t.to_json() for t in s.transfers], "notes": [*seated, *void_notes, *s.notes], "cash": dict(s.cash)}

    @app.post("/api/settle", response_model=S.SettleResponse, summary="Settle one hand of a table",
              dependencies=[Depends(one_key_once)])
    async def api_settle(req: S.SettleRequest):
        """Four players in seating order, each with a hand score or a hand in notation (scored with
        the seat wind that follows from ``east``); ``winner`` null for a void hand. Settles under the
        ruleset's scheme (:func:`scoring.settle.settle`); nets sum to zero."""
        return await run(_settle, req)

    return app
