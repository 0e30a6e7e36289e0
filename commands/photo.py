"""``mahjong-score photo``: its arguments and :func:`cmd_photo` over :func:`vision.pipeline.read_photo`."""
from __future__ import annotations

import argparse
import sys

from commands.common import (
    JoinRepeats, UserError, add_context_args, add_history_args, check_annotate_target, check_photo_word,
    check_ruleset_args, context_from_args, exposed_arg, options_from_args, print_json, whole_number)
from scoring import explain
from vision import pipeline
from vision.errors import ImageError, VisionError
from vision.pipeline import DEMO_PHOTO, parse_additions, parse_fixes, summary, to_json


def cmd_photo(args: argparse.Namespace) -> int:
    check_photo_word(args.image)
    if args.demo:
        if args.image:
            raise UserError("give either an image or --demo, not both")
        source = DEMO_PHOTO
        if not source.is_file():
            raise UserError(f"the demo photo {source} is missing from this installation")
    elif not args.image:
        raise UserError("give the photo to read (mahjong-score photo IMG) or --demo")
    else:
        source = args.image
    if args.annotate is not None and not args.annotate.strip():  # (a tester's --annotate "" wrote nothing, silently)
        raise UserError("--annotate needs a file name (e.g. out.jpg or out.png)")
    if args.annotate:  # never write the annotated image over the photo itself, nor where it cannot be
        check_annotate_target(args.annotate, source)
    ctx = context_from_args(args)
    opts = options_from_args(args)
    check_ruleset_args(args)  # a misspelt flag or option, or one the context contradicts: before the photo is read
    from commands.tilesets import check_learn
    from vision.tileset import NOT_LEARNED, classifier_for, learn_from_result

    check_learn(args)
    try:
        res = pipeline.read_photo(source, args.ruleset, ctx, winning_tile=args.winning_tile, exposed=args.exposed,
                                  fixes=parse_fixes(args.fix), options=opts, classifier=classifier_for(args.tileset),
                                  additions=parse_additions(getattr(args, "add", None)), turn=args.turn,
                                  straight=not getattr(args, "no_straighten", False),
                                  mirror=not getattr(args, "no_mirror", False),
                                  second=not getattr(args, "no_second_detector", False),
                                  quarter=not getattr(args, "no_sideways_pass", False))
        if args.learn and res.reading.legal:  # the corrected tiles teach the profile, once they make a legal hand
            learn_from_result(args.tileset, res, parse_fixes(args.fix))
        elif args.learn:
            print(f"tile set {args.tileset!r}: {NOT_LEARNED}", file=sys.stderr)
    except VisionError as e:
        raise UserError(str(e)) from None
    annotated = None
    failed = None  # (the annotated image not written: the reading is printed all the same, then the error, exit 2)
    if args.annotate:
        from vision.annotate import draw_reading, image_info, reading_title, save

        try:  # (a hand small in its photo: enlarged round it, from the file's own pixels)
            img, view = draw_reading(res, reading_title(res.reading), res.user, source)
            save(img, args.annotate)
            annotated = image_info(img, args.annotate, res.photo, view)  # its size and scale (a big photo: 1/2...)
        except ImageError as e:  # (a tester's full disk: the reading had been thrown away)
            failed = str(e)
    from commands.common import record_photo  # the audit trail (--db, --no-history)

    record_photo(args, "photo", source, res, fixes=parse_fixes(args.fix))
    if args.json:
        out = to_json(res)
        if annotated is not None:
            out["annotated"] = annotated
        if failed:
            out["annotate_error"] = failed
        print_json(out)
    else:
        print(summary(res))
        if annotated is not None:
            from vision.annotate import describe

            print(describe(annotated, res.photo, straightened=res.straightened is not None, turned=bool(res.turned)))
    if not res.reading.legal:  # (the annotated image, whose numbers --fix takes, not written: said too)
        raise UserError((res.reading.problem or "the reading is not a legal hand")
                        + (f"; and {failed}" if failed else ""))
    if not args.json:
        print()
        print(explain(res.scored))
    if failed:
        raise UserError(f"{failed} (the reading above stands)")
    return 0


def register(subparsers) -> None:
    """Add the ``photo`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "photo", help="score a photo of a finished hand",
        description="Read a photo of a finished hand (detector + classifier in models/), find the most "
                    "probable legal hand, and score it. Tiles are numbered left to right, the hand's row "
                    "first; correct a misread tile with --fix POS=TILE. See docs/photo.md for how to lay "
                    "out the hand.")
    p.add_argument("image", nargs="?", help="the photo (JPEG, PNG, WebP, HEIC, AVIF, GIF, BMP or TIFF)")
    p.add_argument("--demo", action="store_true", help="read the bundled demo photo (docs/demo.jpg)")
    add_context_args(p)
    p.add_argument("--exposed", type=exposed_arg, help="the melds on the table, e.g. \"[777p] [1111s] (2222m)\", or \"none\" (overrides the layout)")
    p.add_argument("--turn", type=whole_number, choices=(0, 90, 180, 270), metavar="DEG",
                   help="read the photo turned DEG degrees clockwise (0, 90, 180, 270) and try no other turn, nor "
                        "straightening or the mirror pass (by default a photo that reads weakly upright is also read "
                        "turned 90/180/270°, and one held askew straightened)")
    p.add_argument("--no-straighten", action="store_true",
                   help="read the photo as it is, without straightening it (by default a photo whose rows run 9° "
                        "or more off level, a phone held askew, is also read turned back level)")
    p.add_argument("--no-mirror", action="store_true",
                   help="box the tiles in the photo as it is only (by default a weak reading is tried again with "
                        "the photo also read mirrored and the two passes' boxes fused)")
    p.add_argument("--no-second-detector", action="store_true",
                   help="box the tiles with the product's detector only (by default a reading under 95%% sure is "
                        "tried again with a second detector's boxes added: mahjong-detector's, trained on real photos)")
    p.add_argument("--no-sideways-pass", action="store_true",
                   help="box the tiles in the photo as it stands only (by default the detector also reads the photo "
                        "turned a quarter both ways, and adds the tiles lying sideways that it boxes there: bonus tiles laid in "
                        "columns, which the upright pass misses or boxes two as one)")
    p.add_argument("--fix", action=JoinRepeats, help="correct tiles by number before scoring, e.g. \"3=5p,7=1z\" "
                   "(or --fix 3=5p --fix 7=1z); POS=- leaves a box out of the hand (clutter, a loose or another "
                   "player's tile); the numbers are those printed by the reading without --fix and --exposed, "
                   "counting the tiles --add puts in (a tile after an added one moves up by one)")
    p.add_argument("--add", metavar="POS=TILE", action=JoinRepeats, help="add tiles the detector missed, e.g. \"14=5p\" (the tile "
                   "becomes tile 14: it lies before the tile now numbered 14; N+1 adds after the last); "
                   "--fix numbers then count the added tiles; a face-down 0x only completes a concealed kong "
                   "short of a tile")
    p.add_argument("--annotate", metavar="FILE", help="write the photo with boxes, tile names and groups (.jpg/.png), "
                   "at the scale it was read at (a photo over 3600 px is drawn at 1/2, 1/4 or 1/8; its size "
                   "and scale are printed, and in --json under \"annotated\")")
    p.add_argument("--json", action="store_true", help="print one JSON object (reading, tiles, boxes, top-3 probabilities, groups, score)")
    from commands.tilesets import add_tileset_arg

    add_tileset_arg(p, learn=True)
    add_history_args(p)
    p.set_defaults(func=cmd_photo)
