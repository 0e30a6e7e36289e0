"""``mahjong-score table`` from photos: ``--photo PLAYER=IMG`` beside ``--hand PLAYER=NOTATION``.

The ``table`` command itself (seat winds from ``--east``, scoring the four hands, the settlement,
the next game) is :mod:`commands.settle`; this module registers it with two more options and
gives it, for each player whose hand is a photo, a function that reads and scores the photo
(:func:`vision.pipeline.read_photo` through the reader of :mod:`vision.batch`, the models loaded
once for all photos) in that player's circumstances: their seat wind, winner or not. A photo whose
reading is not a legal hand stops the command with the problem and how to correct it
(``--photo-fix PLAYER=POS=TILE``), as ``photo`` does; nothing is settled on a guess.

Players keep the order in which ``--hand`` and ``--photo`` are given (the seating order).
"""
from __future__ import annotations

import argparse
import contextlib
import re
from pathlib import Path
from typing import Any, Callable

from commands.common import NotAHandReading, UserError
from commands.settle import player_label


class PhotoEntry(str):
    """A ``--photo PLAYER=IMG`` value, kept in ``args.hand`` with the ``--hand`` values so that the
    seating order is the order on the command line."""


class _PhotoAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, self.dest, None) or [])
        items.append(PhotoEntry(values))
        setattr(namespace, self.dest, items)


def add_table(sub: Any) -> None:
    """Register ``mahjong-score table`` (:func:`commands.settle.add_table`) with ``--photo`` and
    ``--photo-fix``."""
    from commands.settle import add_table as add_notation_table

    add_notation_table(sub)
    p = sub.choices["table"]
    p.description += (" A hand may be a photo instead: --photo PLAYER=IMG (read as `photo` reads it, in "
                      "that player's seat wind, winner or not); correct a misread tile with --photo-fix "
                      "PLAYER=POS=TILE, add a tile the photo missed with --photo-add PLAYER=POS=TILE. "
                      "See docs/photo.md.")
    g = p.add_argument_group("photos")
    g.add_argument("--photo", action=_PhotoAction, dest="hand", metavar="PLAYER=IMG",
                   help="a player's hand as a photo, instead of --hand (in seating order with the --hand values)")
    g.add_argument("--photo-fix", action="append", default=[], metavar="PLAYER=POS=TILE[,POS=TILE]",
                   help="correct tiles of one player's photo by number, e.g. N=3=5p,7=1z (repeatable)")
    g.add_argument("--photo-add", action="append", default=[], metavar="PLAYER=POS=TILE[,POS=TILE]",
                   help="tiles one player's photo missed, as photo --add: e.g. N=14=5p (it becomes tile 14; "
                        "repeatable, in order)")
    g.add_argument("--reader", default=None, help=argparse.SUPPRESS)  # MODULE:FUNCTION (tests), as batch
    notation_cmd = p.get_default("func")
    p.set_defaults(func=lambda args: cmd_table(args, notation_cmd))


def _split(item: str, what: str) -> tuple[str, str]:
    if "=" not in item:
        raise UserError(f"{what} {item!r} must be PLAYER=VALUE")
    player, value = item.split("=", 1)
    player, value = player_label(player), value.strip()  # (the players' labels as --hand's are read: NFC)
    if not player or not value:
        raise UserError(f"{what} {item!r} must be PLAYER=VALUE, both given")
    return player, value


def cmd_table(args: argparse.Namespace, notation_cmd: Callable[[argparse.Namespace], int]) -> int:
    """Check the photos, attach a reader per photo player (``args.hand_readers``) and run the
    notation table command. Raises UserError for a missing photo, a ``--photo-fix`` for a player
    without a photo, or a photo whose reading is not a legal hand."""

    photos = dict(_split(e, "--photo") for e in args.hand if isinstance(e, PhotoEntry))
    fixes: dict[str, dict[int, str]] = {}
    adds: dict[str, str] = {}
    if photos or args.photo_fix or getattr(args, "photo_add", None):
        from vision.pipeline import parse_additions, parse_fixes

        for item in getattr(args, "photo_add", None) or []:
            player, text = _split(item, "--photo-add")
            if player not in photos:
                raise UserError(f"--photo-add {item!r}: {player!r} has no --photo"
                                + (f" (photos: {', '.join(photos)})" if photos else ""))
            adds[player] = ",".join(x for x in (adds.get(player), text) if x)  # repeated: one after the other
            with _own_flag("--photo-add", item, "--add"):
                parse_additions(adds[player])  # a malformed item is refused before any photo is read

        for item in args.photo_fix:
            player, text = _split(item, "--photo-fix")
            if player not in photos:
                raise UserError(f"--photo-fix {item!r}: {player!r} has no --photo"
                                + (f" (photos: {', '.join(photos)})" if photos else ""))
            mine = fixes.setdefault(player, {})
            with _own_flag("--photo-fix", item, "--fix"):
                given = parse_fixes(text)
            for pos, code in given.items():  # repeated --photo-fix add up; a tile set twice is refused
                if mine.get(pos, code) != code:
                    raise UserError(f"--photo-fix: {player}'s tile {pos} is given twice ({pos}={mine[pos]} and {pos}={code})")
                mine[pos] = code
    from vision.io import path_problem

    for player, path in photos.items():
        # (what `photo` says of it: a breaker's link loop and folder had been "no such file")
        why = path_problem(path) if not Path(path).is_file() else None
        if why:
            raise UserError(f"--photo {player}={path}: {why}")
    args.hand_sources = {}
    args.hand_recorders = {}
    args.hand_readers = {p: _photo_scorer(args, p, path, fixes.get(p, {}), adds.get(p))
                         for p, path in photos.items()}
    return notation_cmd(args)


def _record(args: argparse.Namespace, path: str, res, ctx, opts, rs, fixes, adds, winning_tile, note: str,
            status: str | None = None) -> None:
    """One table photo's reading in the history (``--db``/``--no-history``), as ``photo`` records it;
    ``status`` (e.g. :data:`commands.settle.PROVISIONAL_STATUS`) instead of the reading's own."""
    from commands.common import record_photo

    record_photo(args, "table", Path(path), res, context=ctx, options=dict(opts or {}), ruleset=rs.id,
                 fixes=fixes, additions=adds, exposed=None, winning_tile=winning_tile, note=note, status=status)


@contextlib.contextmanager
def _own_flag(flag: str, item: str, theirs: str):
    """A malformed ``--photo-fix``/``--photo-add`` item is refused in this command's words: the reader's
    parser names its own flag (``theirs``: "--fix '3=zz': 'zz' is not a tile code"), which `table` does
    not take, and not the player (a tester's finding)."""
    from scoring import HandError

    try:
        yield
    except HandError as e:
        msg = str(e)
        rest = msg
        if msg.startswith(theirs + ": "):  # "--fix: tile 3 is given twice …"
            rest = msg[len(theirs) + 2:]
        elif msg.startswith(theirs + " "):  # "--fix '3=zz': 'zz' is not …", "--add '3' must be POS=TILE …"
            rest = msg[len(theirs) + 1:]
            rest = rest.split(": ", 1)[1] if ": " in rest else rest
        shown = item if len(item) <= 40 else item[:39] + "…"
        raise UserError(f"{flag} {shown!r}: {rest}") from None


_READERS: dict[str, Any] = {}


def _reader(spec: str | None):
    """The photo reader (:mod:`vision.batch`'s ``--reader`` interface), built once per spec."""
    from vision.readers import DEFAULT_READER, FatalError, resolve_reader

    spec = spec or DEFAULT_READER
    if spec not in _READERS:
        try:
            _READERS[spec] = resolve_reader(spec)()
        except FatalError as e:
            raise UserError(str(e)) from None
        except Exception as e:  # ModelError: the models are missing
            raise UserError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    return _READERS[spec]


def _photo_scorer(args: argparse.Namespace, player: str, path: str, fixes: dict[int, str],
                  adds: str | None = None):
    """``(context, winning_tile, ruleset, options) → ScoredHand`` for one player's photo (``adds``:
    its ``--photo-add`` items, ``"14=5p,15=6p"``); records where the hand came from in
    ``args.hand_sources[player]``."""

    def score(ctx, winning_tile, rs, opts):
        from vision.decode import confidence_value, format_confidence_below
        from vision.errors import VisionError

        try:
            # the table says who won (--winner): a winner's 13-tile photo is not read as a non-winner's hand
            from vision.pipeline import parse_additions

            more = {"additions": parse_additions(adds)} if adds else {}  # (only then: any reader)
            res = _reader(args.reader)(path, rs, ctx, winning_tile=winning_tile, fixes=fixes, options=opts,
                                       said_won=True, **more)
        except VisionError as e:
            raise UserError(f"photo of {player} ({path}): {str(e).splitlines()[0]}") from None
        r = res.reading
        if not r.legal or res.scored is None:
            # the reading's advice in this command's flags (a new user was told "--fix POS=TILE", which
            # `table` does not take, before the --photo-fix that it does)
            # (any --fix/--add the reader names, numbered too: a tester was told "--fix 1=TILE")
            problem = re.sub(r"--(fix|add) (POS|\d+)=", lambda m: f"--photo-{m[1]} {player}={m[2]}=",
                             r.problem or "the reading is not a legal hand")
            # (the table says who won: a winner's photo read a tile short is not a non-winner's hand, and a
            # non-winner's read a tile long is the winner's only if the table says so: `table` has no
            # --not-winner to leave out, as a tester was told)
            problem = re.sub(r"; if the hand did not win, give --not-winner \([^)]*\)", "", problem)
            problem = re.sub(r"if the hand won, leave out --not-winner", f"if the hand won, give --winner {player}",
                             problem)
            raise NotAHandReading(r.notation, f"photo of {player} ({path}): {problem} "
                            f"(read {r.notation}); correct a tile with --photo-fix {player}=POS=TILE, add a missed one with "
                            f"--photo-add {player}=POS=TILE "
                            f"(numbers: `mahjong-score photo {path} --annotate out.jpg`) or give --hand {player}=NOTATION")
        from vision.batch import REVIEW_BELOW  # (readings less sure get "check it", as batch's needs-review)

        from vision.pipeline import score_confidence
        from vision.record import scored_without_winning_tile

        conf = float(r.confidence)
        # (doubts that cannot change the score under the ruleset are none of the score's: as batch weighs it)
        sure = score_confidence(res)
        # (a winner's photo scored with no winning tile marked is a guess at the wait: as batch flags it)
        unmarked = scored_without_winning_tile(r, winning_tile)
        check = (f" — below {REVIEW_BELOW:.0%}: check it" if sure < REVIEW_BELOW else
                 " — no winning tile marked: check it (give --winning-tile)" if unmarked else "")
        # (the score's said where it reads otherwise: a bonus tile read 99.7 % its face is no news)
        differs = format_confidence_below(sure, REVIEW_BELOW) != format_confidence_below(conf, REVIEW_BELOW)
        said = (f"; the score {format_confidence_below(sure, REVIEW_BELOW)} sure" if differs else "") + (
            f": the rest of the doubt is in flowers/seasons that cannot change it under {res.scored.ruleset}"
            if conf < REVIEW_BELOW <= sure else "")
        fixed = (f", fixed {','.join(f'{k}={v}' for k, v in sorted(fixes.items()))}" if fixes else "") + (
            f", added {adds}" if adds else "")
        # the history entry, written once the table is settled (commands.settle.cmd_table: its note names
        # the table's outcome for this player)
        args.hand_recorders[player] = lambda note, status=None: _record(args, path, res, ctx, opts, rs, fixes, adds,
                                                                         winning_tile, note, status)
        # a single tile set apart that a hand flagged dead-hand was read without (it had the full count
        # with it): said where the reading is, or the table would not show that a tile was left out
        from vision.pipeline import DEAD_HAND_APART_NOTE

        dead = "".join(f"; {n}" for n in r.notes if DEAD_HAND_APART_NOTE in n)
        args.hand_sources[player] = {
            "photo": path, "reading": r.notation, "confidence": confidence_value(conf),
            "fixes": {str(k): v for k, v in sorted(fixes.items())}, "added": adds or None,
            "changed": len(r.changed),
            "text": f"photo {path}: read {r.notation} ({format_confidence_below(conf, REVIEW_BELOW)} sure{said}{fixed})"
                    f"{check}{dead}",
            # (a new user's table settled 250 and 242 from a photo read at 41 %, exit 0: the settlement
            # is provisional until the reading is checked, commands.settle.cmd_table)
            "unsure": sure < REVIEW_BELOW or unmarked,
        }
        return res.scored

    return score
