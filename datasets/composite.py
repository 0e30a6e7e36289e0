"""Composite photos for evaluation only: real single-tile photos pasted into a hand row on rendered
backgrounds, with clutter, loose tiles behind the hand, mild perspective and rotation.

The tiles are the real crops of ``../shared/data/crops-real`` (``labels.csv``: image, tile). They
measure the classifier, so these composites are made at evaluation time into a temporary folder
and are **never** written to the repository nor used for training.

    from datasets.composite import load_crops, build_composite
    crops = load_crops(shared_dir() / "data" / "crops-real")
    comp = build_composite(np.random.default_rng(0), crops)
    comp.image, comp.hand_tiles, comp.hand_boxes, comp.other_boxes

A hand is a finished 13-tile hand of :func:`datasets.hands.random_hand` with every tile in one row
(14 tiles; about one in four drops its winning tile: 13 tiles, a hand waiting) whose tiles all have
crops; for each tile the crop nearest in file number to a random anchor is used (consecutive files
tend to come from one photo session, so one tile set where possible), each crop at most once.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from . import effects, hard
from .hands import random_hand, tile_sort_key

#: backgrounds: felt (green, teal, grey), wood, patterned cloth (flowers, paisley, dots, checks)
BACKGROUNDS = ("felt-green", "felt-teal", "felt-grey", "wood", "cloth")
CLUTTER_2D = ("keys", "dice", "dominoes", "coins", "cards", "text", "sticks")


@dataclass
class Crop:
    code: str
    number: int  # the file's number (crop 17.jpg → 17)
    image: np.ndarray  # (h, w, 3) uint8 RGB, black borders trimmed


@dataclass
class Composite:
    """A composite photo: ``image`` (H, W, 3) uint8 RGB; ``hand_tiles`` the row's codes left to right
    with ``hand_boxes`` (N, 4) float32 xyxy pixels; ``other_tiles`` / ``other_boxes`` the loose tiles
    and rows that are not the hand; ``info`` what was drawn."""

    image: np.ndarray
    hand_tiles: list[str]
    hand_boxes: np.ndarray
    other_tiles: list[str]
    other_boxes: np.ndarray
    info: dict


def trim(img: np.ndarray, thresh: int = 24) -> np.ndarray:
    """The crop without the near-black letterbox bars on its sides (rows/columns whose mean < thresh)."""
    g = img.mean(2)
    cols = np.nonzero(g.mean(0) >= thresh)[0]
    rows = np.nonzero(g.mean(1) >= thresh)[0]
    if len(cols) < 8 or len(rows) < 8:
        return img
    return img[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


def load_crops(root: Path, codes: set[str] | None = None) -> list[Crop]:
    """The real single-tile photos of ``root`` (labels.csv image,tile), trimmed, in file-number order."""
    from PIL import Image, ImageOps

    out = []
    for r in csv.DictReader(open(root / "labels.csv")):
        if codes is not None and r["tile"] not in codes:
            continue
        with Image.open(root / r["image"]) as im:
            a = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
        stem = Path(r["image"]).stem
        out.append(Crop(r["tile"], int(stem) if stem.isdigit() else len(out), trim(a)))
    out.sort(key=lambda c: c.number)
    return out


def pick_hand(rng: np.random.Generator, crops: list[Crop], tries: int = 200) -> tuple[list[str], list[Crop]]:
    """A hand row (codes, sorted as players sort them) whose tiles all have distinct crops, and the crops."""
    by: dict[str, list[Crop]] = {}
    for c in crops:
        by.setdefault(c.code, []).append(c)
    for _ in range(tries):
        h = random_hand(rng, size=13, allow_bonus=False)
        tiles = h.all_tiles()
        if len(tiles) != 14:
            continue
        if rng.random() < 0.25:
            tiles.remove(h.winning)
        need: dict[str, int] = {}
        for t in tiles:
            need[t] = need.get(t, 0) + 1
        if any(len(by.get(t, [])) < n for t, n in need.items()):
            continue
        anchor = float(rng.uniform(min(c.number for c in crops), max(c.number for c in crops)))
        chosen, used = [], set()
        tiles.sort(key=tile_sort_key)
        for t in tiles:
            cand = sorted((c for c in by[t] if id(c) not in used), key=lambda c: abs(c.number - anchor))
            chosen.append(cand[0])
            used.add(id(cand[0]))
        return tiles, chosen
    raise RuntimeError("no hand whose tiles all have crops")


def background(rng: np.random.Generator, kind: str, H: int, W: int) -> np.ndarray:
    """A rendered surface (H, W, 3) uint8 RGB: felt in green / teal / grey, wood, or patterned cloth."""
    px = float(rng.uniform(0.8, 1.6))  # pixels per mm
    if kind == "wood":
        img, _ = effects.table_texture(rng, H, W, px, "wood")
        return img
    if kind == "cloth":
        return hard.cloth_pattern(rng, hard.HardScene("bed-cover", split="val" if rng.random() < 0.5 else "train"),
                                  H, W, px)
    base = {"felt-green": (30, 115, 62), "felt-teal": (30, 120, 122), "felt-grey": (110, 112, 116)}[kind]
    c = np.array(base, np.float32) * rng.uniform(0.8, 1.15) + rng.normal(0, 6, 3).astype(np.float32)
    low = effects.value_noise(rng, H, W, 160.0, 3)[..., None]
    fine = rng.normal(0, 3.0, (H, W, 1)).astype(np.float32)
    return np.clip(c * (1 + 0.07 * low) + fine, 0, 255).astype(np.uint8)


def _tile_sprite(face: np.ndarray, tw: int, th: int, back_rgb, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """A standing tile seen from the front and a little above: the face (tw, th) and, above it, the
    tile's top in its back colour; → (RGB (th + depth, tw, 3), alpha (th + depth, tw) float32)."""
    f = cv2.resize(face, (tw, th), interpolation=cv2.INTER_AREA)
    img = np.zeros((th + depth, tw, 3), np.uint8)
    img[:depth] = np.array(back_rgb, np.uint8)
    img[depth:] = f
    if depth:
        img[max(depth - 2, 0):depth] = (np.array(back_rgb, np.float32) * 0.7).astype(np.uint8)
    a = np.zeros((th + depth, tw), np.uint8)
    r = max(2, tw // 10)
    cv2.rectangle(a, (r, 0), (tw - 1 - r, th + depth - 1), 255, -1)
    cv2.rectangle(a, (0, r), (tw - 1, th + depth - 1 - r), 255, -1)
    for cx, cy in ((r, r), (tw - 1 - r, r), (r, th + depth - 1 - r), (tw - 1 - r, th + depth - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    edge = cv2.morphologyEx(a, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    img[edge > 0] = (img[edge > 0] * 0.75).astype(np.uint8)
    return img, a.astype(np.float32) / 255.0


def _paste(canvas: np.ndarray, sprite: np.ndarray, alpha: np.ndarray, x: int, y: int, angle: float = 0.0,
           shadow: float = 0.35) -> np.ndarray | None:
    """Alpha-paste ``sprite`` with its top-left at (x, y), turned by ``angle`` degrees about its centre,
    with a soft drop shadow; → the pasted region's corners (4, 2) float32 in canvas pixels, or None."""
    h, w = sprite.shape[:2]
    if angle:
        M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        c, s = abs(M[0, 0]), abs(M[0, 1])
        nw, nh = int(h * s + w * c) + 2, int(h * c + w * s) + 2
        M[0, 2] += nw / 2 - w / 2
        M[1, 2] += nh / 2 - h / 2
        sprite = cv2.warpAffine(sprite, M, (nw, nh), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(alpha, M, (nw, nh), flags=cv2.INTER_LINEAR)
        corners = (np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float32) @ M.T.astype(np.float32))
        x -= (nw - w) // 2
        y -= (nh - h) // 2
        h, w = nh, nw
    else:
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 <= x0 or y1 <= y0:
        return None
    if shadow:
        off = max(2, h // 14)
        sa = cv2.GaussianBlur(alpha, (0, 0), max(1.0, h / 25))
        sx0, sy0, sx1, sy1 = max(x + off, 0), max(y + off, 0), min(x + off + w, W), min(y + off + h, H)
        if sx1 > sx0 and sy1 > sy0:
            m = sa[sy0 - y - off:sy1 - y - off, sx0 - x - off:sx1 - x - off, None] * shadow
            roi = canvas[sy0:sy1, sx0:sx1].astype(np.float32)
            canvas[sy0:sy1, sx0:sx1] = (roi * (1 - m)).astype(np.uint8)
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x, None]
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = (roi * (1 - a) + sprite[y0 - y:y1 - y, x0 - x:x1 - x] * a).astype(np.uint8)
    return corners + np.array([x, y], np.float32)


def _clutter_sprite(rng: np.random.Generator, kind: str, tile_h: int) -> tuple[np.ndarray, np.ndarray]:
    """A 2-D sprite (RGB, alpha) of one clutter object at the scale of tiles ``tile_h`` pixels high."""
    if kind == "keys":
        dark = rng.random() < 0.6
        bg, ink = ((35, 35, 38), (235, 235, 235)) if dark else ((225, 225, 222), (30, 30, 30))
        k = int(tile_h * rng.uniform(0.45, 0.6))
        rows, cols = int(rng.integers(2, 5)), int(rng.integers(4, 12))
        pitch = int(k * 1.15)
        img = np.full((rows * pitch + 8, cols * pitch + 8, 3), (60, 60, 64) if dark else (190, 190, 188), np.uint8)
        for r in range(rows):
            for c in range(cols):
                t = hard._key_tex(rng, k, k, bg, ink)[..., :3]
                y, x = 4 + r * pitch, 4 + c * pitch
                img[y:y + k, x:x + k] = t
        return img, np.ones(img.shape[:2], np.float32)
    if kind in ("dice", "dominoes"):
        s = int(tile_h * (0.45 if kind == "dice" else 0.5))
        hh = s if kind == "dice" else 2 * s
        black = kind == "dominoes" and rng.random() < 0.35
        bg, ink = ((25, 25, 25), (240, 240, 240)) if black else ((240, 236, 224), (20, 20, 20))
        t = hard._pips_tex(int(rng.integers(1, 7)), s, hh, bg, ink, rng, domino=kind == "dominoes")[..., :3]
        return t, np.ones(t.shape[:2], np.float32)
    if kind == "coins":
        s = int(tile_h * rng.uniform(0.5, 0.8))
        col = [(200, 160, 70), (190, 190, 195), (170, 110, 70)][int(rng.integers(3))]
        t = hard._coin_tex(rng, s, col)[..., :3]
        a = np.zeros((s, s), np.uint8)
        cv2.circle(a, (s // 2, s // 2), s // 2 - 1, 255, -1, cv2.LINE_AA)
        return t, a.astype(np.float32) / 255
    if kind == "cards":
        w = int(tile_h * rng.uniform(1.0, 1.4))
        t = hard._card_tex(rng, w, int(w * 1.4))[..., :3]
        return t, np.ones(t.shape[:2], np.float32)
    if kind == "sticks":
        w = int(tile_h * rng.uniform(2.5, 3.5))
        t = hard._stick_tex(rng, w, max(6, int(tile_h * 0.18)))[..., :3]
        return t, np.ones(t.shape[:2], np.float32)
    w = int(tile_h * rng.uniform(2.5, 4))  # printed text
    t = hard._text_tex(rng, w, int(w * rng.uniform(0.6, 1.4)))[..., :3]
    return t, np.ones(t.shape[:2], np.float32)


def _overlaps(b, boxes, pad=0.0) -> bool:
    return any(b[0] < q[2] + pad and q[0] - pad < b[2] and b[1] < q[3] + pad and q[1] - pad < b[3] for q in boxes)


def build_composite(rng: np.random.Generator, crops: list[Crop], W: int = 1280, H: int = 960,
                    clutter: bool = True, behind: bool = True, warp: bool = True,
                    bonus_rng: np.random.Generator | None = None, bonus_columns: bool = False) -> Composite:
    """One composite photo (see the module docstring): a row of 13–14 real tile photos across the middle
    on a rendered surface, loose tiles and a second row behind it (``behind``), 2–4 clutter groups
    (``clutter``), then a mild perspective warp and a turn of up to ±8° (``warp``), light and noise.
    ``bonus_rng``: also 1–4 real flower/season photos of distinct faces, as the hand's bonus group
    (:func:`_place_bonus`), drawn from that generator only — so the scene is otherwise the one
    ``rng`` makes without it; with ``bonus_columns``, 3–8 of them lying sideways in one or two touching
    columns (:func:`_place_bonus_columns`). Raises RuntimeError when the crops cannot make a hand."""
    codes, chosen = pick_hand(rng, crops)
    bg_kind = str(rng.choice(BACKGROUNDS))
    canvas = background(rng, bg_kind, H, W)
    th = int(H * rng.uniform(0.1, 0.16))
    aspect = float(np.median([c.image.shape[1] / c.image.shape[0] for c in chosen]))
    tw = max(8, int(th * float(np.clip(aspect, 0.6, 0.9))))
    depth = int(th * rng.uniform(0.0, 0.25))
    back_rgb = [(30, 130, 70), (215, 45, 45), (235, 190, 40), (40, 90, 180), (240, 236, 222)][int(rng.integers(5))]
    gap = lambda: int(rng.integers(0, max(2, tw // 20)))  # noqa: E731
    n = len(codes)
    row_w = n * (tw + 1) + (tw // 2 if n == 14 else 0)
    while row_w > W * 0.92:  # the row fits the picture
        th, tw = int(th * 0.9), int(tw * 0.9)
        row_w = n * (tw + 1) + (tw // 2 if n == 14 else 0)
    x = int(rng.uniform(0.04 * W, max(0.04 * W + 1, W - row_w - 0.04 * W)))
    y = int(H * rng.uniform(0.45, 0.65))
    apart = n == 14 and rng.random() < 0.4
    others_codes: list[str] = []
    others_quads: list[np.ndarray] = []
    occupied = [(x - tw * 0.3, y - depth - tw * 0.3, x + row_w + tw * 0.3, y + th + tw * 0.3)]
    # behind the hand first (they are farther away): a second row and loose tiles, some turned
    if behind:
        rest = [c for c in crops if c not in chosen]
        if rng.random() < 0.5:
            s = float(rng.uniform(0.65, 0.85))
            k = int(rng.integers(5, 11))
            bx, by = int(rng.uniform(0, max(1, W - k * tw * s))), int(y - th * rng.uniform(1.8, 3.0))
            for j in range(k):
                c = rest[int(rng.integers(len(rest)))]
                spr, a = _tile_sprite(c.image, int(tw * s), int(th * s), back_rgb, int(depth * s))
                q = _paste(canvas, spr, a, bx + j * (int(tw * s) + 1), by)
                if q is not None:
                    others_codes.append(c.code)
                    others_quads.append(q)
        for j in range(int(rng.integers(2, 6))):
            for _try in range(10):
                c = rest[int(rng.integers(len(rest)))]
                spr, a = _tile_sprite(c.image, tw, th, back_rgb, 0)
                ang = float(rng.choice([0, 90, 180, -90])) + float(rng.normal(0, 8))
                lx = int(rng.uniform(x - tw, x + row_w))
                ly = int(y - th * rng.uniform(1.2, 2.0))
                bb = (lx - th * 0.3, ly - th * 0.3, lx + th * 1.3, ly + th * 1.3)
                if _overlaps(bb, occupied):
                    continue
                q = _paste(canvas, spr, a, lx, ly, ang)
                if q is not None:
                    occupied.append(bb)
                    others_codes.append(c.code)
                    others_quads.append(q)
                break
    kinds = []
    if clutter:
        kinds = [str(k) for k in rng.choice(CLUTTER_2D, int(rng.integers(2, 5)), replace=False)]
        for kind in kinds:
            for _try in range(15):
                spr, a = _clutter_sprite(rng, kind, th)
                h, w = spr.shape[:2]
                cx, cy = int(rng.uniform(-w * 0.2, W - w * 0.8)), int(rng.uniform(-h * 0.2, H - h * 0.8))
                bb = (cx, cy, cx + w, cy + h)
                if _overlaps(bb, occupied, th * 0.2):
                    continue
                _paste(canvas, spr, a, cx, cy, float(rng.uniform(-30, 30)))
                occupied.append(bb)
                break
    hand_quads = []
    x_start = x
    for j, c in enumerate(chosen):
        spr, a = _tile_sprite(c.image, tw, th, back_rgb, depth)
        if apart and j == n - 1:
            x += tw // 2
        q = _paste(canvas, spr, a, x, y - depth + int(rng.normal(0, th * 0.01)), float(rng.normal(0, 0.6)))
        hand_quads.append(q)
        x += tw + gap()
    codes = list(codes)
    if bonus_rng is not None:
        place = _place_bonus_columns if bonus_columns else _place_bonus
        for code, q in place(bonus_rng, canvas, crops, chosen, (x_start, y, x, tw, th, depth),
                             back_rgb, occupied, W, H):
            codes.append(code)
            hand_quads.append(q)
    if warp:
        ang = float(rng.uniform(-8, 8))
        jit = np.float32(rng.uniform(-0.05, 0.05, (4, 2)) * [W, H])
        src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        Mp = cv2.getPerspectiveTransform(src, src + jit)
        R = np.vstack([cv2.getRotationMatrix2D((W / 2, H / 2), ang, 1.0), [0, 0, 1]])
        M = R @ Mp
        canvas = cv2.warpPerspective(canvas, M, (W, H), borderMode=cv2.BORDER_REFLECT)
    else:
        ang, M = 0.0, np.eye(3)

    def boxes(quads):
        out = []
        for q in quads:
            p = cv2.perspectiveTransform(q.reshape(-1, 1, 2).astype(np.float64), M).reshape(-1, 2)
            out.append([max(p[:, 0].min(), 0), max(p[:, 1].min(), 0), min(p[:, 0].max(), W), min(p[:, 1].max(), H)])
        return np.array(out, np.float32).reshape(-1, 4)

    img = effects.lighting(canvas, rng)
    img = effects.camera(img, rng) if rng.random() < 0.7 else img
    info = {"background": bg_kind, "clutter": kinds, "turn_deg": round(ang, 1), "tile_px": [tw, th],
            "crops": [c.number for c in chosen], "loose": len(others_codes)}
    info["bonus"] = codes[n:]
    return Composite(img, codes, boxes(hand_quads), others_codes, boxes(others_quads), info)


def tilt_image(image: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) uint8 RGB turned ``degrees`` anticlockwise about its centre (``cv2.warpAffine``,
    bilinear) on a canvas grown to hold all of it, the corners filled by repeating the edge pixels (no
    tile is mirrored in), as a phone held askew takes the scene; with the (2, 3) float64 map of pixel
    coordinates, image → turned image."""
    from vision.pipeline import turn_matrix

    M, (nW, nH) = turn_matrix((image.shape[1], image.shape[0]), degrees)
    return cv2.warpAffine(image, M, (nW, nH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), M


def tilt_composite(c: Composite, degrees: float) -> Composite:
    """The composite as a phone held askew takes it (:func:`tilt_image`); each box becomes the upright
    box around its turned corners ((N, 4) float32 xyxy pixels of the new canvas).
    ``info["tilt_deg"]`` records the turn."""
    from vision.pipeline import map_boxes

    img, M = tilt_image(c.image, degrees)
    return Composite(img, list(c.hand_tiles), map_boxes(c.hand_boxes, M).astype(np.float32), list(c.other_tiles),
                     map_boxes(c.other_boxes, M).astype(np.float32), {**c.info, "tilt_deg": round(float(degrees), 1)})


def _pick_bonus(rng: np.random.Generator, crops: list[Crop], used: list[Crop], lo: int, hi: int) -> list[Crop]:
    """lo..hi−1 (at most as many as there are faces) flower/season photos of distinct faces, none of
    the photos ``used``; [] when there is none."""
    pool: dict[str, list[Crop]] = {}
    taken = {c.number for c in used}
    for c in crops:
        if c.code[1] in "fy" and c.number not in taken:
            pool.setdefault(c.code, []).append(c)
    faces = sorted(pool)
    k = min(int(rng.integers(lo, hi)), len(faces))
    if k == 0:
        return []
    return [pool[f][int(rng.integers(len(pool[f])))] for f in rng.choice(faces, k, replace=False)]


def _place_bonus(rng: np.random.Generator, canvas: np.ndarray, crops: list[Crop], used: list[Crop], row,
                 back_rgb, occupied: list, W: int, H: int) -> list[tuple[str, np.ndarray]]:
    """1–4 flower/season photos of distinct faces pasted as one touching group set apart from the hand
    row ``row`` = (x0, y, x1, tile w, tile h, depth): a tile's width past its right end, else before its
    left end, else a tile's height in front of it (the first place clear of ``occupied``; none: no
    bonus group). Returns (code, quad) per tile, left to right."""
    x0, y, x1, tw, th, depth = row
    picked = _pick_bonus(rng, crops, used, 1, 5)
    if not picked:
        return []
    k = len(picked)
    w = k * (tw + 1)
    for bx, by in ((x1 + tw, y), (x0 - tw - w, y), (x0, y + int(th * 1.4))):
        bb = (bx - tw * 0.2, by - depth, bx + w + tw * 0.2, by + th)
        if bx < 0.01 * W or bx + w > 0.99 * W or by + th > 0.99 * H or _overlaps(bb, occupied[1:]):
            continue
        out = []
        for j, c in enumerate(picked):
            spr, a = _tile_sprite(c.image, tw, th, back_rgb, depth)
            q = _paste(canvas, spr, a, bx + j * (tw + 1), by - depth, float(rng.normal(0, 0.6)))
            if q is not None:
                out.append((c.code, q))
        occupied.append(bb)
        return out
    return []


def _place_bonus_columns(rng: np.random.Generator, canvas: np.ndarray, crops: list[Crop], used: list[Crop], row,
                         back_rgb, occupied: list, W: int, H: int) -> list[tuple[str, np.ndarray]]:
    """3–8 flower/season photos of distinct faces pasted lying sideways (turned ±90°, one way for all)
    in one column, or two touching columns when there are more than four, beside the hand row ``row``
    = (x0, y, x1, tile w, tile h, depth): past its right end, before its left end, in front of it (at
    its right, left or middle) or behind it (the same) — the first place inside the picture and clear of
    ``occupied``; none: no bonus group. Issue 14's real photo of eight bonus tiles laid so. Returns
    (code, quad) per tile, column by column."""
    x0, y, x1, tw, th, depth = row
    picked = _pick_bonus(rng, crops, used, 3, 9)
    if not picked:
        return []
    k = len(picked)
    ncol = 2 if k > 4 else 1
    per = -(-k // ncol)
    gap = int(rng.integers(1, 4))
    colw = (ncol - 1) * (th + gap) + th  # a sideways tile is th wide and tw high
    colh = per * (tw + gap)
    ang = float(rng.choice([90.0, -90.0]))
    for left, top in ((x1 + tw * 0.8, y + th - colh), (x0 - tw * 0.8 - colw, y + th - colh),
                      (x1 - colw - tw, y + th * 1.4), (x0 + tw, y + th * 1.4),
                      ((x0 + x1 - colw) / 2, y + th * 1.4), (x1 - colw - tw, y - depth - th * 0.4 - colh),
                      (x0 + tw, y - depth - th * 0.4 - colh), ((x0 + x1 - colw) / 2, y - depth - th * 0.4 - colh)):
        bb = (left - 4, top - 4, left + colw + 4, top + colh + 4)
        if bb[0] < 0.01 * W or bb[2] > 0.99 * W or bb[1] < 0.01 * H or bb[3] > 0.99 * H or _overlaps(bb, occupied[1:]):
            continue
        out = []
        for j, c in enumerate(picked):
            col, r = divmod(j, per)
            cx, cy = left + col * (th + gap) + th / 2, top + r * (tw + gap) + tw / 2
            spr, a = _tile_sprite(c.image, tw, th, back_rgb, 0)
            q = _paste(canvas, spr, a, int(cx - tw / 2), int(cy - th / 2), ang + float(rng.normal(0, 1.5)))
            if q is not None:
                out.append((c.code, q))
        occupied.append(bb)
        return out
    return []
