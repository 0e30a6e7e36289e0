"""``mahjong-score history``: list the scores recorded in :mod:`scoring.history`."""
from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any, Mapping

from commands.common import UserError, db_path, print_json, whole_number
from scoring.history import (ENV_DB, HISTORY_TABLES, TYPED_NOTE, _open_read_only, batch_photo, default_db_path, entries,
                             other_tables, superseded)
from vision.decode import format_confidence


def _text(v: Any) -> str:
    """A stored value as one printable line (None → '')."""
    if v is None:
        return ""
    t = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True, default=str) \
        if isinstance(v, (dict, list)) else str(v)
    t = " ".join(t.split())
    return t if t.isprintable() else "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in t)


def _conf(v: Any) -> str:
    return format_confidence(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _text(v)[:5]


def _fmt(e: Mapping[str, Any]) -> str:
    total = _text(e["total"])
    conf = _conf(e["confidence"])
    inp = _text(e["input"])
    photo = batch_photo(e.get("note")) if e.get("command") == "batch" else None
    typed = bool(photo) and TYPED_NOTE in _text(e.get("note"))
    if typed:  # (a row's typed hand: its photo named, as the row is)
        inp = f"{photo} (typed): {inp}"
    status = _text(e["status"])
    if e.get("damaged"):
        status = "damaged: " + ", ".join(e["damaged"])
    if e.get("superseded_by") is not None:  # (scored again: the entry that stands, scoring.history.superseded)
        status = f"→#{e['superseded_by']} {status}"
    status = status if len(status) <= 24 else status[:23] + "…"
    if len(inp) > 40:  # (a path keeps its file name, a typed row its photo's)
        inp = inp[:39] + "…" if typed else "…" + inp[-39:]
    reading = _text(e["reading"])
    return (f"{_text(e['id']):>5}  {_text(e['time']).replace('+00:00', 'Z'):<20}  {_text(e['command']):<7} "
            f"{_text(e['ruleset']):<19} {total:>6} {conf:>5}  {status:<24} {reading:<40} {inp}")


def _score_line(ln: Any) -> str:
    """One line of a stored score (``ScoredHand.to_json()["lines"]`` item); a line of another shape
    is shown as stored."""
    if not isinstance(ln, dict):
        return f"  {_text(ln)}"
    kind = ln.get("kind")
    try:
        amount = {"points": lambda: f"+{ln['points']:g} pts", "doublings": lambda: f"+{ln['doublings']} dbl",
                  "fixed": lambda: f"{ln['fixed']:g} fixed", "limit": lambda: f"{ln['fixed']:g} fixed"}.get(
            kind, lambda: _text(kind))()
    except (KeyError, TypeError, ValueError):
        amount = _text(kind) or "?"
    return f"  {amount:>14}  {_text(ln.get('name'))}  ({_text(ln.get('source'))})"


#: the largest integer SQLite stores
SQLITE_MAX = 2**63 - 1


def cmd_history(args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise UserError(f"--limit {args.limit} must be ≥ 0 (0: all entries)")
    path = Path(args.db).expanduser() if args.db else default_db_path()
    if path.is_dir():
        raise UserError(f"the history database {path} is a folder, not a database file")
    if not path.exists():
        from vision.io import looping_link

        loop = looping_link(path)
        if loop is not None:  # (a breaker's --db in a link loop had been told "no history yet")
            raise UserError(f"the history database {path}: {loop} is a symbolic link that loops")
        if args.json:
            print_json([])
        else:
            print(f"no history yet ({path} does not exist)")
        return 0
    # (SQLite's integers are 64-bit: a tester's --id/--limit 99999999999999999999 crashed with an
    # OverflowError; no id is that large, and such a limit is no limit)
    limit = None if args.limit <= 0 or args.limit > SQLITE_MAX else args.limit
    if args.id is not None and not 0 <= args.id <= SQLITE_MAX:
        raise UserError(f"no history entry {args.id} in {path}")
    try:
        con = _open_read_only(path)
        try:
            # (a database of something else, a batch's state: said as writing to it says it, not SQLite's "no such
            # table: entries" — a new user's `history --db out/results.batch.sqlite3`)
            others = other_tables(con, HISTORY_TABLES)
            if others:
                raise UserError(f"{path} is not a history database: a database of something else (it holds the "
                                f"table(s) {', '.join(others[:4])})")
            if not con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='entries'").fetchone():
                raise UserError(f"{path} is not a history database: it holds no history table (an empty SQLite "
                                f"file?)")
            rows = list(entries(con, limit, args.command, args.id))
            newer = superseded(con)
            for e in rows:
                e["superseded_by"] = newer.get(e["id"])
        finally:
            con.close()
    except sqlite3.Error as e:
        raise UserError(f"cannot read the history database {path}: {e}") from None
    if args.id is not None and not rows:
        raise UserError(f"no history entry {args.id} in {path}")
    if args.json:
        print_json(rows)
        return 0
    if args.id is not None:
        e = rows[0]
        for k in ("id", "time", "command", "input", "input_sha256", "reading", "confidence", "ruleset",
                  "total", "status", "note"):
            if e[k] is not None:
                print(f"{k}: {_text(e[k])}")
        if e.get("damaged"):
            print(f"damaged: {', '.join(e['damaged'])} (stored text that is not valid JSON, shown as stored)")
        if e.get("superseded_by") is not None:
            print(f"superseded_by: {e['superseded_by']} (scored again: entry {e['superseded_by']} is the one that "
                  f"stands{STANDS_WHY if e['superseded_by'] < e['id'] else ''})")
        for k in ("corrections", "context", "options"):
            if e[k]:
                print(f"{k}: {_text(e[k])}")
        score = e["score"]
        if isinstance(score, dict):
            lines = score.get("lines", [])
            print("score lines:")
            for ln in lines if isinstance(lines, list) else [lines]:
                print(_score_line(ln))
        elif score:
            print(f"score: {_text(score)}")
        return 0
    if not rows:  # (a new user's `--command batch` read "no entries" as an empty database)
        print(f"no {args.command} entries in {path}" if args.command else f"no entries in {path}")
        return 0
    print(f"{'id':>5}  {'time (UTC)':<20}  {'command':<7} {'ruleset':<19} {'total':>6} {'conf':>5}  "
          f"{'status':<24} {'reading':<40} input")
    for e in rows:
        print(_fmt(e))
    print(f"({len(rows)} most recent; database {path})")
    if any(e.get("superseded_by") is not None for e in rows):
        print("(→#N: scored again, entry N stands: a batch row's newest, rescored or typed in its notation cell; a "
              "photo read again, its newest ok entry, else its newest)")
    return 0


#: why an older entry of a photo stands over this newer one (scoring.history.superseded)
STANDS_WHY = ", the newest ok reading of this photo under this ruleset: this later one is not ok"


def register(subparsers) -> None:
    """Add the ``history`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "history", help="list the scores recorded in the history database",
        description="List the hands and photos scored by hand/photo/audit/batch/table/webcam, newest first: "
                    "input and its SHA-256, reading, corrections, ruleset, options, context, score, time. "
                    f"Database: --db PATH, else ${ENV_DB}, else the user data folder.")
    p.add_argument("--db", metavar="PATH", type=db_path, help="history database to read")
    p.add_argument("--limit", "-n", type=whole_number, default=20, help="show at most N entries (0: all); default 20")
    p.add_argument("--command", choices=["hand", "photo", "audit", "batch", "table", "webcam"], help="only this command's entries")
    p.add_argument("--id", type=whole_number, help="show one entry in full")
    p.add_argument("--json", action="store_true", help="print a JSON list (every field, score included)")
    p.set_defaults(func=cmd_history)
