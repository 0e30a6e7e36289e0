"""Predicates and hooks of the NTS ruleset (seed 002_b9f4c4575200caaf.txt; rules in nts.toml).

Each predicate is a small pure function of a :class:`scoring.engine.View` named after its rule.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Mapping

from ..engine import best_completion, default_combine, special_or_count
from ..fired import Fired
from ..hand import Hand
from ..predicates import category, pungs_count, win_by
from ..tiles import DRAGONS, HONOURS, SUITS, TERMINALS, WINDS

if TYPE_CHECKING:
    from ..engine import View

NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)
#: the least a winner's hand scores, and why (scoring.settle.check_winner_scores refuses a score below it): the
#: 20 for Mahjong is in every win (002:13, rule ``mahjong``), the fixed-value hands are worth 250 or more,
#: and no rule takes points away
WINNER_SCORES_AT_LEAST = (20, "the 20 for Mahjong (002_b9f4c4575200caaf.txt:13)")


def _suit_counts(counter: Counter, s: str) -> list[int]:
    return [counter.get(f"{r}{s}", 0) for r in range(1, 10)]


def _only_suit(tiles: Counter) -> str | None:
    """The single suit of a tile collection without honours, else None."""
    suits = {t[1] for t in tiles}
    return next(iter(suits)) if len(suits) == 1 and "z" not in suits else None


def nine_gates(v: "View") -> bool:
    """1112345678999 of one suit + one more of that suit, all concealed (002 line 22)."""
    if v.hand.melds or len(v.suits) != 1 or v.has_honours or len(v.tile_set) != 9:
        return False  # (every rank 1–9 of the suit is held)
    c = Counter(v.hand.concealed)
    s = _only_suit(c)
    if s is None:
        return False
    diff = [a - b for a, b in zip(_suit_counts(c, s), NINE_GATES)]
    return min(diff) >= 0 and sum(diff) == 1


def winding_snake(v: "View") -> bool:
    """111 + 2345678 + 999 of one suit plus a second 2, 5 or 8 (002 line 43); may be exposed."""
    if len(v.tile_set) != 9 or len(v.suits) != 1 or v.has_honours or len(v.tiles) != 14:
        return False  # (every rank 1–9 of the suit is held)
    c = Counter(v.tiles)
    s = _only_suit(c)
    if s is None:
        return False
    diff = [a - b for a, b in zip(_suit_counts(c, s), NINE_GATES)]
    return min(diff) >= 0 and sum(diff) == 1 and diff.index(1) + 1 in (2, 5, 8)


def _closed_counter(v: "View", honours: frozenset[str] = frozenset()) -> Counter | None:
    """Counts of a 14-tile hand with nothing on the table that holds every tile of ``honours``
    (a cheap test first: most hands fail it), else None."""
    if v.hand.melds or len(v.hand.concealed) != 14 or not honours <= v.tile_set:
        return None
    return Counter(v.hand.concealed)


def wind_snake(v: "View") -> bool:
    """1–9 of one suit + one of each wind, one of these 13 doubled (002 line 24)."""
    c = _closed_counter(v, WINDS)
    if c is None:
        return False
    suits = {t[1] for t in c} - {"z"}
    if len(suits) != 1 or set(c) - WINDS - {f"{r}{next(iter(suits))}" for r in range(1, 10)}:
        return False
    s = next(iter(suits))
    need = Counter({f"{r}{s}": 1 for r in range(1, 10)}) + Counter({w: 1 for w in WINDS})
    extra = c - need
    return not (need - c) and sum(extra.values()) == 1


def dragon_snake(v: "View") -> bool:
    """1–9 of one suit + one of each dragon + a pair of winds (002 line 25)."""
    c = _closed_counter(v, DRAGONS)
    if c is None:
        return False
    suits = {t[1] for t in c} - {"z"}
    if len(suits) != 1:
        return False
    s = next(iter(suits))
    need = Counter({f"{r}{s}": 1 for r in range(1, 10)}) + Counter({d: 1 for d in DRAGONS})
    rest = c - need
    return not (need - c) and len(rest) == 1 and next(iter(rest)) in WINDS and sum(rest.values()) == 2


def court_of_peking(v: "View") -> bool:
    """1–7 of one suit + one of each wind + one of each dragon (002 line 26)."""
    c = _closed_counter(v, HONOURS)
    if c is None:
        return False
    for s in SUITS:
        need = Counter({f"{r}{s}": 1 for r in range(1, 8)}) + Counter({h: 1 for h in HONOURS})
        if c == need:
            return True
    return False


def twins(v: "View", kind: str) -> bool:
    """Seven pairs (002 lines 27–31) of ``kind``: honours, pure, very-clean, clean or any.

    Four alike may count as two pairs only with option ``twins_four_alike=yes`` (002-08).
    Clean and very clean need at least one honour pair ("plus winds and/or dragons").
    """
    if v.opts["twins_four_alike"] == "no" and len({m.tile for m in v.pairs}) != len(v.pairs):
        return False
    tiles = v.tile_set
    suits = v.suits
    honours = not tiles.isdisjoint(HONOURS)
    if kind == "honours":
        return tiles <= HONOURS
    if kind == "pure":
        return len(suits) == 1 and not honours
    if kind == "very-clean":
        return len(suits) == 1 and honours and all(t in TERMINALS or t in HONOURS for t in tiles)
    if kind == "clean":
        return len(suits) == 1 and honours
    return True


def honour_sets_hand(v: "View", tiles: str, n: int, exact: bool = False,
                     pair_tiles: str | None = None) -> bool:
    """``n`` pungs/kongs of ``tiles`` (winds or dragons), optionally a pair of ``pair_tiles``, and
    "willekeurige" (arbitrary) other sets (002 lines 37, 49, 50).

    Option ``arbitrary_set_kong`` (002-10): ``yes`` = the arbitrary chow/pung may be a kong
    (default, AMBIGUITIES 002-10); ``no`` = the sets not of ``tiles`` must be chows or pungs.
    """
    if not pungs_count(v, tiles=tiles, n=n, exact=exact, pair_tiles=pair_tiles):
        return False
    if v.opts["arbitrary_set_kong"] == "no":
        cat = category(v, tiles)
        return not any(m.kind == "kong" and m.tile not in cat for m in v.sets)
    return True


def bird(v: "View") -> Any:
    """Vogel (002 line 17, option ``bird``, 002-06): win on 1p completing a pair of 1p, beside 1s.

    ``pair-beside-bamboo-1``: the hand holds a 1 bamboo anywhere (reading b);
    ``pair-beside-bamboo-1-pung``: the hand has a pung/kong of 1 bamboo (reading c); ``off``.
    """
    mode = v.opts["bird"]
    if mode == "off" or v.hand.winning_tile != "1p" or v.d.wait != "pair":
        return False
    if mode == "pair-beside-bamboo-1":
        return "1s" in v.tile_set
    return any(m.tile == "1s" and m.kind in ("pung", "kong") for m in v.sets)


def last_wall_tile(v: "View", tile: str | None = None) -> bool:
    """Won with the last tile of the wall, drawn oneself (002 lines 51–52), optionally ``tile``."""
    if not (v.ctx.last_tile and v.ctx.win_by == "wall"):
        return False
    return tile is None or v.hand.winning_tile == tile


def loose_tile(v: "View", tile: str | None = None, kong_on_kong: bool = False) -> bool:
    """Won with the loose (replacement) tile after a kong (002 lines 54–56).

    ``tile``: the winning tile must be this one (Plum Blossom: 5p); ``kong_on_kong``: after two
    kongs in one turn (``Context.kong_on_kong``).
    """
    if not win_by(v, "dead-wall", after_kong=True):  # (a dead-wall tile drawn for a flower is no kong's)
        return False
    if "flower-replacement" in v.ctx.flags:
        # (rode-draak, which takes these rows from NTS, says so of a hand with a kong too, 001:9: a seed auditor's
        # 5p drawn for a flower was scored De pruimenbloesem van het dak plukken, +3 dbl)
        return False
    if kong_on_kong and not v.ctx.kong_on_kong:
        return False
    return tile is None or v.hand.winning_tile == tile


CLOSED_HANDS = ("nine-gates", "thirteen-orphans", "wind-snake", "dragon-snake", "court-of-peking",
                "twins-of-trump-tiles", "pure-twins", "very-clean-twins", "clean-twins", "seven-twins")
#: closed hands that are built with concealed kongs on the table (option misplaced_hands=closed)
KONG_CLOSED_HANDS = ("four-concealed-kongs",)


def waiting_for_closed_hand(v: "View") -> Any:
    """A non-winner one tile short of a closed hand scores half its value (002 line 19, 002-07).

    Tries every tile that could complete the hand; the value of the best closed hand reached is
    halved. The closed hands are table 2 (002 lines 22–31); with option ``misplaced_hands=closed``
    (002-09) also Four Concealed Kongs (002 line 40). Returns an ``engine.Fired`` with the value and
    which hand and tile it waits for, or False.
    """
    hand = v.hand
    ids = CLOSED_HANDS
    if hand.melds:
        if v.opts["misplaced_hands"] != "closed" or not all(
                m.kind == "kong" and m.concealed for m in hand.melds):
            return False
        ids = KONG_CLOSED_HANDS
    if hand.tile_count != 13:
        return False
    best = best_completion(v, [r for r in v.ruleset.rules if r.id in ids])
    if best is None:
        return False
    value, name, tile = best
    return Fired(1, (f"waiting for {name} ({value:g}) on {tile}",), value * 0.5)


def combine(lines, ruleset, view):
    """Totals of one reading: :func:`scoring.engine.default_combine`, except that

    * a non-winner's "waiting hand = half" (002 line 19) counts only when it beats the hand's normal
      count (RULINGS principle 5: the best for the player);
    * with option ``fixed_hands=best`` (002-17) a winner's fixed-value hand (002 lines 22-43) counts
      only when it beats the hand's normal count (points × doublings); by default (``fixed``) the
      fixed value replaces the count, as the tables list it.
    """
    total = default_combine(lines, ruleset, view)
    if view.winner:
        if view.opts.get("fixed_hands") != "best" or not any(ln.kind in ("fixed", "limit") for ln in lines):
            return total
        normal = default_combine([ln for ln in lines if ln.kind not in ("fixed", "limit")], ruleset, view)
        return special_or_count(total, normal, lines)
    if not any(ln.rule == "closed-hand-waiting" for ln in lines):
        return total
    normal = default_combine([ln for ln in lines if ln.rule != "closed-hand-waiting"], ruleset, view)
    return normal if normal.total > total.total else total


def unscored_bonus_note(hand: Hand, opts: Mapping[str, Any], where: str = "NTS") -> list[str]:
    """The note that ``hand``'s flowers/seasons (``hand.bonus``, e.g. ``1f 3y``) are not scored, when
    option ``bonus_tiles`` is ``off`` (the default: flowers and seasons are absent from NTS, RULINGS
    002-03); ``where`` names the ruleset ("NTS"; rode-draak, which plays on NTS's tables, says its own).
    ``opts``: the resolved options. Returns one note or none."""
    if hand.bonus and opts["bonus_tiles"] == "off":
        return [f"flowers/seasons {' '.join(hand.bonus)} are not scored in {where} "
                "(option bonus_tiles=off, 002-03)"]
    return []


def notes_for(hand: Hand, opts: dict[str, Any]) -> list[str]:
    """Notes shown with the score: bonus tiles ignored when option bonus_tiles=off (002-03)."""
    return unscored_bonus_note(hand, opts)


# ------------------------------------------------------------------------ prefilters
# Necessary conditions (scoring.engine.FEATURES) read off each predicate above; the engine does
# not call a predicate whose conditions the reading lacks (see scoring/predicates.py).
nine_gates.requires = lambda: ("no-declared", "one-suit", "no-honours")  # type: ignore[attr-defined]
winding_snake.requires = lambda: ("one-suit", "no-honours")  # type: ignore[attr-defined]
wind_snake.requires = lambda: ("no-declared", "has-honours")  # type: ignore[attr-defined]
dragon_snake.requires = lambda: ("no-declared", "has-honours")  # type: ignore[attr-defined]
court_of_peking.requires = lambda: ("no-declared", "has-honours")  # type: ignore[attr-defined]
bird.requires = lambda: ("wait:pair", "winning-tile")  # type: ignore[attr-defined]
last_wall_tile.requires = lambda tile=None: ("last-tile", "win:wall")  # type: ignore[attr-defined]
loose_tile.requires = lambda tile=None, kong_on_kong=False: (  # type: ignore[attr-defined]
    ("win:dead-wall", "kong-on-kong") if kong_on_kong else ("win:dead-wall",))
honour_sets_hand.requires = pungs_count.requires  # type: ignore[attr-defined]
