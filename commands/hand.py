"""``mahjong-score hand``: score a hand written in notation (:func:`scoring.score_hand`)."""
from __future__ import annotations

import argparse

from commands.common import add_context_args, add_history_args, context_from_args, options_from_args, print_json
from scoring import explain, load_ruleset, parse_hand, score_hand
from scoring.engine import with_no_winning_tile_note


def cmd_hand(args: argparse.Namespace) -> int:
    ctx = context_from_args(args)
    rs = load_ruleset(args.ruleset)
    # a ruleset with its own check_hand decides the tile count (score_hand calls it)
    sizes = rs.notation_sizes
    hand = parse_hand(args.notation, winning_tile=args.winning_tile, context=ctx, sizes=sizes)
    # a winner's hand with no winning tile is scored with no wait: its note says so, what naming one would change,
    # and the history lists it unsure, as a photo's (a new user's 26 had been said and recorded `ok`; win:1z: 30)
    result = with_no_winning_tile_note(score_hand(hand, rs, options_from_args(args), option_notes=True))
    from scoring.history import record_hand, typed_status  # the audit trail (--db, --no-history)

    record_hand(args, "hand", args.notation, result, context=ctx, options=options_from_args(args),
                status=typed_status(result))
    if args.json:
        print_json(result.to_json())
    else:
        print(explain(result))
    return 0


def register(subparsers) -> None:
    """Add the ``hand`` subcommand (registered through ``cli.COMMANDS``)."""
    h = subparsers.add_parser("hand", help="score a hand written in notation",
                              description="Score a hand written in notation, e.g. "
                                          "mahjong-score hand \"123m456p789s11z [777p]\" --winning-tile 1z. "
                                          "Notation: concealed tiles compact (123m44p55z; 1z-7z = E S W N White Green Red), "
                                          "[777p] exposed meld, (5555m) concealed kong, +1f3y flowers/seasons, win:5p winning tile.")
    h.add_argument("notation", help="the hand, e.g. \"123m456p789s11z [777p] +1f\"")
    add_context_args(h)
    h.add_argument("--json", action="store_true", help="print one JSON object")
    add_history_args(h)
    h.set_defaults(func=cmd_hand)
