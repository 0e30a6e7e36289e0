"""Annotated image: boxes, tile names, groups by role, changed and fixed tiles — drawing only, no inference.

:func:`annotate` takes the values the pipeline produced (image, detections, geometry order, reading)
and returns a new RGB image of the same size (the web page lays its tap targets over it by the box
coordinates; a hand small in its photo is drawn enlarged, the image showing the part of the photo that
:func:`hand_view` picks, and the page maps the boxes into it; :func:`draw_reading` draws a result so);
:func:`save` writes it (JPEG/PNG by extension). The image is the photo at the scale it was read at (a long
side of 1800–3600 px for a larger photo: a 4032×3024 JPEG is drawn at 2016×1512);
:func:`image_info` / :func:`describe` say its size and scale (``photo --annotate``'s line and JSON). Labels are ASCII (tile codes such as
``5p``), so no CJK font is needed.

Colours by role: concealed green, winning red, exposed melds blue, concealed kongs purple, bonus tiles
orange, ignored tiles thin grey (numbered, when few); a tile the decoder changed gets a magenta frame and ``was X``; a tile
the user set (``--fix``, a tap on the page) a cyan frame and ``fixed``. The legend lists the colours
the image uses.

Sizes follow the photo: text is a fixed share of the tiles' height and of the photo's long side (never
below :data:`MIN_TEXT` of it), so a 6000-pixel photo gets labels as readable as a 1280-pixel one. Each
tile's label (its tile code, with its number ``#k`` for ``--fix``) is placed by :func:`_place` right
above the tile, or right below it when that spot is taken; where neither is free (tiles stacked in
columns, a crowd) it becomes a tag inside the tile's own box (:func:`_inside`: the number and the code,
smaller), so that every number stays on or next to its own box and no label covers a neighbouring
tile or another label. (Labels used to be stacked higher with a leader line: in a crowd they went
200–400 px away along lines that crossed, and which box was #16 could not be told.) Only a meld's
notation is still stacked away from its group, with a leader line, when no spot next to it is free.
"""
from __future__ import annotations

import errno
import os
import tempfile

from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterable, Mapping, Sequence

import cv2
import numpy as np

from .decode import Reading, format_confidence
from .detect import Detections
from .errors import ImageError

#: role → RGB colour
COLOURS: dict[str, tuple[int, int, int]] = {
    "concealed": (40, 180, 60),
    "winning": (230, 40, 40),
    "exposed": (40, 110, 235),
    "concealed-kong": (150, 60, 200),
    "bonus": (245, 150, 20),
    "ignored": (150, 150, 150),
}
CHANGED = (235, 0, 200)
FIXED = (0, 185, 215)
ZOOMED = (90, 90, 90)  # the legend's "enlarged 4.2x around the hand" (:func:`hand_view`)
OUTSIDE = (60, 60, 60)  # an enlarged view's part beyond the photo's edge (:meth:`View.crop`)
INK = (30, 30, 30)
#: legend entries: (text, colour)
LEGEND = (("concealed", COLOURS["concealed"]), ("winning", COLOURS["winning"]), ("exposed", COLOURS["exposed"]),
          ("concealed kong", COLOURS["concealed-kong"]), ("bonus", COLOURS["bonus"]),
          ("changed by the reader", CHANGED), ("set by you", FIXED), ("not in the hand", COLOURS["ignored"]))
#: ignored boxes get their number (small, grey) when there are at most this many (a wall's dozens would
#: bury the hand's labels); their numbers count for --fix and --add
IGNORED_NUMBERS = 12
FONT = cv2.FONT_HERSHEY_SIMPLEX
#: tile-code text height: as large as a two-character code that fits the median tile's width allows
#: (TILE_TEXT_W of the width), at most TILE_TEXT of its height, and at least MIN_TEXT of the long side
TILE_TEXT_W, TILE_TEXT, MIN_TEXT = 0.48, 0.4, 0.016
#: the tile number's text height: a share of the code's, and its least share of the long side
NUMBER_TEXT, MIN_NUMBER = 0.6, 0.012
#: title and legend text heights as shares of the photo's long side
TITLE_TEXT, LEGEND_TEXT = 0.026, 0.019
#: label sizes tried, from the largest a tile allows down to half of it (the first that fits is used)
SHRINK_STEPS = 5
#: share of a label's area that may lie on other tiles' boxes (where touching tiles' boxes overlap)
TOLERATED = 0.12
#: a tile label with no free spot next to its box becomes a tag inside the box (:func:`_inside`), at
#: most this share of the box's height; a layout's badness counts INSIDE_BADNESS for each such tag
INSIDE_SHARE, INSIDE_BADNESS = 0.7, 3.0
_CAP = cv2.getTextSize("0", FONT, 1.0, 1)[0][1]  # cap height of the font at scale 1 (pixels)

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1


def fixed_detections(order: Sequence[int], fixes: Mapping[int, str] | Iterable[int] | None) -> frozenset[int]:
    """Detection indices of the tiles the user set: ``fixes`` are 1-based tile numbers (the keys of
    :func:`vision.pipeline.parse_fixes`, as ``--fix`` gives them) in display ``order``; numbers outside
    1..N are left out."""
    if not fixes:
        return frozenset()
    return frozenset(order[p - 1] for p in fixes if 1 <= p <= len(order))


@dataclass
class _Text:
    """Lines of text drawn in one white box: (text, colour, height in pixels) each."""

    lines: list[tuple[str, tuple[int, int, int], float]]

    def metrics(self) -> tuple[float, float, list[tuple[float, int, int]]]:
        """(width, height, per line (scale, thickness, line height)) of the box, padding included."""
        out, w, h = [], 0.0, 0.0
        for text, _, px in self.lines:
            scale = px / _CAP
            thick = max(1, int(round(px / 11)))
            (tw, th), base = cv2.getTextSize(text, FONT, scale, thick)
            out.append((scale, thick, th + base))
            w = max(w, tw)
            h += th + base
        pad = max(2.0, 0.12 * min(px for _, _, px in self.lines))
        return w + 2 * pad, h + 2 * pad, out

    def draw(self, img: np.ndarray, x: float, y: float) -> Rect:
        w, h, per = self.metrics()
        x0, y0 = int(round(x)), int(round(y))
        cv2.rectangle(img, (x0, y0), (int(round(x + w)), int(round(y + h))), (255, 255, 255), -1)
        yy = y + max(2.0, 0.12 * min(px for _, _, px in self.lines))
        for (text, col, _), (scale, thick, lh) in zip(self.lines, per):
            (tw, th), base = cv2.getTextSize(text, FONT, scale, thick)
            cv2.putText(img, text, (int(round(x + (w - tw) / 2)), int(round(yy + th))), FONT, scale, col, thick,
                        cv2.LINE_AA)
            yy += lh
        return (x, y, x + w, y + h)


def _encloses(outer: Rect, inner: Rect, tol: float = 2.0) -> bool:
    """True when box ``outer`` holds box ``inner`` whole (within ``tol`` pixels): no tile's face, but a box around
    tiles (a photo pasted in a photo boxed whole, a tray), which a label beside ``inner`` cannot keep off. (A tester's
    box #17 round a whole hand had sent every label inside its tile, covering the faces.)"""
    return (outer[0] <= inner[0] + tol and outer[1] <= inner[1] + tol and outer[2] >= inner[2] - tol
            and outer[3] >= inner[3] - tol)


def _overlap(a: Rect, b: Rect) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _place(size: tuple[float, float], anchor: Rect, obstacles: Sequence[Rect], taken: Sequence[Rect],
           image: tuple[int, int], gap: float, prefer: str = "above", levels: int = 6) -> tuple[Rect, int]:
    """Where a label of ``size`` (w, h) goes for the box ``anchor``: centred on it, the nearest of
    ``levels`` rows above and below it (the ``prefer`` side first at each distance) that covers no
    ``taken`` label and at most :data:`TOLERATED` of its area of ``obstacles`` (the other tiles' boxes,
    which overlap a little where tiles touch); failing that, the spot with the least covered area
    (labels counted double, farther rows a little more). Returns (rect, level): level 0 touches the
    box (no leader line is needed)."""
    w, h = size
    H, W = image
    cx = (anchor[0] + anchor[2]) / 2
    x = min(max(cx - w / 2, 0.0), max(0.0, W - w))
    spots: list[tuple[Rect, int]] = []
    for k in range(levels):  # nearest rows first, the preferred side first in each
        for side in ((prefer, "below" if prefer == "above" else "above")):
            if side == "above":
                y = anchor[1] - gap - h - k * (h + gap)
            else:
                y = anchor[3] + gap + k * (h + gap)
            if y < 0 or y + h > H:
                continue
            spots.append(((x, y, x + w, y + h), k))
    if not spots:  # no room above or below: inside the top of the box
        y = min(max(anchor[1], 0.0), max(0.0, H - h))
        return (x, y, x + w, y + h), 0
    best, best_cost = spots[0], float("inf")
    for rect, k in spots:
        on_tiles = sum(_overlap(rect, o) for o in obstacles)
        on_labels = sum(_overlap(rect, t) for t in taken)
        if on_labels == 0 and on_tiles <= TOLERATED * w * h:
            return rect, k
        cost = on_tiles + 2 * on_labels + 0.05 * k * w * h
        if cost < best_cost:
            best, best_cost = (rect, k), cost
    return best


def _inside(tags: Sequence[_Text], box: Rect, obstacles: Sequence[Rect], taken: Sequence[Rect],
            image: tuple[int, int], inset: float) -> tuple[Rect, _Text, float]:
    """A tag inside the tile's own ``box`` (for a tile whose label finds no free spot next to it):
    the first of ``tags`` whose size fits within the box (less ``inset`` on each side, and at most
    :data:`INSIDE_SHARE` of its height, so that some of the face stays in sight), else the last one,
    centred on the box; placed at the top, middle or bottom of the box, whichever covers the least of
    ``obstacles`` (other tiles' boxes) and ``taken`` (labels, counted double). Returns (rect, tag, cost
    beyond what is tolerated: 0 when the tag covers no label and at most :data:`TOLERATED` of its area
    of other tiles, or no more of them than of its own box)."""
    H, W = image
    bw, bh = box[2] - box[0] - 2 * inset, box[3] - box[1] - 2 * inset
    tag = tags[-1]
    for t in tags:
        w, h, _ = t.metrics()
        if w <= bw and h <= INSIDE_SHARE * bh:
            tag = t
            break
    w, h, _ = tag.metrics()
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    x = min(max(cx - w / 2, 0.0), max(0.0, W - w))
    ys = [box[1] + inset, cy - h / 2, box[3] - inset - h] if h <= bh else [cy - h / 2]
    best: tuple[float, Rect] | None = None
    for y in ys:
        y = min(max(y, 0.0), max(0.0, H - h))
        rect = (x, y, x + w, y + h)
        on_tiles = sum(_overlap(rect, o) for o in obstacles)
        on_labels = sum(_overlap(rect, t) for t in taken)
        cost = on_tiles + 2 * on_labels
        if best is None or cost < best[0]:
            best = (cost, rect)
    cost, rect = best
    own = _overlap(rect, box)
    on_tiles = sum(_overlap(rect, o) for o in obstacles)
    on_labels = sum(_overlap(rect, t) for t in taken)
    worst = max((_overlap(rect, o) for o in obstacles), default=0.0)
    ok = on_labels == 0 and (on_tiles <= TOLERATED * w * h or worst < own)
    return rect, tag, 0.0 if ok else cost


#: a hand that is small in its photo (taken from across a table, a whole-table shot) is drawn enlarged
#: (:func:`hand_view`): its region grown by ZOOM_MARGIN tiles' heights each way, enlarged until its median tile
#: is ZOOM_TILE of the image's long side or the region fills the image, and only when that enlarges it at least
#: ZOOM_FROM times (a hand filling a phone photo is drawn whole, as read)
ZOOM_TILE, ZOOM_MARGIN, ZOOM_FROM = 0.09, 2.5, 2.0
#: ... and at most ZOOM_MAX times (tiles of a few pixels enlarged further show only blur)
ZOOM_MAX = 8.0


@dataclass(frozen=True)
class View:
    """The part of the photo an annotated image shows: ``x0, y0, x1, y1`` in the pixels the photo was read
    at (:class:`vision.io.Photo` ``pixels``), drawn ``factor`` times enlarged (output pixels per pixel read),
    so that the image keeps the photo's size as read. Made by :func:`hand_view`."""

    x0: float
    y0: float
    x1: float
    y1: float
    factor: float

    def in_photo(self, scale: float) -> list[float]:
        """``[x0, y0, x1, y1]`` in the photo's own pixels (``scale``: :class:`vision.io.Photo` ``scale``, pixels read
        per pixel of the photo), to 0.1 px."""
        return [round(v / float(scale), 1) for v in (self.x0, self.y0, self.x1, self.y1)]

    def boxes(self, boxes: np.ndarray) -> np.ndarray:
        """(N, 4) float32 xyxy boxes in the pixels read → the same in the annotated image's pixels."""
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        return (b - np.array([self.x0, self.y0, self.x0, self.y0], np.float32)) * np.float32(self.factor)

    def crop(self, image: np.ndarray, full: np.ndarray | None = None) -> np.ndarray:
        """The view of ``image`` (H, W, 3) uint8, enlarged back to (H, W, 3) (bicubic, OpenCV); taken from ``full``
        when given: the same photo at a higher resolution (H', W', 3), its pixels sharper than ``image``'s enlarged
        (:func:`full_pixels`)."""
        H, W = image.shape[:2]
        src, k = (image, 1.0) if full is None else (full, full.shape[1] / W)
        vx0, vy0, f = self.x0 * k, self.y0 * k, self.factor / k
        Hs, Ws = src.shape[:2]
        x0, y0 = max(0, int(np.floor(vx0))), max(0, int(np.floor(vy0)))
        x1, y1 = min(Ws, int(np.ceil(self.x1 * k)) + 1), min(Hs, int(np.ceil(self.y1 * k)) + 1)
        part = np.ascontiguousarray(src[y0:y1, x0:x1])
        gx = gy = f  # (output pixels per pixel of ``part``)
        if f < 1 and part.size:  # (a photo read at 1/4 enlarged under 4x from its own pixels: shrunk by area first;
            # warpAffine has no area filter, and its bilinear one made moiré of fine stripes, a reviewer found)
            h, w = part.shape[:2]
            nw, nh = max(1, round(w * f)), max(1, round(h * f))
            part = cv2.resize(part, (nw, nh), interpolation=cv2.INTER_AREA)
            gx, gy = f * w / nw, f * h / nh
        # (whole pixels cropped, then the sub-pixel rest as a shift; OpenCV maps pixel centres, the boxes pixel
        # edges: a pixel of ``part`` whose edge is at p lands at (x0' - x0) · f + p · g, so its centre's shift is
        # (x0' - x0) · f + 0.5 · g - 0.5, and the boxes land where the tiles are. A view past the photo's top edge
        # (a hand at the top, kept clear of the title) shows OUTSIDE there)
        m = np.float32([[gx, 0, (x0 - vx0) * f + 0.5 * gx - 0.5], [0, gy, (y0 - vy0) * f + 0.5 * gy - 0.5]])
        return cv2.warpAffine(part, m, (W, H), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=OUTSIDE)


#: :func:`full_pixels` takes the file's pixels only when, brought to the size read, they differ from the pixels read
#: by less than this (mean absolute difference, 0..255): the same photo, not one saved over it since
SAME_PHOTO = 8.0


def full_pixels(source, photo, turned: int = 0, straightened=None) -> np.ndarray | None:
    """The photo ``source`` (a path, its bytes, or a :class:`vision.io.Photo` loaded at full size) at full resolution,
    EXIF-upright and turned ``turned``° clockwise as it was read, (H, W, 3) uint8 RGB, for an enlarged view
    (:meth:`View.crop`): a 12 MP photo is read at half size, and a view enlarged 4× from those pixels blurs what the
    photo shows sharp (a tester's 三萬 in a hand at a tenth of the photo's width was a smudge). ``photo``: the
    :class:`vision.io.Photo` read (its ``pixels`` in the frame read). None when it was read at full size, read
    straightened (its frame is not the file's), is no file (standard input, a path that is not a file), cannot be
    read again (:class:`vision.errors.ImageError`), or is not the photo read (a file saved over since: brought to the size
    read, it differs by :data:`SAME_PHOTO` or more). Source: ``vision.io.load_photo``."""
    from .io import Photo, load_photo

    if photo.scale >= 1 or straightened is not None or turned not in (0, 90, 180, 270):
        return None
    try:
        if isinstance(source, Photo):
            full = source
        elif isinstance(source, (bytes, bytearray)) or (isinstance(source, (str, Path)) and Path(source).is_file()):
            full = load_photo(bytes(source) if isinstance(source, bytearray) else source)
        else:
            return None
    except (ImageError, OSError):
        return None
    px = full.pixels
    if turned:  # (as vision.pipeline.read_photo turns a photo: clockwise)
        px = np.ascontiguousarray(np.rot90(px, {90: 3, 180: 2, 270: 1}[turned]))
    H, W = photo.pixels.shape[:2]
    if px.shape[0] <= H or px.shape[1] <= W or abs(px.shape[1] / W - px.shape[0] / H) > 0.02 * px.shape[1] / W:
        return None
    small = cv2.resize(px, (W, H), interpolation=cv2.INTER_AREA)
    if float(np.abs(small.astype(np.int16) - photo.pixels.astype(np.int16)).mean()) >= SAME_PHOTO:
        return None
    return px


def hand_view(shape: tuple[int, ...], det: Detections, reading: Reading, also: Collection[int] = ()) -> View | None:
    """The enlarged view of a hand that is small in its photo, or None to draw the photo whole.

    ``shape``: the (H, W, …) of the pixels read; ``det``: their boxes; ``reading``: its ``roles`` (the boxes not
    ``ignored`` are the hand, bonus tiles included; a box past the end of ``roles`` is ignored, as
    :func:`annotate` draws it). The view holds the hand's boxes, the boxes left out of it when :func:`annotate`
    numbers them (at most :data:`IGNORED_NUMBERS`: the notes and ``--fix`` name them) and the boxes of ``also``
    (detection indices: those the user left out or added); it is their bounding box grown by :data:`ZOOM_MARGIN`
    median hand-tile heights each way, widened to the photo's aspect ratio and moved inside it (or past its top
    edge, so that a hand at the top is not under the title), enlarged until the median tile is :data:`ZOOM_TILE`
    of the long side or the view fills the image (at most :data:`ZOOM_MAX` times); None when that is less than
    :data:`ZOOM_FROM` times, or fewer than 3 boxes are the hand's. (A user's 12 MP photo with the hand a fifth of
    its width had its labels cover the tiles: drawn at the scale read, the tiles were 30 px high and a label's
    least height 32 px.) Raises nothing."""
    H, W = int(shape[0]), int(shape[1])
    n = len(det)
    roles = [reading.roles[i] if i < len(reading.roles) else "ignored" for i in range(n)]
    hand = [i for i in range(n) if roles[i] != "ignored"]
    if len(hand) < 3 or H < 2 or W < 2:
        return None
    tile_h = float(np.median(det.boxes[hand, 3] - det.boxes[hand, 1]))
    if tile_h <= 0:
        return None
    left = [i for i in range(n) if roles[i] == "ignored"]
    # (a tester's loose 2f and 3y, 5 and 8 tiles right of the hand: a note offered --add 17=2f,18=3y, and the
    # enlarged image showed neither; a reading not legal had been given every box, far clutter too)
    shown = hand + (left if len(left) <= IGNORED_NUMBERS else []) + [i for i in also if 0 <= i < n]
    b = det.boxes[sorted(set(shown))]
    m = ZOOM_MARGIN * tile_h
    rx0, ry0 = float(b[:, 0].min()) - m, float(b[:, 1].min()) - m
    rx1, ry1 = float(b[:, 2].max()) + m, float(b[:, 3].max()) + m
    k = min(ZOOM_TILE * max(H, W) / tile_h, W / max(1.0, rx1 - rx0), H / max(1.0, ry1 - ry0), ZOOM_MAX)
    if k < ZOOM_FROM:
        return None
    vw, vh = W / k, H / k
    cx, cy = (rx0 + rx1) / 2, (ry0 + ry1) / 2
    x0 = min(max(0.0, cx - vw / 2), W - vw)
    # (past the top edge, by the margin above the hand at most: a tester's hand at the top had its labels under the
    # title; a reviewer's one row at the edge, centred, had been 45 % dark grey)
    y0 = min(max(cy - vh / 2, ry0), H - vh)
    return View(x0, y0, x0 + vw, y0 + vh, k)


def draw_reading(res, title: str | None, fixed: Collection[int] = (), source=None) -> tuple[np.ndarray, View | None]:
    """The annotated image of a photo's reading ``res`` (a :class:`vision.pipeline.PhotoResult`: its photo, boxes,
    reading, order, and the tiles the user added, left out and replaced): :func:`annotate`, enlarged round a hand
    small in its photo (:func:`hand_view`, holding the boxes of ``fixed`` and those left out), from the photo's own
    pixels when ``source`` (its path, or the :class:`vision.io.Photo` loaded at full size) gives them
    (:func:`full_pixels`). ``fixed``: detection indices of the tiles the user set (those ``res`` added are framed
    as set too). Returns the image
    ((H, W, 3) uint8 RGB, the size of the pixels read) and its :class:`View` or None (the whole photo). The one
    drawing of ``photo --annotate``, ``audit``'s evidence, the review page's cards and the phone page. Raises
    nothing of its own."""
    added, dropped = getattr(res, "added", ()), getattr(res, "dropped", ())
    fixed = set(fixed) | set(added)
    view = hand_view(res.photo.pixels.shape, res.detections, res.reading, also=set(fixed) | set(dropped))
    full = (None if view is None or source is None else
            full_pixels(source, res.photo, getattr(res, "turned", 0), getattr(res, "straightened", None)))
    img = annotate(res.photo.pixels, res.detections, res.reading, res.order, title, fixed=set(fixed), added=added,
                   dropped=dropped, stands_for=dict(getattr(res, "replaced", ())), view=view, full=full)
    return img, view


def reading_title(reading: Reading) -> str:
    """The annotated image's title line: the reading and its confidence (:func:`vision.decode.format_confidence`),
    or ``NOT LEGAL: …`` for a reading that is not a legal hand."""
    return (f"{reading.notation}  ({format_confidence(reading.confidence)})" if reading.legal
            else f"NOT LEGAL: {reading.notation}")


def annotate(image: np.ndarray, det: Detections, reading: Reading, order: tuple[int, ...],
             title: str | None = None, fixed: Collection[int] = (),
             placed: list[dict] | None = None, added: Collection[int] = (),
             dropped: Collection[int] = (), stands_for: Mapping[int, int] | None = None,
             view: View | None = None, full: np.ndarray | None = None) -> np.ndarray:
    """A copy of ``image`` (H, W, 3) uint8 RGB with the reading drawn on it (same shape).

    ``order``: detection indices in display order (tile k is ``order[k-1]``, the numbers ``--fix``
    uses). ``title``: a line drawn at the top, or at the bottom when tiles lie at the top (e.g. the
    reading and its confidence). ``fixed``: detection indices whose tile the user set
    (:func:`fixed_detections` of the ``--fix`` numbers, and the tiles added with ``--add``): a cyan
    frame labelled ``fixed`` (``added`` for those in ``added``), and the legend says so. ``dropped``:
    detection indices the user left out of the hand (``--fix POS=-``; to be in ``fixed`` too): their grey
    number is labelled ``left out``. ``stands_for``: {added tile: the box left out that it stands for}
    (``vision.pipeline.replaced_boxes``): that box gets no frame nor number of its own (its added tile
    lies on it), and the added tile's label says ``added for #19``, so that neither label pushes the other
    onto the hand's row.
    ``placed``: when a list is given, one dict per label drawn is appended to it: ``kind`` (tile,
    ignored — the number of a box not in the hand, when there are at most :data:`IGNORED_NUMBERS` —,
    meld, title, legend), ``index`` (detection index of a tile label, else None), ``rect`` (x0, y0,
    x1, y1 pixels) and ``lines`` (the texts).

    Label size: the largest of :data:`SHRINK_STEPS` sizes, from the one a tile's width allows down
    to half of it (never below :data:`MIN_TEXT`), at which every label finds a free spot next to its
    tile (nothing covered); a tile with no free spot next to it at any size gets its label as a tag
    inside its box (its record has ``inside``: True), never a label far away.

    ``view``: the part of the photo to draw, enlarged to the image's size (:func:`hand_view`: a hand small in its
    photo); the boxes outside it are not drawn, the legend says how much it is enlarged, and ``placed`` rects are
    in the enlarged image's pixels (:meth:`View.boxes` maps boxes to them). ``full``: the photo at full resolution
    (:func:`full_pixels`), to enlarge the view from.
    """
    if view is not None:
        img = view.crop(image, full)
        det = Detections.make(view.boxes(det.boxes), det.scores, det.face_down)
    else:
        img = np.ascontiguousarray(image.copy())
    H, W = img.shape[:2]
    # (a box wholly outside the view: not drawn, nor its number; the hand's boxes are all inside it)
    outside = {i for i, b in enumerate(det.boxes) if b[2] <= 0 or b[3] <= 0 or b[0] >= W or b[1] >= H}
    long_side = float(max(H, W))
    tile_h = float(np.median(det.sizes[:, 1])) if len(det) else 0.05 * long_side
    tile_w = float(np.median(det.sizes[:, 0])) if len(det) else 0.04 * long_side
    line = max(2, int(round(long_side / 640)))  # box line width: 2 px at 1280, 9 px at 5712
    pos = {d: k + 1 for k, d in enumerate(order)}
    boxes = [tuple(float(v) for v in b) for b in det.boxes]
    records: list[dict] = []

    def note(kind: str, index: int | None, label: _Text, rect: Rect, into: list[dict]) -> None:
        into.append({"kind": kind, "index": index, "rect": rect, "lines": [t for t, _, _ in label.lines]})

    # frames first (labels are drawn over them): group outlines, tiles, changed / fixed tiles
    pad = int(round(tile_h * 0.12))
    outlines = []
    for m in reading.melds:
        if not m.positions:
            continue
        b = det.boxes[list(m.positions)]
        r = (float(b[:, 0].min() - pad), float(b[:, 1].min() - pad), float(b[:, 2].max() + pad), float(b[:, 3].max() + pad))
        col = COLOURS["concealed-kong" if m.concealed else "exposed"]
        cv2.rectangle(img, (int(r[0]), int(r[1])), (int(r[2]), int(r[3])), col, line, cv2.LINE_AA)
        outlines.append((m, r, col))
    under = {j: i for i, j in (stands_for or {}).items()}  # box → the added tile on it
    for i, b in enumerate(boxes):
        if i in under or i in outside:
            continue
        role = reading.roles[i] if i < len(reading.roles) else "ignored"
        col = COLOURS.get(role, COLOURS["ignored"])
        x0, y0, x1, y1 = (int(round(v)) for v in b)
        cv2.rectangle(img, (x0, y0), (x1, y1), col, max(1, line // 2) if role == "ignored" else line, cv2.LINE_AA)
        for flag, fcol, k in ((i in reading.changed, CHANGED, 2), (i in fixed, FIXED, 2)):
            if flag:
                o = k * line
                cv2.rectangle(img, (x0 - o, y0 - o), (x1 + o, y1 + o), fcol, line + 1, cv2.LINE_AA)
    # title and legend: at the top, or at the bottom when tiles lie under the top band
    margin = max(4.0, 0.006 * long_side)
    blocks: list[tuple[str, _Text, float, float]] = []  # (kind, text, x, y from the block's top)
    yy = 0.0
    if title:
        blk = _Text([(title, INK, TITLE_TEXT * long_side)])
        w, h, _ = blk.metrics()
        if w > W - 2 * margin:  # a long title shrinks to the width
            blk = _Text([(t, c, px * (W - 2 * margin) / w) for t, c, px in blk.lines])
            w, h, _ = blk.metrics()
        blocks.append(("title", blk, margin, yy))
        yy += h + 2
    x, row_h = margin, 0.0
    lpx = LEGEND_TEXT * long_side
    present = {COLOURS.get(r) for r in reading.roles} | ({CHANGED} if reading.changed else set()) | (
        {FIXED} if fixed else set())
    for text, c in LEGEND:  # the colours this image uses
        if c not in present:
            continue
        blk = _Text([(text, c, lpx)])
        w, h, _ = blk.metrics()
        if x + w > W - margin and x > margin:  # wrap
            x, yy = margin, yy + row_h + 2
        blocks.append(("legend", blk, x, yy))
        x, row_h = x + w + 0.6 * lpx, h
    if view is not None:  # (a referee should know that the image is a part of the photo)
        blk = _Text([(f"enlarged {view.factor:.1f}x around the hand", ZOOMED, lpx)])
        w, h, _ = blk.metrics()
        if x + w > W - margin and x > margin:
            x, yy = margin, yy + row_h + 2
        blocks.append(("legend", blk, x, yy))
        row_h = max(row_h, h) if x > margin else h
    blocks_h = yy + row_h
    at_bottom = any(_overlap((0.0, 0.0, float(W), blocks_h + margin), b) for b in boxes) and not any(
        _overlap((0.0, H - blocks_h - 2 * margin, float(W), float(H)), b) for b in boxes)
    top = H - blocks_h - margin if at_bottom else margin
    fixed_rects: list[Rect] = []
    for kind, blk, bx, by in blocks:
        fixed_rects.append(blk.draw(img, bx, top + by))
        note(kind, None, blk, fixed_rects[-1], records)

    def layout(text_px: float):
        """Tile and meld labels at this text size: (labels, leader lines, records, badness)."""
        num_px = max(NUMBER_TEXT * text_px, MIN_NUMBER * long_side)
        gap = max(2.0, 0.1 * text_px)
        taken = list(fixed_rects)
        drawn: list[tuple[_Text, Rect]] = []
        leaders: list[tuple[tuple[int, int], tuple[int, int], tuple[int, int, int]]] = []
        recs: list[dict] = []
        bad = 0.0

        def put(label: _Text, anchor: Rect, skip: Collection[int], colour, prefer: str, kind: str,
                index: int | None) -> None:
            nonlocal bad
            w, h, _ = label.metrics()
            obstacles = [b for j, b in enumerate(boxes) if j not in skip and not _encloses(b, anchor)]
            rect, level = _place((w, h), anchor, obstacles, taken, (H, W), gap, prefer)
            covered = sum(_overlap(rect, o) for o in obstacles) + sum(_overlap(rect, t) for t in taken)
            bad += level + (10.0 if covered > TOLERATED * w * h else 0.0)
            if level > 0:  # a leader line from the stacked label to its group
                cx = int(round((rect[0] + rect[2]) / 2))
                ax = int(round((anchor[0] + anchor[2]) / 2))
                if rect[3] <= anchor[1]:
                    leaders.append(((cx, int(rect[3])), (ax, int(anchor[1])), colour))
                else:
                    leaders.append(((cx, int(rect[1])), (ax, int(anchor[3])), colour))
            taken.append(rect)
            drawn.append((label, rect))
            note(kind, index, label, rect, recs)

        def put_tile(tags: Sequence[_Text], i: int, kind: str) -> None:
            """A tile's label (the first of ``tags``) right above or below its box (touching it, as in a
            simple row); where neither spot is free (tiles stacked in columns, a crowd), a tag inside the
            box itself: the first of ``tags`` (the label, then smaller forms of it, the number always first) that fits the box,
            at the spot in it that covers the fewest other tiles and labels — never a label pushed away
            with a leader line, so each number stays on its own box."""
            nonlocal bad
            anchor = boxes[i]
            label = tags[0]
            w, h, _ = label.metrics()
            obstacles = [b for j, b in enumerate(boxes) if j != i and not _encloses(b, anchor)]
            rect, level = _place((w, h), anchor, obstacles, taken, (H, W), gap, "above", levels=1)
            on_tiles = sum(_overlap(rect, o) for o in obstacles)
            on_labels = sum(_overlap(rect, t) for t in taken)
            if level == 0 and on_labels == 0 and on_tiles <= TOLERATED * w * h:
                taken.append(rect)
                drawn.append((label, rect))
                note(kind, i, label, rect, recs)
                return
            rect, tag, cost = _inside(tags, anchor, obstacles, taken, (H, W), float(line))
            bad += INSIDE_BADNESS + (10.0 if cost > 0 else 0.0)
            taken.append(rect)
            drawn.append((tag, rect))
            note(kind, i, tag, rect, recs)
            recs[-1]["inside"] = True

        # tile labels: code (large), number and what the reader changed (smaller), in one box
        n_ignored = sum(1 for i in range(len(boxes)) if i >= len(reading.roles) or reading.roles[i] == "ignored")
        for i in sorted(range(len(boxes)), key=lambda j: (boxes[j][1], boxes[j][0])):  # top row first
            role = reading.roles[i] if i < len(reading.roles) else "ignored"
            if role == "ignored":
                if i in under or i in outside:
                    continue
                grey = COLOURS["ignored"]
                if i in dropped and i in pos:  # left out of the hand by the user (``--fix POS=-``)
                    put_tile([_Text([(f"#{pos[i]}", grey, num_px), ("left out", FIXED, num_px)]),
                              _Text([(f"#{pos[i]} left out", grey, num_px)])], i, "ignored")
                elif n_ignored <= IGNORED_NUMBERS and i in pos:
                    put_tile([_Text([(f"#{pos[i]}", grey, num_px)])], i, "ignored")
                continue
            col = COLOURS.get(role, COLOURS["ignored"])
            number, code = f"#{pos.get(i, '?')}", str(reading.tiles[i] or "?")
            extra = []
            if i in reading.changed:
                extra.append((f"was {reading.raw[i]}", CHANGED, num_px))
            if i in fixed:
                j = (stands_for or {}).get(i)
                extra.append(((f"added for #{pos[j]}" if j in pos else "added") if i in added else "fixed", FIXED,
                              num_px))
            lines = [(number, INK, num_px), (code, col, text_px)] + extra
            # inside the box: the label, then with the code at about the number's size, then without
            # what the frame's colour already says (changed, fixed), then on one line
            tags = [_Text(lines), _Text([(number, INK, num_px), (code, col, 1.2 * num_px)] + extra),
                    _Text([(number, INK, num_px), (code, col, 1.2 * num_px)]),
                    _Text([(f"{number} {code}", INK, num_px)])]
            put_tile(tags, i, "tile")
        for m, r, col in outlines:  # meld notation below its group
            put(_Text([(m.notation(), col, 0.8 * text_px)]), r, set(m.positions), col, "below", "meld", None)
        return drawn, leaders, recs, bad

    largest = max(min(TILE_TEXT * tile_h, TILE_TEXT_W * tile_w), MIN_TEXT * long_side)
    best = None
    for k in range(SHRINK_STEPS):
        px = max(largest * (0.5 ** (k / max(1, SHRINK_STEPS - 1))), MIN_TEXT * long_side)
        got = layout(px)
        if best is None or got[3] < best[3]:
            best = got
        if got[3] == 0 or px <= MIN_TEXT * long_side:
            break
    drawn, leaders, recs, _ = best
    for p0, p1, colour in leaders:
        cv2.line(img, p0, p1, colour, max(1, line // 2), cv2.LINE_AA)
    for label, rect in drawn:
        label.draw(img, rect[0], rect[1])
    if placed is not None:
        placed.extend(records + recs)
    return img


def image_info(image: np.ndarray, path: str | Path, photo, view: View | None = None) -> dict:
    """What the written annotated image is: ``{"path", "width", "height", "scale"}``, ``scale`` its
    pixels per pixel of the photo (in the frame it was read in). The image is drawn on the pixels the
    photo was read at (:class:`vision.io.Photo`: a photo larger than 3600 px on its long side is read
    at 1/2, 1/4 or 1/8 of its size, keeping the long side at 1800 px or more), so its boxes are the
    boxes the models saw and its labels are sized for that side; ``--json`` boxes are in the photo's
    own pixels (divide by ``scale`` to go from the image to them).

    With a ``view`` (:func:`hand_view`: the hand's part of the photo, enlarged) also ``"origin"``: [x, y], the
    view's top-left corner in the photo's own pixels, ``"enlarged"``: the view's :attr:`View.factor`, and ``scale``
    includes it: a point of the photo is at ``(point - origin) * scale`` in the image."""
    h, w = image.shape[:2]
    out = {"path": str(path), "width": int(w), "height": int(h), "scale": round(float(photo.scale), 6)}
    if view is not None:
        out["scale"] = round(float(photo.scale) * view.factor, 6)
        out["origin"] = view.in_photo(photo.scale)[:2]
        out["enlarged"] = round(view.factor, 3)
    return out


def describe(info: dict, photo, straightened: bool = False, turned: bool = False) -> str:
    """One line for :func:`image_info`: ``annotated image: out.jpg (2016×1512 px)``, with
    ``, 1/2 of the photo's 4032×3024: the scale it was read at`` when it is smaller than the photo, or with a
    view (:func:`image_info`'s ``origin``) ``, the hand's part of the photo's 4032×3024: x 1483–2542, y 1027–1822,
    enlarged 3.8× around the hand`` (``straightened``/``turned``: the photo was read so, and its size is that of the photo as read,
    ``vision.pipeline.read_photo``: "the straightened photo's", "the turned photo's")."""
    from .io import display_name

    # (a tester's file name with ESC[2J cleared the screen: escaped, as error lines and the photo's name are)
    line = f"annotated image: {display_name(info['path'])} ({info['width']}×{info['height']} px"
    whose = ("the straightened, turned photo's" if straightened and turned else "the straightened photo's"
             if straightened else "the turned photo's" if turned else "the photo's")
    if "origin" in info:  # (:func:`hand_view`: the hand small in its photo, drawn enlarged)
        W, H = photo.original_size
        x0, y0 = info["origin"]
        x1, y1 = x0 + info["width"] / info["scale"], y0 + info["height"] / info["scale"]
        above = " (above the photo's top edge: dark grey)" if y0 < -0.5 else ""
        return line + (f", the hand's part of {whose} {W}×{H}: x {x0:.0f}–{x1:.0f}, y {max(0.0, y0):.0f}–{y1:.0f}"
                       f"{above}, enlarged {info['enlarged']:.1f}× around the hand)")
    if info["scale"] < 1:
        k = 1 / info["scale"]
        part = f"1/{round(k)}" if abs(k - round(k)) < 1e-3 else f"{info['scale']:.3g}"
        W, H = photo.original_size
        line += f", {part} of {whose} {W}×{H}: the scale it was read at"
    return line + ")"


def save(image: np.ndarray, path: str | Path, quality: int = 88) -> Path:
    """Write an RGB image ((H, W, 3) uint8) to ``path`` (format from the extension: .jpg/.jpeg/.png/.webp,
    JPEG at ``quality``): encoded in memory, written to a part file beside it and put in its place
    (:func:`os.replace`), so a write that fails leaves a file already there as it was, and a symbolic link at
    ``path`` is replaced by the image, not followed; the image gets the permission bits of the file it replaces,
    else 0o666 less the umask (:func:`_new_file_mode`). Returns ``path`` as a Path.

    Raises :class:`ImageError` when the extension is unknown, the image cannot be encoded, or the file cannot
    be written (:func:`_why_unwritable`'s reasons, else the system's words: "No space left on device").
    """
    p = Path(path)
    ext = _annotated_ext(p)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if ext in (".jpg", ".jpeg") else []
    ok, buf = False, None
    try:
        ok, buf = cv2.imencode(ext, cv2.cvtColor(image, cv2.COLOR_RGB2BGR), params)
    except cv2.error:
        ok = False
    why = _why_unwritable(p)
    if not ok or why:  # (a new user's `--annotate /nonexist/x.jpg` was told only "cannot write")
        raise ImageError(f"{p}: cannot write the annotated image" + (why or ": it could not be encoded"))
    # written beside it, then put in its place: a write that fails (a full disk) leaves a file there as it was
    # (OpenCV's own write had removed it), and a symbolic link at ``p`` is replaced, not the file it points to
    tmp = None
    try:
        with tempfile.NamedTemporaryFile(dir=p.parent if str(p.parent) else ".", prefix=f".{p.name}.",
                                         suffix=".part", delete=False) as f:
            tmp = Path(f.name)
            f.write(buf.tobytes())
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _new_file_mode(p))  # (a temporary file is made 0600: the image as any file the user writes)
        os.replace(tmp, p)
        tmp = None
    except OSError as e:
        raise ImageError(f"{p}: cannot write the annotated image: {e.strerror or e}") from None
    finally:  # (a failed write, or Ctrl-C, leaves no part file behind)
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    return p


def _new_file_mode(p: Path) -> int:
    """The permission bits an annotated image written at ``p`` gets: those of the regular file it replaces, else
    0o666 less the process's umask (read from /proc where there is one, not set and reset: a web server's threads
    share it; 0o022 elsewhere), as a file opened for writing would get."""
    try:
        if p.is_file() and not p.is_symlink():
            return p.stat().st_mode & 0o777
    except OSError:
        pass
    mask = 0o022
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                mask = int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o666 & ~mask


def _annotated_ext(p: Path) -> str:
    """``p``'s extension, lower case; ImageError for one :func:`save` cannot write."""
    ext = p.suffix.lower()
    if ext not in (".jpg", ".jpeg", ".png", ".webp"):
        raise ImageError(f"{p}: annotated image must be .jpg, .png or .webp")
    return ext


def check_writable(path: str | Path) -> None:
    """Raise :class:`ImageError` when :func:`save` could not write ``path``, as far as can be told before
    the photo is read: an extension that is not .jpg/.jpeg/.png/.webp, a missing folder, a folder at
    ``path``, no write permission (a new user's ``photo --annotate /nonexist/x.jpg`` read and scored the
    photo, recorded it in the history as scored, then failed)."""
    p = Path(path)
    _annotated_ext(p)
    why = _why_unwritable(p)
    if why:
        raise ImageError(f"{p}: cannot write the annotated image{why}")


def _why_unwritable(p: Path) -> str:
    """Why ``p`` cannot be written, as ``": the folder … does not exist"`` (a symbolic link that loops, a missing
    or non-folder parent, a folder at ``p``, a pipe, socket or device at ``p``, a folder or file without write
    permission), or "" when none of those."""
    from .io import looping_link

    parent = p.parent if str(p.parent) else Path(".")
    if p.is_symlink() and not p.exists():  # (a loop, or a link to nothing: resolving it raised, a traceback)
        try:
            p.resolve(strict=True)
        except RuntimeError:  # (Python 3.11–3.12 say a loop so)
            return ": it is a symbolic link that loops"
        except OSError as e:
            if e.errno == errno.ELOOP:
                return ": it is a symbolic link that loops"
    if p.is_dir():
        return ": it is a folder"
    if p.exists() and not p.is_file():  # (a tester's FIFO had the write wait forever)
        return ": it is not a regular file (a pipe, socket or device)"
    loop = looping_link(parent)
    if loop is not None:  # (a breaker's folder inside a link loop had been said not to exist)
        return f": {loop} is a symbolic link that loops"
    if not parent.exists():
        return f": the folder {parent} does not exist"
    if not parent.is_dir():
        return f": {parent} is not a folder"
    if p.exists() and not os.access(p, os.W_OK):
        return ": the file is not writable (no permission)"
    if not os.access(parent, os.W_OK):
        return f": no permission to write in the folder {parent}"
    return ""
