"""Test helpers for batch/audit/webcam: small rendered photos and an *oracle* reader.

The oracle stands in for the ONNX models (absent or weak while they train): it loads the photo with
the real :func:`vision.io.load_photo` (so corrupt files fail exactly as in production), looks up the
rendered truth by the SHA-256 of the decoded pixels, builds :class:`Detections` from the true boxes
and one-hot-ish :class:`TileReadings`, and runs the real model-free half of the pipeline
(:func:`vision.pipeline.read_detections`: layout → decode → score). The truth index is the JSON file
named by ``$MAHJONG_TEST_TRUTH`` (pixel hash → tiles), so spawned workers and subprocesses find it.
``$MAHJONG_TEST_DELAY`` (seconds) slows each read, for the kill-and-resume test; ``$MAHJONG_TEST_STOP``
(a photo's file name) presses Ctrl-C while that photo is read.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve()
#: the ``--reader`` spec of the oracle (a file path, so subprocesses need no PYTHONPATH)
ORACLE = f"{HERE}:oracle_reader"
UNSURE = f"{HERE}:unsure_reader"
UNMARKED = f"{HERE}:unmarked_reader"
LOOSE_FLOWERS = f"{HERE}:loose_flowers_reader"
CHANGED = f"{HERE}:changed_reader"
UNSCORED_FLOWERS = f"{HERE}:unscored_flowers_reader"
POISON = f"{HERE}:poison_reader"
SWAP = f"{HERE}:swap_reader"
W, H = 320, 240
_CACHE: dict[tuple[int, int], Path] = {}


def pixel_key(pixels: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).hexdigest()


def render(out: Path, n: int, seed: int = 11) -> list[dict]:
    """Render ``n`` small photos (W×H) into ``out`` (``IIIIII.jpg``) with ``datasets.synth``;
    returns their meta records with ``"file"`` and ``"pixels"`` (pixel hash) added, and writes the
    truth index ``out/truth.json``. Skips the test when no tile art is available."""
    import pytest

    from datasets import faces, synth
    from vision.io import load_photo

    if not faces.available_sources():
        pytest.skip("no tile art for rendering (install a CJK font, e.g. fonts-wqy-zenhei, or provide ../shared)")
    tmp = out / "_synth"
    synth.main(["--out", str(tmp), "--images", str(n), "--seed", str(seed), "--workers", "1",
                "--size", f"{W}x{H}", "--no-crops", "--val-every", "0"])
    metas = []
    for meta_f in sorted((tmp / "meta" / "train").glob("*.json")):
        m = json.loads(meta_f.read_text())
        src = tmp / m["image"]
        dst = out / src.name
        shutil.copyfile(src, dst)
        m["file"] = str(dst)
        m["pixels"] = pixel_key(load_photo(dst).pixels)
        metas.append(m)
    shutil.rmtree(tmp)
    index = {m["pixels"]: {"tiles": m["tiles"], "hand": m["hand"], "winning": m["winning"]} for m in metas}
    (out / "truth.json").write_text(json.dumps(index))
    return metas


def rendered(tmp_root: Path, n: int = 6, seed: int = 11) -> Path:
    """A folder of ``n`` rendered photos + truth.json, rendered once per test session."""
    key = (n, seed)
    if key not in _CACHE or not (_CACHE[key] / "truth.json").is_file():
        d = tmp_root / f"renders-{n}-{seed}"
        d.mkdir(parents=True, exist_ok=True)
        render(d, n, seed)
        _CACHE[key] = d
    return _CACHE[key]


#: the render of :func:`thirteen_tile_photo` (``datasets.scene.render_scene`` seed and index): the 13 tiles in the
#: frame, none cut off, lying face up, the hand read by the committed models as a non-winner's 13 tiles
THIRTEEN_RENDER = (2026, 47)


def thirteen_tile_photo(dst: Path) -> Path:
    """Render a photo of 13 tiles into ``dst`` (JPEG): the demo hand (``docs/make_demo.py``'s ``demo_hand``,
    345m 678p 66z [777s] (2222m) +1f won on the 8p) without its winning tile — a non-winner's 345m67p66z [777s]
    (2222m) +1f, no 14th tile — with the project's renderer, as ``docs/make_demo.py`` renders the demo photo
    (:data:`THIRTEEN_RENDER`). Skips the test when no tile art is available."""
    import importlib.util

    import cv2
    import pytest

    from datasets import faces, scene

    if not faces.available_sources():
        pytest.skip("no tile art for rendering (install a CJK font, e.g. fonts-wqy-zenhei, or provide ../shared)")
    spec = importlib.util.spec_from_file_location("_make_demo", REPO / "docs" / "make_demo.py")
    make_demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_demo)

    def thirteen(rng=None, allow_bonus=True, size=None):
        hand = make_demo.demo_hand(rng, allow_bonus, size)
        hand.concealed.remove(hand.winning)
        hand.concealed_groups = [[t for t in g if t != hand.winning] for g in hand.concealed_groups]
        hand.winning = None
        return hand

    was = scene.random_hand
    scene.random_hand = thirteen  # (as docs/make_demo.py renders its own hand)
    try:
        sc = scene.render_scene(*THIRTEEN_RENDER)
    finally:
        scene.random_hand = was
    assert sc.hand.notation() == "345m67p66z [777s] (2222m) +1f" and sc.hand.winning is None
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(sc.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 88])
    dst.write_bytes(buf.tobytes())
    return dst


def oracle_parts(pixels: np.ndarray, truth: dict):
    """(Detections, TileReadings) of a rendered photo from its truth."""
    from vision.classes import CLASS_INDEX, NUM_CLASSES
    from vision.classify import TileReadings
    from vision.detect import Detections

    ts = truth["tiles"]
    det = Detections.make([t["xyxy"] for t in ts], None, [t["tile"] == "0x" for t in ts])
    p = np.full((len(ts), NUM_CLASSES), 0.02 / (NUM_CLASSES - 1), np.float32)
    for i, t in enumerate(ts):
        p[i, CLASS_INDEX[t["tile"]]] = 0.98
    return det, TileReadings.make(p, [t["pose"] for t in ts])


def without_winning_tile(truth: dict) -> dict:
    """The truth with the winning tile removed (the one laid apart, else one concealed copy)."""
    ts = list(truth["tiles"])
    idx = [i for i, t in enumerate(ts) if t["role"] == "winning"]
    if not idx:
        idx = [i for i, t in enumerate(ts) if t["role"] == "concealed" and t["tile"] == truth["winning"]][-1:]
    for i in idx[:1]:
        del ts[i]
    return {**truth, "tiles": ts}


def winning_tile_in_line(truth: dict) -> dict:
    """The truth with the winning tile laid in line after the last tile of the hand's row, as one more
    concealed tile (a photo with no winning tile marked); unchanged when it has no tile apart."""
    ts = [dict(t) for t in truth["tiles"]]
    won = [t for t in ts if t["role"] == "winning"]
    row = [t for t in ts if t["row"] == 0 and t["role"] == "concealed"]
    if not won or len(row) < 2:
        return truth
    (x0, y0, *_), (x1, y1, *_) = row[-2]["xyxy"], row[-1]["xyxy"]
    dx, dy = x1 - x0, y1 - y0
    b = row[-1]["xyxy"]
    won[0].update(xyxy=[b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy], role="concealed", row=0, group=0)
    return {**truth, "tiles": ts}


def oracle_reader(unmarked: bool = False):
    """Reader factory (the ``--reader`` interface of :mod:`vision.batch`); ``unmarked``: each winner's
    photo shows its winning tile in line with the others (:func:`winning_tile_in_line`)."""
    from scoring import load_ruleset
    from vision.errors import NoTilesError
    from vision.io import load_photo
    from vision.pipeline import read_detections

    index = json.loads(Path(os.environ["MAHJONG_TEST_TRUTH"]).read_text())
    delay = float(os.environ.get("MAHJONG_TEST_DELAY", "0") or 0)

    def read(source, ruleset, context, *, winning_tile=None, exposed=None, fixes=None, options=None,
             additions=None, **_):
        # (read at each call: a reader of --workers 0 is kept for the process's next runs)
        if os.path.basename(str(source)) == os.environ.get("MAHJONG_TEST_STOP"):
            raise KeyboardInterrupt
        photo = load_photo(source)
        truth = index.get(pixel_key(photo.pixels))
        if truth is None:
            raise NoTilesError(f"{photo.name}: no tiles found in the photo")
        if delay:
            time.sleep(delay)
        if not context.winner:  # a non-winner's photo shows 13 tiles: take the winning tile away
            truth = without_winning_tile(truth)
        elif unmarked:
            truth = winning_tile_in_line(truth)
        det, rd = oracle_parts(photo.pixels, truth)
        rs = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        return read_detections(photo, det, rd, rs, context, winning_tile=winning_tile, exposed=exposed,
                               fixes=fixes, options=options, additions=additions)

    return read


def poison_reader():
    """The oracle reader, whose process dies (SIGKILL, as a native crash or the kernel's out-of-memory killer does)
    reading a photo whose file name is ``MAHJONG_TEST_POISON`` (``*``: every photo)."""
    import signal

    read = oracle_reader()

    def poisoned(source, *a, **kw):
        if os.environ.get("MAHJONG_TEST_POISON") in (os.path.basename(str(source)), "*"):
            os.kill(os.getpid(), signal.SIGKILL)
        return read(source, *a, **kw)

    return poisoned


def swap_reader():
    """The oracle reader, which first writes the bytes of the file ``MAHJONG_TEST_SWAP`` names after its ``=`` over
    the photo named before it (``a.jpg=/…/b.jpg``) when it is asked to read that photo and it does not hold them yet:
    a photo replaced after the batch took its digest and before it was read."""
    read = oracle_reader()

    def swapped(source, *a, **kw):
        name, _, other = os.environ.get("MAHJONG_TEST_SWAP", "").partition("=")
        if name and os.path.basename(str(source)) == name and Path(source).read_bytes() != Path(other).read_bytes():
            shutil.copyfile(other, source)
        return read(source, *a, **kw)

    return swapped


def unmarked_reader():
    """The oracle reader, each winner's photo with no winning tile marked (in line with the others)."""
    return oracle_reader(unmarked=True)


def unsure_reader():
    """The oracle reader, each reading 40 % sure (a photo the reader doubts)."""
    from dataclasses import replace

    read = oracle_reader()

    def unsure(*a, **kw):
        res = read(*a, **kw)
        return replace(res, reading=replace(res.reading, confidence=0.4))

    return unsure


def changed_reader():
    """The oracle reader, each reading 40 % sure, its first tile in the hand taken as changed to make a legal hand from
    another face (read 9s, or 1s where it is a 9s): a reading the decoder changed a tile of."""
    from dataclasses import replace

    read = oracle_reader()

    def changed(*a, **kw):
        res = read(*a, **kw)
        r = res.reading
        i = next(k for k, role in enumerate(r.roles) if role not in ("ignored", "bonus"))
        raw = list(r.raw)
        raw[i] = "1s" if r.tiles[i] == "9s" else "9s"
        return replace(res, reading=replace(r, confidence=0.4, raw=tuple(raw), changed=(i,)))

    return changed


def loose_flowers_reader():
    """The oracle reader, each reading 40 % sure with three groups of flowers/seasons left out as loose tiles beside
    it, noted as the reader notes them (:func:`vision.decode.loose_bonus_note`, numbered after the photo's tiles):
    a columns composite with loose flowers and seasons, as a new user's batch read one."""
    from dataclasses import replace

    from vision.decode import loose_bonus_note, number_after_hand

    read = oracle_reader()

    def loose(*a, **kw):
        res = read(*a, **kw)
        r = res.reading
        n = len(r.tiles)
        after = number_after_hand(res.order, r.roles)
        notes = (loose_bonus_note([(n + 1, "4f"), (n + 2, "3y")], "near the hand", 0.23, after),
                 loose_bonus_note([(n + 3, "2y")], "away from the hand", 0.2, after),
                 loose_bonus_note([(n + 4, "1f")], "away from the hand", 0.2, after))
        return replace(res, reading=replace(r, confidence=0.4, notes=tuple(r.notes) + notes))

    return loose


def unscored_flowers_reader():
    """The oracle reader, each reading 70 % sure for one tile (its first box) weighed as a loose flower/season left
    out (:attr:`vision.decode.Reading.loose_bonus`: prior 0.35 of being the hand's × 0.9 its share of the bonus
    classes, which took the reading × (1 − 0.315) = × 0.685 from 1.02): a loose flower that scores nothing under
    nts (bonus_tiles=off, 002-03), as a director's needs-review row at 62 % was."""
    from dataclasses import replace

    read = oracle_reader()

    def loose(*a, **kw):
        res = read(*a, **kw)
        return replace(res, reading=replace(res.reading, confidence=0.7, loose_bonus=(((0,), 0.35, 0.9),)))

    return loose


def broken_reader():
    """A reader factory that fails like missing models."""
    from vision.errors import ModelError

    raise ModelError("model models/detector.onnx not found (test)")

