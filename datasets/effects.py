"""Backgrounds (in table-plane coordinates) and camera/photo effects, all with OpenCV + numpy.

Every function takes an ``np.random.Generator`` and is deterministic given it.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

FELT_COLORS = [  # RGB
    (30, 110, 60), (20, 80, 45), (40, 130, 90), (25, 60, 120), (20, 35, 80), (150, 35, 40), (200, 95, 95),
    (110, 25, 35), (120, 120, 125), (70, 70, 75), (25, 25, 28), (30, 110, 120), (80, 50, 110), (120, 80, 50),
    (200, 185, 150), (95, 130, 60), (210, 120, 110), (160, 160, 165),
]
WOOD_COLORS = [(150, 100, 60), (110, 70, 40), (190, 150, 100), (80, 50, 30), (170, 120, 80), (215, 185, 140)]


def value_noise(rng: np.random.Generator, h: int, w: int, cell: float, octaves: int = 3) -> np.ndarray:
    """Smooth noise in [-1, 1] approx: (h, w) float32; ``cell`` is the coarsest feature size in pixels."""
    out = np.zeros((h, w), np.float32)
    amp, tot = 1.0, 0.0
    for o in range(octaves):
        c = max(cell / (2 ** o), 1.5)
        gh, gw = int(h / c) + 2, int(w / c) + 2
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        tot += amp
        amp *= 0.5
    return out / tot


def table_texture(rng: np.random.Generator, h: int, w: int, px_per_mm: float, kind: str) -> tuple[np.ndarray, dict]:
    """A table surface texture (h, w, 3) uint8 RGB at ``px_per_mm``; kind: felt | wood | cloth | auto."""
    info: dict = {"kind": kind}
    if kind == "wood":
        base = np.array(WOOD_COLORS[rng.integers(len(WOOD_COLORS))], np.float32)
        ys = np.arange(h, dtype=np.float32)[:, None]
        warp = value_noise(rng, h, w, 120 * px_per_mm, 2) * 25 * px_per_mm
        freq = rng.uniform(0.15, 0.6) / max(px_per_mm, 1e-3)
        grain = np.sin((ys + warp) * freq * 2 * math.pi / 10) * 0.5 + 0.5
        fine = value_noise(rng, h, w, 3 * px_per_mm + 1.5, 2)
        m = 0.85 + 0.15 * grain + 0.05 * fine
        img = base[None, None, :] * m[..., None]
        if rng.random() < 0.5:  # planks
            pw = int(rng.uniform(80, 200) * px_per_mm)
            for x in range(int(rng.integers(0, max(pw, 1))), w, max(pw, 2)):
                img[:, max(x - 1, 0):x + 1] *= 0.6
        if rng.random() < 0.5:
            img = img.transpose(1, 0, 2)[:h, :w] if h == w else img
    else:
        base = np.array(FELT_COLORS[rng.integers(len(FELT_COLORS))], np.float32)
        base = np.clip(base * rng.uniform(0.8, 1.2) + rng.normal(0, 8, 3), 5, 250)
        low = value_noise(rng, h, w, 150 * px_per_mm + 2, 3)
        img = base[None, None, :] * (1 + 0.06 * low[..., None])
        if kind == "cloth":
            pat = rng.integers(3)
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            per = rng.uniform(20, 80) * px_per_mm + 2
            if pat == 0:  # checks
                chk = ((np.floor(xx / per) + np.floor(yy / per)) % 2)[..., None]
                c2 = np.clip(base * rng.uniform(0.6, 1.3) + rng.normal(0, 30, 3), 0, 255)
                img = img * (1 - chk * 0.5) + c2 * chk * 0.5
            elif pat == 1:  # stripes
                st = (np.sin(xx / per * 2 * math.pi) > 0.6)[..., None]
                c2 = np.clip(base + rng.normal(0, 35, 3), 0, 255)
                img = np.where(st, img * 0.5 + c2 * 0.5, img)
            weave = (np.sin(xx * 1.7) * np.sin(yy * 1.7))[..., None] * 6
            img = img + weave
        if kind == "auto":
            info["grooves"] = True
    return np.clip(img, 0, 255).astype(np.uint8), info


def draw_world_lines(tex: np.ndarray, lines_mm: list[tuple[float, float, float, float]], origin, px_per_mm: float,
                     color, width_mm: float) -> None:
    """Draw straight lines given in table-plane mm onto a texture whose (0, 0) pixel is ``origin`` mm."""
    for x0, y0, x1, y1 in lines_mm:
        p0 = (int((x0 - origin[0]) * px_per_mm * 16), int((y0 - origin[1]) * px_per_mm * 16))
        p1 = (int((x1 - origin[0]) * px_per_mm * 16), int((y1 - origin[1]) * px_per_mm * 16))
        cv2.line(tex, p0, p1, color, max(1, int(width_mm * px_per_mm)), cv2.LINE_AA, shift=4)


def fill_world_rect(tex, rect_mm, origin, px_per_mm, color) -> None:
    x0, y0, x1, y1 = rect_mm
    a = (int((x0 - origin[0]) * px_per_mm), int((y0 - origin[1]) * px_per_mm))
    b = (int((x1 - origin[0]) * px_per_mm), int((y1 - origin[1]) * px_per_mm))
    cv2.rectangle(tex, a, b, color, -1)


# ----------------------------------------------------------------------------- photo effects


def lighting(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light falloff / gradient, vignette, colour temperature, exposure: (H, W, 3) uint8 → same."""
    H, W = img.shape[:2]
    f = img.astype(np.float32)
    yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    g = ((xx - W / 2) * math.cos(a) + (yy - H / 2) * math.sin(a)) / max(W, H)
    m = 1 + rng.uniform(0, 0.45) * g
    if rng.random() < 0.6:  # vignette
        r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        m *= 1 - rng.uniform(0.05, 0.35) * r2
    if rng.random() < 0.25:  # a lamp hot spot
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        s = rng.uniform(0.1, 0.4) * W
        m += rng.uniform(0.05, 0.25) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    m = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
    temp = rng.normal(0, 0.06)
    gains = np.array([1 + temp, 1 + rng.normal(0, 0.02), 1 - temp], np.float32) * rng.uniform(0.8, 1.15)
    f = cv2.multiply(f, cv2.merge([m * gains[0], m * gains[1], m * gains[2]]))
    gamma = rng.uniform(0.85, 1.15)
    lut = np.clip(255.0 * np.power(np.arange(256) / 255.0, gamma), 0, 255).astype(np.uint8)
    return cv2.LUT(np.clip(f, 0, 255).astype(np.uint8), lut)


def camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Resolution loss, defocus, motion blur, sharpening and sensor noise: (H, W, 3) uint8 → same."""
    H, W = img.shape[:2]
    if rng.random() < 0.35:  # lower-resolution phone / digital zoom
        s = rng.uniform(0.45, 0.9)
        small = cv2.resize(img, (max(8, int(W * s)), max(8, int(H * s))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
    r = rng.random()
    if r < 0.3:
        s = rng.uniform(0.5, 2.2)
        img = cv2.GaussianBlur(img, (0, 0), s)
    elif r < 0.42:
        k = int(rng.integers(3, 12))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = cv2.warpAffine(ker, M, (k, k))
        ker /= max(ker.sum(), 1e-6)
        img = cv2.filter2D(img, -1, ker)
    if rng.random() < 0.3:  # phone sharpening
        bl = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = cv2.addWeighted(img, 1.6, bl, -0.6, 0)
    if rng.random() < 0.8:
        sigma = float(rng.uniform(1, 7))
        if rng.random() < 0.5:  # correlated (demosaiced) luma noise
            n = rng.standard_normal((H // 2 + 1, W // 2 + 1), dtype=np.float32)
            n = cv2.resize(n, (W, H), interpolation=cv2.INTER_LINEAR)
        else:
            n = rng.standard_normal((H, W), dtype=np.float32)
        chroma = rng.standard_normal((H // 4 + 1, W // 4 + 1, 3), dtype=np.float32) * 0.5
        chroma = cv2.resize(chroma, (W, H), interpolation=cv2.INTER_LINEAR)
        noise = (n[..., None] + chroma) * sigma
        img = cv2.add(img.astype(np.float32), noise, dtype=cv2.CV_32F)
        img = np.clip(img, 0, 255).astype(np.uint8)
    return img


def jpeg_roundtrip(img_rgb: np.ndarray, quality: int) -> np.ndarray:
    """Encode/decode once at ``quality`` (JPEG artefacts): (H, W, 3) uint8 RGB → same."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
