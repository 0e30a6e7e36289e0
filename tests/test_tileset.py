"""Calibration to the user's own tile set (vision/tileset.py, `calibrate`, `tilesets`, `--tileset`,
`--learn`, web/tilesets.py).

The photos are rendered at test time by the project's generator (datasets/calibration.py): a
procedural tile set whose art has its colour channels turned (colours the classifier never saw, a
stand-in for an unseen real set), one calibration photo of the 42 faces, and a few other renders of
the same set. Skipped without a CJK font (the procedural faces need one) or without the `onnx`
package (the embedding-surgery tests).
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.classes import CLASS_INDEX, CLASS_NAMES, NUM_CLASSES
from vision.errors import CalibrationError, ModelError, TilesetError

REPO = Path(__file__).resolve().parents[1]
CLS = REPO / "models" / "classifier.onnx"


@pytest.fixture(autouse=True)
def _tilesets(tmp_path, monkeypatch):
    """Every test stores its profiles in its own folder, never the user's."""
    d = tmp_path / "tilesets"
    monkeypatch.setenv("MAHJONG_TILESETS", str(d))
    return d


def _fonts():
    from datasets import faces

    if not faces.cjk_fonts():
        pytest.skip("no CJK font for the generator's procedural faces (apt-get install fonts-wqy-zenhei)")


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """JPEGs: ``cal`` (set 0 recoloured, the 42 faces), ``missing`` (the same set without 3m and 7z),
    ``shuffled`` (the 42 faces in a random order), ``plain`` (set 1 not recoloured) and the scenes of
    four other renders of set 0 (``tests``)."""
    _fonts()
    from PIL import Image

    from datasets.calibration import calibration_render, test_renders, tile_set
    from vision.tileset import DEFAULT_LAYOUT

    d = tmp_path_factory.mktemp("calibration")
    ts = tile_set(0, recolour=True)
    out = {}

    def save(key, scene):
        p = d / f"{key}.jpg"
        Image.fromarray(scene.image).save(p, quality=90)
        out[key] = p

    save("cal", calibration_render(ts, 900))
    save("missing", calibration_render(ts, 901, [c for c in DEFAULT_LAYOUT if c not in ("3m", "7z")]))
    order = list(DEFAULT_LAYOUT)
    np.random.default_rng(5).shuffle(order)
    save("shuffled", calibration_render(ts, 902, order))
    save("plain", calibration_render(tile_set(1), 903))
    save("slant", calibration_render(ts, 1900))  # a slanted view: the near row's tiles ~2x the far row's
    out["tests"] = test_renders(ts, 900, 4)
    blank = d / "blank.png"
    Image.new("RGB", (640, 480), (40, 110, 70)).save(blank)
    out["blank"] = blank
    return out


# ----------------------------------------------------------------------------- the model's output
def test_committed_classifier_has_the_embedding_output():
    onnx = pytest.importorskip("onnx")
    m = onnx.load(str(CLS))
    outs = [o.name for o in m.graph.output]
    assert outs[:2] == ["probs", "embedding"]
    meta = {p.key: p.value for p in m.metadata_props}
    assert meta["mahjong_model"] == "classifier" and json.loads(meta["names"]) == CLASS_NAMES  # metadata kept
    from vision.classify import load_classifier

    clf = load_classifier(str(CLS), 1)
    assert clf.embedding_dim == int(meta["embedding_dim"]) > 0
    crops = np.random.default_rng(0).integers(0, 255, (3, clf.imgsz, clf.imgsz, 3), dtype=np.uint8)
    p, e = clf.embed(crops)
    assert p.shape == (3, NUM_CLASSES) and e.shape == (3, clf.embedding_dim) and e.dtype == np.float32
    np.testing.assert_allclose(p, clf.run(crops), atol=1e-6)  # the second output changes nothing


def _tiny_classifier(tmp_path, with_embedding: bool) -> str:
    """Conv → GAP → Flatten → Gemm → Softmax, 8 features, optionally given `embedding` by surgery."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    inp = helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 16, 16])
    out = helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", NUM_CLASSES])
    init = [numpy_helper.from_array(rng.normal(size=(8, 3, 3, 3)).astype(np.float32), "cw"),
            numpy_helper.from_array(rng.normal(size=(NUM_CLASSES, 8)).astype(np.float32), "fw"),
            numpy_helper.from_array(np.zeros(NUM_CLASSES, np.float32), "fb")]
    nodes = [helper.make_node("Conv", ["images", "cw"], ["c"]), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]), helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fw", "fb"], ["z"], transB=1), helper.make_node("Softmax", ["z"], ["probs"])]
    model = helper.make_model(helper.make_graph(nodes, "tiny", [inp], [out], init),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, v in {"names": json.dumps(CLASS_NAMES), "imgsz": "[16, 16]", "mahjong_model": "classifier"}.items():
        model.metadata_props.add(key=k, value=v)
    if with_embedding:
        from datasets.embedding_output import add_embedding_output

        add_embedding_output(model)
        add_embedding_output(model)  # a second time changes nothing
        assert [o.name for o in model.graph.output] == ["probs", "embedding"]
    p = tmp_path / f"tiny-{with_embedding}.onnx"
    onnx.save(model, str(p))
    return str(p)


def test_surgery_exposes_the_final_layers_input(tmp_path):
    import onnxruntime as ort

    path = _tiny_classifier(tmp_path, True)
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(2).random((4, 3, 16, 16), dtype=np.float32)
    probs, emb = s.run(None, {"images": x})
    assert emb.shape == (4, 8) and s.get_outputs()[1].shape == ["batch", 8]
    meta = dict(s.get_modelmeta().custom_metadata_map)
    assert meta["embedding_dim"] == "8" and meta["mahjong_model"] == "classifier"
    # the embedding is what the Gemm reads: softmax(emb @ W.T) reproduces the probabilities
    import onnx
    from onnx import numpy_helper

    W = {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}["fw"]
    z = emb @ W.T
    e = np.exp(z - z.max(1, keepdims=True))
    np.testing.assert_allclose(e / e.sum(1, keepdims=True), probs, rtol=1e-4, atol=1e-6)


def test_a_classifier_without_embedding_still_reads_but_cannot_calibrate(tmp_path, run_cli, monkeypatch):
    from vision.classify import load_classifier
    from vision.detect import Detections
    from vision.tileset import calibrate

    clf = load_classifier(_tiny_classifier(tmp_path, False), 1)
    assert clf.embedding_dim is None
    img = np.random.default_rng(3).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    r = clf(img, Detections.make([[4, 4, 30, 40]]))
    assert r.probs.shape == (1, NUM_CLASSES)
    with pytest.raises(ModelError, match="no 'embedding' output"):
        clf.embed(np.zeros((1, 16, 16, 3), np.uint8))
    with pytest.raises(ModelError, match="embedding"):
        calibrate([tmp_path / "whatever.jpg"], "x", classifier=clf, detector=lambda im: None)


# ----------------------------------------------------------------------------- the profile
def _profile(codes, emb, name="p"):
    from vision.tileset import Profile

    n = len(codes)
    return Profile(name, tuple(codes), np.asarray(emb, np.float32), np.zeros((n, 4, 4, 3), np.uint8),
                   ("calibrate",) * n, {"dim": np.asarray(emb).shape[1]}, "t0", "t0")


def test_combine_is_a_product_of_experts_over_the_covered_classes():
    prof = _profile(["1m", "2m"], [[1, 0, 0], [0, 1, 0]])
    p = np.full((2, NUM_CLASSES), 0.5 / (NUM_CLASSES - 2), np.float32)
    p[:, CLASS_INDEX["1m"]] = 0.3
    p[:, CLASS_INDEX["2m"]] = 0.2
    out = prof.combine(p, np.array([[0.1, 1.0, 0.0], [1.0, 0.05, 0.0]], np.float32))
    np.testing.assert_allclose(out.sum(1), 1, atol=1e-5)
    others = [i for i in range(NUM_CLASSES) if CLASS_NAMES[i] not in ("1m", "2m")]
    np.testing.assert_allclose(out[:, others], p[:, others], atol=1e-6)  # absent classes keep the model's value
    np.testing.assert_allclose(out[:, [0, 1]].sum(1), 0.5, atol=1e-5)  # the covered classes keep their mass
    assert CLASS_NAMES[out[0].argmax()] == "2m" and CLASS_NAMES[out[1].argmax()] == "1m"
    with pytest.raises(TilesetError, match="3-dimensional"):
        prof.combine(p, np.zeros((2, 5), np.float32))


def test_example_views_are_altered_and_reproducible():
    from vision.tileset import VIEWS, example_views

    rng = np.random.default_rng(3)
    crop = rng.integers(0, 255, (96, 96, 3), dtype=np.uint8)
    v = example_views(crop, VIEWS, 7)
    assert v.shape == (VIEWS, 96, 96, 3) and v.dtype == np.uint8
    np.testing.assert_array_equal(v, example_views(crop, VIEWS, 7))  # a pure function of crop and seed
    assert not np.array_equal(v, example_views(crop, VIEWS, 8))
    assert all(np.abs(x.astype(int) - crop).mean() > 5 for x in v)  # each view differs from the crop


def test_the_head_reads_the_views_and_a_profile_without_views_falls_back_to_prototypes():
    from vision.tileset import VIEWS, Profile

    # two classes whose examples lie on the first two axes; their views spread towards the third
    emb = np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    views = np.concatenate([np.tile([[1, 0, 0.8]], (VIEWS, 1)), np.tile([[0, 1, -0.8]], (VIEWS, 1))]).astype(np.float32)
    with_v = Profile("v", ("1m", "2m"), emb, np.zeros((2, 4, 4, 3), np.uint8), ("calibrate",) * 2, {"dim": 3},
                     "t0", "t0", views=views)
    bare = replace(with_v, views=None)
    assert with_v.viewed == 2 and with_v.head is not None and bare.head is None and bare.viewed == 0
    p = np.full((1, NUM_CLASSES), 1 / NUM_CLASSES, np.float32)
    tile = np.array([[0.45, 0.55, 0.9]], np.float32)  # nearer 2m's prototype, but where 1m's views lie
    assert CLASS_NAMES[bare.combine(p, tile)[0].argmax()] == "2m"
    assert CLASS_NAMES[with_v.combine(p, tile)[0].argmax()] == "1m"
    # examples added later have no views yet: no head until they are computed
    more = with_v.add(["3m"], [[0.5, 0.5, 0.7]], np.zeros((1, 4, 4, 3), np.uint8), "fix")
    assert more.viewed == 2 and more.head is None
    with pytest.raises(TilesetError, match="view embeddings"):
        replace(with_v, views=views[:VIEWS + 1])


def test_a_format_1_profile_without_views_is_read_and_gets_its_views(photos, _tilesets):
    """Profiles saved before the views (format 1) load; the views are computed when a classifier reads
    with them, and saved with the next change."""
    import json as _json
    import zipfile

    from vision.classify import load_classifier
    from vision.tileset import VIEWS, calibrate, load_profile, profile_path, with_tileset

    calibrate([photos["cal"]], "old")
    path = profile_path("old")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "views"}
    meta = _json.loads(str(arrays["meta"]))
    meta["format"] = 1
    arrays["meta"] = np.array(_json.dumps(meta))
    np.savez_compressed(path, **arrays)
    assert "views.npy" not in zipfile.ZipFile(path).namelist()
    prof = load_profile("old")
    assert prof.views is None and prof.head is None
    clf = with_tileset(load_classifier(glyphs=False), "old")
    assert clf.tileset.viewed == 42 and len(clf.tileset.views) == 42 * VIEWS and clf.tileset.head is not None
    # saved back with its views and head, so that the next reading does not compute them again
    again = load_profile("old")
    assert again.viewed == 42 and again._head and again.head.signature == again.signature


def test_the_head_is_stored_and_read_back_without_fitting(photos, _tilesets, monkeypatch):
    import vision.tileset as vt

    vt.calibrate([photos["cal"]], "stored")
    prof = vt.load_profile("stored")
    real_fit = vt.fit_head
    monkeypatch.setattr(vt, "fit_head", lambda *a, **k: pytest.fail("the stored head was fitted again"))
    head = prof.head
    assert head is not None and head.weight.shape == (prof.dim, 42) and head.signature == prof.signature
    # a damaged stored head is fitted again, never a reason to refuse the profile or to crash
    import json as _json

    path = vt.profile_path("stored")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    for bad in ({"head_bias": np.zeros(43, np.float32)}, {"head_weight": np.full_like(arrays["head_weight"], np.nan)},
                {"meta": np.array(_json.dumps(_json.loads(str(arrays["meta"])) | {"head": {"rows": "x"}}))}):
        np.savez_compressed(path, **(arrays | bad))
        assert not vt.load_profile("stored")._head
    monkeypatch.setattr(vt, "fit_head", real_fit)
    assert vt.load_profile("stored").head is not None
    monkeypatch.setattr(vt, "fit_head", lambda *a, **k: pytest.fail("the stored head was fitted again"))
    # a profile with another example is another signature: the stored head is not used for it
    more = prof.add(["3m"], prof.embeddings[:1], prof.crops[:1], "fix")
    assert more.signature != prof.signature and not more._head


def test_separation_report_margin_and_leave_one_out():
    prof = _profile(["1m", "1m", "2m", "2m", "3m"],
                    [[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0.1, 0.9, 0], [0.6, 0.8, 0.05]])
    s = prof.separation()
    assert s["classes"] == 3 and s["examples"] == 5
    assert s["loo_examples"] == 4 and s["loo_accuracy"] == 1.0
    assert s["closest"][0]["tile"] == "3m" or s["min_margin"] < 0.5
    single = _profile(["1m", "2m"], [[1, 0, 0], [0, 1, 0]]).separation()
    assert single["loo_accuracy"] is None and single["min_margin"] == pytest.approx(1.0)


def test_a_face_laid_twice_in_the_calibration_photo_is_named():
    # a tester's calibration photo with 5m laid in the 6m's place was "learned as the layout says, though the
    # classifier alone reads tile 6 (6m) as 5m surely (what calibration is for …)": nothing said that 5m is there twice
    from commands.tilesets import _report_lines
    from vision.tileset import TWICE_MAX, Calibration, PhotoCheck, layout_codes, new_profile

    expected = layout_codes(None)
    ph = PhotoCheck("cal.jpg", 42, 40, ((6, "6m", "5m"),), unsure=((36, "2f", "4y"),), expected=expected)
    assert ph.twice() == [(6, "6m", "5m", 5)]  # tile 5, the layout's 5m, read right: 5m twice
    # a tile read as a face the layout has where that tile is misread too is no such case (a swap, or two misreads)
    assert PhotoCheck("cal.jpg", 42, 40, ((6, "6m", "5m"), (5, "5m", "6m")), expected=expected).twice() == []
    assert PhotoCheck("cal.jpg", 42, 41, ((6, "6m", "5m"),), unsure=((5, "5m", "4m"),), expected=expected).twice() == []
    # more than TWICE_MAX (2) such tiles: the classifier confusing the set's faces, which calibration teaches
    many = ((6, "6m", "5m"), (8, "8m", "7m"), (17, "8p", "9p"))
    assert TWICE_MAX == 2 and PhotoCheck("cal.jpg", 42, 39, many, expected=expected).twice() == []
    import vision.classify as vc

    cal = Calibration(new_profile("p", vc.load_classifier()), Path("p.npz"), (ph,), {"examples": 0, "classes": 0}, 0, 0.0)
    assert ("  tile 6 is read 5m surely, and so is tile 5, where the layout has 5m: if a face is in the photo twice and "
            "6m not at all, lay the missing face in its place and calibrate again with --replace") in _report_lines(cal)
    assert cal.to_json()["photos"][0]["twice"] == [{"pos": 6, "expected": "6m", "read": "5m", "also": 5}]


def test_reading_order_rows_top_to_bottom_left_to_right():
    from vision.detect import Detections
    from vision.tileset import reading_order

    boxes, rank = [], []
    for r, n in enumerate((9, 9, 7)):
        for k in range(n):
            x, y = 100 + 80 * k, 100 + 140 * r + 4 * k  # a slight tilt
            boxes.append([x, y, x + 70, y + 95])
            rank.append((r, k))
    perm = np.random.default_rng(0).permutation(len(boxes))
    det = Detections.make(np.array(boxes, np.float32)[perm])
    order = reading_order(det, (1000, 700))
    assert [rank[perm[i]] for i in order] == sorted(rank)


def test_layout_notation():
    from vision.tileset import DEFAULT_LAYOUT, layout_codes

    assert layout_codes(None) == DEFAULT_LAYOUT and len(DEFAULT_LAYOUT) == 42
    assert layout_codes("123m456p +1f2f") == ("1m", "2m", "3m", "4p", "5p", "6p", "1f", "2f")
    assert layout_codes("[777p] (1111s) 5z") == ("7p",) * 3 + ("1s",) * 4 + ("5z",)
    with pytest.raises(CalibrationError, match="--tiles"):
        layout_codes("12x")


# ----------------------------------------------------------------------------- calibration
def _accuracy(clf, scenes):
    from datasets.calibration import accuracy

    right, n = accuracy(clf, scenes)
    return right / n, n


def test_calibration_raises_accuracy_on_other_renders_of_the_set(photos, run_cli, _tilesets):
    """Calibrated on one rendered photo, the reader does better on four other renders of that set
    (every pose, standing and lying tiles, close-ups; 78 face tiles). Measured: 59 of 78 read right
    alone, 65 with the profile with detector version 2; 61 and 65 with detector version 3, whose boxes
    are tighter; with classifier version 4 63 alone, 68 with the prototypes, 72 with the profile's
    head fitted on the examples and their views (``python -m datasets.calibration``: see
    docs/photo.md)."""
    rc, out, err = run_cli("calibrate", str(photos["cal"]), "--name", "mine")
    assert rc == 0, err
    assert "42 tiles added" in out and "separation:" in out
    assert "reads with: a head fitted on the 42 examples and 336 altered views" in out
    from vision.classify import load_classifier
    from vision.tileset import load_profile, with_tileset

    prof = load_profile("mine")
    assert len(prof.codes) == 42 and len(prof.classes) == 42 and prof.codes == tuple(CLASS_NAMES[:42])
    clf = load_classifier()
    before, n = _accuracy(clf, photos["tests"])
    after, _ = _accuracy(with_tileset(clf, "mine"), photos["tests"])
    assert n >= 60
    assert after >= before + 0.08, (before, after)
    assert (1 - after) <= 0.6 * (1 - before), (before, after)  # at least two fifths of the errors gone
    assert prof.viewed == 42 and prof.head is not None  # the views were stored with the profile
    protos = replace(clf, tileset=replace(prof, views=None))  # the prototypes alone
    assert protos.tileset.head is None
    assert after > _accuracy(protos, photos["tests"])[0], "the head reads better than the prototypes"


def test_calibrating_again_adds_and_replace_starts_over(photos, run_cli, _tilesets):
    assert run_cli("calibrate", str(photos["cal"]), "--name", "s1")[0] == 0
    # the same photo again adds nothing (a tester's: its identical crops made the leave-one-out 100 %)
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "s1")
    assert "in the tile set already" in msg, msg
    rc, out, _ = run_cli("calibrate", str(photos["slant"]), "--name", "s1", "--json")  # another photo of the set
    assert rc == 0
    rep = json.loads(out)
    assert rep["added"] == 42 and rep["repeated"] == 0 and rep["profile"]["examples"] == 84
    # (0.90 here: each example left out is judged by the other photo's; with the same photo twice it
    # was judged by its own copy, 100 %)
    assert rep["separation"]["loo_examples"] == 84 and rep["separation"]["loo_accuracy"] >= 0.85
    # the time is reported (the bound of 10 s is measured by benchmarks/bench_calibrate.py, not here: on a
    # busy 2-core machine this assertion took 12–17 s with or without the session's changes)
    assert isinstance(rep["seconds"], float) and rep["seconds"] > 0
    rc, out, _ = run_cli("calibrate", str(photos["cal"]), "--name", "s1", "--replace", "--json")
    assert json.loads(out)["profile"]["examples"] == 42
    rc, out, _ = run_cli("tilesets")
    assert rc == 0 and "s1" in out and " 42 " in out
    rc, out, _ = run_cli("tilesets", "--json")
    (row,) = json.loads(out)["tilesets"]
    assert row["name"] == "s1" and row["classes"] == 42 and row["examples"] == 42 and row["created"]
    rc, out, _ = run_cli("tilesets", "--remove", "s1")
    assert rc == 0 and "removed" in out and not (_tilesets / "s1.npz").exists()
    rc, _, err = run_cli("tilesets", "--remove", "s1")
    assert rc == 2 and "no tile set named 's1'" in err


def _one_line_error(run_cli, *argv) -> str:
    rc, out, err = run_cli(*argv)
    assert rc == 2, (rc, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mahjong-score: error: "), err
    return lines[0]


def test_bad_calibration_photos_get_one_line_errors(photos, run_cli, _tilesets):
    msg = _one_line_error(run_cli, "calibrate", str(photos["missing"]), "--name", "x")
    assert "found 40 tiles" in msg and "needs 42" in msg
    missing = msg.split("not seen:")[1].split(";")[0]
    assert "3m" in missing and "7z" in missing
    msg = _one_line_error(run_cli, "calibrate", str(photos["shuffled"]), "--name", "x")
    assert "do not seem to follow the layout's order" in msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "x", "--tiles", "123m")
    assert "found 42 tiles, --tiles needs 3" in msg
    # (a tester's --tiles of the bonus tiles on the 42 faces' photo was told only to correct --tiles)
    assert msg.endswith("(the photo shows 42 tiles, the default layout's count: if it is the 42 faces in order, leave "
                        "out --tiles)"), msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "x", "--tiles", "123m", "--tiles", "1z",
                          "--tiles", "2z")
    assert "3 --tiles for 1 photo:" in msg, msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), str(photos["cal"]), "--name", "x",
                          "--tiles", "123m", "--tiles", "1z", "--tiles", "2z")
    assert "3 --tiles for 2 photos" in msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["blank"]), "--name", "x")
    assert "found 0 tiles" in msg and "no tile was found in the photo" in msg and "not seen" not in msg, msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "../evil")
    assert "tile-set name" in msg
    # the file's own ending (a tester's setA.npz made setA.npz.npz), and a name Windows keeps for a device
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "setA.npz")
    assert "tile-set name 'setA.npz': give it without '.npz' ('setA')" in msg, msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "con")
    assert "is a name Windows keeps for a device" in msg, msg
    _one_line_error(run_cli, "calibrate", str(REPO / "README.md"), "--name", "x")  # not an image
    _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "x", "--tiles", "0x")
    # a layout one tile off that takes a face-down tile for a face (a tester's --tiles for the demo with one 8p too
    # many: its kong's back learned as 7s, exit 0, leave-one-out 44 %); the right layout calibrates
    demo = str(REPO / "docs" / "demo.jpg")
    msg = _one_line_error(run_cli, "calibrate", demo, "--name", "x", "--tiles", "1f345m678p66z8p777s22m")
    assert "tile 13 lies face down where the layout has 7s" in msg and "a tile missing or one too many" in msg, msg
    assert not _tilesets.exists() or not list(_tilesets.glob("*.npz"))  # nothing was saved
    assert run_cli("calibrate", demo, "--name", "x", "--tiles", "1f345m67p66z8p777s22m")[0] == 0


def test_unsure_extra_detections_are_left_out_sure_ones_refused(photos, _tilesets):
    from vision.detect import Detections, load_detector
    from vision.tileset import calibrate

    real = load_detector()

    def with_extra(score):
        def detect(image):  # the real boxes plus one between the first two tiles
            d = real(image)
            b = d.boxes[np.argsort(d.boxes[:, 0] + 3 * d.boxes[:, 1])[:2]]
            mid = [(b[0, 0] + b[1, 0]) / 2 + 20, b[:, 1].min(), (b[0, 2] + b[1, 2]) / 2 + 20, b[:, 3].max()]
            return Detections.make(np.vstack([d.boxes, mid]), np.r_[d.scores, score], np.r_[d.face_down, False])
        return detect

    cal = calibrate([photos["cal"]], "e", detector=with_extra(0.3))
    assert cal.photos[0].dropped == 1 and len(cal.profile.codes) == 42
    assert cal.profile.codes == tuple(CLASS_NAMES[:42])
    with pytest.raises(CalibrationError, match="found 43 tiles.*needs 42"):
        calibrate([photos["cal"]], "e2", detector=with_extra(0.9))


def _with_background(real, extra=True):
    """The real detector's boxes of a calibration render (layout within x 40-1075 of 1280) plus
    background boxes as the detector makes on a real photo (IMG_2788: three false face-down boxes):
    two small face-down ones at the top edge, a tile-sized face-down one right of the layout and a
    tall face-up one on the right."""
    from vision.detect import Detections

    bg = np.array([[1150, 0, 1215, 70], [1200, 0, 1265, 65], [1150, 700, 1265, 850], [1100, 250, 1280, 560]],
                  np.float32)

    def detect(image):
        d = real(image)
        if not extra:
            return d
        return Detections.make(np.vstack([d.boxes, bg]), np.r_[d.scores, 0.45, 0.3, 0.4, 0.35],
                               np.r_[d.face_down, True, True, True, False])
    return detect


def test_boxes_off_the_layout_and_face_down_boxes_are_left_out(photos, _tilesets, run_cli, monkeypatch):
    # was: "found 46 tiles, the default layout ... needs 42: ... seen more often ...: 0x×3"
    from vision import detect as vdetect
    from vision.detect import load_detector
    from vision.tileset import calibrate

    real = load_detector()
    cal = calibrate([photos["cal"]], "bg", detector=_with_background(real))
    assert cal.photos[0].left_out == 4 and cal.photos[0].dropped == 0
    assert cal.profile.codes == tuple(CLASS_NAMES[:42])
    assert cal.to_json()["photos"][0]["left_out"] == 4
    # the command line: the count error names the face tiles found and the boxes left out
    monkeypatch.setattr(vdetect, "load_detector", lambda *a, **k: _with_background(real))
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "x", "--tiles", "123m")
    assert "found 42 face tiles in the layout's rows (4 face-down or stray box(es) off the rows left out), " \
           "--tiles needs 3" in msg, msg


def test_a_slanted_calibration_photo_keeps_its_near_tiles(photos, _tilesets):
    """Seen from a slant, the near row's 1f was 1.61x the median tile (185 against 115 px wide), left
    out as "off the layout" by the median rule, and the photo was refused ("found 41 face tiles").
    The tile size is now a plane over the photo (vision.tileset.tile_size_at)."""
    from vision.tileset import calibrate

    cal = calibrate([photos["slant"]], "slant")
    assert cal.photos[0].left_out == 0
    assert cal.profile.codes == tuple(CLASS_NAMES[:42])


def test_tile_size_follows_the_photo_and_finds_the_odd_box():
    from vision.detect import Detections
    from vision.tileset import off_layout, tile_size_at

    # 5 rows of 8 tiles, 60 px wide at the top growing to 130 px at the bottom (a slanted view)
    boxes = []
    for r in range(5):
        w = 60 + 17.5 * r
        y = 40 + sum(1.45 * (60 + 17.5 * k) for k in range(r))
        boxes += [[20 + 1.1 * w * c, y, 20 + 1.1 * w * c + w, y + 1.35 * w] for c in range(8)]
    # a speck, and a box 150 px wide beside the 60-px top row: 1.6x the median tile, 2.5x its row's
    stray = [[1500, 40, 1520, 60], [560, 30, 710, 230]]
    det = Detections.make(np.array(boxes + stray, np.float32))
    off = off_layout(det)
    assert not off[:40].any() and off[40:].all()
    sides = np.sort(np.asarray(det.sizes, np.float64), 1)
    size = tile_size_at(sides, np.asarray(det.centres, np.float64), np.ones(len(det), bool))
    assert abs(size[0, 0] - 60) < 6 and abs(size[39, 0] - 130) < 13  # the fit, not the median (~95)
    # one row of 14 (a --tiles layout) whose sizes jitter with a pixel or two of its tiles' heights:
    # no plane across the row (its slope would be that jitter), the median everywhere
    row = np.array([[20 + 66 * c, 100 + 2 * (c % 2), 20 + 66 * c + 60 * (1 + 0.06 * (c % 2)),
                     181 + 7 * (c % 2)] for c in range(14)], np.float64)
    rs = np.sort(np.stack([row[:, 2] - row[:, 0], row[:, 3] - row[:, 1]], 1), 1)
    rc = (row[:, :2] + row[:, 2:]) / 2
    flat = tile_size_at(rs, rc, np.ones(14, bool))
    assert np.allclose(flat, np.exp(np.median(np.log(rs), 0)))
    # few tiles: the median everywhere
    few = tile_size_at(sides[:5], np.asarray(det.centres, np.float64)[:5], np.ones(5, bool))
    assert np.allclose(few, np.median(sides[:5], 0))


def test_damaged_profile_files_are_named_not_crashed_on(photos, run_cli, _tilesets):
    from vision.tileset import calibrate, profile_path

    calibrate([photos["cal"]], "good")
    data = profile_path("good").read_bytes()
    profile_path("cut").write_bytes(data[:len(data) // 3])  # a truncated zip
    profile_path("text").write_text("junk")
    flipped = bytearray(data)
    flipped[len(data) // 2:len(data) // 2 + 400] = bytes(400)  # zeroed inside a compressed member
    profile_path("flipped").write_bytes(bytes(flipped))
    rc, out, err = run_cli("tilesets")
    assert rc == 0 and "good" in out, err
    for name in ("cut", "text", "flipped"):
        assert f"unreadable: tile set {name!r}" in out, out
    rc, out, err = run_cli("tilesets", "--json")
    assert {u["name"] for u in json.loads(out)["unreadable"]} == {"cut", "text", "flipped"}
    for name in ("cut", "text", "flipped"):
        msg = _one_line_error(run_cli, "photo", str(REPO / "docs" / "demo.jpg"), "--tileset", name)
        assert f"tile set {name!r}" in msg and "unreadable" in msg and "pickle" not in msg, msg


def test_a_profile_of_another_classifier_is_reembedded_or_refused(photos, _tilesets):
    from dataclasses import replace

    from vision.classify import load_classifier
    from vision.tileset import calibrate, fit_to, load_profile, save_profile

    cal = calibrate([photos["plain"]], "p")
    assert cal.photos[0].model_right >= 38  # a set like the training renders: read almost entirely right
    stale = replace(cal.profile, model={**cal.profile.model, "sha256": "0" * 64},
                    embeddings=np.roll(cal.profile.embeddings, 1, axis=0))
    fitted = fit_to(stale, load_classifier())
    np.testing.assert_allclose(fitted.embeddings, cal.profile.embeddings, atol=1e-4)  # from the stored crops
    other_size = load_classifier().imgsz + 32  # a crop size the current classifier does not use
    save_profile(replace(cal.profile, model={**cal.profile.model, "sha256": "0", "imgsz": other_size}))
    with pytest.raises(TilesetError, match="crops tiles differently"):
        fit_to(load_profile("p"), load_classifier())


# ----------------------------------------------------------------------------- reading with a set
def test_photo_reads_with_a_tileset_and_learns_from_fixes(photos, run_cli, _tilesets):
    from vision.tileset import load_profile

    assert run_cli("calibrate", str(photos["cal"]), "--name", "t")[0] == 0
    demo = str(REPO / "docs" / "demo.jpg")
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--json", "--no-history")
    assert rc in (0, 2) and json.loads(out)["tiles"], err  # read (legal or not) with the profile
    assert json.loads(out)["tileset"] == "t"  # which profile read it is part of the record
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--no-history")
    assert "; read with tile set 't'" in out.splitlines()[0]
    assert "read with tile set" not in run_cli("photo", demo, "--no-history")[1]
    db = str(_tilesets.parent / "history.db")  # the history says which tile set read the photo
    assert run_cli("photo", demo, "--tileset", "t", "--db", db)[0] in (0, 2)
    assert json.loads(run_cli("history", "--db", db, "--json")[1])[0]["corrections"] == {"tileset": "t"}
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--fix", "2=3m,13=0x", "--learn", "--no-history")
    assert "tile set 't': learned 1 tile(s) (2=3m)" in err
    prof = load_profile("t")
    assert len(prof.codes) == 43 and prof.kinds[-1] == "fix" and prof.codes[-1] == "3m"
    assert prof.viewed == 43 and prof.head is not None  # the learned tile's views were added and saved
    # a learned tile that the reading already had right changes no other tile (the head fitted with
    # too large a step once read the demo's concealed 2m as 3m after this, "3m occurs 5 times")
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--no-history")
    assert "reading: 345m678p66z [777s] (2222m) +1f win:8p" in out, out
    # the same correction again adds nothing; a position the classifier reads as another face is named
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--fix", "2=3m", "--learn", "--no-history")
    assert "tile 2 (3m) is already in the tile set: not added again" in err and len(load_profile("t").codes) == 43
    # a fix that leaves the hand illegal is not learned (a tester's mistyped --fix 2=5m broke the demo's
    # hand, exit 2, and was learned for good); once the hand is legal, it is
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--fix", "3=9p", "--learn", "--no-history")
    assert rc == 2 and "tile set 't': nothing learned: the reading with these fixes is not a legal hand" in err, err
    assert len(load_profile("t").codes) == 43
    rc, out, err = run_cli("photo", demo, "--tileset", "t", "--fix", "1=2f", "--learn", "--no-history")
    assert rc == 0 and "tile 1: learned as 2f, but the classifier reads it as 1f" in err, err
    assert "--learn needs --tileset" in _one_line_error(run_cli, "photo", demo, "--learn", "--fix", "2=3m")
    assert "--learn learns from --fix POS=TILE only" in _one_line_error(
        run_cli, "photo", demo, "--tileset", "t", "--add", "15=4f", "--learn")
    assert "no tile set named 'nope'" in _one_line_error(run_cli, "photo", demo, "--tileset", "nope")


def test_batch_reader_spec_carries_the_tileset(photos, run_cli, _tilesets):
    from vision.batch import DEFAULT_READER, reader_identity, resolve_reader
    from vision.tileset import calibrate, reader_spec

    calibrate([photos["cal"]], "b")
    spec = reader_spec(DEFAULT_READER, "b")
    assert spec == DEFAULT_READER + "#tileset=b" and reader_spec(DEFAULT_READER, None) == DEFAULT_READER
    ident = reader_identity(spec)
    assert ident != reader_identity(DEFAULT_READER) and ident.startswith(reader_identity(DEFAULT_READER))
    calibrate([photos["slant"]], "b")  # the profile changed: photos are read again
    assert reader_identity(spec) != ident
    # the batch's summary names the tile set that read it (a tester's batch with --tileset named it nowhere)
    import shutil

    folder = _tilesets.parent / "batch-in"
    folder.mkdir()
    shutil.copy(REPO / "docs" / "demo.jpg", folder / "demo.jpg")
    rc, out, err = run_cli("batch", str(folder), "--out", str(_tilesets.parent / "out.csv"), "--tileset", "b",
                           "--workers", "0", "--no-history")
    assert rc == 0 and out.splitlines()[0].endswith("; read with tile set 'b'"), (out, err)
    read = resolve_reader(spec)()
    assert len(read(photos["cal"], "nts", None).detections) >= 40
    with pytest.raises(TilesetError, match="no tile set named 'zz'"):  # the name reaches the reader
        resolve_reader(DEFAULT_READER + "#tileset=zz")()
    assert "no tile set named" in _one_line_error(run_cli, "batch", str(photos["cal"].parent), "--out",
                                                  str(photos["cal"].parent / "o.csv"), "--tileset", "zz")


def test_web_api_calibrates_lists_reads_and_learns(photos, tmp_path, _tilesets):
    from fastapi.testclient import TestClient

    from web.app import Settings, create_app

    c = TestClient(create_app(Settings(data_dir=tmp_path / "data")))
    assert c.get("/api/tilesets").json() == {"tilesets": [], "default": None, "unreadable": []}
    # the page's words: no server folder, no command-line flags, no "<bytes>" (a tester's findings)
    r = c.post("/api/score", files={"image": ("d.jpg", (REPO / "docs" / "demo.jpg").read_bytes(), "image/jpeg")},
               data={"tileset": "nope"})
    assert r.status_code == 422 and "no tile set named 'nope'" in r.json()["error"]
    assert str(_tilesets) not in r.json()["error"] and "mahjong-score calibrate" not in r.json()["error"]
    r = c.post("/api/tilesets", files={"image": ("c.jpg", photos["cal"].read_bytes(), "image/jpeg")},
               data={"name": "w", "tiles": "12q"})
    assert r.status_code == 422 and r.json()["error"].startswith("tiles '12q'"), r.json()
    # a field it does not take is refused, as /api/score refuses one (a tester's was dropped without a word)
    r = c.post("/api/tilesets", files={"image": ("c.jpg", photos["cal"].read_bytes(), "image/jpeg")},
               data={"name": "w", "replce": "true"})
    assert r.status_code == 422 and r.json()["error"] == ("unknown field(s) 'replce': the fields are image, name, "
                                                          "replace, tiles"), r.json()
    assert c.get("/api/tilesets").json()["tilesets"] == []
    _tilesets.mkdir(parents=True, exist_ok=True)
    (_tilesets / "junk.npz").write_text("junk")  # listed as unreadable, as the command line lists it
    (u,) = c.get("/api/tilesets").json()["unreadable"]
    assert u["name"] == "junk" and "unreadable" in u["error"] and str(_tilesets) not in u["error"]
    (_tilesets / "junk.npz").unlink()
    r = c.post("/api/tilesets", files={"image": ("m.jpg", photos["missing"].read_bytes(), "image/jpeg")},
               data={"name": "w"})
    assert r.status_code == 422 and "found 40 tiles" in r.json()["error"] and "\n" not in r.json()["error"]
    assert not r.json()["error"].startswith("<bytes>"), r.json()
    r = c.post("/api/tilesets", files={"image": ("c.jpg", photos["cal"].read_bytes(), "image/jpeg")},
               data={"name": "w"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["added"] == 42 and body["profile"]["classes"] == 42 and "path" not in body
    assert [t["name"] for t in c.get("/api/tilesets").json()["tilesets"]] == ["w"]
    img = (REPO / "docs" / "demo.jpg").read_bytes()
    r = c.post("/api/score", files={"image": ("d.jpg", img, "image/jpeg")},
               data={"tileset": "w", "fixes": "2=3m", "learn": "true"})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["tileset"] == "w" and j["learned"] == 1
    r = c.post("/api/score", data={"photo_id": j["photo_id"], "tileset": "w", "fixes": "2=3m", "learn": "true"})
    assert r.json()["learned"] == 0  # each fix of a photo is learned once
    r = c.post("/api/score", data={"photo_id": j["photo_id"], "tileset": "w", "fixes": "2=3m,3=9p", "learn": "true"})
    assert r.json()["learned"] == 0 and not r.json()["legal"]  # an illegal hand's fixes teach nothing
    assert r.json()["not_learned"].startswith("nothing learned: the reading with these fixes is not a legal hand")
    r = c.post("/api/score", data={"photo_id": j["photo_id"], "fixes": "2=3m"})  # read again without the set
    assert r.status_code == 200 and r.json()["tileset"] is None
    assert c.get("/api/tilesets").json()["tilesets"][0]["examples"] == 43
    r = c.post("/api/score", data={"photo_id": j["photo_id"], "tileset": "nope"})
    assert r.status_code == 422 and "no tile set named 'nope'" in r.json()["error"]


def test_the_page_has_the_tileset_menu_learn_box_and_calibration_form():
    html = (REPO / "web" / "static" / "index.html").read_text()
    for el in ('id="tileset"', 'id="learn"', 'id="cal-name"', 'id="cal-tiles"', 'id="cal-photo"', 'id="cal-replace"'):
        assert el in html
    js = (REPO / "web" / "static" / "app.js").read_text()
    assert '"/api/tilesets"' in js and 'fd.append("tileset"' in js and 'fd.append("learn"' in js


def test_the_head_keeps_every_example_when_it_caps_its_rows(monkeypatch):
    import vision.tileset as vt

    rng = np.random.default_rng(2)
    n, d = 12, 6
    emb = vt._normalise(rng.normal(size=(n, d)))
    views = vt._normalise(rng.normal(size=(n * vt.VIEWS, d)))
    idx = np.arange(n) % 3
    classes = np.arange(3)
    monkeypatch.setattr(vt, "HEAD_MAX_ROWS", 5)  # fewer than the examples: the examples all stay
    assert vt.fit_head(emb, views, idx, classes).rows == n
    monkeypatch.setattr(vt, "HEAD_MAX_ROWS", 40)  # the examples and 28 views spread over them
    head = vt.fit_head(emb, views, idx, classes)
    assert head.rows == 40 and head.weight.shape == (d, 3) and np.isfinite(head.weight).all()


def test_the_report_names_two_tiles_read_as_each_others_face():
    # a --tiles layout with 1m and 2m swapped was saved with only "check tile 1 …, tile 2 …"
    from commands.tilesets import _swaps

    assert _swaps(((1, "2m", "1m"), (2, "1m", "2m"), (27, "9s", "6s"))) == [(1, 2, "2m", "1m")]
    assert _swaps(((1, "2m", "1m"), (27, "9s", "6s"))) == []


def _rewrite_meta(path, change):
    """Rewrite the ``meta`` record of the profile file at ``path`` with ``change(meta)``."""
    import io

    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = change(json.loads(str(arrays["meta"])))
    arrays["meta"] = np.array(json.dumps(meta))
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    path.write_bytes(buf.getvalue())


def test_profiles_with_a_bad_record_or_a_folder_in_their_place_are_named_unreadable(photos, run_cli, _tilesets):
    """A tester's files (fourth session of calibration's break-it trial): a profile whose record is a
    list, whose history holds numbers, whose classifier fingerprint is a number — each crashed
    ``tilesets`` (every profile's listing) or ``photo --tileset`` with a traceback; a folder named
    ``dirp.npz`` was "no tile set named 'dirp' (there are: …, dirp)"."""
    from vision.tileset import calibrate, profile_path

    calibrate([photos["cal"]], "good")
    data = profile_path("good").read_bytes()
    bad = {"alist": lambda m: [m], "hist": lambda m: {**m, "history": [1, 2]},
           "model": lambda m: {**m, "model": 7}, "nodate": lambda m: {**m, "created": None}}
    for name, change in bad.items():
        profile_path(name).write_bytes(data)
        _rewrite_meta(profile_path(name), change)
    (_tilesets / "dirp.npz").mkdir()
    rc, out, err = run_cli("tilesets")
    assert rc == 0 and "Traceback" not in err, err
    for name in (*bad, "dirp"):
        assert f"unreadable: tile set {name!r}" in out, out
    demo = str(REPO / "docs" / "demo.jpg")
    for name in (*bad, "dirp"):
        msg = _one_line_error(run_cli, "photo", demo, "--tileset", name)
        assert f"tile set {name!r}" in msg and "unreadable" in msg and "there are" not in msg, msg
    msg = _one_line_error(run_cli, "tilesets", "--remove", "dirp")
    assert "not a tile-set file" in msg, msg


def test_a_tileset_folder_that_cannot_be_written_is_one_line(photos, run_cli, tmp_path, monkeypatch):
    """``save_profile``'s cleanup of its temporary file raised too (NotADirectoryError, read-only
    folders): a traceback instead of the one-line error it was about to give."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MAHJONG_TILESETS", str(blocker))
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "x")
    assert "cannot" in msg and "a-file" in msg, msg


def test_learn_skips_added_tiles_and_concurrent_learning_keeps_every_tile(photos, _tilesets):
    """A tester's two findings: ``--add 17=9m --fix 17=9m --learn`` taught the profile 9m from the crop
    under the reader's made-up box (whatever lay there); four ``--learn`` runs at once kept one tile,
    each saving the profile it had loaded over the others'. Both through ``learn_from_result``, as
    ``photo --learn`` calls it."""
    import threading

    from vision.pipeline import read_photo
    from vision.tileset import calibrate, learn_from_result, load_profile

    calibrate([photos["cal"]], "t")
    demo = str(REPO / "docs" / "demo.jpg")
    res = read_photo(demo, "nts", additions=[(17, "9m")])
    notes = []
    _, n = learn_from_result("t", res, {17: "9m"}, log=notes.append)
    assert n == 0 and any("added with --add: not learned" in m for m in notes), notes
    assert len(load_profile("t").codes) == 42
    res = read_photo(demo, "nts")
    fixes = [{2: "3m"}, {3: "4m"}, {4: "5m"}, {5: "6p"}]
    errors = []

    def teach(fx):
        try:
            learn_from_result("t", res, fx, log=lambda m: None)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=teach, args=(fx,)) for fx in fixes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    prof = load_profile("t")
    assert len(prof.codes) == 46 and sorted(prof.codes[42:]) == ["3m", "4m", "5m", "6p"], prof.codes[42:]


def test_an_empty_remove_name_and_a_face_down_layout_are_named(photos, run_cli):
    """A tester's: `tilesets --remove ""` listed the profiles with exit 0; `--tiles 0x` gave the
    notation's "unexpected character 'x'" instead of what is wrong with a calibration layout."""
    msg = _one_line_error(run_cli, "tilesets", "--remove", "")
    assert "name" in msg, msg
    msg = _one_line_error(run_cli, "calibrate", str(photos["cal"]), "--name", "z", "--tiles", "123m 0x")
    assert "not face-down tiles (0x)" in msg, msg


def test_calibration_photos_can_be_rendered_to_try_it_without_a_tile_set(tmp_path):
    """A new user had no way to try `calibrate` without a physical set: `python -m datasets.calibration
    --write DIR` renders one set's layout and hands of the same set."""
    _fonts()
    from PIL import Image

    from datasets.calibration import main

    assert main(["--write", str(tmp_path), "--start", "2", "--recolour"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["calibration-2.jpg", "hand-2-1.jpg", "hand-2-2.jpg", "hand-2-3.jpg"]
    with Image.open(tmp_path / "calibration-2.jpg") as im:
        assert im.format == "JPEG" and im.size == (1280, 960)


def test_remove_waits_for_the_lock_and_keeps_the_lock_file(photos, _tilesets, monkeypatch):
    """A reviewer's: removing a profile deleted its lock file without taking the lock, so a run that
    held it and one that came after could both hold "the lock". A file system that refuses locks
    (some network mounts) reads and writes unlocked instead of failing."""
    import threading
    import time

    from vision.tileset import calibrate, profile_lock, profile_path, remove_profile

    calibrate([photos["cal"]], "x")
    lock = profile_path("x").with_name(".x.npz.lock")
    done = []
    with profile_lock("x"):
        t = threading.Thread(target=lambda: done.append(remove_profile("x")))
        t.start()
        time.sleep(0.3)
        assert not done and profile_path("x").exists()  # waits while the profile is being changed
    t.join()
    assert done and not profile_path("x").exists() and lock.exists()
    import fcntl

    def refuse(*a):
        raise OSError(37, "No locks available")

    monkeypatch.setattr(fcntl, "flock", refuse)
    with profile_lock("y"):
        pass  # no error: unlocked


def test_a_profile_whose_temperature_is_not_a_number_says_so(photos, run_cli, _tilesets):
    from vision.tileset import calibrate, profile_path

    calibrate([photos["cal"]], "tt")
    _rewrite_meta(profile_path("tt"), lambda m: {**m, "temperature": [1]})
    msg = _one_line_error(run_cli, "photo", str(REPO / "docs" / "demo.jpg"), "--tileset", "tt")
    assert "its temperature is not a number" in msg, msg


def test_the_calibration_report_names_every_tile_read_as_another_face():
    # a new user: "the classifier alone reads 35 of 42 as the layout says; … tile 8 (8m) as 8p, tile
    # 30 (3z) as 2z" — 7 read otherwise, 2 named (those read ≥ 90 %), the other 5 not to be found
    from types import SimpleNamespace

    from commands.tilesets import _report_lines
    from vision.tileset import PhotoCheck

    ph = PhotoCheck("grid.jpg", 42, 35, ((8, "8m", "8p"), (30, "3z", "2z")), 0, 0,
                    ((3, "3m", "5m"), (11, "2p", "3p"), (20, "2s", "1s"), (37, "1f", "3y"), (41, "3y", "2y")))
    prof = SimpleNamespace(name="mine", head=None, codes=(), views=())
    cal = SimpleNamespace(profile=prof, photos=(ph,), separation={"examples": 42, "classes": 42}, added=42,
                          seconds=1.0, path=Path("mine.npz"), repeated=0)
    line = _report_lines(cal)[1]
    assert "tile 8 (8m) as 8p, tile 30 (3z) as 2z surely" in line
    assert ("it reads tile 3 (3m) as 5m, tile 11 (2p) as 3p, tile 20 (2s) as 1s, tile 37 (1f) as 3y, "
            "tile 41 (3y) as 2y less surely") in line
