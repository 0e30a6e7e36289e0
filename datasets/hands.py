"""A small, self-contained generator of *finished* mahjong hands and their notation.

Deliberately independent of ``scoring/``: it only has to produce plausible complete hands with
legal tile counts (≤ 4 copies of a tile, ≤ 1 of each bonus tile), not score them.

Notation (same grammar as the scorer's): whitespace-separated tokens; concealed tiles in compact
form ``123m44p55z`` (the winning tile included), exposed melds ``[777p]`` ``[1111s]`` ``[345m]``,
concealed kongs ``(5555m)``, bonus tiles ``+1f3y``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SUITS = "mps"
STANDARD = [f"{r}{s}" for s in SUITS for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
BONUS = [f"{r}f" for r in range(1, 5)] + [f"{r}y" for r in range(1, 5)]
TERMINALS_HONOURS = [f"{r}{s}" for s in SUITS for r in (1, 9)] + [f"{r}z" for r in range(1, 8)]
_SUIT_ORDER = {"m": 0, "p": 1, "s": 2, "z": 3, "f": 4, "y": 5}


def tile_sort_key(t: str) -> tuple[int, int]:
    """Sort key: suit order m, p, s, z, f, y then rank."""
    return (_SUIT_ORDER[t[1]], int(t[0]))


def compact(tiles: list[str]) -> str:
    """``['1m','2m','4p']`` → ``'12m4p'`` (tiles sorted first)."""
    out, cur, digits = [], None, ""
    for t in sorted(tiles, key=tile_sort_key):
        if t[1] != cur and cur is not None:
            out.append(digits + cur)
            digits = ""
        cur = t[1]
        digits += t[0]
    if cur is not None:
        out.append(digits + cur)
    return "".join(out)


@dataclass
class Meld:
    """A set shown on the table (exposed) or a concealed kong.

    kind: ``chow`` | ``pung`` | ``kong``; tiles in display order.
    """

    kind: str
    tiles: list[str]
    exposed: bool = True

    @property
    def concealed_kong(self) -> bool:
        return self.kind == "kong" and not self.exposed

    def notation(self) -> str:
        body = compact(self.tiles) if self.kind != "chow" else compact(self.tiles)
        return f"({body})" if self.concealed_kong else f"[{body}]"


@dataclass
class Hand:
    """A finished hand.

    concealed: tiles held in the hand, *including* the winning tile (unless it completed an exposed
    meld, which never happens here); melds: exposed melds and concealed kongs; bonus: flowers/seasons;
    size: 13 or 16 (the game's hand size); shape: ``standard`` | ``seven_pairs`` | ``thirteen_orphans``.
    concealed_groups: how the concealed tiles split into sets/pair (for display order), may be empty.
    """

    concealed: list[str]
    melds: list[Meld] = field(default_factory=list)
    bonus: list[str] = field(default_factory=list)
    winning: str | None = None
    size: int = 13
    shape: str = "standard"
    concealed_groups: list[list[str]] = field(default_factory=list)

    def notation(self) -> str:
        toks = []
        if self.concealed:
            toks.append(compact(self.concealed))
        toks += [m.notation() for m in self.melds]
        if self.bonus:
            toks.append("+" + compact(self.bonus))
        return " ".join(toks)

    def all_tiles(self) -> list[str]:
        """Every standard tile of the hand (concealed + melds), bonus excluded."""
        out = list(self.concealed)
        for m in self.melds:
            out += m.tiles
        return out

    def tile_count_ok(self) -> bool:
        from collections import Counter

        c = Counter(self.all_tiles())
        b = Counter(self.bonus)
        return max(c.values(), default=0) <= 4 and max(b.values(), default=0) <= 1

    def n_standard_tiles(self) -> int:
        """Tiles counted for the shape: kongs count as 3 (so 14 or 17 for a complete hand)."""
        return len(self.concealed) + sum(3 for _ in self.melds)


def _draw_set(rng: np.random.Generator, counts: dict[str, int], honours_ok: bool = True) -> tuple[str, list[str]] | None:
    for _ in range(50):
        r = rng.random()
        if r < 0.55:
            s = SUITS[rng.integers(3)]
            start = int(rng.integers(1, 8))
            tiles = [f"{start + k}{s}" for k in range(3)]
            if all(counts[t] < 4 for t in tiles):
                return "chow", tiles
        else:
            kind = "kong" if r > 0.9 else "pung"
            n = 4 if kind == "kong" else 3
            pool = STANDARD if honours_ok else STANDARD[:27]
            t = pool[rng.integers(len(pool))]
            if counts[t] + n <= 4:
                return kind, [t] * n
    return None


def random_hand(rng: np.random.Generator, size: int | None = None, allow_bonus: bool = True) -> Hand:
    """A random finished hand.

    size: 13 (→ 14 tiles + kongs) or 16 (→ 17 tiles + kongs); None picks 13 (75 %) or 16.
    Shapes: standard sets + pair (some sets exposed, kongs exposed or concealed), seven pairs
    (~9 %, 13-tile only), thirteen orphans (~3 %, 13-tile only). 0–8 bonus tiles when allowed.
    """
    if size is None:
        size = 13 if rng.random() < 0.75 else 16
    counts = {t: 0 for t in STANDARD}
    r = rng.random()
    hand: Hand
    if size == 13 and r < 0.03:
        tiles = list(TERMINALS_HONOURS)
        extra = TERMINALS_HONOURS[rng.integers(13)]
        tiles.append(extra)
        win = tiles[rng.integers(14)]
        hand = Hand(concealed=tiles, winning=win, size=13, shape="thirteen_orphans",
                    concealed_groups=[sorted(tiles, key=tile_sort_key)])
    elif size == 13 and r < 0.12:
        pairs = list(rng.choice(len(STANDARD), 7, replace=False))
        groups = [[STANDARD[p]] * 2 for p in pairs]
        tiles = [t for g in groups for t in g]
        hand = Hand(concealed=tiles, winning=tiles[rng.integers(14)], size=13, shape="seven_pairs",
                    concealed_groups=groups)
    else:
        n_sets = 4 if size == 13 else 5
        sets: list[tuple[str, list[str]]] = []
        while len(sets) < n_sets:
            s = _draw_set(rng, counts)
            if s is None:  # pragma: no cover - practically unreachable
                counts = {t: 0 for t in STANDARD}
                sets = []
                continue
            sets.append(s)
            for t in s[1]:
                counts[t] += 1
        pair_pool = [t for t in STANDARD if counts[t] <= 2]
        pt = pair_pool[rng.integers(len(pair_pool))]
        # how many sets are shown on the table
        n_exp = int(rng.choice(np.arange(n_sets + 1), p=_exp_probs(n_sets)))
        order = list(rng.permutation(n_sets))
        melds, concealed_groups = [], []
        for k, idx in enumerate(order):
            kind, tiles = sets[idx]
            if kind == "kong":
                melds.append(Meld("kong", tiles, exposed=bool(rng.random() < 0.55)))
            elif k < n_exp:
                melds.append(Meld(kind, tiles, exposed=True))
            else:
                concealed_groups.append(tiles)
        concealed_groups.append([pt, pt])
        concealed = [t for g in concealed_groups for t in g]
        win = concealed[rng.integers(len(concealed))]
        hand = Hand(concealed=concealed, melds=melds, winning=win, size=size, shape="standard",
                    concealed_groups=concealed_groups)
    if allow_bonus:
        nb = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8],
                            p=[0.35, 0.2, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.02]))
        if nb:
            hand.bonus = sorted((BONUS[i] for i in rng.choice(8, nb, replace=False)), key=tile_sort_key)
    return hand


def _exp_probs(n: int) -> np.ndarray:
    w = np.array([0.32, 0.26, 0.2, 0.12, 0.07, 0.03][: n + 1], dtype=float)
    return w / w.sum()


def full_set() -> list[str]:
    """A whole 144-tile set: 4 × 34 standard tiles + 8 bonus tiles."""
    return [t for t in STANDARD for _ in range(4)] + list(BONUS)
