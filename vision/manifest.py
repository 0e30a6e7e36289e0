"""Batch input: the photos of a folder, the manifest CSV (columns in docs/batch.md) and the
:class:`Job` of each photo with its settings. Re-exported by :mod:`vision.batch`.
"""
from __future__ import annotations

import csv
import dataclasses
from collections import Counter
import hashlib
import io
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from scoring.errors import HandError, RulesetError
from scoring.hand import FIELD_FLAGS, WON_FIELDS
from scoring.hand import WIN_BY, win_by_word
from scoring.notation import is_whole_number
from scoring.tiles import wind_letter

from .errors import BatchError
from .io import text_name


#: file extensions read as photos (case-insensitive)
PHOTO_EXTS = frozenset({".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".avif", ".bmp", ".tif", ".tiff"})
#: camera RAW files, left out of a folder's photos although most begin as a TIFF does: a camera shooting
#: RAW + JPEG puts IMG_1.DNG beside IMG_1.JPG, and the RAW one was scored too, from its small preview
RAW_EXTS = frozenset({".dng", ".cr2", ".cr3", ".crw", ".nef", ".nrw", ".arw", ".srf", ".sr2", ".orf", ".rw2",
                      ".raf", ".pef", ".srw", ".x3f", ".3fr", ".erf", ".kdc", ".mrw", ".iiq", ".rwl", ".mos"})

#: manifest columns (documented in docs/batch.md); ``photo`` is required
MANIFEST_COLUMNS = ("photo", "ruleset", "table", "hand", "player", "seat_wind", "round_wind", "winner", "dealer",
                    "win_by", "winning_tile", "notation", "exposed", "fix", "add", "flags", "options", "discards",
                    "dealer_streak", "settle", "checked")

#: the cells that correct a photo's reading: refused beside a ``notation`` cell (the hand typed is not read)
PHOTO_CELLS = ("exposed", "fix", "add")

#: what a row's status names when the win's circumstances contradict its hand (:class:`scoring.CircumstanceError`,
#: :func:`vision.batch.circumstance_error`): the cells that say them, not the photo nor the notation cell (a new
#: user's ``first-turn`` flags cell on a hand with an exposed meld was told to retake the photo, then, the hand
#: typed, to correct the notation cell); :func:`vision.review.advice` knows the row by it
CIRCUMSTANCE_CELLS = "the flags, win_by and discards cells (or the batch command's flags they default to)"
#: … and for a photo with no manifest row, the batch command's flags that said them
CIRCUMSTANCE_FLAGS = ("the batch command's --first-turn / --last-tile / --kong-on-kong / --win-by / --discards (this "
                      "photo has no manifest row)")

#: context flags that are :class:`scoring.Context` fields rather than ruleset flags (flag → field)
CONTEXT_FLAGS = {f: f.replace("-", "_") for f in sorted(FIELD_FLAGS)}

_YES = {"yes", "y", "true", "1", "win", "winner", "x"}

_NO = {"no", "n", "false", "0", "-", "lose", "loser"}


@dataclass(frozen=True)
class Defaults:
    """Values for photos without a manifest row and for empty cells (from the command line)."""

    ruleset: str = "nts"
    context: Mapping[str, Any] = field(default_factory=dict)  # scoring.Context keyword arguments
    options: Mapping[str, str] = field(default_factory=dict)
    winning_tile: str | None = None
    exposed: str | None = None
    fix: str | None = None
    #: every table hand's settlement options (``batch --settle-option``: :func:`vision.batch_outputs.settle_group`)
    settle_options: Mapping[str, str] = field(default_factory=dict)


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
    #: tiles the detector missed, as ``photo --add`` takes them (``14=5p``; the manifest's ``add`` cell)
    add: str | None = None
    table: str = ""
    hand: str = ""
    player: str = ""
    dealer: bool | None = None
    error: str | None = None
    #: how many cells ``error`` names (its phrases are joined by "; ", which a phrase may hold too)
    error_count: int = 0
    #: for an ``error`` job: the manifest's seat_wind/winner cells as typed (shown in the output row
    #: instead of the defaults, which the unusable row never replaced)
    typed: tuple[tuple[str, str], ...] = ()
    #: the hand typed in the manifest's ``notation`` cell (as ``mahjong-score hand`` takes it): the row is
    #: scored from it, its photo not read (the file may be missing); None for a photo's row
    notation: str | None = None
    #: the row's ``settle`` cell: its table hand's settlement options (hk-tw-16 ``discarder``, ``liable`` …),
    #: named as the schemes spell them (:func:`scoring.engine.option_key`); read by
    #: :func:`vision.batch_outputs.group_settle_options`, not by the score (not in :meth:`params`)
    settle: tuple[tuple[str, str], ...] = ()
    #: on the row of the player its table hand's settlement options name as ``false_win`` (hk-tw-16's 假胡, 004:50:
    #: a false mahjong, 17 tiles, :func:`false_win_players`): that value as typed (``N``, the seat, or ``Dee``), else
    #: "": its hand is not scored, its photo not read, its notation cell read as notation only (any tile count), as
    #: `table` takes that player's hand
    false_win: str = ""
    #: on a row typed in the notation cell of a table hand whose ``false_win`` names no one row surely (two values,
    #: a name no player has): why (:func:`false_win_players`), said beside a tile count its scoring refuses that
    #: the false mahjong's reading would take (a reviewer's 17-tile row said only "a non-winning hand needs 16 tiles
    #: … found 17"), else ""
    false_win_doubt: str = ""
    #: the row's ``winner`` cell says the hand won (``yes``): its photo is read as a winner's only. A winner by
    #: default (no cell, an empty one, no manifest row, no ``--not-winner``) is not said, and a 13-tile photo
    #: is read as ``photo`` without ``--not-winner`` reads it (:meth:`reader_kwargs`)
    won_said: bool = False
    #: a non-winner's row of a table hand whose win_by cell says other than discard (a column filled down in a
    #: spreadsheet): that value, kept apart — the row is scored as a non-winner's, and its table hand is settled only
    #: when it is the winner's win_by (:func:`vision.batch_outputs.settle_group`); "" otherwise
    win_by_cell: str = ""
    #: the cells the manifest row gives (not empty), by column name: what its notes may call a cell
    cells: tuple[str, ...] = ()
    #: the row's ``checked`` cell: the total a director confirmed by hand for a row that needs review (its reading
    #: right, under the review line); the row is ok while it scores that total, and needs review again when it no
    #: longer does (:func:`vision.batch_outputs.checked_status`). None: no cell
    checked: int | None = None

    @property
    def seat_wind(self) -> str:
        return dict(self.context).get("seat_wind", "E")

    @property
    def winner(self) -> bool:
        return bool(dict(self.context).get("winner", True))

    def params(self, reader_id: str) -> str:
        """Hash of everything that decides the score (not the labels table/hand/player), the scoring package's
        version among it (:func:`scoring.engine.scoring_fingerprint`). A typed hand's
        (``notation``), and a ``false_win`` row's (its photo not read), leave out the photo reader's identity: new
        models do not score them again."""
        # (a false_win row's, marked so: not the hash of the row scored as a hand, nor of the rows made before it)
        fw = (["false_win", self.false_win] if self.false_win else []) + (
            ["false_win_doubt", self.false_win_doubt] if self.false_win_doubt else [])
        reader_id = "" if self.false_win else reader_id
        # (the scoring's own version too: a fix to a rule scores the rows again, where a resumed batch had kept the
        # old totals beside the new, all ok)
        from scoring.engine import scoring_fingerprint

        # (a checked cell: recorded again in the history, its status the check's)
        tail = fw + ["scoring", scoring_fingerprint()] + (["checked", self.checked] if self.checked is not None else [])
        if self.notation is not None:
            blob = json.dumps(["typed", self.ruleset, list(self.context), list(self.options), self.winning_tile,
                               self.notation, self.error] + tail, sort_keys=True, default=list)
            return hashlib.sha256(blob.encode()).hexdigest()[:32]
        # (no add cell: the hash of the rows made before it; a winner nobody said is read otherwise than before
        # won_said, when every winner was read as said: its row is read again on resume, a said one's is not)
        blob = json.dumps([self.ruleset, list(self.context), list(self.options), self.winning_tile, self.exposed,
                           self.fix, self.error, reader_id] + ([self.add] if self.add else []) + tail
                          + (["winner not said"] if self.winner and not self.won_said else []),
                          sort_keys=True, default=list)  # (no add cell: the hash of the rows made before it)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    def reader_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of the photo reader (:mod:`vision.batch`'s reader interface) that
        read this photo as the batch does: winning tile, exposed melds, fixes, options; ``said_won``
        when the row's winner cell says the hand won (:attr:`won_said`: its 13-tile photo is not read as a
        non-winner's); a winner by default is not said, as ``photo`` without ``--not-winner`` says nothing
        (a 13-tile photo is then read as a non-winner's hand, and the row needs review); the added
        tiles only when there are some (so any reader takes the rest). Raises HandError for a bad
        fix or add cell."""
        from .pipeline import parse_additions, parse_fixes

        kw: dict[str, Any] = {"winning_tile": self.winning_tile, "exposed": self.exposed,
                              "fixes": parse_fixes(self.fix), "options": dict(self.options)}
        # (every row had been said won — the command line's defaults hold winner=True — so a 13-tile photo
        # that `photo` scores as a non-winner's hand was a count problem in a batch, unscored)
        if self.won_said and self.winner:
            kw["said_won"] = True
        if self.add:
            kw["additions"] = parse_additions(self.add)
        return kw

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


def _decode(data: bytes) -> str:
    """A manifest's text: UTF-8 (a BOM allowed), UTF-16 or UTF-32 with its BOM (a spreadsheet's "Unicode text"),
    else Windows-1252 (a spreadsheet's CSV in a Western European locale: a Dutch "Loïs" had been refused
    with "'utf-8' codec can't decode byte 0xeb"). Raises UnicodeDecodeError for bytes none of them
    reads (a binary file)."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        # (UTF-32 with its BOM, whose first bytes are UTF-16's: a breaker's had been read as UTF-16, its header
        # "unknown column(s) '\x00n\x00o…'")
        return data.decode("utf-32")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if b"\x00" in data:  # no text file of a spreadsheet holds NUL bytes (UTF-16 without its BOM, a binary)
        # (a text with a stray NUL: its line named, a breaker's; not a binary with few NULs, a zipped .xlsx)
        if data.count(b"\x00") * 20 < len(data) and _is_utf8(data.replace(b"\x00", b"")):
            line = data[:data.index(b"\x00")].count(b"\n") + 1
            raise ValueError(f"line {line} holds a NUL byte (0x00), which no text file holds")
        raise UnicodeDecodeError("utf-8", data, 0, 1, "it holds NUL bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", "replace")
        good = sum(1 for c in text if ord(c) > 127 and c != "\ufffd")
        bad = text.count("\ufffd")
        if data.startswith(b"\xef\xbb\xbf") or good >= bad:
            # UTF-8 with a bad byte: read as Windows-1252 its names would be garbled without a word
            line = data[:e.start].count(b"\n") + 1
            raise ValueError(f"line {line} is not UTF-8 (byte 0x{data[e.start]:02x}), though the rest of the file "
                             f"is") from None
        if _double_byte(data):
            # (a tester's zh-TW spreadsheet's CSV in Big5 had been read as Windows-1252, 陳大文 as ³¯¤j¤å, without a
            # word, and one in GB18030 said to be UTF-8 with one bad byte)
            raise ValueError("it is not UTF-8, and its bytes look like a Chinese or Japanese encoding (Big5, GBK, "
                             "Shift-JIS), which cannot be told apart")
        return data.decode("cp1252")


def _is_utf8(data: bytes) -> bool:
    """``data`` decodes as UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _double_byte(data: bytes) -> bool:
    """The cells of ``data`` (not UTF-8) that hold bytes over 127 are mostly written in a double-byte encoding
    (Big5, GBK, Shift-JIS): at least 60 % of them are made of byte pairs (a byte over 127 and the next, as their
    characters are), no byte over 127 alone, and at most one ASCII letter or digit per two pairs. A Western
    Windows-1252 cell has its accented letters among ASCII ones (Loïs, Müßig, n°1, O’Brien, Jää): a reviewer's
    counts of letters had refused « » ° as Chinese and let four one-character Chinese names through."""
    def paired(cell: bytes) -> bool:
        cell = cell.strip().strip(b'"')
        pairs = lone = ascii_alnum = 0
        k = 0
        while k < len(cell):
            b = cell[k]
            if b > 127 and k + 1 < len(cell) and (cell[k + 1] > 127 or 0x40 <= cell[k + 1] <= 0x7E):
                pairs, k = pairs + 1, k + 2
                continue
            lone += b > 127
            ascii_alnum += b < 128 and chr(b).isalnum()
            k += 1
        return pairs >= 1 and not lone and ascii_alnum <= pairs // 2

    cells = [c for line in data.split(b"\n") for c in re.split(rb"[,;\t]", line) if any(b > 127 for b in c)]
    return bool(cells) and sum(map(paired, cells)) >= 0.6 * len(cells)


def read_manifest(path: str | os.PathLike,
                  commented: list[tuple[int, str]] | None = None) -> list[tuple[int, dict[str, str]]]:
    """The manifest rows as (line number, {column: cell}) with empty cells dropped.

    CSV with a header row (``,``, ``;`` or tab separated; UTF-8, a BOM allowed, UTF-16 with a BOM or
    Windows-1252: :func:`_decode`); blank lines, rows of empty cells and lines starting with ``#`` are
    skipped; column names are case-insensitive (``seat-wind`` =
    ``seat_wind``). Raises BatchError for a missing/unreadable file, a malformed CSV, an unknown
    column, a missing ``photo`` column or cell, or a photo listed twice. A row with more cells than
    columns gets the key :data:`ROW_ERROR` (its photo becomes an error row, the batch goes on).
    ``commented``, where given, gets (line number, first cell) of each comment line that holds as many cells as
    the header names columns, its ``photo`` cell a photo file's name: a row whose first cell begins with ``#`` (a
    breaker's table ``#1``, its four rows and settlement gone without a word), or one commented out — the batch
    says which.
    """
    p = Path(path)
    try:
        text = _decode(p.read_bytes())
    except FileNotFoundError:
        raise BatchError(f"manifest {p}: no such file") from None
    except OSError as e:
        raise BatchError(f"manifest {p}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise BatchError(f"manifest {p}: it is not a text file in UTF-8, UTF-16 or Windows-1252 "
                         f"(save it as 'CSV UTF-8')") from None
    except ValueError as e:
        raise BatchError(f"manifest {p}: {e} (save it as 'CSV UTF-8')") from None
    # blank lines and comment lines (#) skipped, but not inside a quoted cell that runs on (its second line may begin
    # with a # or be blank: a tester's "Ann\n#2" had been cut there, and said to be a quote not closed)
    lines: list[tuple[int, str]] = []
    comments: list[tuple[int, str]] = []
    quoted = False
    for i, ln in enumerate(text.splitlines(), 1):
        if quoted or (ln.strip() and not ln.lstrip().startswith("#")):
            lines.append((i, ln))
            quoted ^= ln.count('"') % 2 == 1
        elif ln.strip():
            comments.append((i, ln))
    if not lines:
        raise BatchError(f"manifest {p}: it is empty (a header row with at least the column 'photo' is needed)")
    header = lines[0][1]
    if header.lstrip().startswith(("{", "[")):
        # (a breaker's batch output in JSON Lines given as the manifest: "unknown column(s) '{"photo":_"a.jpg"'…")
        raise BatchError(f"manifest {p}: it is JSON, not CSV: a manifest is a CSV file, a header row of column names "
                         f"then a row per photo (columns: {', '.join(MANIFEST_COLUMNS)}; see docs/batch.md)")
    delim = max((",", ";", "\t"), key=header.count)
    reader = csv.reader(io.StringIO("\n".join(ln for _, ln in lines)), delimiter=delim)
    numbered: list[tuple[int, list[str]]] = []  # (file line where the row starts, cells)
    start = 0  # index in ``lines`` of the next row's first line (a quoted cell may span lines)
    try:
        for row in reader:
            last = lines[start][1]
            if (start == len(lines) - 1 and last.count('"') % 2
                    and any(c.lstrip().startswith('"') for c in last.split(delim))):
                # on the last line, a double quote never closed: the row had been read as one cell, its
                # photo "not found" (one that runs on over the lines after it is named below)
                raise BatchError(f"manifest {p} line {lines[start][0]}: a double quote is not closed (the cell "
                                 f"runs on to the end of the file)")
            numbered.append((lines[start][0], row))
            start = reader.line_num
    except csv.Error as e:  # e.g. a cell over the csv module's size limit
        what = (f"a cell is over {csv.field_size_limit():,} characters (a manifest cell holds a few words: is a "
                f"double quote not closed?)" if "field limit" in str(e) else str(e))
        raise BatchError(f"manifest {p} line {lines[min(start, len(lines) - 1)][0]}: {what}") from None
    rows = [r for _, r in numbered]
    cols = [_norm_col(c) for c in rows[0]]
    unknown = [c for c in cols if c and c not in MANIFEST_COLUMNS]
    if unknown:
        # (a few named, and how many: a breaker's header of 10 000 unknown columns had been one line of 89 KB)
        named = ", ".join(map(repr, (c[:40] for c in unknown[:5]))) + (f" and {len(unknown) - 5} more" if len(unknown) > 5
                                                                      else "")
        raise BatchError(f"manifest {p}: unknown column(s) {named} "
                        f"(columns: {', '.join(MANIFEST_COLUMNS)}; see docs/batch.md)")
    if "photo" not in cols:
        raise BatchError(f"manifest {p}: no 'photo' column in the header {header!r}")
    dup = {c for c in cols if c and cols.count(c) > 1}
    if dup:
        raise BatchError(f"manifest {p}: column(s) {', '.join(sorted(dup))} given twice")
    if commented is not None and len(cols) >= 2 and "photo" in cols:
        at = cols.index("photo")
        for i, ln in comments:
            try:
                cells = next(csv.reader([ln.lstrip()], delimiter=delim))
            except (csv.Error, StopIteration):
                continue
            # (a row's cells: as many as the header names, the photo cell a photo's name — not a comment of prose
            # with commas, a reviewer's "# played Tuesday, table 2, after dinner")
            photo = cells[at].strip().lstrip("#").strip() if len(cells) == len(cols) else ""
            if Path(photo).suffix.lower() in PHOTO_EXTS:
                commented.append((i, cells[0].strip()))
    out: list[tuple[int, dict[str, str]]] = []
    seen: dict[str, int] = {}
    for lineno, row in numbered[1:]:
        cells = {c: v.strip() for c, v in zip(cols, row) if c and v.strip()}
        nameless = [k for k, (c, v) in enumerate(zip(cols, row)) if not c and v.strip()]
        if nameless:  # (a tester's column with an empty header had its cells dropped, unsaid)
            k = nameless[0]
            raise BatchError(f"manifest {p} line {lineno}: column {k + 1} has no name in the header, yet this row "
                             f"gives it {row[k].strip()[:40]!r}: name the column (columns: "
                             f"{', '.join(MANIFEST_COLUMNS)}) or empty it")
        if len(row) > len(cols) and any(c.strip() for c in row[len(cols):]):
            # most likely an unquoted separator inside a cell: this photo is an error row
            cells[ROW_ERROR] = (f"{len(row)} cells for {len(cols)} columns (a cell containing "
                                f"{'a comma' if delim == ',' else repr(delim)} must be in double quotes)")
        if not any(c.strip() for c in row):  # a row of empty cells (a spreadsheet's ";;;" lines)
            continue
        photo = cells.get("photo")
        if not photo:
            raise BatchError(f"manifest {p} line {lineno}: the 'photo' cell is empty")
        spans = [c for c, v in zip(cols, row) if c and ("\n" in v or "\r" in v)]
        if spans:  # a double quote not closed: the cell ran on over the lines after (no cell takes two lines)
            # (or a line break inside a quoted cell, a spreadsheet's Alt+Enter: a tester's closed quote had been
            # said to be not closed)
            v = dict(zip(cols, row))[spans[0]]
            rest = v.replace("\r\n", "\n").replace("\r", "\n").split("\n")[1:]
            broken = len(rest) <= 2 and not any(delim in ln for ln in rest)  # (no row swallowed after it)
            raise BatchError(f"manifest {p} line {lineno}: the {spans[0]!r} cell "
                             + ("holds a line break (Alt+Enter in a spreadsheet): a cell is one line"
                                if broken else "runs on over the next line(s): a double quote is not closed"))
        key = Path(photo).as_posix()
        if key in seen:
            raise BatchError(f"manifest {p} line {lineno}: photo {photo!r} is already listed on line {seen[key]}")
        seen[key] = lineno
        cells["photo"] = key
        out.append((lineno, cells))
    return out


#: where a settle cell's next item begins: separators (spaces, ``,``, ``;``, ``|``) before ``NAME=``; others are
#: the value's (hk-tw-16 ``cash=E:5,S:3``, a player labelled ``Ann Lee``)
_SETTLE_NEXT = re.compile(r"[\s,;|]+(?=[\w-]+\s*=)")


def settle_cell_items(cell: str) -> list[str]:
    """The ``NAME=VALUE`` items of a manifest ``settle`` cell, separated as the ``options`` cell's are (spaces,
    ``;``, ``|``, ``,``) where the next ``NAME=`` follows; the separators before are the value's (hk-tw-16's
    ``cash=E:5,S:3``, 004:42-43, a player labelled ``Ann Lee``), those at its ends are not. A breaker's
    ``discarder=Bob, liable=Cas`` had been read ``discarder=Bob,`` (not one of the players), and a player labelled
    ``Ann Lee`` could not be named (``'Lee' must be NAME=VALUE``). Text before the first ``NAME=`` is an item of
    its own (refused: not ``NAME=VALUE``)."""
    out: list[str] = []
    for part in _SETTLE_NEXT.split(cell.strip()):
        part = part.strip(" \t,;|")
        if part:
            out.append(part)
    return out


def _settle_cell(cell: str, ruleset: str) -> tuple[dict[str, str], list[str]]:
    """A row's ``settle`` cell: (its options {name as the scheme spells it: value}, what is wrong with it, one
    phrase each). An item that is not NAME=VALUE, one option given twice with values that differ
    (:func:`scoring.settle.same_settle_value`), a key the row's ruleset's scheme does not take (its module's
    ``SETTLE_OPTIONS``; a scheme without them takes none), and the table facts that have their own cells are
    refused: ``win_by`` (the winner's ``win_by`` cell), ``dealer_streak`` (the dealer's ``dealer_streak`` cell)
    and a ruleset option (the ``options`` cell: the hands are scored with it too). A ruleset that cannot be
    loaded is its own cell's problem: the items are then read for their form only."""
    from scoring import load_ruleset
    from scoring.engine import keyed_options, option_key
    from scoring.settle import keyed_settle_options

    problems: list[str] = []
    pairs = []
    for item in settle_cell_items(cell):
        k, eq, v = item.partition("=")
        if not eq or not k.strip():
            problems.append(f"settle cell: {item!r} must be NAME=VALUE")
        else:
            pairs.append((k.strip(), v.strip()))
    try:
        rs = load_ruleset(ruleset)
    except RulesetError:
        rs = None
    try:
        out = (keyed_settle_options(rs.id, pairs, "settle cell option") if rs is not None
               else keyed_options(pairs, "settle cell option"))
    except RulesetError as e:
        return {}, problems + [str(e)]
    if rs is not None:
        known = getattr(rs.module, "SETTLE_OPTIONS", ())
        for key, value in out.items():
            if key == "win_by":
                problems.append(f"settle cell: win_by={value}: the win source is the winner's row's win_by cell")
            elif key == "dealer_streak":
                problems.append(f"settle cell: dealer_streak={value}: the dealer streak is the dealer's row's "
                                f"dealer_streak cell (it scores the dealer's hand too)")
            elif key in rs.options:
                problems.append(f"settle cell: {key}={value} is a ruleset option of {rs.id}: put it in the options "
                                f"cell (the hands are scored with it and the settlement reads it)")
            elif key not in known:
                own = [k for k in known if k not in rs.options and k not in ("win_by", "dealer_streak")]
                takes = f"settlement options: {', '.join(own)}" if own else "it takes none"
                problems.append(f"settle cell: the settlement of {rs.id} takes no option {key} ({takes})")
    return {option_key(k): v for k, v in out.items()}, problems


def _yes_no(v: str, what: str) -> bool:
    x = v.strip().lower()
    if x in _YES:
        return True
    if x in _NO:
        return False
    raise ValueError(f"{what} {v!r} must be yes or no")


def _wind(v: str, what: str) -> str:
    w = wind_letter(v)
    if w is None:
        raise ValueError(f"{what} {v!r} must be E, S, W or N")
    return w


def _int(v: str, what: str) -> int:
    if not is_whole_number(v):  # (int() takes 1_0 and other scripts' digits: as the flags)
        raise ValueError(f"{what} {v!r} must be a whole number")
    n = int(v)
    if n < 0:
        raise ValueError(f"{what} {v!r} must be ≥ 0")
    return n


def _ruleset_cells(cells: Mapping[str, str], ruleset: str, ctx: Mapping[str, Any],
                   opts: Mapping[str, str]) -> list[str]:
    """What is wrong with a row's ``ruleset``, ``flags``, ``options``, ``winning_tile`` and ``exposed``
    cells (scoring.load_ruleset, check_context_flags, Ruleset.resolve_options; scoring.notation
    .parse_winning_tile; vision.decode.parse_exposed), one phrase each, in column order."""
    from scoring import Context, load_ruleset
    from scoring.engine import check_context_flags
    from scoring.errors import RulesetError
    from scoring.notation import parse_winning_tile

    from .decode import parse_exposed

    out: list[str] = []
    try:
        rs = load_ruleset(ruleset)
    except RulesetError as e:
        rs = None
        out.append(f"ruleset cell: {e}" if cells.get("ruleset") else str(e))
    if cells.get("winning_tile"):
        try:
            parse_winning_tile(cells["winning_tile"])
        except HandError as e:
            out.append(f"winning_tile cell: {e}")
    if cells.get("exposed") and cells["exposed"].strip().lower() != "none":
        try:
            parse_exposed(cells["exposed"])
        except HandError as e:
            out.append("exposed cell: " + str(e).removeprefix("--exposed: "))
    if rs is not None:
        # the cell's name only when the row has that cell: a --flag/--option default the row's ruleset
        # does not have (a row ruleset=nts under --ruleset rode-draak --flag dead-hand) is the default's
        try:
            # (with the row's winner, win_by and announced wait: a win's flag on a non-winner's row, or
            # rode-draak's flower-replacement on a row not won by dead-wall, is refused before its photo is read)
            check_context_flags(rs, Context(winner=ctx.get("winner") is not False,
                                            win_by=ctx.get("win_by") or "discard",
                                            announced_wait=bool(ctx.get("announced_wait")),
                                            flags=frozenset(ctx.get("flags", ()))))
        except HandError as e:
            out.append(f"{'flags cell' if 'flags' in cells else 'the --flag default'}: {e}")
        try:
            rs.resolve_options(opts)
        except (RulesetError, ValueError) as e:
            out.append(f"{'options cell' if 'options' in cells else 'the --option default'}: {e}")
    if cells.get("winning_tile") and ctx.get("winner") is False:
        out.append("winning_tile cell: a non-winning hand has no winning tile (the winner cell, or the default, "
                   "says no)")
    return out


def _same_value(ruleset: str):
    """``same(key, a, b)`` of :func:`scoring.engine.keyed_options` for an options cell: whether two values
    of one option mean the same as ``ruleset`` reads them (:meth:`scoring.engine.Ruleset.same_value`); for
    a ruleset that cannot be loaded (its own problem, named with the row's), the same text in any case. A value
    that is none of a whole-number option's choices raises its RulesetError (``mahjong_points=x``: said so, not
    as an option given twice)."""
    from scoring import load_ruleset
    from scoring.engine import same_text

    def same(key: str, a: Any, b: Any) -> bool:
        try:
            rs = load_ruleset(ruleset)
        except RulesetError:
            return same_text(key, a, b)
        return rs.same_value(key, a, b)

    return same


def _notation_cell(notation: str, cells: Mapping[str, str], ruleset: str, ctx: Mapping[str, Any],
                   default_winning_tile: str | None) -> tuple[str | None, str | None]:
    """(the winning tile given apart from the hand typed in ``notation``, what is wrong with the notation cell
    or None). The notation is read as ``mahjong-score hand`` reads it (:func:`scoring.notation.parse_hand`, the
    tile count of the row's ruleset and winner cell) with the row's winning_tile cell; with none there and no
    ``win:`` in the notation, a winner's hand takes the ``--winning-tile`` default. A ruleset or winning_tile
    cell that cannot be used is named as its own cell's problem: the notation is then read for its tiles (any
    count) and its own winning tile."""
    from scoring import Context, load_ruleset
    from scoring.notation import parse_hand, parse_winning_tile

    winner = ctx.get("winner") is not False
    try:
        rs = load_ruleset(ruleset)
        # (as `hand`: a ruleset with its own check_hand decides the tile count when it is scored)
        sizes: tuple[int, ...] | None = rs.notation_sizes
    except RulesetError:
        sizes = None
    apart = cells.get("winning_tile")
    if apart is not None:
        try:
            parse_winning_tile(apart)
        except HandError:
            apart = None
    if not winner:  # (a winning_tile cell on a non-winner's row is refused as that cell's)
        apart = None
    context = Context(winner=winner)
    try:
        hand = parse_hand(notation, winning_tile=apart, context=context, sizes=sizes)
    except HandError as e:
        return cells.get("winning_tile"), f"notation cell: {e}"
    if hand.winning_tile is None and apart is None and winner and default_winning_tile and "winning_tile" not in cells:
        try:
            parse_hand(notation, winning_tile=default_winning_tile, context=context, sizes=sizes)
        except HandError as e:
            return None, f"notation cell, with the --winning-tile default {default_winning_tile}: {e}"
        return default_winning_tile, None
    return cells.get("winning_tile"), None


def make_job(directory: Path, key: str, line: int | None, cells: Mapping[str, str], d: Defaults,
             false_win: str = "") -> Job:
    """The :class:`Job` of one photo: manifest cells over the defaults. A cell that cannot be
    understood gives a job with ``error`` set (the photo becomes an error row). ``false_win``: the row is the
    player's whom its table hand's settlement options name as ``false_win`` (the value as typed,
    :func:`false_win_players`): its
    ``notation`` cell is read as notation only, any tile count (the 假胡 hand, 17 tiles, 004:50), and is wrong
    only when it is no hand at all."""
    from scoring.engine import keyed_options, option_key, ruleset_id

    if cells.get("ruleset"):  # (in any case: a director's NTS had been refused, "did you mean nts?")
        cells = {**cells, "ruleset": ruleset_id(cells["ruleset"])}
    path = Path(key) if Path(key).is_absolute() else directory / key
    ctx = dict(d.context)
    ctx["flags"] = tuple(ctx.get("flags", ()))
    opts = {option_key(k): v for k, v in d.options.items()}  # (named as the cells' are: any case, - or _)
    where = f"manifest line {line}: " if line else ""
    # every cell that cannot be understood is named at once (a tournament director's row with a bad
    # seat_wind and a bad winner had been sent back twice, one cell each time)
    problems: list[str] = []
    dealer = None
    win_by_cell = ""
    # (folders' links resolved on both sides, a folder given by a link; a photo that is itself a link to
    # a file elsewhere is the folder's)
    base = os.path.realpath(directory)
    at = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
    try:
        outside = os.path.commonpath([base, at]) != base
    except ValueError:  # (Windows: another drive)
        outside = True
    if outside:
        # (a tester's rows "../demo.jpg" and "/tmp/…/demo.jpg" were read from outside the folder: a
        # photo could be scored under two names, or any image on the machine pulled in)
        problems.append(f"photo cell: {key} lies outside the batch folder (photos are read from it and the "
                        f"folders in it): copy the photo in")

    def cell(fn, *args):
        try:
            return fn(*args)
        except (ValueError, HandError) as e:
            problems.append(str(e))
            return None

    for name in ("seat_wind", "round_wind"):
        if name in cells and (v := cell(_wind, cells[name], name)) is not None:
            ctx[name] = v
    bad_winner = False  # (the winner cell is given and wrong: said once, the notation not read as a winner's)
    if "winner" in cells:
        if (v := cell(_yes_no, cells["winner"], "winner")) is not None:
            ctx["winner"] = v
        else:
            bad_winner = True
    player = ""
    if "player" in cells:  # (NFC, no control or invisible character: as settle, table and /api/settle read labels)
        from scoring.settle import player_label

        player = cell(player_label, cells["player"]) or ""
    if "dealer" in cells:
        dealer = cell(_yes_no, cells["dealer"], "dealer")
        if dealer is not None:
            ctx["dealer"] = dealer
    if "win_by" in cells:
        wb = win_by_word(cells["win_by"])  # (dead_wall as dead-wall, self-drawn as wall: as --win-by reads it)
        if wb in WIN_BY:
            ctx["win_by"] = wb
        else:
            problems.append(f"win_by {cells['win_by']!r} must be one of {', '.join(WIN_BY)}")
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
    for name in ("discards", "dealer_streak"):
        if name in cells and (v := cell(_int, cells[name], name)) is not None:
            # (its range judged alone, as the other cells are: a breaker's row with a bad seat_wind, discards 200
            # and dealer_streak 100 had been told of one cell a run)
            from scoring import Context

            if cell(lambda: Context(**{name: v})) is not None:
                ctx[name] = v
    checked = None
    if "checked" in cells:  # (the total confirmed: a "yes" would stand for whatever the row scores later)
        try:
            checked = _int(cells["checked"], "checked")
        except ValueError:
            problems.append(f"checked cell {cells['checked']!r} must be the total you confirmed by hand (a whole "
                            f"number, e.g. 1216)")
    if "options" in cells:
        pairs = []
        for item in _split_words(cells["options"]):
            k, eq, v = item.partition("=")
            if not eq:  # (one with no name, "=once", keyed_options names: as -o and the web say it)
                problems.append(f"option {item!r} must be NAME=VALUE")
            else:
                pairs.append((k.strip(), v.strip()))
        # (an option twice in the cell: the last had been scored, unsaid; values that mean the same, as the
        # row's ruleset reads them, are one option, as -o and the web take them)
        try:
            # (a name in any case, - or _, as -o takes it: over the --option default of that option)
            opts.update(keyed_options(pairs, same=_same_value(cells.get("ruleset", d.ruleset))))
        except RulesetError as e:
            problems.append(str(e))
    settle: dict[str, str] = {}
    if "settle" in cells:
        settle, wrong = _settle_cell(cells["settle"], cells.get("ruleset", d.ruleset))
        problems.extend(wrong)
        if not (cells.get("table") and cells.get("hand")):  # (it would be read by no settlement, unsaid)
            problems.append("settle cell: the row is in no table hand (its table and hand cells are empty): the "
                            "settle cell gives a table hand's settlement options")
    if ctx.get("winner") is False:  # (as the command line refuses --not-winner with them)
        won = [k.replace("_", "-") for k in WON_FIELDS if ctx.get(k)]
        said = [f"{'the flags cell' if 'flags' in cells else 'the default'}'s {', '.join(won)}"] if won else []
        if "win_by" in cells and ctx.get("win_by", "discard") != "discard" and cells.get("table") and cells.get("hand"):
            # (a table hand's column filled down, the winner's win_by on every row: a reviewer's hand had not been
            # settled for the three non-winners' rows; kept apart and checked against the winner's by the settlement)
            win_by_cell = ctx.pop("win_by")
        elif "win_by" in cells and ctx.get("win_by", "discard") != "discard":
            # (the row's own win_by cell: a tester's hk-tw-16 table settled a non-winner's "wall" row as a discard
            # win, unsaid; a batch --win-by default said of every row is no contradiction, as on the command line)
            said.insert(0, f"the win_by cell's {ctx['win_by']}")
        if said:
            # (not "--not-winner": the batch's manifest words rewrite that as a cell, a tester's "the the winner cell")
            who = "the winner cell no" if "winner" in cells else "winner no (the batch command's default)"
            many = len(won) + (len(said) > bool(won)) > 1  # (the win_by cell is one more)
            problems.append(f"{who} contradicts {' and '.join(said)}: "
                            f"{'they describe' if many else 'it describes'} how the hand was won")
    if not problems:  # the cells' combination (a context of understood cells only)
        from scoring import Context

        cell(lambda: Context(**{**ctx, "flags": frozenset(ctx["flags"])}))  # the winds, win source, counts
    # the cells the ruleset judges (its name, flags and options) and the tiles named, here too: a row
    # with a bad winning_tile, exposed, options and flags cell had been read, and failed on the first
    # of them only, without its line (and the review card said to retake the photo)
    problems.extend(_ruleset_cells(cells, cells.get("ruleset", d.ruleset), ctx, opts))
    # a fix or add cell that cannot be understood is the manifest's error, named by its line and cell
    # as the others are (it had been "error: --fix '3=zz': …", a flag the manifest does not have);
    # a tile number past the photo's tiles is known only when the photo is read
    from .pipeline import parse_additions, parse_fixes

    notation = cells.get("notation")
    # the --winning-tile default is a winner's: a non-winner's row (the winner cell no, in a manifest that
    # mixes winners and non-winners) has no winning tile and reads its photo without one (its photo had
    # been an error row, "a non-winning hand has no winning tile"); a winning_tile cell on such a row is
    # refused as that cell's (_ruleset_cells)
    winning_tile = cells.get("winning_tile", d.winning_tile if ctx.get("winner") is not False else None)
    if notation is not None:
        # a hand typed (a photo that cannot be read, as `table --hand` and the web page take it): the cells
        # that correct a photo's reading have nothing to correct, and one given is a mistake to say
        given = [c for c in PHOTO_CELLS if cells.get(c)]
        if given:
            many = len(given) > 1
            problems.append(f"{' and '.join(given)} cell{'s' if many else ''}: {'they correct' if many else 'it corrects'} "
                            f"a photo's reading, and this row's hand is typed in the notation cell (its photo is not "
                            f"read; write its melds in the notation): clear {'them' if many else 'it'} or the notation "
                            f"cell")
        if bad_winner:
            # the winner cell is wrong (said above): the notation is checked as notation only, its tile count
            # being a winner's or not (a tester's winner "maybe" on a non-winner's 13 tiles was also told that
            # a winning hand needs 14, the row read as a winner's)
            from scoring.notation import parse_hand

            wrong = None
            try:
                parse_hand(notation, sizes=None)
            except HandError as e:
                wrong = f"notation cell: {e}"
        elif false_win:  # (the false mahjong is not scored: read as `table` reads it, scoring.settle.read_void_hand)
            from scoring import Context
            from scoring.notation import parse_hand

            wrong = None
            try:
                parse_hand(notation, context=Context(winner=False), sizes=None)
            except HandError as e:
                wrong = f"notation cell: {e}"
        else:
            winning_tile, wrong = _notation_cell(notation, cells, cells.get("ruleset", d.ruleset), ctx,
                                                 d.winning_tile)
        if wrong:
            problems.append(wrong)
    for name, parse, flag in (("fix", parse_fixes, "--fix"), ("add", parse_additions, "--add")):
        if cells.get(name) and notation is None:
            try:
                parse(cells[name])
            except HandError as e:
                msg = str(e)
                problems.append(f"{name} cell" + (msg[len(flag):] if msg.startswith(flag) else f": {msg}"))
    if ROW_ERROR in cells:  # the cells are shifted: what they say past the break is not the user's
        problems, dealer = [cells[ROW_ERROR]], None
    error = where + "; ".join(problems) if problems else None
    typed = tuple((c, cells[c]) for c in ("seat_wind", "winner") if c in cells) if error else ()
    return Job(key=text_name(key), path=str(path), line=line, ruleset=cells.get("ruleset", d.ruleset),
               context=tuple(sorted(ctx.items())), options=tuple(sorted(opts.items())),
               # (a typed hand takes no --exposed/--fix default: they correct photos)
               winning_tile=winning_tile, exposed=cells.get("exposed", None if notation else d.exposed),
               fix=cells.get("fix", None if notation else d.fix), add=cells.get("add") or None, notation=notation, table=cells.get("table", ""), hand=cells.get("hand", ""),
               player=player, dealer=dealer, error=error, typed=typed,
               error_count=len(problems), settle=tuple(sorted(settle.items())), false_win=false_win,
               won_said="winner" in cells and ctx.get("winner") is True, win_by_cell=win_by_cell,
               cells=tuple(sorted(k for k in cells if k != ROW_ERROR)), checked=checked)

#: annotated images written by ``audit`` (``NAME.RULESET.audit.jpg``, ``NAME.RULESET.audit-2.jpg``; ``NAME.audit.jpg`` of
#: older versions): not photos to score
_OUR_OUTPUT = re.compile(r"\.audit(-\d+)?\.jpg$", re.IGNORECASE)


def find_photos(directory: Path) -> list[str]:
    """Photo files under ``directory`` (recursive; hidden files and folders, and the annotated
    ``*.audit.jpg`` images of ``audit``, skipped), as sorted POSIX paths relative to it: those named
    with an extension of :data:`PHOTO_EXTS`, and any other whose first bytes are a photo format's
    (:func:`vision.io.sniff`: a Windows ``IMG.jfif``, a ``.gif``, a file without an extension were left
    out of a tester's batch without a word); camera RAW files (:data:`RAW_EXTS`) are not photos here."""
    from .io import sniff

    out = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in files:
            if f.startswith(".") or _OUR_OUTPUT.search(f) or Path(f).suffix.lower() in RAW_EXTS:
                continue
            if Path(f).suffix.lower() in PHOTO_EXTS or _starts_like_a_photo(Path(root) / f, sniff):
                out.append((Path(root) / f).relative_to(directory).as_posix())
    return sorted(out)


def raw_files(directory: Path) -> list[str]:
    """The camera RAW files under ``directory`` (:data:`RAW_EXTS`; hidden ones skipped, as
    :func:`find_photos` skips them), as sorted POSIX paths relative to it: the batch leaves them out
    and says how many."""
    out = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        out.extend((Path(root) / f).relative_to(directory).as_posix() for f in files
                   if not f.startswith(".") and Path(f).suffix.lower() in RAW_EXTS)
    return sorted(out)


def linked_folders(directory: Path) -> list[str]:
    """The folders under ``directory`` that are links to folders (hidden ones skipped, as :func:`find_photos`
    skips them), as sorted POSIX paths relative to it: not followed (their photos lie elsewhere, as a photo cell
    outside the folder is refused, and a link may loop), and said by the batch (a tester's linked folder had
    been left out without a word)."""
    out = []
    for root, dirs, _ in os.walk(directory):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        out.extend((Path(root) / x).relative_to(directory).as_posix() for x in dirs if (Path(root) / x).is_symlink())
    return sorted(out)


def raw_words(raw: Sequence[str], after_count: str = "") -> str:
    """``"2 camera RAW files (IMG_1.DNG, IMG_2.DNG): score the JPEGs …"``: the RAW files ``raw`` of
    :func:`raw_files` as the batch says it left them out (``after_count`` follows the count)."""
    return (f"{len(raw)} camera RAW file{'s' if len(raw) != 1 else ''}{after_count} ({', '.join(raw[:3])}"
            f"{' …' if len(raw) > 3 else ''}): score the JPEGs the camera wrote beside them, or convert them")


def commented_words(commented: Sequence[tuple[int, str]]) -> str:
    """``"manifest lines 2-5 begin with '#' and were skipped as a comment, though each holds a row's cells ('#1', …):
    to score such a row, write its first cell in double quotes ("#1") where '#' begins a label, or take the '#' away
    where the row was commented out"``: the lines :func:`read_manifest` gives in ``commented``, as the batch says
    them."""
    from .decode import number_spans

    nums = [n for n, _ in commented]
    firsts = list(dict.fromkeys(c for _, c in commented))
    shown = ", ".join(repr(c[:20]) for c in firsts[:3]) + (", …" if len(firsts) > 3 else "")
    first = firsts[0][:20] if firsts else "#"
    return (f"manifest line{'s' if len(nums) > 1 else ''} {number_spans(nums)} begin{'' if len(nums) > 1 else 's'} "
            f"with '#' and {'were' if len(nums) > 1 else 'was'} skipped as a comment, though "
            f"{'each holds' if len(nums) > 1 else 'it holds'} a row's cells ({shown}): to score "
            f"{'such a row' if len(nums) > 1 else 'it'}, write its first cell in double quotes (\"{first}\") where "
            f"'#' begins a label, or take the '#' away where the row was commented out")


def _starts_like_a_photo(path: Path, sniff) -> bool:
    """The regular file ``path`` begins as a photo format does (unreadable: no)."""
    try:
        if not path.is_file():
            return False
        with path.open("rb") as fh:
            return sniff(fh.read(18)) is not None
    except OSError:
        return False


def _in_folder(directory: Path, cell: str) -> str:
    """A manifest's photo cell as a path in ``directory`` (``./a.jpg``, ``sub/../a.jpg``, ``t1\\a.jpg`` and an absolute
    path inside it alike: ``a.jpg``, ``t1/a.jpg``), normalised; the cell as it is where it cannot be so said (another
    drive on Windows)."""
    try:
        return os.path.normpath(os.path.relpath(os.path.join(directory, cell.replace("\\", "/")), directory))
    except ValueError:
        return cell


def _name_key(name: str) -> str:
    """A photo's name as :func:`build_jobs` matches a manifest's to a file's: composed (Unicode NFC) and in lower
    case."""
    return unicodedata.normalize("NFC", name).lower()


def build_jobs(directory: Path, manifest: str | os.PathLike | None, defaults: Defaults,
               only_manifest: bool = False, commented: list[tuple[int, str]] | None = None) -> list[Job]:
    """Jobs in output order: the manifest's rows in order, then the folder's other photos sorted. ``commented``: as
    :func:`read_manifest` takes it."""
    directory = directory.resolve()
    jobs = []
    listed = set()
    rows: list[tuple[str, Mapping[str, str]]] = []  # (photo, its cells)
    if manifest is not None:
        seen: dict[str, int] = {}
        by_case: dict[str, list[str]] | None = None  # (the folder's photos by their lower-case names, when needed)
        entries = list(read_manifest(manifest, commented))
        # (every photo a row names as typed, ./a.jpg or sub/../a.jpg as a.jpg; an absolute one inside the folder too)
        named = {_in_folder(directory, c["photo"]) for _, c in entries if c.get("photo")}
        for line, cells in entries:
            key = cells["photo"]
            if "\\" in key and os.sep != "\\" and not os.path.exists(os.path.join(directory, key)) \
                    and os.path.exists(os.path.join(directory, key.replace("\\", "/"))):
                # (a manifest written on Windows, t1\h1.jpg: a tester's row was "no such file", and the photo then
                # scored a second time as a folder photo with the defaults, its table hand not settled)
                key = key.replace("\\", "/")
                cells = {**cells, "photo": key}
            typed = bool((cells.get("notation") or "").strip())
            if not os.path.isabs(key) and not os.path.lexists(os.path.join(directory, key)):
                # a name whose letters differ in case only from one photo of the folder (a manifest typed on Windows
                # or a Mac, whose file systems ignore case: a director's T1H1-ANN.jpg was "no such file", and
                # t1h1-ann.jpg then scored with the defaults) is that photo; two such photos leave it unread. So is
                # one whose accented letters are written the other Unicode way (a Mac stores José.jpg decomposed,
                # NFD, a manifest types it composed, NFC: a tester's row was "no such file" and the photo scored
                # again with the defaults)
                if by_case is None:
                    by_case = {}
                    for k in find_photos(directory):
                        by_case.setdefault(_name_key(k), []).append(k)
                alike = by_case.get(_name_key(key.replace("\\", "/")), [])
                # (a typed row's too, its photo not read but shown on its card and its name the photo's when its
                # notation cell is emptied later: a director's t1/Dee.JPG typed beside t1/dee.jpg had its card say "no
                # such file" and, read from its photo the next day, was said gone from the folder — unless another
                # row names that photo as it is, a typed hand of its own: a reviewer's ANN.JPG and ann.jpg)
                if len(alike) == 1 and not (typed and os.path.normpath(alike[0]) in named):
                    key = alike[0]
                    cells = {**cells, "photo": key}
            rows.append((key, cells))
            where = os.path.realpath(os.path.join(directory, key))  # (an absolute key stays itself)
            if where in seen:  # the same file by another name ("a.jpg", "sub/../a.jpg", "/…/DIR/a.jpg")
                raise BatchError(f"manifest {Path(manifest)} line {line}: photo {key!r} is the photo of line "
                                 f"{seen[where]} by another name")
            seen[where] = line
            jobs.append(make_job(directory, key, line, cells, defaults))
            try:
                listed.add(Path(os.path.relpath(where, directory)).as_posix())  # (directory: resolved above)
            except ValueError:  # (Windows: another drive; the row is an error row, make_job)
                pass
            listed.add(key)
    if not only_manifest:
        # (a row typed in the notation cell keeps its name as typed, its photo not read; a folder photo it names in
        # another case or Unicode form is its photo all the same, not one with no row scored again: a breaker's
        # `A.JPG,<notation>` beside a.jpg gave two ok rows, the hand counted twice)
        # (only the one folder photo of that name: of two alike but for case, neither is taken for it, as a row read
        # from its photo takes neither — a reviewer's a.jpg typed beside a.jpg and A.jpg had left A.jpg unscored)
        typed = {_name_key(k.replace("\\", "/")) for k, c in rows if (c.get("notation") or "").strip()}
        found = find_photos(directory)
        alike = Counter(_name_key(k) for k in found)
        for key in found:
            if key not in listed and not (_name_key(key) in typed and alike[_name_key(key)] == 1):
                jobs.append(make_job(directory, key, None, {}, defaults))
    # the false_win player's row (假胡, 004:50), known from its table hand's rows: made again so (its 17 tiles had
    # been an error row, "a non-winning hand needs 16 tiles", and its table hand not settled)
    marked, doubts = false_win_players(jobs, defaults.settle_options)
    cells_of = dict(rows)
    jobs = _dealer_told(jobs)
    out = []
    for j in jobs:
        if j.key in marked:
            j = make_job(directory, j.key, j.line, cells_of[j.key], defaults, false_win=marked[j.key])
        elif j.notation is not None and doubts.get((j.table, j.hand)):
            j = dataclasses.replace(j, false_win_doubt=doubts[(j.table, j.hand)])
        out.append(j)
    return out


def _dealer_told(jobs: list[Job]) -> list[Job]:
    """``jobs`` with the rows of a table hand whose ``dealer`` cell is blank scored as no dealer where another row of
    that hand is marked the dealer (the settlement's East): a reviewer's hk-tw-16 table, Ann's dealer cell yes and no
    seat_wind column, had Bob, the winner, scored seat East by default and so the dealer, 莊 +1, 38 for 37, while the
    settlement made Ann East. A row with its own dealer cell, or no table hand, is kept as it is."""
    told = {(j.table, j.hand) for j in jobs if j.table and j.dealer}
    out = []
    for j in jobs:
        if j.table and j.dealer is None and not j.error and (j.table, j.hand) in told:
            ctx = dict(j.context)
            ctx["dealer"] = False
            j = dataclasses.replace(j, context=tuple(ctx.items()))
        out.append(j)
    return out


def settle_values_differ(key: str, first: tuple[Any, str | None], second: tuple[Any, str | None]) -> str:
    """The words, a batch's, for one settlement option of a table hand given two values that differ: ``first`` and
    ``second`` are (value, the player or photo of the row whose settle cell gives it; None for ``batch
    --settle-option``). Read by :func:`false_win_players` and vision.batch_outputs.group_settle_options (the
    hand then is not settled)."""
    (a, who_a), (b, who_b) = first, second
    if who_a is None:
        return f"--settle-option {key}={a} and {who_b}'s settle cell {key}={b} differ: give it once"
    return (f"the rows' settle cells give {key} as {str(a)!r} ({who_a}'s row) and {str(b)!r} ({who_b}'s row): one "
            f"table hand has one value; give it once")


def false_win_players(jobs: Sequence[Job], settle_options: Mapping[str, Any] | None = None
                      ) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """The rows of the ``jobs`` whose player is the one their table hand (the rows sharing ``table`` and ``hand``)
    declared a false mahjong: the player its settlement options name as ``false_win`` (hk-tw-16's 假胡, 004:50: he
    pays $50 to each player), from its rows' ``settle`` cells and ``settle_options`` (``batch --settle-option``),
    a seat wind read as the player in that seat (:func:`scoring.settle.players_for_seats`, as the settlement
    reads it). Such a row is not scored as a hand, as `table` scores no 假胡 hand (typed or photographed).
    → (row key → the ``false_win`` value as typed; (table, hand) → why a hand that gives ``false_win`` marks no
    row, in the manifest's words: two values that differ, :func:`settle_values_differ`, or one that names no
    player of the hand). A hand whose rows do not say it surely marks none: its rows are read as any other's and
    it is not settled (vision.batch_outputs.settle_group says why). Rulesets that differ, an unknown ruleset and
    players that are not distinct mark none and are the settlement's to say; a ruleset whose scheme has no
    ``false_win`` marks none."""
    from scoring import load_ruleset
    from scoring.engine import option_key
    from scoring.settle import players_for_seats, same_settle_value

    groups: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        if job.table and job.hand:
            groups.setdefault((job.table, job.hand), []).append(job)
    given = [(v, None) for k, v in (settle_options or {}).items() if option_key(k) == "false_win"]
    out: dict[str, str] = {}
    doubts: dict[tuple[str, str], str] = {}
    for hand, members in groups.items():
        labels = [j.player or j.seat_wind for j in members]
        if len({j.ruleset for j in members}) != 1 or len(set(labels)) != len(labels):
            continue
        try:
            rs = load_ruleset(members[0].ruleset)
        except RulesetError:
            continue
        if "false_win" not in getattr(rs.module, "SETTLE_KEYS", ()):
            continue
        values = given + [(v, j.player or j.key) for j in members for k, v in j.settle if k == "false_win"]
        if not values:
            continue
        other = next((v for v in values[1:] if not same_settle_value(rs.id, "false_win", values[0][0], v[0])), None)
        if other is not None:
            doubts[hand] = settle_values_differ("false_win", values[0], other)
            continue
        seats = dict(zip(labels, (j.seat_wind for j in members)))
        try:
            said, _ = players_for_seats(rs.id, {"false_win": values[0][0]}, seats)
        except RulesetError as e:
            doubts[hand] = str(e)
            continue
        who = str(said["false_win"]).strip()
        if who not in labels:
            doubts[hand] = (f"false_win={values[0][0]} names no player of the hand: not one of the players "
                            f"{', '.join(labels)} nor the seat wind of one")
            continue
        out.update((j.key, str(values[0][0]).strip()) for lab, j in zip(labels, members) if lab == who)
    return out, doubts
