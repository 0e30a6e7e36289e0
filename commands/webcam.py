"""``mahjong-score webcam``: score hands from a camera (OpenCV ``cv2.VideoCapture``).

Live (default): a preview window; **space** captures the current frame and scores it (the annotated
result is shown until a key is pressed, the explanation printed), **q** or Esc quits. Needs an
OpenCV build with window support (``opencv-python``; the headless wheel has none — then use
``--frames``).

Headless: ``--frames N`` reads the camera without a window, skips ``--warmup`` frames (cameras
adjust exposure on their first frames), and scores the next N frames, ``--interval`` seconds apart.
Output is the same text as ``photo`` (or one JSON object per line with ``--json``). Exit code: 0
when every frame was scored, 1 when some frame could not be (no tiles, no legal reading; printed),
2 bad input or no camera ("no camera at device 0 …", one line).

Each frame is handed to the pipeline as a lossless PNG in memory (its SHA-256 is the history's
input hash); ``--save DIR`` also keeps the captured frames as files.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from commands.common import (
    UserError, add_context_args, add_history_args, check_ruleset_args, context_from_args, exposed_arg,
    options_from_args, whole_number)
from vision.webcam import WINDOW, _is_still_image, _quiet_cv2, frame_to_png


@contextlib.contextmanager
def _c_stderr_quiet():
    """File descriptor 2 pointed at the null device for the block: what C libraries (OpenCV's FFmpeg backend)
    write there themselves, past Python's sys.stderr and OpenCV's log level. Nothing when fd 2 cannot be
    duplicated (no such descriptor: the block runs as it is)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            sys.stderr.flush()
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_camera(device: str):
    """An opened ``cv2.VideoCapture`` for ``device`` (an index like ``0`` or a path/URL).

    Raises UserError (exit 2) with one line when no camera can be opened there, when ``device`` is a
    file path that does not exist, or when it is a still image (OpenCV would open a JPEG as a
    one-frame "video" and then give no frame).
    """

    cv2 = _quiet_cv2()
    # (ASCII digits only: a tester's "²" is a digit to str.isdigit, and int() refused it with a traceback)
    dev: Any = int(device) if device.isascii() and device.isdigit() else device
    if isinstance(dev, str) and "://" not in dev:
        path = Path(dev)
        if path.is_file() and _is_still_image(path, cv2):
            raise UserError(f"--device {device} is a still image, not a camera or a video; "
                            f"score a photo with `mahjong-score photo {device}`")
        if not path.exists() and (path.suffix or "/" in dev or "\\" in dev):
            raise UserError(f"--device {device}: no such file (give a camera number such as 0, "
                            f"a video file or a stream URL)")
    try:
        with _c_stderr_quiet():  # (FFmpeg's own log, "moov atom not found", made the one-line error two)
            cap = cv2.VideoCapture(dev)
    except cv2.error as e:  # pragma: no cover - backend errors
        raise UserError(f"no camera at device {device}: {str(e).splitlines()[0]}") from None
    if not cap.isOpened():
        cap.release()
        if isinstance(dev, str) and (Path(dev).is_file() or Path(dev).is_dir()):  # (a tester's text file named .mp4
            # had been told "no camera"; a device node, /dev/video0 busy, is still a camera)
            what = "a folder" if Path(dev).is_dir() else "no video OpenCV can read"
            raise UserError(f"--device {device} is {what}; give a camera number such as 0, a video file or a "
                            f"stream URL")
        raise UserError(f"no camera at device {device} (OpenCV could not open it); connect a camera or "
                        f"choose another with --device N")
    return cap


def score_frame(frame, k: int, args: argparse.Namespace, reader: Callable, *, save_dir: Path | None = None):
    """Score one camera frame: (PhotoResult or None, png bytes, saved path or None, error or None)."""
    from scoring import HandError, RulesetError

    from vision.errors import VisionError

    png = frame_to_png(frame)
    saved = None
    if save_dir is not None:
        stem = f"webcam-{datetime.now().strftime('%Y%m%d-%H%M%S')}-{k:04d}"
        for n in range(1000):  # made new, never over a file there (two runs started in the same second)
            saved = save_dir / (f"{stem}.png" if n == 0 else f"{stem}-{n}.png")
            try:
                with open(saved, "xb") as f:
                    f.write(png)
                break
            except FileExistsError:
                continue
            except OSError as e:
                raise UserError(f"--save {save_dir}: cannot write {saved.name} ({e.strerror or e})") from None
        else:
            raise UserError(f"--save {save_dir}: cannot write {stem}.png: a thousand files of that name are there")
    try:
        res = reader(png, args.ruleset, context_from_args(args), winning_tile=args.winning_tile,
                     exposed=args.exposed, fixes=None, options=options_from_args(args))
    except (VisionError, HandError, RulesetError) as e:
        return None, png, saved, str(e).splitlines()[0].replace("<bytes>", f"frame {k}")
    return res, png, saved, None


def _report(k: int, res, err: str | None, args: argparse.Namespace, saved: Path | None) -> bool:
    """Print one frame's result; True when it was scored."""
    from scoring import explain

    from vision.pipeline import summary, to_json

    ok = res is not None and res.reading.legal and res.scored is not None
    if args.json:
        obj: dict[str, Any] = {"frame": k, "saved": str(saved) if saved else None}
        if res is None:
            obj["error"] = err
        else:
            obj.update(to_json(res))
            if isinstance(obj.get("photo"), dict):  # (a frame has no file name: "<bytes>" had been its name)
                obj["photo"]["name"] = str(saved) if saved else f"webcam:{args.device}#{k}"
        print(json.dumps(obj, ensure_ascii=False), flush=True)
        return ok
    print(f"== frame {k}" + (f" ({saved})" if saved else ""))
    if res is None:
        print(f"error: {err}")
    else:
        print(summary(res).replace("photo: <bytes>", f"photo: frame {k}"))
        if ok:
            print()
            print(explain(res.scored))
        else:
            print(f"not scored: {res.reading.problem or 'no legal reading'}")
    print(flush=True)
    return ok


def _record(args, k, res, png, saved) -> None:
    if res is None:
        return
    from scoring.history import sha256_bytes

    from commands.common import record_photo

    record_photo(args, "webcam", f"webcam:{args.device}", res, input_label=str(saved) if saved else f"webcam:{args.device}#{k}",
                 input_sha256=sha256_bytes(png))


def cmd_webcam(args: argparse.Namespace) -> int:
    from vision.readers import DEFAULT_READER, FatalError, resolve_reader
    from commands.tilesets import reader_spec

    if args.frames is not None and args.frames < 1:
        raise UserError(f"--frames {args.frames} must be ≥ 1")
    if args.warmup < 0:
        raise UserError(f"--warmup {args.warmup} must be ≥ 0")
    if not 0 <= args.interval <= 86400:  # (NaN and inf too: time.sleep would fail after a frame)
        raise UserError(f"--interval {args.interval} must be a number of seconds from 0 to 86400")
    # validate the ruleset/options/flags/context before opening the camera: bad input is exit 2,
    # not an error on every frame
    check_ruleset_args(args)
    save_dir = Path(args.save) if args.save else None
    if save_dir is not None:
        try:
            save_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(f"--save {save_dir}: cannot create the folder ({e.strerror or e})") from None
        if not os.access(save_dir, os.W_OK):  # (said before the camera opens, not at frame 1)
            raise UserError(f"--save {save_dir}: no permission to write in the folder")
    cap = open_camera(args.device)
    try:
        try:
            reader = resolve_reader(reader_spec(args.reader or DEFAULT_READER, args.tileset))()
        except FatalError as e:
            raise UserError(str(e)) from None
        except Exception as e:  # ModelError
            raise UserError(str(e).splitlines()[0]) from None
        if args.frames is not None:
            return _headless(cap, args, reader, save_dir)
        return _live(cap, args, reader, save_dir)
    finally:
        cap.release()


def _read(cap, device: str, got: int):
    ok, frame = cap.read()
    if not ok or frame is None:
        if os.path.isfile(device):  # (a tester's 3-frame video was asked if it was "in use by another program")
            raise UserError(f"video {device} ended after {got} frame{'s' if got != 1 else ''} (fewer than --warmup "
                            f"plus --frames)")
        if got:
            raise UserError(f"camera {device} stopped giving frames after {got}")
        raise UserError(f"camera {device} gave no frame; is it in use by another program?")
    return frame


def _headless(cap, args, reader, save_dir) -> int:
    for i in range(args.warmup):
        _read(cap, args.device, i)
    all_ok = True
    for k in range(1, args.frames + 1):
        if k > 1 and args.interval:
            time.sleep(args.interval)
        frame = _read(cap, args.device, args.warmup + k - 1)
        res, png, saved, err = score_frame(frame, k, args, reader, save_dir=save_dir)
        _record(args, k, res, png, saved)
        all_ok &= _report(k, res, err, args, saved)
    return 0 if all_ok else 1


def _live(cap, args, reader, save_dir) -> int:  # pragma: no cover - needs a display and a camera

    cv2 = _quiet_cv2()
    try:
        cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL)
    except cv2.error:
        raise UserError("this OpenCV build has no window support (opencv-python-headless): use --frames N "
                        "to score without a window, or install opencv-python") from None
    from vision.annotate import annotate

    k = 0  # frames scored
    read = 0  # frames read (the camera's "stopped giving frames after N" counts these)
    try:
        while True:
            frame = _read(cap, args.device, read)
            read += 1
            view = frame.copy()
            cv2.putText(view, "space: score   q: quit", (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(view, "space: score   q: quit", (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
            cv2.imshow(WINDOW, view)
            key = cv2.waitKey(15) & 0xFF
            if key in (ord("q"), 27):
                return 0
            if cv2.getWindowProperty(WINDOW, cv2.WND_PROP_VISIBLE) < 1:
                return 0
            if key != ord(" "):
                continue
            k += 1
            res, png, saved, err = score_frame(frame, k, args, reader, save_dir=save_dir)
            _record(args, k, res, png, saved)
            _report(k, res, err, args, saved)
            if res is not None:
                title = (f"{res.reading.notation}  total {res.scored.total}" if res.scored is not None
                         else f"NOT LEGAL: {res.reading.notation}")
                shown = annotate(res.photo.pixels, res.detections, res.reading, res.order, title)
                cv2.imshow(WINDOW, cv2.cvtColor(shown, cv2.COLOR_RGB2BGR))
                if cv2.waitKey(0) & 0xFF in (ord("q"), 27):
                    return 0
    finally:
        cv2.destroyAllWindows()


def register(subparsers) -> None:
    """Add the ``webcam`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "webcam", help="score hands from a camera (live preview, or headless with --frames)",
        description="Live preview from a camera: press space to capture and score the hand, q to quit. "
                    "With --frames N, score N frames without a window (e.g. on a server or in tests).")
    p.add_argument("--device", default="0", help="camera index (0, 1, …) or a video path/URL; default 0")
    p.add_argument("--frames", type=whole_number, metavar="N", help="headless: score N frames without a window, then exit")
    p.add_argument("--warmup", type=whole_number, default=5, metavar="K", help="headless: frames skipped first (exposure settles); default 5")
    p.add_argument("--interval", type=float, default=0.0, metavar="S", help="headless: seconds between scored frames; default 0")
    p.add_argument("--save", metavar="DIR", help="keep every captured frame as a PNG in DIR")
    add_context_args(p)
    p.add_argument("--exposed", type=exposed_arg, help="the melds on the table, e.g. \"[777p] (1111s)\"")
    p.add_argument("--reader", default=None, help=argparse.SUPPRESS)
    from commands.tilesets import add_tileset_arg

    add_tileset_arg(p)
    add_history_args(p)
    p.add_argument("--json", action="store_true", help="one JSON object per scored frame (JSON lines)")
    p.set_defaults(func=cmd_webcam)
