"""Named scene layouts for tests of hand finding: renders like the real failures of issue 14, with
the true hand tiles and their boxes.

    from datasets.layouts import render_layout
    lay = render_layout("keyboard-beside", seed=0)
    lay.image        # (H, W, 3) uint8 RGB
    lay.hand_tiles   # the hand's tile codes, left to right along the row ("0x" for a face-down tile)
    lay.hand_boxes   # (N, 4) float32 xyxy pixels, one per hand tile, same order
    lay.other_boxes  # (M, 4) float32 xyxy pixels of the tiles that are not the hand's
    lay.jpeg()       # the image as JPEG bytes (what vision.pipeline.read_photo reads)

Kinds (:data:`LAYOUTS`): ``row-with-tiles-behind`` (a 14-tile concealed hand row with 3–5 loose
tiles lying behind it), ``keyboard-beside`` (the hand standing on a desk beside a keyboard and loose
keycaps), ``patterned-cloth`` (the hand lying on a patterned bed cover), ``walls-behind`` (a low view
from the seat, with two-high walls and discards behind the hand), ``rotated-90`` (a plain hand
photo turned 90° clockwise with no EXIF tag, as messaging apps send them).

Every hand is concealed only (no melds, no bonus tiles; :func:`concealed_hand`), a finished 14-tile
hand whose notation is ``hand``. Each layout is a pure function of ``(kind, seed)``; the first render
index whose hand tiles are all in the picture, unhidden (≥ 60 % visible) and not cut by the border is
used. Renders only: never reserved data.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from .hands import Hand, random_hand

LAYOUTS = ("row-with-tiles-behind", "keyboard-beside", "patterned-cloth", "walls-behind", "rotated-90")
#: the run seed of the layout renders (never a training seed)
LAYOUT_SEED = 915_000


@dataclass
class Layout:
    """One rendered layout: the image and the truth (see the module docstring)."""

    kind: str
    image: np.ndarray
    hand: str
    hand_tiles: list[str]
    hand_boxes: np.ndarray
    other_tiles: list[str]
    other_boxes: np.ndarray
    index: int
    info: dict = field(default_factory=dict)

    def check(self, all_boxes, hand_boxes, hand_tiles) -> dict:
        """How a reader did on this layout: ``all_boxes`` (N, 4) every detection, ``hand_boxes`` (K, 4)
        and ``hand_tiles`` (K codes) the hand it reported, in this image's pixels → ``found`` (every
        detected hand tile in its hand, nothing else: :func:`datasets.evalsets.hand_found`), ``exact``
        (the hand's tiles as a multiset), ``tp``/``fp``/``fn`` (box IoU ≥ 0.5 and the same code)."""
        from collections import Counter

        from .evalsets import box_counts, hand_found

        ab = np.asarray(all_boxes, float).reshape(-1, 4)
        hb = np.asarray(hand_boxes, float).reshape(-1, 4)
        tp, fp, fn = box_counts(hb, list(hand_tiles), self.hand_boxes.astype(float), self.hand_tiles)
        return {"found": hand_found(ab, hb, self.hand_boxes.astype(float)),
                "exact": Counter(hand_tiles) == Counter(self.hand_tiles), "tp": tp, "fp": fp, "fn": fn}

    def jpeg(self, quality: int = 92) -> bytes:
        """The image as JPEG bytes (no EXIF)."""
        from PIL import Image

        buf = io.BytesIO()
        Image.fromarray(self.image).save(buf, "JPEG", quality=quality)
        return buf.getvalue()


def concealed_hand(rng: np.random.Generator) -> Hand:
    """A random finished 13-tile hand with every tile concealed (14 tiles, no kongs, no bonus tiles)."""
    while True:
        h = random_hand(rng, size=13, allow_bonus=False)
        if not h.melds and len(h.concealed) == 14:
            return h


def _hard_for(kind: str, hand: Hand):
    from .hard import HardScene

    if kind == "row-with-tiles-behind":
        return HardScene("tiles-behind", hand=hand, distractors=False, standing=False)
    if kind == "keyboard-beside":
        return HardScene("desk-keyboard", clutter=("keys",), hand=hand, distractors=False, standing=True)
    if kind == "patterned-cloth":
        return HardScene("bed-cover", hand=hand, distractors=False)
    if kind == "walls-behind":
        return HardScene("seat-low", hand=hand, distractors=False)
    if kind == "rotated-90":
        return HardScene("tiles-behind", hand=hand, distractors=False, behind=0, standing=False)
    raise ValueError(f"unknown layout {kind!r} (one of {', '.join(LAYOUTS)})")


def render_layout(kind: str, seed: int = 0, W: int = 960, H: int = 720, max_tries: int = 40) -> Layout:
    """Render layout ``kind`` (one of :data:`LAYOUTS`) for ``seed``: a :class:`Layout`.

    Raises ValueError for an unknown kind, RuntimeError when no tile art is installed or no render of
    ``max_tries`` shows the whole hand.
    """
    from .scene import render_scene

    if kind not in LAYOUTS:
        raise ValueError(f"unknown layout {kind!r} (one of {', '.join(LAYOUTS)})")
    for index in range(max_tries):
        rng = np.random.default_rng([LAYOUT_SEED, int(seed), index, LAYOUTS.index(kind)])
        hand = concealed_hand(rng)
        hard = _hard_for(kind, hand)
        sc = render_scene(LAYOUT_SEED + LAYOUTS.index(kind), int(seed) * 1000 + index, W, H, hard=hard)
        mine = [t for t in sc.tiles if t.placed.role != "distractor"]
        if len(mine) != 14 or any(t.truncated or t.visible < 0.6 for t in mine):
            continue
        mine.sort(key=lambda t: (t.placed.row, t.xyxy[0] + t.xyxy[2]))
        others = [t for t in sc.tiles if t.placed.role == "distractor"]
        if kind == "row-with-tiles-behind" and len(others) < 3:
            continue
        img = sc.image
        hb = np.array([t.xyxy for t in mine], np.float32).reshape(-1, 4)
        ob = np.array([t.xyxy for t in others], np.float32).reshape(-1, 4)
        if kind == "rotated-90":  # turned 90° clockwise: (x, y) → (H − y, x)
            img = np.ascontiguousarray(np.rot90(img, -1))
            hb, ob = _rot90_cw(hb, H), _rot90_cw(ob, H)
        return Layout(kind, img, hand.notation(), [t.placed.shown for t in mine], hb,
                      [t.placed.shown for t in others], ob, index, dict(sc.info))
    raise RuntimeError(f"layout {kind!r} seed {seed}: no render of {max_tries} shows the whole hand")


def _rot90_cw(boxes: np.ndarray, H: int) -> np.ndarray:
    """xyxy boxes of an image of height ``H`` after turning the image 90° clockwise."""
    x0, y0, x1, y1 = boxes.T
    return np.stack([H - y1, x0, H - y0, x1], 1).astype(np.float32)
