"""A tiny perspective renderer for tiles as 3-D bodies, written with OpenCV polygon fills and warps.

World frame: millimetres, table plane z = 0, x to the right of the player, y away from the player,
z up. A tile is a rounded box in its local frame (u across the face, v up the glyph, n out of the face),
made of two slabs: the face layer (ivory, n from ``split`` to +d/2) and the back layer (coloured,
n from −d/2 to ``split``). Visible side quads are flat-shaded; the face and back caps are textures
warped with a homography. Objects are drawn back to front (painter's algorithm); an id map records
which object owns each pixel so that visible boxes and occlusion can be measured exactly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], np.float64)


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], np.float64)


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


@dataclass
class Camera:
    """Pinhole camera. K: (3, 3) intrinsics in pixels; R: (3, 3) world→camera rotation (OpenCV axes:
    x right, y down, z forward); C: (3,) camera centre in world mm; W, H: image size in pixels."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray
    W: int
    H: int

    @staticmethod
    def look_at(target, tilt: float, azimuth: float, roll: float, dist: float, f: float, W: int, H: int,
                cx: float | None = None, cy: float | None = None) -> "Camera":
        """Camera ``dist`` mm from ``target`` (3,), tilted ``tilt`` rad from straight down, on the
        player's side turned by ``azimuth`` rad, rolled by ``roll`` rad; focal length f pixels."""
        st, ct = math.sin(tilt), math.cos(tilt)
        sp, cp = math.sin(azimuth), math.cos(azimuth)
        C = np.asarray(target, np.float64) + dist * np.array([st * sp, -st * cp, ct])
        fwd = (np.asarray(target, np.float64) - C)
        fwd /= np.linalg.norm(fwd)
        r = np.array([cp, sp, 0.0])
        d = np.cross(fwd, r)
        cr, sr = math.cos(roll), math.sin(roll)
        r2, d2 = r * cr + d * sr, -r * sr + d * cr
        R = np.stack([r2, d2, fwd])
        K = np.array([[f, 0, W / 2 if cx is None else cx], [0, f, H / 2 if cy is None else cy], [0, 0, 1]])
        return Camera(K, R, C, W, H)

    def to_cam(self, X: np.ndarray) -> np.ndarray:
        """(N, 3) world mm → (N, 3) camera coordinates mm."""
        return (X - self.C) @ self.R.T

    def project(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) world mm → ((N, 2) float64 pixel xy, (N,) depth mm)."""
        Xc = self.to_cam(X)
        z = Xc[:, 2]
        zz = np.maximum(z, 1e-6)
        u = self.K[0, 0] * Xc[:, 0] / zz + self.K[0, 2]
        v = self.K[1, 1] * Xc[:, 1] / zz + self.K[1, 2]
        return np.stack([u, v], 1), z

    def plane_homography(self) -> np.ndarray:
        """(3, 3) homography from table-plane (x, y) mm (z = 0) to pixels."""
        t = -self.R @ self.C
        return self.K @ np.stack([self.R[:, 0], self.R[:, 1], t], 1)

    def ray_to_plane(self, uv: np.ndarray, max_dist: float = 4000.0) -> np.ndarray:
        """(N, 2) pixels → (N, 2) table-plane xy mm where the rays meet z = 0 (clamped to max_dist)."""
        Kinv = np.linalg.inv(self.K)
        rays = np.c_[uv, np.ones(len(uv))] @ Kinv.T @ self.R  # world directions
        out = []
        for r in rays:
            r = r / np.linalg.norm(r)
            if r[2] < -1e-3:
                t = -self.C[2] / r[2]
                p = self.C + t * r
                d = np.hypot(p[0] - self.C[0], p[1] - self.C[1])
                if d > max_dist:
                    p = self.C + r * (max_dist / max(np.hypot(r[0], r[1]), 1e-6))
            else:
                p = self.C + r * (max_dist / max(np.hypot(r[0], r[1]), 1e-6))
            out.append(p[:2])
        return np.array(out)


@dataclass
class Light:
    """Directional light. direction: (3,) unit vector from surfaces toward the light; ambient, diffuse,
    specular: intensities; shininess: Phong exponent."""

    direction: np.ndarray
    ambient: float = 0.55
    diffuse: float = 0.5
    specular: float = 0.25
    shininess: float = 18.0


@dataclass
class Body:
    """A rounded box (tile or prop) placed in the world.

    dims: (w, h, d) mm along local (u, v, n); R: (3, 3) columns are the world directions of u, v, n;
    center: (3,) world mm; split: n coordinate separating the back slab (below) from the face slab;
    colors: (face-slab side RGB, back-slab side RGB) 0..255; face_tex / back_tex: (h, w, 4) uint8 RGBA
    textures for the +n and −n caps (None → flat side colour); radius: corner radius mm (u-v plane).
    """

    dims: tuple[float, float, float]
    R: np.ndarray
    center: np.ndarray
    split: float
    colors: tuple
    face_tex: np.ndarray | None = None
    back_tex: np.ndarray | None = None
    radius: float = 2.0
    gloss: float = 1.0
    info: dict = field(default_factory=dict)

    def corners(self) -> np.ndarray:
        """(8, 3) world mm corners of the bounding box."""
        w, h, d = self.dims
        loc = np.array([[sx * w / 2, sy * h / 2, sz * d / 2] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        return self.center + loc @ self.R.T


def outline(w: float, h: float, r: float, k: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Rounded-rectangle outline in the u-v plane, counter-clockwise.

    Returns ((M, 2) points mm, (M, 2) outward unit normals of the edges from point i to i+1).
    """
    r = min(r, w / 2 - 1e-3, h / 2 - 1e-3)
    pts = []
    for (cx, cy, a0) in ((w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90), (-w / 2 + r, -h / 2 + r, 180),
                         (w / 2 - r, -h / 2 + r, 270)):
        for j in range(k + 1):
            a = math.radians(a0 + 90 * j / k)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    P = np.array(pts)
    E = np.roll(P, -1, 0) - P
    N = np.stack([E[:, 1], -E[:, 0]], 1)
    N /= np.maximum(np.linalg.norm(N, axis=1, keepdims=True), 1e-9)
    return P, N


_OUTLINE_CACHE: dict = {}


def _outline_cached(w, h, r):
    key = (round(w, 2), round(h, 2), round(r, 2))
    o = _OUTLINE_CACHE.get(key)
    if o is None:
        if len(_OUTLINE_CACHE) > 256:
            _OUTLINE_CACHE.clear()
        o = _OUTLINE_CACHE[key] = outline(w, h, r)
    return o


def _shade(normal: np.ndarray, view: np.ndarray, light: Light, gloss: float) -> tuple[float, float]:
    """(diffuse multiplier, specular add 0..1) for a surface normal (3,) and unit view vector (3,)."""
    L = light.direction
    ndl = float(normal @ L)
    dif = light.ambient + light.diffuse * max(ndl, 0.0)
    rf = 2 * ndl * normal - L
    spec = light.specular * gloss * max(float(rf @ view), 0.0) ** light.shininess if ndl > 0 else 0.0
    return dif, spec


class Canvas:
    """The image being rendered: rgb (H, W, 3) uint8 and an id map (H, W) int32 (0 = background)."""

    def __init__(self, rgb: np.ndarray):
        self.rgb = rgb
        self.ids = np.zeros(rgb.shape[:2], np.int32)
        self.H, self.W = rgb.shape[:2]


def _fill(img, pts, color, aa=True):
    p = np.round(pts * 16).astype(np.int32)
    cv2.fillConvexPoly(img, p, color, lineType=cv2.LINE_AA if aa else cv2.LINE_8, shift=4)


def _warp_cap(canvas: Canvas, tex: np.ndarray, quad: np.ndarray, mul: float, spec: np.ndarray) -> None:
    """Warp texture (h, w, 4) onto the image quad (4, 2) [tl, tr, br, bl], lit by ``mul`` and ``spec`` (4,)."""
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x1, canvas.W), min(y1, canvas.H)
    if xb <= xa or yb <= ya:
        return
    th, tw = tex.shape[:2]
    side = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0]) * tw / th, 1.0)
    if tw > 1.6 * side:  # prefilter to avoid aliasing when shrinking a lot
        s = 1.25 * side / tw
        tex = cv2.resize(tex, (max(2, int(tw * s)), max(2, int(th * s))), interpolation=cv2.INTER_AREA)
        th, tw = tex.shape[:2]
    src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
    dst = (quad - [xa, ya]).astype(np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(tex, M, (xb - xa, yb - ya), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=(0, 0, 0, 0))
    a = out[..., 3:4].astype(np.float32) * (1.0 / 255.0)
    col = out[..., :3].astype(np.float32) * mul
    if spec.max() > 0.01:
        sm = cv2.resize(spec.reshape(2, 2).astype(np.float32), (xb - xa, yb - ya), interpolation=cv2.INTER_LINEAR)
        col += sm[..., None] * 255.0
    roi = canvas.rgb[ya:yb, xa:xb]
    roi[:] = np.clip(roi * (1 - a) + col * a, 0, 255).astype(np.uint8)


def draw_body(canvas: Canvas, body: Body, cam: Camera, light: Light, oid: int) -> np.ndarray | None:
    """Draw one body; write ``oid`` into the id map over its silhouette.

    Returns the (M, 2) pixel points of its convex silhouette, or None when it is behind the camera.
    """
    w, h, d = body.dims
    P2, N2 = _outline_cached(w, h, body.radius)
    M = len(P2)
    slabs = []
    if body.split > -d / 2 + 1e-6:
        slabs.append(("back", -d / 2, body.split, body.colors[1]))
    if body.split < d / 2 - 1e-6:
        slabs.append(("face", body.split, d / 2, body.colors[0]))
    R, c = body.R, body.center
    # project every outline vertex at every slab level
    levels = sorted({s[1] for s in slabs} | {s[2] for s in slabs})
    loc = np.concatenate([np.c_[P2, np.full(M, z)] for z in levels])
    X = c + loc @ R.T
    uv, depth = cam.project(X)
    if depth.min() < 30.0:
        return None
    lv = {z: i for i, z in enumerate(levels)}
    Nw = np.c_[N2, np.zeros(M)] @ R.T  # world side normals
    hull = cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)
    # farther slab first
    def slab_dist(s):
        zc = (s[1] + s[2]) / 2
        return np.linalg.norm(c + R[:, 2] * zc - cam.C)
    slabs.sort(key=slab_dist, reverse=True)
    for name, z0, z1, color in slabs:
        i0, i1 = lv[z0] * M, lv[z1] * M
        pts0, pts1 = uv[i0:i0 + M], uv[i1:i1 + M]
        X0 = X[i0:i0 + M]
        col = np.asarray(color, np.float64)
        shull = cv2.convexHull(np.concatenate([pts0, pts1]).astype(np.float32)).reshape(-1, 2)
        views = cam.C - X0
        vis = np.einsum("ij,ij->i", Nw, views) > 0
        # base fill with anti-aliased outline, then flat-shaded visible side quads
        sh = []
        for k in np.nonzero(vis)[0]:
            v = views[k] / np.linalg.norm(views[k])
            dif, spec = _shade(Nw[k], v, light, body.gloss * 0.6)
            sh.append((k, np.clip(col * dif + 255 * spec, 0, 255)))
        base = np.mean([s[1] for s in sh], 0) if sh else col * light.ambient
        _fill(canvas.rgb, shull, tuple(float(x) for x in base), aa=True)
        for k, cc in sh:
            k2 = (k + 1) % M
            q = np.array([pts0[k], pts0[k2], pts1[k2], pts1[k]])
            _fill(canvas.rgb, q, tuple(float(x) for x in cc), aa=False)
        # outer cap of this slab
        outer = z1 if name == "face" else z0
        nsign = 1.0 if name == "face" else -1.0
        ncap = R[:, 2] * nsign
        capc = c + R[:, 2] * outer
        if float(ncap @ (cam.C - capc)) <= 0:
            continue
        tex = body.face_tex if name == "face" else body.back_tex
        # rectangle corners in texture order tl, tr, br, bl (as seen from outside the cap)
        if name == "face":
            cl = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
        else:
            cl = np.array([[w / 2, h / 2], [-w / 2, h / 2], [-w / 2, -h / 2], [w / 2, -h / 2]])
        Xq = c + np.c_[cl, np.full(4, outer)] @ R.T
        quv, _ = cam.project(Xq)
        spec4 = np.zeros(4)
        dif = 1.0
        for j in range(4):
            v = cam.C - Xq[j]
            v /= np.linalg.norm(v)
            dif, spec4[j] = _shade(ncap, v, light, body.gloss)
        if tex is None:
            cap = uv[(lv[outer]) * M:(lv[outer]) * M + M]
            _fill(canvas.rgb, cap, tuple(float(x) for x in np.clip(col * dif + 255 * spec4.mean(), 0, 255)))
        else:
            # spec map rows: top (tl, tr), bottom (bl, br)
            _warp_cap(canvas, tex, quv, dif, np.array([spec4[0], spec4[1], spec4[3], spec4[2]]))
        body.info.setdefault("caps", {})[name] = quv
    _fill(canvas.ids, hull, int(oid), aa=False)
    return hull


def shadow_polygons(bodies: list[Body], light: Light, cam: Camera) -> list[np.ndarray]:
    """Pixel polygons (each (M, 2)) of the bodies' shadows cast on the table plane."""
    L = light.direction
    out = []
    for b in bodies:
        X = b.corners()
        Xs = X - (X[:, 2:3] / max(L[2], 0.15)) * L[None, :]
        Xs[:, 2] = 0
        uv, depth = cam.project(np.concatenate([Xs, X[X[:, 2] < 1.0]]))
        if depth.min() < 30:
            continue
        out.append(cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2))
    return out
