"""``mahjong-score``: the command line (a thin layer over :mod:`scoring` and :mod:`vision`).

Subcommands: ``hand`` (score notation), ``rules`` (list rulesets, rules, options) and the ones
registered in :data:`COMMANDS` by other modules (photo, settle, batch, …). Exit codes: 0 success,
1 a check failed (audit mismatch), 2 bad input (one line on stderr: ``mahjong-score: error: …``).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any, Callable, Sequence

from scoring import Context, HandError, RulesetError, available, explain, load_ruleset, parse_hand, score_hand
from scoring.engine import option_text
from scoring.hand import WIN_BY

#: subcommands defined elsewhere: name → "module:function" where function(subparsers) adds the
#: parser and sets ``func``. Imported lazily so a missing optional dependency only breaks its command.
COMMANDS: dict[str, str] = {
    "photo": "vision.pipeline:register",
    "eval": "vision.evalcmd:register",
    "settle": "scoring.table_cli:add_settle",
    "table": "vision.table_photos:add_table",  # scoring.table_cli with --photo
    "serve": "web.server:register",
    "batch": "vision.batch:register",
    "audit": "vision.audit:register",
    "webcam": "vision.webcam:register",
    "history": "scoring.history:register",
    "calibrate": "vision.tileset:register_calibrate",
    "tilesets": "vision.tileset:register_tilesets",
}


class UserError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (``mahjong-score: error: …``,
    naming the problem and pointing at ``--help``) and exit code 2, like every other bad input."""

    def error(self, message: str):  # type: ignore[override]
        line = f"{message} (see `{self.prog} --help`)"
        if _JSON_WANTED:  # `… --json` with a usage error: the JSON reader gets an object too
            print_json({"error": line, "exit_code": 2})
        self.exit(2, f"mahjong-score: error: {line}\n")


def add_context_args(p: argparse.ArgumentParser) -> None:
    """The options describing a hand's circumstances, shared by hand/photo/audit/batch."""
    g = p.add_argument_group("context")
    g.add_argument("--ruleset", "-r", default="nts", help="ruleset id (see `mahjong-score rules`); default nts")
    g.add_argument("--seat-wind", default="E", type=str.upper, choices=["E", "S", "W", "N"], help="own (seat) wind; default E")
    g.add_argument("--round-wind", default="E", type=str.upper, choices=["E", "S", "W", "N"], help="round (prevailing) wind; default E")
    g.add_argument("--winning-tile", "-w", help="the tile that completed the hand, e.g. 5p")
    g.add_argument("--win-by", default=None, choices=WIN_BY,
                   help="where the winning tile came from; wall/dead-wall = self-drawn; default discard")
    g.add_argument("--not-winner", action="store_true", help="score a hand that did not go mahjong")
    g.add_argument("--last-tile", action="store_true", help="won on the last tile of the wall / last discard")
    g.add_argument("--first-turn", action="store_true", help="won with the dealt tiles or on the first discard/draw")
    g.add_argument("--announced-wait", action="store_true", help="a waiting hand announced in advance")
    g.add_argument("--kong-on-kong", action="store_true", help="won on the replacement tile after two kongs in one turn")
    g.add_argument("--dealer", dest="dealer", action="store_true", default=None, help="the player is the dealer (default: seat wind E)")
    g.add_argument("--not-dealer", dest="dealer", action="store_false", help="the player is not the dealer")
    g.add_argument("--dealer-streak", type=int, default=0, help="consecutive dealer wins before this hand (004 連莊)")
    g.add_argument("--discards", type=int, help="discarded tiles lying in the middle of the table at the win, the winning tile not counted (004 十張內)")
    g.add_argument("--flag", action="append", default=[], metavar="NAME", help="a ruleset-specific circumstance (repeatable)")
    g.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="a ruleset option (see `mahjong-score rules RULESET`); repeatable")


#: options of :func:`add_context_args` that describe how the hand was won (meaningless for a non-winner)
WIN_OPTIONS = ("last_tile", "first_turn", "kong_on_kong")


def context_from_args(args: argparse.Namespace) -> Context:
    """The :class:`scoring.Context` described by :func:`add_context_args` options.

    Raises UserError when ``--not-winner`` is combined with an option describing the win
    (``--win-by``, ``--last-tile``, ``--first-turn``, ``--kong-on-kong``), and HandError for values
    :class:`scoring.Context` refuses.
    """
    if args.not_winner:
        given = ([f"--win-by {args.win_by}"] if args.win_by is not None else []) + [
            "--" + name.replace("_", "-") for name in WIN_OPTIONS if getattr(args, name)]
        if given:
            raise UserError(f"--not-winner contradicts {', '.join(given)}: "
                            f"{'they describe' if len(given) > 1 else 'it describes'} how the hand was won")
    return Context(
        seat_wind=args.seat_wind, round_wind=args.round_wind, winner=not args.not_winner,
        win_by=args.win_by or "discard", last_tile=args.last_tile, first_turn=args.first_turn,
        announced_wait=args.announced_wait, kong_on_kong=args.kong_on_kong, dealer=args.dealer,
        dealer_streak=args.dealer_streak, discards=args.discards, flags=frozenset(args.flag),
    )


def options_from_args(args: argparse.Namespace) -> dict[str, str]:
    """``--option a=b`` pairs as a dict; UserError for a malformed pair or an option given twice
    with different values."""
    out: dict[str, str] = {}
    for item in args.option:
        if "=" not in item:
            raise UserError(f"--option {item!r} must be NAME=VALUE")
        k, v = (x.strip() for x in item.split("=", 1))
        if not k:
            raise UserError(f"--option {item!r} has no option name (NAME=VALUE)")
        if k in out and out[k] != v:
            raise UserError(f"--option {k} is given twice ({k}={out[k]} and {k}={v})")
        out[k] = v
    return out


#: ``--json`` is among the arguments of this run (:func:`main`): errors are a JSON object on stdout too
_JSON_WANTED = False
#: a command has printed its JSON already (then an error after it adds no second object)
_JSON_PRINTED = False


def print_json(obj: Any) -> None:
    global _JSON_PRINTED
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    _JSON_PRINTED = True


def fail_json(message: str, exit_code: int = 2) -> None:
    """With ``--json``: the error as one JSON object ``{"error": …, "exit_code": …}`` on stdout,
    unless the command has already printed its JSON (e.g. ``photo``'s reading, which says why it is
    not legal). The one-line error on stderr is printed by the caller as always."""
    if _JSON_WANTED and not _JSON_PRINTED:
        print_json({"error": message, "exit_code": exit_code})


# ------------------------------------------------------------------------------------ hand
def cmd_hand(args: argparse.Namespace) -> int:
    ctx = context_from_args(args)
    rs = load_ruleset(args.ruleset)
    # a ruleset with its own check_hand decides the tile count (score_hand calls it)
    sizes = None if getattr(rs.module, "check_hand", None) else (rs.hand_size,)
    hand = parse_hand(args.notation, winning_tile=args.winning_tile, context=ctx, sizes=sizes)
    result = score_hand(hand, rs, options_from_args(args))
    from scoring.history import record_hand  # the audit trail (--db, --no-history)

    record_hand(args, "hand", args.notation, result, context=ctx, options=options_from_args(args))
    if args.json:
        print_json(result.to_json())
    else:
        print(explain(result))
    return 0


# ------------------------------------------------------------------------------------ rules
def cmd_rules(args: argparse.Namespace) -> int:
    if not args.ruleset:
        ids = available()
        if args.json:
            print_json([{"id": i, "name": load_ruleset(i).name, "seed": load_ruleset(i).seed} for i in ids])
        else:
            for i in ids:
                rs = load_ruleset(i)
                print(f"{i:<22} {rs.name}  ({len(rs.rules)} rules, {len(rs.options)} options; seed {rs.seed})")
        return 0
    rs = load_ruleset(args.ruleset)
    if args.json:
        print_json({
            "id": rs.id, "name": rs.name, "seed": rs.seed, "description": rs.description,
            "hand_size": rs.hand_size, "limit": rs.limit, "base": rs.base, "shapes": list(rs.shapes),
            "notes": list(rs.notes),
            "options": [{"name": o.name, "default": o.default, "choices": list(o.choices),
                         "ambiguity": o.ambiguity, "doc": o.doc} for o in rs.options.values()],
            "rules": [{"id": r.id, "name": r.name, "gloss": r.gloss, "kind": r.kind, "value": r.value,
                       "value_option": r.value_option, "applies_to": r.applies_option or r.applies_to,
                       "group": r.group, "excludes": list(r.excludes), "when": dict(r.when),
                       "option": r.option, "source": r.source} for r in rs.rules],
        })
        return 0
    print(f"{rs.name} ({rs.id}) — seed {rs.seed}; {rs.hand_size}-tile game"
          + (f"; limit {rs.limit}" if rs.limit else "") + (f"; based on {rs.base}" if rs.base else ""))
    if rs.description:
        print(rs.description)
    for n in rs.notes:
        print(f"note: {n}")
    print("\nrules:")
    for r in rs.rules:
        val = f"{r.value:g}" if not r.value_option else f"option {r.value_option}"
        who = r.applies_option and f"option {r.applies_option}" or r.applies_to
        extra = []
        if r.group:
            extra.append(f"group {r.group}")
        if r.when:
            extra.append("when " + ", ".join(f"{k}={option_text(v)}" for k, v in r.when.items()))
        if r.excludes:
            extra.append("excludes " + ", ".join(r.excludes))
        print(f"  {r.id:<34} {r.kind:<10} {val:>8}  {who:<10} {r.label()}  ({r.source})"
              + (f"  [{'; '.join(extra)}]" if extra else ""))
    print("\noptions (--option NAME=VALUE):")
    for o in rs.options.values():
        amb = f" [{o.ambiguity}]" if o.ambiguity else ""
        print(f"  {o.name} = {option_text(o.default)}  (choices: {', '.join(map(option_text, o.choices))}){amb}\n      {o.doc}")
    return 0


# ------------------------------------------------------------------------------------ main
def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="mahjong-score",
        description="Score a finished mahjong hand — from notation or from a photo — with a line-by-line explanation.")
    p.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    h = sub.add_parser("hand", help="score a hand written in notation",
                       description="Score a hand written in notation, e.g. "
                                   "mahjong-score hand \"123m456p789s11z [777p]\" --winning-tile 1z. "
                                   "Notation: concealed tiles compact (123m44p55z; 1z-7z = E S W N White Green Red), "
                                   "[777p] exposed meld, (5555m) concealed kong, +1f3y flowers/seasons, win:5p winning tile.")
    h.add_argument("notation", help="the hand, e.g. \"123m456p789s11z [777p] +1f\"")
    add_context_args(h)
    h.add_argument("--json", action="store_true", help="print one JSON object")
    from scoring.history import add_history_args

    add_history_args(h)
    h.set_defaults(func=cmd_hand)

    r = sub.add_parser("rules", help="list rulesets, or one ruleset's rules and options",
                       description="Without RULESET: the rulesets (id, name, number of rules and options, "
                                   "seed file). With RULESET: its rules (id, kind, value, who gets it, name, seed "
                                   "line, group, conditions, exclusions) and its options (default, choices, the "
                                   "ambiguity each settles — set them with --option NAME=VALUE), e.g. "
                                   "mahjong-score rules rode-draak.")
    r.add_argument("ruleset", nargs="?", help="ruleset id (see `mahjong-score rules`)")
    r.add_argument("--json", action="store_true",
                   help="print one JSON object: the list of rulesets, or the ruleset with its rules and options")
    r.set_defaults(func=cmd_rules)

    for name, target in COMMANDS.items():
        mod, fn = target.split(":")
        try:
            register: Callable[[Any], None] = getattr(importlib.import_module(mod), fn)
        except ImportError as e:  # an optional dependency is missing: the command explains itself
            err = f"command {name!r} is unavailable: {e}"
            q = sub.add_parser(name, help=f"(unavailable: {e})")
            q.set_defaults(func=lambda a, err=err: _fail(err))
            continue
        register(sub)
    return p


def _fail(msg: str) -> int:
    raise UserError(msg)


def package_version() -> str:
    """The installed version of the ``mahjong-score`` distribution (pyproject.toml), or
    ``unknown`` when the package is not installed (run from a bare checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mahjong-score")
    except PackageNotFoundError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    global _JSON_WANTED, _JSON_PRINTED
    argv = list(sys.argv[1:] if argv is None else argv)
    _JSON_WANTED, _JSON_PRINTED = "--json" in argv, False
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (HandError, RulesetError, UserError) as e:
        fail_json(printable(e))
        print(f"mahjong-score: error: {printable(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError as e:
        if stdout_closed():  # `mahjong-score history | head`: the reader left; nothing to report
            _quiet_stdout()
            return 0
        # a pipe to a helper process broke (e.g. multiprocessing's resource tracker died): an error,
        # never a silent success
        print(f"mahjong-score: error: {args.command}: a pipe to a helper process broke "
              f"({e.strerror or 'broken pipe'}); the work was not finished — rerun the command "
              f"(batch resumes where it stopped)", file=sys.stderr)
        return 2


def printable(msg: object) -> str:
    """``msg`` as one printable line: control characters (newline, ESC, …) escaped as Python writes
    them (``\\n``, ``\\x1b``), so a file name cannot break or recolour the terminal line."""
    s = str(msg)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in s)


def stdout_closed() -> bool:
    """True when standard output is a pipe or socket whose reader has gone (poll reports an error or
    hang-up on it), or is already closed."""
    import select

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # no descriptor (replaced in-process): closed or not
        return bool(getattr(sys.stdout, "closed", False))
    try:
        p = select.poll()
        p.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, ev in p.poll(0))
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no poll (Windows)
        return False


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush does not raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    # `python -m cli`: run the importable module's main, so that commands doing `import cli` raise
    # the same UserError class that main catches
    import cli as _cli

    sys.exit(_cli.main())
