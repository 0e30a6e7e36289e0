"""The batch review report: one HTML page of the photos that need a person (``needs-review`` and
``error:`` rows of :mod:`vision.batch`), for a tournament director who looks at pictures, not CSV cells.

Each flagged photo is a card: its thumbnail, the annotated reading (:func:`vision.annotate.annotate`:
tile numbers for ``fix``, roles, changed tiles), the reading and its confidence, the problem, and
what to do — the manifest cell to set and the command that checks a correction first (``mahjong-score
photo … --fix POS=TILE --annotate …``), then "rerun the same batch command". The page is one
self-contained file (images as ``data:`` URLs) written beside ``--out`` as ``<out>.review.html``
whenever a row is flagged, and removed when none is (so it never shows a stale problem).

The annotated reading needs the photo read again (the state database keeps numbers, not boxes): the
parent process reads each flagged photo with the batch's reader, once — the JPEGs are cached in the
state database (table ``review_images``, keyed by the photo's SHA-256 and parameter hash), so a
rerun rebuilds the page without reading anything that did not change.
"""
from __future__ import annotations

import base64
import html
import re
import shlex
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import cv2
import numpy as np

from scoring.errors import CircumstanceError

from .batch_outputs import plural
from .decode import format_confidence
from .io import SMALLER_COPY_HOW, text_name
from .manifest import CIRCUMSTANCE_CELLS, CIRCUMSTANCE_FLAGS

#: long side of the thumbnail and of the annotated reading in the page (pixels)
THUMB_SIDE, ANNOTATED_SIDE = 240, 960
JPEG_QUALITY = 80
SCHEMA = """
CREATE TABLE IF NOT EXISTS review_images (
    key TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    params TEXT NOT NULL,
    thumb BLOB,
    annotated BLOB,
    note TEXT
);
"""


def review_path_for(out: Path) -> Path:
    """``results.csv`` → ``results.review.html`` (beside the output)."""
    return out.with_name(out.stem + ".review.html")


# ------------------------------------------------------------------------------ images
def _jpeg(rgb: np.ndarray, side: int) -> bytes:
    """An RGB (H, W, 3) uint8 image scaled to ``side`` pixels on its long side, as JPEG bytes."""
    h, w = rgb.shape[:2]
    k = side / max(h, w)
    if k < 1:
        rgb = cv2.resize(rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 RGB image
        raise ValueError("could not encode a JPEG")
    return buf.tobytes()


def _images(job, reader: Callable | None) -> tuple[bytes | None, bytes | None, str | None]:
    """(thumbnail, annotated reading, note) of one flagged photo; the note says why an image is
    missing (the file cannot be read, no tiles, the reader is not available)."""
    from .annotate import draw_reading, fixed_detections, reading_title
    from .errors import TileNumberError, VisionError
    from .io import load_photo

    if getattr(job, "notation", None) is not None:  # a hand typed: its photo, if any, is shown, not read
        typed = "the hand is typed in the manifest's notation cell: its photo is not read"
        try:
            return _jpeg(load_photo(job.path).pixels, THUMB_SIDE), None, typed
        except (VisionError, OSError) as e:
            return None, None, f"{typed} (nor shown: {str(e).splitlines()[0].replace(job.path, job.key)})"
    try:
        photo = load_photo(job.path)
    except (VisionError, OSError) as e:
        return None, None, f"the photo cannot be shown: {str(e).splitlines()[0]}"
    thumb = _jpeg(photo.pixels, THUMB_SIDE)
    if job.error:  # a bad manifest row: the photo was not read
        return thumb, None, "not read (the manifest row cannot be used)"
    if reader is None:
        return thumb, None, "no annotated reading: the photo reader is not available"
    note, kw = None, {}
    try:  # read as the batch read it (vision.manifest.Job.reader_kwargs): with its added tiles too
        kw = job.reader_kwargs()
        fixes = kw["fixes"]
        res = reader(job.path, job.ruleset, job.make_context(), **kw)
    except Exception as e:  # (VisionError, HandError, …: the row's own error says what happened)
        why = f"no annotated reading: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
        # a position past the photo's tiles in the fix or add cell (vision.pipeline.apply_fixes, add_tiles):
        # the reading without that cell (then without both), so the card shows the numbers to correct the
        # cells by (a tournament director's error row had none); circumstances of the win that contradict the
        # hand (scoring.CircumstanceError): the reading without them, whose numbers the add, exposed and fix cells
        # take (a tester's card advised those cells with no reading to number the tiles); any other error is shown
        # as it is
        ctx = job.make_context()
        if isinstance(e, CircumstanceError):
            plain = replace(ctx, first_turn=False, last_tile=False, kong_on_kong=False, win_by="discard",
                            discards=None, flags=frozenset())  # (a ruleset's flags may describe a win too)
            tries = [(kw, plain, "flags, win_by and discards cells, which contradict it")]
        elif isinstance(e, TileNumberError):
            tries = ([({**kw, "fixes": {}}, ctx, "fix cell, which does not fit it")]
                     if kw.get("fixes") and kw.get("additions") else []) + [
                ({k: v for k, v in {**kw, "fixes": {}}.items() if k != "additions"}, ctx,
                 "fix and add cells, which do not fit it")]
        else:
            return thumb, None, why
        for kw2, ctx2, cells in tries:
            try:
                res = reader(job.path, job.ruleset, ctx2, **kw2)
            except Exception:
                continue
            fixes = kw2.get("fixes") or {}
            note = f"read without the row's {cells}: its tile numbers are those to use"
            break
        else:
            return thumb, None, why
    # (a hand small in its photo: enlarged round it, from the photo loaded above at full size)
    img, _ = draw_reading(res, reading_title(res.reading), fixed_detections(res.order, fixes), photo)
    return thumb, _jpeg(img, ANNOTATED_SIDE), note


def _cached_images(con: sqlite3.Connection, jobs_rows: Sequence[tuple[Any, Mapping[str, Any]]],
                   reader_spec: str, log: Callable[[str], None]) -> dict[str, tuple[bytes | None, bytes | None, str | None]]:
    """Images of the flagged rows: from the ``review_images`` cache when the photo's SHA-256 and
    parameter hash are unchanged, else made now (the reader built once, only when needed)."""
    from .batch_state import CRASHED_ERROR
    from .readers import FatalError, reader_identity, resolve_reader

    con.executescript(SCHEMA)
    rid = reader_identity(reader_spec)
    out: dict[str, tuple[bytes | None, bytes | None, str | None]] = {}
    reader: Callable | None = None
    reader_failed = False
    for job, row in jobs_rows:
        params = job.params(rid)
        sha = row.get("sha256") or ""
        hit = con.execute("SELECT thumb, annotated, note FROM review_images WHERE key=? AND sha256=? AND params=?",
                          (job.key, sha, params)).fetchone()
        if hit:
            out[job.key] = (hit[0], hit[1], hit[2])
            continue
        if CRASHED_ERROR in str(row.get("status") or ""):
            # (its reading killed a worker: read here, in the batch's own process, it would end the run unwritten)
            out[job.key] = (None, None, "not shown: reading this photo killed the process reading it")
            continue
        if reader is None and not reader_failed and not job.error and sha:
            try:
                reader = resolve_reader(reader_spec)()
            except (FatalError, Exception) as e:  # models missing: the page still lists the rows
                reader_failed = True
                log(f"review report: no annotated readings ({str(e).splitlines()[0] if str(e) else type(e).__name__})")
        imgs = _images(job, reader)
        out[job.key] = imgs
        with con:
            con.execute("INSERT OR REPLACE INTO review_images (key, sha256, params, thumb, annotated, note) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (job.key, sha, params, *imgs))
    return out


# ------------------------------------------------------------------------------ advice
def photo_command(job, fix: str = "POS=TILE", add: str = "") -> str:
    """The ``mahjong-score photo`` command that reads this photo as the batch did, with ``--fix``
    (to try a correction), ``--add`` (``add``: to try a missed tile) and ``--annotate`` (to see the
    numbered tiles)."""
    ctx = dict(job.context)
    argv = ["mahjong-score", "photo", job.path, "-r", job.ruleset, "--seat-wind", ctx.get("seat_wind", "E"),
            "--round-wind", ctx.get("round_wind", "E")]
    if not ctx.get("winner", True):
        argv.append("--not-winner")
    elif ctx.get("win_by", "discard") != "discard":
        argv += ["--win-by", ctx["win_by"]]
    for name in ("last_tile", "first_turn", "announced_wait", "kong_on_kong"):
        if ctx.get(name):
            argv.append("--" + name.replace("_", "-"))
    if ctx.get("dealer") is not None:
        argv.append("--dealer" if ctx["dealer"] else "--not-dealer")
    for f in ctx.get("flags", ()):
        argv += ["--flag", f]
    for k, v in job.options:
        argv += ["--option", f"{k}={v}"]
    if job.winning_tile:
        argv += ["--winning-tile", job.winning_tile]
    if job.exposed:
        argv += ["--exposed", job.exposed]
    from .pipeline import split_items  # (a cell "3=4m,,,," had made the advice `--fix 3=4m,,,,POS=TILE`)

    adds = ",".join(x for x in (*split_items(getattr(job, "add", None)), add) if x)
    if adds:
        argv += ["--add", adds]
    fixes = ",".join(x for x in (*split_items(job.fix), fix) if x)
    if fixes:
        argv += ["--fix", fixes]
    argv += ["--annotate", str(Path(job.key).with_suffix("").name) + ".check.jpg", "--no-history"]
    return " ".join(_shell_word(a) for a in argv)


def _shell_word(arg: str) -> str:
    """``arg`` quoted for a POSIX shell (:func:`shlex.quote`); a file name holding bytes that are not UTF-8 (Python's
    lone surrogates) in bash's ``$'…'`` with each such byte ``\\xff``, which the shell turns back into the byte (the
    page is UTF-8 text: a breaker's photo so named had stopped the batch as its review page was written)."""
    if text_name(arg) == arg:
        return shlex.quote(arg)
    quoted = "".join(f"\\x{ord(ch) - 0xDC00:02x}" if 0xDC80 <= ord(ch) <= 0xDCFF else
                     "\\\\" if ch == "\\" else "\\'" if ch == "'" else ch for ch in arg)
    return f"$'{quoted}'"


#: words of vision.io's errors for a file that is not a readable photo (as against a photo without tiles)
FILE_PROBLEMS = ("cut short", "corrupt", "not an image", "file is empty", "permission denied", "cannot read the file",
                 "is a folder", "is not a regular file", "no such file", "symbolic link", "larger than any photo",
                 "could not be read", "name is too long", "image data is empty")


def _file_problem(job, status: str) -> bool:
    """``status`` (an ``error: …`` row) says the file is not a readable photo: judged on the error's own
    words, after the file's name (a photo named "too large hand.jpg" with no tiles had been told to copy
    it again), never for an internal error."""
    what = _error_words(job, status)
    return not what.startswith("internal error") and any(w in what for w in FILE_PROBLEMS)


def _error_words(job, status: str) -> str:
    """An ``error: …`` row's status without that prefix and the file's name before its words."""
    what = status.removeprefix("error: ")
    for name in (job.key, job.path):
        what = what.removeprefix(f"{name}: ")
    return what


def typed_example(job) -> str:
    """A hand to show as the notation cell's example on ``job``'s card, of the row's kind: a winner's with its
    winning tile, a non-winner's 13 tiles (16 under hk-tw-16) with none. A new user pasted the winner's example
    into a non-winner's row and was told a non-winning hand needs 13 tiles, found 14."""
    sixteen = getattr(job, "ruleset", "") == "hk-tw-16"
    if getattr(job, "winner", True):
        return "123m456m789p123s11z [777p] win:1z" if sixteen else "123m456p789s11z [777p] win:1z"
    return ("123m456m789p123s1z [777p], a non-winner's 16 tiles without a winning tile" if sixteen
            else "123m456p789s1z [777p], a non-winner's 13 tiles without a winning tile")


def advice(job, row: Mapping[str, Any]) -> tuple[str, list[str]]:
    """(what to do, commands) for a flagged row."""
    where = f"manifest line {job.line}" if job.line else "a new manifest row for this photo"
    status = row["status"]
    rerun = "then rerun the same batch command: only the changed rows are scored again"
    if status.startswith("error:") and (CIRCUMSTANCE_CELLS in status or CIRCUMSTANCE_FLAGS in status):
        # (what the row says of the win contradicts its hand: a flags cell's first-turn on a hand with an exposed
        # meld had been told to retake the photo, or to correct the notation cell it was typed in)
        if not job.line:  # (no manifest row: the command's flags said it; "a new manifest row" made no sense)
            return ("What the batch command says of the win (--first-turn, --last-tile, --kong-on-kong, --win-by, "
                    "--discards) contradicts this photo's hand (the problem says how): give the photo a row in a "
                    "manifest (--manifest FILE; docs/batch.md) whose flags, win_by and discards cells say its own "
                    "circumstances (a flags cell `-` for none: an empty cell takes the command's), then rerun the batch "
                    "command with --manifest: only the changed rows are scored again.", [])
        tiles = ("its notation cell" if getattr(job, "notation", None) is not None  # (a typed row takes no add/fix)
                 else "its add, exposed, fix or winning_tile cell (a kong or flower the photo missed, a meld read as "
                      "exposed, the winning tile)")
        return (f"What the row says of the win contradicts its hand (the problem says how): correct the flags, "
                f"win_by or discards cell of {where} (or, those cells empty, the batch command's --first-turn, "
                f"--last-tile, --kong-on-kong, --win-by or --discards: a flags cell `-` for none); where the problem "
                f"names the hand's tiles or melds, {tiles} instead, {rerun}.", [])
    if status.startswith("error: manifest line") or (job.error and status.startswith("error:")):
        many = getattr(job, "error_count", 0) > 1  # make_job names every cell it could not understand
        return (f"Correct the {'cells' if many else 'cell'} named in the problem on {where}, {rerun}.", [])
    if getattr(job, "notation", None) is not None:  # a hand typed in the notation cell: no photo to correct
        problem = (row.get("problem") or "").lower()
        if "not allowed" in problem or "not a winning hand under" in problem:
            return (f"The hand typed in the notation cell of {where} is scored, but the ruleset refuses this "
                    f"mahjong. Check the notation and the circumstances on {where} (winner, win_by, flags, "
                    f"options), {rerun}.", [])
        if "no winning tile given" in problem:
            return (f"Give the winning tile: end the notation cell of {where} with win:TILE (e.g. win:5p) or put "
                    f"it in its winning_tile cell, {rerun}.", [])
        return (f"Check the hand typed in the notation cell of {where} and the row's other cells, {rerun}.", [])
    if status == "error: no such file":
        return (f"The manifest lists a photo that is not in the folder: correct the photo cell on {where} "
                f"or add the file (or, the photo lost, type the hand in the notation cell of {where}), {rerun}.", [])
    cell = ("add (or fix) cell" if any(w in status for w in ("--add", "add cell", "you set")) else
            "fix cell" if "--fix" in status or "fix cell" in status else None)
    if status.startswith("error:") and cell:  # a correction that does not fit: the cell, not the photo
        what = "A tile in the" if cell.startswith("add") else "A correction in the"
        return (f"{what} {cell} of {where} does not fit this photo (the problem names it): correct or clear "
                f"that cell, {rerun}. `mahjong-score photo PHOTO --annotate OUT.jpg` numbers the tiles.", [])
    if status.startswith("error:") and _error_words(job, status).startswith("the image is too large"):
        # (a director's 224 MP photo had been told to retake it: the photo is fine, only too many pixels)
        return (f"The photo has more pixels than the reader takes (the problem gives the limit): {SMALLER_COPY_HOW} "
                f"under the same name, {rerun}.", [])
    if status.startswith("error:") and _file_problem(job, status):
        # the file, not the photo, is what is wrong: a copy cut short had been told to retake the photo
        return ("The file could not be read as a photo (the problem says why): copy it again from the camera "
                "or phone, or save it as a JPEG; " + rerun + f". If the photo itself is lost, type the hand in the "
                f"notation cell of {where} (e.g. {typed_example(job)}; docs/batch.md).", [])
    if status.startswith("error:"):
        return ("The photo could not be scored. Retake it (the whole hand in the frame, tiles face up; see "
                f"docs/photo.md), or type the hand in the notation cell of {where} (e.g. {typed_example(job)}; "
                "docs/batch.md); " + rerun + ".", [])
    problem = (row.get("problem") or "").lower()
    if problem.startswith("same picture as "):  # (vision.batch_outputs: a photo filed twice)
        others = (row.get("problem") or "")[len("same picture as "):].split(":")[0]
        return (f"This photo is the same file as {others}: a hand counted twice, or a player's own photo not "
                f"filed. Check which player and hand each copy was taken for, and correct the photo cell on {where} "
                f"(or the other's) to that photo's file, {rerun}.", [])
    if "if the hand did not win, set the winner cell to no: tile " in problem:
        # (a hand read not legal as won whose 13 tiles without a tile set apart make a non-winner's hand: the card had
        # answered "the ruleset refuses this mahjong", with no word of the winner cell the problem names)
        return (f"The tiles do not make a winning hand, but without the tile set apart at the row's end (the problem "
                f"names it) they make a non-winner's: if the hand did not win, set the winner cell of {where} to no; "
                f"if it did, correct a misread tile in its fix cell (e.g. 3=5p); {rerun}. To try it first:",
                [photo_command(replace(job, context=tuple({**dict(job.context), "winner": False}.items())), fix="")])
    if "not a winning hand under" in problem and "not allowed" not in problem:
        # (tiles that make no hand: most often a tile misread, not a refusal; a new user's card for a sticker over a
        # 4m, read 1p at 63 %, said "the ruleset refuses this mahjong" and pointed at the circumstances first)
        named = named_correction(problem, "fix")
        least = re.search(r"least sure: tile (\d+) \((\w+) ", problem)
        example = (f"{named}: the problem names it" if named and "=-" not in named else
                   f"for tile {least.group(1)}, the least sure, read {least.group(2)}: {least.group(1)}=5p if it is a 5p"
                   if least else "3=5p")
        return (f"The tiles read make no winning hand: most often a tile is misread. Check the reading in the "
                f"picture, the least sure tiles first (the problem names them), and put the correction in the fix "
                f"cell of {where} (e.g. {example}); if every tile is read right, check the circumstances there "
                f"(winner, win_by, flags, options); {rerun}. To try a correction first:", [photo_command(job)])
    if "not allowed" in problem or "not a winning hand under" in problem:
        return (f"The tiles are read, but the ruleset refuses this mahjong. Check the reading in the picture "
                f"and the circumstances on {where} (winner, win_by, flags, options); if a tile is misread, "
                f"put its correction in the fix cell of {where} (e.g. 3=5p); {rerun}. To try a correction "
                f"first:", [photo_command(job)])
    if "set the winner cell to yes" in problem or "leave out --not-winner" in problem:
        # (a photo that reads as a winner's, its winner cell no: the card's advice had been the generic one of
        # misread tiles, under a problem that said to set the winner cell: a new user's)
        return (f"The photo reads as a winning hand, and the winner cell says it did not win. If the hand won, set "
                f"the winner cell of {where} to yes; if it did not, leave the tile that is not the hand's out with "
                f"its fix cell (e.g. 14=-), or correct a misread one there (e.g. 3=5p); {rerun}. To try it first:",
                [photo_command(job, fix="POS=-")])
    count = re.match(r"found (\d+) tiles in the hand.*? has (\d+)", problem)
    if count and int(count.group(1)) > int(count.group(2)):  # more tiles than a hand: boxes to leave out
        # (the problem's own box to leave out where it names one: a tester's card said "e.g. 9=-", a tile of the pair,
        # under a problem that named tile 10, the stray at the row's end)
        named = named_correction(problem, "fix")
        # (else the first tile the problem names for leaving out: a tester's card said "e.g. 9=-: tile 9 is left
        # out" of the winning 8p, under a problem naming tiles 2 and 10)
        first = re.search(r"leaving out (?:one of )?tiles? (\d+)", problem)
        example = (f"{named}: the problem names it" if named and named.endswith("=-") else
                   f"{first.group(1)}=-: the problem names tile {first.group(1)}" if first else "9=-: tile 9 is left out")
        said_not_won = not job.winner  # (a winner's hand with a tile too many: no such word)
        return (f"The hand holds more tiles than it should. Check the numbered tiles in the annotated reading: "
                f"leave a box that is not the hand's out with the fix cell of {where} (e.g. {example}), correct a "
                f"misread one there (e.g. 3=5p)" + (", or set the winner cell if the hand won" if said_not_won else "")
                + f"; {rerun}. To try it first:",
                [photo_command(job, fix=named.replace(" ", ",") if named and named.endswith("=-") else "POS=-")])
    if ("no winning tile marked" in problem and not problem.startswith("confidence ") and row.get("reading")
            and "left out as a false detection" not in problem):  # (that box may be the winning tile set apart)
        # (a photo read with no winning tile marked: a director's card said only to correct misread tiles)
        return (f"No winning tile is marked in the photo (set apart or sideways), so the score guesses which tile "
                f"completed the hand: put it in the winning_tile cell of {where} (e.g. 5p), {rerun}. To try it "
                f"first:", [photo_command(job, fix="") + " --winning-tile TILE"])
    if problem.startswith("found ") or "row shows" in problem:  # a tile count: a tile missed, or one
        # too many (a winner's row of 13 read as a non-winner's hand says "the hand's row shows 13 tiles")
        named = named_correction(problem, "add")  # (the problem's own add where it names one: "… 14=2m")
        example = f"{named}: the problem names it" if named else "14=5p: it becomes tile 14"
        return (f"The hand's tile count is wrong. Check the numbered tiles in the annotated reading: put a tile "
                f"the photo missed in the add cell of {where} (e.g. {example}), a misread one "
                f"in its fix cell (e.g. 3=5p), or set the winner cell if the hand did not win; {rerun}. To "
                f"try it first:", [photo_command(job, fix="", add=named.replace(" ", ",") if named else "POS=TILE")])
    named = named_correction(problem, "fix") if "say so with the fix cell" in problem else None
    if named:  # (the problem's own correction: a tester's card for a discard left out beside the row, its note naming
        # "--fix 9=-", said only "e.g. 3=5p" and a command ending in --fix POS=TILE)
        return (f"Check the numbered tiles in the annotated reading against the problem, which names a correction "
                f"({named}): if it is right, put it in the fix cell of {where}; for a misread tile put its correction "
                f"there (e.g. 3=5p; several: 3=5p,7=1z), {rerun}. To try it first:",
                [photo_command(job, fix=named.replace(" ", ","))])
    # (a right reading under the review line: a director could not mark it checked, and "fixed" a tile to its own face)
    confirm = (f" If the reading and its score are right, write the total ({row['total']}) in the checked cell of "
               f"{where} instead: the row is then ok while it scores that total." if row.get("reading")
               and row.get("total") not in (None, "") and row.get("status") == "needs-review" else "")
    return (f"Check the numbered tiles in the annotated reading. For each misread tile put its correction in "
            f"the fix cell of {where} (e.g. 3=5p; several: 3=5p,7=1z), {rerun}.{confirm} To try a correction first:",
            [photo_command(job)])


def named_correction(problem: str, cell: str) -> str | None:
    """The first correction list a reading's problem (or note) names for ``cell`` (``fix`` or ``add``), its items
    split by spaces as a manifest cell takes them: ``--fix 10=-`` or "the fix cell (10=-)" → ``10=-``; ``--add
    10=0x,13=0x`` → ``10=0x 13=0x``; None where it names only ``POS=…``."""
    for m in re.finditer(rf"(?:--{cell} |the {cell} cell \(|by writing )(\d+=[^\s,;:)]+(?:[, ]\d+=[^\s,;:)]+)*)"
                         rf"(?:\)| in the row's {cell} cell)?", problem):
        if not m.group(0).startswith("by writing") or m.group(0).endswith(f"row's {cell} cell"):
            return m.group(1).replace(",", " ")
    return None


def _template_note(command: str) -> str:
    """A line under a command that holds the placeholders POS / TILE (a tester pasted one as it was and
    got "--fix 'POS=-': position 'POS' is not a number"): what to put in their place."""
    says = {"POS": "the tile's number in the annotated reading", "TILE": "its tile, e.g. 5p"}
    what = [f"{w} with {d}" for w, d in says.items() if re.search(rf"\b{w}\b", command)]
    return f'<p class="note">{html.escape("Before running it, replace " + " and ".join(what) + ".")}</p>' if what else ""


# ------------------------------------------------------------------------------ page
CSS = """
body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#f4f4f1;color:#222}
header{background:#1f6f43;color:#fff;padding:14px 20px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0}main{padding:12px 20px}
.card{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;margin:0 0 16px;padding:12px 16px;
display:grid;grid-template-columns:240px 1fr;gap:8px 16px}
.card h2{grid-column:1/3;margin:0;font-size:16px}.card h2 .st{font-weight:normal;padding:1px 8px;border-radius:10px}
.needs-review .st{background:#ffe7a8}.error .st{background:#ffc9c4}
.thumb img{max-width:240px;border-radius:4px}.annot img{max-width:100%;border-radius:4px}
.annot{grid-column:1/3}.meta{color:#555}.problem{font-weight:600}
code{display:block;background:#f0f0ec;padding:6px 8px;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere}
.tables{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;margin:0 0 16px;padding:12px 16px;
border-left:6px solid #e0a800}.tables h2{margin:0 0 4px;font-size:16px}.tables .who{color:#555}
.note{color:#777;font-style:italic}table.meta td{padding:0 12px 0 0}
.note.phone{display:none}
@media (max-width:600px){main{padding:8px}.card{grid-template-columns:1fr;padding:10px}.card h2,.annot{grid-column:1}
.thumb img{max-width:100%}table.meta td{display:block;padding:0}table.meta td:first-child{font-weight:600}
.annot{overflow-x:auto}.annot img{max-width:none;width:250%}.note.phone{display:block}}
"""


def _img(data: bytes | None, alt: str) -> str:
    if not data:
        return ""
    return f'<img alt="{html.escape(alt)}" src="data:image/jpeg;base64,{base64.b64encode(data).decode()}">'


#: the manifest cells a table hand's rows are corrected in, as the tables section names them (columns of
#: :data:`vision.manifest.MANIFEST_COLUMNS`: a director's `east` column, named here, had stopped the batch)
TABLE_CELLS = ("winner", "dealer", "seat_wind", "player", "options", "settle", "dealer_streak", "notation", "fix")


def _tables_section(tables: Sequence[Mapping[str, Any]], carded: set[str]) -> str:
    """The page's list of the table hands not settled or settled provisionally (``tables``: :func:`vision.
    batch_outputs.export`'s, each its ``table``, ``hand``, ``status`` and ``players``), each player's photo
    linked to its card where it has one (``carded``: the keys with a card). A director working from the page
    had not learnt that a hand with two winners, its photos both ``ok``, was not settled."""
    if not tables:
        return ""
    e = html.escape
    items = []
    for t in tables:
        who = ", ".join(f'{e(lab)} (<a href="#{e(key)}">{e(key)}</a>)' if key in carded else f"{e(lab)} ({e(key)})"
                        for lab, key in t["players"])
        items.append(f'<li><b>table {e(str(t["table"]))} hand {e(str(t["hand"]))}</b>: {e(t["status"])}'
                     f'<br><span class="who">{who}</span></li>')
    return (f'<section class="tables"><h2>{plural(len(tables), "table hand")} not settled or settled '
            f'provisionally</h2><p>Correct the rows named (their manifest cells: {", ".join(TABLE_CELLS)}), '
            f'then rerun the same batch command; the settlements file has each hand\'s payments.</p>'
            f'<ul>{"".join(items)}</ul></section>')


def render_page(items: Iterable[tuple[Any, Mapping[str, Any], tuple[bytes | None, bytes | None, str | None]]],
                total: int, out_name: str, tables: Sequence[Mapping[str, Any]] = ()) -> str:
    """The HTML page of the flagged rows: ``items`` are (job, output row, images); ``tables``: the table hands
    not settled or settled provisionally (:func:`_tables_section`), listed first."""
    cards = []
    keys: set[str] = set()
    n = 0
    for job, row, (thumb, annotated, note) in items:
        n += 1
        keys.add(job.key)
        kind = "error" if row["status"].startswith("error") else "needs-review"
        what, commands = advice(job, row)
        e = html.escape
        facts = [("table / hand / player", " / ".join(x or "–" for x in (job.table, job.hand, job.player))),
                 ("seat wind", row["seat_wind"]),
                 # (a row scored as a non-winner's though its winner cell did not say so — a 13-tile photo with the
                 # cell empty —: a new user read "winner no" beside "set the winner cell to no" as a contradiction)
                 ("winner", "no (the winner cell is empty: read as a non-winner's hand)"
                  if row["winner"] == "no" and getattr(job, "winner", False) else row["winner"]),
                 ("ruleset", job.ruleset),
                 ("manifest line", str(job.line) if job.line else "none (command-line defaults)")]
        if row.get("reading"):
            conf = row.get("confidence")
            facts.append(("reading", row["reading"] + (f" ({format_confidence(conf)} sure)" if conf else "")))
        if row.get("total") is not None:
            facts.append(("score", str(row["total"])))
        if job.fix:
            facts.append(("fix cell", job.fix))
        if getattr(job, "notation", None) is not None:
            facts.append(("notation cell", job.notation))
        problem = row.get("problem") or (row["status"][len("error: "):] if kind == "error" else "")
        # the scoring's notes (the row's score_notes: a flag that scores nothing, bonus tiles not scored), which
        # a director checking the score reads beside the reading (the CSV has them; the page had not)
        notes = row.get("score_notes") or []
        if note and problem:  # (an error card said its problem twice: "the photo cannot be shown: <the problem>")
            head, _, why = note.partition(": ")
            if why and (why in problem or problem in why):
                note = f"{head} (the problem above says why)"
        cards.append(
            f'<section class="card {kind}" id="{e(job.key)}">'
            f'<h2>{e(job.key)} <span class="st">{e(row["status"].split(":")[0])}</span></h2>'
            f'<div class="thumb">{_img(thumb, "the photo " + job.key)}</div>'
            f'<div><p class="problem">{e(problem)}</p>'
            f'<table class="meta">{"".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in facts)}</table>'
            + (f'<p>Scoring notes (how the score was counted, not why the row is flagged):</p>'
               f'<ul class="score-notes">{"".join(f"<li>{e(x)}</li>" for x in notes)}</ul>' if notes else "")
            + f'<p>{e(what)}</p>{"".join(f"<code>{e(c)}</code>" + _template_note(c) for c in commands)}</div>'
            # (on a phone the reading is drawn wider than the card, scrolled sideways: its tile numbers, which the fix
            # cell takes, had been 4 px high at 390 px — a director's)
            + (f'<div class="annot">{_img(annotated, "the reading of " + job.key)}'
               f'<p class="note phone">Scroll the picture sideways to read its tile numbers.</p></div>'
               if annotated else "")
            + (f'<p class="note">{e(note)}</p>' if note else "")
            + "</section>")
    return ("<!doctype html><html lang=en><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>Review: {html.escape(out_name)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>Batch review — {html.escape(out_name)}</h1>"
            f"<p>{n} of {plural(total, 'photo')} need{'s' if n == 1 else ''} a look: the problem, the "
            f"reading with its tile numbers where the photo was read, the scoring notes, and how to correct it."
            f"</p></header><main>{_tables_section(tables, keys)}{''.join(cards)}</main></body></html>\n")


def write_review(con: sqlite3.Connection, rows: Sequence[tuple[Any, Mapping[str, Any]]], out: Path, total: int,
                 reader_spec: str, log: Callable[[str], None] | None = None,
                 tables: Sequence[Mapping[str, Any]] = ()) -> Path | None:
    """Write ``<out>.review.html`` for the flagged rows among ``rows`` ((job, output row) in output
    order; a row is flagged when its status is not ``ok``) and the table hands ``tables`` not settled or
    settled provisionally (:func:`vision.batch_outputs.export`'s), or remove a stale one when there are none.
    Returns the page's path, or None when no page was written. A page that cannot be written is a
    warning (``log``), never a lost batch."""
    log = log or (lambda m: print(f"mahjong-score: warning: {m}", file=sys.stderr))
    path = review_path_for(out)
    flagged = [(j, r) for j, r in rows if r["status"] != "ok"]
    if not flagged and not tables:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            log(f"could not remove the old review report {path}: {e}")
        return None
    images = _cached_images(con, flagged, reader_spec, log)
    page = render_page(((j, r, images[j.key]) for j, r in flagged), total, out.name, tables)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        log(f"the review report {path} could not be written: {e}")
        return None
    return path
