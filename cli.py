"""``mahjong-score``: the command line (a thin layer over :mod:`scoring` and :mod:`vision`).

Subcommands: ``hand`` (score notation), ``rules`` (list rulesets, rules, options) and the ones
registered in :data:`COMMANDS` by the modules of :mod:`commands` (photo, settle, batch, …). Exit
codes: 0 success, 1 a check failed (audit mismatch), 2 bad input (one line on stderr:
``mahjong-score: error: …``): :class:`UserError` (= :class:`scoring.errors.InputError`, whose kinds
include :class:`vision.errors.BatchError` and :class:`web.errors.ServeError`), HandError,
RulesetError and VisionError.

Layers: this module and :mod:`commands` → :mod:`web` / :mod:`vision` → :mod:`scoring`; nothing
below imports the command line (``tests/test_layers.py``).
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Callable, Sequence

from commands import common
from commands.common import (  # noqa: F401  (re-exported: cli.UserError, cli.print_json, …)
    WIN_OPTIONS, OneLineParser, UserError, add_context_args, context_from_args, fail_json, options_from_args,
    print_json, printable)
from scoring import HandError, RulesetError, available, explain, load_ruleset, parse_hand, score_hand
from scoring.engine import option_text
from vision.errors import VisionError

#: subcommands defined elsewhere: name → "module:function" where function(subparsers) adds the
#: parser and sets ``func``. Imported lazily so a missing optional dependency only breaks its command.
COMMANDS: dict[str, str] = {
    "photo": "commands.photo:register",
    "eval": "commands.evaluation:register",
    "settle": "commands.settle:add_settle",
    "table": "commands.table_photos:add_table",  # commands.settle's table with --photo
    "serve": "commands.serve:register",
    "batch": "commands.batch:register",
    "audit": "commands.audit:register",
    "webcam": "commands.webcam:register",
    "history": "commands.history:register",
    "calibrate": "commands.tilesets:register_calibrate",
    "tilesets": "commands.tilesets:register_tilesets",
}


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
    argv = list(sys.argv[1:] if argv is None else argv)
    common._JSON_WANTED, common._JSON_PRINTED = "--json" in argv, False
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (HandError, RulesetError, UserError) as e:  # UserError: scoring.errors.InputError and its kinds
        fail_json(printable(e))
        print(f"mahjong-score: error: {printable(e)}", file=sys.stderr)
        return 2
    except VisionError as e:  # a photo, model or tile-set problem a command did not word itself: its first line
        line = printable(str(e).splitlines()[0] if str(e) else type(e).__name__)
        fail_json(line)
        print(f"mahjong-score: error: {line}", file=sys.stderr)
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
