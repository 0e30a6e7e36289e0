"""Shared test fixtures: the path to ../shared (tests that need it skip with a reason), a temporary
history database, and small rendered photos with their truth for the oracle reader."""
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


@pytest.fixture(autouse=True, scope="session")
def _history_db(tmp_path_factory):
    """Every command a test runs records its history in a temporary database, never the user's
    (``$MAHJONG_SCORE_DB``, inherited by subprocesses)."""
    path = tmp_path_factory.mktemp("history") / "history.sqlite3"
    old = os.environ.get("MAHJONG_SCORE_DB")
    os.environ["MAHJONG_SCORE_DB"] = str(path)
    yield path
    if old is None:
        os.environ.pop("MAHJONG_SCORE_DB", None)
    else:
        os.environ["MAHJONG_SCORE_DB"] = old


@pytest.fixture(scope="session")
def renders(tmp_path_factory) -> Path:
    """A folder of small rendered photos + ``truth.json`` (:func:`batch_fakes.rendered`), made once."""
    import batch_fakes as bf

    return bf.rendered(tmp_path_factory.getbasetemp())


@pytest.fixture
def truth(renders, monkeypatch) -> Path:
    """:func:`renders`, with ``$MAHJONG_TEST_TRUTH`` naming its ``truth.json`` so the oracle reader
    (and the workers and subprocesses it starts) knows the photos."""
    monkeypatch.setenv("MAHJONG_TEST_TRUTH", str(renders / "truth.json"))
    return renders


@pytest.fixture
def run_cli(capsys):
    """``run_cli(*argv)`` → (exit code, stdout, stderr) of ``mahjong-score argv`` run in-process
    (argparse usage errors give their exit code instead of raising)."""
    import cli

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            rc = cli.main(list(argv))
        except SystemExit as e:  # usage errors from argparse
            rc = e.code
        out, err = capsys.readouterr()
        return rc, out, err

    return run
