"""Structure-aware decoding: per-tile probabilities + layout → the most probable *legal* hand.

A photo reading is a product of independent per-tile guesses; a winning hand is not: it has ≤ 4 of
each tile, legal melds, 14 (16-tile game: 17) tiles counting each meld as 3, and a shape the ruleset
knows (sets + pair, seven pairs, thirteen orphans, a special hand). When a tile is uncertain the
structure usually says which it is: ``1m 2m 3m 4p 4p 5p 6p 6p ...`` with one ``6p`` read where a ``5p``
lies is not a hand, and the cheapest change that makes it one is almost always the truth.

Search (:func:`decode`):

1. *Role hypotheses*: each group of the hand region has role options with priors (from
   :mod:`vision.layout`): exposed meld or concealed, winning tile or not, ignored or not. Hypotheses
   whose tile count cannot make a hand are dropped before any search; the rest are tried best prior
   first, with branch-and-bound (a hypothesis cannot beat its prior).
2. *Readings of one hypothesis*: units are the concealed tiles (top-K playing tiles each) and the
   melds (every legal pung/chow/kong, scored over the best arrangement of its tiles on the group's
   positions). Readings are enumerated in exactly decreasing probability (lazy k-best over the
   product of sorted candidate lists), each checked for tile counts ≤ 4 and the ruleset's shapes
   (:func:`scoring.decompose.is_standard_complete`, seven pairs, thirteen orphans, the ruleset's
   own shapes); the first that passes and that :func:`scoring.score_hand` accepts (no
   :class:`~scoring.HandError`) is the hand.
3. Its *probability* is the product of the chosen tile probabilities; *relative* divides it by the
   raw (arg-max) reading's; *confidence* is its share of the probability of all legal readings met
   in the search. If no legal reading is plausible (relative ≥ :data:`MIN_RELATIVE`, at most
   :data:`MAX_CHANGED` tiles changed, a flower or season read as another not counted), the raw reading is returned with ``problem`` saying what is
   wrong (and the nearest legal reading, when one was found).

Overrides: ``winning_tile`` (CLI ``--winning-tile``) names the winning tile (it must be among the
concealed tiles read); ``exposed`` (CLI
``--exposed "[777p] (1111s)"``) names the melds on the table — each is matched to the group that
reads most like it, or taken as not photographed, and no other group is read as exposed.
"""
from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Collection, Iterable, Iterator, Mapping, Sequence

import numpy as np

from scoring import Context, HandError, Meld, load_ruleset, make_hand, score_hand
from scoring.errors import echo
from scoring.hand import check_context, winning_tile_missing
from scoring.decompose import is_standard_complete, seven_pairs_counts
from scoring.engine import Ruleset, check_flags
from scoring.notation import meld_from_tiles, parse_tiles, parse_winning_tile
from scoring.tiles import BONUS, PLAYING_TILES, TERMINALS_AND_HONOURS, compact, compact_in_order, sort_tiles

from .classes import BACK, BONUS_TILES, CLASS_INDEX, CLASS_NAMES, DROP
from .classify import TileReadings
from .layout import BONUS_INDEX, GroupRoles, Layout, Option, bonus_face, is_meld

#: candidates per concealed tile (most probable playing tiles)
TOP_K = 6
#: candidates per meld
TOP_MELDS = 10
#: a candidate is dropped when it is this many times less probable than the unit's best
CAND_RATIO = 3e-3
#: a concealed tile the classifier gives less than this probability of being a playing tile at all (a
#: hand tile read as a flower or season — a 1s's bird, a calligraphic wind — or as a back: a tile called
#: face-down in a long group) has no telling reading among the playing tiles, so every playing tile is a
#: candidate for it
UNREAD_PLAYING = 0.5
#: such a tile read as a flower/season is a 1s with this share of its likeliest playing tile's probability
#: added: the bird is the playing tile drawn as a picture, and unseen sets' birds are read as flowers with next
#: to nothing on the 1s (real-crop composites read at their true boxes: 20 of the 26 such tiles were 1s, 2 of
#: them with the 1s likeliest among the playing tiles; the other 6, honours and a 5m, all had their own face
#: likeliest). At 1 the 1s and that tile are about as likely, and the hand's structure chooses between them
BIRD_SHARE = 1.0
#: the least relative probability (reading / raw reading) still called plausible
MIN_RELATIVE = 1e-4
#: a legal reading that changes more tiles than this is not offered (the user is asked to --fix); a flower or
#: season read as another flower or season is not counted (:func:`_counted_changes`)
MAX_CHANGED = 3
#: the chance, relative to finding it, that a tile of the hand was not detected (hidden, cut off,
#: missed): the weight of a role hypothesis with too few tiles against the legal readings
MISSED_TILE = 0.15
#: a meld named with ``--exposed`` is matched to the group whose tiles read most like it × the group's
#: prior of being in the hand (its likeliest role other than ``ignored``), that prior floored at this: a
#: group the layout gives no hand role (a wall, another player's meld far away) is taken only when no
#: group of the hand reads like the meld
GIVEN_OFF_HAND = 1e-3
#: an exposed kong named with ``--exposed`` may be matched to a group of three tiles that read its face:
#: players often lay a kong's fourth tile on top of the other three, where it is hidden or not boxed
#: (or it lies out of the photo); such a match counts this much against a group of four
SHORT_KONG = 0.5
#: the role's reason for a kong so matched (said in the notes), with the kong's notation
SHORT_KONG_WHY = ("named with --exposed as {}; 3 of its 4 tiles are seen, the fourth taken as lying on them "
                  "or out of the photo")
#: … a concealed kong so matched, one of its face-down tiles seen
SHORT_KONG_BACK_WHY = "named with --exposed as {}; 3 of its 4 tiles are seen, its other face-down tile not detected"
#: readings examined per hypothesis at most, and over all hypotheses of one photo
MAX_READINGS = 20000
MAX_READINGS_TOTAL = 3000
#: calls of the scorer (for shapes only it can judge) per photo at most
MAX_SCORER_CALLS = 400
#: hypotheses decoded at most; role combinations enumerated at most (before the tile-count filter)
MAX_HYPOTHESES = 60
MAX_COMBOS = 6000
#: after the best legal reading, keep enumerating this far (in log-probability), for at most
#: CONF_READINGS more readings, to estimate the confidence
CONF_WINDOW = 4.6  # e^-4.6 ≈ 1 %
CONF_READINGS = 3000
EPS = 1e-12

_PLAY = 34
_BACK = CLASS_INDEX[BACK]
_ONE_S = CLASS_INDEX["1s"]
_TH_SET = frozenset(PLAYING_TILES.index(t) for t in TERMINALS_AND_HONOURS)


@dataclass(frozen=True)
class GivenMeld:
    """A meld named by the user (``--exposed``): ``kind`` pung/chow/kong, ``tiles`` (34-indices),
    ``concealed`` (a concealed kong)."""

    kind: str
    tiles: tuple[int, ...]
    concealed: bool

    @property
    def notation(self) -> str:
        body = compact([PLAYING_TILES[t] for t in self.tiles])
        return f"({body})" if self.concealed else f"[{body}]"


def parse_exposed(text: str) -> tuple[GivenMeld, ...]:
    """``"[777p] [1111s] (2222m)"`` → given melds. Raises :class:`HandError` for bad notation or a
    token that is not a meld."""
    out = []
    for tok in text.split():
        if len(tok) < 3 or (tok[0], tok[-1]) not in (("[", "]"), ("(", ")")):
            raise HandError(f"--exposed: {echo(tok)} must be a meld in brackets, e.g. [777p] or (1111s)")
        tiles = parse_tiles(tok[1:-1])
        m = meld_from_tiles(tiles, concealed=tok[0] == "(")
        out.append(GivenMeld(m.kind, tuple(PLAYING_TILES.index(t) for t in m.tiles), tok[0] == "("))
    # a set holds 4 of each tile: melds that need more are not what is on the table ("[777s] [777s]" had
    # been read as a hand with one of them, and refused with a generic "no reading close to the photo")
    counts = Counter(PLAYING_TILES[t] for gm in out for t in gm.tiles)
    over = sorted((t for t, k in counts.items() if k > 4), key=PLAYING_TILES.index)
    if over:
        raise HandError(f"--exposed: the melds {echo(text.strip())} need " + ", ".join(f"{counts[t]} of {t}" for t in over)
                        + "; a set has 4 of each tile (name each meld on the table once)")
    return tuple(out)


@dataclass(frozen=True)
class MeldReading:
    """A meld in the reading: ``kind``, ``tile`` (lowest/repeated tile code), ``concealed`` (a
    concealed kong), ``positions`` (detection indices; empty for a given meld not in the photo)."""

    kind: str
    tile: str
    concealed: bool
    positions: tuple[int, ...]
    shown: tuple[str, ...] = ()  # for a raw (not legal) reading: the tiles as read

    def notation(self) -> str:
        if self.kind in ("pung", "kong", "chow"):
            return Meld(self.kind, self.tile, concealed=self.concealed, declared=True).notation()
        shown = [t for t in self.shown if t]
        faces = {t for t in shown if t != BACK}
        if self.concealed and len(shown) == 4 and len(faces) == 1:  # a concealed kong shown with backs:
            shown = [faces.pop()] * 4  # written as the kong it is, (2222m), not (22m00x)
        body = _loose_compact(shown)
        return f"({body})" if self.concealed else f"[{body}]"


@dataclass(frozen=True)
class RegionRival:
    """Another candidate hand region's legal reading that took a share of a reading's confidence
    (``vision.pipeline``'s region share), boxes by detection index.

    * ``notation``: its hand; ``share`` (0..1): its share of the distinct legal readings of all regions
      (the reading's confidence was × its own share, 1 − the rivals' together); ``why``: its region, as
      the hand-region note says it;
    * ``counted``: the boxes it counts that the reading leaves out, each (index, tile, role) as it reads them;
    * ``left``: the boxes the reading counts that it leaves out;
    * ``otherwise``: the boxes both count that it reads as another tile or in another role (index, tile, role);
    * ``winner``: it reads a winner's hand.
    """

    notation: str
    share: float
    why: str
    counted: tuple[tuple[int, str, str], ...] = ()
    left: tuple[int, ...] = ()
    otherwise: tuple[tuple[int, str, str], ...] = ()
    winner: bool = True


@dataclass(frozen=True)
class Reading:
    """The decoded hand.

    * ``hand``: the legal :class:`scoring.Hand`, or None when none is plausible;
    * ``tiles``: per detection, the tile read (``0x`` for a face-down tile, None when ignored);
    * ``raw``: per detection, the most probable class (the raw reading);
    * ``roles``: per detection: concealed / winning / exposed / concealed-kong / bonus / ignored;
    * ``melds``: the melds on the table with their detection positions;
    * ``changed``: detection indices whose tile differs from the raw reading;
    * ``probability``: product of the chosen tiles' probabilities (hand tiles only);
    * ``relative``: ``probability`` / the raw reading's product over the same tiles (≤ 1);
    * ``confidence``: share of this reading among the legal readings found (0..1);
    * ``legal``: True when ``hand`` is set; ``problem``: what is wrong otherwise;
    * ``notation``: the hand in notation (the raw reading's when not legal);
    * ``notes``: what was inferred from the layout;
    * ``score``: log of (role prior × ``relative``) of the chosen hypothesis, −inf when not legal
      (compares readings of one photo's candidate hand regions);
    * ``neighbours``: Σ over the groups off the region's main row of log(their likeliest role's prior),
      the roles as the decoder offered them (after ``--exposed`` and a non-winner's filtering): what
      the region's neighbours cost ``score`` at best (``vision.pipeline`` counts roles against it);
    * ``count_off``: when not legal for its tile count, how many tiles the count nearest the hand's
      (each kong 3) is off it (the hand's count when no tile of a hand was found, or only backs: a
      wall read as concealed kongs); 0 when legal or when
      the count is right and the tiles are what is wrong (``vision.pipeline`` ranks the readings of
      regions none of which is legal by it).
    """

    hand: object | None
    tiles: tuple[str | None, ...]
    raw: tuple[str, ...]
    roles: tuple[str, ...]
    melds: tuple[MeldReading, ...]
    changed: tuple[int, ...]
    probability: float
    relative: float
    confidence: float
    legal: bool
    notation: str
    problem: str | None = None
    notes: tuple[str, ...] = ()
    score: float = -math.inf
    neighbours: float = 0.0
    count_off: int = 0
    #: groups set apart like a meld that this reading leaves out whole (:func:`_left_out_melds_sureness`):
    #: (their detection indices, the layout's meld prior p, the meld as read, ``[7777z]``)
    left_out_melds: tuple[tuple[tuple[int, ...], float, str], ...] = ()
    #: detection indices the reader left out of the hand as false detections to make its tile count
    #: (``vision.pipeline``'s left-out-box retries; not the user's ``--fix POS=-``)
    false_drops: tuple[int, ...] = ()
    #: flowers/seasons the reading leaves out as loose tiles that made it less sure (:func:`_left_out_sureness`):
    #: (their detection indices, their prior p of being the hand's, q the classifier's that they are
    #: flowers/seasons; the confidence was × (1 − p·q)), one entry for all those away from the hand
    loose_bonus: tuple[tuple[tuple[int, ...], float, float], ...] = ()
    #: the hand's bonus tiles whose face made it less sure (:func:`_bonus_sureness`): (detection index, the
    #: share of its flower/season probability on the face given; the confidence was × it)
    bonus_faces: tuple[tuple[int, float], ...] = ()
    #: the legal readings of other candidate hand regions that made it less sure (``vision.pipeline``'s region
    #: share; the likeliest named in notes), the likeliest first
    region_rivals: tuple[RegionRival, ...] = ()
    #: doubtful boxes the reading counts as tiles of the hand that made it less sure (``vision.pipeline``'s
    #: ``_doubtful_sureness``): (detection index, the factor the confidence was × by)
    doubtful_boxes: tuple[tuple[int, float], ...] = ()
    #: groups a non-winner's reading leaves out beside the concealed tiles in their row that made it less sure
    #: (:func:`_beside_left_out_sureness`): (their detection indices, the factor the confidence was × by)
    left_beside: tuple[tuple[tuple[int, ...], float], ...] = ()
    #: tiles read as one face, three or four of them, whose mean probability cost the reading
    #: (:func:`_alike_sureness`): (their detection indices, the factor the confidence was × by)
    alike: tuple[tuple[tuple[int, ...], float], ...] = ()
    #: runs of alike concealed tiles holding a sideways tile, laid as a claimed meld is, that cost the reading
    #: :data:`CLAIMED_IN_ROW` each (:func:`_claimed_in_row_sureness`): their detection indices
    claimed_runs: tuple[tuple[int, ...], ...] = ()
    #: the tiles of a row off the concealed row read as concealed sets, that cost the reading :data:`OTHER_ROW`
    #: (:func:`_other_row_sureness`): their detection indices
    other_row: tuple[int, ...] = ()
    #: exposed pungs with a tile that lies as a kong's fourth tile laid on top does, that cost the reading
    #: :data:`STACKED_KONG` each (:func:`_stacked_kong_sureness`): (the pung's detection indices, the tile's)
    stacked: tuple[tuple[tuple[int, ...], int], ...] = ()
    #: two neighbouring boxes read as one face that overlap like one tile laid sideways boxed twice, that cost the
    #: reading :data:`BOXED_TWICE` each (:func:`_boxed_twice_sureness`): their detection indices
    boxed_twice: tuple[tuple[int, int], ...] = ()
    #: flowers/seasons counted as the hand's though far from its row, that cost the reading their prior each
    #: (``vision.pipeline``'s ``_far_counted_sureness``): (their detection indices, the factor)
    far_counted: tuple[tuple[tuple[int, ...], float], ...] = ()


# ----------------------------------------------------------------------------- candidates
@dataclass
class _Unit:
    """A search unit: concealed tile or meld, with sorted candidates (logp, value, per-position codes)."""

    kind: str  # "tile" | "meld"
    positions: tuple[int, ...]
    cands: list[tuple[float, object, tuple[int, ...]]]
    role: str = "concealed"


def _tile_unit(logp: np.ndarray, pos: int, forced: int | None = None) -> _Unit:
    if forced is not None:
        return _Unit("tile", (pos,), [(0.0, forced, (forced,))])
    lp = logp[pos, :_PLAY]
    order = np.argsort(-lp, kind="stable")
    if float(np.exp(lp).sum()) >= UNREAD_PLAYING:  # read as a playing tile: its likeliest few
        best = lp[order[0]]
        order = [t for t in order[:TOP_K] if lp[t] >= best + math.log(CAND_RATIO)]
    # (else not read as a playing tile at all: any of them may be it; read as a flower/season rather than a
    # back, the 1s, a bird, about as likely as the likeliest)
    elif np.logaddexp.reduce(logp[pos, BONUS_INDEX]) > logp[pos, _BACK]:
        lp = lp.copy()
        lp[_ONE_S] = np.logaddexp(lp[_ONE_S], math.log(BIRD_SHARE) + float(np.delete(lp, _ONE_S).max()))
        order = np.argsort(-lp, kind="stable")
    cands = [(float(lp[t]), int(t), (int(t),)) for t in order]
    return _Unit("tile", (pos,), cands)


def _meld_options(n: int, concealed_kong: bool) -> list[tuple[str, tuple[int, ...]]]:
    out: list[tuple[str, tuple[int, ...]]] = []
    if n == 4:
        out += [("kong", (t,) * 4) for t in range(_PLAY)]
        return out
    if n == 3 and not concealed_kong:
        out += [("pung", (t,) * 3) for t in range(_PLAY)]
        out += [("chow", (s * 9 + r, s * 9 + r + 1, s * 9 + r + 2)) for s in range(3) for r in range(7)]
    elif n == 3:  # a concealed kong short of a back the detector missed (vision.layout.KONG_SHORT_OF_BACK)
        out += [("kong", (t,) * 4) for t in range(_PLAY)]
    return out


def _meld_unit(logp: np.ndarray, positions: Sequence[int], backs: Sequence[bool], role: str,
               only: Sequence[tuple[str, tuple[int, ...]]] | None = None) -> _Unit:
    """Every legal meld on ``positions`` scored over its best arrangement (backs show 0x)."""
    n = len(positions)
    faces = [p for p, b in zip(positions, backs) if not b]
    options = list(only) if only is not None else _meld_options(n, role == "concealed-kong")
    cands = []
    for kind, tiles in options:
        if kind == "kong" or kind == "pung":
            t = tiles[0]
            # a face-down tile shows its back, or is read as the kong's tile: one the user set to its
            # face (--fix 13=2m on a concealed kong's back) is that tile, and the kong stays concealed
            lp = sum(max(float(logp[p, _BACK]), float(logp[p, t])) for p, b in zip(positions, backs) if b)
            lp += sum(float(logp[p, t]) for p in faces)
            codes = tuple((t if logp[p, t] > logp[p, _BACK] else _BACK) if b else t for p, b in zip(positions, backs))
            cands.append((lp, (kind, tiles), codes))
        else:  # chow: best assignment of its three tiles to the three positions
            best = None
            for perm in set(itertools.permutations(tiles)):
                lp = sum(float(logp[p, t]) for p, t in zip(positions, perm))
                if best is None or lp > best[0]:
                    best = (lp, perm)
            cands.append((best[0], (kind, tiles), tuple(best[1])))
    cands.sort(key=lambda c: -c[0])
    if not cands:
        return _Unit("meld", tuple(positions), [], role)
    top = cands[0][0]
    cands = [c for c in cands[:TOP_MELDS] if c[0] >= top + math.log(CAND_RATIO)]
    return _Unit("meld", tuple(positions), cands, role)


def _kbest(units: Sequence[_Unit]) -> Iterator[tuple[float, tuple[int, ...]]]:
    """Index vectors into the units' candidate lists in exactly decreasing total log-probability."""
    m = len(units)
    if m == 0:
        yield 0.0, ()
        return
    if any(not u.cands for u in units):
        return
    start = (0,) * m
    s0 = sum(u.cands[0][0] for u in units)
    heap: list[tuple[float, tuple[int, ...], int]] = [(-s0, start, 0)]
    while heap:
        neg, idx, j0 = heapq.heappop(heap)
        yield -neg, idx
        for j in range(j0, m):
            k = idx[j] + 1
            if k < len(units[j].cands):
                s = -neg - units[j].cands[k - 1][0] + units[j].cands[k][0]
                heapq.heappush(heap, (-s, idx[:j] + (k,) + idx[j + 1:], j))


# ----------------------------------------------------------------------------- legality
def _shape_ok(conc: list[int], n_melds: int, rs: Ruleset, winner: bool) -> bool | None:
    """Structural check of the concealed tiles (34-indices). True/False, or None when only the
    scorer can tell (a ruleset's own or irregular shape)."""
    if not winner:
        return True
    counts = [0] * _PLAY
    for t in conc:
        counts[t] += 1
    undecided = False
    for shape in rs.shapes:
        if shape == "standard":
            if is_standard_complete(tuple(counts)):
                return True
        elif shape in ("seven-pairs", "seven-pairs-four-alike"):
            if n_melds == 0 and seven_pairs_counts(counts, allow_four=shape.endswith("alike")):
                return True
        elif shape == "thirteen-orphans":
            if n_melds == 0 and len(conc) == 14 and set(conc) == _TH_SET:
                return True
        else:
            undecided = True
    return None if undecided else False


@dataclass
class _Hyp:
    prior: float
    choices: tuple[Option, ...]
    groups: tuple[GroupRoles, ...]
    given: dict = field(default_factory=dict)  # group index → GivenMeld
    bonus_codes: dict = field(default_factory=dict)  # bonus tiles of this hypothesis: position → code
    off_photo: tuple = ()  # GivenMeld not in the photo
    embedded: tuple = ()  # GivenMeld whose tiles lie among the concealed tiles (not a group apart)


def _best_combos(opts: list[list[Option]], limit: int) -> Iterator[tuple[Option, ...]]:
    """At most ``limit`` role combinations (one option per group), in decreasing prior product (lazy
    k-best), so a photo with many groups (a cloth pattern, a table full of tiles) stays bounded."""
    sorted_opts = [sorted(o, key=lambda x: -x.prior) for o in opts]
    units = [_Unit("tile", (), [(math.log(max(x.prior, EPS)), x, ()) for x in o]) for o in sorted_opts]
    for k, (_, idx) in enumerate(_kbest(units)):
        if k >= limit:
            return
        yield tuple(sorted_opts[g][i] for g, i in enumerate(idx))


#: a named meld is matched to tiles inside a longer group (or across groups of one row) only where each of them
#: reads as its tile at least this likely, on the geometric mean (:func:`_split_for_named`)
NAMED_IN_ROW_MIN = 0.05


def _split_for_named(lay: Layout, given: Sequence[GivenMeld], logp: np.ndarray, backs: np.ndarray) -> Layout:
    """``lay`` with the groups of each row off the main row regrouped around the tiles, side by side in that row, that
    read as a named meld (``given``; each at least :data:`NAMED_IN_ROW_MIN` on the geometric mean, by
    :func:`_meld_unit`), where no group of the meld's length reads as it: melds laid touching, boxed as one group
    or split where a claimed tile lies sideways, are then matched one by one (the other parts keep their groups'
    roles). A phone tester's [4m 5m^ 6m][1p 1p 1p] laid touching in front of the concealed row (grouped 4m | 5m 6m
    1p 1p 1p), named as a note said, were each "not in the photo: added to the hand", their six tiles left out.
    Each meld takes its likeliest window, once."""
    groups = list(lay.groups)
    changed = False

    def reads(tiles: Sequence[int], gm: GivenMeld, floor: float, each: float = -math.inf) -> float:
        # (the tiles' log-likelihood as ``gm`` over ``floor`` a tile on the mean, and each tile's over ``each``)
        gb = [bool(backs[p]) for p in tiles]
        if any(gb) and not gm.concealed:
            return -math.inf
        lp, _, codes = _meld_unit(logp, tiles, gb, "exposed", only=[(gm.kind, gm.tiles)]).cands[0]
        if any(float(logp[p, c]) < each for p, c in zip(tiles, codes)):
            return -math.inf
        return lp if lp > floor * len(tiles) else -math.inf

    def runs() -> Iterator[tuple[int, int]]:  # (first, end) group indices of each row off the main row
        k = 0
        while k < len(groups):
            j = k + 1
            while j < len(groups) and groups[j].row == groups[k].row:
                j += 1
            if groups[k].row != 0:
                yield k, j
            k = j

    for gm in given:
        n = len(gm.tiles)
        if any(len(g.tiles) == n and reads(g.tiles, gm, math.log(1e-6)) > -math.inf for g in groups):
            continue  # (matched as a group: _hypotheses)
        best = None  # (log-likelihood, first group, end group, window start)
        for a, b in runs():
            seq = [t for g in groups[a:b] for t in g.tiles]
            if len(seq) <= n:
                continue
            for k in range(len(seq) - n + 1):
                # (each tile too: a named kong's 0x 2m 0x had taken the 7s beside it, read 2m at 1e-4)
                lp = reads(seq[k:k + n], gm, math.log(NAMED_IN_ROW_MIN), math.log(NAMED_IN_ROW_MIN))
                if lp > -math.inf and (best is None or lp > best[0]):
                    best = (lp, a, b, k)
        if best is None:
            continue
        _, a, b, k = best
        window = tuple([t for g in groups[a:b] for t in g.tiles][k:k + n])
        parts: list[GroupRoles] = []
        pos = 0
        for g in groups[a:b]:
            lo, hi = pos, pos + len(g.tiles)
            pos = hi
            before = g.tiles[:max(0, min(k, hi) - lo)]
            after = g.tiles[max(0, min(hi, k + n) - lo):] if hi > k + n else ()
            if before:
                parts.append(GroupRoles(tuple(before), g.row, g.options))
            if lo <= k < hi:  # (the window as one group, with the roles of the group it begins in)
                parts.append(GroupRoles(window, g.row, g.options))
            if after:
                parts.append(GroupRoles(tuple(after), g.row, g.options))
        groups[a:b] = parts
        changed = True
    return replace(lay, groups=tuple(groups)) if changed else lay


def _count(h: _Hyp) -> int:
    n = 0
    for gi, (g, o) in enumerate(zip(h.groups, h.choices)):
        if o.role in ("exposed", "concealed-kong") or gi in h.given:
            n += 3
        elif o.role in ("concealed", "winning"):
            n += len(g.tiles)
    return n + 3 * len(h.off_photo) + sum(3 - len(gm.tiles) for gm in h.embedded)


def _hypotheses(lay: Layout, need: int, winner: bool, given: tuple[GivenMeld, ...],
                logp: np.ndarray, backs: np.ndarray, override: bool = False,
                short: list[float] | None = None, neighbours: list[float] | None = None,
                preferred: list[Option] | None = None) -> list[_Hyp]:
    """Role hypotheses whose tile count is ``need``, best prior first, and the count of the nearest
    other one. ``short[0]`` is set to the largest prior × :data:`MISSED_TILE` ^ (tiles short) among the
    hypotheses with too few tiles: the mass of "a tile of the hand was not detected"; ``neighbours[0]``
    to Σ log(best option prior) over the groups off the main row (:attr:`Reading.neighbours`);
    ``preferred`` (filled when given) to each group's likeliest role under what the user said (the
    named melds matched to their groups, no other group a meld; no winning tile for a non-winner): the
    reading shown when no hypothesis has the hand's count."""
    groups = list(lay.groups)
    opts: list[list[Option]] = []
    for g in groups:
        o = list(g.options)
        if given or override:  # the user named the melds: no group is exposed unless matched to one of them
            o = [x for x in o if x.role not in ("exposed", "concealed-kong")] or \
                [Option("ignored", 0.5, why="face-down tiles")]
        if not winner:
            o = [x for x in o if x.role != "winning" and x.winning is None] or [Option("concealed", 1.0)]
        opts.append(o)
    # match given melds to groups (greedy by likelihood of the meld's tiles × the group's prior of being
    # in the hand: a new user's named meld was matched to wall tiles that read like it), the likeliest
    # pair of meld and group first (`--exposed "(7777s) (2222m)"`, taken in the order named, had matched
    # (7777s) to the demo's concealed kong of 2m, its two faces read as 7s at p ≈ 0.002 each)
    pairs = []
    for k, gm in enumerate(given):
        for gi, g in enumerate(groups):
            # (a referee's `--exposed "[7777s]"` for a kong shown as three tiles, the fourth on top: the
            # kong was "not in the photo", its three tiles left out, and a note asked to name [777s])
            gb = [bool(backs[p]) for p in g.tiles]
            # (a concealed kong named so, matched to three tiles of it with one face-down, its other back not boxed:
            # vision.layout.KONG_SHORT_OF_BACK; a phone tester's `--exposed "(1111m) [999s]"` had left its 1m 1m 0x
            # out, the kong "not in the photo")
            short_kong = gm.kind == "kong" and len(g.tiles) == 3 and (not gm.concealed or sum(gb) == 1)
            if len(g.tiles) != len(gm.tiles) and not short_kong:
                continue
            if any(gb) and not gm.concealed:
                continue
            u = _meld_unit(logp, g.tiles, gb, "exposed", only=[(gm.kind, gm.tiles)])
            lp = u.cands[0][0]
            if lp <= math.log(1e-6) * len(g.tiles):  # reads nothing like the meld
                continue
            in_hand = max((x.prior for x in g.options if x.role != "ignored"), default=0.0)
            pairs.append((lp + math.log(max(in_hand, GIVEN_OFF_HAND)) + (math.log(SHORT_KONG) if short_kong else 0.0),
                          -k, -gi))
    given_map: dict[int, GivenMeld] = {}
    matched: set[int] = set()
    for _, k, gi in sorted(pairs, reverse=True):
        if -k not in matched and -gi not in given_map:
            given_map[-gi] = given[-k]
            matched.add(-k)
    off: list[GivenMeld] = []
    for k, gm in enumerate(given):
        if k not in matched:
            if gm.kind == "kong":
                _refuse_kong_shown_otherwise(gm, groups, lay, logp, backs)
            off.append(gm)
    for gi in given_map:
        three_of_four = len(groups[gi].tiles) < len(given_map[gi].tiles)
        opts[gi] = [Option("exposed", 1.0, why=(SHORT_KONG_BACK_WHY if given_map[gi].concealed else SHORT_KONG_WHY).format(
            given_map[gi].notation) if three_of_four else "named with --exposed")]
    if preferred is not None:
        preferred[:] = [Option("concealed-kong" if given_map[gi].concealed else "exposed", 1.0) if gi in given_map
                        else o[0] for gi, o in enumerate(opts)]
    if neighbours is not None:
        neighbours[0] = float(sum(math.log(max(max(x.prior for x in o), EPS))
                                  for g, o in zip(groups, opts) if g.row != 0 and o))
    out = []
    # bound the product: groups outside the main row keep their best option when there are many
    for keep in (3, 2, 1):  # many groups: groups outside the main row keep fewer options
        if math.prod(len(o) for o in opts) <= MAX_COMBOS:
            break
        for k, g in enumerate(groups):
            if g.row != 0:
                opts[k] = opts[k][:keep]
    # a named meld that matches no group apart is either among the concealed tiles or not photographed
    placements = list(itertools.product(("embedded", "off"), repeat=len(off)))
    nearest = None
    short = short if short is not None else [0.0]
    for combo in _best_combos(opts, MAX_COMBOS):
        wins = sum(1 for o in combo if o.winning is not None)
        if wins > 1:
            continue
        for pl in placements:
            emb = tuple(gm for gm, w in zip(off, pl) if w == "embedded")
            away = tuple(gm for gm, w in zip(off, pl) if w == "off")
            h = _Hyp(math.prod(o.prior for o in combo) * (0.9 ** len(emb)) * (0.5 ** len(away)),
                     tuple(combo), tuple(groups), given_map, off_photo=away, embedded=emb)
            c = _count(h)
            if c != need:
                key = (abs(c - need), -h.prior)
                if nearest is None or key < nearest[0]:
                    nearest = (key, c)
                if c < need:
                    short[0] = max(short[0], h.prior * MISSED_TILE ** (need - c))
                continue
            out.append(h)
    out.sort(key=lambda h: -h.prior)
    return out, (nearest[1] if nearest else None)


def _refuse_kong_shown_otherwise(gm: GivenMeld, groups: Sequence[GroupRoles], lay: Layout, logp: np.ndarray,
                                 backs: np.ndarray) -> None:
    """Raise :class:`HandError` when the kong ``gm`` matched no group because the photo shows it the
    other way: named exposed (``[2222m]``) but shown with face-down tiles, or named concealed
    (``(7777s)``) but shown as three or four tiles face up."""
    face = PLAYING_TILES[gm.tiles[0]]
    body = compact([face] * 4)
    for g in groups:
        gb = [bool(backs[p]) for p in g.tiles]
        reads = all(CLASS_NAMES[int(np.argmax(logp[p]))] == face for p, b in zip(g.tiles, gb) if not b)
        nums = number_spans(sorted(_numbers(lay)[p] for p in g.tiles))
        # (a new user's `--exposed "[777s] [2222m]"` on the demo: "[2222m] … is not in the photo: added to
        # the hand", its four tiles left out at 5 %)
        if not gm.concealed and len(g.tiles) == 4 and any(gb) and not all(gb) and reads:
            raise HandError(f"--exposed: the photo shows the kong {gm.notation} with face-down tiles "
                            f"(tiles {nums}): a concealed kong, written ({body})")
        # (`--exposed "(7777s) (2222m)"` on the demo, whose 7s lie face up: "a winning hand needs 14 tiles
        # …, found 11")
        if gm.concealed and len(g.tiles) in (3, 4) and not any(gb) and reads:
            raise HandError(f"--exposed: the photo shows the kong {gm.notation} face up (tiles {nums}): an "
                            f"exposed kong, written [{body}] (a concealed kong shows face-down tiles)")


#: a reading with melds named by ``--exposed`` that is not legal points at the melds, not at the least sure tiles, when
#: each of those is read this sure or more
NAMED_FIRST = 0.95


#: the hand sizes (tiles, without the winning one) that the rulesets play
HAND_SIZES = (13, 16)


def _left_in_rows(lay: Layout, roles: Sequence[str]) -> list[int]:
    """The tile numbers of the boxes of the hand's rows that ``roles`` leave out (``ignored``), but those left out as
    asked (:attr:`Layout.excluded`: the user's ``--fix POS=-``, a reviewer's)."""
    num = _numbers(lay)
    return [num[p] for p in lay.geometry.hand_tiles if roles[p] == "ignored" and p in num and p not in lay.excluded]


def _other_size_hint(found: int, rs: Ruleset, left: Sequence[int] = ()) -> str:
    """A hint for a tile count that is another hand size's (with or without its winning tile): a
    13-tile game's photo scored under a 16-tile ruleset is short by three, not by missed tiles. ``left``: the
    numbers of the boxes left out in the hand's rows, named as the other way the count may be short (a phone
    tester's 16-tile hand, its concealed kong's three boxes left out, was asked only whether the ruleset was
    right)."""
    for size in HAND_SIZES:
        if size != rs.hand_size and found in (size, size + 1):
            return (f"; {found} tiles is a {size}-tile game's hand{' with its winning tile' if found == size + 1 else ''}"
                    f", and {rs.id} plays {rs.hand_size}-tile hands: is it the right ruleset? "
                    f"(--ruleset; `mahjong-score rules` lists them)"
                    + (f"; if it is, check the boxes left out in the hand's rows (tiles {number_spans(sorted(left))}):"
                       f" some may be the hand's, misread or beside a face-down tile not boxed"
                       if left and found < rs.hand_size + 1 else ""))
    return ""


def number_after_hand(order: Sequence[int], roles: Sequence[str], playing: bool = False) -> int:
    """The tile number just after the last one in the hand (``order``: detection indices in number
    order; ``roles`` per detection): where a tile given with ``--add`` joins the hand's row. Boxes
    left out of the hand are numbered after its tiles, and a tile added beside one of them would be
    left out with it. ``playing``: for a playing tile, the bonus tiles that end the numbering right after
    a concealed tile (flowers laid at the end of the concealed row) are passed over, so the tile goes
    before them: a tester's 1s added after such a 2f made 1s 2f 1s a group of four, read as an exposed meld."""
    last = max((k for k, p in enumerate(order) if roles[p] != "ignored"), default=-1)
    if playing:
        k = last
        while k >= 0 and roles[order[k]] == "bonus":
            k -= 1
        if k < last and k >= 0 and roles[order[k]] in ("concealed", "winning"):
            last = k
    return last + 2


#: the confidence (0..1) below which a legal reading is unsure: `batch` flags it needs-review (its
#: ``--review-below`` default, re-exported as :data:`vision.batch.REVIEW_BELOW`), `audit` says UNSURE, `table`
#: settles with it provisionally and the history records it so (:func:`vision.record.reading_status`)
REVIEW_BELOW = 0.8


def format_confidence(p: float) -> str:
    """A reading's confidence (0..1) as shown to the user: ``"83%"``; ``">99%"`` from 0.995 up, never
    ``"100%"`` (it is the search's estimate over the readings it met, and a referee reads "100%" as
    certain); ``"<1%"`` above 0 and below 0.005. Halves round up, ``floor(100 p + 0.5)``, as the web
    page's ``Math.round`` does (``f"{p:.0%}"`` rounds 0.125 to 12 %, the page to 13 %)."""
    p = float(p)
    if p >= 0.995:
        return ">99%"
    if 0.0 < p < 0.005:
        return "<1%"
    return f"{math.floor(p * 100 + 0.5)}%"


def format_confidence_below(p: float, line: float) -> str:
    """A confidence ``p`` (0..1) said beside the ``line`` (0..1) it falls short of, as :func:`format_confidence`
    unless that rounds to the line's own figure: then to a tenth of a percent, rounded down (0.799 against
    0.8 is ``"79.9%"``; a referee read "only 80% sure (below 80%)" as a contradiction)."""
    shown = format_confidence(p)
    if p < line and shown == format_confidence(line):
        shown = f"{math.floor(float(p) * 1000) / 10:.1f}%"
    return shown


def confidence_value(p: float) -> float:
    """A reading's confidence (0..1) as a number in the files a referee opens (the batch CSV, the
    history, a settlement's sources): four significant digits (a 3.2e-6 stays "<1%", not 0), at most
    0.9999. Never 1.0, as :func:`format_confidence` never says "100%": a 0.99996 had been written 1.0
    beside a page that said ">99%"."""
    p = float(p)
    return min(max(float(f"{p:.4g}"), 0.0), 0.9999) + 0.0 if math.isfinite(p) else 0.0  # (+ 0.0: no -0.0)


# ----------------------------------------------------------------------------- decoding
def _log_probs(readings: TileReadings) -> np.ndarray:
    return np.log(np.maximum(readings.probs.astype(np.float64), EPS))


def decode(lay: Layout, readings: TileReadings, ruleset: Ruleset | str, context: Context | None = None,
           *, winning_tile: str | None = None, exposed: str | Sequence[GivenMeld] | None = None,
           options: Mapping[str, object] | None = None, face_down: Sequence[bool] | None = None,
           tile_count: int | None = None) -> Reading:
    """The most probable legal reading of the hand (see the module docstring).

    * ``lay``: :class:`~vision.layout.Layout`; ``readings``: per-tile probabilities;
    * ``ruleset``: id or :class:`~scoring.engine.Ruleset` (its ``hand_size`` and ``shapes``);
    * ``context``: :class:`scoring.Context` (``winner`` decides 14/17 vs 13/16 tiles);
    * ``winning_tile``: e.g. ``"5p"``: the hand's winning tile, which must be among the concealed
      tiles read (overrides the tile the layout marked; no tile's reading is changed to match it);
    * ``exposed``: notation ``"[777p] (1111s)"`` or parsed :class:`GivenMeld` values (they replace the
      layout's melds), or ``"none"``: nothing on the table, every group is read as concealed tiles;
    * ``options``: ruleset options passed to :func:`scoring.score_hand` for validation;
    * ``face_down``: per detection, True for a tile showing its back (default: from the pose);
    * ``tile_count``: the number of tiles (each kong 3) the hand must have, for a dead hand's other count
      (rode-draak 001:108; :func:`vision.pipeline` asks for it); default the ruleset's hand size, + 1 for
      a winner.

    Never raises for an illegal reading (``legal`` is False and ``problem`` says why); raises
    :class:`~scoring.HandError` for a malformed ``winning_tile``/``exposed``, a context flag the
    ruleset does not know, or circumstances the chosen reading contradicts
    (:func:`scoring.hand.check_context`: first turn with an exposed meld, kong on kong without two
    kongs, a dead-wall win with no kong and no bonus tile, a robbed kong's tile held twice), and
    :class:`~scoring.RulesetError` for an unknown ruleset.
    """
    rs = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    ctx = context or Context()
    check_flags(rs, ctx)  # an unknown flag is the user's error, not "no legal reading"
    winner = ctx.winner
    n = len(readings)
    raw = readings.codes
    logp = _log_probs(readings)
    backs = np.array(face_down if face_down is not None else [p == "face-down" for p in readings.pose], bool)
    no_melds = isinstance(exposed, str) and exposed.strip().lower() == "none"  # nothing on the table
    given = () if no_melds else parse_exposed(exposed) if isinstance(exposed, str) else tuple(exposed or ())
    override = bool(given) or no_melds  # the user's melds replace the layout's
    forced_win: int | None = None
    if winning_tile is not None:
        wt = winning_tile = parse_winning_tile(winning_tile)  # (its notes name "5p" where "5P" was typed)
        if not winner:
            raise HandError("a non-winning hand has no winning tile")
        forced_win = PLAYING_TILES.index(wt)
    need = tile_count if tile_count is not None else rs.hand_size + (1 if winner else 0)
    short, neighbours = [0.0], [0.0]
    preferred: list[Option] = []
    if given:
        lay = _split_for_named(lay, given, logp, backs)
    hyps, nearest = _hypotheses(lay, need, winner, given, logp, backs, override, short, neighbours, preferred)
    # bonus tiles: best bonus class per tile, each bonus tile once (plus, per hypothesis, single
    # tiles the layout offered as possible bonus tiles)
    bonus_codes = _assign_bonus(lay.bonus, logp)
    best: tuple | None = None  # (score, hyp, units, idx, logp_sum, raw_sum, hand, legal_mass)
    budget = {"readings": MAX_READINGS_TOTAL, "scorer": MAX_SCORER_CALLS}
    for h in hyps[:MAX_HYPOTHESES]:
        lprior = math.log(max(h.prior, EPS))
        if best is not None and lprior < best[0]:
            break
        extra = [p for g, o in zip(h.groups, h.choices) if o.role == "bonus" for p in g.tiles]
        h.bonus_codes = _assign_bonus(list(lay.bonus) + extra, logp) if extra else bonus_codes
        # a bonus tile's role is weighed by its probability of being any flower or season (which one
        # changes the hand's points, not its tiles: :func:`_bonus_sureness` weighs that), against the
        # larger of its best reading and that (so a sure flower costs nothing, and no hypothesis scores
        # above its prior). All eight faces count, also those other bonus tiles were given: the
        # classifier tells the faces apart least well (a real 2f read 3y), so a tile leaning to a face
        # another one shows is as likely a bonus tile misread as a loose tile (measured: counting only
        # the faces left free made one more reading of the held-out columns set confidently wrong)
        mass = {p: float(np.logaddexp.reduce(logp[p, BONUS_INDEX])) for p in h.bonus_codes}
        bonus_lp = sum(mass.values())
        bonus_raw = sum(max(float(logp[p].max()), lp) for p, lp in mass.items())
        units, raw_sum = _units(h, logp, backs, forced_win)
        if units is None:
            continue
        found = _search(h, units, raw_sum + bonus_raw, bonus_lp, lprior, best[0] if best else None,
                        rs, ctx, h.bonus_codes, forced_win, options, budget)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is not None and best[0] - math.log(max(best[1].prior, EPS)) >= math.log(MIN_RELATIVE):
        reading = _reading_from(best, raw, n, lay, best[1].bonus_codes)
        # the reading competes with "tiles of the hand were not detected": role hypotheses with too few
        # tiles, as read (a legal reading that rests on unlikely roles, e.g. loose tiles far from the
        # row filling a gap, is then not called sure)
        m_best = math.exp(best[0])
        if short[0] > 0:
            share = m_best / (m_best + short[0])
            reading = replace(reading, confidence=reading.confidence * share)
            if share < 0.5:
                reading = replace(reading, notes=reading.notes + (
                    f"unsure: the roles this reading needs are less likely ({share:.0%}) than a hand tile "
                    f"not being detected; check the tiles outside the main row",))
        reading = _unread_sureness(_bonus_sureness(reading, best[1].bonus_codes, readings, lay), readings, lay)
        if not override:  # (the melds the user named may force a change, and name their faces: theirs to say)
            reading = _changed_sureness(reading, readings, lay)
            reading = _alike_sureness(reading, readings, lay)
            reading = _faceless_kong_note(reading, lay, readings)
        if not override and forced_win is None:  # (the forced winning tile's doubt weighs a meld made concealed)
            reading = _broken_group_sureness(reading, lay)
        reading = _left_out_sureness(reading, readings, lay)
        if not override:
            reading = _one_back_kong_sureness(reading, backs, lay)
            reading = _among_concealed_sureness(reading, lay)
            reading = _other_row_sureness(reading, lay, rs)
            reading = _claimed_in_row_sureness(reading, lay, rs, readings)
            reading = _stacked_kong_sureness(reading, lay, readings)
            reading = _boxed_twice_sureness(reading, lay, readings)
            reading = _beside_left_out_sureness(reading, readings, lay, winner)
        if forced_win is not None and not override:  # (melds named: the others are as said, docs/photo.md)
            reading = _forced_win_sureness(reading, lay, PLAYING_TILES[forced_win])
        if not override:
            reading = _left_out_melds_sureness(reading, readings, lay, rs, winner)
        if given:
            # when each named meld matched a group set apart, a group the layout takes for a meld may be a
            # gap in the concealed row, and counts half as much (a new user's `--exposed "(2222m)"` on the
            # demo read its [777s] set apart as concealed, 2 points more, at 99 %, without a word)
            unmatched = bool(best[1].off_photo or best[1].embedded)
            missed = _unnamed_melds(reading.roles, readings, lay)
            reading = _unnamed_melds_sureness(reading, [gm for gm in given if gm not in best[1].off_photo],
                                              1.0 if unmatched else ALL_NAMED_SHARE, missed)
            at = {k: t for t, k in _numbers(lay).items()}
            said = [at[k] for nums, _, _ in missed for k in nums if k in at]
            reading = _beyond_named_sureness(reading, lay, rs, skip=said)
        reading = replace(reading, neighbours=neighbours[0])
        if _counted_changes(reading) <= MAX_CHANGED:
            try:  # --first-turn / --kong-on-kong against the melds the photo shows: the user's error
                check_context(reading.hand)
            except HandError as e:  # (a CircumstanceError stays one: a batch names the row's flags cells for it)
                raise type(e)(f"{e} (the photo reads {reading.notation})") from None
            return reading
        return _raw_reading(lay, readings, hyps, need, raw, n, bonus_codes, rs, ctx, nearest, backs, override,
                            nearest_legal=reading, preferred=preferred, winning_tile=winning_tile, named=given)
    return _raw_reading(lay, readings, hyps, need, raw, n, bonus_codes, rs, ctx, nearest, backs, override,
                        preferred=preferred, winning_tile=winning_tile, named=given)


def _counted_changes(reading: Reading) -> int:
    """How many of ``reading``'s changed tiles count against :data:`MAX_CHANGED`: all but a flower or season
    read as another flower or season. A set holds each of the eight faces once, so a column of eight bonus
    tiles read with two 2f has one of them changed by the set itself, not by a guess; those doubts make the
    reading less sure instead (:func:`_bonus_sureness`). (A real-crop composite's eight bonus tiles, all boxed
    by the quarter-turned pass, read 2f 4f 3y 1f 3y 2f 4f 3f: three faces changed and a 1s read as a flower
    made four, and the thirteen orphans were refused.)"""
    return sum(1 for p in reading.changed
               if not (reading.raw[p] in BONUS_TILES and reading.tiles[p] in BONUS_TILES))


#: the words of :func:`_forced_win_sureness`'s note (the confidence line points at it)
FORCED_WIN_NOTE = ", but are read as concealed"


def _forced_win_sureness(reading: Reading, lay: Layout, winning_tile: str) -> Reading:
    """``reading`` with its confidence × the prior of the concealed role, over its and the exposed
    role's, for each group set apart as an exposed meld (its likeliest role) that the reading takes
    into the concealed hand, and a note naming it: the winning tile the user gave (``--winning-tile``)
    must be a concealed tile, and a reading that makes an exposed-looking pung concealed for it (a
    tester's `--winning-tile 7s --win-by wall` on the demo scored its [777s] as a concealed pung and the
    hand fully concealed, 176 points against 40, at 99 %) contradicts the photo or the user."""
    num = _numbers(lay)
    conf, notes = reading.confidence, list(reading.notes)
    for g in lay.groups:
        top = max(g.options, key=lambda o: o.prior) if g.options else None
        if top is None or top.role != "exposed" or not all(reading.roles[p] in ("concealed", "winning")
                                                             for p in g.tiles):
            continue
        alt = max((o.prior for o in g.options if o.role == "concealed"), default=0.0)
        conf *= alt / (alt + top.prior) if alt + top.prior > 0 else 0.5
        nums = sorted(num[p] for p in g.tiles)
        notes.append(f"tiles {number_spans(nums)} lie set apart as an exposed meld ({top.why}){FORCED_WIN_NOTE}: "
                     f"the winning tile {winning_tile} given with --winning-tile must be a concealed "
                     f"tile; if the meld is exposed, the winning tile is another (or name the melds with "
                     f"--exposed)")
    return replace(reading, confidence=conf, notes=tuple(notes))


#: a bonus tile's odds of being the flower rather than the season of its number (or the reverse), as the picture
#: alone reads them, are raised to this power in its share of the reading's confidence (:func:`_bonus_sureness`):
#: on unseen sets the classifier tells flowers from seasons least well (the bonus evaluation sets: of the legal
#: readings with bonus tiles, 14 of 35 had a flower/season of the right number read as the other kind, one at
#: 81 %; a phone tester's 夏 season read 2f at 84 %, numeral read, not its character). A character read by the
#: glyph reader (梅 蘭 菊 竹 / 春 夏 秋 冬) leaves the odds as they are. The tile's share of its kind: 0.99 : 0.001 stays
#: 97 %; 0.84 : 0.11 goes from 88 % to 73 % (that reading's confidence from 84 % to 70 %).
KIND_ODDS_POWER = 0.5


def _bonus_sureness(reading: Reading, bonus_codes: Mapping[int, str], readings: TileReadings, lay: Layout) -> Reading:
    """``reading`` with its confidence × the chance that each bonus tile is the flower or season it
    was given (its probability over the eight bonus classes' total: the classifier tells the bonus
    faces apart least well, and they change the hand's points), each such factor kept in
    :attr:`Reading.bonus_faces`, and a note naming a bonus tile under 60 % with its likeliest faces (a face
    another bonus tile was given named with that tile)."""
    if not bonus_codes:
        return reading
    from .glyphs import BONUS_GLYPHS

    num = _numbers(lay)
    conf, notes = reading.confidence, list(reading.notes)
    faces = []
    for p, code in bonus_codes.items():
        total = float(readings.probs[p, BONUS_INDEX].astype(np.float64).sum())
        share = float(readings.probs[p, CLASS_INDEX[code]]) / total if total > 0 else 1.0
        said = share  # (the note below names the faces as the picture read them)
        read = readings.glyphs[p] if p < len(readings.glyphs) else ""
        if share > 0 and not any(ch in read for ch in BONUS_GLYPHS[code]):
            # flower or season of its number: the picture alone says which (no 梅/春… read), and on sets the
            # classifier never saw it says so too surely: its odds are softened (KIND_ODDS_POWER)
            other = code[0] + ("y" if code[1] == "f" else "f")
            mine, theirs = float(readings.probs[p, CLASS_INDEX[code]]), float(readings.probs[p, CLASS_INDEX[other]])
            if theirs > 0 and mine > theirs:
                odds = mine / theirs
                soft = odds ** KIND_ODDS_POWER
                share *= (soft / (1 + soft)) / (odds / (1 + odds))
        conf *= share
        if share < 1.0:
            faces.append((p, share))
        if said < 0.6:
            # its likeliest faces; one another bonus tile was given says which (each is in a set once)
            holder = {c: q for q, c in bonus_codes.items() if q != p}
            pb = readings.probs[p, BONUS_INDEX].astype(np.float64)
            # (on a tie, a face no other bonus tile was given first)
            alt = sorted(zip(pb / max(total, EPS), BONUS_TILES), key=lambda x: (x[0], x[1] not in holder),
                         reverse=True)[:3]
            notes.append(f"unsure which bonus tile tile {num.get(p, '?')} is: "
                         + ", ".join(f"{c} {q:.0%}" + (f" (tile {num.get(holder[c], '?')} is read {c})" if c in holder else "")
                                     for q, c in alt) + " (correct it with --fix)")
    return replace(reading, confidence=conf, notes=tuple(notes), bonus_faces=reading.bonus_faces + tuple(faces))


def loose_bonus_note(tiles: Sequence[tuple[int, str]], where: str, p_in: float, after: int,
                     held: Iterable[str] = (), offered: Iterable[str] = ()) -> str:
    """The note of :func:`_left_out_sureness` on flowers/seasons left out as loose tiles, one line for a
    group (some 230 characters for five tiles): ``tiles`` their (tile number, likeliest flower/season)
    pairs, ``where`` ``near the hand`` or ``away from the hand``, ``p_in`` their prior (0..1) of being the
    hand's, ``after`` the first tile number its ``--add`` uses (:func:`number_after_hand`, or past what an
    earlier note's ``--add`` uses), ``held`` the faces the hand's bonus tiles show already, ``offered``
    those an earlier note's ``--add`` adds (skipped, so that the notes' commands pasted together work).

    It gives both ways out as commands to paste, the likelier first: ``--fix N=-`` of each tile, which says
    they are not the hand's and takes the doubt away (the layout leaves out only what is under 50 % the
    hand's; three phone photos' neighbours' flowers, 20 %, were counted by a referee pasting the note's first
    command, ``--add``, when it came first, and read sure and wrong; a club referee's audit had stayed UNSURE
    at 69 % with a loose season the note told only how to add, and ``--fix 25=-`` made it > 99 %), then
    ``--add`` of every face it can, one after the other from ``after`` on (a face the hand holds, or a second
    tile of a face, cannot be added: a set holds each face once, and ``--add`` refuses it; the note says
    which it skips and why). What
    ``--add POS=TILE`` does and where the example puts the tiles is in docs/photo.md, not in each note
    (three notes of some 600 characters each had said it over again under one photo). The web page
    (app.js ``PAGE_WORDS``) and the batch (:data:`vision.batch_outputs.MANIFEST_WORDS`) say it in their own
    words by matching this text. Raises nothing."""
    tiles = sorted(tiles)
    held, offered = set(held), set(offered) - set(held)
    one = len(tiles) == 1
    them = "it" if one else "them"
    faces = [f for _, f in tiles]
    adds = loose_bonus_adds(faces, held | offered)
    has = [f for f in dict.fromkeys(faces) if f in held]  # (skipped: the hand holds them)
    above = [f for f in dict.fromkeys(faces) if f in offered]  # (skipped: an earlier note adds them)
    twice = [f for f in adds if faces.count(f) > 1]  # (added once)
    skipped = ([f"{' '.join(has)}: the hand has {'it' if len(has) == 1 else 'them'}"] if has else []) + (
        [f"{' '.join(above)}: added above"] if above else []) + (
        [f"{' '.join(twice)} once: a set has one of each"] if twice else [])
    count = ""
    if adds:
        why = f" ({'; '.join(skipped)})" if skipped else ""
        count = f", or count {them} with --add {','.join(f'{after + k}={f}' for k, f in enumerate(adds))}{why}"
    elif above:  # every face is added by an earlier note's --add
        count = f", or count {them} with the --add above ({' '.join(above)})"
    drops = ",".join(f"{n}={DROP}" for n, _ in tiles)
    return (f"unsure: {_tiles_span([n for n, _ in tiles])} ({' '.join(faces)}) {where}, left out as "
            f"{'a loose flower/season' if one else 'loose flowers/seasons'} ({p_in:.0%} that "
            f"{'it is' if one else 'they are'} the hand's): leave {them} out with --fix {drops}{count}")


def loose_bonus_adds(faces: Sequence[str], skip: Iterable[str]) -> list[str]:
    """The faces :func:`loose_bonus_note`'s ``--add`` adds: each of ``faces`` once, in order, but those in
    ``skip`` (held by the hand, or added by an earlier note)."""
    skip = set(skip)
    return [f for f in dict.fromkeys(faces) if f not in skip]


#: a concealed kong read from three face-up tiles and one face-down one (a concealed kong is shown with two
#: face-down or all four; three face-up alike tiles beside one face-down box are as likely a pung with a stray
#: face-down tile or object touching it) is only this sure (:func:`_one_back_kong_sureness`)
ONE_BACK_KONG = 0.5
#: a reading's confidence is × this when its exposed melds lie among the concealed tiles of their row
#: (:func:`_among_concealed_sureness`)
AMONG_CONCEALED = 0.5
#: the words of its note (the confidence line points at it)
AMONG_CONCEALED_NOTE = "lie apart like exposed melds, but among the concealed tiles of their row"
AMONG_CONCEALED_ONE = "lie apart like an exposed meld, but among the concealed tiles of their row"


def _among_concealed_sureness(reading: Reading, lay: Layout) -> Reading:
    """``reading`` with its confidence × :data:`AMONG_CONCEALED` when a group it reads as an exposed meld (a group
    set apart, which the layout offered as concealed tiles too) lies between concealed tiles of its row, or
    exposed melds lie on both sides of the row's concealed tiles, or the row's concealed tiles are themselves split
    by gaps into two groups of two or more, and a note naming them with the way out. The
    concealed tiles are laid touching and the melds beside them (docs/photo.md); a hand laid out in sets, its
    concealed tiles split by gaps like a meld's, tells nothing of which groups are exposed: a tester's concealed
    123456m 555p 77s 666z, each suit a finger apart, was read with [555p] exposed at > 99 %, 52 points for 56.
    The winning tile, bonus tiles and concealed kongs are not counted on either side. Not applied to melds the
    user named (``--exposed``)."""
    geo = lay.geometry
    num = _numbers(lay)
    doubtful: list[int] = []
    count = 0  # (the melds named: one is "an exposed meld")
    for r in geo.hand_rows:
        along = {t: k for k, t in enumerate(geo.row_tiles(r))}
        conc = [along[t] for t in along if reading.roles[t] == "concealed"]
        melds = [g for g in lay.groups if g.row == r and g.tiles and all(t in along for t in g.tiles)
                 and all(reading.roles[t] == "exposed" for t in g.tiles)
                 and any(o.role == "concealed" for o in g.options)]
        if not conc or not melds:
            continue
        first, last = min(conc), max(conc)
        before = [g for g in melds if max(along[t] for t in g.tiles) < first]
        after = [g for g in melds if min(along[t] for t in g.tiles) > last]
        between = [g for g in melds if g not in before and g not in after]
        # (the concealed tiles themselves split by gaps, two groups of two or more: a reviewer's 555m laid first, then
        # 123456p, 77s and 66z each a finger apart, read [555m] at > 99 %)
        split = sum(1 for g in lay.groups if g.row == r and len(g.tiles) >= 2
                    and all(t in along and reading.roles[t] == "concealed" for t in g.tiles)) >= 2
        if between or (before and after) or split:
            doubtful.extend(t for g in melds for t in g.tiles)
            count += len(melds)
    if not doubtful:
        return reading
    nums = sorted(num[t] for t in doubtful)
    words = AMONG_CONCEALED_NOTE if count > 1 else AMONG_CONCEALED_ONE
    note = (f"unsure: tiles {number_spans(nums)} {words} (the concealed tiles are laid touching, the exposed melds "
            f"beside them): if they are concealed tiles (a hand laid out in sets), "
            f"name the melds on the table with --exposed, or give --exposed none")
    return replace(reading, confidence=reading.confidence * AMONG_CONCEALED, notes=reading.notes + (note,))


#: a reading's confidence is × this when three or four concealed tiles of one face lie together in a row, one of them
#: laid sideways and not the winning tile, or three in a run of one suit (a chow): a claimed meld, laid beside the
#: concealed tiles
#: (:func:`_claimed_in_row_sureness`)
CLAIMED_IN_ROW = 0.5
#: the words of its note
CLAIMED_IN_ROW_NOTE = "hold a tile laid sideways, as a claimed"


def _claimed_in_row_sureness(reading: Reading, lay: Layout, rs: Ruleset,
                             readings: TileReadings | None = None) -> Reading:
    """``reading`` with its confidence × :data:`CLAIMED_IN_ROW` for each run of three or four tiles of one face, or
    three of one suit whose ranks follow on (a chow, :func:`_is_run`), side by side in a row of the hand and read as
    concealed tiles, that holds a tile laid sideways, and one note naming them: a pung or kong is laid so when claimed (docs/photo.md), one of its tiles turned. A literal tester's photo,
    its [333z] laid next to a concealed kong with its middle tile sideways, read as a concealed 333z after the kong's
    backs were added: > 99 %, 39 points for 29. Only a run the hand still makes a legal hand with as an exposed pung
    (three) or kong (four) under ``rs``, and not of the winning tile's face (the winning tile may be the one laid
    sideways: a reviewer's 5z 5z 3z 3z 3z, won on 3z, was held at 50 %). The note's ``--exposed`` names every meld on
    the table — the reading's own and every such run, as ``--exposed`` takes them all (a reviewer's two runs, each
    note naming its own, read the other concealed at 100 % when pasted) — and offers ``--exposed none``. Not applied
    to melds the user named (``--exposed``). A tile is laid sideways when its box says so (:attr:`Geometry.sideways`)
    and, given ``readings``, the classifier read it turned so too (a phone tester's nine-gates hand, one 1p boxed short
    in lamp light, its face read upright, had been held at 48 %)."""
    geo = lay.geometry
    hand = reading.hand
    if not any(geo.sideways) or not reading.legal or hand is None:
        return reading

    def sideways(t: int) -> bool:
        return bool(geo.sideways[t]) and (readings is None or t >= len(readings.pose)
                                          or readings.pose[t] == "sideways")

    def turned(t: int) -> bool:  # (… or, for a chow, read turned by the classifier in a box the row placed afterwards:
        # a sideways tile boxed as two upright halves, a phone tester's claimed 7m, the other half left out)
        return sideways(t) or (readings is not None and t < len(readings.pose) and readings.pose[t] == "sideways"
                               and t < len(geo.main_extent) and geo.main_extent[t] is None)

    num = _numbers(lay)
    runs: list[tuple[list[int], str]] = []
    named = set(reading.other_row)  # (named with their row's sets already)
    for r in geo.hand_rows:
        row = [t for t in geo.row_tiles(r) if t not in named]
        k = 0
        while k < len(row):
            face = reading.tiles[row[k]]
            j = k
            while (j < len(row) and reading.roles[row[j]] == "concealed" and face not in (None, BACK)
                   and reading.tiles[row[j]] == face):
                j += 1
            run = row[k:j]
            if (3 <= len(run) <= 4 and any(sideways(t) for t in run) and face != hand.winning_tile
                    and _claimable(hand, [face] * len(run), rs)):
                runs.append((run, face))
            k = max(j, k + 1)
        # (a chow too: three concealed tiles in a run of one suit side by side, one laid sideways — a phone tester's
        # [7m^ 8m 9m] laid on the concealed row's line, left of it, read as concealed tiles at 91 %, 112 for 96)
        taken = {t for run, _ in runs for t in run}
        for k in range(len(row) - 2):
            win = row[k:k + 3]
            faces = [reading.tiles[t] for t in win]
            # (a turned tile of the winning tile's face may be the winning tile laid sideways, as for pungs)
            if (taken.intersection(win) or any(reading.roles[t] != "concealed" for t in win)
                    or not any(turned(t) and reading.tiles[t] != hand.winning_tile for t in win) or not _is_run(faces)
                    or not _claimable(hand, faces, rs)):
                continue
            runs.append((win, ""))
            taken.update(win)
    if not runs:
        return reading
    runs.sort(key=lambda rf: min(rf[0]))

    # (with the melds of the row the note before named, where there is one: --exposed takes them all)
    row_sets = [run_meld(reading, reading.other_row[k:k + 3]) for k in range(0, len(reading.other_row), 3)]
    named = " ".join([m.notation() for m in reading.melds] + row_sets + [run_meld(reading, run) for run, _ in runs])
    spans = [f"{number_spans(sorted(num[t] for t in run))} ({' '.join(reading.tiles[t] for t in run)})"
             for run, _ in runs]
    one = len(runs) == 1
    what = ("chow" if not runs[0][1] else "pung" if len(runs[0][0]) == 3 else "kong") if one else "meld"
    # (the tiles beyond a run, at the row's end, that make whole sets: exposed too where it is, the concealed tiles
    # lying together — a phone tester's [111z][789m] left of the row, told to name [789m] alone, had [111z] read
    # concealed at > 99 %; :func:`_beyond_sets`)
    taken = [t for run, _ in runs for t in run]
    beyond = [g for run, _ in runs for g in _beyond_sets(reading, lay, rs, run, skip=taken)]
    also = ""
    if beyond:
        tiles = sorted((t for g in beyond for t in g), key=lambda t: num.get(t, 0))
        with_them = " ".join([run_meld(reading, g) for g in beyond] + [named])
        also = (f"; if tiles {number_spans(sorted(num[t] for t in tiles))} "
                f"({' '.join(reading.tiles[t] or '?' for t in tiles)}) beyond {'it' if one else 'them'}, at the end "
                f"of the row, are exposed too, with them: --exposed \"{with_them}\"")
    note = (f"unsure: tiles {' and '.join(spans)} {'' if one else 'each '}{CLAIMED_IN_ROW_NOTE} {what} is laid: if "
            f"{'it is' if one else 'they are'} exposed, name the melds on the table with --exposed \"{named}\"{also}; "
            f"if not, give --exposed none")
    return replace(reading, confidence=reading.confidence * CLAIMED_IN_ROW ** len(runs), notes=reading.notes + (note,),
                   claimed_runs=tuple(tuple(run) for run, _ in runs))


#: a reading's confidence is × this for each exposed pung with a tile that lies as a kong's fourth tile laid on top of
#: the pung does (:func:`_stacked_kong_sureness`): the fourth tile is then hidden under it, or it over the others
STACKED_KONG = 0.5
#: a tile of the pung lies on top when its box's top edge lies this many tile heights above those of the tiles beside
#: it in the pung (on the mean, and :data:`STACK_RISE_EACH` above each), and its box is taller than theirs by
#: :data:`STACK_TALLER` on the mean and not shorter than either (its bottom edge where theirs is: not a tile pushed
#: back); or when the pung's middle tile is read turned sideways by the classifier but its box is not sideways in shape
#: (:attr:`Geometry.sideways`): a fourth tile laid across the pung, its box the upright tile's under it. (A phone
#: tester's [9p 9p^ 9p] with the fourth 9p on the sideways one, its box 0.078 and 0.105 tile heights above its
#: neighbours' and 0.012 and 0.089 taller, had missed a bar set for each neighbour alone: [999p] at 91 %, 28 for 52)
STACK_RISE = 0.08
STACK_RISE_EACH = 0.05
STACK_TALLER = 0.03
#: … or when its top edge lies this many tile heights above each neighbour's, its box taller than each of theirs by
#: :data:`STACK_TALLER_ALONE`: the fourth tile boxed alone, raised by its thickness over the middle tile it hides (a
#: phone tester's [5m 5m 5m] so laid, its box 0.125 and 0.128 tile heights above its neighbours' and 0.02 and 0.028
#: taller, had been [555m] at > 99 %, 60 for 72; a tile pushed back in the row is boxed no taller, being further off)
STACK_RISE_ALONE = 0.10
STACK_TALLER_ALONE = 0.01
#: … the middle tile read sideways lies across the pung only when its box's top edge lies no more than this many tile
#: heights below those beside it
STACK_LOWER = 0.04
#: the words of its note
STACKED_KONG_NOTE = "as a kong's fourth tile laid on top does"


def _stacked_kong_sureness(reading: Reading, lay: Layout, readings: TileReadings | None = None) -> Reading:
    """``reading`` with its confidence × :data:`STACKED_KONG` for each exposed pung (three tiles of one face read as
    an exposed meld) holding a tile that lies on top of it (:data:`STACK_RISE`, :data:`STACK_TALLER`, measured on
    the boxes in the main row's frame, :attr:`Geometry.main_extent` and :attr:`Geometry.main_offset`; or its middle
    tile read sideways, ``readings.pose``, in a box that is not, nor lower than theirs, :data:`STACK_LOWER`), and one
    note naming them with the melds to give: an
    exposed kong is often shown as three tiles with its fourth laid on top, which the detector boxes as one
    (docs/photo.md, *Naming the melds*). A phone tester's [6666z] so laid was read as [666z] at > 99 %, 832 for 1216
    (rode-draak), and four more so, each sure once the tile the notes named was fixed. The note's ``--exposed`` names
    every meld on the table, each such pung as a kong. Not applied to melds the user named (``--exposed``). Raises
    nothing."""
    geo = lay.geometry
    hand = reading.hand
    if not reading.legal or hand is None or not geo.main_extent or not geo.main_offset:
        return reading
    ext, h = geo.main_extent, geo.tile_h
    if not h:
        return reading

    def edges(t: int) -> tuple[float, float] | None:  # (top and bottom edge across the row, pixels)
        if t >= len(ext) or ext[t] is None:
            return None
        c = geo.main_offset[t] * h
        return c - ext[t][2] / 2, c + ext[t][2] / 2

    def sideways(t: int) -> bool:
        return bool(geo.sideways[t]) or (readings is not None and t < len(readings.pose)
                                         and readings.pose[t] == "sideways")

    def on_top(k: int, tiles: tuple[int, ...]) -> bool:
        t = tiles[k]
        beside = [tiles[j] for j in (k - 1, k + 1) if 0 <= j < len(tiles)]
        e = edges(t)
        es = [edges(b) for b in beside]
        # (measured against upright tiles only: a claimed tile laid sideways is lower than the tiles beside it, which
        # then rise above it — a phone tester's [1z 1z^ 1z] had been held at 49 % for its end tile)
        if e is not None and all(x is not None for x in es) and not any(sideways(x) for x in [t, *beside]):
            rise = [(b[0] - e[0]) / h for b in es]
            taller = [((e[1] - e[0]) - (b[1] - b[0])) / h for b in es]
            if (min(rise) >= STACK_RISE_EACH and sum(rise) / len(rise) >= STACK_RISE and min(taller) >= 0
                    and sum(taller) / len(taller) >= STACK_TALLER):
                return True
            if min(rise) >= STACK_RISE_ALONE and min(taller) >= STACK_TALLER_ALONE:
                return True
        # (a fourth tile laid across the pung's middle tile: read turned, in a box neither sideways in shape nor lower
        # than the tiles beside it — the upright tile under it reaches as high as they do; a claimed tile laid sideways
        # in the middle is lower than they are, a tester's blurred [1p 1p^ 1p] held at 50 % had been taken so)
        return (k == 1 and readings is not None and t < len(readings.pose) and readings.pose[t] == "sideways"
                and not geo.sideways[t] and e is not None and all(x is not None for x in es)
                and all(e[0] - b[0] <= STACK_LOWER * h for b in es))

    num = _numbers(lay)
    found: list[tuple[tuple[int, ...], int, str]] = []  # (the pung's detection indices, the tile on top, the face)
    for g in geo.groups:
        tiles = g.tiles
        if len(tiles) != 3 or any(reading.roles[t] != "exposed" for t in tiles):
            continue
        face = reading.tiles[tiles[0]]
        if face in (None, BACK) or any(reading.tiles[t] != face for t in tiles):
            continue
        for k, t in enumerate(tiles):
            if on_top(k, tiles):
                found.append((tuple(tiles), t, face))
                break
    if not found:
        return reading
    stacked = tuple((g, t) for g, t, _ in found)
    one = len(found) == 1
    note = (f"unsure: {stacked_spans(reading, stacked, num)}, read as {'an exposed pung' if one else 'exposed pungs'}, "
            f"{'lies' if one else 'each lie'} over the tiles beside {'it' if one else 'them'} {STACKED_KONG_NOTE}: if "
            f"{'it is a kong' if one else 'they are kongs'}, name the melds on the table with --exposed "
            f"\"{stacked_melds(reading, stacked)}\"")
    if reading.claimed_runs:
        # (the runs holding a sideways tile that the note before names, exposed too: each note's --exposed names its
        # own change alone, and a phone tester's [1111p] (a fourth 1p on top) beside [333s] (its claimed tile
        # sideways) was read right only once the two were joined by hand)
        runs = reading.claimed_runs
        both = " ".join([stacked_melds(reading, stacked)] + [run_meld(reading, run) for run in runs])
        note += (f"; if tiles {' and '.join(number_spans(sorted(num[t] for t in run)) for run in runs)} are exposed "
                 f"too (the note before), with both: --exposed \"{both}\"")
    return replace(reading, confidence=reading.confidence * STACKED_KONG ** len(found), notes=reading.notes + (note,),
                   stacked=stacked)


def stacked_spans(reading: Reading, stacked: Sequence[tuple[tuple[int, ...], int]], num: Mapping[int, int]) -> str:
    """The tiles of :attr:`Reading.stacked` (``stacked``: each pung's detection indices and its tile lying on top) as
    the notes name them, numbered by ``num`` (detection index → tile number): "tile 13 (6z) of tiles 12-14", joined
    with " and ". Raises nothing."""
    return " and ".join(f"tile {num[t]} ({reading.tiles[t]}) of tiles {number_spans(sorted(num[x] for x in g))}"
                        for g, t in stacked)


def stacked_melds(reading: Reading, stacked: Sequence[tuple[tuple[int, ...], int]]) -> str:
    """The melds on the table of ``reading``, each exposed pung of ``stacked`` (:attr:`Reading.stacked`) written as a
    kong, as ``--exposed`` takes them: "(9999s) [2222z] [678m]". Raises nothing."""
    kongs = {reading.tiles[t] for _, t in stacked}
    return " ".join(f"[{m.tile[0] * 4}{m.tile[1]}]" if m.kind == "pung" and not m.concealed and m.tile in kongs
                    else m.notation() for m in reading.melds)


#: a reading's confidence is × this when the tiles of a row of the hand other than the concealed row (a row in front
#: of it or behind it) are all read as concealed tiles, and make whole sets in the order they lie — pungs or chows,
#: three by three — that the hand may have exposed (:func:`_other_row_sureness`): exposed melds laid touching, with no
#: gap between them, look so
OTHER_ROW = 0.5
#: the words of its note
OTHER_ROW_NOTE = "lie in a row of their own off the concealed row, and make whole sets"


def _other_row_sureness(reading: Reading, lay: Layout, rs: Ruleset) -> Reading:
    """``reading`` with its confidence × :data:`OTHER_ROW` when a row of the hand off its main row holds only
    tiles read as concealed (bonus tiles aside), three to twelve of them, that make pungs or chows three by three as
    they lie, and with them exposed the hand is one ``rs`` scores; and a note naming them with the melds to give
    (its tiles kept in ``other_row``: :func:`_claimed_in_row_sureness`, after it, names no run of them again — a phone
    tester's [4m 5m^ 6m][1p 1p 1p] had been told to name the chow alone). A phone tester's [999s][555z] laid touching in front
    of the concealed row was read as concealed pungs, 29 % sure for a tile left out; once that tile was set aside as
    the note said, 97 %, 76 points for 60. Not applied to melds the user named (``--exposed``). Raises nothing."""
    geo = lay.geometry
    hand = reading.hand
    if not reading.legal or hand is None or len(geo.hand_rows) < 2:
        return reading
    num = _numbers(lay)
    for r in geo.hand_rows:
        if r == geo.main_row:
            continue
        row = [t for t in geo.row_tiles(r) if reading.roles[t] != "bonus"]
        if not 3 <= len(row) <= 12 or len(row) % 3 or any(reading.roles[t] != "concealed" for t in row):
            continue
        sets = [row[k:k + 3] for k in range(0, len(row), 3)]
        faces = [[reading.tiles[t] for t in g] for g in sets]
        if not all((len(set(f)) == 1 and f[0] not in (None, BACK)) or _is_run(f) for f in faces):
            continue
        if not _claimable(hand, [x for f in faces for x in f], rs, sets=[list(f) for f in faces]):
            continue
        named = " ".join([m.notation() for m in reading.melds] + [run_meld(reading, g) for g in sets])
        note = (f"unsure: tiles {number_spans(sorted(num[t] for t in row))} "
                f"({' '.join(reading.tiles[t] for t in row)}) {OTHER_ROW_NOTE}, read as concealed tiles: if they are "
                f"exposed melds laid touching, name the melds on the table with --exposed \"{named}\"; if not, give "
                f"--exposed none")
        return replace(reading, confidence=reading.confidence * OTHER_ROW, notes=reading.notes + (note,),
                       other_row=tuple(row))
    return reading


#: a reading's confidence is × this when the tiles between a meld named with ``--exposed``, found among the tiles of a
#: row, and that row's nearer end are read as concealed tiles and make whole sets (:func:`_beyond_named_sureness`):
#: the concealed tiles lie together, the exposed melds at one end of them
BEYOND_NAMED = 0.5
#: the words of its note
BEYOND_NAMED_NOTE = "lie beyond the named meld"


def _beyond_sets(reading: Reading, lay: Layout, rs: Ruleset, meld: Sequence[int],
                 skip: Collection[int] = ()) -> list[list[int]]:
    """The sets (detection indices, three by three in the order they lie) of the tiles between the tiles ``meld``
    (detection indices, a meld on the table among the tiles of a row of the hand) and that row's nearer end, where
    they are read as concealed tiles, fewer than lie beyond its other end, and make pungs or chows three by three as
    they lie, which the hand may have exposed (:func:`_claimable`); [] where they do not. Tiles left out, bonus
    tiles, exposed melds' tiles and ``skip`` are passed over. The concealed tiles of a hand lie together, its exposed
    melds at one end (docs/photo.md): a pung at the end of the row, beyond a claimed chow, is exposed too, or the
    concealed tiles would lie on both sides of it. Raises nothing."""
    geo = lay.geometry
    hand = reading.hand
    if hand is None:
        return []
    for r in geo.hand_rows:
        row = [t for t in geo.row_tiles(r) if reading.roles[t] not in ("ignored", "bonus")]
        if not all(t in row for t in meld):
            continue
        at = sorted(row.index(t) for t in meld)
        if at[-1] - at[0] != len(meld) - 1:
            return []
        sides = [row[:at[0]], row[at[-1] + 1:]]
        near, far = sorted(sides, key=len)
        near = [t for t in near if reading.roles[t] not in ("exposed", "concealed-kong")]
        if (not near or len(near) >= len(far) or len(near) % 3 or len(near) > 9 or set(near) & set(skip)
                or any(reading.roles[t] != "concealed" for t in near)):
            return []
        sets = [near[k:k + 3] for k in range(0, len(near), 3)]
        faces = [[reading.tiles[t] for t in g] for g in sets]
        if not all((len(set(f)) == 1 and f[0] not in (None, BACK)) or _is_run(f) for f in faces):
            return []
        if not _claimable(hand, [x for f in faces for x in f], rs, sets=[list(f) for f in faces]):  # type: ignore[misc]
            return []
        return sets
    return []


def _beyond_named_sureness(reading: Reading, lay: Layout, rs: Ruleset, skip: Collection[int] = ()) -> Reading:
    """``reading`` with its confidence × :data:`BEYOND_NAMED` when tiles between an exposed meld named with
    ``--exposed`` and the nearer end of the row it lies in are read as concealed tiles and make whole sets the hand
    may have exposed (:func:`_beyond_sets`), and a note naming them with the melds to give. A phone tester's
    [111z][789m] laid touching left of the concealed row, told by the claimed chow's note to give ``--exposed
    "[789m]"``, had the [111z] beyond it read as a concealed pung at > 99 %, 112 points for 96. ``skip``: tiles
    another note names already (:func:`_unnamed_melds`). Raises nothing."""
    num = _numbers(lay)
    for m in reading.melds:
        if m.concealed or not m.positions:
            continue
        sets = _beyond_sets(reading, lay, rs, m.positions, skip)
        if not sets:
            continue
        tiles = sorted((t for g in sets for t in g), key=lambda t: num.get(t, 0))
        named = " ".join([run_meld(reading, g) for g in sets] + [x.notation() for x in reading.melds])
        note = (f"unsure: tiles {number_spans(sorted(num[t] for t in tiles))} "
                f"({' '.join(reading.tiles[t] or '?' for t in tiles)}) {BEYOND_NAMED_NOTE} "
                f"{m.notation()}, at the end of the row, where exposed melds lie, and make whole sets, read as "
                f"concealed tiles: if they are exposed melds, name them too: --exposed \"{named}\"; if they are "
                f"concealed, the reading stands")
        return replace(reading, confidence=reading.confidence * BEYOND_NAMED, notes=reading.notes + (note,))
    return reading


def run_meld(reading: Reading, run: Sequence[int]) -> str:
    """The exposed meld the tiles ``run`` (detection indices, alike or a chow's) of ``reading`` make, as
    ``--exposed`` takes it: ``[555m]``, ``[789m]`` (a chow's faces in rank order)."""
    faces = [reading.tiles[t] or "" for t in run]
    return f"[{''.join(sorted(f[0] for f in faces))}{faces[0][1:]}]"


def _is_run(faces: Sequence[str | None]) -> bool:
    """``faces`` are three suit tiles of one suit whose ranks follow on, in any order (a chow's)."""
    if any(f is None or f == BACK or len(f) != 2 or f[1] not in "mps" for f in faces):
        return False
    ranks = sorted(int(f[0]) for f in faces)  # type: ignore[index]
    return len({f[1] for f in faces}) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def _claimable(hand, faces: Sequence[str], rs: Ruleset, sets: Sequence[Sequence[str]] | None = None) -> bool:
    """``hand`` (a legal reading's) with its concealed tiles ``faces`` made an exposed meld — a
    pung (3 alike), a kong (4) or a chow (3 in a run) —, or ``sets`` of them each one, is still a hand ``rs``
    scores."""
    conc = list(hand.concealed)
    for f in faces:
        if f not in conc:
            return False
        conc.remove(f)
    try:
        melds = [meld_from_tiles(parse_tiles("".join(sorted(f[0] for f in g)) + g[0][1]), concealed=False)
                 for g in (sets if sets is not None else [faces])]
        score_hand(make_hand(conc, list(hand.melds) + melds, hand.bonus, hand.winning_tile, hand.context,
                             check_circumstances=False), rs, win_notes=False)
    except (HandError, ValueError):
        return False
    return True


def _faceless_kong_note(reading: Reading, lay: Layout, readings: TileReadings | None = None) -> Reading:
    """``reading`` with a note for each concealed kong it reads from four face-down tiles: the photo does not show
    its face, the face the reading gives it (the first the search found) decides the kong's points, and
    ``--fix N=TILE,M=TILE`` on its two end tiles names it. A tester's kong of four green backs was scored as (1111m), a
    kong of terminals, 32 points, with only the layout's note "(tile unknown)": a kong of simples scores 16, of
    dragons 32 and a doubling. Where the classifier read one of them a back under :data:`FACELESS_SURE`
    (``readings``), the note also offers leaving all four out: a literal tester set the faces of four squares of a
    check cloth, boxed by the second detector and read backs at 70 %, and the reading, its real kong's faces left out,
    went to 87 % sure, a right claim refused."""
    num = _numbers(lay)
    notes = list(reading.notes)
    for m in reading.melds:
        if not (m.concealed and m.kind == "kong" and len(m.positions) == 4
                and all(reading.raw[p] == BACK for p in m.positions)):
            continue
        nums = sorted(num[p] for p in m.positions if p in num)
        if not nums:
            continue
        least = min((float(readings.probs[p, CLASS_INDEX[BACK]]) for p in m.positions), default=1.0) \
            if readings is not None else 1.0
        unsure = (f"; tiles read face down at as little as {least:.0%}: if they are no tiles (a pattern of the cloth, "
                  f"another player's wall), leave them out with --fix {','.join(f'{n}={DROP}' for n in nums)}"
                  if least < FACELESS_SURE else "")
        # (both end tiles: one back set to its face beside three, inside a row, is no kong's display, and the kong
        # fell apart, a tester's --fix 4=7z refused; face, back, back, face is how a concealed kong is shown)
        notes.append(f"{_tiles_span(nums)} are a concealed kong shown face down: the "
                     f"photo does not show its face, and this reading takes {m.notation()} for it; its face decides "
                     f"its points: show it on its two end tiles, set their faces with "
                     f"--fix {nums[0]}=TILE,{nums[-1]}=TILE" + unsure)
    return reading if len(notes) == len(reading.notes) else replace(reading, notes=tuple(notes))


#: a concealed kong of four face-down tiles one of which the classifier read a back under this is offered to be left
#: out too (:func:`_faceless_kong_note`)
FACELESS_SURE = 0.9

#: the words of its note (the confidence line points at it)
ONE_BACK_KONG_NOTE = "with one face-down tile"


def _one_back_kong_sureness(reading: Reading, backs: np.ndarray, lay: Layout) -> Reading:
    """``reading`` with its confidence × :data:`ONE_BACK_KONG` for each concealed kong it reads from three face-up
    tiles and one face-down box read as a back (``backs``: (N,) bool, the face-down detections; the reading's raw
    tile ``0x``), and a note naming it with the
    way out. A concealed kong is shown with two of its tiles face down, or all four; one face-down box beside a
    pung is as likely a wall tile, or a face-down card or domino, touching it: a tester's face-down playing card
    10 px from the demo's exposed 777s was read (7777s) at > 99 %, 54 points for 40. Not applied to melds the
    user named (``--exposed``)."""
    num = _numbers(lay)
    conf, notes = reading.confidence, list(reading.notes)
    for m in reading.melds:
        if not (m.concealed and m.kind == "kong" and len(m.positions) == 4):
            continue
        # (boxes read as backs by the classifier too: a box only the detector called face-down, read as the kong's
        # own face, is no stray object, and leaving it out would make a wrong pung: a reviewer's)
        down = [p for p in m.positions if p < len(backs) and backs[p] and reading.raw[p] == BACK]
        if len(down) != 1:
            continue
        conf *= ONE_BACK_KONG
        k = num[down[0]]
        span = _tiles_span(sorted(num[p] for p in m.positions))
        # (both ways said: a phone tester whose own kong lay so, one tile face down, followed the one way out the
        # note gave and had the kong read as an exposed pung at > 99 %, 30 points for 58)
        pung = f"[{m.tile[0] * 3}{m.tile[1]}]"
        notes.append(f"unsure: {span} are read as the concealed kong {m.notation()} {ONE_BACK_KONG_NOTE} (a "
                     f"concealed kong is shown with two or four): if tile {k} is the kong's (some players show it "
                     f"so), this reading stands; if tile {k} is not the hand's (a stray tile or object beside a "
                     f"meld), leave it out with --fix {k}=- (the others are then the exposed pung {pung})")
    if conf == reading.confidence:
        return reading
    return replace(reading, confidence=conf, notes=tuple(notes))


def _left_out_sureness(reading: Reading, readings: TileReadings, lay: Layout) -> Reading:
    """``reading`` with its confidence × (1 − p · q) for each group of flowers/seasons the layout left
    out as loose tiles by its prior alone (:attr:`vision.layout.Layout.left_out`: p, its prior of being
    the hand's; q, the classifier's mean probability that its tiles are flowers/seasons), and once for
    those outside the hand region (:attr:`~vision.layout.Layout.far_bonus`: p =
    :data:`vision.layout.FAR_BONUS`, q the largest of their groups' — other players' flowers in a
    whole-table photo do not stack), with a note naming them when p ≥ 0.1. A group whose likeliest
    faces the reading's bonus tiles all show already is skipped (a set holds each face once: a tile
    the user added after this note, or one of the hand's). The bonus tiles change the score, and that
    choice is not weighed by the decoder: a hand read without the two flowers boxed beside it was
    called 100 % sure. The note's ``--add`` example adds each face not held yet, once, from the position
    after the hand's last tile on, a later note's going on from there without the faces an earlier one
    adds, so that every note's commands pasted together work (:func:`loose_bonus_note`)."""
    order = lay.geometry.order
    num = {p: k + 1 for k, p in enumerate(order)}
    after = [number_after_hand(order, reading.roles)]  # (the next note's --add goes on from the last's)
    held = {t for t, r in zip(reading.tiles, reading.roles) if r == "bonus"}
    offered: set[str] = set()
    conf, notes = reading.confidence, list(reading.notes)

    def face(t: int) -> str:  # a tile's likeliest flower/season
        return bonus_face(readings, t)

    def note(groups, where, p_in):
        tiles = [(num[t], face(t)) for g in groups for t in g if t in num]
        notes.append(loose_bonus_note(tiles, where, p_in, after[0], held, offered))
        adds = loose_bonus_adds([f for _, f in sorted(tiles)], held | offered)
        after[0] += len(adds)
        offered.update(adds)

    def live(groups):
        out = []
        for tiles, p_in in groups:
            if any(reading.roles[t] != "ignored" for t in tiles):
                continue
            if {face(t) for t in tiles} <= held:
                continue
            q = float(readings.probs[list(tiles)][:, BONUS_INDEX].astype(np.float64).sum(1).mean())
            out.append((tiles, p_in, q))
        return out

    loose = []
    for tiles, p_in, q in live(lay.left_out):
        conf *= 1.0 - p_in * q
        loose.append((tuple(tiles), p_in, q))
        if p_in >= 0.1:
            note([tiles], "near the hand", p_in)
    far = live(lay.far_bonus)
    if far:
        p_in, q = max(p for _, p, _ in far), max(q for _, _, q in far)
        conf *= 1.0 - p_in * q
        loose.append((tuple(t for g, _, _ in far for t in g), p_in, q))
        if p_in >= 0.1:
            note([t for t, _, _ in far], "away from the hand", p_in)
    return reading if conf == reading.confidence else replace(reading, confidence=conf, notes=tuple(notes),
                                                              loose_bonus=reading.loose_bonus + tuple(loose))


#: a tile left out of a reading that takes in the concealed tiles it lies beside, in their row (:attr:`Layout.beside`),
#: is the hand's with this probability all the same (× its probability of being a playing tile): the reading's
#: confidence falls by it (:func:`_beside_left_out_sureness`)
BESIDE_LEFT_OUT = 0.5
#: … and the words of its note ("… tile 16 (1z) lies beside the concealed tiles 12-15 …")
BESIDE_NOTE = "beside the concealed tile"


def _beside_left_out_sureness(reading: Reading, readings: TileReadings, lay: Layout,
                              winner: bool) -> Reading:
    """A non-winner's ``reading`` (``winner`` False) with its confidence × (1 − :data:`BESIDE_LEFT_OUT` · q) for each
    group of the hand region it leaves out (all its tiles ``ignored``, though the layout offered it a role in the
    hand, and not as a meld set apart, which :func:`_left_out_melds_sureness` weighs) that lies beside a group the
    reading takes in as concealed tiles, in their row (:attr:`vision.layout.Layout.beside`); q is the mean
    probability of its tiles being playing tiles (not a flower, season or back). A note names it; ``left_beside``
    records it. The layout weighs each group off the main row by its own distance alone: a tile set just apart
    from the concealed tiles in their row was left out of a non-winner's reading at 96 % (the generator's scene
    7321/0, a winner's hand said not won, its winning 1z beside the 345s1z); so may a non-winner's tile set apart
    at the main row's end be (:data:`vision.layout.LOOSE_APART`): a discard, or the winning tile of a hand said
    not won. A winner's reading, which has its full count, is not doubted so (a discard beside its row)."""
    if winner:
        return reading
    roles = reading.roles
    offered = {g.tiles for g in lay.groups if any(o.role != "ignored" for o in g.options)
               and not any(o.role in ("exposed", "concealed-kong") and o.prior >= UNNAMED_MELD for o in g.options)}
    num = {p: k + 1 for k, p in enumerate(lay.geometry.order)}
    conf, notes, seen, doubts = reading.confidence, list(reading.notes), set(), []
    for a, b in lay.beside:
        for held, out in ((a, b), (b, a)):
            if out in seen or out not in offered or not all(roles[t] == "ignored" for t in out):
                continue
            if not all(roles[t] in ("concealed", "winning") for t in held):
                continue
            seen.add(out)
            q = float(np.asarray(readings.probs)[list(out), :_PLAY].astype(np.float64).sum(1).mean())
            f = 1.0 - BESIDE_LEFT_OUT * q
            conf *= f
            doubts.append((tuple(out), f))
            faces = " ".join(readings.codes[t] or "?" for t in out)
            one, span = len(out) == 1, number_spans(sorted(num[t] for t in held))
            what = (f"tile {number_spans([num[out[0]]])} ({faces}) lies" if one
                    else f"tiles {number_spans(sorted(num[t] for t in out))} ({faces}) lie")
            notes.append(f"unsure: {what} {BESIDE_NOTE}{'' if len(held) == 1 else 's'} {span}, in their row, and "
                         + (f"is left out of the hand: if it is not the hand's (a discard), say so with --fix "
                            f"{num[out[0]]}=-; if it is, the hand may have won (its winning tile set apart), or another "
                            f"tile is misread or missed" if one else
                            f"are left out of the hand: if they are not the hand's, say so with --fix "
                            + ",".join(f"{num[t]}=-" for t in sorted(out, key=num.__getitem__))
                            + "; if they are, other tiles are misread or missed, or the hand may have won"))
    if not doubts:
        return reading
    return replace(reading, confidence=conf, notes=tuple(notes), left_beside=reading.left_beside + tuple(doubts))


#: a group the layout offers as a meld (exposed, or a concealed kong) with at least this prior, which
#: the melds named with ``--exposed`` leave unnamed, makes the reading less sure (:func:`_unnamed_melds_sureness`)
UNNAMED_MELD = 0.5
#: … and counts this share of its prior when every named meld matched a group set apart (the group may
#: be a gap in the concealed row, not a meld the user forgot)
ALL_NAMED_SHARE = 0.5


def _unnamed_melds(roles: Sequence[str], readings: TileReadings, lay: Layout) -> list[tuple[list[int], str, float]]:
    """The groups the layout offers as a meld (an exposed meld or a concealed kong) with prior p ≥
    :data:`UNNAMED_MELD` that ``roles`` read as no meld: (their tile numbers, the meld as the faces read
    show it — ``[777s]``, ``(2222m)``, ``[…]`` when they make none — , p)."""
    num = _numbers(lay)
    out: list[tuple[list[int], str, float]] = []
    for g in lay.groups:
        meld = max((o.prior for o in g.options if o.role in ("exposed", "concealed-kong")), default=0.0)
        if meld < UNNAMED_MELD or any(roles[p] in ("exposed", "concealed-kong") for p in g.tiles):
            continue
        faces = [CLASS_NAMES[int(np.argmax(readings.probs[p]))] for p in g.tiles]
        shown = [f for f in faces if f in PLAYING_TILES]
        kong = any(f == BACK for f in faces)
        if kong and shown and len(set(shown)) == 1:
            guess = f"({compact([shown[0]] * 4)})"
        elif len(shown) == len(faces) and is_meld(shown):
            guess = f"[{compact(sort_tiles(shown))}]"
        else:  # (the faces as read make no meld: the user names it)
            guess = "(…)" if kong else "[…]"
        out.append(([num[p] for p in g.tiles if p in num], guess, meld))
    return out


def _unnamed_melds_sureness(reading: Reading, given: Sequence[GivenMeld], share: float,
                            missed: Sequence[tuple[list[int], str, float]]) -> Reading:
    # ``given``: the named melds the photo shows (among its tiles or set apart), for the suggestion: one
    # no tile reads (--exposed "[777p]" on the demo) is left out of it (a tester ran the suggestion
    # "[777p] [777s] (2222m)" and was refused)
    """``reading`` with its confidence × (1 − p × ``share``) for each group that the layout offers as a
    meld with prior p ≥ :data:`UNNAMED_MELD` (a group of 3 or 4 set apart; four tiles with backs) but
    which the melds named with ``--exposed`` leave unnamed, so that it is read as concealed tiles or left
    out (``missed``: :func:`_unnamed_melds` of ``reading``); and a note naming those tiles and the melds to name. ``--exposed`` replaces the photo's melds: a
    referee who named one meld of the demo (``--exposed "[345m]"``, tiles of its concealed row) had
    its pung set apart read as concealed, its concealed kong left out, a second 345m chow added as not
    photographed — and the reading called 99 % sure."""
    conf = reading.confidence
    for _, _, meld in missed:
        conf *= 1.0 - meld * share
    if not missed:
        return reading
    spans = ", ".join(number_spans(sorted(n)) for n, _, _ in missed)
    named = " ".join([gm.notation for gm in given] + [m for _, m, _ in missed])
    note = (f"unsure: tiles {spans} lie apart like melds, but the melds named with --exposed do not include "
            f"them, so they were read as concealed tiles or left out; --exposed replaces every meld the photo "
            f"shows: name them too (e.g. --exposed \"{named}\")")
    return replace(reading, confidence=conf, notes=reading.notes + (note,))


#: a group the layout offers as a meld that the reading leaves out whole counts this share of its prior
#: against the reading (:func:`_left_out_melds_sureness`): a hand that is legal without it may be right
#: (another player's meld near the hand), or the photo a hand of another size
LEFT_OUT_MELD_SHARE = 0.5


def _left_out_melds_sureness(reading: Reading, readings: TileReadings, lay: Layout, rs: Ruleset,
                             winner: bool) -> Reading:
    """``reading`` with its confidence × (1 − p × :data:`LEFT_OUT_MELD_SHARE`) for each group that the
    layout offers as a meld (exposed, or a concealed kong) with prior p ≥ :data:`UNNAMED_MELD`, whose
    faces as read make that meld (two White dragons, in the middle or at the ends of four, taken for a
    concealed kong's pale backs), and that the reading leaves out whole (every tile ``ignored``); and a
    note naming its tiles and how many tiles the hand would have with it, with the shipped rulesets
    whose hands have that many. A tester's photo of a 16-tile hand scored under nts (13 tiles) was read
    without its exposed kong of 7z, at >99 %: the 14 tiles of its concealed row make a legal hand."""
    found = []
    for g in lay.groups:
        p = max((o.prior for o in g.options if o.role in ("exposed", "concealed-kong")), default=0.0)
        if p < UNNAMED_MELD or any(reading.roles[t] != "ignored" for t in g.tiles):
            continue
        faces = [CLASS_NAMES[int(np.argmax(readings.probs[t]))] for t in g.tiles]
        if len(faces) == 4 and any(faces[a] == faces[b] == "5z" != faces[c] == faces[d] != BACK
                                   for a, b, c, d in ((1, 2, 0, 3), (0, 3, 1, 2))):
            # (two blank faces, in the middle or at the ends, between two of a tile: a concealed kong whose pale
            # backs read as White dragons, vision.layout.blank_backs; a tester's 16-tile hand under nts was read
            # without its (2222m), read 2m 5z 5z 2m, at >99 %)
            faces = [BACK if f == "5z" else f for f in faces]
        shown = [f for f in faces if f in PLAYING_TILES]
        if len(g.tiles) == 4 and shown and len(set(shown)) == 1 and (BACK in faces or len(shown) == 4):
            meld = f"({compact([shown[0]] * 4)})" if BACK in faces else f"[{compact(shown)}]"
        elif len(shown) == len(faces) and is_meld(shown):
            meld = f"[{compact(sort_tiles(shown))}]"
        else:
            continue
        found.append((tuple(g.tiles), p, meld))
    num = _numbers(lay)
    short, hints = _left_out_short_kongs(reading, readings, lay, num, {t for tiles, _, _ in found for t in tiles})
    return with_left_out_melds(reading, found + short, num, rs, winner, hints)


#: the prior that tiles left out in a row of the hand's melds, one face and face-down tiles across groups split by
#: a gap, three (a tile not boxed in the gap) or four in all, are a concealed kong of the hand
#: (:func:`_left_out_short_kongs`)
SHORT_KONG_PRIOR = 0.8
#: the two ways a concealed kong is laid out: its ends face down, or its middle two
_KONG_PATTERNS = ((BACK, 0, 0, BACK), (0, BACK, BACK, 0))


def kong_gap_tile(first: Sequence[str], second: Sequence[str]) -> str | None:
    """The tile missing between two runs of tiles as read (``BACK`` for a face-down one), three in all, one face
    and face-down ones, that make a concealed kong as it is laid (its ends face down, or its middle two) with one
    tile between them: ``["0x"], ["2m", "0x"]`` → ``"2m"``; ``["5p"], ["0x", "5p"]`` → ``"0x"``; else None."""
    faces = list(first) + list(second)
    shown = {f for f in faces if f != BACK}
    if len(faces) != 3 or len(shown) != 1 or BACK not in faces or not shown <= set(PLAYING_TILES):
        return None
    seq = [f if f == BACK else 0 for f in faces]
    k = len(first)
    fits = [pat for pat in _KONG_PATTERNS if list(pat[:k]) + list(pat[k + 1:]) == seq]
    if not fits:
        return None
    return BACK if fits[0][k] == BACK else next(iter(shown))


def _left_out_short_kongs(reading: Reading, readings: TileReadings, lay: Layout, num: Mapping[int, int], taken: set[int]
                          ) -> tuple[list[tuple[tuple[int, ...], float, str]], dict[tuple[int, ...], str]]:
    """Concealed kongs of the hand that a reading leaves out because a tile of each was not boxed: in a row that
    holds a meld of the reading (exposed, or a concealed kong), one to three neighbouring groups, every tile
    ``ignored``, that together hold three or four tiles, one face and face-down ones (both), laid like a kong
    (its ends face down, or its middle two) with one tile missing in the gap between two groups, or four across
    groups. Returns ``(melds, hints)``: each as :func:`with_left_out_melds` takes it (prior
    :data:`SHORT_KONG_PRIOR`), and for a kong a tile short, the ``--add`` that completes it where it lies in the
    gap. A tester's 16-tile hand under nts, 5p · 0x 5p (a back not boxed: the layout offered no kong), was read
    without it at >99 %: the 14 tiles left make a legal hand of nts."""
    melds_rows = {g.row for g in lay.groups if any(reading.roles[t] in ("exposed", "concealed-kong") for t in g.tiles)}
    out, hints = [], {}
    for row in sorted(melds_rows):
        groups = sorted((g for g in lay.groups if g.row == row), key=lambda g: min(num.get(t, 0) for t in g.tiles))
        for a in range(len(groups)):
            for b in range(a + 1, min(a + 3, len(groups)) + 1):
                run = groups[a:b]
                tiles = [t for g in run for t in g.tiles]
                if (len(tiles) not in (3, 4) or any(reading.roles[t] != "ignored" or t in taken for t in tiles)
                        or (len(run) == 1 and len(tiles) == 4)):  # (a whole group of four: the loop above's)
                    continue
                faces = [CLASS_NAMES[int(np.argmax(readings.probs[t]))] for t in tiles]
                shown = {f for f in faces if f != BACK}
                if len(shown) != 1 or BACK not in faces or not shown <= set(PLAYING_TILES):
                    continue
                face = next(iter(shown))
                add = None
                if len(tiles) == 3:  # the missed tile in the gap between two groups
                    k = len(run[0].tiles)
                    missed = kong_gap_tile(faces[:k], faces[k:]) if len(run) == 2 else None
                    if missed is None:
                        continue
                    add = f"{num[run[1].tiles[0]]}={missed}"
                elif tuple(f if f == BACK else 0 for f in faces) not in _KONG_PATTERNS:
                    continue
                key = tuple(tiles)
                out.append((key, SHORT_KONG_PRIOR, f"({compact([face] * 4)})"))
                if add:
                    hints[key] = f"a tile of it not boxed? add it with --add {add}"
                taken.update(tiles)
    return out, hints


def with_left_out_melds(reading: Reading, melds: Sequence[tuple[tuple[int, ...], float, str]],
                        numbers: Mapping[int, int], rs: Ruleset, winner: bool,
                        hints: Mapping[tuple[int, ...], str] | None = None) -> Reading:
    """``reading`` with ``melds`` (detection indices, meld prior p, the meld as read) added to its
    :attr:`Reading.left_out_melds`: its confidence × (1 − p × :data:`LEFT_OUT_MELD_SHARE`) and a note
    (:func:`left_out_meld_note`, the tiles numbered by ``numbers``: detection index → number) for each,
    ending with ``hints[tiles]`` where given (how to add a tile of it not boxed)."""
    if not melds:
        return reading
    conf, notes = reading.confidence, list(reading.notes)
    for tiles, p, meld in melds:
        conf *= 1.0 - p * LEFT_OUT_MELD_SHARE
        hint = (hints or {}).get(tuple(tiles))
        notes.append(left_out_meld_note(number_spans(sorted(numbers[t] for t in tiles if t in numbers)), meld, rs,
                                        winner) + (f"; {hint}" if hint else ""))
    return replace(reading, confidence=conf, notes=tuple(notes), left_out_melds=reading.left_out_melds + tuple(melds))


def left_out_meld_note(spans: str, meld: str, rs: Ruleset, winner: bool) -> str:
    """The note on a meld left out of a reading (:func:`_left_out_melds_sureness`): tiles ``spans``
    (``"15-18"``), the meld as read, how many tiles the hand would have with it, and the shipped rulesets
    whose hands have that many."""
    from scoring.engine import available

    count = rs.hand_size + (1 if winner else 0) + 3  # (the hand's tiles and the meld's, a kong's counted 3)
    others = [rid for rid in available()
              if rid != rs.id and load_ruleset(rid).hand_size + (1 if winner else 0) == count]
    hint = (f"; {count} is a hand of {' or '.join(others)}: is that the game? (--ruleset {others[0]})"
            if others else "; if they are this hand's, the reading is wrong: check it")
    return (f"unsure: tiles {spans} lie apart like a meld, {meld}, but this reading leaves them out "
            f"(another player's?); with them the hand would have {count} tiles (each kong counts 3), "
            f"where a hand under {rs.id} has {count - 3}{hint}")


def number_spans(nums: Sequence[int]) -> str:
    """Sorted tile numbers as spans: ``[15, 16, 17, 20]`` → ``"15-17, 20"``."""
    spans: list[list[int]] = []
    for x in nums:
        if spans and x == spans[-1][1] + 1:
            spans[-1][1] = x
        else:
            spans.append([x, x])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _tiles_span(nums: Sequence[int]) -> str:
    """Sorted tile numbers said in a note: ``[15]`` → ``"tile 15"``, ``[15, 16, 18]`` → ``"tiles 15-16, 18"``."""
    return f"tiles {number_spans(nums)}" if len(nums) > 1 else f"tile {nums[0]}"


#: the odds, against the legal reading that changes tiles the classifier read otherwise, that something else in the
#: photo is off — a tile lying on the hand, a tile not boxed, clutter boxed among the tiles — so that the tiles as
#: read are right and no legal reading of them is (:func:`_changed_sureness`)
CHANGED_ODDS = 0.02
#: the note on a reading whose changed tiles cost it more than a fifth of its confidence
CHANGED_NOTE = "to make a legal hand: if the tile is as read, something else in the photo is off"


def changed_playing_tiles(reading: Reading, readings: TileReadings) -> list[tuple[int, str, float, str, float]]:
    """The tiles ``reading`` changed that :func:`_changed_sureness` charges: ``(detection index, tile read, its
    probability, tile taken, its probability)`` for each changed playing tile, in ``reading.changed``'s order;
    flowers/seasons, backs, a concealed kong's tiles, tiles left out and tiles not read as playing tiles
    (:data:`UNREAD_PLAYING`) are not among them."""
    named = []
    for p in reading.changed:
        t, r = reading.tiles[p], reading.raw[p]
        if (reading.roles[p] in ("bonus", "ignored", "concealed-kong") or t in (None, BACK) or r in (None, BACK)
                or t not in CLASS_INDEX or r not in CLASS_INDEX
                or float(readings.probs[p, :_PLAY].sum()) < UNREAD_PLAYING):
            continue
        named.append((p, r, float(readings.probs[p, CLASS_INDEX[r]]), t, float(readings.probs[p, CLASS_INDEX[t]])))
    return named


def _changed_sureness(reading: Reading, readings: TileReadings, lay: Layout) -> Reading:
    """``reading`` with its confidence × o / (o + :data:`CHANGED_ODDS`), o the classifier's odds for the tiles it
    changes (Π p(tile taken) / p(tile read) over its changed playing tiles; flowers/seasons, backs, a concealed
    kong's tiles — its faces must match, and a pale back read as a face scores the same kong — and tiles not read
    as playing tiles, :func:`_unread_sureness`'s, left out), and a note naming them when that is under 0.8. Not
    applied with melds the user named (``--exposed``), which may force the change. The confidence is the reading's
    share among the legal readings found, so the only legal reading was sure however unlikely its changes: a tester's stray 3m lying on the demo's kong was read with a 2m read at
    99 % taken as 1m (0.6 %), 26 points for 40 at 98 %; a 6p read at 96 % taken as 8p, at 96 %."""
    named = changed_playing_tiles(reading, readings)
    odds = math.prod(q_new / max(q_raw, 1e-9) for _, _, q_raw, _, q_new in named)
    if not named:
        return reading
    f = odds / (odds + CHANGED_ODDS)
    notes = list(reading.notes)
    if f < 0.8:
        num = _numbers(lay)
        which = ", ".join(f"tile {num.get(p, '?')} read {r} at {format_confidence(qr)} is taken as {t} "
                          f"({format_confidence(qt)})"
                          for p, r, qr, t, qt in named)
        notes.append(f"unsure: {which} {CHANGED_NOTE} (a tile lying on the hand, a tile not boxed, clutter among "
                     f"the tiles): check it ({format_confidence(f)} that the change is right)")
    return replace(reading, confidence=reading.confidence * f, notes=tuple(notes))


#: a pung or kong read alike at a mean probability under this costs the reading's confidence in proportion
#: (:func:`_alike_sureness`); at or over it, nothing: four pungs read at 97 % each would be 88 % sure, where the
#: hands of the evaluation sets read so are right
ALIKE_SURE = 0.9
#: a tile read as that face under this probability is left out of the mean (its crop tells little of its face)
ALIKE_TELLS = 0.3
#: the words of :func:`_alike_sureness`'s note (the confidence line points at it)
ALIKE_NOTE = "are read alike"


def _alike_sureness(reading: Reading, readings: TileReadings, lay: Layout) -> Reading:
    """``reading`` with its confidence × p̄ / (:data:`ALIKE_SURE` · s), when under 1, for each face it reads on three
    or four of the hand's tiles (a pung or kong, concealed or exposed; not backs, nor tiles the reading changed or
    read as that face under :data:`ALIKE_TELLS`): p̄
    the classifier's mean probability of that face over those tiles, s its share when the tiles are taken as read
    each on its own (Π p(face) over Σ_f Π p(f), the 34 playing faces), and a note when that is under 0.95. The
    confidence is the reading's share among the legal readings found, each tile's reading weighed as if it told
    nothing of the others'; the tiles of one face look alike in one photo and are misread alike, and any face makes
    a legal pung: a tester's 111m seen steeply from above, read 4m at 56, 80 and 86 % (1m nowhere near), was 444m
    at 91 %, 152 points for 168. Read as one tile, the three are as sure as one tile read at their mean (74 %):
    × 0.74 / 0.9, 75 %."""
    from scoring.decompose import standard_splits

    def unchanged(p: int, face: str) -> bool:  # (read so, and by a crop that tells its face: one read at 13 %, its
        # reading spread over the classes, a doubtful box the pipeline weighs, says nothing of the others' face)
        return reading.raw[p] == face == reading.tiles[p] and float(readings.probs[p, CLASS_INDEX[face]]) >= ALIKE_TELLS

    groups: list[tuple[str, list[int]]] = []  # (face, the positions of its pung or kong)
    for m in reading.melds:  # (the melds on the table, and concealed kongs: each is a pung or kong)
        if m.tile in PLAYING_TILES and m.kind in ("pung", "kong"):
            groups.append((m.tile, [p for p in m.positions if unchanged(p, m.tile)]))
    # the concealed tiles' faces that are a pung however the hand is split (a chow's tile beside a pair of its face,
    # 11m + 123m, is no pung: three tiles read alike only where any face would make the same hand)
    conc = [p for p, role in enumerate(reading.roles) if role in ("concealed", "winning") and reading.tiles[p]]
    faces = Counter(reading.tiles[p] for p in conc)
    splits = standard_splits([reading.tiles[p] for p in conc]) if reading.hand is not None else []
    for face, k in faces.items():
        if k < 3 or face not in PLAYING_TILES:
            continue
        if splits and not all(any(m.kind in ("pung", "kong") and m.tile == face for m in sp) for sp in splits):
            continue
        groups.append((face, [p for p in conc if reading.tiles[p] == face and unchanged(p, face)]))
    conf, notes, num, costs = reading.confidence, list(reading.notes), _numbers(lay), []
    logp = _log_probs(readings)[:, :_PLAY]  # (the classes begin with the 34 playing tiles, as PLAYING_TILES)
    for face, pos in groups:
        if len(pos) < 3:
            continue
        mean = float(readings.probs[pos, CLASS_INDEX[face]].mean())
        logs = logp[pos].sum(axis=0)
        share = float(np.exp(logs[CLASS_INDEX[face]] - np.logaddexp.reduce(logs)))
        f = min(1.0, mean / (ALIKE_SURE * max(share, 1e-12)))
        if f >= 1.0:
            continue
        conf *= f
        costs.append((tuple(pos), f))
        if f < 0.95:
            nums = sorted(num[p] for p in pos if p in num)
            notes.append(f"unsure: tiles {number_spans(nums)} {ALIKE_NOTE} as {face} at {format_confidence(mean)} on "
                         f"average (tiles of one face are misread alike, and any face makes a pung): check them")
    if not costs:
        return reading
    return replace(reading, confidence=conf, notes=tuple(notes), alike=reading.alike + tuple(costs))


#: a reading that takes a group set apart like a meld as concealed tiles that make no set together is × this
#: (:func:`_broken_group_sureness`)
BROKEN_GROUP = 0.5
#: the note on it
BROKEN_GROUP_NOTE = "lie apart like a meld, yet this reading takes them as concealed tiles of other sets"


def _broken_group_sureness(reading: Reading, lay: Layout) -> Reading:
    """``reading`` with its confidence × :data:`BROKEN_GROUP` for each group of three or four that the layout
    offers as an exposed meld (prior ≥ :data:`UNNAMED_MELD`) and that the reading takes as concealed tiles whose
    faces, as taken, make no meld, and a note naming it. A hand's tiles set apart are its melds; read as concealed
    tiles that go into other sets, something else is off — a tile lying on the meld: a tester's stray 發 lying on
    a 7s of the demo's exposed 777s was read 77s + 666z with two 6z of the row, 88 points for 40 at 99 %. Only a
    group off the hand's main row; not for melds the user named (``--exposed``), nor with a winning tile given
    (``--winning-tile``: :func:`_forced_win_sureness` weighs a meld it makes concealed)."""
    conf, notes = reading.confidence, list(reading.notes)
    num = _numbers(lay)
    for g in lay.groups:
        p = max((o.prior for o in g.options if o.role == "exposed"), default=0.0)
        faces = [reading.tiles[t] for t in g.tiles]
        # (off the hand's row only: a stretch of the concealed row split off by a gap is offered as a meld too, and
        # a reviewer's 14 tiles in one row with two gaps had been halved)
        if (len(g.tiles) not in (3, 4) or p < UNNAMED_MELD or g.row == lay.geometry.main_row
                or any(reading.roles[t] != "concealed" for t in g.tiles)
                or any(f is None or f not in PLAYING_TILES for f in faces) or is_meld(faces)):
            continue
        conf *= BROKEN_GROUP
        span = _tiles_span(sorted(num[t] for t in g.tiles if t in num))
        notes.append(f"unsure: {span} ({' '.join(faces)}) {BROKEN_GROUP_NOTE}: a tile may lie on the meld, or one of "
                     f"them be misread: correct a tile with --fix POS=TILE, and leave out one that is not the hand's "
                     f"with --fix POS=-")
    return reading if conf == reading.confidence else replace(reading, confidence=conf, notes=tuple(notes))


def _unread_sureness(reading: Reading, readings: TileReadings, lay: Layout) -> Reading:
    """``reading`` with its confidence × the chance that each tile it reads as a tile of the hand, though
    the classifier gave it under :data:`UNREAD_PLAYING` of being a playing tile at all, is one (its
    probability over the 34 playing classes), and a note naming it. The hand's structure chose the
    playing tile it is read as (a 1s's bird read as a flower inside the row): that is only as sure as
    the tile being a playing tile (a real crop's 1s read 54 % as a flower was made 7z, pairing a red
    bird read as 中, and the reading was called 100 % sure)."""
    num = _numbers(lay)
    conf, notes = reading.confidence, list(reading.notes)
    for p, role in enumerate(reading.roles):
        if role in ("ignored", "bonus", "concealed-kong") or reading.tiles[p] is None:
            continue
        play = float(readings.probs[p, :_PLAY].sum())
        if play < UNREAD_PLAYING:
            conf *= play
            # (the bird said only of a tile read as a flower: a tester's 6m under glare, read 6m, was taken as 1s "(a
            # 1s's bird is often read as a flower)")
            why = " (a 1s's bird is often read as a flower)" if reading.tiles[p] == "1s" and reading.raw[p] in BONUS \
                else ""
            notes.append(f"tile {num.get(p, '?')} was read as {reading.raw[p]} ({1 - play:.0%} not a playing tile): "
                         f"taken as {reading.tiles[p]}, the tile the hand needs there{why}; check it")
    return reading if conf == reading.confidence else replace(reading, confidence=conf, notes=tuple(notes))


def _assign_bonus(positions: Iterable[int], logp: np.ndarray) -> dict[int, str]:
    pos = list(positions)
    pairs = sorted(((float(logp[p, c]), p, c) for p in pos for c in BONUS_INDEX), reverse=True)
    out: dict[int, str] = {}
    used: set[int] = set()
    for lp, p, c in pairs:
        if p in out or c in used:
            continue
        out[p] = CLASS_NAMES[c]
        used.add(c)
    for p in pos:  # more than 8 bonus tiles: the rest keep their best class
        out.setdefault(p, CLASS_NAMES[BONUS_INDEX[int(np.argmax(logp[p, BONUS_INDEX]))]])
    return out


def _units(h: _Hyp, logp: np.ndarray, backs: np.ndarray, forced_win: int | None):
    units: list[_Unit] = []
    raw_sum = 0.0
    for gi, (g, o) in enumerate(zip(h.groups, h.choices)):
        if o.role in ("ignored", "bonus"):
            continue
        raw_sum += float(sum(logp[p].max() for p in g.tiles))
        if gi in h.given:
            gm = h.given[gi]
            u = _meld_unit(logp, g.tiles, [bool(backs[p]) for p in g.tiles],
                           "concealed-kong" if gm.concealed else "exposed", only=[(gm.kind, gm.tiles)])
            u.cands = [(lp, v, c) for lp, v, c in u.cands]
            units.append(u)
        elif o.role in ("exposed", "concealed-kong"):
            u = _meld_unit(logp, g.tiles, [bool(backs[p]) for p in g.tiles], o.role)
            if not u.cands:
                return None, 0.0
            units.append(u)
        else:
            for p in g.tiles:
                u = _tile_unit(logp, p)
                # the layout's winning tile, unless the user named the winning tile: then it is only
                # required to be among the concealed tiles (no tile is rewritten to match it)
                if (o.winning == p or o.role == "winning") and forced_win is None:
                    u.role = "winning"
                units.append(u)
    return units, raw_sum


def _search(h: _Hyp, units: list[_Unit], raw_sum: float, bonus_lp: float, lprior: float,
            bound: float | None, rs: Ruleset, ctx: Context, bonus_codes: dict[int, str],
            forced_win: int | None, options, budget: dict) -> tuple | None:
    n_melds = sum(1 for u in units if u.kind == "meld") + len(h.off_photo) + len(h.embedded)
    off_tiles = [t for gm in h.off_photo for t in gm.tiles]
    emb_tiles = [t for gm in h.embedded for t in gm.tiles]
    has_win_unit = any(u.role == "winning" for u in units)
    first = None
    mass = 0.0
    examined = 0
    scorer_calls = 0
    first_calls = 0
    first_at = 0
    for lp, idx in _kbest(units):
        examined += 1
        budget["readings"] -= 1
        if budget["readings"] < 0:
            break
        total_lp = lp + bonus_lp
        score = lprior + total_lp - raw_sum
        if first is None and bound is not None and score < bound:
            return None
        if first is not None and (total_lp < first[4] - CONF_WINDOW or examined - first_at > CONF_READINGS):
            break
        if examined > MAX_READINGS:
            break
        counts = [0] * _PLAY
        conc: list[int] = []
        win = None
        for u, k in zip(units, idx):
            _, val, codes = u.cands[k]
            if u.kind == "tile":
                conc.append(val)  # type: ignore[arg-type]
                counts[val] += 1  # type: ignore[index]
                if u.role == "winning":
                    win = val
            else:
                for t in val[1]:  # type: ignore[index]
                    counts[t] += 1
        for t in off_tiles:
            counts[t] += 1
        if max(counts) > 4:
            continue
        if emb_tiles:
            rest = list(conc)
            try:
                for t in emb_tiles:
                    rest.remove(t)
            except ValueError:
                continue
            if win is not None and win not in rest:
                continue
            conc = rest
        if forced_win is not None and not has_win_unit:
            if forced_win not in conc:
                continue
            win = forced_win
        ok = _shape_ok(conc, n_melds, rs, ctx.winner)
        if ok is False:
            continue
        if ok is None:
            scorer_calls += 1
            budget["scorer"] -= 1
            if budget["scorer"] < 0 or scorer_calls > (300 if first is None else first_calls + 30):
                continue
        if first is not None and ok is True:
            mass += math.exp(total_lp - first[4])
            continue
        hand = _build_hand(units, idx, h, win, bonus_codes, ctx, conc)
        if hand is None:
            continue
        try:
            score_hand(hand, rs, options, win_notes=False)
        except HandError:
            continue
        if first is not None:
            mass += math.exp(total_lp - first[4])
            continue
        first = (score, h, units, idx, total_lp, raw_sum, hand)
        first_calls = scorer_calls
        first_at = examined
        mass = 1.0
    if first is None:
        return None
    return first + (1.0 / mass,)


def _build_hand(units, idx, h: _Hyp, win, bonus_codes, ctx: Context, conc_idx):
    conc = [PLAYING_TILES[t] for t in conc_idx]
    melds = []
    for u, k in zip(units, idx):
        _, val, _codes = u.cands[k]
        if u.kind == "tile":
            continue
        else:
            kind, tiles = val
            melds.append(Meld(kind, PLAYING_TILES[min(tiles)], concealed=u.role == "concealed-kong", declared=True))
    for gm in h.off_photo + h.embedded:
        melds.append(Meld(gm.kind, PLAYING_TILES[min(gm.tiles)], concealed=gm.concealed, declared=True))
    try:
        return make_hand(conc, melds, sort_tiles(bonus_codes.values()),
                         PLAYING_TILES[win] if win is not None else None, ctx, check_circumstances=False)
    except HandError:
        return None


def _reading_from(best, raw, n, lay: Layout, bonus_codes) -> Reading:
    from scoring import format_hand

    score, h, units, idx, total_lp, raw_sum, hand, conf = best
    tiles: list[str | None] = [None] * n
    roles = ["ignored"] * n
    melds: list[MeldReading] = []
    for u, k in zip(units, idx):
        _, val, codes = u.cands[k]
        for p, c in zip(u.positions, codes):
            tiles[p] = CLASS_NAMES[c]
            roles[p] = u.role
        if u.kind == "meld":
            kind, mt = val
            melds.append(MeldReading(kind, PLAYING_TILES[min(mt)], u.role == "concealed-kong", u.positions))
    for gm in h.off_photo:
        melds.append(MeldReading(gm.kind, PLAYING_TILES[min(gm.tiles)], gm.concealed, ()))
    for gm in h.embedded:  # the named meld's tiles among the concealed ones: the right-most matches
        pos = []
        for t in gm.tiles:
            code = PLAYING_TILES[t]
            cand = [p for p in reversed(lay.geometry.order) if tiles[p] == code and roles[p] == "concealed"
                    and p not in pos]
            if cand:
                pos.append(cand[0])
        for p in pos:
            roles[p] = "concealed-kong" if gm.concealed else "exposed"
        melds.append(MeldReading(gm.kind, PLAYING_TILES[min(gm.tiles)], gm.concealed, tuple(sorted(pos, key=lay.geometry.order.index))))
    for p, c in bonus_codes.items():
        tiles[p] = c
        roles[p] = "bonus"
    changed = tuple(p for p in range(n) if tiles[p] is not None and tiles[p] != raw[p])
    notes = list(lay.notes)
    num = _numbers(lay)
    # the groups left out for the same reason share one note, at the place of the first (a new user's busy
    # photo printed "ignored: outside the main row (tile 16)", "(tile 17)", … five lines of it)
    ignored: dict[str, tuple[int, list[int]]] = {}
    for gi, (g, o) in enumerate(zip(h.groups, h.choices)):
        if o.winning is not None and (roles[o.winning] == "winning" or tiles[o.winning] == hand.winning_tile):
            # (the tile set apart is the one --winning-tile names: it is marked the winning tile, as without
            # it; a new user's `-w 8p` on the demo printed `9:8p` without its `*`)
            roles[o.winning] = "winning"
            notes.append(f"winning tile: tile {num[o.winning]} ({o.why})")
        elif o.winning is not None:  # (--winning-tile named another: the note had said tile 9 all the same)
            notes.append(f"tile {num[o.winning]} lies apart like a winning tile ({o.why}), but the winning tile is "
                         f"the {hand.winning_tile} given with --winning-tile: tile {num[o.winning]} is read as a "
                         f"concealed tile")
        elif o.why and o.role == "ignored":
            at, nums = ignored.setdefault(o.why, (len(notes), []))
            if at == len(notes):
                notes.append("")  # (said below, once every group of this reason is known)
            nums.extend(num[p] for p in g.tiles)
        elif o.why and o.role != "concealed":
            span = _tiles_span(sorted(num[p] for p in g.tiles))  # (a tile added at the group's far end is numbered as given)
            # (a concealed kong named in () is matched with the role "exposed" like any named meld: the
            # demo's kong, named (2222m), was noted "exposed: named with --exposed (tiles 13-16)")
            role = "concealed-kong" if gi in h.given and h.given[gi].concealed else o.role
            notes.append(f"{role}: {o.why} ({span})")
    for why, (at, nums) in ignored.items():
        notes[at] = f"ignored: {why} ({_tiles_span(sorted(nums))})"
    if winning_tile_missing(hand):  # (not East's Hand of Heaven, nor hk-tw-16's 16-tile instant win: a reviewer's)
        notes.append("no winning tile marked: scored without one (set it apart or sideways, or give --winning-tile)")
    for m, gm in zip(melds[len(melds) - len(h.embedded):], h.embedded):
        # (a new user's `--exposed "[345m] [777s] (2222m)"` took the demo's 345m out of its row as the
        # exposed meld, and the notes named the other two melds' tiles only)
        if m.positions:
            nums = sorted(num[p] for p in m.positions)
            notes.append(f"{'concealed-kong' if gm.concealed else 'exposed'}: {gm.notation} named with --exposed, "
                         f"taken from the tiles of the row (tiles {number_spans(nums)})")
    for gm in h.off_photo:
        notes.append(f"meld {gm.notation} named with --exposed is not in the photo: added to the hand")
    rel = math.exp(total_lp - raw_sum)
    return Reading(hand=hand, tiles=tuple(tiles), raw=tuple(raw), roles=tuple(roles), melds=tuple(melds),
                   changed=changed, probability=math.exp(total_lp), relative=min(1.0, rel),
                   confidence=float(conf), legal=True, notation=format_hand(hand), notes=tuple(notes),
                   score=float(score))


def _short_kong_hint(lay: Layout, backs: np.ndarray, raw: Sequence[str | None] = (), legal=None,
                     melds_shown: Sequence[str] = ()) -> str:
    """"; tiles 13-15 hold a face-down tile: a concealed kong short of one? add it with --add 16=0x" for
    each group of 1-3 tiles with a face-down one (a concealed kong whose fourth tile was not detected
    reads as no meld, and the count falls 3 short), and "; tiles 13-14 (2m 2m) lie apart, a meld short of its
    tiles? look at the photo: a pung whose third tile was not boxed, add it with --add 15=2m; a concealed kong
    whose two face-down tiles were not boxed, add them with --add 13=0x,16=0x" for two tiles of one face off the
    hand's row (either add alone makes a legal hand, and a wrong one a sure wrong score: the user must look);
    for two neighbouring groups of a row laid like a concealed kong short of the tile between them
    (:func:`kong_gap_tile`), "; tiles 13-15 (0x · 2m 0x) lie like a concealed kong short of the tile between them?
    add it with --add 14=2m", and for two single tiles of one face side by side off the hand's row, "; tiles 10, 11
    (7s · 7s) lie like a pung short of its middle tile? add it with --add 11=7s"; else "". Boxes the user left out
    (``--fix POS=-``) are no tiles of the groups. At most two hints. ``backs``: (N,) bool,
    face-down detections; ``legal``: where given, a function (face) → (the pung's add makes a legal hand, the kong's
    adds do), which two tiles of one face in the hand's own row must pass for both (:func:`_pair_adds_legal`: a
    reviewer's ordinary 3z pair of a hand laid in sets was offered both, each an illegal hand);
    ``melds_shown``: the melds of the reading (notation), named with the kongs' own in the --exposed it offers
    (named alone, the kongs would replace them); three tiles laid 0x F 0x, a kong short of a face between its backs,
    are named so (all such in one --exposed), not told to add a back; more than two single face-down boxes alone are
    a pattern (a check cloth's squares), not kongs short of a back; ``raw``: the classifier's readings, where given a tile read as a face is none (a dark photo's 8p, boxed
    face-down, read 9p at 99 %). A group outside the hand region (:attr:`vision.layout.Geometry.hand_tiles`:
    boxes left out as doubtful) is passed over: the --add offered after it landed among the boxes left out,
    and was refused, naming another --add (a loop)."""
    num = _numbers(lay)
    region = set(lay.geometry.hand_tiles) if lay.geometry.hand_tiles else set(range(len(backs)))
    out = []
    geo = lay.geometry

    def read_as(t: int) -> str | None:  # a face-down box is a back unless the classifier read it as a face
        if t < len(backs) and bool(backs[t]) and (not raw or t >= len(raw) or raw[t] == BACK):
            return BACK
        return raw[t] if raw and t < len(raw) else None

    # two neighbouring groups of a row that make a concealed kong with one tile between them (a tester's demo
    # with a 2m of its kong covered, 0x · 2m 0x: each group was offered its own --add of a back, each refused as
    # landing among boxes left out, where the kong's missing tile was the 2m between them)
    # (boxes the user left out, --fix POS=-, are no tiles of the groups: a tester's box on the top half of a 7s,
    # left out, was named with the 7s beside it as "tiles 11-12 (7s 7s) lie apart")
    out_boxes = set(lay.ignored) & region
    live = [tuple(t for t in g.tiles if t not in out_boxes) for g in geo.groups]
    across: set[int] = set()
    for row in geo.rows:
        for ga, gb in zip(row, row[1:]):
            a, b = live[ga], live[gb]
            # (both groups hold tiles: a group all of whose boxes are left out has none, and a kong of three beside
            # it had been taken as short of a tile "between" them, an IndexError on a held-out hard scene)
            if not a or not b or not (set(a) | set(b)) & region or set(a + b) & across \
                    or not all(t in num for t in a + b):
                continue
            if len(a) + len(b) == 3:
                missed = kong_gap_tile([read_as(t) for t in a], [read_as(t) for t in b])  # type: ignore[misc]
                if missed is None:
                    continue
                nums = sorted(num[t] for t in a + b)
                shown = " ".join(read_as(t) or "?" for t in a) + " · " + " ".join(read_as(t) or "?" for t in b)
                out.append(f"; tiles {nums[0]}-{nums[-1]} ({shown}) lie like a concealed kong short of the tile "
                           f"between them? add it with --add {num[b[0]]}={missed}")
                across.update(a + b)
            elif (len(a) == len(b) == 1 and geo.groups[ga].row != geo.main_row and read_as(a[0]) == read_as(b[0])
                  and read_as(a[0]) in PLAYING_TILES):
                # two tiles of one face alone off the hand's row, side by side: a pung whose middle tile was not
                # boxed (the tester's, its middle 7s covered: --fix 12=- --add 11=7s read the demo)
                face = read_as(a[0])
                out.append(f"; tiles {num[a[0]]}, {num[b[0]]} ({face} · {face}) lie like a pung short of its middle "
                           f"tile? add it with --add {num[b[0]]}={face}")
                across.update(a + b)
    # (single face-down boxes alone, more than two of them: a pattern — a check cloth's squares, a wall — not a kong
    # short of a back; a phone tester's red-and-white check cloth had 19 squares boxed so, and the two hints given
    # named two squares, each add refused and naming the next, the 5z 5z of the kong whose red backs were lost unsaid)
    lone = [gi for gi, t in enumerate(live) if len(t) == 1 and read_as(t[0]) == BACK and set(t) & region]
    short_faced: dict[int, str] = {}  # (group → the face of its 0x F 0x, in the photo's order)
    for gi, t in enumerate(live):
        ends = sorted((x for x in t if x in num), key=num.__getitem__)
        if (len(ends) == 3 and set(t) & region and not set(t) & across and read_as(ends[0]) == BACK == read_as(ends[-1])
                and read_as(ends[1]) in PLAYING_TILES):
            short_faced[gi] = str(read_as(ends[1]))
    for gi, g in enumerate(geo.groups):
        tiles = live[gi]
        if not tiles or not set(tiles) & region or set(tiles) & across or (len(lone) > 2 and gi in lone):
            continue
        by_num = sorted((t for t in tiles if t in num), key=num.__getitem__)
        if gi in short_faced:
            # (backs at both ends: the kong lacks a face between them, which a back added after it does not give, and
            # --add refused the back it had been told to add: a phone tester's 0x 1s 1s 0x, one bird boxed with the
            # other and read 7z; its kong is named with --exposed, whose face the user reads off the photo, every such
            # kong of the photo in the one --exposed, as --exposed takes them all: a reviewer's)
            face = str(read_as(by_num[1]))
            named = " ".join([*melds_shown, *(f"({f[0] * 4}{f[1]})" for f in short_faced.values())])
            out.append(f"; tiles {number_spans([num[t] for t in by_num])} (0x {face} 0x) lie like a concealed kong "
                       f"short of a face between its backs: name it with the melds on the table, --exposed \"{named}\" "
                       f"if {face} is its face (else with the face the photo shows)")
        elif 1 <= len(tiles) <= 3 and any(read_as(t) == BACK for t in tiles):
            nums = sorted(num[t] for t in tiles if t in num)
            if nums:
                span = f"tiles {number_spans(nums)} hold a face-down tile" if len(nums) > 1 else \
                    f"tile {nums[0]} is face-down"
                # (the missing back goes on the side the group shows no back: a kong is shown back, face, face, back,
                # and a phone tester's 7s 7s 0x, its first back lost on green felt, was told --add 12=0x after the
                # back seen, which read 9 tiles; --add 9=0x read the kong)
                first = len(by_num) > 1 and read_as(by_num[-1]) == BACK and read_as(by_num[0]) != BACK
                out.append(f"; {span}: a concealed kong short of one? add it with "
                           f"--add {nums[0] if first else nums[-1] + 1}=0x")
        elif (len(tiles) == 2 and len({raw[t] if raw else None for t in tiles}) == 1
              and raw and raw[tiles[0]] in PLAYING_TILES and not any(bool(backs[t]) for t in tiles)
              and (g.row != lay.geometry.main_row or (legal is not None and all(legal(raw[tiles[0]]))))):
            # two tiles of one face lying apart (off the hand's row, or a group of their own in it: a phone tester's
            # kong shown back 9m 9m back in the row, its green backs lost on a red cloth), the count one short: a
            # pung whose third tile was not boxed, or a concealed kong whose two backs were not boxed (a tester's
            # demo in haze, its kong's pink backs lost: the only advice was to add a tile by its face, which made an
            # exposed kong, 32 points at >99 % for 40). Either add makes a legal hand, and the wrong one a sure wrong score (a reviewer
            # followed the kong's adds on a pung short of a tile: (7777s), 54 for 40; a tester the pung's on a kong
            # whose backs were lost: [222m], 26 for 40): the user is asked to look
            nums = sorted(num[t] for t in tiles if t in num)
            face = raw[tiles[0]]
            if len(nums) == 2:
                out.append(f"; tiles {nums[0]}-{nums[1]} ({face} {face}) lie apart, a meld short of its tiles? look "
                           f"at the photo: a pung whose third tile was not boxed, add it with --add {nums[1] + 1}={face}; "
                           f"a concealed kong whose two face-down tiles were not boxed, add them with "
                           f"--add {nums[0]}={BACK},{nums[1] + 2}={BACK}")
    return "".join(out[:2])


def _pair_adds_legal(face: str, conc: list[str], melds: list[MeldReading], bonus_codes: Mapping[int, str], win,
                     ctx: Context, rs: Ruleset) -> tuple[bool, bool]:
    """(a third ``face`` among the concealed tiles makes a hand ``rs`` scores, two of them made a concealed kong of
    ``face`` with the melds does): whether each add :func:`_short_kong_hint` offers for two tiles of one face would
    make the tiles as read a legal hand (:func:`_legal_as_read`). Raises nothing."""
    pung = _legal_as_read(conc + [face], melds, bonus_codes, win, ctx, rs)
    rest = list(conc)
    for _ in range(2):
        if face not in rest:
            return pung, False
        rest.remove(face)
    kong = MeldReading("kong", face, True, (), (face,) * 4)
    return pung, _legal_as_read(rest, melds + [kong], bonus_codes, win if win in rest else None, ctx, rs)


def _melds_example(named: Sequence[GivenMeld], roles: Sequence[str], readings: TileReadings, lay: Layout) -> str:
    """The melds to give with ``--exposed``: those named and the groups set apart like melds that they
    leave out, as read (:func:`_unnamed_melds`); ``[777s] (2222m)`` when that is nothing (a new user's
    `--exposed "[7777s]"` on the demo was shown that example, a pung where the user had named a kong)."""
    melds = [gm.notation for gm in named] + [m for _, m, _ in _unnamed_melds(roles, readings, lay)]
    return " ".join(melds) if melds else "[777s] (2222m)"


#: a "not a winning hand" refusal names the tiles the classifier read less surely than this, least sure first
LEAST_SURE_BELOW = 0.99


def _numbers(lay: Layout) -> dict[int, int]:
    """Detection index → the tile's number as the user sees it (1-based, in the layout's reading order)."""
    return {p: k + 1 for k, p in enumerate(lay.geometry.order)}


def _raw_reading(lay: Layout, readings: TileReadings, hyps, need, raw, n, bonus_codes, rs: Ruleset,
                 ctx: Context, nearest: int | None, backs: np.ndarray, given: bool = False,
                 nearest_legal: Reading | None = None, preferred: Sequence[Option] = (),
                 winning_tile: str | None = None, named: Sequence[GivenMeld] = ()) -> Reading:
    """The arg-max reading under the most probable role hypothesis with the right tile count (else
    each group's preferred role), with a one-line problem.

    ``winning_tile``: the one the user gave (``--winning-tile``); when no concealed tile reads it, the
    problem says so first (a tester's `--winning-tile 9p` on a hand without one was told to check
    the kong's 2m). ``named``: the melds the user named (``--exposed``), said in the problem when no
    reading close to the photo is legal with them and one of them matched no group set apart.

    ``preferred``: each group's likeliest role under what the user said (:func:`_hypotheses`), the
    roles shown when no hypothesis has the hand's count.

    ``nearest_legal``: the most probable legal reading when it changes more tiles than
    :data:`MAX_CHANGED`: the problem then begins by naming it and each tile it changes (as read → as it
    needs it), and lists no "least sure" tiles.

    When the tiles as read make a hand of the right count that the ruleset refuses (e.g. seven pairs
    where the ruleset has no such hand), the problem is the scorer's: "not a winning hand under R:
    …", as ``mahjong-score hand`` says it; a count that is a non-winner's hand names ``--not-winner``.
    """
    tiles: list[str | None] = [None] * n
    roles = ["ignored"] * n
    melds: list[MeldReading] = []
    conc: list[str] = []
    win = None
    count = 0
    # (``preferred``: each group's likeliest role under what the user said, :func:`_hypotheses`: with the
    # melds named, only those are melds; `--exposed none` on the demo had shown its [777s] (2222m))
    choices = list(hyps[0].choices) if hyps else list(preferred) or [g.options[0] for g in lay.groups]
    if hyps:  # a group matched to a named concealed kong is shown as one, (2222m), not [22m00x]
        choices = [Option("concealed-kong", 1.0) if gi in hyps[0].given and hyps[0].given[gi].concealed else o
                   for gi, o in enumerate(choices)]
    for g, o in zip(lay.groups, choices):
        if o.role in ("ignored", "bonus"):
            continue
        for p in g.tiles:
            tiles[p] = raw[p]
        if o.role in ("exposed", "concealed-kong"):
            faces = [raw[p] for p in g.tiles if raw[p] != BACK]
            t = faces[0] if faces else BACK
            melds.append(MeldReading("as read", t, o.role == "concealed-kong", g.tiles,
                                     tuple(raw[p] for p in g.tiles)))
            for p in g.tiles:
                roles[p] = o.role
            count += 3
        else:
            for p in g.tiles:
                roles[p] = "winning" if (o.winning == p or o.role == "winning") and win is None else "concealed"
                conc.append(raw[p])
                if roles[p] == "winning":
                    win = raw[p]
            count += len(g.tiles)
    for p, c in bonus_codes.items():
        tiles[p] = c
        roles[p] = "bonus"
    parts = []
    if conc:
        parts.append(_loose_compact(conc))
    for m in melds:  # (a concealed kong shown with backs is written (2222m): MeldReading.notation)
        parts.append(m.notation())
    if bonus_codes:
        parts.append("+" + compact(sort_tiles(bonus_codes.values())))
    if win:
        parts.append(f"win:{win}")
    notation = " ".join(parts)
    what = "winning hand" if ctx.winner else "non-winning hand"
    off = 0
    if count == 0:
        problem = "no tiles of a hand were found"
        off = need
    elif not hyps:
        found = nearest if nearest is not None else count
        # a reading whose tiles are all backs (a wall read as concealed kongs) is no nearer a hand than
        # one with no tiles: every hand shows some faces
        off = need if all(t == BACK for t, r in zip(tiles, roles) if t is not None and r != "bonus") \
            else abs(found - need)
        # ``found``: the count nearest the hand's among the roles the groups may take; the reading shown
        # takes each group's likeliest role, which may count otherwise (a 4-tile group read as a meld)
        # (a new user read "found 16 tiles in the hand (each kong counts 3, 33 tiles as shown)" as a
        # contradiction: say that 16 is the nearest count and why the tiles shown differ)
        other_size = _other_size_hint(found, rs, _left_in_rows(lay, roles)) if found == count else ""
        counted = (" (each kong counts 3)" if found == count else
                   f" at best ({count} as shown: some of the groups may be loose tiles or another player's;"
                   f" each kong counts 3)" if found < count else
                   f" at best ({count} as shown: some of the boxes left out may be the hand's; each kong counts 3)")
        problem = (f"found {found} tiles in the hand{counted};"
                   f" a {what} under {rs.id} has {need}:"
                   f" a tile may be hidden, cut off or not detected, or an extra one included"
                   + ("; --exposed replaces the melds the photo shows: list every meld on the table there,"
                      f" concealed kongs too, e.g. {_melds_example(named, roles, readings, lay)}" if given else "")
                   + (f"; if the hand did not win, give --not-winner (a non-winner's hand has {need - 1})"
                      if ctx.winner and found == need - 1 else "")
                   + (f"; if the hand won, leave out --not-winner (a winner's hand has {need + 1})"
                      if not ctx.winner and found == need + 1 else "")
                   # (the other game's hand size is named only when the tiles shown are that many: a
                   # whole-table render's wall read "at best 16" of 33 was taken for a 16-tile game's hand)
                   + ((other_size
                       # (and a kong short of a back among the boxes left out: a phone tester's 16-tile hand read as 14,
                       # its 2m 2m 0x left out, had no word of it)
                       + (_short_kong_hint(lay, backs, raw, melds_shown=[m.notation() for m in melds]) if found < need
                          else "") if other_size else "")
                      or ((_missing_tile_hint(lay, tiles, roles, conc, melds, bonus_codes, win, ctx, rs, raw)
                           if found == count == need - 1 else "")
                          + _short_kong_hint(lay, backs, raw, lambda f: _pair_adds_legal(f, conc, melds, bonus_codes,
                                                                                          win, ctx, rs),
                                             melds_shown=[m.notation() for m in melds])
                          + "; add a tile the detector missed with --add POS=TILE"
                          if found < need else
                          (_boxed_twice_hint(lay, raw, roles, conc, melds, bonus_codes, win, ctx, rs)
                           + _extra_tile_hint(lay, tiles, raw, roles, conc, melds, bonus_codes, win, ctx, rs, readings))
                          if found == count == need + 1 else "")
                      or (f"; leave out boxes that are not the hand's (clutter, loose tiles, another player's) "
                          f"with --fix POS=-" if found >= need else "")))
    elif (refusal := _ruleset_refusal(conc, melds, bonus_codes, win, ctx, rs)) is not None:
        problem = (refusal if refusal.startswith("not a") else f"not a winning hand under {rs.id}: {refusal}") + \
            "; the tiles read make no hand this ruleset scores (if a tile is misread, correct it with --fix POS=TILE)"
        # a face read more often than a set holds: name the boxes read so, least sure first (a new user,
        # told "tile 6m occurs 6 times", had no way to tell which of the six to check)
        num = _numbers(lay)
        used = [p for p in range(n) if tiles[p] not in (None, BACK) and roles[p] != "bonus"]
        over = False
        for face, k in sorted(Counter(tiles[p] for p in used).items()):
            if k > 4:
                over = True
                mine = sorted((p for p in used if tiles[p] == face), key=lambda p: float(readings.probs[p].max()))
                problem += f"; read {face}, least sure first: " + ", ".join(
                    f"tile {num[p]} ({float(readings.probs[p].max()):.0%})" for p in mine)
        # the tiles the classifier doubted, which the user checks first (a new user's small photo of the
        # demo, its 7p read 6p at 97 %, was told only "if a tile is misread, correct it"); none when every
        # tile is read 99 % or surer, as naming sure tiles points at tiles that are right
        doubted = sorted((p for p in used if float(readings.probs[p].max()) < LEAST_SURE_BELOW),
                         key=lambda p: float(readings.probs[p].max()))[:3]
        if doubted and not over and nearest_legal is None:  # (else the tiles it changes are named)
            problem += "; least sure: " + ", ".join(
                f"tile {num[p]} ({raw[p]} {float(readings.probs[p].max()):.0%})" for p in doubted)
        if not over and nearest_legal is None:
            problem += _one_change_hint(lay, tiles, roles, conc, melds, bonus_codes, win, ctx, rs, readings)
    else:
        num = _numbers(lay)
        # boxes among the concealed tiles read face-down or as a bonus tile: named by number, as what to check
        # first (a new user's photo with a tile covered was told "(read as 0x)", then to check the three
        # least sure tiles, read 99-100 % and right)
        odd = sorted((p for p in range(n) if roles[p] in ("concealed", "winning") and (tiles[p] == BACK or
                                                                                   tiles[p] in BONUS)), key=num.get)
        extra = f" ({', '.join(f'tile {num[p]} read as {tiles[p]}' for p in odd)})" if odd else ""
        # (a named meld matched no group set apart: what the user said may be what is wrong)
        with_named = (f" with the melds named by --exposed ({' '.join(gm.notation for gm in named)}: each meld "
                      f"on the table once, concealed kongs too)"
                      if named and hyps and (hyps[0].off_photo or hyps[0].embedded) else "")
        problem = f"no reading close to what the photo shows{extra} is a legal {what} under {rs.id}{with_named}"
        in_meld = None
        wt_said = False  # the problem says where the --winning-tile is not: no list of least sure tiles
        if winning_tile is not None and parse_winning_tile(winning_tile) not in conc:
            wt_said = True
            wt = parse_winning_tile(winning_tile)
            they = compact(sort_tiles(t for t in conc if t in PLAYING_TILES)) or "none"
            in_meld = next((m for m in melds if any(tiles[p] == wt for p in m.positions)), None)
            if in_meld is not None:
                # (a new user's `--winning-tile 2m` on the demo, whose 2m are its concealed kong's, was
                # told no concealed tile reads 2m, then "least sure: tile 15 (2m 98%), tile 14 (2m 99%)")
                nums = sorted(num[p] for p in in_meld.positions)
                what = "concealed kong" if in_meld.concealed else "exposed meld"
                problem = (f"--winning-tile {wt}: the {wt} the photo shows are in the {what} of tiles "
                           f"{number_spans(nums)}, not among the concealed tiles (they read {they}), and the winning "
                           f"tile is a concealed tile: give another"
                           + (" (or name the melds without it in --exposed)" if named else
                              " (if the meld is not one, name the melds on the table with --exposed)")
                           + (f"; no reading is legal{with_named}" if with_named else ""))
            else:
                # (the rest said "no reading close to what the photo shows is a legal winning hand; least
                # sure: tile 15 (2m 98%) …" of a new user's `--winning-tile 9s` on the demo, whose reading
                # is legal: only the tile given is not in it)
                problem = (f"--winning-tile {wt}: no concealed tile of the hand reads {wt} (they read {they}), and "
                           f"the winning tile is one of them: if one is misread, correct a tile with --fix POS={wt}, "
                           f"else give another" + (f"; no reading is legal{with_named}" if with_named else ""))
        # (when nearest_legal names the tiles it changes, or the problem names the meld holding the winning
        # tile, no tiles are listed: a "least sure" list would name other tiles, read surely, beside them — a
        # new user's hard render listed "tile 11 (3m 100%)")
        if nearest_legal is None and not wt_said:
            if len(odd) == 1:
                k = num[odd[0]]
                problem += (f"; if it is a face-up tile, set its face with --fix {k}=TILE, or leave it out with "
                            f"--fix {k}=-")
            elif odd:
                problem += (f"; if they are face-up tiles, set their faces with --fix "
                            f"{','.join(f'{num[p]}=TILE' for p in odd)}, or leave them out with --fix "
                            f"{','.join(f'{num[p]}=-' for p in odd)}")
            else:
                main = {p for g in lay.groups if g.row == 0 for p in g.tiles}
                used = [p for p in range(n)
                        if roles[p] not in ("ignored", "bonus") and (p in main or roles[p] != "concealed")]
                unsure = sorted(used, key=lambda p: float(readings.probs[p].max()))[:3]
                least = ", ".join(f"tile {num[p]} ({raw[p]} {float(readings.probs[p].max()):.0%})" for p in unsure)
                if named and unsure and all(float(readings.probs[p].max()) >= NAMED_FIRST for p in unsure):
                    # (every tile read surely, the melds named are what to check: a web tester's wrong "[777z]" was
                    # answered "least sure: tile 2 (3m 98%) …", tiles read right)
                    problem += (f"; every tile of it is read {NAMED_FIRST:.0%} sure or more: check the melds named "
                                f"with --exposed first (each as the photo shows it, on the table)")
                else:
                    problem += f"; least sure: {least}; correct tiles with --fix POS=TILE"
    if nearest_legal is not None:
        num = _numbers(lay)
        which = ", ".join(f"tile {num[p]} {raw[p]}→{nearest_legal.tiles[p]}"
                          for p in sorted(nearest_legal.changed, key=num.get))
        counted = _counted_changes(nearest_legal)
        faces = (f", {len(nearest_legal.changed) - counted} of them flowers/seasons read as another, not counted"
                 if counted < len(nearest_legal.changed) else "")
        problem = (f"the nearest legal reading, {nearest_legal.notation}, changes {len(nearest_legal.changed)} tiles"
                   f" ({which}{faces}; at most {MAX_CHANGED} are changed without asking: if those are right, set them "
                   f"with --fix); {problem}")
    conf = float(np.prod([readings.probs[p].max() for p in range(n) if tiles[p] is not None])) if n else 0.0
    return Reading(hand=None, tiles=tuple(tiles), raw=tuple(raw), roles=tuple(roles), melds=tuple(melds),
                   changed=(), probability=conf, relative=1.0, confidence=0.0, legal=False,
                   notation=notation, problem=problem, notes=tuple(lay.notes), count_off=off)


def end_neighbours(geo, first: int, last: int) -> tuple[int | None, int | None]:
    """The detections next along the row before detection ``first`` and after detection ``last`` (the first and
    last concealed tiles of a row, :class:`vision.layout.Geometry` ``geo``), None where the row ends."""
    def beside(t: int, step: int) -> int | None:
        row = next((geo.row_tiles(r) for r in range(len(geo.rows)) if t in geo.row_tiles(r)), ())
        k = row.index(t) + step if t in row else -1
        return row[k] if 0 <= k < len(row) else None
    return beside(first, -1), beside(last, 1)


def alone_after(geo, row: Sequence[int]) -> bool:
    """Whether the detection next along the row after the last of the concealed tiles ``row`` (:func:`end_neighbours`)
    lies alone, set apart: a group of its own (:class:`vision.layout.Geometry` ``geo``), not touching the row nor
    another tile (where a winner's tile set apart lies)."""
    after = end_neighbours(geo, row[0], row[-1])[1] if row else None
    group = next((g for g in geo.groups if after in g.tiles), None) if after is not None else None
    return group is not None and len(group.tiles) == 1 and row[-1] not in group.tiles


def row_ends(geo, roles: Sequence[str], tiles: Sequence[str | None], num: Mapping[int, int],
             row: Sequence[int]) -> tuple[tuple[bool, bool], "Beside"]:
    """What lies next along the row before the first and after the last of the concealed tiles ``row`` (detection
    indices; :class:`vision.layout.Geometry` ``geo``, ``roles`` and ``tiles`` per detection, ``num`` their numbers;
    :func:`end_neighbours`): (whether each end may take an added tile — not where a meld set apart lies next, which
    ``--add`` refuses: a tile that would join the concealed tiles to an exposed meld further along the same row,
    docs/photo.md, a reviewer's suggested ``--add 11=9s`` was refused so —, the (number, reading) of a bonus tile
    lying next at each end, else None) (:func:`suit_order_place`'s ``ends``, :func:`place_words`' ``bonus_at``)."""
    beside = end_neighbours(geo, row[0], row[-1]) if row else (None, None)
    ends = tuple(t is None or roles[t] not in ("exposed", "concealed-kong") for t in beside)
    at = tuple((num[t], tiles[t]) if t is not None and roles[t] == "bonus" and t in num and tiles[t] else None
               for t in beside)
    return ends, at  # type: ignore[return-value]


def _suit_runs(codes: Sequence[str]) -> dict[str, tuple[int, int]] | None:
    """Each suit's run (first, last index) in a row of tile codes laid in suit order — each suit's tiles together,
    low to high (the honours in any order), the suits in any order (a player's own: bamboo first, say) —; None when
    the row is not so laid."""
    runs: dict[str, tuple[int, int]] = {}
    for k, c in enumerate(codes):
        suit = c[1]
        if suit in runs and runs[suit][1] != k - 1:
            return None  # (a suit in two places)
        if suit in runs and c[0] < codes[k - 1][0] and suit != "z":
            return None  # (not low to high; the honours are laid in any order, a reviewer's dragons first)
        runs[suit] = (runs.get(suit, (k, k))[0], k)
    return runs


def suit_order_place(codes: Sequence[str | None], x: str, ends: tuple[bool, bool] = (True, True)) -> int | None:
    """Where tile ``x`` goes in a row of tiles ``codes`` (in the row's order) that players laid in suit order (each
    suit's tiles together and low to high, the suits in any order, :func:`_suit_runs`; but for one tile at most,
    the winning tile laid at its end): the index k it goes before (between ``codes[k-1]`` and ``codes[k]``), when
    one place alone in its suit's run keeps that order with both neighbours, or the places that do all lie among
    copies of ``x`` (the first of them: each gives the same row); before the run's first tile when ``x`` is lower,
    after its last when higher (0, before the row's first tile, or ``len(codes)``, after its last, only where
    ``ends`` lets: :func:`row_ends`); else None (a suit the row lacks, or a row not so laid: a reviewer's
    unsorted row had been given a place all the same). A referee's row 2m…9s short of its 1m had been given no
    place, nor a player's bamboo-first row 2s…9s 222m 55p short of its 1s."""
    if len(codes) < 2 or not all(c in PLAYING_TILES for c in list(codes) + [x]):
        return None
    row = list(codes)
    runs = _suit_runs(row)  # type: ignore[arg-type]
    if runs is None:  # (the winning tile laid at the row's end, out of order)
        row = row[:-1]
        runs = _suit_runs(row)  # type: ignore[arg-type]
        if runs is None:
            return None
    if x[1] not in runs:
        return None
    a, b = runs[x[1]]
    if x[1] == "z" and any(row[k][0] < row[k - 1][0] for k in range(a + 1, b + 1)):  # type: ignore[index]
        # (honours laid in their own order: an honour goes beside its copies, else nowhere said)
        copies = [k for k in range(a, b + 1) if row[k] == x]
        return copies[0] if copies else None
    fits = [k for k in range(a, b + 2) if (k == a or row[k - 1][0] <= x[0])  # type: ignore[index]
            and (k == b + 1 or x[0] <= row[k][0])]  # type: ignore[index]
    same = all(q == p + 1 and row[p] == x for p, q in zip(fits, fits[1:]))  # (beside a copy of x: one row)
    if not fits or not same:
        return None
    k = fits[0]
    if (k == 0 and not ends[0]) or (k == len(codes) and not ends[1]):
        return None
    return k


#: a tile lying at an end of the row where a missing tile would go: (its number, its reading), per end
Beside = tuple[tuple[int, str] | None, tuple[int, str] | None]


def _add_at(numbers: Sequence[int], k: int) -> int:
    """The ``--add`` position of a tile that goes before index ``k`` of a row of tiles numbered ``numbers`` (after
    its last tile for ``k`` = its length)."""
    return numbers[-1] + 1 if k == len(numbers) else numbers[k]


def _misread_there(x: str, k: int, n: int, bonus_at: Beside) -> tuple[int, str] | None:
    """The flower or season of ``bonus_at`` lying where tile ``x`` goes (index ``k`` of a row of ``n``: before its
    first tile, or after its last), when ``x`` is a suit tile: a misread tile (the bird of a 1s read as a flower),
    not a missing one. None otherwise."""
    at = bonus_at[0] if k == 0 else bonus_at[1] if k == n else None
    return at if at is not None and x[1] in "mps" else None


def place_words(x: str, numbers: Sequence[int], codes: Sequence[str | None],
                ends: tuple[bool, bool] = (True, True), bonus_at: Beside = (None, None)) -> str:
    """"; in suit order it lies between tiles 2 (3m) and 3 (5m): --add 3=4m": where tile ``x`` goes in a row of tiles
    ``codes`` numbered ``numbers`` (:func:`suit_order_place`), and the ``--add`` that puts it there ("before tile 1
    (2m): --add 1=1m", "after tile 13 (8s): --add 14=9s" at the row's ends); "" when it has no such place. Where a
    flower or season of ``bonus_at`` lies at that end, it may be the tile, misread, and its ``--fix`` comes first
    (a tester's bird 1s before a row 2s…9s was read 1y, and the row told to add a 1s). (Said of the one tile that
    would make a hand: :func:`_missing_tile_hint`, :func:`vision.pipeline._missed_tile_words`.)"""
    k = suit_order_place(codes, x, ends)
    if k is None:
        return ""
    at = _misread_there(x, k, len(codes), bonus_at)
    side = (f"before tile {numbers[0]} ({codes[0]})" if k == 0 else
            f"after tile {numbers[-1]} ({codes[-1]})" if k == len(codes) else
            f"between tiles {numbers[k - 1]} ({codes[k - 1]}) and {numbers[k]} ({codes[k]})")
    if at is not None:
        return (f"; in suit order it lies {side}, where tile {at[0]}, read {at[1]}, lies: if it is one, set it with "
                f"--fix {at[0]}={x}")
    return f"; in suit order it lies {side}: --add {_add_at(numbers, k)}={x}"


def add_words(found: Sequence[str], numbers: Sequence[int], codes: Sequence[str | None],
              ends: tuple[bool, bool] = (True, True), bonus_at: Beside = (None, None)) -> str:
    """"a 2s (--add 4=2s) or a 5s (--add 8=5s)": each tile of ``found`` with the ``--add`` that puts it where it
    lies in suit order in a row of tiles ``codes`` numbered ``numbers`` (:func:`suit_order_place`; at the row's
    ends too), when it has such a place; the tiles alone otherwise. A tester's 13-tile row was told "a 2s or a 5s
    would make it a winning hand", and added the tile after the last, where a tile set apart is the winning one.
    Where a flower or season of ``bonus_at`` lies at the row's end where the tile goes, its ``--fix`` comes first:
    "a 1s (tile 1, read 1y, lies where it goes: if it is one, set it with --fix 1=1s)" — no ``--add`` beside it: added
    between the flower and the row, a reviewer's 9s joined the row to an exposed meld beyond the flower."""
    out = []
    for x in found:
        k = suit_order_place(codes, x, ends)
        at = None if k is None else _misread_there(x, k, len(codes), bonus_at)
        if at is not None:
            out.append(f"{article(x)} (tile {at[0]}, read {at[1]}, lies where it goes: if it is one, set it with "
                       f"--fix {at[0]}={x})")
        else:
            out.append(article(x) + (f" (--add {_add_at(numbers, k)}={x})" if k is not None else ""))
    return " or ".join(out)


def article(code: str) -> str:
    """``code`` with the article said before it: "a 4m", "an 8p"."""
    return f"{'an' if code.startswith('8') else 'a'} {code}"


#: a hand a tile short names the tiles that would make it legal when they are at most this many
MISSING_NAMED = 3


def _missing_tile_hint(lay: Layout, tiles: Sequence[str | None], roles: Sequence[str], conc: list[str],
                       melds: list[MeldReading], bonus_codes: Mapping[int, str], win, ctx: Context, rs: Ruleset,
                       raw: Sequence[str | None] = ()) -> str:
    """For a reading one tile short of the hand's count: "; a 4m would make it a legal hand (the only tile that
    does; in suit order it lies between tiles 2 (3m) and 3 (5m): --add 3=4m)", or the tiles that would (up to
    :data:`MISSING_NAMED`); "" when more would, or none. A tester's batch row of a 13-tile photo said won (its
    winner cell yes) was told only to add "a tile the detector missed (POS=TILE)", where `photo` of the same
    file, read as a non-winner's hand, named the 4m and its place."""
    held = Counter(t for t in tiles if t is not None) + Counter(bonus_codes.values())
    found = [x for x in PLAYING_TILES if held[x] < 4 and _legal_as_read(conc + [x], melds, bonus_codes, win, ctx, rs)]
    if not found or len(found) > MISSING_NAMED:
        return ""
    num = _numbers(lay)
    row = [p for p in lay.geometry.order if roles[p] in ("concealed", "winning") and tiles[p] is not None
           and p in lay.geometry.row_tiles(lay.geometry.main_row)]
    if len(row) > 1 and roles[row[-1]] == "winning":  # (a tile placed after the row's end goes before the
        row = row[:-1]                                 # winning tile set apart there, not after it)
    numbers, codes = [num[p] for p in row], [tiles[p] for p in row]
    ends, at = row_ends(lay.geometry, roles, tiles, num, row)
    read = [t if t is not None else (raw[p] if p < len(raw) else None) for p, t in enumerate(tiles)]  # (boxes left out)
    beside = [w for w in (flower_beside_alike(lay.geometry, read, roles, num, x) for x in found) if w]
    # (a box read as a flower or season, touching tiles of the face that makes the hand: said first, the rest after)
    first = f"; {beside[0]}" if beside else ""
    if len(found) > 1:
        return f"{first}; {add_words(found, numbers, codes, ends, at)} would make it a legal hand"
    x = found[0]
    where = place_words(x, numbers, codes, ends, at)
    if ctx.winner and win is None and not any(r == "winning" for r in roles):
        where = winning_apart_words(x, where, at, lay.geometry, row)
    return f"{first}; {article(x)} would make it a legal hand (the only tile that does{where})"


def flower_beside_alike(geo, tiles: Sequence[str | None], roles: Sequence[str], num: Mapping[int, int],
                        x: str) -> str:
    """"tile 13, read 3f, lies touching tiles 14-15 (2z 2z): if it is a 2z, set it with --fix 13=2z" when a box left
    out (``roles``: not a bonus tile the reading counts), read as a flower or season
    (``tiles``: the reading's, the classifier's for a box left out), lies in line touching two or more of the hand's
    tiles of face ``x`` — the one playing tile that makes the hand (:func:`_missing_tile_hint`) —, measured in the main
    row's frame (:attr:`vision.layout.Geometry.main_extent`, ``main_offset``); "" otherwise. A phone tester's [222z], its
    first 2z read 3f at 50 % and left out, was told to add a 2z after the row, a new box where one lay already (a
    director's photo of it then read 2 points for 6, ok). Raises nothing."""
    ext, off = geo.main_extent, geo.main_offset
    if x not in PLAYING_TILES or not ext or not off:
        return ""
    for p, role in enumerate(roles):
        face = tiles[p] if p < len(tiles) else None
        if role != "ignored" or face is None or face in PLAYING_TILES or face == BACK or p not in num \
                or p >= len(ext) or ext[p] is None:
            continue
        def touch(a: int, b: int) -> bool:  # (along the main row, within a quarter of their mean size)
            return abs(ext[a][0] - ext[b][0]) <= (ext[a][1] + ext[b][1]) / 2 * 1.25

        # the hand's tiles of face x in line with it; those it touches, and those touching them: the run it completes
        in_line = [q for q, r in enumerate(roles) if r in ("concealed", "exposed", "winning") and tiles[q] == x
                   and q < len(ext) and ext[q] is not None and q in num and abs(off[q] - off[p]) < 0.5]
        run = {q for q in in_line if touch(q, p)}
        if not run:
            continue
        for q in in_line:  # (in order, each joining the run as it is found)
            if q not in run and any(touch(q, k) for k in run):
                run.add(q)
        if len(run) < 2:
            continue
        nums = sorted(num[q] for q in run)
        return (f"tile {num[p]}, read {face}, lies touching tiles {number_spans(nums)} ({' '.join([x] * len(nums))}): "
                f"if it is {article(x)}, set it with --fix {num[p]}={x}")
    return ""


def winning_apart_words(x: str, where: str, bonus_at: Beside, geo, row: Sequence[int]) -> str:
    """``where`` (:func:`place_words` of the one tile ``x`` a winner's hand lacks, its reading holding no winning
    tile) with, first, "; tile 14, read 1f, lies set apart after the row's end, where a winning tile lies: if it is
    the 1s, set it with --fix 14=1s; if it is a 1f, a 1s is missing" where a flower or season of ``bonus_at``
    (:func:`row_ends`) lies after the row's end — alone, set apart after the concealed tiles ``row`` of
    :class:`vision.layout.Geometry` ``geo`` (:func:`alone_after`: a reviewer's 1f touching the row, and the first of
    1f 2f laid after it, had been said so) — and ``where`` names no ``--fix`` of it already: the winning tile set
    apart there, misread (a phone tester's winning 1s, its bird read 1f at 19 %, was told only to add a 1s in suit
    order, which made 123789m456p11567s +1f, 176 for 208 "> 99 % sure of the score"). Raises nothing."""
    after = bonus_at[1]
    if after is None or x not in PLAYING_TILES or f"--fix {after[0]}=" in where or not alone_after(geo, row):
        return where
    return (f"; tile {after[0]}, read {after[1]}, lies set apart after the row's end, where a winning tile lies: "
            f"if it is the {x}, set it with --fix {after[0]}={x}; if it is {article(after[1])}, {article(x)} is "
            f"missing" + where)


def _extra_tile_hint(lay: Layout, tiles: Sequence[str | None], raw: Sequence[str | None], roles: Sequence[str],
                     conc: list[str], melds: list[MeldReading], bonus_codes: Mapping[int, str], win, ctx: Context,
                     rs: Ruleset, readings: TileReadings | None = None) -> str:
    """For a reading one tile over the hand's count, the concealed tiles whose leaving out makes the tiles as
    read a hand the ruleset scores: "; leaving out tile 10 (6z), at its row's end, makes a legal hand: …" with
    its ``--fix`` where one tile does, or tiles of one face of which one lies at an end of its row (a stray laid
    beside the hand; any of them reads the same tiles); else the tiles that do, by face (up to
    :data:`EXTRA_NAMED` faces, those at a row's end first), for the user to look — leaving out tiles of other
    faces reads other hands (a reviewer's 1111m 23456789m 555p was told to leave out tile 1, 24 points, where
    tile 15 scored 28); "" when none does. A tester's demo with a stray 6z after its winning 8p was told only to
    leave out boxes that are not the hand's, left out a 6z of the pair instead, and the stray became the
    winning tile: 44 points for 40 at > 99 %. A tile so found that lies beside a bonus tile in its group is said to
    be perhaps a flower or season itself, with the ``--fix`` to its likeliest bonus face (``readings``): a tester's
    1f beside a 3y at the row's end, read 1s, was named only to be left out."""
    geo = lay.geometry
    ends = set()
    for row in geo.rows:
        row_tiles = [t for g in row for t in geo.groups[g].tiles if roles[t] in ("concealed", "winning")]
        ends.update(row_tiles[:1] + row_tiles[-1:])
    found = []
    for p, role in enumerate(roles):
        if role not in ("concealed", "winning") or tiles[p] in (None, BACK):
            continue
        rest = list(conc)
        rest.remove(raw[p])
        if _legal_as_read(rest, melds, bonus_codes, None if role == "winning" else win, ctx, rs):
            found.append(p)
    if not found:
        return ""
    num = _numbers(lay)
    found.sort(key=lambda p: (p not in ends, num[p]))  # (those at a row's end first)
    by_face: dict[str, list[int]] = {}
    for p in found:
        by_face.setdefault(raw[p], []).append(num[p])  # type: ignore[index]
    flower = (_beside_bonus_words(lay, found, raw, readings, num, set(bonus_codes.values()))
              if readings is not None else "")
    if len(found) == 1 or (len(by_face) == 1 and found[0] in ends):
        # (one tile, or one face, of which leaving out any reads the same tiles: the one at a row's end, likeliest a
        # stray, is named, so that a sideways winning tile keeps its role — and never the winning tile where another
        # of its face will do: a web tester's 6z set apart as the winning tile was the one named, and leaving it out
        # read the hand with no winning tile, 104 for 120)
        p = next((q for q in found if roles[q] != "winning"), found[0])
        where = ", at its row's end," if p in ends else ""
        # (a flower or season laid among the hand's tiles is read as one of them: a tester's 1f inside the row was told
        # only to leave it out, 176 under swedish at > 99 % for 416 with the flower counted)
        bonus = (f"; if it is the hand's {'flower' if raw[p][1] == 'f' else 'season'}, count it as a bonus tile with "
                 f"--fix {num[p]}=- --add {number_after_hand(lay.geometry.order, roles)}={raw[p]}"
                 if raw[p] in BONUS_TILES else "")
        return (f"; leaving out tile {num[p]} ({raw[p]}){where} makes a legal hand: if it is not the hand's (a stray "
                f"tile), leave it out with --fix {num[p]}=-") + bonus + flower
    faces = list(by_face.items())[:EXTRA_NAMED]
    said = " or ".join(f"{number_spans(sorted(nums))} ({face})" for face, nums in faces) + (
        " …" if len(by_face) > EXTRA_NAMED else "")
    each = "" if len(by_face) == 1 else ", each face another hand"
    return (f"; leaving out one of tiles {said} makes a legal hand{each}: look at the photo for the one that is not "
            f"the hand's (a stray tile), and leave it out with --fix POS=-") + flower


#: two touching boxes of a row taken for one tile laid sideways boxed twice (:func:`_boxed_twice_hint`): they overlap
#: along the row by at least this share of the narrower one …
TWICE_OVERLAP = 0.25
#: … together they are longer along the row than across it by this factor …
TWICE_LONG = 1.05
#: … and they are lower across it than the row's tiles by this factor (a sideways tile shows its width there)
TWICE_LOW = 0.95


#: a legal reading's confidence is × this for each two neighbouring boxes of the hand read as one face that overlap
#: like one tile laid sideways that the detector boxed as two upright halves (:func:`_boxed_twice_sureness`)
BOXED_TWICE = 0.5
#: the words of its note
BOXED_TWICE_NOTE = "overlap like one tile laid sideways boxed twice"


def _twice_boxed(ext, a: int, b: int, tile_h: float) -> bool:
    """The boxes ``a`` and ``b`` (detection indices; ``ext``: :attr:`vision.layout.Geometry.main_extent`, pixels in
    the main row's frame) overlap along the row by :data:`TWICE_OVERLAP` of the narrower, are together longer along
    it than across (:data:`TWICE_LONG`) and lower across it than the row's tiles (:data:`TWICE_LOW` of ``tile_h``):
    one tile laid sideways boxed as two upright halves."""
    if max(a, b) >= len(ext) or ext[a] is None or ext[b] is None or tile_h <= 0:
        return False
    (ua, wa, ha), (ub, wb, hb) = ext[a], ext[b]
    overlap = (wa + wb) / 2 - abs(ua - ub)
    long_ = abs(ua - ub) + (wa + wb) / 2
    high = max(ha, hb)
    return overlap >= TWICE_OVERLAP * min(wa, wb) and long_ >= TWICE_LONG * high and high <= TWICE_LOW * tile_h


def _boxed_twice_sureness(reading: Reading, lay: Layout, readings: TileReadings | None = None) -> Reading:
    """``reading`` (legal) with its confidence × :data:`BOXED_TWICE` for each two neighbouring boxes of a group, tiles
    of the hand (concealed, winning or exposed) read as one face, that overlap like one tile laid sideways that the
    detector boxed as two upright halves (:func:`_twice_boxed`), and one note naming them with the ``--fix`` that
    makes them one. A phone tester's hand with its winning 9p laid sideways and a claimed 4p laid sideways in a
    meld, each boxed as two halves (9p 9p; 2p 2p, a 4p's halves), the meld's two upright 4p then left out, was read
    22999p234567s [111m] at 93 %, 28 points for 30. A pair both of whose faces the user set (``--fix``: in
    ``readings``, one class alone, :func:`vision.pipeline.apply_fixes`) is two tiles, as the note says to confirm
    (a reviewer's). Raises nothing."""
    geo = lay.geometry
    ext = geo.main_extent
    if not reading.legal or reading.hand is None or not ext:
        return reading

    def user_set(t: int) -> bool:
        return readings is not None and t < len(readings) and int(np.count_nonzero(readings.probs[t])) == 1

    hand_roles = ("concealed", "winning", "exposed")
    pairs: list[tuple[int, int]] = []
    for g in geo.groups:
        for a, b in zip(g.tiles, g.tiles[1:]):
            if (reading.roles[a] in hand_roles and reading.roles[b] in hand_roles
                    and reading.tiles[a] == reading.tiles[b] and reading.tiles[a] in PLAYING_TILES
                    and not any(a in p or b in p for p in pairs) and not (user_set(a) and user_set(b))
                    and _twice_boxed(ext, a, b, geo.tile_h)):
                pairs.append((a, b))
    if not pairs:
        return reading
    num = _numbers(lay)
    said = " and ".join(f"{num[a]} and {num[b]} ({reading.tiles[a]}, {reading.tiles[b]})" for a, b in pairs)
    fix = ",".join(f"{num[b]}=-" for a, b in pairs)
    two = ",".join(f"{num[x]}={reading.tiles[x]}" for a, b in pairs for x in (a, b))
    one = len(pairs) == 1
    note = (f"unsure: tiles {said} {'' if one else 'each '}{BOXED_TWICE_NOTE}: if {'it is' if one else 'they are'} "
            f"one tile, leave the second box out with --fix {fix} (a tile laid sideways may be a claimed meld's: "
            f"name the melds with --exposed), and set its face if it is another (a sideways 4p's halves read 2p); if "
            f"they are two tiles, say so with --fix {two}")
    return replace(reading, confidence=reading.confidence * BOXED_TWICE ** len(pairs), notes=reading.notes + (note,),
                   boxed_twice=tuple(pairs))


def _boxed_twice_hint(lay: Layout, raw: Sequence[str | None], roles: Sequence[str], conc: list[str],
                      melds: list[MeldReading], bonus_codes: Mapping[int, str], win, ctx: Context,
                      rs: Ruleset) -> str:
    """For a reading one tile over the hand's count: two neighbouring concealed tiles of a group whose boxes overlap
    along the row (:data:`TWICE_OVERLAP`), together longer than they are high (:data:`TWICE_LONG`) and lower than
    the row's tiles (:data:`TWICE_LOW`) — one tile laid sideways that the detector boxed as two upright halves —
    and the faces that, in their place, make the tiles as read a hand ``rs`` scores: "; tiles 11 and 12 (2p, 2p)
    overlap like one tile laid sideways boxed twice: if it is one, set it with --fix 11=4p,12=- …", with
    ``--winning-tile`` where the pair ends the concealed row of a winner's hand with no winning tile read (the
    place docs/photo.md gives the winning tile). "" when no pair is so (or no face makes a legal hand). A phone
    tester's 4p laid sideways at the row's end was read as two 2p: "found 15 tiles", with no word of which.
    Uses :attr:`vision.layout.Geometry.main_extent` (pixels in the main row's frame)."""
    geo = lay.geometry
    ext = geo.main_extent
    if not ext or geo.tile_h <= 0:
        return ""
    num = _numbers(lay)
    hand_roles = ("concealed", "winning")
    row_conc = [t for t in geo.row_tiles(geo.main_row) if roles[t] in hand_roles] if geo.rows else []
    out = []
    for g in geo.groups:
        for a, b in zip(g.tiles, g.tiles[1:]):
            if roles[a] not in hand_roles or roles[b] not in hand_roles or raw[a] in (None, BACK) \
                    or raw[b] in (None, BACK) or raw[a] in BONUS_TILES or raw[b] in BONUS_TILES:
                continue
            if not _twice_boxed(ext, a, b, geo.tile_h):
                continue
            rest = list(conc)
            rest.remove(raw[a])  # type: ignore[arg-type]
            rest.remove(raw[b])  # type: ignore[arg-type]
            # (a half read as the winning tile stands for no tile of its own: the merged tile takes its place)
            w = None if "winning" in (roles[a], roles[b]) else win
            at_end = bool(row_conc) and {a, b} == set(row_conc[-2:]) and ctx.winner and w is None
            faces = [x for x in PLAYING_TILES
                     if _legal_as_read(rest + [x], melds, bonus_codes, x if at_end else w, ctx, rs)]
            if not faces:
                continue
            # (the halves' suit first: a sideways 4p's halves read 2p)
            faces.sort(key=lambda f: f[1] not in (raw[a][1], raw[b][1]))  # type: ignore[index]
            x = faces[0]
            said = " or ".join(article(f) for f in faces[:EXTRA_NAMED]) + (" …" if len(faces) > EXTRA_NAMED else "")
            won = " (a tile laid sideways at the row's end is the winning tile)" if at_end else ""
            out.append(f"; tiles {num[a]} and {num[b]} ({raw[a]}, {raw[b]}) overlap like one tile laid sideways boxed "
                       f"twice{won}: {said} there makes a legal hand; if it is one, set it with --fix "
                       f"{num[a]}={x},{num[b]}=-" + (f" --winning-tile {x}" if at_end else ""))
    return "".join(out)


def _beside_bonus_words(lay: Layout, found: Sequence[int], raw: Sequence[str | None], readings: TileReadings,
                        num: Mapping[int, int], held: Collection[str] = ()) -> str:
    """"; tile 15 (1s) lies beside a flower or season: if it is one, set it with --fix 15=1f" for each of ``found``
    (detection indices) next to a bonus tile of :attr:`Layout.bonus` in its row's group, with its likeliest bonus face
    that ``held`` (the faces the hand's bonus tiles show: a set holds each face once) leaves free; "" when none is."""
    bonus = set(lay.bonus)
    free = [k for k, c in zip(BONUS_INDEX, BONUS_TILES) if c not in set(held)]
    out = []
    for p in found:
        g = next((g.tiles for g in lay.geometry.groups if p in g.tiles), ())
        k = g.index(p) if p in g else -1
        if free and k >= 0 and any(0 <= j < len(g) and g[j] in bonus for j in (k - 1, k + 1)):
            face = CLASS_NAMES[max(free, key=lambda c: float(readings.probs[p, c]))]
            out.append(f"; tile {num[p]} ({raw[p]}) lies beside a flower or season: if it is one, set it with "
                       f"--fix {num[p]}={face}")
    return "".join(out)


#: the faces a hand one tile over names whose leaving out makes it legal (:func:`_extra_tile_hint`), at most
EXTRA_NAMED = 4


#: a hand that no reading makes legal names the single tiles whose change would, when there are at most this many
ONE_CHANGE_NAMED = 3


def _one_change_hint(lay: Layout, tiles: Sequence[str | None], roles: Sequence[str], conc: list[str],
                     melds: list[MeldReading], bonus_codes: Mapping[int, str], win, ctx: Context, rs: Ruleset,
                     readings: TileReadings) -> str:
    """For a hand of the right count that its tiles as read do not make: "; one tile misread? tile 7 (7z) as a 1s
    (--fix 7=1s) or a 4s (--fix 7=4s) would make a legal hand: look at it" — each concealed tile whose reading changed
    to another playing tile makes a hand ``rs`` scores (:func:`_legal_as_read`; the winning tile changed with it
    where it is the tile changed), at most :data:`ONE_CHANGE_NAMED` (tile, face) pairs, likeliest first (the
    classifier's probability of the new face); "" when none or more do. Of a face read on several tiles the one
    likeliest to be the new face is named. A phone tester's 1s read 7z at 98 % was told only the least sure tiles, of
    which it was the second, with no word of what it might be. At most :data:`ONE_CHANGE_CALLS` hands are scored (the
    rulesets with special hands take the scorer for every change); the answers are kept for the reading's other
    regions and passes (:data:`_ONE_CHANGE_SEEN`). Raises nothing."""
    num = _numbers(lay)
    where: dict[str, list[int]] = {}
    for p in lay.geometry.order:
        if roles[p] in ("concealed", "winning") and tiles[p] in PLAYING_TILES and p in num:
            where.setdefault(tiles[p], []).append(p)
    found: list[tuple[float, int, str]] = []
    key0 = (rs.id, ctx, tuple(sorted(conc)), tuple((m.kind, tuple(m.shown), m.concealed) for m in melds),
            tuple(sorted(bonus_codes.values())))
    calls = 0
    for code, ps in where.items():
        if code not in conc:
            continue
        k = conc.index(code)
        for x in PLAYING_TILES:
            if x == code:
                continue
            p = max(ps, key=lambda q: float(readings.probs[q][CLASS_INDEX[x]]))  # (the tile named, chosen first)
            changed = conc[:k] + [x] + conc[k + 1:]
            if _shape_ok([PLAYING_TILES.index(c) for c in changed], len(melds), rs, ctx.winner) is False:
                continue
            w = x if roles[p] == "winning" or (win == code and conc.count(code) == 1) else win
            key = (key0, code, x, w)
            legal = _ONE_CHANGE_SEEN.get(key)
            if legal is None:
                calls += 1
                if calls > ONE_CHANGE_CALLS:
                    return ""
                legal = _ONE_CHANGE_SEEN[key] = _legal_as_read(changed, melds, bonus_codes, w, ctx, rs)
                if len(_ONE_CHANGE_SEEN) > 20000:
                    _ONE_CHANGE_SEEN.clear()
            if legal:
                found.append((float(readings.probs[p][CLASS_INDEX[x]]), p, x))
                if len(found) > ONE_CHANGE_NAMED:
                    return ""
    if not found:
        return ""
    found.sort(key=lambda f: -f[0])
    by_tile: dict[int, list[str]] = {}
    for _, p, x in found:
        by_tile.setdefault(p, []).append(x)
    said = " or ".join(f"tile {num[p]} ({tiles[p]}) as " + " or ".join(f"{article(x)} (--fix {num[p]}={x})" for x in xs)
                       for p, xs in by_tile.items())
    return f"; one tile misread? {said} would make a legal hand: look at it"


#: the most hands :func:`_one_change_hint` scores for one reading: 14 faces × 33 changes and a few over (a ruleset
#: with special hands scores each change; under dutch-special-hands 462 take about 0.4 s on this 2-core machine)
ONE_CHANGE_CALLS = 480
#: (ruleset, context, tiles, change, winning tile) → whether the changed tiles make a hand it scores: kept across the
#: regions and passes of a photo, which read the same tiles again
_ONE_CHANGE_SEEN: dict = {}


def _legal_as_read(conc: list[str], melds: list[MeldReading], bonus_codes: Mapping[int, str], win, ctx: Context,
                   rs: Ruleset) -> bool:
    """The tiles exactly as read make a hand that ``rs`` scores (:func:`_scored_as_read`)."""
    return _scored_as_read(conc, melds, bonus_codes, win, ctx, rs) == ""


def _scored_as_read(conc: list[str], melds: list[MeldReading], bonus_codes: Mapping[int, str], win, ctx: Context,
                    rs: Ruleset) -> str | None:
    """The tiles exactly as read made into a hand and scored under ``rs``: "" when it scores, the scorer's
    refusal when it does not (:class:`~scoring.HandError`), None when they make no hand to give it (a back or
    a flower among the concealed tiles, a meld that is none)."""
    if any(c == BACK or c in BONUS for c in conc):
        return None
    built = []
    for m in melds:
        shown = [c for c in m.shown if c != BACK]
        try:
            kind_tiles = parse_tiles("".join(c for c in _expand(shown, len(m.shown))))
            built.append(meld_from_tiles(kind_tiles, concealed=m.concealed))
        except (HandError, ValueError):
            return None
    try:
        hand = make_hand(conc, built, sort_tiles(bonus_codes.values()), win, ctx, check_circumstances=False)
        score_hand(hand, rs, win_notes=False)
    except HandError as e:
        return str(e)
    return ""


def _ruleset_refusal(conc: list[str], melds: list[MeldReading], bonus_codes: Mapping[int, str], win,
                     ctx: Context, rs: Ruleset) -> str | None:
    """The scorer's refusal of the tiles exactly as read, when they make a hand of the right count
    and legal melds (so the tiles are not the problem, the ruleset is), else None."""
    return _scored_as_read(conc, melds, bonus_codes, win, ctx, rs) or None


def _expand(shown: list[str], n: int) -> list[str]:
    """A meld's face-up tiles as read, its face-down ones filled with its face (a concealed kong)."""
    if not shown:
        return []
    return shown + [shown[0]] * (n - len(shown))


def _loose_compact(codes: list[str]) -> str:
    """Compact notation without validation (raw readings may hold impossible tiles)."""
    order = {"m": 0, "p": 1, "s": 2, "z": 3, "f": 4, "y": 5, "x": 6}
    return compact_in_order(sorted(codes, key=lambda c: (order.get(c[1], 9), c[0])))
