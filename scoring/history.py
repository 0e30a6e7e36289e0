"""History: every scored hand or photo in an SQLite database — the audit trail for disputes.

Each entry records what was scored and how: the command (``hand``, ``photo``, ``audit``, ``batch``,
``webcam``), the input (notation, photo path, camera) and the SHA-256 of its bytes, the reading in
notation and its confidence, the corrections given (``--fix``, ``--exposed``, ``--winning-tile``),
the ruleset, the options in force, the context (winds, win source, flags), the total and the full
score (``ScoredHand.to_json()``), a status and the UTC time.

Where the database lives: ``--db PATH``, else ``$MAHJONG_SCORE_DB``, else
``platformdirs.user_data_dir("mahjong-score")/history.sqlite3``; ``--no-history`` records nothing.
Writing is best effort: a database that cannot be written gives one warning line on stderr and the
command carries on (the score is never lost for want of a history entry).

The database is opened in WAL mode with a busy timeout, so several commands (a batch and a ``hand``
in another terminal) can write at once. ``mahjong-score history`` lists it (read-only: a database
it cannot write, or a damaged row, is still listed).

**Idempotent entries.** An entry may carry an ``entry_key`` (unique in the table): a batch records
each photo under a key made of the batch's identity, the photo, its content hash, the scoring
parameters and when the result was scored, so recording the same result again — after a kill between the history write and the
batch's own bookkeeping, or from a rerun — adds nothing (:func:`insert` returns the existing id).
Entries of single commands (``hand``, ``photo``) have no key: each run is an event of its own.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import os
import sqlite3
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

ENV_DB = "MAHJONG_SCORE_DB"
SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    command TEXT NOT NULL,
    input TEXT,
    input_sha256 TEXT,
    reading TEXT,
    confidence REAL,
    corrections TEXT,
    ruleset TEXT,
    options TEXT,
    context TEXT,
    total INTEGER,
    score TEXT,
    status TEXT,
    note TEXT,
    entry_key TEXT
);
CREATE INDEX IF NOT EXISTS entries_sha ON entries(input_sha256);
"""
#: the tables of a history database (besides SQLite's own, named sqlite_…)
HISTORY_TABLES = frozenset({"entries"})
#: added in schema version 2 (after the table may exist without the column)
_KEY_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS entries_key ON entries(entry_key) WHERE entry_key IS NOT NULL"
#: columns of an entry, in table order (``id`` and ``time`` are set on insertion)
FIELDS = ("command", "input", "input_sha256", "reading", "confidence", "corrections", "ruleset",
          "options", "context", "total", "score", "status", "note", "entry_key")
_JSON_FIELDS = ("corrections", "options", "context", "score")


def default_db_path() -> Path:
    """``$MAHJONG_SCORE_DB`` if set, else ``user_data_dir("mahjong-score")/history.sqlite3``."""
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("mahjong-score")) / "history.sqlite3"


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks. Raises OSError when it cannot be read."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def same_digest(labelled: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The groups (of two or more, in first-seen order) of the labels of ``labelled`` (label, SHA-256)
    that share a digest; an empty digest (a file not read) is no one's: copies of one photo filed twice."""
    by: dict[str, list[str]] = {}
    for label, digest in labelled:
        if digest:
            by.setdefault(digest, []).append(label)
    return [g for g in by.values() if len(g) > 1]


def context_to_json(ctx: Any) -> dict[str, Any] | None:
    """A :class:`scoring.Context` as a JSON-ready dict (flags as a sorted list); None stays None."""
    if ctx is None:
        return None
    out = {}
    for f in dataclasses.fields(ctx):
        v = getattr(ctx, f.name)
        out[f.name] = sorted(v) if isinstance(v, (set, frozenset)) else v
    return out


def other_tables(con: sqlite3.Connection, own: frozenset[str]) -> list[str]:
    """The tables of the database ``con`` that are not in ``own`` nor SQLite's own (named ``sqlite_…``:
    ANALYZE's sqlite_stat1), sorted: a database of something else holds some."""
    return sorted({r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
                   if not r[0].startswith("sqlite_")} - own)


def connect(path: str | os.PathLike, timeout: float = 30.0) -> sqlite3.Connection:
    """Open (creating the folder and the schema if needed) a history database, waiting up to ``timeout`` seconds
    for another process's lock on it.

    Raises sqlite3.Error or OSError when it cannot be created or is not a history database (one
    holding tables other than :data:`HISTORY_TABLES` is refused before anything is written).
    """
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{p} is a folder, not a history database file")
    p.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(str(p), timeout=timeout)
    try:
        # a database of something else (a tester's `--db out.batch.sqlite3`, a batch's state, had the
        # history's table written into it, and the batch then refused to resume from it): refused
        # before anything is written
        others = other_tables(con, HISTORY_TABLES)
        if others:
            raise sqlite3.DatabaseError(f"a database of something else (it holds the table(s) "
                                        f"{', '.join(others[:4])}); give a history file of its own")
        con.execute("PRAGMA journal_mode=WAL")
        con.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        with con:
            con.executescript(_SCHEMA)
            cols = {r[1] for r in con.execute("PRAGMA table_info(entries)")}
            if "entry_key" not in cols:  # a version-1 database
                con.execute("ALTER TABLE entries ADD COLUMN entry_key TEXT")
            con.execute(_KEY_INDEX)
            con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        con.close()
        raise
    return con


def _dump(v: Any) -> Any:
    return None if v is None else json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)


def storable_text(text: str) -> str:
    """``text`` as UTF-8 can hold it (SQLite, CSV, JSON files): each byte of a file name that is not UTF-8 (held by
    Python as a lone surrogate, U+DC80–U+DCFF) written ``\\xff``, any other lone surrogate ``\\udXXX``; any other
    text unchanged. The one mapping of such names for the history, a batch's rows (:func:`vision.io.text_name`) and
    messages (:func:`vision.io.display_name`). Raises nothing."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join(f"\\x{ord(ch) - 0xDC00:02x}" if 0xDC80 <= ord(ch) <= 0xDCFF else
                       f"\\u{ord(ch):04x}" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


def one_line_text(msg: object) -> str:
    """``msg`` as one printable line: its text through :func:`storable_text`, then control and other unprintable
    characters (newline, ESC) escaped as Python writes them (``\\n``, ``\\x1b``), so a file name cannot break or
    recolour a terminal line (:func:`vision.io.display_name`, :func:`commands.common.printable`). Raises nothing."""
    s = storable_text(str(msg))
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in s)


def _storable(v: Any) -> Any:
    """``v`` as SQLite can store it: a string through :func:`storable_text` (a breaker's photo ``bad\\xff.jpg`` was
    read and scored, and its history entry crashed the command before the score was printed); anything else as
    it is."""
    return storable_text(v) if isinstance(v, str) else v


def _dump_storable(v: Any) -> Any:
    """A JSON field's value as stored text: JSON with any text UTF-8 cannot hold escaped by JSON itself (``\\udcff``),
    so that it reads back (written ``\\xff`` after dumping, it would be no JSON)."""
    text = _dump(v)
    if text is None or storable_text(text) == text:
        return text
    return json.dumps(v, ensure_ascii=True, sort_keys=True, default=str)


def insert(con: sqlite3.Connection, entries: Iterable[Mapping[str, Any]]) -> list[int]:
    """Insert entries (dicts with keys from :data:`FIELDS`; JSON fields as Python values) in one
    transaction; returns their ids. An entry whose ``entry_key`` is already in the table is not
    inserted again: its id is the existing entry's. Raises KeyError for an unknown key, sqlite3.Error
    on failure."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    ids = []
    with con:
        for e in entries:
            bad = set(e) - set(FIELDS) - {"time"}
            if bad:
                raise KeyError(f"unknown history field(s): {', '.join(sorted(bad))}")
            row = [e.get("time") or now] + [_dump_storable(e.get(k)) if k in _JSON_FIELDS else _storable(e.get(k))
                                            for k in FIELDS]
            cur = con.execute(f"INSERT OR IGNORE INTO entries (time, {', '.join(FIELDS)}) "
                              f"VALUES ({', '.join('?' * (len(FIELDS) + 1))})", row)
            if cur.rowcount == 1:
                ids.append(int(cur.lastrowid))
            else:  # the same entry_key is recorded already
                ids.append(int(con.execute("SELECT id FROM entries WHERE entry_key=?", (e["entry_key"],)).fetchone()[0]))
    return ids


def entries(con: sqlite3.Connection, limit: int | None = 20, command: str | None = None,
            entry_id: int | None = None) -> Iterator[dict[str, Any]]:
    """Entries newest first (JSON fields decoded), at most ``limit`` (None: all).

    A damaged row (a JSON field that does not decode, e.g. written by another program) keeps that
    field's raw text and lists it under ``"damaged"``; a database without a column (an older schema)
    gives None for it."""
    cols = {r[1] for r in con.execute("PRAGMA table_info(entries)")}
    q = "SELECT id, time, " + ", ".join(f if f in cols else f"NULL AS {f}" for f in FIELDS) + " FROM entries"
    where, args = [], []
    if command:
        where.append("command = ?")
        args.append(command)
    if entry_id is not None:
        where.append("id = ?")
        args.append(entry_id)
    if where:
        q += " WHERE " + " AND ".join(where)
    q += " ORDER BY id DESC"
    if limit is not None:
        q += " LIMIT ?"
        args.append(int(limit))
    for row in con.execute(q, args):
        d = dict(zip(("id", "time") + FIELDS, row))
        damaged = [k for k, v in d.items() if isinstance(v, (bytes, memoryview))]
        for k in damaged:  # a binary value where text belongs: shown as hex
            d[k] = bytes(d[k]).hex()
        for k in _JSON_FIELDS:
            if d[k] is not None:
                try:
                    d[k] = json.loads(d[k])
                except (TypeError, ValueError, RecursionError):
                    damaged.append(k)
        if damaged:
            d["damaged"] = sorted(set(damaged))
        yield d


#: the note of a batch row's entry (:mod:`vision.batch`): ``batch photo KEY`` and, for a hand typed in its notation
#: cell, this after it
BATCH_NOTE = "batch photo "
TYPED_NOTE = "hand typed in the notation cell"


def batch_photo(note: Any) -> str | None:
    """The photo (its key, as the batch's photo column names it) of a batch row's entry note, else None."""
    if not isinstance(note, str) or not note.startswith(BATCH_NOTE):
        return None
    return note[len(BATCH_NOTE):].split(": ")[0] or None


def superseded(con: sqlite3.Connection) -> dict[int, int]:
    """Entry id → the id of the newest entry that scored the same thing again since: a batch row (the photo its note
    names in the same batch — the batch identity in its ``entry_key``, ``batch:ID:…`` —: the photo read again with
    other cells or models, or a hand typed in that row's notation cell since; an entry of an older version, whose key
    names no batch, by its photo's path, a typed one never), or a photo scored by ``photo`` or ``webcam`` (the same
    file, its SHA-256, under the same ruleset, circumstances and options as the ruleset reads them: a reading made
    with another seat wind is its own): of those the newest ``ok`` one stands, where there is one, and the
    others, newer ones too, point at it (a new user's photo scored right with ``--fix 3=4m`` and read again without
    it, no legal reading, had the wrong reading standing; so had a tried ``--exposed`` at 2 %). Audits (each a
    verdict on a claim), typed hands and tables are their own events: never superseded. A director's history listed
    a row's 832 (needs-review) beside its 1216 (ok) with nothing saying which stood, and a typed row's entry under
    its notation alone."""
    cols = {r[1] for r in con.execute("PRAGMA table_info(entries)")}
    if not {"command", "note"} <= cols:
        return {}
    pick = ", ".join(c if c in cols else f"NULL AS {c}" for c in ("input", "input_sha256", "ruleset", "entry_key",
                                                                  "status", "context", "options"))
    latest: dict[tuple[Any, ...], int] = {}
    newer: dict[int, int] = {}
    photos: dict[tuple[Any, ...], list[tuple[int, bool]]] = {}  # a photo's entries: (id, ok)
    for id_, command, note, inp, sha, ruleset, key, status, context, options in con.execute(
            f"SELECT id, command, note, {pick} FROM entries ORDER BY id"):
        if command in ("photo", "webcam") and sha:
            # (under the same circumstances and options too: a reading made on purpose with another seat wind or
            # option is its own, not one an older ok reading stands over — a reviewer's)
            photos.setdefault(("photo", sha, ruleset, _circumstances(context), _options_read(ruleset, options)),
                              []).append((id_, str(status or "").startswith("ok")))
            continue
        photo = batch_photo(note) if command == "batch" else None
        parts = key.split(":") if isinstance(key, str) else []
        read = photo is not None and TYPED_NOTE not in str(note) and isinstance(inp, str)
        if photo is not None and len(parts) == 3 and parts[0] == "batch":
            k: tuple[Any, ...] = ("batch", parts[1], photo)
            # (an older version's entry of the photo read, its key naming no batch, is superseded by this batch's:
            # a reviewer's upgraded history had listed the 832 and the 1216 side by side again)
            if read and ("batch-path", inp) in latest:
                newer[latest.pop(("batch-path", inp))] = id_
        elif read:
            k = ("batch-path", inp)
        else:
            continue
        if k in latest:
            newer[latest[k]] = id_
        latest[k] = id_
    out = {}
    for i in newer:
        j = newer[i]
        while j in newer:
            j = newer[j]
        out[i] = j
    for found in photos.values():
        stands = next((i for i, ok in reversed(found) if ok), found[-1][0])
        out.update({i: stands for i, _ in found if i != stands})
    return out


def _circumstances(text: Any) -> Any:
    """A stored context or options (JSON text) as :func:`superseded` compares them: the parsed value with its keys in
    one order (a winner's hand scored records the hand's context, an unread one the command's: the same keys), the
    text as it is where it is no JSON."""
    try:
        return json.dumps(json.loads(text), sort_keys=True) if isinstance(text, str) else text
    except ValueError:
        return text


@functools.lru_cache(maxsize=256)
def _options_read(ruleset: Any, text: Any) -> Any:
    """Stored options (JSON text) as ``ruleset`` reads them, every option with its value (a scored entry records them
    all, an unread one only those given: the same reading), as :func:`_circumstances` compares; the text compared as
    it is where the ruleset or the options cannot be read (an older or damaged entry)."""
    try:
        from .engine import load_ruleset

        given = json.loads(text) if isinstance(text, str) else {}
        return json.dumps(load_ruleset(str(ruleset)).resolve_options(given), sort_keys=True, default=str)
    except (ValueError, TypeError):  # (an unknown ruleset, bad JSON, an option it no longer has: compared as stored)
        return _circumstances(text)


def db_from_args(args: argparse.Namespace) -> Path | None:
    """The history database chosen by ``--db``/``--no-history`` (None: do not record)."""
    if getattr(args, "no_history", False):
        return None
    db = getattr(args, "db", None)
    return Path(db).expanduser() if db else default_db_path()


def scored_fields(scored: Any) -> dict[str, Any]:
    """History fields from a :class:`scoring.ScoredHand` (or None): reading, ruleset, options,
    context, total, score."""
    if scored is None:
        return {}
    from .notation import format_hand

    return {"reading": format_hand(scored.hand), "ruleset": scored.ruleset, "options": dict(scored.options),
            "context": context_to_json(scored.hand.context), "total": scored.total, "score": scored.to_json()}


#: how long recording one command's entry waits for another process's lock on the history (seconds): a breaker's
#: `hand` printed nothing for 31 s while another held the database, then warned; a batch's flush waits 30
RECORD_WAIT = 5.0


def record(args: argparse.Namespace | None, items: Iterable[Mapping[str, Any]], db: str | os.PathLike | None = None,
           timeout: float = RECORD_WAIT) -> list[int]:
    """Record entries in the history chosen by ``args`` (or ``db``); best effort, waiting up to ``timeout`` seconds
    for a lock another process holds on it.

    Returns the new ids ([] when history is off or could not be written — then one warning line
    goes to stderr). A folder the history is made in, other than the default's, is said on stderr (a mistyped
    ``--db /nonexistent/x.db`` had made ``/nonexistent`` without a word).
    """
    path = Path(db) if db is not None else (db_from_args(args) if args is not None else default_db_path())
    if path is None:
        return []
    items = list(items)
    if not items:
        return []
    try:
        folder = path.parent
        if not folder.exists() and path != default_db_path():
            folder.mkdir(parents=True, exist_ok=True)
            print(f"mahjong-score: made the folder {folder} for the history (it did not exist)", file=sys.stderr)
        con = connect(path, timeout)
        try:
            return insert(con, items)
        finally:
            con.close()
    except (sqlite3.Error, OSError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        if path.is_dir():
            why = "it is a folder, not a database file"
        print(f"mahjong-score: warning: history not recorded in {path}: {why}", file=sys.stderr)
        return []


def scored_status(scored: Any) -> str:
    """The history status of a :class:`scoring.ScoredHand` (or None): ``ok``, or the ruleset's
    refusal (``mahjong not allowed: …``, e.g. the De Rode Draak entry rule, 001:1) — a refused
    mahjong scores 0 and is not recorded as ok."""
    if scored is None or getattr(scored, "allowed", True):
        return "ok"
    return str(getattr(scored, "status", "") or "mahjong not allowed")


#: the history status of a winner's hand typed with no winning tile (no ``win:`` in the notation, no
#: ``--winning-tile``): its score rests on no wait (:func:`scoring.engine.no_winning_tile_note`), as a photo's
#: ``unsure: no winning tile marked`` (:data:`vision.record.NO_WINNING_TILE_STATUS`)
NO_WINNING_TILE_GIVEN_STATUS = "unsure: no winning tile given"


def typed_status(scored: Any) -> str:
    """The history status of a hand typed in notation and scored (a :class:`scoring.ScoredHand`, or None):
    :func:`scored_status`, except :data:`NO_WINNING_TILE_GIVEN_STATUS` for an allowed winner's hand with no
    winning tile that should have one (:func:`scoring.hand.winning_tile_missing`). Raises nothing."""
    from .hand import winning_tile_missing

    status = scored_status(scored)
    if status == "ok" and scored is not None and winning_tile_missing(scored.hand):
        return NO_WINNING_TILE_GIVEN_STATUS
    return status


def record_hand(args: argparse.Namespace, command: str, notation: str, scored: Any, *,
                context: Any = None, options: Mapping[str, Any] | None = None,
                status: str | None = None, note: str | None = None) -> list[int]:
    """Record one hand scored from notation (``input_sha256`` = SHA-256 of the UTF-8 notation);
    ``status`` defaults to :func:`scored_status`."""
    e: dict[str, Any] = {"command": command, "input": notation, "input_sha256": sha256_bytes(notation.encode()),
                         "status": status or scored_status(scored), "note": note, "corrections": None,
                         "context": context_to_json(context), "options": dict(options or {}),
                         "ruleset": getattr(args, "ruleset", None)}
    e.update(scored_fields(scored))
    return record(args, [e])


def _open_read_only(path: Path) -> sqlite3.Connection:
    """The database opened for reading only. A database in a folder or file this user cannot write
    (WAL mode needs its ``-shm`` file) is opened as immutable instead."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    try:
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return con
    except sqlite3.OperationalError as e:
        con.close()
        if "readonly" not in str(e) and "unable to open" not in str(e):
            raise
    return sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, timeout=30.0)
