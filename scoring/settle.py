"""Table settlement: who pays whom after a hand, under a ruleset's settlement scheme.

Players are named by free labels (usually their seat winds ``E S W N`` or names); the caller says
which one won (or None for a void hand) and which one is East (the dealer). A scheme is a function
``scheme(scores, winner, east, options) -> Settlement`` registered in :data:`SCHEMES` under a name;
a ruleset names its scheme with ``settlement = "…"`` in its TOML file, or its module defines
``settle(scores, winner, east, options)``. Every :class:`Settlement` checks that the nets sum to 0.

Schemes defined here: ``rode-draak`` (seed 001 lines 25–40, used by ``rode-draak``,
``dutch-special-hands`` and ``nts``). Other rulesets register theirs from their own module.
Players are free labels (names or the seat letters of the first hand of a session); which one is
East for this hand is a separate argument, so the labels need not be the current seat winds.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, Callable, Iterable, Mapping

from .engine import keyed_options, load_ruleset, option_key
from .errors import RulesetError, echo
from .hand import MAX_DEALER_STREAK
from .notation import whole_number_value
from .results import dollars
from .tiles import wind_letter


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``amount`` (a whole number of points) to ``payee``, with the reason."""

    payer: str
    payee: str
    amount: int
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"payer": self.payer, "payee": self.payee, "amount": self.amount, "reason": self.reason}


@dataclass(frozen=True)
class Settlement:
    """Each player's net (positive = receives) and the transfers that make it; sums to zero.

    Raises ValueError on construction when the nets do not sum to 0 or disagree with the transfers.
    """

    ruleset: str
    scheme: str
    net: Mapping[str, int]
    transfers: tuple[Transfer, ...]
    notes: tuple[str, ...] = field(default=())
    cash: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if sum(self.net.values()) != 0:
            raise ValueError(f"settlement does not sum to zero: {dict(self.net)}")
        check = {p: 0 for p in self.net}
        for t in self.transfers:
            check[t.payer] -= t.amount
            check[t.payee] += t.amount
        if check != dict(self.net):
            raise ValueError(f"transfers {check} disagree with nets {dict(self.net)}")

    def to_json(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "scheme": self.scheme, "net": dict(self.net),
                "transfers": [t.to_json() for t in self.transfers], "notes": list(self.notes),
                "cash": dict(self.cash)}

    def paid(self) -> dict[str, int]:
        """Each player's points paid out in :attr:`transfers` (player → sum, 0 when none; every player of
        :attr:`net`): what a batch's settlement writes beside ``net`` (``net`` = :meth:`received` − this)."""
        out = {p: 0 for p in self.net}
        for t in self.transfers:
            out[t.payer] += t.amount
        return out

    def received(self) -> dict[str, int]:
        """Each player's points received in :attr:`transfers` (player → sum, 0 when none; every player of
        :attr:`net`)."""
        out = {p: 0 for p in self.net}
        for t in self.transfers:
            out[t.payee] += t.amount
        return out


def player_label(text: str) -> str:
    """A player's label as typed, stripped and in Unicode's composed form (NFC): ``Zoë`` typed as one character or
    as ``e`` and a combining accent is one player. Raises ValueError for a label holding a control character (an
    escape sequence printed raw to a terminal) or an invisible format character (a right-to-left override that
    shows "Ann pays Bob 200" as "Ann pays 002 boB", a zero-width space that makes "Ann" two players): the command
    line's ``settle``/``table`` and ``/api/settle`` read labels with it (a tester's)."""
    label = unicodedata.normalize("NFC", text.strip())
    bad = next((c for c in label if unicodedata.category(c) in ("Cc", "Cf")), None)
    if bad is not None:
        kind = "control" if unicodedata.category(bad) == "Cc" else "invisible"
        raise ValueError(f"player label {label!r} holds the {kind} character U+{ord(bad):04X}; give the player a "
                         f"plain label")
    return label


def from_transfers(ruleset: str, scheme: str, players, transfers, notes=(), cash=None) -> Settlement:
    """Build a :class:`Settlement` whose nets are the sums of ``transfers`` (zero-amount ones dropped)."""
    net = {p: 0 for p in players}
    kept = []
    for t in transfers:
        if t.amount == 0:
            continue
        if t.amount < 0:
            t = Transfer(t.payee, t.payer, -t.amount, t.reason)
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
        kept.append(t)
    # (cash to the cent: a tester's cash=E:0.1,S:0.2 was written 0.10000000000000003 and -0.30000000000000004 in the
    # settlements file's cash column, the one summed in a spreadsheet)
    return Settlement(ruleset, scheme, net, tuple(kept), tuple(notes), {p: _cents(v) for p, v in (cash or {}).items()})


def _cents(value: float) -> float:
    """``value`` dollars to the cent (a whole number of dollars as an int, as the cash was given: ``15``)."""
    v = round(float(value), 2) + 0.0
    return int(v) if v.is_integer() else v


def with_win_by(ruleset_id: str, options: Mapping[str, Any] | None, win_by: str,
                scored: bool = True) -> dict[str, Any]:
    """The settlement options of a table whose winner won by ``win_by`` (``scoring.hand.WIN_BY``:
    discard, wall, dead-wall, robbed-kong): a scheme that pays by where the winning tile came from (one
    whose ruleset lists ``win_by`` in ``SETTLE_KEYS``: hk-tw-16, RULINGS 004-01) gets it unless the
    options give it; elsewhere the options are returned as they are. Raises RulesetError when the options
    give another ``win_by`` than the hand was scored with (scored self-drawn, settled as a discard win;
    the options' ``win_by`` read in any case, as the scheme reads it); ``scored`` False: ``win_by`` was said
    of a winner given by a score alone."""

    out = dict(options or {})
    if "win_by" not in getattr(load_ruleset(ruleset_id).module, "SETTLE_KEYS", ()):
        return out
    kind = {"wall": "self-drawn", "dead-wall": "self-drawn"}
    said = str(out.get("win_by", "")).strip().lower()  # (a choice in any case: win_by=Self-Drawn)
    if "win_by" in out and kind.get(said, said) != kind.get(win_by, win_by):
        raise RulesetError(f"settle option win_by={out['win_by']} disagrees with the winner's win by {win_by} "
                           + ("(the hand was scored so)" if scored else "(given with the winner's score)")
                           + "; give one of them")
    out.setdefault("win_by", win_by)
    return out


def refused_win_text(winner: str, status: str | None, ruleset_id: str | None = None,
                     void: str = "--winner none") -> str:
    """Why a hand whose winner's mahjong the ruleset does not allow (``status``: the scored hand's refusal, e.g.
    rode-draak's entry rule, 001:1) is not settled, in the words `table`, ``/api/settle`` and a batch's
    settlement all say it; with ``ruleset_id``, what to do next where the ruleset's module says it
    (``FALSE_MAHJONG``, a text with ``{void}``: rode-draak's false mahjong, 001:118-120), ``void`` being
    the front end's words for a hand with no winner (``--winner none``; the web's ``winner null``; a batch's
    ``vision.batch_outputs.void_hand_words``).
    Raises RulesetError for an unknown ruleset."""
    text = f"{winner}'s mahjong cannot be settled: {status or 'mahjong not allowed'}"
    then = getattr(load_ruleset(ruleset_id).module, "FALSE_MAHJONG", None) if ruleset_id else None
    return f"{text}; {then.format(void=void)}" if then else text


#: the most a settlement count may be (:func:`settle_whole_number`): the dealer streak as a hand is scored with it
#: (``Context.dealer_streak``; hk-tw-16 連莊, 004:2)
SETTLE_WHOLE_NUMBER_MOST = {"dealer_streak": MAX_DEALER_STREAK}


def settle_whole_number(key: str, raw: Any) -> int:
    """``raw``, a value given for the settlement option ``key`` that is a count (hk-tw-16's ``dealer_streak``,
    連莊 004:2: its module's ``SETTLE_WHOLE_NUMBERS``), as an int: an int, or ASCII digits with spaces around
    them (``02`` is 2: :func:`scoring.notation.whole_number_value`; ``int()`` alone takes ``1_0`` and other
    scripts' digits), at most :data:`SETTLE_WHOLE_NUMBER_MOST` of ``key`` (``dealer_streak`` 0 to
    ``scoring.hand.MAX_DEALER_STREAK``, 99, as a hand is scored with it: the one check of ``settle -o``,
    ``table --settle-option`` and ``/api/settle``). Raises :class:`RulesetError` ("settle option dealer_streak
    must be a whole number ≥ 0, not 'x'") for anything else: a bool, a negative number, a word, a fraction;
    and ("settle option dealer_streak must be 0 to 99, not '100'") for a count over its most."""
    n = whole_number_value(raw)
    if n is None or n < 0:
        raise RulesetError(f"settle option {key} must be a whole number ≥ 0, not {raw!r}")
    most = SETTLE_WHOLE_NUMBER_MOST.get(key)
    if most is not None and n > most:
        # (`settle -o dealer_streak=100000000000000000000` under dealer_streak_points=per-deal had the dealer pay
        # 200000000000000000012, where `table` and /api/settle refused it)
        raise RulesetError(f"settle option {key} must be 0 to {most}, not {echo(str(raw))}")
    return n


def same_settle_value(ruleset_id: str, key: str, a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b``, two values given for the settlement option ``key`` of ``ruleset_id``'s
    scheme, mean the same as the scheme reads them: a word of the scheme's own (its module's
    ``SETTLE_CHOICES``: hk-tw-16's ``win_by``) in any case, a ruleset option the scheme reads (hk-tw-16's
    ``cash_from``, swedish's ``fine_remainder``) as :meth:`scoring.engine.Ruleset.same_value` reads it, a
    count of the scheme's (its module's ``SETTLE_WHOLE_NUMBERS``: hk-tw-16's ``dealer_streak``) as a number
    (``2`` and ``02``: :func:`settle_whole_number`), any other value (a player's label, ``cash``, ``totals``)
    as the same text: players are matched as typed. Raises RulesetError for an unknown ruleset, and
    :func:`settle_whole_number`'s for a count that is not a whole number ≥ 0."""
    rs = load_ruleset(ruleset_id)
    key = option_key(key)
    if key in getattr(rs.module, "SETTLE_CHOICES", {}):
        return str(a).strip().lower() == str(b).strip().lower()
    if key in getattr(rs.module, "SETTLE_WHOLE_NUMBERS", ()):
        return settle_whole_number(key, a) == settle_whole_number(key, b)
    if key in rs.options:
        return rs.same_value(key, a, b)
    return str(a) == str(b)


def keyed_settle_options(ruleset_id: str, options: Mapping[str, Any] | Iterable[tuple[str, Any]],
                         what: str = "settle option") -> dict[str, Any]:
    """``options`` given for ``ruleset_id``'s settlement scheme keyed by :func:`scoring.engine.keyed_options`
    (names in any case, ``-`` or ``_``; ``what`` names their kind in a message), one given twice with values
    that mean the same to the scheme (:func:`same_settle_value`) taken once. Raises RulesetError for one given
    twice with values that differ, and :func:`same_settle_value`'s."""
    return keyed_options(options, what, same=lambda k, a, b: same_settle_value(ruleset_id, k, a, b))


def table_options(ruleset_id: str, scoring: Mapping[str, Any] | None,
                  settling: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """One table's options, one value per table fact: the ruleset options that ``ruleset_id``'s settlement
    scheme also reads (its module's ``SETTLE_OPTIONS`` that are ruleset options: hk-tw-16's ``dealer_point``,
    ``dealer_streak_points``, ``cash_from``, 004-15/004-32) given for scoring only (``scoring``: ``table -o``,
    the web's ``options``, a batch row's options) are the settlement's too, and given for the settlement only
    (``settling``: ``--settle-option``, ``settle_options``) the hands' scoring's too; names in any case, ``-``
    or ``_``. Returns (scoring options, settlement options), new dicts, the others as given. Raises
    :class:`RulesetError` when one is given to both with values that differ (:func:`same_settle_value`):
    "option dealer_streak_points is given as flat for scoring and per-deal for the settlement: a table has one
    value; give it once"; and for an unknown ruleset."""
    rs = load_ruleset(ruleset_id)
    scoring, settling = dict(scoring or {}), dict(settling or {})
    shared = [k for k in getattr(rs.module, "SETTLE_OPTIONS", ()) if k in rs.options]
    for key in shared:
        mine = [(n, v) for n, v in scoring.items() if option_key(n) == key]
        theirs = [(n, v) for n, v in settling.items() if option_key(n) == key]
        if mine and theirs:
            a, b = mine[0][1], theirs[0][1]
            if not same_settle_value(rs.id, key, a, b):
                raise RulesetError(f"option {key} is given as {echo(str(a))} for scoring and {echo(str(b))} for the "
                                   f"settlement: a table has one value; give it once")
        elif mine:
            settling[key] = mine[0][1]
        elif theirs:
            scoring[key] = theirs[0][1]
    return scoring, settling


def dealer_streak_of(ruleset_id: str, settling: Mapping[str, Any] | None) -> int:
    """The dealer streak (連莊, seed 004 line 2: deals the dealer kept before this hand) that a table's
    settlement options give (``dealer_streak``, named in any case), for a scheme that takes it (its module's
    ``SETTLE_WHOLE_NUMBERS``: hk-tw-16); 0 when not given or for another scheme (whose settlement then refuses
    the option as it did). The one value of a table: its dealer's hand is scored with it (``Context.
    dealer_streak``) and its payments read it (hk-tw-16 ``dealer_point=any-dealer-payment``). Raises
    :class:`RulesetError` for a count that is not a whole number 0 to ``scoring.hand.MAX_DEALER_STREAK``
    (:func:`settle_whole_number`)."""
    rs = load_ruleset(ruleset_id)
    if "dealer_streak" not in getattr(rs.module, "SETTLE_WHOLE_NUMBERS", ()):
        return 0
    given = [v for n, v in (settling or {}).items() if option_key(n) == "dealer_streak"]
    if not given:
        return 0
    return settle_whole_number("dealer_streak", given[0])


def settle_option_given_for_scoring(ruleset_id: str, options: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The first of ``options`` (ruleset options for scoring, named in any case) that ``ruleset_id`` does
    not have but its settlement scheme takes (its module's ``SETTLE_OPTIONS``: hk-tw-16's ``discarder``,
    swedish's ``totals``), as (its name as the scheme spells it, its value); else None. A table's caller
    says where to give it (``table --settle-option``, ``/api/settle``'s ``settle_options``). Raises
    RulesetError for an unknown ruleset."""
    rs = load_ruleset(ruleset_id)
    scheme = getattr(rs.module, "SETTLE_OPTIONS", ())
    for name, value in options.items():
        key = option_key(name)
        if key not in rs.options and key in scheme:
            return key, value
    return None


Scheme = Callable[[Mapping[str, int], "str | None", str, Mapping[str, Any]], Settlement]
#: scheme name → function; rulesets register theirs with :func:`register_scheme`
SCHEMES: dict[str, Scheme] = {}


def register_scheme(name: str, fn: Scheme) -> Scheme:
    """Register a settlement scheme under ``name`` (usable as a decorator helper)."""
    SCHEMES[name] = fn
    return fn


def copies_in_a_set(tile: str) -> int:
    """How many of ``tile`` a set holds: 4 of each playing tile, 1 of each flower and season."""
    from .tiles import BONUS

    return 1 if tile in BONUS else 4


def tiles_over_the_set(hands: Mapping[str, Any]) -> list[tuple[str, dict[str, int]]]:
    """The tiles that ``hands`` (player → :class:`scoring.Hand`), the four hands of one deal, hold more
    of than a set has: 4 of each playing tile (a kong's 4 counted; the winning tile once, among the
    winner's concealed tiles), 1 of each flower and season; each with how many each player holds, in the
    players' order. A referee's check of a table: more is a misread photo or a mistyped hand."""
    from .tiles import sort_tiles

    held: dict[str, dict[str, int]] = {}
    for p, h in hands.items():
        for t in (*h.all_tiles, *h.bonus):
            held.setdefault(t, {})
            held[t][p] = held[t].get(p, 0) + 1
    return [(t, held[t]) for t in sort_tiles(held) if sum(held[t].values()) > copies_in_a_set(t)]


def over_the_set_text(tile: str, held: Mapping[str, int]) -> str:
    """``"the hands hold 5 × 6z (E 1, N 4), a set has 4"``: one tile of :func:`tiles_over_the_set`."""
    return (f"the hands hold {sum(held.values())} × {tile} ({', '.join(f'{p} {n}' for p, n in held.items())})"
            f", a set has {copies_in_a_set(tile)}")


@dataclass(frozen=True)
class HandCash:
    """What :func:`with_cash` reads of a scored hand, for a caller that holds no :class:`scoring.ScoredHand`:
    its ``cash`` (``ScoredHand.cash``: the hand's cash lines, 暗槓 $5, 台花 $5, 台草 $3, 004:42–43) and the
    ruleset ``options`` it was scored with (``cash_from``). A batch row's, read from its stored breakdown
    (:func:`vision.batch_outputs.breakdown_cash_lines`)."""

    cash: float = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the cash lines that make ``cash`` (each rule once), for the note of a ``cash`` given that replaces them
    #: (:func:`cash_replaced_note`); a :class:`scoring.ScoredHand`'s are its ``lines`` of kind ``cash``
    lines: tuple["CashLine", ...] = ()


@dataclass(frozen=True)
class CashLine:
    """One cash line of a hand (a :class:`scoring.results.Line` of kind ``cash`` as a batch row's breakdown keeps
    it): the rule's id and name (``concealed-kong-cash``, 暗槓), its dollars (count in) and count."""

    rule: str
    name: str
    cash: float
    count: int = 1
    kind: str = "cash"


def cash_lines_once(lines: Iterable[Any] | None) -> list[Any]:
    """The cash lines (``kind`` cash) of a scored hand's ``lines``, each rule's first only: a
    :class:`scoring.results.Line` or a batch row's stored breakdown line (a mapping with ``kind`` and ``rule``).
    A rule has one line per reading; a 兩吃 hand (004:47, option double_win=two-hands) lists both readings'
    lines, its cash that of one reading (台花 "Collect ONE time", 004:43), as ``ScoredHand.cash`` counts it.
    The one reading of :func:`cash_replaced_note` and :func:`vision.batch_outputs.breakdown_cash_lines`."""
    seen: set[Any] = set()
    out = []
    for ln in lines or ():
        get = ln.get if isinstance(ln, Mapping) else lambda k, _ln=ln: getattr(_ln, k, None)
        if get("kind") != "cash" or get("rule") in seen:
            continue
        seen.add(get("rule"))
        out.append(ln)
    return out


def _hand_cash_lines(hand: Any) -> list[Any]:
    """A scored hand's cash lines, each rule's first only (:func:`cash_lines_once`)."""
    return cash_lines_once(getattr(hand, "lines", None))


def cash_replaced_note(ruleset_id: str, options: Mapping[str, Any] | None, scored: Mapping[str, Any] | None,
                       players: Iterable[str] | None = None) -> str | None:
    """When the settlement ``options`` of ``ruleset_id`` give a ``cash`` that replaces the cash the hands
    ``scored`` show (player → :class:`scoring.ScoredHand` or :class:`HandCash`, as given to :func:`with_cash`),
    the note that says what was replaced: ``"cash given replaces the hands' own: Ann $5 concealed kong (暗槓)"``;
    None when no cash is given, the hands show none, or the cash given is theirs (player by player). The cash
    given is read by the scheme's own ``parse_cash`` hook (hk-tw-16's) for the table's ``players`` (default: the
    players of ``scored``); one it refuses gets no note (the settlement refuses it in its words)."""
    if not options or "cash" not in options or not scored:
        return None
    own = {p: h for p, h in scored.items() if getattr(h, "cash", 0)}
    if not own:
        return None
    parse = load_ruleset(ruleset_id).hook("parse_cash")
    try:
        given = parse(options["cash"], list(scored if players is None else players)) if parse else None
    except RulesetError:
        given = None
    if given is None or {p: a for p, a in given.items() if a} == {p: float(h.cash) for p, h in own.items()}:
        return None
    said = []
    for p, h in own.items():
        lines = _hand_cash_lines(h)
        if not lines:
            said.append(f"{p} {dollars(float(h.cash))}")
            continue
        words = []
        for ln in lines:
            what = ln.rule.removesuffix("-cash").replace("-", " ")
            name = ln.name.split(" — ")[0]  # (a scored hand's line is named "暗槓 — concealed kong: cash, each")
            # (a line's dollars hold its count: two kongs are "$10 concealed kong (暗槓, 2 × $5)", not "×2")
            each = f", {ln.count} × {dollars(float(ln.cash) / ln.count)}" if ln.count > 1 else ""
            words.append(f"{dollars(float(ln.cash))} {what} ({name}{each})")
        said.append(f"{p} " + " and ".join(words))
    return "cash given replaces the hands' own: " + "; ".join(said)


def with_cash(ruleset_id: str, options: Mapping[str, Any], scored: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` of ``ruleset_id``'s settlement with its ``cash`` option (a scheme that settles cash
    apart from points: hk-tw-16's 暗槓 $5, 台花 $5, 台草 $3, 004:42–43) filled in from the hands scored
    (player → :class:`scoring.ScoredHand`, or a :class:`HandCash`): each player's cash collected. Options
    that give ``cash`` already, or a scheme without it, are returned as they are: a ``cash`` given replaces
    the hands' own, it is not added to it (a tester's table of a hand reporting "cash: $10" was settled with
    no cash). The one reading of `table`, ``/api/settle`` and a batch's table hands."""
    rs = load_ruleset(ruleset_id)
    out = dict(options)
    if "cash" not in getattr(rs.module, "SETTLE_OPTIONS", ()) or "cash" in out:
        return out
    cash = {p: float(h.cash) for p, h in scored.items() if getattr(h, "cash", 0)}
    if cash:
        out["cash"] = cash
        # how it is collected, as the hands were scored (a reviewer's -o cash_from=total hand was settled
        # from each other player, the settlement's default)
        how = {(getattr(h, "options", None) or {}).get("cash_from") for p, h in scored.items() if p in cash} - {None}
        if len(how) == 1 and "cash_from" not in out:
            out["cash_from"] = how.pop()
    return out


def players_for_seats(ruleset_id: str, options: Mapping[str, Any], seats: Mapping[str, str | None],
                      unseated: str = "") -> tuple[dict[str, Any], list[str]]:
    """``options`` of ``ruleset_id``'s settlement with a seat wind given where a player is expected (hk-tw-16's
    ``discarder=W``; the players of ``cash=W:3``; swedish's ``totals``: the options its module lists in
    ``SETTLE_PLAYERS``, one player, and ``SETTLE_PLAYER_AMOUNTS``, ``PLAYER:AMOUNT,…``) read as the player in that
    seat, ``seats`` being player → seat wind (a batch's rows: their player and seat_wind cells; `table`'s and
    ``/api/settle``'s seats from the seating order and East; `settle`'s East alone, the others None: its scores
    are in no seating order). A value that is a player's label stays that player (players are matched as typed:
    a table of players named E S W N reads ``discarder=W`` as the player W). A seat is read so only when the four
    players sit in four different seats, or, where some seats are not known (None), when one player is known to
    sit there; → (the options, the notes that say so: ``"discarder=W read as Cas, the player in seat W"``).
    Raises :class:`RulesetError` for a seat wind that is no player's label when the seats do not say who sits
    there (``… not one of the players Ann, Bob, Cas, Dee; W is the seat of Cas and Dee (the rows' seat winds are
    not four different ones): give the player``; with seats not known, ``who sits in seat W is not known``
    followed by ``unseated``, the caller's words for why). The one reading of a batch's table hands, `table`,
    `settle` and ``/api/settle``."""
    rs = load_ruleset(ruleset_id)
    ones = getattr(rs.module, "SETTLE_PLAYERS", ())
    amounts = getattr(rs.module, "SETTLE_PLAYER_AMOUNTS", ())
    players = list(seats)
    known = {p: w for p, w in seats.items() if w is not None}
    sure = len(set(seats.values())) == len(seats) == 4 and set(seats.values()) == {"E", "S", "W", "N"}
    # some seats not known (settle: East alone): a seat that one player is known to hold, the known ones distinct
    partly = len(known) < len(seats) and len(set(known.values())) == len(known)
    out = dict(options)
    notes: list[str] = []

    def player(key: str, given: str, shown: str) -> str:
        # (in the labels' form, NFC: a tester's discarder=Zoë typed with a combining accent was "not one of the
        # players Ann, Zoë, …")
        v = unicodedata.normalize("NFC", given.strip())
        wind = wind_letter(v)  # (a seat wind where a player is expected: discarder=W)
        if v in players:
            return v
        if wind is None:
            return given
        there = [p for p, w in known.items() if w == wind]
        if sure or (partly and len(there) == 1):
            notes.append(f"{shown} read as {there[0]}, the player in seat {wind}")
            return there[0]
        if len(known) < len(seats) and not there:
            where = f"who sits in seat {wind} is not known{unseated}"
        else:
            where = (f"{wind} is the seat of {' and '.join(there)} (the rows' seat winds are not four different ones)"
                     if there else f"no player sits in seat {wind}")
        raise RulesetError(f"settle option {key}={v}: not one of the players {', '.join(players)}; {where}: "
                           f"give the player")

    for key in ones:
        if key in out and isinstance(out[key], str):
            out[key] = player(key, out[key], f"{key}={out[key].strip()}")
    for key in amounts:
        raw = out.get(key)
        if isinstance(raw, Mapping):
            out[key] = {player(key, str(p), f"{key} {p}"): a for p, a in raw.items()}
        elif isinstance(raw, str) and raw.strip():
            parts = []
            for part in raw.split(","):
                if ":" in part:
                    p, a = part.split(":", 1)
                    part = f"{player(key, p, f'{key} {p.strip()}:{a.strip()}')}:{a}"
                parts.append(part)
            out[key] = ",".join(parts)
    return out, notes


def scores_void_hands(ruleset_id: str) -> bool:
    """Whether the hands of a hand nobody won (a void, drawn hand) are scored, as non-winners' hands of the
    ruleset's size, for the cash they show: when ``ruleset_id``'s settlement collects the cash the hands report
    (:func:`with_cash`: hk-tw-16's 暗槓 $5, 台花 $5, 台草 $3, 004:42–43, "immediate cash payments, not points").
    The settlement then decides whether a hand nobody won collects it (hk-tw-16 option ``cash_when_void``, 004-33,
    its note naming the option). They are scored with a ``cash`` given too, which replaces theirs: the settlement
    then says what it replaced (:func:`cash_replaced_note`), as a batch's, which scores every row, says it. Else a
    void hand's hands are read as notation only, any tile count (no points are counted, 001:134), as is a typed
    hand that cannot be scored so (:func:`read_void_hand`, which scores them). The one reading of `table` and
    ``/api/settle``. Raises RulesetError for an unknown ruleset."""
    rs = load_ruleset(ruleset_id)
    return "cash" in getattr(rs.module, "SETTLE_OPTIONS", ())


def void_cash_collected(ruleset_id: str, options: Mapping[str, Any] | None) -> bool:
    """Whether ``ruleset_id``'s settlement collects the cash a hand shows in a hand nobody won, under the ruleset
    ``options`` (its module's ``collects_void_cash``: hk-tw-16 option ``cash_when_void``, default ``collected``,
    004-33). Where it does not, a void hand's hand that cannot be scored (a placeholder of a few tiles) is read
    as notation only, as under a ruleset without cash: its cash would not be collected. Raises RulesetError for
    an unknown ruleset or option."""
    rs = load_ruleset(ruleset_id)
    fn = getattr(rs.module, "collects_void_cash", None)
    return bool(fn is None or fn(rs.resolve_options(options)))


@dataclass(frozen=True)
class VoidHand:
    """A typed hand of a hand nobody won as :func:`read_void_hand` reads it: ``hand`` (a :class:`scoring.Hand`,
    its notation read), ``scored`` (a :class:`scoring.ScoredHand`, scored as a non-winner's for the cash it
    shows) or None where it could not be, and then ``note``: why, where the cash it shows would have counted."""

    hand: Any
    scored: Any = None
    note: str | None = None


def read_void_hand(ruleset_id: str, player: str, notation: str, context: Any, options: Mapping[str, Any] | None,
                   settle_options: Mapping[str, Any] | None, give_cash: str) -> VoidHand:
    """``player``'s hand typed in ``notation`` in a hand nobody won under ``ruleset_id``, where
    :func:`scores_void_hands` says the hands are scored for their cash: scored as a non-winner's (``context``,
    the ruleset ``options``) where it can be; else read as notation only, any tile count, as a void hand's hands
    are under a ruleset without cash. A hand that cannot be scored so is a placeholder of a few tiles, a hand of
    another tile count, or the false mahjong of the settlement's ``false_win`` player (假胡, 004:50: 17 tiles, a
    claimed win). It is not refused (a 假胡 table had been): where its cash would have been collected (no
    ``cash`` among ``settle_options``, hk-tw-16 option ``cash_when_void=collected``, 004-33) a note says so, and
    how to give it (``give_cash``, the caller's words for a ``cash`` option, ``{player}`` in it the player: `table`
    ``--settle-option cash={player}:DOLLARS``). The one reading of `table` and ``/api/settle``. Raises HandError
    (not said of the player) for a notation that is no hand at all, RulesetError as :func:`scoring.score_hand`."""
    from .engine import score_hand
    from .errors import HandError
    from .hand import Context
    from .notation import parse_hand

    rs = load_ruleset(ruleset_id)
    false_win = str((settle_options or {}).get("false_win") or "").strip()
    refused: HandError | None = None
    if false_win != player:
        sizes = rs.notation_sizes
        try:
            hand = parse_hand(notation, context=context, sizes=sizes)
            return VoidHand(hand, score_hand(hand, rs, options))
        except HandError as e:
            refused = e
    hand = parse_hand(notation, context=Context(winner=False), sizes=None)
    n = hand.tile_count
    kongs = ", each kong counting 3" if any(m.kind == "kong" for m in hand.melds) else ""
    why = (f"false_win={player}: a false mahjong, 假胡" if refused is None
           else f"{n} tile{'' if n == 1 else 's'}{kongs}" if n != rs.hand_size else str(refused))
    return VoidHand(hand, None, unscored_void_note(ruleset_id, player, hand, getattr(context, "flags", ()), why,
                                                   options, settle_options, give_cash))


def unscored_void_note(ruleset_id: str, player: str, hand: Any, flags: Any, why: str,
                       options: Mapping[str, Any] | None, settle_options: Mapping[str, Any] | None,
                       give_cash: str) -> str | None:
    """The note on ``player``'s ``hand`` (a :class:`scoring.Hand`, read as notation only) not scored in a hand
    nobody won (``why``: its tile count, 假胡, a photo's reading; :func:`not_scored_note`), or None where it loses
    no cash: a cash given or ``cash_when_void=not-collected`` (:func:`cash_would_count`), or no cash item shown
    (:func:`shows_cash_items`: four drawn hands typed 1z 2z 3z 4z had got four notes that their cash was not
    collected). The one rule of a typed hand (:func:`read_void_hand`) and `table`'s photo."""
    if not (cash_would_count(ruleset_id, options, settle_options) and shows_cash_items(hand, flags)):
        return None
    return not_scored_note(player, why, give_cash)


def cash_would_count(ruleset_id: str, options: Mapping[str, Any] | None,
                     settle_options: Mapping[str, Any] | None) -> bool:
    """In a hand nobody won, whether the cash a hand shows would be collected (:func:`void_cash_collected`) and
    is not replaced by a ``cash`` given among ``settle_options``: where a hand not scored loses its cash."""
    given = any(option_key(k) == "cash" for k in (settle_options or {}))
    return not given and void_cash_collected(ruleset_id, options)


#: the two sets of four bonus tiles paid in cash (台花 $5, 台草 $3, 004:43): the flowers, the seasons
CASH_BONUS_SETS = (frozenset({"1f", "2f", "3f", "4f"}), frozenset({"1y", "2y", "3y", "4y"}))


def shows_cash_items(hand: Any, flags: Any = ()) -> bool:
    """Whether ``hand`` (a :class:`scoring.Hand`) shows an item paid in cash: a concealed kong (暗槓, 004:42), a
    whole set of flowers or of seasons (台花 / 台草, :data:`CASH_BONUS_SETS`, 004:43), or a concealed kong not
    shown (the player flag ``concealed-kong-not-shown`` among ``flags``, 暗槓不亮, 004:42: the kong is not in the
    hand typed, the penalty is)."""
    kongs = any(m.kind == "kong" and m.concealed for m in hand.melds)
    sets = any(b <= set(hand.bonus) for b in CASH_BONUS_SETS)
    return kongs or sets or "concealed-kong-not-shown" in set(flags)


def not_scored_note(player: str, why: str, give_cash: str) -> str:
    """The note on ``player``'s hand not scored in a hand nobody won (``why``: its tile count, 假胡, a photo's
    refusal), in the caller's words for a ``cash`` option (``give_cash``, ``{player}`` in it). A cash given
    replaces the cash of every hand (:func:`with_cash`), so it says to name the others' too (a reviewer followed
    the advice with cash=E:5, and S's $10 shown was no longer collected)."""
    return (f"hand of {player} not scored ({why}): any cash it shows is not collected; give it with "
            f"{give_cash.format(player=player)} (a cash given replaces every hand's own: name the others' cash in "
            f"it too)")


def liable_problem(ruleset_id: str, options: Mapping[str, Any], winner_scored: Any) -> str | None:
    """When the settlement ``options`` name a ``liable`` player and the winner's hand was scored
    (``winner_scored``, a :class:`scoring.ScoredHand`), why that hand has no such liability under the
    ruleset's own rule (its module's ``liable_problem``: hk-tw-16's 包自摸, 004:28/51), or None."""
    liable = (options or {}).get("liable")
    if not liable or winner_scored is None:
        return None
    fn = getattr(load_ruleset(ruleset_id).module, "liable_problem", None)
    return fn(winner_scored, str(liable)) if fn else None


def robbed_kong_problem(hands: Mapping[str, Any], winner: str | None) -> tuple[str, list[str]] | None:
    """When the winner of the four ``hands`` (player → :class:`scoring.Hand`) won by robbing a kong
    (``win_by`` robbed-kong, the winning tile known), the kong robbed held the other three of that tile
    (001:9, 002:54 "Kongroof"; 004:40 a concealed kong): some other hand must hold three of it still. When
    none does → (the words, e.g. ``"E won by robbing a kong of 1z, whose other three lie in the kong robbed,
    yet no other hand holds three 1z (S 1, W 0, N 0)"``, the other players), else None (also when a hand
    is missing)."""
    if winner is None or winner not in hands or len(hands) != 4:
        return None
    h = hands[winner]
    t = h.winning_tile
    if h.context.win_by != "robbed-kong" or t is None:
        return None
    held = {p: list(x.all_tiles).count(t) for p, x in hands.items() if p != winner}
    if max(held.values()) >= 3:
        return None
    return (f"{winner} won by robbing a kong of {t}, whose other three lie in the kong robbed, yet no other hand "
            f"holds three {t} ({', '.join(f'{p} {n}' for p, n in held.items())})", list(held))


def check_winner_scores(ruleset_id: str, scores: Mapping[str, int], winner: str | None,
                        options: Mapping[str, Any]) -> None:
    """RulesetError (one line, naming the player, the score and the ruleset's seed line) when a winner's score
    is below what every win scores under ``ruleset_id``: its module's ``WINNER_SCORES_AT_LEAST``, (least, why)
    — nts and rode-draak 20 for Mahjong (002:13), hk-tw-16 底 5 (004:41); under dutch-special-hands and
    swedish a win may score 0. Judged for ``winner`` and every other winner a settlement option names (the
    module's ``SETTLE_WINNERS``: hk-tw-16 ``also_won``, 一炮雙響), once the scheme has settled: ``score of W, a
    winner, is 0: every win under hk-tw-16 scores at least 底 5 (004_7d7ce2dadca33504.txt:41)``. A score that is
    no whole number ≥ 0, an option that names no player, and an option or winner the scheme refuses (hk-tw-16's
    ``false_win`` with a winner, ``liable`` naming a winner; a scheme that takes no options) are the scheme's to
    refuse, said first. ``scores``:
    player → hand score; ``options``: the settlement's, keyed as :func:`settle` keys them."""
    # (a tester's `settle --winner Ann --scores Ann=0,…` under nts was settled without a word; hk-tw-16's scheme
    # had held both winners of a double win to 底 5 itself, in its own words)
    module = load_ruleset(ruleset_id).module
    least = getattr(module, "WINNER_SCORES_AT_LEAST", None)
    if least is None or winner is None:
        return
    others = [str(options[k]) for k in getattr(module, "SETTLE_WINNERS", ()) if options.get(k)]
    for w in dict.fromkeys([winner, *others]):
        s = scores.get(w)
        if isinstance(s, int) and not isinstance(s, bool) and 0 <= s < least[0]:
            raise RulesetError(f"score of {w}, a winner, is {s}: every win under {ruleset_id} scores at least "
                               f"{least[1]}")


def settle(ruleset_id: str, scores: Mapping[str, int], winner: str | None, east: str,
           options: Mapping[str, Any] | None = None, scored: Mapping[str, Any] | None = None) -> Settlement:
    """Settle one hand of a table under ``ruleset_id``'s scheme.

    ``scores``: player → hand score (the 4 players of the table); ``winner``: a player or None
    (void hand); ``east``: the player who is East; ``options``: the scheme's options, named in any case,
    ``-`` or ``_`` (:func:`scoring.engine.keyed_options`; one given twice with values that mean the same,
    :func:`same_settle_value`, taken once). Raises RulesetError for a ruleset without a scheme, an option
    the scheme does not take or one given twice with values that differ, or a winner's score below what
    every win scores under the ruleset (:func:`check_winner_scores`, for every winner, after the scheme's own
    refusals), and
    ValueError for inconsistent players (not four, East or the winner not among them). ``scored``: the hands
    scored, as given to :func:`with_cash` (player → :class:`scoring.ScoredHand` or :class:`HandCash`): a ``cash``
    option that replaces the cash they show is said in a note (:func:`cash_replaced_note`), before the scheme's
    cash notes.
    """
    if len(scores) != 4:
        raise ValueError(f"a settlement needs the 4 players of the table, got {len(scores)}")
    if east not in scores:
        raise ValueError(f"East {east!r} is not one of the players {', '.join(scores)}")
    if winner is not None and winner not in scores:
        raise ValueError(f"winner {winner!r} is not one of the players {', '.join(scores)}")
    rs = load_ruleset(ruleset_id)
    fn = getattr(rs.module, "settle", None)
    if fn is None:
        if rs.settlement not in SCHEMES:
            raise RulesetError(f"ruleset {rs.id} has no settlement scheme")
        fn = SCHEMES[rs.settlement]
    known = getattr(rs.module, "SETTLE_OPTIONS", None)
    # (named in any case, with - or _ alike, as the ruleset's options are: given to the scheme as it spells them)
    options = keyed_settle_options(rs.id, options or {})
    if known is not None:
        # (a new user's `settle -r hk-tw-16 --option bogus=1` was answered with the 33 scoring options, not the
        # settlement's: discarder=, win_by= … were learnt only from a later error)
        unknown = [k for k in options if k not in known]
        if unknown:
            raise RulesetError(f"the settlement of {rs.id} takes no option {echo(unknown[0])} (settlement "
                               f"options: {', '.join(known)})")
    result = fn(scores, winner, east, dict(options or {}))
    # (after the scheme's own refusals of its options and winner: a reviewer's `settle -r hk-tw-16 --winner N
    # -o false_win=N` with N's 0 was told of 底 5, not that 假胡 is settled with no winner)
    check_winner_scores(rs.id, scores, winner, options)
    if not result.ruleset:
        result = replace(result, ruleset=rs.id)
    # a cash given replaces the hands' own (with_cash): said, as the scheme's notes name only what is collected (a
    # director's settle cell cash=Cas:3 left Ann's 暗槓 $5 uncollected, the notes saying "cash: Cas collects $3 …")
    replaced = cash_replaced_note(rs.id, options, scored, scores)
    if replaced:
        notes = list(result.notes)
        at = next((i for i, n in enumerate(notes) if n.startswith("cash")), len(notes))
        result = replace(result, notes=tuple(notes[:at] + [replaced] + notes[at:]))
    assert sum(result.net.values()) == 0, f"settlement does not sum to zero: {dict(result.net)}"
    return result


# --------------------------------------------------------------------------- 001 De Rode Draak
SEED_001 = "001_20e8f920a7ce7e86.txt"


def _east_factor(a: str, b: str, east: str) -> int:
    """2 when East is one of the two players (001:31 "Oost krijgt en betaalt alle bedragen dubbel")."""
    return 2 if east in (a, b) else 1


def rode_draak(scores: Mapping[str, int], winner: str | None, east: str,
               options: Mapping[str, Any] | None = None) -> Settlement:
    """The settlement ("Afrekening") of De Rode Draak, seed 001 lines 25–40 (RULINGS 001-17).

    ``scores``: player label → that player's hand score in points (every player's hand is scored);
    ``winner``: the label of the player who went mahjong, or None for a void hand (001:134: no
    points are counted); ``east``: the label of the player who is East.

    * 001:27 every player receives his score from every other player, except:
    * 001:29 the winner only receives and does not pay;
    * 001:31 East receives and pays every amount double;
    * 001:33 East wins: he receives his score double from all players;
    * 001:35 another player wins: he receives his score double from East, single from the two others;
    * 001:37 the three others settle among themselves, East double: for each pair of non-winners
      the one with the lower score pays the difference (× 2 when East is one of them), which is
      "each receives his score from the other" netted (RULINGS 001-17 reading a);
    * 001:40 the total is always zero (checked).

    Amounts are whole points. The scheme takes no options (RulesetError names any given). Raises
    ValueError for a score that is not a whole number ≥ 0.
    """
    if options:
        raise RulesetError(f"settlement scheme rode-draak takes no options (got {', '.join(options)})")
    players = list(scores)
    for p, s in scores.items():
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"score of {p} must be a whole number ≥ 0, not {s!r}")
    if winner is None:
        return from_transfers("", "rode-draak", players, [],
                              notes=(f"void hand: no points are counted ({SEED_001}:134)",))
    transfers: list[Transfer] = []
    w = scores[winner]
    for p in players:
        if p == winner:
            continue
        k = _east_factor(winner, p, east)
        if winner == east:
            why = f"East wins: {w} double from every player ({SEED_001}:33)"
        elif p == east:
            why = f"winner's {w} double from East ({SEED_001}:35)"
        else:
            why = f"winner's {w} single from a non-East player ({SEED_001}:35)"
        transfers.append(Transfer(p, winner, w * k, why))
    others = [p for p in players if p != winner]
    for a, b in combinations(others, 2):
        k = _east_factor(a, b, east)
        diff = (scores[a] - scores[b]) * k
        dbl = ", doubled: East is one of them" if k == 2 else ""
        why = (f"non-winners {a} ({scores[a]}) and {b} ({scores[b]}) settle the difference{dbl} "
               f"({SEED_001}:37)")
        transfers.append(Transfer(b, a, diff, why))  # negative: a pays b (from_transfers flips it)
    notes = [f"East is {east}; winner is {winner}"]
    result = from_transfers("", "rode-draak", players, transfers, notes=tuple(notes))
    assert sum(result.net.values()) == 0, f"001:40 the total is always zero: {dict(result.net)}"
    return result


register_scheme("rode-draak", rode_draak)
