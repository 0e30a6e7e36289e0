"""``mahjong-score calibrate`` and ``mahjong-score tilesets`` (profiles of :mod:`vision.tileset`), and the
``--tileset``/``--learn`` arguments of the photo commands."""
from __future__ import annotations

import argparse

from commands.common import UserError, print_json
from vision.tileset import Calibration, MARGIN_WARN, TilesetError, calibrate, remove_profile, scan_profiles, tilesets_dir


def reader_spec(spec: str, name: str | None) -> str:
    """:func:`vision.tileset.reader_spec`, its TilesetError as a UserError (one line, exit 2)."""
    from vision.tileset import reader_spec as spec_with_tileset

    try:
        return spec_with_tileset(spec, name)
    except TilesetError as e:
        raise UserError(str(e)) from None


def add_tileset_arg(p: argparse.ArgumentParser, learn: bool = False) -> None:
    """``--tileset NAME``: read with a calibrated profile (``mahjong-score calibrate``); ``learn``:
    also ``--learn`` (the ``--fix`` corrections are added to the profile)."""
    p.add_argument("--tileset", metavar="NAME",
                   help="read with the profile of your own tile set (made by `mahjong-score calibrate`; "
                        "list them with `mahjong-score tilesets`)")
    if learn:
        p.add_argument("--learn", action="store_true",
                       help="add the tiles corrected with --fix to the --tileset profile (it learns your set)")


def check_learn(args: argparse.Namespace) -> None:
    """UserError when ``--learn`` lacks ``--tileset`` or ``--fix``."""
    if getattr(args, "learn", False) and not (args.tileset and args.fix):
        if args.tileset and getattr(args, "add", None):
            raise UserError("--learn learns from --fix POS=TILE only: a tile added with --add has no box of its own "
                            "in the photo to learn from")
        raise UserError("--learn needs --tileset NAME (the profile to teach) and --fix POS=TILE (the corrections)")


def _swaps(doubtful) -> list[tuple[int, int, str, str]]:
    """(pos a, pos b, face a, face b) for each pair of doubtful tiles read as each other's face."""
    out, used = [], set()
    for a, la, ra in doubtful:
        for b, lb, rb in doubtful:
            if a < b and a not in used and b not in used and ra == lb and rb == la:
                out.append((a, b, la, lb))
                used |= {a, b}
    return out


def _report_lines(cal: Calibration) -> list[str]:
    p, s = cal.profile, cal.separation
    out = [f"tile set {p.name!r}: {cal.added} tiles added from {len(cal.photos)} photo(s) in {cal.seconds:.1f} s; "
           f"now {s['examples']} examples of {s['classes']} faces ({cal.path})"
           + (f"; {cal.repeated} tile(s) already in it not added again (the same photo twice?)" if cal.repeated else "")]
    for ph in cal.photos:
        line = f"  {ph.name}: {ph.tiles} tiles; the classifier alone reads {ph.model_right} of {ph.tiles} as the layout says"
        if ph.dropped:
            line += f"; {ph.dropped} unsure detection(s) left out"
        if ph.left_out:
            line += f"; {ph.left_out} box(es) off the layout's rows or face-down left out"
        if ph.doubtful:
            line += ("; learned as the layout says, though the classifier alone reads "
                     + ", ".join(f"tile {a} ({b}) as {c}" for a, b, c in ph.doubtful[:6])
                     + (f" and {len(ph.doubtful) - 6} more" if len(ph.doubtful) > 6 else "")
                     + " surely (what calibration is for; check them only if the layout may be wrong)")
        if ph.unsure:
            line += (f"; {'it reads' if ph.doubtful else 'the classifier alone reads'} "
                     + ", ".join(f"tile {a} ({b}) as {c}" for a, b, c in ph.unsure[:8])
                     + (f" and {len(ph.unsure) - 8} more" if len(ph.unsure) > 8 else "") + " less surely")
        out.append(line)
        twice = ph.twice()
        if twice:
            out.append("  " + "; ".join(f"tile {a} is read {c} surely, and so is tile {j}, where the layout has {c}"
                                        for a, _, c, j in twice)
                       + ": if a face is in the photo twice and " + " and ".join(b for _, b, _, _ in twice)
                       + " not at all, lay the missing face in its place and calibrate again with --replace")
        swaps = _swaps(ph.doubtful)
        if swaps:
            out.append("  " + "; ".join(f"tiles {a} and {b} look swapped ({x} and {y})" for a, b, x, y in swaps)
                       + ": if the layout or --tiles was wrong, calibrate again with --replace")
    if s.get("min_margin") is not None:
        close = ", ".join(f"{c['tile']}~{c['nearest']} {c['margin']:.3f}" for c in s["closest"])
        out.append(f"separation: nearest other-face margin median {s['median_margin']:.3f}, lowest {s['min_margin']:.3f} "
                   f"(closest: {close}); {s['hard']} example(s) below {MARGIN_WARN}")
    if s.get("loo_accuracy") is not None:
        out.append(f"leave-one-out accuracy: {s['loo_accuracy']:.1%} of {s['loo_examples']} examples")
    else:
        out.append("leave-one-out accuracy: needs two examples of a face (another photo with the same --name, or a face twice in the layout)")
    if p.head is not None:
        out.append(f"reads with: a head fitted on the {len(p.codes)} examples and {len(p.views)} altered views of them "
                   f"(a slant, standing, blur, light; the separation figures above are the faces' mean embeddings)")
    out.append(f"use it with: mahjong-score photo IMG --tileset {p.name}")
    return out


def cmd_calibrate(args: argparse.Namespace) -> int:
    from vision.errors import VisionError

    try:
        cal = calibrate(args.photos, args.name, args.tiles, replace_existing=args.replace)
    except VisionError as e:
        raise UserError(str(e).splitlines()[0]) from None
    if args.json:
        print_json(cal.to_json())
    else:
        print("\n".join(_report_lines(cal)))
    return 0


def cmd_tilesets(args: argparse.Namespace) -> int:
    try:
        if args.remove is not None:
            path = remove_profile(args.remove)
            if args.json:
                print_json({"removed": args.remove, "path": str(path)})
            else:
                print(f"removed tile set {args.remove!r} ({path})")
            return 0
        profs, bad = scan_profiles()
    except TilesetError as e:
        raise UserError(str(e)) from None
    rows = [p.summary() for p in profs]
    if args.json:
        print_json({"dir": str(tilesets_dir()), "tilesets": rows,
                    "unreadable": [{"name": n, "error": m} for n, m in bad]})
        return 0
    if not rows and not bad:
        print(f"no tile sets in {tilesets_dir()} (make one with `mahjong-score calibrate PHOTO --name NAME`)")
        return 0
    if rows:
        print(f"{'name':<20} {'faces':>5} {'examples':>8} {'learned':>7}  created")
    for r in rows:
        print(f"{r['name']:<20} {r['classes']:>5} {r['examples']:>8} {r['learned']:>7}  {r['created']}")
    for _name, msg in bad:
        print(f"unreadable: {msg}")
    return 0


def register_calibrate(subparsers) -> None:
    """Add the ``calibrate`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "calibrate", help="teach the reader your own tile set from a photo of its faces",
        description="Photograph your own tiles once and store a profile of them (docs/photo.md). By default "
                    "a photo shows one of each face in reading order (rows top to bottom, each left to right): "
                    "1-9m, 1-9p, 1-9s, East South West North White Green Red, flowers 1-4, seasons 1-4 (42 tiles). "
                    "Other layouts: --tiles in notation, once per photo. Calling again with the same --name adds "
                    "to that profile; --replace starts it over. Then read with --tileset NAME. Profiles are "
                    "stored in $MAHJONG_TILESETS, else the user data folder (`mahjong-score tilesets` lists them).")
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="calibration photo(s)")
    p.add_argument("--name", required=True, help="the profile's name (letters, digits, . _ -)")
    p.add_argument("--tiles", action="append", metavar="NOTATION",
                   help="the photo's tiles in reading order, e.g. \"123m456p +1f2f\" (repeat once per photo)")
    p.add_argument("--replace", action="store_true", help="start the profile over instead of adding to it")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=cmd_calibrate)


def register_tilesets(subparsers) -> None:
    """Add the ``tilesets`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser("tilesets", help="list the calibrated tile sets, or remove one",
                              description=f"List the profiles made by `mahjong-score calibrate` (stored in "
                                          f"$MAHJONG_TILESETS or the user data folder), or remove one.")
    p.add_argument("--remove", metavar="NAME", help="delete this profile")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_tilesets)
