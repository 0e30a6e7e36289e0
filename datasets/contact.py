"""Contact sheet of synthetic samples (``datasets/contact_sheet.png``, committed, < 1 MB).

    python -m datasets.contact [--seed 0] [--n 12] [--out datasets/contact_sheet.png]

The bottom row shows the label boxes (green: hand, red: face-down, grey: distractors).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from .scene import render_scene

ROLE_COLORS = {"concealed": (40, 220, 40), "winning": (255, 230, 0), "exposed": (0, 200, 255), "bonus": (255, 0, 255),
               "distractor": (160, 160, 160)}


def sheet(seed: int = 0, n: int = 12, cols: int = 4, tw: int = 320, th: int = 240) -> Image.Image:
    """A grid of ``n`` renders (``tw``×``th`` thumbnails); the last row with boxes drawn."""
    rows = (n + cols - 1) // cols
    out = np.full((rows * th, cols * tw, 3), 255, np.uint8)
    for k in range(n):
        sc = render_scene(seed, k)
        img = sc.image.copy()
        if k >= (rows - 1) * cols:
            for t in sc.tiles:
                c = (255, 40, 40) if t.placed.face_down and t.placed.role != "distractor" else ROLE_COLORS[t.placed.role]
                x0, y0, x1, y1 = (int(round(v)) for v in t.xyxy)
                cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), c, 2)
        r, c = divmod(k, cols)
        out[r * th:(r + 1) * th, c * tw:(c + 1) * tw] = cv2.resize(img, (tw, th), interpolation=cv2.INTER_AREA)
    return Image.fromarray(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.contact")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("contact_sheet.png"))
    a = ap.parse_args(argv)
    im = sheet(a.seed, a.n)
    im.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(a.out, optimize=True)
    print(a.out, a.out.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
