"""Shared test fixtures: the path to ../shared (tests that need it skip with a reason)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MAHJONG_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path of ../shared; skips the test when it is absent."""
    if not (SHARED / "seeds").is_dir():
        pytest.skip(f"../shared not found at {SHARED} (set MAHJONG_SHARED)")
    return SHARED
