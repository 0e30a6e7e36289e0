"""Predicates, hooks and the fine settlement of the Swedish ruleset (seed 003_09e9d9e21a59d1f0.txt).

Rules are in ``swedish.toml``; each predicate here is a small pure function of a
:class:`scoring.engine.View` named after its row. Ambiguities of seed 003 are options (``003-nn``
ids in ``../shared/rules/AMBIGUITIES.md``), decided by ``RULINGS.md`` where it speaks.

Flags (``Context.flags`` / CLI ``--flag NAME``), for circumstances :class:`scoring.hand.Context`
has no field for:

* ``burst-kong`` — "Mahjong på spräckt kong" (003:43-44): another player called kong on the same
  discard the winner called mahjong on. Not the usual robbing of a kong (rendering, 003-09); option
  ``burst_kong=flag-or-robbed`` also counts ``--win-by robbed-kong``. Needs a win by discard.
* ``burst-mahjong`` — "Mahjong på spräckt Mahjong" (003:47): undefined in the seed (its
  "troubleshooting" section is missing, 003-11); the player says it happened.

The fine settlement ("bötessystem", 003:61-64) is the scheme ``swedish-fines`` registered in
:mod:`scoring.settle` (see :func:`fines`).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..errors import HandError, RulesetError
from ..fired import Fired
from ..hand import Hand, WinFlag
from ..notation import check_size
from ..results import plain_number
from ..settle import Settlement, Transfer, from_transfers, register_scheme
from ..tiles import DRAGONS, FLOWERS, HONOURS, SEASONS, TERMINALS_AND_HONOURS, TILE_NAMES, WIND_NUMBER

if TYPE_CHECKING:
    from ..engine import Line, Ruleset, ScoredHand, Totals, View

SEED = "003_09e9d9e21a59d1f0.txt"
#: the flags this ruleset reads from ``Context.flags``
FLAGS = frozenset({"burst-kong", "burst-mahjong"})
#: the flags that describe a mahjong (both), refused for a non-winner, and the win burst-kong needs: the other
#: player called kong on the winner's discard (scoring.engine.check_win_flags)
WIN_FLAGS = {"burst-kong": WinFlag("Mahjong på spräckt kong", "003:43-44", "discard"),
             # (003-11's guess, two players claiming mahjong on one tile: a tile claimed, a discard or a kong's
             # robbed tile; a tester's self-drawn win was scored with its 3 doublings)
             "burst-mahjong": WinFlag("Mahjong på spräckt Mahjong", "003:47, 003-11", ("discard", "robbed-kong"))}
#: rows of the Mahjongpoäng table (003:10-21): added after doubling under mahjong_points_doubled=no
MAHJONG_POINT_RULES = frozenset({"mahjong", "worthless-hand", "only-possible", "tile-from-the-wall"})


def _name(m) -> str:
    return "".join(t[0] for t in m.tiles) + m.tile[1]


# ------------------------------------------------------------------------- hand check (flags)
def check_hand(hand: Hand, ruleset: "Ruleset", options: Mapping[str, Any]) -> None:
    """Tile count (13-tile game) and the flags this ruleset knows (a flag for a non-winner, and
    ``burst-kong`` on a win other than by discard, are :data:`WIN_FLAGS`', checked first by
    :func:`scoring.engine.check_context_flags`).

    Raises :class:`HandError` for a wrong tile count, an unknown flag, or ``burst-kong`` with the
    winning tile held more than once (003:43-44).
    """
    check_size(hand, (ruleset.hand_size,))
    ctx = hand.context
    unknown = sorted(ctx.flags - FLAGS)
    if unknown:
        raise HandError(f"unknown flag {', '.join(unknown)} for ruleset swedish "
                        f"(flags: {', '.join(sorted(FLAGS))})")
    held = hand.all_tiles.count(hand.winning_tile) if "burst-kong" in ctx.flags and hand.winning_tile else 0
    if held > 1:
        # (003:43-44: the other player held three of the tile to call kong on it; a tester's hand holding it twice
        # was scored with the bonus)
        raise HandError(f"flag burst-kong says another player called kong on the winning {hand.winning_tile}, "
                        f"holding three, yet the hand holds {held}: the flag or the winning tile is wrong")


# ------------------------------------------------------------------------- point table (003:4-9)
def _wind_roles(v: "View", tile: str) -> int:
    """1 for a dragon; for a wind the number of roles it has: own (seat) wind + round wind."""
    if tile in DRAGONS:
        return 1
    return (tile == v.ctx.seat_wind_tile) + (tile == v.ctx.round_wind_tile)


def scoring_pairs(v: "View") -> Any:
    """Pairs of dragons, own wind or round wind (003:4, "Par (drakar, egen/rondens vind)").

    One firing per pair; a wind that is both own and round wind fires twice under
    ``seat_round_wind_pair=each`` (003-04). Under ``pair_by_discard=zero`` (003-03) a pair
    completed by a discard is open, and the open column is "–": it does not fire.
    """
    from ..engine import Fired

    n, details = 0, []
    double = False  # a wind both own and round wind: only then does the option decide the line
    for m in v.pairs:
        k = _wind_roles(v, m.tile)
        if not k:
            continue
        if v.opts["pair_by_discard"] == "zero" and not m.concealed:
            continue
        double = double or k == 2
        if v.opts["seat_round_wind_pair"] == "once":
            k = 1
        n += k
        details.append(_name(m) + (" (own and round wind)" if k == 2 else ""))
    return Fired(n, tuple(details), quiet=() if double else ("seat_round_wind_pair",)) if n else None


def open_value_pairs(v: "View") -> Any:
    """The pairs of dragons, own or round wind that :func:`scoring_pairs` does not count under
    ``pair_by_discard=zero`` (003-03 b): completed by a discard, open, "–" (003:4). A note, so that the
    missing 2 is explained, not silent."""
    from ..engine import Fired

    pairs = [_name(m) for m in v.pairs if _wind_roles(v, m.tile) and not m.concealed]
    return Fired(len(pairs), tuple(pairs)) if pairs else None


# ------------------------------------------------------------------------- Mahjongpoäng (003:10-21)
def worthless_hand(v: "View") -> bool:
    """Värdelös hand (003:13-16,20): only chows and a worthless pair — a pair of no value kind (not a dragon,
    own or round wind, the pair row 003:4). A value pair that scores nothing because it was completed by a
    discard (``pair_by_discard=zero``, 003-03 b) is still of value: the stricter option had made a dragon
    pair's hand "worthless", 10 points for the pair's 2 withheld (a tester's)."""
    if v.d.shape != "standard" or any(m.kind != "chow" for m in v.sets):
        return False
    return not any(_wind_roles(v, m.tile) for m in v.pairs)


def only_possible(v: "View") -> bool:
    """Enda möjliga (003:18-19): won on the only possible tile (RULINGS 003-06).

    ``only_possible=pair`` (the alternative pairing): the only possible tile, and it completes the pair.
    """
    if v.hand.winning_tile is None or not v.one_wait:
        return False
    return v.opts["only_possible"] == "tile" or v.d.wait == "pair"


# ------------------------------------------------------------------------- doublings for everyone
def is_sitting_wind(v: "View") -> Any:
    """The player is the sitting wind (sittande vind): the dealer (RULINGS 003-02), or under
    ``sitting_wind=seat-is-round`` the player whose seat wind is the round wind; the line says which
    (a tester's South player under seat-is-round was told "East, the dealer")."""
    if v.opts["sitting_wind"] == "dealer":
        if not v.ctx.is_dealer:
            return None
        return Fired(details=("the dealer" if v.ctx.dealer is not None else "East, the dealer",))
    if v.ctx.seat_wind != v.ctx.round_wind:
        return None
    return Fired(details=(f"seat wind {TILE_NAMES[v.ctx.seat_wind_tile]}, the round wind",))


def value_pungs(v: "View") -> Any:
    """Pungs/kongs of dragons, own wind or round wind, 1 doubling each (003:23-26,30).

    A wind that is both own and round wind (option ``seat_round_wind_pung``, 003-07): ``once`` = 1
    (the row), ``sitting-wind`` = 2 for the sitting wind only (the seed's "some hold" remark),
    ``each`` = 2 (RULINGS shared definition).
    """
    from ..engine import Fired

    mode = v.opts["seat_round_wind_pung"]
    n, details = 0, []
    double = False  # a wind both own and round wind: only then does the option decide the line
    for m in v.pungs:
        k = _wind_roles(v, m.tile)
        if not k:
            continue
        double = double or k == 2
        if k == 2 and (mode == "once" or (mode == "sitting-wind" and not is_sitting_wind(v))):
            k = 1
        n += k
        details.append(_name(m) + (" (own and round wind: 2)" if k == 2 else ""))
    return Fired(n, tuple(details), quiet=() if double else ("seat_round_wind_pung",)) if n else None


def _complete_series(v: "View") -> list[tuple[str, ...]]:
    return _series_of(v.hand.bonus)


def _series_of(bonus: Sequence[str]) -> list[tuple[str, ...]]:
    """The complete series (all four flowers, all four seasons) among the bonus tiles ``bonus``."""
    b = set(bonus)
    return [s for s in (FLOWERS, SEASONS) if set(s) <= b]


def _own_counted(bonus: Sequence[str], seat_wind: str, with_own: str, own_bonus: str) -> list[str]:
    """The own flowers/seasons of ``bonus`` (numbered as ``seat_wind``) that earn their doubling under
    ``bouquet_with_own`` = ``with_own`` and ``own_bonus`` (003:33-34, 003-08)."""
    n = WIND_NUMBER[seat_wind]
    own = [t for t in bonus if int(t[0]) == n]
    if with_own == "replace":
        in_bouquet = {t for s in _series_of(bonus) for t in s}
        own = [t for t in own if t not in in_bouquet]
    if own_bonus == "once":
        own = own[:1]
    return own


def own_flower_or_season(v: "View") -> list[str]:
    """Egen blomma eller årstid (003:33-34): flowers/seasons numbered as the seat wind (East 1 …).

    One firing per own tile (``own_bonus=each``, RULINGS shared definition) or at most one
    (``once``); under ``bouquet_with_own=replace`` an own tile inside a complete series (a bouquet)
    does not count (003-08).
    """
    return _own_counted(v.hand.bonus, v.ctx.seat_wind, v.opts["bouquet_with_own"], v.opts["own_bonus"])


def single_bouquet(v: "View") -> Any:
    """Enkel bukett (003:36): all four flowers or all four seasons.

    With all eight (a double bouquet, 003:37): ``bouquets=replace`` = the double bouquet replaces
    it (does not fire); ``add`` = it fires once beside the double bouquet (003-08).
    """
    series = _complete_series(v)
    if not series:
        return False
    if len(series) == 2 and v.opts["bouquets"] == "replace":
        return False
    return ["flowers" if series[0] == FLOWERS else "seasons"] if len(series) == 1 else ["flowers and seasons"]


def double_bouquet(v: "View") -> Any:
    """Dubbel bukett (003:37): all four flowers and all four seasons. Under ``bouquets=replace`` (003-08, default)
    its line says the single bouquet it replaces (003:36); under ``add`` that one counts beside it."""
    if len(_complete_series(v)) < 2:
        return False
    if v.opts["bouquets"] == "replace":
        return Fired(details=("also Enkel bukett (003:36), not counted beside it",))
    return True


# ------------------------------------------------------------------------- doublings for the winner
def burst_kong(v: "View") -> Any:
    """Mahjong på spräckt kong (003:43-44): flag ``burst-kong``; with ``burst_kong=flag-or-robbed``
    also a win by robbing a kong (003-09). The line says which."""
    if "burst-kong" in v.ctx.flags:
        return Fired(details=("--flag burst-kong",))
    if v.opts["burst_kong"] == "flag-or-robbed" and v.ctx.win_by == "robbed-kong":
        return Fired(details=("a robbed kong (option burst_kong=flag-or-robbed)",))
    return None


def dold_mahjong(v: "View") -> bool:
    """Dold Mahjong (003:45-46): "Inget utlagt på bordet" — nothing laid out on the table: no
    exposed meld, and — option ``dold_concealed_kong=laid-out`` (literal, the default) — no concealed
    kong shown on the table either; ``dold_concealed_kong=dold`` lets a concealed kong count as
    concealed, as in the point table's "dold" column. And — ``dold_mahjong=concealed-and-self-drawn``
    — the winning tile from the wall (003-10)."""
    if any(not m.concealed for m in v.hand.melds):
        return False
    if v.hand.melds and v.opts["dold_concealed_kong"] == "laid-out":  # (only concealed kongs are left)
        return False
    if v.hand.bonus and v.opts["dold_bonus_tiles"] == "laid-out":
        return False
    if not (v.opts["dold_mahjong"] == "concealed" or v.ctx.self_drawn):
        return False
    # (the line says the tile from the wall only where the option asks for it: a tester's win by discard under
    # dold_mahjong=concealed was glossed "+ the tile from the wall")
    details = ("won from the wall",) if v.opts["dold_mahjong"] != "concealed" else ()
    if v.hand.melds:  # concealed kongs on the table, counted as dold by the option
        details += (f"concealed kong {' '.join(m.notation() for m in v.hand.melds)} counted as "
                    f"dold (option dold_concealed_kong=dold)",)
    if v.hand.bonus:  # (a referee: the flowers lie on the table too, and the line had said nothing of them)
        details += (f"bonus tiles {''.join(v.hand.bonus)} on the table not counted as laid out",)
    return Fired(details=details)


def _dold_kong_note(result: "ScoredHand", options: Mapping[str, Any]) -> str | None:
    """The note when only a concealed kong on the table kept the hand from Dold Mahjong (option
    ``dold_concealed_kong=laid-out``), so that the explanation shows the choice (RULINGS principle 3)."""
    h = result.hand
    if (not h.context.winner or options["dold_concealed_kong"] != "laid-out" or not h.melds
            or any(not m.concealed for m in h.melds)
            or not (options["dold_mahjong"] == "concealed" or h.context.self_drawn)):
        return None
    kongs = " ".join(m.notation() for m in h.melds)
    return (f"no Dold Mahjong (003:45 'Inget utlagt på bordet'): the concealed kong {kongs} lies on the "
            f"table (option dold_concealed_kong=laid-out; dold_concealed_kong=dold counts it as concealed)")


def _dold_bonus_note(result: "ScoredHand", options: Mapping[str, Any]) -> str | None:
    """The note when only the hand's bonus tiles on the table kept it from Dold Mahjong (option
    ``dold_bonus_tiles=laid-out``; RULINGS principle 3)."""
    h = result.hand
    if (not h.context.winner or options["dold_bonus_tiles"] != "laid-out" or not h.bonus
            or any(not m.concealed for m in h.melds) or (h.melds and options["dold_concealed_kong"] == "laid-out")
            or not (options["dold_mahjong"] == "concealed" or h.context.self_drawn)):
        return None
    return (f"no Dold Mahjong (003:45 'Inget utlagt på bordet'): the bonus tiles {''.join(h.bonus)} lie on the "
            f"table (option dold_bonus_tiles=laid-out; under dold_bonus_tiles=not-laid-out they are not taken as laid "
            f"out, and the doubling counts)")


def _own_in_bouquet_note(result: "ScoredHand", options: Mapping[str, Any]) -> str | None:
    """The note when ``bouquet_with_own=replace`` (003-08) took away the own flower/season doubling of a tile inside
    a complete bouquet (a referee's hand lost it without a word; RULINGS principle 3)."""
    h = result.hand
    if options["bouquet_with_own"] != "replace" or not h.bonus:
        return None
    # (only where it takes a doubling away: under own_bonus=once an own tile outside the bouquet still gives the one
    # doubling — a reviewer's 1234f + 2y, 272 either way, had been told 2f lost its doubling)
    added = _own_counted(h.bonus, h.context.seat_wind, "add", options["own_bonus"])
    if len(added) == len(_own_counted(h.bonus, h.context.seat_wind, "replace", options["own_bonus"])):
        return None
    in_bouquet = {t for s in _series_of(h.bonus) for t in s}
    own = [t for t in h.bonus if int(t[0]) == WIND_NUMBER[h.context.seat_wind] and t in in_bouquet]
    return (f"own {'tiles' if len(own) > 1 else 'tile'} {''.join(own)} inside the bouquet: no own flower/season "
            f"doubling (003:33-34) for {'them' if len(own) > 1 else 'it'} (option bouquet_with_own=replace, 003-08; "
            f"bouquet_with_own=add counts both)")


def burst_mahjong(v: "View") -> bool:
    """Mahjong på spräckt Mahjong (003:47): flag ``burst-mahjong`` unless ``burst_mahjong=off`` (003-11)."""
    return v.opts["burst_mahjong"] == "flag" and "burst-mahjong" in v.ctx.flags


#: composition rows (003:51-57): rule id → class, in table order
COMPOSITION_RULES = {"one-suit-honours": "one-suit-honours", "one-suit": "one-suit",
                     "only-honours": "honours", "heads-and-tails": "terminals-honours"}


def _composition_matches(v: "View", cls: str) -> bool:
    tiles = v.tile_set
    if cls == "one-suit-honours":  # RULINGS "clean": one suit plus honours, at least one suit tile
        return len(v.suits) == 1 and v.has_honours
    if cls == "one-suit":
        return len(v.suits) == 1 and not v.has_honours
    if cls == "honours":
        return tiles <= HONOURS
    if cls == "terminals-honours":  # "inga mellan brickor": no middle tiles
        return tiles <= TERMINALS_AND_HONOURS
    raise ValueError(f"unknown composition class {cls!r}")


def composition(v: "View", cls: str) -> bool:
    """One of the composition rows (003:51-57) matches: ``cls`` is ``one-suit-honours``,
    ``one-suit``, ``honours`` (only dragons and winds) or ``terminals-honours`` (heads & tails).

    ``composition=highest`` (003-12, default): the rows are exclusive, only the matching row with
    the highest value fires (table order on ties), its line naming the rows it outranks (a referee's heads-and-tails
    hand of one suit and honours was shown only "Mahjong i en serie och honnörer", without the option that left the
    other row out); ``stack``: every matching row fires.
    """
    if not _composition_matches(v, cls):
        return False
    if v.opts["composition"] == "stack":
        return True
    order = list(COMPOSITION_RULES)
    me = next(r for r, c in COMPOSITION_RULES.items() if c == cls)
    my_value = v.ruleset.rule(me).value
    outranked = []
    for rid, other in COMPOSITION_RULES.items():
        if other == cls or not _composition_matches(v, other):
            continue
        value = v.ruleset.rule(rid).value
        if value > my_value or (value == my_value and order.index(rid) < order.index(me)):
            return False
        outranked.append(v.ruleset.rule(rid))
    if not outranked:
        return True
    return Fired(details=tuple(f"also {r.name} ({r.source[:3]}:{r.source.split(':')[-1]}), not counted beside it"
                               for r in outranked))


# ------------------------------------------------------------------------- combine / finalize (003-01 b)
def combine(lines: Sequence["Line"], ruleset: "Ruleset", view: "View") -> "Totals":
    """Default combine; under ``mahjong_points_doubled=no`` (003-01 reading b) the Mahjongpoäng
    rows (003:10-21) are added after doubling: ``other points × 2^doublings + mahjong points``."""
    from ..engine import Totals, default_combine, round_half_up

    if view.opts["mahjong_points_doubled"] == "yes":
        return default_combine(lines, ruleset, view)
    after = [ln for ln in lines if ln.rule in MAHJONG_POINT_RULES]
    t = default_combine([ln for ln in lines if ln.rule not in MAHJONG_POINT_RULES], ruleset, view)
    extra = sum(ln.points for ln in after)
    return Totals(round_half_up(t.total + extra), t.points, t.doublings, tuple(lines), t.cash,
                  t.limit_applied, t.outranked)


def finalize(result: "ScoredHand", ruleset: "Ruleset", options: Mapping[str, Any]) -> "ScoredHand":
    """Add a note with the arithmetic when the mahjong points are added after doubling (003-01 b),
    and one when a concealed kong or bonus tiles on the table cost the Dold Mahjong doubling (:func:`_dold_kong_note`,
    :func:`_dold_bonus_note`)."""
    for note in (_dold_kong_note(result, options), _dold_bonus_note(result, options),
                 _own_in_bouquet_note(result, options)):
        if note:
            result = replace(result, notes=result.notes + (note,))
    if options["mahjong_points_doubled"] == "yes":
        return result
    extra = sum(ln.points for ln in result.lines if ln.rule in MAHJONG_POINT_RULES)
    note = (f"option mahjong_points_doubled=no (003-01): {result.points:g} points × 2^{result.doublings}"
            f" + {extra:g} mahjong points added after doubling = {result.total}")
    return replace(result, notes=result.notes + (note,))


# ------------------------------------------------------------------------- fines (bötessystem)
def _parse_totals(raw: Any, players: Sequence[str], table: Sequence[str] = ()) -> dict[str, float]:
    """``totals`` for ``fine_remainder=lowest-total``: a mapping or ``"S:120,W:80,N:95"`` → the running total of
    each of ``players`` (the non-winners). Raises RulesetError for an entry that is not PLAYER:POINTS, a player
    not at the ``table`` (all four; ``players`` when empty), one named twice, one of ``players`` missing, and a
    total that is no finite number (a tester's S:nan had changed the payments, and an unknown Q:9 or S given
    twice had been taken without a word)."""
    table = list(table) or list(players)
    pairs: list[tuple[str, Any]] = []
    if isinstance(raw, Mapping):
        pairs = [(str(k).strip(), v) for k, v in raw.items()]
    else:
        for part in str(raw).split(","):
            if not part.strip():
                continue
            if ":" not in part:
                raise RulesetError(f"totals entry {part.strip()!r} must be PLAYER:POINTS")
            k, val = part.split(":", 1)
            pairs.append((k.strip(), val.strip()))
    items: dict[str, Any] = {}
    for k, val in pairs:
        if k not in table:
            raise RulesetError(f"option totals names {k!r}: not one of the players {', '.join(table)}")
        if k in items:
            raise RulesetError(f"option totals names {k} twice: give each player's running total once")
        items[k] = val
    out = {}
    for p in players:
        if p not in items:
            raise RulesetError(f"option totals lacks player {p} (fine_remainder=lowest-total needs "
                               "every non-winner's running total, e.g. totals=S:120,W:80,N:95)")
        try:
            out[p] = float(items[p])
        except (TypeError, ValueError):
            raise RulesetError(f"totals for {p} must be a number, not {items[p]!r}") from None
        if not math.isfinite(out[p]):
            raise RulesetError(f"totals for {p} must be a number, not {items[p]!r}")
    return out


def _lowest_first(candidates: Sequence[str], key: Mapping[str, float], order: Sequence[str]) -> list[str]:
    """``candidates`` from the lowest ``key`` up; ties in ``order``, the order of play from East
    (:func:`_play_order`)."""
    return sorted(candidates, key=lambda p: (key[p], order.index(p)))


def _play_order(players: Sequence[str], east: str) -> list[str]:
    """The players in the order of play from East, which breaks a tie for the lowest score (003:63 names no
    order for one): players named by the winds E, S, W, N sit at their winds whatever order they were given in
    (``settle``'s E=…,W=…,S=…,N=… had broken a tie the other way than ``table``), other labels sit in the order
    given (the seating order)."""
    seated = sorted(players, key="ESWN".index) if sorted(players) == sorted("ESWN") else list(players)
    k = seated.index(east)
    return seated[k:] + seated[:k]


def _tie_note(ranked: Sequence[str], extra: int, key: Mapping[str, float], basis: str) -> str | None:
    """The note of a tie that decided who pays an odd point: the first ``extra`` of ``ranked`` (lowest first)
    pay one point more, and the one after them has the same ``key`` as the last of them; None otherwise."""
    if not 0 < extra < len(ranked) or key[ranked[extra - 1]] != key[ranked[extra]]:
        return None
    tied = [p for p in ranked if key[p] == key[ranked[extra]]]
    payers = [p for p in tied if ranked.index(p) < extra]
    what = basis.removeprefix("lowest ")
    return (f"{' and '.join(tied)} have the same {what} ({plain_number(key[tied[0]])}): the odd point is paid by "
            f"{' and '.join(payers)}, first in the order of play from East (003:63 names no order for a tie)")


def _spread(amount: int, payers: Sequence[str]) -> dict[str, int]:
    """Split ``amount`` whole points over ``payers`` (lowest first): as evenly as possible, the
    leftover points one each to the first payers (003:63, RULINGS 003-13)."""
    base, rem = divmod(amount, len(payers))
    return {p: base + (1 if i < rem else 0) for i, p in enumerate(payers)}


#: every option :func:`fines` takes (scoring.settle.settle refuses others, naming these)
SETTLE_OPTIONS = ("fine_remainder", "totals", "fine_quarters", "non_winner_exchange")
#: the settlement options of :func:`fines` that describe one hand: ``totals``, the running totals before it
#: (a batch of several hands takes them from each hand's ``settle`` cell: vision.batch_outputs.check_settle_options)
SETTLE_PER_HAND = ("totals",)
#: the settlement options of :func:`fines` that give players amounts (``totals=S:120,W:80,N:95``): a batch reads
#: a seat wind given in them as the player in that seat (scoring.settle.players_for_seats)
SETTLE_PLAYER_AMOUNTS = ("totals",)


def fines(scores: Mapping[str, int], winner: str | None, east: str,
          options: Mapping[str, Any] | None = None) -> Settlement:
    """The Swedish fine system (bötessystem, 003:61-64) for one hand of four players.

    ``scores``: player → hand score (the winner's is W, the points fined); ``winner``: who went
    mahjong (None: nobody, no fines); ``east``: the sitting wind (East, the dealer; RULINGS 003-02).

    * East wins (003:63): each other player pays W/3; the points that do not divide evenly are
      paid one each by the lowest-scoring non-winners first (RULINGS 003-13).
    * Another player wins (003:64): East pays half, the two others share the other half
      fifty-fifty; odd points by the same rule (option ``fine_quarters``).

    Payments are whole points and sum exactly to W; the winner receives W (003-14: the text says
    the losers deduct the fine from their points, so the winner is credited). Options (validated
    as ruleset options): ``fine_remainder`` (with ``totals`` for ``lowest-total``),
    ``fine_quarters``, ``non_winner_exchange``. Raises ValueError unless there are 4 players,
    RulesetError for a bad option.
    """
    from ..engine import load_ruleset

    players = list(scores)
    if len(players) != 4:
        raise ValueError(f"the Swedish fine system is for 4 players, got {len(players)}")
    raw = dict(options or {})
    totals_raw = raw.pop("totals", None)
    opts = load_ruleset("swedish").resolve_options(raw)
    for p, s in scores.items():
        if int(s) != s or s < 0:
            raise ValueError(f"score of {p} must be a whole number ≥ 0, not {s!r}")
    if totals_raw is not None and opts["fine_remainder"] != "lowest-total":
        # (a tester's totals=garbage was taken without a word under the default, a void hand too: the running totals
        # rank nobody there)
        raise RulesetError(f"option totals is read only with fine_remainder=lowest-total (the remainder paid by the "
                           f"lowest running total first); here fine_remainder={opts['fine_remainder']}: give "
                           f"fine_remainder=lowest-total too, or leave totals out")
    if winner is None:
        return from_transfers("swedish", "swedish-fines", players, [],
                              notes=("nobody went mahjong: no fines (003:61-64)",))
    others = [p for p in players if p != winner]
    if opts["fine_remainder"] == "lowest-total":
        if totals_raw is None:
            raise RulesetError("fine_remainder=lowest-total needs option totals=PLAYER:POINTS,... "
                               "(each non-winner's running total)")
        rank_key = _parse_totals(totals_raw, others, players)
        basis = "lowest running total"
    else:
        rank_key = {p: scores[p] for p in others}
        basis = "lowest hand score"
    w = int(scores[winner])
    # (the remainder's order said only where there is one: a Swedish referee's 104, a quarter each, had been told
    # "remainder paid by the lowest hand score first")
    left = w % 3 if winner == east else w % 4
    notes = [f"winner {winner} scores {w}" + (f"; remainder paid by the {basis} first (option "
                                              f"fine_remainder={opts['fine_remainder']}, 003-13)" if left else "")]
    order = _play_order(players, east)
    ties: list[str] = []
    transfers: list[Transfer] = []
    if winner == east:
        ranked = _lowest_first(others, rank_key, order)
        share = _spread(w, ranked)
        ties.append(_tie_note(ranked, w % 3, rank_key, basis))
        for p in others:
            transfers.append(Transfer(p, winner, share[p],
                                      f"fine: a third of East's {w} ({SEED}:63)"))
    else:
        rest = [p for p in others if p != east]
        share = _split_half_quarters(w, east, rest, rank_key, order, opts["fine_quarters"], basis, ties)
        odd = {p: 4 * share[p] != w * (2 if p == east else 1) for p in (east, *rest)}
        transfers.append(Transfer(east, winner, share[east], f"fine: East pays half of {w}"
                                  + (f", {share[east]} in whole points" if odd[east] else "") + f" ({SEED}:64)"))
        for p in rest:
            transfers.append(Transfer(p, winner, share[p],
                                      f"fine: a quarter of {w}" + (f", {share[p]} in whole points" if odd[p] else "")
                                      + f", the other half shared fifty-fifty ({SEED}:64)"))
        if w % 4:
            notes.append(f"{w} is not divisible by 4: odd points by option "
                         f"fine_quarters={opts['fine_quarters']} (003-13)")
    notes += [t for t in ties if t]
    paid = sum(t.amount for t in transfers)
    assert paid == w, (paid, w)
    if opts["non_winner_exchange"] == "pairwise":
        for i, a in enumerate(others):
            for b in others[i + 1:]:
                d = int(scores[b]) - int(scores[a])
                if d:
                    lo, hi = (a, b) if d > 0 else (b, a)
                    transfers.append(Transfer(lo, hi, abs(d),
                                              "non-winners settle hand scores (option non_winner_exchange=pairwise, 003-14)"))
    return from_transfers("swedish", "swedish-fines", players, transfers, notes=tuple(notes))


def _split_half_quarters(w: int, east: str, rest: Sequence[str], key: Mapping[str, float],
                         order: Sequence[str], mode: str, basis: str = "score",
                         ties: list[str | None] | None = None) -> dict[str, int]:
    """East's half and the two others' quarters of ``w`` in whole points (003:64, 003-13); ``order``: the
    order of play from East, which breaks ties (:func:`_play_order`); the notes of ties that decided an odd
    point are appended to ``ties`` (:func:`_tie_note`, ``basis`` naming the score ranked).

    ``halves-first``: W into East's half and the others' half (an odd point to whichever side the
    lowest-scoring of the three is on), then the others' half fifty-fifty (an odd point to the
    lower-scoring of the two). ``shares-floor``: each pays the whole part of W/2, W/4, W/4 and the
    leftover points are paid one each, lowest-scoring first, by those whose share is not whole: East pays
    exactly half of an even W (a referee's East at 0 had paid 14 of 26, "half", and 4 of 6).
    """
    ties = [] if ties is None else ties
    if mode == "halves-first":
        three = _lowest_first([east, *rest], key, order)
        if w % 2 and key[east] == key[three[0]]:  # (a tie of the two others sends the point to their half either
            ties.append(_tie_note(three, 1, key, basis))  # way: a reviewer's W/N tie had been said to decide it)
        east_half = w // 2 + (w % 2 if three[0] == east else 0)
        two = _lowest_first(rest, key, order)
        if (w - east_half) % 2:
            ties.append(_tie_note(two, 1, key, basis))
        share = _spread(w - east_half, two)
        share[east] = east_half
        return share
    share = {east: w // 2, **{p: w // 4 for p in rest}}
    left = w - sum(share.values())
    uneven = [p for p in _lowest_first([east, *rest], key, order)
              if (w * (2 if p == east else 1)) % 4]  # (East's share W/2, the others' W/4)
    ties.append(_tie_note(uneven, left, key, basis))
    for p in uneven[:left]:
        share[p] += 1
    return share


register_scheme("swedish-fines", fines)
