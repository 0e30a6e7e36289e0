"""``mahjong-score batch``: its arguments and :func:`cmd_batch` over :func:`vision.batch.run_batch`."""
from __future__ import annotations

import argparse

from commands.common import (
    JoinRepeats, UserError, add_context_args, add_history_args, check_ruleset_args, context_from_args, exposed_arg,
    options_from_args, print_json, whole_number)
from vision.batch import DEFAULT_READER, Defaults, REVIEW_BELOW, _context_kwargs, default_workers, run_batch


def defaults_from_args(args: argparse.Namespace) -> Defaults:
    """:class:`Defaults` from the ``add_context_args`` options (and ``--exposed``/``--fix``)."""
    ctx = context_from_args(args)
    return Defaults(ruleset=args.ruleset, context=_context_kwargs(ctx), options=options_from_args(args),
                    winning_tile=args.winning_tile, exposed=getattr(args, "exposed", None), fix=getattr(args, "fix", None))


def cmd_batch(args: argparse.Namespace) -> int:
    from scoring.history import db_from_args

    from commands.tilesets import reader_spec

    if args.workers < 0:
        raise UserError(f"--workers {args.workers} must be ≥ 0")
    # a misspelt --ruleset, --flag or --option would make every photo without its own an error row (a
    # default flag that the default context contradicts, only without a manifest: its rows may say more)
    check_ruleset_args(args, rows_say_more=args.manifest is not None)
    # the --winning-tile default is a winner's (a manifest row whose winner cell says no reads its photo
    # without it): with every photo a non-winner's, none would take it, as `photo --not-winner -w` is refused
    if args.not_winner and args.winning_tile and args.manifest is None:
        raise UserError("--not-winner contradicts --winning-tile: a non-winning hand has no winning tile "
                        "(with a manifest, --winning-tile is the default of the rows whose winner cell says yes)")
    if getattr(args, "fix", None):  # so would a malformed or contradictory --fix
        from scoring.errors import HandError
        from vision.pipeline import parse_fixes

        try:
            parse_fixes(args.fix)
        except HandError as e:
            raise UserError(str(e)) from None
    summary = run_batch(args.dir, args.out, manifest=args.manifest, defaults=defaults_from_args(args),
                        workers=args.workers, state=args.state, review_below=args.review_below,
                        reader=reader_spec(args.reader, args.tileset), progress=args.progress,
                        only_manifest=args.only_manifest,
                        history_db=db_from_args(args))
    if args.json:
        print_json(summary.to_json())
        return 0
    c = summary.counts
    rate = summary.scored / summary.seconds if summary.seconds > 0 else 0.0
    print(f"{summary.photos} photos: {c.get('ok', 0)} ok, {c.get('needs-review', 0)} needs-review, "
          f"{c.get('error', 0)} error; scored now {summary.scored} ({rate:.2f} photos/s, {summary.workers} workers), "
          f"already done {summary.resumed}; table hands settled {summary.settled}"
          + (f" ({summary.provisional} provisionally: a photo needs review, or the hands' tiles do not add up; "
             f"the settlements' status says which)" if summary.provisional else ""))
    for group in summary.same_picture:  # (a picture filed twice: for two players, or two hands)
        more = f" and {len(group) - 8} more (--json lists them)" if len(group) > 8 else ""
        print(f"same picture: {', '.join(group[:8])}{more} are one file's copies; "
              f"check that each was filed for the right player and hand")
    if summary.raw_left_out:
        from vision.manifest import raw_words

        print(f"left out: {raw_words(summary.raw_left_out)}")
    for folder in summary.made_folders:  # (a mistyped --out made its folder without a word)
        print(f"made the folder {folder} for the outputs (it did not exist)")
    print("wrote " + ", ".join(summary.outputs) + f" (state: {summary.state})")
    return 0


def register(subparsers) -> None:
    """Add the ``batch`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "batch", help="score a folder of photos (resumable, parallel) and settle table hands",
        description="Score every photo in DIR (recursively) with the per-photo settings of --manifest "
                    "(CSV; columns in docs/batch.md) and the command-line defaults for the rest. One output "
                    "row per photo (status ok / needs-review / error: reason); rows sharing table and hand are "
                    "settled. Resumable: progress is committed to a SQLite state database per photo, so "
                    "rerunning the same command after an interruption scores only what is missing.")
    p.add_argument("dir", metavar="DIR", help="folder of photos")
    p.add_argument("--manifest", "-m", metavar="CSV", help="per-photo settings (docs/batch.md)")
    p.add_argument("--out", "-O", required=True, metavar="FILE", help="results file: .csv or .jsonl")
    p.add_argument("--state", metavar="DB", help="state database (default: next to --out, NAME.batch.sqlite3)")
    p.add_argument("--workers", "-j", type=whole_number, default=default_workers(),
                   help=f"worker processes (0: in this process); default {default_workers()} (CPU cores)")
    p.add_argument("--review-below", type=float, default=REVIEW_BELOW, metavar="CONF",
                   help=f"flag readings with confidence below this as needs-review; default {REVIEW_BELOW}")
    p.add_argument("--only-manifest", action="store_true", help="score only the photos listed in the manifest")
    p.add_argument("--progress", dest="progress", action="store_true", default=None, help="show the progress bar (default: on a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument("--reader", default=DEFAULT_READER, help=argparse.SUPPRESS)  # MODULE:FUNCTION, docs/batch.md
    from commands.tilesets import add_tileset_arg

    add_tileset_arg(p)
    add_context_args(p)
    p.add_argument("--exposed", type=exposed_arg, help="default melds on the table (rarely useful for a whole batch)")
    p.add_argument("--fix", action=JoinRepeats, help="default corrections (rarely useful for a whole batch)")
    add_history_args(p)
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")
    p.set_defaults(func=cmd_batch)
