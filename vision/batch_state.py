"""The batch state database (SQLite, one per output): each photo's result as it is scored, and
the files' hashes (``files``: size and mtime, so an unchanged photo is not read again). Re-exported
by :mod:`vision.batch`; its lock is :mod:`vision.batch_guard`.
"""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Mapping

from .errors import BatchError
from .manifest import Job
from .readers import _sha256_file


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
    frame TEXT,
    refusal TEXT,
    no_winning_tile INTEGER,
    unsaid_non_winner INTEGER,
    score_confidence REAL,
    score_notes TEXT,
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


#: the tables a batch keeps in its state database: :data:`STATE_SCHEMA`'s, the review page's images
#: (``vision.review``) and the run's identity (``vision.batch_guard``)
STATE_TABLES = frozenset({"results", "files", "review_images", "batch_meta"})


#: the ``frame`` column of a row scored from the hand typed in its notation cell (its photo not read)
TYPED_FRAME = "typed in the notation cell (the photo not read)"


def open_state(path: str | os.PathLike) -> sqlite3.Connection:
    """Open (create) the batch state database: WAL journal, synchronous FULL, busy timeout. Raises
    :class:`~vision.errors.BatchError` for a database that holds other tables (the history's), before
    anything is written to it; sqlite3.Error for a file that is not a database."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(str(p), timeout=60.0)
    try:
        return _prepare_state(con, p)
    except BaseException:  # (a file that is not a database: its connection was left open)
        con.close()
        raise


def _prepare_state(con: sqlite3.Connection, p: Path) -> sqlite3.Connection:
    """The checks and schema of :func:`open_state` on the open connection ``con`` to ``p``."""
    # a database of something else (a tester's `--state hist.sqlite3`, the history, had the batch's tables
    # written into it): refused before anything is written
    from scoring.history import other_tables

    others = other_tables(con, STATE_TABLES)
    if others:
        raise BatchError(f"--state {p}: a database of something else (it holds the table(s) "
                         f"{', '.join(others[:4])}); give a file of its own (by default OUT.batch.sqlite3)")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("PRAGMA busy_timeout=60000")
    with con:
        con.executescript(STATE_SCHEMA)
    for table, added in (("results", _ADDED_COLS), ("files", _ADDED_FILE_COLS)):
        have = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
        for col, kind in added:  # a state database of an earlier version: resumed, the column added
            if col not in have:
                try:
                    with con:
                        con.execute(f"ALTER TABLE {table} ADD COLUMN {col} {kind}")
                except sqlite3.OperationalError as e:  # added meanwhile by another opener (an unguarded run)
                    if "duplicate column" not in str(e):
                        raise
    return con


#: a text cell starting with one of these is read by a spreadsheet as a formula (CSV injection): a batch output
#: writes it after a ``'`` (:func:`vision.batch_outputs._cell`)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: the error of a photo whose reading killed the worker process reading it, read again alone
#: (:func:`vision.batch._score_all`); the review page does not read it again (:mod:`vision.review`)
CRASHED_ERROR = ("the process reading this photo died (out of memory, or a crash of the image or model libraries), "
                 "also when it was read alone: the batch went on without it; a rerun tries it again")
#: … added to its row's parameters, so that a rerun reads it again
CRASHED_PARAMS = "|crashed"

#: result columns added since the first version of the state database (name, SQL type)
_ADDED_COLS = (("frame", "TEXT"), ("refusal", "TEXT"), ("no_winning_tile", "INTEGER"), ("unsaid_non_winner", "INTEGER"),
               ("score_confidence", "REAL"), ("score_notes", "TEXT"), ("cells_for", "TEXT"))
#: … and to the file-hash cache: ``stamp``, the file's inode and change time (:func:`file_hash`)
_ADDED_FILE_COLS = (("stamp", "TEXT"),)


_RESULT_COLS = ("key", "sha256", "params", "error", "legal", "confidence", "reading", "problem", "allowed", "total",
                "points", "doublings", "tiles", "changed", "frame", "refusal", "no_winning_tile",
                "unsaid_non_winner", "score_confidence", "score_notes", "breakdown", "history", "seconds", "scored_at",
                "cells_for")


def write_result(con: sqlite3.Connection, row: Mapping[str, Any]) -> None:
    """Insert or replace one photo's row and commit (the write-ahead step)."""
    vals = [row.get(c) for c in _RESULT_COLS]
    with con:
        con.execute(f"INSERT OR REPLACE INTO results ({', '.join(_RESULT_COLS)}, in_history) "
                    f"VALUES ({', '.join('?' * len(_RESULT_COLS))}, 0)", vals)


def file_hash(con: sqlite3.Connection, job: Job) -> str:
    """SHA-256 of the job's file, cached in the state database by (size, mtime, inode and change time); "" when the
    file is missing or unreadable. (Not by size and mtime alone: a breaker's two photos of one size, their times set
    alike as unzip, tar or ``cp -p`` leave them, swapped by name, kept their old scores; a file put in another's place
    is another inode, or changes its ctime.)"""
    try:
        st = os.stat(job.path)
    except OSError:
        return ""
    if not os.path.isfile(job.path):
        return ""
    stamp = f"{st.st_ino}:{st.st_ctime_ns}"
    hit = con.execute("SELECT sha256 FROM files WHERE key=? AND size=? AND mtime_ns=? AND stamp=?",
                      (job.key, st.st_size, st.st_mtime_ns, stamp)).fetchone()
    if hit:
        return hit[0]
    try:
        sha = _sha256_file(job.path)
    except OSError:
        return ""
    con.execute("INSERT OR REPLACE INTO files (key, size, mtime_ns, sha256, stamp) VALUES (?, ?, ?, ?, ?)",
                (job.key, st.st_size, st.st_mtime_ns, sha, stamp))  # committed by the caller (a cache only)
    return sha


def state_path_for(out: Path) -> Path:
    """The default state database of an output file: ``results.csv`` → ``results.batch.sqlite3``."""
    return out.with_name(out.stem + ".batch.sqlite3")


def batch_row(out: str | os.PathLike, photo: str) -> dict[str, Any]:
    """The scored row of ``photo`` in the batch whose results file is ``out`` (its state database beside it,
    ``results.csv`` → ``results.batch.sqlite3``, or ``out`` that database itself), as its history entry keeps it:
    ``input`` (the photo's path, or the notation of a hand typed in the row's notation cell), ``input_sha256``,
    ``ruleset``, ``options`` (a dict), ``context`` (a dict), ``corrections`` (a dict: ``fix`` a dict, ``add``,
    ``exposed``, ``winning_tile``, ``tileset``), ``total``, ``status``; and ``key`` (the row's photo cell),
    ``reading`` (the row's reading: a typed hand's with its winning tile), ``typed`` (True for a typed hand), and
    where the results file holds the row, ``row_status`` and ``row_problem`` as it has them (:func:`_output_status`).
    ``photo`` is the row's photo cell (``t1/a.jpg``), or a name or path whose file name one row alone has (in any
    case, as the manifest matches photos). For ``audit --from-batch``: a referee auditing a disputed batch score
    had to retype the row's ruleset, winds, fixes and melds, and audited another context (a director's 60 for the
    batch's 132).

    Raises BatchError for a results file with no state database beside it, a photo no row (or more than one) has,
    a row with no scored reading (an error row: its error named), or one whose stored entry is damaged."""
    out = Path(out)
    if not out.name:  # (`--from-batch ""` or `.`: Path.with_name had raised, an internal error)
        raise BatchError(f"--from-batch {str(out)!r}: give the results file a batch run wrote (its --out)")
    state = out if out.name.endswith(".batch.sqlite3") else state_path_for(out)
    if not state.is_file():
        raise BatchError(f"--from-batch {out}: no batch state database beside it ({state.name}); give the results "
                         f"file a batch run wrote (its --out), or the state database itself (its --state)")
    try:
        con = sqlite3.connect(f"file:{state}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT key, history, frame, error, reading FROM results").fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        raise BatchError(f"--from-batch {out}: its state database {state.name} cannot be read ({e})") from None
    rows = [r for r in rows if isinstance(r[0], str)]
    name = Path(photo).name
    found = ([r for r in rows if r[0] == photo] or [r for r in rows if r[0].casefold() == photo.casefold()]
             or [r for r in rows if Path(r[0]).name.casefold() == name.casefold()])
    if len(found) != 1:
        names = sorted(r[0] for r in rows)
        raise BatchError(f"--from-batch {out}: " + (
            f"no row for {photo} ({len(rows)} rows; give the photo as its photo column names it, e.g. "
            f"{names[0]})" if not found and names else f"no row for {photo}: the batch has no scored rows"
            if not found else f"{len(found)} rows are named {name} ({', '.join(r[0] for r in found)}): "
            f"give the one meant as its photo column names it"))
    key, history, frame, error, reading = found[0]
    try:
        entry = json.loads(history) if history else None
    except ValueError:
        entry = None
    if error or not isinstance(entry, dict):
        raise BatchError(f"--from-batch {out}: the row of {key} has no scored reading to audit"
                         + (f" ({str(error).splitlines()[0]})" if error else "") + ": correct the row's cells and "
                         f"rerun the batch")
    fix = (entry.get("corrections") or {}) if isinstance(entry.get("corrections") or {}, dict) else None
    if (not isinstance(entry.get("context"), dict) or not isinstance(entry.get("input"), str) or fix is None
            or not isinstance(fix.get("fix") or {}, dict) or not isinstance(entry.get("options") or {}, dict)
            or not isinstance(entry["context"].get("flags") or [], list)):
        raise BatchError(f"--from-batch {out}: the row of {key} is damaged in {state.name} (its stored reading "
                         f"cannot be read back): rerun the batch")
    said = _output_status(out, key)
    return {**entry, "corrections": fix, "key": key, "typed": frame == TYPED_FRAME,
            "reading": reading if isinstance(reading, str) else entry.get("reading"),
            **({"row_status": said[0], "row_problem": said[1]} if said is not None else {})}


def _output_status(out: Path, key: str) -> tuple[str, str] | None:
    """(status, problem) of the row ``key`` in the results file ``out`` (a batch's ``.csv`` or ``.jsonl``), as the
    run that wrote it judged it — with the manifest's ``checked`` cell and the same-picture and stale-cell checks,
    which the stored entry has not: a director's row ``ok`` by its checked cell was audited "needs-review". None
    where the file or the row cannot be read. Raises nothing."""
    import csv

    try:
        if out.suffix.lower() == ".jsonl":
            with open(out, encoding="utf-8") as f:
                for line in f:
                    rec = json.loads(line) if line.strip() else None
                    if isinstance(rec, dict) and rec.get("type") == "photo" and rec.get("photo") == key:
                        return str(rec.get("status") or ""), str(rec.get("problem") or "")
        elif out.suffix.lower() == ".csv":
            with open(out, encoding="utf-8-sig", newline="") as f:
                for rec in csv.DictReader(f):
                    photo = rec.get("photo") or ""
                    if photo[:1] == "'" and photo[1:2] in FORMULA_START:  # (a name a spreadsheet would run: '=a.jpg)
                        photo = photo[1:]
                    if photo == key:
                        return str(rec.get("status") or ""), str(rec.get("problem") or "")
    except (OSError, ValueError, csv.Error):
        return None
    return None
