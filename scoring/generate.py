"""Random *winning* hands (and non-winning ones) for property tests, benchmarks and fuzzing.

Every hand returned is legal: at most 4 copies of a playing tile, at most one of each flower and
season, the right number of tiles for its game, and — for a winner — a winning tile that is one of
the concealed tiles. Shapes:

* ``standard``: n sets + a pair (n = 4 in the 13-tile game, 5 in the 16-tile game). Sets are
  chows, pungs and kongs; some are exposed on the table (``[777p]``), kongs are always declared,
  exposed or concealed (``(5555m)``); the rest, and the pair, are in the hand;
* ``seven-pairs``: seven different pairs, all concealed (``four_alike=True`` lets a pair repeat,
  i.e. four alike as two pairs — 000 line 101);
* ``thirteen-orphans``: one of each terminal and honour plus a duplicate.

To exercise composition rules (clean, pure, only honours, all simples …) each hand draws its tiles
from a randomly chosen *pool* (every tile, one suit + honours, one suit, honours, terminals +
honours, simples), falling back to every tile when a pool runs dry.

Everything is driven by a :class:`random.Random`, so a seed fixes the hands (the benchmark's fixed
set is ``sample_hands(1000, seed=0)``). No hypothesis dependency: tests draw a seed with
hypothesis and call :func:`random_winning_hand`.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Sequence

from .hand import Context, Hand, Meld, make_hand
from .tiles import (BONUS, HONOURS, PLAYING_TILES, SIMPLES, SUITS, TERMINALS_AND_HONOURS,
                    WIND_LETTERS, next_tile, sort_tiles)

#: shape name → default weight in :func:`random_winning_hand`
SHAPE_WEIGHTS: dict[str, float] = {"standard": 0.88, "seven-pairs": 0.1, "thirteen-orphans": 0.02}

_ALL = tuple(PLAYING_TILES)
_POOLS: tuple[tuple[str, float], ...] = (
    ("all", 0.55), ("one-suit-honours", 0.15), ("one-suit", 0.1), ("honours", 0.03),
    ("terminals-honours", 0.05), ("simples", 0.12),
)


def _pool(rng: random.Random, name: str) -> tuple[str, ...]:
    s = rng.choice(SUITS)
    if name == "one-suit-honours":
        return tuple(t for t in _ALL if t[1] in (s, "z"))
    if name == "one-suit":
        return tuple(t for t in _ALL if t[1] == s)
    if name == "honours":
        return tuple(sort_tiles(HONOURS))
    if name == "terminals-honours":
        return tuple(sort_tiles(TERMINALS_AND_HONOURS))
    if name == "simples":
        return tuple(sort_tiles(SIMPLES))
    return _ALL


def _weighted(rng: random.Random, items: Sequence[tuple[str, float]]) -> str:
    x = rng.random() * sum(w for _, w in items)
    for name, w in items:
        x -= w
        if x < 0:
            return name
    return items[-1][0]


def _random_context(rng: random.Random, *, has_kong: bool, kongs: int = 0) -> Context:
    how = [("discard", 0.6), ("wall", 0.32), ("robbed-kong", 0.03)]
    if has_kong:
        how.append(("dead-wall", 0.05))
    win_by = _weighted(rng, how)
    return Context(
        seat_wind=rng.choice(WIND_LETTERS), round_wind=rng.choice(WIND_LETTERS),
        win_by=win_by, last_tile=rng.random() < 0.05,
        # the draw is made as before; kong on kong needs two kongs (scoring.hand.check_context)
        kong_on_kong=win_by == "dead-wall" and rng.random() < 0.3 and kongs >= 2,
    )


def _bonus(rng: random.Random, p_bonus: float) -> tuple[str, ...]:
    if rng.random() >= p_bonus:
        return ()
    return tuple(rng.sample(sorted(BONUS), rng.randint(1, 4)))


def _standard(rng: random.Random, pool: tuple[str, ...], n_sets: int, p_exposed: float,
              p_kong: float) -> tuple[list[str], list[Meld]] | None:
    """Concealed tiles and declared melds of a standard hand drawn from ``pool``, or None."""
    counts = dict.fromkeys(_ALL, 0)
    concealed: list[str] = []
    melds: list[Meld] = []
    for _ in range(n_sets):
        r = rng.random()
        kind = "kong" if r < p_kong else ("pung" if r < p_kong + (1 - p_kong) * 0.45 else "chow")
        options: list[tuple[str, str]] = []
        for k in (kind, "pung", "chow"):
            if k == "chow":
                starts = [t for t in pool if t[1] in SUITS and int(t[0]) <= 7
                          and all(x in pool and counts[x] < 4
                                  for x in (t, next_tile(t), next_tile(t, 2)))]
                options = [("chow", t) for t in starts]
            else:
                need = 4 if k == "kong" else 3
                options = [(k, t) for t in pool if counts[t] + need <= 4]
            if options:
                break
        if not options:
            return None
        k, t = rng.choice(options)
        meld = Meld(k, t)
        for x in meld.tiles:
            counts[x] += 1
        if k == "kong":
            melds.append(Meld("kong", t, concealed=rng.random() < 0.4, declared=True))
        elif rng.random() < p_exposed:
            melds.append(Meld(k, t, concealed=False, declared=True))
        else:
            concealed.extend(meld.tiles)
    pairs = [t for t in pool if counts[t] <= 2]
    if not pairs:
        return None
    p = rng.choice(pairs)
    concealed.extend((p, p))
    return concealed, melds


def random_winning_hand(
    rng: random.Random,
    *,
    size: int = 13,
    shape: str | None = None,
    p_exposed: float = 0.2,
    p_kong: float = 0.08,
    p_bonus: float = 0.3,
    four_alike: bool = False,
    context: Context | None = None,
) -> Hand:
    """One random winning hand.

    * ``rng``: the random source (a seeded :class:`random.Random` gives reproducible hands);
    * ``size``: 13 (14-tile winning hand) or 16 (17 tiles; special shapes only exist for 13);
    * ``shape``: ``standard``, ``seven-pairs`` or ``thirteen-orphans``; None draws one with
      :data:`SHAPE_WEIGHTS` (always ``standard`` for ``size=16``);
    * ``p_exposed``: chance that a chow/pung is exposed on the table; ``p_kong``: chance that a set
      is a kong (declared, exposed or concealed);
    * ``p_bonus``: chance the hand has 1–4 flowers/seasons;
    * ``four_alike``: seven pairs may repeat a pair (four alike);
    * ``context``: the context to use (winner); None draws seat/round wind, win source (kong
      replacement only when the hand has a kong) and a rare last-tile flag.

    Returns a :class:`Hand` that :func:`scoring.notation.parse_hand` would build from its notation.
    Raises ValueError for an unknown shape or a size other than 13/16.
    """
    if size not in (13, 16):
        raise ValueError(f"size must be 13 or 16, not {size}")
    if shape is None:
        shape = "standard" if size == 16 else _weighted(rng, tuple(SHAPE_WEIGHTS.items()))
    if shape not in SHAPE_WEIGHTS:
        raise ValueError(f"unknown shape {shape!r} (known: {', '.join(SHAPE_WEIGHTS)})")
    if shape != "standard" and size != 13:
        raise ValueError(f"{shape} exists only in the 13-tile game")
    melds: list[Meld] = []
    if shape == "standard":
        for _ in range(100):
            built = _standard(rng, _pool(rng, _weighted(rng, _POOLS)), size // 3, p_exposed, p_kong)
            if built is not None:
                break
        else:  # pragma: no cover - the "all" pool always succeeds
            raise RuntimeError("could not build a standard hand")
        concealed, melds = built
    elif shape == "seven-pairs":
        pool = _pool(rng, _weighted(rng, _POOLS))
        if len(pool) < 7:
            pool = _ALL
        if four_alike:
            kinds = [rng.choice(pool) for _ in range(7)]
            while any(kinds.count(k) > 2 for k in kinds):
                kinds = [rng.choice(pool) for _ in range(7)]
        else:
            kinds = rng.sample(pool, 7)
        concealed = [t for k in kinds for t in (k, k)]
    else:
        concealed = list(TERMINALS_AND_HONOURS) + [rng.choice(sorted(TERMINALS_AND_HONOURS))]
    winning = rng.choice(concealed)
    ctx = context or _random_context(rng, has_kong=any(m.kind == "kong" for m in melds),
                                     kongs=sum(1 for m in melds if m.kind == "kong"))
    if not ctx.winner:
        ctx = replace(ctx, winner=True)
    if context is None and ctx.win_by == "robbed-kong" and \
            concealed.count(winning) + sum(m.tiles.count(winning) for m in melds) > 1:
        ctx = replace(ctx, win_by="discard")  # (the robbed tile is a pung's fourth: held once; no draw taken)
    return make_hand(concealed, melds, _bonus(rng, p_bonus), winning, ctx)


def random_non_winning_hand(rng: random.Random, **kwargs) -> Hand:
    """A non-winner's hand: a random winning hand less one concealed tile (often one short of
    a complete hand, i.e. waiting), with ``winner=False`` and no winning tile; the circumstances of
    the win (``win_by``, ``last_tile``, ``first_turn``, ``kong_on_kong``) are cleared — they describe a
    win, and kong on kong with a discard is refused by :func:`scoring.hand.check_context`.

    Takes the keyword arguments of :func:`random_winning_hand`.
    """
    h = random_winning_hand(rng, **kwargs)
    concealed = list(h.concealed)
    concealed.remove(rng.choice(concealed))
    return make_hand(concealed, h.melds, h.bonus, None, replace(h.context, winner=False, win_by="discard",
                                                                last_tile=False, first_turn=False, kong_on_kong=False))


def sample_hands(n: int, seed: int = 0, **kwargs) -> list[Hand]:
    """``n`` random winning hands from ``random.Random(seed)`` (a fixed set for a given seed).

    Takes the keyword arguments of :func:`random_winning_hand`.
    """
    rng = random.Random(seed)
    return [random_winning_hand(rng, **kwargs) for _ in range(n)]
