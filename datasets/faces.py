"""Tile face art for all 43 classes: art sets from ``../shared/data/tile-art`` and procedural faces.

An *art layer* is an RGBA ``(200, 150, 4) uint8`` image (height × width) of the ink only, with a
transparent background; :func:`compose_face` lays it on a tile body colour with a bevel and rounded
corners to make the texture that the renderer warps onto the 3-D tile.

Sources (``ART_SOURCES``):

* ``proc`` — procedural faces drawn here with CJK fonts from Debian packages (no ``../shared`` needed);
  ``style`` (an int) picks fonts, stroke weights, colours and variants deterministically.
* ``uni``, ``gleitz`` — PNG art (42 faces each, no backs).
* ``fluffy``, ``fluffy-black`` — FluffyStuff SVG art (34 riichi faces, red-five variants) rasterised
  with cairosvg when it is importable; no flowers/seasons (bonus tiles fall back to ``proc``).
* ``kde-*``, ``gnome-*`` — extra open-licence sets (KDE and GNOME mahjongg tilesets) when
  ``python -m datasets.extra_art`` has extracted them (:func:`extra_sources`); used only when a caller
  asks (``datasets.synth --extra-art``). Faces a set lacks fall back to ``proc``.

Every art layer is a pure function of (source, style, code, variant): caches never change output.
"""
from __future__ import annotations

import functools
import glob
import io
import math
import os
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.classes import CLASS_INDEX, CLASS_NAMES

from .paths import extra_art_dir, tile_art_dir

ART_W, ART_H = 150, 200  # art layer size (width, height) in pixels
_SS = 2  # procedural drawing is done at 2× and reduced (anti-aliasing)

# ----------------------------------------------------------------------------- fonts

#: (path, face index) of CJK fonts from Debian packages, in preference order; missing ones are skipped.
_CJK_CANDIDATES = [
    ("/usr/share/fonts/truetype/arphic/ukai.ttc", 2),  # fonts-arphic-ukai (brush kaishu)
    ("/usr/share/fonts/truetype/arphic/uming.ttc", 2),  # fonts-arphic-uming (mingti)
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),  # fonts-wqy-zenhei
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),  # fonts-wqy-microhei
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 3),  # fonts-noto-cjk
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Black.ttc", 3),  # fonts-noto-cjk-extra
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Black.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Light.ttc", 3),
]


class NoFontError(RuntimeError):
    """Tile art drawn with a CJK font was asked for, and no CJK font is installed."""


@functools.lru_cache(maxsize=1)
def cjk_fonts() -> tuple[tuple[str, int], ...]:
    """Installed CJK fonts that render 萬 (a tuple of (path, index)); empty if none.

    ``$MAHJONG_CJK_FONTS`` (os.pathsep-separated paths) replaces the built-in list.
    """
    env = os.environ.get("MAHJONG_CJK_FONTS")
    cands = [(p, 0) for p in env.split(os.pathsep) if p] if env else list(_CJK_CANDIDATES)
    out = []
    for path, idx in cands:
        if not os.path.exists(path):
            continue
        try:
            f = ImageFont.truetype(path, 48, index=idx)
        except OSError:
            try:
                f = ImageFont.truetype(path, 48)
                idx = 0
            except OSError:
                continue
        a = f.getmask("萬").getbbox()
        b = f.getmask("中").getbbox()
        if a and b and a != b:
            out.append((path, idx))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _font(path: str, idx: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, index=idx)


@functools.lru_cache(maxsize=4096)
def _glyph_mask(path: str, idx: int, ch: str, stroke: int) -> np.ndarray:
    """Ink mask of one glyph cropped to its ink box, (h, w) uint8, rendered at 160 px."""
    f = _font(path, idx, 160)
    im = Image.new("L", (320, 320), 0)
    ImageDraw.Draw(im).text((60, 60), ch, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
    bb = im.getbbox()
    if bb is None:
        return np.zeros((1, 1), np.uint8)
    return np.asarray(im.crop(bb))


# ----------------------------------------------------------------------------- drawing helpers


class _Canvas:
    """RGBA float drawing surface at 2× art size; colours are 0..255 RGB tuples."""

    def __init__(self) -> None:
        self.W, self.H = ART_W * _SS, ART_H * _SS
        self.rgb = np.zeros((self.H, self.W, 3), np.float32)
        self.a = np.zeros((self.H, self.W), np.float32)

    def paint(self, mask: np.ndarray, color, x0: int = 0, y0: int = 0) -> None:
        """Paint ``color`` through ``mask`` ((h, w) float 0..1 or uint8) placed at (x0, y0)."""
        if mask.dtype == np.uint8:
            mask = mask.astype(np.float32) / 255.0
        h, w = mask.shape
        xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, self.W), min(y0 + h, self.H)
        if xb <= xa or yb <= ya:
            return
        m = mask[ya - y0: yb - y0, xa - x0: xb - x0][..., None]
        c = np.asarray(color, np.float32)[:3]
        sl = (slice(ya, yb), slice(xa, xb))
        self.rgb[sl] = self.rgb[sl] * (1 - m) + c * m
        self.a[sl] = self.a[sl] * (1 - m[..., 0]) + m[..., 0]

    def layer(self) -> tuple[np.ndarray, ImageDraw.ImageDraw]:
        im = Image.new("L", (self.W, self.H), 0)
        return im, ImageDraw.Draw(im)

    def paint_layer(self, im: Image.Image, color) -> None:
        bb = im.getbbox()
        if bb is None:
            return
        self.paint(np.asarray(im.crop(bb)), color, bb[0], bb[1])

    def glyph(self, font: tuple[str, int], ch: str, box, color, stroke: int = 0, stretch: float = 1.0) -> None:
        """Draw character ``ch`` fitted into ``box`` = (x0, y0, x1, y1) in art units (0..1)."""
        m = _glyph_mask(font[0], font[1], ch, stroke)
        gh, gw = m.shape
        bx0, by0, bx1, by1 = box[0] * self.W, box[1] * self.H, box[2] * self.W, box[3] * self.H
        bw, bh = bx1 - bx0, by1 - by0
        s = min(bw / gw, bh / gh)
        w, h = max(1, int(gw * s * min(stretch, bw / (gw * s)))), max(1, int(gh * s))
        mm = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)
        self.paint(mm, color, int(bx0 + (bw - w) / 2), int(by0 + (bh - h) / 2))

    def result(self) -> np.ndarray:
        """(ART_H, ART_W, 4) uint8 RGBA, reduced 2× (box filter)."""
        rgba = np.dstack([self.rgb * self.a[..., None], self.a * 255.0])
        small = cv2.resize(rgba, (ART_W, ART_H), interpolation=cv2.INTER_AREA)
        a = small[..., 3:4] / 255.0
        rgb = np.where(a > 1e-4, small[..., :3] / np.maximum(a, 1e-4), 0)
        return np.dstack([np.clip(rgb, 0, 255), small[..., 3:4]]).astype(np.uint8)


def _jitter_color(rng: np.random.Generator, c, amount: float = 18.0):
    return tuple(float(np.clip(v + rng.normal(0, amount), 0, 255)) for v in c)


BLUE, RED, GREEN, BLACK = (25, 55, 160), (200, 30, 40), (20, 125, 65), (25, 25, 30)


class ProcStyle:
    """Parameters of one procedural face style, derived from an integer style id."""

    def __init__(self, style: int) -> None:
        rng = np.random.default_rng([style, 91])
        fonts = cjk_fonts()
        if not fonts:
            raise RuntimeError("no CJK font installed (apt-get install fonts-wqy-zenhei fonts-arphic-ukai ...)")
        self.font = fonts[int(rng.integers(len(fonts)))]
        self.font2 = fonts[int(rng.integers(len(fonts)))] if rng.random() < 0.3 else self.font
        self.stroke = int(rng.choice([0, 0, 1, 2, 3, 4]))
        self.weight = float(rng.uniform(0.75, 1.35))  # line widths of drawn shapes
        self.blue = _jitter_color(rng, [BLUE, (20, 40, 110), (40, 90, 190), (10, 70, 140)][rng.integers(4)])
        self.red = _jitter_color(rng, [RED, (170, 20, 30), (215, 50, 50), (190, 30, 80)][rng.integers(4)])
        self.green = _jitter_color(rng, [GREEN, (10, 95, 50), (40, 140, 70), (20, 110, 100)][rng.integers(4)])
        self.black = _jitter_color(rng, BLACK, 10)
        self.num_color = [self.blue, self.black, self.black, self.red, self.green][rng.integers(5)]
        self.wan_color = self.red if rng.random() < 0.9 else self.blue
        self.wind_color = [self.blue, self.black, self.black, self.green][rng.integers(4)]
        self.five = "伍" if rng.random() < 0.3 else "五"
        self.wan = "萬" if rng.random() < 0.93 else "万"
        self.circle_kind = int(rng.integers(4))
        self.bamboo_color = self.green if rng.random() < 0.75 else self.blue
        self.bird = rng.random() < 0.7
        self.white = int(rng.integers(5))  # 0 blank, 1 frame, 2 double frame, 3 frame+char, 4 ornate
        self.white_color = [self.blue, self.black, self.green][rng.integers(3)]
        self.corner = rng.random() < 0.3  # western corner indices
        self.corner_left = rng.random() < 0.6
        self.corner_color = [self.red, self.black, self.blue][rng.integers(3)]
        self.bonus_num_arabic = rng.random() < 0.7
        self.bonus_num_color = [self.red, self.blue, self.black][rng.integers(3)]
        self.bonus_char_color = [self.red, self.blue, self.black, self.green][rng.integers(4)]
        self.flower_cols = [_jitter_color(rng, c) for c in [RED, (220, 80, 140), (120, 40, 160), (230, 120, 20), BLUE]]
        # palette roles for circles: A/B/C mapped to blue, red, green in some order
        perm = rng.permutation(3) if rng.random() < 0.25 else np.arange(3)
        base = [self.blue, self.red, self.green]
        self.circ = {k: base[p] for k, p in zip("ABC", perm)}
        self.scale_x = float(rng.uniform(0.9, 1.05))
        self.margin = float(rng.uniform(0.0, 0.06))


_NUMERALS = "一二三四五六七八九"
_WINDS = "東南西北"
_FLOWERS = "梅蘭菊竹"
_SEASONS = "春夏秋冬"
_CIRCLE_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.27), (0.5, 0.73)],
    3: [(0.24, 0.2), (0.5, 0.5), (0.76, 0.8)],
    4: [(0.29, 0.27), (0.71, 0.27), (0.29, 0.73), (0.71, 0.73)],
    5: [(0.26, 0.2), (0.74, 0.2), (0.5, 0.5), (0.26, 0.8), (0.74, 0.8)],
    6: [(0.29, 0.17), (0.71, 0.17), (0.29, 0.55), (0.71, 0.55), (0.29, 0.84), (0.71, 0.84)],
    7: [(0.2, 0.11), (0.5, 0.22), (0.8, 0.33), (0.29, 0.6), (0.71, 0.6), (0.29, 0.86), (0.71, 0.86)],
    8: [(x, y) for y in (0.12, 0.37, 0.63, 0.88) for x in (0.29, 0.71)],
    9: [(x, y) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}
_CIRCLE_COLORS = {
    1: "B", 2: "CA", 3: "ABC", 4: "ACCA", 5: "ACBCA", 6: "CCBBBB", 7: "CCCBBBB", 8: "AAAAAAAA",
    9: "AAABBBCCC",
}
_CIRCLE_R = {1: 0.42, 2: 0.2, 3: 0.17, 4: 0.19, 5: 0.16, 6: 0.15, 7: 0.13, 8: 0.12, 9: 0.14}


def _draw_circle(cv: _Canvas, st: ProcStyle, cx: float, cy: float, r: float, color, kind: int, big: bool = False):
    im, d = cv.layer()
    W, H = cv.W, cv.H
    px, py, pr = cx * W, cy * H, r * W
    lw = max(2, int(pr * 0.16 * st.weight))
    if kind == 0:  # concentric rings + dot
        d.ellipse([px - pr, py - pr, px + pr, py + pr], outline=255, width=lw)
        r2 = pr * 0.55
        d.ellipse([px - r2, py - r2, px + r2, py + r2], outline=255, width=max(2, lw // 2 + 1))
        r3 = pr * 0.18
        d.ellipse([px - r3, py - r3, px + r3, py + r3], fill=255)
    elif kind == 1:  # ring with petals
        d.ellipse([px - pr, py - pr, px + pr, py + pr], outline=255, width=lw)
        for k in range(8):
            a = k * math.pi / 4
            qx, qy, qr = px + 0.5 * pr * math.cos(a), py + 0.5 * pr * math.sin(a), pr * 0.17
            d.ellipse([qx - qr, qy - qr, qx + qr, qy + qr], fill=255)
    elif kind == 2:  # filled disc with a light ring
        d.ellipse([px - pr, py - pr, px + pr, py + pr], fill=255)
        cv.paint_layer(im, color)
        im, d = cv.layer()
        r2 = pr * 0.62
        d.ellipse([px - r2, py - r2, px + r2, py + r2], outline=255, width=max(2, lw // 2))
        cv.paint_layer(im, (245, 240, 225))
        im, d = cv.layer()
        r3 = pr * 0.22
        d.ellipse([px - r3, py - r3, px + r3, py + r3], fill=255)
    else:  # thick ring, spokes
        d.ellipse([px - pr, py - pr, px + pr, py + pr], outline=255, width=int(lw * 1.6))
        for k in range(6):
            a = k * math.pi / 3
            d.line([px, py, px + 0.6 * pr * math.cos(a), py + 0.6 * pr * math.sin(a)], fill=255, width=max(2, lw // 2))
        r3 = pr * 0.2
        d.ellipse([px - r3, py - r3, px + r3, py + r3], fill=255)
    cv.paint_layer(im, color)
    if big:  # extra decoration for 1p
        im, d = cv.layer()
        for k in range(16):
            a = k * math.pi / 8
            qx, qy, qr = px + 0.8 * pr * math.cos(a), py + 0.8 * pr * math.sin(a), pr * 0.06
            d.ellipse([qx - qr, qy - qr, qx + qr, qy + qr], fill=255)
        cv.paint_layer(im, st.red if color != st.red else st.green)


def _stick_poly(cx, cy, length, width, angle):
    """Polygon points of a capsule centred at (cx, cy), long axis at ``angle`` radians from vertical."""
    hl, hw = max(length / 2 - width / 2, 0.0), width / 2
    pts = [(hw * math.cos(t), -hl + hw * math.sin(t)) for t in np.linspace(math.pi, 2 * math.pi, 7)]
    pts += [(hw * math.cos(t), hl + hw * math.sin(t)) for t in np.linspace(0, math.pi, 7)]
    ca, sa = math.cos(angle), math.sin(angle)
    return [(cx + lx * ca - ly * sa, cy + lx * sa + ly * ca) for lx, ly in pts]


def _draw_stick(cv: _Canvas, st: ProcStyle, cx, cy, length, width, color, angle=0.0):
    W, H = cv.W, cv.H
    px, py, L, w = cx * W, cy * H, length * H, width * W * st.weight
    im, d = cv.layer()
    d.polygon(_stick_poly(px, py, L, w, angle), fill=255)
    cv.paint_layer(im, color)
    # nodes and a pale centre line
    im, d = cv.layer()
    ca, sa = math.cos(angle), math.sin(angle)
    for f in (-0.5, 0.0, 0.5):
        qx, qy = px - f * L * sa * 0.9, py + f * L * ca * 0.9
        d.polygon(_stick_poly(qx, qy, w * 0.5, w * 1.35, angle + math.pi / 2), fill=255)
    cv.paint_layer(im, color)
    im, d = cv.layer()
    for f0, f1 in ((-0.42, -0.08), (0.08, 0.42)):
        a = (px - f0 * L * sa, py + f0 * L * ca)
        b = (px - f1 * L * sa, py + f1 * L * ca)
        d.line([a, b], fill=255, width=max(1, int(w * 0.22)))
    cv.paint_layer(im, (240, 240, 225))


_BAMBOO_LAYOUT = {
    2: [(0.5, 0.27, "g"), (0.5, 0.73, "g")],
    3: [(0.5, 0.27, "g"), (0.3, 0.73, "g"), (0.7, 0.73, "g")],
    4: [(0.3, 0.27, "g"), (0.7, 0.27, "g"), (0.3, 0.73, "g"), (0.7, 0.73, "g")],
    5: [(0.22, 0.27, "g"), (0.78, 0.27, "g"), (0.5, 0.5, "r"), (0.22, 0.73, "g"), (0.78, 0.73, "g")],
    6: [(x, y, "g") for y in (0.27, 0.73) for x in (0.22, 0.5, 0.78)],
    7: [(0.5, 0.14, "r")] + [(x, y, "g") for y in (0.5, 0.84) for x in (0.22, 0.5, 0.78)],
    9: [(x, y, "r" if x == 0.5 else "g") for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}


def _draw_bird(cv: _Canvas, st: ProcStyle, rng: np.random.Generator):
    W, H = cv.W, cv.H
    body, wing, head = st.green, st.blue if rng.random() < 0.5 else st.green, st.red
    im, d = cv.layer()
    # tail fan
    for k in range(5):
        a = math.radians(-60 + 30 * k + rng.normal(0, 5))
        x0, y0 = 0.45 * W, 0.55 * H
        x1, y1 = x0 + 0.38 * W * math.sin(a), y0 - 0.32 * H * math.cos(a)
        d.line([x0, y0, x1, y1], fill=255, width=int(0.05 * W * st.weight))
        d.ellipse([x1 - 0.06 * W, y1 - 0.06 * W, x1 + 0.06 * W, y1 + 0.06 * W], outline=255, width=int(0.02 * W) + 2)
    cv.paint_layer(im, wing)
    im, d = cv.layer()
    d.ellipse([0.25 * W, 0.5 * H, 0.75 * W, 0.8 * H], fill=255)
    cv.paint_layer(im, body)
    im, d = cv.layer()
    d.ellipse([0.55 * W, 0.42 * H, 0.75 * W, 0.57 * H], fill=255)
    d.polygon([(0.74 * W, 0.47 * H), (0.88 * W, 0.5 * H), (0.74 * W, 0.53 * H)], fill=255)
    d.line([0.45 * W, 0.79 * H, 0.4 * W, 0.93 * H], fill=255, width=6)
    d.line([0.55 * W, 0.79 * H, 0.6 * W, 0.93 * H], fill=255, width=6)
    cv.paint_layer(im, head)
    im, d = cv.layer()
    d.ellipse([0.64 * W, 0.46 * H, 0.68 * W, 0.49 * H], fill=255)
    d.arc([0.3 * W, 0.55 * H, 0.65 * W, 0.75 * H], 200, 340, fill=255, width=5)
    cv.paint_layer(im, st.black)


def _draw_flower_picture(cv: _Canvas, st: ProcStyle, rng: np.random.Generator, box=(0.12, 0.22, 0.88, 0.95)):
    W, H = cv.W, cv.H
    x0, y0, x1, y1 = box[0] * W, box[1] * H, box[2] * W, box[3] * H
    im, d = cv.layer()
    base = (x0 + (x1 - x0) * rng.uniform(0.35, 0.65), y1)
    n_bl = int(rng.integers(1, 4))
    blossoms = []
    for _ in range(n_bl):
        bx, by = rng.uniform(x0 + 0.15 * (x1 - x0), x1 - 0.15 * (x1 - x0)), rng.uniform(y0 + 0.1 * (y1 - y0), y0 + 0.6 * (y1 - y0))
        blossoms.append((bx, by))
        d.line([base, (bx, by)], fill=255, width=int(7 * st.weight))
    for _ in range(int(rng.integers(2, 5))):
        lx, ly = rng.uniform(x0, x1), rng.uniform(y0 + 0.4 * (y1 - y0), y1)
        rw, rh = rng.uniform(0.06, 0.12) * W, rng.uniform(0.02, 0.05) * H
        ang = rng.uniform(0, math.pi)
        pts = [(lx + rw * math.cos(t) * math.cos(ang) - rh * math.sin(t) * math.sin(ang),
                ly + rw * math.cos(t) * math.sin(ang) + rh * math.sin(t) * math.cos(ang)) for t in np.linspace(0, 2 * math.pi, 16)]
        d.polygon(pts, fill=255)
    cv.paint_layer(im, st.green)
    for bx, by in blossoms:
        col = st.flower_cols[int(rng.integers(len(st.flower_cols)))]
        im, d = cv.layer()
        n_p, pr = int(rng.integers(5, 9)), rng.uniform(0.06, 0.1) * W
        for k in range(n_p):
            a = 2 * math.pi * k / n_p
            qx, qy = bx + pr * math.cos(a), by + pr * math.sin(a)
            d.ellipse([qx - pr * 0.7, qy - pr * 0.7, qx + pr * 0.7, qy + pr * 0.7], fill=255)
        cv.paint_layer(im, col)
        im, d = cv.layer()
        d.ellipse([bx - pr * 0.45, by - pr * 0.45, bx + pr * 0.45, by + pr * 0.45], fill=255)
        cv.paint_layer(im, (240, 200, 60) if rng.random() < 0.6 else st.red)


def proc_art(style: int, code: str) -> np.ndarray:
    """Procedural art layer for ``code`` in procedural style ``style``: (200, 150, 4) uint8 RGBA."""
    return _proc_art_cached(int(style), code).copy()


@functools.lru_cache(maxsize=3000)
def _proc_art_cached(style: int, code: str) -> np.ndarray:
    st = _style(style)
    rng = np.random.default_rng([style, CLASS_INDEX[code], 7])
    cv = _Canvas()
    r, s = int(code[0]), code[1]
    F, S = st.font, st.stroke
    top = 0.12 if st.corner else 0.04
    if s == "m":
        ch = st.five if r == 5 else _NUMERALS[r - 1]
        cv.glyph(st.font2, ch, (0.14, top, 0.86, 0.43), st.num_color, S)
        cv.glyph(F, st.wan, (0.1, 0.46, 0.9, 0.96), st.wan_color, S)
    elif s == "p":
        kind = st.circle_kind
        for (x, y), c in zip(_CIRCLE_LAYOUT[r], _CIRCLE_COLORS[r]):
            if r == 1:
                _draw_circle(cv, st, x, y, _CIRCLE_R[r] * 1.1, st.circ["A"], kind, big=True)
                _draw_circle(cv, st, x, y, _CIRCLE_R[r] * 0.45, st.circ["B"], (kind + 1) % 4)
            else:
                _draw_circle(cv, st, x, y, _CIRCLE_R[r], st.circ[c], kind)
    elif s == "s":
        col, red = st.bamboo_color, st.red
        if r == 1:
            if st.bird:
                _draw_bird(cv, st, rng)
            else:
                _draw_stick(cv, st, 0.5, 0.5, 0.8, 0.16, col)
                _draw_stick(cv, st, 0.5, 0.5, 0.3, 0.06, red)
        elif r == 8:
            for sgn, yy in ((1, 0.27), (-1, 0.73)):
                for k, xx in enumerate((0.15, 0.38, 0.62, 0.85)):
                    ang = math.radians(22) * (1 if k % 2 == 0 else -1) * sgn
                    _draw_stick(cv, st, xx, yy, 0.4, 0.095, col, ang)
        else:
            L = {2: 0.4, 3: 0.4, 4: 0.4, 5: 0.36, 6: 0.4, 7: 0.28, 9: 0.3}[r]
            wdt = {2: 0.12, 3: 0.11, 4: 0.11, 5: 0.1, 6: 0.095, 7: 0.095, 9: 0.095}[r]
            for x, y, c in _BAMBOO_LAYOUT[r]:
                _draw_stick(cv, st, x, y, L, wdt, red if c == "r" else col)
    elif s == "z":
        if r <= 4:
            cv.glyph(F, _WINDS[r - 1], (0.1, 0.12, 0.9, 0.88), st.wind_color, S)
        elif r == 7:
            cv.glyph(F, "中", (0.1, 0.1, 0.9, 0.9), st.red, S)
        elif r == 6:
            cv.glyph(F, "發", (0.08, 0.1, 0.92, 0.9), st.green, S)
        else:
            _draw_white(cv, st, rng)
    elif s in "fy":
        chars = _FLOWERS if s == "f" else _SEASONS
        _draw_flower_picture(cv, st, rng)
        num = str(r) if st.bonus_num_arabic else _NUMERALS[r - 1]
        left = rng.random() < 0.5
        nb = (0.06, 0.03, 0.34, 0.22) if left else (0.66, 0.03, 0.94, 0.22)
        cb = (0.62, 0.03, 0.94, 0.24) if left else (0.06, 0.03, 0.38, 0.24)
        cv.glyph(F, num, nb, st.bonus_num_color, S)
        cv.glyph(F, chars[r - 1], cb, st.bonus_char_color, S)
    if st.corner and s in "mpsz" and not (s == "z" and r == 5 and st.white == 0):
        idx = str(r) if s in "mps" else "ESWNPFC"[r - 1]
        box = (0.03, 0.0, 0.25, 0.13) if st.corner_left else (0.75, 0.0, 0.97, 0.13)
        cv.glyph(F, idx, box, st.corner_color, max(0, S - 1))
    return cv.result()


def _draw_white(cv: _Canvas, st: ProcStyle, rng: np.random.Generator) -> None:
    if st.white == 0:
        return
    W, H = cv.W, cv.H
    im, d = cv.layer()
    lw = int(0.045 * W * st.weight)
    x0, y0, x1, y1 = 0.14 * W, 0.1 * H, 0.86 * W, 0.9 * H
    d.rounded_rectangle([x0, y0, x1, y1], radius=int(0.05 * W), outline=255, width=lw)
    if st.white in (2, 4):
        g = lw * 2.2
        d.rounded_rectangle([x0 + g, y0 + g, x1 - g, y1 - g], radius=int(0.03 * W), outline=255, width=max(2, lw // 2))
    if st.white == 4:
        for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            d.rectangle([cx - lw * 1.5, cy - lw * 1.5, cx + lw * 1.5, cy + lw * 1.5], fill=255)
    cv.paint_layer(im, st.white_color)
    if st.white == 3:
        ch = "白才證券"[int(rng.integers(4))]
        cv.glyph(st.font, ch, (0.3, 0.3, 0.7, 0.7), st.red if rng.random() < 0.5 else st.white_color, st.stroke)


@functools.lru_cache(maxsize=512)
def _style(style: int) -> ProcStyle:
    return ProcStyle(style)


# ----------------------------------------------------------------------------- wide styles (issue 18)
#
# The ``wide`` source: procedural faces with far more variety than ``proc`` — per-role fonts, glyphs
# sheared, stretched, thickened/thinned and elastically warped (calligraphy the fonts do not cover),
# monochrome or coloured ink, flower and season faces as a drawn plant, figure or landscape with the
# numeral and character small in the corners (or large, or absent) in many layouts, more pip and stick
# shapes. It is used only when a caller asks for it (``datasets.synth --wide-styles``), so renders
# without that option are unchanged. Style ids ``≡ 0 (mod WIDE_VAL_EVERY)`` are held out for
# validation (:func:`wide_style_id`): training renders never draw them.

WIDE_STYLES = 1 << 16
#: version of the ``wide`` faces, recorded by ``datasets.synth`` (2: ``WideStyle.bonus_any_plant``, classifier
#: version 4; the sets of version 1, without the key, were rendered before it)
WIDE_FACES_VERSION = 2
WIDE_VAL_EVERY = 8


def wide_style_id(rng: np.random.Generator, split: str) -> int:
    """A ``wide`` style id for a tile set of ``split`` (``val``: held-out ids ≡ 0 mod WIDE_VAL_EVERY;
    anything else: the training ids)."""
    k = int(rng.integers(WIDE_STYLES // WIDE_VAL_EVERY))
    return k * WIDE_VAL_EVERY if split == "val" else k * WIDE_VAL_EVERY + 1 + int(rng.integers(WIDE_VAL_EVERY - 1))


_INK_COLOURS = [BLUE, RED, GREEN, BLACK, (20, 40, 110), (150, 20, 30), (10, 90, 50), (60, 30, 20), (90, 40, 120),
                (200, 110, 20), (20, 110, 130)]


class WideStyle(ProcStyle):
    """Parameters of one ``wide`` style (an int id); extends :class:`ProcStyle`."""

    def __init__(self, style: int) -> None:
        super().__init__(style)
        rng = np.random.default_rng([style, 1818])
        fonts = cjk_fonts()
        pick = lambda: fonts[int(rng.integers(len(fonts)))]  # noqa: E731
        self.font_num, self.font_wan, self.font_hon, self.font_bonus = pick(), pick(), pick(), pick()
        self.stroke = int(rng.choice([0, 0, 0, 1, 2, 3, 5]))
        self.thick = int(rng.choice([-3, -2, -1, 0, 0, 0, 1, 2, 4, 6]))  # dilate (+) / erode (−), 2× px
        self.warp = float(rng.choice([0.0, 0.0, 1.0, 2.0, 3.5]) * rng.uniform(0.6, 1.2))  # elastic, % of size
        self.shear = float(rng.normal(0, 0.12))
        self.squash = float(rng.uniform(0.8, 1.2))  # glyph aspect
        self.mono = rng.random() < 0.22
        ink = _jitter_color(rng, _INK_COLOURS[int(rng.integers(len(_INK_COLOURS)))], 15)
        if self.mono:
            self.blue = self.red = self.green = self.black = ink
            self.circ = {k: ink for k in "ABC"}
            self.flower_cols = [ink]
        else:
            self.flower_cols = [_jitter_color(rng, _INK_COLOURS[int(i)], 25) for i in rng.integers(len(_INK_COLOURS), size=4)]
        self.num_color = self.black if self.mono else [self.blue, self.black, self.red, self.green, ink][rng.integers(5)]
        self.wan_color = self.red if rng.random() < 0.75 else [self.blue, self.black, self.green, ink][rng.integers(4)]
        self.wind_color = [self.blue, self.black, self.green, self.red, ink][rng.integers(5)]
        self.num_box = (float(rng.uniform(0.02, 0.16)), float(rng.uniform(0.38, 0.5)))  # numeral top / bottom
        self.circle_kind = int(rng.integers(7))
        self.circle_scale = float(rng.uniform(0.82, 1.12))
        self.stick_scale = (float(rng.uniform(0.8, 1.15)), float(rng.uniform(0.7, 1.35)))  # length, width
        self.stick_mix = rng.random() < 0.35  # sticks alternate two colours
        self.stick_shape = int(rng.integers(3))  # 0 capsule + nodes, 1 plain bar, 2 segmented
        self.bird = rng.random() < 0.75
        self.peacock = rng.random() < 0.4
        self.white = int(rng.integers(5))
        self.corner = rng.random() < 0.35
        self.bonus_layout = int(rng.integers(7))
        self.bonus_picture = int(rng.integers(4))  # 0 plant/scene by identity, 1 figure, 2 generic flower, 3 mixed
        self.bonus_num = int(rng.integers(4))  # 0 arabic, 1 chinese numeral, 2 both, 3 arabic in a frame
        self.bonus_num_color = self.red if self.mono is False and rng.random() < 0.5 else self.num_color
        self.bonus_scale = float(rng.uniform(0.7, 1.3))
        self.frame = rng.random() < 0.2  # a thin frame around every face
        # drawn from a stream of its own, so that the draws above stay those of the earlier styles
        self.bonus_any_plant = bool(np.random.default_rng([style, 2929]).random() < 0.5)


@functools.lru_cache(maxsize=512)
def _wide_style(style: int) -> WideStyle:
    return WideStyle(style)


def _distort(m: np.ndarray, st: WideStyle, rng: np.random.Generator) -> np.ndarray:
    """A glyph mask (h, w) uint8 sheared, squashed, thickened/thinned and elastically warped."""
    h, w = m.shape
    pad = max(8, int(0.12 * max(h, w)))
    m = cv2.copyMakeBorder(m, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    H, W = m.shape
    sh = st.shear + rng.normal(0, 0.03)
    M = np.array([[st.squash, sh, -sh * H / 2 + (1 - st.squash) * W / 2], [0, 1, 0]], np.float32)
    m = cv2.warpAffine(m, M, (W, H), flags=cv2.INTER_LINEAR)
    if st.warp > 0:
        amp = st.warp / 100 * max(H, W)
        g = max(3, int(rng.integers(3, 6)))
        dx = cv2.resize(rng.normal(0, 1, (g, g)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC) * amp
        dy = cv2.resize(rng.normal(0, 1, (g, g)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC) * amp
        xs, ys = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        m = cv2.remap(m, xs + dx, ys + dy, cv2.INTER_LINEAR, borderValue=0)
    t = st.thick + int(rng.integers(-1, 2))
    if t:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(t) + 1, 2 * abs(t) + 1))
        m = cv2.dilate(m, k) if t > 0 else cv2.erode(m, k)
    ys, xs = np.nonzero(m > 20)
    if len(xs) == 0:
        return np.zeros((1, 1), np.uint8)
    return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _wide_glyph(cv: _Canvas, st: WideStyle, rng: np.random.Generator, font, ch: str, box, color) -> None:
    m = _distort(_glyph_mask(font[0], font[1], ch, st.stroke), st, rng)
    gh, gw = m.shape
    bx0, by0, bx1, by1 = box[0] * cv.W, box[1] * cv.H, box[2] * cv.W, box[3] * cv.H
    s = min((bx1 - bx0) / gw, (by1 - by0) / gh)
    w, h = max(1, int(gw * s)), max(1, int(gh * s))
    cv.paint(cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA), color,
             int(bx0 + (bx1 - bx0 - w) / 2), int(by0 + (by1 - by0 - h) / 2))


def _poly_ellipse(cx, cy, rx, ry, ang, n=18):
    ca, sa = math.cos(ang), math.sin(ang)
    return [(cx + rx * math.cos(t) * ca - ry * math.sin(t) * sa, cy + rx * math.cos(t) * sa + ry * math.sin(t) * ca)
            for t in np.linspace(0, 2 * math.pi, n, endpoint=False)]


def _blossom(d, bx, by, pr, n_p, petal=0.7):
    for k in range(n_p):
        a = 2 * math.pi * k / n_p
        qx, qy = bx + pr * math.cos(a), by + pr * math.sin(a)
        d.ellipse([qx - pr * petal, qy - pr * petal, qx + pr * petal, qy + pr * petal], fill=255)


def _draw_plant(cv: _Canvas, st: WideStyle, rng: np.random.Generator, kind: int, box) -> None:
    """A plant or scene in ``box`` (art units): 0 plum, 1 orchid, 2 chrysanthemum, 3 bamboo,
    4 spring blossom tree, 5 summer lotus and sun, 6 autumn leaves and moon, 7 winter snow."""
    W, H = cv.W, cv.H
    x0, y0, x1, y1 = box[0] * W, box[1] * H, box[2] * W, box[3] * H
    bw, bh = x1 - x0, y1 - y0
    green, brown = st.green, (_jitter_color(rng, (90, 55, 30), 15) if not st.mono else st.black)
    col = lambda: st.flower_cols[int(rng.integers(len(st.flower_cols)))]  # noqa: E731
    lw = max(3, int(0.035 * W * st.weight))
    if kind in (0, 4):  # branch with blossoms
        im, d = cv.layer()
        pts = [(x0 + bw * rng.uniform(0.1, 0.4), y1)]
        for _ in range(4):
            pts.append((pts[-1][0] + bw * rng.uniform(-0.1, 0.3), pts[-1][1] - bh * rng.uniform(0.15, 0.28)))
        d.line(pts, fill=255, width=lw * 2, joint="curve")
        tips = []
        for p in pts[1:]:
            q = (p[0] + bw * rng.uniform(-0.35, 0.35), p[1] - bh * rng.uniform(0.0, 0.15))
            d.line([p, q], fill=255, width=lw)
            tips += [p, q]
        cv.paint_layer(im, brown)
        im, d = cv.layer()
        for p in tips[:: 1 if kind == 0 else 1]:
            _blossom(d, p[0], p[1], bw * rng.uniform(0.05, 0.09), 5)
        cv.paint_layer(im, col())
    elif kind == 1:  # orchid: long arched leaves and small flowers
        im, d = cv.layer()
        base = (x0 + bw * rng.uniform(0.35, 0.65), y1)
        for _ in range(int(rng.integers(4, 8))):
            ang = rng.uniform(-1.2, 1.2)
            ln = bh * rng.uniform(0.5, 0.95)
            pts = [(base[0] + ln * t * math.sin(ang) + bw * 0.3 * t * t * math.sin(ang), base[1] - ln * t * math.cos(ang) * (1 - 0.3 * t))
                   for t in np.linspace(0, 1, 10)]
            for i in range(len(pts) - 1):
                d.line([pts[i], pts[i + 1]], fill=255, width=max(2, int(lw * 1.4 * (1 - i / 10))))
        cv.paint_layer(im, green)
        im, d = cv.layer()
        for _ in range(int(rng.integers(2, 5))):
            fx, fy = x0 + bw * rng.uniform(0.2, 0.8), y0 + bh * rng.uniform(0.05, 0.5)
            for k in range(5):
                a = 2 * math.pi * k / 5 + rng.normal(0, 0.2)
                d.polygon(_poly_ellipse(fx + bw * 0.06 * math.cos(a), fy + bw * 0.06 * math.sin(a), bw * 0.07, bw * 0.03, a), fill=255)
        cv.paint_layer(im, col())
    elif kind == 2:  # chrysanthemum: many narrow petals
        im, d = cv.layer()
        cx, cy = x0 + bw * rng.uniform(0.35, 0.65), y0 + bh * rng.uniform(0.25, 0.45)
        d.line([(cx, cy), (cx + bw * rng.uniform(-0.2, 0.2), y1)], fill=255, width=lw)
        for _ in range(int(rng.integers(2, 5))):
            ly = cy + (y1 - cy) * rng.uniform(0.3, 0.9)
            d.polygon(_poly_ellipse(cx + bw * rng.choice([-0.15, 0.15]), ly, bw * 0.14, bw * 0.06, rng.uniform(-0.6, 0.6)), fill=255)
        cv.paint_layer(im, green)
        im, d = cv.layer()
        pr = bw * rng.uniform(0.22, 0.34)
        n = int(rng.integers(14, 26))
        for k in range(n):
            a = 2 * math.pi * k / n
            d.line([(cx, cy), (cx + pr * math.cos(a), cy + pr * math.sin(a))], fill=255, width=max(3, int(pr * 0.16)))
        cv.paint_layer(im, col())
        im, d = cv.layer()
        d.ellipse([cx - pr * 0.25, cy - pr * 0.25, cx + pr * 0.25, cy + pr * 0.25], fill=255)
        cv.paint_layer(im, (230, 180, 40) if not st.mono else st.black)
    elif kind == 3:  # bamboo stalks and leaves
        im, d = cv.layer()
        for _ in range(int(rng.integers(1, 4))):
            sx = x0 + bw * rng.uniform(0.15, 0.85)
            sw = max(4, int(bw * rng.uniform(0.05, 0.09)))
            d.line([(sx, y1), (sx + bw * rng.uniform(-0.1, 0.1), y0)], fill=255, width=sw)
        for _ in range(int(rng.integers(4, 9))):
            lx, ly = x0 + bw * rng.uniform(0.1, 0.9), y0 + bh * rng.uniform(0.05, 0.8)
            d.polygon(_poly_ellipse(lx, ly, bw * rng.uniform(0.12, 0.2), bw * 0.035, rng.uniform(-0.8, 0.8) + math.pi / 6), fill=255)
        cv.paint_layer(im, green)
        im, d = cv.layer()
        for _ in range(int(rng.integers(3, 7))):  # nodes
            sx, sy = x0 + bw * rng.uniform(0.15, 0.85), y0 + bh * rng.uniform(0.1, 0.95)
            d.line([(sx - bw * 0.05, sy), (sx + bw * 0.05, sy)], fill=255, width=3)
        cv.paint_layer(im, brown)
    elif kind == 5:  # summer: sun, water, lotus
        im, d = cv.layer()
        r = bw * rng.uniform(0.12, 0.2)
        sx, sy = x0 + bw * rng.uniform(0.2, 0.8), y0 + bh * rng.uniform(0.05, 0.3)
        d.ellipse([sx - r, sy - r, sx + r, sy + r], fill=255)
        for k in range(12):
            a = 2 * math.pi * k / 12
            d.line([(sx + 1.3 * r * math.cos(a), sy + 1.3 * r * math.sin(a)), (sx + 1.7 * r * math.cos(a), sy + 1.7 * r * math.sin(a))], fill=255, width=3)
        cv.paint_layer(im, st.red)
        im, d = cv.layer()
        for k in range(3):
            yy = y1 - bh * (0.08 + 0.1 * k)
            d.arc([x0, yy - bh * 0.05, x1, yy + bh * 0.05], 0, 180, fill=255, width=lw)
        cv.paint_layer(im, st.blue)
        im, d = cv.layer()
        _blossom(d, x0 + bw * rng.uniform(0.3, 0.7), y1 - bh * 0.42, bw * 0.1, 6, 0.55)
        cv.paint_layer(im, col())
    elif kind == 6:  # autumn: moon and falling leaves
        im, d = cv.layer()
        r = bw * rng.uniform(0.14, 0.22)
        mx, my = x0 + bw * rng.uniform(0.25, 0.75), y0 + bh * rng.uniform(0.1, 0.3)
        d.ellipse([mx - r, my - r, mx + r, my + r], fill=255)
        cv.paint_layer(im, (220, 160, 40) if not st.mono else st.black)
        im, d = cv.layer()
        for _ in range(int(rng.integers(4, 9))):
            lx, ly = x0 + bw * rng.uniform(0.05, 0.95), y0 + bh * rng.uniform(0.35, 0.95)
            d.polygon(_poly_ellipse(lx, ly, bw * 0.09, bw * 0.05, rng.uniform(0, math.pi), 5 + int(rng.integers(3))), fill=255)
        cv.paint_layer(im, col())
    else:  # winter: snowflakes and a bare tree
        im, d = cv.layer()
        tx = x0 + bw * rng.uniform(0.3, 0.7)
        d.line([(tx, y1), (tx, y0 + bh * 0.3)], fill=255, width=lw * 2)
        for _ in range(5):
            yy = y0 + bh * rng.uniform(0.3, 0.8)
            d.line([(tx, yy), (tx + bw * rng.uniform(-0.35, 0.35), yy - bh * rng.uniform(0.05, 0.2))], fill=255, width=lw)
        cv.paint_layer(im, brown)
        im, d = cv.layer()
        for _ in range(int(rng.integers(4, 9))):
            fx, fy, r = x0 + bw * rng.uniform(0.05, 0.95), y0 + bh * rng.uniform(0.0, 0.9), bw * rng.uniform(0.04, 0.08)
            for k in range(3):
                a = math.pi * k / 3
                d.line([(fx - r * math.cos(a), fy - r * math.sin(a)), (fx + r * math.cos(a), fy + r * math.sin(a))], fill=255, width=3)
        cv.paint_layer(im, st.blue)


def _draw_figure(cv: _Canvas, st: WideStyle, rng: np.random.Generator, box) -> None:
    """A person (head, robe, sleeves, sometimes a hat and a held object) in ``box`` (art units)."""
    W, H = cv.W, cv.H
    x0, y0, x1, y1 = box[0] * W, box[1] * H, box[2] * W, box[3] * H
    bw, bh = x1 - x0, y1 - y0
    cx = x0 + bw * rng.uniform(0.4, 0.6)
    hr = bw * rng.uniform(0.09, 0.14)
    hy = y0 + bh * rng.uniform(0.12, 0.25)
    robe = st.flower_cols[int(rng.integers(len(st.flower_cols)))]
    im, d = cv.layer()
    top, bot = hy + hr, y1
    spread = bw * rng.uniform(0.2, 0.42)
    d.polygon([(cx - bw * 0.1, top), (cx + bw * 0.1, top), (cx + spread, bot), (cx - spread, bot)], fill=255)
    cv.paint_layer(im, robe)
    im, d = cv.layer()
    ay = top + bh * rng.uniform(0.1, 0.25)
    d.line([(cx - bw * 0.08, top + 4), (cx - bw * rng.uniform(0.2, 0.4), ay)], fill=255, width=int(bw * 0.07))
    d.line([(cx + bw * 0.08, top + 4), (cx + bw * rng.uniform(0.2, 0.4), ay)], fill=255, width=int(bw * 0.07))
    cv.paint_layer(im, st.blue if robe != st.blue else st.red)
    im, d = cv.layer()
    d.ellipse([cx - hr, hy - hr, cx + hr, hy + hr], fill=255)
    cv.paint_layer(im, (225, 185, 150) if not st.mono else st.black)
    im, d = cv.layer()
    if rng.random() < 0.6:
        d.polygon([(cx - hr * 1.6, hy - hr * 0.5), (cx + hr * 1.6, hy - hr * 0.5), (cx, hy - hr * 2.2)], fill=255)
    if rng.random() < 0.6:  # a held staff / fan / basket
        sx = cx + bw * rng.choice([-0.35, 0.35])
        d.line([(sx, y0 + bh * 0.15), (sx, y1)], fill=255, width=4)
    cv.paint_layer(im, st.black)


_PLANT_OF = {("f", 1): 0, ("f", 2): 1, ("f", 3): 2, ("f", 4): 3, ("y", 1): 4, ("y", 2): 5, ("y", 3): 6, ("y", 4): 7}


def _wide_bonus(cv: _Canvas, st: WideStyle, rng: np.random.Generator, r: int, s: str) -> None:
    chars = _FLOWERS if s == "f" else _SEASONS
    lay = st.bonus_layout
    k = st.bonus_scale
    pic_box = {0: (0.08, 0.2, 0.92, 0.97), 1: (0.08, 0.18, 0.92, 0.97), 2: (0.1, 0.36, 0.9, 0.97),
               3: None, 4: (0.28, 0.06, 0.95, 0.96), 5: (0.05, 0.05, 0.95, 0.95), 6: (0.08, 0.22, 0.92, 0.97)}[lay]
    if pic_box is not None:
        kind = st.bonus_picture if st.bonus_picture != 3 else int(rng.integers(3))
        if kind == 0:
            # Hong Kong sets draw flowers on the seasons too: in the styles with ``bonus_any_plant`` a
            # flower or season shows any of the four flower plants, so only the character and numeral
            # tell the tile (measured against plants drawn at random on the seasons only, the flowers
            # keeping their own: no better on real crops; models/MODEL_CARD.md, classifier version 4)
            _draw_plant(cv, st, rng, int(rng.integers(4)) if st.bonus_any_plant else _PLANT_OF[(s, r)], pic_box)
        elif kind == 1:
            _draw_figure(cv, st, rng, pic_box)
        else:
            _draw_flower_picture(cv, st, rng, pic_box)
    num = [str(r), _NUMERALS[r - 1], str(r), str(r)][st.bonus_num]
    F = st.font_bonus
    left = rng.random() < 0.5
    sz = 0.22 * k
    if lay in (0, 1, 5, 6):  # small numeral in one top corner (and the character in the other)
        nb = (0.04, 0.02, 0.04 + sz * 1.1, 0.02 + sz) if left else (0.96 - sz * 1.1, 0.02, 0.96, 0.02 + sz)
        cb = (0.96 - sz * 1.3, 0.02, 0.96, 0.03 + sz) if left else (0.04, 0.02, 0.04 + sz * 1.3, 0.03 + sz)
        if lay == 6:  # numeral and character at the bottom instead
            nb = (nb[0], 0.98 - sz, nb[2], 0.98)
            cb = (cb[0], 0.97 - sz, cb[2], 0.98)
        if st.bonus_num == 3:  # arabic numeral in a small frame
            im, d = cv.layer()
            d.rectangle([nb[0] * cv.W, nb[1] * cv.H, nb[2] * cv.W, nb[3] * cv.H], outline=255, width=4)
            cv.paint_layer(im, st.bonus_num_color)
            nb = (nb[0] + 0.03, nb[1] + 0.02, nb[2] - 0.03, nb[3] - 0.02)
        _wide_glyph(cv, st, rng, F, num, nb, st.bonus_num_color)
        if lay != 1:
            _wide_glyph(cv, st, rng, F, chars[r - 1], cb, st.bonus_char_color)
        if st.bonus_num == 2:
            _wide_glyph(cv, st, rng, F, _NUMERALS[r - 1], (cb[0], cb[3] + 0.01, cb[2], cb[3] + sz * 0.8), st.bonus_num_color)
    elif lay == 2:  # character large on top, picture below, numeral in a corner
        _wide_glyph(cv, st, rng, F, chars[r - 1], (0.25, 0.03, 0.75, 0.34), st.bonus_char_color)
        _wide_glyph(cv, st, rng, F, num, (0.04, 0.02, 0.22, 0.16) if left else (0.78, 0.02, 0.96, 0.16), st.bonus_num_color)
    elif lay == 3:  # no picture: the character large, the numeral above or in a corner
        _wide_glyph(cv, st, rng, F, chars[r - 1], (0.12, 0.3, 0.88, 0.92), st.bonus_char_color)
        _wide_glyph(cv, st, rng, F, num, (0.3, 0.03, 0.7, 0.26) if rng.random() < 0.5 else (0.04, 0.02, 0.3, 0.22),
                    st.bonus_num_color)
    elif lay == 4:  # numeral and character stacked in a side column
        _wide_glyph(cv, st, rng, F, num, (0.03, 0.04, 0.26, 0.24), st.bonus_num_color)
        _wide_glyph(cv, st, rng, F, chars[r - 1], (0.03, 0.3, 0.26, 0.55), st.bonus_char_color)
    if lay == 5:  # picture fills the face: also a numeral at the bottom in some sets
        if rng.random() < 0.5:
            _wide_glyph(cv, st, rng, F, num, (0.38, 0.8, 0.62, 0.98), st.bonus_num_color)


def _wide_stick(cv: _Canvas, st: WideStyle, cx, cy, length, width, color, angle=0.0):
    L, w = length * st.stick_scale[0], width * st.stick_scale[1]
    if st.stick_shape == 0:
        _draw_stick(cv, st, cx, cy, L, w, color, angle)
        return
    W, H = cv.W, cv.H
    px, py, LL, ww = cx * W, cy * H, L * H, w * W * st.weight
    im, d = cv.layer()
    if st.stick_shape == 1:
        d.polygon(_stick_poly(px, py, LL, ww * 0.8, angle), fill=255)
    else:  # segmented: three short capsules
        ca, sa = math.cos(angle), math.sin(angle)
        for f in (-1 / 3, 0, 1 / 3):
            d.polygon(_stick_poly(px - f * LL * sa, py + f * LL * ca, LL / 3.3, ww, angle), fill=255)
    cv.paint_layer(im, color)


def wide_art(style: int, code: str) -> np.ndarray:
    """``wide`` art layer for ``code`` in wide style ``style``: (200, 150, 4) uint8 RGBA."""
    return _wide_art_cached(int(style), code).copy()


@functools.lru_cache(maxsize=3000)
def _wide_art_cached(style: int, code: str) -> np.ndarray:
    st = _wide_style(style)
    rng = np.random.default_rng([style, CLASS_INDEX[code], 18])
    cv = _Canvas()
    r, s = int(code[0]), code[1]
    top = 0.12 if st.corner else st.num_box[0]
    if s == "m":
        ch = st.five if r == 5 else _NUMERALS[r - 1]
        _wide_glyph(cv, st, rng, st.font_num, ch, (0.12, top, 0.88, st.num_box[1]), st.num_color)
        _wide_glyph(cv, st, rng, st.font_wan, st.wan, (0.08, st.num_box[1] + 0.03, 0.92, 0.97), st.wan_color)
    elif s == "p":
        kind, k = st.circle_kind, st.circle_scale
        for (x, y), c in zip(_CIRCLE_LAYOUT[r], _CIRCLE_COLORS[r]):
            if r == 1:
                _draw_circle(cv, st, x, y, _CIRCLE_R[r] * 1.1 * k, st.circ["A"], kind % 4, big=kind < 4)
                _draw_circle(cv, st, x, y, _CIRCLE_R[r] * 0.45 * k, st.circ["B"], (kind + 1) % 4)
            elif kind >= 4:  # plain dots / discs with a ring
                im, d = cv.layer()
                px, py, pr = x * cv.W, y * cv.H, _CIRCLE_R[r] * k * cv.W
                if kind == 4:
                    d.ellipse([px - pr, py - pr, px + pr, py + pr], fill=255)
                else:
                    d.ellipse([px - pr, py - pr, px + pr, py + pr], outline=255, width=max(3, int(pr * (0.35 if kind == 5 else 0.12))))
                    if kind == 6:
                        d.ellipse([px - pr * 0.4, py - pr * 0.4, px + pr * 0.4, py + pr * 0.4], fill=255)
                cv.paint_layer(im, st.circ[c])
            else:
                _draw_circle(cv, st, x, y, _CIRCLE_R[r] * k, st.circ[c], kind)
    elif s == "s":
        col, red = st.bamboo_color, st.red
        alt = st.blue if col != st.blue else st.green
        if r == 1:
            if st.bird:
                _draw_bird(cv, st, rng)
                if st.peacock:  # extra tail eyes
                    im, d = cv.layer()
                    for _ in range(5):
                        qx, qy = cv.W * rng.uniform(0.15, 0.85), cv.H * rng.uniform(0.1, 0.45)
                        d.ellipse([qx - 9, qy - 9, qx + 9, qy + 9], fill=255)
                    cv.paint_layer(im, st.blue)
            else:
                _wide_stick(cv, st, 0.5, 0.5, 0.8, 0.16, col)
                _draw_stick(cv, st, 0.5, 0.5, 0.3, 0.06, red)
        elif r == 8:
            for sgn, yy in ((1, 0.27), (-1, 0.73)):
                for j, xx in enumerate((0.15, 0.38, 0.62, 0.85)):
                    ang = math.radians(22) * (1 if j % 2 == 0 else -1) * sgn
                    _wide_stick(cv, st, xx, yy, 0.4, 0.095, alt if st.stick_mix and j % 2 else col, ang)
        else:
            L = {2: 0.4, 3: 0.4, 4: 0.4, 5: 0.36, 6: 0.4, 7: 0.28, 9: 0.3}[r]
            wdt = {2: 0.12, 3: 0.11, 4: 0.11, 5: 0.1, 6: 0.095, 7: 0.095, 9: 0.095}[r]
            for j, (x, y, c) in enumerate(_BAMBOO_LAYOUT[r]):
                cc = red if c == "r" else (alt if st.stick_mix and j % 2 else col)
                _wide_stick(cv, st, x, y, L, wdt, cc)
    elif s == "z":
        F = st.font_hon
        if r <= 4:
            _wide_glyph(cv, st, rng, F, _WINDS[r - 1], (0.1, 0.12, 0.9, 0.88), st.wind_color)
        elif r == 7:
            _wide_glyph(cv, st, rng, F, "中", (0.1, 0.1, 0.9, 0.9), st.red)
        elif r == 6:
            _wide_glyph(cv, st, rng, F, "發", (0.08, 0.1, 0.92, 0.9), st.green)
        else:
            _draw_white(cv, st, rng)
    elif s in "fy":
        _wide_bonus(cv, st, rng, r, s)
    if st.corner and s in "mpsz" and not (s == "z" and r == 5 and st.white == 0):
        idx = str(r) if s in "mps" else "ESWNPFC"[r - 1]
        box = (0.03, 0.0, 0.25, 0.13) if st.corner_left else (0.75, 0.0, 0.97, 0.13)
        _wide_glyph(cv, st, rng, st.font_num, idx, box, st.corner_color)
    if st.frame and s != "z":
        im, d = cv.layer()
        d.rounded_rectangle([4, 4, cv.W - 5, cv.H - 5], radius=12, outline=255, width=3)
        cv.paint_layer(im, st.black)
    return cv.result()


#: wider tile body colours of ``wide`` sets (ivory most often, then coloured and dark bodies)
WIDE_BODY_COLORS = [(240, 236, 222), (246, 244, 236), (236, 228, 200), (250, 250, 248), (225, 215, 185),
                    (215, 235, 215), (210, 225, 240), (245, 225, 200), (240, 215, 220), (250, 240, 170),
                    (200, 220, 190), (60, 60, 65), (30, 90, 60), (170, 200, 230)]


# ----------------------------------------------------------------------------- art sets

_UNI = {"m": "t_ch{r}", "p": "t_do{r}", "s": "t_ba{r}"}
_GLEITZ = {"m": "character_{r}", "p": "ball_{r}", "s": "bamboo_{r}"}
_FLUFFY = {"m": "Man{r}", "p": "Pin{r}", "s": "Sou{r}"}
_WIND_NAMES = ["east", "south", "west", "north"]
_DRAGON_NAMES = {5: "white", 6: "green", 7: "red"}
_FLOWER_NAMES = ["plum", "orchid", "chrysanthemum", "bamboo"]
_SEASON_NAMES = ["spring", "summer", "fall", "winter"]
_FLUFFY_HONOURS = ["Ton", "Nan", "Shaa", "Pei", "Haku", "Hatsu", "Chun"]


def art_file(source: str, code: str, variant: int = 0) -> Path | None:
    """Path of the art file for ``code`` in an art set, or None (set lacks it / shared absent).

    variant 1 selects the red-five (``-Dora``) art of ``fluffy`` for 5m/5p/5s.
    """
    extra = extra_sources().get(source)
    if extra is not None:  # extracted into the data folder: needs no ../shared
        p = extra / f"{code}.png"
        return p if p.exists() else None
    root = tile_art_dir()
    if root is None:
        return None
    r, s = int(code[0]), code[1]
    name = None
    if source == "uni":
        if s in "mps":
            name = _UNI[s].format(r=r)
        elif s == "z":
            name = f"t_wi_{_WIND_NAMES[r - 1]}" if r <= 4 else f"t_dr_{_DRAGON_NAMES[r]}"
        elif s == "f":
            name = f"t_fl_{_FLOWER_NAMES[r - 1]}"
        elif s == "y":
            name = f"t_se_{_SEASON_NAMES[r - 1]}"
        p = root / "uni" / f"{name}.png" if name else None
    elif source == "gleitz":
        if s in "mps":
            name = _GLEITZ[s].format(r=r)
        elif s == "z":
            name = f"wind_{_WIND_NAMES[r - 1]}" if r <= 4 else f"dragon_{_DRAGON_NAMES[r]}"
        elif s == "f":
            name = f"flower_{_FLOWER_NAMES[r - 1]}"
        elif s == "y":
            name = f"season_{_SEASON_NAMES[r - 1]}"
        p = root / "gleitz" / f"{name}.png" if name else None
    elif source in ("fluffy", "fluffy-black"):
        if s in "mps":
            name = _FLUFFY[s].format(r=r) + ("-Dora" if variant == 1 and r == 5 else "")
        elif s == "z":
            name = _FLUFFY_HONOURS[r - 1]
        sub = "Regular" if source == "fluffy" else "Black"
        p = root / "fluffystuff" / sub / f"{name}.svg" if name else None
    else:
        return None
    return p if p is not None and p.exists() else None


@functools.lru_cache(maxsize=1)
def extra_sources() -> dict[str, Path]:
    """Extra art sets extracted by ``python -m datasets.extra_art`` (KDE / GNOME mahjongg tilesets):
    source name (e.g. ``kde-traditional``) → its folder of ``<code>.png`` art layers; empty when none
    was extracted. Renders use them only when asked (``datasets.synth --extra-art``)."""
    root = extra_art_dir()
    if not root.is_dir():
        return {}
    return {p.name: p for p in sorted(root.iterdir()) if (p / "SOURCE.json").exists() and (p / "1m.png").exists()}


def have_svg() -> bool:
    """True when cairosvg can rasterise the FluffyStuff SVG art."""
    try:
        import cairosvg  # noqa: F401
    except Exception:  # ImportError, or OSError when libcairo is missing
        return False
    return True


@functools.lru_cache(maxsize=600)
def set_art(source: str, code: str, variant: int = 0) -> np.ndarray | None:
    """Art layer of ``code`` from an art set: (200, 150, 4) uint8 RGBA, or None if unavailable."""
    p = art_file(source, code, variant)
    if p is None:
        return None
    if p.suffix == ".svg":
        if not have_svg():
            return None
        import cairosvg

        png = cairosvg.svg2png(url=str(p), output_width=ART_W * 2, output_height=ART_H * 2)
        im = Image.open(io.BytesIO(png)).convert("RGBA")
        a = np.asarray(im).astype(np.float32)
    else:
        a = np.asarray(Image.open(p).convert("RGBA")).astype(np.float32)
    # premultiplied resize to the art size keeping the aspect ratio
    h, w = a.shape[:2]
    s = min(ART_W / w, ART_H / h)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    pm = a.copy()
    pm[..., :3] *= pm[..., 3:4] / 255.0
    pm = cv2.resize(pm, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    out = np.zeros((ART_H, ART_W, 4), np.float32)
    y0, x0 = (ART_H - nh) // 2, (ART_W - nw) // 2
    out[y0:y0 + nh, x0:x0 + nw] = pm
    al = np.clip(out[..., 3:4], 0, 255)
    out[..., :3] = np.where(al > 0.5, out[..., :3] / np.maximum(al / 255.0, 1e-3), 0)
    if source == "gleitz":  # faint dark halo around gleitz ink looks like dirt: harden alpha a bit
        out[..., 3] = np.clip((out[..., 3] - 40) * 1.25, 0, 255)
    return np.clip(out, 0, 255).astype(np.uint8)


def available_sources() -> dict[str, float]:
    """Art sources usable here → sampling weight (procedural needs a CJK font; sets need ../shared)."""
    out = {}
    if cjk_fonts():
        out["proc"] = 0.55
    if art_file("uni", "1m"):
        out["uni"] = 0.14
    if art_file("gleitz", "1m"):
        out["gleitz"] = 0.12
    if art_file("fluffy", "1m") and have_svg():
        out["fluffy"] = 0.12
        out["fluffy-black"] = 0.03
    return out


def art(source: str, style: int, code: str, variant: int = 0) -> np.ndarray | None:
    """Art layer for ``code`` from ``source``; falls back to procedural (same style id) when the set
    lacks the tile (e.g. bonus tiles in ``fluffy``) and a CJK font exists; else None."""
    if source == "wide":
        return _wide_art_cached(int(style), code) if cjk_fonts() else None
    if source != "proc":
        a = set_art(source, code, variant)
        if a is not None:
            return a
    if cjk_fonts():
        return _proc_art_cached(int(style), code)
    return None


# ----------------------------------------------------------------------------- tile textures


@functools.lru_cache(maxsize=64)
def rounded_rect_sdf(w: int, h: int, radius: float) -> np.ndarray:
    """Signed distance (pixels, negative inside) to a w×h rounded rectangle: (h, w) float32."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    qx = np.abs(xs + 0.5 - w / 2) - (w / 2 - radius)
    qy = np.abs(ys + 0.5 - h / 2) - (h / 2 - radius)
    out = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2) + np.minimum(np.maximum(qx, qy), 0) - radius
    return out.astype(np.float32)


@functools.lru_cache(maxsize=256)
def _rim(tex_w: int, tex_h: int, radius: int, bevel: float) -> tuple[np.ndarray, np.ndarray]:
    """(bevel shading (h, w, 1) float32, alpha (h, w) float32 0..255) of a rounded tile face."""
    sdf = rounded_rect_sdf(tex_w, tex_h, float(max(radius, 1)))
    bw = max(2.0, tex_w * 0.06)
    rim = np.exp(sdf / bw)  # ~1 at the rim, →0 inside
    shade = (1.0 - bevel * rim)[..., None].astype(np.float32)
    alpha = (np.clip(0.5 - sdf, 0, 1) * 255).astype(np.float32)
    return shade, alpha


def compose_face(art_rgba: np.ndarray | None, body_rgb, tex_w: int, tex_h: int, radius: float,
                 margin: float = 0.08, bevel: float = 0.25, art_scale=(1.0, 1.0), art_shift=(0.0, 0.0),
                 ink_gain: float = 1.0) -> np.ndarray:
    """Face texture: body colour + art fitted inside a margin + bevelled rounded rim.

    art_rgba: (200, 150, 4) uint8 or None (blank); body_rgb: 3 floats 0..255; tex_w/tex_h: texture size
    in pixels; radius: corner radius in pixels; margin: fraction of tex_w left free on each side.
    Returns (tex_h, tex_w, 4) uint8 RGBA.
    """
    body = np.asarray(body_rgb, np.float32)
    tex = np.empty((tex_h, tex_w, 3), np.float32)
    grad = np.linspace(1.02, 0.97, tex_h, dtype=np.float32)[:, None, None]
    tex[:] = body[None, None, :] * grad
    if art_rgba is not None:
        mx = int(round(margin * tex_w))
        iw, ih = tex_w - 2 * mx, tex_h - 2 * mx
        s = min(iw / ART_W, ih / ART_H)
        nw, nh = max(1, int(ART_W * s * art_scale[0])), max(1, int(ART_H * s * art_scale[1]))
        a = cv2.resize(art_rgba, (nw, nh), interpolation=cv2.INTER_AREA).astype(np.float32)
        x0 = int((tex_w - nw) / 2 + art_shift[0] * tex_w)
        y0 = int((tex_h - nh) / 2 + art_shift[1] * tex_h)
        xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + nw, tex_w), min(y0 + nh, tex_h)
        if xb > xa and yb > ya:
            sub = a[ya - y0: yb - y0, xa - x0: xb - x0]
            al = sub[..., 3:4] / 255.0 * ink_gain
            al = np.clip(al, 0, 1)
            # ink is painted on the ivory, so tint it slightly with the body colour
            ink = sub[..., :3] * (0.85 + 0.15 * body / 255.0)
            tex[ya:yb, xa:xb] = tex[ya:yb, xa:xb] * (1 - al) + ink * al
    shade, alpha = _rim(tex_w, tex_h, int(round(radius)), round(bevel * 20) / 20)
    tex *= shade
    return np.dstack([np.clip(tex, 0, 255), alpha]).astype(np.uint8)


def compose_back(back_rgb, tex_w: int, tex_h: int, radius: float, rng: np.random.Generator | None = None,
                 bevel: float = 0.25) -> np.ndarray:
    """Back texture (plain coloured back, optional faint emblem): (tex_h, tex_w, 4) uint8 RGBA."""
    return compose_face(None, back_rgb, tex_w, tex_h, radius, bevel=bevel)


def _self_check() -> None:  # pragma: no cover - manual helper
    for c in CLASS_NAMES[:-1]:
        proc_art(0, c)


__all__ = [
    "ART_W", "ART_H", "cjk_fonts", "proc_art", "set_art", "art", "art_file", "available_sources", "extra_sources",
    "compose_face", "compose_back", "rounded_rect_sdf", "have_svg", "ProcStyle", "WideStyle", "wide_art",
    "wide_style_id", "WIDE_VAL_EVERY", "WIDE_BODY_COLORS",
]
_ = glob  # kept for callers that search fonts
