"""``mahjong-score batch``: score a folder of photos, resumably, in parallel; settle table hands.

The user documentation (manifest columns, outputs, resuming) is ``docs/batch.md``. Design:

* **Jobs.** The manifest (CSV) gives each photo its ruleset, table, hand number, player, winds,
  winner, win source, flags, options and corrections; a photo of the folder without a manifest row,
  and every empty cell, takes the defaults given on the command line. A job is a small frozen value
  (:class:`Job`); a bad cell makes that photo an ``error:`` row, never the whole batch fail.
* **Write-ahead state.** A SQLite database (WAL journal, ``synchronous=FULL``) holds one row per
  photo, primary key = the photo's path relative to the folder, with the SHA-256 of the file and
  a hash of the scoring parameters (ruleset, context, options, corrections, reader/model identity).
  The parent process is the only writer and commits each result as it arrives, so a kill — even
  ``kill -9`` — loses at most the photos being read at that moment. On a rerun a photo whose row has
  the same file hash and parameter hash is skipped; a changed file or changed manifest row is scored
  again and its row replaced (never duplicated). File hashes are cached by (size, mtime).
* **Workers.** A :class:`concurrent.futures.ProcessPoolExecutor` (spawn) of ``--workers`` processes;
  each builds its reader once (loads the ONNX models once) and watches its parent, exiting when the
  parent dies. At most ``2 × workers`` photos are in flight; results are written and dropped as they
  come, so the parent's memory does not grow with the folder.
* **Outputs** (CSV or JSONL by ``--out``'s extension) are regenerated from the database at the end
  of every run, in job order (manifest order, then the folder's other photos sorted), so an
  interrupted-and-resumed batch writes exactly the bytes of an uninterrupted one. Status is derived
  at export: ``error: …`` (unreadable file, no tiles, bad manifest cell, …), ``needs-review`` (no
  legal reading, mahjong not allowed, or confidence below ``--review-below``), else ``ok``.
* **Settlement.** Rows sharing ``table`` and ``hand`` form a table hand; with four players, one
  East and at most one winner it is settled with :func:`scoring.settle.settle` (CSV:
  ``<out>.settlements.csv``; JSONL: ``"type": "settlement"`` records after the photos).
* **History.** Newly scored photos are recorded in the history database (:mod:`scoring.history`)
  at the end of the run (or of the resumed run), each once.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import importlib
import importlib.util
import io
import json
import multiprocessing
import os
import re
import signal
import sqlite3
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from scoring.errors import HandError, RulesetError
from scoring.hand import WIN_BY
from .errors import BatchError

#: file extensions read as photos (case-insensitive)
PHOTO_EXTS = frozenset({".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".avif", ".bmp", ".tif", ".tiff"})
#: manifest columns (documented in docs/batch.md); ``photo`` is required
MANIFEST_COLUMNS = ("photo", "ruleset", "table", "hand", "player", "seat_wind", "round_wind", "winner", "dealer",
                    "win_by", "winning_tile", "exposed", "fix", "flags", "options", "discards", "dealer_streak")
#: output columns of the CSV (and keys of each JSONL photo record)
OUTPUT_COLUMNS = ("photo", "table", "hand", "player", "seat_wind", "winner", "ruleset", "status", "reading",
                  "confidence", "total", "points", "doublings", "tiles", "changed", "problem", "breakdown", "sha256")
SETTLEMENT_COLUMNS = ("table", "hand", "ruleset", "player", "seat_wind", "photo", "east", "winner", "score", "net",
                      "status", "transfers")
#: the reader used unless ``--reader`` names another: the ONNX models in models/
DEFAULT_READER = "vision.batch:model_reader"
#: a reader spec ending in TILESET_TAG + NAME reads with the calibrated profile NAME (vision.tileset)
TILESET_TAG = "#tileset="
#: default confidence below which a legal reading is flagged ``needs-review``
REVIEW_BELOW = 0.8
#: context flags that are :class:`scoring.Context` fields rather than ruleset flags
CONTEXT_FLAGS = {"last-tile": "last_tile", "first-turn": "first_turn", "announced-wait": "announced_wait",
                 "kong-on-kong": "kong_on_kong"}
_YES = {"yes", "y", "true", "1", "win", "winner", "x"}
_NO = {"no", "n", "false", "0", "-", "lose", "loser"}
_WINDS = {"e": "E", "s": "S", "w": "W", "n": "N", "east": "E", "south": "S", "west": "W", "north": "N"}
_WIN_BY_ALIASES = {"self-drawn": "wall", "self": "wall", "tsumo": "wall", "ron": "discard", "replacement": "dead-wall"}
STATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    params TEXT NOT NULL,
    error TEXT,
    legal INTEGER,
    confidence REAL,
    reading TEXT,
    problem TEXT,
    allowed INTEGER,
    total INTEGER,
    points REAL,
    doublings INTEGER,
    tiles INTEGER,
    changed INTEGER,
    breakdown TEXT,
    history TEXT,
    in_history INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    scored_at TEXT
);
CREATE TABLE IF NOT EXISTS files (
    key TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL
);
"""


class FatalError(Exception):
    """A failure that stops the whole batch (the reader/models cannot be loaded)."""


# ============================================================================ jobs
@dataclass(frozen=True)
class Defaults:
    """Values for photos without a manifest row and for empty cells (from the command line)."""

    ruleset: str = "nts"
    context: Mapping[str, Any] = field(default_factory=dict)  # scoring.Context keyword arguments
    options: Mapping[str, str] = field(default_factory=dict)
    winning_tile: str | None = None
    exposed: str | None = None
    fix: str | None = None


@dataclass(frozen=True)
class Job:
    """One photo to score: ``key`` its path relative to the folder (POSIX), ``path`` the file,
    ``line`` its manifest line (None: no row), the scoring parameters, and ``error`` when the
    manifest row is unusable (then the photo is an error row without being read)."""

    key: str
    path: str
    line: int | None
    ruleset: str
    context: tuple[tuple[str, Any], ...]
    options: tuple[tuple[str, str], ...]
    winning_tile: str | None = None
    exposed: str | None = None
    fix: str | None = None
    table: str = ""
    hand: str = ""
    player: str = ""
    dealer: bool | None = None
    error: str | None = None
    #: for an ``error`` job: the manifest's seat_wind/winner cells as typed (shown in the output row
    #: instead of the defaults, which the unusable row never replaced)
    typed: tuple[tuple[str, str], ...] = ()

    @property
    def seat_wind(self) -> str:
        return dict(self.context).get("seat_wind", "E")

    @property
    def winner(self) -> bool:
        return bool(dict(self.context).get("winner", True))

    def params(self, reader_id: str) -> str:
        """Hash of everything that decides the score (not the labels table/hand/player)."""
        blob = json.dumps([self.ruleset, list(self.context), list(self.options), self.winning_tile, self.exposed,
                           self.fix, self.error, reader_id], sort_keys=True, default=list)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    def make_context(self):
        from scoring import Context

        kw = dict(self.context)
        kw["flags"] = frozenset(kw.get("flags", ()))
        return Context(**kw)


def _context_kwargs(ctx) -> dict[str, Any]:
    out = {f.name: getattr(ctx, f.name) for f in dataclasses.fields(ctx)}
    out["flags"] = tuple(sorted(out["flags"]))
    return out


#: key of a manifest row's cells (:func:`read_manifest`) saying why the row cannot be used
ROW_ERROR = "_row_error"


def _norm_col(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _split_words(cell: str) -> list[str]:
    for sep in ",;|":
        cell = cell.replace(sep, " ")
    return [w for w in cell.split() if w]


def read_manifest(path: str | os.PathLike) -> list[tuple[int, dict[str, str]]]:
    """The manifest rows as (line number, {column: cell}) with empty cells dropped.

    CSV with a header row (``,``, ``;`` or tab separated; UTF-8, a BOM allowed); blank lines and
    lines starting with ``#`` are skipped; column names are case-insensitive (``seat-wind`` =
    ``seat_wind``). Raises BatchError for a missing/unreadable file, a malformed CSV, an unknown
    column, a missing ``photo`` column or cell, or a photo listed twice. A row with more cells than
    columns gets the key :data:`ROW_ERROR` (its photo becomes an error row, the batch goes on).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BatchError(f"manifest {p}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BatchError(f"manifest {p}: cannot read it ({e})") from None
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise BatchError(f"manifest {p}: it is empty (a header row with at least the column 'photo' is needed)")
    header = lines[0][1]
    delim = max((",", ";", "\t"), key=header.count)
    reader = csv.reader(io.StringIO("\n".join(ln for _, ln in lines)), delimiter=delim)
    numbered: list[tuple[int, list[str]]] = []  # (file line where the row starts, cells)
    start = 0  # index in ``lines`` of the next row's first line (a quoted cell may span lines)
    try:
        for row in reader:
            numbered.append((lines[start][0], row))
            start = reader.line_num
    except csv.Error as e:  # e.g. a cell over the csv module's size limit
        raise BatchError(f"manifest {p} line {lines[min(start, len(lines) - 1)][0]}: {e}") from None
    rows = [r for _, r in numbered]
    cols = [_norm_col(c) for c in rows[0]]
    unknown = [c for c in cols if c and c not in MANIFEST_COLUMNS]
    if unknown:
        raise BatchError(f"manifest {p}: unknown column(s) {', '.join(map(repr, unknown))} "
                        f"(columns: {', '.join(MANIFEST_COLUMNS)}; see docs/batch.md)")
    if "photo" not in cols:
        raise BatchError(f"manifest {p}: no 'photo' column in the header {header!r}")
    dup = {c for c in cols if c and cols.count(c) > 1}
    if dup:
        raise BatchError(f"manifest {p}: column(s) {', '.join(sorted(dup))} given twice")
    out: list[tuple[int, dict[str, str]]] = []
    seen: dict[str, int] = {}
    for lineno, row in numbered[1:]:
        cells = {c: v.strip() for c, v in zip(cols, row) if c and v.strip()}
        if len(row) > len(cols) and any(c.strip() for c in row[len(cols):]):
            # most likely an unquoted separator inside a cell: this photo is an error row
            cells[ROW_ERROR] = (f"{len(row)} cells for {len(cols)} columns (a cell containing "
                                f"{'a comma' if delim == ',' else repr(delim)} must be in double quotes)")
        photo = cells.get("photo")
        if not photo:
            raise BatchError(f"manifest {p} line {lineno}: the 'photo' cell is empty")
        key = Path(photo).as_posix()
        if key in seen:
            raise BatchError(f"manifest {p} line {lineno}: photo {photo!r} is already listed on line {seen[key]}")
        seen[key] = lineno
        cells["photo"] = key
        out.append((lineno, cells))
    return out


def _yes_no(v: str, what: str) -> bool:
    x = v.strip().lower()
    if x in _YES:
        return True
    if x in _NO:
        return False
    raise ValueError(f"{what} {v!r} must be yes or no")


def _wind(v: str, what: str) -> str:
    w = _WINDS.get(v.strip().lower())
    if w is None:
        raise ValueError(f"{what} {v!r} must be E, S, W or N")
    return w


def _int(v: str, what: str) -> int:
    try:
        n = int(v)
    except ValueError:
        raise ValueError(f"{what} {v!r} must be a whole number") from None
    if n < 0:
        raise ValueError(f"{what} {v!r} must be ≥ 0")
    return n


def make_job(directory: Path, key: str, line: int | None, cells: Mapping[str, str], d: Defaults) -> Job:
    """The :class:`Job` of one photo: manifest cells over the defaults. A cell that cannot be
    understood gives a job with ``error`` set (the photo becomes an error row)."""
    path = Path(key) if Path(key).is_absolute() else directory / key
    ctx = dict(d.context)
    ctx["flags"] = tuple(ctx.get("flags", ()))
    opts = dict(d.options)
    where = f"manifest line {line}: " if line else ""
    error = None
    try:
        if ROW_ERROR in cells:
            raise ValueError(cells[ROW_ERROR])
        if "seat_wind" in cells:
            ctx["seat_wind"] = _wind(cells["seat_wind"], "seat_wind")
        if "round_wind" in cells:
            ctx["round_wind"] = _wind(cells["round_wind"], "round_wind")
        if "winner" in cells:
            ctx["winner"] = _yes_no(cells["winner"], "winner")
        dealer = None
        if "dealer" in cells:
            dealer = ctx["dealer"] = _yes_no(cells["dealer"], "dealer")
        if "win_by" in cells:
            wb = cells["win_by"].strip().lower()
            wb = _WIN_BY_ALIASES.get(wb, wb)
            if wb not in WIN_BY:
                raise ValueError(f"win_by {cells['win_by']!r} must be one of {', '.join(WIN_BY)}")
            ctx["win_by"] = wb
        if "flags" in cells:
            for k in CONTEXT_FLAGS.values():
                ctx[k] = False
            flags = []
            for w in _split_words(cells["flags"]):
                w2 = w.lower().replace("_", "-")
                if w2 in ("-", "none"):
                    continue
                if w2 in CONTEXT_FLAGS:
                    ctx[CONTEXT_FLAGS[w2]] = True
                else:
                    flags.append(w)
            ctx["flags"] = tuple(sorted(set(flags)))
        if "discards" in cells:
            ctx["discards"] = _int(cells["discards"], "discards")
        if "dealer_streak" in cells:
            ctx["dealer_streak"] = _int(cells["dealer_streak"], "dealer_streak")
        if "options" in cells:
            for item in _split_words(cells["options"]):
                if "=" not in item:
                    raise ValueError(f"option {item!r} must be NAME=VALUE")
                k, v = item.split("=", 1)
                opts[k.strip()] = v.strip()
        from scoring import Context

        Context(**{**ctx, "flags": frozenset(ctx["flags"])})  # validates the winds, win source, counts
    except (ValueError, HandError) as e:
        error = where + str(e)
        dealer = None
    typed = tuple((c, cells[c]) for c in ("seat_wind", "winner") if c in cells) if error else ()
    return Job(key=key, path=str(path), line=line, ruleset=cells.get("ruleset", d.ruleset),
               context=tuple(sorted(ctx.items())), options=tuple(sorted(opts.items())),
               winning_tile=cells.get("winning_tile", d.winning_tile), exposed=cells.get("exposed", d.exposed),
               fix=cells.get("fix", d.fix), table=cells.get("table", ""), hand=cells.get("hand", ""),
               player=cells.get("player", ""), dealer=dealer, error=error, typed=typed)


#: annotated images written by ``audit`` (``NAME.audit.jpg``, ``NAME.audit-2.jpg``): not photos to score
_OUR_OUTPUT = re.compile(r"\.audit(-\d+)?\.jpg$", re.IGNORECASE)


def find_photos(directory: Path) -> list[str]:
    """Photo files under ``directory`` (recursive; hidden files and folders, and the annotated
    ``*.audit.jpg`` images of ``audit``, skipped), as sorted POSIX paths relative to it."""
    out = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in files:
            if not f.startswith(".") and Path(f).suffix.lower() in PHOTO_EXTS and not _OUR_OUTPUT.search(f):
                out.append((Path(root) / f).relative_to(directory).as_posix())
    return sorted(out)


def build_jobs(directory: Path, manifest: str | os.PathLike | None, defaults: Defaults,
               only_manifest: bool = False) -> list[Job]:
    """Jobs in output order: the manifest's rows in order, then the folder's other photos sorted."""
    directory = directory.resolve()
    jobs = []
    listed = set()
    if manifest is not None:
        for line, cells in read_manifest(manifest):
            jobs.append(make_job(directory, cells["photo"], line, cells, defaults))
            listed.add(cells["photo"])
    if not only_manifest:
        for key in find_photos(directory):
            if key not in listed:
                jobs.append(make_job(directory, key, None, {}, defaults))
    return jobs


# ============================================================================ readers
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
    the model files (new models → photos are read again), else the spec itself."""
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
    from .models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir

    h = hashlib.sha256()
    for f in (DETECTOR_FILE, CLASSIFIER_FILE):
        p = models_dir() / f
        try:
            h.update(bytes.fromhex(_sha256_file(p)))
        except OSError:
            h.update(b"missing")
    return "models:" + h.hexdigest()[:16]


def _sha256_file(path: str | os.PathLike) -> str:
    from scoring.history import sha256_file

    return sha256_file(path)


# ============================================================================ worker side
_READER: Reader | None = None
_READER_SPEC: str | None = None


def _get_reader(spec: str) -> Reader:
    global _READER, _READER_SPEC
    if _READER is None or _READER_SPEC != spec:
        try:
            _READER = resolve_reader(spec)()
        except FatalError:
            raise
        except Exception as e:  # ModelError and anything else: the batch cannot go on
            raise FatalError(f"the photo reader could not be started: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        _READER_SPEC = spec
    return _READER


def _watch_parent(sentinel) -> None:
    from multiprocessing.connection import wait as mp_wait

    mp_wait([sentinel])
    os._exit(3)


def _init_worker() -> None:
    """Worker start: ignore Ctrl-C (the parent handles it) and exit when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent.sentinel,), daemon=True).start()


def _one_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


def score_job(job: Job, reader_spec: str, params: str, sha: str) -> dict[str, Any]:
    """Read and score one photo (in a worker): a result row for the state database.

    Per-photo failures (unreadable file, no tiles, bad correction, unknown ruleset or option) are
    an ``error`` in the row; FatalError (reader/models unavailable) propagates to stop the batch.
    """
    t0 = time.perf_counter()
    reader = _get_reader(reader_spec)
    row: dict[str, Any] = {"key": job.key, "sha256": sha, "params": params}
    if job.error:
        row["error"] = job.error
    elif not sha:
        from .io import path_problem  # a FIFO, a device, a link loop, an unreadable file: named

        row["error"] = path_problem(job.path) or "the file could not be read"
    else:
        from .errors import ModelError, VisionError
        from .pipeline import parse_fixes
        from .record import photo_entry

        try:
            fixes = parse_fixes(job.fix)
            ctx = job.make_context()
            res = reader(job.path, job.ruleset, ctx, winning_tile=job.winning_tile, exposed=job.exposed,
                         fixes=fixes, options=dict(job.options))
        except ModelError as e:
            raise FatalError(_one_line(e)) from None
        except (VisionError, HandError, RulesetError) as e:
            from .io import display_name  # (the message names the file with control characters escaped)

            row["error"] = _one_line(e).replace(display_name(job.path), job.key).replace(job.path, job.key)
        except Exception as e:  # a bug must not stop a tournament's batch: report it on the row
            row["error"] = f"internal error: {type(e).__name__}: {_one_line(e)}".replace(job.path, job.key)
        else:
            r, s = res.reading, res.scored
            row.update(legal=int(bool(r.legal and s is not None)), confidence=round(float(r.confidence), 4),
                       reading=r.notation, problem=r.problem, tiles=sum(1 for x in r.roles if x != "ignored"),
                       changed=len(r.changed))
            dropped = [n for n in r.notes if "left out as a false detection" in n or "non-winner's hand" in n
                       or n.startswith("unsure:") or "added by you" in n]
            if r.legal and r.confidence < REVIEW_BELOW:  # what to check first
                used = [i for i, role in enumerate(r.roles) if role != "ignored"]
                if used:
                    i = min(used, key=lambda k: float(res.readings.probs[k].max()))
                    dropped.append(f"least sure: tile {res.position(i)} ({res.readings.codes[i]} read at "
                                   f"{float(res.readings.probs[i].max()):.0%})")
            if r.legal and dropped:  # never silently: the row says which box was left out, what was assumed
                row["problem"] = "; ".join(dropped)
            if s is not None:
                row.update(total=int(s.total), points=float(s.points), doublings=int(s.doublings),
                           allowed=int(bool(s.allowed)), breakdown=json.dumps(breakdown(s), separators=(",", ":")))
                if not s.allowed:
                    row["problem"] = "; ".join([s.status] + dropped) if r.legal else s.status
            entry = photo_entry("batch", job.key, res, context=ctx, options=dict(job.options), ruleset=job.ruleset,
                                fixes=fixes, exposed=job.exposed, winning_tile=job.winning_tile, input_sha256=sha,
                                input_label=job.path, note=f"batch photo {job.key}")
            row["history"] = json.dumps(entry, ensure_ascii=False, default=str)
    row["seconds"] = round(time.perf_counter() - t0, 4)
    row["scored_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


def breakdown(scored) -> list[dict[str, Any]]:
    """Per-rule lines of a ScoredHand, compact: rule id, kind, count, amount, seed source."""
    out = []
    for ln in scored.lines:
        amount = {"points": ln.points, "doublings": ln.doublings, "fixed": ln.fixed, "limit": ln.fixed,
                  "multiplier": ln.multiplier, "cash": ln.cash}.get(ln.kind, ln.value)
        if isinstance(amount, float) and amount.is_integer():
            amount = int(amount)
        d = {"rule": ln.rule, "kind": ln.kind, "amount": amount, "source": ln.source}
        if ln.count != 1:
            d["count"] = ln.count
        if ln.option:
            d["option"] = ln.option
        out.append(d)
    return out


# ============================================================================ state database
def open_state(path: str | os.PathLike) -> sqlite3.Connection:
    """Open (create) the batch state database: WAL journal, synchronous FULL, busy timeout."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(str(p), timeout=60.0)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("PRAGMA busy_timeout=60000")
    with con:
        con.executescript(STATE_SCHEMA)
    return con


_RESULT_COLS = ("key", "sha256", "params", "error", "legal", "confidence", "reading", "problem", "allowed", "total",
                "points", "doublings", "tiles", "changed", "breakdown", "history", "seconds", "scored_at")


def write_result(con: sqlite3.Connection, row: Mapping[str, Any]) -> None:
    """Insert or replace one photo's row and commit (the write-ahead step)."""
    vals = [row.get(c) for c in _RESULT_COLS]
    with con:
        con.execute(f"INSERT OR REPLACE INTO results ({', '.join(_RESULT_COLS)}, in_history) "
                    f"VALUES ({', '.join('?' * len(_RESULT_COLS))}, 0)", vals)


def file_hash(con: sqlite3.Connection, job: Job) -> str:
    """SHA-256 of the job's file, cached in the state database by (size, mtime); "" when the file
    is missing or unreadable."""
    try:
        st = os.stat(job.path)
    except OSError:
        return ""
    if not os.path.isfile(job.path):
        return ""
    hit = con.execute("SELECT sha256 FROM files WHERE key=? AND size=? AND mtime_ns=?",
                      (job.key, st.st_size, st.st_mtime_ns)).fetchone()
    if hit:
        return hit[0]
    try:
        sha = _sha256_file(job.path)
    except OSError:
        return ""
    con.execute("INSERT OR REPLACE INTO files (key, size, mtime_ns, sha256) VALUES (?, ?, ?, ?)",
                (job.key, st.st_size, st.st_mtime_ns, sha))  # committed by the caller (a cache only)
    return sha


# ============================================================================ run
@dataclass
class Summary:
    """What a run did: photos in the batch, already done before it, scored now, counts by status,
    seconds, workers and the files written."""

    photos: int = 0
    resumed: int = 0
    scored: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    workers: int = 0
    outputs: list[str] = field(default_factory=list)
    settled: int = 0
    state: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class _InProcess:
    """A stand-in executor running tasks in this process (``--workers 0``)."""

    def submit(self, fn, *a) -> Future:
        f: Future = Future()
        try:
            f.set_result(fn(*a))
        except BaseException as e:  # noqa: BLE001 - delivered through the future like a pool does
            f.set_exception(e)
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def default_workers() -> int:
    """One worker per available CPU core, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def _same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name the same file (same path, or hard/symbolic links to it)."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def state_path_for(out: Path) -> Path:
    """The default state database of an output file: ``results.csv`` → ``results.batch.sqlite3``."""
    return out.with_name(out.stem + ".batch.sqlite3")


def run_batch(directory: str | os.PathLike, out: str | os.PathLike, *, manifest: str | os.PathLike | None = None,
              defaults: Defaults | None = None, workers: int = 1, state: str | os.PathLike | None = None,
              review_below: float = REVIEW_BELOW, reader: str = DEFAULT_READER, progress: bool | None = None,
              only_manifest: bool = False, history_db: str | os.PathLike | None = None,
              log: Callable[[str], None] | None = None) -> Summary:
    """Score every photo of ``directory`` not already in the state database, then write ``out``.

    ``workers`` processes (0: in this process); ``history_db`` None records no history. Returns a
    :class:`Summary`. Raises BatchError for a bad folder/manifest/output, or when the reader cannot
    start or a worker dies (the photos done so far are kept: rerun to resume).
    """
    d = Path(directory)
    if not d.is_dir():
        raise BatchError(f"{d}: not a folder of photos")
    out = Path(out)
    fmt = out.suffix.lower()
    if fmt not in (".csv", ".jsonl"):
        raise BatchError(f"--out {out}: the output must end in .csv or .jsonl")
    if not 0 <= review_below <= 1.0000001:  # (NaN too)
        raise BatchError(f"--review-below {review_below} must be between 0 and 1")
    if only_manifest and manifest is None:
        raise BatchError("--only-manifest needs --manifest CSV (the photos to score)")
    defaults = defaults or Defaults()
    jobs = build_jobs(d, manifest, defaults, only_manifest)
    if not jobs:
        raise BatchError(f"{d}: no photos found (extensions: {', '.join(sorted(PHOTO_EXTS))})"
                        + (" and none listed in the manifest" if manifest else ""))
    state_p = Path(state) if state else state_path_for(out)
    if manifest is not None:  # the files this run writes must not be the manifest it reads
        for what, path in (("--out", out), ("--state", state_p),
                           ("the settlements file", out.with_name(out.stem + ".settlements.csv"))):
            if _same_file(path, Path(manifest)):
                raise BatchError(f"{what} {path} is the manifest; choose another file")
    for what, path in (("--out", out), ("the settlements file", out.with_name(out.stem + ".settlements.csv"))):
        if _same_file(state_p, path):  # the database and a CSV written over each other: both lost
            raise BatchError(f"--state {state_p} is {what}; choose another file")
    try:
        rid = reader_identity(reader)
    except FatalError as e:
        raise BatchError(str(e)) from None
    from .batch_guard import check_outputs, lock_state

    # before any photo is scored: the outputs can be written, and no other run uses this state
    check_outputs([("--out", out), ("the settlements file", out.with_name(out.stem + ".settlements.csv"))])
    t0 = time.perf_counter()
    summary = Summary(photos=len(jobs), workers=workers, state=str(state_p))
    lock = lock_state(state_p)
    try:
        con = open_state(state_p)
    except (sqlite3.Error, OSError) as e:
        lock.release()
        raise BatchError(f"cannot open the batch state database {state_p}: {e}") from None
    try:
        todo: list[tuple[Job, str, str]] = []
        with con:  # one transaction for the hash cache
            for job in jobs:
                sha = file_hash(con, job)
                params = job.params(rid)
                hit = con.execute("SELECT 1 FROM results WHERE key=? AND sha256=? AND params=?",
                                  (job.key, sha, params)).fetchone()
                if hit:
                    summary.resumed += 1
                else:
                    todo.append((job, params, sha))
        if todo:
            _score_all(con, todo, reader, workers, progress, summary)
        summary.outputs, summary.settled, summary.counts = export(con, jobs, out, review_below)
        from .review import write_review  # the HTML page of the flagged rows (<out>.review.html)

        page = write_review(con, output_rows(con, jobs, review_below), out, len(jobs), reader, log)
        if page is not None:
            summary.outputs.append(str(page))
        if history_db is not None:
            flush_history(con, history_db)
    finally:
        con.close()
        lock.release()  # after the connection: see batch_guard.StateLock
    summary.seconds = round(time.perf_counter() - t0, 3)
    return summary


def _score_all(con, todo, reader, workers, progress, summary) -> None:
    from tqdm import tqdm

    if workers > 0:
        ex = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_init_worker)
    else:
        ex = _InProcess()
    max_inflight = max(2, 2 * workers)
    bar = tqdm(total=len(todo), unit="photo", desc="batch", disable=(not sys.stderr.isatty()) if progress is None else not progress,
               file=sys.stderr, dynamic_ncols=True, smoothing=0.05)
    pending: dict[Future, Job] = {}

    def drain(block_until_below: int) -> None:
        while len(pending) > block_until_below:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for f in done:
                job = pending.pop(f)
                row = f.result()  # FatalError / BrokenProcessPool propagate
                write_result(con, row)
                summary.scored += 1
                bar.update(1)

    try:
        for job, params, sha in todo:
            drain(max_inflight - 1)
            pending[ex.submit(score_job, job, reader, params, sha)] = job
        drain(0)
    except FatalError as e:
        raise BatchError(f"{e} ({summary.scored} photos scored and kept; fix this and rerun to resume)") from None
    except BrokenProcessPool:
        lost = ", ".join(sorted(j.key for j in pending.values())[:8])
        raise BatchError(f"a worker process died (out of memory?) while reading: {lost}; "
                        f"{summary.scored} photos scored and kept — rerun to resume") from None
    except KeyboardInterrupt:
        raise BatchError(f"interrupted: {summary.scored} photos scored and kept — rerun the same command to resume") from None
    finally:
        bar.close()
        ex.shutdown(wait=True, cancel_futures=True)


# ============================================================================ export
def _status(r: Mapping[str, Any], review_below: float) -> tuple[str, str | None]:
    if r["error"]:
        return f"error: {r['error']}", None
    if not r["legal"]:
        return "needs-review", r["problem"] or "no legal reading"
    if not r["allowed"]:
        return "needs-review", r["problem"] or "mahjong not allowed"
    if r["confidence"] is not None and r["confidence"] < review_below:
        return "needs-review", (f"confidence {r['confidence']:.0%} below {review_below:.0%}"
                                + (f"; {r['problem']}" if r["problem"] else ""))
    return "ok", r["problem"]


def output_rows(con: sqlite3.Connection, jobs: Sequence[Job], review_below: float) -> Iterator[tuple[Job, dict[str, Any]]]:
    """(job, output row) in job order, read from the state database one row at a time; a job
    without a database row (should not happen after a completed run) gets ``error: not scored``."""
    cols = ("error", "legal", "confidence", "reading", "problem", "allowed", "total", "points", "doublings",
            "tiles", "changed", "breakdown", "sha256")
    for job in jobs:
        rec = con.execute(f"SELECT {', '.join(cols)} FROM results WHERE key=?", (job.key,)).fetchone()
        r = dict(zip(cols, rec)) if rec else {c: None for c in cols} | {"error": "not scored (rerun to resume)"}
        status, problem = _status(r, review_below)
        pts = r["points"]
        typed = dict(job.typed)
        yield job, {
            "photo": job.key, "table": job.table, "hand": job.hand, "player": job.player,
            "seat_wind": typed.get("seat_wind", job.seat_wind),
            "winner": typed.get("winner", "yes" if job.winner else "no"), "ruleset": job.ruleset,
            "status": status, "reading": r["reading"] or "", "confidence": r["confidence"],
            "total": r["total"], "points": int(pts) if pts is not None and float(pts).is_integer() else pts,
            "doublings": r["doublings"], "tiles": r["tiles"], "changed": r["changed"], "problem": problem or "",
            "breakdown": json.loads(r["breakdown"]) if r["breakdown"] else [], "sha256": r["sha256"] or "",
        }


def settle_group(members: Sequence[tuple[Job, Mapping[str, Any]]]) -> dict[str, Any]:
    """Settle one table hand (the photos sharing table and hand): a JSON-ready record with
    ``status`` ok / provisional (a photo needs review) / ``not settled: <why>``, players, scores,
    winner, east, net and transfers (:func:`scoring.settle.settle`)."""
    from scoring.settle import settle

    job0 = members[0][0]
    rec: dict[str, Any] = {"type": "settlement", "table": job0.table, "hand": job0.hand, "ruleset": job0.ruleset,
                           "players": [], "scores": {}, "winner": None, "east": None, "net": {}, "transfers": []}
    labels = [j.player or j.seat_wind for j, _ in members]
    # each player's own winner/East marks from the manifest, kept when the hand cannot be settled
    marked = any(j.dealer for j, _ in members)  # a dealer cell says who is East; else seat E
    rec["players"] = [{"player": lab, "seat_wind": j.seat_wind, "photo": j.key, "winner": j.winner,
                       "east": bool(j.dealer) if marked else (j.dealer is None and j.seat_wind == "E")}
                      for lab, (j, _) in zip(labels, members)]

    def fail(why: str) -> dict[str, Any]:
        rec["status"] = f"not settled: {why}"
        return rec

    if len(members) != 4:
        return fail(f"{len(members)} photos (a table hand needs 4)")
    if len(set(labels)) != 4:
        return fail(f"players are not distinct ({', '.join(labels)}); give each a player or seat_wind")
    rulesets = {j.ruleset for j, _ in members}
    if len(rulesets) > 1:
        return fail(f"mixed rulesets {', '.join(sorted(rulesets))}")
    winners = [lab for lab, (j, _) in zip(labels, members) if j.winner]
    if len(winners) > 1:
        return fail(f"{len(winners)} winners ({', '.join(winners)})")
    dealers = [lab for lab, (j, _) in zip(labels, members) if j.dealer]
    if not dealers:
        dealers = [lab for lab, (j, _) in zip(labels, members) if j.dealer is None and j.seat_wind == "E"]
    if len(dealers) != 1:
        return fail(f"{'no' if not dealers else len(dealers)} East players (mark one with seat_wind E or dealer yes)")
    bad = [f"{j.key} ({row['status']})" for j, row in members if row["total"] is None]
    if bad:
        return fail("no score for " + ", ".join(bad))
    scores = {lab: int(row["total"]) for lab, (_, row) in zip(labels, members)}
    rec.update(scores=scores, winner=winners[0] if winners else None, east=dealers[0])
    try:
        s = settle(job0.ruleset, scores, rec["winner"], rec["east"], {})
    except (RulesetError, HandError, ValueError) as e:
        return fail(_one_line(e))
    rec.update(scheme=s.scheme, net=dict(s.net), transfers=[t.to_json() for t in s.transfers], notes=list(s.notes))
    review = [j.key for j, row in members if row["status"] != "ok"]
    rec["status"] = "ok" if not review else "provisional: " + ", ".join(review) + " needs review"
    return rec


def _atomic_write(path: Path, write: Callable[[io.TextIOBase], None]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:  # no temporary file is left behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return v


def export(con: sqlite3.Connection, jobs: Sequence[Job], out: Path,
           review_below: float) -> tuple[list[str], int, dict[str, int]]:
    """Write the output file(s) from the state database (atomically: a temporary file renamed).
    Returns (files written, table hands settled, count per status kind)."""
    groups: dict[tuple[str, str], list[tuple[Job, dict[str, Any]]]] = {}
    counts: dict[str, int] = {}
    written = [str(out)]

    def photo_rows() -> Iterator[dict[str, Any]]:
        for job, row in output_rows(con, jobs, review_below):
            kind = row["status"].split(":")[0]
            counts[kind] = counts.get(kind, 0) + 1
            if job.table and job.hand:  # keep only what settling needs
                slim = {"status": row["status"], "total": row["total"]}
                groups.setdefault((job.table, job.hand), []).append((job, slim))
            yield row

    settlements: list[dict[str, Any]] = []
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix.lower() == ".csv":
            def w(f):
                cw = csv.writer(f, lineterminator="\n")
                cw.writerow(OUTPUT_COLUMNS)
                for row in photo_rows():
                    cw.writerow([_cell(row[c]) for c in OUTPUT_COLUMNS])

            _atomic_write(out, w)
            settlements = [settle_group(m) for m in groups.values()]
            if settlements:
                sp = out.with_name(out.stem + ".settlements.csv")

                def ws(f):
                    cw = csv.writer(f, lineterminator="\n")
                    cw.writerow(SETTLEMENT_COLUMNS)
                    for s in settlements:
                        for p in s["players"]:
                            lab = p["player"]
                            mine = [t for t in s["transfers"] if lab in (t["payer"], t["payee"])]
                            cw.writerow([_cell(x) for x in (
                                s["table"], s["hand"], s["ruleset"], lab, p["seat_wind"], p["photo"],
                                "yes" if p["east"] else "no", "yes" if p["winner"] else "no",
                                s["scores"].get(lab), s["net"].get(lab), s["status"], mine)])

                _atomic_write(sp, ws)
                written.append(str(sp))
        else:
            def wj(f):
                for row in photo_rows():
                    f.write(json.dumps({"type": "photo", **row}, ensure_ascii=False) + "\n")
                settlements.extend(settle_group(m) for m in groups.values())
                for rec in settlements:
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")

            _atomic_write(out, wj)
    except OSError as e:
        raise BatchError(f"cannot write {out}: {e}") from None
    settled = sum(1 for rec in settlements if rec["status"].split(":")[0] in ("ok", "provisional"))
    return written, settled, counts


def flush_history(con: sqlite3.Connection, history_db: str | os.PathLike, chunk: int = 200) -> int:
    """Record in the history the scored rows not recorded yet, ``chunk`` rows per transaction
    (bounded memory), marking each chunk once it is recorded. Returns how many were recorded (a
    history that cannot be written gives one warning line and stops the flush)."""
    from scoring.history import record

    from .batch_guard import batch_identity, history_key

    bid = batch_identity(con)  # each entry keyed by batch, photo, content and parameters: a flush
    n = 0                      # repeated after a kill between the two writes below adds nothing
    last = -1
    while True:
        rows = con.execute("SELECT rowid, key, history, sha256, params FROM results WHERE in_history=0 "
                           "AND history IS NOT NULL AND rowid > ? ORDER BY rowid LIMIT ?", (last, chunk)).fetchall()
        if not rows:
            return n
        last = rows[-1][0]
        ids = record(None, [{**json.loads(h), "entry_key": history_key(bid, k, sha, params)}
                            for _, k, h, sha, params in rows], db=history_db)
        if not ids:
            return n
        with con:
            con.executemany("UPDATE results SET in_history=1 WHERE rowid=?", [(r[0],) for r in rows])
        n += len(ids)
