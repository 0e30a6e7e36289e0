"""``mahjong-score``: the command line (a thin layer over :mod:`scoring` and :mod:`vision`).

Subcommands: every one is listed in :data:`COMMANDS`, each defined in a module of :mod:`commands`
(hand, rules, photo, settle, batch, …). Exit codes: 0 success, 1 a check failed (audit mismatch), 2 bad input (one line on stderr:
``mahjong-score: error: …``): :class:`UserError` (= :class:`scoring.errors.InputError`, whose kinds
include :class:`vision.errors.BatchError` and :class:`web.errors.ServeError`), HandError,
RulesetError and VisionError.

Layers: this module and :mod:`commands` → :mod:`web` / :mod:`vision` → :mod:`scoring`; nothing
below imports the command line (``tests/test_layers.py``).
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import Any, Callable, Sequence

from commands import common
from commands.common import (  # noqa: F401  (re-exported: cli.UserError, cli.print_json, …)
    WIN_OPTIONS, OneLineParser, UserError, add_context_args, add_history_args, context_from_args, fail_json,
    options_from_args, print_json, printable)
from scoring import HandError, RulesetError
from vision.errors import VisionError

#: every subcommand, in the order of ``--help``: name → "module:function" where function(subparsers)
#: adds the parser and sets ``func``. Imported lazily so a missing optional dependency only breaks
#: its command.
COMMANDS: dict[str, str] = {
    "hand": "commands.hand:register",
    "rules": "commands.rules:register",
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


# ------------------------------------------------------------------------------------ main
def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="mahjong-score",
        description="Score a finished mahjong hand — from notation or from a photo — with a line-by-line explanation.")
    p.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

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


def _join_negative_positions(argv: list[str]) -> list[str]:
    """``--fix -1=5p`` as ``--fix=-1=5p``: argparse takes a value starting with "-" for an option
    ("expected one argument"); joined, the position is refused as below 1 (a tester's find)."""
    out: list[str] = []
    for a in argv:
        if out and out[-1] in ("--fix", "--add") and re.fullmatch(r"-\d+\s*=.*", a, re.S):
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


#: a correction or a list of them (``4=6m``, ``,4=6m``, ``17=0x,18=-``): commands.common's, a leading comma allowed
_CORRECTIONS = re.compile(",?" + common.CORRECTIONS.pattern)


def _join_split_lists(argv: list[str]) -> list[str]:
    """``--fix 3=5m, 4=6m`` (or ``3=5m ,4=6m``) as ``--fix 3=5m,4=6m``: a space after or before a comma split the
    list, and its rest became the photo (a referee's was told "give either an image or --demo, not both") or an
    unrecognised argument. Joined only where the comma says the list goes on."""
    out: list[str] = []
    for a in argv:
        prev = out[-1] if out else ""
        after_list = len(out) >= 2 and (out[-2] in ("--fix", "--add") or out[-2].startswith(("--fix=", "--add=")))
        own = prev.startswith(("--fix=", "--add="))
        if (after_list or own) and _CORRECTIONS.fullmatch(a) and (prev.endswith(",") or a.startswith(",")):
            out[-1] = prev + a
        else:
            out.append(a)
    return out


def _interrupted(who: str) -> int:
    """A Ctrl-C said in one line (``WHO: interrupted`` on stderr; with ``--json``, the one error object):
    exit code 130, the shell's for SIGINT."""
    fail_json("interrupted", 130)
    print(f"{who}: interrupted", file=sys.stderr)
    return 130


#: the exit code of an error no command foresaw (a bug): not 1, which `audit` gives a claim that does not
#: match, nor 2, bad input
INTERNAL_ERROR = 3


def _never_unencodable() -> None:
    """Standard output and error write a character their encoding lacks as an escape, never raise: a tester's
    ``PYTHONIOENCODING=cp1252`` (as Windows redirects output) had ``audit`` of an hk-tw-16 hand end in a
    UnicodeEncodeError, its verdict lost."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # (replaced in-process, or closed)
            pass


def _options_after_the_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """A command's option typed before the command (``mahjong-score --no-history photo --demo``) is refused
    naming where it goes; argparse had said "unrecognized arguments: --no-history", and the top-level
    ``--help`` lists no such option (a new user's). Raises SystemExit(2) through ``parser.error``."""
    at = next((i for i, a in enumerate(argv) if a in COMMANDS), None)
    early = [a for a in argv[:at] if a.startswith("-") and a not in ("-h", "--help", "--version")] if at else []
    if not early:
        return
    # (only an option the command has: a misspelt one, `--verison photo`, had been told to go after the command,
    # there to be unrecognized again; a reviewer's)
    sub = next((a.choices.get(argv[at]) for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    opt = early[0].split("=", 1)[0]
    action = sub._option_string_actions.get(opt) if sub is not None else None
    if action is not None:
        typed = early[0] if action.nargs != 0 else opt  # (`--no-history=1` is no option of it either way)
        parser.error(f"{opt} goes after the command: mahjong-score {argv[at]} {typed} …")


def main(argv: Sequence[str] | None = None) -> int:
    _never_unencodable()
    argv = _join_split_lists(_join_negative_positions(list(sys.argv[1:] if argv is None else argv)))
    common._JSON_WANTED, common._JSON_PRINTED = "--json" in argv, False
    try:  # (the commands' modules, numpy and OpenCV among them, are imported here: a Ctrl-C then had a traceback)
        parser = build_parser()
        _options_after_the_command(parser, argv)
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        return _interrupted("mahjong-score")
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
    except KeyboardInterrupt:  # (Ctrl-C in a photo's read or a long audit: one line, not a traceback; a batch says
        # what it kept itself)
        return _interrupted(f"mahjong-score: {args.command}")
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
    except OSError as e:  # (a full disk under `> out.json`, a file that went away: the system's words, exit 2)
        if os.environ.get("MAHJONG_SCORE_DEBUG"):
            raise
        where = f" ({printable(e.filename)})" if getattr(e, "filename", None) else ""
        line = printable(f"{args.command}: {e.strerror or e}{where}")
        fail_json(line)
        print(f"mahjong-score: error: {line}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 — a bug: one line and its own exit code, not a traceback and 1 (MISMATCH)
        if os.environ.get("MAHJONG_SCORE_DEBUG"):
            raise
        what = str(e).splitlines()[0] if str(e) else ""
        line = printable(f"internal error in {args.command}: {type(e).__name__}" + (f": {what}" if what else "")
                         + " (a bug; MAHJONG_SCORE_DEBUG=1 shows where)")
        fail_json(line, INTERNAL_ERROR)
        print(f"mahjong-score: error: {line}", file=sys.stderr)
        return INTERNAL_ERROR


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
    # `python -m cli`: run the importable module's main (one copy of the command line, as the
    # console script has; UserError and the JSON state live in commands.common either way)
    import cli as _cli

    sys.exit(_cli.main())
