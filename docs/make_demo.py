"""Render the bundled demo photo ``docs/demo.jpg`` and its ground truth ``docs/demo.json``.

    python docs/make_demo.py [--seed 2026] [--index N]

Uses the project's own synthetic renderer (``datasets/``: repository tooling, not installed). Without
``--index`` it searches renders of ``--seed`` for a clear finished hand: 13-tile standard shape, an
exposed meld, one or two bonus tiles, the winning tile laid sideways, every hand
tile fully visible, a sharp image. Writes a JPEG of at most 300 KB.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.scene import render_scene  # noqa: E402

SHARP = 60.0  # variance of the Laplacian: no strong blur


def suitable(sc) -> bool:
    h = sc.hand
    if h is None or h.size != 13 or h.shape != "standard" or not (1 <= len(h.bonus) <= 2):
        return False
    if not any(m.exposed for m in h.melds):
        return False
    if not any(r.get("role") == "winning" and r.get("pose") == "sideways" for r in sc.rows):
        return False
    hand = [t for t in sc.tiles if t.placed.role != "distractor"]
    if not all(t.visible > 0.9 and not t.truncated for t in hand) or sc.info.get("standing"):
        return False
    grey = cv2.cvtColor(sc.image, cv2.COLOR_RGB2GRAY)
    return cv2.Laplacian(grey, cv2.CV_64F).var() > SHARP


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--index", type=int)
    ap.add_argument("--tries", type=int, default=400)
    a = ap.parse_args()
    idx = range(a.tries) if a.index is None else [a.index]
    for i in idx:
        sc = render_scene(a.seed, i)
        if a.index is None and not suitable(sc):
            continue
        h = sc.hand
        notation = h.notation()
        for q in (88, 82, 76, 70):
            ok, buf = cv2.imencode(".jpg", cv2.cvtColor(sc.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
            if len(buf) <= 300_000:
                break
        (ROOT / "docs" / "demo.jpg").write_bytes(buf.tobytes())
        truth = {"hand": notation, "winning": h.winning, "notation": f"{notation} win:{h.winning}",
                 "ruleset": "nts", "seed": a.seed, "index": i, "rows": sc.rows, "melds": sc.melds,
                 "source": "rendered by docs/make_demo.py with the project's synthetic generator (datasets/)"}
        (ROOT / "docs" / "demo.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n")
        print(f"index {i}: {notation} win:{h.winning} ({len(buf) // 1024} KB)")
        return 0
    print("no suitable render found; raise --tries", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
