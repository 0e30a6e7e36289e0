"""`mahjong-score webcam` headless (commands/webcam.py) with a fake cv2.VideoCapture feeding renders.

There is no camera here: ``cv2.VideoCapture`` is replaced by a fake that returns rendered photos
as BGR frames, and the oracle reader (tests/batch_fakes.py) stands in for the models.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import batch_fakes as bf
from scoring import history
from vision.io import load_photo

REPO = Path(__file__).resolve().parents[1]


class FakeCapture:
    """Stands in for cv2.VideoCapture: ``frames`` (BGR) in order, then read() fails."""

    frames: list[np.ndarray] = []
    opened = True
    devices: list = []

    def __init__(self, device, *a):
        FakeCapture.devices.append(device)
        self._frames = list(FakeCapture.frames)
        self.released = False

    def isOpened(self):
        return FakeCapture.opened

    def read(self):
        if not self._frames:
            return False, None
        return True, self._frames.pop(0).copy()

    def release(self):
        self.released = True


@pytest.fixture
def camera(truth, monkeypatch):
    # frames as a camera would give them: BGR, the renders' pixels exactly
    frames = [cv2.cvtColor(load_photo(f).pixels, cv2.COLOR_RGB2BGR) for f in sorted(truth.glob("*.jpg"))]
    monkeypatch.setattr(FakeCapture, "frames", frames)
    monkeypatch.setattr(FakeCapture, "opened", True)
    monkeypatch.setattr(FakeCapture, "devices", [])
    monkeypatch.setattr(cv2, "VideoCapture", FakeCapture)
    return frames


def test_headless_scores_n_frames_after_warmup(run_cli, camera, renders, tmp_path):
    from scoring import Context

    db = tmp_path / "h.sqlite3"
    rc, out, err = run_cli("webcam", "--frames", "3", "--warmup", "1", "--device", "0", "--json",
                           "--reader", bf.ORACLE, "--db", str(db))
    assert rc in (0, 1), err
    recs = [json.loads(x) for x in out.splitlines()]
    assert [r["frame"] for r in recs] == [1, 2, 3]
    # each frame named as the history names it (a tester's JSON lines had each "photo": {"name": "<bytes>"})
    assert [r["photo"]["name"] for r in recs] == ["webcam:0#1", "webcam:0#2", "webcam:0#3"]
    assert FakeCapture.devices == [0]
    # frame k is render k (after the one warm-up frame), read exactly as the photo file is read
    reader = bf.oracle_reader()
    for r, src in zip(recs, sorted(renders.glob("*.jpg"))[1:4]):
        want = reader(src, "nts", Context())
        assert r["reading"] == want.reading.notation
        assert (r["score"] or {}).get("total") == (want.scored.total if want.scored else None)
    assert rc == (0 if all(r["legal"] for r in recs) else 1)
    con = history.connect(db)
    hist = list(history.entries(con, limit=None))
    con.close()
    assert len(hist) == 3 and all(e["command"] == "webcam" for e in hist)
    assert {e["input"] for e in hist} == {"webcam:0#1", "webcam:0#2", "webcam:0#3"}
    # the input hash is the hash of the frame as scored (a lossless PNG of it)
    from vision.webcam import frame_to_png

    assert hist[-1]["input_sha256"] == history.sha256_bytes(frame_to_png(camera[1]))


def test_an_unsure_frame_is_recorded_unsure(run_cli, camera, tmp_path):
    # a frame read below vision.batch.REVIEW_BELOW is listed "unsure: check it" by `history`, as a `photo` is
    # (it had been `ok`, where batch says needs-review)
    db = tmp_path / "h.sqlite3"
    rc, out, err = run_cli("webcam", "--frames", "1", "--warmup", "0", "--json", "--reader", bf.UNSURE,
                           "--db", str(db))
    (rec,) = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and rec["legal"], err
    con = history.connect(db)
    (e,) = list(history.entries(con, limit=None))
    con.close()
    assert e["command"] == "webcam" and e["status"] == "unsure: check it" and e["confidence"] == 0.4, e


def test_headless_text_output_and_saved_frames(run_cli, camera, tmp_path):
    save = tmp_path / "frames"
    rc, out, err = run_cli("webcam", "--frames", "2", "--warmup", "0", "--reader", bf.ORACLE,
                           "--save", str(save), "--no-history")
    assert rc in (0, 1), err
    assert out.count("== frame ") == 2 and "reading: " in out
    saved = sorted(save.glob("*.png"))
    assert len(saved) == 2
    # a saved frame is exactly the captured frame
    back = cv2.imread(str(saved[0]), cv2.IMREAD_COLOR)
    assert np.array_equal(back, camera[0])


def test_frame_without_tiles_is_reported_and_exit_1(run_cli, camera, monkeypatch):
    blank = np.full_like(camera[0], 128)
    monkeypatch.setattr(FakeCapture, "frames", [blank, camera[0]])
    rc, out, err = run_cli("webcam", "--frames", "2", "--warmup", "0", "--reader", bf.ORACLE, "--no-history")
    assert rc == 1
    assert "== frame 1" in out and "error: frame 1: no tiles found in the photo" in out
    assert "== frame 2" in out


def test_no_camera_is_one_line_exit_2(run_cli, camera, monkeypatch):
    monkeypatch.setattr(FakeCapture, "opened", False)
    rc, out, err = run_cli("webcam", "--frames", "1", "--device", "2", "--reader", bf.ORACLE)
    assert rc == 2 and out == ""
    assert err == "mahjong-score: error: no camera at device 2 (OpenCV could not open it); connect a camera or choose another with --device N\n"


def test_camera_that_stops_giving_frames_is_exit_2(run_cli, camera, monkeypatch, tmp_path):
    monkeypatch.setattr(FakeCapture, "frames", camera[:2])
    rc, _, err = run_cli("webcam", "--frames", "5", "--warmup", "0", "--reader", bf.ORACLE, "--no-history")
    assert rc == 2 and err == "mahjong-score: error: camera 0 stopped giving frames after 2\n"
    # with --json the frames are JSON lines, and so is the error after them (a tester's was printed over
    # four indented lines); a video file that ends is said to have ended (a tester's 3-frame video was asked
    # whether it was "in use by another program")
    rc, out, err = run_cli("webcam", "--frames", "5", "--warmup", "0", "--reader", bf.ORACLE, "--no-history", "--json")
    lines = out.splitlines()
    assert rc == 2 and len(lines) == 3 and [json.loads(x).get("frame") for x in lines[:2]] == [1, 2]
    assert json.loads(lines[2]) == {"error": "camera 0 stopped giving frames after 2", "exit_code": 2}
    video = tmp_path / "v.avi"
    video.write_bytes(b"not really a video")  # (FakeCapture stands in for OpenCV: only the name counts)
    monkeypatch.setattr(FakeCapture, "frames", camera[:3])
    rc, _, err = run_cli("webcam", "--frames", "5", "--warmup", "0", "--device", str(video), "--reader", bf.ORACLE,
                         "--no-history")
    assert rc == 2 and err == f"mahjong-score: error: video {video} ended after 3 frames (fewer than --warmup plus --frames)\n", err


@pytest.mark.parametrize("argv, message", [
    (["--frames", "0"], "--frames 0 must be ≥ 1"),
    (["--frames", "1", "--warmup", "-1"], "must be ≥ 0"),
    (["--frames", "1", "--ruleset", "nope"], "unknown ruleset 'nope'"),
])
def test_bad_options_exit_2(run_cli, camera, argv, message):
    rc, _, err = run_cli("webcam", *argv, "--reader", bf.ORACLE)
    assert rc == 2 and message in err and err.count("\n") == 1


def test_real_opencv_without_a_camera_is_one_line(tmp_path):
    # the real cv2.VideoCapture on a device that does not exist: OpenCV's own warnings are silenced
    r = subprocess.run([sys.executable, "-m", "cli", "webcam", "--frames", "1", "--device", "97", "--no-history"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("mahjong-score: error: no camera at device 97") and r.stderr.count("\n") == 1


def test_live_mode_without_window_support_says_so(run_cli, camera, monkeypatch):
    # the headless OpenCV wheel has no windows: the live preview explains and exits 2
    def no_window(*a, **k):
        raise cv2.error("The function is not implemented")

    monkeypatch.setattr(cv2, "namedWindow", no_window)
    rc, _, err = run_cli("webcam", "--reader", bf.ORACLE, "--no-history")
    assert rc == 2 and "no window support" in err and "--frames N" in err


def test_still_image_as_device_says_it_is_not_a_camera(tmp_path):
    # issue 15 item 10: OpenCV opens a JPEG as a one-frame "video"; the error said
    # "gave no frame …; is it in use by another program?"
    still = tmp_path / "frame"  # no extension: recognised by its content (cv2.haveImageReader)
    still.write_bytes((REPO / "docs" / "demo.jpg").read_bytes())
    for dev in (str(REPO / "docs" / "demo.jpg"), str(still)):
        r = subprocess.run([sys.executable, "-m", "cli", "webcam", "--frames", "1", "--device", dev, "--no-history"],
                           cwd=REPO, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr == (f"mahjong-score: error: --device {dev} is a still image, not a camera or a video; "
                            f"score a photo with `mahjong-score photo {dev}`\n")
    r = subprocess.run([sys.executable, "-m", "cli", "webcam", "--frames", "1", "--device", str(tmp_path / "x.mp4"),
                        "--no-history"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "x.mp4: no such file" in r.stderr and r.stderr.count("\n") == 1
