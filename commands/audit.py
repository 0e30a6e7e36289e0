"""``mahjong-score audit``: its arguments and :func:`cmd_audit` over :func:`vision.audit.compare`."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from commands.common import (
    JoinRepeats, UserError, add_context_args, add_history_args, check_annotate_target, check_photo_word,
    check_ruleset_args, context_from_args, exposed_arg, options_from_args, print_json, whole_number)
from scoring import explain, load_ruleset, parse_hand, score_hand
from scoring.engine import with_no_winning_tile_note
from scoring.hand import winning_tile_missing
from vision.audit import compare, default_annotation_path, read_claimed_lines, report
from vision.io import same_file


#: the audit options a batch row says (``--from-batch``), with their defaults (set by :func:`register`); those whose
#: default a user may type too are given the parser default :data:`_UNSET`, so that a flag given is told from none
ROW_OPTIONS: dict[str, Any] = {}
_UNSET = object()
#: the row options whose default is :data:`_UNSET` in the parser (their real default a value one may type)
_SENTINEL_DESTS = ("ruleset", "seat_wind", "round_wind", "not_winner", "last_tile", "first_turn", "announced_wait",
                   "kong_on_kong", "dealer", "dealer_streak")


def _given(args: argparse.Namespace) -> list[str]:
    """The row options (:data:`ROW_OPTIONS`) the command line gave, as typed (``--not-dealer``); each one not given
    set to its default in ``args``."""
    given = []
    for dest, default in ROW_OPTIONS.items():
        v = getattr(args, dest, default)
        if v is _UNSET:
            setattr(args, dest, default)
        elif v != default or dest in _SENTINEL_DESTS:
            given.append("--not-dealer" if dest == "dealer" and v is False else "--" + dest.replace("_", "-"))
    return given



def _from_batch(args: argparse.Namespace, given: list[str]) -> tuple[str, dict[str, Any]]:
    """``args`` given the ruleset, circumstances, options and corrections of the batch row ``args.image`` of the
    results file ``args.from_batch`` (:func:`vision.batch_state.batch_row`); the photo's path (or, for a hand typed
    in the row's notation cell, ``--hand`` with its reading, winning tile included) in place of the row's name.
    Returns the line saying so (the row's flags as a shell takes them, :func:`_row_flags`) and its JSON (``--json``'s
    ``from_batch``). Raises UserError for a flag
    given too (``given``: :func:`_given`; it would be one or the other without a word), a photo file that is not
    the one the batch scored (moved: its path given in place of the name is taken when its contents are the
    same), and a row that cannot be audited (BatchError's words)."""
    from vision.batch_state import batch_row
    from vision.errors import BatchError
    from vision.readers import _sha256_file

    if not args.image:
        raise UserError("--from-batch RESULTS needs the row's photo: mahjong-score audit --from-batch RESULTS "
                        "PHOTO --claimed TOTAL (PHOTO as the photo column names it)")
    if given or args.demo:
        said = given + (["--demo"] if args.demo else [])
        raise UserError(f"--from-batch takes the ruleset, circumstances, options and corrections from the batch "
                        f"row: leave out {', '.join(said)} (to audit otherwise, correct the row's manifest cells and "
                        f"rerun the batch, or audit the photo without --from-batch)")
    try:
        row = batch_row(args.from_batch, args.image)
    except BatchError as e:
        raise UserError(str(e)) from None
    ctx, fix = row["context"], row["corrections"]
    if not row["typed"]:
        stored, named = Path(row["input"]), Path(args.image)
        path = stored if stored.is_file() else named if named.is_file() else None
        if path is None:
            raise UserError(f"--from-batch: the photo of row {row['key']}, {stored}, is no longer there: give its "
                            f"path now in place of the row's name (it is checked to be the picture the batch scored)")
        try:
            same = _sha256_file(path) == row.get("input_sha256")
        except OSError as e:
            raise UserError(f"--from-batch: cannot read {path} ({e.strerror or e})") from None
        if not same:
            raise UserError(f"--from-batch: {path} is not the picture the batch scored for row {row['key']} (the file "
                            f"changed since): rerun the batch (only that row is scored again), or audit the photo "
                            f"without --from-batch")
    args.ruleset = row.get("ruleset") or ROW_OPTIONS["ruleset"]
    args.seat_wind, args.round_wind = ctx.get("seat_wind", "E"), ctx.get("round_wind", "E")
    args.not_winner = not ctx.get("winner", True)
    args.win_by = None if ctx.get("win_by", "discard") == "discard" else ctx["win_by"]
    for name in ("last_tile", "first_turn", "announced_wait", "kong_on_kong"):
        setattr(args, name, bool(ctx.get(name)))
    args.dealer, args.dealer_streak = ctx.get("dealer"), int(ctx.get("dealer_streak") or 0)
    args.discards, args.flag = ctx.get("discards"), [str(f) for f in ctx.get("flags") or ()]
    try:  # (only the options the row sets otherwise than the ruleset: a default given reads as the user's choice)
        defaults = {k: o.default for k, o in load_ruleset(args.ruleset).options.items()}
    except Exception:
        defaults = {}
    args.option = [f"{k}={v}" for k, v in (row.get("options") or {}).items() if str(defaults.get(k)) != str(v)]
    args.winning_tile = fix.get("winning_tile")
    args.tileset = fix.get("tileset") or None
    if row["typed"]:  # (its reading holds the winning tile of its winning_tile cell, or of the batch's default)
        args.hand, args.image, args.winning_tile = row.get("reading") or row["input"], None, None
    else:
        args.image = str(path)
        args.fix = ",".join(f"{k}={v}" for k, v in (fix.get("fix") or {}).items()) or None
        args.add = str(fix["add"]) if fix.get("add") else None
        args.exposed = str(fix["exposed"]) if fix.get("exposed") else None
    flags = _row_flags(args)
    what = f"the hand typed in its notation cell, --hand {shlex.quote(args.hand)}" if row["typed"] else \
        shlex.quote(args.image)
    status = str(row.get("status") or "")
    # (a row with no total: "no score", not Python's None — a tester's `scored None, not legal`)
    scored = f"scored {row['total']}" if row.get("total") is not None else "no score"
    # (the row's status as the results file has it, with its checked cell: a director's row ok by its checked
    # cell had been audited "needs-review", the stored entry's)
    kind = str(row.get("row_status") or status).split(":")[0]
    checked = kind == "ok" and str(row.get("row_problem") or "").startswith("checked:")
    why = status.split(":")[0] if status and status != "ok" and status.split(":")[0] != kind else ""
    said = (", ok: its total confirmed by hand (the checked cell)" if checked else
            f", {kind}{f': {why}' if why else ''}" if kind and kind != "ok" else "")
    line = (f"audit of batch row {row['key']} ({Path(args.from_batch).name}, {scored}{said}): {what} with "
            f"{' '.join(flags)}")
    return line, {"results": str(args.from_batch), "row": row["key"], "scored": row.get("total"),
                  "status": str(row.get("row_status") or status),
                  "typed": row["typed"], "flags": " ".join(flags)}


def _row_flags(args: argparse.Namespace) -> list[str]:
    """The flags of ``args`` that a batch row gave (:func:`_from_batch`), as a shell takes them."""
    flags = [f"-r {args.ruleset}", f"--seat-wind {args.seat_wind}", f"--round-wind {args.round_wind}"]
    flags += ["--not-winner"] if args.not_winner else []
    flags += [f"--win-by {args.win_by}"] if args.win_by else []
    flags += ["--" + n.replace("_", "-") for n in ("last_tile", "first_turn", "announced_wait", "kong_on_kong")
              if getattr(args, n)]
    flags += [] if args.dealer is None else ["--dealer" if args.dealer else "--not-dealer"]
    flags += [f"--dealer-streak {args.dealer_streak}"] if args.dealer_streak else []
    flags += [f"--discards {args.discards}"] if args.discards is not None else []
    flags += [f"--flag {shlex.quote(f)}" for f in args.flag] + [f"--option {shlex.quote(o)}" for o in args.option]
    return flags + [f"--{n.replace('_', '-')} {shlex.quote(str(getattr(args, n)))}"
                    for n in ("winning_tile", "exposed", "fix", "add", "tileset") if getattr(args, n, None)]


def cmd_audit(args: argparse.Namespace) -> int:
    from scoring.history import record_hand

    given = _given(args)
    from_batch, batch_json = _from_batch(args, given) if getattr(args, "from_batch", None) is not None else (None, None)
    if from_batch and not args.json:  # (first: said too where the photo then reads as no hand)
        print(from_batch, flush=True)
    check_photo_word(args.image)
    if getattr(args, "demo", False):  # (docs/photo.md's corrections use the demo: a new user's `audit --demo`)
        from vision.pipeline import DEMO_PHOTO

        if args.image or args.hand:
            raise UserError("give one of the photo, --demo or --hand \"NOTATION\"")
        if not DEMO_PHOTO.is_file():
            raise UserError(f"the demo photo {DEMO_PHOTO} is missing from this installation")
        args.image = str(DEMO_PHOTO)
        if args.annotate is None:  # (no evidence image written inside the installation: --annotate FILE for one)
            args.no_annotate = True
    if bool(args.image) == bool(args.hand):
        raise UserError("give either the photo (mahjong-score audit IMG …) or --hand \"NOTATION\"")
    if args.claimed < 0:
        raise UserError(f"--claimed {args.claimed} must be ≥ 0")
    from vision.audit import CLAIM_MAX_AMOUNT as MAX_CLAIM

    if args.claimed > MAX_CLAIM:  # (a breaker's 35 digits had been compared; --claimed-lines stops at 10^9 points)
        raise UserError(f"--claimed {str(args.claimed)[:20]}{'…' if len(str(args.claimed)) > 20 else ''} is more than "
                        f"{MAX_CLAIM:,}: no hand scores so much under any ruleset here")
    if args.annotate is not None and not args.annotate.strip():
        raise UserError("--annotate needs a file name (e.g. out.jpg or out.png)")
    if args.annotate is not None and args.no_annotate:  # (a tester's pair wrote no file and said nothing)
        raise UserError(f"--annotate {args.annotate} and --no-annotate contradict each other: give one")
    if args.claimed_lines is not None and not args.claimed_lines.strip():  # (it had been taken as no breakdown)
        raise UserError("--claimed-lines needs a JSON file, or the JSON list itself")
    claimed_lines = read_claimed_lines(args.claimed_lines, args.ruleset) if args.claimed_lines else None
    ctx = context_from_args(args)
    opts = options_from_args(args)
    rs = check_ruleset_args(args)  # a misspelt flag or option, or one the context contradicts: before the photo is read
    res = None
    annotated: Path | None = None
    if args.hand:
        if (args.annotate or args.fix or args.exposed or getattr(args, "add", None) or args.turn is not None
                or args.no_straighten or args.no_mirror or args.no_second_detector or args.no_sideways_pass):
            raise UserError("--annotate, --fix, --add, --exposed, --turn, --no-straighten, --no-mirror, "
                            "--no-second-detector and --no-sideways-pass need a photo, not --hand")
        sizes = rs.notation_sizes
        hand = parse_hand(args.hand, winning_tile=args.winning_tile, context=ctx, sizes=sizes)
        # (a winner's hand typed with no winning tile is scored with no wait: its note says what naming one changes)
        scored = with_no_winning_tile_note(score_hand(hand, rs, opts, option_notes=True))
    else:
        from vision.readers import DEFAULT_READER, FatalError, resolve_reader
        from vision.errors import VisionError
        from vision.pipeline import parse_additions, parse_fixes, summary
        from commands.tilesets import reader_spec

        image = Path(args.image)
        fixes = parse_fixes(args.fix)
        if args.annotate:  # (said before the photo is read, scored and recorded)
            check_annotate_target(args.annotate, image)
        try:
            reader = resolve_reader(reader_spec(args.reader or DEFAULT_READER, args.tileset))()
            extra = {"additions": parse_additions(args.add)} if getattr(args, "add", None) else {}
            if args.turn is not None:
                extra["turn"] = args.turn
            if args.no_straighten:
                extra["straight"] = False
            if args.no_mirror:
                extra["mirror"] = False
            if args.no_second_detector:
                extra["second"] = False
            if args.no_sideways_pass:
                extra["quarter"] = False
            # an audit checks a claimed winning score: the photo is a winner's unless --not-winner
            res = reader(image, rs, ctx, winning_tile=args.winning_tile, exposed=args.exposed, fixes=fixes, options=opts,
                         said_won=True,
                         **extra)
        except (VisionError, FatalError) as e:
            raise UserError(str(e).splitlines()[0]) from None
        if not res.reading.legal or res.scored is None:
            # what was read is kept and shown as `photo` shows it: the history entry, the tile numbers
            # --fix needs, the annotated photo (a new user's failed audit had left none of them)
            from commands.common import record_photo

            problem = res.reading.problem or "no legal reading"
            record_photo(args, "audit", image, res, context=ctx, options=opts, ruleset=args.ruleset, fixes=fixes,
                         note=f"claimed {args.claimed}")
            if not args.json:  # (with --json, stdout holds only the JSON error)
                print(summary(res))
            if not args.no_annotate:
                annotated, view = _annotate(args, res, f"claimed {args.claimed}: cannot audit, not a legal hand")
                if annotated and not args.json:
                    from vision.annotate import describe, image_info

                    print(describe(image_info(res.photo.pixels, annotated, res.photo, view), res.photo,
                                   straightened=res.straightened is not None, turned=bool(res.turned)))
            fix_hint = "" if "--fix POS=TILE" in problem else "correct tiles with --fix POS=TILE "
            failed = getattr(args, "annotate_failed", None)  # (the image the --fix numbers are read off: say so)
            if from_batch:  # (its flags come from the row: --fix, --hand … would be refused, a round in a circle)
                raise UserError(f"cannot audit {image.name}: {problem} (read: {res.reading.notation}; the batch row's "
                                f"cells decide how it is read: correct them in the manifest and rerun the batch, or "
                                f"audit the photo without --from-batch, with the flags above and your corrections)"
                                + (f"; and {failed}" if failed else ""))
            raise UserError(f"cannot audit {image.name}: {problem} (read: {res.reading.notation}; "
                            f"{fix_hint}{'or ' if fix_hint else ''}use --hand NOTATION)"
                            + (f"; and {failed}" if failed else ""))
        scored = res.scored
    result = compare(scored, args.claimed, claimed_lines)
    # (a photo read with no winning tile marked scores a guess at the wait: a director's batch flagged the photo
    # needs-review where its audit said MATCH, exit 0, the hand scoring 40-44 by which tile won)
    wait_unsure = _wait_unsure(res, args.winning_tile, scored)
    unsure = "; ".join(x for x in (_unsure(res, rs, opts), wait_unsure) if x) or None
    overruled = _overruled(res)
    # (an unsure MATCH exits 1 and is recorded as such, not as a match: the history's status says which
    # audits settled a claim)
    status = ("match" if result.match else "mismatch") + (" unsure" if unsure else "")
    note = f"claimed {args.claimed}" + (f" with {len(claimed_lines)} lines" if claimed_lines is not None else "") + (
        f"; {unsure}" if unsure else "") + (
        "; no winning tile given" if res is None and not wait_unsure and winning_tile_missing(scored.hand) else "") + (
        f"; {_overruled_words(overruled)}" if overruled else "")
    if res is not None:  # the audit trail first (output may go to a closed pipe)
        from commands.common import record_photo

        record_photo(args, "audit", Path(args.image), res, context=ctx, options=opts, ruleset=args.ruleset,
                     fixes=parse_fixes(args.fix), status=status, note=note)
    else:
        record_hand(args, "audit", args.hand, scored, context=ctx, options=opts, status=status, note=note)
    view = None
    if res is not None and not args.no_annotate:
        annotated, view = _annotate(args, res, f"claimed {result.claimed_total} / computed {result.computed_total}: "
                                         + ("MATCH" if result.match else "MISMATCH")
                                         + (" (reading unsure: check it)" if unsure else ""))
    if args.json:
        out = result.to_json()
        out["unsure"] = unsure
        out["overruled"] = [{"pos": pos, "read": read, "probability": round(p, 4), "set": to}
                            for pos, read, p, to in overruled]
        out["score"] = scored.to_json()
        out["from_batch"] = batch_json
        out["annotated"] = str(annotated) if annotated else None
        if annotated and res is not None:  # (its size, and the part of the photo it shows: as photo --json says)
            from vision.annotate import image_info

            out["annotated_image"] = image_info(res.photo.pixels, annotated, res.photo, view)
        if getattr(args, "annotate_failed", None):
            out["annotate_error"] = args.annotate_failed
        if res is not None:
            from vision.pipeline import to_json

            out["photo"] = to_json(res)
        print_json(out)
    else:
        if res is not None:
            from vision.pipeline import summary

            print(summary(res))
            print()
        print(explain(scored))
        print()
        print(report(result, unsure, "the reading" if res is not None else "the winning tile"))
        if overruled:
            print(f"  {_overruled_words(overruled)}")
        if annotated:  # drawn at the scale the photo was read at (the same size as its pixels)
            from vision.annotate import describe, image_info

            print(describe(image_info(res.photo.pixels, annotated, res.photo, view), res.photo,
                           straightened=res.straightened is not None, turned=bool(res.turned)))
    if getattr(args, "annotate_failed", None):  # (a tester's full disk: the verdict had been lost, recorded as a match)
        raise UserError(f"{args.annotate_failed} (the verdict above stands)")
    # a verdict on a reading the reader doubts checks nothing: exit 1, as a check that failed (a new
    # user's audit said "MATCH", exit 0, on a photo read 41 % sure)
    return 0 if result.match and not unsure else 1


#: a tile read less sure than this is named first among the tiles to check
DOUBTED_TILE = 0.9
#: a tile the user fixed to another face that the classifier read at least this sure is named with the verdict
OVERRULED_FROM = 0.9


def _overruled(res) -> list[tuple[int, str, float, str]]:
    """``(number, tile read, its probability, tile set)`` for each tile of the photo reading ``res`` that the user
    fixed (``--fix POS=TILE``) to another face than the classifier read at :data:`OVERRULED_FROM` or surer, by
    number (``PhotoResult.fixed_from``); [] for a typed hand. In a dispute the verdict rests on them: a referee's
    `audit --demo --fix 7=1z,8=1z --claimed 40` said a sure MISMATCH (claim −2), both tiles read 6z at 100 %,
    and nothing but the evidence image's colours said the photo read otherwise."""
    if res is None:
        return []
    out = []
    for i, (read, p) in res.fixed_from:
        to = res.readings.codes[i]
        if read != to and p >= OVERRULED_FROM:
            out.append((res.position(i), read, p, to))
    return sorted(out)


def _overruled_words(overruled: list[tuple[int, str, float, str]]) -> str:
    """The verdict's line on the fixes that overrule sure readings (:func:`_overruled`)."""
    from vision.decode import format_confidence

    said = ", ".join(f"tile {pos} read {read} at {format_confidence(p)}, set to {to}" for pos, read, p, to in overruled)
    return (f"rests on your corrections: {said} (--fix): the score is the hand as you corrected it; check "
            f"{'that tile' if len(overruled) == 1 else 'those tiles'} on the photo")


#: a tile the reader changed to make a legal hand is named when it costs the reading this much of its
#: confidence or more (1 − o / (o + vision.decode.CHANGED_ODDS), o the classifier's odds for the change)
CHANGED_NAMED = 0.1


def _unsure(res, ruleset=None, options=None) -> str | None:
    """Why the audit of the photo reading ``res`` is not to be relied on: its confidence is below
    :data:`vision.batch.REVIEW_BELOW` (the batch's needs-review); None for a sure reading or a typed hand.
    It names the tiles that make it unsure and what to do with each: the least sure tile, when the
    classifier doubted it, and flowers/seasons left out as loose tiles that lowered the confidence
    (:func:`vision.pipeline.loose_bonus_doubts`: a club referee's audit said only "check its notes and tiles"
    where a loose season, tile 25, was the doubt, and ``--fix 25=-`` made the reading > 99 % sure), and other hand
    regions' readings that did (:func:`vision.pipeline.region_doubts`: a playing card, tile 15, read as the hand's
    bonus tile by a region of its own, was a referee's whole doubt, every tile fixed, at 66 %), and doubtful boxes
    counted as the hand's tiles (``Reading.doubtful_boxes``: a patch of a flowered cloth read 6z at 13 %), and
    tiles the reader changed to make a legal hand whose change costs :data:`CHANGED_NAMED` or more
    (:func:`vision.decode.changed_playing_tiles`: a 7p read at > 99 % taken as 6p, the reading 9 % sure).
    Given ``ruleset`` (and ``options``), loose flowers/seasons that cannot change the score under it are no doubt
    of the audit (:func:`vision.pipeline.unscored_bonus_doubts`: two loose flowers worth 0 points under nts made a
    referee's audit UNSURE at 77 %), nor is which flower or season a bonus tile is when no face changes the score
    (:func:`vision.pipeline.unscored_face_doubts`), nor another region's reading of the same hand but for its
    flowers/seasons when they do not change it (:func:`vision.pipeline.unscored_rival_doubts`)."""
    if res is None:
        return None
    from vision.batch import REVIEW_BELOW
    from vision.classes import DROP
    from vision.decode import (CHANGED_ODDS, STACKED_KONG, changed_playing_tiles, format_confidence,
                               format_confidence_below, loose_bonus_adds, number_after_hand, stacked_melds,
                               stacked_spans)
    from vision.pipeline import (least_sure_tile, least_words, loose_bonus_doubts, region_doubts,
                                 unscored_bonus_doubts, unscored_counted_doubts, unscored_face_doubts,
                                 unscored_rival_doubts)

    loose = unscored_bonus_doubts(res, ruleset, options) if ruleset is not None else 1.0
    faces = unscored_face_doubts(res, ruleset, options) if ruleset is not None else 1.0
    rivals = unscored_rival_doubts(res, ruleset, options) if ruleset is not None else 1.0
    counted = unscored_counted_doubts(res, ruleset, options) if ruleset is not None else 1.0
    read = float(res.reading.confidence)
    conf = min(1.0, read * loose * faces * rivals * counted)  # (vision.pipeline.score_doubts, its four factors)
    if conf >= REVIEW_BELOW:
        return None
    doubts = []
    least = least_sure_tile(res)
    doubtful = dict(res.reading.doubtful_boxes)
    changed = []
    for i, raw, q_raw, taken, q_taken in changed_playing_tiles(res.reading, res.readings):
        odds = q_taken / max(q_raw, 1e-9)
        cost = 1.0 - odds / (odds + CHANGED_ODDS)
        if cost >= CHANGED_NAMED and i not in res.user:
            changed.append((i, raw, q_raw, taken, cost))
    # (a tile named as changed is not named again as the least sure: a reviewer's audit named tile 2 twice, with two
    # instructions)
    if least is not None and least[1] < DOUBTED_TILE and least[0] not in doubtful \
            and least[0] not in {c[0] for c in changed}:
        # (the least sure tile, when the classifier doubted one)
        pos = res.position(least[0])
        doubts.append((1.0 - least[1], f"tile {pos} ({least_words(res, least)}: if it is another tile, correct it "
                                       f"with --fix {pos}=TILE)"))
    for i, raw, q_raw, taken, cost in changed:
        # (a tile read surely as one face and taken as another to make a legal hand: the audit named only the least
        # sure tile, a 2m at 82 %, where the doubt was tile 5, a 7p at >99 % taken as 6p, the reading 9 % sure)
        pos = res.position(i)
        doubts.append((cost, f"tile {pos} (read {raw} at {format_confidence(q_raw)}, taken as {taken} to make a legal "
                             f"hand: if it is {taken}, set it with --fix {pos}={taken}; if it is {raw}, something "
                             f"else in the photo is off, a tile lying on the hand or one not boxed)"))
    for i, f in doubtful.items():  # (boxes the models doubt are tiles at all, counted as the hand's: both ways out)
        pos = res.position(i)
        doubts.append((1.0 - f, f"tile {pos} (a doubtful box, read {res.readings.codes[i]} at "
                                f"{float(res.readings.probs[i].max()):.0%}, counted as the hand's "
                                f"{res.reading.tiles[i]}: if it is no tile, leave it out with --fix {pos}=-; if "
                                f"another tile, correct it with --fix {pos}=TILE)"))
    # (the notes say what else was assumed; loose flowers worth nothing under the ruleset are no doubt of the score)
    # (their --add from just after the hand's last tile, each face the hand lacks once, as the loose-flower note gives
    # it: the audit had pointed at "its note" where the reading, charged for a loose season under the note's 10 %,
    # had none — a new user's)
    after = number_after_hand(res.order, res.reading.roles)
    held = {t for t, r in zip(res.reading.tiles, res.reading.roles) if r == "bonus"}
    for nums, faces, cost in loose_bonus_doubts(res) if loose == 1.0 else ():
        one = len(nums) == 1
        drops = ",".join(f"{n}={DROP}" for n in nums)
        adds = loose_bonus_adds(faces, held)
        count = (f"count {'it' if one else 'them'} with --add "
                 f"{','.join(f'{after + k}={f}' for k, f in enumerate(adds))}" if adds else
                 f"the hand holds {'its face' if one else 'their faces'} already: check its bonus tiles")
        held |= set(adds)
        after += len(adds)
        doubts.append((cost, f"tile{'' if one else 's'} {', '.join(map(str, nums))} ({', '.join(faces)}, left out "
                             f"as {'a loose tile' if one else 'loose tiles'}: if {'it is' if one else 'they are'} not "
                             f"the hand's, say so with --fix {drops}; if {'it is' if one else 'they are'}, {count})"))
    # (an exposed pung with a tile lying over the others: a kong's fourth tile laid on top? its note's --exposed, a
    # reviewer's: the verdict had said only "check its notes")
    if res.reading.stacked:
        stacked = res.reading.stacked
        num = {i: res.position(i) for g, _ in stacked for i in g}
        doubts.append((1.0 - STACKED_KONG ** len(stacked),
                       f"{stacked_spans(res.reading, stacked, num)} (lying over the others as a kong's fourth tile laid "
                       f"on top does: if it is a kong, name the melds with --exposed "
                       f"\"{stacked_melds(res.reading, stacked)}\")"))
    # (flowers/seasons far from the row counted as the hand's, where they change the score)
    for tiles, p in res.reading.far_counted if counted == 1.0 else ():
        nums = sorted(res.position(i) for i in tiles)
        one = len(nums) == 1
        doubts.append((1.0 - p, f"tile{'' if one else 's'} {', '.join(map(str, nums))} "
                                f"({', '.join(res.reading.tiles[i] or '' for i in tiles)}, far from the row, counted as "
                                f"the hand's: if {'it is' if one else 'they are'} another player's, leave "
                                f"{'it' if one else 'them'} out with --fix {','.join(f'{n}={DROP}' for n in nums)})"))
    for nums, words, cost in region_doubts(res, but_bonus=rivals > 1.0):  # (those the score's doubt left out, not)
        doubts.append((cost, f"tile{'' if len(nums) == 1 else 's'} {', '.join(map(str, nums))} ({words})"))
    # (the costliest doubt first: a tile read at 90 % costs the reading less than a loose season at 31 %)
    said = [d for _, d in sorted(doubts, key=lambda d: -d[0])]
    where = f", first {' and '.join(said)}" if said else ""
    # (the score's confidence where doubts that cannot change it were left out: said as the score's, not the reading's)
    what = (f"the photo's reading is only {format_confidence_below(conf, REVIEW_BELOW)} sure"
            if format_confidence_below(conf, REVIEW_BELOW) == format_confidence_below(read, REVIEW_BELOW) else
            f"the score read from the photo is only {format_confidence_below(conf, REVIEW_BELOW)} sure (the reading "
            f"{format_confidence_below(read, REVIEW_BELOW)})")
    return (f"{what} (below {REVIEW_BELOW:.0%}): the score "
            f"computed is that reading's; check its notes and tiles{where}, and correct them with --fix/--add, "
            f"or audit the hand typed with --hand")


def _wait_unsure(res, given: str | None, scored=None) -> str | None:
    """Why the audit rests on a guess at the wait: a winner's hand with no winning tile — read from a photo
    ``res`` with none marked nor ``given`` (``--winning-tile``), or ``scored`` from a typed ``--hand`` (``res``
    None) without ``win:TILE`` — which scores otherwise with another of its tiles as the winning tile
    (:func:`vision.pipeline.unmarked_wait_span`, what `photo`'s confidence line and batch's needs-review say;
    :func:`scoring.engine.wait_span` for a typed hand); None for a hand any winning tile scores the
    same, or one that has no winning tile to name. Raises nothing but a ruleset's own errors."""
    if given:
        return None
    if res is None:
        # (a referee's typed hand without its winning tile had said MATCH, exit 0, at 48 where the hand won on
        # the pair's wind scores 56; the same hand photographed says UNSURE)
        from scoring.engine import wait_span

        span = None if scored is None else wait_span(scored)
        if span is None:
            return None
        return (f"no winning tile given: the score is computed without one (with one it scores {span}); "
                f"end the notation with win:TILE or give --winning-tile TILE")
    from vision.pipeline import unmarked_wait_span

    span = unmarked_wait_span(res)
    if span is None:
        return None
    return (f"no winning tile marked: the score is computed without one (with one marked it scores "
            f"{span}); give it with --winning-tile")


def _annotate(args: argparse.Namespace, res, title: str) -> tuple[Path | None, object]:
    """Write the evidence image; → (its path or None when not written, the :class:`vision.annotate.View` it
    shows: the hand's part of the photo, enlarged, or None for the whole photo)."""
    from vision.annotate import draw_reading, save
    from vision.errors import ImageError

    image = Path(args.image)
    explicit = args.annotate is not None
    path = Path(args.annotate) if explicit else default_annotation_path(image, load_ruleset(args.ruleset).id)
    if same_file(path, image):  # (a hard link too)
        raise UserError(f"--annotate {path} is the input photo; choose another file")
    try:  # (a hand small in its photo: enlarged round it, from the file's own pixels)
        img, view = draw_reading(res, title, res.user, image)
        save(img, path)
    except ImageError as e:
        if explicit:  # (the verdict is printed first, and recorded: the error is raised after it, exit 2)
            args.annotate_failed = str(e)
            return None, None
        print(f"mahjong-score: warning: annotated image not written: {e}", file=sys.stderr)
        return None, None
    return path, view


def register(subparsers) -> None:
    """Add the ``audit`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "audit", help="check a disputed score against the photo or hand, rule by rule",
        description="Score the photo (or --hand NOTATION) and compare with the claimed total and, with "
                    "--claimed-lines, the claimed breakdown: missing doublings, rules not earned, wrong meld "
                    "status (exposed/concealed), wrong values, limit hands. Exit 0 match, 1 mismatch or a photo "
                    "read below 80 % sure (the verdict says UNSURE), 2 bad input.")
    p.add_argument("image", nargs="?", help="the photo of the hand")
    p.add_argument("--demo", action="store_true",
                   help="audit the bundled demo photo (docs/demo.jpg; its evidence image only with --annotate FILE)")
    p.add_argument("--hand", metavar="NOTATION", help="audit a hand written in notation instead of a photo")
    p.add_argument("--claimed", type=whole_number, required=True, metavar="TOTAL", help="the claimed total score")
    p.add_argument("--claimed-lines", metavar="JSON",
                   help="the claimed breakdown: a JSON file, or the JSON itself, holding a list of "
                        "{\"rule\" or \"name\", \"points\"/\"doublings\"/\"fixed\"}; a rule's id, its name "
                        "(native or English) or part of it that one rule alone has (with a whole word of 4+ "
                        "letters not common: 'won', 'pung' name none); over 64 doublings or 10^9 points is refused")
    add_context_args(p)
    p.add_argument("--exposed", type=exposed_arg, help="the melds on the table, e.g. \"[777p] (1111s)\", or \"none\" (photo only)")
    p.add_argument("--fix", action=JoinRepeats, help="correct tiles by number before scoring, e.g. \"3=5p\"; 9=- leaves a box out of the hand (photo only)")
    p.add_argument("--add", metavar="POS=TILE", action=JoinRepeats, help="add tiles the detector missed, e.g. \"14=5p\" (photo only)")
    p.add_argument("--turn", type=whole_number, choices=(0, 90, 180, 270), metavar="DEG",
                   help="read the photo turned DEG degrees clockwise and try no other turn, nor straightening "
                        "or the mirror pass (photo only)")
    p.add_argument("--no-straighten", action="store_true",
                   help="read the photo as it is, without straightening a photo held askew (photo only)")
    p.add_argument("--no-mirror", action="store_true",
                   help="box the tiles in the photo as it is only, without the mirror pass of a weak reading "
                        "(photo only)")
    p.add_argument("--no-second-detector", action="store_true",
                   help="box the tiles with the product's detector only, without the second detector's boxes for "
                        "an unsure reading (photo only)")
    p.add_argument("--no-sideways-pass", action="store_true",
                   help="box the tiles in the photo as it stands only, without the detector's passes over it turned a "
                        "quarter both ways for tiles lying sideways (photo only)")
    p.add_argument("--annotate", metavar="FILE",
                   help="annotated photo path (default: NAME.RULESET.audit.jpg beside the photo, e.g. IMG.nts.audit.jpg)")
    p.add_argument("--no-annotate", action="store_true", help="do not write the annotated photo")
    p.add_argument("--reader", default=None, help=argparse.SUPPRESS)
    from commands.tilesets import add_tileset_arg

    add_tileset_arg(p)
    add_history_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (match, differences, score)")
    p.add_argument("--from-batch", metavar="RESULTS",
                   help="audit a row of a batch: RESULTS is the batch's results file (its --out), the photo as its "
                        "photo column names it; the row's ruleset, circumstances, options and corrections (fix, add, "
                        "exposed, winning tile cells) are taken from the batch, not retyped (a hand typed in its "
                        "notation cell is audited as --hand)")
    p.set_defaults(func=cmd_audit)
    ROW_OPTIONS.clear()
    blank = vars(p.parse_args(["--claimed", "0"]))  # (the namespace's defaults: --dealer/--not-dealer share one)
    p.set_defaults(**dict.fromkeys(_SENTINEL_DESTS, _UNSET))
    ROW_OPTIONS.update({dest: blank[dest] for dest in (
        "hand", "ruleset", "seat_wind", "round_wind", "winning_tile", "win_by", "not_winner", "last_tile", "first_turn",
        "announced_wait", "kong_on_kong", "dealer", "dealer_streak", "discards", "flag", "option", "exposed", "fix",
        "add", "tileset")})
