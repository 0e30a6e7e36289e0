"""``mahjong-score batch``: its arguments and :func:`cmd_batch` over :func:`vision.batch.run_batch`."""
from __future__ import annotations

import argparse

from scoring.errors import RulesetError

from commands.common import (
    JoinRepeats, UserError, add_context_args, add_history_args, check_ruleset_args, context_from_args, exposed_arg,
    options_from_args, print_json, printable, whole_number)
from vision.batch import (DEFAULT_READER, MAX_WORKERS, Defaults, REVIEW_BELOW, _context_kwargs, default_workers,
                          plural, run_batch)


def defaults_from_args(args: argparse.Namespace) -> Defaults:
    """:class:`Defaults` from the ``add_context_args`` options (and ``--exposed``/``--fix``)."""
    ctx = context_from_args(args)
    return Defaults(ruleset=args.ruleset, context=_context_kwargs(ctx), options=options_from_args(args),
                    winning_tile=args.winning_tile, exposed=getattr(args, "exposed", None), fix=getattr(args, "fix", None),
                    settle_options=settle_options_from_args(args))


def settle_options_from_args(args: argparse.Namespace) -> dict[str, str]:
    """``--settle-option NAME=VALUE`` items → {name: value}, named as the schemes spell them
    (:func:`scoring.engine.option_key`), given to every table hand (one that describes one hand, with several
    table hands: :func:`vision.batch_outputs.check_settle_options`). The scheme's own keys only (hk-tw-16 ``discarder``, swedish
    ``totals`` …; each table hand's scheme judges them, a table hand it refuses is ``not settled``): raises
    UserError for ``dealer_streak`` (the dealer's row's ``--dealer-streak``/``dealer_streak`` cell is the table's
    one value, its hand scored with it) and ``win_by`` (the winner's row's), for a ruleset option of
    ``--ruleset`` (given with ``--option``, the hands are scored with it and the settlements read it), and for
    an item that is not NAME=VALUE."""
    from scoring.engine import keyed_options, load_ruleset, option_key

    pairs = []
    for item in getattr(args, "settle_option", None) or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise UserError(f"--settle-option {item!r} must be NAME=VALUE")
        pairs.append((name, value.strip()))
    try:
        out = keyed_options(pairs, "--settle-option")
        rs = load_ruleset(args.ruleset)
    except RulesetError as e:
        raise UserError(str(e)) from None
    for key, value in out.items():
        if key == "dealer_streak":
            raise UserError(f"--settle-option dealer_streak={value}: a batch takes the dealer streak from the dealer's "
                            f"row, --dealer-streak N or its dealer_streak cell, which scores the dealer's hand too")
        if key == "win_by":
            raise UserError(f"--settle-option win_by={value}: a batch takes it from the winner's row (--win-by, its "
                            f"win_by cell)")
        if key in rs.options:
            raise UserError(f"--settle-option {key}={value}: {key} is a ruleset option: give it with --option "
                            f"{key}={value} (the hands are scored with it and the settlements read it)")
    return {option_key(k): v for k, v in out.items()}


def cmd_batch(args: argparse.Namespace) -> int:
    from scoring.history import db_from_args

    from commands.tilesets import reader_spec

    if args.workers < 0:
        raise UserError(f"--workers {args.workers} must be ≥ 0")
    if args.workers > MAX_WORKERS:
        raise UserError(f"--workers {args.workers} is more than {MAX_WORKERS}: each worker loads the models and reads "
                        f"up to two photos at a time (the default, {default_workers()}, is one per CPU core)")
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
    # (each summary line one printable line: a photo's name with a newline or an ESC had broken or recoloured the
    # terminal's lines, where the error lines escape them: a tester's)
    def say(line: str) -> None:
        print(printable(line))

    c = summary.counts
    rate = summary.scored / summary.seconds if summary.seconds > 0 else 0.0
    say(f"{plural(summary.photos, 'photo')}: {c.get('ok', 0)} ok, {c.get('needs-review', 0)} needs-review, "
          f"{c.get('error', 0)} error"
          # (the false_win player's rows, 假胡: not scored as hands, and no error; their hands settled with the penalty)
          + (f", {c['false win']} false win (not scored)" if c.get("false win") else "")
          # (the rate only where something was scored: a resume had said "scored now 0 (0.00 photos/s)")
          + f"; scored now {summary.scored}"
          + (f" ({rate:.2f} rows/s, {plural(summary.workers, 'worker')})" if summary.scored else "") + ", "
          f"already done {summary.resumed}; table hands settled {summary.settled}"
          + (f" ({summary.provisional} provisionally: a photo needs review, or the hands' tiles do not add up; "
             f"the settlements' status says which)" if summary.provisional else "")
          + (f", not settled {len(summary.not_settled)}" if summary.not_settled else "")
          # (a tester's batch with --tileset named the profile nowhere: not in the CSV, the review page nor here)
          + (f"; read with tile set {args.tileset!r}" if getattr(args, "tileset", None) else ""))
    again = summary.again_file + summary.again_settings + summary.again_gone
    if again:  # (a director's rerun scored 37 photos again with no word of why: the scoring's version had changed)
        reasons = [(summary.again_file, "the photo file changed"),
                   (summary.again_settings, "the row's manifest cells or options, the models or the scoring's version "
                                            "changed"),
                   # (a director's deleted photo had been said as "the photo file changed", its good score replaced)
                   (summary.again_gone, "the photo file is gone or cannot be read: the row is now an error, its "
                                        "status says why; put the file back to score it again")]
        given = [(k, w) for k, w in reasons if k]
        why = given[0][1] if len(given) == 1 else "; ".join(f"{k}: {w}" for k, w in given)
        say(f"scored again: {plural(again, 'photo')} an earlier run had scored ({why}); the new results replace "
            f"the old")
    # (a director's hand left not settled by its settle cell was said in the settlements file alone, the summary
    # reading "table hands settled 0", exit 0): each is named, its reason short; the file has it whole
    for hand in summary.not_settled[:NOT_SETTLED_SHOWN]:
        say(f"not settled: table {hand['table']} hand {hand['hand']}: {_short(hand['why'])}")
    if len(summary.not_settled) > NOT_SETTLED_SHOWN:
        more = plural(len(summary.not_settled) - NOT_SETTLED_SHOWN, "more table hand")
        say(f"not settled: {more} (the settlements' status says why; --json lists them)")
    for group in summary.same_picture:  # (a picture filed twice: for two players, or two hands)
        more = f" and {len(group) - 8} more (--json lists them)" if len(group) > 8 else ""
        say(f"same picture: {', '.join(group[:8])}{more} are one file's copies; "
              f"check that each was filed for the right player and hand")
    if summary.flag_unscored:  # (ok rows: on no review card, their notes in the outputs alone)
        k = len(summary.flag_unscored)
        more = f" and {k - 8} more (--json lists them)" if k > 8 else ""
        say(f"a circumstance that scores nothing: {', '.join(summary.flag_unscored[:8])}{more} "
              f"({'its' if k == 1 else 'their'} score_notes say which and why)")
    if summary.commented:  # (a breaker's table "#1": its rows skipped as comments without a word)
        from vision.manifest import commented_words

        say(f"skipped: {commented_words(summary.commented)}")
    if summary.raw_left_out:
        from vision.manifest import raw_words

        say(f"left out: {raw_words(summary.raw_left_out)}")
    if summary.links_left_out:
        k = len(summary.links_left_out)
        say(f"left out: {plural(k, 'linked folder')} ({', '.join(summary.links_left_out[:3])}"
              f"{' …' if k > 3 else ''}): links are not followed; copy {'its' if k == 1 else 'their'} photos into "
              f"the folder, or give the folder linked to as a batch of its own")
    if summary.moved_from:  # (a folder moved resumes; one replaced by another of the same output is said: a tester's)
        say(f"resumed from the folder {summary.moved_from}, no longer there: taken as this folder, moved")
    if summary.gone:  # (a photo scored before, its file deleted or its row taken out: a tester's 9 rows for 10)
        k = len(summary.gone)
        say(f"not in this run: {plural(k, 'photo')} an earlier run scored ({', '.join(summary.gone[:5])}"
            f"{' …' if k > 5 else ''}) {'is' if k == 1 else 'are'} no longer in the folder: "
            f"{'its row is' if k == 1 else 'their rows are'} left out of the outputs (put the "
            f"{'file' if k == 1 else 'files'} back to have {'it' if k == 1 else 'them'} again)")
    if summary.crashed:  # (each read alone too: the batch went on, their rows errors)
        k = len(summary.crashed)
        say(f"the reading of {plural(k, 'photo')} ({', '.join(summary.crashed[:5])}{' …' if k > 5 else ''}) killed "
            f"the process reading {'it' if k == 1 else 'them'}, also when read alone (out of memory, or a crash of the "
            f"image or model libraries): {'its row is an error' if k == 1 else 'their rows are errors'}; a rerun "
            f"tries {'it' if k == 1 else 'them'} again")
    for folder in summary.made_folders:  # (a mistyped --out made its folder without a word)
        say(f"made the folder {folder} for the outputs (it did not exist)")
    say("wrote " + ", ".join(summary.outputs) + f" (state: {summary.state})")
    for twin in summary.siblings:  # (it had kept an earlier run's results, with no word: a director's)
        say(f"{twin} was rewritten too: an earlier run wrote it from the same state, and it would go stale")
    return 0


#: the table hands not settled that the summary names, one a line (``--json`` lists all)
NOT_SETTLED_SHOWN = 10
#: the most characters of a reason the summary prints (the settlements' status holds it whole)
WHY_SHOWN = 200


def _short(why: str) -> str:
    """A reason as the summary prints it: its first :data:`WHY_SHOWN` characters, ``…`` when cut."""
    return why if len(why) <= WHY_SHOWN else why[:WHY_SHOWN - 1].rstrip() + "…"


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
                   help=f"flag readings whose score is less sure than this as needs-review (score_confidence: doubts "
                        f"that cannot change the score left out); default {REVIEW_BELOW}")
    p.add_argument("--only-manifest", action="store_true", help="score only the photos listed in the manifest")
    p.add_argument("--progress", dest="progress", action="store_true", default=None, help="show the progress bar (default: on a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument("--reader", default=DEFAULT_READER, help=argparse.SUPPRESS)  # MODULE:FUNCTION, docs/batch.md
    from commands.tilesets import add_tileset_arg

    add_tileset_arg(p)
    add_context_args(p)
    p.add_argument("--exposed", type=exposed_arg, help="default melds on the table (rarely useful for a whole batch)")
    p.add_argument("--fix", action=JoinRepeats, help="default corrections (rarely useful for a whole batch)")
    p.add_argument("--settle-option", action="append", default=[], metavar="NAME=VALUE",
                   help="a settlement-scheme option for every table hand (repeatable); one that describes one "
                        "hand (hk-tw-16 discarder=S, liable, cash …) only when the batch holds one table hand: "
                        "else each hand's goes in the manifest's settle cell (players are the rows' labels); ruleset options the settlement reads "
                        "(dealer_point, cash_from …) are the --option/options cell's, the win source the "
                        "winner's row's, the dealer streak the dealer's row's. See docs/batch.md")
    add_history_args(p)
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")
    p.set_defaults(func=cmd_batch)
