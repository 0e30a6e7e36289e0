"""The second detector (vision.detect.SecondDetector: PyPI mahjong-detector's YOLO, trained on real photos) and
how its boxes join the product's (vision.detect.add_second, vision.pipeline.read_photo's ``second``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.detect import Detections, add_second

DEMO = Path(__file__).resolve().parents[1] / "docs" / "demo.jpg"


def test_a_box_the_first_detector_missed_is_added_with_its_own_score_face_up():
    first = Detections.make([[0, 0, 40, 60], [40, 0, 80, 60]], [0.9, 0.8], [False, True])
    second = Detections.make([[200, 0, 240, 60]], [0.3])
    d = add_second(first, second)
    assert np.allclose(d.boxes, [[0, 0, 40, 60], [40, 0, 80, 60], [200, 0, 240, 60]])
    assert np.allclose(d.scores, [0.9, 0.8, 0.3]) and d.face_down.tolist() == [False, True, False]


def test_a_tile_both_detectors_boxed_keeps_the_first_detectors_box():
    first = Detections.make([[0, 0, 40, 60]], [0.9])
    # IoU 36·60 / (2·40·60 − 36·60) = 0.82: the same tile
    d = add_second(first, Detections.make([[4, 0, 44, 60]], [0.99]))
    assert np.allclose(d.boxes, [[0, 0, 40, 60]]) and np.allclose(d.scores, [0.9])
    # a smaller box inside the first's (IoU 0.25, but all of it inside): part of the same tile, dropped
    d = add_second(first, Detections.make([[10, 10, 30, 40]], [0.5]))
    assert len(d) == 1


def test_one_box_over_two_tiles_is_replaced_by_the_second_detectors_two():
    # bonus tiles lying sideways in a column: the first detector boxed two of them and a part of a third as
    # one (60 × 100); the second boxed each of the two (58 × 38: IoU 2204 / 6000 = 0.37 with it, all inside)
    first = Detections.make([[0, 0, 60, 100], [100, 0, 140, 60]], [0.7, 0.9])
    halves = Detections.make([[1, 1, 59, 39], [1, 41, 59, 79]], [0.6, 0.5])
    d = add_second(first, halves)
    assert len(d) == 3  # the one wide box replaced (2 × 2204 ≥ 0.6 × 6000); the other kept
    assert sorted(map(tuple, np.round(d.boxes).astype(int).tolist())) == [
        (1, 1, 59, 39), (1, 41, 59, 79), (100, 0, 140, 60)]
    # one box of the two found inside it: not two tiles boxed as one; the box inside is dropped
    assert np.allclose(add_second(first, halves.take([0])).boxes, first.boxes)


def test_the_second_detectors_own_box_over_the_two_tiles_is_not_a_third():
    # beside its two halves, the second detector also boxed the pair as one (IoU 0.37 with each half: its NMS
    # at 0.5 keeps all three); that box is the replaced first box again (IoU 0.96), not a tile the first missed
    first = Detections.make([[0, 0, 60, 100], [100, 0, 140, 60]], [0.7, 0.9])
    second = Detections.make([[1, 1, 59, 39], [1, 41, 59, 79], [0, 2, 60, 98]], [0.6, 0.5, 0.4])
    d = add_second(first, second)
    assert sorted(map(tuple, np.round(d.boxes).astype(int).tolist())) == [
        (1, 1, 59, 39), (1, 41, 59, 79), (100, 0, 140, 60)]


def test_a_second_box_the_photos_edge_cuts_to_a_sliver_is_not_added():
    # a composite's cloth at its right edge was boxed 44 px wide by the second detector beside the first's 95-px
    # tiles, read 2y at 27 % and counted as the hand's flower at the row's end: a box that touches the photo's edge
    # and is under half a tile (the first's median short side, here 95 px: 47.5) across it is dropped; a whole tile
    # the first missed is still added, and without the photo's size (as before) both are
    first = Detections.make([[800, 500, 895, 640], [900, 500, 995, 640], [1000, 500, 1095, 640]])
    sliver, whole, cut = [1236, 507, 1280, 649], [100, 100, 195, 240], [1220, 300, 1280, 440]
    second = Detections.make([sliver, whole, cut], [0.38, 0.9, 0.6])
    got = add_second(first, second, size=(1280, 960))
    assert len(got) == 5 and got.boxes[3].tolist() == whole and got.boxes[4].tolist() == cut  # (60 px: 0.63 of one)
    assert len(add_second(first, second)) == 6


def test_an_empty_detection_leaves_the_other():
    first = Detections.make([[0, 0, 40, 60]], [0.9])
    none = Detections.make(np.zeros((0, 4)))
    assert add_second(first, none) is first and add_second(none, first) is first


def test_the_second_detector_loads_from_its_package_and_boxes_the_demos_tiles():
    # the dependency (pyproject: mahjong-detector==0.0.6) gives the model; on the demo render it boxes 13
    # tiles' faces, each inside one of the product detector's 16 whole-tile boxes (at IoU 0.46-0.63: the
    # faces without the tiles' sides), so it adds none to them; the demo reads >99 % sure, and the product
    # never asks it there (below)
    from vision.detect import load_detector, load_second_detector
    from vision.io import load_photo

    ph = load_photo(DEMO)
    second = load_second_detector(1)(ph.pixels)
    first = load_detector(threads=1)(ph.pixels)
    assert 10 <= len(second) <= 16 and len(first) == 16
    c = second.centres
    b = first.boxes
    inside = (c[:, None, 0] > b[None, :, 0]) & (c[:, None, 0] < b[None, :, 2]) & (c[:, None, 1] > b[None, :, 1]) \
        & (c[:, None, 1] < b[None, :, 3])
    assert (inside.sum(1) == 1).all()
    assert len(add_second(first, second)) == len(first)


def test_a_sure_reading_never_runs_the_second_detector():
    from vision.pipeline import read_photo

    r = read_photo(DEMO)
    assert r.reading.confidence >= 0.99 and not r.second and "second detector" not in r.timings


class _Stub:
    """A second detector that boxes one tile-sized patch of bare table at the photo's top left."""

    def __init__(self):
        self.calls = 0

    def __call__(self, image, conf=0.25, iou=0.5):
        self.calls += 1
        return Detections.make([[5, 5, 45, 65]], [0.3])


def test_an_unsure_reading_is_read_again_with_the_second_detectors_boxes(monkeypatch):
    import vision.pipeline as pipeline

    stub = _Stub()
    monkeypatch.setattr(pipeline, "SECOND_BELOW", 1.01)  # every reading "unsure"
    r = pipeline.read_photo(DEMO, second_detector=stub, rotate=False, mirror=False)
    assert stub.calls == 1 and r.second and "second detector" in r.timings
    # the box it added is a box of the photo, left out of the hand as no tile of it: the reading stands
    assert len(r.detections) == 17 and r.reading.notation == "345m678p66z [777s] (2222m) +1f win:8p"
    # the note names the box by its tile number and says the hand does not use it (a new user saw the note on
    # readings its boxes had not changed, and could not tell)
    (i,) = r.second_boxes
    assert tuple(r.detections.boxes[i]) == (5, 5, 45, 65) and r.reading.roles[i] == "ignored"
    (note,) = [n for n in r.reading.notes if "also boxed by a second detector" in n]
    assert f"1 box(es) added where the first detector had none or one over two tiles: tile(s) {r.position(i)}; " \
           "none of them in the hand" in note
    off = pipeline.read_photo(DEMO, second_detector=stub, second=False, rotate=False, mirror=False)
    assert stub.calls == 1 and not off.second and len(off.detections) == 16


def test_a_second_look_that_adds_no_box_keeps_the_first_reading_unmarked(monkeypatch):
    # the real second detector on the demo: its 13 boxes lie inside the first detector's 16 (above)
    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "SECOND_BELOW", 1.01)  # every reading "unsure"
    r = pipeline.read_photo(DEMO, rotate=False, mirror=False)
    assert "second detector" in r.timings and not r.second and len(r.detections) == 16
    assert not any("second detector" in n for n in r.reading.notes)


def test_a_sure_reading_does_not_need_the_second_detectors_package(monkeypatch):
    import vision.pipeline as pipeline
    from vision.errors import ModelError

    def missing(*a, **k):
        raise ModelError("the second detector's model is missing")

    monkeypatch.setattr(pipeline, "load_second_detector", missing)
    assert pipeline.read_photo(DEMO).reading.legal
    monkeypatch.setattr(pipeline, "SECOND_BELOW", 1.01)
    with pytest.raises(ModelError):
        pipeline.read_photo(DEMO, rotate=False, mirror=False)


def test_no_second_detector_on_the_command_line(tmp_path, capsys, monkeypatch):
    import json

    import cli
    import vision.pipeline as pipeline

    stub = _Stub()
    monkeypatch.setattr(pipeline, "SECOND_BELOW", 1.01)  # every reading "unsure"
    monkeypatch.setattr(pipeline, "load_second_detector", lambda *a, **k: stub)
    assert cli.main(["photo", str(DEMO), "--json", "--no-history", "--no-second-detector"]) == 0
    assert json.loads(capsys.readouterr().out)["photo"]["second_detector"] is False and stub.calls == 0
    assert cli.main(["photo", str(DEMO), "--json", "--no-history"]) == 0
    assert json.loads(capsys.readouterr().out)["photo"]["second_detector"] is True and stub.calls >= 1


def test_the_web_answer_says_when_the_second_detector_boxed_tiles(tmp_path, monkeypatch):
    # (web.schemas.PhotoInfo is the answer's model: a key it lacks is dropped from the answer)
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    import vision.pipeline as pipeline
    from web.app import Settings, create_app

    monkeypatch.setattr(pipeline, "SECOND_BELOW", 1.01)  # every reading "unsure"
    monkeypatch.setattr(pipeline, "load_second_detector", lambda *a, **k: _Stub())
    client = TestClient(create_app(Settings(data_dir=tmp_path / "data")))
    r = client.post("/api/score", files={"image": ("demo.jpg", DEMO.read_bytes(), "image/jpeg")},
                    data={"ruleset": "nts"})
    assert r.status_code == 200, r.text[:600]
    assert r.json()["photo"]["second_detector"] is True


def test_a_batch_reads_again_when_the_second_detectors_model_changes(tmp_path, monkeypatch):
    # a resumed batch keeps the rows read by the same models (vision.readers.reader_identity): the second
    # detector's model is one of them, so another mahjong-detector version reads the photos again
    import vision.detect as detect
    from vision.readers import DEFAULT_READER, reader_identity

    model = tmp_path / "model.onnx"
    model.write_bytes(b"one version")
    monkeypatch.setattr(detect, "second_model_path", lambda: model)
    first = reader_identity(DEFAULT_READER)
    model.write_bytes(b"another version")
    assert reader_identity(DEFAULT_READER) != first
    monkeypatch.setattr(detect, "second_model_path", lambda: None)
    assert reader_identity(DEFAULT_READER) not in (first,)


def test_one_box_over_exactly_two_tiles_is_split_by_the_second_detectors_two():
    # each of two tiles under one box exactly is at IoU 0.5 with it (60 × 40 of 120 × 40): under the split IoU
    # (0.6), they replace it; a box of the second detector over most of the first (IoU 0.9) is no half of it
    first = Detections.make([[0, 0, 120, 40]], [0.5])
    d = add_second(first, Detections.make([[0, 0, 60, 40], [60, 0, 120, 40]], [0.6, 0.6]))
    assert sorted(map(tuple, np.round(d.boxes).astype(int).tolist())) == [(0, 0, 60, 40), (60, 0, 120, 40)]
    same = add_second(first, Detections.make([[0, 0, 108, 40], [60, 0, 120, 40]], [0.6, 0.6]))
    assert np.array_equal(same.boxes, first.boxes)


def test_a_non_winners_reading_takes_the_second_detectors_flower_when_the_first_was_one_too():
    # a composite's 13-tile hand (not won; nobody said) had two flowers below its row boxed only by the second
    # detector: that reading, a non-winner's hand as the first was, had been refused for being a non-winner's, and
    # the flowers were left out. The demo with its 8p and flower boxes taken from the first detector (13 tiles: a
    # non-winner's hand) and the flower's box given by the second: the flower is counted
    import vision.pipeline as pipeline

    r = pipeline.read_photo(DEMO, rotate=False, mirror=False, second=False)
    gone = [i for i in range(len(r.detections)) if r.reading.tiles[i] in ("1f", "8p")]
    first = r.detections.take(np.array([i for i in range(len(r.detections)) if i not in gone]))
    flower = r.detections.take(np.array([i for i in gone if r.reading.tiles[i] == "1f"]))

    class First:  # (the photo's boxes less two; nothing in the zoomed or turned passes)
        imgsz, mirror_safe = 416, True

        def __call__(self, image, *a, **k):
            return first if image.shape[:2] == r.photo.pixels.shape[:2] else Detections.make(np.zeros((0, 4)))

    res = pipeline.read_photo(DEMO, detector=First(), second_detector=lambda image, *a, **k: flower, rotate=False,
                              mirror=False)
    assert res.second and res.reading.notation == "345m67p66z [777s] (2222m) +1f", res.reading.notation
    assert not res.reading.hand.context.winner
