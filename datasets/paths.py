"""Where things live: the repository root and the read-only ``../shared`` folder."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path | None:
    """The shared data folder (``$MAHJONG_SHARED`` or ``../shared`` beside the repo), or None if absent."""
    env = os.environ.get("MAHJONG_SHARED")
    p = Path(env) if env else REPO.parent / "shared"
    return p if p.is_dir() else None


def tile_art_dir() -> Path | None:
    """``shared/data/tile-art`` or None when it is not there."""
    s = shared_dir()
    if s is None:
        return None
    p = s / "data" / "tile-art"
    return p if p.is_dir() else None
