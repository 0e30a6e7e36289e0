"""``mahjong-score eval``: thin wrapper that registers :mod:`datasets.evaluate` (repository tooling).

``datasets/`` is not an installed package; this puts the repository root on ``sys.path`` (where
``datasets/evaluate.py`` lives in a clone) so that the console script finds it. Needs ``../shared``
for the real photos and crops.
"""
from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``eval`` subcommand (see :func:`datasets.evaluate.register`). ImportError if absent."""
    root = Path(__file__).resolve().parents[1]
    if (root / "datasets" / "evaluate.py").exists() and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from datasets.evaluate import register as _register

    _register(subparsers)
