"""``mahjong-score settle`` and ``mahjong-score table``: settle one hand of a table, or score four
hands and settle them in one call (registered in ``cli.COMMANDS``).

Players are free labels (names, or — as in the examples — the seat letters the players had when
the session began). Which player is East for this hand is given separately with ``--east``, so a
label need not be the player's current seat wind. ``table`` takes the hands in seating order (the
order of play: East's right-hand neighbour next) and derives each player's seat wind from
``--east`` (001:126, 001:136); ``settle`` needs only the scores.

Settlement schemes (``scoring.settle.SCHEMES``) are chosen by the ruleset; scheme-specific options
are passed with ``--option NAME=VALUE`` (``settle``) or ``--settle-option NAME=VALUE`` (``table``,
whose ``--option`` sets ruleset options for scoring).
"""
from __future__ import annotations

import argparse
import contextlib
import re
from dataclasses import replace
from typing import Any

from commands.common import (NotAHandReading, UserError, add_history_args, options_from_args, print_json,
                             ruleset_word, wind_word)
from scoring.engine import (NO_WINNING_TILE_START, check_context_flags, explain, load_ruleset, score_hand,
                            with_no_winning_tile_note)
from scoring.errors import HandError, RulesetError
from scoring.hand import MAX_SCORE, WIN_BY, Context, win_by_word
from scoring.notation import is_whole_number, parse_hand
from scoring.history import NO_WINNING_TILE_GIVEN_STATUS, typed_status
from scoring.session import SessionState, describe, next_state, outcome_of
from scoring.settle import (Settlement, copies_in_a_set, dealer_streak_of, liable_problem, over_the_set_text, refused_win_text,
                            players_for_seats, robbed_kong_problem, keyed_settle_options, settle, settle_option_given_for_scoring, table_options,
                            read_void_hand, scores_void_hands, tiles_over_the_set, cash_would_count, unscored_void_note,
                            with_cash, with_win_by)

NONE_WORDS = ("none", "void", "-")
#: the history status of a table hand read from a photo the reader is unsure of (settled provisionally)
PROVISIONAL_STATUS = "provisional: check it"


# ------------------------------------------------------------------------- parsing helpers
def parse_scores(text: str) -> dict[str, int]:
    """``"E=200,S=100,W=200,N=500"`` → ``{"E": 200, …}`` (order kept). UserError on bad input
    (not four players, a label twice, a score that is not a whole number ≥ 0)."""
    out: dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise UserError(f"--scores entry {part!r} must be PLAYER=POINTS, e.g. E=200")
        name, val = player_label(part.split("=", 1)[0]), part.split("=", 1)[1].strip()
        if not name:
            raise UserError(f"--scores entry {part!r} has no player label")
        _not_a_void_word(name)
        if name in out:
            raise UserError(f"player {name!r} is given twice in --scores")
        if not is_whole_number(val):  # (int() takes 2_00 and other scripts' digits)
            raise UserError(f"score of {name} must be a whole number, not {val!r}")
        digits = val.strip().lstrip("-").lstrip("0")
        if not val.strip().startswith("-") and len(digits) > len(str(MAX_SCORE)):
            # (before int(): a reviewer's 5000 digits passed Python's int limit, a traceback)
            shown = val.strip() if len(val.strip()) <= 40 else f"{digits[:12]}… ({len(digits)} digits)"
            raise UserError(f"score of {name} is {shown}, more than any hand scores (at most {MAX_SCORE:,}): check it")
        try:
            points = int(val)
        except ValueError:  # (past Python's 4300 characters all the same: a minus sign, or leading zeros)
            raise UserError(f"score of {name} must be a whole number from 0 to {MAX_SCORE:,}, not one of "
                            f"{len(val.strip()):,} characters") from None
        if points < 0:
            raise UserError(f"score of {name} must be ≥ 0, not {points}")
        if points > MAX_SCORE:  # (as the web API: a score typed with zeros too many had been paid)
            raise UserError(f"score of {name} is {points}, more than any hand scores (at most {MAX_SCORE:,}): check it")
        out[name] = points
    if len(out) != 4:
        raise UserError(f"--scores needs the 4 players of the table, got {len(out)}, e.g. E=200,S=100,W=200,N=500")
    return out


def _winner(text: str | None) -> str | None:
    """``--winner``: the player, or None for a void hand (``none``); UserError when it is not given (a
    forgotten --winner had settled the table as a void hand, every score 0, exit 0)."""
    if text is None:
        raise UserError("give --winner PLAYER, the player who went mahjong, or --winner none for a void hand")
    return None if text.strip().lower() in NONE_WORDS else player_label(text)


def _flag(players: list[str], said: str, unsure: list[str], sources: dict[str, Any]) -> None:
    """The photo hands of ``players`` made provisional (added to ``unsure``) for what a check line says,
    ``said`` added to their source's ``checks`` list (the check lines that name the photo: tiles over the set, a
    photo given twice)."""
    for p in players:
        if p not in unsure:
            unsure.append(p)
        sources[p] = {**sources[p], "checks": [*sources[p].get("checks", ()), said]}


def _same_photos(photos: dict[str, str]) -> list[list[str]]:
    """The players (in order) whose photo files ``photos`` (player → path) hold the same bytes, by
    SHA-256; a file that cannot be read is left out (it was read a moment ago)."""
    from scoring.history import same_digest, sha256_file

    def digest(path: str) -> str:
        try:
            return sha256_file(path)
        except OSError:
            return ""

    return same_digest((p, digest(path)) for p, path in photos.items())


def player_label(text: str) -> str:
    """:func:`scoring.settle.player_label` (NFC, stripped), its ValueError a UserError."""
    from scoring.settle import player_label as label

    try:
        return label(text)
    except ValueError as e:
        raise UserError(str(e)) from None


def _not_a_void_word(player: str) -> None:
    """UserError for a player labelled as ``--winner`` says a void hand (``none``): the label would make
    ``--winner none`` mean either."""
    if player.lower() in NONE_WORDS:
        raise UserError(f"a player cannot be called {player!r}: --winner {player} says a void hand; give the "
                        f"player another label")


def _pairs(items: list[str], what: str, name: str = "player label") -> list[tuple[str, str]]:
    """``what``'s ``NAME=VALUE`` items as pairs, stripped; UserError for an item without ``=`` or with
    nothing before it (it "has no ``name``": ``option name (NAME=VALUE)`` for --settle-option, as --option
    says it; a tester's --settle-option =S was said to have no player label)."""
    out = []
    for item in items:
        if "=" not in item:
            raise UserError(f"{what} {item!r} must be NAME=VALUE")
        k, v = item.split("=", 1)
        if not k.strip():
            raise UserError(f"{what} {item!r} has no {name}")
        out.append((player_label(k), v.strip()))
    return out


#: an option a settlement scheme's error asks for ("needs discarder=PLAYER", "or win_by=self-drawn",
#: "needs option totals=…"), to be given with this command's flag
_SETTLE_OPTION = re.compile(r"\b(needs|or)(?: option)? ([a-z_]+)=")


def _settle(ruleset: str, scores: dict[str, int], winner: str | None, east: str,
            options: dict[str, str], flag: str = "--option", scored: dict[str, Any] | None = None) -> Settlement:
    """:func:`scoring.settle.settle`, its errors saying how to give an option on this command line
    (``flag``: ``--option`` for ``settle``, ``--settle-option`` for ``table``, where a self-drawn win is
    ``--win-by wall``): the scheme's "a discard win needs discarder=PLAYER" sent a new user looking
    for a photo flag. ``scored``: the hands scored (a ``cash`` option that replaces their cash is noted)."""
    try:
        return settle(ruleset, scores, winner, east, options, scored=scored)
    except RulesetError as e:
        text = str(e)
        if flag == "--settle-option":
            text = text.replace("win_by=self-drawn", "--win-by wall")
        raise RulesetError(_SETTLE_OPTION.sub(lambda m: f"{m.group(1)} {flag} {m.group(2)}=", text)) from None
    except HandError:
        raise
    except ValueError as e:  # inconsistent players / scores
        raise UserError(str(e)) from None


def format_settlement(s: Settlement, east: str, winner: str | None) -> str:
    """Text: the transfers, then each player's net (positive = receives) and the zero sum."""
    out = [f"settlement under {s.ruleset} (scheme {s.scheme}): East {east}, "
           f"winner {winner if winner is not None else 'none (void hand)'}"]
    if s.transfers:
        out.append("transfers:")
        for t in s.transfers:
            out.append(f"  {t.payer} pays {t.payee} {t.amount:>6}  {t.reason}")
    out.append("net:")
    for p, n in s.net.items():
        out.append(f"  {p:<8} {n:+d}")
    out.append(f"sum: {sum(s.net.values())}")
    for n in s.notes:
        out.append(f"note: {n}")
    return "\n".join(out)


# ------------------------------------------------------------------------- settle
def cmd_settle(args: argparse.Namespace) -> int:
    scores = parse_scores(args.scores)
    winner = _winner(args.winner)
    args.east = player_label(args.east)
    if args.east not in scores:
        raise UserError(f"--east {args.east!r} is not one of the players {', '.join(scores)}")
    if winner is not None and winner not in scores:
        raise UserError(f"--winner {winner!r} is not one of the players {', '.join(scores)}")
    # a seat wind given where a player is expected (-o discarder=E) is read as the batch and `table` read it
    # (scoring.settle.players_for_seats), but settle knows one seat alone: East's (--east); its scores are in no
    # seating order, so another seat wind is refused with a hint, where a player's label wins as ever
    options = options_from_args(args, settle=True)
    try:
        options, seated = players_for_seats(args.ruleset, options,
                                            {p: "E" if p == args.east else None for p in scores},
                                            f" (settle knows East's seat alone, --east {args.east}; --scores are in "
                                            f"no seating order)")
    except RulesetError as e:
        raise RulesetError(str(e).replace("settle option", "--option", 1)) from None
    s = _settle(args.ruleset, scores, winner, args.east, options)
    s = replace(s, notes=(*seated, *s.notes))
    if args.json:
        print_json({**s.to_json(), "east": args.east, "winner": winner, "scores": scores})
    else:
        print(format_settlement(s, args.east, winner))
    return 0


def add_settle(sub: Any) -> None:
    """Register ``mahjong-score settle``."""
    p = sub.add_parser(
        "settle", help="settle one hand: who pays whom, from the four players' scores",
        description="Settle one hand of a table under a ruleset's settlement scheme, e.g. "
                    "mahjong-score settle --ruleset rode-draak --east S --winner W "
                    "--scores E=200,S=100,W=200,N=500. Players are free labels; --east names the "
                    "player who is East for this hand. Prints the transfers and each player's net "
                    "(positive = receives); the nets always sum to zero.")
    p.add_argument("--ruleset", "-r", default="rode-draak", type=ruleset_word,
                   help="ruleset id; default rode-draak")
    p.add_argument("--scores", required=True, metavar="P=N,...", help="each player's hand score, e.g. E=200,S=100,W=200,N=500")
    p.add_argument("--east", required=True, metavar="PLAYER", help="the player who is East (the dealer)")
    # (needed: a forgotten --winner had settled the hand as void, every score 0, exit 0; _winner)
    p.add_argument("--winner", metavar="PLAYER", help="required: the player who went mahjong; 'none' for a void hand")
    p.add_argument("--option", "-o", action=SettleOptionAction, default=[], metavar="NAME=VALUE")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_settle)


def settle_options_help(leave_out: tuple[str, ...] = ()) -> str:
    """The help of a settlement option: the options each scheme takes (its ruleset module's
    ``SETTLE_OPTIONS``), ``leave_out`` left out."""
    from scoring.rulesets import hk_tw_16, swedish

    said = "; ".join(f"{rs} takes " + ", ".join(o for o in m.SETTLE_OPTIONS if o not in leave_out)
                     for rs, m in (("hk-tw-16", hk_tw_16), ("swedish", swedish)))
    return (f"a settlement-scheme option NAME=VALUE (repeatable): {said}; the others none (e.g. discarder=S: "
            f"who discarded the winning tile). NAME in any case, - or _ alike, as a ruleset option's; an unknown "
            f"one is refused, naming those of the scheme")


class SettleOptionAction(argparse._AppendAction):
    """``settle --option``: appended as ``action="append"`` is; its help (:func:`settle_options_help`) is
    made only when help is printed, so that the rulesets' modules are not imported at every start-up."""

    leave_out: tuple[str, ...] = ()
    said_after = ""

    @property
    def help(self) -> str:
        return settle_options_help(self.leave_out) + self.said_after

    @help.setter
    def help(self, value) -> None:  # (argparse sets it to None)
        pass


class TableSettleOptionAction(SettleOptionAction):
    """``table --settle-option``: the win source is ``--win-by``'s."""

    leave_out = ("win_by",)
    said_after = " (the win source is --win-by's)"


# ------------------------------------------------------------------------- table
@contextlib.contextmanager
def _hand_of(player: str, is_winner: bool):
    """A HandError raised inside, said of ``player``'s hand (``hand of S: …``) in `table`'s words: the
    command line's words for a dead hand are `photo`/`hand`'s; here it is a player flag, and a winner's hand
    cannot be dead (a new user was told to give --not-winner to `table`)."""
    try:
        yield
    except HandError as e:
        from scoring.rulesets.rode_draak import reword_dead_hand

        said = reword_dead_hand(str(e), None if is_winner else f"--player-flag {player}=dead-hand",
                                f"leave out --player-flag {player}=dead-hand, or name the right --winner")
        raise HandError(f"hand of {player}: {said}") from None


def _table_state(players: list[str], east: str, leader: str | None, round_wind: str) -> SessionState:
    if len(players) != 4:
        raise UserError(f"table needs four players (--hand PLAYER=NOTATION or --photo PLAYER=IMG), got {len(players)}")
    if len(set(players)) != 4:
        twice = next(p for p in players if players.count(p) > 1)
        raise UserError(f"each player may be given only once (with --hand or --photo): {twice!r} is given "
                        f"{players.count(twice)} times (labels are compared without the spaces around them)")
    if east not in players:
        raise UserError(f"--east {east!r} is not one of the players {', '.join(players)}")
    leader = leader or players[0]
    if leader not in players:
        raise UserError(f"--leader {leader!r} is not one of the players {', '.join(players)}")
    k = players.index(leader)
    order = players[k:] + players[:k]
    return SessionState(tuple(order), east=order.index(east), round_wind=round_wind)


def cmd_table(args: argparse.Namespace) -> int:
    """Score the four hands and settle them. ``args.hand_readers`` (optional): player → a function
    ``(context, winning_tile, ruleset, options) → ScoredHand`` that scores that player's hand some
    other way than from notation (``vision.table_photos`` reads it from a photo), and
    ``args.hand_sources``: player → a JSON-ready description of where the hand came from."""
    hands = _pairs(args.hand, "--hand")
    for p, _ in hands:
        _not_a_void_word(p)
    readers = getattr(args, "hand_readers", None) or {}
    sources = getattr(args, "hand_sources", None)  # (filled while the readers run: the same dict)
    sources = {} if sources is None else sources
    players = [p for p, _ in hands]
    east = (player_label(args.east) if args.east else players[0]) if players else ""
    state = _table_state(players, east, args.leader, args.round_wind)
    winner = _winner(args.winner)
    if winner is not None and winner not in players:
        raise UserError(f"--winner {winner!r} is not one of the players {', '.join(players)}")
    if winner is None:
        # (a tester's void table with -w 1z --win-by wall --first-turn was settled as void without a word; the
        # web's settlement refuses them)
        won = ([f"--winning-tile {args.winning_tile}"] if args.winning_tile else []) + (
            [f"--win-by {args.win_by}"] if args.win_by not in (None, "discard") else []) + [
            "--" + f.replace("_", "-") for f in ("last_tile", "first_turn", "announced_wait", "kong_on_kong")
            if getattr(args, f, False)] + [f"--flag {f}" for f in args.flag]
        if won:
            raise UserError(f"nobody won (--winner {args.winner}: a void hand), yet {', '.join(won)} "
                            f"{'describe' if len(won) > 1 else 'describes'} the winner's hand: leave "
                            f"{'them' if len(won) > 1 else 'it'} out, or name the winner")
    pflags: dict[str, set[str]] = {p: set() for p in players}
    for p, f in _pairs(args.player_flag, "--player-flag"):
        if p not in pflags:
            raise UserError(f"--player-flag {p!r} is not one of the players {', '.join(players)}")
        if not f:  # (a breaker's `--player-flag N=` had been taken without a word)
            raise UserError(f"--player-flag {p}= names no flag: give {p}=FLAG (mahjong-score rules "
                            f"{args.ruleset} lists them), or leave it out")
        pflags[p].add(f)
    rs = load_ruleset(args.ruleset)
    opts = options_from_args(args)
    # the options checked before any photo is read: a settlement option given as a ruleset one is named so
    # (a tester's -o DISCARDER=S was "ruleset hk-tw-16 has no option 'discarder'", and the whole list)
    misplaced = settle_option_given_for_scoring(rs.id, opts)
    if misplaced is not None:
        raise UserError(f"ruleset {rs.id} has no option {misplaced[0]!r}: it is a settlement option; give it with "
                        f"--settle-option {misplaced[0]}={misplaced[1]}")
    rs.resolve_options(opts)
    # (named in any case, - or _, as --option's are; one given twice with values that differ is refused)
    settle_opts = keyed_settle_options(rs.id, _pairs(args.settle_option, "--settle-option", "option name (NAME=VALUE)"),
                                       "--settle-option")
    # one value per table fact, for the hands and the payments alike: a ruleset option the scheme reads too
    # (hk-tw-16's dealer_point, dealer_streak_points, cash_from) given with -o is the settlement's, and with
    # --settle-option the scoring's; the settlement's dealer_streak (連莊, 004:2) is the dealer's hand's (it
    # had reached the payments only: a dealer who won after 3 deals kept scored no 連莊 here, as `photo
    # --dealer-streak 3` scores it)
    try:
        opts, settle_opts = table_options(rs.id, opts, settle_opts)
        streak = dealer_streak_of(rs.id, settle_opts)
        # a seat wind given where a player is expected (--settle-option discarder=W) is the player in that seat
        # (from --east and the seating order), noted; a player's label wins (players named E S W N stay so).
        # discarder=W at a table of Ann, Bob, Cas, Dee had been "not one of the players" where a batch's settle
        # cell read it (scoring.settle.players_for_seats, the one reading of both)
        settle_opts, seated = players_for_seats(rs.id, settle_opts, state.seats())
    except RulesetError as e:
        raise UserError(str(e).replace("for scoring", "with -o", 1).replace("for the settlement",
                                                                              "with --settle-option", 1)
                        .replace("settle option", "--settle-option", 1)) from None
    after = next_state(state, outcome_of(state, winner))
    results: dict[str, Any] = {}
    void_hands: dict[str, Any] = {}  # a void hand's typed hands (notation read, not scored)
    # a void hand's hands are scored too, as non-winners', where the settlement collects the cash they show
    # whether or not the hand is won (hk-tw-16's 暗槓 $5, 台花 $5, 台草 $3, 004:42–43, option cash_when_void): a
    # void table had collected none for a concealed kong shown (scores_void_hands, as the web's settlement)
    void_scored = winner is None and scores_void_hands(rs.id)
    # (a hand that cannot be scored so, a placeholder of a few tiles or the false_win player's 假胡 hand, is read as
    # notation only, as before, and noted where its cash would have counted: scoring.settle.read_void_hand)
    void_notes: list[str] = []
    if winner is not None or void_scored:
        sizes = rs.notation_sizes
        contexts = {p: Context(
            seat_wind=state.seat_wind(p), round_wind=state.round_wind, winner=p == winner,
            win_by=args.win_by if p == winner else "discard", last_tile=args.last_tile and p == winner,
            first_turn=args.first_turn and p == winner, announced_wait=args.announced_wait and p == winner,
            kong_on_kong=args.kong_on_kong and p == winner,
            dealer_streak=streak if state.seat_wind(p) == "E" else 0,  # (the dealer is East)
            flags=frozenset(pflags[p] | (set(args.flag) if p == winner else set()))) for p, _ in hands}
        # each player's flags against that player's context before any photo is read (a tester's photo of a
        # non-winner with --player-flag S=burst-kong was read first, and its tile count was the error said)
        for p, _ in hands:
            with _hand_of(p, p == winner):
                check_context_flags(rs, contexts[p])
        for p, notation in hands:
            is_w = p == winner
            ctx = contexts[p]
            if p not in readers and void_scored:
                try:
                    read = read_void_hand(rs.id, p, notation, ctx, opts, settle_opts,
                                          "--settle-option cash={player}:DOLLARS")
                except HandError as e:
                    raise HandError(f"hand of {p}: {e}") from None
                if read.scored is not None:
                    results[p] = read.scored
                else:
                    void_hands[p] = read.hand
                    void_notes += [read.note] if read.note else []
                continue
            if p in readers and void_scored:
                # a photo of a hand nobody won: not read where its cash would not count (a cash given, or
                # cash_when_void=not-collected: as before the hands were scored for their cash); else read as a
                # non-winner's, and one that cannot be is noted, not refused (a void table's photo of 13 tiles
                # with a cash given had settled, then was refused: a reviewer's)
                # (nor the false_win player's photo: a 假胡 hand is not scored, as when typed)
                if not cash_would_count(rs.id, opts, settle_opts) or settle_opts.get("false_win") == p:
                    continue
                try:
                    results[p] = readers[p](ctx, None, rs, opts)
                except NotAHandReading as e:  # (a file or reader error is still refused, as in a won hand)
                    try:
                        shown = parse_hand(e.reading, context=Context(winner=False), sizes=None)
                    except HandError:
                        continue
                    note = unscored_void_note(rs.id, p, shown, ctx.flags,
                                              f"its photo reads {e.reading}, no non-winner's hand", opts, settle_opts,
                                              "--settle-option cash={player}:DOLLARS")
                    void_notes += [note] if note else []
                continue
            with _hand_of(p, is_w):
                if p in readers:
                    results[p] = readers[p](ctx, args.winning_tile if is_w else None, rs, opts)
                else:
                    hand = parse_hand(notation, winning_tile=args.winning_tile if is_w else None,
                                      context=ctx, sizes=sizes)
                    # (the winner's hand typed with no winning tile: said, as `hand` says it)
                    results[p] = with_no_winning_tile_note(score_hand(hand, rs, opts, option_notes=True))
        if winner is not None:
            res = results[winner]
            if not res.allowed:
                raise UserError(refused_win_text(winner, res.status, rs.id))
            scores = {p: results[p].total for p in players}
        else:
            scores = {p: 0 for p in players}  # (no points are counted: the hands are scored for their cash)
    else:
        scores = {p: 0 for p in players}
        # a void hand counts nothing, but a typed hand is still read as notation: a typo is said, not recorded
        # as a void table (a tester's `--hand E=zzz --winner none` had exited 0). Its tile count is free
        # (players often type a placeholder), its tiles still one set's (below)
        for p, notation in hands:
            if p not in readers:
                try:
                    void_hands[p] = parse_hand(notation, context=Context(winner=False), sizes=None)
                except HandError as e:
                    raise HandError(f"hand of {p}: {e}") from None
    # hands read from photos the reader is unsure of: the settlement stands only once they are checked
    # (exit 1, as a check that failed), never paid from a guess without a word
    unsure = [p for p in players if p in results and sources.get(p, {}).get("unsure")]
    # the four hands of one deal hold at most 4 of a tile and 1 of each flower and season: more is a misread
    # photo (provisional, as an unsure one) or a mistyped hand (refused). Checked before the settlement: an
    # impossible table is said before a missing discarder is asked for
    too_many = tiles_over_the_set({p: r.hand for p, r in results.items()} | void_hands)
    # the hands typed hold too many by themselves (whatever the photos show): the typing is wrong
    mistyped = [(t, {p: n for p, n in held.items() if p not in sources}) for t, held in too_many]
    mistyped = [over_the_set_text(t, held) for t, held in mistyped if sum(held.values()) > copies_in_a_set(t)]
    if mistyped:
        raise UserError(f"{'; '.join(mistyped)}: check the hands typed")
    checks: list[str] = []  # the "check:" lines printed above the settlement
    # a robbed kong's other three tiles lie in the kong robbed: a hand that shows them (a tester's table
    # was settled on a robbed 1z that no other hand held three of)
    robbed = robbed_kong_problem({p: r.hand for p, r in results.items()}, winner)
    if robbed is not None:
        said, others = robbed
        read = [p for p in [winner, *others] if p in sources]
        if not read:
            raise UserError(f"{said}: check the hands typed, or where the winning tile came from (--win-by)")
        checks.append(f"{said}: a photo is misread, or the winning tile came from elsewhere (--win-by)")
        _flag(read, said, unsure, sources)
    for tile, held in too_many:
        said = over_the_set_text(tile, held)
        read = [p for p in held if p in sources]
        typed = [p for p in held if p not in sources]
        checks.append(f"{said}: a photo is misread" + (
            f", or the hand{'s' if len(typed) > 1 else ''} of {', '.join(typed)} mistyped" if typed else ""))
        _flag(read, said, unsure, sources)
    # one picture given for two players (the same file, or a copy of it): one of them is not that player's hand
    for same in _same_photos({p: sources[p]["photo"] for p in players if p in results and p in sources}):
        said = f"{' and '.join(same)} have the same photo"
        checks.append(f"{said}: give each player the photo of their own hand")
        _flag(same, said, unsure, sources)
    unsure = [p for p in players if p in unsure]
    if winner is not None:
        # the scheme pays by where the winning tile came from (hk-tw-16: the discarder, or all three on a
        # self-draw): the winner's --win-by says it (before, `table --win-by wall` still asked for a discarder)
        settle_opts = with_win_by(rs.id, settle_opts, args.win_by)
    if "also_won" in settle_opts:
        # (a reviewer's: the second winner's hand is scored here as a non-winner's, and the settlement then
        # refused its score of 0)
        raise UserError("--settle-option also_won: `table` scores one winner's hand; settle a double win with "
                        "`settle` and both winners' scores")
    settle_opts = with_cash(rs.id, settle_opts, results)  # (the cash the hands scored report, unless given)
    liable = liable_problem(rs.id, settle_opts, results.get(winner) if winner is not None else None)
    if liable is not None:
        raise UserError(liable.replace("settle option", "--settle-option", 1))
    s = _settle(rs.id, scores, winner, east, settle_opts, flag="--settle-option", scored=results)
    s = replace(s, notes=(*seated, *void_notes, *s.notes))  # (before the scheme's, as a batch's settlement says them)
    nxt = {"east": None if after.over else after.east_player, "round_wind": after.round_wind,
           "over": after.over, "seats": {} if after.over else after.seats(), "text": describe(after)}
    # the winner's hand typed with no winning tile: scored with no wait, so the payments rest on a guess: said
    # beside the settlement and recorded unsure, as `hand` records it (a tester's table paid +2496 from it,
    # recorded ok); the exit code stays 0, as for a typed hand: the typing is the user's own
    no_wait = [winner] if (winner is not None and winner not in sources and winner in results
                           and typed_status(results[winner]) == NO_WINNING_TILE_GIVEN_STATUS) else []
    _record_table(args, players, hands, results, state, winner, s, unsure)
    if args.json:
        print_json({
            "ruleset": rs.id, "round_wind": state.round_wind, "east": east, "winner": winner,
            "seats": state.seats(),
            "hands": {p: r.to_json() for p, r in results.items()},
            **({"sources": {p: sources[p] for p in players if p in sources}} if sources else {}),
            "scores": scores, "settlement": s.to_json(), "provisional": unsure, "next": nxt,
            "no_winning_tile": bool(no_wait),
        })
        return 1 if unsure else 0
    print(f"{rs.name} ({rs.id}) — round wind {state.round_wind}, East {east}, "
          f"winner {winner if winner else 'none'}")
    if winner is None:
        # (001:134 is De Rode Draak's rule; the other seeds say nothing of a void hand)
        print("void hand: no points are counted; replayed with the same winds"
              + (" (001:134)" if rs.id == "rode-draak" else ""))
    for p in players:
        if p not in results:
            continue
        r = results[p]
        print(f"\n== {p} (seat {state.seat_wind(p)}{', winner' if p == winner else ''}): {r.total}")
        if p in sources and sources[p].get("text"):
            # (an unsure reading's text says "check it" already)
            over = " — a check line below names it: check it" \
                if sources[p].get("checks") and not sources[p].get("unsure") else ""
            print(f"  {sources[p]['text']}{over}")
        if args.explain:
            print(explain(r))
        else:
            for ln in r.lines:
                # (the option a line rests on, as `hand` cites it, RULINGS principle 3: a referee's non-winner's
                # 500 for waiting on a limit hand had not said waiting_limit_half=reward, whose other choice is 1000)
                print(f"  {ln.amount():>18}  {ln.name}  ({ln.source}{'; ' + ln.option if ln.option else ''})")
            if r.status != "ok":
                print(f"  {r.status}")
            for note in r.notes:  # (the winner's hand typed with no winning tile: what its score rests on)
                if note.startswith(NO_WINNING_TILE_START):
                    print(f"  note: {note}")
    print()
    for line in checks:
        print(f"check: {line}")
    if unsure:
        many = len(unsure) > 1
        doubted = [sources[p].get("unsure") for p in unsure]  # (the reader's doubt; else tiles over the set)
        why = ("the reader is unsure of" if all(doubted) else "to check" if any(doubted)
               else "that a check line names")
        print(f"provisional: the hand{'s' if many else ''} of {', '.join(unsure)} {'were' if many else 'was'} "
              f"read from {'photos' if many else 'a photo'} {why} (“check it” above); check the "
              f"reading{'s' if many else ''} (correct {'them' if many else 'it'} with --photo-fix/--photo-add "
              f"or type the hand with --hand) before paying")
    if no_wait:
        print(f"check: the hand of {winner}, the winner, was typed with no winning tile and scored with no wait "
              f"(the note above): name it with --winning-tile TILE (or win:TILE in the hand) before paying")
    print(format_settlement(s, east, winner))
    # (the seat rotation is De Rode Draak's, 001:132-140; a referee read the line as a rule of every ruleset)
    print(f"next game: {describe(after)}" + (" (001:132-140)" if rs.id == "rode-draak" else
                                             f" (as De Rode Draak's session goes, 001:132-140: the {rs.id} seed names "
                                             f"no seat rotation)"))
    return 1 if unsure else 0


def _record_table(args: argparse.Namespace, players, hands, results, state, winner, s: Settlement,
                  unsure) -> None:
    """Each scored hand of the table in the history (``--db``/``--no-history``; a new user's table
    settlements had left no trace there), its note naming the table's outcome for that player: a photo
    through the recorder its reader left (``args.hand_recorders``), a typed hand as ``hand`` records it."""
    from scoring.history import record_hand

    recorders = getattr(args, "hand_recorders", None) or {}
    notation = dict(hands)
    for p in players:
        if p not in results:
            continue
        note = (f"table {', '.join(players)}: {p}, seat {state.seat_wind(p)}{', winner' if p == winner else ''}, "
                f"net {s.net.get(p, 0):+d}{' (provisional: reading unsure)' if p in unsure else ''}")
        if p in recorders:
            # (a new user's provisional table hands were listed `ok` by `history`; the note alone said otherwise)
            recorders[p](note, PROVISIONAL_STATUS if p in unsure else None)
        elif not getattr(args, "no_history", False):
            # (a winner's typed with no winning tile: unsure, as `hand` records it)
            record_hand(args, "table", notation[p], results[p], context=results[p].hand.context,
                        options=results[p].options, note=note, status=typed_status(results[p]))


def add_table(sub: Any) -> None:
    """Register ``mahjong-score table``."""
    p = sub.add_parser(
        "table", help="score the four hands of a table and settle them in one call",
        description="Score four hands and settle them, e.g. mahjong-score table --ruleset rode-draak "
                    "--hand E=\"123m456m789m11z [777m]\" --hand S=\"123p456p789p2233z\" "
                    "--hand W=\"123s456s789s4455z\" --hand N=\"234p567s88m66z777z\" --winner E -w 1z. Give "
                    "the hands in seating order (the order of play); seat winds follow from --east (default: "
                    "the first player). The winner's hand includes the winning tile; the others have the "
                    "ruleset's hand size (13 tiles; 16 under hk-tw-16), a kong counting 3. Options such as "
                    "--win-by describe the winner's hand.")
    p.add_argument("--ruleset", "-r", default="rode-draak", type=ruleset_word,
                   help="ruleset id; default rode-draak")
    p.add_argument("--hand", action="append", default=[], metavar="PLAYER=NOTATION",
                   help="a player's hand (four times, in seating order)")
    # (needed: a forgotten --winner had settled the four hands as void, unread, every score 0, exit 0; _winner)
    p.add_argument("--winner", metavar="PLAYER", help="required: who went mahjong; 'none' for a void hand (001:134)")
    p.add_argument("--east", metavar="PLAYER", help="who is East this hand; default the first --hand")
    p.add_argument("--leader", metavar="PLAYER", help="the session leader (drew East, 001:126); default the first --hand")
    p.add_argument("--round-wind", default="E", type=wind_word, choices=["E", "S", "W", "N"],
                   help="round wind: E, S, W or N (or East …); default E")
    p.add_argument("--winning-tile", "-w", help="the winner's winning tile, e.g. 5p")
    p.add_argument("--win-by", default="discard", choices=WIN_BY, type=win_by_word,
                   help="where the winning tile came from (self-drawn, tsumo: wall; ron: discard); default discard")
    p.add_argument("--last-tile", action="store_true", help="the winner won on the last tile")
    p.add_argument("--first-turn", action="store_true", help="the winner won on the first turn")
    p.add_argument("--announced-wait", action="store_true", help="the winner had announced a waiting hand")
    p.add_argument("--kong-on-kong", action="store_true", help="the winner won on the replacement after two kongs")
    p.add_argument("--flag", action="append", default=[], metavar="NAME", help="a ruleset flag for the winner")
    p.add_argument("--player-flag", action="append", default=[], metavar="PLAYER=NAME",
                   help="a ruleset flag for one player, e.g. N=dead-hand (repeatable)")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE", help="a ruleset option for scoring (its name and value in any case, - or _ alike)")
    p.add_argument("--settle-option", action=TableSettleOptionAction, default=[], metavar="NAME=VALUE")
    p.add_argument("--explain", action="store_true", help="print each hand's full explanation")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_history_args(p)
    p.set_defaults(func=cmd_table)
