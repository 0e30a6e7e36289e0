"""The glyph reader (vision.glyphs): the likelihood it multiplies in, the regions it reads, and the
recogniser itself on faces the project renders (the tall-box turn rule is tested in test_realcrops)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision import glyphs as G
from vision.classes import CLASS_INDEX, NUM_CLASSES
from vision.detect import Detections


def _p(**codes: float) -> np.ndarray:
    """One row of probabilities: the named classes at their values, the rest spread evenly."""
    p = np.zeros(NUM_CLASSES)
    for c, v in codes.items():
        p[CLASS_INDEX[c]] = v
    rest = [i for i in range(NUM_CLASSES) if p[i] == 0]
    p[rest] = (1 - p.sum()) / len(rest)
    return p[None].astype(np.float32)


def _scores(face=None, corner=None, numeral=None, top=None) -> G.GlyphScores:
    s = G.GlyphScores.empty(1)
    for arr, vals, keys in ((s.face, face, list(G.HONOUR_GLYPHS)), (s.corner, corner, list(G.BONUS_GLYPHS)),
                            (s.numeral, numeral, [str(n) for n in G.NUMERALS]),
                            (s.top, top, [g[0] for g in G.CHAR_NUMERALS.values()])):
        if vals is not None:
            arr[0] = 0.0
            for k, v in vals.items():
                arr[0, keys.index(k)] = v
    return s


def test_nothing_read_leaves_the_reading_as_it_was():
    p = _p(**{"2z": 0.6, "3z": 0.3})
    assert np.allclose(G.second_opinion(p, G.GlyphScores.empty(1)), p, atol=1e-6)
    # regions read but nothing on them: every class gets the same floors
    blank = _scores(corner={}, numeral={})
    assert np.allclose(G.second_opinion(p, blank), p, atol=1e-6)


def test_an_honour_glyph_read_on_the_face_outweighs_a_confident_misreading():
    # a real crop's West read as South at 0.97 (599.jpg: 3z at 0.025); 西 read at 0.9 on the face
    p = _p(**{"2z": 0.97, "3z": 0.025})
    q = G.second_opinion(p, _scores(face={"3z": 0.9, "2z": 0.01}))
    assert q[0].argmax() == CLASS_INDEX["3z"]
    # factors: 3z (0.01 + 0.9) / 2z (0.01 + 0.01) = 45.5
    assert abs(q[0, CLASS_INDEX["3z"]] / q[0, CLASS_INDEX["2z"]] - 0.025 / 0.97 * 45.5) < 1e-3


def test_a_corner_numeral_picks_the_bonus_tile_of_its_number_and_the_character_the_tile():
    p = _p(**{"3f": 0.35, "4f": 0.2, "4y": 0.25})
    q = G.second_opinion(p, _scores(corner={}, numeral={"4": 0.95}))
    assert q[0].argmax() == CLASS_INDEX["4y"]  # the number says 4; flower or season stays the classifier's
    q = G.second_opinion(p, _scores(corner={"4f": 0.6}, numeral={"4": 0.95}))
    assert q[0].argmax() == CLASS_INDEX["4f"]  # 竹 read: bamboo, the fourth flower
    # the numeral counts for the suit tiles of that number too (sets with index numerals on every tile)
    p2 = _p(**{"4p": 0.5, "6p": 0.4})
    assert G.second_opinion(p2, _scores(corner={}, numeral={"6": 0.9}))[0].argmax() == CLASS_INDEX["6p"]


def test_likelihood_is_one_for_unread_tiles_and_the_floor_ratios_otherwise():
    s = G.GlyphScores.empty(2)
    s.face[1] = 0.0
    s.face[1, list(G.HONOUR_GLYPHS).index("7z")] = 1.0
    L = G.likelihood(s)
    assert L.shape == (2, NUM_CLASSES) and np.all(L[0] == 1.0)
    assert L[1, CLASS_INDEX["7z"]] == pytest.approx(G.GLYPH_FLOOR + 1.0)
    assert L[1, CLASS_INDEX["5z"]] == pytest.approx(G.GLYPH_FLOOR)


def test_wanted_gates_on_the_kind_of_glyph_and_never_reads_a_face_down_tile():
    p = np.concatenate([_p(**{"5m": 0.99}), _p(**{"1f": 0.95}), _p(**{"7z": 0.95}), _p(**{"1f": 0.95})])
    corners, face = G.wanted(p, np.array([False, False, False, True]))
    assert corners.tolist() == [False, True, False, False]
    assert face.tolist() == [False, False, True, False]


def test_regions_are_cut_from_the_tile_turned_upright():
    img = np.zeros((100, 200, 3), np.uint8)
    img[10:20, 50:60] = 255  # a mark near the top-left corner of a box (40, 0)–(120, 100)
    box = (40, 0, 120, 100)
    up = G._upright(img, box, 0)
    assert up.shape == (100, 80, 3) and G._region(up, G.CORNERS[0]).max() == 255
    assert G._region(up, G.CORNERS[1]).max() == 0
    # the same box read upside-down: the mark is now near the bottom-right, in neither top corner
    down = G._upright(img, box, 2)
    assert all(G._region(down, c).max() == 0 for c in G.CORNERS)
    # a quarter turn counter-clockwise (np.rot90, as the classifier's crops): top-left goes bottom-left
    side = G._upright(img, box, 1)
    assert side.shape == (80, 100, 3) and side[-30:, :30].max() == 255
    assert G._upright(img, (-50, -50, -10, -10), 0) is None  # outside the image
    assert G._upright(img, (40, 0, 40 + G.MIN_TILE_W - 1, 100), 0) is None  # too small to read a corner glyph
    assert G._upright(img, (40, 0, 40 + G.MIN_TILE_W - 1, 100), 1) is not None  # turned, it is 100 wide


def test_a_weak_numeral_is_noise():
    p = _p(**{"3f": 0.35, "4f": 0.3})
    weak = G.second_opinion(p, _scores(corner={}, numeral={"4": G.NUMERAL_NOISE}))
    assert np.allclose(weak, p, atol=1e-6)  # at the noise level: no evidence at all
    assert G.second_opinion(p, _scores(corner={}, numeral={"4": 0.8}))[0].argmax() == CLASS_INDEX["4f"]


# ----------------------------------------------------------------------------- the recogniser itself
@pytest.fixture(scope="module")
def reader():
    try:
        return G.load_glyph_reader(1)
    except Exception as e:  # the wheel is a dependency: only a broken install lacks it
        pytest.fail(f"glyph reader missing: {e}")


def _face(code: str, style: int) -> np.ndarray:
    from datasets import faces

    if not faces.cjk_fonts():
        pytest.skip("no CJK font for the generator's procedural faces (apt-get install fonts-wqy-zenhei)")
    return np.ascontiguousarray(faces.compose_face(faces.proc_art(style, code), (235, 230, 215), 150, 200, 12)[..., :3])


def test_the_recogniser_reads_rendered_bonus_tiles_and_honours(reader):
    """Faces of the project's own procedural styles (datasets.faces.proc_art): the corner numeral and
    character of a season tile, and an honour's character."""
    right = 0
    for style in (0, 8, 16):
        img = _face("3y", style)
        H, W = img.shape[:2]
        s = reader.read(img, np.array([[0, 0, W, H]], np.float32), np.array([0]), np.array([True]), np.array([False]))
        right += int(np.nanargmax(s.numeral[0]) == 2) + int(list(G.BONUS_GLYPHS)[int(np.nanargmax(s.corner[0]))] == "3y")
        assert np.isnan(s.face[0]).all()  # not asked for
        west = _face("3z", style)
        s = reader.read(west, np.array([[0, 0, W, H]], np.float32), np.array([0]), np.array([False]), np.array([True]))
        right += int(list(G.HONOUR_GLYPHS)[int(np.nanargmax(s.face[0]))] == "3z")
    assert right >= 8  # of 9 (all 9 when written)


class _FakeModel:
    pass


def _stub(rows_by_turn, rotation="upright"):
    """A Classifier whose network reads the crop's turn and tile from marker pixels: ``rows_by_turn[k]``
    (N, 43) are the readings of the N tiles turned k quarter turns (np.rot90, as Classifier.read turns
    its crops)."""
    from vision.classify import Classifier

    class Stub(Classifier):
        passes: list = []

        def _outputs(self, crops, emb, tile):
            Stub.passes.append(len(crops))
            out = []
            for c in crops:  # the tile's index in the centre's green, the turn from where the red corner went
                i = int(c[c.shape[0] // 2, c.shape[1] // 2, 1])
                red = [c[0, 0, 0], c[-1, 0, 0], c[-1, -1, 0], c[0, -1, 0]]  # np.rot90 takes (0,0) → (-1,0) → …
                out.append(rows_by_turn[int(np.argmax(red))][i])
            return np.array(out, np.float32), None, None

        @property
        def has_tileness(self):
            return False

    return Stub(_FakeModel(), 32, 0.0, "stretch", rotation, None)


def _tagged_image(n):
    """A photo of n tall boxes, each marked with its index (green) and a red top-left corner."""
    img = np.zeros((100, 60 * n, 3), np.uint8)
    boxes = []
    for i in range(n):
        x0 = 60 * i + 5
        img[10:90, x0:x0 + 50, 1] = i
        img[10:16, x0:x0 + 6, 0] = 255
        boxes.append([x0, 10, x0 + 50, 90])
    return img, Detections.make(boxes)


def test_the_classifier_takes_the_glyph_readers_opinion_only_on_gated_tiles():
    """Classifier.read multiplies in the glyph likelihood of the tiles wanted() picks (here an unsure
    honour's face); the other tile is not read and keeps its reading; with glyphs=None the model
    alone; TileReadings.glyphs / was say what was read and what the picture alone read."""
    calls = []

    class FakeReader:
        def read(self, image, boxes, turns, corners, face, top=None):
            calls.append((corners.tolist(), face.tolist()))
            s = G.GlyphScores.empty(len(boxes))
            s.face[face] = 0.0
            s.face[face, list(G.HONOUR_GLYPHS).index("3z")] = 0.95
            return s

    up = np.concatenate([_p(**{"2z": 0.95, "3z": 0.02}), _p(**{"5p": 0.97})])
    base = _stub({k: up for k in range(4)})
    img, det = _tagged_image(2)
    alone = base(img, det)
    assert alone.codes == ("2z", "5p") and calls == [] and alone.glyphs == ("", "")
    withg = replace(base, glyphs=FakeReader())(img, det)
    assert withg.codes == ("3z", "5p")
    assert calls == [([False], [True])]  # only the gated tile, its face
    assert np.allclose(withg.probs[1], alone.probs[1])
    assert withg.glyphs == ("西", "") and withg.was == ("2z", "")


def test_a_bonus_tile_read_upside_down_is_turned_over_by_its_corners():
    """The whole Classifier.read path (turn search, crops turned with np.rot90, the half turn): a
    tall tile the classifier reads best upside-down (5m) whose corners, read upright, show 4 and 冬
    is read 4y, upright; the glyphs that speak for it are named. A sure tile is not read."""
    rows = {0: np.concatenate([_p(**{"4y": 0.2, "4f": 0.15, "5m": 0.1}), _p(**{"7p": 0.99})]),
            2: np.concatenate([_p(**{"5m": 0.6, "4y": 0.02}), _p(**{"7p": 0.2})]),
            1: np.concatenate([_p(**{"1m": 0.2}), _p(**{"7p": 0.2})]),
            3: np.concatenate([_p(**{"1m": 0.2}), _p(**{"7p": 0.2})])}
    read_at = []

    class Reader:
        def read(self, image, boxes, turns, corners, face, top=None):
            read_at.extend(int(t) for t in turns)
            s = G.GlyphScores.empty(len(boxes))
            s.corner[corners] = 0.0
            s.numeral[corners] = 0.0
            for k, t in enumerate(turns):
                if corners[k] and t == 0:  # the right way up
                    s.corner[k, list(G.BONUS_GLYPHS).index("4y")] = 0.8
                    s.numeral[k, 3] = 0.95
            return s

    img, det = _tagged_image(2)
    stub = _stub(rows)
    r = replace(stub, glyphs=Reader())(img, det)
    assert r.codes == ("4y", "7p") and r.pose == ("upright", "upright")
    # the turn search's own pass at 0° gives the turned-over reading: no third pass of the graph
    assert type(stub).passes == [2, 3]
    assert r.glyphs[0] == "numeral 4, 冬" and r.was[0] == "5m"
    assert sorted(read_at) == [0, 2]  # tile 0 at its turn (180°) and turned back; tile 1 never
    # a classifier that reads every pose is never turned over
    r2 = replace(_stub(rows, rotation="invariant"), glyphs=Reader())(img, det)
    assert r2.pose[0] == "upright" and sorted(read_at[2:]) == [0]


def test_glyph_turns_turns_a_tile_over_only_for_a_clearly_better_reading():
    """vision.classify.glyph_turns on three tiles: one read only on its face (an honour), two read at
    the corners both ways up. The reading turned half round is taken at 2.6× the glyph weight, not at
    1.5× (classify.TURN_EVIDENCE = 2), nor on a tie (nothing read either way)."""
    from vision.classify import TURN_EVIDENCE, glyph_turns

    assert TURN_EVIDENCE == 2.0
    probs = np.concatenate([_p(**{"2z": 0.6, "3z": 0.3}), _p(**{"4f": 0.5, "3f": 0.4}), _p(**{"3m": 0.9})])
    turn = np.array([0, 0, 0])
    turned = np.concatenate([_p(**{"1m": 0.5}), _p(**{"4f": 0.5, "3f": 0.4}), _p(**{"3y": 0.5})])
    half_asked = []

    def run(ratio):
        def half(idx):
            half_asked.append(list(idx))
            return turned[idx], None, None

        def read(idx, turns, cm, fm, tm=None):
            s = G.GlyphScores.empty(len(idx))
            for k, (i, t) in enumerate(zip(idx, turns)):
                if fm[k]:
                    s.face[k] = 0.0
                    s.face[k, list(G.HONOUR_GLYPHS).index("3z")] = 0.9
                if cm[k]:
                    s.corner[k] = 0.0
                    s.numeral[k] = 0.0
                    if i == 1:  # the same glyph (竹) both ways, far stronger turned over
                        s.corner[k, list(G.BONUS_GLYPHS).index("4f")] = 0.1 * (ratio if t == 2 else 1.0)
            return s

        return glyph_turns(probs, turn, None, None, np.array([False, True, True]),
                           np.array([True, False, False]), half, read)

    for ratio, turned_over in ((1.5, False), (2.6, True)):
        p, t, emb, tile, seen = run(ratio)
        # evidence (0.01 + 0.1·r) / (0.01 + 0.1) on the 4f share: ×1.45 for r = 1.5, ×2.45 for r = 2.6
        assert t.tolist() == [0, 2 if turned_over else 0, 0], ratio
        assert p[0].argmax() == CLASS_INDEX["3z"]  # the face read 西
        assert np.allclose(p[2], probs[2], atol=1e-6)  # nothing weighs: its reading is kept, not turned
        assert seen.describe(["3z", "4f", "3m"]) == ["西", "竹", ""]
        assert np.isnan(seen.corner[0]).all() and np.isnan(seen.face[1]).all()
    assert half_asked == [[1, 2], [1, 2]]  # the corner tiles only


def test_a_near_tie_is_not_settled_by_glyph_noise():
    """A tile with no glyph that weighs ×2 keeps the classifier's reading (a 東 at 0.004 read on a
    2z/1z near tie used to flip it and say "read 1z by what is written on it ()")."""
    p = _p(**{"2z": 0.30, "1z": 0.295})
    s = _scores(face={"1z": 0.004})
    assert not s.weighs()[0]
    assert np.allclose(G.second_opinion(p, s), p, atol=1e-6)
    assert s.describe(["1z"]) == [""]
    strong = _scores(face={"1z": 0.05})
    assert strong.weighs()[0] and G.second_opinion(p, strong)[0].argmax() == CLASS_INDEX["1z"]


def test_a_tile_the_glyphs_changed_is_named_in_the_notes_and_the_json():
    """read_detections notes each hand tile whose reading the glyph reader changed, with what it read
    and what the picture alone read; to_json carries both per tile; --fix clears them for the fixed tile."""
    from vision_fixtures import detections, load, readings

    from scoring import Context, load_ruleset
    from vision.classify import TileReadings
    from vision.io import Photo
    from vision.pipeline import read_detections, to_json

    meta = load("render-s7-12")
    det, rd = detections(meta), readings(meta)
    codes = rd.codes
    k = next(i for i, c in enumerate(codes) if c[1] in "fy" or c[1] == "z")
    glyphs = ["" for _ in codes]
    was = ["" for _ in codes]
    glyphs[k], was[k] = "西", "2z"
    rd2 = TileReadings.make(rd.probs, rd.pose, rd.tile, glyphs, was)
    photo = Photo(np.full((meta["height"], meta["width"], 3), 90, np.uint8), (meta["width"], meta["height"]), 1.0, "x")
    res = read_detections(photo, det, rd2, load_ruleset("nts"), Context())
    pos = res.position(k)
    assert any(n == f"tile {pos} read {codes[k]} by what is written on it (西); the picture alone read 2z"
               for n in res.reading.notes)
    tile = to_json(res)["tiles"][pos - 1]
    assert tile["glyphs"] == "西" and tile["picture_alone"] == "2z"
    # a tile the hand ignores is not named (its glyphs changed it, but it is not the hand's)
    ign = next((i for i, r in enumerate(res.reading.roles) if r == "ignored"), None)
    if ign is not None:
        w2 = list(was)
        w2[ign] = "5m"
        res2 = read_detections(photo, det, TileReadings.make(rd.probs, rd.pose, rd.tile, glyphs, w2),
                               load_ruleset("nts"), Context())
        assert not any(n.startswith(f"tile {res2.position(ign)} read") for n in res2.reading.notes)
    # the decoder changed the tile after the glyphs (another tile's face was needed): no glyph note,
    # no glyph fields; the change is named as a change
    glyphs3, was3 = list(glyphs), list(was)
    glyphs3[k], was3[k] = "南", "3z"
    from dataclasses import replace as _rep

    res3 = read_detections(photo, det, TileReadings.make(rd.probs, rd.pose, rd.tile, glyphs3, was3),
                           load_ruleset("nts"), Context())
    res3 = _rep(res3, reading=_rep(res3.reading, tiles=tuple("9m" if i == k else t for i, t in enumerate(res3.reading.tiles))))
    t3 = to_json(res3)["tiles"][res3.position(k) - 1]
    assert t3["glyphs"] is None and t3["picture_alone"] is None
    fixed = read_detections(photo, det, rd2, load_ruleset("nts"), Context(), fixes={pos: codes[k]})
    assert not any("written on it" in n for n in fixed.reading.notes)
    assert to_json(fixed)["tiles"][pos - 1]["picture_alone"] is None


def test_the_installed_recogniser_is_the_one_the_contract_names():
    """models/CONTRACT.md records the SHA-256 of the recogniser file of the pinned wheel; the installed
    file must be that one (another version of the wheel could ship another model)."""
    import hashlib
    import re
    from pathlib import Path

    root = G.ocr_root()
    assert root is not None, f"{G.OCR_DISTRIBUTION} is not installed"
    contract = (Path(__file__).resolve().parents[1] / "models" / "CONTRACT.md").read_text(encoding="utf-8")
    for rel in (G.OCR_MODEL, G.OCR_CHARSET):
        want = re.search(re.escape(rel.split("/")[-1]) + r"`?\)? ?\(?(?:SHA-256 )?`([0-9a-f]{64})`", contract)
        assert want, f"CONTRACT.md names no SHA-256 for {rel}"
        assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == want.group(1), rel


def test_the_lines_read_in_a_photo_are_capped_surest_glyph_tiles_first():
    n = 30
    probs = np.concatenate([_p(**{"1f": 0.2 + 0.02 * i}) for i in range(n)] + [_p(**{"7z": 0.5})])
    corners = np.r_[np.ones(n, bool), False]
    face = np.r_[np.zeros(n, bool), True]
    c, f = G.within_budget(probs, corners, corners, face)
    per_tile = 2 * len(G.CORNERS)  # (each corner region at both turns)
    assert per_tile * c.sum() + f.sum() <= G.MAX_LINES and c.sum() == G.MAX_LINES // per_tile
    kept = np.nonzero(c)[0]
    assert kept.min() > n - 1 - G.MAX_LINES // per_tile - 1  # the tiles surest to be bonus tiles (the last ones) first
    few_c, few_f = G.within_budget(probs[:3], np.ones(3, bool), np.zeros(3, bool), np.zeros(3, bool))
    assert few_c.all() and not few_f.any()  # under the cap: everything asked for is read


def test_the_reader_refuses_bad_arrays_and_leaves_bad_boxes_unread(reader):
    img = np.full((100, 200, 3), 200, np.uint8)
    ok = np.array([[10, 10, 80, 90]], np.float32)
    one = np.array([True])
    with pytest.raises(ValueError, match="uint8 image"):
        reader.read(img[..., 0], ok, np.array([0]), one, one)
    with pytest.raises(ValueError, match="1 boxes but 2 turns"):
        reader.read(img, ok, np.array([0, 0]), one, one)
    with pytest.raises(ValueError, match="face-down flags"):
        G.wanted(_p(**{"1f": 0.9}), np.array([True, False]))
    s = reader.read(img, np.array([[np.nan, 0, 50, 50], [10, 10, np.inf, 90]], np.float32), np.array([0, 0]),
                    np.array([True, True]), np.array([True, True]))
    assert np.isnan(s.corner).all() and np.isnan(s.face).all()


# ----------------------------------------------------------------------------- character numerals
def test_a_character_numeral_settles_which_character_tile():
    # a real 二萬 read 1m at 0.88 (2m 0.11; crops-real 411): its numeral 二 read at 1.0 above the 萬
    # makes it 2m. The term weighs the character tiles only: 2p is not made likelier by a 二
    p = _p(**{"1m": 0.88, "2m": 0.11})
    post = G.second_opinion(p, _scores(top={"二": 1.0}))[0]
    assert post.argmax() == CLASS_INDEX["2m"]
    assert post[CLASS_INDEX["2m"]] / post[CLASS_INDEX["1m"]] == pytest.approx(0.11 / 0.88 * (1 + 1 / G.NUMERAL_FLOOR), rel=1e-4)
    p2 = _p(**{"1p": 0.6, "2p": 0.3})
    post2 = G.second_opinion(p2, _scores(top={"二": 1.0}))[0]
    assert post2.argmax() == CLASS_INDEX["1p"]
    assert post2[CLASS_INDEX["2p"]] / post2[CLASS_INDEX["1p"]] == pytest.approx(0.5, rel=1e-4)
    assert G.GlyphScores.empty(1).top.shape == (1, 9)
    assert G.GlyphScores(*(np.zeros((1, k), np.float32) for k in (6, 8, 9))).top.shape == (1, 9)  # top not given
    s = _scores(top={"七": 0.9})
    assert s.describe(["7m"]) == ["七"] and s.describe(["6m"]) == [""]


def test_a_character_numeral_read_as_nothing_changes_no_evidence():
    # only the classifier's turn is read for the numeral: a numeral term below 1 where nothing was read
    # would make the tile's reading there less probable than the half turn's (a real 2m read 0.49 was
    # turned over to 2y so, before the term was scaled to 1)
    p = _p(**{"2m": 0.49, "1m": 0.12, "2y": 0.02})
    post, evidence = G.posterior(p, _scores(top={"二": 0.2, "三": 0.1}))  # under the noise level
    assert evidence[0] == pytest.approx(1.0, rel=1e-5) and np.allclose(post, p, atol=1e-6)


def test_wanted_number_reads_unsure_character_tiles_only():
    p = np.concatenate([_p(**{"1m": 0.88, "2m": 0.1}),  # unsure between characters: read
                        _p(**{"1m": 0.99}),  # sure: not read
                        _p(**{"5p": 0.6, "6p": 0.35}),  # a circles tile: no numeral above a 萬
                        _p(**{"6m": 0.5, "7m": 0.4}),  # face-down: never read
                        _p(**{"3m": 0.9, "3p": 0.09})])  # the doubt is the suit, not the number: not read
    assert G.wanted_number(p, np.array([False, False, False, True, False])).tolist() == [True, False, False, False, False]
    many = np.concatenate([_p(**{"4m": 0.5 + 0.01 * k, "5m": 0.3}) for k in range(G.MAX_NUMBER_LINES + 3)])
    w = G.wanted_number(many)
    assert w.sum() == G.MAX_NUMBER_LINES and not w[-3:].any()  # the least sure first
    assert G.wanted_number(many, limit=None).all()


def test_the_recogniser_reads_a_rendered_character_numeral(reader):
    """The numeral above the 萬 of the project's procedural character faces (datasets.faces.proc_art)."""
    right = 0
    for style in (0, 8, 16):
        for code in ("2m", "7m"):
            img = _face(code, style)
            H, W = img.shape[:2]
            s = reader.read(img, np.array([[0, 0, W, H]], np.float32), np.array([0]), np.array([False]),
                            np.array([False]), np.array([True]))
            right += int(np.nanargmax(s.top[0]) + 1 == int(code[0]) and np.nanmax(s.top[0]) > G.NUMERAL_NOISE)
            assert np.isnan(s.numeral[0]).all() and np.isnan(s.face[0]).all()  # not asked for
    assert right >= 5  # of 6


def test_a_bonus_tile_lying_flat_is_read_by_its_upper_corners():
    # the held-out hard render 0 (a low view from the seat): its 1f and 3f lie flat in front of the row, and
    # their boxes hold the tiles' sides under the faces, so 梅 1 and 菊 3 fill a fifth of the 45 % corner lines
    # and were read at 0.00-0.04; the classifier then read them 1y and 2y. Read also in the upper 30 %
    # (vision.glyphs.CORNERS), the numerals and the 菊 are read: 1f or 1y, and 3f
    from vision.classify import load_classifier
    from vision.io import load_photo
    from vision_fixtures import hard_render_jpeg

    sc, data = hard_render_jpeg(0)
    bonus = [(t.placed.code, t.xyxy) for t in sc.tiles if t.placed.code[-1] in "fy"]
    assert [c for c, _ in bonus] == ["1f", "3f"]
    r = load_classifier()(load_photo(data).pixels, Detections.make([b for _, b in bonus]))
    top = r.top(2)
    assert {c for c, _ in top[0]} == {"1f", "1y"} and top[1][0][0] == "3f", top
    assert "numeral 1" in r.glyphs[0] and "菊" in r.glyphs[1] and "numeral 3" in r.glyphs[1], r.glyphs
