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
  interrupted-and-resumed batch writes exactly the bytes of an uninterrupted one. A run stopped by
  Ctrl-C or SIGTERM writes them too, its photos not scored yet as ``error: not scored`` (partial). Status is derived
  at export: ``error: …`` (unreadable file, no tiles, bad manifest cell, …), ``needs-review`` (no
  legal reading, mahjong not allowed, a winner's with no winning tile marked, a 13-tile photo read as a
  non-winner's hand with no winner cell, or confidence below ``--review-below``), else ``ok``.
* **Settlement.** Rows sharing ``table`` and ``hand`` form a table hand; with four players, one
  East and at most one winner it is settled with :func:`scoring.settle.settle` (CSV:
  ``<out>.settlements.csv``; JSONL: ``"type": "settlement"`` records after the photos).
* **History.** Newly scored photos are recorded in the history database (:mod:`scoring.history`)
  at the end of the run (or of the resumed run), each once.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import multiprocessing
import os
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
from typing import Any, Callable, Collection, Iterator, Mapping, Sequence

from scoring.errors import CircumstanceError, HandError, RulesetError
from scoring.history import BATCH_NOTE, TYPED_NOTE

from .batch_outputs import (  # noqa: F401  (re-exported: vision.batch.OUTPUT_COLUMNS, …)
    _one_line, plural,
    FALSE_WIN_STATUS, FRAME_NOT_RECORDED, OUTPUT_COLUMNS, SETTLEMENT_COLUMNS, _atomic_write, _cell, _status, export,
    flush_history, check_settle_options, output_rows, settle_group)
from .batch_state import (  # noqa: F401  (re-exported: vision.batch.STATE_SCHEMA, …)
    CRASHED_ERROR, CRASHED_PARAMS, STATE_SCHEMA, TYPED_FRAME, _RESULT_COLS, file_hash, open_state, state_path_for, write_result)
from .decode import REVIEW_BELOW as _REVIEW_BELOW, confidence_value, format_confidence
from .errors import BatchError
from .io import same_file, text_name
from .manifest import (  # noqa: F401  (re-exported: vision.batch.PHOTO_EXTS, …)
    CIRCUMSTANCE_CELLS, CIRCUMSTANCE_FLAGS, CONTEXT_FLAGS, Defaults, Job, MANIFEST_COLUMNS, PHOTO_EXTS, ROW_ERROR,
    _NO, _OUR_OUTPUT, _YES, _context_kwargs, _int, _name_key, _norm_col, _split_words, _wind, _yes_no, build_jobs,
    find_photos, linked_folders, make_job, raw_files, raw_words, read_manifest, commented_words)
from .readers import (  # noqa: F401  (re-exported: vision.batch.FatalError, …)
    DEFAULT_READER, FatalError, Reader, TILESET_TAG, _sha256_file, model_reader, reader_identity,
    resolve_reader)

#: default confidence below which a legal reading is flagged ``needs-review`` (:data:`vision.decode.REVIEW_BELOW`)
REVIEW_BELOW = _REVIEW_BELOW


def circumstance_error(job: Job, e: CircumstanceError) -> str:
    """The ``error`` cell of ``job``'s row whose circumstances (``first-turn``, ``last-tile``, ``kong-on-kong``,
    ``win_by``, ``discards``) contradict its hand: "manifest line N: the flags, win_by and discards cells (…): WHY",
    or, with no manifest row, the batch command's flags. Raises nothing."""
    if job.line:
        return f"manifest line {job.line}: {CIRCUMSTANCE_CELLS}: {_one_line(e)}"
    return f"{CIRCUMSTANCE_FLAGS}: {_one_line(e)}"


#: the problem of a winner's row read with no winning tile (none given either): said with the flag, which
#: the output says as the manifest's cell (:data:`vision.batch_outputs.MANIFEST_WORDS`)
NO_WINNING_TILE = "no winning tile marked: scored without one; name it with --winning-tile"

#: the problem of a winner's hand typed in the notation cell with no winning tile (none in the winning_tile cell
#: or --winning-tile either)
NO_WINNING_TILE_TYPED = ("no winning tile given: scored without one; end the notation cell with win:TILE or put "
                         "it in the winning_tile cell")



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
    """Worker start: ignore Ctrl-C (the parent handles it) and exit when the parent dies. SIGTERM keeps
    its default: the pool stops its workers with it when one dies (a reviewer's finding)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent.sentinel,), daemon=True).start()


#: how many times :func:`score_job` reads a photo whose file changes while it is read before it gives up
READ_TRIES = 3


class _Changed(Exception):
    """A photo's file changed each time :func:`score_job` read it."""


def _read_digest(path: str) -> str:
    """The SHA-256 (hex) of the file ``path`` as it is now, or "" where it cannot be read (gone meanwhile)."""
    try:
        return _sha256_file(path)
    except OSError:
        return ""


def score_job(job: Job, reader_spec: str, params: str, sha: str) -> dict[str, Any]:
    """Read and score one photo (in a worker): a result row for the state database.

    Per-photo failures (unreadable file, no tiles, bad correction, unknown ruleset or option) are
    an ``error`` in the row; FatalError (reader/models unavailable) propagates to stop the batch.
    """
    t0 = time.perf_counter()
    # (a hand typed in the notation cell is not read, nor the false_win player's photo: a batch of typed hands
    # starts no models)
    reader = _get_reader(reader_spec) if job.notation is None and not job.false_win else None
    row: dict[str, Any] = {"key": job.key, "sha256": sha, "params": params, "frame": ""}
    if job.error:
        row["error"] = job.error
    elif job.false_win and job.notation is not None:
        false_win_row(job, row)
    elif job.notation is not None:
        score_typed(job, row)
    elif not sha:
        from .io import path_problem  # a FIFO, a device, a link loop, an unreadable file: named

        row["error"] = path_problem(job.path) or "the file could not be read"
    elif job.false_win:  # (its file is there, as `table` checks it, and not read)
        false_win_row(job, row)
    else:
        from .errors import ModelError, VisionError
        from .pipeline import (ADDED_NOTE, WON_HINT_START, frame_words, least_sure_tile, least_words,
                               read_as_unsaid_non_winner, score_confidence)
        from .record import photo_entry, scored_without_winning_tile

        try:
            kw = job.reader_kwargs()
            fixes = kw["fixes"]
            ctx = job.make_context()
            # (the file's digest taken again after it is read: a breaker's photo replaced while the batch ran was
            # stored with the first file's digest and the second's reading, and kept as that first file's result
            # once it was put back; a file that changed is read again, and its row holds the digest of what was read)
            for _ in range(READ_TRIES):
                res = reader(job.path, job.ruleset, ctx, **kw)
                now = _read_digest(job.path)
                if now == sha:
                    break
                sha = now
            else:
                raise _Changed()
            row["sha256"] = sha
        except _Changed:
            row["error"] = (f"the file changed each of the {READ_TRIES} times it was read (it is being written or "
                            f"replaced): rerun once it is whole")
        except ModelError as e:
            raise FatalError(_one_line(e)) from None
        except CircumstanceError as e:  # (what was said of the win, not the photo)
            row["error"] = circumstance_error(job, e)
        except (VisionError, HandError, RulesetError) as e:
            from .io import display_name  # (the message names the file with control characters escaped)

            # (named by its key, escaped as the reader escaped the path: a tester's file name with an ESC
            # character had it raw in the status cell, and a newline broke it)
            shown = display_name(job.key)
            row["error"] = _one_line(e).replace(display_name(job.path), shown).replace(job.path, shown)
        except Exception as e:  # a bug must not stop a tournament's batch: report it on the row
            from .io import display_name

            row["error"] = f"internal error: {type(e).__name__}: {_one_line(e)}".replace(job.path, display_name(job.key))
        if "error" in row:
            # (an error row holds the digest of the file as it was read too: a reviewer's photo swapped for a broken
            # file before its read kept "corrupt JPEG" under the good file's digest, never read again once put back)
            row["sha256"] = _read_digest(job.path)
        else:
            r, s = res.reading, res.scored
            row.update(legal=int(bool(r.legal and s is not None)), confidence=confidence_value(r.confidence),
                       reading=r.notation, problem=r.problem, tiles=sum(1 for x in r.roles if x != "ignored"),
                       changed=len(r.changed), frame=frame_words(res))
            # (a tile the add cell put in is the row's own doing, said by that cell: only what it changed
            # is named — a tester saw "problem" filled on ok rows with "tile 17 (3m) added by you")
            dropped = [n for n in r.notes if "left out as a false detection" in n or "non-winner's hand" in n
                       or n.startswith("unsure:") or ("added by you" in n and ADDED_NOTE not in n)
                       or n.startswith(WON_HINT_START)]
            # a winner's hand read with no winning tile (the reading's hand has none, and the winning_tile cell
            # or --winning-tile gave none) is scored without one: a guess, however sure the tiles (a director's
            # row came out ok with it); the row needs review, said in the manifest's words (batch_outputs)
            unmarked = scored_without_winning_tile(r, job.winning_tile)
            if r.legal:
                row["no_winning_tile"] = int(unmarked)
                # a 13-tile photo read as a non-winner's hand with no winner cell (as `photo` reads it without
                # --not-winner): scored, and never ok, whatever --review-below (its note is the problem)
                row["unsaid_non_winner"] = int(read_as_unsaid_non_winner(r))
            if unmarked:
                dropped.append(NO_WINNING_TILE)
            # the score's confidence: doubts that cannot change the score under the ruleset (loose flowers/seasons,
            # which flower a bonus tile is) are none of it (a director's nts row was needs-review at 62 % for a loose
            # season worth nothing; `photo` and `audit` said so)
            # (the status, and what it says of the two, are the output's: batch_outputs._status, by --review-below)
            sure = score_confidence(res)
            row["score_confidence"] = confidence_value(sure) if r.legal else None
            least = least_sure_tile(res) if r.legal and sure < REVIEW_BELOW else None
            if least is not None and least[1] < REVIEW_BELOW:  # what to check first (not a tile read surely,
                # as `photo` and the page: a tester's row said "tile 4 (2m read at 100%)", the doubt in the roles)
                dropped.append(f"least sure: tile {res.position(least[0])} ({least_words(res, least)})")
            if r.legal and r.changed and sure < REVIEW_BELOW:  # (as `photo` says them: a director's row, its pair read
                # 2z 2z for the photo's 3z 3z, had named only a tile read at 66 %, then nothing once that was fixed)
                dropped.append("changed to make a legal hand: " + ", ".join(
                    f"tile {res.position(i)} {r.raw[i]}→{r.tiles[i]}" for i in r.changed))
            if r.legal and dropped:  # never silently: the row says which box was left out, what was assumed
                row["problem"] = "; ".join(dropped)
            won = [n for n in r.notes if n.startswith(WON_HINT_START)]
            if not r.legal and won:  # (a winner's photo said not won: the row says to set the winner cell to yes)
                row["problem"] = "; ".join([r.problem or "not a legal hand"] + won)
            if s is not None:
                row.update(score_cells(s))
                if not s.allowed:
                    row["problem"] = "; ".join([s.status] + dropped) if r.legal else s.status
                    row["refusal"] = s.status  # the words `table` refuses to settle a winner's hand in
            # a reading the batch flags for review is not 'ok' in the audit trail either (the default bar)
            review = (f"needs-review: confidence {format_confidence(float(r.confidence))}"
                      if r.legal and s is not None and s.allowed and sure < REVIEW_BELOW else
                      "needs-review: no winning tile marked" if unmarked and s is not None and s.allowed else None)
            entry = photo_entry("batch", job.key, res, context=ctx, options=dict(job.options), ruleset=job.ruleset,
                                fixes=fixes, exposed=job.exposed, winning_tile=job.winning_tile, input_sha256=sha,
                                additions=job.add,
                                input_label=text_name(job.path), note=f"{BATCH_NOTE}{job.key}", status=review)
            row["history"] = json.dumps(entry, ensure_ascii=False, default=str)
    row["seconds"] = round(time.perf_counter() - t0, 4)
    row["scored_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


def false_win_row(job: Job, row: dict[str, Any]) -> None:
    """The result ``row`` (:func:`score_job`) of the false_win player's row (:attr:`Job.false_win`: the player its
    table hand's settlement options name as ``false_win``, hk-tw-16's 假胡, a false mahjong, 004:50): not scored as
    a hand, as `table` scores none, its status :data:`FALSE_WIN_STATUS` and its ``problem`` saying why. A hand typed
    in the notation cell is read as notation only (any tile count: the false mahjong's 17 tiles), its reading and
    tiles written (the settlement checks its tiles against the others'); a photo is not read (`table` reads no
    false_win player's photo). Nothing is recorded in the history (`table` records no such hand)."""
    from scoring import Context
    from scoring.notation import format_hand, parse_hand

    # (as typed: a settle cell's false_win=N had been said false_win=Dee, the player in seat N)
    who = job.player or job.seat_wind
    said = job.false_win if job.false_win == who else f"{job.false_win} ({who})"
    row["problem"] = (f"false_win={said} in the hand's settle options: a false mahjong (假胡), not scored as a hand, as "
                      f"`table` scores none; the hand's settlement makes its penalty"
                      + ("" if job.notation is not None else "; its photo is not read"))
    if job.notation is None:
        return
    try:  # (make_job read it so: a cell that is no hand is that row's error)
        hand = parse_hand(job.notation, context=Context(winner=False), sizes=None)
    except HandError as e:
        row["error"] = f"manifest line {job.line}: notation cell: {_one_line(e)}"
        return
    row.update(reading=format_hand(hand), tiles=len(hand.all_tiles) + len(hand.bonus), frame=TYPED_FRAME)


def _false_win_doubt(job: Job) -> str:
    """What a typed row's refused hand adds when its table hand's ``false_win`` names no one row surely
    (:attr:`Job.false_win_doubt`) and the notation would be read as that false mahjong (as notation only, any tile
    count, as :func:`false_win_row` reads it): "; not read as the false_win player's hand …: WHY"; else ""."""
    from scoring import Context
    from scoring.notation import parse_hand

    if not job.false_win_doubt:
        return ""
    try:
        parse_hand(job.notation or "", context=Context(winner=False), sizes=None)
    except HandError:
        return ""
    return (f"; not read as the false_win player's hand (a false mahjong, any tile count): the hand's settlement "
            f"options do not name one player surely: {job.false_win_doubt}")


def score_typed(job: Job, row: dict[str, Any]) -> None:
    """Score the hand typed in ``job``'s notation cell into the result ``row`` (:func:`score_job`): as
    ``mahjong-score hand`` scores it (the row's ruleset, context, options and winning tile), its output as a
    photo's — reading, total, breakdown, status — with ``frame`` :data:`TYPED_FRAME` and no confidence (a hand
    typed is not a guess). A hand that cannot be scored (not a winning hand, a tile count the ruleset's own
    check refuses) is the row's ``error: manifest line N: notation cell: …``. Recorded in the history as
    ``hand`` records a typed hand (input the notation, its SHA-256 that of the text)."""
    from scoring import load_ruleset, score_hand
    from scoring.hand import winning_tile_missing
    from scoring.history import context_to_json, scored_fields, scored_status, sha256_bytes
    from scoring.notation import format_hand, parse_hand

    notation = job.notation or ""
    ctx = job.make_context()
    try:
        rs = load_ruleset(job.ruleset)
        sizes = rs.notation_sizes
        hand = parse_hand(notation, winning_tile=job.winning_tile, context=ctx, sizes=sizes)
        s = score_hand(hand, rs, dict(job.options), option_notes=True)
    except CircumstanceError as e:  # (what was said of the win, not the hand typed)
        row["error"] = circumstance_error(job, e)
        return
    except (HandError, RulesetError) as e:
        row["error"] = f"manifest line {job.line}: notation cell: {_one_line(e)}" + _false_win_doubt(job)
        return
    except Exception as e:  # a bug must not stop a tournament's batch: report it on the row
        row["error"] = f"internal error: {type(e).__name__}: {_one_line(e)}"
        return
    # a winner's hand typed without its winning tile is scored without one, as `hand` scores it; but some rules
    # then do not apply (a photo's row read so needs review: so does this one, said in the manifest's words)
    unmarked = winning_tile_missing(hand)  # (not East's dealt hand, nor a 16-tile instant win: none to give)
    problems = [NO_WINNING_TILE_TYPED] if unmarked else []
    if not s.allowed:
        problems.insert(0, s.status)
        row["refusal"] = s.status  # the words `table` refuses to settle a winner's hand in
    row.update(legal=1, confidence=None, reading=format_hand(hand), tiles=len(hand.all_tiles) + len(hand.bonus),
               changed=0, frame=TYPED_FRAME, no_winning_tile=int(unmarked), problem="; ".join(problems) or None,
               **score_cells(s))
    status = ("needs-review: no winning tile given" if unmarked and s.allowed else scored_status(s))
    entry: dict[str, Any] = {"command": "batch", "input": notation, "input_sha256": sha256_bytes(notation.encode()),
                             "status": status, "corrections": None, "context": context_to_json(ctx),
                             "options": dict(job.options), "ruleset": job.ruleset,
                             "note": f"{BATCH_NOTE}{job.key}: {TYPED_NOTE} (manifest line {job.line})"}
    entry.update(scored_fields(s))
    row["history"] = json.dumps(entry, ensure_ascii=False, default=str)


def score_cells(scored) -> dict[str, Any]:
    """A ScoredHand's cells of a photo's row in the state database (a photo read or a hand typed alike): total,
    points, doublings, allowed, the :func:`breakdown` and the scoring's notes, both as JSON text."""
    return dict(total=int(scored.total), points=float(scored.points), doublings=int(scored.doublings),
                allowed=int(bool(scored.allowed)), breakdown=json.dumps(breakdown(scored), separators=(",", ":")),
                score_notes=json.dumps(list(scored.notes), ensure_ascii=False))


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
    #: the photos whose reading killed the worker process, also read alone (error rows; :data:`CRASHED_ERROR`)
    crashed: list[str] = field(default_factory=list)
    #: of ``outputs``, the other format's output of the same name and state (``results.jsonl`` beside
    #: ``--out results.csv``), written by an earlier run and rewritten with it (:func:`sibling_output`): said
    siblings: list[str] = field(default_factory=list)
    settled: int = 0
    #: of ``settled``, those settled provisionally (a photo of the hand needs review)
    provisional: int = 0
    #: the table hands not settled, each its ``table``, ``hand`` and ``why`` (the settlement's status after
    #: ``not settled: ``): said at the end of the run, not only in the settlements file
    not_settled: list[dict[str, str]] = field(default_factory=list)
    state: str = ""
    #: camera RAW files of the folder left out (:data:`vision.manifest.RAW_EXTS`), relative paths
    raw_left_out: list[str] = field(default_factory=list)
    #: the manifest's comment lines (``#``) that hold a row's cells, skipped: (line number, first cell)
    #: (:func:`vision.manifest.read_manifest`)
    commented: list[tuple[int, str]] = field(default_factory=list)
    #: the folders in the batch folder that are links to folders, not followed (:func:`vision.manifest.linked_folders`)
    links_left_out: list[str] = field(default_factory=list)
    #: the folder the state database had been made for, no longer there, when this folder was taken as it moved
    moved_from: str = ""
    #: photos of the batch whose files are byte for byte the same (by SHA-256), each group sorted: a
    #: picture filed twice (for two players, two hands) is a director's mistake to check
    same_picture: list[list[str]] = field(default_factory=list)
    #: folders made for the outputs (they did not exist): said, a mistyped --out being one
    made_folders: list[str] = field(default_factory=list)
    #: photos scored again that an earlier run had scored: their file changed (``again_file``), or what decides their
    #: score did (``again_settings``: the row's cells, the models, the scoring's version; :meth:`Job.params`) — a
    #: director's rerun said "scored now 37, already done 4" with no word of why
    again_file: int = 0
    again_settings: int = 0
    #: … of those, the photos whose file is gone since or cannot be read (a folder in its place: their rows now errors)
    again_gone: int = 0
    #: photos an earlier run scored (their rows in the state database) that are no longer among the batch's, their
    #: files gone (deleted, moved, a folder in their place; not a photo still there that this run leaves out). Their
    #: rows are not in the outputs; said (a tester's resumed batch wrote 9 rows for 10 with no word of the one gone)
    gone: list[str] = field(default_factory=list)
    #: ``ok`` rows whose ``score_notes`` say a circumstance of the win they give (a flags cell's last-tile …) scores
    #: nothing for their hand: said at the end of the run (a new user's last-tile on a discard win was in the CSV's
    #: notes alone, the row ok and on no review card)
    flag_unscored: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class _InProcess:
    """A stand-in executor running tasks in this process (``--workers 0``)."""

    def submit(self, fn, *a) -> Future:
        f: Future = Future()
        try:
            f.set_result(fn(*a))
        except (KeyboardInterrupt, _Terminated):  # (a stop: at once, not after the next photo is read)
            raise
        except BaseException as e:  # noqa: BLE001 - delivered through the future like a pool does
            f.set_exception(e)
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


#: the most worker processes a batch takes (``--workers``): each loads the models and holds up to two photos in
#: flight, so a typo (``-j 1000``) had been taken and could run the machine out of memory
MAX_WORKERS = 64


def default_workers() -> int:
    """One worker per available CPU core, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def _check_history_db(db: Path, state: Path, out: Path, manifest: str | os.PathLike | None) -> None:
    """Raise BatchError, before any photo is scored, when the history database ``db`` is a file the run
    reads or writes, or cannot be opened as a history (a text file, another database): the history of
    a whole batch had been lost at its end with one warning line and exit 0 (a tester's ``--db`` naming
    the state database, the output CSV, a text file)."""
    from scoring import history

    from .review import review_path_for

    for what, path in (("--state", state), ("--out", out), ("the settlements file",
                                                            out.with_name(out.stem + ".settlements.csv")),
                       ("the review page", review_path_for(out)),
                       *((("the manifest", Path(manifest)),) if manifest is not None else ())):
        if same_file(db, path):
            raise BatchError(f"--db {db} is {what}; give the history a file of its own (or --no-history)")
    try:
        history.connect(db).close()
    except (sqlite3.Error, OSError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise BatchError(f"--db {db}: cannot record the history there ({why}); give another file, or "
                         f"--no-history") from None


def _same_pictures(con: sqlite3.Connection, jobs: Sequence[Job]) -> list[list[str]]:
    """The groups of ``jobs`` whose files have one SHA-256 (as the state database recorded it), sorted."""
    from scoring.history import same_digest

    keys = {j.key for j in jobs}
    rows = con.execute("SELECT key, sha256 FROM results WHERE sha256 IS NOT NULL AND sha256 != ''")
    return sorted(sorted(g) for g in same_digest((key, sha) for key, sha in rows if key in keys))


def sibling_output(out: Path, state_p: Path, con: sqlite3.Connection) -> Path | None:
    """The output of the other format beside ``out`` that shares its state database ``state_p``
    (``results.jsonl`` for ``results.csv`` and the reverse, both keeping ``results.batch.sqlite3``), where an
    earlier run wrote it from that state (a file whose first line is a batch output's, every photo it names one that
    state ``con`` scored) and it can be written; else None. A run rewrites it with ``out``, from the same state: a
    director's ``results.jsonl`` kept the replaced photo's score after a rerun wrote ``results.csv`` alone, with no
    word. Not with another ``--state``, nor a twin another state wrote (a reviewer's ``--out r.jsonl --state b``
    beside another folder's ``--out r.csv`` had been replaced by its rows)."""
    suffix = {".csv": ".jsonl", ".jsonl": ".csv"}.get(out.suffix.lower())
    if suffix is None:
        return None
    twin = out.with_suffix(suffix)
    if (os.path.abspath(state_path_for(twin)) != os.path.abspath(state_p) or not twin.is_file()
            or not os.access(twin, os.W_OK)):
        return None
    try:
        _check_not_foreign("", twin, OUTPUT_COLUMNS)
    except BatchError:
        return None
    named = _out_photos(twin)  # (none for a file of blank lines, or one that cannot be read)
    scored = {k for (k,) in con.execute("SELECT key FROM results")}
    return twin if named and named <= scored else None


#: how a batch's review page begins (:func:`vision.review.write_review`): a file of that name that does not is
#: no page of ours, and is not written over nor removed
REVIEW_PAGE_START = b"<!doctype html><html lang=en><head><meta charset=utf-8>"


def _check_review_page(page: Path) -> None:
    """BatchError when ``page`` (``OUT.review.html``, which a run writes, or removes where nothing is flagged)
    exists and is not a review page a batch wrote (:data:`REVIEW_PAGE_START`): a user's own file of that name had
    been replaced, or removed, without a word. A folder there is refused too; a file that cannot be read is left to
    the write, which says so."""
    if page.is_dir():
        raise BatchError(f"the review page {page} is a folder; choose another --out, or move it")
    try:
        with open(page, "rb") as f:
            start = f.read(len(REVIEW_PAGE_START))
    except OSError:
        return
    if start and start != REVIEW_PAGE_START:
        raise BatchError(f"the review page {page} exists and is no review page of a batch: it would be written over "
                         f"(or removed); choose another --out, or move it")


def _check_not_foreign(what: str, path: Path, head: Sequence[str]) -> None:
    """BatchError when ``path`` exists and is no batch output: a CSV whose header (its first line that is not
    blank, cells split at ``,``, ``;`` or a tab, quotes aside) is not the columns ``head`` or the first of them (an
    earlier version's output had fewer), a JSON Lines file whose first record is no photo's or settlement's — it
    would be written over (a tester's ``--out keep3.csv``, another manifest, was replaced without a word; a
    manifest whose first columns are photo, table, hand had passed a check of three). A file of blank lines is
    taken."""
    lines = _nonblank_lines(path, 1)  # (not there, or not readable: check_outputs says so, or the write does)
    if not lines:
        return
    first = lines[0].decode("utf-8-sig", "replace").strip()
    if path.suffix.lower() == ".jsonl":
        try:
            rec = json.loads(first)
        except ValueError:
            rec = None
        ours = isinstance(rec, dict) and rec.get("type") in ("photo", "settlement") and "status" in rec
    else:
        ours = any(1 < len(cells := [c.strip().strip('"').lower() for c in first.split(sep)]) <= len(head)
                   and cells == list(head[:len(cells)]) and len(cells) >= min(len(head), 8)
                   for sep in (",", ";", "\t"))
    if not ours:
        raise BatchError(f"{what} {path} exists and is no output of a batch (its first line is not a batch's): it "
                         f"would be written over; choose another file, or remove it")


def _check_folder(con: sqlite3.Connection, d: Path, state_p: Path, out: Path) -> str:
    """The state database ``con`` (``state_p``) is this folder's: the folder it was first made for (kept in
    ``batch_meta``), where that still exists, is ``d``. Else BatchError: a batch of another folder given the
    same ``--out`` had replaced the first folder's results without a word (a tester's; photos of the same
    relative name had their rows overwritten too). A new state database (no folder, no result) beside an ``out``
    that holds results is refused too: that output is another state's (a tester's explicit ``--state`` had replaced
    another folder's results); and so is an ``out`` none of whose photos this state scored (:func:`_out_photos`). A folder that was moved (its first path gone) is taken, the new path kept, and its
    first path returned (the summary says it); else ""."""
    from .batch_guard import _META

    here = text_name(os.path.realpath(d))  # (a folder named with bytes that are not UTF-8: stored as text)
    with con:
        con.execute(_META)
        row = con.execute("SELECT value FROM batch_meta WHERE name='folder'").fetchone()
        if row is not None and row[0] != here and os.path.isdir(row[0]):
            raise BatchError(f"the state database {state_p} holds the batch of the folder {row[0]}, not {here}: give "
                             f"this folder its own --out and state, or remove both {state_p} and {out} to start that "
                             f"output over (the other folder's results and resume state are lost)")
        new = row is None and con.execute("SELECT 1 FROM results LIMIT 1").fetchone() is None
        if new and _holds_results(out):
            raise BatchError(f"--out {out} holds the results of a batch whose state database is not {state_p} (a new "
                             f"one): give another --out, or remove {out} to start it over")
        if not new and _holds_results(out):
            # (a breaker's two batches of two folders, each with its own --state, given one --out: each run wrote its
            # own results over the other's, both said "wrote"; a photo of out is this state's when this state scored a
            # photo of its name — by name, not digest: a photo replaced since that output was written is still its own)
            theirs = _out_photos(out)
            ours = {k for (k,) in con.execute("SELECT key FROM results")}
            if theirs and not theirs & ours:
                raise BatchError(f"--out {out} holds the results of another batch (none of its photos is one this "
                                 f"state database {state_p} scored): give another --out, or remove {out} to write "
                                 f"this batch's there")
        con.execute("INSERT OR REPLACE INTO batch_meta (name, value) VALUES ('folder', ?)", (here,))
    return row[0] if row is not None and row[0] != here else ""


def _file_signature(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, modification time in ns) of the file ``path``, or None where there is none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _check_out_untouched(out: Path, was: tuple[int, int, int] | None, state_p: Path, summary: "Summary") -> None:
    """Raise BatchError where ``out`` exists and is not the file it was when this run began (``was``,
    :func:`_file_signature`): another run wrote it meanwhile, and writing this run's results over it would lose
    that run's without a word. A breaker's two batches given one ``--out`` and each its own ``--state``, run at
    once, each wrote its results over the other's and both said "wrote"; the state lock holds one state database,
    not the output. This run's results stay in its state database, written by a rerun with another ``--out``."""
    now = _file_signature(out)
    if now is None or now == was:
        return
    raise BatchError(f"--out {out} was changed while this batch scored its photos (another batch given the same "
                     f"--out, or a program that saved it): not written over; "
                     f"this batch's results ({plural(summary.scored, 'photo')} scored now) are kept in its state database "
                     f"{state_p} — rerun this command with another --out (and --state {state_p}) to write them "
                     f"(no photo is scored again)")


def _out_photos(out: Path, most: int = 2000) -> set[str]:
    """The photo names of the first ``most`` photo rows of the batch output ``out`` (CSV in any of the separators a
    batch output may be read with, a name that a spreadsheet would run as a formula unmarked of its ``'``,
    :func:`vision.batch_outputs._cell`; or JSON Lines); rows without a digest (typed in the notation cell) left out;
    empty when it cannot be read."""
    import csv

    from .batch_state import FORMULA_START

    pairs: set[str] = set()
    try:
        with open(out, encoding="utf-8-sig", newline="") as f:
            if out.suffix.lower() == ".jsonl":
                for ln in itertools.islice(f, most):
                    try:
                        rec = json.loads(ln)
                    except ValueError:
                        continue
                    if isinstance(rec, dict) and rec.get("type") == "photo" and rec.get("sha256"):
                        pairs.add(str(rec.get("photo")))
                return pairs
            head = f.readline()
            sep = max((",", ";", "\t"), key=head.count)
            f.seek(0)
            for r in itertools.islice(csv.DictReader(f, delimiter=sep), most):
                if r.get("sha256") and r.get("photo"):
                    name = r["photo"]
                    pairs.add(name[1:] if name.startswith("'") and name[1:].startswith(FORMULA_START) else name)
    except (OSError, UnicodeDecodeError, csv.Error):
        return set()
    return pairs


def _holds_results(out: Path) -> bool:
    """``out`` exists with a line after its header (a CSV) or a record (JSON Lines)."""
    return len(_nonblank_lines(out, 2)) >= (1 if out.suffix.lower() == ".jsonl" else 2)


def _nonblank_lines(path: Path, k: int) -> list[bytes]:
    """The first ``k`` lines of ``path`` that are not blank (of its first 200 lines, 64 KiB each at most); [] when it
    cannot be read."""
    try:
        with open(path, "rb") as f:
            return [ln for ln in (f.readline(65536) for _ in range(200)) if ln.strip()][:k]
    except OSError:
        return []


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
    if not d.is_dir():  # (a breaker's missing folder had been "not a folder of photos")
        what = ("no such folder" if not os.path.lexists(d) else "a symbolic link that leads to no folder (a loop, or its target gone)" if not d.exists()
                else "a file, not a folder of photos")
        raise BatchError(f"{d}: {what}")
    out = Path(out)
    fmt = out.suffix.lower()
    if fmt not in (".csv", ".jsonl"):
        raise BatchError(f"--out {out}: the output must end in .csv or .jsonl")
    if not 0 <= review_below <= 1.0000001:  # (NaN too)
        raise BatchError(f"--review-below {review_below} must be between 0 and 1")
    if only_manifest and manifest is None:
        raise BatchError("--only-manifest needs --manifest CSV (the photos to score)")
    defaults = defaults or Defaults()
    commented: list[tuple[int, str]] = []
    jobs = build_jobs(d, manifest, defaults, only_manifest, commented)
    check_settle_options(jobs, defaults.settle_options)  # (one hand's discarder given to them all)
    listed = {j.key for j in jobs}
    raw = [] if only_manifest else [k for k in raw_files(d.resolve()) if k not in listed]
    if not jobs:
        raise BatchError(f"{d}: no photos found (files named {' '.join(sorted(PHOTO_EXTS))}, or any other that "
                         f"begins as a JPEG, PNG, WebP, HEIC, GIF, BMP or TIFF file does, camera RAW files "
                         f"aside)" + (" and none listed in the manifest" if manifest else "")
                         + (f"; {raw_words(raw, ' left out')}" if raw else "")
                         + (f"; {commented_words(commented)}" if commented else ""))
    state_p = Path(state) if state else state_path_for(out)
    from .review import review_path_for

    # (the review page too: a breaker's manifest, state database, history and own file named OUT.review.html were
    # written over with the page, or removed where nothing was flagged, with exit 0)
    page = review_path_for(out)
    if manifest is not None:  # the files this run writes must not be the manifest it reads
        for what, path in (("--out", out), ("--state", state_p),
                           ("the settlements file", out.with_name(out.stem + ".settlements.csv")),
                           ("the review page", page)):
            if same_file(path, Path(manifest)):
                raise BatchError(f"{what} {path} is the manifest; choose another file")
    for what, path in (("--out", out), ("the settlements file", out.with_name(out.stem + ".settlements.csv")),
                       ("the review page", page)):
        if same_file(state_p, path):  # the database and a CSV written over each other: both lost
            raise BatchError(f"--state {state_p} is {what}; choose another file")
    if history_db is not None:
        _check_history_db(Path(history_db), state_p, out, manifest)
    for what, path, head in (("--out", out, OUTPUT_COLUMNS),
                             ("the settlements file", out.with_name(out.stem + ".settlements.csv"), SETTLEMENT_COLUMNS)):
        _check_not_foreign(what, path, head)
    _check_review_page(page)
    try:
        rid = reader_identity(reader)
    except FatalError as e:
        raise BatchError(str(e)) from None
    from .batch_guard import check_outputs, lock_state

    # before any photo is scored: the outputs can be written, and no other run uses this state
    made = check_outputs([("--out", out), ("the settlements file", out.with_name(out.stem + ".settlements.csv"))])
    out_was = _file_signature(out)  # (another run writing it meanwhile is not written over: _check_out_untouched)
    t0 = time.perf_counter()
    summary = Summary(photos=len(jobs), workers=workers, state=str(state_p), raw_left_out=raw, made_folders=made,
                      commented=commented,
                      # (a link the manifest's rows reach through is not left out: a tester's summary said so)
                      links_left_out=[] if only_manifest else [
                          x for x in linked_folders(d.resolve()) if not any(j.key.startswith(x + "/") for j in jobs)])
    existed = state_p.exists()
    lock = lock_state(state_p)
    try:
        con = open_state(state_p)
    except BatchError:
        lock.release()
        raise
    except (sqlite3.Error, OSError) as e:
        lock.release()
        raise BatchError(f"cannot open the batch state database {state_p}: {e}") from None
    try:
        summary.moved_from = _check_folder(con, d, state_p, out)
    except BaseException:
        con.close()
        if not existed:  # (the state database made only to be refused: a tester's `audit --from-batch` then read
            for gone in (state_p, Path(f"{state_p}-wal"), Path(f"{state_p}-shm")):  # it, "no scored rows"; removed
                with contextlib.suppress(OSError):                                 # while still locked: no other run
                    gone.unlink()                                                  # took it meanwhile)
        lock.release()
        raise
    try:
        todo: list[tuple[Job, str, str]] = []
        cells_for: dict[str, str | None] = {}  # key → its result's cells_for (:func:`correction_cells_for`)
        with con:  # one transaction for the hash cache
            for job in jobs:
                # (a typed hand's photo is not read: its file, if any, is neither hashed nor its score's)
                sha = "" if job.notation is not None else file_hash(con, job)
                params = job.params(rid)
                hit = con.execute("SELECT 1 FROM results WHERE key=? AND sha256=? AND params=?",
                                  (job.key, sha, params)).fetchone()
                if hit:
                    summary.resumed += 1
                else:
                    todo.append((job, params, sha))
                    prev = con.execute("SELECT sha256, error, cells_for FROM results WHERE key=?", (job.key,)).fetchone()
                    cells_for[job.key] = correction_cells_for(job, sha, prev[2] if prev else None)
                    # (a row that had failed, its file missing, is no photo scored before: a reviewer's)
                    was = prev if prev is not None and prev[1] is None else None
                    # (a photo whose file is gone is no file changed: its row becomes an error, and a row now typed in
                    # its notation cell is a cell changed — a director read both as "the photo file changed")
                    # (a row typed before, its stored digest "", is a cell changed too: a reviewer's)
                    if was is not None and job.notation is None and not sha and was[0]:
                        summary.again_gone += 1
                    elif was is not None and was[0] != sha and job.notation is None and was[0]:
                        summary.again_file += 1
                    elif was is not None:
                        summary.again_settings += 1
        if todo:
            done: set[str] = set()  # (the photos this run scored: read to the end, or an error row)
            try:
                _score_all(con, todo, reader, workers, progress, summary, cells_for, done)
            except _Stopped as stop:  # Ctrl-C or SIGTERM: what is done is written, then said
                _check_out_untouched(out, out_was, state_p, summary)
                raise BatchError(_write_partial(con, jobs, todo, out, review_below, summary, str(stop),
                                                defaults.settle_options, done)) from None
        _check_out_untouched(out, out_was, state_p, summary)
        with _stop_after_scoring(summary) as stage:
            stage.append("results")
            summary.outputs, settled, summary.counts = export(con, jobs, out, review_below,
                                                              settle_options=defaults.settle_options,
                                                              flag_unscored=summary.flag_unscored)
            sibling = sibling_output(out, state_p, con)
            if sibling is not None:  # (the CSV's JSON Lines twin of the same state, rewritten not to go stale)
                summary.outputs += export(con, jobs, sibling, review_below, settle_options=defaults.settle_options)[0]
                summary.siblings.append(str(sibling))
            summary.settled, summary.provisional, summary.not_settled, flagged_tables = settled
            summary.same_picture = _same_pictures(con, jobs)
            # (the photos whose files are gone: not those the manifest or --only-manifest leaves out of this run, whose
            # files are still there — a reviewer's `--only-manifest` rerun had named a photo of the folder as gone)
            keys = {j.key for j in jobs}
            # (nor a row's earlier name in another case, a typed row's of an earlier version now named as its photo:
            # a reviewer's upgraded state would have said it gone on every run)
            alike = {_name_key(k) for k in keys}
            summary.gone = sorted(k for (k,) in con.execute("SELECT key FROM results WHERE error IS NULL")
                                  if k not in keys and not os.path.isabs(k) and not (d / k).is_file()
                                  and _name_key(k) not in alike)
            from .review import write_review  # the HTML page of the flagged rows (<out>.review.html)

            stage.append("review")
            # (not the false_win player's row: nothing to correct there, and its photo is not read)
            page = write_review(con, ((j, r) for j, r in output_rows(con, jobs, review_below) if not j.false_win),
                                out, len(jobs), reader, log, tables=flagged_tables)
            if page is not None:
                summary.outputs.append(str(page))
            if history_db is not None:
                stage.append("history")
                flush_history(con, history_db, jobs=jobs)
    finally:
        con.close()
        lock.release()  # after the connection: see batch_guard.StateLock
    summary.seconds = round(time.perf_counter() - t0, 3)
    return summary


@contextlib.contextmanager
def _stop_after_scoring(summary: Summary) -> Iterator[list[str]]:
    """Once every photo is scored: a Ctrl-C or SIGTERM while the outputs are written (the review page reads
    the flagged photos again: seconds) raises :class:`BatchError` with one line saying what was written and
    that a rerun writes the rest (nothing is scored again). A tester's SIGTERM there had ended the run with
    exit 143 and no word, and a Ctrl-C in a traceback. The context yields the list of stages begun
    (``results``, ``review``, ``history``)."""
    stage: list[str] = []
    main = threading.current_thread() is threading.main_thread()

    def on_term(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term) if main else None
    try:
        yield stage
    except KeyboardInterrupt:
        done = {"results": "nothing was written", "review": f"the results were written ({', '.join(summary.outputs)})",
                "history": "the results and the review page were written"}.get(stage[-1] if stage else "results")
        raise BatchError(f"stopped once every photo was scored ({summary.scored} scored now, all kept): {done}; "
                         f"rerun the same command to write the rest (no photo is scored again)") from None
    finally:
        if main:
            signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


class _Terminated(BaseException):
    """SIGTERM arrived while photos were being scored (:func:`_score_all`). A BaseException, as
    KeyboardInterrupt is: with ``--workers 0`` the photo is read in this process, and the reader's catch-all
    ``except Exception`` (:func:`score_job`) had taken it for the photo's error, read every photo left and
    exited 0 (a reviewer's)."""


class _Stopped(Exception):
    """The run was stopped (Ctrl-C, SIGTERM) while photos were scored: :func:`_score_all`'s word for it, after
    the photos in flight were handled; :func:`run_batch` writes the outputs of what is done."""


def _write_partial(con: sqlite3.Connection, jobs: Sequence[Job], todo: Sequence[tuple[Job, str, str]], out: Path,
                   review_below: float, summary: Summary, word: str,
                   settle_options: Mapping[str, Any] | None = None, done: Collection[str] = ()) -> str:
    """Write the output file(s) of a stopped run with :func:`export`, and return the one line that says so.

    A photo of this run not scored (not reached, or in flight: not in ``done``, the keys this run scored) is
    written ``error: not scored (rerun to resume)``, also where the state database holds its result for an earlier
    file or manifest row (that is not its result now). A photo this run scored is written as scored, an error row
    too (one that killed its reader, read alone; one re-read after its file changed: a reviewer's had been listed
    not scored, looked up by the digest taken before it was read). The review page and the history are left to the run that finishes (the page reads
    the flagged photos again: no time for that once told to stop). A second Ctrl-C or a SIGTERM meanwhile is
    ignored: the files are written whole or not at all."""
    kept = f"{word}: {plural(summary.scored, 'photo')} scored and kept"
    main = threading.current_thread() is threading.main_thread()
    # (both signals from here on: after a Ctrl-C the SIGTERM handler is the default again, and a supervisor's
    # SIGTERM while the files were written had ended the run without a word — a reviewer's)
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
    try:
        unscored = {job.key for job, _, _ in todo if job.key not in done}
        written, _, _ = export(con, jobs, out, review_below, unscored, settle_options)
        twin = sibling_output(out, Path(summary.state), con)
        if twin is not None:  # (its twin of the same state too: rewritten whole, or not at all, as ``out`` is)
            written += export(con, jobs, twin, review_below, unscored, settle_options)[0]
    except BatchError as e:
        return f"{kept}; the partial results were not written ({e}) — rerun the same command to resume"
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    # (an earlier run's review page beside them is that run's: a director's listed a problem corrected since)
    from .review import review_path_for

    page = review_path_for(out)
    stale = f"; {page.name} is the earlier run's until then" if page.exists() else ""
    return (f"{kept}; partial: {len(jobs) - len(unscored)} of {plural(len(jobs), 'photo')}, "
            f"written to {', '.join(written)} (the others say not scored){stale} — rerun the same command to finish")


class _OnTerm:
    """The SIGTERM handler of one run: raises :class:`_Terminated` at the first signal while photos are
    scored, and ignores the next ones, and any once every photo is scored (the outputs are then written
    whole). Once a SIGTERM came, :func:`_score_all` leaves SIGTERM ignored, so that the process says what
    it kept before it ends (a second SIGTERM, as a supervisor may send, had killed the batch in its
    shutdown, its message lost); SIGKILL still stops it."""

    def __init__(self) -> None:
        self.raised = False  # True once it raised, or once scoring is done (a SIGTERM then ends nothing)
        self.got = False  # a SIGTERM arrived

    def __call__(self, signum, frame) -> None:
        self.got = True
        if not self.raised:
            self.raised = True
            raise _Terminated()


def _stop_workers(ex) -> None:
    """Stop the worker processes of ``ex`` (a ProcessPoolExecutor) at once, leaving the photos they read: the
    executor has no public way to (Python 3.14's ``terminate_workers``), so its process table is read."""
    for proc in list((getattr(ex, "_processes", None) or {}).values()):
        try:
            proc.terminate()
        except (OSError, AttributeError):  # pragma: no cover - already gone
            pass


def correction_cells_for(job: Job, sha: str, prev: str | None) -> str | None:
    """What a photo row's ``fix`` and ``add`` cells were written for, stored with its result (``cells_for``):
    ``"fix,add:H:SHA"`` — the cells given, ``H`` a digest of their text, ``SHA`` the digest of the photo file they
    were first scored with: carried over from ``prev`` (the row's earlier result's, an error's too) while the cells
    are the same, else this file's ``sha``; None for a row with neither cell, or typed in its notation cell. Those cells
    number the tiles of that file: a row read from another file with them needs review
    (:func:`vision.batch_outputs._status`). A director's ``fix 10=-`` written for the old photo left out another box
    of the new one, read ok at 86 % (43 % without it). (Not ``exposed``: it names melds by their faces, true of any
    photo of the hand.)"""
    cells = [c for c, v in (("fix", job.fix), ("add", job.add)) if v]
    if not cells or job.notation is not None or not sha:
        return None
    h = hashlib.sha256(f"{job.fix or ''}\x1f{job.add or ''}".encode()).hexdigest()[:16]
    head = f"{','.join(cells)}:{h}:"
    return prev if prev and prev.startswith(head) else head + sha


#: the photos that kill the process reading them, read alone, after which a run that has read none to the end stops
CRASHES_TO_STOP = 3


def _score_all(con, todo, reader, workers, progress, summary, cells_for=None, done: set[str] | None = None) -> None:
    """Score the ``todo`` jobs (``workers`` processes, 0: in this one), each result written as it comes (with its
    ``cells_for[key]``, :func:`correction_cells_for`; its key added to ``done``); raises :class:`_Stopped` on Ctrl-C
    or SIGTERM, the results read to the end kept."""
    cells_for = cells_for or {}

    def keep(row: dict[str, Any]) -> None:
        write_result(con, {**row, "cells_for": cells_for.get(row.get("key"))})
        summary.scored += 1
        if done is not None:
            done.add(row.get("key"))

    from tqdm import tqdm

    def pool(n: int) -> Any:
        return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker)

    ex = pool(workers) if workers > 0 else _InProcess()
    max_inflight = max(2, 2 * workers)
    bar = tqdm(total=len(todo), unit="photo", desc="batch", disable=(not sys.stderr.isatty()) if progress is None else not progress,
               file=sys.stderr, dynamic_ncols=True, smoothing=0.05)
    pending: dict[Future, tuple[Job, str, str]] = {}
    suspects: list[tuple[Job, str, str]] = []  # (the photos in flight when a worker process died)

    def drain(block_until_below: int) -> None:
        while len(pending) > block_until_below:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for f in done:
                item = pending.pop(f)
                try:
                    row = f.result()  # FatalError propagates
                except BrokenProcessPool:
                    suspects.append(item)
                    continue
                keep(row)
                bar.update(1)
            if suspects:
                raise BrokenProcessPool

    def alone(item: tuple[Job, str, str]) -> None:
        # (a photo in flight when a worker died, read again in a process of its own: the one that kills it is
        # an error row, the batch goes on — a breaker's photo that crashed its reader had every rerun die again,
        # "rerun to resume" for ever, no output written)
        job, params, sha = item
        one = pool(1)
        try:
            row = one.submit(score_job, job, reader, params, sha).result()
        except BrokenProcessPool:
            # (stored with other params than the run's: the next run reads it again, alone once more if it
            # kills that run's worker too)
            row = {"key": job.key, "sha256": sha, "params": params + CRASHED_PARAMS, "frame": "",
                   "error": CRASHED_ERROR}
            summary.crashed.append(job.key)
        finally:
            one.shutdown(wait=True, cancel_futures=True)
        keep(row)
        bar.update(1)

    # SIGTERM (a supervisor, `timeout`, `kill`) as Ctrl-C: the photos scored are said to be kept (a tester's
    # batch exited 143 without a word), in the main thread only (where signal handlers can be set)
    main = threading.current_thread() is threading.main_thread()
    term = _OnTerm() if main else None
    old_term = signal.signal(signal.SIGTERM, term) if term is not None else None
    stopping = False
    try:
        k = 0
        while True:
            try:
                while k < len(todo):
                    drain(max_inflight - 1)
                    job, params, sha = todo[k]
                    pending[ex.submit(score_job, job, reader, params, sha)] = todo[k]
                    k += 1
                drain(0)
                break
            except BrokenProcessPool:
                suspects.extend(pending.values())
                pending.clear()
                ex.shutdown(wait=True, cancel_futures=True)
                for item in sorted(suspects, key=lambda it: it[0].key):
                    alone(item)
                    # (none read to the end this run, each kept row a crash: a broken installation, not a photo —
                    # the batch stops as before, a reviewer's)
                    if len(summary.crashed) >= CRASHES_TO_STOP and summary.scored == len(summary.crashed):
                        raise BatchError(
                            f"a worker process died reading each photo, also read alone ({', '.join(summary.crashed)}): "
                            f"out of memory, or the image or model libraries broken; "
                            f"{plural(summary.scored, 'photo')} scored and kept — rerun to resume")
                suspects.clear()
                ex = pool(workers)
        if term is not None:  # every photo scored: a SIGTERM now ends nothing (the outputs are written next)
            term.raised = True
    except _Terminated:
        stopping = True
        raise _Stopped("terminated (SIGTERM)") from None
    except FatalError as e:
        raise BatchError(f"{e} ({plural(summary.scored, 'photo')} scored and kept; fix this and rerun to "
                         "resume)") from None
    except KeyboardInterrupt:
        stopping = True
        raise _Stopped("interrupted") from None
    finally:
        if term is not None:  # a SIGTERM during the shutdown below is ignored, not the default's death
            term.raised = True
        # (and a second Ctrl-C while the photos in flight finish: it had ended the run in a traceback, the
        # partial results unwritten — a tester's)
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            bar.close()
            if stopping:
                # stopped (Ctrl-C, SIGTERM): the photos read to the end are kept, those still being read are
                # dropped at once, their workers stopped (a tester's SIGTERM waited 31 s, silent, for the photos
                # in flight, then kept none of them; a supervisor's SIGKILL after its grace period got no output)
                for f in [f for f in pending if f.done() and not f.cancelled() and f.exception() is None]:
                    keep(f.result())
                    pending.pop(f)
                _stop_workers(ex)
            ex.shutdown(wait=True, cancel_futures=True)
        finally:
            if main:
                signal.signal(signal.SIGINT, old_int if old_int is not None else signal.default_int_handler)
            # once a SIGTERM came, the next ones are ignored: the process is ending, and the message of what
            # was kept must still be printed (a second SIGTERM had killed it unsaid). SIG_IGN, not the ignoring
            # handler: Python puts its own handlers back to the default as it exits, and with the workers
            # stopped at once a supervisor's second SIGTERM lands there (exit -15 after the message)
            if term is not None:
                signal.signal(signal.SIGTERM, signal.SIG_IGN if term.got else
                              old_term if old_term is not None else signal.SIG_DFL)
