"""Batch outputs: each photo's status (ok / needs-review / error), the settled table hands, the
CSV or JSONL results written atomically, and the hands added to the history. Re-exported by
:mod:`vision.batch`.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any, Callable, Collection, Iterator, Mapping, Sequence

from scoring.errors import HandError, RulesetError
from scoring.tiles import wind_letter

from .batch_state import FORMULA_START
from .decode import confidence_value, format_confidence, format_confidence_below
from .errors import BatchError
from .manifest import CIRCUMSTANCE_CELLS, CIRCUMSTANCE_FLAGS, Job, false_win_players, settle_values_differ


#: output columns of the CSV (and keys of each JSONL photo record)
OUTPUT_COLUMNS = ("photo", "table", "hand", "player", "seat_wind", "winner", "ruleset", "status", "reading",
                  "confidence", "total", "points", "doublings", "tiles", "changed", "frame", "problem", "breakdown",
                  "sha256", "hand_tiles", "bonus_tiles", "score_confidence", "score_notes")

#: the ``frame`` of a photo scored by a version before the column existed (a resumed batch keeps its row)
FRAME_NOT_RECORDED = "not recorded (scored by an earlier version)"

#: the status of the false_win player's row (hk-tw-16's 假胡, a false mahjong, 004:50;
#: :attr:`vision.manifest.Job.false_win`): not scored as a hand, as `table` scores none, and no error: its table hand
#: is settled with the penalty
FALSE_WIN_STATUS = "false win: not scored"

#: the settlements CSV's columns, one row per player; ``paid``, ``received`` (points, the player's transfers summed)
#: and ``cash`` (the player's cash net, apart from points: hk-tw-16's) came last, after those of earlier versions
SETTLEMENT_COLUMNS = ("table", "hand", "ruleset", "scheme", "player", "seat_wind", "photo", "east", "winner", "score", "net",
                      "status", "transfers", "paid", "received", "cash", "notes")


#: the reader's advice names command-line flags; a batch row is corrected in its manifest cells (a new
#: user's problem column said "give --not-winner" where the review card said "set the winner cell")
MANIFEST_WORDS = (
    (re.compile(r"your corrections \(--fix/--add(?:/--exposed)?\)"), "the row's fix and add cells"),
    # (a non-winner's row of 14 tiles was told "has a dead hand: --flag dead-hand the winner cell (no)")
    (re.compile(r"--flag ([\w-]+) --not-winner"), r"\1 in the flags cell and the winner cell no"),
    (re.compile(r"give --not-winner"), "set the winner cell to no"),
    (re.compile(r"leave out --not-winner"), "set the winner cell to yes"),
    (re.compile(r"--not-winner"), "the winner cell (no)"),
    (re.compile(r"name it with --winning-tile"), "put it in the winning_tile cell"),
    (re.compile(r"--winning-tile (\w+)"), r"the winning_tile cell (\1)"),
    (re.compile(r"--winning-tile"), "the winning_tile cell"),
    (re.compile(r"--add the tile the photo missed"), "put the tile the photo missed in the add cell"),
    (re.compile(r"\(e\.g\. --(fix|add) ((?:POS|\d+)=[^\s,;:)]+)\)"), r"(e.g. \2 in the \1 cell)"),
    # (a loose flower's note, vision.decode.loose_bonus_note: "count them with --add 15=2f,16=3f", the list kept
    # whole)
    (re.compile(r"count (it|them) with --add (\d+=\w+(?:,\d+=\w+)*)"),
     lambda m: f"count {m.group(1)} by writing {m.group(2).replace(',', ' ')} in the row's add cell"),
    # (… a later note's, whose faces an earlier note's --add adds: "count it with the --add above (1f)")
    (re.compile(r"count (it|them) with the --add above \(([^)]*)\)"), r"count \1 with the tiles written in the add cell above (\2)"),
    # (… and its other way out: "or leave them out with --fix 25=-,26=-", the list whole)
    (re.compile(r"leave (it|them) out with --fix (\d+=-(?:,\d+=-)*)"),
     lambda m: f"leave {m.group(1)} out by writing {m.group(2).replace(',', ' ')} in the row's fix cell"),
    # (the frame doubt's way out, vision.pipeline.FRAME_DOUBT_ADVICE: a batch has no --turn)
    (re.compile(r"or read the photo another way up \(--turn DEG; --turn 0: as it is stored\)"),
     "or turn the photo file the right way up"),
    (re.compile(r"if the tiles stand upright in the photo as taken, read it so with --turn 0"),
     "if the tiles stand upright in the photo as taken, the reader guessed wrong: check the tiles it read"),
    # (a list said whole, its items split by spaces as the cell takes them: a tester's "add them with the add cell
    # (10=0x),13=0x", copied into a comma-separated manifest, made the line one cell too many)
    (re.compile(r"--(fix|add|exposed) ((?:POS|\d+)=[^\s,;:)]+(?:,\d+=[^\s,;:)]+)*)"),
     lambda m: f"the {m.group(1)} cell ({m.group(2).replace(',', ' ')})"),
    (re.compile(r"--(fix|add|exposed)\b"), r"the \1 cell"),
)


#: a settlement scheme's refusal names settle options (``settle -o``, ``table --settle-option``); a batch gives
#: them in the manifest's cells: a hand's settle cell, the winner's win_by cell (a reviewer's batch was told
#: "needs discarder=PLAYER (or win_by=self-drawn)", two options batch refuses as --settle-option for several hands)
SETTLE_WORDS = (
    (re.compile(r"needs discarder=PLAYER \(or win_by=self-drawn\)"),
     "needs its discarder: discarder=PLAYER in the hand's settle cell (or self-drawn in the winner's win_by cell)"),
    (re.compile(r"needs discarder=PLAYER, the player robbed"),
     "needs discarder=PLAYER in the hand's settle cell, the player robbed"),
    (re.compile(r"; is it a discard win\?"), "; is it a discard win (the winner's win_by cell)?"),
    (re.compile(r"settle it with no winner"), "settle it with every row's winner cell no"),
)


def plural(k: int, word: str) -> str:
    """``k`` and ``word``, with an ``s`` unless ``k`` is 1 ("1 photo", "2 photos"; a tester's "1 workers")."""
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _reworded(text: str, words: Sequence[tuple[re.Pattern, Any]]) -> str:
    """``text`` with each of ``words``' patterns replaced in turn (a (pattern, replacement) table; a replacement
    is a template or a function of the match, as :meth:`re.Pattern.sub` takes)."""
    for pattern, to in words:
        text = pattern.sub(to, text)
    return text


def settle_words(text: str) -> str:
    """A settlement scheme's refusal (:func:`scoring.settle.settle`) with the options it names said as the
    manifest's cells (:data:`SETTLE_WORDS`)."""
    return _reworded(text, SETTLE_WORDS)


#: the scoring's notes (``score_notes``) name command-line flags and settle options; a row with a manifest row gives
#: them in its cells (a reviewer: a director who wrote last-tile in the flags cell read "--last-tile scores nothing
#: here … (--win-by wall)", and hk-tw-16's streak note named a settle option batch refuses)
SCORE_NOTE_WORDS = (
    (re.compile(r"^--(last-tile|first-turn|kong-on-kong|announced-wait) scores nothing here"),
     r"\1 (the flags cell) scores nothing here"),
    (re.compile(r"^--(discards) scores nothing here"), r"the \1 cell scores nothing here"),
    (re.compile(r"^--(dealer)-(streak) scores nothing here"), r"the \1_\2 cell scores nothing here"),
    (re.compile(r"\(--win-by ([\w-]+)\)"), r"(the win_by cell \1)"),
    (re.compile(r"need --discards N"), "need the discards cell (N)"),
    (re.compile(r"\(--first-turn\)"), "(first-turn in the flags cell)"),
    (re.compile(r"with settlement option dealer_streak=(\d+)"), r"with \1 in the dealer's row's dealer_streak cell"),
    # (a ruleset's flag that scores nothing, scoring.engine._unused_flag_notes: a reviewer's)
    (re.compile(r"--flag ([\w-]+)"), r"\1 (the flags cell)"),
)


#: the cell each "scores nothing here" of :data:`SCORE_NOTE_WORDS` names (the first three patterns), the sixth's
#: "(--first-turn)" and the eighth's --flag (said of the flags cell only where the row gives one: a reviewer's), by
#: pattern index
_CELL_OF = {0: "flags", 1: "discards", 2: "dealer_streak", 5: "flags", 7: "flags"}


def score_note_words(text: str, has_row: bool = True, cells: Sequence[str] | None = None) -> str:
    """A note of the scoring (:attr:`scoring.results.ScoredHand.notes`) with the flags and settle options it names
    said as the manifest's cells (:data:`SCORE_NOTE_WORDS`); as it is for a photo without a manifest row
    (``has_row`` False), whose circumstances the command line gave. ``cells``: the cells the row gives
    (:attr:`vision.manifest.Job.cells`); a circumstance said to score nothing is its cell's only when the row
    gives that cell, else the batch command's flag it came from (a tester's manifest of photo and notation
    alone had been told of "the dealer_streak cell" for --dealer-streak)."""
    if not has_row:
        return text
    words = [w for k, w in enumerate(SCORE_NOTE_WORDS) if cells is None or k not in _CELL_OF or _CELL_OF[k] in cells]
    return _reworded(text, words)


#: said after the cells named, for a photo that has no manifest row (its cells are those of a new row)
NO_ROW_YET = " (this photo has no manifest row: add one for it, docs/batch.md)"


def manifest_words(text: str | None, has_row: bool = True) -> str | None:
    """``text`` (a reading's problem) with the flags it names said as the manifest's cells, each piece of it said
    once (:func:`said_once`); for a photo without a manifest row (``has_row`` False) followed by
    :data:`NO_ROW_YET` when a cell is named (a new user's batch with ``--not-winner`` was told "set the winner
    cell to yes" of a photo no row listed)."""
    if not text:
        return text
    said = _reworded(text, MANIFEST_WORDS)
    named = said != text
    said = said_once(said)
    return said + NO_ROW_YET if named and not has_row else said


def _split_top(text: str, seps: tuple[str, ...]) -> list[tuple[str, str]]:
    """``text`` cut at each of ``seps`` that lies outside parentheses and brackets: (the separator before,
    the piece) pairs, the first one's separator empty; joined back they are ``text``."""
    out: list[tuple[str, str]] = []
    depth, start, sep, i = 0, 0, "", 0
    while i < len(text):
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            hit = next((x for x in seps if text.startswith(x, i)), None)
            if hit is not None:
                out.append((sep, text[start:i]))
                sep, start = hit, i + len(hit)
                i = start
                continue
        i += 1
    out.append((sep, text[start:]))
    return out


#: a part of a clause said again is left out when it names no number (no tile, count or share: advice in general,
#: not about these tiles) and has at least this many words
_GENERAL_WORDS = 4


def said_once(text: str) -> str:
    """``text``, a problem cell's clauses joined by ``; ``, with each clause said once, in order: a clause said
    before is left out, and so is a part of a clause (cut at ``, `` and ``: ``, never its first) that an earlier
    clause said and that names no number — general advice, at least :data:`_GENERAL_WORDS` words. Every clause
    that says something of its own stays, with its tiles, numbers and cells: a new user's row of a columns
    composite with three loose flowers' notes had the same paragraph of add/fix advice three times in 1,500
    characters. Parentheses are not cut into. Raises nothing."""
    clauses = _split_top(text, ("; ",))
    seen_clauses: set[str] = set()
    seen_parts: set[str] = set()
    kept: list[str] = []
    for _, clause in clauses:
        key = " ".join(clause.split())
        if not key or key in seen_clauses:
            continue
        seen_clauses.add(key)
        parts = _split_top(clause, (", ", ": "))
        said = parts[0][1]
        for sep, part in parts[1:]:
            pk = " ".join(part.split())
            general = len(pk.split()) >= _GENERAL_WORDS and not any(ch.isdigit() for ch in pk)
            if general and pk in seen_parts:
                continue
            said += sep + part
        seen_parts.update(" ".join(p.split()) for _, p in parts[1:])
        kept.append(said)
    return "; ".join(kept)


#: the start of a row's error that names its manifest line, or the batch command's flags for a photo with no
#: manifest row (:func:`vision.batch.circumstance_error`)
_LINE_ERROR = re.compile(r"^manifest line \d+: ")
_NO_ROW_FLAGS = re.compile(rf"^{re.escape(CIRCUMSTANCE_FLAGS)}: ")
_ROW_CELLS = re.compile(rf"^manifest line \d+: {re.escape(CIRCUMSTANCE_CELLS)}: ")


def current_line(error: str, job: Job) -> str:
    """``error`` (a row's stored error) naming ``job``'s manifest line as the manifest holds it now: a resumed
    batch keeps a row whose parameters are unchanged, and its error had named the line it had when scored (a
    tester's reordered manifest: the problem said line 5, the card's advice line 6); a photo given a manifest row
    of empty cells (the same parameters) is told of that row, not that it has none, and one whose row is taken out
    that it has none. Raises nothing."""
    if job.line:
        error = _LINE_ERROR.sub(f"manifest line {job.line}: ", error, count=1)
        return _NO_ROW_FLAGS.sub(f"manifest line {job.line}: {CIRCUMSTANCE_CELLS}: ", error, count=1)
    # (and the reverse: a row of empty cells taken out of the manifest, the same parameters)
    return _ROW_CELLS.sub(f"{CIRCUMSTANCE_FLAGS}: ", error, count=1)


def stale_cells(r: Mapping[str, Any]) -> list[str]:
    """The correction cells (``fix``, ``add``) of state database row ``r`` written for another photo file than the
    one it was read from (its ``cells_for``, :func:`vision.batch.correction_cells_for`, against its ``sha256``); []
    when none, or the row is an error."""
    cf = r.get("cells_for")
    if not cf or r.get("error") or not r.get("sha256"):
        return []
    cells, _h, sha = str(cf).split(":", 2)
    return cells.split(",") if sha != r["sha256"] else []


def stale_words(cells: Sequence[str]) -> str:
    """"the photo file changed, and its fix cell did not": what the output row and the history entry say of
    :func:`stale_cells` ``cells``."""
    return f"the photo file changed, and its {' and '.join(cells)} cell{'s' if len(cells) > 1 else ''} did not"


def _status(r: Mapping[str, Any], review_below: float, ruleset: str = "") -> tuple[str, str | None]:
    """(status, problem) of a state database row ``r`` as the output says them, by ``review_below`` (0..1) and
    the score's confidence where stored (``score_confidence``: :func:`vision.pipeline.score_confidence`, a row of
    an earlier state database has only the reading's); ``ruleset`` the row's, named when the score is surer than
    the reading. A row read from another file than its fix/add cells were written for (:func:`stale_cells`) needs
    review, saying so."""
    if r["error"]:  # (a fix or add cell past the photo's tiles is known only when it is read: "--add:
        # position 99 …" said as the cell, as the problem column says the flags)
        return f"error: {manifest_words(r['error'])}", None
    if not r["legal"]:
        return "needs-review", r["problem"] or "no legal reading"
    if not r["allowed"]:
        return "needs-review", r["problem"] or "mahjong not allowed"
    cells = stale_cells(r)
    if cells:  # (vision.batch.correction_cells_for: the photo file changed, its correction cells did not)
        said = (f"{stale_words(cells)}: {'they name' if len(cells) > 1 else 'it names'} the tiles of the photo it "
                f"replaced; check {'them' if len(cells) > 1 else 'it'} against this one (a changed cell, or a checked "
                f"cell, clears this)")
        return "needs-review", "; ".join(x for x in (said, r["problem"]) if x)
    # the score's confidence where stored (flowers/seasons that cannot change the score are no doubt of it)
    conf = r["confidence"]
    sure = r["score_confidence"] if r.get("score_confidence") is not None else conf
    if sure is not None and sure < review_below:
        shown, score = format_confidence_below(conf, review_below), format_confidence_below(sure, review_below)
        return "needs-review", (f"confidence {shown} below {100 * review_below:g}%"
                                + (f" (the score {score} sure)" if score != shown else "")
                                + (f"; {r['problem']}" if r["problem"] else ""))
    guessed = r.get("no_winning_tile") or r.get("unsaid_non_winner")  # (its score is a guess whatever its tiles)
    if conf is not None and sure is not None and conf < review_below <= sure and not guessed:
        # (an ok row whose confidence is under the bar says why, first: a director filtering on it saw ok rows at
        # 62 %, the notes of loose flowers that cannot change the score before it)
        surer = (f"confidence {format_confidence_below(conf, review_below)}, but the score {format_confidence(sure)} "
                 f"sure: the rest of the doubt is in flowers/seasons that cannot change it"
                 + (f" under {ruleset}" if ruleset else ""))
        r = {**r, "problem": "; ".join(x for x in (surer, r["problem"]) if x)}
    # a winner's reading with no winning tile, or a 13-tile photo read as a non-winner's hand with no winner
    # cell (it may be a winner's with a tile missed, as `photo` says it): its problem says so
    if r.get("no_winning_tile") or r.get("unsaid_non_winner"):
        return "needs-review", r["problem"]
    return "ok", r["problem"]


def checked_words(checked: int, now: str | None = None) -> str:
    """What a row's ``checked`` cell says of it, in the output row and its history entry alike: "the total 40
    confirmed by hand" where the row scores the checked total (``now`` None), else "the checked cell confirms 40,
    but the row ``now``" (``now``: "scores 32 now", "has no legal reading now", …)."""
    if now is None:
        return f"the total {checked} confirmed by hand"
    return f"the checked cell confirms {checked}, but the row {now}"


def checked_status(job: Job, r: Mapping[str, Any], status: str, problem: str | None) -> tuple[str, str | None]:
    """(status, problem) of a row with a ``checked`` cell (:attr:`Job.checked`: the total a director confirmed by
    hand): a row scoring that total is ok, the check said first (a director could not mark a right row read under
    the review line as checked: it stayed needs-review, or a tile had to be "fixed" to the face it read); one
    scoring another total, or no legal reading, needs review, the cell named (the check was of another score: a
    cell corrected, the models or the scoring changed). ``status``/``problem``: as :func:`_status` gave them."""
    if job.checked is None or r.get("error"):
        return status, problem
    total = r.get("total")
    if r.get("legal") and r.get("allowed") and total is not None and total == job.checked:
        said = f"checked: {checked_words(job.checked)} (the checked cell)"
        return ("ok" if status == "needs-review" else status), "; ".join(x for x in (said, problem) if x)
    now = (("is refused by the ruleset now" if not r.get("allowed") else f"scores {total} now")
           if total is not None and r.get("legal") else "has no legal reading now")
    said = f"{checked_words(job.checked, now)}: check it again, and correct or clear that cell"
    return "needs-review", "; ".join(x for x in (said, problem) if x)


#: what a photo filed twice is told (:func:`_rows`)
SAME_PICTURE_WORDS = "one file's copies; check that each was filed for the right player and hand"


def same_picture(others: Sequence[str]) -> str:
    """"same picture as a.jpg, b.jpg" (three named at most, then "…"): a row's copies, in its output row and its
    history entry alike (:func:`_copies`)."""
    return f"same picture as {', '.join(others[:3])}{' …' if len(others) > 3 else ''}"


def _copies(con: sqlite3.Connection, jobs: Sequence[Job], unscored: Collection[str] = ()) -> dict[str, list[str]]:
    """Each job whose photo file has the SHA-256 (as the state database recorded it) of another job's: its key →
    the others' keys, in job order; a typed row's (its ``notation`` cell scored, the photo not read) is none. A photo
    not scored yet (the outputs of an interrupted run, ``unscored`` or without a row) is hashed from its file, so that
    a scored row's copy among them is said already (a new user's interrupted batch wrote ``ok`` for a photo the
    finished run marked "same picture as" one scored later); a file that cannot be read is no one's copy."""
    from scoring.history import same_digest

    from .batch_state import file_hash

    photos = [j for j in jobs if not j.notation]
    order = {j.key: k for k, j in enumerate(jobs)}
    recorded = {key: sha for key, sha in con.execute(
        "SELECT key, sha256 FROM results WHERE sha256 IS NOT NULL AND sha256 != ''")}
    labelled = []
    for j in photos:
        sha = recorded.get(j.key) if j.key not in unscored else None
        if sha is None:  # (not scored yet: its file's digest, as the run hashed it before scoring: cached by size and
            sha = file_hash(con, j)  # mtime in the state database, so a stopped run does not read its photos again)
        labelled.append((j.key, sha))
    out: dict[str, list[str]] = {}
    for group in same_digest(labelled):
        for key in group:
            out[key] = sorted((k for k in group if k != key), key=order.__getitem__)
    return out


def _renamed(con: sqlite3.Connection, jobs: Sequence[Job]) -> dict[str, str]:
    """Each photo of the folder that no manifest row lists whose file is the one a manifest row's photo, now gone,
    was last hashed as (the state database's file cache): its key → that row's key, and that row's key → its. A
    director's photo renamed without its manifest row was scored with the batch's defaults, ``ok``, 36 for the
    row's 38, while the row said only "no such file". Raises nothing."""
    import os

    from .batch_state import file_hash

    gone = {}
    for j in jobs:
        if j.line is not None and not j.notation and not os.path.isfile(j.path):
            hit = con.execute("SELECT sha256 FROM files WHERE key=?", (j.key,)).fetchone()
            if hit and hit[0]:
                gone.setdefault(hit[0], j.key)
    if not gone:
        return {}
    out: dict[str, str] = {}
    for j in jobs:
        if j.line is None and not j.notation:
            sha = file_hash(con, j)
            if sha in gone and gone[sha] not in out:
                out[j.key], out[gone[sha]] = gone[sha], j.key
    return out


def output_rows(con: sqlite3.Connection, jobs: Sequence[Job], review_below: float) -> Iterator[tuple[Job, dict[str, Any]]]:
    """(job, output row) in job order, read from the state database one row at a time; a job
    without a database row (should not happen after a completed run) gets ``error: not scored``."""
    for job, _, row in _rows(con, jobs, review_below):
        yield job, row


def _rows(con: sqlite3.Connection, jobs: Sequence[Job], review_below: float,
          unscored: Collection[str] = ()) -> Iterator[tuple[Job, dict[str, Any], dict[str, Any]]]:
    """(job, its state database row, its output row) of :func:`output_rows`; a job whose key is in
    ``unscored`` is written as not scored, whatever its database row holds."""
    cols = ("error", "legal", "confidence", "reading", "problem", "allowed", "refusal", "no_winning_tile",
            "unsaid_non_winner", "score_confidence", "score_notes", "total",
            "points", "doublings", "tiles", "changed", "frame", "breakdown", "sha256", "cells_for")
    copies = _copies(con, jobs, unscored)
    renamed = _renamed(con, jobs)
    for job in jobs:
        rec = None if job.key in unscored else con.execute(
            f"SELECT {', '.join(cols)} FROM results WHERE key=?", (job.key,)).fetchone()
        r = dict(zip(cols, rec)) if rec else {c: None for c in cols} | {"error": "not scored (rerun to resume)"}
        if r["error"]:
            r["error"] = current_line(r["error"], job)
            if job.key in renamed and job.line is not None:
                r["error"] += (f"; the photo {renamed[job.key]}, which no manifest row lists, is the file this row "
                               f"was scored from: renamed? put its name in this row")
        status, problem = ((FALSE_WIN_STATUS, r["problem"]) if job.false_win and not r["error"]
                           else _status(r, review_below, job.ruleset))
        if not job.false_win:
            status, problem = checked_status(job, r, status, problem)
        if job.key in renamed and job.line is None and status in ("ok", "needs-review"):
            # (scored with the batch's defaults, not the row's seat, winds and corrections)
            said = (f"this photo is the file manifest row {renamed[job.key]} was scored from, which is gone: renamed? "
                    f"put its name in that row (scored here with the batch's defaults, not that row's cells)")
            status, problem = "needs-review", "; ".join(x for x in (said, problem) if x)
        if job.key in copies and status in ("ok", "needs-review"):
            # (a photo filed twice is a score counted twice, or a player's photo lost: a tester's copy under another
            # name had an ok row, 40 points for a win that never was, said only in the console's summary)
            others = copies[job.key]
            said = f"{same_picture(others)}: {SAME_PICTURE_WORDS}"
            status, problem = "needs-review", "; ".join(x for x in (said, problem) if x)
        pts = r["points"]
        typed = dict(job.typed)
        yield job, r, {
            "photo": job.key, "table": job.table, "hand": job.hand, "player": job.player,
            "seat_wind": typed.get("seat_wind", job.seat_wind),
            # (a 13-tile photo read as a non-winner's, no winner cell said: "no", as it was scored; its status
            # needs-review says why)
            "winner": typed.get("winner", "yes" if job.winner and not r.get("unsaid_non_winner") else "no"),
            "ruleset": job.ruleset,
            "status": status, "reading": r["reading"] or "", "confidence": None if r["confidence"] is None else confidence_value(r["confidence"]),  # an old
            # state database's 1.0 too
            "total": r["total"], "points": int(pts) if pts is not None and float(pts).is_integer() else pts,
            "doublings": r["doublings"], "tiles": r["tiles"], "changed": r["changed"],
            "frame": r["frame"] if r["frame"] is not None else ("" if r["error"] else FRAME_NOT_RECORDED),
            "problem": manifest_words(problem, job.line is not None) or "",
            "breakdown": json.loads(r["breakdown"]) if r["breakdown"] else [], "sha256": r["sha256"] or "",
            **hand_size(r["reading"] if r["legal"] or job.false_win else None),
            # (the score's, which the status weighs; none for a row an earlier version scored, nor for no legal reading)
            "score_confidence": None if r["score_confidence"] is None else confidence_value(r["score_confidence"]),
            # (the scoring's notes: a circumstance of the win given that scores nothing for this hand, and what
            # would; a director's --last-tile on a discard win under nts had been dropped without a word)
            # (none recorded — null, an empty cell — for a row an earlier version scored, which may have had some)
            "score_notes": ([score_note_words(n, job.line is not None, job.cells) for n in json.loads(r["score_notes"])]
                            if r["score_notes"] else None if r["total"] is not None else []),
        }


def hand_size(reading: str | None) -> dict[str, int | None]:
    """The ``hand_tiles`` and ``bonus_tiles`` of a row whose ``reading`` (notation, as
    :func:`scoring.notation.format_hand` writes it) is a hand — a legal reading, a hand typed in the notation cell,
    a false mahjong typed —: the hand's size as the rulesets count it (:attr:`scoring.hand.Hand.tile_count`: the
    concealed tiles and 3 per meld on the table, a kong too: 14 or 17 for a winner, 13 or 16 for a non-winner, a
    false mahjong's 17 …) and its flowers and seasons, counted apart. Read from the reading, which every version of
    the state database has stored, so a resumed batch writes them for the rows an earlier version scored. Both None
    for no reading (``None``: an error row, a reading that is not legal, whose problem gives the count found) or
    one that is no hand (:class:`~scoring.errors.HandError`); the row's ``tiles`` counts every tile read one by
    one, a kong's four and the bonus tiles with them."""
    from scoring.notation import parse_hand

    try:
        hand = parse_hand(reading, sizes=None) if reading else None
    except HandError:
        hand = None
    return {"hand_tiles": None if hand is None else hand.tile_count,
            "bonus_tiles": None if hand is None else len(hand.bonus)}


def _one_line(e: BaseException) -> str:
    """An error's first line (its type's name when it has none)."""
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


def breakdown_cash_lines(lines: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """A scored hand's cash lines (money apart from points, hk-tw-16's 暗槓 $5, 台花 $5, 台草 $3, 004:42–43, and
    暗槓不亮 −$10) read back from its row's stored breakdown (:func:`vision.batch.breakdown`, whose format every
    version of the state database has written: ``kind`` ``cash``, ``amount`` the line's dollars, its count in),
    each rule's first only (:func:`scoring.settle.cash_lines_once`, as ``ScoredHand.cash`` and `table` count a
    兩吃 hand's, 004:47): ``rule``, ``amount`` and ``count``. Their amounts sum to the hand's cash; the lines
    name what a ``cash`` given replaces (:func:`scoring.settle.cash_replaced_note`)."""
    from scoring.settle import cash_lines_once

    return [{"rule": str(ln.get("rule")), "amount": float(ln.get("amount") or 0), "count": int(ln.get("count") or 1)}
            for ln in cash_lines_once(lines)]


def hands_cash(ruleset_id: str, labels: Sequence[str],
               members: Sequence[tuple[Job, Mapping[str, Any]]]) -> dict[str, Any]:
    """Each player's hand as :func:`scoring.settle.with_cash` reads it (a :class:`scoring.settle.HandCash`): the
    cash of the row's breakdown (the sum of its cash lines, :func:`breakdown_cash_lines`, each named as the
    ruleset names its rule) and the options it was scored with."""
    from scoring.engine import load_ruleset
    from scoring.settle import CashLine, HandCash

    rs = load_ruleset(ruleset_id)
    names = {r.id: r.name for r in rs.rules}
    out: dict[str, Any] = {}
    for lab, (job, row) in zip(labels, members):
        try:
            opts = rs.resolve_options(dict(job.options))
        except RulesetError:  # (such a row has no score: its hand is not settled before this)
            opts = {}
        lines = tuple(CashLine(ln["rule"], names.get(ln["rule"], ln["rule"]), ln["amount"], ln["count"])
                      for ln in row.get("cash_lines") or ())
        out[lab] = HandCash(sum((ln.cash for ln in lines), 0.0), opts, lines)
    return out


def group_settle_options(ruleset_id: str, members: Sequence[tuple[Job, Mapping[str, Any]]], winner: int | None,
                         dealer: int, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settlement options of one table hand of a batch (``members``: its rows; ``winner``/``dealer``: the
    index of the winner's row, None for a void hand, and of the dealer's): the rows' ``settle`` cells (any row of
    the hand: hk-tw-16 ``discarder``, ``liable`` …) and ``given`` (``batch --settle-option``, the scheme's own
    keys: hk-tw-16 ``discarder``, swedish ``totals`` …), with one value per
    table fact taken from the rows, as ``table`` takes it: the ruleset options the scheme reads
    (``scoring.settle.table_options``: hk-tw-16 ``dealer_point``, ``dealer_streak_points``, ``cash_from``,
    swedish ``fine_remainder`` …) as the hands were scored with them (``--option``, the options cell), the
    winner's ``win_by`` (``scoring.settle.with_win_by``) and the dealer's row's ``dealer_streak`` (hk-tw-16 連莊,
    004:2: ``--dealer-streak``, the dealer_streak cell). Raises RulesetError (the hand is then not settled)
    when the rows give a shared option values that differ (their options or settle cells, naming the rows), or
    ``given`` contradicts the rows."""
    from scoring.engine import keyed_options, load_ruleset
    from scoring.settle import keyed_settle_options, same_settle_value, table_options, with_win_by

    rs = load_ruleset(ruleset_id)
    out = keyed_settle_options(rs.id, given or {}, "--settle-option")
    # the hand's own options, from its rows' settle cells (any row; one key on two rows must agree): a batch of
    # many hands had given every one the --settle-option discarder, each discard win paid by that player
    cell: dict[str, tuple[str, Job]] = {}
    for job, _ in members:
        for key, value in job.settle:
            if key in cell and not same_settle_value(rs.id, key, cell[key][0], value):
                raise RulesetError(settle_values_differ(key, (cell[key][0], _who(cell[key][1])), (value, _who(job))))
            cell.setdefault(key, (value, job))
    for key, (value, job) in cell.items():
        if key in out and not same_settle_value(rs.id, key, out[key], value):
            raise RulesetError(settle_values_differ(key, (out[key], None), (value, _who(job))))
        out.setdefault(key, value)
    # (batch checks --settle-option against --ruleset only: under a row's own ruleset cell a ruleset option given
    # so would reach the payments and not the hands, hk-tw-16's dealer_streak_points scoring 連莊 flat and paying
    # it per deal)
    for key, value in out.items():
        if key in rs.options:
            raise RulesetError(f"--settle-option {key}={value}: {key} is a ruleset option of {rs.id}: give it with "
                               f"--option or the rows' options cell (the hands are scored with it and the "
                               f"settlements read it)")
    shared: dict[str, Any] = {}
    rows = [keyed_options(job.options, "option", same=rs.same_value) for job, _ in members]
    for key in getattr(rs.module, "SETTLE_OPTIONS", ()):
        if key not in rs.options or not any(key in row for row in rows):
            continue
        # (a row that does not give it was scored with the default)
        values = [row.get(key, rs.options[key].default) for row in rows]
        for v in values[1:]:
            if not same_settle_value(rs.id, key, values[0], v):
                # (each value with the rows that give it, a row's default said as such: a director's one row with
                # fine_remainder=lowest-total was told only "as 'lowest-hand' and 'lowest-total'")
                said: list[tuple[Any, list[str]]] = []  # (a value, the rows giving it: values alike grouped as one)
                for (job, _), row, val in zip(members, rows, values):
                    at = next((grp for grp in said if same_settle_value(rs.id, key, grp[0], val)), None)
                    if at is None:
                        at = (val, [])
                        said.append(at)
                    at[1].append(_who(job) + ("" if key in row else " (the default)"))
                raise RulesetError(f"the rows' options give {key} as " + " and ".join(
                    f"{str(val)!r} ({', '.join(who)})" for val, who in said) + f": one table hand is settled one "
                    f"way; give the same {key} in every row's options cell, or in none (the default "
                    f"{str(rs.options[key].default)!r})")
        shared[key] = next(row[key] for row in rows if key in row)
    _, out = table_options(rs.id, shared, out)
    if winner is not None:
        out = with_win_by(rs.id, out, dict(members[winner][0].context).get("win_by", "discard"))
    streak = int(dict(members[dealer][0].context).get("dealer_streak") or 0)
    if "dealer_streak" in getattr(rs.module, "SETTLE_WHOLE_NUMBERS", ()):
        # (one typed on another row than the dealer's had been dropped without a word: one table, one streak)
        for job, _ in members:
            other = int(dict(job.context).get("dealer_streak") or 0)
            if other and other != streak:  # (a row that gives none: the dealer's is the table's)
                raise RulesetError(
                    f"the rows give the dealer streak as {streak} (the dealer {_who(members[dealer][0])}'s row) and "
                    f"{other} ({_who(job)}'s row): the table's dealer streak (連莊, 004:2) is the dealer's row's "
                    f"dealer_streak cell; give it there (or the same on every row)")
        if streak:
            out["dealer_streak"] = streak
    return out


def check_settle_options(jobs: Sequence[Job], settle_options: Mapping[str, Any] | None) -> None:
    """Before any photo is read: raises BatchError when ``settle_options`` (``batch --settle-option``, given to
    every table hand) hold an option that describes one hand (its ruleset module's ``SETTLE_PER_HAND``:
    hk-tw-16 ``discarder``, ``liable``, ``also_won``, ``cash``, ``false_win``; swedish ``totals``) and the batch
    holds more than one table hand (rows sharing table and hand) of such a ruleset: each would be settled with
    it, every discard win paid by one player. It goes in each hand's ``settle`` cell. A ruleset that cannot be
    loaded is its rows' problem (error rows)."""
    from scoring.engine import load_ruleset, option_key

    hands: dict[tuple[str, str], str] = {}
    for job in jobs:
        if job.table and job.hand:
            hands.setdefault((job.table, job.hand), job.ruleset)
    for name, value in (settle_options or {}).items():
        key = option_key(name)
        mine = []
        for (table, hand), ruleset in hands.items():
            try:
                rs = load_ruleset(ruleset)
            except RulesetError:
                continue
            if key in getattr(rs.module, "SETTLE_PER_HAND", ()):
                mine.append((f"table {table} hand {hand}", rs.id))
        if len(mine) > 1:
            named = ", ".join(h for h, _ in mine[:3]) + (" …" if len(mine) > 3 else "")
            raise BatchError(f"--settle-option {key}={value}: {key} describes one hand, and the batch holds "
                             f"{len(mine)} {'/'.join(sorted({r for _, r in mine}))} table hands ({named}): give "
                             f"each hand's in the settle cell of one of its manifest rows (e.g. {key}={value} on "
                             f"the winner's row; docs/batch.md)")


def _who(job: Job) -> str:
    """A row as a settlement's message names it: its player cell, else its photo."""
    return job.player or job.key


def void_hand_words(ruleset_id: str, declarer: str) -> str:
    """How a batch manifest gives one table hand as a void hand (no one went mahjong; ``table --winner none``),
    for :func:`scoring.settle.refused_win_text`'s ``void``: every row's winner cell no; ``declarer``'s row (the
    player whose mahjong was refused, holding more than 13 tiles) with no winning tile and, where the ruleset
    has the flag, the flags cell ``dead-hand`` (rode-draak: more than 13 tiles, 001:108), without which a
    non-winner's row of 14 tiles is an error row. Raises RulesetError for an unknown ruleset."""
    from scoring.engine import load_ruleset

    dead = "dead-hand" in getattr(load_ruleset(ruleset_id).module, "FLAGS", ())
    return (f"every row's winner cell set to no ({declarer}'s row, more than 13 tiles, with no winning_tile cell "
            f"or win: in its notation{' and dead-hand in its flags cell' if dead else ''})")


def unsaid_non_winner_words(player: str, photo: str, tiles: int | None, void: bool) -> str:
    """Why a table hand is not settled whose ``player``'s row (``photo``, its key) leaves the winner cell unsaid
    and had its photo read and scored as a non-winner's hand of ``tiles`` tiles (13; 16 under hk-tw-16; None: the
    count is not said): which cell to set, in the manifest's words; ``void`` when every other row of the hand is a
    non-winner's (the winner cell no then makes it a void hand). Raises nothing."""
    count = f" {tiles} tiles," if tiles else ""
    return (f"{player}'s photo ({photo}) reads{count} a non-winner's hand, and the winner cell says nothing: set "
            f"{player}'s winner cell (yes, and put the tile the photo missed in the add cell, or no"
            f"{': every row no, a void hand' if void else ''})")


def settle_group(members: Sequence[tuple[Job, Mapping[str, Any]]],
                 settle_options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Settle one table hand (the photos sharing table and hand): a JSON-ready record with
    ``status`` ok / provisional (a photo needs review) / ``not settled: <why>`` (each member a job and the cells of
    its row that settling reads, as :func:`export` keeps them; a row whose ``unsaid_non_winner`` is set, a winner
    by default whose 13-tile photo was read as a non-winner's hand, leaves the hand ``not settled``:
    :func:`unsaid_non_winner_words`), players, scores,
    winner, east, net, each player's points paid and received, cash (player → $ net apart from points, where the
    scheme settles cash: hk-tw-16; else empty) and transfers (:func:`scoring.settle.settle`), with the options of
    :func:`group_settle_options` (``settle_options``: ``batch --settle-option``) and, won or void, the
    cash the rows' own breakdowns report (a member's row ``cash_lines``: :func:`breakdown_cash_lines`) as `table` collects it
    (:func:`scoring.settle.with_cash`: a ``cash`` option given replaces it)."""
    from scoring.settle import players_for_seats, read_void_hand, refused_win_text, settle, with_cash

    job0 = members[0][0]
    rec: dict[str, Any] = {"type": "settlement", "table": job0.table, "hand": job0.hand, "ruleset": job0.ruleset,
                           "scheme": None, "players": [], "scores": {}, "winner": None, "east": None, "net": {},
                           "paid": {}, "received": {}, "cash": {}, "transfers": [], "notes": []}
    labels = [j.player or j.seat_wind for j, _ in members]
    # each player's own winner/East marks from the manifest, kept when the hand cannot be settled; a row
    # whose cells cannot be used has none (null), its seat_wind and winner cells as typed under "typed"
    # (a winner cell `maybe` had been listed as a winner, a seat_wind `X` as East)
    marked = any(j.dealer for j, _ in members)  # a dealer cell says who is East; else seat E
    # (a row whose 13-tile photo was read as a non-winner's hand, its winner cell unsaid: no, as its output row says
    # and as it was scored)
    # (each player's own ruleset: a breaker's table hand of nts, swedish and rode-draak rows, not settled for it, had
    # every player's row of the settlements file say nts, the first row's)
    rec["players"] = [{"player": lab, "seat_wind": j.seat_wind, "photo": j.key, "ruleset": j.ruleset,
                       "winner": j.winner and not row.get("unsaid_non_winner"),
                       "east": bool(j.dealer) if marked else (j.dealer is None and j.seat_wind == "E")}
                      if not j.error else
                      _unusable_player(lab, j, marked)
                      for lab, (j, row) in zip(labels, members)]

    def fail(why: str) -> dict[str, Any]:
        rec["status"] = f"not settled: {why}"
        # (the scores the rows have, said all the same: a new user's settlements file left Ann's 40 and Bob's 4 blank
        # beside the row that could not be read)
        rec["scores"] = {lab: int(row["total"]) for lab, (_, row) in zip(labels, members)
                         if row.get("total") is not None}
        return rec

    # a false_win (假胡) the rows do not say surely (two values, a name no player has): no row was read as the false
    # mahjong, and its 17 tiles made an error row; the settlement says why, not "no score for …" (a reviewer's)
    doubt = false_win_players([j for j, _ in members], settle_options)[1]
    if doubt:
        return fail(settle_words(next(iter(doubt.values()))))
    # a row whose manifest cells cannot be used says nothing sure about its player (a winner cell
    # `maybe` had been counted as a second winner, a seat_wind `X` as East): the hand waits for it
    unusable = [j.key for j, _ in members if j.error]
    if unusable:
        return fail(f"the manifest row of {', '.join(unusable)} cannot be used (its status names the cells to correct)")
    if len(members) != 4:
        return fail(f"{plural(len(members), 'photo')} (a table hand needs 4)")
    if len(set(labels)) != 4:
        return fail(f"players are not distinct ({', '.join(labels)}); give each a player or seat_wind")
    # four players sit at four winds: a seat wind given twice scored one hand with another's seat (a director's Dee,
    # typed seat S as Bob was, had her 222z counted as her own wind, 16 for 8, and the hand settled ok)
    # (the winds the rows were scored with, a default --seat-wind too, once any row gives its own: a reviewer's Bob
    # S by his cell, Cas and Dee S by --seat-wind S, had been settled)
    told = any("seat_wind" in j.cells for j, _ in members)
    seats = [(lab, j.seat_wind if told else None) for lab, (j, _) in zip(labels, members)]
    twice = [(lab, w) for lab, w in seats if w and sum(1 for _, v in seats if v == w) > 1]
    if twice:
        return fail("seat winds given twice (" + ", ".join(f"{lab} {w}" for lab, w in twice)
                    + "): four players sit at four winds; correct the seat_wind cells")
    rulesets = {j.ruleset for j, _ in members}
    if len(rulesets) > 1:
        return fail(f"mixed rulesets {', '.join(sorted(rulesets))}")
    # one hand is played in one round (a tester's table hand with three rows of round E and one of S, each hand
    # scored with its own, was settled ok without a word)
    rounds = {lab: dict(j.context).get("round_wind", "E") for lab, (j, _) in zip(labels, members)}
    if len(set(rounds.values())) > 1:
        return fail("round winds differ (" + ", ".join(f"{lab} {w}" for lab, w in rounds.items())
                    + "): one hand is played in one round; correct the round_wind cells")
    # a winner by default (no winner cell) whose photo of 13 tiles was read and scored as a non-winner's hand (its
    # output row says winner no) is neither paid as the winner nor taken for a non-winner: `table` reads its
    # --winner's 13-tile photo as a winner's, `found 13 tiles …`, and settles nothing (a reviewer's batch had paid
    # Dee +80 as the winner for the hand his row scored 20 as a non-winner's)
    unsaid = [(lab, j, row) for lab, (j, row) in zip(labels, members) if j.winner and row.get("unsaid_non_winner")]
    if unsaid:
        lab, j, row = unsaid[0]
        void = all(not jj.winner for jj, _ in members if jj is not j)
        return fail(unsaid_non_winner_words(lab, j.key, row.get("hand_tiles"), void))
    winners = [lab for lab, (j, _) in zip(labels, members) if j.winner]
    if len(winners) > 1:
        return fail(f"{len(winners)} winners ({', '.join(winners)})")
    # a non-winner's win_by cell (kept apart, Job.win_by_cell: a column filled down) is the winner's, or the hand is
    # not settled (a tester's hk-tw-16 hand had been settled as a discard win, a non-winner's "wall" dropped unsaid)
    won_by = (dict(members[labels.index(winners[0])][0].context).get("win_by", "discard") if winners else None)
    odd = [(lab, j.win_by_cell) for lab, (j, _) in zip(labels, members) if j.win_by_cell and j.win_by_cell != won_by]
    if odd:
        said = ", ".join(f"{lab} {w}" for lab, w in odd)
        return fail(f"the win_by cells of non-winners say {said}, " + (
            f"but the winner {winners[0]} won by {won_by}: the win_by is the winner's; correct or clear those cells"
            if winners else "but nobody won: clear those cells"))
    dealers = [lab for lab, (j, _) in zip(labels, members) if j.dealer]
    if not dealers:
        dealers = [lab for lab, (j, _) in zip(labels, members) if j.dealer is None and j.seat_wind == "E"]
    if len(dealers) != 1:
        # (two marked: "mark one with … dealer yes" had been said to a director whose rows both said dealer yes)
        return fail("no East player (mark one with seat_wind E or dealer yes)" if not dealers else
                    f"{len(dealers)} East players ({', '.join(dealers)}): one player is East; set the others' dealer "
                    f"cell to no or their seat_wind to their own wind")
    # (the false_win player's row has none: his 假胡 hand is not scored, as `table` scores none, and counts 0; an
    # error there, a photo that is not there, is still one)
    bad = [f"{j.key} ({row['status']})" for j, row in members
           if row["total"] is None and row["status"] != FALSE_WIN_STATUS]
    if bad:
        return fail("no score for " + ", ".join(bad))
    # the winner's mahjong refused by the ruleset (ScoredHand.allowed false: total 0, "mahjong not allowed: …")
    # is not settled, in `table`'s words (a director's rode-draak table had been settled on the winner's 0)
    # What follows (the ruleset's FALSE_MAHJONG: rode-draak's mahjong declared wrongly, 001:118-120) is said in
    # the manifest's words for a void hand: no row a winner (table says --winner none). The declarer's row then
    # holds more than 13 tiles, which a non-winner's row takes only as a dead hand (the flags cell).
    refused = [(lab, row) for lab, (j, row) in zip(labels, members)
               if j.winner and not j.false_win and not row.get("allowed", True)]
    if refused:
        lab, row = refused[0]
        return fail(refused_win_text(lab, row.get("refusal"), job0.ruleset, void_hand_words(job0.ruleset, lab)))
    scores = {lab: 0 if row["total"] is None else int(row["total"]) for lab, (_, row) in zip(labels, members)}
    rec.update(scores=scores, winner=winners[0] if winners else None, east=dealers[0])
    try:
        opts = group_settle_options(job0.ruleset, members, labels.index(rec["winner"]) if winners else None,
                                    labels.index(rec["east"]), settle_options)
        # the cash the hands' own lines report (a 暗槓 $5 read in a non-winner's hand), collected as `table`
        # collects it (with_cash), whether or not the hand was won: a void hand's rows are scored as non-winners'
        # and `table` scores a void hand's hands so too (scoring.settle.scores_void_hands); the settlement decides
        # by hk-tw-16 option cash_when_void (004-33), its note naming it (a void hand had collected none). A `cash`
        # given in the settle cell or --settle-option replaces it, as `table --settle-option cash=` does. A
        # director's batch had settled $0 for a concealed kong that `table` settled E +15, S/W/N −5
        # a seat wind given where a player is expected (discarder=W) is the player in that seat, when the rows'
        # seat winds say who sits where (a director's discarder=W had left the hand not settled, "not one of the
        # players Ann, Bob, Cas, Dee"); said in a note
        opts, seated = players_for_seats(job0.ruleset, opts, {lab: j.seat_wind for lab, (j, _) in zip(labels, members)})
        hands = hands_cash(job0.ruleset, labels, members)
        # the false_win player's hand typed (not scored): where the cash it shows would have been collected, a note
        # says so, as `table` says it (scoring.settle.read_void_hand)
        unscored = [read_void_hand(job0.ruleset, lab, row["reading"], j.make_context(), dict(j.options), opts,
                                   "cash={player}:DOLLARS in the hand's settle cell").note
                    for lab, (j, row) in zip(labels, members)
                    if j.false_win and j.notation is not None and rec["winner"] is None]
        opts = with_cash(job0.ruleset, opts, hands)
        s = settle(job0.ruleset, scores, rec["winner"], rec["east"], opts, scored=hands)
    except (RulesetError, HandError, ValueError) as e:
        return fail(settle_words(_one_line(e)))
    # as `table --json` gives the settlement (Settlement.to_json), each player's points paid and received beside
    # it: a director's sums had to be read out of the transfers, and the cash (hk-tw-16's 暗槓 $5, 台花 $5, 台草 $3,
    # 004:42-43) out of the notes alone ("cash net (apart from points): …"); a scheme with no cash gives {}
    said = s.to_json()
    rec.update(scheme=said["scheme"], net=said["net"], paid=s.paid(), received=s.received(), cash=said["cash"],
               transfers=said["transfers"], notes=seated + [n for n in unscored if n] + said["notes"])
    review = [j.key for j, row in members if row["status"] not in ("ok", FALSE_WIN_STATUS)]
    # (several photos "need review": a tournament director read "t1/ann.jpg, t1/cas.jpg needs review")
    rec["status"] = ("ok" if not review else
                     "provisional: " + ", ".join(review) + (" needs review" if len(review) == 1 else " need review"))
    # the four hands of one deal hold at most 4 of a tile and one of each flower and season: more is a photo
    # misread, however sure its reading (as `table` checks)
    over = _over_the_set(labels, members)
    # one picture filed for two players (its copies, byte for byte): one of them is not that player's hand
    from scoring.history import same_digest

    over += [f"{' and '.join(labs)} have the same photo"
             for labs in same_digest((lab, row.get("sha256") or "") for lab, (_, row) in zip(labels, members))]
    if over:
        typed = any(j.notation is not None for j, _ in members)  # (a hand typed in a notation cell may be mistyped)
        rec["notes"].append(f"check: {'; '.join(over)}: a photo is misread or misfiled"
                            + (", or a hand typed in a notation cell is mistyped" if typed else ""))
        rec["status"] = ("provisional: " + "; ".join(over) if not review
                         else f"{rec['status']}; {'; '.join(over)}")
    return rec


def _over_the_set(labels: Sequence[str], members: Sequence[tuple[Job, Mapping[str, Any]]]) -> list[str]:
    """:func:`scoring.settle.tiles_over_the_set` of the members' readings (notation), as text; a reading
    that does not parse is left out."""
    from scoring.notation import parse_hand
    from scoring.settle import over_the_set_text, tiles_over_the_set

    hands = {}
    for lab, (_, row) in zip(labels, members):
        try:
            hands[lab] = parse_hand(row.get("reading") or "", sizes=None)
        except HandError:
            continue
    return [over_the_set_text(t, held) for t, held in tiles_over_the_set(hands)]


class _CsvRows:
    """Rows of a CSV file ended by ``\\n``, a row holding a carriage return written with every cell quoted:
    Python's csv module quotes only the line terminator's characters, and a photo whose name held a
    bare ``\\r`` split its row in two for the readers that end a line there (a tester's name)"""

    def __init__(self, f: io.TextIOBase):
        self._plain = csv.writer(f, lineterminator="\n")
        self._quoted = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, cells: Sequence[Any]) -> None:
        cr = any(isinstance(c, str) and "\r" in c for c in cells)
        (self._quoted if cr else self._plain).writerow(cells)


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


def _unusable_player(label: str, job: Job, marked: bool) -> dict[str, Any]:
    """A settlement's player whose manifest row cannot be used: no winner mark, East from its dealer cell
    when that was understood, else (no row of the hand marked dealer) from its seat wind cell as typed
    when it is a wind; the cells as typed under ``typed``."""
    typed = dict(job.typed)
    seat = typed.get("seat_wind", job.seat_wind)
    east = job.dealer if job.dealer is not None else (None if marked else _typed_east(seat))
    return {"player": label, "seat_wind": seat, "photo": job.key, "ruleset": typed.get("ruleset", job.ruleset),
            "winner": None, "east": east, "typed": typed}


def _typed_east(seat: str) -> bool | None:
    """Whether a seat_wind cell as typed says East (None: it is not a wind, :func:`scoring.tiles.wind_letter`)."""
    w = wind_letter(seat)
    return None if w is None else w == "E"


def _yes_no(player: Mapping[str, Any], key: str) -> str:
    """A settlement player's ``east`` / ``winner`` mark for the CSV: yes/no, the cell as typed for a
    row whose manifest cells cannot be used (``winner`` maybe), else empty."""
    v = player.get(key)
    if v is None:
        return str(player.get("typed", {}).get(key, ""))
    return "yes" if v else "no"


def _cell(v: Any) -> Any:
    """A value as a CSV cell: None empty, lists and dicts as JSON, and text that a spreadsheet would
    run as a formula marked as text with a leading ``'`` (a tester's manifest `player` cell
    ``=cmd|calc`` was written as it was; the JSON lines output keeps every value as it is)."""
    if v is None:
        return ""
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    if isinstance(v, str) and v.startswith(FORMULA_START):
        return "'" + v
    return v


#: a score note (:func:`scoring.engine.unused_win_notes`, reworded to the manifest's cells or the command line's
#: flags) that says a circumstance of the win the row gives scores nothing for its hand
FLAG_UNSCORED = re.compile(r"\bscores nothing here\b")


def export(con: sqlite3.Connection, jobs: Sequence[Job], out: Path, review_below: float,
           unscored: Collection[str] = (), settle_options: Mapping[str, Any] | None = None,
           flag_unscored: list[str] | None = None,
           ) -> tuple[list[str], tuple[int, int, list[dict[str, str]], list[dict[str, Any]]], dict[str, int]]:
    """Write the output file(s) from the state database (atomically: a temporary file renamed);
    the photos whose keys are in ``unscored`` (a stopped run's, not scored yet) as ``error: not scored``;
    each table hand settled with ``settle_options`` (``batch --settle-option``: :func:`settle_group`).
    Returns (files written, (table hands settled, of which provisionally, the table hands not settled: each its
    ``table``, ``hand`` and ``why``, its status after ``not settled: ``, and every table hand not settled or settled
    provisionally: each its ``table``, ``hand``, ``status`` and ``players``, (label, photo key) in seat order, for
    the review page), count per status kind). ``flag_unscored``:
    a list the keys of the ``ok`` rows are appended to whose score notes say that a circumstance of the win they
    give scores nothing (:data:`FLAG_UNSCORED`: a director's last-tile on a discard win, said in the summary)."""
    groups: dict[tuple[str, str], list[tuple[Job, dict[str, Any]]]] = {}
    counts: dict[str, int] = {}
    written = [str(out)]

    def photo_rows() -> Iterator[dict[str, Any]]:
        for job, r, row in _rows(con, jobs, review_below, unscored):
            kind = row["status"].split(":")[0]
            counts[kind] = counts.get(kind, 0) + 1
            notes = row["score_notes"] or ()
            if flag_unscored is not None and kind == "ok" and any(FLAG_UNSCORED.search(n) for n in notes):
                flag_unscored.append(job.key)
            if job.table and job.hand:  # keep only what settling needs
                slim = {"status": row["status"], "total": row["total"], "reading": row["reading"], "sha256": row["sha256"],
                        # (a row scored before the refusal was kept: its problem begins with it)
                        "allowed": r["allowed"], "refusal": r["refusal"] or r["problem"],
                        # (a 13-tile photo read as a non-winner's, its winner cell unsaid: not paid as the winner)
                        "unsaid_non_winner": r["unsaid_non_winner"], "hand_tiles": row["hand_tiles"],
                        # the hand's own cash (暗槓 $5 …), from its breakdown: a row an earlier version wrote too
                        "cash_lines": breakdown_cash_lines(row["breakdown"])}
                groups.setdefault((job.table, job.hand), []).append((job, slim))
            yield row

    settlements: list[dict[str, Any]] = []
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix.lower() == ".csv":
            def w(f):
                cw = _CsvRows(f)
                cw.writerow(OUTPUT_COLUMNS)
                for row in photo_rows():
                    cw.writerow([_cell(row[c]) for c in OUTPUT_COLUMNS])

            _atomic_write(out, w)
            settlements = [settle_group(m, settle_options) for m in groups.values()]
            sp = out.with_name(out.stem + ".settlements.csv")
            if not settlements:
                # (an earlier run's settlements beside results that settle no table are stale: a new user's rerun
                # into the same --out without the manifest left the old payments beside it; run_batch checked it is
                # a settlements file of ours, as the review page of an earlier run is removed when nothing is flagged)
                sp.unlink(missing_ok=True)
            if settlements:

                def ws(f):
                    cw = _CsvRows(f)
                    cw.writerow(SETTLEMENT_COLUMNS)
                    for s in settlements:
                        for p in s["players"]:
                            lab = p["player"]
                            mine = [t for t in s["transfers"] if lab in (t["payer"], t["payee"])]
                            cw.writerow([_cell(x) for x in (
                                s["table"], s["hand"], p["ruleset"], s.get("scheme"), lab,
                                p["seat_wind"], p["photo"],
                                _yes_no(p, "east"), _yes_no(p, "winner"),
                                s["scores"].get(lab), s["net"].get(lab), s["status"], mine,
                                s["paid"].get(lab), s["received"].get(lab), s["cash"].get(lab),
                                # (how a settle cell was read, a cash it replaced: a director's table settled ok with
                                # Ann's own $5 replaced, said in the JSON Lines alone)
                                list(s.get("notes") or ()))])

                _atomic_write(sp, ws)
                written.append(str(sp))
        else:
            def wj(f):
                for row in photo_rows():
                    f.write(json.dumps({"type": "photo", **row}, ensure_ascii=False) + "\n")
                settlements.extend(settle_group(m, settle_options) for m in groups.values())
                for rec in settlements:
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")

            _atomic_write(out, wj)
    except OSError as e:
        raise BatchError(f"cannot write {out}: {e}") from None
    kinds = [rec["status"].split(":")[0] for rec in settlements]
    flagged = [{"table": rec["table"], "hand": rec["hand"], "status": rec["status"],
                "players": [(p["player"], p["photo"]) for p in rec["players"]]}
               for rec in settlements if rec["status"] != "ok"]
    unsettled = [{"table": f["table"], "hand": f["hand"], "why": f["status"].removeprefix("not settled: ")}
                 for f in flagged if f["status"].startswith("not settled")]
    return written, (sum(k in ("ok", "provisional") for k in kinds), kinds.count("provisional"), unsettled,
                     flagged), counts


def flush_history(con: sqlite3.Connection, history_db: str | os.PathLike, chunk: int = 200,
                  jobs: Sequence[Job] = ()) -> int:
    """Record in the history the scored rows not recorded yet, ``chunk`` rows per transaction
    (bounded memory), marking each chunk once it is recorded. Returns how many were recorded (a
    history that cannot be written gives one warning line and stops the flush). A photo of ``jobs`` filed twice
    (:func:`_copies`, as the output says it) is recorded needs-review, "same picture as …" (a director's history
    had said ok for rows the batch marked so), and so is a photo renamed from a manifest row's (:func:`_renamed`)."""
    from scoring.history import record

    from .batch_guard import batch_identity, history_key

    bid = batch_identity(con)  # each entry keyed by batch, photo, content, parameters and time scored: a flush
    n = 0                      # repeated after a kill between the two writes below adds nothing
    last = -1
    copies = _copies(con, jobs) if jobs else {}
    renamed = _renamed(con, jobs) if jobs else {}

    by_key = {j.key: j for j in jobs}

    def entry(key: str, text: str, stale: list[str]) -> dict[str, Any]:
        e = json.loads(text)
        job = by_key.get(key)
        status = str(e.get("status") or "ok")
        if stale and (status == "ok" or status.startswith("ok:")):  # (as the output row says it, _status)
            status = e["status"] = f"needs-review: {stale_words(stale)}"
        if job is not None and job.checked is not None and (status == "ok" or status.startswith("needs-review")):
            # (as the output row says it, checked_status: a reviewer's mismatched check had stayed ok here)
            if e.get("total") != job.checked:
                status = "needs-review: " + checked_words(job.checked, f"scores {e.get('total')}")
            elif status != "ok":
                status = f"ok: checked, {checked_words(job.checked)}"
            e["status"] = status
        said = ""
        if key in copies:
            said = same_picture(copies[key])
        elif key in renamed and job is not None and job.line is None:  # (as the output row says it: a reviewer's)
            said = f"the file manifest row {renamed[key]} was scored from, which is gone: renamed?"
        if said:
            e["status"] = (f"needs-review: {said}" if status == "ok" or status.startswith("ok:") else
                           f"{status}; {said}" if status.startswith("needs-review") else status)
        return e

    while True:
        rows = con.execute("SELECT rowid, key, history, sha256, params, scored_at, cells_for FROM results WHERE "
                           "in_history=0 AND history IS NOT NULL AND rowid > ? ORDER BY rowid LIMIT ?",
                           (last, chunk)).fetchall()
        if not rows:
            return n
        last = rows[-1][0]
        ids = record(None, [{**entry(k, h, stale_cells({"cells_for": cf, "sha256": sha})),
                             "entry_key": history_key(bid, k, sha, params, at)}
                            for _, k, h, sha, params, at, cf in rows], db=history_db, timeout=30.0)
        if not ids:
            return n
        with con:
            con.executemany("UPDATE results SET in_history=1 WHERE rowid=?", [(r[0],) for r in rows])
        n += len(ids)
