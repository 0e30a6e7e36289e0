"""Where things live: the repository root, the read-only ``../shared`` folder, and the folder for
generated data (renders, crops, training runs), never inside the repository nor at a path of one
machine: ``$MAHJONG_DATA``, else the user cache directory (platformdirs)."""
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


def data_root() -> Path:
    """Where generated data sets live: ``$MAHJONG_DATA``, else ``<user cache dir>/mahjong-score/data``
    (platformdirs ``user_cache_dir``; e.g. ``~/.cache/mahjong-score/data`` on Linux)."""
    env = os.environ.get("MAHJONG_DATA")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("mahjong-score")) / "data"


def extra_art_dir() -> Path:
    """Folder of the extra art sets extracted by ``python -m datasets.extra_art``: ``$MAHJONG_EXTRA_ART``,
    else ``data_root()/tile-art-extra``."""
    env = os.environ.get("MAHJONG_EXTRA_ART")
    return Path(env) if env else data_root() / "tile-art-extra"


def default_synth(name: str = "synth-v2") -> Path:
    """The default synthetic data set: ``$MAHJONG_SYNTH``, else ``data_root() / name``."""
    env = os.environ.get("MAHJONG_SYNTH")
    return Path(env) if env else data_root() / name
