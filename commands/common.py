"""What the subcommands share: the error they raise for bad input, one-line usage errors, the
context and ``--option`` arguments, JSON output and the history record of a photo reading.

The command line is the top layer: ``cli.py`` (the parser, :data:`cli.COMMANDS`, exit codes) and
the modules of this package (one per subcommand: its arguments and ``cmd_*`` function). They import
:mod:`web`, :mod:`vision` and :mod:`scoring`; nothing there imports them.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from scoring import Context, load_ruleset
from scoring.engine import keyed_options
from scoring.errors import ECHO_CHARS, InputError
from scoring.history import ENV_DB
from scoring.hand import WIN_BY, WON_FIELDS, win_by_word
from scoring.notation import is_whole_number

#: bad input from the user: printed as one line, exit code 2. It is :class:`scoring.errors.InputError`,
#: the base that the library's bad-input errors share (e.g. :class:`vision.errors.BatchError`), so
#: that one ``except UserError`` in :func:`cli.main` reports them all.
UserError = InputError


#: the namespace attribute where the options given so far are kept while parsing (removed after)
_GIVEN = "_options_given"


def _once(action: argparse.Action, parser, namespace, value, option_string) -> None:
    """Refuse an option given a second time with another value (``-w 8p -w 6z``, ``--dealer
    --not-dealer``, ``-r nts -r swedish``): the last one had silently won, and the score changed with the
    order (a tester's find). The same value twice is taken once (in any case: ``-w 1m -w 1M``), as ``--option``
    is (README)."""
    given = namespace.__dict__.setdefault(_GIVEN, {})
    same = (lambda a, b: a.casefold() == b.casefold() if isinstance(a, str) and isinstance(b, str) else a == b)
    if action.dest in given and not same(given[action.dest][1], value):
        first, old = given[action.dest]

        def said(o, v):  # (the argument as typed: `--sets a b`, not the parsed ('a', 'b'))
            if isinstance(v, bool) or v is None or action.nargs == 0:
                return o
            return f"{o} {' '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
        parser.error(f"{said(first, old)} and {said(option_string, value)} both given: they contradict each "
                     f"other; give one")
    given.setdefault(action.dest, (option_string, value))


class _Once:
    """The store actions with :func:`_once`: a flag (``nargs`` 0: store_const/true/false) stores its const."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None:
            _once(self, parser, namespace, self.const if self.nargs == 0 else values, option_string)
        super().__call__(parser, namespace, values, option_string)


class _OnceStore(_Once, argparse._StoreAction):
    pass


class _OnceConst(_Once, argparse._StoreConstAction):
    pass


class _OnceTrue(_Once, argparse._StoreTrueAction):
    pass


class _OnceFalse(_Once, argparse._StoreFalseAction):
    pass


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (``mahjong-score: error: …``,
    naming the problem and pointing at ``--help``) and exit code 2, like every other bad input; an
    option of one value given twice with different values is such an error (:func:`_once`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # (argparse's registry of action names, shared with this parser's argument groups)
        self.register("action", None, _OnceStore)
        self.register("action", "store", _OnceStore)
        self.register("action", "store_const", _OnceConst)
        self.register("action", "store_true", _OnceTrue)
        self.register("action", "store_false", _OnceFalse)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        ns, extras = super().parse_known_args(args, namespace)
        ns.__dict__.pop(_GIVEN, None)
        return ns, extras

    def error(self, message: str):  # type: ignore[override]
        # the values argparse repeats, cut as other errors cut them (a tester's 10 KB --exposed value was
        # printed whole: "unrecognized arguments: --exposed xxx…")
        message = re.sub(r"\S{%d,}" % (ECHO_CHARS + 21), lambda m: m.group()[:ECHO_CHARS] + f"… ({len(m.group()):,} "
                         f"characters)", message)
        line = f"{printable(message)} (see `{self.prog} --help`)"
        if _JSON_WANTED:  # `… --json` with a usage error: the JSON reader gets an object too
            fail_json(line)
        self.exit(2, f"mahjong-score: error: {line}\n")


class JoinRepeats(argparse.Action):
    """An option that may be given more than once, its values joined with commas into one string
    (``--fix 3=5p --fix 7=1z`` is ``--fix 3=5p,7=1z``); given once, its value as it is. Before, the
    last one given silently replaced the others."""

    def __call__(self, parser, namespace, values, option_string=None):
        if not str(values).strip():  # (`--fix ""`, `--add=`: a correction lost in the typing)
            parser.error(f"{option_string} is empty: give POS=TILE (e.g. {option_string} 3=5p), or leave it out")
        old = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, f"{old},{values}" if old else values)


class NotAHandReading(UserError):
    """A table's photo read, whose reading is no legal hand of the table's (``reading``: its notation): in a
    hand nobody won, noted rather than refused (commands.settle); else said as any bad input."""

    def __init__(self, reading: str, message: str) -> None:
        super().__init__(message)
        self.reading = reading


def wind_word(value: str) -> str:
    """``--seat-wind``/``--round-wind``'s value: ``E``, ``e``, ``East`` → ``E`` (:func:`scoring.tiles.wind_letter`, as
    a manifest's seat_wind cell takes it: a tester's --seat-wind east was refused); anything else for argparse's
    choices to refuse, a letter upper-cased, a word as typed (a breaker's ``Sud`` had been refused as ``'SUD'``)."""
    from scoring.tiles import wind_letter

    value = half_width(value).strip()
    return wind_letter(value) or (value.upper() if len(value) == 1 else value)


def add_context_args(p: argparse.ArgumentParser) -> None:
    """The options describing a hand's circumstances, shared by hand/photo/audit/batch."""
    g = p.add_argument_group("context")
    g.add_argument("--ruleset", "-r", default="nts", type=ruleset_word,
                   help="ruleset id (see `mahjong-score rules`); default nts")
    g.add_argument("--seat-wind", default="E", type=wind_word, choices=["E", "S", "W", "N"],
                   help="own (seat) wind: E, S, W or N (or East …); default E")
    g.add_argument("--round-wind", default="E", type=wind_word, choices=["E", "S", "W", "N"],
                   help="round (prevailing) wind: E, S, W or N (or East …); default E")
    g.add_argument("--winning-tile", "-w", help="the tile that completed the hand, e.g. 5p")
    g.add_argument("--win-by", default=None, choices=WIN_BY, type=win_by_word,
                   help="where the winning tile came from; wall/dead-wall = self-drawn (self-drawn, tsumo: wall; "
                        "ron: discard); default discard")
    g.add_argument("--not-winner", action="store_true", help="score a hand that did not go mahjong")
    g.add_argument("--last-tile", action="store_true", help="won on the last tile of the wall / last discard")
    g.add_argument("--first-turn", action="store_true", help="won with the dealt tiles or on the first discard/draw")
    g.add_argument("--announced-wait", action="store_true", help="a waiting hand announced in advance")
    g.add_argument("--kong-on-kong", action="store_true", help="won on the replacement tile after two kongs in one turn")
    g.add_argument("--dealer", dest="dealer", action="store_true", default=None, help="the player is the dealer (default: seat wind E)")
    g.add_argument("--not-dealer", dest="dealer", action="store_false", help="the player is not the dealer")
    g.add_argument("--dealer-streak", type=whole_number, default=0, help="consecutive dealer wins before this hand (004 連莊)")
    g.add_argument("--discards", type=whole_number, help="how many discarded tiles lie in the middle of the table at the win (a number), the winning tile not counted (004 十張內)")
    g.add_argument("--flag", action="append", default=[], metavar="NAME", type=flag_word,
                   help="a ruleset-specific circumstance (repeatable)")
    g.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE", type=half_width,
                   help="a ruleset option (see `mahjong-score rules RULESET`; its name and value in any "
                        "case, - or _ alike); repeatable")


#: options of :func:`add_context_args` that describe how the hand was won (meaningless for a non-winner;
#: scoring.hand.WON_FIELDS)
WIN_OPTIONS = WON_FIELDS


def whole_number(text: str) -> int:
    """argparse ``type`` of the whole-number options (``--claimed``, ``--dealer-streak``, ``--port`` …):
    ASCII digits, a minus sign allowed (the command says what it must be at least). ``int()`` alone takes
    ``30_0`` as 300 and other scripts' digits (a tester's ``audit --claimed 30_0`` was compared as a claim
    of 300, and ``--claimed ٣٠`` as 30), where ``--fix`` refuses them."""
    text = half_width(text)
    if not is_whole_number(text):
        raise argparse.ArgumentTypeError(f"{printable(text)[:40]!r} is not a whole number (digits 0-9)")
    return int(text)


def flag_word(text: str) -> str:
    """``--flag``'s value, half-width (:func:`half_width`); an empty one is refused (a breaker's ``--flag ""`` had been
    taken without a word, where every other empty value is refused). Raises argparse.ArgumentTypeError."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty flag: give a flag's name (mahjong-score rules RULESET lists them), "
                                         "or leave --flag out")
    return half_width(text)


def half_width(text: str) -> str:
    """``text`` with the full-width forms a CJK keyboard types made ASCII (:data:`scoring.notation.FULL_WIDTH`, as
    the hand notation reads them: a reviewer's ``-r ｎｔｓ``, ``--seat-wind Ｅ``, ``--discards ４`` had been
    refused where ``１２３ｍ`` was read); argparse's ``type`` of the ruleset, flags, options and counts."""
    from scoring.notation import FULL_WIDTH

    return text.translate(FULL_WIDTH)


def ruleset_word(text: str) -> str:
    """argparse ``type`` of ``--ruleset``: :func:`half_width`, then a shipped ruleset's id in any case
    (:func:`scoring.engine.ruleset_id`: ``-r NTS`` is nts); another name is refused where it is loaded."""
    from scoring.engine import ruleset_id

    return ruleset_id(half_width(text))


def exposed_arg(text: str) -> str:
    """argparse ``type`` of ``--exposed``: the text as given; an empty one is refused (it had been taken
    as no --exposed at all, the photo's own melds read)."""
    if not text.strip():
        raise argparse.ArgumentTypeError('no melds named: name them, e.g. "[777s] (2222m)", or say none')
    return text


def context_from_args(args: argparse.Namespace) -> Context:
    """The :class:`scoring.Context` described by :func:`add_context_args` options.

    Raises UserError when ``--not-winner`` is combined with an option describing the win
    (``--win-by`` other than the default discard, ``--last-tile``, ``--first-turn``, ``--kong-on-kong``),
    and HandError for values
    :class:`scoring.Context` refuses.
    """
    if args.not_winner and getattr(args, "winning_tile", None) and not getattr(args, "manifest", None):
        # (the scoring's "a non-winning hand has no winning tile" had said neither which two nor what to do: a new
        # user's `photo --demo --not-winner --winning-tile 5p`; a batch's manifest rows may say they won, and take
        # the --winning-tile default then)
        raise UserError("--not-winner contradicts --winning-tile: a non-winning hand has no winning tile (leave out "
                        "one of them)")
    if args.not_winner:
        # (a flag naming one of them sets it too, scoring.hand.FIELD_FLAGS: `--flag last-tile`)
        by_flag = Context(flags=frozenset(args.flag))
        flagged = {name for name in WIN_OPTIONS if getattr(by_flag, name)}
        # (--win-by discard is the default, said of every hand of a table by a tester's script: no contradiction)
        given = ([f"--win-by {args.win_by}"] if args.win_by not in (None, "discard") else []) + [
            "--" + name.replace("_", "-") for name in WIN_OPTIONS if getattr(args, name)] + [
            f"--flag {name.replace('_', '-')}" for name in WIN_OPTIONS if name in flagged and not getattr(args, name)]
        if given:
            raise UserError(f"--not-winner contradicts {', '.join(given)}: "
                            f"{'they describe' if len(given) > 1 else 'it describes'} how the hand was won")
    return Context(
        seat_wind=args.seat_wind, round_wind=args.round_wind, winner=not args.not_winner,
        win_by=args.win_by or "discard", last_tile=args.last_tile, first_turn=args.first_turn,
        announced_wait=args.announced_wait, kong_on_kong=args.kong_on_kong, dealer=args.dealer,
        dealer_streak=args.dealer_streak, discards=args.discards, flags=frozenset(args.flag),
    )


def options_from_args(args: argparse.Namespace, settle: bool = False) -> dict[str, str]:
    """``--option a=b`` pairs as a dict, each name spelt as the rulesets spell them
    (:func:`scoring.engine.keyed_options`: ``Seat-Round-Wind`` is ``seat_round_wind``); an option given
    twice with values that mean the same is taken once: for ``args.ruleset``'s options
    (:meth:`scoring.engine.Ruleset.same_value`, a choice in any case: ``once`` and ``ONCE``), or with
    ``settle``, for its settlement scheme's (:func:`scoring.settle.same_settle_value`: a player's label as
    typed). UserError for a pair without ``=``; RulesetError for one without a name, an option given twice
    with values that differ (naming both, as every entry point does) or an unknown ``args.ruleset`` then."""
    pairs: list[tuple[str, str]] = []
    for item in args.option:
        if "=" not in item:
            raise UserError(f"--option {item!r} must be NAME=VALUE")
        pairs.append(tuple(x.strip() for x in item.split("=", 1)))

    if settle:
        from scoring.settle import keyed_settle_options

        return keyed_settle_options(args.ruleset, pairs, "--option")
    # (the ruleset loaded only for an option given twice)
    return keyed_options(pairs, "--option", lambda key, a, b: load_ruleset(args.ruleset).same_value(key, a, b))


def check_ruleset_args(args: argparse.Namespace, rows_say_more: bool = False):
    """The ``--ruleset`` loaded, after checking that it has every ``--flag`` and ``--option`` given:
    for the commands that read many photos (``batch``, ``webcam``), so that a misspelt one is one line
    and exit 2 before any is read, not an error on every photo; a flag that the context contradicts
    (a win's flag with ``--not-winner``, rode-draak's ``flower-replacement`` without ``--win-by dead-wall``,
    …: :func:`scoring.engine.check_context_flags`) too, unless ``rows_say_more`` (a batch manifest's
    rows may give the win_by or winner that the flag needs: each row is judged with its own cells).
    Raises RulesetError / HandError."""
    from scoring.engine import check_context_flags, check_flags

    rs = load_ruleset(args.ruleset)
    (check_flags if rows_say_more else check_context_flags)(rs, context_from_args(args))
    rs.resolve_options(options_from_args(args))
    return rs


#: ``--json`` is among the arguments of this run (:func:`main`): errors are a JSON object on stdout too
_JSON_WANTED = False
#: a command has printed its JSON already (then an error after it adds no second object)
_JSON_PRINTED = False


def _ascii_only() -> bool:
    """Standard output's encoding is not a Unicode one (``PYTHONIOENCODING=cp1252``, a Windows console): JSON is
    then written with ``\\uXXXX`` escapes, which every JSON reader reads (the stream's backslash escapes of a
    character it lacks are no JSON: a reviewer's ``°`` under ascii gave "Invalid \\escape")."""
    enc = (getattr(sys.stdout, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "")
    return not enc.startswith(("utf", "ucs"))


def print_json(obj: Any) -> None:
    """``obj`` as indented JSON on stdout, written whole (built first: a value JSON cannot hold raised half-way
    through, and the error's object then followed a half-written one)."""
    global _JSON_PRINTED
    text = json.dumps(obj, ensure_ascii=_ascii_only(), indent=2)
    sys.stdout.write(text + "\n")
    _JSON_PRINTED = True


def fail_json(message: str, exit_code: int = 2) -> None:
    """With ``--json``: the error as one JSON object ``{"error": …, "exit_code": …}`` on stdout,
    unless the command has already printed its JSON (e.g. ``photo``'s reading, which says why it is
    not legal). The one-line error on stderr is printed by the caller as always."""
    global _JSON_PRINTED
    if _JSON_WANTED and not _JSON_PRINTED:
        # on one line: a JSON object either way, and the last line of `webcam --json`'s JSON lines (it had
        # been printed over four indented lines, which a line-by-line reader cannot parse)
        try:  # (a stdout that cannot be written, a full disk: the caller's one line on stderr says why)
            print(json.dumps({"error": message, "exit_code": exit_code}, ensure_ascii=_ascii_only()), flush=True)
        except OSError:
            pass
        _JSON_PRINTED = True


def printable(msg: object) -> str:
    """``msg`` as one printable line: control characters (newline, ESC, …) escaped as Python writes
    them (``\\n``, ``\\x1b``), so a file name cannot break or recolour the terminal line."""
    from scoring.history import one_line_text  # (not vision.io: numpy and Pillow on every usage error, a reviewer's)

    return one_line_text(msg)


def db_path(text: str) -> str:
    """``--db``'s value: a path, not an empty one (a tester's `--db ""` had fallen back to the user's own history
    database, read or written without a word). Raises argparse.ArgumentTypeError."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: give the history database's file")
    return text


def add_history_args(p: argparse.ArgumentParser) -> None:
    """``--db PATH`` and ``--no-history`` (for every command that scores)."""
    g = p.add_argument_group("history")
    g.add_argument("--db", metavar="PATH", type=db_path,
                   help=f"history database (default ${ENV_DB} or the user data folder)")
    g.add_argument("--no-history", action="store_true", help="do not record this score in the history")


#: a command line word that is a list of corrections, not a photo (``4=6m``, ``17=0x,18=-``; cli.py's
#: ``_join_split_lists`` takes it with a leading comma too)
CORRECTIONS = re.compile(r"\d+=[0-9A-Za-z-]+(,\d+=[0-9A-Za-z-]+)*,?")


def check_photo_word(image: str | None) -> None:
    """Raise UserError when the photo argument ``image`` is a list of corrections and no such file exists: a space
    after a comma split a ``--fix``/``--add`` list (a referee's ``--fix 3=5m, 4=6m`` on the demo was told "give
    either an image or --demo, not both")."""
    if image and CORRECTIONS.fullmatch(image):
        from pathlib import Path

        if not Path(image).exists():
            raise UserError(f"'{image}' is no photo but corrections: a space split a --fix or --add list; write the "
                            f"list with no spaces (e.g. --fix 3=5m,4=6m)")


def check_annotate_target(annotate: str, photo: Any) -> None:
    """``--annotate FILE`` of ``photo`` and ``audit``, checked before the photo is read, scored and recorded:
    UserError when FILE is the photo itself (the same path, a hard or symbolic link) or is a file
    :func:`vision.annotate.save` could not write (a missing folder, another format: a new user's
    ``--annotate /nonexist/x.jpg`` was recorded in the history as scored, then failed)."""
    from pathlib import Path

    from vision.annotate import check_writable
    from vision.errors import ImageError
    from vision.io import same_file

    if same_file(Path(annotate), Path(photo)):
        raise UserError(f"--annotate {annotate} is the input photo; choose another file")
    try:
        check_writable(annotate)
    except ImageError as e:
        raise UserError(str(e)) from None


def record_photo(args: argparse.Namespace, command: str, source: Any, res: Any, **kw: Any) -> list[int]:
    """Record one photo reading in the history chosen by ``args`` (``--db``/``--no-history``);
    the context, options and ruleset come from ``args`` unless given. Best effort (see
    :func:`scoring.history.record`)."""
    from vision.record import record_photo as record_in_history

    if getattr(args, "no_history", False):
        return []
    if "context" not in kw:
        kw["context"] = context_from_args(args)
    return record_in_history(args, command, source, res, **kw)
