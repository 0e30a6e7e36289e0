"""One synthetic photo: a tile set, a finished hand laid out on a table, distractors, camera, light.

:func:`render_scene` is a pure function of ``(seed, index)`` (plus options) and returns the image and
exact annotations; ``datasets/synth.py`` writes them to disk.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.classes import BACK, CLASS_INDEX, CLASS_NAMES

from . import effects, faces
from .hands import BONUS, Hand, full_set, random_hand, tile_sort_key
from .render import Body, Camera, Canvas, Light, draw_body, rot_x, rot_y, rot_z, shadow_polygons

DEG = math.pi / 180

BODY_COLORS = [(240, 236, 222), (246, 244, 236), (236, 228, 200), (228, 236, 222), (232, 240, 228), (244, 238, 214),
               (250, 250, 248), (226, 232, 210)]
BACK_COLORS = [(30, 130, 70), (20, 95, 55), (215, 45, 45), (190, 30, 40), (235, 190, 40), (235, 130, 40),
               (40, 90, 180), (25, 50, 120), (230, 130, 160), (200, 80, 140), (110, 60, 150), (30, 140, 140),
               (40, 40, 45), (235, 235, 230), (120, 200, 150), (150, 200, 230)]
SKIN = [(224, 180, 150), (200, 150, 120), (160, 110, 80), (110, 75, 55), (235, 200, 175)]


# ----------------------------------------------------------------------------- tile sets


class TileSet:
    """One physical tile set: art source/style, dimensions (mm) and colours; textures cached per code."""

    def __init__(self, rng: np.random.Generator, sources: dict[str, float], tex_w: int = 160,
                 style_split: str = "train"):
        names = sorted(sources)
        p = np.array([sources[n] for n in names], float)
        self.source = names[int(rng.choice(len(names), p=p / p.sum()))]
        self.style = int(rng.integers(128))
        wide = self.source == "wide"
        if wide:  # held-out style ids for validation renders (faces.wide_style_id)
            self.style = faces.wide_style_id(rng, style_split)
        self.w = float(rng.uniform(22, 30))
        self.h = self.w * float(rng.uniform(1.28, 1.45))
        self.d = self.w * float(rng.uniform(0.62, 0.9))
        self.face_frac = float(rng.uniform(0.5, 0.8))
        self.radius = self.w * float(rng.uniform(0.06, 0.16))
        dark = self.source == "fluffy-black"
        self.body_rgb = np.array((45, 45, 48) if dark else BODY_COLORS[rng.integers(len(BODY_COLORS))], float)
        if wide:
            self.body_rgb = np.array(faces.WIDE_BODY_COLORS[rng.integers(len(faces.WIDE_BODY_COLORS))], float)
            self.body_rgb = self.body_rgb + rng.normal(0, 10, 3)
        self.body_rgb = np.clip(self.body_rgb + rng.normal(0, 4, 3), 0, 255)
        self.back_rgb = np.clip(np.array(BACK_COLORS[rng.integers(len(BACK_COLORS))], float) + rng.normal(0, 12, 3), 0, 255)
        if rng.random() < 0.08:  # single-colour (e.g. jade-like) tiles
            self.back_rgb = self.body_rgb * rng.uniform(0.88, 0.98)
        self.side_rgb = self.body_rgb * 0.96
        self.tex_w = tex_w
        self.tex_h = int(round(tex_w * self.h / self.w))
        self.tex_r = self.radius / self.w * tex_w
        self.margin = float(rng.uniform(0.04, 0.13))
        self.art_scale = (float(rng.uniform(0.85, 1.08)), float(rng.uniform(0.9, 1.05)))
        self.art_shift = (float(rng.normal(0, 0.01)), float(rng.normal(0, 0.015)))
        self.bevel = float(rng.uniform(0.12, 0.35))
        self.gloss = float(rng.uniform(0.3, 1.3))
        self.ink = float(rng.uniform(0.85, 1.0))
        self.red_five = bool(rng.random() < 0.3)
        self._faces: dict[str, np.ndarray] = {}
        self._back: np.ndarray | None = None

    def has(self, code: str) -> bool:
        return faces.art(self.source, self.style, code) is not None

    def face(self, code: str) -> np.ndarray:
        """Face texture (tex_h, tex_w, 4) uint8 RGBA for a tile code."""
        t = self._faces.get(code)
        if t is None:
            variant = 1 if (self.red_five and code[0] == "5" and code[1] in "mps") else 0
            a = faces.art(self.source, self.style, code, variant)
            t = faces.compose_face(a, self.body_rgb, self.tex_w, self.tex_h, self.tex_r, self.margin, self.bevel,
                                   self.art_scale, self.art_shift, self.ink)
            self._faces[code] = t
        return t

    def back(self) -> np.ndarray:
        if self._back is None:
            self._back = faces.compose_back(self.back_rgb, self.tex_w, self.tex_h, self.tex_r, bevel=self.bevel)
        return self._back


# ----------------------------------------------------------------------------- placed tiles


@dataclass
class Placed:
    """A tile in the scene. code: its identity; shown: what the camera sees (code or "0x")."""

    code: str
    face_down: bool
    standing: bool
    inplane: float  # rad, rotation of the glyph in the face plane (0 upright, ±90 sideways, 180 upside-down)
    role: str = "distractor"
    row: int = -1
    group: int = -1
    body: Body | None = None

    @property
    def shown(self) -> str:
        return BACK if self.face_down else self.code

    @property
    def pose(self) -> str:
        if self.face_down:
            return "face-down"
        a = (round(math.degrees(self.inplane)) + 360) % 360
        if 45 < a < 135 or 225 < a < 315:
            return "sideways"
        if 135 <= a <= 225:
            return "upside-down"
        return "upright"


def tile_R(face_down: bool, standing: bool, lean: float, inplane: float, yaw: float) -> np.ndarray:
    """World rotation (3, 3) of a tile: columns are the world directions of u, v, n."""
    R = rot_z(inplane)
    if face_down:
        R = rot_y(math.pi) @ R
    if standing:
        R = rot_x(math.pi / 2 - lean) @ R
    return rot_z(yaw) @ R


def make_body(ts: TileSet, p: Placed, R: np.ndarray, xy, base_z: float = 0.0) -> Body:
    """A Body for placed tile ``p`` resting on z = base_z with its footprint centred at xy (2,)."""
    w, h, d = ts.w, ts.h, ts.d
    loc = np.array([[sx * w / 2, sy * h / 2, sz * d / 2] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    Xw = loc @ R.T
    c = np.array([xy[0] - (Xw[:, 0].min() + Xw[:, 0].max()) / 2, xy[1] - (Xw[:, 1].min() + Xw[:, 1].max()) / 2,
                  base_z - Xw[:, 2].min()])
    split = d / 2 - ts.face_frac * d
    face_tex = ts.face(p.code)
    return Body((w, h, d), R, c, split, (ts.side_rgb, ts.back_rgb), face_tex, ts.back(), ts.radius * 0.9,
                ts.gloss, {"placed": p})


def extents(ts: TileSet, R: np.ndarray) -> tuple[float, float, float, float]:
    """(xmin, xmax, ymin, ymax) mm of a tile's footprint for rotation R, relative to its footprint centre."""
    w, h, d = ts.w, ts.h, ts.d
    loc = np.array([[sx * w / 2, sy * h / 2, sz * d / 2] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    X = loc @ R.T
    cx, cy = (X[:, 0].min() + X[:, 0].max()) / 2, (X[:, 1].min() + X[:, 1].max()) / 2
    return X[:, 0].min() - cx, X[:, 0].max() - cx, X[:, 1].min() - cy, X[:, 1].max() - cy


def place_line(ts: TileSet, items: list[tuple[Placed, float, float]], x0: float, y_near: float,
               rng: np.random.Generator, jitter: float = 1.0) -> float:
    """Lay tiles left→right from x0 with their near edges on y_near.

    items: (placed tile, lean rad, gap mm after it). Sets ``placed.body``; returns the x after the last tile.
    """
    x = x0
    for p, lean, gap in items:
        yaw = rng.normal(0, 1.2 * DEG) * jitter
        R = tile_R(p.face_down, p.standing, lean, p.inplane, yaw)
        ex0, ex1, ey0, ey1 = extents(ts, R)
        cx = x - ex0
        cy = y_near - ey0 + rng.normal(0, 0.4) * jitter
        p.body = make_body(ts, p, R, (cx, cy))
        x = cx + ex1 + max(gap + rng.normal(0, 0.15) * jitter, 0.05)
    return x


# ----------------------------------------------------------------------------- the hand


@dataclass
class HandLayout:
    tiles: list[Placed] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    melds: list[dict] = field(default_factory=list)
    standing: bool = False
    lean: float = 0.0


def bonus_in_columns(ts: TileSet, bonus: list[Placed], others: list[Placed], rng: np.random.Generator) -> None:
    """Re-lay the ``bonus`` tiles lying flat and sideways (turned ±90° in the face plane) in one or two
    touching columns, right or left of, in front of or behind every tile of ``others``: a real photo of
    issue 14 showed eight bonus tiles laid so, which the detector boxed two at a time. Column-major
    order; gaps 0–0.6 mm between tiles. Sets each tile's ``inplane`` and ``body``."""
    n = len(bonus)
    ncol = 2 if n >= 4 and rng.random() < 0.75 else 1
    per = -(-n // ncol)
    turn = float(rng.choice([90.0, -90.0]))
    for p in bonus:
        p.inplane = (turn + float(rng.normal(0, 2))) * DEG
    pts = np.concatenate([p.body.corners() for p in others])
    x_min, x_max, y_min, y_max = pts[:, 0].min(), pts[:, 0].max(), pts[:, 1].min(), pts[:, 1].max()
    gx, gy = float(rng.uniform(0.0, 0.6)), float(rng.uniform(0.0, 0.6))
    width, depth = ncol * (ts.h + gx), per * (ts.w + gy)
    where = rng.choice(["right", "left", "front", "behind"], p=[0.35, 0.25, 0.2, 0.2])
    if where in ("right", "left"):
        x0 = x_max + float(rng.uniform(0.5, 2.5)) * ts.w if where == "right" else \
            x_min - float(rng.uniform(0.5, 2.5)) * ts.w - width
        y0 = y_min + float(rng.uniform(-0.5, 1.0)) * ts.w
    else:
        x0 = float(rng.uniform(x_min, max(x_min, x_max - width)))
        y0 = y_min - float(rng.uniform(0.5, 1.5)) * ts.w - depth if where == "front" else \
            y_max + float(rng.uniform(0.5, 1.5)) * ts.w
    for r in range(per):
        items = [(bonus[c * per + r], 0.0, gx) for c in range(ncol) if c * per + r < n]
        place_line(ts, items, x0, y0 + r * (ts.w + gy), rng, jitter=0.5)


def layout_hand(hand: Hand, ts: TileSet, rng: np.random.Generator, standing: bool | None = None,
                bonus_columns: np.random.Generator | None = None) -> HandLayout:
    """Place the hand's tiles on the table around the origin (concealed row, winning tile, melds, bonus).

    ``standing``: force the concealed row standing (True) or lying (False); None: random (40 % standing).
    ``bonus_columns``: lay two or more bonus tiles sideways in touching columns instead
    (:func:`bonus_in_columns`, drawing from this generator only: ``rng``'s draws are those without it).
    """
    L = HandLayout()
    L.standing = bool(rng.random() < 0.4)
    if standing is not None:
        L.standing = bool(standing)
    L.lean = float(rng.uniform(0, 25) * DEG) if L.standing else 0.0
    # concealed tiles in display order
    conc = list(hand.concealed)
    if rng.random() < 0.75 or not hand.concealed_groups:
        conc.sort(key=tile_sort_key)
    else:
        groups = [list(g) for g in hand.concealed_groups]
        rng.shuffle(groups)
        conc = [t for g in groups for t in g]
    win = hand.winning
    wmode = rng.choice(["apart", "sideways", "inrow"], p=[0.45, 0.35, 0.2]) if win else "none"
    if wmode in ("apart", "sideways"):
        idx = max(i for i, t in enumerate(conc) if t == win)
        conc.pop(idx)
    gap_touch = lambda: float(rng.uniform(0.0, 0.8))  # noqa: E731
    row_items = []
    conc_placed = []
    win_placed = None
    win_idx = None
    if wmode == "inrow":
        win_idx = max(i for i, t in enumerate(conc) if t == win)
    for i, t in enumerate(conc):
        p = Placed(t, False, L.standing, 0.0, role="concealed")
        if i == win_idx:
            p.role = "winning"
            win_placed = p
        conc_placed.append(p)
        row_items.append((p, L.lean, gap_touch()))
    x = place_line(ts, row_items, 0.0, 0.0, rng)
    if wmode == "inrow" and win_placed is not None:  # pushed toward the camera
        win_placed.body.center[1] -= ts.h * rng.uniform(0.25, 0.6) if not L.standing else ts.d * rng.uniform(1.0, 2.0)
    if wmode in ("apart", "sideways"):
        side = wmode == "sideways"
        stand = L.standing and not side and rng.random() < 0.5
        inpl = (90 * DEG if rng.random() < 0.7 else -90 * DEG) if side else 0.0
        win_placed = Placed(win, False, stand, inpl, role="winning")
        gap = float(rng.uniform(0.0, 0.4) * ts.w) if side else float(rng.uniform(0.25, 1.2) * ts.w)
        x = place_line(ts, [(win_placed, L.lean if stand else 0.0, 0.0)], x - row_items[-1][2] + gap,
                       0.0 if not L.standing else -(ts.h - ts.d) * 0.0, rng)
    row_far = max(p.body.corners()[:, 1].max() for p in conc_placed)
    row_near = min(p.body.corners()[:, 1].min() for p in conc_placed)
    # melds
    meld_items: list[list[Placed]] = []
    meld_meta = []
    for m in hand.melds:
        tiles = []
        n = len(m.tiles)
        if m.concealed_kong:
            outer = rng.random() < 0.5
            down = {0, 3} if outer else {1, 2}
            for k, t in enumerate(m.tiles):
                tiles.append(Placed(t, k in down, False, 0.0, role="exposed"))
        else:
            side_k = int(rng.integers(n)) if rng.random() < 0.25 else -1
            for k, t in enumerate(m.tiles):
                inpl = (90 * DEG if rng.random() < 0.8 else -90 * DEG) if k == side_k else 0.0
                tiles.append(Placed(t, False, False, inpl, role="exposed"))
        meld_items.append(tiles)
        meld_meta.append({"kind": m.kind, "tiles": list(m.tiles), "concealed": m.concealed_kong,
                          "seen": [p.shown for p in tiles]})
    bonus_tiles = [Placed(b, False, False, 0.0, role="bonus") for b in hand.bonus]
    meld_mode = rng.choice(["right", "line"], p=[0.35, 0.65]) if meld_items else "none"
    if L.standing and meld_mode == "line":
        line_y = row_near - float(rng.uniform(0.3, 1.5)) * ts.w - ts.h  # in front (closer to the camera)
    elif meld_mode == "line":
        if rng.random() < 0.6:
            line_y = row_far + float(rng.uniform(0.3, 1.5)) * ts.w
        else:
            line_y = row_near - float(rng.uniform(0.3, 1.5)) * ts.w - ts.h
    else:
        line_y = 0.0
    if meld_mode == "right":
        mx = x + float(rng.uniform(0.6, 2.0)) * ts.w
        my = 0.0 if not L.standing else row_near - 0.0
    else:
        start = rng.choice(["left", "right", "mid"])
        est = sum(len(t) for t in meld_items) * ts.w * 1.05 + len(meld_items) * ts.w
        mx = {"left": 0.0, "right": max(x - est, -ts.w * 3), "mid": float(rng.uniform(-2, 6)) * ts.w}[start]
        my = line_y
    for tiles in meld_items:
        items = [(p, 0.0, float(rng.uniform(0.0, 0.5))) for p in tiles]
        mx = place_line(ts, items, mx, my, rng) + float(rng.uniform(0.4, 1.6)) * ts.w
    # bonus tiles: after the melds, on their own line, or left of the concealed row
    if bonus_tiles:
        r = rng.random()
        items = [(p, 0.0, float(rng.uniform(0.0, 0.6))) for p in bonus_tiles]
        if meld_items and r < 0.4:
            place_line(ts, items, mx + float(rng.uniform(0.3, 1.5)) * ts.w, my, rng)
        elif r < 0.7:
            by = (row_far + float(rng.uniform(0.4, 1.8)) * ts.w) if not (meld_mode == "line" and line_y > 0) else \
                (row_near - float(rng.uniform(0.4, 1.8)) * ts.w - ts.h)
            if L.standing:
                by = min(by, row_near - ts.h - float(rng.uniform(0.4, 1.5)) * ts.w - (ts.h + ts.w if meld_mode == "line" else 0))
            place_line(ts, items, float(rng.uniform(-1, 4)) * ts.w, by, rng)
        else:
            est = len(bonus_tiles) * ts.w * 1.2
            place_line(ts, items, -est - float(rng.uniform(1.0, 2.5)) * ts.w, 0.0 if not L.standing else row_near, rng)
    not_bonus = conc_placed + ([win_placed] if wmode in ("apart", "sideways") else []) + \
        [p for ms in meld_items for p in ms]
    if bonus_columns is not None and len(bonus_tiles) >= 2:
        bonus_in_columns(ts, bonus_tiles, not_bonus, bonus_columns)
    # collect, rows and groups
    all_tiles = not_bonus + bonus_tiles
    gid = 0
    for p in conc_placed:
        p.group = gid
    if wmode in ("apart", "sideways"):
        gid += 1
        win_placed.group = gid
    for ms in meld_items:
        gid += 1
        for p in ms:
            p.group = gid
    if bonus_tiles:
        gid += 1
        for p in bonus_tiles:
            p.group = gid
    rows = [("concealed", conc_placed)]
    if wmode in ("apart", "sideways"):
        rows.append(("winning", [win_placed]))
    if meld_items:
        ms_sorted = sorted(zip(meld_items, meld_meta), key=lambda z: z[0][0].body.center[0])
        rows.append(("exposed", [p for ms, _ in ms_sorted for p in ms]))
        meld_meta = [m for _, m in ms_sorted]
    if bonus_tiles:
        rows.append(("bonus", bonus_tiles))
    for ri, (role, ps) in enumerate(rows):
        ps.sort(key=lambda p: p.body.center[0])
        for p in ps:
            p.row = ri
        entry = {"role": role, "tiles": [p.shown for p in ps]}
        if role == "winning":
            entry["pose"] = ps[0].pose
        L.rows.append(entry)
    L.melds = meld_meta
    # centre the hand on the origin and turn it a little
    pts = np.concatenate([p.body.corners() for p in all_tiles])
    c = np.array([(pts[:, 0].min() + pts[:, 0].max()) / 2, (pts[:, 1].min() + pts[:, 1].max()) / 2, 0.0])
    Rz = rot_z(float(rng.normal(0, 3) * DEG))
    for p in all_tiles:
        b = p.body
        b.center = (b.center - c) @ Rz.T
        b.R = Rz @ b.R
    L.tiles = all_tiles
    return L


# ----------------------------------------------------------------------------- distractors


def _free(rect, occupied) -> bool:
    x0, y0, x1, y1 = rect
    for a0, b0, a1, b1 in occupied:
        if x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1:
            return False
    return True


def _foot(bodies: list[Body], margin: float = 0.0):
    pts = np.concatenate([b.corners() for b in bodies])
    return (pts[:, 0].min() - margin, pts[:, 1].min() - margin, pts[:, 0].max() + margin, pts[:, 1].max() + margin)


def add_distractors(ts: TileSet, hand_tiles: list[Placed], pool: list[str], rng: np.random.Generator,
                    max_tiles: int = 48) -> tuple[list[Placed], list[Body]]:
    """Discards, walls, other players' hands, scattered tiles, racks and small props around the hand."""
    fx0, fy0, fx1, fy1 = _foot([p.body for p in hand_tiles])
    occupied = [(fx0 - 25, fy0 - 25, fx1 + 25, fy1 + 25)]
    out: list[Placed] = []
    props: list[Body] = []
    pool = list(pool)
    rng.shuffle(pool)

    def take():
        while pool:
            t = pool.pop()
            if ts.has(t):
                return t
        return "1m"

    def try_group(make, tries=6):
        for _ in range(tries):
            tiles, bodies = make()
            if not tiles and not bodies:
                return
            foot = _foot([p.body for p in tiles] + bodies, 4)
            if _free(foot, occupied):
                occupied.append(foot)
                out.extend(tiles)
                props.extend(bodies)
                return

    def region():
        if rng.random() < 0.7:
            return float(rng.uniform(fx0 - 350, fx1 + 150)), float(rng.uniform(fy1 + 50, fy1 + 450))
        side = rng.choice([-1, 1])
        return (float(fx1 + rng.uniform(60, 300)) if side > 0 else float(fx0 - rng.uniform(200, 450))), \
            float(rng.uniform(fy0 - 50, fy1 + 300))

    def pond():
        n = int(rng.integers(4, 20))
        per = 6
        rot = float(rng.choice([0, 180, 90, -90]) * DEG)
        x0, y0 = region()
        tiles = []
        for k in range(n):
            r, c = divmod(k, per)
            p = Placed(take(), rng.random() < 0.05, False, rot)
            R = tile_R(p.face_down, False, 0, rot, float(rng.normal(0, 3) * DEG))
            along = ts.w * 1.04 + rng.uniform(0, 1.5)
            cx, cy = c * along, -r * (ts.h * 1.05)
            if abs(math.sin(rot)) > 0.5:
                cx, cy = r * (ts.h * 1.05), c * along
            p.body = make_body(ts, p, R, (x0 + cx + rng.normal(0, 1), y0 + cy + rng.normal(0, 1)))
            tiles.append(p)
        return tiles, []

    def wall():
        n = int(rng.integers(3, 14))
        along_x = rng.random() < 0.6
        x0, y0 = region()
        tiles = []
        for k in range(n):
            for lvl in range(2 if rng.random() < 0.85 else 1):
                p = Placed(take(), True, False, 0.0)
                yaw = 0.0 if along_x else 90 * DEG
                R = tile_R(True, False, 0.0, float(rng.choice([0, 180]) * DEG), yaw + rng.normal(0, 1) * DEG)
                off = k * (ts.w + 0.3)
                xy = (x0 + off, y0) if along_x else (x0, y0 + off)
                p.body = make_body(ts, p, R, xy, base_z=lvl * ts.d)
                tiles.append(p)
        return tiles, []

    def other_hand():
        n = int(rng.integers(6, 15))
        facing = rng.choice(["far", "left", "right"])
        tiles = []
        x0, y0 = region()
        for k in range(n):
            p = Placed(take(), True, True, 0.0)
            yaw = {"far": 0.0, "left": -90 * DEG, "right": 90 * DEG}[facing]
            R = tile_R(True, True, float(rng.uniform(0, 10) * DEG), 0.0, yaw)
            off = k * (ts.w + 0.3)
            xy = (x0 + off, y0) if facing == "far" else (x0, y0 + off)
            p.body = make_body(ts, p, R, xy)
            tiles.append(p)
        return tiles, []

    def scattered():
        tiles = []
        for _ in range(int(rng.integers(2, 9))):
            x0, y0 = region()
            p = Placed(take(), rng.random() < 0.5, False, float(rng.uniform(0, 2 * math.pi)))
            R = tile_R(p.face_down, False, 0, p.inplane, 0.0)
            p.body = make_body(ts, p, R, (x0, y0))
            if _free(_foot([p.body], 3), occupied + [_foot([q.body], 3) for q in tiles]):
                tiles.append(p)
        return tiles, []

    def prop():
        x0, y0 = region()
        kind = rng.choice(["die", "stick", "coin", "phone", "rack"])
        col = tuple(float(v) for v in rng.uniform(20, 240, 3))
        if kind == "die":
            s = float(rng.uniform(10, 18))
            dims, col, rad = (s, s, s), (235, 235, 230), s * 0.15
        elif kind == "stick":
            dims, col, rad = (float(rng.uniform(60, 100)), float(rng.uniform(6, 10)), 3.0), (240, 240, 235), 2.0
        elif kind == "coin":
            s = float(rng.uniform(18, 40))
            dims, rad = (s, s, float(rng.uniform(2, 4))), s / 2 - 0.01
        elif kind == "phone":
            dims, col, rad = (float(rng.uniform(65, 80)), float(rng.uniform(140, 165)), 8.0), (25, 25, 30), 8.0
        else:
            dims, rad = (float(rng.uniform(250, 420)), float(rng.uniform(25, 45)), float(rng.uniform(12, 25))), 3.0
        R = rot_z(float(rng.uniform(0, 2 * math.pi))) if kind != "rack" else rot_z(float(rng.choice([0, 90])) * DEG)
        loc = np.array([[sx * dims[0] / 2, sy * dims[1] / 2, sz * dims[2] / 2] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) @ R.T
        c = np.array([x0, y0, -loc[:, 2].min()])
        b = Body(dims, R, c, -dims[2] / 2, (col, col), None, None, rad, 0.6, {"prop": kind})
        return [], [b]

    makers = [(pond, 0.55), (wall, 0.35), (other_hand, 0.25), (scattered, 0.3), (prop, 0.45), (prop, 0.2)]
    for mk, prob in makers:
        if rng.random() < prob and len(out) < max_tiles:
            try_group(mk)
    return out[: max_tiles + 20], props


# ----------------------------------------------------------------------------- camera, table


def fit_camera(rng: np.random.Generator, pts: np.ndarray, W: int, H: int, min_tilt: float = 0.0,
               span_range: tuple[float, float] | None = None, max_tilt_deg: float = 62.0,
               tilt_range: tuple[float, float] | None = None, hfov_range: tuple[float, float] = (50.0, 75.0),
               az_sd: float = 8.0, az_max: float = 22.0, top_limit_deg: float = 80.0) -> Camera:
    """A camera that frames the world points ``pts`` (N, 3) (the hand) with a random size and position.

    ``span_range`` (lo, hi): the points span a uniform fraction lo..hi of the image width (else the
    default mix 0.4–0.97 / 0.7–0.97); ``max_tilt_deg`` caps the camera tilt from straight down.
    Hard scenes (datasets/hard.py) also set ``tilt_range`` (degrees, uniform; else the default mix),
    ``hfov_range`` (horizontal field of view, degrees), the azimuth's spread ``az_sd`` and bound
    ``az_max`` (degrees) and ``top_limit_deg`` (the top image edge's ray at most this far from
    straight down); the defaults give the plain renders.
    """
    hfov = float(rng.uniform(*hfov_range) * DEG)
    f = W / 2 / math.tan(hfov / 2)
    vfov = 2 * math.atan(H / 2 / f)
    max_tilt = min(max_tilt_deg * DEG, top_limit_deg * DEG - vfov / 2)
    r = rng.random()
    if tilt_range is not None:
        tilt = rng.uniform(*tilt_range) * DEG
    elif r < 0.35:
        tilt = rng.uniform(0, 20) * DEG
    elif r < 0.75:
        tilt = rng.uniform(20, 45) * DEG
    else:
        tilt = rng.uniform(45, 62) * DEG
    tilt = float(np.clip(max(tilt, min_tilt), 0, max_tilt))
    az = float(np.clip(rng.normal(0, az_sd), -az_max, az_max) * DEG)
    roll = float(np.clip(rng.normal(0, 4), -12, 12) * DEG)
    target = np.array([(pts[:, 0].min() + pts[:, 0].max()) / 2, (pts[:, 1].min() + pts[:, 1].max()) / 2, 8.0])
    span = float(rng.uniform(0.4, 0.97)) if rng.random() < 0.3 else float(rng.uniform(0.7, 0.97))
    if span_range is not None:
        span = float(rng.uniform(*span_range))
    dist = 700.0
    for _ in range(4):
        cam = Camera.look_at(target, tilt, az, roll, dist, f, W, H)
        uv, _ = cam.project(pts)
        sw = (uv[:, 0].max() - uv[:, 0].min()) / W
        sh = (uv[:, 1].max() - uv[:, 1].min()) / H
        dist *= max(sw / span, sh / 0.85)
        dist = float(np.clip(dist, 150, 5000))
    for _ in range(10):
        cam = Camera.look_at(target, tilt, az, roll, dist, f, W, H)
        uv, _ = cam.project(pts)
        m = 0.015 * W
        lo_u, hi_u = m - uv[:, 0].min(), W - m - uv[:, 0].max()
        lo_v, hi_v = m - uv[:, 1].min(), H - m - uv[:, 1].max()
        if lo_u <= hi_u and lo_v <= hi_v:
            du = float(rng.uniform(lo_u, hi_u)) * 0.8 + 0.2 * (lo_u + hi_u) / 2
            dv = float(rng.uniform(lo_v, hi_v)) * 0.8 + 0.2 * (lo_v + hi_v) / 2
            return Camera.look_at(target, tilt, az, roll, dist, f, W, H, W / 2 + du, H / 2 + dv)
        dist *= 1.1
    return cam


def table_background(rng: np.random.Generator, cam: Camera, hand_foot, W: int, H: int, hard=None,
                     hrng: np.random.Generator | None = None) -> tuple[np.ndarray, list[Body], dict]:
    """Render the table plane (texture warped by the plane homography) → ((H, W, 3) uint8, rail bodies, info).

    ``hard`` (a :class:`datasets.hard.HardScene`, with its random stream ``hrng``): the scene's own
    surface (felt, desk, sill, patterned cloth) replaces the texture; automatic-table grooves for
    ``auto-table``; no rail on desks, beds and sills."""
    fx0, fy0, fx1, fy1 = hand_foot
    kind = str(rng.choice(["felt", "wood", "cloth", "auto"], p=[0.4, 0.15, 0.12, 0.33]))
    if hard is not None:
        kind = {"auto-table": "auto", "desk-keyboard": "wood"}.get(hard.kind, "felt" if kind == "auto" else kind)
    grid = np.array([[x, y] for x in np.linspace(0, W, 5) for y in np.linspace(0, H, 5)])
    P = cam.ray_to_plane(grid)
    x0, y0 = P.min(0) - 50
    x1, y1 = P.max(0) + 50
    area = (x1 - x0) * (y1 - y0)
    res = float(np.clip(math.sqrt(0.7e6 / max(area, 1.0)), 0.08, 1.2))
    tw, th = max(8, int((x1 - x0) * res)), max(8, int((y1 - y0) * res))
    tex, info = effects.table_texture(rng, th, tw, res, kind)
    if hard is not None:
        from .hard import surface_texture

        tex, info["surface"] = surface_texture(hrng, hard, th, tw, res, tex)
    origin = (x0, y0)
    base = tex[th // 2, tw // 2].astype(float)
    bodies: list[Body] = []
    y_edge = fy0 - float(rng.uniform(40, 260))
    if kind == "auto" or rng.random() < 0.3:
        lw = float(rng.uniform(2, 6))
        dark = tuple(float(v) for v in np.clip(base * rng.uniform(0.35, 0.7), 0, 255))
        lines = []
        for _ in range(int(rng.integers(1, 3))):
            a0, b0 = fx0 - rng.uniform(15, 120), fy0 - rng.uniform(10, 80)
            a1, b1 = fx1 + rng.uniform(15, 120), fy1 + rng.uniform(20, 160)
            lines += [(a0, b0, a1, b0), (a1, b0, a1, b1), (a1, b1, a0, b1), (a0, b1, a0, b0)]
        if rng.random() < 0.7:  # the central panel
            cx, cy, s = (fx0 + fx1) / 2 + rng.normal(0, 60), fy1 + rng.uniform(250, 450), rng.uniform(90, 150)
            effects.fill_world_rect(tex, (cx - s, cy - s, cx + s, cy + s), origin, res,
                                    tuple(float(v) for v in np.clip(base * rng.uniform(0.5, 1.3), 0, 255)))
            lines += [(cx - s, cy - s, cx + s, cy - s), (cx + s, cy - s, cx + s, cy + s), (cx + s, cy + s, cx - s, cy + s),
                      (cx - s, cy + s, cx - s, cy - s)]
        effects.draw_world_lines(tex, lines, origin, res, dark, lw)
    # the player's table edge: a rail, and beyond it the floor / a lap
    if rng.random() < 0.75 and (hard is None or hard.kind not in ("desk-keyboard", "bed-cover", "windowsill")):
        rail_w = float(rng.uniform(25, 90))
        floor = np.clip(rng.uniform(20, 120, 3), 0, 255)
        effects.fill_world_rect(tex, (x0 - 10, y0 - 10, x1 + 10, y_edge - rail_w), origin, res, tuple(float(v) for v in floor))
        rc = np.array(BACK_COLORS[rng.integers(len(BACK_COLORS))], float) if rng.random() < 0.3 else \
            np.array([(40, 40, 45), (70, 70, 75), (120, 80, 50), (230, 215, 220), (200, 200, 205)][rng.integers(5)], float)
        rh = float(rng.uniform(4, 35))
        xa, xb = min(x0, -2000), max(x1, 2000)
        b = Body((xb - xa, rail_w, rh), np.eye(3), np.array([(xa + xb) / 2, y_edge - rail_w / 2, rh / 2]), -rh / 2,
                 (rc, rc), None, None, 4.0, 0.8, {"prop": "rail"})
        bodies.append(b)
        info["edge"] = y_edge
    T = np.array([[1 / res, 0, x0], [0, 1 / res, y0], [0, 0, 1]])
    Hm = cam.plane_homography() @ T
    img = cv2.warpPerspective(tex, Hm, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    info["kind"] = kind
    return img, bodies, info


def draw_fingers(canvas: Canvas, rng: np.random.Generator, avoid: list, scale: float) -> bool:
    """A hand/fingers entering from the image border (image space), avoiding boxes ``avoid`` [(x0,y0,x1,y1)]."""
    H, W = canvas.H, canvas.W
    col = np.array(SKIN[rng.integers(len(SKIN))], float)
    side = rng.choice(["bottom", "left", "right", "top"], p=[0.5, 0.2, 0.2, 0.1])
    s = scale * rng.uniform(0.8, 1.4)
    if side == "bottom":
        base, direction = np.array([rng.uniform(0, W), H + s * 0.5]), np.array([rng.normal(0, 0.3), -1.0])
    elif side == "top":
        base, direction = np.array([rng.uniform(0, W), -s * 0.5]), np.array([rng.normal(0, 0.3), 1.0])
    elif side == "left":
        base, direction = np.array([-s * 0.5, rng.uniform(0, H)]), np.array([1.0, rng.normal(0, 0.3)])
    else:
        base, direction = np.array([W + s * 0.5, rng.uniform(0, H)]), np.array([-1.0, rng.normal(0, 0.3)])
    direction /= np.linalg.norm(direction)
    perp = np.array([-direction[1], direction[0]])
    shapes = [("ellipse", base, s * 1.2, s * 0.9)]
    for k in range(int(rng.integers(2, 5))):
        off = (k - 1.5) * s * 0.42
        ln = s * rng.uniform(1.2, 1.9)
        a = base + perp * off + direction * s * 0.3
        b = a + (direction + perp * rng.normal(0, 0.15)) * ln
        shapes.append(("finger", a, b, s * 0.36))
    mask = np.zeros((H, W), np.uint8)
    for sh in shapes:
        if sh[0] == "ellipse":
            ang = math.degrees(math.atan2(direction[1], direction[0]))
            cv2.ellipse(mask, (int(sh[1][0]), int(sh[1][1])), (int(sh[2]), int(sh[3])), ang, 0, 360, 255, -1, cv2.LINE_AA)
        else:
            cv2.line(mask, (int(sh[1][0]), int(sh[1][1])), (int(sh[2][0]), int(sh[2][1])), 255, int(sh[3]), cv2.LINE_AA)
    ys, xs = np.nonzero(mask > 127)
    if len(xs) == 0:
        return False
    bb = (xs.min(), ys.min(), xs.max(), ys.max())
    for a in avoid:
        if bb[0] < a[2] + 8 and a[0] - 8 < bb[2] and bb[1] < a[3] + 8 and a[1] - 8 < bb[3]:
            return False
    sh_off = (int(s * 0.15), int(s * 0.2))
    pad = int(s * 0.6) + 4
    X0, Y0 = max(int(bb[0]) - pad, 0), max(int(bb[1]) - pad, 0)
    X1, Y1 = min(int(bb[2]) + pad, W), min(int(bb[3]) + pad, H)
    m = mask[Y0:Y1, X0:X1].astype(np.float32) / 255.0
    shadow = np.roll(np.roll(m, sh_off[0], 1), sh_off[1], 0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), s * 0.15 + 1)[..., None]
    roi = canvas.rgb[Y0:Y1, X0:X1]
    f = roi.astype(np.float32) * (1 - 0.4 * shadow)
    shade = cv2.GaussianBlur(m, (0, 0), s * 0.25 + 1)[..., None]
    skin = col[None, None, :] * (0.75 + 0.35 * shade)
    m = m[..., None]
    f = f * (1 - m) + skin * m
    roi[:] = np.clip(f, 0, 255).astype(np.uint8)
    canvas.ids[mask > 127] = 0
    return True


# ----------------------------------------------------------------------------- the whole scene


@dataclass
class RenderedTile:
    placed: Placed
    xyxy: tuple[float, float, float, float]
    visible: float
    truncated: bool
    quad: list | None


@dataclass
class Scene:
    image: np.ndarray  # (H, W, 3) uint8 RGB, after photo effects (before the final JPEG encode)
    tiles: list[RenderedTile]
    hand: Hand | None
    rows: list[dict]
    melds: list[dict]
    info: dict
    jpeg_quality: int


def _sources_for(rng, sources):
    return sources


#: tile art sources drawn with a CJK font (:func:`datasets.faces.cjk_fonts`)
FONT_SOURCES = ("proc", "wide")


def render_scene(seed: int, index: int, W: int = 1280, H: int = 960, sources: dict[str, float] | None = None,
                 crops_only: bool = False, close: bool = False,
                 span: tuple[float, float] | None = None, tileset: "TileSet | None" = None,
                 grid: "list[list[str]] | None" = None, style_split: str = "train", hard=None,
                 bonus_columns: float = 0.0) -> Scene:
    """Render synthetic photo number ``index`` of run ``seed`` (a pure function of its arguments).

    crops_only: instead of a hand, lay out a grid of ~30 tiles with class-balanced identities and
    every pose (for the classifier); ``hand`` is then None.
    close (with crops_only): a small grid (6–15 tiles, 3–5 per row) filling 75–97 % of the width, so
    faces are large and sharp like close-up photos; lying tiles seen from 0–35° tilt, standing tiles
    leaning back 8–25° and seen from 45–62° (nearly head-on faces).
    span (hands): with probability 0.8 the concealed row + winning tile span a uniform fraction
    span[0]..span[1] of the image width (melds or bonus tiles further out may be cut by the border),
    like phone photos of one hand; else the default framing of the whole hand.
    tileset: draw this set's tiles instead of a random set (the same physical set in several renders;
    the random draws are made all the same, so the rest of the scene does not change).
    grid (with crops_only): these codes instead, row by row, face up, upright and lying flat, seen
    from at most 30° tilt — a calibration photo (``mahjong-score calibrate``).
    style_split: ``val`` draws ``wide`` tile sets from the held-out style ids (``faces.wide_style_id``);
    it changes nothing for the other sources.
    hard (hands): a :class:`datasets.hard.HardScene` — one of the hard scene kinds (low seat view,
    automatic table, desk with keyboard, bed cover, windowsill, four hands, rows of 9, heavy
    perspective, tiles behind the row) with clutter objects; None (the default) renders exactly what
    the plain generator renders. ``info["hard"]`` names the kind and clutter.
    bonus_columns (hands, when the tile set has bonus tiles): this share of the renders get a hand with
    2–8 bonus tiles laid sideways in touching columns (:func:`bonus_in_columns`), drawn from a generator
    of their own (seed, index, 4141); 0 (the default) renders exactly what it rendered before.
    """
    rng = np.random.default_rng([int(seed), int(index), 20240])
    hr = None
    if hard is not None:
        from . import hard as hardmod

        hr = hardmod.hard_rng(seed, index)
    if sources is None:
        sources = faces.available_sources()
    if not sources:
        raise RuntimeError("no tile art: install a CJK font (fonts-wqy-zenhei ...) or provide ../shared")
    font_art = [s for s in ([tileset.source] if tileset is not None else sources) if s in FONT_SOURCES]
    if font_art and not faces.cjk_fonts():
        # (without a font, faces.art gives no face: a new user's calibration photos rendered blank tiles)
        raise faces.NoFontError(f"no CJK font for the procedural tile faces ({font_art[0]}): "
                           f"install one (apt-get install fonts-wqy-zenhei) or set $MAHJONG_CJK_FONTS")
    ts = TileSet(rng, sources, style_split=style_split)
    if tileset is not None:
        ts = tileset
    hand = None
    L = HandLayout()
    frame_pts, span_range, max_tilt_deg = None, None, 62.0
    if crops_only:
        tiles = _crop_grid(ts, rng, index, close=close) if grid is None else _layout_grid(ts, rng, grid)
        min_tilt = 0.0
        L.tiles = tiles
        if grid is not None:
            max_tilt_deg = 30.0
        if close:
            span_range = (0.75, 0.97)
            L.standing = any(p.standing for p in tiles)
            min_tilt, max_tilt_deg = (45 * DEG, 62.0) if L.standing else (0.0, 35.0)
    else:
        allow_bonus = ts.has("1f")
        hand = random_hand(rng, allow_bonus=allow_bonus)
        if hard is not None and hard.hand is not None:
            hand = hard.hand
        brng = None
        if bonus_columns > 0 and allow_bonus and (hard is None or hard.hand is None):
            brng = np.random.default_rng([int(seed), int(index), 4141])
            if brng.random() < bonus_columns:
                nb = int(brng.integers(2, 9))
                hand.bonus = sorted((BONUS[i] for i in brng.choice(8, nb, replace=False)), key=tile_sort_key)
            else:
                brng = None
        L = layout_hand(hand, ts, rng, standing=None if hard is None else hardmod.standing_for(hard),
                        bonus_columns=brng)
        if hard is not None and hard.kind == "rows-of-9":
            _rows_of_nine(ts, L, hr)
        tiles = L.tiles
        min_tilt = max(0.0, 32 * DEG - L.lean) if L.standing else 0.0
        if span is not None and rng.random() < 0.8:
            span_range = span
            frame_pts = np.concatenate([p.body.corners() for p in tiles if p.role in ("concealed", "winning")])
    cam_kw = {} if hard is None else hardmod.camera_opts(hard)
    if "span_range" in cam_kw:  # the whole hand (melds and bonus tiles too) spans that share of the width
        frame_pts = np.concatenate([p.body.corners() for p in tiles])
    hand_pts = np.concatenate([p.body.corners() for p in tiles])
    if hard is not None:
        extra = hardmod.frame_points(hard, ts.w, ts.h, hand_pts)
        if extra is not None:
            frame_pts = np.concatenate([hand_pts, extra])
    cam_kw.setdefault("span_range", span_range)
    cam_kw.setdefault("max_tilt_deg", max_tilt_deg)
    cam = fit_camera(rng, hand_pts if frame_pts is None else frame_pts, W, H, min_tilt, **cam_kw)
    foot = _foot([p.body for p in tiles])
    distract, props = ([], [])
    if not crops_only:
        pool = full_set()
        for t in hand.all_tiles() + hand.bonus:
            pool.remove(t)
        if hard is None or hard.distractors:
            distract, props = add_distractors(ts, tiles, pool, rng)
        if hard is not None:
            for p in distract:
                if p.code in pool:
                    pool.remove(p.code)
            d2, p2 = _hard_extras(ts, tiles, distract, props, pool, hard, hr)
            distract, props = distract + d2, props + p2
    bg, rails, tinfo = table_background(rng, cam, foot, W, H, hard, hr)
    if hard is not None:
        far = max([b.corners()[:, 1].max() for b in [p.body for p in tiles + distract] + props] + [foot[3]])
        bg = hardmod.backdrop(bg, cam, hr, hard, far + float(hr.uniform(60, 250)))
    canvas = Canvas(bg)
    # light
    el = float(rng.uniform(35, 85) * DEG)
    az = float(rng.uniform(0, 2 * math.pi))
    light = Light(np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]),
                  ambient=float(rng.uniform(0.5, 0.75)), diffuse=float(rng.uniform(0.25, 0.5)),
                  specular=float(rng.uniform(0.0, 0.45)), shininess=float(rng.uniform(8, 40)))
    all_tiles = tiles + distract
    bodies = [p.body for p in all_tiles] + props + rails
    # shadows on the table
    uv_hand, _ = cam.project(hand_pts)
    tile_px = max((uv_hand[:, 0].max() - uv_hand[:, 0].min()) / max(len(tiles), 1), 8.0)
    if not np.isfinite(tile_px) or tile_px > W:  # a hand corner behind the camera: a typical tile width
        tile_px = 40.0
    smask = np.zeros((H // 2, W // 2), np.uint8)
    for poly in shadow_polygons(bodies, light, cam):
        cv2.fillConvexPoly(smask, np.round(poly * 8).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    sig = tile_px * float(rng.uniform(0.03, 0.15)) + 0.5
    smask = cv2.GaussianBlur(smask, (0, 0), sig)
    smask = cv2.resize(smask, (W, H), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    strength = float(rng.uniform(0.2, 0.55))
    canvas.rgb[:] = (canvas.rgb.astype(np.float32) * (1 - strength * smask[..., None])).astype(np.uint8)
    # draw far to near
    order = sorted(range(len(bodies)), key=lambda i: -np.linalg.norm(bodies[i].center - cam.C))
    hulls = {}
    n_tiles = len(all_tiles)
    for i in order:
        hull = draw_body(canvas, bodies[i], cam, light, i + 1 if i < n_tiles else 30000 + i)
        if hull is not None and i < n_tiles:
            hulls[i] = hull
    # hand boxes to keep clear of fingers
    avoid = []
    for i, p in enumerate(tiles):
        if i in hulls:
            h = hulls[i]
            avoid.append((h[:, 0].min(), h[:, 1].min(), h[:, 0].max(), h[:, 1].max()))
    if not crops_only and rng.random() < 0.25:
        draw_fingers(canvas, rng, avoid, tile_px * 1.2)
    # measure visibility → labels
    rendered = []
    img_rect = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    for i, p in enumerate(all_tiles):
        hull = hulls.get(i)
        if hull is None:
            continue
        full = float(cv2.contourArea(hull.astype(np.float32)))
        if full < 4:
            continue
        inter, _ = cv2.intersectConvexConvex(hull.astype(np.float32), img_rect)
        x0, y0 = np.floor(hull.min(0)).astype(int)
        x1, y1 = np.ceil(hull.max(0)).astype(int) + 1
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            continue
        sub = canvas.ids[y0:y1, x0:x1] == (i + 1)
        cnt = int(sub.sum())
        if cnt == 0:
            continue
        vis = min(1.0, cnt / full)
        truncated = inter < 0.98 * full
        if p.role == "distractor" and (vis < 0.4 or cnt < 60):
            continue
        ys, xs = np.nonzero(sub)
        box = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))
        caps = p.body.info.get("caps", {})
        q = caps.get("back" if p.face_down else "face")
        rendered.append(RenderedTile(p, box, vis, bool(truncated), None if q is None else np.round(q, 1).tolist()))
    img = effects.lighting(canvas.rgb, rng)
    if hard is not None and hard.kind == "windowsill":
        img = hardmod.backlight(img, hr)
    img = effects.camera(img, rng)
    q = int(rng.integers(55, 96))
    info = {"table": tinfo.get("kind"), "source": ts.source, "style": ts.style, "standing": L.standing,
            "tilt_deg": None, "back_rgb": [round(float(v)) for v in ts.back_rgb]}
    if hard is not None:
        info["hard"] = {"kind": hard.kind, "clutter": list(hard.clutter), "split": hard.split,
                        "surface": tinfo.get("surface"), "tilt_deg": round(math.degrees(math.acos(
                            float(np.clip(-cam.R[2, 2], -1, 1)))), 1)}
    return Scene(img, rendered, hand, L.rows, L.melds, info, q)


def _rows_of_nine(ts: TileSet, L: HandLayout, rng: np.random.Generator) -> None:
    """Hard scene ``rows-of-9``: the concealed row's tiles after the ninth move to a second row in front
    (closer to the camera), left-aligned under the first; the layout's rows say so."""
    conc = sorted([p for p in L.tiles if p.row == 0], key=lambda p: p.body.center[0])
    if len(conc) <= 9:
        return
    pitch = (conc[-1].body.center[0] - conc[0].body.center[0]) / (len(conc) - 1)
    x0 = conc[0].body.center[0]
    second = conc[9:]
    dy = -(ts.h * float(rng.uniform(1.15, 1.6)) + (ts.d if L.standing else 0.0))
    for k, p in enumerate(second):
        p.body.center = p.body.center + np.array([x0 + k * pitch - p.body.center[0], dy, 0.0])
    for p in L.tiles:  # rows after the first move down by one
        if p.row > 0:
            p.row += 1
    for p in second:
        p.row = 1
    first = L.rows[0]
    L.rows[0] = {**first, "tiles": [p.shown for p in conc[:9]]}
    L.rows.insert(1, {**first, "tiles": [p.shown for p in second]})


def _hard_extras(ts: TileSet, hand_tiles: list[Placed], distract: list[Placed], props: list[Body], pool: list[str],
                 hard, rng: np.random.Generator) -> tuple[list[Placed], list[Body]]:
    """The tiles and clutter a hard scene adds around the hand: loose tiles behind the row, walls
    behind (low seat view), the other three hands, walls and discards (four hands), clutter objects."""
    from . import hard as hardmod

    pool = [t for t in pool if ts.has(t)]
    rng.shuffle(pool)

    def take():
        return pool.pop() if pool else "1m"

    occupied = [_foot([p.body], 2) for p in hand_tiles + distract] + [hardmod.foot([b]) for b in props]
    hf = _foot([p.body for p in hand_tiles])
    row = [p for p in hand_tiles if p.row == 0]
    rf = _foot([p.body for p in row]) if row else hf
    tiles: list[Placed] = []
    bodies: list[Body] = []
    n_behind = hard.behind if hard.behind is not None else (int(rng.integers(3, 6)) if hard.kind == "tiles-behind" else 0)
    for _ in range(n_behind):  # loose tiles lying just behind the hand row
        for _try in range(30):
            inpl = float(rng.choice([0.0, 0.0, 90.0, -90.0, 180.0])) * DEG + float(rng.normal(0, 6)) * DEG
            p = Placed(take(), bool(rng.random() < 0.15), False, inpl)
            R = tile_R(p.face_down, False, 0.0, inpl, float(rng.normal(0, 5)) * DEG)
            xy = (float(rng.uniform(rf[0], rf[2])), rf[3] + float(rng.uniform(0.7, 2.2)) * ts.h)
            p.body = make_body(ts, p, R, xy)
            f = _foot([p.body], 1.5)
            if _free(f, occupied):
                occupied.append(f)
                tiles.append(p)
                break
            pool.insert(0, p.code)
    if hard.kind in ("seat-low", "four-hands"):
        def wall_line(x0, y0, n, along_x, two=True):
            out = []
            for k in range(n):
                for lvl in range(2 if two else 1):
                    p = Placed(take(), True, False, 0.0)
                    R = tile_R(True, False, 0.0, float(rng.choice([0, 180]) * DEG),
                               (0.0 if along_x else 90 * DEG) + float(rng.normal(0, 0.8)) * DEG)
                    off = k * (ts.w + 0.4)
                    p.body = make_body(ts, p, R, (x0 + off, y0) if along_x else (x0, y0 + off), base_z=lvl * ts.d)
                    out.append(p)
            return out

        cx = (hf[0] + hf[2]) / 2
        if hard.kind == "seat-low":
            n = int(rng.integers(9, 18))
            y = hf[3] + float(rng.uniform(25, 90))
            tiles += wall_line(cx - n * ts.w / 2 + float(rng.normal(0, 20)), y, n, True)
            if rng.random() < 0.6:  # a side wall
                side = float(rng.choice([-1, 1]))
                x = (hf[2] + float(rng.uniform(40, 120))) if side > 0 else (hf[0] - float(rng.uniform(40, 120)))
                tiles += wall_line(x, y + ts.h * 1.5, int(rng.integers(6, 15)), False)
            y_far = y + ts.h * 2 + float(rng.uniform(30, 120))
            for k in range(int(rng.integers(6, 19))):  # discards beyond the wall
                r, c = divmod(k, 6)
                p = Placed(take(), False, False, float(rng.choice([0, 180])) * DEG)
                R = tile_R(False, False, 0.0, p.inplane, float(rng.normal(0, 2)) * DEG)
                p.body = make_body(ts, p, R, (cx - 3 * ts.w + c * ts.w * 1.04, y_far + r * ts.h * 1.05))
                tiles.append(p)
        else:  # four hands around a square table: walls, discards, the other players' rows
            S = 17 * (ts.w + 0.4)
            cy = hf[3] + S / 2 + float(rng.uniform(60, 120))
            half = S / 2
            tiles += wall_line(cx - half, cy - half, 17, True)
            tiles += wall_line(cx - half, cy + half, 17, True)
            tiles += wall_line(cx - half - ts.h, cy - half + ts.w, 16, False)
            tiles += wall_line(cx + half + ts.h * 0.2, cy - half + ts.w, 16, False)
            for k in range(int(rng.integers(8, 30))):  # discards in the middle, facing their players
                r, c = divmod(k // 4, 6)
                q = k % 4
                p = Placed(take(), False, False, float(q * 90) * DEG)
                R = tile_R(False, False, 0.0, p.inplane, float(rng.normal(0, 2)) * DEG)
                off = np.array([(c - 2.5) * ts.w * 1.04, -half * 0.35 - r * ts.h * 1.05])
                xy = np.array([cx, cy]) + rot_z(q * 90 * DEG)[:2, :2] @ off
                p.body = make_body(ts, p, R, (float(xy[0]), float(xy[1])))
                tiles.append(p)
            for side, yaw in (("far", 180 * DEG), ("left", -90 * DEG), ("right", 90 * DEG)):
                n = 13 if rng.random() < 0.8 else 16
                open_hand = rng.random() < 0.25  # a hand laid open, face up
                for k in range(n):
                    off = (k - n / 2) * (ts.w + 0.4)
                    p = Placed(take(), not open_hand, not open_hand, 0.0)
                    R = tile_R(p.face_down, p.standing, float(rng.uniform(0, 10)) * DEG, 0.0, yaw)
                    d = half + ts.h * 2.2
                    xy = {"far": (cx - off, cy + d), "left": (cx - d, cy + off), "right": (cx + d, cy - off)}[side]
                    p.body = make_body(ts, p, R, xy)
                    tiles.append(p)
    occupied += [_foot([p.body], 2) for p in tiles]
    kinds = list(hard.clutter)
    if hard.kind == "desk-keyboard" and "keys" not in kinds:
        kinds.insert(0, "keys")
    if hard.kind == "auto-table" and "auto-parts" not in kinds:
        kinds.append("auto-parts")
    bodies += hardmod.place_clutter(rng, kinds, hf, occupied, ts.w, near=0.5 if hard.kind != "four-hands" else 0.4)
    return tiles, bodies


def _crop_grid(ts: TileSet, rng: np.random.Generator, index: int, close: bool = False) -> list[Placed]:
    """~24–40 tiles in rows, identities cycling through all 43 classes, random poses
    (``close``: 6–15 tiles, 3–5 per row, standing ones leaning back 8–25°)."""
    n = int(rng.integers(6, 16) if close else rng.integers(24, 41))
    codes = [CLASS_NAMES[(index * 37 + k) % len(CLASS_NAMES)] for k in range(n)]
    rng.shuffle(codes)
    standing = bool(rng.random() < 0.35)
    per_row = int(rng.integers(3, 6) if close else rng.integers(6, 11))
    tiles = []
    y = 0.0
    for r0 in range(0, n, per_row):
        items = []
        for code in codes[r0:r0 + per_row]:
            fd = code == BACK
            ident = CLASS_NAMES[int(rng.integers(34))] if fd else code
            if not ts.has(ident):
                ident = CLASS_NAMES[int(rng.integers(34))]
            u = rng.random()
            inpl = 0.0 if u < 0.6 else (float(rng.choice([90, -90])) * DEG if u < 0.85 else math.pi)
            st = standing and not fd and abs(inpl) < 1e-6
            p = Placed(ident, fd, st, inpl, role="concealed")
            lean = float(rng.uniform(8, 25) if close else rng.uniform(0, 20)) * DEG if st else 0.0
            items.append((p, lean, float(rng.uniform(0, 0.4) * ts.w)))
            tiles.append(p)
        place_line(ts, items, 0.0, y, rng)
        y += ts.h * float(rng.uniform(1.1, 1.6)) + (ts.h if standing else 0)
    return tiles


def _layout_grid(ts: TileSet, rng: np.random.Generator, rows: list[list[str]]) -> list[Placed]:
    """The given rows of codes face up, upright, lying flat, left to right, rows from far to near
    (the first row is the top one in the photo)."""
    tiles = []
    y = 0.0
    for r, codes in enumerate(reversed(rows)):
        items = []
        for code in codes:
            p = Placed(code, False, False, 0.0, role="concealed", row=len(rows) - 1 - r)
            items.append((p, 0.0, float(rng.uniform(0.05, 0.3) * ts.w)))
        place_line(ts, items, 0.0, y, rng)
        tiles = [p for p, _, _ in items] + tiles
        y += ts.h * float(rng.uniform(1.15, 1.4))
    return tiles


def tile_record(t: RenderedTile) -> dict:
    """The per-tile JSON record of the meta file."""
    p = t.placed
    rec = {"tile": p.shown, "class": CLASS_INDEX[p.shown], "xyxy": [round(v, 1) for v in t.xyxy], "quad": t.quad,
           "pose": p.pose, "standing": p.standing, "row": p.row, "group": p.group, "role": p.role,
           "truncated": t.truncated, "visible": round(t.visible, 3)}
    if p.face_down:
        rec["identity"] = p.code
    return rec
