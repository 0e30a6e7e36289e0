"""Tests of the synthetic data generator (datasets/): small renders, CPU only, a few seconds."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from datasets import faces, hands, paths, synth
from vision.classes import CLASS_NAMES, NUM_CLASSES

HAVE_FONT = bool(faces.cjk_fonts())
needs_font = pytest.mark.skipif(not HAVE_FONT, reason="no CJK font installed (apt-get install fonts-wqy-zenhei "
                                                    "fonts-arphic-ukai fonts-arphic-uming fonts-noto-cjk)")
needs_shared = pytest.mark.skipif(paths.tile_art_dir() is None,
                                  reason="../shared/data/tile-art is absent (set MAHJONG_SHARED to use another copy)")
W, H = 480, 360


def parse_notation(s: str) -> tuple[list[str], list[str], list[str]]:
    """→ (concealed tiles, meld tiles incl. concealed kongs, bonus tiles)."""
    conc, melds, bonus = [], [], []

    def expand(body):
        out = []
        for digits, suit in re.findall(r"(\d+)([mpszfy])", body):
            out += [d + suit for d in digits]
        return out

    for tok in s.split():
        if tok.startswith("["):
            melds += expand(tok[1:-1])
        elif tok.startswith("("):
            melds += expand(tok[1:-1])
        elif tok.startswith("+"):
            bonus += expand(tok[1:])
        else:
            conc += expand(tok)
    return conc, melds, bonus


def test_hands_are_finished_and_legal():
    rng = np.random.default_rng(0)
    shapes = Counter()
    for _ in range(400):
        h = hands.random_hand(rng)
        shapes[h.shape] += 1
        assert h.tile_count_ok()
        assert h.n_standard_tiles() == (14 if h.size == 13 else 17)
        assert h.winning in h.concealed
        conc, melds, bonus = parse_notation(h.notation())
        assert sorted(conc) == sorted(h.concealed)
        assert len(melds) == sum(len(m.tiles) for m in h.melds)
        assert len(bonus) == len(h.bonus) <= 8
    assert shapes["standard"] > 250 and shapes["seven_pairs"] > 5


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    if not faces.available_sources():
        pytest.skip("no tile art: neither a CJK font nor ../shared")
    out = tmp_path_factory.mktemp("synth")
    rc = synth.main(["--out", str(out), "--images", "6", "--seed", "3", "--workers", "1", "--size", f"{W}x{H}",
                     "--val-every", "3"])
    assert rc == 0
    return out


def _items(out: Path):
    for split in ("train", "val"):
        for lab in sorted((out / "labels" / split).glob("*.txt")):
            meta = json.loads((out / "meta" / split / (lab.stem + ".json")).read_text())
            yield split, lab, meta


def test_files_and_data_yaml(small_set):
    y = (small_set / "data.yaml").read_text()
    assert f"path: {small_set.resolve()}" in y and "train: images/train" in y and "nc: 2" in y
    n = {s: len(list((small_set / "images" / s).glob("*.jpg"))) for s in ("train", "val")}
    assert n == {"train": 4, "val": 2}
    assert len(list(_items(small_set))) == 6


def test_labels_valid_and_match_meta(small_set):
    for split, lab, meta in _items(small_set):
        lines = [ln.split() for ln in lab.read_text().splitlines() if ln.strip()]
        assert len(lines) == len(meta["tiles"]) > 0
        assert (meta["width"], meta["height"]) == (W, H)
        for ln, t in zip(lines, meta["tiles"]):
            cls = int(ln[0])
            cx, cy, w, h = map(float, ln[1:])
            assert cls == (1 if t["tile"] == "0x" else 0)
            assert 0 <= cx - w / 2 + 1e-6 and cx + w / 2 <= 1 + 1e-6 and 0 <= cy - h / 2 + 1e-6 and cy + h / 2 <= 1 + 1e-6
            x0, y0, x1, y1 = t["xyxy"]
            assert 0 <= x0 < x1 <= W and 0 <= y0 < y1 <= H
            assert abs((x0 + x1) / 2 / W - cx) < 1e-3 and abs((x1 - x0) / W - w) < 1e-3
            assert CLASS_NAMES[t["class"]] == t["tile"] and 0 <= t["class"] < NUM_CLASSES
            assert t["pose"] in ("upright", "sideways", "upside-down", "face-down")
            assert t["role"] in ("concealed", "exposed", "bonus", "winning", "distractor")


def test_meta_structure_matches_hand(small_set):
    for split, lab, meta in _items(small_set):
        conc, melds, bonus = parse_notation(meta["hand"])
        hand_tiles = [t for t in meta["tiles"] if t["role"] != "distractor"]
        # one box per visible hand tile: every tile of the hand is labelled once
        assert len(hand_tiles) == len(conc) + len(melds) + len(bonus)
        # rows list the same tiles as the boxes, left to right
        for ri, row in enumerate(meta["rows"]):
            boxes = sorted((t for t in hand_tiles if t["row"] == ri), key=lambda t: t["xyxy"][0] + t["xyxy"][2])
            assert [t["tile"] for t in boxes] == row["tiles"] or sorted(t["tile"] for t in boxes) == sorted(row["tiles"])
        by_role = Counter(t["role"] for t in hand_tiles)
        assert by_role["bonus"] == len(bonus) == len(meta["bonus"])
        assert by_role["exposed"] == len(melds)
        seen_conc = sorted(t["tile"] for t in hand_tiles if t["role"] in ("concealed", "winning"))
        assert seen_conc == sorted(conc)
        assert meta["winning"] in conc
        for t in hand_tiles:
            if t["tile"] == "0x":
                assert t["identity"] in melds  # backs only in concealed kongs


def test_crops_written(small_set):
    crops = list((small_set / "crops").rglob("*.png"))
    assert len(crops) >= 20
    codes = {p.parent.name for p in crops}
    assert codes <= set(CLASS_NAMES)
    from PIL import Image

    sz = Image.open(crops[0]).size
    assert sz == (64, 64)


@pytest.mark.skipif(not faces.available_sources(), reason="no tile art: neither a CJK font nor ../shared")
def test_same_seed_same_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert synth.main(["--out", str(a), "--images", "3", "--seed", "5", "--workers", "1", "--size", "320x240",
                       "--no-crops"]) == 0
    assert synth.main(["--out", str(b), "--images", "3", "--seed", "5", "--workers", "2", "--size", "320x240",
                       "--no-crops"]) == 0
    for f in sorted((a / "images").rglob("*.jpg")):
        g = b / f.relative_to(a)
        assert f.read_bytes() == g.read_bytes()
        lf = a / "labels" / f.parent.name / (f.stem + ".txt")
        assert lf.read_bytes() == (b / lf.relative_to(a)).read_bytes()


@needs_font
def test_procedural_faces_cover_all_classes_without_shared(monkeypatch):
    monkeypatch.setenv("MAHJONG_SHARED", "/nonexistent-shared")
    assert set(faces.available_sources()) == {"proc"}
    for code in CLASS_NAMES[:-1]:
        a = faces.proc_art(5, code)
        assert a.shape == (faces.ART_H, faces.ART_W, 4)
        if code != "5z":
            assert a[..., 3].max() > 200, code  # some ink
    assert not np.array_equal(faces.proc_art(5, "1m"), faces.proc_art(5, "2m"))


@needs_font
def test_crops_only_mode_is_balanced(tmp_path):
    assert synth.main(["--out", str(tmp_path), "--images", "4", "--seed", "1", "--workers", "1", "--size", "640x480",
                       "--crops-only", "--val-every", "0"]) == 0
    counts = Counter(p.parent.name for p in (tmp_path / "crops").rglob("*.png"))
    assert len(counts) >= 35 and "0x" in counts


@needs_shared
def test_art_sets_map_every_class():
    for src, n in (("uni", 42), ("gleitz", 42)):
        assert sum(faces.art_file(src, c) is not None for c in CLASS_NAMES[:-1]) == n
    assert sum(faces.art_file("fluffy", c) is not None for c in CLASS_NAMES[:34]) == 34
    if faces.have_svg():
        a = faces.set_art("fluffy", "1m")
        assert a is not None and a[..., 3].max() > 200


def test_upright_turn_from_glyph_quad():
    # quad = tl, tr, br, bl of the glyph in image pixels (y down); np.rot90(crop, k) makes it upright
    up = [[0, 0], [10, 0], [10, 14], [0, 14]]
    assert synth.upright_turn(up, "upright") == 0
    # glyph top pointing right: tl/tr on the right side
    right = [[14, 0], [14, 10], [0, 10], [0, 0]]
    assert synth.upright_turn(right, "sideways") == 1
    assert synth.upright_turn([[10, 14], [0, 14], [0, 0], [10, 0]], "upside-down") == 2
    left = [[0, 10], [0, 0], [14, 0], [14, 10]]
    assert synth.upright_turn(left, "sideways") == 3
    # one quarter turn of the "right" crop really puts its top edge at the top
    img = np.zeros((10, 14), np.uint8)
    img[:, -1] = 1  # glyph top = right column
    assert np.rot90(img, synth.upright_turn(right, "sideways"))[0].sum() == 10
    assert synth.upright_turn(None, "upright") == 0 and synth.upright_turn(None, "upside-down") == 2
    assert synth.upright_turn(None, "sideways") is None


@needs_font
def test_close_upright_crops(tmp_path):
    assert synth.main(["--out", str(tmp_path), "--images", "3", "--seed", "1", "--workers", "1", "--size", "640x480",
                       "--crops-only", "--close", "--upright-crops", "--face-crops", "0.5", "--val-every", "0"]) == 0
    files = list((tmp_path / "crops").rglob("*.png"))
    assert 10 <= len(files) <= 3 * 15
    assert all(re.fullmatch(r"\d{6}_\d+_r(0|90|180|270)f?", p.stem) for p in files)
    assert any(p.stem.endswith("f") for p in files)


@needs_font
def test_span_frames_the_concealed_row(tmp_path):
    from datasets.scene import render_scene

    srcs = {"proc": 1.0}
    widths = []
    for i in range(4):
        sc = render_scene(3, i, 640, 480, sources=srcs, span=(0.85, 0.9))
        xs = [t.xyxy for t in sc.tiles if t.placed.role in ("concealed", "winning")]
        widths.append((max(b[2] for b in xs) - min(b[0] for b in xs)) / 640)
    # 80 % of images are framed on the concealed row (projected corners ≈ 0.85–0.9 of the width)
    assert sum(0.75 <= w <= 0.97 for w in widths) >= 2, widths


@needs_font
def test_train_data_stage_continues_an_interrupted_render(tmp_path, monkeypatch):
    """`python -m datasets.train --stage data` renders the recipe's sets and, after an interruption,
    continues from the first missing image (images before it are kept, those from it on are rendered
    again) — and they come out byte-identical (image i depends on seed and i)."""
    from datasets import train

    monkeypatch.setattr(train, "DATA_RECIPE", [
        ("grid", ["--images", "3", "--seed", "4", "--crops-only", "--upright-crops", "--size", "480x360",
                  "--val-every", "0"])])
    data = tmp_path / "set"
    out = tmp_path / "set-grid"
    assert train.rendered_upto(out) == 0  # absent folder
    train.render_data(data, workers=1)
    assert train.rendered_upto(out) == 3
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*.png")}
    assert {p.name[:6] for p in before} == {"000000", "000001", "000002"}
    # an interruption cut image 1 off half-written (one crop of it missing, not in done.txt) after image 2
    # had been finished out of order
    next(iter(sorted(out.rglob("000001_*.png")))).unlink()
    done = out / synth.DONE_FILE
    assert sorted(done.read_text().split()) == ["0", "1", "2"]
    done.write_text("0\n2\n")
    assert train.rendered_upto(out) == 1
    kept = {p: p.stat().st_mtime_ns for p in out.rglob("000000_*.png")}
    train.render_data(data, workers=1)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*.png")}
    assert after == before
    assert kept and kept == {p: p.stat().st_mtime_ns for p in out.rglob("000000_*.png")}  # image 0 not redone
    # a complete set is left alone
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*.png")}
    train.render_data(data, workers=1)
    assert mtimes == {p: p.stat().st_mtime_ns for p in out.rglob("*.png")}


@needs_font
def test_synth_refuses_to_extend_a_set_rendered_with_other_options(tmp_path, capsys):
    """The images of a folder must all come from one set of options: extending it with others (here
    another seed) is refused with one line naming the difference, and nothing is written."""
    from datasets import train

    out = tmp_path / "s"
    args = ["--out", str(out), "--images", "1", "--workers", "1", "--crops-only", "--size", "320x240", "--val-every", "0"]
    assert synth.main(args + ["--seed", "1"]) == 0
    files = sorted(p for p in out.rglob("*") if p.is_file())
    capsys.readouterr()  # the first run's progress bar
    assert synth.main(args + ["--seed", "2", "--start", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "other options" in err[0] and "seed: 1 there, 2 now" in err[0]
    assert sorted(p for p in out.rglob("*") if p.is_file()) == files
    # a folder from before done.txt: the files themselves say which images are there
    (out / synth.DONE_FILE).unlink()
    assert train.rendered_upto(out) == 1


@needs_font
def test_continuing_a_folder_rendered_before_done_txt(tmp_path):
    """A folder from before done.txt (images 0 and 1, no done.txt), continued from image 2: done.txt
    then lists 0, 1 and 2, so the set counts as rendered up to 3 (it listed only 2, and the next
    `--stage data` would have rendered the whole set again from image 0)."""
    from datasets import train

    out = tmp_path / "s"
    args = ["--out", str(out), "--workers", "1", "--crops-only", "--size", "320x240", "--val-every", "0", "--seed", "1"]
    assert synth.main(args + ["--images", "2"]) == 0
    (out / synth.DONE_FILE).unlink()  # as rendered before done.txt existed
    assert train.rendered_upto(out) == 2  # from the files
    assert synth.main(args + ["--images", "1", "--start", "2"]) == 0
    assert sorted((out / synth.DONE_FILE).read_text().split(), key=int) == ["0", "1", "2"]
    assert train.rendered_upto(out) == 3


@needs_font
def test_wide_styles_cover_every_class_and_hold_out_validation_styles():
    rng = np.random.default_rng(0)
    train_ids = {faces.wide_style_id(rng, "train") for _ in range(300)}
    val_ids = {faces.wide_style_id(rng, "val") for _ in range(300)}
    assert all(s % faces.WIDE_VAL_EVERY for s in train_ids)
    assert all(s % faces.WIDE_VAL_EVERY == 0 for s in val_ids)
    for code in CLASS_NAMES[:-1]:
        a = faces.wide_art(9, code)
        assert a.shape == (faces.ART_H, faces.ART_W, 4) and a.dtype == np.uint8
        if code != "5z":
            assert a[..., 3].max() > 200, code  # some ink
    assert not np.array_equal(faces.wide_art(9, "1f"), faces.wide_art(9, "1y"))  # flower 1 ≠ season 1
    assert not np.array_equal(faces.wide_art(9, "1f"), faces.wide_art(17, "1f"))  # styles differ
    assert np.array_equal(faces.wide_art(9, "3y"), faces.wide_art(9, "3y"))  # pure function of (style, code)
    assert np.array_equal(faces.art("wide", 9, "7m"), faces.wide_art(9, "7m"))


@needs_font
def test_wide_styles_option_is_off_by_default_and_val_renders_use_held_out_styles(tmp_path):
    from datasets.scene import render_scene

    base = ["--images", "2", "--seed", "1", "--workers", "1", "--size", "480x360", "--crops-only", "--val-every", "2"]
    assert synth.main(["--out", str(tmp_path / "a")] + base) == 0
    assert synth.main(["--out", str(tmp_path / "w")] + base + ["--wide-styles", "1"]) == 0
    rec_a = json.loads((tmp_path / "a" / synth.ARGS_FILE).read_text())
    rec_w = json.loads((tmp_path / "w" / synth.ARGS_FILE).read_text())
    assert "wide_styles" not in rec_a and "wide" not in rec_a["art_sources"]  # sets rendered before stay valid
    assert rec_w["wide_styles"] == 1 and rec_w["art_sources"] == ["wide"]
    pa = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a" / "crops").rglob("*.png"))
    assert pa and any((tmp_path / "a" / p).read_bytes() != (tmp_path / "w" / p).read_bytes()
                      for p in pa if (tmp_path / "w" / p).exists())
    for split, held_out in (("train", False), ("val", True)):
        sc = render_scene(1, 3, 320, 240, sources={"wide": 1.0}, crops_only=True, style_split=split)
        assert sc.info["source"] == "wide"
        assert (sc.info["style"] % faces.WIDE_VAL_EVERY == 0) == held_out


def test_bonus_columns_lay_the_bonus_tiles_sideways_in_touching_columns(tmp_path):
    from datasets.scene import render_scene

    # off (the default): the render is the one made before the option existed (hand and boxes recorded
    # from commit 4d8203c)
    a = render_scene(7, 2, 480, 360)
    assert a.hand.notation() == "345m33789s222z [555s]" and len(a.tiles) == 14
    assert np.abs(np.array([t.xyxy for t in a.tiles[:3]]) - [[88, 209, 147, 262], [123, 191, 179, 245],
                                                             [159, 177, 210, 230]]).max() < 2
    seen = 0
    for i in range(4):
        sc = render_scene(7, i, 640, 480, bonus_columns=1.0)
        bonus = [t for t in sc.tiles if t.placed.role == "bonus"]
        if not sc.hand.bonus:  # a tile set without bonus tiles
            continue
        seen += 1
        assert 2 <= len(sc.hand.bonus) <= 8 and len(bonus) == len(sc.hand.bonus)
        assert all(t.placed.pose == "sideways" for t in bonus)
        # lying flat and touching: each bonus tile's footprint lies within 1 mm of another's
        feet = [t.placed.body.corners()[:, :2] for t in bonus]
        for k, f in enumerate(feet):
            gaps = [max(0.0, float(max(g[:, 0].min() - f[:, 0].max(), f[:, 0].min() - g[:, 0].max(),
                                       g[:, 1].min() - f[:, 1].max(), f[:, 1].min() - g[:, 1].max())))
                    for j, g in enumerate(feet) if j != k]
            assert min(gaps) < 1.5
    assert seen >= 2
    # the option is recorded only when on (sets rendered before it stay valid)
    base = ["--images", "1", "--seed", "1", "--workers", "1", "--size", "320x240", "--no-crops"]
    assert synth.main(["--out", str(tmp_path / "a")] + base) == 0
    assert synth.main(["--out", str(tmp_path / "c")] + base + ["--bonus-columns", "0.5"]) == 0
    assert "bonus_columns" not in json.loads((tmp_path / "a" / synth.ARGS_FILE).read_text())
    assert json.loads((tmp_path / "c" / synth.ARGS_FILE).read_text())["bonus_columns"] == 0.5


def test_font_drawn_tile_sets_refuse_without_a_cjk_font(monkeypatch, tmp_path, capsys):
    # a new user's `python -m datasets.calibration --write …` on a machine without a CJK font wrote
    # photos of blank tiles (faces.art gives no face without a font) and said nothing; calibrating on
    # them read 5z×16. Procedural sets now refuse in one line, and so does the hard-scene eval set,
    # which draws its art from what is installed (without a font it would be another set)
    from datasets import calibration, evaluate, evalsets
    from datasets.scene import render_scene

    monkeypatch.setattr(faces, "cjk_fonts", lambda: ())
    with pytest.raises(RuntimeError, match="CJK font"):
        render_scene(900, 100, 320, 240, sources={"proc": 1.0})
    with pytest.raises(RuntimeError, match="CJK font"):
        render_scene(900, 100, 320, 240, tileset=calibration.tile_set(2, True))
    assert calibration.main(["--write", str(tmp_path / "try"), "--start", "2", "--recolour"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no CJK font") and "\n" not in err
    assert not list((tmp_path / "try").glob("*.jpg"))
    with pytest.raises(RuntimeError, match="CJK font"):
        evalsets.eval_hard(1, baseline=False)
    R = evaluate.run(None, sets=("hard",), hard=1, baseline=False)  # the eval command: skipped, and says so
    assert "hard" not in R and "skipped: no CJK font" in evaluate.format_sets(R)
