"""Tiles: codes, categories and counting helpers.

A tile is its notation code, a two-character ``str``: rank digit + suit letter.

* ``1m``–``9m`` characters, ``1p``–``9p`` circles (dots), ``1s``–``9s`` bamboo;
* ``1z``–``7z`` honours: East, South, West, North (winds), White, Green, Red (dragons);
* ``1f``–``4f`` flowers (plum, orchid, chrysanthemum, bamboo) and ``1y``–``4y`` seasons
  (spring, summer, autumn, winter): bonus tiles, never part of a meld;
* ``0x`` a face-down tile (only in photo readings, never in a scored hand).

Plain strings keep hands hashable, printable and fast; the categories below are frozensets so a
predicate asks ``t in TERMINALS`` instead of re-deriving the rule. Counting uses a fixed index of the
34 playing tiles (:data:`INDEX`), the usual representation of mahjong hand-splitting code (compare
PyPI ``mahjong``'s 34-array).
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

SUITS = ("m", "p", "s")
SUIT_NAMES = {"m": "characters", "p": "circles", "s": "bamboo"}

#: the 34 playing tiles in canonical order (the order of :data:`INDEX` and of sorted hands)
PLAYING_TILES: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10)) + tuple(
    f"{r}z" for r in range(1, 8)
)
FLOWERS: tuple[str, ...] = tuple(f"{r}f" for r in range(1, 5))
SEASONS: tuple[str, ...] = tuple(f"{r}y" for r in range(1, 5))
BONUS: frozenset[str] = frozenset(FLOWERS + SEASONS)
BACK = "0x"
ALL_TILES: tuple[str, ...] = PLAYING_TILES + FLOWERS + SEASONS

#: tile → index 0..33 for playing tiles, 34..41 for bonus tiles
INDEX: dict[str, int] = {t: i for i, t in enumerate(ALL_TILES)}

WINDS: frozenset[str] = frozenset({"1z", "2z", "3z", "4z"})
DRAGONS: frozenset[str] = frozenset({"5z", "6z", "7z"})
HONOURS: frozenset[str] = WINDS | DRAGONS
TERMINALS: frozenset[str] = frozenset(f"{r}{s}" for s in SUITS for r in (1, 9))
SIMPLES: frozenset[str] = frozenset(f"{r}{s}" for s in SUITS for r in range(2, 9))
SUIT_TILES: frozenset[str] = TERMINALS | SIMPLES
TERMINALS_AND_HONOURS: frozenset[str] = TERMINALS | HONOURS
#: "groen gekleurde stenen" (002 line 38; 000 line 4): bamboo 2, 3, 4, 6, 8 and the green dragon
GREEN: frozenset[str] = frozenset({"2s", "3s", "4s", "6s", "8s", "6z"})

WIND_LETTERS = ("E", "S", "W", "N")
#: seat/round wind letter → its wind tile
WIND_TILE: dict[str, str] = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}
#: a wind as a user types it, its letter or its name in any case → its letter (the command line's --seat-wind and
#: --round-wind, a batch manifest's seat_wind and round_wind cells: :func:`wind_letter`)
_WIND_WORDS = {"e": "E", "s": "S", "w": "W", "n": "N", "east": "E", "south": "S", "west": "W", "north": "N"}


def wind_letter(text: str) -> str | None:
    """``"E"`` for ``E``, ``e``, ``East``, `` east `` (and S, W, N alike); None for anything else."""
    return _WIND_WORDS.get(str(text).strip().lower())


#: seat wind letter → the number of its own flower and season (RULINGS: East = 1 … North = 4)
WIND_NUMBER: dict[str, int] = {"E": 1, "S": 2, "W": 3, "N": 4}

TILE_NAMES: dict[str, str] = {  # (the ones singular: a new user's page read "Tile 3: 1 circles")
    **{f"{r}m": f"{r} character{'s' if r > 1 else ''}" for r in range(1, 10)},
    **{f"{r}p": f"{r} circle{'s' if r > 1 else ''}" for r in range(1, 10)},
    **{f"{r}s": f"{r} bamboo" for r in range(1, 10)},
    "1z": "East", "2z": "South", "3z": "West", "4z": "North",
    "5z": "White dragon", "6z": "Green dragon", "7z": "Red dragon",
    "1f": "Plum", "2f": "Orchid", "3f": "Chrysanthemum", "4f": "Bamboo flower",
    "1y": "Spring", "2y": "Summer", "3y": "Autumn", "4y": "Winter",
    BACK: "face-down tile",
}


def suit(tile: str) -> str:
    """Suit letter of ``tile``: ``m``/``p``/``s``, ``z`` for honours, ``f``/``y`` for bonus tiles."""
    return tile[1]


def rank(tile: str) -> int:
    """Rank digit of ``tile`` (1–9 for suit tiles, 1–7 for honours, 1–4 for bonus tiles)."""
    return ord(tile[0]) - 48


def is_tile(code: str) -> bool:
    """True when ``code`` is a playing or bonus tile code (``0x`` is not)."""
    return code in INDEX


def next_tile(tile: str, step: int = 1) -> str | None:
    """The suit tile ``step`` ranks above ``tile`` in the same suit, or None past 9 / for honours."""
    if tile[1] not in SUITS:
        return None
    r = rank(tile) + step
    return f"{r}{tile[1]}" if 1 <= r <= 9 else None


def sort_tiles(tiles: Iterable[str]) -> list[str]:
    """Tiles in canonical order (characters, circles, bamboo, honours, flowers, seasons)."""
    return sorted(tiles, key=INDEX.__getitem__)


def counts34(tiles: Iterable[str]) -> list[int]:
    """Count playing tiles into a list of 34 ints (index :data:`INDEX`); bonus tiles are ignored."""
    c = [0] * 34
    for i in map(INDEX.__getitem__, tiles):
        if i < 34:
            c[i] += 1
    return c


def compact(tiles: Iterable[str]) -> str:
    """Compact notation of sorted tiles: ``['1m','2m','5p']`` → ``'12m5p'``."""
    return compact_in_order(sort_tiles(tiles))


def compact_in_order(tiles: Iterable[str]) -> str:
    """Compact notation of two-character codes in the order given, without sorting or checking
    them: consecutive codes of one suit letter share it (``['1m','2m','5p']`` → ``'12m5p'``,
    ``['5p','1m']`` → ``'5p1m'``)."""
    out: list[str] = []
    run_suit = ""
    digits = ""
    for t in tiles:
        if t[1] != run_suit and digits:
            out.append(digits + run_suit)
            digits = ""
        run_suit = t[1]
        digits += t[0]
    if digits:
        out.append(digits + run_suit)
    return "".join(out)


def tile_counter(tiles: Iterable[str]) -> Counter[str]:
    """A :class:`collections.Counter` of tiles."""
    return Counter(tiles)
