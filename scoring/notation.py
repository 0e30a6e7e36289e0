"""Hand notation: parse and format.

Grammar (whitespace separates tokens; a token's kind is told by its first character)::

    hand     := token (SPACE token)*
    token    := "[" tiles "]"      an exposed meld: pung (3 alike), kong (4 alike) or chow (run of 3)
              | "(" tiles ")"      a concealed kong shown on the table (4 alike)
              | "+" tiles          bonus tiles: flowers 1f–4f, seasons 1y–4y
              | "win:" tile        the winning tile (same as the CLI option --winning-tile)
              | tiles              concealed tiles in the hand (several such tokens are joined)
    tiles    := (DIGIT+ SUIT)+     compact form: "123m44p55z" = 1m 2m 3m 4p 4p 5z 5z
    SUIT     := m | p | s | z | f | y      characters, circles, bamboo, honours, flowers, seasons

A suit letter may be typed in upper case (``123M``, ``+2F``, ``win:5P``): it is read as the lower-case
one (:func:`fold_suit_case`). No letter of the notation means something by its case (``win:`` is read
in any case), and tiles are always printed in lower case.

Honours: ``1z``–``7z`` = East, South, West, North, White, Green, Red. The concealed tiles include
the winning tile. A winner holds 14 tiles (13-tile game) or 17 (16-tile game), counting each meld on
the table as 3 (a kong too); a non-winner holds 13 or 16.

Example: ``"123m 456p 11z [777p] (5555s) +1f3y win:1z"``.
"""
from __future__ import annotations

import re

from .errors import ECHO_CHARS, HandError, echo
from .hand import Context, Hand, Meld, make_hand
from .tiles import BONUS, compact, next_tile, sort_tiles

_TILES_RE = re.compile(r"(?:[0-9]+[mpszfy])+")
_GROUP_RE = re.compile(r"([0-9]+)([mpszfy])")
_TOKEN_RE = re.compile(r"\S+")

#: the upper-case suit letters, read as the lower-case ones (:func:`fold_suit_case`)
_SUIT_CASE = str.maketrans("MPSZFY", "mpszfy")
#: the full-width forms a CJK keyboard types (digits, letters, brackets, colon, plus, space) → ASCII, one character
#: for one so that columns still point into what was typed (a tester's １２３m had been refused)
FULL_WIDTH = str.maketrans({**{chr(0xFF01 + i): chr(0x21 + i) for i in range(94)}, "\u3000": " "})


def fold_suit_case(text: str) -> str:
    """``text`` with each upper-case suit letter (M P S Z F Y) made lower-case, nothing else changed (so
    columns still point into what was typed): a user's ``5P`` or ``2F`` is the tile 5p or 2f. The one
    place where a typed tile's case is folded: the hand notation, ``--winning-tile`` and ``--exposed``
    (:func:`parse_tiles_at`) and the photo corrections ``--fix``/``--add``
    (:func:`vision.pipeline.parse_fixes`, which also folds the face-down ``0X``)."""
    return text.translate(FULL_WIDTH).translate(_SUIT_CASE)


def is_whole_number(text: str) -> bool:
    """``text`` is a whole number in ASCII digits, a minus sign allowed, spaces around it: ``int()``
    alone also takes ``1_0`` as 10 and other scripts' digits (``٣٠``), which a user's count, score or
    claim must not be read as (the command line's whole-number options, a manifest's count cells, the
    web form's, a settlement's scores and hk-tw-16's ``dealer_streak``)."""
    return re.fullmatch(r"\s*-?[0-9]+\s*", text) is not None


def whole_number_value(raw: object) -> int | None:
    """``raw`` (an option's value as given: an int, or text) as an int when it is one: an int that is not a
    bool, or text that :func:`is_whole_number` takes (``02`` is 2); else None (a bool, a word, a fraction).
    The reading of a whole-number ruleset option (:meth:`scoring.engine.Option.parse`) and of a settlement
    count (:func:`scoring.settle.settle_whole_number`)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if not is_whole_number(str(raw)):
        return None
    try:
        return int(str(raw))
    except ValueError:  # (more than Python's 4300 digits: a reviewer's 5000-digit option value was a traceback)
        return None


WIN_PREFIX = "win:"


def _pasted_at(tok: str) -> int | None:
    """Where a whitespace-free token holds two tokens written together (``678p[222z]``,
    ``[5555s]123s``, ``11s+1f``): the index of the second one's first character, else None."""
    if tok[0] in "[(":
        if len(tok) > 1 and tok[1] in "[(":  # (a bracket doubled, [[777p]]: no tokens written together — a breaker was
            return None                      # told to write '[[777p] ]'; the meld's own check names it)
        close = tok.find("]" if tok[0] == "[" else ")")
        return close + 1 if 0 < close < len(tok) - 1 else None
    if tok[0] == "+" or tok.lower().startswith(WIN_PREFIX):
        return None
    starts = [i for i in (tok.find("["), tok.find("("), tok.find("+")) if i > 0]
    return min(starts) if starts else None


def _cut(text: str) -> str:
    """``text`` (unquoted) cut to :data:`ECHO_CHARS` characters."""
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…"


_MAX_RANK = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 4, "y": 4}


def parse_tiles(text: str, column: int = 1) -> list[str]:
    """Parse compact tiles (``"123m44p"`` → ``['1m','2m','3m','4p','4p']``).

    ``column`` is the 1-based position of ``text`` in a larger string, for error messages.
    Raises :class:`HandError` naming the bad part and its column.
    """
    return [t for t, _ in parse_tiles_at(text, column)]


def parse_winning_tile(text: str) -> str:
    """The winning tile given on its own (``--winning-tile 5p``) → ``"5p"``.

    Spaces around it are dropped (as around a hand's notation: a pasted `` 1z``). Raises
    :class:`HandError` (without a column: it would point into the hand notation) for anything but
    one playing tile.
    """
    if not text.strip():
        raise HandError("winning tile is empty: give one playing tile, e.g. 5p")
    try:
        wt = parse_tiles(text.strip())
    except HandError as e:
        raise HandError(f"winning tile {echo(text)}: {e.message}") from None
    if len(wt) != 1 or wt[0] in BONUS:
        raise HandError(f"winning tile {echo(text)} must be one playing tile, e.g. 5p")
    return wt[0]


def parse_tiles_at(text: str, column: int = 1) -> list[tuple[str, int]]:
    """Like :func:`parse_tiles`, with each tile's 1-based column (its rank digit) in the string.

    Raises :class:`HandError` naming the bad part and its column. Suit letters may be upper case
    (:func:`fold_suit_case`); the errors quote the text as typed.
    """
    if not text:
        raise HandError("empty tile group", column)
    folded = fold_suit_case(text)
    if not _TILES_RE.fullmatch(folded):
        bad = re.search(r"[^0-9mpszfy]", folded)
        if bad:
            raise HandError(
                f"unexpected character {text[bad.start()]!r} in {echo(text)}; tiles are digits followed by"
                " a suit letter m p s z f y", column + bad.start())
        lone = re.search(r"^[mpszfy]|(?<=[mpszfy])[mpszfy]", folded)
        if lone:  # (a tester's `-w 1zz` was told it "does not end in a suit letter")
            raise HandError(f"suit letter {text[lone.start()]!r} in {echo(text)} has no rank digit before it; tiles are "
                            "digits followed by a suit letter, e.g. 1z", column + lone.start())
        raise HandError(f"{echo(text)} does not end in a suit letter (m p s z f y)", column + len(text) - 1)
    tiles: list[tuple[str, int]] = []
    for g in _GROUP_RE.finditer(folded):
        digits, s = g.groups()
        for k, d in enumerate(digits):
            r = int(d)
            if not 1 <= r <= _MAX_RANK[s]:
                # (a tester's -w 10p: a digit is a tile, so "10" is a 1 and a 0)
                ten = (f"; each digit is one tile's rank, so {digits[k - 1]}{d}{s} is read as {digits[k - 1]}{s} "
                       f"then {d}{s}") if k and d == "0" else ""
                raise HandError(
                    f"there is no tile {d}{s} (ranks for {s!r} are 1–{_MAX_RANK[s]}{ten})", column + g.start() + k)
            tiles.append((f"{d}{s}", column + g.start() + k))
    return tiles


def meld_from_tiles(tiles: list[str], *, concealed: bool, column: int = 1) -> Meld:
    """The meld formed by ``tiles`` on the table: chow, pung or kong (declared).

    Raises :class:`HandError` if the tiles are not a legal meld.
    """
    st = sort_tiles(tiles)
    if any(t in BONUS for t in st):
        raise HandError("flowers and seasons cannot be part of a meld", column)
    if len(st) == 4 and len(set(st)) == 1:
        return Meld("kong", st[0], concealed=concealed, declared=True)
    if concealed:
        raise HandError(f"{_cut('(' + compact(st) + ')')} must be a concealed kong: 4 identical tiles", column)
    if len(st) == 3 and len(set(st)) == 1:
        return Meld("pung", st[0], concealed=False, declared=True)
    if len(st) == 3 and next_tile(st[0]) == st[1] and next_tile(st[0], 2) == st[2]:
        return Meld("chow", st[0], concealed=False, declared=True)
    raise HandError(
        f"{_cut('[' + compact(st) + ']')} is not a meld: a pung (3 alike), kong (4 alike) or chow (3 in a row of one suit)",
        column)


def parse_hand(
    text: str,
    *,
    winning_tile: str | None = None,
    context: Context | None = None,
    sizes: tuple[int, ...] | None = (13, 16),
) -> Hand:
    """Parse hand notation (grammar in the module docstring) into a :class:`Hand`.

    ``winning_tile`` (e.g. ``"5p"``) is the winning tile given apart from the notation: the same as a
    ``win:`` token, or instead of one (two that differ: HandError). ``sizes`` are the games
    accepted (13 and/or 16). For a winner (``context.winner``, the default) the tile count must be
    size + 1; for a non-winner, size. ``sizes=None`` leaves the count to the caller (a ruleset's
    ``check_hand``, e.g. hk-tw-16's 16-tile instant win with eight flowers). A winner without a
    winning tile is allowed (some rules then do not apply); a given winning tile must be among the
    concealed tiles.

    Raises :class:`HandError` with a one-line message naming the problem and its column.
    """
    if not isinstance(text, str):
        raise HandError("hand notation must be a string")
    text = text.translate(FULL_WIDTH)
    context = context or Context()
    concealed: list[str] = []
    melds: list[Meld] = []
    bonus: list[str] = []
    win_token: str | None = None
    win_col: int | None = None
    placed: list[tuple[str, int]] = []  # every playing tile with its column, for copy errors
    bonus_at: list[tuple[str, int]] = []
    for m in _TOKEN_RE.finditer(text):
        tok, col = m.group(), m.start() + 1
        cut = _pasted_at(tok)
        if cut is not None:
            raise HandError(f"tokens need a space between them: {echo(tok[:cut])} and {echo(tok[cut:])} are "
                            f"written together (write {echo(tok[:cut] + ' ' + tok[cut:])})", col + cut)
        if tok[:2] in ("[[", "((", "[(", "(["):
            inner = tok.strip("[]()")
            try:
                kong = len(parse_tiles(inner)) == 4
            except HandError:
                kong = False
            raise HandError(f"meld {echo(tok)} has two brackets: write one, [{inner}] for an exposed meld"
                            + (f" or ({inner}) for a concealed kong" if kong else ""), col)
        if tok[0] == "[":
            if not tok.endswith("]") or len(tok) < 3:
                raise HandError(f"exposed meld {echo(tok)} must look like [777p]", col)
            at = parse_tiles_at(tok[1:-1], col + 1)
            melds.append(meld_from_tiles([t for t, _ in at], concealed=False, column=col))
            placed.extend((t, col) for t in melds[-1].tiles)
        elif tok[0] == "(":
            if not tok.endswith(")") or len(tok) < 3:
                raise HandError(f"concealed kong {echo(tok)} must look like (5555m)", col)
            at = parse_tiles_at(tok[1:-1], col + 1)
            melds.append(meld_from_tiles([t for t, _ in at], concealed=True, column=col))
            placed.extend((t, col) for t in melds[-1].tiles)
        elif tok[0] == "+":
            for t, c in parse_tiles_at(tok[1:], col + 1):
                if t not in BONUS:
                    raise HandError(f"{t} after '+' is not a flower (1f–4f) or season (1y–4y)", c)
                bonus.append(t)
                bonus_at.append((t, c))
        elif tok.lower().startswith(WIN_PREFIX):
            at = parse_tiles_at(tok[len(WIN_PREFIX):], col + len(WIN_PREFIX))
            if len(at) != 1:
                raise HandError(f"{echo(tok)} must name exactly one winning tile, e.g. win:5p", col)
            if win_token is not None:
                raise HandError(f"the winning tile is given twice ({WIN_PREFIX}{win_token} and {tok})", col)
            if at[0][0] in BONUS:
                raise HandError(f"winning tile {at[0][0]} must be a playing tile, not a flower or season", col)
            win_token, win_col = at[0][0], col
        elif tok[0] in "])":
            raise HandError(f"unmatched {tok[0]!r}", col)
        else:
            for t, c in parse_tiles_at(tok, col):
                if t in BONUS:
                    raise HandError(f"bonus tile {t} must be written after '+', e.g. +{t}", c)
                concealed.append(t)
                placed.append((t, c))
    if winning_tile is not None:
        given = parse_winning_tile(winning_tile)
        if win_token is not None and given != win_token:
            # (a tester's "… win:1z" with the winning tile 2m given apart was scored with 2m without a word,
            # where win:1z win:2z in the notation is refused)
            raise HandError(f"the winning tile is given twice: {WIN_PREFIX}{win_token} in the hand and {given} apart "
                            f"from it; give one", win_col)
        win_token, win_col = given, None
    if not concealed and not melds:
        raise HandError("the hand has no tiles")
    _check_copies_at(placed, bonus_at)
    if win_token is not None and win_token not in concealed:
        raise HandError(
            f"winning tile {win_token} is not among the concealed tiles"
            " (the winning tile belongs to the hand row, not to a meld on the table)", win_col)
    hand = make_hand(concealed, melds, bonus, win_token, context)
    if sizes is not None:
        check_size(hand, sizes)
    if not context.winner and win_token is not None:
        raise HandError("a non-winning hand has no winning tile", win_col)
    return hand


def _check_copies_at(placed: list[tuple[str, int]], bonus_at: list[tuple[str, int]]) -> None:
    """HandError at the column of the 5th copy of a tile / the 2nd copy of a bonus tile."""
    seen: dict[str, int] = {}
    for t, c in placed:
        seen[t] = seen.get(t, 0) + 1
        if seen[t] > 4:
            n = sum(1 for x, _ in placed if x == t)
            raise HandError(f"tile {t} occurs {n} times; a set has only 4 of each tile", c)
    for k, (t, c) in enumerate(bonus_at):
        if any(x == t for x, _ in bonus_at[:k]):
            n = sum(1 for x, _ in bonus_at if x == t)
            raise HandError(f"bonus tile {t} occurs {n} times; there is only one of each", c)


def check_size(hand: Hand, sizes: tuple[int, ...] = (13, 16)) -> int:
    """Check the tile count against the games in ``sizes``; return the game size (13 or 16).

    Raises :class:`HandError` naming the count found and the counts expected.
    """
    n = hand.tile_count
    extra = 1 if hand.context.winner else 0
    for size in sizes:
        if n == size + extra:
            return size
    want = " or ".join(str(s + extra) for s in sizes)
    who = "a winning hand" if hand.context.winner else "a non-winning hand"
    raise HandError(
        f"{who} needs {want} tiles (each meld on the table counts 3, a kong too), found {n}")


def format_hand(hand: Hand, *, with_winning_tile: bool = True) -> str:
    """Notation of ``hand``; ``parse_hand(format_hand(h), context=h.context) == h``."""
    parts = []
    if hand.concealed:
        parts.append(compact(hand.concealed))
    parts.extend(m.notation() for m in hand.melds)
    if hand.bonus:
        parts.append("+" + compact(hand.bonus))
    if with_winning_tile and hand.winning_tile:
        parts.append(WIN_PREFIX + hand.winning_tile)
    return " ".join(parts)
