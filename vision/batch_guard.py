"""Guards of ``mahjong-score batch`` (:mod:`vision.batch`): one run per state database, outputs
checked before any photo is scored, history entries that a rerun cannot duplicate.

* :func:`lock_state` takes an exclusive ``flock`` on the state database file for the whole run; a
  second batch on the same database (two identical commands at once) is refused at once with a
  one-line error instead of scoring everything a second time. The lock goes with the process (a
  kill releases it).
* :func:`check_outputs` refuses, before scoring, an output that is a folder or cannot be created
  (the folder is missing and cannot be made, or is not writable), leaving no file behind.
* :func:`batch_identity` is a random id kept in the state database (table ``batch_meta``);
  :func:`history_key` makes each photo's history entry key from it, the photo, its content hash,
  the scoring parameters and when the result was scored, so that the history (:mod:`scoring.history`, unique ``entry_key``) holds
  each result once however often the flush is repeated after a kill.
"""
from __future__ import annotations

import errno
import hashlib
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Sequence

from .errors import BatchError
from .io import looping_link

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock (documented in docs/batch.md)
    fcntl = None  # type: ignore[assignment]


class StateLock:
    """An exclusive lock on a state database file (see :func:`lock_state`). Release it after the
    database's SQLite connection is closed: closing this descriptor earlier would drop SQLite's own
    POSIX locks on the file."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)  # closing the descriptor releases the flock
            finally:
                self.fd = None

    def __enter__(self) -> "StateLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def lock_state(path: str | os.PathLike) -> StateLock:
    """Lock the batch state database ``path`` (created empty when missing) for this process.

    Raises :class:`vision.errors.BatchError` when another process (or another run in this one) holds it, or
    when the file cannot be created or opened.
    """
    p = Path(path)
    if fcntl is None:  # pragma: no cover
        return StateLock(None)
    loop = looping_link(p.parent)
    if loop is not None:  # (a breaker's --state in a link loop had been "File exists")
        raise BatchError(f"cannot open the batch state database {p}: {loop} is a symbolic link that loops")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise BatchError(f"cannot open the batch state database {p}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        # (another --state alone is refused beside an --out holding this one's results: a director followed it)
        raise BatchError(f"the batch state database {p} is in use by another batch run; wait for it to "
                        f"finish, or give this run another --out (and another --state, if you give one)") from None
    except OSError as e:  # a file system without locks: run unguarded rather than not at all
        if e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP):
            os.close(fd)
            raise BatchError(f"cannot lock the batch state database {p}: {e.strerror or e}") from None
    return StateLock(fd)


def check_outputs(paths: Sequence[tuple[str, Path]]) -> list[str]:
    """Check, before any photo is scored, that each output ``(what, path)`` can be written: not a
    folder, its folder exists or can be made, and a file can be created there (a probe file, removed
    at once). Returns the folders it made (said in the batch's summary: a new user's mistyped
    ``--out /nonexist/x.csv`` made ``/nonexist`` without a word). Raises
    :class:`vision.errors.BatchError` naming the output and the reason."""
    made: list[str] = []
    for what, path in paths:
        if path.is_dir():
            raise BatchError(f"{what} {path} is a folder; give a file name (ending in .csv or .jsonl)")
        loop = looping_link(path.parent)
        if loop is not None:  # (a breaker's --out inside a link loop had been "its folder cannot be made (File exists)")
            raise BatchError(f"cannot write {what} {path}: {loop} is a symbolic link that loops")
        try:
            if not path.parent.exists():  # (the top-most folder made: /nonexist of /nonexist/a/x.csv)
                top = path.parent
                while not top.parent.exists():
                    top = top.parent
                made.append(str(top))
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise BatchError(f"cannot write {what} {path}: its folder cannot be made ({e.strerror or e})") from None
        probe = path.with_name(f".{path.name}.{secrets.token_hex(4)}.probe")
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except OSError as e:
            raise BatchError(f"cannot write {what} {path}: {e.strerror or e}") from None
        os.close(fd)
        os.unlink(probe)
        if path.exists() and not os.access(path, os.W_OK) and not os.access(path.parent, os.W_OK):
            raise BatchError(f"cannot write {what} {path}: permission denied")
    return made


_META = "CREATE TABLE IF NOT EXISTS batch_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"


def batch_identity(con: sqlite3.Connection) -> str:
    """The random identity of the batch whose state database ``con`` is (made on first use, kept in
    table ``batch_meta``): 128 bits, hex."""
    with con:
        con.execute(_META)
        con.execute("INSERT OR IGNORE INTO batch_meta (name, value) VALUES ('batch_id', ?)", (secrets.token_hex(16),))
    return con.execute("SELECT value FROM batch_meta WHERE name='batch_id'").fetchone()[0]


def history_key(batch_id: str, key: str, sha256: str | None, params: str | None, scored_at: str | None = None) -> str:
    """The history ``entry_key`` of one batch result: SHA-256 over the batch identity, the photo's
    key, its content hash, the scoring parameters and when the result was scored (``scored_at``, the state's: the
    same result recorded again after a kill is one entry; a photo scored again is a new one, even with the bytes
    and cells of an earlier scoring — a director's photo put back after another was in its place had its new
    reading taken for the first one's entry, and the other photo's score stood in the history) (hex), prefixed
    ``batch:`` and the batch identity's first 12 characters, ``batch:1f2e3d4c5b6a:…``
    (:func:`scoring.history.superseded` tells a batch's rows from another's by it)."""
    h = hashlib.sha256("\x1f".join((batch_id, key, sha256 or "", params or "", scored_at or "")).encode()).hexdigest()
    return f"batch:{batch_id[:12]}:{h}"
