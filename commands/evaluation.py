"""``mahjong-score eval``: thin wrapper that registers :mod:`datasets.evaluate` (repository tooling).

``datasets/`` is not an installed package; this puts the repository root on ``sys.path`` (where
``datasets/evaluate.py`` lives in a clone) so that the console script finds it. Needs ``../shared``
for the real photos and crops. The arguments are checked here first, so that bad input is a
one-line error with exit code 2 before any model is loaded.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from commands.common import UserError


def check_args(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` when the eval options make sense; ``UserError`` naming the first that does not
    (``--threads`` < 1, ``--limit`` < 0, ``--conf`` outside 0–1, ``--composites`` or ``--hard`` < 0,
    an unknown name in ``--sets``, ``--models`` not a folder holding detector.onnx and classifier.onnx)."""

    if args.threads < 1:
        raise UserError(f"--threads {args.threads} must be ≥ 1")
    if args.limit < 0:
        raise UserError(f"--limit {args.limit} must be ≥ 0")
    if not (math.isfinite(args.conf) and 0 <= args.conf <= 1):
        raise UserError(f"--conf {args.conf} must be a detector score between 0 and 1")
    for opt in ("composites", "hard"):
        if getattr(args, opt, 0) < 0:
            raise UserError(f"--{opt} {getattr(args, opt)} must be ≥ 0")
    from datasets.evaluate import SETS

    known = set(SETS)
    bad = [s for s in getattr(args, "sets", ()) if s not in known]
    if bad:
        raise UserError(f"--sets: unknown set {', '.join(bad)} (from {', '.join(sorted(known))})")
    if getattr(args, "hard_kinds", None):
        from datasets.hard import KINDS

        bad = [k for k in args.hard_kinds if k not in KINDS]
        if bad:
            raise UserError(f"--hard-kinds: unknown kind {', '.join(bad)} (from {', '.join(KINDS)})")
    if args.models is not None:
        if not args.models.is_dir():
            raise UserError(f"--models {args.models}: not a folder")
        missing = [f for f in ("detector.onnx", "classifier.onnx") if not (args.models / f).is_file()]
        if missing:
            raise UserError(f"--models {args.models}: no {' and no '.join(missing)} in that folder")
    return args


def register(subparsers) -> None:
    """Add the ``eval`` subcommand (see :func:`datasets.evaluate.register`). ImportError if absent."""
    root = Path(__file__).resolve().parents[1]
    if (root / "datasets" / "evaluate.py").exists() and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from datasets.evaluate import register as _register

    _register(subparsers)
    p = subparsers.choices["eval"]
    run = p.get_default("func")
    p.set_defaults(func=lambda args: run(check_args(args)))
