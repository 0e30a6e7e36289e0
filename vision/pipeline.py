"""Photo → scored hand, and the ``mahjong-score photo`` command.

The flow (``ARCHITECTURE.md``), each stage a plain function of frozen values::

    load_photo ─▶ Photo ─▶ detect ─▶ Detections ─▶ classify ─▶ TileReadings ─▶ (apply_fixes)
      ─▶ layout ─▶ Layout ─▶ decode ─▶ Reading ─▶ score_hand ─▶ ScoredHand

:func:`read_photo` runs them and returns a :class:`PhotoResult` holding every intermediate value.
Tiles are numbered in the order of :attr:`vision.layout.Geometry.order` (the hand's rows first, left
to right): ``--fix 3=5p`` sets tile 3 before layout and decoding, so the rest of the reading adapts.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import cv2
import numpy as np

from scoring import Context, HandError, ScoredHand, explain, load_ruleset, score_hand
from scoring.engine import Ruleset
from scoring.errors import echo
from scoring.notation import fold_suit_case, parse_winning_tile

from .classes import BACK, BONUS_TILES, CLASS_INDEX, DROP, HONOUR_TILES, SUIT_TILES
from .annotate import IGNORED_NUMBERS
from .classify import Classifier, TileReadings, load_classifier
from .decode import (AMONG_CONCEALED, AMONG_CONCEALED_NOTE, AMONG_CONCEALED_ONE, BROKEN_GROUP, BROKEN_GROUP_NOTE,
                     BEYOND_NAMED, BEYOND_NAMED_NOTE, BOXED_TWICE, CLAIMED_IN_ROW, OTHER_ROW, OTHER_ROW_NOTE,
                     STACKED_KONG,
                     CHANGED_NOTE, FORCED_WIN_NOTE, ONE_BACK_KONG, ONE_BACK_KONG_NOTE, REVIEW_BELOW, UNREAD_PLAYING,
                     Reading, RegionRival, decode, format_confidence, format_confidence_below, number_after_hand,
                     number_spans, with_left_out_melds)
from .detect import (Detections, Detector, MemoisedDetector, MirrorFusedDetector, QuarterAddedDetector, add_second,
                     load_detector, load_second_detector)
from .errors import ImageError, NoTilesError, TileNumberError, VisionError
from .io import Photo, Source, load_photo
from .layout import (AWAY_NOTE, BONUS_INDEX, MISSING_TILE, Candidate, Geometry, Layout, assign_roles, blank_backs,
                     bonus_face, bonus_probability, by_prior, find_geometry, hand_candidates, is_meld, lift_geometry)

REPO = Path(__file__).resolve().parents[1]
DEMO_PHOTO = REPO / "docs" / "demo.jpg"
DEMO_TRUTH = REPO / "docs" / "demo.json"
#: JPEGs are decoded at the smallest scale keeping their long side ≥ this (see vision.io)
WORK_SIDE = 1800


@dataclass(frozen=True)
class Straightened:
    """How a photo whose rows ran off level was straightened (:func:`straighten_photo`).

    * ``degrees``: the photo was turned this far anticlockwise (negative: clockwise) about its centre
      (the corners of the turned photo filled grey, 114 as the detector's letterbox);
    * ``size``: (width, height) of the photo's pixels before, as loaded (the working scale);
    * ``original_size``: (width, height) of the file at full resolution, EXIF-upright;
    * ``offset``: (x, y) pixels of the part of the turned photo kept (it holds the tiles found) in the
      whole turned photo.
    """

    degrees: float
    size: tuple[int, int]
    original_size: tuple[int, int]
    offset: tuple[int, int] = (0, 0)

    def matrix(self) -> np.ndarray:
        """(2, 3) float64 affine map of pixel coordinates (working scale), before → straightened
        (``cv2.getRotationMatrix2D`` about the centre, then shifted to the part kept)."""
        M = turn_matrix(self.size, self.degrees)[0]
        M[:, 2] -= self.offset
        return M


@dataclass(frozen=True)
class PhotoResult:
    """Everything the pipeline computed for one photo (boxes in ``photo.pixels`` coordinates)."""

    photo: Photo
    detections: Detections
    readings: TileReadings
    layout: Layout
    reading: Reading
    scored: ScoredHand | None
    timings: Mapping[str, float] = field(default_factory=dict)
    #: the photo was read turned by this many degrees clockwise (0, 90, 180, 270): ``photo`` and the
    #: boxes are then those of the turned photo (:func:`read_photo`'s rotation tries)
    turned: int = 0
    #: joint log-score of the chosen reading (:func:`read_detections`; when not legal, log(region prior)
    #: + log(MISSING_TILE) per tile its count is off the hand's, :func:`_search_regions`)
    joint: float = -math.inf
    #: detection indices of the tiles the user added (``--add``; boxes placed by :func:`add_tiles`)
    added: tuple[int, ...] = ()
    #: detection indices of every tile the user set (``--fix`` and ``--add``; ``--fix POS=-`` too)
    user: frozenset[int] = frozenset()
    #: detection indices of the boxes the user left out of the hand (``--fix POS=-``, :data:`DROP`)
    dropped: frozenset[int] = frozenset()
    #: {added tile: the box it stands for}: each flower/season the user added where the reading shown left out a
    #: box of its face as a loose bonus tile (:func:`replaced_boxes`), as pairs of detection indices
    replaced: tuple[tuple[int, int], ...] = ()
    #: the calibrated tile set (profile name) the classifier read with, None for the model alone
    tileset: str | None = None
    #: each tile the user fixed to a face (``--fix POS=TILE``) with what the classifier read on it before:
    #: ``(detection index, (tile read, its probability))``, by index
    fixed_from: tuple[tuple[int, tuple[str, float]], ...] = ()
    #: boxes left out before the hand was looked for: the classifier judged them not to be tiles
    #: (:func:`drop_not_tiles`; they are not in ``detections``)
    not_tiles: int = 0
    #: the photo was read straightened (its rows levelled; :func:`straighten_photo`) before any ``turned``
    #: quarter turn: ``photo`` and the boxes are then those of the straightened photo; None when not
    straightened: Straightened | None = None
    #: the boxes are the detector's passes over the photo and its mirror image fused
    #: (:class:`vision.detect.MirrorFusedDetector`): the first pass's reading was weak (:func:`read_photo`)
    mirrored: bool = False
    #: the boxes include a second detector's (:class:`vision.detect.SecondDetector`, :func:`~vision.detect.add_second`):
    #: the first reading was unsure (:data:`SECOND_BELOW`; :func:`read_photo`)
    second: bool = False
    #: detection indices of the boxes the second detector added (empty when ``second`` is False)
    second_boxes: tuple[int, ...] = ()
    #: the notes :func:`read_photo` put first, saying how the photo was straightened and turned
    #: (:func:`with_frame`)
    frame_notes: tuple[str, ...] = ()
    #: the reading's confidence has been weighed against the poses of the faces that tell up from down
    #: (:func:`frame_doubt`, once, by :func:`with_frame`: the frame the reading is shown in is final then)
    frame_doubted: bool = False
    #: the boxes were found in another turn of the photo and read again in this one, where the faces that tell
    #: up from down stand (:func:`read_photo`'s ``faces_frame``); ``faces_from``: that other turn (degrees
    #: clockwise, as ``turned``)
    faces_frame: bool = False
    faces_from: int = 0

    @property
    def order(self) -> tuple[int, ...]:
        return self.layout.geometry.order

    def position(self, det_index: int) -> int:
        """The 1-based tile number shown to the user for a detection."""
        return self.order.index(det_index) + 1


def split_items(text: str | None) -> list[str]:
    """The POS=TILE items of a correction list: split by commas, semicolons or any white space (a tab,
    a newline: a manifest cell), "11 = -" read as "11=-"; empty items dropped."""
    return [x for x in re.split(r"[,;\s]+", re.sub(r"\s*=\s*", "=", text or "")) if x]


def _pos_tiles(text: str | None, option: str, example: str, drop: bool = False) -> list[tuple[int, str]]:
    """``"3=5p,7=1z"`` → ``[(3, '5p'), (7, '1z')]`` in the order given, a suit letter typed in upper case
    read as lower case (``3=5P`` is ``3=5p``; :func:`scoring.notation.fold_suit_case`) and full-width forms as
    ASCII (``３＝５ｐ``: :data:`scoring.notation.FULL_WIDTH`); HandError naming ``option``
    for an item that is not POS=TILE, a position that is not a number or an unknown tile code
    (``drop``: :data:`DROP` is a code too), and for a list of separators only (``",,,"``: a correction
    meant and lost; white space alone is no correction, as an empty manifest cell)."""
    from scoring.notation import FULL_WIDTH

    out: list[tuple[int, str]] = []
    # (full-width forms a CJK keyboard types, ３＝５ｐ, read as ASCII: `--claimed ４０` was taken, `--fix ３=5p`
    # refused, a tester's)
    text = None if text is None else text.translate(FULL_WIDTH)
    items = split_items(text)
    if not items and (text or "").strip():
        raise HandError(f"{option} {(text or '').strip()[:40]!r} gives no POS=TILE item, e.g. {example}")
    for item in items:
        said = repr(item if len(item) <= 40 else item[:39] + "…")  # (one short line, whatever was given)
        if "=" not in item:
            raise HandError(f"{option} {said} must be POS=TILE, e.g. {example}")
        k, v = item.split("=", 1)
        if re.fullmatch(r"\s*-\s*[0-9]+", k):  # (a tester: "-1 is not a number"; it is, and no tile's)
            raise TileNumberError(f"{option} {said}: position {k.strip()[:20]} is below 1 (tiles are numbered from 1)")
        if not re.fullmatch(r"[0-9]+", k):  # (int() takes "+3", "3_0" and other scripts' digits)
            raise HandError(f"{option} {said}: position {k[:20]!r} is not a number")
        digits = k.lstrip("0")
        if len(digits) > 9:  # (int() refuses over 4 300 digits with a traceback; no photo has so many)
            shown = digits if len(digits) <= 12 else digits[:12] + "…"
            raise TileNumberError(f"{option} {said}: there is no tile {shown} ({len(digits)} digits)")
        pos = int(k)
        typed = v.strip()
        v = fold_suit_case(typed).replace("X", "x")  # (5P is 5p, 2F 2f, 0X 0x, as in the notation)
        if v not in CLASS_INDEX and not (drop and v == DROP):
            raise HandError(f"{option} {said}: {typed[:20]!r} is not a tile code (1m-9m, 1p-9p, 1s-9s, 1z-7z, 1f-4f, 1y-4y, 0x"
                            + (f"; {DROP} leaves the box out of the hand" if drop else "") + ")")
        out.append((pos, v))
    return out


def parse_fixes(text: str | None) -> dict[int, str]:
    """``"3=5p,7=1z,9=-"`` → ``{3: '5p', 7: '1z', 9: '-'}`` (1-based tile numbers; :data:`DROP` ``-``: the
    box is not a tile of the hand). Raises HandError for a malformed item, an unknown tile code or one
    tile given two different values."""
    out: dict[int, str] = {}
    for pos, v in _pos_tiles(text, "--fix", "3=5p", drop=True):
        if out.get(pos, v) != v:
            raise HandError(f"--fix: tile {pos} is given twice ({pos}={out[pos]} and {pos}={v})")
        other = next((q for q, c in out.items() if c == v and q != pos), None) if v in BONUS_TILES else None
        if other is not None:
            raise HandError(f"--fix: {v} is given to two tiles ({other}={v} and {pos}={v}); a set has one of each "
                            f"flower and season")
        out[pos] = v
    return out


def parse_additions(text: str | None) -> list[tuple[int, str]]:
    """``"14=5p,1=2z"`` → ``[(14, '5p'), (1, '2z')]``: tiles the detector missed, each to become tile
    POS (it lies before the tile that had number POS, or after the last tile for N+1), one after the
    other in the order given (:func:`add_tiles`). Raises HandError for a malformed item, an unknown
    tile code or a position given twice for the same place (``14=5p,14=6p`` would put the 6p before
    the 5p just added: each position counts the tiles added before it, so two tiles missed side by
    side are ``14=5p,15=6p``; ``14=5p,1=2z,14=6p`` is fine, the 5p being tile 15 by then)."""
    out = _pos_tiles(text, "--add", "14=5p (the missed tile becomes tile 14)")
    placed: list[tuple[int, str]] = []  # (its number now, code) of the tiles added so far
    for pos, v in out:
        same = next((c for q, c in placed if q == pos), None)
        if same is not None:
            raise HandError(f"--add: position {pos} is given twice ({pos}={same} and {pos}={v}: {v} would go before "
                            f"the {same} just added); each position counts the tiles added before it, so two "
                            f"tiles missed side by side are {pos}={same},{pos + 1}={v}")
        placed = [(q + 1 if q >= pos else q, c) for q, c in placed] + [(pos, v)]
    return out


#: a tile added past a face-down tile (the end of a concealed kong) lies this many tile steps away
KONG_GAP = 1.6

#: centre distance, in tile steps of the row, at which an added tile's box still leaves a group break
#: to the next group (the layout splits a row where neighbours are 1.22× the usual step apart,
#: vision.layout.GROUP_SPLIT; with margin)
BREAK_STEPS = 1.35
#: a gap between two tiles of a row up to this many tile steps (centre to centre) is room for one tile: a tile
#: added there goes in its middle (:func:`add_tiles`)
ONE_TILE_GAP = 2.4
#: a box over this many times as long along its row as the row's boxes (their median) is a tile lying
#: sideways (the demo's sideways 8p 1.3, the riichi photo's sideways 4s 1.8; the demo's face-down and
#: standing tiles up to 1.1): a tile added beside it is given the row's median box size, and lies half
#: its length and half that box's on from it, not one tile step (:func:`add_tiles`)
SIDEWAYS_REACH = 1.2
#: with no tile to lie beside (nothing was detected), the first added tile's box is this big (width,
#: height in pixels) with its top-left corner here; the tiles added after it follow it in a row
ALONE_TILE, ALONE_AT = (60.0, 80.0), (20.0, 20.0)


#: the roles of melds set apart from the concealed hand: an added tile is not let join one to a next group
SET_APART = {"exposed": "the exposed meld", "concealed-kong": "the concealed kong"}


def add_tiles(det: Detections, readings: TileReadings, geo: Geometry, additions: Sequence[tuple[int, str]],
              roles: Sequence[str] | None = None, left_out: frozenset[int] = frozenset(),
              fixed: Mapping[int, str] | None = None) -> tuple[Detections, TileReadings, tuple[int, ...]]:
    """Detections and readings with a box for each tile the user added (``--add POS=TILE``), and the
    numbering with them inserted.

    Additions are made one at a time in the order given, each POS in the numbering that holds the
    earlier additions (``geo.order`` for the first): the tile becomes tile POS, before the tile that
    had that number (N+1: after the last). Its box is the size of its neighbour in the numbering and
    lies one tile step on from it toward the next tile of its row when there is a gap (the missed
    tile's place; in the gap's middle where it has room for that tile alone, :data:`ONE_TILE_GAP`), between
    the two when they touch, or one step past the row's end (:data:`KONG_GAP`
    steps past a face-down tile, so it is not taken for a fifth tile of a concealed kong), so the
    layout sees it in the row; its reading is certain (the tile given), its detector score 1. With
    no detections at all the first added tile gets an :data:`ALONE_TILE` box at :data:`ALONE_AT` and
    the others follow it in a row (a hand made only of added tiles).

    A tile of a group all of its face (a pung's missed fourth tile, a pair's third, a single's second)
    whose place would leave no group break (:data:`BREAK_STEPS`) to the next group of its row, or that
    would be squeezed between two touching tiles of the group, goes one tile step out from the group's
    free end instead (after it, else before it; where neither end leaves a break, where it was); its
    number is still POS.

    A face-down tile (``0x``) can only be added to a concealed kong short of a tile: beside (POS − 1
    or the tile numbered POS) a group of 1–3 tiles holding a face-down one, or a group of two tiles of
    one face (the kong's faces, both its backs missed); it is placed touching that group (never
    :data:`KONG_GAP` away), so the layout reads the four as the kong; one numbered between two tiles of the
    kong goes one tile step out from the kong's end that shows no back (before it first; its number is
    still POS), its box not piled on the faces. Any other missed tile is added by
    its face.

    ``roles``: the role of each detection in the reading the user saw (:data:`vision.layout.ROLES`),
    when known. A tile of another face whose box would lie close enough to two groups of a row to
    join them, one of them a meld set apart there (:data:`SET_APART`), is refused: its place is
    beside the group it belongs to, or inside it. ``left_out``: detections the user leaves out of the
    hand (``--fix POS=-``), named when a face-down tile is refused beside a kong that holds one. ``fixed``:
    detection index → the face the user sets with ``--fix`` (applied after the tiles are added, whose numbers
    the fixes count): a kong short of a tile is judged by those faces, not the classifier's (a director's kong,
    its two faces misread and its backs not boxed, fixed to 7s and given both backs with ``--add``, had been
    refused as no kong).

    Returns ``(det, readings, numbering)``: the new detections are appended after the old ones
    (indices N, N+1, … in the order given). Raises HandError for a position outside 1..N+1, a
    face-down tile that completes no concealed kong, a tile that would join a kong showing its four
    tiles, or one that would join a meld set apart to the next group.
    """
    numbering = list(geo.order)
    if not additions:
        return det, readings, tuple(numbering)
    boxes = [np.asarray(b, np.float64) for b in det.boxes]
    row_of: dict[int, list[int]] = {}
    for ids in geo.rows:
        tiles = [t for g in ids for t in geo.groups[g].tiles]
        for t in tiles:
            row_of[t] = tiles
    group_of: dict[int, list[int]] = {t: list(g.tiles) for g in geo.groups for t in g.tiles}
    codes: list[str] = []
    fixed_faces = dict(fixed or {})

    def centre(i: int) -> np.ndarray:
        return (boxes[i][:2] + boxes[i][2:]) / 2

    def is_back(i: int) -> bool:
        if i >= len(det):  # a tile added before this one
            return codes[i - len(det)] == "0x"
        return bool(det.face_down[i]) or readings.pose[i] == "face-down"

    def short_kong(i: int) -> bool:  # i's group may be a concealed kong missing a tile
        g = group_of.get(i, [i])

        def face(t: int) -> str:  # (as the user's --fix sets it)
            return fixed_faces.get(t, code_of(t))

        # (or its two faces alone, both backs missed: a tester's demo in haze, its kong's pink backs not boxed,
        # `--add 13=0x,16=0x` was refused, and 2m added by face made an exposed kong, 32 points at >99 % for 40)
        return len(g) < 4 and (any(face(t) == "0x" if t in fixed_faces else is_back(t) for t in g)
                               or (len(g) == 2 and face(g[0]) == face(g[1]) not in BONUS_TILES))

    def step(i: int) -> np.ndarray:
        row = [t for t in row_of.get(i, [i]) if t < len(det)]  # the row's detected tiles give the step
        if len(row) >= 2:
            return np.median(np.diff(np.array([centre(t) for t in row]), axis=0), axis=0)
        w = float(boxes[i][2] - boxes[i][0])
        a = geo.angle + (math.pi / 2 if geo.turned else 0.0)
        return np.array([math.cos(a), math.sin(a)]) * w

    def sideways_size(i: int) -> np.ndarray | None:
        # the row's median box size (w, h) when i's box is clearly longer along its row than its row's
        # boxes (:data:`SIDEWAYS_REACH`: a tile lying sideways), else None
        row = [t for t in row_of.get(i, [i]) if t < len(det)]
        st = step(i)
        s = float(np.hypot(*st))
        if s <= 0 or len(row) < 3:
            return None
        u = np.abs(st / s)
        sizes = np.array([boxes[t][2:] - boxes[t][:2] for t in row])
        along = sizes @ u
        own = float((boxes[i][2:] - boxes[i][:2]) @ u)
        return np.median(sizes, axis=0) if own > SIDEWAYS_REACH * float(np.median(along)) else None

    def reach(i: int) -> np.ndarray:
        # one tile step along i's row; past a tile lying sideways, half its box length and half an
        # upright box's (the added box is the row's size then, not the sideways one's): a tile added
        # past it lay half on it (a new user's `--add 15=4s` after the riichi photo's sideways 4s)
        st = step(i)
        size = sideways_size(i)
        if size is None:
            return st
        u = st / float(np.hypot(*st))
        return u * (float((boxes[i][2:] - boxes[i][:2]) @ np.abs(u)) + float(size @ np.abs(u))) / 2

    def code_of(i: int) -> str:
        return readings.codes[i] if i < len(det) else codes[i - len(det)]

    def gap_axis(pair: tuple[int, int]) -> int:  # 0: the two tiles lie side by side in x, 1: in y
        d = np.abs(centre(pair[1]) - centre(pair[0]))
        return 0 if d[0] >= d[1] else 1

    def fill_length(a: int, b: int) -> float:
        # the length, along the row, of a box that fills the gap between tiles a and b and overlaps each as much as
        # the row's detected boxes overlap their neighbours (their median): a box one median step long in the middle
        # of that gap lay farther from each than the row's tiles lie apart where the boxes overlap (a photo's
        # perspective), and the layout split the row there (a tester's --add 14=2m into 0x · 2m 0x)
        ax = gap_axis((a, b))
        row = sorted((t for t in row_of.get(a, [a]) if t < len(det)), key=lambda t: float(centre(t)[ax]))
        laps = [float(boxes[u][2 + ax] - boxes[u][ax] + boxes[v][2 + ax] - boxes[v][ax]) / 2
                - abs(float(centre(v)[ax] - centre(u)[ax])) for u, v in zip(row, row[1:])]
        # (neighbours touching or overlapping: not those a gap of half a tile or more apart, between groups)
        touching = [x for x in laps if x > -0.5 * float(boxes[a][2 + ax] - boxes[a][ax])]
        lap = max(0.0, float(np.median(touching))) if touching else 0.0
        lo, hi = (a, b) if centre(a)[ax] <= centre(b)[ax] else (b, a)
        return float(boxes[hi][ax] - boxes[lo][2 + ax]) + 2 * lap

    def before_next(prev: int, nxt: int | None, code: str) -> bool:
        # POS between two groups (of one row or two): the tile goes before the next group's first tile
        # when that group is two tiles that make a meld with it (a pung short of one: --add 10=7s before
        # 7s 7s; a chow short of one: 3s before 4s 5s, as a reviewer asked; a full 777s after the row's
        # end is not joined by a missed 7s of the row), or when the tile it would follow in the same row
        # is a flower (a playing tile is not put beside it: --add 2=3m after 1f); else after the
        # previous tile (at a row's end, where a missed last tile lies)
        if nxt is None:
            return False
        grp = group_of.get(nxt, [nxt])
        return (len(grp) == 2 and is_meld([code] + [code_of(t) for t in grp])) or (
            code_of(prev) in BONUS_TILES and code not in BONUS_TILES and nxt in row_of.get(prev, ()))

    def group_words(t: int) -> str:  # "the exposed meld of tiles 10-12" (numbered as the user saw them)
        nums = sorted(numbering.index(u) + 1 for u in group_of.get(t, [t]) if u in numbering)
        what = SET_APART.get(roles[t], "the group") if roles is not None and t < len(roles) else "the group"
        return f"{what} of tile{'s' if len(nums) > 1 else ''} {nums[0]}" + (f"-{nums[-1]}" if len(nums) > 1 else "")

    def same_face_end(own: int, code: str) -> tuple[np.ndarray, int, int] | None:
        # (centre, end tile, side) one tile step out from an end of ``own``'s group of tiles all read as
        # ``code`` (a pung short of its fourth tile, a pair of its third), where that leaves a group break
        # to the row's tile beyond (or the row ends there): after the group first, else before it; None
        # when the group holds other faces or neither end has room
        grp = [t for t in row_of.get(own, [own]) if t in group_of.get(own, [own])]
        if not grp or any(code_of(t) != code for t in grp):
            return None
        return group_end(own, (1, -1))

    def group_end(own: int, sides: tuple[int, int]) -> tuple[np.ndarray, int, int] | None:
        # (centre, end tile, side) one tile step out from an end of ``own``'s group, the sides tried in
        # the order given (1: after its last tile), where that leaves a group break to the row's tile
        # beyond (or the row ends there); None where neither end has room
        grp = [t for t in row_of.get(own, [own]) if t in group_of.get(own, [own])]
        st = step(own)
        s = float(np.hypot(*st))
        if s <= 0 or not grp:
            return None
        row = row_of.get(own, [own])
        for side in sides:
            end = grp[-1] if side > 0 else grp[0]
            c2 = centre(end) + side * st
            k = row.index(end) + side
            if not 0 <= k < len(row) or float(np.hypot(*(centre(row[k]) - c2))) >= BREAK_STEPS * s:
                return c2, end, side
        return None

    for pos, code in additions:
        n = len(numbering)
        if not 1 <= pos <= n + 1:
            raise TileNumberError(f"--add: position {pos} is outside 1..{n + 1} (tiles are numbered 1 to {n}; "
                            f"{n + 1} adds after the last)" if n else
                            f"--add: position {pos}: no tile was detected, so the first added tile is 1")
        prev = numbering[pos - 2] if pos >= 2 else None
        nxt = numbering[pos - 1] if pos <= n else None
        back = code == "0x"
        if back:  # a face-down tile joins the concealed kong beside it, or it has no place in a hand
            if not any(t is not None and short_kong(t) for t in (prev, nxt)):
                # a kong short only of the tile the user leaves out (a new user's `--fix 16=- --add 17=0x`
                # on the demo, following the advice to add the tile the left-out one took away)
                gone = sorted(numbering.index(t) + 1 for t in left_out for u in (prev, nxt) if u is not None
                              and t in group_of.get(u, [u]) and len(group_of.get(u, [u])) == 4)
                if gone:
                    raise HandError(f"--add {pos}=0x: the concealed kong beside it shows its four tiles, tile "
                                    f"{gone[0]} among them, which you leave out with --fix {gone[0]}=-: keep it in "
                                    f"the hand (no --fix {gone[0]}=-), or set its face with --fix {gone[0]}=TILE")
                raise HandError(f"--add {pos}=0x: a face-down tile can only be added to a concealed kong that "
                                f"is short of a tile (beside a group of 1-3 tiles with a face-down one, or two tiles "
                                f"of one face); add a missed tile of the hand by its face, e.g. {pos}=5p")
            if prev is not None and not short_kong(prev):
                prev = None  # it joins the kong that follows
        joins = True  # the new box touches its neighbour: it joins that neighbour's group
        squeezed = False  # placed half-way between two touching tiles
        fills: tuple[int, int] | None = None  # the two tiles whose gap, room for this tile alone, it fills
        ahead = prev is not None and before_next(prev, nxt, code) and nxt not in group_of.get(prev, ())
        if n == 0:  # nothing detected: the first added tile starts the row
            ref, c = None, np.array(ALONE_AT) + np.array(ALONE_TILE) / 2
        elif prev is not None and nxt is not None and nxt in row_of.get(prev, ()) and not ahead:
            d = centre(nxt) - centre(prev)
            s = float(np.hypot(*step(prev)))
            gap = float(np.hypot(*d))
            # a gap where the tile is missing: one tile step on from prev (past a sideways tile, clear of
            # it: reach); a gap of room for this one tile: its middle (a tester's `--add 14=2m` into the demo's
            # kong 0x · 2m 0x, whose last back's box overlapped its 2m, lay one median step from the 0x and
            # too far from the 2m: the kong stayed two groups, left out); touching tiles: between them
            squeezed = not gap >= 1.5 * s > 0
            on = float(np.hypot(*reach(prev)))
            # (not beside a meld set apart: a missed last tile of the row before it lies one step on, its gap
            # there a group's; a reviewer's `--add 11=1z` 2.38 steps before an exposed 777p had been refused)
            one_room = not squeezed and gap <= ONE_TILE_GAP * s and sideways_size(prev) is None and not (
                roles is not None and any(t < len(roles) and roles[t] in SET_APART for t in (prev, nxt)))
            ref, c = prev, (centre(prev) + (d * (on / gap) if not squeezed and not one_room else d / 2))
            if one_room:
                fills = (prev, nxt)
        elif prev is not None and not ahead:
            # past a row's end; past a face-down tile (a concealed kong's end) with a gap, so that the
            # tile is not read as a fifth tile of the kong (unless it is the kong's own)
            joins = back or not is_back(prev)
            ref, c = prev, centre(prev) + reach(prev) * (1.0 if joins else KONG_GAP)
        else:
            joins = back or not is_back(nxt)  # type: ignore[arg-type]
            ref, c = nxt, centre(nxt) - reach(nxt) * (1.0 if joins else KONG_GAP)  # type: ignore[arg-type]
        after = ref is not None and ref == prev  # the new tile follows ref in its row (else precedes it)
        if back and prev is not None and nxt in group_of.get(prev, ()):
            # a face-down tile between two tiles of the kong (a tester's `--add 14=0x,15=0x` between the
            # two touching 2m of the demo whose backs were not boxed): the boxes piled on the faces and
            # the exposed 777s beside it was split, 42 points for 40; it goes one step out from the
            # kong's end that shows no back, before it first (the kong is the same either way); the
            # numbering stays as the user gave it
            grp = group_of.get(prev, [prev])  # type: ignore[arg-type]
            moved = group_end(prev, (-1, 1) if not is_back(grp[0]) else (1, -1))  # type: ignore[arg-type]
            if moved is not None:
                c, ref, side = moved
                after = side > 0
        if ref is not None and joins and not back and code not in BONUS_TILES:
            # a tile of a same-face group whose place leaves no group break to the next group of the row
            # (a tester's `--add 13=7s` after the demo's exposed 777s, beside its concealed kong, made
            # 7777s 0x22m0x one group of eight), or squeezed between two touching tiles of it (`--add
            # 12=7s` overlapped tiles 11 and 12, and tile 10 was split off as the winning tile): it goes
            # one step out from the group's end instead; the numbering stays as the user gave it
            other = nxt if after else prev
            bridges = other is not None and other in row_of.get(ref, ()) and other not in group_of.get(ref, ()) \
                and float(np.hypot(*(centre(other) - c))) < BREAK_STEPS * float(np.hypot(*step(ref)))
            # (a tile filling a gap between two tiles of its own face joins them, as meant: a pung short of its
            # middle tile, 7s · 7s; a reviewer's --add 11=7s there went before the first 7s, and read 777s concealed,
            # 42 for 40)
            joined = fills is not None and all(code_of(t) == code for t in group_of.get(other, [other])) \
                if other is not None else False
            inside = after and nxt in group_of.get(ref, ()) and squeezed
            moved = same_face_end(ref, code) if not joined and (bridges or inside) else None
            if moved is None and inside and not (roles is not None and any(
                    t < len(roles) and roles[t] in SET_APART for t in group_of.get(ref, [ref]))):
                # squeezed between two touching concealed tiles of other faces (the place a --add N=X of a 13-tile
                # row's missing tile in suit order names): its box half over each made the spacing there half a
                # step, the row was split at the tiles before it, and tile 1 read as the winning tile set apart, a
                # reviewer's 120 for 136 at > 99 %; a concealed tile counts the same anywhere in its group, so it
                # goes one step out from the group's start (else its end) where that leaves a break
                moved = group_end(ref, (-1, 1))
            if moved is not None:
                c, ref, side = moved
                after = side > 0
                fills = None  # (its box the row's size where it went, not stretched over a gap it no longer fills)
            elif (not joined and bridges and roles is not None
                  and any(t < len(roles) and roles[t] in SET_APART for t in (ref, other))):
                # between two groups, one of them a meld set apart, and of neither's face: its box would
                # join them into one group (a tester's `--add 13=9p` between the demo's exposed 777s and
                # its concealed kong made one group of eight, the melds were lost, and the error blamed
                # the ruleset for 16 tiles)
                lo, hi = (ref, other) if after else (other, ref)
                raise HandError(f"--add {pos}={code}: tile {pos} would lie between {group_words(lo)} "
                                f"and {group_words(hi)}, and join them into one group: a missed tile "
                                f"goes inside the group it belongs to (a position between its tiles), or beside "
                                f"it where a gap is left to the next group")
        kong = group_of.get(ref, [ref]) if ref is not None and joins and code not in BONUS_TILES else []
        if len(kong) == 4 and (any(is_back(t) for t in kong) or len({code_of(t) for t in kong}) == 1):
            # the tile would join a kong that shows its four tiles (a tester's `--add 14=2m` inside the
            # demo's concealed kong, then `--add 13=2m` beside it, made a group of five: the kong and the
            # pung beside it left the hand, and the note blamed boxes left out); a flower takes no row
            nums = sorted(numbering.index(t) + 1 for t in kong)
            raise HandError(f"--add {pos}={code}: the tile would join the kong of tiles {nums[0]}-{nums[-1]}, which "
                            f"shows its four tiles; a missed tile goes beside the group it belongs to (another "
                            f"position), or correct a kong tile with --fix")
        wide = sideways_size(ref) if ref is not None and not squeezed else None  # (beside a sideways tile)
        size = np.array(ALONE_TILE) if ref is None else wide if wide is not None else boxes[ref][2:] - boxes[ref][:2]
        if fills is not None and ref is not None:
            size = size.copy()
            size[gap_axis(fills)] = max(size[gap_axis(fills)], fill_length(*fills))
        half = size / 2
        new = len(boxes)
        boxes.append(np.r_[c - half, c + half])
        if ref is None:
            row_of[new], group_of[new] = [new], [new]
        else:
            row = row_of.setdefault(ref, [ref])
            row.insert(row.index(ref) + (1 if after else 0), new)
            row_of[new] = row
            grp = group_of.setdefault(ref, [ref]) if joins else [new]
            if joins:
                grp.insert(grp.index(ref) + (1 if after else 0), new)
            group_of[new] = grp
        numbering.insert(pos - 1, new)
        codes.append(code)
    k = len(codes)
    probs = np.zeros((k, readings.probs.shape[1]), np.float32)
    for j, code in enumerate(codes):
        probs[j, CLASS_INDEX[code]] = 1.0
    det2 = Detections.make(np.vstack(boxes), np.r_[det.scores, np.ones(k)],
                           np.r_[det.face_down, [c == "0x" for c in codes]])
    rd2 = TileReadings.make(np.vstack([readings.probs, probs]),
                            readings.pose + tuple("face-down" if c == "0x" else "upright" for c in codes),
                            np.r_[readings.tile, np.ones(k, np.float32)],
                            readings.glyphs + ("",) * k, readings.was + ("",) * k)
    return det2, rd2, tuple(numbering)


def apply_fixes(readings: TileReadings, order: tuple[int, ...], fixes: Mapping[int, str]) -> TileReadings:
    """Readings with the tiles at the given 1-based positions set to certain values.

    A :data:`DROP` fix changes no reading (:func:`read_detections` leaves its box out of the hand).
    Raises HandError for a position outside 1..N.
    """
    if not fixes:
        return readings
    probs = np.array(readings.probs, dtype=np.float32)
    pose = list(readings.pose)
    tile = np.array(readings.tile, dtype=np.float32)
    for pos, code in fixes.items():
        if not 1 <= pos <= len(order):
            raise TileNumberError(f"--fix: there is no tile {pos} (tiles are numbered 1 to {len(order)})")
        if code == DROP:
            continue
        i = order[pos - 1]
        probs[i] = 0.0
        probs[i, CLASS_INDEX[code]] = 1.0
        if code == "0x":
            pose[i] = "face-down"
        elif pose[i] == "face-down":
            pose[i] = "upright"
        tile[i] = 1.0  # the user says it is this tile
    fixed = {order[pos - 1] for pos, code in fixes.items() if code != DROP}
    glyphs = ["" if i in fixed else g for i, g in enumerate(readings.glyphs)]
    was = ["" if i in fixed else w for i, w in enumerate(readings.was)]
    return TileReadings.make(probs, pose, tile, glyphs, was)


def as_backs(readings: TileReadings, idx: Sequence[int]) -> TileReadings:
    """Readings with the tiles ``idx`` (detection indices) taken as face-down: each one's White dragon
    probability moved to the back class (0x) and its pose ``face-down``; the other classes unchanged
    (for :func:`vision.layout.blank_backs`: a pale back and a blank White look alike)."""
    probs = np.array(readings.probs, dtype=np.float32)
    pose = list(readings.pose)
    w, b = CLASS_INDEX["5z"], CLASS_INDEX["0x"]
    for i in idx:
        probs[i, b] += probs[i, w]
        probs[i, w] = 0.0
        pose[i] = "face-down"
    return TileReadings.make(probs, pose, readings.tile, readings.glyphs, readings.was)


#: a reading after the user's corrections that leaves out tiles of the hand as first read is only this
#: sure (× its confidence): the corrections may be wrong, or meant otherwise (:func:`read_detections`)
DROPPED_BY_EDIT = 0.5
#: a reading in which a tile the user added is the winning tile, by its place alone (no
#: ``--winning-tile``), where the reading before had another winning tile or none, is only this sure:
#: where the box of a tile added past a row's end lies says little of where the tile lay
ADDED_WINNER = 0.5
#: the words of that note (the confidence line points at it)
ADDED_WINNER_NOTE = ", added by you) is read as the winning tile"
#: a reading of a photo whose JPEG picture data the decoder found damaged (``Photo.damage``) is only
#: this sure (× its confidence): part of the photo may be garbled (a tester's damaged demo photo was
#: read without its flower at >99 %), though some cameras write stray bytes that are reported alike
DAMAGED_PICTURE = 0.5
#: the words of that note (the confidence line points at it)
DAMAGED_NOTE = "unsure: the photo file's picture data is damaged"
#: tiles whose boxes are darker than this (median of the boxes' mean luma, 0–255) in a photo whose mean luma
#: is under :data:`DARK_PHOTO` were taken with too little light: a note (and the error of a reading that
#: fails) says so. A tile's face is near white (about 200) in a lit photo; a new user's demo darkened to a
#: tenth (tiles 12, photo 6) was misread, and the error offered --add loops, never the light. Both, as a
#: held-out render's black-faced tiles (55) lie on a bright bed cover
DARK_TILES = 60
DARK_PHOTO = 50
#: tiles whose boxes are under this many pixels high (median, in the photo as read: a 12 MP photo is read at
#: half its size) are small for the models: a note (and the error of a reading that fails) says so and how to
#: do better. The demo pasted small into a 12 MP photo read right with its tiles 22 px high there (77 %), and
#: not at 19 px, where a new user had been told only to --add tiles
SMALL_TILES = 28
SMALL_NOTE = "the tiles are small in the photo"
DARK_NOTE = "the tiles are very dark in the photo"
#: the words of the note on each tile the user added (:func:`added_note`; a batch row's problem column leaves
#: that note out: the add cell's own doing)
ADDED_NOTE = "added by you (--add)"
#: a photo whose pixels' standard deviation is under this (0-255) is one colour: said when no tile is found
BLANK_STD = 2.0


def loose_bonus_boxes(lay: Layout) -> frozenset[int]:
    """Detection indices of the boxes ``lay`` weighed as loose bonus tiles: its flower/season groups left
    out of the hand near it (``left_out``) and far from it (``far_bonus``), those the loose tiles' note
    (:func:`vision.decode.loose_bonus_note`) offers to count with ``--add``."""
    return frozenset(t for g, _ in lay.left_out + lay.far_bonus for t in g)


def replaced_boxes(added: Sequence[int], readings: TileReadings, numbering: Sequence[int],
                   shown_roles: Sequence[str], loose: frozenset[int], skip: frozenset[int],
                   set_to: Mapping[int, str] | None = None, counted: Mapping[int, str] | None = None
                   ) -> dict[int, int]:
    """For each flower/season the user added (``added``: detection indices, their readings the faces
    given), the one box of the reading shown that it stands in for: left out of that hand (role
    ``ignored`` in ``shown_roles``) and read as that face — the face another hand region's reading counts
    it as (``counted``, {box index: face}, whose note advises that ``--add``: :func:`rival_words`), or, for
    one weighed as a loose bonus tile (``loose``: :func:`loose_bonus_boxes`), its top class, or its likeliest
    flower/season when its top class is no bonus tile (:func:`vision.layout.bonus_face`), as the loose tiles'
    note names it.
    Where two or more such boxes show the face, or none, the added tile has no box (a set has one of
    each flower and season: one of them is misread, and the photo cannot say which). ``skip``: boxes
    never taken (those the user fixed or left out, ``--fix``). ``set_to``: boxes the user set to a face
    (``--fix``, {box index: face}): one left out of that hand and set to the added face is the box, whatever
    it was read as, before any other (the note on a fixed box left out advises that ``--add``: a tester's
    misread 4f set to 4y, then added as 4y, had been refused as a second 4y). Returns {added index: box
    index}; a box is taken once. Raises nothing."""
    out: dict[int, int] = {}
    for i in added:
        code = readings.codes[i]
        if code not in BONUS_TILES:
            continue
        mine = [j for j, c in (set_to or {}).items() if c == code and j not in added and j not in out.values()
                and j < len(shown_roles) and shown_roles[j] == "ignored"]
        if len(mine) == 1:
            out[i] = mine[0]
            continue
        same = [j for j in numbering if j not in skip and j not in added and j not in out.values()
                and j < len(shown_roles) and shown_roles[j] == "ignored"
                and ((counted or {}).get(j) == code
                     or j in loose and (readings.codes[j] if readings.codes[j] in BONUS_TILES
                                        else bonus_face(readings, j)) == code)]
        if len(same) == 1:
            out[i] = same[0]
    return out


def _same_reading(a: Reading, b: Reading) -> bool:
    """``a`` reads the hand that ``b`` reads, from the same boxes in the same roles (a reading numbered anew
    is kept only so: another region's boxes spelling the same hand would be numbered for the first's)."""
    return a.notation == b.notation and tuple(a.roles) == tuple(b.roles)


def _hand_first(geo: Geometry, roles: Sequence[str]) -> tuple[int, ...]:
    """``geo``'s tile order (detection indices, its rows in turn) with the rows that hold a tile of the hand
    (a role other than ``ignored`` in ``roles``) first, each set of rows in its order: the tile numbers of a
    reading whose region's main row is a wall of backs (a whole table seen from above) began with the wall."""
    rows = [[t for g in ids for t in geo.groups[g].tiles] for ids in geo.rows]
    mine = [r for r in rows if any(roles[t] != "ignored" for t in r)]
    rest = [r for r in rows if not any(roles[t] != "ignored" for t in r)]
    out = tuple(t for r in mine + rest for t in r)
    return out if sorted(out) == sorted(geo.order) else tuple(geo.order)


def _fixed_boxes(fixes: Mapping[int, str], numbering: Sequence[int]) -> frozenset[int]:
    """Detection indices of the tiles ``--fix`` numbers (``numbering`` counting the added tiles)."""
    return frozenset(numbering[p - 1] for p in fixes if 1 <= p <= len(numbering))


#: an added flower/season's box moved inside the photo is tried this many box heights down and up, and
#: widths aside (:func:`_placed_on`)
PLACE_STEPS = 3
#: … for a place where it covers under this share of its area of any other box
PLACE_COVER = 0.1


def _placed_on(det: Detections, bonus: Sequence[int], replaced: Mapping[int, int], size: tuple[int, int]
               ) -> Detections:
    """``det`` with each added flower/season's box (``bonus``: their detection indices) put on the box it
    stands in for (``replaced``: {added index: box index}); with none, where its box lies partly outside
    the photo (``size``: (W, H) pixels; one tile step past a row that ends at the photo's edge had been
    drawn as a sliver), at the nearest free place inside it: moved in, then whole box heights down or
    up, or widths aside (up to :data:`PLACE_STEPS`), to where it covers under :data:`PLACE_COVER` of
    its area of any other box (a box moved in over the row's last tile looked like that tile's label),
    else moved in. An added flower/season takes no part in the rows (the hand's bonus tile wherever its
    box lies), so its place only shows the user which tile it is; other added tiles keep the place
    :func:`add_tiles` gave them."""
    boxes = np.array(det.boxes, np.float64)
    W, H = size
    for i in bonus:
        if i in replaced:
            boxes[i] = boxes[replaced[i]]
            continue
        w, h = boxes[i, 2:] - boxes[i, :2]
        if boxes[i, 0] >= 0 and boxes[i, 1] >= 0 and boxes[i, 2] <= W and boxes[i, 3] <= H:
            continue
        others = np.delete(boxes, i, axis=0)

        def inside(dx: float, dy: float) -> np.ndarray:
            x0 = min(max(boxes[i, 0] + dx, 0.0), max(W - w, 0.0))
            y0 = min(max(boxes[i, 1] + dy, 0.0), max(H - h, 0.0))
            return np.array([x0, y0, x0 + w, y0 + h])

        def cover(b: np.ndarray) -> float:
            if not len(others):
                return 0.0
            iw = np.clip(np.minimum(others[:, 2], b[2]) - np.maximum(others[:, 0], b[0]), 0, None)
            ih = np.clip(np.minimum(others[:, 3], b[3]) - np.maximum(others[:, 1], b[1]), 0, None)
            return float((iw * ih).max() / max(w * h, 1e-9))

        tries = [(0.0, 0.0)] + [d for k in range(1, PLACE_STEPS + 1)
                                for d in ((0.0, k * h), (0.0, -k * h), (-k * w, 0.0), (k * w, 0.0))]
        boxes[i] = next((b for b in map(lambda d: inside(*d), tries) if cover(b) < PLACE_COVER), inside(0.0, 0.0))
    return Detections.make(boxes, det.scores, det.face_down)


def added_note(i: int, reading: Reading, readings: TileReadings, lay: Layout, numbering: Sequence[int],
               skip: frozenset[int] = frozenset(), box: int | None = None, box_set: bool = False) -> str:
    """The note on detection ``i``, a tile the user added with ``--add`` (``numbering``: detection indices in
    tile-number order). A flower or season added where a flower/season box was left out of the hand (a
    loose tile's note, :func:`vision.decode.loose_bonus_note`, offers that ``--add``) names that box: the
    one(s) read as its face (its top class, or its likeliest flower/season for a box the layout weighed as
    a loose bonus tile), ``in place of the box left out as tile 25 (read 2f)`` when the layout weighed that
    box as a loose bonus tile (the note's), else only that such a box is left out (``; a box read 2f, tile
    25, is left out of the hand``: another player's flower, a discard); with none of its face, the
    left-out flower/season boxes it may be, read as another face. Otherwise the detector missed it.
    ``skip``: boxes never named (the other added tiles, those the user left out with ``--fix N=-``). A
    tester's ``--add 16=2f``, made on the loose flowers' note, was told "the detector missed it" though
    the detector had boxed the 2f as tile 21. ``box``: the box it stands in for (:func:`replaced_boxes`),
    named first: the added tile is drawn on it, and no region's reading counts it (``box_set``: the user set
    that box's face with ``--fix``). Raises nothing."""
    code = readings.codes[i]
    head = f"tile {numbering.index(i) + 1} ({code}) {ADDED_NOTE}"
    if code not in BONUS_TILES:
        return f"{head}: the detector missed it"
    if box is not None:
        was = ("set to it by you" if box_set else f"read {code}" if readings.codes[box] == code
               else f"read {readings.codes[box]}; of the flowers/seasons, most like {code}")
        return (f"{head}, in place of the box left out as tile {numbering.index(box) + 1} ({was}): drawn on "
                f"it, and no reading counts that box as another tile")
    weighed = loose_bonus_boxes(lay)
    # each flower/season box left out: its face, as the loose tiles' note names it
    out = {j: readings.codes[j] if readings.codes[j] in BONUS_TILES else bonus_face(readings, j)
           for j in numbering if j not in skip and reading.roles[j] == "ignored"
           and (readings.codes[j] in BONUS_TILES or j in weighed)}
    same = sorted(numbering.index(j) + 1 for j, f in out.items() if f == code and j in weighed)
    if len(same) == 1:
        return f"{head}, in place of the box left out as tile {same[0]} (read {code})"
    if same:
        return f"{head}, in place of one of the boxes left out as tiles {number_spans(same)} (read {code})"
    # a box read as that face that the layout did not weigh as the hand's (another player's flower, a
    # discard): said, not taken for the added tile
    seen = sorted(numbering.index(j) + 1 for j, f in out.items() if f == code)
    if seen:
        tile, be, _, _ = _tiles_words(seen)
        return (f"{head}; {'a box' if len(seen) == 1 else 'boxes'} read {code}, {tile} {number_spans(seen)}, {be} "
                f"left out of the hand")
    other = sorted(numbering.index(j) + 1 for j in out)
    if other:
        return (f"{head}: the detector missed it, or read it as another face among the flower/season boxes "
                f"left out ({_tiles_words(other)[0]} {number_spans(other)})")
    return f"{head}: the detector missed it"


def _colour_words(pixels: np.ndarray) -> str:
    """"black", "white" or "mean level 120 of 255" for a one-colour (H, W, 3) uint8 picture, by its mean."""
    m = float(pixels.mean())
    return "black" if m < 16 else "white" if m > 239 else f"mean level {m:.0f} of 255"


#: the upright reading is weak, and the photo is also read turned 90°, 180° and 270°, when it is not
#: legal, its confidence is below this, or at least half of its face-up tiles were read in a turned pose
ROTATE_BELOW = 0.5
#: turns tried (degrees clockwise) and the np.rot90 ``k`` (counter-clockwise quarter turns) of each
TURNS = ((90, 3), (180, 2), (270, 1))
#: a reading less sure than this (or not legal, or no tile found) has the photo read again with a second
#: detector's boxes added (:func:`read_photo`, ``second``)
SECOND_BELOW = 0.95


def read_photo(source: Source, ruleset: str | Ruleset = "nts", context: Context | None = None, *,
               winning_tile: str | None = None, exposed: str | None = None,
               fixes: Mapping[int, str] | None = None, options: Mapping[str, object] | None = None,
               detector: Detector | None = None, classifier: Classifier | None = None,
               work_side: int | None = WORK_SIDE, zoom: bool = True, rotate: bool = True,
               additions: Sequence[tuple[int, str]] | None = None, said_won: bool = False,
               turn: int | None = None, straight: bool = True, mirror: bool = True, second: bool = True,
               second_detector: Detector | None = None, quarter: bool = True, memo: bool = True) -> PhotoResult:
    """Photo → :class:`PhotoResult` (reading, layout, decoded hand and its score).

    ``turn``: read the photo turned this many degrees clockwise (0, 90, 180 or 270; ``--turn``) and try
    no other turn, nor straightening (a referee's upright photo that the rotation tries turned over);
    ValueError otherwise.

    ``straight``: when the upright reading's rows run :data:`TILT_MIN` degrees or more off level
    (:func:`row_tilt`: a phone held askew), the photo is also read straightened by that angle
    (:func:`straighten_photo`), and that reading is kept when it is legal (or neither is legal and the
    tilted one reads no more: :func:`_level_kept`); the quarter-turn tries below then turn the straightened photo. ``PhotoResult.straightened`` and a note
    say so. Each straightening pass is one more detector and classifier pass (two detector passes when
    the tiles are small: :func:`detect_zoomed`) on a part the photo's size: up to
    :data:`STRAIGHTEN_TRIES` for the photo as loaded, and as many again for a quarter turn chosen.

    ``mirror``: when the reading of the photo as loaded (straightened when it was) is weak
    (:func:`weak_reading`) and its tiles are not mostly read turned (:func:`_mostly_turned`: the quarter
    turns are the remedy then), the detector also reads that photo mirrored left to right and the two
    passes' boxes are fused (:class:`~vision.detect.MirrorFusedDetector`: test-time augmentation; a tile's
    outline is symmetric). That reading is kept when it is legal and better (:func:`_better`; of two legal
    readings, also surer), not mostly read turned, and not a non-winner's hand nobody said while the first is
    not (:func:`_newly_non_winner`); ``PhotoResult.mirrored`` and a note say so. One more detector and classifier pass (two detector passes,
    four when the tiles are small) before any quarter-turn try, only with a detector that reads pixels
    (``mirror_safe``: the product's :class:`~vision.detect.Detector`). On the 36 held-out hard-scene
    renders it read one more hand exactly; see the model card.

    ``second``: when the first reading (upright, or the ``turn`` asked for; straightened when it was) is not
    legal, is less sure than :data:`SECOND_BELOW`, or found no tile (not when what was said contradicts it:
    a HandError stands), the photo is read again with the boxes of a second detector added
    (``second_detector``, default :class:`~vision.detect.SecondDetector`: ``mahjong-detector``'s YOLO,
    trained on real photos, used only beside the product's own detector), by
    :func:`~vision.detect.add_second`: tiles the first detector missed, and two tiles it boxed as one. That
    reading replaces the first unless the first is legal and it is not, its tiles are mostly read turned
    (:func:`_mostly_turned`), or it is a non-winner's hand nobody said while the first is not
    (:func:`_newly_non_winner`); every
    later pass (mirror, turns, straightening) adds them too. ``PhotoResult.second`` and a note say so when its boxes changed ours (when
    they add none, the first reading stands, with no classifier pass again). The second detector is loaded
    only then (:class:`~vision.errors.ModelError` when its package is missing). One more second-detector and
    classifier pass (the first detector's boxes are kept), then one more second-detector pass per later pass:
    about 90 ms a pass on one core. On composites of real tile photos (bonus tiles in sideways columns) it
    made fewer confident wrong readings; see the model card.

    ``quarter``: the detector also reads every photo it reads turned a quarter, both ways, and the tiles lying
    sideways it boxes there are added, or replace the upright pass's boxes over them
    (:class:`~vision.detect.QuarterAddedDetector`: bonus tiles laid in sideways columns, which the upright
    pass boxes three or four of eight, some boxes over two); only with a detector that reads pixels
    (``mirror_safe``). Two more detector passes per detector pass (``benchmarks/bench_photo.py --quarter``).

    ``memo``: the models read each image, tile crop and text line once in this photo's passes
    (:class:`~vision.detect.MemoisedDetector` for a detector that reads pixels, :meth:`Classifier.memoised
    <vision.classify.Classifier.memoised>`): the mirror pass reads the photo as loaded and turned a quarter
    again, a quarter-turn try reads the photo in a turn the quarter-turned pass read, and most boxes of the
    mirror pass and the second detector's pass are the first pass's. The readings are those without it
    (``memo=False``: every pass runs the models, for ``benchmarks/bench_photo.py --memo``).

    ``said_won``: the user said the hand won (``table --winner``, an audit of a winning score, a
    manifest's winner cell): a 13-tile photo is then never read as a non-winner's hand
    (:func:`read_detections`).

    ``scored`` is None when the reading is not a legal hand (``reading.problem`` says why).
    ``zoom``: detect again in the part of the photo holding the tiles when they are small there
    (:func:`detect_zoomed`); and a weak reading of a photo at least :data:`PARTS_FROM` times the detector's
    input, whose tiles are small there or that uses none (:func:`_small_in_detector`), is read again in parts
    (kept when legal, its tiles standing, and surer than a legal reading it replaces). When no turn below reads
    a legal hand and the photo upright was not read in parts (its boxes large, or mostly read turned: the turns
    were its remedy), it is read in parts then, and kept when legal with its tiles standing: a hand small in a
    photo of a patterned cloth, whose whole-photo passes box the pattern. One more detector pass per part
    (``detect_zoomed``), and only for a photo no other pass reads.
    ``rotate``: when the upright reading is weak (:func:`weak_reading`: not legal, confidence below
    :data:`ROTATE_BELOW`, or half its tiles or more read turned), the photo is also read turned by 90°, 180°
    and 270° (a photo sent without its EXIF turn, or taken from across the table), and the best reading is kept
    (:func:`_better`: legal first, then the joint score of :func:`read_detections`; of readings not legal, the one
    nearer a hand's tile count, then the one with more tiles); ``PhotoResult.turned`` and a note say which turn
    won; the tries stop at the first turn that
    reads better and is not weak. Two readings that are not legal and have no concealed tile reading
    the ``winning_tile`` given are compared as read without it (:func:`_given_tile_missing`): a tile no
    reading has keeps the frame, and the numbering, of the run without it. ``fixes`` and ``additions`` are numbered as the reading without them
    (the one the user saw): the turn is chosen without them, and without ``exposed`` (so that naming the
    melds never renumbers the tiles), and they are applied to that turn's detections, numbered as its
    reading without them (:func:`read_detections`); only when the reading without ``exposed``
    contradicts what was said (HandError) are the turn and numbering those of the reading with it. Each try costs one more detector and classifier pass (about the
    upright pass's model time; ``benchmarks/bench_photo.py --rotation`` measures it).
    Raises :class:`ImageError` for an unreadable file, :class:`NoTilesError` when no tile is found,
    :class:`~vision.errors.ModelError` when the models are missing, HandError for bad overrides,
    RulesetError for an unknown ruleset or option.
    """
    if turn not in (None, 0, *(d for d, _ in TURNS)):
        raise ValueError(f"turn must be 0, 90, 180 or 270 degrees, not {turn!r}")
    t: dict[str, float] = {}
    t0 = time.perf_counter()
    rs = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    ctx = context or Context()
    photo = load_photo(source, work_side=work_side)
    t["load"] = time.perf_counter() - t0
    det_model = detector or load_detector()
    cls_model = classifier or load_classifier()
    # each image, crop and text line read once in this photo's passes (the mirror pass, the second detector's
    # and the turn tries read some of them again): the same readings, in less time (bench_photo.py --memo)
    if memo and getattr(det_model, "mirror_safe", False):
        det_model = MemoisedDetector(det_model)
    if memo and hasattr(cls_model, "memoised"):
        cls_model = cls_model.memoised()
    # (loaded by second_look when a reading first needs it: a sure reading never loads it, nor needs the package)
    want_quarter = quarter and getattr(det_model, "mirror_safe", False)
    want_second = second and (second_detector is not None or getattr(det_model, "mirror_safe", False))
    second_model: Detector | None = None
    use_second = False  # (set once the first reading is unsure: every pass after it adds the second's boxes)
    # the detectors' boxes per photo read (the photo kept in the value: its id is not reused meanwhile)
    first_boxes: dict[tuple[int, bool], tuple[Photo, Detections]] = {}
    second_boxes: dict[int, tuple[Photo, Detections]] = {}

    def with_second(ph: Photo, det: Detections) -> tuple[Detections, bool]:
        """``det`` (the first detector's boxes of ``ph``) with the second detector's added
        (:func:`~vision.detect.add_second`), and whether that changed them."""
        if id(ph) not in second_boxes:
            second_boxes[id(ph)] = (ph, second_model(ph.pixels))
        merged = add_second(det, second_boxes[id(ph)][1], size=(ph.pixels.shape[1], ph.pixels.shape[0]))
        return merged, not (len(merged) == len(det) and np.array_equal(merged.boxes, det.boxes))
    # the turn is chosen on readings without --fix/--add/--exposed (the tile numbers are those of the
    # reading the user saw, which a turned photo, or another region, numbers differently: a bed-cover render
    # read with its two exposed melds named chose another region, and --fix numbers given with --exposed
    # then named other tiles); they are applied to that turn only, numbered as it is
    kw = dict(winning_tile=winning_tile, options=options, said_won=said_won)

    def read(ph: Photo, timing: dict | None, mirrored: bool = False, parts: bool = False):
        t1 = time.perf_counter()
        dm = MirrorFusedDetector(det_model) if mirrored else det_model
        if want_quarter:
            dm = QuarterAddedDetector(dm, det_model)
        key = (id(ph), mirrored, parts)
        if key in first_boxes:
            det = first_boxes[key][1]
        else:
            det = detect_zoomed(ph.pixels, dm, sliced=not any(ph is q for q in unsliced), parts=parts) if zoom \
                else dm(ph.pixels)
            first_boxes[key] = (ph, det)
        added = False
        first_det = det
        if use_second and second_model is not None:
            det, added = with_second(ph, det)
        if timing is not None:
            timing["detect"] = time.perf_counter() - t1
        if len(det) == 0:
            # (a tester's float TIFF and an animated GIF with a black first frame decoded black, and were told
            # only "no tiles found")
            why = ""
            if float(ph.pixels.std()) < BLANK_STD:
                cause = ("the file holds more than one frame, and its first was read: save the frame that shows "
                         "the hand as a photo of its own" if photo.more_frames else
                         "the file may hold its picture in a form that decodes so")
                why = f" (its picture is all one colour, {_colour_words(ph.pixels)}: {cause})"
            elif photo.more_frames:
                why = " (the file holds more than one frame, and its first was read)"
            raise NoTilesError(f"{photo.name}: no tiles found in the photo{why}")
        t1 = time.perf_counter()
        readings = cls_model(ph.pixels, det)
        if timing is not None:
            timing["classify"] = time.perf_counter() - t1
        det, readings, clutter = drop_not_tiles(det, readings)
        if len(det) == 0:
            raise NoTilesError(f"{photo.name}: no tiles found in the photo ({clutter} box(es) the classifier "
                               f"judged not to be tiles)")
        res = read_detections(ph, det, readings, rs, ctx, not_tiles=clutter, renumber=False, **kw)
        if added:  # (only when the second's boxes changed the first's: the note says they were added and where)
            b = res.detections.boxes
            new = ~(b[:, None, :] == first_det.boxes[None, :, :]).all(2).any(1) if len(first_det) else np.ones(len(b), bool)
            res = replace(res, second=True, second_boxes=tuple(int(i) for i in np.flatnonzero(new)))
        if timing is not None:
            timing["layout+decode+score"] = res.timings["layout+decode+score"]
        return res

    # the photos whose detector pass is not read in parts (detect_zoomed): the rotation tries' quarter turns, whose
    # sideways tiles the parts box as junk, and the blind straightening's guesses (held, not their ids: a photo
    # freed may give its id to another)
    unsliced: list[Photo] = []

    def turn_photo(deg: int, base: Photo = photo) -> Photo:
        """The photo (``base``: it straightened) turned ``deg``° clockwise (no EXIF: the pixels and the
        size turned)."""
        pix = np.ascontiguousarray(np.rot90(base.pixels, dict(TURNS)[deg]))
        out = replace(base, pixels=pix, original_size=base.original_size if deg == 180 else base.original_size[::-1])
        if not turn:  # (a turn of the rotation tries: its detector pass is not read in parts, detect_zoomed)
            unsliced.append(out)
        return out

    def straighten(result: PhotoResult) -> tuple[PhotoResult, Photo]:
        """``result`` (a reading of the photo as loaded, or of one quarter turn of it: ``result.turned``)
        or, when its rows run :data:`TILT_MIN` or more off level, the photo straightened by that angle
        (turns about the centre commute: the straightening is made on the photo as loaded, and the
        straightened photo then given the same quarter turn) and read again; with the photo read before
        the quarter turn. A straightened reading whose rows still
        run that far off level (the angle was measured on the few tiles a steep tilt lets the detector
        box) is straightened further, :data:`STRAIGHTEN_TRIES` passes in all. A straightened reading is
        kept when it is legal, or when neither is unless the tilted one reads more (:func:`_level_kept`;
        a winning hand said not won, read from the tilted photo with an 8p read 9p): the models
        know level rows, and the two photos' joint scores are not comparable (on composites of real
        tiles turned 15°, keeping the higher joint score read 14 of 20 hands exactly, keeping the
        straightened 17; the tilted photo 13)."""
        if not straight or turn is not None:
            return result, photo
        best, base, cur = result, photo, result
        total = result.straightened.degrees if result.straightened is not None else 0.0  # (a blind try's turn)
        start, t1 = total, time.perf_counter()
        for _ in range(STRAIGHTEN_TRIES):
            tilt = row_tilt(cur)
            if not math.isfinite(tilt) or abs(tilt) < TILT_MIN:
                break
            total += tilt
            keep = np.vstack([loaded_frame_boxes(result), loaded_frame_boxes(cur)])
            level, how = straighten_photo(photo, total, keep=keep)
            try:
                r2 = replace(read(turn_photo(result.turned, level) if result.turned else level, None),
                             straightened=how, turned=result.turned)
            except (NoTilesError, HandError):
                break
            if _level_kept(r2, best):
                best, base = r2, level
            cur = r2
        if total != start:  # (each pass, also one whose reading failed; a turned photo's passes add to the upright's)
            t["straightening"] = t.get("straightening", 0.0) + time.perf_counter() - t1
        return best, base

    def second_look(result: PhotoResult | None, error: Exception | None, ph: Photo, turned: int = 0):
        """The first reading of ``ph`` (``result``, or its ``error``) read again with the second detector's
        boxes when it is unsure (``second``); (the reading kept, its error)."""
        nonlocal use_second, second_model
        if (not want_second or use_second or isinstance(error, HandError)
                or (result is not None and result.reading.legal and result.reading.confidence >= SECOND_BELOW)):
            return result, error
        if second_model is None:
            second_model = second_detector if second_detector is not None else load_second_detector()
        use_second = True
        t1 = time.perf_counter()
        first = first_boxes.get((id(ph), False))
        if first is not None and not with_second(ph, first[1])[1]:
            # it adds no box: the same reading again (no classifier pass)
            t["second detector"] = time.perf_counter() - t1
            return result, error
        try:
            r2 = replace(read(ph, None), turned=turned,
                         straightened=result.straightened if result is not None else None)
        except (NoTilesError, HandError):
            r2 = None
        t["second detector"] = time.perf_counter() - t1
        # (as the mirror pass's: not kept when its tiles are mostly read turned, the quarter turns being the
        # remedy then: the demo sent a quarter turn off, said not won, had the added boxes read sideways as a
        # legal non-winner's hand at 86 %; nor as a non-winner's hand nobody said over one that is not,
        # :func:`_newly_non_winner`; over one that is, only reading more tiles or surer: a tilted composite's
        # right 13 tiles at 50 % had been replaced by the same 13 at 19 %, doubted for the boxes it added)
        both_non_winners = (r2 is not None and result is not None and _non_winner_read(r2, ctx)
                            and _non_winner_read(result, ctx))
        if (r2 is not None and not _mostly_turned(r2)
                and not _newly_non_winner(r2, result, ctx)
                and (result is None or r2.reading.legal or not result.reading.legal)
                and (not both_non_winners or r2.reading.confidence > result.reading.confidence
                     or len(used_tiles(r2.reading)) > len(used_tiles(result.reading)))):
            return r2, None
        return result, error

    free_of: dict[int, tuple[PhotoResult, PhotoResult]] = {}

    def unbound(r2: PhotoResult, res: PhotoResult) -> tuple[PhotoResult, PhotoResult]:
        """(``r2``, ``res``) as the rotation tries compare them: when both miss the ``--winning-tile``
        (:func:`_given_tile_missing`), their boxes read without it, the hand still said won (one pass of
        :func:`read_detections` each, no model pass): a tile no reading has says nothing of the photo's
        frame (a new user's ``-w 6z`` on the cookbook composite had it read turned 180°, 2 more bonus tiles
        found, numbered backwards from the run without it)."""
        if winning_tile is None or not (_given_tile_missing(r2, winning_tile)
                                        and _given_tile_missing(res, winning_tile)):
            return r2, res
        out = []
        for r in (r2, res):
            if id(r) not in free_of:
                free = read_detections(r.photo, r.detections, r.readings, rs, ctx, not_tiles=r.not_tiles,
                                       renumber=False, **{**kw, "winning_tile": None, "said_won": True})
                free_of[id(r)] = (r, replace(free, turned=r.turned, straightened=r.straightened,
                                             mirrored=r.mirrored, second=r.second))
            out.append(free_of[id(r)][1])
        return out[0], out[1]

    def choose_turn():
        """(the reading of the turn chosen, the upright reading, the upright reading's error)."""
        if turn:  # the user's turn, and no other
            ph = turn_photo(turn)
            try:
                res, err = replace(read(ph, t), turned=turn), None
            except (NoTilesError, HandError) as e:
                res, err = None, e
            res, err = second_look(res, err, ph, turn)
            return res, None, err
        try:
            result = read(photo, t)
            upright_error: Exception | None = None
        except (NoTilesError, HandError) as e:
            result, upright_error = None, e
        base = photo
        if result is not None:
            result, base = straighten(result)
        result, upright_error = second_look(result, upright_error, base)
        if (mirror and result is not None and weak_reading(result) and not _mostly_turned(result)
                and getattr(det_model, "mirror_safe", False)):
            # a tile the first pass missed or boxed loosely, boxed by the mirror image's pass (on the hard-scene
            # renders, dark tiles on a patterned bed cover); not for a photo whose tiles are mostly read turned:
            # the quarter turns are its remedy (the demo turned a quarter, said not won, had its fused boxes
            # read as a legal non-winner's hand)
            t1 = time.perf_counter()
            try:
                r2 = replace(read(base, None, mirrored=True), straightened=result.straightened, mirrored=True)
            except (NoTilesError, HandError):
                r2 = None
            # (kept only legal: two readings not legal are compared by their tile counts "at best", and a
            # held-out bed-cover render's fused boxes read 3 tiles as shown, 15 at best, against 12 shown)
            # (two legal readings: also surer, as the fused boxes' scores put the joints on other scales: a
            # reviewer's)
            if (r2 is not None and r2.reading.legal and _better(r2, result)
                    and not _newly_non_winner(r2, result, ctx) and not _mostly_turned(r2)
                    and (not result.reading.legal or r2.reading.confidence > result.reading.confidence)):
                result = r2
            t["mirror pass"] = time.perf_counter() - t1
        # a weak reading of a photo at least PARTS_FROM times the detector's input: read again in parts (a small
        # hand far off in it, on a cloth whose texture or other tiles the whole photo's pass boxes: a tester's
        # hands at 15-20 % of a 12 MP photo's width on a plaid cloth, or beside four large loose tiles, were
        # never found); kept when legal and surer, as the mirror pass's reading is
        imgsz = getattr(det_model, "imgsz", None) or 0
        big = max(base.pixels.shape[:2]) >= PARTS_FROM * imgsz > 0
        in_parts = bool(zoom and turn is None and big and (result is None or weak_reading(result))
                        and (result is None or _small_in_detector(result, imgsz)))
        # (not for a reading whose tiles are mostly read turned, nor kept so: the quarter turns are its remedy, as
        # for the mirror pass, read in parts below; the demo upside down had been read in parts as it lay, its
        # tiles upside down)
        def in_parts_over(result: PhotoResult | None, straightened, key: str) -> PhotoResult | None:
            """The photo (``base``) read in parts, when it is kept over ``result`` (the reading so far, or None):
            legal, not a non-winner's hand nobody said, its tiles not mostly read turned, and over a legal
            ``result`` surer and reading as many tiles; else None. Timed as ``t[key]``."""
            t1 = time.perf_counter()
            try:
                r2 = replace(read(base, None, parts=True), straightened=straightened)
            except (NoTilesError, HandError):
                r2 = None
            t[key] = time.perf_counter() - t1
            # (over a legal reading, only one that reads as many of the photo's tiles: on composites of real
            # tiles, parts' readings surer for leaving bonus tiles out had replaced three, one at 85 %)
            if (r2 is not None and r2.reading.legal and not _newly_non_winner(r2, result, ctx)
                    and not _mostly_turned(r2)
                    and (result is None or not result.reading.legal
                         or (r2.reading.confidence > result.reading.confidence
                             and len(used_tiles(r2.reading)) >= len(used_tiles(result.reading))))):
                return r2
            return None

        parts_read = in_parts and (result is None or not _mostly_turned(result))
        if parts_read:
            r2 = in_parts_over(result, result.straightened if result else None, "parts pass")
            if r2 is not None:
                result, upright_error = r2, None
        upright = result
        if rotate and turn is None and (result is None or weak_reading(result)):
            t1 = time.perf_counter()
            for deg, _ in TURNS:
                # (the turns too in parts when the upright photo was: a small hand from across the table lies
                # upside down; a quarter turn only from SLICE_FROM, its sideways tiles boxed as junk below it)
                # (and only for an upright reading that is no hand: a held-out render's legal upright reading, 40 %
                # sure, was replaced by its 180° turn read in parts, which left its flower out at 80 %)
                turned_parts = (in_parts and (upright is None or not upright.reading.legal)
                                and (deg == 180 or max(base.pixels.shape[:2]) >= SLICE_FROM * imgsz))
                # (a turn read in parts is kept only when legal: its parts box junk, and a 25° composite's turn read
                # so kept its straightened reading from being taken; else the turn is read as it was without them)
                r2 = None
                for with_parts in ((True, False) if turned_parts else (False,)):
                    try:
                        r2 = replace(read(turn_photo(deg, base), None, parts=with_parts),
                                     straightened=upright.straightened if upright else None, turned=deg)
                    except (NoTilesError, HandError):
                        r2 = None
                    if r2 is not None and (r2.reading.legal or not with_parts):
                        break
                    r2 = None
                if r2 is None:
                    continue
                if result is None or _turn_replaces(*unbound(r2, result)):
                    result = r2
                    if not weak_reading(result):  # a sure legal reading: the other turns cannot matter much
                        break
            t["rotation tries"] = time.perf_counter() - t1
            if (result is not None and upright is not None and result is not upright and upright.reading.legal
                    and upright.reading.notation == result.reading.notation
                    and _turned_tiles(upright) < _turned_tiles(result)):
                # the turn kept reads the hand the photo upright reads, its tiles turned: the upright frame,
                # as _better keeps of two readings of one hand (the turns are compared one after another, and a
                # quarter turn that replaced another turn was never weighed against the upright photo: a tilted
                # composite was read turned 270° at 89 %, all 14 tiles sideways, where upright read the same
                # hand with all 14 standing)
                result = upright
            if result is not None and result.turned and result.straightened is None:
                # (rows running up the photo and askew: the tilted tiles were too few to measure the rows by
                # upright, and the quarter turn that found them measures them)
                result, _ = straighten(result)
            if (zoom and big and not parts_read and result is not None and not result.reading.legal
                    and upright is not None):
                # no turn reads a legal hand, and the photo upright was not read in parts (its boxes large, or
                # mostly read turned, the turns left as the remedy): read in parts now, kept when legal and its
                # tiles stand (a tester's demo at 15-25 % of a 4000-px photo on a plaid cloth: every turn's
                # whole-photo pass boxed the cloth's crossings as tiles, mostly read sideways, and the hand was
                # never read)
                result = in_parts_over(result, upright.straightened, "late parts pass") or result
        if (rotate and straight and turn is None
                and (result is None or len(used_tiles(result.reading)) < BLIND_BELOW)):
            # a steep tilt (40°): the detector boxed too few of the tilted tiles, in every quarter turn, to
            # measure the rows by; the photo is straightened by a guess each way, and the guess that boxes
            # tiles has its rows measured and levelled
            t1 = time.perf_counter()
            for deg in BLIND_TILTS:
                level, how = straighten_photo(photo, deg)
                unsliced.append(level)
                try:
                    r2, _ = straighten(replace(read(level, None), straightened=how))
                except (NoTilesError, HandError):
                    continue
                if result is None or _better(r2, result):
                    result = r2
            t["blind straightening"] = time.perf_counter() - t1
        if rotate and turn is None and result is not None and _faces_turned(result, legal_only=False) is not None:
            t1 = time.perf_counter()
            result = faces_frame(result)
            t["faces' frame"] = time.perf_counter() - t1
        return result, upright, upright_error

    def faces_frame(res: PhotoResult) -> PhotoResult:
        """``res``'s boxes read again in the photo turned so that its telling faces stand (180° from its frame
        when they read upside-down; a quarter turn either way when sideways, the higher joint kept): kept when
        legal there and its faces stand (:func:`_faces_turned`) — a reading of ``res`` not legal, legal there or
        not, when its faces stand and it uses as many tiles —, else ``res``. The boxes stay those found (a
        turn can box a tile its upright photo missed: two composites, upright, were read turned 180°, their 8p
        set apart boxed only there, every character and 7p upside-down — right, but in the wrong frame, and a
        third so had a 6p read 4p at 98 %). One classifier pass per frame tried."""
        how = _faces_turned(res, legal_only=False)
        best = None
        for delta in ((180,) if how == "upside-down" else (90, 270) if how == "sideways" else (180, 90, 270)):
            ph = turn_photo(delta, res.photo)
            boxes = unturn_boxes(res.detections.boxes, (360 - delta) % 360, res.photo.size)
            det = Detections.make(boxes, res.detections.scores, res.detections.face_down)
            readings = cls_model(ph.pixels, det)
            det, readings, clutter = drop_not_tiles(det, readings)
            if not len(det):
                continue
            try:
                r2 = read_detections(ph, det, readings, rs, ctx, not_tiles=res.not_tiles + clutter, renumber=False,
                                     **kw)
            except HandError:
                continue
            # (the second detector's boxes among those kept: drop_not_tiles keeps the order, not the numbers)
            added = boxes[list(res.second_boxes)].astype(np.float32)
            kept = tuple(j for j, b in enumerate(r2.detections.boxes) if (np.abs(added - b).max(1) < 1e-3).any())
            r2 = replace(r2, turned=(res.turned + delta) % 360, straightened=res.straightened,
                         mirrored=res.mirrored, second=res.second, faces_frame=True, faces_from=res.turned,
                         second_boxes=kept)
            # kept when legal with its faces standing, not mostly turned (a quarter turn of a hand whose
            # symmetric tiles then read sideways) and using as many tiles; of a reading not legal, when its
            # faces stand, legal or not (a tester's demo on a checked cloth, at 15 % of a 4000-px photo, was
            # read only turned 180°, its tiles upside-down there, a 7p read 6p at 99 %: read in its faces'
            # frame, the tiles stand and are read as the player sees them)
            if ((r2.reading.legal or not res.reading.legal) and _faces_turned(r2, legal_only=False) is None
                    and not _mostly_turned(r2)
                    and len(used_tiles(r2.reading)) >= len(used_tiles(res.reading))
                    and (best is None or r2.joint > best.joint)):
                best = r2
        return best if best is not None else res

    result, upright, upright_error = choose_turn()
    if exposed and isinstance(upright_error, HandError) and (result is None or not result.reading.legal):
        # without the melds the user named, the reading contradicts what was said (a first-turn win read
        # with a meld exposed): the turn and the numbering are those of the reading with them
        kw["exposed"] = exposed
        result, upright, upright_error = choose_turn()
    if result is None or (isinstance(upright_error, HandError) and not result.reading.legal):
        raise upright_error  # type: ignore[misc]  # (what the user said contradicts the upright reading)
    first = _hand_first(result.layout.geometry, result.reading.roles)
    if first != tuple(result.layout.geometry.order):
        # the readings above are numbered by their regions (each turn's, each detector's: read once each); the
        # one chosen is read again numbered with the hand's rows first, as photo --help says (_hand_first)
        t1 = time.perf_counter()
        try:
            again = read_detections(result.photo, result.detections, result.readings, rs, ctx,
                                    not_tiles=result.not_tiles, order=first, **kw)
        except HandError:  # (the same boxes read the same way: kept numbered as they were)
            again = None
        if again is not None and _same_reading(again.reading, result.reading):
            # (its frame as the reading's, not weighed yet: frame_doubt is weighed once, at the end, after won_hint,
            # as for every reading; with_frame here had weighed it before won_hint, for renumbered photos only)
            result = replace(again, turned=result.turned, straightened=result.straightened, mirrored=result.mirrored,
                             second=result.second, second_boxes=result.second_boxes,
                             faces_frame=result.faces_frame, faces_from=result.faces_from)
        t["layout+decode+score"] = t.get("layout+decode+score", 0.0) + time.perf_counter() - t1
    if fixes or additions or (exposed and "exposed" not in kw):
        t1 = time.perf_counter()
        fixed = read_detections(result.photo, result.detections, result.readings, rs, ctx, fixes=fixes,
                                additions=additions, shown=result.layout.geometry, not_tiles=result.not_tiles,
                                shown_roles=result.reading.roles, shown_legal=result.reading.legal,
                                shown_loose=loose_bonus_boxes(result.layout),
                                shown_rivals=result.reading.region_rivals, **{**kw, "exposed": exposed})
        result = replace(with_frame(fixed, result.turned, result.straightened, mirrored=result.mirrored,
                                    second=result.second), second_boxes=result.second_boxes,
                         faces_frame=result.faces_frame, faces_from=result.faces_from)
        t["layout+decode+score"] = t.get("layout+decode+score", 0.0) + time.perf_counter() - t1
    if not ctx.winner:
        result = won_hint(result, rs, ctx, kw, exposed)
    frame: list[str] = []  # (in the order they were made: straightened, mirrored, then turned)
    if result.straightened is not None:
        d = result.straightened.degrees
        frame.append(f"the photo was read straightened: turned {turn_words(d)}, "
                     f"which levels its rows (they ran {abs(d):.0f}° off level)"
                     + ("" if result.turned else "; tile boxes are those of the straightened photo"))
    if result.second:
        frame.append(second_words(result))
    if result.mirrored:
        frame.append("the tiles were boxed again with the photo also read mirrored, the two passes' boxes fused "
                     "(the first pass's reading was not legal or unsure)")
    if result.faces_frame:
        # (a phone tester's upright photo, told only that its tiles "were boxed in the photo turned 180°", took it
        # to be read upside down: the frame the tiles are read in is said first)
        now = f"turned {result.turned}°" if result.turned else "as it stands"
        frame.append(f"the photo is read {now}, where its tiles' faces stand upright; their boxes were found in the "
                     f"photo turned {result.faces_from}° (the turn whose reading came out best; read there, most of "
                     f"the tiles whose faces tell up from down were upside down or sideways)")
    if result.turned:
        why = ("as asked with --turn" if turn else
               "the faces that tell up from down stand so" if result.faces_frame else
               f"the photo read upright contradicts what was said: {upright_error}"
               if upright is None and isinstance(upright_error, HandError) else
               "no tile was found upright" if upright is None else
               "the photo read upright is not a legal hand" if not upright.reading.legal else
               f"read upright, the same hand has {_turned_tiles(upright)} of its {len(_face_up_tiles(upright))} "
               f"face-up tiles upside down or sideways" if upright.reading.notation == result.reading.notation else
               "it reads better than the photo upright")
        frame.append(f"the photo was read turned {result.turned}° clockwise ({why}); tile boxes are those of the "
                     + ("photo straightened, then turned" if result.straightened is not None else "turned photo")
                     # (the way back to the photo as taken, where the turn was the reader's guess: a literal referee
                     # followed a turned photo's notes to a 99 % wrong hand, no note naming --turn 0)
                     + ("; if the tiles stand upright in the photo as taken, read it so with --turn 0" if not turn
                        else ""))
    result = with_frame(result, result.turned, result.straightened, frame, mirrored=result.mirrored,
                        second=result.second)
    t["total"] = time.perf_counter() - t0
    profile = getattr(classifier, "tileset", None)
    return replace(result, timings=t, tileset=getattr(profile, "name", None))


#: how the note of :func:`won_hint` begins (batch copies the note into a row's problem by it)
WON_HINT_START = "read as a winning hand, the same boxes make "


#: a non-winner's reading that leaves out a tile the same boxes' sure winner's reading takes in is at most this sure
#: (:func:`won_hint`)
WON_LEFT_OUT = 0.5
#: … and its note says so with these words
WON_LEFT_OUT_NOTE = "this reading leaves out {what} that one takes in: at most"


def won_hint(res: PhotoResult, rs: Ruleset, ctx: Context, kw: Mapping, exposed) -> PhotoResult:
    """``res``, a non-winner's reading (``ctx.winner`` False), with a note when its boxes read as a winner's
    hand are legal and sure (at the batch's review line, :data:`vision.decode.REVIEW_BELOW`, or more), and
    ``res`` is not legal, is unsure, or is no surer than that: the hand may have won (a new user's winning
    photos said not won were read at 41-43 % as non-winners' hands with a tile left out, where read as won
    they were read right at > 99 %; a tester's at 97 % with the winning tile left out, where read as won it
    was 98 %); when the winner's reading takes in a tile that ``res`` leaves out, ``res`` is at most
    :data:`WON_LEFT_OUT` sure. One more model-free decode of the same boxes (said won: a winner's hand only), not after the
    user's corrections (``res.user``: they number and keep the non-winner's boxes); ``res`` unchanged
    otherwise. ``kw``: :func:`read_detections`'s winning_tile, options and said_won. Raises nothing
    (a HandError of the winner's reading leaves ``res`` as it is)."""
    if "leave out --not-winner" in (res.reading.problem or ""):
        return res  # (its problem says so already: a tile count a winner's)
    if res.user:  # (the user's corrections are of the non-winner's reading: its numbering, its boxes)
        return res
    try:
        won = read_detections(res.photo, res.detections, res.readings, rs, replace(ctx, winner=True),
                              not_tiles=res.not_tiles, renumber=False, **{**kw, "exposed": exposed, "said_won": True})
    except HandError:
        return res
    hand = won.reading.hand
    # (each weighed by its score's sureness, as batch and the history weigh them: a director's winning photo filed as
    # a non-winner's, its unsure flower worth nothing under nts, was read at 62 % — a score 91 % sure, ok — with a
    # tile of its pung left out, where read as won it was as sure, and no note said so)
    won_sure = score_confidence(won)
    if not (won.reading.legal and hand is not None and hand.context.winner and won_sure >= REVIEW_BELOW):
        return res
    res_sure = score_confidence(res)
    sure = res.reading.legal and res_sure >= REVIEW_BELOW
    if sure and won_sure < res_sure:
        return res  # (a sure non-winner's reading, surer than the winner's: no doubt to raise)
    note = (f"{WON_HINT_START}{won.reading.notation} "
            f"({format_confidence(won_sure)} sure): if the hand won, leave out --not-winner")
    conf = res.reading.confidence
    taken = sum(r != "ignored" and res.reading.roles[k] == "ignored" for k, r in enumerate(won.reading.roles))
    if taken and res.reading.legal and res_sure > WON_LEFT_OUT:
        # (the score held at WON_LEFT_OUT: the reading's own confidence so that its score's, × the doubts that cannot
        # change it, is no more)
        doubts = (score_doubts(res, res.scored.ruleset, res.scored.options)
                  if res.scored is not None and res_sure != conf else 1.0)  # (as score_confidence applies them)
        conf = min(conf, WON_LEFT_OUT / max(doubts, 1.0))
        # the winner's reading takes in a tile the non-winner's leaves out (a tile set apart): which is right rests on
        # the word "not won" alone (a tester's winning 9p set 2 tile widths apart, said not won, was read at 95 %)
        note += f" ({WON_LEFT_OUT_NOTE.format(what='a tile' if taken == 1 else 'tiles')} {WON_LEFT_OUT:.0%} sure)"
    return replace(res, reading=replace(res.reading, confidence=conf, notes=res.reading.notes + (note,)))


def second_words(res: PhotoResult) -> str:
    """The note of a reading with the second detector's boxes (``res.second``): how many it added, their tile
    numbers (those of ``--fix``) and which of them the hand uses, so that a referee sees whether they changed it."""
    nums = sorted(res.position(i) for i in res.second_boxes)
    used = set(used_tiles(res.reading))
    in_hand = sorted(res.position(i) for i in res.second_boxes if i in used)
    # (as spans: a check cloth's 118 boxes had been listed one by one, 1, 15, 16, 17, … 132)
    where = (f": tile(s) {number_spans(nums)}; " + (f"the hand uses {number_spans(in_hand)}" if in_hand
             else "none of them in the hand (boxes left out still make the reading less sure)")) if nums else ""
    return (f"the tiles were also boxed by a second detector (mahjong-detector's, trained on real photos), "
            f"{len(nums)} box(es) added where the first detector had none or one over two tiles{where} (the first "
            f"reading was not legal or under {SECOND_BELOW:.0%} sure)")


def with_frame(res: PhotoResult, turned: int, straightened: Straightened | None,
               notes: Sequence[str] = (), mirrored: bool = False, second: bool | None = None) -> PhotoResult:
    """``res`` (a reading of detections made in a straightened or turned photo: :func:`read_detections`
    keeps no frame) with that frame, ``turned`` and ``straightened`` (and ``mirrored``: its boxes are the
    mirror pass's; ``second``: they include the second detector's, None keeps ``res``'s), and ``notes`` (how the photo was straightened and turned: :func:`read_photo`) first
    among its reading's notes and kept as ``frame_notes``, so that a reading made again from the same
    detections (the web page's corrections) shows them too. The frame is final here: the reading's confidence
    is weighed once against the poses of its telling faces (:func:`frame_doubt`), not while the turns are
    compared (that choice is made by the joint scores and the poses of every tile)."""
    notes = tuple(notes)
    geo = res.layout.geometry
    reading = res.reading if res.frame_doubted else frame_doubt(res.reading, res.readings, geo.order, res.user,
                                                                 geo.sideways)
    return replace(res, turned=turned, straightened=straightened, frame_notes=notes, mirrored=mirrored,
                   second=res.second if second is None else second, frame_doubted=True,
                   reading=replace(reading, notes=notes + reading.notes))


def unturn_boxes(boxes: np.ndarray, turned: int, size: tuple[int, int]) -> np.ndarray:
    """Boxes of a photo read turned ``turned`` degrees clockwise (``PhotoResult.turned``), (N, 4)
    xyxy pixels of the turned photo of ``size`` (width, height), → the same boxes in the photo as
    loaded (before the turn). Raises ValueError for a turn that is not 0/90/180/270."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    Wt, Ht = size
    x0, y0, x1, y1 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    if turned == 0:
        return b.copy()
    if turned == 90:  # turned (x', y') = (H - y, x): back x = y', y = Wt - x'
        return np.stack([y0, Wt - x1, y1, Wt - x0], 1)
    if turned == 180:
        return np.stack([Wt - x1, Ht - y1, Wt - x0, Ht - y0], 1)
    if turned == 270:  # turned (x', y') = (y, W - x): back x = Ht - y', y = x'
        return np.stack([Ht - y1, x0, Ht - y0, x1], 1)
    raise ValueError(f"turned must be 0, 90, 180 or 270, not {turned}")


#: a reading whose rows run at least this far off level (degrees; the layout's row direction,
#: :attr:`vision.layout.Geometry.angle`) has the photo read again straightened (:func:`read_photo`):
#: a phone held askew. Below it the models read the rows as well as level ones: the composites of real
#: tiles (their scenes turned up to ±8°, with perspective) measure 6–8.7° off level in 31 of 240, and
#: straightening those at 6° changed only unsure readings (hands exact 97 → 95, found 183 → 179)
TILT_MIN = 9.0
#: straightening passes at most (:func:`read_photo`): the second levels what the first left (a 40° tilt
#: measured 33° on the tiles boxed in the tilted photo)
STRAIGHTEN_TRIES = 2
#: a reading (after the quarter turns) that uses fewer tiles than this, or none, has the photo also read
#: straightened by each of :data:`BLIND_TILTS` degrees, then levelled as measured there (:func:`read_photo`):
#: at 40° the detector boxed 0–8 tiles of the tilted composites, too few to measure the rows by
BLIND_BELOW = 5
BLIND_TILTS = (40.0, -40.0)
#: the grey of the straightened canvas' corners (the detector's letterbox pad: no tile is seen there)
STRAIGHTEN_FILL = 114


def turn_matrix(size: tuple[int, int], degrees: float) -> tuple[np.ndarray, tuple[int, int]]:
    """The (2, 3) float64 affine map of pixel coordinates of an image of ``size`` (width, height) turned
    ``degrees`` anticlockwise about its centre (``cv2.getRotationMatrix2D``) onto a canvas grown to hold
    all of it, with that canvas' (width, height)."""
    W, H = size
    M = cv2.getRotationMatrix2D((W / 2.0, H / 2.0), float(degrees), 1.0)
    c, s = abs(M[0, 0]), abs(M[0, 1])
    nW, nH = int(math.ceil(H * s + W * c)), int(math.ceil(H * c + W * s))
    M[0, 2] += nW / 2.0 - W / 2.0
    M[1, 2] += nH / 2.0 - H / 2.0
    return M, (nW, nH)


def map_boxes(boxes: np.ndarray, M: np.ndarray) -> np.ndarray:
    """(N, 4) xyxy boxes → (N, 4) float64: the upright box around each box's four corners mapped by the
    (2, 3) affine ``M`` (a turned box's upright box)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    xs = np.stack([b[:, 0], b[:, 2], b[:, 0], b[:, 2]], 1)
    ys = np.stack([b[:, 1], b[:, 1], b[:, 3], b[:, 3]], 1)
    X = M[0, 0] * xs + M[0, 1] * ys + M[0, 2]
    Y = M[1, 0] * xs + M[1, 1] * ys + M[1, 2]
    return np.stack([X.min(1), Y.min(1), X.max(1), Y.max(1)], 1)


def row_tilt(res: PhotoResult) -> float:
    """Degrees the reading's main row runs clockwise of level (or of plumb, for rows running up the
    photo), in [-45, 45]: :attr:`vision.layout.Geometry.angle` of the reading's layout; 0 when the
    reading uses fewer than 3 tiles (no row to measure)."""
    if len(used_tiles(res.reading)) < 3:
        return 0.0
    return float(math.degrees(res.layout.geometry.angle))


#: the part of a straightened photo kept reaches at least this many median tile heights past the tiles
#: found (:func:`straighten_photo`)
STRAIGHTEN_MARGIN = 1.5


def straighten_photo(photo: Photo, degrees: float, keep: np.ndarray | None = None) -> tuple[Photo, Straightened]:
    """``photo`` turned ``degrees`` anticlockwise about its centre (a row running that far clockwise of
    level comes out level; ``cv2.warpAffine``, bilinear) onto a canvas grown to hold every pixel, the
    corners filled :data:`STRAIGHTEN_FILL` grey. ``keep``: (N, 4) xyxy boxes of the photo (the tiles
    found upright): only a part of the turned photo as large as the photo (or the whole turned photo
    when that is smaller along a side; larger when the tiles and
    :data:`STRAIGHTEN_MARGIN` median box heights past them reach further), centred on them, is kept, so
    that the tiles are as large in the detector's input as they were, with as much around them (the
    whole turned photo of a 20° tilt is 1.3× as wide and high: composites of real tiles turned 15° read
    12 of 20 hands exactly so, 14 with the tiles' box and 1.5 tile heights around it kept; that tight
    part, zoomed in, cut off a row's end tiles the tilted photo had not boxed, and had a patterned cloth
    boxed as tiles). The Photo's ``original_size`` is
    the canvas at the file's full resolution (the frame its boxes are in), its ``scale`` unchanged;
    :class:`Straightened` maps back (:func:`unstraighten_boxes`). Pixels (H, W, 3) uint8 RGB →
    (H', W', 3) uint8 RGB."""
    M, (nW, nH) = turn_matrix(photo.size, degrees)
    x0 = y0 = 0
    x1, y1 = nW, nH
    b = np.asarray(keep if keep is not None else np.zeros((0, 4)), np.float64).reshape(-1, 4)
    if len(b):
        t = map_boxes(b, M)
        lo, hi = t[:, :2].min(0), t[:, 2:].max(0)  # the turned tiles' extent, (x, y)
        m = STRAIGHTEN_MARGIN * float(np.median(b[:, 3] - b[:, 1]))
        W, H = photo.size
        # the photo's own size (or more, for tiles reaching further), centred on the tiles: they are as
        # large in the detector's input as in the photo, with as much around them
        cw = int(min(nW, max(W, math.ceil(hi[0] - lo[0] + 2 * m))))
        ch = int(min(nH, max(H, math.ceil(hi[1] - lo[1] + 2 * m))))
        x0 = int(np.clip(round((lo[0] + hi[0]) / 2 - cw / 2), 0, nW - cw))
        y0 = int(np.clip(round((lo[1] + hi[1]) / 2 - ch / 2), 0, nH - ch))
        x1, y1 = x0 + cw, y0 + ch
    how = Straightened(float(degrees), photo.size, tuple(photo.original_size), (x0, y0))
    pix = cv2.warpAffine(photo.pixels, how.matrix(), (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=(STRAIGHTEN_FILL,) * 3)
    orig = (int(round((x1 - x0) / photo.scale)), int(round((y1 - y0) / photo.scale)))
    return replace(photo, pixels=pix, original_size=orig), how


def unstraighten_boxes(boxes: np.ndarray, how: Straightened | None) -> np.ndarray:
    """Boxes of a straightened photo, (N, 4) xyxy pixels at the working scale, → the boxes in the photo
    as loaded: each box's corners mapped back (the inverse of :meth:`Straightened.matrix`) and the box
    holding them (a tile turned by the straightening comes back as the upright box around it).
    ``how`` None: the boxes unchanged (a copy)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if how is None or not len(b):
        return b.copy()
    return map_boxes(b, cv2.invertAffineTransform(how.matrix()))


def loaded_frame_boxes(res: PhotoResult) -> np.ndarray:
    """Every detection's box, (N, 4) float64 xyxy, in the pixels of the photo as loaded (working scale,
    EXIF-upright; divide by ``res.photo.scale`` for the file's pixels): the quarter turn
    (:func:`unturn_boxes`) and the straightening (:func:`unstraighten_boxes`) undone."""
    boxes = unturn_boxes(res.detections.boxes, res.turned, res.photo.size)
    return unstraighten_boxes(boxes, res.straightened)


def used_tiles(reading: Reading) -> list[int]:
    """Detection indices the reading uses (every role but ``ignored``)."""
    return [i for i, role in enumerate(reading.roles) if role != "ignored"]


def least_sure_tile(res: PhotoResult) -> tuple[int, float] | None:
    """The tile of the reading the classifier was least sure of: (detection index, its top
    probability), or None when the reading uses no tile. A bonus tile counts with its probability of being
    any flower or season where no bonus tile can change the score (:func:`unscored_face_doubts`: which one
    it is matters not; a director's nts row named a 4f read at 58 %, 99 % a flower or season, as the tile
    to check)."""
    used = used_tiles(res.reading)
    if not used:
        return None
    probs = res.readings.probs
    sc = res.scored
    faces = sc is not None and unscored_face_doubts(res, sc.ruleset, sc.options) > 1.0

    def sure(k: int) -> float:
        if faces and res.reading.roles[k] == "bonus":
            return float(probs[k, BONUS_INDEX].sum())
        return float(probs[k].max())

    i = min(used, key=sure)
    return i, sure(i)


def least_words(res: PhotoResult, least: tuple[int, float]) -> str:
    """What :func:`least_sure_tile` found, said: ``3f read at 52%``, with ``, taken as 2z`` where the reading
    changed the tile to make a legal hand (a director's row named a 3f the reading showed as 2z); a bonus tile
    weighed as any flower or season: ``a flower or season at 74%, 4f at 58%``."""
    i, p = least
    code, tile = res.readings.codes[i], res.reading.tiles[i]
    top = float(res.readings.probs[i].max())
    if res.reading.roles[i] == "bonus" and p > top:  # (weighed as any flower/season: least_sure_tile)
        return f"a flower or season at {format_confidence(p)}, {code} at {format_confidence(top)}"
    return f"{code} read at {format_confidence(p)}" + (f", taken as {tile}" if tile is not None and tile != code else "")


#: a group of loose flowers/seasons, or another hand region's reading, that cost the reading at least this share
#: of its confidence is named as a doubt (:func:`loose_bonus_doubts`, :func:`region_doubts`): `audit`'s UNSURE
#: verdict (`photo` says it in the loose tiles' note, :func:`region_rival_note`)
LOOSE_DOUBT = 0.05


def loose_bonus_doubts(res: PhotoResult) -> list[tuple[list[int], list[str], float]]:
    """The flowers/seasons the reading left out as loose tiles that made it less sure
    (:attr:`vision.decode.Reading.loose_bonus`) by at least :data:`LOOSE_DOUBT`, costliest first: (their tile
    numbers, the faces they are read as, the share of the confidence they cost). ``--fix N=-`` on each says
    they are not the hand's and takes that doubt away; ``--add`` of their faces counts them (the note says how)."""
    out = []
    for tiles, p, q in res.reading.loose_bonus:
        cost = p * q
        shown = [i for i in tiles if i in res.order]
        if cost < LOOSE_DOUBT or not shown:
            continue
        # (each tile's likeliest flower/season, as the note says)
        named = sorted((res.position(i), bonus_face(res.readings, i)) for i in shown)
        out.append(([n for n, _ in named], [f for _, f in named], cost))
    return sorted(out, key=lambda d: -d[2])


def unscored_bonus_doubts(res: PhotoResult, ruleset, options=None) -> float:
    """The flowers/seasons the reading left out as loose tiles (:attr:`vision.decode.Reading.loose_bonus`)
    that cannot change the score: the hand scored under ``ruleset`` (an id or a loaded ruleset) with
    ``options`` comes out the same — total, points, doublings, cash, status and every line's amounts —
    with any one face the hand does not hold added, and with every group's likeliest faces added at once
    (a ruleset that scores no bonus tile: nts and rode-draak by default; not hk-tw-16, where a seat's own
    flower scores and a set of four is cash). Returns the factor by which they lowered the reading's
    confidence, ≥ 1 (the confidence × it is what the score's doubt rests on): all of them or none, 1.0
    when any such hand scores otherwise or cannot be scored. A club referee's audit of a hand
    under nts was UNSURE (exit 1) at 77 % for two loose flowers worth 0 points. Raises nothing."""
    r = res.reading
    if not r.legal or res.scored is None or not r.loose_bonus:
        return 1.0
    held = set(r.hand.bonus)
    likeliest = sorted({bonus_face(res.readings, i) for tiles, _, _ in r.loose_bonus for i in tiles} - held)
    tries = [tuple(sorted(r.hand.bonus + (f,))) for f in BONUS_TILES if f not in held]
    tries.append(tuple(sorted(r.hand.bonus + tuple(likeliest))))
    if _scores_otherwise(res, tries, ruleset, options):
        return 1.0
    return math.prod(1.0 / (1.0 - p * q) for _, p, q in r.loose_bonus if p * q < 1.0)


def unscored_face_doubts(res: PhotoResult, ruleset, options=None) -> float:
    """The hand's bonus tiles whose face made the reading less sure (:attr:`vision.decode.Reading.bonus_faces`),
    when no bonus tile can change the score: the hand scored under ``ruleset`` (an id or a loaded ruleset) with
    ``options`` comes out the same (as :func:`unscored_bonus_doubts` compares it) with no bonus tile, with each
    face alone, with all eight, and with any one of its bonus tiles' faces replaced by a face it does not hold
    (nts and rode-draak score no bonus tile by default, and a limit hand scores its limit with any; not swedish
    or hk-tw-16, where a seat's own flower scores, nor a set of four faces, which no single change shows).
    Returns the factor by which those tiles' faces lowered the reading's confidence, ≥ 1: all of them or none.
    A tournament director's nts photo read right at 69 % for which flower or season two bonus tiles were (4y or
    3f, 1y or 1f), the whole doubt, worth 0 points. Raises nothing."""
    r = res.reading
    if not r.legal or res.scored is None or not r.bonus_faces:
        return 1.0
    held = list(r.hand.bonus)
    tries = [(), tuple(BONUS_TILES)] + [(f,) for f in BONUS_TILES]
    for p, _ in r.bonus_faces:
        if r.tiles[p] in held:
            rest = list(held)
            rest.remove(r.tiles[p])
            tries += [tuple(sorted(rest + [g])) for g in BONUS_TILES if g not in held]
    if _scores_otherwise(res, tries, ruleset, options):
        return 1.0
    return math.prod(1.0 / share for _, share in r.bonus_faces if share > 0.0)


def same_hand_but_bonus(rv: RegionRival, r: Reading) -> bool:
    """``rv``, another hand region's legal reading, reads the legal reading ``r``'s hand but for its
    flowers/seasons: the boxes where they differ are bonus tiles in both, counted by one and left out by the
    other, they agree on who won, and their notations match without the bonus tiles. Raises nothing."""
    def playing(notation: str) -> list[str]:  # (the notation without its bonus tiles: the same hand's melds too)
        return sorted(t for t in notation.split() if not t.startswith("+"))

    return bool(r.hand is not None and rv.winner == bool(r.hand.context.winner) and not rv.otherwise
                and (rv.counted or rv.left) and playing(rv.notation) == playing(r.notation)
                and all(role == "bonus" for _, _, role in rv.counted) and all(r.roles[i] == "bonus" for i in rv.left))


def unscored_rival_doubts(res: PhotoResult, ruleset, options=None) -> float:
    """The other hand regions' legal readings (:attr:`vision.decode.Reading.region_rivals`) that read the same hand
    but for its flowers/seasons — the boxes where they differ are bonus tiles in both, counted by one and left
    out by the other, and they agree on who won — when none of them changes the score: the hand scored under
    ``ruleset`` (an id or a loaded ruleset) with ``options`` with each such reading's bonus tiles comes out the
    same (as :func:`unscored_bonus_doubts` compares it). Returns the factor by which their shares lowered the
    reading's confidence, ≥ 1: all of them or none. A web tester's demo, small on a plaid cloth, was read right
    at 41 % under nts, the other region reading it with its flower: the page flagged it to check, with no tile
    to check. Raises nothing."""
    r = res.reading
    if not r.legal or res.scored is None or r.hand is None or not r.region_rivals:
        return 1.0
    same = [rv for rv in r.region_rivals if same_hand_but_bonus(rv, r)]
    if not same:
        return 1.0
    tries = []
    for rv in same:
        bonus = list(r.hand.bonus)
        for i in rv.left:
            if r.tiles[i] in bonus:
                bonus.remove(r.tiles[i])
        tries.append(tuple(sorted(bonus + [tile for _, tile, _ in rv.counted])))
    if _scores_otherwise(res, tries, ruleset, options):
        return 1.0
    mine = 1.0 - sum(rv.share for rv in r.region_rivals)  # (the reading's own share: its confidence was × it)
    return (mine + sum(rv.share for rv in same)) / mine if mine > 0.0 else 1.0


def _scores_otherwise(res: PhotoResult, tries: Sequence[tuple[str, ...]], ruleset, options) -> bool:
    """The hand of ``res`` with any of the bonus-tile sets ``tries`` scores otherwise than ``res.scored`` under
    ``ruleset`` and ``options`` (total, points, doublings, cash, status or any line's amounts), or cannot be
    scored; the sets are scored in order, up to the first that does."""
    from dataclasses import replace as _replace

    from scoring import HandError, RulesetError

    def key(sc: ScoredHand) -> tuple:
        return (sc.total, sc.points, sc.doublings, sc.cash, sc.allowed, sc.status,
                tuple((ln.rule, ln.points, ln.doublings, ln.fixed, ln.multiplier, ln.cash) for ln in sc.lines))

    base = key(res.scored)
    for bonus in tries:
        try:
            if key(score_hand(_replace(res.reading.hand, bonus=bonus), ruleset, options, win_notes=False)) != base:
                return True
        except (HandError, RulesetError):
            return True
    return False


def score_doubts(res: PhotoResult, ruleset, options=None) -> float:
    """The factor, ≥ 1, by which doubts that cannot change the score under ``ruleset`` and ``options`` lowered
    the reading's confidence: flowers/seasons left out as loose tiles (:func:`unscored_bonus_doubts`) × the
    faces of its bonus tiles (:func:`unscored_face_doubts`) × other regions' readings of the same hand but for
    its flowers/seasons (:func:`unscored_rival_doubts`). Raises nothing."""
    return (unscored_bonus_doubts(res, ruleset, options) * unscored_face_doubts(res, ruleset, options)
            * unscored_rival_doubts(res, ruleset, options) * unscored_counted_doubts(res, ruleset, options))


def unscored_counted_doubts(res: PhotoResult, ruleset, options=None) -> float:
    """The flowers/seasons far from the row that the reading counts as the hand's (``Reading.far_counted``) when they
    cannot change the score: the hand scored without them comes out the same (as :func:`_scores_otherwise` compares
    it; nts and rode-draak score no bonus tile by default). Returns the factor by which they lowered the reading's
    confidence, ≥ 1: all of them or none. Raises nothing."""
    r = res.reading
    if not r.legal or res.scored is None or not r.far_counted:
        return 1.0
    rest = list(r.hand.bonus)
    for tiles, _ in r.far_counted:
        for i in tiles:
            if r.tiles[i] in rest:
                rest.remove(r.tiles[i])
    if _scores_otherwise(res, [tuple(rest)], ruleset, options):
        return 1.0
    return math.prod(1.0 / p for _, p in r.far_counted if p > 0)


def score_confidence(res: PhotoResult) -> float:
    """How sure the score of ``res`` is, a probability 0..1: the reading's confidence without the doubts that
    cannot change the score under the ruleset and options it was scored with (:func:`score_doubts`: flowers/
    seasons left out as loose tiles, which flower or season its bonus tiles are), at most 1; the reading's own
    confidence when those doubts change the score, it has none, or it is not scored (``res.scored`` None). What
    batch's needs-review, the history's unsure status, the page's check-it flag and `table`'s provisional
    settlement weigh against :data:`vision.decode.REVIEW_BELOW`, as `audit` does (a tournament director's row under
    nts was needs-review at 62 % for a loose season worth 0 points, and an nts referee's audit UNSURE at
    77 % for two loose flowers). Raises nothing."""
    r = res.reading
    conf = float(r.confidence)
    if res.scored is None or not r.legal or not (r.loose_bonus or r.bonus_faces or r.region_rivals or r.far_counted):
        return conf
    return min(1.0, conf * score_doubts(res, res.scored.ruleset, res.scored.options))


def weak_reading(res: PhotoResult) -> bool:
    """True when ``res`` is worth reading again turned (:func:`read_photo`): not legal, confidence
    below :data:`ROTATE_BELOW`, or at least half of the face-up tiles it uses were read upside-down
    or sideways by the classifier's turn search (half and half: the photo's turn is undecided)."""
    r = res.reading
    if not r.legal or r.confidence < ROTATE_BELOW:
        return True
    return _mostly_turned(res)


def _face_up_tiles(res: PhotoResult) -> list[int]:
    """Detection indices of the face-up tiles the reading uses."""
    return [i for i in used_tiles(res.reading) if res.readings.pose[i] != "face-down"]


def _mostly_turned(res: PhotoResult) -> bool:
    """At least half of the face-up tiles ``res`` uses were read upside-down or sideways."""
    face_up = _face_up_tiles(res)
    return bool(face_up) and _turned_tiles(res) >= len(face_up) / 2


#: an unread hand's error points at the user's corrections first when each other tile of it is read this sure
SURE_OTHERWISE = 0.95


def _non_winner_read(res: PhotoResult, ctx: Context) -> bool:
    """``res`` is legal as a non-winner's hand (13 or 16 tiles) while nobody said the hand did not win
    (``ctx.winner``): the mirror pass's reading is not kept so (a held-out tiles-behind render read exactly
    as a winning hand, four bonus tiles misread, was replaced by a 13-tile non-winner's reading of its
    boxes fused)."""
    hand = res.reading.hand
    return bool(res.reading.legal and ctx.winner and hand is not None and not hand.context.winner)


def _newly_non_winner(r2: PhotoResult, result: PhotoResult | None, ctx: Context) -> bool:
    """``r2`` (a later pass's reading) is a non-winner's hand nobody said (:func:`_non_winner_read`) while
    ``result`` (the reading so far, or None) is not: such a pass is not kept over it. When the reading so far
    is itself a non-winner's hand (its row of 13 or 16 tiles), the later pass is weighed as any other (a
    composite's two bonus tiles below its 13-tile row, boxed only by the second detector, had been left out
    so, the second detector's reading refused for being a non-winner's)."""
    return _non_winner_read(r2, ctx) and not (result is not None and _non_winner_read(result, ctx))


def _better(a: PhotoResult, b: PhotoResult) -> bool:
    """``a`` reads its photo better than ``b``: legal before not legal; of two readings not legal for
    their tile counts, the one whose count is nearer the hand's (``Reading.count_off``), else the one with more tiles,
    read more surely; of two legal ones, the higher joint
    log-score (region prior × role prior × tile readings × the models' belief in the boxes); within
    :data:`TURN_TIE` of each other, or reading the same hand (the same notation), the one with fewer
    tiles read turned (the photo the right way up: an upside-down reading can be as probable, with 7s
    read as 6s, or more, each tile read at its best turn)."""
    if a.reading.legal != b.reading.legal:
        return a.reading.legal
    if not a.reading.legal:  # neither legal: nearer a hand's tile count, then more of its tiles found, read more surely
        return _reads_more(a, b)
    if abs(a.joint - b.joint) < TURN_TIE or a.reading.notation == b.reading.notation:
        # as probable, or the same hand read in both frames (its score the same): the frame whose tiles
        # stand upright is the photo's (a new user's riichi photo turned 180° was read as stored at a joint
        # 0.74 higher, 10 of its 14 tiles read upside down, and numbered and drawn backwards)
        return _turned_tiles(a) < _turned_tiles(b)
    return a.joint > b.joint


#: readings of two turns of a photo within this much joint log-score are told apart by their tiles' poses
TURN_TIE = 0.5
#: (a cost of 0.3 a tile read turned, against the joint of a quarter turn, was measured and not kept: it
#: read one tilted composite right that a 180° turn had read wrong at 98 %, and lost two that the wrong
#: turn read right at 97-100 %, a season's corner numeral read other ways round: see the model card)


#: a turn whose tiles are mostly read turned replaces a reading whose tiles stand only this sure
#: (:func:`_turn_replaces`; it was ROTATE_BELOW, 0.5)
TURNED_SURE = 0.8


def _turn_replaces(r2: PhotoResult, result: PhotoResult) -> bool:
    """``r2``, a quarter turn of the photo, is kept over ``result`` (the reading kept so far: the photo
    as loaded, or an earlier turn) in :func:`read_photo`'s rotation tries: it reads better
    (:func:`_better`), and — an upright reading that is not legal gives way only to a sure turned one,
    or to one that finds more of the hand's tiles (a turned photo read as some unsure legal hand of no
    more tiles, e.g. a non-winner's 13 tiles, is no better, unless its tiles stand where the upright reading's are
    mostly read turned and it uses as many) — it is not a reading under
    :data:`TURNED_SURE` whose tiles are mostly read sideways or upside down over one whose tiles stand
    (a calibration grid's unsure legal reading gave way to one turned 90° with all 19 tiles read
    sideways) — unless that reading uses no tile at all (a tester's demo on a checked cloth read no tile of a
    hand upright, and its hand only turned 180°, upside down there: :func:`read_photo` then reads it in the
    frame where its faces stand) —, nor such a reading that uses fewer
    tiles than the one whose tiles stand, nor a reading legal
    only for a box of its hand read as a tile left out as a false detection over a legal one that left none
    out (:func:`_drops_a_read_tile`); or, of two turns neither legal,
    its tiles stand upright (:func:`_upright_tiles_win`)."""
    if _upright_tiles_win(r2, result):
        return True
    if _drops_a_read_tile(r2, result):
        return False
    if not _better(r2, result):
        return False
    # (… or one whose tiles stand, legal, where the reading so far has its tiles mostly read turned and uses no
    # more: a tester's 13-tile hand in a clear column, the photo sent a quarter turn off, had its legal turn
    # refused for an upright reading of sideways tiles mixed with discards, "no legal hand")
    if not (result.reading.legal or not weak_reading(r2)
            or len(used_tiles(r2.reading)) > len(used_tiles(result.reading))
            or (r2.reading.legal and _mostly_turned(result) and not _mostly_turned(r2)
                and len(used_tiles(r2.reading)) == len(used_tiles(result.reading)))):
        return False
    # (a turn whose tiles are mostly read sideways or upside down replaces a reading whose tiles stand
    # only when it is sure, TURNED_SURE: a new user's `--not-winner` on the riichi photo was read turned
    # 180° at 52 %, against the upright 41 %, a real tile left out. Never would cost photos that are
    # upside down: their symmetric tiles, read surely upright, are not tried turned, so the turn that
    # reads them right can look "mostly turned" — a tilted composite's >99 % reading)
    sure = r2.reading.legal and r2.reading.confidence >= TURNED_SURE
    if _mostly_turned(r2) and not _mostly_turned(result) and used_tiles(result.reading):
        # nor, sure or not, a quarter turn (not 180°: an upside-down photo's right reading can look mostly
        # turned, and drop a false box the photo as loaded kept) that uses fewer tiles than the reading
        # whose tiles stand: it is sure for the tiles it left out (a new user's winning hand said not won,
        # its tiles standing in the photo as loaded, was read a quarter turn off at 98 % as a non-winner's
        # 14 tiles, a kong's tile and the 5s no longer boxed, where the photo as loaded used 16)
        return sure and (r2.turned == 180 or len(used_tiles(r2.reading)) >= len(used_tiles(result.reading)))
    return True


def _given_tile_missing(res: PhotoResult, winning_tile: str) -> bool:
    """``res`` is not legal, and none of its concealed tiles reads ``winning_tile`` (the
    ``--winning-tile`` given): what makes it not legal may be only that tile. Of two turns of a photo
    both so, :func:`read_photo`'s rotation tries compare their readings without it (as the user's run
    without ``-w`` chose its frame), so the error names the tiles in that frame and numbering: a new
    user's ``-w 6z`` on the cookbook composite (``composite_bonus_002.jpg``, no 6z in the hand) read legal
    upright without it, at 3 %; with it, neither turn was legal and the 180° one read 2 more bonus tiles
    (+1234f3y for +124f), so it was kept, every tile renumbered (tile 1 read 5z), and its advice
    ``--fix POS=6z`` named tiles by numbers the user's earlier run did not use. A photo upside down with a
    ``-w`` its hand has is still read turned: its turned reading is legal, and never compared so."""
    try:
        wt = parse_winning_tile(winning_tile)
    except HandError:
        return False
    r = res.reading
    return not r.legal and wt not in {t for t, role in zip(r.tiles, r.roles) if role in ("concealed", "winning")}


#: faces that tell up from down: a character's numeral over 萬, the winds, 發, the flowers and seasons, the
#: bird of 1s, 3s, 7s, 6p and 7p. The other circles and bamboos, White and Red look about the same either way
#: up, and the classifier reads them upright whichever way they lie, so they say nothing of the frame
POSE_TELLING = frozenset([f"{n}m" for n in range(1, 10)] + ["1z", "2z", "3z", "4z", "6z", "1s", "3s", "7s", "6p",
                                                              "7p"] + list(BONUS_TILES))
#: a reading is doubted for its frame from this many hand tiles of :data:`POSE_TELLING` faces
FRAME_FACES = 3


#: how the turned telling faces of a doubted frame lie (:func:`_doubted_faces`), in a note's words, and the
#: frame that says the photo was read in
POSE_WORDS = {"upside-down": "upside down", "sideways": "sideways", "mixed": "upside down or sideways"}
FRAME_WORDS = {"upside-down": "upside down", "sideways": "on its side", "mixed": "the wrong way up"}
#: the frame doubt's way out (batch and the web page say it in their own words)
FRAME_DOUBT_ADVICE = "check those tiles, or read the photo another way up (--turn DEG; --turn 0: as it is stored)"


def _doubted_faces(reading: Reading, readings: TileReadings, user: frozenset[int] = frozenset(),
                   laid_sideways: Sequence[bool] = (), legal_only: bool = True) -> tuple[list[int], int, str] | None:
    """When more than half of the n ≥ :data:`FRAME_FACES` tiles of ``reading``'s hand and melds whose faces
    tell up from down (:data:`POSE_TELLING`, by the classifier's reading; bonus tiles, which lie apart, backs,
    the tiles the user set, ``user``, and those the layout found laid sideways among the others on purpose,
    ``laid_sideways`` per detection — a winning or claimed tile, :attr:`vision.layout.Geometry.sideways` — left
    out) were read upside-down or sideways: (their detection
    indices, n, how they lie: ``"upside-down"`` or ``"sideways"`` when all so, else ``"mixed"``); None when
    the frame is not doubted, or the reading is not legal and ``legal_only``."""
    if legal_only and not reading.legal:
        return None
    telling = [i for i, role in enumerate(reading.roles)
               if role in ("concealed", "winning", "exposed", "concealed-kong") and i not in user
               and readings.codes[i] in POSE_TELLING and readings.pose[i] != "face-down"
               and not (i < len(laid_sideways) and laid_sideways[i])]
    turned = [i for i in telling if readings.pose[i] in ("upside-down", "sideways")]
    if len(telling) < FRAME_FACES or 2 * len(turned) <= len(telling):
        return None
    poses = {readings.pose[i] for i in turned}
    return turned, len(telling), poses.pop() if len(poses) == 1 else "mixed"


def _faces_turned(res: PhotoResult, legal_only: bool = True) -> str | None:
    """How the telling faces of ``res``'s reading lie when its frame is doubted (:func:`_doubted_faces`,
    a reading not legal too unless ``legal_only``): ``"upside-down"``, ``"sideways"`` or ``"mixed"``; else None."""
    d = _doubted_faces(res.reading, res.readings, res.user, res.layout.geometry.sideways, legal_only)
    return d[2] if d else None


def frame_doubt(reading: Reading, readings: TileReadings, order: Sequence[int],
                user: frozenset[int] = frozenset(), laid_sideways: Sequence[bool] = ()) -> Reading:
    """``reading`` with its confidence × (k + 1) / (n + 2) and an ``unsure:`` note when its frame is doubted
    (:func:`_doubted_faces`: more than half of the n ≥ :data:`FRAME_FACES` telling faces of its hand read
    upside-down or sideways, k upright): the photo is likely read the wrong way up, and such a reading can
    be sure and wrong (a tilted composite, upright, read turned 180° at 98 %: its 1-3m, 6p and 7p
    upside-down, a 6p read 4p, while its 2p, 4p and 8p, the same either way up, read upright; a composite
    read a quarter turn off at 100 %, its two 1s read 7z and 1z). (k + 1) / (n + 2) is the share of upright
    ones with one of each added (Laplace's rule); ``order``: the tile numbering; ``user``: the tiles the
    user set (``--fix``, ``--add``), which say nothing of the frame; ``laid_sideways``: per detection, laid
    sideways on purpose among the others (:attr:`vision.layout.Geometry.sideways`), which says nothing either."""
    d = _doubted_faces(reading, readings, user, laid_sideways)
    if d is None:
        return reading
    turned, n, how = d
    share = (n - len(turned) + 1) / (n + 2)
    names = number_spans(sorted(order.index(i) + 1 for i in turned))
    return replace(reading, confidence=reading.confidence * share, notes=reading.notes + (
        f"unsure: of the {n} tiles of the hand whose faces tell up from down (characters, winds, 發, 1s, 3s, 7s, "
        f"6p, 7p), {len(turned)} were read {POSE_WORDS[how]} (tile(s) {names}), as if the photo were read "
        f"{FRAME_WORDS[how]} ({share:.0%} that it is read the right way up); {FRAME_DOUBT_ADVICE}",))


#: a box the classifier reads this surely as one tile is taken for a tile, not a false detection, by
#: :func:`_drops_a_read_tile` (the false-detection note shows a box's reading below it)
READ_AS_TILE = 0.5


def _drops_a_read_tile(r2: PhotoResult, result: PhotoResult) -> bool:
    """``r2``, a quarter turn of the photo, is legal only for a box of its hand left out as a false
    detection (:attr:`~vision.decode.Reading.false_drops`) that the classifier reads as a tile
    (:data:`READ_AS_TILE` or more), while ``result`` is legal with no box so left out and uses at least as
    many tiles: a turn that drops a tile of the row does not win over one that keeps them (a new user's
    winning hand said not won: its 180° try left out a 9p of the row, read at 100 %, to make 13 tiles, its
    joint within :data:`TURN_TIE` of the upright reading that kept the row's 13, and only the tiles' poses
    kept the photo upright; the user had seen it read turned 180° with a tile of the hand dropped)."""
    read = [i for i in r2.reading.false_drops if float(r2.readings.probs[i].max()) >= READ_AS_TILE]
    return bool(read and r2.reading.legal and result.reading.legal and not result.reading.false_drops
                and len(used_tiles(result.reading)) >= len(used_tiles(r2.reading)))


def _level_kept(r2: PhotoResult, best: PhotoResult) -> bool:
    """``r2``, the photo straightened and read, is kept over ``best`` (the tilted photo's reading, or a
    pass before): when it is legal; when neither is, unless it uses fewer tiles, its count is farther
    from the hand's, or the tilted reading reads clearly more (:func:`_reads_more`): the models know
    level rows (a winning hand said not won, read tilted, had an 8p read 9p)."""
    if r2.reading.legal:
        return True
    return (not best.reading.legal and not _reads_more(best, r2)
            and len(used_tiles(r2.reading)) >= len(used_tiles(best.reading))
            and r2.reading.count_off <= best.reading.count_off)


def _upright_tiles_win(a: PhotoResult, b: PhotoResult) -> bool:
    """Of two quarter turns of a photo (``a``, ``b`` both read turned) neither of which reads legal,
    nor either clearly more (:func:`_reads_more`), ``a`` has fewer tiles read upside-down or sideways:
    it is the photo the right way up (a winning hand said not won, sent a quarter turn off, had been
    read upside down: the two opposite turns read as many tiles as surely). Not applied against the
    photo as loaded, which keeps its place unless a turn reads clearly more."""
    return bool(a.turned and b.turned and not a.reading.legal and not b.reading.legal
                and not _reads_more(a, b) and not _reads_more(b, a) and _turned_tiles(a) < _turned_tiles(b))


def _small_in_detector(res: PhotoResult, imgsz: int) -> bool:
    """The tiles of ``res``'s reading are under :data:`ZOOM_BELOW` pixels high (median) in the detector's
    ``imgsz``-px input: small enough that reading the photo in parts may box tiles its whole-photo pass missed
    (:func:`read_photo`'s parts pass; a composite's tiles of 104 px in a 1280-px photo, 34 px there, are not: its
    right reading at 1 % had been replaced by the parts' 1s 1s read 7z 7z at 10 %). True when the reading uses no
    tile, whatever size its boxes are (a tester's hand at 18 % of a 12 MP photo beside four large plain shapes,
    boxed as three huge tiles, was "no tiles of a hand"). Raises nothing."""
    det = res.detections
    used = [i for i in used_tiles(res.reading) if i < len(det)]
    if not used:
        return True
    h, w = res.photo.pixels.shape[:2]
    return float(np.median(det.sizes[used, 1])) * imgsz / max(h, w, 1) < ZOOM_BELOW


def _reads_more(a: PhotoResult, b: PhotoResult) -> bool:
    """Of two readings not legal, ``a`` is clearly the better read: its tile count nearer the hand's
    (``Reading.count_off``; both wrong), else its evidence (tiles used + 0.1 × their log-evidence) more by
    over 1.0."""
    if a.reading.count_off and b.reading.count_off and a.reading.count_off != b.reading.count_off:
        return a.reading.count_off < b.reading.count_off  # (both tile counts wrong: 0 is a count right)
    return _evidence_of(a) > _evidence_of(b) + 1.0


def _turned_tiles(res: PhotoResult) -> int:
    """How many face-up tiles of the reading the classifier read upside-down or sideways."""
    return sum(1 for i in used_tiles(res.reading) if res.readings.pose[i] in ("upside-down", "sideways"))


def _evidence_of(res: PhotoResult) -> float:
    used = used_tiles(res.reading)
    if not used:
        return -math.inf
    t = tileness(res.detections, res.readings)
    return float(len(used)) + 0.1 * _evidence(t, sure_level(t, len(used)), res.reading)


#: tiles smaller than this in the detector's input (median box height, pixels) trigger a second,
#: zoomed detection pass over the region holding them
ZOOM_BELOW = 28
#: the zoomed region must be at most this fraction of the photo's area to be worth it
ZOOM_AREA = 0.45
#: at most this many zoomed passes: a pass whose hand reaches past its region's edge (the first pass had
#: boxed a few of the hand's tiles as one blob) runs again over the region its boxes now span
ZOOM_PASSES = 3
#: when the whole photo's pass boxes fewer tiles than this, the detector also reads it in
#: :data:`SLICES` × :data:`SLICES` overlapping parts (a hand so small in a large photo that the whole
#: photo's pass, at the detector's input size, finds none of it: about 1 % of the photo's width a tile)
SLICE_BELOW = 3
SLICES = 3
#: … when its long side is at least this many times the detector's input (416: 1664 px; a 12 MP photo is read
#: at 2016): a smaller photo whose pass boxes so few is one whose tiles are not small but hard to box (a
#: composite turned 25°, 1571 px: read in parts, its tilted tiles made a wrong reading that kept the photo from
#: being straightened, which reads it)
SLICE_FROM = 4
#: … and its parts' boxes are kept when they are at least this many (a hand's tiles; a stray box or two of a
#: plain photo are not). No score tells the hand's tiles from a cloth's: the demo at 12 % of a 12 MP photo's width
#: is boxed in parts at 0.33–0.59, a plaid cloth's pattern at up to 0.85; a reviewer's photo of smooth noise, its
#: 48 boxes read in parts, is refused as a hand 4 tiles long, not as "no tiles of a hand were found" (exit 2 both)
SLICE_KEEP = 5
#: a weak reading of a photo whose long side is at least this many times the detector's input (832 px) is read
#: again with its parts' boxes joined to the whole photo's (``detect_zoomed(parts=True)``, :func:`read_photo`)
PARTS_FROM = 2
#: the parts overlap by this share of their size (a tile cut by a part's edge lies whole in the next)
SLICE_OVERLAP = 0.25


#: a box within this many pixels of a part's edge inside the photo touches it (:func:`_clear_of_edges`)
EDGE_PX = 2.0


def _clear_of_edges(boxes: np.ndarray, region: tuple[int, int, int, int], size: tuple[int, int]) -> np.ndarray:
    """(N,) bool: the boxes ((N, 4) xyxy pixels of the photo) found in ``region`` (x0, y0, x1, y1) that
    keep :data:`EDGE_PX` clear of each of its edges lying inside the photo (``size`` (W, H)): a box
    touching one may be a tile cut by it."""
    x0, y0, x1, y1 = region
    W, H = size
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    return (((b[:, 0] > x0 + EDGE_PX) | (x0 <= 0)) & ((b[:, 1] > y0 + EDGE_PX) | (y0 <= 0))
            & ((b[:, 2] < x1 - EDGE_PX) | (x1 >= W)) & ((b[:, 3] < y1 - EDGE_PX) | (y1 >= H)))


def _nms(boxes: np.ndarray, scores: np.ndarray, face_down: np.ndarray) -> Detections:
    """Boxes ((N, 4) xyxy pixels) with their scores and face-down flags (N,) kept by class-agnostic NMS
    (:func:`cv2.dnn.NMSBoxes` at :data:`vision.detect.IOU_THRESHOLD`), surest first, at most
    :data:`vision.detect.MAX_DETECTIONS`. Raises nothing."""
    from .detect import IOU_THRESHOLD, MAX_DETECTIONS

    bx, sc = np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(scores, np.float64)
    xywh = np.c_[bx[:, :2], bx[:, 2:] - bx[:, :2]]
    keep = np.asarray(cv2.dnn.NMSBoxes(xywh.tolist(), sc.tolist(), 0.0, IOU_THRESHOLD), np.int64).reshape(-1)
    keep = keep[np.argsort(-sc[keep], kind="stable")][:MAX_DETECTIONS]
    return Detections.make(bx[keep].astype(np.float32), sc[keep].astype(np.float32), np.asarray(face_down)[keep])


#: a box of the whole photo's pass that holds this many of the parts' boxes whole, or is more than this many times
#: as high as their median, is no tile (:func:`_joined`)
HOLDS_TILES, TALLER = 2, 3.0


def _joined(a: Detections, b: Detections) -> Detections:
    """The boxes of ``a`` and ``b`` (two passes over one photo — the whole photo's, then its parts' —; (N, 4) xyxy
    pixels) joined by :func:`_nms`, without the boxes of ``a`` that hold :data:`HOLDS_TILES` or more of ``b``'s
    whole (tiles do not nest) or are more than :data:`TALLER` times as high as ``b``'s median box, when ``b``
    holds at least :data:`SLICE_KEEP` boxes. (A tester's hand at 18 % of a 12 MP photo beside four large plain
    shapes: the whole photo's pass boxed three shapes as tiles, one of them the pasted photo round the 15 tiles
    the parts boxed; the hand was found among the shapes, and read as no hand.) Raises nothing."""
    if len(a) and len(b) >= SLICE_KEEP:
        A = a.boxes.astype(np.float64)[:, None, :]
        B = b.boxes.astype(np.float64)[None, :, :]
        held = ((A[..., 0] <= B[..., 0]) & (A[..., 1] <= B[..., 1]) & (A[..., 2] >= B[..., 2])
                & (A[..., 3] >= B[..., 3])).sum(axis=1)
        tall = a.sizes[:, 1] > TALLER * float(np.median(b.sizes[:, 1]))
        a = a.take(np.flatnonzero((held < HOLDS_TILES) & ~tall))
    return _nms(np.vstack([a.boxes, b.boxes]), np.r_[a.scores, b.scores], np.r_[a.face_down, b.face_down])


def detect_sliced(image: np.ndarray, detector: Detector) -> Detections:
    """Detections of ``image`` ((H, W, 3) uint8 RGB) read in :data:`SLICES` × :data:`SLICES` parts
    overlapping by :data:`SLICE_OVERLAP` (sliced inference, as SAHI: Akyon et al., ICIP 2022): boxes
    touching a part's edge inside the photo are dropped (their tile lies whole in the next part), the
    rest joined by class-agnostic NMS (:func:`_nms`).
    Boxes (N, 4) float32 xyxy pixels of ``image``; raises what the detector raises."""
    H, W = image.shape[:2]
    pw, ph = W / (SLICES - (SLICES - 1) * SLICE_OVERLAP), H / (SLICES - (SLICES - 1) * SLICE_OVERLAP)
    boxes, scores, down = [], [], []
    for i in range(SLICES):
        for j in range(SLICES):
            x0, y0 = int(round(j * pw * (1 - SLICE_OVERLAP))), int(round(i * ph * (1 - SLICE_OVERLAP)))
            x1, y1 = min(W, int(round(x0 + pw))), min(H, int(round(y0 + ph)))
            sub = detector(np.ascontiguousarray(image[y0:y1, x0:x1]))
            if not len(sub):
                continue
            b = sub.boxes.astype(np.float64) + np.array([x0, y0, x0, y0], np.float64)
            keep = _clear_of_edges(b, (x0, y0, x1, y1), (W, H))
            boxes.append(b[keep])
            scores.append(np.asarray(sub.scores, np.float64)[keep])
            down.append(np.asarray(sub.face_down)[keep])
    if not boxes or not sum(len(b) for b in boxes):
        return Detections.make(np.zeros((0, 4), np.float32))
    return _nms(np.vstack(boxes), np.concatenate(scores), np.concatenate(down))


def _hand_boxes(det: Detections, size: tuple[int, int]) -> list[int]:
    """The indices of ``det``'s hand tiles (:func:`vision.layout.find_geometry` in a photo of ``size`` (W, H)),
    all its boxes when it finds none. Raises nothing."""
    return list(find_geometry(det, size).hand_tiles) or list(range(len(det)))


def _zoom_region(det: Detections, size: tuple[int, int], hand: Sequence[int] | None = None
                 ) -> tuple[int, int, int, int]:
    """The region (x0, y0, x1, y1) pixels holding the hand's tiles of ``det`` (``hand``, else
    :func:`_hand_boxes`), grown by two median tile heights and clipped to the photo (``size`` (W, H));
    ``det`` holds at least one box. Raises nothing."""
    W, H = size
    hand = list(hand) if hand is not None else _hand_boxes(det, size)
    b = det.boxes[hand]
    pad = 2 * float(np.median(det.sizes[hand, 1]))
    return (max(0, int(b[:, 0].min() - pad)), max(0, int(b[:, 1].min() - pad)),
            min(W, int(b[:, 2].max() + pad)), min(H, int(b[:, 3].max() + pad)))


#: a zoomed region whose hand reaches within a tile of one of its edges grows past that edge by this many
#: tiles (:func:`_grown_region`)
ZOOM_GROW_TILES = 6


def _grown_region(det: Detections, region: tuple[int, int, int, int], size: tuple[int, int],
                  cut: np.ndarray | None = None) -> tuple[int, int, int, int]:
    """``region`` (x0, y0, x1, y1) pixels grown past each of its edges inside the photo (``size`` (W, H))
    that the hand's boxes in ``det`` reach within a tile height, or that cuts one of the boxes ``cut``
    ((K, 4) xyxy pixels: the region's pass boxed a tile across that edge), by :data:`ZOOM_GROW_TILES` tiles
    (the larger of the median width and height: the row goes on beyond it), and then over the hand's own
    region (:func:`_zoom_region`); ``region`` itself when the hand reaches none of its edges. Raises nothing."""
    W, H = size
    hand = _hand_boxes(det, size)
    b = det.boxes[hand].astype(np.float64)
    th = float(np.median(det.sizes[hand, 1]))
    step = ZOOM_GROW_TILES * float(max(np.median(det.sizes[hand, 0]), th))
    x0, y0, x1, y1 = region
    ex0, ey0, ex1, ey1 = b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()
    c = np.asarray(cut if cut is not None else np.zeros((0, 4)), np.float64).reshape(-1, 4)
    if len(c):  # (a tile cut by the edge reaches it)
        ex0, ey0 = min(ex0, c[:, 0].min()), min(ey0, c[:, 1].min())
        ex1, ey1 = max(ex1, c[:, 2].max()), max(ey1, c[:, 3].max())
    nx0 = x0 - step if (x0 > 0 and ex0 - x0 < th) else x0
    ny0 = y0 - step if (y0 > 0 and ey0 - y0 < th) else y0
    nx1 = x1 + step if (x1 < W and x1 - ex1 < th) else x1
    ny1 = y1 + step if (y1 < H and y1 - ey1 < th) else y1
    if (nx0, ny0, nx1, ny1) == (x0, y0, x1, y1):
        return region
    z = _zoom_region(det, size, hand)
    return (max(0, int(min(nx0, z[0]))), max(0, int(min(ny0, z[1]))),
            min(W, int(max(nx1, z[2]))), min(H, int(max(ny1, z[3]))))


def detect_zoomed(image: np.ndarray, detector: Detector, sliced: bool = True, parts: bool = False) -> Detections:
    """Detections of ``image`` ((H, W, 3) uint8 RGB) by ``detector``; when the hand's tiles
    (:func:`vision.layout.find_geometry`) are small in the detector's input (median box height under
    :data:`ZOOM_BELOW` pixels there) and lie in a small part of the photo (:data:`ZOOM_AREA`), the
    detector runs again on that part (grown by two tile heights, :func:`_zoom_region`) at its full input
    size, and those boxes replace the first pass's boxes inside it. When the hand found in that pass
    reaches to its region's edge (a small hand far off in a large photo, first boxed as a blob or two), the
    pass runs again over the region grown past that edge (:func:`_grown_region`), up to :data:`ZOOM_PASSES`
    passes. ``sliced``: a photo of at least :data:`SLICE_FROM` times the detector's input size whose whole-photo pass boxes
    under :data:`SLICE_BELOW` tiles is first read in parts (:func:`detect_sliced`), its parts' boxes taken
    when there are :data:`SLICE_KEEP` or more (not for the quarter turns of a weak
    reading, whose sideways tiles the parts box as junk: a composite whose upright pass had missed one tile
    was read as a 13-tile hand); ``parts``: read in parts whatever the whole photo's pass boxed, and those
    boxes joined to its boxes (:func:`_joined`; the retry of a weak reading, :data:`PARTS_FROM`). Returns the
    :class:`vision.detect.Detections` (boxes (N, 4) float32 xyxy pixels of ``image``); raises what the
    detector raises.
    """
    det = detector(image)
    imgsz = getattr(detector, "imgsz", None)  # any callable image → Detections may stand in
    H, W = image.shape[:2]
    if imgsz and (parts or (sliced and len(det) < SLICE_BELOW and max(H, W) >= SLICE_FROM * imgsz)):
        cut = detect_sliced(image, detector)
        if len(cut) >= SLICE_KEEP:
            det = _joined(det, cut) if parts and len(det) else cut
    if len(det) == 0 or not imgsz:
        return det
    scale = imgsz / max(H, W)
    hand = _hand_boxes(det, (W, H))
    if float(np.median(det.sizes[hand, 1])) * scale >= ZOOM_BELOW:
        return det
    first = det
    region = _zoom_region(det, (W, H), hand)
    regions: list[tuple[int, int, int, int]] = []
    passes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # each pass's boxes, all
    edge_clear: list[np.ndarray] = []  # … which of them keep clear of its region's edges
    for _ in range(ZOOM_PASSES):
        x0, y0, x1, y1 = region
        if (x1 - x0) * (y1 - y0) > ZOOM_AREA * W * H:
            break
        sub = detector(np.ascontiguousarray(image[y0:y1, x0:x1]))
        if len(sub) == 0:
            break
        boxes = sub.boxes.astype(np.float64) + np.array([x0, y0, x0, y0], np.float64)
        keep = _clear_of_edges(boxes, region, (W, H))
        fd = np.asarray(sub.face_down, bool)
        sc = np.asarray(sub.scores, np.float64)
        passes.append((boxes, sc, fd))
        edge_clear.append(keep)
        regions.append(region)
        det = _zoomed_boxes(first, regions, passes, edge_clear)
        grown = _grown_region(det, region, (W, H), boxes[~keep])
        if grown == region:
            break
        region = grown
    return det


#: a box of a later zoomed pass (or one a region's edge cut) that covers this share of its own area or of a
#: box already kept (the smaller) is that tile again, boxed at another scale (:func:`_zoomed_boxes`): two
#: passes box one tile offset from each other (IoU 0.31–0.39 on a held-out render, under NMS's 0.4), while
#: neighbours' boxes overlap less
ZOOM_SAME_TILE = 0.35


def _zoomed_boxes(first: Detections, regions, passes, edge_clear) -> Detections:
    """The detections of :func:`detect_zoomed`: the first zoomed pass's boxes (``passes``: per pass, in the
    order run, its (boxes (K, 4) xyxy pixels, scores, face-down flags) in the detector's order;
    ``edge_clear``: per pass, (K,) bool, the box keeps clear of its region's edges), every one; then each
    later pass's boxes clear of its region's edges where they box a tile no box kept yet boxes
    (:data:`ZOOM_SAME_TILE`: a larger region, its tiles smaller in the detector's input, boxes fewer of them
    and offset, so each pass adds only what the closer passes lacked) or where the boxes kept of it are all
    cut by a region's edge (it replaces them), and those its region's edge cut that no kept box overlaps at
    NMS's IoU; then the first pass's boxes not wholly inside a region (``regions``) that cover no tile kept
    (:data:`ZOOM_SAME_TILE`). Returns the :class:`vision.detect.Detections` (boxes (N, 4) float32 xyxy pixels,
    at most :data:`vision.detect.MAX_DETECTIONS`); raises nothing."""
    from .detect import IOU_THRESHOLD, MAX_DETECTIONS

    area = lambda z: np.clip(z[..., 2] - z[..., 0], 0, None) * np.clip(z[..., 3] - z[..., 1], 0, None)  # noqa: E731
    # the first zoomed pass's boxes, every one, in the detector's order: its own NMS joined them (the one
    # zoomed pass read so before the passes grew); a box its region's edge cut is marked, and gives way to a
    # later pass's whole box of that tile, in its place
    kept = [[np.asarray(b, np.float64), float(sc), bool(fd), not clear]
            for b, sc, fd, clear in zip(*passes[0], edge_clear[0])]

    def overlaps(box: np.ndarray, how: str) -> np.ndarray:
        kb = np.asarray([k[0] for k in kept]).reshape(-1, 4)
        iw = np.clip(np.minimum(kb[:, 2], box[2]) - np.maximum(kb[:, 0], box[0]), 0, None)
        ih = np.clip(np.minimum(kb[:, 3], box[3]) - np.maximum(kb[:, 1], box[1]), 0, None)
        inter = iw * ih
        if how == "cover":  # (the share of the smaller box the other covers)
            return inter / np.maximum(np.minimum(area(kb), area(box)), 1e-9) >= ZOOM_SAME_TILE
        # (a cut box is small: a neighbour's box covers much of it; IoU, as NMS)
        return inter / np.maximum(area(kb) + area(box) - inter, 1e-9) >= IOU_THRESHOLD

    for (b, sc, fd), clear in zip(passes[1:], edge_clear[1:]):
        for k in np.argsort(~clear, kind="stable"):  # (its whole boxes first, in the detector's order)
            box = np.asarray(b[k], np.float64)
            same = np.flatnonzero(overlaps(box, "cover" if clear[k] else "iou")) if kept else np.zeros(0, int)
            if not len(same):
                kept.append([box, float(sc[k]), bool(fd[k]), not bool(clear[k])])
            elif clear[k] and all(kept[j][3] for j in same):  # only cut boxes of it: the whole box replaces them
                kept[same[0]] = [box, float(sc[k]), bool(fd[k]), False]
                for j in sorted(same[1:], reverse=True):
                    del kept[j]
    kept_b = [k[0] for k in kept]
    kept_s = [k[1] for k in kept]
    kept_f = [k[2] for k in kept]
    fb = first.boxes.astype(np.float64)
    outside = np.ones(len(fb), bool)
    for x0, y0, x1, y1 in regions:
        outside &= ~((fb[:, 0] >= x0) & (fb[:, 1] >= y0) & (fb[:, 2] <= x1) & (fb[:, 3] <= y1))
    for k in np.flatnonzero(outside):  # (one straddling a region's edge, beside a zoomed box of its tile: a reviewer's)
        if kept and overlaps(fb[k], "cover").any():
            outside[k] = False
    out_b = np.vstack([np.asarray(kept_b).reshape(-1, 4), fb[outside]])[:MAX_DETECTIONS]
    out_s = np.r_[np.asarray(kept_s, np.float64), np.asarray(first.scores, np.float64)[outside]][:MAX_DETECTIONS]
    out_f = np.r_[np.asarray(kept_f, bool), np.asarray(first.face_down, bool)[outside]][:MAX_DETECTIONS]
    return Detections.make(out_b.astype(np.float32), out_s.astype(np.float32), out_f)


#: detections with a score below this (or doubtful: tileness under the sure level) may be dropped as false
#: detections when that makes a legal hand
DROP_SCORE = 0.6
DROP_TRIES = 2
#: the detector score and classifier probability counted for a tile are at least this (a tile the
#: models doubt still counts as evidence, bounded)
EVIDENCE_FLOOR = 0.05
#: the flag of a dead hand (rode-draak: a player with more or fewer than 13 tiles, 001:108), under which a
#: non-winner's reading of the full count is refused: a single tile set apart is then read as not the
#: hand's (:func:`_dead_hand_apart`)
DEAD_HAND_FLAG = "dead-hand"
#: the words after "tile N (CODE)" in the note of a single tile set apart left out of a dead hand
DEAD_HAND_APART_NOTE = ", a single tile set apart, left out of the hand"


@dataclass(frozen=True)
class _Tried:
    """One candidate hand region decoded: its layout and reading and the joint log-score."""

    candidate: Candidate
    layout: Layout
    reading: Reading
    joint: float


#: a box is doubtful when its tileness (detector score × the classifier's top probability) is below
#: this share of the hand's typical tileness (the median of the ``need`` surest boxes)
SURE_SHARE = 0.6
#: the prior of a region found among the sure boxes only, against one found among all boxes
SURE_ONLY_PRIOR = 0.5
#: when nothing is said about the win, the prior of a non-winner's reading against a winner's, and
#: the candidate regions (best first) read as a non-winner's hand
NON_WINNER_PRIOR = 0.2
NON_WINNER_REGIONS = 3
#: the confidence of a non-winner's reading nobody asked for is multiplied by this (as likely a
#: winner's photo with a tile missed), so that it is always checked
UNSAID_NON_WINNER = 0.5
#: the prior of that unsaid non-winner's reading is multiplied by this when a tile at either end of its main row's
#: hand tiles lies sideways or is pushed forward (:func:`_marked_win`): the way a winning tile is shown, which a non-winner's row has no reason to show (a winner's layout gives that tile 0.8 as the
#: winning tile against 0.2 for "no winning tile marked", :func:`vision.layout.assign_roles`)
MARKED_WIN_NON_WINNER = 0.2
#: the start of the note that says so (:func:`summary` names that doubt in the confidence line)
UNSAID_NOTE = "the hand's row shows"


def read_as_unsaid_non_winner(reading: Reading) -> bool:
    """True when ``reading`` (:class:`vision.decode.Reading`) was read and scored as a non-winner's hand
    (13 tiles; 16 in the 16-tile game) though nobody said the hand did not win (:data:`UNSAID_NOTE`): it may
    as well be a winner's photo with a tile missed, so it is never taken as sure — `photo` halves its
    confidence and says why, a batch row needs review whatever ``--review-below``. Raises nothing."""
    return any(n.startswith(UNSAID_NOTE) for n in reading.notes)


def region_candidates(det: Detections, readings: TileReadings, image_size: tuple[int, int], need: int
                      ) -> tuple[Candidate, ...]:
    """The candidate hand regions of :func:`vision.layout.hand_candidates` over all boxes and, when
    some boxes are doubtful (tileness below :data:`SURE_SHARE` of the hand's typical tileness: a cloth
    pattern, keyboard keys, tiles of a far wall, which lie in line with the hand and join its rows),
    also over the sure boxes alone (prior × :data:`SURE_ONLY_PRIOR`; the doubtful boxes are then left
    out of the region, numbered last, except one lying in the gap between two tiles of a hand row,
    which goes back there: :func:`vision.layout.lift_geometry`). A region whose main row holds more
    tiles than a hand's row can loses prior (:func:`_longer_than_a_hand`). Regions come best prior
    first, the best 1.0. Tileness: (N,) detector score × top class probability."""
    cands = [_longer_than_a_hand(c, det, readings, need) for c in hand_candidates(det, image_size, need)]
    n = len(det)
    t = tileness(det, readings) if n >= 4 else np.zeros(0)
    sure = np.nonzero(t >= sure_level(t, need))[0]
    if n < 4 or len(sure) == n or len(sure) < 3:
        return tuple(by_prior(cands))
    seen = {frozenset(c.geometry.hand_tiles) for c in cands}
    for c in hand_candidates(det.take(sure), image_size, need, limit=4):
        geo = lift_geometry(c.geometry, sure, n, det.boxes)
        if frozenset(geo.hand_tiles) in seen:
            continue
        seen.add(frozenset(geo.hand_tiles))
        back_in = len(geo.hand_tiles) - len(c.geometry.hand_tiles)  # put back in the gaps of hand rows
        why = c.why
        if back_in:
            k0, k1 = len(c.geometry.row_tiles(0)), len(geo.row_tiles(0))
            why = why.replace(f"row of {k0} tiles", f"row of {k1} tiles", 1)
            why += f", {back_in} doubtful box(es) in its gaps kept"
        left_out = n - len(sure) - back_in
        cands.append(_longer_than_a_hand(Candidate(geo, c.prior * SURE_ONLY_PRIOR,
                                                   why + (f", {left_out} doubtful box(es) left out" if left_out else "")),
                                         det, readings, need))
    return tuple(by_prior(cands))


#: a hand row holds at most the hand's tiles and a kong's or two's extra tiles (``need`` + this, or +
#: the groups of four in the row when there are more), not counting flowers/seasons; a longer row is a
#: wall or a row of discards, and its region's prior loses :data:`vision.layout.MISSING_TILE` per tile
#: beyond
ROW_EXTRA = 2


def _longer_than_a_hand(c: Candidate, det: Detections, readings: TileReadings, need: int) -> Candidate:
    """``c`` with its prior lowered when its main row holds more tiles (flowers/seasons not counted)
    than a hand's row can (:data:`ROW_EXTRA`): a whole-table photo's walls are longer rows than the player's hand."""
    geo = c.geometry
    main = list(geo.row_tiles(0)) if geo.rows else []
    kongs = sum(1 for g in geo.rows[0] if len(geo.groups[g].tiles) == 4) if geo.rows else 0
    room = need + max(ROW_EXTRA, kongs)  # (a kong laid in the row adds a tile)
    if len(main) <= room:
        return c
    excess = int((bonus_probability(readings.take(main)) < 0.5).sum()) - room
    if excess <= 0:
        return c
    return replace(c, prior=c.prior * MISSING_TILE ** excess,
                   why=c.why + f", {excess} tile(s) more than a hand's row holds (a wall?)")


def tileness(det: Detections, readings: TileReadings) -> np.ndarray:
    """(N,) detector score × the classifier's top probability per box (for a flower or season, the
    probability of being one of the eight: the classifier tells bonus tiles apart least well) × the
    classifier's probability that the box shows a tile at all (``TileReadings.tile``): how much the
    models believe the box is a tile read as it is (clutter — keys, cloth, cards — scores low)."""
    top = np.maximum(readings.probs.max(1), bonus_probability(readings)) if len(readings) else np.zeros(0)
    return (np.asarray(det.scores, np.float64) * top.astype(np.float64)
            * np.asarray(readings.tile, np.float64))


#: a box whose tile probability (the classifier's ``tile_prob`` output, ``datasets.tileprobe``) is below
#: this is clutter, not a tile: it is left out before the hand is looked for (chosen on rendered scenes)
NOT_A_TILE = 0.1
#: ... unless the detector is this sure of it
DETECTOR_SURE = 0.8


def drop_not_tiles(det: Detections, readings: TileReadings) -> tuple[Detections, TileReadings, int]:
    """Leave out the boxes the classifier judges not to be tiles (``readings.tile`` < :data:`NOT_A_TILE`:
    keys, dice, cards, a cloth's pattern), unless the detector is sure of them (score ≥
    :data:`DETECTOR_SURE`) or calls them face-down. Returns the kept detections and readings (same
    order) and how many were left out."""
    if len(det) == 0:
        return det, readings, 0
    tile = np.asarray(readings.tile)
    keep = (tile >= NOT_A_TILE) | (np.asarray(det.scores) >= DETECTOR_SURE) | np.asarray(det.face_down, bool)
    if keep.all():
        return det, readings, 0
    idx = np.nonzero(keep)[0]
    return det.take(idx), readings.take(idx), int(len(keep) - len(idx))


def sure_level(t: np.ndarray, need: int) -> float:
    """The tileness a box needs to count as surely a tile: :data:`SURE_SHARE` × the median tileness of
    the ``need`` surest boxes (the hand's typical tile in this photo)."""
    if len(t) == 0:
        return 0.0
    return SURE_SHARE * float(np.median(np.sort(t)[::-1][:max(3, min(len(t), need))]))


def _evidence(t: np.ndarray, level: float, reading: Reading) -> float:
    """Σ over the boxes the reading uses of min(0, log(tileness / ``level``)): a box as sure as the
    photo's tiles costs nothing (whether a tile is the hand's is the geometry's question), a doubtful
    one — clutter read as a tile — costs the log of how much less sure it is."""
    used = used_tiles(reading)
    if not used:
        return -math.inf
    e = np.maximum(t[used], EVIDENCE_FLOOR)
    return float(np.minimum(0.0, np.log(e / max(level, EVIDENCE_FLOOR))).sum())


def _decode_candidate(cand: Candidate, det: Detections, readings: TileReadings, back: np.ndarray,
                      ruleset: Ruleset, context: Context, winning_tile, exposed, options,
                      retries: bool = True, given_bonus: frozenset[int] = frozenset(),
                      set_by_user: frozenset[int] = frozenset(), blank_kongs: bool = False,
                      dropped: frozenset[int] = frozenset(), tile_count: int | None = None) -> tuple[Layout, Reading]:
    """Layout + decoding of one candidate region, with the left-out-box retries of
    :func:`read_detections` (when ``retries``); ``given_bonus``: detections that are bonus tiles
    wherever they lie (:func:`vision.layout.assign_roles`); ``set_by_user``: detections whose tile the
    user gave (``--fix``, ``--add``), never taken for a concealed kong's backs
    (:func:`vision.layout.blank_backs`, tried when ``blank_kongs`` and the reading is not legal);
    ``dropped``: detections the user left out of the hand (``--fix POS=-``), never given a role
    (not even a flower's far from the hand); ``tile_count``: :func:`_decode_region`'s."""
    geo = cand.geometry
    lay, reading = _decode_region(geo, det, readings, back, ruleset, context, winning_tile, exposed, options,
                                  retries, given_bonus, set_by_user, dropped, tile_count)
    if reading.legal or not blank_kongs:
        return lay, reading
    # no legal reading: blank tiles (read as White dragons) among four side by side in a group may be a
    # concealed kong's pale backs (vision.layout.blank_backs; never a tile the user set; four of a longer group
    # only in a winner's hand). Only then (read_detections asks for it when no region reads legal): four
    # such tiles may as well be a White pair beside two tiles of a set, and the Whites' reading is what the
    # classifier says
    user = np.zeros(len(det), bool)
    user[list(set_by_user)] = True
    blank = blank_backs(geo, readings, back, never=user, longer=context.winner, leave=dropped)
    if not blank:
        return lay, reading
    idx = [i for i, _ in blank]
    back2 = back.copy()
    back2[idx] = True
    try:
        lay2, rd2 = _decode_region(geo, det, as_backs(readings, idx), back2, ruleset, context, winning_tile,
                                   exposed, options, retries, given_bonus, set_by_user, dropped)
    except HandError:
        return lay, reading
    named = [(i, faces) for i, faces in blank if rd2.roles[i] == "concealed-kong"]
    if not rd2.legal or not named:
        return lay, reading
    kongs: dict[tuple[int, int], list[int]] = {}  # (a kong's two faces: its blank tiles)
    for i, faces in named:
        kongs.setdefault(faces, []).append(i)
    said = [(", ".join(str(geo.order.index(i) + 1) for i in blanks), rd2.tiles[faces[0]])
            for faces, blanks in kongs.items()]
    if len(said) == 1:
        what = (f"tile(s) {said[0][0]}, blank (read as White dragons), taken as the backs of a concealed kong with "
                f"two {said[0][1]}")
    else:
        what = ("tiles " + " and ".join(f"{pos} (with two {face})" for pos, face in said)
                + f", blank (read as White dragons), taken as the backs of {len(said)} concealed kongs")
    return lay2, replace(rd2, notes=rd2.notes + (
        f"{what}: this set's backs look like its faces, and as Whites the hand is not legal; if they are Whites, "
        f"correct them with --fix POS=5z",))


def _decode_region(geo: Geometry, det: Detections, readings: TileReadings, back: np.ndarray, ruleset: Ruleset,
                   context: Context, winning_tile, exposed, options, retries: bool,
                   given_bonus: frozenset[int], set_by_user: frozenset[int] = frozenset(),
                   dropped: frozenset[int] = frozenset(), tile_count: int | None = None) -> tuple[Layout, Reading]:
    """:func:`_decode_candidate`'s layout + decoding of one region with the given readings and
    face-down flags, and the left-out-box retries (a false detection; a dead hand's tile set apart,
    :func:`_dead_hand_apart`); ``tile_count``: the hand's count when not the ruleset's
    (:func:`vision.decode.decode`'s; :func:`_search_regions`'s eight-flower retry)."""

    def run(exclude: frozenset[int], tile_count: int | None = None):
        lay = assign_roles(geo, det, readings, winner=context.winner, exclude=exclude | dropped,
                           given_bonus=given_bonus)
        rd = decode(lay, readings, ruleset, context, winning_tile=winning_tile, exposed=exposed,
                    options=options, face_down=back, tile_count=tile_count)
        return lay, rd

    lay, reading = run(frozenset(), tile_count)
    if retries and not reading.legal and (reading.problem or "").startswith("found "):  # a tile-count problem
        # never a tile the user set (--fix, --add): they said it is that tile
        # the doubtful boxes first: least tile-like by detector score × the classifier's reading
        # (a wall's side scored 0.60 by the detector but read 16 % as anything was never tried while
        # two sure 5s of the row scored under 0.6 were)
        t = tileness(det, readings)
        level = sure_level(t, ruleset.hand_size + 1)
        hand = [i for i, r in enumerate(reading.roles)
                if r != "ignored" and (det.scores[i] < DROP_SCORE or t[i] < level) and i not in set_by_user]
        best = None
        refused: HandError | None = None
        tries = sorted(hand, key=lambda k: float(t[k]))[:DROP_TRIES]
        low = min((i for i in hand if det.scores[i] < DROP_SCORE), key=lambda k: float(det.scores[k]), default=None)
        if low is not None and low not in tries:  # (the box tried before, too)
            tries.append(low)
        # a non-winner's hand found a winner's count (the count problem says so, and how to say the hand
        # won): the box left out to make it is named, with its reading and that advice, in its note (a new
        # user's winning hand said not won, read turned 180°, had a 9p of its row, read at 100 %, left out so,
        # and the note gave no hint that the hand may have won)
        winner_count = ""
        if not context.winner and "leave out --not-winner" in (reading.problem or ""):
            n = ruleset.hand_size
            winner_count = (f" to make a non-winner's {n} tiles of the {n + 1} found (a winner's count): if it is "
                            f"the hand's tile and the hand won, leave out --not-winner")
        for i in tries:
            try:
                lay2, rd2 = run(frozenset({i}))
            except HandError as e:  # this retry's reading contradicts the circumstances: try the next
                refused = refused or e
                continue
            if rd2.legal:
                value = rd2.relative * (1.0 - float(t[i]))
                if best is None or value > best[0]:
                    top = float(readings.probs[i].max())
                    k = geo.order.index(i) + 1
                    note = (f"tile {k} (detector score {float(det.scores[i]):.2f}"
                            + (f", read {readings.codes[i]} at {top:.0%}" if top < 0.5 or winner_count else "")
                            + ") left out as a false detection" + (winner_count or
                            f": look at it; if it is no tile of the hand, say so with --fix {k}=- and the reading is "
                            f"surer"))
                    # the reading is right only if the box really was false: confidence × (1 − detector
                    # score), the cautious figure (the retries are ranked by tileness, the better evidence
                    # of which box is false; a box read at 16 % is not thereby surely no tile)
                    best = (value, lay2, replace(rd2, notes=rd2.notes + (note,), false_drops=(i,),
                                                 confidence=rd2.confidence * (1.0 - float(det.scores[i])),
                                                 score=rd2.score + math.log(max(1.0 - float(det.scores[i]), 1e-6))))
        if best is not None:
            lay, reading = best[1], best[2]
        elif refused is not None:  # the only legal readings contradict what the user said
            raise refused
    if not reading.legal and not context.winner and DEAD_HAND_FLAG in context.flags:
        lay, reading = _dead_hand_apart(lay, reading, ruleset, readings, set_by_user, run)
    return lay, reading


def _hand_count(reading: Reading) -> int:
    """The tiles of ``reading``'s hand, each meld (a kong too, or a named meld not in the photo) 3."""
    return 3 * len(reading.melds) + sum(1 for r in reading.roles if r in ("concealed", "winning"))


def _dead_hand_apart(lay: Layout, reading: Reading, ruleset: Ruleset, readings: TileReadings,
                     set_by_user: frozenset[int], run) -> tuple[Layout, Reading]:
    """A non-winner's hand flagged dead (:data:`DEAD_HAND_FLAG`: any count but the hand's, rode-draak
    001:108) whose reading ``reading`` (not legal) has the hand's count with a single tile set apart
    (:attr:`vision.layout.Layout.apart`) in it: the same boxes read again without that tile
    (``run(exclude, tile_count)``, :func:`_decode_region`'s; no model is run), a tile short of the
    count. The legal reading (the likeliest, by :attr:`Reading.score`, when several tiles lie apart)
    is returned with a note naming the tile left out; else ``(lay, reading)`` unchanged. A tile the user
    set (``set_by_user``: ``--fix``, ``--add``) is never left out. The assign_roles prior of a
    non-winner's single tile apart (in the hand) is not changed: only the flag says the count is wrong."""
    count = _hand_count(reading)
    apart = [i for i in lay.apart if reading.roles[i] == "concealed" and i not in set_by_user]
    if count != ruleset.hand_size or not apart:
        return lay, reading
    best = None
    for i in apart:
        try:
            lay2, rd2 = run(frozenset({i}), count - 1)
        except HandError:
            continue
        if rd2.legal and (best is None or rd2.score > best[1].score):
            best = (lay2, rd2, i)
    if best is None:
        return lay, reading
    lay2, rd2, i = best
    order = lay2.geometry.order
    # (the layout counts the tile left out among the boxes away from the hand: it is named here instead)
    away = len(set(lay2.ignored) - {i})
    notes = tuple((f"{away} {AWAY_NOTE}" if n.endswith(AWAY_NOTE) else n) for n in rd2.notes
                  if away or not n.endswith(AWAY_NOTE))
    n = ruleset.hand_size
    note = (f"tile {order.index(i) + 1} ({readings.codes[i]}){DEAD_HAND_APART_NOTE}: the hand is flagged "
            f"{DEAD_HAND_FLAG} (more or fewer than {n} tiles, 001:108), and with that tile it has {n}; if it "
            f"is the hand's, the hand is not dead")
    return lay2, replace(rd2, notes=notes + (note,))


def _search_regions(cands, det, readings, ruleset, context, winning_tile, exposed, options,
                    retries: bool = True, given_bonus: frozenset[int] = frozenset(),
                    set_by_user: frozenset[int] = frozenset(), blank_kongs: bool = False,
                    dropped: frozenset[int] = frozenset()) -> list[_Tried]:
    """Each candidate decoded, best joint score first (legal readings before the rest).

    Joint log-score of a legal reading: log(region prior) + ``Reading.score`` (role prior × relative
    probability of the legal reading) − ``Reading.neighbours`` (the role prior the region's neighbours
    cost at best) + :func:`_evidence` (what the doubtful boxes it uses cost). A reading that is not
    legal ranks by log(region prior) + log(:data:`vision.layout.MISSING_TILE`) per tile its count is
    off the hand's (``Reading.count_off``, :func:`_count_penalty`; its problem is the one reported): of regions none of which
    reads legal, the one a tile or two from a hand is shown (what ``--add``/``--fix`` then correct),
    not a far player's row of which the roles use a few tiles. A HandError (the reading contradicts the
    circumstances) is raised when no candidate gives a legal reading that does not.
    """
    back = np.asarray(det.face_down) | np.array([p == "face-down" for p in readings.pose], bool)
    t = tileness(det, readings)
    level = sure_level(t, ruleset.hand_size + 1)
    tried: list[_Tried] = []
    refused: HandError | None = None
    def joint(cand, rd: Reading) -> float:
        # roles count against the best the region's neighbours could cost (Reading.neighbours), so a
        # region is not made less likely by the loose tiles, melds and discards that happen to lie near
        # it (ignoring a neighbour that is likely not the hand's costs nothing), only by the roles it
        # needs them to play
        return (math.log(max(cand.prior, 1e-12)) + rd.score - rd.neighbours + _evidence(t, level, rd)) \
            if rd.legal else math.log(max(cand.prior, 1e-12)) + _count_penalty(rd)

    for cand in cands:
        try:
            lay, rd = _decode_candidate(cand, det, readings, back, ruleset, context, winning_tile, exposed, options,
                                        retries, given_bonus, set_by_user, blank_kongs, dropped)
        except HandError as e:
            refused = refused or e
            continue
        tried.append(_Tried(cand, lay, rd, joint(cand, rd)))
    if context.winner and tried and not any(t.reading.legal for t in tried):
        # no region reads a winner's hand: a region a tile short with all eight flowers/seasons read is read again
        # with the hand's size, hk-tw-16's instant 八隻花 win on the eighth, the 16 tiles held (004:44-46); kept
        # when the ruleset scores it (a tester's photo of it, every tile read, was refused: "a winning hand under
        # hk-tw-16 has 17"). Only then: a reviewer's 17-tile hand with its winning tile set apart, read legal at
        # < 1 %, lost to the region that left the winning tile out, read as the instant win
        for k, tr in enumerate(tried):
            rd = tr.reading
            if not ((rd.problem or "").startswith("found ") and _hand_count(rd) == ruleset.hand_size
                    and set(BONUS_TILES) <= {x for x, r in zip(rd.tiles, rd.roles) if r == "bonus"}):
                continue
            # (nor when another region counts its playing tiles and more: the winning tile set apart; a region of
            # other tiles, discards, another player's, is no matter: a reviewer's)
            mine = {i for i, r in enumerate(rd.roles) if r not in ("ignored", "bonus")}
            if any(mine < {i for i, r in enumerate(t2.reading.roles) if r not in ("ignored", "bonus")}
                   for t2 in tried if t2 is not tr):
                continue
            try:
                lay, rd2 = _decode_candidate(tr.candidate, det, readings, back, ruleset, context, winning_tile,
                                             exposed, options, retries, given_bonus, set_by_user, blank_kongs,
                                             dropped, tile_count=ruleset.hand_size)
            except HandError:
                continue
            if rd2.legal:
                tried[k] = _Tried(tr.candidate, lay, rd2, joint(tr.candidate, rd2))
    if refused is not None and not any(t.reading.legal for t in tried):
        raise refused  # the only legal readings contradict what the user said
    tried.sort(key=lambda t: (not t.reading.legal, -t.joint))
    return tried


def _carry_left_out_melds(reading: Reading, chosen: _Tried, tried: Sequence[_Tried], order: Sequence[int],
                          ruleset: Ruleset, winner: bool) -> Reading:
    """``reading`` (of the region ``chosen``) less sure, with the note, for each meld set apart that another
    candidate region's reading of the same hand left out (:attr:`Reading.left_out_melds`) and that
    ``reading`` leaves out too, lying outside its region: a 16-tile hand under nts was read from the region
    of its row and a wall of backs, its exposed kong away from it, at 100 %, while the region holding the
    kong read the same hand and said the kong was left out. ``order``: the tiles' numbering."""
    have = {tiles for tiles, _, _ in reading.left_out_melds}
    extra = []
    for t in tried:
        if t is chosen or not t.reading.legal or t.reading.notation != reading.notation:
            continue
        for tiles, p, meld in t.reading.left_out_melds:
            if tiles not in have and all(reading.roles[i] == "ignored" for i in tiles):
                have.add(tiles)
                extra.append((tiles, p, meld))
    return with_left_out_melds(reading, extra, {i: k + 1 for k, i in enumerate(order)}, ruleset, winner)


def _count_penalty(rd: Reading) -> float:
    """log(:data:`MISSING_TILE`) per tile the reading's count is off the hand's (``Reading.count_off``).

    A region with boxes too few has paid ``MISSING_TILE`` per box already in its prior
    (:func:`vision.layout.hand_candidates`), so it pays twice for them here. Charging only the tiles
    beyond the boxes it lacks was tried (a reviewer's point): it then showed a render's region a tile
    further off, in which a kong's tile the user had set with ``--fix`` was left out, where the reading
    counted twice keeps every tile the user set in the hand. Kept as measured."""
    return rd.count_off * math.log(MISSING_TILE)


def _region_rivals(tried: list[_Tried]) -> tuple[float, tuple[RegionRival, ...]]:
    """The chosen reading's (the first legal one's) share of the joint probability of the distinct legal
    readings of all candidate regions (1.0 when only one reading is legal), and each other distinct legal
    reading, at the region where it scores best, as a :class:`~vision.decode.RegionRival` (the boxes where it
    differs from the chosen one), the likeliest first."""
    legal = [t for t in tried if t.reading.legal]
    if not legal:
        return 1.0, ()
    best: dict[str, _Tried] = {}
    for t in legal:
        if t.reading.notation not in best or t.joint > best[t.reading.notation].joint:
            best[t.reading.notation] = t
    top = legal[0].joint
    total = sum(math.exp(t.joint - top) for t in best.values())
    mine = legal[0].reading
    rivals = [_rival(mine, t, math.exp(t.joint - top) / total) for n, t in best.items() if n != mine.notation]
    return 1.0 / total, tuple(sorted(rivals, key=lambda r: -r.share))


def _rival(mine: Reading, t: _Tried, share: float) -> RegionRival:
    """The reading of ``t`` as a rival of ``mine``: the boxes (detection indices) where the two differ."""
    other = t.reading
    n = min(len(mine.roles), len(other.roles))
    a = [mine.roles[i] != "ignored" for i in range(n)]
    b = [other.roles[i] != "ignored" for i in range(n)]
    return RegionRival(
        other.notation, share, t.candidate.why,
        counted=tuple((i, other.tiles[i], other.roles[i]) for i in range(n) if b[i] and not a[i]),
        left=tuple(i for i in range(n) if a[i] and not b[i]),
        otherwise=tuple((i, other.tiles[i], other.roles[i]) for i in range(n) if a[i] and b[i]
                        and (mine.tiles[i], mine.roles[i]) != (other.tiles[i], other.roles[i])),
        winner=bool(other.hand is not None and other.hand.context.winner))


#: a tile's role as a rival reading's words say it
_ROLE_WORDS = {"winning": "the winning tile", "exposed": "in an exposed meld",
               "concealed-kong": "in a concealed kong", "bonus": "a bonus tile", "concealed": "a concealed tile"}


def _tiles_words(nums: Sequence[int]) -> tuple[str, str, str, str]:
    """(``"tile"`` / ``"tiles"``, ``"is"`` / ``"are"``, ``"it"`` / ``"them"``, ``"15=-"`` / ``"15=-,16=-"``)."""
    one = len(nums) == 1
    return "tile" if one else "tiles", "is" if one else "are", "it" if one else "them", \
        ",".join(f"{k}={DROP}" for k in nums)


def rival_words(rv: RegionRival, mine: Reading, number: Mapping[int, int],
                readings: TileReadings | None = None) -> tuple[str, str]:
    """What the rival reading ``rv`` reads otherwise than ``mine``, and the ways to settle it, in words
    (tiles numbered by ``number``: detection index → tile number): (``"counts tile 15 (2f, a bonus tile), which
    this reading leaves out"``, ``"if tile 15 is not the hand's, leave it out with --fix 15=-, and the reading no
    longer doubts it"``). Each box it counts can be left out (``--fix N=-``: the rival can no longer count it); a
    box it leaves out, left out, makes the rival the reading; a box it reads otherwise is settled by setting its
    face (``--fix N=TILE``), or by naming the winning tile or the melds. A bonus tile it counts is offered with
    ``--add`` by its face, or, where ``readings`` (the classifier's) give that face under :data:`ADD_FACE_SURE` of
    the tile's flower/season probability, as ``--add N=FACE`` with its likeliest faces (a phone tester pasting
    ``--add 46=2y`` for a 1f read 1s, 2y the likeliest flower/season of a tile the classifier took for no bonus tile,
    scored the hand's East flower as a 2y at > 99 %)."""
    differs, ways = [], []
    if rv.counted:
        nums = [number[i] for i, _, _ in rv.counted]
        tile, be, it, drops = _tiles_words(nums)
        what = ", ".join(f"{number[i]} ({c}, {_ROLE_WORDS.get(r, r)})" for i, c, r in rv.counted)
        differs.append(f"counts {tile} {what}, which this reading leaves out")
        ways.append(f"if {tile} {', '.join(map(str, nums))} {be} not the hand's, leave {it} out with --fix {drops}, "
                    f"and the reading no longer doubts {it}")
        # a flower/season it counts that this reading leaves out: added by its face, it stands in for that box
        # (:func:`replaced_boxes`; a new user added one beside the box, which was then read as another face)
        shown = {c for c, r in zip(mine.tiles, mine.roles) if r == "bonus"}
        faces = [(number[i], c) for i, c, r in rv.counted if r == "bonus" and c in BONUS_TILES and c not in shown]
        if faces and len({c for _, c in faces}) == len(faces):
            after = max(number.values(), default=0)
            box = {number[i]: i for i, _, _ in rv.counted}
            # (one tile only: the page and the batch say one face to choose; of several, each is offered by its face)
            unsure = ({n: _bonus_alternatives(readings, box[n]) for n, _ in faces}
                      if readings is not None and len(faces) == 1 else {})
            unsure = {n: alt for n, alt in unsure.items() if alt}
            adds = ",".join(f"{after + k + 1}={'FACE' if n in unsure else c}" for k, (n, c) in enumerate(faces))
            which = ", ".join(str(n) for n, _ in faces)
            said = "; ".join(f"{'tile ' + str(n) + ' ' if len(faces) > 1 else ''}FACE the face it shows: {alt}"
                             for n, alt in unsure.items())
            ways.append(f"if {'tile ' + which + ' is' if len(faces) == 1 else 'tiles ' + which + ' are'} the "
                        f"hand's, count {'it' if len(faces) == 1 else 'them'} with --add {adds}"
                        + (f" ({said})" if said else ""))
    if rv.left:
        nums = [number[i] for i in rv.left]
        tile, be, it, drops = _tiles_words(nums)
        what = ", ".join(f"{number[i]} ({mine.tiles[i]})" for i in rv.left)
        differs.append(f"leaves out {tile} {what}, which this reading counts")
        ways.append(f"if {tile} {', '.join(map(str, nums))} {be} not the hand's, that reading is right: leave {it} "
                    f"out with --fix {drops}")
    if rv.otherwise:
        differs.append("reads " + ", ".join(
            f"tile {number[i]} as {c}" + (f" ({_ROLE_WORDS.get(r, r)})" if r != mine.roles[i] else "")
            for i, c, r in rv.otherwise))
        faces = [number[i] for i, c, _ in rv.otherwise if c != mine.tiles[i]]
        if faces:
            ways.append(f"if {'it is' if len(faces) == 1 else 'they are'} misread, set "
                        + (f"its face with --fix {faces[0]}=TILE" if len(faces) == 1 else
                           f"their faces with --fix {','.join(f'{k}=TILE' for k in faces)}"))
        roles = {r for i, _, r in rv.otherwise} | {mine.roles[i] for i, _, _ in rv.otherwise}
        if "winning" in roles:
            ways.append("say which tile won with --winning-tile")
        if roles & {"exposed", "concealed-kong"}:
            ways.append("name the melds with --exposed")
    won = bool(mine.hand is not None and mine.hand.context.winner)
    if rv.winner != won:
        differs.append("reads a winner's hand" if rv.winner else "reads a non-winner's hand")
        if not rv.winner:
            ways.append("if the hand did not win, give --not-winner")
        elif "say which tile won with --winning-tile" in ways:  # (said once: a literal tester read it twice)
            ways[ways.index("say which tile won with --winning-tile")] = \
                "if the hand won, say which tile won with --winning-tile"
        else:
            ways.append("if the hand won, say which tile won with --winning-tile")
    return ", and ".join(differs) or "groups the same tiles otherwise", "; ".join(ways)


#: a flower/season a rival reading counts is offered by its face (``--add N=2f``) only from this share of the tile's
#: flower/season probability on that face; under it, as ``--add N=FACE`` with its likeliest faces
#: (:func:`rival_words`; the bar of the note on an unsure bonus tile, :func:`vision.decode._bonus_sureness`)
ADD_FACE_SURE = 0.6


def _bonus_alternatives(readings: TileReadings, i: int) -> str:
    """``""`` when detection ``i``'s likeliest flower/season takes :data:`ADD_FACE_SURE` or more of its flower/season
    probability, else its likeliest three, ``"2y 47% or 1f 33% or 4f 9%"``."""
    pb = readings.probs[i, BONUS_INDEX].astype(np.float64)
    total = float(pb.sum())
    if total <= 0:
        return ""
    share = sorted(zip(pb / total, BONUS_TILES), reverse=True)
    if share[0][0] >= ADD_FACE_SURE:
        return ""
    return " or ".join(f"{c} {q:.0%}" for q, c in share[:3])


def named_rivals(rivals: Sequence[RegionRival]) -> list[RegionRival]:
    """The rival readings (:attr:`vision.decode.Reading.region_rivals`, likeliest first) that are named as doubts
    (a note, :func:`region_rival_note`; `audit`'s UNSURE verdict, :func:`region_doubts`): the likeliest, until
    those left unnamed take under :data:`LOOSE_DOUBT` of the confidence together."""
    rest, out = sum(rv.share for rv in rivals), []
    for rv in rivals:
        if rest < LOOSE_DOUBT:
            break
        out.append(rv)
        rest -= rv.share
    return out


def region_rival_note(rv: RegionRival, mine: Reading, number: Mapping[int, int],
                      readings: TileReadings | None = None) -> str:
    """The note on another hand region's reading that took ``rv.share`` of the confidence (:func:`named_rivals`):
    its region, its hand, what it reads otherwise than ``mine`` and how to settle it (:func:`rival_words`). A
    playing card beside a thirteen-orphans hand, read 2f at 34 %, made a region of its own whose reading counted
    it as the hand's bonus tile: the reading, every tile fixed, was 66 % sure with no note saying why."""
    differs, ways = rival_words(rv, mine, number, readings)
    return (f"unsure: another hand region ({rv.why}) reads the hand as {rv.notation} ({rv.share:.0%} of the legal "
            f"readings found): it {differs}" + (f"; {ways}" if ways else ""))


def region_doubts(res: PhotoResult, but_bonus: bool = False) -> list[tuple[list[int], str, float]]:
    """The other hand regions' readings that made the reading less sure, as its notes name them
    (:func:`named_rivals`), likeliest first: (the tile numbers they read otherwise, what they read and how to
    settle it in words, their share of the legal readings). ``but_bonus``: not those that read the same hand
    but for its flowers/seasons (:func:`same_hand_but_bonus`: no doubt of a score they cannot change,
    :func:`unscored_rival_doubts`)."""
    number = {i: res.position(i) for i in res.order}
    out = []
    for rv in named_rivals(res.reading.region_rivals):
        if but_bonus and same_hand_but_bonus(rv, res.reading):
            continue
        boxes = [i for i, _, _ in rv.counted] + list(rv.left) + [i for i, _, _ in rv.otherwise]
        differs, ways = rival_words(rv, res.reading, number, res.readings)
        out.append((sorted(number[i] for i in boxes), f"another hand region's reading, {rv.notation} at "
                                                      f"{rv.share:.0%}, {differs}" + (f": {ways}" if ways else ""),
                    rv.share))
    return out


def _concealed_on_main_row(t: _Tried) -> bool:
    """Every concealed tile of the reading lies on its region's main row (the non-winner fallback of
    :func:`read_detections` reads a row of 13 tiles, never a row short of tiles filled from elsewhere), and it leaves
    out no single tile set apart on the main row (:attr:`vision.layout.Layout.apart`): nobody said the hand did not win,
    and such a tile is its winning tile (:data:`vision.layout.LOOSE_APART` is a said non-winner's doubt; a composite's
    winning 6z set apart, its hand read not legal, was read as a non-winner's 13 without it)."""
    return _concealed_on_row(t) and not _apart_left_out(t)


def _marked_win(t: _Tried, readings: TileReadings) -> int | None:
    """The detection index of the tile at either end of ``t``'s main-row hand tiles (those the reading of ``t`` gives
    the concealed hand's or a bonus tile's role, in row order) that is shown as a winning tile is shown: lying sideways
    (the box's shape, ``geometry.sideways``, or the classifier's pose, ``readings.pose``) while not all of them do, or
    pushed forward off the row's line (``geometry.displaced``), its group of the row holding a concealed tile; None
    when there is none. Only the ends: a tile pushed forward inside an uneven row is no winning tile shown (a
    reviewer's middle 5p pushed forward had pulled a discard into a winner's reading). Raises nothing."""
    geo = t.layout.geometry
    if not geo.rows:
        return None
    side = np.array(geo.sideways, bool) | np.array([p == "sideways" for p in readings.pose], bool)
    roles = t.reading.roles
    row = [i for i in geo.row_tiles(0) if roles[i] in ("concealed", "bonus")]
    if len(row) < 2 or all(side[i] for i in row):
        return None
    group_of = {i: g.tiles for g in geo.groups for i in g.tiles}
    for end in (row[-1], row[0]):
        if (side[end] or geo.displaced[end]) and any(roles[i] == "concealed" for i in group_of.get(end, ())):
            return end
    return None


def _concealed_on_row(t: _Tried) -> bool:
    """Every concealed tile of the reading of ``t`` lies on its region's main row."""
    geo = t.layout.geometry
    main = set(geo.row_tiles(0)) if geo.rows else set()
    return all(i in main for i, r in enumerate(t.reading.roles) if r == "concealed")


def _apart_left_out(t: _Tried) -> list[int]:
    """The single tiles set apart on the main row (:attr:`vision.layout.Layout.apart`, detection indices) that the
    reading of ``t`` leaves out."""
    geo = t.layout.geometry
    main = set(geo.row_tiles(0)) if geo.rows else set()
    return [k for k in t.layout.apart if k in main and t.reading.roles[k] == "ignored"]


def _as_non_winner(context: Context) -> Context:
    return replace(context, winner=False, win_by="discard", last_tile=False, first_turn=False, kong_on_kong=False)


def _shown_kongs(geo: Geometry, shown_roles: Sequence[str]) -> Iterator[list[int]]:
    """The groups of four (detection indices) that the reading shown took as a concealed kong."""
    for g in geo.groups:
        if len(g.tiles) == 4 and all(t < len(shown_roles) and shown_roles[t] == "concealed-kong" for t in g.tiles):
            yield list(g.tiles)


def _check_fixed_kongs(geo: Geometry, shown_roles: Sequence[str], readings: TileReadings,
                       numbering: Sequence[int], fixes: Mapping[int, str]) -> None:
    """Raise HandError when ``fixes`` give a concealed kong of the reading shown (a group of four with
    face-down tiles, one still face-down after them) faces of two tiles: a new user's `--fix 13=5m` on
    a back of the demo's 0x 2m 2m 0x was read `(225m0x)`, "no reading … is legal; least sure: tile 15
    (2m 98%) …". ``readings``: with the fixes applied; ``numbering``: detection indices as the fixes
    number them."""
    fixed = {numbering[p - 1] for p in fixes if 1 <= p <= len(numbering)}
    for tiles in _shown_kongs(geo, shown_roles):
        if not set(tiles) & fixed:
            continue
        faces = sorted({readings.codes[t] for t in tiles if readings.codes[t] != BACK})
        # (only a group with a face-down tile left: pale backs read as Whites, which the user says are
        # Whites, make no kong, and that is theirs to say)
        if len(faces) > 1 and any(readings.codes[t] == BACK for t in tiles):
            nums = sorted(numbering.index(t) + 1 for t in tiles if t in numbering)
            raise HandError(f"--fix: the concealed kong of tiles {nums[0]}-{nums[-1]} would hold "
                            f"{' and '.join(faces)}: a kong is four of one tile; set its faces alike, and a "
                            f"face-down tile as 0x")


def _with_added(numbering: Sequence[int], additions: Sequence[tuple[int, str]]) -> list[int | None]:
    """The numbering (detection indices) with each addition in place, as :func:`add_tiles` inserts it
    (None each): ``--fix`` numbers count the added tiles."""
    out: list[int | None] = list(numbering)
    for pos, _ in additions:
        out.insert(min(max(pos, 1), len(out) + 1) - 1, None)
    return out


def _check_added_faces(additions: Sequence[tuple[int, str]], numbering: Sequence[int], readings: TileReadings,
                       shown_roles: Sequence[str] | None, fixes: Mapping[int, str], geo: Geometry) -> None:
    """Raise HandError for a tile added (``--add``) that the set has no more of: a flower or season the
    user already gives, or the reading shown holds as a bonus tile (and no ``--fix`` changes), or a
    fifth tile of a face with the hand's tiles shown read so (the top reading of each; a concealed
    kong of ``geo`` shown, :func:`_shown_kongs`, counts four of its face): a
    tester's `--add 17=1f` on the demo, whose tile 1 is its 1f, was read legal only with tile 1 changed
    to 3f (confidence under 1 %). The numbers are those of the reading shown (before the additions)."""
    given: dict[str, int] = {}
    with_added = _with_added(numbering, additions)
    fixed = {with_added[p - 1] for p in fixes if 1 <= p <= len(with_added)}  # (--fix numbers count them)
    for pos, code in additions:
        if code not in BONUS_TILES:
            continue
        if code in given:
            raise HandError(f"--add {pos}={code}: {code} is added twice (also --add {given[code]}={code}); a set has "
                            f"one of each flower and season")
        # (a new user's `--fix 1=2f --add 2=2f` was told "the nearest legal reading needs tile 1 to be 4y")
        # (a fix numbering an added tile is not another of it: `--add 17=2f --fix 17=2f` had been told
        # "2f is also given with --fix 17=2f")
        # (a box left out of the hand as first read, set to that face: the added tile stands for it, as the note
        # "tile 17 (set to 4y by you) is not counted: … add it with --add 14=4y" advises, replaced_boxes)
        also = next((q for q, c in sorted(fixes.items())
                     if c == code and not (1 <= q <= len(with_added) and with_added[q - 1] is None)
                     and not (shown_roles is not None and 1 <= q <= len(with_added)
                              and shown_roles[with_added[q - 1]] == "ignored")), None)
        if also is not None:
            raise HandError(f"--add {pos}={code}: {code} is also given with --fix {also}={code}; a set has one of "
                            f"each flower and season")
        given[code] = pos
        if shown_roles is None:
            continue
        for k, i in enumerate(numbering):
            if (i < len(shown_roles) and shown_roles[i] == "bonus" and readings.codes[i] == code
                    and i not in fixed):
                m = with_added.index(i) + 1  # its number counting the added tiles, as --fix counts
                now = "" if m == k + 1 else f", tile {m} with the tiles you add"
                raise HandError(f"--add {pos}={code}: the photo shows its {code} already (tile {k + 1}, a bonus "
                                f"tile{now}); a set has one of each flower and season: if that tile is misread, "
                                f"correct it with --fix {m}=TILE instead")
    if shown_roles is None:
        return
    for code in sorted({c for _, c in additions if c not in BONUS_TILES and c != BACK}):
        # a fifth tile of a face (a tester's `--add 13=7s --add 10=7s` beside the demo's 777s: read "not
        # legal" with five 7s): the tiles of the hand shown read so are named, as --fix would number them
        mine = [with_added.index(i) + 1 for i in numbering if i < len(shown_roles) and shown_roles[i] != "ignored"
                and readings.codes[i] == code and i not in fixed]
        # a concealed kong shown with backs holds four of its face (a tester's `--add 2=2m` beside the
        # demo's (2222m), whose two 2m show, was read as 15 tiles, "leave out boxes")
        kong = False
        for g in _shown_kongs(geo, shown_roles):
            if {readings.codes[i] for i in g if readings.codes[i] != BACK} == {code} and not set(g) & fixed:
                mine, kong = sorted(set(mine) | {with_added.index(i) + 1 for i in g}), True
        adds = [pos for pos, c in additions if c == code]
        if len(mine) + len(adds) > 4:
            shows = (f"the hand shows {len(mine)} (tile{'s' if len(mine) > 1 else ''} {', '.join(map(str, mine))}, "
                     f"numbered with the tiles you add"
                     + (", a concealed kong's face-down tiles counted as its face" if kong else "") + ") and "
                     if mine else "")
            raise HandError(f"--add {adds[-1]}={code}: that makes {len(mine) + len(adds)} of {code}, a set has 4: "
                            f"{shows}you add {len(adds)}"
                            + ("; if one of them is misread, correct it with --fix" if mine else ""))


#: the words of the note that names a doubtful box the reading counts as a tile of the hand (the confidence
#: line points at it)
DOUBTFUL_NOTE = "is a doubtful box"
#: ... a doubtful box whose reading's top probability (the eight bonus classes' together for a flower or
#: season) is under this: the classifier does not know it either (real tiles of an unseen set are often boxed
#: at 25-40 % yet read > 99 % sure: a composite's right reading had been made 47 % sure for three such tiles)
DOUBTFUL_TOP = 0.5


#: the words of its note, for tiles and for one tile
FAR_COUNTED_NOTE = "from the hand's row, are counted as its bonus tiles"
FAR_COUNTED_ONE = "from the hand's row, is counted as its bonus tile"


def _far_counted_sureness(reading: Reading, lay: Layout, order: Sequence[int], user: frozenset[int]) -> Reading:
    """``reading`` with its confidence × p for each group of flowers/seasons it counts as the hand's bonus tiles by
    the layout's prior p alone though they lie far from the hand's row (:attr:`vision.layout.Layout.far_counted`,
    :data:`vision.layout.FAR_COUNTED`), and a note naming them with both ways out: a phone tester's neighbour's
    4f and 1f, 5.4 tile widths past the row's end, were counted at 81 %, 64 points for 16, where another tester's
    own flowers lay so too. Not charged: a group whose tiles the user all set (``user``: ``--fix`` of their faces
    says they were looked at). ``Reading.far_counted`` keeps the factors. Raises nothing."""
    num = {i: k + 1 for k, i in enumerate(order)}
    conf, notes, kept = reading.confidence, list(reading.notes), []
    for tiles, p in lay.far_counted:
        if not all(reading.roles[i] == "bonus" for i in tiles) or all(i in user for i in tiles) \
                or not all(i in num for i in tiles):
            continue
        nums = sorted(num[i] for i in tiles)
        faces = " ".join(reading.tiles[i] or "" for i in sorted(tiles, key=num.__getitem__))
        dist = min(lay.geometry.distance(i) for i in tiles)
        one = len(tiles) == 1
        drops = ",".join(f"{n}={DROP}" for n in nums)
        sets = ",".join(f"{num[i]}={reading.tiles[i]}" for i in sorted(tiles, key=num.__getitem__))
        conf *= p
        kept.append((tuple(tiles), p))
        notes.append(f"unsure: tile{'' if one else 's'} {number_spans(nums)} ({faces}), {dist:.1f} tile sizes "
                     f"{FAR_COUNTED_ONE if one else FAR_COUNTED_NOTE} ({p:.0%} that {'it is' if one else 'they are'} the hand's): if "
                     f"{'it is' if one else 'they are'} another player's, leave {'it' if one else 'them'} out with "
                     f"--fix {drops}; if the hand's, say so with --fix {sets}")
    if not kept:
        return reading
    return replace(reading, confidence=conf, notes=tuple(notes), far_counted=tuple(kept))


def _doubtful_sureness(reading: Reading, det: Detections, readings: TileReadings, need: int,
                       order: Sequence[int], user: frozenset[int], spared: frozenset[int] = frozenset()) -> Reading:
    """``reading`` (legal) with its confidence × tileness / level for each box it uses whose tileness
    (:func:`tileness`: the detector's score × the classifier's top probability × its probability of a tile at
    all) is under the level of a sure tile (:func:`sure_level` of ``need`` tiles: a doubtful box) and whose
    reading's top probability is under :data:`DOUBTFUL_TOP`, and a note naming each
    (``Reading.doubtful_boxes`` keeps the factors); ``order``: the detection indices in their numbering.
    Not charged: a box the user set or added (``user``); one another region's legal reading leaves out
    (``Reading.region_rivals``: that reading's share, its joint paying for the box, weighed its doubt) or one
    that reads the same hand without it (``spared``); a face-down box; one :func:`vision.decode._unread_sureness`
    charged already (a playing tile of the hand read under ``UNREAD_PLAYING`` a playing tile). The decoder's
    confidence is the reading's share among the legal readings met, and a doubtful box that every legal reading
    of its region needs took nothing from it: a tester's demo on a flowered cloth, its kong's red backs not
    boxed, had a patch of flowers (detector 32 %, read 6z at 13 %) make a pung of 發 that completed a wrong hand,
    called 99 % sure. Raises nothing."""
    t = tileness(det, readings)
    level = sure_level(t, need)
    if level <= 0:
        return reading
    top = np.maximum(readings.probs.max(1), bonus_probability(readings))
    play = readings.probs[:, :len(SUIT_TILES) + len(HONOUR_TILES)].sum(1)  # (the 34 playing classes)
    back = np.asarray(det.face_down, bool) | np.array([p == "face-down" for p in readings.pose], bool)
    weighed = {i for rv in reading.region_rivals for i in rv.left} | spared
    conf, notes, charged = reading.confidence, list(reading.notes), []
    for i in used_tiles(reading):
        unread = reading.roles[i] not in ("bonus", "concealed-kong") and play[i] < UNREAD_PLAYING
        if i in user or i in weighed or back[i] or unread or t[i] >= level or top[i] >= DOUBTFUL_TOP:
            continue
        f = max(float(t[i]), EVIDENCE_FLOOR) / level
        conf *= f
        charged.append((i, f))
        k = order.index(i) + 1
        notes.append(f"tile {k} {DOUBTFUL_NOTE} (the detector {float(det.scores[i]):.0%} sure of it, the classifier "
                     f"{float(readings.probs[i].max()):.0%} of {readings.codes[i]}), counted as the hand's "
                     f"{reading.tiles[i]}: check it (--fix {k}=- if it is no tile, --fix {k}=TILE if it is another)")
    if not charged:
        return reading
    return replace(reading, confidence=conf, notes=tuple(notes), doubtful_boxes=tuple(charged))


def read_detections(photo: Photo, det: Detections, readings: TileReadings, ruleset: Ruleset, context: Context,
                    *, winning_tile=None, exposed=None, fixes=None, options=None, additions=None,
                    said_won: bool = False, shown: Geometry | None = None, not_tiles: int = 0,
                    shown_roles: Sequence[str] | None = None, shown_legal: bool | None = None,
                    shown_loose: frozenset[int] | None = None, order: tuple[int, ...] | None = None,
                    renumber: bool = True, shown_rivals: Sequence[RegionRival] = ()) -> PhotoResult:
    """The model-free half of :func:`read_photo`: fixes → hand regions → layout → decode → score.

    Hand finding is part of decoding (``ARCHITECTURE.md``): :func:`region_candidates` proposes up to
    :data:`vision.layout.MAX_CANDIDATES` hand regions (each row of similar tiles with the rows near
    it, the longest row always among them), and as many again found among the sure boxes alone when
    some boxes are doubtful; each is decoded, and the reading with the
    best joint score is kept (:func:`_search_regions`: region prior × role prior × tile readings ×
    the models' belief that the boxes are tiles; a legal reading always beats one that is not). Its
    confidence is multiplied by its share among the distinct legal readings of all regions, and a
    note names the region chosen and why; and by how sure each doubtful box it rests on is, that the
    classifier does not know either (:func:`_doubtful_sureness`).

    When the tile count is wrong, each of the :data:`DROP_TRIES` least tile-like detections in the
    hand (:func:`tileness`; of those with a detector score < :data:`DROP_SCORE` or doubtful, under
    :func:`sure_level`) is in turn left out as a false detection; the most probable legal reading (its
    relative probability × (1 − the box's tileness)) is kept,
    with a note naming the tile, and its confidence × (1 − the box's detector score), so that a
    reading that rests on leaving a likely tile out is flagged for review.

    A non-winner's hand flagged :data:`DEAD_HAND_FLAG` (rode-draak 001:108: any count but 13) whose
    reading has 13 tiles with a single tile set apart among them is read again without that tile, a
    hand of 12, with a note naming it (:func:`_dead_hand_apart`).

    When nothing was said about the win (``said_won`` False, and no ``--winning-tile``, ``--win-by``,
    ``--last-tile``, ``--first-turn``, ``--kong-on-kong``), the best candidate regions are also read
    as a non-winner's hand (13 tiles; 16 in the 16-tile game) with prior :data:`NON_WINNER_PRIOR`, its
    tiles as detected (no box left out) and its concealed tiles all on the main row; when that reading wins (e.g. 13 tiles in a row, which a winner's reading
    could only complete with a loose tile nearby), a note says so.

    Tiles are numbered by the order of the region chosen without ``fixes``, ``additions`` and
    ``exposed`` (what the user saw; with ``exposed`` only when that reading contradicts what was said), so
    ``--fix`` positions stay valid whichever region the fixed readings choose; ``additions``
    (:func:`add_tiles`, given the roles ``shown_roles`` of that reading when ``shown_legal``) are
    inserted into that numbering first, and ``fixes`` count them. ``shown``:
    the geometry of that reading when the caller has it (:func:`read_photo`, the web page's first
    reading), so it is not searched for again; ``shown_loose`` the boxes that reading's layout weighed
    as loose bonus tiles (:func:`loose_bonus_boxes`; found with ``shown_roles`` when that is None), and
    ``shown_rivals`` its other hand regions' readings (:attr:`vision.decode.Reading.region_rivals`; found so
    too). A flower or season added where that reading left out one such box of its face, or one box another
    region's named reading counts as that face (the notes offer that ``--add``: :func:`replaced_boxes`), is
    drawn on that box, and the box is left out of every region, so no other reading counts the tile twice.

    Without corrections, the tiles are numbered with the rows that hold the hand first
    (:func:`_hand_first`): where the chosen region's order does not, the detections are read again with
    ``order`` (every region's tile order, detection indices) set so, and that reading is returned when it
    reads the same hand (``renumber`` False leaves that to the caller: :func:`read_photo` reads a photo many
    ways, and numbers only the reading it keeps).
    """
    t1 = time.perf_counter()
    need = ruleset.hand_size + (1 if context.winner else 0)
    cands = region_candidates(det, readings, photo.size, need)
    if order is not None:  # (every region numbers the tiles alike: the hand's rows first, _hand_first)
        cands = tuple(replace(c, geometry=replace(c.geometry, order=order)) for c in cands)
    numbering = None
    added: tuple[int, ...] = ()
    dropped: frozenset[int] = frozenset()
    replaced: dict[int, int] = {}  # added flower/season → the box left out as a loose one of its face
    given_bonus: frozenset[int] = frozenset()
    user: frozenset[int] = frozenset()
    fixed_from: dict[int, tuple[str, float]] = {}
    if fixes or additions or exposed:
        geo0 = shown
        if (geo0 is None or shown_roles is None) and len(det):
            # the reading the user saw, before the corrections (the web page's later requests come with
            # neither): its numbering, and its hand's tiles (those the corrections leave out are named).
            # It is read without --exposed too: naming the melds must not renumber the tiles, or --fix
            # numbers read off the first reading would name other tiles
            try:
                plain = read_detections(photo, det, readings, ruleset, context, winning_tile=winning_tile,
                                        options=options, said_won=said_won, not_tiles=not_tiles)
                geo0 = geo0 if geo0 is not None else plain.layout.geometry
                shown_roles, shown_legal = plain.reading.roles, plain.reading.legal
                shown_loose = loose_bonus_boxes(plain.layout)
                shown_rivals = plain.reading.region_rivals
            except HandError:  # what the user said contradicts the reading without the corrections
                pass
        if geo0 is None:
            first = _search_regions(cands, det, readings, ruleset, context, winning_tile, exposed, options) \
                if len(det) else []
            geo0 = first[0].layout.geometry if first else find_geometry(det, photo.size)
        numbering = geo0.order
        if additions:  # first the added tiles, then the fixes, numbered with the added tiles in place
            _check_added_faces(additions, numbering, readings, shown_roles, fixes or {}, geo0)
            m = len(det)
            with_added = _with_added(numbering, additions)  # (--fix numbers count the added tiles)
            left = frozenset(i for p, c in (fixes or {}).items() if c == DROP and 1 <= p <= len(with_added)
                             and (i := with_added[p - 1]) is not None)
            # (the melds of a reading that is not legal are guesses: a tile added between two groups
            # may be what joins them into the concealed hand the photo shows)
            set_faces = {i: c for p, c in (fixes or {}).items() if c != DROP and 1 <= p <= len(with_added)
                         and (i := with_added[p - 1]) is not None}
            det, readings, numbering = add_tiles(det, readings, geo0, additions, shown_roles if shown_legal else None,
                                                 left, set_faces)
            added = tuple(range(m, len(det)))
            if shown_roles is not None:
                set_to = {numbering[p - 1]: c for p, c in (fixes or {}).items()
                          if c != DROP and 1 <= p <= len(numbering) and numbering[p - 1] not in added}
                replaced = replaced_boxes(added, readings, numbering, shown_roles, shown_loose or frozenset(),
                                          left | _fixed_boxes(fixes or {}, numbering), set_to,
                                          {i: c for rv in named_rivals(shown_rivals) for i, c, r in rv.counted
                                           if r == "bonus"})
            det = _placed_on(det, [i for i in added if readings.codes[i] in BONUS_TILES], replaced, photo.size)
        as_added = {i: readings.codes[i] for i in added}
        if fixes and added:  # a fix restating an added tile's face says nothing more (`--add 17=2f --fix 17=2f`)
            fixes = {p: c for p, c in fixes.items()
                     if not (1 <= p <= len(numbering) and as_added.get(numbering[p - 1]) == c)}
        # (what the classifier read on each tile the user fixes, before the fix: audit says when a verdict rests on
        # corrections that overrule sure readings)
        fixed_from = {(i := numbering[p - 1]): (readings.codes[i], float(readings.probs[i].max()))
                      for p, c in (fixes or {}).items() if c != DROP and 1 <= p <= len(numbering)}
        readings = apply_fixes(readings, numbering, fixes or {})
        if fixes and shown_roles is not None:
            _check_fixed_kongs(geo0, shown_roles, readings, numbering, fixes)
        user = frozenset(added) | frozenset(numbering[pos - 1] for pos in (fixes or {}))
        # --fix POS=-: the user says the box is not the hand's (clutter, a loose tile, another player's):
        # it keeps its place in the rows and its number, and is given no role (_decode_region's exclude)
        dropped = frozenset(numbering[pos - 1] for pos, c in (fixes or {}).items() if c == DROP)
        if dropped and len(dropped) == len(det):
            raise HandError(f"--fix: every tile is left out of the hand (POS={DROP}): nothing is left to read")
        if set(added) & dropped:  # (an added flower left out was still scored as the hand's bonus tile)
            pos = min(numbering.index(i) + 1 for i in set(added) & dropped)
            raise HandError(f"--fix {pos}={DROP}: tile {pos} is one you added with --add; to leave it out, do not add it")
        # a fix of a tile the user adds: the face given with --add was replaced without a word (a tester's
        # `--add 17=5p --fix 17=6p` scored a 6p)
        twice = sorted(pos for pos in (fixes or {}) if numbering[pos - 1] in set(added))
        if twice:
            pos = twice[0]
            raise HandError(f"--fix {pos}={fixes[pos]}: tile {pos} is the {as_added[numbering[pos - 1]]} you add "
                            f"with --add; give its face there (--add {pos}={fixes[pos]}), not in --fix")
        if additions:
            # a flower/season the user added is the hand's bonus tile
            # wherever its box was put, and takes no part in the rows: its box beside a meld's tiles
            # would otherwise join them into the concealed hand, or its place among boxes left out of
            # the hand would leave it out with them
            given_bonus = frozenset(i for i in added if readings.codes[i] in BONUS_TILES)
            keep = [i for i in range(len(det)) if i not in given_bonus]
            cands = tuple(replace(c, geometry=lift_geometry(c.geometry, keep, len(det)))
                          for c in region_candidates(det.take(keep), readings.take(keep), photo.size, need))
        # every region numbers the tiles as the user saw them (with the added ones), notes included
        cands = tuple(replace(c, geometry=replace(c.geometry, order=tuple(numbering))) for c in cands)
    apart = dropped | frozenset(replaced.values())  # (the boxes no region gives a role)
    tried = _search_regions(cands, det, readings, ruleset, context, winning_tile, exposed, options,
                            given_bonus=given_bonus, set_by_user=user, dropped=apart)
    said_won = said_won or winning_tile is not None or any(
        (getattr(context, k) for k in ("last_tile", "first_turn", "kong_on_kong"))) or context.win_by != "discard"
    extra: list[str] = []
    apart_nw: _Tried | None = None  # (a non-winner's reading leaving out a tile set apart, named where none is legal)
    if context.winner and not said_won and tried:
        # nothing was said about a win: a region whose main row holds a non-winner's count of tiles
        # (13; 16) also competes as a non-winner's hand (prior NON_WINNER_PRIOR), its concealed tiles all
        # on that row — so 13 tiles in a row are not made a winning hand from a loose tile nearby
        top = [t.candidate for t in tried[:NON_WINNER_REGIONS]]
        nw_all = [replace(t, joint=t.joint + math.log(NON_WINNER_PRIOR))
                  for t in _search_regions(top, det, readings, ruleset, _as_non_winner(context), None, exposed, options,
                                           retries=False, given_bonus=given_bonus, set_by_user=user, dropped=apart)
                  if t.reading.legal]
        # (a tile laid sideways or forward at the row's end is the winning tile shown: a phone tester's 1s pair, its
        # second tile sideways at the row's end and the first read as a flower, was read as 13 tiles and a flower,
        # 384 for 1088, while the winner's reading, right, was named at 22 %; audit, which takes the hand as won,
        # read it right)
        nw_all = [replace(t, joint=t.joint + math.log(MARKED_WIN_NON_WINNER)) if _marked_win(t, readings) is not None
                  else t for t in nw_all]
        nw = [t for t in nw_all if _concealed_on_main_row(t)]
        # (a non-winner's reading that leaves out a tile set apart at the row's end is not taken unsaid, but where no
        # winner's reading is legal it is named: a new user's 13 tiles and a 6m pasted at the row's end were told only
        # "not a winning hand … least sure: tile 14 (2m 98%)")
        apart_nw = next((t for t in nw_all if _apart_left_out(t) and _concealed_on_row(t)), None)
        if nw:
            tried = sorted(tried + nw, key=lambda t: (not t.reading.legal, -t.joint))
            if not tried[0].reading.hand.context.winner:
                # nobody said the hand did not win: as likely a winner's photo with a tile missed
                tried[0] = replace(tried[0], reading=replace(
                    tried[0].reading, confidence=tried[0].reading.confidence * UNSAID_NON_WINNER))
                n = ruleset.hand_size
                extra.append(f"{UNSAID_NOTE} {n} tiles: read and scored as a non-winner's hand "
                             f"(a winning hand has {n + 1}); give --not-winner to say so (the photo is then read "
                             f"again: take the tile numbers for --fix/--add from that reading), or --add the tile "
                             f"the photo missed (the winning tile, or one of the row)"
                             + _missed_tile_words(tried[0], ruleset))
                extra[-1] += _fixes_after_adds(extra[-1], fixes or {})
    if tried and not any(t.reading.legal for t in tried):
        # no region reads legal: a concealed kong's pale backs may have been read as White dragons
        # (vision.layout.blank_backs); read again with them taken as backs where that makes a legal hand
        try:
            again = _search_regions(cands, det, readings, ruleset, context, winning_tile, exposed, options,
                                    given_bonus=given_bonus, set_by_user=user, blank_kongs=True, dropped=apart)
        except HandError:
            again = []
        if any(t.reading.legal for t in again):
            tried = again
    chosen = tried[0] if tried else None
    if chosen is None:  # pragma: no cover - det is never empty here (read_photo refuses that)
        raise NoTilesError(f"{photo.name}: no tiles found in the photo")
    first = _hand_first(chosen.layout.geometry, chosen.reading.roles)
    if renumber and numbering is None and order is None and first != chosen.layout.geometry.order:
        # the region's first rows hold none of the hand (a wall of backs beside a whole table's hand): read
        # again numbered with the hand's rows first, as photo --help says; kept when it reads the same hand
        again = read_detections(photo, det, readings, ruleset, context, winning_tile=winning_tile, exposed=exposed,
                                options=options, said_won=said_won, not_tiles=not_tiles, order=first)
        if _same_reading(again.reading, chosen.reading):
            return replace(again, timings={**again.timings, "layout+decode+score": time.perf_counter() - t1})
    lay, reading = chosen.layout, chosen.reading
    if reading.legal and user and numbering is not None:
        # a tile the user set is that tile: a reading that needs it otherwise (two added 2f, one read
        # 4y to make a legal hand) contradicts what the user said
        moved = [(numbering.index(i) + 1, readings.codes[i], reading.tiles[i], i in added) for i in sorted(user)
                 if reading.roles[i] != "ignored" and reading.tiles[i] != readings.codes[i]]
        if moved:  # (added tiles named as such: their numbers are not those the user typed)
            said = ", ".join(f"the {c} you added (tile {p})" if a else f"tile {p} = {c}" for p, c, _, a in moved)
            need = ", ".join(f"tile {p} to be {t}" for p, _, t, _ in moved)
            raise HandError(f"the tiles you set ({said}) make no legal hand with the others: the nearest "
                            f"legal reading needs {need}; check your --fix/--add")
    named = isinstance(exposed, str) and exposed.strip() and exposed.strip().lower() != "none"
    if not reading.legal and reading.problem and ((user and numbering is not None) or named):
        # the least sure tiles never include those the user set: name them, they may be what is wrong;
        # … and the melds named with --exposed, which the photo or a fix may contradict (a reviewer's
        # `--exposed "[777s] (3333m)"` on the demo, whose kong is of 2m, was told only of the least sure
        # tiles; `--exposed "[777s] (2222m)" --fix 10=5p`, tile 10 one of the 777s, too)
        said = ", ".join(f"{numbering.index(i) + 1}={DROP if i in dropped else readings.codes[i]}"
                         for i in sorted(user, key=numbering.index)) if user and numbering is not None else ""
        # (the other tiles all read surely: the corrections are what to check first, not the "least sure" tiles
        # named before them, a kong's 2m at 98 %, a new user's `--fix 3=5p,7=1z` on the demo had been pointed at)
        # … and the hand's count is right, or the corrections changed it (a box left out, a tile added): with
        # tiles missing from the photo (a new user's 8 of 14 tiles, `--fix 5=7p`), the count is what to check
        sure = said and (not reading.count_off or bool(dropped) or bool(added)) and all(
            float(readings.probs[i].max()) >= SURE_OTHERWISE for i, role in enumerate(reading.roles)
            if role != "ignored" and i not in user)
        parts = ([f"your corrections: {said}" + (f" — check them first: every other tile of the hand is read "
                                                   f"{SURE_OTHERWISE:.0%} sure or more" if sure else "")
                  + _fixes_after_adds(reading.problem, {numbering.index(i) + 1: DROP if i in dropped else
                                                        readings.codes[i] for i in user if i not in added})]
                 if said else []) + ([f"your melds: --exposed {echo(exposed.strip())}"] if named else [])
        problem = reading.problem
        for i in added:  # (advice to --fix a tile the user added fails: --fix refuses an added tile, a web tester's)
            n = numbering.index(i) + 1 if numbering is not None and i in numbering else None
            if n is not None:
                code = readings.codes[i]
                problem = problem.replace(f"leave it out with --fix {n}=-",
                                          f"it is a tile you added: leave out --add {n}={code}")
                problem = re.sub(rf"if it is one, set it with --fix {n}=(\w+)",
                                 rf"if it is one, add it as \1 instead: it is a tile you added (--add {n}=\1)",
                                 problem)
        reading = replace(reading, problem=f"{problem} ({'; '.join(parts)})")
    if not reading.legal and reading.problem and apart_nw is not None and apart_nw.candidate is chosen.candidate:
        # (the chosen region's own: another region's tile would be numbered otherwise once read so)
        order_ = list(lay.geometry.order)
        out = [k for k in _apart_left_out(apart_nw) if k in order_]
        if out:
            reading = replace(reading, problem=f"{reading.problem}; if the hand did not win, give --not-winner: tile "
                                               f"{order_.index(out[0]) + 1} ({readings.codes[out[0]]}), set apart at "
                                               f"the row's end, is then left out as a discard")
    notes = list(reading.notes)
    if len(cands) > 1:
        why = f"hand region: {chosen.candidate.why}"
        if reading.legal:
            others = sum(1 for t in tried if t is not chosen and t.reading.legal)
            why += (f" (the most probable legal reading of {len(cands)} candidate regions"
                    + (f"; {others} other region(s) also read legal" if others else "") + ")")
        else:
            why += f" (no candidate region of {len(cands)} gives a legal reading)"
        notes.insert(0, why)
    notes.extend(extra)
    if not_tiles:
        notes.append(f"{not_tiles} box(es) left out: the classifier judged them not to be tiles (clutter)")
    order = numbering if numbering is not None else lay.geometry.order
    for i in order:
        if glyph_changed(reading, readings, i):
            notes.append(f"tile {order.index(i) + 1} read {readings.codes[i]} by what is written on it "
                         f"({readings.glyphs[i]}); the picture alone read {readings.was[i]}")
    share, rivals = _region_rivals(tried) if reading.legal else (1.0, ())
    # (each other region's reading that takes a share of the confidence is named, with the tiles it reads
    # otherwise: a referee's reading, every tile fixed, was 66 % sure with no note saying why)
    number = {i: k + 1 for k, i in enumerate(order)}
    notes.extend(region_rival_note(rv, reading, number, readings) for rv in named_rivals(rivals))
    reading = replace(reading, notes=tuple(notes), confidence=reading.confidence * share, region_rivals=rivals)
    if reading.legal:
        reading = _carry_left_out_melds(reading, chosen, tried, order, ruleset, context.winner)
        # (a box that another region's legal reading of the same hand leaves out: the hand does not rest on it)
        same = [set(used_tiles(x.reading)) for x in tried if x is not chosen and x.reading.legal
                and x.reading.notation == reading.notation]
        spared = frozenset(i for i in used_tiles(reading) if any(i not in u for u in same))
        reading = _doubtful_sureness(reading, det, readings, ruleset.hand_size + 1, order, user, spared)
        reading = _far_counted_sureness(reading, lay, order, user)
    if numbering is not None and numbering != lay.geometry.order:
        lay = replace(lay, geometry=replace(lay.geometry, order=tuple(numbering)))
    if added:
        reading = replace(reading, notes=reading.notes + tuple(
            added_note(i, reading, readings, lay, numbering, frozenset(added) | dropped, replaced.get(i),
                       replaced.get(i) in _fixed_boxes(fixes or {}, numbering))
            for i in added))
    if added and winning_tile is None and shown_roles is not None and reading.legal:
        # the added tile set apart past a row's end became the winning tile (a tester's `--add 17=3m`,
        # the demo's missed 3m added after the last tile, read win:3m at 98 %, where the photo's 8p lay
        # set apart): said, and the reading flagged
        won = [i for i in added if reading.roles[i] == "winning"]
        before = [i for i, r in enumerate(shown_roles) if r == "winning"]
        if won:
            was = (f"in the reading before, tile {numbering.index(before[0]) + 1} ({readings.codes[before[0]]}) "
                   f"was" if before else "the reading before had none")
            reading = replace(reading, confidence=reading.confidence * ADDED_WINNER, notes=reading.notes + (
                f"tile {numbering.index(won[0]) + 1} ({readings.codes[won[0]]}{ADDED_WINNER_NOTE}, by the place "
                f"its box was given ({was}); say which tile won with --winning-tile",))
    if dropped:
        gone = sorted(numbering.index(i) + 1 for i in dropped)
        # (the layout's count of boxes away from the hand counts them too: they are named here instead)
        away = len(set(lay.ignored) - dropped)
        reading = replace(reading, notes=tuple(
            (f"{away} {AWAY_NOTE}" if n.endswith(AWAY_NOTE) else n) for n in reading.notes
            if away or not n.endswith(AWAY_NOTE)) + (
            f"tile(s) {number_spans(gone)} left out of the hand by you (--fix POS={DROP}: not the hand's tiles)",))
    if (fixes or added) and numbering is not None:
        # a tile the user set, or added, whose box the layout left out of the hand is not counted: say
        # so, and how to count it (added after the hand's last tile: number_after_hand; the numbers
        # suggested go on from one note to the next)
        after = number_after_hand(numbering, reading.roles)
        after_play = number_after_hand(numbering, reading.roles, playing=True)
        out_fixed = [(pos, code) for pos, code in sorted((fixes or {}).items())
                     if code != DROP and reading.roles[numbering[pos - 1]] == "ignored"
                     and numbering[pos - 1] not in replaced.values()]
        out_added = [(numbering.index(i) + 1, readings.codes[i]) for i in added
                     if reading.roles[i] == "ignored" and numbering.index(i) + 1 not in (fixes or {})]
        # (a face-down tile is added only to a concealed kong short of one: a tester's --fix 1=0x on the demo's
        # flower was told to "add it with --add 17=0x", which the checker refused)
        backs = [(pos, code) for pos, code in out_fixed if code == BACK]
        out_fixed = [(pos, code) for pos, code in out_fixed if code != BACK]
        # (each note's number as it reads once the notes before it are added, in their order: a playing tile goes
        # before flowers laid at the row's end, a flower after them; a reviewer's 3f then 1s had both been told 15)
        placed: list[int] = []
        for _, code in out_fixed + out_added:
            q = after if code in BONUS_TILES else after_play
            q += sum(1 for e in placed if e <= q)
            placed.append(q)
        reading = replace(reading, notes=reading.notes + tuple(
            f"tile {pos} (set to {code} by you) is not counted: a face-down tile counts only in a concealed kong "
            f"(four tiles together, with its faces)" for pos, code in backs) + tuple(
            f"tile {pos} (set to {code} by you) is not counted: its box was left out of the hand (a loose "
            f"tile, clutter or another player's); to count it, add it with --add {placed[j]}={code} in place of "
            f"--fix {pos}={code}"
            # (with the other corrections as they read once it is added: a reviewer's --fix 16=1s kept beside the
            # suggested --add 14=1s set old box 15 instead)
            + _fixes_after_adds(f"--add {placed[j]}={code}", {q: c for q, c in (fixes or {}).items()
                                                                if q not in {p for p, _ in out_fixed}})
            for j, (pos, code) in enumerate(out_fixed)) + tuple(
            f"tile {pos} ({code}, added by you) is not counted: its place lies among boxes left out of the "
            f"hand; to count it, add it in the hand's row instead (after its last tile: --add "
            f"{placed[len(out_fixed) + j]}={code})"
            for j, (pos, code) in enumerate(out_added)))
    if (fixes or additions) and shown_roles is not None and numbering is not None:
        # tiles of the hand as first read that the corrections left out (three 1m added to a full hand:
        # the legal reading drops the exposed pung) are named, and the reading flagged for review
        lost = sorted(numbering.index(i) + 1 for i, r in enumerate(shown_roles)
                      if r != "ignored" and i < len(reading.roles) and reading.roles[i] == "ignored"
                      and i not in user)
        if lost and reading.legal:  # (a reading that is not legal says what is wrong instead)
            why = "the hand reads legal only without them"
            reading = replace(reading, confidence=reading.confidence * DROPPED_BY_EDIT, notes=reading.notes + (
                f"tile(s) {number_spans(lost)}, in the hand as first read, are left out of it now: with "
                f"your corrections (--fix/--add{'/--exposed' if exposed else ''}) {why}; check the corrections",))
        elif lost and dropped:  # a box left out took its group with it (a kong's other three tiles)
            mates = {t for g in geo0.groups if set(g.tiles) & dropped for t in g.tiles}
            went = [k for k in lost if numbering[k - 1] in mates]
            if went:
                reading = replace(reading, notes=reading.notes + (
                    f"tile(s) {number_spans(went)}, in the hand as first read, went out of it with the tile(s) you "
                    f"left out (--fix POS={DROP}): without them their group reads as no meld",))
    if photo.more_frames:  # (an animated GIF had been read by its first frame without a word)
        reading = replace(reading, notes=reading.notes + (
            "the file holds more than one frame (an animated picture or a multi-page file): its first frame is "
            "read; if the hand is in another, save that frame as a photo of its own",))
    if photo.damage:
        reading = replace(reading, confidence=reading.confidence * DAMAGED_PICTURE, notes=reading.notes + (
            f"{DAMAGED_NOTE} (the JPEG decoder: {photo.damage}): part of the photo may be garbled, so tiles "
            f"may be misread or missed; check the annotated image against the table, or copy the photo again",))
        if not reading.legal and reading.problem:  # (the error line is what is read: say it there too)
            reading = replace(reading, problem=f"{reading.problem}; the photo file's picture data is damaged (the "
                                               f"JPEG decoder: {photo.damage}): copy the photo again")
    reading = _beside_bonus_note(reading, readings, det, order, user | dropped)
    reading = _cut_by_edge(reading, det, lay, order, photo.pixels.shape[1], photo.pixels.shape[0])
    dark = tile_brightness(photo.pixels, det.boxes)
    if (dark is not None and dark < DARK_TILES and float(photo.pixels.mean()) < DARK_PHOTO
            and float(photo.pixels.std()) >= BLANK_STD):  # (a photo of one colour is no picture: said elsewhere)
        reading = _noted(reading, f"{DARK_NOTE} (brightness {dark:.0f} of 255, a lit tile's face about 200): tiles "
                                  f"may be misread or missed; take the photo with more light")
    used = [i for i in used_tiles(reading) if i < len(det)] or list(range(len(det)))
    high = float(np.median(det.sizes[used, 1])) if used else None
    if high is not None and high < SMALL_TILES:
        reading = _noted(reading, f"{SMALL_NOTE} (about {high:.0f} px high as read, the photo at "
                                  f"{photo.pixels.shape[1]}×{photo.pixels.shape[0]}): tiles may be misread or "
                                  f"missed; take the photo closer, or crop it to the hand at full resolution")
    scored = score_hand(reading.hand, ruleset, options) if reading.legal else None
    return PhotoResult(photo, det, readings, lay, reading, scored,
                       {"layout+decode+score": time.perf_counter() - t1}, joint=chosen.joint, added=added,
                       not_tiles=not_tiles, user=user, dropped=dropped, replaced=tuple(sorted(replaced.items())),
                       fixed_from=tuple(sorted(fixed_from.items())))


#: a box whose edge lies within this share of the photo's shorter side from the photo's border is cut by it
EDGE_MARGIN = 0.006
#: the words that say a hand's tile is cut by the photo's edge (:func:`_cut_by_edge`)
EDGE_NOTE = "is cut by the photo's"


def _cut_by_edge(reading: Reading, det: Detections, lay: Layout, order: Sequence[int], width: int,
                 height: int) -> Reading:
    """``reading``, a tile short of its hand (not legal, "found N tiles … has N+1", or read as a non-winner's hand
    nobody said: :data:`UNSAID_NOTE`), with words for each tile of the hand at an end of a row of the hand whose box
    is cut by the photo's border that the row runs into beyond it (:data:`EDGE_MARGIN`; a row lying along the top
    edge is cut by no tile missed there): a tile missed may lie beyond it, out of the photo, and the ``--add`` that
    puts a tile there — with each face the words already offer (:func:`vision.decode.add_words`) that is the cut
    tile's or a suit neighbour's, else TILE. A phone tester's hand whose first tile lay half out of the photo was
    offered "a 2m (--add 1=2m) or a 5m (--add 3=5m)" with no word of the edge, and took the 5m: > 99 %, wrong;
    another's pung cut by the edge was offered a 9s first. ``order``: the detections by tile number; ``width``,
    ``height``: the photo's, pixels. Raises nothing."""
    problem = reading.problem or ""
    unsaid = next((k for k, n in enumerate(reading.notes) if n.startswith(UNSAID_NOTE)), None)
    short = not reading.legal and re.search(r"found (\d+) tiles in the hand.*? has (\d+)", problem)
    if not (short and int(short.group(1)) < int(short.group(2))) and unsaid is None:
        return reading
    text = problem if unsaid is None else reading.notes[unsaid]
    offered = set(re.findall(r"\b(?:a|an) ([1-9][mpsz])\b", text)) | set(re.findall(r"--add \d+=([1-9][mpsz])", text))
    m = EDGE_MARGIN * min(width, height)
    geo = lay.geometry
    boxes = det.boxes
    words = []
    for r in geo.hand_rows:
        row = [t for t in geo.row_tiles(r)
               if t < len(det) and t in order and reading.roles[t] not in ("ignored", "bonus")]
        if len(row) < 2:
            continue
        for i, nxt, first in ((row[0], row[1], True), (row[-1], row[-2], False)):
            x1, y1, x2, y2 = (float(v) for v in boxes[i])
            # (the border the row runs into, beyond its end tile: a reviewer's row along the photo's top edge had
            # both its end tiles said cut by the top edge, a tile missing "beyond" it)
            dx = (x1 + x2 - float(boxes[nxt][0]) - float(boxes[nxt][2])) / 2
            dy = (y1 + y2 - float(boxes[nxt][1]) - float(boxes[nxt][3])) / 2
            if abs(dx) >= abs(dy):
                side = "left" if dx < 0 and x1 <= m else "right" if dx > 0 and x2 >= width - m else None
            else:
                side = "top" if dy < 0 and y1 <= m else "bottom" if dy > 0 and y2 >= height - m else None
            if side is None:
                continue
            pos = order.index(i) + 1
            at = pos if first else pos + 1
            face = reading.tiles[i] or reading.raw[i]
            near = sorted(f for f in offered if face and (f == face or (
                f[1] == face[1] and f[1] in "mps" and face[0].isdigit() and abs(int(f[0]) - int(face[0])) == 1)))
            adds = " or ".join(f"--add {at}={f}" for f in near) or f"--add {at}=TILE"
            words.append(f"tile {pos} ({face}) {EDGE_NOTE} {side} edge: a tile missed may lie beyond it, out of "
                         f"the photo (look at the table, or retake the photo with the whole hand): add it there with "
                         f"{adds}")
    if not words:
        return reading
    said = "; " + "; ".join(dict.fromkeys(words))
    if unsaid is not None:
        notes = list(reading.notes)
        notes[unsaid] += said
        return replace(reading, notes=tuple(notes))
    return replace(reading, problem=problem + said)


def _beside_bonus_note(reading: Reading, readings: TileReadings, det: Detections, order: Sequence[int],
                       set_by_user: Collection[int]) -> Reading:
    """``reading`` with a note for each face-up box left out of the hand (role ``ignored``, not one the user set or
    left out) that touches a bonus tile of the hand (:func:`vision.layout._touch`): a flower or season of the hand's,
    misread as a playing tile, lies there as often as not (a phone tester's 4y upside down beside the hand's 3f, read
    1s at 58 %, and a 4y read 6z at the end of a column of seasons were left out with no word but "ignored"). The
    note names it and how to count it, ``--fix N=TILE``, which gives a left-out box its face (a literal tester's
    ``--fix 19=4y`` read the hand right). ``order``: the detections by tile number. Raises nothing."""
    from .layout import _touch

    bonus = [i for i, r in enumerate(reading.roles) if r == "bonus" and i < len(det)]
    if not bonus:
        return reading
    notes = []
    for i, role in enumerate(reading.roles):
        if (role != "ignored" or i >= len(det) or i in set_by_user or bool(det.face_down[i]) or i not in order
                or readings.codes[i] == BACK):
            continue
        near = [b for b in bonus if _touch(det.boxes[i], det.boxes[b])]
        if near:
            top = float(readings.probs[i].max())
            notes.append(f"tile {order.index(i) + 1} (read {readings.codes[i]} at {top:.0%}) lies against the hand's "
                         f"bonus tile {order.index(near[0]) + 1} but is left out: if it is a flower or season too, set "
                         f"its face with --fix {order.index(i) + 1}=TILE")
    return replace(reading, notes=reading.notes + tuple(notes)) if notes else reading


#: the non-winner's note names the tiles that would make the hand a winning one when they are at most this many
MISSED_NAMED = 3


def _fixes_after_adds(problem: str, fixes: Mapping[int, str]) -> str:
    """"; with --add 10=7s, your corrections are --fix 15=-": for each ``--add P=X[,Q=Y…]`` the text ``problem`` (a
    problem or a note) suggests, the user's ``fixes`` (number → tile or "-") as they read once those tiles are added
    in turn (a tile added at P moves each number from P on up by one, docs/photo.md), where that moves any; "" when
    none moves. A tester's audit with ``--fix 14=-`` was told "a 7s (--add 10=7s) … would make it a legal hand", and
    ``--fix 14=- --add 10=7s`` left out another tile. A suggested tile whose place is beside a tile the user leaves
    out stands for it: "--add 15=8m stands for the tile you leave out: keep tile 15 in the hand instead (no --fix
    15=-)" (a new user's --fix 15=- on a kong's back was told to add it back, and was refused both ways)."""
    out, instead = [], {}
    for adds in dict.fromkeys(re.findall(r"--add (\d+=\w+(?:,\d+=\w+)*)", problem)):
        at = [int(item.split("=")[0]) for item in adds.split(",")]
        # (a tile the user leaves out where the suggested tile would go: the suggestion is of the tile the --fix took
        # away, a new user's --fix 15=- on a kong's back was told to add it back, and both commands were refused)
        gone = sorted(n for n, v in fixes.items() if v == DROP and any(p - 1 <= n <= p for p in at))
        if gone:
            instead.setdefault(gone[0], []).append(adds)
            continue
        moved = dict(fixes)
        for p in at:  # (each in turn, numbered with the ones before it added: parse_additions)
            moved = {n + 1 if n >= p else n: v for n, v in moved.items()}
        if moved != dict(fixes):
            said = ",".join(f"{n}={v}" for n, v in sorted(moved.items()))
            out.append(f"with --add {adds}, your corrections are --fix {said}")
    out += [f"--add {' or '.join(adds)} stands for the tile you leave out: keep tile {n} in the hand instead "
            f"(no --fix {n}={DROP})" for n, adds in instead.items()]
    return "".join(f"; {w}" for w in out)


def _missed_tile_words(t: _Tried, ruleset: Ruleset) -> str:
    """For a winner's photo read as a non-winner's hand (a tile of the row missed): ": a 4m makes it a winning
    hand (the only tile that does; in suit order it lies between tiles 2 (3m) and 3 (5m): --add 3=4m)"
    (:func:`vision.decode.suit_order_place`), or the tiles that do (up to :data:`MISSED_NAMED`), each with its
    ``--add`` where it has a place (:func:`vision.decode.add_words`); "" when more
    do, or none. A tester's demo with its 4m covered was told to add "the tile the photo missed", added it after
    the last tile (N+1), and the 4m became the winning tile, the sideways 8p a concealed one and the flower a
    loose tile: 42 for 40."""
    from scoring.decompose import waits
    from scoring.tiles import sort_tiles

    from .decode import add_words, article, place_words, row_ends, winning_apart_words

    hand = t.reading.hand
    if hand is None:
        return ""
    found = sort_tiles(waits(hand, ruleset.shapes))
    if not found or len(found) > MISSED_NAMED:
        return ""
    order = t.layout.geometry.order
    row = [i for i in order if t.reading.roles[i] == "concealed"]
    codes = [t.reading.tiles[i] for i in row]
    num = {i: p + 1 for p, i in enumerate(order)}
    numbers = [num[i] for i in row]
    ends, at = row_ends(t.layout.geometry, t.reading.roles, t.reading.tiles, num, row)
    kong = _backs_missed_words(t, found, num, ruleset)
    if len(found) > 1:
        return f": {add_words(found, numbers, codes, ends, at)} would make it a winning hand" + kong
    x = found[0]
    where = winning_apart_words(x, place_words(x, numbers, codes, ends, at), at, t.layout.geometry, row)
    return f": {article(x)} makes it a winning hand (the only tile that does{where})" + kong


def _backs_missed_words(t: _Tried, found: Sequence[str], num: Mapping[int, int], ruleset: Ruleset) -> str:
    """For :func:`_missed_tile_words`: a group of its own of two concealed tiles of one face that a tile of ``found``
    completes, on the hand's main row: "; or, if tiles 9-10 (9m 9m) are a concealed kong's faces whose two face-down
    tiles were not boxed, add them with --add 9=0x,12=0x" (:func:`add_tiles` places a back beside two tiles of one
    face). Two phone testers' kongs shown back, face, face, back, their backs lost on the cloth (green on red, green
    on green felt), were offered only the pung's third tile, and that reading was then > 99 % sure, 30 points for 58.
    Only where the two with a concealed kong of their face make a winner's hand ``ruleset`` scores (a reviewer's 9m
    that completed 78m was offered the kong's adds, an illegal hand). "" when there is none."""
    from dataclasses import replace as _replace

    from scoring import Meld, make_hand

    geo = t.layout.geometry
    hand = t.reading.hand
    out = []
    for gi in geo.rows[geo.main_row] if geo.rows else ():
        g = geo.groups[gi].tiles
        if len(g) != 2 or any(t.reading.roles[i] != "concealed" for i in g) or t.reading.tiles[g[0]] != \
                t.reading.tiles[g[1]] or t.reading.tiles[g[0]] not in found or not all(i in num for i in g):
            continue
        a, b = sorted(num[i] for i in g)
        face = t.reading.tiles[g[0]]
        rest = list(hand.concealed)
        if rest.count(face) < 2:
            continue
        rest.remove(face)
        rest.remove(face)
        try:
            score_hand(make_hand(rest, hand.melds + (Meld("kong", face, concealed=True, declared=True),), hand.bonus,
                                 None, _replace(hand.context, winner=True)), ruleset, win_notes=False)
        except HandError:
            continue
        out.append(f"; or, if tiles {a}-{b} ({face} {face}) "
                   f"are a concealed kong's faces whose two face-down tiles were not boxed, add them with "
                   f"--add {a}={BACK},{b + 2}={BACK}")
    return "".join(out[:1])


def _noted(reading: Reading, words: str) -> Reading:
    """``reading`` with the note ``words``, and, when it is not legal, its problem ending with them too (the
    error line is what is read). Raises nothing."""
    reading = replace(reading, notes=reading.notes + (words,))
    if not reading.legal and reading.problem:
        reading = replace(reading, problem=f"{reading.problem}; {words}")
    return reading


def tile_brightness(pixels: np.ndarray, boxes: np.ndarray) -> float | None:
    """The median over ``boxes`` ((N, 4) xyxy pixels) of each box's mean luma (ITU-R BT.601, 0–255) in
    ``pixels`` ((H, W, 3) uint8 RGB); None when no box holds a pixel. Raises nothing."""
    h, w = pixels.shape[:2]
    means = []
    for x0, y0, x1, y1 in np.asarray(boxes, np.float64).reshape(-1, 4):
        if not np.all(np.isfinite([x0, y0, x1, y1])):
            continue
        a, b = int(max(0, np.floor(x0))), int(min(w, np.ceil(x1)))
        c, d = int(max(0, np.floor(y0))), int(min(h, np.ceil(y1)))
        if b > a and d > c:
            px = pixels[c:d, a:b].reshape(-1, 3).astype(np.float64)
            means.append(float((px @ np.array([0.299, 0.587, 0.114])).mean()))
    return float(np.median(means)) if means else None


def glyph_changed(reading: Reading, readings: TileReadings, i: int) -> bool:
    """Tile ``i`` of the hand is read as the glyph reader read it (:mod:`vision.glyphs`), not as the
    classifier alone did (``readings.was``), and the decoder kept that reading (a tile it changed to
    make a legal hand is named as changed instead)."""
    return bool(readings.was[i]) and reading.roles[i] != "ignored" and reading.tiles[i] == readings.codes[i] \
        and readings.was[i] != reading.tiles[i]


# ----------------------------------------------------------------------------- output
def to_json(res: PhotoResult, top_k: int = 3) -> dict:
    """The JSON form: reading, confidence, per-tile boxes (the photo's pixels at full resolution, in
    the frame it was read in: when ``photo.turned`` is 90/180/270 the boxes and ``photo.width`` /
    ``height`` are those of the photo turned that far clockwise, and when ``photo.straightened`` is not 0
    those of the photo straightened (turned that many degrees anticlockwise, before the quarter turn),
    as the annotated image shows it; each tile's ``file_box`` is its box carried back into the file's
    own pixels, EXIF-upright, ``photo.file_width`` × ``file_height``: :func:`loaded_frame_boxes`),
    top-k probabilities, roles and groups, and the score (``ScoredHand.to_json()``) or null; ``no_winning_tile``
    (a winner's legal hand scored with no winning tile) and ``wait_span`` (:func:`unmarked_wait_span`, or null)."""
    from scoring.hand import winning_tile_missing

    r = res.reading
    inv = 1.0 / res.photo.scale
    tops = res.readings.top(top_k)
    # (the file's own pixels, EXIF-upright; clipped to it: an added tile's box, or one in a straightened
    # photo's grey corners, may reach past its edges)
    fw, fh = file_size(res)
    in_file = np.clip(loaded_frame_boxes(res) * inv, 0.0, [fw, fh, fw, fh])
    doubtful = dict(r.doubtful_boxes)
    sure = score_confidence(res)  # (the score's, once: its doubts score the hand again under other bonus tiles)
    tiles = []
    for k, i in enumerate(res.order):
        tiles.append({
            "pos": k + 1,
            "box": [round(float(v) * inv, 1) for v in res.detections.boxes[i]],
            "file_box": [round(float(v), 1) for v in in_file[i]],
            "detector_score": round(float(res.detections.scores[i]), 4),
            "face_down": bool(res.detections.face_down[i]),
            "pose": res.readings.pose[i],
            "tile": r.tiles[i],
            "raw": r.raw[i],
            "role": r.roles[i],
            "changed": i in r.changed,
            "fixed": i in res.user,
            "added": i in res.added,
            "dropped": i in res.dropped,
            # (an added flower/season: the number of the box left out that it stands for, drawn on it)
            "in_place_of": next((res.order.index(j) + 1 for a, j in res.replaced if a == i), None),
            "glyphs": (res.readings.glyphs[i] or None) if r.tiles[i] == res.readings.codes[i] else None,
            "picture_alone": res.readings.was[i] if glyph_changed(r, res.readings, i) else None,
            # (a doubtful box counted as the hand's tile: the factor the confidence was × by, _doubtful_sureness)
            "doubtful": round(doubtful[i], 4) if i in doubtful else None,
            "top": [[c, round(p, 4)] for c, p in tops[i]],
        })
    groups = []
    for g in res.layout.groups:
        roles = {r.roles[i] for i in g.tiles}
        groups.append({"tiles": [res.position(i) for i in g.tiles], "row": g.row,
                       "main_row": g.row == res.layout.geometry.main_row,
                       "role": "/".join(sorted(roles)),
                       "options": [{"role": o.role, "prior": round(o.prior, 3),
                                    "winning": None if o.winning is None else res.position(o.winning)}
                                   for o in g.options]})
    return {
        "photo": {"name": res.photo.name, "width": res.photo.original_size[0],
                  "height": res.photo.original_size[1], "decoded_scale": res.photo.scale,
                  "turned": res.turned,
                  "straightened": round(res.straightened.degrees, 2) if res.straightened is not None else 0.0,
                  "mirrored": res.mirrored,
                  "second_detector": res.second,
                  "faces_frame": res.faces_frame,
                  "faces_from": res.faces_from if res.faces_frame else None,
                  "file_width": fw, "file_height": fh},
        "tileset": res.tileset,
        "reading": r.notation,
        "legal": r.legal,
        "problem": r.problem,
        "confidence": float(r.confidence),  # unrounded: the page shows it as format_confidence does
        "confidence_shown": format_confidence(r.confidence),
        # (the score's: the reading's without the doubts that cannot change the score, score_confidence)
        "score_confidence": sure,
        # (a legal reading whose score is under batch's needs-review line: check it, as the text line says and
        # /api/score's "unsure"; a tester read score.status "ok", the scorer's, for a reading 74 % sure)
        "unsure": bool(r.legal and sure < REVIEW_BELOW), "review_below": REVIEW_BELOW,
        # (a winner's hand scored with no winning tile marked or given, as /api/score's, and the totals it scores
        # with each of its tiles as the winning tile where they differ, as the text's "but the score rests on the
        # winning tile" says: two testers' scripts read `unsure` false for a score of 48 that is 56 with the wait
        # the photo did not mark; batch marks it needs-review)
        "no_winning_tile": bool(r.legal and r.hand is not None and winning_tile_missing(r.hand)),
        "wait_span": unmarked_wait_span(res),
        "probability": r.probability,
        "relative": r.relative,
        "changed": [{"pos": res.position(i), "from": r.raw[i], "to": r.tiles[i]} for i in r.changed],
        "melds": [{"notation": m.notation(), "tiles": [res.position(i) for i in m.positions]} for m in r.melds],
        "tiles": tiles,
        "groups": groups,
        "notes": list(r.notes),
        "timings_ms": {k: round(v * 1000, 1) for k, v in res.timings.items()},
        "score": res.scored.to_json() if res.scored is not None else None,
    }


def file_size(res: PhotoResult) -> tuple[int, int]:
    """(width, height) of the photo's file at full resolution, EXIF-upright: before it was straightened
    or turned to be read."""
    if res.straightened is not None:
        return res.straightened.original_size
    return res.photo.original_size[::-1] if res.turned in (90, 270) else res.photo.original_size


def turn_words(degrees: float) -> str:
    """``"25° clockwise"`` / ``"12° anticlockwise"`` for a turn of ``degrees`` anticlockwise (negative:
    clockwise), rounded to the degree."""
    return f"{abs(degrees):.0f}° {'anti' if degrees > 0 else ''}clockwise"


def frame_words(res: PhotoResult) -> str:
    """How the photo was read when not as stored: ``"read straightened 25° clockwise"``, ``"read turned
    90° clockwise"``, both (comma-separated), or ``""`` (the summary line and the batch's ``frame`` column)."""
    return ", ".join(([f"read straightened {turn_words(res.straightened.degrees)}"] if res.straightened else [])
                     + ([f"read turned {res.turned}° clockwise"] if res.turned else []))


def unmarked_wait_span(res: PhotoResult) -> str | None:
    """The totals (``40–44``, :attr:`scoring.engine.WinningTileEffect.span`) that ``res``'s hand scores with
    each of its tiles as the winning tile, when it is a winner's legal reading scored with none marked
    (:func:`vision.record.scored_without_winning_tile`) and a winning tile would change its total; None
    otherwise (the same total with any, a non-winner, a winning tile marked or given, not scored). What
    ``audit`` calls UNSURE and ``batch`` needs-review. Raises nothing but a ruleset's own errors."""
    from scoring.engine import wait_span
    from scoring.hand import winning_tile_missing

    # (vision.record.scored_without_winning_tile's test, with no winning tile given: that module imports this one)
    sc, r = res.scored, res.reading
    if sc is None or not r.legal or r.hand is None or not winning_tile_missing(r.hand):
        return None
    return wait_span(sc)


def summary(res: PhotoResult) -> str:
    """Text lines before the score: the reading, its confidence, changed tiles, tile list, notes."""
    r = res.reading
    n_hand = sum(1 for x in r.roles if x != "ignored")
    size = file_size(res)
    frame = frame_words(res)
    out = [f"photo: {res.photo.name} ({size[0]}×{size[1]}" + (f", {frame}" if frame else "") + "), "
           f"{len(res.detections) - len(res.added)} tiles found" + (f" (+{len(res.added)} added)" if res.added else "")
           + f", {n_hand} in the hand" + (f"; read with tile set {res.tileset!r}" if res.tileset else "")]
    out.append(f"reading: {r.notation}")
    if r.legal:
        sc = res.scored
        loose = unscored_bonus_doubts(res, sc.ruleset, sc.options) if sc is not None else 1.0
        faces = unscored_face_doubts(res, sc.ruleset, sc.options) if sc is not None else 1.0
        rivals = unscored_rival_doubts(res, sc.ruleset, sc.options) if sc is not None else 1.0
        counted = unscored_counted_doubts(res, sc.ruleset, sc.options) if sc is not None else 1.0
        # (score_confidence, from the four factors found here)
        sure = min(1.0, r.confidence * loose * faces * rivals * counted)
        # (under the review line, said so that it does not round up to it: "80% … under 80%" read as a contradiction)
        under = sure < REVIEW_BELOW
        shown = format_confidence_below(r.confidence, REVIEW_BELOW) if under else format_confidence(r.confidence)
        conf = f"confidence: {shown} that this reading is right (see docs/photo.md)"
        least = least_sure_tile(res)
        if least is not None and least[1] < 0.8:
            conf += f"; least sure tile: {res.position(least[0])} ({least_words(res, least)})"
        if r.changed:
            ch = ", ".join(f"tile {res.position(i)} {r.raw[i]}→{r.tiles[i]}" for i in r.changed)
            conf += f"; changed to make a legal hand: {ch}"
            if any(CHANGED_NOTE in n for n in r.notes):  # (the classifier was sure of them as read: a reviewer's)
                conf += " (much of the doubt: the classifier read the changed tiles surely as they were, see the note)"
        if read_as_unsaid_non_winner(r):
            # (a new user read a right reading's "50%" as "the tiles are a coin-flip")
            conf += (f"; ×{UNSAID_NON_WINNER:g} of it is whether the hand won, which the photo cannot say "
                     f"(see the note on its row)")
        if any(ADDED_WINNER_NOTE in n for n in r.notes):
            conf += (f"; ×{ADDED_WINNER:g} of it is which tile won, which the place of a tile you added cannot "
                     f"say (see the note)")
        if any(FRAME_DOUBT_ADVICE in n for n in r.notes):
            conf += "; much of the doubt is the way up its tiles were read (see the note)"
            # (a new user's `--turn 90` of a photo stored turned 270°: read upside down at 21 %, and told only
            # "--turn DEG"): the turn that sets upside-down tiles upright is named
            if _faces_turned(res) == "upside-down":
                conf += f": its tiles read upside down, try --turn {(int(res.turned or 0) + 180) % 360}"
        kongs = sum(1 for n in r.notes if ONE_BACK_KONG_NOTE in n and n.startswith("unsure:"))
        if kongs:
            what = "a concealed kong" if kongs == 1 else "concealed kongs"
            conf += f"; ×{ONE_BACK_KONG ** kongs:g} of it is {what} shown with one face-down tile (see the note)"
        if r.left_beside:
            f = math.prod(x for _, x in r.left_beside)
            k = sum(len(t) for t, _ in r.left_beside)
            conf += (f"; ×{f:.2g} of it is {'a tile' if k == 1 else 'tiles'} left out beside the concealed tiles in "
                     f"their row (see the note)")
        won_cap = WON_LEFT_OUT_NOTE.split("{what}")
        if any(n.startswith(WON_HINT_START) and all(w in n for w in won_cap) for n in r.notes):
            conf += (f"; at most {WON_LEFT_OUT:.0%}: the same boxes read as a winning hand take in what this one "
                     f"leaves out (see the note)")
        f = math.prod(x for _, x in r.alike)
        if f < 0.995:
            conf += (f"; ×{f:.2g} of it is tiles of one face read alike (tiles of one face are misread together; "
                     f"see the note)")
        if any(AMONG_CONCEALED_NOTE in n or AMONG_CONCEALED_ONE in n for n in r.notes):
            conf += (f"; ×{AMONG_CONCEALED:g} of it is melds set apart among the concealed tiles of their row (see the "
                     f"note)")
        if any(OTHER_ROW_NOTE in n for n in r.notes):
            conf += f"; ×{OTHER_ROW:g} of it is a row off the concealed row read as concealed sets (see the note)"
        if r.boxed_twice:
            k = len(r.boxed_twice)
            conf += (f"; ×{BOXED_TWICE ** k:g} of it is {'two boxes' if k == 1 else 'boxes'} of one face overlapping "
                     f"like one tile laid sideways boxed twice (see the note)")
        if any(BEYOND_NAMED_NOTE in n for n in r.notes):
            conf += (f"; ×{BEYOND_NAMED:g} of it is sets beyond a named meld, at the end of its row, read as concealed "
                     f"(see the note)")
        claimed = len(r.claimed_runs)
        if claimed:
            conf += (f"; ×{CLAIMED_IN_ROW ** claimed:g} of it is a run of tiles holding a sideways one read as "
                     f"concealed (see the note)")
        if r.far_counted and counted == 1.0:  # (else said with the doubts that cannot change the score, below)
            f = math.prod(x for _, x in r.far_counted)
            conf += (f"; ×{f:.2g} of it is flowers/seasons far from the row counted as the hand's (see the note)")
        if r.stacked:
            pungs = "an exposed pung" if len(r.stacked) == 1 else "exposed pungs"
            conf += (f"; ×{STACKED_KONG ** len(r.stacked):g} of it is {pungs} with a tile lying over the others, as a "
                     f"kong's fourth tile laid on top does (see the note)")
        broken = sum(1 for n in r.notes if BROKEN_GROUP_NOTE in n and n.startswith("unsure:"))
        if broken:
            conf += (f"; ×{BROKEN_GROUP ** broken:g} of it is tiles set apart like a meld taken as concealed tiles "
                     f"of other sets (see the note)")
        if r.doubtful_boxes:
            f = math.prod(x for _, x in r.doubtful_boxes)
            conf += (f"; ×{f:.2g} of it is {'a doubtful box' if len(r.doubtful_boxes) == 1 else 'doubtful boxes'} "
                     f"counted as a tile (see the note)")
        if r.false_drops and len(res.detections) > max(r.false_drops):
            # (a new user's tight crop of the demo: 58 % for a box on the empty cloth left out, the line named nothing
            # and the note no way out)
            f = math.prod(1.0 - float(res.detections.scores[i]) for i in r.false_drops)
            nums = ", ".join(str(res.position(i)) for i in r.false_drops)
            conf += (f"; ×{f:.2g} of it is tile {nums} left out as a false detection, which it may not be (see the "
                     f"note)")
        if any(n.startswith(DAMAGED_NOTE) for n in r.notes):
            conf += f"; ×{DAMAGED_PICTURE:g} of it is the photo file's damaged picture data (see the note)"
        if any(FORCED_WIN_NOTE in n for n in r.notes):
            conf += "; most of the doubt is the meld set apart that your --winning-tile makes concealed (see the note)"
        # (a referee's photo under nts: 77 % for two loose flowers worth nothing; said where it reads otherwise)
        if loose * faces * rivals * counted > 1.0 and format_confidence(sure) != format_confidence(r.confidence):
            what = " and ".join(w for f, w in ((loose, "flowers/seasons left out"),
                                                 (faces, "which flowers/seasons its bonus tiles are"),
                                                 (rivals, "the flowers/seasons another hand region reads otherwise"),
                                                 (counted, "flowers/seasons far from the row counted as the hand's"))
                                if f > 1.0)
            # (the notes name the loose tiles, a bonus tile under 60 % with its likeliest faces, the other regions)
            noted = loose > 1.0 or rivals > 1.0 or counted > 1.0 or any(
                n.startswith("unsure which bonus tile") for n in r.notes)
            # (two digits, or three where two say "×1": a tester's 99 % → >99 % had "×1 of it is …")
            f = 1 / (loose * faces * rivals * counted)
            share = next((w for w in (f"{f:.2g}", f"{f:.3g}") if w != "1"), "0.999")
            conf += (f"; ×{share} of it is {what}, which cannot change the score under "
                     f"{sc.ruleset}: the score is "
                     f"{format_confidence_below(sure, REVIEW_BELOW)} sure" + (" (see the notes)" if noted else ""))
        wait = unmarked_wait_span(res)
        if wait:  # (a new user read ">99%" as the score's, which rested on a winning tile the photo did not mark)
            conf += (f"; but the score rests on the winning tile, which the photo does not mark: with one it "
                     f"scores {wait} (give it with --winning-tile)")
        if under:
            # (a tester's 16-tile photo at 74 %, flagged unsure in --json's status and the history, was printed
            # with no word that it is under the line where batch marks a reading needs-review)
            conf += f"; under {REVIEW_BELOW:.0%}: check it against the photo before using the score"
        out.append(conf)
    tiles = []
    for k, i in enumerate(res.order):
        if r.roles[i] == "ignored":
            continue
        mark = {"winning": "*", "exposed": "[]", "concealed-kong": "()", "bonus": "+"}.get(r.roles[i], "")
        tiles.append(f"{k + 1}:{r.tiles[i]}{mark}" + ("!" if i in res.user else "")
                     + ("~" if i in r.changed and i not in res.user else ""))
    # ("! set by you" only when a tile shown carries it: a new user's --fix 1=-, tile 1 left out, had it alone)
    shown = any(r.roles[i] != "ignored" for i in res.user)
    # ("~": a tile the reader changed to make a legal hand, which --annotate draws magenta: the tiles line
    # showed 5:6p for a 7p read at >99 %, the change named only on the confidence line and in a note)
    changed = any(r.roles[i] != "ignored" and i not in res.user for i in r.changed)
    out.append("tiles: " + " ".join(tiles) + "   (* winning, [] exposed, () concealed kong, + bonus"
               + ("; ! set by you" if shown else "") + ("; ~ changed by the reader" if changed else "")
               + "; fix with --fix POS=TILE)")
    left = [k + 1 for k, i in enumerate(res.order) if r.roles[i] == "ignored"]
    if left:  # numbered too (--fix, --add count them): say so, so that N+1 means what the user thinks
        out.append(f"not in the hand: tile(s) {number_spans(left)} (boxes left out: clutter, loose tiles, "
                   f"other players' tiles; their numbers count for --fix and --add; "
                   + ("--annotate draws them grey)" if len(left) <= IGNORED_NUMBERS else
                      "too many to number in --annotate: --json lists every box)"))
    for note in r.notes:
        out.append(f"note: {note}")
    return "\n".join(out)
