"""Predicates and hooks of De Rode Draak's competition rules (seed 001_20e8f920a7ce7e86.txt).

Seed 001 is an excerpt (AMBIGUITIES 001-01): it gives the entry rule, extra doublings, the limit
hands, the waiting hand, the dead hand, the settlement and the session, and relies on rules "above"
for the ordinary points and doublings. ``rode_draak.toml`` therefore has ``base = "nts"``: the NTS
point table and doublings (seed 002) stand in for them; the NTS fixed-value hands and the NTS items
001 redefines are replaced or removed there.

Hooks: :func:`check_hand` (tile count; a dead hand may have any count), :func:`combine` (no cap on
ordinary hands: "zonder een echte limiet", 001:46), :func:`finalize` (the entry rule 001:1, RULINGS
001-03: a winning hand that is neither clean nor has 2 doublings is "mahjong not allowed: …"; a
dead hand with more than 13 tiles records no points, 001:108).

Flags (``--flag NAME``):

* ``dead-hand`` — the player has more or fewer than 13 tiles (001:108); score with ``--not-winner``
  (fewer: option ``dead_hand_score``, the combinations as a non-winner's or their points only);
* ``dealt-waiting`` — the dealt tiles were a waiting hand, announced (De Gelukkige Dertien, 001:13;
  give ``--announced-wait`` too);
* ``flower-replacement`` — the winning dead-wall tile replaced a flower/season, not a kong
  (001-05; matters under option ``blooming_flowers=kong-only``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..errors import CircumstanceError, HandError
from ..hand import Context, Hand, WinFlag
from ..notation import check_size
from ..tiles import DRAGONS, SIMPLES, SUITS, WINDS
from .nts import court_of_peking, dragon_snake, nine_gates  # noqa: F401  (predicates named in the TOML)
from .nts import unscored_bonus_note

if TYPE_CHECKING:
    from ..engine import Line, Ruleset, ScoredHand, Totals, View

SEED = "001_20e8f920a7ce7e86.txt"
#: the least a winner's hand scores, and why (scoring.settle.check_winner_scores refuses a score below it): the
#: 20 for Mahjong of the NTS tables this ruleset plays on (002:13, 001-01) is in every win, a limit hand is
#: worth 500 or more, and a hand that fails the entry rule is no win (001:1: "mahjong not allowed", total 0,
#: which `table` refuses to settle as well)
WINNER_SCORES_AT_LEAST = (20, f"the 20 for Mahjong of the NTS tables it plays on (002_b9f4c4575200caaf.txt:13, "
                              f"001-01); a hand that fails the entry rule ({SEED}:1) is no win to settle")
#: how the command line says a dead hand, and that a winner's hand is none (`table` and the web's settlement
#: say them in their own words: :func:`reword_dead_hand`)
DEAD_HAND_HINT = "--flag dead-hand --not-winner"
DEAD_WINNER_HINT = "score it with --not-winner"
#: the suggestion of a dead hand after a tile count that is not a hand's (001:108)
DEAD_HAND_SUGGESTION = f"; a player with more or fewer than 13 tiles has a dead hand: {DEAD_HAND_HINT} (001:108)"


def reword_dead_hand(message: str, flag_words: str | None, winner_words: str) -> str:
    """``message`` (a HandError's) with the command line's words for a dead hand said another front end's
    way: ``flag_words`` for ``--flag dead-hand --not-winner`` (None: the suggestion left out, for a
    winner's hand, which cannot be dead), ``winner_words`` for "score it with --not-winner"."""
    if flag_words is None:
        message = message.replace(DEAD_HAND_SUGGESTION, "")
    return message.replace(DEAD_HAND_HINT, flag_words or DEAD_HAND_HINT).replace(DEAD_WINNER_HINT, winner_words)

#: why a limit hand's normal count (points x 2^doublings) is not what it scores, for audit's hint on a claim
#: of that count (vision.audit.total_hints; the hook is read by name)
#: what a limit hand scores beside its Limit, and on whose word: the seed takes away only the points and doublings of
#: the limit's own tiles (001:46); the rest is this ruleset's reading of an ambiguity left open (a seed referee read
#: "nothing else (AMBIGUITIES 001-18)" after a quote of 001:46 as the seed's own words)
LIMIT_ALONE = (f"a limit hand scores its Limit (RULINGS 001-11) and nothing else ({SEED}:46 says so of its own "
               f"tiles; what else may count, AMBIGUITIES 001-18 leaves open: option limit_extras, none by default)")
#: the doublings for how a hand was won, from none of its tiles: under option ``limit_extras=win-doublings`` (001-18)
#: they double a limit hand's Limit too (001:9, 11, 13, 17; 002:51-56)
WIN_DOUBLINGS = frozenset({"kong-blooming", "robbing-the-kong", "lucky-thirteen", "earth", "bottom-of-the-sea",
                           "moon-from-the-bottom", "moon-from-the-bottom-added", "plum-blossom-from-the-roof",
                           "plum-blossom-from-the-roof-added", "kong-on-kong", "kong-on-kong-added"})
SPECIAL_HAND_COUNT = f"its own tiles 'leveren geen punten of verdubbelingen meer op' ({SEED}:46): {LIMIT_ALONE}"

#: what a winner whose mahjong the entry rule refuses (001:1) is told to do next (scoring.settle.refused_win_text,
#: ``{void}``: the front end's words for a hand with no winner): the seed's false mahjong, no penalty (001-14)
FALSE_MAHJONG = (f"that is a mahjong declared wrongly ('Ten onrechte mahjong afkondigen', {SEED}:118-120: very "
                 f"impolite; the seed sets no penalty, AMBIGUITIES 001-14): check the hand's lines and its winning "
                 f"tile; if the game then ended with no mahjong, settle it with {{void}} (a void hand: no points "
                 f"are counted and it is replayed with the same winds, {SEED}:134)")

FLAGS = frozenset({"dead-hand", "dealt-waiting", "flower-replacement"})
#: the flag that describes a win, on the dead-wall tile drawn for a flower (001-05): refused for a non-winner and
#: for a win not by dead-wall (scoring.engine.check_win_flags; a tester's non-winner had been told to give
#: --win-by dead-wall, which a non-winner cannot). dead-hand and dealt-waiting are :func:`check_context_flags`'.
WIN_FLAGS = {"flower-replacement": WinFlag("Kong met de Bloeiende Bloemen", "001:9, 001-05", "dead-wall")}
#: Onregelmatige Limietspelen (001:56-84) a player can wait for (Heaven is a circumstance)
IRREGULAR_LIMIT = ("nine-gates", "thirteen-orphans", "seven-twins-superschoon", "seven-twins-schoon",
                   "wind-snake", "dragon-snake", "court-of-peking")
#: Regelmatige limietspelen (001:86-102)
REGULAR_LIMIT = ("rode-draak-hand", "jade", "four-winds", "winding-snake")
WAITING_RULE = "waiting-irregular-limit"


def _name(m) -> str:
    return "".join(t[0] for t in m.tiles) + m.tile[1]


# ------------------------------------------------------------------------- clean (001:1, RULINGS)
def is_clean(v: "View") -> bool:
    """"schoon spel" (RULINGS shared definitions, 001-02): one suit, winds/dragons allowed, at
    least one suit tile. A super-clean (pure) hand is clean too."""
    return len(v.suits) == 1


def is_super_clean(v: "View") -> bool:
    """"superschoon" (RULINGS: pure): one suit only, no winds or dragons."""
    return len(v.suits) == 1 and not v.has_honours


def entry_clean(v: "View") -> Any:
    """The entry rule (001:1): a clean hand may go mahjong; fires (a note) when it is clean.
    Otherwise :func:`finalize` checks the doublings (RULINGS 001-03)."""
    return "clean hand: mahjong allowed" if is_clean(v) else False


def entry_doublings_line(v: "View") -> bool:
    """The rule ``entry-doublings`` (001:1, RULINGS 001-03): the entry rule met by the doublings of a hand that is
    not clean. Never fires while a reading is scored: the doublings are known only in :func:`finalize`, which
    adds its line (:func:`_doublings_entry_line`)."""
    return False


def entry_limit_line(v: "View") -> bool:
    """The rule ``entry-limit-hand`` (001:42-46, option ``limit_entry=waived``): the entry rule waived for a
    winning limit hand that is neither clean nor has 2 doublings. Never fires while a reading is scored: whether
    the rule was met or waived is known only in :func:`finalize`, which adds its line (:func:`_limit_entry_line`)."""
    return False


# ------------------------------------------------------------------------- extra doublings (001:3-21)
def equals_2_8(v: "View") -> bool:
    """Winst met Gelijke 2 t/m 8 (001:7): only pungs/kongs, only tiles 2–8."""
    from ..predicates import all_pungs

    return all_pungs(v) and v.tile_set <= SIMPLES


def blooming(v: "View") -> bool:
    """Kong met de Bloeiende Bloemen (001:9): the winning tile is drawn from the dead wall. Option
    ``blooming_flowers`` (001-05): ``any-dead-wall`` (literal) or ``kong-only`` (not when flag
    ``flower-replacement`` says it replaced a flower)."""
    if v.ctx.win_by != "dead-wall":
        return False
    # (kong-only: a hand without a kong drew its dead-wall tile for a flower, flag or not)
    return v.opts["blooming_flowers"] == "any-dead-wall" or ("flower-replacement" not in v.ctx.flags and bool(v.kongs))


def kongroof(v: "View") -> bool:
    """Kongroof (001:11): mahjong by robbing a kong "met een chow". Option ``robbing_kong``
    (001-06): ``chow`` = literal, the robbed tile completes a chow; ``any`` = any completion."""
    if v.ctx.win_by != "robbed-kong":
        return False
    if v.opts["robbing_kong"] == "any":
        return True
    m = v.d.winning_meld
    return m is not None and m.kind == "chow"


def lucky_thirteen(v: "View") -> bool:
    """De Gelukkige Dertien (001:13): the dealt tiles were waiting, announced (``--announced-wait``
    + flag ``dealt-waiting``), and East did not throw away the wanted tile — a win on East's first
    discard is Het Spel van de Aarde instead (001:17). Who (001-07): option ``lucky_thirteen``."""
    if not (v.ctx.announced_wait and "dealt-waiting" in v.ctx.flags):
        return False
    return not (v.winner and v.ctx.first_turn and v.ctx.win_by == "discard" and not v.ctx.is_dealer)


def three_wise_men(v: "View") -> bool:
    """De Drie Wijzen (001:21) "drie verschillende draken, en willekeurige Chow, Pung en Kong":
    no legal hand as written (001-08). Option ``three_wise_men``: ``dragon-pungs`` = pungs/kongs of
    all three dragons + any set + a pair (reading a, RULINGS principle 4); ``as-written`` = never."""
    if v.opts["three_wise_men"] == "as-written" or v.d.shape != "standard":
        return False
    return {m.tile for m in v.pungs} >= DRAGONS


# ------------------------------------------------------------------------- limit hands (001:44-102)
def _concealed_counter(v: "View") -> Counter | None:
    """Tiles of an irregular limit hand: nothing on the table (001:50 "in de hand gespeeld")."""
    return None if v.hand.melds else Counter(v.hand.concealed)


def seven_twins(v: "View", kind: str) -> Any:
    """De Zeven Tweelingen (001:72, RULINGS 001-12): seven pairs; ``kind`` ``super`` (superschoon →
    Limit), ``clean`` (schoon → Half Limit) or ``other`` (a note: scored normally, allowed only
    with 2 doublings). Four alike as two pairs: option ``seven_twins_four_alike`` (001-12)."""
    if v.d.shape != "seven-pairs" or v.hand.melds:
        return False
    if v.opts["seven_twins_four_alike"] == "no" and len({m.tile for m in v.pairs}) != len(v.pairs):
        return False
    sup, cl = is_super_clean(v), is_clean(v)
    if kind == "super":
        return sup
    if kind == "clean":
        return cl and not sup
    return (not cl) and "seven pairs, not clean: counted normally (RULINGS 001-12)"


def slang_1(v: "View") -> bool:
    """Slang 1 (001:76): 1 through 9 of one suit + one of each wind, one of the winds doubled."""
    c = _concealed_counter(v)
    if c is None:
        return False
    for s in SUITS:
        need = Counter(f"{r}{s}" for r in range(1, 10)) + Counter(sorted(WINDS))
        if need - c:
            continue
        rest = c - need
        return sum(rest.values()) == 1 and next(iter(rest)) in WINDS
    return False


def rode_draak_hand(v: "View") -> bool:
    """Het Spel van de Rode Draak (001:90): a kong of red dragons, characters 1 through 9 (three
    chows 123 456 789, a regular limit hand, INFERRED in the rendering) and a closing pair of the
    own (seat) wind."""
    if v.d.shape != "standard" or not v.pairs:
        return False
    kongs = [m for m in v.kongs if m.tile == "7z"]
    chows = sorted(m.tile for m in v.chows)
    return bool(kongs) and chows == ["1m", "4m", "7m"] and v.pairs[0].tile == v.ctx.seat_wind_tile


#: De Kronkelende Slang (001:102): (chow, chow, pair) ranks beside the pungs of 1 and 9
WINDING_SNAKES = ((3, 6, 2), (2, 6, 5), (2, 5, 8))


def kronkelende_slang(v: "View") -> bool:
    """De Kronkelende Slang (001:102): pungs of 1 and 9 + chows 3-4-5, 6-7-8 + pair 2, or chows
    2-3-4, 6-7-8 + pair 5, or chows 2-3-4, 5-6-7 + pair 8; all of one suit (001-16 INFERRED)."""
    if v.d.shape != "standard" or len(v.suits) != 1 or v.has_honours or len(v.pairs) != 1:
        return False
    s = next(iter(v.suits))
    if sorted(m.tile for m in v.pungs) != sorted([f"1{s}", f"9{s}"]):
        return False
    chows = sorted(int(m.tile[0]) for m in v.chows)
    pair = int(v.pairs[0].tile[0])
    return any(chows == [a, b] and pair == p for a, b, p in WINDING_SNAKES)


def _doubled_in_hand(rule_id: str, opts: Mapping[str, Any]) -> bool:
    """Whether limit hand ``rule_id`` has "Geheel in de hand: 1x verdubbelen": every limit hand of
    001:62-100 says so; Hand of Heaven (001:58-60) does not, which option ``heaven_in_hand`` decides."""
    return rule_id != "heaven" or opts["heaven_in_hand"] == "yes"


def _limit_worth(rule_id: str, value: float, opts: Mapping[str, Any]) -> tuple[float, float]:
    """How limit hand ``rule_id`` worth ``value`` ranks when the in-hand doubling fired: its value doubled
    where it has the doubling (:func:`_doubled_in_hand`), then its value (the higher hand on a tie)."""
    return value * (2 if _doubled_in_hand(rule_id, opts) else 1), value


def special_hand_worth(line: "Line", result: "ScoredHand") -> float:
    """What limit hand ``line`` (a ``fixed``/``limit`` line of ``result``, counted or outranked) is worth as
    it would be counted, for the explanation's "also made" / "outranked" words (:func:`scoring.engine.explain`):
    its value doubled when the hand was played entirely in the hand (nothing exposed, self-drawn: as
    :func:`limit_in_hand`) and the hand has the doubling (:func:`_doubled_in_hand`; 001:21, RULINGS 001-11)."""
    hand = result.hand
    in_hand = hand.context.self_drawn and all(m.concealed for m in hand.melds)
    return _limit_worth(line.rule, line.fixed, result.options)[0] if in_hand else line.fixed


def limit_in_hand(v: "View") -> Any:
    """"Geheel in de hand: 1x verdubbelen" on a limit hand (001:21 "Bij limietspelen: 1x
    verdubbelen!", and each limit hand's line): the hand was played entirely in the hand up to
    and including the last tile — nothing exposed and self-drawn (INFERRED in the rendering).
    Doubles the Limit/Half Limit (RULINGS 001-11). Hand of Heaven states no such doubling:
    option ``heaven_in_hand``. Fires when a limit hand that has the doubling is made; whether it
    doubles the one that counts is :func:`_counted_limit`'s (in :func:`combine`), which also names it."""
    from ..engine import rule_fires

    if any(not m.concealed for m in v.hand.melds) or not v.ctx.self_drawn:
        return False
    names = [r.name for r in v.ruleset.rules
             if r.kind == "limit" and r.applies_to == "winner" and _doubled_in_hand(r.id, v.opts) and rule_fires(r, v)]
    return f"{names[0]} entirely in the hand" if names else False


def apply_exclusions(fired: list, opts: Mapping[str, Any]) -> list:
    """The engine's exclusions (:func:`scoring.engine.apply_exclusions`: the highest of each group, the
    first on a tie), with the limit hands' group chosen with the in-hand doubling: when the doubling
    fired, the limit hand worth most once doubled where it has the doubling (:func:`_doubled_in_hand`),
    the higher hand on a tie, is the one kept; the others are outranked. A tester's Seven Twins made
    on the first turn under ``heaven_in_hand=no`` lost to Heaven on the tie of their Limits (1000 each)
    before the doubling was weighed: 1000, where Seven Twins entirely in the hand is 2000 (001:21,
    001:58-60, 001:70-72; RULINGS 001-11)."""
    from ..engine import apply_exclusions as engine_exclusions, rule_value

    limits = [(r, f) for r, f in fired if r.kind == "limit" and r.group == "limit-hand"]
    if len(limits) > 1 and any(r.id == "limit-in-hand" for r, _ in fired):
        # (the first of the highest, as the engine's groups)
        best = max(limits, key=lambda item: _limit_worth(item[0].id, rule_value(item[0], item[1], opts), opts))
        fired = [(r, f) for r, f in fired if r.kind != "limit" or r.group != "limit-hand" or r is best[0]]
    return engine_exclusions(fired, opts)


def _counted_limit(lines: Sequence["Line"], ruleset: "Ruleset", view: "View") -> list["Line"]:
    """``lines`` with the limit hand that counts chosen with its in-hand doubling: of the limit hands
    made, the one worth most once doubled when it has the doubling (:func:`_doubled_in_hand`), the higher
    hand on a tie; the doubling line is dropped when that hand has none, and names it when it has.
    Only one special hand counts (the highest, :func:`scoring.engine.default_combine`, which takes the
    first of the highest: the counted one is put before the others; :func:`apply_exclusions` has
    chosen it already when the group held several); the line cites option ``heaven_in_hand`` only
    when Hand of Heaven is made. A tester's Snake 1 made on the
    first turn under ``heaven_in_hand=no`` had counted Heaven's 1000 doubled by Snake 1's doubling:
    2000, where either hand is worth 1000 (001:21, 001:58-60, 001:74-76; RULINGS 001-11)."""
    doubling = next((ln for ln in lines if ln.rule == "limit-in-hand"), None)
    limits = [ln for ln in lines if ln.kind in ("fixed", "limit")]
    if doubling is None or not limits:
        return list(lines)
    opts = view.opts
    best = max(limits, key=lambda ln: _limit_worth(ln.rule, ln.fixed, opts))
    if not _doubled_in_hand(best.rule, opts):
        kept = [ln for ln in lines if ln is not doubling]
    else:
        # (the option decides the line only when Hand of Heaven is among the hands made, counted or not)
        from ..engine import rule_fires

        heaven = any(ln.rule == "heaven" for ln in limits) or rule_fires(ruleset.rule("heaven"), view)
        # (cited with the counted hand's own "Geheel in de hand: 1x verdubbelen", the last line of its range,
        # beside 001:21: a referee's, the line had cited 001:21 alone whatever the hand; Heaven's lines state none)
        # (a claimed line an audit adds up has no source: cited as before)
        end = re.search(r"\.txt:(?:\d+-)?(\d+)$", best.source or "")
        own = end.group(1) if end and best.rule != "heaven" else ""
        named = replace(doubling, detail=f"{ruleset.rule(best.rule).name} entirely in the hand",
                        option=doubling.option if heaven else "",
                        source=f"{doubling.source}, {own}" if own else doubling.source)
        kept = [named if ln is doubling else ln for ln in lines]
    return [ln for ln in kept if ln.kind not in ("fixed", "limit") or ln is best] + \
        [ln for ln in kept if ln.kind in ("fixed", "limit") and ln is not best]


# ------------------------------------------------------------------------- waiting hand (001:52-54)
def _waiting_for(v: "View", ids: Sequence[str]) -> tuple[float, str, str] | None:
    """(limit fraction, hand name, tile) of the best limit hand in ``ids`` one tile completes."""
    from ..engine import best_completion

    hand = v.hand
    if hand.tile_count != 13 or "dead-hand" in hand.context.flags:
        return None
    return best_completion(v, [r for r in v.ruleset.rules if r.id in ids])


def waiting_irregular_limit(v: "View") -> Any:
    """A non-winner waiting for an irregular limit hand scores half of what its mahjong would
    have scored (001:54; who: non-winners, 001-10 a). Option ``waiting_limit_half`` (001-10):
    ``reward`` = half the Limit / Half Limit; ``with-in-hand-doubling`` = half of the doubled
    value (as if won entirely in the hand)."""
    from ..engine import Fired

    best = _waiting_for(v, IRREGULAR_LIMIT)
    if best is None:
        return False
    value, name, tile = best
    factor = 2 if v.opts["waiting_limit_half"] == "with-in-hand-doubling" else 1
    return Fired(1, (f"waiting for {name} on {tile}",), value * factor * 0.5)


def waiting_regular_limit(v: "View") -> Any:
    """A non-winner waiting for a regular limit hand gets no bonus: his sets count normally (001:54)."""
    if _waiting_for(v, IRREGULAR_LIMIT) is not None:
        return False
    best = _waiting_for(v, REGULAR_LIMIT)
    return best is not None and f"waiting for {best[1]} on {best[2]}: no bonus, counted normally"


# ------------------------------------------------------------------------- dead hand (001:106-108)
def dead_hand(v: "View", more: bool) -> Any:
    """De Dode Hand (001:108), flag ``dead-hand``: more than 13 tiles (``more``) — no points, still
    settles (a zero-score loser, 001-13 INFERRED); fewer — the combinations made still count, but
    no mahjong: as a non-winner's hand, or their points only under option ``dead_hand_score=points-only``
    (:func:`_dead_hand_lines`). Tiles counted with a kong as 3 (001-13 INFERRED)."""
    if "dead-hand" not in v.ctx.flags:
        return False
    n = v.hand.tile_count
    if more and n > 13:
        return f"dead hand, {n} tiles: records no points, still settles"
    if not more and n < 13:
        counted = ("their points only, no doublings" if v.opts["dead_hand_score"] == "points-only"
                   else "as a non-winner's, doublings included")
        return f"dead hand, {n} tiles: the combinations made count ({counted}), no mahjong"
    return False


# ------------------------------------------------------------------------- hooks
def check_context_flags(ctx: Context, ruleset: "Ruleset") -> None:
    """The flags checked without a hand that are this ruleset's own (:func:`scoring.engine.check_context_flags`,
    after :data:`WIN_FLAGS`' checks, before :func:`check_hand`, and before a photo is read). Raises
    :class:`HandError` for ``dead-hand`` given for a winner (001:108: a dead hand cannot make mahjong),
    ``dealt-waiting`` without an announced wait (001:13), and ``flower-replacement`` with ``kong_on_kong``
    (the loose tile is one: a flower's, or the second kong's, 002:56)."""
    if "flower-replacement" in ctx.flags and ctx.kong_on_kong:
        # (a seed auditor's hand flagged both was scored Kong op kong and Kong met de Bloeiende Bloemen)
        raise CircumstanceError("flag flower-replacement says the winning tile replaced a flower, and kong on kong "
                                "says it replaced a second kong: say one of them")
    if "dead-hand" in ctx.flags and ctx.winner:
        # (no photo of a dead hand reads legal as a winner's: refused before it is read, as its notation is)
        raise HandError(f"a dead hand cannot make mahjong (001:108): {DEAD_WINNER_HINT}")
    if "dealt-waiting" in ctx.flags and not ctx.announced_wait:
        raise HandError("flag dealt-waiting (De Gelukkige Dertien, 001:13) needs --announced-wait: "
                        "the waiting hand must be announced")


def check_hand(hand: Hand, ruleset: "Ruleset", options: Mapping[str, Any]) -> None:
    """Tile count and flags (what the context alone contradicts is checked first, by
    :func:`scoring.engine.check_context_flags`: ``flower-replacement`` without a win by dead-wall
    (:data:`WIN_FLAGS`), a dead hand scored as a winner's, ``dealt-waiting`` without an announced wait). A hand
    flagged ``dead-hand`` may have any count but 13 (001:108); ``flower-replacement`` needs a flower or season in
    the hand. Raises :class:`HandError`."""
    ctx = hand.context
    unknown = sorted(ctx.flags - FLAGS)
    if unknown:
        raise HandError(f"unknown flag {', '.join(unknown)} for ruleset rode-draak "
                        f"(flags: {', '.join(sorted(FLAGS))})")
    if "flower-replacement" in ctx.flags and not hand.bonus:  # (a test had scored one; a reviewer)
        raise HandError("flag flower-replacement says the winning tile replaced a flower, and the hand shows no "
                        "flower or season: name it in the hand (+1f), or leave the flag out")
    if "dead-hand" in ctx.flags:
        if hand.tile_count == 13:
            raise HandError("flag dead-hand needs more or fewer than 13 tiles (001:108); "
                            "this hand has 13 (each meld on the table counts 3)")
    else:
        try:
            check_size(hand, (ruleset.hand_size,))
        except HandError as e:
            raise HandError(f"{e}{DEAD_HAND_SUGGESTION}") from None


#: NTS options inherited (base = "nts") that no rule or hook of rode-draak reads, and why (rode_draak.toml header)
INERT_OPTIONS = {
    "fixed_hands": (f"the NTS fixed-value hands are removed or are 001's limit hands, and a limit hand scores its "
                    f"Limit / Half Limit: its own tiles 'leveren geen punten of verdubbelingen meer op' ({SEED}:46), "
                    f"and {LIMIT_ALONE}"),
    "closed_waiting_half": f"NTS's closed-hand waiting rule is replaced by 001's waiting hand ({SEED}:52-54)",
    "twins_four_alike": f"the NTS twins are removed; De Zeven Tweelingen reads seven_twins_four_alike ({SEED}:72, 001-12)",
    "misplaced_hands": (f"the NTS hands it places are removed (Vier dichte kongs) or are 001's limit hands "
                        f"(Het Spel van de Hemel, {SEED}:58-60)"),
}


def notes_for(hand: Hand, opts: Mapping[str, Any]) -> list[str]:
    """Notes shown with the score (:func:`scoring.engine.explain`): NTS's note on unscored flowers/seasons
    (:func:`scoring.rulesets.nts.unscored_bonus_note`: 001 scores none, it names them only in Kong met de
    Bloeiende Bloemen, 001:9, 001-05, so they are NTS's, absent under bonus_tiles=off, 002-03; the engine
    reads only this module's hook, and the note had never shown here); then each inherited NTS option of
    :data:`INERT_OPTIONS` set to other than its default, with why it changes nothing here (a referee's
    ``-o fixed_hands=best`` on Het Spel van de Rode Draak had been listed under options without a word,
    the total the Half Limit 500 all the same, 001:46, 001:88-90). ``opts``: the resolved options."""
    from ..engine import load_ruleset, option_text

    rs = load_ruleset("rode-draak")
    return unscored_bonus_note(hand, opts, "rode-draak (001 scores none; it plays on NTS's tables)") + [
        f"option {name}={option_text(opts[name])} has no effect under rode-draak: {why}"
        for name, why in INERT_OPTIONS.items()
        if name in opts and name in rs.options and opts[name] != rs.options[name].default]


def combine(lines: Sequence["Line"], ruleset: "Ruleset", view: "View") -> "Totals":
    """Totals of one reading without a cap on ordinary hands ("zonder een echte limiet", 001:46;
    RULINGS 001-11); a limit hand is its Limit/Half Limit (× 2 entirely in the hand). A non-winner's
    waiting-hand half (001:54) counts only when it beats his normal count (RULINGS principle 5)."""
    from ..engine import default_combine

    uncapped = replace(ruleset, limit=None)
    lines = _dead_hand_lines(lines, view.opts)
    if any(ln.kind in ("fixed", "limit") for ln in lines):  # no entry note on a limit hand
        lines = _counted_limit([ln for ln in lines if ln.rule != "entry-clean"], ruleset, view)
        if view.opts["limit_extras"] == "win-doublings":  # (001-18: how it was won doubles the Limit too)
            lines = [replace(ln, with_fixed=True, option=f"{ln.option}; limit_extras=win-doublings, 001-18"
                             if ln.option else "option limit_extras=win-doublings, 001-18")
                     if ln.rule in WIN_DOUBLINGS and ln.kind == "doublings" else ln for ln in lines]
    total = default_combine(lines, uncapped, view)
    if view.winner or not any(ln.rule == WAITING_RULE for ln in lines):
        return total
    normal = default_combine([ln for ln in lines if ln.rule != WAITING_RULE], uncapped, view)
    return normal if normal.total > total.total else total


def _dead_hand_lines(lines: Sequence["Line"], opts: Mapping[str, Any]) -> Sequence["Line"]:
    """A dead hand of fewer than 13 tiles under option ``dead_hand_score=points-only`` (001:108: "punten
    noteren voor de gemaakte combinaties", 001:46 telling points from doublings): its doubling lines become notes
    that say they are not counted, so the total is the combinations' points; ``lines`` unchanged otherwise."""
    if opts["dead_hand_score"] != "points-only" or not any(ln.rule == "dead-hand-fewer" for ln in lines):
        return lines
    why = "not counted on a dead hand: its combinations score points only"
    return [replace(ln, kind="note", doublings=0, detail=f"{ln.detail}; {why}" if ln.detail else why,
                    option=f"{ln.option}; dead_hand_score=points-only" if ln.option else
                    "option dead_hand_score=points-only")
            if ln.kind == "doublings" else ln for ln in lines]


def _is_limit(lines: Sequence["Line"]) -> bool:
    return any(ln.kind in ("fixed", "limit") for ln in lines)


def _hand_clean(hand: Hand) -> bool:
    """Clean (RULINGS shared definitions): the playing tiles hold exactly one suit (honours allowed)."""
    return len({t[1] for t in hand.all_tiles if t[1] in SUITS}) == 1


def _doublings_ok(lines: Sequence["Line"], doublings: int, opts: Mapping[str, Any]) -> bool:
    if opts["entry_doublings"] == "single-item":  # one item worth 2+, not one item fired twice
        return any(ln.kind == "doublings" and ln.value >= 2 for ln in lines)
    return doublings >= 2


def _entry_ok(lines: Sequence["Line"], doublings: int, opts: Mapping[str, Any], clean: bool = False) -> bool:
    """The entry rule (001:1): clean, or 2 doublings (option ``entry_doublings``); a limit hand is
    let through without either under option ``limit_entry=waived`` (the default)."""
    if _is_limit(lines) and opts["limit_entry"] == "waived":
        return True  # a limit hand is a special winning hand of its own (001:44-102)
    if clean or any(ln.rule == "entry-clean" for ln in lines):
        return True
    return _doublings_ok(lines, doublings, opts)


def _limit_entry_line(result: "ScoredHand", ruleset: "Ruleset", opts: Mapping[str, Any], clean: bool) -> "Line":
    """The explanation line of the entry rule on a winning limit hand: met (clean: rule ``entry-clean``; 2
    doublings: ``entry-doublings``) or waived by option ``limit_entry=waived`` (rule ``entry-limit-hand``,
    001:42-46) — the line names the option (RULINGS principle 3)."""
    from ..engine import make_line, option_text
    from ..fired import Fired

    dbl = f"{result.doublings} doubling{'' if result.doublings == 1 else 's'}"
    if clean:
        rule_id, detail = "entry-clean", "limit hand, clean: the entry rule is met"
    elif _doublings_ok(result.lines, result.doublings, opts):
        rule_id, detail = "entry-doublings", f"limit hand with {dbl}: the entry rule is met"
    else:
        # (its own rule: the "Schoon spel" rule entry-clean had been shown on a limit hand it said was not clean)
        rule_id, detail = "entry-limit-hand", f"limit hand, not clean, {dbl}: the entry rule is waived for limit hands"
    rule = ruleset.rule(rule_id)
    label = (f"option limit_entry={option_text(opts['limit_entry'])}, 001-03; "
             f"entry_doublings={option_text(opts['entry_doublings'])}, 001-03")
    return make_line(rule, Fired(details=(detail,)), ruleset, opts, label=label)


def _doublings_entry_line(lines: Sequence["Line"], doublings: int, ruleset: "Ruleset",
                          opts: Mapping[str, Any]) -> "Line":
    """The explanation line of the entry rule (001:1) on a winning hand that is not clean and was let
    through by its doublings (RULINGS 001-03, option ``entry_doublings``): which doublings, and the condition
    met — the line names the option (RULINGS principle 3). A note (worth nothing: audit needs no claim of it)."""
    from ..engine import make_line, option_text
    from ..fired import Fired

    # (its own rule: the "Schoon spel" rule entry-clean had been shown on this hand, which is not clean)
    rule = ruleset.rule("entry-doublings")
    names = {r.id: r.name for r in ruleset.rules}
    items = ", ".join(f"{names.get(ln.rule, ln.name)} {ln.amount().strip()}" for ln in lines
                      if ln.kind == "doublings" and ln.value)
    single = opts["entry_doublings"] == "single-item"
    detail = (f"not clean, {doublings} doubling{'' if doublings == 1 else 's'} ({items}): mahjong allowed with "
              + ("2 doublings from one item" if single else "at least 2 doublings in total"))
    label = f"option entry_doublings={option_text(opts['entry_doublings'])}, 001-03"
    return make_line(rule, Fired(details=(detail,)), ruleset, opts, label=label)


def finalize(result: "ScoredHand", ruleset: "Ruleset", options: Mapping[str, Any]) -> "ScoredHand":
    """Dead hand with more than 13 tiles: no points (001:108). A winner: the entry rule (001:1,
    RULINGS 001-03) — clean, a limit hand, or 2 doublings (option ``entry_doublings``; a hand let through
    by its doublings gets an entry-rule note line naming them, :func:`_doublings_entry_line`); the best
    allowed reading is kept, and when none is allowed the result says "mahjong not allowed: …"
    with total 0 (the reading it would have scored stays in the lines)."""
    from ..decompose import decompositions
    from ..engine import score_decomposition

    if any(ln.rule == "dead-hand-more" for ln in result.lines):
        note = next(ln for ln in result.lines if ln.rule == "dead-hand-more")
        return replace(result, total=0, points=0, doublings=0, lines=(note,), status=f"{SEED}:108 {note.detail}")
    if not result.hand.context.winner:
        return result
    clean = _hand_clean(result.hand)
    if _entry_ok(result.lines, result.doublings, options, clean):
        if _is_limit(result.lines):  # say whether the entry rule was met or waived (option limit_entry)
            notes = result.notes
            if result.hand.bonus and options["bonus_tiles"] != "off":
                # (scored under bonus_tiles, they vanished from a limit hand without a word: a seed auditor's)
                notes += (f"flowers/seasons {' '.join(result.hand.bonus)} are not scored on a limit hand: "
                          f"{LIMIT_ALONE}",)
            return replace(result, lines=result.lines + (_limit_entry_line(result, ruleset, options, clean),),
                           notes=notes)
        if not any(ln.rule == "entry-clean" for ln in result.lines):
            # (the status alone had not reached the explanation: a referee saw no entry-rule line at all)
            line = _doublings_entry_line(result.lines, result.doublings, ruleset, options)
            return replace(result, lines=result.lines + (line,),
                           status=f"mahjong allowed: {result.doublings} doublings, not clean ({SEED}:1)")
        return result
    hand = result.hand
    best = None
    for d in decompositions(hand, ruleset.shapes):
        totals, valid = score_decomposition(hand, d, ruleset, options)
        if valid and _entry_ok(totals.lines, totals.doublings, options, clean):
            if best is None or totals.total > best[0].total:
                best = (totals, d)
    if best is not None:
        t, d = best
        return replace(result, total=t.total, points=t.points, doublings=t.doublings,
                       lines=tuple(t.lines) + (_doublings_entry_line(t.lines, t.doublings, ruleset, options),),
                       decomposition=d, alternatives=(), cash=t.cash, limit_applied=t.limit_applied,
                       outranked=t.outranked, not_added=t.not_added,
                       status=f"mahjong allowed: {t.doublings} doublings, not clean ({SEED}:1)")
    rule = ("at least 2 doublings from one item" if options["entry_doublings"] == "single-item"
            else "at least 2 doublings in total")
    what = "limit hand" if _is_limit(result.lines) else "hand"
    extra = (", a limit hand included (option limit_entry=required, 001-03)"
             if _is_limit(result.lines) else "")
    reason = (f"mahjong not allowed: the {what} is not clean and has {result.doublings} doubling"
              f"{'' if result.doublings == 1 else 's'}; De Rode Draak needs a clean hand or {rule}{extra} "
              f"({SEED}:1, option entry_doublings={options['entry_doublings']}, 001-03); "
              f"it would have scored {result.total}")
    return replace(result, total=0, allowed=False, status=reason)
