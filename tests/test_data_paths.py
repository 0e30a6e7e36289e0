"""Generated data folders default to the user cache directory (or $MAHJONG_DATA), never to a path of
one machine (issue 17)."""
from __future__ import annotations

from pathlib import Path

from datasets.paths import data_root, default_synth


def test_data_root_is_the_user_cache_or_the_env(monkeypatch, tmp_path):
    from platformdirs import user_cache_dir

    monkeypatch.delenv("MAHJONG_DATA", raising=False)
    monkeypatch.delenv("MAHJONG_SYNTH", raising=False)
    assert data_root() == Path(user_cache_dir("mahjong-score")) / "data"
    assert default_synth() == data_root() / "synth-v2"
    assert default_synth("synth-v3") == data_root() / "synth-v3"
    monkeypatch.setenv("MAHJONG_DATA", str(tmp_path))
    assert default_synth() == tmp_path / "synth-v2"
    monkeypatch.setenv("MAHJONG_SYNTH", str(tmp_path / "mine"))
    assert default_synth() == tmp_path / "mine"


def test_no_machine_path_in_the_tools():
    # no non-test source file names a development machine's folder
    root = Path(__file__).resolve().parents[1]
    bad = []
    for p in list(root.glob("*.py")) + [q for d in ("datasets", "vision", "scoring", "web", "commands", "benchmarks")
                                        for q in (root / d).rglob("*.py")]:
        text = p.read_text(encoding="utf-8", errors="replace")
        for needle in ("/work/", "/root/", "/home/"):
            if needle in text:
                bad.append(f"{p.relative_to(root)}: {needle}")
    assert not bad, bad
