"""Hard scenes for :func:`datasets.scene.render_scene`: the kinds of real photo that the product fails
on (issue 14), and clutter objects that are never tiles (hard negatives for the detector).

Everything here is off unless a :class:`HardScene` is passed to ``render_scene(..., hard=...)``; a
render without one is byte-identical to what it was before this module existed (tests/test_synth.py).
The hard parts draw from their own random stream (``np.random.default_rng([seed, index, 4242])``),
so the base scene (tile set, hand, layout) of a hard render is the same as the plain render's where
the scene kind does not change it.

Scene kinds (:data:`KINDS`):

* ``seat-low``: a low oblique view from the seat (tilt 64–78° from straight down), the hand
  standing, two-high walls of face-down tiles and their discards behind it;
* ``auto-table``: an automatic table in green / teal / grey felt with its parts (centre panel with
  the dice window, raised rim, corner buttons);
* ``desk-keyboard``: the hand on a desk next to a keyboard (and loose keycaps);
* ``bed-cover``: tiles on a patterned cloth (flowers, paisley, dots, checks at tile scale);
* ``windowsill``: a white sill against a bright window (blown-out far part, dark foreground);
* ``four-hands``: a whole-table view from above the player's side: four hands, a square of walls,
  discards in the middle; the player's hand is the one nearest the camera;
* ``rows-of-9``: the concealed tiles lying in rows of nine (9 + the rest, the second row in front);
* ``heavy-perspective``: a wide lens (85–100° across), close and oblique, turned up to ±35°;
* ``tiles-behind``: 3–5 loose tiles lying just behind the hand row.

Clutter kinds (:data:`CLUTTER`): keys, dominoes, dice, cards, text, coins, sticks, auto-parts.

Held-out settings: ``split="val"`` draws felt / cloth / desk colours and cloth motifs from palettes
that ``split="train"`` never uses (:data:`PALETTES`), and the hard validation set of
``mahjong-score eval`` renders seeds from :data:`HARD_VAL_SEED` on, which training must not use
(the training recipe in datasets/train.py uses seeds 0–4).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .render import Body, rot_z

DEG = math.pi / 180

KINDS = ("seat-low", "auto-table", "desk-keyboard", "bed-cover", "windowsill", "four-hands", "rows-of-9",
         "heavy-perspective", "tiles-behind")
CLUTTER = ("keys", "dominoes", "dice", "cards", "text", "coins", "sticks", "auto-parts")
#: the first seed of the hard validation set (never a training seed)
HARD_VAL_SEED = 914_000

#: colours (RGB) per split; "val" is held out from training
PALETTES = {
    "train": {
        "felt": [(28, 118, 66), (22, 92, 52), (34, 120, 118), (26, 96, 100), (112, 116, 120), (78, 82, 88),
                 (40, 70, 120)],
        "desk": [(225, 225, 222), (200, 200, 198), (150, 150, 152), (60, 60, 64), (190, 160, 120)],
        "cloth": [[(230, 220, 200), (180, 60, 70), (60, 120, 70)], [(200, 210, 230), (40, 60, 130), (230, 230, 230)],
                  [(240, 200, 210), (200, 90, 120), (250, 250, 250)]],
        "motifs": ("flowers", "checks"),
        "sill": [(236, 236, 232), (210, 205, 195)],
    },
    "val": {
        "felt": [(18, 104, 88), (44, 140, 140), (96, 100, 104), (54, 134, 64), (32, 84, 76)],
        "desk": [(242, 240, 236), (172, 174, 178), (44, 44, 48), (150, 110, 70)],
        "cloth": [[(250, 240, 215), (30, 90, 160), (200, 150, 40)], [(220, 230, 215), (150, 40, 50), (40, 40, 40)],
                  [(235, 225, 245), (110, 60, 150), (90, 160, 90)]],
        "motifs": ("paisley", "dots", "flowers"),
        "sill": [(245, 245, 245), (190, 190, 185)],
    },
}


@dataclass(frozen=True)
class HardScene:
    """Options of a hard scene. ``kind``: one of :data:`KINDS`; ``clutter``: kinds from :data:`CLUTTER`
    placed around the hand; ``split``: ``train`` | ``val`` (held-out palettes); ``hand``: a
    :class:`datasets.hands.Hand` to lay out instead of a random one; ``distractors``: the default
    discards/walls/other hands/props of :func:`datasets.scene.add_distractors`; ``behind``: loose tiles
    lying behind the hand row (None: 3–5 for ``tiles-behind``, else none); ``standing``: force the hand
    row standing (True) or lying (False), None: the scene's choice."""

    kind: str = "tiles-behind"
    clutter: tuple[str, ...] = ()
    split: str = "train"
    hand: object | None = None
    distractors: bool = True
    behind: int | None = None
    standing: bool | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown hard scene kind {self.kind!r} (one of {', '.join(KINDS)})")
        bad = [c for c in self.clutter if c not in CLUTTER]
        if bad:
            raise ValueError(f"unknown clutter {', '.join(bad)} (from {', '.join(CLUTTER)})")
        if self.split not in PALETTES:
            raise ValueError(f"split {self.split!r}: train or val")

    @property
    def palette(self) -> dict:
        return PALETTES[self.split]


def hard_rng(seed: int, index: int) -> np.random.Generator:
    """The hard parts' own random stream for image ``index`` of run ``seed``."""
    return np.random.default_rng([int(seed), int(index), 4242])


def standing_for(hard: HardScene) -> bool | None:
    """Whether the hand row stands (None: random as in plain renders)."""
    if hard.standing is not None:
        return hard.standing
    return {"seat-low": True, "rows-of-9": False, "bed-cover": False, "four-hands": True}.get(hard.kind)


def camera_opts(hard: HardScene) -> dict:
    """Keyword arguments for :func:`datasets.scene.fit_camera` for the scene kind."""
    k = hard.kind
    if k == "seat-low":
        return {"tilt_range": (64.0, 78.0), "max_tilt_deg": 80.0, "top_limit_deg": 86.0, "span_range": (0.55, 0.9)}
    if k == "heavy-perspective":
        return {"tilt_range": (48.0, 68.0), "hfov_range": (85.0, 100.0), "az_sd": 20.0, "az_max": 35.0,
                "max_tilt_deg": 70.0, "top_limit_deg": 86.0, "span_range": (0.6, 0.95)}
    if k == "four-hands":
        return {"tilt_range": (8.0, 35.0)}
    if k == "windowsill":
        return {"tilt_range": (40.0, 62.0), "span_range": (0.5, 0.9)}
    if k in ("desk-keyboard", "bed-cover", "tiles-behind"):
        return {"span_range": (0.45, 0.8)}
    return {}


def frame_points(hard: HardScene, tile_w: float, tile_h: float, hand_pts: np.ndarray) -> np.ndarray | None:
    """World points (N, 3) the camera must frame besides the hand (``four-hands``: the whole table
    square that :func:`datasets.scene._hard_extras` lays out beyond the hand), or None."""
    if hard.kind != "four-hands":
        return None
    S = 17 * (tile_w + 0.4)
    cx = (hand_pts[:, 0].min() + hand_pts[:, 0].max()) / 2
    y0, y1 = hand_pts[:, 1].min(), hand_pts[:, 1].max() + S + 120 + 3 * tile_h
    x0, x1 = cx - S / 2 - 3 * tile_h, cx + S / 2 + 3 * tile_h
    return np.array([[x0, y0, 0], [x1, y0, 0], [x0, y1, 0], [x1, y1, 0], [x0, y0, 30], [x1, y1, 30]], float)


# ----------------------------------------------------------------------------- textures


def _rgba(rgb: np.ndarray) -> np.ndarray:
    return np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])


def surface_texture(rng: np.random.Generator, hard: HardScene, h: int, w: int, px_per_mm: float,
                    base_tex: np.ndarray) -> tuple[np.ndarray, str]:
    """The table-plane texture (h, w, 3) uint8 RGB of a hard scene, and its kind name."""
    from .effects import value_noise

    pal = hard.palette
    k = hard.kind
    low = value_noise(rng, h, w, 150 * px_per_mm + 2, 3)[..., None]
    if k in ("auto-table", "seat-low", "four-hands", "tiles-behind", "rows-of-9", "heavy-perspective"):
        c = np.array(pal["felt"][rng.integers(len(pal["felt"]))], np.float32) * rng.uniform(0.85, 1.15)
        fine = value_noise(rng, h, w, 2 * px_per_mm + 1.2, 1)[..., None]
        img = c * (1 + 0.07 * low + 0.05 * fine)
        return np.clip(img, 0, 255).astype(np.uint8), "felt"
    if k == "desk-keyboard":
        if rng.random() < 0.3:
            return base_tex, "wood"
        c = np.array(pal["desk"][rng.integers(len(pal["desk"]))], np.float32)
        img = c * (1 + 0.04 * low) + rng.normal(0, 2.0, (h, w, 1)).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.uint8), "desk"
    if k == "windowsill":
        c = np.array(pal["sill"][rng.integers(len(pal["sill"]))], np.float32)
        img = c * (1 + 0.03 * low)
        return np.clip(img, 0, 255).astype(np.uint8), "sill"
    if k == "bed-cover":
        return cloth_pattern(rng, hard, h, w, px_per_mm), "bed-cover"
    return base_tex, "table"


def cloth_pattern(rng: np.random.Generator, hard: HardScene, h: int, w: int, px_per_mm: float) -> np.ndarray:
    """A patterned cloth at tile scale (motifs 15–45 mm): flowers, paisley, dots or checks, with folds."""
    from .effects import value_noise

    pal = hard.palette
    cols = [np.array(c, np.float32) for c in pal["cloth"][rng.integers(len(pal["cloth"]))]]
    motif = str(rng.choice(pal["motifs"]))
    img = np.empty((h, w, 3), np.float32)
    img[:] = cols[0]
    per = float(rng.uniform(22, 48)) * px_per_mm + 3
    ys = np.arange(per * 0.5, h + per, per)
    xs = np.arange(per * 0.5, w + per, per)
    canvas = img.copy()
    if motif == "checks":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        chk = ((np.floor(xx / per) + np.floor(yy / per)) % 2)[..., None]
        canvas = canvas * (1 - chk) + cols[1] * chk
        line = ((xx % per) < per * 0.12)[..., None] | ((yy % per) < per * 0.12)[..., None]
        canvas = np.where(line, cols[2], canvas)
    else:
        for j, y in enumerate(ys):
            for x in xs:
                cx = x + (per / 2 if j % 2 else 0) + rng.normal(0, per * 0.05)
                cy = y + rng.normal(0, per * 0.05)
                r = per * float(rng.uniform(0.18, 0.3))
                c1, c2 = tuple(float(v) for v in cols[1]), tuple(float(v) for v in cols[2])
                if motif == "dots":
                    cv2.circle(canvas, (int(cx), int(cy)), max(int(r * 0.8), 1), c1, -1, cv2.LINE_AA)
                    cv2.circle(canvas, (int(cx), int(cy)), max(int(r * 0.35), 1), c2, -1, cv2.LINE_AA)
                elif motif == "paisley":
                    a = float(rng.uniform(0, 360))
                    cv2.ellipse(canvas, (int(cx), int(cy)), (max(int(r * 1.3), 1), max(int(r * 0.6), 1)), a, 0, 360,
                                c1, -1, cv2.LINE_AA)
                    cv2.circle(canvas, (int(cx + r * 0.9 * math.cos(a * DEG)), int(cy + r * 0.9 * math.sin(a * DEG))),
                               max(int(r * 0.35), 1), c2, -1, cv2.LINE_AA)
                    cv2.ellipse(canvas, (int(cx), int(cy)), (max(int(r * 0.6), 1), max(int(r * 0.25), 1)), a, 0, 360,
                                c2, max(int(r * 0.12), 1), cv2.LINE_AA)
                else:  # flowers: five round petals and a centre (the "9p"-like circles of a bed cover)
                    for p in range(5):
                        a = p * 72 * DEG + float(rng.uniform(0, 1))
                        cv2.circle(canvas, (int(cx + r * 0.8 * math.cos(a)), int(cy + r * 0.8 * math.sin(a))),
                                   max(int(r * 0.5), 1), c1, -1, cv2.LINE_AA)
                    cv2.circle(canvas, (int(cx), int(cy)), max(int(r * 0.4), 1), c2, -1, cv2.LINE_AA)
                    if rng.random() < 0.5:
                        cv2.line(canvas, (int(cx), int(cy + r)), (int(cx + r), int(cy + 2 * r)), (60, 120, 60),
                                 max(int(r * 0.15), 1), cv2.LINE_AA)
    folds = value_noise(rng, h, w, 90 * px_per_mm + 2, 2)[..., None]
    out = canvas * (1 + 0.18 * folds)
    return np.clip(out, 0, 255).astype(np.uint8)


def _text_tex(rng: np.random.Generator, w: int, h: int, bg=(245, 245, 240), ink=(30, 30, 30), lines=None) -> np.ndarray:
    img = np.full((h, w, 3), bg, np.uint8)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 "
    y = int(h * 0.08) + 8
    n = lines or int(rng.integers(6, 14))
    fs = float(rng.uniform(0.35, 0.6)) * w / 240
    for _ in range(n):
        s = "".join(letters[i] for i in rng.integers(len(letters), size=int(rng.integers(10, 28))))
        cv2.putText(img, s, (int(w * 0.06), y), cv2.FONT_HERSHEY_SIMPLEX, fs, ink, max(1, int(fs * 1.6)), cv2.LINE_AA)
        y += int(h / (n + 1))
        if y > h:
            break
    return _rgba(img)


def _pips_tex(n: int, w: int, h: int, bg, ink, rng, domino: bool = False) -> np.ndarray:
    img = np.full((h, w, 3), bg, np.uint8)
    layouts = {0: [], 1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
               4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
               5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
               6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)]}

    def half(y0, y1, k):
        for u, v in layouts[k]:
            cv2.circle(img, (int(u * w), int(y0 + v * (y1 - y0))), max(int(w * 0.09), 1), ink, -1, cv2.LINE_AA)

    if domino:
        half(0, h / 2, int(rng.integers(7)))
        half(h / 2, h, int(rng.integers(7)))
        cv2.line(img, (int(w * 0.1), h // 2), (int(w * 0.9), h // 2), ink, max(1, h // 60), cv2.LINE_AA)
    else:
        half(0, h, n)
        if n == 1 and rng.random() < 0.5:
            cv2.circle(img, (w // 2, h // 2), max(int(w * 0.14), 1), (200, 30, 30), -1, cv2.LINE_AA)
    return _rgba(img)


def _card_tex(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    if rng.random() < 0.35:  # the back
        img = np.full((h, w, 3), (180, 30, 40) if rng.random() < 0.5 else (30, 50, 150), np.uint8)
        for k in range(0, w + h, 8):
            cv2.line(img, (k, 0), (k - h, h), (240, 240, 240), 1, cv2.LINE_AA)
        cv2.rectangle(img, (4, 4), (w - 5, h - 5), (250, 250, 250), 2)
        return _rgba(img)
    img = np.full((h, w, 3), (250, 250, 248), np.uint8)
    red = rng.random() < 0.5
    ink = (200, 20, 30) if red else (20, 20, 20)
    rank = "A23456789TJQK"[int(rng.integers(13))]
    rank = "10" if rank == "T" else rank
    fs = w / 90
    cv2.putText(img, rank, (int(w * 0.06), int(h * 0.16)), cv2.FONT_HERSHEY_SIMPLEX, fs, ink, max(1, int(fs * 2)), cv2.LINE_AA)
    for _ in range(int(rng.integers(1, 9))):
        cx, cy = int(rng.uniform(0.3, 0.7) * w), int(rng.uniform(0.25, 0.8) * h)
        r = int(w * 0.08)
        if red:
            pts = np.array([[cx, cy - r], [cx + r, cy], [cx, cy + r], [cx - r, cy]], np.int32)
            cv2.fillConvexPoly(img, pts, ink, cv2.LINE_AA)
        else:
            cv2.circle(img, (cx, cy), r, ink, -1, cv2.LINE_AA)
            cv2.line(img, (cx, cy), (cx, cy + int(1.6 * r)), ink, max(1, r // 3))
    return _rgba(img)


def _key_tex(rng: np.random.Generator, w: int, h: int, bg, ink) -> np.ndarray:
    img = np.full((h, w, 3), bg, np.uint8)
    ch = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890"[int(rng.integers(36))]
    fs = w / 40
    cv2.putText(img, ch, (int(w * 0.18), int(h * 0.55)), cv2.FONT_HERSHEY_SIMPLEX, fs, ink, max(1, int(fs * 2)),
                cv2.LINE_AA)
    cv2.rectangle(img, (1, 1), (w - 2, h - 2), tuple(int(v * 0.85) for v in bg), 2)
    return _rgba(img)


def _coin_tex(rng: np.random.Generator, s: int, col) -> np.ndarray:
    img = np.full((s, s, 3), col, np.uint8)
    dark = tuple(int(v * 0.7) for v in col)
    cv2.circle(img, (s // 2, s // 2), int(s * 0.42), dark, max(1, s // 25), cv2.LINE_AA)
    if rng.random() < 0.5:
        cv2.rectangle(img, (int(s * 0.42), int(s * 0.42)), (int(s * 0.58), int(s * 0.58)), dark, -1)  # a holed coin
    else:
        cv2.putText(img, str(int(rng.choice([1, 5, 10, 50, 100]))), (int(s * 0.25), int(s * 0.62)),
                    cv2.FONT_HERSHEY_SIMPLEX, s / 80, dark, max(1, s // 30), cv2.LINE_AA)
    return _rgba(img)


def _stick_tex(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    img = np.full((h, w, 3), (242, 242, 236), np.uint8)
    n = int(rng.choice([1, 2, 6, 8]))
    for k in range(n):
        cx = int(w * (0.5 + (k - (n - 1) / 2) * 0.07))
        cv2.circle(img, (cx, h // 2), max(1, h // 5), (200, 30, 30) if n == 1 else (20, 20, 20), -1, cv2.LINE_AA)
    return _rgba(img)


# ----------------------------------------------------------------------------- clutter bodies


def _box(dims, yaw, xy, col, tex=None, radius=1.0, gloss=0.5, kind="prop", base_z=0.0) -> Body:
    R = rot_z(yaw)
    c = np.array([xy[0], xy[1], base_z + dims[2] / 2])
    return Body(tuple(float(v) for v in dims), R, c, -dims[2] / 2, (col, col), tex, None, radius, gloss, {"prop": kind})


def clutter_group(rng: np.random.Generator, kind: str, xy, scale_mm: float) -> list[Body]:
    """Bodies of one clutter group centred near ``xy`` (world mm); ``scale_mm``: the tile width."""
    x0, y0 = xy
    out: list[Body] = []
    yaw0 = float(rng.uniform(-0.5, 0.5)) if rng.random() < 0.7 else float(rng.uniform(0, 2 * math.pi))
    if kind == "keys":
        dark = rng.random() < 0.6
        bg = (35, 35, 38) if dark else (225, 225, 222)
        ink = (235, 235, 235) if dark else (30, 30, 30)
        key = float(rng.uniform(14, 17.5))
        pitch = key + float(rng.uniform(1.5, 4))
        rows, cols = int(rng.integers(2, 6)), int(rng.integers(5, 14))
        R = rot_z(yaw0)
        full = rng.random() < 0.6
        if full:  # the keyboard's body under the keys
            bw, bh = cols * pitch + 10, rows * pitch + 10
            c = np.array([x0, y0, 3.0])
            col = (50, 50, 55) if dark else (200, 200, 198)
            out.append(Body((bw, bh, 6.0), R, c, -3.0, (col, col), None, None, 4.0, 0.4, {"prop": "keyboard"}))
        tex_cache = [_key_tex(rng, 48, 48, bg, ink) for _ in range(8)]
        for r in range(rows):
            for k in range(cols):
                if not full and rng.random() < 0.3:
                    continue
                lx = (k - (cols - 1) / 2) * pitch + (r * 0.25 * pitch if full else rng.normal(0, 3))
                ly = ((rows - 1) / 2 - r) * pitch
                p = R[:2, :2] @ np.array([lx, ly])
                b = _box((key, key, float(rng.uniform(4, 8))), yaw0 + (0 if full else rng.normal(0, 0.3)),
                         (x0 + p[0], y0 + p[1]), bg, tex_cache[int(rng.integers(8))], 2.0, 0.6, "key",
                         base_z=6.0 if full else 0.0)
                out.append(b)
    elif kind == "dominoes":
        for k in range(int(rng.integers(2, 6))):
            black = rng.random() < 0.35
            bg = (25, 25, 25) if black else (240, 236, 224)
            ink = (240, 240, 240) if black else (20, 20, 20)
            w = float(rng.uniform(20, 26))
            tex = _pips_tex(0, 64, 128, bg, ink, rng, domino=True)
            out.append(_box((w, 2 * w, float(rng.uniform(6, 10))), yaw0 + rng.normal(0, 0.4),
                            (x0 + k * (w + rng.uniform(2, 10)), y0 + rng.normal(0, 8)), bg, tex, 2.5, 0.8, "domino"))
    elif kind == "dice":
        for k in range(int(rng.integers(2, 4))):
            s = float(rng.uniform(12, 18))
            bg = (240, 240, 235) if rng.random() < 0.7 else (200, 30, 40)
            ink = (20, 20, 20) if bg[0] == 240 else (250, 250, 250)
            tex = _pips_tex(int(rng.integers(1, 7)), 48, 48, bg, ink, rng)
            out.append(_box((s, s, s), float(rng.uniform(0, 2 * math.pi)), (x0 + rng.normal(0, 25), y0 + rng.normal(0, 25)),
                            bg, tex, s * 0.15, 0.8, "die"))
    elif kind == "cards":
        for k in range(int(rng.integers(1, 5))):
            tex = _card_tex(rng, 126, 176)
            out.append(_box((57.0, 88.0, 0.6), yaw0 + k * float(rng.uniform(0.1, 0.3)),
                            (x0 + k * rng.uniform(8, 25), y0 + rng.normal(0, 5)), (250, 250, 248), tex, 3.0, 0.5, "card",
                            base_z=k * 0.6))
    elif kind == "text":
        w, h = (148.0, 105.0) if rng.random() < 0.5 else (105.0, 148.0)
        tex = _text_tex(rng, int(w * 2), int(h * 2))
        out.append(_box((w, h, 0.3), yaw0, (x0, y0), (245, 245, 240), tex, 0.5, 0.2, "paper"))
    elif kind == "coins":
        for k in range(int(rng.integers(3, 9))):
            s = float(rng.uniform(18, 28))
            col = [(200, 160, 70), (190, 190, 195), (170, 110, 70)][int(rng.integers(3))]
            out.append(_box((s, s, 2.0), float(rng.uniform(0, 2 * math.pi)), (x0 + rng.normal(0, 30), y0 + rng.normal(0, 20)),
                            col, _coin_tex(rng, 64, col), s / 2 - 0.01, 1.2, "coin"))
    elif kind == "sticks":
        for k in range(int(rng.integers(3, 9))):
            out.append(_box((float(rng.uniform(80, 100)), 7.0, 3.0), yaw0 + rng.normal(0, 0.15),
                            (x0 + rng.normal(0, 6), y0 + k * 10.0), (242, 242, 236), _stick_tex(rng, 200, 16), 2.0, 0.6,
                            "stick", base_z=0.0))
    elif kind == "auto-parts":
        s = float(rng.uniform(90, 140))
        col = tuple(float(v) for v in rng.uniform(20, 70, 3))
        panel = np.full((128, 128, 3), col, np.uint8)
        cv2.circle(panel, (64, 64), 30, (15, 15, 15), -1, cv2.LINE_AA)
        cv2.circle(panel, (64, 64), 30, (150, 150, 150), 2, cv2.LINE_AA)
        for k in range(4):
            cv2.rectangle(panel, (8 + k * 30, 8), (28 + k * 30, 18), (200, 60, 40) if k == 0 else (240, 240, 240), -1)
        out.append(_box((s, s, 4.0), yaw0 * 0.2, (x0, y0), col, _rgba(panel), 6.0, 1.0, "auto-panel"))
        for k in range(int(rng.integers(1, 4))):  # round buttons
            out.append(_box((14.0, 14.0, 5.0), 0.0, (x0 + s / 2 + 20 + k * 20, y0 - s / 2), (220, 220, 220), None, 6.99,
                            1.0, "button"))
    return out


# ----------------------------------------------------------------------------- tiles around the hand


def foot(bodies) -> tuple[float, float, float, float]:
    pts = np.concatenate([b.corners() for b in bodies])
    return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())


def _free(rect, occupied) -> bool:
    x0, y0, x1, y1 = rect
    return all(not (x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1) for a0, b0, a1, b1 in occupied)


def place_clutter(rng: np.random.Generator, kinds, hand_foot, occupied: list, tile_w: float,
                  near: float = 1.0) -> list[Body]:
    """Clutter groups of ``kinds`` beside / behind the hand (within ``near`` × 250 mm), not overlapping
    ``occupied`` footprints (which grows)."""
    fx0, fy0, fx1, fy1 = hand_foot
    out = []
    for kind in kinds:
        for _ in range(12):
            side = rng.choice(["left", "right", "behind", "front"], p=[0.3, 0.3, 0.3, 0.1])
            d = float(rng.uniform(20, 250 * near))
            if side == "left":
                xy = (fx0 - d - 60, float(rng.uniform(fy0 - 40, fy1 + 80)))
            elif side == "right":
                xy = (fx1 + d + 60, float(rng.uniform(fy0 - 40, fy1 + 80)))
            elif side == "behind":
                xy = (float(rng.uniform(fx0 - 80, fx1 + 80)), fy1 + d + 50)
            else:
                xy = (float(rng.uniform(fx0 - 80, fx1 + 80)), fy0 - d * 0.4 - 40)
            bodies = clutter_group(rng, kind, xy, tile_w)
            if not bodies:
                break
            f = foot(bodies)
            f = (f[0] - 4, f[1] - 4, f[2] + 4, f[3] + 4)
            if _free(f, occupied):
                occupied.append(f)
                out += bodies
                break
    return out


# ----------------------------------------------------------------------------- backdrops and light


def backdrop(img: np.ndarray, cam, rng: np.random.Generator, hard: HardScene, far_y: float) -> np.ndarray:
    """The part of the picture beyond the table: rays that meet the table plane farther than ``far_y``
    (world mm) or never meet it show a room wall (``seat-low``, ``heavy-perspective``) or a bright
    window (``windowsill``); other kinds return ``img`` unchanged. (H, W, 3) uint8 → same."""
    if hard.kind not in ("seat-low", "heavy-perspective", "windowsill"):
        return img
    H, W = img.shape[:2]
    s = 4
    vv, uu = np.mgrid[0:H:s, 0:W:s].astype(np.float64)
    pix = np.stack([uu.ravel() + s / 2, vv.ravel() + s / 2, np.ones(uu.size)])
    d = cam.R.T @ (np.linalg.inv(cam.K) @ pix)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -cam.C[2] / d[2]
        y = cam.C[1] + t * d[1]
    beyond = (d[2] >= -1e-6) | (y > far_y)
    m = beyond.reshape(uu.shape).astype(np.float32)
    if m.max() == 0:
        return img
    m = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
    m = cv2.GaussianBlur(m, (0, 0), 1.5)[..., None]
    if hard.kind == "windowsill":
        room = np.full((H, W, 3), float(rng.uniform(235, 255)), np.float32)
        for _ in range(int(rng.integers(0, 3))):  # window bars
            x = int(rng.uniform(0.1, 0.9) * W)
            cv2.line(room, (x, 0), (x, H), (200, 200, 198), int(rng.integers(4, 14)))
        room += rng.normal(0, 3, (1, 1, 3)).astype(np.float32)
    else:
        c = rng.uniform(60, 220, 3).astype(np.float32)
        g = np.linspace(0.8, 1.1, H, dtype=np.float32)[:, None, None]
        room = np.broadcast_to(c, (H, W, 3)) * g
        room = room.copy()
        for _ in range(int(rng.integers(1, 4))):  # furniture and door edges
            x0 = int(rng.uniform(0, W))
            col = tuple(float(v) for v in rng.uniform(20, 200, 3))
            cv2.rectangle(room, (x0, int(rng.uniform(0, H * 0.5))), (x0 + int(rng.uniform(0.05, 0.4) * W), H), col, -1)
        room = cv2.GaussianBlur(room, (0, 0), float(rng.uniform(1, 6)))
    out = img.astype(np.float32) * (1 - m) + room * m
    return np.clip(out, 0, 255).astype(np.uint8)


def backlight(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Against the light (``windowsill``): the foreground darker and flatter, a glow from the top of the
    picture, lifted blacks. (H, W, 3) uint8 → same."""
    H, W = img.shape[:2]
    f = img.astype(np.float32)
    exp = float(rng.uniform(0.55, 0.8))
    yy = np.linspace(0, 1, H, dtype=np.float32)[:, None, None]
    glow = np.clip(1 - yy / float(rng.uniform(0.35, 0.7)), 0, 1) ** 2 * float(rng.uniform(0.4, 0.9))
    f = f * exp + (255 - f * exp) * glow + float(rng.uniform(5, 25))
    return np.clip(f, 0, 255).astype(np.uint8)


def hard_val_scene(index: int) -> HardScene:
    """The hard validation set's scene for image ``index``: the kinds in turn, 1–3 clutter kinds drawn
    per image, held-out palettes (``split="val"``)."""
    rng = np.random.default_rng([HARD_VAL_SEED, int(index), 7])
    kind = KINDS[int(index) % len(KINDS)]
    n = int(rng.integers(1, 4))
    clutter = tuple(sorted(str(c) for c in rng.choice(CLUTTER, n, replace=False)))
    return HardScene(kind=kind, clutter=clutter, split="val")
