"""Grouping: detected tiles → rows → groups → the roles each group may play in the hand.

Two steps, both plain functions of frozen values:

1. :func:`find_geometry` (boxes only): the dominant row direction (median angle of nearest-neighbour
   vectors, within ±45° of horizontal, so tilt and roll are absorbed); *groups* are chains of touching
   tiles (boxes overlapping across the row by ≥ 40 % of the smaller height, gap along the row ≤ 0.2 tile
   widths); *rows* chain groups that lie on one line with gaps of up to 3 tile widths. Chaining is
   local, so the converging rows of a perspective photo are still found. When most near tiles'
   neighbours lie above or below them (a photo taken from the side of the hand), the photo is also
   read turned 90° clockwise, and the reading with the longer main row is kept. The *main row* is the one
   that scores highest on tiles × tile size × (1 + lowness/2), a row of melds only counting 0.8 (the
   photographed player's hand is
   usually the nearest, lowest, largest and longest row); rows of similar tile size within 2.5 tile
   heights of it form the *hand region*; everything else (walls, discards, other players) is ignored.
   Per tile: ``sideways`` (box much wider than its row's tiles) and ``displaced`` (pushed off its
   row's line, as a winning tile put forward in the row).
Candidate hand regions: :func:`hand_candidates` offers every row (with the rows near it) as the
player's hand row, each with a geometric prior; :mod:`vision.pipeline` decodes each and keeps the
best joint reading, so no row is thrown away before its tiles are read.

2. :func:`assign_roles` (geometry + classifier readings): flowers/seasons → ``bonus`` (at the ends of
   the hand's tiles when ≥ 90 % sure, else weighed by the decoder against a misread hand tile; inside
   the main row, or between the tiles of a group of 3–4 off it: a misread tile of the hand; off the
   main row by their size against the hand's tiles, :func:`_off_row_prior`, and less likely among
   loose tiles behind the row, :data:`LOOSE_BONUS`; a group of 3+ off it at least half read as
   flowers/seasons keeps them as bonus tiles, :data:`MIXED_BONUS`; a run of :data:`END_BONUS_RUN` or
   more at an end of a group off it (laid on in line after the melds) is a bonus group of its own
   when under half of the group or when the rest is a meld's worth of tiles none read so, :func:`_end_run`;
   flowers/seasons whose boxes touch,
   :func:`_touching` — a column of them laid sideways — are one group, reaching past the region, and a
   block of three or more of them outside the region but beside the main row is the hand's too,
   :func:`_near_bonus_block`); a
   group of four with face-down tiles → ``concealed-kong`` (four laid as one is shown inside a longer group of
   a hand row are made a group of their own first, :data:`KONG_IN_ROW`, the rest of that group staying concealed
   tiles: :func:`_kongs_apart`); a group of 3 or 4 → ``exposed`` meld
   (preferred) or ``concealed``; a single tile → ``winning`` (preferred when it is set apart at a row end or lies sideways) or ``concealed`` (or ``bonus`` when a flower/season is not unlikely); a sideways/displaced tile at the end of a concealed group → the winning
   tile; groups outside the main row may also be ``ignored``. Each group carries its options with prior
   probabilities; :mod:`vision.decode` picks the combination whose reading is a legal hand.

Overrides (CLI ``--winning-tile``, ``--exposed``) are applied in :mod:`vision.decode`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Collection, Sequence

import numpy as np

from scoring.errors import HandError
from scoring.notation import meld_from_tiles
from scoring.tiles import PLAYING_TILES

from .classes import BONUS_TILES, CLASS_INDEX, CLASS_NAMES
from .classify import TileReadings
from .detect import Detections

#: a group ends where the centre spacing of two neighbours exceeds this many times the usual spacing
#: of touching tiles (median over the photo, relative to the tiles' widths)
GROUP_SPLIT = 1.22
GROUP_SPLIT_ABS = 0.08
#: a box this much wider than tall (axis-aligned, the photo level) lies sideways for the grouping: overlapping its
#: neighbour's box along the row, the two touch and are not split into two groups (:func:`_rows`), where the photo's
#: rows run within :data:`TOUCH_LEVEL` degrees of level and the two are spaced under :data:`TOUCH_SPLIT` times the
#: usual spacing (a small excess only)
SIDEWAYS_TOUCH = 1.15
TOUCH_LEVEL = 4.0
TOUCH_SPLIT = 1.5
#: tiles lie on one line when their centres are within this many tile heights across it
ROW_OFFSET = 0.45
#: a tile is sideways when its box is this much wider (relative to its height) than its row's tiles
SIDEWAYS_ASPECT = 1.5
#: a tile is displaced when its centre lies this many tile heights off its group's line (toward the camera)
DISPLACED = 0.2
#: largest gap between groups of one row, in tile widths
ROW_GAP = 3.0
#: rows within this many tile heights of the main row (and of similar size) belong to the hand
HAND_REACH = 2.5
SIZE_RATIO = 1.7
#: a single tile lying on the main row's line (:data:`IN_LINE`) belongs to
#: the hand region up to this many tile widths past the row's end (a winning tile laid far apart, or
#: where the 14th tile would lie when the hand is laid in rows of nine); its prior still falls off with
#: the distance beyond :data:`ROW_GAP` (:data:`OFF_ROW_DECAY`, from :data:`OFF_ROW_IN`: set apart on the
#: row's line on purpose), and it is taken as a tile set apart at the row's end (likely the winning tile)
LONE_IN_LINE_GAP = 6.0
#: a tile lies on the main row's line when its centre is within this many tile heights of it
IN_LINE = 0.5
#: a single tile apart is also offered as a bonus tile when the classifier gives flowers/seasons this much
MAYBE_BONUS = 0.1
BONUS_INDEX = np.array([CLASS_INDEX[c] for c in BONUS_TILES])
#: a group of 5 or more tiles with one face-down tile in four or fewer is read as concealed tiles
#: (the backs as their best faces: a missed white dragon, glare) with this prior, else ignored
FACE_DOWN_MISREAD = 0.6
#: the prior that four tiles set apart, no three of them read alike, are an exposed kong all the same (two
#: misread): else they are concealed tiles (:func:`assign_roles`)
UNALIKE_FOUR_EXPOSED = 0.2
#: a non-winner's single tile set apart at an end of the main row is a loose tile (a discard) with this prior, else
#: the hand's (the tile count decides: a winner's is the winning tile, :func:`assign_roles`)
LOOSE_APART = 0.3
#: two groups of a row of the hand region lie beside each other (:attr:`Layout.beside`) when the gap between them
#: is under this share of their tiles' width along the row: a tile set apart by up to about its own width
BESIDE_GAP = 1.0
#: a flower/season at the end of the hand's own tiles is a bonus tile for sure from this probability of
#: being one; below it the decoder weighs it against a misread tile of the hand
SURE_BONUS = 0.9
#: flowers/seasons in a run this long at an end of a group off the main row (laid on in line after the
#: melds) are a bonus group of their own
END_BONUS_RUN = 3
#: one or two flowers/seasons behind the main row count as the hand's this much less likely when loose
#: tiles (one or two together, face up, not flowers or seasons) also lie behind it (a scatter of loose
#: tiles, discards) and no meld lies in their row
LOOSE_BONUS = 0.5
#: … loose tiles that lie among them: no more than this many tile heights farther from the row than the
#: flower (or nearer it); a flower laid out just behind the row, with the loose tiles (discards) well
#: beyond it, is where a player sets out bonus tiles, not among the discards (a hard-scene render: a
#: flower 1.3 tile heights behind the row, discards at 2.7, the flower left out)
LOOSE_AMONG = 1.0
#: a group of flowers/seasons off the main row counted as the hand's by its prior alone, farther than this many
#: tile sizes from the row (:attr:`Geometry.main_distance`), leaves that prior as a doubt of the reading
#: (:attr:`Layout.far_counted`): a phone tester's neighbour's 4f and 1f, a column of two lying sideways 5.4 tile widths
#: past the row's end, were counted at 81 %, 64 points for 16 (dutch-special-hands). Not a block laid upright on the
#: row's own line (:func:`_in_line`), as another tester's own two flowers lay, 6 tile widths past the end
FAR_COUNTED = 3.0
#: a group of 3 or more off the main row with at least half of its tiles (two or more) read as
#: flowers/seasons, one of them at an end, is a bonus group as those tiles' own group would be (a lone
#: flower among other tiles stays a pile's: discards; a flower beside one tile that is at least
#: MAYBE_BONUS a flower or season is a pair of them); each of its other tiles is offered as a
#: misread bonus tile (an unseen set's season read upside-down as 5m) with this prior, else ignored
#: (the decoder weighs that against its reading: taken when its probability of being any flower or
#: season is over (1 − prior) / prior of its best reading's, 11 %; at 0.7 that was 43 %, and an unseen
#: set's flower read 1z at 78 % (flowers/seasons 14 %) beside three others was left out)
MIXED_BONUS = 0.9
#: the other tile of a flower's pair off the main row (offered as a misread bonus tile) is a tile of the
#: hand — the winning tile set out beside the flowers, when the tile count needs it — with this prior
PAIR_OWN = 0.3
#: flowers/seasons whose boxes lie less than this share of a tile's size apart touch (:func:`_touching`):
#: a column of them laid sideways is one group, as a row of them is
TOUCH = 0.25
#: a tile lying nearer the camera than the standing hand looks at most this much larger than its tiles
LYING_LARGER = 1.3
#: … but flowers/seasons left out in front of the row as larger than that are a doubt (:attr:`Layout.left_out`) up to
#: this much larger: a tile lying nearer the camera in a photo taken from low looks larger still
FRONT_LARGER = 1.5
#: … when they lie within this many tile sizes of the row (against its front: set out by the player)
FRONT_NEAR = 0.5
#: a group's size is compared with that of this many main-row tiles nearest to it (:func:`_size_ratio`)
SIZE_NEAREST = 3
#: a flower/season lying flat in front of the standing row, seen at a slant, may look this much smaller
#: than the row's tiles beside it and still count as of the hand's size (:func:`_off_row_prior`)
LYING_SMALLER = 0.7
#: a flower/season group larger than LYING_LARGER × those tiles is the hand's with a prior that falls
#: as (LYING_LARGER / size ratio) to this power (:func:`_off_row_prior`)
LARGER_FALL = 6
#: the prior that tile-sized flowers/seasons boxed outside the hand region (alone, or a group of their
#: own: not among other tiles) are the hand's bonus tiles all the same — set apart farther away, the
#: rest of their column not boxed: the reading without them is only that much less sure
FAR_BONUS = 0.2
#: a group outside the main row is part of the hand with prior OFF_ROW_IN when it lies within
#: OFF_ROW_NEAR tile sizes of the main row, decaying by exp(−OFF_ROW_DECAY · tile sizes) beyond
OFF_ROW_IN = 0.7
#: ... and a single tile off the main row with this prior instead of OFF_ROW_IN
OFF_ROW_SINGLE = 0.35
OFF_ROW_NEAR = 1.5
OFF_ROW_DECAY = 0.6

#: the layout's note on the boxes it leaves out, after their count
AWAY_NOTE = "tile(s) away from the hand ignored (discards, walls, other players)"
ROLES = ("concealed", "exposed", "concealed-kong", "bonus", "winning", "ignored")


@dataclass(frozen=True)
class Group:
    """Touching tiles in a row: ``tiles`` (detection indices, in order along the row) and ``row``."""

    tiles: tuple[int, ...]
    row: int


@dataclass(frozen=True)
class Geometry:
    """Rows and groups found from the boxes alone.

    * ``angle``: row direction in radians (image x axis = 0, clockwise positive as y points down);
    * ``groups``: all groups; ``rows``: per row, its group indices in order along the row;
    * ``main_row``: index of the player's hand row; ``hand_rows``: rows of the hand region
      (main row first, then by distance);
    * ``order``: every detection index, hand rows first, row by row, along the row — the tile
      numbering shown to the user (position k is ``order[k-1]``);
    * ``sideways``, ``displaced``: (N,) bool per detection;
    * ``tile_w``, ``tile_h``: median tile width/height of the main row (pixels, along/across the row);
    * ``turned``: the rows run up the photo, so it was read turned 90° clockwise (``angle`` is then
      measured in the turned photo);
    * ``main_distance``: (N,) per detection, how far it lies from the main row, in tile sizes (0 on
      it; across the row beyond touching, and along it past the row's ends);
    * ``main_offset``: (N,) per detection, its centre's signed offset across the main row's line in
      tile heights: positive below the row in the frame the rows were read in (in front of it, nearer
      the camera, in an upright photo taken from the player's seat; either side when ``turned``),
      negative above it;
    * ``main_extent``: (N,) per detection, (centre along the main row, size along it, size across it),
      pixels in the main row's frame (:func:`_tile_sizes`): how much two boxes of the row overlap (None for a box
      measured in no row frame: one placed in a row afterwards).
    """

    angle: float
    groups: tuple[Group, ...]
    rows: tuple[tuple[int, ...], ...]
    main_row: int
    hand_rows: tuple[int, ...]
    order: tuple[int, ...]
    sideways: tuple[bool, ...]
    displaced: tuple[bool, ...]
    tile_w: float
    tile_h: float
    turned: bool = False
    main_distance: tuple[float, ...] = ()
    main_offset: tuple[float, ...] = ()
    main_extent: tuple[tuple[float, float, float] | None, ...] = ()

    def distance(self, i: int) -> float:
        """How far detection ``i`` lies from the main row, in tile sizes (0 on the row)."""
        return self.main_distance[i] if self.main_distance else 0.0

    def offset(self, i: int) -> float:
        """Detection ``i``'s signed offset across the main row (tile heights; > 0 in front of it)."""
        return self.main_offset[i] if self.main_offset else 0.0

    def row_tiles(self, r: int) -> tuple[int, ...]:
        return tuple(t for g in self.rows[r] for t in self.groups[g].tiles)

    @property
    def hand_tiles(self) -> tuple[int, ...]:
        return tuple(t for r in self.hand_rows for t in self.row_tiles(r))


@dataclass(frozen=True)
class Option:
    """One role a group may play: ``role`` for the group, ``winning`` (a detection index that is the
    winning tile, or None), ``prior`` probability, ``why`` (a short reason for notes)."""

    role: str
    prior: float
    winning: int | None = None
    why: str = ""


@dataclass(frozen=True)
class GroupRoles:
    """A group of the hand region with the roles it may play (best prior first)."""

    tiles: tuple[int, ...]
    row: int
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Layout:
    """The geometry plus, for each group of the hand region, its candidate roles.

    ``bonus``: detection indices read as flowers/seasons (taken out of their groups);
    ``ignored``: detections outside the hand region; ``notes``: what was inferred; ``left_out``: groups
    of flowers/seasons off the main row left out as loose tiles by their prior alone (one or two behind
    the row among loose tiles, or smaller than the hand's tiles: farther away; not those too large for
    a tile), each with that prior (< 0.5) of being the hand's (:mod:`vision.decode` makes the reading
    less sure by it); ``far_bonus``: groups of tile-sized flowers/seasons outside the hand region (their
    row-groups all flowers/seasons, at most eight touching), each with the prior :data:`FAR_BONUS` of
    being the hand's all the same (counted once per reading, whatever their number); ``apart``:
    detection indices of the hand region's single tiles set apart (alone in a group at an end of their
    row, or off the main row in line with it) that were offered a role in the hand — a winner's
    winning tile, a non-winner's concealed tile (:func:`vision.pipeline` leaves one out to read a
    dead hand, which may not have the full count: rode-draak 001:108). ``beside``: pairs of groups (their
    tiles) next to each other in a row of the hand region, the gap between them under
    :data:`BESIDE_GAP` of their tiles' width, or one of them a single tile of ``apart`` on the main row
    (:mod:`vision.decode` doubts a non-winner's reading that takes one in as concealed tiles and leaves the
    other out).
    """

    geometry: Geometry
    groups: tuple[GroupRoles, ...]
    bonus: tuple[int, ...]
    ignored: tuple[int, ...]
    notes: tuple[str, ...] = ()
    left_out: tuple[tuple[tuple[int, ...], float], ...] = ()
    far_bonus: tuple[tuple[tuple[int, ...], float], ...] = ()
    apart: tuple[int, ...] = ()
    beside: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    #: groups of flowers/seasons off the main row counted as the hand's bonus tiles by their prior alone though they
    #: lie more than :data:`FAR_COUNTED` tile sizes from the row, each with that prior (≥ 0.5): :mod:`vision.decode`
    #: makes the reading less sure by it
    far_counted: tuple[tuple[tuple[int, ...], float], ...] = ()
    #: detection indices left out as the caller asked (``assign_roles``'s ``exclude``: boxes the user left out with
    #: ``--fix POS=-``, false detections)
    excluded: frozenset[int] = frozenset()


# ----------------------------------------------------------------------------- geometry
def _nearest(centres: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each tile's nearest neighbour (needs at least 2 tiles): ``scale`` (N,) each tile's size
    √(w·h) in pixels; ``dist`` (N, N) centre distances, row i in units of tile i's scale, inf on
    the diagonal; ``nn`` (N,) index of each tile's nearest tile; ``v`` (N, 2) the vector to it in
    pixels."""
    d = centres[:, None, :] - centres[None, :, :]
    scale = np.sqrt(sizes[:, 0] * sizes[:, 1])
    dist = np.hypot(d[..., 0], d[..., 1]) / np.maximum(scale[:, None], 1e-6)
    np.fill_diagonal(dist, np.inf)
    nn = dist.argmin(1)
    return scale, dist, nn, centres[nn] - centres


def _angle(centres: np.ndarray, sizes: np.ndarray) -> float:
    """Dominant row direction: median angle of nearest-neighbour vectors (±45°)."""
    n = len(centres)
    if n < 2:
        return 0.0
    _, dist, nn, v = _nearest(centres, sizes)
    ang = np.arctan2(v[:, 1], v[:, 0])
    ang = (ang + math.pi / 2) % math.pi - math.pi / 2  # fold to [-90°, 90°)
    ok = (np.abs(ang) <= math.pi / 4) & (dist[np.arange(n), nn] < 2.5)
    if not ok.any():
        return 0.0
    return float(np.median(ang[ok]))


def _mostly_vertical(centres: np.ndarray, sizes: np.ndarray) -> bool:
    """True when most tiles' nearest neighbours lie above/below them: the rows run up the photo
    (a photo taken from the side of the hand, without an EXIF turn)."""
    n = len(centres)
    if n < 3:
        return False
    scale, dist, nn, v = _nearest(centres, sizes)
    big = scale >= 0.8 * np.percentile(scale, 75)  # the near (large) tiles vote: the player's hand
    near = (dist[np.arange(n), nn] < 2.5) & big
    steep = np.abs(v[:, 1]) > np.abs(v[:, 0])
    return bool(near.sum() >= 3 and (steep & near).sum() > 0.6 * near.sum())


def _frame(boxes: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Box extents in the row frame: (N, 2) u-range and (N, 2) v-range (u along the row)."""
    c, s = math.cos(angle), math.sin(angle)
    xs = boxes[:, [0, 2, 2, 0]]
    ys = boxes[:, [1, 1, 3, 3]]
    u = xs * c + ys * s
    v = -xs * s + ys * c
    return np.stack([u.min(1), u.max(1)], 1), np.stack([v.min(1), v.max(1)], 1)


def _components(n: int, edges: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    comp: dict[int, list[int]] = {}
    for i in range(n):
        comp.setdefault(find(i), []).append(i)
    return list(comp.values())


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    return float(min(a[1], b[1]) - max(a[0], b[0]))


def _tile_sizes(boxes: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """(width along the row, height across it) of the tiles whose axis-aligned boxes are ``boxes``,
    if each were a rectangle turned by ``angle``: ``w = W cos a + H sin a``, ``h = W sin a + H cos a``
    solved for W and H (kept ≥ 40 % of the box side, for |a| near 45° and perspective)."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    a = min(abs(angle), math.radians(35))
    c, s_ = math.cos(a), math.sin(a)
    c2 = math.cos(2 * a)
    W = (w * c - h * s_) / c2
    H = (h * c - w * s_) / c2
    return np.maximum(W, 0.4 * w), np.maximum(H, 0.4 * h)


def _rotate(pts: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) of points in the frame turned by ``angle`` (u along the row)."""
    c, s = math.cos(angle), math.sin(angle)
    return pts[:, 0] * c + pts[:, 1] * s, -pts[:, 0] * s + pts[:, 1] * c


def _row_links(uc, vc, W, H, i: int, j: int) -> bool:
    """Tiles i and j lie on one line (centres within ROW_OFFSET tile heights across it) with a gap
    of at most ROW_GAP tile widths along it, and are of similar size."""
    if max(H[i], H[j]) > SIZE_RATIO * min(H[i], H[j]) and max(W[i], W[j]) > SIZE_RATIO * min(W[i], W[j]):
        return False
    hmin = min(H[i], H[j], max(W[i], W[j]))
    if abs(vc[i] - vc[j]) > ROW_OFFSET * hmin:
        return False
    gap = abs(uc[i] - uc[j]) - (W[i] + W[j]) / 2
    return gap <= ROW_GAP * min(W[i], W[j], H[i], H[j])


def _row_links_v(uc, vc, W, H, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """:func:`_row_links` for index arrays (vectorised)."""
    Hmax, Hmin = np.maximum(H[i], H[j]), np.minimum(H[i], H[j])
    Wmax, Wmin = np.maximum(W[i], W[j]), np.minimum(W[i], W[j])
    size_ok = ~((Hmax > SIZE_RATIO * Hmin) & (Wmax > SIZE_RATIO * Wmin))
    hmin = np.minimum(Hmin, Wmax)
    line_ok = np.abs(vc[i] - vc[j]) <= ROW_OFFSET * hmin
    gap = np.abs(uc[i] - uc[j]) - (W[i] + W[j]) / 2
    gap_ok = gap <= ROW_GAP * np.minimum(Wmin, Hmin)
    return size_ok & line_ok & gap_ok


def _fit_angle(pts: np.ndarray, fallback: float) -> float:
    """Direction of the line through ``pts`` (Theil–Sen slope), within ±45°, else ``fallback``."""
    if len(pts) < 2:
        return fallback
    d = pts[:, None, :] - pts[None, :, :]
    iu = np.triu_indices(len(pts), 1)
    dx, dy = d[..., 0][iu], d[..., 1][iu]
    ok = np.abs(dx) > 1e-6
    if not ok.any():
        return fallback
    a = float(math.atan(np.median(dy[ok] / dx[ok])))
    return a if abs(a) <= math.pi / 4 else fallback


def find_geometry(det: Detections, image_size: tuple[int, int]) -> Geometry:
    """Rows, groups, the main row and the hand region of ``det`` (see the module docstring): the
    geometric first choice, :func:`hand_candidates`' best prior.

    ``image_size``: (width, height) in the boxes' pixels. An empty ``det`` gives an empty geometry.
    When the near tiles' neighbours lie mostly above/below each other, the photo is also read turned
    by 90°, and the reading whose main row holds more tiles is kept.
    """
    boxes = np.asarray(det.boxes, np.float64)
    if len(boxes) == 0:
        return _EMPTY
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    plain = _rows(boxes, image_size, False)
    geo = _assemble(plain, plain.best_row())
    if not _mostly_vertical(centres, boxes[:, 2:] - boxes[:, :2]):
        return geo
    turned = _rows(boxes, image_size, True)
    tgeo = _assemble(turned, turned.best_row())
    return tgeo if len(tgeo.row_tiles(0)) > len(geo.row_tiles(0)) else geo


_EMPTY = Geometry(0.0, (), (), -1, (), (), (), (), 0.0, 0.0)

#: candidate hand regions decoded at most per photo (:func:`hand_candidates`)
MAX_CANDIDATES = 6
#: a region holding fewer tiles than the hand needs loses this factor of prior per missing tile
#: (each would be a tile the detector missed)
MISSING_TILE = 0.25


@dataclass(frozen=True)
class Candidate:
    """One candidate hand region for decoding: ``geometry`` (its main row is row 0, its hand rows the
    region), ``prior`` (geometric prior, the best candidate 1.0), ``why`` (what the region is, for
    notes)."""

    geometry: Geometry
    prior: float
    why: str


def hand_candidates(det: Detections, image_size: tuple[int, int], need: int = 14,
                    limit: int = MAX_CANDIDATES) -> tuple[Candidate, ...]:
    """Candidate hand regions of ``det``, best geometric prior first: every row of similar-sized
    tiles (plus the rows near it) as the player's hand row, in the photo's frame and, when some rows
    run up the photo, turned by 90°.

    The prior of a region is its main row's score (tiles × tile size × (1 + lowness/2), a row of
    melds only counting 0.8, relative to the best row) × :data:`MISSING_TILE` per tile the region
    lacks of ``need`` (a hand's tile count, e.g. 14; each meld or bonus tile counts as it lies). The
    longest row is always a candidate, so a long row of tiles is never dropped for a short group
    before its tiles are read; a row of one or two tiles is not the main row of a region that holds a
    row of three or more when a region led by a longer row holds all its tiles
    (:func:`_fragment_main_row`). :mod:`vision.pipeline` decodes each candidate and keeps the one whose
    reading is most probable overall (prior × tile readings × legality). Regions holding the same tiles
    are offered once. Returns at most ``limit`` candidates; none for empty ``det``.
    """
    boxes = np.asarray(det.boxes, np.float64)
    if len(boxes) == 0:
        return ()
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    frames = [_rows(boxes, image_size, False)]
    vertical = _mostly_vertical(centres, boxes[:, 2:] - boxes[:, :2])
    turned = _rows(boxes, image_size, True)
    if vertical or max(map(len, turned.rows_tiles)) > max(map(len, frames[0].rows_tiles)) + 2:
        frames.append(turned)
    scored: list[tuple[float, _Rows, int, str]] = []
    for fr in frames:
        for r in range(len(fr.rows_tiles)):
            scored.append((fr.row_score(r), fr, r, "turned 90°" if fr.turned else ""))
    top = max(s for s, *_ in scored) or 1.0
    longest = max(scored, key=lambda c: (len(c[1].rows_tiles[c[2]]), c[0]))
    pool = sorted(scored, key=lambda c: -c[0])[: 3 * limit]
    if longest not in pool:
        pool.append(longest)
    out: list[Candidate] = []
    seen: set[frozenset[int]] = set()
    longest_tiles = frozenset(longest[1].rows_tiles[longest[2]])
    for s, fr, r, how in pool:
        geo = _assemble(fr, r)
        tiles = frozenset(geo.hand_tiles)
        if tiles in seen:
            continue
        seen.add(tiles)
        short = max(0, need - len(tiles))
        prior = (s / top) * MISSING_TILE ** short
        n_main = len(geo.row_tiles(0))
        why = (f"row of {n_main} tiles" + (f" + {len(geo.hand_rows) - 1} row(s) near it" if len(geo.hand_rows) > 1 else "")
               + (", the longest row" if (fr, r) == (longest[1], longest[2]) else "")
               + (", the nearest/largest" if s == top else "") + (f", read {how}" if how else ""))
        out.append(Candidate(geo, prior, why))
    # a region led by a row of one or two tiles whose tiles a region led by a longer row holds too is
    # that region's hand measured against one box: not offered (:func:`_fragment_main_row`)
    fragment = [_fragment_main_row(c.geometry) for c in out]
    whole = [frozenset(c.geometry.hand_tiles) for c, f in zip(out, fragment) if not f]
    out = [c for c, f in zip(out, fragment) if not (f and any(frozenset(c.geometry.hand_tiles) <= w for w in whole))]
    out = by_prior(out)
    keep = out[:limit]
    if not any(longest_tiles <= set(c.geometry.hand_tiles) for c in keep):
        lc = next((c for c in out if longest_tiles <= set(c.geometry.hand_tiles)), None)
        if lc is not None:
            keep[-1] = lc
    return tuple(keep)


def _fragment_main_row(geo: Geometry) -> bool:
    """True when the region's main row holds fewer than :data:`SIZE_NEAREST` tiles while another of
    its rows holds :data:`SIZE_NEAREST` or more: a tile set apart (a lone flower, a winning tile boxed
    short) taken for the player's row, with the real row near it. When the region led by a longer row
    holds its tiles too (:func:`hand_candidates` then drops it), such a region reads that region's hand
    but measures everything against the lone tile: the row's own flowers lie "off the main row" and its
    neighbours' roles cost nothing, so it was chosen over the longer row's region with the hand's bonus
    tiles left out (held-out column composites). A region no longer row's region holds (a concealed
    pair between two rows of exposed melds, each row's region reaching only the pair) is kept."""
    n_main = len(geo.row_tiles(0)) if geo.rows else 0
    return 0 < n_main < SIZE_NEAREST and any(len(geo.row_tiles(r)) >= SIZE_NEAREST for r in geo.hand_rows[1:])


def by_prior(cands: list[Candidate]) -> list[Candidate]:
    """``cands`` best prior first, the priors divided by the best (which becomes 1.0)."""
    if not cands:
        return cands
    top = max(c.prior for c in cands) or 1.0
    return sorted((replace(c, prior=c.prior / top) for c in cands), key=lambda c: -c.prior)


def lift_geometry(geo: Geometry, keep, n: int, boxes: np.ndarray | None = None) -> Geometry:
    """``geo``, found for the detections ``keep`` (indices into ``n`` detections, ``geo``'s index k
    being ``keep[k]``), in the indices of all ``n``: the detections left out form one extra row of
    single-tile groups after the others (never the hand's), numbered last, with no flags and an
    infinite distance from the main row.

    ``boxes`` ((n, 4) xyxy pixels of all detections), when given: a tile-sized left-out detection
    lying in the gap between two consecutive tiles of a hand row (:func:`_fills_gap`: room for one
    tile, on the row's line) is put back there, in their group (the two groups the gap split joined): a doubtful
    box inside the hand's rows is a tile of it read unsurely (a flower of an unseen art among the
    hand's flowers), not clutter beside it."""
    keep = [int(k) for k in keep]
    kept = set(keep)
    rest = [i for i in range(n) if i not in kept]
    tiles_of = [[keep[t] for t in g.tiles] for g in geo.groups]
    row_of = [g.row for g in geo.groups]
    after: dict[int, int] = {}  # kept detection → the left-out one put back in the gap after it
    if boxes is not None and rest:
        b = np.asarray(boxes, np.float64).reshape(-1, 4)
        for r in geo.hand_rows:
            seq = [t for gi in geo.rows[r] for t in tiles_of[gi]]
            for a, c in zip(seq, seq[1:]):
                i = next((i for i in rest if i not in after.values() and _fills_gap(b, a, c, i)), None)
                if i is not None:
                    after[a] = i
    groups: list[Group] = []
    rows: list[tuple[int, ...]] = []
    for ids in geo.rows:
        new_ids: list[int] = []
        last_kept = None  # the previous group's last kept tile
        for gi in ids:
            t: list[int] = []
            for k in tiles_of[gi]:
                t.append(k)
                if k in after:
                    t.append(after[k])
            if new_ids and last_kept in after:  # the gap that split the two groups is filled
                prev = groups[new_ids[-1]]
                groups[new_ids[-1]] = Group(prev.tiles + tuple(t), prev.row)
            else:
                new_ids.append(len(groups))
                groups.append(Group(tuple(t), row_of[gi]))
            last_kept = tiles_of[gi][-1] if tiles_of[gi] else last_kept
        rows.append(tuple(new_ids))
    rest = [i for i in rest if i not in after.values()]
    if rest:
        ids = []
        for i in rest:
            ids.append(len(groups))
            groups.append(Group((i,), len(rows)))
        rows.append(tuple(ids))
    sideways, displaced, dist, offset = [False] * n, [False] * n, [math.inf] * n, [0.0] * n
    extent: list = [None] * n  # (a box the subset's geometry did not measure has none)
    for k, g in enumerate(keep):
        sideways[g] = geo.sideways[k]
        displaced[g] = geo.displaced[k]
        dist[g] = geo.distance(k)
        offset[g] = geo.offset(k)
        if k < len(geo.main_extent):
            extent[g] = geo.main_extent[k]
    for a, i in after.items():
        dist[i], offset[i] = dist[a], offset[a]
    order = tuple(t for ids in rows for gi in ids for t in groups[gi].tiles)
    return replace(geo, groups=tuple(groups), rows=tuple(rows), order=order,
                   sideways=tuple(sideways), displaced=tuple(displaced), main_distance=tuple(dist),
                   main_offset=tuple(offset), main_extent=tuple(extent))


def _fills_gap(b: np.ndarray, a: int, c: int, i: int) -> bool:
    """Box ``i`` lies in the gap between the consecutive row tiles ``a`` and ``c`` (xyxy boxes ``b``):
    their centres are 1.5 to 2.6 tile widths apart (room for one tile: the detector's boxes are wider
    than the tiles), ``i``'s centre lies between them (three tenths to seven tenths of the way) within
    half a tile height of the line joining them and at least 0.6 tile widths from each (not a second
    box of either), and ``i`` is tile-sized (0.6–1.6× ``a``'s size)."""
    ca, cc, ci = ((b[[a, c, i], :2] + b[[a, c, i], 2:]) / 2)
    seg = cc - ca
    L = float(np.hypot(*seg))
    wa, ha = np.sort(b[a, 2:] - b[a, :2])  # the tile's short side (its width in the row) and long side
    if not (L > 0 and 1.5 * wa <= L <= 2.6 * wa):
        return False
    size = float(np.sqrt(max(0.0, float(np.prod(b[i, 2:] - b[i, :2])))) / max(float(np.sqrt(wa * ha)), 1e-6))
    d = ci - ca
    t = float(d @ seg) / L ** 2
    across = abs(float(seg[0] * d[1] - seg[1] * d[0])) / L
    apart = min(float(np.hypot(*d)), float(np.hypot(*(cc - ci)))) >= 0.6 * wa
    return 0.3 <= t <= 0.7 and across <= 0.5 * ha and apart and 0.6 <= size <= 1.6


@dataclass(frozen=True, eq=False)
class _Rows:
    """Rows and their raw groups found from the boxes (in the turned frame when ``turned``)."""

    boxes: np.ndarray
    image_size: tuple[int, int]
    turned: bool
    rows_tiles: list
    row_angle: list
    row_groups_raw: list

    @property
    def centres(self) -> np.ndarray:
        return (self.boxes[:, :2] + self.boxes[:, 2:]) / 2

    @property
    def sizes(self) -> np.ndarray:
        return self.boxes[:, 2:] - self.boxes[:, :2]

    def row_score(self, ri: int) -> float:
        """tiles × size × lowness (a row of melds only counting 0.8): the player's hand is usually the
        nearest, lowest, largest and longest row."""
        t = self.rows_tiles[ri]
        s = self.sizes
        size = float(np.median(np.sqrt(s[t, 0] * s[t, 1])))
        low = float(np.mean(self.centres[t, 1])) / max(self.image_size[1], 1)
        melds_only = all(len(g) in (3, 4) for g in self.row_groups_raw[ri])
        return len(t) * size * (1 + 0.5 * low) * (0.8 if melds_only else 1.0)

    def best_row(self) -> int:
        return max(range(len(self.rows_tiles)), key=self.row_score)


def _rows(boxes: np.ndarray, image_size: tuple[int, int], turned: bool) -> _Rows:
    n = len(boxes)
    if turned:  # work in the photo turned 90° clockwise: (x, y) → (H − y, x)
        W0, H0 = image_size
        boxes = np.stack([H0 - boxes[:, 3], boxes[:, 0], H0 - boxes[:, 1], boxes[:, 2]], 1)
        image_size = (H0, W0)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = boxes[:, 2:] - boxes[:, :2]
    theta0 = _angle(centres, sizes)
    ang = np.full(n, theta0)
    # 1. rows: tiles on one line, linked pairwise in the frame of their (local) row direction; the
    #    direction is refitted per row and the linking repeated, so receding rows are followed
    comps: list[list[int]] = []
    iu, ju = np.triu_indices(n, 1)
    for _ in range(3):
        pair_ang = np.round((ang[iu] + ang[ju]) / 2, 3)
        edges = []
        for a in np.unique(pair_ang):
            sel = pair_ang == a
            i, j = iu[sel], ju[sel]
            uc, vc = _rotate(centres, float(a))
            W, H = _tile_sizes(boxes, float(a))
            ok = _row_links_v(uc, vc, W, H, i, j)
            edges.extend(zip(i[ok].tolist(), j[ok].tolist()))
        comps = _components(n, edges)
        new = ang.copy()
        for c in comps:
            if len(c) >= 2:
                new[c] = _fit_angle(centres[c], theta0)
        if np.allclose(new, ang):
            break
        ang = new
    # 2. groups: split each row where two neighbours are further apart than touching tiles
    rows_tiles: list[list[int]] = []
    row_angle: list[float] = []
    per_row: list[np.ndarray] = []
    touching: list[np.ndarray] = []
    level = abs(theta0) < math.radians(TOUCH_LEVEL)
    for c in comps:
        a = float(ang[c[0]])
        u, _v = _rotate(centres[c], a)
        Wt, _Ht = _tile_sizes(boxes[c], a)
        o = np.argsort(u, kind="stable")
        rows_tiles.append([c[k] for k in o])
        row_angle.append(a)
        per_row.append(np.diff(u[o]) / ((Wt[o][:-1] + Wt[o][1:]) / 2) if len(c) > 1 else np.zeros(0))
        # boxes that overlap along the row, one of them wider than tall (a tile lying sideways beside an upright one):
        # touching, whatever their centres' spacing says (a phone tester's [9m^ 9m 9m], the claimed 9m's box 115 px
        # wide beside 84, overlapping by 6 px, was spaced 1.07 of their mean width, over the split: two groups, the
        # pung read as concealed tiles). Measured on the boxes themselves, the photo level (a row of three fitted
        # through a sideways tile's lower centre leans, and its frame's widths had the two apart); not at a slant,
        # where boxes grow along x and neighbours across a gap overlap (a reviewer's: such photos are read
        # straightened)
        bo = boxes[c][o]
        wide = (bo[:, 2] - bo[:, 0]) > SIDEWAYS_TOUCH * (bo[:, 3] - bo[:, 1])
        over_x = np.minimum(bo[:-1, 2], bo[1:, 2]) - np.maximum(bo[:-1, 0], bo[1:, 0])
        over_y = np.minimum(bo[:-1, 3], bo[1:, 3]) - np.maximum(bo[:-1, 1], bo[1:, 1])
        tall = np.minimum(bo[:-1, 3] - bo[:-1, 1], bo[1:, 3] - bo[1:, 1])
        touching.append((over_x >= 0) & (over_y > 0.5 * tall) & (wide[:-1] | wide[1:]) & level if len(c) > 1
                        else np.zeros(0, bool))
    allr = np.concatenate(per_row) if per_row else np.zeros(0)
    base_all = float(np.median(allr)) if len(allr) else 0.85
    row_groups_raw: list[list[list[int]]] = []
    for t, r, touch in zip(rows_tiles, per_row, touching):
        gs = [[t[0]]]
        for k, rk in enumerate(r):
            window = np.concatenate([r[max(0, k - 3):k], r[k + 1:k + 4]])
            base = float(np.median(window)) if len(window) >= 2 else base_all
            base = min(base, base_all * 1.3) if len(window) < 4 else base
            if rk > base * GROUP_SPLIT and rk - base > GROUP_SPLIT_ABS and not (touch[k] and rk < base * TOUCH_SPLIT):
                gs.append([t[k + 1]])
            else:
                gs[-1].append(t[k + 1])
        row_groups_raw.append(gs)
    return _Rows(boxes, image_size, turned, rows_tiles, row_angle, row_groups_raw)


def _assemble(R: _Rows, main: int) -> Geometry:
    """The geometry with row ``main`` of ``R`` as the player's hand row: the rows near it form the
    hand region; rows are renumbered hand rows first (by distance), then the rest top to bottom."""
    boxes, centres = R.boxes, R.centres
    n = len(boxes)
    rows_tiles, row_angle, row_groups_raw = R.rows_tiles, R.row_angle, R.row_groups_raw
    mt = rows_tiles[main]
    am = row_angle[main]
    ucm, vcm = _rotate(centres, am)
    Wm, Hm = _tile_sizes(boxes, am)
    mh = float(np.median(Hm[mt]))
    mw = float(np.median(np.minimum(Wm[mt], Hm[mt])))
    m_line = _line_v(mt, ucm, vcm, angle_free=len(mt) >= 3)
    m_u = (float((ucm - Wm / 2)[mt].min()), float((ucm + Wm / 2)[mt].max()))
    area = np.sqrt(Wm * Hm)
    near = []
    for r in range(len(rows_tiles)):
        if r == main:
            continue
        t = rows_tiles[r]
        rs_ = float(np.median(area[t]))
        # against the main-row tiles nearest to it: at a slant the row shrinks along it (_size_ratio)
        ms_ = _nearest_size(centres, area, mt, t)
        if max(rs_, ms_) > SIZE_RATIO * min(rs_, ms_):
            continue
        rh = float(np.median(Hm[t]))
        dv = min(abs(vcm[k] - m_line(ucm[k])) for k in t) - (mh + rh) / 2
        du = max(float((ucm - Wm / 2)[t].min()) - m_u[1], m_u[0] - float((ucm + Wm / 2)[t].max()))
        in_line = len(t) == 1 and abs(vcm[t[0]] - m_line(ucm[t[0]])) <= IN_LINE * mh
        if dv <= HAND_REACH * mh and (du <= ROW_GAP * mw or (in_line and du <= LONE_IN_LINE_GAP * mw)):
            near.append((dv, r))
    hand_rows = [main] + [r for _, r in sorted(near)]
    others = [r for r in range(len(rows_tiles)) if r not in hand_rows]
    others.sort(key=lambda r: float(np.mean(centres[rows_tiles[r], 1])))
    groups: list[Group] = []
    row_groups: list[tuple[int, ...]] = []
    for new_r, r in enumerate(hand_rows + others):
        ids = []
        for g in row_groups_raw[r]:
            ids.append(len(groups))
            groups.append(Group(tuple(g), new_r))
        row_groups.append(tuple(ids))
    order = tuple(t for ids in row_groups for g in ids for t in groups[g].tiles)
    # 4. per-tile flags, each tile against the other tiles of its group (or row, for short groups),
    #    in the row's own frame: relative height, aspect and offset toward the camera
    sideways = np.zeros(n, bool)
    displaced = np.zeros(n, bool)
    for new_r, r in enumerate(hand_rows + others):
        uc, vc = _rotate(centres, row_angle[r])
        w, h = _tile_sizes(boxes, row_angle[r])
        row_t = rows_tiles[r]
        for g in row_groups[new_r]:
            gt = list(groups[g].tiles)
            for k in gt:
                ref = [x for x in (gt if len(gt) >= 3 else row_t) if x != k]
                if len(ref) < 2:
                    continue
                hr = h[k] / float(np.median(h[ref]))
                ar = (w[k] / h[k]) / float(np.median(w[ref] / h[ref]))
                line = _line_v(ref, uc, vc, angle_free=len(ref) >= 3)
                off = (vc[k] - line(uc[k])) / float(np.median(h[ref]))
                sideways[k] = bool(ar > SIDEWAYS_ASPECT or (ar > 1.25 and (hr < 0.92 or off > 0.08)))
                displaced[k] = bool(off > DISPLACED) and not sideways[k]
    # how far each tile lies from the main row: across its line (tile heights, beyond touching) and
    # along it past its ends (tile widths); 0 for the main row's own tiles
    off_line = vcm - np.array([m_line(u) for u in ucm])  # signed, pixels (> 0 below the row)
    across = np.maximum(0.0, (np.abs(off_line) - Hm / 2) / max(mh, 1e-6) - 0.5)
    along = np.maximum(0.0, np.maximum(m_u[0] - (ucm + Wm / 2), (ucm - Wm / 2) - m_u[1]) / max(mw, 1e-6))
    dist = np.hypot(across, along)
    dist[mt] = 0.0
    offset = off_line / max(mh, 1e-6)
    return Geometry(float(row_angle[main]), tuple(groups), tuple(row_groups), 0, tuple(range(len(hand_rows))),
                    order, tuple(bool(x) for x in sideways), tuple(bool(x) for x in displaced), mw, mh, R.turned,
                    tuple(float(x) for x in dist), tuple(float(x) for x in offset),
                    tuple((float(u), float(w), float(h)) for u, w, h in zip(ucm, Wm, Hm)))


def _line_v(idx, uc: np.ndarray, vc: np.ndarray, angle_free: bool = True):
    """v as a function of u along the line through the centres ``idx`` (robust: median slope)."""
    idx = list(idx)
    u, v = uc[idx], vc[idx]
    if len(idx) < 2 or not angle_free:
        m = float(np.median(v))
        return lambda x: m
    du = u[:, None] - u[None, :]
    dv = v[:, None] - v[None, :]
    iu = np.triu_indices(len(idx), 1)
    ok = np.abs(du[iu]) > 1e-6
    slope = float(np.median(dv[iu][ok] / du[iu][ok])) if ok.any() else 0.0
    slope = max(-0.35, min(0.35, slope))
    icpt = float(np.median(v - slope * u))
    return lambda x: icpt + slope * x


# ----------------------------------------------------------------------------- roles
def bonus_probability(readings: TileReadings) -> np.ndarray:
    """(N,) probability that each tile is a flower or season."""
    return readings.probs[:, BONUS_INDEX].sum(1)


def bonus_face(readings: TileReadings, i: int) -> str:
    """The flower or season detection ``i`` reads most likely as (``"2f"``), whatever its top class."""
    return BONUS_TILES[int(np.argmax(readings.probs[i, BONUS_INDEX]))]


#: a tile whose probabilities of showing a blank face (the White dragon, 5z, or a back) add up to at
#: least this may be a concealed kong's back (:func:`blank_backs`)
BLANK_BACK = 0.5
_WHITE = CLASS_INDEX["5z"]
_BACK = CLASS_INDEX["0x"]


def blank_backs(geo: Geometry, readings: TileReadings, back: np.ndarray,
                never: np.ndarray | None = None, longer: bool = True,
                leave: frozenset[int] = frozenset()) -> tuple[tuple[int, tuple[int, int]], ...]:
    """Tiles of the hand region that show a blank face where a concealed kong shows its backs.

    Four tiles side by side in a group (the whole group, or, when ``longer``, four of a longer one: a kong
    laid as close to the tiles beside it as those to one another, :func:`_kongs_apart`), two in the middle,
    or the two at the ends, read as a White dragon (5z) or a back with :data:`BLANK_BACK` between them, none
    face-down already, and the other two read as the same tile, not a White nor a flower/season: a concealed
    kong laid out as the tables show one, two of its tiles turned face down. A set whose backs are as pale as
    its faces shows its backs as blank tiles, which the classifier cannot tell from a blank White dragon. The
    four may as well be a White pair beside two tiles of a set, so :mod:`vision.pipeline` takes them as backs
    only when the reading with Whites is not a legal hand (and asks for ``longer`` only for a winner's hand:
    for a non-winner's any 13 tiles are legal, and a 14-tile row with ``1m 5z 5z 1m`` in it would be read
    as a kong whatever it holds). Two such fours of a longer group that share a tile (``5z 2m 2m 5z 3p 3p
    5z``) are both passed over: which is the kong the tiles cannot say. ``back`` (N,) bool the tiles already
    taken as face-down; ``never`` (N,) bool tiles that are not blanks whatever their reading (the user set
    them: ``--fix``, ``--add``), though they may be the kong's faces; ``leave`` tiles out of every group
    (the user left them out, ``--fix N=-``, or they are taken as false boxes), as :func:`_kongs_apart` leaves
    them. Returns (detection index, (the two faces' indices)) per blank tile, in the groups' order.
    """
    P = readings.probs
    if len(P) == 0:
        return ()
    top = P.argmax(1)
    out: list[tuple[int, tuple[int, int]]] = []
    for g in geo.groups:
        tiles = [k for k in g.tiles if k not in leave]
        size = len(tiles)
        if g.row not in geo.hand_rows or size < 4 or (size > 4 and not longer):
            continue
        blank = {k: float(P[k, _WHITE] + P[k, _BACK]) >= BLANK_BACK and not back[k]
                 and not (never is not None and never[k]) for k in tiles}
        found: list[tuple[int, list[tuple[int, tuple[int, int]]]]] = []  # (first tile's place, its blanks)
        for i in range(size - 3):
            t = tiles[i:i + 4]
            for mids, ends in (((1, 2), (0, 3)), ((0, 3), (1, 2))):
                a, b = (t[e] for e in ends)
                if (all(blank[t[m]] for m in mids) and not blank[a] and not blank[b]
                        and not back[a] and not back[b] and top[a] == top[b] and top[a] not in (_WHITE, _BACK)
                        and CLASS_NAMES[top[a]] not in BONUS_TILES):
                    found.append((i, [(t[m], (a, b)) for m in mids]))
        for j, (i, blanks) in enumerate(found):
            if all(abs(i - i2) >= 4 for k, (i2, _) in enumerate(found) if k != j):  # (sharing no tile)
                out.extend(blanks)
    return tuple(out)


def assign_roles(geo: Geometry, det: Detections, readings: TileReadings, winner: bool = True,
                 exclude: frozenset[int] = frozenset(), given_bonus: frozenset[int] = frozenset()) -> Layout:
    """Candidate roles for every group of the hand region (see the module docstring).

    ``winner``: False for a non-winner's hand (no winning tile is looked for); ``exclude``: detection
    indices to leave out (taken as false detections), which become ``ignored``; ``given_bonus``:
    detection indices that are bonus tiles whatever their place (flowers/seasons the user added with
    ``--add``: where their box was put says nothing about them).
    """
    n = len(det)
    pb = bonus_probability(readings) if n else np.zeros(0)
    back = np.asarray(det.face_down, bool) | np.array([p == "face-down" for p in readings.pose], bool)
    side = np.array(geo.sideways, bool) | np.array([p == "sideways" for p in readings.pose], bool)
    hand_set = (set(geo.hand_tiles) - set(exclude)) | set(given_bonus)
    exclude = frozenset(exclude) | frozenset(given_bonus)  # (given bonus tiles take no part in the groups)
    ignored = tuple(t for t in geo.order if t not in hand_set)
    is_b = (pb > 0.5) & ~back if n else np.zeros(0, bool)
    P = np.asarray(readings.probs)
    top = P.argmax(1) if n else np.zeros(0, int)
    # the concealed kongs laid close inside each group of a hand row (_kong_window), found once: a flower beside
    # one is judged below, and the groups are cut at them after the flowers are placed (_kongs_apart)
    windows = {gi: _kong_window([k for k in g.tiles if k not in exclude], back, top, np.asarray(det.boxes, float))
               for gi, g in enumerate(geo.groups) if g.row in geo.hand_rows}
    bonus_l: list[int] = []
    stray: list[int] = []  # flowers/seasons among other tiles away from the hand: not this hand's
    off_bonus: dict[tuple[int, ...], int] = {}  # flower/season groups off the main row → their row
    misread: dict[int, tuple[int, tuple[int, ...]]] = {}  # a tile read otherwise in a group mostly of
    # flowers/seasons off the main row → (its row, those flowers/seasons)
    maybe_end: list[int] = []  # unsure flowers/seasons at the ends of the main row's groups
    beside_kong: set[int] = set()  # … of those, the ones inside a group, beside a concealed kong in it
    partner: set[int] = set()  # the other tile of a flower's pair (misread): its own roles kept too
    for gi, g in enumerate(geo.groups):
        if g.row not in geo.hand_rows:
            continue
        t = [k for k in g.tiles if k not in exclude]
        if g.row != 0:  # (off the main row, a face-down box beside a flower, in no kong, is no tile of its group)
            in_kong = {k for w in windows.get(gi, ()) for k in w}
            t = [k for k in t if not back[k] or k in in_kong]
        flags = [bool(is_b[k]) for k in t]
        if not any(flags):
            continue
        if g.row != 0:
            # (its face-down boxes left out but a concealed kong's, _kong_window: a flower lying below the row's end
            # on a check cloth, boxed 87 % and read 2f at 91 %, was in one group with a white square boxed face-down
            # beside it, read as "a flower at the end of a run of other things" and left out without a word, the
            # reading 89 % sure; a kong shown 0x 3s 3s 0x beside flowers set out in its row is read as before, its
            # backs in the group: without them the flowers were half of it, a bonus group, and the hand no hand)
            # away from the main row, flowers count only as a group of their own (not inside a pile of
            # discards or another player's tiles), and only as likely as the group is to be the hand's
            if not all(flags):
                # flowers/seasons in a run of three or more at an end of the group are set out beside
                # the tiles there: a bonus group of their own, as if apart (bonus tiles laid on in line
                # after the melds, or false boxes in the gaps joining the row's groups, as on a bed
                # cover); the group's other tiles keep their roles. (Two are not enough: two loose
                # flowers at the end of a pile of loose tiles in front of a composite's row were taken
                # for the hand's.) Under half of the group, or whatever their share when the rest is
                # three or more tiles none read so (a kong and four flowers after it)
                ends = (_end_run(t, flags), _end_run(t[::-1], flags[::-1]))
                runs = [r for r in ends if len(r) >= END_BONUS_RUN]
                if not runs:
                    # one at an end of a meld set out (three tiles, none read so, that the classifier reads as a
                    # pung or chow) in a row holding another meld set out: the hand's bonus tile laid on in line
                    # after its melds, as a run of three is (a phone tester's 2f touching the end of an exposed
                    # [789m], [333p] beside it, read 2f at 63 %, had been left out with the stray tiles, no doubt
                    # said: > 99 % sure, 20 for 21); not two, nor after a lone group (two at the end of a pile of
                    # loose tiles in front of a composite's row were taken for the hand's)
                    short = [r for r in ends if r]
                    meld = [k for k in t if not any(k in r for r in short)]
                    if (len(short) == 1 and len(short[0]) == 1 and len(meld) == 3
                            and not any(f for k, f in zip(t, flags) if k in meld)
                            and is_meld([readings.codes[k] for k in meld])
                            and any(h is not g and h.row == g.row and len(h.tiles) in (3, 4) for h in geo.groups)):
                        runs = short
                rest = [f for k, f in zip(t, flags) if not any(k in r for r in runs)]
                split = bool(runs) and (2 * sum(flags) < len(t) or (len(rest) >= 3 and not any(rest)))
                pair = len(t) == 2 and sum(flags) == 1 and float(pb[t[flags.index(False)]]) >= MAYBE_BONUS
                if not split and (pair or (len(t) >= 3 and sum(flags) >= 2 and 2 * sum(flags) >= len(t)
                                           and (flags[0] or flags[-1]))):
                    # at least half of a group read as flowers/seasons, one at an end: a bonus group
                    # whose other tiles may be misread bonus tiles (a season read upside-down as 5m);
                    # so too a flower beside one tile that is not unlikely as a flower or season (two
                    # bonus tiles set out in front of the row, an unseen set's 3y read 1s at 80 %)
                    fl = tuple(k for k, f in zip(t, flags) if f)
                    off_bonus[fl] = g.row
                    misread.update((k, (g.row, fl)) for k, f in zip(t, flags) if not f)
                    if pair:  # (the other tile may as well be the hand's: a winning tile set beside a flower)
                        partner.update(k for k, f in zip(t, flags) if not f)
                    continue
                runs = runs if split else []
                for r in runs:
                    off_bonus[tuple(k for k in t if k in r)] = g.row
                flags = [f and not any(k in r for r in runs) for k, f in zip(t, flags)]
                # ... but one read as a flower between the tiles of a group of 3 or 4 (a meld set out)
                # is a misread tile of that meld (a 1s's bird in a pung), as inside the main row
                inner = set(t[1:-1]) if len(t) in (3, 4) and not flags[0] and not flags[-1] else set()
                stray.extend(k for k, f in zip(t, flags) if f and k not in inner)
            elif len(t) < END_BONUS_RUN and _ends_other_run(geo, det, gi, t, is_b | back, exclude, readings.codes):
                # one or two read as flowers/seasons at the end of a run of other things in their row, split
                # from it only by a wider gap (a composite's row of keycaps, its "4 P" key read 4f at 87 %
                # and counted as the hand's flower): among other tiles, as inside their group
                stray.extend(t)
            else:
                off_bonus[tuple(t)] = g.row
            continue
        # bonus tiles count when their group is all bonus tiles, or they sit at its ends
        lo, hi = 0, len(t)
        while lo < hi and flags[lo]:
            lo += 1
        while hi > lo and flags[hi - 1]:
            hi -= 1
        ends = set(t[:lo]) | set(t[hi:])
        whole = all(flags)
        # beside a concealed kong laid close in the row (cut out of the group below, _kongs_apart): a flower
        # read as anything at :data:`WEAK_READ` or more is inside the hand's tiles (a reviewer's 1f between a 3s
        # and the kong: a tile of the hand misread; at 0.6-0.85 as a bonus tile, the row's 13 other tiles read
        # as a non-winner's hand), one read more weakly is weighed as at a group's end (a held-out bed-cover
        # render's pattern boxed in the gaps on both sides of its kong, read 1f at 13 and 23 %: taken as hand
        # tiles, the row was two tiles too long and the hand was read without the kong)
        for w in windows[gi]:
            a, b = t.index(w[0]), t.index(w[-1])
            beside_kong.update(t[j] for j in (a - 1, b + 1) if 0 <= j < len(t) and float(P[t[j]].max()) < WEAK_READ)
        for k, f in zip(t, flags):
            if f and (k in ends) and (whole or pb[k] >= SURE_BONUS):
                bonus_l.append(k)
            elif f and (k in ends or k in beside_kong):  # a flower at the end of the hand's tiles, not surely
                maybe_end.append(k)  # one: the decoder weighs a bonus tile against a misread tile of the hand
            # a flower or season read inside the main row (between tiles of the hand) stays in its group:
            # a tile of the hand misread (a 1s's bird, a calligraphic wind), read as its likeliest
            # playing tile by the decoder; nobody sets a bonus tile in the middle of the hand
    # flowers/seasons touching one another are one group wherever the row finder split them: tiles
    # laid sideways in a column are each a row of their own, and the column may reach past the region.
    # A tile outside the region joins only when its own group is all flowers/seasons, one in the region
    # read so beside one other tile too (not one inside a pile of discards); at most a hand's eight
    group_of = {k: g for g in geo.groups for k in g.tiles}
    pos = {k: i for i, k in enumerate(geo.order)}
    joined: set[tuple[int, ...]] = set()
    for c in _touching(det, [k for k in range(n) if is_b[k] and k not in exclude]):
        parts = [t for t in off_bonus if set(t) & set(c)]
        have = {k for t in parts for k in t}
        new = {k for k in c if k not in have and (
            (k in stray and len(group_of[k].tiles) <= 2)  # beside one other tile in the region
            or (k not in hand_set and all(is_b[j] and j not in exclude for j in group_of[k].tiles)))}
        merged = tuple(sorted(have | new, key=pos.__getitem__))
        # a block of flowers/seasons outside the region but beside the hand's row (its rows put in with
        # clutter, or its boxes doubtful): set apart on purpose, as a group in the region is (a tile left
        # out with --fix N=- takes no part, nor keeps its group-mates out)
        block = tuple(k for k in c if all(is_b[j] for j in group_of[k].tiles if j not in exclude))
        if not parts and _near_bonus_block(geo, det, block, hand_set | set(exclude)):
            off_bonus[block] = group_of[block[0]].row
            hand_set |= set(block)
            joined.add(block)
            continue
        if not parts or (len(parts) == 1 and not new) or len(merged) > len(BONUS_TILES):
            continue
        row = off_bonus[parts[0]]
        for t in parts:
            del off_bonus[t]
            joined.discard(t)
        hand_set |= new
        stray = [k for k in stray if k not in new]
        off_bonus[merged] = row
        joined.add(merged)
    # ... and a tile touching a tile of such a group of three or more, alone in its own group or with
    # them only, that the classifier gives some chance of being a flower or season (a column's season
    # read 5m), may be one of them misread, as in a mixed group (a winning tile laid beside the column,
    # read as itself, keeps its own roles)
    for fl in joined:
        if len(fl) < 3:
            continue
        for k in range(n):
            if (is_b[k] or back[k] or k in exclude or k in misread or pb[k] < MAYBE_BONUS or geo.distance(k) == 0
                    or not set(group_of[k].tiles) <= set(fl) | {k}
                    or not any(_touch(det.boxes[k], det.boxes[j]) for j in fl)):
                continue
            misread[k] = (off_bonus[fl], fl)
            hand_set.add(k)
    # a group of flowers/seasons off the main row is the hand's when that is the likelier (it changes
    # neither the tile count nor legality, so it is decided here, by its prior alone); one or two of
    # them among loose tiles off the row (discards, tiles pushed aside) are as likely loose ones
    loose = [g for g in geo.groups if g.row != 0 and g.row in geo.hand_rows and len(g.tiles) <= 2
             and not any(is_b[k] or back[k] or k in exclude for k in g.tiles)]

    meld_rows = {g.row for g in geo.groups if len(g.tiles) in (3, 4) and not any(is_b[k] for k in g.tiles)}
    left_out: list[tuple[tuple[int, ...], float]] = []
    far_counted: list[tuple[tuple[int, ...], float]] = []
    for t, row in off_bonus.items():
        # behind the row (where discards lie), among loose tiles behind it too, not in line with melds;
        # in a photo read turned 90° (rows running up it) which side is the camera's is not known
        behind = not geo.turned and geo.offset(t[0]) < 0
        lone = (behind and len(t) < 3 and row not in meld_rows
                and any(geo.offset(t[0]) - LOOSE_AMONG <= geo.offset(g.tiles[0]) < 0 for g in loose))
        p_in = _off_row_prior(geo, det, t, by_size=True) * (LOOSE_BONUS if lone else 1.0)
        (bonus_l if p_in >= 0.5 else stray).extend(t)
        # (not a block laid upright on the row's own line, as the hand's flowers are set out past its end: a phone
        # tester's own 1f 1y 6 tile widths past the row, counted since the forty-third session, lost to a reading
        # without them once doubted)
        in_line = all(_in_line(geo, k) for k in t) and not any(side[k] for k in t)
        if p_in >= 0.5 and min(geo.distance(k) for k in t) > FAR_COUNTED and not in_line:
            far_counted.append((t, p_in))
        # not when too large for a tile (a card); just in front of the row, nearer the camera, up to FRONT_LARGER (a
        # tester's 3f 1y lying flat against the front of a standing hand seen from low, 1.41× its tiles, were left out
        # without a word: the reading >99 % sure, its score 72 for 176; a composite's playing card as large, read 3f,
        # lies 0.9 tile sizes off the row)
        front = not geo.turned and geo.offset(t[0]) > 0 and min(geo.distance(k) for k in t) <= FRONT_NEAR
        if p_in < 0.5 and _size_ratio(geo, det, t) <= (FRONT_LARGER if front else LYING_LARGER):
            left_out.append((t, p_in))
    bonus = tuple(k for k in geo.order if k in set(bonus_l) | set(given_bonus))
    # a tile read otherwise among flowers/seasons that are not the hand's is not the hand's either (but the
    # other tile of a flower's pair keeps the roles of a tile where it lies)
    for k in partner:
        if misread[k][1][0] not in bonus:
            del misread[k]
    stray.extend(k for k, (row, fl) in misread.items() if fl[0] not in bonus)
    ignored = tuple(k for k in geo.order if k not in hand_set or k in set(stray))
    notes: list[str] = []
    out: list[GroupRoles] = []
    apart_single: list[int] = []  # (Layout.apart)
    # concealed kongs laid close in a row are cut out of their groups only now: where the flowers/seasons lie
    # (at a group's end, or inside it) was judged on the groups as found (a flower in the row beside such a
    # kong is inside the hand's tiles, not at an end); kongs, pieces: group indices of the cut groups
    kongs, pieces = frozenset(), frozenset()
    short_windows = {w for ws in windows.values() for w in ws if len(w) == 3}
    if n:
        geo, kongs, pieces = _kongs_apart(geo, windows)
    main_groups = set(geo.rows[0]) if geo.rows else set()
    for k, (row, fl) in misread.items():
        if fl[0] in bonus:  # the flowers/seasons beside it are the hand's: it may be one, misread
            o = [Option("bonus", MIXED_BONUS, why="in a group of flowers/seasons, read as another tile"),
                 Option("ignored", 1 - MIXED_BONUS, why="a loose tile beside the flowers/seasons")]
            if k in partner:  # … or a tile of the hand set out beside a flower (the winning tile)
                o = [Option(x.role, x.prior * (1 - PAIR_OWN), x.winning, x.why) for x in o] + (
                    [Option("winning", PAIR_OWN * 0.85, winning=k, why="a single tile set apart beside a flower"),
                     Option("concealed", PAIR_OWN * 0.15, why="a tile of the hand beside a flower")] if winner
                    else [Option("concealed", PAIR_OWN, why="a tile of the hand beside a flower")])
            out.append(GroupRoles((k,), row, tuple(sorted(o, key=lambda x: -x.prior))))
    for gi, g in enumerate(geo.groups):
        if g.row not in geo.hand_rows:
            continue
        for k in [t for t in g.tiles if t in maybe_end]:
            p = float(min(max(pb[k], 0.05), 0.95))
            o = [Option("bonus", p, why="a flower or season beside a concealed kong in the row" if k in beside_kong
                        else "a flower or season at the end of the hand's tiles")]
            if winner and side[k]:
                o += [Option("concealed", (1 - p) * 0.8, winning=k, why="winning tile laid sideways/forward at the row"),
                      Option("concealed", (1 - p) * 0.2, why="a tile of the hand read as a flower or season")]
            else:
                o.append(Option("concealed", 1 - p, why="a tile of the hand read as a flower or season"))
            out.append(GroupRoles((k,), g.row, tuple(sorted(o, key=lambda x: -x.prior))))
        tiles = tuple(t for t in g.tiles if t not in bonus and t not in stray and t not in exclude
                      and t not in maybe_end and t not in misread)
        if not tiles:
            continue
        in_main = gi in main_groups
        nb = int(back[list(tiles)].sum())
        opts: list[Option] = []
        size = len(tiles)
        if gi in kongs and size == 4:  # (a tile of it taken as a flower or a false box: read as any group is)
            opts.append(Option("concealed-kong", KONG_IN_ROW if nb < 4 else 0.6,
                               why="four tiles laid as a concealed kong, inside the row"))
            if nb < 4:
                opts.append(Option("concealed", 1 - KONG_IN_ROW,
                                   why="tiles of the concealed hand (a tile called face-down read as its face)"))
        elif gi in kongs and size == 3 and g.tiles in short_windows:
            # (:func:`_kong_window`'s kong short of the back at the group's end; not a window of four that lost a tile
            # as a flower or a stray, read as any group is: a reviewer's)
            opts.append(Option("concealed-kong", KONG_SHORT_OF_BACK, why=KONG_SHORT_OF_BACK_WHY))
            opts.append(Option("concealed", 1 - KONG_SHORT_OF_BACK,
                               why="tiles of the concealed hand (a tile called face-down read as its face)"))
        elif nb:
            if size == 4 and nb < 4:
                opts.append(Option("concealed-kong", 0.95, why="four tiles with face-down ones"))
            elif size == 4:
                # (its face unknown unless a tile of it reads one: a box set to its face by the user, a web tester's
                # 7z, keeps the detector's face-down flag, and the note had still said "(tile unknown)")
                faced = any(top[t] != _BACK for t in tiles)
                opts.append(Option("concealed-kong", 0.6, why="four face-down tiles: a concealed kong" + (
                    "" if faced else " (tile unknown)")))
            elif nb <= max(1, size // 4) and size >= 5:
                # a long group with a tile or two called face-down: the detector may be wrong about
                # them (a white dragon, glare); the group is still read, the backs as their best faces
                cands = _winning_candidates(geo, tiles, side) if winner else []
                for w in cands:
                    opts.append(Option("concealed", FACE_DOWN_MISREAD * 0.8 / len(cands), winning=w,
                                       why="winning tile laid sideways/forward at the row"))
                opts.append(Option("concealed", FACE_DOWN_MISREAD * (0.2 if cands else 1.0),
                                   why="tiles of the concealed hand (a tile called face-down read as its face)"))
                opts.append(Option("ignored", 1 - FACE_DOWN_MISREAD, why="a group with face-down tiles, not a kong"))
            else:
                opts.append(Option("ignored", 0.9, why="a group with face-down tiles, not a kong"))
            if not in_main:
                opts.append(Option("ignored", 0.1, why="outside the hand row"))
        elif size in (3, 4) and gi not in pieces:
            # (four tiles read with no three alike are no kong but by two misreads: offered as an exposed meld at 0.9,
            # the concealed tiles of a hand with three melds laid in a row of their own, 4p 5p 1z 1z, were read right
            # at 2 %: "the roles this reading needs are less likely", "lie apart like a meld")
            alike = max(np.bincount(top[list(tiles)])) if size == 4 else size
            if size == 4 and alike < 3:
                # (two blank faces between or around two of one tile: a concealed kong whose pale backs read as White
                # dragons, 2m 5z 5z 2m — alike but for its backs)
                f = [CLASS_NAMES[int(top[t])] for t in tiles]
                if any(f[a] == f[b] == "5z" != f[c] == f[d] for a, b, c, d in ((1, 2, 0, 3), (0, 3, 1, 2))):
                    alike = 4
            p_exp = 0.9 if alike >= 3 else UNALIKE_FOUR_EXPOSED
            opts.append(Option("exposed", p_exp, why="a group of %d set apart" % size
                               + ("" if alike >= 3 else ", its faces not a kong's")))
            opts.append(Option("concealed", 1 - p_exp, why="tiles of the concealed hand"))
            if winner:
                for w in _winning_candidates(geo, tiles, side):
                    opts.append(Option("concealed", (1 - p_exp) * 0.8, winning=w, why="winning tile laid sideways/forward"))
        elif size == 1 and gi not in pieces:
            t = tiles[0]
            apart = _apart_at_end(geo, gi) or (not in_main and _in_line(geo, t))
            if apart:
                apart_single.append(t)
            if winner:
                pw = 0.85 if (apart or side[t]) else 0.5
                opts.append(Option("winning", pw, winning=t, why="a single tile set apart" + (" sideways" if side[t] else "")))
                opts.append(Option("concealed", 1 - pw, why="a single concealed tile"))
            elif apart and in_main:
                # a non-winner's tile set apart at the row's end: the hand's 13th, or a discard (a tester's 13 tiles and a
                # 5s lying 0.6 tile widths beside them, said not won, were refused as 14 tiles, every tile listed)
                opts.append(Option("concealed", 1 - LOOSE_APART, why="a single concealed tile"))
                opts.append(Option("ignored", LOOSE_APART, why="a single tile set apart at the row's end (a discard?)"))
            else:
                opts.append(Option("concealed", 1.0))
            if pb[t] >= MAYBE_BONUS:  # a tile on its own may be a flower/season the classifier missed
                opts = [Option(o.role, o.prior * 0.7, o.winning, o.why) for o in opts]
                opts.append(Option("bonus", 0.3, why="a single tile apart that may be a flower or season"))
        else:
            cands = _winning_candidates(geo, tiles, side) if winner else []
            if cands:
                for w in cands:
                    opts.append(Option("concealed", 0.8 / len(cands), winning=w, why="winning tile laid sideways/forward at the row"))
                opts.append(Option("concealed", 0.2, why="no winning tile marked"))
            else:
                opts.append(Option("concealed", 1.0))
        if not in_main and not any(o.role == "ignored" for o in opts):
            # a group off the main row belongs to the hand less likely the farther it lies from it
            p_in = _off_row_prior(geo, det, tiles)
            opts = [Option(o.role, o.prior * p_in, o.winning, o.why) for o in opts]
            opts.append(Option("ignored", 1 - p_in, why="outside the main row"))
        opts.sort(key=lambda o: -o.prior)
        out.append(GroupRoles(tiles, g.row, tuple(opts)))
    if bonus:
        notes.append(f"{len(bonus)} tile(s) read as flowers/seasons set apart as bonus tiles")
    if ignored:
        notes.append(f"{len(ignored)} {AWAY_NOTE}")
    # flowers/seasons outside the hand region, tile-sized, alone or in a group of their own (not among a
    # pile of discards or another player's row): the hand's, set farther away, with prior FAR_BONUS
    far = [k for k in range(n) if k not in hand_set and is_b[k] and not back[k] and k not in exclude
           and all(is_b[j] for j in group_of[k].tiles)
           and 1 / SIZE_RATIO <= _size_ratio(geo, det, (k,)) <= LYING_LARGER]
    far_bonus = tuple((tuple(sorted(c, key=pos.__getitem__)), FAR_BONUS) for c in _touching(det, far)
                      if len(c) <= len(BONUS_TILES))  # (more than a set's eight: a pattern, not tiles)
    return Layout(geo, tuple(out), bonus, ignored, tuple(notes), tuple(left_out), far_bonus, tuple(apart_single),
                  _beside(geo, det, out, apart_single),
                  tuple((t, p) for t, p in far_counted if all(k in bonus for k in t)), frozenset(exclude))


def _beside(geo: Geometry, det: Detections, groups: Sequence[GroupRoles], apart: Collection[int] = ()
            ) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Pairs of ``groups`` (their tiles, in order along the row) that follow each other in one row of the hand
    region with a gap between their nearest boxes under :data:`BESIDE_GAP` of the mean width of those two boxes
    along the row (``det.boxes``: (N, 4) float xyxy pixels, turned 90° clockwise as the row finder turned them in
    a photo read turned, ``geo.turned``; the row direction ``geo.angle``): tiles laid together, as the concealed
    tiles of a hand and a tile set just apart from them. A single tile set apart at an end of the main row
    (``apart``: :attr:`Layout.apart`) is beside its neighbour however wide the gap: in line with the hand's tiles,
    at their end, it is the hand's or a discard."""
    if not len(det):
        return ()
    b = np.asarray(det.boxes, float).reshape(-1, 4)
    if geo.turned:  # ((x, y) → (−y, x), as _line_offsets turns the centres)
        b = np.stack([-b[:, 3], b[:, 0], -b[:, 1], b[:, 2]], 1)
    u, _ = _frame(b, geo.angle)
    out = []
    for r in sorted({g.row for g in groups}):
        row = sorted((g for g in groups if g.row == r and g.tiles), key=lambda g: float(u[list(g.tiles), 0].min()))
        for a, c in zip(row, row[1:]):
            ea = max(a.tiles, key=lambda t: u[t, 1])  # (a's box reaching farthest along, c's nearest back)
            sc = min(c.tiles, key=lambda t: u[t, 0])
            width = float((u[ea, 1] - u[ea, 0] + u[sc, 1] - u[sc, 0]) / 2)
            end = r == 0 and any(len(x.tiles) == 1 and x.tiles[0] in apart for x in (a, c))
            if width > 0 and (end or float(u[sc, 0] - u[ea, 1]) < BESIDE_GAP * width):
                out.append((a.tiles, c.tiles))
    return tuple(out)


def _kongs_apart(geo: Geometry, windows: dict[int, list[tuple[int, ...]]]
                 ) -> tuple[Geometry, frozenset[int], frozenset[int]]:
    """``geo`` with the concealed kongs that lie inside a longer group of a hand row (:func:`_kong_window`)
    made groups of their own: laid as close to the tiles beside them as those to one another, the row finder
    joins them, and a group of five to seven with two backs was read as no tiles of the hand at all (a
    held-out bed-cover render's 東 back back 東 between a 2m and its 666s; of eight or more, its backs were
    read as faces). ``windows``: per group index of a hand row, its kongs (:func:`_kong_window` of its tiles
    less those taken as false detections, which are never part of a kong). Returns the geometry, the
    indices of the kong groups and those of the pieces of the main row's groups they were cut from (concealed
    tiles, as the whole group was: not a meld set apart nor a tile set apart at the row's end; in another hand
    row, a row of melds, a piece is read as any group there)."""
    groups: list[Group] = []
    rows: list[tuple[int, ...]] = []
    kongs: set[int] = set()
    pieces: set[int] = set()
    for r, ids in enumerate(geo.rows):
        new: list[int] = []
        for gi in ids:
            g = geo.groups[gi]
            wins = windows.get(gi, [])
            parts: list[tuple[tuple[int, ...], bool]] = []
            at = 0
            for w in wins:  # (cut at the windows' first and last tiles: an excluded tile may lie inside one)
                a, b = g.tiles.index(w[0]), g.tiles.index(w[-1]) + 1
                parts += [(g.tiles[at:a], False), (g.tiles[a:b], True)]
                at = b
            parts.append((g.tiles[at:], False))
            for p, is_kong in parts:
                if not p:
                    continue
                if is_kong:
                    kongs.add(len(groups))
                elif wins and r == geo.main_row:
                    pieces.add(len(groups))
                new.append(len(groups))
                groups.append(Group(tuple(p), g.row))
        rows.append(tuple(new))
    if not kongs:
        return geo, frozenset(), frozenset()
    return replace(geo, groups=tuple(groups), rows=tuple(rows)), frozenset(kongs), frozenset(pieces)


def _kong_window(tiles: list[int], back: np.ndarray, top: np.ndarray, boxes: np.ndarray | None = None
                 ) -> list[tuple[int, ...]]:
    """The runs of four consecutive ``tiles`` (a group of five or more, in order along its row) laid as a
    concealed kong is shown — face-up, face-down, face-down, face-up with the two faces read alike,
    face-down, face-up, face-up, face-down with the two alike, or four face-down when the group has no other
    face-down tile (eight or more together are a wall) — when every face-down tile of the group lies in one of
    them (a face-down tile elsewhere: the group is read as before); [] otherwise. Given ``boxes`` ((N, 4) float
    xyxy pixels of every detection), also the three tiles at one end of the group laid as a concealed kong short
    of its outer back (face-up, face-up, face-down first, or face-down, face-up, face-up last; the faces alike, a
    playing tile but a White, the group's only face-down box read as a back by the classifier too), where no box
    lies at that back's place and the other end is not laid so."""
    if len(tiles) < 5:
        return []
    b = [bool(back[k]) for k in tiles]
    nb = sum(b)
    if not nb:
        return []
    found: list[tuple[int, ...]] = []
    i = 0
    while i + 4 <= len(tiles):
        w, f = tiles[i:i + 4], b[i:i + 4]
        if ((f == [False, True, True, False] and top[w[0]] == top[w[3]])
                or (f == [True, False, False, True] and top[w[1]] == top[w[2]])
                or (f == [True] * 4 and nb == 4)):  # (eight or twelve backs together: a wall, not kongs)
            found.append(tuple(w))
            i += 4
        else:
            i += 1
    # a concealed kong short of one back at the group's end (its faces on the side of the rest of the group, the back
    # the detector missed lying out beyond them): face-up, face-up, face-down at the group's first tiles, or
    # face-down, face-up, face-up at its last, the two faces alike and the face-down box read as a back by the
    # classifier too (a phone tester's 0x 1m 1m 0x, its first green back lost on green felt, the second touching
    # the 999s beside it: one group of six, its back read as 4z to make a pung, < 1 %, and no --add offered)
    # Not where a box lies at the missing back's place, one tile step out from the group's end (a box the hand's
    # region left out as doubtful: a phone tester's kong 0x 6z 6z 0x on a glossy table, its last back boxed at 0.3
    # among the table's reflections, had been read whole; taken as short of that back, the region without it won)
    # (and not where both ends read so, 5m 5m 0x 6z 6z: which kong it is the tiles cannot say)
    if nb == 1 and not found and boxes is not None:
        centre = (boxes[:, :2] + boxes[:, 2:]) / 2
        short = []
        for w, f, kb, end, inner in ((tiles[:3], b[:3], [False, False, True], tiles[0], tiles[1]),
                                     (tiles[-3:], b[-3:], [True, False, False], tiles[-1], tiles[-2])):
            faces = [k for k, x in zip(w, f) if not x]
            if not (f == kb and top[faces[0]] == top[faces[1]] and top[faces[0]] < len(PLAYING_TILES)
                    and top[faces[0]] != _WHITE and all(top[k] == _BACK for k, x in zip(w, f) if x)):
                continue
            at = 2 * centre[end] - centre[inner]
            if not any(boxes[k, 0] <= at[0] <= boxes[k, 2] and boxes[k, 1] <= at[1] <= boxes[k, 3]
                       for k in range(len(boxes)) if k not in tiles):
                short.append(tuple(w))
        return short if len(short) == 1 else []
    covered = {k for w in found for k in w}
    return found if all(k in covered for k, f in zip(tiles, b) if f) else []


#: a flower/season read at under this (its top class) just beside a concealed kong inside a group of the main row
#: is weighed as a bonus tile against a tile of the hand (as at the group's end), not taken as the hand's
#: outright: a cloth pattern boxed in the gaps beside the kong (a held-out bed-cover render's, 13 and 23 %)
WEAK_READ = 0.5
#: the prior of four tiles laid as a concealed kong inside a longer group of the row (:func:`_kongs_apart`)
#: being the kong; else they are concealed tiles, the face-down ones read as their faces (a White pair the
#: detector called face-down between two alike tiles)
KONG_IN_ROW = 0.9
#: the prior of three tiles at a group's end laid as a concealed kong short of a back (two alike faces, then a box
#: read as a back, the group's end beyond: :func:`_kong_window`) being that kong, its other back not detected; else
#: they are concealed tiles, the face-down one read as its face (as the whole group was before it was cut)
KONG_SHORT_OF_BACK = 0.6
#: the why of that option (the reading's note names the kong's missing back by it)
KONG_SHORT_OF_BACK_WHY = "three tiles laid as a concealed kong, its other face-down tile not detected"


def _near_bonus_block(geo: Geometry, det: Detections, block, region: set[int]) -> bool:
    """True when ``block`` (touching flowers/seasons, :func:`_touching`, each in a group of flowers/seasons
    only but the tiles left out with ``--fix N=-``: :func:`assign_roles` picks them) holds at most eight (a
    hand's most), none in the hand region (``region``: its detection indices and those left out), their median
    size a tile's beside the main row (:func:`_size_ratio`), and — a block of :data:`END_BONUS_RUN` or more —
    its nearest box lies within :data:`OFF_ROW_NEAR` tile heights of a main-row box, or — a block of any size
    (a phone tester's two flowers 5 tile widths past the row's end, in line with it, had been left out at 80 %)
    — the block on the main row's line (its median offset within :data:`IN_LINE`), within :data:`LONE_IN_LINE_GAP`
    tile widths (:attr:`Geometry.tile_w`) of it: bonus tiles laid out
    beside the hand, not another player's (those lie a hand's depth away, across the table). The gap is
    measured between the boxes (pixels over :attr:`Geometry.tile_h`), not by :meth:`Geometry.distance`,
    which is infinite for the doubtful boxes a region found among the sure ones leaves out
    (:func:`lift_geometry`)."""
    main = list(geo.row_tiles(0)) if geo.rows else []
    if (not main or not 1 <= len(block) <= len(BONUS_TILES) or set(block) & region
            or not 1 / SIZE_RATIO <= _size_ratio(geo, det, tuple(block)) <= LYING_LARGER):
        return False
    b = np.asarray(det.boxes, np.float64)
    a, m = b[list(block)][:, None, :], b[main][None, :, :]
    dx = np.maximum(0.0, np.maximum(a[..., 0] - m[..., 2], m[..., 0] - a[..., 2]))
    dy = np.maximum(0.0, np.maximum(a[..., 1] - m[..., 3], m[..., 1] - a[..., 3]))
    gap = float(np.hypot(dx, dy).min())
    if len(block) >= END_BONUS_RUN and gap <= OFF_ROW_NEAR * max(geo.tile_h, 1e-6):
        return True
    # laid out on the row's own line, beside its end, as far as a lone tile set apart there may be (a
    # hard-scene render: eight bonus tiles 3.3 tile widths left of the row, left out as loose ones)
    line = float(np.median(_line_offsets(geo, det, block)))
    return abs(line) <= IN_LINE and gap <= LONE_IN_LINE_GAP * max(geo.tile_w, 1e-6)


def _line_offsets(geo: Geometry, det: Detections, idx) -> np.ndarray:
    """(len(idx),) float: each detection's centre offset across the main row's line (the line through the
    main row's box centres, :func:`_line_v`, along :attr:`Geometry.angle`), in tile heights, from the boxes
    themselves: :meth:`Geometry.offset` is 0 for the boxes a region found among the sure ones leaves out
    (:func:`lift_geometry`), which would put any of them "on the line" (a reviewer's doubtful flowers 3 tile
    heights behind the row, taken as the hand's). In a photo read turned (``geo.turned``) the centres are
    turned 90° clockwise as the row finder turned them (a shift, which cancels, aside)."""
    main = list(geo.row_tiles(0)) if geo.rows else []
    b = np.asarray(det.boxes, np.float64).reshape(-1, 4)
    c = (b[:, :2] + b[:, 2:]) / 2
    if geo.turned:
        c = np.stack([-c[:, 1], c[:, 0]], 1)
    u, v = _rotate(c, geo.angle)
    line = _line_v(main, u, v, angle_free=len(main) >= 3)
    return np.array([(v[k] - line(u[k])) / max(geo.tile_h, 1e-6) for k in idx], np.float64)


def _ends_other_run(geo: Geometry, det: Detections, gi: int, tiles, flagged: np.ndarray,
                    exclude: frozenset[int], codes: Sequence[str] = ()) -> bool:
    """The tiles ``tiles`` of group ``gi`` (off the main row, all read as flowers/seasons) touch
    (:func:`_touch`) a tile of another group of their row that is no meld nor melds: a group of other than 3
    or 4 tiles, with a tile not ``flagged`` (read as a flower/season, or face down) and not in ``exclude``, whose
    tiles not flagged, read as ``codes`` (per detection), do not make melds (:func:`_make_melds`) — so they end a
    run of other things (keys, loose tiles) that the row finder split at a wider gap. A flower laid after exposed
    melds keeps its own group (two touching pungs are a group of 6: a reviewer's)."""
    row = geo.groups[gi].row
    for gj, g in enumerate(geo.groups):
        if gj == gi or g.row != row or len(g.tiles) in (3, 4):
            continue
        others = [k for k in g.tiles if not flagged[k] and k not in exclude]
        if not others or (codes and _make_melds([codes[k] for k in others])):
            continue
        if any(_touch(det.boxes[a], det.boxes[b]) for a in tiles for b in g.tiles if b not in exclude):
            return True
    return False


def _make_melds(codes: Sequence[str]) -> bool:
    """The tile ``codes`` (``"5p"``, …) split wholly into pungs, kongs and chows."""
    left = sorted(codes)
    if not left:
        return True
    t = left[0]
    for take in ([t] * 4, [t] * 3) + (((t, f"{int(t[0]) + 1}{t[1]}", f"{int(t[0]) + 2}{t[1]}"),)
                                      if t[1] in "mps" and t[0].isdigit() and int(t[0]) <= 7 else ()):
        rest = list(left)
        try:
            for x in take:
                rest.remove(x)
        except ValueError:
            continue
        if _make_melds(rest):
            return True
    return False


def _touching(det: Detections, idx: list[int]) -> list[list[int]]:
    """The tiles ``idx`` in groups of boxes that touch (:func:`_touch`), in any direction, so a column
    of tiles laid sideways is one group. Each group in ``idx`` order; singles included."""
    edges = [(a, c) for a in range(len(idx)) for c in range(a + 1, len(idx))
             if _touch(det.boxes[idx[a]], det.boxes[idx[c]])]
    return [[idx[k] for k in comp] for comp in _components(len(idx), edges)]


def _touch(a: np.ndarray, b: np.ndarray) -> bool:
    """Boxes ``a``, ``b`` (4,) xyxy pixels touch: the gap between them, along x and along y, is under
    :data:`TOUCH` of the smaller one's size (√(w·h)) — side by side, one above the other or corner to
    corner — their sizes are within :data:`SIZE_RATIO`, and neither covers over half of the other (two
    boxes on one tile do not touch)."""
    sa = math.sqrt(max(float((a[2] - a[0]) * (a[3] - a[1])), 0.0))
    sb = math.sqrt(max(float((b[2] - b[0]) * (b[3] - b[1])), 0.0))
    lo, hi = min(sa, sb), max(sa, sb)
    g = TOUCH * lo
    if not (hi <= SIZE_RATIO * lo and a[0] - g < b[2] and b[0] - g < a[2] and a[1] - g < b[3] and b[1] - g < a[3]):
        return False
    inter = max(0.0, float(min(a[2], b[2]) - max(a[0], b[0]))) * max(0.0, float(min(a[3], b[3]) - max(a[1], b[1])))
    return inter <= 0.5 * lo * lo


def _off_row_prior(geo: Geometry, det: Detections, tiles: tuple[int, ...], by_size: bool = False) -> float:
    """The prior that a group off the main row (and within the hand region) is the hand's:
    :data:`OFF_ROW_IN` (:data:`OFF_ROW_SINGLE` for a single tile: more often a loose one — a discard,
    a tile pushed aside — than the hand's winning tile laid off the row) within :data:`OFF_ROW_NEAR`
    tile sizes of the row, × exp(−:data:`OFF_ROW_DECAY` per tile size beyond); ``by_size`` (a group of
    flowers and seasons, set apart wherever it lies):
    :data:`OFF_ROW_IN` for three or more together, else × (its tile size / that of the main-row tiles
    beside it, :func:`_size_ratio`)³ when its tiles are smaller — one or two loose tiles farther from
    the camera, behind the hand; in front of the row (× (ratio / :data:`LYING_SMALLER`)³ below that),
    where a tile lying flat looks smaller only by being seen at a slant — and ×
    (:data:`LYING_LARGER` / that ratio)^:data:`LARGER_FALL` when they are larger than a tile lying
    nearer the camera can look (a playing card read as a flower); melds are not judged so: they often
    lie flat beside a standing hand."""
    main = list(geo.row_tiles(0)) if geo.rows else []
    if by_size and len(tiles) >= 3:  # three or more flowers/seasons together: set apart on purpose
        return OFF_ROW_IN
    if by_size and main and len(det):
        ratio = _size_ratio(geo, det, tiles)
        # smaller: farther (loose tiles behind the hand) — in front of the row only below 0.7×, as a
        # tile lying flat looks smaller than the standing ones by being seen at a slant; much larger
        # than a tile lying nearer the camera can be (1.3× the row's tiles beside it): not a tile of
        # this set (a playing card, a coaster)
        front = not geo.turned and geo.offset(tiles[0]) > 0
        small = min(1.0, ratio / LYING_SMALLER if front else ratio) ** 3
        return OFF_ROW_IN * small * min(1.0, LYING_LARGER / ratio) ** LARGER_FALL
    d = min(geo.distance(t) for t in tiles)
    if len(tiles) == 1 and _in_line(geo, tiles[0]):  # set apart on the row's line, on purpose
        return OFF_ROW_IN * math.exp(-OFF_ROW_DECAY * max(0.0, d - ROW_GAP))
    base = OFF_ROW_SINGLE if len(tiles) == 1 else OFF_ROW_IN
    return base * math.exp(-OFF_ROW_DECAY * max(0.0, d - OFF_ROW_NEAR))


def _size_ratio(geo: Geometry, det: Detections, tiles: tuple[int, ...]) -> float:
    """The median tile size (√(w·h)) of ``tiles`` over that of the :data:`SIZE_NEAREST` main-row tiles
    nearest to them (box centres; 1.0 without a main row): in a photo taken at a slant the row's tiles
    shrink along it, and a tile lying in front of its near end looks as large as the tiles there,
    not as the row's median. A main row of fewer than :data:`SIZE_NEAREST` tiles (a single tile set
    apart, often boxed short) is measured with the hand region's other tiles: one box is no scale."""
    main = list(geo.row_tiles(0)) if geo.rows else []
    if not main or not len(det):
        return 1.0
    if len(main) < SIZE_NEAREST:
        own = set(tiles)
        region = [t for t in geo.hand_tiles if t not in own]
        main = region if len(region) > len(main) else main
    size = np.sqrt(np.prod(det.sizes, axis=1))
    return float(np.median(size[list(tiles)])) / max(_nearest_size(det.centres, size, main, tiles), 1e-6)


def _nearest_size(centres: np.ndarray, size: np.ndarray, main, tiles) -> float:
    """The median of ``size`` ((N,) pixels) over the :data:`SIZE_NEAREST` detections of ``main`` whose
    centres ((N, 2) pixels) lie nearest to the mean centre of ``tiles`` (all of ``main`` when fewer)."""
    main = np.asarray(list(main), int)
    here = centres[list(tiles)].mean(0)
    near = main[np.argsort(np.hypot(*(centres[main] - here).T))[:SIZE_NEAREST]]
    return float(np.median(size[near]))


def is_meld(codes: Sequence[str]) -> bool:
    """The tile codes make a pung, kong or chow (:func:`scoring.notation.meld_from_tiles`); a code that is no playing
    tile (a flower, a back) makes none."""
    if any(c not in PLAYING_TILES for c in codes):
        return False
    try:
        meld_from_tiles(list(codes), concealed=False)
    except HandError:
        return False
    return True


def _end_run(tiles, flags) -> tuple[int, ...]:
    """The tiles at the start of ``tiles`` whose ``flags`` are all true, when not the whole group (a
    group all flowers/seasons is a bonus group as it is)."""
    k = 0
    while k < len(flags) and flags[k]:
        k += 1
    return tuple(tiles[:k]) if k < len(flags) else ()


def _in_line(geo: Geometry, t: int) -> bool:
    """Detection ``t`` lies on the main row's line (centre within :data:`IN_LINE` tile heights of it)."""
    return abs(geo.offset(t)) <= IN_LINE


def _winning_candidates(geo: Geometry, tiles: tuple[int, ...], side: np.ndarray) -> list[int]:
    """Tiles of a group that look like a winning tile: sideways at an end, or pushed forward."""
    out = []
    for t in (tiles[0], tiles[-1]):
        if side[t] and not all(side[list(tiles)]) and t not in out:
            out.append(t)
    for t in tiles:
        if geo.displaced[t] and t not in out:
            out.append(t)
    return out


def _apart_at_end(geo: Geometry, gi: int) -> bool:
    """True when group ``gi`` is the first or last group of its row and its row has other groups."""
    g = geo.groups[gi]
    ids = geo.rows[g.row]
    return len(ids) > 1 and gi in (ids[0], ids[-1])


def layout(det: Detections, readings: TileReadings, image_size: tuple[int, int], winner: bool = True) -> Layout:
    """:func:`find_geometry` then :func:`assign_roles`."""
    return assign_roles(find_geometry(det, image_size), det, readings, winner)
